//! A flame graph of folded stacks as a self-contained SVG (no script, no
//! network): the root at the bottom, each frame as wide as its samples,
//! its CPU per operation in the tooltip. Small on purpose: the one thing
//! a flame graph crate would add here is interactivity, which a report
//! read offline does without.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::svg::esc;
use crate::measure::profile::Folded;

const WIDTH: f64 = 1100.0;
const ROW: f64 = 16.0;
/// Frames narrower than this (pixels) are left out: they cannot be read.
const MIN_WIDTH: f64 = 0.4;

#[derive(Default)]
struct Node {
    /// What the frame's width stands for: samples, or µs per op.
    weight: f64,
    /// In a differential graph, the other side's weight of the same frame.
    base: f64,
    children: BTreeMap<String, Node>,
}

fn depth(n: &Node) -> usize {
    n.children.values().map(|c| 1 + depth(c)).max().unwrap_or(0)
}

fn tree<'a>(stacks: impl Iterator<Item = (&'a str, f64, f64)>) -> Node {
    let mut root = Node::default();
    for (stack, w, b) in stacks {
        root.weight += w;
        root.base += b;
        let mut at = &mut root;
        for frame in stack.split(';') {
            at = at.children.entry(frame.to_string()).or_default();
            at.weight += w;
            at.base += b;
        }
    }
    root
}

/// How a frame is coloured and what its tooltip says.
enum Mode {
    /// Samples; µs per op of one sample.
    Samples { us_per_sample: f64 },
    /// µs per op of the new side (the width) against the base side; the
    /// largest change of any frame (the colour's full scale).
    Diff { max_change: f64 },
}

/// The SVG of `folded`; `us_per_sample` turns samples into µs per op.
pub fn render(folded: &Folded, us_per_sample: f64) -> String {
    let root = tree(folded.stacks.iter().map(|(s, n)| (s.as_str(), *n as f64, 0.0)));
    draw(&root, &Mode::Samples { us_per_sample })
}

/// A differential flame graph: the frames as wide as their CPU per op on
/// the new side, red where it grew against the base side, blue where it
/// shrank (the deeper, the larger the change, against the largest of any
/// frame). Frames only the base side has are not drawn (no width on the
/// new side): the function table beside it names them.
pub fn render_diff(base: &[(String, f64)], new: &[(String, f64)]) -> String {
    let mut both: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for (s, v) in new {
        both.entry(s).or_default().0 += v;
    }
    for (s, v) in base {
        both.entry(s).or_default().1 += v;
    }
    let root = tree(both.iter().map(|(s, (n, b))| (*s, *n, *b)));
    let mut max_change = 0.0f64;
    fn walk(n: &Node, m: &mut f64) {
        for c in n.children.values() {
            *m = m.max((c.weight - c.base).abs());
            walk(c, m);
        }
    }
    walk(&root, &mut max_change);
    draw(&root, &Mode::Diff { max_change })
}

fn draw(root: &Node, mode: &Mode) -> String {
    if root.weight <= 0.0 {
        return String::new();
    }
    let rows = depth(root) + 1;
    let height = rows as f64 * ROW + 4.0;
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg class="flame" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#
    );
    let scale = WIDTH / root.weight;
    rect(&mut o, "all", root, root.weight, mode, 0.0, height - ROW - 2.0, WIDTH);
    frames(&mut o, root, root.weight, mode, scale, 0.0, height - 2.0 * ROW - 2.0);
    o.push_str("</svg>");
    o
}

fn frames(o: &mut String, node: &Node, total: f64, mode: &Mode, scale: f64, x0: f64, y: f64) {
    let mut x = x0;
    for (name, child) in &node.children {
        let w = child.weight * scale;
        if w >= MIN_WIDTH {
            rect(o, name, child, total, mode, x, y, w);
            frames(o, child, total, mode, scale, x, y - ROW);
        }
        x += w;
    }
}

