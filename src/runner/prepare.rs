//! What a plan needs before its first step, once its checks passed: the
//! side effects the plan itself never has (it is made without I/O):
//! PostgreSQL versions fetched, RocksDB versions built, the servers'
//! settings checked against each version (the device baseline is device.rs).

use anyhow::{bail, Context, Result};

use crate::plan::{EngineConfig, RunPlan};
use crate::server::pg_versions::{self, PackageVersion};

/// Before the run (after the plan's checks): the binaries of every
/// PostgreSQL version in the plan, fetched once into the cache (each with
/// a progress line); a fetch that fails is an error naming what failed.
pub fn fetch_server_versions(plan: &RunPlan) -> Result<()> {
    for c in &plan.configs {
        if let Some(v) = &c.server_version {
            let pv =
                PackageVersion::parse(v).with_context(|| format!("config {}: invalid package version {v}", c.name))?;
            pg_versions::ensure(&pv).with_context(|| format!("config {}", c.name))?;
        }
    }
    Ok(())
}

/// Before the run: every RocksDB release in the plan other than the one
/// rumbench is built with, built once from this source (about 10-20
/// minutes each on 2 cores, with a progress line) or taken from the cache.
/// Returns what each release lacks, a line each, to print before the run.
pub fn build_engine_versions(plan: &RunPlan) -> Result<Vec<String>> {
    let mut seen: Vec<&str> = Vec::new();
    let mut notes = Vec::new();
    for c in plan.configs.iter().filter(|c| c.engine == "rocksdb") {
        let Some(v) = c.engine_version.as_deref() else { continue };
        if seen.contains(&v) {
            continue;
        }
        seen.push(v);
        let release = crate::engine::rocksdb_versions::resolve(v)?;
        crate::engine::rocksdb_build::ensure(release).with_context(|| format!("config {}", c.name))?;
        notes.extend(release.lacks().into_iter().map(|l| format!("{}: {l}", release.label())));
    }
    Ok(notes)
}

/// After [`fetch_server_versions`]: the server config lines each postgres
/// config's version does not know (`postgres --describe-config`). Those are
/// left out of that config (and reported: the lines returned, to print
/// before the run, and in its results); a line that no postgres version of
/// the run knows is a mistake: an error. Plans without versions are left
/// as they are (Debian's server refuses an unknown setting itself).
pub fn check_server_settings(plan: &mut RunPlan) -> Result<Vec<String>> {
    if plan.configs.iter().all(|c| c.server_version.is_none()) {
        return Ok(Vec::new());
    }
    let mut report = Vec::new();
    let mut unknown_to: Vec<(String, usize)> = Vec::new();
    let started_postgres = |c: &EngineConfig| c.engine == "postgres" && !c.is_target();
    for c in plan.configs.iter_mut().filter(|c| started_postgres(c)) {
        if c.server_config.is_empty() {
            continue;
        }
        let (bin, what) = match &c.server_version {
            Some(v) => {
                let pv = PackageVersion::parse(v)
                    .with_context(|| format!("config {}: invalid package version {v}", c.name))?;
                (pg_versions::ensure(&pv)?, format!("PostgreSQL {}", pv.pg_version()))
            }
            None => (pg_versions::debian_bin_dir()?, "Debian's PostgreSQL".to_string()),
        };
        let known = pg_versions::known_settings(&bin).with_context(|| format!("config {}", c.name))?;
        c.server_config_unknown = pg_versions::unknown_lines(&c.server_config, &known);
        for l in &c.server_config_unknown {
            report.push(format!("{}: server setting {l:?} is unknown to {what}: not applied to this config", c.name));
            match unknown_to.iter_mut().find(|(x, _)| x == l) {
                Some((_, n)) => *n += 1,
                None => unknown_to.push((l.clone(), 1)),
            }
        }
    }
    let with_line =
        |l: &String| plan.configs.iter().filter(|c| started_postgres(c) && c.server_config.contains(l)).count();
    if let Some((l, _)) = unknown_to.iter().find(|(l, n)| *n == with_line(l)) {
        bail!("server setting {l:?} is unknown to every PostgreSQL version in this run (a misspelt name?)");
    }
    Ok(report)
}
