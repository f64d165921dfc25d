//! Integration tests of the server lifecycle layer against real PostgreSQL
//! and MariaDB (InnoDB, MyRocks) servers. Needs scripts/install-servers.sh.
//!
//! Each test starts its own servers in its own temp dir on its own port, so
//! the tests can run in parallel.

use std::fs;
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use rumbench::server::{process_alive, running_servers, RunningServer, ServerConfig, ServerKind, ServerStartError};

use crate::common::cli;

fn cfg(kind: ServerKind, dir: PathBuf, lines: &[&str]) -> ServerConfig {
    ServerConfig { kind, data_dir: dir, config_lines: lines.iter().map(|s| s.to_string()).collect() }
}

/// (local address hex, state) of every socket on `port`, from /proc/net/tcp{,6}.
fn proc_net_sockets(port: u16) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    for (file, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        let text = fs::read_to_string(file).unwrap_or_default();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (addr, p) = f[1].split_once(':').unwrap();
            if u16::from_str_radix(p, 16).unwrap() == port {
                out.push((addr.to_string(), f[3].to_string(), v6));
            }
        }
    }
    out
}

/// The server listens on 127.0.0.1:port and on nothing else on that port.
fn assert_loopback_only(port: u16) {
    let listeners: Vec<_> = proc_net_sockets(port).into_iter().filter(|(_, st, _)| st == "0A").collect();
    assert!(!listeners.is_empty(), "no listener on port {port}");
    for (addr, _, v6) in &listeners {
        assert!(!v6, "IPv6 listener {addr} on port {port}");
        assert_eq!(addr, "0100007F", "listener on {addr}:{port} is not 127.0.0.1");
    }
}

fn assert_stopped(pid: u32, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!process_alive(pid), "server pid {pid} still alive");
    let listening = proc_net_sockets(port).into_iter().any(|(_, st, _)| st == "0A");
    assert!(!listening, "port {port} still has a listener");
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err(), "port {port} still accepts");
}

fn stat<'a>(stats: &'a [(String, String)], name: &str) -> Option<&'a str> {
    stats.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

#[test]
fn postgres_lifecycle() {
    let tmp = tempfile::tempdir().unwrap();
    let s =
        RunningServer::start(&cfg(ServerKind::Postgres, tmp.path().join("pg"), &["shared_buffers = 64MB"])).unwrap();
    let (pid, port) = (s.pid(), s.port());
    assert!(process_alive(pid));
    assert!(s.version().starts_with("PostgreSQL "), "{}", s.version());
    assert!(s.socket_path().exists(), "{}", s.socket_path().display());
    assert!(s.log_path().exists());
    assert_eq!(s.config_lines(), ["shared_buffers = 64MB"]);
    assert!(fs::read_to_string(s.config_path()).unwrap().contains("\nshared_buffers = 64MB\n"));
    assert!(running_servers().iter().any(|(k, p, _)| *k == ServerKind::Postgres && *p == Some(pid)));

    let mut c = s.connect_postgres().unwrap();
    let one: i32 = c.query_one("SELECT 1", &[]).unwrap().get(0);
    assert_eq!(one, 1);
    let sb: String = c.query_one("SHOW shared_buffers", &[]).unwrap().get(0);
    assert_eq!(sb, "64MB");
    let db: String = c.query_one("SELECT current_database()", &[]).unwrap().get(0);
    assert_eq!(db, "rumbench");
    c.batch_execute("CREATE TABLE t (i int primary key); INSERT INTO t SELECT generate_series(1, 1000)").unwrap();
    drop(c);
    let mut c2 = postgres::Client::connect(&s.connection_url(), postgres::NoTls).unwrap();
    let n: i64 = c2.query_one("SELECT count(*) FROM t", &[]).unwrap().get(0);
    assert_eq!(n, 1000);
    drop(c2);

    assert_loopback_only(port);

    let stats = s.server_stats();
    assert!(stat(&stats, "stats_error").is_none(), "{stats:?}");
    assert!(stat(&stats, "pg_stat_bgwriter.buffers_clean").is_some(), "{stats:?}");
    assert!(stat(&stats, "pg_stat_database.tup_inserted").is_some(), "{stats:?}");
    assert!(stat(&stats, "database_size_bytes").unwrap().parse::<u64>().unwrap() > 0);

    s.stop().unwrap();
    assert_stopped(pid, port);
    assert!(!running_servers().iter().any(|(_, p, _)| *p == Some(pid)));
}

