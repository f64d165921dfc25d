//! YCSB's core workloads (workloads.md, "YCSB core workloads"): ycsb-load
//! inserts the records, ycsb-a .. ycsb-f run YCSB's operation mixes on
//! them, with CoreWorkload's semantics (see `crate::datagen::ycsb`): records of `field_count`
//! fields of `field_length` bytes under keys "user" + FNV-1a hash of the
//! record number; reads of all fields, updates of one field (all with
//! `write_all_fields`), inserts taking the next record number, scans of
//! 1..max_scan_length records, read-modify-writes timed as one operation.
//!
//! Unlike YCSB every stream is seeded: with one client thread the same seed
//! gives the same operations on every backend.
//!
//! A backend binding is a [`Store`]: `kv` (any key-value engine: one value of
//! the concatenated fields per key, updates read-modify-write as YCSB's
//! RocksDB binding does), `postgres` and `mariadb` (table usertable with
//! YCSB_KEY and FIELD0.., prepared statements, one connection per client
//! thread, scans ORDER BY the key, as YCSB's JDBC binding), `mongodb`
//! (collection usertable, as YCSB's mongodb binding).

pub mod kv;
pub mod mariadb;
pub mod mongodb;
pub mod postgres;

use anyhow::{bail, Context, Result};

use crate::datagen::rng::{mix64, stream_seed};
use crate::datagen::ycsb::{self as gen, InsertSequence, KeyChooser, KeyName, RequestDistribution};
use crate::datagen::Rng;
use crate::driver::{self, FinishedOp, OpRecorder, Progress, Thread};
use crate::plan::steps::StepKind;
use crate::plan::{StepPlan, YcsbSettings};
use crate::result::{Status, StepResult};

/// The table YCSB's JDBC binding uses, and rumbench's YCSB table on servers.
pub const TABLE: &str = "usertable";

/// A backend as YCSB's DB interface sees it.
pub trait Store: Send + Sync {
    /// Create the (empty) table, replacing rumbench's own earlier one.
    fn create(&self) -> Result<()>;
    /// A session (connection) for one client thread.
    fn session(&self) -> Result<Box<dyn StoreSession + '_>>;
    /// The columns of an existing `usertable`, in order (empty: there is no
    /// such table); None where records are values, not rows (key-value engines).
    fn columns(&self) -> Result<Option<Vec<String>>> {
        Ok(None)
    }
    /// Where the records are, for messages.
    fn place(&self) -> String;
    /// Other processes (shards) use the same records: a server rumbench did not start.
    fn shared(&self) -> bool {
        false
    }
    /// ycsb-load sends `--batch-size` records in one call (MongoDB's unordered
    /// insertMany, as YCSB's mongodb binding with `batchsize`). Elsewhere the
    /// load inserts one record per call whatever --batch-size says (a
    /// db_bench write-batch setting), so its latencies stay per insert.
    fn batches_inserts(&self) -> bool {
        false
    }
}

/// One client thread's connection. A record is its fields concatenated
/// (`field_count` x `field_length` bytes).
pub trait StoreSession {
    fn insert(&mut self, key: &[u8], record: &[u8]) -> Result<()>;
    /// Insert these (key, record) pairs in one call, where the store
    /// `batches_inserts` (ycsb-load's `--batch-size`).
    fn insert_batch(&mut self, records: &[(&[u8], &[u8])]) -> Result<()> {
        records.iter().try_for_each(|(k, r)| self.insert(k, r))
    }
    /// Read every field of `key` into `out`; false when there is no such record.
    fn read(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool>;
    /// Write these fields (index, value) of `key`; false when there is no such record.
    fn update(&mut self, key: &[u8], fields: &[(usize, &[u8])]) -> Result<bool>;
    /// Read up to `count` records from the first key >= `start`, in key
    /// order; returns how many there were.
    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize>;
}

/// An operation of YCSB's mix, in the order of YCSB's DiscreteGenerator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Read, Op::Update, Op::Insert, Op::Scan, Op::ReadModifyWrite];

    /// As YCSB names it in its output.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "READ",
            Op::Update => "UPDATE",
            Op::Insert => "INSERT",
            Op::Scan => "SCAN",
            Op::ReadModifyWrite => "READ-MODIFY-WRITE",
        }
    }
}

/// The proportions of workloads A-F (YCSB's workloads/workload[a-f]), in `Op::ALL` order.
pub fn proportions(kind: StepKind) -> [f64; 5] {
    match kind {
        StepKind::YcsbA => [0.5, 0.5, 0.0, 0.0, 0.0],
        StepKind::YcsbB => [0.95, 0.05, 0.0, 0.0, 0.0],
        StepKind::YcsbC => [1.0, 0.0, 0.0, 0.0, 0.0],
        StepKind::YcsbD => [0.95, 0.0, 0.05, 0.0, 0.0],
        StepKind::YcsbE => [0.0, 0.0, 0.05, 0.95, 0.0],
        StepKind::YcsbF => [0.5, 0.0, 0.0, 0.0, 0.5],
        _ => [0.0, 0.0, 1.0, 0.0, 0.0],
    }
}

