//! One engine config of a run whose workload needs tables (the insert
//! benchmark, YCSB), in its config process as every config: start the server
//! or open the key-value engine (its tables are a layer over its key space),
//! create the tables, run the steps with the runner's probes, write the
//! results after every step, and stop the server on success, error, Ctrl-C
//! and panic.
//!
//! Stopping: the server is stopped explicitly at the end (its error, if any,
//! is recorded); `RunningServer`'s Drop stops it if anything returns early or
//! unwinds; a panic hook stops every server at the panic itself (a panic in a
//! client thread must not leave the server running while the others wind
//! down); a second Ctrl-C (which exits at once) stops them in main's handler;
//! and the parent process stops a server whose config process died
//! (`stop_leftover_servers`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::backend::servers::Transport;
use crate::engine::{EngineOptions, OpenArgs};
use crate::measure::os::sysinfo;
use crate::measure::step_metrics::{Missing, Probes, StepWork, SyncMetrics};
use crate::plan::steps::StepKind;
use crate::plan::{EngineConfig, RunPlan, StepPlan};
use crate::result::scaling::Machine;
use crate::result::{RunResult, Status, StepResult};
use crate::runner::dirs::DataDir;
use crate::runner::{self, RunOptions};
use crate::server::endpoint::TargetUrl;
use crate::server::kind_of as server_kind;
use crate::server::liveness::{Gone, Watch};
use crate::server::mongodb::{Mongo, WriteConcernSetting};
use crate::server::{Endpoint, RunningServer, ServerConfig, ServerKind, ServerStartError};
use crate::workload::contention::{self, ContentionState};
use crate::workload::ibench::exec::{self, IbenchState};
use crate::workload::ibench::kv::{self as kv_table, KvTable};
use crate::workload::ibench::mariadb::MyTable;
use crate::workload::ibench::mongodb::MongoTable;
use crate::workload::ibench::postgres::PgTable;
use crate::workload::ibench::table::Table;
use crate::workload::ibench::{RowGen, ROW_LOGICAL_BYTES};
use crate::workload::ycsb::{self, YcsbState};

/// An open backend: the table layer, and the server behind it if any.
struct Backend {
    table: Box<dyn Table>,
    /// How clients reach the server (one rumbench started, or a target).
    endpoint: Option<Endpoint>,
    /// The server rumbench started (None for a target).
    server: Option<RunningServer>,
    /// A MongoDB target's driver (its pool), shared by every step's clients.
    mongo: Option<std::sync::Arc<Mongo>>,
    /// Whether a target is still there (server::liveness): its monitor.
    watch: Option<Watch>,
}

impl Backend {
    /// YCSB's view of this backend.
    fn ycsb_store(&self, plan: &StepPlan) -> Result<Box<dyn ycsb::Store + '_>> {
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
    fn contention_store(&self, plan: &StepPlan) -> Result<Box<dyn contention::Store + '_>> {
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

    fn stats(&self, tables: u32) -> Vec<(String, String)> {
        let mut out = self.endpoint.as_ref().map(crate::server::server_stats).unwrap_or_default();
        out.extend(self.table.stats(tables));
        out
    }

    fn remote(&self) -> Option<&Endpoint> {
        self.endpoint.as_ref().filter(|e| e.remote)
    }

