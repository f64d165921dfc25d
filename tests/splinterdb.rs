//! The splinterdb engine through the real binary: listed with its options,
//! refusals at plan time (a cache too small for the memtables, a disk too
//! small for the data, write batches, multi-key transactions), every write
//! step ND with the reason, the db_bench-style steps, YCSB A-F and hot rows,
//! the crash test's row, the comparison suite run small, and key order `hash`
//! against the keys splinter_test's own key function made
//! (tests/fixtures/splinterdb/splinter_test_keys.txt, bench/splinterdb_keys.sh).

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::cli::{self, refused};

fn run(args: &[&str], out: &Path) -> Output {
    cli::rumbench()
        .arg("run")
        .args(["--progress", "off", "--no-history"])
        .args(args)
        .arg("--output-dir")
        .arg(out)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn run_ok(args: &[&str], out: &Path) -> Value {
    let o = run(args, out);
    assert!(o.status.success(), "rumbench run {args:?} failed:\n{}", text(&o));
    serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap()
}

fn steps(r: &Value) -> &Vec<Value> {
    r["configs"][0]["steps"].as_array().unwrap()
}

fn step<'a>(r: &'a Value, name: &str) -> &'a Value {
    steps(r).iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no step {name}"))
}

fn notes(s: &Value) -> Vec<String> {
    s["notes"].as_array().map(|a| a.iter().map(|n| n.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

#[test]
fn it_is_listed_with_its_options_and_build() {
    let o = cli::rumbench().args(["engines", "splinterdb"]).output().unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for want in [
        "cache_size",
        "default 1G",
        "disk_size",
        "memtable_capacity",
        "default 24M",
        "fanout",
        "num_memtable_bg_threads",
        "num_normal_bg_threads",
        "direct_io",
        "page_size",
        "extent_size",
        "filter_hash_size",
        "filter_log_index_size",
        "use_log",
        "build.platform_assert: on",
        "-march=native",
        "d2173e0e",
    ] {
        assert!(t.contains(want), "{want} not in:\n{t}");
    }
    let all = text(&cli::rumbench().arg("engines").output().unwrap());
    assert!(all.contains("splinterdb"), "{all}");
}

#[test]
fn a_cache_too_small_and_a_disk_too_small_are_refused_in_one_line() {
    let e = refused(&["-e", "splinterdb", "-o", "cache_size=32M", "-s", "fillseq", "-n", "1000"]);
    assert!(e.contains("cache_size=32M is below 3 x memtable_capacity") && e.contains("stall"), "{e}");
    let e = refused(&["-e", "splinterdb", "-o", "disk_size=256M", "-s", "fillseq", "-n", "2000000"]);
    assert!(
        e.contains("disk_size=256M cannot hold what this run keeps and writes") && e.contains("Out of Space"),
        "{e}"
    );
    // The same disk holds a smaller run.
    let t = tempfile::tempdir().unwrap();
    run_ok(
        &[
            "-e",
            "splinterdb",
            "-o",
            "disk_size=256M",
            "-o",
            "memtable_capacity=4M",
            "-o",
            "cache_size=64M",
            "-s",
            "fillseq",
            "-n",
            "20000",
        ],
        &t.path().join("ok"),
    );
}

#[test]
fn what_splinterdb_lacks_is_refused_at_plan_time_with_the_reason() {
    let e = refused(&["-e", "splinterdb", "-s", "fillrandom", "--batch-size", "10", "-n", "1000"]);
    assert!(e.contains("needs write batches") && e.contains("--batch-size 1"), "{e}");
    let e = refused(&["-e", "splinterdb", "-s", "randomtransaction", "--seconds", "1", "-n", "1000"]);
    assert!(e.contains("needs multi-key transactions"), "{e}");
    let e = refused(&["-e", "splinterdb", "-s", "l.i0", "--rows", "1000"]);
    assert!(e.contains("needs write batches"), "{e}");
}

/// Every db_bench-style step a key-value engine runs, each write step ND with
/// SplinterDB's reason, flush and waitforcompaction saying how they were done.
#[test]
fn every_dbbench_step_runs_and_every_write_step_is_nd_with_the_reason() {
    let t = tempfile::tempdir().unwrap();
    let all = "fillseq,fillrandom,filluniquerandom,overwrite,readrandom,multireadrandom,readseq,fwdrange,revrange,readwhilewriting,fwdrangewhilewriting,deleterandom,flush,waitforcompaction,fill";
    let r = run_ok(
        &[
            "-e",
            "splinterdb",
            "-o",
            "memtable_capacity=4M",
            "-o",
            "cache_size=64M",
            "-s",
            all,
            "-n",
            "20000",
            "--seconds",
            "0.5",
            "--writer-rate",
            "2000",
        ],
        &t.path().join("r"),
    );
    assert_eq!(r["configs"][0]["status"], "completed", "{}", r["configs"][0]);
    for s in steps(&r) {
        let name = s["name"].as_str().unwrap();
        assert_eq!(s["status"], "completed", "{name}: {s}");
        let writes = [
            "fillseq",
            "fillrandom",
            "filluniquerandom",
            "overwrite",
            "readwhilewriting",
            "fwdrangewhilewriting",
            "deleterandom",
            "fill",
        ]
        .contains(&name);
        let n = notes(s);
        let reason = n.iter().any(|x| x.contains("calls no fsync, fdatasync or msync"));
        assert_eq!(reason, writes, "{name}: {n:?}");
        if writes {
            let syncs = &s["metrics"]["syncs"];
            assert_eq!(syncs["durable_as_run"], false, "{name}: {syncs}");
            assert_eq!(
                syncs["fsync"].as_u64().unwrap()
                    + syncs["fdatasync"].as_u64().unwrap()
                    + syncs["msync"].as_u64().unwrap(),
                0,
                "{name}"
            );
            let warned =
                s["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().starts_with("not durable as run"));
            assert!(warned, "{name}: {s}");
        }
    }
    assert!(notes(step(&r, "flush")).iter().any(|n| n.contains("no call flushes its memtable")));
    assert!(notes(step(&r, "waitforcompaction")).iter().any(|n| n.contains("quiescent")));
    assert!(step(&r, "fwdrange")["ops"].as_u64().unwrap() > 0);
    // Provenance: upstream's release build, not warned about as a debug build.
    let prov = r["configs"][0]["provenance"].to_string();
    assert!(prov.contains("build.platform_assert") && prov.contains("-O3"), "{prov}");
    assert!(!r.to_string().contains("built with assertions on"), "the debug-build warning fired");
}

#[test]
fn ycsb_a_to_f_and_the_hot_row_workload_run() {
    let t = tempfile::tempdir().unwrap();
    let r = run_ok(
        &[
            "-e",
            "splinterdb",
            "-o",
            "memtable_capacity=4M",
            "-o",
            "cache_size=64M",
            "-s",
            "ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f",
            "--records",
            "5000",
            "--ops",
            "3000",
            "--threads",
            "2",
        ],
        &t.path().join("y"),
    );
    for s in steps(&r) {
        assert_eq!(s["status"], "completed", "{s}");
    }
    assert!(notes(step(&r, "ycsb-f")).iter().any(|n| n.contains("a get and a put")));
    let r = run_ok(
        &[
            "-e",
            "splinterdb",
            "-o",
            "memtable_capacity=4M",
            "-o",
            "cache_size=64M",
            "-s",
            "hotrow",
            "--hot-rows",
            "1000",
            "--hot-tables",
            "1,2",
            "--threads",
            "1,2,4",
            "--seconds",
            "0.5",
        ],
        &t.path().join("h"),
    );
    let cells: Vec<&Value> = steps(&r).iter().filter(|s| s["name"].as_str().unwrap().starts_with("hotrow@")).collect();
    assert!(cells.len() >= 4, "{cells:?}");
    for c in cells {
        // The step fails when the counters moved by other than the updates acknowledged.
        assert_eq!(c["status"], "completed", "{c}");
        assert!(notes(c).iter().any(|n| n.contains("per-key lock")), "{c}");
    }
}

#[test]
fn the_crash_test_gives_its_row() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("ct");
    let o = cli::rumbench()
        .args(["crashtest", "-e", "splinterdb", "--crashes", "2", "--kill-after", "300,600", "--seed", "7", "-d"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
    let c = &r["crashtest"]["configs"][0];
    assert_eq!(c["status"], "completed", "{c}");
    let acked = c["totals"]["acknowledged"].as_u64().unwrap();
    assert!(acked > 0, "{c}");
    // Nothing is synced and the file's name is never made durable: a power cut leaves nothing.
    assert_eq!(c["totals"]["lost"].as_u64().unwrap(), acked, "{c}");
    assert!(c["totals"]["verdict"].as_str().unwrap().starts_with("not durable"), "{c}");
    assert!(text(&o).contains("Durability matrix"));
}

#[test]
fn the_comparison_suite_runs_small_with_its_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = tempfile::tempdir().unwrap();
    for suite in ["splinterdb-vs-rocksdb", "splinterdb-vs-rocksdb-io-bound"] {
        let path = root.join("suites").join(format!("{suite}.toml"));
        let out = t.path().join(suite);
        // Small: 20,000 keys fit every cache, so only that each variant runs through is checked here.
        let args = ["-c", path.to_str().unwrap(), "-n", "20000", "--ops", "20000", "--seconds", "0.5"];
        let r = run_ok(&args, &out);
        let configs = r["configs"].as_array().unwrap();
        assert_eq!(
            configs.iter().map(|c| c["name"].as_str().unwrap()).collect::<Vec<_>>(),
            ["splinterdb", "rocksdb-leveled", "rocksdb-universal"]
        );
        for c in configs {
            assert_eq!(c["status"], "completed", "{c}");
            let opts = c["effective_options"].to_string();
            if c["engine"] == "rocksdb" {
                assert!(opts.contains("\"WriteOptions.disableWAL\",\"true\""), "{opts}");
            }
        }
        let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
        let table =
            summary.split("engine comparison:").nth(1).unwrap_or_else(|| panic!("no comparison table:\n{summary}"));
        for name in ["splinterdb", "rocksdb-leveled", "rocksdb-universal"] {
            let row = table
                .lines()
                .find(|l| l.starts_with(&format!("{name} ")))
                .unwrap_or_else(|| panic!("no row {name}:\n{table}"));
            // inserts/s, point/s and range/s were measured.
            let cells: Vec<&str> = row.split_whitespace().collect();
            for c in &cells[2..5] {
                assert!(c.parse::<f64>().is_ok_and(|x| x > 0.0), "{row}");
            }
            assert!(row.ends_with(" ND"), "no engine syncs: {row}");
        }
    }
}

/// rumbench's key order `hash` gives exactly the keys splinter_test's own key
/// function made, in its order (the fixture), and a run with it writes them.
#[test]
fn key_order_hash_is_splinter_tests_keys() {
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/splinterdb/splinter_test_keys.txt"),
    )
    .unwrap();
    let keys: Vec<(u64, Vec<u8>)> = fixture
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (i, hex) = l.split_once(' ').unwrap();
            (
                i.parse().unwrap(),
                (0..hex.len()).step_by(2).map(|j| u8::from_str_radix(&hex[j..j + 2], 16).unwrap()).collect(),
            )
        })
        .collect();
    assert_eq!(keys.len(), 1000);
    let ks = rumbench::datagen::KeySpace { n: 1000, hashed: true };
    for (i, key) in &keys {
        let mut ours = vec![0xaau8; key.len()];
        ks.encode_into(*i, &mut ours);
        assert_eq!(&ours, key, "key {i}");
    }
    // The real binary: fill in key order hash, kept, then read back with SplinterDB itself.
    let t = tempfile::tempdir().unwrap();
    let db = t.path().join("db");
    run_ok(
        &[
            "-e",
            "splinterdb",
            "-o",
            "memtable_capacity=4M",
            "-o",
            "cache_size=64M",
            "-s",
            "fill",
            "--key-order",
            "hash",
            "--key-size",
            "24",
            "-n",
            "1000",
            "--keep-db",
            "--db-dir",
            db.to_str().unwrap(),
        ],
        &t.path().join("r"),
    );
    let file = db.join("splinterdb").join("splinterdb.db");
    let cfg = splinterdb_sys::Config {
        cache_size: 64 << 20,
        disk_size: 0,
        page_size: 0,
        extent_size: 0,
        direct_io: false,
        io_async_queue_depth: 256,
        num_memtable_bg_threads: 0,
        num_normal_bg_threads: 0,
        filter_hash_size: 26,
        filter_log_index_size: 9,
        use_log: false,
        memtable_capacity: 4 << 20,
        fanout: 8,
        use_stats: false,
        queue_scale_percent: 0,
    };
    let d = splinterdb_sys::Db::open(&file, &cfg).unwrap();
    let mut written = Vec::new();
    d.scan(&[], false, usize::MAX, &mut |k, _| {
        written.push(k.to_vec());
        true
    })
    .unwrap();
    let mut want: Vec<Vec<u8>> = keys.into_iter().map(|(_, k)| k).collect();
    want.sort();
    assert_eq!(written, want, "the database holds exactly splinter_test's 1000 keys");
}
