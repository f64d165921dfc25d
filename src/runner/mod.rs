//! Running a plan: every engine config in turn, each in a child process of
//! its own, every step in order, results written after each step.
//!
//! A child process per config keeps configs from disturbing each other's
//! measurements (peak RSS, allocator state, page cache of its files), lets a
//! config choose its allocator (jemalloc by LD_PRELOAD), and means an engine
//! that crashes the process takes only its own unfinished step with it: the
//! parent records the crash and keeps everything measured before it.

pub mod exec;
pub mod pacer;
pub mod progress;
pub mod steps;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::config::{Allocator, EngineConfig, Mode, RunPlan, StepPlan};
use crate::engine::{self, Engine, EngineOptions, OpenArgs};
use crate::measure::live::KeyBitmap;
use crate::measure::os::sysinfo::{self, SystemInfo};
use crate::measure::step_metrics::{Probes, StepWork, SyncMetrics};
use crate::output::{self, ConfigResult, RunResult, Status, StepResult};
use crate::workload::{KeyOrder, KeySpace};
use progress::ProgressMode;
use steps::StepKind;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunOptions {
    pub output_dir: PathBuf,
    /// Parent of the engines' data dirs; default: <output_dir>/db.
    pub db_dir: Option<PathBuf>,
    /// Keep the data dirs after the run (they are removed by default).
    pub keep_db: bool,
    /// Open existing data instead of starting from an empty directory.
    pub use_existing_db: bool,
    pub command_line: Vec<String>,
    pub progress: ProgressMode,
}

impl RunOptions {
    pub(crate) fn db_root(&self) -> PathBuf {
        self.db_dir.clone().unwrap_or_else(|| self.output_dir.join("db"))
    }
}

/// What the parent hands a config's child process.
#[derive(Debug, Serialize, Deserialize)]
struct ChildTask {
    plan: RunPlan,
    opts: RunOptions,
}

const TASK_FILE: &str = ".rumbench-task.json";

fn now_text() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

