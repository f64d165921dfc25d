//! Running one insert-benchmark step: the client threads (and the q steps'
//! background writers), each with its own table session and its own
//! `Recorder`s, merged after the step as the runner merges db_bench-style
//! steps. Tables contain no timing code: every call is timed here.
//!
//! Timing follows src/runner/exec.rs: a closed-loop call's response time is
//! the time since the same thread's previous call ended (row generation
//! included, nothing between calls missed); a paced writer's is measured
//! from the commit's intended start (queueing behind a stall counts), with
//! the service time kept beside it.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use anyhow::Result;

use super::table::{Table, TableSession};
use super::{query_step, rows_per_commit, Index, Row, RowGen, LI0_ROWS_PER_COMMIT, WRITER_ROWS_PER_COMMIT};
use crate::datagen::rng::{stream_seed, Rng};
use crate::driver::stop::stop_requested;
use crate::driver::{self, pacer, FinishedOp, Progress, Role, Thread};
use crate::measure::{merge, new_histogram, LatencySummary, Recorder};
use crate::plan::steps::StepKind;
use crate::plan::StepPlan;
use crate::result::{IbenchStepInfo, OpResult, StepResult, WriterResult};

/// Ids of one table: rows `min_live..next_id` exist (inserted and not deleted).
#[derive(Debug)]
pub struct TableState {
    /// The next id to insert (ids start at 1 and grow: inserts go to the head).
    pub next_id: AtomicU64,
    /// The lowest id not deleted (deletes take ids from the tail).
    pub min_live: AtomicU64,
}

impl TableState {
    fn new() -> TableState {
        TableState { next_id: AtomicU64::new(1), min_live: AtomicU64::new(1) }
    }

    /// Rows the table should hold.
    pub fn live(&self) -> u64 {
        self.next_id.load(Ordering::Relaxed).saturating_sub(self.min_live.load(Ordering::Relaxed))
    }

    /// Claim the `n` oldest ids for deletion, unless that would reach ids
    /// within `slack` of `head` (the start of the caller's own insert, whose
    /// neighbours other clients of a shared table may not have committed yet).
    fn claim_delete(&self, n: u64, head: u64, slack: u64) -> Option<Range<u64>> {
        let mut lo = self.min_live.load(Ordering::Relaxed);
        loop {
            if lo + n + slack > head {
                return None;
            }
            match self.min_live.compare_exchange_weak(lo, lo + n, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(lo..lo + n),
                Err(now) => lo = now,
            }
        }
    }
}

/// What the steps of one config share: the tables' ids and what exists.
pub struct IbenchState {
    pub tables: Vec<TableState>,
    /// l.i0 has run.
    pub loaded: bool,
    /// The secondary indexes exist.
    pub indexed: bool,
    pub rows: RowGen,
}

impl IbenchState {
    pub fn new(tables: u32, rows: RowGen) -> IbenchState {
        IbenchState { tables: (0..tables).map(|_| TableState::new()).collect(), loaded: false, indexed: false, rows }
    }

    pub fn expected_rows(&self) -> u64 {
        self.tables.iter().map(|t| t.live()).sum()
    }
}

/// What a step did, beyond its timings: input to the step's metrics.
#[derive(Debug, Default, Clone)]
pub struct Work {
    /// The operations the step's rate counts: rows inserted (load steps),
    /// rows indexed (l.x) or queries (q steps).
    pub main_ops: u64,
    pub rows_inserted: u64,
    pub rows_deleted: u64,
    pub queries: u64,
    pub rows_returned: u64,
    pub commits: u64,
    pub logical_bytes_written: u64,
    /// Threads that wrote concurrently.
    pub writer_threads: u64,
}

const ROLE_CLIENT: u64 = 0;

/// What the threads of one step share.
struct Ctx<'a> {
    plan: &'a StepPlan,
    step_index: u64,
    state: &'a IbenchState,
}

impl Ctx<'_> {
    fn clients(&self) -> usize {
        self.plan.settings.threads
    }
    /// The table client `t` uses.
    fn table_of(&self, t: usize) -> u32 {
        if self.plan.settings.ibench.one_table {
            0
        } else {
            t as u32
        }
    }
    /// Clients sharing one table.
    fn sharers(&self) -> u64 {
        if self.plan.settings.ibench.one_table {
            self.clients() as u64
        } else {
            1
        }
    }
    fn rng(&self, thread: usize, role: u64) -> Rng {
        // A shard's thread is seeded as the thread of all shards' it is.
        Rng::new(stream_seed(
            self.plan.settings.seed,
            &[self.step_index, self.plan.settings.global_thread(thread), role, 0x1b],
        ))
    }
}

