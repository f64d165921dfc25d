//! Write debt (issue 54): what a write step leaves for later steps, and its
//! w-amp through that debt, on the real binary and real engines.

use std::path::Path;

use serde_json::Value;

use crate::common::cli;

fn run(args: &[&str], dir: &Path) -> Value {
    cli::run_ok(args, dir);
    cli::load(dir)
}

fn step<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["configs"][0]["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

fn owed(debt: &Value, name: &str) -> u64 {
    let list = debt["owed_at_end"].as_array().unwrap_or_else(|| panic!("owed_at_end: {debt}"));
    list.iter().find(|e| e[0] == name).and_then(|e| e[1].as_u64()).unwrap_or_else(|| panic!("{name}: {debt}"))
}

/// A fill that stays in RocksDB's memtable, then flush: the fill owes its
/// memtable, the debt it was paid is what the flush wrote, and its w-amp
/// through the debt counts both steps' writes over the fill's bytes.
#[test]
fn a_fill_in_the_memtable_is_paid_for_by_the_flush() {
    let dir = tempfile::tempdir().unwrap();
    let v = run(&["-e", "rocksdb", "-s", "fillrandom,flush", "-n", "20000", "-o", "write_buffer_size=64M"], dir.path());
    let fill = step(&v, "fillrandom");
    let flush = step(&v, "flush");
    let debt = &fill["write_debt"];
    assert!(owed(debt, "memtable_bytes") > 20000 * 100, "the fill's entries are in the memtable: {debt}");
    assert_eq!(owed(debt, "l0_files"), 0, "nothing was flushed during the fill: {debt}");
    assert_eq!(debt["paid_by"], serde_json::json!(["flush"]));
    let flushed = flush["metrics"]["process_write_bytes"].as_u64().unwrap();
    assert!(flushed > 256 << 10, "the flush wrote the memtable's SST: {}", flush["metrics"]);
    assert_eq!(debt["paid_process_bytes"].as_u64(), Some(flushed), "the debt paid is what the flush wrote");
    let own = fill["metrics"]["process_write_bytes"].as_u64().unwrap();
    let logical = fill["metrics"]["logical_bytes_written"].as_u64().unwrap() as f64;
    let through = debt["write_amp_process"].as_f64().unwrap();
    assert!((through - (own + flushed) as f64 / logical).abs() < 1e-9, "{debt}");
    assert!(through > fill["metrics"]["write_amp_process"].as_f64().unwrap());
    // A flush is not a settle: compactions it starts are not waited for.
    assert_eq!(debt["settled"], false);
    assert!(fill["notes"].to_string().contains("write debt: it owed memtable_bytes"), "{}", fill["notes"]);
}

/// settle = true (--settle) ends every config with a settle step, which
/// settles the last write step's account; an engine that writes in place
/// owes nothing.
#[test]
fn settle_pays_the_last_debt_and_lmdb_owes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let v =
        run(&["-e", "rocksdb", "-s", "fillseq,readrandom", "-n", "20000", "--seconds", "1", "--settle"], dir.path());
    let names: Vec<&str> =
        v["configs"][0]["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["fillseq", "readrandom", "settle"]);
    let debt = &step(&v, "fillseq")["write_debt"];
    assert_eq!(debt["paid_by"], serde_json::json!(["readrandom", "settle"]));
    assert_eq!(debt["settled"], true, "{debt}");
    assert!(debt.get("unsettled").is_none(), "{debt}");

    let dir = tempfile::tempdir().unwrap();
    let v = run(&["-e", "lmdb", "-s", "fillrandom", "-n", "5000"], dir.path());
    let debt = &step(&v, "fillrandom")["write_debt"];
    assert_eq!(debt["owed_at_end"], serde_json::json!([]), "{debt}");
    assert!(debt.get("unsettled").is_none(), "an engine that owes nothing needs no settle: {debt}");
    // SplinterDB cannot say what it owes: unknown, with why.
    let dir = tempfile::tempdir().unwrap();
    let v = run(&["-e", "splinterdb", "-s", "fillrandom", "-n", "5000"], dir.path());
    let debt = &step(&v, "fillrandom")["write_debt"];
    assert!(debt["owed_unknown"].as_str().is_some_and(|w| w.contains("does not expose")), "{debt}");
}

/// settle where it cannot apply is refused before anything starts.
#[test]
fn settle_where_it_cannot_apply_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["-e", "lmdb", "-s", "ycsb-load,ycsb-a", "--records", "1000", "--settle"][..],
        &["-e", "lmdb", "-s", "ycsb-load,settle"][..],
    ] {
        let o = cli::rumbench_run().args(args).arg("--output-dir").arg(dir.path().join("out")).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("apply to db_bench-style steps"), "{err}");
        assert!(!dir.path().join("out").exists(), "nothing started");
    }
}

/// A write step interrupted by SIGINT still has its write debt: the engine
/// is as alive as after a completed step, and is asked what it owes.
#[test]
fn an_interrupted_fill_still_says_what_it_owes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut child = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "fillrandom", "-n", "100000000", "--seconds", "60"])
        .args(["-o", "write_buffer_size=256M", "--output-dir"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(4));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let v = cli::load(&out);
    let fill = step(&v, "fillrandom");
    assert_eq!(fill["status"], "interrupted", "{fill}");
    let debt = &fill["write_debt"];
    assert!(owed(debt, "memtable_bytes") > 0, "the interrupted fill's memtable is owed: {debt}");
}
