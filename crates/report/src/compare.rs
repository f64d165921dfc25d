//! Run comparison with verdicts earned by repeated runs.
//!
//! For each step and metric: the ratio new / base of the medians over
//! repeats, and with repeats on both sides a confidence interval on it
//! (see `verdict`: t intervals on log ratios, paired by round within one
//! run, Welch's between runs). The verdict: REGRESSION / improvement when
//! the whole interval lies beyond the threshold (default 5%), "same" when
//! it lies within, "inconclusive" otherwise (with the repeats that would
//! likely settle it); one run per side gives ratios and no verdict.
//!
//! Which figures answer "did it get slower or costlier" (`Role`): the
//! primary ones, throughput and the CPU per operation that is the engine's
//! cost, judged together as one small family (Bonferroni over the pair's
//! primary lines); every other figure is secondary, judged with the
//! false-discovery rate held at 5% (Benjamini-Hochberg, whose intervals
//! are Benjamini and Yekutieli's false-coverage-rate ones); a figure that
//! is another one again (MB/s is ops/s times the entry size, % of limit is
//! ops/s over a ceiling) or one operation (the maximum) is reported with
//! its ratio and never judged. Each line says the smallest change its
//! interval could have called (`Line::detectable`), and each pair warns
//! when a step is too short for its own noise or the machine drifted.
//!
//! A control that must not move: rumbench's own client CPU per operation
//! where its work is the same on both sides (both configs are servers, or
//! both the null engine with the same options). When its ratio moves
//! beyond the threshold, the step's verdicts are withheld as "noisy machine".
//! Values below a metric's resolution floor on both sides are the same (an
//! rpq of 0.00001 vs 0 is not a regression).

use anyhow::Result;

use super::exercised;
use super::summary::{self, Better, NamedRun, RepeatFigures, Summary, METRICS};
use super::verdict::{self, Interval, Position};
use crate::measure::usl::{self, UslFit};
use crate::result::RunResult;

pub const DEFAULT_THRESHOLD: f64 = 0.05;

/// Values below this on both sides are the same (absolute, in the metric's
/// unit). Metrics with a floor are compared as ln(value + floor), so a 0
/// (no stall in one repeat) does not end the comparison.
pub fn floor(key: &str) -> f64 {
    match key {
        "rpq" => 0.01,
        "wkbpi" => 0.01,
        "write_amp" | "write_amp_debt" | "eng_write_amp" | "space_amp" => 0.01,
        "syncs_per_commit" => 0.001,
        "stall_pct" => 0.1,
        "n_stall" => 0.5,
        "c_wgb" => 0.001,
        _ => 0.0,
    }
}

/// The metric whose movement says the machine, not the engine, changed:
/// the CPU per operation of the threads that issued the operations
/// (measure::thread_cpu), which leaves out the measurement's own threads.
pub const CONTROL_METRIC: &str = "thr_cpu_us_op";
/// The control in results from before rumbench measured those threads
/// apart: the whole process's CPU per operation.
pub const FALLBACK_CONTROL_METRIC: &str = "cpu_us_op";

/// One side of a comparison: a run, or several repeats of the same run.
pub struct Group {
    pub label: String,
    /// (directory, result) per repeat.
    pub runs: Vec<(String, RunResult)>,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The practical threshold: smaller changes do not matter.
    pub threshold: f64,
    /// Only these metric keys (None: all).
    pub metrics: Option<Vec<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options { threshold: DEFAULT_THRESHOLD, metrics: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval lies beyond the threshold, the bad way.
    Regression,
    /// The whole interval lies beyond the threshold, the good way.
    Improvement,
    /// The whole interval lies within +-threshold.
    Same,
    /// The interval crosses a threshold: with the repeats (per side) that
    /// would likely settle it, None when even 100 would not.
    Inconclusive(Option<usize>),
    /// Beyond the threshold on a metric without a direction.
    Changed,
    /// Fewer than two repeats on a side (or two rounds in common): a ratio, no interval.
    OneRun,
    /// The step's control moved: no verdict on this machine's figures.
    /// `established`: the control's own interval lies beyond the threshold
    /// (rumbench's cost per operation changed between the sides, not only
    /// its point estimate on a noisy machine).
    Withheld { established: bool },
    /// The control itself moved beyond the threshold (`established` as above).
    ControlMoved { established: bool },
    /// Measured on one side only.
    Missing,
    /// Shown with its ratio, never judged (`Role::Reported`).
    NotJudged,
}

impl Verdict {
    pub fn text(self) -> String {
        match self {
            Verdict::Regression => "REGRESSION".into(),
            Verdict::Improvement => "improvement".into(),
            Verdict::Same => "same".into(),
            Verdict::Inconclusive(Some(n)) => format!("inconclusive (~{n} repeats)"),
            Verdict::Inconclusive(None) => format!("inconclusive (>{} repeats)", verdict::MAX_REPEATS_ESTIMATE),
            Verdict::Changed => "changed".into(),
            Verdict::OneRun => "no verdict (1 run)".into(),
            Verdict::Withheld { established: false } => "withheld (noisy machine)".into(),
            Verdict::Withheld { established: true } => "withheld (client cost changed)".into(),
            Verdict::ControlMoved { established: false } => "MOVED: noisy machine".into(),
            // Its whole interval beyond the threshold: not noise, rumbench's own work per operation changed.
            Verdict::ControlMoved { established: true } => "MOVED: client cost changed".into(),
            Verdict::Missing => "n/a".into(),
            Verdict::NotJudged => "not judged".into(),
        }
    }

    /// Whether the verdict says the engine changed.
    pub fn is_change(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Improvement | Verdict::Changed)
    }
}

/// What a metric's line is for in a comparison (module docs; docs/report.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Did it get slower or costlier: throughput, and the CPU per operation
    /// that is the engine's cost. One small family per pair (Bonferroni).
    Primary,
    /// Every other judged figure: false-discovery rate (Benjamini-Hochberg).
    Secondary,
    /// Its ratio only: another figure again, or one operation.
    Reported,
    /// The step's control (rumbench's own CPU per operation), judged alone at 95%.
    Control,
}

