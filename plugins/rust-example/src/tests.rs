//! The plugin driven through its function table, as rumbench drives it.

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::abi::*;
use crate::rumbench_engine_api;

fn api() -> &'static RbEngineApi {
    // SAFETY: the table is static and never changes.
    unsafe { &*rumbench_engine_api() }
}

fn new_error() -> Box<RbError> {
    Box::new(RbError { text: [0; RB_ERROR_TEXT] })
}

fn error_text(e: &RbError) -> String {
    // SAFETY: the plugin NUL-terminates what it writes; the buffer starts zeroed.
    unsafe { CStr::from_ptr(e.text.as_ptr()) }.to_string_lossy().into_owned()
}

/// A fresh directory under the system's temporary one.
fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rumbench-plugin-example-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// name=value pairs as C strings and the rb_pair array pointing at them.
fn pairs(options: &[(&str, &str)]) -> (Vec<CString>, Vec<RbPair>) {
    let strings: Vec<CString> = options.iter().flat_map(|(n, v)| [*n, *v]).map(|s| CString::new(s).unwrap()).collect();
    let pairs = strings.chunks(2).map(|c| RbPair { name: c[0].as_ptr(), value: c[1].as_ptr() }).collect();
    (strings, pairs)
}

fn check_options(options: &[(&str, &str)]) -> Result<(), String> {
    let (_strings, pairs) = pairs(options);
    let mut err = new_error();
    // SAFETY: valid pairs and error buffer.
    match unsafe { api().check_options.unwrap()(pairs.as_ptr(), pairs.len(), &mut *err) } {
        RbStatus::OK => Ok(()),
        _ => Err(error_text(&err)),
    }
}

struct Db(*mut RbEngine);

// SAFETY: the header makes engine-level calls safe from any thread.
unsafe impl Send for Db {}
// SAFETY: as above.
unsafe impl Sync for Db {}

impl Db {
    fn open_with(dir: &Path, options: &[(&str, &str)], create: bool) -> Result<Db, String> {
        let (_strings, pairs) = pairs(options);
        let dir = CString::new(dir.to_str().unwrap()).unwrap();
        let args = RbOpenArgs {
            struct_size: size_of::<RbOpenArgs>() as u32,
            dir: dir.as_ptr(),
            key_size: 8,
            value_size: 8,
            num_keys: 100,
            threads: 1,
            create: create as i32,
            read_only: 0,
        };
        let (mut raw, mut err) = (ptr::null_mut(), new_error());
        // SAFETY: valid args, pairs, out pointer and error buffer.
        match unsafe { api().open.unwrap()(&args, pairs.as_ptr(), pairs.len(), &mut raw, &mut *err) } {
            RbStatus::OK => Ok(Db(raw)),
            _ => Err(error_text(&err)),
        }
    }

    fn open(dir: &Path, options: &[(&str, &str)]) -> Db {
        Db::open_with(dir, options, true).unwrap()
    }

    fn session(&self) -> S {
        let (mut raw, mut err) = (ptr::null_mut(), new_error());
        // SAFETY: an open engine.
        assert_eq!(unsafe { api().session_open.unwrap()(self.0, &mut raw, &mut *err) }, RbStatus::OK);
        S { raw, err }
    }

    fn pairs(&self, f: unsafe extern "C" fn(*mut RbEngine, RbEmitFn, *mut c_void)) -> Vec<(String, String)> {
        unsafe extern "C" fn collect(ctx: *mut c_void, name: *const c_char, value: *const c_char) {
            // SAFETY: ctx is the Vec below; the strings are valid during the call.
            unsafe {
                let out = &mut *ctx.cast::<Vec<(String, String)>>();
                out.push((
                    CStr::from_ptr(name).to_str().unwrap().into(),
                    CStr::from_ptr(value).to_str().unwrap().into(),
                ));
            }
        }
        let mut out: Vec<(String, String)> = Vec::new();
        // SAFETY: an open engine; ctx is out.
        unsafe { f(self.0, Some(collect), (&mut out as *mut Vec<(String, String)>).cast()) };
        out
    }

