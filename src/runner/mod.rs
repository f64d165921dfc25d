//! Running a plan: every engine config in turn, each in a child process of
//! its own, every step in order, results written after each step.
//!
//! A child process per config keeps configs from disturbing each other's
//! measurements (peak RSS, allocator state, page cache of its files), lets a
//! config choose its allocator (jemalloc by LD_PRELOAD), and means an engine
//! that crashes the process takes only its own unfinished step with it: the
//! parent records the crash and keeps everything measured before it.

mod ceilings;
mod checkpoint;
pub mod device;
pub mod dirs;
pub mod prepare;
pub mod profiling;
mod resources;
pub mod schedule;
mod tables;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::datagen::{KeyOrder, KeySpace};
use crate::driver::progress::{self, ProgressMode};
use crate::engine::{self, Engine, EngineOptions, OpenArgs};
use crate::measure::live::KeyBitmap;
use crate::measure::os::sysinfo::{self, SystemInfo};
use crate::measure::step_metrics::{Probes, StepWork, SyncMetrics};
use crate::plan::steps::StepKind;
use crate::plan::{Allocator, EngineConfig, Mode, RunPlan, StepPlan};
use crate::result::scaling::Machine;
use crate::result::{ConfigResult, RunResult, Status, StepResult};
use dirs::DataDir;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunOptions {
    pub output_dir: PathBuf,
    /// Parent of the engines' data dirs; default: <output_dir>/db.
    pub db_dir: Option<PathBuf>,
    /// Keep the data dirs after the run (they are removed by default).
    pub keep_db: bool,
    /// Open existing data instead of starting from an empty directory.
    pub use_existing_db: bool,
    /// Replace an earlier run's output dir.
    #[serde(default)]
    pub replace_output: bool,
    pub command_line: Vec<String>,
    pub progress: ProgressMode,
    /// The data dir's device baseline the steps' ceilings use, or why there is none.
    #[serde(default)]
    pub device: crate::measure::device_baseline::DeviceContext,
    /// `--start-at`: the moments the steps' clients are released at.
    #[serde(default)]
    pub schedule: Option<schedule::StartSchedule>,
    /// `--profile`: where perf's raw recordings go (a directory each config
    /// process makes there and removes), chosen before the run by the room
    /// its filesystem has; never inside the run directory.
    #[serde(default)]
    pub profile_dir: Option<PathBuf>,
}

impl RunOptions {
    pub fn db_root(&self) -> PathBuf {
        self.db_dir.clone().unwrap_or_else(|| self.output_dir.join("db"))
    }

    /// A config's data dir: one per repeat (each starts fresh), except the
    /// existing data --use-existing-db opens, which every repeat opens.
    pub(crate) fn data_dir(&self, config: &EngineConfig) -> PathBuf {
        match self.use_existing_db {
            true => self.db_root().join(&config.name),
            false => self.db_root().join(config.instance_name()),
        }
    }
}

/// What the parent hands a config's child process.
#[derive(Debug, Serialize, Deserialize)]
struct ChildTask {
    plan: RunPlan,
    opts: RunOptions,
}

const TASK_FILE: &str = ".rumbench-task.json";

use crate::result::now_text;

/// The running config process, if any.
static CHILD_PID: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Pass a stop signal on to the running config process (called by the signal handler).
pub fn forward_signal(sig: i32) {
    let pid = CHILD_PID.load(std::sync::atomic::Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: sending a signal to a child we started.
        unsafe { libc::kill(pid, sig) };
    }
}

/// The signal a config process gets when the main process dies
/// (PR_SET_PDEATHSIG). Not SIGTERM: the kernel sends it once for every thread
/// of the dead parent, which must not count as "a second signal, exit now".
pub const PARENT_DIED_SIGNAL: i32 = libc::SIGUSR2;

/// The exit code of a config process stopped at once by a second signal
/// (its step not recorded); distinct from 128 + a signal, which 130
/// (interrupted, recorded) already is for SIGINT.
pub const CHILD_STOPPED_AT_ONCE: u8 = 3;

const JEMALLOC: &str = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

