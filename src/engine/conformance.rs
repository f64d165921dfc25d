//! The contract every engine keeps, as tests any engine's test module can run
//! on a freshly opened instance (`run_all`), and as rules `rumbench conform`
//! checks any engine against, a plugin above all (`check`): each rule runs
//! on a fresh engine, and every rule broken is reported with what broke.

use std::path::Path;

use anyhow::Result;

use super::{resolve_options, BatchOp, Engine, EngineSpec, OpenArgs, Session, TxnEnd};

pub const KEY_SIZE: usize = 16;

/// Open `spec` in `dir` with these options (the rest at their defaults).
pub fn open_with(spec: &EngineSpec, dir: &Path, opts: &[(&str, &str)]) -> Result<Box<dyn Engine>> {
    let user: Vec<(String, String)> = opts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let options = resolve_options(spec, &user)?;
    let args = OpenArgs {
        dir: dir.to_path_buf(),
        options,
        key_size: KEY_SIZE,
        value_size: 100,
        num_keys: 1000,
        threads: 2,
        space_needed: Some(1 << 20),
        create: true,
        read_only: false,
    };
    (spec.open)(&args)
}

/// An effective option of an open engine ("" when it reports none by that name).
pub fn opt(engine: &dyn Engine, name: &str) -> String {
    engine.effective_options().into_iter().find(|(k, _)| k == name).map(|(_, v)| v).unwrap_or_default()
}

