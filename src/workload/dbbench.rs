//! db_bench-style key-value steps (fillseq, readrandom, fwdrange, ...): the
//! client loops of each step, the background writer of the *whilewriting
//! steps, and the engine-wide steps (flush, waitforcompaction). Threads,
//! timing and the merge are the driver's (`crate::driver`).

use std::time::{Duration, Instant};

use anyhow::Result;

use crate::datagen::trace::TraceFile;
use crate::datagen::{rng::stream_seed, KeyOrder, KeySpace, LoadSequence, Rng, Sampler, ValueGen};
use crate::driver::stop::stop_requested;
use crate::driver::{self, pacer, FinishedOp, Progress, Role, Thread};
use crate::engine::{BatchOp, Engine, Session};
use crate::measure::live::KeyBitmap;
use crate::measure::{merge, new_histogram, LatencySummary, Recorder};
use crate::plan::steps::StepKind;
use crate::plan::StepPlan;
use crate::result::{OpResult, ReadCounts, Status, StepResult, WriterResult};

/// What the threads of one step share.
struct Ctx<'a> {
    plan: &'a StepPlan,
    keyspace: KeySpace,
    step_index: u64,
    sampler: Option<Sampler>,
    /// `--trace`: where the threads' calls are recorded.
    recording: Option<&'a TraceFile>,
}

impl Ctx<'_> {
    fn rng(&self, thread: u64, role: u64) -> Rng {
        Rng::new(stream_seed(self.plan.settings.seed, &[self.step_index, thread, role]))
    }
}

