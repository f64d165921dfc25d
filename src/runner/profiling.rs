//! `--profile` in a config process: perf samples the process (and what it
//! starts: a server's whole tree) from before its first step to its end,
//! into a directory of its own outside the results (`RunOptions::profile_dir`,
//! chosen before the run by the room its filesystem has). As each step
//! ends, the samples since the last cut are cut out (perf switches files,
//! or per thread is stopped and started again), the step's window is folded
//! from them, written gzipped under profiles/ in the run directory and
//! referenced from the step in result.json, and the raw file is removed: a
//! config process killed later keeps the profiles of the steps it finished.
//! One perf per config (per CPU) rather than one per step: starting perf
//! takes longer than many steps' windows, and a recording per window would
//! need it started before the clients' release anyway.
//!
//! The recording's directory is `<place>/rumbench-perf.<config process's
//! pid>`, marked as rumbench's and locked by the config process while it
//! lives: one whose lock is free belongs to a process that died (killed
//! with the run), and the next run removes it (`remove_leftovers`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{bail, Result};

use crate::measure::os::device::FsSpace;
use crate::measure::profile::{fold::Folder, perf, Folded, StepProfile, Window};
use crate::plan::{EngineConfig, RunPlan, StepPlan};
use crate::result::{RunResult, StepResult};

use super::{dirs, RunOptions};
use crate::measure::os::capacity::megabytes as mb;

/// A recording directory's name: this and the config process's pid.
pub const DIR_PREFIX: &str = "rumbench-perf.";

/// The one place recordings may go, instead of the ones tried in turn
/// ($TMPDIR, /var/tmp, /tmp, the data root): for a machine whose
/// temporary filesystems are small, and for tests.
pub const DIR_ENV: &str = "RUMBENCH_PROFILE_DIR";

/// How long a step of no planned length (a fill of --num keys, a load) is
/// assumed to run when the place is chosen before the run; while it runs,
/// the room left is watched instead (`guard`).
pub const UNTIMED_SECS: f64 = 10.0;

/// A step recorded while profiling, whose profile the cut makes.
struct Pending {
    position: usize,
    window: Window,
    ops: u64,
    hz: u32,
}

/// The config process's profiling.
struct Active {
    hz: u32,
    root: u32,
    /// The recording's directory, and its lock (held while this process lives).
    dir: PathBuf,
    _lock: Option<dirs::DirLock>,
    recording: Option<perf::Recording>,
    /// Why there is no recording (it did not start, or ended by itself).
    broken: Option<String>,
    tree: perf::ProcessTree,
    /// perf's pid (its samples are not the config's), and its scope's name.
    profiler: u32,
    scope: Option<crate::measure::profile::perf::Scope>,
    /// Why the running step is not profiled, decided before it or while it ran.
    skip: Option<String>,
    pending: Option<Pending>,
    /// The guard watches the recording's filesystem while a step runs.
    guard_armed: bool,
    place_noted: bool,
}

static ACTIVE: Mutex<Option<Active>> = Mutex::new(None);

fn slot() -> std::sync::MutexGuard<'static, Option<Active>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The sampling rate of the run's profiles (None: no step profiles).
pub(crate) fn rate(plan: &RunPlan) -> Option<u32> {
    plan.steps.iter().filter_map(|s| s.settings.profile_hz).max()
}

/// The places a recording may go, in the order they are tried: $RUMBENCH_PROFILE_DIR
/// alone when set; else $TMPDIR, /var/tmp, /tmp and the data root (beside
/// the data dirs), never one inside the run directory.
pub(crate) fn candidates(opts: &RunOptions) -> Vec<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    candidates_from(env(DIR_ENV), env("TMPDIR"), opts)
}