/// A statistic of an open engine, if it reports one by that name.
pub fn stat(engine: &dyn Engine, name: &str) -> Option<String> {
    engine.stats().into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

pub fn key(id: u64) -> Vec<u8> {
    let mut k = vec![0u8; KEY_SIZE];
    k[..8].copy_from_slice(&id.to_be_bytes());
    k
}

/// Entries in the whole database.
pub fn count(s: &mut dyn Session) -> usize {
    s.scan(&[], false, usize::MAX, &mut |_, _| true).unwrap()
}

/// Loads keys 0, 2, 4, ..., 198 with value = the key's id as text.
pub fn load_even(s: &mut dyn Session) {
    for i in (0..200u64).step_by(2) {
        s.put(&key(i), i.to_string().as_bytes()).unwrap();
    }
}

pub fn put_get_delete(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    assert!(!s.get(&key(1)).unwrap());
    s.put(&key(1), b"one").unwrap();
    assert!(s.get(&key(1)).unwrap());
    assert!(!s.get(&key(2)).unwrap());
    s.put(&key(1), b"uno").unwrap();
    let mut seen = Vec::new();
    s.scan(&key(0), false, 10, &mut |k, v| {
        seen.push((k.to_vec(), v.to_vec()));
        true
    })
    .unwrap();
    assert_eq!(seen, vec![(key(1), b"uno".to_vec())]);
    s.delete(&key(1)).unwrap();
    assert!(!s.get(&key(1)).unwrap());
    s.delete(&key(99)).unwrap(); // deleting a missing key is not an error
    assert_eq!(count(&mut *s), 0);
}

pub fn write_batch_is_visible(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    s.put(&key(5), b"five").unwrap();
    let (k1, k2, k5) = (key(1), key(2), key(5));
    s.write_batch(&[BatchOp::Put(&k1, b"a"), BatchOp::Put(&k2, b"b"), BatchOp::Delete(&k5)]).unwrap();
    assert!(s.get(&k1).unwrap() && s.get(&k2).unwrap() && !s.get(&k5).unwrap());
    s.write_batch(&[]).unwrap();
    assert_eq!(count(&mut *s), 2);
}

/// A batch's keys far apart among many others, with values of a few KiB:
/// an engine whose batch lands in several pages (or files) one at a time
/// shows a scan half of it, as one whose batch is a single page may not.
pub fn readers_never_see_half_a_batch(e: &dyn Engine) {
    const KEYS: u64 = 2000;
    const BATCH: u64 = 8;
    let step = KEYS / BATCH;
    let value = |version: u32| format!("{version:>8}").repeat(256).into_bytes();
    let mut s = e.session().unwrap();
    let (filler, first) = (vec![b'.'; 200], value(0));
    for i in 0..KEYS {
        s.put(&key(i), if i % step == 0 { &first } else { &filler }).unwrap();
    }
    drop(s);
    let batch_keys: Vec<Vec<u8>> = (0..BATCH).map(|j| key(j * step)).collect();
    std::thread::scope(|scope| {
        let batch_keys = &batch_keys;
        scope.spawn(move || {
            let mut s = e.session().unwrap();
            for version in 1..300u32 {
                let v = value(version);
                let ops: Vec<BatchOp<'_>> = batch_keys.iter().map(|k| BatchOp::Put(k, &v)).collect();
                s.write_batch(&ops).unwrap();
            }
        });
        scope.spawn(move || {
            let mut s = e.session().unwrap();
            for _ in 0..300 {
                let mut versions = Vec::new();
                s.scan(&key(0), false, KEYS as usize, &mut |k, v| {
                    if batch_keys.iter().any(|b| b.as_slice() == k) {
                        versions.push(v.get(..8).map(<[u8]>::to_vec).unwrap_or_default());
                    }
                    true
                })
                .unwrap();
                assert_eq!(versions.len() as u64, BATCH, "the batch's keys in a scan of them all");
                let first = &versions[0];
                let seen: Vec<String> =
                    versions.iter().map(|v| String::from_utf8_lossy(v).trim().to_string()).collect();
                assert!(versions.iter().all(|v| v == first), "a scan saw half a batch: versions {seen:?} in one scan");
            }
        });
    });
}

pub fn multi_get_counts_found_keys(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    load_even(&mut *s);
    let keys: Vec<u8> = (10..20u64).flat_map(key).collect();
    assert_eq!(s.multi_get(&keys, KEY_SIZE).unwrap(), 5);
    assert_eq!(s.multi_get(&[], KEY_SIZE).unwrap(), 0);
    let missing: Vec<u8> = (1000..1004u64).flat_map(key).collect();
    assert_eq!(s.multi_get(&missing, KEY_SIZE).unwrap(), 0);
    // Writes still work after a multiget (no read transaction left open).
    s.put(&key(11), b"11").unwrap();
    assert_eq!(s.multi_get(&keys, KEY_SIZE).unwrap(), 6);
}

pub fn scans_forward_and_reverse(e: &dyn Engine) {
    scans_forward(e);
    scans_reverse(e);
}

/// Visits of `scan` from key `start`, each checked against its value, stopping after `stop_after`.
fn scanned(s: &mut dyn Session) -> impl FnMut(u64, bool, usize, usize) -> Vec<u64> + '_ {
    move |start: u64, reverse: bool, max: usize, stop_after: usize| {
        let mut ids = Vec::new();
        let n = s
            .scan(&key(start), reverse, max, &mut |k, v| {
                let id = u64::from_be_bytes(k[..8].try_into().unwrap());
                assert_eq!(v, id.to_string().as_bytes());
                ids.push(id);
                ids.len() < stop_after
            })
            .unwrap();
        assert_eq!(n, ids.len(), "scan returned a count other than the entries it visited");
        ids
    }
}

pub fn scans_forward(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    load_even(&mut *s);
    let mut scan = scanned(&mut *s);
    // From a present key and from a missing key (next greater).
    assert_eq!(scan(100, false, 3, usize::MAX), vec![100, 102, 104], "forward scan from a present key");
    assert_eq!(scan(101, false, 3, usize::MAX), vec![102, 104, 106], "forward scan from a missing key");
    assert_eq!(scan(100, false, 50, 2), vec![100, 102], "a scan whose visitor stops after 2");
    assert_eq!(scan(195, false, 10, usize::MAX), vec![196, 198], "a forward scan running off the end");
    assert!(scan(199, false, 10, usize::MAX).is_empty(), "a forward scan from past the last key");
    assert!(scan(100, false, 0, usize::MAX).is_empty(), "a scan of at most 0 entries");
    assert_eq!(scan(0, false, usize::MAX, usize::MAX).len(), 100, "a scan of the whole database");
    drop(scan);
    let mut first = None;
    s.scan(&[], false, 1, &mut |k, _| {
        first = Some(k.to_vec());
        true
    })
    .unwrap();
    assert_eq!(first, Some(key(0)), "a forward scan from an empty start begins at the first key");
}

