//! Measurement: latency histograms, per-thread recorders with 1-second
//! interval series, and their merge after a step.
//!
//! Each client thread owns its recorders (no shared state on the hot path);
//! the runner merges them when the step ends.

pub mod ceiling;
pub mod device_baseline;
pub mod fio;
pub mod hdr_codec;
pub mod latency;
pub mod live;
pub mod os;
pub mod profile;
pub mod recorder;
pub mod step_metrics;
pub mod thread_cpu;
pub mod usl;

pub use latency::{new_histogram, LatencySummary};
pub use recorder::{
    full_seconds, merge, rate_percentiles, rising_rate, IntervalStats, ProgressCounter, RatePercentiles, Recorder,
};
