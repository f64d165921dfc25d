//! A flame graph of folded stacks as a self-contained SVG (no script, no
//! network): the root at the bottom, each frame as wide as its samples,
//! its CPU per operation in the tooltip. Small on purpose: the one thing
//! a flame graph crate would add here is interactivity, which a report
//! read offline does without.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::measure::profile::Folded;
use super::svg::esc;

const WIDTH: f64 = 1100.0;
const ROW: f64 = 16.0;
/// Frames narrower than this (pixels) are left out: they cannot be read.
const MIN_WIDTH: f64 = 0.4;

#[derive(Default)]
struct Node {
    samples: u64,
    children: BTreeMap<String, Node>,
}

fn depth(n: &Node) -> usize {
    n.children.values().map(|c| 1 + depth(c)).max().unwrap_or(0)
}

/// The SVG of `folded`; `us_per_sample` turns samples into µs per op.
pub fn render(folded: &Folded, us_per_sample: f64) -> String {
    let mut root = Node::default();
    for (stack, n) in &folded.stacks {
        root.samples += n;
        let mut at = &mut root;
        for frame in stack.split(';') {
            at = at.children.entry(frame.to_string()).or_default();
            at.samples += n;
        }
    }
    if root.samples == 0 {
        return String::new();
    }
    let rows = depth(&root) + 1;
    let height = rows as f64 * ROW + 4.0;
    let mut o = String::new();
    let _ = write!(o, r#"<svg class="flame" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#);
    let total = root.samples;
    let scale = WIDTH / total as f64;
    rect(&mut o, "all", total, total, us_per_sample, 0.0, height - ROW - 2.0, WIDTH);
    frames(&mut o, &root, total, us_per_sample, scale, 0.0, height - 2.0 * ROW - 2.0);
    o.push_str("</svg>");
    o
}

fn frames(o: &mut String, node: &Node, total: u64, us: f64, scale: f64, x0: f64, y: f64) {
    let mut x = x0;
    for (name, child) in &node.children {
        let w = child.samples as f64 * scale;
        if w >= MIN_WIDTH {
            rect(o, name, child.samples, total, us, x, y, w);
            frames(o, child, total, us, scale, x, y - ROW);
        }
        x += w;
    }
}

#[allow(clippy::too_many_arguments)]
fn rect(o: &mut String, name: &str, samples: u64, total: u64, us: f64, x: f64, y: f64, w: f64) {
    let pct = 100.0 * samples as f64 / total as f64;
    let label = esc(name);
    let _ = write!(
        o,
        r#"<g><title>{label}: {samples} samples, {:.3} µs/op, {pct:.1}%</title><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{:.1}" fill="{}" rx="1"/>"#,
        samples as f64 * us,
        ROW - 1.0,
        color(name)
    );
    // Text only where some of it fits (about 6.5 px a character).
    let chars = ((w - 4.0) / 6.5) as usize;
    if chars >= 3 {
        let shown: String = if name.chars().count() > chars { name.chars().take(chars.saturating_sub(2)).collect::<String>() + ".." } else { name.to_string() };
        let _ = write!(o, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, x + 2.0, y + ROW - 4.5, esc(&shown));
    }
    o.push_str("</g>");
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
}
