//! deploy/: the Kubernetes manifests pass the strict schemas of every
//! Kubernetes from 1.25 to 1.37 (kubernetes-validate, offline: the schemas
//! come in the package), a manifest with a misspelt field is refused, the
//! Indexed Job's shard count, args and env agree with each other and with the
//! merge Job, and the ssh recipe parses and, in its local mode, runs every
//! shard and the merge (against a stand-in rumbench that records its args).
//!
//! kubernetes-validate lives in the venv scripts/install-kubernetes-validate.sh
//! makes (${XDG_DATA_HOME:-$HOME/.local/share}/rumbench/kubernetes-validate),
//! or at $KUBERNETES_VALIDATE. Without it the schema tests say so and pass,
//! unless RUMBENCH_REQUIRE_K8S_VALIDATE is set (scripts/test.sh sets it, so CI
//! cannot skip them silently).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Where scripts/install-kubernetes-validate.sh puts kubernetes-validate, or $KUBERNETES_VALIDATE.
fn kubernetes_validate(test: &str) -> Option<PathBuf> {
    let path = match std::env::var_os("KUBERNETES_VALIDATE") {
        Some(p) => PathBuf::from(p),
        None => {
            let data = match std::env::var_os("XDG_DATA_HOME") {
                Some(d) if !d.is_empty() => PathBuf::from(d),
                _ => PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".local/share"),
            };
            data.join("rumbench/kubernetes-validate/bin/kubernetes-validate")
        }
    };
    if path.is_file() {
        return Some(path);
    }
    if std::env::var_os("RUMBENCH_REQUIRE_K8S_VALIDATE").is_some() {
        panic!(
            "{} is missing and RUMBENCH_REQUIRE_K8S_VALIDATE is set: install it with scripts/install-kubernetes-validate.sh",
            path.display()
        );
    }
    // Straight to stderr: the test harness would hide eprintln! of a passing test.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {} is not installed (scripts/install-kubernetes-validate.sh installs it); set RUMBENCH_REQUIRE_K8S_VALIDATE to make this a failure",
        path.display()
    );
    None
}

/// Every Kubernetes version whose schemas kubernetes-validate 1.37.0 bundles.
fn versions() -> Vec<String> {
    (25..=37).map(|minor| format!("1.{minor}")).collect()
}

/// `kubernetes-validate --strict -k V ...` of `files` against `versions`: (exit code, stdout and stderr).
fn validate(kv: &Path, versions: &[String], files: &[PathBuf]) -> (Option<i32>, String) {
    let mut c = Command::new(kv);
    c.arg("--strict");
    for v in versions {
        c.arg("-k").arg(v);
    }
    let o = c.args(files).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    (o.status.code(), text)
}

/// The manifests: every .yaml and .yml under deploy/kubernetes, sorted.
fn manifests() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo().join("deploy/kubernetes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_manifest_passes_the_strict_schemas_of_kubernetes_1_25_to_1_37() {
    let Some(kv) = kubernetes_validate("every_manifest_passes_the_strict_schemas_of_kubernetes_1_25_to_1_37") else {
        return;
    };
    let files = manifests();
    assert!(files.iter().any(|f| f.ends_with("rumbench-shards.yaml")), "{files:?}");
    let all = versions();
    let (code, text) = validate(&kv, &all, &files);
    assert_eq!(code, Some(0), "{text}");
    // An unknown apiVersion or kind is only a WARN with exit code 0: no schema checked it.
    assert!(!text.lines().any(|l| l.contains("WARN") || l.contains("ERROR")), "{text}");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        for v in &all {
            let against = format!("against version {v}");
            assert!(
                text.lines()
                    .any(|l| l.contains(&*name) && l.contains(" passed for resource ") && l.ends_with(&against)),
                "{name} was not checked against {v}: {text}"
            );
        }
    }
}