pub fn scans_reverse(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    load_even(&mut *s);
    let mut scan = scanned(&mut *s);
    // From a present key and from a missing key (next smaller).
    assert_eq!(scan(100, true, 3, usize::MAX), vec![100, 98, 96], "reverse scan from a present key");
    assert_eq!(scan(101, true, 3, usize::MAX), vec![100, 98, 96], "reverse scan from a missing key");
    assert_eq!(scan(100, true, 50, 1), vec![100], "a reverse scan whose visitor stops after 1");
    assert_eq!(scan(3, true, 10, usize::MAX), vec![2, 0], "a reverse scan running off the start");
    assert_eq!(scan(u64::MAX, true, 1, usize::MAX), vec![198], "a reverse scan from past the last key");
    drop(scan);
    let n = s.scan(&[], true, 10, &mut |_, _| true).unwrap();
    assert_eq!(n, 0, "a reverse scan from an empty start (before every key) finds nothing");
}

pub fn concurrent_writers_from_two_threads(e: &dyn Engine) {
    concurrent_writers(e, true);
}

/// `concurrent_writers_from_two_threads` for an engine without write batches: puts only.
pub fn concurrent_writers_without_batches(e: &dyn Engine) {
    concurrent_writers(e, false);
}

/// Two threads writing 600 keys, every tenth with a second key (in one
/// batch when `batches`, else two puts), each read back by its writer.
fn concurrent_writers(e: &dyn Engine, batches: bool) {
    std::thread::scope(|scope| {
        for t in 0..2u64 {
            scope.spawn(move || {
                let mut s = e.session().unwrap();
                for i in 0..300u64 {
                    let id = i * 2 + t;
                    let (k, k2) = (key(id), key(id + 1000));
                    match (i % 10 == 0, batches) {
                        (true, true) => s.write_batch(&[BatchOp::Put(&k, b"v"), BatchOp::Put(&k2, b"w")]).unwrap(),
                        (true, false) => {
                            s.put(&k, b"v").unwrap();
                            s.put(&k2, b"w").unwrap();
                        }
                        (false, _) => s.put(&k, b"v").unwrap(),
                    }
                    assert!(s.get(&k).unwrap());
                }
            });
        }
    });
    let mut s = e.session().unwrap();
    let all: Vec<u8> = (0..600u64).flat_map(key).collect();
    assert_eq!(s.multi_get(&all, KEY_SIZE).unwrap(), 600);
    assert_eq!(count(&mut *s), 660);
}

