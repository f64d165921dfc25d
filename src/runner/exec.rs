//! Running one step: client threads, their loops, the background writer,
//! and the merge of what they recorded into a `StepResult`.
//!
//! Timing: a closed-loop operation's response time is the time since the
//! same thread's previous operation finished (one clock read per operation,
//! as db_bench does), so the client's own work between calls (key and value
//! generation, a few ns) is included and nothing between calls is missed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use crate::driver::stop::{interrupted_text, request_stop, signal_name, stop_requested, stop_signal, STOP};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use crate::driver::pacer::{self, Pacer};
use crate::driver::progress::StepProgress;
use crate::settings::steps::StepKind;
use crate::settings::StepPlan;
use crate::engine::{BatchOp, Engine, Session};
use crate::measure::live::KeyBitmap;
use crate::measure::{merge, new_histogram, recorder::FinishedRecorder, LatencySummary, ProgressCounter, Recorder};
use crate::result::{OpResult, ReadCounts, Status, StepResult, WriterResult};
use crate::datagen::{rng::stream_seed, KeyBuf, KeyOrder, KeySpace, LoadSequence, Rng, Sampler, ValueGen};

/// Shared by the threads of one step.
struct Shared<'a> {
    plan: &'a StepPlan,
    keyspace: KeySpace,
    step_index: u64,
    /// Step start: an Instant (for sleeping) and the same moment as a raw clock reading.
    start: OnceLock<(Instant, u64)>,
    /// TSC-based clock where the CPU has an invariant TSC (about half the cost
    /// of Instant::now() here), the OS clock otherwise.
    clock: quanta::Clock,
    barrier: Barrier,
    /// A thread failed: the others stop.
    abort: AtomicBool,
    /// Client threads still running (the background writer stops at 0).
    clients_running: AtomicUsize,
    sampler: Option<Sampler>,
}

impl Shared<'_> {
    #[inline]
    fn now_ns(&self) -> u64 {
        let start_raw = self.start.get().expect("clock started").1;
        self.clock.delta_as_nanos(start_raw, self.clock.raw())
    }
    fn start_clock(&self) {
        let _ = self.start.set((Instant::now(), self.clock.raw()));
    }
    fn should_stop(&self) -> bool {
        STOP.load(Ordering::Relaxed) || self.abort.load(Ordering::Relaxed)
    }
    fn deadline_ns(&self) -> Option<u64> {
        self.plan.settings.seconds.map(|s| (s * 1e9) as u64)
    }
    fn threads(&self) -> u64 {
        self.plan.settings.threads as u64
    }
    fn rng(&self, thread: u64, role: u64) -> Rng {
        Rng::new(stream_seed(self.plan.settings.seed, &[self.step_index, thread, role]))
    }
}

