//! A config's backend for the table workloads (the insert benchmark, YCSB,
//! hot rows and transactions): the server rumbench starts, the one the user
//! runs (--target), or a key-value engine under a table layer; each
//! workload's view of it; the tables a plan creates; and the checks of a
//! target before anything starts. runner/tables.rs runs the steps on it.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::backend::servers::Transport;
use crate::engine::{EngineOptions, OpenArgs};
use crate::plan::steps::StepKind;
use crate::plan::{EngineConfig, RunPlan, StepPlan};
use crate::result::{Status, StepResult};
use crate::runner::{self, RunOptions};
use crate::server::endpoint::TargetUrl;
use crate::server::kind_of as server_kind;
use crate::server::liveness::{Gone, Watch};
use crate::server::mongodb::{Mongo, WriteConcernSetting};
use crate::server::{Endpoint, RunningServer, ServerConfig, ServerKind, ServerStartError};
use crate::workload::contention;
use crate::workload::ibench::kv::{self as kv_table, KvTable};
use crate::workload::ibench::mariadb::MyTable;
use crate::workload::ibench::mongodb::MongoTable;
use crate::workload::ibench::postgres::PgTable;
use crate::workload::ibench::table::Table;
use crate::workload::ibench::RowGen;
use crate::workload::sql;
use crate::workload::ycsb;

/// An open backend: the table layer, and the server behind it if any.
pub(super) struct Backend {
    pub(super) table: Box<dyn Table>,
    /// How clients reach the server (one rumbench started, or a target).
    pub(super) endpoint: Option<Endpoint>,
    /// The server rumbench started (None for a target).
    pub(super) server: Option<RunningServer>,
    /// A MongoDB target's driver (its pool), shared by every step's clients.
    pub(super) mongo: Option<std::sync::Arc<Mongo>>,
    /// Whether a target is still there (server::liveness): its monitor.
    pub(super) watch: Option<Watch>,
}

