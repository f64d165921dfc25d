//! The local results history: an SQLite index over run directories. The
//! directories stay the primary artifact; `rebuild` recreates the index from
//! them, and every figure shown from the history is read from result.json.
//!
//! This file shows it as text (the listing, the change points); the
//! database file is `history_db`'s, what it records and reads
//! `history_store`'s, both re-exported here.

use std::collections::BTreeSet;

pub use super::history_db::{
    check_recordable, default_path, resolve_path, History, APPLICATION_ID, FILE_NAME, SCHEMA_VERSION,
};
pub use super::history_store::{canonical_dir, check_date, Entry, Filter, Point, RebuildReport, Series};

/// What differs between two runs' contexts: "what a -> b", in `after`'s order.
pub fn differences(before: &[(String, String)], after: &[(String, String)]) -> Vec<String> {
    let find = |ctx: &[(String, String)], what: &str| ctx.iter().find(|(k, _)| k == what).map(|(_, v)| v.clone());
    let mut whats: Vec<&String> = after.iter().map(|(k, _)| k).collect();
    whats.extend(before.iter().map(|(k, _)| k).filter(|k| !after.iter().any(|(a, _)| a == *k)));
    whats
        .into_iter()
        .filter_map(|what| {
            let (a, b) = (find(before, what), find(after, what));
            (a != b).then(|| format!("{what} {} -> {}", a.as_deref().unwrap_or("-"), b.as_deref().unwrap_or("-")))
        })
        .collect()
}

/// The change points of every series, as text: for each change the runs
/// around it, the medians of the segments either side and what differed
/// between the two runs. Returns the text and the number of changes.
pub fn render_changes(series: &[Series], o: &crate::changes::Options) -> (String, usize) {
    use crate::changes::{change_points, median};
    use crate::table::num;
    let mut text = String::new();
    let mut found = 0;
    let mut short = 0;
    let runs: BTreeSet<i64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.id)).collect();
    let when = |p: &Point| p.started_at.replacen('T', " ", 1).chars().take(16).collect::<String>();
    for s in series {
        if s.points.len() < 2 * o.min_runs {
            short += 1;
            continue;
        }
        let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
        let changes = change_points(&values, o);
        if changes.is_empty() {
            continue;
        }
        found += changes.len();
        let unit = crate::summary::METRICS.iter().find(|m| m.key == s.metric).map(|m| m.unit).unwrap_or("");
        text.push_str(&format!(
            "{} {} {}: config {}, machine {}, {} runs (#{} .. #{})\n  settings: {}\n",
            s.engine,
            s.step,
            s.metric,
            s.config,
            s.machine,
            s.points.len(),
            s.points[0].id,
            s.points[s.points.len() - 1].id,
            if s.settings.is_empty() { "-" } else { &s.settings }
        ));
        for (i, c) in changes.iter().enumerate() {
            let start = if i == 0 { 0 } else { changes[i - 1].index };
            let end = changes.get(i + 1).map_or(values.len(), |n| n.index);
            let (before, after) = (median(&values[start..c.index]), median(&values[c.index..end]));
            let (a, b) = (&s.points[c.index - 1], &s.points[c.index]);
            let ratio = if before != 0.0 { format!("x{:.2}", after / before) } else { "from 0".into() };
            text.push_str(&format!(
                "  change at #{}: median {} -> {} {unit} ({ratio}, {} runs before, {} after, p={:.3})\n",
                b.id,
                num(before),
                num(after),
                c.index - start,
                end - c.index,
                c.p_value
            ));
            text.push_str(&format!(
                "    before: #{} {} {}\n    after:  #{} {} {}\n",
                a.id,
                when(a),
                a.dir,
                b.id,
                when(b),
                b.dir
            ));
            let differed = differences(&a.context, &b.context);
            if differed.is_empty() {
                text.push_str(
                    "    differed: nothing recorded (same rumbench, engine version and build, options and machine)\n",
                );
            } else {
                text.push_str(&format!("    differed: {}\n", differed.join("; ")));
            }
        }
    }
    let searched = series.len() - short;
    let mut last = if found == 0 {
        format!("no change points in {searched} series ({} runs)", runs.len())
    } else {
        format!("{found} change point{} in {searched} series ({} runs)", if found == 1 { "" } else { "s" }, runs.len())
    };
    if short > 0 {
        last.push_str(&format!("; {short} series with fewer than {} runs not searched", 2 * o.min_runs));
    }
    text.push_str(&last);
    text.push('\n');
    (text, found)
}

/// Render a listing as a text table.
pub fn render_list(entries: &[Entry], step: Option<&str>) -> String {
    let mut header = vec!["id", "started", "status", "configs", "steps"];
    let rate_header = step.map(|s| format!("{s} ops/s"));
    if let Some(h) = &rate_header {
        header.push(h);
    }
    header.push("directory");
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            let mut r = vec![
                format!("#{}", e.id),
                e.started_at.replacen('T', " ", 1).chars().take(16).collect(),
                e.status.clone(),
                e.configs
                    .iter()
                    .map(|(n, eng, v)| {
                        if n == eng {
                            format!("{n} {}", v.as_deref().unwrap_or("?"))
                        } else {
                            format!("{n} ({eng} {})", v.as_deref().unwrap_or("?"))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                e.steps.join(","),
            ];
            if step.is_some() {
                r.push(
                    e.step_rates
                        .iter()
                        .map(|(c, v)| format!("{c} {}", v.map(crate::table::num).unwrap_or_else(|| "-".into())))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
            }
            r.push(if e.dir_exists { e.dir.clone() } else { format!("{} (missing)", e.dir) });
            r
        })
        .collect();
    crate::table::render_table(&header, &rows)
}