/// What one client thread brings back.
#[derive(Default)]
struct ThreadOutput {
    recorders: Vec<(&'static str, FinishedRecorder)>,
    found: u64,
    not_found: u64,
    bytes: u64,
    end_ns: u64,
    /// Write calls (a batch is one).
    commits: u64,
    /// Key indexes written / deleted.
    written: KeyBitmap,
    deleted: KeyBitmap,
}

struct WriterOutput {
    recorder: FinishedRecorder,
    service: hdrhistogram::Histogram<u64>,
    ops: u64,
    active_ns: u64,
    written: KeyBitmap,
}

/// What a client step did, beyond its timings: input to the step's metrics
/// and to the run's set of live keys.
#[derive(Debug, Default)]
pub struct ClientWork {
    pub queries: u64,
    pub writes: u64,
    pub commits: u64,
    pub logical_bytes_written: u64,
    pub writer_threads: u64,
    pub written: KeyBitmap,
    pub deleted: KeyBitmap,
}

const ROLE_CLIENT: u64 = 0;
const ROLE_WRITER: u64 = 1;

/// Calls per thread in count mode: thread t makes calls g = k*T + t while g < total.
fn total_calls(plan: &StepPlan, ops_per_call: u64) -> Option<u64> {
    plan.settings.ops.map(|ops| ops.div_ceil(ops_per_call))
}

/// The closed loop shared by all client steps. `op(g)` performs call number
/// g and returns (operations done, whether to stop early).
fn closed_loop(
    sh: &Shared<'_>,
    thread: u64,
    rec: &mut Recorder<'_>,
    ops_per_call: u64,
    mut op: impl FnMut(u64) -> Result<(u64, bool)>,
) -> Result<u64> {
    let total = total_calls(sh.plan, ops_per_call);
    let deadline = sh.deadline_ns();
    let threads = sh.threads();
    let mut last = sh.now_ns();
    let mut g = thread;
    loop {
        if total.is_some_and(|t| g >= t) || sh.should_stop() {
            break;
        }
        let (n, done) = op(g)?;
        let now = sh.now_ns();
        rec.record_n(now, now - last, n);
        last = now;
        if done || deadline.is_some_and(|d| now >= d) {
            break;
        }
        g += threads;
    }
    Ok(last)
}

fn client_thread(sh: &Shared<'_>, session: &mut dyn Session, thread: u64, progress: &ProgressCounter) -> Result<ThreadOutput> {
    let s = &sh.plan.settings;
    let ks = sh.keyspace;
    let mut keybuf = KeyBuf::new(s.key_size);
    let mut values = ValueGen::new(s.value_size, s.compression_ratio, stream_seed(s.seed, &[sh.step_index, thread, 7]));
    let mut rng = sh.rng(thread, ROLE_CLIENT);
    let mut out = ThreadOutput::default();
    let entry_bytes = (s.key_size + s.value_size) as u64;
    let mut rec = Recorder::new(Some(progress));
    let kind = sh.plan.kind;
    let op_name: &'static str;
    match kind {
        StepKind::Fill | StepKind::FillSeq | StepKind::FillRandom | StepKind::FillUniqueRandom | StepKind::Overwrite => {
            let order = match kind {
                StepKind::FillSeq => KeyOrder::Seq,
                StepKind::FillRandom => KeyOrder::Random,
                StepKind::FillUniqueRandom => KeyOrder::Unique,
                _ => s.key_order,
            };
            let perm_seed = stream_seed(s.seed, &[sh.step_index, u64::MAX]);
            let mut load = LoadSequence::new(order, s.num, perm_seed, stream_seed(s.seed, &[sh.step_index, thread, 3]));
            let sampler = sh.sampler.as_ref();
            let batch = s.batch_size as u64;
            let mut next_index = |g_op: u64, rng: &mut Rng| -> u64 {
                match (kind, sampler) {
                    (StepKind::Overwrite, Some(smp)) => smp.point(rng),
                    _ => load.index(g_op),
                }
            };
            let written = &mut out.written;
            if batch == 1 {
                op_name = "put";
                out.end_ns = closed_loop(sh, thread, &mut rec, 1, |g| {
                    let index = next_index(g, &mut rng);
                    written.set(index);
                    session.put(keybuf.encode(ks.id(index)), values.next())?;
                    Ok((1, false))
                })?;
                out.commits = rec.ops();
            } else {
                op_name = "write_batch";
                let key_size = s.key_size;
                let mut keys = vec![0u8; key_size * batch as usize];
                let mut vals: Vec<u8> = Vec::with_capacity(s.value_size * batch as usize);
                out.end_ns = closed_loop(sh, thread, &mut rec, batch, |g| {
                    vals.clear();
                    for j in 0..batch {
                        let index = next_index(g * batch + j, &mut rng);
                        written.set(index);
                        KeyBuf::encode_into(ks.id(index), &mut keys[j as usize * key_size..(j as usize + 1) * key_size]);
                        vals.extend_from_slice(values.next());
                    }
                    let vs = s.value_size;
                    // One small allocation per batch: the entries borrow this call's buffers.
                    let mut batch_ops: Vec<BatchOp<'_>> = Vec::with_capacity(batch as usize);
                    for j in 0..batch as usize {
                        batch_ops.push(BatchOp::Put(&keys[j * key_size..(j + 1) * key_size], &vals[j * vs..(j + 1) * vs]));
                    }
                    session.write_batch(&batch_ops)?;
                    Ok((batch, false))
                })?;
                out.commits = rec.ops().div_ceil(batch);
            }
            out.bytes = rec.ops() * entry_bytes;
        }
        StepKind::ReadRandom | StepKind::ReadWhileWriting => {
            op_name = "get";
            let sampler = sh.sampler.as_ref().expect("sampler");
            let (mut found, mut not_found) = (0u64, 0u64);
            out.end_ns = closed_loop(sh, thread, &mut rec, 1, |_| {
                let id = ks.id(sampler.point(&mut rng));
                if session.get(keybuf.encode(id))? {
                    found += 1;
                } else {
                    not_found += 1;
                }
                Ok((1, false))
            })?;
            out.found = found;
            out.not_found = not_found;
            out.bytes = found * entry_bytes;
        }
        StepKind::MultiReadRandom => {
            op_name = "multiget";
            let sampler = sh.sampler.as_ref().expect("sampler");
            let batch = s.multiget_batch;
            let mut keys = vec![0u8; s.key_size * batch];
            let (mut found, mut asked) = (0u64, 0u64);
            out.end_ns = closed_loop(sh, thread, &mut rec, batch as u64, |_| {
                for chunk in keys.chunks_exact_mut(s.key_size) {
                    KeyBuf::encode_into(ks.id(sampler.point(&mut rng)), chunk);
                }
                found += session.multi_get(&keys, s.key_size)? as u64;
                asked += batch as u64;
                Ok((batch as u64, false))
            })?;
            out.found = found;
            out.not_found = asked - found;
            out.bytes = found * entry_bytes;
        }
        StepKind::FwdRange | StepKind::RevRange | StepKind::FwdRangeWhileWriting => {
            op_name = "seek";
            let reverse = kind == StepKind::RevRange;
            let sampler = sh.sampler.as_ref().expect("sampler");
            let entries = s.range_len + 1; // the entry the seek lands on, then range_len next/prev calls
            let (mut found, mut not_found, mut bytes) = (0u64, 0u64, 0u64);
            out.end_ns = closed_loop(sh, thread, &mut rec, 1, |_| {
                let id = ks.id(sampler.range_start(&mut rng));
                let n = session.scan(keybuf.encode(id), reverse, entries, &mut |k, v| {
                    bytes += (k.len() + v.len()) as u64;
                    true
                })?;
                if n > 0 {
                    found += 1;
                } else {
                    not_found += 1;
                }
                Ok((1, false))
            })?;
            out.found = found;
            out.not_found = not_found;
            out.bytes = bytes;
        }
        StepKind::ReadSeq => {
            op_name = "next";
            let limit = total_calls(sh.plan, 1).map(|t| t.div_ceil(sh.threads()) as usize).unwrap_or(usize::MAX);
            let deadline = sh.deadline_ns();
            let mut last = sh.now_ns();
            let mut bytes = 0u64;
            let first = vec![0u8; s.key_size];
            session.scan(&first, false, limit, &mut |k, v| {
                bytes += (k.len() + v.len()) as u64;
                let now = sh.now_ns();
                rec.record(now, now - last);
                last = now;
                !(sh.should_stop() || deadline.is_some_and(|d| now >= d))
            })?;
            out.end_ns = last;
            out.bytes = bytes;
        }
        StepKind::DeleteRandom => {
            op_name = "delete";
            let sampler = sh.sampler.as_ref().expect("sampler");
            let deleted = &mut out.deleted;
            out.end_ns = closed_loop(sh, thread, &mut rec, 1, |_| {
                let index = sampler.point(&mut rng);
                deleted.set(index);
                session.delete(keybuf.encode(ks.id(index)))?;
                Ok((1, false))
            })?;
            out.commits = rec.ops();
            out.bytes = rec.ops() * s.key_size as u64;
        }
        // Flush and WaitForCompaction run in run_engine_step, insert-benchmark steps in crate::ibench.
        _ => unreachable!("engine-wide and insert-benchmark steps do not run here"),
    }
    out.recorders.push((op_name, rec.finish()));
    Ok(out)
}

/// The background writer of *whilewriting steps: random keys from the whole
/// key space, paced smoothly at the target rate (or unpaced), until the
/// clients finish.
fn writer_thread(sh: &Shared<'_>, session: &mut dyn Session) -> Result<WriterOutput> {
    let s = &sh.plan.settings;
    let mut keybuf = KeyBuf::new(s.key_size);
    let mut values = ValueGen::new(s.value_size, s.compression_ratio, stream_seed(s.seed, &[sh.step_index, 999, 7]));
    let mut rng = sh.rng(0, ROLE_WRITER);
    let mut rec = Recorder::new(None);
    let mut service = new_histogram();
    let mut pacer = s.writer_rate.ops_per_s.map(Pacer::new);
    if pacer.is_some() {
        pacer::set_precise_timer_slack();
    }
    let start = sh.start.get().expect("clock started").0;
    let mut ops = 0u64;
    let mut written = KeyBitmap::default();
    let mut last_end = sh.now_ns();
    while sh.clients_running.load(Ordering::Relaxed) > 0 && !sh.should_stop() {
        let intended = match &mut pacer {
            Some(p) => {
                let t = p.next_intended();
                Pacer::wait_until(start, t);
                if sh.clients_running.load(Ordering::Relaxed) == 0 || sh.should_stop() {
                    break;
                }
                t
            }
            None => last_end,
        };
        let index = rng.below(s.num);
        written.set(index);
        let began = sh.now_ns();
        session.put(keybuf.encode(sh.keyspace.id(index)), values.next())?;
        let end = sh.now_ns();
        rec.record(end, end - intended.min(began));
        service.saturating_record((end - began).max(1));
        last_end = end;
        ops += 1;
    }
    Ok(WriterOutput { recorder: rec.finish(), service, ops, active_ns: last_end, written })
}

/// A panicking client thread's payload as an error.
pub(crate) fn join_error(e: Box<dyn std::any::Any + Send>) -> anyhow::Error {
    let msg = e
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    anyhow!("client thread panicked: {msg}")
}

/// Run a client step (everything but flush and waitforcompaction).
pub fn run_client_step(
    engine: &dyn Engine,
    plan: &StepPlan,
    step_index: usize,
    keyspace: KeySpace,
    mut result: StepResult,
) -> (StepResult, ClientWork) {
    let s = &plan.settings;
    let with_writer = matches!(plan.kind, StepKind::ReadWhileWriting | StepKind::FwdRangeWhileWriting);
    let threads = s.threads;
    let parties = threads + with_writer as usize;
    let sampler = match plan.kind {
        StepKind::FillSeq | StepKind::FillRandom | StepKind::FillUniqueRandom | StepKind::Fill | StepKind::ReadSeq => None,
        _ => Some(Sampler::new(s.distribution, s.num)),
    };
    let sh = Shared {
        plan,
        keyspace,
        step_index: step_index as u64,
        start: OnceLock::new(),
        clock: quanta::Clock::new(),
        barrier: Barrier::new(parties),
        abort: AtomicBool::new(false),
        clients_running: AtomicUsize::new(threads),
        sampler,
    };
    let counters: Vec<ProgressCounter> = (0..threads).map(|_| ProgressCounter::default()).collect();
    let progress = StepProgress::start(&plan.kind.to_string(), s.ops, s.seconds);

    let (client_results, writer_result) = std::thread::scope(|scope| {
        let sh = &sh;
        let mut handles = Vec::new();
        for t in 0..threads {
            let counter = &counters[t];
            handles.push(scope.spawn(move || -> Result<ThreadOutput> {
                let session = engine.session();
                if sh.barrier.wait().is_leader() {
                    sh.start_clock();
                }
                sh.barrier_second_wait();
                let outcome = session.and_then(|mut session| client_thread(sh, session.as_mut(), t as u64, counter));
                sh.clients_running.fetch_sub(1, Ordering::Relaxed);
                if outcome.is_err() {
                    sh.abort.store(true, Ordering::Relaxed);
                }
                outcome
            }));
        }
        let writer = with_writer.then(|| {
            scope.spawn(move || -> Result<WriterOutput> {
                let session = engine.session();
                if sh.barrier.wait().is_leader() {
                    sh.start_clock();
                }
                sh.barrier_second_wait();
                let outcome = session.and_then(|mut session| writer_thread(sh, session.as_mut()));
                if outcome.is_err() {
                    sh.abort.store(true, Ordering::Relaxed);
                }
                outcome
            })
        });
        // Progress display runs on this thread until the clients are done.
        while handles.iter().any(|h| !h.is_finished()) {
            let done: u64 = counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum();
            progress.update(done, sh.start.get().map(|s| s.0.elapsed()));
            std::thread::sleep(Duration::from_millis(100));
        }
        let clients: Vec<Result<ThreadOutput>> =
            handles.into_iter().map(|h| h.join().map_err(join_error).and_then(|r| r)).collect();
        let writer = writer.map(|h| h.join().map_err(join_error).and_then(|r| r));
        (clients, writer)
    });
    progress.finish();

    let mut outputs = Vec::new();
    let mut errors = Vec::new();
    for r in client_results {
        match r {
            Ok(o) => outputs.push(o),
            Err(e) => errors.push(e),
        }
    }
    let writer = match writer_result {
        Some(Ok(w)) => Some(w),
        Some(Err(e)) => {
            errors.push(e.context("background writer"));
            None
        }
        None => None,
    };
    let wall_ns = outputs.iter().map(|o| o.end_ns).max().unwrap_or(0).max(1);
    let wall_s = wall_ns as f64 / 1e9;
    let intervals = wall_ns.div_ceil(1_000_000_000) as u32;

    // Merge per-thread recordings by operation type, keeping the order of first appearance.
    let mut by_op: Vec<(&'static str, Vec<FinishedRecorder>)> = Vec::new();
    let (mut found, mut not_found, mut bytes) = (0, 0, 0);
    let mut work = ClientWork::default();
    for o in outputs {
        found += o.found;
        not_found += o.not_found;
        bytes += o.bytes;
        work.commits += o.commits;
        work.written.union_with(&o.written);
        work.deleted.union_with(&o.deleted);
        for (name, rec) in o.recorders {
            match by_op.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.push(rec),
                None => by_op.push((name, vec![rec])),
            }
        }
    }
    for (name, recs) in by_op {
        let m = merge(recs, intervals);
        result.ops_by_type.push(OpResult { op: name.to_string(), ops: m.ops, latency: m.latency(), intervals: m.intervals });
    }
    result.wall_s = wall_s;
    result.ops = result.ops_by_type.first().map(|o| o.ops).unwrap_or(0);
    result.ops_s = Some(result.ops as f64 / wall_s);
    result.mb_s = Some(bytes as f64 / wall_s / (1 << 20) as f64);
    let entry_bytes = (s.key_size + s.value_size) as u64;
    if plan.kind.writes() {
        work.writes = result.ops;
        work.writer_threads = threads as u64;
        work.logical_bytes_written =
            if plan.kind == StepKind::DeleteRandom { result.ops * s.key_size as u64 } else { result.ops * entry_bytes };
    } else {
        work.queries = result.ops;
    }
    if plan.kind.needs_data() && !matches!(plan.kind, StepKind::Overwrite | StepKind::DeleteRandom | StepKind::ReadSeq) {
        result.reads = Some(ReadCounts { found, not_found });
        let total = found + not_found;
        if not_found > 0 && total > 0 {
            result.notes.push(format!(
                "{not_found} of {total} lookups ({:.1}%) found no key: fillrandom inserts with replacement and leaves about 37% of the key space empty; fillseq or filluniquerandom fill it all",
                100.0 * not_found as f64 / total as f64
            ));
        }
    }
    if let Some(w) = writer {
        // The readers are the step's clients; the writer adds writes and commits.
        work.queries = result.ops;
        work.writes = w.ops;
        work.commits += w.ops;
        work.writer_threads = 1;
        work.logical_bytes_written = w.ops * entry_bytes;
        work.written.union_with(&w.written);
        let m = merge(vec![w.recorder], intervals);
        let achieved = w.ops as f64 / (w.active_ns.max(1) as f64 / 1e9);
        let target = s.writer_rate.ops_per_s;
        let missed = target.is_some_and(|t| pacer::missed_rate(t, achieved));
        if missed {
            result.notes.push(format!(
                "background writer missed its target: {:.0} of {:.0} ops/s ({:.1}%)",
                achieved,
                target.unwrap(),
                100.0 * achieved / target.unwrap()
            ));
        }
        result.writer = Some(WriterResult {
            target_ops_s: target,
            achieved_ops_s: achieved,
            ops: w.ops,
            missed_target: missed,
            latency: OpResult { op: "put".into(), ops: m.ops, latency: m.latency(), intervals: m.intervals },
            service_time: LatencySummary::from_histogram(&w.service),
            deletes: None,
        });
    }
    if !errors.is_empty() {
        result.status = Status::Failed;
        result.error = Some(errors.iter().map(|e| format!("{e:#}")).collect::<Vec<_>>().join("; "));
    } else if stop_requested() {
        result.status = Status::Interrupted;
        result.error = Some(interrupted_text());
    } else {
        result.status = Status::Completed;
    }
    (result, work)
}

impl Shared<'_> {
    /// Second rendezvous: everyone waits until the leader has set the clock.
    fn barrier_second_wait(&self) {
        while self.start.get().is_none() {
            std::hint::spin_loop();
        }
    }
}

