//! Command-line interface.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::SettingsArgs;
use crate::runner::progress::ProgressMode;

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
pub enum Command {
    /// Run benchmark steps against one or more engines
    #[command(after_help = "Examples:\n  rumbench run --engine rocksdb --steps fillrandom,readrandom --num 1000000\n  \
rumbench run --engine rocksdb,lmdb,sqlite --steps fillseq,readrandom,fwdrange --seconds 10 --threads 2\n  \
rumbench run --engine rocksdb -o compaction_style=universal -o block_cache_size=1G\n  \
rumbench run --config suite.toml --output-dir results/nightly\n\nList steps with `rumbench steps`, engines and their options with `rumbench engines`.")]
    Run(RunArgs),
    /// List engines and each one's options with defaults
    Engines {
        /// Show only this engine
        name: Option<String>,
    },
    /// List the benchmark steps
    Steps,
    /// Show the environment a run would record: CPU, kernel, memory, the data dir's device
    Sysinfo {
        /// Directory whose device and filesystem to describe
        #[arg(long, default_value = ".")]
        data_dir: PathBuf,
        /// Print JSON (as stored in result.json) instead of text
        #[arg(long)]
        json: bool,
    },
    /// Runs one config of a plan in a child process (used by `run`)
    #[command(hide = true)]
    InternalRunConfig { task: PathBuf, index: usize },
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
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Run directory for results [default: results/<date>-<time>]
    #[arg(long, short = 'd')]
    pub output_dir: Option<PathBuf>,
    /// Parent directory of the engines' data dirs [default: <output-dir>/db]
    #[arg(long)]
    pub db_dir: Option<PathBuf>,
    /// Keep the engines' data dirs after the run (removed by default)
    #[arg(long)]
    pub keep_db: bool,
    /// Open the data already in --db-dir instead of starting empty
    #[arg(long)]
    pub use_existing_db: bool,
    /// Progress display
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}
