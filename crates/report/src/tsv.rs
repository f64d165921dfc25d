//! report.tsv: the columns of RocksDB's tools/benchmark.sh report, one row
//! per config and step, filled from our measurements where we have them and
//! empty where we do not (docs/report.md has the mapping), then our own
//! columns; a step that mixes operation types is followed by a row per
//! type. Rendered from the report summary (`report::summary`).

use std::fmt::Write;

use anyhow::Result;

use super::{table, Exporter};
use crate::measure::LatencySummary;
use crate::result::{Outcomes, RunResult};
use crate::summary::{NamedRun, OpTypeFigures, Row, Summary};

pub struct BenchmarkTsv;

/// benchmark.sh's columns, in its order.
pub const BENCHMARK_SH_COLUMNS: &[&str] = &[
    "ops_sec", "mb_sec", "lsm_sz", "blob_sz", "c_wgb", "w_amp", "c_mbps", "c_wsecs", "c_csecs", "b_rgb", "b_wgb",
    "usec_op", "p50", "p99", "p99.9", "p99.99", "pmax", "uptime", "stall%", "Nstall", "u_cpu", "s_cpu", "rss", "test",
    "date", "version", "job_id", "githash",
];

/// Ours, after benchmark.sh's. `op` is empty on a step's row and names the
/// operation type on the rows that follow a mixed step's (test
/// "ycsb-a.READ", ...); `ops` and the outcome counts are the step's totals
/// on its row.
pub const EXTRA_COLUMNS: &[&str] = &[
    "run",
    "config",
    "engine",
    "threads",
    "p90",
    "rpq",
    "wkbpi",
    "eng_w_amp",
    "space_amp",
    "db_mb",
    "cpu_us_op",
    "host_cpu_us_op",
    "rss_mb",
    "syncs_commit",
    "durable",
    "op",
    "ops",
    "not_found",
    "conflict",
    "error",
];

impl Exporter for BenchmarkTsv {
    fn file_name(&self) -> &'static str {
        "report.tsv"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        Ok(render(&Summary::build(&[NamedRun { label: "run".into(), dir: String::new(), run }])))
    }
}

/// benchmark.sh's size style: "86MB", "12GB".
pub fn size_text(mb: f64) -> String {
    if mb >= 1024.0 {
        format!("{:.0}GB", mb / 1024.0)
    } else if mb >= 1.0 {
        format!("{mb:.0}MB")
    } else {
        format!("{:.0}KB", mb * 1024.0)
    }
}

fn f(v: Option<f64>, digits: usize) -> String {
    v.map(|v| format!("{v:.digits$}")).unwrap_or_default()
}

fn n(v: Option<f64>) -> String {
    v.map(table::num).unwrap_or_default()
}

/// "2025-01-31T12:00:00" from an RFC 3339 time (benchmark.sh's date has no zone).
fn date_text(t: &str) -> String {
    t.get(..19).unwrap_or(t).to_string()
}

fn row_cells(run_label: &str, r: &Row, test: &str) -> Vec<String> {
    let g = |k: &str| r.get(k);
    let usec_op = g("ops_s").filter(|v| *v > 0.0).map(|ops| 1e6 * r.threads.max(1) as f64 / ops);
    vec![
        f(g("ops_s"), 0),
        f(g("mb_s"), 1),
        g("db_mb").map(size_text).unwrap_or_default(),
        String::new(), // blob_sz
        f(g("c_wgb"), 3),
        f(g("write_amp"), 2),
        String::new(), // c_mbps
        String::new(), // c_wsecs
        String::new(), // c_csecs
        String::new(), // b_rgb
        String::new(), // b_wgb
        f(usec_op, 1),
        n(g("p50_us")),
        n(g("p99_us")),
        n(g("p999_us")),
        n(g("p9999_us")),
        n(g("max_us")),
        r.wall_s.map(|w| format!("{w:.0}")).unwrap_or_default(),
        f(g("stall_pct"), 1),
        f(g("n_stall"), 0),
        String::new(), // u_cpu
        String::new(), // s_cpu
        f(g("rss_mb").map(|m| m / 1024.0), 3),
        test.to_string(),
        date_text(&r.started_at),
        r.engine_version.clone().unwrap_or_default(),
        r.label.clone(),
        String::new(), // githash
        run_label.to_string(),
        r.config.clone(),
        r.engine.clone(),
        r.threads.to_string(),
        n(g("p90_us")),
        f(g("rpq"), 4),
        f(g("wkbpi"), 3),
        f(g("eng_write_amp"), 2),
        f(g("space_amp"), 2),
        f(g("db_mb"), 1),
        f(g("cpu_us_op"), 3),
        f(g("host_cpu_us_op"), 3),
        f(g("rss_mb"), 1),
        f(g("syncs_per_commit"), 4),
        match r.durable {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => String::new(),
        },
        String::new(), // op: the step as a whole
        r.ops.to_string(),
    ]
    .into_iter()
    .chain(outcome_cells(step_outcomes(r).as_ref()))
    .collect()
}

/// The step's outcomes: the sum over its operation types (None when no type counted them).
fn step_outcomes(r: &Row) -> Option<Outcomes> {
    r.op_types.iter().filter_map(|t| t.outcomes.as_ref()).fold(None, |sum, o| {
        let mut sum = sum.unwrap_or_default();
        sum.add(o);
        Some(sum)
    })
}

/// not_found, conflict, error; empty when not counted.
fn outcome_cells(o: Option<&Outcomes>) -> [String; 3] {
    match o {
        Some(o) => [o.not_found.to_string(), o.conflict.to_string(), o.error.to_string()],
        None => Default::default(),
    }
}

