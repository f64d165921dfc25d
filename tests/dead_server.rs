//! A server reached by `--target` that goes away mid-step: killed (SIGKILL:
//! its connections close, new ones are refused) or stopped (SIGSTOP: it
//! accepts and says nothing). rumbench names it as the step's failure
//! within seconds ("the server at HOST:PORT closed the connection ...",
//! "... stopped answering ..."), drops nothing it cannot reach without
//! waiting, and exits non-zero at once; Ctrl-C during a wait on a stopped
//! server ends the run within about two seconds; a server that only pauses
//! (shorter than the silence limit) is not cut. For MongoDB (FerretDB, as
//! tests/mongodb.rs starts it), PostgreSQL and MariaDB (started through
//! rumbench's server layer and reached by URL, as a user's server is).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rumbench::server::{RunningServer, ServerConfig, ServerKind};
use serde_json::Value;

use crate::common::cli;
use crate::mongodb::Ferret;

/// What is done to the server while the run's second step runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// SIGKILL.
    Kill,
    /// SIGSTOP (until the run has ended).
    Stop,
    /// SIGSTOP, then Ctrl-C (SIGINT to the run's process group) half a second later.
    StopThenCtrlC,
    /// SIGSTOP for 1.5 s, then SIGCONT: slow, not dead.
    Pause,
}

/// What the run did.
struct Seen {
    /// From the fault (the Ctrl-C for StopThenCtrlC) to the second step in result.json.
    recorded: Option<Duration>,
    /// From the fault (the Ctrl-C) to the run's exit.
    exited: Duration,
    code: Option<i32>,
    result: Value,
    output: String,
}

impl Seen {
    fn step(&self, i: usize) -> &Value {
        &self.result["configs"][0]["steps"][i]
    }

    /// Every warning of the run, one per line.
    fn warnings(&self) -> String {
        self.result["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The steps in `dir`'s result.json (None before it exists or while it is replaced).
fn steps_recorded(dir: &Path) -> Option<usize> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).ok()?).ok()?;
    v["configs"].get(0).map(|c| c["steps"].as_array().map_or(0, Vec::len))
}

fn signal(pids: &[u32], sig: i32) {
    for &p in pids {
        // SAFETY: kill(2) on a pid of the test's own server.
        unsafe { libc::kill(p as i32, sig) };
    }
}

/// Stop every process of the server (until no new one appears); their pids.
fn freeze(pids: &dyn Fn() -> Vec<u32>) -> Vec<u32> {
    let mut tree: Vec<u32> = Vec::new();
    loop {
        let new: Vec<u32> = pids().into_iter().filter(|p| !tree.contains(p)).collect();
        if new.is_empty() {
            return tree;
        }
        signal(&new, libc::SIGSTOP);
        tree.extend(new);
    }
}

/// Run YCSB's load and then ycsb-c for up to 30 s (5 s when it pauses)
/// against `url`; once the load is recorded and ycsb-c has run a second,
/// do `fault` to the server whose processes `pids` lists.
fn run_with_fault(url: &str, pids: &dyn Fn() -> Vec<u32>, fault: Fault, dir: &Path) -> Seen {
    run_on_with_fault(&["--target", url], pids, fault, dir)
}

