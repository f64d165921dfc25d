//! Per-thread recording of one operation type: a histogram for the whole step
//! and a 1-second interval series, kept without any shared lock.
//!
//! On the hot path a thread only records into its current-interval histogram.
//! When an interval boundary passes, that histogram is folded into the
//! step histogram, its non-empty buckets are saved as the interval's record,
//! and it is reset: O(histogram) work once a second, not per operation.

use std::sync::atomic::{AtomicU64, Ordering};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::latency::{new_histogram, LatencyCounts, LatencySummary};

pub const INTERVAL_NS: u64 = 1_000_000_000;

/// A per-thread operation counter read by the progress display; padded to a
/// cache line so threads never share one.
#[repr(align(64))]
#[derive(Default)]
pub struct ProgressCounter(pub AtomicU64);

/// One thread's record of one interval: its ops and the histogram's
/// non-empty buckets (value, count).
#[derive(Debug, Clone)]
struct IntervalSlice {
    index: u32,
    ops: u64,
    buckets: Vec<(u64, u64)>,
}

pub struct Recorder<'a> {
    interval: LatencyCounts,
    total: Histogram<u64>,
    interval_index: u32,
    next_boundary_ns: u64,
    interval_ops: u64,
    ops: u64,
    slices: Vec<IntervalSlice>,
    progress: Option<&'a ProgressCounter>,
}

impl<'a> Recorder<'a> {
    pub fn new(progress: Option<&'a ProgressCounter>) -> Self {
        let total = new_histogram();
        Recorder {
            interval: LatencyCounts::like(&total),
            total,
            interval_index: 0,
            next_boundary_ns: INTERVAL_NS,
            interval_ops: 0,
            ops: 0,
            slices: Vec::new(),
            progress,
        }
    }

    /// Record one call that completed `now_ns` after the step started, took
    /// `latency_ns`, and did `ops` operations (more than one for batches).
    #[inline]
    pub fn record_n(&mut self, now_ns: u64, latency_ns: u64, ops: u64) {
        if now_ns >= self.next_boundary_ns {
            self.roll(now_ns);
        }
        self.interval.record(latency_ns);
        self.interval_ops += ops;
        self.ops += ops;
        // Every call: a crashed or hung step's count (read from the
        // checkpoint) is then exact, not up to a thousand calls behind. A
        // relaxed store to the thread's own cache line, read ten times a
        // second, costs about what the branch does.
        if let Some(p) = self.progress {
            p.0.store(self.ops, Ordering::Relaxed);
        }
    }

    #[inline]
    pub fn record(&mut self, now_ns: u64, latency_ns: u64) {
        self.record_n(now_ns, latency_ns, 1)
    }

    pub fn ops(&self) -> u64 {
        self.ops
    }

    #[cold]
    fn roll(&mut self, now_ns: u64) {
        self.close_interval();
        self.interval_index = (now_ns / INTERVAL_NS) as u32;
        self.next_boundary_ns = (self.interval_index as u64 + 1) * INTERVAL_NS;
    }

    fn close_interval(&mut self) {
        if self.interval_ops > 0 || !self.interval.is_empty() {
            let mut buckets = Vec::new();
            self.interval.fold_into(&mut self.total, |value, count| buckets.push((value, count)));
            self.slices.push(IntervalSlice { index: self.interval_index, ops: self.interval_ops, buckets });
            self.interval_ops = 0;
        }
    }

    /// Close the last (partial) interval; called when the thread is done.
    pub fn finish(mut self) -> FinishedRecorder {
        self.close_interval();
        if let Some(p) = self.progress {
            p.0.store(self.ops, Ordering::Relaxed);
        }
        FinishedRecorder { total: self.total, ops: self.ops, slices: self.slices }
    }
}

/// A thread's finished recording, ready to merge.
pub struct FinishedRecorder {
    total: Histogram<u64>,
    ops: u64,
    slices: Vec<IntervalSlice>,
}

