//! A step's charts in report.html: each config's series per second of the
//! step (rate, max response time, the background writer, memory, the
//! engine's counters) and its response time percentiles, as inline SVG.

use std::fmt::Write;

use super::summary::{self, StepTable};
use super::svg::{self, esc, Chart, Series, Unit};

/// Rate per second of each interval: full seconds only, unless the step
/// lasted less than one (then its one partial second, scaled).
fn rate_points(intervals: &[crate::measure::IntervalStats], wall_s: f64) -> Vec<(f64, f64)> {
    let full = summary::full_second_ops(intervals, wall_s);
    if !full.is_empty() {
        return full.iter().map(|iv| (iv.index as f64 + 1.0, iv.ops as f64)).collect();
    }
    intervals.iter().filter(|_| wall_s > 0.05).map(|iv| (wall_s, iv.ops as f64 / wall_s)).collect()
}

/// Max response time of each full second (the partial last one too when it is the only one).
fn max_points(intervals: &[crate::measure::IntervalStats], wall_s: f64) -> Vec<(f64, f64)> {
    let full = summary::full_second_ops(intervals, wall_s);
    let pick: Vec<&crate::measure::IntervalStats> = if full.is_empty() { intervals.iter().collect() } else { full };
    pick.iter().map(|iv| (iv.index as f64 + 1.0, iv.max_us)).collect()
}

/// A chart over the seconds of a step; response times on a log axis.
fn per_second(title: String, y_label: &str, y_unit: Unit, series: Vec<Series>) -> Chart {
    Chart {
        title,
        x_label: "second of the step".into(),
        y_label: y_label.into(),
        y_log: matches!(y_unit, Unit::Micros),
        y_unit,
        x_categories: None,
        series,
    }
}

pub(crate) fn step_charts(o: &mut String, step: &StepTable) {
    let series = |f: &dyn Fn(&summary::Row) -> Vec<(f64, f64)>| -> Vec<Series> {
        step.rows
            .iter()
            .map(|r| Series {
                name: r.label.clone(),
                color: svg::color(r.series).into(),
                style: svg::Style::Line,
                points: f(r),
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    let op = step.rows.iter().find_map(|r| r.main_op.clone()).unwrap_or_else(|| "op".into());
    let mut charts = vec![
        per_second(
            format!("{}: throughput per second ({op})", step.name),
            "ops/s",
            Unit::Count,
            series(&|r| rate_points(&r.intervals, r.wall_s.unwrap_or(0.0))),
        ),
        per_second(
            format!("{}: max response time per second ({op})", step.name),
            "max response time (log)",
            Unit::Micros,
            series(&|r| max_points(&r.intervals, r.wall_s.unwrap_or(0.0))),
        ),
        Chart {
            title: format!("{}: response time percentiles ({op})", step.name),
            x_label: "percentile".into(),
            y_label: "response time (log)".into(),
            y_unit: Unit::Micros,
            y_log: true,
            x_categories: Some(["p50", "p90", "p99", "p99.9", "p99.99", "max"].iter().map(|s| s.to_string()).collect()),
            series: series(&|r| {
                if r.latency.count == 0 {
                    return Vec::new();
                }
                let l = &r.latency;
                [l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us]
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (i as f64, *v))
                    .collect()
            }),
        },
    ];
    if step.has_writer() {
        let wop = step.rows.iter().find_map(|r| r.writer.as_ref().map(|w| w.op.clone())).unwrap_or_default();
        charts.push(per_second(
            format!("{}: background writer per second ({wop})", step.name),
            "writes/s",
            Unit::Count,
            series(&|r| {
                r.writer.as_ref().map(|w| rate_points(&w.intervals, r.wall_s.unwrap_or(0.0))).unwrap_or_default()
            }),
        ));
        charts.push(per_second(
            format!("{}: writer max response time per second", step.name),
            "max response time (log)",
            Unit::Micros,
            series(&|r| {
                r.writer.as_ref().map(|w| max_points(&w.intervals, r.wall_s.unwrap_or(0.0))).unwrap_or_default()
            }),
        ));
    }
    if step.rows.iter().any(|r| !r.memory.is_empty()) {
        charts.push(per_second(
            format!("{}: resident memory (RSS)", step.name),
            "RSS (MB)",
            Unit::Count,
            series(&|r| r.memory.iter().map(|m| (m.t_s, m.rss_bytes as f64 / 1048576.0)).collect()),
        ));
    }
    // The engine's own counters (--internals), on the same time axis; those
    // that stayed 0 in every config say nothing and are left out.
    let mut counters: Vec<&str> = Vec::new();
    for i in step.rows.iter().filter_map(|r| r.internals.as_ref()) {
        for n in &i.names {
            if !counters.contains(&n.as_str()) && i.points(n).iter().any(|p| p.1 != 0.0) {
                counters.push(n);
            }
        }
    }
    for name in counters {
        charts.push(per_second(
            format!("{}: engine's {name}", step.name),
            name,
            Unit::Count,
            series(&|r| r.internals.as_ref().map(|i| i.points(name)).unwrap_or_default()),
        ));
    }
    o.push_str(r#"<div class="legend">"#);
    for r in &step.rows {
        let _ = write!(
            o,
            r#"<span><span class="sw" style="background:{}"></span>{}</span>"#,
            svg::color(r.series),
            esc(&r.label)
        );
    }
    o.push_str(r#"</div><div class="charts">"#);
    for c in &charts {
        o.push_str(&c.render());
    }
    o.push_str("</div>");
}
