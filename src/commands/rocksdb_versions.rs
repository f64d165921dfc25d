//! `rumbench rocksdb-versions [--build V,...]`: the RocksDB releases rumbench
//! can run, whether each is built for this source, and what it lacks; the
//! release builds (`7.6.0:release`) in the cache after them.

use std::process::ExitCode;

use anyhow::Result;
use rumbench::{errln, outln};

use super::{interrupted_exit_code, one_line, signals, EXIT_FAILED};

/// `rumbench rocksdb-versions`: each version, its crate, whether it is
/// built for this source, and what it lacks; `--build` builds now.
pub fn run(build: &[String]) -> Result<ExitCode> {
    use rumbench::engine::rocksdb::build::{cache_root, cached, ensure};
    use rumbench::engine::rocksdb::versions::{resolve, resolve_with, version_key, Release, RELEASES};
    let releases: Vec<&Release> = build.iter().map(|v| resolve(v)).collect::<Result<_>>()?;
    if !releases.is_empty() {
        signals::install(true);
        for r in releases {
            if let Err(e) = ensure(r) {
                errln!("rumbench: error: {}", one_line(&e));
                return Ok(ExitCode::from(if rumbench::driver::stop::stop_requested() {
                    interrupted_exit_code()
                } else {
                    EXIT_FAILED
                }));
            }
        }
    }
    outln!("{:16}  {:15}  {:10}  {}", "version", "librocksdb-sys", "build", "lacks");
    // RocksDB's own release builds linked here before (rocksdb@7.6.0:release):
    // named by their cache directories, each resolved against itself (no network).
    let mut official: Vec<String> = cache_root()
        .ok()
        .and_then(|root| std::fs::read_dir(root).ok())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix("-official")).map(str::to_string))
        .collect();
    official.sort_by_key(|v| version_key(v));
    let official: Vec<&Release> = official
        .iter()
        .filter_map(|v| {
            let only = v.clone();
            resolve_with(&format!("{v}:release"), &move || Ok(vec![only.clone()])).ok()
        })
        .collect();
    for r in RELEASES.iter().chain(official) {
        let state = if r.is_built_in() {
            "built in".to_string()
        } else {
            match cached(r) {
                Ok(Some(_)) => "cached".into(),
                Ok(None) => "not built".into(),
                Err(e) => format!("? ({})", one_line(&e)),
            }
        };
        let lacks =
            r.lacks().iter().map(|l| l.split(':').next().unwrap_or(l).to_string()).collect::<Vec<_>>().join("; ");
        outln!(
            "{:16}  {:15}  {:10}  {}",
            r.request(),
            r.crate_version,
            state,
            if lacks.is_empty() { "-".into() } else { lacks }
        );
    }
    outln!(
        "release builds: any release of Maven Central's org.rocksdb:rocksdbjni from {} on, as rocksdb@VERSION:release \
         (fetched with mvn and run by one rumbench binary built once for all of them; nothing of RocksDB compiled)",
        RELEASES[0].version
    );
    outln!("cache: {}", cache_root().map(|p| p.display().to_string()).unwrap_or_else(|e| one_line(&e)));
    Ok(ExitCode::SUCCESS)
}