fn candidates_from(only: Option<PathBuf>, tmpdir: Option<PathBuf>, opts: &RunOptions) -> Vec<PathBuf> {
    if let Some(only) = only {
        return vec![only];
    }
    let results = absolute(&opts.output_dir);
    let mut places: Vec<PathBuf> = Vec::new();
    for p in tmpdir.into_iter().chain([PathBuf::from("/var/tmp"), PathBuf::from("/tmp"), opts.db_root()]) {
        let p = absolute(&p);
        if !p.starts_with(&results) && !places.contains(&p) {
            places.push(p);
        }
    }
    places
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The nearest existing directory at or above `p` (a data root is made when the run starts).
fn existing_ancestor(p: &Path) -> Option<&Path> {
    p.ancestors().find(|a| a.is_dir())
}

fn writable(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: a valid C string.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// What is kept free on a recording's filesystem for everything else on
/// it: 2% of it, at least 4 MiB and at most 1 GiB.
pub fn reserve(space: &FsSpace) -> u64 {
    (space.size_bytes / 50).clamp(4 << 20, 1 << 30)
}

/// The recording a step needs room for: its planned length at `hz` on
/// every CPU (None: it has no planned length).
fn step_bytes(step: &StepPlan, hz: u32) -> Option<(u64, f64)> {
    let secs = crate::plan::planned_seconds(step.kind, &step.settings)?;
    Some((perf::recording_bytes(hz, perf::online_cpus(), secs), secs))
}

/// The largest recording a step of the plan needs, and what it is.
fn largest_step(plan: &RunPlan) -> Option<(u64, String)> {
    let cpus = perf::online_cpus();
    plan.steps
        .iter()
        .filter_map(|s| {
            let hz = s.settings.profile_hz?;
            Some(match step_bytes(s, hz) {
                Some((bytes, secs)) => (bytes, format!("step {} ({secs} s at {hz} Hz on {cpus} CPUs)", s.name())),
                None => (
                    perf::recording_bytes(hz, cpus, UNTIMED_SECS),
                    format!(
                        "step {} (no planned length: {UNTIMED_SECS} s assumed, at {hz} Hz on {cpus} CPUs)",
                        s.name()
                    ),
                ),
            })
        })
        .max_by_key(|(bytes, _)| *bytes)
}

/// Checked before anything runs (bad input or a missing piece: exit 2):
/// perf, and a place for its recordings with room for the largest step's
/// (perf::SAMPLE_BYTES a sample, every CPU at the rate, for the step's
/// planned length) beyond what is kept free there. The place chosen.
pub fn check(plan: &RunPlan, opts: &RunOptions) -> Result<Option<PathBuf>> {
    let Some(hz) = rate(plan) else { return Ok(None) };
    perf::check_available(hz)?;
    let Some((need, what)) = largest_step(plan) else { return Ok(None) };
    let mut tried = Vec::new();
    for place in candidates(opts) {
        let Some(existing) = existing_ancestor(&place) else { continue };
        if !writable(existing) {
            tried.push(format!("{} is not writable", place.display()));
            continue;
        }
        let Ok(space) = FsSpace::of(existing) else { continue };
        // A killed run's recordings there go before the run starts.
        let reclaimable: u64 = leftovers_in(&place).iter().map(|d| allocated(d)).sum();
        let room = (space.avail_bytes + reclaimable).saturating_sub(reserve(&space));
        if room >= need {
            return Ok(Some(place));
        }
        tried.push(format!(
            "{} has {} free ({} kept free)",
            place.display(),
            mb(space.avail_bytes + reclaimable),
            mb(reserve(&space))
        ));
    }
    bail!(
        "--profile: no filesystem has room for perf's recording of a step: the {what} needs about {} ({} KiB a sample); {}; free some space, or set ${DIR_ENV} to a directory on a filesystem with room",
        mb(need),
        perf::SAMPLE_BYTES / 1024,
        tried.join(", ")
    )
}

/// Start sampling this config process, when the plan profiles: its
/// recording's directory made in the place the run chose.
pub(crate) fn start(plan: &RunPlan, opts: &RunOptions, index: usize) {
    let Some(hz) = rate(plan) else { return };
    let Some(config) = plan.configs.get(index) else { return };
    let root = std::process::id();
    let place =
        opts.profile_dir.clone().or_else(|| candidates(opts).into_iter().next()).unwrap_or_else(std::env::temp_dir);
    let dir = place.join(format!("{DIR_PREFIX}{root}"));
    let mut active = Active {
        hz,
        root,
        dir: dir.clone(),
        _lock: None,
        recording: None,
        broken: None,
        tree: perf::ProcessTree::new(root),
        profiler: 0,
        scope: None,
        skip: None,
        pending: None,
        guard_armed: false,
        place_noted: false,
    };
    // A directory of this pid is a dead process's (pids are used again).
    if dir.exists() && !dirs::is_locked(&dir) {
        dirs::remove_owned(&dir);
    }
    let about = format!(
        "a perf recording of config {} of the run in {}\nrun={}\nconfig={}\n",
        config.instance_name(),
        opts.output_dir.display(),
        opts.output_dir.display(),
        config.instance_name()
    );
    match dirs::make_owned(&dir, &about) {
        Ok(lock) => {
            active._lock = Some(lock);
            let room = FsSpace::of(&dir).map(|s| s.avail_bytes.saturating_sub(reserve(&s))).unwrap_or(0);
            start_recording(&mut active, room);
        }
        Err(e) => active.broken = Some(format!("cannot make the recording's directory: {e:#}")),
    }
    *slot() = Some(active);
    std::thread::Builder::new().name("perf-guard".into()).spawn(guard).ok();
}

/// Start perf on the tree as it is now: its root, its descendants, and the
/// processes perf's records showed it forked that live on elsewhere (a
/// server daemonised by its launcher is the child of init, not of the root).
fn start_recording(a: &mut Active, room: u64) {
    let mut started = Err(anyhow::anyhow!("no attempt"));
    // A process that ends between the listing and perf's start fails the
    // start (per thread, perf attaches to each): listed again and retried.
    for _ in 0..3 {
        a.tree.extend(descendants(a.root));
        let pids = a.tree.alive(a.root);
        started = perf::Recording::start(&pids, a.hz, &a.dir, room);
        if started.is_ok() {
            break;
        }
    }
    match started {
        Ok(r) => {
            // Whose files these are, for a run that finds them left behind.
            let _ = std::fs::write(a.dir.join("perf.pid"), r.profiler_pid().to_string());
            a.profiler = r.profiler_pid();
            a.scope = Some(r.scope);
            a.recording = Some(r);
            a.broken = None;
        }
        Err(e) => a.broken = Some(format!("the profiler did not start: {e:#}")),
    }
}

fn descendants(pid: u32) -> Vec<u32> {
    crate::measure::os::process::descendants(Path::new("/proc"), pid as i32)
        .unwrap_or_default()
        .into_iter()
        .map(|p| p as u32)
        .collect()
}

/// Before a step: whether its recording fits (its planned length, checked
/// against the room on the recording's filesystem), perf ready to sample
/// it (per thread, started again on the tree as it is now), the guard armed.
pub(crate) fn before_step(step: &StepPlan) {
    let mut held = slot();
    let Some(a) = held.as_mut() else { return };
    a.skip = None;
    a.guard_armed = false;
    let Some(hz) = step.settings.profile_hz else { return };
    let space = match FsSpace::of(&a.dir) {
        Ok(s) => s,
        Err(e) => {
            a.skip = Some(format!("not profiled: the recording's directory {} cannot be read: {e:#}", a.dir.display()));
            return;
        }
    };
    let room = space.avail_bytes.saturating_sub(reserve(&space));
    if let Some((need, secs)) = step_bytes(step, hz).filter(|(need, _)| *need > room) {
        a.skip = Some(format!(
            "not profiled: perf's recording of the step needs about {} ({secs} s at {hz} Hz on {} CPUs), and {} has {} free beyond the {} kept free there",
            mb(need),
            perf::online_cpus(),
            a.dir.parent().unwrap_or(&a.dir).display(),
            mb(room),
            mb(reserve(&space))
        ));
        if let Some(r) = a.recording.as_mut() {
            if let Err(e) = r.set_enabled(false) {
                a.broken = Some(format!("{e:#}"));
            }
        }
        return;
    }
    match a.recording.as_mut() {
        None => start_recording(a, room),
        Some(r) => {
            if let Err(e) = r.set_enabled(true) {
                a.broken = Some(format!("{e:#}"));
            }
        }
    }
    if let Some(why) = &a.broken {
        a.skip = Some(format!("not profiled: {why}"));
        return;
    }
    let now = descendants(a.root);
    a.tree.extend(now);
    a.guard_armed = true;
}

/// While a step runs: the recording's filesystem must keep its reserve
/// free (other files grow on it too, and a step of no planned length was
/// not checked before it). Below it, sampling stops and the step says so.
/// A statvfs every half second, on a thread of its own.
fn guard() {
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let mut held = slot();
        let Some(a) = held.as_mut() else { return };
        if !a.guard_armed {
            continue;
        }
        let Ok(space) = FsSpace::of(&a.dir) else { continue };
        if space.avail_bytes >= reserve(&space) {
            continue;
        }
        a.guard_armed = false;
        if let Some(r) = a.recording.as_mut() {
            let _ = r.set_enabled(false);
        }
        a.skip = Some(format!(
            "not profiled: while the step ran, the filesystem of perf's recording ({}) fell to {} free, below the {} kept free there: sampling was stopped",
            a.dir.parent().unwrap_or(&a.dir).display(),
            mb(space.avail_bytes),
            mb(reserve(&space))
        ));
    }
}

/// Note a step about to be recorded as the `position`-th of its config:
/// its window, or why it has no profile.
pub(crate) fn note_step(position: usize, result: &mut StepResult) {
    let window = result.window;
    let mut held = slot();
    let (Some(a), Some(hz)) = (held.as_mut(), result.settings.profile_hz) else { return };
    a.guard_armed = false;
    if let Some(why) = a.skip.take() {
        result.warnings.push(why);
        return;
    }
    let Some(window) = window else {
        result.notes.push("not profiled: the step runs no clients (one call of the engine)".into());
        return;
    };
    let ops = result.ops + result.writer.as_ref().map(|w| w.ops).unwrap_or(0);
    a.pending = Some(Pending { position, window, ops, hz });
}

/// The step just recorded (config `ci`'s last) has ended: cut the samples
/// since the last cut from perf's recording, fold the step's window from
/// them into its profile (written beside result.json, referenced from the
/// step), and remove the raw file. Returns the warnings it added to the
/// step (a profile is never silently missing), and whether the step
/// changed (its results are to be written again).
pub(crate) fn cut(run: &mut RunResult, ci: usize, opts: &RunOptions) -> (bool, Vec<String>) {
    let mut held = slot();
    let Some(a) = held.as_mut() else { return (false, Vec::new()) };
    a.guard_armed = false;
    let pending = a.pending.take();
    // The samples since the last cut, in a finished file.
    let data: Result<PathBuf, String> = match a.recording.take() {
        Some(mut r) if r.switches() => match r.switch() {
            Ok(d) => {
                a.recording = Some(r);
                Ok(d)
            }
            Err(e) => {
                let _ = r.stop();
                Err(format!("{e:#}"))
            }
        },
        Some(r) => r.stop().map_err(|e| format!("{e:#}")),
        None => Err(a.broken.clone().unwrap_or_else(|| "the profiler was not running".into())),
    };
    if let Err(e) = &data {
        a.broken = Some(e.clone());
    }
    let mut changed = false;
    let mut warnings = Vec::new();
    if let (None, Ok(d)) = (&pending, &data) {
        // Not profiled: only the processes it started or ended, for the steps after it.
        let _ = perf::read_task_events(d, &mut a.tree);
    }
    if let Some(p) = pending {
        let (profiler, scope) = (a.profiler, a.scope);
        let folded = data.map_err(anyhow::Error::msg).and_then(|d| {
            let mut folder = Folder::new(a.root, vec![p.window], crate::engine::profile_symbols());
            perf::read_samples(&d, &mut a.tree, profiler, |s| folder.add(s))?;
            Ok(folder.stacks.into_iter().next().map(Folded::from_map).unwrap_or_default())
        });
        let config = &mut run.configs[ci];
        let instance = crate::plan::instance_name(&config.name, config.repeat);
        if let Some(step) = config.steps.get_mut(p.position) {
            changed = true;
            let file = Path::new("profiles").join(&instance).join(format!(
                "{:02}-{}.folded.gz",
                p.position,
                file_safe(&step.name)
            ));
            match folded.and_then(|f| f.write_gz(&opts.output_dir.join(&file)).map(|()| f)) {
                Ok(folded) => {
                    let profile = StepProfile {
                        file: file.to_string_lossy().into_owned(),
                        hz: p.hz,
                        samples: folded.samples(),
                        ops: p.ops,
                        unwinding: perf::CALL_GRAPH.into(),
                        scope,
                        by_role: folded.by_role(),
                    };
                    if let Some(w) = profile.too_few_samples() {
                        warnings.push(w);
                    }
                    step.profile = Some(profile);
                }
                Err(e) => warnings.push(format!("not profiled: {e:#}")),
            }
            step.warnings.extend(warnings.iter().cloned());
        }
        if !a.place_noted {
            a.place_noted = true;
            config.notes.push(format!(
                "profiles: perf's raw recording was kept in {} (outside the results) and cut into each step's profile as the step ended",
                a.dir.display()
            ));
        }
    }
    // The raw files go as soon as they are read.
    for f in perf::switched_files(&a.dir) {
        let _ = std::fs::remove_file(f);
    }
    if a.recording.is_none() {
        let _ = std::fs::remove_file(a.dir.join(perf::DATA_FILE));
    }
    (changed, warnings)
}

/// The config ended: stop sampling, and remove the recording's directory.
pub(crate) fn finish() {
    let Some(mut a) = slot().take() else { return };
    if let Some(r) = a.recording.take() {
        let _ = r.stop();
    }
    dirs::remove_owned(&a.dir);
}

/// The recording directories in `place`: named so, with rumbench's marker.
fn recordings_in(place: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(place) else { return Vec::new() };
    rd.flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(DIR_PREFIX) && e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|d| d.join(dirs::MARKER).is_file())
        .collect()
}

