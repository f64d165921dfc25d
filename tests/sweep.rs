//! Concurrency sweeps through the binary: `--threads` with six counts runs
//! the step once per count and fits the Universal Scalability Law.

use std::path::Path;

use serde_json::Value;

use crate::common::cli;

/// `rumbench run ARGS --output-dir DIR`; it must succeed. Its stdout and result.json.
fn run_ok(args: &[&str], dir: &Path) -> (String, Value) {
    let out = cli::run_ok(args, dir);
    let v = cli::load(dir);
    (String::from_utf8_lossy(&out.stdout).to_string(), v)
}

#[test]
fn six_thread_counts_on_the_null_engine() {
    let dir = tempfile::tempdir().unwrap();
    let (text, v) = run_ok(
        &["-e", "null", "-s", "readrandom", "-n", "100000", "--seconds", "0.5", "-t", "1,2,3,4,6,8"],
        dir.path(),
    );
    let c = &v["configs"][0];
    let names: Vec<&str> = c["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["readrandom@t1", "readrandom@t2", "readrandom@t3", "readrandom@t4", "readrandom@t6", "readrandom@t8"]
    );
    for (s, t) in c["steps"].as_array().unwrap().iter().zip([1, 2, 3, 4, 6, 8]) {
        assert_eq!(s["settings"]["threads"], t);
    }
    let sc = &c["scaling"][0];
    assert_eq!(sc["step"], "readrandom");
    let points = sc["points"].as_array().unwrap();
    assert_eq!(points.len(), 6);
    assert_eq!(points[0]["efficiency"], 1.0);
    for (p, s) in points.iter().zip(c["steps"].as_array().unwrap()) {
        assert_eq!(p["ops_s"], s["ops_s"]);
    }
    let fit = &sc["fit"];
    assert!(fit["lambda"].as_f64().unwrap() > 0.0, "{sc}");
    assert!(fit["sigma"].as_f64().unwrap() >= 0.0 && fit["kappa"].as_f64().unwrap() >= 0.0, "{sc}");
    assert!(fit["r_squared"].as_f64().unwrap().is_finite(), "{sc}");
    assert!(text.contains("concurrency sweeps") && text.contains("null readrandom: lambda"), "{text}");
}

