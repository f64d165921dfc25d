//! redb (crate `redb`): a copy-on-write B-tree in one file, written in Rust.
//!
//! One table of raw bytes, named "rumbench", in the file `data.redb`. redb
//! has one writer at a time: every put, delete and write batch is its own
//! write transaction, committed at once (concurrent writers queue on redb's
//! writer lock). Reads never block: a point read, a multi-get and a scan each
//! run in one read transaction begun per call, which sees every prior commit
//! and a batch whole or not at all.
//!
//! Durability (`durability`): redb's own default, `immediate`, syncs each
//! commit before it returns (fsync of the file; with two_phase_commit, two).
//! It is redb's only mode in which a commit survives a process crash:
//! `none` leaves a commit in this process until a later durable one, so a
//! crash of the process loses it (redb restores its last durable commit),
//! which each writing step's notes say. There is no middle mode like
//! RocksDB's sync=false, so redb's default costs a sync where others' do not.

use std::ops::Bound;
use std::path::PathBuf;

use ::redb::{
    Database, Durability, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition, WriteTransaction,
};
use anyhow::{Context, Result};

use super::{BatchOp, Claim, Engine, EngineOptions, EngineSpec, Internal, OpenArgs, OptKind, OptionSpec, Session};
use super::{TxnEnd, TxnOps};

/// The crate built in; a unit test holds it to Cargo.lock.
const VERSION: &str = "4.6.0";
/// The database file in the data dir.
const FILE: &str = "data.redb";
/// The table the benchmark's keys live in.
const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("rumbench");
/// The first bytes of a redb file (its header's magic number).
const MAGIC: &[u8] = &[b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];

const DURABILITIES: &[&str] = &["immediate", "none"];

fn build_info() -> Vec<(String, String)> {
    vec![
        (
            "build.library".into(),
            format!("redb {VERSION} (crate, pure Rust, with its cache_metrics feature), compiled into rumbench"),
        ),
        ("build.assertions".into(), if cfg!(debug_assertions) { "on (a debug build)" } else { "off" }.into()),
        ("build.opt_level".into(), crate::build_info::OPT_LEVEL.into()),
    ]
}

pub const SPEC: EngineSpec = EngineSpec {
    name: "redb",
    profile_symbols: &[("redb::", "libredb")],
    sizes_not_claimed: &[],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "redb (crate, pure Rust): copy-on-write B-tree in one file; one writer at a time, reads never block",
    options: &[
        OptionSpec {
            name: "durability",
            default: "immediate",
            kind: OptKind::Choice(DURABILITIES),
            help: "commit durability: immediate (redb's default: each commit synced, the only mode that survives a \
                   process crash), none (commits kept only until a later durable one: a process crash loses them)",
        },
        OptionSpec {
            name: "cache_size",
            default: "1G",
            kind: OptKind::Size,
            help: "page cache capacity (redb's default 1 GiB)",
        },
        OptionSpec {
            name: "two_phase_commit",
            default: "false",
            kind: OptKind::Bool,
            help: "commit in two phases (two syncs per durable commit), so recovery need not trust checksums",
        },
        OptionSpec {
            name: "quick_repair",
            default: "false",
            kind: OptKind::Bool,
            help: "save the allocator state at each commit, so that reopening after a crash is quick",
        },
    ],
    io_bound_options: &[],
    presets: &[],
    open,
    stores_data: true,
    existing_database: Some(|dir| super::file_starts_with(dir, FILE, MAGIC, "a redb file")),
    check: super::no_contradictions,
    build_info,
    transactions: |_| Some("serialized: one write transaction at a time (redb has a single writer)"),
    max_sessions: super::any_sessions,
    claims,
    crash_cause: super::no_crash_cause,
    size_limits: super::no_size_limits,
};

/// The page cache fills to its capacity (redb evicts beyond it).
fn claims(o: &EngineOptions, _sessions: usize) -> Vec<Claim> {
    vec![Claim::memory(o.u64("cache_size"), super::option_text("redb", o, "cache_size"))]
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    Ok(Box::new(RedbEngine::open(args)?))
}

pub struct RedbEngine {
    db: Database,
    path: PathBuf,
    durable: bool,
    two_phase: bool,
    quick_repair: bool,
    cache_size: u64,
}

