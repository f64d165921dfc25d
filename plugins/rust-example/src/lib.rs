//! rust-example: a rumbench storage-engine plugin in Rust, and the example to
//! copy to bring your own engine (see README.md).
//!
//! The engine is a small log-structured key-value store: a `BTreeMap` in
//! memory behind an `RwLock`, and an append-only log, `data.log` in the
//! directory rumbench gives, that `open` replays to rebuild the map. Each
//! put, delete, batch and committed transaction appends one record:
//!
//! ```text
//! record = checksum: u64 LE | len: u32 LE | payload (len bytes)
//! payload = op*;  op = 0u8 key value (put) | 1u8 key (delete);  key, value = len: u32 LE | bytes
//! ```
//!
//! The checksum is FNV-1a 64 of `len` and the payload. Replay stops at the
//! first record that is cut short or fails its checksum (a write torn by a
//! crash) and truncates the log there, so later records follow good ones.
//!
//! Options: `sync` (true|false, default false): flush and `sync_data` the log
//! after every record; `buffer_size` (bytes, or with a K, M or G suffix;
//! default 1M; 0 = unbuffered): the log writer's buffer. With `sync=false` a
//! record stays in that buffer until it fills, or until `flush`, `sync` or
//! `close`: a crash of the process loses what is there.
//!
//! Locks: writers take the log's `Mutex` (which orders them), append, then
//! apply to the map under its write lock; readers only take the read lock,
//! so an fsync never blocks them. A scan keeps no lock across calls: each
//! `scan_next` looks up the entry after the cursor's key afresh. But it
//! holds a place in the `ScanGate` from seek to `scan_end`, and writers
//! apply nothing while a scan is open (and new scans wait for a waiting
//! writer), so a scan never sees half a batch. Every entry carries the
//! sequence number of the record that wrote it: optimistic transactions
//! check at commit, under the log's mutex, that each key they read for
//! update still has the version they saw.
//!
//! The `extern "C"` layer at the end turns the ABI's raw pointers into Rust
//! types, catches panics, and reports errors in the caller's `rb_error`.
#![deny(unsafe_op_in_unsafe_fn)]

/// The ABI, from rumbench's one binding of include/rumbench_engine.h.
pub use rumbench_engine_abi as abi;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_void, CStr, CString};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::mem::ManuallyDrop;
use std::ops::Bound;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, RwLock};

use abi::*;

// ---- Options ----

#[derive(Clone, Copy, Debug)]
struct Options {
    sync: bool,
    buffer_size: usize,
}

impl Options {
    /// The options from name=value pairs, or a one-line error naming the bad one.
    fn parse<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Options, String> {
        let mut o = Options { sync: false, buffer_size: 1 << 20 };
        for (name, value) in pairs {
            match (name, value) {
                ("sync", "true" | "false") => o.sync = value == "true",
                ("sync", _) => return Err(format!("option sync={value:?}: valid values are true and false")),
                ("buffer_size", _) => {
                    let valid = "bytes or a size with K, M or G (64K, 1M), at most 1G";
                    o.buffer_size = parse_size(value)
                        .ok_or_else(|| format!("option buffer_size={value:?}: valid values are {valid}"))?;
                }
                _ => return Err(format!("unknown option {name:?}: valid options are sync and buffer_size")),
            }
        }
        Ok(o)
    }
}

/// "4096", "64K", "1M", "1G" (K = 1024) up to 1 GiB.
fn parse_size(s: &str) -> Option<usize> {
    let (digits, shift) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 10),
        b'm' | b'M' => (&s[..s.len() - 1], 20),
        b'g' | b'G' => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    let bytes = digits.parse::<usize>().ok()?.checked_mul(1 << shift)?;
    (bytes <= 1 << 30).then_some(bytes)
}

// ---- The log's records ----

/// The record format's version, shown in effective_options.
const LOG_FORMAT: &str = "1";
const LOG_FILE: &str = "data.log";
/// A record's header: checksum (8 bytes) and payload length (4).
const HEADER: usize = 12;
const PUT: u8 = 0;
const DEL: u8 = 1;

/// FNV-1a 64 of the parts one after another.
fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let bytes = parts.iter().flat_map(|p| p.iter());
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Builds one record in a reusable buffer: `begin`, `put`/`del`, `finish`.
struct Record(Vec<u8>);

impl Record {
    fn begin(&mut self) -> &mut Self {
        self.0.clear();
        self.0.resize(HEADER, 0);
        self
    }
    fn bytes(&mut self, b: &[u8]) {
        // A length that does not fit makes the whole record too long: finish refuses it.
        self.0.extend_from_slice(&(b.len() as u32).to_le_bytes());
        self.0.extend_from_slice(b);
    }
    fn put(&mut self, key: &[u8], value: &[u8]) {
        self.0.push(PUT);
        self.bytes(key);
        self.bytes(value);
    }
    fn del(&mut self, key: &[u8]) {
        self.0.push(DEL);
        self.bytes(key);
    }
    /// Fills in the header; the record is then `self.0`.
    fn finish(&mut self) -> Res<&[u8]> {
        let len =
            u32::try_from(self.0.len() - HEADER).map_err(|_| fail("a record (batch or transaction) over 4 GiB"))?;
        self.0[8..HEADER].copy_from_slice(&len.to_le_bytes());
        let sum = fnv1a64(&[&self.0[8..]]);
        self.0[..8].copy_from_slice(&sum.to_le_bytes());
        Ok(&self.0)
    }
}

