//! `--profile` from the real binary: a known cost (the null engine's
//! spin_ns, burnt in `rumbench::engine::null::burn`) lands in its function
//! with about its share of the step, and a comparison against the same
//! engine without it names that function first, with the right sign; a
//! missing profiler is refused before anything runs; profiles survive
//! --repeat and a re-rendered report.

use std::path::Path;

use rumbench::measure::profile::{self, Folded, StepProfile};

use crate::common::cli::{self, load, run_ok};
use crate::common::fs::{recordings_in, Tmpfs};

const BURN: &str = "rumbench!rumbench::engine::null::burn";

/// A null-engine readrandom of 200k calls, profiled at 1999 Hz (enough
/// samples in about half a second of CPU).
fn profiled_null(dir: &Path, spin_ns: u32, extra: &[&str]) {
    let spin = format!("spin_ns={spin_ns}");
    let mut args = vec![
        "-e",
        "null",
        "-o",
        &spin,
        "-s",
        "fillseq,readrandom",
        "-n",
        "200000",
        "--profile",
        "--profile-hz",
        "1999",
    ];
    args.extend_from_slice(extra);
    run_ok(&args, dir);
}

fn step_profile(dir: &Path, config: usize, step: &str) -> StepProfile {
    let v = load(dir);
    let s = v["configs"][config]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == step)
        .unwrap_or_else(|| panic!("no step {step}"));
    serde_json::from_value(s["profile"].clone())
        .unwrap_or_else(|e| panic!("{step} has no profile ({e}): {}", s["profile"]))
}

