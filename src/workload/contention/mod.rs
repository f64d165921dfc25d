//! Contention: hot-row updates and random transactions (workloads.md).
//!
//! * `hotrow`: every operation adds 1 to the counter column of row id=1 of
//!   one of T tables (client i uses table i mod T), autocommit, by primary
//!   key ("biebermarks"). The tables hold `hot_rows` rows each, loaded in key
//!   order once per config (not timed), so the tree has its levels. Each
//!   (tables, clients) cell of the grid is one step `hotrow@T<t>@t<c>`.
//! * `randomtransaction` (db_bench's): each transaction picks an increment
//!   in 1..=100 and, for each of `transaction_sets` sets, reads one random key
//!   of the set for update and writes old value + increment. Afterwards
//!   every set must sum to the same total; the step fails loudly if not.
//!
//! Conflicts (lock wait timeouts, deadlocks, serialization or validation
//! failures, a busy database) are outcomes: counted and retried, not
//! failures. A committed operation's latency runs from its first attempt.
//!
//! A backend binding is a [`Store`]: `kv` (engines with transactions:
//! rocksdb's TransactionDB / OptimisticTransactionDB, LMDB's write
//! transaction, SQLite's BEGIN IMMEDIATE), `postgres`, `mariadb` and
//! `mongodb` (hot documents only).

pub mod kv;
pub mod mariadb;
pub mod mongodb;
pub mod postgres;

use anyhow::{bail, Result};

use crate::datagen::rng::stream_seed;
use crate::datagen::Rng;
use crate::driver::stop::{interrupted_text, stop_requested};
use crate::driver::{self, FinishedOp, Progress, Thread};
use crate::engine::TxnEnd;
use crate::plan::steps::StepKind;
use crate::plan::StepPlan;
use crate::result::{Status, StepResult};

/// The hot tables' names (hot1, hot2, ...) and the sets' table on servers.
pub fn hot_table(t: u32) -> String {
    format!("hot{}", t + 1)
}
pub const SETS_TABLE: &str = "txn_sets";

/// A backend as the contention steps see it.
pub trait Store: Send + Sync {
    /// Create hot tables 0..tables with rows 1..=rows (counter 0), in key order.
    fn create_hot(&self, tables: u32, rows: u64) -> Result<()>;
    /// Create the sets of randomtransaction: `sets` x `keys` values of 0.
    fn create_sets(&self, sets: u32, keys: u64) -> Result<()>;
    fn session(&self) -> Result<Box<dyn Session + '_>>;
    /// Other processes (shards) update the same rows: a server rumbench did not start.
    fn shared(&self) -> bool {
        false
    }
}

/// One client thread's connection.
pub trait Session {
    /// Add 1 to the counter of row 1 of hot table `table` (autocommit).
    fn hot_update(&mut self, table: u32) -> Result<TxnEnd>;
    /// The counter of row 1 of hot table `table`.
    fn hot_counter(&mut self, table: u32) -> Result<i64>;
    /// One transaction: for each set s, read key `keys[s]` of set s for
    /// update and write it back plus `increment`.
    fn transfer(&mut self, keys: &[u64], increment: i64) -> Result<TxnEnd>;
    /// The sum of set `set`'s values (`keys` keys).
    fn set_sum(&mut self, set: u32, keys: u64) -> Result<i64>;
}

/// What the steps of one config share.
#[derive(Default)]
pub struct ContentionState {
    /// Hot tables loaded so far (the grid's largest table count, once).
    pub hot_tables: u32,
    /// Whether randomtransaction's sets exist.
    pub sets_created: bool,
}

/// What a step did, for its metrics.
#[derive(Debug, Default, Clone)]
pub struct Work {
    pub queries: u64,
    pub writes: u64,
    pub commits: u64,
    pub logical_bytes_written: u64,
}

/// The logical bytes an update writes: the counter (8 bytes).
const COUNTER_BYTES: u64 = 8;

struct ThreadOut {
    ops: Vec<FinishedOp>,
    end_ns: u64,
    committed: u64,
}

