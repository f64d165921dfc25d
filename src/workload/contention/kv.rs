//! The contention steps on a key-value engine with transactions: a hot
//! table's rows are keys "hot" + table + id (value: the counter, then
//! padding to a 100-byte row); a set's values are keys "txs" + set + key.
//! An update is a read-modify-write in one transaction (GetForUpdate on
//! RocksDB's TransactionDB, a write transaction on LMDB, BEGIN IMMEDIATE on SQLite).

use anyhow::{bail, Context, Result};

use super::{Session, Store};
use crate::engine::{BatchOp, Engine, TxnEnd, TxnOps};

/// A hot row's value: the counter (8 bytes, little-endian), then padding.
const ROW_BYTES: usize = 100;

pub struct KvStore<'a> {
    engine: &'a dyn Engine,
}

impl<'a> KvStore<'a> {
    pub fn new(engine: &'a dyn Engine) -> KvStore<'a> {
        KvStore { engine }
    }
}

fn hot_key(table: u32, id: u64) -> [u8; 15] {
    let mut k = [0u8; 15];
    k[..3].copy_from_slice(b"hot");
    k[3..7].copy_from_slice(&table.to_be_bytes());
    k[7..].copy_from_slice(&id.to_be_bytes());
    k
}

fn set_key(set: u32, key: u64) -> [u8; 15] {
    let mut k = [0u8; 15];
    k[..3].copy_from_slice(b"txs");
    k[3..7].copy_from_slice(&set.to_be_bytes());
    k[7..].copy_from_slice(&key.to_be_bytes());
    k
}

fn counter(v: &[u8]) -> Result<i64> {
    Ok(i64::from_le_bytes(v.get(..8).context("a counter value shorter than 8 bytes")?.try_into().expect("8 bytes")))
}

impl Store for KvStore<'_> {
    fn create_hot(&self, tables: u32, rows: u64) -> Result<()> {
        let mut s = self.engine.session()?;
        let mut value = vec![b'x'; ROW_BYTES];
        value[..8].copy_from_slice(&0i64.to_le_bytes());
        let mut keys = Vec::with_capacity(1000);
        for t in 0..tables {
            let mut id = 1;
            while id <= rows {
                keys.clear();
                keys.extend((id..=(id + 999).min(rows)).map(|i| hot_key(t, i)));
                if self.engine.write_batches() {
                    let ops: Vec<BatchOp<'_>> = keys.iter().map(|k| BatchOp::Put(k, &value)).collect();
                    s.write_batch(&ops)?;
                } else {
                    // An untimed load: entry by entry on an engine without batches (SplinterDB).
                    keys.iter().try_for_each(|k| s.put(k, &value))?;
                }
                id += keys.len() as u64;
            }
        }
        Ok(())
    }

    /// Nothing to create: an absent key reads as 0, as in db_bench.
    fn create_sets(&self, _sets: u32, _keys: u64) -> Result<()> {
        Ok(())
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(KvSession { s: self.engine.session()?, value: Vec::new() }))
    }
}

struct KvSession<'a> {
    s: Box<dyn crate::engine::Session + 'a>,
    value: Vec<u8>,
}

/// Read `key` for update and write it back with `delta` added to its counter
/// (an absent key counts from 0 and gets `width` bytes).
fn add(t: &mut dyn TxnOps, key: &[u8], delta: i64, buf: &mut Vec<u8>, width: usize) -> Result<()> {
    if !t.get_for_update(key, buf)? {
        buf.clear();
        buf.resize(width, b'x');
        buf[..8].copy_from_slice(&0i64.to_le_bytes());
    }
    let v = counter(buf)? + delta;
    buf[..8].copy_from_slice(&v.to_le_bytes());
    t.put(key, buf)
}

impl Session for KvSession<'_> {
    fn hot_update(&mut self, table: u32) -> Result<TxnEnd> {
        let key = hot_key(table, 1);
        let value = &mut self.value;
        match self.s.transaction(&mut |t| add(t, &key, 1, value, ROW_BYTES)) {
            Some(r) => r,
            None => bail!("this engine has no transactions"),
        }
    }

    fn hot_counter(&mut self, table: u32) -> Result<i64> {
        if !self.s.get_value(&hot_key(table, 1), &mut self.value)? {
            bail!("hot table {} has no row 1", table + 1);
        }
        counter(&self.value)
    }

    fn transfer(&mut self, keys: &[u64], increment: i64) -> Result<TxnEnd> {
        let value = &mut self.value;
        let body = &mut |t: &mut dyn TxnOps| {
            for (set, &k) in keys.iter().enumerate() {
                add(t, &set_key(set as u32, k), increment, value, 8)?;
            }
            Ok(())
        };
        match self.s.transaction(body) {
            Some(r) => r,
            None => bail!("this engine has no transactions"),
        }
    }

    fn set_sum(&mut self, set: u32, keys: u64) -> Result<i64> {
        let (start, end) = (set_key(set, 0), set_key(set, keys));
        let mut sum = 0i64;
        let mut bad = None;
        self.s.scan(&start, false, usize::MAX, &mut |k, v| {
            if k >= &end[..] {
                return false;
            }
            match counter(v) {
                Ok(c) => sum += c,
                Err(e) => bad = Some(e),
            }
            true
        })?;
        match bad {
            Some(e) => Err(e),
            None => Ok(sum),
        }
    }
}
