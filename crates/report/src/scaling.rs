//! Concurrency sweeps: per config and swept step, throughput and efficiency
//! at each thread count and the Universal Scalability Law fit; in text, in
//! markdown, and in HTML with a chart of the measured points, the fitted
//! curve and linear scaling.

use std::fmt::Write;

use super::concurrency::{self, Sweep};
use super::fmt::range_text;
use super::summary::Summary;
use super::svg::{self, esc, fmt_axis, Chart, Series, Style, Unit};
use crate::measure::usl::UslFit;
use crate::result::scaling::{shown_peak, POOR_FIT_R2};
use crate::result::RunResult;

fn ops(x: f64) -> String {
    fmt_axis(x, Unit::Count)
}

/// The rows of a sweep's table: label, then one cell per thread count.
/// With repeats: the median throughput, the repeats' range and the
/// efficiency's interval paired by round.
fn rows(sw: &Sweep) -> Vec<(&'static str, Vec<String>)> {
    let mut rows = vec![
        (
            "clients",
            sw.points.iter().map(|p| format!("{}{}", p.threads, if p.oversubscribed { "*" } else { "" })).collect(),
        ),
        (if sw.repeats > 1 { "ops/s (median)" } else { "ops/s" }, sw.points.iter().map(|p| ops(p.ops_s)).collect()),
    ];
    if sw.repeats > 1 {
        rows.push(("range", sw.points.iter().map(|p| range_text(p.range(), Some(p.ops_s))).collect()));
    }
    rows.push((
        "efficiency",
        sw.points.iter().map(|p| p.efficiency.map_or("-".into(), |e| format!("{e:.2}"))).collect(),
    ));
    if sw.points.iter().any(|p| p.efficiency_interval.is_some()) {
        rows.push((
            "efficiency 95% CI",
            sw.points
                .iter()
                .map(|p| p.efficiency_interval.map_or("-".into(), |i| format!("{:.2}..{:.2}", i.lo, i.hi)))
                .collect(),
        ));
    }
    rows
}

/// The legend of the clients row's mark, when a point has it.
fn oversubscribed_legend(sw: &Sweep) -> Option<&'static str> {
    sw.points
        .iter()
        .any(|p| p.oversubscribed)
        .then_some("* oversubscribed: more runnable threads (clients and the engine's own) than cores")
}

/// "readrandom" or "readrandom, median of 5 repeats".
fn heading(sw: &Sweep) -> String {
    if sw.repeats > 1 {
        format!("{} {}, median of {} repeats (the fit: every repeat's points)", sw.config, sw.step, sw.repeats)
    } else {
        format!("{} {}", sw.config, sw.step)
    }
}

/// The sweeps of a run (repeats merged), or "" when it has none.
pub fn render(run: &RunResult) -> String {
    let mut out = String::new();
    for sw in concurrency::sweeps(run) {
        if out.is_empty() {
            out.push_str(
                "concurrency sweeps, Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)):\n",
            );
        }
        match &sw.fit {
            Ok(f) => out.push_str(&format!("{}: {}\n", heading(&sw), fit_line(f, max_n(&sw)))),
            Err(why) => out.push_str(&format!("{}: no fit: {why}\n", heading(&sw))),
        }
        for n in &sw.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        for w in &sw.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        if sw.points.is_empty() {
            continue;
        }
        let rows = rows(&sw);
        let label_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let cell_w = (rows.iter().flat_map(|r| r.1.iter().map(|c| c.len())).max().unwrap_or(0) + 2).max(9);
        for (label, cells) in &rows {
            let label = if *label == "clients" { "threads" } else { label };
            out.push_str(&format!(
                "  {label:<label_w$}{}\n",
                cells.iter().map(|c| format!("{c:>cell_w$}")).collect::<String>()
            ));
        }
        if let Some(l) = oversubscribed_legend(&sw) {
            out.push_str(&format!("  {l}\n"));
        }
    }
    out
}

/// The largest measured client count.
fn max_n(sw: &Sweep) -> f64 {
    sw.points.iter().map(|p| p.threads).max().unwrap_or(1) as f64
}

/// The fitted law in one line: "lambda 1.2k ops/s, sigma 0.0310, kappa 0.000120, peak at N = 88 (29k ops/s), R^2 0.998".
/// A poor fit shows no peak; one beyond the measured range is "extrapolated".
fn fit_line(f: &UslFit, max_n: f64) -> String {
    let peak = match shown_peak(f, max_n) {
        Some((n, x, false)) => format!("peak at N = {n:.0} ({} ops/s)", ops(x)),
        Some((n, x, true)) => {
            format!("peak at N = {n:.0} ({} ops/s), extrapolated beyond the measured N = {max_n:.0}", ops(x))
        }
        None if f.r_squared < POOR_FIT_R2 => "poor fit, no peak".into(),
        None => "no peak (kappa 0)".into(),
    };
    format!(
        "lambda {} ops/s, sigma {:.4}, kappa {:.6}, {peak}, R^2 {:.3}",
        ops(f.lambda),
        f.sigma,
        f.kappa,
        f.r_squared
    )
}