/// Run a hotrow or randomtransaction step.
pub fn run_step(
    store: &dyn Store,
    plan: &StepPlan,
    index: usize,
    state: &mut ContentionState,
    mut result: StepResult,
) -> (StepResult, Work) {
    let s = &plan.settings;
    let c = &s.contention;
    let prepared = match plan.kind {
        StepKind::HotRow => {
            let need = c.hot_tables.iter().copied().max().unwrap_or(1);
            let shard = s.shard();
            if state.hot_tables < need && shard.index > 0 && store.shared() {
                // Shards of one server: shard 0 loads the tables, the others update the same rows.
                wait_for_hot_tables(store, need, shard).map(|()| state.hot_tables = need)
            } else if state.hot_tables < need {
                let t0 = std::time::Instant::now();
                errln!("  loading {need} hot table(s) of {} rows (not timed)", c.hot_rows);
                store.create_hot(need, c.hot_rows).map(|()| {
                    state.hot_tables = need;
                    result.notes.push(format!(
                        "{need} hot table(s) of {} rows loaded in {:.1} s before the grid (not timed)",
                        c.hot_rows,
                        t0.elapsed().as_secs_f64()
                    ));
                })
            } else {
                Ok(())
            }
        }
        _ => {
            if state.sets_created {
                Ok(())
            } else {
                store.create_sets(c.transaction_sets, s.num).map(|()| state.sets_created = true)
            }
        }
    };
    if let Err(e) = prepared {
        // Stopped while waiting for shard 0: interrupted, not failed.
        result.status = if stop_requested() { Status::Interrupted } else { Status::Failed };
        result.error = Some(format!("cannot create the {} tables: {e:#}", plan.kind));
        return (result, Work::default());
    }
    let tables = c.tables;
    let before = match plan.kind {
        StepKind::HotRow => hot_counters(store, tables),
        _ => Ok(Vec::new()),
    };
    let label = plan.name();
    let joined = driver::run(
        s.threads,
        0,
        s.seconds,
        Progress { label: &label, total_ops: s.ops, seconds: s.seconds },
        |_, _| store.session(),
        |t, mut session| match plan.kind {
            StepKind::HotRow => hot_client(t, session.as_mut(), plan, tables),
            _ => transaction_client(t, session.as_mut(), plan, index),
        },
        || {},
    );
    joined.stamp(&mut result);
    let wall_ns = driver::wall_ns(joined.clients.iter().map(|o| o.end_ns));
    let committed: u64 = joined.clients.iter().map(|o| o.committed).sum();
    result.ops_by_type = driver::merge_ops(joined.clients.into_iter().map(|o| o.ops), driver::intervals(wall_ns));
    let wall_s = wall_ns as f64 / 1e9;
    result.wall_s = Some(wall_s);
    result.ops = result.ops_by_type.iter().map(|o| o.ops).sum();
    result.ops_s = Some(result.ops as f64 / wall_s);
    let sets = c.transaction_sets as u64;
    let work = match plan.kind {
        StepKind::HotRow => {
            Work { queries: 0, writes: committed, commits: committed, logical_bytes_written: committed * COUNTER_BYTES }
        }
        _ => Work {
            queries: committed * sets,
            writes: committed * sets,
            commits: committed,
            logical_bytes_written: committed * sets * COUNTER_BYTES,
        },
    };
    let conflicts: u64 = result.ops_by_type.iter().filter_map(|o| o.outcomes).map(|o| o.conflict).sum();
    if wall_s > 0.0 {
        result
            .notes
            .push(format!("{committed} committed, {conflicts} conflicts retried ({:.1}/s)", conflicts as f64 / wall_s));
    }
    if !joined.errors.is_empty() {
        // Failed, or interrupted when the errors came after a stop.
        crate::driver::settle_status(&mut result, &joined.errors);
        return (result, work);
    }
    // The check after the measured part: what the engine holds must add up.
    let check = match plan.kind {
        StepKind::HotRow => before.and_then(|b| {
            let after = hot_counters(store, tables)?;
            let added: i64 = after.iter().zip(&b).map(|(a, b)| a - b).sum();
            if s.shard.is_some() && store.shared() {
                // The other shards update the same rows meanwhile: this shard's updates are a part.
                if added < committed as i64 {
                    bail!("the hot rows' counters went up by {added}, less than this shard's {committed} acknowledged updates");
                }
                return Ok(format!("check: the hot rows' counters went up by {added}, at least this shard's {committed} acknowledged updates (the other shards' are in it)"));
            }
            if added != committed as i64 {
                let lost = committed as i64 - added;
                let what = if lost > 0 { format!("{lost} acknowledged updates lost") } else { format!("{} more than acknowledged", -lost) };
                bail!("the hot rows' counters went up by {added}, but {committed} updates were acknowledged: {what}");
            }
            Ok(format!("check: the hot rows' counters went up by exactly the {committed} acknowledged updates"))
        }),
        _ => check_sets(store, c.transaction_sets, s.num),
    };
    match check {
        Ok(note) => result.notes.push(note),
        Err(e) => {
            result.status = Status::Failed;
            result.error = Some(format!("{e:#}"));
            return (result, work);
        }
    }
    if stop_requested() {
        result.status = Status::Interrupted;
        result.error = Some(interrupted_text());
    } else {
        result.status = Status::Completed;
    }
    (result, work)
}

