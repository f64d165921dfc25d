//! SQLite through `rusqlite` (bundled SQLite): a B-tree with a rollback
//! journal or a write-ahead log.
//!
//! Data lives in one table, `kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`, in
//! `<dir>/db.sqlite`, so the table itself is the primary-key B-tree and keys
//! compare bytewise (memcmp, as BLOBs do).
//!
//! SQLite connections are not Sync, so every session opens its own connection
//! and sets the pragmas on it (`cache_size` is therefore a per-connection page
//! cache: each client thread has one). The engine keeps one more connection,
//! behind a mutex, that creates the database, reads the effective pragma
//! values back, and serves stats and flush. Statements are prepared once per
//! connection and cached (`prepare_cached`), so no SQL is parsed per
//! operation. Concurrent writers wait for each other through the busy timeout
//! instead of failing with SQLITE_BUSY.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::{BatchOp, Engine, EngineOptions, EngineSpec, OpenArgs, OptKind, OptionSpec, Session, TxnEnd, TxnOps};

const JOURNAL_MODES: &[&str] = &["wal", "delete", "truncate", "memory", "off"];
const SYNCHRONOUS: &[&str] = &["off", "normal", "full", "extra"];

/// How SQLite is built into this binary: rusqlite's bundled sqlite3.c
/// (libsqlite3-sys), which defines NDEBUG itself unless SQLITE_DEBUG is set
/// (it is not).
fn build_info() -> Vec<(String, String)> {
    vec![
        ("build.library".into(), "bundled SQLite of rusqlite 0.37 (libsqlite3-sys 0.35), linked statically".into()),
        ("build.ndebug".into(), "true (sqlite3.c defines NDEBUG without SQLITE_DEBUG)".into()),
        ("build.opt_level".into(), crate::build_info::OPT_LEVEL.into()),
    ]
}

pub const SPEC: EngineSpec = EngineSpec {
    name: "sqlite",
    profile_symbols: &[("sqlite3", "libsqlite3")],
    sizes_not_claimed: &["mmap_size"],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "SQLite (via rusqlite, bundled): B-tree table kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID, one connection per client thread",
    options: &[
        OptionSpec {
            name: "journal_mode",
            default: "wal",
            kind: OptKind::Choice(JOURNAL_MODES),
            help: "PRAGMA journal_mode: wal (write-ahead log, readers run beside the writer) or a rollback journal mode",
        },
        OptionSpec {
            name: "synchronous",
            default: "normal",
            kind: OptKind::Choice(SYNCHRONOUS),
            help: "PRAGMA synchronous: when SQLite fsyncs (normal in WAL mode syncs at checkpoints only)",
        },
        OptionSpec {
            name: "cache_size",
            default: "64M",
            kind: OptKind::Size,
            help: "page cache size of each connection (PRAGMA cache_size = -KiB); every client thread has its own",
        },
        OptionSpec {
            name: "page_size",
            default: "4096",
            kind: OptKind::Int { min: 512, max: 65536 },
            help: "PRAGMA page_size for a new database (power of two, 512..65536); an existing file keeps its own",
        },
        OptionSpec {
            name: "mmap_size",
            default: "0",
            kind: OptKind::Size,
            help: "PRAGMA mmap_size: bytes of the file read through a memory map (0 = off; capped by SQLite)",
        },
        OptionSpec {
            name: "busy_timeout_ms",
            default: "10000",
            kind: OptKind::Int { min: 0, max: i32::MAX as i64 },
            help: "how long a connection waits for a lock held by another before failing with SQLITE_BUSY",
        },
    ],
    io_bound_options: &[("cache_size", "2M")],
    open,
    presets: &[],
    stores_data: true,
    existing_database: Some(|dir| super::file_starts_with(dir, "db.sqlite", b"SQLite format 3\0", "an SQLite database")),
    check,
    build_info,
    transactions: |_| Some("BEGIN IMMEDIATE: one writer at a time, others wait up to busy_timeout_ms"),
    max_sessions: super::any_sessions,
    claims,
    crash_cause: super::no_crash_cause,
    // SQLITE_MAX_LENGTH (1,000,000,000 bytes in the bundled build): above rumbench's 64 MiB.
    size_limits: super::no_size_limits,
};