/// Check everything about the run's directories that can be known before
/// anything starts: the output dir, every config's data dir, and what
/// --use-existing-db needs. Nothing is created or changed.
pub fn preflight(plan: &RunPlan, opts: &RunOptions) -> Result<()> {
    dirs::check_output_dir(&opts.output_dir, opts.replace_output)?;
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
                crate::server::kind_of(&c.engine).is_some() && !tables::target_endpoint(c).is_ok_and(|t| t.is_some())
            };
            if let Some(c) = plan.configs.iter().find(started_server) {
                bail!("--use-existing-db with YCSB is for key-value engines, not {} (config {}): run on a server's records with --target", c.engine, c.name);
            }
        }
    }
    // YCSB's run steps need records: loaded by an earlier step, or before this run.
    for c in &plan.configs {
        let existing = opts.use_existing_db || tables::target_endpoint(c)?.is_some();
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
        tables::check_target(plan, c)?;
        // YCSB's records loaded before this run: their shape and count.
        tables::check_existing_ycsb(plan, opts, c)?;
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

/// Run the plan (the parent process), after `preflight` passed. Results are
/// written to `opts.output_dir` after every step. Returns the result; its
/// status says whether everything completed.
pub fn run(plan: &RunPlan, opts: &RunOptions) -> Result<RunResult> {
    // Held for the whole run: a second run cannot replace this one's directory.
    let (_output_lock, mut run) = start_run(plan, opts)?;
    // perf's recordings that a killed run left (its processes all gone).
    for line in profiling::remove_leftovers(opts) {
        errln!("note: {line}");
    }
    let task_path = opts.output_dir.join(TASK_FILE);
    std::fs::write(&task_path, serde_json::to_vec(&ChildTask { plan: plan.clone(), opts: opts.clone() })?)?;
    let exe = std::env::current_exe().context("cannot find the rumbench executable")?;

    for (i, config) in plan.configs.iter().enumerate() {
        let mut stopped = crate::driver::stop::stop_requested();
        if !stopped {
            let round = config.repeat.map(|r| format!(", round {r} of {}", plan.repeat)).unwrap_or_default();
            errln!(
                "{} ({}{}{round}):",
                config.name,
                config.engine,
                if config.allocator == Allocator::Jemalloc { ", jemalloc" } else { "" }
            );
            // Writing that line may have found the terminal gone: a stop too.
            stopped = crate::driver::stop::stop_requested();
        }
        if stopped {
            // Every config left, recorded at once: writing the outputs once per
            // config made a stopped sweep of thousands take many minutes.
            let why = format!("not run: the run was {}", crate::driver::stop::interrupted_text());
            run.configs.extend(plan.configs[i..].iter().map(|c| ended_config(c, opts, Status::NotRun, &why)));
            write_between_configs(&run, opts);
            break;
        }
        // How the configs before this one ended, as this process knows it
        // (a config process rewrites result.json from what it read there).
        let ended = run.configs.clone();
        let (status, crash) = match config_exe(config, &exe).and_then(|exe| run_child(&exe, &task_path, i, config)) {
            Ok(status) => (Some(status), None),
            Err(e) => (None, Some(format!("cannot run the {} process: {e:#}", config.name))),
        };
        // Stopped at once by a second signal: its running step is kept from its checkpoint.
        let stopped_at_once = status.is_some_and(|s| s.code() == Some(CHILD_STOPPED_AT_ONCE as i32));
        let crashed = stopped_at_once
            || crash.is_some()
            || status.is_some_and(|s| s.code().is_none() || s.code().is_some_and(|c| c != 0 && c != 1 && c != 130));
        let dir = opts.data_dir(config);
        // A config process that died without stopping its database server
        // (killed, crashed) leaves it running: stop it from here.
        for leftover in crate::server::stop_leftover_servers(&config.engine, &dir, crashed) {
            errln!("rumbench: {leftover}");
        }
        // The child rewrote result.json after each step; take it back (when
        // it could not, the results filesystem is full: keep ours).
        match crate::result::load(&opts.output_dir.join("result.json")) {
            Ok(written) => {
                run = written;
                for (j, c) in ended.into_iter().enumerate().filter(|(j, _)| *j < i) {
                    match run.configs.get_mut(j) {
                        Some(slot) => *slot = c,
                        None => run.configs.push(c),
                    }
                }
            }
            Err(e) => errln!("  {}: cannot read back its results: {e:#}", config.name),
        }
        if let Some(c) = run.configs.get_mut(i).filter(|c| c.status == Status::Running) {
            // Its last writes did not reach the disk.
            c.status = Status::Failed;
            let full =
                full_filesystem_note(&opts.output_dir, "results", opts).map(|f| format!(" ({f})")).unwrap_or_default();
            c.error = Some(format!(
                "the config process ended without recording its end{full}; steps recorded before it are kept"
            ));
        }
        if crashed {
            // The step it was running when it ended, from its checkpoint.
            let left = checkpoint::take(&opts.output_dir, i, run.configs.get(i).map_or(0, |c| c.steps.len()));
            let full = left.as_ref().and_then(checkpoint::Left::cause);
            let (status, msg) = match stopped_at_once {
                true => (Status::Interrupted, format!("stopped at once by a second {}: its running step is kept with the operations it completed, without a rate", crate::driver::stop::signal_name(crate::driver::stop::stop_signal().unwrap_or(libc::SIGTERM)))),
                false => (Status::Failed, crash.unwrap_or_else(|| crash_message(config, status.as_ref().expect("a status"), opts, full))),
            };
            errln!("  {}: {msg}", config.name);
            if run.configs.len() <= i {
                run.configs.push(ended_config(config, opts, status, &msg));
            } else {
                run.configs[i].status = status;
                run.configs[i].error = Some(msg.clone());
            }
            // The step it was running, with what it completed.
            if let Some(step) = left.and_then(|l| l.into_step(plan, status, &msg)) {
                errln!(
                    "  {} {}: kept, with the {} operations completed by its last checkpoint",
                    config.name,
                    step.name,
                    step.ops
                );
                run.configs[i].steps.push(step);
            }
            if let Some(note) = profiling::after_crash(plan, opts, config) {
                run.configs[i].notes.push(note);
            }
            // The crashed process could not remove its data dir (rumbench's own only).
            if !opts.keep_db && !opts.use_existing_db {
                dirs::remove_owned(&dir);
            }
        } else if run.configs.len() <= i {
            run.configs.push(ended_config(
                config,
                opts,
                Status::Failed,
                "the config process ended without recording a result",
            ));
        }
        write_between_configs(&run, opts);
    }
    finish_run(&mut run, opts, None)?;
    Ok(run)
}

/// Write the results between configs. Not fatal: the next config still runs
/// (a full results filesystem may have space again once a data dir is
/// gone), and the run's end writes everything once more.
fn write_between_configs(run: &RunResult, opts: &RunOptions) {
    if let Err(e) = write_results(run, opts) {
        errln!("rumbench: cannot write the results: {}", format!("{e:#}").replace('\n', " "));
    }
}

/// A started run: its output directory (locked), its data root, and its
/// result so far (what is known before any config runs), written.
fn start_run(plan: &RunPlan, opts: &RunOptions) -> Result<(dirs::DirLock, RunResult)> {
    let output_lock = dirs::prepare_output_dir(&opts.output_dir, opts.replace_output)?;
    let db_root = opts.db_root();
    if !db_root.exists() {
        std::fs::create_dir_all(&db_root)
            .with_context(|| format!("cannot create data directory {}", db_root.display()))?;
        let _ = std::fs::write(db_root.join(dirs::MARKER), "made by rumbench; created=true\n");
    }
    // The data device only when some config keeps its data here: a --target's
    // is on its server, and this machine's disk says nothing about it.
    let system = SystemInfo::capture(
        &crate::build_info::THIS,
        plan.configs.iter().any(|c| !c.is_target()).then_some(db_root.as_path()),
    );
    let mut run = RunResult::starting(
        &crate::build_info::THIS,
        opts.command_line.clone(),
        plan.suite.clone(),
        plan.settings.clone(),
        serde_json::to_value(&system).ok(),
        sysinfo::warnings(&system),
    );
    run.rounds = plan.rounds();
    run.device = Some(opts.device.clone());
    if plan.settings.shard.is_some() || opts.schedule.is_some() {
        run.sharding = Some(crate::result::merge::ShardRun {
            shard: plan.settings.shard(),
            start_at_unix_s: opts.schedule.map(|s| s.start_at_unix_s),
            step_gap_s: opts.schedule.map(|s| s.gap_s),
            host: system.hostname.value().cloned(),
            clock: crate::measure::os::clock::ClockSync::read(),
        });
        if let Some(c) = run.sharding.as_ref().map(|s| &s.clock).filter(|c| c.synchronized != Some(true)) {
            run.warnings.push(format!(
                "this machine's clock is {}: shards started by --start-at on other machines may not start together",
                c.describe()
            ));
        }
    }
    if !crate::build_info::optimised() {
        run.warnings
            .push("rumbench itself is a debug build: its own cost per operation is far above a release build's".into());
    }
    write_results(&run, opts)?;
    Ok((output_lock, run))
}

/// Every config in this process, one after the other, as config processes
/// would run them: for tests, whose executable is not rumbench.
#[cfg(test)]
pub(crate) fn run_in_process(plan: &RunPlan, opts: &RunOptions) -> Result<RunResult> {
    let (_output_lock, mut run) = start_run(plan, opts)?;
    for i in 0..plan.configs.len() {
        run_config(plan, opts, i, &mut run)?;
    }
    finish_run(&mut run, opts, None)?;
    Ok(run)
}

/// The end of a run, whoever ends it (the parent, or a config process whose
/// parent died): the task file and an empty data root go, the status is
/// settled (`why` replaces the run's error when given), every file written.
fn finish_run(run: &mut RunResult, opts: &RunOptions, why: Option<&str>) -> Result<()> {
    let _ = std::fs::remove_file(opts.output_dir.join(TASK_FILE));
    let db_root = opts.db_root();
    if !opts.keep_db && !dirs::has_content(&db_root) {
        // Only when rumbench made it (it carries the marker).
        dirs::remove_owned(&db_root);
    }
    finish_status(run);
    if let Some(why) = why {
        run.error = Some(why.to_string());
    }
    // Step warnings stay on their steps (printed with them as they ran):
    // run.warnings holds only the run's own.
    run.finished_at = Some(now_text());
    write_results(run, opts)
}

/// Start config `index`'s process and wait for it.
/// The program a config runs in: this one, or for `rocksdb@<version>` the
/// cached build of that release (built before the run by `prepare_versions`).
fn config_exe(config: &EngineConfig, this: &Path) -> Result<PathBuf> {
    match config.engine_version.as_deref() {
        Some(v) if config.engine == "rocksdb" => {
            let release = crate::engine::rocksdb_versions::resolve(v)?;
            Ok(crate::engine::rocksdb_build::ensure(release)?.unwrap_or_else(|| this.to_path_buf()))
        }
        _ => Ok(this.to_path_buf()),
    }
}

/// A config process runs only the RocksDB release its config names.
fn check_engine_version(config: &EngineConfig) -> Result<()> {
    if config.engine != "rocksdb" {
        return Ok(());
    }
    let here = crate::engine::rocksdb_versions::Release::built_in().version;
    match config.engine_version.as_deref() {
        Some(v) if v != here => {
            bail!("config {} asks for RocksDB {v}, but this program is built with RocksDB {here}", config.name)
        }
        _ => Ok(()),
    }
}

fn run_child(exe: &Path, task_path: &Path, index: usize, config: &EngineConfig) -> Result<std::process::ExitStatus> {
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("internal-run-config").arg(task_path).arg(index.to_string());
    match config.allocator {
        Allocator::Jemalloc => cmd.env("LD_PRELOAD", JEMALLOC),
        Allocator::Glibc => cmd.env_remove("LD_PRELOAD"),
    };
    // A target's password: through the environment, not the task file.
    match &config.target_password {
        Some(p) => cmd.env(crate::server::endpoint::PASSWORD_ENV, p),
        None => cmd.env_remove(crate::server::endpoint::PASSWORD_ENV),
    };
    run_config_process(cmd)
}

/// Run a config process (`cmd`, a rumbench subcommand) and wait for it:
/// in a process group of its own, told of our death, sent our stop signals.
pub(crate) fn run_config_process(mut cmd: std::process::Command) -> Result<std::process::ExitStatus> {
    use std::os::unix::process::CommandExt;
    // Its own process group: a terminal's Ctrl-C reaches only us, and we
    // forward it once (see `forward_signal`).
    cmd.process_group(0);
    let parent = std::process::id();
    // SAFETY: async-signal-safe calls only (prctl, getppid, kill, getpid).
    unsafe {
        cmd.pre_exec(move || {
            // The config process stops (as on SIGTERM: its step is marked,
            // its server stopped, its results written) when we die, even by
            // SIGKILL. Until its handler is installed the signal just ends it.
            libc::prctl(libc::PR_SET_PDEATHSIG, PARENT_DIED_SIGNAL);
            if libc::getppid() as u32 != parent {
                libc::kill(libc::getpid(), PARENT_DIED_SIGNAL);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().context("cannot start the benchmark process")?;
    CHILD_PID.store(child.id() as i32, std::sync::atomic::Ordering::SeqCst);
    if let Some(sig) = crate::driver::stop::stop_signal() {
        forward_signal(sig);
    }
    let status = child.wait().context("waiting for the benchmark process");
    CHILD_PID.store(0, std::sync::atomic::Ordering::SeqCst);
    status
}

fn crash_message(
    config: &EngineConfig,
    status: &std::process::ExitStatus,
    opts: &RunOptions,
    known_cause: Option<String>,
) -> String {
    let db_root = &opts.db_root();
    let how = match std::os::unix::process::ExitStatusExt::signal(status) {
        Some(sig) => format!(
            "killed by signal {sig} ({}{})",
            crate::driver::stop::signal_name(sig),
            if sig == libc::SIGKILL { ", perhaps the out-of-memory killer" } else { "" }
        ),
        None => format!("exited with status {}", status.code().unwrap_or(-1)),
    };
    let mut msg = format!("the {} process {how}", config.name);
    let dirs = [db_root.join(config.instance_name()), db_root.join(&config.name)];
    // The likeliest causes an engine cannot report itself, said first: a
    // full data filesystem; else its own store full ("the data file is full
    // (N of M bytes)", from the step's checkpoint or what the engine left).
    let cause = full_filesystem_note(db_root, "data", opts).or(known_cause).or_else(|| {
        crate::backend::find(&config.engine).ok().and_then(|spec| dirs.iter().find_map(|d| (spec.crash_cause)(d)))
    });
    if let Some(cause) = &cause {
        msg = format!("{cause}: {msg}");
    }
    if let Some(words) = dirs.iter().find_map(|d| engine::last_words(d)) {
        msg.push_str(&format!(" (the engine's last words: {words})"));
    }
    msg.push_str("; steps completed before it are kept");
    msg
}

/// Write every output file of the run; a failure on a full filesystem says
/// what filled it (the file that could not be written did not).
pub(crate) fn write_results(run: &RunResult, opts: &RunOptions) -> Result<()> {
    crate::report::write_all(run, &opts.output_dir).map_err(|e| {
        match full_filesystem_note(&opts.output_dir, "results", opts) {
            Some(full) => anyhow::anyhow!("{e:#} ({full})"),
            None => e,
        }
    })
}

/// "the data filesystem is full: N bytes free" (`what`: data, results), when it is.
/// Full is less free space than an engine's writes come in: engines write
/// megabytes at a time (a memtable, an extent, a WAL segment), so a write
/// failed for want of space while a few MB are still free (a SplinterDB run
/// that died of it left 3 MB of 400 MB). The least of 64 MiB and 2% of the
/// filesystem, at least 1 MiB.
pub(crate) fn full_filesystem_note(dir: &Path, what: &str, opts: &RunOptions) -> Option<String> {
    let space = crate::measure::os::device::FsSpace::of(dir).ok()?;
    let threshold = (space.size_bytes / 50).clamp(1 << 20, 64 << 20);
    (space.avail_bytes < threshold || space.percent_full >= 99.5).then(|| {
        format!(
            "the {what} filesystem is full: {} bytes free of {}{}",
            space.avail_bytes,
            space.size_bytes,
            what_fills(dir, &space, opts)
        )
    })
}

/// What holds a full filesystem, as far as this run knows: its results,
/// its data dirs and perf's recordings, where they are on it, and the rest
/// that is not the run's ("; of its 16.0 MB used: ..."). A failed write
/// names the file it could not write, which is not what filled the disk.
fn what_fills(dir: &Path, space: &crate::measure::os::device::FsSpace, opts: &RunOptions) -> String {
    use std::os::unix::fs::MetadataExt;
    let dev = |p: &Path| p.ancestors().find_map(|a| std::fs::metadata(a).ok()).map(|m| m.dev());
    let Some(here) = dev(dir) else { return String::new() };
    let size = |p: &Path| crate::measure::os::space::allocated_bytes(p).unwrap_or(0);
    let mb = crate::measure::os::capacity::megabytes;
    let (results, db) = (opts.output_dir.clone(), opts.db_root());
    let on_it = |p: &Path| p.exists() && dev(p) == Some(here);
    let mut parts = Vec::new();
    let mut ours = 0u64;
    let db_bytes = if on_it(&db) { size(&db) } else { 0 };
    if on_it(&results) {
        // The data root is under the run directory unless --db-dir moved it.
        let own = size(&results).saturating_sub(if db.starts_with(&results) { db_bytes } else { 0 });
        parts.push(format!("the run's results {}", mb(own)));
        ours += own;
    }
    if on_it(&db) {
        parts.push(format!("its data dirs {}", mb(db_bytes)));
        ours += db_bytes;
    }
    let recordings: u64 = profiling::recordings_of(opts).iter().filter(|r| on_it(r)).map(|r| size(r)).sum();
    if recordings > 0 {
        parts.push(format!("perf's recordings {}", mb(recordings)));
        ours += recordings;
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "; of its {} used: {}, and {} that is not this run's",
        mb(space.used_bytes),
        parts.join(", "),
        mb(space.used_bytes.saturating_sub(ours))
    )
}

/// The run's status from its configs: interrupted when a signal stopped it,
/// failed when a config failed, completed otherwise.
fn finish_status(run: &mut RunResult) {
    let failed: Vec<String> = run
        .configs
        .iter()
        .filter(|c| c.status == Status::Failed)
        .map(|c| format!("{}: {}", c.name, c.error.as_deref().unwrap_or("failed")))
        .collect();
    if crate::driver::stop::stop_requested() {
        run.status = Status::Interrupted;
        run.error = Some(crate::driver::stop::interrupted_text());
    } else if !failed.is_empty() {
        run.status = Status::Failed;
        run.error = Some(failed.join("; "));
    } else {
        run.status = Status::Completed;
        run.error = None;
    }
}

/// The result of a config that ended without running its steps itself:
/// failed (its process crashed) or not run (the run was stopped before it).
fn ended_config(config: &EngineConfig, opts: &RunOptions, status: Status, why: &str) -> ConfigResult {
    let mut c = new_config_result(config, opts.data_dir(config));
    c.status = status;
    c.error = Some(why.to_string());
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
        provenance: Vec::new(),
        db_dir: dir,
        server_config: config.server_config.clone(),
        status: Status::Running,
        error: None,
        steps: Vec::new(),
        engine_stats: Vec::new(),
        notes: Vec::new(),
        scaling: Vec::new(),
        sweep: config.sweep.clone(),
        repeat: config.repeat,
    }
}

/// The child side: run config `index` of the task in `task_path`. Its exit
/// code is its own config's outcome: 0 completed, 1 failed, 130 interrupted.
pub fn run_config_child(task_path: &Path, index: usize) -> ExitCode {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let outcome = (|| -> Result<Status> {
        let task: ChildTask = serde_json::from_slice(&std::fs::read(task_path)?)?;
        progress::set_mode(task.opts.progress);
        let mut run = crate::result::load(&task.opts.output_dir.join("result.json"))?;
        let config = task.plan.configs.get(index).ok_or_else(|| anyhow::anyhow!("no config {index} in the task"))?;
        check_engine_version(config)?;
        profiling::start(&task.plan, &task.opts, index);
        let ran = run_config(&task.plan, &task.opts, index, &mut run);
        // Each step's profile was cut as it ended: the recording goes, also when the config failed.
        profiling::finish();
        ran?;
        let status = run.configs.get(index).map(|c| c.status).unwrap_or(Status::Failed);
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            // The main process died (we were stopped by PR_SET_PDEATHSIG):
            // nobody else will end the run, so end it here.
            for c in &task.plan.configs[index + 1..] {
                run.configs.push(ended_config(
                    c,
                    &task.opts,
                    Status::NotRun,
                    "not run: the main rumbench process died",
                ));
            }
            crate::driver::stop::request_stop(libc::SIGTERM);
            finish_run(&mut run, &task.opts, Some("interrupted: the main rumbench process died"))?;
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

/// Whether the database holds no key at all (a step that reads would measure nothing).
fn database_is_empty(engine: &dyn Engine, key_size: usize) -> Result<bool> {
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
struct ConfigState {
    /// Key indexes present; None when unknown (an existing database was opened).
    live: Option<KeyBitmap>,
    /// The last fill step, and how it ended when that explains missing keys.
    last_fill: Option<FillEnd>,
}

/// How a sweep's point was settled before it ran, for its notes.
pub(crate) enum Settled {
    Note(String),
    Warning(String),
}

impl Settled {
    pub(crate) fn record(self, result: &mut StepResult) {
        match self {
            Settled::Note(n) => result.notes.insert(0, n),
            Settled::Warning(w) => result.warnings.insert(0, w),
        }
    }
}

/// A step that wrote: what the engine still owes for it as it ends
/// (`engine`: None for a server, which is not asked yet).
pub(crate) fn note_write_debt(result: &mut StepResult, engine: Option<&dyn Engine>) {
    if result.metrics.logical_bytes_written == 0 || result.status != Status::Completed {
        return;
    }
    let owed = match engine {
        Some(e) => e.write_debt(),
        None => Err("a server's dirty buffers and checkpoint age are not read".to_string()),
    };
    result.write_debt = Some(crate::result::debt::WriteDebt::owed(owed));
}

/// Settle the engine before a concurrency sweep's point when the steps
/// before it may have left background work: before the sweep's first point
/// (after a fill or load) and after a point that changed data. `engine` is
/// None for a server, which gives rumbench nothing to wait on.
pub(crate) fn settle_point(step: &StepPlan, prev: Option<&StepPlan>, engine: Option<&dyn Engine>) -> Option<Settled> {
    let prev = prev?;
    let same_sweep = prev.sweep && prev.kind == step.kind;
    if !step.sweep || (same_sweep && !prev.kind.changes_data()) {
        return None;
    }
    let Some(engine) = engine else {
        return (!same_sweep).then(|| {
            Settled::Note(
                "not settled before this sweep: a server's background work (checkpoints, vacuum, purge) has no wait here; --repeat rotates the points' order instead"
                    .into(),
            )
        });
    };
    Some(
        match crate::workload::dbbench::settle(
            engine,
            std::time::Duration::from_secs_f64(step.settings.compaction_timeout_s),
        ) {
            Ok((note, false)) => Settled::Note(note),
            Ok((warning, true)) => Settled::Warning(warning),
            Err(e) => Settled::Warning(format!("settling before this point failed: {e:#}")),
        },
    )
}

/// On the first point of a sweep run in a rotated order: which order.
pub(crate) fn note_sweep_order(
    result: &mut StepResult,
    plan: &RunPlan,
    order: &[usize],
    i: usize,
    repeat: Option<u32>,
) {
    let step = &plan.steps[i];
    let pos = order.iter().position(|&j| j == i).unwrap_or(0);
    let starts_block = pos == 0 || !(plan.steps[order[pos - 1]].sweep && plan.steps[order[pos - 1]].kind == step.kind);
    if !step.sweep || !starts_block || order[pos] == pos {
        return;
    }
    let threads: Vec<String> = order[pos..]
        .iter()
        .map(|&j| &plan.steps[j])
        .take_while(|s| s.sweep && s.kind == step.kind)
        .map(|s| s.settings.threads.to_string())
        .collect();
    result.notes.push(format!(
        "this sweep's points ran in the order {} clients (rotated for round {})",
        threads.join(", "),
        repeat.unwrap_or(1)
    ));
}

/// How the last fill step left the key space.
struct FillEnd {
    kind: StepKind,
    /// "fillseq stopped at its time limit (--seconds 2) after 227,058 of 500,000 keys".
    time_limited: Option<String>,
}

fn is_fill(kind: StepKind) -> bool {
    matches!(kind, StepKind::Fill | StepKind::FillSeq | StepKind::FillRandom | StepKind::FillUniqueRandom)
}

use crate::report::fmt::thousands;

/// A fill that ended at --seconds before writing its keys: a warning of its
/// own (the run's warnings list it), and what later reads are told.
fn note_fill_end(plan: &StepPlan, result: &mut StepResult, state: &mut ConfigState) {
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
fn not_found_note(result: &mut StepResult, state: &ConfigState, num: u64) {
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
            "the database was opened as it was (--use-existing-db): rumbench does not know which keys it holds".into()
        }
    };
    result.notes.push(format!("{head}: {why}"));
}

#[allow(clippy::too_many_arguments, reason = "the step's context, each part borrowed differently")]
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
    let mut result = StepResult::new(plan);
    result.notes.extend(engine.step_notes(plan.kind.name(), plan.kind.changes_data()));
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
        kind if kind.is_engine_call() => {
            (crate::workload::dbbench::run_engine_step(engine, plan, result), Default::default())
        }
        _ => crate::workload::dbbench::run_client_step(engine, plan, index, keyspace, result),
    };
    if let Some(live) = &mut state.live {
        live.union_with(&work.written);
        live.subtract(&work.deleted);
    }
    if is_fill(plan.kind) {
        note_fill_end(plan, &mut result, state);
    }
    not_found_note(&mut result, state, plan.settings.num);
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
        wall_s: result.wall_s.unwrap_or(0.0),
    };
    match probe {
        Some(p) => result.metrics = p.end(probes, &step_work),
        None => result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "all".into(),
            reason: "efficiency metrics turned off (--metrics off)".into(),
        }),
    }
    result.rates = result
        .main_op()
        .zip(result.wall_s)
        .and_then(|(o, wall_s)| crate::measure::rate_percentiles(&o.intervals, wall_s));
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
                result.wall_s.unwrap_or(0.0)
            ));
        }
    }
    if let Some(w) = result.metrics.syncs.as_ref().and_then(SyncMetrics::not_durable_warning) {
        result.warnings.push(w);
    }
    let device_warnings = result.metrics.judge_device_io();
    result.warnings.extend(device_warnings);
    if result.writer.as_ref().is_some_and(|w| w.missed_target) {
        let w = result.writer.as_ref().unwrap();
        result.warnings.push(format!(
            "background writer missed its rate: {:.0} of {:.0} ops/s",
            w.achieved_ops_s,
            w.target_ops_s.unwrap_or(0.0)
        ));
    }
    if s.mode == Mode::IoBound
        && matches!(plan.kind, StepKind::ReadRandom | StepKind::MultiReadRandom | StepKind::ReadWhileWriting)
    {
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
    use crate::report::table::num;
    let percentiles = |l: &crate::measure::LatencySummary| {
        format!("p50 {} us, p99 {} us, max {} us", num(l.p50_us), num(l.p99_us), num(l.max_us))
    };
    // A mixed step's latency is each type's: no one type's stands for the step.
    let latency = match (s.step_latency(), s.ops_by_type.as_slice()) {
        (Some(l), _) => percentiles(l),
        // Nothing was timed (a wait with nothing to wait for): no latency, not zeros.
        (None, []) => "no operation timed".to_string(),
        (None, types) => types
            .iter()
            .map(|o| {
                if o.latency.count > 0 {
                    format!("{} {}", o.op, percentiles(&o.latency))
                } else {
                    format!("{} none", o.op)
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    match s.status {
        Status::Interrupted if s.ops_s.is_none() => errln!(
            "  {config} {}: {}, before any operation completed",
            s.name,
            s.error.as_deref().unwrap_or("interrupted")
        ),
        Status::Completed | Status::Interrupted => errln!(
            "  {config} {}: {} ops/s over {:.1} s, {latency}{}",
            s.name,
            s.ops_s.map(num).unwrap_or_else(|| "-".into()),
            s.wall_s.unwrap_or(0.0),
            if s.status == Status::Interrupted { " (interrupted)" } else { "" }
        ),
        _ => errln!("  {config} {}: {}", s.name, s.error.as_deref().unwrap_or("failed")),
    }
    for w in &s.warnings {
        errln!("    warning: {w}");
    }
}

/// Print a finished step, append it to config `ci` of `run` and write every
/// output. Returns whether the config's next step should run (false once a
/// step did not complete; the config then carries its status and error).
///
/// A failed step keeps what its clients completed (the operations of each
/// type, their per-second series), but no rate and no space-amp: a step
/// cut short by a failure has no rate of the engine's, and its database's
/// size is not that of the keys it holds. When the data filesystem is full,
/// its error says so (engines often report only EIO).
pub(crate) fn record_step(
    run: &mut RunResult,
    ci: usize,
    config: &EngineConfig,
    kind: StepKind,
    mut result: StepResult,
    opts: &RunOptions,
    data_dir: &Path,
) -> Result<bool> {
    if result.status == Status::Failed {
        if let Some(full) = full_filesystem_note(data_dir, "data", opts) {
            let e = result.error.take().unwrap_or_else(|| "failed".into());
            result.error = Some(format!("{e} ({full})"));
        }
        if result.ops > 0 {
            result.notes.push(format!(
                "failed after {} operations: they are kept, but no rate is reported for a failed step",
                result.ops
            ));
            result.metrics.missing.push(crate::measure::step_metrics::Missing {
                metric: "ops_s".into(),
                reason: format!("the step failed after {} operations: a step cut short has no rate", result.ops),
            });
        }
        result.ops_s = None;
        result.mb_s = None;
        result.rates = None;
        result.writer = None;
        if result.metrics.space_amp.take().is_some() {
            result.metrics.missing.push(crate::measure::step_metrics::Missing {
                metric: "space_amp".into(),
                reason: "the step failed: the database's size and the keys it holds are not of one moment".into(),
            });
        }
    }
    // Stopped or failed before any operation completed: nothing was measured.
    if result.status != Status::Completed && result.ops == 0 {
        result.ops_s = None;
        result.mb_s = None;
        result.rates = None;
        result.wall_s = None;
        result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "ops_s".into(),
            reason: format!(
                "no operation completed before the step {}",
                if result.status == Status::Failed { "failed" } else { "was interrupted" }
            ),
        });
    }
    let server = config.engine.parse::<crate::plan::server_kind::ServerKind>().is_ok();
    let target = config.is_target().then(device::for_target);
    // A flush, a wait for compaction or a settle is one call: no rate of operations to bound.
    if !kind.is_engine_call() {
        result.ceilings =
            ceilings::step_ceilings(&result, target.as_ref().unwrap_or(&opts.device), server, cores() as f64);
    }
    if let Some(c) = &result.ceilings {
        result.warnings.extend(c.warnings.iter().cloned());
        result.notes.extend(c.notes.iter().cloned());
    }
    profiling::note_step(run.configs[ci].steps.len(), &mut result);
    let config_name = config.name.as_str();
    print_step_line(config_name, &result);
    let status = result.status;
    let error = result.error.clone();
    run.configs[ci].steps.push(result);
    // Its write debt, and what this step paid of the steps' before it.
    crate::result::debt::settle_accounts(&mut run.configs[ci].steps);
    let mut written = crate::report::write_all(run, &opts.output_dir);
    // The step's profile, cut from perf's recording now that the step is on
    // disk, and written with it (a kill after this keeps it).
    let (profiled, warnings) = profiling::cut(run, ci, opts);
    for w in &warnings {
        errln!("    warning: {w}");
    }
    if profiled && written.is_ok() {
        written = crate::report::write_all(run, &opts.output_dir);
    }
    // A results filesystem that is full must not stop the cleanup (the
    // server, the data dir) nor the configs after this one: the config fails
    // here, and the main process writes again once its data dir is gone.
    if let Err(e) = written {
        let full =
            full_filesystem_note(&opts.output_dir, "results", opts).map(|f| format!(" ({f})")).unwrap_or_default();
        let msg = format!("cannot write the results: {}{full}", format!("{e:#}").replace('\n', " "));
        errln!("  {config_name}: {msg}");
        run.configs[ci].status = Status::Failed;
        run.configs[ci].error = Some(msg);
        return Ok(false);
    }
    if status != Status::Completed {
        run.configs[ci].status = status;
        run.configs[ci].error = error.map(|e| format!("step {kind}: {e}"));
        return Ok(false);
    }
    Ok(true)
}

/// Run one config's steps, appending to `run` and writing after each step.
fn run_config(plan: &RunPlan, opts: &RunOptions, index: usize, run: &mut RunResult) -> Result<()> {
    let config = plan.configs.get(index).context("config index out of range")?;
    if plan.steps.iter().any(|s| s.kind.is_ibench() || s.kind.is_ycsb() || s.kind.is_contention()) {
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
            space_needed: crate::engine::splinterdb::run_space_needed(plan).ok(),
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
    let probes = engine_probes(&dir, spec);
    let mut state = ConfigState {
        live: (!opts.use_existing_db).then(|| KeyBitmap::with_capacity(plan.settings.num)),
        last_fill: None,
    };

    let order = crate::plan::run_order(&plan.steps, config.repeat);
    let mut prev: Option<&StepPlan> = None;
    let mut schedule = opts.schedule.map(schedule::Schedule::new);
    for &i in &order {
        let step = &plan.steps[i];
        if crate::driver::stop::stop_requested() {
            break;
        }
        let settled = settle_point(step, prev, Some(engine.as_ref()));
        profiling::before_step(step);
        // (i: the step's seeds stay its own whatever the order.)
        let (mut result, _checkpoint) =
            checkpoint::keep(&opts.output_dir, index, i, run.configs[ci].steps.len(), Some(engine.as_ref()), || {
                schedule::Schedule::run(&mut schedule, step, || {
                    run_step(engine.as_ref(), config, step, i, keyspace, &probes, &mut state, &dir)
                })
            });
        note_sweep_order(&mut result, plan, &order, i, config.repeat);
        if let Some(s) = settled {
            s.record(&mut result);
        }
        note_write_debt(&mut result, Some(engine.as_ref()));
        prev = Some(step);
        if !record_step(run, ci, config, step.kind, result, opts, &dir)? {
            break;
        }
    }
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

/// The cores this process may run on (its affinity), 1 when unknown.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// A config whose steps all ran is completed; one a signal stopped before
/// its last step is interrupted (a failed step has set its status already).
/// Its concurrency sweeps are judged against `machine`.
pub(crate) fn settle_config_status(run: &mut RunResult, ci: usize, planned_steps: usize, machine: Machine) {
    let c = &mut run.configs[ci];
    if c.status == Status::Running {
        if c.steps.len() >= planned_steps || !crate::driver::stop::stop_requested() {
            c.status = Status::Completed;
        } else {
            c.status = Status::Interrupted;
            c.error = Some(format!("not every step ran: {}", crate::driver::stop::interrupted_text()));
        }
    }
    c.scaling = crate::result::scaling::sweeps(c, Some(&machine));
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

/// The client sessions a config's engine is opened for: the most threads
/// of any step and one more (the runner's own reads); the table workloads
/// (insert benchmark, YCSB, hot rows) twice the threads and one more (a
/// query step's clients each beside a writer).
pub(crate) fn sessions_opened(plan: &RunPlan) -> usize {
    let threads = plan.steps.iter().map(|s| s.settings.threads).max().unwrap_or(1);
    match plan.steps.iter().any(|s| s.kind.is_ibench() || s.kind.is_ycsb() || s.kind.is_contention()) {
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
        }
        check_release(c, plan)?;
        crate::engine::splinterdb::check_plan(c, plan)?;
    }
    resources::check_sizes(plan)?;
    // YCSB's run steps without ycsb-load: checked with the run's options
    // (--use-existing-db, --target) in `preflight`.
    crate::workload::ibench::check_plan(plan)
}

/// A `rocksdb@<version>` config asks only for what that release can do
/// (options as resolved, transactions=auto included, and its steps).
fn check_release(c: &EngineConfig, plan: &RunPlan) -> Result<()> {
    let (Some(v), "rocksdb") = (c.engine_version.as_deref(), c.engine.as_str()) else { return Ok(()) };
    let release = crate::engine::rocksdb_versions::resolve(v)?;
    release.check_options(&EngineOptions(c.options.clone())).with_context(|| format!("config {}", c.name))?;
    if let Some(s) = plan.steps.iter().find(|s| s.kind == StepKind::MultiReadRandom && !release.caps.multiget) {
        bail!("config {}: step {} needs RocksDB 7.4.4 or later (batched MultiGet in its C API); this config runs RocksDB {v}", c.name, s.kind);
    }
    Ok(())
}

#[cfg(test)]
mod settle_tests {
    use super::*;
    use crate::plan::test_step as plan;

    /// A server has nothing to wait on: its sweep's first point says so, once.
    #[test]
    fn a_sweep_on_a_server_says_once_that_it_was_not_settled() {
        let load = plan(StepKind::YcsbLoad, 1, false);
        let (c1, c2) = (plan(StepKind::YcsbC, 1, true), plan(StepKind::YcsbC, 2, true));
        assert!(
            matches!(settle_point(&c1, Some(&load), None), Some(Settled::Note(n)) if n.starts_with("not settled before this sweep"))
        );
        assert!(settle_point(&c2, Some(&c1), None).is_none());
        assert!(settle_point(&load, None, None).is_none());
        let (a1, a2) = (plan(StepKind::YcsbA, 1, true), plan(StepKind::YcsbA, 2, true));
        assert!(settle_point(&a2, Some(&a1), None).is_none(), "said once per sweep");
    }

    /// On an engine: before the first point, after a point that changed data, not between reads.
    #[test]
    fn an_engine_is_settled_before_the_first_point_and_after_writes() {
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::engine::conformance::open_with(&crate::engine::rocksdb::SPEC, dir.path(), &[]).unwrap();
        let fill = plan(StepKind::FillSeq, 1, false);
        let (r1, r2) = (plan(StepKind::ReadRandom, 1, true), plan(StepKind::ReadRandom, 2, true));
        let (w1, w2) = (plan(StepKind::ReadWhileWriting, 1, true), plan(StepKind::ReadWhileWriting, 2, true));
        let note = |s: Option<Settled>| match s {
            Some(Settled::Note(n)) => n,
            _ => String::new(),
        };
        assert!(note(settle_point(&r1, Some(&fill), Some(engine.as_ref())))
            .starts_with("settled before this point: flushed and waited for background work"));
        assert!(settle_point(&r2, Some(&r1), Some(engine.as_ref())).is_none());
        assert!(
            note(settle_point(&w2, Some(&w1), Some(engine.as_ref()))).starts_with("settled before this point"),
            "a background writer changed data"
        );
    }
}
