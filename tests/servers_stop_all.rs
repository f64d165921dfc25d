//! stop_all_servers() stops every server of the process, so its test runs
//! in a process of its own: ignored unless asked for, and scripts/test.sh
//! asks for it alone (`-- servers_stop_all:: --ignored`). It was a test
//! binary of its own, another thin-LTO link of the whole program.

use std::time::Duration;

use rumbench::server::{process_alive, running_servers, stop_all_servers, RunningServer, ServerConfig, ServerKind};

#[test]
#[ignore = "stops every server of its process: scripts/test.sh runs it alone"]
fn stop_all_servers_stops_everything() {
    let tmp = tempfile::tempdir().unwrap();
    let start = |kind: ServerKind, name: &str| {
        let cfg = ServerConfig { kind, data_dir: tmp.path().join(name), config_lines: vec![] };
        RunningServer::start(&cfg).unwrap()
    };
    let pg = start(ServerKind::Postgres, "pg");
    let my = start(ServerKind::MariadbMyrocks, "my");
    let pids = [pg.pid(), my.pid()];
    assert_eq!(running_servers().len(), 2);

    stop_all_servers();
    for p in pids {
        assert!(!process_alive(p), "pid {p} still alive");
    }
    assert!(running_servers().is_empty());
    stop_all_servers(); // idempotent

    // After stop_all_servers() nothing starts any more.
    let cfg = ServerConfig { kind: ServerKind::MariadbInnodb, data_dir: tmp.path().join("late"), config_lines: vec![] };
    let err = RunningServer::start(&cfg).unwrap_err();
    assert!(err.to_string().contains("stop_all_servers"), "{err}");

    // The handles still work and stopping them again is fine.
    pg.stop().unwrap();
    let t = std::time::Instant::now();
    drop(my);
    assert!(t.elapsed() < Duration::from_secs(10));
}