/// The request distribution of a workload: the user's, else YCSB's
/// (latest for D, zipfian for the others).
pub fn distribution(kind: StepKind, s: &YcsbSettings) -> RequestDistribution {
    s.request_distribution.unwrap_or(if kind == StepKind::YcsbD {
        RequestDistribution::Latest(gen::YCSB_THETA)
    } else {
        RequestDistribution::Zipfian(gen::YCSB_THETA)
    })
}

/// What the steps of one config share: the records inserted so far.
pub struct YcsbState {
    pub inserts: InsertSequence,
    pub loaded: bool,
    /// The records loaded (0..base); the inserts' sequence starts there.
    pub base: u64,
}

impl YcsbState {
    pub fn new() -> YcsbState {
        YcsbState { inserts: InsertSequence::new(0), loaded: false, base: 0 }
    }

    /// Records 0..records loaded before this run: inserts continue after them.
    pub fn existing(records: u64) -> YcsbState {
        YcsbState { inserts: InsertSequence::new(records), loaded: true, base: records }
    }
}

/// The record number of this shard's `n`: the loaded records are every
/// shard's, and the run's inserts are numbered apart per shard (shard I of
/// N takes base + k*N + I), so that shards never insert the same record.
/// Requests draw from the loaded records and this shard's own inserts (the
/// only inserts this process knows were acknowledged).
#[inline]
pub fn shard_record(n: u64, base: u64, shard: crate::plan::shard::Shard) -> u64 {
    if n < base || shard.count == 1 {
        n
    } else {
        base + (n - base) * shard.count as u64 + shard.index as u64
    }
}

/// Record numbers beyond this are not a load's (rumbench loads at most 2^34).
const MAX_EXISTING: u64 = 1 << 40;

/// Records loaded before this run (by ycsb-load with --keep-db, or by YCSB
/// itself), checked before any step: a table of YCSB's shape (YCSB_KEY,
/// FIELD0..FIELDn-1) or values of the record length, keys of `y`'s insert
/// order, and records 0..count. Returns the count, found by looking up
/// record numbers (a load inserts every number below its record count; the
/// keys are hashed, so the highest cannot be read off them).
pub fn existing_records(store: &dyn Store, y: &YcsbSettings) -> Result<u64> {
    let place = store.place();
    if let Some(columns) = store.columns()? {
        if columns.is_empty() {
            bail!("{place} has no table {TABLE} to run YCSB's workloads on: load it first (ycsb-load with --keep-db, or YCSB's load)");
        }
        let want: Vec<String> =
            std::iter::once("ycsb_key".to_string()).chain((0..y.field_count).map(|i| format!("field{i}"))).collect();
        let mut have: Vec<String> = columns.iter().map(|c| c.to_lowercase()).collect();
        have.sort();
        let mut sorted = want.clone();
        sorted.sort();
        if have != sorted {
            bail!(
                "table {TABLE} in {place} is not YCSB's records: its columns are {}, YCSB's are YCSB_KEY, FIELD0..FIELD{} (--field-count {})",
                columns.join(", "),
                y.field_count - 1,
                y.field_count
            );
        }
    }
    let mut session = store.session()?;
    let mut key = KeyName::new();
    let mut record = Vec::new();
    let mut exists =
        |n: u64, record: &mut Vec<u8>| -> Result<bool> { session.read(key.build(n, y.ordered_inserts), record) };
    if !exists(0, &mut record)? {
        let k = String::from_utf8_lossy(KeyName::new().build(0, y.ordered_inserts)).to_string();
        bail!(
            "{place} holds no YCSB record 0 (key {k}): load the records first (ycsb-load with --keep-db, or YCSB's load){}",
            if y.ordered_inserts { "" } else { ", or give the --insert-order they were loaded with" }
        );
    }
    // Values are records on key-value engines (rows have columns, checked above).
    let record_len = y.field_count * y.field_length;
    if !record.is_empty() && record.len() != record_len {
        bail!(
            "record 0 in {place} is {} bytes, not --field-count x --field-length = {record_len}: give the shape the records were loaded with",
            record.len()
        );
    }
    // Records 0..count exist: double up to a missing number, then halve the gap.
    let (mut present, mut missing) = (0u64, 1u64);
    while exists(missing, &mut record)? {
        present = missing;
        missing *= 2;
        if missing > MAX_EXISTING {
            bail!("{place} holds YCSB record {present}: more than a load's records (at most {MAX_EXISTING})");
        }
    }
    while missing - present > 1 {
        let mid = present + (missing - present) / 2;
        if exists(mid, &mut record)? {
            present = mid;
        } else {
            missing = mid;
        }
    }
    Ok(missing)
}

