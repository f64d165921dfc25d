//! The metric table: every step metric's column (key, label, unit,
//! direction, legend line) and how its value is read from a step, with the
//! engine counters' change over the step, and how a value or a ratio is
//! printed in a cell.

use super::fmt::num;
use super::rocksdb_stalls::{parse_rocksdb_stalls, RocksStalls};
use crate::measure::LatencySummary;
use crate::result::{Status, StepResult};

/// Whether a larger value of a metric is better, worse, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    /// Not ranked: a change is reported, never called good or bad.
    Neither,
}

/// One column of the summary.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Stable name (compare --metrics, markdown, docs).
    pub key: &'static str,
    /// Column header.
    pub label: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// One line for the legend.
    pub help: &'static str,
    /// Its value in a step (None: not measured, or not meaningful there).
    pub of: fn(&StepFigures) -> Option<f64>,
}

const fn m(
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    better: Better,
    help: &'static str,
    of: fn(&StepFigures) -> Option<f64>,
) -> Metric {
    Metric { key, label, unit, better, help, of }
}

/// What a metric's value is read from: a step, its own latency where it
/// has one, and the engine counters' change since the step before it.
pub struct StepFigures<'a> {
    pub step: &'a StepResult,
    /// The step's latency, when it has one (a mixed step has not: its rows per type have theirs).
    latency: Option<&'a LatencySummary>,
    /// RocksDB's stall share, stall count and flush + compaction GB over the step.
    engine: (Option<f64>, Option<f64>, Option<f64>),
}

impl StepFigures<'_> {
    fn latency(&self, f: fn(&LatencySummary) -> f64) -> Option<f64> {
        self.latency.map(f)
    }
}

/// Every step metric, in column order.
pub const METRICS: &[Metric] = &[
    m("ops_s", "ops/s", "ops/s", Better::Higher, "operations completed by the step's clients / wall seconds (the background writer's are separate)", |f| f.step.ops_s),
    m("mb_s", "MB/s", "MB/s", Better::Higher, "logical MB/s: key + value bytes of the clients' operations per second (MB = 2^20 bytes)", |f| f.step.mb_s),
    m("p50_us", "p50", "us", Better::Lower, "median response time of the step's main operation (per call; a batch for batched calls)", |f| f.latency(|l| l.p50_us)),
    m("p90_us", "p90", "us", Better::Lower, "90th percentile response time of the main operation", |f| f.latency(|l| l.p90_us)),
    m("p99_us", "p99", "us", Better::Lower, "99th percentile response time of the main operation", |f| f.latency(|l| l.p99_us)),
    m("p999_us", "p99.9", "us", Better::Lower, "99.9th percentile response time of the main operation", |f| f.latency(|l| l.p999_us)),
    m("p9999_us", "p99.99", "us", Better::Lower, "99.99th percentile response time of the main operation", |f| f.latency(|l| l.p9999_us)),
    m("max_us", "max", "us", Better::Lower, "largest response time of the main operation in the step", |f| f.latency(|l| l.max_us)),
    m("rpq", "rpq", "reads/query", Better::Lower, "storage read requests per query (/proc/diskstats of the data dir's device)", |f| f.step.metrics.headline_rpq()),
    m("wkbpi", "wkbpi", "KB/write", Better::Lower, "KB written to storage per write operation (KB = 1024 bytes)", |f| f.step.metrics.headline_wkbpi()),
    m("write_amp", "w-amp", "ratio", Better::Lower, "bytes written to storage during the step / logical bytes the clients wrote", |f| f.step.metrics.headline_write_amp()),
    m("write_amp_debt", "w-amp debt", "ratio", Better::Lower, "w-amp through the step's write debt: bytes written during the step and by the steps after it that write nothing of their own (flush, waitforcompaction, settle, reads), up to the next write step, / logical bytes the step's clients wrote", |f| f.step.write_debt.as_ref().and_then(|d| d.headline_write_amp())),
    m("eng_write_amp", "eng w-amp", "ratio", Better::Lower, "the engine's own write-amplification over the step (RocksDB: flush + compaction bytes / ingest bytes)", |f| f.step.engine_write_amp),
    m("space_amp", "space-amp", "ratio", Better::Lower, "bytes on disk under the data dir at step end / logical bytes of live data", |f| f.step.metrics.space_amp),
    m("db_mb", "db size", "MB", Better::Lower, "bytes on disk under the data dir at step end (allocated blocks), MB = 2^20 bytes", |f| f.step.metrics.db_size_bytes.map(mb)),
    m("cpu_us_op", "cpu/op", "us/op", Better::Lower, "CPU of the benchmark process, every thread (engine included when embedded), per operation", |f| f.step.metrics.client_cpu_us_op),
    m("thr_cpu_us_op", "thread cpu/op", "us/op", Better::Lower, "CPU of the threads that issued the step's operations (clients, background writer) per operation, without the measurement's own threads: rumbench's own work against a server", |f| f.step.metrics.client_threads_cpu_us_op),
    m("srv_cpu_us_op", "srv cpu/op", "us/op", Better::Lower, "user + system CPU of the server's process tree per operation (servers rumbench started; exited backends included)", |f| f.step.metrics.srv_cpu_us_op),
    m("srv_cs_op", "srv switches/op", "switches/op", Better::Lower, "context switches (voluntary + involuntary) of the server's threads per operation (servers rumbench started; none where a thread or process of the server ended during the step, taking its count with it)", |f| f.step.metrics.srv_switches_op),
    m("host_cpu_us_op", "host cpu/op", "us/op", Better::Lower, "busy CPU of the whole host per operation (CPUs x wall less idle, iowait and steal)", |f| f.step.metrics.host_cpu_us_op),
    m("rss_mb", "peak rss", "MB", Better::Lower, "peak resident memory of the process during the step, sampled every second (MB = 2^20 bytes)", |f| f.step.metrics.rss_peak_bytes.map(mb)),
    m("syncs_per_commit", "syncs/commit", "calls/commit", Better::Neither, "fsync + fdatasync + msync + sync_file_range calls per commit; 0 means not durable as run", |f| f.step.metrics.syncs.as_ref().and_then(|y| y.syncs_per_commit)),
    m("stall_pct", "stall%", "%", Better::Lower, "share of the step's time writes were stalled, from the engine's counters (RocksDB only)", |f| f.engine.0),
    m("n_stall", "stalls", "count", Better::Lower, "write stalls and slowdowns the engine counted during the step (RocksDB only)", |f| f.engine.1),
    m("c_wgb", "c_wgb", "GB", Better::Lower, "GB written by flush and compaction during the step, from the engine's counters (RocksDB only; GB = 2^30 bytes)", |f| f.engine.2),
    m("limit_pct", "% of limit", "%", Better::Neither, "the step's rate as a percentage of its lowest ceiling, named by it: read, write and sync from the device's fio baseline (`rumbench device`) and the step's reads, bytes written and syncs per operation; cpu from the cores and the CPU per operation", |f| f.step.ceilings.as_ref().and_then(|c| c.pct_of_limit)),
    m("slo_ops_s", "slo rate", "ops/s", Better::Higher, "the highest open-loop rate at which every --slo target held: the search's rate found (its interval and probes are in the latency-target table)", |f| f.step.slo.as_ref().and_then(|s| s.rate_ops_s)),
];

