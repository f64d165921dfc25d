//! `--target`: the YCSB and insert-benchmark steps against a PostgreSQL
//! server the user runs, reached with a password (SCRAM-SHA-256). The test
//! starts that server itself (through rumbench's server layer, then switches
//! TCP logins to scram-sha-256 and adds a login role with a password), so
//! rumbench meets it as it would meet anyone's server.

use std::path::Path;
use std::process::{Command, Output};

use rumbench::server::{RunningServer, ServerConfig, ServerKind};
use serde_json::Value;

use crate::common::cli::{self, load, run_into, text};

const PASSWORD: &str = "s3cret-Pw_42";

fn rumbench() -> Command {
    let mut c = cli::rumbench_run();
    // Only what the test gives: no password from the environment.
    c.env_remove("PGPASSWORD").env_remove("RUMBENCH_TARGET_PASSWORD");
    c
}

/// A server with role `bench` (password PASSWORD) owning database benchdb,
/// which already holds the user's table `keepme`; TCP logins need the
/// password (scram-sha-256).
fn password_server(dir: &Path) -> RunningServer {
    // A setting in 8 kB pages, as the server's own configuration gives it.
    let config_lines = vec!["shared_buffers = 48MB".to_string()];
    let s = RunningServer::start(&ServerConfig { kind: ServerKind::Postgres, data_dir: dir.join("pg"), config_lines })
        .unwrap();
    let mut c = s.connect_postgres().unwrap();
    c.batch_execute(&format!(
        "SET password_encryption = 'scram-sha-256'; CREATE ROLE bench LOGIN PASSWORD '{PASSWORD}'"
    ))
    .unwrap();
    c.batch_execute("CREATE DATABASE benchdb OWNER bench").unwrap();
    let hba = "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n";
    std::fs::write(s.data_dir().join("pg_hba.conf"), hba).unwrap();
    c.batch_execute("SELECT pg_reload_conf()").unwrap();
    drop(c);
    let mut b = bench_client(&s);
    b.batch_execute("CREATE TABLE keepme (id int PRIMARY KEY); INSERT INTO keepme VALUES (7)").unwrap();
    s
}

fn bench_client(s: &RunningServer) -> postgres::Client {
    postgres::Config::new()
        .host("127.0.0.1")
        .port(s.port())
        .user("bench")
        .password(PASSWORD)
        .dbname("benchdb")
        .connect(postgres::NoTls)
        .unwrap()
}

fn tables(s: &RunningServer) -> Vec<String> {
    let mut c = bench_client(s);
    c.query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

fn missing_reason<'a>(step: &'a Value, metric: &str) -> Option<&'a str> {
    step["metrics"]["missing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == metric)
        .and_then(|m| m["reason"].as_str())
}

