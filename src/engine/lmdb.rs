//! LMDB through `heed` (bundled LMDB): a copy-on-write B-tree in one memory map.
//!
//! One unnamed ("default") database of raw bytes. LMDB allows one writer at a
//! time: every put, delete and write batch is its own write transaction,
//! committed at once, and concurrent writers queue on LMDB's writer mutex.
//! Reads never block: a point read, a multi-get and a scan each run in one read
//! transaction, begun per call, so they always see every prior commit.
//!
//! The environment is opened with thread-local reader slots (heed's `WithTls`):
//! beginning a read transaction reuses the calling thread's slot without taking
//! the reader-table lock, which is the cheapest way to run one read transaction
//! per call. The price is LMDB's rule that a thread holds at most one read
//! transaction at a time, so a scan's `visit` callback must not read this engine.

use std::ops::Bound;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, EnvFlags, EnvOpenOptions, RwTxn};

use super::{BatchOp, Engine, EngineSpec, OpenArgs, OptKind, OptionSpec, Session, TxnEnd, TxnOps};

const SYNC_MODES: &[&str] = &["sync", "nometasync", "nosync", "mapasync"];

/// How LMDB is built into this binary: lmdb-master-sys compiles the bundled
/// mdb.c with the cc crate, defining NDEBUG unless its build script has
/// debug assertions (a debug build of rumbench).
fn build_info() -> Vec<(String, String)> {
    vec![
        ("build.library".into(), "bundled LMDB of heed 0.23 (lmdb-master-sys), linked statically".into()),
        (
            "build.ndebug".into(),
            if crate::build_info::optimised() {
                "true (defined by lmdb-master-sys in release builds)"
            } else {
                "false (a debug build)"
            }
            .into(),
        ),
        ("build.opt_level".into(), crate::build_info::OPT_LEVEL.into()),
    ]
}

pub const SPEC: EngineSpec = EngineSpec {
    name: "lmdb",
    profile_symbols: &[("mdb_", "liblmdb")],
    sizes_not_claimed: &[],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "LMDB (via heed, bundled): copy-on-write B-tree in a memory map; one writer at a time, reads never block",
    options: &[
        OptionSpec {
            name: "map_size",
            default: "64G",
            kind: OptKind::Size,
            help: "memory map size = maximum database size (virtual address space; rounded up to the OS page size)",
        },
        OptionSpec {
            name: "sync_mode",
            // Like RocksDB's sync=false and SQLite's synchronous=normal in WAL mode: a commit
            // survives a process crash, not an OS crash. The same durability on every engine by default.
            default: "nosync",
            kind: OptKind::Choice(SYNC_MODES),
            help: "commit durability: sync (fsync data+meta), nometasync (MDB_NOMETASYNC), nosync (MDB_NOSYNC), mapasync (MDB_NOSYNC|MDB_MAPASYNC)",
        },
        OptionSpec {
            name: "write_map",
            default: "false",
            kind: OptKind::Bool,
            help: "MDB_WRITEMAP: write through a writable memory map instead of write() calls",
        },
        OptionSpec {
            name: "max_readers",
            default: "126",
            kind: OptKind::Int { min: 1, max: 100_000 },
            help: "reader table slots: maximum concurrent read transactions (one per reading thread)",
        },
        OptionSpec {
            name: "no_readahead",
            default: "false",
            kind: OptKind::Bool,
            help: "MDB_NORDAHEAD: turn off OS readahead on the map (helps random reads of a database larger than RAM)",
        },
    ],
    io_bound_options: &[],
    open,
    presets: &[],
    stores_data: true,
    existing_database: Some(|dir| {
        use std::io::Read;
        let mut head = [0u8; 20];
        match std::fs::File::open(dir.join("data.mdb")).and_then(|mut f| f.read_exact(&mut head)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("no data.mdb in it"),
            Err(e) if e.kind() != std::io::ErrorKind::UnexpectedEof => bail!("cannot read its data.mdb: {e}"),
            // The first meta page: a 16-byte page header, then mm_magic (MDB_MAGIC 0xBEEFC0DE).
            r if r.is_err() || u32::from_le_bytes([head[16], head[17], head[18], head[19]]) != 0xBEEF_C0DE => bail!("its data.mdb has no LMDB meta page"),
            _ => Ok(()),
        }
    }),
    check: super::no_contradictions,
    build_info,
    transactions: |_| Some("serialized: one write transaction at a time (LMDB has a single writer)"),
    // Every reading thread holds one reader slot, plus one for the thread that reads stats.
    max_sessions: |o| Some((o.u64("max_readers").saturating_sub(1), "max_readers")),
    claims,
    crash_cause: super::no_crash_cause,
    size_limits: |_| super::SizeLimits {
        max_key: Some((MAX_KEY_SIZE, "LMDB's MDB_MAXKEYSIZE (mdb_env_get_maxkeysize)")),
        max_value: None,
    },
};

