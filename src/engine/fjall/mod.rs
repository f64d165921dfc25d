//! fjall (crate `fjall`): a log-structured merge tree written in Rust.
//!
//! One keyspace (fjall's column family) named "rumbench" in one database.
//! A put, a delete and a batch each go through fjall's journal (its WAL)
//! into the keyspace's memtable; full memtables are flushed to tables and
//! compacted by fjall's own worker threads (leveled compaction, fjall's
//! default). Reads and scans see a snapshot: a batch is seen whole or not at
//! all.
//!
//! Durability (`sync_mode`) maps fjall's persist modes onto rumbench's
//! meaning of a commit: `buffer` (fjall's default, and the default here,
//! like RocksDB's sync=false) hands each write to the OS before it returns,
//! so it survives a process crash but not an OS crash; `syncdata` and
//! `sync` make each write durable (fdatasync / fsync of the journal) before
//! it returns; `manual` keeps writes in fjall's journal buffer (a process
//! crash loses what it holds) until the buffer fills, a flush or the close.

use std::ops::Bound;
use std::path::{Path, PathBuf};

use ::fjall::config::{BlockSizePolicy, CompressionPolicy};
use ::fjall::{CompressionType, Database, Keyspace, KeyspaceCreateOptions, PersistMode, Readable};
use anyhow::{bail, Context, Result};

use super::{BatchOp, Claim, Engine, EngineOptions, EngineSpec, Internal, OpenArgs, OptKind, OptionSpec, Session};

/// The crate built in; a unit test holds it to Cargo.lock.
const VERSION: &str = "3.1.13";
/// The keyspace the benchmark's keys live in.
const KEYSPACE: &str = "rumbench";
/// fjall refuses (panics on) a smaller journal limit (DatabaseBuilder::max_journaling_size).
const MIN_JOURNALING: u64 = 64 << 20;
/// Sealed memtables a keyspace holds before fjall halts its writers
/// (Keyspace::local_backpressure: 4 or more), beside the active one.
const MEMTABLES_HELD: u64 = 5;

const SYNC_MODES: &[&str] = &["buffer", "syncdata", "sync", "manual"];
const COMPRESSIONS: &[&str] = &["default", "none", "lz4"];

fn build_info() -> Vec<(String, String)> {
    vec![
        ("build.library".into(), format!("fjall {VERSION} (crate, pure Rust), compiled into rumbench")),
        ("build.assertions".into(), if cfg!(debug_assertions) { "on (a debug build)" } else { "off" }.into()),
        ("build.opt_level".into(), crate::build_info::OPT_LEVEL.into()),
    ]
}

pub const SPEC: EngineSpec = EngineSpec {
    name: "fjall",
    profile_symbols: &[("fjall::", "libfjall"), ("lsm_tree::", "libfjall")],
    sizes_not_claimed: &["block_size"],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "fjall (crate, pure Rust): LSM tree with a journal, leveled compaction on its own worker threads",
    options: &[
        OptionSpec {
            name: "sync_mode",
            default: "buffer",
            kind: OptKind::Choice(SYNC_MODES),
            help: "write durability: buffer (each write handed to the OS: survives a process crash, not an OS crash), \
                   syncdata (fdatasync of the journal per write), sync (fsync per write), manual (writes wait in \
                   fjall's journal buffer: a process crash loses them)",
        },
        OptionSpec {
            name: "cache_size",
            default: "32M",
            kind: OptKind::Size,
            help: "block cache capacity (fjall's default 32 MiB)",
        },
        OptionSpec {
            name: "max_memtable_size",
            default: "64M",
            kind: OptKind::Size,
            help: "the memtable size at which it is sealed and flushed to a table (fjall's default 64 MiB)",
        },
        OptionSpec {
            name: "max_journaling_size",
            default: "512M",
            kind: OptKind::Size,
            help: "the journals' total size at which memtables are flushed to free them (at least 64M)",
        },
        OptionSpec {
            name: "worker_threads",
            default: "0",
            kind: OptKind::Int { min: 0, max: 1024 },
            help: "flush and compaction threads; 0: fjall's default, min(cores, 4)",
        },
        OptionSpec {
            name: "block_size",
            default: "4K",
            kind: OptKind::Size,
            help: "data block size of its tables (fjall's default 4 KiB)",
        },
        OptionSpec {
            name: "compression",
            default: "default",
            kind: OptKind::Choice(COMPRESSIONS),
            help: "data block compression: default (fjall's: none in the first two levels, lz4 below), none, lz4",
        },
    ],
    io_bound_options: &[],
    presets: &[],
    open,
    stores_data: true,
    existing_database: Some(|dir| super::file_starts_with(dir, "version", b"FJL", "a fjall version marker")),
    check,
    build_info,
    transactions: super::no_transactions,
    max_sessions: super::any_sessions,
    claims,
    crash_cause: super::no_crash_cause,
    size_limits: |_| super::SizeLimits {
        // fjall's own limits (its crate documentation): keys up to 65536 bytes, values up to 2^32.
        max_key: Some((65_536, "fjall's key limit (65536 bytes)")),
        max_value: Some((u32::MAX as usize, "fjall's value limit (2^32 bytes)")),
    },
};

