//! YCSB through the real binary: ycsb-load and workloads A-F on every
//! key-value engine and on the servers rumbench starts (small scale).

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::prelude::*;
use serde_json::Value;

const ALL: &str = "ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f";

fn rumbench() -> Command {
    let mut c = Command::cargo_bin("rumbench").unwrap();
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
    args.extend(strings(&["-s", ALL, "--records", &records.to_string(), "--ops", &ops.to_string(), "-t", &threads.to_string()]));
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
            let types: Vec<&str> = s["ops_by_type"].as_array().unwrap().iter().map(|o| o["op"].as_str().unwrap()).collect();
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
            assert!(s["metrics"]["cpu"].is_object() || s["metrics"]["missing"].is_array(), "{engine} {name}");
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
        c["steps"].as_array().unwrap().iter().flat_map(|s| s["ops_by_type"].as_array().unwrap().iter().map(|o| o["ops"].as_u64().unwrap())).collect()
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
    let v = run_ok(&strings(&["-e", "postgres", "-s", "ycsb-load,ycsb-c", "--records", "2000", "--seconds", "4", "-t", "1"]));
    let step = &v["configs"][0]["steps"][1];
    let m = &step["metrics"];
    let f = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {m}"));
    let (client, server, host) = (f("client_cpu_us_op"), f("engine_cpu_us_op"), f("host_cpu_us_op"));
    // The processes' CPU may include time the hypervisor stole from them;
    // the host's busy time does not.
    let cpus = std::thread::available_parallelism().unwrap().get() as f64;
    let steal_us_op = f("host_steal_pct") / 100.0 * cpus * step["wall_s"].as_f64().unwrap() * 1e6 / step["ops"].as_f64().unwrap();
    assert!(host + steal_us_op >= 0.9 * (client + server), "host {host:.1} (+ steal {steal_us_op:.1}) us/op < client {client:.1} + server {server:.1}");
}