impl Default for YcsbState {
    fn default() -> Self {
        YcsbState::new()
    }
}

/// What a step did, beyond its timings: input to the step's metrics.
#[derive(Debug, Default, Clone)]
pub struct Work {
    pub queries: u64,
    pub writes: u64,
    pub logical_bytes_written: u64,
}

/// The fields of record `n` (deterministic: the same on every backend),
/// printable ASCII so SQL text columns take them as they are.
pub fn fill_record(seed: u64, n: u64, out: &mut [u8]) {
    fill_printable(&mut Rng::new(mix64(seed ^ mix64(n))), out);
}

/// Printable random bytes made once per client: an update's new field
/// values are a slice of it at a random offset, as db_bench's
/// RandomGenerator does, instead of 100 fresh random bytes per operation
/// (that cost a fifth of the client's time on the null engine).
struct FieldPool {
    bytes: Vec<u8>,
}

impl FieldPool {
    fn new(seed: u64, record_len: usize) -> FieldPool {
        let mut bytes = vec![0u8; (1 << 20).max(2 * record_len)];
        fill_printable(&mut Rng::new(seed), &mut bytes);
        FieldPool { bytes }
    }

    #[inline]
    fn slice(&self, rng: &mut Rng, len: usize) -> &[u8] {
        let at = rng.below((self.bytes.len() - len + 1) as u64) as usize;
        &self.bytes[at..at + len]
    }

    /// An update's own draws, in YCSB's order: the field (unless it writes
    /// all of them), then the values, into `fields`; their cache lines are
    /// asked for at once (see `prefetch`).
    #[inline]
    fn draw<'p>(&'p self, rng: &mut Rng, y: &YcsbSettings, fields: &mut Vec<(usize, &'p [u8])>) {
        fields.clear();
        if y.write_all_fields {
            let values = self.slice(rng, y.field_count * y.field_length);
            prefetch(values);
            fields.extend(values.chunks(y.field_length).enumerate());
        } else {
            let f = rng.below(y.field_count as u64) as usize;
            let values = self.slice(rng, y.field_length);
            prefetch(values);
            fields.push((f, values));
        }
    }
}

/// Ask the CPU to bring `bytes` into its cache before they are read (a
/// hint: nothing is read, no address faults). An update's values are a
/// random slice of a 1 MB pool, mostly not in the core's cache: fetched
/// while the record's key is built, they are no longer a stall in the
/// middle of the store's update (a tenth of a null-engine ycsb-a).
#[inline(always)]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = bytes.as_ptr() as *const i8;
        // Every 64th byte and the last one: each cache line the slice touches.
        // SAFETY: a prefetch reads nothing and never faults (SSE, which
        // every x86_64 CPU has); the addresses are inside `bytes` anyway.
        unsafe {
            let mut at = 0;
            while at < bytes.len() {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(at));
                at += 64;
            }
            if let Some(last) = bytes.len().checked_sub(1) {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(last));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

fn fill_printable(rng: &mut Rng, out: &mut [u8]) {
    for chunk in out.chunks_mut(8) {
        let r = rng.next_u64().to_le_bytes();
        for (b, x) in chunk.iter_mut().zip(r) {
            // 94 printable characters '!'..'~': a multiply and shift, not a division per byte.
            *b = b'!' + ((x as u16 * 94) >> 8) as u8;
        }
    }
}

/// What one client brings back.
#[derive(Default)]
struct ThreadOut {
    ops: Vec<FinishedOp>,
    end_ns: u64,
    work: Work,
}

/// Check that a step can run after the steps before it (at plan time).
pub fn precheck(kind: StepKind, loaded: bool) -> Option<String> {
    (kind != StepKind::YcsbLoad && !loaded).then(|| {
        format!("step {kind} runs on YCSB's records: put ycsb-load before it (e.g. --steps ycsb-load,{kind}), or run it on records loaded before with --use-existing-db or --target")
    })
}

/// The seed of thread `t`'s operation stream in step `index` (a shard's
/// thread seeded as the thread of all shards' it is).
fn thread_seed(plan: &StepPlan, index: usize, t: usize) -> u64 {
    stream_seed(plan.settings.seed, &[index as u64, plan.settings.global_thread(t), 0x5c5b])
}

