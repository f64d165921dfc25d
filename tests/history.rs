//! The local history: rebuilt from result directories, filtered listings,
//! history ids in compare and report, and `run` recording itself.

use crate::common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::cli::Isolation;
use common::*;

/// rumbench whose default history is under `db`'s directory (`xdg/`), where
/// a test sees whether a command created it.
fn rumbench(db: &Path) -> Command {
    let mut c = cli::rumbench();
    c.data_in(&db.parent().unwrap().join("xdg"));
    c
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn with_engine(
    started: &str,
    name: &str,
    engine: &str,
    version: &str,
    steps: Vec<StepSpec>,
) -> rumbench::result::RunResult {
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
    save(
        &with_engine(
            "2025-01-10T09:00:00+00:00",
            "rocksdb",
            "rocksdb",
            "7.8.3",
            vec![StepSpec::steady("readrandom", "get", 100_000, 5)],
        ),
        &root.join("r1"),
    );
    save(
        &with_engine(
            "2025-02-10T09:00:00+00:00",
            "rocksdb",
            "rocksdb",
            "8.1.0",
            vec![StepSpec::steady("readrandom", "get", 60_000, 5)],
        ),
        &root.join("nested/r2"),
    );
    save(
        &with_engine(
            "2025-03-10T09:00:00+00:00",
            "lmdb",
            "lmdb",
            "0.9.70",
            vec![StepSpec::steady("fillseq", "put", 300_000, 5)],
        ),
        &root.join("r3"),
    );
    // Not a result: skipped with a warning, the rebuild goes on.
    std::fs::create_dir_all(root.join("junk")).unwrap();
    std::fs::write(root.join("junk/result.json"), "{not json").unwrap();

    let out = rumbench(&db).args(["history", "rebuild"]).arg(&root).arg("--history").arg(&db).output().unwrap();
    let text = ok(out.clone());
    assert!(text.contains("3 runs indexed"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: skipped"), "junk must be reported");

    assert_eq!(application_id(&db), RUMBENCH_APPLICATION_ID, "a history rumbench creates carries its mark");
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
    save(
        &with_engine(
            "2025-04-10T09:00:00+00:00",
            "sqlite",
            "sqlite",
            "3.50.2",
            vec![StepSpec::steady("readrandom", "get", 300_000, 5)],
        ),
        &root.join("r4"),
    );
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
    assert_eq!(application_id(&db), RUMBENCH_APPLICATION_ID, "a history rumbench creates carries its mark");
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

/// rumbench's mark on its history database: PRAGMA application_id, "RUMB" in ASCII.
const RUMBENCH_APPLICATION_ID: i32 = i32::from_be_bytes(*b"RUMB");

/// The schema of histories written before rumbench marked them (application_id 0).
const LEGACY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dir TEXT NOT NULL UNIQUE,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    rumbench_version TEXT NOT NULL,
    git_commit TEXT,
    suite TEXT,
    hostname TEXT,
    command_line TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_configs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    engine TEXT NOT NULL,
    engine_version TEXT,
    options TEXT NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS run_steps (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    config_seq INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    step TEXT NOT NULL,
    status TEXT NOT NULL,
    ops_s REAL,
    p99_us REAL,
    PRIMARY KEY (run_id, config_seq, seq)
);
CREATE INDEX IF NOT EXISTS run_configs_engine ON run_configs(engine);
CREATE INDEX IF NOT EXISTS run_steps_step ON run_steps(step);
";

fn application_id(db: &Path) -> i32 {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.pragma_query_value(None, "application_id", |r| r.get(0)).unwrap()
}

/// Every file in `dir` with its bytes (a journal left beside a database shows up too).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Exit code 2 and one `rumbench: error:` line on stderr; returns that line.
fn refused(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}\nstdout: {}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("rumbench: error: "), "{err}");
    err
}

/// A user's SQLite database at `path` made by `sql`.
fn user_db(path: &Path, sql: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    rusqlite::Connection::open(path).unwrap().execute_batch(sql).unwrap();
}

#[test]
fn a_file_that_is_not_a_rumbench_history_is_refused_and_left_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    save(
        &with_engine(
            "2025-01-10T09:00:00+00:00",
            "rocksdb",
            "rocksdb",
            "7.8.3",
            vec![StepSpec::steady("readrandom", "get", 100_000, 5)],
        ),
        &results.join("r1"),
    );

    // Each file alone in its directory, so that anything created beside it shows too.
    let users = tmp.path().join("users");
    let own_runs = users.join("own-runs/app.sqlite");
    user_db(&own_runs, "CREATE TABLE runs (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO runs (note) VALUES ('keep me'), ('and me');");
    let other_tables = users.join("other-tables/app.sqlite");
    user_db(
        &other_tables,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine');",
    );
    let rumbench_tables_and_more = users.join("rumbench-tables-and-more/app.sqlite");
    user_db(
        &rumbench_tables_and_more,
        &format!("{LEGACY_SCHEMA} CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');"),
    );
    let other_application = users.join("other-application/app.sqlite");
    user_db(&other_application, &format!("{LEGACY_SCHEMA} PRAGMA application_id = 1234;"));
    let text_file = users.join("text/notes.txt");
    std::fs::create_dir_all(text_file.parent().unwrap()).unwrap();
    std::fs::write(&text_file, "not a database, but the user's\n".repeat(200)).unwrap();
    let empty_file = users.join("empty/empty.sqlite");
    std::fs::create_dir_all(empty_file.parent().unwrap()).unwrap();
    std::fs::write(&empty_file, "").unwrap();

    for file in [&own_runs, &other_tables, &rumbench_tables_and_more, &other_application, &text_file, &empty_file] {
        let before = snapshot(file.parent().unwrap());
        let run_dir = tmp.path().join("run-out");
        let html = tmp.path().join("r.html");
        let os = |s: &[&str]| s.iter().map(OsString::from).collect::<Vec<_>>();
        let commands: Vec<Vec<OsString>> = vec![
            [
                os(&["run", "--progress", "off", "-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"]),
                vec![run_dir.clone().into()],
            ]
            .concat(),
            os(&["history"]),
            os(&["history", "changes"]),
            [os(&["history", "rebuild"]), vec![results.clone().into()]].concat(),
            os(&["compare", "#1"]),
            [os(&["report", "#1", "-o"]), vec![html.clone().into()]].concat(),
            os(&["export", "#1", "-f", "markdown"]),
        ];
        for args in commands {
            let out = rumbench(file).args(&args).arg("--history").arg(file).output().unwrap();
            let what = format!("{args:?} on {}", file.display());
            let err = refused(&out);
            assert!(
                err.contains(&format!("{} is not a rumbench history", file.display())) && err.contains("--history"),
                "{what}: {err}"
            );
            assert_eq!(snapshot(file.parent().unwrap()), before, "{what} changed the user's file");
            // `run` refuses it before anything runs.
            assert!(!run_dir.exists(), "{what}: the run started");
            assert!(!html.exists(), "{what}");
        }
    }
    let conn = rusqlite::Connection::open(&own_runs).unwrap();
    let notes: Vec<String> = conn
        .prepare("SELECT note FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(notes, ["keep me", "and me"]);
}

#[test]
fn read_only_commands_create_no_history() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("absent/dir/h.sqlite");
    for args in [
        &["history"][..],
        &["history", "changes"],
        &["compare", "#1", "#2"],
        &["report", "#1"],
        &["export", "#1", "-f", "tsv"],
    ] {
        let out = rumbench(&db).args(args).arg("--history").arg(&db).output().unwrap();
        assert!(refused(&out).contains(&format!("no history database at {}", db.display())), "{args:?}");
        assert!(!tmp.path().join("absent").exists(), "{args:?} created the history's directory");
        // The default history ($XDG_DATA_HOME/rumbench/history.sqlite) is not created either.
        let out = rumbench(&db).args(args).output().unwrap();
        assert!(refused(&out).contains("no history database at"), "{args:?}");
        assert!(!tmp.path().join("absent").exists(), "{args:?} created the default history's directory");
    }
}

#[test]
fn a_history_from_before_the_mark_is_read_untouched_and_adopted_when_written() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let r1 = results.join("r1");
    save(
        &with_engine(
            "2025-01-10T09:00:00+00:00",
            "rocksdb",
            "rocksdb",
            "7.8.3",
            vec![StepSpec::steady("readrandom", "get", 100_000, 5)],
        ),
        &r1,
    );
    let db = tmp.path().join("old/history.sqlite");
    user_db(&db, LEGACY_SCHEMA);
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO runs (id, dir, started_at, status, rumbench_version, command_line, recorded_at) VALUES (7, ?1, '2025-01-10T09:00:00+00:00', 'completed', '0.1.0', '[]', '2025-01-10T10:00:00+00:00')",
            [r1.canonicalize().unwrap().to_string_lossy()],
        )
        .unwrap();
    let before = snapshot(db.parent().unwrap());

    // Reading neither marks nor changes it.
    let list = ok(rumbench(&db).arg("history").arg("--history").arg(&db).output().unwrap());
    assert_eq!(ids(&list), ["#7"], "{list}");
    ok(rumbench(&db).args(["export", "#7", "-f", "tsv", "--history"]).arg(&db).output().unwrap());
    assert_eq!(snapshot(db.parent().unwrap()), before);

    // Writing adopts it: marked, known runs keep their ids.
    save(
        &with_engine(
            "2025-02-10T09:00:00+00:00",
            "lmdb",
            "lmdb",
            "0.9.70",
            vec![StepSpec::steady("fillseq", "put", 300_000, 5)],
        ),
        &results.join("r2"),
    );
    let text = ok(rumbench(&db).args(["history", "rebuild"]).arg(&results).arg("--history").arg(&db).output().unwrap());
    assert!(text.contains("2 runs indexed"), "{text}");
    assert_eq!(application_id(&db), RUMBENCH_APPLICATION_ID);
    assert_eq!(ids(&ok(rumbench(&db).arg("history").arg("--history").arg(&db).output().unwrap())), ["#7", "#8"]);
    let text = ok(rumbench(&db)
        .args(["run", "--progress", "off", "-e", "null", "-s", "fillseq", "-n", "100", "--history"])
        .arg(&db)
        .arg("--output-dir")
        .arg(tmp.path().join("run"))
        .output()
        .unwrap());
    assert!(text.contains("history: run #9 in"), "{text}");
}