/// What one client or writer thread brings back.
#[derive(Default)]
struct ThreadOutput {
    ops: Vec<FinishedOp>,
    found: u64,
    not_found: u64,
    bytes: u64,
    end_ns: u64,
    /// Write calls (a batch is one).
    commits: u64,
    /// Key indexes written / deleted.
    written: KeyBitmap,
    deleted: KeyBitmap,
    /// The writer: service times of its calls.
    service: Option<hdrhistogram::Histogram<u64>>,
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

fn client_thread(cx: &Ctx<'_>, t: &Thread<'_>, session: &mut dyn Session) -> Result<ThreadOutput> {
    let mut slot = None;
    let session = super::trace::traced(t, cx.recording, t.index as u32, session, &mut slot);
    let s = &cx.plan.settings;
    let ks = cx.keyspace;
    // A shard's thread is a thread of all shards' (plan::shard): fills
    // take its keys, counts its share, and its streams its seeds.
    let thread = s.global_thread(t.index);
    let (first, stride) = (thread, s.global_threads());
    let mut keybuf = ks.keybuf(s.key_size);
    let mut values = ValueGen::new(s.value_size, s.compression_ratio, stream_seed(s.seed, &[cx.step_index, thread, 7]));
    let mut rng = cx.rng(thread, ROLE_CLIENT);
    let mut out = ThreadOutput::default();
    let entry_bytes = (s.key_size + s.value_size) as u64;
    let kind = cx.plan.kind;
    let mut op = t.recorder(match kind {
        StepKind::Fill
        | StepKind::FillSeq
        | StepKind::FillRandom
        | StepKind::FillUniqueRandom
        | StepKind::Overwrite => {
            if s.batch_size == 1 {
                "put"
            } else {
                "write_batch"
            }
        }
        StepKind::ReadRandom | StepKind::ReadWhileWriting => "get",
        StepKind::MultiReadRandom => "multiget",
        StepKind::FwdRange | StepKind::RevRange | StepKind::FwdRangeWhileWriting => "seek",
        StepKind::ReadSeq => "next",
        StepKind::DeleteRandom => "delete",
        // Flush, WaitForCompaction and Settle run in run_engine_step, insert-benchmark steps in their workload.
        _ => unreachable!("engine-wide and insert-benchmark steps do not run here"),
    });
    match kind {
        StepKind::Fill
        | StepKind::FillSeq
        | StepKind::FillRandom
        | StepKind::FillUniqueRandom
        | StepKind::Overwrite => {
            let order = match kind {
                StepKind::FillSeq => KeyOrder::Seq,
                StepKind::FillRandom => KeyOrder::Random,
                StepKind::FillUniqueRandom => KeyOrder::Unique,
                _ => s.key_order,
            };
            let perm_seed = stream_seed(s.seed, &[cx.step_index, u64::MAX]);
            let mut load = LoadSequence::new(order, s.num, perm_seed, stream_seed(s.seed, &[cx.step_index, thread, 3]));
            let sampler = cx.sampler.as_ref();
            let batch = s.batch_size as u64;
            let mut next_index = |g_op: u64, rng: &mut Rng| -> u64 {
                match (kind, sampler) {
                    (StepKind::Overwrite, Some(smp)) => smp.point(rng),
                    _ => load.index(g_op),
                }
            };
            let written = &mut out.written;
            if batch == 1 {
                out.end_ns =
                    t.client_loop(&mut op.rec, total_calls(cx.plan, 1), first, stride, s.client_calls_per_s(1), |g| {
                        let index = next_index(g, &mut rng);
                        written.set(index);
                        session.put(keybuf.encode(ks.id(index)), values.next())?;
                        Ok((1, false))
                    })?;
                out.commits = op.rec.ops();
            } else {
                let key_size = s.key_size;
                let mut keys = vec![0u8; key_size * batch as usize];
                let mut vals: Vec<u8> = Vec::with_capacity(s.value_size * batch as usize);
                out.end_ns = t.client_loop(
                    &mut op.rec,
                    total_calls(cx.plan, batch),
                    first,
                    stride,
                    s.client_calls_per_s(batch),
                    |g| {
                        vals.clear();
                        for j in 0..batch {
                            let index = next_index(g * batch + j, &mut rng);
                            written.set(index);
                            ks.encode_into(index, &mut keys[j as usize * key_size..(j as usize + 1) * key_size]);
                            vals.extend_from_slice(values.next());
                        }
                        let vs = s.value_size;
                        // One small allocation per batch: the entries borrow this call's buffers.
                        let mut batch_ops: Vec<BatchOp<'_>> = Vec::with_capacity(batch as usize);
                        for j in 0..batch as usize {
                            batch_ops.push(BatchOp::Put(
                                &keys[j * key_size..(j + 1) * key_size],
                                &vals[j * vs..(j + 1) * vs],
                            ));
                        }
                        session.write_batch(&batch_ops)?;
                        Ok((batch, false))
                    },
                )?;
                out.commits = op.rec.ops().div_ceil(batch);
            }
            out.bytes = op.rec.ops() * entry_bytes;
        }
        StepKind::ReadRandom | StepKind::ReadWhileWriting => {
            let sampler = cx.sampler.as_ref().expect("sampler");
            let mut not_found = 0u64;
            out.end_ns =
                t.client_loop(&mut op.rec, total_calls(cx.plan, 1), first, stride, s.client_calls_per_s(1), |_| {
                    let id = ks.id(sampler.point(&mut rng));
                    not_found += !session.get(keybuf.encode(id))? as u64;
                    Ok((1, false))
                })?;
            out.not_found = not_found;
            out.found = op.rec.ops() - not_found;
            out.bytes = out.found * entry_bytes;
        }
        StepKind::MultiReadRandom => {
            let sampler = cx.sampler.as_ref().expect("sampler");
            let batch = s.multiget_batch;
            let mut keys = vec![0u8; s.key_size * batch];
            let mut found = 0u64;
            out.end_ns = t.client_loop(
                &mut op.rec,
                total_calls(cx.plan, batch as u64),
                first,
                stride,
                s.client_calls_per_s(batch as u64),
                |_| {
                    for chunk in keys.chunks_exact_mut(s.key_size) {
                        ks.encode_into(sampler.point(&mut rng), chunk);
                    }
                    found += session.multi_get(&keys, s.key_size)? as u64;
                    Ok((batch as u64, false))
                },
            )?;
            out.found = found;
            out.not_found = op.rec.ops() - found;
            out.bytes = found * entry_bytes;
        }
        StepKind::FwdRange | StepKind::RevRange | StepKind::FwdRangeWhileWriting => {
            let reverse = kind == StepKind::RevRange;
            let sampler = cx.sampler.as_ref().expect("sampler");
            let entries = s.range_len + 1; // the entry the seek lands on, then range_len next/prev calls
            let (mut not_found, mut bytes) = (0u64, 0u64);
            out.end_ns =
                t.client_loop(&mut op.rec, total_calls(cx.plan, 1), first, stride, s.client_calls_per_s(1), |_| {
                    let id = ks.id(sampler.range_start(&mut rng));
                    let n = session.scan(keybuf.encode(id), reverse, entries, &mut |k, v| {
                        bytes += (k.len() + v.len()) as u64;
                        true
                    })?;
                    not_found += (n == 0) as u64;
                    Ok((1, false))
                })?;
            out.not_found = not_found;
            out.found = op.rec.ops() - not_found;
            out.bytes = bytes;
        }
        StepKind::ReadSeq => {
            let limit = total_calls(cx.plan, 1).map(|c| c.div_ceil(s.global_threads()) as usize).unwrap_or(usize::MAX);
            let deadline = t.deadline_ns();
            let timer = t.timer();
            let mut last = timer.now_ns();
            let mut bytes = 0u64;
            let first_key = vec![0u8; s.key_size];
            let rec = &mut op.rec;
            session.scan(&first_key, false, limit, &mut |k, v| {
                bytes += (k.len() + v.len()) as u64;
                let now = timer.now_ns();
                rec.record(now, now - last);
                last = now;
                !(t.should_stop() || deadline.is_some_and(|d| now >= d))
            })?;
            out.end_ns = last;
            out.bytes = bytes;
        }
        StepKind::DeleteRandom => {
            let sampler = cx.sampler.as_ref().expect("sampler");
            let deleted = &mut out.deleted;
            out.end_ns =
                t.client_loop(&mut op.rec, total_calls(cx.plan, 1), first, stride, s.client_calls_per_s(1), |_| {
                    let index = sampler.point(&mut rng);
                    deleted.set(index);
                    session.delete(keybuf.encode(ks.id(index)))?;
                    Ok((1, false))
                })?;
            out.commits = op.rec.ops();
            out.bytes = op.rec.ops() * s.key_size as u64;
        }
        _ => unreachable!(),
    }
    op.outcomes.not_found = out.not_found;
    out.ops.push(op.finish());
    Ok(out)
}

/// The background writer of *whilewriting steps: random keys from the whole
/// key space, paced smoothly at the target rate (or unpaced), until the
/// clients finish.
fn writer_thread(cx: &Ctx<'_>, t: &Thread<'_>, session: &mut dyn Session) -> Result<ThreadOutput> {
    let s = &cx.plan.settings;
    // The writer records as the thread after the clients.
    let mut slot = None;
    let session = super::trace::traced(t, cx.recording, (s.threads + t.index) as u32, session, &mut slot);
    let mut keybuf = cx.keyspace.keybuf(s.key_size);
    // Each shard's writer its own streams (the same as before for a run that is not sharded).
    let shard = s.shard().index as u64;
    let mut values =
        ValueGen::new(s.value_size, s.compression_ratio, stream_seed(s.seed, &[cx.step_index, 999 ^ (shard << 32), 7]));
    let mut rng = cx.rng(shard, ROLE_WRITER);
    let mut op = t.recorder("put");
    let mut service = new_histogram();
    let mut written = KeyBitmap::default();
    let end_ns = t.paced_loop(
        s.writer_rate.ops_per_s,
        &mut service,
        || {
            let index = rng.below(s.num);
            written.set(index);
            session.put(keybuf.encode(cx.keyspace.id(index)), values.next())
        },
        |end, response, ()| op.rec.record(end, response),
    )?;
    Ok(ThreadOutput { ops: vec![op.finish()], end_ns, written, service: Some(service), ..Default::default() })
}

/// Run a client step (everything but flush and waitforcompaction).
pub fn run_client_step(
    engine: &dyn Engine,
    plan: &StepPlan,
    step_index: usize,
    keyspace: KeySpace,
    recording: Option<&TraceFile>,
    mut result: StepResult,
) -> (StepResult, ClientWork) {
    let s = &plan.settings;
    let with_writer = matches!(plan.kind, StepKind::ReadWhileWriting | StepKind::FwdRangeWhileWriting);
    let threads = s.threads;
    let sampler = match plan.kind {
        StepKind::FillSeq | StepKind::FillRandom | StepKind::FillUniqueRandom | StepKind::Fill | StepKind::ReadSeq => {
            None
        }
        _ => Some(Sampler::new(s.distribution, s.num)),
    };
    let cx = Ctx { plan, keyspace, step_index: step_index as u64, sampler, recording };
    let label = plan.kind.to_string();
    let joined = driver::run(
        threads,
        with_writer as usize,
        s.seconds,
        Progress { label: &label, total_ops: s.ops, seconds: s.seconds },
        // Clients 0..threads, the writer after them (the header's thread index).
        |role, i| engine.session_for(if role == Role::Client { i } else { threads + i }),
        |t, mut session| match t.role {
            Role::Client => client_thread(&cx, t, session.as_mut()),
            Role::Background => writer_thread(&cx, t, session.as_mut()),
        },
        || {},
    );
    joined.stamp(&mut result);
    let writer = joined.background.into_iter().next();
    let outputs = joined.clients;
    let errors = joined.errors;
    let wall_ns = driver::wall_ns(outputs.iter().map(|o| o.end_ns));
    let wall_s = wall_ns as f64 / 1e9;
    let intervals = driver::intervals(wall_ns);

    let (mut found, mut not_found, mut bytes) = (0, 0, 0);
    let mut work = ClientWork::default();
    let mut ops = Vec::new();
    for o in outputs {
        found += o.found;
        not_found += o.not_found;
        bytes += o.bytes;
        work.commits += o.commits;
        work.written.union_with(&o.written);
        work.deleted.union_with(&o.deleted);
        ops.push(o.ops);
    }
    result.ops_by_type = driver::merge_ops(ops, intervals);
    result.wall_s = Some(wall_s);
    result.ops = result.ops_by_type.first().map(|o| o.ops).unwrap_or(0);
    result.ops_s = Some(result.ops as f64 / wall_s);
    result.mb_s = Some(bytes as f64 / wall_s / (1 << 20) as f64);
    if let Some(rate) = s.rate {
        paced_note(&mut result, rate);
    }
    let entry_bytes = (s.key_size + s.value_size) as u64;
    if plan.kind.writes() {
        work.writes = result.ops;
        work.writer_threads = threads as u64;
        work.logical_bytes_written =
            if plan.kind == StepKind::DeleteRandom { result.ops * s.key_size as u64 } else { result.ops * entry_bytes };
    } else {
        work.queries = result.ops;
    }
    if plan.kind.needs_data() && !matches!(plan.kind, StepKind::Overwrite | StepKind::DeleteRandom | StepKind::ReadSeq)
    {
        // The runner says why lookups found no key (it knows what the fills did).
        result.reads = Some(ReadCounts { found, not_found });
    }
    if let Some(w) = writer {
        let latency = driver::merge_ops([w.ops], intervals).pop().expect("the writer's recording");
        let writer_calls = latency.ops;
        // The readers are the step's clients; the writer adds writes and commits.
        work.queries = result.ops;
        work.writes = writer_calls;
        work.commits += writer_calls;
        work.writer_threads = 1;
        work.logical_bytes_written = writer_calls * entry_bytes;
        work.written.union_with(&w.written);
        let achieved = writer_calls as f64 / (w.end_ns.max(1) as f64 / 1e9);
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
            ops: writer_calls,
            missed_target: missed,
            latency,
            service_time: LatencySummary::from_histogram(w.service.as_ref().expect("the writer's service times")),
            deletes: None,
        });
    }
    driver::settle_status(&mut result, &errors);
    (result, work)
}

