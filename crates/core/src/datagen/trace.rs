//! rumbench's operation traces (`--trace FILE`), and a trace loaded for
//! replay from either kind of file: rumbench's own, or RocksDB's query
//! traces (`crate::datagen::rocksdb_trace`).
//!
//! The format, version 1 (all integers little-endian):
//!
//! ```text
//! file   = "RUMTRACE" | version u16 | header length u32 | header (JSON) | chunk* | end
//! chunk  = thread u32 | calls u32 | length u32 | call*          one thread's calls, in order
//! end    = 0xFFFFFFFF | 0 u32     | length u32 | trailer (JSON)  calls, checksum, span
//! call   = kind u8 | start varint | body
//! body   = get, delete: key | put: key, value size varint | seek, seek back: key, length varint
//!        | multiget: n varint, key * n | batch: n varint, (0 key value-size | 1 key) * n
//! key    = length varint | bytes
//! ```
//!
//! `start` is the call's intended start in ns after the previous call's of
//! the same thread (the first's: after the step's start). A thread writes
//! a chunk each time its buffer fills, so writing costs one buffer append
//! per call and a locked write per 256 KiB. The trailer's checksum is the
//! wrapping sum of each call's [`CallDigest`] as the recording clients made
//! the call; a replay sums the same over the calls it makes, so equal sums
//! mean every call was replayed once with the same keys and sizes (and a
//! file cut short, or altered, sums differently).

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::rocksdb_trace::{BatchKind, RocksdbTrace, TraceOp};

pub const MAGIC: &[u8; 8] = b"RUMTRACE";
pub const VERSION: u16 = 1;
const END_CHUNK: u32 = u32::MAX;
/// A thread's buffer is written as a chunk when it passes this size.
const CHUNK_BYTES: usize = 256 << 10;

/// What one call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum CallKind {
    Get = 1,
    Put = 2,
    Delete = 3,
    /// Position at the first key >= the key and read `scan_len` entries.
    Seek = 4,
    /// Position at the last key <= the key and read `scan_len` entries back.
    SeekBack = 5,
    MultiGet = 6,
    /// Puts and deletes applied atomically.
    Batch = 7,
}

impl CallKind {
    pub const ALL: [CallKind; 7] = [
        CallKind::Get,
        CallKind::Put,
        CallKind::Delete,
        CallKind::Seek,
        CallKind::SeekBack,
        CallKind::MultiGet,
        CallKind::Batch,
    ];

    /// The operation's name in results (the names db_bench-style steps use).
    pub fn name(self) -> &'static str {
        match self {
            CallKind::Get => "get",
            CallKind::Put => "put",
            CallKind::Delete => "delete",
            CallKind::Seek => "seek",
            CallKind::SeekBack => "seek_back",
            CallKind::MultiGet => "multiget",
            CallKind::Batch => "write_batch",
        }
    }

    fn from_u8(b: u8) -> Option<CallKind> {
        CallKind::ALL.iter().copied().find(|k| *k as u8 == b)
    }

    /// Whether the call writes.
    pub fn writes(self) -> bool {
        matches!(self, CallKind::Put | CallKind::Delete | CallKind::Batch)
    }
}

/// The header of a rumbench trace: what was recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceHeader {
    /// The rumbench that wrote it.
    pub rumbench: String,
    pub config: String,
    pub engine: String,
    pub step: String,
    pub threads: u32,
    /// When the step started, seconds since the epoch.
    pub started_unix: f64,
}

/// The end of a rumbench trace, written when the step ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceTrailer {
    pub calls: u64,
    /// The wrapping sum of the calls' digests, as the clients made them.
    pub checksum: u64,
    /// The last call's intended start, ns after the step's start.
    pub span_ns: u64,
}

/// A call's digest: a multiply-rotate hash, a word at a time, over its
/// identity (the recording thread, its index in that thread) and what it
/// does, finished by a mixer so that the sum of many is well spread.
pub struct CallDigest(u64);

impl CallDigest {
    pub fn new(thread: u32, seq: u64, kind: CallKind, scan_len: u32) -> CallDigest {
        let mut d = CallDigest(0xcbf2_9ce4_8422_2325);
        d.word(thread as u64 | (kind as u64) << 32);
        d.word(seq);
        d.word(scan_len as u64);
        d
    }

