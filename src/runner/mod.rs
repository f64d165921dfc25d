//! Running a plan: every engine config in turn, each in a child process of
//! its own, every step in order, results written after each step.
//!
//! A child process per config keeps configs from disturbing each other's
//! measurements (peak RSS, allocator state, page cache of its files), lets a
//! config choose its allocator (jemalloc by LD_PRELOAD), and means an engine
//! that crashes the process takes only its own unfinished step with it: the
//! parent records the crash and keeps everything measured before it.

mod backends;
mod ceilings;
mod checkpoint;
mod checks;
mod child;
pub mod device;
pub mod dirs;
mod internals;
pub mod prepare;
pub mod profiling;
mod record;
mod resources;
pub mod schedule;
mod slo;
mod steps;
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

pub use checks::*;
pub use child::*;
pub(crate) use record::*;

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