#[test]
fn a_misspelt_field_is_refused_so_the_check_can_fail() {
    let Some(kv) = kubernetes_validate("a_misspelt_field_is_refused_so_the_check_can_fail") else {
        return;
    };
    let job = read("deploy/kubernetes/rumbench-shards.yaml");
    assert!(job.contains("  completionMode: Indexed"), "{job}");
    let t = tempfile::tempdir().unwrap();
    let typo = t.path().join("typo.yaml");
    std::fs::write(&typo, job.replace("  completionMode: Indexed", "  completionMod: Indexed")).unwrap();
    let (code, text) = validate(&kv, &["1.25".to_string(), "1.37".to_string()], &[typo]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("'completionMod' was unexpected"), "{text}");
}

/// A manifest's lines as (key, value): `key: value` (also after a list item's
/// "- "), or ("-", item) for a list item that is a plain value. Comments and
/// blank lines are left out, quotes around a value taken off. Enough for the
/// block-style YAML under deploy/kubernetes.
fn entries(yaml: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in yaml.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (item, t) = match t.strip_prefix("- ") {
            Some(rest) => (true, rest.trim()),
            None => (false, t),
        };
        let t = match t.find(" #") {
            Some(i) => t[..i].trim_end(),
            None => t,
        };
        let unquote = |s: &str| s.trim().trim_matches('"').trim_matches('\'').to_string();
        if let Some(key) = t.strip_suffix(':') {
            out.push((key.to_string(), String::new()));
        } else if let Some((key, value)) = t.split_once(": ").filter(|(k, _)| !k.contains(' ')) {
            out.push((key.to_string(), unquote(value)));
        } else if item {
            out.push(("-".to_string(), unquote(t)));
        }
    }
    out
}

fn values(e: &[(String, String)], key: &str) -> Vec<String> {
    e.iter().filter(|(k, _)| k == key).map(|(_, v)| v.clone()).collect()
}

/// The value of the one line with `key`.
fn one(e: &[(String, String)], key: &str) -> String {
    let v = values(e, key);
    assert_eq!(v.len(), 1, "one `{key}:` line: {v:?}");
    v[0].clone()
}

/// The list items that are plain values (the containers' args among them), in order.
fn items(e: &[(String, String)]) -> Vec<String> {
    values(e, "-")
}

/// The item after `flag`.
fn after(items: &[String], flag: &str) -> String {
    let i = items.iter().position(|x| x == flag).unwrap_or_else(|| panic!("no {flag}: {items:?}"));
    items[i + 1].clone()
}

#[test]
fn the_indexed_job_runs_shard_index_of_completions_and_the_merge_job_merges_them_all() {
    let job = entries(&read("deploy/kubernetes/rumbench-shards.yaml"));
    assert_eq!(one(&job, "apiVersion"), "batch/v1");
    assert_eq!(one(&job, "kind"), "Job");
    assert_eq!(one(&job, "completionMode"), "Indexed");
    let n: u32 = one(&job, "completions").parse().unwrap();
    assert!(n >= 1);
    assert_eq!(one(&job, "parallelism"), n.to_string(), "every shard at once");
    assert_eq!(one(&job, "restartPolicy"), "Never");
    assert_eq!(one(&job, "backoffLimit"), "0");

    let args = items(&job);
    assert_eq!(args.iter().filter(|a| *a == "run").count(), 1, "{args:?}");
    assert_eq!(after(&args, "--shard"), format!("$(JOB_COMPLETION_INDEX)/{n}"));
    assert_eq!(after(&args, "-d"), "/results/shard-$(JOB_COMPLETION_INDEX)");
    assert_eq!(after(&args, "--start-at"), "$(START_AT)");
    assert_eq!(after(&args, "--target"), "$(RUMBENCH_TARGET)");
    assert!(args.contains(&"--no-history".to_string()), "{args:?}");
    assert!(values(&job, "mountPath").contains(&"/results".to_string()));
    assert!(
        values(&job, "fieldPath")
            .contains(&"metadata.annotations['batch.kubernetes.io/job-completion-index']".to_string()),
        "JOB_COMPLETION_INDEX is declared from the pod's annotation"
    );
    assert!(values(&job, "secretKeyRef").len() == 1 && values(&job, "configMapKeyRef").len() == 1);
    // The kubelet leaves a $(VAR) of no declared env var as it is: every one is declared.
    let names = values(&job, "name");
    for a in args.iter().filter(|a| a.contains("$(")) {
        let mut rest = a.as_str();
        while let Some(i) = rest.find("$(") {
            let end = rest[i..].find(')').unwrap_or_else(|| panic!("unclosed $( in {a}"));
            let var = &rest[i + 2..i + end];
            assert!(names.iter().any(|n| n == var), "{a}: no env var {var} in {names:?}");
            rest = &rest[i + end..];
        }
    }

    // The merge Job merges shards 0..n-1 of the same volume.
    let merge = entries(&read("deploy/kubernetes/rumbench-merge.yaml"));
    assert_eq!(one(&merge, "kind"), "Job");
    let margs = items(&merge);
    let at = margs.iter().position(|a| a == "merge").unwrap_or_else(|| panic!("{margs:?}"));
    let shards: Vec<String> = (0..n).map(|i| format!("/results/shard-{i}")).collect();
    assert_eq!(margs[at + 1..at + 1 + n as usize], shards[..], "{margs:?}");
    assert_eq!(margs[at + 1 + n as usize], "-d");
    assert_eq!(margs[at + 2 + n as usize], "/results/merged");

    let pvc = entries(&read("deploy/kubernetes/rumbench-pvc.yaml"));
    assert_eq!(one(&pvc, "kind"), "PersistentVolumeClaim");
    assert_eq!(items(&pvc), ["ReadWriteMany"]);
    let claim = one(&pvc, "name");
    assert_eq!(one(&job, "claimName"), claim);
    assert_eq!(one(&merge, "claimName"), claim);
}

