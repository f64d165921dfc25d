//! The config process (`rumbench internal-run-config`): it opens the
//! engine, runs a db_bench-style config's steps (the table workloads'
//! configs are tables.rs's) and writes what it measured after each.

use super::*;

/// The child side: run config `index` of the task in `task_path`. Its exit
/// code is its own config's outcome: 0 completed, 1 failed, 130 interrupted.
pub fn run_config_child(task_path: &Path, index: usize) -> ExitCode {
    let _ = THIS_TASK.set((task_path.to_path_buf(), index));
    let parent = crate::sys::ParentWatch::now();
    let outcome = (|| -> Result<Status> {
        let task: ChildTask = serde_json::from_slice(&std::fs::read(task_path)?)?;
        progress::set_mode(task.opts.progress);
        let mut run = crate::result::load(&task.opts.output_dir.join("result.json"))?;
        let config = task.plan.configs.get(index).ok_or_else(|| anyhow::anyhow!("no config {index} in the task"))?;
        check_engine_version(config)?;
        super::duet::join_from_env()?;
        profiling::start(&task.plan, &task.opts, index);
        let ran = run_config(&task.plan, &task.opts, index, &mut run);
        // Each step's profile was cut as it ended: the recording goes, also when the config failed.
        profiling::finish();
        ran?;
        let status = run.configs.get(index).map(|c| c.status).unwrap_or(Status::Failed);
        if parent.died() {
            // The main process died (we were stopped by PR_SET_PDEATHSIG):
            // nobody else will end the run, so end it here.
            finish_orphaned(&mut run, &task, index)?;
        }
        Ok(status)
    })();
    match outcome {
        Ok(Status::Running) | Ok(Status::Completed) => ExitCode::SUCCESS,
        Ok(Status::Interrupted) => ExitCode::from(130),
        Ok(Status::Failed) | Ok(Status::NotRun) => ExitCode::from(1),
        Err(e) => {
            errln!("rumbench: error: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::from(1)
        }
    }
}

/// Whether this config process's main process died: what is left to do is
/// done fast (its servers are ended at once, not shut down: a shutdown's
/// checkpoint could outlast the grace an orphan has before it ends itself).
static ORPHANED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Mark this config process an orphan (its main process died).
pub fn mark_orphaned() {
    ORPHANED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// See [`mark_orphaned`].
pub fn orphaned() -> bool {
    ORPHANED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The task this config process runs (its file, its config's index).
static THIS_TASK: std::sync::OnceLock<(PathBuf, usize)> = std::sync::OnceLock::new();

/// A config process whose main process died, and which is ending itself
/// before its step could end (`commands::signals`): record what it leaves,
/// as the main process would have (its running step from its checkpoint,
/// interrupted; the configs after it not run; the run interrupted), from
/// what is on disk. Best effort: this process is about to exit.
pub fn record_orphaned_end() {
    let Some((task_path, index)) = THIS_TASK.get() else { return };
    let _ = (|| -> Result<()> {
        let task: ChildTask = serde_json::from_slice(&std::fs::read(task_path)?)?;
        let mut run = crate::result::load(&task.opts.output_dir.join("result.json"))?;
        let why = "interrupted: the main rumbench process died, and this config process could not end its step (it was ended)";
        let config = task.plan.configs.get(*index).context("no such config")?;
        if run.configs.len() <= *index {
            run.configs.push(ended_config(config, &task.opts, Status::Interrupted, why));
        }
        let recorded = run.configs[*index].steps.len();
        if let Some(step) = checkpoint::take(&task.opts.output_dir, *index, recorded)
            .and_then(|l| l.into_step(&task.plan, Status::Interrupted, why))
        {
            run.configs[*index].steps.push(step);
        }
        run.configs[*index].status = Status::Interrupted;
        run.configs[*index].error = Some(why.into());
        finish_orphaned(&mut run, &task, *index)
    })();
}

/// The end of a run whose main process died, written by its config
/// process `index`: the configs after it not run, the run interrupted.
fn finish_orphaned(run: &mut RunResult, task: &ChildTask, index: usize) -> Result<()> {
    for c in &task.plan.configs[index + 1..] {
        run.configs.push(ended_config(c, &task.opts, Status::NotRun, "not run: the main rumbench process died"));
    }
    crate::driver::stop::request_stop(libc::SIGTERM);
    finish_run(run, &task.opts, Some("interrupted: the main rumbench process died"))
}

/// Whether the database holds no key at all (a step that reads would measure nothing).
pub(crate) fn database_is_empty(engine: &dyn Engine, key_size: usize) -> Result<bool> {
    let mut session = engine.session()?;
    let first = vec![0u8; key_size];
    Ok(session.scan(&first, false, 1, &mut |_, _| false)? == 0)
}

/// Write back and drop the page cache, so an io-bound read step starts cold.
pub(crate) fn drop_page_cache(dir: &Path) -> Result<(), String> {
    crate::measure::os::device::sync_filesystem(dir).map_err(|e| format!("syncfs failed: {e}"))?;
    std::fs::write("/proc/sys/vm/drop_caches", "1").map_err(|e| format!("cannot drop the page cache (needs root): {e}"))
}

/// Per-config state carried from step to step.
pub(crate) struct ConfigState {
    /// Key indexes present; None when unknown (an existing database was opened).
    live: Option<KeyBitmap>,
    /// The last fill step, and how it ended when that explains missing keys.
    last_fill: Option<FillEnd>,
}

/// How the last fill step left the key space.
pub(crate) struct FillEnd {
    kind: StepKind,
    /// "fillseq stopped at its time limit (--seconds 2) after 227,058 of 500,000 keys".
    time_limited: Option<String>,
}

pub(crate) fn is_fill(kind: StepKind) -> bool {
    matches!(kind, StepKind::Fill | StepKind::FillSeq | StepKind::FillRandom | StepKind::FillUniqueRandom)
}

use crate::report::fmt::thousands;

/// A fill that ended at --seconds before writing its keys: a warning of its
/// own (the run's warnings list it), and what later reads are told.
pub(crate) fn note_fill_end(plan: &StepPlan, result: &mut StepResult, state: &mut ConfigState) {
    let s = &plan.settings;
    let planned = s.ops.unwrap_or(s.num);
    let time_limited = match (s.seconds, result.status) {
        (Some(secs), Status::Completed) if result.ops < planned && !crate::driver::stop::stop_requested() => {
            let text = format!(
                "{} stopped at its time limit (--seconds {secs}) after {} of {} keys",
                plan.kind,
                thousands(result.ops),
                thousands(planned)
            );
            let filled = state.live.as_ref().map(|l| {
                format!(
                    ": {:.0}% of the key space exists for the steps after it",
                    100.0 * l.count() as f64 / s.num.max(1) as f64
                )
            });
            result.warnings.push(format!("{text}{}", filled.unwrap_or_default()));
            Some(text)
        }
        _ => None,
    };
    state.last_fill = Some(FillEnd { kind: plan.kind, time_limited });
}

/// Why a read step's lookups found no key, from what the fills did.
pub(crate) fn not_found_note(result: &mut StepResult, state: &ConfigState, num: u64) {
    let Some(reads) = result.reads.as_ref() else { return };
    let total = reads.found + reads.not_found;
    if reads.not_found == 0 || total == 0 {
        return;
    }
    let head = format!(
        "{} of {total} lookups ({:.1}%) found no key",
        reads.not_found,
        100.0 * reads.not_found as f64 / total as f64
    );
    let exists = state.live.as_ref().map(|l| 100.0 * l.count() as f64 / num.max(1) as f64);
    let why = match (&state.last_fill, exists) {
        (Some(FillEnd { time_limited: Some(t), .. }), Some(p)) => format!("{t}, so {p:.0}% of the key space exists"),
        (Some(FillEnd { time_limited: Some(t), .. }), None) => t.clone(),
        (Some(FillEnd { kind: StepKind::FillRandom, .. }), Some(p)) => {
            format!("fillrandom inserts with replacement, so {p:.0}% of the key space exists (about 63% after --num inserts); fillseq or filluniquerandom fill it all")
        }
        (_, Some(p)) => format!("{p:.0}% of the key space exists"),
        (_, None) => {
            "rumbench does not know which keys the database holds (it was opened as it was, --use-existing-db, or a replay wrote a trace's keys)".into()
        }
    };
    result.notes.push(format!("{head}: {why}"));
}

/// `--trace`: the file step `index` of `config` records into, created with
/// its header (None: the step records nothing).
fn open_recording(
    config: &EngineConfig,
    plan: &StepPlan,
    index: usize,
    step: &str,
) -> Result<Option<(PathBuf, crate::datagen::trace::TraceFile)>> {
    let Some(target) = &plan.settings.trace else { return Ok(None) };
    let path = target.file(&config.name, index, step);
    let header = crate::datagen::trace::TraceHeader {
        rumbench: env!("CARGO_PKG_VERSION").into(),
        config: config.name.clone(),
        engine: config.engine.clone(),
        step: step.into(),
        threads: plan.settings.threads as u32,
        started_unix: crate::driver::unix_now(),
    };
    let file = crate::datagen::trace::TraceFile::create(&path, &header)
        .with_context(|| format!("--trace: cannot create {}", path.display()))?;
    Ok(Some((path, file)))
}

/// Close a step's recording: what it holds in the result, or the step
/// failed when the file could not be written (the figures measured stay).
fn finish_recording(path: &Path, file: crate::datagen::trace::TraceFile, result: &mut StepResult) {
    match file.finish() {
        Ok(t) => {
            result.trace = Some(crate::result::trace::TraceRecording {
                path: path.display().to_string(),
                calls: t.calls,
                bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
                checksum: format!("{:016x}", t.checksum),
                span_s: t.span_ns as f64 / 1e9,
            });
        }
        Err(e) => {
            result.status = Status::Failed;
            let why = format!("--trace: writing {} failed: {e}", path.display());
            result.error = Some(match result.error.take() {
                Some(before) => format!("{before}; {why}"),
                None => why,
            });
        }
    }
}

#[allow(clippy::too_many_arguments, reason = "the step's context, each part borrowed differently")]
pub(crate) fn run_step(
    engine: &dyn Engine,
    config: &EngineConfig,
    plan: &StepPlan,
    index: usize,
    keyspace: KeySpace,
    probes: &Probes,
    state: &mut ConfigState,
    dir: &Path,
) -> StepResult {
    let mut result = StepResult::new(plan);
    result.notes.extend(engine.step_notes(plan.kind));
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
    // --trace: the file opens before the step, so that one that cannot be made fails it unrun.
    let recording = match open_recording(config, plan, index, &result.name) {
        Ok(r) => r,
        Err(e) => {
            result.status = Status::Failed;
            result.error = Some(format!("{e:#}"));
            return result;
        }
    };
    let file = recording.as_ref().map(|(_, f)| f);
    let before = engine.write_amp_counters();
    let probe = plan.settings.metrics.then(|| probes.begin());
    let run_clients = |plan: &StepPlan, result: StepResult| match plan.kind {
        StepKind::MixGraph => crate::workload::mixgraph::run_mixgraph_step(engine, plan, index, keyspace, file, result),
        StepKind::Replay => crate::workload::replay::run_replay_step(engine, plan, file, result),
        _ => crate::workload::dbbench::run_client_step(engine, plan, index, keyspace, file, result),
    };
    let run = || match plan.kind {
        kind if kind.is_engine_call() => {
            (crate::workload::dbbench::run_engine_step(engine, plan, result), Default::default())
        }
        _ if !plan.settings.slo.is_empty() => super::slo::search(plan, &result, run_clients),
        _ => run_clients(plan, result),
    };
    let ((mut result, work), internals) = match plan.settings.internals {
        true => super::internals::sample_during(|| engine.internals(), run),
        false => (run(), Err("not sampled (--internals off)".into())),
    };
    if let Some((path, file)) = recording {
        finish_recording(&path, file, &mut result);
    }
    if let Some(live) = &mut state.live {
        live.union_with(&work.written);
        live.subtract(&work.deleted);
    }
    if plan.kind == StepKind::Replay && work.writes > 0 {
        // A trace's keys are its own: which of the key space's exist is not known after it wrote.
        state.live = None;
    }
    if is_fill(plan.kind) {
        note_fill_end(plan, &mut result, state);
    }
    not_found_note(&mut result, state, plan.settings.num);
    let s = &plan.settings;
    // An SLO search's efficiency figures cover all of its probes.
    let (ops, wall_s) = match &result.slo {
        Some(search) => (search.total_ops, search.total_seconds),
        None => (result.ops + result.writer.as_ref().map(|w| w.ops).unwrap_or(0), result.wall_s.unwrap_or(0.0)),
    };
    let step_work = StepWork {
        ops,
        queries: work.queries,
        writes: work.writes,
        commits: work.commits,
        logical_bytes_written: work.logical_bytes_written,
        writer_threads: work.writer_threads,
        live_keys: state.live.as_ref().map(|l| l.count()),
        entry_bytes: (s.key_size + s.value_size) as u64,
        wall_s,
    };
    match probe {
        Some(p) => result.metrics = p.end(probes, &step_work),
        None => result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "all".into(),
            reason: "efficiency metrics turned off (--metrics off)".into(),
        }),
    }
    match internals {
        Ok(series) => result.internals = Some(series),
        Err(why) => result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "internals".into(),
            reason: format!("{}: {why}", config.engine),
        }),
    }
    result.rates = result
        .main_op()
        .zip(result.wall_s)
        .and_then(|(o, wall_s)| crate::measure::rate_percentiles(&o.intervals, wall_s));
    let after = engine.write_amp_counters();
    if let Some(after) = after {
        result.engine_write_amp = after.amp_since(before);
        result.engine_write_amp_cumulative = after.amp_since(None);
    }
    let step = super::judgments::Step {
        plan,
        writes: "ops",
        engine_counters: after.map(|a| (before, a)),
        logical_bytes_written: work.logical_bytes_written,
    };
    super::judgments::judge(&step, &mut result);
    result.engine_stats = engine.stats();
    result
}