/// One rule of the contract: its name and its test.
type ContractTest = (&'static str, fn(&dyn Engine));

/// The contract of an engine without write batches (`Engine::write_batches`
/// false: steps that need them are refused at plan time): every test but
/// the batches', and the concurrent writers with puts only.
pub fn run_all_without_batches(open: impl Fn(&Path) -> Box<dyn Engine>) {
    let tests: &[ContractTest] = &[
        ("put_get_delete", put_get_delete),
        ("multi_get_counts_found_keys", multi_get_counts_found_keys),
        ("scans_forward_and_reverse", scans_forward_and_reverse),
        ("concurrent_writers_without_batches", concurrent_writers_without_batches),
    ];
    run_each(tests, false, open);
}

/// Run every contract test, each on a fresh engine from `open(dir)`.
pub fn run_all(open: impl Fn(&Path) -> Box<dyn Engine>) {
    let tests: &[ContractTest] = &[
        ("put_get_delete", put_get_delete),
        ("write_batch_is_visible", write_batch_is_visible),
        ("readers_never_see_half_a_batch", readers_never_see_half_a_batch),
        ("multi_get_counts_found_keys", multi_get_counts_found_keys),
        ("scans_forward_and_reverse", scans_forward_and_reverse),
        ("concurrent_writers_from_two_threads", concurrent_writers_from_two_threads),
    ];
    run_each(tests, true, open);
}

/// Each test on a fresh engine from `open(dir)`; an engine run without the
/// batch tests (`batches` false) must be one without write batches.
fn run_each(tests: &[ContractTest], batches: bool, open: impl Fn(&Path) -> Box<dyn Engine>) {
    for (name, test) in tests {
        let dir = tempfile::tempdir().unwrap();
        let e = open(dir.path());
        if !batches {
            assert!(!e.write_batches(), "an engine with write batches keeps the whole contract (run_all)");
        }
        eprintln!("engine contract: {name}");
        test(&*e);
    }
}

/// A value read back is the value written, byte for byte, short and long.
pub fn values_read_back_as_written(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    let long: Vec<u8> = (0..4000u32).map(|i| (i * 7 % 251) as u8).collect();
    s.put(&key(1), b"a").unwrap();
    s.put(&key(2), &long).unwrap();
    let mut out = Vec::new();
    assert!(s.get_value(&key(1), &mut out).unwrap(), "a key just written is not found");
    assert_eq!(out, b"a", "a 1-byte value read back differs");
    assert!(s.get_value(&key(2), &mut out).unwrap(), "a key just written is not found");
    assert!(out == long, "a 4000-byte value read back differs ({} bytes read)", out.len());
    assert!(!s.get_value(&key(3), &mut out).unwrap(), "a key never written is found");
}

/// What was written is there after the engine is closed and opened again.
pub fn reopened_keeps_what_was_written(subject: &Subject) {
    {
        let e = subject.open(true);
        let mut s = e.session().unwrap();
        load_even(&mut *s);
        s.delete(&key(10)).unwrap();
        s.put(&key(12), b"twelve").unwrap();
    }
    let e = subject.open(false);
    let mut s = e.session().unwrap();
    assert_eq!(count(&mut *s), 99, "entries after closing and opening again (100 written, 1 deleted)");
    let mut out = Vec::new();
    assert!(!s.get(&key(10)).unwrap(), "a deleted key is back after opening again");
    assert!(
        s.get_value(&key(12), &mut out).unwrap() && out == b"twelve",
        "an overwritten value is lost after opening again"
    );
}

/// A flush loses nothing, and reads after it see everything.
pub fn a_flush_keeps_everything(e: &dyn Engine) {
    let mut s = e.session().unwrap();
    load_even(&mut *s);
    e.flush().unwrap();
    assert_eq!(count(&mut *s), 100, "entries after a flush");
    s.put(&key(1), b"1").unwrap();
    e.flush().unwrap();
    assert!(s.get(&key(1)).unwrap(), "a key written between two flushes is lost");
}

/// A committed transaction's writes are seen; a rolled-back one's are not.
/// Skipped by an engine without transactions.
pub fn transactions_commit_and_roll_back(e: &dyn Engine) -> Verdict {
    let mut s = e.session().unwrap();
    s.put(&key(1), b"0").unwrap();
    let committed = s.transaction(&mut |t| {
        let mut v = Vec::new();
        assert!(t.get_for_update(&key(1), &mut v)?, "a transaction does not see a key written before it");
        assert_eq!(v, b"0", "a transaction reads another value than the one written before it");
        assert!(!t.get_for_update(&key(2), &mut v)?, "a transaction finds a key never written");
        t.put(&key(1), b"1")?;
        t.put(&key(2), b"2")
    });
    let Some(committed) = committed else { return Verdict::Skipped("no transactions".into()) };
    assert_eq!(committed.unwrap(), TxnEnd::Committed, "a transaction without a rival did not commit");
    let mut out = Vec::new();
    assert!(s.get_value(&key(1), &mut out).unwrap() && out == b"1", "a committed write is not seen");
    assert!(s.get(&key(2)).unwrap(), "a committed insert is not seen");
    let rolled = s.transaction(&mut |t| {
        t.put(&key(3), b"3")?;
        Err(super::Conflict("rumbench conform: this transaction gives up".into()).into())
    });
    assert_eq!(
        rolled.unwrap().unwrap(),
        TxnEnd::Conflict,
        "a transaction whose body conflicts did not end in a conflict"
    );
    assert!(!s.get(&key(3)).unwrap(), "a rolled-back transaction's write is seen");
    Verdict::Kept
}

/// The engine says what it is: a version and its options as in effect.
pub fn says_what_it_is(e: &dyn Engine) {
    assert!(!e.version().trim().is_empty(), "the engine reports no version");
    assert!(!e.effective_options().is_empty(), "the engine reports no effective options");
    for (k, _) in e.stats() {
        assert!(!k.trim().is_empty(), "a statistic has an empty name");
    }
}

/// Opens an engine in a directory: creating its database (true) or
/// opening the one there (false).
pub type Opener<'a> = dyn Fn(&Path, bool) -> Result<Box<dyn Engine>> + 'a;

/// What opens an engine for a rule: in a directory of its own, creating
/// the database or opening the one there.
pub struct Subject<'a> {
    dir: &'a Path,
    open: &'a Opener<'a>,
}