    fn stat(&self, name: &str) -> u64 {
        let stats = self.pairs(api().stats.unwrap());
        stats.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no stat {name}")).1.parse().unwrap()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: an open engine, closed once.
        unsafe { api().close.unwrap()(self.0) }
    }
}

/// A session, with calls that return the status and copies of what came back.
struct S {
    raw: *mut RbSession,
    err: Box<RbError>,
}

// SAFETY: a session may move between threads (used by one at a time).
unsafe impl Send for S {}

type Got = (RbStatus, Vec<u8>);

/// Copies `len` bytes at `p`, as rumbench would before its next call.
fn copy(p: *const u8, len: usize) -> Vec<u8> {
    if len == 0 {
        return Vec::new();
    }
    // SAFETY: the plugin handed back p for len bytes, valid until the next call.
    unsafe { std::slice::from_raw_parts(p, len) }.to_vec()
}

// Every call below is on an open session, used by this thread only, with
// arguments valid during the call.
impl S {
    fn put(&mut self, k: &str, v: &str) -> RbStatus {
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().put.unwrap()(self.raw, k.as_ptr(), k.len(), v.as_ptr(), v.len(), &mut *self.err) }
    }
    fn del(&mut self, k: &str) -> RbStatus {
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().del.unwrap()(self.raw, k.as_ptr(), k.len(), &mut *self.err) }
    }
    fn get(&mut self, k: &str) -> Got {
        let (mut v, mut len) = (ptr::null(), 0);
        // SAFETY: an open session of this thread; arguments valid during the call.
        let st = unsafe { api().get.unwrap()(self.raw, k.as_ptr(), k.len(), &mut v, &mut len, &mut *self.err) };
        (st, if st == RbStatus::OK { copy(v, len) } else { Vec::new() })
    }
    fn value(&mut self, k: &str) -> Option<String> {
        match self.get(k) {
            (RbStatus::OK, v) => Some(String::from_utf8(v).unwrap()),
            (RbStatus::NOT_FOUND, _) => None,
            (st, _) => panic!("get {k}: {st:?} {}", error_text(&self.err)),
        }
    }
    fn batch(&mut self, ops: &[(u32, &str, &str)]) -> RbStatus {
        let ops: Vec<RbBatchOp> = ops
            .iter()
            .map(|(kind, k, v)| RbBatchOp {
                kind: *kind,
                key: k.as_ptr(),
                key_len: k.len(),
                value: v.as_ptr(),
                value_len: v.len(),
            })
            .collect();
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().write_batch.unwrap()(self.raw, ops.as_ptr(), ops.len(), &mut *self.err) }
    }
    fn multi_get(&mut self, keys: &str, key_size: usize) -> usize {
        let mut found = usize::MAX;
        // SAFETY: an open session of this thread; arguments valid during the call.
        let st = unsafe {
            api().multi_get.unwrap()(
                self.raw,
                keys.as_ptr(),
                key_size,
                keys.len() / key_size,
                &mut found,
                &mut *self.err,
            )
        };
        assert_eq!(st, RbStatus::OK);
        found
    }
    /// Every key a scan from `start` returns, then scan_end.
    fn scan(&mut self, start: &str, reverse: bool) -> Vec<String> {
        let st =
            // SAFETY: an open session of this thread; arguments valid during the call.
            unsafe { api().scan_seek.unwrap()(self.raw, start.as_ptr(), start.len(), reverse as i32, &mut *self.err) };
        assert_eq!(st, RbStatus::OK);
        let mut keys = Vec::new();
        loop {
            let (mut k, mut kl, mut v, mut vl) = (ptr::null(), 0, ptr::null(), 0);
            // SAFETY: an open session of this thread; arguments valid during the call.
            match unsafe { api().scan_next.unwrap()(self.raw, &mut k, &mut kl, &mut v, &mut vl, &mut *self.err) } {
                RbStatus::OK => {
                    let (k, v) = (String::from_utf8(copy(k, kl)).unwrap(), String::from_utf8(copy(v, vl)).unwrap());
                    assert_eq!(v, format!("v{k}"));
                    keys.push(k);
                }
                RbStatus::NOT_FOUND => break,
                st => panic!("scan_next: {st:?}"),
            }
        }
        // Past the end it stays past the end.
        let (mut k, mut kl, mut v, mut vl) = (ptr::null(), 0, ptr::null(), 0);
        // SAFETY: an open session of this thread; arguments valid during the call.
        let st = unsafe { api().scan_next.unwrap()(self.raw, &mut k, &mut kl, &mut v, &mut vl, &mut *self.err) };
        assert_eq!(st, RbStatus::NOT_FOUND);
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().scan_end.unwrap()(self.raw) };
        keys
    }
    /// multi_get_values: each found key's index and value.
    fn multi_get_values(&mut self, keys: &str, key_size: usize) -> (usize, Vec<(usize, String)>) {
        unsafe extern "C" fn take(ctx: *mut c_void, i: usize, v: *const u8, len: usize) {
            // SAFETY: ctx is the Vec below; v is valid for len bytes during the call.
            unsafe { (*ctx.cast::<Vec<(usize, String)>>()).push((i, String::from_utf8(copy(v, len)).unwrap())) };
        }
        let (mut found, mut got) = (usize::MAX, Vec::new());
        // SAFETY: an open session of this thread; arguments valid during the call; ctx is got.
        let st = unsafe {
            api().multi_get_values.unwrap()(
                self.raw,
                keys.as_ptr(),
                key_size,
                keys.len() / key_size,
                Some(take),
                (&mut got as *mut Vec<(usize, String)>).cast(),
                &mut found,
                &mut *self.err,
            )
        };
        assert_eq!(st, RbStatus::OK);
        (found, got)
    }
    /// The keys a bounded scan returns (end exclusive, count 0: unbounded).
    fn scan_bounded(&mut self, start: &str, reverse: bool, end: Option<&str>, count: u64) -> Vec<String> {
        let (e, el) = end.map_or((ptr::null(), 0), |e| (e.as_ptr(), e.len()));
        // SAFETY: an open session of this thread; arguments valid during the call.
        let st = unsafe {
            api().scan_seek_bounded.unwrap()(
                self.raw,
                start.as_ptr(),
                start.len(),
                reverse as i32,
                e,
                el,
                count,
                &mut *self.err,
            )
        };
        assert_eq!(st, RbStatus::OK);
        let mut keys = Vec::new();
        loop {
            let (mut k, mut kl, mut v, mut vl) = (ptr::null(), 0, ptr::null(), 0);
            // SAFETY: an open session of this thread; arguments valid during the call.
            match unsafe { api().scan_next.unwrap()(self.raw, &mut k, &mut kl, &mut v, &mut vl, &mut *self.err) } {
                RbStatus::OK => keys.push(String::from_utf8(copy(k, kl)).unwrap()),
                RbStatus::NOT_FOUND => break,
                st => panic!("scan_next: {st:?}"),
            }
        }
        // SAFETY: an open session of this thread.
        unsafe { api().scan_end.unwrap()(self.raw) };
        keys
    }
    fn begin(&mut self) -> RbStatus {
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().txn_begin.unwrap()(self.raw, &mut *self.err) }
    }
    fn get_for_update(&mut self, k: &str) -> Got {
        let (mut v, mut len) = (ptr::null(), 0);
        // SAFETY: an open session of this thread; arguments valid during the call.
        let st = unsafe {
            api().txn_get_for_update.unwrap()(self.raw, k.as_ptr(), k.len(), &mut v, &mut len, &mut *self.err)
        };
        (st, if st == RbStatus::OK { copy(v, len) } else { Vec::new() })
    }
    fn txn_put(&mut self, k: &str, v: &str) -> RbStatus {
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().txn_put.unwrap()(self.raw, k.as_ptr(), k.len(), v.as_ptr(), v.len(), &mut *self.err) }
    }
    fn commit(&mut self) -> RbStatus {
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().txn_commit.unwrap()(self.raw, &mut *self.err) }
    }
    fn rollback(&mut self) {
        // SAFETY: an open session of this thread; arguments valid during the call.
        unsafe { api().txn_rollback.unwrap()(self.raw) }
    }
}