fn mariadb_common(kind: ServerKind, extra_line: &str) -> (tempfile::TempDir, RunningServer) {
    let tmp = tempfile::tempdir().unwrap();
    let s = RunningServer::start(&cfg(kind, tmp.path().join("db"), &["innodb_buffer_pool_size = 64M", extra_line]))
        .unwrap();
    assert!(process_alive(s.pid()));
    assert!(s.version().contains("MariaDB"), "{}", s.version());
    assert!(s.socket_path().exists(), "{}", s.socket_path().display());
    assert_loopback_only(s.port());

    let mut c = s.connect_mysql().unwrap();
    let one: Option<i32> = c.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
    let bp: Option<u64> = c.query_first("SELECT @@innodb_buffer_pool_size").unwrap();
    assert_eq!(bp, Some(64 << 20));
    let db: Option<String> = c.query_first("SELECT DATABASE()").unwrap();
    assert_eq!(db.as_deref(), Some("rumbench"));
    let bind: Option<String> = c.query_first("SELECT @@bind_address").unwrap();
    assert_eq!(bind.as_deref(), Some("127.0.0.1"));
    drop(c);
    let mut c2 = mysql::Conn::new(mysql::Opts::from_url(&s.connection_url()).unwrap()).unwrap();
    let one: Option<i32> = c2.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
    (tmp, s)
}

#[test]
fn mariadb_innodb_lifecycle() {
    let (_tmp, s) = mariadb_common(ServerKind::MariadbInnodb, "innodb_flush_log_at_trx_commit = 2");
    let (pid, port) = (s.pid(), s.port());
    let mut c = s.connect_mysql().unwrap();
    let v: Option<u32> = c.query_first("SELECT @@innodb_flush_log_at_trx_commit").unwrap();
    assert_eq!(v, Some(2));
    let engine: Option<String> = c.query_first("SELECT @@default_storage_engine").unwrap();
    assert_eq!(engine.as_deref(), Some("InnoDB"));
    // Nothing but the system schemas and ours (the tmpdir is not a database).
    let dbs: Vec<String> = c.query("SHOW DATABASES").unwrap();
    assert_eq!(dbs, ["information_schema", "mysql", "performance_schema", "rumbench", "sys"]);
    let tmpdir: Option<String> = c.query_first("SELECT @@tmpdir").unwrap();
    assert!(tmpdir.unwrap().starts_with(s.data_dir().to_str().unwrap()));
    c.query_drop("CREATE TABLE t (i INT PRIMARY KEY)").unwrap();
    c.query_drop("INSERT INTO t VALUES (1), (2), (3)").unwrap();
    drop(c);

    let stats = s.server_stats();
    assert!(stat(&stats, "stats_error").is_none(), "{stats:?}");
    assert!(stat(&stats, "Innodb_buffer_pool_pages_total").is_some(), "{stats:?}");
    assert!(stat(&stats, "Handler_write").unwrap().parse::<u64>().unwrap() >= 3, "{stats:?}");
    assert!(stat(&stats, "Innodb_os_log_written").is_some(), "{stats:?}");
    assert!(stat(&stats, "innodb_status.log_sequence_number").unwrap().parse::<u64>().unwrap() > 0);
    assert!(stat(&stats, "innodb_status.last_checkpoint_at").is_some(), "{stats:?}");

    s.stop().unwrap();
    assert_stopped(pid, port);
}

#[test]
fn mariadb_myrocks_lifecycle() {
    let (_tmp, s) = mariadb_common(ServerKind::MariadbMyrocks, "rocksdb_block_cache_size = 32M");
    let (pid, port) = (s.pid(), s.port());
    let mut c = s.connect_mysql().unwrap();
    let v: Option<u64> = c.query_first("SELECT @@rocksdb_block_cache_size").unwrap();
    assert_eq!(v, Some(32 << 20));
    let engine: Option<String> = c.query_first("SELECT @@default_storage_engine").unwrap();
    assert_eq!(engine.as_deref(), Some("ROCKSDB"));

    c.query_drop("CREATE TABLE t (i INT PRIMARY KEY) ENGINE=ROCKSDB").unwrap();
    c.query_drop("INSERT INTO t VALUES (1), (2), (3)").unwrap();
    let rows: Vec<i32> = c.query("SELECT i FROM t ORDER BY i").unwrap();
    assert_eq!(rows, [1, 2, 3]);
    let te: Option<String> = c
        .query_first(
            "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'rumbench' AND TABLE_NAME = 't'",
        )
        .unwrap();
    assert_eq!(te.as_deref(), Some("ROCKSDB"));
    c.query_drop("CREATE TABLE u (i INT PRIMARY KEY)").unwrap();
    let ue: Option<String> = c
        .query_first(
            "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'rumbench' AND TABLE_NAME = 'u'",
        )
        .unwrap();
    assert_eq!(ue.as_deref(), Some("ROCKSDB"), "default engine not used");
    drop(c);

    let stats = s.server_stats();
    assert!(stat(&stats, "stats_error").is_none(), "{stats:?}");
    assert!(stat(&stats, "Rocksdb_rows_inserted").unwrap().parse::<u64>().unwrap() >= 3, "{stats:?}");
    assert!(stat(&stats, "Rocksdb_stall_micros").is_some(), "{stats:?}");
    assert!(stat(&stats, "Rocksdb_compact_write_bytes").is_some(), "{stats:?}");

    s.stop().unwrap();
    assert_stopped(pid, port);
}

