//! The settings flags of `run` (also a suite file's `[settings]` and
//! `[[step]]` tables: one struct, so the two can never drift), their
//! limits, and their resolution into a step's `Settings`.
//! Precedence: built-in defaults < suite [settings] < suite [[step]] < flags
//! (docs/settings.md has the table; a step's length, ops or seconds, is one setting).

use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::Deserialize;

use crate::plan::{
    Allocator, ContentionSettings, IbenchSettings, Settings, WriterRate, YcsbSettings, DEFAULT_WRITER_RATE,
};

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
    /// Puts per write batch in fill/overwrite steps (1 = single puts), and
    /// documents per insertMany in ycsb-load on MongoDB [default: 1]
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Keys per batch in multireadrandom [default: 10]
    #[arg(long)]
    pub multiget_batch: Option<usize>,
    /// Background writer rate of *whilewriting steps: ops/s ("20000"), bytes/s
    /// of key+value ("2MB", "512KB"), or "unlimited" [default: 2MB]
    #[arg(long)]
    pub writer_rate: Option<String>,
    /// Open loop: the clients' operations per second over all of them,
    /// paced, each operation's latency from its intended start (YCSB's
    /// -target, without coordinated omission). Given for the run, it paces
    /// the steps that read or change loaded data, not the fills (a fill's
    /// own [[step]] rate paces it) [default: closed loop, as fast as they go]
    #[arg(long)]
    pub rate: Option<f64>,
    /// Throughput under latency targets: search for the highest open-loop
    /// rate at which each percentile stays under its limit ("p99=2ms",
    /// "p99=2ms,p999=10ms"), by probes of --seconds each (10 s when not
    /// given); applies to the steps --rate applies to
    #[arg(long)]
    pub slo: Option<String>,
    /// The SLO search stops when its interval on the rate is narrower than
    /// this fraction of the rate ("0.05" or "5%") [default: 5%]
    #[arg(long)]
    pub slo_width: Option<String>,
    /// Record every call of the steps' clients into FILE: type, key, value
    /// size, thread and intended start (rumbench's trace format, docs/replay.md);
    /// with several steps or configs, one file each named after FILE
    /// (t.rtrace -> t.<config>.<n>-<step>.rtrace). Refused if the file exists
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The trace the replay step replays: one rumbench wrote (--trace), or
    /// RocksDB's own (DB::StartTrace, db_bench --trace_file)
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// The replay's timing: 1 the recorded one (open loop), 2 or 0.5 scaled,
    /// max as fast as possible [default: 1]
    #[arg(long, value_name = "FACTOR|max")]
    pub replay_speed: Option<String>,
    /// Upper bound in seconds on waitforcompaction and settle [default: 600]
    #[arg(long)]
    pub compaction_timeout: Option<f64>,
    /// Add a settle step at the end of every config (flush, then wait for
    /// background work), measured: the write debt the last write steps left
    /// is paid and counted in their w-amp through the debt [default: off]
    #[arg(long, num_args = 0..=1, default_missing_value = "true")]
    pub settle: Option<bool>,
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
    /// The engine's own counters sampled once a second while a step runs
    /// (RocksDB: pending compaction bytes, L0 files, memtable bytes, stall
    /// time, running flushes and compactions), into intervals.csv and the
    /// report: on or off [default: on]
    #[arg(long)]
    pub internals: Option<String>,
    /// A CPU profile of each step's timed window (perf, cpu-clock): folded
    /// stacks in the run directory, flame graphs and top functions in the report
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub profile: Option<bool>,
    /// Samples per second of each thread's CPU for --profile [default: 99]
    #[arg(long)]
    pub profile_hz: Option<u32>,
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
    /// sysbench: tables sbtest1..sbtestN (sysbench's --tables) [default: 1]
    #[arg(long)]
    pub tables: Option<u32>,
    /// sysbench: rows per table, as sysbench's prepare loads them (--table-size) [default: 10000]
    #[arg(long)]
    pub table_size: Option<u64>,
    /// sysbench: the range of range queries and the points of IN lists
    /// (--range-size and --random-points), for every sysbench step; a step
    /// named NAME_range=N has its own [default: all_small.sh's, per step]
    #[arg(long)]
    pub range_size: Option<u64>,
    /// mixgraph: db_bench's parameters as KEY=VALUE,... under db_bench's names
    /// (mix_get_ratio, key_dist_a, keyrange_num, value_k, sine_mix_rate, ...),
    /// and preset=all_random, all_dist or prefix_dist for the paper's sets;
    /// a suite's layers add to each other [default: db_bench's defaults]
    #[arg(long)]
    pub mixgraph: Option<String>,
}