/// What a client or writer thread brings back.
#[derive(Default)]
struct ThreadOut {
    ops: Vec<FinishedOp>,
    end_ns: u64,
    rows_inserted: u64,
    rows_deleted: u64,
    queries: u64,
    rows_returned: u64,
    commits: u64,
    logical_bytes: u64,
    /// Writers: service times (actual start to end) of their commits.
    service: Option<Histogram<u64>>,
}

/// Test hook: `RUMBENCH_IBENCH_FAULT=panic@<step>` makes client 0 panic
/// after its first call in that step (`error@<step>`: fail with an error),
/// to test that servers are stopped when a client panics or a step fails.
fn fault_injected(step: StepKind) -> Option<&'static str> {
    static FAULT: OnceLock<Option<String>> = OnceLock::new();
    let (how, at) = FAULT.get_or_init(|| std::env::var("RUMBENCH_IBENCH_FAULT").ok()).as_deref()?.split_once('@')?;
    (at == step.name()).then_some(match how {
        "panic" => "panic",
        _ => "error",
    })
}

/// Panic or fail here when the test hook asks for it in this step.
fn inject_fault(kind: StepKind) -> Result<()> {
    match fault_injected(kind) {
        Some("panic") => panic!("fault injected by RUMBENCH_IBENCH_FAULT in {kind}"),
        Some(_) => anyhow::bail!("fault injected by RUMBENCH_IBENCH_FAULT in {kind}"),
        None => Ok(()),
    }
}

/// Insert `n` rows at the head of table `tno`, deleting as many from the
/// tail when asked; returns (rows deleted, delete asked).
fn insert_commit(
    ctx: &Ctx<'_>,
    session: &mut dyn TableSession,
    tno: u32,
    n: u64,
    deletes: bool,
    rows: &mut Vec<Row>,
) -> Result<(u64, bool)> {
    let ts = &ctx.state.tables[tno as usize];
    let first = ts.next_id.fetch_add(n, Ordering::Relaxed);
    ctx.state.rows.fill_range(tno, first..first + n, rows);
    let slack = (ctx.sharers() - 1) * n * 4;
    let delete = if deletes { ts.claim_delete(n, first, slack) } else { None };
    let asked = delete.is_some();
    let deleted = session.insert_rows(tno, rows, delete)?;
    Ok((deleted, asked))
}

/// A load step's client: `total` rows in commits of `batch`.
fn insert_client(ctx: &Ctx<'_>, th: &Thread<'_>, session: &mut dyn TableSession) -> Result<ThreadOut> {
    let t = th.index;
    let kind = ctx.plan.kind;
    let s = &ctx.plan.settings;
    let batch = rows_per_commit(kind).unwrap_or(LI0_ROWS_PER_COMMIT) as u64;
    let total = if kind == StepKind::LoadI0 { s.ibench.rows } else { s.ibench.insert_rows };
    let deletes = s.ibench.deletes && kind != StepKind::LoadI0;
    let tno = ctx.table_of(t);
    let mut ins = th.recorder("insert");
    let mut del = th.quiet_recorder("delete");
    let mut rows: Vec<Row> = Vec::with_capacity(batch as usize);
    let mut out = ThreadOut::default();
    let mut last = th.now_ns();
    let mut done = 0u64;
    while done < total && !th.should_stop() {
        let n = batch.min(total - done);
        let Some((deleted, asked)) = th.ok(insert_commit(ctx, session, tno, n, deletes, &mut rows)) else { break };
        let now = th.now_ns();
        ins.rec.record_n(now, now - last, n);
        if asked {
            del.rec.record_n(now, now - last, deleted);
        }
        last = now;
        done += n;
        out.rows_deleted += deleted;
        out.commits += 1;
        out.logical_bytes += rows.iter().map(Row::logical_bytes).sum::<u64>();
        if t == 0 && th.ok(inject_fault(kind)).is_none() {
            break;
        }
    }
    out.rows_inserted = done;
    out.end_ns = last;
    out.ops.push(ins.finish());
    if deletes {
        out.ops.push(del.finish());
    }
    Ok(out)
}

