//! The HTML of the views: the sections report.html shows beside its steps
//! (relative tables, CPU profiles and where the CPU went, versions, config
//! sweeps, limits, shards, durability, stalls, SLO searches, hot-row grids).
//! The page itself and its step sections are `html`'s.

use std::fmt::Write;

use super::compare::{self, Verdict};
use super::hotrow;
use super::limits;
use super::relative::{self, Table};
use super::summary::{self, RatioClass, Summary};
use super::svg::{self, esc, Chart, Series, Unit};

/// Ceiling colours, one per resource of `limits::RESOURCES`.
const RESOURCE_COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"];

/// Per run and config: each step's rate (a point) and ceilings (lines), log scale.
pub(crate) fn limits_section(s: &Summary) -> String {
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

/// A step's element id: letters, digits, '-', '_' and '.' only.
pub(crate) fn anchor(key: &str) -> String {
    let safe: String =
        key.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect();
    format!("step-{safe}")
}

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

/// The report's first section: every step and config in one table, the
/// figures a reader compares first (ops/s and its ratio to the base, p99,
/// CPU per operation, write-amp), each step's section linked; "" without steps.
pub fn overview_html(s: &Summary, base: &summary::Base) -> String {
    use super::summary::METRICS;
    if s.steps.is_empty() {
        return String::new();
    }
    let metric = |key: &str| METRICS.iter().position(|m| m.key == key);
    let (Some(ops), Some(p99), Some(cpu), Some(wamp)) =
        (metric("ops_s"), metric("p99_us"), metric("cpu_us_op"), metric("write_amp"))
    else {
        return String::new();
    };
    let mut o = String::from(
        r#"<section class="step" id="overview"><h2>summary</h2><p class="meta">every step and config; vs base: ops/s over the base config's in the same step (compare gives intervals and verdicts: <code>rumbench compare DIR</code>)</p><div class="scroll"><table class="overview"><thead><tr><th class="l">step</th><th class="l">config</th><th>ops/s</th><th class="l">of the step's best</th><th>vs base</th><th>p99 us</th><th>cpu us/op</th><th>w-amp</th></tr></thead><tbody>"#,
    );
    for st in &s.steps {
        let bases = s.base_rows(st, base);
        // Each row's ops/s as a bar, against the step's highest: the
        // comparison seen before it is read.
        let best = st.rows.iter().filter_map(|r| r.values[ops]).fold(0.0_f64, f64::max);
        for (ri, row) in st.rows.iter().enumerate() {
            let bar = match row.values[ops] {
                Some(v) if best > 0.0 => format!(
                    r#"<div class="hbar" style="width:{:.1}%" title="{:.0}% of the step's highest ops/s"></div>"#,
                    (100.0 * v / best).max(0.5),
                    100.0 * v / best
                ),
                _ => String::new(),
            };
            let ratio = match (bases[ri], row.values[ops]) {
                (Some(b), _) if b == ri => "base".to_string(),
                (Some(b), Some(v)) => match st.rows[b].values[ops] {
                    Some(bv) if bv > 0.0 => format!("{:.2}x", v / bv),
                    _ => "-".into(),
                },
                _ => "-".into(),
            };
            let mark = if row.not_durable { format!(" {}", crate::table::NOT_DURABLE_MARK) } else { String::new() };
            let _ = write!(
                o,
                r##"<tr><td class="l"><a href="#{}">{}</a></td><td class="l">{}</td><td>{}{mark}</td><td class="l barcell">{bar}</td><td>{ratio}</td><td>{}</td><td>{}</td><td>{}</td></tr>"##,
                anchor(&st.key),
                esc(&st.key),
                esc(&row.label),
                esc(&row.cell_text(ops)),
                esc(&row.cell_text(p99)),
                esc(&row.cell_text(cpu)),
                esc(&row.cell_text(wamp))
            );
        }
    }
    o.push_str("</tbody></table></div></section>");
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
