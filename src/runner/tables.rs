//! One engine config of a run whose workload needs tables (the insert
//! benchmark, YCSB), in its config process as every config: open its
//! backend (runner/backends.rs: the server started, or the key-value engine
//! whose tables are a layer over its key space), create the tables, run the
//! steps with the runner's probes, write the results after every step, and
//! stop the server on success, error, Ctrl-C and panic.
//!
//! Stopping: the server is stopped explicitly at the end (its error, if any,
//! is recorded); `RunningServer`'s Drop stops it if anything returns early or
//! unwinds; a panic hook stops every server at the panic itself (a panic in a
//! client thread must not leave the server running while the others wind
//! down); a second Ctrl-C (which exits at once) stops them in main's handler;
//! and the parent process stops a server whose config process died
//! (`stop_leftover_servers`).

use std::path::Path;

use anyhow::{Context, Result};

use super::backends::*;
use crate::measure::os::sysinfo;
use crate::measure::step_metrics::{Missing, Probes, StepWork, SyncMetrics};
use crate::plan::steps::StepKind;
use crate::plan::{RunPlan, StepPlan};
use crate::result::scaling::Machine;
use crate::result::{RunResult, Status, StepResult};
use crate::runner::dirs::DataDir;
use crate::runner::{self, RunOptions};
use crate::server::liveness::Gone;
use crate::server::RunningServer;
use crate::workload::contention::{self, ContentionState};
use crate::workload::ibench::exec::{self, IbenchState};
use crate::workload::ibench::{RowGen, ROW_LOGICAL_BYTES};
use crate::workload::sql::SqlStore;
use crate::workload::sysbench::{self, SysbenchState};
use crate::workload::ycsb::{self, YcsbState};

/// What the steps of one config carry from step to step.
struct ConfigState {
    ibench: IbenchState,
    ycsb: YcsbState,
    contention: ContentionState,
    sysbench: SysbenchState,
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
    crate::workload::ibench::query_step(kind).is_some()
        || (kind.is_ycsb() && kind != StepKind::YcsbLoad)
        || kind.is_sysbench()
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
        result.notes.extend(e.step_notes(plan.kind));
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
    let run = || {
        if plan.kind.is_contention() {
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
        } else if plan.kind.is_sysbench() {
            let (result, work) = match backend.sql_store() {
                Ok((store, engine)) => {
                    sysbench::run_step(store.as_ref(), engine, plan, index, &mut state.sysbench, result)
                }
                Err(e) => with_store::<dyn SqlStore, _>(Err(e), result, |_, r| (r, Default::default())),
            };
            let step_work = StepWork {
                ops: result.ops,
                queries: work.queries,
                writes: work.writes,
                // A server's syncs are made in its own processes, not counted here.
                commits: 0,
                logical_bytes_written: work.logical_bytes_written,
                writer_threads: if work.writes > 0 { plan.settings.threads as u64 } else { 0 },
                live_keys: None,
                entry_bytes: 188,
                wall_s: result.wall_s.unwrap_or(0.0),
            };
            // sysbench's transactions (or autocommit writes) are the
            // commits, those that changed a row: a commit that wrote no log
            // has nothing to sync.
            let commits = if work.writes > 0 { work.writing_events } else { 0 };
            (result, step_work, commits, None)
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
        }
    };
    let ((mut result, step_work, commits, info), internals) = match plan.settings.internals {
        true => match backend.table.internals_probe() {
            Ok(probe) => super::internals::sample_during(probe, run),
            Err(why) => (run(), Err(why)),
        },
        false => (run(), Err("not sampled (--internals off)".into())),
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
    match internals {
        Ok(series) => result.internals = Some(series),
        Err(reason) => result.metrics.missing.push(Missing { metric: "internals".into(), reason }),
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
    let step = super::judgments::Step {
        plan,
        writes: "rows",
        engine_counters: None,
        logical_bytes_written: step_work.logical_bytes_written,
    };
    super::judgments::judge(&step, &mut result);
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
    let probes = runner::duet_probes(probes, config);
    let mut state = ConfigState {
        ibench: IbenchState::new(tables, RowGen::new(plan.settings.seed)),
        ycsb: YcsbState::new(),
        contention: ContentionState::default(),
        sysbench: SysbenchState::default(),
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
    let (shared, mut own) = split_for_shards(plan, own_tables(plan, tables));
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
    // sysbench's tables on a target: those this run made are its own, dropped
    // with the rest (kept with --keep-db); those that were there are the user's.
    own.extend(state.sysbench.created.iter().map(|&t| sysbench::table_name(t)));
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
    // A server that stopped answering (frozen, hung) would never shut down: it is ended at once.
    let frozen = watch.as_ref().and_then(|w| w.liveness().verdict()).filter(|v| v.gone == Gone::Stopped).cloned();
    drop(watch);
    if let Some(server) = server {
        let log = server.log_path().to_path_buf();
        let stopped = match &frozen {
            Some(v) => {
                run.configs[ci].notes.push(format!("{v}: the server was ended at once (SIGKILL), not shut down"));
                server.kill().map(drop)
            }
            None if runner::orphaned() => {
                run.configs[ci].notes.push(
                    "the main rumbench process died: the server was ended at once (SIGKILL), not shut down".into(),
                );
                server.kill().map(drop)
            }
            None => server.stop(),
        };
        if let Err(e) = stopped {
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
