//! The crash test of a database server rumbench starts: its data dir on the
//! lazy filesystem, clients inserting over its Unix socket (one row per
//! autocommit INSERT), the crash a SIGKILL of the server's whole process
//! tree, and its recovery the next start, timed until it answers queries.
//!
//! Before the first crash the server is initialized, the table created,
//! the server stopped cleanly and everything made durable: a database
//! installed long ago, not the install itself, is what is tested.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;

use super::child::{CheckReport, ChildTask};
use super::records::{self, AckLog, Found, KEY_LEN};
use super::{interrupted, Options, Subject, OPEN_TIMEOUT};
use crate::lazyfs::LazyMount;
use crate::plan::EngineConfig;
use crate::server::{Endpoint, RunningServer, ServerConfig, ServerKind, ServerStartError};

const TABLE: &str = "crashtest";
/// Rows per read of the check.
const CHUNK: usize = 10_000;

pub(super) struct ServerSubject {
    cfg: ServerConfig,
    bin_dir: Option<PathBuf>,
    server: Option<RunningServer>,
}

impl ServerSubject {
    /// Initialize the server in `data_dir` (on `mount`), create the table,
    /// stop it cleanly, make it all durable and start it again.
    pub(super) fn set_up(
        config: &EngineConfig,
        o: &Options,
        data_dir: &Path,
        mount: &mut LazyMount,
    ) -> Result<ServerSubject> {
        let kind = crate::server::kind_of(&config.engine).context("not a server engine")?;
        crate::server::install_panic_hook();
        let bin_dir =
            config.server_version.as_deref().map(|v| crate::server::versioned_binaries(kind, v)).transpose()?;
        let cfg = ServerConfig { kind, data_dir: data_dir.to_path_buf(), config_lines: config.applied_server_config() };
        let server = RunningServer::start_with_binaries(&cfg, bin_dir.as_deref())
            .map_err(|e| one_line_start_error(e, "setting up"))?;
        create_table(&server.endpoint(true), o.value_size)?;
        server.stop().context("stopping the server after setting it up")?;
        mount.make_all_durable()?;
        let server = RunningServer::restart(&cfg, bin_dir.as_deref())
            .map_err(|e| one_line_start_error(e, "starting the set-up server"))?;
        Ok(ServerSubject { cfg, bin_dir, server: Some(server) })
    }
}

/// A start error in one line, with what was being done.
fn one_line_start_error(e: anyhow::Error, doing: &str) -> anyhow::Error {
    match e.downcast_ref::<ServerStartError>() {
        Some(se) => anyhow::anyhow!("{doing}: {se}"),
        None => e.context(doing.to_string()),
    }
}

fn create_table(endpoint: &Endpoint, value_size: usize) -> Result<()> {
    match endpoint.kind {
        ServerKind::Postgres => {
            let mut c = endpoint.connect_postgres()?;
            // bytea sorts bytewise, as the check reads it.
            c.batch_execute(&format!("CREATE TABLE {TABLE} (k bytea PRIMARY KEY, v bytea NOT NULL)"))?;
        }
        _ => {
            let mut c = endpoint.connect_mysql()?;
            // The server's default engine: InnoDB, or ROCKSDB for MyRocks.
            c.query_drop(format!(
                "CREATE TABLE {TABLE} (k VARBINARY({KEY_LEN}) NOT NULL PRIMARY KEY, v {}) ",
                if value_size <= 4000 {
                    format!("VARBINARY({value_size}) NOT NULL")
                } else {
                    "LONGBLOB NOT NULL".into()
                }
            ))?;
        }
    }
    Ok(())
}

/// One client's inserts, one autocommit INSERT each.
enum Inserter {
    Pg(Box<::postgres::Client>, ::postgres::Statement),
    My(Box<crate::server::endpoint::MysqlConn>, ::mysql::Statement),
}