#[allow(clippy::too_many_arguments, reason = "an SVG rectangle's geometry and its node, as drawn")]
fn rect(o: &mut String, name: &str, node: &Node, total: f64, mode: &Mode, x: f64, y: f64, w: f64) {
    let pct = 100.0 * node.weight / total;
    let label = esc(name);
    let (title, fill) = match mode {
        Mode::Samples { us_per_sample } => (
            format!("{label}: {} samples, {:.3} µs/op, {pct:.1}%", node.weight as u64, node.weight * us_per_sample),
            color(name),
        ),
        Mode::Diff { max_change } => {
            let d = node.weight - node.base;
            (
                format!("{label}: {:.3} µs/op, was {:.3} ({:+.3}), {pct:.1}%", node.weight, node.base, d),
                diff_color(d, *max_change),
            )
        }
    };
    let _ = write!(
        o,
        r#"<g><title>{title}</title><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{:.1}" fill="{fill}" rx="1"/>"#,
        ROW - 1.0
    );
    // Text only where some of it fits (about 6.5 px a character).
    let chars = ((w - 4.0) / 6.5) as usize;
    if chars >= 3 {
        let shown: String = if name.chars().count() > chars {
            name.chars().take(chars.saturating_sub(2)).collect::<String>() + ".."
        } else {
            name.to_string()
        };
        let _ = write!(o, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, x + 2.0, y + ROW - 4.5, esc(&shown));
    }
    o.push_str("</g>");
}

/// Red for growth, blue for shrinkage, white for none; saturated at the largest change.
fn diff_color(change: f64, max_change: f64) -> String {
    let f = if max_change > 0.0 { (change.abs() / max_change).min(1.0) } else { 0.0 };
    let fade = (255.0 - 200.0 * f).round() as u8;
    if change > 0.0 {
        format!("rgb(255,{fade},{fade})")
    } else if change < 0.0 {
        format!("rgb({fade},{fade},255)")
    } else {
        "rgb(255,255,255)".into()
    }
}

/// Warm colours by library (the part before '!'), so one library's frames
/// look alike; the kernel's and the roles' apart.
fn color(name: &str) -> String {
    let lib = name.split_once('!').map(|(l, _)| l).unwrap_or(name);
    match lib {
        "kernel" => "#f2a65a".into(),
        "client" | "engine-foreground" | "engine-background" | "server" | "all" => "#d9d9d9".into(),
        _ => {
            let h = lib.bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
            format!("hsl({}, 75%, {}%)", (h % 50) as i32 - 5 + 360, 60 + (h / 50 % 15))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_as_wide_as_their_samples() {
        let f = Folded { stacks: vec![("client;a!main;a!work".into(), 3), ("client;a!main;b!other".into(), 1)] };
        let svg = render(&f, 2.0);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("a!work: 3 samples, 6.000 µs/op, 75.0%"), "{svg}");
        assert!(svg.contains(r#"width="825.0""#), "a frame with 3 of 4 samples is 3/4 of the width");
        assert_eq!(render(&Folded::default(), 1.0), "");
    }

    #[test]
    fn a_differential_graph_is_red_where_the_cost_grew_and_blue_where_it_shrank() {
        let base = [("client;a!main;a!work".to_string(), 2.0), ("client;a!main;b!shrank".to_string(), 2.0)];
        let new = [
            ("client;a!main;a!work".to_string(), 2.0),
            ("client;a!main;b!shrank".to_string(), 1.0),
            ("client;a!main;c!grew".to_string(), 3.0),
        ];
        let svg = render_diff(&base, &new);
        // The new side's widths: a!main is 6 of 6 µs/op, c!grew 3 of 6 (half of 1100 px).
        assert!(
            svg.contains("c!grew: 3.000 µs/op, was 0.000 (+3.000), 50.0%</title><rect")
                && svg.contains(r#"width="550.0" height="15.0" fill="rgb(255,55,55)""#),
            "{svg}"
        );
        assert!(svg.contains("b!shrank: 1.000 µs/op, was 2.000 (-1.000)"), "{svg}");
        assert!(
            svg.contains("fill=\"rgb(188,188,255)\""),
            "a third of the largest change, shrinking: pale blue: {svg}"
        );
        assert!(
            svg.contains("a!work: 2.000 µs/op, was 2.000 (+0.000), 33.3%</title><rect x=\"0.0\"")
                && svg.contains("fill=\"rgb(255,255,255)\""),
            "{svg}"
        );
    }
}