/// Wait until the engine's background work is done or `timeout` passed
/// (then the step is marked timed out and warned about). The engine's own
/// wait where it has one, in slices of a second so that a signal stops it;
/// otherwise polling its "work pending" state.
fn wait_for_compaction(engine: &dyn Engine, start: Instant, timeout: Duration, result: &mut StepResult) -> Result<()> {
    const SLICE: Duration = Duration::from_secs(1);
    let mut native = true;
    loop {
        if stop_requested() {
            return Ok(());
        }
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            result.timed_out = true;
            result.warnings.push(format!(
                "waitforcompaction timed out: background work was still going after {:.0} s (--compaction-timeout); the steps after it ran on an unsettled database",
                timeout.as_secs_f64()
            ));
            return Ok(());
        }
        let done = if native {
            match engine.wait_for_background_work(left.min(SLICE))? {
                Some(done) => done,
                None => {
                    native = false;
                    continue;
                }
            }
        } else {
            match engine.background_work_pending()? {
                None => {
                    result.notes.push("the engine has no background work to wait for".into());
                    true
                }
                Some(pending) => {
                    if pending {
                        std::thread::sleep(Duration::from_millis(100).min(left));
                    }
                    !pending
                }
            }
        };
        if done {
            return Ok(());
        }
    }
}

