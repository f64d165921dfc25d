//! rumbench never destroys what it did not create, stops everything it
//! started on every signal, and refuses bad input before anything starts.
//!
//! Each test asserts the message, the exit code, what is left on disk, and
//! that no process of the run is alive afterwards: processes are found by the
//! run's paths in /proc/*/cmdline (the config process names its task file in
//! the output dir; servers name their data dir).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::cli;
use crate::common::fs::recordings_in;
use crate::common::procs::{assert_nothing_left_running, processes_mentioning};

/// `rumbench run ARGS --db-dir DB --output-dir OUT`.
fn rumbench_in(args: &[&str], db_root: &Path, out_dir: &Path) -> Command {
    let mut c = cli::rumbench_run();
    c.args(args).arg("--db-dir").arg(db_root).arg("--output-dir").arg(out_dir);
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// A run refused before anything started: exit 2, one line on stderr that
/// contains `expected`, nothing written to `out_dir`.
fn assert_refused(out: &Output, expected: &str, out_dir: &Path) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    let text = stderr(out);
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    assert!(text.starts_with("rumbench: error: ") && text.contains(expected), "{text}");
    assert!(!out_dir.exists(), "nothing may be written for a refused run: {}", out_dir.display());
}

#[test]
fn a_directory_rumbench_did_not_create_is_never_removed() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("mydata");
    std::fs::create_dir_all(data.join("lmdb")).unwrap();
    std::fs::write(data.join("lmdb/important.txt"), "precious").unwrap();
    let out_dir = t.path().join("out");
    let out = cli::rumbench_run()
        .args(["-e", "lmdb", "-s", "fillseq", "-n", "1000", "--db-dir"])
        .arg(&data)
        .arg("--output-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_refused(
        &out,
        &format!("data dir {} is not empty and was not created by rumbench", data.join("lmdb").display()),
        &out_dir,
    );
    assert_eq!(std::fs::read_to_string(data.join("lmdb/important.txt")).unwrap(), "precious");
    assert_nothing_left_running(&out_dir, 5);

    // A data dir rumbench made itself (kept with --keep-db) may be reused and
    // is removed at the end; the user's --db-dir around it stays.
    let kept = cli::rumbench_run()
        .args(["-e", "lmdb", "-s", "fillseq", "-n", "1000", "--keep-db", "--db-dir"])
        .arg(t.path().join("db2"))
        .arg("--output-dir")
        .arg(t.path().join("k1"))
        .output()
        .unwrap();
    assert!(kept.status.success(), "{}", stderr(&kept));
    assert!(t.path().join("db2/lmdb/data.mdb").exists());
    let again = cli::rumbench_run()
        .args(["-e", "lmdb", "-s", "fillseq", "-n", "1000", "--db-dir"])
        .arg(t.path().join("db2"))
        .arg("--output-dir")
        .arg(t.path().join("k2"))
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!t.path().join("db2/lmdb").exists(), "rumbench's own data dir is removed after the run");
}

#[test]
fn config_names_cannot_leave_the_data_directory() {
    let t = tempfile::tempdir().unwrap();
    let victim = t.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep.txt"), "mine").unwrap();
    let suite = t.path().join("evil.toml");
    std::fs::write(&suite, "[[config]]\nname = \"../../victim\"\nengine = \"null\"\n").unwrap();
    let out_dir = t.path().join("a/b/out");
    let out = cli::rumbench_run().arg("--config").arg(&suite).arg("--output-dir").arg(&out_dir).output().unwrap();
    assert_refused(&out, "invalid config name \"../../victim\": use letters, digits, '.', '_' and '-' only", &out_dir);
    assert_eq!(std::fs::read_to_string(victim.join("keep.txt")).unwrap(), "mine");
}

#[test]
fn an_existing_output_dir_is_refused_unless_replaced() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("run");
    let first = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let started = load(&out_dir)["started_at"].clone();

    let second = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("already holds a run: choose another --output-dir, or pass --replace-output"),
        "{}",
        stderr(&second)
    );
    assert_eq!(load(&out_dir)["started_at"], started, "the earlier run is untouched");

    std::thread::sleep(Duration::from_millis(1100));
    let third = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--replace-output", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(third.status.success(), "{}", stderr(&third));
    assert_ne!(load(&out_dir)["started_at"], started, "replaced");

    // --replace-output never replaces a directory rumbench did not make.
    let mine = t.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("thesis.tex"), "x").unwrap();
    let out = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--replace-output", "--output-dir"])
        .arg(&mine)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains(&format!("output directory {} is not empty and was not created by rumbench", mine.display())),
        "{}",
        stderr(&out)
    );
    assert!(mine.join("thesis.tex").exists());
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1, "nothing written into it");
}

