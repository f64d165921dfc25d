//! Concurrency sweeps: per config and swept step, throughput and efficiency
//! at each thread count and the Universal Scalability Law fit; in text, in
//! markdown, and in HTML with a chart of the measured points, the fitted
//! curve and linear scaling.

use std::fmt::Write;

use super::summary::Summary;
use super::svg::{self, esc, fmt_axis, Chart, Series, Style, Unit};
use crate::measure::usl::UslFit;
use crate::result::scaling::Scaling;
use crate::result::RunResult;

fn ops(x: f64) -> String {
    fmt_axis(x, Unit::Count)
}

/// The sweeps of a run, or "" when it has none.
pub fn render(run: &RunResult) -> String {
    let mut out = String::new();
    for c in &run.configs {
        for sc in &c.scaling {
            if out.is_empty() {
                out.push_str("concurrency sweeps, Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)):\n");
            }
            match (&sc.fit, &sc.no_fit) {
                (Some(f), _) => out.push_str(&format!("{} {}: {}\n", c.name, sc.step, fit_line(f))),
                (None, why) => out.push_str(&format!("{} {}: no fit: {}\n", c.name, sc.step, why.as_deref().unwrap_or("unknown"))),
            }
            if let (Some(_), Some(why)) = (&sc.fit, &sc.no_fit) {
                out.push_str(&format!("  note: {why}\n"));
            }
            if sc.points.is_empty() {
                continue;
            }
            let cell = |s: String| format!("{s:>9}");
            out.push_str(&format!("  {:<10}{}\n", "threads", sc.points.iter().map(|p| cell(p.threads.to_string())).collect::<String>()));
            out.push_str(&format!("  {:<10}{}\n", "ops/s", sc.points.iter().map(|p| cell(ops(p.ops_s))).collect::<String>()));
            out.push_str(&format!(
                "  {:<10}{}\n",
                "efficiency",
                sc.points.iter().map(|p| cell(p.efficiency.map_or("-".into(), |e| format!("{e:.2}")))).collect::<String>()
            ));
        }
    }
    out
}

/// The fitted law in one line: "lambda 1.2k ops/s, sigma 0.0310, kappa 0.000120, peak at N = 88 (29k ops/s), R^2 0.998".
fn fit_line(f: &UslFit) -> String {
    let peak = match (f.peak_n, f.peak_throughput) {
        (Some(n), Some(x)) => format!("peak at N = {n:.0} ({} ops/s)", ops(x)),
        _ => "no peak (kappa 0)".into(),
    };
    format!("lambda {} ops/s, sigma {:.4}, kappa {:.6}, {peak}, R^2 {:.3}", ops(f.lambda), f.sigma, f.kappa, f.r_squared)
}

/// The fit, or why there is none, with the sweep's note.
fn fit_text(sc: &Scaling) -> String {
    match (&sc.fit, &sc.no_fit) {
        (Some(f), note) => format!("{}{}", fit_line(f), note.as_deref().map(|n| format!("; {n}")).unwrap_or_default()),
        (None, why) => format!("no fit: {}", why.as_deref().unwrap_or("unknown")),
    }
}

/// Measured points, the fitted law over the measured range and linear
/// scaling from one client (cut where it leaves the chart's range, so the
/// curve is not squashed flat).
pub fn chart(config: &str, sc: &Scaling) -> Chart {
    let measured: Vec<(f64, f64)> = sc.points.iter().map(|p| (p.threads as f64, p.ops_s)).collect();
    let n_max = measured.iter().map(|p| p.0).fold(1.0, f64::max);
    let mut series = Vec::new();
    let mut y_max = measured.iter().map(|p| p.1).fold(0.0, f64::max);
    if let Some(f) = &sc.fit {
        let steps = 80;
        let curve: Vec<(f64, f64)> = (0..=steps).map(|i| 1.0 + (n_max - 1.0) * i as f64 / steps as f64).map(|n| (n, f.throughput(n))).collect();
        y_max = curve.iter().map(|p| p.1).fold(y_max, f64::max);
        series.push(Series { name: format!("USL fit (sigma {:.4}, kappa {:.6})", f.sigma, f.kappa), color: svg::color(0).into(), style: Style::Line, points: curve });
    }
    let x1 = sc.fit.as_ref().map(|f| f.lambda).or_else(|| measured.iter().find(|p| p.0 == 1.0).map(|p| p.1));
    if let Some(x1) = x1.filter(|x| *x > 0.0) {
        let n_end = n_max.min((1.3 * y_max / x1).max(1.0));
        series.push(Series { name: "linear scaling (N x X(1))".into(), color: "#7f7f7f".into(), style: Style::Dashed, points: vec![(1.0, x1), (n_end, n_end * x1)] });
    }
    series.push(Series { name: "measured".into(), color: svg::color(1).into(), style: Style::Points, points: measured });
    Chart {
        title: format!("{config} {}: throughput by concurrency", sc.step),
        x_label: "clients (N)".into(),
        y_label: "ops/s".into(),
        y_unit: Unit::Count,
        y_log: false,
        x_categories: None,
        series,
    }
}