/// Every connection (one per client session) has a page cache of its own.
/// mmap_size is not claimed: the file's pages it maps are the kernel's page
/// cache, which the kernel reclaims, and SQLite caps it (SQLITE_MAX_MMAP_SIZE).
fn claims(o: &EngineOptions, sessions: usize) -> Vec<super::Claim> {
    let cache = o.u64("cache_size");
    vec![super::Claim::memory(
        cache.saturating_mul(sessions as u64),
        format!("sqlite.cache_size={} per connection x {sessions} connections", super::human_size(cache)),
    )]
}

/// What the declared range cannot say: SQLite ignores a page_size that is
/// not a power of two (the database would silently keep 4096).
fn check(o: &EngineOptions) -> Result<()> {
    let page_size = o.u64("page_size");
    if !page_size.is_power_of_two() {
        bail!("sqlite.page_size={page_size} is not a power of two (valid: 512, 1024, ..., 65536)");
    }
    Ok(())
}

const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID";
const SQL_PUT: &str = "INSERT OR REPLACE INTO kv(k, v) VALUES (?1, ?2)";
const SQL_DELETE: &str = "DELETE FROM kv WHERE k = ?1";
const SQL_GET: &str = "SELECT v FROM kv WHERE k = ?1";
const SQL_SCAN: &str = "SELECT k, v FROM kv WHERE k >= ?1 ORDER BY k LIMIT ?2";
const SQL_SCAN_REV: &str = "SELECT k, v FROM kv WHERE k <= ?1 ORDER BY k DESC LIMIT ?2";
const SQL_BEGIN_READ: &str = "BEGIN DEFERRED";
const SQL_BEGIN_WRITE: &str = "BEGIN IMMEDIATE";
const SQL_COMMIT: &str = "COMMIT";

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    Ok(Box::new(SqliteEngine::open(args)?))
}

/// The per-connection settings, as asked for (validated).
#[derive(Debug, Clone)]
struct Settings {
    journal_mode: &'static str,
    synchronous: &'static str,
    cache_kib: u64,
    page_size: u64,
    mmap_size: u64,
    busy_timeout_ms: u64,
}

fn choice(list: &'static [&'static str], value: &str, name: &str) -> Result<&'static str> {
    match list.iter().find(|c| c.eq_ignore_ascii_case(value)) {
        Some(c) => Ok(c),
        None => bail!("sqlite: invalid {name} '{value}' (valid: {})", list.join("|")),
    }
}

impl Settings {
    fn from_options(args: &OpenArgs) -> Result<Self> {
        let o = &args.options;
        let page_size = o.u64("page_size");
        Ok(Settings {
            journal_mode: choice(JOURNAL_MODES, o.str("journal_mode"), "journal_mode")?,
            synchronous: choice(SYNCHRONOUS, o.str("synchronous"), "synchronous")?,
            cache_kib: o.u64("cache_size") / 1024,
            page_size,
            mmap_size: o.u64("mmap_size").min(i64::MAX as u64),
            busy_timeout_ms: o.u64("busy_timeout_ms").min(i32::MAX as u64),
        })
    }
}

/// Runs a pragma that sets a value, discarding whatever rows it returns.
/// `value` comes from validated options (a choice name or a number).
fn pragma_set(conn: &Connection, name: &str, value: &str) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(&format!("PRAGMA {name} = {value}"))?;
    let mut rows = stmt.query([])?;
    while rows.next()?.is_some() {}
    Ok(())
}

/// Reads a pragma's current value as text.
fn pragma_get(conn: &Connection, name: &str) -> rusqlite::Result<String> {
    conn.query_row(&format!("PRAGMA {name}"), [], |row| {
        Ok(match row.get_ref(0)? {
            ValueRef::Null => String::new(),
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(f) => f.to_string(),
            ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        })
    })
}

fn pragma_i64(conn: &Connection, name: &str) -> rusqlite::Result<i64> {
    conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
}

