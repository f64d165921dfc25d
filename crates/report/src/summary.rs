//! The one computed summary every report format renders (HTML, markdown,
//! TSV, compare): per step, one row per run and config, each step metric with
//! its unit and direction. Nothing here is measured; everything is derived
//! from result.json, so the formats can never disagree.

use serde_json::Value;

use super::exercised::{self, StepFacts};
use super::fmt::num;
use super::stats::median;
use crate::measure::step_metrics::MemoryPoint;
use crate::measure::{IntervalStats, LatencySummary};
use crate::result::{Outcomes, RunResult, Status, StepResult};

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

/// A background writer's figures in a step.
#[derive(Debug, Clone)]
pub struct WriterInfo {
    pub target_ops_s: Option<f64>,
    pub achieved_ops_s: f64,
    pub missed_target: bool,
    pub op: String,
    pub latency: LatencySummary,
    pub intervals: Vec<IntervalStats>,
}

/// One operation type of a step (READ, UPDATE, ... of a YCSB step).
#[derive(Debug, Clone)]
pub struct OpTypeFigures {
    pub op: String,
    pub ops: u64,
    /// None when the step has no rate (it failed, or took no time).
    pub ops_s: Option<f64>,
    pub latency: LatencySummary,
    /// None in results from before outcomes were counted.
    pub outcomes: Option<Outcomes>,
}

/// The device a run's ceilings used, in a line.
pub fn device_line(d: &crate::measure::device_baseline::DeviceContext) -> String {
    let key = d.device_key.as_deref().unwrap_or("unknown device");
    match (&d.baseline, &d.missing) {
        (Some(b), _) => format!(
            "{key}; fio baseline measured {} ({}): {:.0} random 4 KB reads/s at depth 1, {:.0} MB/s sequential writes, {:.0} write+fdatasync/s",
            b.measured_at,
            d.source.as_deref().unwrap_or("stored"),
            b.fio.read_iops(4096, 1).unwrap_or(0.0),
            b.fio.seq_write_mb_s,
            b.fio.fdatasync_per_s
        ),
        (None, why) => format!("{key}; no fio baseline: {}", why.as_deref().unwrap_or("not recorded")),
    }
}

/// One run and config in one step.
#[derive(Debug, Clone)]
pub struct Row {
    /// Index into `Summary::runs`.
    pub run: usize,
    pub config: String,
    pub engine: String,
    pub engine_version: Option<String>,
    /// `config`, or `run/config` when the summary holds several runs.
    pub label: String,
    /// Stable position of this run/config across steps (chart colours).
    pub series: usize,
    pub status: Status,
    pub values: Vec<Option<f64>>,
    pub not_durable: bool,
    /// Whether commits were synced (None: the step committed nothing).
    pub durable: Option<bool>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub started_at: String,
    /// None when nothing was measured (see StepResult::wall_s).
    pub wall_s: Option<f64>,
    pub threads: usize,
    /// The step's parameters as "name=value" (see `StepResult::parameters`).
    pub parameters: Vec<String>,
    /// Operations of the step's clients, every type.
    pub ops: u64,
    /// Each operation type, the main one first.
    pub op_types: Vec<OpTypeFigures>,
    pub main_op: Option<String>,
    pub latency: LatencySummary,
    pub intervals: Vec<IntervalStats>,
    pub writer: Option<WriterInfo>,
    pub memory: Vec<MemoryPoint>,
    /// The engine's own counters each second (`--internals`).
    pub internals: Option<crate::result::internals::EngineInternals>,
    /// The step's ceilings (None without a measured rate, or in older results).
    pub ceilings: Option<crate::measure::ceiling::Ceilings>,
    /// Every run of this config in this step: one without `--repeat`, one
    /// per round with it. `values` are then the medians over the repeats,
    /// and the other figures (latency, per-second series, notes) are those
    /// of the repeat with the median throughput.
    pub repeats: Vec<RepeatFigures>,
}

/// One repeat of a config in a step.
#[derive(Debug, Clone)]
pub struct RepeatFigures {
    /// The round (`--repeat`); None for a run without repeats.
    pub round: Option<u32>,
    pub status: Status,
    /// Every metric, in `METRICS` order (all None when the step failed).
    pub values: Vec<Option<f64>>,
    /// Coefficient of variation of the repeat's per-second ops, p99 and max
    /// (full seconds only; None with fewer than 3).
    pub cv_ops: Option<f64>,
    pub cv_p99: Option<f64>,
    pub cv_max: Option<f64>,
    /// How long the step ran.
    pub wall_s: Option<f64>,
    /// What the run recorded that says whether a compared setting could
    /// have acted in the step (`exercised`).
    pub facts: StepFacts,
}

