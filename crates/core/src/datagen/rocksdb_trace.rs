//! RocksDB's query trace files (written by `DB::StartTrace`, and by
//! `db_bench --trace_file`), read as a sequence of operations: the source of
//! a production workload to replay on any engine, and of the figures that
//! check rumbench's mixgraph against db_bench's.
//!
//! The layout (RocksDB's trace_replay/trace_replay.cc): records of a fixed64
//! timestamp in microseconds, a type byte, a fixed32 payload length and the
//! payload, little-endian. The first record is a header (type 1) naming the
//! trace's version; from version 0.2 each payload starts with a fixed64 map
//! of the fields that follow (bit i for TracePayloadType i), in the order of
//! its bits.

use std::fmt;

/// What a trace record does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceOp {
    Get {
        cf: u32,
        key: Vec<u8>,
    },
    /// One write batch (a Put is a batch of one).
    Write(Vec<BatchEntry>),
    Seek {
        cf: u32,
        key: Vec<u8>,
    },
    SeekForPrev {
        cf: u32,
        key: Vec<u8>,
    },
    MultiGet {
        cfs: Vec<u32>,
        keys: Vec<Vec<u8>>,
    },
}

/// One entry of a write batch: its column family, key and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchEntry {
    pub cf: u32,
    pub key: Vec<u8>,
    pub kind: BatchKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchKind {
    /// A put of a value of this many bytes.
    Put(u32),
    Delete,
    SingleDelete,
    /// A merge operand of this many bytes.
    Merge(u32),
    /// DeleteRange: its end key is not kept.
    DeleteRange,
}

/// One record: when it was traced (us since the epoch) and what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRecord {
    pub ts_us: u64,
    pub op: TraceOp,
}

/// Why a trace could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub offset: usize,
    pub what: String,
    /// The file ends inside this record (a trace whose writer was killed):
    /// the records before it are whole.
    pub cut: bool,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a RocksDB trace this reader understands at byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for TraceError {}

const MAGIC: &[u8] = b"feedcafedeadbeef";
const BEGIN: u8 = 1;
const END: u8 = 2;
const WRITE: u8 = 3;
const GET: u8 = 4;
const SEEK: u8 = 5;
const SEEK_FOR_PREV: u8 = 6;
/// Block cache lookups (7 to 11) and IO records (12): not queries.
const BLOCK_CACHE_FIRST: u8 = 7;
const IO_TRACER: u8 = 12;
const MULTI_GET: u8 = 13;

/// A trace file's header and its records, read lazily.
#[derive(Debug)]
pub struct RocksdbTrace<'a> {
    data: &'a [u8],
    pos: usize,
    /// "0.2" as 2, RocksDB's own numbering.
    pub version: u32,
    /// The RocksDB version that wrote it ("11.8").
    pub rocksdb_version: String,
    /// The header's timestamp, us since the epoch.
    pub start_us: u64,
    /// The trace's end record was read (a tracer that was ended, not killed).
    pub ended: bool,
    /// Records of types this reader does not know, by type, and how many.
    pub unknown: std::collections::BTreeMap<u8, u64>,
}

/// A raw record: its timestamp (us), type byte and payload.
type RawRecord<'a> = (u64, u8, &'a [u8]);

/// A cursor over a payload.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: impl Into<String>) -> TraceError {
        TraceError { offset: self.base + self.pos, what: what.into(), cut: false }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], TraceError> {
        let end =
            self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| self.err("record cut short"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, TraceError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, TraceError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn varint(&mut self) -> Result<u64, TraceError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.err("a varint longer than 10 bytes"))
    }
    fn slice(&mut self) -> Result<&'a [u8], TraceError> {
        let n = self.varint()?;
        self.take(usize::try_from(n).map_err(|_| self.err("a length beyond memory"))?)
    }
    fn done(&self) -> bool {
        self.pos >= self.buf.len()
    }
}

