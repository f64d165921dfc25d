//! The search for the highest rate under latency targets (`--slo`): its
//! probes and what it found.

use serde::{Deserialize, Serialize};

use crate::measure::LatencySummary;
use crate::plan::slo::SloTarget;

/// What a step's SLO search did and found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SloSearch {
    pub targets: Vec<SloTarget>,
    /// The width it stopped at (a fraction of the rate).
    pub width: f64,
    /// The closed loop's rate: the most the clients get as fast as they go.
    pub capacity_ops_s: Option<f64>,
    /// The highest offered rate that met every target (None: none did).
    pub rate_ops_s: Option<f64>,
    /// The rate lies in [met, missed]: the highest probe that met the targets
    /// and the lowest that missed (None above: the capacity met them).
    pub met_ops_s: Option<f64>,
    pub missed_ops_s: Option<f64>,
    /// Every probe, in the order they ran.
    pub probes: Vec<SloProbe>,
    /// What every probe did together: their operations (the background
    /// writer's too) and seconds, what the step's efficiency figures cover.
    pub total_ops: u64,
    pub total_seconds: f64,
    /// Why there is no rate: the targets missed even unloaded, or a probe failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_rate: Option<String>,
}

/// One probe: the rate offered (None: the closed loop), what it achieved,
/// and each target's percentile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SloProbe {
    pub offered_ops_s: Option<f64>,
    pub achieved_ops_s: f64,
    pub ops: u64,
    pub seconds: f64,
    /// Each target's percentile, in the targets' order.
    pub percentiles_us: Vec<f64>,
    pub met: bool,
}

/// A percentile of a latency summary, for the percentiles results keep.
pub fn percentile_of(l: &LatencySummary, p: f64) -> Option<f64> {
    let kept = [(50.0, l.p50_us), (90.0, l.p90_us), (99.0, l.p99_us), (99.9, l.p999_us), (99.99, l.p9999_us)];
    kept.iter().find(|(q, _)| *q == p).map(|(_, v)| *v)
}
