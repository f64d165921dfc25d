//! sysbench's microbenchmarks through the real binary, on the servers
//! rumbench starts: every step sends what sysbench 1.0.20 sends for it.
//!
//! The fixtures (tests/fixtures/sysbench/{mariadb,postgres}/NAME.log) are
//! the servers' own logs of sysbench running each microbenchmark as
//! mdcallag/mytools' run.sh runs it, 2 events on 1 thread, made by
//! tests/fixtures/sysbench/record.sh (its RECORDED says with what). Here
//! rumbench runs every step for 2 events on 1 thread with the same logs on
//! (MariaDB's general log, PostgreSQL's log_statement=all), and each step's
//! connection is compared with the fixture's: the statements prepared (as a
//! set), then those executed or sent as text, in order. Values are compared
//! by their shape (a number is N; a string keeps its length, its digits
//! '#'): sysbench's values are random, their shapes are not. Left out on
//! both sides: the EXPLAINs mdcallag's oltp_common.lua sends as a
//! connection starts, and what a connection sends that is not sysbench's
//! (the clients' session settings).

use std::path::Path;

use serde_json::Value;

use crate::common::cli;

/// Every microbenchmark and the fixture its statements are checked against
/// (update-zipf is update-nonindex with zipfian ids, which sysbench 1.0.20 lacks).
const STEPS: &[(&str, &str)] = &[
    ("point-query", "point-query"),
    ("random-points", "random-points"),
    ("hot-points", "hot-points"),
    ("points-covered-pk", "points-covered-pk"),
    ("points-covered-si", "points-covered-si"),
    ("points-notcovered-pk", "points-notcovered-pk"),
    ("points-notcovered-si", "points-notcovered-si"),
    ("range-covered-pk", "range-covered-pk"),
    ("range-covered-si", "range-covered-si"),
    ("range-notcovered-pk", "range-notcovered-pk"),
    ("range-notcovered-si", "range-notcovered-si"),
    ("read-only", "read-only"),
    ("read-only-simple", "read-only-simple"),
    ("read-only-sum", "read-only-sum"),
    ("read-only-order", "read-only-order"),
    ("read-only-distinct", "read-only-distinct"),
    ("read-only-count", "read-only-count"),
    ("read-write", "read-write"),
    ("write-only", "write-only"),
    ("scan", "scan"),
    ("update-index", "update-index"),
    ("update-nonindex", "update-nonindex"),
    ("update-one", "update-one"),
    ("update-inlist", "update-inlist"),
    ("update-zipf", "update-nonindex"),
    ("delete", "delete"),
    ("insert", "insert"),
];

/// One log entry: its connection, what it is (Prepare, Execute, Query;
/// PostgreSQL's execute or statement), and its SQL.
#[derive(Debug, Clone)]
struct Entry {
    conn: String,
    command: String,
    sql: String,
}

/// MariaDB's general log: an entry is "[time]\t<id> <Command>\t<argument>",
/// its argument going on over the lines after it.
fn mariadb_entries(log: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for line in log.lines() {
        let head = line.split('\t').collect::<Vec<_>>();
        // "261202 17:54:20\t     5 Connect\t..." or "\t\t     5 Execute\t..."
        let entry = head.iter().position(|f| {
            let f = f.trim();
            f.split_once(' ').is_some_and(|(id, cmd)| {
                id.chars().all(|c| c.is_ascii_digit())
                    && !id.is_empty()
                    && cmd.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            })
        });
        match entry {
            Some(i) if line.starts_with('\t') || line.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                let (id, command) = head[i].trim().split_once(' ').unwrap();
                out.push(Entry { conn: id.into(), command: command.into(), sql: head[i + 1..].join("\t") });
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.sql.push('\n');
                    last.sql.push_str(line);
                }
            }
        }
    }
    out
}

/// PostgreSQL's log with log_line_prefix '@@%c@@': "@@<session>@@LOG:  execute <name>: SQL"
/// or "LOG:  statement: SQL"; DETAIL lines and continuations after.
fn postgres_entries(log: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.strip_prefix("@@") {
            let Some((conn, msg)) = rest.split_once("@@") else { continue };
            let (command, sql) = if let Some(s) = msg.strip_prefix("LOG:  statement: ") {
                ("statement", s)
            } else if let Some(s) = msg.strip_prefix("LOG:  execute ") {
                ("execute", s.split_once(": ").map_or(s, |(_, sql)| sql))
            } else {
                (msg.split_once(':').map_or(msg, |(k, _)| k), "")
            };
            out.push(Entry { conn: conn.into(), command: command.into(), sql: sql.into() });
        } else if let Some(last) = out.last_mut() {
            last.sql.push('\n');
            last.sql.push_str(line);
        }
    }
    out
}

