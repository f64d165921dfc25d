//! Intervals that stay honest when the rounds stop once they decide
//! (`--repeat auto`): repeated confidence intervals of the Pocock kind.
//!
//! A run that looks at its verdicts after every round from round `first`
//! to round `last`, and stops at the first look that decides them, would
//! be wrong more often than one fixed look's level says if each look used
//! that level: every look is another chance for an interval to miss. Here
//! every look uses one smaller nominal level instead, chosen so that the
//! chance that *any* look's interval misses the true ratio is the level
//! asked for. A verdict is wrong only when its interval misses the truth
//! (REGRESSION needs the whole interval beyond the threshold, `same` the
//! whole interval within it), so the error rate of whatever the run
//! decides, at whichever look it stops, stays at or below that level.
//!
//! The nominal level comes from the distribution of the smallest two-sided
//! p-value over the looks, M = min over n in first..=last of p(T_n), where
//! T_n is the t statistic of the first n log ratios. For normal log ratios
//! (the assumption the fixed intervals make too) the joint law of T_first,
//! ..., T_last does not depend on the mean or the spread, so M's law is
//! simulated once per design from standard normals (a fixed seed: the same
//! levels every time). The per-look level for an overall miss chance a is
//! the a-quantile of M; where too few simulations fall that low, the union
//! bound a / looks, which holds whatever the looks' dependence. A p-value
//! of one look becomes the design's by the same law: P(M <= p).

use std::sync::{Arc, Mutex};

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::datagen::rng::Rng;

/// Simulated sequences per design: the a-quantile of M for a = 0.0125 (5%
/// over two primary figures) rests on 500 of them.
const SIMULATIONS: usize = 40_000;
const SEED: u64 = 0x5E9_0E47_1A1D;
/// Fewer simulated minima than this below a quantile: the union bound instead.
const MIN_TAIL: usize = 25;

/// Looks after rounds `first..=last` (pairs of log ratios).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Design {
    pub first: usize,
    pub last: usize,
}

impl Design {
    pub fn of(adaptive: &crate::plan::repeats::Adaptive) -> Design {
        let first = (adaptive.first_look as usize).max(2);
        Design { first, last: (adaptive.max_rounds as usize).max(first) }
    }

    fn looks(&self) -> usize {
        self.last + 1 - self.first
    }

    /// The level each look's interval takes so that every look together
    /// misses the truth with chance at most 1 - `level`.
    pub fn per_look_level(&self, level: f64) -> f64 {
        let alpha = (1.0 - level).clamp(0.0, 1.0);
        if self.looks() <= 1 || alpha <= 0.0 {
            return level;
        }
        let union = alpha / self.looks() as f64;
        let m = self.minima();
        let k = (alpha * m.len() as f64).floor() as usize;
        let gamma = if k < MIN_TAIL { union } else { m[k.min(m.len() - 1)].max(union) };
        1.0 - gamma.min(alpha)
    }

    /// A two-sided p-value of one look as the design's: the chance that
    /// some look's p-value is this small (never below `p` itself).
    pub fn adjust_p(&self, p: f64) -> f64 {
        if self.looks() <= 1 || p.is_nan() || p <= 0.0 {
            return p;
        }
        let m = self.minima();
        let below = m.partition_point(|&x| x <= p);
        let simulated = below as f64 / m.len() as f64;
        let adjusted = if below < MIN_TAIL { p * self.looks() as f64 } else { simulated };
        adjusted.max(p).min(1.0)
    }

    /// M's simulated values, sorted: computed once per design in a process.
    fn minima(&self) -> Arc<Vec<f64>> {
        static CACHE: Mutex<Vec<(Design, Arc<Vec<f64>>)>> = Mutex::new(Vec::new());
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, m)) = cache.iter().find(|(d, _)| d == self) {
            return m.clone();
        }
        let m = Arc::new(simulate_minima(*self, SIMULATIONS, SEED));
        cache.push((*self, m.clone()));
        m
    }
}