/// Sets the per-connection pragmas. `set_journal_mode` is false for session
/// connections in WAL mode: WAL is a property of the file, set once by the
/// engine's own connection, and re-setting it would take a write lock.
fn configure(conn: &Connection, s: &Settings, set_journal_mode: bool) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_millis(s.busy_timeout_ms))?;
    if set_journal_mode {
        pragma_set(conn, "journal_mode", s.journal_mode)?;
    }
    pragma_set(conn, "synchronous", s.synchronous)?;
    pragma_set(conn, "cache_size", &format!("-{}", s.cache_kib))?;
    pragma_set(conn, "mmap_size", &s.mmap_size.to_string())?;
    Ok(())
}

pub struct SqliteEngine {
    path: PathBuf,
    settings: Settings,
    /// The effective journal mode read back from SQLite (flush checkpoints when "wal").
    journal_mode: String,
    effective: Vec<(String, String)>,
    /// Creates the database and serves effective_options, stats and flush.
    admin: Mutex<Connection>,
    /// Opened with SQLITE_OPEN_READ_ONLY (the user's database, read-only steps).
    read_only: bool,
}

/// How every connection to the database is opened.
fn open_flags(create: bool, read_only: bool) -> rusqlite::OpenFlags {
    use rusqlite::OpenFlags as F;
    match (create, read_only) {
        (_, true) => (F::default() - F::SQLITE_OPEN_READ_WRITE - F::SQLITE_OPEN_CREATE) | F::SQLITE_OPEN_READ_ONLY,
        (true, false) => F::default(),
        (false, false) => F::default() - F::SQLITE_OPEN_CREATE,
    }
}

impl SqliteEngine {
    fn open(args: &OpenArgs) -> Result<Self> {
        let settings = Settings::from_options(args)?;
        let path = args.dir.join("db.sqlite");
        let ctx = |what: &str| format!("sqlite: {what} for {}", path.display());

        let conn = Connection::open_with_flags(&path, open_flags(args.create, args.read_only))
            .with_context(|| ctx("cannot open database"))?;
        conn.busy_timeout(Duration::from_millis(settings.busy_timeout_ms))
            .with_context(|| ctx("cannot set busy_timeout"))?;
        if args.read_only {
            // The file keeps its page size and journal mode; the connection's own settings apply.
            configure(&conn, &settings, false).with_context(|| ctx("cannot set pragmas"))?;
        } else {
            // page_size only takes effect before the file is initialised (and
            // before WAL mode), so it comes first.
            pragma_set(&conn, "page_size", &settings.page_size.to_string())
                .with_context(|| ctx("cannot set page_size"))?;
            configure(&conn, &settings, true).with_context(|| ctx("cannot set pragmas"))?;
            conn.execute(CREATE_TABLE, []).with_context(|| ctx("cannot create table kv"))?;
        }

        let effective = Self::read_effective(&conn, &path).with_context(|| ctx("cannot read pragmas back"))?;
        let journal_mode =
            effective.iter().find(|(k, _)| k == "journal_mode").map(|(_, v)| v.clone()).unwrap_or_default();
        Ok(SqliteEngine { path, settings, journal_mode, effective, admin: Mutex::new(conn), read_only: args.read_only })
    }

