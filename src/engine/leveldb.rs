//! LevelDB 1.22 through its C API (`leveldb-sys`, bundled source), built by
//! rumbench's patched leveldb-sys as a Release static library (-O3 -DNDEBUG,
//! gcc, Debian's snappy): vendor/leveldb-sys/RUMBENCH.md.
//!
//! One LevelDB database of raw bytes with the bytewise comparator. Each
//! session reuses one write batch for every put, delete and batch (cleared
//! before each write, as db_bench does), so a put costs no allocation of its
//! own. Point reads use `leveldb_get` (which returns a malloc'd copy of the
//! value); each scan opens its own iterator, so it sees every prior write.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context, Result};
use leveldb_sys as ffi;

use super::{BatchOp, Engine, EngineOptions, EngineSpec, OpenArgs, OptKind, OptionSpec, Session, WriteAmpCounters};

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "block_cache_size", default: "8M", kind: OptKind::Size, help: "LRU block cache capacity (db_bench --cache_size; by default db_bench gives none and LevelDB makes its own 8M one)" },
    OptionSpec { name: "write_buffer_size", default: "4M", kind: OptKind::Size, help: "memtable size (LevelDB's default 4M; 64K..1G)" },
    OptionSpec { name: "bloom_bits", default: "0", kind: OptKind::Int { min: 0, max: 1000 }, help: "bloom filter bits per key, 0 = no filter" },
    OptionSpec { name: "compression", default: "snappy", kind: OptKind::Choice(&["snappy", "none"]), help: "block compression" },
    OptionSpec { name: "sync", default: "false", kind: OptKind::Bool, help: "fsync the log on every write" },
    OptionSpec { name: "max_open_files", default: "1000", kind: OptKind::Int { min: 74, max: 50_000 }, help: "table cache size in files (74..50000)" },
    OptionSpec { name: "block_size", default: "4K", kind: OptKind::Size, help: "data block size (1K..4M)" },
];

/// io-bound mode: a small block cache and bloom filters, so a point query
/// costs about one storage read. (LevelDB has no O_DIRECT.)
const IO_BOUND: &[(&str, &str)] = &[("block_cache_size", "8M"), ("bloom_bits", "10")];

pub const SPEC: EngineSpec = EngineSpec {
    name: "leveldb",
    profile_symbols: &[("leveldb::", "libleveldb"), ("leveldb_", "libleveldb")],
    sizes_not_claimed: &["block_size"],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "LevelDB 1.22 LSM (bundled, static) through its C API; option defaults are LevelDB's own db_bench's",
    options: OPTIONS,
    io_bound_options: IO_BOUND,
    presets: &[],
    stores_data: true,
    existing_database: Some(|dir| {
        super::file_starts_with(dir, "CURRENT", b"MANIFEST-", "a CURRENT file")?;
        if super::has_rocksdb_files(dir) {
            bail!("it has RocksDB's IDENTITY or OPTIONS files: a RocksDB database");
        }
        Ok(())
    }),
    open,
    check,
    build_info,
    transactions: super::no_transactions,
    max_sessions: super::any_sessions,
    claims,
    crash_cause: super::no_crash_cause,
    // Keys and values are length-prefixed by 32-bit varints: far above rumbench's 64 MiB.
    size_limits: super::no_size_limits,
};

/// The block cache, and the memtable with the one being compacted beside it.
fn claims(o: &EngineOptions, _sessions: usize) -> Vec<super::Claim> {
    vec![
        super::Claim::memory(o.u64("block_cache_size"), super::option_text("leveldb", o, "block_cache_size")),
        super::Claim::memory(
            o.u64("write_buffer_size").saturating_mul(2),
            format!(
                "leveldb.write_buffer_size={} x 2 (the memtable and the one being flushed)",
                super::human_size(o.u64("write_buffer_size"))
            ),
        ),
    ]
}