/// The fit, or why there is none, with the sweep's notes.
fn fit_text(sw: &Sweep) -> String {
    let notes: String = sw.notes.iter().map(|n| format!("; {n}")).collect();
    match &sw.fit {
        Ok(f) => format!("{}{notes}", fit_line(f, max_n(sw))),
        Err(why) => format!("no fit: {why}{notes}"),
    }
}

/// Measured points, the fitted law over the measured range and linear
/// scaling from one client (cut where it leaves the chart's range, so the
/// curve is not squashed flat).
pub fn chart(label: &str, sw: &Sweep) -> Chart {
    let measured = sw.measured();
    let n_max = measured.iter().map(|p| p.0).fold(1.0, f64::max);
    let mut series = Vec::new();
    let mut y_max = measured.iter().map(|p| p.1).fold(0.0, f64::max);
    if let Ok(f) = &sw.fit {
        let steps = 80;
        let curve: Vec<(f64, f64)> =
            (0..=steps).map(|i| 1.0 + (n_max - 1.0) * i as f64 / steps as f64).map(|n| (n, f.throughput(n))).collect();
        y_max = curve.iter().map(|p| p.1).fold(y_max, f64::max);
        series.push(Series {
            name: format!("USL fit (sigma {:.4}, kappa {:.6})", f.sigma, f.kappa),
            color: svg::color(0).into(),
            style: Style::Line,
            points: curve,
        });
    }
    let x1 =
        sw.fit.as_ref().ok().map(|f| f.lambda).or_else(|| sw.points.iter().find(|p| p.threads == 1).map(|p| p.ops_s));
    if let Some(x1) = x1.filter(|x| *x > 0.0) {
        let n_end = n_max.min((1.3 * y_max / x1).max(1.0));
        series.push(Series {
            name: "linear scaling (N x X(1))".into(),
            color: "#7f7f7f".into(),
            style: Style::Dashed,
            points: vec![(1.0, x1), (n_end, n_end * x1)],
        });
    }
    let name = if sw.repeats > 1 { format!("measured ({} repeats)", sw.repeats) } else { "measured".into() };
    let over: Vec<f64> = sw.points.iter().filter(|p| p.oversubscribed).map(|p| p.threads as f64).collect();
    let (busy, fits): (Vec<_>, Vec<_>) = measured.into_iter().partition(|p| over.contains(&p.0));
    series.push(Series { name, color: svg::color(1).into(), style: Style::Points, points: fits });
    if !busy.is_empty() {
        series.push(Series {
            name: "oversubscribed (more runnable threads than cores)".into(),
            color: svg::color(3).into(),
            style: Style::Points,
            points: busy,
        });
    }
    Chart {
        title: format!("{label} {}: throughput by concurrency", sw.step),
        x_label: "clients (N)".into(),
        y_label: "ops/s".into(),
        y_unit: Unit::Count,
        y_log: false,
        x_categories: None,
        series,
    }
}

/// A sweep's label in a summary of several runs ("run/config").
fn label(s: &Summary, run: &str, sw: &Sweep) -> String {
    if s.multi_run() {
        format!("{run}/{}", sw.config)
    } else {
        sw.config.clone()
    }
}

