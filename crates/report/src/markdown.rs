//! summary.md: markdown tables for GitHub issues and blog posts, one table
//! per step, rendered from the report summary (`report::summary`).

use std::fmt::Write;

use anyhow::Result;

use super::compare::Verdict;
use super::relative::{self, Table};
use super::{hotrow, table, Exporter};
use crate::result::RunResult;
use crate::summary::{self, Base, Better, NamedRun, Rank, Summary, METRICS};

pub struct Markdown;

impl Exporter for Markdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        self.render_in(run, std::path::Path::new(""))
    }
    fn render_in(&self, run: &RunResult, dir: &std::path::Path) -> Result<String> {
        let s = Summary::build(&[NamedRun { label: "run".into(), dir: dir.display().to_string(), run }]);
        let base = s.default_base();
        Ok(render(&s, &base))
    }
}

/// Escape the characters that break a markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn header(cols: &[usize]) -> String {
    let mut h = String::from("| config |");
    let mut sep = String::from("|:--|");
    for &mi in cols {
        let m = &METRICS[mi];
        let arrow = match m.better {
            Better::Higher => " ↑",
            Better::Lower => " ↓",
            Better::Neither => "",
        };
        let _ = write!(h, " {}{arrow} |", m.title());
        sep.push_str("--:|");
    }
    h + "\n" + &sep + "\n"
}

/// The markdown of a summary: per step a table of values (the best values in
/// bold), its notes, and a relative table against `base` when it has several rows.
pub fn render(s: &Summary, base: &Base) -> String {
    let mut o = String::new();
    let labels: Vec<&str> = s.runs.iter().map(|r| r.label.as_str()).collect();
    if s.multi_run() {
        let _ = writeln!(o, "## rumbench: {}\n", labels.join(" vs "));
    } else {
        o.push_str("## rumbench results\n\n");
    }
    for r in &s.runs {
        let configs: Vec<String> = r
            .configs
            .iter()
            .map(|c| format!("{} ({} {})", c.name, c.engine, c.engine_version.as_deref().unwrap_or("?")))
            .collect();
        let run = if s.multi_run() { format!("{}: ", r.label) } else { String::new() };
        let _ = writeln!(
            o,
            "- {run}started {}, rumbench {}, {}",
            r.started_at,
            r.rumbench_version,
            cell(&configs.join(", "))
        );
    }
    o.push('\n');
    for r in &s.runs {
        o.push_str(&hotrow_markdown(&r.hot_grids));
        o.push_str(&slo_markdown(&r.slo));
        o.push_str(&stalls_markdown(&r.stalls));
    }
    let sweep_tables = super::sweep_tables::SweepTables::of(s);
    for st in &s.steps {
        let cols = st.present_metrics();
        let ranks = summary::rank_step(st);
        let _ = writeln!(o, "### {}\n", st.key);
        o.push_str(&header(&cols));
        for (ri, row) in st.rows.iter().enumerate() {
            let _ = write!(o, "| {} |", cell(&row.label));
            for &mi in &cols {
                let mut text = row.cell_text(mi);
                if ranks[ri][mi] == Some(Rank::Top) && st.rows.len() > 1 {
                    text = format!("**{text}**");
                }
                if METRICS[mi].key == "ops_s" && row.not_durable {
                    text.push(' ');
                    text.push_str(table::NOT_DURABLE_MARK);
                }
                let _ = write!(o, " {text} |");
            }
            o.push('\n');
        }
        let notes: Vec<String> =
            st.rows.iter().flat_map(|r| r.notes.iter().map(move |n| format!("{}: {n}", r.label))).collect();
        if !notes.is_empty() {
            o.push('\n');
            for n in notes {
                let _ = writeln!(o, "- {}", cell(&n));
            }
        }
        if st.is_mixed() {
            o.push_str("\nPer operation type:\n\n| config | op | ops | ops/s | p50 us | p99 us | p99.9 us | max us | outcomes |\n|:--|:--|--:|--:|--:|--:|--:|--:|:--|\n");
            for row in &st.rows {
                for t in &row.op_types {
                    let _ = writeln!(
                        o,
                        "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                        cell(&row.label),
                        cell(&t.op),
                        t.ops,
                        t.ops_s.map(summary::fmt_value).unwrap_or_else(|| "-".into()),
                        table::latency_cell(&t.latency, |l| l.p50_us),
                        table::latency_cell(&t.latency, |l| l.p99_us),
                        table::latency_cell(&t.latency, |l| l.p999_us),
                        table::latency_cell(&t.latency, |l| l.max_us),
                        cell(&summary::outcomes_text(t.outcomes.as_ref())),
                    );
                }
            }
        }
        if st.rows.len() > 1 {
            let bases = s.base_rows(st, base);
            let _ = writeln!(o, "\nRelative to {} (value / base value):\n", s.describe_base(base));
            // Beside a row's ratios: the settings its config differs from the base's in that never acted here.
            let notes: Vec<Option<String>> = (0..st.rows.len())
                .map(|ri| bases[ri].filter(|&b| b != ri).and_then(|b| s.unexercised(st, ri, b)))
                .collect();
            let noted = notes.iter().any(Option::is_some);
            let head = header(&cols);
            if noted {
                // The header's two lines, each with one more column.
                let mut lines = head.lines();
                let _ = writeln!(o, "{} note |", lines.next().unwrap_or_default());
                let _ = writeln!(o, "{}:--|", lines.next().unwrap_or_default());
            } else {
                o.push_str(&head);
            }
            for (ri, row) in st.rows.iter().enumerate() {
                let _ = write!(o, "| {} |", cell(&row.label));
                for &mi in &cols {
                    let text = match bases[ri] {
                        Some(b) if b == ri => "base".to_string(),
                        Some(b) => summary::ratio(row.values[mi], st.rows[b].values[mi])
                            .map(summary::fmt_ratio)
                            .unwrap_or_else(|| "-".into()),
                        None => "-".into(),
                    };
                    let _ = write!(o, " {text} |");
                }
                if noted {
                    let _ = write!(o, " {} |", cell(notes[ri].as_deref().unwrap_or("")));
                }
                o.push('\n');
            }
            let cpu = sweep_tables.step_cpu_changes(s, st, base);
            if !cpu.is_empty() {
                o.push('\n');
                o.push_str(&profile_changes_markdown(&cpu));
            }
        }
        if st.has_writer() {
            o.push_str(
                "\nBackground writer:\n\n| config | target ops/s | achieved ops/s | target |\n|:--|--:|--:|:--|\n",
            );
            for row in &st.rows {
                if let Some(w) = &row.writer {
                    let verdict = match (w.target_ops_s, w.missed_target) {
                        (None, _) => "unpaced",
                        (Some(_), true) => "**MISSED**",
                        _ => "held",
                    };
                    let _ = writeln!(
                        o,
                        "| {} | {} | {} | {verdict} |",
                        cell(&row.label),
                        w.target_ops_s.map(table::num).unwrap_or_else(|| "-".into()),
                        table::num(w.achieved_ops_s)
                    );
                }
            }
        }
        o.push('\n');
    }
    let warnings: Vec<String> = s
        .runs
        .iter()
        .flat_map(|r| {
            r.warnings.iter().map(move |w| if s.multi_run() { format!("{}: {w}", r.label) } else { w.clone() })
        })
        .collect();
    if !warnings.is_empty() {
        o.push_str("Warnings:\n\n");
        for w in warnings {
            let _ = writeln!(o, "- {}", cell(&w));
        }
        o.push('\n');
    }
    o.push_str(&versions_markdown(&sweep_tables.versions));
    o.push_str(&config_sweep_markdown(&sweep_tables.configs));
    o.push_str(&super::scaling::render_markdown(s));
    o.push_str("<details><summary>Columns</summary>\n\n");
    for m in METRICS {
        let _ = writeln!(o, "- {} ({}): {}", m.label, m.unit, m.help);
    }
    let _ = writeln!(o, "- ND: not durable as run (fewer sync calls than commits); **bold**: best quarter of the step; ↑/↓: higher/lower is better");
    o.push_str("\n</details>\n");
    o
}