/// The CPU per operation that is the engine's cost between two sides: the
/// server's process tree where both ran a server rumbench started (the
/// client's is then the control), else the benchmark process's (every
/// thread: the engine's foreground and background work).
fn cost_metric(a: &Side, b: &Side) -> &'static str {
    let srv = summary::metric_index("srv_cpu_us_op").expect("srv_cpu_us_op");
    if !a.values(srv).is_empty() && !b.values(srv).is_empty() {
        "srv_cpu_us_op"
    } else {
        "cpu_us_op"
    }
}

/// The role of metric `key` in a comparison whose engine cost is `cost`.
pub fn role(key: &str, cost: &str) -> Role {
    match key {
        // The rate found under --slo answers the same question for its step.
        "ops_s" | "slo_ops_s" => Role::Primary,
        k if k == cost => Role::Primary,
        // ops/s times the entry size; ops/s over a ceiling; one operation.
        "mb_s" | "limit_pct" | "max_us" => Role::Reported,
        _ => Role::Secondary,
    }
}

#[derive(Debug, Clone)]
pub struct Line {
    pub step: String,
    pub metric: usize,
    pub role: Role,
    /// Medians over each side's repeats.
    pub base: Option<f64>,
    pub new: Option<f64>,
    /// The interval's point estimate when there is one, else new / base.
    pub ratio: Option<f64>,
    pub interval: Option<Interval>,
    /// Repeats measured on each side.
    pub n_base: usize,
    pub n_new: usize,
    /// This line is the step's control (`CONTROL_METRIC`).
    pub control: bool,
    pub verdict: Verdict,
    /// The smallest change the line's interval could have called, as a
    /// fraction, in the direction that would be a regression (an increase
    /// for a metric without one): `verdict::Interval::detectable`.
    pub detectable: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Pair {
    pub base: String,
    pub new: String,
    pub lines: Vec<Line>,
    pub notes: Vec<String>,
    /// Notes about one config's own runs (a step too short for its noise, a
    /// drift), each naming the config: the same in every pair it is in.
    pub run_notes: Vec<String>,
    /// Primary lines judged together (their intervals are simultaneous),
    /// and the confidence level of each of their intervals.
    pub family: usize,
    pub level: f64,
    /// Secondary lines judged, the discoveries among them at a 5%
    /// false-discovery rate, and the level of their intervals (1 - 5% x
    /// discoveries / lines, at least one discovery's worth).
    pub secondary: usize,
    pub discoveries: usize,
    pub secondary_level: f64,
    /// Concurrency sweeps of the pair's configs: the Universal Scalability
    /// Law fitted on each side (pooled over repeats), per swept step.
    pub scaling: Vec<ScalingPair>,
    /// Per step, the settings the configs differ in that could not have
    /// acted in it, or whose action rumbench cannot tell (`exercised`):
    /// (step, note), one note per step, said beside its ratios.
    pub unexercised: Vec<(String, String)>,
}

impl Pair {
    fn new(base: String, new: String, scaling: Vec<ScalingPair>) -> Pair {
        Pair {
            base,
            new,
            lines: Vec::new(),
            notes: Vec::new(),
            run_notes: Vec::new(),
            family: 0,
            level: 0.95,
            secondary: 0,
            discoveries: 0,
            secondary_level: 0.95,
            scaling,
            unexercised: Vec::new(),
        }
    }

    /// The note on `step` when a setting the configs differ in could not
    /// have acted in it (`exercised::note`).
    pub fn unexercised(&self, step: &str) -> Option<&str> {
        self.unexercised.iter().find(|(s, _)| s == step).map(|(_, n)| n.as_str())
    }

    /// Per step, the smallest change each primary line could have called:
    /// ("readrandom", "8% in ops/s, 4% in cpu/op").
    pub fn detectable(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for l in self.lines.iter().filter(|l| l.role == Role::Primary) {
            let Some(d) = l.detectable else { continue };
            let part = format!("{} in {}", percent(d), METRICS[l.metric].title());
            match out.iter_mut().find(|(s, _)| *s == l.step) {
                Some((_, text)) => text.push_str(&format!(", {part}")),
                None => out.push((l.step.clone(), part)),
            }
        }
        out
    }
}

/// A fraction as a percentage for a reader: "8%", "0.8%", ">1000%".
pub fn percent(f: f64) -> String {
    match f * 100.0 {
        p if p >= 1000.0 => ">1000%".into(),
        p if p >= 10.0 => format!("{p:.0}%"),
        p => format!("{p:.1}%"),
    }
}

/// What a step's repeats say about their own noise, as notes: a step too
/// short for its noise (its ops/s varies between rounds by more than half
/// the threshold, and it ran under 4 s), and a drift of the machine over
/// the rounds larger than the threshold (paired rounds: each pair is then
/// biased by the drift between its two members).
fn noise_notes(
    step: &str,
    (a, a_name): (&Side, &str),
    (b, b_name): (&Side, &str),
    paired: bool,
    threshold: f64,
) -> Vec<String> {
    let ops = summary::metric_index("ops_s").expect("ops_s");
    let mut notes = Vec::new();
    for (side, name) in [(a, a_name), (b, b_name)] {
        let logs: Vec<f64> = side.values(ops).iter().filter(|v| **v > 0.0).map(|v| v.ln()).collect();
        // A step of a few operations (flush, waitforcompaction) has no steady state to reach.
        let count = super::stats::median(
            &side.repeats.iter().filter_map(|(_, r)| Some(r.values[ops]? * r.wall_s?)).collect::<Vec<f64>>(),
        );
        if logs.len() < 3 || count.is_none_or(|c| c < MIN_STEADY_STEP_OPS) {
            continue;
        }
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (logs.len() - 1) as f64).sqrt();
        let walls: Vec<f64> = side.repeats.iter().filter_map(|(_, r)| r.wall_s).collect();
        let wall = super::stats::median(&walls);
        if sd > threshold / 2.0 && wall.is_some_and(|w| w < MIN_STEADY_STEP_S) {
            notes.push(format!(
                "{name}'s step {step}: each run took {:.1} s and its ops/s varied {} between rounds: too short for its own noise (below {:.0} s a step measures its start); give it --seconds {:.0} or more",
                wall.unwrap_or(0.0),
                percent(sd.exp() - 1.0),
                MIN_STEADY_STEP_S,
                MIN_STEADY_STEP_S
            ));
            break;
        }
    }
    if paired {
        // The drift: the base's ops/s against the round it ran in.
        let by_round: Vec<(f64, f64)> =
            a.by_round(ops).into_iter().filter(|(_, v)| *v > 0.0).map(|((_, r), v)| (r as f64, v.ln())).collect();
        if by_round.len() >= 4 {
            let n = by_round.len() as f64;
            let (mx, my) =
                (by_round.iter().map(|p| p.0).sum::<f64>() / n, by_round.iter().map(|p| p.1).sum::<f64>() / n);
            let sxy: f64 = by_round.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
            let sxx: f64 = by_round.iter().map(|(x, _)| (x - mx).powi(2)).sum();
            let syy: f64 = by_round.iter().map(|(_, y)| (y - my).powi(2)).sum();
            let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
            let r = if sxx > 0.0 && syy > 0.0 { sxy / (sxx * syy).sqrt() } else { 0.0 };
            let span = slope
                * (by_round.iter().map(|p| p.0).fold(f64::MIN, f64::max)
                    - by_round.iter().map(|p| p.0).fold(f64::MAX, f64::min));
            if r.abs() >= 0.8 && span.abs().exp() - 1.0 > threshold {
                notes.push(format!(
                    "{a_name}'s step {step}: the machine drifted: its ops/s went {} {} over the rounds (steadily, r = {r:.2}); rounds interleave the configs, but a drift this large moves between a round's turns too: run more, shorter rounds, or on a quieter machine",
                    if span > 0.0 { "up" } else { "down" },
                    percent(span.abs().exp() - 1.0)
                ));
            }
        }
    }
    notes
}

