//! report.tsv: the columns of RocksDB's tools/benchmark.sh report, one row
//! per config and step, filled from our measurements where we have them and
//! empty where we do not (docs/report.md has the mapping), then our own
//! columns. Rendered from the report summary (`report::summary`).

use std::fmt::Write;

use anyhow::Result;

use super::{table, Exporter};
use crate::result::RunResult;
use crate::report::summary::{NamedRun, Row, Summary};

pub struct BenchmarkTsv;

/// benchmark.sh's columns, in its order.
pub const BENCHMARK_SH_COLUMNS: &[&str] = &[
    "ops_sec", "mb_sec", "lsm_sz", "blob_sz", "c_wgb", "w_amp", "c_mbps", "c_wsecs", "c_csecs", "b_rgb", "b_wgb", "usec_op", "p50", "p99",
    "p99.9", "p99.99", "pmax", "uptime", "stall%", "Nstall", "u_cpu", "s_cpu", "rss", "test", "date", "version", "job_id", "githash",
];

/// Ours, after benchmark.sh's.
pub const EXTRA_COLUMNS: &[&str] = &[
    "run", "config", "engine", "threads", "p90", "rpq", "wkbpi", "eng_w_amp", "space_amp", "db_mb", "cpu_us_op", "host_cpu_us_op", "rss_mb",
    "syncs_commit", "durable",
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
        format!("{:.0}", r.wall_s),
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
    ]
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
    for (_, _, _, r, test) in rows {
        let cells = row_cells(&s.runs[r.run].label, r, test);
        debug_assert_eq!(cells.len(), BENCHMARK_SH_COLUMNS.len() + EXTRA_COLUMNS.len());
        let _ = writeln!(o, "{}", cells.iter().map(|c| c.replace(['\t', '\n'], " ")).collect::<Vec<_>>().join("\t"));
    }
    o
}
