//! MariaDB (InnoDB or MyRocks): mariadb-install-db, then mariadbd as our
//! child; Debian's programs, or a version's from [`super::mariadb_versions`]
//! (its base dir: its own bootstrap script and server, stopped with SIGTERM,
//! mysqld's normal shutdown, as its files hold no mariadb-admin).

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};

use super::{
    absolute, check_loopback_only, check_not_stopping_all, file_tail, is_root, kill_tree, last_nonblank, one_line,
    pick_free_port, prepare_data_dir, registry_add, run_cmd, setting_name, setting_value, signal, socket_dir,
    start_error, tail_of, wait_child, Backend, DirGuard, Init, RunningServer, ServerConfig, ServerKind, StartGuard,
    StopHow, DB_NAME, LOG_TAIL_LINES, START_TIMEOUT, STOP_TIMEOUT,
};

/// The storage engine of each MariaDB server's tables, as CREATE TABLE's
/// ENGINE = names it (and MyRocks' default_storage_engine).
pub fn storage_engine(kind: ServerKind) -> &'static str {
    match kind {
        ServerKind::MariadbMyrocks => "ROCKSDB",
        _ => "InnoDB",
    }
}

const SBIN: &[&str] = &["/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/// The programs rumbench runs, in the order it runs them.
const PROGRAMS: [&str; 3] = ["mariadb-install-db", "mariadbd", "mariadb-admin"];

/// Where Debian's mariadb-plugin-rocksdb puts MyRocks (mariadbd's default plugin dir).
const MYROCKS_PLUGIN: &str = "/usr/lib/mysql/plugin/ha_rocksdb.so";

/// A MariaDB program, as [`super::locate_server_program`] finds it; its bare
/// name when missing (refused before the run by [`check_installed`]).
fn program(name: &str) -> std::path::PathBuf {
    super::locate_server_program(name, SBIN).unwrap_or_else(|_| name.into())
}

/// Every program a `kind` server needs is here; for MyRocks with Debian's
/// programs, its plugin too.
pub(super) fn check_installed(kind: ServerKind) -> Result<()> {
    for p in PROGRAMS {
        super::locate_server_program(p, SBIN).map_err(|looked| super::not_installed(p, &looked))?;
    }
    if kind == ServerKind::MariadbMyrocks && super::server_bin_dir().is_none() && !Path::new(MYROCKS_PLUGIN).is_file() {
        return Err(super::not_installed(
            "ha_rocksdb.so",
            &format!("no {MYROCKS_PLUGIN}: package mariadb-plugin-rocksdb"),
        ));
    }
    Ok(())
}

/// Settings that only take effect when the data dir is created: passed to
/// mariadb-install-db too when the fragment has them.
const INSTALL_TIME: &[&str] =
    &["innodb_page_size", "innodb_data_file_path", "innodb_undo_tablespaces", "lower_case_table_names"];

/// Our mariadbd child.
pub(super) struct MariaProc {
    child: Child,
    /// Stopped with mariadb-admin (Debian's), or with SIGTERM (a version's files hold none).
    admin: bool,
}

/// The programs a server runs from: Debian's, or a version's base dir.
enum Programs {
    Debian,
    Version(super::mariadb_versions::Layout),
}

impl Programs {
    fn server(&self) -> Command {
        match self {
            Programs::Debian => Command::new(program("mariadbd")),
            Programs::Version(l) => {
                let mut c = Command::new(&l.server);
                c.env("LD_LIBRARY_PATH", l.library_path());
                c
            }
        }
    }
    fn install_db(&self) -> Command {
        match self {
            Programs::Debian => Command::new(program("mariadb-install-db")),
            Programs::Version(l) => {
                let mut c = Command::new(&l.install_db);
                c.env("LD_LIBRARY_PATH", l.library_path());
                c
            }
        }
    }
    /// Where the binaries came from, for the result.
    fn origin(&self) -> String {
        match self {
            Programs::Debian => format!("Debian package ({})", program("mariadbd").display()),
            Programs::Version(l) => l.origin(),
        }
    }
}

/// A connection as root (no password) over TCP to 127.0.0.1.
pub(super) fn connect(port: u16, db: Option<&str>, timeout: Duration) -> Result<Conn> {
    let opts = OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some("root"))
        .db_name(db)
        .prefer_socket(false)
        .tcp_connect_timeout(Some(timeout));
    Conn::new(opts).with_context(|| format!("cannot connect to mariadb at 127.0.0.1:{port}"))
}