/// Below this, a step measures its own start more than the engine: a
/// 0.3-second fill varied 20% between processes on this machine kind, the
/// same step of 4 seconds 2.5% (docs/report.md, "Verdict method").
pub const MIN_STEADY_STEP_S: f64 = 4.0;
/// Steps of fewer operations than this (flush, waitforcompaction: one)
/// are not warned about for their length.
const MIN_STEADY_STEP_OPS: f64 = 100.0;

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
    let swept = g
        .runs
        .iter()
        .flat_map(|(_, r)| r.configs.iter().filter(|c| c.name == config))
        .any(|c| c.scaling.iter().any(|sc| sc.step == step));
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
    /// (the run's index in its group, the repeat), every repeat.
    repeats: Vec<(usize, RepeatFigures)>,
    engine: String,
    options: Vec<(String, String)>,
}

impl Side {
    fn values(&self, mi: usize) -> Vec<f64> {
        self.repeats.iter().filter_map(|(_, r)| r.values[mi]).collect()
    }
    fn median(&self, mi: usize) -> Option<f64> {
        super::stats::median(&self.values(mi))
    }
    /// The side as `exercised` judges it: engine, options, each repeat's facts.
    fn exercised(&self) -> exercised::Side<'_> {
        exercised::Side {
            engine: &self.engine,
            options: &self.options,
            facts: self.repeats.iter().map(|(_, r)| &r.facts).collect(),
        }
    }
    /// Repeats of one run, by (run index, round): what a pairing matches.
    fn by_round(&self, mi: usize) -> Vec<((usize, u32), f64)> {
        self.repeats.iter().filter_map(|(run, r)| Some(((*run, r.round?), r.values[mi]?))).collect()
    }
}

/// Per step key: the side of `config` in every run of a group.
fn side_of(group: &[Summary], config: &str) -> Vec<(String, Side)> {
    let mut out: Vec<(String, Side)> = Vec::new();
    for (run, s) in group.iter().enumerate() {
        let info = s.runs.first().and_then(|r| r.configs.iter().find(|c| c.name == config));
        for st in &s.steps {
            let Some(row) = st.rows.iter().find(|r| r.config == config) else { continue };
            let idx = match out.iter().position(|(k, _)| *k == st.key) {
                Some(i) => i,
                None => {
                    let side = Side {
                        engine: row.engine.clone(),
                        options: info.map(|c| c.options.clone()).unwrap_or_default(),
                        ..Side::default()
                    };
                    out.push((st.key.clone(), side));
                    out.len() - 1
                }
            };
            out[idx].1.repeats.extend(row.repeats.iter().map(|r| (run, r.clone())));
        }
    }
    out
}

/// The step's control applies: rumbench's own work per operation is the
/// same on both sides (one server engine, or the null engine alike).
fn has_control(a: &Side, b: &Side) -> bool {
    let srv = summary::metric_index("srv_cpu_us_op").expect("srv_cpu_us_op");
    // The same server engine on both sides (versions, settings): the same client code and protocol.
    let servers = a.engine == b.engine && !a.values(srv).is_empty() && !b.values(srv).is_empty();
    let null_alike = a.engine == "null" && b.engine == "null" && a.options == b.options;
    servers || null_alike
}

/// The control metric of two sides: the workload threads' CPU where both
/// sides measured it, the process's otherwise.
fn control_metric(a: &Side, b: &Side) -> &'static str {
    let threads = summary::metric_index(CONTROL_METRIC).expect("a metric");
    if !a.values(threads).is_empty() && !b.values(threads).is_empty() {
        CONTROL_METRIC
    } else {
        FALLBACK_CONTROL_METRIC
    }
}

/// The interval of one metric between two sides at `level`: paired by
/// round when `paired` and two rounds are in common, else Welch's.
fn interval(a: &Side, b: &Side, mi: usize, paired: bool, level: f64) -> Option<Interval> {
    let off = floor(METRICS[mi].key);
    if paired {
        let bb = b.by_round(mi);
        let pairs: Vec<(f64, f64)> = a
            .by_round(mi)
            .into_iter()
            .filter_map(|(k, va)| bb.iter().find(|(kb, _)| *kb == k).map(|(_, vb)| (va + off, vb + off)))
            .collect();
        return verdict::paired(&pairs, level);
    }
    let shift = |v: Vec<f64>| v.into_iter().map(|x| x + off).collect::<Vec<_>>();
    verdict::unpaired(&shift(a.values(mi)), &shift(b.values(mi)), level)
}