type Map = BTreeMap<Vec<u8>, Entry>;

struct Entry {
    value: Vec<u8>,
    /// The sequence number of the record that wrote it.
    version: u64,
}

/// What a payload did.
#[derive(Default)]
struct Applied {
    puts: u64,
    deletes: u64,
    /// User bytes: keys and values.
    bytes: u64,
}

/// Applies a record's payload to the map; None when it is malformed.
fn apply(map: &mut Map, mut p: &[u8], version: u64) -> Option<Applied> {
    fn take<'a>(p: &mut &'a [u8]) -> Option<&'a [u8]> {
        let (len, rest) = p.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let (b, rest) = (rest.get(..len)?, &rest[len..]);
        *p = rest;
        Some(b)
    }
    let mut done = Applied::default();
    while let Some((&kind, rest)) = p.split_first() {
        p = rest;
        let key = take(&mut p)?;
        match kind {
            PUT => {
                let value = take(&mut p)?;
                match map.get_mut(key) {
                    Some(e) => {
                        e.value.clear();
                        e.value.extend_from_slice(value);
                        e.version = version;
                    }
                    None => {
                        map.insert(key.to_vec(), Entry { value: value.to_vec(), version });
                    }
                }
                done.puts += 1;
                done.bytes += (key.len() + value.len()) as u64;
            }
            DEL => {
                map.remove(key);
                done.deletes += 1;
                done.bytes += key.len() as u64;
            }
            _ => return None,
        }
    }
    Some(done)
}

// ---- The engine ----

/// Why a call failed: its status and one-line text.
#[derive(Debug)]
enum Fail {
    Error(String),
    Conflict(String),
}

type Res<T = RbStatus> = Result<T, Fail>;

fn fail(text: impl Into<String>) -> Fail {
    Fail::Error(text.into())
}

/// An io::Error as a Fail saying what failed.
fn io_err<'a>(path: &'a Path, what: &'a str) -> impl FnOnce(io::Error) -> Fail + 'a {
    move |e| fail(format!("{}: {what}: {e}", path.display()))
}

const POISONED: &str = "an earlier call panicked while holding the engine's lock";

struct Log {
    writer: BufWriter<File>,
    /// The sequence number of the last record.
    seq: u64,
    /// A write failed: the log may end in part of a record, so nothing more is appended.
    failed: bool,
}

#[derive(Default)]
struct Stats {
    ingest_bytes: AtomicU64,
    written_bytes: AtomicU64,
    log_bytes: AtomicU64,
    truncated_bytes: AtomicU64,
    puts: AtomicU64,
    deletes: AtomicU64,
    gets: AtomicU64,
    batches: AtomicU64,
    commits: AtomicU64,
    conflicts: AtomicU64,
    /// Sessions opened by session_open_thread, which says the client's thread.
    thread_sessions: AtomicU64,
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Relaxed);
}

/// Open scans and waiting writers: a lock whose read side is held across
/// calls (from `scan_seek` to `scan_end`), so it has no guard.
#[derive(Default)]
struct ScanGate {
    state: Mutex<Gate>,
    changed: Condvar,
}

#[derive(Default)]
struct Gate {
    scans: usize,
    writers: usize,
}

impl ScanGate {
    /// Waits for `until` to be false, then runs `then` on the state.
    fn when<T>(&self, until: impl FnMut(&mut Gate) -> bool, then: impl FnOnce(&mut Gate) -> T) -> T {
        let g = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut g = self.changed.wait_while(g, until).unwrap_or_else(PoisonError::into_inner);
        let out = then(&mut g);
        self.changed.notify_all();
        out
    }
    /// A scan starts once no writer waits.
    fn enter(&self) {
        self.when(|g| g.writers > 0, |g| g.scans += 1)
    }
    fn leave(&self) {
        self.when(|_| false, |g| g.scans -= 1)
    }
    /// Runs `apply` once no scan is open, keeping new ones out meanwhile.
    fn write<T>(&self, apply: impl FnOnce() -> T) -> T {
        self.when(|_| false, |g| g.writers += 1);
        self.when(
            |g| g.scans > 0,
            |g| {
                g.writers -= 1;
                apply()
            },
        )
    }
}

struct Engine {
    opts: Options,
    path: PathBuf,
    map: RwLock<Map>,
    log: Mutex<Log>,
    gate: ScanGate,
    stats: Stats,
}

