//! Stall seconds: per config, step and operation type, the seconds whose
//! slowest operation took more than STALL_FACTOR times the step's p99 (and
//! at least MIN_STALL_US), with the engine's own counters at that second
//! (`--internals`): a stall seen beside its cause.

use crate::result::{OpResult, RunResult, StepResult};

pub const STALL_FACTOR: f64 = 10.0;
/// Below a millisecond a slow second is the machine's noise, not a stall.
pub const MIN_STALL_US: f64 = 1000.0;
/// The worst seconds shown per step and operation type.
pub const MAX_PER_STEP: usize = 5;

pub const TITLE: &str = "stall seconds: the slowest operation over 10x the step's p99";

pub const COLUMNS: &[&str] = &["config", "step", "op", "second", "max us", "x p99", "engine counters at that second"];

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
    let mut rows: Vec<Row> = op
        .intervals
        .iter()
        .filter(|iv| iv.max_us > STALL_FACTOR * p99 && iv.max_us >= MIN_STALL_US)
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

    fn iv(index: u32, max_us: f64) -> IntervalStats {
        IntervalStats { index, ops: 100, p99_us: 50.0, max_us, histogram: None }
    }

    #[test]
    fn a_second_far_over_the_p99_is_shown_with_the_counters_then() {
        let mut op = fixtures::op("put", 400, 20.0, 0, 0, 0);
        op.latency.p99_us = 200.0;
        op.intervals = vec![iv(0, 900.0), iv(1, 50_000.0), iv(2, 1500.0), iv(3, 3000.0)];
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
        assert_eq!(rows[0].cells()[4..6], ["50000".to_string(), "250".to_string()]);
        s.internals = None;
        assert_eq!(stalled("rocksdb", &s, &s.ops_by_type[0])[0].counters, "not sampled");
        let run = fixtures::run(vec![fixtures::config("rocksdb", "rocksdb", vec![s])]);
        assert_eq!(super::rows(&run).len(), 2);
    }
}