impl Backend {
    /// YCSB's view of this backend.
    pub(super) fn ycsb_store(&self, plan: &StepPlan) -> Result<Box<dyn ycsb::Store + '_>> {
        let y = &plan.settings.ycsb;
        if let Some(engine) = self.table.kv_engine() {
            return Ok(Box::new(ycsb::kv::KvStore::new(engine, y.field_length)));
        }
        if let Some(m) = &self.mongo {
            return Ok(Box::new(ycsb::mongodb::MongoStore::new(m, y.field_count)));
        }
        let endpoint = self.endpoint.clone().context("a server or a key-value engine")?;
        Ok(match endpoint.kind {
            ServerKind::Postgres => Box::new(ycsb::postgres::PgStore::new(endpoint, y.field_count)),
            _ => Box::new(ycsb::mariadb::MyStore::new(endpoint, y.field_count)),
        })
    }

    /// The contention steps' view of this backend for a step of `kind`.
    pub(super) fn contention_store(&self, plan: &StepPlan) -> Result<Box<dyn contention::Store + '_>> {
        let (tables, sets) = match plan.kind {
            StepKind::HotRow => (plan.settings.contention.hot_tables.iter().copied().max().unwrap_or(1), false),
            _ => (0, true),
        };
        if let Some(engine) = self.table.kv_engine() {
            return Ok(Box::new(contention::kv::KvStore::new(engine)));
        }
        if let Some(m) = &self.mongo {
            return Ok(Box::new(contention::mongodb::MongoStore::new(m, tables)));
        }
        let endpoint = self.endpoint.clone().context("a server or a key-value engine")?;
        Ok(match endpoint.kind {
            ServerKind::Postgres => Box::new(contention::postgres::PgStore::new(endpoint, tables, sets)),
            _ => Box::new(contention::mariadb::MyStore::new(endpoint, tables, sets)),
        })
    }

    /// The SQL capability's view of this backend (a SQL server), with the
    /// storage engine MySQL's tables are made in (sysbench's
    /// --mysql-storage-engine).
    pub(super) fn sql_store(&self) -> Result<(Box<dyn sql::SqlStore + '_>, &'static str)> {
        let endpoint = self.endpoint.clone().filter(|_| self.mongo.is_none()).context("a SQL server")?;
        Ok(match endpoint.kind {
            ServerKind::Postgres => (Box::new(sql::postgres::PgSql::new(endpoint)), ""),
            kind => {
                // sysbench's --mysql-storage-engine, as it writes its default (innodb).
                let engine = crate::server::mariadb::storage_engine(kind);
                let engine = if engine == "InnoDB" { "innodb" } else { engine };
                (Box::new(sql::mariadb::MySql::new(endpoint)), engine)
            }
        })
    }

    pub(super) fn stats(&self, tables: u32) -> Vec<(String, String)> {
        let mut out = self.endpoint.as_ref().map(crate::server::server_stats).unwrap_or_default();
        out.extend(self.table.stats(tables));
        out
    }

    pub(super) fn remote(&self) -> Option<&Endpoint> {
        self.endpoint.as_ref().filter(|e| e.remote)
    }

    /// A step that did not complete on a server that is gone: failed, with
    /// the verdict as its error ("the server at HOST:PORT closed the
    /// connection ..."), the clients' own errors kept as a note. A failed
    /// step asks the monitor first (its clients may have seen the closed
    /// connection before the monitor's next ping). A server that fell
    /// silent only after a stop was asked for leaves the step interrupted.
    pub(super) fn name_a_gone_server(&self, result: &mut StepResult) {
        let Some(l) = self.watch.as_ref().map(Watch::liveness) else { return };
        let verdict = match (l.verdict(), result.status) {
            (_, Status::Completed) => None,
            (Some(v), _) => Some(v),
            (None, Status::Failed) => l.judge_now(JUDGE_WAIT),
            (None, _) => None,
        };
        let Some(v) = verdict else { return };
        if v.while_stopping && v.gone == Gone::Stopped && result.status == Status::Interrupted {
            result.notes.push(format!("{v}: its calls were cut after the stop"));
            return;
        }
        if let Some(e) = result.error.take().filter(|e| !e.contains(&v.text)) {
            result.notes.push(format!("the clients' errors: {e}"));
        }
        result.status = Status::Failed;
        result.error = Some(v.text.clone());
    }
}

/// How long a failed step waits for the liveness monitor's word on the server.
pub(super) const JUDGE_WAIT: std::time::Duration = std::time::Duration::from_millis(2500);

/// Whether the plan runs YCSB's workloads on records loaded before it (no ycsb-load).
pub(super) fn ycsb_on_existing(plan: &RunPlan) -> Option<&StepPlan> {
    let first = plan.steps.iter().find(|s| s.kind.is_ycsb())?;
    (!plan.steps.iter().any(|s| s.kind == StepKind::YcsbLoad)).then_some(first)
}

/// The tables a plan creates: the insert benchmark's, or YCSB's (not one
/// loaded before the run, which it only uses).
pub(super) fn own_tables(plan: &RunPlan, ibench_tables: u32) -> Vec<String> {
    let mut names: Vec<String> = (0..ibench_tables).map(crate::workload::ibench::table_name).collect();
    if plan.steps.iter().any(|s| s.kind == StepKind::YcsbLoad) {
        names.push(ycsb::TABLE.to_string());
    }
    if let Some(s) = plan.steps.iter().find(|s| s.kind == StepKind::HotRow) {
        names.extend(
            (0..s.settings.contention.hot_tables.iter().copied().max().unwrap_or(1)).map(contention::hot_table),
        );
    }
    if plan.steps.iter().any(|s| s.kind == StepKind::RandomTransaction) {
        names.push(contention::SETS_TABLE.to_string());
    }
    names
}

/// Tables that the shards of one plan share on a server (shard 0 creates
/// them, every shard keeps them at its end); the insert benchmark's are
/// each shard's own.
pub(super) fn shared_by_shards(name: &str) -> bool {
    name == ycsb::TABLE || name == contention::SETS_TABLE || name.starts_with("hot")
}