impl Engine {
    fn open(dir: &Path, create: bool, opts: Options) -> Res<Engine> {
        let path = dir.join(LOG_FILE);
        let file =
            OpenOptions::new().read(true).append(true).create(create).open(&path).map_err(io_err(&path, "open"))?;
        let size = file.metadata().map_err(io_err(&path, "stat"))?.len();
        let stats = Stats::default();
        let (mut map, mut seq, mut good) = (Map::new(), 0, 0u64);
        let (mut reader, mut payload) = (BufReader::new(&file), Vec::new());
        loop {
            let mut head = [0u8; HEADER];
            match reader.read_exact(&mut head) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                r => r.map_err(io_err(&path, "read"))?,
            }
            let len = u32::from_le_bytes(head[8..].try_into().unwrap());
            if good + (HEADER as u64) + len as u64 > size {
                break; // cut short
            }
            payload.resize(len as usize, 0);
            reader.read_exact(&mut payload).map_err(io_err(&path, "read"))?;
            let sum = fnv1a64(&[&head[8..], &payload]);
            if sum != u64::from_le_bytes(head[..8].try_into().unwrap()) {
                break; // torn
            }
            seq += 1;
            apply(&mut map, &payload, seq).ok_or_else(|| {
                fail(format!("{}: the record at byte {good} is malformed (with a right checksum)", path.display()))
            })?;
            good += (HEADER + payload.len()) as u64;
        }
        drop(reader);
        if good < size {
            file.set_len(good).map_err(io_err(&path, "truncate a torn tail"))?;
        }
        add(&stats.truncated_bytes, size - good);
        add(&stats.log_bytes, good);
        let log = Log { writer: BufWriter::with_capacity(opts.buffer_size, file), seq, failed: false };
        Ok(Engine { opts, path, map: RwLock::new(map), log: Mutex::new(log), gate: ScanGate::default(), stats })
    }

    /// Appends a record and applies it, when `check` (run first, while no
    /// other writer can run) passes. An empty record is only checked.
    fn write(&self, record: &[u8], check: impl FnOnce(&Map) -> Res<()>) -> Res<()> {
        let mut log = self.log.lock().map_err(|_| fail(POISONED))?;
        check(&*self.map.read().map_err(|_| fail(POISONED))?)?;
        if record.len() == HEADER {
            return Ok(());
        }
        if log.failed {
            return Err(fail(format!("{}: an earlier write failed; reopen the engine", self.path.display())));
        }
        let mut append = || {
            log.writer.write_all(record)?;
            if self.opts.sync {
                log.writer.flush()?;
                log.writer.get_ref().sync_data()?;
            }
            io::Result::Ok(())
        };
        if let Err(e) = append() {
            log.failed = true;
            return Err(io_err(&self.path, "append")(e));
        }
        log.seq += 1;
        let applied = self.gate.write(|| {
            let mut map = self.map.write().map_err(|_| fail(POISONED))?;
            Ok(apply(&mut map, &record[HEADER..], log.seq).expect("a record of ours"))
        });
        let Applied { puts, deletes, bytes } = applied?;
        let s = &self.stats;
        add(&s.written_bytes, record.len() as u64);
        add(&s.log_bytes, record.len() as u64);
        add(&s.ingest_bytes, bytes);
        add(&s.puts, puts);
        add(&s.deletes, deletes);
        Ok(())
    }

    /// Copies the key's value into `out`: its version, None when absent.
    fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Res<Option<u64>> {
        add(&self.stats.gets, 1);
        let map = self.map.read().map_err(|_| fail(POISONED))?;
        Ok(map.get(key).map(|e| {
            out.clear();
            out.extend_from_slice(&e.value);
            e.version
        }))
    }

    /// Writes the buffer to the file; with `durable`, fsyncs it too.
    fn flush(&self, durable: bool) -> Res<()> {
        let mut log = self.log.lock().map_err(|_| fail(POISONED))?;
        log.writer.flush().map_err(io_err(&self.path, "write"))?;
        if durable {
            log.writer.get_ref().sync_data().map_err(io_err(&self.path, "fsync"))?;
        }
        Ok(())
    }

    fn effective_options(&self) -> Vec<(&'static str, String)> {
        let o = &self.opts;
        let path = self.path.display().to_string();
        vec![
            ("sync", o.sync.to_string()),
            ("buffer_size", o.buffer_size.to_string()),
            ("path", path),
            ("log_format", LOG_FORMAT.into()),
        ]
    }

    fn stats(&self) -> Vec<(&'static str, String)> {
        let s = &self.stats;
        let keys = self.map.read().map(|m| m.len().to_string()).unwrap_or_else(|_| "?".into());
        let counters = [
            ("ingest_bytes", &s.ingest_bytes),
            ("written_bytes", &s.written_bytes),
            ("log_bytes", &s.log_bytes),
            ("truncated_bytes", &s.truncated_bytes),
            ("puts", &s.puts),
            ("deletes", &s.deletes),
            ("gets", &s.gets),
            ("batches", &s.batches),
            ("commits", &s.commits),
            ("conflicts", &s.conflicts),
            ("thread_sessions", &s.thread_sessions),
        ];
        let mut out: Vec<_> = counters.iter().map(|(n, c)| (*n, c.load(Relaxed).to_string())).collect();
        out.push(("keys", keys));
        out
    }
}

// ---- Sessions ----

/// One client thread's state. What `get`, `scan_next` and
/// `txn_get_for_update` hand back lives in `key` and `value` until the next call.
struct Session {
    engine: Arc<Engine>,
    record: Record,
    key: Vec<u8>,
    value: Vec<u8>,
    cursor: Option<Cursor>,
    txn: Option<Txn>,
}

/// Where a scan is: the position is `Session::key` (no lock is held across calls).
struct Cursor {
    reverse: bool,
    at: Pos,
    /// scan_seek_bounded's end key (exclusive) and the entries left (None: no bound).
    end: Option<Vec<u8>>,
    left: Option<u64>,
    _open: OpenScan,
}

/// A scan's place in the engine's `ScanGate`, left when the cursor goes.
struct OpenScan(Arc<Engine>);

impl OpenScan {
    fn new(engine: &Arc<Engine>) -> OpenScan {
        engine.gate.enter();
        OpenScan(Arc::clone(engine))
    }
}

impl Drop for OpenScan {
    fn drop(&mut self) {
        self.0.gate.leave();
    }
}