/// The concurrency sweeps of a summary's runs as an HTML section, or "".
pub fn render_html(s: &Summary) -> String {
    let all: Vec<(String, &Sweep)> =
        s.runs.iter().flat_map(|r| r.scaling.iter().map(move |sw| (label(s, &r.label, sw), sw))).collect();
    if all.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        r#"<section id="scaling"><h2>Concurrency sweeps</h2><p class="meta">Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)), fitted by non-linear least squares: sigma = contention, kappa = coherency; efficiency = X(N) / (N X(1)). With repeats: the median over them, their range, and the efficiency's 95% interval paired by round; the law is fitted to every repeat's points. Chart: measured points (dots), the fitted law (line), linear scaling from one client (dashed).</p>"#,
    );
    for (label, sw) in all {
        let head = if sw.repeats > 1 {
            format!("{label} {}, median of {} repeats", sw.step, sw.repeats)
        } else {
            format!("{label} {}", sw.step)
        };
        let _ = write!(o, r#"<h3>{}</h3><p class="meta">{}</p>"#, esc(&head), esc(&fit_text(sw)));
        for w in &sw.warnings {
            let _ = write!(o, r#"<p class="warn">{}</p>"#, esc(w));
        }
        o.push_str(r#"<div class="scroll"><table class="scaling">"#);
        for (i, (name, cells)) in rows(sw).iter().enumerate() {
            let (open, close, cell) =
                if i == 0 { ("<thead><tr>", "</tr></thead><tbody>", "th") } else { ("<tr>", "</tr>", "td") };
            let _ = write!(o, r#"{open}<{cell} class="l">{}</{cell}>"#, esc(name));
            for c in cells {
                let _ = write!(o, "<{cell}>{}</{cell}>", esc(c));
            }
            o.push_str(close);
        }
        o.push_str("</tbody></table></div>");
        if let Some(l) = oversubscribed_legend(sw) {
            let _ = write!(o, r#"<p class="meta">{}</p>"#, esc(l));
        }
        o.push_str(&chart(&label, sw).render());
    }
    o.push_str("</section>");
    o
}

/// The concurrency sweeps as a section of summary.md, or "".
pub fn render_markdown(s: &Summary) -> String {
    let mut o = String::new();
    for r in &s.runs {
        for sw in &r.scaling {
            if o.is_empty() {
                o.push_str("## Concurrency sweeps\n\nUniversal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)); efficiency = X(N) / (N X(1)). With repeats: the median over them, their range, and the efficiency's 95% interval paired by round; the law is fitted to every repeat's points.\n\n");
            }
            let head = if sw.repeats > 1 {
                format!("{} {}, median of {} repeats", label(s, &r.label, sw), sw.step, sw.repeats)
            } else {
                format!("{} {}", label(s, &r.label, sw), sw.step)
            };
            let _ = writeln!(o, "**{head}**: {}\n", fit_text(sw).replace('|', "\\|"));
            for (i, (name, cells)) in rows(sw).iter().enumerate() {
                let _ = writeln!(o, "| {name} | {} |", cells.join(" | ").replace('*', "\\*"));
                if i == 0 {
                    let _ = writeln!(o, "|:--|{}", "--:|".repeat(cells.len()));
                }
            }
            if let Some(l) = oversubscribed_legend(sw) {
                let _ = writeln!(o, "\n{}", l.replace('*', "\\*"));
            }
            for w in &sw.warnings {
                let _ = writeln!(o, "\n> warning: {w}");
            }
            o.push('\n');
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::usl;
    use crate::result::fixtures;
    use crate::result::scaling::{Scaling, ScalingPoint};
    use crate::summary::NamedRun;

    fn swept() -> crate::result::RunResult {
        let mut run = fixtures::realistic_run();
        let xy: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
            .iter()
            .map(|&n| (n, 1000.0 * n / (1.0 + 0.05 * (n - 1.0) + 0.001 * n * (n - 1.0))))
            .collect();
        let fit = usl::fit(&xy).expect("a fit");
        let eff = usl::efficiency(&xy, Some(&fit));
        let points = xy
            .iter()
            .zip(eff)
            .map(|(&(n, x), e)| ScalingPoint { threads: n as usize, ops_s: x, efficiency: e, oversubscribed: false })
            .collect();
        run.configs[0].scaling = vec![Scaling {
            step: "readrandom".into(),
            points,
            fit: Some(fit),
            no_fit: None,
            warnings: Vec::new(),
            machine: None,
        }];
        run
    }

    #[test]
    fn html_draws_points_fit_and_linear_scaling() {
        let run = swept();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let html = render_html(&s);
        assert!(html.starts_with(r#"<section id="scaling">"#), "{html}");
        assert!(html.contains("sigma 0.0500, kappa 0.001000"), "{html}");
        assert_eq!(html.matches(r#"<circle class="point""#).count(), 6, "one dot per measured point");
        assert!(html.contains("stroke-dasharray"), "linear scaling is dashed");
        assert!(html.contains("<title>USL fit"), "{html}");
        let md = render_markdown(&s);
        assert!(md.contains("| efficiency | 1.00 |"), "{md}");
        // The linear line stops near the chart's top instead of running to 32 x X(1).
        let c = chart("c", &concurrency::sweeps(&run)[0]);
        let linear = c.series.iter().find(|s| s.style == Style::Dashed).unwrap();
        let top = run.configs[0].scaling[0].points.iter().map(|p| p.ops_s).fold(0.0, f64::max);
        assert!(linear.points[1].1 <= 1.31 * top * 1.01, "{:?}", linear.points);
        // No sweep: no section.
        let plain = fixtures::realistic_run();
        assert_eq!(
            render_html(&Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &plain }])),
            ""
        );
    }
}
