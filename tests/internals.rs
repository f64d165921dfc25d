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
            "rocksdb,null",
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
    assert!(!csv.contains("null,null,fillrandom,engine,"));

    let null = &r["configs"][1]["steps"][0];
    assert!(null.get("internals").is_none());
    let why = missing_internals(null).expect("a reason");
    assert!(why.contains("null: rumbench samples no counters"), "{why}");
}

/// The counters' names and, for each, the largest value any sample gave.
fn maxima(step: &Value) -> Vec<(String, f64)> {
    let i = &step["internals"];
    let names = i["names"].as_array().unwrap_or_else(|| panic!("no internals: {step}"));
    names
        .iter()
        .enumerate()
        .map(|(col, n)| {
            let max =
                i["samples"].as_array().unwrap().iter().filter_map(|s| s["values"][col].as_f64()).fold(0.0, f64::max);
            (n.as_str().unwrap().to_string(), max)
        })
        .collect()
}

fn max_of(m: &[(String, f64)], name: &str) -> f64 {
    m.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} not in {m:?}")).1
}

#[test]
fn the_servers_counters_are_sampled_beside_the_rates() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    run_ok(
        &[
            "-e",
            "postgres,mariadb-innodb,mariadb-myrocks",
            "-s",
            "l.i0,l.i1",
            "--rows",
            "100000",
            "--insert-rows",
            "50000",
        ],
        &dir,
    );
    let r = load(&dir);
    let step = |config: usize, i: usize| {
        let s = &r["configs"][config]["steps"][i];
        assert!(missing_internals(s).is_none(), "{s}");
        maxima(s)
    };
    let pg = step(0, 0);
    assert!(max_of(&pg, "wal_bytes_per_s") > 1e6, "{pg:?}");
    for n in ["dead_tuples", "autovacuums_per_s", "autovacuum_workers", "checkpoints_per_s", "backend_buffers_per_s"] {
        max_of(&pg, n);
    }
    let innodb = step(1, 1);
    assert!(max_of(&innodb, "redo_bytes_per_s") > 1e6, "{innodb:?}");
    assert!(max_of(&innodb, "dirty_pages") > 0.0, "{innodb:?}");
    for n in ["history_list_length", "checkpoint_age_bytes", "row_lock_waits_per_s"] {
        max_of(&innodb, n);
    }
    let myrocks = step(2, 0);
    assert!(max_of(&myrocks, "memtable_bytes") > 1e6, "{myrocks:?}");
    assert!(max_of(&myrocks, "wal_bytes_per_s") > 0.0, "{myrocks:?}");
    max_of(&myrocks, "stall_us_per_s");

    let csv = std::fs::read_to_string(dir.join("intervals.csv")).unwrap();
    for prefix in [
        "postgres,postgres,l.i1,engine,wal_bytes_per_s,",
        "postgres,postgres,l.i0,engine,dead_tuples,",
        "mariadb-innodb,mariadb-innodb,l.i0,engine,history_list_length,",
        "mariadb-myrocks,mariadb-myrocks,l.i1,engine,stall_us_per_s,",
    ] {
        assert!(csv.lines().any(|l| l.starts_with(prefix)), "{prefix} in intervals.csv");
    }
}

#[test]
fn the_embedded_engines_say_what_they_expose() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    run_ok(
        &[
            "-e",
            "sqlite,lmdb,splinterdb",
            "-s",
            "fillrandom",
            "-n",
            "200000",
            "--seconds",
            "2",
            "-o",
            "splinterdb.use_stats=true",
        ],
        &dir,
    );
    let r = load(&dir);
    let sqlite = maxima(&r["configs"][0]["steps"][0]);
    assert!(max_of(&sqlite, "wal_pending_bytes") > 0.0 && max_of(&sqlite, "db_file_bytes") > 0.0, "{sqlite:?}");
    let lmdb = maxima(&r["configs"][1]["steps"][0]);
    assert!(max_of(&lmdb, "commits_per_s") > 0.0 && max_of(&lmdb, "map_used_bytes") > 0.0, "{lmdb:?}");
    let splinter = maxima(&r["configs"][2]["steps"][0]);
    assert!(max_of(&splinter, "file_in_use_bytes") > 0.0, "{splinter:?}");
    max_of(&splinter, "cache_write_bytes_per_s");
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
