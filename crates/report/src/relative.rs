//! Configs of one run against a base config, per step and metric: each
//! value, its ratio to the base's and whether the change is beyond the noise
//! band of `rumbench compare` (the same code: [`compare::compare_configs`]).
//! Version sweeps (`versions`) and config sweeps (`config_sweep`) choose the
//! configs, the metrics and the words; this renders them as text, markdown
//! and HTML (the formats render them: table.rs, markdown.rs, html.rs).

use super::compare::{self, Options, Verdict};
use super::summary::{self, Summary};

/// One config of the table: the first is the base.
#[derive(Debug, Clone)]
pub struct Column {
    pub config: String,
    /// The heading in text and markdown.
    pub label: String,
    /// A second heading line in HTML (a server version, the swept values).
    pub detail: Option<String>,
}

/// One config against the base, one metric, one step.
#[derive(Debug, Clone)]
pub struct Cell {
    pub value: Option<f64>,
    pub ratio: Option<f64>,
    pub interval: Option<crate::verdict::Interval>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub step: String,
    /// Index into the table's metrics.
    pub metric: usize,
    /// The base's value.
    pub base: Option<f64>,
    /// The other columns, in `columns[1..]` order.
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone)]
pub struct Table {
    /// The HTML section's id.
    pub id: String,
    pub title: String,
    /// What the table shows, in words (above it).
    pub heading: String,
    /// (summary metric key, label), in row order per step.
    pub metrics: &'static [(&'static str, &'static str)],
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
    /// Lines under the heading that say what short column labels stand for.
    pub legend: Vec<String>,
    /// Where the CPU per operation went, per config and profiled step that
    /// moved (`--profile`): what a CPU REGRESSION in the table links to.
    pub cpu: Vec<super::profile_changes::StepChanges>,
    /// The steps in which a setting a config differs from the base in
    /// could not have acted (`exercised`), said beside their ratios.
    pub unexercised: Vec<Unexercised>,
}

/// A config's note in one step against the base (`compare::Pair::unexercised`).
#[derive(Debug, Clone)]
pub struct Unexercised {
    pub step: String,
    /// Index into `Table::columns` (never 0, the base).
    pub column: usize,
    pub note: String,
}

/// The profiled steps of `columns[1..]` whose CPU per operation moved
/// against `columns[0]`'s (a one-run table; none without profiles).
pub fn cpu_changes(s: &Summary, columns: &[Column], opts: &Options) -> Vec<super::profile_changes::StepChanges> {
    match (s.runs.as_slice(), columns.split_first()) {
        ([run], Some((base, others))) => {
            let others: Vec<String> = others.iter().map(|c| c.config.clone()).collect();
            super::profile_changes::for_run(run, &base.config, &others, opts.threshold)
        }
        _ => Vec::new(),
    }
}

/// Whether a table's metric is a CPU cost per operation (a REGRESSION of
/// which a profile can explain).
pub fn is_cpu_metric(key: &str) -> bool {
    key.ends_with("cpu_us_op")
}