fn check(o: &EngineOptions) -> Result<()> {
    if o.u64("max_journaling_size") < MIN_JOURNALING {
        bail!("fjall.max_journaling_size must be at least 64M (fjall refuses less)");
    }
    if o.u64("block_size") == 0 || o.u64("block_size") > u32::MAX as u64 {
        bail!("fjall.block_size must be from 1 byte to 4G");
    }
    if o.u64("max_memtable_size") == 0 {
        bail!("fjall.max_memtable_size must be more than 0");
    }
    Ok(())
}

/// The block cache fills to its capacity; each keyspace holds its active
/// memtable and up to four sealed ones waiting to be flushed before fjall
/// halts writers; the journals grow to max_journaling_size on disk before
/// memtables are flushed to free them.
fn claims(o: &EngineOptions, _sessions: usize) -> Vec<Claim> {
    vec![
        Claim::memory(o.u64("cache_size"), super::option_text("fjall", o, "cache_size")),
        Claim::memory(
            o.u64("max_memtable_size").saturating_mul(MEMTABLES_HELD),
            format!(
                "{} x {MEMTABLES_HELD} memtables (the active one and four sealed, waiting to be flushed)",
                super::option_text("fjall", o, "max_memtable_size")
            ),
        ),
        Claim::disk(o.u64("max_journaling_size"), super::option_text("fjall", o, "max_journaling_size")),
    ]
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    Ok(Box::new(FjallEngine::open(args)?))
}

/// How a write is made durable before it returns.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Durability {
    /// Left in fjall's journal buffer (manual_journal_persist).
    Manual,
    /// Written to the OS (fjall's default).
    Buffer,
    /// The journal synced (fdatasync, fsync).
    Synced(PersistMode),
}

impl Durability {
    fn of(mode: &str) -> Result<Durability> {
        Ok(match mode {
            "manual" => Durability::Manual,
            "buffer" => Durability::Buffer,
            "syncdata" => Durability::Synced(PersistMode::SyncData),
            "sync" => Durability::Synced(PersistMode::SyncAll),
            other => bail!("fjall: invalid sync_mode '{other}' (valid: {})", SYNC_MODES.join("|")),
        })
    }
}

pub struct FjallEngine {
    db: Database,
    keyspace: Keyspace,
    path: PathBuf,
    sync_mode: String,
    durability: Durability,
    workers: usize,
    options: EngineOptions,
    /// It opened a database that was there: its keyspace keeps the options it was created with.
    reopened: bool,
}

impl FjallEngine {
    fn open(args: &OpenArgs) -> Result<Self> {
        let o = &args.options;
        check(o)?;
        let path = args.dir.clone();
        if !args.create && !path.join("version").exists() {
            bail!("fjall: no database (no version marker) in {}", path.display());
        }
        let reopened = path.join("version").exists();
        let sync_mode = o.str("sync_mode").to_string();
        let durability = Durability::of(&sync_mode)?;
        let manual = durability == Durability::Manual;
        let mut builder = Database::builder(&path)
            .cache_size(o.u64("cache_size"))
            .max_journaling_size(o.u64("max_journaling_size"))
            .manual_journal_persist(manual);
        let workers = match o.u64("worker_threads") {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(4),
            n => n as usize,
        };
        builder = builder.worker_threads(workers);
        let db = builder.open().with_context(|| format!("fjall: cannot open the database in {}", path.display()))?;
        let block_size = o.u64("block_size") as u32;
        let memtable = o.u64("max_memtable_size");
        let compression = o.str("compression").to_string();
        let keyspace = db
            .keyspace(KEYSPACE, || {
                let mut k = KeyspaceCreateOptions::default()
                    .max_memtable_size(memtable)
                    .manual_journal_persist(manual)
                    .data_block_size_policy(BlockSizePolicy::all(block_size));
                match compression.as_str() {
                    "none" => k = k.data_block_compression_policy(CompressionPolicy::all(CompressionType::None)),
                    "lz4" => k = k.data_block_compression_policy(CompressionPolicy::all(CompressionType::Lz4)),
                    _ => {}
                }
                k
            })
            .with_context(|| format!("fjall: cannot open keyspace {KEYSPACE} in {}", path.display()))?;
        Ok(FjallEngine { db, keyspace, path, sync_mode, durability, workers, options: o.clone(), reopened })
    }

