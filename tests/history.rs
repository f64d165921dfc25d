//! The local history: rebuilt from result directories, filtered listings,
//! history ids in compare and report, and `run` recording itself.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use common::*;

fn rumbench(db: &Path) -> Command {
    let mut c = Command::cargo_bin("rumbench").unwrap();
    // Never touch the user's own history.
    c.env("XDG_DATA_HOME", db.parent().unwrap().join("xdg"));
    c
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "failed: {}\n{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn with_engine(started: &str, name: &str, engine: &str, version: &str, steps: Vec<StepSpec>) -> rumbench::result::RunResult {
    run(started, vec![config(name, engine, version, &steps)])
}

/// Lines of a listing that are runs (start with #id).
fn ids(listing: &str) -> Vec<String> {
    listing.lines().filter(|l| l.starts_with('#')).map(|l| l.split_whitespace().next().unwrap().to_string()).collect()
}

#[test]
fn rebuild_from_directories_then_filter_and_compare_by_id() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("results");
    let db = tmp.path().join("h/history.sqlite");
    save(&with_engine("2025-01-10T09:00:00+00:00", "rocksdb", "rocksdb", "7.8.3", vec![StepSpec::steady("readrandom", "get", 100_000, 5)]), &root.join("r1"));
    save(&with_engine("2025-02-10T09:00:00+00:00", "rocksdb", "rocksdb", "8.1.0", vec![StepSpec::steady("readrandom", "get", 60_000, 5)]), &root.join("nested/r2"));
    save(&with_engine("2025-03-10T09:00:00+00:00", "lmdb", "lmdb", "0.9.70", vec![StepSpec::steady("fillseq", "put", 300_000, 5)]), &root.join("r3"));
    // Not a result: skipped with a warning, the rebuild goes on.
    std::fs::create_dir_all(root.join("junk")).unwrap();
    std::fs::write(root.join("junk/result.json"), "{not json").unwrap();

    let out = rumbench(&db).args(["history", "rebuild"]).arg(&root).arg("--history").arg(&db).output().unwrap();
    let text = ok(out.clone());
    assert!(text.contains("3 runs indexed"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: skipped"), "junk must be reported");

    let list = |args: &[&str]| ok(rumbench(&db).arg("history").args(args).arg("--history").arg(&db).output().unwrap());
    let all = list(&[]);
    // Ids follow the runs' start times.
    assert_eq!(ids(&all), vec!["#1", "#2", "#3"], "{all}");
    assert!(all.contains("rocksdb 7.8.3") && all.contains("lmdb 0.9.70"), "{all}");
    assert_eq!(ids(&list(&["--engine", "rocksdb"])), vec!["#1", "#2"]);
    assert_eq!(ids(&list(&["--engine", "lmdb"])), vec!["#3"]);
    assert_eq!(ids(&list(&["--version", "8.1"])), vec!["#2"]);
    assert_eq!(ids(&list(&["--config", "lmdb"])), vec!["#3"]);
    assert_eq!(ids(&list(&["--since", "2025-02-01"])), vec!["#2", "#3"]);
    assert_eq!(ids(&list(&["--until", "2025-02-10"])), vec!["#1", "#2"], "--until includes the day");
    assert_eq!(ids(&list(&["--since", "2025-01-15", "--until", "2025-03-01"])), vec!["#2"]);
    let by_step = list(&["--step", "readrandom"]);
    assert_eq!(ids(&by_step), vec!["#1", "#2"]);
    assert!(by_step.contains("readrandom ops/s") && by_step.contains("rocksdb 100000"), "{by_step}");
    assert!(list(&["--engine", "wiredtiger"]).contains("no runs match"));
    let bad = rumbench(&db).args(["history", "--since", "yesterday", "--history"]).arg(&db).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));

    // compare and report accept history ids.
    let cmp = ok(rumbench(&db).args(["compare", "#1", "2", "--history"]).arg(&db).output().unwrap());
    assert!(cmp.contains("REGRESSION"), "{cmp}");
    let html = tmp.path().join("r.html");
    ok(rumbench(&db).args(["report", "#1", "#2", "--history"]).arg(&db).arg("-o").arg(&html).output().unwrap());
    assert!(std::fs::read_to_string(&html).unwrap().contains("r1/rocksdb"));
    let missing = rumbench(&db).args(["compare", "#1", "#9", "--history"]).arg(&db).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no run #9"));

    // Rebuild again after a run directory is removed and one is added: known
    // runs keep their ids, the removed one goes, the new one gets a new id.
    std::fs::remove_dir_all(root.join("nested/r2")).unwrap();
    save(&with_engine("2025-04-10T09:00:00+00:00", "sqlite", "sqlite", "3.50.2", vec![StepSpec::steady("readrandom", "get", 300_000, 5)]), &root.join("r4"));
    let text = ok(rumbench(&db).args(["history", "rebuild"]).arg(&root).arg("--history").arg(&db).output().unwrap());
    assert!(text.contains("1 entries removed"), "{text}");
    let all = list(&[]);
    assert_eq!(ids(&all), vec!["#1", "#3", "#4"], "{all}");

    // A history deleted altogether is recreated from the directories alone.
    std::fs::remove_file(&db).unwrap();
    ok(rumbench(&db).args(["history", "rebuild"]).arg(&root).arg("--history").arg(&db).output().unwrap());
    assert_eq!(ids(&list(&[])), vec!["#1", "#2", "#3"]);
    assert!(list(&[]).contains("sqlite 3.50.2"));
}

