//! Backends: the in-process engines (`crate::engine`) and the database
//! servers rumbench starts (`crate::server`), under one registry by name,
//! with what each can do. A workload's steps need a capability; a plan that
//! asks a backend for one it lacks is refused before anything starts.

pub mod servers;

use anyhow::{bail, Result};

use crate::engine::{self, EngineSpec};
use crate::plan::steps::StepKind;

/// What a backend can do for a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// Key-value access (get, put, scan, write batches): db_bench-style steps.
    KeyValue,
    /// Tables: the insert benchmark's and YCSB's usertable. Servers have
    /// them natively; a key-value engine through a table layer over its keys.
    Tables,
    /// Collections of documents with secondary indexes (MongoDB): YCSB's
    /// records, the insert benchmark's rows and the hot counters as documents.
    Documents,
    /// SQL statements the server parses, plans and runs as sent (PostgreSQL,
    /// MariaDB): sysbench's microbenchmarks (src/workload/sql).
    Sql,
}

impl Capability {
    pub fn describe(self) -> &'static str {
        match self {
            Capability::KeyValue => "key-value access",
            Capability::Tables => "tables",
            Capability::Documents => "documents",
            Capability::Sql => "SQL",
        }
    }
}

/// Every backend: the engines, then the servers.
pub fn registry() -> Vec<&'static EngineSpec> {
    engine::registry().iter().chain(servers::SERVERS.iter()).collect()
}

pub fn names() -> Vec<&'static str> {
    registry().iter().map(|e| e.name).collect()
}

/// Look a backend up by name; the error names the valid ones.
pub fn find(name: &str) -> Result<&'static EngineSpec> {
    registry().into_iter().find(|e| e.name == name).ok_or_else(|| engine::unknown_engine(name, &names()))
}

/// Whether `name` is a database server.
pub fn is_server(name: &str) -> bool {
    servers::SERVERS.iter().any(|s| s.name == name)
}

/// What a backend can do.
pub fn capabilities(name: &str) -> &'static [Capability] {
    if name == servers::MONGODB.name {
        &[Capability::Documents]
    } else if is_server(name) {
        &[Capability::Tables, Capability::Sql]
    } else if engine::find(name).is_ok_and(|spec| !spec.stores_data) {
        // It stores nothing (the null engine): tables that must give their rows back cannot live on it.
        &[Capability::KeyValue]
    } else {
        &[Capability::KeyValue, Capability::Tables]
    }
}

/// What a step needs of its backend: one of these capabilities; empty when
/// any serves (YCSB's records are one key each on an engine, rows of a table
/// on a server, documents on MongoDB).
pub fn needs(kind: StepKind) -> &'static [Capability] {
    if kind.is_contention() {
        // Tables on a server, keys on an engine, documents; transactions are checked apart.
        &[]
    } else if kind.is_ibench() {
        &[Capability::Tables, Capability::Documents]
    } else if kind.is_ycsb() {
        &[]
    } else if kind.is_sysbench() {
        &[Capability::Sql]
    } else {
        &[Capability::KeyValue]
    }
}

/// The settings of an engine's option that turn its transactions on, when
/// its defaults leave them off ("transactions=pessimistic or optimistic").
fn transaction_switch(spec: &EngineSpec) -> Option<String> {
    if (spec.transactions)(&engine::resolve_options(spec, &[]).ok()?).is_some() {
        return None;
    }
    spec.options.iter().find_map(|o| {
        let engine::OptKind::Choice(values) = o.kind else { return None };
        let on: Vec<&str> = values
            .iter()
            .copied()
            .filter(|v| {
                engine::resolve_options(spec, &[(o.name.to_string(), v.to_string())])
                    .is_ok_and(|opts| (spec.transactions)(&opts).is_some())
            })
            .collect();
        (!on.is_empty()).then(|| format!("{}={}", o.name, on.join(" or ")))
    })
}

/// Refuse a step that needs transactions on a config without them, naming both.
pub fn check_transactions(config: &crate::plan::EngineConfig, kind: StepKind) -> Result<()> {
    if !kind.is_contention() {
        return Ok(());
    }
    // A document's $inc is atomic on its own: hot documents need no transaction.
    if kind == StepKind::HotRow && capabilities(&config.engine).contains(&Capability::Documents) {
        return Ok(());
    }
    let spec = find(&config.engine)?;
    if (spec.transactions)(&engine::EngineOptions(config.options.clone())).is_none() {
        let with: Vec<String> = registry()
            .iter()
            .filter_map(|s| match transaction_switch(s) {
                None if (s.transactions)(&engine::EngineOptions(Default::default())).is_some() => {
                    Some(s.name.to_string())
                }
                None => None,
                Some(set) => Some(format!("{} with {set}", s.name)),
            })
            .collect();
        let hint = transaction_switch(spec).map(|set| format!(" as configured: set -o {set}")).unwrap_or_default();
        bail!(
            "step {kind} needs transactions, which config {} ({}) does not have{hint} (engines with them: {})",
            config.name,
            config.engine,
            with.join(", ")
        );
    }
    Ok(())
}

