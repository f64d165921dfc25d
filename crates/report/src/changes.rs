//! Change points: where a series of runs shifted for good
//! (`rumbench history changes`, docs/report.md).
//!
//! The search is E-Divisive's (Matteson & James 2014, as in MongoDB's
//! performance CI and DataStax's Hunter): for a segment, every split `tau`
//! is tested against every end `kappa` after it, so a shift that is undone
//! later (a regression, then its fix) is found as readily as one that lasts;
//! the best split is kept when a permutation test (seeded, so the same
//! history always gives the same answer) finds it significant, and both
//! sides are searched again. The statistic compares mean *ranks* instead of
//! E-Divisive's energy distance: a rank statistic is as good at finding a
//! shift of the median and one bad run (a noisy neighbour, a hiccup) moves
//! it by at most one rank, whatever its value.

use crate::datagen::rng::{stream_seed, Rng};

#[derive(Debug, Clone)]
pub struct Options {
    /// Runs each side of a change needs, at least: a shift must last this long.
    pub min_runs: usize,
    /// Largest permutation p-value that counts as a change.
    pub significance: f64,
    /// Smallest change of the median, as a fraction (0.05 = 5%), that is reported.
    pub min_change: f64,
    pub permutations: usize,
    pub seed: u64,
}

pub const DEFAULT_MIN_RUNS: usize = 3;
pub const DEFAULT_SIGNIFICANCE: f64 = 0.05;
pub const DEFAULT_MIN_CHANGE: f64 = 0.05;

impl Default for Options {
    fn default() -> Options {
        Options {
            min_runs: DEFAULT_MIN_RUNS,
            significance: DEFAULT_SIGNIFICANCE,
            min_change: DEFAULT_MIN_CHANGE,
            permutations: 999,
            seed: 24,
        }
    }
}

/// A change: the series differs from index `index` on.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub index: usize,
    pub p_value: f64,
}

/// The change points of `xs` (finite values, in run order), by index.
pub fn change_points(xs: &[f64], o: &Options) -> Vec<Change> {
    let mut out = Vec::new();
    search(xs, 0, o, &mut out);
    out.sort_by_key(|c| c.index);
    refine(xs, &mut out, o.min_runs.max(1));
    out
}

/// Place each change at the best split between its neighbours. The search
/// compares a segment's start with every end, which on a staircase can put a
/// split a run or two past the step (a more even split that misfiles one run
/// scores higher); between its neighbours a change is a plain two-sample split.
fn refine(xs: &[f64], changes: &mut [Change], m: usize) {
    for i in 0..changes.len() {
        let lo = if i == 0 { 0 } else { changes[i - 1].index };
        let hi = changes.get(i + 1).map_or(xs.len(), |c| c.index);
        let ranks = mid_ranks(&xs[lo..hi]);
        if let Some((_, tau)) = best_split_ending(&ranks, m, hi - lo) {
            changes[i].index = lo + tau;
        }
    }
}

fn search(xs: &[f64], offset: usize, o: &Options, out: &mut Vec<Change>) {
    let m = o.min_runs.max(1);
    if xs.len() < 2 * m {
        return;
    }
    let ranks = mid_ranks(xs);
    let Some((observed, tau)) = best_split(&ranks, m) else { return };
    // p = (1 + permutations at least as extreme) / (1 + permutations); stop
    // as soon as it cannot be significant any more.
    let allowed = (o.significance * (o.permutations + 1) as f64).floor() as usize;
    let mut rng = Rng::new(stream_seed(o.seed, &[offset as u64, xs.len() as u64]));
    let mut shuffled = ranks.clone();
    let mut as_extreme = 0;
    for _ in 0..o.permutations {
        shuffle(&mut shuffled, &mut rng);
        if best_split(&shuffled, m).is_some_and(|(s, _)| s >= observed - 1e-9) {
            as_extreme += 1;
            if as_extreme + 1 > allowed {
                return;
            }
        }
    }
    if as_extreme + 1 > allowed {
        return;
    }
    let p_value = (as_extreme + 1) as f64 / (o.permutations + 1) as f64;
    if relative_change(median(&xs[..tau]), median(&xs[tau..])) >= o.min_change {
        out.push(Change { index: offset + tau, p_value });
    }
    // A significant split too small to report still separates what is on either side.
    search(&xs[..tau], offset, o, out);
    search(&xs[tau..], offset + tau, o, out);
}

/// The split with the largest standardized difference of mean ranks between
/// `[0, tau)` and `[tau, kappa)` over every `kappa`, both at least `m` long:
/// (statistic, tau). None when every value is the same.
fn best_split(ranks: &[f64], m: usize) -> Option<(f64, usize)> {
    best_split_ending(ranks, m, m)
}

