//! The crash test, end to end through the real binary: engines on the lazy
//! filesystem (FUSE), killed and power-cut for real. Small: a few crashes of
//! a fraction of a second each.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::cli;

fn crashtest(args: &[&str], out: &Path) -> Output {
    cli::rumbench()
        .arg("crashtest")
        .args(args)
        .args(["--kill-after", "100,400", "--seed", "7", "-d"])
        .arg(out)
        .env(rumbench::engine::TEST_ENGINES_ENV, "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn configs(out: &Path) -> Vec<Value> {
    let r: Value = serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
    r["crashtest"]["configs"].as_array().unwrap().clone()
}

fn config<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no config {name}"))
}

/// No lazy filesystem left mounted under `dir`, no process of ours left in it.
fn assert_clean(dir: &Path) {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    let dir = dir.to_str().unwrap();
    assert!(!mounts.lines().any(|l| l.contains(dir)), "a mount is left under {dir}:\n{mounts}");
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            assert!(!(cmd.contains("internal-crash-child") && cmd.contains(dir)), "left running: {cmd}");
            // A server: mariadbd names its datadir, a postmaster runs in its data dir.
            let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
            assert!(!cmd.contains(dir) && !cwd.starts_with(dir), "left running: {cmd} (in {})", cwd.display());
        }
    }
}

#[test]
fn rocksdb_with_sync_loses_nothing_and_without_it_loses_acknowledged_commits() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let o = crashtest(&["-e", "rocksdb", "--sweep", "sync=true,false", "--crashes", "3", "--fail-on-loss"], &out);
    // --fail-on-loss: sync=false lost commits.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let all = configs(&out);
    let synced = config(&all, "rocksdb-sync-true");
    assert_eq!(synced["status"], "completed");
    assert_eq!(synced["totals"]["lost"], 0, "{synced}");
    assert!(synced["totals"]["acknowledged"].as_u64().unwrap() > 0);
    assert!(synced["totals"]["verdict"].as_str().unwrap().starts_with("durable as run: 0 of "), "{synced}");
    assert_eq!(synced["totals"]["synced_per_commit"], true);
    assert_eq!(synced["crash_records"].as_array().unwrap().len(), 3);
    assert!(synced["crash_records"][0]["recovery_s"].as_f64().unwrap() > 0.0);
    let unsynced = config(&all, "rocksdb-sync-false");
    assert!(unsynced["totals"]["lost"].as_u64().unwrap() > 0, "{unsynced}");
    assert!(unsynced["totals"]["verdict"].as_str().unwrap().starts_with("not durable: lost "));
    assert_eq!(unsynced["totals"]["synced_per_commit"], false);
    let out_text = text(&o);
    assert!(out_text.contains("Durability matrix") && out_text.contains("not a benchmark"), "{out_text}");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("rocksdb-sync-false") && summary.contains("durable as run"), "{summary}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Durability matrix (crash test)"));
    // The work dirs (backing store, mount point, ack logs) are gone with their mounts.
    assert!(!out.join("db").exists());
    assert_clean(t.path());
}

#[test]
fn an_engine_that_syncs_every_commit_but_not_its_directory_is_caught() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("posix");
    let o = crashtest(&["-e", "testlog", "--sweep", "sync=full,nodirsync,none", "--crashes", "2"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let all = configs(&out);
    assert_eq!(config(&all, "testlog-sync-full")["totals"]["lost"], 0);
    let liar = &config(&all, "testlog-sync-nodirsync")["totals"];
    assert!(liar["lost"].as_u64().unwrap() > 0, "{liar}");
    assert_eq!(liar["synced_per_commit"], true, "it synced once per commit: not ND");
    assert!(liar["contradiction"].as_str().unwrap().contains("(not ND) yet lost"), "{liar}");
    assert!(config(&all, "testlog-sync-none")["totals"]["lost"].as_u64().unwrap() > 0);
    assert!(text(&o).contains("CONTRADICTION"));
    // Where a metadata journal commits every name with any fsync (ext4,
    // XFS), the same engine keeps what it acknowledged.
    let out = t.path().join("journaled");
    let o =
        crashtest(&["-e", "testlog", "-o", "sync=nodirsync", "--crashes", "2", "--fs-semantics", "journaled"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let all = configs(&out);
    assert_eq!(all[0]["totals"]["lost"], 0, "{}", all[0]);
    assert_clean(t.path());
}

#[test]
fn lmdb_and_sqlite_with_full_sync_lose_nothing_on_a_journaled_filesystem() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let o = crashtest(
        &[
            "-e",
            "lmdb,sqlite",
            "-o",
            "lmdb.sync_mode=sync",
            "-o",
            "sqlite.synchronous=full",
            "--crashes",
            "2",
            "--fs-semantics",
            "journaled",
            "--fail-on-loss",
        ],
        &out,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for c in configs(&out) {
        assert_eq!(c["totals"]["lost"], 0, "{c}");
        assert_eq!(c["totals"]["wrong_values"], 0, "{c}");
        assert_eq!(c["totals"]["never_written"], 0, "{c}");
    }
    assert_clean(t.path());
}

#[test]
fn what_the_crash_test_cannot_run_is_refused_before_anything_starts() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    for (args, expected) in [
        (&["-e", "null"][..], "stores nothing"),
        (&["-e", "postgres", "-o", "target=postgres://me@db.example/x"][..], "only servers rumbench starts"),
        (&["-e", "rocksdb@8.10"][..], "RocksDB built into rumbench"),
        (&["-e", "rocksdb", "--crashes", "0"][..], "--crashes must be at least 1"),
        (&["-e", "rocksdb", "--value-size", "10"][..], "--value-size must be at least"),
        (&["-e", "rocksdb", "--kill-after", "5,1"][..], "first must not be above"),
        (&["-e", "rocksdb", "--value-size", "100000000000"][..], "--value-size must be at most 64 MiB"),
    ] {
        let o = cli::rumbench().arg("crashtest").args(args).arg("-d").arg(&out).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expected) && err.lines().count() == 1, "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} created the output dir");
    }
}