/// LevelDB silently clips these options to ranges (SanitizeOptions in
/// db/db_impl.cc); rumbench refuses values outside them instead (the
/// integer options' ranges are declared with them).
fn check(o: &EngineOptions) -> Result<()> {
    let in_range = |name: &str, lo: u64, hi: u64| -> Result<()> {
        let v = o.u64(name);
        if v < lo || v > hi {
            bail!("leveldb.{name}={v} is outside LevelDB's range {lo}..={hi} (LevelDB would silently clip it)");
        }
        Ok(())
    };
    in_range("write_buffer_size", 64 << 10, 1 << 30)?;
    in_range("block_size", 1 << 10, 4 << 20)?;
    if o.u64("block_cache_size") == 0 {
        bail!("leveldb.block_cache_size must be above 0 (LevelDB always has a block cache)");
    }
    Ok(())
}

/// Build provenance, from build.rs (which reads leveldb-sys's DEP_LEVELDB_* report).
const BUILD_CXX_FLAGS: &str = env!("RUMBENCH_LEVELDB_CXX_FLAGS");
const BUILD_COMPILER: &str = env!("RUMBENCH_LEVELDB_COMPILER");
/// CMake's build type: Release, or Debug when built with assertions on purpose
/// (RUMBENCH_LEVELDB_BUILD_TYPE=Debug, for a test).
const BUILD_TYPE: &str = env!("RUMBENCH_LEVELDB_BUILT_AS");

/// How the bundled LevelDB is built into this binary.
fn build_info() -> Vec<(String, String)> {
    vec![
        (
            "build.library".into(),
            "bundled leveldb-sys 2.0.9 (LevelDB 1.22), static, patched build script (vendor/leveldb-sys)".into(),
        ),
        ("build.type".into(), BUILD_TYPE.into()),
        ("build.ndebug".into(), BUILD_CXX_FLAGS.split_whitespace().any(|f| f == "-DNDEBUG").to_string()),
        ("build.cxx_flags".into(), BUILD_CXX_FLAGS.into()),
        ("build.compiler".into(), BUILD_COMPILER.into()),
        ("build.snappy".into(), "Debian libsnappy".into()),
    ]
}

fn take_error(err: *mut c_char) -> Option<String> {
    if err.is_null() {
        return None;
    }
    // SAFETY: LevelDB's error strings are NUL-terminated and malloc'd; we own them.
    let msg = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
    // SAFETY: LevelDB malloc'd it, and it is freed once.
    unsafe { ffi::leveldb_free(err.cast()) };
    Some(msg)
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    Ok(Box::new(LevelDbEngine::open(args)?))
}

pub struct LevelDbEngine {
    db: *mut ffi::leveldb_t,
    options: *mut ffi::leveldb_options_t,
    cache: *mut ffi::leveldb_cache_t,
    filter: *mut ffi::leveldb_filterpolicy_t,
    path: PathBuf,
    applied: Vec<(String, String)>,
    sync: bool,
    /// Key and value bytes written by sessions that have ended (LevelDB
    /// counts none itself); each session counts its own and adds it here
    /// when it ends, so the hot path shares no counter.
    ingested: AtomicU64,
}

// SAFETY: a leveldb_t is thread-safe (LevelDB's DB is safe for concurrent use);
// the options, cache and filter policy are only read after open, and LevelDB's
// cache is internally synchronized.
unsafe impl Send for LevelDbEngine {}
// SAFETY: as for Send, above.
unsafe impl Sync for LevelDbEngine {}