impl Row {
    pub fn get(&self, key: &str) -> Option<f64> {
        metric_index(key).and_then(|i| self.values[i])
    }

    /// The cell of metric `mi`: its value, and for "% of limit" the bound's
    /// name before it ("read 83%"; over repeats, the median and the bound of the median repeat).
    pub fn cell_text(&self, mi: usize) -> String {
        match self.values[mi] {
            None => "-".into(),
            Some(v) if METRICS[mi].key == "limit_pct" => match self.ceilings.as_ref().and_then(|c| c.bound) {
                Some(b) => format!("{} {v:.0}%", b.name()),
                None => format!("{v:.0}%"),
            },
            Some(v) => fmt_value(v),
        }
    }

    /// Whether the row is the median of several repeats.
    pub fn repeated(&self) -> bool {
        self.repeats.len() > 1
    }

    /// The smallest and largest value of metric `mi` over the repeats that
    /// measured it (None without two such repeats).
    pub fn spread(&self, mi: usize) -> Option<(f64, f64)> {
        let v: Vec<f64> = self.repeats.iter().filter_map(|r| r.values[mi]).collect();
        (v.len() >= 2).then(|| (v.iter().cloned().fold(f64::MAX, f64::min), v.iter().cloned().fold(f64::MIN, f64::max)))
    }
}

/// One row per (run, config) of a step: the repeats of a config (rows of
/// the same run and config) become one row whose values are the medians
/// and whose other figures are the median-throughput repeat's.
fn merge_repeats(rows: Vec<Row>) -> Vec<Row> {
    let mut groups: Vec<Vec<Row>> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|g| g[0].run == r.run && g[0].config == r.config) {
            Some(g) => g.push(r),
            None => groups.push(vec![r]),
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            if g.len() == 1 {
                return g.pop().expect("one row");
            }
            let repeats: Vec<RepeatFigures> = g.iter().flat_map(|r| r.repeats.iter().cloned()).collect();
            let values: Vec<Option<f64>> = (0..METRICS.len())
                .map(|mi| median(&repeats.iter().filter_map(|r| r.values[mi]).collect::<Vec<_>>()))
                .collect();
            // The repeat whose throughput is the median (the lower middle one for an even count).
            let ops = metric_index("ops_s").expect("ops_s");
            let mut order: Vec<usize> = (0..g.len()).filter(|&i| g[i].values[ops].is_some()).collect();
            order.sort_by(|&a, &b| g[a].values[ops].unwrap_or(0.0).total_cmp(&g[b].values[ops].unwrap_or(0.0)));
            let pick = order.get(order.len().saturating_sub(1) / 2).copied().unwrap_or(0);
            let failed: Vec<String> = repeats
                .iter()
                .filter(|r| r.status != Status::Completed)
                .map(|r| {
                    format!(
                        "round {} {}",
                        r.round.map(|x| x.to_string()).unwrap_or_else(|| "?".into()),
                        format!("{:?}", r.status).to_lowercase()
                    )
                })
                .collect();
            let mut row = g.swap_remove(pick);
            let measured = repeats.iter().filter(|r| r.values[ops].is_some()).count();
            row.notes.insert(0, format!("median of {measured} repeats"));
            if !failed.is_empty() {
                row.notes.push(failed.join(", "));
            }
            // Another repeat's warnings stay visible, with their round.
            for other in &g {
                for w in &other.warnings {
                    let round =
                        other.repeats.first().and_then(|r| r.round).map(|x| format!("round {x}: ")).unwrap_or_default();
                    row.warnings.push(format!("{round}{w}"));
                }
            }
            if row.status != Status::Completed && repeats.iter().any(|r| r.status == Status::Completed) {
                row.status = Status::Completed;
            }
            row.values = values;
            row.repeats = repeats;
            row
        })
        .collect()
}

/// One step (by name; a step repeated within a config gets `name#2`, ...).
#[derive(Debug, Clone)]
pub struct StepTable {
    pub key: String,
    pub name: String,
    pub rows: Vec<Row>,
}

