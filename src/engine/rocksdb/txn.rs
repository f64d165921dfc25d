//! RocksDB opened for transactions, as db_bench's `--transaction_db`
//! (TransactionDB: GetForUpdate takes a row lock, held to commit; a lock
//! wait longer than `lock_timeout_ms` fails) and `--optimistic_transaction_db`
//! (OptimisticTransactionDB: no locks, a write conflict is found at commit).
//! Chosen with the rocksdb option `transactions`; the plain DB stays the
//! default for everything else (its writes skip the lock manager).
//!
//! Outside transactions the sessions write through the transactional DB as
//! db_bench does (each put is its own small transaction there); batches
//! through one WriteBatch per session, cleared and reused.
//!
//! Built only with a RocksDB whose C API has pinned reads in transactions
//! (7.4.4 and later: cfg rocksdb_has_txn, build.rs).

use anyhow::{Context, Result};

use super::common::{scan_with, wait_for_compact, Common};
use super::ffi::{
    self as ffi, ErrorKind, OptimisticTransactionDb, OptimisticTransactionOptions, ReadOptions, Transaction,
    TransactionDb, TransactionOptions, WriteBatch, WriteOptions,
};
use crate::engine::{BatchOp, Conflict, Engine, EngineOptions, Session, TxnEnd, TxnOps, WriteAmpCounters};

/// `EngineSpec::transactions` of rocksdb: what its `transactions` option opens.
pub fn kind(o: &EngineOptions) -> Option<&'static str> {
    match o.0.get("transactions").map(String::as_str) {
        Some("pessimistic") => Some("pessimistic: TransactionDB, GetForUpdate locks the key until commit"),
        Some("optimistic") => Some("optimistic: OptimisticTransactionDB, conflicts found at commit"),
        _ => None,
    }
}

enum TxnDb {
    Pessimistic(TransactionDb),
    Optimistic(OptimisticTransactionDb),
}

/// The same call on either kind of DB.
macro_rules! on_db {
    ($db:expr, $d:ident => $e:expr) => {
        match $db {
            TxnDb::Pessimistic($d) => $e,
            TxnDb::Optimistic($d) => $e,
        }
    };
}

pub(super) fn open(kind: &str, common: Common, lock_timeout_ms: i64) -> Result<Box<dyn Engine>> {
    let dir = &common.dir;
    let db = if kind == "pessimistic" {
        TxnDb::Pessimistic(
            TransactionDb::open(&common.db_opts, dir, lock_timeout_ms)
                .with_context(|| format!("rocksdb cannot open a TransactionDB in {}", dir.display()))?,
        )
    } else {
        TxnDb::Optimistic(
            OptimisticTransactionDb::open(&common.db_opts, dir)
                .with_context(|| format!("rocksdb cannot open an OptimisticTransactionDB in {}", dir.display()))?,
        )
    };
    Ok(Box::new(RocksTxnEngine { db, common, lock_timeout_ms }))
}

struct RocksTxnEngine {
    // Before `common`: the DB closes before its options and cache are freed.
    db: TxnDb,
    common: Common,
    lock_timeout_ms: i64,
}

impl RocksTxnEngine {
    fn property(&self, name: &str) -> Option<String> {
        on_db!(&self.db, d => d.property(name))
    }
}

impl Engine for RocksTxnEngine {
    fn version(&self) -> String {
        self.common.version()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        let mut out = self.common.effective_options();
        match self.db {
            TxnDb::Pessimistic(_) => {
                out.push(("transactions".into(), "pessimistic (TransactionDB)".into()));
                out.push(("TransactionDBOptions.transaction_lock_timeout_ms".into(), self.lock_timeout_ms.to_string()));
            }
            TxnDb::Optimistic(_) => out.push(("transactions".into(), "optimistic (OptimisticTransactionDB)".into())),
        }
        out
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        ffi::disable_perf_stats_on_this_thread();
        Ok(Box::new(TxnSession {
            db: &self.db,
            read_opts: ReadOptions::new(),
            write_opts: WriteOptions::new(self.common.write_opts_sync, self.common.write_opts_wal),
            txn_opts: TransactionOptions::new(),
            optimistic_txn_opts: OptimisticTransactionOptions::new(),
            batch: WriteBatch::new(),
        }))
    }