impl LevelDbEngine {
    fn open(args: &OpenArgs) -> Result<Self> {
        let o = &args.options;
        check(o)?;
        let path = args.dir.clone();
        let cpath = CString::new(path.as_os_str().as_bytes()).context("leveldb: path contains a NUL byte")?;
        let bloom = o.i64("bloom_bits");
        let compression = o.str("compression").to_string();
        // SAFETY: plain constructor calls; every pointer is owned by the engine
        // and destroyed in Drop (after the database is closed).
        unsafe {
            let options = ffi::leveldb_options_create();
            let cache = ffi::leveldb_cache_create_lru(o.u64("block_cache_size") as usize);
            let filter = if bloom > 0 { ffi::leveldb_filterpolicy_create_bloom(bloom as i32) } else { ptr::null_mut() };
            ffi::leveldb_options_set_create_if_missing(options, args.create as u8);
            ffi::leveldb_options_set_cache(options, cache);
            ffi::leveldb_options_set_write_buffer_size(options, o.u64("write_buffer_size") as usize);
            ffi::leveldb_options_set_max_open_files(options, o.i32("max_open_files"));
            ffi::leveldb_options_set_block_size(options, o.u64("block_size") as usize);
            ffi::leveldb_options_set_compression(
                options,
                if compression == "snappy" { ffi::Compression::Snappy } else { ffi::Compression::No },
            );
            if !filter.is_null() {
                ffi::leveldb_options_set_filter_policy(options, filter);
            }
            let mut err: *mut c_char = ptr::null_mut();
            let db = ffi::leveldb_open(options, cpath.as_ptr(), &mut err);
            if let Some(msg) = take_error(err) {
                if !db.is_null() {
                    ffi::leveldb_close(db);
                }
                ffi::leveldb_options_destroy(options);
                ffi::leveldb_cache_destroy(cache);
                if !filter.is_null() {
                    ffi::leveldb_filterpolicy_destroy(filter);
                }
                bail!("leveldb: cannot open {}: {msg}", path.display());
            }
            let applied = vec![
                ("block_cache_size".to_string(), o.u64("block_cache_size").to_string()),
                ("write_buffer_size".into(), o.u64("write_buffer_size").to_string()),
                ("bloom_bits".into(), bloom.to_string()),
                (
                    "filter_policy".into(),
                    if bloom > 0 { format!("leveldb.BuiltinBloomFilter2 ({bloom} bits/key)") } else { "none".into() },
                ),
                ("compression".into(), compression.clone()),
                ("sync".into(), o.bool("sync").to_string()),
                ("max_open_files".into(), o.i64("max_open_files").to_string()),
                ("block_size".into(), o.u64("block_size").to_string()),
                // LevelDB defaults the C API leaves as they are.
                ("max_file_size".into(), (2u64 << 20).to_string()),
                ("block_restart_interval".into(), "16".into()),
                ("paranoid_checks".into(), "false".into()),
                ("reuse_logs".into(), "false".into()),
                ("comparator".into(), "leveldb.BytewiseComparator".into()),
                ("ReadOptions.verify_checksums".into(), "false".into()),
                ("ReadOptions.fill_cache".into(), "true".into()),
                ("path".into(), path.display().to_string()),
            ];
            let mut applied = applied;
            applied.extend(build_info());
            Ok(LevelDbEngine {
                db,
                options,
                cache,
                filter,
                path,
                applied,
                sync: o.bool("sync"),
                ingested: AtomicU64::new(0),
            })
        }
    }

    fn property(&self, name: &str) -> Option<String> {
        let cname = CString::new(name).ok()?;
        // SAFETY: the db is open; the result is malloc'd (or NULL) and we free it.
        unsafe {
            let v = ffi::leveldb_property_value(self.db, cname.as_ptr());
            if v.is_null() {
                return None;
            }
            let s = CStr::from_ptr(v).to_string_lossy().into_owned();
            ffi::leveldb_free(v.cast());
            Some(s)
        }
    }
}

impl Drop for LevelDbEngine {
    fn drop(&mut self) {
        // SAFETY: sessions borrow the engine, so none is alive here; the db is
        // closed before the objects it uses are destroyed.
        unsafe {
            ffi::leveldb_close(self.db);
            ffi::leveldb_options_destroy(self.options);
            ffi::leveldb_cache_destroy(self.cache);
            if !self.filter.is_null() {
                ffi::leveldb_filterpolicy_destroy(self.filter);
            }
        }
    }
}

