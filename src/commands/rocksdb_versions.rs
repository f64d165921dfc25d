//! `rumbench rocksdb-versions [--build V,...]`: the RocksDB releases rumbench
//! can run, whether each is built for this source, and what it lacks.

use std::process::ExitCode;

use anyhow::Result;
use rumbench::{errln, outln};

use super::{interrupted_exit_code, one_line, signals, EXIT_FAILED};

/// `rumbench rocksdb-versions`: each version, its crate, whether it is
/// built for this source, and what it lacks; `--build` builds now.
pub fn run(build: &[String]) -> Result<ExitCode> {
    use rumbench::engine::{rocksdb_build, rocksdb_versions};
    let releases: Vec<&rocksdb_versions::Release> =
        build.iter().map(|v| rocksdb_versions::resolve(v)).collect::<Result<_>>()?;
    if !releases.is_empty() {
        signals::install(true);
        for r in releases {
            if let Err(e) = rocksdb_build::ensure(r) {
                errln!("rumbench: error: {}", one_line(&e));
                return Ok(ExitCode::from(if rumbench::driver::stop::stop_requested() {
                    interrupted_exit_code()
                } else {
                    EXIT_FAILED
                }));
            }
        }
    }
    outln!("{:8}  {:15}  {:10}  {}", "version", "librocksdb-sys", "build", "lacks");
    for r in rocksdb_versions::RELEASES {
        let state = if r.is_built_in() {
            "built in".to_string()
        } else {
            match rocksdb_build::cached(r) {
                Ok(Some(_)) => "cached".into(),
                Ok(None) => "not built".into(),
                Err(e) => format!("? ({})", one_line(&e)),
            }
        };
        let lacks =
            r.lacks().iter().map(|l| l.split(':').next().unwrap_or(l).to_string()).collect::<Vec<_>>().join("; ");
        outln!(
            "{:8}  {:15}  {:10}  {}",
            r.version,
            r.crate_version,
            state,
            if lacks.is_empty() { "-".into() } else { lacks }
        );
    }
    outln!("cache: {}", rocksdb_build::cache_root().map(|p| p.display().to_string()).unwrap_or_else(|e| one_line(&e)));
    Ok(ExitCode::SUCCESS)
}
