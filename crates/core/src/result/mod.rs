//! The result schema: one struct (`RunResult`) from which every output
//! format is rendered (by the report module), and reading result.json back.

/// For the unit tests of this crate and of the crates above it (their
/// dev-dependency on this one turns the feature on).
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub mod crashtest;
pub mod debt;
pub mod internals;
pub mod merge;
pub mod mixgraph;
pub mod repeats;
pub mod scaling;
pub mod slo;
pub mod trace;

use crate::binary::Binary;
use crate::measure::step_metrics::StepMetrics;
use crate::measure::{IntervalStats, LatencySummary, RatePercentiles};
use crate::plan::steps::StepKind;
use crate::plan::{Allocator, Mode, Settings, StepPlan};

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
    /// What may make the run's figures mislead: the environment, the build,
    /// servers. Each step's own warnings are on the step (results written
    /// before that also have them copied here; see `run_warnings`).
    pub warnings: Vec<String>,
    /// With `--repeat N`: each round's configs in the order they ran
    /// (rotated by one per round); `configs` then holds one result per
    /// config and round, in running order, each with its `repeat`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Vec<String>>,
    pub configs: Vec<ConfigResult>,
    /// `rumbench crashtest`: the durability matrix (no benchmark configs then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crashtest: Option<crashtest::CrashTest>,
    /// The data dir's device and the fio baseline the steps' ceilings use
    /// (or why there is none). None in results from before ceilings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::measure::device_baseline::DeviceContext>,
    /// `--shard I/N` or `--start-at`: this run's shard, its schedule and its clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<merge::ShardRun>,
    /// `rumbench merge`: the shards this run was merged from, a row each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<merge::MergeInfo>,
    /// `--repeat auto`: its design, and the rounds it took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<repeats::AdaptiveRepeats>,
    /// `--duet`: the CPUs split between the sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duet: Option<repeats::DuetRun>,
}

impl RunResult {
    /// A run this binary starts now: nothing measured yet.
    pub fn starting(
        binary: &Binary,
        command_line: Vec<String>,
        suite: Option<String>,
        settings: Settings,
        system: Option<Value>,
        warnings: Vec<String>,
    ) -> RunResult {
        RunResult {
            schema: SCHEMA.into(),
            rumbench_version: binary.version.into(),
            git_commit: binary.git_commit.map(String::from),
            build: binary.summary(),
            command_line,
            started_at: now_text(),
            finished_at: None,
            status: Status::Running,
            error: None,
            suite,
            mode: settings.mode,
            settings,
            system,
            warnings,
            rounds: Vec::new(),
            configs: Vec::new(),
            crashtest: None,
            device: None,
            sharding: None,
            merged: None,
            adaptive: None,
            duet: None,
        }
    }

    /// A step warning as shown among the run's: "config step: warning".
    fn labelled(config: &ConfigResult, step: &StepResult, warning: &str) -> String {
        format!("{} {}: {warning}", config.name, step.name)
    }

    /// The run's own warnings, without the copies of step warnings that
    /// older results carried in `warnings` (so a report of an old result
    /// does not show each step warning twice).
    pub fn run_warnings(&self) -> Vec<&str> {
        let copies: std::collections::HashSet<String> = self.step_warnings().collect();
        self.warnings.iter().filter(|w| !copies.contains(*w)).map(String::as_str).collect()
    }

    /// Every step's warnings, each labelled with its config and step.
    pub fn step_warnings(&self) -> impl Iterator<Item = String> + '_ {
        self.configs
            .iter()
            .flat_map(|c| c.steps.iter().flat_map(move |s| s.warnings.iter().map(move |w| Self::labelled(c, s, w))))
    }

    /// Every warning of the run once: the run's own, then each step's.
    pub fn all_warnings(&self) -> Vec<String> {
        self.run_warnings().into_iter().map(String::from).chain(self.step_warnings()).collect()
    }
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
    /// A config sweep (`--sweep`): the swept options and this config's
    /// values; the run's first swept config is the sweep's base.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<(String, String)>,
    /// With `--repeat`: the round (1..=N) of this run of the config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// With `--duet`: the partner it ran beside and its CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duet: Option<repeats::DuetSide>,
}