    fn path(&self) -> &Path {
        &self.path
    }

    /// After a write that fjall has in its journal: make it as durable as `sync_mode` says.
    fn persist(&self) -> Result<()> {
        match self.durability {
            Durability::Synced(mode) => {
                self.db.persist(mode).with_context(|| format!("fjall: journal sync failed in {}", self.path.display()))
            }
            Durability::Buffer | Durability::Manual => Ok(()),
        }
    }
}

impl Engine for FjallEngine {
    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        let o = &self.options;
        let mut options: Vec<(String, String)> = vec![
            ("sync_mode".into(), self.sync_mode.clone()),
            ("cache_size".into(), self.db.cache_capacity().to_string()),
            ("max_memtable_size".into(), o.u64("max_memtable_size").to_string()),
            ("max_journaling_size".into(), o.u64("max_journaling_size").to_string()),
            ("worker_threads".into(), self.workers.to_string()),
            ("block_size".into(), o.u64("block_size").to_string()),
            (
                "compression".into(),
                match o.str("compression") {
                    "default" => "default (none in levels 0-1, lz4 below)".to_string(),
                    other => other.to_string(),
                },
            ),
            ("manual_journal_persist".into(), (self.durability == Durability::Manual).to_string()),
            ("keyspace".into(), KEYSPACE.into()),
            ("path".into(), self.path.display().to_string()),
        ];
        if self.reopened {
            // fjall stores a keyspace's options with it and reads them back at open.
            options.push((
                "keyspace.note".into(),
                "an existing keyspace: its max_memtable_size, block_size and compression are those it was created with, not necessarily these".into(),
            ));
        }
        options
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(FjallSession { engine: self, value: Vec::new() }))
    }

    /// The memtable flushed to a table, waited for; then the journal synced.
    fn flush(&self) -> Result<()> {
        self.keyspace
            .rotate_memtable_and_wait()
            .with_context(|| format!("fjall: memtable flush failed in {}", self.path().display()))?;
        self.db
            .persist(PersistMode::SyncAll)
            .with_context(|| format!("fjall: journal sync failed in {}", self.path().display()))
    }

    fn background_work_pending(&self) -> Result<Option<bool>> {
        Ok(Some(
            self.db.outstanding_flushes() > 0
                || self.db.active_compactions() > 0
                || self.keyspace.sealed_memtable_count() > 0,
        ))
    }

    fn background_threads(&self) -> (usize, String) {
        (self.workers, "fjall's flush and compaction workers".into())
    }

    /// What later flushes and compactions write on a step's behalf: the
    /// memtables not yet flushed, and the tables waiting in level 0.
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        Ok(vec![
            ("memtable_bytes".into(), self.db.write_buffer_size()),
            ("sealed_memtables".into(), self.keyspace.sealed_memtable_count() as u64),
            ("l0_tables".into(), self.keyspace.l0_table_count() as u64),
        ])
    }

    /// fjall's counters, read without a lock a client waits on.
    fn internals(&self) -> std::result::Result<Vec<Internal>, String> {
        let m = self.keyspace.metrics();
        Ok(vec![
            Internal { name: "memtable_bytes", value: self.db.write_buffer_size() as f64, cumulative: false },
            Internal {
                name: "sealed_memtables",
                value: self.keyspace.sealed_memtable_count() as f64,
                cumulative: false,
            },
            Internal { name: "l0_tables", value: self.keyspace.l0_table_count() as f64, cumulative: false },
            Internal { name: "tables", value: self.keyspace.table_count() as f64, cumulative: false },
            Internal { name: "running_flushes", value: self.db.outstanding_flushes() as f64, cumulative: false },
            Internal { name: "running_compactions", value: self.db.active_compactions() as f64, cumulative: false },
            Internal { name: "compactions_per_s", value: self.db.compactions_completed() as f64, cumulative: true },
            Internal { name: "journals", value: self.db.journal_count() as f64, cumulative: false },
            Internal { name: "cache_bytes", value: self.db.cache_size() as f64, cumulative: false },
            // Its metrics feature: blocks read from the OS (disk or page cache) and from its own cache.
            Internal { name: "block_reads_per_s", value: m.block_load_io_count() as f64, cumulative: true },
            Internal { name: "block_read_bytes_per_s", value: m.block_io() as f64, cumulative: true },
            Internal { name: "block_cache_hits_per_s", value: m.block_load_cached_count() as f64, cumulative: true },
            Internal { name: "filter_skips_per_s", value: m.io_skipped_by_filter() as f64, cumulative: true },
        ])
    }

    fn stats(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("fjall_version".to_string(), VERSION.to_string()),
            ("disk_space".into(), self.keyspace.disk_space().to_string()),
            ("tables".into(), self.keyspace.table_count().to_string()),
            ("l0_tables".into(), self.keyspace.l0_table_count().to_string()),
            ("sealed_memtables".into(), self.keyspace.sealed_memtable_count().to_string()),
            ("approximate_entries".into(), self.keyspace.approximate_len().to_string()),
            ("write_buffer_size".into(), self.db.write_buffer_size().to_string()),
            ("journal_count".into(), self.db.journal_count().to_string()),
            ("compactions_completed".into(), self.db.compactions_completed().to_string()),
            ("time_compacting_us".into(), self.db.time_compacting().as_micros().to_string()),
            ("cache_capacity".into(), self.db.cache_capacity().to_string()),
            ("cache_size".into(), self.db.cache_size().to_string()),
            ("block_loads_io".into(), self.keyspace.metrics().block_load_io_count().to_string()),
            ("block_loads_cached".into(), self.keyspace.metrics().block_load_cached_count().to_string()),
            ("block_io_bytes".into(), self.keyspace.metrics().block_io().to_string()),
        ];
        if let Ok(bytes) = self.db.journal_disk_space() {
            out.push(("journal_disk_space".into(), bytes.to_string()));
        }
        out
    }

    fn step_notes(&self, step: crate::plan::steps::StepKind) -> Vec<String> {
        let writes = step.changes_data();
        match (self.durability, writes) {
            (Durability::Manual, true) => vec![
                "not durable: fjall.sync_mode=manual keeps writes in fjall's journal buffer, so a process crash loses what it holds".into(),
            ],
            _ => Vec::new(),
        }
    }
}