/// The note of a step whose clients were paced at `rate` (`--rate`), and
/// the warning when they fell more than 5% behind it.
pub fn paced_note(result: &mut StepResult, rate: f64) {
    let achieved = result.ops_s.unwrap_or(0.0);
    result.notes.push(format!(
        "open loop: the clients paced at {rate:.0} ops/s (--rate), latency from each operation's intended start"
    ));
    if result.ops > 0 && pacer::missed_rate(rate, achieved) {
        result.warnings.push(format!(
            "the clients fell behind --rate: {achieved:.0} of {rate:.0} ops/s ({:.1}%): the engine could not keep up, and the latencies count the queueing",
            100.0 * achieved / rate
        ));
    }
}

/// How a wait for background work ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// `polled`: by polling the engine's pending-work state every 100 ms,
    /// since it has no wait of its own (RocksDB before 8.8.1: no WaitForCompact in its C API; LevelDB).
    Done {
        polled: bool,
    },
    /// The engine has no background work (lmdb, sqlite, null).
    NothingToWait,
    TimedOut,
    Stopped,
}

/// Wait until the engine's background work is done or `timeout` (from
/// `start`) passed. The engine's own wait where it has one, in slices of a
/// second so that a signal stops it; otherwise polling its "work pending" state.
pub fn wait_for_background_work(engine: &dyn Engine, start: Instant, timeout: Duration) -> Result<Waited> {
    const SLICE: Duration = Duration::from_secs(1);
    let mut native = true;
    loop {
        if stop_requested() {
            return Ok(Waited::Stopped);
        }
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Ok(Waited::TimedOut);
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
                None => return Ok(Waited::NothingToWait),
                Some(pending) => {
                    if pending {
                        std::thread::sleep(Duration::from_millis(100).min(left));
                    }
                    !pending
                }
            }
        };
        if done {
            return Ok(Waited::Done { polled: !native });
        }
    }
}