/// Start a run that holds `db_root/<engine>` for a few seconds, and wait until it does.
fn start_holding_run(engine: &str, db_root: &Path, out_dir: &Path) -> Child {
    let child = cli::rumbench_run()
        .args(["-e", engine, "-s", "fillrandom", "-n", "50000", "--seconds", "4", "--keep-db", "--db-dir"])
        .arg(db_root)
        .arg("--output-dir")
        .arg(out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !db_root.join(engine).join(".rumbench-owned").exists() {
        assert!(Instant::now() < deadline, "{engine}: the first run did not open its database");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    child
}

#[test]
fn a_database_another_run_holds_is_refused_on_every_engine() {
    for engine in ["rocksdb", "lmdb", "sqlite"] {
        let t = tempfile::tempdir().unwrap();
        let db_root = t.path().join("shared");
        let first = start_holding_run(engine, &db_root, &t.path().join("first"));
        for extra in [&[][..], &["--use-existing-db"][..]] {
            let out_dir = t.path().join(format!("second{}", extra.len()));
            let out = cli::rumbench_run()
                .args(["-e", engine, "-s", "fillseq", "-n", "1000"])
                .args(extra)
                .arg("--db-dir")
                .arg(&db_root)
                .arg("--output-dir")
                .arg(&out_dir)
                .output()
                .unwrap();
            assert_refused(
                &out,
                &format!("data dir {} is in use by another rumbench run", db_root.join(engine).display()),
                &out_dir,
            );
        }
        let done = first.wait_with_output().unwrap();
        assert!(done.status.success(), "{engine}: the first run must not notice the second: {}", stderr(&done));
        assert_eq!(load(&t.path().join("first"))["status"], "completed");
        // Free again: an existing database is opened, read, and kept.
        let out = cli::rumbench_run()
            .args(["-e", engine, "-s", "readrandom", "-n", "50000", "--ops", "1000", "--use-existing-db", "--db-dir"])
            .arg(&db_root)
            .arg("--output-dir")
            .arg(t.path().join("third"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        assert!(
            db_root.join(engine).join(".rumbench-owned").exists(),
            "{engine}: --use-existing-db keeps the database"
        );
        assert_nothing_left_running(t.path(), 5);
    }
}

/// A run whose output or data dir is inside another run's live directory
/// (its data dir, or its output dir) is refused: that run would remove it
/// when it ends, with this run's files in it.
#[test]
fn a_run_inside_another_runs_live_directory_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let db_root = t.path().join("shared");
    let first_out = t.path().join("first");
    let first = start_holding_run("lmdb", &db_root, &first_out);
    let live = db_root.join("lmdb");
    for (flag, inside, live) in [
        ("--output-dir", live.join("b"), &live),
        ("--db-dir", live.join("b-db"), &live),
        ("--output-dir", first_out.join("b"), &first_out),
    ] {
        let out_dir = if flag == "--output-dir" { inside.clone() } else { t.path().join("second") };
        let mut cmd = cli::rumbench_run();
        cmd.args(["-e", "null", "-s", "fillseq", "-n", "100"]);
        if flag == "--db-dir" {
            cmd.arg("--db-dir").arg(&inside);
        }
        let out = cmd.arg("--output-dir").arg(&out_dir).output().unwrap();
        assert_refused(&out, &format!("is inside {}, which another rumbench run is using", live.display()), &out_dir);
    }
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success(), "the first run must not notice the others: {}", stderr(&done));
    assert_nothing_left_running(t.path(), 5);
}

#[test]
fn everything_knowable_is_checked_before_anything_starts() {
    let t = tempfile::tempdir().unwrap();
    let suite = t.path().join("typo.toml");
    std::fs::write(&suite, "[[config]]\nengine = \"null\"\n[[step]]\nname = \"fillseq\"\nthreadz = 2\n").unwrap();
    let empty = t.path().join("empty");
    std::fs::create_dir_all(empty.join("lmdb")).unwrap();
    let suite_s = suite.to_string_lossy().to_string();
    let missing = t.path().join("nothere").to_string_lossy().to_string();
    let empty_s = empty.to_string_lossy().to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["--config", &suite_s], "[[step]] fillseq: unknown field `threadz`".into()),
        (
            vec!["-e", "lmdb", "-s", "readrandom", "--use-existing-db", "--db-dir", &missing],
            format!("--use-existing-db: {missing}/lmdb does not exist"),
        ),
        (
            vec!["-e", "lmdb", "-s", "readrandom", "--use-existing-db", "--db-dir", &empty_s],
            format!("--use-existing-db: {empty_s}/lmdb is empty"),
        ),
        (
            vec!["-e", "lmdb", "-s", "readrandom,fillseq"],
            "step readrandom reads existing keys, but no fill step runs before it".into(),
        ),
        (
            vec!["-e", "rocksdb", "-o", "wal=false", "-o", "sync=true"],
            "sync=true syncs the write-ahead log, but wal=false turns it off".into(),
        ),
        (vec!["-e", "null", "--num", "0"], "--num must be at least 1".into()),
        (vec!["-e", "postgres", "-s", "l.x,l.i0"], "step l.x needs the tables loaded: run l.i0 before it".into()),
        (
            vec!["-e", "rocksdb", "-s", "l.i0,qr100"],
            "step qr100 queries the secondary indexes: run l.x before it".into(),
        ),
        (
            vec!["-e", "rocksdb", "-s", "l.i0", "--use-existing-db", "--db-dir", &empty_s],
            "--use-existing-db is not supported with its steps".into(),
        ),
    ];
    for (args, expected) in cases {
        let out_dir = t.path().join("out");
        let out = cli::rumbench_run().args(&args).arg("--output-dir").arg(&out_dir).output().unwrap();
        assert_refused(&out, &expected, &out_dir);
    }
    assert!(empty.join("lmdb").is_dir(), "an empty dir the user made stays");
    // The null engine pretends every key exists: a read step alone is fine there.
    let out = cli::rumbench_run()
        .args(["-e", "null", "-s", "readrandom", "-n", "1000"])
        .arg("--output-dir")
        .arg(t.path().join("null"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // compare with an empty group is a usage error, not a panic.
    let out = cli::rumbench().args(["compare", ",", t.path().to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("compare: \",\" names no run"), "{}", stderr(&out));
}

/// The config process of the run in `out_dir`, once it runs.
fn config_process(out_dir: &Path) -> i32 {
    let task = out_dir.join(".rumbench-task.json");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some((pid, _)) = processes_mentioning(&task).into_iter().find(|(_, c)| c.contains("internal-run-config"))
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "no config process");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Wait until the run in `out_dir` has measured `steps` steps.
fn wait_for_steps(out_dir: &Path, steps: usize, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let n = std::fs::read_to_string(out_dir.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map(|v| v["configs"][0]["steps"].as_array().map_or(0, |s| s.len()))
            .unwrap_or(0);
        if n >= steps {
            return;
        }
        assert!(Instant::now() < deadline, "{steps} steps not measured in time");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Send `sig` to the parent while the second step of the first config runs,
/// and check what every signal must leave behind.
fn signal_the_parent(sig: i32, args: &[&str], suite: Option<&str>, steps_before: usize, data_dir_name: &str) {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let db_root = t.path().join("db");
    let mut cmd = cli::rumbench_run();
    if let Some(text) = suite {
        std::fs::write(t.path().join("suite.toml"), text).unwrap();
        cmd.arg("--config").arg(t.path().join("suite.toml"));
    }
    let mut parent = cmd
        .args(args)
        .arg("--db-dir")
        .arg(&db_root)
        .arg("--output-dir")
        .arg(&out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_steps(&out_dir, steps_before, 120);
    config_process(&out_dir);
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: a signal to the process we started.
    unsafe { libc::kill(parent.id() as i32, sig) };
    let status = parent.wait().unwrap();
    let name = format!("signal {sig}");
    if sig == libc::SIGKILL {
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGKILL));
    } else {
        assert_eq!(status.code(), Some(128 + sig), "{name}: exit 128 + signal");
        assert!(out_dir.join("report.html").exists(), "{name}: the report is written");
    }
    // The config process winds down (SIGKILL: it is told by PR_SET_PDEATHSIG)
    // and stops its server: nothing of the run may be left.
    assert_nothing_left_running(t.path(), 60);
    let v = load(&out_dir);
    assert_eq!(v["status"], "interrupted", "{name}: {}", v["error"]);
    let steps = v["configs"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), steps_before + 1, "{name}");
    assert!(steps[..steps_before].iter().all(|s| s["status"] == "completed"), "{name}: steps done are kept");
    assert_eq!(steps[steps_before]["status"], "interrupted", "{name}: the running step is marked");
    let configs = v["configs"].as_array().unwrap();
    if configs.len() > 1 {
        assert_eq!(configs[1]["status"], "not_run", "{name}: later configs are recorded as not run");
    }
    assert!(!db_root.join(data_dir_name).exists(), "{name}: the data dir is removed");
    assert!(!out_dir.join(".rumbench-task.json").exists(), "{name}");
}

#[test]
fn sigterm_sighup_and_sigkill_of_the_parent_during_a_rocksdb_step() {
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGKILL] {
        let suite = "[settings]\nnum = 20000\n[[config]]\nengine = \"rocksdb\"\n[[config]]\nengine = \"lmdb\"\n\
                     [[step]]\nname = \"fillseq\"\n[[step]]\nname = \"readrandom\"\nseconds = 30\n";
        signal_the_parent(sig, &[], Some(suite), 1, "rocksdb");
    }
}

#[test]
fn sigterm_sighup_and_sigkill_of_the_parent_during_a_postgres_step() {
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGKILL] {
        signal_the_parent(
            sig,
            &["-e", "postgres", "-s", "l.i0,qp100", "--rows", "3000", "--query-seconds", "60"],
            None,
            1,
            "postgres",
        );
    }
}

/// Runs `cmd` into `out_dir`, SIGKILLs its config process once the first
/// step is on disk, and returns how the parent ended.
fn kill_the_config_process_after_its_first_step(cmd: &mut Command, out_dir: &Path) -> Output {
    let parent = cmd.arg("--output-dir").arg(out_dir).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    wait_for_steps(out_dir, 1, 60);
    let child = config_process(out_dir);
    // SAFETY: the config process of our run.
    unsafe { libc::kill(child, libc::SIGKILL) };
    parent.wait_with_output().unwrap()
}

#[test]
fn a_crashed_config_process_is_cleaned_up_and_the_next_config_still_runs() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let db_root = t.path().join("db");
    let out = kill_the_config_process_after_its_first_step(
        cli::rumbench_run()
            .args(["-e", "rocksdb,lmdb", "-s", "fillseq,readrandom", "-n", "20000", "--seconds", "2", "--db-dir"])
            .arg(&db_root),
        &out_dir,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("the rocksdb process killed by signal 9 (SIGKILL"), "{}", stderr(&out));
    let v = load(&out_dir);
    assert_eq!(v["status"], "failed");
    assert_eq!(v["configs"][0]["status"], "failed");
    assert_eq!(v["configs"][0]["steps"][0]["status"], "completed", "measured before the crash: kept");
    assert_eq!(v["configs"][1]["name"], "lmdb");
    assert_eq!(v["configs"][1]["status"], "completed", "the config after a failed one still runs");
    assert!(!db_root.join("rocksdb").exists(), "a crashed config's data dir is removed as on a normal end");
    assert!(!db_root.exists());
    assert_nothing_left_running(t.path(), 5);
}

