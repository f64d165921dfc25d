//! `--slo` through the real binary: on the null engine with a known service
//! time the search finds its capacity, the summary shows the search, and
//! what cannot be searched is refused in one line (exit 2).

use crate::common::cli::{load, refused, run_ok};

#[test]
fn finds_the_capacity_of_a_known_service_time() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    // 50 us per call on one client: 20,000 ops/s; p90 stays at the service time up to it.
    run_ok(
        &[
            "-e",
            "null",
            "-o",
            "spin_ns=50000",
            "-s",
            "fillseq,readrandom",
            "-n",
            "10000",
            "--seconds",
            "0.5",
            "--slo",
            "p90=5ms",
        ],
        &dir,
    );
    let r = load(&dir);
    let s = r["configs"][0]["steps"].as_array().unwrap().iter().find(|s| s["name"] == "readrandom").unwrap();
    let slo = &s["slo"];
    let rate = slo["rate_ops_s"].as_f64().unwrap();
    // A shared 2-core machine: the client's own cost and noise take a little.
    assert!((15_000.0..=21_000.0).contains(&rate), "rate found {rate}: {slo}");
    let probes = slo["probes"].as_array().unwrap();
    assert!(probes.len() >= 3, "{slo}");
    assert!(probes[0]["offered_ops_s"].is_null(), "the first probe is the closed loop");
    assert_eq!(s["parameters"]["slo"], "p90=5000us");
    assert!(s["notes"].to_string().contains("SLO search:"), "{}", s["notes"]);
    let summary = std::fs::read_to_string(dir.join("summary.txt")).unwrap();
    assert!(summary.contains("throughput under latency targets"), "{summary}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(r#"id="slo""#) && html.contains("against the offered rate"));
}

#[test]
fn refuses_what_cannot_be_searched_in_one_line() {
    for (args, says) in [
        (vec!["-s", "fillseq,readrandom", "--slo", "p98=1ms"], "p99.99"),
        (vec!["-s", "fillseq,readrandom", "--slo", "p99=1ms", "--rate", "100"], "without --rate"),
        (vec!["-s", "ycsb-load,ycsb-a", "--slo", "p99=1ms"], "--slo applies to"),
        (vec!["-s", "fillseq,readrandom", "--slo", "p99=1ms", "--slo-width", "0"], "--slo-width"),
    ] {
        let err = refused(&[&["-e", "null"][..], &args[..]].concat());
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
