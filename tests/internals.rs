//! The engine's own counters each second (`--internals`) through the real
//! binary: RocksDB's in result.json and intervals.csv beside the rates, a
//! forced stall shown with them, and an engine without counters saying why.

use serde_json::Value;

use crate::common::cli::{load, run_ok};

fn missing_internals(s: &Value) -> Option<String> {
    s["metrics"]["missing"].as_array()?.iter().find(|m| m["metric"] == "internals").map(|m| m["reason"].to_string())
}

#[test]
fn rocksdb_counters_are_sampled_each_second_beside_the_rates() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    // Small memtables and low L0 triggers: writes slow down within seconds.
    run_ok(
        &[
            "-e",
            "rocksdb,lmdb",
            "-s",
            "fillrandom",
            "-n",
            "3000000",
            "--seconds",
            "4",
            "-o",
            "rocksdb.write_buffer_size=1M",
            "-o",
            "rocksdb.level0_slowdown_writes_trigger=2",
            "-o",
            "rocksdb.level0_stop_writes_trigger=4",
        ],
        &dir,
    );
    let r = load(&dir);
    let rocks = &r["configs"][0]["steps"][0];
    let i = &rocks["internals"];
    let names: Vec<&str> = i["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    for n in [
        "pending_compaction_bytes",
        "l0_files",
        "memtable_bytes",
        "running_flushes",
        "running_compactions",
        "stall_us_per_s",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let samples = i["samples"].as_array().unwrap();
    // One at the start, one a second for 4 s, one at the end.
    assert!((5..=7).contains(&samples.len()), "{}", samples.len());
    let col = |name: &str| names.iter().position(|n| *n == name).unwrap();
    let l0_max = samples.iter().filter_map(|s| s["values"][col("l0_files")].as_f64()).fold(0.0, f64::max);
    assert!(l0_max >= 1.0, "level-0 files appeared: {l0_max}");
    assert!(missing_internals(rocks).is_none());

    let csv = std::fs::read_to_string(dir.join("intervals.csv")).unwrap();
    let engine_rows: Vec<&str> = csv.lines().filter(|l| l.starts_with("rocksdb,rocksdb,fillrandom,engine,")).collect();
    assert_eq!(engine_rows.len(), samples.len() * names.len() - 1, "every value but the rate at 0 s");
    assert!(engine_rows.iter().any(|l| l.contains(",engine,l0_files,2,")), "{engine_rows:?}");
    assert!(!csv.contains("lmdb,lmdb,fillrandom,engine,"));

    let lmdb = &r["configs"][1]["steps"][0];
    assert!(lmdb.get("internals").is_none());
    let why = missing_internals(lmdb).expect("a reason");
    assert!(why.contains("lmdb: rumbench samples no counters"), "{why}");
}

#[test]
fn internals_off_samples_nothing_and_says_so() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    run_ok(&["-e", "rocksdb", "-s", "fillseq", "-n", "20000", "--internals", "off"], &dir);
    let s = &load(&dir)["configs"][0]["steps"][0];
    assert!(s.get("internals").is_none());
    assert!(missing_internals(s).unwrap().contains("--internals off"));
}