/// Whether the perf that wrote into `dir` still runs (it ends on its own
/// once the process it was started by died, within a second).
fn perf_alive(dir: &Path) -> bool {
    let Some(pid) = std::fs::read_to_string(dir.join("perf.pid")).ok().and_then(|t| t.trim().parse::<u32>().ok())
    else {
        return false;
    };
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let needle = dir.as_os_str().as_encoded_bytes();
    cmdline.windows(needle.len().max(1)).any(|w| w == needle)
}

/// The recordings in `place` that no live process uses: the config process
/// that made one holds its lock while it lives.
fn leftovers_in(place: &Path) -> Vec<PathBuf> {
    recordings_in(place).into_iter().filter(|d| !dirs::is_locked(d) && !perf_alive(d)).collect()
}

fn allocated(dir: &Path) -> u64 {
    crate::measure::os::space::allocated_bytes(dir).unwrap_or(0)
}

/// Recordings that killed runs left behind, in the places this run may
/// use, removed; what was removed, to say.
pub(crate) fn remove_leftovers(opts: &RunOptions) -> Vec<String> {
    let mut places = candidates(opts);
    if let Some(p) = opts.profile_dir.clone().filter(|p| !places.contains(p)) {
        places.push(p);
    }
    let mut removed = Vec::new();
    for place in places {
        for dir in leftovers_in(&place) {
            let bytes = allocated(&dir);
            if dirs::remove_owned(&dir) {
                removed.push(format!(
                    "removed perf's recording that a killed run left behind: {} ({})",
                    dir.display(),
                    mb(bytes)
                ));
            }
        }
    }
    removed
}