enum Pos {
    /// Before the first key (a forward scan from an empty start).
    Start,
    /// Nothing to visit: a reverse scan from an empty start, which is
    /// before every key (the header's rule).
    Nothing,
    /// At `key` (the seek's start).
    At,
    /// Past `key` (the last one returned).
    After,
}

#[derive(Default)]
struct Txn {
    /// The keys read for update, with the version seen (None: absent).
    reads: HashMap<Vec<u8>, Option<u64>>,
    writes: BTreeMap<Vec<u8>, Vec<u8>>,
}

fn found(yes: bool) -> RbStatus {
    if yes {
        RbStatus::OK
    } else {
        RbStatus::NOT_FOUND
    }
}

const NO_TXN: &str = "no transaction is open on this session (txn_begin first)";

impl Session {
    fn new(engine: Arc<Engine>) -> Session {
        Session { engine, record: Record(Vec::new()), key: Vec::new(), value: Vec::new(), cursor: None, txn: None }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Res {
        self.record.begin().put(key, value);
        self.write(|_| Ok(()))
    }

    fn del(&mut self, key: &[u8]) -> Res {
        self.record.begin().del(key);
        self.write(|_| Ok(()))
    }

    /// Writes the record built, when `check` passes. It ends a scan left
    /// open (against the header's rules), which would otherwise hold it off forever.
    fn write(&mut self, check: impl FnOnce(&Map) -> Res<()>) -> Res {
        self.cursor = None;
        self.engine.write(self.record.finish()?, check)?;
        Ok(RbStatus::OK)
    }

    fn get(&mut self, key: &[u8]) -> Res {
        Ok(found(self.engine.get(key, &mut self.value)?.is_some()))
    }

    /// All or nothing: one record, applied under the map's write lock.
    fn write_batch<'a>(&mut self, ops: impl Iterator<Item = (u32, &'a [u8], &'a [u8])>) -> Res {
        let r = self.record.begin();
        for (i, (kind, key, value)) in ops.enumerate() {
            match kind {
                RB_PUT => r.put(key, value),
                RB_DELETE => r.del(key),
                _ => return Err(fail(format!("write_batch: op {i} has kind {kind}, not RB_PUT (0) or RB_DELETE (1)"))),
            }
        }
        let status = self.write(|_| Ok(()))?;
        add(&self.engine.stats.batches, 1);
        Ok(status)
    }

    /// How many of the keys exist, under one read lock.
    fn multi_get<'a>(&mut self, keys: impl ExactSizeIterator<Item = &'a [u8]>) -> Res<usize> {
        add(&self.engine.stats.gets, keys.len() as u64);
        let map = self.engine.map.read().map_err(|_| fail(POISONED))?;
        Ok(keys.filter(|k| map.contains_key(*k)).count())
    }

    /// The values of the keys that exist, each handed to `emit` with its
    /// index, under one read lock.
    fn multi_get_values<'a>(
        &mut self,
        keys: impl ExactSizeIterator<Item = &'a [u8]>,
        mut emit: impl FnMut(usize, &[u8]),
    ) -> Res<usize> {
        add(&self.engine.stats.gets, keys.len() as u64);
        let map = self.engine.map.read().map_err(|_| fail(POISONED))?;
        let mut found = 0;
        for (i, k) in keys.enumerate() {
            if let Some(e) = map.get(k) {
                emit(i, &e.value);
                found += 1;
            }
        }
        Ok(found)
    }

    /// A scan from `start`, stopping before `end` (exclusive) and after
    /// `count` entries when given.
    fn scan_seek(&mut self, start: &[u8], reverse: bool, end: Option<&[u8]>, count: Option<u64>) -> Res {
        self.cursor = None; // leaves the gate before entering it again
        self.key.clear();
        self.key.extend_from_slice(start);
        let at = match (start.is_empty(), reverse) {
            (true, false) => Pos::Start,
            (true, true) => Pos::Nothing,
            (false, _) => Pos::At,
        };
        let (end, left) = (end.map(<[u8]>::to_vec), count);
        self.cursor = Some(Cursor { reverse, at, end, left, _open: OpenScan::new(&self.engine) });
        Ok(RbStatus::OK)
    }

    /// The entry at the cursor, looked up afresh from its position.
    fn scan_next(&mut self) -> Res {
        let c = self.cursor.as_mut().ok_or_else(|| fail("scan_next without scan_seek"))?;
        let bound = match c.at {
            Pos::Nothing => return Ok(RbStatus::NOT_FOUND),
            Pos::Start => Bound::Unbounded,
            Pos::At => Bound::Included(&self.key[..]),
            Pos::After => Bound::Excluded(&self.key[..]),
        };
        let map = self.engine.map.read().map_err(|_| fail(POISONED))?;
        let found = if c.reverse {
            map.range::<[u8], _>((Bound::Unbounded, bound)).next_back()
        } else {
            map.range::<[u8], _>((bound, Bound::Unbounded)).next()
        };
        let Some((k, e)) = found else { return Ok(RbStatus::NOT_FOUND) };
        let past_end =
            c.end.as_deref().is_some_and(|end| if c.reverse { k.as_slice() <= end } else { k.as_slice() >= end });
        if past_end || c.left == Some(0) {
            return Ok(RbStatus::NOT_FOUND);
        }
        if let Some(left) = &mut c.left {
            *left -= 1;
        }
        self.key.clear();
        self.key.extend_from_slice(k);
        self.value.clear();
        self.value.extend_from_slice(&e.value);
        c.at = Pos::After;
        Ok(RbStatus::OK)
    }

    fn txn_begin(&mut self) -> Res {
        if self.txn.is_some() {
            return Err(fail("txn_begin: a transaction is already open on this session"));
        }
        self.txn = Some(Txn::default());
        Ok(RbStatus::OK)
    }

    /// The value (this transaction's own write first), remembering its version.
    fn txn_get_for_update(&mut self, key: &[u8]) -> Res {
        let txn = self.txn.as_mut().ok_or_else(|| fail(NO_TXN))?;
        if let Some(v) = txn.writes.get(key) {
            self.value.clear();
            self.value.extend_from_slice(v);
            return Ok(RbStatus::OK);
        }
        let version = self.engine.get(key, &mut self.value)?;
        txn.reads.entry(key.to_vec()).or_insert(version);
        Ok(found(version.is_some()))
    }

    fn txn_put(&mut self, key: &[u8], value: &[u8]) -> Res {
        let txn = self.txn.as_mut().ok_or_else(|| fail(NO_TXN))?;
        txn.writes.insert(key.to_vec(), value.to_vec());
        Ok(RbStatus::OK)
    }

    /// Ends the transaction whatever the outcome: committed, or rolled back.
    fn txn_commit(&mut self) -> Res {
        let txn = self.txn.take().ok_or_else(|| fail(NO_TXN))?;
        let r = self.record.begin();
        txn.writes.iter().for_each(|(k, v)| r.put(k, v));
        let check = |map: &Map| {
            for (key, seen) in &txn.reads {
                if map.get(&key[..]).map(|e| e.version) != *seen {
                    let key = key.escape_ascii().to_string();
                    return Err(Fail::Conflict(format!(
                        "conflict: key \"{key}\" changed after this transaction read it"
                    )));
                }
            }
            Ok(())
        };
        match self.write(check) {
            Ok(_) => add(&self.engine.stats.commits, 1),
            Err(e @ Fail::Conflict(_)) => {
                add(&self.engine.stats.conflicts, 1);
                return Err(e);
            }
            Err(e) => return Err(e),
        }
        Ok(RbStatus::OK)
    }
}

