//! A config's `version` (postgres@16, rocksdb@8.10): checked, then resolved
//! against the PostgreSQL versions available (a listing the caller gives:
//! the planner does no I/O of its own) or the RocksDB releases rumbench builds.

use anyhow::{bail, Context, Result};

use super::suite::ConfigEntry;
use crate::server::pg_versions::{self, PackageVersion, VersionRequest};

/// What a config's `version` names: a PostgreSQL package or a RocksDB release.
#[derive(Debug, Clone)]
pub(super) enum ResolvedVersion {
    Postgres(PackageVersion),
    Rocksdb(&'static crate::engine::rocksdb_versions::Release),
}

/// A config's `version` as asked, checked but not yet resolved.
pub(super) enum VersionAsked {
    Postgres(VersionRequest),
    Rocksdb(&'static crate::engine::rocksdb_versions::Release),
}

/// The version each config's `version` names (None without one): every
/// request is checked first (a malformed one costs no network); PostgreSQL
/// versions are then resolved against one listing of the npm registry's
/// versions, RocksDB versions against the releases rumbench can build.
pub(super) fn resolve_versions(
    entries: &[ConfigEntry],
    available: fn() -> Result<Vec<PackageVersion>>,
    rocksdb_releases: fn() -> Result<Vec<String>>,
) -> Result<Vec<Option<ResolvedVersion>>> {
    let mut asked = Vec::new();
    for e in entries {
        let name = || e.name.as_deref().unwrap_or(&e.engine).to_string();
        asked.push(match (&e.version, e.engine.as_str()) {
            (None, _) => None,
            (Some(v), "postgres") => Some(VersionAsked::Postgres(VersionRequest::parse(v)?)),
            (Some(v), "rocksdb") => Some(VersionAsked::Rocksdb(
                crate::engine::rocksdb_versions::resolve_with(v, &rocksdb_releases)
                    .with_context(|| format!("config {}", name()))?,
            )),
            (Some(_), other) => bail!(
                "config {}: only postgres and rocksdb take a version (postgres@16, rocksdb@8.10), not {other}",
                name()
            ),
        });
    }
    let registry_needed = asked.iter().any(|a| matches!(a, Some(VersionAsked::Postgres(_))));
    let available = if registry_needed { available()? } else { Vec::new() };
    asked
        .into_iter()
        .map(|a| {
            Ok(match a {
                None => None,
                Some(VersionAsked::Rocksdb(release)) => Some(ResolvedVersion::Rocksdb(release)),
                Some(VersionAsked::Postgres(req)) => {
                    Some(ResolvedVersion::Postgres(pg_versions::resolve(&req, &available)?))
                }
            })
        })
        .collect()
}