/// The concurrency sweeps of a summary's runs as an HTML section, or "".
pub fn render_html(s: &Summary) -> String {
    let all: Vec<(String, &String, &Scaling)> = s
        .runs
        .iter()
        .flat_map(|r| r.scaling.iter().map(move |(c, sc)| (if s.multi_run() { format!("{}/{c}", r.label) } else { c.clone() }, c, sc)))
        .collect();
    if all.is_empty() {
        return String::new();
    }
    let mut o = String::from(r#"<section id="scaling"><h2>Concurrency sweeps</h2><p class="meta">Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)), fitted by non-linear least squares: sigma = contention, kappa = coherency; efficiency = X(N) / (N X(1)). Chart: measured points (dots), the fitted law (line), linear scaling from one client (dashed).</p>"#);
    for (label, _, sc) in all {
        let _ = write!(o, r#"<h3>{} {}</h3><p class="meta">{}</p>"#, esc(&label), esc(&sc.step), esc(&fit_text(sc)));
        o.push_str(r#"<div class="scroll"><table class="scaling"><thead><tr><th class="l">clients</th>"#);
        for p in &sc.points {
            let _ = write!(o, "<th>{}</th>", p.threads);
        }
        o.push_str(r#"</tr></thead><tbody><tr><td class="l">ops/s</td>"#);
        for p in &sc.points {
            let _ = write!(o, "<td>{}</td>", esc(&ops(p.ops_s)));
        }
        o.push_str(r#"</tr><tr><td class="l">efficiency</td>"#);
        for p in &sc.points {
            let _ = write!(o, "<td>{}</td>", p.efficiency.map_or("-".into(), |e| format!("{e:.2}")));
        }
        o.push_str("</tr></tbody></table></div>");
        o.push_str(&chart(&label, sc).render());
    }
    o.push_str("</section>");
    o
}

/// The concurrency sweeps as a section of summary.md, or "".
pub fn render_markdown(s: &Summary) -> String {
    let mut o = String::new();
    for r in &s.runs {
        for (config, sc) in &r.scaling {
            if o.is_empty() {
                o.push_str("## Concurrency sweeps\n\nUniversal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)); efficiency = X(N) / (N X(1)).\n\n");
            }
            let label = if s.multi_run() { format!("{}/{config}", r.label) } else { config.clone() };
            let _ = writeln!(o, "**{label} {}**: {}\n", sc.step, fit_text(sc).replace('|', "\\|"));
            let _ = writeln!(o, "| clients | {} |", sc.points.iter().map(|p| p.threads.to_string()).collect::<Vec<_>>().join(" | "));
            let _ = writeln!(o, "|:--|{}", "--:|".repeat(sc.points.len()));
            let _ = writeln!(o, "| ops/s | {} |", sc.points.iter().map(|p| ops(p.ops_s)).collect::<Vec<_>>().join(" | "));
            let _ = writeln!(o, "| efficiency | {} |\n", sc.points.iter().map(|p| p.efficiency.map_or("-".into(), |e| format!("{e:.2}"))).collect::<Vec<_>>().join(" | "));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::usl;
    use crate::report::summary::NamedRun;
    use crate::result::scaling::ScalingPoint;
    use crate::result::fixtures;

    fn swept() -> crate::result::RunResult {
        let mut run = fixtures::realistic_run();
        let xy: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0].iter().map(|&n| (n, 1000.0 * n / (1.0 + 0.05 * (n - 1.0) + 0.001 * n * (n - 1.0)))).collect();
        let fit = usl::fit(&xy).expect("a fit");
        let eff = usl::efficiency(&xy, Some(&fit));
        let points = xy.iter().zip(eff).map(|(&(n, x), e)| ScalingPoint { threads: n as usize, ops_s: x, efficiency: e }).collect();
        run.configs[0].scaling = vec![Scaling { step: "readrandom".into(), points, fit: Some(fit), no_fit: None }];
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
        let c = chart("c", &run.configs[0].scaling[0]);
        let linear = c.series.iter().find(|s| s.style == Style::Dashed).unwrap();
        let top = run.configs[0].scaling[0].points.iter().map(|p| p.ops_s).fold(0.0, f64::max);
        assert!(linear.points[1].1 <= 1.31 * top * 1.01, "{:?}", linear.points);
        // No sweep: no section.
        let plain = fixtures::realistic_run();
        assert_eq!(render_html(&Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &plain }])), "");
    }
}
