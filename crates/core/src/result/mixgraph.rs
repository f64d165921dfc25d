//! What a mixgraph step drew and how it was paced: the figures that check
//! the step against its model and against db_bench's mixgraph (the op mix
//! is in the step's `ops_by_type`).

use serde::{Deserialize, Serialize};

/// A mixgraph step's draws.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MixgraphStats {
    /// The parameters, as `--mixgraph` takes them.
    pub params: String,
    /// Accesses (gets, puts and seeks) per key range: the model's
    /// keyrange_num ranges, or 10 equal ranges when it has none.
    pub key_range_accesses: Vec<u64>,
    pub keys_per_range: u64,
    /// The key-range model's share of accesses per range (None without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_range_shares: Option<Vec<f64>>,
    /// Value sizes of the puts, in bytes.
    pub value_sizes: SizeHistogram,
    /// Scan lengths of the seeks (entries db_bench's loop would visit).
    pub scan_lengths: SizeHistogram,
    /// Seeks that found no entry at or after their key.
    pub seeks_not_found: u64,
    /// With sine_mix_rate: the rate each second was paced at (ops/s over
    /// all clients), second 0 first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_ops_s: Vec<f64>,
}

/// A distribution of sizes: exact up to 16, then four buckets per power of two.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SizeHistogram {
    pub count: u64,
    pub mean: Option<f64>,
    pub max: u64,
    /// (the bucket's largest size, how many), ascending, non-empty buckets only.
    pub buckets: Vec<(u64, u64)>,
}

/// The largest size of the bucket `v` falls in.
pub fn bucket_upper(v: u64) -> u64 {
    if v <= 16 {
        return v;
    }
    let step = 1u64 << (63 - v.leading_zeros() - 2);
    v.div_ceil(step) * step
}

impl SizeHistogram {
    /// From dense counts: `counts[v]` draws of size v.
    pub fn from_counts(counts: &[u64]) -> SizeHistogram {
        let mut h = SizeHistogram::default();
        let mut sum = 0u128;
        for (v, &c) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            let v = v as u64;
            h.count += c;
            sum += v as u128 * c as u128;
            h.max = v;
            let upper = bucket_upper(v);
            match h.buckets.last_mut() {
                Some((u, n)) if *u == upper => *n += c,
                _ => h.buckets.push((upper, c)),
            }
        }
        h.mean = (h.count > 0).then(|| sum as f64 / h.count as f64);
        h
    }

    /// The smallest bucket bound at or under which `q` of the draws fall.
    pub fn quantile_upper(&self, q: f64) -> Option<u64> {
        let want = (q * self.count as f64).ceil() as u64;
        let mut seen = 0;
        self.buckets
            .iter()
            .find(|(_, n)| {
                seen += n;
                seen >= want.max(1)
            })
            .map(|(u, _)| *u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_to_16_then_four_per_power_of_two() {
        assert_eq!((0..=16).map(bucket_upper).collect::<Vec<_>>(), (0..=16).collect::<Vec<_>>());
        assert_eq!([17, 20, 21, 32, 33, 40, 1000, 1024].map(bucket_upper), [20, 20, 24, 32, 40, 40, 1024, 1024]);
    }

    #[test]
    fn histogram_of_counts() {
        let mut counts = vec![0u64; 50];
        counts[10] = 3;
        counts[17] = 1;
        counts[19] = 1;
        counts[33] = 5;
        let h = SizeHistogram::from_counts(&counts);
        assert_eq!(h.count, 10);
        assert_eq!(h.max, 33);
        assert_eq!(h.buckets, vec![(10, 3), (20, 2), (40, 5)]);
        assert!((h.mean.unwrap() - (30.0 + 36.0 + 165.0) / 10.0).abs() < 1e-9);
        assert_eq!(h.quantile_upper(0.5), Some(20));
        assert_eq!(h.quantile_upper(0.6), Some(40));
        assert_eq!(h.quantile_upper(0.3), Some(10));
        assert_eq!(SizeHistogram::from_counts(&[]).mean, None);
    }
}