/// One second of a step, all threads merged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalStats {
    /// Interval number: second `index` of the step covers [index, index+1) s.
    pub index: u32,
    pub ops: u64,
    pub p99_us: f64,
    pub max_us: f64,
    /// The second's full histogram (`hdr_codec`, nanoseconds): what merges
    /// of shards add up. None for an empty second and in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

impl IntervalStats {
    /// A second's figures from its histogram (index and ops to be set).
    pub fn of(h: &Histogram<u64>) -> IntervalStats {
        IntervalStats {
            index: 0,
            ops: 0,
            p99_us: h.value_at_quantile(0.99) as f64 / 1000.0,
            max_us: h.max() as f64 / 1000.0,
            histogram: Some(super::hdr_codec::encode(h)),
        }
    }
}

/// The spread of per-second rates over a step, as the insert benchmark
/// reports it: the rates of the full 1-second intervals sorted descending,
/// and the values at 50% and 99% of that list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatePercentiles {
    /// Full 1-second intervals the figures are over (a last, partial second is left out).
    pub intervals: u32,
    /// Median per-second rate.
    pub p50: f64,
    /// The rate that 99% of the seconds reached or beat (a low rate: stalls pull it down).
    pub p99: f64,
    pub min: f64,
    pub max: f64,
}

/// Rate percentiles of an interval series; None when the step had no full second.
pub fn rate_percentiles(intervals: &[IntervalStats], wall_s: f64) -> Option<RatePercentiles> {
    let mut rates = full_second_rates(intervals, wall_s);
    if rates.is_empty() {
        return None;
    }
    rates.sort_by(|a, b| b.total_cmp(a));
    let at = |p: f64| rates[((p * rates.len() as f64).ceil() as usize).clamp(1, rates.len()) - 1];
    Some(RatePercentiles {
        intervals: rates.len() as u32,
        p50: at(0.50),
        p99: at(0.99),
        min: *rates.last().unwrap(),
        max: rates[0],
    })
}

/// How far short of a whole second a step's last interval may end and still
/// count as whole: the step's wall time and its interval boundaries are
/// taken a few milliseconds apart.
const FULL_SECOND_SLACK_S: f64 = 0.01;

/// The whole seconds of a step that ran `wall_s` seconds, in order: interval
/// `i` counts when the step lasted until i + 1 s; its last, partial second
/// would understate the rate. Every reader of per-second rates (rate
/// percentiles, the warming check, the report's spread and charts) uses it.
pub fn full_seconds(intervals: &[IntervalStats], wall_s: f64) -> impl Iterator<Item = &IntervalStats> {
    intervals.iter().filter(move |iv| (iv.index as f64 + 1.0) <= wall_s + FULL_SECOND_SLACK_S)
}

/// The ops of each whole second of a step (`full_seconds`).
fn full_second_rates(intervals: &[IntervalStats], wall_s: f64) -> Vec<f64> {
    full_seconds(intervals, wall_s).map(|iv| iv.ops as f64).collect()
}

/// A rate that climbed through the whole step, as a cache warms: the mean
/// rates (ops/s) of the first and the last third of its full 1-second
/// intervals, when the middle third lies between them and the last is at
/// least [`WARMING_RISE`] times the first. A step's average then mixes cold
/// and warm seconds. None for a flat or falling rate, or under 9 seconds.
pub fn rising_rate(intervals: &[IntervalStats], wall_s: f64) -> Option<(f64, f64)> {
    let rates = full_second_rates(intervals, wall_s);
    if rates.len() < 9 {
        return None;
    }
    let third = rates.len() / 3;
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let (first, middle, last) =
        (mean(&rates[..third]), mean(&rates[third..rates.len() - third]), mean(&rates[rates.len() - third..]));
    (first < middle && middle < last && last >= WARMING_RISE * first).then_some((first, last))
}

/// How much faster a step's last third must run than its first to count as
/// still warming: more than a shared machine's second-to-second spread.
pub const WARMING_RISE: f64 = 1.25;

/// All threads' recordings of one operation type, merged.
pub struct MergedOps {
    pub histogram: Histogram<u64>,
    pub ops: u64,
    pub intervals: Vec<IntervalStats>,
}