impl RedbEngine {
    fn open(args: &OpenArgs) -> Result<Self> {
        let o = &args.options;
        let path = args.dir.clone();
        let file = path.join(FILE);
        let cache_size = o.u64("cache_size");
        let mut builder = Database::builder();
        builder.set_cache_size(usize::try_from(cache_size).context("redb: cache_size too large for this platform")?);
        let db = if args.create {
            builder.create(&file)
        } else {
            anyhow::ensure!(file.exists(), "redb: no database ({FILE}) in {}", path.display());
            builder.open(&file)
        }
        .with_context(|| format!("redb: cannot open {}", file.display()))?;
        let engine = RedbEngine {
            db,
            path,
            durable: o.str("durability") == "immediate",
            two_phase: o.bool("two_phase_commit"),
            quick_repair: o.bool("quick_repair"),
            cache_size,
        };
        // The table exists before any read opens it (a read of a missing table is an error).
        let w = engine.begin_write()?;
        w.open_table(TABLE).with_context(|| engine.ctx("create the table"))?;
        w.commit().with_context(|| engine.ctx("commit"))?;
        Ok(engine)
    }

    fn ctx(&self, what: &str) -> String {
        format!("redb: {what} failed in {}", self.path.display())
    }

    /// A write transaction with this engine's durability.
    fn begin_write(&self) -> Result<WriteTransaction> {
        let mut w = self.db.begin_write().with_context(|| self.ctx("begin write txn"))?;
        w.set_durability(if self.durable { Durability::Immediate } else { Durability::None })
            .with_context(|| self.ctx("set durability"))?;
        w.set_two_phase_commit(self.two_phase);
        w.set_quick_repair(self.quick_repair);
        Ok(w)
    }

    /// `apply` on the table in one write transaction, committed.
    fn write(
        &self,
        what: &str,
        apply: impl FnOnce(&mut ::redb::Table<'_, &'static [u8], &'static [u8]>) -> Result<()>,
    ) -> Result<()> {
        let w = self.begin_write()?;
        {
            let mut table = w.open_table(TABLE).with_context(|| self.ctx("open the table"))?;
            // On error the transaction is dropped, which aborts it: nothing is applied.
            apply(&mut table).with_context(|| self.ctx(what))?;
        }
        w.commit().with_context(|| self.ctx("commit"))
    }
}

impl Engine for RedbEngine {
    fn version(&self) -> String {
        VERSION.to_string()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        vec![
            ("durability".into(), if self.durable { "immediate" } else { "none" }.into()),
            ("cache_size".into(), self.cache_size.to_string()),
            ("two_phase_commit".into(), self.two_phase.to_string()),
            ("quick_repair".into(), self.quick_repair.to_string()),
            ("page_size".into(), "4096 (redb's fixed page size)".into()),
            ("table".into(), "rumbench: raw bytes, bytewise key order".into()),
            ("path".into(), self.path.join(FILE).display().to_string()),
        ]
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(RedbSession { engine: self, value: Vec::new() }))
    }

    /// A durable commit writes its pages in place (copy-on-write B-tree):
    /// nothing is left for later work. Non-durable commits (durability none)
    /// leave their pages in redb's cache until the next durable commit (a
    /// fillrandom of 100,000 measured a w-amp of 0.01 in its step): that
    /// debt is real and redb does not say how large it is.
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        match self.durable {
            true => Ok(Vec::new()),
            false => Err("redb.durability=none keeps the pages of its commits in its cache until a durable commit (a flush step makes one): redb does not say how many".into()),
        }
    }

    /// Syncs what non-durable commits left: an empty durable commit.
    fn flush(&self) -> Result<()> {
        let mut w = self.db.begin_write().with_context(|| self.ctx("begin write txn"))?;
        w.set_durability(Durability::Immediate).with_context(|| self.ctx("set durability"))?;
        w.commit().with_context(|| self.ctx("durable commit"))
    }

    /// redb's page cache counters (its cache_metrics feature), read without a transaction.
    fn internals(&self) -> std::result::Result<Vec<Internal>, String> {
        let c = self.db.cache_stats();
        Ok(vec![
            Internal { name: "cache_read_hits_per_s", value: c.read_hits() as f64, cumulative: true },
            Internal { name: "cache_read_misses_per_s", value: c.read_misses() as f64, cumulative: true },
            Internal { name: "cache_evictions_per_s", value: c.evictions() as f64, cumulative: true },
            Internal { name: "cache_bytes", value: c.used_bytes() as f64, cumulative: false },
        ])
    }

    fn stats(&self) -> Vec<(String, String)> {
        let c = self.db.cache_stats();
        let mut out = vec![
            ("redb_version".to_string(), VERSION.to_string()),
            ("cache_read_hits".into(), c.read_hits().to_string()),
            ("cache_read_misses".into(), c.read_misses().to_string()),
            ("cache_write_hits".into(), c.write_hits().to_string()),
            ("cache_write_misses".into(), c.write_misses().to_string()),
            ("cache_evictions".into(), c.evictions().to_string()),
            ("cache_used_bytes".into(), c.used_bytes().to_string()),
        ];
        if let Ok(meta) = std::fs::metadata(self.path.join(FILE)) {
            out.push(("file_size".into(), meta.len().to_string()));
        }
        // Storage figures need a write transaction (redb's DatabaseStats); it is aborted.
        match self.db.begin_write().map_err(anyhow::Error::from).and_then(|w| {
            let s = w.stats()?;
            let entries = w.open_table(TABLE)?.len()?;
            w.abort()?;
            Ok((s, entries))
        }) {
            Ok((s, entries)) => {
                out.push(("entries".into(), entries.to_string()));
                out.push(("tree_height".into(), s.tree_height().to_string()));
                out.push(("allocated_pages".into(), s.allocated_pages().to_string()));
                out.push(("leaf_pages".into(), s.leaf_pages().to_string()));
                out.push(("branch_pages".into(), s.branch_pages().to_string()));
                out.push(("stored_bytes".into(), s.stored_bytes().to_string()));
                out.push(("metadata_bytes".into(), s.metadata_bytes().to_string()));
                out.push(("fragmented_bytes".into(), s.fragmented_bytes().to_string()));
                out.push(("page_size".into(), s.page_size().to_string()));
            }
            Err(e) => out.push(("stats_error".into(), format!("{e:#}"))),
        }
        out
    }

    fn step_notes(&self, step: crate::plan::steps::StepKind) -> Vec<String> {
        match (step.changes_data(), self.durable) {
            (true, true) => vec![
                "redb syncs each commit (durability=immediate, its default: its only mode in which a commit survives a process crash), where other engines' defaults do not".into(),
            ],
            (true, false) => vec![
                "not durable: redb.durability=none keeps each commit only until a later durable one, so a process crash loses it".into(),
            ],
            (false, _) => Vec::new(),
        }
    }
}

