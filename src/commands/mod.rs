//! One file per subcommand: each takes its parsed arguments and returns the
//! process's exit code; main.rs parses, dispatches here and turns what is
//! left (bad input, a lost output stream) into exit codes.
//!
//! Exit codes: 0 success, 1 a run that failed (or output that could not be
//! written), 2 bad input (refused before anything starts), 128 + signal
//! when a signal stopped the run (130 SIGINT, 143 SIGTERM, 129 SIGHUP).

mod compare;
mod conform;
mod crashtest;
mod device;
mod engines;
mod export;
mod history;
mod internal;
mod merge;
mod replay;
mod report;
mod rocksdb_versions;
mod run;
mod signals;
mod steps;
mod sysinfo;

use std::process::ExitCode;

use anyhow::Result;
use rumbench::cli::Command;

pub use signals::output_lost;

pub const EXIT_FAILED: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

/// An error on one line (its causes joined), for "rumbench: error: ...".
pub fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

/// 128 + the signal that stopped the run, as shells report it (130 for SIGINT).
pub fn interrupted_exit_code() -> u8 {
    128u8.saturating_add(rumbench::driver::stop::stop_signal().unwrap_or(libc::SIGINT) as u8)
}

/// What a command returned, and whether its exit code is a child process's
/// own outcome (a config process's), which a lost or failed output stream
/// must not change. An error is bad input (exit 2).
pub fn dispatch(command: Command) -> (Result<ExitCode>, bool) {
    let outcome = match command {
        Command::Run(a) => run::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Engines { name } => engines::run(name.as_deref()).map(|_| ExitCode::SUCCESS),
        Command::Steps => {
            steps::run();
            Ok(ExitCode::SUCCESS)
        }
        Command::Device { dir, size, runtime, json, remeasure, history, no_history } => {
            device::run(device::DeviceArgs { dir, size, runtime, json, remeasure, history, no_history })
        }
        Command::Sysinfo { data_dir, json } => sysinfo::run(&data_dir, json).map(|_| ExitCode::SUCCESS),
        Command::Report(a) => report::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Compare(a) => compare::run(a),
        Command::History(a) => history::run(a),
        Command::Export(a) => export::run(a),
        Command::RocksdbVersions { build } => rocksdb_versions::run(&build),
        Command::Crashtest(a) => crashtest::run(a),
        Command::Conform(a) => conform::run(a),
        Command::InternalBuildInfo => internal::build_info(),
        Command::InternalPluginProbe { library, check } => {
            return (Ok(rumbench::engine::library_probe_main(&library, check.as_deref())), true)
        }
        Command::InternalRocksdbManifests { root, check } => internal::rocksdb_manifests(root, check),
        Command::InternalCrashChild { role, task } => return (Ok(internal::crash_child(&role, &task)), true),
        Command::InternalRunConfig { task, index } => return (Ok(internal::run_config(&task, index)), true),
        Command::InternalCrashConfig { task, index } => return (Ok(internal::crash_config(&task, index)), true),
    };
    (outcome, false)
}