/// Run one config's steps, appending to `run` and writing after each step.
pub(crate) fn run_config(plan: &RunPlan, opts: &RunOptions, index: usize, run: &mut RunResult) -> Result<()> {
    let config = plan.configs.get(index).context("config index out of range")?;
    if plan.steps.iter().any(|s| s.kind.on_tables()) {
        return tables::run_config(plan, opts, index, run);
    }
    let spec = crate::backend::find(&config.engine)?;
    let dir = opts.data_dir(config);
    let keyspace = KeySpace { n: plan.settings.num, hashed: plan.settings.key_order == KeyOrder::Hash };
    let mut cres = new_config_result(config, dir.clone());
    cres.allocator_in_use = Some(sysinfo::allocator(Path::new("/proc")));
    let opened = (|| -> Result<(DataDir, Box<dyn Engine>)> {
        let data = DataDir::open(&dir, opts.use_existing_db)?;
        let args = OpenArgs {
            dir: dir.clone(),
            options: EngineOptions(config.options.clone()),
            key_size: plan.settings.key_size,
            value_size: plan.settings.value_size,
            num_keys: plan.settings.num,
            threads: sessions_opened(plan),
            space_needed: (spec.space_needed)(plan),
            create: !opts.use_existing_db,
            read_only: opens_read_only(plan, opts),
        };
        match (spec.open)(&args) {
            Ok(engine) => Ok((data, engine)),
            Err(e) => {
                let e = e.context(format!("cannot open {} in {}", config.engine, dir.display()));
                if !opts.keep_db {
                    data.remove();
                }
                Err(e)
            }
        }
    })();
    let (data, engine) = match opened {
        Ok(e) => e,
        Err(e) => {
            cres.status = Status::Failed;
            cres.error = Some(format!("{e:#}"));
            run.configs.push(cres);
            write_results(run, opts)?;
            return Ok(());
        }
    };
    cres.engine_version = Some(engine.version());
    cres.effective_options = engine.effective_options();
    if let Some(note) = existing_db_note(plan, opts, engine.as_ref(), &config.engine) {
        cres.notes.push(note);
    }
    run.configs.push(cres);
    let ci = run.configs.len() - 1;
    record_provenance(run, ci, spec, engine.version(), engine.provenance());
    let probes = duet_probes(engine_probes(&dir, spec), config);
    let mut state = ConfigState {
        live: (!opts.use_existing_db).then(|| KeyBitmap::with_capacity(plan.settings.num)),
        last_fill: None,
    };

    steps::run_steps(plan, opts, index, ci, run, Some(engine.as_ref()), |step, i| {
        run_step(engine.as_ref(), config, step, i, keyspace, &probes, &mut state, &dir)
    })?;
    run.configs[ci].engine_stats = engine.stats();
    let (background, what) = engine.background_threads();
    settle_config_status(run, ci, plan.steps.len(), Machine { cores: cores(), background, per_client: 0, what });
    drop(engine);
    // Only what rumbench created is removed (never --use-existing-db data).
    if !opts.keep_db {
        data.remove();
    }
    write_results(run, opts)?;
    Ok(())
}

