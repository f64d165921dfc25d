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
//!
//! Here: the groups compared, their configs matched into pairs, each pair's
//! concurrency sweeps fitted, the method in words. A pair's lines are
//! judged in `compare_sides`; what a comparison says (lines, roles,
//! verdicts) is `compare_verdicts`'s, re-exported here with the rest.

use anyhow::Result;

use super::compare_sides::{compare_sides, side_of, Pairing, Side};
use super::summary::{self, NamedRun, Summary, METRICS};
use crate::measure::usl::{self, UslFit};
use crate::result::RunResult;

// The comparison's parts, under the paths the commands and formats use.
pub use super::compare_sides::{floor, CONTROL_METRIC, FALLBACK_CONTROL_METRIC, MIN_STEADY_STEP_S};
pub use super::compare_verdicts::{
    interval_text, judge, percent, role, Line, Options, Pair, Role, ScalingPair, Verdict, DEFAULT_THRESHOLD,
};

/// One side of a comparison: a run, or several repeats of the same run.
pub struct Group {
    pub label: String,
    /// (directory, result) per repeat.
    pub runs: Vec<(String, RunResult)>,
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
    let runs: Vec<&RunResult> = groups.iter().flat_map(|g| g.runs.iter().map(|(_, r)| r)).collect();
    let pairing = Pairing::of(&runs, same_run);
    out.notes.extend(pairing.notes());
    let builds: Vec<Vec<String>> = matched_configs(groups)
        .into_iter()
        .map(|(ga, a, gb, b)| match (config_info(&sums[ga], &a), config_info(&sums[gb], &b)) {
            (Some(x), Some(y)) => super::build_notes::build_differences(x, y),
            _ => Vec::new(),
        })
        .collect();
    for ((a_label, a, b_label, b, scaling, same_run), built) in jobs.into_iter().zip(builds) {
        let mut pair = Pair::new(a_label, b_label, scaling);
        compare_sides(&a, &b, &Pairing { same_run, ..pairing }, opts, &mut pair);
        pair.notes.extend(built);
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

/// A config's facts (engine, provenance) in a group's summaries.
fn config_info<'a>(sums: &'a [Summary], name: &str) -> Option<&'a summary::ConfigInfo> {
    sums.iter().flat_map(|s| s.runs.iter()).flat_map(|r| r.configs.iter()).find(|c| c.name == name)
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
            compare_sides(&a, &side_of(one, o), &Pairing::of_info(s.runs.first()), opts, &mut pair);
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

    /// Two null configs alike (so the control applies), six rounds: b's
    /// ops/s the same as a's, its client CPU per op `cpu_ratios` of a's.
    fn control_run(cpu_ratios: [f64; 6], duet: bool) -> RunResult {
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = cpu_ratios
            .iter()
            .enumerate()
            .map(|(r, &k)| {
                let wobble = 1.0 + 0.004 * (r as f64 - 2.5);
                vec![
                    ("a", "null", 1000.0 * wobble, 5.0),
                    ("b", "null", 1000.0 * wobble * (1.0 + 0.001 * r as f64), 5.0 * k),
                ]
            })
            .collect();
        let mut run = repeated_run(&rounds);
        if duet {
            run.duet = Some(crate::result::repeats::DuetRun {
                placement: Default::default(),
                cpus: vec![0, 1],
                halves: [vec![0], vec![1]],
            });
        }
        run
    }

    #[test]
    fn a_duet_withholds_only_an_established_control_move() {
        // The control's ratio moved past 5% (1.07) within its own noise: its interval crosses 1.05.
        let noisy = [1.02, 1.12, 1.01, 1.13, 1.03, 1.11];
        let opts = Options { metrics: Some(vec!["ops_s".into()]), ..Options::default() };
        let sequential = compare(&one_group(control_run(noisy, false)), &opts).unwrap();
        let control = sequential.pairs[0].lines.iter().find(|l| l.control).unwrap();
        assert_eq!(control.verdict, Verdict::ControlMoved { established: false });
        assert_eq!(line(&sequential, 0, "ops_s").verdict, Verdict::Withheld { established: false });
        // In a duet the same figures leave the verdict standing: pairing carried the noise.
        let duet = compare(&one_group(control_run(noisy, true)), &opts).unwrap();
        let control = duet.pairs[0].lines.iter().find(|l| l.control).unwrap();
        assert!(matches!(control.verdict, Verdict::Inconclusive(_)), "{:?}", control.verdict);
        assert_eq!(line(&duet, 0, "ops_s").verdict, Verdict::Same);
        assert!(duet.notes.iter().any(|n| n.starts_with("duets:")), "{:?}", duet.notes);
        // A control whose whole interval lies beyond: withheld in a duet too.
        let moved = [1.20, 1.21, 1.19, 1.20, 1.22, 1.18];
        for duet in [false, true] {
            let c = compare(&one_group(control_run(moved, duet)), &opts).unwrap();
            assert_eq!(line(&c, 0, "ops_s").verdict, Verdict::Withheld { established: true }, "duet {duet}");
        }
    }

    #[test]
    fn an_adaptive_run_widens_every_interval_for_its_looks() {
        let rounds: Vec<Vec<(&str, &str, f64, f64)>> = [1.0f64, 1.02, 0.99, 1.01, 0.98, 1.0]
            .iter()
            .map(|&k| vec![("a", "rocksdb", 1000.0 * k, 5.0), ("b", "rocksdb", 1100.0 * k * (2.0 - k).sqrt(), 5.5)])
            .collect();
        let fixed = compare(&one_group(repeated_run(&rounds)), &Options::default()).unwrap();
        let mut run = repeated_run(&rounds);
        let design = crate::plan::repeats::Adaptive { max_rounds: 20, first_look: 3, threshold: 0.05 };
        run.adaptive =
            Some(crate::result::repeats::AdaptiveRepeats { design, rounds: 6, decided: true, undecided: Vec::new() });
        let adaptive = compare(&one_group(run), &Options::default()).unwrap();
        let (f, a) = (line(&fixed, 0, "ops_s"), line(&adaptive, 0, "ops_s"));
        let (fi, ai) = (f.interval.unwrap(), a.interval.unwrap());
        assert!(ai.level > fi.level && ai.lo < fi.lo && ai.hi > fi.hi, "{fi:?} {ai:?}");
        assert_eq!(fi.ratio, ai.ratio);
        assert!(adaptive.notes.iter().any(|n| n.contains("--repeat auto")), "{:?}", adaptive.notes);
        assert!(adaptive.pairs[0].level > fixed.pairs[0].level);
    }
}