/// The sweep's HTML report draws the USL chart, and `compare` of two sweeps
/// shows sigma and kappa side by side.
#[test]
fn a_concurrency_sweep_is_charted_and_compared() {
    let run = |dir: &Path| {
        run_ok(&["-e", "null", "-s", "readrandom", "-n", "10000", "--seconds", "0.3", "-t", "1,2,3,4,5,6"], dir)
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run(a.path());
    run(b.path());
    let html = std::fs::read_to_string(a.path().join("report.html")).unwrap();
    assert!(html.contains(r#"<section id="scaling">"#), "no sweep section");
    let scaling = &html[html.find(r#"<section id="scaling">"#).unwrap()..];
    let scaling = &scaling[..scaling.find("</section>").unwrap()];
    assert_eq!(scaling.matches(r#"<circle class="point""#).count(), 6, "one dot per thread count");
    assert!(html.contains("<title>linear scaling"));
    assert!(std::fs::read_to_string(a.path().join("summary.md")).unwrap().contains("## Concurrency sweeps"));
    let out = cli::rumbench().arg("compare").arg(a.path()).arg(b.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Universal Scalability Law fitted on each side"), "{text}");
    let sides: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("readrandom ") && (l.contains(" base ") || l.contains(" new ")))
        .collect();
    assert_eq!(sides.len(), 2, "{text}");
}

/// `--sweep` makes one config per value, named after it, and the reports
/// show each against the first (the base).
#[test]
fn a_config_sweep_is_named_and_reported_relative_to_its_base() {
    let dir = tempfile::tempdir().unwrap();
    let (text, v) = run_ok(
        &[
            "-e",
            "rocksdb,null",
            "-s",
            "fillrandom,readrandom",
            "-n",
            "20000",
            "--sweep",
            "rocksdb.max_subcompactions=1,2",
            "--sweep",
            "rocksdb.cache_type=lru,hyper_clock",
        ],
        dir.path(),
    );
    let configs = v["configs"].as_array().unwrap();
    let names: Vec<&str> = configs.iter().map(|c| c["name"].as_str().unwrap()).collect();
    let base = "rocksdb-max_subcompactions-1-cache_type-lru";
    assert_eq!(
        names,
        [
            base,
            "rocksdb-max_subcompactions-1-cache_type-hyper_clock",
            "rocksdb-max_subcompactions-2-cache_type-lru",
            "rocksdb-max_subcompactions-2-cache_type-hyper_clock",
            "null"
        ]
    );
    assert_eq!(configs[3]["sweep"], serde_json::json!([["max_subcompactions", "2"], ["cache_type", "hyper_clock"]]));
    assert_eq!(configs[3]["options"]["max_subcompactions"], "2");
    // The engine opened what the sweep asked for.
    let effective = configs[3]["effective_options"].to_string();
    assert!(effective.contains("max_subcompactions") && effective.contains("HyperClockCache"), "{effective}");
    assert!(configs[4].get("sweep").is_none());
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    for t in [&text, &summary] {
        assert!(t.contains("Config sweep: rocksdb max_subcompactions, cache_type"), "{t}");
        assert!(t.contains(&format!("  base = {base}: max_subcompactions=1, cache_type=lru\n")), "{t}");
        assert!(t.contains("  c3 = rocksdb-max_subcompactions-2-cache_type-hyper_clock: max_subcompactions=2, cache_type=hyper_clock\n"), "{t}");
    }
    let ops_row = summary.lines().find(|l| l.starts_with("readrandom") && l.contains("ops/s")).expect("an ops/s row");
    let ratios = ops_row
        .split_whitespace()
        .filter(|w| w.len() == 4 && w.as_bytes()[1] == b'.' && w.parse::<f64>().is_ok())
        .count();
    assert_eq!(ratios, 3, "three configs against the base: {ops_row}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        html.contains(r#"<section id="config-sweep">"#)
            && html.contains("max_subcompactions=2, cache_type=hyper_clock")
    );
    assert!(std::fs::read_to_string(dir.path().join("summary.md"))
        .unwrap()
        .contains("## Config sweep: rocksdb max_subcompactions, cache_type"));
}

/// Each point starts on a settled engine (after the fill, and after a point
/// that wrote), the points' order rotates by round, points beyond the cores
/// are marked, and the repeats merge into one table of medians.
#[test]
fn sweep_points_are_settled_rotated_marked_and_merged() {
    let dir = tempfile::tempdir().unwrap();
    let (text, v) = run_ok(
        &[
            "-e",
            "rocksdb",
            "-s",
            "fillrandom,readrandom,overwrite",
            "-n",
            "20000",
            "--seconds",
            "0.3",
            "-t",
            "1,2",
            "--repeat",
            "2",
        ],
        dir.path(),
    );
    let configs = v["configs"].as_array().unwrap();
    let names = |c: &Value| {
        c["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(names(&configs[0]), ["fillrandom", "readrandom@t1", "readrandom@t2", "overwrite@t1", "overwrite@t2"]);
    assert_eq!(
        names(&configs[1]),
        ["fillrandom", "readrandom@t2", "readrandom@t1", "overwrite@t2", "overwrite@t1"],
        "round 2 rotates each sweep"
    );
    let notes = |c: &Value, i: usize| {
        c["steps"][i]["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    let settled = |c: &Value, i: usize| {
        notes(c, i).iter().any(|n| n.starts_with("settled before this point: flushed and waited for background work"))
    };
    // Round 1: after the fill, not between two reads, before each write point.
    assert_eq!(
        (1..5).map(|i| settled(&configs[0], i)).collect::<Vec<_>>(),
        [true, false, true, true],
        "{:?}",
        configs[0]["steps"]
    );
    assert!(
        notes(&configs[1], 1)
            .iter()
            .any(|n| n == "this sweep's points ran in the order 2, 1 clients (rotated for round 2)"),
        "{:?}",
        notes(&configs[1], 1)
    );
    // Points beyond the cores are oversubscribed, counting RocksDB's 2 background
    // jobs for the writing sweep (overwrite) only.
    let cores = std::thread::available_parallelism().unwrap().get() as u64;
    for (sweep, background) in [(0, 0), (1, 2)] {
        let sc = &configs[0]["scaling"][sweep];
        assert_eq!(sc["step"], ["readrandom", "overwrite"][sweep]);
        for p in sc["points"].as_array().unwrap() {
            let t = p["threads"].as_u64().unwrap();
            assert_eq!(p["oversubscribed"].as_bool().unwrap_or(false), t + background > cores, "{p}");
        }
    }
    assert!(text.contains("rocksdb readrandom, median of 2 repeats"), "{text}");
    let headings = text.lines().filter(|l| l.starts_with("rocksdb readrandom") && l.contains("no fit")).count();
    assert_eq!(headings, 1, "one merged table, not one per repeat: {text}");
}