struct FjallSession<'a> {
    engine: &'a FjallEngine,
    /// The last value read (reused: no allocation once it has grown).
    value: Vec<u8>,
}

impl FjallSession<'_> {
    fn ctx(&self, what: &str) -> String {
        format!("fjall: {what} failed in {}", self.engine.path().display())
    }
}

impl Session for FjallSession<'_> {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.engine.keyspace.insert(key, value).with_context(|| self.ctx("put"))?;
        self.engine.persist()
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.engine.keyspace.remove(key).with_context(|| self.ctx("delete"))?;
        self.engine.persist()
    }

    /// One fjall write batch: one journal record, applied atomically.
    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let e = self.engine;
        let mode = match e.durability {
            Durability::Synced(mode) => Some(mode),
            Durability::Buffer => Some(PersistMode::Buffer),
            Durability::Manual => None,
        };
        let mut batch = e.db.batch().durability(mode);
        for op in ops {
            match *op {
                BatchOp::Put(k, v) => batch.insert(&e.keyspace, k, v),
                BatchOp::Delete(k) => batch.remove(&e.keyspace, k),
            }
        }
        batch.commit().with_context(|| self.ctx("batch commit"))
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        match self.engine.keyspace.get(key).with_context(|| self.ctx("get"))? {
            Some(v) => {
                self.value.clear();
                self.value.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match self.engine.keyspace.get(key).with_context(|| self.ctx("get"))? {
            Some(v) => {
                out.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        let ks = &self.engine.keyspace;
        // A keyspace's own range reads at the newest sequence number, so a
        // batch committed while it runs can be seen in part; a snapshot's
        // range is one point in time (and costs the same: both take a
        // snapshot nonce).
        let snapshot = self.engine.db.snapshot();
        let entry = |g: ::fjall::Guard| g.into_inner().with_context(|| self.ctx("scan"));
        if reverse {
            let range: (Bound<&[u8]>, Bound<&[u8]>) = (Bound::Unbounded, Bound::Included(start));
            super::visit_entries(snapshot.range::<&[u8], _>(ks, range).rev().map(entry), max_entries, pair_kv, visit)
        } else {
            let range: (Bound<&[u8]>, Bound<&[u8]>) = (Bound::Included(start), Bound::Unbounded);
            super::visit_entries(snapshot.range::<&[u8], _>(ks, range).map(entry), max_entries, pair_kv, visit)
        }
    }
}

/// A key and value as fjall's iterators give them.
fn pair_kv(e: &::fjall::KvPair) -> (&[u8], &[u8]) {
    (e.0.as_ref(), e.1.as_ref())
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

    #[test]
    fn the_version_is_the_locked_crates() {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
        assert!(lock.contains(&format!("name = \"fjall\"\nversion = \"{VERSION}\"")), "Cargo.lock has another fjall");
    }

    #[test]
    fn opens_with_defaults_and_reports_itself() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert_eq!(e.version(), VERSION);
        assert_eq!(opt(&*e, "sync_mode"), "buffer");
        assert_eq!(opt(&*e, "cache_size"), (32u64 << 20).to_string());
        assert_eq!(opt(&*e, "manual_journal_persist"), "false");
        assert_eq!(opt(&*e, "keyspace.note"), "", "a new keyspace has the options given");
        let workers: usize = opt(&*e, "worker_threads").parse().unwrap();
        assert!((1..=4).contains(&workers), "{workers}");
        assert_eq!(e.background_threads().0, workers);
        e.flush().unwrap();
        assert!(e.write_debt().unwrap().iter().any(|(k, _)| k == "memtable_bytes"));
        assert!(e.internals().unwrap().iter().any(|i| i.name == "l0_tables"));
    }

    #[test]
    fn a_flush_makes_a_table_and_the_data_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let e = open_with(dir.path(), &[]).unwrap();
            let mut s = e.session().unwrap();
            load_even(&mut *s);
            e.flush().unwrap();
            assert!(conformance::stat(&*e, "tables").unwrap().parse::<u64>().unwrap() >= 1);
        }
        assert!((SPEC.existing_database.unwrap())(dir.path()).is_ok());
        let e = open_with(dir.path(), &[]).unwrap();
        assert!(opt(&*e, "keyspace.note").contains("those it was created with"));
        let mut s = e.session().unwrap();
        assert!(s.get(&key(100)).unwrap());
        assert_eq!(conformance::count(&mut *s), 100);
    }

    #[test]
    fn every_sync_mode_opens_and_writes() {
        for mode in SYNC_MODES {
            let dir = tempfile::tempdir().unwrap();
            let e = open_with(dir.path(), &[("sync_mode", mode), ("compression", "lz4")]).unwrap();
            assert_eq!(opt(&*e, "sync_mode"), *mode);
            let mut s = e.session().unwrap();
            s.put(&key(1), b"one").unwrap();
            let (k2, k3) = (key(2), key(3));
            s.write_batch(&[BatchOp::Put(&k2, b"two"), BatchOp::Put(&k3, b"three")]).unwrap();
            let mut out = Vec::new();
            assert!(s.get_value(&key(3), &mut out).unwrap() && out == b"three");
            let notes = e.step_notes(crate::plan::steps::StepKind::FillRandom);
            assert_eq!(notes.is_empty(), *mode != "manual", "{mode}: {notes:?}");
        }
    }

    #[test]
    fn options_are_validated_and_claimed() {
        let err = resolve_options(&SPEC, &[("sync_mode".into(), "sometimes".into())]).err().unwrap().to_string();
        assert!(err.contains("buffer|syncdata|sync|manual"), "{err}");
        let o = resolve_options(&SPEC, &[("max_journaling_size".into(), "8M".into())]).unwrap();
        assert!(check(&o).unwrap_err().to_string().contains("at least 64M"));
        let dir = tempfile::tempdir().unwrap();
        assert!(open_with(dir.path(), &[("max_journaling_size", "8M")]).is_err());
        let o = resolve_options(&SPEC, &[("max_memtable_size".into(), "1G".into())]).unwrap();
        let memory: u64 =
            claims(&o, 1).iter().filter(|c| c.resource == crate::engine::Resource::Memory).map(|c| c.bytes).sum();
        assert_eq!(memory, (32 << 20) + 5 * (1 << 30));
    }
}