impl Engine for LevelDbEngine {
    fn version(&self) -> String {
        // SAFETY: constant getters.
        unsafe { format!("{}.{}", ffi::leveldb_major_version(), ffi::leveldb_minor_version()) }
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        self.applied.clone()
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        // SAFETY: constructors; destroyed in LevelDbSession's Drop.
        unsafe {
            let write_opts = ffi::leveldb_writeoptions_create();
            ffi::leveldb_writeoptions_set_sync(write_opts, self.sync as u8);
            Ok(Box::new(LevelDbSession {
                engine: self,
                write_opts,
                read_opts: ffi::leveldb_readoptions_create(),
                batch: ffi::leveldb_writebatch_create(),
                ingested: 0,
            }))
        }
    }

    /// Writes the memtable to a level-0 table and waits for it: a compaction
    /// of the empty key range ["", ""] (LevelDB's CompactRange always compacts
    /// the memtable first; no table overlaps that range with non-empty keys).
    fn background_threads(&self) -> (usize, String) {
        (1, "LevelDB's compaction thread".into())
    }

    fn flush(&self) -> Result<()> {
        let empty = [0u8; 1];
        // SAFETY: the db is open; the key pointers are valid for length 0.
        unsafe { ffi::leveldb_compact_range(self.db, empty.as_ptr().cast(), 0, empty.as_ptr().cast(), 0) };
        Ok(())
    }

    /// Ingest: the key and value bytes of ended sessions' writes; written:
    /// the Write(MB) column of leveldb.stats (memtable flushes count as
    /// level-0 compaction output there), printed in whole MB per level.
    fn write_amp_counters(&self) -> Option<WriteAmpCounters> {
        let written_mb = parse_stats_written_mb(&self.property("leveldb.stats")?)?;
        Some(WriteAmpCounters {
            ingest_bytes: self.ingested.load(Ordering::Relaxed),
            written_bytes: (written_mb * 1048576.0) as u64,
            // Up to half a MB of rounding on each of the 7 levels.
            resolution_bytes: 4 << 20,
        })
    }

    fn internals(&self) -> std::result::Result<Vec<super::Internal>, String> {
        // LevelDB says little while it runs: its level-0 files (writes slow
        // at 8 and stop at 12) and the memory its memtables and cache hold.
        let int = |name: &'static str, p: &str| {
            let value = self.property(p)?.trim().parse::<f64>().ok()?;
            Some(super::Internal { name, value, cumulative: false })
        };
        let out: Vec<super::Internal> =
            [int("l0_files", "leveldb.num-files-at-level0"), int("memory_bytes", "leveldb.approximate-memory-usage")]
                .into_iter()
                .flatten()
                .collect();
        if out.is_empty() {
            return Err("LevelDB answered none of its counters' properties".into());
        }
        Ok(out)
    }

    fn stats(&self) -> Vec<(String, String)> {
        let mut names: Vec<String> = ["leveldb.stats", "leveldb.sstables", "leveldb.approximate-memory-usage"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.extend((0..7).map(|l| format!("leveldb.num-files-at-level{l}")));
        names.into_iter().filter_map(|n| self.property(&n).map(|v| (n, v))).collect()
    }
}

/// The sum of the Write(MB) column of leveldb.stats:
/// "Level  Files Size(MB) Time(sec) Read(MB) Write(MB)", one row per level.
fn parse_stats_written_mb(stats: &str) -> Option<f64> {
    if !stats.contains("Write(MB)") {
        return None;
    }
    // A database without tables prints the header alone: nothing written.
    let mut sum = 0.0;
    for row in
        stats.lines().skip_while(|l| !l.contains("Write(MB)")).skip(1).filter(|l| !l.trim_start().starts_with('-'))
    {
        let cols: Vec<&str> = row.split_whitespace().collect();
        if cols.len() != 6 {
            break;
        }
        sum += cols[5].parse::<f64>().ok()?;
    }
    Some(sum)
}

struct LevelDbSession<'a> {
    engine: &'a LevelDbEngine,
    /// Key and value bytes this session wrote (added to the engine's count when it ends).
    ingested: u64,
    write_opts: *mut ffi::leveldb_writeoptions_t,
    read_opts: *mut ffi::leveldb_readoptions_t,
    /// One batch per session, cleared and reused for every write (db_bench style).
    batch: *mut ffi::leveldb_writebatch_t,
}

