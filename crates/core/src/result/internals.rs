//! An engine's own counters sampled once a second while a step ran
//! (RocksDB's pending compaction bytes, L0 files, stall time, ...): beside
//! the step's rates and maxima on the same time axis, so that a stall is
//! seen with its cause.

use serde::{Deserialize, Serialize};

/// The samples of one step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineInternals {
    /// The counters' names, in the order of each sample's values. A name
    /// ending in `_per_s` is a running total given as its rate over the
    /// second before the sample.
    pub names: Vec<String>,
    pub samples: Vec<InternalSample>,
    /// Wall time the sampler spent asking the engine, over all samples
    /// (microseconds): what sampling took from the step, at most.
    #[serde(default)]
    pub sampling_us: f64,
}

/// One sample: seconds since the step started, and each counter's value
/// (None: the engine did not answer it this time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InternalSample {
    pub t_s: f64,
    pub values: Vec<Option<f64>>,
}

impl EngineInternals {
    /// The sample taken closest to the end of second `second` (1-based),
    /// within half a second.
    pub fn at_second(&self, second: u32) -> Option<&InternalSample> {
        let end = second as f64;
        self.samples
            .iter()
            .filter(|s| (s.t_s - end).abs() <= 0.5)
            .min_by(|a, b| (a.t_s - end).abs().total_cmp(&(b.t_s - end).abs()))
    }

    /// Counter `name`'s (second, value) points, for a chart beside the
    /// per-second rates (a sample's second is the one it ends).
    pub fn points(&self, name: &str) -> Vec<(f64, f64)> {
        let Some(i) = self.names.iter().position(|n| n == name) else { return Vec::new() };
        self.samples.iter().filter_map(|s| Some((s.t_s, s.values.get(i).copied().flatten()?))).collect()
    }

    /// "name=value, ..." of a sample, for a table's cell.
    pub fn describe(&self, sample: &InternalSample) -> String {
        self.names
            .iter()
            .zip(&sample.values)
            .filter_map(|(n, v)| Some(format!("{n}={}", short(v.as_ref().copied()?))))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A counter's value, short: integers as such, large ones with a unit.
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_finds_its_sample_and_a_counter_its_points() {
        let s = |t_s, a: f64, b: Option<f64>| InternalSample { t_s, values: vec![Some(a), b] };
        let x = EngineInternals {
            names: vec!["l0_files".into(), "pending_compaction_bytes".into()],
            samples: vec![s(0.0, 1.0, Some(0.0)), s(1.01, 4.0, None), s(2.02, 9.0, Some(2.5e9))],
            sampling_us: 0.0,
        };
        assert_eq!(x.at_second(1).unwrap().t_s, 1.01);
        assert_eq!(x.at_second(2).unwrap().t_s, 2.02);
        assert!(x.at_second(4).is_none());
        assert_eq!(x.points("pending_compaction_bytes"), vec![(0.0, 0.0), (2.02, 2.5e9)]);
        assert!(x.points("nope").is_empty());
        assert_eq!(x.describe(&x.samples[2]), "l0_files=9, pending_compaction_bytes=2.5G");
        assert_eq!(x.describe(&x.samples[1]), "l0_files=4");
    }
}
