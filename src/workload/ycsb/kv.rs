//! YCSB on a key-value engine: one value per record, its fields
//! concatenated; an update reads the record, changes its fields and writes
//! it back, as YCSB's RocksDB binding does.

use anyhow::Result;

use super::{Store, StoreSession};
use crate::engine::{Engine, Session};

pub struct KvStore<'a> {
    engine: &'a dyn Engine,
    field_length: usize,
}

impl<'a> KvStore<'a> {
    pub fn new(engine: &'a dyn Engine, field_length: usize) -> KvStore<'a> {
        KvStore { engine, field_length }
    }
}

impl Store for KvStore<'_> {
    /// Nothing to create: the records are keys of the engine's key space.
    fn create(&self) -> Result<()> {
        Ok(())
    }

    fn place(&self) -> String {
        format!("the {} database", self.engine.version())
    }

    fn session(&self) -> Result<Box<dyn StoreSession + '_>> {
        Ok(Box::new(KvSession { s: self.engine.session()?, field_length: self.field_length, buf: Vec::new() }))
    }
}

struct KvSession<'a> {
    s: Box<dyn Session + 'a>,
    field_length: usize,
    buf: Vec<u8>,
}

impl StoreSession for KvSession<'_> {
    fn insert(&mut self, key: &[u8], record: &[u8]) -> Result<()> {
        self.s.put(key, record)
    }

    fn read(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        self.s.get_value(key, out)
    }

    fn update(&mut self, key: &[u8], fields: &[(usize, &[u8])]) -> Result<bool> {
        if !self.s.get_value(key, &mut self.buf)? {
            return Ok(false);
        }
        for &(i, v) in fields {
            let at = i * self.field_length;
            if self.buf.len() < at + v.len() {
                self.buf.resize(at + v.len(), b' ');
            }
            self.buf[at..at + v.len()].copy_from_slice(v);
        }
        self.s.put(key, &self.buf)?;
        Ok(true)
    }

    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
        self.s.scan(start, false, count, &mut |_, v| {
            std::hint::black_box(v);
            true
        })
    }
}
