//! The insert benchmark's lean PostgreSQL client (src/ibench/pgwire.rs)
//! against a real PostgreSQL server: values round-trip in binary, server
//! errors come back as errors and leave the connection usable, and a cancel
//! request stops a running statement. Needs scripts/install-servers.sh.

use std::time::{Duration, Instant};

use rumbench::server::pgwire::{Address, Columns, Params, PgConn, INT4, INT8, INT8_ARRAY, VARCHAR};
use rumbench::server::{RunningServer, ServerConfig, ServerKind, DB_NAME};

fn start(dir: &std::path::Path) -> RunningServer {
    RunningServer::start(&ServerConfig {
        kind: ServerKind::Postgres,
        data_dir: dir.join("pg"),
        config_lines: vec!["shared_buffers = 32MB".into()],
    })
    .unwrap()
}

fn both_addresses(s: &RunningServer) -> [Address; 2] {
    [Address::Unix(s.socket_path().to_path_buf()), Address::Tcp { host: "127.0.0.1".into(), port: s.port() }]
}

#[test]
fn values_round_trip_and_errors_keep_the_connection() {
    let tmp = tempfile::tempdir().unwrap();
    let server = start(tmp.path());
    for (n, addr) in both_addresses(&server).iter().enumerate() {
        let mut c = PgConn::connect(addr, "postgres", DB_NAME, None).unwrap();
        let t = format!("t{n}");
        c.simple_query(&format!(
            "CREATE TABLE {t} (id bigint PRIMARY KEY, a integer NOT NULL, s varchar(40) NOT NULL)"
        ))
        .unwrap();
        c.prepare(
            "ins",
            &format!("INSERT INTO {t} (id, a, s) VALUES ($1, $2, $3), ($4, $5, $6)"),
            &[INT8, INT4, VARCHAR, INT8, INT4, VARCHAR],
        )
        .unwrap();
        let params = |p: &mut Params| {
            p.i64(-5_000_000_000);
            p.i32(i32::MIN);
            p.str("héllo");
            p.i64(7);
            p.i32(42);
            p.str("");
        };
        c.execute("ins", params, &mut |_| panic!("an INSERT returns no rows")).unwrap();

        c.prepare("sel", &format!("SELECT id, a, s FROM {t} WHERE id = ANY($1) ORDER BY id"), &[INT8_ARRAY]).unwrap();
        let mut got = Vec::new();
        let ids = [7i64, -5_000_000_000, 99];
        c.execute("sel", |p| p.i64_array(&ids), &mut |r| {
            let mut col = Columns::new(r);
            got.push((col.i64()?, col.i32()?, col.string()?));
            Ok(())
        })
        .unwrap();
        assert_eq!(got, vec![(-5_000_000_000, i32::MIN, "héllo".to_string()), (7, 42, String::new())]);

        // A duplicate key: the server's message comes back, and the
        // connection still works afterwards.
        let e = c.execute("ins", params, &mut |_| Ok(())).unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("duplicate key") && msg.contains("23505"), "{msg}");
        let e = c.simple_query("SELECT * FROM no_such_table").unwrap_err();
        assert!(format!("{e:#}").contains("42P01"), "{e:#}");
        let mut count = 0;
        c.prepare("cnt", &format!("SELECT count(*) FROM {t}"), &[]).unwrap();
        c.execute("cnt", |_| {}, &mut |r| {
            count = Columns::new(r).i64()?;
            Ok(())
        })
        .unwrap();
        assert_eq!(count, 2);

        // Reading a column as the wrong type is an error, not garbage.
        let e = c
            .execute("sel", |p| p.i64_array(&ids), &mut |r| {
                Columns::new(r).i32()?;
                Ok(())
            })
            .unwrap_err();
        assert!(format!("{e:#}").contains("4-byte"), "{e:#}");
        c.execute("cnt", |_| {}, &mut |_| Ok(())).unwrap();
    }
}

#[test]
fn cancel_stops_a_running_statement() {
    let tmp = tempfile::tempdir().unwrap();
    let server = start(tmp.path());
    let addr = Address::Unix(server.socket_path().to_path_buf());
    let mut c = PgConn::connect(&addr, "postgres", DB_NAME, None).unwrap();
    let key = c.cancel_key();
    let t0 = Instant::now();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        key.cancel().unwrap();
    });
    let e = c.simple_query("SELECT pg_sleep(30)").unwrap_err();
    canceller.join().unwrap();
    assert!(format!("{e:#}").contains("57014"), "{e:#}");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    c.simple_query("SELECT 1").unwrap();
}

#[test]
fn connecting_to_nothing_fails_with_the_address() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join(".s.PGSQL.1");
    let e = PgConn::connect(&Address::Unix(missing), "postgres", DB_NAME, None).err().unwrap();
    assert!(format!("{e:#}").contains(".s.PGSQL.1"), "{e:#}");
}