/// l.x's client: the secondary indexes of its table (one call, timed).
fn index_client(ctx: &Ctx<'_>, th: &Thread<'_>, session: &mut dyn TableSession) -> Result<ThreadOut> {
    let t = th.index;
    let mut out = ThreadOut::default();
    let mut op = th.recorder("create_index");
    let owns_table = !ctx.plan.settings.ibench.one_table || t == 0;
    if owns_table && !th.should_stop() {
        let rows = ctx.state.tables[t].live();
        session.create_secondary_indexes(t as u32)?;
        let now = th.now_ns();
        op.rec.record_n(now, now, rows);
        out.end_ns = now;
        if t == 0 {
            inject_fault(ctx.plan.kind)?;
        }
    }
    out.ops.push(op.finish());
    Ok(out)
}

/// A q step's query client: closed loop for --query-seconds.
fn query_client(ctx: &Ctx<'_>, th: &Thread<'_>, session: &mut dyn TableSession) -> Result<ThreadOut> {
    let t = th.index;
    let s = &ctx.plan.settings;
    let (range, _) = query_step(ctx.plan.kind).expect("a query step");
    let tno = ctx.table_of(t);
    let ts = &ctx.state.tables[tno as usize];
    let deadline = (s.ibench.query_seconds * 1e9) as u64;
    let mut rng = ctx.rng(t, ROLE_CLIENT);
    let mut op = th.recorder("query");
    let mut out = ThreadOut::default();
    let mut rows: Vec<Row> = Vec::with_capacity(s.range_len.max(s.multiget_batch));
    let mut ids: Vec<u64> = Vec::with_capacity(s.multiget_batch);
    let mut last = th.now_ns();
    let mut k = 0usize;
    while !th.should_stop() {
        let answered = if range {
            let ix = Index::ALL[k % Index::ALL.len()];
            let start = rng.below(ix.leading_domain()) as i32;
            session.range_query(tno, ix, start, s.range_len, &mut rows)
        } else {
            let lo = ts.min_live.load(Ordering::Relaxed);
            let hi = ts.next_id.load(Ordering::Relaxed).max(lo + 1);
            ids.clear();
            ids.extend((0..s.multiget_batch).map(|_| lo + rng.below(hi - lo)));
            session.point_query(tno, &ids, &mut rows)
        };
        if th.ok(answered).is_none() {
            break;
        }
        let now = th.now_ns();
        op.rec.record(now, now - last);
        last = now;
        out.rows_returned += rows.len() as u64;
        k += 1;
        if t == 0 && th.ok(inject_fault(ctx.plan.kind)).is_none() {
            break;
        }
        if now >= deadline {
            break;
        }
    }
    out.queries = k as u64;
    out.end_ns = last;
    out.ops.push(op.finish());
    Ok(out)
}

/// A q step's background writer: commits of WRITER_ROWS_PER_COMMIT rows
/// paced smoothly at the step's rate until the query clients are done.
fn writer(ctx: &Ctx<'_>, th: &Thread<'_>, session: &mut dyn TableSession, rows_per_s: f64) -> Result<ThreadOut> {
    let deletes = ctx.plan.settings.ibench.deletes;
    let batch = WRITER_ROWS_PER_COMMIT as u64;
    let tno = ctx.table_of(th.index);
    let mut ins = th.recorder("insert");
    let mut del = th.quiet_recorder("delete");
    let mut service = new_histogram();
    let mut out = ThreadOut::default();
    let mut rows: Vec<Row> = Vec::with_capacity(batch as usize);
    let (mut inserted, mut deleted_rows, mut commits, mut logical) = (0u64, 0u64, 0u64, 0u64);
    out.end_ns = th.paced_loop(
        Some(rows_per_s / batch as f64),
        &mut service,
        || {
            let r = insert_commit(ctx, session, tno, batch, deletes, &mut rows)?;
            logical += rows.iter().map(Row::logical_bytes).sum::<u64>();
            Ok(r)
        },
        |end, response, (deleted, asked)| {
            ins.rec.record_n(end, response, batch);
            if asked {
                del.rec.record_n(end, response, deleted);
            }
            inserted += batch;
            deleted_rows += deleted;
            commits += 1;
        },
    )?;
    out.rows_inserted = inserted;
    out.rows_deleted = deleted_rows;
    out.commits = commits;
    out.logical_bytes = logical;
    out.ops.push(ins.finish());
    if deletes {
        out.ops.push(del.finish());
    }
    out.service = Some(service);
    Ok(out)
}