// ---- The C ABI ----
//
// Each function turns its raw arguments into Rust values and calls the
// engine or the session inside `call`, which catches panics and writes the
// error text. rumbench passes valid pointers (the header's rules); handles
// and out pointers are checked for NULL, and a NULL key of length 0 is the
// empty key.

type Eng = *mut RbEngine;
type Ses = *mut RbSession;
type ErrBuf = *mut RbError;
type Bytes = *const u8;

/// Runs `f`, catching a panic: returns its status, writing the text of a failure to `err`.
fn call(err: ErrBuf, f: impl FnOnce() -> Res) -> RbStatus {
    let (status, text) = match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(status)) => return status,
        Ok(Err(Fail::Error(text))) => (RbStatus::ERROR, text),
        Ok(Err(Fail::Conflict(text))) => (RbStatus::CONFLICT, text),
        Err(payload) => (RbStatus::ERROR, format!("rust-example panicked: {}", panic_text(&*payload))),
    };
    // SAFETY: err is NULL or the rb_error rumbench passed, writable during the call.
    if let Some(e) = unsafe { err.as_mut() } {
        // One line, cut to fit (on a character boundary) with room for the NUL.
        let mut end = text.len().min(RB_ERROR_TEXT - 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        for (dst, &b) in e.text.iter_mut().zip(&text.as_bytes()[..end]) {
            *dst = if b == b'\n' || b == b'\r' || b == 0 { b' ' } else { b } as c_char;
        }
        e.text[end] = 0;
    }
    status
}

/// For the calls that return nothing: a panic is reported on stderr.
fn call_void<T: Default>(what: &str, f: impl FnOnce() -> T) -> T {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        eprintln!("rust-example: {what} panicked: {}", panic_text(&*p));
        T::default()
    })
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    let text = payload.downcast_ref::<&str>().copied();
    text.or_else(|| payload.downcast_ref::<String>().map(|s| s.as_str())).unwrap_or("?")
}

/// # Safety
/// `p` is valid for `n` elements during `'a`, or `n` is 0.
unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// # Safety
/// `p` is NULL or a C string valid during `'a`.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Res<&'a str> {
    if p.is_null() {
        return Err(fail(format!("{what} is NULL")));
    }
    // SAFETY: the caller's promise; p is not NULL.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| fail(format!("{what} is not UTF-8")))
}

/// # Safety
/// `p` points to `n` pairs of C strings, valid during the call.
unsafe fn options(p: *const RbPair, n: usize) -> Res<Options> {
    let mut named = Vec::with_capacity(n);
    // SAFETY: the caller's promise.
    for pair in unsafe { slice(p, n) } {
        // SAFETY: the caller's promise.
        named.push(unsafe { (text(pair.name, "an option's name")?, text(pair.value, "an option's value")?) });
    }
    Options::parse(named).map_err(Fail::Error)
}

/// # Safety
/// `e` is NULL or a handle from `open` not yet closed.
unsafe fn engine<'a>(e: Eng) -> Res<&'a Engine> {
    // SAFETY: the caller's promise: open made it with Arc::into_raw.
    unsafe { e.cast::<Engine>().as_ref() }.ok_or_else(|| fail("the engine is NULL"))
}

/// # Safety
/// `s` is NULL or a handle from `session_open` not yet closed, used by one thread at a time.
unsafe fn session<'a>(s: Ses) -> Res<&'a mut Session> {
    // SAFETY: the caller's promise: session_open made it with Box::into_raw.
    unsafe { s.cast::<Session>().as_mut() }.ok_or_else(|| fail("the session is NULL"))
}

