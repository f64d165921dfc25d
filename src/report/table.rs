//! The human summary: one row per config and step.

use anyhow::Result;

use super::Exporter;
use crate::result::{ConfigResult, RunResult, Status, StepResult};

pub struct SummaryText;

/// Format a rate or a latency compactly with 3-4 significant digits.
pub fn num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v >= 100_000.0 {
        format!("{:.0}", v)
    } else if v >= 100.0 {
        format!("{:.1}", v)
    } else if v >= 1.0 {
        format!("{:.2}", v)
    } else {
        format!("{:.3}", v)
    }
}

/// Render rows as an aligned text table (first column left-aligned, others right).
pub fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let mut s = String::new();
        for (i, c) in cells.enumerate() {
            let pad = widths[i] - c.chars().count();
            if i == 0 || i == 1 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
            s.push_str("  ");
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&mut header.iter().copied());
    out.push_str(&line(&mut widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().iter().map(String::as_str)));
    for r in rows {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    out
}

pub const COLUMNS: &[&str] = &[
    "config", "step", "ops/s", "p50 us", "p99 us", "p99.9 us", "max us", "rpq", "wkbpi", "w-amp", "eng w-amp", "space-amp",
    "cpu us/op", "rss MB", "syncs/commit", "notes",
];

/// Shown under the table when a row carries the mark.
pub const NOT_DURABLE_MARK: &str = "ND";
pub const LEGEND: &str = "ND = not durable as run: fewer sync calls than commits, so acknowledged writes could be lost in an OS crash.\n\
rpq = storage reads per query; wkbpi = KB written to storage per write; w-amp = storage bytes written / logical bytes written; \
eng w-amp = the engine's own figure; space-amp = bytes on disk / live logical bytes; rss MB = peak RSS. See docs/metrics.md.\n";

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// The observations shown beside a step's figures: status, keys not found,
/// the background writer's rate (shared by every format).
pub fn step_notes(s: &StepResult) -> Vec<String> {
    let mut notes = Vec::new();
    if s.status != Status::Completed {
        notes.push(format!("{:?}", s.status).to_lowercase());
    }
    if s.timed_out {
        notes.push("TIMED OUT".into());
    }
    if let Some(r) = &s.reads {
        let total = r.found + r.not_found;
        if r.not_found > 0 && total > 0 {
            let pct = 100.0 * r.not_found as f64 / total as f64;
            notes.push(if pct < 1.0 { format!("{pct:.2}% not found") } else { format!("{pct:.0}% not found") });
        }
    }
    if let Some(w) = &s.writer {
        let target = w.target_ops_s.map(|t| format!("/{}", num(t))).unwrap_or_default();
        notes.push(format!("writer {}{} ops/s{}", num(w.achieved_ops_s), target, if w.missed_target { " MISSED" } else { "" }));
    }
    notes
}

/// Whether a step of the result is an insert-benchmark step.
fn is_ibench_step(name: &str) -> bool {
    name.parse::<crate::settings::steps::StepKind>().is_ok_and(|k| k.is_ibench())
}

/// Whether a config runs on a database server (its rows go to the insert-benchmark table).
fn is_server_config(c: &ConfigResult) -> bool {
    c.engine.parse::<crate::server::ServerKind>().is_ok()
}

pub fn summary_rows(run: &RunResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &run.configs {
        for s in c.steps.iter().filter(|s| !is_ibench_step(&s.name)) {
            // No latency for a step without measured operations (a failed step): '-', not 0.
            let lat = s.main_op().filter(|o| o.latency.count > 0).map(|o| o.latency.clone());
            let notes = step_notes(s);
            let m = &s.metrics;
            let io = m.io.as_ref();
            let not_durable = m.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false));
            rows.push(vec![
                c.name.clone(),
                s.name.clone(),
                match (s.ops_s, not_durable) {
                    (None, _) => "-".into(),
                    (Some(v), true) => format!("{} {NOT_DURABLE_MARK}", num(v)),
                    (Some(v), false) => num(v),
                },
                opt(lat.as_ref().map(|l| l.p50_us), num),
                opt(lat.as_ref().map(|l| l.p99_us), num),
                opt(lat.as_ref().map(|l| l.p999_us), num),
                opt(lat.as_ref().map(|l| l.max_us), num),
                opt(io.and_then(|i| i.rpq), |v| format!("{v:.2}")),
                opt(io.and_then(|i| i.wkbpi), |v| format!("{v:.3}")),
                opt(m.write_amp, |v| format!("{v:.2}")),
                opt(s.engine_write_amp, |v| format!("{v:.2}")),
                opt(m.space_amp, |v| format!("{v:.2}")),
                opt(m.client_cpu_us_op, num),
                opt(m.rss_peak_bytes.map(|b| b as f64 / 1048576.0), |v| format!("{v:.0}")),
                opt(m.syncs.as_ref().and_then(|y| y.syncs_per_commit), |v| format!("{v:.3}")),
                notes.join("; "),
            ]);
        }
        if c.steps.is_empty() && !is_server_config(c) {
            if let Some(e) = &c.error {
                let mut row = vec![c.name.clone()];
                row.extend((2..COLUMNS.len()).map(|_| "-".to_string()));
                row.push(e.clone());
                rows.push(row);
            }
        }
    }
    rows
}

