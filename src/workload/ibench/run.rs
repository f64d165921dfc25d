//! One engine config of an insert-benchmark run (in its config process, as
//! every config): start the server or open the key-value engine, create the
//! tables, run the steps with the runner's probes, write the results after
//! every step, and stop the server on success, error, Ctrl-C and panic.
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

use super::exec::{self, IbenchState};
use super::kv::KvTable;
use super::mariadb::MyTable;
use super::postgres::PgTable;
use super::servers::Transport;
use super::table::Table;
use super::{server_kind, RowGen, ROW_LOGICAL_BYTES};
use crate::settings::{EngineConfig, RunPlan, StepPlan};
use crate::engine::{self, EngineOptions, OpenArgs};
use crate::measure::os::sysinfo;
use crate::measure::step_metrics::{Missing, Probes, StepWork, SyncMetrics};
use crate::result::{RunResult, Status, StepResult};
use crate::settings::steps::StepKind;
use crate::runner::dirs::DataDir;
use crate::runner::{self, RunOptions};
use crate::server::{RunningServer, ServerConfig, ServerKind, ServerStartError};

/// An open backend: the table layer, and the server behind it if any.
struct Backend {
    table: Box<dyn Table>,
    server: Option<RunningServer>,
}

impl Backend {
    fn stats(&self, tables: u32) -> Vec<(String, String)> {
        let mut out = self.server.as_ref().map(|s| s.server_stats()).unwrap_or_default();
        out.extend(self.table.stats(tables));
        out
    }
}

/// Copy a server's log into the output directory (the data dir is removed
/// after the run); returns where it went.
fn keep_log(log: &Path, output_dir: &Path, config: &str) -> Option<PathBuf> {
    let dest = output_dir.join(format!("{config}.server.log"));
    std::fs::copy(log, &dest).ok().map(|_| dest)
}

fn open_backend(config: &EngineConfig, plan: &RunPlan, opts: &RunOptions, dir: &Path) -> Result<Backend> {
    let rows = RowGen::new(plan.settings.seed);
    if let Some(kind) = server_kind(&config.engine) {
        // A panic anywhere stops every server at once.
        crate::server::install_panic_hook();
        // The server's own private dir, inside the data dir rumbench marked
        // as its own (initdb wants an empty directory).
        let cfg = ServerConfig { kind, data_dir: dir.join("server"), config_lines: config.server_config.clone() };
        let server = match RunningServer::start(&cfg) {
            Ok(s) => s,
            Err(e) => {
                // One line, pointing at a copy of the log that outlives the data dir.
                if let Some(se) = e.downcast_ref::<ServerStartError>() {
                    let log = keep_log(&se.log_path, &opts.output_dir, &config.name).unwrap_or_else(|| se.log_path.clone());
                    bail!("{} failed to {}: {} (log: {})", se.kind, se.phase, se.reason, log.display());
                }
                return Err(e);
            }
        };
        let transport = Transport::from_options(&config.options);
        let table: Box<dyn Table> = match kind {
            ServerKind::Postgres => Box::new(PgTable::new(&server, transport)?),
            _ => Box::new(MyTable::new(&server, transport)?),
        };
        return Ok(Backend { table, server: Some(server) });
    }
    let spec = engine::find(&config.engine)?;
    let args = OpenArgs {
        dir: dir.to_path_buf(),
        options: EngineOptions(config.options.clone()),
        key_size: 16,
        value_size: 40,
        num_keys: plan.settings.num,
        threads: plan.steps.iter().map(|s| s.settings.threads).max().unwrap_or(1) * 2 + 1,
    };
    let engine = (spec.open)(&args).with_context(|| format!("cannot open {} in {}", config.engine, dir.display()))?;
    Ok(Backend { table: Box::new(KvTable::new(engine, &config.engine, rows)), server: None })
}

