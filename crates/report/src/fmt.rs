//! Number and text formatting shared by every view and format (no format
//! of its own: the formats and the views both use it).

/// Format a rate or a latency compactly with 3-4 significant digits.
pub fn num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v >= 100_000.0 {
        format!("{:.0}", v)
    } else if v >= 100.0 {
        format!("{:.1}", v)
    } else if v >= 1.0 {
        format!("{:.2}", v)
    } else {
        format!("{:.3}", v)
    }
}

/// Wrap `text` at `width` columns (for the heading above a table).
pub fn wrap_text(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + w.len() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// How axis values are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unit {
    /// Plain counts with k/M suffixes (ops/s).
    Count,
    /// Microseconds shown as us, ms or s.
    Micros,
    /// Bytes shown as KB/MB/GB (2^10 steps).
    Bytes,
}

pub fn fmt_axis(v: f64, unit: Unit) -> String {
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    match unit {
        Unit::Count => {
            let a = v.abs();
            if a >= 1e9 {
                trim(format!("{:.2}", v / 1e9)) + "G"
            } else if a >= 1e6 {
                trim(format!("{:.2}", v / 1e6)) + "M"
            } else if a >= 1e3 {
                trim(format!("{:.2}", v / 1e3)) + "k"
            } else {
                trim(format!("{v:.2}"))
            }
        }
        Unit::Micros => {
            if v >= 1e6 {
                trim(format!("{:.2}", v / 1e6)) + "s"
            } else if v >= 1e3 {
                trim(format!("{:.2}", v / 1e3)) + "ms"
            } else {
                trim(format!("{v:.2}")) + "us"
            }
        }
        Unit::Bytes => {
            let a = v.abs();
            if a >= 1073741824.0 {
                trim(format!("{:.2}", v / 1073741824.0)) + "GB"
            } else if a >= 1048576.0 {
                trim(format!("{:.1}", v / 1048576.0)) + "MB"
            } else if a >= 1024.0 {
                trim(format!("{:.1}", v / 1024.0)) + "KB"
            } else {
                format!("{v:.0}B")
            }
        }
    }
}

/// "-2.1%..+3.4%": the smallest and largest repeat against the median.
pub fn range_text(spread: Option<(f64, f64)>, median: Option<f64>) -> String {
    match (spread, median) {
        (Some((lo, hi)), Some(m)) if m != 0.0 => {
            format!("{:+.1}%..{:+.1}%", 100.0 * (lo / m - 1.0), 100.0 * (hi / m - 1.0))
        }
        _ => "-".into(),
    }
}

/// 227058 -> "227,058".
pub fn thousands(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
