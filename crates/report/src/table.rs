//! The human summary: one row per config and step, and under a step that
//! mixes operation types (YCSB A, B, D, E, F, ...) one indented row per type.
//! The tables are laid out by `text_table`; the views' sections that follow
//! the summary are `text_views`' (both re-exported here).

use anyhow::Result;

use super::text_table::{fit, render_aligned};
use super::text_views::titled_text;
use super::Exporter;
use crate::measure::LatencySummary;
use crate::result::{ConfigResult, RunResult, Status, StepResult};

pub struct SummaryText;

pub use super::fmt::num;
pub use super::summary::{outcome_notes, step_notes};
pub use super::text_table::{render_table, wrap};
pub use super::text_views::{
    config_sweep_text, cpu_regressions, durability_text, hotrow_text, limits_text, relative_text,
    render_profile_changes, shards_text, stalls_text, versions_text,
};

/// Which columns the summary table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columns {
    /// The columns people read first, fitted to `TERMINAL_WIDTH` characters
    /// (long config names shortened, with a key; notes wrapped): the table
    /// `rumbench run` prints.
    Compact,
    /// Every column, nothing shortened: summary.txt and `run --all-columns`.
    All,
}

/// The terminal width the compact table fits.
pub const TERMINAL_WIDTH: usize = 120;

/// Every column; columns added later go before notes, so that the others keep their places.
pub const COLUMNS: &[&str] = &[
    "config",
    "step",
    "ops/s",
    "p50 us",
    "p99 us",
    "p99.9 us",
    "max us",
    "rpq",
    "wkbpi",
    "w-amp",
    "eng w-amp",
    "space-amp",
    "cpu us/op",
    "rss MB",
    "syncs/commit",
    "ops",
    "% of limit",
    "notes",
];

/// The columns of `COLUMNS` the compact table keeps.
pub const COMPACT_COLUMNS: &[&str] =
    &["config", "step", "ops/s", "p50 us", "p99 us", "w-amp", "cpu us/op", "ops", "% of limit", "notes"];

const REPEATS_HELP: &str =
    "Medians over each config's repeats (--repeat, interleaved rounds); runs = repeats measured / run; \
range = the slowest and fastest repeat against the median (summary.txt lists every repeat as 'config.rN'). \
`rumbench compare DIR` gives each config against the first with confidence intervals and verdicts.";

/// Shown under the table when a row carries the mark.
pub const NOT_DURABLE_MARK: &str = "ND";
const NOT_DURABLE_HELP: &str =
    "ND = not durable as run: fewer sync calls than commits, so acknowledged writes could be lost in an OS crash.";

/// The legend of the abbreviated columns, each entry shown when its column is.
const HELP: &[(&str, &str)] = &[
    ("rpq", "rpq = storage reads per query"),
    ("wkbpi", "wkbpi = KB written to storage per write"),
    ("w-amp", "w-amp = storage bytes written / logical bytes written"),
    ("eng w-amp", "eng w-amp = the engine's own figure"),
    ("space-amp", "space-amp = bytes on disk / live logical bytes"),
    ("cpu us/op", "cpu us/op = CPU of the process (with the engine, when embedded) per operation"),
    ("rss MB", "rss MB = peak RSS"),
    ("% of limit", LIMIT_HELP),
];

/// The legend of the "% of limit" column (both tables).
const LIMIT_HELP: &str = "% of limit = ops/s (the background writer's included) as a share of the step's lowest ceiling, named: \
read, write, sync = the device's capability (fio, `rumbench device`) / the step's reads, bytes written, syncs per op; cpu = cores / CPU per op";

/// The "% of limit" cell of a step: "read 83%".
fn limit_cell(s: &StepResult) -> String {
    s.ceilings.as_ref().and_then(|c| c.short()).unwrap_or_else(|| "-".into())
}

const OP_ROWS_HELP: &str = "Indented rows: each operation type of a step that mixes several (its count, rate, latency, \
and in notes the operations not found, conflicts and errors); the step's own row has its totals and the latency of its main operation.";

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// Whether a step of the result is an insert-benchmark step.
fn is_ibench_step(step: &StepResult) -> bool {
    step.step_kind().is_some_and(|k| k.is_ibench())
}