/// SQL by its shape: whitespace collapsed, table numbers and numbers as N,
/// strings with their digits as '#'.
fn shape(sql: &str) -> String {
    let sql = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let mut chars = sql.chars().peekable();
    let mut prev_word = false;
    while let Some(c) = chars.next() {
        if c == '\'' {
            out.push('\'');
            for d in chars.by_ref() {
                if d == '\'' {
                    break;
                }
                out.push(if d.is_ascii_digit() { '#' } else { d });
            }
            out.push('\'');
            prev_word = false;
        } else if c.is_ascii_digit() && !prev_word {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            out.push('N');
            prev_word = false;
        } else if c == '-' && !prev_word && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            // A negative number is a number.
            continue;
        } else {
            prev_word = c.is_ascii_alphanumeric() || c == '_' || c == '$';
            if c.is_ascii_digit() && out.ends_with("sbtest") {
                // sbtest1, sbtest2: one table is like another.
                while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    chars.next();
                }
                out.push('N');
                continue;
            }
            out.push(c);
        }
    }
    out
}

/// What one connection sent of sysbench's: its prepared statements (sorted)
/// and the rest in order, each as "Command: shape".
fn sysbench_part(entries: &[&Entry]) -> (Vec<String>, Vec<String>) {
    let mut prepared = Vec::new();
    let mut sent = Vec::new();
    for e in entries {
        let sql = e.sql.trim();
        let ours = sql.contains("sbtest") || ["BEGIN", "COMMIT", "ROLLBACK"].contains(&sql);
        if !ours || sql.to_ascii_lowercase().starts_with("explain") {
            continue;
        }
        let line = format!("{}: {}", e.command, shape(sql));
        match e.command.as_str() {
            "Prepare" => prepared.push(line),
            "Execute" | "Query" | "execute" | "statement" => sent.push(line),
            _ => {}
        }
    }
    prepared.sort();
    (prepared, sent)
}

/// The connections of `entries` that sent sysbench's statements, in the
/// order they first did, each with its entries.
fn connections(entries: &[Entry]) -> Vec<(String, Vec<&Entry>)> {
    let mut out: Vec<(String, Vec<&Entry>)> = Vec::new();
    for e in entries {
        match out.iter_mut().find(|(c, _)| *c == e.conn) {
            Some((_, list)) => list.push(e),
            None => out.push((e.conn.clone(), vec![e])),
        }
    }
    out.retain(|(_, list)| {
        let (p, s) = sysbench_part(list);
        !(p.is_empty() && s.is_empty())
    });
    out
}