impl Inserter {
    fn connect(endpoint: &Endpoint) -> Result<Inserter> {
        let sql = format!("INSERT INTO {TABLE} (k, v) VALUES ");
        Ok(match endpoint.kind {
            ServerKind::Postgres => {
                let mut c = endpoint.connect_postgres()?;
                let st = c.prepare(&format!("{sql}($1, $2)"))?;
                Inserter::Pg(Box::new(c), st)
            }
            _ => {
                let mut c = endpoint.connect_mysql()?;
                let st = c.prep(format!("{sql}(?, ?)"))?;
                Inserter::My(Box::new(c), st)
            }
        })
    }

    fn insert(&mut self, k: &[u8], v: &[u8]) -> Result<()> {
        match self {
            Inserter::Pg(c, st) => {
                c.execute(st, &[&k, &v])?;
            }
            Inserter::My(c, st) => c.exec_drop(&*st, (k, v))?,
        }
        Ok(())
    }
}

fn client(
    endpoint: &Endpoint,
    task: &ChildTask,
    thread: u32,
    connected: &mpsc::Sender<Result<(), String>>,
    crashing: &AtomicBool,
) {
    let run = || -> Result<()> {
        let mut ins = Inserter::connect(endpoint)?;
        let mut log = AckLog::create(&records::ack_path(&task.ack_dir, (task.crash, thread)))?;
        let _ = connected.send(Ok(()));
        let (mut key, mut value) = (Vec::with_capacity(KEY_LEN), Vec::with_capacity(task.value_size));
        for seq in 0.. {
            records::key(task.crash, thread, seq, &mut key);
            records::value(&key, task.value_size, &mut value);
            ins.insert(&key, &value)?;
            log.ack(seq)?;
        }
        Ok(())
    };
    if let Err(e) = run() {
        // After the kill every client fails: that is the crash, not an error.
        if !crashing.load(Ordering::SeqCst) {
            let _ = connected.send(Err(format!("client {thread}: {}", format!("{e:#}").replace('\n', " "))));
        }
    }
}

impl ServerSubject {
    fn running(&self) -> Result<&RunningServer> {
        self.server.as_ref().context("the server is not running")
    }

    /// Wait for every client to connect, then `after`; a client that fails first is an error.
    fn watch(&self, threads: usize, after: Duration, events: &mpsc::Receiver<Result<(), String>>) -> Result<()> {
        let started = Instant::now();
        let mut connected = 0;
        while connected < threads {
            interrupted()?;
            match events.recv_timeout(Duration::from_millis(20)) {
                Ok(Ok(())) => connected += 1,
                Ok(Err(e)) => bail!("a client failed before the crash: {e}"),
                Err(_) if started.elapsed() > OPEN_TIMEOUT => {
                    bail!("the clients did not connect within {} s", OPEN_TIMEOUT.as_secs())
                }
                Err(_) => {}
            }
        }
        let until = Instant::now() + after;
        while Instant::now() < until {
            interrupted()?;
            if let Ok(Err(e)) = events.recv_timeout((until - Instant::now()).min(Duration::from_millis(20))) {
                bail!("a client failed before the crash: {e}");
            }
        }
        Ok(())
    }
}

impl Subject for ServerSubject {
    fn write_and_crash(&mut self, task: &ChildTask, after: Duration) -> Result<()> {
        let endpoint = self.running()?.endpoint(true);
        let crashing = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            for thread in 0..task.threads as u32 {
                let (endpoint, tx, crashing) = (&endpoint, tx.clone(), &crashing);
                s.spawn(move || client(endpoint, task, thread, &tx, crashing));
            }
            drop(tx);
            let watched = self.watch(task.threads, after, &rx);
            // The crash, also when the wait failed: the clients end only once the server is gone.
            crashing.store(true, Ordering::SeqCst);
            let killed = self.server.take().map(RunningServer::kill).transpose();
            watched?;
            killed?;
            Ok(())
        })
    }

    fn recover(&mut self, task: &ChildTask) -> Result<std::result::Result<CheckReport, String>> {
        let started = Instant::now();
        let server = match RunningServer::restart(&self.cfg, self.bin_dir.as_deref()) {
            Ok(s) => s,
            Err(e) => {
                interrupted()?;
                return Ok(Err(match e.downcast_ref::<ServerStartError>() {
                    Some(se) => se.to_string(),
                    None => format!("{e:#}"),
                }));
            }
        };
        let open_s = started.elapsed().as_secs_f64();
        let endpoint = server.endpoint(true);
        self.server = Some(server);
        let found = match read_back(&endpoint, task.value_size) {
            Ok(f) => f,
            Err(e) => {
                return Ok(Err(format!(
                    "the server started but reading table {TABLE} failed: {}",
                    format!("{e:#}").replace('\n', " ")
                )))
            }
        };
        let server = self.running()?;
        let mut provenance = vec![("version".to_string(), server.version().to_string())];
        provenance.extend(server.provenance());
        Ok(Ok(CheckReport { open_s, provenance, effective_options: durability_settings(&endpoint, server), found }))
    }
}

