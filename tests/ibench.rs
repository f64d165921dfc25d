//! The insert benchmark end to end: the real binary against real servers
//! (PostgreSQL, MariaDB with InnoDB and MyRocks, started by rumbench) and
//! RocksDB, at small scale; the table layer's range queries against the same
//! backends; and that no server outlives a run, whatever ends it.
//! Needs scripts/install-servers.sh.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use rumbench::backend::servers::Transport;
use rumbench::engine::{self, EngineOptions, OpenArgs};
use rumbench::server::{RunningServer, ServerConfig, ServerKind};
use rumbench::workload::ibench::kv::KvTable;
use rumbench::workload::ibench::mariadb::MyTable;
use rumbench::workload::ibench::postgres::PgTable;
use rumbench::workload::ibench::table::Table;
use rumbench::workload::ibench::{Index, Row, RowGen};
use serde_json::Value;

use crate::common::cli;

const ALL_STEPS: &str = "l.i0,l.x,l.i1,l.i2,qr100,qp100,qr500,qp500,qr1000,qp1000";

/// `rumbench run --progress off`, its runs recorded in the history of its
/// own (`cli::rumbench`).
fn rumbench() -> Command {
    let mut c = cli::rumbench();
    c.arg("run").arg("--progress").arg("off");
    c
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn step<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["configs"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

fn table_rows(s: &Value) -> Vec<u64> {
    s["ibench"]["table_rows"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

/// Pids of processes whose command line mentions `dir` (a server started
/// under it: the postmaster has -D DIR, mariadbd --datadir=DIR/...).
fn processes_under(dir: &Path) -> Vec<(u32, String)> {
    let needle = dir.to_string_lossy().to_string();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else { continue };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(&needle) && (cmd.contains("postgres") || cmd.contains("mariadbd")) {
            out.push((pid, cmd));
        }
    }
    out
}

fn assert_no_server_under(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut left = processes_under(dir);
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        left = processes_under(dir);
    }
    assert!(left.is_empty(), "server processes left running: {left:?}");
}

/// Every step at small scale, two clients (a table each), deletes on.
fn every_step(engine: &str, config: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = rumbench();
    cmd.args([
        "-e",
        engine,
        "-s",
        ALL_STEPS,
        "--rows",
        "6000",
        "--insert-rows",
        "1500",
        "--query-seconds",
        "2",
        "-t",
        "2",
    ]);
    if !config.is_empty() {
        cmd.args(["-o", &format!("config={config}")]);
    }
    let out = cmd.arg("--output-dir").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{engine}: {}", stderr(&out));
    assert_no_server_under(dir.path());
    let v = load(dir.path());
    assert_eq!(v["status"], "completed");
    let c = &v["configs"][0];
    assert!(c["engine_version"].as_str().is_some_and(|s| !s.is_empty()));
    let server = engine != "rocksdb";
    if server {
        let lines: Vec<&str> = c["server_config"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert_eq!(lines.join(";"), config);
        assert!(dir.path().join(format!("{engine}.server.log")).exists());
    }
    for name in ALL_STEPS.split(',') {
        let s = step(&v, name);
        assert_eq!(s["status"], "completed", "{engine} {name}: {}", s["error"]);
        assert!(s["ops"].as_u64().unwrap() > 0, "{engine} {name}");
        // Two tables, each back at 6000 rows after every step: deletes keep the size constant.
        assert_eq!(table_rows(s), [6000, 6000], "{engine} {name}");
        assert_eq!(s["ibench"]["expected_rows"], 12000, "{engine} {name}");
        assert!(
            s["warnings"].as_array().unwrap().iter().all(|w| !w.as_str().unwrap().contains("rows,")),
            "{engine} {name}"
        );
        let m = &s["metrics"];
        // A number, or missing because the client used less CPU than /proc's tick.
        assert!(
            m["client_cpu_us_op"].as_f64().is_some()
                || m["missing"].as_array().unwrap().iter().any(|x| x["metric"] == "client_cpu_us_op"
                    && x["reason"].as_str().unwrap().starts_with("below resolution")),
            "{engine} {name}: {}",
            m["missing"]
        );
        let below = |metric: &str| {
            m["missing"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["metric"] == metric && x["reason"].as_str().unwrap().starts_with("below resolution"))
        };
        assert_eq!(m["srv_cpu_us_op"].as_f64().is_some() || below("srv_cpu_us_op"), server, "{engine} {name}");
        assert!(m["db_size_bytes"].as_u64().unwrap() > 0);
        assert!(m["rss_peak_bytes"].as_u64().unwrap() > 0);
        assert!(!s["engine_stats"].as_array().unwrap().is_empty());
    }
    let li0 = step(&v, "l.i0");
    assert_eq!(li0["ops"], 12000);
    if server {
        // The server's own count of its log syncs; every config here skips
        // the sync at commit, so the run is not durable and says so.
        let sy = &li0["metrics"]["syncs"];
        assert!(sy["server_counter"].as_str().is_some_and(|c| !c.is_empty()), "{engine}: {sy}");
        assert_eq!(sy["commits"], 120, "{engine}: {sy}");
        if engine == "mariadb-innodb" {
            // InnoDB's counter includes data-file fsyncs: it can only ever
            // prove "not durable"; a tiny step with page flushing proves nothing.
            assert_ne!(sy["durable_as_run"], true, "{engine}: {sy}");
        } else {
            assert_eq!(sy["durable_as_run"], false, "{engine}: {sy}");
        }
    }
    assert_eq!(li0["ibench"]["rows_per_commit"], 100);
    let li1 = step(&v, "l.i1");
    assert_eq!(li1["ibench"]["rows_inserted"], 3000);
    assert_eq!(li1["ibench"]["rows_deleted"], 3000);
    assert_eq!(li1["ops_by_type"][1]["op"], "delete");
    let li2 = step(&v, "l.i2");
    assert_eq!(li2["ibench"]["rows_per_commit"], 5);
    assert!(li2["ibench"]["settle_s"].as_f64().unwrap() > 0.0);
    assert!(li2["ops_by_type"].as_array().unwrap().iter().any(|o| o["op"] == "settle"));
    assert_eq!(step(&v, "l.x")["ibench"]["indexed"], true);
    for (name, rate) in
        [("qr100", 100.0), ("qp100", 100.0), ("qr500", 500.0), ("qp500", 500.0), ("qr1000", 1000.0), ("qp1000", 1000.0)]
    {
        let s = step(&v, name);
        let queries = s["ibench"]["queries"].as_u64().unwrap();
        let returned = s["ibench"]["rows_returned"].as_u64().unwrap();
        assert_eq!(s["ops"].as_u64().unwrap(), queries);
        // 10 rows each, but for a range starting near the top of the leading
        // column's values, or point queries that hit a row deleted meanwhile.
        assert!(
            returned > 9 * queries && returned <= 10 * queries,
            "{engine} {name}: {returned} rows for {queries} queries"
        );
        let w = &s["writer"];
        assert_eq!(w["target_ops_s"].as_f64().unwrap(), 2.0 * rate);
        assert!(w["achieved_ops_s"].as_f64().unwrap() > 0.5 * rate, "{engine} {name}: {w}");
        assert_eq!(w["missed_target"].as_bool().unwrap(), w["achieved_ops_s"].as_f64().unwrap() < 0.95 * 2.0 * rate);
        assert_eq!(w["deletes"]["op"], "delete");
        assert_eq!(s["ibench"]["rows_inserted"], s["ibench"]["rows_deleted"], "{engine} {name}");
        assert!(s["rates"]["p50"].as_f64().unwrap() > 0.0, "{engine} {name}");
    }
    let csv = std::fs::read_to_string(dir.path().join("intervals.csv")).unwrap();
    for needle in [
        ",l.i0,client,insert,1,",
        ",l.i1,client,delete,1,",
        ",qr100,client,query,1,",
        ",qp500,writer,insert,1,",
        ",qp500,writer,delete,1,",
    ] {
        assert!(csv.contains(needle), "{engine}: {needle} missing from intervals.csv");
    }
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(summary.contains("srv us/op") && summary.contains("rate p99") && summary.contains("qp1000"), "{summary}");
    assert!(!dir.path().join("db").exists(), "data dir left behind");
}

#[test]
fn postgres_runs_every_step() {
    every_step("postgres", "shared_buffers = 64MB;synchronous_commit = off");
}

#[test]
fn postgres_syncing_at_commit_is_durable_as_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "postgres", "-s", "l.i0", "--rows", "3000", "-t", "2", "-o", "config=synchronous_commit = on"])
        .arg("--output-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(dir.path());
    let sy = &step(&v, "l.i0")["metrics"]["syncs"];
    assert_eq!(sy["server_counter"], "pg_stat_wal.wal_sync", "{sy}");
    assert_eq!(sy["commits"], 60, "{sy}");
    // One WAL sync per commit, less what group commit merged (2 clients).
    assert!(sy["server_syncs"].as_u64().unwrap() >= 30, "{sy}");
    assert_eq!(sy["durable_as_run"], true, "{sy}");
}

#[test]
fn mariadb_innodb_runs_every_step() {
    every_step("mariadb-innodb", "innodb_buffer_pool_size = 64M;innodb_flush_log_at_trx_commit = 2");
}

#[test]
fn mariadb_myrocks_runs_every_step() {
    every_step("mariadb-myrocks", "rocksdb_block_cache_size = 64M;rocksdb_flush_log_at_trx_commit = 2");
}

#[test]
fn rocksdb_runs_every_step() {
    every_step("rocksdb", "");
}

#[test]
fn without_deletes_the_tables_grow_and_one_table_is_shared() {
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args([
            "-e",
            "rocksdb",
            "-s",
            "l.i0,l.x,l.i1,qp100",
            "--rows",
            "3000",
            "--insert-rows",
            "700",
            "--deletes",
            "false",
        ])
        .args(["--query-seconds", "1", "-t", "2", "--one-table", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(dir.path());
    assert_eq!(table_rows(step(&v, "l.i0")), [6000]);
    assert_eq!(table_rows(step(&v, "l.i1")), [7400]);
    assert_eq!(step(&v, "l.i1")["ibench"]["rows_deleted"], 0);
    let qp = step(&v, "qp100");
    let written = qp["ibench"]["rows_inserted"].as_u64().unwrap();
    assert!(written > 0);
    assert_eq!(table_rows(qp), [7400 + written]);
}

/// Tables of each backend: range queries come back in index order, from
/// the start value on; point queries find the ids; tail deletes remove rows.
fn check_table(table: &dyn Table) {
    let g = RowGen::new(5);
    table.create_tables(2).unwrap();
    let mut s = table.session().unwrap();
    let mut rows = Vec::new();
    for first in (1..=3000u64).step_by(100) {
        g.fill_range(1, first..first + 100, &mut rows);
        s.insert_rows(1, &rows, None).unwrap();
    }
    s.create_secondary_indexes(1).unwrap();
    // Deletes from the tail in the same commit as an insert.
    g.fill_range(1, 3001..3051, &mut rows);
    assert_eq!(s.insert_rows(1, &rows, Some(1..51)).unwrap(), 50);
    assert_eq!(s.row_count(1).unwrap(), 3000);
    assert_eq!(s.row_count(0).unwrap(), 0);
    let mut out: Vec<Row> = Vec::new();
    for ix in Index::ALL {
        for start in [0, 1, 7, ix.leading_domain() as i32 / 3, ix.leading_domain() as i32 / 2] {
            s.range_query(1, ix, start, 10, &mut out).unwrap();
            assert_eq!(out.len(), 10, "{ix:?} from {start}");
            let keys: Vec<(i64, i64, i64)> = out.iter().map(|r| r.index_key(ix)).collect();
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{ix:?} from {start}: not in index order: {keys:?}");
            assert!(keys[0].0 >= start as i64, "{ix:?} from {start}: {keys:?}");
            for r in &out {
                assert!(r.id > 50 && r.id <= 3050, "deleted or unknown row {r:?}");
                assert_eq!(*r, g.row(1, r.id), "row read back differs");
            }
        }
        // Past the largest value: nothing.
        s.range_query(1, ix, ix.leading_domain() as i32, 10, &mut out).unwrap();
        assert!(out.is_empty());
    }
    s.point_query(1, &[5, 60, 61, 3050, 4000], &mut out).unwrap();
    let mut ids: Vec<u64> = out.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, [60, 61, 3050]);
    let notes = table.settle(2, Duration::from_secs(60), &|| false).unwrap();
    assert!(!notes.is_empty());
}

#[test]
fn table_layer_keeps_index_order_on_every_backend() {
    let tmp = tempfile::tempdir().unwrap();
    // MongoDB is reached by URL only (tests/mongodb.rs).
    for kind in ServerKind::ALL.into_iter().filter(|k| k.can_start()) {
        let cfg = ServerConfig { kind, data_dir: tmp.path().join(kind.name()), config_lines: vec![] };
        let server = RunningServer::start(&cfg).unwrap();
        // One backend over TCP, the others through the Unix socket.
        let transport = if kind == ServerKind::MariadbInnodb { Transport::Tcp } else { Transport::Unix };
        let endpoint = server.endpoint(transport == Transport::Unix);
        let table: Box<dyn Table> = match kind {
            ServerKind::Postgres => Box::new(PgTable::new(endpoint, Some(&server), transport).unwrap()),
            _ => Box::new(MyTable::new(endpoint, Some(&server), transport).unwrap()),
        };
        check_table(table.as_ref());
        drop(table);
        server.stop().unwrap();
    }
    for name in ["rocksdb", "lmdb", "sqlite"] {
        let spec = rumbench::backend::find(name).unwrap();
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let options = engine::resolve_options(spec, &[]).unwrap();
        let args = OpenArgs {
            dir,
            options: EngineOptions(options.0),
            key_size: 16,
            value_size: 40,
            num_keys: 1,
            threads: 2,
            space_needed: Some(1 << 20),
            create: true,
            read_only: false,
        };
        let e = (spec.open)(&args).unwrap();
        check_table(&KvTable::new(e, name, RowGen::new(5)));
    }
    assert_no_server_under(tmp.path());
}

#[test]
fn a_failed_step_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    // l.i1 fails (an injected error) with the server running.
    let out = rumbench()
        .env("RUMBENCH_IBENCH_FAULT", "error@l.i1")
        .args(["-e", "postgres", "-s", "l.i0,l.i1,qp100", "--rows", "2000", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("fault injected by RUMBENCH_IBENCH_FAULT in l.i1"), "{}", stderr(&out));
    assert_no_server_under(dir.path());
    let v = load(dir.path());
    assert_eq!(v["status"], "failed");
    assert_eq!(step(&v, "l.i0")["status"], "completed");
    assert_eq!(v["configs"][0]["steps"].as_array().unwrap().len(), 2);
}

#[test]
fn a_client_panic_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .env("RUMBENCH_IBENCH_FAULT", "panic@l.i1")
        .args(["-e", "mariadb-innodb", "-s", "l.i0,l.x,l.i1,qr100", "--rows", "2000", "-t", "2", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert_no_server_under(dir.path());
    let v = load(dir.path());
    assert_eq!(step(&v, "l.i1")["status"], "failed");
}

#[test]
fn ctrl_c_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let child = rumbench()
        .args([
            "-e",
            "mariadb-myrocks",
            "-s",
            "l.i0,l.x,qp100",
            "--rows",
            "2000",
            "--query-seconds",
            "60",
            "--output-dir",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until qp100 runs (its server is up and l.i0, l.x are done).
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let text = std::fs::read_to_string(dir.path().join("result.json")).unwrap_or_default();
        if text.contains("\"name\": \"l.x\"") {
            break;
        }
        assert!(Instant::now() < deadline, "l.x did not finish in time");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(1));
    assert!(!processes_under(dir.path()).is_empty(), "the server should be running");
    let t = Instant::now();
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(t.elapsed() < Duration::from_secs(40), "stopping took {:?}", t.elapsed());
    assert_no_server_under(dir.path());
    let v = load(dir.path());
    assert_eq!(v["status"], "interrupted");
    assert_eq!(step(&v, "qp100")["status"], "interrupted");
}

#[test]
fn a_killed_config_process_does_not_leave_its_server_running() {
    let dir = tempfile::tempdir().unwrap();
    let child = rumbench()
        .args(["-e", "postgres", "-s", "l.i0,l.x", "--rows", "3000000", "--output-dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The config process, once its server is up: kill it (no destructor, no handler runs).
    let task = dir.path().join(".rumbench-task.json").to_string_lossy().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    let config_pid = loop {
        // The postmaster writes its pid file once it runs (initdb's bootstrap does not).
        let up = dir.path().join("db/postgres/server/postmaster.pid").exists();
        let pid = std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
            let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
            let cmd = String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).ok()?).replace('\0', " ");
            (cmd.contains("internal-run-config") && cmd.contains(&task)).then_some(pid)
        });
        if let (true, Some(pid)) = (up, pid) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the server did not come up");
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_millis(1500));
    assert!(!processes_under(dir.path()).is_empty());
    // SAFETY: signals the config process this test found under its own run.
    unsafe { libc::kill(config_pid, libc::SIGKILL) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("killed by signal 9"), "{}", stderr(&out));
    assert!(stderr(&out).contains("left running"), "{}", stderr(&out));
    assert_no_server_under(dir.path());
}

#[test]
fn a_server_that_does_not_start_gives_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "postgres", "-s", "l.i0", "--rows", "100", "-o", "config=nonsense_option = 1", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let line = stderr(&out).lines().rfind(|l| l.starts_with("rumbench: error:")).unwrap_or_default().to_string();
    assert!(line.contains("postgres failed to start: ") && line.contains("nonsense_option"), "{line}");
    assert!(line.contains(&format!("(log: {}", dir.path().join("postgres.server.log").display())), "{line}");
    assert!(dir.path().join("postgres.server.log").exists());
    assert_no_server_under(dir.path());
}