/// Wait until the first step of the run in `out_dir` has its profile in result.json.
fn wait_for_first_profile(out_dir: &Path, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = std::fs::read_to_string(out_dir.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if v.is_some_and(|v| v["configs"][0]["steps"][0]["profile"].is_object()) {
            return;
        }
        assert!(Instant::now() < deadline, "the first step's profile was not written in time");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_crashed_profiled_config_keeps_its_finished_steps_profiles_and_leaves_no_recording() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let place = t.path().join("recordings");
    std::fs::create_dir(&place).unwrap();
    let parent = cli::rumbench_run()
        .env("RUMBENCH_PROFILE_DIR", &place)
        .args([
            "-e",
            "rocksdb",
            "-s",
            "fillseq,readrandom",
            "-n",
            "20000",
            "--seconds",
            "3",
            "--profile",
            "--output-dir",
        ])
        .arg(&out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_first_profile(&out_dir, 60);
    assert_eq!(recordings_in(&place).len(), 1, "perf records into the place given");
    // SAFETY: the config process of our run.
    unsafe { libc::kill(config_process(&out_dir), libc::SIGKILL) };
    let out = parent.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = load(&out_dir);
    let step = &v["configs"][0]["steps"][0];
    let file = step["profile"]["file"]
        .as_str()
        .unwrap_or_else(|| panic!("the step done before the crash keeps its profile: {step}"));
    assert!(out_dir.join(file).is_file());
    let notes = v["configs"][0]["notes"].to_string();
    assert!(notes.contains("not profiled: the step the config process was running when it ended"), "{notes}");
    assert!(recordings_in(&place).is_empty(), "the main process removes the crashed config's recording");
    assert_nothing_left_running(t.path(), 5);
}

#[test]
fn killing_every_process_keeps_the_finished_steps_profile_and_the_next_run_removes_the_recording() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let place = t.path().join("recordings");
    std::fs::create_dir(&place).unwrap();
    let mut parent = cli::rumbench_run()
        .env("RUMBENCH_PROFILE_DIR", &place)
        .args([
            "-e",
            "null",
            "-o",
            "spin_ns=2000",
            "-s",
            "fillseq,readrandom",
            "-n",
            "100000",
            "--seconds",
            "30",
            "--profile",
            "--db-dir",
        ])
        .arg(t.path().join("db"))
        .arg("--output-dir")
        .arg(&out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let v = std::fs::read_to_string(out_dir.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if v.is_some_and(|v| v["configs"][0]["steps"][0]["profile"].is_object()) {
            break;
        }
        assert!(Instant::now() < deadline, "the first step's profile was not written in time");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Every process of the run at once: the main one, the config process, perf.
    let mut pids = vec![parent.id() as i32, config_process(&out_dir)];
    pids.extend(processes_mentioning(&place).into_iter().map(|(p, _)| p));
    assert!(pids.len() >= 3, "perf runs, its files in the place given: {pids:?}");
    for p in &pids {
        // SAFETY: processes of our run.
        unsafe { libc::kill(*p, libc::SIGKILL) };
    }
    let _ = parent.wait();
    assert_nothing_left_running(t.path(), 10);
    let v = load(&out_dir);
    let file = v["configs"][0]["steps"][0]["profile"]["file"].as_str().expect("the first step's profile").to_string();
    assert!(out_dir.join(&file).is_file(), "{file}");
    let left = recordings_in(&place);
    assert_eq!(left.len(), 1, "nobody was left to remove the recording");
    assert!(
        std::fs::read_dir(place.join(&left[0]))
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("perf.data")),
        "{left:?}"
    );
    // The next run (profiled or not) finds it, its processes dead, and removes it.
    let next = t.path().join("next");
    let out = cli::rumbench_run()
        .env("RUMBENCH_PROFILE_DIR", &place)
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"])
        .arg(&next)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("removed perf's recording that a killed run left behind"), "{}", stderr(&out));
    assert!(recordings_in(&place).is_empty(), "{:?}", recordings_in(&place));
}

#[test]
fn missing_figures_are_null_with_a_reason() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let out = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "50", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(&out_dir);
    let m = &v["configs"][0]["steps"][0]["metrics"];
    assert!(m["client_cpu_us_op"].is_null(), "a step too short for a CPU figure has none: {}", m["client_cpu_us_op"]);
    let why = m["missing"].as_array().unwrap().iter().find(|x| x["metric"] == "client_cpu_us_op").expect("a reason");
    assert!(why["reason"].as_str().unwrap().starts_with("below resolution"), "{why}");
}

