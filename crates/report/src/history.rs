//! The local results history: an SQLite index over run directories. The
//! directories stay the primary artifact; `rebuild` recreates the index from
//! them, and every figure shown from the history is read from result.json.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use crate::measure::device_baseline::StoredBaseline;
use crate::result::{self as json, RunResult, Status};

pub const FILE_NAME: &str = "history.sqlite";

/// $XDG_DATA_HOME/rumbench/history.sqlite, else ~/.local/share/rumbench/history.sqlite.
pub fn default_path() -> Result<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|x| !x.is_empty()) {
        return Ok(PathBuf::from(x).join("rumbench").join(FILE_NAME));
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(h) => Ok(PathBuf::from(h).join(".local/share/rumbench").join(FILE_NAME)),
        None => bail!("neither XDG_DATA_HOME nor HOME is set: give the history database with --history PATH"),
    }
}

pub fn resolve_path(explicit: Option<&Path>) -> Result<PathBuf> {
    match explicit {
        Some(p) => Ok(p.to_path_buf()),
        None => default_path(),
    }
}

/// rumbench's mark on its history database (`PRAGMA application_id`): "RUMB"
/// in ASCII. A file without it is someone else's and is never written to.
pub const APPLICATION_ID: i32 = i32::from_be_bytes(*b"RUMB");

/// The schema version (`PRAGMA user_version`) this rumbench reads and writes.
pub const SCHEMA_VERSION: i32 = 1;

/// Histories written before the mark (application_id 0) have exactly this
/// schema, which is how they are recognised: a new schema needs a new
/// SCHEMA_VERSION, and this text kept for them.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dir TEXT NOT NULL UNIQUE,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    rumbench_version TEXT NOT NULL,
    git_commit TEXT,
    suite TEXT,
    hostname TEXT,
    command_line TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_configs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    engine TEXT NOT NULL,
    engine_version TEXT,
    options TEXT NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS run_steps (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    config_seq INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    step TEXT NOT NULL,
    status TEXT NOT NULL,
    ops_s REAL,
    p99_us REAL,
    PRIMARY KEY (run_id, config_seq, seq)
);
CREATE INDEX IF NOT EXISTS run_configs_engine ON run_configs(engine);
CREATE INDEX IF NOT EXISTS run_steps_step ON run_steps(step);
";

/// Tables added after SCHEMA, without a new SCHEMA_VERSION: they only add,
/// so an older rumbench still reads and writes the history (it ignores
/// them). Created when a history is opened for recording.
const ADDED_TABLES: &str = "
CREATE TABLE IF NOT EXISTS device_baselines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    device_key TEXT NOT NULL,
    measured_at TEXT NOT NULL,
    dir TEXT NOT NULL,
    rumbench_version TEXT NOT NULL,
    fio TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS device_baselines_key ON device_baselines(device_key, measured_at);
";

pub struct History {
    conn: Connection,
    path: PathBuf,
}

fn status_text(s: Status) -> &'static str {
    match s {
        Status::Running => "running",
        Status::Completed => "completed",
        Status::Interrupted => "interrupted",
        Status::Failed => "failed",
        Status::NotRun => "not run",
    }
}

/// A run directory's canonical form (the history's key).
pub fn canonical_dir(dir: &Path) -> Result<PathBuf> {
    let dir = if dir.file_name().is_some_and(|f| f == "result.json") { dir.parent().unwrap_or(dir) } else { dir };
    std::fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))
}

/// One run as listed.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: i64,
    pub dir: String,
    pub started_at: String,
    pub status: String,
    pub rumbench_version: String,
    /// (config, engine, engine version)
    pub configs: Vec<(String, String, Option<String>)>,
    pub steps: Vec<String>,
    /// (config, ops/s) of the step asked for with --step.
    pub step_rates: Vec<(String, Option<f64>)>,
    pub dir_exists: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub engine: Option<String>,
    /// Prefix of the engine version or of the rumbench version.
    pub version: Option<String>,
    pub step: Option<String>,
    pub config: Option<String>,
    /// Dates: YYYY-MM-DD, optionally with THH:MM[:SS]; `until` includes that day.
    pub since: Option<String>,
    pub until: Option<String>,
}

/// Accept YYYY-MM-DD[THH:MM[:SS]] (a space also separates the time).
pub fn check_date(s: &str) -> Result<String> {
    let s = s.trim().replacen(' ', "T", 1);
    let ok = chrono::NaiveDate::parse_from_str(&s, "%Y-%m-%d").is_ok()
        || chrono::NaiveDateTime::parse_from_str(&s, "%Y-%m-%dT%H:%M").is_ok()
        || chrono::NaiveDateTime::parse_from_str(&s, "%Y-%m-%dT%H:%M:%S").is_ok();
    if !ok {
        bail!("invalid date '{s}' (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS])");
    }
    Ok(s)
}