/// This run's recordings (for saying what filled a filesystem).
pub(crate) fn recordings_of(opts: &RunOptions) -> Vec<PathBuf> {
    let Some(place) = &opts.profile_dir else { return Vec::new() };
    let run = opts.output_dir.display().to_string();
    recordings_in(place).into_iter().filter(|d| dirs::marker_field(d, "run").is_some_and(|r| r == run)).collect()
}

/// The config process crashed (or was killed): the step it was running
/// had no cut (the steps before it were cut as they ended and keep their
/// profiles). Its recording's directory is removed once its perf ended;
/// what to tell, if it left one.
pub(crate) fn after_crash(plan: &RunPlan, opts: &RunOptions, config: &EngineConfig) -> Option<String> {
    rate(plan)?;
    let instance = config.instance_name();
    let mut left = None;
    for dir in recordings_of(opts)
        .into_iter()
        .filter(|d| dirs::marker_field(d, "config").as_deref() == Some(instance.as_str()))
    {
        // perf is told to stop when the config process dies, and ends within a second.
        let began = std::time::Instant::now();
        while perf_alive(&dir) && began.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        if dirs::is_locked(&dir) {
            continue;
        }
        let bytes = allocated(&dir);
        if dirs::remove_owned(&dir) {
            left = Some((dir, bytes));
        }
    }
    let (dir, bytes) = left?;
    Some(format!(
        "not profiled: the step the config process was running when it ended (its recording was not cut; the steps before it were cut as they ended and keep their profiles); its raw recording ({}, {}) was removed",
        mb(bytes),
        dir.display()
    ))
}

