//! Run comparison with regression detection against noise.
//!
//! Method (also printed with every comparison, and in docs/report.md): for
//! each step and metric, ratio = new / base. The noise band of a metric is
//!
//!   band = max(T, k x CV_intervals, k x CV_repeats)
//!
//! - T: the fixed threshold (`--threshold`, default 5%).
//! - CV_intervals: coefficient of variation (sample stddev / mean) of the
//!   step's per-second series, full seconds only, at least 3 of them; the
//!   larger of base and new (and of their repeats). Series: ops per second
//!   for ops/s and MB/s, per-second p99 for p99/p99.9/p99.99, per-second max
//!   for max. Other metrics have no per-second series.
//! - CV_repeats: when a side was repeated (several runs given as
//!   `DIR1,DIR2,...`), the CV of the metric across its repeats; the larger of
//!   the two sides. Values compared are then the means over repeats.
//! - k: `--k`, default 2.
//!
//! |ratio - 1| <= band is noise; beyond it the change is an improvement or a
//! regression by the metric's direction, or "changed" for metrics with none
//! (syncs/commit). Values below a metric's resolution floor on both sides are
//! equal (an rpq of 0.00001 vs 0 is not a regression).

use anyhow::Result;

use super::summary::{self, Better, NamedRun, Summary, METRICS};
use crate::measure::usl::{self, UslFit};
use crate::result::RunResult;
use crate::report::table;

pub const DEFAULT_THRESHOLD: f64 = 0.05;
pub const DEFAULT_K: f64 = 2.0;
/// Full seconds needed before a per-second series says anything.
pub const MIN_INTERVALS: usize = 3;

/// Values below this on both sides are the same (absolute, in the metric's unit).
pub fn floor(key: &str) -> f64 {
    match key {
        "rpq" => 0.01,
        "wkbpi" => 0.01,
        "write_amp" | "eng_write_amp" | "space_amp" => 0.01,
        "syncs_per_commit" => 0.001,
        "stall_pct" => 0.1,
        "n_stall" => 0.5,
        "c_wgb" => 0.001,
        _ => 0.0,
    }
}

/// One side of a comparison: a run, or several repeats of the same run.
pub struct Group {
    pub label: String,
    /// (directory, result) per repeat.
    pub runs: Vec<(String, RunResult)>,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub threshold: f64,
    pub k: f64,
    /// Only these metric keys (None: all).
    pub metrics: Option<Vec<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options { threshold: DEFAULT_THRESHOLD, k: DEFAULT_K, metrics: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Regression,
    Improvement,
    Noise,
    /// Beyond the noise band on a metric without a direction.
    Changed,
    /// Measured on one side only.
    Missing,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Regression => "REGRESSION",
            Verdict::Improvement => "improvement",
            Verdict::Noise => "noise",
            Verdict::Changed => "changed",
            Verdict::Missing => "n/a",
        }
    }
}

/// Where a band came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandSource {
    Threshold,
    Intervals,
    Repeats,
}

#[derive(Debug, Clone)]
pub struct Line {
    pub step: String,
    pub metric: usize,
    pub base: Option<f64>,
    pub new: Option<f64>,
    pub ratio: Option<f64>,
    pub band: f64,
    pub source: BandSource,
    pub verdict: Verdict,
}

#[derive(Debug, Clone)]
pub struct Pair {
    pub base: String,
    pub new: String,
    pub lines: Vec<Line>,
    pub notes: Vec<String>,
    /// Concurrency sweeps of the pair's configs: the Universal Scalability
    /// Law fitted on each side (pooled over repeats), per swept step.
    pub scaling: Vec<ScalingPair>,
}

/// One swept step's fit on both sides (Err: why that side has no fit).
#[derive(Debug, Clone)]
pub struct ScalingPair {
    pub step: String,
    pub base: Result<UslFit, String>,
    pub new: Result<UslFit, String>,
}

