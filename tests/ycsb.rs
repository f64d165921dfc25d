//! YCSB through the real binary: ycsb-load and workloads A-F on every
//! key-value engine and on the servers rumbench starts (small scale).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::cli;

const ALL: &str = "ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f";

/// `rumbench run --progress off`, its runs recorded in the history of its
/// own (`cli::rumbench`).
fn rumbench() -> Command {
    let mut c = cli::rumbench();
    c.arg("run").arg("--progress").arg("off");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// `rumbench run ARGS` into a scratch output directory: it must succeed.
/// Returns its result.json.
fn run_ok(args: &[String]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench().args(args).arg("--output-dir").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    load(dir.path())
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// Run every YCSB step on `engines` (one config each) and check each step's
/// operation types, counts and outcomes.
fn every_step(engines: &[&str], records: u64, ops: u64, threads: usize) -> Value {
    let mut args: Vec<String> = engines.iter().flat_map(|e| strings(&["-e", e])).collect();
    args.extend(strings(&[
        "-s",
        ALL,
        "--records",
        &records.to_string(),
        "--ops",
        &ops.to_string(),
        "-t",
        &threads.to_string(),
    ]));
    let v = run_ok(&args);
    let expected: &[(&str, &[&str])] = &[
        ("ycsb-load", &["INSERT"]),
        ("ycsb-a", &["READ", "UPDATE"]),
        ("ycsb-b", &["READ", "UPDATE"]),
        ("ycsb-c", &["READ"]),
        ("ycsb-d", &["READ", "INSERT"]),
        ("ycsb-e", &["SCAN", "INSERT"]),
        ("ycsb-f", &["READ", "READ-MODIFY-WRITE"]),
    ];
    for c in v["configs"].as_array().unwrap() {
        let engine = c["engine"].as_str().unwrap();
        assert_eq!(c["status"], "completed", "{engine}: {}", c["error"]);
        for (s, (name, ops_types)) in c["steps"].as_array().unwrap().iter().zip(expected) {
            assert_eq!(s["name"], *name, "{engine}");
            let types: Vec<&str> =
                s["ops_by_type"].as_array().unwrap().iter().map(|o| o["op"].as_str().unwrap()).collect();
            assert_eq!(types, *ops_types, "{engine} {name}");
            let total: u64 = s["ops_by_type"].as_array().unwrap().iter().map(|o| o["ops"].as_u64().unwrap()).sum();
            assert_eq!(total, if *name == "ycsb-load" { records } else { ops }, "{engine} {name}");
            assert_eq!(s["ops"].as_u64().unwrap(), total, "{engine} {name}");
            for o in s["ops_by_type"].as_array().unwrap() {
                let oc = &o["outcomes"];
                // Every record read was loaded (or inserted and acknowledged) first.
                assert_eq!(oc["not_found"], 0, "{engine} {name} {}: {oc}", o["op"]);
                assert_eq!(oc["ok"], o["ops"], "{engine} {name}");
                assert!(o["latency"]["p50_us"].as_f64().unwrap() > 0.0);
            }
            // The client's CPU per operation: a figure, or missing with its reason (never 0).
            let m = &s["metrics"];
            assert!(
                m["client_cpu_us_op"].as_f64().is_some_and(|c| c > 0.0)
                    || m["missing"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|x| x["metric"] == "client_cpu_us_op" && !x["reason"].as_str().unwrap().is_empty()),
                "{engine} {name}: {m}"
            );
        }
    }
    v
}

#[test]
fn every_workload_runs_on_every_key_value_engine() {
    every_step(&["rocksdb", "lmdb", "sqlite", "leveldb"], 3_000, 3_000, 2);
}

#[test]
fn every_workload_runs_on_the_null_engine() {
    let v = run_ok(&strings(&["-e", "null", "-s", ALL, "--records", "1000", "--ops", "20000"]));
    assert_eq!(v["configs"][0]["status"], "completed");
}

#[test]
fn every_workload_runs_on_postgres() {
    every_step(&["postgres"], 2_000, 2_000, 2);
}

#[test]
fn every_workload_runs_on_mariadb_innodb_and_myrocks() {
    every_step(&["mariadb-innodb", "mariadb-myrocks"], 2_000, 2_000, 2);
}

#[test]
fn one_thread_runs_the_same_operations_on_every_backend() {
    // The per-type counts of a seeded single-thread run are the same
    // everywhere (the full sequence is compared in the unit tests).
    let v = every_step(&["rocksdb", "sqlite"], 1_000, 2_000, 1);
    let counts = |c: &Value| -> Vec<u64> {
        c["steps"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["ops_by_type"].as_array().unwrap().iter().map(|o| o["ops"].as_u64().unwrap()))
            .collect()
    };
    let configs = v["configs"].as_array().unwrap();
    assert_eq!(counts(&configs[0]), counts(&configs[1]));
}

#[test]
fn the_host_s_busy_cpu_covers_the_client_and_the_server() {
    // A client and a server trading one request at a time leave the CPUs
    // idle between short bursts, which a tickless kernel's tick mostly
    // misses: counted by ticks, the host's busy CPU came out at two thirds
    // of what the two processes used. Busy CPU is now the CPUs' time less
    // idle, iowait and steal.
    let v = run_ok(&strings(&[
        "-e",
        "postgres",
        "-s",
        "ycsb-load,ycsb-c",
        "--records",
        "2000",
        "--seconds",
        "4",
        "-t",
        "1",
    ]));
    let step = &v["configs"][0]["steps"][1];
    let m = &step["metrics"];
    let f = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {m}"));
    let (client, server, host) = (f("client_cpu_us_op"), f("srv_cpu_us_op"), f("host_cpu_us_op"));
    // The processes' CPU may include time the hypervisor stole from them;
    // the host's busy time does not.
    let cpus = std::thread::available_parallelism().unwrap().get() as f64;
    let steal_us_op =
        f("host_steal_pct") / 100.0 * cpus * step["wall_s"].as_f64().unwrap() * 1e6 / step["ops"].as_f64().unwrap();
    assert!(
        host + steal_us_op >= 0.9 * (client + server),
        "host {host:.1} (+ steal {steal_us_op:.1}) us/op < client {client:.1} + server {server:.1}"
    );
    // One request at a time: the client waits for nearly every answer, and
    // each wait is a context switch of its thread.
    let switches = f("client_threads_switches_op");
    assert!((0.5..10.0).contains(&switches), "the client's context switches per read: {switches}");
}

/// `rumbench run ARGS --no-history --output-dir OUT`.
fn run_in(args: &[&str], out: &Path) -> Output {
    rumbench().args(args).arg("--no-history").arg("--output-dir").arg(out).output().unwrap()
}

/// The record count a run found loaded before it (its config's note).
fn records_found(v: &Value) -> u64 {
    let notes = v["configs"][0]["notes"].as_array().unwrap();
    let note = notes
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("YCSB's records loaded before the run: "))
        .unwrap_or_else(|| panic!("{notes:?}"));
    note.trim_start_matches("YCSB's records loaded before the run: ").split(' ').next().unwrap().parse().unwrap()
}

fn op<'a>(step: &'a Value, name: &str) -> &'a Value {
    step["ops_by_type"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == name)
        .unwrap_or_else(|| panic!("no {name} in {}", step["ops_by_type"]))
}