/// The tables a run creates, as (shared with the other shards, its own):
/// all its own when it is not sharded.
pub(super) fn split_for_shards(plan: &RunPlan, tables: Vec<String>) -> (Vec<String>, Vec<String>) {
    match plan.settings.shard {
        Some(_) => tables.into_iter().partition(|n| shared_by_shards(n)),
        None => (Vec::new(), tables),
    }
}

/// How many insert-benchmark tables a plan uses (one per client, or one).
pub(super) fn ibench_tables(plan: &RunPlan) -> u32 {
    match plan.steps.first() {
        Some(first) if plan.steps.iter().any(|s| s.kind.is_ibench()) => {
            if first.settings.ibench.one_table {
                1
            } else {
                first.settings.threads as u32
            }
        }
        _ => 0,
    }
}

/// What a server keeps records in, for messages: MongoDB's are collections.
pub(super) fn tables_word(e: &Endpoint) -> &'static str {
    if e.kind == ServerKind::Mongodb {
        "collection(s)"
    } else {
        "table(s)"
    }
}

/// A server engine config's target (a server the user runs), if it has one.
pub fn target_endpoint(config: &EngineConfig) -> Result<Option<Endpoint>> {
    let Some(kind) = server_kind(&config.engine) else { return Ok(None) };
    let Some(url) = config.options.get("target").filter(|u| !u.is_empty()) else { return Ok(None) };
    let mut endpoint = Endpoint::remote(&TargetUrl::parse(url)?, kind);
    if let Some(p) = &config.target_password {
        endpoint.password = Some(p.clone());
    }
    Ok(Some(endpoint))
}

/// Before anything runs: a target must answer, and hold none of the tables
/// rumbench would create (it never drops what it did not create).
pub fn check_target(plan: &RunPlan, config: &EngineConfig) -> Result<()> {
    let Some(endpoint) = target_endpoint(config)? else { return Ok(()) };
    crate::workload::ibench::use_shard_tables(plan.settings.shard(), ibench_tables(plan));
    let mut names = own_tables(plan, ibench_tables(plan));
    // Shards after the first use the tables shard 0 creates (they may be there already).
    if plan.settings.shard().index > 0 {
        names.retain(|n| !shared_by_shards(n));
    }
    // Through the clients' own handshake (time-outs, what a server that is not one sent).
    endpoint.check_answers().with_context(|| format!("config {}", config.name))?;
    let clash = endpoint.existing_tables(&names).with_context(|| format!("config {}", config.name))?;
    if !clash.is_empty() {
        bail!(
            "config {}: {} already holds {} {}, which rumbench would create: it drops only {} it created; drop or rename them yourself, or use another database",
            config.name,
            endpoint.url(),
            tables_word(&endpoint),
            clash.join(", "),
            if endpoint.kind == ServerKind::Mongodb { "collections" } else { "tables" },
        );
    }
    Ok(())
}

/// Before anything runs: YCSB's records that the plan's run steps use
/// without loading them (--target, --use-existing-db) are there, of YCSB's
/// shape, and can be counted.
pub fn check_existing_ycsb(plan: &RunPlan, opts: &RunOptions, config: &EngineConfig) -> Result<()> {
    let Some(step) = ycsb_on_existing(plan) else { return Ok(()) };
    let y = &step.settings.ycsb;
    let found = if let Some(endpoint) = target_endpoint(config)?.filter(|e| e.kind == ServerKind::Mongodb) {
        let mongo = Mongo::connect(&endpoint.mongodb_address(), None)?;
        ycsb::existing_records(&ycsb::mongodb::MongoStore::new(&mongo, y.field_count), y)
    } else if let Some(endpoint) = target_endpoint(config)? {
        let store: Box<dyn ycsb::Store> = match endpoint.kind {
            ServerKind::Postgres => Box::new(ycsb::postgres::PgStore::new(endpoint, y.field_count)),
            _ => Box::new(ycsb::mariadb::MyStore::new(endpoint, y.field_count)),
        };
        ycsb::existing_records(store.as_ref(), y)
    } else if opts.use_existing_db {
        let dir = opts.db_root().join(&config.name);
        let spec = crate::backend::find(&config.engine)?;
        // Only counted and checked here: read-only, so nothing is written before the run.
        let engine = (spec.open)(&kv_open_args(config, plan, &dir, false, true))
            .with_context(|| format!("cannot open {} in {}", config.engine, dir.display()))?;
        ycsb::existing_records(&ycsb::kv::KvStore::new(engine.as_ref(), y.field_length), y)
    } else {
        return Ok(());
    };
    found.map(drop).with_context(|| format!("config {}", config.name))
}