fn assert_start_fails(kind: ServerKind, line: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bad");
    let t0 = Instant::now();
    let err = RunningServer::start(&cfg(kind, dir.clone(), &[line])).unwrap_err();
    let msg = err.to_string();
    eprintln!("{err}\n--- with chain:\n{err:#}");
    assert!(!msg.contains('\n'), "not one line: {msg}");
    assert!(msg.starts_with(&format!("{kind} failed to start: ")), "{msg}");
    assert!(msg.contains("nonsense_option"), "{msg}");
    assert!(msg.contains("(log: "), "{msg}");
    let se = err.downcast_ref::<ServerStartError>().expect("ServerStartError");
    assert!(se.log_path.starts_with(&dir));
    assert!(!se.log_tail.is_empty());
    assert!(format!("{err:#}").contains("last "), "{err:#}");
    assert!(t0.elapsed() < Duration::from_secs(30), "failing took {:?}", t0.elapsed());
    assert!(!running_servers().iter().any(|(_, _, d)| d.starts_with(&dir)), "left in the registry");
}

#[test]
fn postgres_bad_config_fails_with_one_line() {
    assert_start_fails(ServerKind::Postgres, "nonsense_option = 1");
}

#[test]
fn mariadb_bad_config_fails_with_one_line() {
    assert_start_fails(ServerKind::MariadbInnodb, "nonsense_option = 1");
}

#[test]
fn managed_settings_are_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let e = RunningServer::start(&cfg(ServerKind::Postgres, tmp.path().join("a"), &["listen_addresses = '*'"]))
        .unwrap_err();
    assert!(e.to_string().contains("rumbench manages"), "{e}");
    let e = RunningServer::start(&cfg(ServerKind::MariadbMyrocks, tmp.path().join("b"), &["bind-address=0.0.0.0"]))
        .unwrap_err();
    assert!(e.to_string().contains("rumbench manages"), "{e}");
}

#[test]
fn drop_stops_postgres_with_long_data_dir() {
    let tmp = tempfile::tempdir().unwrap();
    // Too long for a Unix socket path: the socket goes to a private dir under /tmp.
    let dir = tmp.path().join("x".repeat(60)).join("y".repeat(60));
    let (pid, port, sock) = {
        let s = RunningServer::start(&cfg(ServerKind::Postgres, dir.clone(), &[])).unwrap();
        assert!(!s.socket_path().starts_with(&dir));
        assert!(s.socket_path().exists());
        let mut c = s.connect_postgres().unwrap();
        let one: i32 = c.query_one("SELECT 1", &[]).unwrap().get(0);
        assert_eq!(one, 1);
        (s.pid(), s.port(), s.socket_path().to_path_buf())
    };
    assert_stopped(pid, port);
    assert!(!sock.parent().unwrap().exists(), "socket dir left behind");
}

#[test]
fn drop_stops_mariadb() {
    let tmp = tempfile::tempdir().unwrap();
    let (pid, port) = {
        let s = RunningServer::start(&cfg(ServerKind::MariadbInnodb, tmp.path().join("m"), &[])).unwrap();
        (s.pid(), s.port())
    };
    assert_stopped(pid, port);
}

#[test]
fn drop_on_panic_stops_server() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    let r = std::panic::catch_unwind(|| {
        let s = RunningServer::start(&cfg(ServerKind::Postgres, dir.clone(), &[])).unwrap();
        fs::write(dir.join("pid-for-test"), format!("{} {}", s.pid(), s.port())).unwrap();
        panic!("boom");
    });
    assert!(r.is_err());
    let text = fs::read_to_string(dir.join("pid-for-test")).unwrap();
    let mut it = text.split(' ');
    let pid: u32 = it.next().unwrap().parse().unwrap();
    let port: u16 = it.next().unwrap().parse().unwrap();
    assert_stopped(pid, port);
}

#[test]
fn output_and_data_paths_with_shell_and_config_file_characters() {
    // Each character breaks something if a path is passed through a shell
    // (pg_ctl's, mariadb-install-db's) or into a config file unquoted.
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join(r#"a "q" $x \b 's,#"#);
    let out = cli::rumbench()
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            "postgres,mariadb-innodb",
            "-s",
            "l.i0",
            "--rows",
            "500",
        ])
        .arg("--output-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(out_dir.join("result.json")).unwrap()).unwrap();
    for c in v["configs"].as_array().unwrap() {
        assert_eq!(c["status"], "completed", "{}: {}", c["name"], c["error"]);
        // Its server ran in the data dir under the odd path, with its Unix socket there.
        assert!(c["db_dir"].as_str().unwrap().starts_with(out_dir.to_str().unwrap()), "{}", c["db_dir"]);
        assert!(out_dir.join(format!("{}.server.log", c["name"].as_str().unwrap())).exists());
    }
    assert!(out.status.success(), "{text}");
}