fn fixture(server: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/sysbench/{server}/{name}.log"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn step<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["configs"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// Run every step on `engine` with its statement log on; compare each
/// step's connection with sysbench's.
fn statements_match(engine: &str, server: &str) {
    let dir = tempfile::tempdir().unwrap();
    // MariaDB writes its general log where it is told (the server runs as this user).
    let general = dir.path().join("general.log");
    let config = match server {
        "mariadb" => format!("general_log=1;general_log_file={}", general.display()),
        _ => "log_statement=all;log_line_prefix='@@%c@@'".to_string(),
    };
    let steps: Vec<&str> = STEPS.iter().map(|s| s.0).collect();
    let out = cli::rumbench_run()
        .args(["-e", engine, "-o", &format!("config={config}"), "-s", &steps.join(",")])
        .args(["--tables", "2", "--table-size", "1000", "--ops", "2", "-t", "1", "--metrics", "off"])
        .arg("-d")
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{engine}: {}", cli::text(&out));
    let v = cli::load(&dir.path().join("run"));
    let log = match server {
        "mariadb" => std::fs::read_to_string(&general).unwrap(),
        _ => std::fs::read_to_string(dir.path().join(format!("run/{engine}.server.log"))).unwrap(),
    };
    let entries = if server == "mariadb" { mariadb_entries(&log) } else { postgres_entries(&log) };
    // Before the first step: connections that look for the tables and make
    // them (prepare); then one per step.
    let preparing = |l: &[&Entry]| l.iter().any(|e| e.sql.contains("CREATE TABLE") || e.sql.contains("COUNT(*)"));
    let runs: Vec<_> = connections(&entries).into_iter().filter(|(_, l)| !preparing(l)).collect();
    assert_eq!(
        runs.len(),
        STEPS.len(),
        "{engine}: one connection per step: {:?}",
        runs.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    let mut mismatches = Vec::new();
    for ((name, fixture_name), (_, list)) in STEPS.iter().zip(&runs) {
        let s = step(&v, &format!("{name}_range={}", default_range(name)));
        assert_eq!(s["status"], "completed", "{engine} {name}: {}", s["error"]);
        assert_eq!(s["ops"], 2, "{engine} {name}");
        let theirs = if server == "mariadb" {
            mariadb_entries(&fixture(server, fixture_name))
        } else {
            postgres_entries(&fixture(server, fixture_name))
        };
        let their_conns = connections(&theirs);
        assert_eq!(their_conns.len(), 1, "{server}/{fixture_name}.log: one connection");
        let want = sysbench_part(&their_conns[0].1);
        let got = sysbench_part(list);
        if want != got {
            mismatches.push(format!("{name}:\n  sysbench: {want:#?}\n  rumbench: {got:#?}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{engine}: {} step(s) differ from sysbench's:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// The range all_small.sh runs each step at (the step's name in results).
fn default_range(name: &str) -> u64 {
    match name {
        "random-points" | "read-only" | "read-write" => 10,
        "read-only-simple" | "read-only-sum" | "read-only-order" | "read-only-distinct" | "read-only-count" => 1000,
        "write-only" => 10000,
        _ => 100,
    }
}

#[test]
fn mariadb_steps_send_what_sysbench_sends() {
    statements_match("mariadb-innodb", "mariadb");
}

#[test]
fn postgres_steps_send_what_sysbench_sends() {
    statements_match("postgres", "postgres");
}

#[test]
fn a_range_in_the_name_runs_at_that_range_and_names_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::rumbench_run()
        .args([
            "-e",
            "postgres",
            "-s",
            "read-only_range=5,read-only_range=50,point-query",
            "--tables",
            "1",
            "--table-size",
            "500",
        ])
        .args(["--seconds", "0.5"])
        .arg("-d")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out));
    let v = cli::load(dir.path());
    for (name, range) in [("read-only_range=5", 5), ("read-only_range=50", 50)] {
        let s = step(&v, name);
        assert_eq!(s["status"], "completed", "{name}: {}", s["error"]);
        assert_eq!(s["parameters"]["range_size"], range, "{name}");
        assert!(s["ops"].as_u64().unwrap() > 0, "{name}");
        let note = s["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .find(|n| n.starts_with("sysbench read-only"))
            .unwrap();
        // 10 point selects and 4 ranges in BEGIN .. COMMIT: 16 queries per event.
        assert!(note.contains("16.0 queries"), "{note}");
        assert!(note.contains(&format!("--range-size={range}")), "{note}");
    }
    let s = step(&v, "point-query_range=100");
    assert_eq!(s["ops_by_type"][0]["op"], "event");
    assert_eq!(s["parameters"]["lua"], "oltp_point_select.lua --skip-trx");
}

/// Deletes on a small table soon find their rows gone: such an event
/// writes no WAL, its commit has nothing to sync, and the durability check
/// counts only the events that changed a row (PostgreSQL 15, Debian's, which
/// counts its WAL syncs exactly: one per commit that wrote).
#[test]
fn events_that_change_no_row_are_not_counted_as_commits_to_sync() {
    let dir = tempfile::tempdir().unwrap();
    cli::run_ok(
        &["-e", "postgres", "-s", "delete", "--tables", "1", "--table-size", "200", "--ops", "2000"],
        dir.path(),
    );
    let v = cli::load(dir.path());
    let s = step(&v, "delete_range=100");
    assert_eq!(s["ops"], 2000);
    let notes = s["notes"].to_string();
    assert!(notes.contains("events changed no row"), "{notes}");
    let syncs = &s["metrics"]["syncs"];
    let commits = syncs["commits"].as_u64().unwrap();
    // At most the 200 rows there were can be deleted.
    assert!((1..=200).contains(&commits), "{syncs}");
    assert_eq!(syncs["durable_as_run"], true, "{syncs}");
    assert!(s["warnings"].as_array().is_none_or(|w| w.iter().all(|w| !w.to_string().contains("not durable"))), "{s}");
}

#[test]
fn sysbench_steps_where_they_cannot_run_are_refused_in_one_line() {
    let e = cli::refused(&["-e", "rocksdb", "-s", "point-query"]);
    assert!(e.contains("point-query needs SQL, which rocksdb does not offer"), "{e}");
    let e = cli::refused(&["-e", "postgres", "-s", "scan_range=10"]);
    assert!(e.contains("scan has no range"), "{e}");
    let e = cli::refused(&["-e", "postgres", "-s", "fillseq_range=10"]);
    assert!(e.contains("fillseq is not one"), "{e}");
    let e = cli::refused(&["-e", "postgres", "-s", "point-query", "--table-size", "0"]);
    assert!(e.contains("--table-size must be at least 1"), "{e}");
}

#[cfg(test)]
mod shape_tests {
    use super::*;

    #[test]
    fn shapes_keep_what_sysbench_fixes_and_drop_its_random_values() {
        assert_eq!(shape("SELECT c FROM sbtest2 WHERE id=530"), "SELECT c FROM sbtestN WHERE id=N");
        assert_eq!(
            shape("  UPDATE sbtest1 set c='12-34'\n   WHERE id IN (1, 22)  "),
            "UPDATE sbtestN set c='##-##' WHERE id IN (N, N)"
        );
        assert_eq!(shape("SELECT c FROM sbtest1 WHERE id=$1"), "SELECT c FROM sbtestN WHERE id=$1");
        assert_eq!(shape("VALUES (-2147483648, 5"), "VALUES (N, N");
    }
}