    fn flush(&self) -> Result<()> {
        on_db!(&self.db, d => d.flush()).context("rocksdb flush")
    }

    fn wait_for_background_work(&self, timeout: std::time::Duration) -> Result<Option<bool>> {
        match &self.db {
            TxnDb::Optimistic(d) => wait_for_compact(d, timeout),
            TxnDb::Pessimistic(d) => match d.base() {
                Some(base) => wait_for_compact(base, timeout),
                // No base DB to wait on (RocksDB before 8.5.3): the caller polls.
                None => Ok(None),
            },
        }
    }

    fn background_work_pending(&self) -> Result<Option<bool>> {
        Ok(Some(self.common.background_work_pending(&|p| self.property(p))))
    }

    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        self.common.write_debt(&|p| self.property(p))
    }

    fn internals(&self) -> std::result::Result<Vec<crate::engine::Internal>, String> {
        self.common.internals(&|p| self.property(p))
    }

    fn background_threads(&self) -> (usize, String) {
        self.common.background_threads()
    }

    fn stats(&self) -> Vec<(String, String)> {
        self.common.stats(&|p| self.property(p))
    }

    fn write_amp_counters(&self) -> Option<WriteAmpCounters> {
        self.common.write_amp_counters(&|p| self.property(p))
    }
}

struct TxnSession<'a> {
    db: &'a TxnDb,
    read_opts: ReadOptions,
    write_opts: WriteOptions,
    txn_opts: TransactionOptions,
    optimistic_txn_opts: OptimisticTransactionOptions,
    batch: WriteBatch,
}

/// Lock timeouts, deadlocks, write conflicts found at commit: retried by the caller.
fn conflict_or(e: ffi::Error, what: &str) -> anyhow::Error {
    match e.kind() {
        ErrorKind::Busy | ErrorKind::TimedOut | ErrorKind::TryAgain | ErrorKind::Expired => {
            anyhow::Error::new(Conflict(format!("rocksdb {what}: {e}")))
        }
        _ => anyhow::Error::msg(format!("rocksdb {what}: {e}")),
    }
}

struct Ops<'t, 'db> {
    txn: &'t Transaction<'db>,
    read_opts: &'t ReadOptions,
}

impl TxnOps for Ops<'_, '_> {
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match self.txn.get_pinned_for_update(self.read_opts, key, true).map_err(|e| conflict_or(e, "get for update"))? {
            Some(v) => {
                out.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.txn.put(key, value).map_err(|e| conflict_or(e, "put in a transaction"))
    }
}

fn run_txn(
    txn: Transaction<'_>,
    read_opts: &ReadOptions,
    body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>,
) -> Result<TxnEnd> {
    if let Err(e) = body(&mut Ops { txn: &txn, read_opts }) {
        // A failed rollback adds nothing to the error that caused it.
        let _ = txn.rollback();
        return if crate::engine::is_conflict(&e) { Ok(TxnEnd::Conflict) } else { Err(e) };
    }
    match txn.commit() {
        Ok(()) => Ok(TxnEnd::Committed),
        Err(e) => {
            let e = conflict_or(e, "commit");
            if crate::engine::is_conflict(&e) {
                Ok(TxnEnd::Conflict)
            } else {
                Err(e)
            }
        }
    }
}

impl Session for TxnSession<'_> {
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        Some(match self.db {
            TxnDb::Pessimistic(d) => run_txn(d.begin(&self.write_opts, &self.txn_opts), &self.read_opts, body),
            TxnDb::Optimistic(d) => {
                run_txn(d.begin(&self.write_opts, &self.optimistic_txn_opts), &self.read_opts, body)
            }
        })
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        on_db!(self.db, d => d.put(&self.write_opts, key, value)).map_err(|e| conflict_or(e, "put"))
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        on_db!(self.db, d => d.delete(&self.write_opts, key)).map_err(|e| conflict_or(e, "delete"))
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        self.batch.clear();
        for op in ops {
            match *op {
                BatchOp::Put(k, v) => self.batch.put(k, v),
                BatchOp::Delete(k) => self.batch.delete(k),
            }
        }
        on_db!(self.db, d => d.write(&self.write_opts, &self.batch)).map_err(|e| conflict_or(e, "write batch"))
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        let v = on_db!(self.db, d => d.get_pinned(&self.read_opts, key)).context("rocksdb get")?;
        Ok(std::hint::black_box(v).is_some())
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match on_db!(self.db, d => d.get_pinned(&self.read_opts, key)).context("rocksdb get")? {
            Some(v) => {
                out.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        on_db!(self.db, d => scan_with(d.iterator(&self.read_opts), start, reverse, max_entries, visit))
    }
}

#[cfg(test)]
mod tests {
    use super::super::SPEC;
    use super::*;
    use crate::engine::conformance;

