//! Command-line interface.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::driver::progress::ProgressMode;
use crate::planner::SettingsArgs;

#[derive(Parser, Debug)]
#[command(
    name = "rumbench",
    version,
    about = "One fast client that runs the same storage-engine benchmarks against many engines",
    long_about = "rumbench runs db_bench-style steps against storage engines with identical, seeded key \
streams and reports throughput, latency percentiles and 1-second interval series. Results go to a run \
directory (result.json, intervals.csv, summary.txt) that is updated after every step."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process; boxing the run arguments buys nothing")]
pub enum Command {
    /// Run benchmark steps against one or more engines
    #[command(
        after_help = "Examples:\n  rumbench run --engine rocksdb --steps fillrandom,readrandom --num 1000000\n  \
rumbench run --engine rocksdb,lmdb,sqlite --steps fillseq,readrandom,fwdrange --seconds 10 --threads 2\n  \
rumbench run --engine rocksdb -o compaction_style=universal -o block_cache_size=1G\n  \
rumbench run --engine rocksdb --steps fillrandom,readrandom --sweep rocksdb.max_subcompactions=1,4\n  \
rumbench run --config suite.toml --output-dir results/nightly\n\nList steps with `rumbench steps`, engines and their options with `rumbench engines`."
    )]
    Run(RunArgs),
    /// Replay a trace on engines: rumbench's own (`run --trace FILE`) or
    /// RocksDB's (DB::StartTrace, db_bench --trace_file); `run --steps
    /// replay --replay FILE` with every run flag
    #[command(
        after_help = "Examples:\n  rumbench run -e rocksdb -s fillseq,readrandom --trace t.rtrace   (records t.rocksdb.1-fillseq.rtrace, ...)\n  \
rumbench replay t.rocksdb.2-readrandom.rtrace -e lmdb --steps fillseq,replay\n  \
rumbench replay db_bench.trace -e rocksdb,lmdb --replay-speed 2\n  \
rumbench replay t.rtrace -e wiredtiger --replay-speed max --threads 8\n\n\
By default each recorded thread replays on a thread of its own, at the recorded timing (open loop: a call's\n\
latency counts from its scheduled start); --threads N deals the calls to N threads in the order of their starts.\n\
The result records the trace's sha256, calls and span, how late calls started, and whether the calls made are\n\
the recorded ones (a checksum over them). docs/replay.md says more."
    )]
    Replay(ReplayArgs),
    /// List engines and each one's options with defaults
    Engines {
        /// Show only this engine
        name: Option<String>,
    },
    /// List the benchmark steps
    Steps,
    /// Measure the storage under a directory with fio: random reads by block
    /// size and queue depth, sequential and random writes, write+fdatasync
    #[command(
        after_help = "Examples:\n  rumbench device --dir /mnt/nvme\n  rumbench device --dir . --size 1G --runtime 2 --json\n\n\
About a minute with the defaults (15 jobs); needs fio (scripts/setup.sh installs it) and --size free space.\n\
The test file is rumbench's own, made for the run and removed after.\n\
The result is stored in the history, keyed by device, filesystem and kernel: `rumbench run` computes each\n\
step's ceilings from it for a week. A baseline stored in the last week is shown instead of measuring\n\
again, unless --remeasure."
    )]
    Device {
        /// A directory on the filesystem to measure
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// Size of the test file: large enough that no cache of the device answers
        #[arg(long, default_value = "4G")]
        size: String,
        /// Seconds per job (after a 1-second ramp)
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=600))]
        runtime: u64,
        /// Print JSON instead of text
        #[arg(long)]
        json: bool,
        /// Measure even when a baseline of this device from the last week is stored
        #[arg(long)]
        remeasure: bool,
        /// History database the baseline is stored in [default: $XDG_DATA_HOME/rumbench/history.sqlite]
        #[arg(long, value_name = "PATH")]
        history: Option<PathBuf>,
        /// Measure and print, without reading or storing a baseline
        #[arg(long, conflicts_with_all = ["history", "remeasure"])]
        no_history: bool,
    },
    /// Show the environment a run would record: CPU, kernel, memory, the data dir's device
    Sysinfo {
        /// Directory whose device and filesystem to describe
        #[arg(long, default_value = ".")]
        data_dir: PathBuf,
        /// Print JSON (as stored in result.json) instead of text
        #[arg(long)]
        json: bool,
    },
    /// Write a self-contained HTML report (tables, charts, environment) of one or more runs
    #[command(after_help = "RUN is a run directory, its result.json, or a history id (#12).\n\nExamples:\n  \