/// A run of the synthetic history: readrandom at `read` ops/s and fillseq at `fill`, on `host`.
fn history_run(
    day: u32,
    hour: u32,
    host: &str,
    commit: &str,
    version: &str,
    read: f64,
    fill: f64,
) -> rumbench::result::RunResult {
    let steps =
        vec![StepSpec::steady("fillseq", "put", fill as u64, 5), StepSpec::steady("readrandom", "get", read as u64, 5)];
    let mut r = with_engine(&format!("2025-01-{day:02}T{hour:02}:00:00+00:00"), "rocksdb", "rocksdb", version, steps);
    r.git_commit = Some(commit.into());
    r.system.as_mut().unwrap()["hostname"] = serde_json::json!({ "value": host });
    r
}

#[test]
fn changes_finds_the_run_where_a_figure_shifted_and_names_what_differed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("results");
    let db = tmp.path().join("h.sqlite");
    // 16 runs on one machine: readrandom drops from 100000 to 70000 ops/s at
    // the 9th, with a new engine version and commit; fillseq stays flat.
    let noise = [1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.0];
    for i in 0..16u32 {
        let (read, commit, version) =
            if i < 8 { (100_000.0, "aaaa111", "7.8.3") } else { (70_000.0, "bbbb222", "8.1.0") };
        let n = noise[i as usize % 8];
        save(
            &history_run(i + 1, 9, "testhost", commit, version, read * n, 300_000.0 * noise[(i as usize + 3) % 8]),
            &root.join(format!("r{:02}", i + 1)),
        );
    }
    // Another machine's run in between, far off either level: never mixed into the series.
    save(&history_run(5, 12, "otherhost", "aaaa111", "7.8.3", 10_000.0, 20_000.0), &root.join("other"));
    ok(rumbench(&db).args(["history", "rebuild"]).arg(&root).arg("--history").arg(&db).output().unwrap());
    let changes = |args: &[&str]| {
        ok(rumbench(&db).args(["history", "changes"]).args(args).arg("--history").arg(&db).output().unwrap())
    };

    // Ids in start order: days 1-5 are #1-#5, the other host's run #6, days 6-16 #7-#17.
    let text = changes(&["--step", "readrandom"]);
    assert!(
        text.contains(
            "rocksdb readrandom ops_s: config rocksdb, machine testhost (Synthetic CPU @ 2.0GHz), 16 runs (#1 .. #17)"
        ),
        "{text}"
    );
    assert!(
        text.contains("  change at #10: median 100000 -> 70000.0 ops/s (x0.70, 8 runs before, 8 after, p="),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "    before: #9 2025-01-08 09:00 {}",
            root.join("r08").canonicalize().unwrap().display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "    after:  #10 2025-01-09 09:00 {}",
            root.join("r09").canonicalize().unwrap().display()
        )),
        "{text}"
    );
    assert!(
        text.contains("    differed: rumbench commit aaaa111 -> bbbb222; engine version 7.8.3 -> 8.1.0\n"),
        "{text}"
    );
    assert_eq!(text.matches("change at").count(), 1, "{text}");
    assert!(
        text.ends_with("1 change point in 1 series (17 runs); 1 series with fewer than 6 runs not searched\n"),
        "{text}"
    );
    // The default metric is ops/s, over every step: the flat fillseq has none.
    let all = changes(&[]);
    assert_eq!(all.matches("change at").count(), 1, "{all}");
    assert!(all.contains("rocksdb readrandom ops_s") && !all.contains("rocksdb fillseq ops_s"), "{all}");
    let flat = changes(&["--step", "fillseq"]);
    assert!(flat.starts_with("no change points in 1 series (17 runs)"), "{flat}");
    // p99 did not move (the synthetic runs all have the same latencies).
    assert!(changes(&["--step", "readrandom", "--metric", "p99_us"]).starts_with("no change points"));
    assert!(changes(&["--engine", "lmdb"]).starts_with("no change points in 0 series (0 runs)"));

    let bad = rumbench(&db).args(["history", "changes", "--metric", "speed", "--history"]).arg(&db).output().unwrap();
    assert!(refused(&bad).contains("unknown metric 'speed' (one of: ops_s, "));
    let bad = rumbench(&db).args(["history", "changes", "--significance", "2", "--history"]).arg(&db).output().unwrap();
    refused(&bad);
}