impl<'a> RocksdbTrace<'a> {
    /// Read the header of the trace held in `data`.
    pub fn new(data: &'a [u8]) -> Result<RocksdbTrace<'a>, TraceError> {
        let mut t = RocksdbTrace {
            data,
            pos: 0,
            version: 0,
            rocksdb_version: String::new(),
            start_us: 0,
            ended: false,
            unknown: Default::default(),
        };
        let err = |offset, what: &str| TraceError { offset, what: what.into(), cut: false };
        let (ts, kind, payload) =
            t.next_raw().map_err(|e| TraceError { cut: false, ..e })?.ok_or(err(0, "empty file"))?;
        if kind != BEGIN || !payload.starts_with(MAGIC) {
            return Err(err(0, "no trace header (RocksDB's magic feedcafedeadbeef)"));
        }
        let text = String::from_utf8_lossy(payload);
        let field = |name: &str| text.split('\t').find_map(|f| f.strip_prefix(name)).map(|v| v.trim().to_string());
        let version = field("Trace Version: ").ok_or(err(13, "the header names no trace version"))?;
        t.version = version
            .split_once('.')
            .and_then(|(a, b)| format!("{a}{b}").parse().ok())
            .ok_or(err(13, &format!("trace version '{version}'")))?;
        t.rocksdb_version = field("RocksDB Version: ").unwrap_or_default();
        t.start_us = ts;
        Ok(t)
    }

    /// The next record's timestamp, type and payload (None at the end). A
    /// record the file ends inside is an error marked `cut`, at its start.
    fn next_raw(&mut self) -> Result<Option<RawRecord<'a>>, TraceError> {
        if self.pos >= self.data.len() {
            return Ok(None);
        }
        let start = self.pos;
        let mut c = Cursor { buf: self.data, pos: start, base: 0 };
        let cut = |_| TraceError {
            offset: start,
            what: format!("cut short at byte {start}: the file ends inside a record"),
            cut: true,
        };
        let ts = c.u64().map_err(cut)?;
        let kind = c.take(1).map_err(cut)?[0];
        let len = c.u32().map_err(cut)? as usize;
        let payload = c.take(len).map_err(cut)?;
        self.pos = c.pos;
        Ok(Some((ts, kind, payload)))
    }

    /// The offset of the next record.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next operation (None at the end, or at the trace's end record,
    /// which sets `ended`). Record types that are not queries (block cache
    /// and IO traces) are passed over; types this reader does not know are
    /// passed over and counted in `unknown`.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        loop {
            let at = self.pos;
            let Some((ts_us, kind, payload)) = self.next_raw()? else { return Ok(None) };
            let mut c = Cursor { buf: payload, pos: 0, base: at + 13 };
            let v2 = self.version >= 2;
            let op = match kind {
                END => {
                    self.ended = true;
                    return Ok(None);
                }
                WRITE => {
                    let rep = if v2 {
                        // Bit 1 (kWriteBatchData) names the batch that follows.
                        let map = c.u64()?;
                        if map & (1 << 1) == 0 {
                            return Err(c.err("a write without its batch"));
                        }
                        c.slice()?
                    } else {
                        payload
                    };
                    TraceOp::Write(batch_entries(rep, at + 13)?)
                }
                GET | SEEK | SEEK_FOR_PREV => {
                    if v2 {
                        let _map = c.u64()?;
                    }
                    let cf = c.u32()?;
                    let key = c.slice()?.to_vec();
                    match kind {
                        GET => TraceOp::Get { cf, key },
                        SEEK => TraceOp::Seek { cf, key },
                        _ => TraceOp::SeekForPrev { cf, key },
                    }
                }
                MULTI_GET if v2 => {
                    let _map = c.u64()?;
                    let n = c.u32()? as usize;
                    let mut cfs_buf = Cursor { buf: c.slice()?, pos: 0, base: at + 13 };
                    let mut keys_buf = Cursor { buf: c.slice()?, pos: 0, base: at + 13 };
                    let mut cfs = Vec::with_capacity(n.min(1 << 16));
                    let mut keys = Vec::with_capacity(n.min(1 << 16));
                    for _ in 0..n {
                        cfs.push(cfs_buf.u32()?);
                        keys.push(keys_buf.slice()?.to_vec());
                    }
                    TraceOp::MultiGet { cfs, keys }
                }
                BLOCK_CACHE_FIRST..=IO_TRACER => continue,
                other => {
                    *self.unknown.entry(other).or_default() += 1;
                    continue;
                }
            };
            return Ok(Some(TraceRecord { ts_us, op }));
        }
    }
}