macro_rules! overlay_fields {
    ($dst:expr, $src:expr, $($field:ident),*) => {
        $( if $src.$field.is_some() { $dst.$field = $src.$field.clone(); } )*
    };
}

impl SettingsArgs {
    /// Fields of `other` that are set replace ours. A step's length is one
    /// choice, a count of operations (`ops`) or a duration (`seconds`): a
    /// layer that gives either replaces what the layers under it chose (a
    /// step's `ops = 3000` over the suite's `seconds`, a flag `--ops` over
    /// both). One layer that gives both runs for the duration, as db_bench's
    /// --duration over its --num.
    pub fn overlay(&mut self, other: &SettingsArgs) {
        if other.ops.is_some() || other.seconds.is_some() {
            self.ops = None;
            self.seconds = None;
        }
        // mixgraph's settings add up: a step's `mix_put_ratio=0.5` over the
        // suite's `preset=prefix_dist` keeps the preset (a later key wins).
        let mixgraph = match (&self.mixgraph, &other.mixgraph) {
            (Some(under), Some(over)) => Some(format!("{under},{over}")),
            (under, over) => over.clone().or_else(|| under.clone()),
        };
        overlay_fields!(
            self,
            other,
            steps,
            num,
            ops,
            seconds,
            threads,
            key_size,
            value_size,
            compression_ratio,
            key_order,
            distribution,
            seed,
            range_len,
            batch_size,
            multiget_batch,
            writer_rate,
            rate,
            slo,
            slo_width,
            trace,
            replay,
            replay_speed,
            compaction_timeout,
            settle,
            mode,
            allocator,
            metrics,
            internals,
            profile,
            profile_hz,
            rows,
            insert_rows,
            deletes,
            query_seconds,
            one_table,
            records,
            field_count,
            field_length,
            request_distribution,
            insert_order,
            write_all_fields,
            max_scan_length,
            hot_tables,
            hot_rows,
            transaction_sets,
            tables,
            table_size,
            range_size
        );
        self.mixgraph = mixgraph;
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
            .map(|p| {
                p.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("invalid thread count '{}' in '{s}' (expected N or N,N,...)", p.trim()))
            })
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
        match Given::deserialize(d)
            .map_err(|_| D::Error::custom("threads must be a count, a list of counts or \"1,2,4\""))?
        {
            Given::One(n) => ThreadCounts::new(vec![n]),
            Given::Many(v) => ThreadCounts::new(v),
            Given::Text(t) => t.parse(),
        }
        .map_err(D::Error::custom)
    }
}