// Sections of the views, as markdown.

/// A section of summary.md.
pub fn relative_markdown(t: &Table) -> String {
    let mut o = format!("## {}\n\n{}\n\n", t.title, t.heading);
    for l in &t.legend {
        let _ = writeln!(o, "- {}", l.replace('|', "\\|"));
    }
    if !t.legend.is_empty() {
        o.push('\n');
    }
    let mut header = vec!["step".to_string(), "metric".to_string()];
    header.extend(t.columns.iter().map(|c| c.label.clone()));
    let _ = writeln!(o, "| {} |", header.join(" | "));
    let _ = writeln!(o, "|{}", "---|".repeat(header.len()));
    for r in &t.rows {
        let step = if t.unexercised_in(&r.step).next().is_some() { format!("{} \\*", r.step) } else { r.step.clone() };
        let mut cells = vec![step, t.metrics[r.metric].1.to_string(), relative::value_text(r.base)];
        cells.extend(r.cells.iter().map(|c| {
            let t = format!("{} {}", relative::value_text(c.value), relative::ratio_text(c));
            if c.verdict == Verdict::Regression {
                format!("**{t}**")
            } else {
                t
            }
        }));
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    o.push('\n');
    for u in &t.unexercised {
        let _ = writeln!(o, "- \\* {}", t.unexercised_text(u).replace('|', "\\|"));
    }
    for n in &t.notes {
        let _ = writeln!(o, "- {}", n.replace('|', "\\|"));
    }
    if !t.notes.is_empty() || !t.unexercised.is_empty() {
        o.push('\n');
    }
    o.push_str(&profile_changes_markdown(&t.cpu));
    o
}

/// Where the CPU went, per step whose profiled CPU per op moved: its
/// functions' changes (a version, config-sweep or step's relative table's).
fn profile_changes_markdown(steps: &[super::profile_changes::StepChanges]) -> String {
    let mut o = String::new();
    for st in steps {
        let _ = writeln!(
            o,
            "### Where the CPU went: {} against {}, {}\n\n{:.3} -> {:.3} µs/op profiled, {} against {} profiled repeats{}\n",
            st.new,
            st.base,
            st.step,
            st.base_us_op,
            st.new_us_op,
            st.n_base,
            st.n_new,
            if st.tested() { "" } else { " (one profiled run on a side: differences not tested against the repeats' spread)" }
        );
        if let Some(c) = st.caveat() {
            let _ = writeln!(o, "Warning: {c}.\n");
        }
        let _ = writeln!(o, "| role | library!function | base µs/op | new µs/op | difference | share | beyond the repeats |\n|---|---|---|---|---|---|---|");
        for c in &st.changes {
            let (role, frame) = c.key.split_once(';').unwrap_or(("", &c.key));
            let beyond = match c.beyond_repeats {
                Some(true) => "yes",
                Some(false) => "within",
                None => "untested",
            };
            let share = c.share.map(|x| format!("{:.0}%", x * 100.0)).unwrap_or_else(|| "-".into());
            let _ = writeln!(
                o,
                "| {role} | {} | {:.3} | {:.3} | {:+.3} | {share} | {beyond} |",
                frame.replace('|', "\\|"),
                c.base_us_op,
                c.new_us_op,
                c.diff()
            );
        }
        o.push('\n');
    }
    o
}

/// The version tables in markdown (sections of summary.md), or "".
pub fn versions_markdown(tables: &[Table]) -> String {
    tables.iter().map(relative_markdown).collect::<Vec<_>>().join("\n")
}

/// The config-sweep tables in markdown, or "".
pub fn config_sweep_markdown(tables: &[Table]) -> String {
    tables.iter().map(relative_markdown).collect()
}

/// The SLO searches as a markdown table, or "".
pub fn slo_markdown(rows: &[super::slo::Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut o = format!("### {}\n\n| {} |\n|", super::slo::TITLE, super::slo::COLUMNS.join(" | "));
    for c in super::slo::COLUMNS {
        o.push_str(if matches!(*c, "rate found" | "closed loop" | "probes") { "--:|" } else { "---|" });
    }
    o.push('\n');
    for r in rows {
        let cells: Vec<String> = r.cells().iter().map(|c| cell(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    o.push('\n');
    o
}

/// The stalled seconds as a markdown table, or "".
pub fn stalls_markdown(rows: &[super::stalls::Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut o = format!("### {}\n\n| {} |\n|", super::stalls::TITLE, super::stalls::COLUMNS.join(" | "));
    for c in super::stalls::COLUMNS {
        o.push_str(if matches!(*c, "second" | "max us" | "x p99") { "--:|" } else { "---|" });
    }
    o.push('\n');
    for r in rows {
        let cells: Vec<String> = r.cells().iter().map(|c| cell(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    o.push('\n');
    o
}

/// The grids as markdown tables, or "".
pub fn hotrow_markdown(grids: &[hotrow::Grid]) -> String {
    let mut o = String::new();
    for g in grids {
        let _ = writeln!(o, "### {}: {}\n", g.config, hotrow::TITLE);
        o.push_str("| tables |");
        for c in &g.clients {
            let _ = write!(o, " {c} clients | p99 us |");
        }
        o.push_str("\n|--:|");
        for _ in &g.clients {
            o.push_str("--:|--:|");
        }
        o.push('\n');
        for t in &g.tables {
            let _ = write!(o, "| {t} |");
            for c in &g.clients {
                let (x, p) = hotrow::value(g.cell(*t, *c));
                let _ = write!(o, " {x} | {p} |");
            }
            o.push('\n');
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixtures;

    #[test]
    fn mixed_steps_get_a_table_per_operation_type() {
        let text = Markdown.render(&fixtures::realistic_run()).unwrap();
        let section = |key: &str| {
            let start = text.find(&format!("### {key}\n")).unwrap_or_else(|| panic!("no {key}"));
            let end = text[start + 4..].find("### ").map(|e| start + 4 + e).unwrap_or(text.len());
            text[start..end].to_string()
        };
        let a = section("ycsb-a");
        assert!(a.contains("Per operation type:"), "{a}");
        assert!(
            a.contains(
                "| lmdb-nosync-writemap | READ | 2523456 | 84115.2 | 2.60 | 10.40 | 31.20 | 780.0 | 3 not found |"
            ),
            "{a}"
        );
        assert!(a.contains("| lmdb-nosync-writemap | UPDATE | 2522107 | 84070.2 | 7.30 | 29.20 | 87.60 | 2190.0 | 17 conflicts; 2 errors |"), "{a}");
        assert!(!section("readrandom").contains("Per operation type"));
        // Step warnings are listed once, with their config and step.
        let nd = "lmdb-nosync-writemap ycsb-a: not durable as run";
        assert_eq!(text.matches(nd).count(), 1, "{text}");
    }
}
