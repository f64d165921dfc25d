//! db_bench's mixgraph step: gets, puts and seeks drawn by the FAST'20
//! models (`crate::datagen::mixgraph`), in a closed loop, or paced open-loop
//! at the sine arrival rate (sine_mix_rate=true) with each operation's
//! latency measured from its intended start (queueing behind a stall
//! counts, as in every paced role of the driver).

use anyhow::Result;

use super::dbbench::ClientWork;
use crate::datagen::mixgraph::{Mixgraph, MixgraphParams, Query, SineSchedule};
use crate::datagen::rng::stream_seed;
use crate::datagen::trace::TraceFile;
use crate::datagen::{KeySpace, Rng, ValueGen};
use crate::driver::pacer::{self, Pacer};
use crate::driver::{self, FinishedOp, OpRecorder, Progress, Thread};
use crate::engine::{Engine, Session};
use crate::measure::live::KeyBitmap;
use crate::plan::StepPlan;
use crate::result::mixgraph::{MixgraphStats, SizeHistogram};
use crate::result::{ReadCounts, Status, StepResult};

/// Ranges of the key space accesses are counted in when the model has no
/// key ranges of its own.
const EVEN_RANGES: u64 = 10;

struct Ctx<'a> {
    plan: &'a StepPlan,
    model: Mixgraph,
    keyspace: KeySpace,
    step_index: u64,
    /// Accesses are counted per `range_width` keys, in `ranges` ranges.
    range_width: u64,
    ranges: usize,
    /// `--trace`: where the clients' calls are recorded.
    recording: Option<&'a TraceFile>,
}

/// What one client counted besides its timings.
struct Counts {
    ranges: Vec<u64>,
    /// Draws per value size (puts) and per scan length (seeks).
    value_sizes: Vec<u64>,
    scan_lengths: Vec<u64>,
    gets_found: u64,
    gets_not_found: u64,
    seeks_not_found: u64,
    logical_bytes_written: u64,
}

impl Counts {
    /// Nothing counted yet, over the step's ranges and the model's sizes.
    fn new(cx: &Ctx<'_>) -> Counts {
        Counts {
            ranges: vec![0; cx.ranges],
            value_sizes: vec![0; cx.model.value_max() as usize + 1],
            scan_lengths: vec![0; cx.plan.settings.mixgraph.mix_max_scan_len as usize],
            gets_found: 0,
            gets_not_found: 0,
            seeks_not_found: 0,
            logical_bytes_written: 0,
        }
    }

    /// Add another client's counts.
    fn add(&mut self, c: &Counts) {
        let sum = |into: &mut Vec<u64>, from: &[u64]| into.iter_mut().zip(from).for_each(|(a, b)| *a += b);
        sum(&mut self.ranges, &c.ranges);
        sum(&mut self.value_sizes, &c.value_sizes);
        sum(&mut self.scan_lengths, &c.scan_lengths);
        self.gets_found += c.gets_found;
        self.gets_not_found += c.gets_not_found;
        self.seeks_not_found += c.seeks_not_found;
        self.logical_bytes_written += c.logical_bytes_written;
    }
}

struct ThreadOut {
    ops: Vec<FinishedOp>,
    end_ns: u64,
    counts: Counts,
    written: KeyBitmap,
}