struct RedbSession<'a> {
    engine: &'a RedbEngine,
    /// The last value read (reused: no allocation once it has grown).
    value: Vec<u8>,
}

/// Reads and writes inside one redb write transaction (the single writer).
struct RedbTxnOps<'t, 'w> {
    table: &'t mut ::redb::Table<'w, &'static [u8], &'static [u8]>,
}

impl TxnOps for RedbTxnOps<'_, '_> {
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match self.table.get(key).context("redb get in a write txn")? {
            Some(v) => {
                out.extend_from_slice(v.value());
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.table.insert(key, value).context("redb put in a write txn")?;
        Ok(())
    }
}

impl RedbSession<'_> {
    /// A point read in a read transaction of its own, its value given to `found`.
    fn read(&self, key: &[u8], found: impl FnOnce(&[u8])) -> Result<bool> {
        let e = self.engine;
        let r = e.db.begin_read().with_context(|| e.ctx("begin read txn"))?;
        let table = r.open_table(TABLE).with_context(|| e.ctx("open the table"))?;
        match table.get(key).with_context(|| e.ctx("get"))? {
            Some(v) => {
                found(v.value());
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl Session for RedbSession<'_> {
    /// A write transaction: writers queue for redb's one writer, so
    /// transactions never conflict (they wait).
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        let e = self.engine;
        Some((|| {
            let w = e.begin_write()?;
            {
                let mut table = w.open_table(TABLE).with_context(|| e.ctx("open the table"))?;
                // On error the transaction is dropped, which aborts it; a conflict
                // the body gives up on ends as one (redb's own never conflict).
                match body(&mut RedbTxnOps { table: &mut table }) {
                    Err(err) if super::is_conflict(&err) => return Ok(TxnEnd::Conflict),
                    other => other?,
                }
            }
            w.commit().with_context(|| e.ctx("commit"))?;
            Ok(TxnEnd::Committed)
        })())
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.engine.write("put", |t| t.insert(key, value).map(drop).map_err(Into::into))
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.engine.write("delete", |t| t.remove(key).map(drop).map_err(Into::into))
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        self.engine.write("batch", |t| {
            for op in ops {
                match *op {
                    BatchOp::Put(k, v) => drop(t.insert(k, v)?),
                    BatchOp::Delete(k) => drop(t.remove(k)?),
                }
            }
            Ok(())
        })
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        let mut value = std::mem::take(&mut self.value);
        let found = self.read(key, |v| {
            value.clear();
            value.extend_from_slice(v);
        });
        self.value = value;
        found
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        self.read(key, |v| out.extend_from_slice(v))
    }

    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        if key_size == 0 {
            return Ok(0);
        }
        let e = self.engine;
        let r = e.db.begin_read().with_context(|| e.ctx("begin read txn"))?;
        let table = r.open_table(TABLE).with_context(|| e.ctx("open the table"))?;
        let mut found = 0;
        for key in keys.chunks_exact(key_size) {
            if let Some(v) = table.get(key).with_context(|| e.ctx("multi_get"))? {
                self.value.clear();
                self.value.extend_from_slice(v.value());
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
        let r = e.db.begin_read().with_context(|| e.ctx("begin read txn"))?;
        let table = r.open_table(TABLE).with_context(|| e.ctx("open the table"))?;
        let range: (Bound<&[u8]>, Bound<&[u8]>) = if reverse {
            (Bound::Unbounded, Bound::Included(start))
        } else {
            (Bound::Included(start), Bound::Unbounded)
        };
        let iter = table.range::<&[u8]>(range).with_context(|| e.ctx("scan"))?;
        let entry =
            |item: std::result::Result<Entry<'static>, ::redb::StorageError>| item.with_context(|| e.ctx("scan"));
        match reverse {
            true => super::visit_entries(iter.rev().map(entry), max_entries, entry_kv, visit),
            false => super::visit_entries(iter.map(entry), max_entries, entry_kv, visit),
        }
    }
}

/// An entry of the table as redb's iterators give it.
type Entry<'a> = (::redb::AccessGuard<'a, &'static [u8]>, ::redb::AccessGuard<'a, &'static [u8]>);

fn entry_kv<'a>(e: &'a Entry<'_>) -> (&'a [u8], &'a [u8]) {
    (e.0.value(), e.1.value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::conformance::{self, key, load_even, opt};
    use crate::engine::resolve_options;
    use std::path::Path;

    fn open_with(dir: &Path, opts: &[(&str, &str)]) -> Result<Box<dyn Engine>> {
        conformance::open_with(&SPEC, dir, opts)
    }

    #[test]
    fn keeps_the_engine_contract() {
        conformance::run_all(|dir| open_with(dir, &[("durability", "none")]).unwrap());
    }

    #[test]
    fn the_version_is_the_locked_crates() {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
        assert!(lock.contains(&format!("name = \"redb\"\nversion = \"{VERSION}\"")), "Cargo.lock has another redb");
    }

    #[test]
    fn opens_with_defaults_and_reports_itself() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert_eq!(e.version(), VERSION);
        assert_eq!(opt(&*e, "durability"), "immediate");
        assert_eq!(opt(&*e, "cache_size"), (1u64 << 30).to_string());
        assert!(e.step_notes(crate::plan::steps::StepKind::FillRandom)[0].starts_with("redb syncs each commit"));
        assert!(e.step_notes(crate::plan::steps::StepKind::ReadRandom).is_empty());
        assert_eq!(e.write_debt(), Ok(Vec::new()), "a durable commit owes nothing");
        let mut s = e.session().unwrap();
        s.put(&key(1), b"one").unwrap();
        assert!(s.get(&key(1)).unwrap());
        // The cache counters move: they are measured, not zeros of a feature left out.
        let hits = e.internals().unwrap().iter().find(|i| i.name == "cache_read_hits_per_s").unwrap().value;
        let misses = e.internals().unwrap().iter().find(|i| i.name == "cache_read_misses_per_s").unwrap().value;
        assert!(hits + misses > 0.0, "no cache reads counted: {hits} {misses}");
        assert_eq!(conformance::stat(&*e, "entries").as_deref(), Some("1"));
        e.flush().unwrap();
    }

    #[test]
    fn a_non_durable_config_says_so_and_the_data_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let e = open_with(dir.path(), &[("durability", "none"), ("cache_size", "16M")]).unwrap();
            assert!(e.step_notes(crate::plan::steps::StepKind::FillRandom)[0].starts_with("not durable"));
            assert!(e.write_debt().unwrap_err().contains("until a durable commit"));
            assert!(e.step_notes(crate::plan::steps::StepKind::ReadRandom).is_empty());
            load_even(&mut *e.session().unwrap());
            // A durable commit makes what the non-durable ones left durable.
            e.flush().unwrap();
        }
        assert!((SPEC.existing_database.unwrap())(dir.path()).is_ok());
        let e = open_with(dir.path(), &[]).unwrap();
        let mut s = e.session().unwrap();
        assert_eq!(conformance::count(&mut *s), 100);
        let mut out = Vec::new();
        assert!(s.get_value(&key(100), &mut out).unwrap() && out == b"100");
    }

    #[test]
    fn transactions_commit_and_roll_back() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("durability", "none")]).unwrap();
        assert!(matches!(conformance::transactions_commit_and_roll_back(&*e), conformance::Verdict::Kept));
    }

    #[test]
    fn the_cache_is_claimed() {
        let o = resolve_options(&SPEC, &[("cache_size".into(), "3G".into())]).unwrap();
        assert_eq!(claims(&o, 4), vec![Claim::memory(3 << 30, "redb.cache_size=3G".into())]);
    }
}
