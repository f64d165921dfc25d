//! `rumbench device`: a real fio run (short, small file), its figures read
//! back, the test file removed, and what cannot be measured said plainly;
//! the baseline stored in the history and a run's ceilings computed from it.

use std::path::Path;

use rumbench::measure::device_baseline::{key_of, StoredBaseline};
use rumbench::report::history::History;

use crate::common::cli;

fn run_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// A small run of rocksdb (fillrandom with sync, readrandom) recorded in `history`.
fn small_run(history: &Path, out: &Path) -> serde_json::Value {
    let o = cli::rumbench()
        .args([
            "run",
            "-e",
            "rocksdb",
            "--steps",
            "fillrandom,readrandom",
            "--num",
            "3000",
            "-o",
            "sync=true",
            "--progress",
            "off",
            "--history",
        ])
        .arg(history)
        .arg("-d")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    run_json(out)
}

#[test]
fn a_short_real_fio_run_gives_every_figure_is_stored_and_gives_a_runs_ceilings() {
    let t = tempfile::tempdir().unwrap();
    let h = tempfile::tempdir().unwrap();
    let history = h.path().join("h.sqlite");
    let o = cli::rumbench()
        .args(["device", "--size", "32M", "--runtime", "1", "--json", "--history"])
        .arg(&history)
        .arg("--dir")
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["source"].as_str().unwrap().starts_with("measured now, stored in"), "{v}");
    let fio = &v["baseline"]["fio"];
    assert!(fio["fio_version"].as_str().unwrap().starts_with("fio-"), "{fio}");
    let reads = fio["random_reads"].as_array().unwrap();
    assert_eq!(reads.len(), 12);
    assert!(reads.iter().all(|p| p["iops"].as_f64().unwrap() > 0.0), "{fio}");
    for k in ["seq_write_mb_s", "random_write_4k_iops", "fdatasync_per_s"] {
        assert!(fio[k].as_f64().unwrap() > 0.0, "{k}: {fio}");
    }
    assert!(v["device"]["examined"].is_string(), "the device under the dir is named: {v}");
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0, "fio's test file and job are removed");

    // Asked again within the week: the stored baseline, not a new measurement.
    let o = cli::rumbench().args(["device", "--history"]).arg(&history).arg("--dir").arg(t.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("stored 0.0 days ago; --remeasure measures again"), "{text}");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("measuring"), "no fio run");

    // A run on the same device: every completed step has its ceilings from that baseline.
    let run = small_run(&history, &t.path().join("run"));
    assert_eq!(run["device"]["source"], "history", "{}", run["device"]);
    assert_eq!(run["device"]["baseline"]["fio"], *fio);
    let fill = &run["configs"][0]["steps"][0];
    let c = &fill["ceilings"];
    let resources: Vec<&str> =
        c["ceilings"].as_array().unwrap().iter().map(|x| x["resource"].as_str().unwrap()).collect();
    for r in ["write", "sync", "cpu"] {
        assert!(resources.contains(&r), "a synced fill has a {r} ceiling: {c}");
    }
    let pct = c["pct_of_limit"].as_f64().unwrap();
    assert!(pct > 0.0, "{c}");
    let summary = std::fs::read_to_string(t.path().join("run/summary.txt")).unwrap();
    let bound = format!("{} {pct:.0}%", c["bound"].as_str().unwrap());
    assert!(summary.contains(&bound), "the summary's % of limit says {bound}: {summary}");
    assert!(summary.contains("Limits: each step's ceilings"), "{summary}");
    let html = std::fs::read_to_string(t.path().join("run/report.html")).unwrap();
    assert!(html.contains(r#"<section id="limits">"#) && html.contains("rate and ceilings"), "the roofline chart");
}

#[test]
fn without_a_baseline_the_results_stay_and_say_why_and_a_rate_above_a_ceiling_is_warned_about() {
    let t = tempfile::tempdir().unwrap();
    let h = tempfile::tempdir().unwrap();
    let history = h.path().join("h.sqlite");
    let run = small_run(&history, &t.path().join("none"));
    let why = run["device"]["missing"].as_str().unwrap();
    assert!(why.starts_with("no device baseline of this data dir's device: measure it with `rumbench device"), "{why}");
    for (i, s) in run["configs"][0]["steps"].as_array().unwrap().iter().enumerate() {
        assert!(s["ops_s"].as_f64().unwrap() > 0.0 && s["metrics"]["io"].is_object(), "measured as ever: {s}");
        let c = &s["ceilings"];
        let resources: Vec<&str> =
            c["ceilings"].as_array().unwrap().iter().map(|x| x["resource"].as_str().unwrap()).collect();
        assert!(resources.iter().all(|r| *r == "cpu"), "only the CPU's ceiling is known: {c}");
        // The synced fill's CPU is measured; 3000 lookups may be below its resolution.
        if i == 0 {
            assert_eq!(resources, ["cpu"], "{c}");
        }
        assert!(
            c["unknown"].as_array().unwrap().iter().any(|u| u.as_str().unwrap().contains("no device baseline")),
            "{c}"
        );
    }

    // A baseline that claims a device far slower than the one the step ran on: the
    // step's rate is above its sync and write ceilings, a measurement error warned about.
    let (key, _) = key_of(&t.path().join("slow")).unwrap();
    let mut fio = rumbench::measure::fio::parse(include_str!("fixtures/fio-3.33-device.json"), 1 << 28, 2).unwrap();
    fio.fdatasync_per_s = 1.0;
    fio.seq_write_mb_s = 0.001;
    let slow = StoredBaseline { device_key: key, measured_at: rumbench::report::now_text(), dir: t.path().into(), fio };
    History::open(&history).unwrap().store_device_baseline(&slow).unwrap();
    let run = small_run(&history, &t.path().join("slow"));
    let fill = &run["configs"][0]["steps"][0];
    let warnings: Vec<&str> = fill["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(warnings.iter().any(|w| w.contains("above the sync ceiling of 1 ")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("above the write ceiling")), "{warnings:?}");
}

#[test]
fn bad_input_is_refused_and_a_missing_fio_is_said() {
    let t = tempfile::tempdir().unwrap();
    for (args, expected) in [(&["--size", "0"][..], "--size 0"), (&["--size", "lots"][..], "--size lots")] {
        let o = cli::rumbench().arg("device").args(args).arg("--dir").arg(t.path()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(expected), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = cli::rumbench().args(["device", "--dir"]).arg(t.path().join("missing")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a directory"));
    let o =
        cli::rumbench().args(["device", "--size", "2M", "--dir"]).arg(t.path()).env("PATH", t.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fio is not installed"), "{err}");
    assert!(o.stdout.is_empty(), "no figure printed: {}", String::from_utf8_lossy(&o.stdout));
    // A run asked to measure first, without fio: refused before anything starts.
    let out = t.path().join("run");
    let o = cli::rumbench()
        .args(["run", "-e", "null", "--device-baseline", "-d"])
        .arg(&out)
        .env("PATH", t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--device-baseline: fio is not installed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists());
}

/// fio processes running a job file in `dir` (fio names it on its command line).
fn fio_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("fio") && c.contains(&needle))
        .collect()
}

#[test]
fn a_stopped_device_measurement_stops_fio_and_removes_its_files() {
    // SIGTERM and SIGHUP to rumbench alone, SIGINT to its process group (Ctrl-C).
    for (sig, group) in [(libc::SIGTERM, false), (libc::SIGHUP, false), (libc::SIGINT, true)] {
        let t = tempfile::tempdir().unwrap();
        let mut cmd = cli::rumbench();
        cmd.args(["device", "--no-history", "--size", "64M", "--runtime", "30", "--dir"]).arg(t.path());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let began = std::time::Instant::now();
        while fio_in(t.path()).is_empty() {
            assert!(began.elapsed() < std::time::Duration::from_secs(30), "fio never started");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        let target = if group { -(child.id() as i32) } else { child.id() as i32 };
        // SAFETY: a signal to the process (group) this test started.
        unsafe { libc::kill(target, sig) };
        let stopped = std::time::Instant::now();
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(128 + sig), "signal {sig}: {err}");
        assert!(
            stopped.elapsed() < std::time::Duration::from_secs(5),
            "stopped at once, not after fio's jobs: {:?}",
            stopped.elapsed()
        );
        assert!(err.contains("fio stopped, its test file removed"), "{err}");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0, "fio's test file and job file are gone");
        // SIGKILLed with its process group: gone once the kernel has ended its IO.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !fio_in(t.path()).is_empty() {
            assert!(std::time::Instant::now() < deadline, "fio left running: {:?}", fio_in(t.path()));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

#[test]
fn files_a_killed_measurement_left_are_removed_by_the_next() {
    let t = tempfile::tempdir().unwrap();
    // As a `rumbench device` killed by SIGKILL leaves them: a pid that is gone.
    for ext in ["fio", "job"] {
        std::fs::write(t.path().join(format!("rumbench-device-999999999.{ext}")), "x").unwrap();
    }
    std::fs::write(t.path().join("users-file.fio"), "mine").unwrap();
    let o = cli::rumbench()
        .args(["device", "--no-history", "--size", "2M", "--runtime", "1", "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("left by an earlier rumbench device that was killed"));
    let left: Vec<String> =
        std::fs::read_dir(t.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    assert_eq!(left, ["users-file.fio"], "only the killed run's files went");
}

#[test]
fn fio_workers_of_a_killed_measurement_are_stopped_by_the_next() {
    let t = tempfile::tempdir().unwrap();
    let mut cmd = cli::rumbench();
    cmd.args(["device", "--no-history", "--size", "64M", "--runtime", "30", "--dir"]).arg(t.path());
    let mut child = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let began = std::time::Instant::now();
    // fio and its worker (which calls setsid: out of fio's process group).
    while fio_in(t.path()).len() < 2 {
        assert!(began.elapsed() < std::time::Duration::from_secs(30), "fio's worker never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SIGKILL, as the OOM killer does: rumbench cannot stop anything itself.
    child.kill().unwrap();
    child.wait().unwrap();
    let o = cli::rumbench()
        .args(["device", "--no-history", "--size", "2M", "--runtime", "1", "--dir"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("left by an earlier rumbench device that was killed"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !fio_in(t.path()).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the killed run's fio left running: {:?}", fio_in(t.path()));
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
}
