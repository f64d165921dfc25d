//! Concurrency sweeps as one table per config and swept step, the repeats
//! of a config (`--repeat`) merged: per thread count the median throughput
//! over the repeats, its range, and the efficiency X(N) / (N X(1)) with a
//! 95% interval paired by round (each round's X(N) against the same round's
//! X(1), as `compare` pairs rounds); the Universal Scalability Law fitted
//! to every repeat's points together. Without repeats: the run's own points
//! and fit. The formats (`scaling`) render it.

use super::stats::median;
use super::verdict::{self, Interval};
use crate::measure::usl::{self, UslFit};
use crate::result::scaling::{judge, Judged, Scaling};
use crate::result::RunResult;

/// The confidence level of a point's efficiency interval (one figure alone).
pub const LEVEL: f64 = 0.95;

/// One thread count of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    pub threads: usize,
    /// The median over the repeats that completed this point (the one
    /// run's figure without repeats).
    pub ops_s: f64,
    /// Each repeat's throughput, by round (None: that repeat's point did
    /// not complete); one entry without repeats.
    pub runs: Vec<Option<f64>>,
    /// X(N) / (N X(1)) of the medians (of the fit's lambda without a
    /// one-thread point).
    pub efficiency: Option<f64>,
    /// The efficiency's 95% interval from rounds that measured both this
    /// point and one thread (at least 2 of them).
    pub efficiency_interval: Option<Interval>,
    /// More runnable threads than cores (result::scaling::Machine).
    pub oversubscribed: bool,
}

impl SweepPoint {
    /// The slowest and fastest repeat (None with fewer than two).
    pub fn range(&self) -> Option<(f64, f64)> {
        let v: Vec<f64> = self.runs.iter().flatten().copied().collect();
        (v.len() >= 2).then(|| (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0.0, f64::max)))
    }
}

/// One swept step of one config.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub config: String,
    pub step: String,
    /// Runs of the config merged here (1 without `--repeat`).
    pub repeats: usize,
    pub points: Vec<SweepPoint>,
    /// Fitted to every repeat's completed points; Err: why there is none.
    pub fit: Result<UslFit, String>,
    /// The fit's caveats (points that did not complete, ...).
    pub notes: Vec<String>,
    /// What may make the curve mislead (result::scaling::judge), judged on
    /// the merged points: a superlinear point the repeats confirm is not one.
    pub warnings: Vec<String>,
}

impl Sweep {
    /// Every measured (N, ops/s), all repeats.
    pub fn measured(&self) -> Vec<(f64, f64)> {
        measured(&self.points)
    }
}

fn measured(points: &[SweepPoint]) -> Vec<(f64, f64)> {
    points.iter().flat_map(|p| p.runs.iter().flatten().map(move |x| (p.threads as f64, *x))).collect()
}