    #[inline]
    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }

    /// One key of the call: deleted, or written with a value of `value_size`
    /// bytes (0 for a read).
    #[inline]
    pub fn part(&mut self, delete: bool, key: &[u8], value_size: u32) {
        self.word(delete as u64 | (key.len() as u64 & 0xff_ffff) << 8 | (value_size as u64) << 32);
        let mut words = key.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(w));
        }
    }

    pub fn finish(self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// A trace being written: the file the threads' chunks go to, and their
/// totals.
pub struct TraceFile {
    out: Mutex<Option<std::io::BufWriter<std::fs::File>>>,
    error: Mutex<Option<String>>,
    calls: AtomicU64,
    checksum: AtomicU64,
    span_ns: AtomicU64,
}

impl TraceFile {
    /// Create the file (it must not exist) and write its header.
    pub fn create(path: &Path, header: &TraceHeader) -> std::io::Result<TraceFile> {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let json = serde_json::to_vec(header).map_err(std::io::Error::other)?;
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(json.len() as u32).to_le_bytes())?;
        out.write_all(&json)?;
        Ok(TraceFile {
            out: Mutex::new(Some(out)),
            error: Mutex::new(None),
            calls: AtomicU64::new(0),
            checksum: AtomicU64::new(0),
            span_ns: AtomicU64::new(0),
        })
    }

    fn write_chunk(&self, thread: u32, calls: u32, payload: &[u8]) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let Some(w) = out.as_mut() else { return };
        let r = w
            .write_all(&thread.to_le_bytes())
            .and_then(|()| w.write_all(&calls.to_le_bytes()))
            .and_then(|()| w.write_all(&(payload.len() as u32).to_le_bytes()))
            .and_then(|()| w.write_all(payload));
        if let Err(e) = r {
            // The first error is the one said; the file is given up.
            *out = None;
            self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e.to_string());
        }
    }

    /// Write the trailer and close the file: the totals of every thread's
    /// recording (each dropped before this), or the error that ended it.
    pub fn finish(self) -> Result<TraceTrailer, String> {
        if let Some(e) = self.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(e);
        }
        let trailer = TraceTrailer {
            calls: self.calls.load(Ordering::Relaxed),
            checksum: self.checksum.load(Ordering::Relaxed),
            span_ns: self.span_ns.load(Ordering::Relaxed),
        };
        let json = serde_json::to_vec(&trailer).map_err(|e| e.to_string())?;
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let mut w = out.take().ok_or("the trace file was given up")?;
        let r = w
            .write_all(&END_CHUNK.to_le_bytes())
            .and_then(|()| w.write_all(&0u32.to_le_bytes()))
            .and_then(|()| w.write_all(&(json.len() as u32).to_le_bytes()))
            .and_then(|()| w.write_all(&json))
            .and_then(|()| w.flush());
        r.map_err(|e| e.to_string())?;
        Ok(trailer)
    }

    /// A recording of one thread's calls into this file.
    pub fn thread(&self, thread: u32) -> ThreadTrace<'_> {
        ThreadTrace {
            file: self,
            thread,
            buf: Vec::with_capacity(CHUNK_BYTES + 4096),
            chunk_calls: 0,
            seq: 0,
            last_ns: 0,
            checksum: 0,
        }
    }
}

/// One thread's recording: calls appended to a buffer, written as a chunk
/// when it fills and when the recording is dropped.
pub struct ThreadTrace<'a> {
    file: &'a TraceFile,
    thread: u32,
    buf: Vec<u8>,
    chunk_calls: u32,
    seq: u64,
    last_ns: u64,
    checksum: u64,
}