impl Drop for LevelDbSession<'_> {
    fn drop(&mut self) {
        self.engine.ingested.fetch_add(self.ingested, Ordering::Relaxed);
        // SAFETY: owned by this session, not used after this.
        unsafe {
            ffi::leveldb_writeoptions_destroy(self.write_opts);
            ffi::leveldb_readoptions_destroy(self.read_opts);
            ffi::leveldb_writebatch_destroy(self.batch);
        }
    }
}

impl LevelDbSession<'_> {
    fn write_reused_batch(&mut self, what: &str, fill: impl FnOnce(*mut ffi::leveldb_writebatch_t)) -> Result<()> {
        let mut err: *mut c_char = ptr::null_mut();
        // SAFETY: the batch and options belong to this session; the db is open.
        unsafe {
            ffi::leveldb_writebatch_clear(self.batch);
            fill(self.batch);
            ffi::leveldb_write(self.engine.db, self.write_opts, self.batch, &mut err);
        }
        match take_error(err) {
            None => Ok(()),
            Some(msg) => bail!("leveldb: {what} failed in {}: {msg}", self.engine.path.display()),
        }
    }

    /// Reads `key`; calls `with` on the value when found.
    fn read(&mut self, key: &[u8], with: impl FnOnce(&[u8])) -> Result<bool> {
        let mut len: usize = 0;
        let mut err: *mut c_char = ptr::null_mut();
        // SAFETY: the db is open; the returned value is malloc'd (or NULL) and freed here.
        unsafe {
            let v =
                ffi::leveldb_get(self.engine.db, self.read_opts, key.as_ptr().cast(), key.len(), &mut len, &mut err);
            if let Some(msg) = take_error(err) {
                bail!("leveldb: get failed in {}: {msg}", self.engine.path.display());
            }
            if v.is_null() {
                return Ok(false);
            }
            with(std::slice::from_raw_parts(v as *const u8, len));
            ffi::leveldb_free(v.cast());
            Ok(true)
        }
    }
}