/// How a key-value engine is opened for a plan's tables or records.
pub(super) fn kv_open_args(
    config: &EngineConfig,
    plan: &RunPlan,
    dir: &Path,
    create: bool,
    read_only: bool,
) -> OpenArgs {
    // The engine's size hints: the rows' keys and values, or YCSB's records
    // (keys "user" + up to 19 digits). The null engine pretends every key
    // exists: YCSB's keys are not numbered from 0.
    let ycsb = plan.steps.iter().find(|s| s.kind.is_ycsb()).map(|s| &s.settings.ycsb);
    let (key_size, value_size, num_keys) = match ycsb {
        Some(y) => (23, y.field_count * y.field_length, u64::MAX),
        None => (kv_table::KEY_SIZE, kv_table::VALUE_SIZE, plan.settings.num),
    };
    OpenArgs {
        dir: dir.to_path_buf(),
        options: EngineOptions(config.options.clone()),
        key_size,
        value_size,
        num_keys,
        threads: runner::sessions_opened(plan),
        space_needed: crate::backend::find(&config.engine).ok().and_then(|spec| (spec.space_needed)(plan)),
        create,
        read_only,
    }
}

/// Copy a server's log into the output directory (the data dir is removed
/// after the run); returns where it went.
pub(super) fn keep_log(log: &Path, output_dir: &Path, config: &str) -> Option<PathBuf> {
    let dest = output_dir.join(format!("{config}.server.log"));
    std::fs::copy(log, &dest).ok().map(|_| dest)
}

/// The log of a server that failed to start, kept in the output directory;
/// when it wrote none (it never ran), what is known instead: the error and
/// the tool's output. None only when the output directory cannot be written.
pub(super) fn keep_start_log(e: &ServerStartError, output_dir: &Path, config: &str) -> Option<PathBuf> {
    keep_log(&e.log_path, output_dir, config).or_else(|| {
        let dest = output_dir.join(format!("{config}.server.log"));
        let text = format!("rumbench: {e}\n(the server wrote no log there)\n{}\n", e.log_tail.join("\n"));
        std::fs::write(&dest, text).ok().map(|_| dest)
    })
}

