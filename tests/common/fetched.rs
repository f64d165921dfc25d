//! What the tests of fetched server versions share (tests/pg_versions.rs,
//! tests/mariadb_versions.rs): one cache kept under the test target dir, so
//! that the suite downloads a version once, not once per test; the switch
//! that skips them offline; the servers a run left under a directory; a
//! config's provenance entry.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli::{self, Isolation};

/// The cache the tests share (kept between runs of the suite).
pub fn cache_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-cache")
}

/// `rumbench run --progress off --no-history` with the tests' shared cache.
pub fn rumbench() -> Command {
    let mut c = cli::rumbench_run();
    c.cache_in(&cache_home());
    c
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// RUMBENCH_OFFLINE=1 skips the tests that need `registry` (said so).
pub fn offline(registry: &str) -> bool {
    if std::env::var_os("RUMBENCH_OFFLINE").is_some() {
        eprintln!("skipped: RUMBENCH_OFFLINE is set (these tests need {registry})");
        return true;
    }
    false
}

/// Command lines naming `dir` of processes whose command line holds one of `programs`.
pub fn processes_under(dir: &Path, programs: &[&str]) -> Vec<String> {
    let needle = dir.to_string_lossy().to_string();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if !e.file_name().to_str().is_some_and(|s| s.chars().all(|c| c.is_ascii_digit())) {
            continue;
        }
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else { continue };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(&needle) && programs.iter().any(|p| cmd.contains(p)) {
            out.push(cmd);
        }
    }
    out
}

/// No such process is left under `dir` (given 10 s to go).
pub fn assert_no_server_under(dir: &Path, programs: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_under(dir, programs).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left = processes_under(dir, programs);
    assert!(left.is_empty(), "server processes left running: {left:?}");
}

/// A config's provenance entry `key` (the test fails without it).
pub fn prov<'a>(config: &'a Value, key: &str) -> &'a str {
    config["provenance"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0] == key)
        .and_then(|p| p[1].as_str())
        .unwrap_or_else(|| panic!("no {key} in {}", config["provenance"]))
}
