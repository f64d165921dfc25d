//! What is checked before anything starts: the plan (capabilities, step
//! order, sessions, versions, shards) and the machine (directories, data,
//! servers, targets). Bad input exits 2 with one line, nothing created.

use super::*;

/// Check everything about the run's directories that can be known before
/// anything starts: the output dir, every config's data dir, and what
/// --use-existing-db needs. Nothing is created or changed.
pub fn preflight(plan: &RunPlan, opts: &RunOptions) -> Result<()> {
    dirs::check_output_dir(&opts.output_dir, opts.replace_output)?;
    // Inside another run's live directory, this run's files would go when that run ends.
    dirs::check_not_inside_live_run(&opts.output_dir, "output directory")?;
    // A data dir inside the output dir is checked with it: the output dir's
    // own name (results/<time>-N) may be claimed by a run started in the
    // same second before this one claims the next.
    if opts.db_dir.is_some() {
        dirs::check_not_inside_live_run(&opts.db_root(), "data directory")?;
    }
    if plan.duet.is_some() {
        duet::check(plan, opts)?;
    }
    if let Some(db_dir) = &opts.db_dir {
        dirs::check_apart(&opts.output_dir, db_dir)?;
    }
    if opts.use_existing_db {
        // A server the user runs keeps its records itself: they are used as they are.
        if let Some(c) = plan.configs.iter().find(|c| c.is_target()) {
            bail!(
                "--use-existing-db is for engines whose data is in a local directory; config {} is a server you run (--target), whose records and collections rumbench uses as they are: leave --use-existing-db out (and ycsb-load out of the steps to run on records loaded before)",
                c.name
            );
        }
        if plan.steps.iter().any(|s| s.kind.is_ibench()) {
            bail!("the insert benchmark starts from empty tables: --use-existing-db is not supported with its steps");
        }
        if plan.steps.iter().any(|s| s.kind.is_ycsb()) {
            if plan.steps.iter().any(|s| s.kind == StepKind::YcsbLoad) {
                bail!("--use-existing-db runs YCSB's workloads on records loaded before: leave ycsb-load out of the steps");
            }
            let started_server = |c: &&EngineConfig| {
                crate::server::kind_of(&c.engine).is_some() && !backends::target_endpoint(c).is_ok_and(|t| t.is_some())
            };
            if let Some(c) = plan.configs.iter().find(started_server) {
                bail!("--use-existing-db with YCSB is for key-value engines, not {} (config {}): run on a server's records with --target", c.engine, c.name);
            }
        }
    }
    check_traces(plan)?;
    // YCSB's run steps need records: loaded by an earlier step, or before this run.
    for c in &plan.configs {
        let existing = opts.use_existing_db || backends::target_endpoint(c)?.is_some();
        let mut loaded = existing;
        for s in plan.steps.iter().filter(|s| s.kind.is_ycsb()) {
            if let Some(why) = crate::workload::ycsb::precheck(s.kind, loaded) {
                bail!("{why}");
            }
            loaded |= s.kind == StepKind::YcsbLoad;
        }
    }
    if plan.configs.iter().any(|c| c.allocator == Allocator::Jemalloc) && !Path::new(JEMALLOC).exists() {
        bail!("a config asks for jemalloc but {JEMALLOC} is missing (apt-get install libjemalloc2)");
    }
    // Servers rumbench starts must be installed (a --target's are not
    // rumbench's to start; a PostgreSQL version's are fetched after these checks).
    for c in plan.configs.iter().filter(|c| !c.is_target() && c.server_version.is_none()) {
        if let Some(kind) = crate::server::kind_of(&c.engine) {
            crate::server::check_installed(kind).with_context(|| format!("config {}", c.name))?;
        }
    }
    let root = opts.db_root();
    if root.exists() && !root.is_dir() {
        bail!("--db-dir {} is not a directory", root.display());
    }
    for c in &plan.configs {
        let dir = opts.data_dir(c);
        if opts.use_existing_db {
            dirs::check_existing(&dir)?;
            // An engine would create its database beside the files there, or
            // rewrite another engine's into its own format.
            if let Some(check) = crate::backend::find(&c.engine).ok().and_then(|s| s.existing_database) {
                if let Err(why) = check(&dir) {
                    bail!("--use-existing-db: {} holds no {} database ({why})", dir.display(), c.engine);
                }
            }
        } else if dirs::state(&dir)? == dirs::DirState::Foreign {
            return Err(dirs::foreign_error(
                &dir,
                "data dir",
                "move it away, choose another --db-dir, or open it as it is with --use-existing-db",
            ));
        }
        if dirs::is_locked(&dir) {
            bail!("data dir {} is in use by another rumbench run", dir.display());
        }
    }
    // Servers the user runs: reachable, and without tables of the names rumbench would create.
    for c in &plan.configs {
        backends::check_target(plan, c)?;
        // YCSB's records loaded before this run: their shape and count.
        backends::check_existing_ycsb(plan, opts, c)?;
    }
    // No option may take memory or disk the machine does not have.
    resources::check(plan, opts)?;
    let stores = plan.configs.iter().any(|c| crate::backend::find(&c.engine).is_ok_and(|s| s.stores_data));
    if !opts.use_existing_db && stores {
        for (i, step) in plan.steps.iter().enumerate() {
            if step.kind.needs_data() && !plan.steps[..i].iter().any(|s| s.kind.loads()) {
                bail!(
                    "step {} reads existing keys, but no fill step runs before it and the database starts empty: put one first (e.g. --steps fillseq,{}) or use --use-existing-db",
                    step.kind,
                    step.kind
                );
            }
        }
    }
    Ok(())
}

