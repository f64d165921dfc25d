//! Inline SVG line charts for the HTML report: linear or log y axis, time or
//! category x axis. No library, no script: the browser only draws.

use std::fmt::Write;

/// Series colours, chosen to stay distinct for the first ten series.
pub const PALETTE: &[&str] =
    &["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];

pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

pub use super::fmt::{fmt_axis, Unit};

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Line,
    Dashed,
    /// Markers only: measured points beside a fitted curve.
    Points,
    /// A short horizontal line at each point (a category chart's level per
    /// category, such as a step's ceiling).
    Ticks,
}

#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub color: String,
    pub style: Style,
    pub points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub y_unit: Unit,
    pub y_log: bool,
    /// Category names for x = 0, 1, 2, ... (instead of a numeric axis).
    pub x_categories: Option<Vec<String>>,
    pub series: Vec<Series>,
}

const W: f64 = 640.0;
const H: f64 = 300.0;
const ML: f64 = 64.0;
const MR: f64 = 16.0;
const MT: f64 = 28.0;
const MB: f64 = 40.0;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// 1, 2 or 5 times a power of ten, about `n` steps over `span`.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = span / n;
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    p * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

fn linear_ticks(lo: f64, hi: f64, n: f64) -> Vec<f64> {
    if hi <= lo {
        return vec![lo];
    }
    let step = nice_step(hi - lo, n);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

impl Chart {
    /// Render as an `<svg>` element (class `chart`).
    pub fn render(&self) -> String {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        let mut o = String::new();
        let _ = write!(
            o,
            r#"<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{}">"#,
            esc(&self.title)
        );
        let _ = write!(o, r##"<rect x="0" y="0" width="{W}" height="{H}" fill="#fff"/>"##);
        let _ =
            write!(o, r#"<text x="{}" y="17" class="ct" text-anchor="middle">{}</text>"#, W / 2.0, esc(&self.title));
        let (pl, pr, pt, pb) = (ML, W - MR, MT, H - MB);
        if pts.is_empty() {
            let _ = write!(
                o,
                r#"<text x="{}" y="{}" text-anchor="middle" class="nodata">no data</text></svg>"#,
                W / 2.0,
                H / 2.0
            );
            return o;
        }
        // X range.
        let (x0, x1) = match &self.x_categories {
            Some(c) => (-0.3, (c.len().max(1) - 1) as f64 + 0.3),
            None => {
                let lo = pts.iter().map(|p| p.0).fold(f64::MAX, f64::min).min(0.0);
                let hi = pts.iter().map(|p| p.0).fold(f64::MIN, f64::max);
                (lo, if hi > lo { hi } else { lo + 1.0 })
            }
        };
        // Y range.
        let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let (y0, y1, yticks): (f64, f64, Vec<f64>) = if self.y_log {
            let pos: Vec<f64> = ys.iter().copied().filter(|y| *y > 0.0).collect();
            let lo = pos.iter().copied().fold(f64::MAX, f64::min);
            let hi = pos.iter().copied().fold(f64::MIN, f64::max);
            let (lo, hi) = if pos.is_empty() { (1.0, 10.0) } else { (lo, hi) };
            let d0 = lo.log10().floor();
            let mut d1 = hi.log10().ceil();
            if d1 <= d0 {
                d1 = d0 + 1.0;
            }
            let ticks = (d0 as i32..=d1 as i32).map(|d| 10f64.powi(d)).collect();
            (10f64.powf(d0), 10f64.powf(d1), ticks)
        } else {
            let hi = ys.iter().copied().fold(f64::MIN, f64::max).max(0.0);
            let lo = ys.iter().copied().fold(f64::MAX, f64::min).min(0.0);
            let hi = if hi > lo { hi * 1.05 } else { lo + 1.0 };
            let ticks = linear_ticks(lo, hi, 5.0);
            let top = ticks.last().copied().unwrap_or(hi).max(hi);
            (lo, top, ticks)
        };
        let sx = |x: f64| pl + (x - x0) / (x1 - x0) * (pr - pl);
        let sy = |y: f64| {
            let f = if self.y_log {
                let y = y.max(y0);
                (y.log10() - y0.log10()) / (y1.log10() - y0.log10())
            } else {
                (y - y0) / (y1 - y0)
            };
            pb - f * (pb - pt)
        };
        // Grid and y axis labels.
        let _ = write!(o, r#"<g class="grid">"#);
        for t in &yticks {
            let y = sy(*t);
            let _ = write!(o, r#"<line x1="{pl:.1}" x2="{pr:.1}" y1="{y:.1}" y2="{y:.1}"/>"#);
        }
        let _ = write!(o, "</g>");
        for t in &yticks {
            let _ = write!(
                o,
                r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="end">{}</text>"#,
                pl - 5.0,
                sy(*t) + 4.0,
                fmt_axis(*t, self.y_unit)
            );
        }
        // X axis labels.
        match &self.x_categories {
            Some(cats) => {
                for (i, c) in cats.iter().enumerate() {
                    let _ = write!(
                        o,
                        r#"<text x="{:.1}" y="{:.1}" class="tick" text-anchor="middle">{}</text>"#,
                        sx(i as f64),
                        pb + 16.0,
                        esc(c)
                    );
                }
            }
            None => {
                for t in linear_ticks(x0, x1, 8.0) {
                    let x = sx(t);
                    let _ =
                        write!(o, r#"<line class="xt" x1="{x:.1}" x2="{x:.1}" y1="{pb:.1}" y2="{:.1}"/>"#, pb + 4.0);
                    let _ = write!(
                        o,
                        r#"<text x="{x:.1}" y="{:.1}" class="tick" text-anchor="middle">{}</text>"#,
                        pb + 16.0,
                        fmt_axis(t, Unit::Count)
                    );
                }
            }
        }
        let _ = write!(
            o,
            r#"<rect class="frame" x="{pl:.1}" y="{pt:.1}" width="{:.1}" height="{:.1}"/>"#,
            pr - pl,
            pb - pt
        );
        let _ = write!(
            o,
            r#"<text x="{:.1}" y="{:.1}" class="al" text-anchor="middle">{}</text>"#,
            (pl + pr) / 2.0,
            H - 6.0,
            esc(&self.x_label)
        );
        let _ = write!(
            o,
            r#"<text transform="translate(13 {:.1}) rotate(-90)" class="al" text-anchor="middle">{}</text>"#,
            (pt + pb) / 2.0,
            esc(&self.y_label)
        );
        // Series.
        let _ = write!(o, r#"<g class="plot">"#);
        for s in &self.series {
            let p: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
            if p.is_empty() {
                continue;
            }
            if s.style == Style::Ticks {
                for &(x, y) in &p {
                    let _ = write!(
                        o,
                        r#"<line class="series" x1="{:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="{}" stroke-width="2.5"><title>{}</title></line>"#,
                        sx(x - 0.25),
                        sx(x + 0.25),
                        sy(y),
                        sy(y),
                        s.color,
                        esc(&s.name)
                    );
                }
                continue;
            }
            if s.style == Style::Points {
                for &(x, y) in &p {
                    let _ = write!(
                        o,
                        r#"<circle class="point" cx="{:.1}" cy="{:.1}" r="4" fill="{}"><title>{}</title></circle>"#,
                        sx(x),
                        sy(y),
                        s.color,
                        esc(&s.name)
                    );
                }
                continue;
            }
            let coords: Vec<String> = p.iter().map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y))).collect();
            let dash = if s.style == Style::Dashed { r#" stroke-dasharray="5 3""# } else { "" };
            let _ = write!(
                o,
                r#"<polyline class="series" fill="none" stroke="{}" stroke-width="1.6"{dash} points="{}"><title>{}</title></polyline>"#,
                s.color,
                coords.join(" "),
                esc(&s.name)
            );
            if p.len() <= 30 && s.style == Style::Line {
                for &(x, y) in &p {
                    let _ = write!(o, r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{}"/>"#, sx(x), sy(y), s.color);
                }
            }
        }
        let _ = write!(o, "</g></svg>");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels() {
        assert_eq!(fmt_axis(1500.0, Unit::Count), "1.5k");
        assert_eq!(fmt_axis(2_000_000.0, Unit::Count), "2M");
        assert_eq!(fmt_axis(10.0, Unit::Micros), "10us");
        assert_eq!(fmt_axis(1000.0, Unit::Micros), "1ms");
        assert_eq!(fmt_axis(3_000_000.0, Unit::Micros), "3s");
        assert_eq!(fmt_axis(64.0 * 1048576.0, Unit::Bytes), "64MB");
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(linear_ticks(0.0, 10.0, 5.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear_ticks(0.0, 950.0, 5.0), vec![0.0, 200.0, 400.0, 600.0, 800.0]);
    }

    #[test]
    fn charts_render_lines_or_say_no_data() {
        let mut c = Chart {
            title: "t <1>".into(),
            x_label: "s".into(),
            y_label: "ops/s".into(),
            y_unit: Unit::Count,
            y_log: false,
            x_categories: None,
            series: vec![Series {
                name: "a".into(),
                color: color(0).into(),
                style: Style::Line,
                points: vec![(1.0, 10.0), (2.0, 0.0), (3.0, 12.0)],
            }],
        };
        let svg = c.render();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("<polyline") && svg.contains("t &lt;1&gt;"));
        c.y_log = true;
        assert!(c.render().contains("<polyline"));
        c.series.clear();
        assert!(c.render().contains("no data"));
    }
}