impl ConfigResult {
    /// This run of the config: its name, with the round when repeated
    /// ("a.r2"), as its data dir and kept logs are named.
    pub fn instance_name(&self) -> String {
        crate::plan::instance_name(&self.name, self.repeat)
    }
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
    /// The whole response-time histogram (`measure::hdr_codec`: HdrHistogram
    /// V2 + DEFLATE, base64, nanoseconds), so that runs merge exactly
    /// (`rumbench merge`) and export to HdrHistogram's tools. None in
    /// results from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

impl OpResult {
    /// Operation type `op` as its threads' merged recordings measured it.
    pub fn measured(op: &str, m: &crate::measure::recorder::MergedOps, outcomes: Option<Outcomes>) -> OpResult {
        OpResult {
            op: op.to_string(),
            ops: m.ops,
            latency: m.latency(),
            intervals: m.intervals.clone(),
            outcomes,
            histogram: (!m.histogram.is_empty()).then(|| crate::measure::hdr_codec::encode(&m.histogram)),
        }
    }
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
    /// The settings this step's kind uses, by their suite-file names
    /// (threads, num, ops, ...): the x-axis of a sweep over steps or runs.
    /// Empty in results written before parameters were recorded.
    #[serde(default)]
    pub parameters: BTreeMap<String, Value>,
    pub started_at: String,
    /// Seconds from the moment all client threads were released to the last
    /// one finishing; None when the step failed or was stopped before any
    /// operation completed (nothing was measured).
    pub wall_s: Option<f64>,
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
    /// The fastest the step could have gone by each resource it used (the
    /// device's reads, writes and syncs, the CPU), its bound and its rate
    /// as a percentage of it. None without a measured rate, and in results
    /// from before ceilings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceilings: Option<crate::measure::ceiling::Ceilings>,
    /// When the clients were released, by the wall clock (what a merge of
    /// shards aligns their per-second series by). None for a step that
    /// runs no clients, and in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StepStart>,
    /// `--profile`: where the step's CPU went (folded stacks in the run
    /// directory, referenced here). None when not profiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::StepProfile>,
    /// A step that wrote: what it left for later steps to write on its
    /// behalf, and its w-amp through that debt (`debt::settle_accounts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_debt: Option<debt::WriteDebt>,
    /// mixgraph: what the model drew (op mix, key ranges, value sizes,
    /// scan lengths) and the arrival rate it was paced at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixgraph: Option<mixgraph::MixgraphStats>,
    /// `--slo`: the search for the highest rate under the latency targets.
    /// The step's other figures are its probe at the rate found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slo: Option<slo::SloSearch>,
    /// The engine's own counters, once a second while the step ran (None:
    /// not sampled; `metrics.missing` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internals: Option<internals::EngineInternals>,
    /// `--trace FILE`: what the step recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<trace::TraceRecording>,
    /// The replay step: the trace it replayed and how faithfully.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<trace::Replay>,
    /// What kind of step it is, recorded as it runs: `step_kind` reads it
    /// (results from before it have only the name to go by).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<StepKind>,
    /// The step this one is a point of, named by its thread count (a
    /// concurrency sweep's `readrandom@t8`, a hot-row grid's cell): its name
    /// without the point ("readrandom", "hotrow@T1"). Recorded as it runs:
    /// `sweep_of` reads it (results from before it have only the name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_of: Option<String>,
    /// `--duet`: how much of the step ran beside its partner's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duet: Option<repeats::StepDuet>,
    /// The step's timed window on the monotonic clock, from the release of
    /// its clients to the end of the last one (the driver's): what its CPU
    /// profile is cut by. Not written: it means nothing outside the process.
    #[serde(skip)]
    pub window: Option<crate::measure::profile::fold::Window>,
}

/// When a step's clients were released, and when the run's schedule
/// (`--start-at`) meant them to be, in seconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepStart {
    pub unix_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_unix_s: Option<f64>,
}

impl StepResult {
    /// A step about to run: its name and settings, started now.
    pub fn new(plan: &StepPlan) -> StepResult {
        StepResult {
            name: plan.name(),
            status: Status::Running,
            error: None,
            settings: plan.settings.clone(),
            parameters: step_parameters(plan),
            started_at: now_text(),
            wall_s: None,
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
            ceilings: None,
            start: None,
            profile: None,
            write_debt: None,
            mixgraph: None,
            slo: None,
            internals: None,
            trace: None,
            replay: None,
            kind: Some(plan.kind),
            sweep_of: plan.sweep_of(),
            duet: None,
            window: None,
        }
    }

    /// The step's kind: as recorded, else from its name, whose kind is what
    /// comes before a sweep point's or a grid cell's "@..." (older results).
    pub fn step_kind(&self) -> Option<StepKind> {
        self.kind.or_else(|| self.name.split(['@', '#']).next()?.parse().ok())
    }