/// Whether a config runs on a database server (its rows go to the insert-benchmark table).
fn is_server_config(c: &ConfigResult) -> bool {
    c.engine.parse::<crate::plan::server_kind::ServerKind>().is_ok()
}

/// How an operation type's row is labelled in the step column: indented under its step.
const OP_ROW_INDENT: &str = "  ";

/// The figures of one operation type of a mixed step, as table cells.
struct OpRow {
    label: String,
    ops: String,
    rate: String,
    latency: LatencySummary,
    notes: String,
}

impl OpRow {
    /// The row under `columns`: its rate under `rate`, its maximum under
    /// `max.0` in microseconds divided by `max.1`; the step's other figures
    /// stay on the step's own row.
    fn cells(self, columns: &[&str], rate: &str, max: (&str, f64)) -> Vec<String> {
        let l = &self.latency;
        cells(
            columns,
            [
                ("step", self.label),
                (rate, self.rate),
                ("p50 us", latency_cell(l, |l| l.p50_us)),
                ("p99 us", latency_cell(l, |l| l.p99_us)),
                ("p99.9 us", latency_cell(l, |l| l.p999_us)),
                (max.0, latency_cell(l, |l| l.max_us / max.1)),
                ("ops", self.ops),
                ("notes", self.notes),
            ],
        )
    }
}

/// The operation types of a step that mixes several (none for a step of one type).
fn op_rows(s: &StepResult) -> Vec<OpRow> {
    if s.ops_by_type.len() < 2 {
        return Vec::new();
    }
    let wall_s = s.wall_s.filter(|&w| s.ops_s.is_some() && w > 0.0);
    s.ops_by_type
        .iter()
        .map(|o| OpRow {
            label: format!("{OP_ROW_INDENT}{}", o.op),
            ops: o.ops.to_string(),
            rate: wall_s.map(|w| num(o.ops as f64 / w)).unwrap_or_else(|| "-".into()),
            latency: o.latency.clone(),
            notes: o.outcomes.as_ref().map(outcome_notes).unwrap_or_default().join("; "),
        })
        .collect()
}

/// A row of `columns` with these cells by column name, the others empty.
fn cells<const N: usize>(columns: &[&str], named: [(&str, String); N]) -> Vec<String> {
    let mut row = vec![String::new(); columns.len()];
    for (column, value) in named {
        row[columns.iter().position(|c| *c == column).expect("a column of the table")] = value;
    }
    row
}

/// A cell of a latency percentile; '-' without measured operations.
pub fn latency_cell(l: &LatencySummary, f: impl Fn(&LatencySummary) -> f64) -> String {
    if l.count > 0 {
        num(f(l))
    } else {
        "-".into()
    }
}

/// A config's name in a table of repeats: "name.r2" for round 2.
fn repeat_label(c: &ConfigResult) -> String {
    c.instance_name()
}

/// The columns of the table of medians over repeats.
const REPEAT_COLUMNS: &[&str] =
    &["config", "step", "runs", "ops/s", "ops/s range", "p50 us", "p99 us", "cpu us/op", "cpu range", "notes"];

/// Per config and step of a run with repeats: the median over its repeats
/// and their range (the per-repeat rows are in the table above it).
fn repeat_rows(s: &super::summary::Summary) -> Vec<Vec<String>> {
    use super::summary::metric_index;
    let (ops, p50, p99, cpu) =
        ["ops_s", "p50_us", "p99_us", "cpu_us_op"].map(|k| metric_index(k).expect("a metric")).into();
    let mut rows = Vec::new();
    for st in &s.steps {
        for r in st.rows.iter().filter(|r| r.repeated()) {
            let v = |mi: usize| opt(r.values[mi], num);
            let measured = r.repeats.iter().filter(|x| x.values[ops].is_some()).count();
            rows.push(vec![
                r.config.clone(),
                st.key.clone(),
                format!("{measured}/{}", r.repeats.len()),
                v(ops),
                super::fmt::range_text(r.spread(ops), r.values[ops]),
                v(p50),
                v(p99),
                v(cpu),
                super::fmt::range_text(r.spread(cpu), r.values[cpu]),
                r.notes.iter().filter(|n| !n.starts_with("median of")).cloned().collect::<Vec<_>>().join("; "),
            ]);
        }
    }
    rows.sort_by(|a, b| a[0].cmp(&b[0]));
    rows
}