fn run_step(
    backend: &Backend,
    plan: &StepPlan,
    index: usize,
    state: &mut IbenchState,
    probes: &Probes,
) -> StepResult {
    let result = runner::new_step_result(plan);
    let server = backend.server.is_some();
    let syncs_before = backend.table.server_syncs();
    let probe = probes.begin();
    let (mut result, work, mut info) = exec::run_step(backend.table.as_ref(), plan, index, state, result);
    let live_before_count = state.expected_rows();
    let step_work = StepWork {
        ops: work.main_ops,
        queries: work.queries,
        writes: work.rows_inserted,
        // A server's syncs are made in its own processes, not counted here.
        commits: if server { 0 } else { work.commits },
        logical_bytes_written: work.logical_bytes_written,
        writer_threads: work.writer_threads,
        live_keys: Some(live_before_count),
        entry_bytes: ROW_LOGICAL_BYTES,
        wall_s: result.wall_s + info.settle_s.unwrap_or(0.0),
    };
    result.metrics = probe.end(probes, &step_work);
    if server {
        // The server syncs in its own processes: take its own count.
        let why_missing = match (syncs_before, backend.table.server_syncs()) {
            (Some(Ok(before)), Some(Ok(after))) => {
                if work.commits > 0 {
                    result.metrics.syncs = Some(SyncMetrics::from_server(
                        after.count.saturating_sub(before.count),
                        after.counter,
                        after.includes_data_files,
                        work.commits,
                        work.writer_threads,
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
    // l.x is one call per table: it has no per-second rates to speak of.
    if plan.kind != StepKind::CreateIndexes {
        result.rates = result.main_op().and_then(|o| crate::measure::rate_percentiles(&o.intervals, result.wall_s));
    }
    match plan.kind {
        StepKind::LoadI0 => state.loaded = true,
        StepKind::CreateIndexes if result.status == Status::Completed => state.indexed = true,
        _ => {}
    }
    // Count the rows (after the measured part).
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
    if let Some(s) = info.settle_s {
        result.notes.push(format!("settle: {s:.1} s ({})", info.settle.join("; ")));
    }
    result.ibench = Some(info);
    result.engine_stats = backend.stats(state.tables.len() as u32);
    result
}

fn fail_config(run: &mut RunResult, opts: &RunOptions, msg: String) -> Result<()> {
    let c = run.configs.last_mut().expect("config result");
    c.status = Status::Failed;
    c.error = Some(msg);
    crate::report::write_all(run, &opts.output_dir)
}

/// Run config `index` of `plan`: its insert-benchmark steps.
pub fn run_config(plan: &RunPlan, opts: &RunOptions, index: usize, run: &mut RunResult) -> Result<()> {
    let config = plan.configs.get(index).context("config index out of range")?;
    let dir = opts.db_root().join(&config.name);
    let mut cres = runner::new_config_result(config, dir.clone());
    cres.allocator_in_use = Some(sysinfo::allocator(Path::new("/proc")));
    run.configs.push(cres);
    // --use-existing-db is refused when the plan is checked: the tables start empty.
    let data = match DataDir::fresh(&dir) {
        Ok(d) => d,
        Err(e) => return fail_config(run, opts, format!("{e:#}")),
    };
    let first = plan.steps.first().context("no steps")?;
    let tables: u32 = if first.settings.ibench.one_table { 1 } else { first.settings.threads as u32 };
    let backend = match open_backend(config, plan, opts, &dir).and_then(|b| {
        b.table.create_tables(tables)?;
        Ok(b)
    }) {
        Ok(b) => b,
        Err(e) => {
            let msg = format!("{e}").replace('\n', " ");
            if !opts.keep_db {
                data.remove();
            }
            return fail_config(run, opts, msg);
        }
    };
    let ci = run.configs.len() - 1;
    run.configs[ci].engine_version = Some(backend.table.version());
    run.configs[ci].effective_options = backend.table.effective_options();
    runner::record_provenance(run, ci, engine::find(&config.engine)?, backend.table.version(), backend.table.provenance());
    let probes = match &backend.server {
        Some(s) => Probes::with_server(&dir, s.pid()),
        None => Probes::new(&dir),
    };
    let mut state = IbenchState::new(tables, RowGen::new(plan.settings.seed));

    for (i, step) in plan.steps.iter().enumerate() {
        if crate::driver::stop::stop_requested() {
            break;
        }
        let result = run_step(&backend, step, i, &mut state, &probes);
        if !runner::record_step(run, ci, &config.name, step.kind, result, opts, &dir)? {
            break;
        }
    }
    run.configs[ci].engine_stats = backend.stats(tables);
    runner::settle_config_status(run, ci, plan.steps.len());
    let Backend { table, server } = backend;
    drop(table);
    if let Some(server) = server {
        let log = server.log_path().to_path_buf();
        if let Err(e) = server.stop() {
            run.warnings.push(format!("{}: {e:#}", config.name));
        }
        keep_log(&log, &opts.output_dir, &config.name);
    }
    if !opts.keep_db {
        data.remove();
    }
    crate::report::write_all(run, &opts.output_dir)?;
    Ok(())
}
