//! The contract every engine keeps, as tests any engine's test module can run
//! on a freshly opened instance (`run_all`).

use std::path::Path;

use anyhow::Result;

use super::{resolve_options, BatchOp, Engine, EngineSpec, OpenArgs, Session};

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

pub fn readers_never_see_half_a_batch(e: &dyn Engine) {
    let (ka, kb) = (key(1), key(2));
    e.session().unwrap().write_batch(&[BatchOp::Put(&ka, b"0"), BatchOp::Put(&kb, b"0")]).unwrap();
    std::thread::scope(|scope| {
        let (ka, kb) = (&ka, &kb);
        scope.spawn(move || {
            let mut s = e.session().unwrap();
            for i in 1..200u32 {
                let v = i.to_string();
                s.write_batch(&[BatchOp::Put(ka, v.as_bytes()), BatchOp::Put(kb, v.as_bytes())]).unwrap();
            }
        });
        scope.spawn(move || {
            let mut s = e.session().unwrap();
            for _ in 0..200 {
                let mut vals = Vec::new();
                s.scan(&key(0), false, 2, &mut |_, v| {
                    vals.push(v.to_vec());
                    true
                })
                .unwrap();
                assert_eq!(vals.len(), 2);
                assert_eq!(vals[0], vals[1], "scan saw half a batch");
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
    let mut s = e.session().unwrap();
    load_even(&mut *s);
    let mut scan = |start: u64, reverse: bool, max: usize, stop_after: usize| {
        let mut ids = Vec::new();
        let n = s
            .scan(&key(start), reverse, max, &mut |k, v| {
                let id = u64::from_be_bytes(k[..8].try_into().unwrap());
                assert_eq!(v, id.to_string().as_bytes());
                ids.push(id);
                ids.len() < stop_after
            })
            .unwrap();
        assert_eq!(n, ids.len());
        ids
    };
    // Forward from a present key and from a missing key (next greater).
    assert_eq!(scan(100, false, 3, usize::MAX), vec![100, 102, 104]);
    assert_eq!(scan(101, false, 3, usize::MAX), vec![102, 104, 106]);
    // Reverse from a present key and from a missing key (next smaller).
    assert_eq!(scan(100, true, 3, usize::MAX), vec![100, 98, 96]);
    assert_eq!(scan(101, true, 3, usize::MAX), vec![100, 98, 96]);
    // Early stop by visit.
    assert_eq!(scan(100, false, 50, 2), vec![100, 102]);
    assert_eq!(scan(100, true, 50, 1), vec![100]);
    // Running off either end, and max_entries = 0.
    assert_eq!(scan(195, false, 10, usize::MAX), vec![196, 198]);
    assert_eq!(scan(3, true, 10, usize::MAX), vec![2, 0]);
    assert!(scan(199, false, 10, usize::MAX).is_empty());
    assert_eq!(scan(u64::MAX, true, 1, usize::MAX), vec![198]);
    assert!(scan(100, false, 0, usize::MAX).is_empty());
    // Unbounded length.
    assert_eq!(scan(0, false, usize::MAX, usize::MAX).len(), 100);
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