pub fn summary_rows(run: &RunResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &run.configs {
        for s in c.steps.iter().filter(|s| !is_ibench_step(s)) {
            // No latency for a step without measured operations (a failed step): '-', not 0.
            let lat = s.step_latency().filter(|l| l.count > 0).cloned();
            let notes = step_notes(s);
            let m = &s.metrics;
            let not_durable = m.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false));
            rows.push(vec![
                repeat_label(c),
                s.name.clone(),
                match (s.ops_s, not_durable) {
                    (None, _) => "-".into(),
                    (Some(v), true) => format!("{} {NOT_DURABLE_MARK}", num(v)),
                    (Some(v), false) => num(v),
                },
                opt(lat.as_ref().map(|l| l.p50_us), num),
                opt(lat.as_ref().map(|l| l.p99_us), num),
                opt(lat.as_ref().map(|l| l.p999_us), num),
                opt(lat.as_ref().map(|l| l.max_us), num),
                opt(m.headline_rpq(), |v| format!("{v:.2}")),
                opt(m.headline_wkbpi(), |v| format!("{v:.3}")),
                opt(m.headline_write_amp(), |v| format!("{v:.2}")),
                opt(s.engine_write_amp, |v| format!("{v:.2}")),
                opt(m.space_amp, |v| format!("{v:.2}")),
                opt(m.client_cpu_us_op, num),
                opt(m.rss_peak_bytes.map(|b| b as f64 / 1048576.0), |v| format!("{v:.0}")),
                opt(m.syncs.as_ref().and_then(|y| y.syncs_per_commit), |v| format!("{v:.3}")),
                s.ops.to_string(),
                limit_cell(s),
                notes.join("; "),
            ]);
            // The efficiency figures are the step's, on its own row.
            rows.extend(op_rows(s).into_iter().map(|op| op.cells(COLUMNS, "ops/s", ("max us", 1.0))));
        }
        if c.steps.is_empty() && !is_server_config(c) {
            if let Some(e) = &c.error {
                let mut row = vec![repeat_label(c)];
                row.extend((2..COLUMNS.len()).map(|_| "-".to_string()));
                row.push(e.clone());
                rows.push(row);
            }
        }
    }
    rows
}

/// The insert benchmark's summary columns, next to the latency percentiles
/// (columns added later go before notes).
pub const IBENCH_COLUMNS: &[&str] = &[
    "config",
    "step",
    "rate",
    "rate p50",
    "rate p99",
    "p50 us",
    "p99 us",
    "p99.9 us",
    "max ms",
    "rpq",
    "rkbpq",
    "wkbpi",
    "cli us/op",
    "srv us/op",
    "db MB",
    "rss MB",
    "rows",
    "ops",
    "% of limit",
    "notes",
];

/// The columns of `IBENCH_COLUMNS` the compact table keeps.
pub const IBENCH_COMPACT_COLUMNS: &[&str] =
    &["config", "step", "rate", "p50 us", "p99 us", "cli us/op", "srv us/op", "ops", "% of limit", "notes"];

const IBENCH_HELP: &[(&str, &str)] = &[
    ("rate", "rate = rows inserted/s (l.i0, l.i1, l.i2), rows indexed/s (l.x), queries/s (qr*, qp*)"),
    (
        "rate p50",
        "rate p50/p99 = per-second rates sorted descending, the values at 50% and 99% (p99: 99% of seconds were at least this fast)",
    ),
    ("p50 us", "latencies are per commit (l.i*) or per query (q*)"),
    ("rpq", "rpq, rkbpq = storage reads and KB read per query"),
    ("wkbpi", "wkbpi = KB written to storage per row inserted"),
    ("cli us/op", "cli us/op = CPU of rumbench (with the engine, for embedded engines) per op"),
    ("srv us/op", "srv us/op = CPU of the server's process tree per op"),
    ("db MB", "db MB = data dir size"),
    ("rss MB", "rss MB = peak RSS (of the server's process tree, summed over its processes, for servers)"),
    ("rows", "rows = rows in the tables after the step"),
    ("% of limit", LIMIT_HELP),
];

