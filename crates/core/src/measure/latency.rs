//! HDR histograms of response time and their summary.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest trackable latency: one hour, in nanoseconds.
pub const MAX_NS: u64 = 3_600 * 1_000_000_000;

/// Response times are recorded in nanoseconds, 1 ns to 1 h, 3 significant
/// digits (sub-microsecond resolution matters for in-memory engines).
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds")
}

/// new_histogram()'s counts, recorded into without a call: the crate's
/// `record` (its bounds checks, min/max and total updates) was 7% of a
/// null-engine YCSB operation. Same bucket index as the crate for
/// [1 ns, 1 h] at 3 significant digits (a test checks it against the crate),
/// so a count moved into a Histogram with `fold_into` lands in the bucket it
/// would have been recorded in.
pub struct LatencyCounts {
    counts: Box<[u64]>,
    recorded: u64,
}

/// 3 significant digits: 2048 sub-buckets, half of them per bucket above the first.
const SUB_BUCKET_HALF_MAGNITUDE: u32 = 10;
const SUB_BUCKET_MASK: u64 = (1 << (SUB_BUCKET_HALF_MAGNITUDE + 1)) - 1;
/// 64 - log2(2048): the leading zeros of a value in the first bucket.
const LEADING_ZERO_BASE: u32 = 64 - (SUB_BUCKET_HALF_MAGNITUDE + 1);

impl LatencyCounts {
    /// Counts for values to be folded into `hist`, a new_histogram().
    pub fn like(hist: &Histogram<u64>) -> LatencyCounts {
        LatencyCounts { counts: vec![0; hist.distinct_values()].into_boxed_slice(), recorded: 0 }
    }

    #[inline]
    fn index(value: u64) -> usize {
        let bucket = LEADING_ZERO_BASE - (value | SUB_BUCKET_MASK).leading_zeros();
        let sub_bucket = (value >> bucket) as usize;
        ((bucket as usize + 1) << SUB_BUCKET_HALF_MAGNITUDE) + sub_bucket - (1 << SUB_BUCKET_HALF_MAGNITUDE)
    }

    /// The lowest value of the bucket at `index`.
    fn value_at(index: usize) -> u64 {
        let half = 1usize << SUB_BUCKET_HALF_MAGNITUDE;
        match (index >> SUB_BUCKET_HALF_MAGNITUDE).checked_sub(1) {
            None => index as u64,
            Some(bucket) => ((index & (half - 1)) as u64 + half as u64) << bucket,
        }
    }

    /// One latency, clamped to [1 ns, 1 h].
    #[inline]
    pub fn record(&mut self, latency_ns: u64) {
        let i = Self::index(latency_ns.clamp(1, MAX_NS));
        self.counts[i] += 1;
        self.recorded += 1;
    }

    pub fn is_empty(&self) -> bool {
        self.recorded == 0
    }

    /// Move the counts into `hist` (a new_histogram()), calling `bucket`
    /// with each non-empty bucket's highest equivalent value and count.
    /// Once a second: a pass over every bucket, as Histogram::add makes.
    pub fn fold_into(&mut self, hist: &mut Histogram<u64>, mut bucket: impl FnMut(u64, u64)) {
        for (i, c) in self.counts.iter_mut().enumerate() {
            if *c > 0 {
                let value = Self::value_at(i);
                hist.saturating_record_n(value, *c);
                bucket(hist.highest_equivalent(value), *c);
                *c = 0;
            }
        }
        self.recorded = 0;
    }
}

/// Response-time percentiles of one operation type, in microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_us: f64,
    pub min_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub p9999_us: f64,
    pub max_us: f64,
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

impl LatencySummary {
    pub fn from_histogram(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            count: h.len(),
            mean_us: h.mean() / 1000.0,
            min_us: us(h.min()),
            p50_us: us(h.value_at_quantile(0.50)),
            p90_us: us(h.value_at_quantile(0.90)),
            p99_us: us(h.value_at_quantile(0.99)),
            p999_us: us(h.value_at_quantile(0.999)),
            p9999_us: us(h.value_at_quantile(0.9999)),
            max_us: us(h.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_counts_use_the_crate_s_buckets() {
        let h = new_histogram();
        let mut values: Vec<u64> = (1..5000).collect();
        let mut v = 1u64;
        while v < MAX_NS {
            values.extend([v - 1, v, v + 1, v * 3 / 2]);
            v *= 2;
        }
        values.extend([MAX_NS - 1, MAX_NS]);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x % MAX_NS);
        }
        for v in values.into_iter().filter(|&v| (1..=MAX_NS).contains(&v)) {
            let i = LatencyCounts::index(v);
            assert!(i < h.distinct_values(), "{v}");
            assert_eq!(LatencyCounts::value_at(i), h.lowest_equivalent(v), "{v}");
        }
    }

    #[test]
    fn folded_counts_summarise_as_recorded_ones() {
        let (mut direct, mut folded) = (new_histogram(), new_histogram());
        let mut counts = LatencyCounts::like(&folded);
        let mut buckets = 0;
        for round in 0..2 {
            for v in (1..200_000u64).step_by(7 + round) {
                direct.saturating_record(v * 37 % 5_000_000 + 1);
                counts.record(v * 37 % 5_000_000 + 1);
            }
            counts.fold_into(&mut folded, |_, _| buckets += 1);
            assert!(counts.is_empty());
        }
        assert!(buckets > 1000);
        assert_eq!(LatencySummary::from_histogram(&folded), LatencySummary::from_histogram(&direct));
        assert_eq!(folded.max(), direct.max());
        assert_eq!(folded.min(), direct.min());
    }

    #[test]
    fn summary_reports_percentiles_in_microseconds() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap(); // 1..1000 us
        }
        let s = LatencySummary::from_histogram(&h);
        assert_eq!(s.count, 1000);
        assert!((s.p50_us - 500.0).abs() <= 1.0, "{s:?}");
        assert!((s.p99_us - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.max_us - 1000.0).abs() <= 1.0, "{s:?}");
        assert!((s.mean_us - 500.5).abs() <= 1.0, "{s:?}");
        assert_eq!(LatencySummary::from_histogram(&new_histogram()).count, 0);
    }

    #[test]
    fn one_hour_is_trackable() {
        let mut h = new_histogram();
        h.record(MAX_NS).unwrap();
        assert!(h.record(MAX_NS * 2).is_err());
    }
}