/// Run flush or waitforcompaction: one engine-wide call, timed.
pub fn run_engine_step(engine: &dyn Engine, plan: &StepPlan, mut result: StepResult) -> StepResult {
    let start = Instant::now();
    let mut rec = Recorder::new(None);
    let outcome: Result<&'static str> = match plan.kind {
        StepKind::Flush => engine.flush().map(|_| "flush"),
        StepKind::WaitForCompaction => {
            let timeout = Duration::from_secs_f64(plan.settings.compaction_timeout_s);
            wait_for_compaction(engine, start, timeout, &mut result).map(|_| "wait")
        }
        _ => unreachable!(),
    };
    let elapsed = start.elapsed().as_nanos() as u64;
    rec.record(elapsed, elapsed);
    let m = merge(vec![rec.finish()], elapsed.div_ceil(1_000_000_000) as u32);
    result.wall_s = elapsed as f64 / 1e9;
    match outcome {
        Ok(op) => {
            result.ops = 1;
            result.ops_s = Some(1.0 / result.wall_s.max(1e-9));
            result.ops_by_type.push(OpResult { op: op.into(), ops: 1, latency: m.latency(), intervals: m.intervals });
            result.status = if stop_requested() { Status::Interrupted } else { Status::Completed };
        }
        Err(e) => {
            result.status = Status::Failed;
            result.error = Some(format!("{e:#}"));
        }
    }
    result
}