rumbench report results/20250101-120000\n  \
rumbench report results/a results/b --base results/a -o ab.html\n  \
rumbench report results/sweep --base rocksdb-base -o sweep.html")]
    Report(ReportArgs),
    /// Merge the results of the shards of one run (`run --shard I/N` on N
    /// machines) into one run: throughput summed over the shards' common
    /// window, percentiles from the added histograms (never averaged),
    /// per-second series aligned by wall clock, a row per shard
    #[command(
        after_help = "Example:\n  rumbench merge shard-0 shard-1 shard-2 shard-3 -d merged\n\nShards of different plans (settings, seeds, steps, configs) are refused. The merged run\nis a run like any other: report, compare and export read it."
    )]
    Merge(MergeArgs),
    /// Compare runs: ratio per step and metric, each change marked regression, improvement or noise
    #[command(
        after_help = "RUN is a run directory, its result.json, or a history id (#12); DIR1,DIR2,... are repeats of one run.\n\
Every run after the first is compared with the first (configs matched by name); one run alone compares its configs with its first.\n\
Noise: |ratio - 1| <= max(threshold, k x CV), CV from the per-second series and across repeats (see docs/report.md).\n\
Exit codes: 0, or 1 with --fail-on-regression when a regression was found; 2 bad input.\n\nExamples:\n  \
rumbench compare results/base results/new\n  \
rumbench compare '#3' '#7' --fail-on-regression --metrics ops_s,p99_us\n  \
rumbench compare base1,base2,base3 new1,new2,new3"
    )]
    Compare(CompareArgs),
    /// List the runs recorded in the local history, rebuild it from result directories, or find where figures shifted (changes)
    History(HistoryArgs),
    /// Export runs as markdown tables, benchmark.sh-style TSV or per-second CSV
    Export(ExportArgs),
    /// List the RocksDB versions rumbench can run (`-e rocksdb@8.10`), each
    /// built once from this source and cached; --build builds some ahead of a run
    RocksdbVersions {
        /// Versions to build now (comma separated: 8.10,9.9), about 10-20 minutes each on 2 cores
        #[arg(long, value_delimiter = ',')]
        build: Vec<String>,
    },
    /// Crash test: kill each engine mid-write, cut the power under it (a lazy
    /// filesystem that forgets what was not synced), recover, and count the
    /// acknowledged commits it lost
    #[command(after_help = "Examples:\n  rumbench crashtest -e rocksdb -o sync=true --crashes 20\n  \
rumbench crashtest -e rocksdb --sweep sync=true,false\n  \
rumbench crashtest -e sqlite --sweep synchronous=full,normal,off --sweep journal_mode=wal,delete\n\n\
Needs FUSE (/dev/fuse; scripts/setup.sh installs fuse3). Its write rates are those of a FUSE filesystem, not a benchmark.\n\
Exit codes: 0; 1 when a config could not be tested to the end (an engine that did not recover counts), or with\n\
--fail-on-loss when one lost acknowledged commits; 2 bad input; 128 + signal when stopped.")]
    Crashtest(CrashtestArgs),
    /// Check an engine against the contract every engine keeps (a plugin's
    /// before benchmarking it): every rule it breaks, with what broke
    #[command(after_help = "Examples:\n  rumbench conform -e plugin:target/release/librumbench_plugin_example.so\n  \
