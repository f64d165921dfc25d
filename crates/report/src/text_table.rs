//! Text tables laid out: columns aligned, and a table fitted to a width
//! (long config names shortened, notes wrapped onto continuation rows).
//! The text formats draw with these; what goes in the tables is theirs.

/// Render rows as an aligned text table (the first two columns left-aligned, others right).
pub fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    render_aligned(header, rows, &[0, 1])
}

/// Render rows as an aligned text table, columns `left` left-aligned and the others right.
pub(crate) fn render_aligned(header: &[&str], rows: &[Vec<String>], left: &[usize]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let mut s = String::new();
        for (i, c) in cells.enumerate() {
            let pad = widths[i] - c.chars().count();
            if left.contains(&i) {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
            s.push_str("  ");
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&mut header.iter().copied());
    out.push_str(&line(&mut widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().iter().map(String::as_str)));
    for r in rows {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    out
}

/// The narrowest notes column the compact table makes room for (by shortening config names).
const NOTES_MIN_WIDTH: usize = 24;
/// Config names are never shortened below this.
const CONFIG_MIN_WIDTH: usize = 12;

/// Fit a table (config first, notes last) into `width` characters: shorten
/// config names that do not fit (returned as (short, full) pairs for a key)
/// and wrap notes onto continuation rows.
pub(crate) fn fit(header: &[&str], rows: Vec<Vec<String>>, width: usize) -> (Vec<Vec<String>>, Vec<(String, String)>) {
    let last = header.len() - 1;
    let natural =
        |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0);
    // Everything between the first and the last column, with the two spaces after each column.
    let middle: usize = (1..last).map(natural).sum::<usize>() + 2 * last;
    let room = width.saturating_sub(middle);
    let notes_wanted = natural(last).min(NOTES_MIN_WIDTH);
    let config_width = natural(0).min(room.saturating_sub(notes_wanted).max(CONFIG_MIN_WIDTH));
    let notes_width = room.saturating_sub(config_width).max(header[last].len());

    let mut names: Vec<String> = Vec::new();
    for r in &rows {
        if !r[0].is_empty() && !names.contains(&r[0]) {
            names.push(r[0].clone());
        }
    }
    let short = shorten_names(&names, config_width);
    let shortened: Vec<(String, String)> =
        names.iter().zip(&short).filter(|(n, s)| n != s).map(|(n, s)| (s.clone(), n.clone())).collect();

    let mut out = Vec::new();
    for mut r in rows {
        if let Some(i) = names.iter().position(|n| *n == r[0]) {
            r[0] = short[i].clone();
        }
        let mut lines = wrap(&r[last], notes_width).into_iter();
        r[last] = lines.next().unwrap_or_default();
        out.push(r);
        for more in lines {
            let mut cont = vec![String::new(); last];
            cont.push(more);
            out.push(cont);
        }
    }
    (out, shortened)
}

/// Names shortened to at most `width` characters, keeping both ends
/// ("rocksdb-uni…zstd-l3"); names that would then read alike are numbered
/// instead ("rocksdb-universal…2"), so every short name stands for one config.
fn shorten_names(names: &[String], width: usize) -> Vec<String> {
    let chars = |s: &str| s.chars().count();
    let cut = |n: &String| -> String {
        if chars(n) <= width {
            return n.clone();
        }
        let keep = width - 1;
        let head: String = n.chars().take(keep - keep / 2).collect();
        let tail: String = n.chars().skip(chars(n) - keep / 2).collect();
        format!("{head}…{tail}")
    };
    let mut short: Vec<String> = names.iter().map(cut).collect();
    let clashes = |short: &[String], i: usize| short.iter().enumerate().any(|(j, s)| j != i && *s == short[i]);
    let clashing: Vec<usize> = (0..short.len()).filter(|&i| clashes(&short, i)).collect();
    for (k, &i) in clashing.iter().enumerate() {
        let number = (k + 1).to_string();
        let head: String = names[i].chars().take(width - 1 - number.len()).collect();
        short[i] = format!("{head}…{number}");
    }
    short
}

/// Split text into lines of at most `width` characters, at spaces where it
/// can (a word longer than a line is cut); text that starts indented keeps
/// its indent on every line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let body = text.trim_start_matches(' ');
    let indent = &text[..text.len() - body.len()];
    let width = width.saturating_sub(indent.len()).max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() <= width {
            line.push(' ');
            line.extend(&word);
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > width {
            lines.push(word.drain(..width).collect());
        }
        line = word.into_iter().collect();
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines.into_iter().map(|l| format!("{indent}{l}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortened_names_stay_distinct() {
        let names: Vec<String> =
            ["short", "rocksdb-universal-compaction-4G", "rocksdb-universal-compaction-8G"].map(String::from).to_vec();
        assert_eq!(shorten_names(&names, 14), ["short", "rocksdb…ion-4G", "rocksdb…ion-8G"]);
        // Alike at both ends once shortened: numbered instead.
        let alike: Vec<String> = ["rocksdb-a-1-zstd", "rocksdb-b-1-zstd"].map(String::from).to_vec();
        let short = shorten_names(&alike, 12);
        assert_eq!(short, ["rocksdb-a-…1", "rocksdb-b-…2"]);
        assert!(short.iter().all(|s| s.chars().count() <= 12));
    }

    #[test]
    fn wrapping_keeps_every_word() {
        let text = "37% not found; writer 13200/18000 ops/s MISSED; an-unbreakable-word-longer-than-the-line";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        assert_eq!(lines[..3], ["37% not found;", "writer 13200/18000", "ops/s MISSED;"]);
        assert_eq!(lines.concat().replace(' ', ""), text.replace(' ', ""));
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("  a bb cc", 7), ["  a bb", "  cc"]);
    }

    #[test]
    fn tables_align() {
        let t = render_table(
            &["a", "b", "n"],
            &[vec!["x".into(), "yy".into(), "1".into()], vec!["long".into(), "z".into(), "100".into()]],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "a     b     n");
        assert_eq!(lines[2], "x     yy    1");
        assert_eq!(lines[3], "long  z   100");
    }
}