/// A file rumbench may use as its history.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    /// Carries APPLICATION_ID.
    Marked,
    /// Written by a rumbench from before the mark: application_id 0 and exactly SCHEMA.
    Unmarked,
}

fn not_a_history(path: &Path, what: &str) -> anyhow::Error {
    anyhow!("{} is not a rumbench history ({what}); it was left untouched: give another --history PATH", path.display())
}

/// Open `path` read-only, never creating it: only a regular file, and not an
/// empty one (an empty file is no one's history, but it is someone's file).
fn connect_read_only(path: &Path) -> Result<Connection> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("no history database at {} (runs are recorded by `rumbench run`; `rumbench history rebuild DIR` creates one)", path.display())
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read the history database {}", path.display())),
    };
    if !meta.is_file() {
        return Err(not_a_history(path, "not a regular file"));
    }
    if meta.len() == 0 {
        return Err(not_a_history(path, "an empty file"));
    }
    // SQLite reads a short file of any bytes as an empty database: look at the header first.
    let mut header = [0u8; 16];
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read the history database {}", path.display()))?;
    match std::io::Read::read_exact(&mut file, &mut header) {
        Ok(()) if &header == b"SQLite format 3\0" => {}
        Ok(()) => return Err(not_a_history(path, "not an SQLite database")),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            return Err(not_a_history(path, "not an SQLite database"))
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read the history database {}", path.display())),
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .with_context(|| format!("cannot open the history database {}", path.display()))?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(conn)
}

/// Whether the database `conn` has open is a rumbench history; reads only.
fn judge(conn: &Connection, path: &Path) -> Result<Kind> {
    let pragma = |name: &str| -> Result<i32> {
        conn.pragma_query_value(None, name, |r| r.get(0)).map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => not_a_history(path, "not an SQLite database"),
            _ => anyhow!(e).context(format!("cannot read the history database {}", path.display())),
        })
    };
    match pragma("application_id")? {
        APPLICATION_ID => {
            let version = pragma("user_version")?;
            if version > SCHEMA_VERSION {
                bail!("{} is the history of a newer rumbench (schema {version}, this one knows {SCHEMA_VERSION}): use that rumbench, or give another --history PATH", path.display());
            }
            Ok(Kind::Marked)
        }
        0 => match schema_difference(conn)? {
            None => Ok(Kind::Unmarked),
            Some(what) => Err(not_a_history(path, &what)),
        },
        other => Err(not_a_history(
            path,
            &format!("an SQLite database of another application, application_id {other:#010x}"),
        )),
    }
}

/// How the database's schema differs from SCHEMA (said as what the file is), if it does.
fn schema_difference(conn: &Connection) -> Result<Option<String>> {
    /// sqlite_master's type, name, table name and SQL.
    type SchemaObject = (String, String, String, Option<String>);
    fn objects(conn: &Connection) -> rusqlite::Result<BTreeSet<SchemaObject>> {
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect()
    }
    let reference = Connection::open_in_memory()?;
    reference.execute_batch(SCHEMA)?;
    let found = objects(conn)?;
    if found == objects(&reference)? {
        return Ok(None);
    }
    let tables: Vec<&str> =
        found.iter().filter(|o| o.0 == "table" && !o.1.starts_with("sqlite_")).map(|o| o.1.as_str()).collect();
    Ok(Some(if tables.is_empty() {
        "an SQLite database without rumbench's tables".into()
    } else {
        format!("an SQLite database whose tables are not rumbench's: {}", tables.join(", "))
    }))
}

/// Create a marked, empty history at `path` in one step: it is made under a
/// temporary name beside `path` and moved there only if `path` is still free,
/// so no file is replaced and no half-made history is ever left at `path`.
/// A history path that is a symbolic link to nothing: rumbench creates no
/// file through a link (it would land wherever the link points), so it says
/// so instead of "no history database" (which told `history rebuild`, the
/// command that creates one, to run itself).
fn refuse_dangling_link(path: &Path) -> Result<()> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && !path.exists() {
        let target = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".into());
        bail!(
            "the history {} is a symbolic link to {target}, which does not exist: rumbench creates no file through a link; give --history the path it should have, or remove the link",
            path.display()
        );
    }
    Ok(())
}

fn create(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::Builder::new()
        .prefix(".rumbench-history-")
        .suffix(".tmp")
        // As any new file (the umask applies), not tempfile's owner-only default.
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create the history database {}", path.display()))?;
    Connection::open(tmp.path())?.execute_batch(&format!(
        "BEGIN; PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; {SCHEMA} {ADDED_TABLES} COMMIT;"
    ))?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        // Made meanwhile (another rumbench recording): judged as any existing file.
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e.error).with_context(|| format!("cannot create the history database {}", path.display())),
    }
}