rumbench conform -e plugin:./librumbench_lmdb.so -o sync_mode=sync\n  rumbench conform -e sqlite\n\n\
Each rule runs on a fresh database in a directory of its own under --dir (removed after).\n\
Exit codes: 0 every rule kept (or skipped, saying why); 1 a rule broken; 2 bad input.")]
    Conform(ConformArgs),
    /// Runs one config of a plan in a child process (used by `run`)
    #[command(hide = true)]
    InternalRunConfig { task: PathBuf, index: usize },
    /// A crash test's writer or checker (used by `crashtest`)
    #[command(hide = true)]
    InternalCrashChild { role: String, task: PathBuf },
    /// One config of a crash test, in a process of its own (used by `crashtest`)
    #[command(hide = true)]
    InternalCrashConfig { task: PathBuf, index: usize },
    /// Loads an engine plugin, and with --check checks its options, in a
    /// process of its own (used while a run is planned: a plugin that
    /// crashes there is named)
    #[command(hide = true)]
    InternalPluginProbe {
        library: PathBuf,
        #[arg(long, num_args = 0..)]
        check: Option<Vec<String>>,
    },
    /// Prints how this binary was built, as JSON (used to check a RocksDB version's build)
    #[command(hide = true)]
    InternalBuildInfo,
    /// Writes rocksdb-versions/<version>/Cargo.toml for every RocksDB
    /// version from Cargo.toml (scripts/rocksdb-versions.sh), or with
    /// --check says which differ
    #[command(hide = true)]
    InternalRocksdbManifests {
        /// The source root (default: the tree this binary was built from)
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        check: bool,
    },
}

/// `rumbench replay FILE`: a run whose step is the trace's replay.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The trace to replay
    pub file: PathBuf,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Suite file (TOML): [settings], [[config]] engine entries, [[step]] entries; flags override it
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Engines to run, comma separated (replaces the suite's configs)
    #[arg(long, short = 'e', value_delimiter = ',')]
    pub engine: Vec<String>,
    /// Engine option KEY=VALUE, or ENGINE.KEY=VALUE for one engine of several; repeatable
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Config sweep [ENGINE.]KEY=V1,V2,...: one config per value (several
    /// --sweep flags: per combination), named after the values and reported
    /// relative to the first (the base); `postgres.version=12,16` sweeps
    /// server versions; repeatable, replaces the suite's `sweep`
    #[arg(long = "sweep", value_name = "KEY=V1,V2")]
    pub sweeps: Vec<String>,
    /// Run every config N times, in interleaved rounds (a b c, then b c a,
    /// ...), each in a fresh process and data dir: comparisons then give
    /// confidence intervals, and verdicts from 5 repeats on; `auto[:MAX]`:
    /// rounds until every pair's throughput and cost verdicts are decided,
    /// at most MAX (20), intervals widened for the looks (replaces the
    /// suite's `repeat`)
    #[arg(long, value_name = "N|auto[:MAX]", value_parser = repeat_spec)]
    pub repeat: Option<crate::plan::repeats::RepeatSpec>,
    /// Duets: the base config (the first) runs at the same time as each
    /// other config, so that a noisy machine disturbs both sides alike:
    /// `split` (the default) pins each side to its own half of the CPUs,
    /// the halves swapped every round; `shared` pins both to the first half,
    /// which the scheduler divides between them evenly (suite `duet`)
    #[arg(long, value_name = "PLACEMENT", num_args = 0..=1, require_equals = true, default_missing_value = "split", value_parser = duet_placement)]
    pub duet: Option<crate::plan::repeats::Placement>,
    /// `--repeat auto`: the smallest change that matters, as a fraction or
    /// percent: a round decides a verdict once its interval lies wholly
    /// beyond it or wholly within it [default: 5%]
    #[arg(long, value_parser = fraction)]
    pub threshold: Option<f64>,
    /// A server you already run, benchmarked as a config of its own (beside
    /// any --engine; `-e postgres --target URL` runs both):
    /// postgres://user[:password]@host[:port]/database, mysql://... or
    /// mongodb://user[:password]@host[:port]/database[?options] (the
    /// password may come from PGPASSWORD / MYSQL_PWD /
    /// RUMBENCH_TARGET_PASSWORD instead; a Unix socket's path as the host,
    /// %-encoded: postgres://u@%2Frun%2Fpostgresql/db); repeatable.
    /// rumbench creates only its own tables (collections) there and drops them at the end
    #[arg(long, value_name = "URL")]
    pub target: Vec<String>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Run directory for results [default: results/<date>-<time>]; an
    /// existing one that holds files is refused unless --replace-output
    #[arg(long, short = 'd')]
    pub output_dir: Option<PathBuf>,
    /// Replace an earlier run in --output-dir (only a directory rumbench made)
    #[arg(long)]
    pub replace_output: bool,
    /// Parent directory of the engines' data dirs [default: <output-dir>/db]
    #[arg(long)]
    pub db_dir: Option<PathBuf>,
    /// Keep the engines' data dirs after the run (by default rumbench removes
    /// the data dirs it created, and nothing else)
    #[arg(long)]
    pub keep_db: bool,
    /// Open the data already in --db-dir instead of starting empty
    #[arg(long)]
    pub use_existing_db: bool,
    /// Progress display
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
    /// History database to record the run in [default: $XDG_DATA_HOME/rumbench/history.sqlite]
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Do not record the run in the history
    #[arg(long, conflicts_with = "history")]
    pub no_history: bool,
    /// Measure the data dir's device with fio before the run (about a
    /// minute) when the history holds no baseline of it from the last week;
    /// without it, the steps' read, write and sync ceilings need one
    /// measured before (`rumbench device`)
    #[arg(long)]
    pub device_baseline: bool,
    /// Print the summary table with every column, config names whole (by
    /// default it shows the main columns in 120 characters; summary.txt
    /// always has every column)
    #[arg(long)]
    pub all_columns: bool,
    /// Shard I of N (I from 0, as a Kubernetes Indexed Job's index): this
    /// run's part of one run from N client machines. Shard I's threads act
    /// as threads I*T.. of N*T: loads take disjoint records, counts of
    /// operations are split, inserts never collide, reads draw from every
    /// record; `rumbench merge` puts the shards' results together
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<crate::plan::shard::Shard>,
    /// Release the first step's clients at this wall-clock moment (RFC 3339,
    /// e.g. 2026-11-26T10:00:00Z, or seconds since the epoch), and each later
    /// step at a moment every shard computes alike (--step-gap): shards on
    /// machines with synchronized clocks run their steps together
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<f64>,
    /// With --start-at: seconds between a timed step's planned end and the
    /// next step's start (a step without a duration, such as a load, is
    /// followed by the next multiple of this after --start-at)
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, requires = "start_at")]
    pub step_gap: f64,
}