/// What each step will do, printed before the run starts: its length (a
/// count of operations or a duration, as the settings' precedence resolved
/// it) and its threads; a concurrency sweep's points on one line.
pub fn describe_steps(plan: &RunPlan) -> Vec<String> {
    let mut lines: Vec<(String, String, Vec<usize>)> = Vec::new();
    for s in &plan.steps {
        let name = match s.kind {
            StepKind::HotRow => format!("{} ({} tables)", s.kind, s.settings.contention.tables),
            k => k.to_string(),
        };
        let length = crate::plan::describe_length(s.kind, &s.settings);
        match lines.last_mut() {
            Some((n, l, threads)) if *n == name && *l == length && s.sweep => threads.push(s.settings.threads),
            _ => lines.push((name, length, vec![s.settings.threads])),
        }
    }
    lines
        .into_iter()
        .map(|(name, length, threads)| {
            let t: Vec<String> = threads.iter().map(usize::to_string).collect();
            let each = if threads.len() > 1 { " each" } else { "" };
            let unit = if threads == [1] { "thread" } else { "threads" };
            format!("  {name}: {length}{each}, {} {unit}", t.join(", "))
        })
        .collect()
}

/// `--trace`: every file a step would record into is new, in a directory
/// that exists (rumbench writes over nothing). `--replay`: the trace is a
/// trace rumbench reads.
fn check_traces(plan: &RunPlan) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for c in &plan.configs {
        for (i, s) in plan.steps.iter().enumerate() {
            let Some(t) = &s.settings.trace else { continue };
            let path = t.file(&c.name, i, &StepResult::new(s).name);
            if path.exists() {
                bail!(
                    "--trace: {} exists: rumbench writes over nothing it did not make; give a new file",
                    path.display()
                );
            }
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !dir.is_dir() {
                bail!("--trace: the directory of {} does not exist", path.display());
            }
            if !seen.insert(path.clone()) {
                bail!("--trace: two steps would record into {}", path.display());
            }
            // The file is made here and removed (nothing was there): a path
            // rumbench cannot write is found now, not after the steps before.
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|_| std::fs::remove_file(&path))
                .map_err(|e| anyhow::anyhow!("--trace: cannot write {}: {e}", path.display()))?;
        }
    }
    for s in plan.steps.iter().filter(|s| s.kind == StepKind::Replay) {
        let Some(r) = &s.settings.replay else { continue };
        let mut head = Vec::new();
        std::fs::File::open(&r.path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 1 << 16), &mut head))
            .map_err(|e| anyhow::anyhow!("--replay: cannot read {}: {e}", r.path.display()))?;
        crate::datagen::trace::check_head(&head).map_err(|e| anyhow::anyhow!("--replay: {}: {e}", r.path.display()))?;
        // The whole file read once now, so a damaged record is found before
        // the steps before the replay run (a cut end is not an error: it
        // replays).
        crate::datagen::trace::Trace::load(&r.path).map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
        if plan.steps.iter().any(|t| t.settings.trace.as_ref().is_some_and(|t| t.path == r.path)) {
            bail!("--trace and --replay name the same file {}", r.path.display());
        }
    }
    Ok(())
}