    /// The settings as SQLite reports them after they were set.
    fn read_effective(conn: &Connection, path: &Path) -> rusqlite::Result<Vec<(String, String)>> {
        let journal_mode = pragma_get(conn, "journal_mode")?.to_ascii_lowercase();
        let synchronous = match pragma_i64(conn, "synchronous")? {
            n @ 0..=3 => SYNCHRONOUS[n as usize].to_string(),
            n => n.to_string(),
        };
        let page_size = pragma_i64(conn, "page_size")?;
        let cache_size = pragma_i64(conn, "cache_size")?;
        let cache_bytes = if cache_size < 0 { -cache_size * 1024 } else { cache_size * page_size };
        Ok(vec![
            ("journal_mode".into(), journal_mode),
            ("synchronous".into(), synchronous),
            ("cache_size".into(), cache_size.to_string()),
            ("cache_size_bytes".into(), cache_bytes.to_string()),
            ("page_size".into(), page_size.to_string()),
            ("mmap_size".into(), pragma_get(conn, "mmap_size")?),
            ("busy_timeout_ms".into(), pragma_get(conn, "busy_timeout")?),
            ("wal_autocheckpoint".into(), pragma_get(conn, "wal_autocheckpoint")?),
            ("locking_mode".into(), pragma_get(conn, "locking_mode")?),
            ("auto_vacuum".into(), pragma_get(conn, "auto_vacuum")?),
            ("connections".into(), "one per session, plus one for stats/flush".into()),
            ("table".into(), CREATE_TABLE.trim_start_matches("CREATE TABLE IF NOT EXISTS ").into()),
            ("path".into(), path.display().to_string()),
        ])
    }

    fn admin(&self) -> MutexGuard<'_, Connection> {
        self.admin.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Engine for SqliteEngine {
    fn version(&self) -> String {
        rusqlite::version().to_string()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        self.effective.clone()
    }

    fn read_only(&self) -> bool {
        self.read_only
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        let conn = Connection::open_with_flags(&self.path, open_flags(false, self.read_only))
            .with_context(|| format!("sqlite: cannot open session connection for {}", self.path.display()))?;
        configure(&conn, &self.settings, self.journal_mode != "wal" && !self.read_only)
            .with_context(|| format!("sqlite: cannot set session pragmas for {}", self.path.display()))?;
        Ok(Box::new(SqliteSession { engine: self, conn, value: Vec::new() }))
    }

    /// With a rollback journal a commit writes the database in place;
    /// in WAL mode the frames not yet checkpointed are owed (read from the
    /// wal-index: engine/sqlite_wal.rs).
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        match self.journal_mode.as_str() {
            "wal" => match super::sqlite_wal::read(&self.path)? {
                Some(wal) => Ok(vec![("wal_pending_bytes".into(), wal.pending_bytes())]),
                None => Ok(Vec::new()),
            },
            _ => Ok(Vec::new()),
        }
    }

    /// The database file's size and, in WAL mode, the WAL's pages not yet
    /// checkpointed (what a checkpoint still has to copy).
    fn internals(&self) -> std::result::Result<Vec<super::Internal>, String> {
        let file = std::fs::metadata(&self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
        let mut out = vec![super::Internal { name: "db_file_bytes", value: file.len() as f64, cumulative: false }];
        if self.journal_mode == "wal" {
            if let Some(wal) = super::sqlite_wal::read(&self.path)? {
                out.push(super::Internal {
                    name: "wal_pending_bytes",
                    value: wal.pending_bytes() as f64,
                    cumulative: false,
                });
            }
        }
        Ok(out)
    }

    fn flush(&self) -> Result<()> {
        if self.journal_mode == "wal" {
            let admin = self.admin();
            // Returns (busy, wal frames, frames checkpointed); busy = 1 means a
            // reader or writer kept it from finishing, which is not an error.
            admin
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .with_context(|| format!("sqlite: wal_checkpoint failed for {}", self.path.display()))?;
        }
        Ok(())
    }

    fn stats(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        {
            let admin = self.admin();
            for name in ["page_count", "freelist_count", "page_size"] {
                match pragma_i64(&admin, name) {
                    Ok(v) => out.push((name.to_string(), v.to_string())),
                    Err(e) => out.push((format!("{name}_error"), e.to_string())),
                }
            }
        }
        let file_len = |suffix: &str| {
            let mut p = self.path.clone().into_os_string();
            p.push(suffix);
            std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
        };
        out.push(("db_file_bytes".into(), file_len("").to_string()));
        out.push(("wal_file_bytes".into(), file_len("-wal").to_string()));
        // SAFETY: sqlite3_memory_used only reads SQLite's global allocation counter.
        let mem = unsafe { rusqlite::ffi::sqlite3_memory_used() };
        out.push(("memory_used".into(), mem.to_string()));
        out
    }
}

struct SqliteSession<'a> {
    engine: &'a SqliteEngine,
    conn: Connection,
    /// The last value read (reused, so no allocation once it has grown).
    value: Vec<u8>,
}