pub fn ibench_rows(run: &RunResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &run.configs {
        for s in c.steps.iter().filter(|s| is_ibench_step(s)) {
            // No latency for a step without measured operations (a failed step): '-', not 0.
            let lat = s.main_op().filter(|o| o.latency.count > 0).map(|o| o.latency.clone());
            let m = &s.metrics;
            let io = m.io.as_ref();
            let mut notes = Vec::new();
            if s.status != Status::Completed {
                notes.push(format!("{:?}", s.status).to_lowercase());
                if let Some(e) = &s.error {
                    notes.push(e.clone());
                }
            }
            if let Some(w) = &s.writer {
                let target = w.target_ops_s.map(|t| format!("/{}", num(t))).unwrap_or_default();
                notes.push(format!(
                    "writers {}{} rows/s{}",
                    num(w.achieved_ops_s),
                    target,
                    if w.missed_target { " MISSED" } else { "" }
                ));
            }
            if let Some(st) = s.ibench.as_ref().and_then(|i| i.settle_s) {
                notes.push(format!("settle {st:.1} s"));
            }
            if m.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false)) {
                notes.push(NOT_DURABLE_MARK.to_string());
            }
            let table_rows =
                s.ibench.as_ref().filter(|i| !i.table_rows.is_empty()).map(|i| i.table_rows.iter().sum::<u64>());
            rows.push(vec![
                repeat_label(c),
                s.name.clone(),
                opt(s.ops_s, num),
                opt(s.rates.as_ref().map(|r| r.p50), num),
                opt(s.rates.as_ref().map(|r| r.p99), num),
                opt(lat.as_ref().map(|l| l.p50_us), num),
                opt(lat.as_ref().map(|l| l.p99_us), num),
                opt(lat.as_ref().map(|l| l.p999_us), num),
                opt(lat.as_ref().map(|l| l.max_us / 1000.0), num),
                opt(m.headline_rpq(), |v| format!("{v:.3}")),
                opt(io.and_then(|i| i.rkbpq).filter(|_| !m.device_reads_by_others), |v| format!("{v:.3}")),
                opt(m.headline_wkbpi(), |v| format!("{v:.3}")),
                opt(m.client_cpu_us_op, num),
                opt(m.srv_cpu_us_op, num),
                opt(m.db_size_bytes.map(|b| b as f64 / 1048576.0), |v| format!("{v:.0}")),
                opt(m.rss_peak_bytes.map(|b| b as f64 / 1048576.0), |v| format!("{v:.0}")),
                table_rows.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
                s.ops.to_string(),
                limit_cell(s),
                notes.join("; "),
            ]);
            rows.extend(op_rows(s).into_iter().map(|op| op.cells(IBENCH_COLUMNS, "rate", ("max ms", 1000.0))));
        }
        if c.steps.is_empty() && is_server_config(c) {
            if let Some(e) = &c.error {
                let mut row = vec![repeat_label(c)];
                row.extend((2..IBENCH_COLUMNS.len()).map(|_| "-".to_string()));
                row.push(e.clone());
                rows.push(row);
            }
        }
    }
    rows
}

/// One of the summary's tables with what it needs to be shown either way.
struct SummaryTable<'a> {
    columns: &'a [&'a str],
    compact: &'a [&'a str],
    /// Legend lines before the column help (the ND mark).
    preamble: &'a [&'a str],
    help: &'a [(&'a str, &'a str)],
    /// Said after the column help.
    help_end: &'a str,
    rows: Vec<Vec<String>>,
}

