//! Running the real binary in a test: `rumbench run` without progress or
//! history, into a directory of the test's, and its result read back.

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

/// `rumbench run --progress off --no-history ARGS --output-dir DIR`, which
/// must succeed (its stderr otherwise in the failure).
pub fn run_ok(args: &[&str], dir: &Path) -> Output {
    let out = Command::cargo_bin("rumbench")
        .unwrap()
        .args(["run", "--progress", "off", "--no-history"])
        .args(args)
        .arg("--output-dir")
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "rumbench {args:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// `rumbench run --progress off --no-history ARGS` refused before anything
/// starts: exit code 2, one line on stderr, no output directory written.
/// Returns stderr, for what the line says.
pub fn refused(args: &[&str]) -> String {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let o = Command::cargo_bin("rumbench")
        .unwrap()
        .args(["run", "--progress", "off", "--no-history"])
        .args(args)
        .arg("--output-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
    assert!(!out.exists(), "{args:?}: nothing written");
    err
}

/// A run directory's result.json.
pub fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// Runs `cmd` with its results written to `out_dir`, whatever its outcome.
pub fn run_into(cmd: &mut Command, out_dir: &Path) -> Output {
    cmd.arg("--output-dir").arg(out_dir).output().unwrap()
}

/// A finished command's stdout and stderr together, for assertions and messages.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}
