//! Engines from plugins (include/rumbench_engine.h): the example plugins
//! in C (LMDB) and Rust keep the engine contract, a plugin is run, profiled
//! and recorded like a native engine, and a plugin that crashes, speaks
//! another ABI or refuses an option is handled as the issue asks.
//! The C plugins are built here (tests/plugins/faulty.c, plugins/lmdb);
//! the Rust example by scripts/test.sh (cargo build -p rumbench-plugin-example).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::cli::{self, load, run_ok};

struct Built {
    _dir: tempfile::TempDir,
    lmdb: PathBuf,
    faulty: PathBuf,
    wrong_abi: PathBuf,
    /// The faulty plugin with a library constructor, or an entry, that crashes.
    crash_loaded: PathBuf,
    crash_entry: PathBuf,
    /// The faulty plugin with the table of version 1 before its appends.
    first_table: PathBuf,
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The C plugins, built once for this module's process.
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let make = Command::new("make")
            .args(["-s", "-C", &format!("{ROOT}/plugins/lmdb")])
            .arg(format!("OUT={}", dir.path().display()))
            .status()
            .unwrap();
        assert!(make.success(), "make -C plugins/lmdb (liblmdb-dev from scripts/setup.sh)");
        let cc = |out: &str, extra: &[&str]| {
            let path = dir.path().join(out);
            let ok = Command::new("cc")
                .args([
                    "-std=c11",
                    "-O2",
                    "-g",
                    "-fPIC",
                    "-shared",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-fvisibility=hidden",
                ])
                .arg(format!("-I{ROOT}/include"))
                .args(extra)
                .arg("-o")
                .arg(&path)
                .arg(format!("{ROOT}/tests/plugins/faulty.c"))
                .status()
                .unwrap();
            assert!(ok.success(), "cc {out}");
            path
        };
        let faulty = cc("libfaulty.so", &[]);
        let wrong_abi = cc("libwrongabi.so", &["-DRB_FAULTY_WRONG_ABI"]);
        let crash_loaded = cc("libcrashloaded.so", &["-DRB_FAULTY_CRASH_IN_CONSTRUCTOR"]);
        let crash_entry = cc("libcrashentry.so", &["-DRB_FAULTY_CRASH_IN_ENTRY"]);
        let first_table = cc("libfirsttable.so", &["-DRB_FAULTY_FIRST_TABLE"]);
        Built {
            lmdb: dir.path().join("librumbench_lmdb.so"),
            faulty,
            wrong_abi,
            crash_loaded,
            crash_entry,
            first_table,
            _dir: dir,
        }
    })
}

/// The Rust example plugin, beside the rumbench binary under test.
fn rust_example() -> PathBuf {
    let bin = cli::exe();
    let lib = bin.parent().unwrap().join("librumbench_plugin_example.so");
    assert!(
        lib.is_file(),
        "{} is missing: cargo build --release -p rumbench-plugin-example (scripts/test.sh builds it)",
        lib.display()
    );
    lib
}

fn engine(lib: &Path) -> String {
    format!("plugin:{}", lib.display())
}

fn rumbench(args: &[&str]) -> std::process::Output {
    cli::rumbench().args(args).output().unwrap()
}

#[test]
fn the_example_plugins_keep_the_engine_contract() {
    for lib in [built().lmdb.clone(), rust_example()] {
        let out = rumbench(&["conform", "-e", &engine(&lib)]);
        let text = cli::text(&out);
        assert!(out.status.success(), "{}: {text}", lib.display());
        assert!(text.contains(" 0 broken") && text.contains("ok      reopened_keeps_what_was_written"), "{text}");
        assert!(text.contains("ok      unknown_options_are_refused"), "{text}");
    }
    // The Rust example has transactions of its own kind (optimistic): kept, not skipped.
    let text = cli::text(&rumbench(&["conform", "-e", &engine(&rust_example())]));
    assert!(text.contains("ok      transactions_commit_and_roll_back"), "{text}");
}

