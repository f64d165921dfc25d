//! The one executor of every workload's clients: threads, barrier start,
//! closed-loop and paced roles, progress, stop, and the merge of what each
//! thread recorded.
//!
//! A workload gives the driver two functions: `open` (a session for one
//! thread, made before the start barrier so connecting is not timed) and
//! `body` (the thread's loop, which times its own calls with the clock and
//! loops of [`Thread`] and records into per-thread [`OpRecorder`]s). The
//! driver starts `clients` closed-loop threads and `background` threads
//! (writers that run, paced or not, until the clients are done), releases
//! them together, shows progress, and joins them.
//!
//! Timing: a closed-loop call's response time is the time since the same
//! thread's previous call ended (one clock read per call, as db_bench does:
//! the client's own work between calls is included, nothing is missed). A
//! paced call's response time is measured from its intended start, so a
//! call queued behind a stall counts its wait (no coordinated omission); its
//! service time (actual start to end) is kept beside it.

pub mod pacer;
pub mod progress;
pub mod stop;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use hdrhistogram::Histogram;

use crate::measure::recorder::FinishedRecorder;
use crate::measure::{merge, ProgressCounter, Recorder};
use crate::result::{OpResult, Outcomes};
use pacer::Pacer;
use progress::StepProgress;

/// What a thread does in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Closed loop: the next call starts when the previous one ended.
    Client,
    /// Runs beside the clients until they are done (a paced or unpaced writer).
    Background,
}

/// `--start-at`: the wall-clock moment the next step's clients are to be
/// released (seconds since the epoch), set by the runner around each step.
/// A process runs one step at a time, so one slot serves.
static RELEASE_AT: std::sync::Mutex<Option<f64>> = std::sync::Mutex::new(None);

/// The running step's clients' counters (their first and how many), for a
/// fatal signal's note of the operations done (`ops_done_at_a_signal`).
static RUNNING_COUNTERS: std::sync::atomic::AtomicPtr<ProgressCounter> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
static RUNNING_COUNTERS_LEN: AtomicUsize = AtomicUsize::new(0);

/// The operations the running step's clients have completed, read with
/// atomic loads only (async-signal-safe: a fatal signal's handler may call
/// it): exact, since each client stores its count after every call. None
/// when no step runs.
pub fn ops_done_at_a_signal() -> Option<u64> {
    let first = RUNNING_COUNTERS.load(Ordering::Acquire);
    if first.is_null() {
        return None;
    }
    let len = RUNNING_COUNTERS_LEN.load(Ordering::Acquire);
    // SAFETY: `run` publishes its counters (len first) before any client
    // starts and withdraws them (the pointer first) before they are freed.
    let counters = unsafe { std::slice::from_raw_parts(first, len) };
    Some(counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum())
}

/// Release the next step's clients at `unix_s` (None: as soon as they are ready).
pub fn release_next_at(unix_s: Option<f64>) {
    *RELEASE_AT.lock().unwrap_or_else(|e| e.into_inner()) = unix_s;
}

/// A gate every step's clients pass once their sessions are open, before
/// their release: it blocks until they may go and returns the moment to
/// release them at (a duet's barrier with the other side's clients; None:
/// at once). Set once per process, by the runner.
static RELEASE_GATE: OnceLock<fn() -> Option<f64>> = OnceLock::new();

/// Make every step's clients wait at `gate` before their release.
pub fn set_release_gate(gate: fn() -> Option<f64>) {
    let _ = RELEASE_GATE.set(gate);
}

/// The wall clock, seconds since the epoch.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// Ask `ready` every `every` until it says yes; an error after `timeout`
/// or a stop request, naming what was awaited (`what`: "shard 0 to create
/// table usertable"). For a shard waiting on what another shard makes.
pub fn wait_for(
    timeout: Duration,
    every: Duration,
    mut ready: impl FnMut() -> bool,
    what: impl FnOnce() -> String,
) -> Result<()> {
    let began = Instant::now();
    loop {
        if ready() {
            return Ok(());
        }
        if stop::stop_requested() {
            return Err(anyhow!(
                "{} after {:.0} s of waiting for {}",
                stop::interrupted_text(),
                began.elapsed().as_secs_f64(),
                what()
            ));
        }
        if began.elapsed() > timeout {
            return Err(anyhow!("waited {:.0} s for {}: it did not happen", timeout.as_secs_f64(), what()));
        }
        std::thread::sleep(every);
    }
}

