//! `--profile` in a config process: perf samples the process (and what it
//! starts: a server's whole tree) from before its first step to its end;
//! each step's timed window is noted when the step is recorded; when the
//! config ends, the recording is cut into the steps' folded stacks, written
//! gzipped under profiles/ in the run directory and referenced from the
//! steps in result.json. One recording per config, not per step: starting
//! perf takes longer than many steps' windows, and a recording per window
//! would need it started before the clients' release anyway.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Result;

use crate::measure::profile::{self, fold::Folder, perf, Folded, StepProfile, Window};
use crate::plan::{EngineConfig, RunPlan};
use crate::result::{RunResult, StepResult};

use super::RunOptions;

/// A step recorded while profiling: where it is in its config, its window.
struct PendingStep {
    position: usize,
    window: Option<Window>,
    ops: u64,
    hz: u32,
}

/// The config process's profiling: the recording, or why there is none.
struct Active {
    recording: Result<perf::Recording, String>,
    steps: Vec<PendingStep>,
}

static ACTIVE: Mutex<Option<Active>> = Mutex::new(None);

/// The sampling rate of the run's profiles (None: no step profiles).
pub(crate) fn rate(plan: &RunPlan) -> Option<u32> {
    plan.steps.iter().filter_map(|s| s.settings.profile_hz).max()
}

/// Checked before anything runs (bad input or a missing piece: exit 2).
pub fn check(plan: &RunPlan) -> Result<()> {
    match rate(plan) {
        Some(hz) => profile::perf::check_available(hz),
        None => Ok(()),
    }
}

fn perf_data_path(opts: &RunOptions, instance: &str) -> PathBuf {
    opts.output_dir.join("profiles").join(format!(".{instance}.perf.data"))
}

/// Start sampling this config process, when the plan profiles.
pub(crate) fn start(plan: &RunPlan, opts: &RunOptions, index: usize) {
    let Some(hz) = rate(plan) else { return };
    let Some(config) = plan.configs.get(index) else { return };
    let data = perf_data_path(opts, &config.instance_name());
    let recording = std::fs::create_dir_all(data.parent().expect("a parent"))
        .map_err(anyhow::Error::from)
        .and_then(|()| perf::Recording::start(std::process::id(), hz, &data))
        .map_err(|e| format!("{e:#}"));
    *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(Active { recording, steps: Vec::new() });
}

/// Note a step about to be recorded as the `position`-th of its config.
pub(crate) fn note_step(position: usize, result: &mut StepResult) {
    let window = crate::driver::take_last_window();
    let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
    let (Some(active), Some(hz)) = (active.as_mut(), result.settings.profile_hz) else { return };
    if let Err(why) = &active.recording {
        result.warnings.push(format!("not profiled: the profiler did not start: {why}"));
        return;
    }
    let ops = result.ops + result.writer.as_ref().map(|w| w.ops).unwrap_or(0);
    active.steps.push(PendingStep { position, window, ops, hz });
}

/// The config ended: stop sampling, cut the recording into the steps'
/// profiles, and write them beside result.json. Problems become the
/// steps' warnings (a profile is never silently missing).
pub(crate) fn finish(run: &mut RunResult, opts: &RunOptions, config: &EngineConfig) {
    let Some(active) = ACTIVE.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
    let Ok(recording) = active.recording else { return };
    let (scope, profiler) = (recording.scope, recording.profiler_pid());
    let Some(ci) = run.configs.iter().rposition(|c| c.name == config.name && c.repeat == config.repeat) else { return };
    let instance = config.instance_name();
    let steps = &mut run.configs[ci].steps;
    let outcome = (|| -> Result<Vec<Folded>> {
        let data = recording.stop()?;
        let windows: Vec<Window> = active.steps.iter().map(|p| p.window.unwrap_or(Window { start_ns: u64::MAX, end_ns: 0 })).collect();
        let mut folder = Folder::new(std::process::id(), windows);
        let read = perf::read_samples(&data, std::process::id(), profiler, |s| folder.add(s));
        let _ = std::fs::remove_file(&data);
        read?;
        Ok(folder.stacks.into_iter().map(Folded::from_map).collect())
    })();
    let folded = match outcome {
        Ok(f) => f,
        Err(e) => {
            for p in &active.steps {
                if let Some(s) = steps.get_mut(p.position) {
                    s.warnings.push(format!("not profiled: {e:#}"));
                }
            }
            return;
        }
    };
    for (p, folded) in active.steps.iter().zip(folded) {
        let Some(step) = steps.get_mut(p.position) else { continue };
        if p.window.is_none() {
            step.notes.push("not profiled: the step runs no clients (one call of the engine)".into());
            continue;
        }
        let file = Path::new("profiles").join(&instance).join(format!("{:02}-{}.folded.gz", p.position, file_safe(&step.name)));
        if let Err(e) = folded.write_gz(&opts.output_dir.join(&file)) {
            step.warnings.push(format!("not profiled: {e:#}"));
            continue;
        }
        let profile = StepProfile {
            file: file.to_string_lossy().into_owned(),
            hz: p.hz,
            samples: folded.samples(),
            ops: p.ops,
            unwinding: perf::CALL_GRAPH.into(),
            scope: Some(scope.name().into()),
            by_role: folded.by_role(),
        };
        if let Some(w) = profile.too_few_samples() {
            step.warnings.push(w);
        }
        step.profile = Some(profile);
    }
}

/// The config process crashed (or was killed): if before it could fold
/// its recording, the steps' windows died with it and its profiles are
/// lost. Its perf.data (rumbench's own file) is removed; what to tell.
pub(crate) fn after_crash(plan: &RunPlan, opts: &RunOptions, config: &EngineConfig) -> Option<String> {
    rate(plan)?;
    // perf itself ends with the process it samples (`-p`), or is told to
    // by the kernel when that process dies (`-a`: Recording::start). No
    // recording left: the process had cut it into the profiles before it ended.
    std::fs::remove_file(perf_data_path(opts, &config.instance_name())).ok()?;
    Some("not profiled: the config process ended before it could cut its recording into the steps' profiles (their windows were in it)".into())
}

/// A step name as a file name (names like "readrandom t=4" stay readable).
fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=') { c } else { '_' }).collect()
}