/// Run a YCSB step against `store`.
pub fn run_step(
    store: &dyn Store,
    plan: &StepPlan,
    index: usize,
    state: &mut YcsbState,
    mut result: StepResult,
) -> (StepResult, Work) {
    let s = &plan.settings;
    let y = &s.ycsb;
    let kind = plan.kind;
    if kind == StepKind::YcsbLoad {
        // Shards of one server's load: shard 0 creates the table, the others load into it.
        let made = match s.shard() {
            shard if shard.index > 0 && store.shared() => wait_for_table(store, shard),
            _ => store.create().context("cannot create the YCSB table"),
        };
        if let Err(e) = made {
            // Stopped while waiting for shard 0: interrupted, not failed.
            result.status = if crate::driver::stop::stop_requested() { Status::Interrupted } else { Status::Failed };
            result.error = Some(format!("{e:#}"));
            return (result, Work::default());
        }
        state.inserts = InsertSequence::new(0);
    }
    if kind != StepKind::YcsbLoad && state.base > 0 {
        // Records loaded before the run: what the step ran on, not --records.
        result.settings.ycsb.records = state.base;
        result.parameters.insert("records".into(), serde_json::json!(state.base));
    }
    let threads = s.threads;
    let record_len = y.field_count * y.field_length;
    let total = if kind == StepKind::YcsbLoad { Some(y.records) } else { s.ops };
    let seconds = if kind == StepKind::YcsbLoad { None } else { s.seconds };
    let mix = proportions(kind);
    let dist = distribution(kind, y);
    let start_records = state.inserts.count();
    // Built once (zeta is O(records)); each thread takes a copy. YCSB's
    // operationcount: --ops, else (--seconds) the records.
    let chooser = (kind != StepKind::YcsbLoad)
        .then(|| KeyChooser::for_step(dist, start_records, total.unwrap_or(start_records), mix[2]));
    let inserts = &state.inserts;
    let base = state.base;
    let label = kind.to_string();
    let joined = driver::run(
        threads,
        0,
        seconds,
        Progress { label: &label, total_ops: total, seconds },
        |_, _| store.session(),
        |t, mut session| {
            if kind == StepKind::YcsbLoad {
                load_client(t, session.as_mut(), plan, record_len, store.batches_inserts())
            } else {
                let chooser = chooser.clone().expect("a chooser");
                run_client(t, session.as_mut(), plan, index, total, chooser, inserts, base)
            }
        },
        || {},
    );
    joined.stamp(&mut result);
    let wall_ns = driver::wall_ns(joined.clients.iter().map(|o| o.end_ns));
    let mut work = Work::default();
    let mut ops = Vec::new();
    for o in joined.clients {
        work.queries += o.work.queries;
        work.writes += o.work.writes;
        work.logical_bytes_written += o.work.logical_bytes_written;
        ops.push(o.ops);
    }
    result.ops_by_type = driver::merge_ops(ops, driver::intervals(wall_ns));
    // Keep YCSB's order of operation types (the threads' first appearances vary).
    // The workload's main operation first (the step's own row and charts
    // show it): by share of the mix, then in YCSB's order (E: SCAN, then INSERT).
    let mix = proportions(plan.kind);
    let rank = |name: &str| {
        let i = Op::ALL.iter().position(|op| op.name() == name).unwrap_or(Op::ALL.len());
        (std::cmp::Reverse((mix.get(i).copied().unwrap_or(0.0) * 1e6) as u64), i)
    };
    result.ops_by_type.sort_by_key(|o| rank(&o.op));
    let wall_s = wall_ns as f64 / 1e9;
    result.wall_s = Some(wall_s);
    result.ops = result.ops_by_type.iter().map(|o| o.ops).sum();
    result.ops_s = Some(result.ops as f64 / wall_s);
    result.mb_s = Some(work.logical_bytes_written as f64 / wall_s / (1 << 20) as f64);
    let not_found: u64 = result.ops_by_type.iter().filter_map(|o| o.outcomes).map(|o| o.not_found).sum();
    if not_found > 0 {
        result.notes.push(format!("{not_found} operations found no record"));
    }
    result.notes.push(format!(
        "YCSB {}: {} records of {} x {} bytes, request distribution {}, keys {}",
        kind,
        // The records there after the step: a load's are those it inserted (its sequence starts after it).
        if kind == StepKind::YcsbLoad { result.ops } else { state.inserts.count() },
        y.field_count,
        y.field_length,
        if kind == StepKind::YcsbLoad { "-".to_string() } else { dist.to_string() },
        if y.ordered_inserts { "ordered" } else { "hashed" }
    ));
    driver::settle_status(&mut result, &joined.errors);
    if result.status == Status::Completed && kind == StepKind::YcsbLoad {
        // Records 0..records exist; the run steps' inserts take the next numbers.
        state.inserts = InsertSequence::new(y.records);
        state.loaded = true;
        state.base = y.records;
    }
    (result, work)
}

/// A shard other than the first, loading into one server: wait until the
/// first shard has created the table (it starts at the same moment).
fn wait_for_table(store: &dyn Store, shard: crate::plan::shard::Shard) -> Result<()> {
    use std::time::Duration;
    driver::wait_for(
        Duration::from_secs(120),
        Duration::from_millis(100),
        || store.columns().is_ok_and(|c| c.is_some_and(|c| !c.is_empty())),
        || format!("shard 0 to create table {TABLE} in {} (this is shard {shard})", store.place()),
    )
}