impl StepTable {
    /// Metrics that have a value in at least one row (the columns worth showing).
    pub fn present_metrics(&self) -> Vec<usize> {
        (0..METRICS.len()).filter(|&i| self.rows.iter().any(|r| r.values[i].is_some())).collect()
    }
    pub fn has_writer(&self) -> bool {
        self.rows.iter().any(|r| r.writer.is_some())
    }
    /// Whether a row ran more than one operation type (a mixed step: its
    /// figures per type are worth a table of their own).
    pub fn is_mixed(&self) -> bool {
        self.rows.iter().any(|r| r.op_types.len() > 1)
    }
}

#[derive(Debug, Clone)]
pub struct ConfigInfo {
    pub name: String,
    pub engine: String,
    pub engine_version: Option<String>,
    pub allocator_in_use: Option<String>,
    pub options: Vec<(String, String)>,
    pub provenance: Vec<(String, String)>,
    pub status: Status,
    pub error: Option<String>,
    /// A config sweep's options and values (`--sweep`); empty outside one.
    pub sweep: Vec<(String, String)>,
    /// Runs of the config (`--repeat`; 1 without).
    pub repeats: usize,
}

/// One entry per config of a run, its repeats folded in: the status is
/// the first repeat's that did not complete (else completed), the error
/// names its round.
fn config_infos(run: &RunResult) -> Vec<ConfigInfo> {
    let mut out: Vec<ConfigInfo> = Vec::new();
    for c in &run.configs {
        let error = c.error.as_ref().map(|e| match c.repeat {
            Some(r) => format!("round {r}: {e}"),
            None => e.clone(),
        });
        if let Some(info) = out.iter_mut().find(|i| i.name == c.name) {
            info.repeats += 1;
            if info.status == Status::Completed && c.status != Status::Completed {
                info.status = c.status;
                info.error = error;
            }
            continue;
        }
        out.push(ConfigInfo {
            name: c.name.clone(),
            engine: c.engine.clone(),
            engine_version: c.engine_version.clone(),
            allocator_in_use: c.allocator_in_use.clone(),
            options: c.options.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            provenance: c.provenance.clone(),
            status: c.status,
            error,
            sweep: c.sweep.clone(),
            repeats: 1,
        });
    }
    out
}

#[derive(Debug, Clone)]
pub struct RunInfo {
    pub label: String,
    pub dir: String,
    pub status: Status,
    pub error: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub rumbench_version: String,
    pub git_commit: Option<String>,
    pub suite: Option<String>,
    pub command_line: String,
    pub settings: Value,
    pub system: Option<Value>,
    pub warnings: Vec<String>,
    pub configs: Vec<ConfigInfo>,
    /// The hot-row grids (hotrow steps), per config.
    pub hot_grids: Vec<super::hotrow::Grid>,
    /// The SLO searches (`--slo`), per config and step.
    pub slo: Vec<super::slo::Row>,
    /// Seconds whose slowest operation stalled, with the engine's counters then.
    pub stalls: Vec<super::stalls::Row>,
    /// Concurrency sweeps, per config and swept step (repeats merged).
    pub scaling: Vec<super::concurrency::Sweep>,
    /// A crash test's durability matrix.
    pub durability: Option<super::durability::Matrix>,
    /// A merged run's shards (`rumbench merge`).
    pub shards: Option<super::shards::ShardTable>,
    /// The data dir's device and its fio baseline (or why there is none), in a line.
    pub device: Option<String>,
    /// `--profile`: the steps' CPU profiles, per config and step.
    pub profiles: Vec<super::profiles::ProfileView>,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub runs: Vec<RunInfo>,
    pub steps: Vec<StepTable>,
    /// Row labels in series order (for chart legends).
    pub series: Vec<String>,
}

/// Input to the summary: a run with the label and directory it is known by.
pub struct NamedRun<'a> {
    pub label: String,
    pub dir: String,
    pub run: &'a RunResult,
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

/// RocksDB's stats text: (uptime s, cumulative stall s, stall count) since the DB was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RocksStalls {
    pub uptime_s: f64,
    pub stall_s: f64,
    pub stalls: u64,
}