impl ThreadTrace<'_> {
    /// Start a call intended to start at `intended_ns` after the step's
    /// start: its kind and start written, its digest begun.
    #[inline]
    fn begin(&mut self, intended_ns: u64, kind: CallKind, scan_len: u32) -> CallDigest {
        self.buf.push(kind as u8);
        // A call meant to start before the previous one (a clock read late) starts with it.
        put_varint(&mut self.buf, intended_ns.saturating_sub(self.last_ns));
        self.last_ns = self.last_ns.max(intended_ns);
        CallDigest::new(self.thread, self.seq, kind, scan_len)
    }

    #[inline]
    fn key(&mut self, key: &[u8]) {
        put_varint(&mut self.buf, key.len() as u64);
        self.buf.extend_from_slice(key);
    }

    #[inline]
    fn end(&mut self, digest: CallDigest) {
        self.checksum = self.checksum.wrapping_add(digest.finish());
        self.seq += 1;
        self.chunk_calls += 1;
        if self.buf.len() >= CHUNK_BYTES {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.chunk_calls > 0 {
            self.file.write_chunk(self.thread, self.chunk_calls, &self.buf);
        }
        self.buf.clear();
        self.chunk_calls = 0;
    }

    /// A point read, a delete or a put (`value_size` bytes; 0 for the others).
    #[inline]
    pub fn point(&mut self, intended_ns: u64, kind: CallKind, key: &[u8], value_size: u32) {
        let mut d = self.begin(intended_ns, kind, 0);
        self.key(key);
        if kind == CallKind::Put {
            put_varint(&mut self.buf, value_size as u64);
        }
        d.part(kind == CallKind::Delete, key, value_size);
        self.end(d);
    }

    /// A seek (`back`: to the last key <= `key`) reading up to `len` entries.
    #[inline]
    pub fn seek(&mut self, intended_ns: u64, key: &[u8], back: bool, len: u32) {
        let kind = if back { CallKind::SeekBack } else { CallKind::Seek };
        let mut d = self.begin(intended_ns, kind, len);
        self.key(key);
        put_varint(&mut self.buf, len as u64);
        d.part(false, key, 0);
        self.end(d);
    }

    /// A multiget of the keys laid back to back in `keys`, `key_size` bytes each.
    pub fn multi_get(&mut self, intended_ns: u64, keys: &[u8], key_size: usize) {
        let mut d = self.begin(intended_ns, CallKind::MultiGet, 0);
        put_varint(&mut self.buf, (keys.len() / key_size.max(1)) as u64);
        for key in keys.chunks_exact(key_size.max(1)) {
            self.key(key);
            d.part(false, key, 0);
        }
        self.end(d);
    }

    /// A batch of entries: (delete, key, value size).
    pub fn batch<'k>(&mut self, intended_ns: u64, entries: impl ExactSizeIterator<Item = (bool, &'k [u8], u32)>) {
        let mut d = self.begin(intended_ns, CallKind::Batch, 0);
        put_varint(&mut self.buf, entries.len() as u64);
        for (delete, key, value_size) in entries {
            self.buf.push(delete as u8);
            self.key(key);
            if !delete {
                put_varint(&mut self.buf, value_size as u64);
            }
            d.part(delete, key, value_size);
        }
        self.end(d);
    }
}

impl Drop for ThreadTrace<'_> {
    fn drop(&mut self) {
        self.flush();
        self.file.calls.fetch_add(self.seq, Ordering::Relaxed);
        self.file.checksum.fetch_add(self.checksum, Ordering::Relaxed);
        self.file.span_ns.fetch_max(self.last_ns, Ordering::Relaxed);
    }
}

/// One key of a loaded call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    key: (usize, u32),
    pub value_size: u32,
    pub delete: bool,
}

/// One loaded call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The thread that made it (the recording's client index), and its index in that thread.
    pub thread: u32,
    pub seq: u64,
    /// Its intended start, ns after the recording's start.
    pub intended_ns: u64,
    pub kind: CallKind,
    pub scan_len: u32,
    parts: Range<u32>,
}

impl Call {
    /// The number of keys the call holds.
    pub fn parts_len(&self) -> usize {
        self.parts.len()
    }
}

/// Where a loaded trace came from.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceSource {
    Rumbench {
        header: TraceHeader,
        trailer: Option<TraceTrailer>,
    },
    /// `ended`: the trace's end record was read (a tracer ended, not killed).
    Rocksdb {
        rocksdb_version: String,
        trace_version: u32,
        skipped: Vec<String>,
        ended: bool,
    },
}

/// Where a trace's file ends inside a record (its writer was killed), and
/// how many calls were lost there, when the file says (a chunk's header
/// counts its calls; a RocksDB record is one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub at_byte: u64,
    pub calls: Option<u64>,
}

/// A trace loaded for replay: its calls in the order of their intended
/// starts (a thread's in its own order).
#[derive(Debug, Clone)]
pub struct Trace {
    pub source: TraceSource,
    pub calls: Vec<Call>,
    parts: Vec<Part>,
    keys: Vec<u8>,
    /// The recording's thread count (its highest client index + 1).
    pub threads: u32,
    /// The wrapping sum of the loaded calls' digests.
    pub checksum: u64,
    /// The file ends inside a record: the whole ones before it are loaded.
    pub cut: Option<Cut>,
}

/// Whether `head`, a file's first bytes (64 KiB will do), starts a trace
/// this module loads: rumbench's of this format version, or RocksDB's.
pub fn check_head(head: &[u8]) -> Result<(), String> {
    if let Some(rest) = head.strip_prefix(MAGIC) {
        let version = rest.get(..2).map(|v| u16::from_le_bytes([v[0], v[1]]));
        return match version {
            Some(VERSION) => read_header(&mut Reader { buf: head, pos: MAGIC.len() + 2 }).map(|_| ()),
            Some(v) => Err(format!("a rumbench trace of format version {v}; this rumbench reads version {VERSION}")),
            None => Err("a rumbench trace cut short in its header".into()),
        };
    }
    RocksdbTrace::new(head)
        .map(|_| ())
        .map_err(|e| format!("neither a rumbench trace (magic RUMTRACE) nor a RocksDB trace ({})", e.what))
}