/// # Safety
/// `p` is NULL or writable.
unsafe fn set<T>(p: *mut T, v: T) {
    // SAFETY: the caller's promise.
    if let Some(p) = unsafe { p.as_mut() } {
        *p = v;
    }
}

unsafe extern "C" fn check_options(opts: *const RbPair, n: usize, err: ErrBuf) -> RbStatus {
    // SAFETY: rumbench passes n valid pairs.
    call(err, || unsafe { options(opts, n) }.map(|_| RbStatus::OK))
}

unsafe extern "C" fn open(
    args: *const RbOpenArgs,
    opts: *const RbPair,
    n: usize,
    out: *mut Eng,
    err: ErrBuf,
) -> RbStatus {
    call(err, || {
        // SAFETY: rumbench passes valid args of args.struct_size bytes, and n valid pairs.
        let (args, opts) = unsafe { (args.as_ref().ok_or_else(|| fail("args is NULL"))?, options(opts, n)?) };
        if (args.struct_size as usize) < size_of::<RbOpenArgs>() {
            return Err(fail(format!("rb_open_args is {} bytes, not {}", args.struct_size, size_of::<RbOpenArgs>())));
        }
        if args.read_only != 0 {
            return Err(fail("read_only: this engine has no read-only mode"));
        }
        // SAFETY: dir is a C string valid during the call.
        let dir = unsafe { text(args.dir, "args->dir") }?;
        let engine = Engine::open(Path::new(dir), args.create != 0, opts)?;
        // SAFETY: out is writable; close releases the handle.
        unsafe { set(out, Arc::into_raw(Arc::new(engine)).cast_mut().cast()) };
        Ok(RbStatus::OK)
    })
}

unsafe extern "C" fn close(e: Eng) {
    if e.is_null() {
        return;
    }
    // SAFETY: e came from open's Arc::into_raw and this is its last use (sessions hold their own Arc).
    let engine = unsafe { Arc::from_raw(e.cast_const().cast::<Engine>()) };
    call_void("close", || {
        if let Err(Fail::Error(text) | Fail::Conflict(text)) = engine.flush(true) {
            eprintln!("rust-example: close: {text}");
        }
    })
}

/// Sends each pair to `emit`.
fn emit_all(pairs: Vec<(&str, String)>, emit: RbEmitFn, ctx: *mut c_void) {
    let Some(emit) = emit else { return };
    for (name, value) in pairs {
        let (name, value) = (CString::new(name).unwrap(), CString::new(value).unwrap_or_default());
        // SAFETY: emit is rumbench's callback, ctx its argument; the strings live during the call.
        unsafe { emit(ctx, name.as_ptr(), value.as_ptr()) };
    }
}

unsafe extern "C" fn effective_options(e: Eng, emit: RbEmitFn, ctx: *mut c_void) {
    // SAFETY: e is an open engine.
    call_void("effective_options", || unsafe { engine(e) }.map(|e| emit_all(e.effective_options(), emit, ctx)).ok());
}

unsafe extern "C" fn stats(e: Eng, emit: RbEmitFn, ctx: *mut c_void) {
    // SAFETY: e is an open engine.
    call_void("stats", || unsafe { engine(e) }.map(|e| emit_all(e.stats(), emit, ctx)).ok());
}

unsafe extern "C" fn syncs_writes(e: Eng) -> i32 {
    // SAFETY: e is an open engine.
    call_void("syncs_writes", || unsafe { engine(e) }.map(|e| e.opts.sync as i32).unwrap_or(0))
}

unsafe extern "C" fn sync(e: Eng, err: ErrBuf) -> RbStatus {
    // SAFETY: e is an open engine.
    call(err, || unsafe { engine(e) }?.flush(true).map(|()| RbStatus::OK))
}

unsafe extern "C" fn flush(e: Eng, err: ErrBuf) -> RbStatus {
    // SAFETY: e is an open engine.
    call(err, || unsafe { engine(e) }?.flush(false).map(|()| RbStatus::OK))
}

unsafe extern "C" fn session_open(e: Eng, out: *mut Ses, err: ErrBuf) -> RbStatus {
    call(err, || {
        // SAFETY: e is an open engine, made by Arc::into_raw: ManuallyDrop leaves its count alone.
        let arc = ManuallyDrop::new(unsafe { Arc::from_raw(engine(e)? as *const Engine) });
        let session = Box::new(Session::new(Arc::clone(&arc)));
        // SAFETY: out is writable; session_close releases the session.
        unsafe { set(out, Box::into_raw(session).cast()) };
        Ok(RbStatus::OK)
    })
}

/// This engine keeps nothing per thread: it counts the sessions it was told
/// a thread of (the header's thread index, 0 to threads - 1, then a writer).
unsafe extern "C" fn session_open_thread(e: Eng, _thread: u32, out: *mut Ses, err: ErrBuf) -> RbStatus {
    // SAFETY: as session_open's (the same arguments, and the thread index).
    let status = unsafe { session_open(e, out, err) };
    if status == RbStatus::OK {
        // SAFETY: e is an open engine.
        if let Ok(e) = unsafe { engine(e) } {
            add(&e.stats.thread_sessions, 1);
        }
    }
    status
}