/// Parse "Uptime(secs): 20.3 total", "Cumulative stall: 00:00:1.500 H:M:S"
/// and the "Stalls(count): N name, M name, ..." line of rocksdb.stats.
pub fn parse_rocksdb_stalls(text: &str) -> Option<RocksStalls> {
    let mut out = RocksStalls::default();
    let (mut up, mut st) = (false, false);
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Uptime(secs):") {
            if let Some(v) = rest.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()) {
                out.uptime_s = v;
                up = true;
            }
        } else if let Some(rest) = line.strip_prefix("Cumulative stall:") {
            let hms = rest.split_whitespace().next()?;
            let parts: Vec<f64> = hms.split(':').filter_map(|p| p.parse().ok()).collect();
            if parts.len() == 3 {
                out.stall_s = parts[0] * 3600.0 + parts[1] * 60.0 + parts[2];
                st = true;
            }
        } else if let Some(rest) = line.strip_prefix("Stalls(count):") {
            // "0 level0_slowdown, 0 level0_numfiles, ..., interval 0 total count"
            out.stalls = rest
                .split(',')
                .filter(|part| !part.contains("interval") && !part.contains("total"))
                .filter_map(|part| part.split_whitespace().next()?.parse::<u64>().ok())
                .sum();
        }
    }
    (up && st).then_some(out)
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

/// Each operation type of a step with its rate over the step's wall time.
pub fn op_type_figures(s: &StepResult) -> Vec<OpTypeFigures> {
    let wall_s = s.wall_s.filter(|&w| s.ops_s.is_some() && w > 0.0);
    s.ops_by_type
        .iter()
        .map(|o| OpTypeFigures {
            op: o.op.clone(),
            ops: o.ops,
            ops_s: wall_s.map(|w| o.ops as f64 / w),
            latency: o.latency.clone(),
            outcomes: o.outcomes,
        })
        .collect()
}

/// How an operation type's operations ended, in a few words: "all ok",
/// "12 not found; 1 error", or "-" when the result did not count outcomes.
pub fn outcomes_text(o: Option<&Outcomes>) -> String {
    match o {
        None => "-".into(),
        Some(o) => {
            let notes = outcome_notes(o);
            if notes.is_empty() {
                "all ok".into()
            } else {
                notes.join("; ")
            }
        }
    }
}

/// A step's parameters as "name=value", strings unquoted.
pub fn parameter_texts(s: &StepResult) -> Vec<String> {
    s.parameters
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().map(String::from).unwrap_or_else(|| v.to_string())))
        .collect()
}

/// Label runs by their directory name, made unique when two share one.
pub fn run_labels(dirs: &[String]) -> Vec<String> {
    let base: Vec<String> = dirs
        .iter()
        .map(|d| {
            let p = std::path::Path::new(d);
            let p = if p.file_name().is_some_and(|f| f == "result.json") { p.parent().unwrap_or(p) } else { p };
            p.file_name()
                .map(|f| f.to_string_lossy().to_string())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| d.clone())
        })
        .collect();
    base.iter()
        .enumerate()
        .map(|(i, b)| if base.iter().filter(|x| *x == b).count() > 1 { format!("{}:{b}", i + 1) } else { b.clone() })
        .collect()
}

