//! What a plan needs before its first step, once its checks passed: the
//! side effects the plan itself never has (it is made without I/O):
//! server versions fetched, RocksDB versions built, the servers'
//! settings checked against each version (the device baseline is device.rs).

use anyhow::{bail, Context, Result};

use crate::plan::{EngineConfig, RunPlan};
use crate::server::{self, ServerKind};

/// A config's server kind and version, when it starts a versioned server.
fn versioned(c: &EngineConfig) -> Option<(ServerKind, &str)> {
    Some((server::kind_of(&c.engine)?, c.server_version.as_deref()?))
}

/// Before the run (after the plan's checks): the binaries of every server
/// version in the plan (PostgreSQL's, MariaDB's), fetched once into the
/// cache (each with a progress line); a fetch that fails is an error naming
/// what failed.
pub fn fetch_server_versions(plan: &RunPlan) -> Result<()> {
    for c in &plan.configs {
        if let Some((kind, v)) = versioned(c) {
            server::versioned_binaries(kind, v).with_context(|| format!("config {}", c.name))?;
        }
    }
    Ok(())
}

/// Before the run: every engine version in the plan other than the one this
/// program is built with, built or fetched once by its engine
/// (`EngineVersions::prepare`: a RocksDB release from source takes 10-20
/// minutes on 2 cores, with a progress line) or taken from the cache.
/// Returns what each version lacks, a line each, to print before the run.
pub fn build_engine_versions(plan: &RunPlan) -> Result<Vec<String>> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut notes = Vec::new();
    for c in &plan.configs {
        let Some(v) = c.engine_version.as_deref() else { continue };
        if seen.contains(&(c.engine.as_str(), v)) {
            continue;
        }
        seen.push((c.engine.as_str(), v));
        let Some(versions) = crate::backend::find(&c.engine)?.versions else { continue };
        notes.extend((versions.prepare)(v).with_context(|| format!("config {}", c.name))?);
    }
    Ok(notes)
}

/// After [`fetch_server_versions`]: the server config lines each started
/// server config's version does not know (`postgres --describe-config`,
/// `mysqld --verbose --help`). Those are left out of that config (and
/// reported: the lines returned, to print before the run, and in its
/// results); a line that no version of that server in the run knows is a
/// mistake: an error. Plans without versions are left as they are
/// (Debian's servers refuse an unknown setting themselves).
pub fn check_server_settings(plan: &mut RunPlan) -> Result<Vec<String>> {
    if plan.configs.iter().all(|c| c.server_version.is_none()) {
        return Ok(Vec::new());
    }
    let mut report = Vec::new();
    let mut unknown_to: Vec<(ServerKind, String, usize)> = Vec::new();
    let started = |c: &EngineConfig| !c.is_target() && server::kind_of(&c.engine).is_some();
    for c in plan.configs.iter_mut().filter(|c| started(c)) {
        let Some(kind) = server::kind_of(&c.engine) else { continue };
        if c.server_config.is_empty() {
            continue;
        }
        let (bin, what) = match &c.server_version {
            Some(v) => (
                Some(server::versioned_binaries(kind, v).with_context(|| format!("config {}", c.name))?),
                match crate::server::pg_versions::PackageVersion::parse(v) {
                    // "PostgreSQL 16.4", not its package's "16.4.0-beta.13".
                    Some(pv) if kind == ServerKind::Postgres => format!("PostgreSQL {}", pv.pg_version()),
                    _ => format!("{} {v}", kind.product()),
                },
            ),
            None => (None, format!("Debian's {}", kind.product())),
        };
        c.server_config_unknown = server::unknown_settings(kind, bin.as_deref(), &c.server_config)
            .with_context(|| format!("config {}", c.name))?;
        for l in &c.server_config_unknown {
            report.push(format!("{}: server setting {l:?} is unknown to {what}: not applied to this config", c.name));
            match unknown_to.iter_mut().find(|(k, x, _)| *k == kind && x == l) {
                Some((_, _, n)) => *n += 1,
                None => unknown_to.push((kind, l.clone(), 1)),
            }
        }
    }
    let with_line = |kind: ServerKind, l: &String| {
        plan.configs
            .iter()
            .filter(|c| started(c) && server::kind_of(&c.engine) == Some(kind) && c.server_config.contains(l))
            .count()
    };
    if let Some((kind, l, _)) = unknown_to.iter().find(|(k, l, n)| *n == with_line(*k, l)) {
        bail!("server setting {l:?} is unknown to every {} version in this run (a misspelt name?)", kind.product());
    }
    Ok(report)
}