/// The row of one operation type of a mixed step: what identifies the step,
/// and the type's own count, rate and latency (the efficiency figures are
/// the step's, on its row).
fn op_type_cells(run_label: &str, r: &Row, test: &str, t: &OpTypeFigures) -> Vec<String> {
    let l = |f: fn(&LatencySummary) -> f64| if t.latency.count > 0 { table::num(f(&t.latency)) } else { String::new() };
    let mut cells = vec![String::new(); BENCHMARK_SH_COLUMNS.len() + EXTRA_COLUMNS.len()];
    let mut set = |column: &str, value: String| {
        let i = BENCHMARK_SH_COLUMNS.iter().chain(EXTRA_COLUMNS).position(|c| *c == column).expect("a tsv column");
        cells[i] = value;
    };
    set("ops_sec", f(t.ops_s, 0));
    set("p50", l(|l| l.p50_us));
    set("p99", l(|l| l.p99_us));
    set("p99.9", l(|l| l.p999_us));
    set("p99.99", l(|l| l.p9999_us));
    set("pmax", l(|l| l.max_us));
    set("uptime", r.wall_s.map(|w| format!("{w:.0}")).unwrap_or_default());
    set("test", format!("{test}.{}", t.op));
    set("date", date_text(&r.started_at));
    set("version", r.engine_version.clone().unwrap_or_default());
    set("job_id", r.label.clone());
    set("run", run_label.to_string());
    set("config", r.config.clone());
    set("engine", r.engine.clone());
    set("threads", r.threads.to_string());
    set("p90", l(|l| l.p90_us));
    set("op", t.op.clone());
    set("ops", t.ops.to_string());
    let [not_found, conflict, error] = outcome_cells(t.outcomes.as_ref());
    set("not_found", not_found);
    set("conflict", conflict);
    set("error", error);
    cells
}

/// Rows in run, config, step order (as the runs executed them).
pub fn render(s: &Summary) -> String {
    let mut o = String::new();
    o.push_str(&BENCHMARK_SH_COLUMNS.join("\t"));
    o.push('\t');
    o.push_str(&EXTRA_COLUMNS.join("\t"));
    o.push('\n');
    let mut rows: Vec<(usize, usize, usize, &Row, &str)> = Vec::new();
    for (si, st) in s.steps.iter().enumerate() {
        for r in &st.rows {
            rows.push((r.run, r.series, si, r, &st.key));
        }
    }
    rows.sort_by_key(|x| (x.0, x.1, x.2));
    let line = |o: &mut String, cells: Vec<String>| {
        debug_assert_eq!(cells.len(), BENCHMARK_SH_COLUMNS.len() + EXTRA_COLUMNS.len());
        let _ = writeln!(o, "{}", cells.iter().map(|c| c.replace(['\t', '\n'], " ")).collect::<Vec<_>>().join("\t"));
    };
    for (_, _, _, r, test) in rows {
        let run_label = &s.runs[r.run].label;
        line(&mut o, row_cells(run_label, r, test));
        if r.op_types.len() > 1 {
            for t in &r.op_types {
                line(&mut o, op_type_cells(run_label, r, test, t));
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixtures;

    #[test]
    fn a_mixed_step_is_followed_by_a_row_per_operation_type() {
        let tsv = BenchmarkTsv.render(&fixtures::realistic_run()).unwrap();
        let header: Vec<&str> = tsv.lines().next().unwrap().split('\t').collect();
        assert_eq!(&header[..BENCHMARK_SH_COLUMNS.len()], BENCHMARK_SH_COLUMNS);
        let rows: Vec<Vec<&str>> = tsv.lines().skip(1).map(|l| l.split('\t').collect()).collect();
        assert!(rows.iter().all(|r| r.len() == header.len()));
        let col = |r: &[&str], name: &str| r[header.iter().position(|h| *h == name).unwrap()].to_string();
        let lmdb: Vec<&Vec<&str>> = rows.iter().filter(|r| col(r, "config") == "lmdb-nosync-writemap").collect();
        let tests: Vec<String> = lmdb.iter().map(|r| col(r, "test")).collect();
        let a = tests.iter().position(|t| t == "ycsb-a").unwrap();
        assert_eq!(tests[a + 1..a + 3], ["ycsb-a.READ", "ycsb-a.UPDATE"]);
        // The step's row: its totals, every outcome summed, no op.
        let step = lmdb[a];
        assert_eq!((col(step, "op"), col(step, "ops")), (String::new(), "5045563".to_string()));
        assert_eq!([col(step, "not_found"), col(step, "conflict"), col(step, "error")], ["3", "17", "2"]);
        assert_eq!(col(step, "w_amp"), "2.50");
        // An operation type's row: its own figures, none of the step's efficiency figures.
        let update = lmdb[a + 2];
        assert_eq!(
            [col(update, "op"), col(update, "ops"), col(update, "ops_sec"), col(update, "p50")],
            ["UPDATE", "2522107", "84070", "7.30"]
        );
        assert_eq!(
            [col(update, "conflict"), col(update, "error"), col(update, "w_amp"), col(update, "cpu_us_op")],
            ["17", "2", "", ""]
        );
        assert_eq!(col(update, "job_id"), "lmdb-nosync-writemap");
        // A step of one operation type has no extra rows.
        let r = tests.iter().position(|t| t == "readrandom").unwrap();
        assert_eq!(tests[r + 1], "readwhilewriting");
    }
}
