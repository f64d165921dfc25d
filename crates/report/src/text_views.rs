//! The views' sections as text: the tables summary.txt and the terminal
//! show after the summary (limits, shards, stalls, durability, relative
//! tables and where the CPU went, versions, config sweeps, hot-row grids).

use std::fmt::Write;

use super::compare::Options as CompareOptions;
use super::fmt::num;
use super::relative::{self, Table};
use super::summary::Summary;
use super::text_table::{render_aligned, render_table};
use super::{config_sweep, hotrow, versions};
use crate::result::RunResult;

/// The widest function name a text table shows (C++ template arguments run
/// to hundreds of characters; report.html has them whole).
const FRAME_WIDTH: usize = 100;

/// `frame` in at most `width` characters: template arguments (`<...>`)
/// folded to `<…>` first, then the end cut with `…`.
fn fit_frame(frame: &str, width: usize) -> String {
    if frame.chars().count() <= width {
        return frame.to_string();
    }
    let mut folded = String::with_capacity(frame.len());
    let mut depth = 0usize;
    for ch in frame.chars() {
        match ch {
            '<' => {
                if depth == 0 {
                    folded.push_str("<…");
                }
                depth += 1;
            }
            '>' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    folded.push('>');
                }
            }
            _ if depth == 0 => folded.push(ch),
            _ => {}
        }
    }
    // An unbalanced name (`operator<`) is cut as it is.
    let name = if depth == 0 { folded } else { frame.to_string() };
    if name.chars().count() <= width {
        return name;
    }
    name.chars().take(width - 1).chain(std::iter::once('…')).collect()
}