/// As `best_split`, over the ends `kappa` >= `min_end` only (the length:
/// just the whole segment, a plain two-sample split).
fn best_split_ending(ranks: &[f64], m: usize, min_end: usize) -> Option<(f64, usize)> {
    let n = ranks.len();
    if n < 2 * m {
        return None;
    }
    let mean = ranks.iter().sum::<f64>() / n as f64;
    if ranks.iter().all(|r| (r - mean).abs() < 1e-12) {
        return None;
    }
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0.0);
    for r in ranks {
        prefix.push(prefix.last().unwrap() + r);
    }
    // The ranks' spread is the same for every pair (and permutation), so it is left out.
    let mut best: Option<(f64, usize)> = None;
    for tau in m..=n - m {
        let a = tau as f64;
        let left = prefix[tau] / a;
        for kappa in (tau + m).max(min_end)..=n {
            let b = (kappa - tau) as f64;
            let z = (left - (prefix[kappa] - prefix[tau]) / b).abs() / (1.0 / a + 1.0 / b).sqrt();
            if best.is_none_or(|(s, _)| z > s) {
                best = Some((z, tau));
            }
        }
    }
    best
}

/// Ranks 1..=n, ties sharing the mean of their ranks.
fn mid_ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            ranks[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    ranks
}

fn shuffle(v: &mut [f64], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
}

/// The median, NaN for none (a segment's level in the change-point search).
pub fn median(xs: &[f64]) -> f64 {
    super::stats::median(xs).unwrap_or(f64::NAN)
}

/// |after / before - 1|; from 0 any change is infinite.
fn relative_change(before: f64, after: f64) -> f64 {
    if before == 0.0 {
        if after == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (after / before - 1.0).abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` as (value, runs), each run within +-`noise` (a fraction) of its level, seeded.
    fn series(levels: &[(f64, usize)], noise: f64, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        levels
            .iter()
            .flat_map(|&(v, n)| (0..n).map(|_| v * (1.0 + noise * (2.0 * rng.unit() - 1.0))).collect::<Vec<_>>())
            .collect()
    }

    fn indexes(xs: &[f64]) -> Vec<usize> {
        change_points(xs, &Options::default()).into_iter().map(|c| c.index).collect()
    }

    #[test]
    fn one_shift_is_found_where_it_happened() {
        for seed in 1..=5 {
            let xs = series(&[(100_000.0, 10), (70_000.0, 10)], 0.03, seed);
            let found = change_points(&xs, &Options::default());
            assert_eq!(found.iter().map(|c| c.index).collect::<Vec<_>>(), [10], "seed {seed}: {xs:?}");
            assert!(found[0].p_value <= 0.01, "{found:?}");
        }
        // Near the end too, once the new level has lasted a few runs.
        assert_eq!(indexes(&series(&[(50.0, 15), (60.0, 5)], 0.02, 9)), [15]);
    }

    #[test]
    fn a_flat_noisy_series_has_none() {
        for seed in 1..=10 {
            let xs = series(&[(100_000.0, 40)], 0.05, seed);
            assert_eq!(indexes(&xs), Vec::<usize>::new(), "seed {seed}: {xs:?}");
        }
        assert_eq!(indexes(&[7.0; 20]), Vec::<usize>::new(), "all equal");
    }

    #[test]
    fn one_bad_run_is_not_a_change() {
        let mut xs = series(&[(100.0, 20)], 0.02, 3);
        xs[9] = 5.0;
        xs[10] = 1e9;
        assert_eq!(indexes(&xs), Vec::<usize>::new());
    }

    #[test]
    fn two_shifts_both_found() {
        // A regression that is fixed later: E-Divisive's search over ends finds both.
        for seed in 1..=3 {
            assert_eq!(indexes(&series(&[(100.0, 10), (70.0, 10), (100.0, 10)], 0.03, seed)), [10, 20], "seed {seed}");
        }
        assert_eq!(indexes(&series(&[(100.0, 8), (80.0, 8), (60.0, 8)], 0.03, 4)), [8, 16]);
    }

    #[test]
    fn short_series_have_none() {
        // Fewer than min_runs runs on a side: too short to say the shift lasted.
        assert_eq!(indexes(&[100.0, 100.0, 100.0, 50.0, 50.0]), Vec::<usize>::new());
        assert_eq!(indexes(&[1.0]), Vec::<usize>::new());
        assert_eq!(indexes(&[]), Vec::<usize>::new());
        // Three and three cannot be told from chance at 5%: 2 of the 20 orders separate them as well.
        assert_eq!(indexes(&[100.0, 101.0, 99.0, 50.0, 51.0, 49.0]), Vec::<usize>::new());
    }

    #[test]
    fn a_significant_but_small_shift_is_not_reported() {
        let xs = series(&[(100.0, 15), (102.0, 15)], 0.002, 5);
        assert_eq!(indexes(&xs), Vec::<usize>::new());
        assert_eq!(
            change_points(&xs, &Options { min_change: 0.01, ..Options::default() })
                .into_iter()
                .map(|c| c.index)
                .collect::<Vec<_>>(),
            [15]
        );
    }

    #[test]
    fn ranks_share_ties() {
        assert_eq!(mid_ranks(&[3.0, 1.0, 3.0, 2.0]), [3.5, 1.0, 3.5, 2.0]);
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
    }
}