/// The most threads a recording has: rumbench's 1,024 clients and a
/// background writer.
const MAX_RECORDED_THREADS: u32 = 1024;

/// A rumbench trace's header, after its magic and version: readable, and
/// naming a thread count rumbench can have recorded.
fn read_header(r: &mut Reader<'_>) -> Result<TraceHeader, String> {
    let n = r.u32().map_err(|_| "a rumbench trace cut short in its header".to_string())? as usize;
    let bytes = r.take(n).map_err(|_| format!("a rumbench trace cut short in its header (of {n} bytes)"))?;
    let header: TraceHeader =
        serde_json::from_slice(bytes).map_err(|e| format!("the trace's header is not readable: {e}"))?;
    if header.threads > MAX_RECORDED_THREADS {
        return Err(format!(
            "the trace's header says {} client threads recorded; rumbench records at most {MAX_RECORDED_THREADS}: the file is damaged",
            header.threads
        ));
    }
    Ok(header)
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| format!("cut short at byte {}", self.pos))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(format!("a varint longer than 10 bytes at byte {}", self.pos))
    }
    fn key(&mut self) -> Result<&'a [u8], String> {
        let n = self.varint()?;
        self.take(usize::try_from(n).map_err(|_| format!("a key of {n} bytes"))?)
    }
}

impl Trace {
    /// Load a trace from its bytes: rumbench's format, or RocksDB's.
    pub fn parse(data: &[u8]) -> Result<Trace, String> {
        if data.starts_with(MAGIC) {
            Trace::parse_rumbench(data)
        } else {
            Trace::parse_rocksdb(data)
        }
    }

    /// Load the trace in the file at `path`.
    pub fn load(path: &Path) -> Result<Trace, String> {
        let data = std::fs::read(path).map_err(|e| format!("cannot read trace {}: {e}", path.display()))?;
        Trace::parse(&data).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn empty(source: TraceSource) -> Trace {
        Trace { source, calls: Vec::new(), parts: Vec::new(), keys: Vec::new(), threads: 0, checksum: 0, cut: None }
    }

    /// The keys of a call, with their value sizes and whether each deletes.
    pub fn parts(&self, call: &Call) -> impl ExactSizeIterator<Item = (&[u8], Part)> + '_ {
        self.parts[call.parts.start as usize..call.parts.end as usize]
            .iter()
            .map(|p| (&self.keys[p.key.0..p.key.0 + p.key.1 as usize], *p))
    }

    /// The last call's intended start, ns after the first's.
    pub fn span_ns(&self) -> u64 {
        self.calls.last().map_or(0, |c| c.intended_ns) - self.calls.first().map_or(0, |c| c.intended_ns)
    }

    fn push_part(&mut self, key: &[u8], value_size: u32, delete: bool) {
        self.parts.push(Part { key: (self.keys.len(), key.len() as u32), value_size, delete });
        self.keys.extend_from_slice(key);
    }

    fn push_call(&mut self, thread: u32, seq: u64, intended_ns: u64, kind: CallKind, scan_len: u32, first: usize) {
        let call = Call { thread, seq, intended_ns, kind, scan_len, parts: first as u32..self.parts.len() as u32 };
        let mut d = CallDigest::new(thread, seq, kind, scan_len);
        for (key, p) in self.parts(&call) {
            d.part(p.delete, key, p.value_size);
        }
        self.checksum = self.checksum.wrapping_add(d.finish());
        self.calls.push(call);
    }