impl Metric {
    /// Label with its unit where the unit adds something: "p99 us", "peak rss MB", "ops/s".
    pub fn title(&self) -> String {
        match self.unit {
            "ratio" | "count" | "%" | "reads/query" | "calls/commit" | "KB/write" => self.label.to_string(),
            u if u == self.label => self.label.to_string(),
            "us/op" => format!("{} us", self.label),
            u => format!("{} {u}", self.label),
        }
    }
}

pub fn metric_index(key: &str) -> Option<usize> {
    METRICS.iter().position(|m| m.key == key)
}

/// Format a metric value for a table: 3-4 significant digits, tiny values in
/// scientific notation (an rpq of 0.0000077 is not "0.00").
pub fn fmt_value(v: f64) -> String {
    if v != 0.0 && v.abs() < 0.001 {
        format!("{v:.1e}")
    } else {
        num(v)
    }
}

/// Format a ratio: two decimals, more digits when tiny (500 us vs 950 ms is not "0.00").
pub fn fmt_ratio(r: f64) -> String {
    if r == 0.0 || r >= 0.01 {
        if r >= 1000.0 {
            format!("{r:.0}")
        } else {
            format!("{r:.2}")
        }
    } else {
        format!("{r:.1e}")
    }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

/// Stall share, stall count and flush+compaction GB over one step, from the
/// engine's cumulative counters after this step and after the previous one.
fn engine_deltas(s: &StepResult, prev: Option<&StepResult>) -> (Option<f64>, Option<f64>, Option<f64>) {
    let now = s.engine_stat("rocksdb.stats").and_then(parse_rocksdb_stalls);
    let before = match prev {
        Some(p) => p.engine_stat("rocksdb.stats").and_then(parse_rocksdb_stalls),
        None => Some(RocksStalls::default()),
    };
    let (stall_pct, n_stall) = match (now, before) {
        (Some(a), Some(b)) if a.uptime_s > b.uptime_s => (
            Some(100.0 * ((a.stall_s - b.stall_s).max(0.0) / (a.uptime_s - b.uptime_s)).min(1.0)),
            Some(a.stalls.saturating_sub(b.stalls) as f64),
        ),
        _ => (None, None),
    };
    let written =
        |x: &StepResult| x.engine_stat("write_amp.flush_and_compaction_bytes").and_then(|v| v.parse::<f64>().ok());
    let c_wgb = match (written(s), prev.map(written)) {
        (Some(a), None) => Some(a),
        (Some(a), Some(Some(b))) => Some((a - b).max(0.0)),
        _ => None,
    }
    .map(|b| b / 1073741824.0);
    (stall_pct, n_stall, c_wgb)
}

/// Every metric of one step, in `METRICS` order.
pub fn step_values(s: &StepResult, prev: Option<&StepResult>) -> Vec<Option<f64>> {
    if s.status == Status::Failed {
        // Its figures are partial: the notes say it failed, no cell competes.
        return vec![None; METRICS.len()];
    }
    // A mixed step has no latency of its own: its rows per type have theirs.
    let latency = s.step_latency().filter(|l| s.ops > 0 && l.count > 0);
    let figures = StepFigures { step: s, latency, engine: engine_deltas(s, prev) };
    METRICS.iter().map(|m| (m.of)(&figures)).collect()
}
