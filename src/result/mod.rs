//! The result schema: one struct (`RunResult`) from which every output
//! format is rendered (by the report module), and reading result.json back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub mod scaling;

use crate::settings::{Allocator, Mode, Settings};
use crate::measure::step_metrics::StepMetrics;
use crate::measure::{IntervalStats, LatencySummary, RatePercentiles};

/// Version of the result.json layout; bump on incompatible changes.
pub const SCHEMA: &str = "rumbench.result/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Running,
    Completed,
    Interrupted,
    Failed,
    /// A config the run never started (it was interrupted before it); the error says why.
    #[serde(rename = "not_run")]
    NotRun,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    pub schema: String,
    pub rumbench_version: String,
    pub git_commit: Option<String>,
    /// How rumbench (and the C/C++ built into it) was compiled: profile,
    /// optimisation, target CPU, compiler.
    #[serde(default)]
    pub build: Vec<(String, String)>,
    pub command_line: Vec<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub status: Status,
    /// One-line cause when the run failed or was interrupted.
    pub error: Option<String>,
    pub suite: Option<String>,
    pub mode: Mode,
    /// Run-wide settings (each step also records its own).
    pub settings: Settings,
    /// The environment: CPU, kernel, memory, the data dir's device, SMART wear, allocator.
    pub system: Option<serde_json::Value>,
    /// Everything that may make a figure mislead, environment and steps.
    pub warnings: Vec<String>,
    pub configs: Vec<ConfigResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfigResult {
    pub name: String,
    pub engine: String,
    pub engine_version: Option<String>,
    /// The allocator asked for, and the one the process really had.
    pub allocator: Allocator,
    pub allocator_in_use: Option<String>,
    /// The engine's options as given (validated, defaults filled in).
    pub options: BTreeMap<String, String>,
    /// Every option as the engine reports it was opened with.
    pub effective_options: Vec<(String, String)>,
    /// What ran: version, and how the engine or server was built (assertions,
    /// optimisation, target CPU, compiler, bundled or system library).
    #[serde(default)]
    pub provenance: Vec<(String, String)>,
    pub db_dir: PathBuf,
    /// Server engines: the config fragment the server ran with (postgresql.conf / my.cnf lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_config: Vec<String>,
    pub status: Status,
    pub error: Option<String>,
    pub steps: Vec<StepResult>,
    /// Engine statistics when the config finished.
    pub engine_stats: Vec<(String, String)>,
    /// What rumbench did outside the data dir (a target's tables it created and dropped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Concurrency sweeps (`--threads 1,2,4,...`): points and USL fit per step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scaling: Vec<scaling::Scaling>,
}

/// Latency and interval series of one operation type in a step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpResult {
    /// get, put, delete, multiget, seek, next, write_batch, flush, wait.
    pub op: String,
    /// Operations (keys for batched calls).
    pub ops: u64,
    /// Response time per call: per operation, or per batch for batched calls.
    pub latency: LatencySummary,
    /// 1-second intervals: ops, p99 and max response time in each.
    pub intervals: Vec<IntervalStats>,
    /// How the operations ended (None in results from before outcomes were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcomes: Option<Outcomes>,
}

/// How the operations of one type ended: ok + not_found + error = ops;
/// `conflict` counts attempts that conflicted (lock wait, deadlock,
/// serialization failure) and were retried, so they are not in ops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcomes {
    pub ok: u64,
    pub not_found: u64,
    pub conflict: u64,
    pub error: u64,
}