/// conform reports every rule broken, with what broke, and exits 1: the
/// faulty plugin keeps no data across a reopen and has no reverse scans.
#[test]
fn conform_names_each_rule_a_plugin_breaks() {
    let out = rumbench(&["conform", "-e", &engine(&built().faulty)]);
    let text = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("BROKEN  reopened_keeps_what_was_written: entries after closing and opening again"),
        "{text}"
    );
    assert!(text.contains("skipped scans_reverse: no reverse scans"), "{text}");
    assert!(text.contains("ok      put_get_delete"), "{text}");
}

/// conform runs each rule in a process of its own: a plugin that crashes,
/// aborts or hangs breaks the rule it did it in (named with the signal and
/// the call), the other rules get their verdicts, and nothing is left in
/// the directory the rules ran in. Interrupted, it stops at once, cleans up
/// and exits 130.
#[test]
fn conform_gives_a_verdict_on_a_plugin_that_crashes_aborts_or_hangs() {
    let lib = engine(&built().faulty);
    for (option, says) in [
        ("segfault_at_put=1", "the engine crashed the process (SIGSEGV): the plugin crashed in put (signal 11)"),
        ("abort_at_put=1", "the engine crashed the process (SIGABRT): the plugin crashed in put (signal 6)"),
        ("hang_at_get=1", "it did not end within 3 s, in a call to get"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let out = rumbench(&["conform", "-e", &lib, "-o", option, "--dir", d, "--rule-seconds", "3"]);
        let text = cli::text(&out);
        assert_eq!(out.status.code(), Some(1), "{option}: {text}");
        assert!(text.contains(&format!("BROKEN  put_get_delete: {says}")), "{option}: {text}");
        // Every rule has its verdict, the ones after the crash too.
        assert!(text.contains("skipped scans_reverse: no reverse scans"), "{option}: {text}");
        assert!(text.contains("rules kept"), "{option}: {text}");
        assert!(!text.contains("unwrap()"), "no Rust panic text: {text}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{option}: the rules' databases removed");
    }
    // Ctrl-C while a rule hangs: exit 130 within seconds, nothing left.
    let dir = tempfile::tempdir().unwrap();
    let mut child = cli::rumbench()
        .args(["conform", "-e", &lib, "-o", "hang_at_get=1", "--rule-seconds", "60", "--dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed().as_secs() < 10, "conform still running 10 s after SIGINT");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "interrupted: the rules' databases removed");
}

/// The crash test names the plugin call a writer crashed in (not only that
/// the writer stopped).
#[test]
fn the_crash_test_names_the_plugin_call_that_crashed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = cli::rumbench()
        .args(["crashtest", "-e", &engine(&built().faulty), "-o", "segfault_at_put=20", "--crashes", "1"])
        .args(["--kill-after", "3000,3000", "-d"])
        .arg(&out)
        .output()
        .unwrap();
    let text = cli::text(&o);
    assert_ne!(o.status.code(), Some(0), "{text}");
    let result = std::fs::read_to_string(out.join("result.json")).unwrap_or_default();
    assert!(
        text.contains("the plugin crashed in put (signal 11)")
            || result.contains("the plugin crashed in put (signal 11)"),
        "{text}\n{result}"
    );
}

/// A plugin that segfaults in its 1000th put ends its config with the call
/// it crashed in; the next config runs, and the run exits non-zero.
#[test]
fn a_plugin_that_crashes_ends_its_config_and_the_next_one_runs() {
    let dir = tempfile::tempdir().unwrap();
    let e = format!("{},null", engine(&built().faulty));
    let out = cli::run_into(
        cli::rumbench().args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            &e,
            "-o",
            "plugin.segfault_at_put=1000",
            "-s",
            "fillseq,readrandom",
            "-n",
            "5000",
        ]),
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", cli::text(&out));
    let v = load(dir.path());
    let (crashed, next) = (&v["configs"][0], &v["configs"][1]);
    assert_eq!(crashed["status"], "failed");
    let error = crashed["error"].as_str().unwrap();
    assert!(error.starts_with("the plugin crashed in put (signal 11)"), "{error}");
    assert!(error.contains("killed by signal 11 (SIGSEGV)"), "{error}");
    // The step it crashed in, with the operations it completed: exactly the
    // 999 puts before the 1000th, counted when it crashed (not a checkpoint's
    // count up to 100 ms, or a thousand calls, behind).
    let fill = &crashed["steps"][0];
    assert_eq!((fill["name"].as_str(), fill["ops"].as_u64()), (Some("fillseq"), Some(999)), "{fill}");
    assert!(fill["notes"].to_string().contains("completed when it crashed"), "{}", fill["notes"]);
    assert!(!dir.path().join(".crash-count").exists(), "the count's file is rumbench's to remove");
    assert_eq!(next["name"], "null");
    assert_eq!(next["status"], "completed");
    assert_eq!(next["steps"].as_array().unwrap().len(), 2);

    // An abort is named as well.
    let dir = tempfile::tempdir().unwrap();
    let e = engine(&built().faulty);
    let out = cli::run_into(
        cli::rumbench().args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            &e,
            "-o",
            "abort_at_put=10",
            "-s",
            "fillseq",
            "-n",
            "100",
        ]),
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let error = load(dir.path())["configs"][0]["error"].as_str().unwrap().to_string();
    assert!(error.starts_with("the plugin crashed in put (signal 6)") && error.contains("SIGABRT"), "{error}");
}