/// Sleep until the wall clock reads `unix_s` (or a stop): coarse sleeps,
/// then short ones for the last milliseconds.
fn sleep_until_unix(unix_s: f64) {
    loop {
        let left = unix_s - unix_now();
        if left <= 0.0 || stop::stop_requested() {
            return;
        }
        let nap = if left > 0.2 {
            0.1
        } else if left > 0.002 {
            left - 0.001
        } else {
            left
        };
        std::thread::sleep(Duration::from_secs_f64(nap));
    }
}

/// Shared by the threads of one step.
pub struct StepClock {
    /// TSC-based where the CPU has an invariant TSC (about half the cost of
    /// Instant::now() here), the OS clock otherwise.
    clock: quanta::Clock,
    /// The step's start: an Instant (for sleeping) and the same moment as a raw clock reading.
    start: OnceLock<(Instant, u64)>,
    barrier: Barrier,
    /// A thread failed: the others stop.
    abort: AtomicBool,
    clients_running: AtomicUsize,
    deadline_ns: Option<u64>,
}

/// One thread's view of the step.
pub struct Thread<'a> {
    step: &'a StepClock,
    pub index: usize,
    pub role: Role,
    /// The client's operation counter the progress display reads (clients only).
    pub progress: Option<&'a ProgressCounter>,
    /// The error that ended this thread's loop: kept here so that the loop
    /// returns what it recorded up to it (a step that fails keeps the
    /// operations its clients completed).
    failure: std::cell::RefCell<Option<anyhow::Error>>,
    /// The intended start of the call a paced loop is making (ns after the
    /// step's start; u64::MAX in a closed loop): what a recording keeps.
    intended: std::cell::Cell<u64>,
}

/// A thread's own copy of the step's clock: in a hot loop it stays in the
/// thread's registers and stack, where the shared one is reloaded through
/// the step after every call the compiler cannot see into.
#[derive(Clone)]
pub struct Timer {
    clock: quanta::Clock,
    start_raw: u64,
}

impl Timer {
    /// Nanoseconds since the step started.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.clock.delta_as_nanos(self.start_raw, self.clock.raw())
    }
}

