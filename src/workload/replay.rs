//! The replay step: a trace's calls (rumbench's `--trace`, or RocksDB's own
//! trace) made again on any key-value engine, at the recorded timing (open
//! loop, each call's latency from its scheduled start), scaled, or as fast
//! as possible; on the recorded threads or dealt to a new count of them.
//! A replay proves what it replayed: the sum of the digests of the calls it
//! made against the recording's.

use anyhow::{anyhow, Result};
use sha2::{Digest, Sha256};

use super::dbbench::ClientWork;
use crate::datagen::trace::{CallDigest, CallKind, Trace, TraceFile, TraceSource};
use crate::datagen::ValueGen;
use crate::driver::pacer;
use crate::driver::{self, FinishedOp, OpRecorder, Progress, Thread};
use crate::engine::{BatchOp, Engine, Session};
use crate::measure::{new_histogram, LatencySummary};
use crate::plan::StepPlan;
use crate::result::trace::Replay;
use crate::result::{ReadCounts, Status, StepResult};

/// A trace ready to replay: its calls dealt to threads.
pub struct Loaded {
    pub trace: Trace,
    pub sha256: String,
    /// Each replay thread's calls (indexes into `trace.calls`), in order.
    pub threads: Vec<Vec<u32>>,
    pub recorded_mapping: bool,
    /// The largest value a call writes.
    pub max_value: u32,
}

/// Load the trace of `plan`'s replay and deal its calls to threads.
pub fn load(plan: &StepPlan) -> Result<Loaded> {
    let r = plan.settings.replay.as_ref().ok_or_else(|| anyhow!("the replay step has no trace (--replay FILE)"))?;
    let data = std::fs::read(&r.path).map_err(|e| anyhow!("cannot read trace {}: {e}", r.path.display()))?;
    let sha256 = format!("{:x}", Sha256::digest(&data));
    let trace = Trace::parse(&data).map_err(|e| anyhow!("{}: {e}", r.path.display()))?;
    drop(data);
    let recorded = trace.threads.max(1) as usize;
    let count = r.threads.unwrap_or(recorded);
    let recorded_mapping = count == recorded;
    let mut threads = vec![Vec::new(); count];
    for (i, c) in trace.calls.iter().enumerate() {
        let t = if recorded_mapping { c.thread as usize } else { i % count };
        threads[t].push(i as u32);
    }
    let max_value = trace.calls.iter().flat_map(|c| trace.parts(c)).map(|(_, p)| p.value_size).max().unwrap_or(0);
    Ok(Loaded { trace, sha256, threads, recorded_mapping, max_value })
}

struct ThreadOut {
    ops: Vec<FinishedOp>,
    end_ns: u64,
    calls: u64,
    checksum: u64,
    lateness: hdrhistogram::Histogram<u64>,
    gets_found: u64,
    gets_not_found: u64,
    keys_read: u64,
    writes: u64,
    logical_bytes_written: u64,
}