/// MDB_MAXKEYSIZE of the LMDB built in (lmdb-master-sys without its
/// longer-keys feature); a unit test checks it against mdb_env_get_maxkeysize.
const MAX_KEY_SIZE: usize = 511;

/// With write_map, LMDB sizes the file to map_size at open (ftruncate in
/// mdb_env_map) and writes through the map: a full disk under it is a SIGBUS
/// that kills the process, not an error. Without it, map_size is address
/// space only (writes that find the disk full fail with ENOSPC).
fn claims(o: &super::EngineOptions, _sessions: usize) -> Vec<super::Claim> {
    match o.bool("write_map") {
        true => vec![super::Claim::disk(
            o.u64("map_size"),
            format!("{} with lmdb.write_map=true (the file is sized to it)", super::option_text("lmdb", o, "map_size")),
        )],
        false => Vec::new(),
    }
}

/// Names of the environment flags, for effective_options.
const FLAG_NAMES: &[(EnvFlags, &str)] = &[
    (EnvFlags::FIXED_MAP, "MDB_FIXEDMAP"),
    (EnvFlags::NO_SUB_DIR, "MDB_NOSUBDIR"),
    (EnvFlags::NO_SYNC, "MDB_NOSYNC"),
    (EnvFlags::READ_ONLY, "MDB_RDONLY"),
    (EnvFlags::NO_META_SYNC, "MDB_NOMETASYNC"),
    (EnvFlags::WRITE_MAP, "MDB_WRITEMAP"),
    (EnvFlags::MAP_ASYNC, "MDB_MAPASYNC"),
    (EnvFlags::NO_LOCK, "MDB_NOLOCK"),
    (EnvFlags::NO_READ_AHEAD, "MDB_NORDAHEAD"),
    (EnvFlags::NO_MEM_INIT, "MDB_NOMEMINIT"),
];
/// MDB_NOTLS (heed deprecates its EnvFlags constant; only decoded here).
const MDB_NOTLS: u32 = 0x20_0000;

fn flag_names(bits: u32) -> String {
    let mut names: Vec<&str> =
        FLAG_NAMES.iter().filter(|(f, _)| bits & f.bits() == f.bits()).map(|(_, n)| *n).collect();
    if bits & MDB_NOTLS != 0 {
        names.push("MDB_NOTLS");
    }
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join("|")
    }
}

fn os_page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant; no pointers are involved.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as u64
    } else {
        4096
    }
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    Ok(Box::new(LmdbEngine::open(args)?))
}

pub struct LmdbEngine {
    env: Env,
    db: Database<'static, Bytes, Bytes>,
    path: PathBuf,
    sync_mode: String,
    read_only: bool,
}