/// A standard normal draw (Box-Muller, one of the pair).
fn normal(rng: &mut Rng) -> f64 {
    let u = 1.0 - rng.unit(); // (0, 1]: ln never sees 0
    let v = rng.unit();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// `sims` values of M = min over the design's looks of the two-sided
/// p-value of the t statistic of the first n standard normal draws, sorted.
fn simulate_minima(design: Design, sims: usize, seed: u64) -> Vec<f64> {
    let dists: Vec<Option<StudentsT>> =
        (design.first..=design.last).map(|n| StudentsT::new(0.0, 1.0, (n - 1) as f64).ok()).collect();
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(sims);
    for _ in 0..sims {
        let (mut mean, mut m2) = (0.0f64, 0.0f64);
        let mut min_p = 1.0f64;
        for n in 1..=design.last {
            // Welford's running mean and sum of squares.
            let x = normal(&mut rng);
            let delta = x - mean;
            mean += delta / n as f64;
            m2 += delta * (x - mean);
            if n < design.first {
                continue;
            }
            let sd = (m2 / (n - 1) as f64).sqrt();
            let t = if sd > 0.0 { mean.abs() / (sd / (n as f64).sqrt()) } else { f64::INFINITY };
            let p = match &dists[n - design.first] {
                Some(d) => 2.0 * (1.0 - d.cdf(t)),
                None => 1.0,
            };
            min_p = min_p.min(p);
        }
        out.push(min_p);
    }
    out.sort_by(f64::total_cmp);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{judge, Verdict};
    use crate::summary::Better;
    use crate::verdict;

    #[test]
    fn one_look_is_the_fixed_design_and_more_looks_narrow_each() {
        let one = Design { first: 5, last: 5 };
        assert_eq!(one.per_look_level(0.95), 0.95);
        assert_eq!(one.adjust_p(0.01), 0.01);
        let many = Design { first: 3, last: 20 };
        let level = many.per_look_level(0.95);
        // Narrower than 95%, wider than the union bound over 18 looks.
        assert!(level > 0.95 && level < 1.0 - 0.05 / 18.0, "{level}");
        assert!(many.per_look_level(0.99) > level);
        // Fewer looks: less to pay.
        assert!(Design { first: 3, last: 8 }.per_look_level(0.95) < level);
        // A p-value grows, never past 1, and stays ordered.
        let (a, b) = (many.adjust_p(0.001), many.adjust_p(0.01));
        assert!(a > 0.001 && b > 0.01 && a < b && many.adjust_p(0.5) <= 1.0, "{a} {b}");
        // The adjusted p and the per-look level agree: p below the level's
        // alpha exactly when the adjusted p is below the overall alpha.
        let gamma = 1.0 - level;
        assert!(many.adjust_p(gamma * 0.9) <= 0.05 + 0.003);
        assert!(many.adjust_p(gamma * 1.1) >= 0.05 - 0.003);
    }

    /// The whole stopping rule on simulated paired runs: per figure, log
    /// ratios drawn normal around its true log ratio with its spread; the
    /// figures judged together (Bonferroni over them, as a pair's primary
    /// figures); a look after every round from 3 to 20, stopping at the
    /// first look that decides every figure. Returns how often a verdict
    /// at the stop was wrong: it claims the truth lies where it does not.
    fn wrong_rate(figures: &[(f64, f64)], corrected: bool, seeds: u64) -> f64 {
        let (first, last, threshold) = (3usize, 20usize, 0.05f64);
        let design = Design { first, last };
        let level = verdict::simultaneous_level(figures.len());
        let level = if corrected { design.per_look_level(level) } else { level };
        let (down, up) = ((1.0 - threshold).ln(), (1.0f64 + threshold).ln());
        // What a verdict claims of the true log ratio (open intervals: at the
        // threshold itself every decision is wrong).
        let wrong = |v: Verdict, truth: f64| {
            let (lo, hi) = match v {
                Verdict::Regression => (f64::NEG_INFINITY, down),
                Verdict::Improvement => (up, f64::INFINITY),
                Verdict::Same => (down, up),
                _ => return false,
            };
            !(truth > lo && truth < hi)
        };
        let mut wrong_runs = 0u64;
        for seed in 0..seeds {
            let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9) ^ 0xA11CE);
            let mut d: Vec<Vec<(f64, f64)>> = vec![Vec::new(); figures.len()];
            for n in 1..=last {
                for (pairs, &(truth, sd)) in d.iter_mut().zip(figures) {
                    pairs.push((1.0, (truth + sd * normal(&mut rng)).exp()));
                }
                if n < first {
                    continue;
                }
                let verdicts: Vec<Verdict> = d
                    .iter()
                    .map(|pairs| judge(Better::Higher, verdict::paired(pairs, level).as_ref(), threshold))
                    .collect();
                let decided =
                    verdicts.iter().all(|v| matches!(v, Verdict::Regression | Verdict::Improvement | Verdict::Same));
                if decided || n == last {
                    if verdicts.iter().zip(figures).any(|(&v, &(truth, _))| wrong(v, truth)) {
                        wrong_runs += 1;
                    }
                    break;
                }
            }
        }
        wrong_runs as f64 / seeds as f64
    }

    #[test]
    fn the_stopping_rule_is_wrong_no_more_often_than_its_level_says() {
        let seeds = 3000;
        // Four standard errors of a 5% rate over these seeds: the simulation's margin.
        let margin = 4.0 * (0.05f64 * 0.95 / seeds as f64).sqrt();
        let at_threshold = 1.05f64.ln();
        // One figure exactly at the threshold (every decision on it is
        // wrong), the other decided early (+30%): each look that decides
        // the first ends the run, where errors are likeliest.
        for sd in [0.02, 0.05, 0.10] {
            let rate = wrong_rate(&[(at_threshold, sd), (0.3f64.ln_1p(), 0.02)], true, seeds);
            eprintln!("at the threshold, sd {sd}: wrong in {:.2}% of runs", rate * 100.0);
            assert!(rate <= 0.05 + margin, "sd {sd}: {rate}");
        }
        // A/A: a change called is wrong.
        let aa = wrong_rate(&[(0.0, 0.05), (0.0, 0.03)], true, seeds);
        assert!(aa <= 0.05 + margin, "A/A {aa}");
        // A real +10%: calling it the same (or better) is wrong.
        let ten = wrong_rate(&[(0.1f64.ln_1p(), 0.04), (0.1f64.ln_1p(), 0.04)], true, seeds);
        assert!(ten <= 0.05 + margin, "+10% {ten}");
        // The same rule with each look at the fixed level peeks without
        // paying for it, and is wrong far more often: what the correction is for.
        let naive = wrong_rate(&[(at_threshold, 0.05), (0.3f64.ln_1p(), 0.02)], false, seeds);
        eprintln!(
            "A/A {:.2}%, +10% {:.2}%, uncorrected at the threshold {:.2}%",
            aa * 100.0,
            ten * 100.0,
            naive * 100.0
        );
        assert!(naive > 0.05 + margin, "uncorrected {naive}");
    }

    #[test]
    fn simulation_is_deterministic() {
        let d = Design { first: 3, last: 6 };
        assert_eq!(simulate_minima(d, 500, 7), simulate_minima(d, 500, 7));
        assert_ne!(simulate_minima(d, 500, 7), simulate_minima(d, 500, 8));
    }
}