/// The verdict on a metric of direction `better` from its interval. A
/// change needs `verdict::MIN_REPEATS_FOR_CHANGE` repeats (or pairs): with
/// fewer, an interval beyond the threshold is inconclusive.
pub fn judge(better: Better, interval: Option<&Interval>, threshold: f64) -> Verdict {
    let Some(i) = interval else { return Verdict::OneRun };
    let position = verdict::position(i, threshold);
    if matches!(position, Position::Above | Position::Below) && i.n < verdict::MIN_REPEATS_FOR_CHANGE {
        return Verdict::Inconclusive(Some(verdict::MIN_REPEATS_FOR_CHANGE));
    }
    match (position, better) {
        (Position::Within, _) => Verdict::Same,
        (Position::Across, _) => {
            Verdict::Inconclusive(verdict::repeats_needed(i, threshold).map(|n| n.max(verdict::MIN_REPEATS_FOR_CHANGE)))
        }
        (_, Better::Neither) => Verdict::Changed,
        (Position::Above, Better::Higher) | (Position::Below, Better::Lower) => Verdict::Improvement,
        (Position::Above, Better::Lower) | (Position::Below, Better::Higher) => Verdict::Regression,
    }
}

fn compare_sides(
    step_sides_a: &[(String, Side)],
    step_sides_b: &[(String, Side)],
    same_run: bool,
    opts: &Options,
    pair: &mut Pair,
) {
    let wanted = |key: &str| opts.metrics.as_ref().is_none_or(|keys| keys.iter().any(|k| k == key));
    struct Todo<'s> {
        step: &'s str,
        mi: usize,
        a: &'s Side,
        b: &'s Side,
        /// Paired by round: both sides ran in the same rounds of one run.
        paired: bool,
        role: Role,
        /// Every value on both sides is below the metric's floor.
        tiny: bool,
    }
    let mut todo: Vec<Todo> = Vec::new();
    for (key, a) in step_sides_a {
        let Some((_, b)) = step_sides_b.iter().find(|(k, _)| k == key) else {
            pair.notes.push(format!("step {key}: only in {}", pair.base));
            continue;
        };
        let control = has_control(a, b);
        let control_key = control_metric(a, b);
        let cost = cost_metric(a, b);
        let rounds = |s: &Side| !s.repeats.is_empty() && s.repeats.iter().all(|(_, r)| r.round.is_some());
        let paired = same_run && rounds(a) && rounds(b);
        pair.run_notes.extend(noise_notes(key, (a, &pair.base), (b, &pair.new), paired, opts.threshold));
        if let Some(n) = exercised::note(&a.exercised(), &b.exercised()) {
            pair.unexercised.push((key.clone(), n));
        }
        for (mi, m) in METRICS.iter().enumerate() {
            let is_control = control && m.key == control_key;
            if !wanted(m.key) && !is_control {
                continue;
            }
            let (va, vb) = (a.values(mi), b.values(mi));
            if va.is_empty() && vb.is_empty() {
                continue;
            }
            let fl = floor(m.key);
            // Below the floor on both sides is the same, if repeats say so (one run: no verdict).
            let tiny = fl > 0.0 && va.len() >= 2 && vb.len() >= 2 && va.iter().chain(&vb).all(|v| v.abs() <= fl);
            let role = if is_control { Role::Control } else { role(m.key, cost) };
            todo.push(Todo { step: key, mi, a, b, paired, role, tiny });
        }
    }
    // The primary lines: simultaneous intervals (Bonferroni). The secondary
    // ones: Benjamini-Hochberg on their p-values of "beyond the threshold",
    // their intervals at the level that makes exactly the discoveries lie
    // beyond it. The control is one check of its own, at 95%.
    let judged = |t: &Todo, role: Role| t.role == role && !t.tiny && interval(t.a, t.b, t.mi, t.paired, 0.95).is_some();
    let family = todo.iter().filter(|t| judged(t, Role::Primary)).count();
    let level = verdict::simultaneous_level(family);
    let p_values: Vec<f64> = todo
        .iter()
        .filter(|t| judged(t, Role::Secondary))
        .filter_map(|t| interval(t.a, t.b, t.mi, t.paired, 0.95).map(|i| i.p_beyond(opts.threshold)))
        .collect();
    let discoveries = verdict::benjamini_hochberg(&p_values, verdict::ALPHA);
    let secondary_level = 1.0 - verdict::ALPHA * discoveries.max(1) as f64 / p_values.len().max(1) as f64;
    pair.family = family;
    pair.level = level;
    pair.secondary = p_values.len();
    pair.discoveries = discoveries;
    pair.secondary_level = secondary_level;
    let mut moved_steps: Vec<(&str, bool)> = Vec::new();
    for t in &todo {
        let m = &METRICS[t.mi];
        let (base, new) = (t.a.median(t.mi), t.b.median(t.mi));
        let line_level = match t.role {
            Role::Primary => level,
            Role::Secondary => secondary_level,
            Role::Control | Role::Reported => 0.95,
        };
        let (interval, verdict) = if base.is_none() || new.is_none() {
            (None, Verdict::Missing)
        } else if t.tiny {
            (None, Verdict::Same)
        } else {
            let i = interval(t.a, t.b, t.mi, t.paired, line_level);
            let v = if t.role == Role::Reported && i.is_some() {
                Verdict::NotJudged
            } else {
                judge(m.better, i.as_ref(), opts.threshold)
            };
            (i, v)
        };
        let ratio = interval.map(|i| i.ratio).or_else(|| summary::ratio(new, base));
        let control = t.role == Role::Control;
        let verdict = match ratio {
            Some(r) if control && (r - 1.0).abs() > opts.threshold => {
                let established = interval.is_some_and(|i| {
                    matches!(verdict::position(&i, opts.threshold), Position::Above | Position::Below)
                });
                moved_steps.push((t.step, established));
                Verdict::ControlMoved { established }
            }
            _ => verdict,
        };
        let detectable = interval
            .filter(|_| t.role != Role::Reported)
            .map(|i| i.detectable(opts.threshold, m.better != Better::Higher));
        pair.lines.push(Line {
            step: t.step.to_string(),
            metric: t.mi,
            role: t.role,
            base,
            new,
            ratio,
            interval,
            n_base: t.a.values(t.mi).len(),
            n_new: t.b.values(t.mi).len(),
            control,
            verdict,
            detectable,
        });
    }
    for l in pair.lines.iter_mut().filter(|l| !l.control) {
        let Some(&(_, established)) = moved_steps.iter().find(|(s, _)| *s == l.step) else { continue };
        if matches!(
            l.verdict,
            Verdict::Regression | Verdict::Improvement | Verdict::Changed | Verdict::Same | Verdict::Inconclusive(_)
        ) {
            l.verdict = Verdict::Withheld { established };
        }
    }
    for (key, _) in step_sides_b {
        if !step_sides_a.iter().any(|(k, _)| k == key) {
            pair.notes.push(format!("step {key}: only in {}", pair.new));
        }
    }
}

