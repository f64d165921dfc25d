//! The human summary: one row per config and step.

use anyhow::Result;

use super::{Exporter, RunResult, Status};

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

pub const COLUMNS: &[&str] =
    &["config", "step", "ops/s", "p50 us", "p99 us", "p99.9 us", "max us", "eng w-amp", "notes"];

pub fn summary_rows(run: &RunResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &run.configs {
        for s in &c.steps {
            let lat = s.main_op().map(|o| o.latency.clone()).unwrap_or_default();
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
            rows.push(vec![
                c.name.clone(),
                s.name.clone(),
                num(s.ops_s),
                num(lat.p50_us),
                num(lat.p99_us),
                num(lat.p999_us),
                num(lat.max_us),
                s.engine_write_amp.map(|w| format!("{w:.2}")).unwrap_or_else(|| "-".into()),
                notes.join("; "),
            ]);
        }
        if c.steps.is_empty() {
            if let Some(e) = &c.error {
                rows.push(vec![c.name.clone(), "-".into(), "-".into(), "-".into(), "-".into(), "-".into(), "-".into(), "-".into(), e.clone()]);
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
        Ok(render_table(COLUMNS, &summary_rows(run)))
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