impl Summary {
    pub fn build(runs: &[NamedRun]) -> Summary {
        let multi = runs.len() > 1;
        let mut steps: Vec<StepTable> = Vec::new();
        let mut series: Vec<String> = Vec::new();
        let mut infos = Vec::new();
        for (ri, nr) in runs.iter().enumerate() {
            let run = nr.run;
            infos.push(RunInfo {
                label: nr.label.clone(),
                dir: nr.dir.clone(),
                status: run.status,
                error: run.error.clone(),
                started_at: run.started_at.clone(),
                finished_at: run.finished_at.clone(),
                rumbench_version: run.rumbench_version.clone(),
                git_commit: run.git_commit.clone(),
                suite: run.suite.clone(),
                command_line: run.command_line.join(" "),
                settings: serde_json::to_value(&run.settings).unwrap_or(Value::Null),
                system: run.system.clone(),
                warnings: run.all_warnings(),
                hot_grids: super::hotrow::grids(run),
                slo: super::slo::rows(run),
                stalls: super::stalls::rows(run),
                durability: super::durability::matrix(run),
                shards: super::shards::table(run),
                device: run.device.as_ref().map(device_line),
                scaling: super::concurrency::sweeps(run),
                configs: config_infos(run),
                profiles: super::profiles::build(&nr.label, std::path::Path::new(&nr.dir), run),
            });
            for c in &run.configs {
                let label = if multi { format!("{}/{}", nr.label, c.name) } else { c.name.clone() };
                // The repeats of a config share its series.
                let series_index = match series.iter().position(|s| *s == label) {
                    Some(i) => i,
                    None => {
                        series.push(label.clone());
                        series.len() - 1
                    }
                };
                let mut seen: Vec<&str> = Vec::new();
                for (si, s) in c.steps.iter().enumerate() {
                    let n = seen.iter().filter(|x| **x == s.name).count();
                    seen.push(&s.name);
                    let key = if n == 0 { s.name.clone() } else { format!("{}#{}", s.name, n + 1) };
                    let prev = si.checked_sub(1).map(|p| &c.steps[p]);
                    let main = s.main_op();
                    let row = Row {
                        run: ri,
                        config: c.name.clone(),
                        engine: c.engine.clone(),
                        engine_version: c.engine_version.clone(),
                        label: label.clone(),
                        series: series_index,
                        status: s.status,
                        values: step_values(s, prev),
                        not_durable: s.metrics.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false)),
                        durable: s.metrics.syncs.as_ref().and_then(|y| y.durable_as_run),
                        notes: step_notes(s),
                        warnings: s.warnings.clone(),
                        started_at: s.started_at.clone(),
                        wall_s: s.wall_s,
                        threads: s.settings.threads,
                        parameters: parameter_texts(s),
                        ops: s.ops,
                        op_types: op_type_figures(s),
                        main_op: main.map(|o| o.op.clone()),
                        latency: main.map(|o| o.latency.clone()).unwrap_or_default(),
                        intervals: main.map(|o| o.intervals.clone()).unwrap_or_default(),
                        writer: s.writer.as_ref().map(|w| WriterInfo {
                            target_ops_s: w.target_ops_s,
                            achieved_ops_s: w.achieved_ops_s,
                            missed_target: w.missed_target,
                            op: w.latency.op.clone(),
                            latency: w.latency.latency.clone(),
                            intervals: w.latency.intervals.clone(),
                        }),
                        memory: s.metrics.memory.clone(),
                        internals: s.internals.clone(),
                        ceilings: s.ceilings.clone(),
                        repeats: Vec::new(),
                    };
                    let mut row = row;
                    row.repeats.push(repeat_figures(&row, c.repeat, StepFacts::of(s, prev, &c.engine)));
                    match steps.iter_mut().find(|t| t.key == key) {
                        Some(t) => t.rows.push(row),
                        None => steps.push(StepTable { key, name: s.name.clone(), rows: vec![row] }),
                    }
                }
            }
        }
        for st in &mut steps {
            st.rows = merge_repeats(std::mem::take(&mut st.rows));
        }
        Summary { runs: infos, steps, series }
    }

    pub fn multi_run(&self) -> bool {
        self.runs.len() > 1
    }
}

/// Colour class of a cell from its rank within the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rank {
    /// Top quarter.
    Top,
    /// Bottom quarter, and the worst is not within 80% of the best.
    Bottom,
    Middle,
}

/// Rank every cell of a step per metric: the best value is rank 0; a cell is
/// Top when its rank / (n - 1) <= 0.25, Bottom when >= 0.75 (equal values
/// share the better rank). No Bottom when the worst is within 80% of the
/// best (worst/best >= 0.8 for higher-is-better, best/worst >= 0.8 for
/// lower-is-better), nothing at all when all values are equal or fewer than
/// two rows have a value. `ranks[row][metric]`.
pub fn rank_step(step: &StepTable) -> Vec<Vec<Option<Rank>>> {
    let mut out = vec![vec![None; METRICS.len()]; step.rows.len()];
    for (mi, metric) in METRICS.iter().enumerate() {
        if metric.better == Better::Neither {
            continue;
        }
        let vals: Vec<(usize, f64)> =
            step.rows.iter().enumerate().filter_map(|(ri, r)| r.values[mi].map(|v| (ri, v))).collect();
        for (ri, r) in rank_values(&vals.iter().map(|x| x.1).collect::<Vec<_>>(), metric.better).into_iter().enumerate()
        {
            out[vals[ri].0][mi] = r;
        }
    }
    out
}