impl MergedOps {
    pub fn latency(&self) -> LatencySummary {
        LatencySummary::from_histogram(&self.histogram)
    }
}

/// Merge per-thread recordings after the step. `intervals` is the number of
/// 1-second intervals the step spanned; seconds without operations appear
/// with zero ops (a stall is visible as a gap, not hidden).
pub fn merge(recorders: Vec<FinishedRecorder>, intervals: u32) -> MergedOps {
    let mut histogram = new_histogram();
    let mut ops = 0;
    let last_index = recorders.iter().flat_map(|r| r.slices.iter().map(|s| s.index + 1)).max().unwrap_or(0);
    let n = intervals.max(last_index) as usize;
    let mut per_interval: Vec<(u64, Option<Histogram<u64>>)> = (0..n).map(|_| (0, None)).collect();
    for r in &recorders {
        histogram.add(&r.total).expect("same histogram bounds");
        ops += r.ops;
        for s in &r.slices {
            let (iops, h) = &mut per_interval[s.index as usize];
            *iops += s.ops;
            let h = h.get_or_insert_with(new_histogram);
            for &(v, c) in &s.buckets {
                h.saturating_record_n(v, c);
            }
        }
    }
    let intervals = per_interval
        .into_iter()
        .enumerate()
        .map(|(i, (iops, h))| {
            let mut iv = h.as_ref().filter(|h| !h.is_empty()).map(IntervalStats::of).unwrap_or_default();
            iv.index = i as u32;
            iv.ops = iops;
            iv
        })
        .collect();
    MergedOps { histogram, ops, intervals }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn seconds(rates: &[u64]) -> Vec<IntervalStats> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &ops)| IntervalStats { index: i as u32, ops, p99_us: 1.0, max_us: 1.0, histogram: None })
            .collect()
    }

    #[test]
    fn a_rate_that_climbs_through_the_step_is_warming_a_flat_one_is_not() {
        // A block cache filling over 30 s (2026-11-29's cached RocksDB reads).
        let climbing: Vec<u64> = (0..30).map(|i| 130_000 + i * 6_000).collect();
        let (first, last) = rising_rate(&seconds(&climbing), 30.0).expect("warming");
        assert!((first - 157_000.0).abs() < 1.0 && (last - 277_000.0).abs() < 1.0, "{first} {last}");
        // Flat with a shared machine's noise: no.
        let flat: Vec<u64> = (0..30).map(|i| 170_000 + (i * 7_919 % 13) * 2_000).collect();
        assert_eq!(rising_rate(&seconds(&flat), 30.0), None);
        // One slow second at the start does not make a climb: the middle is not between.
        let mut dip = vec![200_000; 30];
        dip[0] = 10_000;
        dip[10..20].fill(260_000);
        assert_eq!(rising_rate(&seconds(&dip), 30.0), None);
        // A falling rate, a rise under the threshold, a short step: no.
        let falling: Vec<u64> = climbing.iter().rev().copied().collect();
        assert_eq!(rising_rate(&seconds(&falling), 30.0), None);
        let gentle: Vec<u64> = (0..30).map(|i| 200_000 + i * 1_000).collect();
        assert_eq!(rising_rate(&seconds(&gentle), 30.0), None);
        assert_eq!(rising_rate(&seconds(&climbing[..8]), 8.0), None);
        // A partial last second does not count.
        assert!(rising_rate(&seconds(&climbing[..9]), 8.5).is_none());
        assert!(rising_rate(&seconds(&climbing[..9]), 9.0).is_some());
    }

    #[test]
    fn per_thread_recordings_merge_into_step_and_interval_stats() {
        let counters = [ProgressCounter::default(), ProgressCounter::default()];
        let mut a = Recorder::new(Some(&counters[0]));
        let mut b = Recorder::new(Some(&counters[1]));
        // Thread a: 100 ops of 10us in second 0, one 500ms stall ending in second 2.
        for i in 0..100 {
            a.record(i * MS, 10_000);
        }
        a.record(2_100 * MS, 500 * MS);
        // Thread b: 50 ops of 20us in second 1, a batch of 10 ops in second 2.
        for i in 0..50 {
            b.record(1_000 * MS + i * MS, 20_000);
        }
        b.record_n(2_200 * MS, 30_000, 10);
        let merged = merge(vec![a.finish(), b.finish()], 3);
        assert_eq!(merged.ops, 161);
        assert_eq!(merged.histogram.len(), 152); // calls, not ops
        assert_eq!(merged.intervals.len(), 3);
        assert_eq!(merged.intervals[0].ops, 100);
        assert_eq!(merged.intervals[1].ops, 50);
        assert_eq!(merged.intervals[2].ops, 11);
        assert!((merged.intervals[0].max_us - 10.0).abs() < 0.1);
        assert!((merged.intervals[1].max_us - 20.0).abs() < 0.1);
        // The stall shows up as the max of the interval it ended in.
        assert!((merged.intervals[2].max_us - 500_000.0).abs() / 500_000.0 < 0.001);
        let lat = merged.latency();
        assert!((lat.p50_us - 10.0).abs() < 0.1, "{lat:?}");
        assert_eq!(counters[0].0.load(Ordering::Relaxed), 101);
        assert_eq!(counters[1].0.load(Ordering::Relaxed), 60);
    }

    #[test]
    fn empty_seconds_are_kept_as_zero_intervals() {
        let mut a = Recorder::new(None);
        a.record(100 * MS, 1_000);
        a.record(3_500 * MS, 1_000);
        let merged = merge(vec![a.finish()], 4);
        let ops: Vec<u64> = merged.intervals.iter().map(|i| i.ops).collect();
        assert_eq!(ops, vec![1, 0, 0, 1]);
        assert_eq!(merged.intervals[1].max_us, 0.0);
    }

    #[test]
    fn a_last_second_short_by_a_few_milliseconds_is_whole() {
        let iv = |index| IntervalStats { index, ops: 10, p99_us: 0.0, max_us: 0.0, histogram: None };
        let series: Vec<IntervalStats> = (0..4).map(iv).collect();
        assert_eq!(full_seconds(&series, 2.995).count(), 3);
        assert_eq!(full_seconds(&series, 2.9).count(), 2);
        assert_eq!(full_seconds(&series, 4.0).count(), 4);
    }

    #[test]
    fn rate_percentiles_use_full_seconds_sorted_descending() {
        let iv = |index, ops| IntervalStats { index, ops, p99_us: 0.0, max_us: 0.0, histogram: None };
        // 100 full seconds with rates 1..=100, then a partial second that must be ignored.
        let mut series: Vec<IntervalStats> = (0..100).map(|i| iv(i, i as u64 + 1)).collect();
        series.push(iv(100, 1));
        let r = rate_percentiles(&series, 100.4).unwrap();
        assert_eq!(r.intervals, 100);
        assert_eq!((r.max, r.min), (100.0, 1.0));
        assert_eq!(r.p50, 51.0);
        assert_eq!(r.p99, 2.0);
        assert!(rate_percentiles(&series[..1], 0.5).is_none());
    }

    #[test]
    fn interval_p99_is_computed_over_all_threads() {
        // Thread a has 98 fast ops, thread b 2 slow ones: per-thread p99s would
        // say 1us and 100us; the merged interval p99 must be the slow value.
        let mut a = Recorder::new(None);
        let mut b = Recorder::new(None);
        for i in 0..98 {
            a.record(i * MS, 1_000);
        }
        b.record(1, 100_000);
        b.record(2, 100_000);
        let merged = merge(vec![a.finish(), b.finish()], 1);
        assert!((merged.intervals[0].p99_us - 100.0).abs() < 0.1, "{:?}", merged.intervals[0]);
        // The second's whole histogram is kept: 100 calls, two of them slow.
        let h = crate::measure::hdr_codec::decode(merged.intervals[0].histogram.as_deref().unwrap()).unwrap();
        assert_eq!((h.len(), h.count_between(99_000, 101_000)), (100, 2));
    }
}