/// `run_with_fault` on the server `on` names (`--target URL`, or `-e KIND`
/// for one rumbench starts itself).
fn run_on_with_fault(on: &[&str], pids: &dyn Fn() -> Vec<u32>, fault: Fault, dir: &Path) -> Seen {
    let url = on.last().copied().unwrap_or_default();
    let out = dir.join("out");
    let (stdout, stderr) = (dir.join("stdout"), dir.join("stderr"));
    let seconds = if fault == Fault::Pause { "5" } else { "30" };
    let mut child = cli::rumbench_run()
        .args(on)
        .args(["-s", "ycsb-load,ycsb-c", "--records", "200", "-t", "2", "--seconds", seconds])
        .arg("--output-dir")
        .arg(&out)
        .env_remove("RUMBENCH_TARGET_PASSWORD")
        .env_remove("PGPASSWORD")
        .env_remove("MYSQL_PWD")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        // Its own process group, as a shell gives a command: Ctrl-C signals the group.
        .process_group(0)
        .spawn()
        .unwrap();
    let output = || {
        format!(
            "{}{}",
            std::fs::read_to_string(&stdout).unwrap_or_default(),
            std::fs::read_to_string(&stderr).unwrap_or_default()
        )
    };
    let began = Instant::now();
    while steps_recorded(&out).unwrap_or(0) < 1 {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{fault:?}: the run ended ({status}) before its load was recorded:\n{}", output());
        }
        assert!(began.elapsed() < Duration::from_secs(120), "{fault:?}: no load recorded after 120 s:\n{}", output());
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(1));
    let tree = freeze(pids);
    let mut at = Instant::now();
    match fault {
        Fault::Kill => signal(&tree, libc::SIGKILL),
        Fault::Stop => {}
        Fault::StopThenCtrlC => {
            std::thread::sleep(Duration::from_millis(500));
            // SAFETY: the run's own process group.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
            at = Instant::now();
        }
        Fault::Pause => {
            std::thread::sleep(Duration::from_millis(1500));
            signal(&tree, libc::SIGCONT);
        }
    }
    let mut recorded = None;
    let status = loop {
        if recorded.is_none() && steps_recorded(&out).unwrap_or(0) >= 2 {
            recorded = Some(at.elapsed());
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if at.elapsed() > Duration::from_secs(60) {
            // SAFETY: as above.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            signal(&tree, libc::SIGCONT);
            panic!("{fault:?}: the run was still going 60 s after the fault:\n{}", output());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let exited = at.elapsed();
    if fault != Fault::Kill {
        signal(&tree, libc::SIGCONT);
    }
    let result: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    let step = &result["configs"][0]["steps"][1];
    // The figures, for `--nocapture`.
    eprintln!("{url} {fault:?}: step {} recorded {recorded:?} and the run ended {exited:?} after the fault, exit code {:?}: {}", step["status"], status.code(), step["error"]);
    Seen { recorded: recorded.or(Some(exited)), exited, code: status.code(), result, output: output() }
}

/// The checks every server kind passes, `at` its "HOST:PORT" and `tables`
/// "table(s)" or "collection(s)".
fn assert_named(seen: &Seen, fault: Fault, at: &str, tables: &str) {
    let out = &seen.output;
    let step = seen.step(1);
    let error = step["error"].as_str().unwrap_or_default();
    match fault {
        Fault::Kill | Fault::Stop => {
            let gone = if fault == Fault::Kill { "closed the connection" } else { "stopped answering" };
            let named = format!("the server at {at} {gone}");
            assert_eq!(step["status"], "failed", "{fault:?}: {step}\n{out}");
            assert!(error.starts_with(&named), "{fault:?}: the step's error is {error:?}, not {named:?}\n{out}");
            let recorded = seen.recorded.unwrap();
            assert!(recorded < Duration::from_secs(5), "{fault:?}: recorded {recorded:?} after the fault\n{out}");
            assert!(seen.exited < Duration::from_secs(8), "{fault:?}: exited {:?} after the fault\n{out}", seen.exited);
            assert_ne!(seen.code, Some(0), "{fault:?}\n{out}");
            let c = &seen.result["configs"][0];
            assert_eq!(c["status"], "failed", "{fault:?}: {}", c["error"]);
            assert!(c["error"].as_str().unwrap().contains(&named), "{fault:?}: {}", c["error"]);
            // The cleanup did not wait on it, and says why it dropped nothing.
            let warnings = seen.warnings();
            assert!(
                warnings.contains(&format!("could not drop {tables} usertable")) && warnings.contains(&named),
                "{fault:?}: {warnings}"
            );
            // What the load measured is kept.
            assert_eq!(seen.step(0)["status"], "completed");
            assert_eq!(seen.step(0)["ops"], 200);
        }
        Fault::StopThenCtrlC => {
            assert!(
                seen.exited < Duration::from_millis(2500),
                "{fault:?}: exited {:?} after Ctrl-C\n{out}",
                seen.exited
            );
            assert_ne!(seen.code, Some(0), "{fault:?}\n{out}");
            let said = format!("{}{}", step["error"], step["notes"]);
            assert!(said.contains(&format!("the server at {at} stopped answering")), "{fault:?}: {step}\n{out}");
            assert!(["interrupted", "failed"].contains(&step["status"].as_str().unwrap()), "{fault:?}: {step}");
        }
        Fault::Pause => {
            assert_eq!(seen.code, Some(0), "{fault:?}: a pause of 1.5 s cut the run\n{out}");
            assert_eq!(step["status"], "completed", "{fault:?}: {step}");
        }
    }
}

#[test]
fn a_mongodb_server_that_dies_is_named_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, fault) in [Fault::Kill, Fault::Stop, Fault::StopThenCtrlC, Fault::Pause].into_iter().enumerate() {
        let dir = tmp.path().join(format!("{fault:?}"));
        std::fs::create_dir_all(&dir).unwrap();
        let ferret = Ferret::open(&tmp.path().join(format!("ferret{i}")));
        let pid = ferret.child.id();
        let at = ferret.base.trim_start_matches("mongodb://").to_string();
        let seen = run_with_fault(&format!("{}/bench", ferret.base), &|| vec![pid], fault, &dir);
        assert_named(&seen, fault, &at, "collection(s)");
        if fault == Fault::Kill {
            // Not the driver's raw text: the server, named.
            let error = seen.step(1)["error"].as_str().unwrap();
            assert!(!error.contains("labels"), "{error}");
        }
    }
}

