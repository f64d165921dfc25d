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
mod leftover;
pub mod liveness;
pub mod pg_versions;
pub mod pgwire;
pub mod wire;

pub use endpoint::Endpoint;
pub use leftover::stop_leftover_servers;

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

mod mariadb;
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

    /// [`RunningServer::start`] with the server binaries in `bin_dir`
    /// (postgres only: a version from [`pg_versions`]); None: Debian's.
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
        match cfg.kind {
            ServerKind::Postgres => postgres::start(cfg, bin_dir, init),
            ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks if bin_dir.is_some() => {
                bail!("{}: only postgres can run other binaries than Debian's", cfg.kind)
            }
            ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks => mariadb::start(cfg, init),
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
            v.push(("default_storage_engine".to_string(), "ROCKSDB".to_string()));
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

// ---------------------------------------------------------------------------
// Process-global registry of started servers.

#[derive(Clone, Debug)]
enum StopHow {
    /// `pg_ctl stop` (as `run_as` if set), then signals to the postmaster.
    PgCtl { bin_dir: PathBuf, run_as: Option<String> },
    /// SIGTERM, then SIGKILL to the process tree.
    Signal,
}

#[derive(Clone, Debug)]
struct Entry {
    id: u64,
    kind: ServerKind,
    /// None while postgres is starting (pg_ctl -w has not returned yet).
    pid: Option<u32>,
    data_dir: PathBuf,
    how: StopHow,
    /// postgres: pg_ctl start still running (the pid file may not exist yet).
    starting: bool,
    stopping: bool,
}

static RUNNING: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// Set by stop_all_servers(): no server may start afterwards.
static STOPPING_ALL: AtomicBool = AtomicBool::new(false);

fn check_not_stopping_all() -> Result<()> {
    if STOPPING_ALL.load(Ordering::SeqCst) {
        bail!("not starting a server: stop_all_servers() was called (interrupted)");
    }
    Ok(())
}

fn registry() -> MutexGuard<'static, Vec<Entry>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

fn registry_add(kind: ServerKind, pid: Option<u32>, data_dir: &Path, how: StopHow) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let starting = pid.is_none();
    registry().push(Entry { id, kind, pid, data_dir: data_dir.to_path_buf(), how, starting, stopping: false });
    id
}

/// The start command has returned; `pid` is the server's if it runs.
fn registry_start_done(id: u64, pid: Option<u32>) {
    if let Some(e) = registry().iter_mut().find(|e| e.id == id) {
        e.pid = pid;
        e.starting = false;
    }
}

fn registry_is_starting(id: u64) -> bool {
    registry().iter().any(|e| e.id == id && e.starting)
}

fn registry_remove(id: u64) {
    registry().retain(|e| e.id != id);
}

enum Claim {
    /// The caller stops it.
    Mine,
    /// stop_all_servers() is stopping (or has stopped) it.
    Elsewhere,
}

fn registry_claim(id: u64) -> Claim {
    let mut reg = registry();
    match reg.iter_mut().find(|e| e.id == id) {
        Some(e) if !e.stopping => {
            e.stopping = true;
            Claim::Mine
        }
        _ => Claim::Elsewhere,
    }
}

/// Servers started by this process and not yet stopped: (kind, pid, data dir).
/// The pid is None while a postgres server is still starting.
pub fn running_servers() -> Vec<(ServerKind, Option<u32>, PathBuf)> {
    registry().iter().map(|e| (e.kind, e.pid, e.data_dir.clone())).collect()
}

/// Stop every server this process started and has not stopped yet (graceful
/// with a short timeout, then SIGKILL of the process tree), in parallel, and
/// wait for servers that are being stopped elsewhere. Safe to call from a
/// Ctrl-C handler thread or a panic hook, and more than once. Afterwards
/// [`RunningServer::start`] refuses to start servers (a start in progress
/// is stopped too). The main binary must call it from its signal handler
/// before exiting.
pub fn stop_all_servers() {
    STOPPING_ALL.store(true, Ordering::SeqCst);
    let (mine, others): (Vec<Entry>, Vec<Entry>) = {
        let mut reg = registry();
        let others = reg.iter().filter(|e| e.stopping).cloned().collect();
        let mine = reg
            .iter_mut()
            .filter(|e| !e.stopping)
            .map(|e| {
                e.stopping = true;
                e.clone()
            })
            .collect();
        (mine, others)
    };
    let handles: Vec<_> = mine
        .into_iter()
        .map(|e| {
            thread::spawn(move || {
                emergency_stop(&e, Duration::from_secs(15));
                registry_remove(e.id);
            })
        })
        .collect();
    for h in handles {
        let _ = h.join();
    }
    for e in others {
        let pid = e.pid.or_else(|| postgres::read_postmaster_pid(&e.data_dir));
        if let Some(pid) = pid {
            wait_gone(pid, STOP_TIMEOUT + Duration::from_secs(10));
        }
    }
}