fn client(cx: &Ctx<'_>, t: &Thread<'_>, session: &mut dyn Session) -> Result<ThreadOut> {
    let mut slot = None;
    let session = super::trace::traced(t, cx.recording, t.index as u32, session, &mut slot);
    let s = &cx.plan.settings;
    let model = &cx.model;
    let ks = cx.keyspace;
    let thread = s.global_thread(t.index);
    let stride = s.global_threads();
    let mut rng = Rng::new(stream_seed(s.seed, &[cx.step_index, thread, 0]));
    let mut values = ValueGen::new(
        model.value_max() as usize,
        s.compression_ratio,
        stream_seed(s.seed, &[cx.step_index, thread, 7]),
    );
    let mut keybuf = ks.keybuf(s.key_size);
    let mut recs: Vec<OpRecorder<'_>> = Query::ALL.iter().map(|q| t.quiet_recorder(q.name())).collect();
    // Paced by the sine, or at --rate (the plan allows one of them).
    let mut schedule = s
        .mixgraph
        .sine_mix_rate
        .then(|| SineSchedule::new(&s.mixgraph, stride, stream_seed(s.seed, &[cx.step_index, thread, 11])));
    let mut steady = s.client_calls_per_s(1).map(Pacer::new);
    if schedule.is_some() || steady.is_some() {
        pacer::set_precise_timer_slack();
    }
    let mut counts = Counts::new(cx);
    let mut written = KeyBitmap::default();
    let start = t.start_instant();
    let timer = t.timer();
    let deadline = t.deadline_ns();
    let total = s.ops;
    let mut last = timer.now_ns();
    let mut g = thread;
    let mut calls = 0u64;
    while total.is_none_or(|n| g < n) && !t.should_stop() {
        let planned = match (&mut schedule, &mut steady) {
            (Some(sch), _) => Some(sch.next_intended()),
            (None, Some(p)) => Some(p.next_intended()),
            (None, None) => None,
        };
        if let Some(at) = planned {
            if deadline.is_some_and(|d| at >= d) || !Pacer::wait_until(start, at, || !t.should_stop()) {
                break;
            }
            t.set_intended(at);
        }
        let intended = planned;
        let d = model.draw(rng.next_u64());
        let key = keybuf.encode(ks.id(d.key));
        let began = timer.now_ns();
        let found = match d.query {
            Query::Get => session.get(key),
            Query::Put => session.put(key, values.next_sized(d.size as usize)).map(|()| true),
            // db_bench seeks, then visits up to scan-length entries; a length
            // of 0 still reads the entry the seek lands on (its key compare).
            Query::Seek => session.scan(key, false, (d.size as usize).max(1), &mut |_, _| true).map(|n| n > 0),
        };
        let Some(found) = t.ok(found) else { break };
        let now = timer.now_ns();
        let latency = match intended {
            Some(at) => now - at.min(began),
            None => now - last,
        };
        let r = &mut recs[d.query as usize];
        r.rec.record(now, latency);
        r.outcomes.not_found += !found as u64;
        counts.ranges[((d.key / cx.range_width) as usize).min(cx.ranges - 1)] += 1;
        match d.query {
            Query::Get if found => counts.gets_found += 1,
            Query::Get => counts.gets_not_found += 1,
            Query::Put => {
                written.set(d.key);
                counts.value_sizes[d.size as usize] += 1;
                counts.logical_bytes_written += s.key_size as u64 + d.size;
            }
            Query::Seek => {
                counts.scan_lengths[d.size as usize] += 1;
                counts.seeks_not_found += !found as u64;
            }
        }
        last = now;
        calls += 1;
        if calls & 0x3ff == 0 {
            if let Some(p) = t.progress {
                p.0.store(calls, std::sync::atomic::Ordering::Relaxed);
            }
        }
        if deadline.is_some_and(|dl| now >= dl) {
            break;
        }
        g += stride;
    }
    let ops = recs.into_iter().filter(|r| r.rec.ops() > 0).map(OpRecorder::finish).collect();
    Ok(ThreadOut { ops, end_ns: last, counts, written })
}

/// The rate the sine schedule paces second `second` at, ops/s over all
/// clients: the mean over the second of each interval's rate (without
/// db_bench's noise, which is drawn per client).
fn target_rate(p: &MixgraphParams, second: u64) -> f64 {
    const SAMPLES: u64 = 20;
    let interval_s = p.sine_mix_rate_interval_milliseconds as f64 / 1e3;
    (0..SAMPLES)
        .map(|i| {
            let t = second as f64 + i as f64 / SAMPLES as f64;
            p.sine_rate((t / interval_s).floor() * interval_s)
        })
        .sum::<f64>()
        / SAMPLES as f64
}