fn parse_shard(s: &str) -> Result<crate::plan::shard::Shard, String> {
    s.parse()
}

/// A wall-clock moment as seconds since the epoch: RFC 3339, or a number.
pub fn parse_start_at(s: &str) -> Result<f64, String> {
    if let Ok(x) = s.trim().parse::<f64>() {
        return if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(format!("'{s}' is not a moment (seconds since the epoch)"))
        };
    }
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .map(|t| t.timestamp_micros() as f64 / 1e6)
        .map_err(|e| format!("'{s}' is neither RFC 3339 (2026-11-26T10:00:00Z) nor seconds since the epoch: {e}"))
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' run directories (each a `rumbench run --shard I/N`)
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The merged run's directory (refused when it holds files, unless --replace-output)
    #[arg(long, short = 'd')]
    pub output_dir: PathBuf,
    /// Replace an earlier merge in --output-dir (only a directory rumbench made)
    #[arg(long)]
    pub replace_output: bool,
}

#[derive(clap::Args, Debug)]
pub struct ConformArgs {
    /// The engine: a name from `rumbench engines`, NAME:PRESET, or plugin:/path/libfoo.so
    #[arg(long, short = 'e')]
    pub engine: String,
    /// Engine option KEY=VALUE; repeatable
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Where the rules' databases go (a directory of its own is made in it) [default: the system's temporary directory]
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The longest one rule may take before it is called hung and its process killed
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub rule_seconds: f64,
    /// Run only rule INDEX in --dir and print its verdict (conform runs each
    /// rule in a process of its own so)
    #[arg(long, hide = true)]
    pub one_rule: Option<usize>,
}