    /// The step this one is a point of (see the field): as recorded, else
    /// (results from before it) its name up to "@t".
    pub fn sweep_of(&self) -> Option<&str> {
        match &self.sweep_of {
            Some(base) => Some(base),
            None => self.name.split_once("@t").map(|(b, _)| b),
        }
    }

    /// One of the engine's statistics recorded at the step's end, by name.
    pub fn engine_stat(&self, key: &str) -> Option<&str> {
        self.engine_stats.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn main_op(&self) -> Option<&OpResult> {
        self.ops_by_type.first()
    }

    /// Whether the step mixes operation types (YCSB A's READ and UPDATE).
    pub fn mixes_op_types(&self) -> bool {
        self.ops_by_type.len() > 1
    }

    /// The latency of all the step's operations: its one type's. None for a
    /// step that mixes types: no one type's latency stands for the step, and
    /// the result keeps a summary per type, not histograms to merge.
    pub fn step_latency(&self) -> Option<&LatencySummary> {
        match self.ops_by_type.as_slice() {
            [only] => Some(&only.latency),
            // The insert benchmark times commits, each with its inserts and
            // deletes: the main type's latency is every commit's.
            [main, ..] if self.step_kind().is_some_and(|k| k.is_ibench()) => Some(&main.latency),
            _ => None,
        }
    }
}

/// The settings a step of `plan.kind` runs with, named as in a suite file.
/// Only those its kind uses: a setting the step ignores would read, on a
/// sweep's x-axis, as a parameter that had no effect.
pub fn step_parameters(plan: &StepPlan) -> BTreeMap<String, Value> {
    use StepKind::*;
    let s = &plan.settings;
    let kind = plan.kind;
    let mut p: BTreeMap<String, Value> = BTreeMap::new();
    let mut set = |key: &str, value: Value| {
        p.insert(key.to_string(), value);
    };
    // A step runs for a count or for a duration, whichever was given.
    let extent: Vec<(&str, Value)> = [("ops", s.ops.map(|n| json!(n))), ("seconds", s.seconds.map(|x| json!(x)))]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    match kind {
        Flush => {}
        WaitForCompaction | Settle => set("compaction_timeout", json!(s.compaction_timeout_s)),
        HotRow | RandomTransaction => {
            let c = &s.contention;
            set("threads", json!(s.threads));
            extent.into_iter().for_each(|(k, v)| set(k, v));
            if kind == HotRow {
                set("tables", json!(c.tables));
                set("hot_rows", json!(c.hot_rows));
            } else {
                set("transaction_sets", json!(c.transaction_sets));
                set("num", json!(s.num));
            }
        }
        _ if kind.is_ycsb() => {
            let y = &s.ycsb;
            set("threads", json!(s.threads));
            set("mode", json!(s.mode));
            set("records", json!(y.records));
            set("field_count", json!(y.field_count));
            set("field_length", json!(y.field_length));
            set("insert_order", json!(if y.ordered_inserts { "ordered" } else { "hashed" }));
            // ycsb-load inserts `records` records; the other steps take --ops or --seconds.
            if kind != YcsbLoad {
                extent.into_iter().for_each(|(k, v)| set(k, v));
                // Unset: the workload's own (latest for D, zipfian for the others).
                set(
                    "request_distribution",
                    json!(y.request_distribution.map(|d| d.to_string()).unwrap_or_else(|| "default".into())),
                );
            }
            // A, B and F write fields (updates, read-modify-writes); E scans.
            if matches!(kind, YcsbA | YcsbB | YcsbF) {
                set("write_all_fields", json!(y.write_all_fields));
            }
            if kind == YcsbE {
                set("max_scan_length", json!(y.max_scan_length));
            }
        }
        Sysbench(m) => {
            let sb = &s.sysbench;
            set("threads", json!(s.threads));
            extent.into_iter().for_each(|(k, v)| set(k, v));
            set("tables", json!(sb.tables));
            set("table_size", json!(if m == crate::plan::sysbench::Micro::UpdateOne { 1 } else { sb.table_size }));
            if m.uses_range() {
                set("range_size", json!(sb.range(m)));
            }
            set("lua", json!(m.lua().replace("RANGE", &sb.range(m).to_string())));
        }
        _ if kind.is_ibench() => {
            let ib = &s.ibench;
            set("threads", json!(s.threads));
            set("mode", json!(s.mode));
            set("one_table", json!(ib.one_table));
            match kind {
                LoadI0 => set("rows", json!(ib.rows)),
                CreateIndexes => {}
                LoadI1 | LoadI2 => {
                    set("insert_rows", json!(ib.insert_rows));
                    set("deletes", json!(ib.deletes));
                }
                // The query steps (their writers' rate is in the step's name).
                _ => {
                    set("query_seconds", json!(ib.query_seconds));
                    set("deletes", json!(ib.deletes));
                }
            }
        }
        // The trace gives the calls, their keys and sizes, and (by default) the threads.
        Replay => {
            if let Some(r) = &s.replay {
                set("replay", json!(r.path.display().to_string()));
                set("replay_speed", json!(r.speed.map_or("max".to_string(), |v| v.to_string())));
                if let Some(t) = r.threads {
                    set("threads", json!(t));
                }
            }
            if let Some(sec) = s.seconds {
                set("seconds", json!(sec));
            }
            set("mode", json!(s.mode));
        }
        // Value sizes and the key distribution are the model's.
        MixGraph => {
            set("threads", json!(s.threads));
            set("mode", json!(s.mode));
            set("num", json!(s.num));
            extent.into_iter().for_each(|(k, v)| set(k, v));
            set("key_size", json!(s.key_size));
            set("key_order", json!(s.key_order.to_string()));
            set("compression_ratio", json!(s.compression_ratio));
            set("mixgraph", json!(s.mixgraph.to_text()));
            if let Some(r) = s.rate {
                set("rate", json!(r));
            }
            if !s.slo.is_empty() {
                set("slo", json!(crate::plan::slo::SloTarget::list_text(&s.slo)));
            }
        }
        // The db_bench-style client steps.
        _ => {
            let with_writer = matches!(kind, ReadWhileWriting | FwdRangeWhileWriting);
            set("threads", json!(s.threads));
            set("mode", json!(s.mode));
            set("num", json!(s.num));
            extent.into_iter().for_each(|(k, v)| set(k, v));
            set("key_size", json!(s.key_size));
            set("value_size", json!(s.value_size));
            // The fill order of `fill`, and for every step whether keys are hashed.
            set("key_order", json!(s.key_order.to_string()));
            if kind.writes() || with_writer {
                set("compression_ratio", json!(s.compression_ratio));
            }
            if matches!(kind, Fill | FillSeq | FillRandom | FillUniqueRandom | Overwrite) {
                set("batch_size", json!(s.batch_size));
            }
            // Fills follow their key order and readseq reads everything: no key distribution.
            if !kind.loads() && kind != ReadSeq {
                set("distribution", json!(s.distribution.to_string()));
            }
            if matches!(kind, FwdRange | RevRange | FwdRangeWhileWriting) {
                set("range_len", json!(s.range_len));
            }
            if kind == MultiReadRandom {
                set("multiget_batch", json!(s.multiget_batch));
            }
            if let Some(r) = s.rate {
                set("rate", json!(r));
            }
            if !s.slo.is_empty() {
                set("slo", json!(crate::plan::slo::SloTarget::list_text(&s.slo)));
            }
            if with_writer {
                set("writer_rate", s.writer_rate.ops_per_s.map(|r| json!(r)).unwrap_or_else(|| json!("unlimited")));
            }
        }
    }
    p
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

/// The result file of run directory `dir`: result.json, or an archived
/// run's gzipped result.json.gz (bench/results keeps large results so).
pub fn file_in(dir: &Path) -> Option<std::path::PathBuf> {
    ["result.json", "result.json.gz"].iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// A run directory's result, from result.json or result.json.gz.
pub fn load_dir(dir: &Path) -> Result<RunResult> {
    let path = file_in(dir).unwrap_or_else(|| dir.join("result.json"));
    if path.extension().is_some_and(|e| e == "gz") {
        let file = std::fs::File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
        return serde_json::from_reader(reader)
            .with_context(|| format!("{} is not a gzipped rumbench result", path.display()));
    }
    load(&path)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An archived run's gzipped result loads as its result.json did.
    #[test]
    fn a_run_directory_loads_from_result_json_or_its_gzip() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let run = RunResult::starting(
            &Binary::UNRECORDED,
            vec!["rumbench".into(), "run".into()],
            None,
            Settings::default(),
            None,
            Vec::new(),
        );
        let json = serde_json::to_vec(&run).unwrap();
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(dir.path().join("result.json.gz")).unwrap(),
            flate2::Compression::best(),
        );
        gz.write_all(&json).unwrap();
        gz.finish().unwrap();
        assert_eq!(file_in(dir.path()), Some(dir.path().join("result.json.gz")));
        assert_eq!(load_dir(dir.path()).unwrap().command_line, run.command_line);
        // result.json first, when both are there.
        std::fs::write(dir.path().join("result.json"), &json).unwrap();
        assert_eq!(file_in(dir.path()), Some(dir.path().join("result.json")));
        assert!(file_in(&dir.path().join("none")).is_none());
    }

    /// A step's kind is recorded as it runs; an older result's is read
    /// from its name (a grid cell's, a sweep point's, a repeat's).
    #[test]
    fn a_steps_kind_is_recorded_or_read_from_its_name() {
        let mut s = StepResult::new(&StepPlan { kind: StepKind::HotRow, settings: Settings::default(), sweep: true });
        assert_eq!(s.step_kind(), Some(StepKind::HotRow));
        assert!(serde_json::to_string(&s).unwrap().contains("\"kind\":\"hotrow\""));
        s.kind = None;
        for (name, kind) in
            [("hotrow@T1@t4", Some(StepKind::HotRow)), ("readrandom#2", Some(StepKind::ReadRandom)), ("x", None)]
        {
            s.name = name.into();
            assert_eq!(s.step_kind(), kind, "{name}");
        }
    }

    /// A point of a sweep says which step it is a point of, by a field,
    /// not its name; older results, without the field, by their name.
    #[test]
    fn a_sweep_point_names_its_step_by_a_field() {
        let mut settings = Settings { threads: 8, ..Settings::default() };
        let point = StepResult::new(&StepPlan { kind: StepKind::ReadRandom, settings: settings.clone(), sweep: true });
        assert_eq!((point.name.as_str(), point.sweep_of()), ("readrandom@t8", Some("readrandom")));
        settings.contention.tables = 2;
        let cell = StepResult::new(&StepPlan { kind: StepKind::HotRow, settings: settings.clone(), sweep: false });
        assert_eq!((cell.name.as_str(), cell.sweep_of()), ("hotrow@T2@t8", Some("hotrow@T2")));
        let plain = StepResult::new(&StepPlan { kind: StepKind::ReadRandom, settings, sweep: false });
        assert_eq!((plain.name.as_str(), plain.sweep_of()), ("readrandom", None));
        let mut older = point.clone();
        older.sweep_of = None;
        assert_eq!(older.sweep_of(), Some("readrandom"));
        let json = serde_json::to_string(&point).unwrap();
        assert!(json.contains("\"sweep_of\":\"readrandom\""), "{json}");
    }

    #[test]
    fn a_mixed_step_has_no_latency_of_its_own() {
        use super::fixtures::{op, step};
        let single = step(StepKind::ReadRandom, 1.0, vec![op("get", 100, 2.0, 0, 0, 0)]);
        assert_eq!(single.step_latency().map(|l| l.p50_us), Some(2.0));
        let ycsb_a = step(StepKind::YcsbA, 1.0, vec![op("READ", 60, 2.0, 0, 0, 0), op("UPDATE", 40, 8.0, 0, 0, 0)]);
        assert!(ycsb_a.mixes_op_types() && ycsb_a.step_latency().is_none());
        // The insert benchmark's latency is per commit, inserts and deletes together.
        let l_i1 =
            step(StepKind::LoadI1, 1.0, vec![op("insert", 60, 300.0, 0, 0, 0), op("delete", 60, 300.0, 0, 0, 0)]);
        assert_eq!(l_i1.step_latency().map(|l| l.p50_us), Some(300.0));
    }

    fn parameters_of(kind: StepKind, settings: Settings) -> BTreeMap<String, Value> {
        step_parameters(&StepPlan { kind, settings, sweep: false })
    }

    fn keys(p: &BTreeMap<String, Value>) -> Vec<&str> {
        p.keys().map(String::as_str).collect()
    }

    #[test]
    fn parameters_are_the_settings_the_step_kind_uses() {
        let mut s = Settings { threads: 4, ops: None, seconds: Some(30.0), ..Settings::default() };
        let rww = parameters_of(StepKind::ReadWhileWriting, s.clone());
        assert_eq!(
            keys(&rww),
            [
                "compression_ratio",
                "distribution",
                "key_order",
                "key_size",
                "mode",
                "num",
                "seconds",
                "threads",
                "value_size",
                "writer_rate"
            ]
        );
        assert_eq!(rww["threads"], json!(4));
        assert_eq!(rww["seconds"], json!(30.0));
        assert_eq!(rww["distribution"], json!("uniform"));
        assert_eq!(rww["mode"], json!("cached"));
        // 2 MB/s of 116-byte entries.
        assert!(
            (rww["writer_rate"].as_f64().unwrap() - 2.0 * 1048576.0 / 116.0).abs() < 1e-6,
            "{}",
            rww["writer_rate"]
        );
        s.writer_rate.ops_per_s = None;
        assert_eq!(parameters_of(StepKind::ReadWhileWriting, s.clone())["writer_rate"], json!("unlimited"));

        let fill = parameters_of(StepKind::FillSeq, Settings::default());
        assert_eq!(fill["batch_size"], json!(1));
        assert_eq!(fill["ops"], json!(1_000_000));
        assert!(
            !fill.contains_key("distribution") && !fill.contains_key("writer_rate") && !fill.contains_key("seconds"),
            "{fill:?}"
        );
        assert_eq!(parameters_of(StepKind::FwdRange, Settings::default())["range_len"], json!(10));
        assert_eq!(parameters_of(StepKind::MultiReadRandom, Settings::default())["multiget_batch"], json!(10));
        assert!(!parameters_of(StepKind::ReadRandom, Settings::default()).contains_key("batch_size"));
        assert!(parameters_of(StepKind::Flush, Settings::default()).is_empty());
        assert_eq!(keys(&parameters_of(StepKind::WaitForCompaction, Settings::default())), ["compaction_timeout"]);
    }

    #[test]
    fn ycsb_and_insert_benchmark_steps_record_their_own_settings() {
        let load = parameters_of(StepKind::YcsbLoad, Settings::default());
        assert_eq!(keys(&load), ["field_count", "field_length", "insert_order", "mode", "records", "threads"]);
        let mut s = Settings::default();
        s.ycsb.request_distribution = Some("zipfian:0.5".parse().unwrap());
        let e = parameters_of(StepKind::YcsbE, s);
        assert_eq!(e["request_distribution"], json!("zipfian:0.5"));
        assert_eq!(e["max_scan_length"], json!(100));
        assert_eq!(e["ops"], json!(1_000_000));
        assert!(
            !e.contains_key("write_all_fields") && !e.contains_key("num") && !e.contains_key("value_size"),
            "{e:?}"
        );
        let a = parameters_of(StepKind::YcsbA, Settings::default());
        assert_eq!(a["request_distribution"], json!("default"));
        assert_eq!(a["write_all_fields"], json!(false));

        let i1 = parameters_of(StepKind::LoadI1, Settings::default());
        assert_eq!(keys(&i1), ["deletes", "insert_rows", "mode", "one_table", "threads"]);
        assert_eq!(i1["insert_rows"], json!(100_000));
        let q = parameters_of(StepKind::Qp500, Settings::default());
        assert_eq!(q["query_seconds"], json!(60.0));
        assert_eq!(parameters_of(StepKind::LoadI0, Settings::default())["rows"], json!(1_000_000));
    }

    #[test]
    fn a_step_result_without_parameters_still_loads() {
        let step =
            StepResult::new(&StepPlan { kind: StepKind::ReadRandom, settings: Settings::default(), sweep: false });
        assert!(!step.parameters.is_empty());
        let mut json = serde_json::to_value(&step).unwrap();
        json.as_object_mut().unwrap().remove("parameters");
        let old: StepResult = serde_json::from_value(json).unwrap();
        assert!(old.parameters.is_empty());
        let round: StepResult = serde_json::from_str(&serde_json::to_string(&step).unwrap()).unwrap();
        assert_eq!(round.parameters, step.parameters);
    }

    #[test]
    fn every_warning_is_listed_once_even_from_results_that_copied_step_warnings() {
        let mut run = fixtures::realistic_run();
        let steps: Vec<String> = run.step_warnings().collect();
        assert!(
            steps.iter().any(|w| w.starts_with("lmdb-nosync-writemap fillrandom: not durable as run")),
            "{steps:?}"
        );
        assert_eq!(run.run_warnings(), ["turbo/boost is on: results vary with temperature and load"]);
        let all = run.all_warnings();
        assert_eq!(all.len(), 1 + steps.len());
        // Results written before step warnings stayed on their steps have copies in run.warnings.
        run.warnings.extend(steps.iter().cloned());
        assert_eq!(run.run_warnings(), ["turbo/boost is on: results vary with temperature and load"]);
        assert_eq!(run.all_warnings(), all);
    }
}
