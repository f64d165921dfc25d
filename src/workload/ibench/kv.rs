//! The insert benchmark's table on a key-value engine (rocksdb, lmdb,
//! sqlite, ...): a primary key space plus one key space per secondary index,
//! told apart by a key prefix, all in the engine's one key space.
//!
//! Keys (all integers big-endian, so byte order is index order):
//!
//! * prefix: `'T'`, table number (u16), key space (u8: 0 primary, 1..3 the
//!   indexes marketsegment, registersegment, pdc);
//! * primary: prefix + id (u64); value: dateandtime (u64), cashregisterid,
//!   productid, customerid, price (u32 each), then the data bytes;
//! * index: prefix + the index columns (u32, dateandtime u64) + id; empty value.
//!
//! Inserts and tail deletes are blind writes (no read before write) in one
//! write batch: a deleted row's index keys are rebuilt from its id, since
//! rows are a pure function of (seed, table, id). Queries read through the
//! index key space, then the primary.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::table::{Table, TableSession};
use super::{Index, Row, RowGen, MAX_TABLES};
use crate::engine::{BatchOp, Engine, Session};

const PRIMARY: u8 = 0;
const PREFIX_LEN: usize = 4;
const PK_LEN: usize = PREFIX_LEN + 8;
/// The engine's key and value sizes (its size hints): a primary key, and the
/// average primary value (dateandtime, four ints, 10 to 20 data bytes).
pub const KEY_SIZE: usize = PK_LEN;
pub const VALUE_SIZE: usize = 8 + 4 * 4 + 15;
/// Rows read per scan while building the indexes.
const INDEX_BUILD_CHUNK: usize = 1000;

fn prefix(table: u32, space: u8) -> [u8; PREFIX_LEN] {
    let t = (table as u16).to_be_bytes();
    [b'T', t[0], t[1], space]
}

fn space_of(index: Index) -> u8 {
    index.number() as u8 + 1
}

/// The primary key of row `id` of `table`.
pub fn primary_key(table: u32, id: u64) -> [u8; PK_LEN] {
    let mut k = [0u8; PK_LEN];
    k[..PREFIX_LEN].copy_from_slice(&prefix(table, PRIMARY));
    k[PREFIX_LEN..].copy_from_slice(&id.to_be_bytes());
    k
}

/// Append the key of `row`'s entry in `index` to `out`.
pub fn index_key(table: u32, index: Index, row: &Row, out: &mut Vec<u8>) {
    out.extend_from_slice(&prefix(table, space_of(index)));
    match index {
        Index::MarketSegment => {
            out.extend_from_slice(&(row.productid as u32).to_be_bytes());
            out.extend_from_slice(&(row.customerid as u32).to_be_bytes());
            out.extend_from_slice(&(row.price as u32).to_be_bytes());
        }
        Index::RegisterSegment => {
            out.extend_from_slice(&(row.cashregisterid as u32).to_be_bytes());
            out.extend_from_slice(&(row.customerid as u32).to_be_bytes());
            out.extend_from_slice(&(row.price as u32).to_be_bytes());
        }
        Index::Pdc => {
            out.extend_from_slice(&(row.price as u32).to_be_bytes());
            out.extend_from_slice(&(row.dateandtime as u64).to_be_bytes());
            out.extend_from_slice(&(row.customerid as u32).to_be_bytes());
        }
    }
    out.extend_from_slice(&row.id.to_be_bytes());
}

fn encode_value(row: &Row, out: &mut Vec<u8>) {
    out.extend_from_slice(&(row.dateandtime as u64).to_be_bytes());
    for v in [row.cashregisterid, row.productid, row.customerid, row.price] {
        out.extend_from_slice(&(v as u32).to_be_bytes());
    }
    out.extend_from_slice(row.data.as_bytes());
}

fn decode_row(id: u64, v: &[u8]) -> Result<Row> {
    if v.len() < 24 {
        return Err(anyhow!("row {id}: value of {} bytes is too short", v.len()));
    }
    let u32_at = |i: usize| u32::from_be_bytes(v[i..i + 4].try_into().unwrap()) as i32;
    Ok(Row {
        id,
        dateandtime: u64::from_be_bytes(v[..8].try_into().unwrap()) as i64,
        cashregisterid: u32_at(8),
        productid: u32_at(12),
        customerid: u32_at(16),
        price: u32_at(20),
        data: String::from_utf8_lossy(&v[24..]).into_owned(),
    })
}

fn id_at_end(key: &[u8]) -> u64 {
    u64::from_be_bytes(key[key.len() - 8..].try_into().unwrap())
}

/// The table layer over one open key-value engine.
pub struct KvTable {
    engine: Box<dyn Engine>,
    name: String,
    rows: RowGen,
    /// Whether each table's secondary indexes exist (and so are maintained).
    indexed: Box<[AtomicBool]>,
}