/// Each step's ceilings, and the device they come from, or "".
pub fn limits_text(run: &RunResult) -> String {
    let summary =
        super::summary::Summary::build(&[super::summary::NamedRun { label: "run".into(), dir: String::new(), run }]);
    let mut rows = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for st in &summary.steps {
        for r in super::limits::step_rows(st) {
            let mut row = vec![r.label.clone(), st.key.clone(), num(r.ops_s)];
            row.extend(r.ceilings.iter().map(|c| c.as_ref().map(|(v, _)| num(*v)).unwrap_or_else(|| "-".into())));
            row.push(r.bound.clone().unwrap_or_else(|| "-".into()));
            rows.push(row);
            for u in r.unknown {
                if !unknown.contains(&u) {
                    unknown.push(u);
                }
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut o = String::from("Limits: each step's ceilings in ops/s (every operation, the background writer's included); result.json has how each was computed\n");
    if let Some(d) = &run.device {
        o.push_str(&super::fmt::wrap_text(&format!("device: {}", super::summary::device_line(d)), 118));
        o.push('\n');
    }
    o.push_str(&render_table(&["config", "step", "ops/s", "read", "write", "sync", "cpu", "% of limit"], &rows));
    for u in unknown {
        o.push_str(&super::fmt::wrap_text(&format!("unknown: {u}"), 118));
        o.push('\n');
    }
    o
}

/// A titled table with its heading lines above it; `left`: the columns aligned left.
fn titled_table(title: &str, heading: &[String], header: &[&str], rows: &[Vec<String>], left: &[usize]) -> String {
    let mut o = format!("{title}\n");
    for h in heading {
        o.push_str(&super::fmt::wrap_text(h, 118));
    }
    o.push('\n');
    o.push_str(&render_aligned(header, rows, left));
    o
}

/// A merged run's shard rows, or "".
pub fn shards_text(run: &RunResult) -> String {
    let Some(t) = super::shards::table(run) else { return String::new() };
    titled_table(
        super::shards::TITLE,
        &t.heading,
        super::shards::HEADER,
        &t.rows,
        &[0, 1, 3, super::shards::HEADER.len() - 1],
    )
}

/// A view's table under its title, columns padded, `footer` below; "" without rows.
pub(crate) fn titled_text(title: &str, columns: &[&str], cells: Vec<Vec<String>>, footer: &str) -> String {
    if cells.is_empty() {
        return String::new();
    }
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| cells.iter().map(|r| r[i].len()).chain([columns[i].len()]).max().unwrap_or(0))
        .collect();
    let mut o = String::new();
    let _ = writeln!(o, "{title}:");
    let line = |o: &mut String, r: &[String]| {
        let parts: Vec<String> = r.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(o, "{}", parts.join("  ").trim_end());
    };
    line(&mut o, &columns.iter().map(|c| c.to_string()).collect::<Vec<_>>());
    line(&mut o, &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for r in &cells {
        line(&mut o, r);
    }
    let _ = writeln!(o, "{footer}");
    o
}

/// The stall seconds of a run, or "".
pub fn stalls_text(run: &RunResult) -> String {
    let cells = super::stalls::rows(run).iter().map(super::stalls::Row::cells).collect();
    titled_text(super::stalls::TITLE, super::stalls::COLUMNS, cells, &super::stalls::footer())
}

/// The crash test's durability matrix, or "".
pub fn durability_text(run: &RunResult) -> String {
    let Some(m) = super::durability::matrix(run) else { return String::new() };
    let mut o = titled_table(
        super::durability::TITLE,
        &m.heading,
        super::durability::HEADER,
        &m.rows,
        &[0, 1, super::durability::HEADER.len() - 1],
    );
    for n in &m.notes {
        o.push_str(&super::fmt::wrap_text(&format!("note: {n}"), 118));
    }
    o
}

pub fn relative_text(t: &Table) -> String {
    let mut o = super::fmt::wrap_text(&format!("{}: {}", t.title, t.heading), 118);
    for l in &t.legend {
        o.push_str(&format!("  {l}\n"));
    }
    o.push('\n');
    let mut header: Vec<&str> = vec!["step", "metric"];
    header.extend(t.columns.iter().map(|c| c.label.as_str()));
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            // A step where a setting never acted: marked, its note below the table.
            let step =
                if t.unexercised_in(&r.step).next().is_some() { format!("{} *", r.step) } else { r.step.clone() };
            let mut cells = vec![step, t.metrics[r.metric].1.to_string(), relative::value_text(r.base)];
            cells.extend(
                r.cells.iter().map(|c| format!("{} {}", relative::value_text(c.value), relative::ratio_text(c))),
            );
            cells
        })
        .collect();
    o.push_str(&render_table(&header, &rows));
    for u in &t.unexercised {
        o.push_str(&super::fmt::wrap_text(&format!("* {}", t.unexercised_text(u)), 118));
    }
    for n in &t.notes {
        o.push_str(&super::fmt::wrap_text(&format!("note: {n}"), 118));
    }
    for (config, step, metric) in cpu_regressions(t) {
        o.push_str(&super::fmt::wrap_text(
            &format!("note: {config}'s REGRESSION in {step} {metric}: where the CPU went, below"),
            118,
        ));
    }
    o.push_str(&render_profile_changes(&t.cpu));
    o
}

/// The CPU REGRESSIONs of a table that its profiles explain: (config, step, metric label).
pub fn cpu_regressions(t: &Table) -> Vec<(String, String, &'static str)> {
    let mut out = Vec::new();
    for r in &t.rows {
        let (key, label) = t.metrics[r.metric];
        if !relative::is_cpu_metric(key) {
            continue;
        }
        for (c, col) in r.cells.iter().zip(&t.columns[1..]) {
            if c.verdict == super::compare::Verdict::Regression && t.cpu_change(&col.config, &r.step).is_some() {
                out.push((col.config.clone(), r.step.clone(), label));
            }
        }
    }
    out
}

/// Where the CPU per operation changed (`profile_changes`), as text: per
/// step, its functions whose self CPU per op changed most.
pub fn render_profile_changes(steps: &[super::profile_changes::StepChanges]) -> String {
    let mut o = String::new();
    for s in steps {
        o.push_str(&format!(
            "\nwhere the CPU went, {} -> {}, {}: {:.3} -> {:.3} µs/op profiled ({:+.3}), {} vs {} profiled repeats\n",
            s.base,
            s.new,
            s.step,
            s.base_us_op,
            s.new_us_op,
            s.new_us_op - s.base_us_op,
            s.n_base,
            s.n_new
        ));
        o.push_str(&if s.tested() {
            "a function's change is named (*) when it exceeds the wider of the two sides' ranges of its cost over their repeats\n".to_string()
        } else {
            "one profiled run on a side: the differences are not tested against the repeats' spread (use --repeat)\n".to_string()
        });
        if let Some(c) = s.caveat() {
            o.push_str(&format!("warning: {c}\n"));
        }
        let rows: Vec<Vec<String>> = s
            .changes
            .iter()
            .map(|c| {
                let (role, frame) = c.key.split_once(';').unwrap_or(("", &c.key));
                vec![
                    role.to_string(),
                    fit_frame(frame, FRAME_WIDTH),
                    format!("{:.3}", c.base_us_op),
                    format!("{:.3}", c.new_us_op),
                    format!("{:+.3}", c.diff()),
                    c.share.map(|x| format!("{:.0}%", x * 100.0)).unwrap_or_else(|| "-".into()),
                    match c.beyond_repeats {
                        Some(true) => "*".into(),
                        Some(false) => "within".into(),
                        None => "untested".into(),
                    },
                ]
            })
            .collect();
        o.push_str(&render_table(
            &["role", "library!function", "base µs/op", "new µs/op", "diff", "share of step's diff", "beyond repeats"],
            &rows,
        ));
    }
    o
}

/// The version table (several PostgreSQL versions), or "".
pub fn versions_text(s: &Summary) -> String {
    versions::sweeps(s, &CompareOptions::default())
        .iter()
        .map(|sw| relative_text(&sw.table))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The config-sweep tables, or "".
pub fn config_sweep_text(s: &Summary) -> String {
    config_sweep::tables(s, &CompareOptions::default()).iter().map(relative_text).collect::<Vec<_>>().join("\n")
}

/// The grids in text, or "" when the run has none.
pub fn hotrow_text(run: &RunResult) -> String {
    let mut o = String::new();
    for g in hotrow::grids(run) {
        let _ = writeln!(o, "{} {}:", g.config, hotrow::TITLE);
        let _ = write!(o, "{:>8}", "tables");
        for c in &g.clients {
            let _ = write!(o, " {:>16}", format!("{c} clients"));
        }
        o.push('\n');
        for t in &g.tables {
            let _ = write!(o, "{t:>8}");
            for c in &g.clients {
                let (x, p) = hotrow::value(g.cell(*t, *c));
                let text = match (x.is_empty(), p.is_empty()) {
                    (true, _) => "-".to_string(),
                    (false, true) => x,
                    (false, false) => format!("{x} ({p})"),
                };
                let _ = write!(o, " {text:>16}");
            }
            o.push('\n');
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cpp_frames_fold_their_template_arguments() {
        let hashtable = format!(
            "rumbench!std::_Hashtable<{}, std::hash<std::string> >::~_Hashtable",
            "std::pair<std::string const, std::string>, ".repeat(10)
        );
        assert_eq!(fit_frame(&hashtable, FRAME_WIDTH), "rumbench!std::_Hashtable<…>::~_Hashtable");
        assert_eq!(
            fit_frame("librocksdb!rocksdb::DBImpl::WriteImpl", FRAME_WIDTH),
            "librocksdb!rocksdb::DBImpl::WriteImpl"
        );
        let plain = format!("libx!{}", "a".repeat(150));
        let cut = fit_frame(&plain, FRAME_WIDTH);
        assert_eq!((cut.chars().count(), cut.ends_with('…')), (FRAME_WIDTH, true));
        let unbalanced = format!("libx!operator<{}", "b".repeat(150));
        assert!(fit_frame(&unbalanced, FRAME_WIDTH).starts_with("libx!operator<bbb"));
    }
}