    fn parse_rumbench(data: &[u8]) -> Result<Trace, String> {
        let mut r = Reader { buf: data, pos: MAGIC.len() };
        let version = u16::from_le_bytes(r.take(2)?.try_into().unwrap());
        if version != VERSION {
            return Err(format!("a rumbench trace of format version {version}; this rumbench reads version {VERSION}"));
        }
        let header = read_header(&mut r)?;
        let recorded_threads = header.threads;
        let mut t = Trace::empty(TraceSource::Rumbench { header, trailer: None });
        // Each recorded thread's next index and last intended start.
        let mut threads: HashMap<u32, (u64, u64)> = HashMap::new();
        let mut trailer = None;
        while r.pos < data.len() {
            let at = r.pos;
            // A recording killed mid-write ends inside a chunk: every whole
            // call before the cut is kept, the rest counted.
            let head = (r.u32(), r.u32(), r.u32());
            let (Ok(thread), Ok(calls), Ok(len)) = head else {
                t.cut = Some(Cut { at_byte: at as u64, calls: None });
                break;
            };
            let whole = r.take(len as usize);
            let payload = match whole {
                Ok(p) => p,
                Err(_) => &data[r.pos..],
            };
            if thread == END_CHUNK {
                let Ok(payload) = whole else {
                    t.cut = Some(Cut { at_byte: at as u64, calls: Some(0) });
                    break;
                };
                trailer = Some(
                    serde_json::from_slice::<TraceTrailer>(payload)
                        .map_err(|e| format!("the trace's trailer is not readable: {e}"))?,
                );
                break;
            }
            // Clients are 0..threads, a background writer the one after them.
            if thread > recorded_threads {
                return Err(format!(
                    "a chunk at byte {at} claims thread {thread}, in a trace its header says {recorded_threads} client threads recorded: the file is damaged"
                ));
            }
            let (seq, last_ns) = threads.entry(thread).or_insert((0, 0));
            let mut c = Reader { buf: payload, pos: 0 };
            let mut read = 0;
            while read < calls {
                let first = (t.parts.len(), t.keys.len());
                match t.read_call(&mut c, thread, *seq, last_ns) {
                    Ok(()) => {}
                    Err(_) if whole.is_err() => {
                        // The cut call's keys are not kept.
                        t.parts.truncate(first.0);
                        t.keys.truncate(first.1);
                        break;
                    }
                    Err(e) => return Err(format!("a chunk of thread {thread} at byte {at}: {e}")),
                }
                *seq += 1;
                read += 1;
            }
            if whole.is_err() {
                t.cut = Some(Cut { at_byte: at as u64, calls: Some(u64::from(calls - read)) });
                break;
            }
            if c.pos != payload.len() {
                return Err(format!("a chunk of thread {thread} holds more than its {calls} calls"));
            }
        }
        t.threads = threads.keys().max().map_or(0, |&m| m + 1);
        if let TraceSource::Rumbench { header, trailer: slot } = &mut t.source {
            t.threads = t.threads.max(header.threads);
            *slot = trailer;
        }
        t.sort();
        Ok(t)
    }

    /// One call of a chunk, read into the trace; an error leaves the parts
    /// it pushed (the caller drops them).
    fn read_call(&mut self, c: &mut Reader<'_>, thread: u32, seq: u64, last_ns: &mut u64) -> Result<(), String> {
        let kind = CallKind::from_u8(c.take(1)?[0]).ok_or_else(|| "an unknown call kind".to_string())?;
        let at = *last_ns + c.varint()?;
        let first = self.parts.len();
        let mut scan_len = 0;
        match kind {
            CallKind::Get | CallKind::Delete | CallKind::Put => {
                let key = c.key()?;
                let size = if kind == CallKind::Put { c.varint()? as u32 } else { 0 };
                self.push_part(key, size, kind == CallKind::Delete);
            }
            CallKind::Seek | CallKind::SeekBack => {
                let key = c.key()?;
                scan_len = c.varint()? as u32;
                self.push_part(key, 0, false);
            }
            CallKind::MultiGet | CallKind::Batch => {
                for _ in 0..c.varint()? {
                    let delete = kind == CallKind::Batch && c.take(1)?[0] == 1;
                    let key = c.key()?;
                    let size = if kind == CallKind::Batch && !delete { c.varint()? as u32 } else { 0 };
                    self.push_part(key, size, delete);
                }
            }
        }
        *last_ns = at;
        self.push_call(thread, seq, at, kind, scan_len, first);
        Ok(())
    }