/// ycsb-load's client: records t, t + T, ... below `records` (a shard's
/// thread as the thread of all shards' it is).
fn load_client(
    t: &Thread<'_>,
    session: &mut dyn StoreSession,
    plan: &StepPlan,
    record_len: usize,
    batches: bool,
) -> Result<ThreadOut> {
    let s = &plan.settings;
    let mut op = t.recorder(Op::Insert.name());
    let mut key = KeyName::new();
    let mut record = vec![0u8; record_len];
    let batch = if batches { s.batch_size.max(1) as u64 } else { 1 };
    let end_ns = if batch == 1 {
        t.closed_loop(&mut op.rec, Some(s.ycsb.records), s.global_thread(t.index), s.global_threads(), |n| {
            fill_record(s.seed, n, &mut record);
            session.insert(key.build(n, s.ycsb.ordered_inserts), &record)?;
            Ok((1, false))
        })?
    } else {
        // Call c inserts records c*batch.. (the last call fewer), calls spread over the threads.
        let calls = s.ycsb.records.div_ceil(batch);
        let mut keys = vec![Vec::new(); batch as usize];
        let mut records = vec![vec![0u8; record_len]; batch as usize];
        t.closed_loop(&mut op.rec, Some(calls), s.global_thread(t.index), s.global_threads(), |c| {
            let numbers = c * batch..((c + 1) * batch).min(s.ycsb.records);
            let n = numbers.end - numbers.start;
            for (i, r) in numbers.enumerate() {
                keys[i].clear();
                keys[i].extend_from_slice(key.build(r, s.ycsb.ordered_inserts));
                fill_record(s.seed, r, &mut records[i]);
            }
            let pairs: Vec<(&[u8], &[u8])> =
                keys.iter().zip(&records).take(n as usize).map(|(k, r)| (k.as_slice(), r.as_slice())).collect();
            session.insert_batch(&pairs)?;
            Ok((n, false))
        })?
    };
    let written = op.rec.ops();
    let logical = written * record_len as u64;
    Ok(ThreadOut {
        ops: vec![op.finish()],
        end_ns,
        work: Work { writes: written, logical_bytes_written: logical, ..Default::default() },
    })
}

