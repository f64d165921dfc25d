//! Running a plan: every engine config in turn, each in a child process of
//! its own, every step in order, results written after each step.
//!
//! A child process per config keeps configs from disturbing each other's
//! measurements (peak RSS, allocator state, page cache of its files), lets a
//! config choose its allocator (jemalloc by LD_PRELOAD), and means an engine
//! that crashes the process takes only its own unfinished step with it: the
//! parent records the crash and keeps everything measured before it.

mod adaptive;
mod backends;
mod ceilings;
mod checkpoint;
mod checks;
mod child;
pub mod device;
pub mod dirs;
mod duet;
mod internals;
mod judgments;
mod orphans;
pub mod prepare;
pub mod profiling;
mod record;
mod resources;
pub mod schedule;
mod slo;
mod steps;
mod tables;
mod watchdog;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::datagen::{KeyOrder, KeySpace};
use crate::driver::progress::{self, ProgressMode};
use crate::engine::{self, Engine, EngineOptions, OpenArgs};
use crate::measure::live::KeyBitmap;
use crate::measure::os::sysinfo::{self, SystemInfo};
use crate::measure::step_metrics::{Probes, StepWork};
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

/// The running config processes, if any: one, or a duet's two.
static CHILD_PIDS: [std::sync::atomic::AtomicI32; 2] =
    [std::sync::atomic::AtomicI32::new(0), std::sync::atomic::AtomicI32::new(0)];