/// Run an insert-benchmark step against `table`. The caller has checked
/// that the step can run (data loaded, indexes there for range queries).
pub fn run_step(
    table: &dyn Table,
    plan: &StepPlan,
    step_index: usize,
    state: &IbenchState,
    mut result: StepResult,
) -> (StepResult, Work, IbenchStepInfo) {
    let kind = plan.kind;
    let s = &plan.settings;
    let clients = s.threads;
    let q = query_step(kind);
    let writers = if q.is_some() { clients } else { 0 };
    let ctx = Ctx { plan, step_index: step_index as u64, state };
    let total_ops = match (kind, q) {
        (_, Some(_)) | (StepKind::CreateIndexes, _) => None,
        (StepKind::LoadI0, _) => Some(s.ibench.rows * clients as u64),
        _ => Some(s.ibench.insert_rows * clients as u64),
    };
    let seconds = q.map(|_| s.ibench.query_seconds);
    let mut cancel_watch = CancelWatch::default();
    let joined = driver::run(
        clients,
        writers,
        None,
        Progress { label: kind.name(), total_ops, seconds },
        |_, _| table.session(),
        |th, mut session| match (th.role, q) {
            (Role::Background, Some((_, rate))) => writer(&ctx, th, session.as_mut(), rate),
            _ if kind == StepKind::CreateIndexes => index_client(&ctx, th, session.as_mut()),
            (_, Some(_)) => query_client(&ctx, th, session.as_mut()),
            _ => insert_client(&ctx, th, session.as_mut()),
        },
        || cancel_watch.poll(table),
    );
    joined.stamp(&mut result);
    let mut errors = joined.errors;
    let mut outs = joined.clients;
    let mut wouts = joined.background;
    let wall_ns = driver::wall_ns(outs.iter().map(|o| o.end_ns));
    let wall_s = wall_ns as f64 / 1e9;
    let intervals = driver::intervals(wall_ns);

    let mut work = Work { writer_threads: clients as u64, ..Default::default() };
    let mut info = IbenchStepInfo { rows_per_commit: rows_per_commit(kind), ..Default::default() };
    for o in outs.iter().chain(wouts.iter()) {
        work.rows_inserted += o.rows_inserted;
        work.rows_deleted += o.rows_deleted;
        work.queries += o.queries;
        work.rows_returned += o.rows_returned;
        work.commits += o.commits;
        work.logical_bytes_written += o.logical_bytes;
    }
    result.ops_by_type = driver::merge_ops(outs.iter_mut().map(|o| std::mem::take(&mut o.ops)), intervals);
    result.ops = result.ops_by_type.first().map(|o| o.ops).unwrap_or(0);
    work.main_ops = result.ops;
    result.wall_s = Some(wall_s);
    result.ops_s = Some(result.ops as f64 / wall_s);
    result.mb_s = Some(work.logical_bytes_written as f64 / wall_s / 1048576.0);

    if let Some((_, rate)) = q {
        let writer_rows: u64 = wouts.iter().map(|w| w.rows_inserted).sum();
        // A writer that kept up made its k commits at 0, I, ..., (k-1)I: it
        // covered k intervals I. One that fell behind ended later than that.
        let interval_ns = 1e9 * WRITER_ROWS_PER_COMMIT as f64 / rate;
        let achieved_each: Vec<f64> = wouts
            .iter()
            .map(|w| {
                let covered_ns = (w.end_ns as f64).max(w.commits as f64 * interval_ns).max(1.0);
                w.rows_inserted as f64 / (covered_ns / 1e9)
            })
            .collect();
        let achieved: f64 = achieved_each.iter().sum();
        let target = rate * writers as f64;
        let min_each = achieved_each.iter().copied().fold(f64::INFINITY, f64::min);
        let missed = pacer::missed_rate(target, achieved) || achieved_each.iter().any(|&a| pacer::missed_rate(rate, a));
        let mut service = new_histogram();
        for w in &wouts {
            if let Some(h) = &w.service {
                service.add(h).expect("same histogram bounds");
            }
        }
        let mut ops = driver::merge_ops(wouts.iter_mut().map(|o| std::mem::take(&mut o.ops)), intervals);
        let deletes = ops.iter().position(|o| o.op == "delete").map(|i| ops.remove(i));
        let inserts = ops.into_iter().next().unwrap_or(OpResult {
            op: "insert".into(),
            ops: 0,
            latency: LatencySummary::default(),
            intervals: Vec::new(),
            outcomes: None,
            histogram: None,
        });
        if missed {
            result.notes.push(format!(
                "background writers missed their target: {achieved:.0} of {target:.0} rows/s ({:.1}%), slowest writer {min_each:.0} of {rate:.0} rows/s",
                100.0 * achieved / target
            ));
        }
        result.writer = Some(WriterResult {
            target_ops_s: Some(target),
            achieved_ops_s: achieved,
            ops: writer_rows,
            missed_target: missed,
            latency: inserts,
            service_time: LatencySummary::from_histogram(&service),
            deletes,
        });
        info.rows_per_commit = Some(WRITER_ROWS_PER_COMMIT);
        info.writer_target_per_client = Some(rate);
        info.writer_min_achieved = min_each.is_finite().then_some(min_each);
    }
    info.rows_inserted = work.rows_inserted;
    info.rows_deleted = work.rows_deleted;
    info.queries = work.queries;
    info.rows_returned = work.rows_returned;

    // l.i2 ends with the settle phase, timed on its own.
    if kind == StepKind::LoadI2 && errors.is_empty() && !stop_requested() {
        let tables = state.tables.len() as u32;
        let timeout = Duration::from_secs_f64(s.compaction_timeout_s);
        // Timed on the thread that runs it, not to when the watcher sees it end.
        let (settled, took) = cancel_on_stop(table, || {
            let t0 = Instant::now();
            (table.settle(tables, timeout, &stop_requested), t0.elapsed())
        });
        match settled {
            Ok(notes) => {
                let ns = took.as_nanos() as u64;
                let mut rec = Recorder::new(None);
                rec.record(ns, ns);
                let m = merge(vec![rec.finish()], ns.div_ceil(1_000_000_000) as u32);
                result.ops_by_type.push(OpResult::measured("settle", &m, None));
                info.settle_s = Some(ns as f64 / 1e9);
                info.settle = notes;
            }
            Err(e) => errors.push(e.context("settle")),
        }
    }

    // Errors after a stop come from the statements it cancelled.
    crate::driver::settle_status(&mut result, &errors);
    (result, work, info)
}

