//! What `rumbench run` prints at the end of a run, from the real binary:
//! each warning once, a summary table that fits a 120-column terminal with
//! a row per operation type of a mixed step, and every column on request.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use cli::run_ok as run;

use crate::common::cli;

fn result(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// Everything the run printed, standard error first (where warnings go).
fn printed(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout))
}

#[test]
fn each_warning_is_printed_once() {
    // RocksDB without a WAL sync per commit: the step is "not durable as run".
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["-e", "rocksdb", "-s", "fillrandom", "-n", "3000", "-o", "sync=false"], dir.path());
    let text = printed(&out);
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("warning:")).collect();
    assert_eq!(warnings.iter().filter(|w| w.contains("not durable as run")).count(), 1, "{text}");
    for w in &warnings {
        assert_eq!(text.lines().filter(|l| l.trim() == w.trim()).count(), 1, "{w:?} printed more than once:\n{text}");
    }
    // ... under its step, as the step ended.
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("rocksdb fillrandom: "))
        .unwrap_or_else(|| panic!("no step line:\n{text}"));
    let under_step: Vec<&str> =
        lines[at + 1..].iter().take_while(|l| l.starts_with("    warning: ")).copied().collect();
    assert!(under_step.iter().any(|l| l.contains("not durable as run")), "{text}");

    // result.json: step warnings on their step only; the run's list has the run's own.
    let v = result(dir.path());
    let run_warnings: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(!run_warnings.iter().any(|w| w.contains("not durable")), "{run_warnings:?}");
    let step_warnings = v["configs"][0]["steps"][0]["warnings"].as_array().unwrap();
    assert_eq!(step_warnings.iter().filter(|w| w.as_str().unwrap().starts_with("not durable as run")).count(), 1);
    assert_eq!(under_step.len(), step_warnings.len(), "{text}");
    // The end of the run prints the run's own warnings and points to the step's.
    for w in run_warnings {
        assert_eq!(text.matches(&format!("warning: {w}\n")).count(), 1, "{w}:\n{text}");
    }
    let pointer = match step_warnings.len() {
        1 => "1 step warning was printed above with its step".to_string(),
        n => format!("{n} step warnings were printed above with their steps"),
    };
    assert!(text.contains(&pointer), "{text}");
}

#[test]
fn the_summary_fits_a_terminal_and_shows_each_operation_type() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.toml");
    // Long config names, as sweeps name them.
    std::fs::write(
        &suite,
        "[[config]]\nengine = \"null\"\nname = \"null-engine-with-a-very-long-configuration-name-number-one\"\n\
         [[config]]\nengine = \"null\"\nname = \"null-engine-with-a-very-long-configuration-name-number-two\"\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = run(
        &["-c", suite.to_str().unwrap(), "-s", "ycsb-load,ycsb-a,ycsb-f", "--records", "2000", "--ops", "4000"],
        &out_dir,
    );
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    for line in table.lines() {
        assert!(line.chars().count() <= 120, "{} characters: {line}\n{table}", line.chars().count());
    }
    // Per config: READ in ycsb-a and ycsb-f, UPDATE in ycsb-a, READ-MODIFY-WRITE in ycsb-f.
    for (op, rows) in [("READ", 4), ("UPDATE", 2), ("READ-MODIFY-WRITE", 2)] {
        assert_eq!(
            table.lines().filter(|l| l.trim_start().starts_with(&format!("{op} "))).count(),
            rows,
            "{op}:\n{table}"
        );
    }
    assert!(
        table.contains("null-engine-with-a-very-long-configuration-name-number-two"),
        "the key to shortened names:\n{table}"
    );

    // The per-type figures are the recorded ones; parameters are recorded for the sweep's x-axis.
    let v = result(&out_dir);
    let a = v["configs"][0]["steps"].as_array().unwrap().iter().find(|s| s["name"] == "ycsb-a").unwrap();
    let read = a["ops_by_type"].as_array().unwrap().iter().find(|o| o["op"] == "READ").unwrap();
    let read_row = table.lines().find(|l| l.trim_start().starts_with("READ ")).unwrap();
    assert!(read_row.split_whitespace().any(|c| c == read["ops"].as_u64().unwrap().to_string()), "{read_row}");
    assert_eq!(a["parameters"]["ops"], 4000);
    assert_eq!(a["parameters"]["records"], 2000);

    // summary.txt and --all-columns: every column, names whole.
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    let again = dir.path().join("all");
    let all = run(
        &[
            "-c",
            suite.to_str().unwrap(),
            "-s",
            "ycsb-load,ycsb-a",
            "--records",
            "2000",
            "--ops",
            "4000",
            "--all-columns",
        ],
        &again,
    );
    let all = String::from_utf8_lossy(&all.stdout).to_string();
    for text in [&summary, &all] {
        let header = text.lines().find(|l| l.starts_with("config ")).unwrap();
        for column in ["ops/s", "p99.9 us", "max us", "space-amp", "rss MB", "syncs/commit", "notes"] {
            assert!(header.contains(column), "{column} missing: {header}");
        }
        assert!(
            text.lines().any(|l| l.starts_with("null-engine-with-a-very-long-configuration-name-number-one ")),
            "{text}"
        );
    }
}

#[test]
fn a_mixed_step_never_shows_one_operation_types_latency_as_the_steps() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["-e", "null", "-s", "ycsb-load,ycsb-a", "--records", "1000", "--ops", "4000"], dir.path());
    let text = printed(&out);
    // The end-of-step line: every type's latency, not READ's alone.
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("null ycsb-a: "))
        .unwrap_or_else(|| panic!("no step line:\n{text}"));
    assert!(line.contains("READ p50 ") && line.contains("UPDATE p50 "), "{line}");
    // The step's row: no latency of its own, and a note that the rows per type have it.
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let row = table
        .lines()
        .find(|l| l.starts_with("null ") && l.contains(" ycsb-a "))
        .unwrap_or_else(|| panic!("no ycsb-a row:\n{table}"));
    assert!(row.contains("latency per operation type below"), "{row}");
    let tsv = std::fs::read_to_string(dir.path().join("report.tsv")).unwrap();
    let header: Vec<&str> = tsv.lines().next().unwrap().split('\t').collect();
    let col = |r: &[&str], name: &str| r[header.iter().position(|h| *h == name).unwrap()].to_string();
    let rows: Vec<Vec<&str>> = tsv.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    let step = rows.iter().find(|r| col(r, "test") == "ycsb-a").unwrap();
    assert_eq!([col(step, "p50"), col(step, "p99"), col(step, "pmax")], ["", "", ""]);
    let read = rows.iter().find(|r| col(r, "test") == "ycsb-a.READ").unwrap();
    assert!(!col(read, "p99").is_empty());
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    let section = &md[md.find("### ycsb-a").unwrap()..];
    let section = &section[..section.find("Per operation type").unwrap()];
    assert!(!section.contains("p99") && section.contains("- null: latency per operation type below"), "{section}");

    // The load's note counts the records it loaded.
    let v = result(dir.path());
    let load = &v["configs"][0]["steps"][0];
    assert!(load["notes"].to_string().contains("YCSB ycsb-load: 1000 records"), "{}", load["notes"]);
}
