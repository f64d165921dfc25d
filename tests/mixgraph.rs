//! mixgraph and open-loop clients through the real binary: the op mix,
//! key ranges and value sizes of a preset on RocksDB, a sine-paced run whose
//! seconds follow the rate it planned, `--rate` on a read step, and the
//! refusals (exit 2, one line) of what db_bench would not run.

use serde_json::Value;

use crate::common::cli::{load, refused, run_ok};

fn step<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["configs"][0]["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

fn ops_of(s: &Value, op: &str) -> u64 {
    s["ops_by_type"].as_array().unwrap().iter().find(|o| o["op"] == op).map_or(0, |o| o["ops"].as_u64().unwrap())
}

#[test]
fn prefix_dist_draws_the_papers_mix_ranges_and_value_sizes() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    run_ok(
        &[
            "-e",
            "rocksdb",
            "-s",
            "fillseq,mixgraph",
            "-n",
            "30000",
            "--ops",
            "60000",
            "--mixgraph",
            "preset=prefix_dist",
        ],
        &dir,
    );
    let r = load(&dir);
    let s = step(&r, "mixgraph");
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(s["parameters"]["mixgraph"], "preset=prefix_dist");
    let (gets, puts, seeks) = (ops_of(s, "get"), ops_of(s, "put"), ops_of(s, "seek"));
    let total = (gets + puts + seeks) as f64;
    assert_eq!(s["ops"].as_u64().unwrap(), 60_000);
    for (n, want) in [(gets, 0.85), (puts, 0.14), (seeks, 0.01)] {
        assert!((n as f64 / total - want).abs() < 0.01, "get/put/seek {gets}/{puts}/{seeks}");
    }
    let mg = &s["mixgraph"];
    let accesses: Vec<u64> = mg["key_range_accesses"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let shares: Vec<f64> = mg["model_range_shares"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!((accesses.len(), shares.len()), (30, 30));
    assert_eq!(accesses.iter().sum::<u64>(), 60_000, "every operation counted in its range");
    for (i, (a, share)) in accesses.iter().zip(&shares).enumerate() {
        assert!((*a as f64 / 60_000.0 - share).abs() < 0.01, "range {i}: {a} accesses against a share of {share}");
    }
    let mean = mg["value_sizes"]["mean"].as_f64().unwrap();
    assert!((30.0..40.0).contains(&mean), "the paper's value sizes average about 35 bytes: {mean}");
    assert_eq!(mg["value_sizes"]["count"].as_u64().unwrap(), puts);
    assert_eq!(mg["scan_lengths"]["count"].as_u64().unwrap(), seeks);
    // Its puts are its writes: w-amp is measured over their bytes.
    let written = s["metrics"]["logical_bytes_written"].as_u64().unwrap() as f64;
    let want = puts as f64 * (16.0 + mean);
    assert!((written / want - 1.0).abs() < 1e-6, "the puts' keys and values: {written} bytes, {want} expected");
}

#[test]
fn a_sine_paced_run_follows_its_planned_rate_each_second() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    // 4000 + 2000 sin(t), set every 500 ms, for 4 s on 2 clients.
    run_ok(
        &[
            "-e",
            "rocksdb",
            "-s",
            "fillseq,mixgraph",
            "-n",
            "20000",
            "--seconds",
            "4",
            "-t",
            "2",
            "--mixgraph",
            "preset=all_dist,sine_mix_rate=true,sine_a=2000,sine_b=1,sine_d=4000,sine_mix_rate_interval_milliseconds=500",
        ],
        &dir,
    );
    let r = load(&dir);
    let s = step(&r, "mixgraph");
    assert_eq!(s["status"], "completed", "{s}");
    let target: Vec<f64> =
        s["mixgraph"]["target_ops_s"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(target.len() >= 4, "{target:?}");
    let mut per_second = vec![0u64; target.len()];
    for op in s["ops_by_type"].as_array().unwrap() {
        for iv in op["intervals"].as_array().unwrap() {
            per_second[iv["index"].as_u64().unwrap() as usize] += iv["ops"].as_u64().unwrap();
        }
    }
    for sec in 0..4 {
        let got = per_second[sec] as f64;
        assert!((got / target[sec] - 1.0).abs() < 0.05, "second {sec}: {got} ops against {:.0} planned", target[sec]);
    }
    assert!(s["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("paced open-loop at the sine rate")));
    assert!(
        s["warnings"].as_array().unwrap().iter().all(|w| !w.as_str().unwrap().contains("missed its sine rate")),
        "{s}"
    );
}

#[test]
fn rate_paces_the_read_step_and_not_the_fill() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    run_ok(&["-e", "rocksdb", "-s", "fillseq,readrandom", "-n", "20000", "--seconds", "2", "--rate", "3000"], &dir);
    let r = load(&dir);
    let fill = step(&r, "fillseq");
    assert!(fill["settings"].get("rate").is_none(), "the run's --rate leaves the fill as fast as it goes");
    let read = step(&r, "readrandom");
    assert_eq!(read["parameters"]["rate"], 3000.0);
    let ops_s = read["ops_s"].as_f64().unwrap();
    assert!((ops_s / 3000.0 - 1.0).abs() < 0.05, "paced at 3000 ops/s: {ops_s}");
    assert!(read["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with("open loop")));
}

#[test]
fn refuses_what_db_bench_would_not_run_in_one_line() {
    for (args, says) in [
        (vec!["-s", "fillseq,mixgraph", "--mixgraph", "mix_get_ratio=0"], "positive sum"),
        (vec!["-s", "fillseq,mixgraph", "--mixgraph", "preset=nope"], "unknown mixgraph preset"),
        (vec!["-s", "fillseq,mixgraph", "--mixgraph", "key_dist=1"], "unknown mixgraph setting"),
        (vec!["-s", "fillseq,mixgraph", "-n", "10", "--mixgraph", "keyrange_num=30"], "keyrange_num"),
        (vec!["-s", "fillseq,mixgraph", "--rate", "100", "--mixgraph", "sine_mix_rate=true,sine_d=100"], "give one"),
        (vec!["-s", "fillseq,readseq", "--rate", "100"], "readseq"),
        (vec!["-s", "ycsb-load,ycsb-a", "--rate", "100"], "--rate applies to"),
        (vec!["-s", "fillseq,readrandom", "--rate", "0.5"], "--rate"),
    ] {
        let err = refused(&[&["-e", "null"][..], &args[..]].concat());
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