    /// RocksDB's trace as one thread's calls (a trace records no threads).
    /// What a replay through the `Session` calls cannot do is skipped and
    /// counted: column families other than the default, merges, range
    /// deletions.
    fn parse_rocksdb(data: &[u8]) -> Result<Trace, String> {
        let mut rt = RocksdbTrace::new(data)
            .map_err(|e| format!("neither a rumbench trace (magic RUMTRACE) nor a RocksDB trace ({})", e.what))?;
        let mut t = Trace::empty(TraceSource::Rocksdb {
            rocksdb_version: rt.rocksdb_version.clone(),
            trace_version: rt.version,
            skipped: Vec::new(),
            ended: false,
        });
        let start_us = rt.start_us;
        let mut skipped: Vec<(&'static str, u64)> = Vec::new();
        let mut skip = |what: &'static str| match skipped.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => skipped.push((what, 1)),
        };
        let mut seq = 0u64;
        loop {
            let at = rt.position();
            let rec = match rt.next_record() {
                Ok(Some(rec)) => rec,
                Ok(None) => break,
                // A tracer killed mid-record: the records before it replay.
                Err(e) if e.cut => {
                    t.cut = Some(Cut { at_byte: at as u64, calls: Some(1) });
                    break;
                }
                Err(e) => return Err(e.to_string()),
            };
            let at = rec.ts_us.saturating_sub(start_us) * 1000;
            let first = t.parts.len();
            let (kind, scan_len) = match rec.op {
                TraceOp::Get { cf, key } | TraceOp::Seek { cf, key } | TraceOp::SeekForPrev { cf, key } if cf != 0 => {
                    let _ = key;
                    skip("calls on a column family other than the default");
                    continue;
                }
                TraceOp::Get { key, .. } => {
                    t.push_part(&key, 0, false);
                    (CallKind::Get, 0)
                }
                // A traced seek does not say how far the iterator went: the entry it lands on.
                TraceOp::Seek { key, .. } => {
                    t.push_part(&key, 0, false);
                    (CallKind::Seek, 1)
                }
                TraceOp::SeekForPrev { key, .. } => {
                    t.push_part(&key, 0, false);
                    (CallKind::SeekBack, 1)
                }
                TraceOp::MultiGet { cfs, keys } => {
                    for (cf, key) in cfs.iter().zip(&keys) {
                        if *cf == 0 {
                            t.push_part(key, 0, false);
                        } else {
                            skip("keys of a multiget on a column family other than the default");
                        }
                    }
                    (CallKind::MultiGet, 0)
                }
                TraceOp::Write(entries) => {
                    for e in &entries {
                        match e.kind {
                            _ if e.cf != 0 => skip("batch entries on a column family other than the default"),
                            BatchKind::Put(size) => t.push_part(&e.key, size, false),
                            BatchKind::Delete | BatchKind::SingleDelete => t.push_part(&e.key, 0, true),
                            BatchKind::Merge(_) => skip("merges (no engine's session merges)"),
                            BatchKind::DeleteRange => skip("range deletions"),
                        }
                    }
                    let n = t.parts.len() - first;
                    match (n, t.parts.last()) {
                        (1, Some(p)) if p.delete => (CallKind::Delete, 0),
                        (1, _) => (CallKind::Put, 0),
                        _ => (CallKind::Batch, 0),
                    }
                }
            };
            if t.parts.len() == first {
                continue;
            }
            t.push_call(0, seq, at, kind, scan_len, first);
            seq += 1;
        }
        t.threads = 1;
        if let TraceSource::Rocksdb { skipped: slot, ended, .. } = &mut t.source {
            *slot = skipped.into_iter().map(|(what, n)| format!("{n} {what}")).collect();
            slot.extend(
                rt.unknown.iter().map(|(kind, n)| format!("{n} records of a type this reader does not know ({kind})")),
            );
            *ended = rt.ended;
        }
        t.sort();
        Ok(t)
    }

    /// Order the calls by intended start; a thread's keep their order.
    fn sort(&mut self) {
        self.calls.sort_by_key(|c| (c.intended_ns, c.thread, c.seq));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &Path) -> TraceTrailer {
        let header = TraceHeader { step: "readrandom".into(), threads: 2, ..Default::default() };
        let file = TraceFile::create(path, &header).unwrap();
        std::thread::scope(|s| {
            for thread in 0..2u32 {
                let file = &file;
                s.spawn(move || {
                    let mut tr = file.thread(thread);
                    for i in 0..20_000u64 {
                        let key = format!("key{:013}", i * 2 + thread as u64);
                        let at = i * 1000 + thread as u64;
                        match i % 6 {
                            0 => tr.point(at, CallKind::Get, key.as_bytes(), 0),
                            1 => tr.point(at, CallKind::Put, key.as_bytes(), 100 + i as u32 % 7),
                            2 => tr.point(at, CallKind::Delete, key.as_bytes(), 0),
                            3 => tr.seek(at, key.as_bytes(), i % 12 == 3, 50),
                            4 => tr.multi_get(at, b"aaaabbbbcccc", 4),
                            _ => tr.batch(at, [(false, &b"k1"[..], 10), (true, &b"k2"[..], 0)].into_iter()),
                        }
                    }
                });
            }
        });
        file.finish().unwrap()
    }