impl Thread<'_> {
    /// Nanoseconds since the step started.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        let start_raw = self.step.start.get().expect("clock started").1;
        self.step.clock.delta_as_nanos(start_raw, self.step.clock.raw())
    }

    /// The intended start of the call being made, when a paced loop made it.
    #[inline]
    pub fn intended_ns(&self) -> Option<u64> {
        Some(self.intended.get()).filter(|&at| at != u64::MAX)
    }

    /// Say the call about to be made was meant to start at `at_ns` (a
    /// workload's own paced loop).
    #[inline]
    pub fn set_intended(&self, at_ns: u64) {
        self.intended.set(at_ns);
    }

    /// The moment the step started, for sleeping until an intended start
    /// (`pacer::Pacer::wait_until`) in a client's own paced loop.
    pub fn start_instant(&self) -> Instant {
        self.step.start.get().expect("clock started").0
    }

    /// The step's clock for a hot loop (after the start barrier).
    pub fn timer(&self) -> Timer {
        Timer { clock: self.step.clock.clone(), start_raw: self.step.start.get().expect("clock started").1 }
    }

    /// End this thread's loop with `e`: the step fails with it, and keeps
    /// what the thread recorded before it.
    fn fail(&self, e: anyhow::Error) {
        self.step.abort.store(true, Ordering::Relaxed);
        self.failure.borrow_mut().get_or_insert(e);
    }

    /// A call's result in a thread's own loop: Some(value), or None after an
    /// error, which ends the loop (`let Some(x) = t.ok(call()) else { break }`)
    /// and fails the step while what was recorded before it stays.
    #[inline]
    pub fn ok<T>(&self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// The run is stopping (a signal) or another thread failed.
    #[inline]
    pub fn should_stop(&self) -> bool {
        stop::stop_requested() || self.step.abort.load(Ordering::Relaxed)
    }

    /// Some client thread is still running (background threads stop at none).
    #[inline]
    pub fn clients_running(&self) -> bool {
        self.step.clients_running.load(Ordering::Relaxed) > 0
    }

    /// The step's time limit (--seconds), from its start.
    pub fn deadline_ns(&self) -> Option<u64> {
        self.step.deadline_ns
    }

    /// A recorder of this thread's calls; clients' recorders feed the progress display.
    pub fn recorder(&self, name: &'static str) -> OpRecorder<'_> {
        OpRecorder { name, rec: Recorder::new(self.progress), outcomes: Outcomes::default() }
    }

    /// A recorder that does not feed the progress display (secondary operation types).
    pub fn quiet_recorder(&self, name: &'static str) -> OpRecorder<'static> {
        OpRecorder { name, rec: Recorder::new(None), outcomes: Outcomes::default() }
    }

    /// The closed loop: call `op(g)` for g = first, first + stride, ... while
    /// g < `calls` (all calls when None), until the deadline, a stop, or `op`
    /// says it is done. `op` returns (operations done, done). Each call is
    /// recorded in `rec` with the time since the previous call ended; its
    /// outcome is up to `op`. Returns when the last call ended. A call that
    /// fails ends the loop (and fails the step) without being recorded: the
    /// calls before it stay recorded.
    #[inline]
    pub fn closed_loop(
        &self,
        rec: &mut Recorder<'_>,
        calls: Option<u64>,
        first: u64,
        stride: u64,
        mut op: impl FnMut(u64) -> Result<(u64, bool)>,
    ) -> Result<u64> {
        let deadline = self.step.deadline_ns;
        let timer = self.timer();
        let mut last = timer.now_ns();
        let mut g = first;
        loop {
            if calls.is_some_and(|t| g >= t) || self.should_stop() {
                break;
            }
            let Some((n, done)) = self.ok(op(g)) else { break };
            let now = timer.now_ns();
            rec.record_n(now, now - last, n);
            last = now;
            if done || deadline.is_some_and(|d| now >= d) {
                break;
            }
            g += stride;
        }
        Ok(last)
    }

    /// The clients' loop of a step: closed (`closed_loop`) when
    /// `calls_per_s` is None, otherwise open (`open_loop`) at that rate.
    #[inline]
    pub fn client_loop(
        &self,
        rec: &mut Recorder<'_>,
        calls: Option<u64>,
        first: u64,
        stride: u64,
        calls_per_s: Option<f64>,
        op: impl FnMut(u64) -> Result<(u64, bool)>,
    ) -> Result<u64> {
        match calls_per_s {
            None => self.closed_loop(rec, calls, first, stride, op),
            Some(rate) => self.open_loop(rec, calls, first, stride, rate, op),
        }
    }

    /// The open loop: as `closed_loop`, but call i is meant to start at
    /// i / `calls_per_s` seconds after the step started, and waits for that
    /// moment when ahead of it. Each call's response time is measured from
    /// its intended start, so a call queued behind a slow one counts its wait
    /// (no coordinated omission). The loop ends at the deadline, a stop, or
    /// the last call.
    pub fn open_loop(
        &self,
        rec: &mut Recorder<'_>,
        calls: Option<u64>,
        first: u64,
        stride: u64,
        calls_per_s: f64,
        mut op: impl FnMut(u64) -> Result<(u64, bool)>,
    ) -> Result<u64> {
        pacer::set_precise_timer_slack();
        let mut pacer = Pacer::new(calls_per_s);
        let deadline = self.step.deadline_ns;
        let start = self.start_instant();
        let timer = self.timer();
        let mut last = timer.now_ns();
        let mut g = first;
        loop {
            if calls.is_some_and(|t| g >= t) || self.should_stop() {
                break;
            }
            let intended = pacer.next_intended();
            if deadline.is_some_and(|d| intended >= d) || !Pacer::wait_until(start, intended, || !self.should_stop()) {
                break;
            }
            let began = timer.now_ns();
            self.intended.set(intended);
            let Some((n, done)) = self.ok(op(g)) else { break };
            let now = timer.now_ns();
            rec.record_n(now, now - intended.min(began), n);
            last = now;
            if done || deadline.is_some_and(|d| now >= d) {
                break;
            }
            g += stride;
        }
        Ok(last)
    }

    /// A background role's loop: calls paced smoothly at `calls_per_s` (as
    /// fast as possible when None) while a client runs. `call` makes one
    /// call; `record(end_ns, response_ns, result)` records it, its response
    /// time measured from the intended start. Service times go to `service`.
    /// Returns when the last call ended.
    pub fn paced_loop<R>(
        &self,
        calls_per_s: Option<f64>,
        service: &mut Histogram<u64>,
        mut call: impl FnMut() -> Result<R>,
        mut record: impl FnMut(u64, u64, R),
    ) -> Result<u64> {
        let mut pacer = calls_per_s.map(Pacer::new);
        if pacer.is_some() {
            pacer::set_precise_timer_slack();
        }
        let start = self.start_instant();
        let mut last_end = self.now_ns();
        while self.clients_running() && !self.should_stop() {
            let intended = match &mut pacer {
                Some(p) => {
                    let t = p.next_intended();
                    let keep_going = || self.clients_running() && !self.should_stop();
                    if !Pacer::wait_until(start, t, keep_going) || !keep_going() {
                        break;
                    }
                    t
                }
                None => last_end,
            };
            let began = self.now_ns();
            self.intended.set(if pacer.is_some() { intended } else { u64::MAX });
            let Some(r) = self.ok(call()) else { break };
            let end = self.now_ns();
            record(end, end - intended.min(began), r);
            service.saturating_record((end - began).max(1));
            last_end = end;
        }
        Ok(last_end)
    }
}

/// The recording of one operation type in one thread: response times (and
/// their 1-second series) and the outcomes of the calls.
pub struct OpRecorder<'a> {
    pub name: &'static str,
    pub rec: Recorder<'a>,
    pub outcomes: Outcomes,
}

impl OpRecorder<'_> {
    /// Close the recording. Calls count only what did not go well (not
    /// found, conflicts, errors); every other operation recorded was ok.
    pub fn finish(self) -> FinishedOp {
        let mut outcomes = self.outcomes;
        outcomes.ok = self.rec.ops().saturating_sub(outcomes.not_found + outcomes.error);
        FinishedOp { name: self.name, rec: self.rec.finish(), outcomes }
    }
}