impl LmdbEngine {
    fn open(args: &OpenArgs) -> Result<Self> {
        let o = &args.options;
        let path = args.dir.clone();
        let page = os_page_size();
        let map_size = o.u64("map_size").max(page).div_ceil(page) * page;
        let map_size = usize::try_from(map_size)
            .with_context(|| format!("lmdb: map_size {map_size} too large for this platform ({})", path.display()))?;
        let max_readers = u32::try_from(o.u64("max_readers"))
            .ok()
            .filter(|&n| n > 0)
            .with_context(|| format!("lmdb: max_readers must be 1..={} ({})", u32::MAX, path.display()))?;
        // Every reading thread holds one reader slot (plus one for the thread
        // that reads stats); running out fails reads with MDB_READERS_FULL.
        // Plans are checked before they start (engine::check_sessions); this is for other callers.
        super::check_sessions(&SPEC, o, args.threads).with_context(|| path.display().to_string())?;

        let sync_mode = o.str("sync_mode").to_string();
        let mut flags = match sync_mode.as_str() {
            "sync" => EnvFlags::empty(),
            "nometasync" => EnvFlags::NO_META_SYNC,
            "nosync" => EnvFlags::NO_SYNC,
            "mapasync" => EnvFlags::NO_SYNC | EnvFlags::MAP_ASYNC,
            other => bail!("lmdb: invalid sync_mode '{other}' (valid: {})", SYNC_MODES.join("|")),
        };
        if o.bool("write_map") {
            flags |= EnvFlags::WRITE_MAP;
        }
        if o.bool("no_readahead") {
            flags |= EnvFlags::NO_READ_AHEAD;
        }

        if !args.create && !path.join("data.mdb").exists() {
            bail!("lmdb: no database (data.mdb) in {}", path.display());
        }
        if args.read_only {
            // The user's database, read by read-only steps: LMDB never writes it (MDB_RDONLY).
            flags |= EnvFlags::READ_ONLY;
        }
        let mut builder = EnvOpenOptions::new();
        builder.map_size(map_size).max_readers(max_readers).max_dbs(0);
        // SAFETY: NOSYNC / NOMETASYNC / MAPASYNC only weaken durability after a
        // crash (the user's explicit choice); they cannot corrupt memory in
        // this process.
        unsafe { builder.flags(flags) };
        // SAFETY: the directory is private to this engine (the caller creates
        // it per run); nothing else in this process maps or modifies its files,
        // and heed refuses to open the same path twice in one process.
        let env = unsafe { builder.open(&path) }
            .with_context(|| format!("lmdb: cannot open environment in {}", path.display()))?;

        let db: Database<'static, Bytes, Bytes> = if args.read_only {
            let rtxn = env.read_txn().with_context(|| format!("lmdb: cannot begin read txn in {}", path.display()))?;
            env.open_databases_and_commit(rtxn, |opener, rtxn| {
                opener.open_database::<Bytes, Bytes>(rtxn, None).map(CommitOrAbort::<_, ()>::Commit)
            })
            .with_context(|| format!("lmdb: cannot open the default database in {}", path.display()))?
            .unwrap_commit()
            .with_context(|| format!("lmdb: no default database in {}", path.display()))?
        } else {
            let wtxn =
                env.write_txn().with_context(|| format!("lmdb: cannot begin write txn in {}", path.display()))?;
            env.create_databases_and_commit(wtxn, |opener, wtxn| {
                opener.create_database::<Bytes, Bytes>(wtxn, None).map(CommitOrAbort::<_, ()>::Commit)
            })
            .with_context(|| format!("lmdb: cannot open the default database in {}", path.display()))?
            .unwrap_commit()
        };

        let max_key = env.max_key_size();
        if args.key_size > max_key {
            bail!("lmdb: key_size {} exceeds LMDB's maximum key size {} ({})", args.key_size, max_key, path.display());
        }
        Ok(LmdbEngine { env, db, path, sync_mode, read_only: args.read_only })
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Engine for LmdbEngine {
    fn read_only(&self) -> bool {
        self.read_only
    }

    fn version(&self) -> String {
        let v = heed::lmdb_version();
        format!("{}.{}.{}", v.major, v.minor, v.patch)
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        let info = self.env.info();
        let bits = self.env.get_flags().unwrap_or(0);
        let has = |f: EnvFlags| (bits & f.bits() == f.bits()).to_string();
        let page_size = self.env.unnamed_database_stat().page_size;
        vec![
            ("map_size".into(), info.map_size.to_string()),
            ("sync_mode".into(), self.sync_mode.clone()),
            ("write_map".into(), has(EnvFlags::WRITE_MAP)),
            ("max_readers".into(), self.env.max_readers().to_string()),
            ("no_readahead".into(), has(EnvFlags::NO_READ_AHEAD)),
            ("env_flags".into(), flag_names(bits)),
            ("env_flags_raw".into(), format!("{bits:#x}")),
            ("page_size".into(), page_size.to_string()),
            ("max_key_size".into(), self.env.max_key_size().to_string()),
            ("read_txn_tls".into(), (bits & MDB_NOTLS == 0).to_string()),
            ("database".into(), "unnamed (default), raw bytes, bytewise key order".into()),
            ("path".into(), self.path.display().to_string()),
        ]
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(LmdbSession { engine: self, value: Vec::new() }))
    }

