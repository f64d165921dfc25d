//! The contention steps through the real binary: the hot-row grid and
//! randomtransaction on engines with transactions and on the servers
//! rumbench starts (small scale), and the refusal of engines without them.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::cli;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// Run with `args` into `dir`; it must succeed. Its output and result.json.
fn run_ok(args: &[&str], dir: &Path) -> (Output, Value) {
    let out = cli::rumbench_run().args(args).arg("-d").arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    (out, load(dir))
}

fn steps(v: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for c in v["configs"].as_array().unwrap() {
        for s in c["steps"].as_array().unwrap() {
            out.push((c["name"].as_str().unwrap().to_string(), s["name"].as_str().unwrap().to_string(), s));
        }
    }
    out
}

#[test]
fn hot_row_grid_on_postgres_and_innodb() {
    let dir = tempfile::tempdir().unwrap();
    let (out, v) = run_ok(
        &[
            "-e",
            "postgres",
            "-e",
            "mariadb-innodb",
            "-s",
            "hotrow",
            "--hot-tables",
            "1,2",
            "-t",
            "1,2",
            "--hot-rows",
            "5000",
            "--ops",
            "300",
        ],
        dir.path(),
    );
    let names: Vec<(String, String)> = steps(&v).into_iter().map(|(c, s, _)| (c, s)).collect();
    for config in ["postgres", "mariadb-innodb"] {
        // Cells with fewer clients than tables are skipped, as in the published grid.
        for step in ["hotrow@T1@t1", "hotrow@T1@t2", "hotrow@T2@t2"] {
            assert!(names.contains(&(config.to_string(), step.to_string())), "{config} {step}: {names:?}");
        }
        assert!(!names.contains(&(config.to_string(), "hotrow@T2@t1".to_string())));
    }
    for (c, s, step) in steps(&v) {
        assert_eq!(step["status"], "completed", "{c} {s}: {}", step["error"]);
        assert_eq!(step["ops"], 300, "{c} {s}");
        assert!(
            step["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().contains("went up by exactly the 300")),
            "{c} {s}"
        );
        assert_eq!(step["parameters"]["tables"], if s.starts_with("hotrow@T2") { 2 } else { 1 });
    }
    // The matrix: rows tables, columns clients, in the terminal and in summary.md.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("postgres hot-row updates/s (rows: tables, columns: clients"), "{stdout}");
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        md.contains("### mariadb-innodb: hot-row updates/s")
            && md.contains("| tables | 1 clients | p99 us | 2 clients | p99 us |"),
        "{md}"
    );
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("postgres: hot-row grid"));
}

#[test]
fn randomtransaction_keeps_every_set_sum_equal_on_every_engine_and_server() {
    let dir = tempfile::tempdir().unwrap();
    let engines = [
        "-e",
        "rocksdb",
        "-e",
        "rocksdb:optimistic",
        "-e",
        "lmdb",
        "-e",
        "sqlite",
        "-e",
        "postgres",
        "-e",
        "mariadb-innodb",
    ];
    let step = ["-s", "randomtransaction", "-t", "4", "--num", "200", "--ops", "2000", "--transaction-sets", "3"];
    let (_, v) = run_ok(&[&engines[..], &step[..]].concat(), dir.path());
    let all = steps(&v);
    assert_eq!(all.len(), 6);
    for (c, s, step) in all {
        assert_eq!(step["status"], "completed", "{c} {s}: {}", step["error"]);
        assert_eq!(step["ops"], 2000);
        assert!(
            step["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().starts_with("check: all 3 sets sum to")),
            "{c}: {}",
            step["notes"]
        );
        assert_eq!(step["ops_by_type"][0]["op"], "TRANSACTION");
    }
    // rocksdb without a preset opened a TransactionDB for the step that needs one.
    let rocks = &v["configs"][0];
    assert!(
        rocks["effective_options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|kv| kv[0] == "transactions" && kv[1].as_str().unwrap().starts_with("pessimistic")),
        "{}",
        rocks["effective_options"]
    );
}

#[test]
fn engines_without_transactions_are_refused_before_anything_runs() {
    for (engine, extra) in [("null", vec![]), ("leveldb", vec![]), ("rocksdb", vec!["-o", "transactions=none"])] {
        let dir = tempfile::tempdir().unwrap();
        let out = cli::rumbench_run()
            .args(["-e", engine, "-s", "randomtransaction"])
            .args(&extra)
            .arg("-d")
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{engine}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("needs transactions") && err.contains(engine), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!dir.path().join("out").exists());
    }
}