/// The law fitted to every completed point of `config`'s sweep of `step`
/// in all of a group's runs (repeats pool their points); None when no run
/// swept that step.
fn pooled_fit(g: &Group, config: &str, step: &str) -> Option<Result<UslFit, String>> {
    let points: Vec<(f64, f64)> = g
        .runs
        .iter()
        .flat_map(|(_, r)| r.configs.iter().filter(|c| c.name == config))
        .flat_map(|c| c.scaling.iter().filter(|sc| sc.step == step))
        .flat_map(|sc| sc.points.iter().map(|p| (p.threads as f64, p.ops_s)))
        .collect();
    let swept = g.runs.iter().flat_map(|(_, r)| r.configs.iter().filter(|c| c.name == config)).any(|c| c.scaling.iter().any(|sc| sc.step == step));
    swept.then(|| usl::fit(&points))
}

/// The swept steps of either side, each fitted on both.
fn scaling_pairs(a: (&Group, &str), b: (&Group, &str)) -> Vec<ScalingPair> {
    let mut steps: Vec<String> = Vec::new();
    for (g, config) in [a, b] {
        for (_, r) in &g.runs {
            for c in r.configs.iter().filter(|c| c.name == config) {
                for sc in &c.scaling {
                    if !steps.contains(&sc.step) {
                        steps.push(sc.step.clone());
                    }
                }
            }
        }
    }
    let not_swept = |g: &Group| format!("{} has no sweep of this step", g.label);
    steps
        .into_iter()
        .map(|step| ScalingPair {
            base: pooled_fit(a.0, a.1, &step).unwrap_or_else(|| Err(not_swept(a.0))),
            new: pooled_fit(b.0, b.1, &step).unwrap_or_else(|| Err(not_swept(b.0))),
            step,
        })
        .collect()
}

#[derive(Debug, Clone)]
pub struct Comparison {
    pub pairs: Vec<Pair>,
    pub notes: Vec<String>,
    pub options: Options,
}

impl Comparison {
    pub fn count(&self, v: Verdict) -> usize {
        self.pairs.iter().flat_map(|p| &p.lines).filter(|l| l.verdict == v).count()
    }
}