#[test]
fn run_steps_use_records_an_earlier_run_loaded() {
    // YCSB's model: load once (here with --keep-db), run many.
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let db = db.to_str().unwrap();
    let out = run_in(
        &["-e", "lmdb", "-s", "ycsb-load", "--records", "2000", "--keep-db", "--db-dir", db],
        &tmp.path().join("load"),
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let out = run_in(
        &["-e", "lmdb", "-s", "ycsb-c,ycsb-d", "--ops", "3000", "--use-existing-db", "--db-dir", db],
        &tmp.path().join("run"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(&tmp.path().join("run"));
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert_eq!(records_found(&v), 2000);
    for s in c["steps"].as_array().unwrap() {
        for o in s["ops_by_type"].as_array().unwrap() {
            assert_eq!(o["outcomes"]["not_found"], 0, "{} {}: every request is a loaded record", s["name"], o["op"]);
        }
    }
    let inserted = op(&c["steps"][1], "INSERT")["ops"].as_u64().unwrap();
    assert!(inserted > 0);
    // Not rumbench's to remove: the records are still there, D's inserts after the load's.
    let out = run_in(
        &["-e", "lmdb", "-s", "ycsb-c", "--ops", "100", "--use-existing-db", "--db-dir", db],
        &tmp.path().join("again"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(records_found(&load(&tmp.path().join("again"))), 2000 + inserted);

    // What cannot run on them is refused before anything starts: exit 2, one line, nothing written.
    let fill = tmp.path().join("filldb");
    let out = run_in(
        &["-e", "lmdb", "-s", "fillseq", "--num", "100", "--keep-db", "--db-dir", fill.to_str().unwrap()],
        &tmp.path().join("fill"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let fill = fill.to_str().unwrap();
    for (args, msg) in [
        (vec!["-s", "ycsb-c", "--db-dir", db], "put ycsb-load before it"),
        (vec!["-s", "ycsb-load,ycsb-c", "--use-existing-db", "--db-dir", db], "leave ycsb-load out of the steps"),
        (vec!["-s", "ycsb-c", "--use-existing-db", "--db-dir", fill], "holds no YCSB record 0"),
        (
            vec!["-s", "ycsb-c", "--use-existing-db", "--field-length", "50", "--db-dir", db],
            "is 1000 bytes, not --field-count x --field-length = 500",
        ),
    ] {
        let out_dir = tmp.path().join("refused");
        let out = run_in(&[&["-e", "lmdb"][..], &args].concat(), &out_dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(msg) && err.trim_end().lines().count() == 1, "{args:?}: {err}");
        assert!(!out_dir.exists(), "{args:?} wrote {}", out_dir.display());
    }
}
