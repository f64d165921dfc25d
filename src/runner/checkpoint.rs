//! The running step, kept on disk while it runs: a config process that dies
//! mid-step (an engine that crashes, a kill) leaves what the step completed,
//! and the main process records the step from it, failed, with its cause,
//! instead of losing it.
//!
//! While a step runs, a thread of the config process rewrites
//! `.running-step.json` in the output directory every 100 ms: the operations
//! the clients completed (the driver tells them every 100 ms) and how full the
//! engine's fixed-size store is (`Engine::space`). The file is removed once
//! the step is recorded. The main process reads it after a config process
//! ended without recording its step.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::engine::{human_size, Engine};
use crate::plan::RunPlan;
use crate::result::{Status, StepResult};

const FILE: &str = ".running-step.json";
/// Where a fatal signal notes the operations the step completed (exact:
/// the clients' own counts at that moment): "CONFIG STEP OPS".
const CRASH_COUNT: &str = ".crash-count";
const EVERY: Duration = Duration::from_millis(100);

/// A step in progress, as last written.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Running {
    /// The config's index in the plan, and the step's.
    config: usize,
    step: usize,
    /// Steps of the config recorded before this one.
    recorded_before: usize,
    started_at: String,
    /// Operations completed by the driver's last word (every 100 ms; clients count in batches of about a thousand), and the seconds since the clients' release.
    ops: u64,
    elapsed_s: f64,
    /// The engine's fixed-size store: bytes in use, its capacity, and how
    /// fast the use grew over the last interval (bytes/s).
    #[serde(default)]
    space: Option<Space>,
    /// The engine call that has been running longest, when one has for a
    /// second or more (a plugin's calls are marked; see `engine::calls_in_flight`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    in_call: Option<InCall>,
    /// An SLO search's probes finished so far (`note_slo`), kept if the
    /// process dies during a later probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slo: Option<crate::result::slo::SloSearch>,
    /// `ops` is the count a fatal signal noted (not kept in the file).
    #[serde(skip)]
    exact_count: bool,
}

type SloSoFar = Arc<Mutex<Option<crate::result::slo::SloSearch>>>;

thread_local! {
    /// The SLO search so far of the step `keep` runs on this thread, which
    /// its watcher writes with each checkpoint.
    static SLO_SO_FAR: std::cell::RefCell<Option<SloSoFar>> = const { std::cell::RefCell::new(None) };
}