    /// A commit writes its pages in place (copy-on-write B+tree): nothing is
    /// left for later work. Unsynced pages (nosync) are the kernel's, which
    /// the step's syncfs writes before its figures are taken.
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        Ok(Vec::new())
    }

    /// What LMDB's environment says without a transaction: the pages its
    /// map uses (its high-water mark: freed pages are reused, not returned),
    /// its commits, and the reader slots held (a reader held long keeps
    /// freed pages from reuse).
    fn internals(&self) -> std::result::Result<Vec<super::Internal>, String> {
        let info = self.env.info();
        let pages = info.last_page_number as f64 + 1.0;
        Ok(vec![
            super::Internal { name: "map_used_bytes", value: pages * os_page_size() as f64, cumulative: false },
            super::Internal { name: "commits_per_s", value: info.last_txn_id as f64, cumulative: true },
            super::Internal { name: "readers", value: info.number_of_readers as f64, cumulative: false },
        ])
    }

    fn flush(&self) -> Result<()> {
        self.env.force_sync().with_context(|| format!("lmdb: sync failed in {}", self.path().display()))
    }

    fn stats(&self) -> Vec<(String, String)> {
        let info = self.env.info();
        let mut out = vec![
            ("lmdb_version".to_string(), heed::lmdb_version().string.to_string()),
            ("map_size".into(), info.map_size.to_string()),
            ("last_pgno".into(), info.last_page_number.to_string()),
            ("last_txnid".into(), info.last_txn_id.to_string()),
            ("max_readers".into(), info.maximum_number_of_readers.to_string()),
            ("num_readers".into(), info.number_of_readers.to_string()),
        ];
        if let Ok(size) = self.env.real_disk_size() {
            out.push(("file_size".into(), size.to_string()));
        }
        let stat = self.env.read_txn().and_then(|rtxn| self.db.stat(&rtxn));
        match stat {
            Ok(s) => {
                out.push(("page_size".into(), s.page_size.to_string()));
                out.push(("depth".into(), s.depth.to_string()));
                out.push(("branch_pages".into(), s.branch_pages.to_string()));
                out.push(("leaf_pages".into(), s.leaf_pages.to_string()));
                out.push(("overflow_pages".into(), s.overflow_pages.to_string()));
                out.push(("entries".into(), s.entries.to_string()));
                let used = (s.branch_pages + s.leaf_pages + s.overflow_pages) as u64 * s.page_size as u64;
                out.push(("used_bytes".into(), used.to_string()));
            }
            Err(e) => out.push(("stat_error".into(), e.to_string())),
        }
        out
    }
}

struct LmdbSession<'a> {
    engine: &'a LmdbEngine,
    /// The last value read, copied out of the map (reused, so no allocation
    /// once it has grown to the value size).
    value: Vec<u8>,
}

impl LmdbSession<'_> {
    fn ctx(&self, what: &str) -> String {
        format!("lmdb: {what} failed in {}", self.engine.path().display())
    }
}

/// Reads and writes inside one LMDB write transaction (the single writer:
/// the transaction holds the write lock from begin to commit).
struct LmdbTxnOps<'t, 'e> {
    db: &'e Database<'static, Bytes, Bytes>,
    wtxn: &'t mut RwTxn<'e>,
}