/// Record what ran in config `ci` (see `engine::provenance`) and warn when
/// it was built with assertions.
pub(crate) fn record_provenance(
    run: &mut RunResult,
    ci: usize,
    spec: &engine::EngineSpec,
    version: String,
    runtime: Vec<(String, String)>,
) {
    let c = &mut run.configs[ci];
    c.provenance = engine::provenance(spec, version, runtime);
    // Printed once, with the run's other warnings at its end.
    if let Some(w) = engine::assertion_warning(&c.engine, &c.provenance) {
        let w = format!("{}: {w}", c.name);
        run.warnings.push(w);
    }
}

/// Probes for an engine in this process; one that keeps nothing (null) has
/// no durability to measure.
pub(crate) fn engine_probes(dir: &Path, spec: &engine::EngineSpec) -> Probes {
    match spec.stores_data {
        true => Probes::new(dir),
        false => Probes::new(dir).keeps_nothing(spec.name),
    }
}

/// A duet side's probes: the host and the device are its partner's too.
pub(crate) fn duet_probes(probes: Probes, config: &EngineConfig) -> Probes {
    match &config.duet {
        Some(d) => probes.shared(format!("a duet beside {}", d.partner)),
        None => probes,
    }
}

/// The cores this process may run on (its affinity), 1 when unknown.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// What became of the user's existing database: opened read-only, or
/// read-write and why.
pub(crate) fn existing_db_note(plan: &RunPlan, opts: &RunOptions, engine: &dyn Engine, name: &str) -> Option<String> {
    if !opts.use_existing_db {
        return None;
    }
    Some(match (engine.read_only(), opens_read_only(plan, opts)) {
        (true, _) => "the existing database was opened read-only: nothing the run did wrote to it".into(),
        (false, true) => {
            format!("the existing database was opened read-write: {name} has no read-only open (the steps only read)")
        }
        (false, false) => {
            let writer = plan
                .steps
                .iter()
                .find(|s| s.kind.changes_data() || s.kind.is_engine_call())
                .map(|s| s.kind.to_string())
                .unwrap_or_default();
            format!("the existing database was opened read-write: step {writer} changes it")
        }
    })
}