/// The ranking rule of `rank_step` on one list of values.
pub fn rank_values(vals: &[f64], better: Better) -> Vec<Option<Rank>> {
    let n = vals.len();
    if n < 2 || better == Better::Neither {
        return vec![None; n];
    }
    let higher = better == Better::Higher;
    let best = if higher {
        vals.iter().cloned().fold(f64::MIN, f64::max)
    } else {
        vals.iter().cloned().fold(f64::MAX, f64::min)
    };
    let worst = if higher {
        vals.iter().cloned().fold(f64::MAX, f64::min)
    } else {
        vals.iter().cloned().fold(f64::MIN, f64::max)
    };
    if best == worst {
        return vec![None; n];
    }
    let close = if higher { best > 0.0 && worst / best >= 0.8 } else { worst > 0.0 && best / worst >= 0.8 };
    vals.iter()
        .map(|&v| {
            // Rank = number of strictly better values.
            let rank = vals.iter().filter(|&&o| if higher { o > v } else { o < v }).count();
            let pos = rank as f64 / (n - 1) as f64;
            Some(if pos <= 0.25 {
                Rank::Top
            } else if pos >= 0.75 && !close {
                Rank::Bottom
            } else {
                Rank::Middle
            })
        })
        .collect()
}

/// What the relative table divides by.
#[derive(Debug, Clone, PartialEq)]
pub enum Base {
    /// Every row against the same row: a row label (`run/config`) or config name
    /// (its first row in each step).
    Row(String),
    /// Each row against the row of the same config in this run (index into runs).
    Run(usize),
}

/// Ratio cell class: below 0.95, above 1.05 or in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatioClass {
    Below,
    Within,
    Above,
}

pub const RATIO_LOW: f64 = 0.95;
pub const RATIO_HIGH: f64 = 1.05;

pub fn ratio_class(r: f64) -> RatioClass {
    if r < RATIO_LOW {
        RatioClass::Below
    } else if r > RATIO_HIGH {
        RatioClass::Above
    } else {
        RatioClass::Within
    }
}

pub fn ratio(value: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (value, base) {
        (Some(v), Some(b)) if b != 0.0 => Some(v / b),
        (Some(v), Some(b)) if b == 0.0 && v == 0.0 => Some(1.0),
        _ => None,
    }
}

impl Summary {
    /// Index of the base row for each row of a step (None: no counterpart).
    pub fn base_rows(&self, step: &StepTable, base: &Base) -> Vec<Option<usize>> {
        match base {
            Base::Row(name) => {
                let b = step
                    .rows
                    .iter()
                    .position(|r| &r.label == name)
                    .or_else(|| step.rows.iter().position(|r| &r.config == name));
                vec![b; step.rows.len()]
            }
            Base::Run(run) => {
                step.rows.iter().map(|r| step.rows.iter().position(|b| b.run == *run && b.config == r.config)).collect()
            }
        }
    }

    /// The note on row `ri` of `step` against row `bi` (its base) when a
    /// setting their configs differ in could not have acted in the step
    /// (`exercised::note`); None when every one could have.
    pub fn unexercised(&self, step: &StepTable, ri: usize, bi: usize) -> Option<String> {
        fn side<'a>(s: &'a Summary, r: &'a Row) -> Option<exercised::Side<'a>> {
            let config = s.runs.get(r.run)?.configs.iter().find(|c| c.name == r.config)?;
            Some(exercised::Side {
                engine: &r.engine,
                options: &config.options,
                facts: r.repeats.iter().map(|x| &x.facts).collect(),
            })
        }
        exercised::note(&side(self, step.rows.get(bi)?)?, &side(self, step.rows.get(ri)?)?)
    }

    /// The default base: the first config of the first run.
    pub fn default_base(&self) -> Base {
        let first = self.runs.first().and_then(|r| r.configs.first());
        match first {
            Some(c) if self.multi_run() => Base::Row(format!("{}/{}", self.runs[0].label, c.name)),
            Some(c) => Base::Row(c.name.clone()),
            None => Base::Run(0),
        }
    }

    /// Describe a base for headings.
    pub fn describe_base(&self, base: &Base) -> String {
        match base {
            Base::Row(n) => n.clone(),
            Base::Run(i) => format!("run {} (same config)", self.runs.get(*i).map(|r| r.label.as_str()).unwrap_or("?")),
        }
    }
}