/// The figures of one config in one step, over the repeats of a group.
#[derive(Default)]
struct Side {
    /// Per repeat: the metric values.
    values: Vec<Vec<Option<f64>>>,
    /// Per repeat: CV of per-second ops, p99 and max.
    cv_ops: Vec<Option<f64>>,
    cv_p99: Vec<Option<f64>>,
    cv_max: Vec<Option<f64>>,
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

fn max_opt(xs: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    xs.flatten().fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
}

impl Side {
    fn value(&self, mi: usize) -> Option<f64> {
        let v: Vec<f64> = self.values.iter().filter_map(|r| r[mi]).collect();
        mean(&v)
    }
    fn cv_repeats(&self, mi: usize) -> Option<f64> {
        let v: Vec<f64> = self.values.iter().filter_map(|r| r[mi]).collect();
        summary::cv(&v, 2)
    }
    fn cv_intervals(&self, key: &str) -> Option<f64> {
        let src = match key {
            "ops_s" | "mb_s" => &self.cv_ops,
            "p99_us" | "p999_us" | "p9999_us" => &self.cv_p99,
            "max_us" => &self.cv_max,
            _ => return None,
        };
        max_opt(src.iter().copied())
    }
}

/// Per step key: the side of `config` in every repeat of `group`.
fn side_of(group: &[Summary], config: &str) -> Vec<(String, Side)> {
    let mut out: Vec<(String, Side)> = Vec::new();
    for s in group {
        for st in &s.steps {
            let Some(row) = st.rows.iter().find(|r| r.config == config) else { continue };
            let idx = match out.iter().position(|(k, _)| *k == st.key) {
                Some(i) => i,
                None => {
                    out.push((st.key.clone(), Side::default()));
                    out.len() - 1
                }
            };
            let side = &mut out[idx].1;
            let full = summary::full_second_ops(&row.intervals, row.wall_s.unwrap_or(0.0));
            let series = |f: fn(&crate::measure::IntervalStats) -> f64| -> Option<f64> {
                summary::cv(&full.iter().map(|iv| f(iv)).collect::<Vec<_>>(), MIN_INTERVALS)
            };
            side.values.push(row.values.clone());
            side.cv_ops.push(series(|iv| iv.ops as f64));
            side.cv_p99.push(series(|iv| iv.p99_us));
            side.cv_max.push(series(|iv| iv.max_us));
        }
    }
    out
}

/// Classify one metric's change.
pub fn classify(key: &str, better: Better, base: Option<f64>, new: Option<f64>, band: f64) -> (Option<f64>, Verdict) {
    let (Some(b), Some(n)) = (base, new) else { return (None, Verdict::Missing) };
    let fl = floor(key);
    if b.abs() <= fl && n.abs() <= fl {
        return (summary::ratio(Some(n), Some(b)), Verdict::Noise);
    }
    let ratio = summary::ratio(Some(n), Some(b));
    let beyond = match ratio {
        Some(r) => (r - 1.0).abs() > band,
        None => true, // from 0 to something above the floor
    };
    if !beyond {
        return (ratio, Verdict::Noise);
    }
    let up = n > b;
    let verdict = match better {
        Better::Neither => Verdict::Changed,
        Better::Higher if up => Verdict::Improvement,
        Better::Lower if !up => Verdict::Improvement,
        _ => Verdict::Regression,
    };
    (ratio, verdict)
}

fn compare_sides(step_sides_a: &[(String, Side)], step_sides_b: &[(String, Side)], opts: &Options, pair: &mut Pair) {
    for (key, a) in step_sides_a {
        let Some((_, b)) = step_sides_b.iter().find(|(k, _)| k == key) else {
            pair.notes.push(format!("step {key}: only in {}", pair.base));
            continue;
        };
        for (mi, m) in METRICS.iter().enumerate() {
            if opts.metrics.as_ref().is_some_and(|keys| !keys.iter().any(|k| k == m.key)) {
                continue;
            }
            let (va, vb) = (a.value(mi), b.value(mi));
            if va.is_none() && vb.is_none() {
                continue;
            }
            let cvi = max_opt([a.cv_intervals(m.key), b.cv_intervals(m.key)].into_iter());
            let cvr = max_opt([a.cv_repeats(mi), b.cv_repeats(mi)].into_iter());
            let mut band = opts.threshold;
            let mut source = BandSource::Threshold;
            if let Some(c) = cvi.map(|c| c * opts.k).filter(|c| *c > band) {
                band = c;
                source = BandSource::Intervals;
            }
            if let Some(c) = cvr.map(|c| c * opts.k).filter(|c| *c > band) {
                band = c;
                source = BandSource::Repeats;
            }
            let (ratio, verdict) = classify(m.key, m.better, va, vb, band);
            pair.lines.push(Line { step: key.clone(), metric: mi, base: va, new: vb, ratio, band, source, verdict });
        }
    }
    for (key, _) in step_sides_b {
        if !step_sides_a.iter().any(|(k, _)| k == key) {
            pair.notes.push(format!("step {key}: only in {}", pair.new));
        }
    }
}

fn summaries(g: &Group) -> Vec<Summary> {
    g.runs.iter().map(|(dir, r)| Summary::build(&[NamedRun { label: g.label.clone(), dir: dir.clone(), run: r }])).collect()
}

fn config_names(g: &Group) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, r) in &g.runs {
        for c in &r.configs {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    names
}

/// Compare every group after the first against the first (configs matched
/// by name; a single config on each side is matched whatever its name).
/// With one group, its configs are compared against its first config.
pub fn compare(groups: &[Group], opts: &Options) -> Result<Comparison> {
    anyhow::ensure!(!groups.is_empty(), "nothing to compare");
    if let Some(keys) = &opts.metrics {
        for k in keys {
            if summary::metric_index(k).is_none() {
                let valid: Vec<&str> = METRICS.iter().map(|m| m.key).collect();
                anyhow::bail!("unknown metric '{k}' (valid: {})", valid.join(", "));
            }
        }
    }
    let mut out = Comparison { pairs: Vec::new(), notes: Vec::new(), options: opts.clone() };
    let base_sum = summaries(&groups[0]);
    let base_names = config_names(&groups[0]);
    // (base label, base sides per step, new label, new sides per step, scaling fits)
    type Job = (String, Vec<(String, Side)>, String, Vec<(String, Side)>, Vec<ScalingPair>);
    let mut jobs: Vec<Job> = Vec::new();
    if groups.len() == 1 {
        anyhow::ensure!(base_names.len() > 1, "one run with one config: give two runs (or a run with several configs) to compare");
        let a = &base_names[0];
        for b in &base_names[1..] {
            let scaling = scaling_pairs((&groups[0], a), (&groups[0], b));
            jobs.push((a.clone(), side_of(&base_sum, a), b.clone(), side_of(&base_sum, b), scaling));
        }
    } else {
        for g in &groups[1..] {
            let sum = summaries(g);
            let names = config_names(g);
            let label = |grp: &Group, c: &str| format!("{}/{c}", grp.label);
            let mut matched = false;
            for n in &base_names {
                if names.contains(n) {
                    matched = true;
                    let scaling = scaling_pairs((&groups[0], n), (g, n));
                    jobs.push((label(&groups[0], n), side_of(&base_sum, n), label(g, n), side_of(&sum, n), scaling));
                }
            }
            if !(names.len() == 1 && base_names.len() == 1) {
                for n in names.iter().filter(|n| !base_names.contains(n)) {
                    out.notes.push(format!("config {n} of {} has no counterpart in {}", g.label, groups[0].label));
                }
            }
            if !matched && names.len() == 1 && base_names.len() == 1 {
                let scaling = scaling_pairs((&groups[0], &base_names[0]), (g, &names[0]));
                jobs.push((label(&groups[0], &base_names[0]), side_of(&base_sum, &base_names[0]), label(g, &names[0]), side_of(&sum, &names[0]), scaling));
            }
        }
    }
    for (a_label, a, b_label, b, scaling) in jobs {
        let mut pair = Pair { base: a_label, new: b_label, lines: Vec::new(), notes: Vec::new(), scaling };
        compare_sides(&a, &b, opts, &mut pair);
        out.pairs.push(pair);
    }
    for g in groups {
        if g.runs.len() > 1 {
            out.notes.push(format!("{}: {} repeats (values are means over repeats)", g.label, g.runs.len()));
        }
    }
    Ok(out)
}

/// Configs of one run (one summary) against one of them, as [`compare`]
/// does with a single group: one pair per config of `others`, base first.
pub fn compare_configs(s: &Summary, base: &str, others: &[String], opts: &Options) -> Vec<Pair> {
    let one = std::slice::from_ref(s);
    let a = side_of(one, base);
    others
        .iter()
        .map(|o| {
            let mut pair = Pair { base: base.to_string(), new: o.clone(), lines: Vec::new(), notes: Vec::new(), scaling: Vec::new() };
            compare_sides(&a, &side_of(one, o), opts, &mut pair);
            pair
        })
        .collect()
}

/// The method, in words, with the thresholds used.
pub fn method_text(opts: &Options) -> String {
    format!(
        "noise: a change is noise when |ratio - 1| <= max({:.0}%, {k} x CV_intervals, {k} x CV_repeats); \
CV_intervals = coefficient of variation of the step's per-second series (ops/s for ops/s and MB/s, per-second p99 for \
p99..p99.99, per-second max for max; full seconds only, at least {MIN_INTERVALS}), the larger of both sides; \
CV_repeats = CV of the metric across repeated runs (DIR1,DIR2,...); other metrics use the {:.0}% threshold alone. \
Band column: \"iv\" = from intervals, \"rep\" = from repeats, no mark = threshold.",
        opts.threshold * 100.0,
        opts.threshold * 100.0,
        k = opts.k
    )
}

/// The pair's concurrency sweeps side by side: the fitted law's parameters
/// (sigma = contention, kappa = coherency) of base and new per swept step.
fn render_scaling(p: &Pair) -> String {
    let mut o = String::from("concurrency sweeps, Universal Scalability Law fitted on each side (repeats pooled):\n");
    let peak = |f: &UslFit| match (f.peak_n, f.peak_throughput) {
        (Some(n), Some(x)) => format!("{n:.0} ({})", summary::fmt_value(x)),
        _ => "none".into(),
    };
    let mut rows = Vec::new();
    let mut why = Vec::new();
    for sp in &p.scaling {
        for (side, fit) in [("base", &sp.base), ("new", &sp.new)] {
            match fit {
                Ok(f) => rows.push(vec![
                    sp.step.clone(),
                    side.into(),
                    summary::fmt_value(f.lambda),
                    format!("{:.4}", f.sigma),
                    format!("{:.6}", f.kappa),
                    peak(f),
                    format!("{:.3}", f.r_squared),
                ]),
                Err(e) => {
                    rows.push(vec![sp.step.clone(), side.into(), "-".into(), "-".into(), "-".into(), "-".into(), "-".into()]);
                    why.push(format!("{} {side}: no fit: {e}", sp.step));
                }
            }
        }
    }
    o.push_str(&table::render_table(&["step", "side", "lambda ops/s", "sigma", "kappa", "peak N (ops/s)", "R^2"], &rows));
    for w in why {
        o.push_str(&format!("note: {w}\n"));
    }
    o
}

pub fn render_text(c: &Comparison) -> String {
    let mut o = String::new();
    o.push_str(&method_text(&c.options));
    o.push('\n');
    for n in &c.notes {
        o.push_str(&format!("note: {n}\n"));
    }
    for p in &c.pairs {
        o.push_str(&format!("\n{} -> {}\n", p.base, p.new));
        let rows: Vec<Vec<String>> = p
            .lines
            .iter()
            .map(|l| {
                let m = &METRICS[l.metric];
                let f = |v: Option<f64>| v.map(summary::fmt_value).unwrap_or_else(|| "-".into());
                vec![
                    l.step.clone(),
                    m.title(),
                    f(l.base),
                    f(l.new),
                    match (l.ratio, l.base, l.new) {
                        (Some(r), _, _) => format!("{r:.3}"),
                        (None, Some(_), Some(_)) => "inf".into(),
                        _ => "-".into(),
                    },
                    format!(
                        "{:.0}%{}",
                        l.band * 100.0,
                        match l.source {
                            BandSource::Threshold => "",
                            BandSource::Intervals => " iv",
                            BandSource::Repeats => " rep",
                        }
                    ),
                    l.verdict.text().into(),
                ]
            })
            .collect();
        o.push_str(&table::render_table(&["step", "metric", "base", "new", "ratio", "noise band", "verdict"], &rows));
        for n in &p.notes {
            o.push_str(&format!("note: {n}\n"));
        }
        if !p.scaling.is_empty() {
            o.push_str(&render_scaling(p));
        }
    }
    o.push_str(&format!(
        "\n{} regressions, {} improvements, {} within noise, {} changed (no direction), {} measured on one side only\n",
        c.count(Verdict::Regression),
        c.count(Verdict::Improvement),
        c.count(Verdict::Noise),
        c.count(Verdict::Changed),
        c.count(Verdict::Missing)
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_by_band_and_direction() {
        assert_eq!(classify("ops_s", Better::Higher, Some(100.0), Some(104.0), 0.05).1, Verdict::Noise);
        assert_eq!(classify("ops_s", Better::Higher, Some(100.0), Some(110.0), 0.05).1, Verdict::Improvement);
        assert_eq!(classify("ops_s", Better::Higher, Some(100.0), Some(80.0), 0.05).1, Verdict::Regression);
        assert_eq!(classify("ops_s", Better::Higher, Some(100.0), Some(80.0), 0.30).1, Verdict::Noise);
        assert_eq!(classify("p99_us", Better::Lower, Some(100.0), Some(80.0), 0.05).1, Verdict::Improvement);
        assert_eq!(classify("p99_us", Better::Lower, Some(100.0), Some(120.0), 0.05).1, Verdict::Regression);
        assert_eq!(classify("syncs_per_commit", Better::Neither, Some(1.0), Some(2.0), 0.05).1, Verdict::Changed);
        assert_eq!(classify("rpq", Better::Lower, Some(0.0), Some(0.00001), 0.05).1, Verdict::Noise);
        assert_eq!(classify("rpq", Better::Lower, Some(0.0), Some(0.5), 0.05), (None, Verdict::Regression));
        assert_eq!(classify("ops_s", Better::Higher, None, Some(1.0), 0.05).1, Verdict::Missing);
    }

    /// A run whose first config swept readrandom over 1..32 threads with these sigma and kappa.
    fn swept(sigma: f64, kappa: f64, counts: &[f64]) -> RunResult {
        use crate::result::scaling::{ScalingPoint, Scaling};
        let mut run = crate::result::fixtures::realistic_run();
        let points = counts
            .iter()
            .map(|&n| ScalingPoint { threads: n as usize, ops_s: 1000.0 * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0)), efficiency: None })
            .collect();
        run.configs[0].scaling = vec![Scaling { step: "readrandom".into(), points, fit: None, no_fit: None }];
        run
    }

    #[test]
    fn sweeps_show_sigma_and_kappa_side_by_side() {
        let all = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        let group = |label: &str, runs: Vec<RunResult>| Group { label: label.into(), runs: runs.into_iter().map(|r| (String::new(), r)).collect() };
        // The new side's repeats have three points each: pooled, they make six.
        let c = compare(
            &[group("a", vec![swept(0.05, 0.001, &all)]), group("b", vec![swept(0.10, 0.0, &all[..3]), swept(0.10, 0.0, &all[3..])])],
            &Options::default(),
        )
        .unwrap();
        let sp = &c.pairs[0].scaling[0];
        let (a, b) = (sp.base.as_ref().unwrap(), sp.new.as_ref().unwrap());
        assert!((a.sigma - 0.05).abs() < 1e-3 && (a.kappa - 0.001).abs() < 1e-5, "{a:?}");
        assert!((b.sigma - 0.10).abs() < 1e-3 && b.kappa < 1e-6, "{b:?}");
        let text = render_text(&c);
        assert!(text.contains("Universal Scalability Law fitted on each side"), "{text}");
        let row = |side: &str| text.lines().find(|l| l.starts_with("readrandom") && l.split_whitespace().nth(1) == Some(side)).unwrap_or_else(|| panic!("{text}"));
        assert!(row("base").contains("0.0500") && row("base").contains("0.001000"), "{text}");
        assert!(row("new").contains("0.1000") && row("new").contains("none"), "{text}");
        // One side without enough points: its row says why.
        let c = compare(&[group("a", vec![swept(0.05, 0.001, &all)]), group("b", vec![swept(0.05, 0.001, &all[..3])])], &Options::default()).unwrap();
        assert!(render_text(&c).contains("readrandom new: no fit: 3 concurrency levels measured"), "{}", render_text(&c));
    }
}