#[test]
fn run_records_itself_and_writes_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("hist.sqlite");
    let dir = tmp.path().join("run");
    let out = rumbench(&db)
        .args(["run", "--progress", "off", "-e", "null", "-s", "fillseq,readrandom", "-n", "2000", "--history"])
        .arg(&db)
        .arg("--output-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let text = ok(out);
    assert!(text.contains("history: run #1 in"), "{text}");
    let last = text.lines().last().unwrap();
    assert_eq!(last, format!("report: {}", dir.join("report.html").display()), "the report path comes last");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<table class=\"summary\">") && html.contains("<svg class=\"chart\""));
    for f in ["summary.md", "report.tsv", "intervals.csv"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let list = ok(rumbench(&db).arg("history").arg("--history").arg(&db).output().unwrap());
    assert!(list.contains("null") && list.contains("fillseq,readrandom"), "{list}");

    // A history that cannot be written only warns: the run still succeeds.
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let out = rumbench(&db)
        .args(["run", "--progress", "off", "-e", "null", "-s", "fillseq", "-n", "100", "--history"])
        .arg(blocker.join("h.sqlite"))
        .arg("--output-dir")
        .arg(tmp.path().join("run2"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: not recorded in the history"));
    // --no-history records nothing anywhere.
    let out = rumbench(&db)
        .args(["run", "--progress", "off", "-e", "null", "-s", "fillseq", "-n", "100", "--no-history", "--output-dir"])
        .arg(tmp.path().join("run3"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("history:"));
    assert!(!tmp.path().join("xdg").exists());
}

#[test]
fn export_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("h.sqlite");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    save(&sample_run("2025-03-01T10:00:00+00:00", 1.0), &a);
    save(&sample_run("2025-03-02T10:00:00+00:00", 0.9), &b);
    let md = ok(rumbench(&db).arg("export").arg(&a).arg(&b).args(["--format", "markdown"]).output().unwrap());
    assert!(md.contains("| a/rocksdb |") && md.contains("Relative to a/rocksdb"), "{md}");
    let tsv = ok(rumbench(&db).arg("export").arg(&a).args(["-f", "tsv"]).output().unwrap());
    assert!(tsv.starts_with("ops_sec\tmb_sec\tlsm_sz\t"));
    let csv = ok(rumbench(&db).arg("export").arg(&a).arg(&b).args(["-f", "csv"]).output().unwrap());
    assert!(csv.starts_with("run,config,engine,step,role,op,second,"));
    assert!(csv.contains("\nb,sqlite,sqlite,readwhilewriting,writer,put,"));
    let one = ok(rumbench(&db).arg("export").arg(&a).args(["-f", "csv"]).output().unwrap());
    assert!(one.starts_with("config,engine,step,"));
    let out = tmp.path().join("x.md");
    rumbench(&db).arg("export").arg(&a).args(["-f", "markdown", "-o"]).arg(&out).output().unwrap();
    assert!(std::fs::read_to_string(out).unwrap().starts_with("## rumbench results"));
}