/// Point read with a cached statement; copies the value into `buf`.
fn read_one(conn: &Connection, key: &[u8], buf: &mut Vec<u8>) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare_cached(SQL_GET)?;
    let mut rows = stmt.query([key])?;
    match rows.next()? {
        Some(row) => {
            buf.clear();
            if let ValueRef::Blob(v) | ValueRef::Text(v) = row.get_ref(0)? {
                buf.extend_from_slice(v);
            }
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Runs `body` inside a transaction begun with `begin`; commits on success,
/// rolls back on any error.
fn in_txn<T>(
    conn: &Connection,
    begin: &str,
    body: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(begin)?.execute([])?;
    let result = body(conn).and_then(|v| conn.prepare_cached(SQL_COMMIT)?.execute([]).map(|_| v));
    if result.is_err() && !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    result
}

fn scan_rows(
    conn: &Connection,
    start: &[u8],
    reverse: bool,
    max_entries: usize,
    visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
) -> rusqlite::Result<usize> {
    let limit = i64::try_from(max_entries).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(if reverse { SQL_SCAN_REV } else { SQL_SCAN })?;
    let mut rows = stmt.query((start, limit))?;
    let mut visited = 0;
    while let Some(row) = rows.next()? {
        let bytes = |i: usize| -> rusqlite::Result<&[u8]> {
            Ok(match row.get_ref(i)? {
                ValueRef::Blob(b) | ValueRef::Text(b) => b,
                _ => &[],
            })
        };
        visited += 1;
        if !visit(bytes(0)?, bytes(1)?) || visited >= max_entries {
            break;
        }
    }
    Ok(visited)
}

impl SqliteSession<'_> {
    fn ctx(&self, what: &str) -> String {
        format!("sqlite: {what} failed for {}", self.engine.path.display())
    }
}

/// Reads and writes inside one SQLite transaction (BEGIN IMMEDIATE).
struct SqliteTxnOps<'c> {
    conn: &'c Connection,
}

/// SQLITE_BUSY / SQLITE_LOCKED after the busy timeout: another writer held the lock.
fn busy_or(e: rusqlite::Error, what: &str) -> anyhow::Error {
    let busy =
        matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked));
    if busy {
        anyhow::Error::new(super::Conflict(format!("sqlite {what}: {e}")))
    } else {
        anyhow::Error::new(e).context(format!("sqlite {what}"))
    }
}

impl TxnOps for SqliteTxnOps<'_> {
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        read_one(self.conn, key, out).map_err(|e| busy_or(e, "read in a transaction"))
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached(SQL_PUT)
            .and_then(|mut s| s.execute((key, value)))
            .map(|_| ())
            .map_err(|e| busy_or(e, "write in a transaction"))
    }
}