#[test]
fn a_stopped_crash_test_keeps_its_results_and_leaves_no_mount_or_process() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let child = cli::rumbench()
        .args(["crashtest", "-e", "rocksdb", "-o", "sync=true", "--crashes", "1000", "--kill-after", "200,400", "-d"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Let a few crashes pass, then stop it as `timeout` would. A crash's
    // check report (check-N.json) is written before its record is kept: the
    // third report means that the first two crashes are recorded.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_dir(out.join("db/rocksdb"))
        .map(|d| d.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("check-")).count() >= 3)
        .unwrap_or(false)
    {
        assert!(std::time::Instant::now() < deadline, "no crash was checked within a minute");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", text(&o));
    let r: Value = serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["status"], "interrupted");
    let c = &r["crashtest"]["configs"][0];
    assert_eq!(c["status"], "interrupted");
    assert!(c["crash_records"].as_array().unwrap().len() >= 2, "{c}");
    assert_eq!(c["totals"]["lost"], 0, "{c}");
    assert!(!out.join("db").exists(), "the work dir is removed");
    assert_clean(t.path());
}

/// A suite of server configs, each with its config lines.
fn server_suite(dir: &Path, configs: &[(&str, &str, &str)]) -> std::path::PathBuf {
    let mut text = String::new();
    for (name, engine, line) in configs {
        text.push_str(&format!(
            "[[config]]\nname = \"{name}\"\nengine = \"{engine}\"\nserver_config = [\"{line}\"]\n\n"
        ));
    }
    let path = dir.join("servers.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn assert_durable(c: &Value) {
    assert_eq!(c["status"], "completed", "{c}");
    assert_eq!(c["totals"]["lost"], 0, "{c}");
    assert_eq!(c["totals"]["wrong_values"], 0, "{c}");
    assert_eq!(c["totals"]["never_written"], 0, "{c}");
    assert!(c["totals"]["acknowledged"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(c["totals"]["synced_per_commit"], true, "{c}");
}

fn assert_lossy(c: &Value) {
    assert_eq!(c["status"], "completed", "{c}");
    assert!(c["totals"]["lost"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(c["totals"]["synced_per_commit"], false, "{c}");
}

#[test]
fn postgres_with_synchronous_commit_loses_nothing_and_without_it_loses_acknowledged_commits() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let suite = server_suite(
        t.path(),
        &[("pg-sync", "postgres", "synchronous_commit = on"), ("pg-async", "postgres", "synchronous_commit = off")],
    );
    // Kills well after wal_writer_delay (200 ms): an asynchronous commit's window is open.
    let o = cli::rumbench()
        .args([
            "crashtest",
            "-c",
            suite.to_str().unwrap(),
            "--crashes",
            "3",
            "--kill-after",
            "400,700",
            "--seed",
            "7",
            "-d",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let all = configs(&out);
    let durable = config(&all, "pg-sync");
    assert_durable(durable);
    assert_eq!(durable["server_config"][0], "synchronous_commit = on");
    let settings = durable["effective_options"].as_array().unwrap();
    assert!(settings.iter().any(|kv| kv[0] == "pg_settings.synchronous_commit" && kv[1] == "on"), "{settings:?}");
    assert!(durable["provenance"].to_string().contains("PostgreSQL"), "{durable}");
    // The restart is the recovery: timed, and more than a connect.
    assert!(durable["crash_records"][0]["recovery_s"].as_f64().unwrap() > 0.01, "{durable}");
    assert_lossy(config(&all, "pg-async"));
    assert!(text(&o).contains("synchronous_commit = off"), "the matrix shows the config lines: {}", text(&o));
    assert_clean(t.path());
}

#[test]
fn mariadb_loses_nothing_with_a_synced_log_per_commit_and_loses_without() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let suite = server_suite(
        t.path(),
        &[
            ("innodb-1", "mariadb-innodb", "innodb_flush_log_at_trx_commit = 1"),
            ("innodb-0", "mariadb-innodb", "innodb_flush_log_at_trx_commit = 0"),
            ("myrocks-1", "mariadb-myrocks", "rocksdb_flush_log_at_trx_commit = 1"),
        ],
    );
    let o = cli::rumbench()
        .args([
            "crashtest",
            "-c",
            suite.to_str().unwrap(),
            "--crashes",
            "3",
            "--kill-after",
            "400,700",
            "--seed",
            "7",
            "--fail-on-loss",
            "-d",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "--fail-on-loss with innodb-0: {}", text(&o));
    let all = configs(&out);
    assert_durable(config(&all, "innodb-1"));
    assert_durable(config(&all, "myrocks-1"));
    assert_lossy(config(&all, "innodb-0"));
    let settings = config(&all, "myrocks-1")["effective_options"].to_string();
    assert!(
        settings.contains("variables.rocksdb_flush_log_at_trx_commit") && settings.contains("ROCKSDB"),
        "{settings}"
    );
    assert_clean(t.path());
}

#[test]
fn a_stopped_server_crash_test_stops_the_server_and_unmounts() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let child = cli::rumbench()
        .args(["crashtest", "-e", "postgres", "--crashes", "1000", "--kill-after", "200,400", "-d"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !std::fs::read_to_string(out.join("result.json"))
        .is_ok_and(|_| std::fs::read_dir(out.join("db/postgres/acks")).is_ok_and(|d| d.count() >= 4))
    {
        assert!(std::time::Instant::now() < deadline, "no second crash within two minutes");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", text(&o));
    let r: Value = serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
    assert_eq!(r["status"], "interrupted");
    assert!(!out.join("db").exists(), "the work dir is removed");
    assert_clean(t.path());
}

/// The crash test's config process of the run in `out` (its command line names the task file there).
fn config_process(out: &Path) -> Option<i32> {
    let needle = out.to_string_lossy().to_string();
    std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
        let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
        let cmd = String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).ok()?).replace('\0', " ");
        (cmd.contains("internal-crash-config") && cmd.contains(&needle)).then_some(pid)
    })
}

/// Start a crash test of `args` into `out` and wait until `crashes` crashes were checked.
fn start_and_wait(args: &[&str], out: &Path, work: &Path, crashes: usize) -> std::process::Child {
    let child = cli::rumbench()
        .arg("crashtest")
        .args(args)
        .args(["--crashes", "1000", "--kill-after", "200,400", "-d"])
        .arg(out)
        .arg("--db-dir")
        .arg(work)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let checked = || {
        let r: Option<Value> =
            std::fs::read(out.join("result.json")).ok().and_then(|b| serde_json::from_slice(&b).ok());
        r.and_then(|r| r["crashtest"]["configs"][0]["crash_records"].as_array().map(|a| a.len())).unwrap_or(0)
    };
    while checked() < crashes {
        assert!(std::time::Instant::now() < deadline, "fewer than {crashes} crashes recorded within two minutes");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child
}

/// Wait until nothing of the run under `dir` is left (the config process winds down after its parent's death).
fn wait_clean(dir: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if std::panic::catch_unwind(|| assert_clean(dir)).is_ok() {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "the crash test's processes or mount outlived it");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_crash_test_killed_outright_records_each_crash_and_leaves_nothing() {
    for engine in ["rocksdb", "postgres"] {
        let t = tempfile::tempdir().unwrap();
        let (out, work) = (t.path().join("run"), t.path().join("work"));
        let mut child = start_and_wait(&["-e", engine], &out, &work, 2);
        let config_pid = config_process(&out).expect("a config process");
        // The OOM killer, kill -9, a cgroup kill: no handler runs in the main process.
        child.kill().unwrap();
        child.wait().unwrap();
        wait_clean(t.path());
        let r: Value = serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
        assert_eq!(r["status"], "interrupted", "{engine}: {}", r["error"]);
        assert!(r["error"].as_str().unwrap().contains("the main rumbench process died"), "{}", r["error"]);
        let c = &r["crashtest"]["configs"][0];
        assert_eq!(c["status"], "interrupted", "{engine}: {c}");
        assert!(c["crash_records"].as_array().unwrap().len() >= 2, "every crash done is recorded: {c}");
        assert!(!out.join(".rumbench-crashtest-task.json").exists());
        let sockets: Vec<String> = std::fs::read_dir("/tmp")
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.starts_with(&format!("rumbench-sock-{config_pid}-")))
            .collect();
        assert!(sockets.is_empty(), "{engine}: socket dirs left: {sockets:?}");
        // The next crash test on the same --db-dir runs.
        let o = cli::rumbench()
            .args(["crashtest", "-e", engine, "--crashes", "1", "--kill-after", "200,300", "-d"])
            .arg(t.path().join("again"))
            .arg("--db-dir")
            .arg(&work)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{engine}: {}", text(&o));
        assert_clean(t.path());
    }
}

#[test]
fn a_dead_mount_of_a_killed_crash_test_is_released_by_the_next() {
    let t = tempfile::tempdir().unwrap();
    let work = t.path().join("work");
    let mnt = work.join("rocksdb/mnt");
    // Both processes killed at once while the lazy filesystem is mounted (a
    // power cut unmounts it for a moment: then try again): nobody unmounts,
    // the FUSE mount is left dead.
    let mounted = || std::fs::read_to_string("/proc/self/mountinfo").unwrap().contains(mnt.to_str().unwrap());
    let mut dead = None;
    for attempt in 0..5 {
        let out = t.path().join(format!("run{attempt}"));
        let mut child = start_and_wait(&["-e", "rocksdb"], &out, &work, 1);
        let config_pid = config_process(&out).expect("a config process");
        while !mounted() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // SAFETY: SIGKILL to processes this test started.
        unsafe { libc::kill(config_pid, libc::SIGKILL) };
        child.kill().unwrap();
        child.wait().unwrap();
        // The connection ends when the last of the config process's threads
        // has exited (one may be inside a request to its own filesystem):
        // seconds on a loaded machine.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while dead.is_none() && mounted() && std::time::Instant::now() < deadline {
            dead = std::fs::metadata(&mnt).err().and_then(|e| e.raw_os_error());
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if dead.is_some() {
            break;
        }
    }
    assert_eq!(dead, Some(libc::ENOTCONN), "a dead mount is left at {}", mnt.display());
    let o = cli::rumbench()
        .args(["crashtest", "-e", "rocksdb", "--crashes", "1", "--kill-after", "200,300", "-d"])
        .arg(t.path().join("again"))
        .arg("--db-dir")
        .arg(&work)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("the dead mount of a crash test that was killed"), "{}", text(&o));
    assert_clean(t.path());
}

#[test]
fn nothing_acknowledged_is_not_tested_and_a_full_disk_is_said() {
    let t = tempfile::tempdir().unwrap();
    // Killed as soon as the engine opened: no commit can have been acknowledged.
    let out = t.path().join("zero");
    let o = cli::rumbench()
        .args(["crashtest", "-e", "rocksdb", "-o", "sync=false", "--crashes", "2", "--kill-after", "0,0", "-d"])
        .arg(&out)
        .output()
        .unwrap();
    let c = &configs(&out)[0];
    if c["totals"]["acknowledged"] == 0 {
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(c["totals"]["verdict"].as_str().unwrap().starts_with("not tested: no commit was acknowledged"), "{c}");
        assert_eq!(c["status"], "failed");
        assert!(!text(&o).contains("durable as run: 0 of 0"), "{}", text(&o));
    }
    // A full filesystem under the work dir: the writer's own message, not a panic.
    let mnt = tempfile::tempdir().unwrap();
    let ok = Command::new("mount").args(["-t", "tmpfs", "-o", "size=3m", "tmpfs"]).arg(mnt.path()).status().unwrap();
    assert!(ok.success(), "cannot mount a tmpfs: this test needs root");
    let out = t.path().join("full");
    let o = cli::rumbench()
        .args([
            "crashtest",
            "-e",
            "rocksdb",
            "-o",
            "sync=true",
            "--crashes",
            "3",
            "--value-size",
            "100000",
            "--kill-after",
            "3000,3000",
            "-d",
        ])
        .arg(&out)
        .arg("--db-dir")
        .arg(mnt.path().join("work"))
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(mnt.path()).status();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let c = &configs(&out)[0];
    let err = c["error"].as_str().unwrap();
    assert!(err.contains("No space left on device") || err.contains("no space"), "the writer's own words: {err}");
    assert!(!err.contains("no message") && !text(&o).contains("panicked"), "{err}");
}