/// A setting given as text, parsed (None when not given).
pub(super) fn parse<T: std::str::FromStr<Err = String>>(text: &Option<String>) -> Result<Option<T>> {
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
pub(super) fn check_range<T: PartialOrd + std::fmt::Display>(
    flag: &str,
    value: T,
    range: std::ops::RangeInclusive<T>,
    why: &str,
) -> Result<()> {
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
pub(super) fn check_seconds(flag: &str, value: f64) -> Result<()> {
    check_range(flag, value, limits::MIN_SECONDS..=limits::MAX_SECONDS, " (a week)")
}

/// A batch of `count` entries of `entry_bytes` each: at most MAX_BATCH entries and MAX_BATCH_BYTES.
pub(super) fn check_batch(flag: &str, count: usize, entry_bytes: usize) -> Result<()> {
    check_range(flag, count, 1..=limits::MAX_BATCH, "")?;
    let bytes = count as u64 * entry_bytes as u64;
    if bytes > limits::MAX_BATCH_BYTES {
        bail!(
            "{flag} {count} of {entry_bytes}-byte entries is {bytes} bytes per batch; at most {} (1 GiB)",
            limits::MAX_BATCH_BYTES
        );
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
        rate: a.rate,
        slo: match &a.slo {
            None => Vec::new(),
            Some(text) => crate::plan::slo::SloTarget::parse_list(text).map_err(anyhow::Error::msg)?,
        },
        slo_width: match a.slo_width.as_deref() {
            None => d.slo_width,
            Some(text) => {
                let t = text.trim();
                let v = match t.strip_suffix('%') {
                    Some(pct) => pct.trim().parse::<f64>().map(|x| x / 100.0),
                    None => t.parse::<f64>(),
                };
                v.ok().filter(|w| (0.001..=0.5).contains(w)).ok_or_else(|| {
                    anyhow::anyhow!("--slo-width must be between 0.1% and 50% (0.001 to 0.5), got '{t}'")
                })?
            }
        },
        compaction_timeout_s: a.compaction_timeout.unwrap_or(d.compaction_timeout_s),
        mode: parse(&a.mode)?.unwrap_or(d.mode),
        metrics: match a.metrics.as_deref() {
            None => d.metrics,
            Some("on" | "true") => true,
            Some("off" | "false") => false,
            Some(other) => bail!("invalid --metrics '{other}' (valid: on, off)"),
        },
        internals: match a.internals.as_deref() {
            None => d.internals,
            Some("on" | "true") => true,
            Some("off" | "false") => false,
            Some(other) => bail!("invalid --internals '{other}' (valid: on, off)"),
        },
        profile_hz: match (a.profile, a.profile_hz) {
            (Some(true), hz) => Some(hz.unwrap_or(crate::measure::profile::DEFAULT_HZ)),
            (None, Some(_)) => bail!(
                "--profile-hz without --profile: give --profile too (or profile = true in the suite's [settings])"
            ),
            _ => None,
        },
        ibench: resolve_ibench(a, num)?,
        ycsb: resolve_ycsb(a, num)?,
        contention: resolve_contention(a)?,
        sysbench: resolve_sysbench(a)?,
        mixgraph: match &a.mixgraph {
            None => Default::default(),
            Some(text) => {
                let p = crate::datagen::mixgraph::MixgraphParams::parse(text).map_err(anyhow::Error::msg)?;
                p.check(num).map_err(anyhow::Error::msg)?;
                p
            }
        },
        shard: None,
        trace: a.trace.clone().map(|path| crate::plan::trace::TraceTarget { path, per_step: false }),
        replay: match &a.replay {
            None => {
                if a.replay_speed.is_some() {
                    bail!("--replay-speed without --replay: give the trace to replay (or run `rumbench replay FILE`)");
                }
                None
            }
            Some(path) => Some(crate::plan::trace::ReplayPlan {
                path: path.clone(),
                speed: crate::plan::trace::ReplayPlan::parse_speed(a.replay_speed.as_deref().unwrap_or("1"))
                    .map_err(anyhow::Error::msg)?,
                threads: a.threads.as_ref().map(|t| t.0[0]),
            }),
        },
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
    if let Some(rate) = s.rate {
        // Below one operation a second there is nothing to pace; above a
        // billion no clock here can.
        check_range("--rate", rate, 1.0..=1e9, " operations per second")?;
    }
    if let Some(hz) = s.profile_hz {
        // perf's own ceiling is kernel.perf_event_max_sample_rate (often 100000); a profile under 1 Hz says nothing.
        check_range("--profile-hz", hz, 1..=10_000, " (the cost of sampling grows with the rate)")?;
    }
    Ok(s)
}

/// The slowest background writer: a write a second. Slower, its writes are
/// too few to measure, and one could be due only long after the step ended.
pub const MIN_WRITER_OPS_PER_S: f64 = 1.0;

pub(super) fn check_writer_rate(s: &Settings, text: &str) -> Result<()> {
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

fn resolve_sysbench(a: &SettingsArgs) -> Result<crate::plan::sysbench::SysbenchSettings> {
    let d = crate::plan::sysbench::SysbenchSettings::default();
    let s = crate::plan::sysbench::SysbenchSettings {
        tables: a.tables.unwrap_or(d.tables),
        table_size: a.table_size.unwrap_or(d.table_size),
        range_size: a.range_size,
    };
    // sysbench's ids are SQL INTEGERs.
    check_range("--tables", s.tables as u64, 1..=1024, "")?;
    check_range("--table-size", s.table_size, 1..=i32::MAX as u64, "")?;
    if let Some(r) = s.range_size {
        check_range("--range-size", r, 1..=1_000_000, "")?;
    }
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
        request_distribution: a
            .request_distribution
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(anyhow::Error::msg)?,
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
        bail!(
            "--field-count {} x --field-length {} is {record} bytes per record; at most {} (64 MiB)",
            y.field_count,
            y.field_length,
            limits::MAX_VALUE_SIZE
        );
    }
    Ok(y)
}