/// Refuse a step its backend cannot run, naming both.
pub fn check(backend: &str, kind: StepKind) -> Result<()> {
    let caps = capabilities(backend);
    let need = needs(kind);
    if !need.is_empty() && !need.iter().any(|n| caps.contains(n)) {
        let offers: Vec<&str> = caps.iter().map(|c| c.describe()).collect();
        let runs = if caps.contains(&Capability::Documents) {
            "YCSB (ycsb-load, ycsb-a .. ycsb-f), hotrow and the insert benchmark (l.i0, l.x, l.i1, l.i2, qr*, qp*)"
        } else if caps.contains(&Capability::Sql) {
            "the insert benchmark (l.i0, l.x, l.i1, l.i2, qr*, qp*), YCSB (ycsb-load, ycsb-a .. ycsb-f) and sysbench's microbenchmarks (point-query, read-write, ...)"
        } else if caps.contains(&Capability::Tables) {
            "the insert benchmark (l.i0, l.x, l.i1, l.i2, qr*, qp*) and YCSB (ycsb-load, ycsb-a .. ycsb-f)"
        } else {
            "db_bench-style steps and YCSB"
        };
        let wants: Vec<&str> = need.iter().map(|c| c.describe()).collect();
        bail!(
            "step {kind} needs {}, which {backend} does not offer (it offers {}: it runs {runs})",
            wants.join(" or "),
            offers.join(" and ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_needing_what_a_backend_lacks_is_refused_naming_both() {
        let e = check("postgres", StepKind::ReadRandom).unwrap_err().to_string();
        assert!(e.contains("readrandom") && e.contains("key-value access") && e.contains("postgres"), "{e}");
        let e = check("null", StepKind::LoadI0).unwrap_err().to_string();
        assert!(e.contains("l.i0") && e.contains("tables") && e.contains("null"), "{e}");
        check("postgres", StepKind::LoadI0).unwrap();
        check("postgres", StepKind::YcsbA).unwrap();
        check("null", StepKind::YcsbA).unwrap();
        check("mongodb", StepKind::YcsbA).unwrap();
        check("mongodb", StepKind::LoadI0).unwrap();
        let e = check("mongodb", StepKind::FillSeq).unwrap_err().to_string();
        assert!(e.contains("key-value access") && e.contains("documents"), "{e}");
        check("rocksdb", StepKind::ReadRandom).unwrap();
        let point_query = "point-query".parse().unwrap();
        check("postgres", point_query).unwrap();
        check("mariadb-innodb", point_query).unwrap();
        let e = check("rocksdb", point_query).unwrap_err().to_string();
        assert!(e.contains("point-query needs SQL, which rocksdb does not offer"), "{e}");
        let e = check("mongodb", point_query).unwrap_err().to_string();
        assert!(e.contains("needs SQL") && e.contains("documents"), "{e}");
    }

    #[test]
    fn the_registry_has_engines_and_servers() {
        // Every engine, then every server, each once and found by its name;
        // a server is one exactly when it is among the servers.
        let names = names();
        let engines: Vec<&str> = engine::registry().iter().map(|e| e.name).collect();
        let servers: Vec<&str> = servers::SERVERS.iter().map(|s| s.name).collect();
        assert_eq!(names, [engines, servers.clone()].concat());
        for n in ["rocksdb", "lmdb", "null", "postgres", "mariadb-innodb", "mariadb-myrocks", "mongodb"] {
            assert!(names.contains(&n), "{n} is not a backend: {names:?}");
        }
        for n in &names {
            assert_eq!(names.iter().filter(|m| *m == n).count(), 1, "{n} twice: {names:?}");
            assert_eq!(find(n).unwrap().name, *n);
            assert_eq!(is_server(n), servers.contains(n), "{n}");
        }
        // A near miss is refused, naming every backend there is.
        let e = find("mongo").err().expect("mongo is not a backend").to_string();
        assert!(e.starts_with("unknown engine 'mongo' (valid engines: "), "{e}");
        assert!(names.iter().all(|n| e.contains(n)), "{e}");
    }
}