/// The entries of a WriteBatch's representation: a fixed64 sequence, a
/// fixed32 count, then tagged records (db/write_batch.cc).
pub fn batch_entries(rep: &[u8], base: usize) -> Result<Vec<BatchEntry>, TraceError> {
    let mut c = Cursor { buf: rep, pos: 0, base };
    c.take(12)?;
    let mut out = Vec::new();
    while !c.done() {
        let tag = c.take(1)?[0];
        // The column-family variants carry the family first.
        let (cf, tag) = match tag {
            0x4..=0x6 | 0x8 | 0xE => (
                c.varint()? as u32,
                match tag {
                    0x4 => 0x0,
                    0x5 => 0x1,
                    0x6 => 0x2,
                    0x8 => 0x7,
                    _ => 0xF,
                },
            ),
            t => (0, t),
        };
        let entry = |kind, key: &[u8]| BatchEntry { cf, key: key.to_vec(), kind };
        match tag {
            0x0 => out.push(entry(BatchKind::Delete, c.slice()?)),
            0x1 => {
                let key = c.slice()?;
                let value = c.slice()?;
                out.push(entry(BatchKind::Put(value.len() as u32), key));
            }
            0x2 => {
                let key = c.slice()?;
                let value = c.slice()?;
                out.push(entry(BatchKind::Merge(value.len() as u32), key));
            }
            0x3 => {
                c.slice()?; // log data: not an operation
            }
            0x7 => out.push(entry(BatchKind::SingleDelete, c.slice()?)),
            0xF => {
                let key = c.slice()?;
                c.slice()?;
                out.push(entry(BatchKind::DeleteRange, key));
            }
            0xD => {} // noop
            t => return Err(c.err(format!("write batch record type {t:#x} (transactions, blobs or wide columns)"))),
        }
    }
    Ok(out)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn slice(out: &mut Vec<u8>, s: &[u8]) {
        varint(out, s.len() as u64);
        out.extend_from_slice(s);
    }
    fn record(out: &mut Vec<u8>, ts: u64, kind: u8, payload: &[u8]) {
        out.extend_from_slice(&ts.to_le_bytes());
        out.push(kind);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(payload);
    }

    /// A version 0.2 trace of a put, a get, a seek and a multi-get, as
    /// RocksDB's Tracer encodes them.
    pub fn sample() -> Vec<u8> {
        let mut t = Vec::new();
        record(
            &mut t,
            100,
            BEGIN,
            b"feedcafedeadbeef\tTrace Version: 0.2\tRocksDB Version: 11.8\tFormat: Timestamp OpType Payload\n",
        );
        let mut rep = vec![0u8; 8];
        rep.extend_from_slice(&2u32.to_le_bytes());
        rep.push(0x1);
        slice(&mut rep, b"key1");
        slice(&mut rep, &[7u8; 35]);
        rep.push(0x5);
        varint(&mut rep, 3);
        slice(&mut rep, b"key2");
        slice(&mut rep, b"v");
        let mut p = 2u64.to_le_bytes().to_vec();
        slice(&mut p, &rep);
        record(&mut t, 200, WRITE, &p);
        let mut p = 0xCu64.to_le_bytes().to_vec();
        p.extend_from_slice(&0u32.to_le_bytes());
        slice(&mut p, b"key1");
        record(&mut t, 300, GET, &p);
        record(&mut t, 350, 9, b"a block cache record, skipped");
        let mut p = 0x30u64.to_le_bytes().to_vec();
        p.extend_from_slice(&0u32.to_le_bytes());
        slice(&mut p, b"key0");
        record(&mut t, 400, SEEK, &p);
        let mut p = 0x700u64.to_le_bytes().to_vec();
        p.extend_from_slice(&2u32.to_le_bytes());
        let mut cfs = Vec::new();
        cfs.extend_from_slice(&0u32.to_le_bytes());
        cfs.extend_from_slice(&1u32.to_le_bytes());
        slice(&mut p, &cfs);
        let mut keys = Vec::new();
        slice(&mut keys, b"a");
        slice(&mut keys, b"bb");
        slice(&mut p, &keys);
        record(&mut t, 500, MULTI_GET, &p);
        record(&mut t, 600, END, b"");
        t
    }

    #[test]
    fn reads_each_kind_of_record() {
        let data = sample();
        let mut t = RocksdbTrace::new(&data).unwrap();
        assert_eq!((t.version, t.rocksdb_version.as_str(), t.start_us), (2, "11.8", 100));
        let mut all = Vec::new();
        while let Some(r) = t.next_record().unwrap() {
            all.push(r);
        }
        assert_eq!(all.len(), 4);
        assert_eq!(all[0].ts_us, 200);
        assert_eq!(
            all[0].op,
            TraceOp::Write(vec![
                BatchEntry { cf: 0, key: b"key1".to_vec(), kind: BatchKind::Put(35) },
                BatchEntry { cf: 3, key: b"key2".to_vec(), kind: BatchKind::Put(1) },
            ])
        );
        assert_eq!(all[1].op, TraceOp::Get { cf: 0, key: b"key1".to_vec() });
        assert_eq!(all[2].op, TraceOp::Seek { cf: 0, key: b"key0".to_vec() });
        assert_eq!(all[3].op, TraceOp::MultiGet { cfs: vec![0, 1], keys: vec![b"a".to_vec(), b"bb".to_vec()] });
    }

    /// A trace db_bench wrote of its own mixgraph (tests/fixtures/rocksdb_trace):
    /// the counts and the mean value size db_bench printed for it.
    #[test]
    fn reads_a_trace_db_bench_wrote() {
        let data = include_bytes!("../../../../tests/fixtures/rocksdb_trace/mixgraph-300.trace");
        let mut t = RocksdbTrace::new(data).unwrap();
        assert_eq!(t.version, 2);
        assert!(t.rocksdb_version.starts_with("11."), "{}", t.rocksdb_version);
        let (mut gets, mut puts, mut seeks, mut value_bytes, mut last_ts) = (0, 0, 0, 0u64, 0);
        while let Some(r) = t.next_record().unwrap() {
            assert!(r.ts_us >= last_ts, "records in time order");
            last_ts = r.ts_us;
            match r.op {
                TraceOp::Get { key, .. } | TraceOp::Seek { key, .. } if key.len() != 16 => panic!("a 16-byte key"),
                TraceOp::Get { .. } => gets += 1,
                TraceOp::Seek { .. } => seeks += 1,
                TraceOp::Write(entries) => {
                    for e in entries {
                        let BatchKind::Put(n) = e.kind else { panic!("mixgraph only puts") };
                        puts += 1;
                        value_bytes += n as u64;
                    }
                }
                other => panic!("mixgraph made {other:?}"),
            }
        }
        assert_eq!((gets, puts, seeks), (177, 93, 30));
        // db_bench: "avg size: 10.5 value".
        assert_eq!(format!("{:.1}", value_bytes as f64 / puts as f64), "10.5");
    }

    #[test]
    fn says_where_a_trace_is_not_readable() {
        assert!(RocksdbTrace::new(b"").unwrap_err().what.contains("empty"));
        let mut junk = Vec::new();
        record(&mut junk, 1, BEGIN, b"not the magic");
        assert!(RocksdbTrace::new(&junk).unwrap_err().what.contains("magic"));
        let mut data = sample();
        data.truncate(data.len() - 20);
        let mut t = RocksdbTrace::new(&data).unwrap();
        let err = loop {
            match t.next_record() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("a cut trace read to its end"),
                Err(e) => break e,
            }
        };
        assert!(err.to_string().contains("cut short"), "{err}");
        assert!(err.cut, "the file ends inside a record: {err}");
        assert!(!t.ended);
    }

    #[test]
    fn the_end_record_and_types_nobody_knows_are_told() {
        let read = |data: &[u8]| {
            let mut t = RocksdbTrace::new(data).unwrap();
            let mut n = 0;
            while t.next_record().unwrap().is_some() {
                n += 1;
            }
            (n, t.ended, t.unknown.clone())
        };
        let data = sample();
        assert_eq!(read(&data), (4, true, Default::default()));
        // Without its end record: the same four, and not ended.
        let end = 13;
        assert_eq!(read(&data[..data.len() - end]), (4, false, Default::default()));
        // A block cache record is not a query; types 0 and 99 are nobody's.
        let mut odd = data[..data.len() - end].to_vec();
        record(&mut odd, 700, 9, b"block");
        record(&mut odd, 701, 99, b"??");
        record(&mut odd, 702, 99, b"??");
        record(&mut odd, 703, 0, b"");
        record(&mut odd, 800, END, b"");
        assert_eq!(read(&odd), (4, true, [(0u8, 1u64), (99, 2)].into_iter().collect()));
    }
}