pub(super) fn start(cfg: &ServerConfig, base: Option<&Path>, init: Init) -> Result<RunningServer> {
    let kind = cfg.kind;
    let programs = match base {
        None => Programs::Debian,
        Some(b) => Programs::Version(super::mariadb_versions::Layout::of(b)?),
    };
    let myrocks = kind == ServerKind::MariadbMyrocks;
    let dir = absolute(&cfg.data_dir)?;
    if init == Init::Fresh {
        prepare_data_dir(&dir)?;
    }
    let port = pick_free_port()?;
    let (sock_dir, own_sock_dir) = socket_dir(&dir, "mysqld.sock")?;
    let sock_guard = DirGuard(own_sock_dir);
    let socket = sock_dir.join("mysqld.sock");
    let log = dir.join("error.log");
    let cnf = dir.join("my.cnf");
    // Layout: <dir>/data is MariaDB's datadir (every subdirectory there is
    // a database), <dir>/tmp its private tmpdir (servers and bootstraps
    // running side by side must not share /tmp for temporary tables).
    let datadir = dir.join("data");
    let tmp = dir.join("tmp");

    if init == Init::Fresh {
        install_db(cfg, &programs, &dir, &datadir, &tmp)?;
    }

    // Settings we manage go on the command line (it overrides the file); the
    // file holds the user's fragment and, as comments, what we added.
    let mut managed = vec![
        format!("datadir={}", datadir.display()),
        format!("socket={}", socket.display()),
        format!("port={port}"),
        "bind-address=127.0.0.1".to_string(),
        format!("pid-file={}", dir.join("mariadbd.pid").display()),
        format!("log-error={}", log.display()),
    ];
    if is_root() {
        managed.push("user=root".to_string());
    }
    if let Programs::Version(l) = &programs {
        managed.push(format!("basedir={}", l.base.display()));
    }
    // On the command line too, unless the fragment sets its own: an option
    // file reads backslash escapes and '#' comments in values.
    let own_tmpdir = cfg.config_lines.iter().any(|l| setting_name(l).as_deref() == Some("tmpdir"));
    if !own_tmpdir {
        managed.push(format!("tmpdir={}", tmp.display()));
    }
    if myrocks {
        managed.push("plugin-load-add=ha_rocksdb.so".to_string());
        managed.push("default-storage-engine=ROCKSDB".to_string());
    }
    let mut text =
        format!("# my.cnf written by rumbench for {kind}\n# managed settings, given on the mariadbd command line:\n");
    for m in &managed {
        text.push_str(&format!("#   --{m}\n"));
    }
    // [mysqld] for a version's server: before 10.4.6 mysqld reads no [mariadbd] group.
    let group = if base.is_some() { "[mysqld]" } else { "[mariadbd]" };
    text.push_str(group);
    text.push_str("\n# ---- rumbench: config fragment from the suite (verbatim) ----\n");
    for l in &cfg.config_lines {
        text.push_str(l);
        text.push('\n');
    }
    if init == Init::Fresh {
        fs::write(&cnf, text).with_context(|| format!("cannot write {}", cnf.display()))?;
    }

    // Start mariadbd as our child, in its own process group (a terminal's
    // Ctrl-C reaches only rumbench, which then stops it in order).
    // This start's lines of the log (a restart appends to it).
    let log_start = fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let logf = fs::OpenOptions::new().create(true).append(true).open(&log)?;
    let mut cmd = programs.server();
    cmd.arg(format!("--defaults-file={}", cnf.display()))
        .args(managed.iter().map(|m| format!("--{m}")))
        .stdin(Stdio::null())
        .stdout(logf.try_clone()?)
        .stderr(logf)
        .current_dir("/")
        .process_group(0);
    let t0 = Instant::now();
    let child = cmd.spawn().context("cannot run mariadbd (run scripts/install-servers.sh)")?;
    let pid = child.id();
    let mut guard = StartGuard::new(registry_add(kind, Some(pid), &dir, StopHow::Signal), Some(child));
    check_not_stopping_all()?;
    let fail = |reason: String| {
        let tail = file_tail(&log, LOG_TAIL_LINES);
        let reason = meaningful_line(&tail).unwrap_or(reason);
        start_error(kind, "start", reason, &log, tail)
    };

    // Wait until it answers over TCP.
    let mut conn = loop {
        let child = guard.child.as_mut().expect("child");
        if let Some(st) = child.try_wait()? {
            return Err(fail(format!("mariadbd exited ({st})")));
        }
        match connect(port, None, Duration::from_secs(2)) {
            Ok(c) => break c,
            Err(e) if t0.elapsed() >= START_TIMEOUT => {
                return Err(fail(format!(
                    "not answering on 127.0.0.1:{port} after {} s: {e:#}",
                    START_TIMEOUT.as_secs()
                )));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    if init == Init::Fresh {
        conn.query_drop(format!("CREATE DATABASE IF NOT EXISTS {DB_NAME}"))
            .map_err(|e| fail(format!("CREATE DATABASE {DB_NAME}: {e}")))?;
    }
    let version: String =
        conn.query_first("SELECT version()").map_err(|e| fail(format!("SELECT version(): {e}")))?.unwrap_or_default();
    if myrocks {
        let support: Option<String> = conn
            .query_first("SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'ROCKSDB'")
            .map_err(|e| fail(format!("checking for ROCKSDB: {e}")))?;
        if support.as_deref() != Some("DEFAULT") {
            return Err(fail(format!("ROCKSDB is not the default engine (support: {support:?})")));
        }
    }
    drop(conn);
    check_loopback_only(kind, port)?;

    let provenance = startup_provenance(&programs, &version, &log, log_start);
    let (reg_id, child) = guard.disarm();
    Ok(RunningServer {
        kind,
        data_dir: dir,
        config_lines: cfg.config_lines.clone(),
        port,
        socket_path: socket,
        own_socket_dir: sock_guard.take(),
        log_path: log,
        config_path: cnf,
        pid,
        version,
        provenance,
        reg_id,
        backend: Backend::Mariadb(MariaProc { child: child.expect("child"), admin: base.is_none() }),
        stopped: false,
    })
}

/// What ran: `SELECT version()`, where the binaries came from, and the
/// warnings this start's log gave about settings a version knows but no
/// longer honours (deprecated, ignored, removed), so that none is lost
/// silently between versions.
fn startup_provenance(programs: &Programs, version: &str, log: &Path, from: u64) -> Vec<(String, String)> {
    let mut p =
        vec![("server_version".to_string(), version.to_string()), ("server.binaries".to_string(), programs.origin())];
    let bytes = fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes[(from as usize).min(bytes.len())..]).into_owned();
    let warnings = setting_warnings(&text);
    if !warnings.is_empty() {
        p.push(("server.setting_warnings".to_string(), warnings.join("; ")));
    }
    p
}

/// The `[Warning]` lines of a start's log about a setting it does not honour.
fn setting_warnings(log: &str) -> Vec<String> {
    const WORDS: [&str; 5] = ["deprecated", "ignored", "no effect", "removed", "obsolete"];
    log.lines()
        .filter_map(|l| l.split_once("[Warning]").map(|(_, rest)| rest.trim()))
        .filter(|w| {
            let low = w.to_ascii_lowercase();
            WORDS.iter().any(|x| low.contains(x))
        })
        .map(str::to_string)
        .collect()
}

/// mariadb-install-db: the system tables in `datadir`.
fn install_db(cfg: &ServerConfig, programs: &Programs, dir: &Path, datadir: &Path, tmp: &Path) -> Result<()> {
    let kind = cfg.kind;
    // System tables. mariadb-install-db is a shell script that word-splits
    // and re-expands its paths (`chown $user $dir`, `$args`): it is given
    // them through a symlink of a plain name in a private directory.
    let plain = PlainPath::new(dir)?;
    let mut cmd = programs.install_db();
    cmd.arg("--no-defaults");
    if is_root() {
        cmd.arg("--user=root");
    }
    cmd.arg(format!("--datadir={}", plain.path.join("data").display()));
    match programs {
        Programs::Debian => {
            cmd.args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
        }
        Programs::Version(l) => {
            // Each version's own bootstrap, given what it knows: root
            // without a password came with --auth-root-authentication-method
            // in 10.4 (before, it was the default), --skip-test-db in 10.5.
            let script = fs::read_to_string(&l.install_db).unwrap_or_default();
            for flag in ["--auth-root-authentication-method=normal", "--skip-test-db"] {
                if script.contains(flag.split('=').next().unwrap_or(flag).trim_start_matches('-')) {
                    cmd.arg(flag);
                }
            }
            // Its programs beside it, and no DNS lookup of this host (resolveip).
            cmd.arg(format!("--basedir={}", l.base.display())).args(["--force", "--skip-name-resolve"]);
        }
    }
    cmd.arg(format!("--tmpdir={}", plain.path.join("tmp").display())).current_dir("/");
    for l in &cfg.config_lines {
        if let (Some(n), Some(v)) = (setting_name(l), setting_value(l)) {
            if INSTALL_TIME.contains(&n.as_str()) {
                cmd.arg(format!("--{n}={v}"));
            }
        }
    }
    let install_log = dir.join("install-db.log");
    fs::create_dir_all(tmp)?;
    fs::create_dir_all(datadir)?;
    let out = run_cmd(cmd, Duration::from_secs(120));
    let out_lines = match &out {
        Ok(o) => o.lines(),
        Err(e) => vec![format!("{e:#}")],
    };
    drop(plain);
    let _ = fs::write(&install_log, out_lines.join("\n") + "\n");
    if !matches!(&out, Ok(o) if o.status.success()) {
        let reason = meaningful_line(&out_lines).unwrap_or_else(|| "mariadb-install-db failed".to_string());
        return Err(start_error(
            kind,
            "initialize the data dir",
            reason,
            &install_log,
            tail_of(&out_lines, LOG_TAIL_LINES),
        ));
    }

    Ok(())
}

/// A symlink of a plain name (`/tmp/rumbench-path-XXXXXX/d`) to a
/// directory whose own path a shell script could not take; removed on drop.
struct PlainPath {
    path: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl PlainPath {
    fn new(target: &Path) -> Result<PlainPath> {
        // /tmp itself, not $TMPDIR: that path could be anything too.
        let dir = tempfile::Builder::new()
            .prefix("rumbench-path-")
            .tempdir_in("/tmp")
            .context("cannot create a directory under /tmp")?;
        let path = dir.path().join("d");
        std::os::unix::fs::symlink(target, &path)
            .with_context(|| format!("cannot create symlink {}", path.display()))?;
        Ok(PlainPath { path, _dir: dir })
    }
}

impl MariaProc {
    /// `mariadb-admin shutdown` and wait for the child; then SIGTERM and
    /// SIGKILL of the tree.
    pub(super) fn stop(&mut self, kind: ServerKind, socket: &Path) -> Result<()> {
        let pid = self.child.id();
        if let Ok(Some(st)) = self.child.try_wait() {
            bail!("{kind} (pid {pid}) had already exited ({st})");
        }
        if !self.admin {
            // SIGTERM is mysqld's normal shutdown (what mariadb-admin shutdown asks for).
            signal(pid, libc::SIGTERM);
            if wait_child(&mut self.child, STOP_TIMEOUT).is_some() {
                return Ok(());
            }
            kill_tree(pid, libc::SIGKILL);
            if wait_child(&mut self.child, Duration::from_secs(10)).is_none() {
                bail!("{kind} (pid {pid}) could not be stopped");
            }
            bail!("{kind} was still running {} s after SIGTERM; it was killed", STOP_TIMEOUT.as_secs());
        }
        let mut cmd = Command::new(program("mariadb-admin"));
        cmd.arg("--no-defaults")
            .arg(format!("--socket={}", socket.display()))
            .args(["-uroot", "--connect-timeout=5", "shutdown"])
            .current_dir("/");
        let deadline = Instant::now() + STOP_TIMEOUT;
        let problem = match run_cmd(cmd, STOP_TIMEOUT) {
            Ok(o) if o.status.success() => {
                let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(5));
                if wait_child(&mut self.child, left).is_some() {
                    return Ok(());
                }
                format!("mariadbd still running {} s after mariadb-admin shutdown", STOP_TIMEOUT.as_secs())
            }
            Ok(o) => {
                format!("mariadb-admin shutdown failed: {}", one_line(&last_nonblank(&o.lines()).unwrap_or_default()))
            }
            Err(e) => format!("{e:#}"),
        };
        signal(pid, libc::SIGTERM);
        if wait_child(&mut self.child, Duration::from_secs(10)).is_none() {
            kill_tree(pid, libc::SIGKILL);
            if wait_child(&mut self.child, Duration::from_secs(10)).is_none() {
                bail!("{kind} (pid {pid}) could not be stopped: {problem}");
            }
        }
        Err(anyhow!("{kind} did not stop cleanly ({problem}); it was killed"))
    }

    /// Reap the child after someone else stopped it.
    pub(super) fn reap(&mut self) {
        if wait_child(&mut self.child, Duration::from_secs(5)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The most useful line of a MariaDB error log or install-db output: the last
/// `[ERROR]` line other than "Aborting", without the timestamp prefix.
pub(super) fn meaningful_line(lines: &[String]) -> Option<String> {
    let l = lines.iter().rev().find(|l| {
        let t = l.trim_end();
        (t.contains("[ERROR]") || t.starts_with("ERROR") || t.starts_with("FATAL ERROR")) && !t.ends_with("Aborting")
    })?;
    Some(match l.find("[ERROR]") {
        Some(p) => l[p + "[ERROR]".len()..].trim().to_string(),
        None => l.trim().to_string(),
    })
}

/// Selected SHOW GLOBAL STATUS (Handler_* row counters, bytes, and
/// Innodb_buffer_pool_*/data_*/os_log_*/log_*/pages_*/row_lock_* for InnoDB,
/// Rocksdb_* compaction/stall/bytes/flush/wal/memtable/rows fields for
/// MyRocks), for InnoDB the LOG section of SHOW ENGINE INNODB STATUS, and
/// the size of the benchmark's schema.
pub(super) fn stats(endpoint: &super::Endpoint) -> Result<Vec<(String, String)>> {
    let kind = endpoint.kind;
    let mut c = endpoint.connect_mysql()?;
    let status: Vec<(String, Option<String>)> = c.query("SHOW GLOBAL STATUS")?;
    let keep = |n: &str| -> bool {
        // Row counters: MariaDB 10.6+ has no Innodb_rows_*; Handler_* count
        // row operations for every engine.
        if ["Bytes_received", "Bytes_sent", "Questions", "Uptime", "Rows_read"].contains(&n)
            || ["Handler_write", "Handler_update", "Handler_delete", "Handler_commit"].contains(&n)
            || n.starts_with("Handler_read_")
        {
            return true;
        }
        match kind {
            ServerKind::MariadbMyrocks => {
                let l = n.to_ascii_lowercase();
                l.starts_with("rocksdb_")
                    && [
                        "compact",
                        "stall",
                        "bytes",
                        "flush",
                        "wal_",
                        "memtable",
                        "rows_",
                        "block_cache_hit",
                        "block_cache_miss",
                        "get_hit",
                        "number_keys",
                    ]
                    .iter()
                    .any(|s| l.contains(s))
            }
            _ => {
                n.starts_with("Innodb_buffer_pool_")
                    || n.starts_with("Innodb_rows_")
                    || n.starts_with("Innodb_row_lock_")
                    || n.starts_with("Innodb_data_")
                    || n.starts_with("Innodb_os_log_")
                    || n.starts_with("Innodb_log_")
                    || n.starts_with("Innodb_pages_")
                    || n == "Innodb_checkpoint_age"
                    || n == "Innodb_lsn_current"
                    || n == "Innodb_lsn_last_checkpoint"
            }
        }
    };
    let mut out: Vec<(String, String)> =
        status.into_iter().filter(|(n, _)| keep(n)).map(|(n, v)| (n, v.unwrap_or_default())).collect();
    if kind == ServerKind::MariadbInnodb {
        let row: Option<(String, String, String)> = c.query_first("SHOW ENGINE INNODB STATUS")?;
        if let Some((_, _, text)) = row {
            out.extend(innodb_log_section(&text));
        }
    }
    let size: Option<u64> = c.exec_first(
        "SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS UNSIGNED) FROM information_schema.TABLES WHERE table_schema = ?",
        (endpoint.database.as_str(),),
    )?;
    out.push(("database_size_bytes".to_string(), size.unwrap_or(0).to_string()));
    Ok(out)
}

/// "Log sequence number", "Log flushed up to", "Pages flushed up to", "Last
/// checkpoint at" from SHOW ENGINE INNODB STATUS, as innodb_status.<snake_case>.
fn innodb_log_section(text: &str) -> Vec<(String, String)> {
    const KEYS: [&str; 4] = ["Log sequence number", "Log flushed up to", "Pages flushed up to", "Last checkpoint at"];
    let mut out = Vec::new();
    for line in text.lines() {
        for k in KEYS {
            if let Some(v) = line.strip_prefix(k) {
                let name = format!("innodb_status.{}", k.to_ascii_lowercase().replace(' ', "_"));
                out.push((name, v.trim().to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_error() {
        let log: Vec<String> = [
            "2026-11-22  0:02:48 0 [Note] InnoDB: Loading buffer pool(s)",
            "2026-11-22  0:02:48 0 [ERROR] mariadbd: unknown variable 'nonsense_option=1'",
            "2026-11-22  0:02:48 0 [ERROR] Aborting",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(meaningful_line(&log).unwrap(), "mariadbd: unknown variable 'nonsense_option=1'");
    }

    #[test]
    fn setting_warnings_are_kept() {
        let log = "2026-12-02 12:55:26 0 [Warning] 'innodb-log-files-in-group' was removed. It does nothing now and exists only for compatibility with old my.cnf files.\n2026-12-02 12:55:26 0 [Note] InnoDB: Started\n2026-12-02 12:55:27 0 [Warning] Could not open mysql.plugin table.\n";
        assert_eq!(setting_warnings(log), vec!["'innodb-log-files-in-group' was removed. It does nothing now and exists only for compatibility with old my.cnf files.".to_string()]);
    }

    #[test]
    fn log_section() {
        let t = "---\nLOG\n---\nLog sequence number 44760\nLog flushed up to   44760\nPages flushed up to 44404\nLast checkpoint at  44404\n";
        let v = innodb_log_section(t);
        assert_eq!(v[0], ("innodb_status.log_sequence_number".to_string(), "44760".to_string()));
        assert_eq!(v[3], ("innodb_status.last_checkpoint_at".to_string(), "44404".to_string()));
    }
}