    /// A step that did not complete on a server that is gone: failed, with
    /// the verdict as its error ("the server at HOST:PORT closed the
    /// connection ..."), the clients' own errors kept as a note. A failed
    /// step asks the monitor first (its clients may have seen the closed
    /// connection before the monitor's next ping). A server that fell
    /// silent only after a stop was asked for leaves the step interrupted.
    fn name_a_gone_server(&self, result: &mut StepResult) {
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
const JUDGE_WAIT: std::time::Duration = std::time::Duration::from_millis(2500);

/// Whether the plan runs YCSB's workloads on records loaded before it (no ycsb-load).
fn ycsb_on_existing(plan: &RunPlan) -> Option<&StepPlan> {
    let first = plan.steps.iter().find(|s| s.kind.is_ycsb())?;
    (!plan.steps.iter().any(|s| s.kind == StepKind::YcsbLoad)).then_some(first)
}

/// The tables a plan creates: the insert benchmark's, or YCSB's (not one
/// loaded before the run, which it only uses).
fn own_tables(plan: &RunPlan, ibench_tables: u32) -> Vec<String> {
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
fn shared_by_shards(name: &str) -> bool {
    name == ycsb::TABLE || name == contention::SETS_TABLE || name.starts_with("hot")
}

/// The tables a run creates, as (shared with the other shards, its own):
/// all its own when it is not sharded.
fn split_for_shards(plan: &RunPlan, tables: Vec<String>) -> (Vec<String>, Vec<String>) {
    match plan.settings.shard {
        Some(_) => tables.into_iter().partition(|n| shared_by_shards(n)),
        None => (Vec::new(), tables),
    }
}

/// How many insert-benchmark tables a plan uses (one per client, or one).
fn ibench_tables(plan: &RunPlan) -> u32 {
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
fn tables_word(e: &Endpoint) -> &'static str {
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
fn kv_open_args(config: &EngineConfig, plan: &RunPlan, dir: &Path, create: bool, read_only: bool) -> OpenArgs {
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
        space_needed: crate::engine::splinterdb::run_space_needed(plan).ok(),
        create,
        read_only,
    }
}

/// Copy a server's log into the output directory (the data dir is removed
/// after the run); returns where it went.
fn keep_log(log: &Path, output_dir: &Path, config: &str) -> Option<PathBuf> {
    let dest = output_dir.join(format!("{config}.server.log"));
    std::fs::copy(log, &dest).ok().map(|_| dest)
}

/// The log of a server that failed to start, kept in the output directory;
/// when it wrote none (it never ran), what is known instead: the error and
/// the tool's output. None only when the output directory cannot be written.
fn keep_start_log(e: &ServerStartError, output_dir: &Path, config: &str) -> Option<PathBuf> {
    keep_log(&e.log_path, output_dir, config).or_else(|| {
        let dest = output_dir.join(format!("{config}.server.log"));
        let text = format!("rumbench: {e}\n(the server wrote no log there)\n{}\n", e.log_tail.join("\n"));
        std::fs::write(&dest, text).ok().map(|_| dest)
    })
}

fn open_backend(config: &EngineConfig, plan: &RunPlan, opts: &RunOptions, dir: &Path) -> Result<Backend> {
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
        // A PostgreSQL version's binaries (fetched before the run; cached),
        // without the config lines that version does not know (reported).
        let bin_dir = config.server_version.as_deref().map(crate::server::pg_versions::ensure_named).transpose()?;
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
        let endpoint = server.endpoint(transport == Transport::Unix);
        let table: Box<dyn Table> = match kind {
            ServerKind::Postgres => Box::new(PgTable::new(endpoint.clone(), Some(&server), transport)?),
            _ => Box::new(MyTable::new(endpoint.clone(), Some(&server), transport)?),
        };
        return Ok(Backend { table, endpoint: Some(endpoint), server: Some(server), mongo: None, watch: None });
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

/// What the steps of one config carry from step to step.
struct ConfigState {
    ibench: IbenchState,
    ycsb: YcsbState,
    contention: ContentionState,
}

/// Run a step on a workload's view of the backend, or fail it when the view cannot be made.
fn with_store<S: ?Sized, W: Default>(
    store: Result<Box<S>>,
    mut result: StepResult,
    run: impl FnOnce(&S, StepResult) -> (StepResult, W),
) -> (StepResult, W) {
    match store {
        Ok(store) => run(store.as_ref(), result),
        Err(e) => {
            result.status = Status::Failed;
            result.error = Some(format!("{e:#}"));
            (result, W::default())
        }
    }
}

/// Steps that read what earlier steps wrote (io-bound mode starts them cold).
fn reads_data(kind: StepKind) -> bool {
    crate::workload::ibench::query_step(kind).is_some() || (kind.is_ycsb() && kind != StepKind::YcsbLoad)
}

fn run_step(
    backend: &Backend,
    plan: &StepPlan,
    index: usize,
    state: &mut ConfigState,
    probes: &Probes,
    dir: &Path,
) -> StepResult {
    let mut result = StepResult::new(plan);
    if let Some(e) = backend.table.kv_engine() {
        result.notes.extend(e.step_notes(plan.kind.name(), plan.kind.changes_data()));
    }
    let server = backend.endpoint.is_some();
    // (Refused for targets when the plan was built: this machine's page cache is not theirs.)
    if plan.settings.mode == crate::plan::Mode::IoBound && reads_data(plan.kind) {
        match runner::drop_page_cache(dir) {
            Ok(()) => result.notes.push("io-bound mode: page cache dropped before the step".into()),
            Err(why) => result.warnings.push(format!("io-bound mode: {why}")),
        }
    }
    let syncs_before = backend.table.server_syncs();
    let probe = plan.settings.metrics.then(|| probes.begin());
    let (mut result, step_work, commits, info) = if plan.kind.is_contention() {
        let (result, work) = with_store(backend.contention_store(plan), result, |store, r| {
            contention::run_step(store, plan, index, &mut state.contention, r)
        });
        let step_work = StepWork {
            ops: result.ops,
            queries: work.queries,
            writes: work.writes,
            commits: if server { 0 } else { work.commits },
            logical_bytes_written: work.logical_bytes_written,
            writer_threads: if work.writes > 0 { plan.settings.threads as u64 } else { 0 },
            live_keys: None,
            entry_bytes: 8,
            wall_s: result.wall_s.unwrap_or(0.0),
        };
        (result, step_work, work.commits, None)
    } else if plan.kind.is_ycsb() {
        let y = &plan.settings.ycsb;
        let (result, work) = with_store(backend.ycsb_store(plan), result, |store, r| {
            ycsb::run_step(store, plan, index, &mut state.ycsb, r)
        });
        let step_work = StepWork {
            ops: result.ops,
            queries: work.queries,
            writes: work.writes,
            // A server's syncs are made in its own processes, not counted here.
            commits: if server { 0 } else { work.writes },
            logical_bytes_written: work.logical_bytes_written,
            writer_threads: if work.writes > 0 { plan.settings.threads as u64 } else { 0 },
            live_keys: Some(state.ycsb.inserts.count()),
            entry_bytes: (y.field_count * y.field_length + 23) as u64,
            wall_s: result.wall_s.unwrap_or(0.0),
        };
        (result, step_work, work.writes, None)
    } else {
        let (result, work, info) = exec::run_step(backend.table.as_ref(), plan, index, &state.ibench, result);
        let step_work = StepWork {
            ops: work.main_ops,
            queries: work.queries,
            writes: work.rows_inserted,
            commits: if server { 0 } else { work.commits },
            logical_bytes_written: work.logical_bytes_written,
            writer_threads: work.writer_threads,
            live_keys: Some(state.ibench.expected_rows()),
            entry_bytes: ROW_LOGICAL_BYTES,
            wall_s: result.wall_s.unwrap_or(0.0) + info.settle_s.unwrap_or(0.0),
        };
        (result, step_work, work.commits, Some(info))
    };
    // Before the figures below: a server that is gone is not asked for them.
    backend.name_a_gone_server(&mut result);
    match probe {
        Some(p) => result.metrics = p.end(probes, &step_work),
        None => result
            .metrics
            .missing
            .push(Missing { metric: "all".into(), reason: "efficiency metrics turned off (--metrics off)".into() }),
    }
    if server && plan.settings.metrics {
        // The server syncs in its own processes: take its own count.
        let why_missing = match (syncs_before, backend.table.server_syncs()) {
            (Some(Ok(before)), Some(Ok(after))) => {
                if commits > 0 {
                    result.metrics.syncs = Some(SyncMetrics::from_server(
                        after.count.saturating_sub(before.count),
                        after.counter,
                        after.includes_data_files,
                        commits,
                        step_work.writer_threads,
                    ));
                }
                None
            }
            (Some(Err(e)), _) | (_, Some(Err(e))) => Some(format!("could not read the server's sync counter: {e:#}")),
            _ => Some("the server makes its sync calls in its own processes and reports no count of them".into()),
        };
        if let Some(reason) = why_missing {
            result.metrics.missing.push(Missing { metric: "syncs".into(), reason });
        }
    }
    // A server rumbench did not start: its own figure of the space its collections take.
    if let Some(size) =
        backend.table.server_storage_bytes(state.ibench.tables.len() as u32).filter(|_| plan.settings.metrics)
    {
        match size {
            Ok((bytes, source)) => {
                result.metrics.missing.retain(|m| m.metric != "db_size");
                result.metrics.db_size_bytes = Some(bytes);
                if let Some(live) = step_work.live_keys {
                    let logical = live * step_work.entry_bytes;
                    result.metrics.live_keys = Some(live);
                    result.metrics.logical_live_bytes = Some(logical);
                    result.metrics.space_amp = (logical > 0).then(|| bytes as f64 / logical as f64);
                }
                result.notes.push(format!("database size as the server reports it: {source}"));
            }
            Err(e) => result.metrics.missing.push(Missing {
                metric: "db_size".into(),
                reason: format!("the server's collection sizes could not be read: {e:#}"),
            }),
        }
    }
    // Writes acknowledged without asking for the journal: ND, whatever was synced.
    if let Some(why) = backend.table.not_durable_reason().filter(|_| commits > 0) {
        result.metrics.syncs = Some(result.metrics.syncs.take().unwrap_or_default().not_durable_as_asked(commits, why));
    }
    // l.x is one call per table: it has no per-second rates to speak of.
    if plan.kind != StepKind::CreateIndexes {
        result.rates = result
            .main_op()
            .zip(result.wall_s)
            .and_then(|(o, wall_s)| crate::measure::rate_percentiles(&o.intervals, wall_s));
    }
    if let Some(info) = info {
        ibench_after_step(backend, plan, &mut state.ibench, &mut result, info);
    }
    if let Some(w) = &result.writer {
        if w.missed_target {
            result.warnings.push(format!(
                "background writers missed their rate: {:.0} of {:.0} rows/s",
                w.achieved_ops_s,
                w.target_ops_s.unwrap_or(0.0)
            ));
        }
    }
    if let Some(w) = result.metrics.syncs.as_ref().and_then(SyncMetrics::not_durable_warning) {
        result.warnings.push(w);
    }
    let device_warnings = result.metrics.judge_device_io();
    result.warnings.extend(device_warnings);
    result.engine_stats = backend.stats(state.ibench.tables.len() as u32);
    result
}

/// The insert benchmark's state after a step, and its rows counted (after the measured part).
fn ibench_after_step(
    backend: &Backend,
    plan: &StepPlan,
    state: &mut IbenchState,
    result: &mut StepResult,
    mut info: crate::result::IbenchStepInfo,
) {
    match plan.kind {
        StepKind::LoadI0 => state.loaded = true,
        StepKind::CreateIndexes if result.status == Status::Completed => state.indexed = true,
        _ => {}
    }
    info.expected_rows = state.expected_rows();
    info.indexed = state.indexed;
    let counted = (|| -> anyhow::Result<Vec<u64>> {
        let mut s = backend.table.session()?;
        (0..state.tables.len() as u32).map(|t| s.row_count(t)).collect()
    })();
    match counted {
        Ok(rows) => {
            let total: u64 = rows.iter().sum();
            if total != info.expected_rows && result.status == Status::Completed {
                result.warnings.push(format!(
                    "the tables hold {total} rows, {} expected from the ids inserted and deleted",
                    info.expected_rows
                ));
            }
            info.table_rows = rows;
        }
        Err(e) => result.notes.push(format!("could not count the rows: {e:#}")),
    }
    if let Some(s) = info.settle_s {
        result.notes.push(format!("settle: {s:.1} s ({})", info.settle.join("; ")));
    }
    result.ibench = Some(info);
}

fn fail_config(run: &mut RunResult, opts: &RunOptions, msg: String) -> Result<()> {
    let c = run.configs.last_mut().expect("config result");
    c.status = Status::Failed;
    c.error = Some(msg);
    runner::write_results(run, opts)
}

/// Run config `index` of `plan`: its insert-benchmark steps.
pub fn run_config(plan: &RunPlan, opts: &RunOptions, index: usize, run: &mut RunResult) -> Result<()> {
    let config = plan.configs.get(index).context("config index out of range")?;
    let dir = opts.data_dir(config);
    let mut cres = runner::new_config_result(config, dir.clone());
    cres.allocator_in_use = Some(sysinfo::allocator(Path::new("/proc")));
    run.configs.push(cres);
    // --use-existing-db is refused when the plan is checked but for YCSB's
    // records on key-value engines: the tables start empty.
    // A server that a killed run left running in an earlier run's dir is
    // stopped before its files are cleared.
    let stop_leftover = |d: &Path| {
        for note in crate::server::stop_leftover_servers(&config.engine, d, false) {
            errln!("  {}: {note}", config.name);
        }
    };
    let data = if opts.use_existing_db { DataDir::open(&dir, true) } else { DataDir::fresh_with(&dir, stop_leftover) };
    let data = match data {
        Ok(d) => d,
        Err(e) => return fail_config(run, opts, format!("{e:#}")),
    };
    let tables = ibench_tables(plan);
    crate::workload::ibench::use_shard_tables(plan.settings.shard(), tables);
    let backend = match open_backend(config, plan, opts, &dir).and_then(|b| {
        if let Some(e) = b.remote() {
            // Said before anything is created, so an interrupted run leaves no surprise.
            let (shared, mine) = split_for_shards(plan, own_tables(plan, tables));
            let end = if opts.keep_db { "keeps them (--keep-db)" } else { "drops them at the end" };
            if !mine.is_empty() {
                errln!(
                    "  {}: rumbench creates {} {} in {} and {end}",
                    config.name,
                    tables_word(e),
                    mine.join(", "),
                    e.url()
                );
            }
            if !shared.is_empty() {
                let who = if plan.settings.shard().index > 0 { "shard 0 creates" } else { "rumbench creates" };
                errln!(
                    "  {}: {who} {} {} in {} and keeps them for the other shards (drop them when every shard is done)",
                    config.name,
                    tables_word(e),
                    shared.join(", "),
                    e.url()
                );
            }
            if ycsb_on_existing(plan).is_some() {
                errln!(
                    "  {}: rumbench runs YCSB's workloads on table {} in {}, which it did not create: it is kept",
                    config.name,
                    ycsb::TABLE,
                    e.url()
                );
            }
        }
        if tables > 0 {
            b.table.create_tables(tables)?;
        }
        Ok(b)
    }) {
        Ok(b) => b,
        Err(e) => {
            // With its causes: "cannot open lmdb in DIR" alone says nothing.
            let msg = format!("{e:#}").replace('\n', " ");
            if !opts.keep_db {
                data.remove();
            }
            return fail_config(run, opts, msg);
        }
    };
    let ci = run.configs.len() - 1;
    run.configs[ci].engine_version = Some(backend.table.version());
    run.configs[ci].effective_options = backend.table.effective_options();
    if let Some(note) = backend.table.kv_engine().and_then(|e| runner::existing_db_note(plan, opts, e, &config.engine))
    {
        run.configs[ci].notes.push(note);
    }
    let mut provenance = backend.table.provenance();
    provenance.extend(backend.server.as_ref().map(RunningServer::provenance).unwrap_or_default());
    if !config.server_config_unknown.is_empty() {
        provenance.push(("server_config.unknown".to_string(), config.server_config_unknown.join("; ")));
    }
    runner::record_provenance(run, ci, crate::backend::find(&config.engine)?, backend.table.version(), provenance);
    for l in &config.server_config_unknown {
        run.warnings.push(format!("{}: server setting {l:?} is unknown to this version: not applied", config.name));
        run.configs[ci].notes.push(format!("server setting {l:?} not applied: unknown to this version"));
    }
    let probes = match (&backend.server, backend.remote()) {
        (Some(s), _) => Probes::with_server(&dir, s.pid()),
        (None, Some(e)) => Probes::remote(
            &dir,
            format!(
                "{} is a server rumbench did not start: its processes and storage are not measured from here",
                e.url()
            ),
        ),
        (None, None) => runner::engine_probes(&dir, crate::backend::find(&config.engine)?),
    };
    let mut state = ConfigState {
        ibench: IbenchState::new(tables, RowGen::new(plan.settings.seed)),
        ycsb: YcsbState::new(),
        contention: ContentionState::default(),
    };
    // YCSB's records loaded before the run (checked before it started):
    // counted again here, the run steps' inserts continue after them.
    if let Some(step) = ycsb_on_existing(plan) {
        match backend.ycsb_store(step).and_then(|store| ycsb::existing_records(store.as_ref(), &step.settings.ycsb)) {
            Ok(records) => {
                state.ycsb = YcsbState::existing(records);
                run.configs[ci].notes.push(format!(
                    "YCSB's records loaded before the run: {records} (the run's inserts take the numbers after them)"
                ));
            }
            Err(e) => {
                drop(backend);
                if !opts.keep_db {
                    data.remove();
                }
                return fail_config(run, opts, format!("{e:#}").replace('\n', " "));
            }
        }
    }

    runner::steps::run_steps(plan, opts, index, ci, run, backend.table.kv_engine(), |step, i| {
        run_step(&backend, step, i, &mut state, &probes, &dir)
    })?;
    run.configs[ci].engine_stats = backend.stats(tables);
    // Each client of a server rumbench started has a server process on this machine.
    let machine = match &backend.server {
        Some(_) => {
            Machine { cores: runner::cores(), background: 0, per_client: 1, what: "a server process per client".into() }
        }
        None => {
            let (background, what) = backend.table.kv_engine().map(|e| e.background_threads()).unwrap_or_default();
            Machine { cores: runner::cores(), background, per_client: 0, what }
        }
    };
    runner::settle_config_status(run, ci, plan.steps.len(), machine);
    let (shared, own) = split_for_shards(plan, own_tables(plan, tables));
    let Backend { table, server, endpoint, mongo, watch } = backend;
    drop(mongo);
    drop(table);
    if let Some(e) = endpoint.as_ref().filter(|e| e.remote && !shared.is_empty()) {
        // The other shards may still be using them: the one who knows when all are done is the user.
        let shard = plan.settings.shard();
        run.configs[ci].notes.push(format!(
            "kept {} {} in {} for the other shards (shard {shard}): drop them when every shard is done",
            tables_word(e),
            shared.join(", "),
            e.url()
        ));
    }
    if let Some(e) = endpoint.filter(|e| e.remote && !own.is_empty()) {
        let what = format!("{} {} in {}", tables_word(&e), own.join(", "), e.url());
        if opts.keep_db {
            run.configs[ci].notes.push(format!("kept {what} (--keep-db)"));
        } else {
            match e.drop_tables(&own) {
                Ok(()) => run.configs[ci].notes.push(format!("created and dropped {what}")),
                Err(err) => run.warnings.push(format!("{}: could not drop {what}: {err:#}", config.name)),
            }
        }
    }
    drop(watch);
    if let Some(server) = server {
        let log = server.log_path().to_path_buf();
        if let Err(e) = server.stop() {
            run.warnings.push(format!("{}: {e:#}", config.name));
        }
        keep_log(&log, &opts.output_dir, &config.instance_name());
    }
    if !opts.keep_db {
        data.remove();
    }
    runner::write_results(run, opts)?;
    Ok(())
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