/// A plugin built for another ABI version, an option it refuses, and a
/// step that needs a capability it lacks: each refused with exit 2 before
/// anything runs (no output directory), in one line.
#[test]
fn what_a_plugin_cannot_do_is_refused_before_anything_runs() {
    let b = built();
    let cases: [(Vec<String>, &str); 4] = [
        (
            vec!["-e".into(), engine(&b.wrong_abi)],
            "is built for rumbench engine ABI version 99, and this rumbench speaks version 1",
        ),
        (
            vec!["-e".into(), engine(&b.lmdb), "-o".into(), "sync_mode=sometimes".into()],
            "lmdb-c: invalid value 'sometimes' for sync_mode",
        ),
        (vec!["-e".into(), engine(&b.faulty), "-o".into(), "speed=11".into()], "faulty: unknown option 'speed'"),
        (
            vec!["-e".into(), engine(&b.faulty), "-s".into(), "fillseq,revrange".into()],
            "step revrange needs reverse scans (RB_CAP_REVERSE_SCAN), which plugin faulty does not announce",
        ),
    ];
    for (args, says) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("out");
        let mut cmd = cli::rumbench();
        cmd.args(["run", "--progress", "off", "--no-history"]).args(&args);
        let out = cli::run_into(&mut cmd, &out_dir);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!out_dir.exists(), "{args:?} created its output directory");
    }
}