#[test]
fn plans_that_cannot_work_are_refused_in_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-e", "postgres", "-s", "fillseq"],
            "step fillseq needs key-value access, which postgres does not offer (it offers tables",
        ),
        (&["-e", "rocksdb", "-s", "l.i0,fillseq"], "cannot be mixed in one run"),
        (&["-e", "rocksdb", "-s", "ycsb-load,fillseq"], "cannot be mixed in one run"),
        (&["-e", "null", "-s", "l.i0"], "step l.i0 needs tables or documents, which null does not offer"),
        (&["-e", "rocksdb", "-s", "ycsb-a"], "put ycsb-load before it"),
        (
            &["-e", "rocksdb", "-s", "l.i0,l.x,qr100", "--seconds", "5"],
            "--seconds does not apply to insert-benchmark steps",
        ),
        (&["-e", "postgres", "-s", "l.i0,qr100"], "step qr100 queries the secondary indexes: run l.x before it"),
        (&["-e", "rocksdb", "-o", "config=x=1", "-s", "l.i0"], "unknown option 'config' for engine rocksdb"),
    ];
    for (args, expected) in cases {
        let out = rumbench().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?}: {}", stderr(&out));
    }
    let out = cli::rumbench().arg("engines").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["postgres - ", "mariadb-innodb - ", "mariadb-myrocks - ", "config"] {
        assert!(text.contains(needle), "{needle} missing from engines:\n{text}");
    }
    let out = cli::rumbench().arg("steps").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for s in ALL_STEPS.split(',') {
        assert!(text.contains(s), "{s} missing from steps");
    }
}

#[test]
fn metrics_off_and_io_bound_mode_hold_for_the_insert_benchmark() {
    // --metrics off: no efficiency figures, and the reason.
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "rocksdb", "-s", "l.i0", "--rows", "2000", "--metrics", "off"])
        .arg("--output-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(dir.path());
    let m = &step(&v, "l.i0")["metrics"];
    assert!(m["missing"].to_string().contains("--metrics off"), "{m}");
    assert!(m["cpu"].is_null(), "{m}");
    // io-bound mode: the page cache is dropped before a query step (or it
    // says why it could not be).
    let dir = tempfile::tempdir().unwrap();
    let out = rumbench()
        .args(["-e", "rocksdb", "-s", "l.i0,qp100", "--rows", "2000", "--query-seconds", "1", "--mode", "io-bound"])
        .arg("--output-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(dir.path());
    let q = step(&v, "qp100");
    let said = format!("{} {}", q["notes"], q["warnings"]);
    assert!(said.contains("page cache dropped") || said.contains("io-bound mode: "), "{said}");
    assert!(!step(&v, "l.i0")["notes"].to_string().contains("page cache dropped"), "a load step starts as it is");
}