#[test]
fn a_mongodb_server_stopped_during_the_setup_is_named_within_seconds() {
    // hotrow loads its documents before its step (insertMany of 1,000 at a
    // time, the setup's driver): stopped meanwhile, the load is cut too.
    let tmp = tempfile::tempdir().unwrap();
    let ferret = Ferret::open(&tmp.path().join("ferret"));
    let pid = ferret.child.id();
    let at = ferret.base.trim_start_matches("mongodb://").to_string();
    let out = tmp.path().join("out");
    let mut child = cli::rumbench()
        .args(["run", "--progress", "off", "--no-history", "--target", &format!("{}/bench", ferret.base)])
        .args(["-s", "hotrow", "--hot-rows", "1000000", "--hot-tables", "1", "-t", "1", "--seconds", "5"])
        .arg("--output-dir")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Loading: the collection holds documents.
    let client = ferret.client("");
    let hot1 = client.database("bench").collection::<::mongodb::bson::Document>("hot1");
    let began = Instant::now();
    while hot1.estimated_document_count().run().unwrap_or(0) == 0 {
        assert!(began.elapsed() < Duration::from_secs(60), "hotrow's load did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(&[pid], libc::SIGSTOP);
    let stopped = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if stopped.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            signal(&[pid], libc::SIGCONT);
            panic!("the run was still going 60 s after the stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = stopped.elapsed();
    signal(&[pid], libc::SIGCONT);
    eprintln!("hotrow's load: the run ended {took:?} after the stop, {status}");
    assert!(took < Duration::from_secs(6), "the run ended {took:?} after the stop");
    assert!(!status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    let step = &v["configs"][0]["steps"][0];
    assert_eq!(step["status"], "failed", "{step}");
    let named = format!("the server at {at} stopped answering");
    assert!(step["error"].as_str().unwrap().starts_with(&named), "{}", step["error"]);
}

/// A server of `kind` started by the test, reached by URL as a user's server.
fn server_case(kind: ServerKind, fault: Fault, tmp: &Path) {
    let dir = tmp.join(format!("{kind}-{fault:?}"));
    let server =
        RunningServer::start(&ServerConfig { kind, data_dir: dir.join("server"), config_lines: Vec::new() }).unwrap();
    let port = server.port();
    let url = match kind {
        ServerKind::Postgres => format!("postgres://postgres@127.0.0.1:{port}/rumbench"),
        _ => format!("mysql://root@127.0.0.1:{port}/rumbench"),
    };
    let seen = run_with_fault(&url, &|| server.process_tree_pids(), fault, &dir);
    assert_named(&seen, fault, &format!("127.0.0.1:{port}"), "table(s)");
    if fault == Fault::Kill {
        // Gone already: nothing to stop but the record of it.
        let _ = server.kill();
    } else {
        server.stop().unwrap();
    }
}

#[test]
fn a_postgres_server_that_dies_is_named_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    for fault in [Fault::Kill, Fault::Stop, Fault::StopThenCtrlC, Fault::Pause] {
        server_case(ServerKind::Postgres, fault, tmp.path());
    }
}

#[test]
fn a_mariadb_server_that_dies_is_named_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    for fault in [Fault::Kill, Fault::Stop, Fault::StopThenCtrlC, Fault::Pause] {
        server_case(ServerKind::MariadbInnodb, fault, tmp.path());
    }
}

/// The processes of the server a run in `dir` started (their working
/// directory is in its data dirs, under `dir`).
fn started_server_pids(dir: &Path, comm: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == comm)
                && std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|c| c.starts_with(dir))
        })
        .collect()
}

/// A server rumbench started itself, frozen (SIGSTOP) mid-step: named as
/// the step's failure within seconds, as a target is, and ended at once
/// (it would never shut down), so the run ends within seconds too; with
/// Ctrl-C during the freeze, sooner still.
#[test]
fn a_postgres_server_rumbench_started_that_freezes_is_named_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    for fault in [Fault::Stop, Fault::StopThenCtrlC] {
        let dir = tmp.path().join(format!("{fault:?}"));
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.clone();
        let seen = run_on_with_fault(&["-e", "postgres"], &|| started_server_pids(&d, "postgres"), fault, &dir);
        let step = seen.step(1);
        let said = format!("{}{}", step["error"], step["notes"]);
        assert!(said.contains("stopped answering"), "{fault:?}: {step}\n{}", seen.output);
        assert_ne!(seen.code, Some(0), "{fault:?}");
        match fault {
            Fault::Stop => {
                assert_eq!(step["status"], "failed", "{step}");
                assert!(seen.recorded.unwrap() < Duration::from_secs(5), "recorded {:?}", seen.recorded);
                assert!(
                    seen.exited < Duration::from_secs(8),
                    "exited {:?} after the freeze\n{}",
                    seen.exited,
                    seen.output
                );
                let notes = seen.result["configs"][0]["notes"].to_string();
                assert!(notes.contains("the server was ended at once"), "{notes}");
            }
            _ => {
                assert!(seen.exited < Duration::from_secs(3), "exited {:?} after Ctrl-C\n{}", seen.exited, seen.output)
            }
        }
        assert_eq!(seen.step(0)["status"], "completed");
        assert!(started_server_pids(&dir, "postgres").is_empty(), "{fault:?}: the frozen server was left running");
    }
}