#[test]
fn a_known_cost_lands_in_its_function_and_a_comparison_names_it() {
    let spun = tempfile::tempdir().unwrap();
    profiled_null(spun.path(), 2000, &[]);
    let p = step_profile(spun.path(), 0, "readrandom");
    assert_eq!((p.hz, p.ops), (1999, 200_000));
    assert!(p.samples >= profile::MIN_SAMPLES, "{p:?}");
    let folded: Folded = profile::load(spun.path(), &p).unwrap();
    let costs = profile::function_costs(&folded, p.us_per_sample_op().unwrap());
    let burn = costs
        .iter()
        .find(|c| c.frame == BURN)
        .unwrap_or_else(|| panic!("no {BURN} in {:?}", &costs[..costs.len().min(5)]));
    // 2 µs of CPU a call, in the engine's code on the client's thread.
    assert_eq!(burn.role, profile::Role::EngineForeground);
    assert!((1.4..2.8).contains(&burn.self_us_op), "burn: {} µs/op", burn.self_us_op);
    let share = burn.self_us_op / p.cpu_us_per_op().unwrap();
    assert!(share > 0.6, "burn's share of the step: {share:.2}");
    // The report shows it.
    let html = std::fs::read_to_string(spun.path().join("report.html")).unwrap();
    assert!(
        html.contains(r#"<section id="profiles">"#)
            && html.contains("rumbench::engine::null::burn")
            && html.contains(r#"<svg class="flame""#)
    );

    // Against the same engine without the spin: burn is the top difference, and grew.
    let plain = tempfile::tempdir().unwrap();
    profiled_null(plain.path(), 0, &[]);
    let out = cli::rumbench().arg("compare").arg(plain.path()).arg(spun.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let at = text.find("where the CPU went").unwrap_or_else(|| panic!("no profile differences:\n{text}"));
    let section = &text[at..];
    assert!(section.contains("readrandom") && section.contains("not tested against the repeats' spread"), "{section}");
    let first_row = section.lines().find(|l| l.contains("engine-foreground") || l.contains("client ")).unwrap();
    assert!(first_row.contains("null::burn") && first_row.contains("+"), "the top difference: {first_row}\n{section}");

    // --html: the same as a page, with a differential flame graph where burn is red.
    let page = plain.path().join("cpu.html");
    let out =
        cli::rumbench().arg("compare").arg(plain.path()).arg(spun.path()).arg("--html").arg(&page).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let burn = html.find("null::burn: ").unwrap_or_else(|| panic!("burn is not in the differential flame graph"));
    let after = &html[burn..];
    assert!(after[..after.find("</g>").unwrap()].contains("fill=\"rgb(255,"), "burn grew: red");

    // The two runs in one report: the step's relative table says where the CPU went.
    let both = plain.path().join("both.html");
    let out = cli::rumbench().arg("report").arg(plain.path()).arg(spun.path()).arg("-o").arg(&both).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&both).unwrap();
    let step = html.find(r#"<section class="step" id="step-readrandom">"#).expect("readrandom's section");
    let section = &html[step..];
    let section = &section[..section[1..].find("<section").map(|i| i + 1).unwrap_or(section.len())];
    let at = section
        .find("Where the CPU went: ")
        .unwrap_or_else(|| panic!("no CPU changes under readrandom's relative table"));
    let first_row = &section[at..][section[at..].find("<tbody><tr>").expect("a function table")..];
    let first_row = &first_row[..first_row.find("</tr>").unwrap()];
    assert!(first_row.contains("null::burn") && first_row.contains(">+"), "the top difference: {first_row}");
    assert!(section.contains(r#"<svg class="flame""#), "a differential flame graph under the step");
}

#[test]
fn a_sweep_table_links_its_cpu_regression_to_where_the_cpu_went() {
    // One run, two configs: 1 µs and 3 µs of CPU a call, five rounds each
    // (verdicts need five repeats a side).
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        &[
            "-e",
            "null",
            "--sweep",
            "spin_ns=1000,3000",
            "-s",
            "fillseq,readrandom",
            "-n",
            "200000",
            "--profile",
            "--profile-hz",
            "1999",
            "--repeat",
            "5",
        ],
        dir.path(),
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    let at = summary
        .find("where the CPU went, null-spin_ns-1000 -> null-spin_ns-3000, readrandom")
        .unwrap_or_else(|| panic!("{summary}"));
    let first_row = summary[at..].lines().find(|l| l.contains("engine-foreground") || l.contains("client ")).unwrap();
    assert!(
        first_row.contains("null::burn") && first_row.contains(" *"),
        "burn is the top difference, beyond the repeats: {first_row}"
    );
    assert!(summary.contains("REGRESSION in readrandom cpu us/op: where the CPU went, below"), "{summary}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let anchor = "cpu-went-null-spin-ns-1000-null-spin-ns-3000-readrandom";
    assert!(
        html.contains(&format!(r##"<a href="#{anchor}">where the CPU went</a>"##))
            && html.contains(&format!(r#"<h3 id="{anchor}">"#)),
        "the REGRESSION links to its explanation"
    );
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("### Where the CPU went: null-spin_ns-3000 against null-spin_ns-1000, readrandom"), "{md}");
}

#[test]
fn profiles_of_shards_merge_into_the_whole_runs() {
    let dir = tempfile::tempdir().unwrap();
    let at = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3).to_string();
    let shards: Vec<_> = (0..2)
        .map(|i| {
            cli::rumbench()
                .args([
                    "run",
                    "--progress",
                    "off",
                    "--no-history",
                    "--shard",
                    &format!("{i}/2"),
                    "--start-at",
                    &at,
                    "--step-gap",
                    "2",
                ])
                .args([
                    "-e",
                    "null",
                    "-o",
                    "spin_ns=2000",
                    "-s",
                    "fillseq,readrandom",
                    "-n",
                    "200000",
                    "--profile",
                    "--profile-hz",
                    "1999",
                    "-d",
                ])
                .arg(dir.path().join(format!("s{i}")))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in shards.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "shard {i}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = cli::rumbench()
        .args(["merge", "-d"])
        .arg(dir.path().join("m"))
        .arg(dir.path().join("s0"))
        .arg(dir.path().join("s1"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let parts: Vec<StepProfile> =
        (0..2).map(|i| step_profile(&dir.path().join(format!("s{i}")), 0, "readrandom")).collect();
    let merged = step_profile(&dir.path().join("m"), 0, "readrandom");
    assert_eq!(merged.samples, parts.iter().map(|p| p.samples).sum::<u64>());
    assert_eq!(merged.ops, parts.iter().map(|p| p.ops).sum::<u64>());
    let folded = profile::load(&dir.path().join("m"), &merged).unwrap();
    assert_eq!(folded.samples(), merged.samples, "the merged file holds every shard's samples");
    let html = std::fs::read_to_string(dir.path().join("m/report.html")).unwrap();
    assert!(html.contains(r#"<svg class="flame""#) && html.contains("rumbench::engine::null::burn"));
}

#[test]
fn a_missing_profiler_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    for (key, value, says) in
        [("RUMBENCH_PERF", "/nonexistent/perf", "does not exist"), ("PATH", "/nonexistent", "perf is not installed")]
    {
        let out = cli::rumbench()
            .env(key, value)
            .args([
                "run",
                "--progress",
                "off",
                "--no-history",
                "-e",
                "null",
                "-s",
                "fillseq",
                "-n",
                "100",
                "--profile",
                "--output-dir",
            ])
            .arg(&out_dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says) && err.contains("linux-perf"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(!out_dir.exists(), "nothing is created before the refusal");
    }
    // --profile-hz alone is a mistake too.
    let out = cli::rumbench().args(["run", "-e", "null", "-s", "fillseq", "--profile-hz", "99"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn profiles_survive_repeats_and_a_new_report() {
    let dir = tempfile::tempdir().unwrap();
    profiled_null(dir.path(), 1000, &["--repeat", "2"]);
    let v = load(dir.path());
    let rounds: Vec<&serde_json::Value> = v["configs"].as_array().unwrap().iter().collect();
    assert_eq!(rounds.len(), 2);
    let files: Vec<String> = (0..2).map(|i| step_profile(dir.path(), i, "readrandom").file).collect();
    assert_ne!(files[0], files[1], "each round has its own profile");
    for f in &files {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
    // result.json stays small: the stacks are in their own files.
    assert!(std::fs::metadata(dir.path().join("result.json")).unwrap().len() < 400_000);
    std::fs::remove_file(dir.path().join("report.html")).unwrap();
    let out = cli::rumbench().arg("report").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert_eq!(html.matches(r#"<svg class="flame""#).count(), 4, "a flame graph per round and step");
    assert!(html.contains("null.r1 / readrandom") && html.contains("null.r2 / readrandom"));
}

#[test]
fn a_servers_process_tree_is_profiled() {
    // The postgres rumbench starts runs under the config process: its
    // postmaster and backends inherit the sampling.
    let dir = tempfile::tempdir().unwrap();
    run_ok(&["-e", "postgres", "-s", "l.i0", "--rows", "20000", "--profile", "--profile-hz", "1999"], dir.path());
    let p = step_profile(dir.path(), 0, "l.i0");
    let server = p.by_role.get(&rumbench::measure::profile::Role::Server).copied().unwrap_or(0);
    assert!(server > p.samples / 2, "the server's processes hold most of the CPU: {p:?}");
    let folded = profile::load(dir.path(), &p).unwrap();
    assert!(
        folded.stacks.iter().any(|(s, _)| s.starts_with("server;[postgres];") && s.contains("postgres!PostgresMain")),
        "no backend stacks"
    );
    // Sampled per CPU where allowed (as root): the rest of the machine is left out.
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    assert_eq!(p.scope.map(|s| s.name()), Some(if root { "per-cpu" } else { "per-thread" }));
    let foreign: Vec<&String> = folded
        .stacks
        .iter()
        .map(|(s, _)| s)
        .filter(|s| s.contains("[swapper]") || s.contains("[perf]") || s.contains("cpu_startup_entry"))
        .collect();
    assert!(
        foreign.is_empty(),
        "samples from outside the config's process tree: {:?}",
        &foreign[..foreign.len().min(3)]
    );
}

/// Every file under `dir` whose name says it is perf's raw recording.
fn perf_files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            } else if e.file_name().to_string_lossy().contains("perf.data") {
                found.push(e.path());
            }
        }
    }
    found
}

#[test]
fn the_raw_recording_never_lives_in_the_results_and_a_small_results_filesystem_holds_the_profiles() {
    // Results on 16 MB; the recording of a 4-second step at 999 Hz takes
    // about 8 MB a second of a busy CPU: it filled such a results
    // filesystem when it lived there (issue 52).
    let results = Tmpfs::new("16m");
    let place = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let out_dir = results.path().join("out");
    let mut run = cli::rumbench()
        .env("RUMBENCH_PROFILE_DIR", place.path())
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            "null",
            "-o",
            "spin_ns=2000",
            "-s",
            "fillseq,readrandom",
            "-n",
            "100000",
            "--seconds",
            "4",
        ])
        .args(["--profile", "--profile-hz", "999", "--db-dir"])
        .arg(db.path())
        .arg("--output-dir")
        .arg(&out_dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // While it runs: perf's files are in the place given, never in the run directory.
    let mut seen_recording = 0u64;
    while run.try_wait().unwrap().is_none() {
        assert_eq!(perf_files_under(&out_dir), Vec::<std::path::PathBuf>::new(), "a raw recording in the results");
        for r in recordings_in(place.path()) {
            seen_recording = seen_recording.max(
                perf_files_under(&place.path().join(r))
                    .iter()
                    .filter_map(|f| std::fs::metadata(f).ok())
                    .map(|m| m.len())
                    .max()
                    .unwrap_or(0),
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = run.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(seen_recording > 16 << 20, "the recording outgrew the results filesystem: {seen_recording} bytes");
    for step in ["fillseq", "readrandom"] {
        let p = step_profile(&out_dir, 0, step);
        assert!(p.samples >= profile::MIN_SAMPLES && out_dir.join(&p.file).is_file(), "{step}: {p:?}");
    }
    assert!(recordings_in(place.path()).is_empty(), "the recording's directory is removed at the config's end");
    // The config's notes say where the recording was.
    let notes = load(&out_dir)["configs"][0]["notes"].to_string();
    assert!(notes.contains(&place.path().display().to_string()) && notes.contains("outside the results"), "{notes}");
}

#[test]
fn a_place_without_room_for_a_steps_recording_is_refused_before_anything_runs() {
    let place = Tmpfs::new("8m");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = cli::rumbench()
        .env("RUMBENCH_PROFILE_DIR", place.path())
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            "null",
            "-s",
            "fillseq,readrandom",
            "-n",
            "1000",
            "--seconds",
            "30",
            "--profile",
            "--output-dir",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains("no filesystem has room for perf's recording") && err.contains("30 s at 99 Hz"), "{err}");
    assert!(
        err.contains(&place.path().display().to_string()) && err.contains("RUMBENCH_PROFILE_DIR"),
        "the place and the way out: {err}"
    );
    assert!(!out_dir.exists(), "nothing is created before the refusal");
}

#[test]
fn a_step_whose_recording_no_longer_fits_is_not_profiled_and_says_why() {
    // Room for each 4-second step's recording when the run starts; the
    // filesystem fills up (another user of it) once the first is profiled.
    let place = Tmpfs::new("40m");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let run = cli::rumbench()
        .env("RUMBENCH_PROFILE_DIR", place.path())
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            "null",
            "-o",
            "spin_ns=2000",
            "-s",
            "fillseq,readrandom",
            "-n",
            "100000",
            "--seconds",
            "4",
            "--profile",
        ])
        .arg("--output-dir")
        .arg(&out_dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let first_profiled = || {
        std::fs::read_to_string(out_dir.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v["configs"][0]["steps"][0]["profile"].is_object())
    };
    while !first_profiled() {
        assert!(std::time::Instant::now() < deadline, "the first step's profile was not written");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let filler = place.path().join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![7u8; 1 << 16];
        // Leave 1 MB: below what a recording's filesystem keeps free (4 MiB at least).
        while rumbench::measure::os::device::FsSpace::of(place.path()).unwrap().avail_bytes > (1 << 20) + (1 << 16)
            && f.write_all(&block).is_ok()
        {}
        f.sync_all().unwrap();
    }
    let out = run.wait_with_output().unwrap();
    std::fs::remove_file(&filler).unwrap();
    assert!(
        out.status.success(),
        "a profile that does not fit fails nothing: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = load(&out_dir);
    assert_eq!(v["status"], "completed");
    let steps = v["configs"][0]["steps"].as_array().unwrap();
    assert!(steps[0]["profile"].is_object(), "the first step keeps its profile");
    assert!(steps[1]["profile"].is_null(), "{}", steps[1]["profile"]);
    let warnings = steps[1]["warnings"].to_string();
    assert!(
        warnings.contains("not profiled: ")
            && (warnings.contains("kept free") || warnings.contains("perf record ended")),
        "the reason: {warnings}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("not profiled: "), "said as the step ended");
    assert!(recordings_in(place.path()).is_empty());
}