/// Fails, creating nothing, when recording into `path` would be refused
/// (for `run`, before it starts). A missing `path` is fine: it will be created.
pub fn check_recordable(path: &Path) -> Result<()> {
    refuse_dangling_link(path)?;
    if !path.exists() {
        return Ok(());
    }
    judge(&connect_read_only(path)?, path).map(drop)
}

impl History {
    /// For recording (`run`, `history rebuild`): a missing history is created;
    /// an existing file is judged read-only first and written only if it is a
    /// rumbench history (one from before the mark is marked then).
    pub fn open(path: &Path) -> Result<History> {
        refuse_dangling_link(path)?;
        if !path.exists() {
            create(path)?;
        }
        let kind = judge(&connect_read_only(path)?, path)?;
        let mut conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .with_context(|| format!("cannot open the history database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch("PRAGMA foreign_keys = ON;")?;
        if kind == Kind::Unmarked {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            // Judged again under the write lock: it may have changed since.
            if judge(&tx, path)? == Kind::Unmarked {
                tx.execute_batch(&format!(
                    "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
                ))?;
            }
            tx.commit()?;
        }
        conn.execute_batch(ADDED_TABLES)?;
        Ok(History { conn, path: path.to_path_buf() })
    }

    /// For lookups and listings: read-only, so reading never creates or changes a file.
    pub fn open_read_only(path: &Path) -> Result<History> {
        let conn = connect_read_only(path)?;
        judge(&conn, path)?;
        Ok(History { conn, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Record a run (or update it when its directory is already known: the
    /// id stays). Returns the id.
    pub fn record(&mut self, dir: &Path, run: &RunResult) -> Result<i64> {
        let dir = canonical_dir(dir)?;
        let dir_text = dir.to_string_lossy().to_string();
        let hostname = run
            .system
            .as_ref()
            .and_then(|s| s.get("hostname"))
            .and_then(|h| h.get("value").or(Some(h)))
            .and_then(|v| v.as_str())
            .map(String::from);
        let tx = self.conn.transaction()?;
        let existing: Option<i64> =
            tx.query_row("SELECT id FROM runs WHERE dir = ?1", [&dir_text], |r| r.get(0)).optional()?;
        let now = chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false);
        let command_line = serde_json::to_string(&run.command_line)?;
        let status = status_text(run.status);
        let id = match existing {
            Some(id) => {
                tx.execute(
                    "UPDATE runs SET started_at=?2, finished_at=?3, status=?4, rumbench_version=?5, git_commit=?6, suite=?7, \
                     hostname=?8, command_line=?9, recorded_at=?10 WHERE id=?1",
                    params![id, run.started_at, run.finished_at, status, run.rumbench_version, run.git_commit, run.suite, hostname, command_line, now],
                )?;
                tx.execute("DELETE FROM run_configs WHERE run_id = ?1", [id])?;
                tx.execute("DELETE FROM run_steps WHERE run_id = ?1", [id])?;
                id
            }
            None => {
                tx.execute(
                    "INSERT INTO runs (dir, started_at, finished_at, status, rumbench_version, git_commit, suite, hostname, command_line, recorded_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![dir_text, run.started_at, run.finished_at, status, run.rumbench_version, run.git_commit, run.suite, hostname, command_line, now],
                )?;
                tx.last_insert_rowid()
            }
        };
        for (ci, c) in run.configs.iter().enumerate() {
            tx.execute(
                "INSERT INTO run_configs (run_id, seq, name, engine, engine_version, options, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, ci as i64, c.name, c.engine, c.engine_version, serde_json::to_string(&c.options)?, status_text(c.status)],
            )?;
            for (si, s) in c.steps.iter().enumerate() {
                let p99 = s.main_op().filter(|o| o.latency.count > 0).map(|o| o.latency.p99_us);
                tx.execute(
                    "INSERT INTO run_steps (run_id, config_seq, seq, step, status, ops_s, p99_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![id, ci as i64, si as i64, s.name, status_text(s.status), s.ops_s, p99],
                )?;
            }
        }
        tx.commit()?;
        Ok(id)
    }

    /// Store a measured device baseline (every measurement is kept).
    pub fn store_device_baseline(&mut self, b: &StoredBaseline) -> Result<()> {
        self.conn.execute(
            "INSERT INTO device_baselines (device_key, measured_at, dir, rumbench_version, fio) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![b.device_key, b.measured_at, b.dir.to_string_lossy(), env!("CARGO_PKG_VERSION"), serde_json::to_string(&b.fio)?],
        )?;
        Ok(())
    }

    /// The latest baseline measured on `device_key` (None in a history
    /// from before the device table).
    pub fn latest_device_baseline(&self, device_key: &str) -> Result<Option<StoredBaseline>> {
        let has_table: bool = self.conn.query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'device_baselines'",
            [],
            |r| r.get(0),
        )?;
        if !has_table {
            return Ok(None);
        }
        let row: Option<(String, String, String)> = self
            .conn
            .query_row(
                "SELECT measured_at, dir, fio FROM device_baselines WHERE device_key = ?1 ORDER BY measured_at DESC, id DESC LIMIT 1",
                [device_key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((measured_at, dir, fio)) = row else { return Ok(None) };
        let fio = serde_json::from_str(&fio)
            .with_context(|| format!("the device baseline of {device_key} in {} is unreadable", self.path.display()))?;
        Ok(Some(StoredBaseline { device_key: device_key.to_string(), measured_at, dir: PathBuf::from(dir), fio }))
    }

    /// The directory of run `id`.
    pub fn dir_of(&self, id: i64) -> Result<PathBuf> {
        let dir: Option<String> =
            self.conn.query_row("SELECT dir FROM runs WHERE id = ?1", [id], |r| r.get(0)).optional()?;
        match dir {
            Some(d) => Ok(PathBuf::from(d)),
            None => bail!("no run #{id} in the history {}", self.path.display()),
        }
    }

    /// Runs matching the filter, oldest first.
    pub fn list(&self, f: &Filter) -> Result<Vec<Entry>> {
        let mut sql =
            String::from("SELECT r.id, r.dir, r.started_at, r.status, r.rumbench_version FROM runs r WHERE 1=1");
        let mut args: Vec<String> = Vec::new();
        fn arg(sql: &mut String, args: &mut Vec<String>, clause: &str, v: String) {
            args.push(v);
            sql.push_str(&clause.replace('?', &format!("?{}", args.len())));
        }
        if let Some(e) = &f.engine {
            arg(
                &mut sql,
                &mut args,
                " AND EXISTS (SELECT 1 FROM run_configs c WHERE c.run_id = r.id AND c.engine = ?)",
                e.clone(),
            );
        }
        if let Some(c) = &f.config {
            arg(
                &mut sql,
                &mut args,
                " AND EXISTS (SELECT 1 FROM run_configs c WHERE c.run_id = r.id AND c.name = ?)",
                c.clone(),
            );
        }
        if let Some(v) = &f.version {
            let pat = format!("{}%", v.replace('%', "\\%").replace('_', "\\_"));
            args.push(pat);
            let n = args.len();
            sql.push_str(&format!(
                " AND (r.rumbench_version LIKE ?{n} ESCAPE '\\' OR EXISTS (SELECT 1 FROM run_configs c WHERE c.run_id = r.id AND c.engine_version LIKE ?{n} ESCAPE '\\'))"
            ));
        }
        if let Some(s) = &f.step {
            arg(
                &mut sql,
                &mut args,
                " AND EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = r.id AND s.step = ?)",
                s.clone(),
            );
        }
        if let Some(d) = &f.since {
            arg(&mut sql, &mut args, " AND r.started_at >= ?", check_date(d)?);
        }
        if let Some(d) = &f.until {
            let d = check_date(d)?;
            args.push(d);
            let n = args.len();
            sql.push_str(&format!(" AND substr(r.started_at, 1, length(?{n})) <= ?{n}"));
        }
        sql.push_str(" ORDER BY r.started_at, r.id");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok(Entry {
                id: r.get(0)?,
                dir: r.get(1)?,
                started_at: r.get(2)?,
                status: r.get(3)?,
                rumbench_version: r.get(4)?,
                configs: Vec::new(),
                steps: Vec::new(),
                step_rates: Vec::new(),
                dir_exists: false,
            })
        })?;
        let mut out: Vec<Entry> = rows.collect::<rusqlite::Result<_>>()?;
        for e in &mut out {
            let mut c = self
                .conn
                .prepare("SELECT name, engine, engine_version FROM run_configs WHERE run_id = ?1 ORDER BY seq")?;
            e.configs =
                c.query_map([e.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
            let mut s = self.conn.prepare("SELECT step FROM run_steps WHERE run_id = ?1 AND config_seq = (SELECT MIN(config_seq) FROM run_steps WHERE run_id = ?1) ORDER BY seq")?;
            e.steps = s.query_map([e.id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            if let Some(step) = &f.step {
                let mut q = self.conn.prepare(
                    "SELECT c.name, s.ops_s FROM run_steps s JOIN run_configs c ON c.run_id = s.run_id AND c.seq = s.config_seq \
                     WHERE s.run_id = ?1 AND s.step = ?2 ORDER BY s.config_seq, s.seq",
                )?;
                e.step_rates = q
                    .query_map(params![e.id, step], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
            }
            e.dir_exists = Path::new(&e.dir).join("result.json").is_file();
        }
        Ok(out)
    }

    /// Index every result.json under `roots` (searched recursively); runs
    /// already known keep their ids; entries whose directory no longer has a
    /// result.json are removed. Returns (recorded, removed, skipped files).
    pub fn rebuild(&mut self, roots: &[PathBuf]) -> Result<RebuildReport> {
        let mut found = Vec::new();
        for root in roots {
            if !root.exists() {
                bail!("{} does not exist", root.display());
            }
            find_results(root, 0, &mut found);
        }
        found.sort();
        found.dedup();
        // Oldest first, so new ids follow the order the runs were made.
        let mut runs: Vec<(PathBuf, RunResult)> = Vec::new();
        let mut report = RebuildReport::default();
        for path in found {
            match json::load(&path) {
                Ok(r) => runs.push((path.parent().unwrap_or(Path::new(".")).to_path_buf(), r)),
                Err(e) => report.skipped.push(format!("{}: {e:#}", path.display())),
            }
        }
        runs.sort_by(|a, b| a.1.started_at.cmp(&b.1.started_at).then(a.0.cmp(&b.0)));
        for (dir, run) in &runs {
            self.record(dir, run)?;
            report.recorded += 1;
        }
        let gone: Vec<(i64, String)> = {
            let mut stmt = self.conn.prepare("SELECT id, dir FROM runs")?;
            let all: Vec<(i64, String)> =
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
            all.into_iter().filter(|(_, d)| !Path::new(d).join("result.json").is_file()).collect()
        };
        for (id, _) in &gone {
            self.conn.execute("DELETE FROM runs WHERE id = ?1", [id])?;
        }
        report.removed = gone.len();
        Ok(report)
    }

    pub fn count(&self) -> Result<i64> {
        Ok(self.conn.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))?)
    }
}

/// The runs of one series, oldest first: one machine (host name and CPU
/// model), engine, config, step and step settings, so that a change in it is
/// never a change of machine or settings.
#[derive(Debug, Clone)]
pub struct Series {
    pub machine: String,
    pub engine: String,
    pub config: String,
    pub step: String,
    /// The step's settings ("threads=1 num=1000000 ..."), as the step recorded them.
    pub settings: String,
    /// The summary metric's key (ops_s, p99_us, ...).
    pub metric: &'static str,
    pub points: Vec<Point>,
}

/// One run's figure in a series, with what may explain a change.
#[derive(Debug, Clone)]
pub struct Point {
    pub id: i64,
    pub started_at: String,
    pub dir: String,
    pub value: f64,
    /// (what, value): rumbench's version, commit and build, the engine's
    /// version and build, the config's options, the machine's details.
    pub context: Vec<(String, String)>,
}

/// The machine's details whose change is worth naming (the host name and
/// CPU model separate series instead).
const MACHINE_DETAILS: &[&str] = &[
    "kernel_release",
    "logical_cpus",
    "online_cpus",
    "mem_total_bytes",
    "swap_total_bytes",
    "clocksource",
    "governor",
    "turbo",
    "transparent_hugepages",
];

fn system_text(run: &RunResult, key: &str) -> Option<String> {
    let v = run.system.as_ref()?.get(key)?;
    let v = v.get("value").unwrap_or(v);
    match v {
        serde_json::Value::Object(_) => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn machine_of(run: &RunResult) -> String {
    let host = system_text(run, "hostname").unwrap_or_else(|| "unknown host".into());
    let cpu = system_text(run, "cpu_model").unwrap_or_else(|| "unknown CPU".into());
    format!("{host} ({cpu})")
}

fn context_of(run: &RunResult, c: &json::ConfigResult) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![("rumbench version".into(), run.rumbench_version.clone())];
    let mut add = |what: String, value: Option<&String>| {
        if let Some(v) = value {
            out.push((what, v.clone()));
        }
    };
    add("rumbench commit".into(), run.git_commit.as_ref());
    run.build.iter().for_each(|(k, v)| add(format!("rumbench build {k}"), Some(v)));
    add("engine version".into(), c.engine_version.as_ref());
    c.provenance.iter().filter(|(k, _)| k != "version").for_each(|(k, v)| add(format!("engine {k}"), Some(v)));
    add("allocator".into(), c.allocator_in_use.as_ref());
    c.options.iter().for_each(|(k, v)| add(format!("option {k}"), Some(v)));
    for key in MACHINE_DETAILS {
        add(format!("machine {key}"), system_text(run, key).as_ref());
    }
    out
}

/// What differs between two runs' contexts: "what a -> b", in `after`'s order.
pub fn differences(before: &[(String, String)], after: &[(String, String)]) -> Vec<String> {
    let find = |ctx: &[(String, String)], what: &str| ctx.iter().find(|(k, _)| k == what).map(|(_, v)| v.clone());
    let mut whats: Vec<&String> = after.iter().map(|(k, _)| k).collect();
    whats.extend(before.iter().map(|(k, _)| k).filter(|k| !after.iter().any(|(a, _)| a == *k)));
    whats
        .into_iter()
        .filter_map(|what| {
            let (a, b) = (find(before, what), find(after, what));
            (a != b).then(|| format!("{what} {} -> {}", a.as_deref().unwrap_or("-"), b.as_deref().unwrap_or("-")))
        })
        .collect()
}

impl History {
    /// The series of each of `metrics` (summary metric keys) over the runs
    /// matching `f`: every completed step with a figure, read from the runs'
    /// result.json. Also returns the runs that could not be read, with why.
    pub fn series(&self, f: &Filter, metrics: &[&'static str]) -> Result<(Vec<Series>, Vec<String>)> {
        use crate::summary::{metric_index, parameter_texts, step_values};
        let mut out: Vec<Series> = Vec::new();
        let mut skipped = Vec::new();
        for e in self.list(f)? {
            let run = match json::load(&Path::new(&e.dir).join("result.json")) {
                Ok(r) => r,
                Err(err) => {
                    skipped.push(format!("#{}: {err:#}", e.id));
                    continue;
                }
            };
            let machine = machine_of(&run);
            for c in &run.configs {
                if f.engine.as_ref().is_some_and(|x| x != &c.engine) || f.config.as_ref().is_some_and(|x| x != &c.name)
                {
                    continue;
                }
                let context = context_of(&run, c);
                for (si, s) in c.steps.iter().enumerate() {
                    if s.status != Status::Completed || f.step.as_ref().is_some_and(|x| x != &s.name) {
                        continue;
                    }
                    let values = step_values(s, si.checked_sub(1).map(|p| &c.steps[p]));
                    let settings = parameter_texts(s).join(" ");
                    for &metric in metrics {
                        let Some(value) = metric_index(metric).and_then(|i| values[i]).filter(|v| v.is_finite()) else {
                            continue;
                        };
                        let point = Point {
                            id: e.id,
                            started_at: e.started_at.clone(),
                            dir: e.dir.clone(),
                            value,
                            context: context.clone(),
                        };
                        let same = |x: &&mut Series| {
                            x.metric == metric
                                && x.machine == machine
                                && x.engine == c.engine
                                && x.config == c.name
                                && x.step == s.name
                                && x.settings == settings
                        };
                        match out.iter_mut().find(same) {
                            Some(series) => series.points.push(point),
                            None => out.push(Series {
                                machine: machine.clone(),
                                engine: c.engine.clone(),
                                config: c.name.clone(),
                                step: s.name.clone(),
                                settings: settings.clone(),
                                metric,
                                points: vec![point],
                            }),
                        }
                    }
                }
            }
        }
        // A run's repeats (--repeat) are one point of its series: their median.
        for series in &mut out {
            let mut merged: Vec<Point> = Vec::new();
            let mut values: Vec<Vec<f64>> = Vec::new();
            for p in series.points.drain(..) {
                match merged.iter().position(|m| m.id == p.id) {
                    Some(i) => values[i].push(p.value),
                    None => {
                        values.push(vec![p.value]);
                        merged.push(p);
                    }
                }
            }
            for (m, v) in merged.iter_mut().zip(&values) {
                m.value = crate::stats::median(v).unwrap_or(m.value);
            }
            series.points = merged;
        }
        Ok((out, skipped))
    }
}

/// The change points of every series, as text: for each change the runs
/// around it, the medians of the segments either side and what differed
/// between the two runs. Returns the text and the number of changes.
pub fn render_changes(series: &[Series], o: &crate::changes::Options) -> (String, usize) {
    use crate::changes::{change_points, median};
    use crate::table::num;
    let mut text = String::new();
    let mut found = 0;
    let mut short = 0;
    let runs: BTreeSet<i64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.id)).collect();
    let when = |p: &Point| p.started_at.replacen('T', " ", 1).chars().take(16).collect::<String>();
    for s in series {
        if s.points.len() < 2 * o.min_runs {
            short += 1;
            continue;
        }
        let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
        let changes = change_points(&values, o);
        if changes.is_empty() {
            continue;
        }
        found += changes.len();
        let unit = crate::summary::METRICS.iter().find(|m| m.key == s.metric).map(|m| m.unit).unwrap_or("");
        text.push_str(&format!(
            "{} {} {}: config {}, machine {}, {} runs (#{} .. #{})\n  settings: {}\n",
            s.engine,
            s.step,
            s.metric,
            s.config,
            s.machine,
            s.points.len(),
            s.points[0].id,
            s.points[s.points.len() - 1].id,
            if s.settings.is_empty() { "-" } else { &s.settings }
        ));
        for (i, c) in changes.iter().enumerate() {
            let start = if i == 0 { 0 } else { changes[i - 1].index };
            let end = changes.get(i + 1).map_or(values.len(), |n| n.index);
            let (before, after) = (median(&values[start..c.index]), median(&values[c.index..end]));
            let (a, b) = (&s.points[c.index - 1], &s.points[c.index]);
            let ratio = if before != 0.0 { format!("x{:.2}", after / before) } else { "from 0".into() };
            text.push_str(&format!(
                "  change at #{}: median {} -> {} {unit} ({ratio}, {} runs before, {} after, p={:.3})\n",
                b.id,
                num(before),
                num(after),
                c.index - start,
                end - c.index,
                c.p_value
            ));
            text.push_str(&format!(
                "    before: #{} {} {}\n    after:  #{} {} {}\n",
                a.id,
                when(a),
                a.dir,
                b.id,
                when(b),
                b.dir
            ));
            let differed = differences(&a.context, &b.context);
            if differed.is_empty() {
                text.push_str(
                    "    differed: nothing recorded (same rumbench, engine version and build, options and machine)\n",
                );
            } else {
                text.push_str(&format!("    differed: {}\n", differed.join("; ")));
            }
        }
    }
    let searched = series.len() - short;
    let mut last = if found == 0 {
        format!("no change points in {searched} series ({} runs)", runs.len())
    } else {
        format!("{found} change point{} in {searched} series ({} runs)", if found == 1 { "" } else { "s" }, runs.len())
    };
    if short > 0 {
        last.push_str(&format!("; {short} series with fewer than {} runs not searched", 2 * o.min_runs));
    }
    text.push_str(&last);
    text.push('\n');
    (text, found)
}

#[derive(Debug, Default)]
pub struct RebuildReport {
    pub recorded: usize,
    pub removed: usize,
    pub skipped: Vec<String>,
}

/// result.json files under `dir` (not inside engines' data dirs: a run's `db`).
fn find_results(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        if dir.file_name().is_some_and(|f| f == "result.json") {
            out.push(dir.to_path_buf());
        }
        return;
    }
    let candidate = dir.join("result.json");
    let is_run = candidate.is_file();
    if is_run {
        out.push(candidate);
    }
    if depth >= 6 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut subdirs: Vec<PathBuf> =
        rd.filter_map(|e| e.ok()).filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()).collect();
    subdirs.sort();
    for sub in subdirs {
        if sub.file_name().is_some_and(|f| f == "db") && is_run {
            continue;
        }
        find_results(&sub, depth + 1, out);
    }
}

/// Render a listing as a text table.
pub fn render_list(entries: &[Entry], step: Option<&str>) -> String {
    let mut header = vec!["id", "started", "status", "configs", "steps"];
    let rate_header = step.map(|s| format!("{s} ops/s"));
    if let Some(h) = &rate_header {
        header.push(h);
    }
    header.push("directory");
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            let mut r = vec![
                format!("#{}", e.id),
                e.started_at.replacen('T', " ", 1).chars().take(16).collect(),
                e.status.clone(),
                e.configs
                    .iter()
                    .map(|(n, eng, v)| {
                        if n == eng {
                            format!("{n} {}", v.as_deref().unwrap_or("?"))
                        } else {
                            format!("{n} ({eng} {})", v.as_deref().unwrap_or("?"))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                e.steps.join(","),
            ];
            if step.is_some() {
                r.push(
                    e.step_rates
                        .iter()
                        .map(|(c, v)| format!("{c} {}", v.map(crate::table::num).unwrap_or_else(|| "-".into())))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
            }
            r.push(if e.dir_exists { e.dir.clone() } else { format!("{} (missing)", e.dir) });
            r
        })
        .collect();
    crate::table::render_table(&header, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pragma(path: &Path, name: &str) -> i32 {
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .pragma_query_value(None, name, |r| r.get(0))
            .unwrap()
    }

    fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into(), std::fs::read(&p).unwrap_or_default()))
            .collect();
        v.sort();
        v
    }

    /// A link to nothing is said to be one (not "no history: run history rebuild").
    #[test]
    fn a_history_path_that_is_a_dangling_link_is_refused_as_one() {
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("history.sqlite");
        std::os::unix::fs::symlink(tmp.path().join("gone/history.sqlite"), &link).unwrap();
        for e in [History::open(&link).err().unwrap(), check_recordable(&link).unwrap_err()] {
            let e = e.to_string();
            assert!(
                e.contains("is a symbolic link to")
                    && e.contains("which does not exist")
                    && !e.contains("history rebuild"),
                "{e}"
            );
        }
        assert!(!tmp.path().join("gone").exists(), "nothing created through the link");
    }

    #[test]
    fn a_new_history_is_created_marked_with_nothing_left_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a/b/history.sqlite");
        let h = History::open(&path).unwrap();
        assert_eq!(h.count().unwrap(), 0);
        drop(h);
        assert_eq!(pragma(&path, "application_id"), APPLICATION_ID);
        assert_eq!(pragma(&path, "user_version"), SCHEMA_VERSION);
        assert_eq!(
            files_in(&tmp.path().join("a/b")).into_iter().map(|f| f.0).collect::<Vec<_>>(),
            ["history.sqlite"],
            "no temporary file left"
        );
        History::open(&path).unwrap();
        History::open_read_only(&path).unwrap();
        check_recordable(&path).unwrap();
    }

    #[test]
    fn device_baselines_are_stored_and_the_latest_of_a_device_found_also_in_an_older_history() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("old.sqlite");
        Connection::open(&path).unwrap().execute_batch(SCHEMA).unwrap();
        assert_eq!(
            History::open_read_only(&path).unwrap().latest_device_baseline("k").unwrap(),
            None,
            "no table yet: none"
        );
        let mut h = History::open(&path).unwrap();
        let fio: crate::measure::fio::FioBaseline =
            crate::measure::fio::parse(include_str!("../../../tests/fixtures/fio-3.33-device.json"), 1 << 28, 2)
                .unwrap();
        let b = |key: &str, at: &str| StoredBaseline {
            device_key: key.into(),
            measured_at: at.into(),
            dir: "/d".into(),
            fio: fio.clone(),
        };
        h.store_device_baseline(&b("k", "2026-11-20T10:00:00+01:00")).unwrap();
        h.store_device_baseline(&b("k", "2026-11-24T10:00:00+01:00")).unwrap();
        h.store_device_baseline(&b("other", "2026-11-25T10:00:00+01:00")).unwrap();
        drop(h);
        let h = History::open_read_only(&path).unwrap();
        assert_eq!(h.latest_device_baseline("k").unwrap(), Some(b("k", "2026-11-24T10:00:00+01:00")));
        assert_eq!(h.latest_device_baseline("none").unwrap(), None);
        assert_eq!(pragma(&path, "user_version"), SCHEMA_VERSION, "an added table: the schema version stays");
    }

    #[test]
    fn a_missing_history_is_created_only_by_writing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("absent/history.sqlite");
        let err = History::open_read_only(&path).err().unwrap().to_string();
        assert!(err.starts_with("no history database at"), "{err}");
        check_recordable(&path).unwrap();
        assert!(!tmp.path().join("absent").exists());
    }

    #[test]
    fn a_history_from_before_the_mark_is_read_as_is_and_marked_when_written() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("old.sqlite");
        Connection::open(&path).unwrap().execute_batch(SCHEMA).unwrap();
        let before = std::fs::read(&path).unwrap();
        History::open_read_only(&path).unwrap();
        check_recordable(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), before);
        History::open(&path).unwrap();
        assert_eq!(pragma(&path, "application_id"), APPLICATION_ID);
        assert_eq!(pragma(&path, "user_version"), SCHEMA_VERSION);
    }