/// Settle the engine before a point of a concurrency sweep, so that no point
/// pays for (or gains from) the background work of the steps before it:
/// flush, then wait for flushes and compactions (bounded by `timeout`).
/// Returns what was done, for the point's notes (a warning when it timed out).
pub fn settle(engine: &dyn Engine, timeout: Duration) -> Result<(String, bool)> {
    let start = Instant::now();
    engine.flush()?;
    let waited = wait_for_background_work(engine, start, timeout)?;
    let secs = start.elapsed().as_secs_f64();
    Ok(match waited {
        Waited::Done { polled } => (
            format!(
                "settled before this point: flushed and waited for background work{} ({secs:.1} s)",
                if polled { " by polling its pending state" } else { "" }
            ),
            false,
        ),
        Waited::NothingToWait => (
            format!("settled before this point: flushed ({secs:.1} s); the engine has no background work to wait for"),
            false,
        ),
        Waited::Stopped => ("settling before this point was cut short by a stop".into(), false),
        Waited::TimedOut => (
            format!(
                "not settled before this point: background work was still going after {:.0} s (--compaction-timeout)",
                timeout.as_secs_f64()
            ),
            true,
        ),
    })
}

/// Run flush, waitforcompaction or settle: one engine-wide call, timed.
pub fn run_engine_step(engine: &dyn Engine, plan: &StepPlan, mut result: StepResult) -> StepResult {
    let start = Instant::now();
    let mut rec = Recorder::new(None);
    // The operation done, None when there was nothing to do.
    let outcome: Result<Option<&'static str>> = match plan.kind {
        StepKind::Flush => engine.flush().map(|_| Some("flush")),
        // A settle flushes first, then waits as waitforcompaction does: the
        // work the steps before it left, all of it written within this step.
        StepKind::WaitForCompaction | StepKind::Settle => {
            let settle = plan.kind == StepKind::Settle;
            let (op, unsettled) = if settle {
                ("settle", "the debt of the steps before it is not all counted")
            } else {
                ("wait", "the steps after it ran on an unsettled database")
            };
            let timeout = Duration::from_secs_f64(plan.settings.compaction_timeout_s);
            let flushed = if settle { engine.flush() } else { Ok(()) };
            flushed.and_then(|()| wait_for_background_work(engine, start, timeout)).map(|waited| match waited {
                Waited::Done { polled: true } => {
                    result.notes.push(
                        "waited by polling the engine's compaction-pending state every 100 ms: it has no wait of its own (LevelDB; RocksDB before 8.8.1, whose C API has no WaitForCompact)"
                            .into(),
                    );
                    Some(op)
                }
                Waited::Done { polled: false } | Waited::Stopped => Some(op),
                Waited::TimedOut => {
                    result.timed_out = true;
                    result.warnings.push(format!(
                        "{} timed out: background work was still going after {:.0} s (--compaction-timeout); {unsettled}",
                        plan.kind.name(),
                        timeout.as_secs_f64()
                    ));
                    Some(op)
                }
                // A settle's flush is its operation, with or without a wait.
                Waited::NothingToWait if settle => {
                    result.notes.push("settle: flushed; the engine has no background work to wait for".into());
                    Some(op)
                }
                Waited::NothingToWait => {
                    result.notes.push("the engine has no background work to wait for: no operation, no rate".into());
                    None
                }
            })
        }
        _ => unreachable!(),
    };
    let elapsed = start.elapsed().as_nanos() as u64;
    rec.record(elapsed, elapsed);
    let m = merge(vec![rec.finish()], elapsed.div_ceil(1_000_000_000) as u32);
    let wall_s = elapsed as f64 / 1e9;
    result.wall_s = Some(wall_s);
    match outcome {
        // Nothing to wait for (lmdb, sqlite): no operation, so no rate (1 / the
        // time of one check is not a figure of the engine's).
        Ok(None) => {
            result.status = if stop_requested() { Status::Interrupted } else { Status::Completed };
        }
        Ok(Some(op)) => {
            result.ops = 1;
            result.ops_s = Some(1.0 / wall_s.max(1e-9));
            result.ops_by_type.push(OpResult { ops: 1, ..OpResult::measured(op, &m, None) });
            result.status = if stop_requested() { Status::Interrupted } else { Status::Completed };
        }
        Err(e) => {
            result.status = Status::Failed;
            result.error = Some(format!("{e:#}"));
        }
    }
    result
}
