//! `rumbench compare` as text: the method, then per pair of configs a table
//! of step, metric, base, new, repeats, ratio, interval and verdict, and the
//! pair's concurrency-sweep fits (the view is `compare`).

use super::compare::{interval_text, method_text, Comparison, Pair, Verdict};
use super::summary::{self, METRICS};
use super::table;
use crate::measure::usl::UslFit;

/// The pair's concurrency sweeps side by side: the fitted law's parameters
/// (sigma = contention, kappa = coherency) of base and new per swept step.
fn render_scaling(p: &Pair) -> String {
    let mut o = String::from("concurrency sweeps, Universal Scalability Law fitted on each side (repeats pooled):\n");
    let peak = |f: &UslFit| match (f.peak_n, f.peak_throughput) {
        (Some(n), Some(x)) => format!("{n:.0} ({})", summary::fmt_value(x)),
        _ => "none".into(),
    };
    let mut rows = Vec::new();
    let mut why = Vec::new();
    for sp in &p.scaling {
        for (side, fit) in [("base", &sp.base), ("new", &sp.new)] {
            match fit {
                Ok(f) => rows.push(vec![
                    sp.step.clone(),
                    side.into(),
                    summary::fmt_value(f.lambda),
                    format!("{:.4}", f.sigma),
                    format!("{:.6}", f.kappa),
                    peak(f),
                    format!("{:.3}", f.r_squared),
                ]),
                Err(e) => {
                    rows.push(vec![
                        sp.step.clone(),
                        side.into(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                    ]);
                    why.push(format!("{} {side}: no fit: {e}", sp.step));
                }
            }
        }
    }
    o.push_str(&table::render_table(
        &["step", "side", "lambda ops/s", "sigma", "kappa", "peak N (ops/s)", "R^2"],
        &rows,
    ));
    for w in why {
        o.push_str(&format!("note: {w}\n"));
    }
    o
}

pub fn render(c: &Comparison) -> String {
    let mut o = table::wrap(&method_text(&c.options), 118).join("\n");
    o.push('\n');
    for n in &c.notes {
        o.push_str(&format!("note: {n}\n"));
    }
    for p in &c.pairs {
        o.push_str(&format!("\n{} -> {}\n", p.base, p.new));
        if p.family > 0 {
            o.push_str(&format!("primary (throughput, the engine's CPU per operation): {} judged together, each interval at {:.2}% confidence\n", p.family, p.level * 100.0));
        }
        if p.secondary > 0 {
            o.push_str(&format!(
                "secondary: {} judged at a 5% false-discovery rate (Benjamini-Hochberg): {} beyond the threshold, intervals at {:.2}%\n",
                p.secondary,
                p.discoveries,
                p.secondary_level * 100.0
            ));
        }
        let rows: Vec<Vec<String>> = p
            .lines
            .iter()
            .map(|l| {
                let m = &METRICS[l.metric];
                let f = |v: Option<f64>| v.map(summary::fmt_value).unwrap_or_else(|| "-".into());
                vec![
                    // A step where a setting the configs differ in never acted: marked, the note below.
                    if p.unexercised(&l.step).is_some() { format!("{} *", l.step) } else { l.step.clone() },
                    if l.control { format!("{} (control)", m.title()) } else { m.title() },
                    f(l.base),
                    f(l.new),
                    format!("{}/{}", l.n_base, l.n_new),
                    match (l.ratio, l.base, l.new) {
                        (Some(r), _, _) => format!("{r:.3}"),
                        (None, Some(_), Some(_)) => "inf".into(),
                        _ => "-".into(),
                    },
                    interval_text(l.interval.as_ref()),
                    l.verdict.text(),
                ]
            })
            .collect();
        o.push_str(&table::render_table(
            &["step", "metric", "base", "new", "runs", "ratio", "interval", "verdict"],
            &rows,
        ));
        for (step, note) in &p.unexercised {
            o.push_str(&format!("* {step}: {note}\n"));
        }
        for (step, text) in p.detectable() {
            o.push_str(&format!("{step}: could detect changes of {text} or more\n"));
        }
        for n in p.notes.iter().chain(&p.run_notes) {
            o.push_str(&format!("note: {n}\n"));
        }
        if !p.scaling.is_empty() {
            o.push_str(&render_scaling(p));
        }
    }
    let count = |f: &dyn Fn(Verdict) -> bool| c.pairs.iter().flat_map(|p| &p.lines).filter(|l| f(l.verdict)).count();
    o.push_str(&format!(
        "\n{} regressions, {} improvements, {} same, {} inconclusive, {} changed (no direction), {} without verdict (one run), {} withheld (control moved), {} on one side only\n",
        c.count(Verdict::Regression),
        c.count(Verdict::Improvement),
        c.count(Verdict::Same),
        count(&|v| matches!(v, Verdict::Inconclusive(_))),
        c.count(Verdict::Changed),
        c.count(Verdict::OneRun),
        count(&|v| matches!(v, Verdict::Withheld { .. })),
        c.count(Verdict::Missing)
    ));
    if c.pairs
        .iter()
        .flat_map(|p| &p.lines)
        .all(|l| matches!(l.verdict, Verdict::OneRun | Verdict::Missing | Verdict::ControlMoved { .. }))
    {
        o.push_str("no verdicts: one run per side says nothing about run-to-run noise; run with --repeat 5 (or more) for intervals and verdicts\n");
    }
    o
}