impl KvTable {
    pub fn new(engine: Box<dyn Engine>, name: &str, rows: RowGen) -> KvTable {
        KvTable {
            engine,
            name: name.to_string(),
            rows,
            indexed: (0..MAX_TABLES).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// The key-value engine under the tables (YCSB runs on it directly).
    pub fn engine(&self) -> &dyn Engine {
        self.engine.as_ref()
    }

    fn is_indexed(&self, table: u32) -> bool {
        self.indexed[table as usize].load(Ordering::Acquire)
    }
}

impl Table for KvTable {
    fn kv_engine(&self) -> Option<&dyn Engine> {
        Some(self.engine.as_ref())
    }

    fn version(&self) -> String {
        self.engine.version()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        self.engine.effective_options()
    }

    fn provenance(&self) -> Vec<(String, String)> {
        self.engine.provenance()
    }

    fn create_tables(&self, _tables: u32) -> Result<()> {
        // Key spaces need no creation; the data dir is fresh.
        Ok(())
    }

    fn session(&self) -> Result<Box<dyn TableSession + '_>> {
        Ok(Box::new(KvSession {
            table: self,
            s: self.engine.session()?,
            keys: Vec::new(),
            vals: Vec::new(),
            spans: Vec::new(),
            row: Row::default(),
            value: Vec::new(),
            ids: Vec::new(),
        }))
    }

    fn settle(&self, _tables: u32, timeout: Duration, stop: &dyn Fn() -> bool) -> Result<Vec<String>> {
        let start = Instant::now();
        self.engine.flush()?;
        let mut notes = vec![format!("{}: flushed memtables/buffers", self.name)];
        loop {
            match self.engine.background_work_pending()? {
                None => break,
                Some(false) => {
                    notes.push("waited until no background work (compaction) was pending".into());
                    break;
                }
                Some(true) if start.elapsed() >= timeout => {
                    notes.push(format!(
                        "background work still pending after the {:.0} s timeout (--compaction-timeout)",
                        timeout.as_secs_f64()
                    ));
                    break;
                }
                Some(true) if stop() => break,
                Some(true) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
        Ok(notes)
    }

    fn stats(&self, _tables: u32) -> Vec<(String, String)> {
        self.engine.stats()
    }
}

struct KvSession<'a> {
    table: &'a KvTable,
    s: Box<dyn Session + 'a>,
    /// Keys and values of the batch being built, back to back.
    keys: Vec<u8>,
    vals: Vec<u8>,
    /// (key start, key end, value start, value end; usize::MAX = a delete).
    spans: Vec<(usize, usize, usize, usize)>,
    row: Row,
    value: Vec<u8>,
    ids: Vec<u64>,
}

impl KvSession<'_> {
    /// Add `row`'s primary entry and, when `indexed`, its index entries to
    /// the batch, as puts or as deletes.
    fn add_row(&mut self, table: u32, row: &Row, put: bool, indexed: bool) {
        let k = self.keys.len();
        self.keys.extend_from_slice(&primary_key(table, row.id));
        if put {
            let v = self.vals.len();
            encode_value(row, &mut self.vals);
            self.spans.push((k, self.keys.len(), v, self.vals.len()));
        } else {
            self.spans.push((k, self.keys.len(), usize::MAX, 0));
        }
        if indexed {
            for ix in Index::ALL {
                let k = self.keys.len();
                index_key(table, ix, row, &mut self.keys);
                // Index entries have an empty value.
                let v = if put { self.vals.len() } else { usize::MAX };
                self.spans.push((k, self.keys.len(), v, self.vals.len()));
            }
        }
    }

    fn write(&mut self) -> Result<()> {
        let ops: Vec<BatchOp<'_>> = self
            .spans
            .iter()
            .map(|&(ks, ke, vs, ve)| {
                if vs == usize::MAX {
                    BatchOp::Delete(&self.keys[ks..ke])
                } else {
                    BatchOp::Put(&self.keys[ks..ke], &self.vals[vs..ve])
                }
            })
            .collect();
        let r = self.s.write_batch(&ops);
        self.keys.clear();
        self.vals.clear();
        self.spans.clear();
        r
    }

    fn read_row(&mut self, table: u32, id: u64) -> Result<Option<Row>> {
        if self.s.get_value(&primary_key(table, id), &mut self.value)? {
            Ok(Some(decode_row(id, &self.value)?))
        } else {
            Ok(None)
        }
    }
}

impl TableSession for KvSession<'_> {
    fn insert_rows(&mut self, table: u32, rows: &[Row], delete: Option<Range<u64>>) -> Result<u64> {
        let indexed = self.table.is_indexed(table);
        for row in rows {
            self.add_row(table, row, true, indexed);
        }
        let mut deleted = 0;
        if let Some(ids) = delete {
            let mut row = std::mem::take(&mut self.row);
            for id in ids {
                // Blind: the row is rebuilt from its id, not read.
                self.table.rows.fill(table, id, &mut row);
                self.add_row(table, &row, false, indexed);
                deleted += 1;
            }
            self.row = row;
        }
        self.write()?;
        Ok(deleted)
    }