/// The observations shown beside a step's figures: status, keys not found,
/// the background writer's rate (shared by every format).
pub fn step_notes(s: &StepResult) -> Vec<String> {
    let mut notes = Vec::new();
    if s.status != Status::Completed {
        notes.push(format!("{:?}", s.status).to_lowercase());
        // Why, as the insert benchmark's table says it (the whole text is in result.json).
        if let Some(e) = &s.error {
            notes.push(e.clone());
        }
    }
    if s.timed_out {
        notes.push("TIMED OUT".into());
    }
    if let Some(r) = &s.reads {
        let total = r.found + r.not_found;
        if r.not_found > 0 && total > 0 {
            let pct = 100.0 * r.not_found as f64 / total as f64;
            notes.push(if pct < 1.0 { format!("{pct:.2}% not found") } else { format!("{pct:.0}% not found") });
        }
    }
    if let Some(w) = &s.writer {
        let target = w.target_ops_s.map(|t| format!("/{}", num(t))).unwrap_or_default();
        notes.push(format!(
            "writer {}{} ops/s{}",
            num(w.achieved_ops_s),
            target,
            if w.missed_target { " MISSED" } else { "" }
        ));
    }
    if s.mixes_op_types() && s.step_latency().is_none() {
        notes.push(MIXED_LATENCY_NOTE.into());
    }
    notes
}

/// Said on a mixed step's row, whose latency cells stay empty.
pub const MIXED_LATENCY_NOTE: &str = "latency per operation type below";

/// How operations ended other than ok: "3 not found", "1 conflict", "2 errors"
/// (empty when all were ok; shared by every format).
pub fn outcome_notes(o: &Outcomes) -> Vec<String> {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut notes = Vec::new();
    if o.not_found > 0 {
        notes.push(format!("{} not found", o.not_found));
    }
    if o.conflict > 0 {
        notes.push(plural(o.conflict, "conflict", "conflicts"));
    }
    if o.error > 0 {
        notes.push(plural(o.error, "error", "errors"));
    }
    notes
}

/// A row's own figures as one repeat of its config.
fn repeat_figures(row: &Row, round: Option<u32>, facts: StepFacts) -> RepeatFigures {
    let full = full_second_ops(&row.intervals, row.wall_s.unwrap_or(0.0));
    let series = |f: fn(&IntervalStats) -> f64| cv(&full.iter().map(|iv| f(iv)).collect::<Vec<_>>(), 3);
    RepeatFigures {
        round,
        status: row.status,
        values: row.values.clone(),
        cv_ops: series(|iv| iv.ops as f64),
        cv_p99: series(|iv| iv.p99_us),
        cv_max: series(|iv| iv.max_us),
        wall_s: row.wall_s,
        facts,
    }
}

/// Per-second rates of the full seconds of a step: interval `i` counts when
/// the step lasted at least until i + 1 s (the partial last second is left
/// out, it would read as a drop).
pub fn full_second_ops(intervals: &[IntervalStats], wall_s: f64) -> Vec<&IntervalStats> {
    intervals.iter().filter(|iv| (iv.index as f64 + 1.0) <= wall_s + 0.01).collect()
}