#[test]
fn a_full_disk_under_lmdb_says_the_disk_is_full() {
    let mnt = tempfile::tempdir().unwrap();
    let ok = Command::new("mount").args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"]).arg(mnt.path()).status().unwrap();
    assert!(ok.success(), "cannot mount a tmpfs: this test needs root");
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let out = cli::rumbench_run()
        .args(["-e", "lmdb,sqlite", "-s", "fillseq", "-n", "200000", "--db-dir"])
        .arg(mnt.path().join("db"))
        .arg("--output-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    let left: Vec<PathBuf> = std::fs::read_dir(mnt.path()).unwrap().flatten().map(|e| e.path()).collect();
    let _ = Command::new("umount").arg(mnt.path()).status();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = load(&out_dir);
    for c in v["configs"].as_array().unwrap() {
        assert_eq!(c["status"], "failed", "{}", c["name"]);
        let err = c["error"].as_str().unwrap();
        assert!(err.contains("the data filesystem is full"), "{err}");
        let s = &c["steps"][0];
        assert!(s["ops_s"].is_null(), "a failed step shows no rate");
        // What completed before the disk filled is kept.
        let ops = s["ops"].as_u64().unwrap();
        assert!(ops > 0, "{s}");
        assert_eq!(s["ops_by_type"][0]["ops"], ops);
    }
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    let row = summary.lines().find(|l| l.starts_with("lmdb")).unwrap();
    assert!(row.split_whitespace().nth(2) == Some("-"), "{row}");
    assert!(left.is_empty(), "the data dirs rumbench made are removed: {left:?}");
}

/// How a stop signal reaches the run.
#[derive(Clone, Copy)]
enum Delivery {
    /// Once, to the main process.
    Once(i32),
    /// As coreutils `timeout` sends it: to the process, then to its process group.
    Timeout(i32),
    /// To every process of the run at once, servers included (systemd's stop).
    Everyone(i32),
}

/// Send the stop `how` to the run whose main process is `parent` (its own
/// process group) and whose files are all under `root`.
fn deliver(how: Delivery, parent: i32, root: &Path) {
    // SAFETY: signals to processes of the run this test started.
    unsafe {
        match how {
            Delivery::Once(sig) => {
                libc::kill(parent, sig);
            }
            Delivery::Timeout(sig) => {
                libc::kill(parent, sig);
                libc::kill(-parent, sig);
            }
            Delivery::Everyone(sig) => {
                let pids: Vec<i32> = processes_mentioning(root).into_iter().map(|(p, _)| p).collect();
                libc::kill(parent, sig);
                for p in pids {
                    libc::kill(p, sig);
                }
            }
        }
    }
}

/// A run stopped mid-step, however the signal came: exit 128 + signal, the
/// running step recorded as interrupted (not failed, not "0 ops/s over
/// 0.0 s"), later configs not run, nothing left running or on disk.
fn stop_a_run(how: Delivery, sig: i32, args: &[&str], steps_before: usize, data_dir_name: &str) {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let db_root = t.path().join("db");
    use std::os::unix::process::CommandExt;
    let mut cmd = cli::rumbench_run();
    if let Some(engines) = args.strip_prefix(&["suite"]) {
        // A short fill and a long read, from a suite file.
        let configs: String = engines.iter().map(|e| format!("[[config]]\nengine = \"{e}\"\n")).collect();
        let suite = format!("[settings]\nnum = 20000\n{configs}[[step]]\nname = \"fillseq\"\n[[step]]\nname = \"readrandom\"\nseconds = 30\n");
        std::fs::write(t.path().join("suite.toml"), suite).unwrap();
        cmd.arg("--config").arg(t.path().join("suite.toml"));
    } else {
        cmd.args(args);
    }
    let mut parent = cmd
        .arg("--db-dir")
        .arg(&db_root)
        .arg("--output-dir")
        .arg(&out_dir)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_steps(&out_dir, steps_before, 120);
    config_process(&out_dir);
    std::thread::sleep(Duration::from_millis(1500));
    deliver(how, parent.id() as i32, t.path());
    let err = {
        use std::io::Read;
        let mut s = String::new();
        parent.stderr.take().unwrap().read_to_string(&mut s).unwrap();
        s
    };
    let status = parent.wait().unwrap();
    assert_eq!(status.code(), Some(128 + sig), "exit 128 + signal: {err}");
    assert!(!err.contains("again:") && !err.contains("exiting now"), "one stop, not two: {err}");
    assert_nothing_left_running(t.path(), 60);
    let v = load(&out_dir);
    assert_eq!(v["status"], "interrupted", "{}", v["error"]);
    assert_eq!(v["configs"][0]["status"], "interrupted", "{}", v["configs"][0]["error"]);
    let steps = v["configs"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), steps_before + 1, "{err}");
    let running = &steps[steps_before];
    assert_eq!(running["status"], "interrupted", "{running}");
    // (A step that measured nothing prints ": 0 ops/s over 0.0 s"; a fast one may
    // print "129720 ops/s over 0.0 s".)
    assert!(!err.contains(": 0 ops/s over 0.0 s"), "{err}");
    assert!(!db_root.join(data_dir_name).exists(), "the data dir is removed");
    assert!(!out_dir.join(".rumbench-task.json").exists());
}