impl SummaryTable<'_> {
    fn render(&self, view: Columns) -> String {
        let shown: Vec<usize> = match view {
            Columns::All => (0..self.columns.len()).collect(),
            // A limit column without a figure (no ceilings in these results) leaves its width to the notes.
            Columns::Compact => (0..self.columns.len())
                .filter(|&i| self.compact.contains(&self.columns[i]))
                .filter(|&i| {
                    self.columns[i] != "% of limit" || self.rows.iter().any(|r| !matches!(r[i].as_str(), "-" | ""))
                })
                .collect(),
        };
        let header: Vec<&str> = shown.iter().map(|&i| self.columns[i]).collect();
        let rows: Vec<Vec<String>> = self.rows.iter().map(|r| shown.iter().map(|&i| r[i].clone()).collect()).collect();
        let (rows, shortened) = match view {
            Columns::All => (rows, Vec::new()),
            Columns::Compact => fit(&header, rows, TERMINAL_WIDTH),
        };
        // Text reads from the left: config, step (with its indented operation types) and notes.
        let mut out = render_aligned(&header, &rows, &[0, 1, header.len() - 1]);
        out.push('\n');
        let mut legend: Vec<String> = self.preamble.iter().map(|l| l.to_string()).collect();
        let help: Vec<&str> = self.help.iter().filter(|(c, _)| header.contains(c)).map(|(_, h)| *h).collect();
        if !help.is_empty() {
            legend.push(format!("{}.{}", help.join("; "), self.help_end));
        }
        if self.rows.iter().any(|r| r[1].starts_with(OP_ROW_INDENT)) {
            legend.push(OP_ROWS_HELP.to_string());
        }
        if !shortened.is_empty() {
            legend.push("Config names shortened to fit (--all-columns shows them whole):".into());
            legend.extend(shortened.iter().map(|(short, full)| format!("  {short} = {full}")));
        }
        for paragraph in legend {
            for line in wrap(&paragraph, TERMINAL_WIDTH) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

/// The summary: the db_bench-style table and the insert-benchmark table,
/// each with its legend, when it has rows. `Columns::Compact` is what `run`
/// prints; summary.txt has every column.
pub fn render_summary(run: &RunResult, view: Columns) -> String {
    render_summary_in(run, view, std::path::Path::new(""))
}

/// [`render_summary`] of the run in directory `dir` (its profiles are read from there).
pub fn render_summary_in(run: &RunResult, view: Columns, dir: &std::path::Path) -> String {
    // The ND legend only under a table that has the mark.
    let marked = |rows: &[Vec<String>]| {
        rows.iter().flatten().any(|c| c == NOT_DURABLE_MARK || c.ends_with(&format!(" {NOT_DURABLE_MARK}")))
    };
    let (kv_rows, ib_rows) = (summary_rows(run), ibench_rows(run));
    let nd: &[&str] = &[NOT_DURABLE_HELP];
    let kv = SummaryTable {
        columns: COLUMNS,
        compact: COMPACT_COLUMNS,
        preamble: if marked(&kv_rows) { nd } else { &[] },
        help: HELP,
        help_end: " See docs/metrics.md.",
        rows: kv_rows,
    };
    let ib = SummaryTable {
        columns: IBENCH_COLUMNS,
        compact: IBENCH_COMPACT_COLUMNS,
        preamble: if marked(&ib_rows) { nd } else { &[] },
        help: IBENCH_HELP,
        help_end: "",
        rows: ib_rows,
    };
    let summary = super::summary::Summary::build(&[super::summary::NamedRun {
        label: "run".into(),
        dir: dir.display().to_string(),
        run,
    }]);
    let medians = SummaryTable {
        columns: REPEAT_COLUMNS,
        compact: REPEAT_COLUMNS,
        preamble: &[REPEATS_HELP],
        help: &[],
        help_end: "",
        rows: repeat_rows(&summary),
    };
    let mut out = String::new();
    // With repeats the terminal shows the medians; summary.txt has every repeat too.
    let repeats_only = !medians.rows.is_empty() && view == Columns::Compact;
    if (!kv.rows.is_empty() || ib.rows.is_empty()) && !repeats_only {
        out.push_str(&kv.render(view));
    }
    if !ib.rows.is_empty() && !repeats_only {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&ib.render(view));
    }
    if !medians.rows.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&medians.render(view));
    }
    // Several PostgreSQL versions: each against the oldest; config sweeps: each against the base.
    for extra in [
        versions_text(&summary),
        config_sweep_text(&summary),
        super::engine_comparison::text(run),
        titled_text(
            super::slo::TITLE,
            super::slo::COLUMNS,
            super::slo::rows(run).iter().map(super::slo::Row::cells).collect(),
            super::slo::FOOTER,
        ),
        // The stall seconds are summary.txt's and the report's: on a
        // terminal they would bury the table.
        if view == Columns::All { stalls_text(run) } else { String::new() },
    ] {
        if !extra.is_empty() {
            out.push('\n');
            out.push_str(&extra);
        }
    }
    out
}