/// Install a panic hook that calls [`stop_all_servers`] and then the
/// previous hook. Note: any panic in any thread then stops every server.
pub fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        stop_all_servers();
        prev(info);
    }));
}

/// Stop a registered server without its RunningServer: graceful with
/// `timeout`, then SIGKILL of the process tree.
fn emergency_stop(e: &Entry, timeout: Duration) {
    match &e.how {
        StopHow::PgCtl { bin_dir, run_as } => {
            // Still starting (pg_ctl -w start running): wait until the
            // postmaster has written its pid file (so that there is something
            // to stop) or pg_ctl has given up.
            let deadline = Instant::now() + Duration::from_secs(20);
            while registry_is_starting(e.id)
                && postgres::read_postmaster_pid(&e.data_dir).is_none()
                && Instant::now() < deadline
            {
                thread::sleep(Duration::from_millis(50));
            }
            let secs = timeout.as_secs().max(1).to_string();
            let mut cmd = as_user(run_as.as_deref(), &bin_dir.join("pg_ctl"));
            cmd.arg("-D").arg(&e.data_dir).args(["-m", "fast", "-w", "-t", &secs, "stop"]);
            let _ = run_cmd(cmd, timeout + Duration::from_secs(5));
            if let Some(pid) = e.pid.or_else(|| postgres::read_postmaster_pid(&e.data_dir)) {
                if !wait_gone(pid, Duration::from_secs(3)) {
                    kill_tree(pid, libc::SIGKILL);
                    wait_gone(pid, Duration::from_secs(5));
                }
            }
        }
        StopHow::Signal => {
            if let Some(pid) = e.pid {
                signal(pid, libc::SIGTERM);
                if !wait_gone(pid, timeout) {
                    kill_tree(pid, libc::SIGKILL);
                    wait_gone(pid, Duration::from_secs(5));
                }
            }
        }
    }
}

/// Stops a server whose start failed half-way (dropped without `disarm`),
/// and reaps its child process if it is ours.
struct StartGuard {
    id: Option<u64>,
    child: Option<Child>,
}

impl StartGuard {
    fn new(id: u64, child: Option<Child>) -> Self {
        StartGuard { id: Some(id), child }
    }
    fn disarm(mut self) -> (u64, Option<Child>) {
        (self.id.take().expect("guard armed"), self.child.take())
    }
}

impl Drop for StartGuard {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        if let Claim::Mine = registry_claim(id) {
            let entry = registry().iter().find(|e| e.id == id).cloned();
            if let Some(e) = entry {
                emergency_stop(&e, Duration::from_secs(10));
            }
            registry_remove(id);
        }
        if let Some(c) = self.child.as_mut() {
            if wait_child(c, Duration::from_secs(10)).is_none() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

/// Removes a directory on drop unless taken.
struct DirGuard(Option<PathBuf>);

impl DirGuard {
    fn take(mut self) -> Option<PathBuf> {
        self.0.take()
    }
}

impl Drop for DirGuard {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = fs::remove_dir_all(d);
        }
    }
}

fn absolute(p: &Path) -> Result<PathBuf> {
    Ok(if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir()?.join(p) })
}

// ---------------------------------------------------------------------------
// Processes.

/// Whether `pid` exists and is not a zombie.
pub fn process_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks for existence.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    if r != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
        return false;
    }
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => proc_stat_fields(&s).map(|(state, _)| state != 'Z' && state != 'X').unwrap_or(false),
        Err(_) => false,
    }
}

/// (state, ppid) from /proc/PID/stat text.
fn proc_stat_fields(stat: &str) -> Option<(char, u32)> {
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut it = rest.split_whitespace();
    let state = it.next()?.chars().next()?;
    let ppid = it.next()?.parse().ok()?;
    Some((state, ppid))
}