#[test]
fn sigterm_twice_from_timeout_is_one_stop() {
    let args = ["suite", "rocksdb", "lmdb"];
    for _ in 0..3 {
        stop_a_run(Delivery::Timeout(libc::SIGTERM), libc::SIGTERM, &args, 1, "rocksdb");
    }
    stop_a_run(Delivery::Once(libc::SIGINT), libc::SIGINT, &args, 1, "rocksdb");
}

#[test]
fn sigterm_to_every_process_at_once_interrupts_the_step() {
    let args = ["suite", "rocksdb"];
    stop_a_run(Delivery::Everyone(libc::SIGTERM), libc::SIGTERM, &args, 1, "rocksdb");
    let pg = ["-e", "postgres", "-s", "l.i0,qp100", "--rows", "3000", "--query-seconds", "60"];
    stop_a_run(Delivery::Everyone(libc::SIGTERM), libc::SIGTERM, &pg, 1, "postgres");
}

/// Run `script` in bash with $RB set to rumbench; returns (its output, the status it echoed last).
fn bash_pipeline(script: &str, cwd: &Path) -> (String, i32) {
    let exe = cli::exe();
    let out =
        cli::isolate(&mut Command::new("bash")).arg("-c").arg(script).env("RB", exe).current_dir(cwd).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let code = stdout.lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or(-1);
    (stdout + &String::from_utf8_lossy(&out.stderr), code)
}