#[derive(clap::Args, Debug)]
pub struct CrashtestArgs {
    /// Suite file (TOML): its [[config]] entries are tested (its steps are not run)
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Engines to test, comma separated (replaces the suite's configs)
    #[arg(long, short = 'e', value_delimiter = ',')]
    pub engine: Vec<String>,
    /// Engine option KEY=VALUE, or ENGINE.KEY=VALUE for one engine of several; repeatable
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Config sweep [ENGINE.]KEY=V1,V2,...: one config per value (several: per combination)
    #[arg(long = "sweep", value_name = "KEY=V1,V2")]
    pub sweeps: Vec<String>,
    /// Crashes per config
    #[arg(long, default_value_t = 20)]
    pub crashes: u32,
    /// Client threads writing in each crash
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Bytes per value (each value encodes its key, so a torn one shows)
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,
    /// The kill comes at a random moment this many milliseconds after the engine opened: MIN,MAX
    #[arg(long, value_name = "MIN_MS,MAX_MS", default_value = "100,1500", value_parser = parse_window)]
    pub kill_after: (u64, u64),
    /// What makes a new name, a rename or an unlink durable: posix (only an
    /// fsync of its directory) or journaled (any later fsync, as ext4 and XFS
    /// commit their metadata journal); file data always needs its own sync
    #[arg(long, value_enum, default_value_t = FsSemantics::Posix)]
    pub fs_semantics: FsSemantics,
    /// Seed of the kill moments [default: from the clock; recorded]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run directory for results [default: results/<date>-<time>]
    #[arg(long, short = 'd')]
    pub output_dir: Option<PathBuf>,
    /// Replace an earlier run in --output-dir (only a directory rumbench made)
    #[arg(long)]
    pub replace_output: bool,
    /// Parent of each config's work dir (lazy filesystem store and mount point, ack logs) [default: <output-dir>/db]
    #[arg(long)]
    pub db_dir: Option<PathBuf>,
    /// Keep the work dirs (what survived the last power cut) after the test
    #[arg(long)]
    pub keep_db: bool,
    /// Exit 1 when a config lost acknowledged commits or gave wrong records back
    #[arg(long)]
    pub fail_on_loss: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsSemantics {
    Posix,
    Journaled,
}

fn parse_window(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once(',').ok_or("expected MIN_MS,MAX_MS, e.g. 100,1500")?;
    let ms = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("'{t}' is not a number of milliseconds"));
    let (a, b) = (ms(a)?, ms(b)?);
    if a > b || b > 3_600_000 {
        return Err(format!("{a},{b}: the first must not be above the second, nor the second above an hour"));
    }
    Ok((a, b))
}

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Run directories (or result.json files, or history ids like #12)
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// What the relative table divides by: a run (directory or label) or a
    /// config name / run/config label [default: the first config of the first run]
    #[arg(long, value_name = "RUN_OR_CONFIG")]
    pub base: Option<String>,
    /// Output file [default: RUN/report.html for one run, report.html for several].
    /// An existing file is replaced; a symlink's target, a FIFO or a device is
    /// written as any program writes to a path; a read-only file and a run's
    /// own files (result.json, summary.txt, ...) are refused
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Title of the report
    #[arg(long)]
    pub title: Option<String>,
    /// History database for #ID arguments
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
}

/// A fraction: 0.05 or 5%.
fn duet_placement(s: &str) -> Result<crate::plan::repeats::Placement, String> {
    crate::plan::repeats::Placement::parse(s).map_err(|e| format!("{e:#}"))
}

fn repeat_spec(s: &str) -> Result<crate::plan::repeats::RepeatSpec, String> {
    crate::plan::repeats::RepeatSpec::parse(s).map_err(|e| format!("{e:#}"))
}

fn fraction(s: &str) -> Result<f64, String> {
    let (num, scale) = match s.strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (s, 1.0),
    };
    let v: f64 = num.trim().parse().map_err(|_| format!("'{s}' is not a number (0.05 or 5%)"))?;
    let v = v / scale;
    if !(0.0..10.0).contains(&v) {
        return Err(format!("'{s}' is out of range"));
    }
    Ok(v)
}

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// Runs: the first is the base; DIR1,DIR2 groups repeats of one run
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Exit with status 1 when any verdict is REGRESSION (for CI; needs repeats)
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Smallest change that matters, as a fraction or percent: a verdict
    /// needs the whole confidence interval beyond it
    #[arg(long, default_value = "5%", value_parser = fraction)]
    pub threshold: f64,
    /// Only these metrics, comma separated (ops_s, p99_us, cpu_us_op, ...)
    #[arg(long, value_delimiter = ',')]
    pub metrics: Vec<String>,
    /// History database for #ID arguments
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Also write where the CPU went (profiled runs) as a self-contained
    /// HTML page: per step that moved, its functions and a differential
    /// flame graph
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
#[command(after_help = "Dates are YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]; --until includes the day given.\n\
Runs are recorded by `rumbench run`; the result directories stay the primary artifact and\n\
`rumbench history rebuild DIR...` recreates the index from them.\n\nExamples:\n  \
rumbench history --engine rocksdb --since 2025-01-01\n  \
rumbench history --step readrandom --version 7.8\n  \
rumbench history rebuild results/")]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub action: Option<HistoryAction>,
    /// Runs with a config of this engine
    #[arg(long)]
    pub engine: Option<String>,
    /// Runs whose engine version or rumbench version starts with this
    #[arg(long)]
    pub version: Option<String>,
    /// Runs with this step (also shows its ops/s per config)
    #[arg(long)]
    pub step: Option<String>,
    /// Runs with a config of this name
    #[arg(long)]
    pub config: Option<String>,
    /// Runs started on or after this date
    #[arg(long)]
    pub since: Option<String>,
    /// Runs started on or before this date
    #[arg(long)]
    pub until: Option<String>,
    /// History database [default: $XDG_DATA_HOME/rumbench/history.sqlite or ~/.local/share/rumbench/history.sqlite]
    #[arg(long, value_name = "PATH", global = true)]
    pub history: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum HistoryAction {
    /// Index every result.json under these directories (known runs keep their
    /// ids; entries whose directory is gone are removed)
    Rebuild {
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Find the runs where a metric shifted for good (change points), per
    /// series of runs of one machine, engine, config, step and settings,
    /// and name what differed around each change
    #[command(
        after_help = "Method (docs/report.md): E-Divisive's search with a rank statistic and a seeded permutation test;\n\
a change needs at least 3 runs on each side, a p-value at or below --significance and a change\n\
of the median of at least --min-change.\n\nExamples:\n  \
rumbench history changes\n  \
rumbench history changes --engine rocksdb --step readrandom --metric ops_s,p99_us"
    )]
    Changes(ChangesArgs),
}

