//! summary.md: markdown tables for GitHub issues and blog posts, one table
//! per step, rendered from the report summary (`report::summary`).

use std::fmt::Write;

use anyhow::Result;

use super::{table, Exporter};
use crate::result::RunResult;
use crate::report::summary::{self, Base, Better, NamedRun, Rank, Summary, METRICS};

pub struct Markdown;

impl Exporter for Markdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        let s = Summary::build(&[NamedRun { label: "run".into(), dir: String::new(), run }]);
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
        let configs: Vec<String> = r.configs.iter().map(|c| format!("{} ({} {})", c.name, c.engine, c.engine_version.as_deref().unwrap_or("?"))).collect();
        let run = if s.multi_run() { format!("{}: ", r.label) } else { String::new() };
        let _ = writeln!(o, "- {run}started {}, rumbench {}, {}", r.started_at, r.rumbench_version, cell(&configs.join(", ")));
    }
    o.push('\n');
    for st in &s.steps {
        let cols = st.present_metrics();
        let ranks = summary::rank_step(st);
        let _ = writeln!(o, "### {}\n", st.key);
        o.push_str(&header(&cols));
        for (ri, row) in st.rows.iter().enumerate() {
            let _ = write!(o, "| {} |", cell(&row.label));
            for &mi in &cols {
                let mut text = row.values[mi].map(summary::fmt_value).unwrap_or_else(|| "-".into());
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
        let notes: Vec<String> = st.rows.iter().flat_map(|r| r.notes.iter().map(move |n| format!("{}: {n}", r.label))).collect();
        if !notes.is_empty() {
            o.push('\n');
            for n in notes {
                let _ = writeln!(o, "- {}", cell(&n));
            }
        }
        if st.rows.len() > 1 {
            let bases = s.base_rows(st, base);
            let _ = writeln!(o, "\nRelative to {} (value / base value):\n", s.describe_base(base));
            o.push_str(&header(&cols));
            for (ri, row) in st.rows.iter().enumerate() {
                let _ = write!(o, "| {} |", cell(&row.label));
                for &mi in &cols {
                    let text = match bases[ri] {
                        Some(b) if b == ri => "base".to_string(),
                        Some(b) => summary::ratio(row.values[mi], st.rows[b].values[mi]).map(summary::fmt_ratio).unwrap_or_else(|| "-".into()),
                        None => "-".into(),
                    };
                    let _ = write!(o, " {text} |");
                }
                o.push('\n');
            }
        }
        if st.has_writer() {
            o.push_str("\nBackground writer:\n\n| config | target ops/s | achieved ops/s | target |\n|:--|--:|--:|:--|\n");
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
    let warnings: Vec<String> = s.runs.iter().flat_map(|r| r.warnings.iter().map(move |w| if s.multi_run() { format!("{}: {w}", r.label) } else { w.clone() })).collect();
    if !warnings.is_empty() {
        o.push_str("Warnings:\n\n");
        for w in warnings {
            let _ = writeln!(o, "- {}", cell(&w));
        }
        o.push('\n');
    }
    o.push_str("<details><summary>Columns</summary>\n\n");
    for m in METRICS {
        let _ = writeln!(o, "- {} ({}): {}", m.label, m.unit, m.help);
    }
    let _ = writeln!(o, "- ND: not durable as run (fewer sync calls than commits); **bold**: best quarter of the step; ↑/↓: higher/lower is better");
    o.push_str("\n</details>\n");
    o
}
