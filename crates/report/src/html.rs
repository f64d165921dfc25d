//! The self-contained HTML report: inline CSS, inline SVG charts, a few
//! lines of inline script that only check the page rendered. Nothing is
//! loaded from the network.

use std::fmt::Write;

use super::compare::{self, Verdict};
use super::hotrow;
use super::limits;
use super::relative::{self, Table};
use super::summary::{self, Base, Better, Rank, RatioClass, StepTable, Summary, METRICS};
use super::svg::{self, esc, Chart, Series, Unit};
use crate::measure::LatencySummary;
use crate::result::Status;
use crate::table;

pub struct HtmlOptions {
    pub base: Base,
    pub title: Option<String>,
    /// When the report was made (shown in the header).
    pub generated_at: String,
}

const CSS: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:13px;color:#222;margin:16px 24px;background:#fafafa}
h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 6px;border-bottom:2px solid #ccc;padding-bottom:3px}
h3{font-size:14px;margin:14px 0 4px}
nav a{margin-right:10px}
table{border-collapse:collapse;margin:4px 0 8px;background:#fff}
th,td{border:1px solid #d0d0d0;padding:2px 5px;text-align:right;white-space:nowrap}
th{background:#eef1f5;font-weight:600;white-space:normal;vertical-align:bottom}
table.summary,table.relative{font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
th.l,td.l{text-align:left}
td.top{background:#b7e4c0}td.bottom{background:#f7b9b9}
td.below{background:#fbd38d}td.above{background:#a9cdf5}
td.base{color:#777}
tr.missed td{background:#f7b9b9}
.meta{color:#555}
.warn{color:#9a3b00}
.mark{font-size:10px;font-weight:700;color:#a00;margin-left:3px}
.charts{display:flex;flex-wrap:wrap;gap:10px}
.charts svg{border:1px solid #ddd;background:#fff}
.legend{margin:4px 0}.legend span{display:inline-block;margin-right:14px}
.sw{display:inline-block;width:14px;height:4px;vertical-align:middle;margin-right:4px}
svg .ct{font-size:13px;font-weight:600;fill:#222}svg .tick{font-size:10px;fill:#444}svg .al{font-size:11px;fill:#333}
svg .grid line{stroke:#e6e6e6}svg .frame{fill:none;stroke:#999}svg .xt{stroke:#999}svg .nodata{font-size:14px;fill:#999}
table.env td{text-align:left;white-space:normal;max-width:900px}
ul{margin:2px 0 6px;padding-left:20px}
.small{font-size:11px}
"#;

/// Checks, after layout, that every chart has a size and a drawn plot; the
/// result goes on <body> so a headless browser's DOM dump shows it.
const CHECK_JS: &str = r#"(function(){
var charts=document.querySelectorAll('svg.chart'),ok=0,lines=0;
charts.forEach(function(s){var r=s.getBoundingClientRect();var p=s.querySelector('.plot');
var drawn=!p||p.getBoundingClientRect().width>0;if(r.width>100&&r.height>100&&drawn)ok++;
lines+=s.querySelectorAll('polyline').length;});
var rows=0;document.querySelectorAll('table.summary').forEach(function(t){rows+=t.rows.length-1;});
var b=document.body;b.setAttribute('data-charts',charts.length);b.setAttribute('data-charts-rendered',ok);
b.setAttribute('data-polylines',lines);b.setAttribute('data-summary-rows',rows);
})();"#;

fn header_cell(o: &mut String, mi: usize) {
    let m = &METRICS[mi];
    let arrow = match m.better {
        Better::Higher => " &uarr;",
        Better::Lower => " &darr;",
        Better::Neither => "",
    };
    let _ = write!(
        o,
        r#"<th title="{}">{}{arrow}<br><span class="small">{}</span></th>"#,
        esc(m.help),
        esc(m.label),
        esc(m.unit)
    );
}

fn summary_table(o: &mut String, step: &StepTable, cols: &[usize]) {
    let ranks = summary::rank_step(step);
    o.push_str(r#"<div class="scroll"><table class="summary"><thead><tr><th class="l">config</th>"#);
    for &mi in cols {
        header_cell(o, mi);
    }
    o.push_str("</tr></thead><tbody>");
    for (ri, row) in step.rows.iter().enumerate() {
        let _ = write!(
            o,
            r#"<tr><td class="l"><span class="sw" style="background:{}"></span>{}</td>"#,
            svg::color(row.series),
            esc(&row.label)
        );
        for &mi in cols {
            let class = match ranks[ri][mi] {
                Some(Rank::Top) => " class=\"top\"",
                Some(Rank::Bottom) => " class=\"bottom\"",
                _ => "",
            };
            let text = esc(&row.cell_text(mi));
            let mark = if METRICS[mi].key == "ops_s" && row.not_durable {
                format!(r#"<span class="mark" title="not durable as run">{}</span>"#, table::NOT_DURABLE_MARK)
            } else {
                String::new()
            };
            let _ = write!(o, "<td{class}>{text}{mark}</td>");
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div>");
}

fn relative_table(o: &mut String, s: &Summary, step: &StepTable, cols: &[usize], base: &Base) {
    let bases = s.base_rows(step, base);
    // Beside a row's ratios: the settings its config differs from the base's in that never acted here.
    let notes: Vec<Option<String>> = (0..step.rows.len())
        .map(|ri| bases[ri].filter(|&b| b != ri).and_then(|b| s.unexercised(step, ri, b)))
        .collect();
    o.push_str(r#"<div class="scroll"><table class="relative"><thead><tr><th class="l">config</th>"#);
    for &mi in cols {
        header_cell(o, mi);
    }
    if notes.iter().any(Option::is_some) {
        o.push_str(r#"<th class="l" title="a setting the config differs from the base in that could not have acted in this step">note</th>"#);
    }
    o.push_str("</tr></thead><tbody>");
    for (ri, row) in step.rows.iter().enumerate() {
        let _ = write!(
            o,
            r#"<tr><td class="l"><span class="sw" style="background:{}"></span>{}</td>"#,
            svg::color(row.series),
            esc(&row.label)
        );
        for &mi in cols {
            let cell = match bases[ri] {
                Some(b) if b == ri => r#"<td class="base">base</td>"#.to_string(),
                Some(b) => match summary::ratio(row.values[mi], step.rows[b].values[mi]) {
                    Some(r) => {
                        let better = match (METRICS[mi].better, r > 1.0) {
                            (Better::Neither, _) => "",
                            (Better::Higher, true) | (Better::Lower, false) => "better than base",
                            _ => "worse than base",
                        };
                        let class = match summary::ratio_class(r) {
                            RatioClass::Below => " class=\"below\"",
                            RatioClass::Above => " class=\"above\"",
                            RatioClass::Within => "",
                        };
                        format!(r#"<td{class} title="{better}">{}</td>"#, summary::fmt_ratio(r))
                    }
                    None => "<td>-</td>".into(),
                },
                None => r#"<td title="no base row">-</td>"#.into(),
            };
            o.push_str(&cell);
        }
        if notes.iter().any(Option::is_some) {
            let _ = write!(o, r#"<td class="l warn">{}</td>"#, esc(notes[ri].as_deref().unwrap_or("")));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div>");
}

/// Ceiling colours, one per resource of `limits::RESOURCES`.
const RESOURCE_COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"];

/// A step's ceilings per config, each with how it was computed (hover).
fn limits_table(o: &mut String, step: &StepTable) {
    let rows = limits::step_rows(step);
    if rows.is_empty() {
        return;
    }
    o.push_str(r#"<h3>Limits</h3><div class="scroll"><table class="limits"><thead><tr><th class="l">config</th><th title="every operation of the step per second, the background writer's included">ops/s<br><span class="small">all ops</span></th>"#);
    for r in limits::RESOURCES {
        let _ = write!(o, r#"<th>{} ceiling<br><span class="small">ops/s</span></th>"#, r.name());
    }
    o.push_str(r#"<th>% of limit</th><th class="l">unknown</th></tr></thead><tbody>"#);
    for r in &rows {
        let _ = write!(o, r#"<tr><td class="l">{}</td><td>{}</td>"#, esc(&r.label), summary::fmt_value(r.ops_s));
        for c in &r.ceilings {
            match c {
                Some((v, basis)) => {
                    let _ = write!(o, r#"<td title="{}">{}</td>"#, esc(basis), summary::fmt_value(*v));
                }
                None => o.push_str("<td>-</td>"),
            }
        }
        let _ = write!(
            o,
            r#"<td>{}</td><td class="l small">{}</td></tr>"#,
            esc(r.bound.as_deref().unwrap_or("-")),
            esc(&r.unknown.join("; "))
        );
    }
    o.push_str("</tbody></table></div>");
}

/// Per run and config: each step's rate (a point) and ceilings (lines), log scale.
fn limits_section(s: &Summary) -> String {
    let charts = limits::rooflines(s);
    if charts.iter().all(|c| c.rates.is_empty()) {
        return String::new();
    }
    let mut o = String::from(r#"<section id="limits"><h2>Limits: each step against its ceilings</h2><p class="meta">"#);
    o.push_str(&esc(
        "Each step's rate (every operation, the background writer's included) as a point, and the fastest each resource \
         allows it as a line: read, write and sync from the device's fio baseline (`rumbench device`) and the step's own reads, \
         bytes written and syncs per operation; cpu from the cores and the step's CPU per operation. The lowest line is the bound; \
         a point above a line is a measurement error (warned about). Hover a step's row in its Limits table for how each was computed.",
    ));
    if let Some(d) = s.runs.iter().find_map(|r| r.device.as_ref()) {
        let _ = write!(o, " Device: {}.", esc(d));
    }
    o.push_str(r#"</p><div class="legend">"#);
    for (i, r) in limits::RESOURCES.iter().enumerate() {
        let _ = write!(
            o,
            r#"<span><span class="sw" style="background:{}"></span>{} ceiling</span>"#,
            RESOURCE_COLORS[i],
            r.name()
        );
    }
    o.push_str(r#"<span><span class="sw" style="background:#000"></span>rate</span></div><div class="charts">"#);
    for c in &charts {
        let mut series: Vec<Series> = limits::RESOURCES
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                name: format!("{} ceiling", r.name()),
                color: RESOURCE_COLORS[i].into(),
                style: svg::Style::Ticks,
                points: c.lines[i].iter().map(|&(x, y)| (x as f64, y)).collect(),
            })
            .collect();
        series.push(Series {
            name: "rate".into(),
            color: "#000".into(),
            style: svg::Style::Points,
            points: c.rates.iter().map(|&(x, y)| (x as f64, y)).collect(),
        });
        let off = if c.off_chart > 0 {
            format!(
                " ({} {} over {}x the rate left off)",
                c.off_chart,
                if c.off_chart == 1 { "ceiling" } else { "ceilings" },
                limits::OFF_CHART
            )
        } else {
            String::new()
        };
        let chart = Chart {
            title: format!("{}: rate and ceilings{off}", c.title),
            x_label: "step".into(),
            y_label: "ops/s (log)".into(),
            y_unit: Unit::Count,
            y_log: true,
            x_categories: Some(c.steps.clone()),
            series,
        };
        o.push_str(&chart.render());
    }
    o.push_str("</div></section>");
    o
}

fn writer_table(o: &mut String, step: &StepTable) {
    o.push_str(
        r#"<table class="writer"><thead><tr><th class="l">config</th><th class="l">op</th><th>target<br><span class="small">ops/s</span></th><th>achieved<br><span class="small">ops/s</span></th><th>achieved / target</th><th class="l">target</th><th>p50<br><span class="small">us</span></th><th>p99<br><span class="small">us</span></th><th>max<br><span class="small">us</span></th></tr></thead><tbody>"#,
    );
    for row in &step.rows {
        let Some(w) = &row.writer else { continue };
        let (verdict, class) = match (w.target_ops_s, w.missed_target) {
            (None, _) => ("unpaced", ""),
            (Some(_), true) => ("MISSED", " class=\"missed\""),
            (Some(_), false) => ("held", ""),
        };
        let _ = write!(
            o,
            r#"<tr{class}><td class="l">{}</td><td class="l">{}</td><td>{}</td><td>{}</td><td>{}</td><td class="l">{verdict}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
            esc(&row.label),
            esc(&w.op),
            w.target_ops_s.map(table::num).unwrap_or_else(|| "-".into()),
            table::num(w.achieved_ops_s),
            w.target_ops_s
                .filter(|t| *t > 0.0)
                .map(|t| format!("{:.3}", w.achieved_ops_s / t))
                .unwrap_or_else(|| "-".into()),
            table::num(w.latency.p50_us),
            table::num(w.latency.p99_us),
            table::num(w.latency.max_us),
        );
    }
    o.push_str("</tbody></table>");
}

/// The step's parameters: one line when every row ran with the same, else one per row.
fn step_parameters(o: &mut String, step: &StepTable) {
    let first = match step.rows.first() {
        Some(r) if !r.parameters.is_empty() => &r.parameters,
        _ => return,
    };
    if step.rows.iter().all(|r| r.parameters == *first) {
        let _ = write!(o, r#"<p class="meta params">parameters: {}</p>"#, esc(&first.join(" ")));
        return;
    }
    o.push_str(r#"<ul class="meta params">"#);
    for r in &step.rows {
        let _ = write!(o, "<li>{}: {}</li>", esc(&r.label), esc(&r.parameters.join(" ")));
    }
    o.push_str("</ul>");
}

/// Each operation type of a mixed step per row: count, rate, latency, outcomes.
fn op_type_table(o: &mut String, step: &StepTable) {
    o.push_str(r#"<div class="scroll"><table class="optypes"><thead><tr><th class="l">config</th><th class="l">op</th><th>ops</th><th>ops/s</th>"#);
    for p in ["p50", "p90", "p99", "p99.9", "max"] {
        let _ = write!(o, r#"<th>{p}<br><span class="small">us</span></th>"#);
    }
    o.push_str(r#"<th class="l">outcomes</th></tr></thead><tbody>"#);
    for row in &step.rows {
        for (i, t) in row.op_types.iter().enumerate() {
            // The config's name once, on its first operation type.
            let label = if i == 0 {
                format!(r#"<span class="sw" style="background:{}"></span>{}"#, svg::color(row.series), esc(&row.label))
            } else {
                String::new()
            };
            let _ = write!(
                o,
                r#"<tr><td class="l">{label}</td><td class="l">{}</td><td>{}</td><td>{}</td>"#,
                esc(&t.op),
                t.ops,
                t.ops_s.map(summary::fmt_value).unwrap_or_else(|| "-".into())
            );
            let percentiles: [fn(&LatencySummary) -> f64; 5] =
                [|l| l.p50_us, |l| l.p90_us, |l| l.p99_us, |l| l.p999_us, |l| l.max_us];
            for p in percentiles {
                let _ = write!(o, "<td>{}</td>", table::latency_cell(&t.latency, p));
            }
            let _ = write!(o, r#"<td class="l">{}</td></tr>"#, esc(&summary::outcomes_text(t.outcomes.as_ref())));
        }
    }
    o.push_str("</tbody></table></div>");
}

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

fn step_charts(o: &mut String, step: &StepTable) {
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

/// A step's element id: letters, digits, '-', '_' and '.' only.
fn anchor(key: &str) -> String {
    let safe: String =
        key.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect();
    format!("step-{safe}")
}

fn status_text(s: Status) -> &'static str {
    match s {
        Status::Running => "running",
        Status::Completed => "completed",
        Status::Interrupted => "interrupted",
        Status::Failed => "failed",
        Status::NotRun => "not run",
    }
}

fn step_section(
    o: &mut String,
    s: &Summary,
    step: &StepTable,
    base: &Base,
    sweep_tables: &super::sweep_tables::SweepTables,
) {
    let _ = write!(o, r#"<section class="step" id="{}"><h2>{}</h2>"#, anchor(&step.key), esc(&step.key));
    let ops: Vec<String> = {
        let mut v: Vec<String> = step.rows.iter().filter_map(|r| r.main_op.clone()).collect();
        v.dedup();
        v
    };
    let threads: Vec<String> = {
        let mut v: Vec<usize> = step.rows.iter().map(|r| r.threads).collect();
        v.sort();
        v.dedup();
        v.iter().map(|t| t.to_string()).collect()
    };
    let walls: Vec<f64> = step.rows.iter().filter_map(|r| r.wall_s).collect();
    let wall = match walls.is_empty() {
        true => "-".to_string(),
        false => format!(
            "{:.1}&ndash;{:.1} s",
            walls.iter().copied().fold(f64::MAX, f64::min),
            walls.iter().copied().fold(f64::MIN, f64::max)
        ),
    };
    let _ = write!(
        o,
        r#"<p class="meta">main operation: {} &middot; client threads: {} &middot; wall time: {wall}</p>"#,
        esc(&ops.join(", ")),
        threads.join(", "),
    );
    step_parameters(o, step);
    let cols = step.present_metrics();
    o.push_str("<h3>Summary</h3>");
    summary_table(o, step, &cols);
    if step.is_mixed() {
        o.push_str("<h3>Per operation type</h3>");
        op_type_table(o, step);
    }
    limits_table(o, step);
    let notes: Vec<(String, String, bool)> = step
        .rows
        .iter()
        .flat_map(|r| {
            r.notes
                .iter()
                .map(|n| (r.label.clone(), n.clone(), false))
                .chain(r.warnings.iter().map(|w| (r.label.clone(), w.clone(), true)))
                .collect::<Vec<_>>()
        })
        .collect();
    if !notes.is_empty() {
        o.push_str("<ul class=\"notes\">");
        for (label, n, warn) in notes {
            let _ = write!(
                o,
                r#"<li{}>{}: {}{}</li>"#,
                if warn { " class=\"warn\"" } else { "" },
                esc(&label),
                if warn { "warning: " } else { "" },
                esc(&n)
            );
        }
        o.push_str("</ul>");
    }
    if step.rows.len() > 1 {
        let _ = write!(o, "<h3>Relative to {} (value / base value)</h3>", esc(&s.describe_base(base)));
        relative_table(o, s, step, &cols, base);
        let cpu = sweep_tables.step_cpu_changes(s, step, base);
        if !cpu.is_empty() {
            o.push_str(&profile_changes_html(&cpu));
        }
    }
    if step.has_writer() {
        o.push_str("<h3>Background writer: target rate</h3>");
        writer_table(o, step);
    }
    o.push_str("<h3>Charts</h3>");
    step_charts(o, step);
    o.push_str("</section>");
}

fn environment(o: &mut String, s: &Summary) {
    o.push_str(r#"<section id="environment"><h2>Environment and warnings</h2>"#);
    for r in &s.runs {
        let _ = write!(o, "<h3>Run {}</h3>", esc(&r.label));
        if r.warnings.is_empty() {
            o.push_str("<p class=\"meta\">No warnings.</p>");
        } else {
            o.push_str("<p><b>Warnings</b></p><ul>");
            for w in &r.warnings {
                let _ = write!(o, r#"<li class="warn">{}</li>"#, esc(w));
            }
            o.push_str("</ul>");
        }
        o.push_str(r#"<table class="env"><tbody>"#);
        let mut kv = |k: &str, v: &str| {
            let _ = write!(o, r#"<tr><td class="l"><b>{}</b></td><td class="l">{}</td></tr>"#, esc(k), esc(v));
        };
        kv("directory", &r.dir);
        kv(
            "status",
            &format!("{}{}", status_text(r.status), r.error.as_ref().map(|e| format!(": {e}")).unwrap_or_default()),
        );
        kv("started", &r.started_at);
        kv("finished", r.finished_at.as_deref().unwrap_or("-"));
        kv("rumbench", &format!("{} {}", r.rumbench_version, r.git_commit.as_deref().unwrap_or("")));
        if let Some(suite) = &r.suite {
            kv("suite", suite);
        }
        kv("command line", &r.command_line);
        if let serde_json::Value::Object(m) = &r.settings {
            let text: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}={}", if let Some(s) = v.as_str() { s.to_string() } else { v.to_string() }))
                .collect();
            kv("settings", &text.join(" "));
        }
        for c in &r.configs {
            let opts: Vec<String> = c.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
            kv(
                &format!("config {}", c.name),
                &format!(
                    "{} {}; allocator {}; {}{}",
                    c.engine,
                    c.engine_version.as_deref().unwrap_or("?"),
                    c.allocator_in_use.as_deref().unwrap_or("?"),
                    if opts.is_empty() { "default options".to_string() } else { opts.join(" ") },
                    c.error.as_ref().map(|e| format!("; {}: {e}", status_text(c.status))).unwrap_or_default()
                ),
            );
            if !c.provenance.is_empty() {
                let what: Vec<String> = c.provenance.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                kv(&format!("{} built as", c.name), &what.join("; "));
            }
        }
        if let Some(d) = &r.device {
            kv("device baseline", d);
        }
        if let Some(sys) = &r.system {
            for (k, v) in summary::environment_lines(sys) {
                kv(&k, &v);
            }
        }
        o.push_str("</tbody></table>");
    }
    o.push_str("</section>");
}

fn legend(o: &mut String) {
    o.push_str(r#"<section id="legend"><h2>Legend</h2><table class="legend-table"><thead><tr><th class="l">column</th><th class="l">unit</th><th class="l">better</th><th class="l">definition</th></tr></thead><tbody>"#);
    let _ = write!(
        o,
        r#"<tr><td class="l">config</td><td class="l">-</td><td class="l">-</td><td class="l">engine configuration; <i>run/config</i> when the report holds several runs</td></tr>"#
    );
    for m in METRICS {
        let better = match m.better {
            Better::Higher => "higher &uarr;",
            Better::Lower => "lower &darr;",
            Better::Neither => "not ranked",
        };
        let _ = write!(
            o,
            r#"<tr><td class="l">{}</td><td class="l">{}</td><td class="l">{better}</td><td class="l">{}</td></tr>"#,
            esc(m.label),
            esc(m.unit),
            esc(m.help)
        );
    }
    o.push_str("</tbody></table><ul>");
    for line in [
        "Summary colours: rank within the step per column; green = top quarter, red = bottom quarter, none when the worst is within 80% of the best. A dash: not measured (see the run's warnings).",
        "ND after ops/s: not durable as run: fewer sync calls than commits, so acknowledged writes could be lost in an OS crash.",
        "Relative table: value / base value per cell; orange = below 0.95, blue = above 1.05 (whether that is better depends on the column's arrow; hover a cell).",
        "Background writer: target and achieved rate; MISSED = achieved more than 5% below target. Its response time is measured from each write's intended start.",
        "Per operation type (steps that mix several, as YCSB's): each type's count, rate over the step's wall time, response times and how its operations ended (not found, conflicts retried, errors); the summary row has the step's totals and its main operation's response times.",
        "Charts: per-second series of the step's main operation (the partial last second is left out of rate charts); latency percentiles on a log scale; RSS sampled every second.",
    ] {
        let _ = write!(o, "<li>{}</li>", esc(line));
    }
    o.push_str("</ul></section>");
}

pub fn render(s: &Summary, opts: &HtmlOptions) -> String {
    let title = opts.title.clone().unwrap_or_else(|| {
        let labels: Vec<&str> = s.runs.iter().map(|r| r.label.as_str()).collect();
        format!("rumbench report: {}", labels.join(" vs "))
    });
    let mut o = String::with_capacity(256 * 1024);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{}</title><style>{CSS}</style></head><body>",
        esc(&title)
    );
    let _ = write!(
        o,
        "<h1>{}</h1><p class=\"meta\">generated {} by rumbench {}</p>",
        esc(&title),
        esc(&opts.generated_at),
        env!("CARGO_PKG_VERSION")
    );
    o.push_str(r#"<table class="runs"><thead><tr><th class="l">run</th><th class="l">directory</th><th class="l">started</th><th class="l">status</th><th class="l">configs</th><th class="l">warnings</th></tr></thead><tbody>"#);
    for r in &s.runs {
        let configs: Vec<String> = r
            .configs
            .iter()
            .map(|c| format!("{} ({} {})", c.name, c.engine, c.engine_version.as_deref().unwrap_or("?")))
            .collect();
        let _ = write!(
            o,
            r#"<tr><td class="l">{}</td><td class="l">{}</td><td class="l">{}</td><td class="l">{}</td><td class="l">{}</td><td>{}</td></tr>"#,
            esc(&r.label),
            esc(&r.dir),
            esc(&r.started_at),
            status_text(r.status),
            esc(&configs.join(", ")),
            r.warnings.len()
        );
    }
    o.push_str("</tbody></table><nav>steps: ");
    for st in &s.steps {
        let _ = write!(o, r##"<a href="#{}">{}</a>"##, anchor(&st.key), esc(&st.key));
    }
    let sweep_tables = super::sweep_tables::SweepTables::of(s);
    let versions = versions_html(&sweep_tables.versions);
    if !versions.is_empty() {
        o.push_str(r##" &middot; <a href="#versions">PostgreSQL versions</a>"##);
    }
    let scaling = super::scaling::render_html(s);
    if !scaling.is_empty() {
        o.push_str(r##" &middot; <a href="#scaling">concurrency sweeps</a>"##);
    }
    let config_sweeps = config_sweep_html(&sweep_tables.configs);
    if !config_sweeps.is_empty() {
        o.push_str(r##" &middot; <a href="#config-sweep">config sweep</a>"##);
    }
    let limits = limits_section(s);
    if !limits.is_empty() {
        o.push_str(r##" &middot; <a href="#limits">limits</a>"##);
    }
    let profiles = profiles_html(s);
    if !profiles.is_empty() {
        o.push_str(r##" &middot; <a href="#profiles">CPU profiles</a>"##);
    }
    o.push_str(r##" &middot; <a href="#environment">environment and warnings</a> <a href="#legend">legend</a></nav>"##);
    let crash_tests: Vec<&super::durability::Matrix> = s.runs.iter().filter_map(|r| r.durability.as_ref()).collect();
    if s.steps.is_empty() && crash_tests.is_empty() {
        o.push_str("<p>No step results in these runs.</p>");
    }
    for m in crash_tests {
        o.push_str(&durability_html(m));
    }
    for t in s.runs.iter().filter_map(|r| r.shards.as_ref()) {
        o.push_str(&shards_html(t));
    }
    for r in &s.runs {
        o.push_str(&hotrow_html(&r.hot_grids));
        o.push_str(&slo_html(&r.slo));
        o.push_str(&stalls_html(&r.stalls));
    }
    for st in &s.steps {
        step_section(&mut o, s, st, &opts.base, &sweep_tables);
    }
    o.push_str(&limits);
    o.push_str(&scaling);
    o.push_str(&versions);
    o.push_str(&config_sweeps);
    o.push_str(&profiles);
    environment(&mut o, s);
    legend(&mut o);
    let _ = writeln!(o, "<script>{CHECK_JS}</script></body></html>");
    o
}

// Sections of the views, as HTML.

/// A section of report.html; ratios below 0.95 and above 1.05 are
/// highlighted as in the report's other relative tables.
pub fn relative_html(t: &Table) -> String {
    let mut o = format!(r#"<section id="{}"><h2>{}</h2>"#, t.id, esc(&t.title));
    let _ = write!(
        o,
        r#"<p class="meta">{}</p><div class="scroll"><table class="relative"><thead><tr><th class="l">step</th><th class="l">metric</th>"#,
        esc(&t.heading)
    );
    for c in &t.columns {
        match &c.detail {
            Some(d) => {
                let _ = write!(o, "<th>{}<br>{}</th>", esc(&c.config), esc(d));
            }
            None => {
                let _ = write!(o, "<th>{}</th>", esc(&c.config));
            }
        }
    }
    o.push_str("</tr></thead><tbody>");
    for (ri, r) in t.rows.iter().enumerate() {
        let _ = write!(
            o,
            r#"<tr><td class="l">{}</td><td class="l">{}</td><td class="base">{}</td>"#,
            esc(&r.step),
            esc(t.metrics[r.metric].1),
            esc(&relative::value_text(r.base))
        );
        for (c, col) in r.cells.iter().zip(&t.columns[1..]) {
            let class = match c.ratio.filter(|_| c.verdict != Verdict::Missing).map(summary::ratio_class) {
                Some(RatioClass::Below) => " class=\"below\"",
                Some(RatioClass::Above) => " class=\"above\"",
                _ => "",
            };
            let text = esc(&format!("{} {}", relative::value_text(c.value), relative::ratio_text(c)));
            let text = if c.verdict == Verdict::Regression { format!("<b>{text}</b>") } else { text };
            // A CPU REGRESSION links to where the CPU went, when profiles say.
            let text = match t
                .cpu_change(&col.config, &r.step)
                .filter(|_| c.verdict == Verdict::Regression && relative::is_cpu_metric(t.metrics[r.metric].0))
            {
                Some(ch) => format!(r##"{text} <a href="#{}">where the CPU went</a>"##, ch.anchor()),
                None => text,
            };
            let _ = write!(
                o,
                "<td{class} title=\"interval {}: {}\">{text}</td>",
                esc(&compare::interval_text(c.interval.as_ref())),
                esc(&c.verdict.text())
            );
        }
        o.push_str("</tr>");
        // After a step's last row: its notes on settings that never acted, beside its ratios.
        if t.rows.get(ri + 1).is_none_or(|next| next.step != r.step) {
            for u in t.unexercised_in(&r.step) {
                let _ = write!(
                    o,
                    r#"<tr class="unexercised"><td class="l warn" colspan="{}">{}</td></tr>"#,
                    t.columns.len() + 2,
                    esc(&t.unexercised_text(u))
                );
            }
        }
    }
    o.push_str("</tbody></table></div>");
    if !t.notes.is_empty() {
        o.push_str("<ul>");
        for n in &t.notes {
            let _ = write!(o, "<li class=\"warn\">{}</li>", esc(n));
        }
        o.push_str("</ul>");
    }
    o.push_str(&profile_changes_html(&t.cpu));
    o.push_str("</section>");
    o
}

/// Where the CPU per operation went (`profile_changes`): per step that
/// moved, the functions whose self CPU per op changed most and a
/// differential flame graph; "" when nothing moved.
pub fn profile_changes_html(steps: &[super::profile_changes::StepChanges]) -> String {
    if steps.is_empty() {
        return String::new();
    }
    let us = |v: f64| format!("{v:.3}");
    let mut o = String::from(
        r#"<p class="meta">Where the CPU went: each profiled step whose CPU per operation moved beyond the threshold, its functions' self CPU per operation on each side (mean over each side's profiled repeats). A function is marked beyond the repeats when its difference exceeds the wider of the two sides' ranges of its cost over their repeats; with one profiled run on a side it is not tested. The flame graph is the new side's, red where a frame's CPU per operation grew against the base, blue where it shrank (frames only the base has are not drawn).</p>"#,
    );
    for st in steps {
        let _ = write!(
            o,
            r#"<h3 id="{}">Where the CPU went: {} against {}, {}</h3><p class="meta">{} &rarr; {} µs/op profiled ({:+.3}), {} against {} profiled repeats{}</p>"#,
            st.anchor(),
            esc(&st.new),
            esc(&st.base),
            esc(&st.step),
            us(st.base_us_op),
            us(st.new_us_op),
            st.new_us_op - st.base_us_op,
            st.n_base,
            st.n_new,
            if st.tested() {
                ""
            } else {
                r#"<br><span class="warn">one profiled run on a side: the differences are not tested against the repeats' spread (use --repeat)</span>"#
            },
        );
        if let Some(c) = st.caveat() {
            let _ = write!(o, r#"<p class="meta"><span class="warn">{}</span></p>"#, esc(&c));
        }
        o.push_str(r#"<table class="small"><thead><tr><th class="l">role</th><th class="l">library</th><th class="l">function</th><th>base µs/op</th><th>new µs/op</th><th>difference</th><th>share of the step's difference</th><th>beyond the repeats</th></tr></thead><tbody>"#);
        for c in &st.changes {
            let (role, frame) = c.key.split_once(';').unwrap_or(("", &c.key));
            let (lib, func) = frame.split_once('!').unwrap_or(("", frame));
            let class = if c.diff() > 0.0 { " class=\"above\"" } else { " class=\"below\"" };
            let _ = write!(
                o,
                r#"<tr><td class="l">{}</td><td class="l">{}</td><td class="l">{}</td><td>{}</td><td>{}</td><td{class}>{:+.3}</td><td>{}</td><td>{}</td></tr>"#,
                esc(role),
                esc(lib),
                esc(func),
                us(c.base_us_op),
                us(c.new_us_op),
                c.diff(),
                c.share.map(|x| format!("{:.0}%", x * 100.0)).unwrap_or_else(|| "-".into()),
                match c.beyond_repeats {
                    Some(true) => "yes",
                    Some(false) => "within",
                    None => "untested",
                }
            );
        }
        o.push_str("</tbody></table>");
        let svg = super::flame::render_diff(&st.base_stacks, &st.new_stacks);
        if !svg.is_empty() {
            let _ = write!(o, r#"<div class="scroll">{svg}</div>"#);
        }
    }
    o
}

/// `rumbench compare --html`: where the CPU went, as a page of its own.
pub fn profile_changes_page(labels: &[&str], steps: &[super::profile_changes::StepChanges]) -> String {
    let title = format!("rumbench compare: where the CPU went, {}", labels.join(" vs "));
    let mut o = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{CSS}</style></head><body><h1>{}</h1>",
        esc(&title),
        esc(&title)
    );
    if steps.is_empty() {
        o.push_str("<p>No profiled step's CPU per operation moved beyond the threshold (or the runs were not profiled: rumbench run --profile).</p>");
    }
    o.push_str(&profile_changes_html(steps));
    o.push_str("</body></html>\n");
    o
}

/// The steps' CPU profiles (`--profile`) as a section, or "": per step
/// and config, CPU per operation by role, a flame graph, the top functions
/// of each role and the roll-up by library.
pub fn profiles_html(s: &Summary) -> String {
    let views: Vec<&super::profiles::ProfileView> = s.runs.iter().flat_map(|r| &r.profiles).collect();
    if views.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        r#"<section id="profiles"><h2>CPU profiles</h2><p class="meta">Sampled by perf (cpu-clock) over each step's timed window; a sample is 1/rate s of one thread's CPU, so a function's samples over the step's operations are its CPU per operation. Roles: client (rumbench's threads outside the engine), engine-foreground (the engine's code on the clients' threads), engine-background (the engine's own threads), server (a server's processes). Self: in the function itself; total: with what it called.</p>"#,
    );
    let us = |v: f64| format!("{v:.3}");
    for v in views {
        let title = if s.runs.len() > 1 {
            format!("{} / {} / {}", v.run, v.config, v.step)
        } else {
            format!("{} / {}", v.config, v.step)
        };
        let _ = write!(o, r#"<h3 id="profile-{}">{}</h3>"#, anchor(&title), esc(&title));
        let roles: Vec<String> = v.roles.iter().map(|(r, c)| format!("{} {} µs/op", r.name(), us(*c))).collect();
        let _ = write!(
            o,
            r#"<p class="meta">{} samples at {} Hz ({}{} unwinding) over {} operations: {} µs of CPU per operation{}{}</p>"#,
            v.samples,
            v.hz,
            v.scope.map(|s| format!("{} events, ", s.name())).unwrap_or_default(),
            esc(&v.unwinding),
            v.ops,
            v.cpu_us_op.map(us).unwrap_or_else(|| "-".into()),
            if roles.is_empty() { String::new() } else { format!(" ({})", esc(&roles.join(", "))) },
            v.warning.as_ref().map(|w| format!(r#"<br><span class="warn">{}</span>"#, esc(w))).unwrap_or_default()
        );
        let svg = super::flame::render(&v.folded, v.us_per_sample);
        if !svg.is_empty() {
            let _ = write!(o, r#"<div class="scroll">{svg}</div>"#);
        }
        o.push_str(r#"<div class="charts"><div><table class="small"><thead><tr><th class="l">role</th><th class="l">library</th><th class="l">function</th><th>self µs/op</th><th>total µs/op</th></tr></thead><tbody>"#);
        for f in &v.functions {
            let name = f.frame.split_once('!').map(|(_, n)| n).unwrap_or(&f.frame);
            let _ = write!(
                o,
                r#"<tr><td class="l">{}</td><td class="l">{}</td><td class="l">{}</td><td>{}</td><td>{}</td></tr>"#,
                f.role.name(),
                esc(f.library()),
                esc(name),
                us(f.self_us_op),
                us(f.total_us_op)
            );
        }
        o.push_str(r#"</tbody></table></div><div><table class="small"><thead><tr><th class="l">role</th><th class="l">library</th><th>self µs/op</th></tr></thead><tbody>"#);
        for (role, lib, c) in &v.libraries {
            let _ = write!(
                o,
                r#"<tr><td class="l">{}</td><td class="l">{}</td><td>{}</td></tr>"#,
                role.name(),
                esc(lib),
                us(*c)
            );
        }
        o.push_str("</tbody></table></div></div>");
    }
    o.push_str("</section>");
    o
}

/// The version tables as HTML sections, or "".
pub fn versions_html(tables: &[Table]) -> String {
    tables.iter().map(relative_html).collect::<Vec<_>>().join("\n")
}

/// The config-sweep tables as HTML sections, or "".
pub fn config_sweep_html(tables: &[Table]) -> String {
    tables.iter().map(relative_html).collect()
}

/// A titled table as an HTML section: its heading lines, then the table
/// (`left(i)`: column i aligned left); the caller closes the section.
fn table_section(
    id: &str,
    title: &str,
    heading: &[String],
    header: &[&str],
    rows: &[Vec<String>],
    left: impl Fn(usize) -> bool,
) -> String {
    let mut o = format!(r#"<section id="{id}"><h2>{}</h2>"#, esc(title));
    for h in heading {
        let _ = write!(o, r#"<p class="meta">{}</p>"#, esc(h));
    }
    o.push_str(r#"<div class="scroll"><table><thead><tr>"#);
    for (i, h) in header.iter().enumerate() {
        let _ = write!(o, "<th{}>{}</th>", if left(i) { r#" class="l""# } else { "" }, esc(h));
    }
    o.push_str("</tr></thead><tbody>");
    for r in rows {
        o.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let _ = write!(o, "<td{}>{}</td>", if left(i) { r#" class="l""# } else { "" }, esc(c));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div>");
    o
}

/// A merged run's shards as an HTML section.
pub fn shards_html(t: &super::shards::ShardTable) -> String {
    let last = super::shards::HEADER.len() - 1;
    let mut o = table_section("shards", super::shards::TITLE, &t.heading, super::shards::HEADER, &t.rows, |i| {
        i < 2 || i == 3 || i == last
    });
    o.push_str("</section>");
    o
}

/// A crash test's durability matrix as an HTML section.
pub fn durability_html(m: &super::durability::Matrix) -> String {
    let last = super::durability::HEADER.len() - 1;
    let mut o =
        table_section("durability", super::durability::TITLE, &m.heading, super::durability::HEADER, &m.rows, |i| {
            i < 2 || i == last
        });
    for n in &m.notes {
        let _ = write!(o, "<p>{}</p>", esc(n));
    }
    o.push_str("</section>");
    o
}

/// A view's table in a section of its own, left open for what follows it.
fn titled_table_html(id: &str, title: &str, columns: &[&str], cells: Vec<Vec<String>>) -> String {
    let mut o = format!(r#"<section class="step" id="{id}"><h2>{title}</h2><table><thead><tr>"#);
    for c in columns {
        let _ = write!(o, "<th>{c}</th>");
    }
    o.push_str("</tr></thead><tbody>");
    for r in cells {
        o.push_str("<tr>");
        for c in r {
            let _ = write!(o, "<td>{}</td>", esc(&c));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table>");
    o
}

/// The stalled seconds, with the engine's counters at each; "".
pub fn stalls_html(rows: &[super::stalls::Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let cells = rows.iter().map(super::stalls::Row::cells).collect();
    titled_table_html("stalls", super::stalls::TITLE, super::stalls::COLUMNS, cells) + "</section>"
}

/// The SLO searches: a table, and per search a chart of its first
/// target's percentile against the offered rate with the limit drawn; "".
pub fn slo_html(rows: &[super::slo::Row]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let cells = rows.iter().map(super::slo::Row::cells).collect();
    let mut o = titled_table_html("slo", super::slo::TITLE, super::slo::COLUMNS, cells);
    for (i, r) in rows.iter().enumerate() {
        let curve = r.curve();
        let Some(target) = r.targets.first() else { continue };
        if curve.is_empty() {
            continue;
        }
        let (lo, hi) = (curve.first().unwrap().0, curve.last().unwrap().0);
        let chart = super::svg::Chart {
            title: format!("{} {}: {} against the offered rate", r.config, r.step, target.name()),
            x_label: "offered ops/s".into(),
            y_label: format!("{} us", target.name()),
            y_unit: super::svg::Unit::Micros,
            y_log: true,
            x_categories: None,
            series: vec![
                super::svg::Series {
                    name: "probes".into(),
                    color: super::svg::color(i).into(),
                    style: super::svg::Style::Line,
                    points: curve,
                },
                super::svg::Series {
                    name: format!("limit {} us", target.limit_us),
                    color: "#7f7f7f".into(),
                    style: super::svg::Style::Dashed,
                    points: vec![(lo, target.limit_us), (hi, target.limit_us)],
                },
            ],
        };
        o.push_str(&chart.render());
    }
    o.push_str("</section>");
    o
}

/// The grids as HTML tables, or "".
pub fn hotrow_html(grids: &[hotrow::Grid]) -> String {
    let mut o = String::new();
    for g in grids {
        let _ = write!(
            o,
            r#"<section class="step" id="hotrow-{0}"><h2>{0}: hot-row grid</h2><p>{1}</p><table><thead><tr><th>tables</th>"#,
            esc(&g.config),
            hotrow::TITLE
        );
        for c in &g.clients {
            let _ = write!(o, "<th>{c} clients</th><th>p99 us</th>");
        }
        o.push_str("</tr></thead><tbody>");
        for t in &g.tables {
            let _ = write!(o, "<tr><td>{t}</td>");
            for c in &g.clients {
                let (x, p) = hotrow::value(g.cell(*t, *c));
                let _ = write!(o, "<td>{x}</td><td>{p}</td>");
            }
            o.push_str("</tr>");
        }
        o.push_str("</tbody></table></section>");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixtures;
    use crate::summary::NamedRun;

    #[test]
    fn step_sections_show_parameters_and_operation_types() {
        let run = fixtures::realistic_run();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let page = render(&s, &HtmlOptions { base: s.default_base(), title: None, generated_at: "now".into() });
        let section = |key: &str| {
            let start =
                page.find(&format!(r#"<section class="step" id="step-{key}">"#)).unwrap_or_else(|| panic!("no {key}"));
            page[start..start + page[start..].find("</section>").unwrap()].to_string()
        };
        let a = section("ycsb-a");
        assert!(a.contains(r#"<p class="meta params">parameters: field_count=10 field_length=100 insert_order=hashed mode=cached ops=1000000"#), "{a}");
        assert!(a.contains(r#"<table class="optypes">"#));
        assert!(a.contains("<td class=\"l\">UPDATE</td><td>2522107</td><td>84070.2</td>"), "{a}");
        assert!(a.contains("17 conflicts; 2 errors"));
        assert!(!section("readrandom").contains("optypes"));
        assert!(section("readrandom").contains("distribution=uniform"));
    }
}