fn summaries(g: &Group) -> Vec<Summary> {
    g.runs
        .iter()
        .map(|(dir, r)| Summary::build(&[NamedRun { label: g.label.clone(), dir: dir.clone(), run: r }]))
        .collect()
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

/// The configs compared, as (group, config) pairs: each later group's
/// against the first's by name, in the first's order (a lone config on
/// each side whatever its name); one group: its first config against each
/// other. `compare` and the profiles' "where the CPU went" both pair so.
pub fn matched_configs(groups: &[Group]) -> Vec<(usize, String, usize, String)> {
    let mut out = Vec::new();
    let base = config_names(&groups[0]);
    if groups.len() == 1 {
        for n in base.iter().skip(1) {
            out.push((0, base[0].clone(), 0, n.clone()));
        }
        return out;
    }
    for (gi, g) in groups.iter().enumerate().skip(1) {
        let names = config_names(g);
        let before = out.len();
        for n in base.iter().filter(|n| names.contains(n)) {
            out.push((0, n.clone(), gi, n.clone()));
        }
        if out.len() == before && names.len() == 1 && base.len() == 1 {
            out.push((0, base[0].clone(), gi, names[0].clone()));
        }
    }
    out
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
    let base_names = config_names(&groups[0]);
    if groups.len() == 1 {
        anyhow::ensure!(
            base_names.len() > 1,
            "one run with one config: give two runs (or a run with several configs) to compare"
        );
    }
    for g in &groups[1..] {
        let names = config_names(g);
        if !(names.len() == 1 && base_names.len() == 1) {
            for n in names.iter().filter(|n| !base_names.contains(n)) {
                out.notes.push(format!("config {n} of {} has no counterpart in {}", g.label, groups[0].label));
            }
        }
    }
    let sums: Vec<Vec<Summary>> = groups.iter().map(summaries).collect();
    let same_run = groups.len() == 1;
    let label = |gi: usize, c: &str| if same_run { c.to_string() } else { format!("{}/{c}", groups[gi].label) };
    // (base label, base sides per step, new label, new sides per step, scaling fits)
    type Job = (String, Vec<(String, Side)>, String, Vec<(String, Side)>, Vec<ScalingPair>, bool);
    let mut jobs: Vec<Job> = Vec::new();
    for (ga, a, gb, b) in matched_configs(groups) {
        let scaling = scaling_pairs((&groups[ga], &a), (&groups[gb], &b));
        jobs.push((label(ga, &a), side_of(&sums[ga], &a), label(gb, &b), side_of(&sums[gb], &b), scaling, same_run));
    }
    for (a_label, a, b_label, b, scaling, same_run) in jobs {
        let mut pair = Pair::new(a_label, b_label, scaling);
        compare_sides(&a, &b, same_run, opts, &mut pair);
        out.pairs.push(pair);
    }
    for g in groups {
        if g.runs.len() > 1 {
            out.notes.push(format!(
                "{}: {} runs pooled as repeats (values are medians over repeats; intervals unpaired)",
                g.label,
                g.runs.len()
            ));
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
            let mut pair = Pair::new(base.to_string(), o.clone(), Vec::new());
            compare_sides(&a, &side_of(one, o), true, opts, &mut pair);
            pair
        })
        .collect()
}

/// The method, in words, with the threshold used.
pub fn method_text(opts: &Options) -> String {
    format!(
        "method: ratio = new / base of the medians over repeats; with 2+ repeats on each side a confidence interval on it \
(t interval on log ratios, paired by round within one run, Welch's between runs); the primary figures (ops/s and the engine's \
CPU per operation: the process's, or the server's) simultaneous over the pair (each at 1 - 5%/m, Bonferroni), the others at \
a 5% false-discovery rate (Benjamini-Hochberg), MB/s, % of limit and the maximum shown and not judged; \
REGRESSION/improvement only when the whole interval lies beyond +-{t:.0}%, \
same when it lies within, else inconclusive; a change needs 5 repeats; one run per side: ratios, no verdicts (use --repeat 5); \
'could detect' is the smallest change each interval could have called. \
Control: {c} (the threads that issued the operations; {f} in results from before it was measured) where rumbench's own \
work is the same on both sides (the same server engine, or the null engine alike); when its ratio moves beyond {t:.0}% \
the step's verdicts are withheld: noisy machine, or, when its whole interval lies beyond, the client's own cost changed.",
        t = opts.threshold * 100.0,
        c = METRICS[summary::metric_index(CONTROL_METRIC).expect("a metric")].title(),
        f = METRICS[summary::metric_index(FALLBACK_CONTROL_METRIC).expect("a metric")].title(),
    )
}

/// An interval as "[0.97, 1.04]" ("-" without one).
pub fn interval_text(i: Option<&Interval>) -> String {
    match i {
        Some(i) => format!("[{}, {}]", summary::fmt_ratio(i.lo), summary::fmt_ratio(i.hi)),
        None => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::result::fixtures::repeated_run;

    fn one_group(run: RunResult) -> Vec<Group> {
        vec![Group { label: "r".into(), runs: vec![(String::new(), run)] }]
    }

    fn line<'a>(c: &'a Comparison, pair: usize, key: &str) -> &'a Line {
        c.pairs[pair].lines.iter().find(|l| METRICS[l.metric].key == key).unwrap_or_else(|| panic!("no {key}"))
    }

    #[test]
    fn verdict_states_follow_the_interval() {
        let i =
            |lo: f64, hi: f64| verdict::paired(&[(1.0, lo), (1.0, hi)], 0.0).map(|x| Interval { lo, hi, n: 5, ..x });
        assert_eq!(judge(Better::Higher, i(1.10, 1.20).as_ref(), 0.05), Verdict::Improvement);
        assert_eq!(judge(Better::Higher, i(0.80, 0.90).as_ref(), 0.05), Verdict::Regression);
        assert_eq!(judge(Better::Lower, i(1.10, 1.20).as_ref(), 0.05), Verdict::Regression);
        assert_eq!(judge(Better::Lower, i(0.80, 0.90).as_ref(), 0.05), Verdict::Improvement);
        assert_eq!(judge(Better::Higher, i(0.97, 1.04).as_ref(), 0.05), Verdict::Same);
        assert!(matches!(judge(Better::Higher, i(1.02, 1.30).as_ref(), 0.05), Verdict::Inconclusive(_)));
        assert_eq!(judge(Better::Neither, i(1.5, 2.0).as_ref(), 0.05), Verdict::Changed);
        assert_eq!(judge(Better::Higher, None, 0.05), Verdict::OneRun);
        // Beyond the threshold with 4 repeats: not yet a change.
        let four = i(1.10, 1.20).map(|x| Interval { n: 4, ..x });
        assert_eq!(judge(Better::Higher, four.as_ref(), 0.05), Verdict::Inconclusive(Some(5)));
    }

    #[test]
    fn the_rate_found_under_latency_targets_is_compared_and_judged() {
        // b's searches found 20% more in every round.
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = [1.0f64, 1.01, 0.99, 1.02, 0.98]
            .iter()
            .map(|&k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1000.0 * k, 5.0)])
            .collect();
        let mut run = repeated_run(&rounds);
        for (i, c) in run.configs.iter_mut().enumerate() {
            let found =
                c.steps[0].ops_s.unwrap() * if c.name.starts_with('b') { 1.2 } else { 1.0 } * (1.0 + i as f64 * 1e-3);
            c.steps[0].slo = Some(crate::result::slo::SloSearch { rate_ops_s: Some(found), ..Default::default() });
        }
        let c = compare(&one_group(run), &Options::default()).unwrap();
        let l = line(&c, 0, "slo_ops_s");
        assert_eq!(role("slo_ops_s", "cpu_us_op"), Role::Primary);
        assert_eq!(l.verdict, Verdict::Improvement, "{l:?}");
    }

    #[test]
    fn mb_s_does_not_widen_ops_s_and_the_maximum_gets_no_verdict() {
        // b: 12% more ops/s in every round, a little noise; the same CPU per op.
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = [1.0f64, 1.02, 0.99, 1.01, 0.98]
            .iter()
            .map(|&k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1120.0 * k * (2.0 - k).sqrt(), 5.0)])
            .collect();
        // MB/s is ops/s times the bytes per operation (124 here): the same figure again.
        let with_mb_s = || {
            let mut run = repeated_run(&rounds);
            for c in &mut run.configs {
                c.steps[0].mb_s = c.steps[0].ops_s.map(|o| o * 124.0 / 1048576.0);
            }
            run
        };
        let judged = |metrics: &[&str]| {
            let opts = Options { metrics: Some(metrics.iter().map(|m| m.to_string()).collect()), ..Options::default() };
            compare(&one_group(with_mb_s()), &opts).unwrap()
        };
        // ops/s alone, and with MB/s (the same figure again), the maximum and p99 beside it.
        let alone = judged(&["ops_s"]);
        let beside = judged(&["ops_s", "mb_s", "max_us", "p99_us", "p999_us"]);
        assert_eq!(alone.pairs[0].family, 1);
        assert_eq!(beside.pairs[0].family, 1, "only ops/s is primary among these");
        assert_eq!(
            line(&alone, 0, "ops_s").interval,
            line(&beside, 0, "ops_s").interval,
            "MB/s, p99 and max do not widen ops/s's interval"
        );
        assert_eq!(line(&beside, 0, "ops_s").verdict, Verdict::Improvement);
        for key in ["mb_s", "max_us"] {
            let l = line(&beside, 0, key);
            assert_eq!((l.role, l.verdict), (Role::Reported, Verdict::NotJudged), "{key}");
            assert!(l.ratio.is_some(), "{key}: reported with its ratio");
        }
        assert_eq!(line(&beside, 0, "p99_us").role, Role::Secondary);
        assert_eq!(beside.pairs[0].secondary, 2, "p99 and p99.9");
        // Every metric: the primary family is ops/s and the process's CPU per op.
        let all = compare(&one_group(with_mb_s()), &Options::default()).unwrap();
        let primary: Vec<&str> =
            all.pairs[0].lines.iter().filter(|l| l.role == Role::Primary).map(|l| METRICS[l.metric].key).collect();
        assert_eq!(primary, ["ops_s", "cpu_us_op"]);
        assert_eq!(all.pairs[0].family, 2);
        // The smallest change each could have called, said per step.
        let d = all.pairs[0].detectable();
        assert_eq!(d.len(), 1);
        assert!(d[0].0 == "readrandom" && d[0].1.contains("in ops/s") && d[0].1.contains("in cpu/op us"), "{d:?}");
        let text = crate::compare_text::render(&all);
        assert!(text.contains("readrandom: could detect changes of "), "{text}");
        let dl = line(&all, 0, "ops_s").detectable.unwrap();
        assert!(dl > 0.05 && dl < 0.5, "{dl}");
    }

    #[test]
    fn a_short_noisy_step_and_a_drifting_machine_are_warned_about() {
        // ops/s varying 20% between rounds; the fixture's steps ran 10 s: no warning about their length.
        let noisy: Vec<Vec<(&str, &str, f64, f64)>> = [1.0, 1.25, 0.8, 1.2, 0.85]
            .iter()
            .map(|&k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1000.0 * k, 5.0)])
            .collect();
        let c = compare(&one_group(repeated_run(&noisy)), &Options::default()).unwrap();
        assert!(!c.pairs[0].run_notes.iter().any(|n| n.contains("too short")), "{:?}", c.pairs[0].run_notes);
        let mut run = repeated_run(&noisy);
        for cfg in &mut run.configs {
            cfg.steps[0].wall_s = Some(0.3);
        }
        let c = compare(&one_group(run), &Options::default()).unwrap();
        let note = c.pairs[0].run_notes.iter().find(|n| n.contains("too short for its own noise")).expect("a note");
        assert!(note.contains("took 0.3 s") && note.contains("--seconds 4"), "{note}");
        assert!(note.starts_with("a's step readrandom"), "names the config whose runs it is about: {note}");
        // A step of a few operations (a flush, a wait for compaction) has no steady state: no note.
        let mut few = repeated_run(&noisy);
        for cfg in &mut few.configs {
            cfg.steps[0].wall_s = Some(0.05);
        }
        let c = compare(&one_group(few), &Options::default()).unwrap();
        assert!(!c.pairs[0].run_notes.iter().any(|n| n.contains("too short")), "{:?}", c.pairs[0].run_notes);
        // A steady drift of 8% a round.
        let drifting: Vec<Vec<(&str, &str, f64, f64)>> = (0..5)
            .map(|r| 1.08f64.powi(r))
            .map(|k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1010.0 * k, 5.0)])
            .collect();
        let c = compare(&one_group(repeated_run(&drifting)), &Options::default()).unwrap();
        assert!(
            c.pairs[0].run_notes.iter().any(|n| n.contains("the machine drifted") && n.contains("went up")),
            "{:?}",
            c.pairs[0].run_notes
        );
    }

    #[test]
    fn secondary_figures_are_judged_at_a_false_discovery_rate() {
        // The same p99 in every round but b's is 30% higher: a discovery among the secondary figures.
        let mut run = repeated_run(
            &[1.0, 1.01, 0.99, 1.02, 0.98]
                .iter()
                .map(|&k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1000.0 * k, 5.0)])
                .collect::<Vec<_>>(),
        );
        for (i, cfg) in run.configs.iter_mut().enumerate() {
            let wobble = 1.0 + 0.01 * (i % 3) as f64;
            let l = &mut cfg.steps[0].ops_by_type[0].latency;
            l.p99_us = if cfg.name == "b" { 13.0 * wobble } else { 10.0 * wobble };
        }
        let c = compare(&one_group(run), &Options::default()).unwrap();
        let p = &c.pairs[0];
        assert!(p.secondary > 3 && p.discoveries >= 1, "{} {}", p.secondary, p.discoveries);
        assert_eq!(line(&c, 0, "p99_us").verdict, Verdict::Regression);
        assert!((p.secondary_level - (1.0 - 0.05 * p.discoveries as f64 / p.secondary as f64)).abs() < 1e-12);
        assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Same);
    }

    #[test]
    fn one_run_gives_ratios_and_no_verdict() {
        let run = repeated_run(&[vec![("a", "rocksdb", 1000.0, 5.0), ("b", "rocksdb", 2000.0, 5.0)]]);
        let mut run = run;
        run.rounds.clear();
        for c in &mut run.configs {
            c.repeat = None;
        }
        let c = compare(&one_group(run), &Options::default()).unwrap();
        let l = line(&c, 0, "ops_s");
        assert_eq!((l.ratio, l.verdict), (Some(2.0), Verdict::OneRun));
        assert!(c.pairs[0].lines.iter().all(|l| !l.verdict.is_change()));
        assert!(crate::compare_text::render(&c).contains("no verdicts: one run per side"));
    }

    #[test]
    fn repeats_in_rounds_are_paired_and_judged() {
        // b is 20% faster in every round; the rounds themselves drift by 30%.
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = [1.0, 1.3, 0.9, 1.1, 0.95]
            .iter()
            .map(|&k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1200.0 * k * (1.0 + 0.01 * k), 5.0)])
            .collect();
        let c = compare(
            &one_group(repeated_run(&rounds)),
            &Options { metrics: Some(vec!["ops_s".into()]), ..Options::default() },
        )
        .unwrap();
        let l = line(&c, 0, "ops_s");
        let i = l.interval.unwrap();
        assert!(i.paired && i.n == 5, "{i:?}");
        assert!(i.lo > 1.15 && i.hi < 1.30, "{i:?}");
        assert_eq!(l.verdict, Verdict::Improvement);
        assert_eq!((l.n_base, l.n_new), (5, 5));
        // The same figures from two runs: unpaired, the drift between rounds widens the interval.
        let (a, b): (Vec<_>, Vec<_>) = rounds.iter().map(|r| (vec![r[0]], vec![r[1]])).unzip();
        let mut ra = repeated_run(&a);
        let mut rb = repeated_run(&b);
        for c in ra.configs.iter_mut().chain(rb.configs.iter_mut()) {
            c.name = "x".into();
        }
        let c = compare(
            &[
                Group { label: "a".into(), runs: vec![(String::new(), ra)] },
                Group { label: "b".into(), runs: vec![(String::new(), rb)] },
            ],
            &Options::default(),
        )
        .unwrap();
        let l = line(&c, 0, "ops_s");
        assert!(!l.interval.unwrap().paired);
        assert!(matches!(l.verdict, Verdict::Inconclusive(_)), "{:?}", l.verdict);
    }

    #[test]
    fn identical_configs_get_no_change_verdict() {
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = [1.0, 1.1, 0.95, 1.02]
            .iter()
            .map(|&k| {
                vec![
                    ("a", "rocksdb", 1000.0 * k, 5.0 * k),
                    ("b", "rocksdb", 1000.0 * k * (1.0 + 0.02 * (k - 1.0)), 5.0 * k),
                ]
            })
            .collect();
        let c = compare(&one_group(repeated_run(&rounds)), &Options::default()).unwrap();
        assert!(c.pairs[0].lines.iter().all(|l| !l.verdict.is_change()), "{}", crate::compare_text::render(&c));
        assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Same);
    }

    #[test]
    fn a_moved_control_withholds_the_step_verdicts() {
        // Two null configs alike: client CPU per op is the control. It moved 30%.
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = (0..3)
            .map(|k| vec![("a", "null", 1000.0 + k as f64, 1.0), ("b", "null", 2000.0 + k as f64, 1.3)])
            .collect();
        let c = compare(&one_group(repeated_run(&rounds)), &Options::default()).unwrap();
        let control = line(&c, 0, "cpu_us_op");
        assert!(control.control);
        assert!(matches!(control.verdict, Verdict::ControlMoved { .. }));
        assert!(matches!(line(&c, 0, "ops_s").verdict, Verdict::Withheld { .. }));
        assert_eq!(c.count(Verdict::Regression) + c.count(Verdict::Improvement), 0);
        // A steady control leaves the verdicts alone.
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = (0..5)
            .map(|k| vec![("a", "null", 1000.0 + k as f64, 1.0), ("b", "null", 2000.0 + k as f64, 1.01)])
            .collect();
        let c = compare(&one_group(repeated_run(&rounds)), &Options::default()).unwrap();
        assert_eq!(line(&c, 0, "cpu_us_op").verdict, Verdict::Same);
        assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Improvement);
        // Different engines: no control (the CPU is the engine's too).
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = (0..5)
            .map(|k| vec![("a", "rocksdb", 1000.0 + k as f64, 1.0), ("b", "lmdb", 2000.0 + k as f64, 1.3)])
            .collect();
        let c = compare(&one_group(repeated_run(&rounds)), &Options::default()).unwrap();
        assert!(!line(&c, 0, "cpu_us_op").control);
        assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Improvement);
    }

    #[test]
    fn the_workload_threads_cpu_is_the_control_where_it_was_measured() {
        // The process's CPU per op moved 30% (say, the sampler's reads of a larger
        // server tree), the threads that issued the operations did not: no noisy machine.
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = (0..5)
            .map(|k| vec![("a", "null", 1000.0 + k as f64, 1.0), ("b", "null", 2000.0 + k as f64, 1.3)])
            .collect();
        let mut run = repeated_run(&rounds);
        for c in &mut run.configs {
            c.steps[0].metrics.client_threads_cpu_us_op = Some(0.8);
        }
        let c = compare(&one_group(run.clone()), &Options::default()).unwrap();
        let threads = line(&c, 0, "thr_cpu_us_op");
        assert!(threads.control);
        assert_eq!(threads.verdict, Verdict::Same);
        assert!(!line(&c, 0, "cpu_us_op").control);
        assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Improvement);
        // The threads' CPU moved: withheld.
        for c in run.configs.iter_mut().filter(|c| c.name == "b") {
            c.steps[0].metrics.client_threads_cpu_us_op = Some(1.0);
        }
        let c = compare(&one_group(run), &Options::default()).unwrap();
        // Every round 25% more: established, not noise.
        assert_eq!(line(&c, 0, "thr_cpu_us_op").verdict, Verdict::ControlMoved { established: true });
        assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Withheld { established: true });
        assert_eq!(line(&c, 0, "thr_cpu_us_op").verdict.text(), "MOVED: client cost changed");
    }

    #[test]
    fn the_summary_shows_medians_over_repeats() {
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> =
            [1000.0, 1300.0, 900.0].iter().map(|&v| vec![("a", "rocksdb", v, 5.0)]).collect();
        let run = repeated_run(&rounds);
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let row = &s.steps[0].rows[0];
        assert_eq!(s.steps[0].rows.len(), 1);
        assert_eq!(row.get("ops_s"), Some(1000.0));
        assert_eq!(row.spread(summary::metric_index("ops_s").unwrap()), Some((900.0, 1300.0)));
        assert_eq!(row.repeats.iter().map(|r| r.round).collect::<Vec<_>>(), vec![Some(1), Some(2), Some(3)]);
        assert_eq!(s.runs[0].configs.len(), 1);
        assert_eq!(s.runs[0].configs[0].repeats, 3);
    }

    /// A run whose first config swept readrandom over 1..32 threads with these sigma and kappa.
    fn swept(sigma: f64, kappa: f64, counts: &[f64]) -> RunResult {
        use crate::result::scaling::{Scaling, ScalingPoint};
        let mut run = crate::result::fixtures::realistic_run();
        let points = counts
            .iter()
            .map(|&n| ScalingPoint {
                threads: n as usize,
                ops_s: 1000.0 * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0)),
                efficiency: None,
                oversubscribed: false,
            })
            .collect();
        run.configs[0].scaling = vec![Scaling {
            step: "readrandom".into(),
            points,
            fit: None,
            no_fit: None,
            warnings: Vec::new(),
            machine: None,
        }];
        run
    }

    #[test]
    fn sweeps_show_sigma_and_kappa_side_by_side() {
        let all = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        let group = |label: &str, runs: Vec<RunResult>| Group {
            label: label.into(),
            runs: runs.into_iter().map(|r| (String::new(), r)).collect(),
        };
        // The new side's repeats have three points each: pooled, they make six.
        let c = compare(
            &[
                group("a", vec![swept(0.05, 0.001, &all)]),
                group("b", vec![swept(0.10, 0.0, &all[..3]), swept(0.10, 0.0, &all[3..])]),
            ],
            &Options::default(),
        )
        .unwrap();
        let sp = &c.pairs[0].scaling[0];
        let (a, b) = (sp.base.as_ref().unwrap(), sp.new.as_ref().unwrap());
        assert!((a.sigma - 0.05).abs() < 1e-3 && (a.kappa - 0.001).abs() < 1e-5, "{a:?}");
        assert!((b.sigma - 0.10).abs() < 1e-3 && b.kappa < 1e-6, "{b:?}");
        let text = crate::compare_text::render(&c);
        assert!(text.contains("Universal Scalability Law fitted on each side"), "{text}");
        let row = |side: &str| {
            text.lines()
                .find(|l| l.starts_with("readrandom") && l.split_whitespace().nth(1) == Some(side))
                .unwrap_or_else(|| panic!("{text}"))
        };
        assert!(row("base").contains("0.0500") && row("base").contains("0.001000"), "{text}");
        assert!(row("new").contains("0.1000") && row("new").contains("none"), "{text}");
        // One side without enough points: its row says why.
        let c = compare(
            &[group("a", vec![swept(0.05, 0.001, &all)]), group("b", vec![swept(0.05, 0.001, &all[..3])])],
            &Options::default(),
        )
        .unwrap();
        let text = crate::compare_text::render(&c);
        assert!(text.contains("readrandom new: no fit: 3 concurrency levels measured"), "{text}");
    }
}