/// The sweeps of a run, in the order their configs first ran; the repeats
/// of a config merged.
pub fn sweeps(run: &RunResult) -> Vec<Sweep> {
    let mut out: Vec<Sweep> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for c in &run.configs {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    for name in names {
        let mut runs: Vec<_> = run.configs.iter().filter(|c| c.name == name).collect();
        runs.sort_by_key(|c| c.repeat.unwrap_or(0));
        let mut steps: Vec<&str> = Vec::new();
        for c in &runs {
            for sc in &c.scaling {
                if !steps.contains(&sc.step.as_str()) {
                    steps.push(&sc.step);
                }
            }
        }
        for step in steps {
            let per_run: Vec<Option<&Scaling>> =
                runs.iter().map(|c| c.scaling.iter().find(|sc| sc.step == step)).collect();
            out.push(merge(name, step, &per_run));
        }
    }
    out
}

/// One config's sweep of `step` over its repeats (None: that repeat has no
/// sweep of the step, e.g. it failed before).
fn merge(config: &str, step: &str, runs: &[Option<&Scaling>]) -> Sweep {
    let mut threads: Vec<usize> = runs.iter().flatten().flat_map(|sc| sc.points.iter().map(|p| p.threads)).collect();
    threads.sort_unstable();
    threads.dedup();
    let at =
        |sc: Option<&Scaling>, n: usize| sc.and_then(|sc| sc.points.iter().find(|p| p.threads == n)).map(|p| p.ops_s);
    let mut points: Vec<SweepPoint> = threads
        .iter()
        .map(|&n| {
            let runs_n: Vec<Option<f64>> = runs.iter().map(|sc| at(*sc, n)).collect();
            let done: Vec<f64> = runs_n.iter().flatten().copied().collect();
            let oversubscribed = runs
                .iter()
                .flatten()
                .flat_map(|sc| sc.points.iter().filter(|p| p.threads == n))
                .any(|p| p.oversubscribed);
            SweepPoint {
                threads: n,
                ops_s: median(&done).unwrap_or(0.0),
                runs: runs_n,
                efficiency: None,
                efficiency_interval: None,
                oversubscribed,
            }
        })
        .collect();
    let fit = usl::fit(&measured(&points));
    let medians: Vec<(f64, f64)> = points.iter().map(|p| (p.threads as f64, p.ops_s)).collect();
    for (p, e) in points.iter_mut().zip(usl::efficiency(&medians, fit.as_ref().ok())) {
        p.efficiency = e;
    }
    // Paired by round: this round's X(N) against N times its own X(1).
    if let Some(one) = points.iter().position(|p| p.threads == 1) {
        let x1: Vec<Option<f64>> = points[one].runs.clone();
        for p in points.iter_mut().filter(|p| p.threads > 1) {
            let pairs: Vec<(f64, f64)> = x1
                .iter()
                .zip(&p.runs)
                .filter_map(|(a, b)| Some((a.as_ref()? * p.threads as f64, *b.as_ref()?)))
                .collect();
            p.efficiency_interval = verdict::paired(&pairs, LEVEL);
        }
    }
    // Points a run did not complete (failed, stopped) are in no fit; each
    // run's sweep names them ("... (without readrandom@t8, which did not complete)").
    let mut notes: Vec<String> = Vec::new();
    for (i, sc) in runs.iter().enumerate() {
        let Some(without) =
            sc.and_then(|sc| sc.no_fit.as_deref()).and_then(|n| n.find("(without ").map(|at| &n[at + 1..n.len() - 1]))
        else {
            continue;
        };
        notes.push(if runs.len() > 1 { format!("round {}: {without}", i + 1) } else { without.to_string() });
    }
    let judged: Vec<Judged> = points
        .iter()
        .map(|p| Judged {
            threads: p.threads,
            efficiency: p.efficiency,
            interval: p.efficiency_interval.map(|i| (i.lo, i.hi)),
            oversubscribed: p.oversubscribed,
        })
        .collect();
    let machine = runs.iter().flatten().find_map(|sc| sc.machine.as_ref());
    let warnings = judge(&judged, fit.as_ref().ok(), machine);
    Sweep { config: config.to_string(), step: step.to_string(), repeats: runs.len(), points, fit, notes, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixtures;
    use crate::result::scaling::ScalingPoint;

    fn sweep_of(xs: &[(usize, f64)]) -> Scaling {
        Scaling {
            step: "readrandom".into(),
            points: xs
                .iter()
                .map(|&(n, x)| ScalingPoint { threads: n, ops_s: x, efficiency: None, oversubscribed: false })
                .collect(),
            fit: None,
            no_fit: None,
            warnings: Vec::new(),
            machine: None,
        }
    }

    /// Three rounds of a config: medians, ranges, the pooled fit and the
    /// efficiency intervals paired by round.
    #[test]
    fn repeats_merge_into_medians_with_paired_efficiency_intervals() {
        let mut run = fixtures::realistic_run();
        let base = run.configs[0].clone();
        run.configs.clear();
        let law = |n: f64, lambda: f64| lambda * n / (1.0 + 0.05 * (n - 1.0) + 0.001 * n * (n - 1.0));
        // Each round is the same law at a different speed (the machine's mood): the
        // efficiency is the same in every round, so its interval is narrow.
        for (round, lambda) in [(1, 1000.0), (2, 1100.0), (3, 950.0)] {
            let mut c = base.clone();
            c.repeat = Some(round);
            let xs: Vec<(usize, f64)> = [1usize, 2, 4, 8, 16, 32].iter().map(|&n| (n, law(n as f64, lambda))).collect();
            c.scaling = vec![sweep_of(&xs)];
            run.configs.push(c);
        }
        let s = sweeps(&run);
        assert_eq!(s.len(), 1, "one table for the three repeats");
        let sw = &s[0];
        assert_eq!(sw.repeats, 3);
        assert_eq!(sw.points.len(), 6);
        assert_eq!(sw.points[0].ops_s, 1000.0, "the median of 950, 1000, 1100");
        assert_eq!(sw.points[0].range(), Some((950.0, 1100.0)));
        let fit = sw.fit.as_ref().expect("a fit from 18 points");
        assert!((fit.sigma - 0.05).abs() < 0.01 && (fit.kappa - 0.001).abs() < 0.0005, "{fit:?}");
        let p8 = &sw.points[3];
        let want = law(8.0, 1.0) / 8.0;
        assert!((p8.efficiency.unwrap() - want).abs() < 1e-9);
        let i = p8.efficiency_interval.expect("an interval from 3 rounds");
        assert!((i.ratio - want).abs() < 1e-9 && (i.hi - i.lo) < 1e-9, "{i:?}");
        assert!(sw.points[0].efficiency_interval.is_none(), "one thread is the reference");
    }

    /// A superlinear point in one round only: its interval reaches below 1.
    #[test]
    fn an_unsteady_point_gets_a_wide_interval() {
        let mut run = fixtures::realistic_run();
        let base = run.configs[0].clone();
        run.configs.clear();
        for (round, x2) in [(1, 2600.0), (2, 1500.0), (3, 1700.0)] {
            let mut c = base.clone();
            c.repeat = Some(round);
            c.scaling = vec![sweep_of(&[(1, 1000.0), (2, x2), (4, 2500.0)])];
            run.configs.push(c);
        }
        let s = sweeps(&run);
        let p2 = &s[0].points[1];
        assert_eq!(p2.ops_s, 1700.0);
        let i = p2.efficiency_interval.unwrap();
        assert!(i.lo < 1.0 && i.hi > 1.0, "one superlinear round of three does not confirm it: {i:?}");
        assert!(s[0].fit.is_err(), "3 levels give no fit, however many repeats");
    }

    /// Without repeats the stored sweep comes through as it is.
    #[test]
    fn one_run_is_its_own_sweep() {
        let mut run = fixtures::realistic_run();
        run.configs[0].scaling = vec![sweep_of(&[(1, 1000.0), (2, 1900.0)])];
        let s = sweeps(&run);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].repeats, 1);
        assert_eq!(s[0].points[1].runs, vec![Some(1900.0)]);
        assert_eq!(s[0].points[1].range(), None);
        assert_eq!(s[0].points[1].efficiency, Some(0.95));
        assert!(s[0].points[1].efficiency_interval.is_none());
    }
}
