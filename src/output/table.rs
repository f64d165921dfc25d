//! The human summary: one row per config and step.

use anyhow::Result;

use super::{Exporter, RunResult, Status, StepResult};

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

pub fn summary_rows(run: &RunResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &run.configs {
        for s in &c.steps {
            let lat = s.main_op().map(|o| o.latency.clone()).unwrap_or_default();
            let notes = step_notes(s);
            let m = &s.metrics;
            let io = m.io.as_ref();
            let not_durable = m.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false));
            rows.push(vec![
                c.name.clone(),
                s.name.clone(),
                if not_durable { format!("{} {NOT_DURABLE_MARK}", num(s.ops_s)) } else { num(s.ops_s) },
                num(lat.p50_us),
                num(lat.p99_us),
                num(lat.p999_us),
                num(lat.max_us),
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
        if c.steps.is_empty() {
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

impl Exporter for SummaryText {
    fn file_name(&self) -> &'static str {
        "summary.txt"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        Ok(render_table(COLUMNS, &summary_rows(run)) + "\n" + LEGEND)
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