#[test]
fn the_ssh_recipe_parses() {
    let o = Command::new("bash").arg("-n").arg(repo().join("deploy/ssh/run-shards.sh")).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A stand-in for rumbench: writes its arguments, one a line, into its -d dir.
const STUB: &str = r#"#!/bin/sh
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-d" ]; then out="$a"; fi
  prev="$a"
done
mkdir -p "$out"
printf '%s\n' "$@" > "$out/args.txt"
"#;

#[test]
fn the_ssh_recipe_runs_localhost_shards_without_ssh_and_merges_them() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let stub = bin.join("rumbench");
    std::fs::write(&stub, STUB).unwrap();
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hosts = t.path().join("hosts.txt");
    std::fs::write(&hosts, "# two shards on this machine\nlocalhost\n\nlocalhost\n").unwrap();
    let out = t.path().join("out");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("bash")
        .arg(repo().join("deploy/ssh/run-shards.sh"))
        .args(["--target", "postgres://bench@127.0.0.1:5432/bench", "--lead", "0", "--seconds", "5", "-d"])
        .arg(&out)
        .arg(&hosts)
        .args(["--", "--extra", "two words"])
        .env("PATH", path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");

    let args_of = |dir: &str| -> Vec<String> {
        let text =
            std::fs::read_to_string(out.join(dir).join("args.txt")).unwrap_or_else(|e| panic!("{dir}: {e}: {stderr}"));
        text.lines().map(String::from).collect()
    };
    let mut start = Vec::new();
    for i in 0..2 {
        let a = args_of(&format!("shard-{i}"));
        assert_eq!(a[0], "run", "{a:?}");
        assert_eq!(after(&a, "--shard"), format!("{i}/2"));
        assert_eq!(after(&a, "--target"), "postgres://bench@127.0.0.1:5432/bench");
        assert_eq!(after(&a, "--seconds"), "5");
        assert_eq!(after(&a, "-d"), out.join(format!("shard-{i}")).display().to_string());
        assert_eq!(after(&a, "--extra"), "two words", "the args after -- pass through whole");
        assert!(a.contains(&"--no-history".to_string()), "{a:?}");
        start.push(after(&a, "--start-at"));
    }
    assert_eq!(start[0], start[1], "one start time for every shard");
    assert!(start[0].ends_with('Z') && start[0].contains('T'), "RFC 3339 UTC: {}", start[0]);
    let shard = |i: u32| out.join(format!("shard-{i}")).display().to_string();
    let merged = out.join("merged").display().to_string();
    assert_eq!(args_of("merged"), ["merge".to_string(), shard(0), shard(1), "-d".to_string(), merged]);
    assert!(out.join("logs/shard-0.log").is_file() && out.join("logs/shard-1.log").is_file());
}