/// Every row, in key order, in chunks.
fn read_back(endpoint: &Endpoint, value_size: usize) -> Result<Found> {
    let mut found = Found::default();
    let mut expected = Vec::new();
    let mut last: Vec<u8> = Vec::new();
    let mut first = true;
    enum Conn {
        Pg(Box<::postgres::Client>),
        My(Box<crate::server::endpoint::MysqlConn>),
    }
    let mut conn = match endpoint.kind {
        ServerKind::Postgres => Conn::Pg(Box::new(endpoint.connect_postgres()?)),
        _ => Conn::My(Box::new(endpoint.connect_mysql()?)),
    };
    loop {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = match &mut conn {
            Conn::Pg(c) => {
                let sql = format!("SELECT k, v FROM {TABLE} WHERE k > $1 OR $2 ORDER BY k LIMIT {CHUNK}");
                c.query(&sql, &[&last, &first])?.iter().map(|r| (r.get(0), r.get(1))).collect()
            }
            Conn::My(c) => {
                let sql = format!("SELECT k, v FROM {TABLE} WHERE k > ? OR ? ORDER BY k LIMIT {CHUNK}");
                c.exec(sql, (last.clone(), first))?
            }
        };
        first = false;
        for (k, v) in &rows {
            found.add(k, v, &mut expected, value_size);
        }
        match rows.last() {
            Some((k, _)) if rows.len() == CHUNK => last = k.clone(),
            _ => break,
        }
    }
    Ok(found)
}

/// The settings that decide durability, as the server reports them, with
/// the user's config lines and what rumbench manages.
fn durability_settings(endpoint: &Endpoint, server: &RunningServer) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        server.config_lines().iter().map(|l| ("server_config".to_string(), l.clone())).collect();
    out.extend(server.managed_settings().into_iter().map(|(k, v)| (format!("managed.{k}"), v)));
    let read = || -> Result<Vec<(String, String)>> {
        Ok(match endpoint.kind {
            ServerKind::Postgres => {
                let mut c = endpoint.connect_postgres()?;
                let names = [
                    "fsync",
                    "synchronous_commit",
                    "wal_sync_method",
                    "full_page_writes",
                    "wal_writer_delay",
                    "wal_level",
                    "data_checksums",
                ];
                let mut v = Vec::new();
                for n in names {
                    let row =
                        c.query_one("SELECT setting || COALESCE(unit, '') FROM pg_settings WHERE name = $1", &[&n])?;
                    v.push((format!("pg_settings.{n}"), row.get::<_, String>(0)));
                }
                v
            }
            _ => {
                let mut c = endpoint.connect_mysql()?;
                let names = [
                    "innodb_flush_log_at_trx_commit",
                    "innodb_flush_method",
                    "innodb_doublewrite",
                    "innodb_use_native_aio",
                    "rocksdb_flush_log_at_trx_commit",
                    "rocksdb_wal_recovery_mode",
                    "rocksdb_use_fsync",
                    "log_bin",
                    "sync_binlog",
                    "default_storage_engine",
                ];
                let list = names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
                let rows: Vec<(String, String)> =
                    c.query(format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})"))?;
                rows.into_iter().map(|(k, v)| (format!("variables.{k}"), v)).collect()
            }
        })
    };
    match read() {
        Ok(v) => out.extend(v),
        Err(e) => out.push(("settings_error".into(), format!("{e:#}"))),
    }
    out
}