/// A run step's client: YCSB's operation mix in a closed loop.
#[allow(
    clippy::too_many_arguments,
    reason = "the hot loop takes its parts as arguments, not through a struct it would borrow"
)]
fn run_client(
    t: &Thread<'_>,
    session: &mut dyn StoreSession,
    plan: &StepPlan,
    index: usize,
    total: Option<u64>,
    mut chooser: KeyChooser,
    inserts: &InsertSequence,
    base: u64,
) -> Result<ThreadOut> {
    let shard = plan.settings.shard();
    let s = &plan.settings;
    let y = &s.ycsb;
    let mix = proportions(plan.kind);
    let sum: f64 = mix.iter().sum();
    let mut cumulative = [0.0; 5];
    let mut acc = 0.0;
    for (c, p) in cumulative.iter_mut().zip(mix) {
        acc += p / sum;
        *c = acc;
    }
    let mut recs: Vec<OpRecorder<'_>> = Op::ALL.iter().map(|op| t.quiet_recorder(op.name())).collect();
    let mut rng = Rng::new(thread_seed(plan, index, t.index));
    let mut key = KeyName::new();
    let record_len = y.field_count * y.field_length;
    let mut record = vec![0u8; record_len];
    let mut buf: Vec<u8> = Vec::with_capacity(record_len);
    let pool = FieldPool::new(mix64(thread_seed(plan, index, t.index) ^ 0x5EED_F1E1D), record_len);
    let mut fields: Vec<(usize, &[u8])> = Vec::with_capacity(y.field_count);
    let mut work = Work::default();
    let threads = s.global_threads();
    let deadline = t.deadline_ns();
    let timer = t.timer();
    let mut last = timer.now_ns();
    let mut g = s.global_thread(t.index);
    let mut calls = 0u64;
    while total.is_none_or(|n| g < n) && !t.should_stop() {
        let u = rng.unit();
        // Branch-free (a count, not a search), and the record's key is built
        // before the branch on the operation type: that branch is a coin toss
        // in A and F, and a mispredicted one no longer discards the key's
        // hashing and digits, which are older. The random draws keep their
        // order (operation, record, then the operation's own).
        let op = cumulative[..4].iter().map(|&c| (u >= c) as usize).sum::<usize>();
        let kind = Op::ALL[op];
        let local = match kind {
            Op::Insert => inserts.claim(),
            _ => chooser.next(&mut rng, inserts.count()),
        };
        let n = shard_record(local, base, shard);
        // An update's own draws come right after its record's: made here,
        // so that its values' cache lines are fetched while the key is
        // built. A read-modify-write draws after its read (and not when
        // the record is missing), as before.
        if kind == Op::Update {
            pool.draw(&mut rng, y, &mut fields);
        }
        let k = key.build(n, y.ordered_inserts);
        // The call (a failed one ends the loop; the calls before it stay recorded).
        let done: Result<bool> = (|| {
            let mut ok = true;
            match kind {
                Op::Read => {
                    ok = session.read(k, &mut buf)?;
                    work.queries += 1;
                }
                Op::Update | Op::ReadModifyWrite => {
                    if kind == Op::ReadModifyWrite {
                        ok = session.read(k, &mut buf)?;
                        work.queries += 1;
                        if ok {
                            pool.draw(&mut rng, y, &mut fields);
                        }
                    }
                    if ok {
                        ok = session.update(k, &fields)?;
                        work.logical_bytes_written += fields.len() as u64 * y.field_length as u64;
                        work.writes += 1;
                    }
                }
                Op::Insert => {
                    fill_record(s.seed, n, &mut record);
                    let r = session.insert(k, &record);
                    inserts.acknowledge(local);
                    r?;
                    work.writes += 1;
                    work.logical_bytes_written += record_len as u64;
                }
                Op::Scan => {
                    let len = 1 + rng.below(y.max_scan_length as u64) as usize;
                    ok = session.scan(k, len)? > 0;
                    work.queries += 1;
                }
            }
            Ok(ok)
        })();
        let Some(ok) = t.ok(done) else { break };
        let now = timer.now_ns();
        let r = &mut recs[op];
        r.rec.record(now, now - last);
        r.outcomes.not_found += !ok as u64;
        last = now;
        calls += 1;
        if calls & 0x3ff == 0 {
            if let Some(p) = t.progress {
                p.0.store(calls, std::sync::atomic::Ordering::Relaxed);
            }
        }
        if deadline.is_some_and(|d| now >= d) {
            break;
        }
        g += threads;
    }
    let ops = recs.into_iter().filter(|r| r.rec.ops() > 0).map(OpRecorder::finish).collect();
    Ok(ThreadOut { ops, end_ns: last, work })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A store that records every call (operation and key) before passing it on.
    struct Traced<'a> {
        inner: Box<dyn Store + 'a>,
        trace: Mutex<Vec<String>>,
        /// Says it batches inserts (as MongoDB's store does).
        batches: bool,
    }

    struct TracedSession<'a> {
        inner: Box<dyn StoreSession + 'a>,
        trace: &'a Mutex<Vec<String>>,
    }

    impl Store for Traced<'_> {
        fn create(&self) -> Result<()> {
            self.inner.create()
        }
        fn place(&self) -> String {
            self.inner.place()
        }
        fn session(&self) -> Result<Box<dyn StoreSession + '_>> {
            Ok(Box::new(TracedSession { inner: self.inner.session()?, trace: &self.trace }))
        }
        fn batches_inserts(&self) -> bool {
            self.batches
        }
    }

    impl TracedSession<'_> {
        fn log(&self, what: &str, key: &[u8], extra: usize) {
            self.trace.lock().unwrap().push(format!("{what} {} {extra}", String::from_utf8_lossy(key)));
        }
    }

    impl StoreSession for TracedSession<'_> {
        fn insert(&mut self, key: &[u8], record: &[u8]) -> Result<()> {
            self.log("insert", key, record.len());
            self.inner.insert(key, record)
        }
        fn insert_batch(&mut self, records: &[(&[u8], &[u8])]) -> Result<()> {
            self.log("batch", records[0].0, records.len());
            records.iter().try_for_each(|(k, r)| self.inner.insert(k, r))
        }
        fn read(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
            self.log("read", key, 0);
            self.inner.read(key, out)
        }
        fn update(&mut self, key: &[u8], fields: &[(usize, &[u8])]) -> Result<bool> {
            self.trace.lock().unwrap().push(update_line(key, fields));
            self.inner.update(key, fields)
        }
        fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
            self.log("scan", start, count);
            self.inner.scan(start, count)
        }
    }

    /// An update as the trace has it: the key, the first field and a digest of the values.
    fn update_line(key: &[u8], fields: &[(usize, &[u8])]) -> String {
        let digest = fields.iter().flat_map(|(_, v)| v.iter()).fold(0u64, |h, &b| mix64(h ^ b as u64));
        format!("update {} {} {digest:016x}", String::from_utf8_lossy(key), fields[0].0)
    }

    fn plan(kind: StepKind, records: u64, ops: u64) -> StepPlan {
        let mut settings = crate::plan::Settings::default();
        settings.ycsb.records = records;
        settings.ops = Some(ops);
        StepPlan { kind, settings, sweep: false }
    }

    /// Run ycsb-load and then `kinds` on `engine`, returning each step's result.
    fn run_steps(
        engine: &dyn crate::engine::Engine,
        kinds: &[StepKind],
        records: u64,
        ops: u64,
        trace: bool,
    ) -> (Vec<StepResult>, Vec<String>) {
        let store =
            Traced { inner: Box::new(kv::KvStore::new(engine, 100)), trace: Mutex::new(Vec::new()), batches: false };
        let mut state = YcsbState::new();
        let mut out = Vec::new();
        for (i, &kind) in [StepKind::YcsbLoad].iter().chain(kinds).enumerate() {
            let p = plan(kind, records, ops);
            let (r, _) = run_step(&store, &p, i, &mut state, StepResult::new(&p));
            assert_eq!(r.status, Status::Completed, "{kind}: {:?}", r.error);
            out.push(r);
        }
        let trace = if trace { store.trace.into_inner().unwrap() } else { Vec::new() };
        (out, trace)
    }

    fn open(name: &str, dir: &std::path::Path) -> Box<dyn crate::engine::Engine> {
        crate::engine::conformance::open_with(crate::engine::find(name).unwrap(), dir, &[]).unwrap()
    }

    #[test]
    fn the_same_seed_gives_the_same_operations_on_every_backend() {
        let steps = [StepKind::YcsbA, StepKind::YcsbD, StepKind::YcsbE, StepKind::YcsbF];
        let mut traces = Vec::new();
        for name in ["rocksdb", "lmdb", "sqlite"] {
            let dir = tempfile::tempdir().unwrap();
            let engine = open(name, dir.path());
            let (_, trace) = run_steps(engine.as_ref(), &steps, 2_000, 2_000, true);
            traces.push((name, trace));
        }
        assert!(traces[0].1.len() > 9_000);
        for (name, t) in &traces[1..] {
            assert!(t == &traces[0].1, "{name} saw another operation sequence than rocksdb");
        }
    }

    /// The loop draws, per operation: the operation, the record, then an
    /// update's field and values (drawn before its key is built, a
    /// read-modify-write's after its read): the stream written out here
    /// draw by draw, as YCSB orders them, is the one the loop makes.
    #[test]
    fn updates_draw_their_field_and_values_right_after_their_record() {
        for (kind, write_all) in [(StepKind::YcsbA, false), (StepKind::YcsbA, true), (StepKind::YcsbF, false)] {
            let dir = tempfile::tempdir().unwrap();
            let engine = open("lmdb", dir.path());
            let store = Traced {
                inner: Box::new(kv::KvStore::new(engine.as_ref(), 100)),
                trace: Mutex::new(Vec::new()),
                batches: false,
            };
            let mut state = YcsbState::new();
            let (records, ops) = (1_000, 3_000);
            for (i, k) in [StepKind::YcsbLoad, kind].into_iter().enumerate() {
                let mut p = plan(k, records, ops);
                p.settings.ycsb.write_all_fields = write_all;
                let (r, _) = run_step(&store, &p, i, &mut state, StepResult::new(&p));
                assert_eq!(r.status, Status::Completed, "{k}: {:?}", r.error);
            }
            let trace: Vec<String> =
                store.trace.into_inner().unwrap().into_iter().filter(|l| !l.starts_with("insert ")).collect();

            let mut p = plan(kind, records, ops);
            p.settings.ycsb.write_all_fields = write_all;
            let y = &p.settings.ycsb;
            let mut rng = Rng::new(thread_seed(&p, 1, 0));
            let pool = FieldPool::new(mix64(thread_seed(&p, 1, 0) ^ 0x5EED_F1E1D), y.field_count * y.field_length);
            let mut chooser = KeyChooser::for_step(distribution(kind, y), records, ops, 0.0);
            let read_share = proportions(kind)[0];
            let (mut key, mut fields, mut expected) = (KeyName::new(), Vec::new(), Vec::new());
            for _ in 0..ops {
                let read = rng.unit() < read_share;
                let k = key.build(chooser.next(&mut rng, records), y.ordered_inserts).to_vec();
                expected.push(format!("read {} 0", String::from_utf8_lossy(&k)));
                if !read {
                    if kind == StepKind::YcsbA {
                        expected.pop();
                    }
                    pool.draw(&mut rng, y, &mut fields);
                    expected.push(update_line(&k, &fields));
                }
            }
            assert!(expected.iter().filter(|l| l.starts_with("update ")).count() > ops as usize / 3, "{kind}");
            assert!(trace == expected, "{kind} (write_all_fields {write_all}): the loop drew another stream");
        }
    }

    #[test]
    fn the_load_batches_only_where_the_store_batches_for_real() {
        for batches in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let engine = open("lmdb", dir.path());
            let store = Traced {
                inner: Box::new(kv::KvStore::new(engine.as_ref(), 100)),
                trace: Mutex::new(Vec::new()),
                batches,
            };
            let mut p = plan(StepKind::YcsbLoad, 1_005, 0);
            p.settings.batch_size = 10;
            let (r, _) = run_step(&store, &p, 0, &mut YcsbState::new(), StepResult::new(&p));
            assert_eq!(r.status, Status::Completed, "{:?}", r.error);
            assert_eq!(r.ops, 1_005);
            let trace = store.trace.into_inner().unwrap();
            let calls = |what: &str| trace.iter().filter(|l| l.starts_with(what)).count();
            if batches {
                // 100 calls of 10 and the last of 5, every record once.
                assert_eq!((calls("batch "), calls("insert ")), (101, 0));
                assert!(trace.iter().any(|l| l.ends_with(" 5")));
            } else {
                assert_eq!((calls("batch "), calls("insert ")), (0, 1_005), "--batch-size is a db_bench setting there");
            }
            let mut session = store.inner.session().unwrap();
            let mut out = Vec::new();
            let mut key = KeyName::new();
            for n in [0, 999, 1_004] {
                assert!(session.read(key.build(n, false), &mut out).unwrap(), "record {n} (batches: {batches})");
            }
        }
    }

    #[test]
    fn proportions_are_within_one_percent_over_100000_operations() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open("null", dir.path());
        let kinds =
            [StepKind::YcsbA, StepKind::YcsbB, StepKind::YcsbC, StepKind::YcsbD, StepKind::YcsbE, StepKind::YcsbF];
        let (results, _) = run_steps(engine.as_ref(), &kinds, 1_000, 100_000, false);
        for (kind, r) in kinds.iter().zip(&results[1..]) {
            let total: u64 = r.ops_by_type.iter().map(|o| o.ops).sum();
            assert_eq!(total, 100_000, "{kind}");
            for (op, p) in Op::ALL.iter().zip(proportions(*kind)) {
                let n = r.ops_by_type.iter().find(|o| o.op == op.name()).map(|o| o.ops).unwrap_or(0);
                let share = n as f64 / total as f64;
                assert!((share - p).abs() < 0.01, "{kind} {}: {share} vs {p}", op.name());
            }
        }
    }

    #[test]
    fn inserts_during_d_take_the_next_record_numbers_and_latest_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open("lmdb", dir.path());
        let (results, trace) = run_steps(engine.as_ref(), &[StepKind::YcsbD], 1_000, 10_000, true);
        let inserted = results[1].ops_by_type.iter().find(|o| o.op == "INSERT").unwrap().ops;
        // Every read found its record: only acknowledged inserts are read.
        let reads = results[1].ops_by_type.iter().find(|o| o.op == "READ").unwrap();
        assert_eq!(reads.outcomes.unwrap().not_found, 0);
        let mut key = KeyName::new();
        let newest = String::from_utf8(key.build(1_000 + inserted - 1, false).to_vec()).unwrap();
        assert!(
            trace.iter().any(|l| l == &format!("insert {newest} 1000")),
            "the run's last insert is record {}",
            1_000 + inserted - 1
        );
    }

    #[test]
    fn existing_records_are_counted_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open("lmdb", dir.path());
        let (results, _) = run_steps(engine.as_ref(), &[StepKind::YcsbD], 1_000, 2_000, false);
        let inserted = results[1].ops_by_type.iter().find(|o| o.op == "INSERT").unwrap().ops;
        let store = kv::KvStore::new(engine.as_ref(), 100);
        let y = plan(StepKind::YcsbC, 1_000, 1).settings.ycsb;
        assert_eq!(existing_records(&store, &y).unwrap(), 1_000 + inserted);
        // Records of another length, or keys of another insert order, are not these.
        let e = existing_records(&store, &YcsbSettings { field_length: 50, ..y.clone() }).unwrap_err().to_string();
        assert!(e.contains("is 1000 bytes, not --field-count x --field-length = 500"), "{e}");
        let e = existing_records(&store, &YcsbSettings { ordered_inserts: true, ..y }).unwrap_err().to_string();
        assert!(e.contains("holds no YCSB record 0 (key user0)"), "{e}");
    }

    #[test]
    fn proportions_are_ycsb_s() {
        for k in [StepKind::YcsbA, StepKind::YcsbB, StepKind::YcsbC, StepKind::YcsbD, StepKind::YcsbE, StepKind::YcsbF]
        {
            assert!((proportions(k).iter().sum::<f64>() - 1.0).abs() < 1e-12, "{k}");
        }
        assert_eq!(distribution(StepKind::YcsbD, &YcsbSettings::default()), RequestDistribution::Latest(0.99));
        assert_eq!(distribution(StepKind::YcsbA, &YcsbSettings::default()), RequestDistribution::Zipfian(0.99));
    }

    #[test]
    fn records_are_printable_and_deterministic() {
        let (mut a, mut b) = (vec![0u8; 1000], vec![0u8; 1000]);
        fill_record(42, 7, &mut a);
        fill_record(42, 7, &mut b);
        assert_eq!(a, b);
        assert!(a.iter().all(|c| c.is_ascii_graphic()));
        fill_record(42, 8, &mut b);
        assert_ne!(a, b);
    }
}