/// Keep `search` (its finished probes) in the running step's checkpoint
/// (called on the thread that runs the step).
pub fn note_slo(search: &crate::result::slo::SloSearch) {
    SLO_SO_FAR.with(|s| {
        if let Some(s) = &*s.borrow() {
            *s.lock().unwrap_or_else(|e| e.into_inner()) = Some(search.clone());
        }
    });
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct InCall {
    call: String,
    seconds: f64,
}

impl InCall {
    fn text(&self) -> String {
        format!("a call to {} that had not returned after {:.0} s", self.call, self.seconds)
    }
}

/// The calls in flight across the watcher's looks: which has been running longest.
#[derive(Default)]
struct CallsSeen {
    /// (the call's value, when it was first seen with that value)
    seen: Vec<(u32, Instant)>,
}

impl CallsSeen {
    fn look(&mut self) -> Option<InCall> {
        let now = Instant::now();
        let calls = crate::engine::calls_in_flight();
        let mut longest: Option<InCall> = None;
        let mut seen = Vec::with_capacity(calls.len());
        for (call, value) in calls {
            let since = self.seen.iter().find(|(v, _)| *v == value).map_or(now, |(_, at)| *at);
            seen.push((value, since));
            let seconds = now.duration_since(since).as_secs_f64();
            if seconds >= 1.0 && longest.as_ref().is_none_or(|l| seconds > l.seconds) {
                longest = Some(InCall { call: call.to_string(), seconds });
            }
        }
        self.seen = seen;
        longest
    }
}

/// What the main process sees of a config process's running step (see
/// `watchdog`): which config and step, how long since its clients were
/// released, and the call it is stuck in, if any.
pub struct Seen {
    pub config: usize,
    pub step: usize,
    pub elapsed_s: f64,
    pub in_call: Option<String>,
}

/// The running step as the config process last wrote it (nothing is removed).
pub fn peek(output_dir: &Path) -> Option<Seen> {
    let running: Running = std::fs::read(output_dir.join(FILE)).ok().and_then(|b| serde_json::from_slice(&b).ok())?;
    Some(Seen {
        config: running.config,
        step: running.step,
        elapsed_s: running.elapsed_s,
        in_call: running.in_call.as_ref().map(InCall::text),
    })
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
struct Space {
    in_use: u64,
    capacity: u64,
    growth_per_s: f64,
}

/// The operations completed so far, as the driver told them.
#[derive(Default)]
struct Live {
    ops: AtomicU64,
    elapsed_ms: AtomicU64,
}

/// Removes the checkpoint when dropped: once the step is recorded.
pub struct Recorded {
    path: PathBuf,
}

impl Drop for Recorded {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The file a fatal signal writes the running step's count to (a raw fd,
/// opened once per process), and the config and step running.
static CRASH_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);
static CRASH_CONFIG: AtomicU64 = AtomicU64::new(0);
static CRASH_STEP: AtomicU64 = AtomicU64::new(u64::MAX);

/// On a fatal signal: "CONFIG STEP OPS" into the crash-count file, with
/// atomic loads and one pwrite (async-signal-safe).
fn note_crash_count(_sig: libc::c_int) {
    let fd = CRASH_FD.load(Ordering::SeqCst);
    let step = CRASH_STEP.load(Ordering::SeqCst);
    let Some(ops) = crate::driver::ops_done_at_a_signal() else { return };
    if fd < 0 || step == u64::MAX {
        return;
    }
    let mut buf = [0u8; 72];
    let mut n = 0;
    for (i, v) in [CRASH_CONFIG.load(Ordering::SeqCst), step, ops].into_iter().enumerate() {
        if i > 0 {
            buf[n] = b' ';
            n += 1;
        }
        n += crate::sys::write_decimal(&mut buf[n..], v);
    }
    buf[n] = b'\n';
    // SAFETY: fd is open (never closed); buf holds n + 1 bytes.
    unsafe { libc::pwrite(fd, buf.as_ptr().cast(), n + 1, 0) };
}

/// Ready the crash count for step `step` of config `config`: the file
/// opened (once) and emptied, the handler installed (once).
fn arm_crash_count(output_dir: &Path, config: usize, step: usize) {
    if CRASH_FD.load(Ordering::SeqCst) < 0 {
        use std::os::fd::IntoRawFd;
        if let Ok(f) =
            std::fs::OpenOptions::new().create(true).truncate(true).write(true).open(output_dir.join(CRASH_COUNT))
        {
            CRASH_FD.store(f.into_raw_fd(), Ordering::SeqCst);
            crate::sys::note_fatal_signals(note_crash_count);
        }
    }
    let fd = CRASH_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: our own open fd; emptied so that an earlier step's count is never read as this one's.
        unsafe { libc::ftruncate(fd, 0) };
    }
    CRASH_CONFIG.store(config as u64, Ordering::SeqCst);
    CRASH_STEP.store(step as u64, Ordering::SeqCst);
}

/// Removes a config process's crash-count file when dropped (the main
/// process, once that process ended and its step was taken).
pub struct CrashCount(PathBuf);

impl CrashCount {
    pub fn discarded_after(output_dir: &Path) -> CrashCount {
        CrashCount(output_dir.join(CRASH_COUNT))
    }
}

impl Drop for CrashCount {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The count a fatal signal noted for step `step` of config `config`, taken.
fn take_crash_count(output_dir: &Path, config: usize, step: usize) -> Option<u64> {
    let path = output_dir.join(CRASH_COUNT);
    let text = std::fs::read_to_string(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    let mut w = text.split_whitespace().map(|x| x.parse::<u64>().ok());
    match (w.next()??, w.next()??, w.next()??) {
        (c, s, ops) if c == config as u64 && s == step as u64 => Some(ops),
        _ => None,
    }
}

/// Run `body`, step `step` of config `config` (after `recorded_before`
/// recorded steps), with its checkpoint kept on disk while it runs. Returns
/// what `body` returned and the guard that removes the checkpoint once the
/// step is recorded.
pub fn keep<R>(
    output_dir: &Path,
    config: usize,
    step: usize,
    recorded_before: usize,
    engine: Option<&dyn Engine>,
    body: impl FnOnce() -> R,
) -> (R, Recorded) {
    let path = output_dir.join(FILE);
    arm_crash_count(output_dir, config, step);
    let space = |before: Option<(Space, Instant)>| {
        let (in_use, capacity) = engine?.space()?;
        let growth_per_s =
            before.map_or(0.0, |(b, at)| (in_use as f64 - b.in_use as f64) / at.elapsed().as_secs_f64().max(1e-3));
        Some(Space { in_use, capacity, growth_per_s })
    };
    let base = Running {
        config,
        step,
        recorded_before,
        started_at: crate::result::now_text(),
        ops: 0,
        elapsed_s: 0.0,
        space: space(None),
        in_call: None,
        slo: None,
        exact_count: false,
    };
    let slo: SloSoFar = Arc::default();
    SLO_SO_FAR.with(|s| *s.borrow_mut() = Some(slo.clone()));
    write(&path, &base);
    let live = Arc::new(Live::default());
    let told = live.clone();
    crate::driver::progress::observe(Some(Box::new(move |ops, elapsed_s| {
        told.ops.store(ops, Ordering::Relaxed);
        told.elapsed_ms.store((elapsed_s * 1000.0) as u64, Ordering::Relaxed);
    })));
    let done = (Mutex::new(false), Condvar::new());
    let r = std::thread::scope(|scope| {
        let (path, done, base, live, slo) = (&path, &done, &base, &live, &slo);
        let watcher = std::thread::Builder::new()
            .name(format!("{}checkpoint", crate::measure::profile::fold::CLIENT_THREAD_PREFIX))
            .spawn_scoped(scope, move || {
                let mut last: Option<(Space, Instant)> = base.space.map(|s| (s, Instant::now()));
                let mut calls = CallsSeen::default();
                let mut stop = done.0.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    stop = done.1.wait_timeout(stop, EVERY).unwrap_or_else(|e| e.into_inner()).0;
                    if *stop {
                        break;
                    }
                    let now = space(last);
                    last = now.map(|s| (s, Instant::now())).or(last);
                    let ops = live.ops.load(Ordering::Relaxed);
                    let elapsed_s = live.elapsed_ms.load(Ordering::Relaxed) as f64 / 1000.0;
                    let in_call = calls.look();
                    let slo = slo.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    write(path, &Running { ops, elapsed_s, space: now, in_call, slo, ..base.clone() });
                }
            });
        let r = body();
        *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        done.1.notify_all();
        if let Ok(w) = watcher {
            let _ = w.join();
        }
        r
    });
    crate::driver::progress::observe(None);
    SLO_SO_FAR.with(|s| *s.borrow_mut() = None);
    (r, Recorded { path })
}

/// Written whole or not at all (a full results filesystem only loses the checkpoint).
fn write(path: &Path, running: &Running) {
    let tmp = path.with_extension("tmp");
    let Ok(bytes) = serde_json::to_vec(running) else { return };
    if std::fs::write(&tmp, bytes).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// The step config `config`'s process left running, after it ended
/// without recording it (the checkpoint is removed either way).
pub struct Left(Running);

/// The checkpoint of config `config`, whose recorded steps are `recorded`,
/// when it is that config's and its step is not among them.
pub fn take(output_dir: &Path, config: usize, recorded: usize) -> Option<Left> {
    let path = output_dir.join(FILE);
    let running: Option<Running> = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok());
    let _ = std::fs::remove_file(&path);
    let mut left = running.filter(|r| r.config == config && r.recorded_before == recorded)?;
    // A crash noted the clients' exact count: it is the step's (the
    // checkpoint's may be up to 100 ms older).
    if let Some(ops) = take_crash_count(output_dir, config, left.step) {
        left.ops = left.ops.max(ops);
        left.exact_count = true;
    }
    Some(Left(left))
}

impl Left {
    /// "the data file is full (N of M bytes in use ...)", when the engine's
    /// fixed-size store was full at the last checkpoint (at most 100 ms
    /// before the end), or would have been by the end at its last growth
    /// (150 ms of it: the checkpoint's age and a margin).
    pub fn cause(&self) -> Option<String> {
        let s = self.0.space?;
        let headroom = s.capacity.saturating_sub(s.in_use) as f64;
        let full = headroom <= s.capacity as f64 * 0.02 || headroom <= s.growth_per_s * 0.15;
        full.then(|| {
            format!(
                "the data file is full ({} of {} bytes in use at the last checkpoint, {} growing {}/s, at most 0.1 s before the end)",
                s.in_use,
                s.capacity,
                human_size(s.in_use),
                human_size(s.growth_per_s.max(0.0) as u64)
            )
        })
    }

    /// The step, failed (or interrupted) with `error`, keeping the operations it completed.
    pub fn into_step(self, plan: &RunPlan, status: Status, error: &str) -> Option<StepResult> {
        let running = self.0;
        let step = plan.steps.get(running.step)?;
        let mut result = StepResult::new(step);
        result.started_at = running.started_at;
        result.status = status;
        result.error = Some(error.to_string());
        result.ops = running.ops;
        // What the step completed, without a rate: it was cut short.
        result.wall_s = (running.ops > 0).then_some(running.elapsed_s);
        result.notes.push(match running.exact_count {
            true => format!(
                "the config process ended during this step: {} operations completed when it crashed (the clients' own counts, noted by its fatal signal); no rate or latency is reported",
                running.ops
            ),
            false => format!(
                "the config process ended during this step: {} operations in {:.1} s by its last checkpoint (kept every 100 ms while its clients ran); no rate or latency is reported",
                running.ops, running.elapsed_s
            ),
        });
        if let Some(c) = &running.in_call {
            result.notes.push(format!("a client was in {} when it ended", c.text()));
        }
        if let Some(mut search) = running.slo {
            let n = search.probes.len();
            search.no_rate = Some(format!(
                "the config process ended during probe {} of the search: the {n} probe{} before it are kept",
                n + 1,
                if n == 1 { "" } else { "s" }
            ));
            result.notes.push(format!("the SLO search's {n} finished probes are kept in slo.probes"));
            result.slo = Some(search);
        }
        result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "all".into(),
            reason:
                "the config process ended during the step: only its operation count, from the last checkpoint, is known"
                    .into(),
        });
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_left_running_is_recovered_once_and_only_for_its_config() {
        let out = tempfile::tempdir().unwrap();
        let mut plan = crate::plan::RunPlan {
            suite: None,
            configs: Vec::new(),
            steps: Vec::new(),
            settings: Default::default(),
            repeat: 1,
            duet: None,
            adaptive: None,
        };
        plan.steps.push(crate::plan::test_step(crate::plan::steps::StepKind::FillSeq, 1, false));
        plan.steps.push(crate::plan::test_step(crate::plan::steps::StepKind::FillRandom, 1, false));
        // The step's body runs; the process "dies" (the guard is forgotten): its checkpoint stays.
        let ((), guard) = keep(out.path(), 0, 1, 1, None, || std::thread::sleep(EVERY * 2));
        std::mem::forget(guard);
        let kept: Running = serde_json::from_slice(&std::fs::read(out.path().join(FILE)).unwrap()).unwrap();
        assert_eq!((kept.config, kept.step, kept.recorded_before), (0, 1, 1));
        // What the driver told last (other tests' steps run beside this one: written here, not told).
        write(&out.path().join(FILE), &Running { ops: 1234, elapsed_s: 2.5, ..kept });
        let running = std::fs::read(out.path().join(FILE)).unwrap();
        // Another config's, or a step already recorded: nothing.
        assert!(take(out.path(), 1, 1).is_none());
        std::fs::write(out.path().join(FILE), &running).unwrap();
        assert!(take(out.path(), 0, 2).is_none());
        std::fs::write(out.path().join(FILE), &running).unwrap();
        let left = take(out.path(), 0, 1).unwrap();
        assert!(left.cause().is_none(), "no fixed-size store");
        let r = left.into_step(&plan, Status::Failed, "the process died").unwrap();
        assert_eq!((r.name.as_str(), r.status, r.ops, r.wall_s), ("fillrandom", Status::Failed, 1234, Some(2.5)));
        assert!(r.slo.is_none());
        assert!(r.ops_s.is_none());
        assert!(!out.path().join(FILE).exists(), "removed once read");
        // A recorded step's checkpoint goes with its guard.
        let ((), guard) = keep(out.path(), 0, 0, 0, None, || ());
        assert!(out.path().join(FILE).exists());
        drop(guard);
        assert!(!out.path().join(FILE).exists());
    }

    /// An SLO search's finished probes, noted as they end, are in the
    /// checkpoint and in the step recovered from it.
    #[test]
    fn an_slo_search_keeps_its_finished_probes_when_its_process_dies() {
        let out = tempfile::tempdir().unwrap();
        let mut plan = crate::plan::RunPlan {
            suite: None,
            configs: Vec::new(),
            steps: vec![crate::plan::test_step(crate::plan::steps::StepKind::ReadRandom, 1, false)],
            settings: Default::default(),
            repeat: 1,
            duet: None,
            adaptive: None,
        };
        plan.steps[0].settings.seconds = Some(1.0);
        let probe = |rate| crate::result::slo::SloProbe {
            offered_ops_s: rate,
            achieved_ops_s: 1000.0,
            ops: 1000,
            seconds: 1.0,
            percentiles_us: vec![50.0],
            met: true,
        };
        let ((), guard) = keep(out.path(), 0, 0, 0, None, || {
            let mut search = crate::result::slo::SloSearch::default();
            search.probes.push(probe(None));
            note_slo(&search);
            search.probes.push(probe(Some(100.0)));
            note_slo(&search);
            std::thread::sleep(EVERY * 3);
        });
        std::mem::forget(guard);
        let r = take(out.path(), 0, 0).unwrap().into_step(&plan, Status::Failed, "killed").unwrap();
        let slo = r.slo.expect("the probes kept");
        assert_eq!(slo.probes.len(), 2);
        assert_eq!(slo.probes[1].offered_ops_s, Some(100.0));
        assert!(slo.no_rate.unwrap().contains("during probe 3"));
        // The next step starts with none.
        let ((), guard) = keep(out.path(), 0, 0, 0, None, || std::thread::sleep(EVERY * 2));
        std::mem::forget(guard);
        assert!(take(out.path(), 0, 0).unwrap().into_step(&plan, Status::Failed, "killed").unwrap().slo.is_none());
    }

    #[test]
    fn a_full_store_is_named_as_the_cause() {
        let left = |in_use: u64, growth_per_s: f64| {
            let space = Some(Space { in_use, capacity: 64 << 20, growth_per_s });
            Left(Running {
                config: 0,
                step: 0,
                recorded_before: 0,
                started_at: String::new(),
                ops: 0,
                elapsed_s: 0.0,
                space,
                in_call: None,
                slo: None,
                exact_count: false,
            })
        };
        assert!(left(64 << 20, 0.0)
            .cause()
            .unwrap()
            .starts_with("the data file is full (67108864 of 67108864 bytes in use"));
        assert!(left(50 << 20, 100e6).cause().is_some(), "full within 150 ms at its growth");
        assert!(left(40 << 20, 100e6).cause().is_none());
    }
}