impl Outcomes {
    pub fn add(&mut self, o: &Outcomes) {
        self.ok += o.ok;
        self.not_found += o.not_found;
        self.conflict += o.conflict;
        self.error += o.error;
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReadCounts {
    pub found: u64,
    pub not_found: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WriterResult {
    /// Target rate; None when the writer ran unpaced (as fast as it could).
    pub target_ops_s: Option<f64>,
    pub achieved_ops_s: f64,
    pub ops: u64,
    /// Achieved rate fell more than 5% short of the target.
    pub missed_target: bool,
    /// Response time measured from each write's intended start (includes
    /// queueing behind stalls), with its interval series.
    pub latency: OpResult,
    /// Service time: from the actual start of each write to its end.
    pub service_time: LatencySummary,
    /// Insert benchmark: rows the writers deleted from the tail (in the
    /// inserts' commits, so with the same response times), per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletes: Option<OpResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepResult {
    pub name: String,
    pub status: Status,
    pub error: Option<String>,
    pub settings: Settings,
    pub started_at: String,
    /// Seconds from the moment all client threads were released to the last one finishing.
    pub wall_s: f64,
    /// Operations of the step's clients (the background writer's are separate).
    pub ops: u64,
    /// None when the step failed: its partial figures are not a rate.
    pub ops_s: Option<f64>,
    /// Logical MB/s (key + value bytes of the clients' operations, 2^20 bytes).
    pub mb_s: Option<f64>,
    /// Per operation type; the first is the step's main operation.
    pub ops_by_type: Vec<OpResult>,
    pub reads: Option<ReadCounts>,
    pub writer: Option<WriterResult>,
    /// The engine's own write-amplification over this step, where it has one.
    pub engine_write_amp: Option<f64>,
    /// The engine's own write-amplification since the database was opened.
    pub engine_write_amp_cumulative: Option<f64>,
    /// Spread of the main operation's per-second rates (p50/p99 over full seconds).
    #[serde(default)]
    pub rates: Option<RatePercentiles>,
    /// Storage IO, amplification, CPU, memory and syncs of the step.
    pub metrics: StepMetrics,
    /// Insert-benchmark figures: rows in the tables after the step, rows
    /// inserted/deleted, rows the queries returned, the settle phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ibench: Option<IbenchStepInfo>,
    /// Engine statistics right after the step.
    pub engine_stats: Vec<(String, String)>,
    /// waitforcompaction: the timeout came before the background work was done.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// Observations a reader needs (missing keys, ...).
    pub notes: Vec<String>,
    /// What may make this step's figures mislead (writer missed its rate,
    /// engine not durable as run, not really IO-bound, too short, ...).
    pub warnings: Vec<String>,
}

impl StepResult {
    /// A step about to run: its name and settings, started now.
    pub fn new(plan: &crate::settings::StepPlan) -> StepResult {
        StepResult {
            name: plan.name(),
            status: Status::Running,
            error: None,
            settings: plan.settings.clone(),
            started_at: now_text(),
            wall_s: 0.0,
            ops: 0,
            ops_s: None,
            mb_s: None,
            ops_by_type: Vec::new(),
            reads: None,
            writer: None,
            engine_write_amp: None,
            engine_write_amp_cumulative: None,
            rates: None,
            metrics: Default::default(),
            ibench: None,
            engine_stats: Vec::new(),
            timed_out: false,
            notes: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub fn main_op(&self) -> Option<&OpResult> {
        self.ops_by_type.first()
    }
}

/// The local time now, as results record it.
pub fn now_text() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

/// Read a result.json back.
pub fn load(path: &Path) -> Result<RunResult> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a rumbench result", path.display()))
}

/// What the result of an insert-benchmark step adds to the common figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IbenchStepInfo {
    /// Rows per commit of the step's inserts (the writers' in q steps).
    pub rows_per_commit: Option<usize>,
    pub rows_inserted: u64,
    pub rows_deleted: u64,
    /// Queries and the rows they returned (q steps).
    pub queries: u64,
    pub rows_returned: u64,
    /// Rows each table holds after the step, counted (SELECT count(*), or a
    /// scan of the primary key space), table pi1 first.
    pub table_rows: Vec<u64>,
    /// Rows the tables should hold, from the ids inserted and deleted so far.
    pub expected_rows: u64,
    /// Whether the secondary indexes exist after the step.
    pub indexed: bool,
    /// l.i2: seconds the settle phase took (after the inserts; not part of
    /// the insert rate, but inside the step's CPU and IO figures).
    pub settle_s: Option<f64>,
    /// l.i2: what settling did.
    pub settle: Vec<String>,
    /// q steps: writer target per client, rows/s.
    pub writer_target_per_client: Option<f64>,
    /// q steps: the slowest writer's achieved rate, rows/s.
    pub writer_min_achieved: Option<f64>,
}