impl Subject<'_> {
    pub fn open(&self, create: bool) -> Box<dyn Engine> {
        (self.open)(self.dir, create).unwrap()
    }
}

/// How a rule ended when it did not break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Kept,
    /// It does not apply to this engine, and why.
    Skipped(String),
}

/// A rule of `rumbench conform`: its name and its check.
pub struct Rule {
    pub name: &'static str,
    pub check: fn(&Subject) -> Verdict,
}

macro_rules! on_fresh {
    ($test:path) => {
        |s: &Subject| {
            $test(&*s.open(true));
            Verdict::Kept
        }
    };
}

/// Every rule `rumbench conform` checks, in order.
pub const RULES: &[Rule] = &[
    Rule { name: "says_what_it_is", check: on_fresh!(says_what_it_is) },
    Rule { name: "put_get_delete", check: on_fresh!(put_get_delete) },
    Rule { name: "values_read_back_as_written", check: on_fresh!(values_read_back_as_written) },
    Rule {
        name: "write_batch_is_visible",
        check: |s| batches(s).unwrap_or_else(|| on_fresh!(write_batch_is_visible)(s)),
    },
    Rule {
        name: "readers_never_see_half_a_batch",
        check: |s| batches(s).unwrap_or_else(|| on_fresh!(readers_never_see_half_a_batch)(s)),
    },
    Rule { name: "multi_get_counts_found_keys", check: on_fresh!(multi_get_counts_found_keys) },
    Rule { name: "scans_forward", check: on_fresh!(scans_forward) },
    Rule {
        name: "scans_reverse",
        check: |s| {
            let e = s.open(true);
            if !e.reverse_scans() {
                return Verdict::Skipped("no reverse scans".into());
            }
            scans_reverse(&*e);
            Verdict::Kept
        },
    },
    Rule {
        name: "concurrent_writers_from_two_threads",
        check: |s| {
            let e = s.open(true);
            concurrent_writers(&*e, e.write_batches());
            Verdict::Kept
        },
    },
    Rule { name: "a_flush_keeps_everything", check: on_fresh!(a_flush_keeps_everything) },
    Rule { name: "transactions_commit_and_roll_back", check: |s| transactions_commit_and_roll_back(&*s.open(true)) },
    Rule {
        name: "reopened_keeps_what_was_written",
        check: |s| {
            reopened_keeps_what_was_written(s);
            Verdict::Kept
        },
    },
];