/// The calls appended to ABI version 1: a plugin describes its options
/// (`rumbench engines plugin:PATH` lists them), is told each session's
/// thread, hands back multi-get values and bounded scans (the Rust example
/// does all four); one built before the appends still runs; an error of a
/// kind the header names is said as that kind.
#[test]
fn the_appended_calls_are_used_and_an_older_table_still_runs() {
    let listed = cli::text(&rumbench(&["engines", &engine(&rust_example())]));
    assert!(listed.contains("sync") && listed.contains("default false") && listed.contains("buffer_size"), "{listed}");
    let listed = cli::text(&rumbench(&["engines", &engine(&built().faulty)]));
    assert!(listed.contains("describes no options"), "{listed}");
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        &["-e", &engine(&rust_example()), "-s", "fillseq,multireadrandom,fwdrange", "-n", "2000", "-t", "2"],
        &dir.path().join("example"),
    );
    let v = load(&dir.path().join("example"));
    let steps = v["configs"][0]["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["status"] == "completed"), "{steps:?}");
    let stats = &steps.last().unwrap()["engine_stats"];
    let told: u64 = stats
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0] == "thread_sessions")
        .and_then(|p| p[1].as_str()?.parse().ok())
        .unwrap_or_else(|| panic!("{stats}"));
    // fillseq's 2 clients and each later step's: every client's session was told its thread.
    assert!(told >= 6, "{stats}");
    // A table of version 1 before the appends: loaded, its appends read as absent.
    run_ok(&["-e", &engine(&built().first_table), "-s", "fillseq,readrandom", "-n", "1000"], &dir.path().join("first"));
    // RB_NO_SPACE: the step fails saying so.
    let out = cli::run_into(
        cli::rumbench().args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            &engine(&built().faulty),
            "-o",
            "no_space_at_put=100",
            "-s",
            "fillseq",
            "-n",
            "1000",
        ]),
        &dir.path().join("full"),
    );
    assert_ne!(out.status.code(), Some(0));
    let error = load(&dir.path().join("full"))["configs"][0]["steps"][0]["error"].to_string();
    assert!(error.contains("put failed") && error.contains("out of space: faulty: no room for put 100"), "{error}");
}

/// A plugin that crashes while the run is planned (its library's
/// constructor, its entry, its check of the options) is loaded by a probe
/// process: the run is refused in one line naming where it crashed and how,
/// with exit 2 and nothing written, instead of rumbench dying of it.
#[test]
fn a_plugin_that_crashes_while_the_run_is_planned_is_named() {
    let b = built();
    let cases: [(Vec<String>, &str); 3] = [
        (vec!["-e".into(), engine(&b.crash_loaded)], "in loading its library (its constructors) (SIGSEGV)"),
        (vec!["-e".into(), engine(&b.crash_entry)], "in its entry, rumbench_engine_api (SIGSEGV)"),
        (vec!["-e".into(), engine(&b.faulty), "-o".into(), "crash_in_check=1".into()], "in check_options (SIGSEGV)"),
    ];
    for (args, says) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("out");
        let mut cmd = cli::rumbench();
        cmd.args(["run", "--progress", "off", "--no-history", "-s", "fillseq"]).args(&args);
        let out = cli::run_into(&mut cmd, &out_dir);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("crashed while rumbench planned the run") && err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!out_dir.exists(), "{args:?} created its output directory");
    }
}

/// A suite's `engine = "plugin"` with `library =`: the result records the
/// plugin's file and sha256, its version and build, its options as in
/// effect, and its write debt; a profile names the plugin's own functions.
#[test]
fn a_plugin_is_recorded_and_profiled_like_a_native_engine() {
    let b = built();
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        format!(
            "[[config]]\nname = \"lmdb-plugin\"\nengine = \"plugin\"\nlibrary = \"{}\"\noptions = {{ sync_mode = \"nometasync\" }}\n",
            b.lmdb.display()
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    run_ok(
        &[
            "-c",
            suite.to_str().unwrap(),
            "-s",
            "fillseq,readrandom",
            "-n",
            "200000",
            "--profile",
            "--profile-hz",
            "1999",
        ],
        &out_dir,
    );
    let v = load(&out_dir);
    let c = &v["configs"][0];
    assert_eq!(c["name"], "lmdb-plugin");
    let provenance: std::collections::BTreeMap<String, String> = c["provenance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect();
    let sha = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(std::fs::read(&b.lmdb).unwrap()))
    };
    assert_eq!(provenance["plugin.sha256"], sha);
    assert_eq!(provenance["plugin.name"], "lmdb-c");
    assert_eq!(provenance["plugin.abi_version"], "1");
    assert!(provenance["build"].contains("LMDB"), "{provenance:?}");
    assert!(!provenance["version"].is_empty());
    let effective = c["effective_options"].to_string();
    assert!(
        effective.contains("\"sync_mode\",\"nometasync\"") && effective.contains("\"max_readers\",\"126\""),
        "{effective}"
    );
    let fill = &c["steps"][0];
    assert_eq!(
        fill["write_debt"]["owed_at_end"],
        serde_json::json!([["unwritten_bytes", 0]]),
        "{}",
        fill["write_debt"]
    );
    assert!(
        fill["notes"].to_string().contains("plugin lmdb-c says its acknowledged writes are not synced"),
        "{}",
        fill["notes"]
    );
    // Its statistics each second, as a native engine's internals: the
    // running totals as rates, the debt as it is.
    let names: Vec<&str> = fill["internals"]["names"]
        .as_array()
        .unwrap_or_else(|| panic!("{fill}"))
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(names.contains(&"debt.unwritten_bytes"), "{names:?}");
    assert!(names.iter().filter(|n| !n.starts_with("debt.")).all(|n| n.ends_with("_per_s")), "{names:?}");
    // The profile: the plugin's functions by name (its library was built with -g).
    let read = &c["steps"][1];
    let profile: rumbench::measure::profile::StepProfile = serde_json::from_value(read["profile"].clone()).unwrap();
    let folded: String = rumbench::measure::profile::load(&out_dir, &profile)
        .unwrap()
        .stacks
        .iter()
        .map(|(stack, n)| format!("{stack} {n}\n"))
        .collect();
    assert!(folded.contains("librumbench_lmdb!lm_get"), "{}", &folded[..folded.len().min(2000)]);
}

