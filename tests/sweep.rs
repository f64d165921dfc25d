//! Concurrency sweeps through the binary: `--threads` with six counts runs
//! the step once per count and fits the Universal Scalability Law.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

#[test]
fn six_thread_counts_on_the_null_engine() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("rumbench")
        .unwrap()
        .args(["run", "--progress", "off", "--no-history", "-e", "null", "-s", "readrandom", "-n", "100000", "--seconds", "0.5"])
        .args(["-t", "1,2,3,4,6,8", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap()).unwrap();
    let c = &v["configs"][0];
    let names: Vec<&str> = c["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["readrandom@t1", "readrandom@t2", "readrandom@t3", "readrandom@t4", "readrandom@t6", "readrandom@t8"]);
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
