//! Stall seconds: per config, step and operation type, the seconds whose
//! slowest operation took more than STALL_FACTOR times the step's p99 (and
//! at least MIN_STALL_US) while the second's rate fell below DIP of the
//! step's median second (the clients waited: one slow operation among
//! millions is not a stall), with the engine's own counters at that second
//! (`--internals`): a stall seen beside its cause.

use crate::result::{OpResult, RunResult, StepResult};

pub const STALL_FACTOR: f64 = 10.0;
/// Below a millisecond a slow second is the machine's noise, not a stall.
pub const MIN_STALL_US: f64 = 1000.0;
/// The worst seconds shown per step and operation type.
pub const MAX_PER_STEP: usize = 5;
/// A stalled second's rate is below this share of the step's median second.
pub const DIP: f64 = 0.75;

pub const TITLE: &str = "stall seconds: the slowest operation over 10x the step's p99, in a second whose rate fell below 75% of the step's median";

pub const COLUMNS: &[&str] =
    &["config", "step", "op", "second", "max us", "x p99", "rate vs median", "engine counters at that second"];

/// One stalled second.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub config: String,
    pub step: String,
    pub op: String,
    /// 1-based, as in intervals.csv.
    pub second: u32,
    pub max_us: f64,
    pub p99_us: f64,
    /// The second's operations over the step's median second's.
    pub rate_ratio: f64,
    /// "name=value, ..." at that second, or why there are none.
    pub counters: String,
}

impl Row {
    /// The row's cells, in COLUMNS' order.
    pub fn cells(&self) -> Vec<String> {
        vec![
            self.config.clone(),
            self.step.clone(),
            self.op.clone(),
            self.second.to_string(),
            format!("{:.0}", self.max_us),
            format!("{:.0}", self.max_us / self.p99_us),
            format!("{:.2}", self.rate_ratio),
            self.counters.clone(),
        ]
    }
}

/// The stalled seconds of one operation type of a step, worst first.
fn stalled(config: &str, s: &StepResult, op: &OpResult) -> Vec<Row> {
    let p99 = op.latency.p99_us;
    if p99 <= 0.0 {
        return Vec::new();
    }
    // The last second is often a part of one: its low count says nothing.
    let n = op.intervals.len();
    let full = if n > 2 { &op.intervals[..n - 1] } else { &op.intervals[..] };
    let mut counts: Vec<u64> = full.iter().map(|iv| iv.ops).collect();
    counts.sort_unstable();
    let Some(&median) = counts.get(counts.len() / 2).filter(|&&m| m > 0) else {
        return Vec::new();
    };
    let mut rows: Vec<Row> = full
        .iter()
        .filter(|iv| iv.max_us > STALL_FACTOR * p99 && iv.max_us >= MIN_STALL_US)
        .filter(|iv| (iv.ops as f64) < DIP * median as f64)
        .map(|iv| {
            let second = iv.index + 1;
            let counters = match &s.internals {
                Some(i) => i.at_second(second).map_or_else(|| "no sample at that second".into(), |x| i.describe(x)),
                None => "not sampled".into(),
            };
            Row {
                config: config.to_string(),
                step: s.name.clone(),
                op: op.op.clone(),
                second,
                max_us: iv.max_us,
                p99_us: p99,
                rate_ratio: iv.ops as f64 / median as f64,
                counters,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.max_us.total_cmp(&a.max_us));
    rows.truncate(MAX_PER_STEP);
    rows
}

/// Every stalled second of a run, in config and step order.
pub fn rows(run: &RunResult) -> Vec<Row> {
    let mut out = Vec::new();
    for c in &run.configs {
        let name = c.instance_name();
        for s in &c.steps {
            for op in s.ops_by_type.iter().chain(s.writer.as_ref().map(|w| &w.latency)) {
                out.extend(stalled(&name, s, op));
            }
        }
    }
    out
}

/// Under the table: what its rows are.
pub fn footer() -> String {
    format!("second: of the step (1-based, as in intervals.csv); the {MAX_PER_STEP} worst per step and operation, at least {MIN_STALL_US:.0} us; the engine's counters are sampled each second (intervals.csv, role engine).")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::IntervalStats;
    use crate::plan::steps::StepKind;
    use crate::result::fixtures;
    use crate::result::internals::{EngineInternals, InternalSample};

    fn iv(index: u32, ops: u64, max_us: f64) -> IntervalStats {
        IntervalStats { index, ops, p99_us: 50.0, max_us, histogram: None }
    }

    #[test]
    fn a_second_far_over_the_p99_is_shown_with_the_counters_then() {
        let mut op = fixtures::op("put", 400, 20.0, 0, 0, 0);
        op.latency.p99_us = 200.0;
        op.intervals = vec![
            iv(0, 100, 900.0),
            iv(1, 10, 50_000.0),
            iv(2, 100, 1500.0),
            iv(3, 50, 3000.0),
            // One slow operation, the rate as every other second's: not a stall.
            iv(4, 100, 90_000.0),
            // The step's last, partial second: its count says nothing.
            iv(5, 20, 80_000.0),
        ];
        let mut s = fixtures::step(StepKind::FillRandom, 4.0, vec![op]);
        s.internals = Some(EngineInternals {
            names: vec!["l0_files".into(), "stall_us_per_s".into()],
            samples: vec![
                InternalSample { t_s: 1.0, values: vec![Some(4.0), Some(0.0)] },
                InternalSample { t_s: 2.0, values: vec![Some(20.0), Some(350_000.0)] },
            ],
            sampling_us: 40.0,
        });
        let rows = stalled("rocksdb", &s, &s.ops_by_type[0]);
        // 900 us and 1500 us are under 10x the p99 (2000 us).
        let seconds: Vec<u32> = rows.iter().map(|r| r.second).collect();
        assert_eq!(seconds, [2, 4], "worst first");
        assert_eq!(rows[0].counters, "l0_files=20, stall_us_per_s=350k");
        assert_eq!(rows[1].counters, "no sample at that second");
        assert_eq!(rows[0].cells()[4..7], ["50000".to_string(), "250".to_string(), "0.10".to_string()]);
        s.internals = None;
        assert_eq!(stalled("rocksdb", &s, &s.ops_by_type[0])[0].counters, "not sampled");
        let run = fixtures::run(vec![fixtures::config("rocksdb", "rocksdb", vec![s])]);
        assert_eq!(super::rows(&run).len(), 2);
    }
}