impl Drop for S {
    fn drop(&mut self) {
        // SAFETY: an open session, closed once.
        unsafe { api().session_close.unwrap()(self.raw) }
    }
}

#[test]
fn the_table_describes_the_plugin() {
    let a = api();
    assert_eq!((a.abi_version, a.struct_size as usize), (RB_ENGINE_ABI_VERSION, size_of::<RbEngineApi>()));
    let want = RB_CAP_WRITE_BATCH | RB_CAP_MULTI_GET | RB_CAP_REVERSE_SCAN | RB_CAP_FLUSH | RB_CAP_TRANSACTIONS;
    assert_eq!(a.capabilities, want);
    // SAFETY: static C strings.
    let text = |p| unsafe { CStr::from_ptr(p) }.to_str().unwrap();
    assert_eq!((text(a.name), text(a.version)), ("rust-example", env!("CARGO_PKG_VERSION")));
    assert!(text(a.build).starts_with("rustc, "), "{}", text(a.build));
    assert!(a.wait_idle.is_none());
    assert_eq!(rumbench_engine_api(), a as *const RbEngineApi, "one static table");
}

#[test]
fn put_get_del() {
    let dir = temp_dir("basic");
    let db = Db::open(&dir, &[]);
    let mut s = db.session();
    assert_eq!(s.value("a"), None);
    assert_eq!(s.put("a", "1"), RbStatus::OK);
    assert_eq!(s.put("b", ""), RbStatus::OK);
    assert_eq!((s.value("a"), s.value("b")), (Some("1".into()), Some("".into())));
    assert_eq!(s.put("a", "22"), RbStatus::OK);
    assert_eq!(s.value("a"), Some("22".into()));
    assert_eq!(s.del("a"), RbStatus::OK);
    assert_eq!(s.del("missing"), RbStatus::OK);
    assert_eq!(s.value("a"), None);
    assert_eq!(s.put("", "empty key"), RbStatus::OK);
    assert_eq!(s.value(""), Some("empty key".into()));
    assert_eq!((db.stat("puts"), db.stat("deletes"), db.stat("keys")), (4, 2, 2));
    assert_eq!(db.stat("ingest_bytes"), (2 + 1 + 3 + 9) + (1 + 7));
    assert_eq!(db.stat("written_bytes"), db.stat("log_bytes"));
    // SAFETY: an open engine.
    assert_eq!(unsafe { api().syncs_writes.unwrap()(db.0) }, 0);
    let mut err = new_error();
    // SAFETY: as above.
    assert_eq!(unsafe { api().flush.unwrap()(db.0, &mut *err) }, RbStatus::OK);
    assert_eq!(std::fs::metadata(dir.join("data.log")).unwrap().len(), db.stat("log_bytes"));
    // SAFETY: as above.
    assert_eq!(unsafe { api().sync.unwrap()(db.0, &mut *err) }, RbStatus::OK);
    drop(s);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_batch_is_all_or_nothing() {
    let dir = temp_dir("batch");
    let db = Db::open(&dir, &[]);
    let mut s = db.session();
    s.put("gone", "x");
    assert_eq!(s.batch(&[(RB_PUT, "a", "1"), (RB_PUT, "b", "2"), (RB_DELETE, "gone", "")]), RbStatus::OK);
    assert_eq!((s.value("a"), s.value("b"), s.value("gone")), (Some("1".into()), Some("2".into()), None));
    // A bad op anywhere: nothing of it is applied.
    assert_eq!(s.batch(&[(RB_PUT, "c", "3"), (RB_DELETE, "a", ""), (7, "d", "4")]), RbStatus::ERROR);
    assert!(error_text(&s.err).contains("op 2 has kind 7"), "{}", error_text(&s.err));
    assert_eq!((s.value("a"), s.value("c")), (Some("1".into()), None));
    assert_eq!(s.batch(&[]), RbStatus::OK);
    assert_eq!(db.stat("batches"), 2);
    drop(s);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn multi_get_counts_the_keys_found() {
    let dir = temp_dir("multi");
    let db = Db::open(&dir, &[]);
    let mut s = db.session();
    for k in ["k1", "k3", "k4"] {
        s.put(k, "v");
    }
    assert_eq!(s.multi_get("k1k2k3k4k5", 2), 3);
    assert_eq!(s.multi_get("k2", 2), 0);
    drop(s);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The calls appended to ABI version 1: the options described, a session
/// told its thread, a multi-get that hands back values, bounded scans.
#[test]
fn the_appended_calls_work() {
    let a = api();
    assert!(RbEngineApi::covers(a.struct_size, std::mem::offset_of!(RbEngineApi, scan_seek_bounded), 8));
    // SAFETY: a static list ending with a NULL name.
    let docs: Vec<(String, String)> = unsafe {
        let mut out = Vec::new();
        let mut d = a.option_docs;
        while !(*d).name.is_null() {
            let text = |p: *const c_char| CStr::from_ptr(p).to_str().unwrap().to_string();
            out.push((text((*d).name), text((*d).default_value)));
            d = d.add(1);
        }
        out
    };
    assert_eq!(docs, [("sync".to_string(), "false".to_string()), ("buffer_size".into(), "1M".into())]);
    let dir = temp_dir("appended");
    let db = Db::open(&dir, &[]);
    let (mut raw, mut err) = (ptr::null_mut(), new_error());
    // SAFETY: an open engine.
    assert_eq!(unsafe { a.session_open_thread.unwrap()(db.0, 3, &mut raw, &mut *err) }, RbStatus::OK);
    let mut s = S { raw, err };
    assert_eq!(db.stat("thread_sessions"), 1);
    for k in ["k1", "k3", "k4"] {
        s.put(k, &format!("v{k}"));
    }
    let (found, got) = s.multi_get_values("k1k2k3k4k5", 2);
    assert_eq!(found, 3);
    assert_eq!(got, [(0, "vk1".to_string()), (2, "vk3".into()), (3, "vk4".into())]);
    assert_eq!(s.scan_bounded("", false, None, 0), ["k1", "k3", "k4"]);
    assert_eq!(s.scan_bounded("", false, Some("k4"), 0), ["k1", "k3"]);
    assert_eq!(s.scan_bounded("k2", false, None, 1), ["k3"]);
    assert_eq!(s.scan_bounded("k9", true, Some("k1"), 0), ["k4", "k3"]);
    assert_eq!(s.scan_bounded("k9", true, None, 2), ["k4", "k3"]);
    drop(s);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn scans_forward_and_reverse() {
    let dir = temp_dir("scan");
    let db = Db::open(&dir, &[]);
    let mut s = db.session();
    assert!(s.scan("", false).is_empty() && s.scan("", true).is_empty());
    for k in ["b", "d", "f"] {
        s.put(k, &format!("v{k}"));
    }
    assert_eq!(s.scan("", false), ["b", "d", "f"]);
    assert_eq!(s.scan("a", false), ["b", "d", "f"]);
    assert_eq!(s.scan("c", false), ["d", "f"]); // a missing key: the next one
    assert_eq!(s.scan("d", false), ["d", "f"]);
    assert_eq!(s.scan("f", false), ["f"]);
    assert!(s.scan("g", false).is_empty());
    assert!(s.scan("", true).is_empty()); // an empty start is before every key
    assert_eq!(s.scan("z", true), ["f", "d", "b"]);
    assert_eq!(s.scan("e", true), ["d", "b"]); // a missing key: the one before
    assert_eq!(s.scan("d", true), ["d", "b"]);
    assert_eq!(s.scan("b", true), ["b"]);
    assert!(s.scan("a", true).is_empty());
    // Reads go on while a scan is open; a second seek replaces the first.
    let (mut k, mut kl, mut v, mut vl) = (ptr::null(), 0, ptr::null(), 0);
    let mut err = new_error();
    // SAFETY: an open session and valid out pointers.
    unsafe {
        assert_eq!(api().scan_seek.unwrap()(s.raw, ptr::null(), 0, 0, &mut *err), RbStatus::OK);
        assert_eq!(api().scan_next.unwrap()(s.raw, &mut k, &mut kl, &mut v, &mut vl, &mut *err), RbStatus::OK);
        assert_eq!(copy(k, kl), b"b");
        assert_eq!(db.session().value("d"), Some("vd".into()));
        assert_eq!(api().scan_seek.unwrap()(s.raw, b"e".as_ptr(), 1, 1, &mut *err), RbStatus::OK);
        assert_eq!(api().scan_next.unwrap()(s.raw, &mut k, &mut kl, &mut v, &mut vl, &mut *err), RbStatus::OK);
        assert_eq!((copy(k, kl), copy(v, vl)), (b"d".to_vec(), b"vd".to_vec()));
        api().scan_end.unwrap()(s.raw);
    }
    drop(s);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn transactions_conflict_when_a_key_read_for_update_changed() {
    let dir = temp_dir("txn");
    let db = Db::open(&dir, &[]);
    let (mut s1, mut s2) = (db.session(), db.session());
    s1.put("k", "0");
    assert_eq!((s1.begin(), s2.begin()), (RbStatus::OK, RbStatus::OK));
    assert_eq!(s1.get_for_update("k"), (RbStatus::OK, b"0".to_vec()));
    assert_eq!(s2.get_for_update("k"), (RbStatus::OK, b"0".to_vec()));
    assert_eq!(s1.txn_put("k", "1"), RbStatus::OK);
    assert_eq!(s1.get_for_update("k"), (RbStatus::OK, b"1".to_vec()), "its own write");
    assert_eq!(s2.txn_put("k", "2"), RbStatus::OK);
    assert_eq!(s2.value("k"), Some("0".into()), "nothing is applied before commit");
    assert_eq!(s1.commit(), RbStatus::OK);
    assert_eq!(s2.commit(), RbStatus::CONFLICT);
    assert!(error_text(&s2.err).contains("conflict: key \"k\""), "{}", error_text(&s2.err));
    s2.rollback();
    assert_eq!(s2.value("k"), Some("1".into()));
    // The retry wins.
    assert_eq!(s2.begin(), RbStatus::OK);
    assert_eq!(s2.get_for_update("k"), (RbStatus::OK, b"1".to_vec()));
    assert_eq!(s2.txn_put("k", "2"), RbStatus::OK);
    assert_eq!(s2.commit(), RbStatus::OK);
    assert_eq!(s1.value("k"), Some("2".into()));
    // An absent key read for update conflicts with its insertion.
    assert_eq!((s1.begin(), s1.get_for_update("new").0), (RbStatus::OK, RbStatus::NOT_FOUND));
    s2.put("new", "x");
    assert_eq!((s1.txn_put("new", "y"), s1.commit()), (RbStatus::OK, RbStatus::CONFLICT));
    // Rolled back: nothing written, and the session takes a new transaction.
    assert_eq!((s1.begin(), s1.txn_put("z", "1")), (RbStatus::OK, RbStatus::OK));
    s1.rollback();
    assert_eq!(s1.value("z"), None);
    assert_eq!(s1.txn_put("z", "1"), RbStatus::ERROR, "no transaction");
    assert_eq!((db.stat("commits"), db.stat("conflicts")), (2, 2));
    drop((s1, s2));
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn reopening_keeps_everything_and_a_torn_tail_is_dropped() {
    let dir = temp_dir("reopen");
    let db = Db::open(&dir, &[("sync", "true"), ("buffer_size", "4K")]);
    // SAFETY: an open engine.
    assert_eq!(unsafe { api().syncs_writes.unwrap()(db.0) }, 1);
    let mut s = db.session();
    for i in 0..100 {
        s.put(&format!("k{i:03}"), &format!("v{i}"));
    }
    s.del("k050");
    s.batch(&[(RB_PUT, "b1", "1"), (RB_DELETE, "k051", "")]);
    s.begin();
    s.get_for_update("k000");
    s.txn_put("t", "txn");
    assert_eq!(s.commit(), RbStatus::OK);
    let log_bytes = db.stat("log_bytes");
    drop(s);
    drop(db);

    let check = |db: &Db| {
        let mut s = db.session();
        assert_eq!(db.stat("keys"), 100 - 2 + 2);
        assert_eq!((s.value("k000"), s.value("k099")), (Some("v0".into()), Some("v99".into())));
        assert_eq!((s.value("k050"), s.value("k051")), (None, None));
        assert_eq!((s.value("b1"), s.value("t")), (Some("1".into()), Some("txn".into())));
    };
    let db = Db::open_with(&dir, &[], false).unwrap();
    check(&db);
    assert_eq!((db.stat("log_bytes"), db.stat("truncated_bytes"), db.stat("written_bytes")), (log_bytes, 0, 0));
    drop(db);

    // A torn record at the end: its header says more than is there.
    use std::io::Write;
    let log = dir.join("data.log");
    let good = std::fs::metadata(&log).unwrap().len();
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(&[1, 2, 3, 4, 5, 6, 7, 8, 100, 0, 0, 0, 0, 0]).unwrap();
    drop(f);
    let db = Db::open(&dir, &[]);
    check(&db);
    assert_eq!(db.stat("truncated_bytes"), 14);
    assert_eq!(std::fs::metadata(&log).unwrap().len(), good, "the tail is cut off");
    db.session().put("after", "torn");
    drop(db);

    // A complete record with a wrong checksum (a torn write in the middle of it).
    let mut bytes = std::fs::read(&log).unwrap();
    let len = bytes.len();
    bytes[len - 1] ^= 0xff;
    std::fs::write(&log, bytes).unwrap();
    let db = Db::open(&dir, &[]);
    check(&db);
    assert_eq!(db.session().value("after"), None);
    assert!(db.stat("truncated_bytes") > 0);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_options_are_refused_with_what_is_valid() {
    assert_eq!(check_options(&[]), Ok(()));
    assert_eq!(check_options(&[("sync", "true"), ("buffer_size", "64K")]), Ok(()));
    assert_eq!(check_options(&[("buffer_size", "0")]), Ok(()));
    let e = check_options(&[("cache", "1")]).unwrap_err();
    assert_eq!(e, "unknown option \"cache\": valid options are sync and buffer_size");
    let e = check_options(&[("sync", "yes")]).unwrap_err();
    assert_eq!(e, "option sync=\"yes\": valid values are true and false");
    for bad in ["", "K", "1T", "-1", "2G", "1.5M"] {
        let e = check_options(&[("buffer_size", bad)]).unwrap_err();
        assert!(e.starts_with(&format!("option buffer_size={bad:?}: valid values are")), "{e}");
    }
    let dir = temp_dir("options");
    let e = Db::open_with(&dir, &[("sync", "1")], true).err().unwrap();
    assert!(e.starts_with("option sync="), "{e}");
    let e = Db::open_with(&dir, &[], false).err().unwrap();
    assert!(e.contains("data.log: open: "), "create = 0 and no database: {e}");
    let db = Db::open(&dir, &[("buffer_size", "2M")]);
    let options = db.pairs(api().effective_options.unwrap());
    let log = dir.join("data.log").display().to_string();
    let want = [("sync", "false"), ("buffer_size", "2097152"), ("path", log.as_str()), ("log_format", "1")];
    assert_eq!(options, want.map(|(n, v)| (n.to_string(), v.to_string())));
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sessions_run_on_many_threads_at_once() {
    let dir = temp_dir("threads");
    let db = Db::open(&dir, &[("buffer_size", "0")]);
    std::thread::scope(|scope| {
        for t in 0..4 {
            let mut s = db.session();
            scope.spawn(move || {
                for i in 0..500 {
                    let k = format!("t{t}-{i:04}");
                    assert_eq!(s.put(&k, "v"), RbStatus::OK);
                    assert_eq!(s.value(&k), Some("v".into()));
                }
            });
        }
        scope.spawn(|| {
            let mut err = new_error();
            for _ in 0..20 {
                // SAFETY: an open engine; engine-level calls may come from any thread.
                assert_eq!(unsafe { api().sync.unwrap()(db.0, &mut *err) }, RbStatus::OK);
                db.stat("keys");
            }
        });
    });
    assert_eq!(db.stat("keys"), 2000);
    // A session may outlive its engine's close (it holds the engine).
    let mut s = db.session();
    drop(db);
    assert_eq!(s.value("t0-0000"), Some("v".into()));
    drop(s);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_scan_never_sees_half_a_batch() {
    let dir = temp_dir("halfbatch");
    let db = Db::open(&dir, &[]);
    db.session().batch(&[(RB_PUT, "a", "0"), (RB_PUT, "b", "0")]);
    std::thread::scope(|scope| {
        let mut w = db.session();
        scope.spawn(move || {
            for i in 1..500 {
                let v = i.to_string();
                assert_eq!(w.batch(&[(RB_PUT, "a", &v), (RB_PUT, "b", &v)]), RbStatus::OK);
            }
        });
        let r = db.session();
        scope.spawn(move || {
            let r = r; // the whole session moves here, not only its raw pointer
            for _ in 0..500 {
                let mut err = new_error();
                let (mut k, mut kl, mut v, mut vl) = (ptr::null(), 0, ptr::null(), 0);
                let mut values = Vec::new();
                // SAFETY: an open session of this thread; valid out pointers.
                unsafe {
                    assert_eq!(api().scan_seek.unwrap()(r.raw, ptr::null(), 0, 0, &mut *err), RbStatus::OK);
                    for _ in 0..2 {
                        let st = api().scan_next.unwrap()(r.raw, &mut k, &mut kl, &mut v, &mut vl, &mut *err);
                        assert_eq!(st, RbStatus::OK);
                        values.push(copy(v, vl));
                        std::thread::yield_now();
                    }
                    api().scan_end.unwrap()(r.raw);
                }
                assert_eq!(values[0], values[1], "a scan saw half a batch");
            }
        });
    });
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_writer_waits_for_an_open_scan_to_end() {
    let dir = temp_dir("scangate");
    let db = Db::open(&dir, &[]);
    let mut s = db.session();
    s.put("a", "va");
    let mut err = new_error();
    // SAFETY: an open session of this thread.
    assert_eq!(unsafe { api().scan_seek.unwrap()(s.raw, ptr::null(), 0, 0, &mut *err) }, RbStatus::OK);
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let mut w = db.session();
        let done = &done;
        scope.spawn(move || {
            w.put("b", "vb");
            done.store(1, Ordering::SeqCst);
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(done.load(Ordering::SeqCst), 0, "a write went in during a scan");
        assert_eq!(s.value("a"), Some("va".into()), "gets go on during a scan");
        // SAFETY: as above.
        unsafe { api().scan_end.unwrap()(s.raw) };
    });
    assert_eq!((done.load(Ordering::SeqCst), s.value("b")), (1, Some("vb".into())));
    // A write on the scanning session itself ends its scan (no deadlock).
    // SAFETY: as above.
    assert_eq!(unsafe { api().scan_seek.unwrap()(s.raw, ptr::null(), 0, 0, &mut *err) }, RbStatus::OK);
    assert_eq!(s.put("c", "vc"), RbStatus::OK);
    drop(s);
    drop(db);
    std::fs::remove_dir_all(dir).unwrap();
}