    fn add(s: &mut dyn Session, key: &[u8], by: u64) -> TxnEnd {
        s.transaction(&mut |t| {
            let mut v = Vec::new();
            let old = if t.get_for_update(key, &mut v)? { u64::from_le_bytes(v[..8].try_into().unwrap()) } else { 0 };
            t.put(key, &(old + by).to_le_bytes())
        })
        .expect("transactions")
        .unwrap()
    }

    #[test]
    fn both_kinds_keep_the_engine_contract_and_count_every_increment() {
        for kind in ["pessimistic", "optimistic"] {
            conformance::run_all(|dir| conformance::open_with(&SPEC, dir, &[("transactions", kind)]).unwrap());
            let dir = tempfile::tempdir().unwrap();
            let engine = conformance::open_with(&SPEC, dir.path(), &[("transactions", kind)]).unwrap();
            let committed = std::sync::atomic::AtomicU64::new(0);
            std::thread::scope(|sc| {
                for _ in 0..4 {
                    sc.spawn(|| {
                        let mut s = engine.session().unwrap();
                        for _ in 0..200 {
                            while add(s.as_mut(), b"hot", 1) == TxnEnd::Conflict {}
                            committed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    });
                }
            });
            let mut s = engine.session().unwrap();
            let mut v = Vec::new();
            assert!(s.get_value(b"hot", &mut v).unwrap());
            assert_eq!(u64::from_le_bytes(v[..8].try_into().unwrap()), 800, "{kind}");
            assert!(engine.effective_options().iter().any(|(k, v)| k == "transactions" && v.starts_with(kind)));
        }
    }

    #[test]
    fn both_kinds_wait_with_rocksdb_s_wait_for_compact_after_a_flush() {
        for kind in ["pessimistic", "optimistic"] {
            let dir = tempfile::tempdir().unwrap();
            let engine = conformance::open_with(&SPEC, dir.path(), &[("transactions", kind)]).unwrap();
            engine.session().unwrap().put(b"k", b"v").unwrap();
            // Some: RocksDB's own wait (the pessimistic DB through its base DB), not polling.
            assert_eq!(
                engine.wait_for_background_work(std::time::Duration::from_secs(30)).unwrap(),
                Some(true),
                "{kind}"
            );
            let stats = engine.stats();
            let l0 = stats.iter().find(|(k, _)| k == "rocksdb.num-files-at-level0").map(|(_, v)| v.as_str());
            assert_eq!(l0, Some("1"), "{kind}: the memtable was flushed first");
        }
    }

    #[test]
    fn an_optimistic_write_conflict_is_a_conflict_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let engine = conformance::open_with(&SPEC, dir.path(), &[("transactions", "optimistic")]).unwrap();
        let mut a = engine.session().unwrap();
        let mut b = engine.session().unwrap();
        let end = a
            .transaction(&mut |t| {
                let mut v = Vec::new();
                t.get_for_update(b"k", &mut v)?;
                // Another session writes the key before this one commits.
                b.put(b"k", b"theirs")?;
                t.put(b"k", b"mine")
            })
            .unwrap()
            .unwrap();
        assert_eq!(end, TxnEnd::Conflict);
        let mut v = Vec::new();
        a.get_value(b"k", &mut v).unwrap();
        assert_eq!(v, b"theirs");
    }
}