impl TxnOps for LmdbTxnOps<'_, '_> {
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match self.db.get(self.wtxn, key).context("lmdb get in a write txn")? {
            Some(v) => {
                out.extend_from_slice(v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.db.put(self.wtxn, key, value).context("lmdb put in a write txn")
    }
}

impl Session for LmdbSession<'_> {
    /// A write transaction: writers queue for LMDB's one write lock, so
    /// transactions never conflict (they wait).
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        let e = self.engine;
        Some((|| {
            let mut wtxn = e.env.write_txn().with_context(|| self.ctx("begin write txn"))?;
            // On error the transaction is dropped, which aborts it; a conflict
            // the body gives up on ends as one (LMDB's own never conflict).
            match body(&mut LmdbTxnOps { db: &e.db, wtxn: &mut wtxn }) {
                Err(err) if super::is_conflict(&err) => return Ok(TxnEnd::Conflict),
                other => other?,
            }
            wtxn.commit().with_context(|| self.ctx("commit"))?;
            Ok(TxnEnd::Committed)
        })())
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let e = self.engine;
        let mut wtxn = e.env.write_txn().with_context(|| self.ctx("begin write txn"))?;
        e.db.put(&mut wtxn, key, value).with_context(|| self.ctx("put"))?;
        wtxn.commit().with_context(|| self.ctx("commit"))
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        let e = self.engine;
        let mut wtxn = e.env.write_txn().with_context(|| self.ctx("begin write txn"))?;
        e.db.delete(&mut wtxn, key).with_context(|| self.ctx("delete"))?;
        wtxn.commit().with_context(|| self.ctx("commit"))
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        let e = self.engine;
        let mut wtxn = e.env.write_txn().with_context(|| self.ctx("begin write txn"))?;
        for op in ops {
            // On error the transaction is dropped, which aborts it: nothing of
            // the batch is applied.
            match *op {
                BatchOp::Put(k, v) => e.db.put(&mut wtxn, k, v).with_context(|| self.ctx("batch put"))?,
                BatchOp::Delete(k) => {
                    e.db.delete(&mut wtxn, k).with_context(|| self.ctx("batch delete"))?;
                }
            }
        }
        wtxn.commit().with_context(|| self.ctx("batch commit"))
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        let e = self.engine;
        let rtxn = e.env.read_txn().with_context(|| self.ctx("begin read txn"))?;
        match e.db.get(&rtxn, key).with_context(|| self.ctx("get"))? {
            Some(v) => {
                self.value.clear();
                self.value.extend_from_slice(v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        if key_size == 0 {
            return Ok(0);
        }
        let e = self.engine;
        let rtxn = e.env.read_txn().with_context(|| self.ctx("begin read txn"))?;
        let mut found = 0;
        for key in keys.chunks_exact(key_size) {
            if let Some(v) = e.db.get(&rtxn, key).with_context(|| self.ctx("multi_get"))? {
                self.value.clear();
                self.value.extend_from_slice(v);
                found += 1;
            }
        }
        Ok(found)
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
        let e = self.engine;
        let rtxn = e.env.read_txn().with_context(|| self.ctx("begin read txn"))?;
        let mut visited = 0;
        let mut each = |item: heed::Result<(&[u8], &[u8])>| -> Result<bool> {
            let (k, v) = item.with_context(|| self.ctx("scan"))?;
            visited += 1;
            Ok(visit(k, v) && visited < max_entries)
        };
        // LMDB rejects zero-length keys, so an empty start means "from the first key"
        // (and, in reverse, that no key is <= it).
        let lower = if start.is_empty() { Bound::Unbounded } else { Bound::Included(start) };
        if reverse {
            if start.is_empty() {
                return Ok(0);
            }
            let range: (Bound<&[u8]>, Bound<&[u8]>) = (Bound::Unbounded, Bound::Included(start));
            for item in e.db.rev_range(&rtxn, &range).with_context(|| self.ctx("scan"))? {
                if !each(item)? {
                    break;
                }
            }
        } else {
            let range: (Bound<&[u8]>, Bound<&[u8]>) = (lower, Bound::Unbounded);
            for item in e.db.range(&rtxn, &range).with_context(|| self.ctx("scan"))? {
                if !each(item)? {
                    break;
                }
            }
        }
        Ok(visited)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::conformance::{self, key, load_even, opt};
    use crate::engine::resolve_options;

    fn open_with(dir: &Path, opts: &[(&str, &str)]) -> Result<Box<dyn Engine>> {
        conformance::open_with(&SPEC, dir, opts)
    }

    #[test]
    fn keeps_the_engine_contract() {
        conformance::run_all(|dir| open_with(dir, &[]).unwrap());
    }

    fn stat(engine: &dyn Engine, name: &str) -> String {
        conformance::stat(engine, name).unwrap_or_default()
    }

    #[test]
    fn opens_with_defaults_and_reports_itself() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert!(e.version().starts_with("0.9."), "{}", e.version());
        assert_eq!(opt(&*e, "map_size"), (64u64 << 30).to_string());
        assert_eq!(opt(&*e, "sync_mode"), "nosync");
        assert_eq!(opt(&*e, "write_map"), "false");
        assert_eq!(opt(&*e, "no_readahead"), "false");
        assert_eq!(opt(&*e, "max_readers"), "126");
        assert_eq!(opt(&*e, "env_flags"), "MDB_NOSYNC");
        assert_eq!(opt(&*e, "read_txn_tls"), "true");
        // The limit refused at plan time is the library's.
        assert_eq!(opt(&*e, "max_key_size"), MAX_KEY_SIZE.to_string());
        assert!(e.background_work_pending().unwrap().is_none());
        e.flush().unwrap();
    }

    #[test]
    fn write_batch_is_visible_and_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        let mut s = e.session().unwrap();
        s.put(&key(5), b"five").unwrap();
        let (k1, k2, k5) = (key(1), key(2), key(5));
        s.write_batch(&[BatchOp::Put(&k1, b"a"), BatchOp::Put(&k2, b"b"), BatchOp::Delete(&k5)]).unwrap();
        assert!(s.get(&k1).unwrap() && s.get(&k2).unwrap() && !s.get(&k5).unwrap());
        s.write_batch(&[]).unwrap();

        // A batch that fails part-way (key longer than LMDB's maximum) applies nothing.
        let (k3, long) = (key(3), vec![7u8; 4096]);
        let err = s.write_batch(&[BatchOp::Put(&k3, b"c"), BatchOp::Delete(&k1), BatchOp::Put(&long, b"x")]);
        let msg = format!("{:#}", err.expect_err("over-long key must fail"));
        assert!(msg.contains("lmdb") && msg.contains(&dir.path().display().to_string()), "{msg}");
        assert!(!s.get(&k3).unwrap());
        assert!(s.get(&k1).unwrap());
        assert_eq!(stat(&*e, "entries"), "2");
    }

    #[test]
    fn options_are_validated() {
        let err = resolve_options(&SPEC, &[("sync_mode".into(), "sometimes".into())]).err().unwrap().to_string();
        assert!(err.contains("sync|nometasync|nosync|mapasync"), "{err}");
        let err = resolve_options(&SPEC, &[("map_size".into(), "lots".into())]).err().unwrap().to_string();
        assert!(err.contains("lmdb.map_size"), "{err}");
        let err = resolve_options(&SPEC, &[("cache_size".into(), "1G".into())]).err().unwrap().to_string();
        assert!(err.contains("valid options") && err.contains("no_readahead"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = open_with(dir.path(), &[("max_readers", "0")]).err().unwrap().to_string();
        assert!(err.contains("max_readers"), "{err}");
        // Two client threads need three reader slots.
        let err = format!("{:#}", open_with(dir.path(), &[("max_readers", "2")]).err().unwrap());
        assert!(err.contains("max_readers 2 serves at most 1 client threads at once, and this run opens 2"), "{err}");
        open_with(dir.path(), &[("max_readers", "3")]).unwrap();
    }

    #[test]
    fn effective_options_reflect_flags() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(
            dir.path(),
            &[
                ("sync_mode", "mapasync"),
                ("write_map", "true"),
                ("no_readahead", "on"),
                ("max_readers", "200"),
                ("map_size", "1000000"),
            ],
        )
        .unwrap();
        assert_eq!(opt(&*e, "sync_mode"), "mapasync");
        assert_eq!(opt(&*e, "write_map"), "true");
        assert_eq!(opt(&*e, "no_readahead"), "true");
        assert_eq!(opt(&*e, "max_readers"), "200");
        let map_size: u64 = opt(&*e, "map_size").parse().unwrap();
        assert!(map_size >= 1_000_000 && map_size.is_multiple_of(os_page_size()), "{map_size}");
        let flags = opt(&*e, "env_flags");
        for f in ["MDB_NOSYNC", "MDB_MAPASYNC", "MDB_WRITEMAP", "MDB_NORDAHEAD"] {
            assert!(flags.contains(f), "{flags}");
        }
        assert!(!flags.contains("MDB_NOMETASYNC"), "{flags}");
        drop(e);

        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("sync_mode", "nometasync")]).unwrap();
        assert_eq!(opt(&*e, "env_flags"), "MDB_NOMETASYNC");
        e.session().unwrap().put(&key(1), b"x").unwrap();
        e.flush().unwrap();
    }

    #[test]
    fn data_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let e = open_with(dir.path(), &[]).unwrap();
            let mut s = e.session().unwrap();
            load_even(&mut *s);
        }
        let e = open_with(dir.path(), &[]).unwrap();
        let mut s = e.session().unwrap();
        assert!(s.get(&key(100)).unwrap());
        assert_eq!(stat(&*e, "entries"), "100");
        assert!(stat(&*e, "depth").parse::<u32>().unwrap() >= 1);
    }
}