/// Run a mixgraph step.
pub fn run_mixgraph_step(
    engine: &dyn Engine,
    plan: &StepPlan,
    step_index: usize,
    keyspace: KeySpace,
    recording: Option<&TraceFile>,
    mut result: StepResult,
) -> (StepResult, ClientWork) {
    let s = &plan.settings;
    let p = &s.mixgraph;
    let model = match Mixgraph::new(p, s.num) {
        Ok(m) => m,
        Err(e) => {
            // The plan checked the parameters: this is a bug, said as such.
            result.status = Status::Failed;
            result.error = Some(format!("mixgraph: {e}"));
            return (result, ClientWork::default());
        }
    };
    let (range_width, ranges) = match model.key_ranges() {
        Some(kr) => (kr.keys_per_range().max(1), p.keyrange_num as usize),
        None => (s.num.div_ceil(EVEN_RANGES).max(1), EVEN_RANGES.min(s.num) as usize),
    };
    let model_range_shares = model.key_ranges().map(|kr| kr.shares());
    let cx = Ctx { plan, model, keyspace, step_index: step_index as u64, range_width, ranges, recording };
    let label = plan.kind.to_string();
    let joined = driver::run(
        s.threads,
        0,
        s.seconds,
        Progress { label: &label, total_ops: s.ops, seconds: s.seconds },
        |_, i| engine.session_for(i),
        |t, mut session| client(&cx, t, session.as_mut()),
        || {},
    );
    joined.stamp(&mut result);
    let wall_ns = driver::wall_ns(joined.clients.iter().map(|o| o.end_ns));
    let wall_s = wall_ns as f64 / 1e9;
    let intervals = driver::intervals(wall_ns);

    let mut work = ClientWork::default();
    let mut total = Counts::new(&cx);
    let mut ops = Vec::new();
    for o in joined.clients {
        total.add(&o.counts);
        work.written.union_with(&o.written);
        ops.push(o.ops);
    }
    let mut by_type = driver::merge_ops(ops, intervals);
    by_type.sort_by_key(|o| Query::ALL.iter().position(|q| q.name() == o.op));
    result.ops_by_type = by_type;
    let count = |q: Query| result.ops_by_type.iter().find(|o| o.op == q.name()).map_or(0, |o| o.ops);
    let (gets, puts, seeks) = (count(Query::Get), count(Query::Put), count(Query::Seek));
    result.ops = gets + puts + seeks;
    result.wall_s = Some(wall_s);
    result.ops_s = Some(result.ops as f64 / wall_s);
    // Values vary in size and gets do not return theirs: no logical MB/s.
    result.mb_s = None;
    if gets > 0 {
        result.reads = Some(ReadCounts { found: total.gets_found, not_found: total.gets_not_found });
    }
    work.queries = gets + seeks;
    work.writes = puts;
    work.commits = puts;
    work.logical_bytes_written = total.logical_bytes_written;
    work.writer_threads = if puts > 0 { s.threads as u64 } else { 0 };

    let mut target_ops_s = Vec::new();
    if p.sine_mix_rate {
        let seconds = wall_s.ceil() as u64;
        target_ops_s = (0..seconds).map(|sec| target_rate(p, sec)).collect();
        let full = wall_s.floor() as u64;
        let planned: f64 =
            (0..full).map(|sec| target_rate(p, sec)).sum::<f64>() + (wall_s - full as f64) * target_rate(p, full);
        let achieved = result.ops as f64;
        result.notes.push(format!(
            "paced open-loop at the sine rate ({:.0} ops/s planned on average), latency from each operation's intended start",
            planned / wall_s.max(1e-9)
        ));
        if result.status != Status::Failed && pacer::missed_rate(planned, achieved) {
            result.warnings.push(format!(
                "mixgraph missed its sine rate: {achieved:.0} of {planned:.0} planned operations ({:.1}%): the engine could not keep up, and the latencies count the queueing",
                100.0 * achieved / planned.max(1.0)
            ));
        }
    }
    if let Some(rate) = s.rate {
        super::dbbench::paced_note(&mut result, rate);
    }
    let given_ranges =
        [p.keyrange_dist_a, p.keyrange_dist_b, p.keyrange_dist_c, p.keyrange_dist_d].iter().any(|&x| x != 0.0);
    if given_ranges && !p.uses_key_ranges() {
        result.notes.push(
            "keyrange_dist_* given without key_dist_a and key_dist_b: as in db_bench, keys were drawn uniformly and the key ranges ignored".into(),
        );
    }
    result.mixgraph = Some(MixgraphStats {
        params: p.to_text(),
        key_range_accesses: total.ranges,
        keys_per_range: range_width,
        model_range_shares,
        value_sizes: SizeHistogram::from_counts(&total.value_sizes),
        scan_lengths: SizeHistogram::from_counts(&total.scan_lengths),
        seeks_not_found: total.seeks_not_found,
        target_ops_s,
    });
    driver::settle_status(&mut result, &joined.errors);
    (result, work)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_rate_is_the_mean_of_the_seconds_intervals() {
        let p = MixgraphParams::parse(
            "sine_mix_rate=true,sine_a=100,sine_b=1,sine_d=1000,sine_mix_rate_interval_milliseconds=500",
        )
        .unwrap();
        // Second 1 holds the intervals starting at 1.0 s and 1.5 s.
        let want = (p.sine_rate(1.0) + p.sine_rate(1.5)) / 2.0;
        assert!((target_rate(&p, 1) - want).abs() < 1e-9);
        let p =
            MixgraphParams::parse("sine_mix_rate=true,sine_d=500,sine_mix_rate_interval_milliseconds=10000").unwrap();
        assert!((target_rate(&p, 12) - p.sine_rate(10.0)).abs() < 1e-9);
    }
}