impl Exporter for SummaryText {
    fn file_name(&self) -> &'static str {
        "summary.txt"
    }
    /// summary.txt has every column: a file is not bound to a terminal's width.
    fn render(&self, run: &RunResult) -> Result<String> {
        self.render_in(run, std::path::Path::new(""))
    }
    fn render_in(&self, run: &RunResult, dir: &std::path::Path) -> Result<String> {
        // A crash test has its matrix and no benchmark steps.
        let mut out =
            if run.crashtest.is_some() { durability_text(run) } else { render_summary_in(run, Columns::All, dir) };
        for extra in [hotrow_text(run), super::scaling::render(run), limits_text(run), shards_text(run)] {
            if !extra.is_empty() {
                out.push('\n');
                out.push_str(&extra);
            }
        }
        // What `run` prints to stderr at its end, kept with the figures.
        let warnings = run.all_warnings();
        if !warnings.is_empty() {
            out.push_str("\nwarnings:\n");
            for w in warnings {
                out.push_str(&format!("  {w}\n"));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_not_durable_legend_is_shown_only_under_a_marked_row() {
        let durable = fixtures::run(vec![fixtures::config(
            "r",
            "rocksdb",
            vec![fixtures::step(StepKind::FillSeq, 1.0, vec![fixtures::op("put", 1000, 2.0, 0, 0, 0)])],
        )]);
        assert!(!render_summary(&durable, Columns::All).contains("ND = not durable"));
        let marked = fixtures::run(vec![fixtures::config(
            "r",
            "rocksdb",
            vec![fixtures::not_durable(fixtures::step(
                StepKind::FillSeq,
                1.0,
                vec![fixtures::op("put", 1000, 2.0, 0, 0, 0)],
            ))],
        )]);
        let text = render_summary(&marked, Columns::All);
        assert!(text.contains(" ND ") && text.contains("ND = not durable"), "{text}");
    }

    #[test]
    fn numbers_keep_useful_digits() {
        assert_eq!(num(1234567.8), "1234568");
        assert_eq!(num(1234.56), "1234.6");
        assert_eq!(num(12.345), "12.35");
        assert_eq!(num(0.0456), "0.046");
        assert_eq!(num(0.0), "0");
    }

    use crate::plan::steps::StepKind;
    use crate::result::fixtures::{self, op, step};
    use crate::result::Outcomes;

    #[test]
    fn the_compact_table_fits_a_terminal_of_120_columns() {
        let run = fixtures::realistic_run();
        let text = render_summary(&run, Columns::Compact);
        for line in text.lines() {
            assert!(line.chars().count() <= TERMINAL_WIDTH, "{} characters:\n{line}\n\n{text}", line.chars().count());
        }
        // Both tables, the per-type rows, and a key to the shortened config names.
        assert!(text.contains("  READ-MODIFY-WRITE") && text.contains("  delete"), "{text}");
        assert!(
            text.contains("rocksdb-universal-compaction-zstd-block-cache-8G"),
            "the key names every shortened config:\n{text}"
        );
        assert!(text.contains("Config names shortened"), "{text}");
        assert!(text.contains("\n  rocksdb-u…cache-8G = rocksdb-universal-compaction-zstd-block-cache-8G\n"), "{text}");
        // The failed step's error is wrapped, not cut.
        let notes: String = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        assert!(
            notes.contains("While appending to file: /data/rocksdb/000123.log (the data filesystem is full)"),
            "{text}"
        );
    }

    #[test]
    fn the_limit_column_shows_the_bound_and_its_percentage_and_still_fits() {
        use crate::measure::ceiling::{Ceiling, Ceilings, Resource};
        let mut run = fixtures::realistic_run();
        let ceilings = |resource, pct| Ceilings {
            ops_s: 1000.0,
            ceilings: vec![Ceiling { resource, ops_s: 100_000.0 / pct, basis: "b".into() }],
            bound: Some(resource),
            pct_of_limit: Some(pct),
            ..Default::default()
        };
        run.configs[0].steps[0].ceilings = Some(ceilings(Resource::Sync, 97.4));
        run.configs[0].steps[1].ceilings = Some(ceilings(Resource::Read, 83.0));
        let text = render_summary(&run, Columns::Compact);
        assert!(text.lines().next().unwrap().contains("% of limit"), "{text}");
        assert!(text.contains("sync 97%") && text.contains("read 83%"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= TERMINAL_WIDTH), "{text}");
        assert!(text.contains("% of limit = ops/s"), "its legend: {text}");
        assert!(
            !render_summary(&fixtures::realistic_run(), Columns::Compact).contains("% of limit"),
            "no ceilings, no column in the terminal's table"
        );
    }

    #[test]
    fn all_columns_keep_every_figure_and_name_whole() {
        let run = fixtures::realistic_run();
        let text = render_summary(&run, Columns::All);
        let header = text.lines().next().unwrap();
        for column in COLUMNS {
            assert!(header.contains(column), "{column} missing from {header}");
        }
        assert!(text.contains("rate p50") && text.contains("srv us/op"));
        for c in &run.configs {
            assert!(text.lines().any(|l| l.starts_with(&c.name)), "{} not whole:\n{text}", c.name);
        }
        assert!(!text.contains('…'), "nothing is shortened:\n{text}");
        // Wider than a terminal: that is what the compact view is for.
        assert!(text.lines().any(|l| l.chars().count() > TERMINAL_WIDTH));
    }

    #[test]
    fn a_mixed_step_has_a_row_per_operation_type() {
        let mixed = step(StepKind::YcsbA, 10.0, vec![op("READ", 600, 2.0, 3, 0, 0), op("UPDATE", 400, 8.0, 0, 17, 2)]);
        let single = step(StepKind::ReadRandom, 10.0, vec![op("get", 1000, 1.0, 0, 0, 0)]);
        let run = fixtures::run(vec![fixtures::config("rocksdb", "rocksdb", vec![mixed, single])]);
        let rows = summary_rows(&run);
        assert_eq!(rows.len(), 4, "{rows:?}");
        let cell = |row: usize, column: &str| rows[row][COLUMNS.iter().position(|c| *c == column).unwrap()].as_str();
        let cells = |row: usize, columns: &[&str]| columns.iter().map(|c| cell(row, c)).collect::<Vec<_>>();
        let figures = ["config", "step", "ops", "ops/s", "p50 us", "p99 us", "p99.9 us", "max us", "notes"];
        assert_eq!(cells(0, &figures[..4]), ["rocksdb", "ycsb-a", "1000", "100.0"]);
        // No type's latency stands for the step's: its rows per type have them.
        assert_eq!(cells(0, &figures[4..]), ["-", "-", "-", "-", "latency per operation type below"]);
        // Count, rate over the step's wall time, latency, outcomes; the step's efficiency figures stay on its row.
        assert_eq!(cells(1, &figures), ["", "  READ", "600", "60.00", "2.00", "8.00", "24.00", "600.0", "3 not found"]);
        assert!(COLUMNS.iter().filter(|c| !figures.contains(c)).all(|c| cell(1, c).is_empty()), "{:?}", rows[1]);
        assert_eq!(cells(2, &figures[1..4]), ["  UPDATE", "400", "40.00"]);
        assert_eq!(cell(2, "notes"), "17 conflicts; 2 errors");
        assert_eq!(cell(3, "step"), "readrandom");
        let text = render_summary(&run, Columns::Compact);
        assert!(text.contains("Indented rows: each operation type"), "{text}");
    }

    #[test]
    fn outcome_notes_name_what_was_not_ok() {
        let o = |not_found, conflict, error| Outcomes { ok: 10, not_found, conflict, error };
        assert!(outcome_notes(&o(0, 0, 0)).is_empty());
        assert_eq!(outcome_notes(&o(1, 1, 1)), ["1 not found", "1 conflict", "1 error"]);
        assert_eq!(outcome_notes(&o(0, 2, 3)), ["2 conflicts", "3 errors"]);
    }
}