#[test]
fn ycsb_and_insert_benchmark_on_a_password_server() {
    let tmp = tempfile::tempdir().unwrap();
    let server = password_server(tmp.path());
    let port = server.port();
    let url = format!("postgres://bench:{PASSWORD}@127.0.0.1:{port}/benchdb");

    // No TCP login without the password: the test's server really asks for one.
    let mut no_pw = postgres::Config::new();
    no_pw.host("127.0.0.1").port(port).user("bench").dbname("benchdb");
    assert!(no_pw.connect(postgres::NoTls).is_err());

    // A wrong password is bad input: exit 2, one line, nothing written.
    let out_dir = tmp.path().join("wrong");
    let out = run_into(
        rumbench().args([
            "--target",
            &format!("postgres://bench:nope@127.0.0.1:{port}/benchdb"),
            "-s",
            "ycsb-load",
            "--records",
            "100",
        ]),
        &out_dir,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("password authentication failed"), "{}", text(&out));
    assert!(!text(&out).contains("nope"), "the password is printed: {}", text(&out));
    assert!(!out_dir.join("result.json").exists());

    // YCSB, password in the URL.
    let ydir = tmp.path().join("ycsb");
    let out = run_into(
        rumbench().args([
            "--target",
            &url,
            "-s",
            "ycsb-load,ycsb-a,ycsb-e",
            "--records",
            "2000",
            "--ops",
            "3000",
            "-t",
            "2",
        ]),
        &ydir,
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("creates table(s) usertable in postgres://bench@127.0.0.1"), "{}", text(&out));
    let raw = std::fs::read_to_string(ydir.join("result.json")).unwrap();
    assert!(!raw.contains(PASSWORD), "result.json holds the password");
    let v = load(&ydir);
    let c = &v["configs"][0];
    assert_eq!(c["name"], format!("postgres-127.0.0.1-{port}"));
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert_eq!(c["options"]["target"], format!("postgres://bench@127.0.0.1:{port}/benchdb"));
    assert!(c["engine_version"].as_str().unwrap().starts_with("PostgreSQL "), "{}", c["engine_version"]);
    assert!(c["notes"][0].as_str().unwrap().starts_with("created and dropped table(s) usertable"), "{}", c["notes"]);
    for s in c["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "completed", "{}: {}", s["name"], s["error"]);
        // The server's own figures cannot be seen from here: missing with the reason, never 0.
        for metric in ["srv_cpu_us_op", "io", "rss_peak", "db_size", "host_cpu_us_op"] {
            let why =
                missing_reason(s, metric).unwrap_or_else(|| panic!("{} {metric} not reported missing", s["name"]));
            assert!(why.contains("did not start"), "{why}");
        }
        assert!(
            s["metrics"]["srv_cpu_us_op"].is_null()
                && s["metrics"]["io"].is_null()
                && s["metrics"]["rss_peak_bytes"].is_null()
        );
        // Its ceilings: no device's (unknown, and why), the cpu's the client's only.
        let ceilings = &s["ceilings"];
        let resources: Vec<&str> =
            ceilings["ceilings"].as_array().unwrap().iter().map(|x| x["resource"].as_str().unwrap()).collect();
        assert!(resources.iter().all(|r| *r == "cpu"), "{ceilings}");
        let unknown: Vec<&str> = ceilings["unknown"].as_array().unwrap().iter().map(|u| u.as_str().unwrap()).collect();
        assert!(
            unknown.iter().any(|u| u.starts_with("read, write and sync: a server rumbench did not start (--target)")),
            "{unknown:?}"
        );
        if !resources.is_empty() {
            assert!(unknown.iter().any(|u| u.contains("the cpu ceiling is the client's only")), "{unknown:?}");
        }
    }
    assert!(v["device"]["missing"].as_str().unwrap().contains("--target"), "{}", v["device"]);
    let a = &c["steps"][1];
    let types: Vec<&str> = a["ops_by_type"].as_array().unwrap().iter().map(|o| o["op"].as_str().unwrap()).collect();
    assert_eq!(types, ["READ", "UPDATE"]);
    assert_eq!(a["ops"], 3000);
    // Its own table dropped again; the user's untouched.
    assert_eq!(tables(&server), ["keepme"]);

    // The insert benchmark, password from PGPASSWORD.
    let idir = tmp.path().join("ibench");
    let out = run_into(
        rumbench()
            .env("PGPASSWORD", PASSWORD)
            .args(["--target", &format!("postgres://bench@127.0.0.1:{port}/benchdb"), "-s", "l.i0,l.x,l.i1,qr100"])
            .args(["--rows", "3000", "--insert-rows", "600", "--query-seconds", "1", "-t", "2"]),
        &idir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&idir);
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    let names: Vec<&str> = c["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["l.i0", "l.x", "l.i1", "qr100"]);
    // --rows per table, one table per client.
    let rows: Vec<u64> =
        c["steps"][0]["ibench"]["table_rows"].as_array().unwrap().iter().map(|r| r.as_u64().unwrap()).collect();
    assert_eq!(rows, [3000, 3000]);
    // No CHECKPOINT on someone else's server.
    let settle = c["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["notes"].as_array().unwrap())
        .filter_map(|n| n.as_str())
        .find(|n| n.starts_with("settle"));
    if let Some(n) = settle {
        assert!(n.contains("no CHECKPOINT"), "{n}");
    }
    assert!(c["notes"][0].as_str().unwrap().contains("pi1, pi2"), "{}", c["notes"]);
    assert_eq!(tables(&server), ["keepme"]);
    // What is recorded about the server is what it is: its settings as it
    // shows them (not a count of 8 kB pages beside the unit), TCP as the
    // connection made, and no question its role may not ask.
    let effective = c["effective_options"].as_array().unwrap();
    let setting = |name: &str| effective.iter().find(|kv| kv[0] == name).map(|kv| kv[1].as_str().unwrap().to_string());
    assert_eq!(setting("pg_settings.shared_buffers").as_deref(), Some("48MB (configuration file)"), "{effective:?}");
    assert_eq!(c["options"]["connect"], "tcp");
    assert!(c["provenance"].to_string().contains("not readable by this role"), "{}", c["provenance"]);
    let log = std::fs::read_to_string(server.log_path()).unwrap();
    assert!(!log.contains("permission denied for view pg_config"), "the run left errors in the server's log");

    // A table of the name rumbench would create is the user's: refused before anything runs, and kept.
    bench_client(&server).batch_execute("CREATE TABLE usertable (k text)").unwrap();
    let out =
        run_into(rumbench().args(["--target", &url, "-s", "ycsb-load", "--records", "100"]), &tmp.path().join("clash"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("already holds table(s) usertable"), "{}", text(&out));
    assert_eq!(tables(&server), ["keepme", "usertable"]);
    server.stop().unwrap();
}

#[test]
fn ycsb_runs_on_a_table_an_earlier_run_loaded() {
    // YCSB's model, load once and run many, on a server the user runs.
    let tmp = tempfile::tempdir().unwrap();
    let server = password_server(tmp.path());
    let url = format!("postgres://bench:{PASSWORD}@127.0.0.1:{}/benchdb", server.port());
    let out = run_into(
        rumbench().args(["--target", &url, "-s", "ycsb-load", "--records", "1000", "--keep-db"]),
        &tmp.path().join("load"),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(tables(&server), ["keepme", "usertable"]);

    let rdir = tmp.path().join("run");
    let out = run_into(rumbench().args(["--target", &url, "-s", "ycsb-c,ycsb-d", "--ops", "2000", "-t", "2"]), &rdir);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("runs YCSB's workloads on table usertable in postgres://bench@127.0.0.1"),
        "{}",
        text(&out)
    );
    let v = load(&rdir);
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    let notes: Vec<&str> = c["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(notes.iter().any(|n| n.starts_with("YCSB's records loaded before the run: 1000 ")), "{notes:?}");
    // The records the steps ran on, not the --records default.
    for s in c["steps"].as_array().unwrap() {
        assert_eq!(s["parameters"]["records"], 1000, "{}", s["name"]);
        assert_eq!(s["settings"]["ycsb"]["records"], 1000, "{}", s["name"]);
    }
    let mut inserted = 0;
    for s in c["steps"].as_array().unwrap() {
        for o in s["ops_by_type"].as_array().unwrap() {
            assert_eq!(o["outcomes"]["not_found"], 0, "{} {}", s["name"], o["op"]);
            assert_eq!(o["outcomes"]["error"], 0, "{} {}: D's inserts take new numbers", s["name"], o["op"]);
            if o["op"] == "INSERT" {
                inserted = o["ops"].as_u64().unwrap();
            }
        }
    }
    assert!(inserted > 0);
    // Not rumbench's table: kept, with D's inserts after the load's records.
    assert_eq!(tables(&server), ["keepme", "usertable"]);
    let rows: i64 = bench_client(&server).query_one("SELECT count(*) FROM usertable", &[]).unwrap().get(0);
    assert_eq!(rows as u64, 1000 + inserted);

    // Another shape, or no table: refused before anything runs (exit 2, one line), nothing touched.
    let refused = |args: &[&str], msg: &str| {
        let out = run_into(rumbench().args(["--target", &url]).args(args), &tmp.path().join("refused"));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(msg) && text(&out).trim_end().lines().count() == 1, "{args:?}: {}", text(&out));
        assert!(!tmp.path().join("refused").exists());
    };
    refused(&["-s", "ycsb-c", "--field-count", "5"], "is not YCSB's records: its columns are ycsb_key, field0");
    refused(&["-s", "ycsb-c", "--insert-order", "ordered"], "holds no YCSB record 0 (key user0)");
    bench_client(&server).batch_execute("DROP TABLE usertable").unwrap();
    refused(&["-s", "ycsb-c"], "has no table usertable");
    assert_eq!(tables(&server), ["keepme"]);
    server.stop().unwrap();
}

#[test]
fn target_urls_are_checked_before_anything_runs() {
    for (args, msg) in [
        (
            &["--target", "postgres://u:topsecret@127.0.0.1:1/db?sslmode=require", "-s", "ycsb-load"][..],
            "query parameters are not supported",
        ),
        (&["--target", "redis://h", "-s", "ycsb-load"][..], "the scheme must be postgres, mysql or mongodb"),
        (&["--target", "mysql://u@127.0.0.1:1", "-s", "ycsb-load"][..], "name the database"),
        (&["-e", "postgres", "-o", "target=mysql://u@h/d", "-s", "ycsb-load"][..], "cannot use a mysql:// target"),
        (
            &["--target", "postgres://u@127.0.0.1:1/db", "-s", "ycsb-load", "--mode", "io-bound"][..],
            "does not make a server",
        ),
        (&["--target", "postgres://u:topsecret@127.0.0.1:1/db", "-s", "ycsb-load"][..], "cannot connect"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = run_into(rumbench().args(args), &dir.path().join("out"));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let t = text(&out);
        assert!(t.contains(msg), "{args:?}: {t}");
        assert!(!t.contains("topsecret"), "{t}");
        assert_eq!(t.trim().lines().count(), 1, "{t}");
    }
}

#[test]
fn ycsb_on_a_mariadb_server_with_a_password() {
    use mysql::prelude::Queryable;
    let tmp = tempfile::tempdir().unwrap();
    let s = RunningServer::start(&ServerConfig {
        kind: ServerKind::MariadbInnodb,
        data_dir: tmp.path().join("my"),
        config_lines: Vec::new(),
    })
    .unwrap();
    let mut root = s.connect_mysql().unwrap();
    // MariaDB's default for a password: mysql_native_password.
    root.query_drop(format!("CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'")).unwrap();
    root.query_drop("CREATE DATABASE benchdb").unwrap();
    root.query_drop("GRANT ALL ON benchdb.* TO 'bench'@'127.0.0.1'").unwrap();
    root.query_drop("CREATE TABLE benchdb.keepme (id INT PRIMARY KEY)").unwrap();
    let plugin: String = root.query_first("SELECT plugin FROM mysql.user WHERE user = 'bench'").unwrap().unwrap();
    assert_eq!(plugin, "mysql_native_password");

    let dir = tmp.path().join("out");
    let out = run_into(
        rumbench()
            .env_remove("MYSQL_PWD")
            .args(["--target", &format!("mysql://bench:{PASSWORD}@127.0.0.1:{}/benchdb", s.port())])
            .args(["-s", "ycsb-load,ycsb-b", "--records", "1000", "--ops", "2000", "-t", "2"]),
        &dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&dir);
    let c = &v["configs"][0];
    assert_eq!(c["name"], format!("mariadb-innodb-127.0.0.1-{}", s.port()));
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert_eq!(c["steps"][1]["ops"], 2000);
    assert!(missing_reason(&c["steps"][1], "srv_cpu_us_op").unwrap().contains("did not start"));
    let left: Vec<String> = root
        .query("SELECT table_name FROM information_schema.TABLES WHERE table_schema = 'benchdb' ORDER BY 1")
        .unwrap();
    assert_eq!(left, ["keepme"]);
    drop(root);
    s.stop().unwrap();
}

#[test]
fn a_target_reached_through_its_unix_socket() {
    // libpq's form: the socket directory %-encoded as the host. The test's
    // server trusts local logins, so no password is asked for.
    let tmp = tempfile::tempdir().unwrap();
    let server = password_server(tmp.path());
    let socket_dir = server.socket_path().parent().unwrap().to_str().unwrap().replace('/', "%2F");
    let url = format!("postgres://bench@{socket_dir}:{}/benchdb", server.port());
    let out_dir = tmp.path().join("out");
    let out = run_into(
        rumbench().args(["--target", &url, "-s", "ycsb-load,ycsb-c", "--records", "500", "--ops", "500"]),
        &out_dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&out_dir);
    let config = &v["configs"][0];
    assert_eq!(config["status"], "completed", "{}", config["error"]);
    assert_eq!(config["steps"][1]["ops"], 500);
    // Its own table dropped at the end, the user's kept.
    assert_eq!(tables(&server), ["keepme"]);
}

/// What a port that is not a database server does with a connection.
#[derive(Clone, Copy, Debug)]
enum Impostor {
    /// Accepts and says nothing.
    Silent,
    /// Answers with an HTTP response, as a web server answers anything.
    Http,
    /// Sends its banner, as sshd does.
    Ssh,
}

/// A listener on 127.0.0.1 that plays `what` to every connection; its port.
fn impostor(what: Impostor) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Held open: closing them would tell the client something.
        let mut open = Vec::new();
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            use std::io::Write;
            match what {
                Impostor::Silent => {}
                Impostor::Http => {
                    let _ = conn.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nBad Request");
                }
                Impostor::Ssh => {
                    let _ = conn.write_all(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n");
                }
            }
            open.push(conn);
        }
    });
    port
}

/// Runs `cmd` for at most `limit`, killing it then; its output if it ended in time.
fn run_at_most(cmd: &mut Command, limit: std::time::Duration) -> Option<Output> {
    let mut child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Some(child.wait_with_output().unwrap())
}

#[test]
fn a_port_that_is_not_the_server_gives_one_line_within_the_time_outs() {
    let cases = [
        (Impostor::Silent, "no PostgreSQL answer within 10 s", "no MySQL answer within 10 s"),
        (
            Impostor::Http,
            "not a PostgreSQL server: it sent 'HTTP/1.1 400 Bad Request'",
            "not a MySQL server: it sent 'HTTP/1.1 400 Bad Request'",
        ),
        (
            Impostor::Ssh,
            "not a PostgreSQL server: it sent 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3'",
            "not a MySQL server: it sent 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3'",
        ),
    ];
    // All at once: the silent ones each wait out a time-out.
    let runs: Vec<_> = cases
        .into_iter()
        .flat_map(|(what, pg_says, my_says)| {
            let port = impostor(what);
            [("postgres", pg_says), ("mysql", my_says)].map(|(scheme, says)| {
                std::thread::spawn(move || {
                    let dir = tempfile::tempdir().unwrap();
                    let out_dir = dir.path().join("out");
                    let url = format!("{scheme}://bench:topsecret@127.0.0.1:{port}/benchdb");
                    let start = std::time::Instant::now();
                    let out = run_at_most(
                        rumbench()
                            .env_remove("MYSQL_PWD")
                            .args(["--target", &url, "-s", "ycsb-load"])
                            .arg("--output-dir")
                            .arg(&out_dir),
                        std::time::Duration::from_secs(40),
                    );
                    let took = start.elapsed();
                    let case = format!("{what:?} at {scheme}://");
                    let out = out.unwrap_or_else(|| panic!("{case}: still running after {took:?}"));
                    let t = text(&out);
                    assert_eq!(out.status.code(), Some(2), "{case}: {t}");
                    assert!(took < std::time::Duration::from_secs(30), "{case}: took {took:?}");
                    assert_eq!(t.trim().lines().count(), 1, "{case}: {t}");
                    assert!(
                        t.contains(&format!("cannot connect to {scheme}://bench@127.0.0.1:{port}/benchdb: {says}")),
                        "{case}: {t}"
                    );
                    assert!(!t.contains("topsecret"), "{case}: {t}");
                    assert!(!out_dir.exists(), "{case}: {} was created", out_dir.display());
                })
            })
        })
        .collect();
    let failed: Vec<String> = runs
        .into_iter()
        .filter_map(|r| r.join().err())
        .map(|e| e.downcast_ref::<String>().cloned().unwrap_or_default())
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn a_target_run_says_what_it_keeps_and_nothing_about_this_machines_data_disk() {
    // The data dir root on tmpfs: a run whose data is here would be warned
    // that its IO figures mean nothing; a target's data is not here.
    let tmp = tempfile::tempdir().unwrap();
    let server = RunningServer::start(&ServerConfig {
        kind: ServerKind::Postgres,
        data_dir: tmp.path().join("pg"),
        config_lines: Vec::new(),
    })
    .unwrap();
    let url = format!("postgres://postgres@127.0.0.1:{}/rumbench", server.port());
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let out_dir = tmp.path().join("out");
    let out = run_into(
        rumbench()
            .args(["--target", &url, "-s", "ycsb-load", "--records", "300", "--keep-db", "--db-dir"])
            .arg(shm.path().join("db")),
        &out_dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let printed = text(&out);
    let line =
        printed.lines().find(|l| l.contains("creates table(s) usertable")).unwrap_or_else(|| panic!("{printed}"));
    assert!(line.contains("keeps them (--keep-db)") && !line.contains("drops"), "{line}");
    for needle in ["data filesystem", "IO figures", "data dir"] {
        assert!(!printed.contains(needle), "{needle}: {printed}");
    }
    let v = load(&out_dir);
    assert!(
        v["warnings"].as_array().unwrap().iter().all(|w| !w.as_str().unwrap().contains("data")),
        "{}",
        v["warnings"]
    );
    // Kept, as promised.
    let mut c = server.connect_postgres().unwrap();
    assert_eq!(c.query_one("SELECT count(*) FROM usertable", &[]).unwrap().get::<_, i64>(0), 300);
    drop(c);
    server.stop().unwrap();
}