/// An `OpRecorder` after its thread ended.
pub struct FinishedOp {
    pub name: &'static str,
    pub rec: FinishedRecorder,
    pub outcomes: Outcomes,
}

/// How one thread ended: what it recorded (None when its body returned an
/// error or panicked) and the error that ended it, if one did.
struct ThreadEnd<O> {
    output: Option<O>,
    error: Option<anyhow::Error>,
}

/// What the driver brings back from a step's threads.
pub struct Joined<O> {
    /// Outputs of the clients (in thread order): also of those whose loop
    /// failed, with what they completed before it (their errors are in `errors`).
    pub clients: Vec<O>,
    /// Outputs of the background threads, likewise.
    pub background: Vec<O>,
    /// Errors and panics of any thread (a background thread's say so).
    pub errors: Vec<anyhow::Error>,
    /// When the clients were released, and when they were meant to be.
    pub released: Option<crate::result::StepStart>,
    /// From the release of the clients to the end of the last one, on the
    /// monotonic clock: what the step's profile is cut by.
    pub window: Option<crate::measure::profile::Window>,
}

impl<O> Joined<O> {
    /// Records in the step's result when its clients ran.
    pub fn stamp(&self, result: &mut crate::result::StepResult) {
        result.start = self.released;
        result.window = self.window;
    }
}

/// How a step's progress is shown: a total of operations, or a duration.
pub struct Progress<'a> {
    pub label: &'a str,
    pub total_ops: Option<u64>,
    pub seconds: Option<f64>,
}