/// A shard other than the first, on one server: wait until shard 0 has
/// loaded the hot tables (their last table's row 1 answers once its one
/// loading statement committed).
fn wait_for_hot_tables(store: &dyn Store, tables: u32, shard: crate::plan::shard::Shard) -> Result<()> {
    use std::time::Duration;
    driver::wait_for(
        Duration::from_secs(600),
        Duration::from_millis(200),
        || store.session().is_ok_and(|mut s| s.hot_counter(tables - 1).is_ok()),
        || format!("shard 0 to load the {tables} hot table(s) (this is shard {shard})"),
    )
}

fn hot_counters(store: &dyn Store, tables: u32) -> Result<Vec<i64>> {
    let mut s = store.session()?;
    (0..tables).map(|t| s.hot_counter(t)).collect()
}

/// Every set must sum to the same total: each committed transaction added
/// its increment to one key of every set.
pub fn check_sets(store: &dyn Store, sets: u32, keys: u64) -> Result<String> {
    let mut s = store.session()?;
    let sums: Vec<i64> = (0..sets).map(|set| s.set_sum(set, keys)).collect::<Result<_>>()?;
    if sums.windows(2).any(|w| w[0] != w[1]) {
        bail!(
            "randomtransaction check failed: the sets' sums differ ({}): a transaction was not atomic or isolated",
            sums.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(format!("check: all {sets} sets sum to {}", sums.first().copied().unwrap_or(0)))
}

/// Run `attempt` until it commits; conflicts are counted in `conflicts`.
#[inline]
fn until_committed(conflicts: &mut u64, mut attempt: impl FnMut() -> Result<TxnEnd>) -> Result<()> {
    loop {
        match attempt()? {
            TxnEnd::Committed => return Ok(()),
            TxnEnd::Conflict => {
                *conflicts += 1;
                if stop_requested() {
                    bail!("stopped while retrying a conflicting transaction");
                }
            }
        }
    }
}

fn hot_client(t: &Thread<'_>, session: &mut dyn Session, plan: &StepPlan, tables: u32) -> Result<ThreadOut> {
    let s = &plan.settings;
    // A shard's threads are threads of all shards': they spread over the tables as those would.
    let table = (s.global_thread(t.index) % tables.max(1) as u64) as u32;
    let mut op = t.recorder("UPDATE");
    let mut conflicts = 0;
    let end_ns = t.closed_loop(&mut op.rec, s.ops, s.global_thread(t.index), s.global_threads(), |_| {
        until_committed(&mut conflicts, || session.hot_update(table))?;
        Ok((1, false))
    })?;
    op.outcomes.conflict = conflicts;
    let committed = op.rec.ops();
    Ok(ThreadOut { ops: vec![op.finish()], end_ns, committed })
}

fn transaction_client(t: &Thread<'_>, session: &mut dyn Session, plan: &StepPlan, index: usize) -> Result<ThreadOut> {
    let s = &plan.settings;
    let sets = s.contention.transaction_sets as usize;
    let mut rng = Rng::new(stream_seed(s.seed, &[index as u64, t.index as u64, 0x7a5e7]));
    let mut keys = vec![0u64; sets];
    let mut op = t.recorder("TRANSACTION");
    let mut conflicts = 0;
    let end_ns = t.closed_loop(&mut op.rec, s.ops, t.index as u64, s.threads as u64, |_| {
        // db_bench: one increment for the whole transaction, one key per set.
        let increment = 1 + rng.below(100) as i64;
        for k in keys.iter_mut() {
            *k = rng.below(s.num);
        }
        until_committed(&mut conflicts, || session.transfer(&keys, increment))?;
        Ok((1, false))
    })?;
    op.outcomes.conflict = conflicts;
    let committed = op.rec.ops();
    Ok(ThreadOut { ops: vec![op.finish()], end_ns, committed })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Settings;

    fn plan(kind: StepKind, threads: usize, ops: u64) -> StepPlan {
        let mut settings = Settings { threads, ops: Some(ops), num: 50, ..Settings::default() };
        settings.contention.hot_rows = 100;
        settings.contention.hot_tables = vec![1, 2];
        settings.contention.tables = 2;
        StepPlan { kind, settings, sweep: kind == StepKind::HotRow }
    }

    fn open(name: &str, options: &[(&str, &str)], dir: &std::path::Path) -> Box<dyn crate::engine::Engine> {
        crate::engine::conformance::open_with(crate::engine::find(name).unwrap(), dir, options).unwrap()
    }

    fn run(store: &dyn Store, kind: StepKind, threads: usize, ops: u64) -> StepResult {
        let p = plan(kind, threads, ops);
        run_step(store, &p, 0, &mut ContentionState::default(), StepResult::new(&p)).0
    }

    #[test]
    fn every_engine_with_transactions_keeps_the_sets_equal_and_counts_every_hot_update() {
        let engines: &[(&str, &[(&str, &str)])] = &[
            ("rocksdb", &[("transactions", "pessimistic")]),
            ("rocksdb", &[("transactions", "optimistic")]),
            ("lmdb", &[]),
            ("sqlite", &[]),
        ];
        for (name, options) in engines {
            let dir = tempfile::tempdir().unwrap();
            let engine = open(name, options, dir.path());
            let store = kv::KvStore::new(engine.as_ref());
            let r = run(&store, StepKind::RandomTransaction, 4, 4_000);
            assert_eq!(r.status, Status::Completed, "{name} {options:?}: {:?}", r.error);
            assert_eq!(r.ops, 4_000);
            assert!(r.notes.iter().any(|n| n.starts_with("check: all 2 sets sum to")), "{:?}", r.notes);
            let r = run(&store, StepKind::HotRow, 4, 2_000);
            assert_eq!(r.status, Status::Completed, "{name} {options:?}: {:?}", r.error);
            assert!(r.notes.iter().any(|n| n.contains("went up by exactly the 2000")), "{:?}", r.notes);
        }
    }

    /// A store whose transfers leave out set 1 once: not atomic, on purpose.
    struct Corrupting<'a>(kv::KvStore<'a>);
    struct CorruptingSession<'a>(Box<dyn Session + 'a>, bool);

    impl Store for Corrupting<'_> {
        fn create_hot(&self, tables: u32, rows: u64) -> Result<()> {
            self.0.create_hot(tables, rows)
        }
        fn create_sets(&self, sets: u32, keys: u64) -> Result<()> {
            self.0.create_sets(sets, keys)
        }
        fn session(&self) -> Result<Box<dyn Session + '_>> {
            Ok(Box::new(CorruptingSession(self.0.session()?, false)))
        }
    }

    impl Session for CorruptingSession<'_> {
        fn hot_update(&mut self, table: u32) -> Result<TxnEnd> {
            self.0.hot_update(table)
        }
        fn hot_counter(&mut self, table: u32) -> Result<i64> {
            self.0.hot_counter(table)
        }
        fn transfer(&mut self, keys: &[u64], increment: i64) -> Result<TxnEnd> {
            if !self.1 {
                self.1 = true;
                return self.0.transfer(&keys[..1], increment);
            }
            self.0.transfer(keys, increment)
        }
        fn set_sum(&mut self, set: u32, keys: u64) -> Result<i64> {
            self.0.set_sum(set, keys)
        }
    }

    #[test]
    fn a_corrupted_set_fails_the_step_loudly() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open("lmdb", &[], dir.path());
        let store = Corrupting(kv::KvStore::new(engine.as_ref()));
        let r = run(&store, StepKind::RandomTransaction, 1, 100);
        assert_eq!(r.status, Status::Failed);
        let e = r.error.unwrap();
        assert!(e.contains("randomtransaction check failed") && e.contains("sums differ"), "{e}");
    }
}