/// After Ctrl-C, give the calls in flight a second, then cancel them on the
/// server (an index build or a VACUUM can take minutes).
#[derive(Default)]
struct CancelWatch {
    stop_seen: Option<Instant>,
    cancelled: bool,
}

impl CancelWatch {
    fn poll(&mut self, table: &dyn Table) {
        if stop_requested() {
            let seen = *self.stop_seen.get_or_insert_with(Instant::now);
            if !self.cancelled && seen.elapsed() >= Duration::from_secs(1) {
                table.cancel_running();
                self.cancelled = true;
            }
        }
    }
}

/// Run `f` (a long call into `table`) on its own thread while this one
/// cancels it on the server after Ctrl-C.
fn cancel_on_stop<T: Send>(table: &dyn Table, f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let h = scope.spawn(f);
        let mut watch = CancelWatch::default();
        while !h.is_finished() {
            watch.poll(table);
            std::thread::sleep(Duration::from_millis(50));
        }
        h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deletes_take_the_tail_and_never_reach_the_head() {
        let ts = TableState::new();
        ts.next_id.store(101, Ordering::Relaxed);
        assert_eq!(ts.live(), 100);
        assert_eq!(ts.claim_delete(10, 101, 0), Some(1..11));
        assert_eq!(ts.claim_delete(10, 101, 0), Some(11..21));
        assert_eq!(ts.live(), 80);
        // Not into the caller's own insert, nor within the slack of it.
        assert_eq!(ts.claim_delete(50, 60, 20), None);
        assert_eq!(ts.claim_delete(80, 101, 0), Some(21..101));
        assert_eq!(ts.claim_delete(1, 101, 0), None);
    }
}