fn client(
    loaded: &Loaded,
    plan: &StepPlan,
    t: &Thread<'_>,
    session: &mut dyn Session,
    recording: Option<&TraceFile>,
) -> Result<ThreadOut> {
    let trace = &loaded.trace;
    let mine = &loaded.threads[t.index];
    let speed = plan.settings.replay.as_ref().and_then(|r| r.speed);
    let mut values =
        ValueGen::new(loaded.max_value.max(1) as usize, plan.settings.compression_ratio, plan.settings.seed);
    let mut slot = None;
    let session = super::trace::traced(t, recording, t.index as u32, session, &mut slot);
    let mut recs: Vec<OpRecorder<'_>> = CallKind::ALL.iter().map(|k| t.quiet_recorder(k.name())).collect();
    if speed.is_some() {
        pacer::set_precise_timer_slack();
    }
    let base = trace.calls.first().map_or(0, |c| c.intended_ns);
    let start = t.start_instant();
    let timer = t.timer();
    let deadline = t.deadline_ns();
    let mut out = ThreadOut {
        ops: Vec::new(),
        end_ns: 0,
        calls: 0,
        checksum: 0,
        lateness: new_histogram(),
        gets_found: 0,
        gets_not_found: 0,
        keys_read: 0,
        writes: 0,
        logical_bytes_written: 0,
    };
    let mut last = timer.now_ns();
    let mut keys: Vec<u8> = Vec::new();
    let mut vals: Vec<u8> = Vec::new();
    for &ci in mine {
        if t.should_stop() {
            break;
        }
        let c = &trace.calls[ci as usize];
        let scheduled = speed.map(|f| ((c.intended_ns - base) as f64 / f) as u64);
        if let Some(at) = scheduled {
            if deadline.is_some_and(|d| at >= d) || !pacer::wait_exactly(start, &timer, at, || !t.should_stop()) {
                break;
            }
            t.set_intended(at);
        }
        let mut digest = CallDigest::new(c.thread, c.seq, c.kind, c.scan_len);
        let mut parts = trace.parts(c);
        let began = timer.now_ns();
        // (found anything, keys read)
        let r: Result<(bool, u64)> = match c.kind {
            CallKind::Get | CallKind::Put | CallKind::Delete | CallKind::Seek | CallKind::SeekBack => {
                let (key, p) = parts.next().expect("a call has a key");
                digest.part(p.delete, key, p.value_size);
                match c.kind {
                    CallKind::Get => session.get(key).map(|f| (f, 1)),
                    CallKind::Put => session.put(key, values.next_sized(p.value_size as usize)).map(|()| (true, 0)),
                    CallKind::Delete => session.delete(key).map(|()| (true, 0)),
                    _ => session
                        .scan(key, c.kind == CallKind::SeekBack, c.scan_len.max(1) as usize, &mut |_, _| true)
                        .map(|n| (n > 0, 1)),
                }
            }
            CallKind::MultiGet => {
                keys.clear();
                let mut size = None;
                let mut same = true;
                for (key, p) in parts {
                    digest.part(p.delete, key, p.value_size);
                    same &= *size.get_or_insert(key.len()) == key.len();
                    keys.extend_from_slice(key);
                }
                let n = c.parts_len() as u64;
                match size {
                    None => Ok((false, 0)),
                    // Keys of one size go in one call; a mix, one get each (the Session's multiget takes one size).
                    Some(size) if same => session.multi_get(&keys, size).map(|f| (f > 0, n)),
                    Some(_) => {
                        let mut found = false;
                        let mut err = None;
                        for (key, _) in trace.parts(c) {
                            match session.get(key) {
                                Ok(f) => found |= f,
                                Err(e) => {
                                    err = Some(e);
                                    break;
                                }
                            }
                        }
                        err.map_or(Ok((found, n)), Err)
                    }
                }
            }
            CallKind::Batch => {
                vals.clear();
                for (key, p) in trace.parts(c) {
                    digest.part(p.delete, key, p.value_size);
                    if !p.delete {
                        vals.extend_from_slice(values.next_sized(p.value_size as usize));
                    }
                }
                let mut at = 0;
                let ops: Vec<BatchOp<'_>> = trace
                    .parts(c)
                    .map(|(key, p)| {
                        if p.delete {
                            BatchOp::Delete(key)
                        } else {
                            let v = &vals[at..at + p.value_size as usize];
                            at += p.value_size as usize;
                            BatchOp::Put(key, v)
                        }
                    })
                    .collect();
                session.write_batch(&ops).map(|()| (true, 0))
            }
        };
        let Some((found, keys_read)) = t.ok(r) else { break };
        let now = timer.now_ns();
        let latency = match scheduled {
            Some(at) => {
                out.lateness.saturating_record(began.saturating_sub(at));
                now - at.min(began)
            }
            None => now - last,
        };
        let rec = &mut recs[CallKind::ALL.iter().position(|k| *k == c.kind).expect("a kind")];
        rec.rec.record(now, latency);
        rec.outcomes.not_found += !found as u64;
        out.checksum = out.checksum.wrapping_add(digest.finish());
        out.calls += 1;
        out.keys_read += keys_read;
        match c.kind {
            CallKind::Get if found => out.gets_found += 1,
            CallKind::Get => out.gets_not_found += 1,
            k if k.writes() => {
                for (key, p) in trace.parts(c) {
                    out.writes += 1;
                    out.logical_bytes_written += key.len() as u64 + p.value_size as u64;
                }
            }
            _ => {}
        }
        last = now;
        if out.calls & 0x3ff == 0 {
            if let Some(p) = t.progress {
                p.0.store(out.calls, std::sync::atomic::Ordering::Relaxed);
            }
        }
        if deadline.is_some_and(|d| now >= d) {
            break;
        }
    }
    out.end_ns = last;
    out.ops = recs.into_iter().filter(|r| r.rec.ops() > 0).map(OpRecorder::finish).collect();
    Ok(out)
}