#[test]
fn a_closed_pipe_stops_the_run_like_a_closed_terminal() {
    let t = tempfile::tempdir().unwrap();
    // Progress and step lines go to a pipe whose reader quits after one line.
    let (text, code) = bash_pipeline(
        "\"$RB\" run --no-history -e rocksdb,lmdb -s fillseq,readrandom -n 20000 --seconds 30 --db-dir db --output-dir out 2>&1 | head -n 1; echo ${PIPESTATUS[0]}",
        t.path(),
    );
    assert_eq!(code, 128 + libc::SIGPIPE, "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert_nothing_left_running(t.path(), 30);
    let v = load(&t.path().join("out"));
    assert_eq!(v["status"], "interrupted", "{}", v["error"]);
    assert!(!t.path().join("db").exists(), "the data dirs are removed");
    assert!(!t.path().join("out/.rumbench-task.json").exists());
    // The summary's reader quit: the run completed, its files are all there.
    let (text, code) = bash_pipeline(
        "\"$RB\" run --no-history -e null -s fillseq -n 1000 --output-dir out2 | head -n 1; echo ${PIPESTATUS[0]}",
        t.path(),
    );
    // 0 when the summary fit in the pipe before head quit.
    assert!(code == 0 || code == 128 + libc::SIGPIPE, "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert_eq!(load(&t.path().join("out2"))["status"], "completed");
    assert!(t.path().join("out2/report.html").exists());
    for cmd in ["engines", "steps", "compare out2 out2", "history --history nothere.sqlite"] {
        let (text, code) =
            bash_pipeline(&format!("\"$RB\" {cmd} 2>&1 | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}"), t.path());
        assert!(code == 0 || code == 2 || code == 128 + libc::SIGPIPE, "{cmd}: {text}");
        assert!(!text.contains("panicked"), "{cmd}: {text}");
    }
}

#[test]
fn a_terminal_that_hangs_up_stops_the_run() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills two descriptors we own.
    let r = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(r, 0, "openpty");
    // SAFETY: fcntl on our descriptors: the run must not inherit the master
    // (the terminal hangs up only when its last master descriptor closes).
    unsafe {
        libc::fcntl(master, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::fcntl(slave, libc::F_SETFD, libc::FD_CLOEXEC);
    }
    let mut cmd = cli::rumbench();
    cmd.args([
        "run",
        "--no-history",
        "-e",
        "rocksdb,lmdb",
        "-s",
        "fillseq,readrandom",
        "-n",
        "20000",
        "--seconds",
        "10",
        "--db-dir",
    ])
    .arg(t.path().join("db"))
    .arg("--output-dir")
    .arg(&out_dir);
    // SAFETY: duplicates of the pty's slave for the child's standard streams;
    // setsid and TIOCSCTTY make it the child's controlling terminal.
    unsafe {
        cmd.stdin(Stdio::from_raw_fd(libc::dup(slave)))
            .stdout(Stdio::from_raw_fd(libc::dup(slave)))
            .stderr(Stdio::from_raw_fd(libc::dup(slave)))
            .pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY, 0);
                Ok(())
            });
    }
    let mut child = cmd.spawn().unwrap();
    // SAFETY: our copy of the slave; the child has its own.
    unsafe { libc::close(slave) };
    // Read the terminal until told to hang up (a full pty buffer would block the run).
    let hang_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = hang_up.clone();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !flag.load(std::sync::atomic::Ordering::SeqCst) {
            let mut p = libc::pollfd { fd: master, events: libc::POLLIN, revents: 0 };
            // SAFETY: poll and read on the master we own.
            if unsafe { libc::poll(&mut p, 1, 100) } > 0 {
                // SAFETY: read into a buffer of its length, on the master we own.
                let n = unsafe { libc::read(master, buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    break;
                }
                seen.extend_from_slice(&buf[..n as usize]);
            }
        }
        // The last descriptor of the master: the terminal hangs up.
        // SAFETY: closes the master we own, once.
        unsafe { libc::close(master) };
        String::from_utf8_lossy(&seen).to_string()
    });
    wait_for_steps(&out_dir, 1, 120);
    config_process(&out_dir);
    std::thread::sleep(Duration::from_millis(1500));
    hang_up.store(true, std::sync::atomic::Ordering::SeqCst);
    let seen = reader.join().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGHUP), "exit 129 (seen on the terminal: {seen})");
    assert_nothing_left_running(t.path(), 60);
    let v = load(&out_dir);
    assert_eq!(v["status"], "interrupted", "{}", v["error"]);
    assert_eq!(v["configs"][0]["steps"][1]["status"], "interrupted");
    assert!(!t.path().join("db/rocksdb").exists());
    assert!(!out_dir.join(".rumbench-task.json").exists());
}

#[test]
fn a_server_a_killed_run_left_running_is_stopped_before_its_files_go() {
    let t = tempfile::tempdir().unwrap();
    let db_root = t.path().join("db");
    let out1 = t.path().join("out1");
    let mut first = rumbench_in(
        &["-e", "postgres", "-s", "l.i0,qp100", "--rows", "3000", "--query-seconds", "60"],
        &db_root,
        &out1,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    wait_for_steps(&out1, 1, 120);
    let child = config_process(&out1);
    // SAFETY: the two rumbench processes of our run, killed together.
    unsafe {
        libc::kill(first.id() as i32, libc::SIGKILL);
        libc::kill(child, libc::SIGKILL);
    }
    first.wait().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let orphans: Vec<_> = processes_mentioning(&db_root.join("postgres"))
        .into_iter()
        .filter(|(_, c)| c.starts_with("postgres"))
        .collect();
    assert!(!orphans.is_empty(), "the server outlives a SIGKILLed run (the case under test)");
    let out = rumbench_in(&["-e", "postgres", "-s", "l.i0", "--rows", "2000"], &db_root, &t.path().join("out2"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("stopped postgres (pid"), "the leftover server is stopped first: {}", stderr(&out));
    assert_nothing_left_running(t.path(), 30);
}

#[test]
fn replace_output_keeps_a_data_dir_another_run_uses() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    let kept = cli::rumbench_run()
        .args(["-e", "lmdb", "-s", "fillseq", "-n", "20000", "--keep-db", "--output-dir"])
        .arg(&a)
        .output()
        .unwrap();
    assert!(kept.status.success(), "{}", stderr(&kept));
    assert!(a.join("db/lmdb/data.mdb").exists());
    let user = cli::rumbench_run()
        .args(["-e", "lmdb", "-s", "readrandom", "-n", "20000", "--seconds", "5", "--use-existing-db", "--db-dir"])
        .arg(a.join("db"))
        .arg("--output-dir")
        .arg(t.path().join("b"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    config_process(&t.path().join("b"));
    std::thread::sleep(Duration::from_millis(500));
    let out = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--replace-output", "--output-dir"])
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("which another rumbench run is using"), "{}", stderr(&out));
    assert!(a.join("db/lmdb/data.mdb").exists(), "the database in use stays");
    let done = user.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", stderr(&done));
    assert_eq!(load(&t.path().join("b"))["status"], "completed");
    assert!(a.join("db/lmdb/data.mdb").exists());
}

#[test]
fn use_existing_db_without_a_database_is_refused_and_adds_nothing() {
    let t = tempfile::tempdir().unwrap();
    for (engine, file) in
        [("rocksdb", "CURRENT"), ("leveldb", "CURRENT"), ("lmdb", "data.mdb"), ("sqlite", "db.sqlite")]
    {
        let dir = t.path().join("db").join(engine);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let out_dir = t.path().join(format!("out-{engine}"));
        let out = cli::rumbench_run()
            .args(["-e", engine, "-s", "readrandom", "--use-existing-db", "--db-dir"])
            .arg(t.path().join("db"))
            .arg("--output-dir")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert_refused(
            &out,
            &format!("--use-existing-db: {} holds no {engine} database (no {file} in it)", dir.display()),
            &out_dir,
        );
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("notes.txt")], "{engine}: nothing added");
    }
}