/// Run a step's threads: `clients` closed-loop clients and `background`
/// threads. Each thread opens its session with `open(role, index)`, waits
/// for the others, then runs `body`. `tick` runs on the calling thread about
/// every 100 ms until the clients are done (e.g. to cancel server calls after
/// a stop). `seconds` is the clients' time limit.
pub fn run<S, O: Send>(
    clients: usize,
    background: usize,
    seconds: Option<f64>,
    progress: Progress<'_>,
    open: impl Fn(Role, usize) -> Result<S> + Sync,
    body: impl Fn(&Thread<'_>, S) -> Result<O> + Sync,
    mut tick: impl FnMut(),
) -> Joined<O> {
    let step = StepClock {
        clock: quanta::Clock::new(),
        start: OnceLock::new(),
        barrier: Barrier::new(clients + background),
        abort: AtomicBool::new(false),
        clients_running: AtomicUsize::new(clients),
        deadline_ns: seconds.map(|s| (s * 1e9) as u64),
    };
    let release_at = *RELEASE_AT.lock().unwrap_or_else(|e| e.into_inner());
    let released = OnceLock::new();
    let released_mono = OnceLock::new();
    let ended_mono = OnceLock::new();
    let counters: Vec<ProgressCounter> = (0..clients).map(|_| ProgressCounter::default()).collect();
    RUNNING_COUNTERS_LEN.store(counters.len(), Ordering::Release);
    RUNNING_COUNTERS.store(counters.as_ptr().cast_mut(), Ordering::Release);
    // Withdrawn however `run` ends, before `counters` is dropped (declared after it).
    struct Withdraw;
    impl Drop for Withdraw {
        fn drop(&mut self) {
            RUNNING_COUNTERS.store(std::ptr::null_mut(), Ordering::Release);
        }
    }
    let _withdraw = Withdraw;
    let display = StepProgress::start(progress.label, progress.total_ops, progress.seconds);
    let (client_results, background_results) = std::thread::scope(|scope| {
        let (step, open, body, counters, released, released_mono, ended_mono) =
            (&step, &open, &body, &counters, &released, &released_mono, &ended_mono);
        let spawn = |role: Role, index: usize| {
            // Named, so that a profile tells rumbench's clients from the engine's threads.
            let name = match role {
                Role::Client => format!("{}client-{index}", crate::measure::profile::fold::CLIENT_THREAD_PREFIX),
                Role::Background => format!("{}bg-{index}", crate::measure::profile::fold::CLIENT_THREAD_PREFIX),
            };
            let builder = std::thread::Builder::new().name(name);
            builder
                .spawn_scoped(scope, move || -> ThreadEnd<O> {
                    let counter = (role == Role::Client).then(|| &counters[index]);
                    let session = open(role, index);
                    // Every session open; with --start-at, one thread sleeps to
                    // the moment while the others block (no spinning for seconds).
                    if step.barrier.wait().is_leader() {
                        if let Some(at) = release_at.or_else(|| RELEASE_GATE.get().and_then(|gate| gate())) {
                            sleep_until_unix(at);
                        }
                    }
                    if step.barrier.wait().is_leader() {
                        let _ = step.start.set((Instant::now(), step.clock.raw()));
                        let _ = released.set(unix_now());
                        let _ = released_mono.set(crate::measure::profile::perf::monotonic_ns());
                    }
                    // Everyone waits until the leader has set the clock.
                    while step.start.get().is_none() {
                        std::hint::spin_loop();
                    }
                    let thread = Thread {
                        step,
                        index,
                        role,
                        progress: counter,
                        failure: Default::default(),
                        intended: std::cell::Cell::new(u64::MAX),
                    };
                    let cpu_start = crate::measure::thread_cpu::this_thread_ns();
                    let switches_start = crate::measure::thread_cpu::this_thread_switches();
                    let outcome = session.and_then(|s| body(&thread, s));
                    if let (Some(a), Some(b)) = (cpu_start, crate::measure::thread_cpu::this_thread_ns()) {
                        crate::measure::thread_cpu::add_workload_thread(b.saturating_sub(a));
                    }
                    if let (Some(a), Some(b)) = (switches_start, crate::measure::thread_cpu::this_thread_switches()) {
                        crate::measure::thread_cpu::add_workload_thread_switches(b.saturating_sub(a));
                    }
                    if role == Role::Client && step.clients_running.fetch_sub(1, Ordering::Relaxed) == 1 {
                        let _ = ended_mono.set(crate::measure::profile::perf::monotonic_ns());
                    }
                    if outcome.is_err() {
                        step.abort.store(true, Ordering::Relaxed);
                    }
                    // What the thread recorded before its loop failed, and why it failed.
                    let failure = thread.failure.into_inner();
                    match outcome {
                        Ok(o) => ThreadEnd { output: Some(o), error: failure },
                        Err(e) => ThreadEnd {
                            output: None,
                            error: Some(match failure {
                                Some(first) => first.context(format!("then: {e:#}")),
                                None => e,
                            }),
                        },
                    }
                })
                .expect("cannot start a client thread")
        };
        let clients: Vec<_> = (0..clients).map(|t| spawn(Role::Client, t)).collect();
        let background: Vec<_> = (0..background).map(|t| spawn(Role::Background, t)).collect();
        while clients.iter().any(|h| !h.is_finished()) {
            let done: u64 = counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum();
            let elapsed = step.start.get().map(|s| s.0.elapsed());
            display.update(done, elapsed);
            progress::tell_observer(done, elapsed.map_or(0.0, |e| e.as_secs_f64()));
            std::thread::sleep(Duration::from_millis(100));
            tick();
        }
        let join = |h: std::thread::ScopedJoinHandle<'_, ThreadEnd<O>>| {
            h.join().unwrap_or_else(|p| ThreadEnd { output: None, error: Some(join_error(p)) })
        };
        let c: Vec<ThreadEnd<O>> = clients.into_iter().map(join).collect();
        let b: Vec<ThreadEnd<O>> = background.into_iter().map(join).collect();
        (c, b)
    });
    display.finish();
    let mut joined = Joined {
        clients: Vec::new(),
        background: Vec::new(),
        errors: Vec::new(),
        released: released.get().map(|&unix_s| crate::result::StepStart { unix_s, scheduled_unix_s: release_at }),
        window: match (released_mono.get(), ended_mono.get()) {
            (Some(&start_ns), Some(&end_ns)) => Some(crate::measure::profile::Window { start_ns, end_ns }),
            _ => None,
        },
    };
    for r in client_results {
        joined.clients.extend(r.output);
        joined.errors.extend(r.error);
    }
    for r in background_results {
        joined.background.extend(r.output);
        joined.errors.extend(r.error.map(|e| e.context("background writer")));
    }
    joined
}