impl Table {
    /// The notes of `step` (`unexercised`).
    pub fn unexercised_in<'a>(&'a self, step: &'a str) -> impl Iterator<Item = &'a Unexercised> + 'a {
        self.unexercised.iter().filter(move |u| u.step == step)
    }

    /// A note as a line: "fillrandom, c1 against base: compression never acted: ...".
    pub fn unexercised_text(&self, u: &Unexercised) -> String {
        format!("{}, {} against {}: {}", u.step, self.columns[u.column].label, self.columns[0].label, u.note)
    }

    /// The explanation of `config`'s CPU change in `step`, if its profiles have one.
    pub fn cpu_change(&self, config: &str, step: &str) -> Option<&super::profile_changes::StepChanges> {
        self.cpu.iter().find(|c| c.new_config == config && c.step == step)
    }

    /// Compare `columns[1..]` with `columns[0]` in every step any of them
    /// ran; rows without a value on any side are left out. The pairs'
    /// notes (steps on one side only) join `notes`; the steps where a
    /// setting never acted are the third part.
    pub fn build(
        s: &Summary,
        metrics: &'static [(&'static str, &'static str)],
        columns: Vec<Column>,
        opts: &Options,
    ) -> (Vec<Row>, Vec<String>, Vec<Unexercised>) {
        let opts = Options { metrics: Some(metrics.iter().map(|(k, _)| k.to_string()).collect()), ..opts.clone() };
        let others: Vec<String> = columns[1..].iter().map(|c| c.config.clone()).collect();
        let pairs = compare::compare_configs(s, &columns[0].config, &others, &opts);
        let mut rows = Vec::new();
        for st in &s.steps {
            if !st.rows.iter().any(|r| columns.iter().any(|c| c.config == r.config)) {
                continue;
            }
            for (mi, (key, _)) in metrics.iter().enumerate() {
                let smi = summary::metric_index(key).expect("a summary metric");
                let base = st.rows.iter().find(|r| r.config == columns[0].config).and_then(|r| r.values[smi]);
                let cells: Vec<Cell> = pairs
                    .iter()
                    .map(|p| match p.lines.iter().find(|l| l.step == st.key && l.metric == smi) {
                        Some(l) => Cell { value: l.new, ratio: l.ratio, interval: l.interval, verdict: l.verdict },
                        None => Cell { value: None, ratio: None, interval: None, verdict: Verdict::Missing },
                    })
                    .collect();
                if base.is_none() && cells.iter().all(|c| c.value.is_none()) {
                    continue;
                }
                rows.push(Row { step: st.key.clone(), metric: mi, base, cells });
            }
        }
        let mut notes: Vec<String> =
            pairs.iter().flat_map(|p| p.notes.iter().map(move |n| format!("{} vs {}: {n}", p.new, p.base))).collect();
        // A note about one config's own runs is said once, not once per pair it is in.
        for n in pairs.iter().flat_map(|p| &p.run_notes) {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
        // What each comparison could have seen: the smallest change its interval would call.
        for p in &pairs {
            for (step, text) in p.detectable() {
                notes.push(format!("{} vs {}, {step}: could detect changes of {text} or more", p.new, p.base));
            }
        }
        let unexercised = pairs
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                p.unexercised.iter().map(move |(step, note)| Unexercised {
                    step: step.clone(),
                    column: i + 1,
                    note: note.clone(),
                })
            })
            .collect();
        (rows, notes, unexercised)
    }
}

/// A cell's verdict, short (the table's legend says what each means).
pub fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Regression => " REGRESSION",
        Verdict::Improvement => " improvement",
        Verdict::Changed => " changed",
        Verdict::Same => " =",
        Verdict::Inconclusive(_) => " ?",
        Verdict::Withheld { .. } => " withheld",
        Verdict::ControlMoved { .. } => " MOVED",
        Verdict::OneRun | Verdict::Missing | Verdict::NotJudged => "",
    }
}

/// What the marks of `mark` mean, for a table's heading.
pub fn verdict_legend(opts: &Options) -> String {
    format!(
        "ratio = config / base (medians over repeats); with repeats on both sides: REGRESSION / improvement = the whole \
confidence interval lies beyond +-{t:.0}%, '=' = it lies within +-{t:.0}%, '?' = inconclusive (more repeats needed), \
'withheld' = the step's control ({c}) moved (a noisy machine, or rumbench's own cost changed: `rumbench compare` says which); without repeats: ratios only, no verdict; '-' = not measured",
        t = opts.threshold * 100.0,
        c = crate::summary::METRICS[crate::summary::metric_index(compare::CONTROL_METRIC).expect("a metric")].title()
    )
}

pub fn ratio_text(c: &Cell) -> String {
    match (c.ratio, c.value, c.verdict) {
        (_, _, Verdict::Missing) => "-".into(),
        (Some(r), _, v) => format!("{r:.2}{}", mark(v)),
        // Both sides below the metric's resolution floor: no ratio to speak of.
        (None, Some(_), Verdict::Same) => "~".into(),
        (None, Some(_), v) => format!("inf{}", mark(v)),
        (None, None, _) => "-".into(),
    }
}

pub fn value_text(v: Option<f64>) -> String {
    v.map(summary::fmt_value).unwrap_or_else(|| "-".into())
}
