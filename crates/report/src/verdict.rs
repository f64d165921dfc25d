//! Verdicts from repeated runs: the ratio new / base of one metric with a
//! confidence interval, and what may be said about it.
//!
//! Method (docs/report.md, "Verdict method"; docs/metrics.md, "Verdicts"):
//! - Values are compared as logarithms, so an interval on the ratio is
//!   exp(interval on the mean log ratio) and 2x and 0.5x are equally far.
//! - Paired by round when both sides ran in the same rounds of one run
//!   (`--repeat`): a Student t interval on the per-round log ratios
//!   (df = n - 1). Otherwise (different runs): Welch's t interval on the
//!   difference of the mean logs (Welch-Satterthwaite df).
//! - Simultaneous intervals: a comparison judges many metrics at once, so
//!   each interval has the confidence level 1 - 0.05 / m for the m metrics
//!   judged together (Bonferroni): the chance that any of them is called
//!   wrongly stays below 5%. Fewer metrics (`--metrics`) give narrower ones.
//! - REGRESSION / improvement only when the whole interval lies beyond the
//!   practical threshold T (default 5%): below 1 - T or above 1 + T in the
//!   metric's bad / good direction; "same" when it lies within [1 - T, 1 + T];
//!   "inconclusive" otherwise, with the repeats that would likely settle it
//!   (the same spread, the same point estimate).
//! - One run on either side (or one round pair): a ratio, no interval and
//!   no verdict. A change needs at least `MIN_REPEATS_FOR_CHANGE` repeats.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Family-wise error rate of one comparison's verdicts.
pub const ALPHA: f64 = 0.05;
/// Repeats (per side, or pairs) a REGRESSION or improvement needs. With 3,
/// quantized and heavy-tailed figures (p99.99, compaction bytes) gave A/A
/// comparisons zero-width intervals by coincidence and false verdicts
/// (bench/results/verdict_calibration-20261124-0750.md); with 5, none.
pub const MIN_REPEATS_FOR_CHANGE: usize = 5;
/// The most repeats an estimate of "repeats needed" looks at.
pub const MAX_REPEATS_ESTIMATE: usize = 100;

/// A ratio with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Point estimate: the geometric mean ratio (paired) or the ratio of
    /// the geometric means (unpaired).
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    /// Confidence level of this interval (0.95 for one metric alone).
    pub level: f64,
    /// Pairs (paired) or the smaller side's repeats (unpaired).
    pub n: usize,
    pub paired: bool,
    /// Standard deviation of the log ratios (paired) or the pooled
    /// per-side standard deviations (unpaired), for repeats-needed estimates.
    pub sd: f64,
    /// ln(ratio).
    pub mean_log: f64,
    /// The standard error of `mean_log` and its degrees of freedom: what the
    /// interval's half-width is t(level, df) times.
    pub se: f64,
    pub df: f64,
}

impl Interval {
    /// Half the interval's width, in logarithms.
    pub fn half_log(&self) -> f64 {
        t_quantile(self.level, self.df) * self.se
    }

    /// The one-sided p-value of "the change is beyond the threshold T" (in
    /// the direction of the estimate): the chance of an estimate this far
    /// beyond ln(1 + T) (or ln(1 - T)) if the change were exactly at the
    /// threshold. An interval at level 1 - a lies wholly beyond the
    /// threshold exactly when this is below a / 2.
    pub fn p_beyond(&self, threshold: f64) -> f64 {
        let bound = if self.mean_log >= 0.0 { (1.0 + threshold).ln() } else { -(1.0 - threshold).ln() };
        let excess = self.mean_log.abs() - bound;
        if self.se <= 0.0 || !self.se.is_finite() {
            return if excess > 0.0 { 0.0 } else { 1.0 };
        }
        let stat = excess / self.se;
        match StudentsT::new(0.0, 1.0, self.df.max(1.0)) {
            Ok(t) => 1.0 - t.cdf(stat),
            Err(_) => 1.0,
        }
    }

    /// The smallest change, in the direction `worse_up` (true: an increase)
    /// that an interval of this width would call: the change at which its
    /// near end just clears the threshold (called about half the time),
    /// as a fraction (0.08 = 8%). The minimum detectable effect of this
    /// comparison at its repeats and noise.
    pub fn detectable(&self, threshold: f64, worse_up: bool) -> f64 {
        let h = self.half_log();
        if worse_up {
            (1.0 + threshold) * h.exp() - 1.0
        } else {
            1.0 - (1.0 - threshold) * (-h).exp()
        }
    }
}