/// A step name as a file name (names like "readrandom t=4" stay readable).
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=') { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(output_dir: &str, db_dir: Option<&str>) -> RunOptions {
        RunOptions {
            output_dir: output_dir.into(),
            db_dir: db_dir.map(PathBuf::from),
            keep_db: false,
            use_existing_db: false,
            replace_output: false,
            command_line: Vec::new(),
            progress: crate::driver::progress::ProgressMode::Off,
            device: Default::default(),
            schedule: None,
            profile_dir: None,
        }
    }

    #[test]
    fn a_recording_goes_to_a_temporary_place_or_beside_the_data_never_into_the_results() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        // The data root under the run directory (the default): not a place.
        assert_eq!(candidates_from(None, None, &opts("/r/out", None)), p(&["/var/tmp", "/tmp"]));
        assert_eq!(
            candidates_from(None, Some("/scratch".into()), &opts("/r/out", Some("/data/db"))),
            p(&["/scratch", "/var/tmp", "/tmp", "/data/db"])
        );
        // A $TMPDIR inside the results is not one either; the same place is tried once.
        assert_eq!(
            candidates_from(None, Some("/r/out/tmp".into()), &opts("/r/out", Some("/tmp"))),
            p(&["/var/tmp", "/tmp"])
        );
        // $RUMBENCH_PROFILE_DIR: the one place.
        assert_eq!(candidates_from(Some("/big".into()), Some("/scratch".into()), &opts("/r/out", None)), p(&["/big"]));
    }

    #[test]
    fn the_reserve_is_two_percent_of_the_filesystem_within_bounds() {
        let fs = |size: u64| FsSpace { size_bytes: size, used_bytes: 0, avail_bytes: size, percent_full: 0.0 };
        assert_eq!(reserve(&fs(40 << 20)), 4 << 20);
        assert_eq!(reserve(&fs(10 << 30)), (10u64 << 30) / 50);
        assert_eq!(reserve(&fs(1 << 40)), 1 << 30);
    }

    #[test]
    fn leftovers_are_recordings_whose_process_is_gone() {
        let place = tempfile::tempdir().unwrap();
        // A live one (this process holds its lock), a dead one, and a directory of that name that is not rumbench's.
        let live = place.path().join(format!("{DIR_PREFIX}1"));
        let _lock = dirs::make_owned(&live, "run=/r\nconfig=a\n").unwrap();
        let dead = place.path().join(format!("{DIR_PREFIX}2"));
        drop(dirs::make_owned(&dead, "run=/r\nconfig=b\n").unwrap());
        std::fs::write(dead.join("perf.data.2026112723090243"), vec![0u8; 4096]).unwrap();
        let foreign = place.path().join(format!("{DIR_PREFIX}3"));
        std::fs::create_dir(&foreign).unwrap();
        assert_eq!(leftovers_in(place.path()), vec![dead.clone()]);
        let mut o = opts("/r/out", None);
        o.profile_dir = Some(place.path().to_path_buf());
        let removed = remove_leftovers(&o);
        assert!(removed.iter().any(|l| l.contains(&dead.display().to_string())), "{removed:?}");
        assert!(live.exists() && !dead.exists() && foreign.exists());
        assert_eq!(dirs::marker_field(&live, "config").as_deref(), Some("a"));
    }
}