    /// Every way to open it fails saying why, and nothing in its directory changes.
    fn assert_refused(dir: &Path, path: &Path, why: &str) {
        let before = files_in(dir);
        let errors = [History::open(path).err(), History::open_read_only(path).err(), check_recordable(path).err()];
        for e in errors {
            let e = format!("{:#}", e.expect("refused"));
            assert!(e.contains(why), "{}: {e}", path.display());
        }
        assert_eq!(files_in(dir), before, "{} changed", path.display());
    }

    #[test]
    fn any_other_file_is_refused_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let db = |name: &str, sql: &str| {
            let dir = tmp.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            let path = dir.join("file");
            Connection::open(&path).unwrap().execute_batch(sql).unwrap();
            (dir, path)
        };
        let not_ours = "is not a rumbench history (";
        let (dir, path) = db("extra-table", &format!("{SCHEMA} CREATE TABLE notes (body TEXT);"));
        assert_refused(&dir, &path, "whose tables are not rumbench's: notes, run_configs, run_steps, runs");
        let (dir, path) = db("missing-column", &SCHEMA.replace("    hostname TEXT,\n", ""));
        assert_refused(&dir, &path, not_ours);
        let (dir, path) = db("extra-index", &format!("{SCHEMA} CREATE INDEX runs_suite ON runs(suite);"));
        assert_refused(&dir, &path, not_ours);
        let (dir, path) = db("no-tables", "PRAGMA user_version = 3;");
        assert_refused(&dir, &path, "an SQLite database without rumbench's tables");
        let (dir, path) = db("other-application", &format!("{SCHEMA} PRAGMA application_id = 7;"));
        assert_refused(&dir, &path, "of another application, application_id 0x00000007");
        let (dir, path) = db(
            "newer",
            &format!(
                "{SCHEMA} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {};",
                SCHEMA_VERSION + 1
            ),
        );
        assert_refused(&dir, &path, "is the history of a newer rumbench (schema 2");

        for (name, bytes, why) in [
            ("tiny", &b"x"[..], "(not an SQLite database)"),
            ("text", &b"hello\n".repeat(300)[..], "(not an SQLite database)"),
            ("empty", &b""[..], "(an empty file)"),
        ] {
            let dir = tmp.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("file"), bytes).unwrap();
            assert_refused(&dir, &dir.join("file"), why);
        }
        let dir = tmp.path().join("a-directory");
        std::fs::create_dir_all(dir.join("file")).unwrap();
        assert_refused(&dir, &dir.join("file"), "(not a regular file)");
    }
}