/// Benjamini-Hochberg: of `p` (one-sided p-values, see
/// [`Interval::p_beyond`]), how many are discoveries at false-discovery
/// rate `q` (two-sided, as the intervals: each p is held against q / 2).
/// The discoveries are the `R` smallest, and the interval of each at level
/// 1 - q R / m lies wholly beyond the threshold (the false-coverage-rate
/// intervals of Benjamini and Yekutieli).
pub fn benjamini_hochberg(p: &[f64], q: f64) -> usize {
    let m = p.len();
    let mut sorted: Vec<f64> = p.iter().copied().filter(|x| x.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    (1..=sorted.len()).rev().find(|&k| sorted[k - 1] <= k as f64 * q / 2.0 / m as f64).unwrap_or(0)
}

/// The two-sided t quantile for confidence `level` at `df` degrees of freedom.
pub fn t_quantile(level: f64, df: f64) -> f64 {
    let p = 1.0 - (1.0 - level) / 2.0;
    // NaN degrees of freedom too.
    if df.partial_cmp(&1.0).is_none_or(|o| o.is_lt()) {
        return f64::INFINITY;
    }
    // Beyond a million degrees of freedom t is the normal distribution
    // (statrs' inverse of t does not converge there).
    if df > 1e6 {
        return Normal::new(0.0, 1.0).map(|n| n.inverse_cdf(p)).unwrap_or(f64::INFINITY);
    }
    match StudentsT::new(0.0, 1.0, df) {
        Ok(t) => t.inverse_cdf(p),
        Err(_) => f64::INFINITY,
    }
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

/// The confidence level of each of `m` intervals judged together.
pub fn simultaneous_level(m: usize) -> f64 {
    1.0 - ALPHA / m.max(1) as f64
}

/// Interval on the ratio new/base from per-round pairs (base, new), all > 0.
pub fn paired(pairs: &[(f64, f64)], level: f64) -> Option<Interval> {
    if pairs.len() < 2 || pairs.iter().any(|&(b, n)| !(b > 0.0 && n > 0.0 && b.is_finite() && n.is_finite())) {
        return None;
    }
    let d: Vec<f64> = pairs.iter().map(|&(b, n)| n.ln() - b.ln()).collect();
    let (mean, sd) = mean_sd(&d);
    let n = d.len();
    let half = t_quantile(level, (n - 1) as f64) * sd / (n as f64).sqrt();
    let se = sd / (n as f64).sqrt();
    Some(Interval {
        ratio: mean.exp(),
        lo: (mean - half).exp(),
        hi: (mean + half).exp(),
        level,
        n,
        paired: true,
        sd,
        mean_log: mean,
        se,
        df: (n - 1) as f64,
    })
}

/// Welch's interval on the ratio of geometric means new/base, all values > 0.
pub fn unpaired(base: &[f64], new: &[f64], level: f64) -> Option<Interval> {
    let ok = |xs: &[f64]| xs.len() >= 2 && xs.iter().all(|&x| x > 0.0 && x.is_finite());
    if !ok(base) || !ok(new) {
        return None;
    }
    let lb: Vec<f64> = base.iter().map(|x| x.ln()).collect();
    let ln: Vec<f64> = new.iter().map(|x| x.ln()).collect();
    let ((ma, sa), (mb, sb)) = (mean_sd(&lb), mean_sd(&ln));
    let (na, nb) = (lb.len() as f64, ln.len() as f64);
    let (va, vb) = (sa * sa / na, sb * sb / nb);
    let se = (va + vb).sqrt();
    let df =
        if va + vb > 0.0 { (va + vb).powi(2) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0)) } else { na + nb - 2.0 };
    let mean = mb - ma;
    let half = t_quantile(level, df) * se;
    // The per-side spread, as if each side had one repeat: se = sd * sqrt(2/n) at equal sizes.
    let sd = se / (1.0 / na + 1.0 / nb).sqrt();
    Some(Interval {
        ratio: mean.exp(),
        lo: (mean - half).exp(),
        hi: (mean + half).exp(),
        level,
        n: lb.len().min(ln.len()),
        paired: false,
        sd,
        mean_log: mean,
        se,
        df,
    })
}