    fn create_secondary_indexes(&mut self, table: u32) -> Result<()> {
        let pk_prefix = prefix(table, PRIMARY);
        let mut start = primary_key(table, 0);
        let mut chunk: Vec<Row> = Vec::with_capacity(INDEX_BUILD_CHUNK);
        loop {
            chunk.clear();
            let mut bad: Option<anyhow::Error> = None;
            self.s.scan(&start, false, INDEX_BUILD_CHUNK, &mut |k, v| {
                if k.len() != PK_LEN || k[..PREFIX_LEN] != pk_prefix {
                    return false;
                }
                match decode_row(id_at_end(k), v) {
                    Ok(r) => chunk.push(r),
                    Err(e) => {
                        bad = Some(e);
                        return false;
                    }
                }
                true
            })?;
            if let Some(e) = bad {
                return Err(e);
            }
            for row in &chunk {
                for ix in Index::ALL {
                    let k = self.keys.len();
                    index_key(table, ix, row, &mut self.keys);
                    self.spans.push((k, self.keys.len(), 0, 0));
                }
            }
            if !chunk.is_empty() {
                self.write()?;
            }
            if chunk.len() < INDEX_BUILD_CHUNK {
                break;
            }
            if crate::driver::stop::stop_requested() {
                anyhow::bail!("index build interrupted");
            }
            start = primary_key(table, chunk.last().unwrap().id + 1);
        }
        self.table.indexed[table as usize].store(true, Ordering::Release);
        Ok(())
    }

    fn range_query(&mut self, table: u32, index: Index, start: i32, limit: usize, out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        let ix_prefix = prefix(table, space_of(index));
        let mut seek = ix_prefix.to_vec();
        seek.extend_from_slice(&(start.max(0) as u32).to_be_bytes());
        self.ids.clear();
        let ids = &mut self.ids;
        self.s.scan(&seek, false, limit, &mut |k, _| {
            if k.len() < PREFIX_LEN + 8 || k[..PREFIX_LEN] != ix_prefix {
                return false;
            }
            ids.push(id_at_end(k));
            true
        })?;
        for i in 0..self.ids.len() {
            let id = self.ids[i];
            if let Some(r) = self.read_row(table, id)? {
                out.push(r);
            }
        }
        Ok(())
    }

    fn point_query(&mut self, table: u32, ids: &[u64], out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        for &id in ids {
            if let Some(r) = self.read_row(table, id)? {
                out.push(r);
            }
        }
        Ok(())
    }

    fn row_count(&mut self, table: u32) -> Result<u64> {
        let pk_prefix = prefix(table, PRIMARY);
        let mut n = 0u64;
        self.s.scan(&primary_key(table, 0), false, usize::MAX, &mut |k, _| {
            if k.len() != PK_LEN || k[..PREFIX_LEN] != pk_prefix {
                return false;
            }
            n += 1;
            true
        })?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_is_told_the_real_key_and_value_sizes() {
        let rows = RowGen::new(42);
        let mut row = Row::default();
        rows.fill(0, 1, &mut row);
        assert_eq!(KEY_SIZE, primary_key(0, row.id).len());
        let mut v = Vec::new();
        encode_value(&row, &mut v);
        // The average row: 10 to 20 data bytes.
        assert!(v.len().abs_diff(VALUE_SIZE) <= 5, "{} vs {VALUE_SIZE}", v.len());
    }

    #[test]
    fn keys_sort_in_index_order() {
        let g = RowGen::new(1);
        let rows: Vec<Row> = (1..500).map(|id| g.row(3, id)).collect();
        for ix in Index::ALL {
            type Keyed = (Vec<u8>, (i64, i64, i64), u64);
            let mut keyed: Vec<Keyed> = rows
                .iter()
                .map(|r| {
                    let mut k = Vec::new();
                    index_key(3, ix, r, &mut k);
                    (k, r.index_key(ix), r.id)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            assert!(keyed.windows(2).all(|w| (w[0].1, w[0].2) <= (w[1].1, w[1].2)), "{ix:?}");
            assert!(keyed.iter().all(|(k, _, id)| id_at_end(k) == *id && k[..4] == prefix(3, space_of(ix))));
        }
        assert!(primary_key(0, u64::MAX) < primary_key(1, 0));
        let r = g.row(0, 9);
        let mut v = Vec::new();
        encode_value(&r, &mut v);
        assert_eq!(decode_row(9, &v).unwrap(), r);
    }
}