pub(super) fn open_backend(config: &EngineConfig, plan: &RunPlan, opts: &RunOptions, dir: &Path) -> Result<Backend> {
    let rows = RowGen::new(plan.settings.seed);
    if let Some(mut endpoint) = target_endpoint(config)? {
        // First: every connection made below is cut when the server is found gone.
        let watch = Some(endpoint.watch(crate::driver::stop::stop_requested)?);
        if endpoint.kind == ServerKind::Mongodb {
            let write_concern = WriteConcernSetting::from_options(&config.options)?;
            // The setup's and the figures' driver: each client thread connects
            // a driver of its own (server::mongodb::ThreadDriver).
            let mongo = std::sync::Arc::new(Mongo::connect(&endpoint.mongodb_address(), Some(&write_concern))?);
            let table = Box::new(MongoTable::new(mongo.clone(), write_concern)?);
            return Ok(Backend { table, endpoint: Some(endpoint), server: None, mongo: Some(mongo), watch });
        }
        let table: Box<dyn Table> = match endpoint.kind {
            ServerKind::Postgres => Box::new(PgTable::new(endpoint.clone(), None, Transport::Tcp)?),
            _ => Box::new(MyTable::new(endpoint.clone(), None, Transport::Tcp)?),
        };
        return Ok(Backend { table, endpoint: Some(endpoint), server: None, mongo: None, watch });
    }
    if let Some(kind) = server_kind(&config.engine) {
        // A panic anywhere stops every server at once.
        crate::server::install_panic_hook();
        // The server's own private dir, inside the data dir rumbench marked
        // as its own (initdb wants an empty directory).
        // A server version's binaries (fetched before the run; cached),
        // without the config lines that version does not know (reported).
        let bin_dir =
            config.server_version.as_deref().map(|v| crate::server::versioned_binaries(kind, v)).transpose()?;
        let cfg = ServerConfig { kind, data_dir: dir.join("server"), config_lines: config.applied_server_config() };
        let server = match RunningServer::start_with_binaries(&cfg, bin_dir.as_deref()) {
            Ok(s) => s,
            Err(e) => {
                // One line, pointing at a copy of the log that outlives the data dir.
                if let Some(se) = e.downcast_ref::<ServerStartError>() {
                    match keep_start_log(se, &opts.output_dir, &config.instance_name()) {
                        Some(log) => {
                            bail!("{} failed to {}: {} (log: {})", se.kind, se.phase, se.reason, log.display())
                        }
                        None => bail!(
                            "{} failed to {}: {} (no log could be kept in {})",
                            se.kind,
                            se.phase,
                            se.reason,
                            opts.output_dir.display()
                        ),
                    }
                }
                return Err(e);
            }
        };
        let transport = Transport::from_options(&config.options);
        let mut endpoint = server.endpoint(transport == Transport::Unix);
        // A server rumbench started can die or freeze (killed, SIGSTOPped)
        // as a target can: watched the same way, before any connection is made.
        let watch = Some(endpoint.watch(crate::driver::stop::stop_requested)?);
        let table: Box<dyn Table> = match kind {
            ServerKind::Postgres => Box::new(PgTable::new(endpoint.clone(), Some(&server), transport)?),
            _ => Box::new(MyTable::new(endpoint.clone(), Some(&server), transport)?),
        };
        return Ok(Backend { table, endpoint: Some(endpoint), server: Some(server), mongo: None, watch });
    }
    let spec = crate::backend::find(&config.engine)?;
    // The tables start empty (--use-existing-db is refused for them); YCSB's
    // records may have been loaded before.
    let args = kv_open_args(config, plan, dir, !opts.use_existing_db, runner::opens_read_only(plan, opts));
    let engine = (spec.open)(&args).with_context(|| format!("cannot open {} in {}", config.engine, dir.display()))?;
    Ok(Backend {
        table: Box::new(KvTable::new(engine, &config.engine, rows)),
        endpoint: None,
        server: None,
        mongo: None,
        watch: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_error_names_a_log_that_outlives_the_data_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let error = |log: PathBuf| ServerStartError {
            kind: ServerKind::Postgres,
            phase: "start".into(),
            reason: "/bin/sh: 1: cannot create server.log".into(),
            log_path: log,
            log_tail: vec!["pg_ctl: could not start server".into()],
        };
        // A log the server wrote: copied.
        let written = tmp.path().join("server.log");
        std::fs::write(&written, "FATAL: no\n").unwrap();
        let kept = keep_start_log(&error(written), tmp.path(), "pg").unwrap();
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "FATAL: no\n");
        // None written: what is known, in a file that exists.
        let kept = keep_start_log(&error(tmp.path().join("gone/server.log")), tmp.path(), "pg2").unwrap();
        let text = std::fs::read_to_string(&kept).unwrap();
        assert!(kept.starts_with(tmp.path()), "{}", kept.display());
        assert!(text.contains("cannot create server.log") && text.contains("pg_ctl: could not start server"), "{text}");
    }
}