/// Where an interval lies against the threshold T.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Wholly above 1 + T.
    Above,
    /// Wholly below 1 - T.
    Below,
    /// Wholly within [1 - T, 1 + T].
    Within,
    /// Across a boundary: the data do not decide.
    Across,
}

pub fn position(i: &Interval, threshold: f64) -> Position {
    if i.lo > 1.0 + threshold {
        Position::Above
    } else if i.hi < 1.0 - threshold {
        Position::Below
    } else if i.lo >= 1.0 - threshold && i.hi <= 1.0 + threshold {
        Position::Within
    } else {
        Position::Across
    }
}

/// Repeats (per side, or pairs) that would likely settle an undecided
/// interval: the smallest n at which an interval of the same spread around
/// the same point estimate would lie wholly beyond or wholly within the
/// threshold. None when even `MAX_REPEATS_ESTIMATE` would not (the change
/// is about as large as the threshold).
pub fn repeats_needed(i: &Interval, threshold: f64) -> Option<usize> {
    let (up, down) = ((1.0 + threshold).ln(), (1.0 - threshold).ln());
    let m = i.mean_log;
    for n in (i.n + 1)..=MAX_REPEATS_ESTIMATE {
        let (df, se) = if i.paired {
            ((n - 1) as f64, i.sd / (n as f64).sqrt())
        } else {
            ((2 * n - 2) as f64, i.sd * (2.0 / n as f64).sqrt())
        };
        let half = t_quantile(i.level, df) * se;
        let (lo, hi) = (m - half, m + half);
        if lo > up || hi < down || (lo >= down && hi <= up) {
            return Some(n);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95%: 12.706 (df 1), 4.303 (2), 2.776 (4), 2.262 (9), 1.960 (inf).
        for (df, want) in [(1.0, 12.706), (2.0, 4.303), (4.0, 2.776), (9.0, 2.262), (1e9, 1.960)] {
            assert!(close(t_quantile(0.95, df), want, 0.001), "df {df}: {}", t_quantile(0.95, df));
        }
        // 99%, df 4: 4.604.
        assert!(close(t_quantile(0.99, 4.0), 4.604, 0.001));
    }

    #[test]
    fn paired_interval_against_hand_computed_values() {
        // Log ratios ln(1.1), ln(1.2), ln(1.15): mean 0.13927, sd 0.04350.
        let pairs = [(100.0, 110.0), (100.0, 120.0), (200.0, 230.0)];
        let i = paired(&pairs, 0.95).unwrap();
        let d = [1.1f64.ln(), 1.2f64.ln(), 1.15f64.ln()];
        let mean = d.iter().sum::<f64>() / 3.0;
        let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let half = 4.302653 * sd / 3f64.sqrt();
        assert!(close(i.ratio, mean.exp(), 1e-12));
        assert!(close(i.lo, (mean - half).exp(), 1e-6), "{i:?}");
        assert!(close(i.hi, (mean + half).exp(), 1e-6), "{i:?}");
        assert!(close(i.lo, 1.0315, 0.0005) && close(i.hi, 1.2805, 0.0005), "{i:?}");
        assert_eq!(position(&i, 0.05), Position::Across);
        // One pair: no interval.
        assert!(paired(&pairs[..1], 0.95).is_none());
        // A zero: no logarithm.
        assert!(paired(&[(0.0, 1.0), (1.0, 1.0)], 0.95).is_none());
    }

    #[test]
    fn welch_interval_against_hand_computed_values() {
        let a = [100.0, 104.0, 98.0, 101.0];
        let b = [120.0, 118.0, 125.0];
        let i = unpaired(&a, &b, 0.95).unwrap();
        let la: Vec<f64> = a.iter().map(|x: &f64| x.ln()).collect();
        let lb: Vec<f64> = b.iter().map(|x: &f64| x.ln()).collect();
        let (ma, sa) = mean_sd(&la);
        let (mb, sb) = mean_sd(&lb);
        let (va, vb) = (sa * sa / 4.0, sb * sb / 3.0);
        let df = (va + vb).powi(2) / (va * va / 3.0 + vb * vb / 2.0);
        let half = t_quantile(0.95, df) * (va + vb).sqrt();
        assert!(close(i.ratio, (mb - ma).exp(), 1e-12));
        assert!(close(i.lo, (mb - ma - half).exp(), 1e-9));
        assert!(df > 3.0 && df < 5.0, "df {df}");
        assert_eq!(position(&i, 0.05), Position::Above, "{i:?}");
    }

    #[test]
    fn positions_and_identical_sides() {
        let same = paired(&[(10.0, 10.0), (12.0, 12.0), (9.0, 9.0)], 0.95).unwrap();
        assert_eq!((same.lo, same.hi), (1.0, 1.0));
        assert_eq!(position(&same, 0.05), Position::Within);
        // A constant 10% more on every round: a zero-width interval at 1.1.
        let shifted = paired(&[(10.0, 11.0), (20.0, 22.0)], 0.95).unwrap();
        assert!(close(shifted.lo, 1.1, 1e-12) && close(shifted.hi, 1.1, 1e-12));
        assert_eq!(position(&shifted, 0.05), Position::Above);
        assert_eq!(position(&Interval { lo: 0.5, hi: 0.9, ..shifted }, 0.05), Position::Below);
        assert_eq!(position(&Interval { lo: 0.97, hi: 1.06, ..shifted }, 0.05), Position::Across);
    }

    #[test]
    fn simultaneous_intervals_are_wider() {
        let pairs = [(100.0, 110.0), (100.0, 120.0), (100.0, 112.0), (100.0, 118.0)];
        let one = paired(&pairs, simultaneous_level(1)).unwrap();
        let twenty = paired(&pairs, simultaneous_level(20)).unwrap();
        assert!(twenty.lo < one.lo && twenty.hi > one.hi);
        assert!(close(simultaneous_level(20), 0.9975, 1e-12));
    }

    #[test]
    fn repeats_needed_shrinks_the_interval_until_it_decides() {
        // About +15% with a spread that leaves 3 pairs undecided.
        let i = paired(&[(100.0, 110.0), (100.0, 121.0), (100.0, 114.0)], 0.95).unwrap();
        assert_eq!(position(&i, 0.05), Position::Across, "{i:?}");
        let n = repeats_needed(&i, 0.05).unwrap();
        assert!(n > 3 && n < 10, "{n}");
        // A change right at the threshold is never settled.
        let at = paired(&[(100.0, 100.0), (100.0, 110.0), (100.0, 105.0)], 0.95).unwrap();
        assert!(at.ratio > 1.04 && at.ratio < 1.06, "{at:?}");
        assert_eq!(repeats_needed(&at, 0.05), None);
    }

    #[test]
    fn p_beyond_agrees_with_the_interval_and_bh_with_its_definition() {
        // +15% with spread: the 95% interval's lower end against 1.05.
        let i =
            paired(&[(100.0, 112.0), (100.0, 118.0), (100.0, 114.0), (100.0, 116.0), (100.0, 115.0)], 0.95).unwrap();
        let p = i.p_beyond(0.05);
        assert_eq!(i.lo > 1.05, p < 0.025, "{i:?} p {p}");
        for level in [0.9, 0.99, 0.999] {
            let j = paired(&[(100.0, 112.0), (100.0, 118.0), (100.0, 114.0), (100.0, 116.0), (100.0, 115.0)], level)
                .unwrap();
            assert_eq!(j.lo > 1.05, p < (1.0 - level) / 2.0, "level {level}: {j:?} p {p}");
        }
        // BH at q 5% over 4: the k-th smallest against k x 0.025 / 4.
        assert_eq!(benjamini_hochberg(&[0.001, 0.0125, 0.5, 0.9], 0.05), 2);
        assert_eq!(benjamini_hochberg(&[0.0063, 0.5, 0.9, 0.9], 0.05), 0, "0.0063 > 0.025 / 4");
        assert_eq!(benjamini_hochberg(&[], 0.05), 0);
        // The detectable change: the near end of an interval this wide just at the threshold.
        let d = i.detectable(0.05, true);
        let h = i.half_log();
        assert!(close((1.0 + d).ln() - h, 1.05f64.ln(), 1e-12), "{d}");
        assert!(i.detectable(0.05, false) > 0.05);
    }
}