/// Create the output directory and check that it takes files.
fn prepare_output_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let probe = dir.join(".rumbench-write-test");
    std::fs::write(&probe, b"").with_context(|| format!("output directory {} is not writable", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// The running config process, if any.
static CHILD_PID: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Pass an interrupt on to the running config process (called by the Ctrl-C handler).
pub fn forward_interrupt() {
    let pid = CHILD_PID.load(std::sync::atomic::Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: sending a signal to a child we started.
        unsafe { libc::kill(pid, libc::SIGINT) };
    }
}

const JEMALLOC: &str = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

/// Run the plan (the parent process). Results are written to
/// `opts.output_dir` after every step. Returns the result; its status says
/// whether everything completed.
pub fn run(plan: &RunPlan, opts: &RunOptions) -> Result<RunResult> {
    prepare_output_dir(&opts.output_dir)?;
    if plan.configs.iter().any(|c| c.allocator == Allocator::Jemalloc) && !Path::new(JEMALLOC).exists() {
        bail!("a config asks for jemalloc but {JEMALLOC} is missing (apt-get install libjemalloc2)");
    }
    let db_root = opts.db_root();
    std::fs::create_dir_all(&db_root).with_context(|| format!("cannot create data directory {}", db_root.display()))?;
    let system = SystemInfo::capture(Some(&db_root));
    let mut run = RunResult {
        schema: output::SCHEMA.into(),
        rumbench_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: option_env!("RUMBENCH_GIT_COMMIT").map(String::from),
        command_line: opts.command_line.clone(),
        started_at: now_text(),
        finished_at: None,
        status: Status::Running,
        error: None,
        suite: plan.suite.clone(),
        mode: plan.settings.mode,
        settings: plan.settings.clone(),
        system: serde_json::to_value(&system).ok(),
        warnings: sysinfo::warnings(&system),
        configs: Vec::new(),
    };
    output::write_all(&run, &opts.output_dir)?;
    let task_path = opts.output_dir.join(TASK_FILE);
    std::fs::write(&task_path, serde_json::to_vec(&ChildTask { plan: plan.clone(), opts: opts.clone() })?)?;
    let exe = std::env::current_exe().context("cannot find the rumbench executable")?;

    for (i, config) in plan.configs.iter().enumerate() {
        eprintln!("{} ({}{}):", config.name, config.engine, if config.allocator == Allocator::Jemalloc { ", jemalloc" } else { "" });
        let mut cmd = std::process::Command::new(&exe);
        cmd.arg("internal-run-config").arg(&task_path).arg(i.to_string());
        match config.allocator {
            Allocator::Jemalloc => cmd.env("LD_PRELOAD", JEMALLOC),
            Allocator::Glibc => cmd.env_remove("LD_PRELOAD"),
        };
        // Its own process group: a terminal's Ctrl-C reaches only us, and we
        // forward it once (see `forward_interrupt`).
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().context("cannot start the benchmark process")?;
        CHILD_PID.store(child.id() as i32, std::sync::atomic::Ordering::SeqCst);
        if exec::stop_requested() {
            forward_interrupt();
        }
        let status = child.wait().context("waiting for the benchmark process")?;
        CHILD_PID.store(0, std::sync::atomic::Ordering::SeqCst);
        let crashed = status.code().is_none() || status.code().is_some_and(|c| c != 0 && c != 1 && c != 130);
        // A config process that died without stopping its database server
        // (killed, crashed) leaves it running: stop it from here.
        for leftover in crate::ibench::stop_leftover_servers(&config.engine, &db_root.join(&config.name), crashed) {
            eprintln!("rumbench: {leftover}");
        }
        // The child rewrote result.json after each step; take it back.
        run = output::json::load(&opts.output_dir.join("result.json"))?;
        if crashed {
            let how = match std::os::unix::process::ExitStatusExt::signal(&status) {
                Some(sig) => format!("killed by signal {sig} ({})", signal_name(sig)),
                None => format!("exited with status {}", status.code().unwrap_or(-1)),
            };
            let mut msg = format!("the {} process {how}", config.name);
            // The likeliest cause an engine cannot report itself: a full data filesystem.
            if let Ok(space) = crate::measure::os::device::FsSpace::of(&db_root) {
                if space.avail_bytes < (1 << 20) || space.percent_full >= 99.5 {
                    msg.push_str(&format!(" (the data filesystem is full: {} bytes free)", space.avail_bytes));
                }
            }
            msg.push_str("; steps completed before it are kept");
            if run.configs.len() <= i {
                run.configs.push(failed_config(config, &opts.db_root(), &msg));
            } else {
                run.configs[i].status = Status::Failed;
                run.configs[i].error = Some(msg.clone());
            }
            run.status = Status::Failed;
            run.error = Some(msg);
            output::write_all(&run, &opts.output_dir)?;
        }
        if run.status != Status::Running || exec::stop_requested() {
            break;
        }
    }
    let _ = std::fs::remove_file(&task_path);
    if !opts.keep_db {
        // Remove the db root if it is now empty (we created it).
        let _ = std::fs::remove_dir(&db_root);
    }
    if exec::stop_requested() && run.status == Status::Running {
        run.status = Status::Interrupted;
        run.error = Some("interrupted by Ctrl-C".into());
    }
    if run.status == Status::Running {
        run.status = Status::Completed;
    }
    for c in &run.configs {
        for s in &c.steps {
            run.warnings.extend(s.warnings.iter().map(|w| format!("{} {}: {w}", c.name, s.name)));
        }
    }
    run.finished_at = Some(now_text());
    output::write_all(&run, &opts.output_dir)?;
    Ok(run)
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL, perhaps the out-of-memory killer",
        libc::SIGBUS => "SIGBUS",
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "signal",
    }
}

fn failed_config(config: &EngineConfig, db_root: &Path, msg: &str) -> ConfigResult {
    let mut c = new_config_result(config, db_root.join(&config.name));
    c.status = Status::Failed;
    c.error = Some(msg.to_string());
    c
}

pub(crate) fn new_config_result(config: &EngineConfig, dir: PathBuf) -> ConfigResult {
    ConfigResult {
        name: config.name.clone(),
        engine: config.engine.clone(),
        engine_version: None,
        allocator: config.allocator,
        allocator_in_use: None,
        options: config.options.clone(),
        effective_options: Vec::new(),
        db_dir: dir,
        server_config: config.server_config.clone(),
        status: Status::Running,
        error: None,
        steps: Vec::new(),
        engine_stats: Vec::new(),
    }
}

/// The child side: run config `index` of the task in `task_path`.
pub fn run_config_child(task_path: &Path, index: usize) -> ExitCode {
    let outcome = (|| -> Result<Status> {
        let task: ChildTask = serde_json::from_slice(&std::fs::read(task_path)?)?;
        progress::set_mode(task.opts.progress);
        let mut run = output::json::load(&task.opts.output_dir.join("result.json"))?;
        run_config(&task.plan, &task.opts, index, &mut run)?;
        Ok(run.status)
    })();
    match outcome {
        Ok(Status::Running) | Ok(Status::Completed) => ExitCode::SUCCESS,
        Ok(Status::Interrupted) => ExitCode::from(130),
        Ok(Status::Failed) => ExitCode::from(1),
        Err(e) => {
            eprintln!("rumbench: error: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::from(1)
        }
    }
}

pub(crate) fn new_step_result(plan: &StepPlan) -> StepResult {
    StepResult {
        name: plan.kind.to_string(),
        status: Status::Running,
        error: None,
        settings: plan.settings.clone(),
        started_at: now_text(),
        wall_s: 0.0,
        ops: 0,
        ops_s: 0.0,
        mb_s: 0.0,
        ops_by_type: Vec::new(),
        reads: None,
        writer: None,
        engine_write_amp: None,
        engine_write_amp_cumulative: None,
        rates: None,
        metrics: Default::default(),
        ibench: None,
        engine_stats: Vec::new(),
        notes: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Whether the database holds no key at all (a step that reads would measure nothing).
fn database_is_empty(engine: &dyn Engine, key_size: usize) -> Result<bool> {
    let mut session = engine.session()?;
    let first = vec![0u8; key_size];
    Ok(session.scan(&first, false, 1, &mut |_, _| false)? == 0)
}

/// Write back and drop the page cache, so an io-bound read step starts cold.
fn drop_page_cache(dir: &Path) -> Result<(), String> {
    crate::measure::os::device::sync_filesystem(dir).map_err(|e| format!("syncfs failed: {e}"))?;
    std::fs::write("/proc/sys/vm/drop_caches", "1").map_err(|e| format!("cannot drop the page cache (needs root): {e}"))
}

/// Per-config state carried from step to step.
struct ConfigState {
    /// Key indexes present; None when unknown (an existing database was opened).
    live: Option<KeyBitmap>,
}

fn run_step(
    engine: &dyn Engine,
    config: &EngineConfig,
    plan: &StepPlan,
    index: usize,
    keyspace: KeySpace,
    probes: &Probes,
    state: &mut ConfigState,
    dir: &Path,
) -> StepResult {
    let mut result = new_step_result(plan);
    if plan.kind.needs_data() {
        match database_is_empty(engine, plan.settings.key_size) {
            Ok(false) => {}
            Ok(true) => {
                result.status = Status::Failed;
                result.error = Some(format!(
                    "step {} needs data but the {} database is empty: run a fill step before it (e.g. --steps fillseq,{})",
                    plan.kind, config.name, plan.kind
                ));
                return result;
            }
            Err(e) => {
                result.status = Status::Failed;
                result.error = Some(format!("{e:#}"));
                return result;
            }
        }
        if plan.settings.mode == Mode::IoBound {
            match drop_page_cache(dir) {
                Ok(()) => result.notes.push("io-bound mode: page cache dropped before the step".into()),
                Err(why) => result.warnings.push(format!("io-bound mode: {why}")),
            }
        }
    }
    let before = engine.write_amp_counters();
    let probe = plan.settings.metrics.then(|| probes.begin());
    let (mut result, work) = match plan.kind {
        StepKind::Flush | StepKind::WaitForCompaction => (exec::run_engine_step(engine, plan, result), Default::default()),
        _ => exec::run_client_step(engine, plan, index, keyspace, result),
    };
    if let Some(live) = &mut state.live {
        live.union_with(&work.written);
        live.subtract(&work.deleted);
    }
    let s = &plan.settings;
    let step_work = StepWork {
        ops: result.ops + result.writer.as_ref().map(|w| w.ops).unwrap_or(0),
        queries: work.queries,
        writes: work.writes,
        commits: work.commits,
        logical_bytes_written: work.logical_bytes_written,
        writer_threads: work.writer_threads,
        live_keys: state.live.as_ref().map(|l| l.count()),
        entry_bytes: (s.key_size + s.value_size) as u64,
        wall_s: result.wall_s,
    };
    match probe {
        Some(p) => result.metrics = p.end(probes, &step_work),
        None => result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "all".into(),
            reason: "efficiency metrics turned off (--metrics off)".into(),
        }),
    }
    result.rates = result.main_op().and_then(|o| crate::measure::rate_percentiles(&o.intervals, result.wall_s));
    if let Some(after) = engine.write_amp_counters() {
        result.engine_write_amp = after.amp_since(before);
        result.engine_write_amp_cumulative = after.amp_since(None);
        let ingested = after.ingest_bytes.saturating_sub(before.map(|b| b.ingest_bytes).unwrap_or(0));
        let written = after.written_bytes.saturating_sub(before.map(|b| b.written_bytes).unwrap_or(0));
        if work.logical_bytes_written > 0 && result.engine_write_amp.is_none() && after.resolution_bytes > 1 {
            result.notes.push(
                "engine write-amp not shown: the engine's counters are too coarse for this little ingest (rocksdb: set statistics=true for exact counters)".into(),
            );
        }
        if ingested > 0 && written == 0 && result.status == Status::Completed {
            result.warnings.push(format!(
                "the step ({:.1} s) was shorter than the engine's flush/compaction cycle: nothing was flushed, so it measured the memtable only; run longer or use a smaller write buffer",
                result.wall_s
            ));
        }
    }
    if let Some(w) = result.metrics.syncs.as_ref().and_then(SyncMetrics::not_durable_warning) {
        result.warnings.push(w);
    }
    if result.writer.as_ref().is_some_and(|w| w.missed_target) {
        let w = result.writer.as_ref().unwrap();
        result.warnings.push(format!(
            "background writer missed its rate: {:.0} of {:.0} ops/s",
            w.achieved_ops_s,
            w.target_ops_s.unwrap_or(0.0)
        ));
    }
    if s.mode == Mode::IoBound && matches!(plan.kind, StepKind::ReadRandom | StepKind::MultiReadRandom | StepKind::ReadWhileWriting) {
        if let Some(rpq) = result.metrics.io.as_ref().and_then(|io| io.rpq) {
            if rpq < 0.5 {
                result.warnings.push(format!(
                    "io-bound mode, but point queries averaged {rpq:.2} storage reads each: the run was not IO-bound (the data fits in a cache)"
                ));
            }
        }
    }
    result.engine_stats = engine.stats();
    result
}

pub(crate) fn print_step_line(config: &str, s: &StepResult) {
    let lat = s.main_op().map(|o| o.latency.clone()).unwrap_or_default();
    match s.status {
        Status::Completed | Status::Interrupted => eprintln!(
            "  {config} {}: {} ops/s over {:.1} s, p50 {} us, p99 {} us, max {} us{}",
            s.name,
            output::table::num(s.ops_s),
            s.wall_s,
            output::table::num(lat.p50_us),
            output::table::num(lat.p99_us),
            output::table::num(lat.max_us),
            if s.status == Status::Interrupted { " (interrupted)" } else { "" }
        ),
        _ => eprintln!("  {config} {}: {}", s.name, s.error.as_deref().unwrap_or("failed")),
    }
    for w in &s.warnings {
        eprintln!("    warning: {w}");
    }
}

/// Print a finished step, append it to config `ci` of `run` and write every
/// output. Returns whether the config's next step should run (false once a
/// step did not complete; the run then carries its status and error).
pub(crate) fn record_step(
    run: &mut RunResult,
    ci: usize,
    config_name: &str,
    kind: StepKind,
    result: StepResult,
    opts: &RunOptions,
) -> Result<bool> {
    print_step_line(config_name, &result);
    let status = result.status;
    let error = result.error.clone();
    run.configs[ci].steps.push(result);
    output::write_all(run, &opts.output_dir)?;
    if status != Status::Completed {
        run.configs[ci].status = status;
        run.configs[ci].error = error.clone();
        run.status = status;
        run.error = error.map(|e| format!("{config_name} {kind}: {e}"));
        return Ok(false);
    }
    Ok(true)
}

/// Run one config's steps, appending to `run` and writing after each step.
fn run_config(plan: &RunPlan, opts: &RunOptions, index: usize, run: &mut RunResult) -> Result<()> {
    let config = plan.configs.get(index).context("config index out of range")?;
    if plan.steps.iter().any(|s| s.kind.is_ibench()) {
        return crate::ibench::run::run_config(plan, opts, index, run);
    }
    let spec = engine::find(&config.engine)?;
    let dir = opts.db_root().join(&config.name);
    let keyspace = KeySpace { n: plan.settings.num, hashed: plan.settings.key_order == KeyOrder::Hash };
    let mut cres = new_config_result(config, dir.clone());
    cres.allocator_in_use = Some(sysinfo::allocator(Path::new("/proc")));
    let opened = (|| -> Result<Box<dyn Engine>> {
        if !opts.use_existing_db && dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear data dir {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create data dir {}", dir.display()))?;
        let args = OpenArgs {
            dir: dir.clone(),
            options: EngineOptions(config.options.clone()),
            key_size: plan.settings.key_size,
            value_size: plan.settings.value_size,
            num_keys: plan.settings.num,
            threads: plan.steps.iter().map(|s| s.settings.threads).max().unwrap_or(1) + 1,
        };
        (spec.open)(&args).with_context(|| format!("cannot open {} in {}", config.engine, dir.display()))
    })();
    let engine = match opened {
        Ok(e) => e,
        Err(e) => {
            cres.status = Status::Failed;
            cres.error = Some(format!("{e:#}"));
            run.status = Status::Failed;
            run.error = cres.error.clone();
            run.configs.push(cres);
            output::write_all(run, &opts.output_dir)?;
            return Ok(());
        }
    };
    cres.engine_version = Some(engine.version());
    cres.effective_options = engine.effective_options();
    run.configs.push(cres);
    let ci = run.configs.len() - 1;
    let probes = Probes::new(&dir);
    let mut state = ConfigState { live: (!opts.use_existing_db).then(|| KeyBitmap::with_capacity(plan.settings.num)) };

    for (i, step) in plan.steps.iter().enumerate() {
        if exec::stop_requested() {
            break;
        }
        let result = run_step(engine.as_ref(), config, step, i, keyspace, &probes, &mut state, &dir);
        if !record_step(run, ci, &config.name, step.kind, result, opts)? {
            break;
        }
    }
    run.configs[ci].engine_stats = engine.stats();
    if run.configs[ci].status == Status::Running {
        run.configs[ci].status = Status::Completed;
    }
    drop(engine);
    // Data the user pointed us at (--use-existing-db) is never removed.
    if !opts.keep_db && !opts.use_existing_db {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if exec::stop_requested() && run.status == Status::Running {
        run.status = Status::Interrupted;
        run.error = Some("interrupted by Ctrl-C".into());
    }
    output::write_all(run, &opts.output_dir)?;
    Ok(())
}

/// Refuse plans that cannot work before anything runs.
pub fn check_plan(plan: &RunPlan) -> Result<()> {
    if plan.configs.is_empty() {
        bail!("no engine configs");
    }
    crate::ibench::check_plan(plan)
}