/// A panicking thread's payload as an error.
pub fn join_error(e: Box<dyn std::any::Any + Send>) -> anyhow::Error {
    let msg = e
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    anyhow!("client thread panicked: {msg}")
}

/// The step's wall time: when the last client's last call ended (ns, at least 1).
/// A step's status from its clients' errors. After a stop request, errors
/// come from the stop itself (a server told to shut down with the rest of
/// the unit, a statement cancelled): the step is interrupted, not failed,
/// and the errors are kept as notes.
pub fn settle_status(result: &mut crate::result::StepResult, errors: &[anyhow::Error]) {
    use crate::result::Status;
    let text = |e: &anyhow::Error| format!("{e:#}");
    if stop::stop_requested() {
        result.status = Status::Interrupted;
        result.error = Some(stop::interrupted_text());
        result.notes.extend(errors.iter().map(|e| format!("after the stop: {}", text(e))));
    } else if !errors.is_empty() {
        result.status = Status::Failed;
        result.error = Some(errors.iter().map(text).collect::<Vec<_>>().join("; "));
    } else {
        result.status = Status::Completed;
    }
}

pub fn wall_ns(ends: impl IntoIterator<Item = u64>) -> u64 {
    ends.into_iter().max().unwrap_or(0).max(1)
}

/// Full or partial 1-second intervals in `wall_ns`.
pub fn intervals(wall_ns: u64) -> u32 {
    wall_ns.div_ceil(1_000_000_000) as u32
}