    #[test]
    fn a_recording_loads_back_call_for_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtrace");
        let trailer = record(&path);
        assert_eq!(trailer.calls, 40_000);
        assert_eq!(trailer.span_ns, 19_999 * 1000 + 1);
        let t = Trace::load(&path).unwrap();
        assert_eq!(t.calls.len(), 40_000);
        assert_eq!(t.threads, 2);
        assert_eq!(t.checksum, trailer.checksum, "the loaded calls are the recorded ones");
        match &t.source {
            TraceSource::Rumbench { header, trailer: Some(tr) } => {
                assert_eq!(header.step, "readrandom");
                assert_eq!(*tr, trailer);
            }
            other => panic!("{other:?}"),
        }
        // In intended order, each thread's calls in its own.
        assert!(t.calls.windows(2).all(|w| w[0].intended_ns <= w[1].intended_ns));
        let c = &t.calls[2 * 7 + 1]; // i = 7, thread 1: a put
        assert_eq!((c.kind, c.seq, c.intended_ns), (CallKind::Put, 7, 7001));
        let parts: Vec<_> = t.parts(c).collect();
        assert_eq!(parts[0].0, b"key0000000000015");
        assert_eq!(parts[0].1.value_size, 100);
        let b = t.calls.iter().find(|c| c.kind == CallKind::Batch).unwrap();
        let parts: Vec<_> = t.parts(b).map(|(k, p)| (k.to_vec(), p.delete, p.value_size)).collect();
        assert_eq!(parts, vec![(b"k1".to_vec(), false, 10), (b"k2".to_vec(), true, 0)]);
        let s = t.calls.iter().find(|c| c.kind == CallKind::SeekBack).unwrap();
        assert_eq!(s.scan_len, 50);
        assert_eq!(t.parts(t.calls.iter().find(|c| c.kind == CallKind::MultiGet).unwrap()).len(), 3);
    }

    #[test]
    fn an_altered_or_cut_trace_is_found_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtrace");
        let trailer = record(&path);
        let mut data = std::fs::read(&path).unwrap();
        // A key's byte changed: the sum of the loaded calls differs from the recorded one.
        let at = data.windows(16).position(|w| w == b"key0000000000015").unwrap();
        data[at + 3] = b'9';
        assert_ne!(Trace::parse(&data).unwrap().checksum, trailer.checksum);
        // Cut inside the trailer: every call, no trailer, cut with no call lost.
        let t = Trace::parse(&data[..data.len() - 40]).unwrap();
        assert!(matches!(t.source, TraceSource::Rumbench { trailer: None, .. }));
        assert_eq!((t.calls.len(), t.cut.map(|c| c.calls)), (40_000, Some(Some(0))));
        // Cut at a chunk's end: no trailer, nothing cut.
        let end = 12 + serde_json::to_vec(&trailer).unwrap().len();
        let t = Trace::parse(&data[..data.len() - end]).unwrap();
        assert!(matches!(t.source, TraceSource::Rumbench { trailer: None, .. }));
        assert_eq!((t.calls.len(), t.cut), (40_000, None));
        assert!(Trace::parse(b"RUMTRACE\x02\x00").unwrap_err().contains("format version 2"));
        assert!(Trace::parse(b"hello").unwrap_err().contains("neither a rumbench trace"));
        assert_eq!(check_head(&data[..200]), Ok(()));
        assert!(check_head(b"RUMTRACE\x02\x00").unwrap_err().contains("format version 2"));
        assert!(check_head(b"hello").unwrap_err().contains("neither"));
        assert_eq!(check_head(&super::super::rocksdb_trace::tests::sample()[..120]), Ok(()));
    }

    /// A recording killed mid-write: the whole calls before the cut load,
    /// each as recorded, and the cut chunk's lost calls are counted.
    #[test]
    fn a_trace_cut_inside_a_chunk_keeps_its_whole_calls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.rtrace");
        record(&path);
        let data = std::fs::read(&path).unwrap();
        let full = Trace::parse(&data).unwrap();
        let key =
            |t: &Trace, c: &Call| t.parts(c).map(|(k, p)| (k.to_vec(), p.value_size, p.delete)).collect::<Vec<_>>();
        for cut_at in [data.len() / 2, data.len() / 3 + 7, 300_001] {
            let t = Trace::parse(&data[..cut_at]).unwrap();
            let cut = t.cut.expect("cut");
            assert!(cut.at_byte < cut_at as u64);
            let lost = cut.calls.expect("the chunk's header is whole");
            assert!(lost > 0 && !t.calls.is_empty() && t.calls.len() as u64 + lost < 40_000, "{cut:?}");
            for c in &t.calls {
                let same = full.calls.iter().find(|f| (f.thread, f.seq) == (c.thread, c.seq)).unwrap();
                assert_eq!((same.kind, same.intended_ns, key(&full, same)), (c.kind, c.intended_ns, key(&t, c)));
            }
        }
        // Cut inside a chunk's own header: the chunks before it, and a cut of unknown calls.
        let first_chunk_end = {
            let n = u32::from_le_bytes(data[10..14].try_into().unwrap()) as usize;
            let at = 14 + n;
            at + 12 + u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize
        };
        let t = Trace::parse(&data[..first_chunk_end + 5]).unwrap();
        assert_eq!(t.cut, Some(Cut { at_byte: first_chunk_end as u64, calls: None }));
        assert!(!t.calls.is_empty());
    }

    /// A chunk or a header that claims more threads than rumbench records
    /// is refused, not allocated for.
    #[test]
    fn a_damaged_thread_count_is_refused() {
        let header = |threads: u32| {
            let json = serde_json::to_vec(&TraceHeader { threads, ..Default::default() }).unwrap();
            let mut d = MAGIC.to_vec();
            d.extend_from_slice(&VERSION.to_le_bytes());
            d.extend_from_slice(&(json.len() as u32).to_le_bytes());
            d.extend_from_slice(&json);
            d
        };
        let mut d = header(4);
        for w in [0x7FFF_FFFFu32, 1, 0] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        let e = Trace::parse(&d).unwrap_err();
        assert!(e.contains("claims thread 2147483647") && e.contains("4 client threads"), "{e}");
        let e = Trace::parse(&header(1 << 30)).unwrap_err();
        assert!(e.contains("1073741824 client threads"), "{e}");
        assert!(check_head(&header(1 << 30)).is_err());
        // The background writer is the thread after the clients.
        let mut d = header(4);
        for w in [4u32, 0, 0] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(Trace::parse(&d).unwrap().threads, 5);
        // A header that is not JSON is found by the check before a run.
        let mut d = MAGIC.to_vec();
        d.extend_from_slice(&VERSION.to_le_bytes());
        d.extend_from_slice(&3u32.to_le_bytes());
        d.extend_from_slice(b"{x}");
        assert!(check_head(&d).unwrap_err().contains("header is not readable"));
    }

    #[test]
    fn a_rocksdb_trace_cut_or_unended_says_so() {
        let data = super::super::rocksdb_trace::tests::sample();
        let ended = |t: &Trace| matches!(t.source, TraceSource::Rocksdb { ended: true, .. });
        let t = Trace::parse(&data).unwrap();
        assert!(ended(&t) && t.cut.is_none());
        // Without its end record (13 bytes): the same calls, not ended.
        let t = Trace::parse(&data[..data.len() - 13]).unwrap();
        assert!(!ended(&t) && t.cut.is_none() && t.calls.len() == 4);
        // Cut inside the multiget: the three before it, and one record cut.
        let t = Trace::parse(&data[..data.len() - 20]).unwrap();
        assert_eq!(t.calls.len(), 3);
        assert_eq!(t.cut.and_then(|c| c.calls), Some(1));
    }

    #[test]
    fn the_recorded_thread_and_index_are_part_of_a_call() {
        let d = |thread, seq| {
            let mut d = CallDigest::new(thread, seq, CallKind::Get, 0);
            d.part(false, b"k", 0);
            d.finish()
        };
        assert_ne!(d(0, 0), d(1, 0));
        assert_ne!(d(0, 0), d(0, 1));
        assert_eq!(d(3, 9), d(3, 9));
    }

    #[test]
    fn a_rocksdb_trace_loads_as_one_thread() {
        let data = super::super::rocksdb_trace::tests::sample();
        let t = Trace::parse(&data).unwrap();
        assert_eq!(t.threads, 1);
        assert!(!t.calls.is_empty());
        assert!(matches!(t.source, TraceSource::Rocksdb { .. }));
        assert!(t.calls.windows(2).all(|w| w[0].seq < w[1].seq && w[0].intended_ns <= w[1].intended_ns));
        let kinds: Vec<_> = t.calls.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [CallKind::Put, CallKind::Get, CallKind::Seek, CallKind::MultiGet]);
        assert_eq!(t.calls[0].intended_ns, 100_000, "us after the header's, in ns");
        let TraceSource::Rocksdb { skipped, .. } = &t.source else { unreachable!() };
        assert_eq!(
            skipped,
            &[
                "1 batch entries on a column family other than the default",
                "1 keys of a multiget on a column family other than the default"
            ]
        );
        let data = include_bytes!("../../../../tests/fixtures/rocksdb_trace/mixgraph-300.trace");
        let t = Trace::parse(data).unwrap();
        let count = |k| t.calls.iter().filter(|c| c.kind == k).count();
        assert_eq!((count(CallKind::Get), count(CallKind::Put), count(CallKind::Seek)), (177, 93, 30));
    }
}