impl Session for SqliteSession<'_> {
    /// BEGIN IMMEDIATE takes the write lock first (a second writer waits up
    /// to busy_timeout_ms, then the attempt is a conflict), as the issue's
    /// transactions ask of SQLite.
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        let conn = &self.conn;
        let mut run = || -> Result<()> {
            conn.prepare_cached(SQL_BEGIN_WRITE)
                .and_then(|mut s| s.execute([]))
                .map_err(|e| busy_or(e, "BEGIN IMMEDIATE"))?;
            body(&mut SqliteTxnOps { conn })?;
            conn.prepare_cached(SQL_COMMIT).and_then(|mut s| s.execute([])).map_err(|e| busy_or(e, "COMMIT"))?;
            Ok(())
        };
        let result = run();
        if result.is_err() && !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        Some(match result {
            Ok(()) => Ok(TxnEnd::Committed),
            Err(e) if super::is_conflict(&e) => Ok(TxnEnd::Conflict),
            Err(e) => Err(e),
        })
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let r = self.conn.prepare_cached(SQL_PUT).and_then(|mut s| s.execute((key, value)));
        r.with_context(|| self.ctx("put"))?;
        Ok(())
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        let r = self.conn.prepare_cached(SQL_DELETE).and_then(|mut s| s.execute([key]));
        r.with_context(|| self.ctx("delete"))?;
        Ok(())
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        in_txn(&self.conn, SQL_BEGIN_WRITE, |conn| {
            let mut put = conn.prepare_cached(SQL_PUT)?;
            let mut delete = conn.prepare_cached(SQL_DELETE)?;
            for op in ops {
                match *op {
                    BatchOp::Put(k, v) => put.execute((k, v))?,
                    BatchOp::Delete(k) => delete.execute([k])?,
                };
            }
            Ok(())
        })
        .with_context(|| self.ctx("write_batch"))
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        let r = read_one(&self.conn, key, &mut self.value);
        r.with_context(|| self.ctx("get"))
    }

    /// All keys of the batch are read in one read transaction (one snapshot).
    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        if key_size == 0 || keys.len() < key_size {
            return Ok(0);
        }
        let value = &mut self.value;
        let r = in_txn(&self.conn, SQL_BEGIN_READ, |conn| {
            let mut found = 0;
            for key in keys.chunks_exact(key_size) {
                found += read_one(conn, key, value)? as usize;
            }
            Ok(found)
        });
        r.with_context(|| self.ctx("multi_get"))
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
        let r = scan_rows(&self.conn, start, reverse, max_entries, visit);
        r.with_context(|| self.ctx("scan"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::conformance::{self, count, key, opt};
    use crate::engine::resolve_options;

    fn open_with(dir: &Path, opts: &[(&str, &str)]) -> Result<Box<dyn Engine>> {
        conformance::open_with(&SPEC, dir, opts)
    }

    #[test]
    fn keeps_the_engine_contract() {
        conformance::run_all(|dir| open_with(dir, &[("synchronous", "off")]).unwrap());
    }

    #[test]
    fn concurrent_writers_with_a_rollback_journal() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("journal_mode", "delete"), ("synchronous", "off")]).unwrap();
        conformance::concurrent_writers_from_two_threads(&*e);
    }

    fn stat(engine: &dyn Engine, name: &str) -> String {
        conformance::stat(engine, name).unwrap_or_default()
    }

    #[test]
    fn opens_with_defaults_and_reports_itself() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert!(e.version().starts_with("3."), "{}", e.version());
        assert!(dir.path().join("db.sqlite").exists());
        assert_eq!(opt(&*e, "journal_mode"), "wal");
        assert_eq!(opt(&*e, "synchronous"), "normal");
        assert_eq!(opt(&*e, "cache_size"), "-65536");
        assert_eq!(opt(&*e, "cache_size_bytes"), (64u64 << 20).to_string());
        assert_eq!(opt(&*e, "page_size"), "4096");
        assert_eq!(opt(&*e, "mmap_size"), "0");
        assert_eq!(opt(&*e, "busy_timeout_ms"), "10000");
        assert!(e.background_work_pending().unwrap().is_none());
        assert_eq!(stat(&*e, "page_size"), "4096");
        assert!(stat(&*e, "page_count").parse::<u64>().unwrap() >= 1);
        e.session().unwrap().put(&key(1), b"x").unwrap();
        e.flush().unwrap();
        assert_eq!(stat(&*e, "wal_file_bytes"), "0", "TRUNCATE checkpoint empties the WAL");
    }

    #[test]
    fn write_batch_is_visible_and_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("synchronous", "off")]).unwrap();
        // A trigger that makes one key fail, to break a batch part-way.
        Connection::open(dir.path().join("db.sqlite"))
            .unwrap()
            .execute_batch(
                "CREATE TRIGGER boom BEFORE INSERT ON kv WHEN NEW.k = x'ff' BEGIN SELECT RAISE(ABORT, 'boom'); END",
            )
            .unwrap();
        let mut s = e.session().unwrap();
        s.put(&key(5), b"five").unwrap();
        let (k1, k2, k5) = (key(1), key(2), key(5));
        s.write_batch(&[BatchOp::Put(&k1, b"a"), BatchOp::Put(&k2, b"b"), BatchOp::Delete(&k5)]).unwrap();
        assert!(s.get(&k1).unwrap() && s.get(&k2).unwrap() && !s.get(&k5).unwrap());
        s.write_batch(&[]).unwrap();

        let k3 = key(3);
        let err = s.write_batch(&[BatchOp::Put(&k3, b"c"), BatchOp::Delete(&k1), BatchOp::Put(&[0xff], b"x")]);
        let msg = format!("{:#}", err.expect_err("trigger must fail the batch"));
        assert!(msg.contains("sqlite") && msg.contains("db.sqlite") && msg.contains("boom"), "{msg}");
        assert!(!s.get(&k3).unwrap());
        assert!(s.get(&k1).unwrap());
        assert_eq!(count(&mut *s), 2);
        // The session is usable after the failed batch (no transaction left open).
        s.write_batch(&[BatchOp::Put(&k3, b"c")]).unwrap();
        assert!(e.session().unwrap().get(&k3).unwrap());
    }

    #[test]
    fn options_are_validated() {
        let err = resolve_options(&SPEC, &[("journal_mode".into(), "wal2".into())]).err().unwrap().to_string();
        assert!(err.contains("wal|delete|truncate|memory|off"), "{err}");
        let err = resolve_options(&SPEC, &[("synchronous".into(), "always".into())]).err().unwrap().to_string();
        assert!(err.contains("off|normal|full|extra"), "{err}");
        let err = resolve_options(&SPEC, &[("cache_size".into(), "big".into())]).err().unwrap().to_string();
        assert!(err.contains("sqlite.cache_size"), "{err}");
        let options = resolve_options(&SPEC, &[("page_size".into(), "5000".into())]).unwrap();
        let err = (SPEC.check)(&options).err().unwrap().to_string();
        assert!(err.contains("page_size") && err.contains("power of two"), "{err}");
    }

    #[test]
    fn effective_options_reflect_pragmas() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(
            dir.path(),
            &[
                ("journal_mode", "truncate"),
                ("synchronous", "full"),
                ("cache_size", "8M"),
                ("page_size", "8192"),
                ("mmap_size", "1M"),
                ("busy_timeout_ms", "500"),
            ],
        )
        .unwrap();
        assert_eq!(opt(&*e, "journal_mode"), "truncate");
        assert_eq!(opt(&*e, "synchronous"), "full");
        assert_eq!(opt(&*e, "cache_size"), "-8192");
        assert_eq!(opt(&*e, "page_size"), "8192");
        assert_eq!(opt(&*e, "mmap_size"), "1048576");
        assert_eq!(opt(&*e, "busy_timeout_ms"), "500");
        e.session().unwrap().put(&key(1), b"x").unwrap();
        e.flush().unwrap();
        drop(e);

        // Reopening an existing file: page_size is the file's, not the one asked for.
        let e = open_with(dir.path(), &[("page_size", "1024"), ("journal_mode", "memory")]).unwrap();
        assert_eq!(opt(&*e, "page_size"), "8192");
        assert_eq!(opt(&*e, "journal_mode"), "memory");
        assert!(e.session().unwrap().get(&key(1)).unwrap());
    }

    #[test]
    fn point_and_range_reads_use_the_primary_key() {
        let dir = tempfile::tempdir().unwrap();
        let _e = open_with(dir.path(), &[]).unwrap();
        let conn = Connection::open(dir.path().join("db.sqlite")).unwrap();
        for sql in [SQL_GET, SQL_DELETE, SQL_SCAN, SQL_SCAN_REV] {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let mut rows = stmt.raw_query(); // parameters left unbound: only the plan is wanted
            let mut plan = String::new();
            while let Some(row) = rows.next().unwrap() {
                plan.push_str(&row.get::<_, String>(3).unwrap());
                plan.push_str("; ");
            }
            assert!(plan.contains("USING PRIMARY KEY") && !plan.contains("TEMP B-TREE"), "{sql}: {plan}");
        }
    }
}