/// Refuse plans that cannot work before anything runs.
/// `--shard I/N` and `--start-at`: set the shard on the plan's settings
/// (every step's), and refuse what cannot be sharded or scheduled, before
/// anything starts. Returns the start schedule.
pub fn check_sharding(
    plan: &mut RunPlan,
    shard: Option<crate::plan::shard::Shard>,
    start_at: Option<f64>,
    gap_s: f64,
) -> Result<Option<schedule::StartSchedule>> {
    if let Some(shard) = shard {
        if plan.steps.iter().any(|s| s.kind == StepKind::RandomTransaction) {
            bail!("--shard: step randomtransaction cannot be sharded yet: its check that every set sums alike needs every writer stopped");
        }
        if plan.configs.iter().any(|c| c.is_target())
            && plan.steps.iter().any(|s| s.kind.is_ycsb())
            && !plan.steps.iter().any(|s| s.kind == StepKind::YcsbLoad)
        {
            bail!("--shard with YCSB on records loaded before is not supported: load them in the sharded run (ycsb-load first), so every shard knows the records");
        }
        if plan.steps.iter().any(|s| s.settings.trace.is_some()) {
            bail!("--trace records one machine's run: give it without --shard");
        }
        plan.settings.shard = Some(shard);
        for s in &mut plan.steps {
            s.settings.shard = Some(shard);
        }
    }
    let Some(at) = start_at else { return Ok(None) };
    if plan.configs.len() > 1 {
        bail!("--start-at schedules one config's steps: give one engine (and no --repeat or --sweep), one per run");
    }
    if !(gap_s.is_finite() && (0.1..=86_400.0).contains(&gap_s)) {
        bail!("--step-gap must be between 0.1 and 86400 seconds, got {gap_s}");
    }
    let now = crate::driver::unix_now();
    if at < now {
        bail!(
            "--start-at is {:.1} s in the past: give a moment every shard reaches before it (e.g. now + a minute)",
            now - at
        );
    }
    if at > now + 7.0 * 86_400.0 {
        bail!("--start-at is {:.1} days away: more than a week (a typo?)", (at - now) / 86_400.0);
    }
    Ok(Some(schedule::StartSchedule { start_at_unix_s: at, gap_s }))
}

/// Whether the user's existing database (--use-existing-db) is opened
/// read-only: when no step writes (or flushes, or waits for compactions).
pub(crate) fn opens_read_only(plan: &RunPlan, opts: &RunOptions) -> bool {
    opts.use_existing_db && !plan.steps.iter().any(|s| s.kind.changes_data() || s.kind.is_engine_call())
}

/// The client sessions a config's engine is opened for: the most threads
/// of any step and one more (the runner's own reads); the table workloads
/// (insert benchmark, YCSB, hot rows) twice the threads and one more (a
/// query step's clients each beside a writer).
pub(crate) fn sessions_opened(plan: &RunPlan) -> usize {
    let threads = plan.steps.iter().map(|s| s.settings.threads).max().unwrap_or(1);
    match plan.steps.iter().any(|s| s.kind.on_tables()) {
        true => threads * 2 + 1,
        false => threads + 1,
    }
}

pub fn check_plan(plan: &RunPlan) -> Result<()> {
    if plan.configs.is_empty() {
        bail!("no engine configs");
    }
    // One workload per run: their data would mix in one key space.
    if let Some(first) = plan.steps.first() {
        if let Some(other) = plan.steps.iter().find(|s| s.kind.workload() != first.kind.workload()) {
            bail!(
                "{} steps ({}) and {} steps ({}) cannot be mixed in one run: run them separately",
                first.kind.workload(),
                first.kind,
                other.kind.workload(),
                other.kind
            );
        }
    }
    for c in &plan.configs {
        for s in &plan.steps {
            crate::backend::check(&c.engine, s.kind)?;
            crate::backend::check_transactions(c, s.kind)?;
        }
        if let Ok(spec) = crate::backend::find(&c.engine) {
            engine::check_sessions(spec, &EngineOptions(c.options.clone()), sessions_opened(plan))
                .with_context(|| format!("config {}", c.name))?;
            (spec.check_plan)(c, plan)?;
        }
        check_release(c, plan)?;
    }
    resources::check_sizes(plan)?;
    // YCSB's run steps without ycsb-load: checked with the run's options
    // (--use-existing-db, --target) in `preflight`.
    crate::workload::ibench::check_plan(plan)
}

/// A config of an engine's version (`rocksdb@8.10`) asks only for what
/// that version can do: the engine's own check (`EngineVersions::check`).
pub(crate) fn check_release(c: &EngineConfig, plan: &RunPlan) -> Result<()> {
    let Some(v) = c.engine_version.as_deref() else { return Ok(()) };
    match crate::backend::find(&c.engine)?.versions {
        Some(versions) => (versions.check)(v, c, plan),
        None => bail!("config {}: engine {} has no versions but this program's", c.name, c.engine),
    }
}