impl Session for LevelDbSession<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.ingested += (key.len() + value.len()) as u64;
        // SAFETY: the batch copies key and value.
        self.write_reused_batch("put", |b| unsafe {
            ffi::leveldb_writebatch_put(b, key.as_ptr().cast(), key.len(), value.as_ptr().cast(), value.len())
        })
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.ingested += key.len() as u64;
        // SAFETY: the batch copies the key.
        self.write_reused_batch("delete", |b| unsafe {
            ffi::leveldb_writebatch_delete(b, key.as_ptr().cast(), key.len())
        })
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        self.ingested += ops
            .iter()
            .map(|op| match *op {
                BatchOp::Put(k, v) => (k.len() + v.len()) as u64,
                BatchOp::Delete(k) => k.len() as u64,
            })
            .sum::<u64>();
        self.write_reused_batch("write batch", |b| {
            for op in ops {
                match *op {
                    // SAFETY: the batch copies key and value.
                    BatchOp::Put(k, v) => unsafe {
                        ffi::leveldb_writebatch_put(b, k.as_ptr().cast(), k.len(), v.as_ptr().cast(), v.len())
                    },
                    // SAFETY: the batch copies the key.
                    BatchOp::Delete(k) => unsafe { ffi::leveldb_writebatch_delete(b, k.as_ptr().cast(), k.len()) },
                }
            }
        })
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        self.read(key, |v| {
            std::hint::black_box(v);
        })
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        self.read(key, |v| out.extend_from_slice(v))
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        if max_entries == 0 {
            return Ok(0);
        }
        // SAFETY: the iterator is created and destroyed here; key and value
        // slices are used only before the iterator moves.
        unsafe {
            let it = ffi::leveldb_create_iterator(self.engine.db, self.read_opts);
            let key_of = |it: *mut ffi::leveldb_iterator_t| {
                let mut len = 0usize;
                // leveldb-sys declares the out-parameter *const; C writes it.
                let k = ffi::leveldb_iter_key(it, (&raw mut len).cast_const());
                std::slice::from_raw_parts(k as *const u8, len)
            };
            ffi::leveldb_iter_seek(it, start.as_ptr().cast(), start.len());
            if reverse {
                if ffi::leveldb_iter_valid(it) == 0 {
                    ffi::leveldb_iter_seek_to_last(it);
                } else if key_of(it) > start {
                    ffi::leveldb_iter_prev(it);
                }
            }
            let mut n = 0;
            while ffi::leveldb_iter_valid(it) != 0 {
                let k = key_of(it);
                let mut vlen = 0usize;
                let v = ffi::leveldb_iter_value(it, (&raw mut vlen).cast_const());
                let v = std::slice::from_raw_parts(v as *const u8, vlen);
                n += 1;
                if !visit(k, v) || n == max_entries {
                    break;
                }
                if reverse {
                    ffi::leveldb_iter_prev(it);
                } else {
                    ffi::leveldb_iter_next(it);
                }
            }
            let mut err: *mut c_char = ptr::null_mut();
            ffi::leveldb_iter_get_error(it, &mut err as *mut *mut c_char as *const *const c_char);
            ffi::leveldb_iter_destroy(it);
            if let Some(msg) = take_error(err) {
                bail!("leveldb: scan failed in {}: {msg}", self.engine.path.display());
            }
            Ok(n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::conformance::{self, key, load_even, opt, stat};
    use crate::engine::resolve_options;
    use std::path::Path;

    fn open_with(dir: &Path, opts: &[(&str, &str)]) -> Result<Box<dyn Engine>> {
        conformance::open_with(&SPEC, dir, opts)
    }

    /// A C++ integer, product (`4 * 1024`) or shift (`8 << 20`).
    fn cpp_int(expr: &str) -> i64 {
        let int = |t: &str| -> i64 { t.trim().parse().unwrap_or_else(|_| panic!("cannot read {t:?} in {expr:?}")) };
        match expr.split_once("<<") {
            Some((a, b)) => int(a) << int(b),
            None => expr.split('*').map(int).product(),
        }
    }

    /// The value of the declaration `NAME = EXPR;` in C++ `source`.
    fn cpp_value(source: &str, name: &str) -> i64 {
        let line = source
            .lines()
            .find(|l| l.contains(&format!(" {name} = ")))
            .unwrap_or_else(|| panic!("no `{name} = ` in the source"));
        cpp_int(line.split_once(" = ").unwrap().1.trim().trim_end_matches(';'))
    }

    /// rumbench's defaults are those of LevelDB's own db_bench (db/db_bench.cc of
    /// the very LevelDB built here), read from its sources: db_bench takes
    /// memtable, file and block size and open files from leveldb::Options,
    /// gives no block cache (so LevelDB makes its own LRU one, db_impl.cc), no
    /// bloom filter, and never sets compression (Options: snappy) or reuse_logs.
    #[test]
    fn defaults_are_leveldb_db_benchs() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor/leveldb-sys/deps/leveldb-1.22");
        let read = |file: &str| std::fs::read_to_string(src.join(file)).unwrap();
        let (db_bench, options_h, db_impl) =
            (read("db/db_bench.cc"), read("include/leveldb/options.h"), read("db/db_impl.cc"));
        for (flag, field) in [
            ("write_buffer_size", "write_buffer_size"),
            ("max_file_size", "max_file_size"),
            ("block_size", "block_size"),
            ("open_files", "max_open_files"),
        ] {
            assert!(
                db_bench.contains(&format!("FLAGS_{flag} = leveldb::Options().{field};")),
                "db_bench no longer takes {field} from leveldb::Options"
            );
        }
        assert_eq!(cpp_value(&db_bench, "FLAGS_cache_size"), -1);
        assert!(db_bench.contains("cache_(FLAGS_cache_size >= 0 ? NewLRUCache(FLAGS_cache_size) : nullptr)"));
        assert_eq!(cpp_value(&db_bench, "FLAGS_bloom_bits"), -1, "db_bench's default: no filter");
        assert!(db_bench.contains("FLAGS_bloom_bits >= 0"));
        assert!(db_bench.contains("static bool FLAGS_reuse_logs = false;"));
        assert!(!db_bench.contains("options.compression"), "db_bench sets compression now");
        assert!(options_h.contains("CompressionType compression = kSnappyCompression;"));
        let lru_line = db_impl
            .lines()
            .find(|l| l.contains("result.block_cache = NewLRUCache("))
            .expect("LevelDB's own block cache");
        let leveldb_cache = cpp_int(lru_line.split_once("NewLRUCache(").unwrap().1.trim().trim_end_matches(");"));

        let ours = resolve_options(&SPEC, &[]).unwrap();
        assert_eq!(
            ours.u64("block_cache_size") as i64,
            leveldb_cache,
            "block cache (db_bench: none, so LevelDB's own)"
        );
        assert_eq!(ours.u64("write_buffer_size") as i64, cpp_value(&options_h, "write_buffer_size"));
        assert_eq!(ours.u64("block_size") as i64, cpp_value(&options_h, "block_size"));
        assert_eq!(ours.i64("max_open_files"), cpp_value(&options_h, "max_open_files"));
        assert_eq!(ours.i64("bloom_bits"), 0, "0 is rumbench's no filter (db_bench's -1)");
        assert_eq!(ours.str("compression"), "snappy");
        assert!(!ours.bool("sync"), "db_bench's writes do not sync");
        // What rumbench leaves to LevelDB, as it reports it.
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert_eq!(opt(&*e, "max_file_size"), cpp_value(&options_h, "max_file_size").to_string());
        assert!(options_h.contains("bool reuse_logs = false;"));
        assert_eq!(opt(&*e, "reuse_logs"), "false");
    }

    #[test]
    fn keeps_the_engine_contract() {
        conformance::run_all(|dir| open_with(dir, &[]).unwrap());
    }

    #[test]
    fn reports_version_options_build_and_stats() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert_eq!(e.version(), "1.22");
        assert_eq!(opt(&*e, "block_cache_size"), (8u64 << 20).to_string());
        assert_eq!(opt(&*e, "write_buffer_size"), (4u64 << 20).to_string());
        assert_eq!(opt(&*e, "compression"), "snappy");
        assert_eq!(opt(&*e, "filter_policy"), "none");
        assert_eq!(opt(&*e, "max_open_files"), "1000");
        assert_eq!(opt(&*e, "block_size"), "4096");
        assert_eq!(opt(&*e, "sync"), "false");
        // scripts/test.sh runs these tests once more against a LevelDB built
        // with assertions on purpose (RUMBENCH_LEVELDB_BUILD_TYPE=Debug).
        let on_purpose = std::env::var("RUMBENCH_LEVELDB_BUILD_TYPE").is_ok_and(|t| t == "Debug");
        assert_eq!(opt(&*e, "build.ndebug"), (!on_purpose).to_string(), "{}", opt(&*e, "build.cxx_flags"));
        assert_eq!(opt(&*e, "build.type"), if on_purpose { "Debug" } else { "Release" });
        if !on_purpose {
            assert!(opt(&*e, "build.cxx_flags").contains("-O3"), "{}", opt(&*e, "build.cxx_flags"));
        }
        let mut s = e.session().unwrap();
        load_even(&mut *s);
        drop(s);
        assert_eq!(stat(&*e, "leveldb.num-files-at-level0").as_deref(), Some("0"));
        e.flush().unwrap();
        // The flush wrote the memtable to a table (level 0, or deeper: LevelDB
        // may place a flushed table at level 1 or 2 when nothing overlaps).
        let tables = stat(&*e, "leveldb.sstables").unwrap();
        assert!(tables.lines().any(|l| l.starts_with(' ')), "{tables}");
        assert!(stat(&*e, "leveldb.stats").unwrap().contains("Compactions"));
        assert!(stat(&*e, "leveldb.approximate-memory-usage").unwrap().parse::<u64>().unwrap() > 0);
        assert!(e.background_work_pending().unwrap().is_none());
        let mut s = e.session().unwrap();
        assert!(s.get(&key(100)).unwrap());
        let mut v = Vec::new();
        assert!(s.get_value(&key(100), &mut v).unwrap());
        assert_eq!(v, b"100");
    }

    #[test]
    fn options_are_applied_and_validated() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(
            dir.path(),
            &[
                ("bloom_bits", "10"),
                ("compression", "none"),
                ("sync", "true"),
                ("block_size", "16K"),
                ("write_buffer_size", "1M"),
            ],
        )
        .unwrap();
        assert!(opt(&*e, "filter_policy").contains("10 bits"));
        assert_eq!(opt(&*e, "compression"), "none");
        assert_eq!(opt(&*e, "block_size"), "16384");
        let mut s = e.session().unwrap();
        s.put(&key(1), b"x").unwrap();
        assert!(s.get(&key(1)).unwrap() && !s.get(&key(2)).unwrap());
        drop(s);
        drop(e);
        let err = resolve_options(&SPEC, &[("compression".into(), "zstd".into())]).err().unwrap().to_string();
        assert!(err.contains("snappy|none"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = open_with(dir.path(), &[("max_open_files", "10")]).err().unwrap().to_string();
        assert!(err.contains("leveldb.max_open_files") && err.contains("from 74 to 50000"), "{err}");
        let err = open_with(dir.path(), &[("write_buffer_size", "1K")]).err().unwrap().to_string();
        assert!(err.contains("write_buffer_size"), "{err}");
    }

    /// Bytes in the .ldb tables after writing 2000 compressible values and a flush.
    fn table_bytes(compression: &str) -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("compression", compression)]).unwrap();
        let mut s = e.session().unwrap();
        for i in 0..2000 {
            s.put(&key(i), &[b'a'; 1000]).unwrap();
        }
        drop(s);
        e.flush().unwrap();
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|f| f.ok())
            .filter(|f| f.file_name().to_string_lossy().ends_with(".ldb"))
            .map(|f| f.metadata().unwrap().len())
            .sum()
    }

    #[test]
    fn snappy_is_compiled_in() {
        let (snappy, none) = (table_bytes("snappy"), table_bytes("none"));
        assert!(none > 2_000_000 && snappy * 10 < none, "snappy {snappy} bytes, none {none} bytes");
    }

    #[test]
    fn data_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let e = open_with(dir.path(), &[]).unwrap();
            load_even(&mut *e.session().unwrap());
        }
        let e = open_with(dir.path(), &[]).unwrap();
        let mut s = e.session().unwrap();
        assert!(s.get(&key(198)).unwrap());
        assert_eq!(conformance::count(&mut *s), 100);
    }

    #[test]
    fn write_amp_counters_count_ingest_exactly_and_writes_from_the_stats() {
        let sample = "                               Compactions\nLevel  Files Size(MB) Time(sec) Read(MB) Write(MB)\n--------------------------------------------------\n  0        1        1         0        0         3\n  1        5        9         0       12        10\n";
        assert_eq!(parse_stats_written_mb(sample), Some(13.0));
        assert_eq!(parse_stats_written_mb("                               Compactions\nLevel  Files Size(MB) Time(sec) Read(MB) Write(MB)\n--------------------------------------------------\n"), Some(0.0));
        assert_eq!(parse_stats_written_mb("no table"), None);
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("write_buffer_size", "1M"), ("compression", "none")]).unwrap();
        let value = vec![7u8; 1000];
        {
            let mut s = e.session().unwrap();
            for i in 0..8000u64 {
                s.put(&key(i), &value).unwrap();
            }
            s.delete(&key(1)).unwrap();
        }
        e.flush().unwrap();
        let wa = e.write_amp_counters().expect("counters");
        assert_eq!(
            wa.ingest_bytes,
            8000 * (conformance::KEY_SIZE as u64 + 1000) + conformance::KEY_SIZE as u64,
            "every key and value byte of the ended session"
        );
        // About 8 MB reached level-0 tables (written, rounded per level to whole MB).
        assert!((6 << 20..=12 << 20).contains(&wa.written_bytes), "{wa:?}");
    }
}