/// The crash test gives a plugin its durability verdict, and a sweep over
/// the plugin's own option names its configs: the Rust example with
/// sync=true keeps every acknowledged commit (under journaled semantics a
/// later fsync makes its log's name durable), without it a kill loses what
/// its log buffer held.
#[test]
fn the_crash_test_gives_a_plugin_its_durability_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let lib = engine(&rust_example());
    let o = cli::rumbench()
        .args(["crashtest", "-e", &lib, "--sweep", "sync=true,false", "--crashes", "3", "--fs-semantics", "journaled"])
        .args(["--kill-after", "100,400", "--seed", "7", "-d"])
        .arg(&out)
        .output()
        .unwrap();
    let text = cli::text(&o);
    assert!(o.status.success(), "{text}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
    let configs = r["crashtest"]["configs"].as_array().unwrap();
    let config =
        |name: &str| configs.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no config {name}: {text}"));
    let synced = config("plugin-rust-example-sync-true");
    assert_eq!(synced["totals"]["lost"], 0, "{synced}");
    assert!(synced["totals"]["acknowledged"].as_u64().unwrap() > 0, "{synced}");
    assert!(synced["totals"]["verdict"].as_str().unwrap().starts_with("durable as run: 0 of "), "{synced}");
    let unsynced = config("plugin-rust-example-sync-false");
    assert!(unsynced["totals"]["lost"].as_u64().unwrap() > 0, "{unsynced}");
    assert!(unsynced["totals"]["verdict"].as_str().unwrap().starts_with("not durable: lost "), "{unsynced}");
}

/// A suite of the faulty plugin whose 1000th get never returns, then the
/// null engine: a fill, and a read step of `seconds`.
fn hanging_suite(dir: &Path, seconds: u32) -> PathBuf {
    let suite = dir.join("hang.toml");
    std::fs::write(
        &suite,
        format!(
            "[settings]\nnum = 5000\n[[config]]\nname = \"faulty\"\nengine = \"plugin:{}\"\noptions = {{ hang_at_get = 1000 }}\n\
             [[config]]\nname = \"null\"\nengine = \"null\"\n[[step]]\nname = \"fillseq\"\n[[step]]\nname = \"readrandom\"\nseconds = {seconds}\n",
            built().faulty.display()
        ),
    )
    .unwrap();
    suite
}

/// A live config process of a run whose task is in `out` (the test's own run).
fn config_processes_of(out: &Path) -> Vec<u32> {
    let task = out.join(".rumbench-task.json").display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            String::from_utf8_lossy(&cmd).replace('\0', " ").contains(&task)
                && !state.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z'))
        })
        .collect()
}