#[test]
fn figures_that_were_not_measured_are_null() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let out = cli::rumbench_run()
        .args(["-e", "lmdb,sqlite,null", "-s", "fillseq,waitforcompaction", "-n", "2000", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(&out_dir);
    for c in v["configs"].as_array().unwrap() {
        let wait = &c["steps"][1];
        assert!(wait["ops_s"].is_null(), "{}: nothing to wait for is no rate: {}", c["name"], wait["ops_s"]);
    }
    let null_fill = &v["configs"][2]["steps"][0]["metrics"];
    assert!(null_fill["space_amp"].is_null(), "null keeps nothing: no space-amp, {}", null_fill["space_amp"]);
    assert!(null_fill["missing"].as_array().unwrap().iter().any(|m| m["metric"] == "space_amp"));
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    let null_row = summary.lines().find(|l| l.starts_with("null ") && l.contains("fillseq")).unwrap();
    assert!(null_row.split_whitespace().all(|t| t != "0.00"), "no zero stands for an unmeasured space-amp:\n{summary}");
}

#[test]
fn runs_started_in_the_same_second_get_their_own_directories() {
    let t = tempfile::tempdir().unwrap();
    let runs: Vec<Child> = (0..3)
        .map(|_| {
            cli::rumbench_run()
                .args(["-e", "null", "-s", "fillseq", "-n", "1000"])
                .current_dir(t.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for r in runs {
        let out = r.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let dirs: Vec<_> = std::fs::read_dir(t.path().join("results")).unwrap().flatten().collect();
    assert_eq!(dirs.len(), 3, "{dirs:?}");
    for d in dirs {
        assert_eq!(load(&d.path())["status"], "completed");
    }
}

#[test]
fn a_full_results_filesystem_fails_one_config_and_stops_its_server() {
    let mnt = tempfile::tempdir().unwrap();
    let ok = Command::new("mount").args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"]).arg(mnt.path()).status().unwrap();
    assert!(ok.success(), "cannot mount a tmpfs: this test needs root");
    let t = tempfile::tempdir().unwrap();
    let out_dir = mnt.path().join("out");
    let db_root = t.path().join("db");
    let run = rumbench_in(
        &["-e", "postgres,lmdb", "-s", "l.i0,qp100", "--rows", "3000", "--query-seconds", "5"],
        &db_root,
        &out_dir,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    wait_for_steps(&out_dir, 1, 120);
    // Fill the results filesystem while the second step runs.
    let filler = mnt.path().join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![7u8; 1 << 16];
        while f.write_all(&block).is_ok() {}
    }
    // The config ends (its data dir goes); then there is space again for the next one.
    let deadline = Instant::now() + Duration::from_secs(90);
    while db_root.join("postgres").exists() {
        assert!(Instant::now() < deadline, "the postgres data dir is left behind");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::remove_file(&filler).unwrap();
    let out = run.wait_with_output().unwrap();
    let v = serde_json::from_str::<Value>(&std::fs::read_to_string(out_dir.join("result.json")).unwrap());
    let _ = Command::new("umount").arg(mnt.path()).status();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = v.unwrap();
    assert_eq!(v["configs"][0]["status"], "failed", "{}", v["configs"][0]["error"]);
    let err = v["configs"][0]["error"].as_str().unwrap();
    assert!(err.contains("cannot write the results") || err.contains("without recording its end"), "{err}");
    // What filled it is named as the write failed: not the run's files, which are small.
    let said = stderr(&out);
    assert!(said.contains("the results filesystem is full") && said.contains("that is not this run's"), "{said}");
    assert_eq!(v["configs"][1]["name"], "lmdb");
    assert_eq!(v["configs"][1]["status"], "completed", "the config after it runs and is recorded: {}", stderr(&out));
    assert_nothing_left_running(t.path(), 30);
    assert!(!db_root.exists(), "every data dir is removed");
}

#[test]
fn a_leveldb_database_is_not_handed_to_rocksdb_and_a_read_only_run_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let db_root = t.path().join("db");
    // A LevelDB database, made by rumbench's leveldb engine and kept.
    let out =
        rumbench_in(&["-e", "leveldb", "-s", "fillseq", "-n", "2000", "--keep-db"], &db_root, &t.path().join("made"))
            .output()
            .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let snapshot = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().to_string(), std::fs::read(e.path()).unwrap_or_default()))
            .collect();
        files.sort();
        files
    };
    // Copied where a rocksdb config would open it.
    let rocks = db_root.join("rocksdb");
    std::fs::create_dir_all(&rocks).unwrap();
    for e in std::fs::read_dir(db_root.join("leveldb")).unwrap().flatten() {
        std::fs::copy(e.path(), rocks.join(e.file_name())).unwrap();
    }
    let before = snapshot(&rocks);
    let out_dir = t.path().join("refused");
    let out =
        rumbench_in(&["-e", "rocksdb", "-s", "readrandom", "-n", "2000", "--use-existing-db"], &db_root, &out_dir)
            .output()
            .unwrap();
    assert_refused(&out, "holds no rocksdb database (its CURRENT has neither IDENTITY nor an OPTIONS file beside it, as a LevelDB database does", &out_dir);
    assert_eq!(snapshot(&rocks), before, "not a byte of the LevelDB database changed");
    // LevelDB still opens it.
    let out = rumbench_in(
        &["-e", "leveldb", "-s", "readrandom", "-n", "2000", "--use-existing-db"],
        &db_root,
        &t.path().join("leveldb-reads"),
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    // RocksDB's own database, read by read-only steps: opened read-only, nothing written.
    let out = rumbench_in(
        &["-e", "rocksdb", "-s", "fillseq", "-n", "2000", "--keep-db"],
        &t.path().join("db2"),
        &t.path().join("made2"),
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = t.path().join("db2/rocksdb");
    let before: Vec<(String, Vec<u8>)> = snapshot(&dir).into_iter().filter(|(n, _)| !n.starts_with("LOG")).collect();
    let reads = t.path().join("reads");
    let out = rumbench_in(
        &["-e", "rocksdb", "-s", "readrandom,fwdrange", "-n", "2000", "--use-existing-db"],
        &t.path().join("db2"),
        &reads,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let after: Vec<(String, Vec<u8>)> = snapshot(&dir).into_iter().filter(|(n, _)| !n.starts_with("LOG")).collect();
    assert_eq!(
        after.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        before.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        "no file added or removed (but RocksDB's info LOG)"
    );
    assert!(after == before, "no database file changed");
    let v = load(&reads);
    assert!(v["configs"][0]["notes"].to_string().contains("opened read-only"), "{}", v["configs"][0]["notes"]);
    assert!(v["configs"][0]["steps"][0]["ops"].as_u64().unwrap() > 0);
}

#[test]
fn a_hung_up_terminal_stops_a_run_in_a_background_process_group_at_once() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let (mut master, mut slave) = (0, 0);
    assert_eq!(
        // SAFETY: openpty fills two descriptors we own.
        unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) },
        0
    );
    // SAFETY: the run must not inherit our copies.
    unsafe {
        libc::fcntl(master, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::fcntl(slave, libc::F_SETFD, libc::FD_CLOEXEC);
    }
    // A shell with job control owns the terminal; rumbench is its background job
    // (a process group that is not the terminal's foreground one: no SIGHUP reaches it).
    let exe = cli::exe();
    let script = format!(
        "set -m; '{}' run --no-history --progress off -e rocksdb -s fillseq,readrandom -n 20000 --seconds 20 --db-dir '{}' --output-dir '{}' & wait",
        exe.display(),
        t.path().join("db").display(),
        out_dir.display()
    );
    let mut cmd = Command::new("bash");
    cli::isolate(&mut cmd).arg("-c").arg(script);
    // SAFETY: duplicates of the pty's slave for the shell's standard streams;
    // setsid and TIOCSCTTY make it the shell's controlling terminal.
    unsafe {
        cmd.stdin(Stdio::from_raw_fd(libc::dup(slave)))
            .stdout(Stdio::from_raw_fd(libc::dup(slave)))
            .stderr(Stdio::from_raw_fd(libc::dup(slave)))
            .pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY, 0);
                Ok(())
            });
    }
    let mut shell = cmd.spawn().unwrap();
    // SAFETY: our copy of the slave; the shell has its own.
    unsafe { libc::close(slave) };
    // Read the terminal (a full pty buffer would block the run) until told to hang up.
    let hang_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = hang_up.clone();
    let drain = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while !flag.load(std::sync::atomic::Ordering::SeqCst) {
            let mut p = libc::pollfd { fd: master, events: libc::POLLIN, revents: 0 };
            // SAFETY: poll and read on the master we own.
            if unsafe { libc::poll(&mut p, 1, 100) } > 0
                // SAFETY: read into a buffer of its length, on the master we own.
                && unsafe { libc::read(master, buf.as_mut_ptr().cast(), buf.len()) } <= 0
            {
                break;
            }
        }
        // The last descriptor of the master: the terminal hangs up.
        // SAFETY: closes the master we own, once.
        unsafe { libc::close(master) };
    });
    wait_for_steps(&out_dir, 1, 120);
    config_process(&out_dir);
    std::thread::sleep(Duration::from_millis(1000));
    let hung_up = Instant::now();
    hang_up.store(true, std::sync::atomic::Ordering::SeqCst);
    drain.join().unwrap();
    // The shell (the session leader) gets SIGHUP and dies; its background job is not told.
    let _ = shell.wait();
    assert_nothing_left_running(t.path(), 60);
    assert!(
        hung_up.elapsed() < Duration::from_secs(15),
        "stopped at once, not after its 20-second step: {:?}",
        hung_up.elapsed()
    );
    let v = load(&out_dir);
    assert_eq!(v["status"], "interrupted", "{}", v["error"]);
    assert_eq!(v["configs"][0]["status"], "interrupted", "interrupted, not failed: {}", v["configs"][0]["error"]);
    assert_eq!(v["configs"][0]["steps"][1]["status"], "interrupted");
}