/// The insert benchmark's summary columns, next to the latency percentiles.
pub const IBENCH_COLUMNS: &[&str] = &[
    "config", "step", "rate", "rate p50", "rate p99", "p50 us", "p99 us", "p99.9 us", "max ms", "rpq", "rkbpq", "wkbpi",
    "cli us/op", "srv us/op", "db MB", "rss MB", "rows", "notes",
];

pub const IBENCH_LEGEND: &str = "rate = rows inserted/s (l.i0, l.i1, l.i2), rows indexed/s (l.x), queries/s (qr*, qp*); \
rate p50/p99 = per-second rates sorted descending, the values at 50% and 99% (p99: 99% of seconds were at least this fast); \
latencies are per commit (l.i*) or per query (q*); rpq, rkbpq = storage reads and KB read per query; wkbpi = KB written to storage per row inserted; \
cli us/op = CPU of rumbench (with the engine, for embedded engines) per op; srv us/op = CPU of the server's process tree per op; \
db MB = data dir size; rss MB = peak RSS (of the server's process tree, summed over its processes, for servers); rows = rows in the tables after the step.\n";

pub fn ibench_rows(run: &RunResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &run.configs {
        for s in c.steps.iter().filter(|s| is_ibench_step(&s.name)) {
            // No latency for a step without measured operations (a failed step): '-', not 0.
            let lat = s.main_op().filter(|o| o.latency.count > 0).map(|o| o.latency.clone());
            let m = &s.metrics;
            let io = m.io.as_ref();
            let mut notes = Vec::new();
            if s.status != Status::Completed {
                notes.push(format!("{:?}", s.status).to_lowercase());
                if let Some(e) = &s.error {
                    notes.push(e.clone());
                }
            }
            if let Some(w) = &s.writer {
                let target = w.target_ops_s.map(|t| format!("/{}", num(t))).unwrap_or_default();
                notes.push(format!("writers {}{} rows/s{}", num(w.achieved_ops_s), target, if w.missed_target { " MISSED" } else { "" }));
            }
            if let Some(st) = s.ibench.as_ref().and_then(|i| i.settle_s) {
                notes.push(format!("settle {st:.1} s"));
            }
            if m.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false)) {
                notes.push(NOT_DURABLE_MARK.to_string());
            }
            let table_rows = s.ibench.as_ref().filter(|i| !i.table_rows.is_empty()).map(|i| i.table_rows.iter().sum::<u64>());
            rows.push(vec![
                c.name.clone(),
                s.name.clone(),
                opt(s.ops_s, num),
                opt(s.rates.as_ref().map(|r| r.p50), num),
                opt(s.rates.as_ref().map(|r| r.p99), num),
                opt(lat.as_ref().map(|l| l.p50_us), num),
                opt(lat.as_ref().map(|l| l.p99_us), num),
                opt(lat.as_ref().map(|l| l.p999_us), num),
                opt(lat.as_ref().map(|l| l.max_us / 1000.0), num),
                opt(io.and_then(|i| i.rpq), |v| format!("{v:.3}")),
                opt(io.and_then(|i| i.rkbpq), |v| format!("{v:.3}")),
                opt(io.and_then(|i| i.wkbpi), |v| format!("{v:.3}")),
                opt(m.client_cpu_us_op, num),
                opt(m.engine_cpu_us_op, num),
                opt(m.db_size_bytes.map(|b| b as f64 / 1048576.0), |v| format!("{v:.0}")),
                opt(m.rss_peak_bytes.map(|b| b as f64 / 1048576.0), |v| format!("{v:.0}")),
                table_rows.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
                notes.join("; "),
            ]);
        }
        if c.steps.is_empty() && is_server_config(c) {
            if let Some(e) = &c.error {
                let mut row = vec![c.name.clone()];
                row.extend((2..IBENCH_COLUMNS.len()).map(|_| "-".to_string()));
                row.push(e.clone());
                rows.push(row);
            }
        }
    }
    rows
}

/// The summary as printed and written to summary.txt: the db_bench-style
/// table and the insert-benchmark table, each with its legend, when it has rows.
pub fn render_summary(run: &RunResult) -> String {
    let kv = summary_rows(run);
    let ib = ibench_rows(run);
    let mut out = String::new();
    if !kv.is_empty() || ib.is_empty() {
        out.push_str(&render_table(COLUMNS, &kv));
        out.push('\n');
        out.push_str(LEGEND);
    }
    if !ib.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&render_table(IBENCH_COLUMNS, &ib));
        out.push('\n');
        out.push_str(IBENCH_LEGEND);
    }
    out
}

impl Exporter for SummaryText {
    fn file_name(&self) -> &'static str {
        "summary.txt"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        Ok(render_summary(run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_useful_digits() {
        assert_eq!(num(1234567.8), "1234568");
        assert_eq!(num(1234.56), "1234.6");
        assert_eq!(num(12.345), "12.35");
        assert_eq!(num(0.0456), "0.046");
        assert_eq!(num(0.0), "0");
    }

    #[test]
    fn tables_align() {
        let t = render_table(&["a", "b", "n"], &[vec!["x".into(), "yy".into(), "1".into()], vec!["long".into(), "z".into(), "100".into()]]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "a     b     n");
        assert_eq!(lines[2], "x     yy    1");
        assert_eq!(lines[3], "long  z   100");
    }
}
