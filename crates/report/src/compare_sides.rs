//! Two sides of a pair compared step by step: each side's figures over its
//! repeats (`Side`), the interval between them, the metrics of the engine's
//! cost and of the control, the lines judged together (the primary family,
//! the secondary ones at a false-discovery rate, a moved control withholding
//! the step's verdicts), and what each side's repeats say of their own noise.

use super::compare_verdicts::{judge, percent, role, Line, Options, Pair, Role, Verdict};
use super::exercised;
use super::sequential::Design;
use super::summary::{self, Better, RepeatFigures, Summary, METRICS};
use super::verdict::{self, Interval, Position};
use crate::plan::repeats::Placement;
use crate::result::RunResult;

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

/// The figures of one config in one step, over the repeats of a group.
#[derive(Default)]
pub(crate) struct Side {
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

/// How the two sides of a comparison's pairs ran, which sets how they are judged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pairing {
    /// Both sides are configs of one run: paired by round where both ran in every round.
    pub same_run: bool,
    /// That run ran its pairs as duets (`--duet`), placed so: at the same
    /// time, so a noisy machine moved both sides alike; its control then
    /// withholds a verdict only when its own interval lies wholly beyond the threshold.
    pub duet: Option<Placement>,
    /// A run compared stopped its rounds once they decided (`--repeat
    /// auto`): every interval at the per-look level of its design.
    pub design: Option<Design>,
}

impl Pairing {
    /// How the runs of a comparison ran (`same_run`: one group, whose
    /// configs are paired within it).
    pub(crate) fn of(runs: &[&RunResult], same_run: bool) -> Pairing {
        Pairing {
            same_run,
            duet: match runs.first().and_then(|r| r.duet.as_ref()) {
                Some(d) if same_run && runs.iter().all(|r| r.duet.is_some()) => Some(d.placement),
                _ => None,
            },
            design: runs.iter().find_map(|r| r.adaptive.as_ref()).map(|a| Design::of(&a.design)),
        }
    }

    /// The configs of one run.
    pub(crate) fn of_info(info: Option<&summary::RunInfo>) -> Pairing {
        Pairing {
            same_run: true,
            duet: info.and_then(|i| i.duet),
            design: info.and_then(|i| i.adaptive.as_ref()).map(Design::of),
        }
    }

    /// What a reader of the comparison needs to know of how it was judged.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(d) = &self.design {
            notes.push(format!(
                "rounds stopped once decided (--repeat auto, looks after rounds {} to {}): every interval is widened for the looks (repeated confidence intervals), so the verdicts hold at the stated levels whichever round it stopped at",
                d.first, d.last
            ));
        }
        if let Some(placement) = self.duet {
            let where_ = match placement {
                Placement::Split => "each on its own half of the CPUs",
                Placement::Shared => "both on the same CPUs, which the scheduler divided between them",
            };
            notes.push(format!("duets: each pair's two configs ran at the same time, {where_}; rounds pair them, and the control withholds a verdict only when its own interval lies wholly beyond the threshold"));
        }
        notes
    }

    /// The level an interval takes for a fixed-design `level`.
    fn level(&self, level: f64) -> f64 {
        self.design.map_or(level, |d| d.per_look_level(level))
    }

    /// A one-sided p-value of "beyond the threshold" for this design.
    fn p_beyond(&self, p: f64) -> f64 {
        self.design.map_or(p, |d| d.adjust_p(2.0 * p) / 2.0)
    }
}

/// Per step key: the side of `config` in every run of a group.
pub(crate) fn side_of(group: &[Summary], config: &str) -> Vec<(String, Side)> {
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

/// Fill `pair` with its lines: each step of both sides and each metric
/// wanted, judged together (the module docs of `compare`), and notes on
/// the steps only one side ran.
pub(crate) fn compare_sides(
    step_sides_a: &[(String, Side)],
    step_sides_b: &[(String, Side)],
    pairing: &Pairing,
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
        let paired = pairing.same_run && rounds(a) && rounds(b);
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
    // A run that stopped once it decided widens every level for its looks.
    let family = todo.iter().filter(|t| judged(t, Role::Primary)).count();
    let level = pairing.level(verdict::simultaneous_level(family));
    let p_values: Vec<f64> = todo
        .iter()
        .filter(|t| judged(t, Role::Secondary))
        .filter_map(|t| interval(t.a, t.b, t.mi, t.paired, 0.95).map(|i| pairing.p_beyond(i.p_beyond(opts.threshold))))
        .collect();
    let discoveries = verdict::benjamini_hochberg(&p_values, verdict::ALPHA);
    let secondary_level =
        pairing.level(1.0 - verdict::ALPHA * discoveries.max(1) as f64 / p_values.len().max(1) as f64);
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
            Role::Control | Role::Reported => pairing.level(0.95),
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
        let established = interval
            .is_some_and(|i| matches!(verdict::position(&i, opts.threshold), Position::Above | Position::Below));
        let verdict = match ratio {
            // A duet's sides shared the machine's noise as it came: a control
            // whose ratio moved within its own noise is that noise, which
            // every paired interval of the step carries already.
            Some(_) if control && pairing.duet.is_some() && !established => verdict,
            Some(r) if control && (r - 1.0).abs() > opts.threshold => {
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