unsafe extern "C" fn session_close(s: Ses) {
    if !s.is_null() {
        // SAFETY: s came from session_open's Box::into_raw and this is its last use.
        let session = unsafe { Box::from_raw(s.cast::<Session>()) };
        call_void("session_close", || drop(session));
    }
}

unsafe extern "C" fn put(s: Ses, k: Bytes, klen: usize, v: Bytes, vlen: usize, err: ErrBuf) -> RbStatus {
    // SAFETY: s is an open session; k and v are valid for their lengths.
    call(err, || unsafe { session(s)?.put(slice(k, klen), slice(v, vlen)) })
}

unsafe extern "C" fn del(s: Ses, k: Bytes, klen: usize, err: ErrBuf) -> RbStatus {
    // SAFETY: s is an open session; k is valid for klen bytes.
    call(err, || unsafe { session(s)?.del(slice(k, klen)) })
}

unsafe extern "C" fn get(s: Ses, k: Bytes, klen: usize, v: *mut Bytes, vlen: *mut usize, err: ErrBuf) -> RbStatus {
    call(err, || {
        // SAFETY: s is an open session; k is valid for klen bytes.
        let (s, k) = unsafe { (session(s)?, slice(k, klen)) };
        let status = s.get(k)?;
        // SAFETY: the out pointers are writable; s.value stays until the next call on s.
        unsafe { (set(v, s.value.as_ptr()), set(vlen, s.value.len())) };
        Ok(status)
    })
}

unsafe extern "C" fn write_batch(s: Ses, ops: *const RbBatchOp, n: usize, err: ErrBuf) -> RbStatus {
    call(err, || {
        // SAFETY: ops points to n ops whose keys and values are valid for their lengths
        // (a delete's value is not read).
        let ops = unsafe { slice(ops, n) }.iter().map(|op| unsafe {
            let value = if op.kind == RB_PUT { slice(op.value, op.value_len) } else { &[] };
            (op.kind, slice(op.key, op.key_len), value)
        });
        // SAFETY: s is an open session.
        unsafe { session(s)? }.write_batch(ops)
    })
}

unsafe extern "C" fn multi_get(
    s: Ses,
    keys: Bytes,
    ksize: usize,
    n: usize,
    found: *mut usize,
    err: ErrBuf,
) -> RbStatus {
    call(err, || {
        let total = ksize.checked_mul(n).ok_or_else(|| fail("multi_get: key_size * count overflows"))?;
        // SAFETY: s is an open session; keys holds n keys of ksize bytes back to back.
        let (s, keys) = unsafe { (session(s)?, slice(keys, total)) };
        let count = match ksize {
            0 => s.multi_get(std::iter::repeat_n(&[][..], n))?, // every key is the empty key
            _ => s.multi_get(keys.chunks_exact(ksize))?,
        };
        // SAFETY: found is writable.
        unsafe { set(found, count) };
        Ok(RbStatus::OK)
    })
}

#[allow(clippy::too_many_arguments, reason = "the header's multi_get_values")]
unsafe extern "C" fn multi_get_values(
    s: Ses,
    keys: Bytes,
    ksize: usize,
    n: usize,
    emit: RbValueFn,
    ctx: *mut c_void,
    found: *mut usize,
    err: ErrBuf,
) -> RbStatus {
    call(err, || {
        let total = ksize.checked_mul(n).ok_or_else(|| fail("multi_get_values: key_size * count overflows"))?;
        let emit = emit.ok_or_else(|| fail("multi_get_values: no emit function"))?;
        // SAFETY: s is an open session; keys holds n keys of ksize bytes back to back.
        let (s, keys) = unsafe { (session(s)?, slice(keys, total)) };
        // SAFETY: emit is rumbench's callback, ctx its argument; the value lives during the call.
        let give = |i: usize, v: &[u8]| unsafe { emit(ctx, i, v.as_ptr(), v.len()) };
        let count = match ksize {
            0 => s.multi_get_values(std::iter::repeat_n(&[][..], n), give)?,
            _ => s.multi_get_values(keys.chunks_exact(ksize), give)?,
        };
        // SAFETY: found is writable.
        unsafe { set(found, count) };
        Ok(RbStatus::OK)
    })
}

unsafe extern "C" fn scan_seek(s: Ses, start: Bytes, len: usize, reverse: i32, err: ErrBuf) -> RbStatus {
    // SAFETY: s is an open session; start is valid for len bytes.
    call(err, || unsafe { session(s)?.scan_seek(slice(start, len), reverse != 0, None, None) })
}

#[allow(clippy::too_many_arguments, reason = "the header's scan_seek_bounded")]
unsafe extern "C" fn scan_seek_bounded(
    s: Ses,
    start: Bytes,
    len: usize,
    reverse: i32,
    end: Bytes,
    end_len: usize,
    count: u64,
    err: ErrBuf,
) -> RbStatus {
    call(err, || {
        // SAFETY: end, when not null, is valid for end_len bytes.
        let end = (!end.is_null()).then(|| unsafe { slice(end, end_len) });
        let count = (count > 0).then_some(count);
        // SAFETY: s is an open session; start is valid for len bytes.
        unsafe { session(s)?.scan_seek(slice(start, len), reverse != 0, end, count) }
    })
}

unsafe extern "C" fn scan_next(
    s: Ses,
    k: *mut Bytes,
    kl: *mut usize,
    v: *mut Bytes,
    vl: *mut usize,
    err: ErrBuf,
) -> RbStatus {
    call(err, || {
        // SAFETY: s is an open session.
        let s = unsafe { session(s)? };
        let status = s.scan_next()?;
        // SAFETY: the out pointers are writable; s.key and s.value stay until the next call on s.
        unsafe { (set(k, s.key.as_ptr()), set(kl, s.key.len()), set(v, s.value.as_ptr()), set(vl, s.value.len())) };
        Ok(status)
    })
}