/// Coefficient of variation (sample standard deviation / mean) of at least
/// `min_n` values; None when there are fewer or the mean is 0.
pub fn cv(xs: &[f64], min_n: usize) -> Option<f64> {
    if xs.len() < min_n.max(2) {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return None;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(var.sqrt() / mean.abs())
}

/// The environment as (key, value) lines.
pub fn environment_lines(system: &Value) -> Vec<(String, String)> {
    crate::sysinfo_text::lines(system)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_quarter_with_the_80_percent_rule() {
        use Rank::*;
        // Higher is better: 100 best, 10 worst (far apart).
        assert_eq!(rank_values(&[100.0, 10.0, 50.0], Better::Higher), vec![Some(Top), Some(Bottom), Some(Middle)]);
        // Worst within 80% of the best: no red.
        assert_eq!(rank_values(&[100.0, 85.0, 90.0], Better::Higher), vec![Some(Top), Some(Middle), Some(Middle)]);
        // Lower is better.
        assert_eq!(
            rank_values(&[1.0, 5.0, 2.0, 3.0, 4.0], Better::Lower),
            vec![Some(Top), Some(Bottom), Some(Top), Some(Middle), Some(Bottom)]
        );
        assert_eq!(rank_values(&[1.0, 1.1], Better::Lower), vec![Some(Top), Some(Middle)]);
        // Ties share the better rank; all equal: no colour.
        assert_eq!(rank_values(&[3.0, 3.0, 1.0], Better::Higher), vec![Some(Top), Some(Top), Some(Bottom)]);
        assert_eq!(rank_values(&[2.0, 2.0], Better::Higher), vec![None, None]);
        assert_eq!(rank_values(&[2.0], Better::Higher), vec![None]);
        assert_eq!(rank_values(&[2.0, 1.0], Better::Neither), vec![None, None]);
    }

    #[test]
    fn parses_rocksdb_stall_lines() {
        let text = "** DB Stats **\nUptime(secs): 20.3 total, 0.0 interval\n\
Stalls(count): 2 level0_slowdown, 0 level0_slowdown_with_compaction, 1 level0_numfiles, 3 memtable_slowdown, interval 0 total count\n\
Cumulative stall: 00:01:2.500 H:M:S, 3.1 percent\nInterval stall: 00:00:0.000 H:M:S, 0.0 percent\n";
        let s = parse_rocksdb_stalls(text).unwrap();
        assert_eq!(s, RocksStalls { uptime_s: 20.3, stall_s: 62.5, stalls: 6 });
        assert!(parse_rocksdb_stalls("nothing").is_none());
    }

    #[test]
    fn coefficient_of_variation() {
        assert!(cv(&[10.0, 10.0, 10.0], 3).unwrap().abs() < 1e-12);
        let c = cv(&[90.0, 100.0, 110.0], 3).unwrap();
        assert!((c - 0.1).abs() < 1e-9, "{c}");
        assert!(cv(&[1.0, 2.0], 3).is_none());
    }

    #[test]
    fn full_seconds_drop_the_partial_last_one() {
        let iv = |i| IntervalStats { index: i, ops: 10, p99_us: 1.0, max_us: 2.0, histogram: None };
        let ivs = vec![iv(0), iv(1), iv(2)];
        assert_eq!(full_second_ops(&ivs, 2.4).len(), 2);
        assert_eq!(full_second_ops(&ivs, 3.0).len(), 3);
        assert_eq!(full_second_ops(&ivs, 2.995).len(), 3);
    }

    #[test]
    fn operation_types_have_their_rate_over_the_steps_wall_time() {
        use crate::result::fixtures::{op, step};
        let s = step(
            crate::plan::steps::StepKind::YcsbA,
            4.0,
            vec![op("READ", 600, 2.0, 3, 0, 0), op("UPDATE", 200, 8.0, 0, 0, 0)],
        );
        let types = op_type_figures(&s);
        assert_eq!(
            types.iter().map(|t| (t.op.as_str(), t.ops, t.ops_s)).collect::<Vec<_>>(),
            [("READ", 600, Some(150.0)), ("UPDATE", 200, Some(50.0))]
        );
        assert_eq!(outcomes_text(types[0].outcomes.as_ref()), "3 not found");
        assert_eq!(outcomes_text(types[1].outcomes.as_ref()), "all ok");
        assert_eq!(outcomes_text(None), "-");
        let mut failed = s.clone();
        failed.ops_s = None;
        assert!(op_type_figures(&failed).iter().all(|t| t.ops_s.is_none()));
    }

    #[test]
    fn rows_carry_the_steps_parameters() {
        let run = crate::result::fixtures::realistic_run();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let ycsb_a = s.steps.iter().find(|t| t.key == "ycsb-a").unwrap();
        assert!(ycsb_a.is_mixed());
        assert!(
            ycsb_a.rows[0].parameters.contains(&"request_distribution=default".to_string()),
            "{:?}",
            ycsb_a.rows[0].parameters
        );
        assert!(ycsb_a.rows[0].parameters.contains(&"threads=1".to_string()));
        assert!(!s.steps.iter().find(|t| t.key == "readrandom").unwrap().is_mixed());
        // The run's warnings and every step's, once each.
        assert_eq!(s.runs[0].warnings, run.all_warnings());
    }

    #[test]
    fn labels_are_unique() {
        assert_eq!(run_labels(&["/x/a".into(), "/y/b/result.json".into()]), vec!["a", "b"]);
        assert_eq!(run_labels(&["/x/a".into(), "/y/a".into()]), vec!["1:a", "2:a"]);
    }
}