/// Skipped when the engine has no write batches.
fn batches(s: &Subject) -> Option<Verdict> {
    (!s.open(true).write_batches()).then(|| Verdict::Skipped("no write batches".into()))
}

/// A failed check in words: "what: got 0, expected 99" for an assert_eq
/// with a message, without the backtrace an error's Debug adds.
fn plain_words(msg: &str) -> String {
    let msg = msg.split("\n\nStack backtrace:").next().unwrap_or_default().trim();
    let eq = msg.strip_prefix("assertion `left == right` failed").and_then(|rest| {
        let (what, sides) = rest.split_once("\n  left: ")?;
        let (left, right) = sides.split_once("\n right: ")?;
        let what = what.trim_start_matches(':').trim();
        Some(format!(
            "{}got {left}, expected {right}",
            if what.is_empty() { String::new() } else { format!("{what}: ") }
        ))
    });
    // An engine call that returned an error where the rule expected none.
    let msg = match msg.strip_prefix("called `Result::unwrap()` on an `Err` value: ") {
        Some(err) => format!("an engine call failed: {err}"),
        None => msg.to_string(),
    };
    eq.unwrap_or(msg).replace('\n', " ")
}

/// Check every rule, each on a fresh engine from `open(dir, create)` in a
/// directory of its own under `root`; `each` hears every rule as it
/// starts (a crash then names the rule it happened in). A broken rule is
/// Err with what broke. (`rumbench conform` runs each rule in a process of
/// its own, `check_rule`: an engine that crashes or hangs breaks one rule.)
pub fn check(
    root: &Path,
    open: &Opener<'_>,
    each: &mut dyn FnMut(&str),
) -> Vec<(&'static str, std::result::Result<Verdict, String>)> {
    let mut out = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        each(rule.name);
        out.push((rule.name, check_rule(root, open, i)));
    }
    out
}

/// The directory rule `index` runs in, under `root`.
pub fn rule_dir(root: &Path, index: usize) -> std::path::PathBuf {
    root.join(format!("{index:02}-{}", RULES[index].name))
}

/// Check rule `index` of `RULES` on a fresh engine in `rule_dir(root,
/// index)`, removed after. Err: what broke, in words.
pub fn check_rule(root: &Path, open: &Opener<'_>, index: usize) -> std::result::Result<Verdict, String> {
    use std::sync::Mutex;
    // The first panic's message and place: a broken rule's words. Nothing
    // is printed while the rule runs (a scoped thread's panic comes first).
    static FIRST: Mutex<Option<String>> = Mutex::new(None);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let mut first = FIRST.lock().unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            *first = Some(plain_words(&msg));
        }
    }));
    let rule = &RULES[index];
    let dir = rule_dir(root, index);
    let outcome = match std::fs::create_dir_all(&dir) {
        Err(e) => Err(format!("cannot create {}: {e}", dir.display())),
        Ok(()) => {
            *FIRST.lock().unwrap_or_else(|p| p.into_inner()) = None;
            let subject = Subject { dir: &dir, open };
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (rule.check)(&subject))).map_err(|_| {
                FIRST.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_else(|| "it panicked".into())
            })
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    std::panic::set_hook(previous);
    outcome
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_broken_rule_is_said_in_words() {
        let eq = "assertion `left == right` failed: entries after a flush\n  left: 0\n right: 100";
        assert_eq!(super::plain_words(eq), "entries after a flush: got 0, expected 100");
        let bare = "assertion `left == right` failed\n  left: 1\n right: 2";
        assert_eq!(super::plain_words(bare), "got 1, expected 2");
        let err = "called `Result::unwrap()` on an `Err` value: x: y\n\nStack backtrace:\n 0: a";
        assert_eq!(super::plain_words(err), "an engine call failed: x: y");
    }
}
