//! The self-contained HTML report: inline CSS, inline SVG charts, a few
//! lines of inline script that only check the page rendered. Nothing is
//! loaded from the network.
//!
//! This file holds the pages (the report, and `rumbench compare --html`'s
//! CPU page): their style, the runs' header, each step's section with its
//! tables, the environment and the legend. A step's charts are
//! `html_charts`', the views' sections `html_views`' (re-exported here).

use std::fmt::Write;

use super::html_charts::step_charts;
use super::html_views::{anchor, limits_section};
use super::limits;
use super::summary::{self, Base, Better, Rank, RatioClass, StepTable, Summary, METRICS};
use super::svg::{self, esc};
use crate::measure::LatencySummary;
use crate::result::Status;
use crate::table;

pub use super::html_views::{
    config_sweep_html, durability_html, hotrow_html, overview_html, profile_changes_html, profiles_html, relative_html,
    shards_html, slo_html, stalls_html, versions_html,
};

pub struct HtmlOptions {
    pub base: Base,
    pub title: Option<String>,
    /// When the report was made (shown in the header).
    pub generated_at: String,
}

const CSS: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:13px;color:#222;margin:16px 24px;background:#fafafa}
.barcell{width:140px;min-width:100px}.hbar{height:10px;background:#4878b0;border-radius:2px}
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
    o.push_str("</tbody></table><nav>");
    if !s.steps.is_empty() {
        o.push_str(r##"<a href="#overview">summary</a> &middot; "##);
    }
    o.push_str("steps: ");
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
    // What a reader wants first: every step and config side by side.
    o.push_str(&overview_html(s, &opts.base));
    for m in crash_tests {
        o.push_str(&durability_html(m));
    }
    for t in s.runs.iter().filter_map(|r| r.shards.as_ref()) {
        o.push_str(&shards_html(t));
    }
    for r in &s.runs {
        o.push_str(&hotrow_html(&r.hot_grids));
        o.push_str(&slo_html(&r.slo));
    }
    for st in &s.steps {
        step_section(&mut o, s, st, &opts.base, &sweep_tables);
    }
    // The seconds that stalled, after the steps they belong to.
    for r in &s.runs {
        o.push_str(&stalls_html(&r.stalls));
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

    /// The page opens with the comparison: the summary of every step and
    /// config, each row's ops/s drawn as a bar, before any step's section,
    /// and the stalled seconds come after the steps.
    #[test]
    fn the_summary_and_its_bars_come_first() {
        let run = fixtures::realistic_run();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let page = render(&s, &HtmlOptions { base: s.default_base(), title: None, generated_at: "now".into() });
        let summary = page.find(r#"<section class="step" id="overview">"#).expect("a summary");
        let first_step = page.find(r#"<section class="step" id="step-"#).expect("a step section");
        assert!(summary < first_step, "the summary before the steps");
        let table = &page[summary..first_step];
        let rows: Vec<&str> = table.split("<tr><td").skip(1).collect();
        assert!(rows.len() >= 2, "{table}");
        for row in rows {
            // The third cell is ops/s: "-" where the step has none.
            let ops = row.split("<td").nth(2).unwrap_or_default();
            let has_rate = !ops.starts_with(">-<");
            assert_eq!(row.contains(r#"<div class="hbar""#), has_rate, "a bar where there is ops/s: {row}");
        }
        assert!(table.contains(r#"style="width:100.0%""#), "the step's best is a full bar: {table}");
        if let Some(stalls) = page.find(r#"id="stalls"#) {
            assert!(stalls > first_step, "stalled seconds after the steps");
        }
    }
}
