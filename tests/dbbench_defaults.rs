//! rumbench's RocksDB defaults are db_bench's: a default rumbench run and a
//! default db_bench run of the same RocksDB (bench/build_dbbench.sh builds it
//! into target/dbbench/db_bench) open the database the same way, as both
//! write it down: the OPTIONS file, and the block cache and every `Options.*`
//! line in the LOG.
//!
//! Without db_bench the test says so and passes, unless RUMBENCH_REQUIRE_DBBENCH
//! is set (scripts/test.sh sets it, so CI cannot skip it silently).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use rumbench::engine::rocksdb::parse_options_file;

use crate::common::cli;

/// Where bench/build_dbbench.sh puts db_bench.
fn db_bench() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let path = target.join("dbbench/db_bench");
    if path.is_file() {
        return Some(path);
    }
    if std::env::var_os("RUMBENCH_REQUIRE_DBBENCH").is_some() {
        panic!(
            "{} is missing and RUMBENCH_REQUIRE_DBBENCH is set: build it with bench/build_dbbench.sh",
            path.display()
        );
    }
    // Straight to stderr: the test harness would hide eprintln! of a passing test.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED rocksdb_defaults_are_db_benchs: {} is not built (bench/build_dbbench.sh builds it); set RUMBENCH_REQUIRE_DBBENCH to make this a failure",
        path.display()
    );
    None
}

/// The one OPTIONS-* file in a data dir, as ("Section.name", value) pairs,
/// without what names a path or a listener (db_bench adds its own).
fn options_of(dir: &Path) -> Vec<(String, String)> {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("OPTIONS-"))
        .collect();
    assert_eq!(files.len(), 1, "one OPTIONS file expected in {}: {files:?}", dir.display());
    let dir_text = dir.to_string_lossy();
    parse_options_file(&std::fs::read_to_string(&files[0]).unwrap())
        .into_iter()
        .filter(|(k, v)| !k.ends_with(".listeners") && !v.contains(dir_text.as_ref()))
        .collect()
}

/// The block cache as the LOG describes it: its type and its options
/// (capacity, shard bits, ...), from `block_cache_name:` to the next table option.
fn block_cache_of(dir: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(dir.join("LOG")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let start =
        lines.iter().position(|l| l.trim_start().starts_with("block_cache_name:")).expect("LOG names the block cache");
    let mut out = vec![lines[start].trim().to_string()];
    out.extend(
        lines[start + 1..]
            .iter()
            .take_while(|l| l.starts_with("    ") || l.trim() == "block_cache_options:")
            .map(|l| l.trim().to_string()),
    );
    out
}

/// Every `Options.*` line the LOG prints at open (some, such as the env or
/// the statistics object, are not in the OPTIONS file), without the LOG's
/// time and thread prefix and with object addresses blanked.
fn log_options_of(dir: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(dir.join("LOG")).unwrap();
    let dir_text = dir.to_string_lossy();
    let mut lines: Vec<String> = log
        .lines()
        .filter_map(|l| l.find("Options.").map(|at| &l[at..]))
        .filter(|l| !l.contains(dir_text.as_ref()))
        .map(|l| {
            let words: Vec<String> = l
                .split_whitespace()
                .map(|w| {
                    if w.starts_with("0x") && u64::from_str_radix(&w[2..], 16).is_ok() {
                        "0x…".to_string()
                    } else {
                        w.to_string()
                    }
                })
                .collect();
            words.join(" ")
        })
        .collect();
    lines.dedup();
    lines
}

/// Lines in `a` that `b` lacks, for a readable failure.
fn missing_from(a: &[(String, String)], b: &[(String, String)]) -> Vec<String> {
    a.iter().filter(|kv| !b.contains(kv)).map(|(k, v)| format!("{k}={v}")).collect()
}

#[test]
fn rocksdb_defaults_are_db_benchs() {
    let Some(db_bench) = db_bench() else { return };
    let tmp = tempfile::tempdir().unwrap();

    // The same step on both sides, with nothing but the key count given.
    let theirs_dir = tmp.path().join("db_bench");
    let out = Command::new(&db_bench)
        .arg("--benchmarks=fillrandom")
        .arg("--num=1000")
        .arg(format!("--db={}", theirs_dir.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "db_bench failed:\n{}", String::from_utf8_lossy(&out.stderr));

    let run_dir = tmp.path().join("rumbench");
    let out = cli::rumbench()
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            "rocksdb",
            "-s",
            "fillrandom",
            "-n",
            "1000",
            "--keep-db",
            "--output-dir",
        ])
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "rumbench failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let ours_dir = run_dir.join("db/rocksdb");

    let (theirs, ours) = (options_of(&theirs_dir), options_of(&ours_dir));
    assert!(theirs.len() > 100, "too few options parsed: {theirs:?}");
    let mut differences = Vec::new();
    let (only_theirs, only_ours) = (missing_from(&theirs, &ours), missing_from(&ours, &theirs));
    if !only_theirs.is_empty() || !only_ours.is_empty() {
        differences.push(format!(
            "OPTIONS differ\n  db_bench: {}\n  rumbench: {}",
            only_theirs.join("\n            "),
            only_ours.join("\n            ")
        ));
    }
    let (theirs_cache, ours_cache) = (block_cache_of(&theirs_dir), block_cache_of(&ours_dir));
    if theirs_cache != ours_cache {
        differences.push(format!(
            "block caches differ\n  db_bench: {}\n  rumbench: {}",
            theirs_cache.join(", "),
            ours_cache.join(", ")
        ));
    }
    let (theirs_log, ours_log) = (log_options_of(&theirs_dir), log_options_of(&ours_dir));
    assert!(theirs_log.len() > 100, "too few Options lines in the LOG: {theirs_log:?}");
    let only_theirs: Vec<&String> = theirs_log.iter().filter(|l| !ours_log.contains(l)).collect();
    let only_ours: Vec<&String> = ours_log.iter().filter(|l| !theirs_log.contains(l)).collect();
    if !only_theirs.is_empty() || !only_ours.is_empty() {
        differences
            .push(format!("Options lines of the LOGs differ\n  db_bench: {only_theirs:?}\n  rumbench: {only_ours:?}"));
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