/// The trace's format, as said in results.
fn format_text(source: &TraceSource) -> String {
    match source {
        TraceSource::Rumbench { header, .. } => {
            format!(
                "rumbench trace {} (rumbench {}, {} of {})",
                crate::datagen::trace::VERSION,
                header.rumbench,
                header.step,
                header.config
            )
        }
        TraceSource::Rocksdb { rocksdb_version, trace_version, .. } => {
            format!("RocksDB trace 0.{trace_version} (RocksDB {rocksdb_version})")
        }
    }
}

/// Run the replay step.
pub fn run_replay_step(
    engine: &dyn Engine,
    plan: &StepPlan,
    recording: Option<&TraceFile>,
    mut result: StepResult,
) -> (StepResult, ClientWork) {
    let loaded = match load(plan) {
        Ok(l) => l,
        Err(e) => {
            result.status = Status::Failed;
            result.error = Some(format!("{e:#}"));
            return (result, ClientWork::default());
        }
    };
    let r = plan.settings.replay.as_ref().expect("loaded");
    let s = &plan.settings;
    let label = plan.kind.to_string();
    let total = loaded.trace.calls.len() as u64;
    let joined = driver::run(
        loaded.threads.len(),
        0,
        s.seconds,
        Progress { label: &label, total_ops: Some(total), seconds: s.seconds },
        |_, i| engine.session_for(i),
        |t, mut session| client(&loaded, plan, t, session.as_mut(), recording),
        || {},
    );
    joined.stamp(&mut result);
    let wall_ns = driver::wall_ns(joined.clients.iter().map(|o| o.end_ns));
    let wall_s = wall_ns as f64 / 1e9;
    let intervals = driver::intervals(wall_ns);
    let mut work = ClientWork::default();
    let (mut checksum, mut calls, mut found, mut not_found) = (0u64, 0u64, 0u64, 0u64);
    let mut lateness = new_histogram();
    let mut ops = Vec::new();
    for o in joined.clients {
        checksum = checksum.wrapping_add(o.checksum);
        calls += o.calls;
        found += o.gets_found;
        not_found += o.gets_not_found;
        work.queries += o.keys_read;
        work.writes += o.writes;
        work.logical_bytes_written += o.logical_bytes_written;
        lateness.add(&o.lateness).expect("histograms of one range");
        ops.push(o.ops);
    }
    let mut by_type = driver::merge_ops(ops, intervals);
    by_type.sort_by_key(|o| CallKind::ALL.iter().position(|k| k.name() == o.op));
    work.commits =
        by_type.iter().filter(|o| ["put", "delete", "write_batch"].contains(&o.op.as_str())).map(|o| o.ops).sum();
    work.writer_threads = if work.writes > 0 { loaded.threads.len() as u64 } else { 0 };
    result.ops_by_type = by_type;
    result.ops = calls;
    result.wall_s = Some(wall_s);
    result.ops_s = Some(calls as f64 / wall_s);
    result.mb_s = None;
    if found + not_found > 0 {
        result.reads = Some(ReadCounts { found, not_found });
    }
    let trace = &loaded.trace;
    let (trailer, skipped, ended) = match &trace.source {
        TraceSource::Rumbench { trailer, .. } => (*trailer, Vec::new(), trailer.is_some()),
        TraceSource::Rocksdb { skipped, ended, .. } => (None, skipped.clone(), *ended),
    };
    let complete_recording = ended && trace.cut.is_none();
    // The recording's own sum when it ended with one; else the file's calls'.
    let recorded = trailer.map_or(trace.checksum, |t| t.checksum);
    // Equal sums prove the file's calls were made; the recording's only when
    // it ended and nothing in it was passed over.
    let same_calls = calls == total && checksum == recorded && complete_recording && skipped.is_empty();
    let replay = Replay {
        source: r.path.display().to_string(),
        sha256: loaded.sha256.clone(),
        format: format_text(&trace.source),
        calls: total,
        span_s: trace.span_ns() as f64 / 1e9,
        recorded_threads: trace.threads,
        threads: loaded.threads.len() as u32,
        mapping: if loaded.recorded_mapping { "recorded" } else { "by start" }.into(),
        speed: r.speed,
        replayed: calls,
        recorded_checksum: format!("{recorded:016x}"),
        replayed_checksum: format!("{checksum:016x}"),
        same_calls,
        complete_recording,
        cut: trace.cut.map(|c| crate::result::trace::TraceCut { at_byte: c.at_byte, calls: c.calls }),
        skipped,
        start_lateness: r.speed.map(|_| LatencySummary::from_histogram(&lateness)),
    };
    let lateness_text = match &replay.start_lateness {
        Some(l) => format!(", calls started {:.0} us late at p99 ({:.0} us at most)", l.p99_us, l.max_us),
        None => String::new(),
    };
    result.notes.push(format!(
        "replayed {calls} of the {total} calls of {} ({}, sha256 {}) on {} thread{} ({} mapping) {}{lateness_text}",
        replay.source,
        replay.format,
        &replay.sha256[..12],
        replay.threads,
        if replay.threads == 1 { "" } else { "s" },
        replay.mapping,
        r.speed_text()
    ));
    if trailer.is_some_and(|t| t.checksum != trace.checksum || t.calls != total) {
        result.warnings.push(
            "the trace's calls are not the ones recorded (its checksum differs from its trailer's): the file was altered or damaged".into(),
        );
    } else if let Some(cut) = trace.cut {
        let lost = match cut.calls {
            Some(n) => format!("{n} call{} cut off there", if n == 1 { " was" } else { "s were" }),
            None => "the calls cut off there are not counted (the cut record's header was cut too)".into(),
        };
        result.warnings.push(format!(
            "the trace is cut short at byte {}: its recording was killed; every whole record before it was replayed, {lost}",
            cut.at_byte
        ));
    } else if !replay.complete_recording {
        let what = match trace.source {
            TraceSource::Rumbench { .. } => "no trailer",
            TraceSource::Rocksdb { .. } => "no end record",
        };
        result.notes.push(format!(
            "the trace has {what}: its recording ended early (the calls it holds were replayed; those after cannot be known)"
        ));
    }
    if calls == total && checksum != recorded {
        result.warnings.push(format!(
            "the calls replayed are not the recorded ones: checksum {} against {}",
            replay.replayed_checksum, replay.recorded_checksum
        ));
    }
    if r.speed.is_some() {
        result.notes.push(format!(
            "each client spins up to {} us before a call to start it at its moment: the CPU per operation counts that wait",
            pacer::SPIN_NS / 1000
        ));
    }
    if !replay.skipped.is_empty() {
        result.notes.push(format!("not replayable, skipped: {}", replay.skipped.join(", ")));
    }
    result.replay = Some(replay);
    driver::settle_status(&mut result, &joined.errors);
    (result, work)
}
