//! The history's database file: where it is, what makes a file one
//! (rumbench's mark and schema), and opening or creating it without ever
//! writing to a file that is not. What it records is `history_store`'s.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use rusqlite::{Connection, OpenFlags};

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
pub(crate) const SCHEMA: &str = "
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
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
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
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn pragma(path: &Path, name: &str) -> i32 {
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