/// Start the hanging suite with a read step of 120 s into `out`, and wait
/// until its fill is done and its reads have hung (the checkpoint names the call).
fn start_hung_run(dir: &Path, out: &Path) -> std::process::Child {
    let run = cli::rumbench()
        .args(["run", "--progress", "off", "--no-history", "-c"])
        .arg(hanging_suite(dir, 120))
        .arg("--output-dir")
        .arg(out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::read_to_string(out.join(".running-step.json")).is_ok_and(|t| t.contains("\"in_call\"")) {
        assert!(std::time::Instant::now() < deadline, "the step never hung");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    run
}

/// A plugin call that never returns: the step ends at its time limit plus
/// the grace (the config process ended, the step failed with what it
/// completed and the call it hung in), and the next config runs.
#[test]
fn a_call_that_never_returns_ends_its_step_at_its_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let began = std::time::Instant::now();
    let o = cli::rumbench()
        .args(["run", "--progress", "off", "--no-history", "-c"])
        .arg(hanging_suite(dir.path(), 2))
        .arg("--output-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(began.elapsed() < std::time::Duration::from_secs(40), "{:?}", began.elapsed());
    assert_eq!(o.status.code(), Some(1), "{}", cli::text(&o));
    let v = load(&out);
    let faulty = &v["configs"][0];
    assert_eq!(faulty["status"], "failed");
    let step = &faulty["steps"][1];
    assert_eq!((step["name"].as_str(), step["status"].as_str()), (Some("readrandom"), Some("failed")));
    let error = step["error"].as_str().unwrap();
    assert!(error.contains("did not end within its time limit (2 s)") && error.contains("a call to get"), "{error}");
    assert_eq!(v["configs"][1]["status"], "completed", "the next config ran");
    assert!(config_processes_of(&out).is_empty());
}

/// One SIGTERM ends a run whose step is stuck in a plugin call, within the
/// stop's grace; the stuck step is kept, interrupted.
#[test]
fn one_sigterm_ends_a_run_stuck_in_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut run = start_hung_run(dir.path(), &out);
    let stopped = std::time::Instant::now();
    // SAFETY: a signal to the run this test started.
    unsafe { libc::kill(run.id() as i32, libc::SIGTERM) };
    let status = run.wait().unwrap();
    assert!(stopped.elapsed() < std::time::Duration::from_secs(12), "{:?}", stopped.elapsed());
    assert_eq!(status.code(), Some(128 + libc::SIGTERM));
    let v = load(&out);
    assert_eq!(v["status"], "interrupted");
    let step = &v["configs"][0]["steps"][1];
    assert_eq!(step["status"], "interrupted");
    assert!(step["error"].as_str().unwrap().contains("did not stop within 5 s of the SIGTERM"), "{step}");
    assert_eq!(v["configs"][1]["status"], "not_run");
    assert!(config_processes_of(&out).is_empty());
}

/// Its main process SIGKILLed, a config process stuck in a plugin call
/// ends within seconds, and leaves what it measured recorded.
#[test]
fn a_config_process_stuck_in_a_call_dies_with_its_killed_parent() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut run = start_hung_run(dir.path(), &out);
    assert!(!config_processes_of(&out).is_empty());
    run.kill().unwrap();
    run.wait().unwrap();
    let killed = std::time::Instant::now();
    while !config_processes_of(&out).is_empty() {
        assert!(killed.elapsed() < std::time::Duration::from_secs(5), "a config process outlived its run by 5 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let v = load(&out);
    assert_eq!(v["status"], "interrupted", "{}", v["error"]);
    assert_eq!(v["configs"][0]["steps"][0]["status"], "completed");
    assert_eq!(v["configs"][0]["steps"][1]["status"], "interrupted");
    assert_eq!(v["configs"][1]["status"], "not_run");
}
