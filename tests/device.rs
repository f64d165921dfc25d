//! `rumbench device`: a real fio run (short, small file), its figures read
//! back, the test file removed, and what cannot be measured said plainly.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

fn rumbench() -> Command {
    Command::cargo_bin("rumbench").unwrap()
}

#[test]
fn a_short_real_fio_run_gives_every_figure_and_leaves_nothing_behind() {
    let t = tempfile::tempdir().unwrap();
    let o = rumbench().args(["device", "--size", "32M", "--runtime", "1", "--json", "--dir"]).arg(t.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let fio = &v["fio"];
    assert!(fio["fio_version"].as_str().unwrap().starts_with("fio-"), "{fio}");
    let reads = fio["random_reads"].as_array().unwrap();
    assert_eq!(reads.len(), 12);
    assert!(reads.iter().all(|p| p["iops"].as_f64().unwrap() > 0.0), "{fio}");
    for k in ["seq_write_mb_s", "random_write_4k_iops", "fdatasync_per_s"] {
        assert!(fio[k].as_f64().unwrap() > 0.0, "{k}: {fio}");
    }
    assert!(v["device"]["examined"].is_string(), "the device under the dir is named: {v}");
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0, "fio's test file and job are removed");
}

#[test]
fn bad_input_is_refused_and_a_missing_fio_is_said() {
    let t = tempfile::tempdir().unwrap();
    for (args, expected) in [(&["--size", "0"][..], "--size 0"), (&["--size", "lots"][..], "--size lots")] {
        let o = rumbench().arg("device").args(args).arg("--dir").arg(t.path()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(expected), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = rumbench().args(["device", "--dir"]).arg(t.path().join("missing")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a directory"));
    let o = rumbench().args(["device", "--size", "2M", "--dir"]).arg(t.path()).env("PATH", t.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fio is not installed"), "{err}");
    assert!(o.stdout.is_empty(), "no figure printed: {}", String::from_utf8_lossy(&o.stdout));
}