/// Pass a stop signal on to the running config processes (called by the signal handler).
pub fn forward_signal(sig: i32) {
    for pid in &CHILD_PIDS {
        let pid = pid.load(std::sync::atomic::Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: sending a signal to a child we started.
            unsafe { libc::kill(pid, sig) };
        }
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
    // What a killed run left: its processes, its servers, perf's recordings.
    for line in orphans::clear().into_iter().chain(profiling::remove_leftovers(opts)) {
        errln!("note: {line}");
    }
    let task_path = opts.output_dir.join(TASK_FILE);
    std::fs::write(&task_path, serde_json::to_vec(&ChildTask { plan: plan.clone(), opts: opts.clone() })?)?;
    let exe = std::env::current_exe().context("cannot find the rumbench executable")?;
    let split = plan.duet.map(duet::split).transpose()?;
    if let Some(split) = &split {
        run.duet = Some(split.clone());
        run.warnings.extend(duet::warnings(plan, split));
    }
    let mut rounds = adaptive::Rounds::new(plan);
    let mut i = 0;
    while i < plan.configs.len() {
        // A duet's two configs run together; every other config alone.
        let turn = if plan.duet.is_some() { i..(i + 2).min(plan.configs.len()) } else { i..i + 1 };
        let mut stopped = crate::driver::stop::stop_requested();
        if !stopped {
            for config in &plan.configs[turn.clone()] {
                announce(plan, config, split.as_ref());
            }
            // Writing those lines may have found the terminal gone: a stop too.
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
        match (&split, turn.len()) {
            (Some(split), 2) => run_duet(plan, opts, &exe, i, split, &mut run),
            _ => {
                let config = &plan.configs[i];
                let watch = watchdog::Watchdog::new(plan, i, opts.output_dir.clone());
                let ended = match config_exe(config, &exe).and_then(|exe| run_child(&exe, &task_path, i, config, watch))
                {
                    Ok(ended) => ended,
                    Err(e) => Ended::NotStarted(format!("cannot run the {} process: {e:#}", config.name)),
                };
                settle_config(plan, opts, opts, i, ended, &mut run);
            }
        }
        write_between_configs(&run, opts);
        i = turn.end;
        // --repeat auto: a round ended; stop once every verdict is decided.
        if rounds.after(plan, i, opts, &mut run) {
            break;
        }
    }
    finish_run(&mut run, opts, None)?;
    Ok(run)
}

/// "name (engine, round r of n):" as a config starts (with its CPUs in a duet).
fn announce(plan: &RunPlan, config: &EngineConfig, split: Option<&crate::result::repeats::DuetRun>) {
    let rounds = plan.configs.iter().filter_map(crate::plan::repeats::round_of).max().unwrap_or(1);
    let of = if plan.adaptive.is_some() { "of at most" } else { "of" };
    let round = match (&config.duet, config.repeat) {
        (Some(d), _) => format!(", duet round {} {of} {rounds}, beside {}", d.round, d.partner),
        (None, Some(r)) => format!(", round {r} {of} {rounds}"),
        (None, None) => String::new(),
    };
    let cpus = split
        .zip(config.duet.as_ref())
        .map(|(s, d)| {
            let half = &s.halves[d.half as usize & 1];
            format!(", CPU{} {}", if half.len() == 1 { "" } else { "s" }, cpu_list(half))
        })
        .unwrap_or_default();
    errln!(
        "{} ({}{}{round}{cpus}):",
        config.name,
        config.engine,
        if config.allocator == Allocator::Jemalloc { ", jemalloc" } else { "" }
    );
}

/// CPUs as "0,1".
fn cpu_list(cpus: &[usize]) -> String {
    cpus.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
}

/// A duet: configs `i` and `i + 1` at the same time, each writing into a
/// directory of its own under the run directory, taken back when both end.
fn run_duet(
    plan: &RunPlan,
    opts: &RunOptions,
    exe: &Path,
    i: usize,
    split: &crate::result::repeats::DuetRun,
    run: &mut RunResult,
) {
    let mut sides: Vec<(RunOptions, Result<std::process::Command>)> = Vec::new();
    for (k, config) in plan.configs[i..i + 2].iter().enumerate() {
        let side_opts = RunOptions {
            output_dir: opts.output_dir.join(format!(".duet-{}", config.instance_name())),
            db_dir: Some(opts.db_root()),
            // Two bars on one terminal would overwrite each other: lines (each written whole) instead.
            progress: match opts.progress {
                ProgressMode::Off => ProgressMode::Off,
                _ => ProgressMode::Lines,
            },
            ..opts.clone()
        };
        let cmd = (|| -> Result<std::process::Command> {
            let _ = std::fs::remove_dir_all(&side_opts.output_dir);
            std::fs::create_dir_all(&side_opts.output_dir)?;
            std::fs::write(side_opts.output_dir.join(dirs::MARKER), "made by rumbench; created=true\n")?;
            // The side starts from the run so far; the second side's partner
            // holds the slot before it, so that each writes its own config at its index.
            let mut start = run.clone();
            if k == 1 {
                start.configs.push(ended_config(&plan.configs[i], opts, Status::Running, "running beside it"));
            }
            crate::report::write_all(&start, &side_opts.output_dir)?;
            let side_task = side_opts.output_dir.join(TASK_FILE);
            std::fs::write(
                &side_task,
                serde_json::to_vec(&ChildTask { plan: plan.clone(), opts: side_opts.clone() })?,
            )?;
            let exe = config_exe(config, exe)?;
            Ok(child_command(&exe, &side_task, i + k, config))
        })();
        sides.push((side_opts, cmd));
    }
    let cpus = [0, 1].map(|k| {
        let half = plan.configs[i + k].duet.as_ref().map_or(k as u8, |d| d.half);
        split.halves[half as usize & 1].clone()
    });
    let mut cmds = Vec::new();
    let mut failed: [Option<String>; 2] = [None, None];
    for (k, (_, cmd)) in sides.iter_mut().enumerate() {
        match std::mem::replace(cmd, Err(anyhow::anyhow!("taken"))) {
            Ok(c) => cmds.push(c),
            Err(e) => {
                failed[k] = Some(format!("cannot run the {} process: {e:#}", plan.configs[i + k].name));
                // A side that cannot start: a process that ends at once, so its partner runs alone.
                let mut c = std::process::Command::new("true");
                c.arg("not-started");
                cmds.push(c);
            }
        }
    }
    let cmds: [std::process::Command; 2] = cmds.try_into().unwrap_or_else(|_| unreachable!("two sides"));
    let watches = [0, 1].map(|k| Some(watchdog::Watchdog::new(plan, i + k, sides[k].0.output_dir.clone())));
    let mut end = duet::run_pair(cmds, cpus, watches);
    for (k, (side_opts, _)) in sides.iter().enumerate() {
        let ended = match (&failed[k], std::mem::replace(&mut end.status[k], Err(String::new())), end.killed[k].take())
        {
            (Some(why), _, _) => Ended::NotStarted(why.clone()),
            (None, _, Some(kill)) => Ended::Killed(kill),
            (None, Ok(s), None) => Ended::Exited(s),
            (None, Err(e), None) => {
                Ended::NotStarted(format!("cannot run the {} process: {e}", plan.configs[i + k].name))
            }
        };
        settle_config(plan, opts, side_opts, i + k, ended, run);
        if let Some(c) = run.configs.get_mut(i + k) {
            c.duet = duet::side_record(&plan.configs[i + k], split);
            if end.stopped_for_partner[k] {
                let partner = plan.configs[i + 1 - k].instance_name();
                let why = format!("stopped: its duet partner {partner} ended without completing");
                c.error = Some(match c.error.take() {
                    Some(e) => format!("{why} ({e})"),
                    None => why,
                });
                if c.status == Status::Interrupted || c.status == Status::Completed {
                    c.status = Status::Failed;
                }
            }
        }
        // What the side wrote outside its results (kept server logs) moves to the run directory.
        keep_side_files(&side_opts.output_dir, &opts.output_dir);
        dirs::remove_owned(&side_opts.output_dir);
    }
    duet::note_overlap(run, [i, i + 1], &end.alone);
}

/// A duet side's kept logs, moved into the run directory.
fn keep_side_files(side: &Path, run_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(side) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        if name.to_string_lossy().ends_with(".log") {
            let _ = std::fs::rename(e.path(), run_dir.join(&name));
        }
    }
}

/// How a config process ended.
pub(crate) enum Ended {
    /// By itself, or by a signal from outside.
    Exited(std::process::ExitStatus),
    /// The main process ended it (`watchdog`), and why.
    Killed(watchdog::Kill),
    /// It could not be started: why.
    NotStarted(String),
}

/// Config `i`'s process has ended: take back what it wrote into
/// `side.output_dir` (the run directory, or a duet side's), and record what
/// it could not (a crash, its running step from its checkpoint, servers and
/// data it left).
fn settle_config(plan: &RunPlan, opts: &RunOptions, side: &RunOptions, i: usize, ended: Ended, run: &mut RunResult) {
    let config = &plan.configs[i];
    let status = match &ended {
        Ended::Exited(s) => Some(*s),
        _ => None,
    };
    // Stopped at once by a second signal: its running step is kept from its checkpoint.
    let stopped_at_once = status.is_some_and(|s| s.code() == Some(CHILD_STOPPED_AT_ONCE as i32));
    let crashed = stopped_at_once
        || status.is_none()
        || status.is_some_and(|s| s.code().is_none() || s.code().is_some_and(|c| c != 0 && c != 1 && c != 130));
    let dir = opts.data_dir(config);
    // A config process that died without stopping its database server
    // (killed, crashed) leaves it running: stop it from here.
    for leftover in crate::server::stop_leftover_servers(&config.engine, &dir, crashed) {
        errln!("rumbench: {leftover}");
    }
    // The child rewrote result.json after each step; take its config back
    // (when it could not, the results filesystem is full: keep ours).
    match crate::result::load(&side.output_dir.join("result.json")) {
        Ok(written) => take_back(run, i, written),
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
    // A crash's count is read below or not at all: the file goes either way.
    let _count = checkpoint::CrashCount::discarded_after(&side.output_dir);
    if crashed {
        // The step it was running when it ended, from its checkpoint.
        let left = checkpoint::take(&side.output_dir, i, run.configs.get(i).map_or(0, |c| c.steps.len()));
        let full = left.as_ref().and_then(checkpoint::Left::cause);
        let (status, msg) = match ended {
            _ if stopped_at_once => (Status::Interrupted, format!("stopped at once by a second {}: its running step is kept with the operations it completed, without a rate", crate::driver::stop::signal_name(crate::driver::stop::stop_signal().unwrap_or(libc::SIGTERM)))),
            Ended::Killed(k) => (if k.interrupted { Status::Interrupted } else { Status::Failed }, k.why),
            Ended::NotStarted(why) => (Status::Failed, why),
            Ended::Exited(s) => (Status::Failed, crash_message(config, &s, opts, full)),
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
            errln!("  {} {}: kept, with the {} operations it completed", config.name, step.name, step.ops);
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
}

/// Config `i` as its process wrote it, and the run's warnings it added.
/// The configs before it stay as this process knows them (a config
/// process rewrites result.json from what it read there).
fn take_back(run: &mut RunResult, i: usize, written: RunResult) {
    for w in written.warnings {
        if !run.warnings.contains(&w) {
            run.warnings.push(w);
        }
    }
    let Some(c) = written.configs.into_iter().nth(i) else { return };
    if let Some(slot) = run.configs.get_mut(i) {
        *slot = c;
    } else if run.configs.len() == i {
        run.configs.push(c);
    }
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
    let versions = crate::backend::find(&config.engine).ok().and_then(|spec| spec.versions);
    match (config.engine_version.as_deref(), versions) {
        (Some(v), Some(versions)) => Ok((versions.program)(v)?.unwrap_or_else(|| this.to_path_buf())),
        _ => Ok(this.to_path_buf()),
    }
}

/// A config process runs only the engine version its config names.
fn check_engine_version(config: &EngineConfig) -> Result<()> {
    let Some(versions) = crate::backend::find(&config.engine).ok().and_then(|spec| spec.versions) else {
        return Ok(());
    };
    let here = (versions.running)();
    match config.engine_version.as_deref() {
        Some(v) if v != here => {
            bail!(
                "config {} asks for {} {v}, but this program is built with {} {here}",
                config.name,
                config.engine,
                config.engine
            )
        }
        _ => Ok(()),
    }
}

fn run_child(
    exe: &Path,
    task_path: &Path,
    index: usize,
    config: &EngineConfig,
    watch: watchdog::Watchdog,
) -> Result<Ended> {
    let (status, kill) = wait_config_process(child_command(exe, task_path, index, config), Some(watch))?;
    Ok(match kill {
        Some(k) => Ended::Killed(k),
        None => Ended::Exited(status),
    })
}

/// The command of config `index`'s process.
fn child_command(exe: &Path, task_path: &Path, index: usize, config: &EngineConfig) -> std::process::Command {
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
    cmd
}

/// Run a config process (`cmd`, a rumbench subcommand) and wait for it:
/// in a process group of its own, told of our death, sent our stop signals.
pub(crate) fn run_config_process(cmd: std::process::Command) -> Result<std::process::ExitStatus> {
    wait_config_process(cmd, None).map(|(status, _)| status)
}

/// Run a config process as `run_config_process` does, under `watch`'s eye:
/// its exit status, and why the watchdog ended it when it did.
fn wait_config_process(
    cmd: std::process::Command,
    mut watch: Option<watchdog::Watchdog>,
) -> Result<(std::process::ExitStatus, Option<watchdog::Kill>)> {
    let mut child = spawn_config_process(cmd, None, &[])?;
    CHILD_PIDS[0].store(child.id() as i32, std::sync::atomic::Ordering::SeqCst);
    if let Some(sig) = crate::driver::stop::stop_signal() {
        forward_signal(sig);
    }
    let ended = (|| -> std::io::Result<(std::process::ExitStatus, Option<watchdog::Kill>)> {
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok((status, None));
            }
            if let Some(kill) = watch.as_mut().and_then(watchdog::Watchdog::check) {
                watchdog::kill(&child);
                return Ok((child.wait()?, Some(kill)));
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    })();
    CHILD_PIDS[0].store(0, std::sync::atomic::Ordering::SeqCst);
    ended.context("waiting for the benchmark process")
}

/// Start a config process: in a process group of its own, told of our
/// death; `keep_fd` left open for it (a duet's socket), `cpus` (when any)
/// the only CPUs it and everything it starts may run on.
pub(crate) fn spawn_config_process(
    mut cmd: std::process::Command,
    keep_fd: Option<i32>,
    cpus: &[usize],
) -> Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    // Its own process group: a terminal's Ctrl-C reaches only us, and we
    // forward it once (see `forward_signal`).
    cmd.process_group(0);
    let parent = std::process::id();
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes within it.
    let affinity = (!cpus.is_empty()).then(|| unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        set
    });
    // SAFETY: async-signal-safe calls only (prctl, getppid, kill, getpid,
    // fcntl, sched_setaffinity), on memory made before the fork.
    unsafe {
        cmd.pre_exec(move || {
            // The config process stops (as on SIGTERM: its step is marked,
            // its server stopped, its results written) when we die, even by
            // SIGKILL. Until its handler is installed the signal just ends it.
            libc::prctl(libc::PR_SET_PDEATHSIG, PARENT_DIED_SIGNAL);
            if libc::getppid() as u32 != parent {
                libc::kill(libc::getpid(), PARENT_DIED_SIGNAL);
            }
            if let Some(fd) = keep_fd {
                // Open past exec in this process only.
                if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(set) = &affinity {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd.spawn().context("cannot start the benchmark process")
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
        duet: None,
    }
}
