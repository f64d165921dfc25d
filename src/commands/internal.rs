//! The hidden subcommands rumbench runs itself: a config process, a crash
//! test's config process and its writer and checker, a build's report of
//! itself, and the RocksDB versions' manifests.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use rumbench::outln;

/// Write (or with `check`, compare) every RocksDB version's manifest.
pub fn rocksdb_manifests(root: Option<PathBuf>, check: bool) -> Result<ExitCode> {
    use rumbench::engine::rocksdb::versions;
    let root = root.unwrap_or_else(|| PathBuf::from(rumbench::engine::rocksdb::build::SOURCE_ROOT));
    let stale = versions::stale_manifests(&root)?;
    if check {
        if !stale.is_empty() {
            bail!(
                "out of date (run scripts/rocksdb-versions.sh): {}",
                stale.iter().map(|(p, _)| p.display().to_string()).collect::<Vec<_>>().join(", ")
            );
        }
    } else {
        for (path, text) in stale {
            std::fs::create_dir_all(path.parent().expect("a dir"))?;
            std::fs::write(&path, text)?;
            outln!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `internal-build-info`: how this binary was built, as JSON (a RocksDB version's build is checked with it).
pub fn build_info() -> Result<ExitCode> {
    outln!("{}", serde_json::to_string_pretty(&rumbench::engine::rocksdb::build::BuildInfo::this_binary())?);
    Ok(ExitCode::SUCCESS)
}

/// `internal-run-config TASK INDEX`: one config of a run, in a process of its own.
pub fn run_config(task: &std::path::Path, index: usize) -> ExitCode {
    super::signals::install(false);
    // A plugin that crashes here ends this config only: the main process names it.
    rumbench::engine::let_engine_code_run_here();
    rumbench::runner::run_config_child(task, index)
}

/// `internal-crash-config TASK INDEX`: one config of a crash test, in a process of its own.
pub fn crash_config(task: &std::path::Path, index: usize) -> ExitCode {
    super::signals::install(false);
    rumbench::engine::let_engine_code_run_here();
    rumbench::crashtest::run_config_process(task, index)
}

/// `internal-crash-child writer|check TASK`: a crash test's writer or checker.
pub fn crash_child(role: &str, task: &std::path::Path) -> ExitCode {
    rumbench::engine::let_engine_code_run_here();
    rumbench::crashtest::child::main(role, task)
}