unsafe extern "C" fn scan_end(s: Ses) {
    // SAFETY: s is an open session.
    call_void("scan_end", || unsafe { session(s) }.map(|s| s.cursor = None).ok());
}

unsafe extern "C" fn txn_begin(s: Ses, err: ErrBuf) -> RbStatus {
    // SAFETY: s is an open session.
    call(err, || unsafe { session(s)? }.txn_begin())
}

unsafe extern "C" fn txn_get_for_update(
    s: Ses,
    k: Bytes,
    kl: usize,
    v: *mut Bytes,
    vl: *mut usize,
    err: ErrBuf,
) -> RbStatus {
    call(err, || {
        // SAFETY: s is an open session; k is valid for kl bytes.
        let (s, k) = unsafe { (session(s)?, slice(k, kl)) };
        let status = s.txn_get_for_update(k)?;
        // SAFETY: the out pointers are writable; s.value stays until the next call on s.
        unsafe { (set(v, s.value.as_ptr()), set(vl, s.value.len())) };
        Ok(status)
    })
}

unsafe extern "C" fn txn_put(s: Ses, k: Bytes, klen: usize, v: Bytes, vlen: usize, err: ErrBuf) -> RbStatus {
    // SAFETY: s is an open session; k and v are valid for their lengths.
    call(err, || unsafe { session(s)?.txn_put(slice(k, klen), slice(v, vlen)) })
}

unsafe extern "C" fn txn_commit(s: Ses, err: ErrBuf) -> RbStatus {
    // SAFETY: s is an open session.
    call(err, || unsafe { session(s)? }.txn_commit())
}

unsafe extern "C" fn txn_rollback(s: Ses) {
    // SAFETY: s is an open session.
    call_void("txn_rollback", || unsafe { session(s) }.map(|s| s.txn = None).ok());
}

/// Its options for `rumbench engines plugin:PATH` (a NULL name ends them).
static OPTION_DOCS: [RbOptionDoc; 3] = [
    RbOptionDoc {
        name: c"sync".as_ptr(),
        default_value: c"false".as_ptr(),
        help: c"fsync the log at every write (true) or leave it to the OS (false)".as_ptr(),
    },
    RbOptionDoc {
        name: c"buffer_size".as_ptr(),
        default_value: c"1M".as_ptr(),
        help: c"bytes of log records buffered before a write (64K, 1M; at most 1G)".as_ptr(),
    },
    RbOptionDoc { name: std::ptr::null(), default_value: std::ptr::null(), help: std::ptr::null() },
];

/// The table, and the build text it points to.
struct Exported {
    api: RbEngineApi,
    _build: CString,
}

// SAFETY: the table never changes once made; it points to static strings, to
// `_build` (owned alongside, never changed) and to functions.
unsafe impl Send for Exported {}
// SAFETY: as above.
unsafe impl Sync for Exported {}

fn exported() -> Exported {
    let profile = if cfg!(debug_assertions) { "debug (debug_assertions on)" } else { "release (debug_assertions off)" };
    let build = format!("rustc, {profile}, target {}-{}", std::env::consts::ARCH, std::env::consts::OS);
    let build = CString::new(build).unwrap();
    let api = RbEngineApi {
        abi_version: RB_ENGINE_ABI_VERSION,
        struct_size: size_of::<RbEngineApi>() as u32,
        capabilities: RB_CAP_WRITE_BATCH | RB_CAP_MULTI_GET | RB_CAP_REVERSE_SCAN | RB_CAP_FLUSH | RB_CAP_TRANSACTIONS,
        name: c"rust-example".as_ptr(),
        version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        build: build.as_ptr(),
        check_options: Some(check_options),
        open: Some(open),
        close: Some(close),
        effective_options: Some(effective_options),
        stats: Some(stats),
        syncs_writes: Some(syncs_writes),
        sync: Some(sync),
        flush: Some(flush),
        wait_idle: None, // no RB_CAP_WAIT_IDLE: there is no background work
        session_open: Some(session_open),
        session_close: Some(session_close),
        put: Some(put),
        del: Some(del),
        get: Some(get),
        write_batch: Some(write_batch),
        multi_get: Some(multi_get),
        scan_seek: Some(scan_seek),
        scan_next: Some(scan_next),
        scan_end: Some(scan_end),
        txn_begin: Some(txn_begin),
        txn_get_for_update: Some(txn_get_for_update),
        txn_put: Some(txn_put),
        txn_commit: Some(txn_commit),
        txn_rollback: Some(txn_rollback),
        option_docs: OPTION_DOCS.as_ptr(),
        session_open_thread: Some(session_open_thread),
        multi_get_values: Some(multi_get_values),
        scan_seek_bounded: Some(scan_seek_bounded),
    };
    Exported { api, _build: build }
}

/// The plugin's entry point: rumbench looks it up by name and reads the table.
#[no_mangle]
pub extern "C" fn rumbench_engine_api() -> *const RbEngineApi {
    static EXPORTED: OnceLock<Exported> = OnceLock::new();
    let api = call_void("rumbench_engine_api", || Some(&EXPORTED.get_or_init(exported).api as *const RbEngineApi));
    api.unwrap_or(std::ptr::null())
}