#[derive(clap::Args, Debug)]
pub struct ChangesArgs {
    /// Only configs of this engine
    #[arg(long)]
    pub engine: Option<String>,
    /// Only this step
    #[arg(long)]
    pub step: Option<String>,
    /// Only configs of this name
    #[arg(long)]
    pub config: Option<String>,
    /// Metrics, comma separated (ops_s, p99_us, write_amp, cpu_us_op, ...: the summary's)
    #[arg(long, value_delimiter = ',', default_value = "ops_s")]
    pub metric: Vec<String>,
    /// Only runs started on or after this date
    #[arg(long)]
    pub since: Option<String>,
    /// Only runs started on or before this date
    #[arg(long)]
    pub until: Option<String>,
    /// Smallest change of the median that is reported, as a fraction or percent
    #[arg(long, default_value = "5%", value_parser = fraction)]
    pub min_change: f64,
    /// Largest permutation-test p-value that counts as a change
    #[arg(long, default_value_t = crate::report::changes::DEFAULT_SIGNIFICANCE, value_parser = probability)]
    pub significance: f64,
}

/// A probability in (0, 1).
fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(format!("'{s}' is not a probability between 0 and 1 (0.05)")),
    }
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Markdown tables per step (GitHub issues, blog posts)
    Markdown,
    /// RocksDB benchmark.sh report columns, then rumbench's
    Tsv,
    /// Per-second intervals (intervals.csv; a leading run column for several runs)
    Csv,
    /// Each step's per-second latency histograms as an HdrHistogram interval
    /// log (.hlog; tags CONFIG/STEP/OP), for HdrLogProcessing and the like
    HdrLog,
}

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Run directories (or result.json files, or history ids like #12)
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Output format
    #[arg(long, short = 'f', value_enum)]
    pub format: ExportFormat,
    /// Output file [default: standard output]. An existing file is replaced; a
    /// symlink's target, a FIFO or a device is written as any program writes to
    /// a path; a read-only file and a run's own files (result.json, ...) are refused
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Base of the markdown relative tables (as for `report`)
    #[arg(long, value_name = "RUN_OR_CONFIG")]
    pub base: Option<String>,
    /// History database for #ID arguments
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
}