/// Merge the threads' recordings by operation type, in the order each type
/// first appears.
pub fn merge_ops(threads: impl IntoIterator<Item = Vec<FinishedOp>>, intervals: u32) -> Vec<OpResult> {
    let mut by_op: Vec<(&'static str, Vec<FinishedRecorder>, Outcomes)> = Vec::new();
    for ops in threads {
        for op in ops {
            match by_op.iter_mut().find(|(n, _, _)| *n == op.name) {
                Some((_, recs, outcomes)) => {
                    recs.push(op.rec);
                    outcomes.add(&op.outcomes);
                }
                None => by_op.push((op.name, vec![op.rec], op.outcomes)),
            }
        }
    }
    by_op
        .into_iter()
        .map(|(name, recs, outcomes)| {
            let m = merge(recs, intervals);
            OpResult::measured(name, &m, Some(outcomes))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open loop keeps its schedule: a call that stalls makes the calls
    /// queued behind it count their wait from their intended starts.
    #[test]
    fn open_loop_paces_and_counts_the_queue_behind_a_stall() {
        let joined = run(
            1,
            0,
            None,
            Progress { label: "test", total_ops: Some(40), seconds: None },
            |_, _| Ok(()),
            |t, ()| {
                let mut ops = t.recorder("get");
                let end = t.client_loop(&mut ops.rec, Some(40), 0, 1, Some(200.0), |g| {
                    // Call 10 stalls for 50 ms: 10 calls' worth at 5 ms apart.
                    if g == 10 {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Ok((1, false))
                })?;
                Ok((vec![ops.finish()], end))
            },
            || {},
        );
        assert!(joined.errors.is_empty());
        let (ops, end) = joined.clients.into_iter().next().unwrap();
        // 40 calls at 200/s: the last is due at 195 ms, and the stall is caught up.
        assert!((190_000_000..400_000_000).contains(&end), "ended at {end} ns");
        let merged = merge_ops([ops], 1);
        let l = &merged[0].latency;
        assert_eq!(merged[0].ops, 40);
        assert!(l.max_us >= 50_000.0, "the stalled call took 50 ms: {l:?}");
        // The 9 calls due during the stall started 45, 40, ... 5 ms late.
        assert!(l.p90_us >= 20_000.0, "queued calls count their wait: {l:?}");
        assert!(l.p50_us < 5_000.0, "the rest ran on time: {l:?}");
    }

    #[test]
    fn clients_and_a_background_role_run_and_merge() {
        // Two clients of 1000 calls each; one background thread that runs
        // until they are done.
        let joined = run(
            2,
            1,
            None,
            Progress { label: "test", total_ops: Some(2000), seconds: None },
            |_, _| Ok(()),
            |t, ()| {
                let mut ops = t.recorder(if t.role == Role::Client { "get" } else { "put" });
                let end = match t.role {
                    Role::Client => t.closed_loop(&mut ops.rec, Some(2000), t.index as u64, 2, |g| {
                        if g % 10 == 0 {
                            ops.outcomes.not_found += 1;
                        }
                        Ok((1, false))
                    }),
                    Role::Background => {
                        let mut service = crate::measure::new_histogram();
                        t.paced_loop(
                            Some(1000.0),
                            &mut service,
                            || Ok(()),
                            |end, response, ()| ops.rec.record(end, response),
                        )
                    }
                }?;
                Ok((vec![ops.finish()], end))
            },
            || {},
        );
        assert!(joined.errors.is_empty());
        assert_eq!(joined.clients.len(), 2);
        assert_eq!(joined.background.len(), 1);
        let merged = merge_ops(joined.clients.into_iter().map(|(ops, _)| ops), 1);
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].ops, 2000);
        let outcomes = merged[0].outcomes.unwrap();
        assert_eq!((outcomes.ok, outcomes.not_found), (1800, 200));
    }

    #[test]
    fn a_slow_writer_ends_with_the_clients() {
        // A writer due every 20 s beside a client of 0.3 s: the step ends with the client.
        let began = Instant::now();
        let joined: Joined<u64> = run(
            1,
            1,
            None,
            Progress { label: "test", total_ops: None, seconds: None },
            |_, _| Ok(()),
            |t, ()| match t.role {
                Role::Client => t.closed_loop(&mut Recorder::new(None), Some(3), 0, 1, |_| {
                    std::thread::sleep(Duration::from_millis(100));
                    Ok((1, false))
                }),
                Role::Background => {
                    t.paced_loop(Some(0.05), &mut crate::measure::new_histogram(), || Ok(()), |_, _, ()| {})
                }
            },
            || {},
        );
        assert!(joined.errors.is_empty());
        assert!(began.elapsed() < Duration::from_secs(2), "the step took {:?}", began.elapsed());
    }

    #[test]
    fn a_failing_thread_stops_the_others_and_is_reported() {
        let joined: Joined<u64> = run(
            2,
            0,
            None,
            Progress { label: "test", total_ops: None, seconds: None },
            |_, _| Ok(()),
            |t, ()| {
                let mut rec = Recorder::new(None);
                t.closed_loop(&mut rec, None, 0, 1, |g| {
                    if t.index == 0 && g == 10 {
                        anyhow::bail!("engine error");
                    }
                    Ok((1, false))
                })?;
                Ok(rec.ops())
            },
            || {},
        );
        assert_eq!(joined.errors.len(), 1);
        assert!(joined.errors[0].to_string().contains("engine error"));
        // Both clients' recordings are kept: the failed one's 10 calls before its error too.
        assert_eq!(joined.clients.len(), 2, "the failed client's output is kept");
        assert_eq!(joined.clients[0], 10, "the failed client's calls before its error");
    }
}