/// All descendants of `pid` (children, grandchildren, ...); none if /proc cannot be read.
fn descendants(pid: u32) -> Vec<u32> {
    crate::measure::os::process::descendants(Path::new("/proc"), pid as i32)
        .unwrap_or_default()
        .into_iter()
        .map(|p| p as u32)
        .collect()
}

fn signal(pid: u32, sig: libc::c_int) {
    if pid > 1 {
        // SAFETY: plain kill(2) on a pid we started.
        unsafe {
            libc::kill(pid as libc::pid_t, sig);
        }
    }
}

/// Send `sig` to `pid` and all its descendants.
fn kill_tree(pid: u32, sig: libc::c_int) {
    let kids = descendants(pid);
    signal(pid, sig);
    for k in kids {
        signal(k, sig);
    }
}

/// Wait until `pid` is gone (or a zombie); true if it is.
fn wait_gone(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if !process_alive(pid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Wait until `pid` no longer exists, not even as a zombie (reaping it when
/// it is our own child); true if so.
fn wait_reaped(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        // SAFETY: signal 0 only checks for existence; waitpid with WNOHANG on
        // a child of ours that is a zombie.
        unsafe {
            if libc::kill(pid as libc::pid_t, 0) != 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
            {
                return true;
            }
            let ours = fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| proc_stat_fields(&s))
                .is_some_and(|(state, ppid)| state == 'Z' && ppid == std::process::id());
            if ours {
                libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Wait for a child to exit; its status if it did.
fn wait_child(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Some(st),
            Ok(None) => {}
            Err(_) => return None,
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Output of a finished helper command (stdout and stderr interleaved).
struct CmdOutput {
    status: ExitStatus,
    text: String,
}

impl CmdOutput {
    fn lines(&self) -> Vec<String> {
        self.text.lines().map(str::to_string).collect()
    }
}

/// Run a helper command with a timeout, capturing stdout and stderr. The
/// command is killed at the timeout. Output that daemons spawned by it keep
/// writing is not waited for beyond 2 s.
fn run_cmd(mut cmd: Command, timeout: Duration) -> Result<CmdOutput> {
    let desc = format!("{cmd:?}");
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().with_context(|| format!("cannot run {desc}"))?;
    let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
    let mut readers = Vec::new();
    let out: Option<Box<dyn Read + Send>> = child.stdout.take().map(|s| Box::new(s) as _);
    let err: Option<Box<dyn Read + Send>> = child.stderr.take().map(|s| Box::new(s) as _);
    for mut r in [out, err].into_iter().flatten() {
        let buf = Arc::clone(&buf);
        readers.push(thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = r.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]);
            }
        }));
    }
    let status = match wait_child(&mut child, timeout) {
        Some(st) => st,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            let text = String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
            bail!("{desc} timed out after {} s; output: {}", timeout.as_secs(), one_line(&text));
        }
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    for h in readers {
        while !h.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
        if h.is_finished() {
            let _ = h.join();
        }
    }
    let text = String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    Ok(CmdOutput { status, text })
}

/// `program`, run as OS user `user` via runuser when one is given.
fn as_user(user: Option<&str>, program: &Path) -> Command {
    let mut cmd = match user {
        Some(u) => {
            let mut c = Command::new(find_program("runuser", &["/usr/sbin", "/sbin", "/usr/bin", "/bin"]));
            c.args(["-u", u, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    };
    // The caller's cwd may not be readable by `user`.
    cmd.current_dir("/");
    cmd
}

/// `name` from PATH, else from the first of `dirs` that has it, else `name`.
fn find_program(name: &str, dirs: &[&str]) -> PathBuf {
    locate_program(name, dirs).unwrap_or_else(|| PathBuf::from(name))
}

/// `name` from PATH, else from the first of `dirs` that has it.
fn locate_program(name: &str, dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).chain(dirs.iter().map(PathBuf::from)).map(|d| d.join(name)).find(|p| p.is_file())
}

/// When set, the directory that holds the programs of the servers rumbench
/// starts (initdb, pg_ctl, postgres; mariadb-install-db, mariadbd,
/// mariadb-admin), looked for there only, instead of Debian's places: a
/// server built from source, or (in the tests) an empty directory standing
/// for a machine without the server packages.
pub const SERVER_BIN_DIR_ENV: &str = "RUMBENCH_SERVER_BIN_DIR";

fn server_bin_dir() -> Option<PathBuf> {
    std::env::var_os(SERVER_BIN_DIR_ENV).filter(|d| !d.is_empty()).map(PathBuf::from)
}

/// A server's program: from [`SERVER_BIN_DIR_ENV`] when set, else from PATH
/// or `dirs`; Err says where it was looked for.
fn locate_server_program(name: &str, dirs: &[&str]) -> std::result::Result<PathBuf, String> {
    match server_bin_dir() {
        Some(d) => Some(d.join(name))
            .filter(|p| p.is_file())
            .ok_or_else(|| format!("not in {SERVER_BIN_DIR_ENV}={}", d.display())),
        None => locate_program(name, dirs).ok_or_else(|| format!("not in PATH, {}", dirs.join(", "))),
    }
}

/// The error for a server program that is missing, with where it was
/// looked for and how to install it.
fn not_installed(program: &str, looked: &str) -> anyhow::Error {
    anyhow!("{program} is not installed ({looked}): install the servers with scripts/install-servers.sh (as root)")
}

/// Before anything starts: every program a `kind` server needs is here
/// (Debian's packages, or [`SERVER_BIN_DIR_ENV`]); the error names the first
/// one missing and the command that installs them.
pub fn check_installed(kind: ServerKind) -> Result<()> {
    match kind {
        ServerKind::Postgres => postgres::find_bin_dir().map(|_| ()),
        ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks => mariadb::check_installed(kind),
        ServerKind::Mongodb => bail!("{}", mongodb::BY_URL_ONLY),
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// (uid, gid) of an OS user.
fn lookup_user(name: &str) -> Result<(u32, u32)> {
    let cname = std::ffi::CString::new(name)?;
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16384];
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: all pointers are valid for the duration of the call.
    let rc = unsafe { libc::getpwnam_r(cname.as_ptr(), &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() {
        bail!("OS user {name:?} does not exist (is the server package installed? see scripts/install-servers.sh)");
    }
    Ok((pwd.pw_uid, pwd.pw_gid))
}

// ---------------------------------------------------------------------------
// Files, ports, config.

/// Create the data dir (must be empty if it exists).
fn prepare_data_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        if !dir.is_dir() {
            bail!("data dir {} exists and is not a directory", dir.display());
        }
        if fs::read_dir(dir)?.next().is_some() {
            bail!("data dir {} is not empty (rumbench needs a fresh private directory)", dir.display());
        }
    } else {
        fs::create_dir_all(dir).with_context(|| format!("cannot create data dir {}", dir.display()))?;
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    Ok(())
}

/// Give o+x (search, not read) to every ancestor of `dir` that lacks it, so
/// that another OS user can reach `dir`.
fn make_ancestors_searchable(dir: &Path) -> Result<()> {
    let abs = if dir.is_absolute() { dir.to_path_buf() } else { std::env::current_dir()?.join(dir) };
    for a in abs.ancestors().skip(1) {
        let meta = fs::metadata(a).with_context(|| format!("cannot stat {}", a.display()))?;
        let mode = meta.permissions().mode();
        if mode & 0o001 == 0 {
            fs::set_permissions(a, fs::Permissions::from_mode((mode & 0o7777) | 0o001))
                .with_context(|| format!("cannot make {} searchable for the server's OS user", a.display()))?;
        }
    }
    Ok(())
}

/// Longest Unix socket path (sun_path is 108 bytes with the NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Whether `dir` (or its nearest existing ancestor) is on a FUSE
/// filesystem: one may not hold sockets (the crash test's lazy one does not).
fn on_fuse(dir: &Path) -> bool {
    const FUSE_SUPER_MAGIC: i64 = 0x6573_5546;
    let Some(existing) = dir.ancestors().find(|a| a.exists()) else { return false };
    let Ok(path) = std::ffi::CString::new(existing.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: statfs into a zeroed struct of the right type.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    unsafe { libc::statfs(path.as_ptr(), &mut st) == 0 && st.f_type as i64 == FUSE_SUPER_MAGIC }
}

/// The directory for a socket named `name`: `data_dir` when the path fits in
/// sun_path and the data dir is not on FUSE, else a fresh private directory
/// under /tmp (returned as second value, to be removed on stop).
fn socket_dir(data_dir: &Path, name: &str) -> Result<(PathBuf, Option<PathBuf>)> {
    let abs = if data_dir.is_absolute() { data_dir.to_path_buf() } else { std::env::current_dir()?.join(data_dir) };
    if abs.join(name).as_os_str().len() + 5 <= MAX_SOCKET_PATH && !on_fuse(&abs) {
        return Ok((abs, None));
    }
    remove_stale_socket_dirs(Path::new("/tmp"));
    // Named after this process, so that a later run can tell one whose owner is gone.
    let template = std::ffi::CString::new(format!("/tmp/{SOCKET_DIR_PREFIX}{}-XXXXXX", std::process::id()))?;
    let mut bytes = template.into_bytes_with_nul();
    // SAFETY: bytes is a NUL-terminated writable template.
    let p = unsafe { libc::mkdtemp(bytes.as_mut_ptr() as *mut libc::c_char) };
    if p.is_null() {
        bail!("cannot create a socket directory under /tmp: {}", std::io::Error::last_os_error());
    }
    bytes.pop();
    let dir = PathBuf::from(String::from_utf8(bytes)?);
    Ok((dir.clone(), Some(dir)))
}

/// Private socket directories under /tmp: this, the owner's pid, '-', a random suffix.
const SOCKET_DIR_PREFIX: &str = "rumbench-sock-";

/// Socket directories whose rumbench process is gone (killed outright, its
/// server stopped since): removed. A directory of a live process, or of a
/// name that is not rumbench's, is left alone. Returns how many went.
fn remove_stale_socket_dirs(tmp: &Path) -> usize {
    let Ok(entries) = fs::read_dir(tmp) else { return 0 };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix(SOCKET_DIR_PREFIX)
            .and_then(|r| r.split_once('-'))
            .and_then(|(p, _)| p.parse::<u32>().ok())
        else {
            continue;
        };
        let owner_alive = Path::new(&format!("/proc/{pid}")).exists();
        if !owner_alive && e.file_type().is_ok_and(|t| t.is_dir()) && fs::remove_dir_all(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

static PORTS_HANDED_OUT: Mutex<Option<HashSet<u16>>> = Mutex::new(None);

/// A free TCP port on 127.0.0.1 (bind port 0, read it, close), never one
/// already handed out by this process.
fn pick_free_port() -> Result<u16> {
    for _ in 0..50 {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("cannot bind 127.0.0.1:0")?;
        let port = l.local_addr()?.port();
        drop(l);
        let mut used = PORTS_HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
        if used.get_or_insert_with(HashSet::new).insert(port) {
            return Ok(port);
        }
    }
    bail!("no free TCP port found on 127.0.0.1")
}

/// Addresses ("127.0.0.1", "0.0.0.0", "::", ...) with a TCP listener on
/// `port`, from /proc/net/tcp and /proc/net/tcp6.
pub fn tcp_listen_addresses(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    for (file, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        let Ok(text) = fs::read_to_string(file) else { continue };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 4 || f[3] != "0A" {
                continue;
            }
            let Some((addr, p)) = f[1].split_once(':') else { continue };
            if u16::from_str_radix(p, 16).ok() != Some(port) {
                continue;
            }
            out.push(decode_proc_addr(addr, v6));
        }
    }
    out
}

fn decode_proc_addr(hex: &str, v6: bool) -> String {
    let bytes: Vec<u8> =
        (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect();
    if !v6 && bytes.len() == 4 {
        // One little-endian u32.
        return std::net::Ipv4Addr::new(bytes[3], bytes[2], bytes[1], bytes[0]).to_string();
    }
    if v6 && bytes.len() == 16 {
        // Four little-endian u32 words.
        let mut b = [0u8; 16];
        for w in 0..4 {
            for i in 0..4 {
                b[4 * w + i] = bytes[4 * w + 3 - i];
            }
        }
        return std::net::Ipv6Addr::from(b).to_string();
    }
    hex.to_string()
}

/// Error unless every listener on `port` is on 127.0.0.1.
fn check_loopback_only(kind: ServerKind, port: u16) -> Result<()> {
    let addrs = tcp_listen_addresses(port);
    if addrs.is_empty() {
        bail!("{kind}: nothing listens on 127.0.0.1:{port}");
    }
    if let Some(bad) = addrs.iter().find(|a| a.as_str() != "127.0.0.1") {
        bail!("{kind} listens on {bad}:{port}, not only on 127.0.0.1");
    }
    Ok(())
}

/// The setting name of a config line, normalized (lowercase, '-' -> '_',
/// MariaDB's loose_ prefix removed); None for blanks, comments, sections.
fn setting_name(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with(';') || t.starts_with('[') || t.starts_with('!') {
        return None;
    }
    let end = t.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(t.len());
    let mut name = t[..end].to_ascii_lowercase().replace('-', "_");
    if let Some(s) = name.strip_prefix("loose_") {
        name = s.to_string();
    }
    Some(name)
}

/// The value of a config line (after '=' or whitespace), trimmed, unquoted.
fn setting_value(line: &str) -> Option<String> {
    let t = line.trim();
    let end = t.find(|c: char| c == '=' || c.is_whitespace())?;
    let v = t[end..].trim_start().trim_start_matches('=').trim();
    let v = v.split(" #").next().unwrap_or(v).trim();
    Some(v.trim_matches(|c| c == '\'' || c == '"').to_string())
}

const PG_MANAGED: &[&str] = &["listen_addresses", "port", "unix_socket_directories", "data_directory", "hba_file"];
const MARIADB_MANAGED: &[&str] = &[
    "bind_address",
    "port",
    "socket",
    "datadir",
    "pid_file",
    "log_error",
    "user",
    "skip_networking",
    "networking",
    "skip_grant_tables",
];

fn check_config_lines(kind: ServerKind, lines: &[String]) -> Result<()> {
    let managed = if kind == ServerKind::Postgres { PG_MANAGED } else { MARIADB_MANAGED };
    for l in lines {
        if l.contains('\n') || l.contains('\r') {
            bail!("{kind} config line {l:?} contains a line break: give one setting per line");
        }
        if let Some(name) = setting_name(l) {
            if managed.contains(&name.as_str()) {
                bail!(
                    "{kind} config line {l:?} sets {name}, which rumbench manages (loopback only, private port, socket and data dir)"
                );
            }
        }
    }
    Ok(())
}

/// The memory a started server's config lines ask for, in the settings
/// that size its buffers (PostgreSQL's shared_buffers and wal_buffers;
/// MariaDB's InnoDB buffer pool and log buffer, MyISAM's key buffer,
/// MyRocks' block cache and write buffers): checked against what the machine
/// has before anything starts. The server's defaults for the rest are small.
pub fn memory_claims(kind: ServerKind, lines: &[String]) -> Vec<crate::engine::Claim> {
    const PG: &[&str] = &["shared_buffers", "wal_buffers"];
    const MARIADB: &[&str] = &[
        "innodb_buffer_pool_size",
        "innodb_log_buffer_size",
        "key_buffer_size",
        "rocksdb_block_cache_size",
        "rocksdb_db_write_buffer_size",
    ];
    let names = if kind == ServerKind::Postgres { PG } else { MARIADB };
    let mut out = Vec::new();
    for l in lines {
        let (Some(name), Some(value)) = (setting_name(l), setting_value(l)) else { continue };
        if !names.contains(&name.as_str()) {
            continue;
        }
        let bytes = match kind {
            ServerKind::Postgres => pg_memory_bytes(&value),
            _ => crate::plan::parse_size(&value),
        };
        if let Some(b) = bytes {
            out.push(crate::engine::Claim::memory(b, format!("{kind} config {name} = {value}")));
        }
    }
    out
}

/// A PostgreSQL memory setting in bytes: a number of 8 kB blocks, or with a
/// unit (B, kB, MB, GB, TB: powers of 1024, as postgresql.conf reads them).
fn pg_memory_bytes(value: &str) -> Option<u64> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (n, unit) = (v[..split].parse::<u64>().ok()?, v[split..].trim());
    let scale: u64 = match unit {
        "" => 8 << 10,
        "B" => 1,
        "kB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// The last `n` lines of a file (empty if it cannot be read).
fn file_tail(path: &Path, n: usize) -> Vec<String> {
    let Ok(bytes) = fs::read(path) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

fn tail_of(lines: &[String], n: usize) -> Vec<String> {
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// The last non-blank line.
fn last_nonblank(lines: &[String]) -> Option<String> {
    lines.iter().rev().find(|l| !l.trim().is_empty()).map(|l| l.trim().to_string())
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
