//! PostgreSQL: initdb + pg_ctl, run as OS user postgres when we are root.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use postgres::{Client, NoTls};

use super::{
    absolute, as_user, check_loopback_only, check_not_stopping_all, file_tail, is_root, last_nonblank, lookup_user,
    make_ancestors_searchable, pick_free_port, prepare_data_dir, process_alive, registry_add, registry_start_done,
    run_cmd, signal, socket_dir, start_error, tail_of, wait_gone, Backend, DirGuard, Init, RunningServer, ServerConfig,
    ServerKind, StartGuard, StopHow, DB_NAME, LOG_TAIL_LINES, START_TIMEOUT, STOP_TIMEOUT,
};

const PG_ROOT: &str = "/usr/lib/postgresql";
const OS_USER: &str = "postgres";

/// How to stop our postmaster.
pub(super) struct PgProc {
    bin_dir: PathBuf,
    run_as: Option<String>,
}

/// The programs a server's bin dir must hold.
const PROGRAMS: [&str; 3] = ["initdb", "pg_ctl", "postgres"];

/// `/usr/lib/postgresql/<newest version>/bin`, or the directory
/// [`super::SERVER_BIN_DIR_ENV`] names; the error names a missing program.
pub(super) fn find_bin_dir() -> Result<PathBuf> {
    let missing = |bin: &Path| PROGRAMS.into_iter().find(|p| !bin.join(p).is_file());
    if let Some(bin) = super::server_bin_dir() {
        return match missing(&bin) {
            Some(p) => Err(super::not_installed(p, &format!("not in {}={}", super::SERVER_BIN_DIR_ENV, bin.display()))),
            None => Ok(bin),
        };
    }
    let mut best: Option<(Vec<u32>, PathBuf)> = None;
    for ent in fs::read_dir(PG_ROOT).into_iter().flatten().flatten() {
        let name = ent.file_name().to_string_lossy().into_owned();
        let Ok(ver) = name.split('.').map(str::parse::<u32>).collect::<Result<Vec<u32>, _>>() else { continue };
        let bin = ent.path().join("bin");
        if missing(&bin).is_none() && best.as_ref().is_none_or(|(v, _)| ver > *v) {
            best = Some((ver, bin));
        }
    }
    best.map(|(_, b)| b).ok_or_else(|| {
        super::not_installed("initdb", &format!("no {PG_ROOT}/<version>/bin with {}", PROGRAMS.join(", ")))
    })
}

/// First line of `<dir>/postmaster.pid`.
pub(super) fn read_postmaster_pid(dir: &Path) -> Option<u32> {
    fs::read_to_string(dir.join("postmaster.pid")).ok()?.lines().next()?.trim().parse().ok()
}

/// A connection as user postgres over TCP.
pub(super) fn connect(port: u16, db: &str) -> Result<Client> {
    postgres::Config::new()
        .host("127.0.0.1")
        .port(port)
        .user("postgres")
        .dbname(db)
        .connect_timeout(Duration::from_secs(5))
        .connect(NoTls)
        .with_context(|| format!("cannot connect to postgres at 127.0.0.1:{port}/{db}"))
}

/// A string value in postgresql.conf: single quotes doubled, and
/// backslashes too (the config file reads them as escapes: `\b` would be a
/// backspace).
fn pg_quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// One directory as an element of a directory list (unix_socket_directories):
/// double-quoted, embedded double quotes doubled, so that commas and
/// leading or trailing spaces stay part of the path.
fn pg_list_element(dir: &str) -> String {
    format!("\"{}\"", dir.replace('"', "\"\""))
}

pub(super) fn start(cfg: &ServerConfig, bin_dir: Option<&Path>, init: Init) -> Result<RunningServer> {
    let kind = ServerKind::Postgres;
    let bin = match bin_dir {
        Some(b) => absolute(b)?,
        None => find_bin_dir()?,
    };
    let run_as = is_root().then(|| OS_USER.to_string());
    let dir = absolute(&cfg.data_dir)?;
    if init == Init::Fresh {
        prepare_data_dir(&dir)?;
    }
    let owner = match &run_as {
        Some(u) => {
            let ids = lookup_user(u)?;
            if init == Init::Fresh {
                std::os::unix::fs::chown(&dir, Some(ids.0), Some(ids.1))
                    .with_context(|| format!("cannot chown {} to {u}", dir.display()))?;
            }
            make_ancestors_searchable(&dir)?;
            Some(ids)
        }
        None => None,
    };

    let port = pick_free_port()?;
    let sock_name = format!(".s.PGSQL.{port}");
    let (sock_dir, own_sock_dir) = socket_dir(&dir, &sock_name)?;
    let sock_guard = DirGuard(own_sock_dir);
    if let (Some(d), Some((uid, gid))) = (&sock_guard.0, owner) {
        std::os::unix::fs::chown(d, Some(uid), Some(gid))?;
    }

    if init == Init::Fresh {
        initdb(cfg, &bin, run_as.as_deref(), &dir)?;
    }

    // Our settings after the user's fragment (the last one wins); a restart
    // appends them again with its new port and socket.
    let conf = dir.join("postgresql.conf");
    let mut text = String::from("# ---- rumbench: managed settings (loopback only, private socket) ----\n");
    text.push_str(&format!(
        "listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = {}\n",
        pg_quote(&pg_list_element(&sock_dir.to_string_lossy()))
    ));
    fs::OpenOptions::new()
        .append(true)
        .open(&conf)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", conf.display()))?;

    // Start. Registered before pg_ctl runs, so that stop_all_servers() can
    // stop a server that is still starting.
    let log = dir.join("server.log");
    let how = StopHow::PgCtl { bin_dir: bin.clone(), run_as: run_as.clone() };
    let guard = StartGuard::new(registry_add(kind, None, &dir, how), None);
    let t0 = Instant::now();
    // pg_ctl starts the postmaster through /bin/sh with the -D and -l paths
    // in double quotes, which `"`, `$`, `\` or '`' in them break. So the data
    // dir goes in PGDATA (pg_ctl then passes no -D) and the log is named
    // relative to the data dir, pg_ctl's working directory.
    let mut cmd = as_user(run_as.as_deref(), &bin.join("pg_ctl"));
    cmd.env("PGDATA", &dir)
        .current_dir(&dir)
        .arg("-l")
        .arg(log.file_name().expect("a file name"))
        .args(["-w", "-t", &START_TIMEOUT.as_secs().to_string()])
        .arg("-o")
        .arg(format!("-c listen_addresses=127.0.0.1 -c port={port}"))
        .arg("start");
    let fail = |reason: Option<String>, output: &[String]| {
        let mut tail = file_tail(&log, LOG_TAIL_LINES);
        if tail.is_empty() {
            // No log written: pg_ctl's own words are all there is.
            tail = tail_of(output, LOG_TAIL_LINES);
        }
        let reason = meaningful_line(&tail).or(reason).unwrap_or_else(|| "no message".to_string());
        start_error(kind, "start", reason, &log, tail)
    };
    let res = run_cmd(cmd, START_TIMEOUT + Duration::from_secs(15));
    let pid = read_postmaster_pid(&dir);
    registry_start_done(guard.id.expect("armed"), pid);
    match res {
        Ok(o) if o.status.success() => {}
        Ok(o) => return Err(fail(pg_ctl_reason(&o.lines()), &o.lines())),
        Err(e) => return Err(fail(Some(format!("{e:#}")), &[])),
    }
    let pid = pid.ok_or_else(|| fail(Some("postmaster.pid missing after pg_ctl start".into()), &[]))?;
    check_not_stopping_all()?;

    // Wait until it answers over TCP, then create the benchmark database.
    let mut client = loop {
        match connect(port, "postgres") {
            Ok(c) => break c,
            Err(e) if t0.elapsed() >= START_TIMEOUT => {
                return Err(fail(Some(format!("not answering on 127.0.0.1:{port}: {e:#}")), &[]));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    if init == Init::Fresh {
        client
            .batch_execute(&format!("CREATE DATABASE {DB_NAME}"))
            .map_err(|e| fail(Some(format!("CREATE DATABASE {DB_NAME}: {e}")), &[]))?;
    }
    let version: String = client
        .query_one("SELECT version()", &[])
        .map_err(|e| fail(Some(format!("SELECT version(): {e}")), &[]))?
        .get(0);
    let mut provenance = build_provenance(&mut client, &bin, bin_dir.is_some());
    if let Some(cc) = compiler_of(&version) {
        provenance.push(("build.compiler".to_string(), cc));
    }
    drop(client);
    check_loopback_only(kind, port)?;

    let (reg_id, _) = guard.disarm();
    Ok(RunningServer {
        kind,
        data_dir: dir,
        config_lines: cfg.config_lines.clone(),
        port,
        socket_path: sock_dir.join(&sock_name),
        own_socket_dir: sock_guard.take(),
        log_path: log,
        config_path: conf,
        pid,
        version,
        provenance,
        reg_id,
        backend: Backend::Postgres(PgProc { bin_dir: bin, run_as }),
        stopped: false,
    })
}

/// initdb, then the user's config fragment appended to postgresql.conf
/// (initdb's output goes to <dir>/initdb.log afterwards: it needs an empty dir).
fn initdb(cfg: &ServerConfig, bin: &Path, run_as: Option<&str>, dir: &Path) -> Result<()> {
    let kind = ServerKind::Postgres;
    let mut cmd = as_user(run_as, &bin.join("initdb"));
    cmd.arg("-D").arg(dir).args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
    let initdb_log = dir.join("initdb.log");
    let out = run_cmd(cmd, Duration::from_secs(120));
    let out_lines = match &out {
        Ok(o) => o.lines(),
        Err(e) => vec![format!("{e:#}")],
    };
    let _ = fs::create_dir_all(dir).and_then(|_| fs::write(&initdb_log, out_lines.join("\n") + "\n"));
    if !matches!(&out, Ok(o) if o.status.success()) {
        let reason = meaningful_line(&out_lines).unwrap_or_else(|| "initdb failed".to_string());
        return Err(start_error(
            kind,
            "initialize the data dir",
            reason,
            &initdb_log,
            tail_of(&out_lines, LOG_TAIL_LINES),
        ));
    }

    let conf = dir.join("postgresql.conf");
    let mut text = String::from("\n# ---- rumbench: config fragment from the suite (verbatim) ----\n");
    for l in &cfg.config_lines {
        text.push_str(l);
        text.push('\n');
    }
    fs::OpenOptions::new()
        .append(true)
        .open(&conf)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", conf.display()))
}

/// Why `pg_ctl start` failed, in its output: the first line that is not
/// its own refrain ("Examine the log output." points at a log that may not
/// exist, and the caller names the log).
fn pg_ctl_reason(lines: &[String]) -> Option<String> {
    const REFRAIN: [&str; 4] =
        ["waiting for server", "stopped waiting", "could not start server", "Examine the log output"];
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !REFRAIN.iter().any(|r| l.contains(r)))
        .or_else(|| lines.iter().map(|l| l.trim()).rfind(|l| !l.is_empty()))
        .map(str::to_string)
}

/// What ran, beyond `SELECT version()`: the exact `server_version`, where
/// the binaries came from, and the optimisation level of their CFLAGS
/// (the pg_config view; rumbench connects as superuser).
fn build_provenance(client: &mut Client, bin: &Path, other_binaries: bool) -> Vec<(String, String)> {
    let mut p = Vec::new();
    if let Ok(row) = client.query_one("SHOW server_version", &[]) {
        p.push(("server_version".to_string(), row.get::<_, String>(0)));
    }
    let origin = if other_binaries {
        let manifest = bin.parent().map(|d| d.join("rumbench-fetch.json"));
        let package = manifest
            .and_then(|m| fs::read_to_string(m).ok())
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| Some(format!("{}@{}", v.get("package")?.as_str()?, v.get("package_version")?.as_str()?)));
        match package {
            Some(p) => format!("npm {p} ({})", bin.display()),
            None => bin.display().to_string(),
        }
    } else {
        format!("Debian package ({})", bin.display())
    };
    p.push(("server.binaries".to_string(), origin));
    if let Ok(row) = client.query_one("SELECT setting FROM pg_config WHERE name = 'CFLAGS'", &[]) {
        if let Some(o) = optimization_level(&row.get::<_, String>(0)) {
            p.push(("build.optimization".to_string(), o));
        }
    }
    p
}

/// The compiler named in `SELECT version()`: "PostgreSQL 16.4 on x86_64-pc-linux-gnu,
/// compiled by gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0, 64-bit" gives "gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0".
pub(super) fn compiler_of(version: &str) -> Option<String> {
    let rest = version.split_once("compiled by ")?.1;
    let end = rest.rfind(", ").unwrap_or(rest.len());
    Some(rest[..end].trim().to_string()).filter(|s| !s.is_empty())
}

/// The last -O flag of a CFLAGS line ("-O2", "-Os"), as the compiler takes the last.
pub(super) fn optimization_level(cflags: &str) -> Option<String> {
    cflags.split_whitespace().rfind(|f| f.starts_with("-O")).map(str::to_string)
}

impl PgProc {
    /// `pg_ctl -m fast -w stop`; then SIGINT (fast shutdown) and SIGKILL of the tree.
    pub(super) fn stop(&mut self, dir: &Path, pid: u32) -> Result<()> {
        if !process_alive(pid) {
            bail!("postgres (pid {pid}) had already exited");
        }
        let mut cmd = as_user(self.run_as.as_deref(), &self.bin_dir.join("pg_ctl"));
        cmd.arg("-D").arg(dir).args(["-m", "fast", "-w", "-t", &STOP_TIMEOUT.as_secs().to_string(), "stop"]);
        let problem = match run_cmd(cmd, STOP_TIMEOUT + Duration::from_secs(10)) {
            Ok(o) if o.status.success() => {
                if wait_gone(pid, Duration::from_secs(10)) {
                    // Ours to reap (adopted): a zombie holds nothing, but is not left behind.
                    super::process::wait_reaped(pid, Duration::from_secs(1));
                    return Ok(());
                }
                "postmaster still running after pg_ctl stop".to_string()
            }
            Ok(o) => format!("pg_ctl stop failed: {}", last_nonblank(&o.lines()).unwrap_or_default()),
            Err(e) => format!("{e:#}"),
        };
        signal(pid, libc::SIGINT);
        if !wait_gone(pid, Duration::from_secs(10)) {
            super::kill_tree(pid, libc::SIGKILL);
            wait_gone(pid, Duration::from_secs(5));
        }
        if process_alive(pid) {
            bail!("postgres (pid {pid}) could not be stopped: {problem}");
        }
        bail!("postgres did not stop cleanly ({problem}); it was killed")
    }
}

/// The most useful line of a postgres log or tool output: the last
/// FATAL/PANIC/ERROR (for "configuration file ... contains errors", the line
/// naming the bad setting), without the timestamp prefix.
pub(super) fn meaningful_line(lines: &[String]) -> Option<String> {
    const SEVERITIES: [&str; 7] = ["PANIC:", "FATAL:", "ERROR:", "LOG:", "WARNING:", "DETAIL:", "HINT:"];
    let strip = |l: &str| -> String {
        let pos = SEVERITIES.iter().filter_map(|s| l.find(s)).min();
        match pos {
            Some(p) => l[p..].to_string(),
            None => l.trim().to_string(),
        }
    };
    let is_bad =
        |l: &str| ["PANIC:", "FATAL:", "ERROR:"].iter().any(|s| l.contains(s)) || l.starts_with("initdb: error");
    let idx = lines.iter().rposition(|l| is_bad(l))?;
    if lines[idx].contains("contains errors") {
        if let Some(p) = lines[..idx].iter().rposition(|l| l.contains(" in file \"")) {
            let l = strip(&lines[p]);
            return Some(l.strip_prefix("LOG:").map(|r| r.trim_start().to_string()).unwrap_or(l));
        }
    }
    Some(strip(&lines[idx]))
}

/// pg_stat_bgwriter, pg_stat_checkpointer (PG 17+), pg_stat_wal (PG 14+),
/// pg_stat_database for the benchmark's database, and its size.
pub(super) fn stats(endpoint: &super::Endpoint) -> Result<Vec<(String, String)>> {
    let mut c = endpoint.connect_postgres()?;
    let db = endpoint.database.as_str();
    let mut out = Vec::new();
    for view in ["pg_stat_bgwriter", "pg_stat_checkpointer", "pg_stat_wal"] {
        let exists: Option<String> = c.query_one("SELECT to_regclass($1)::text", &[&view])?.get(0);
        if exists.is_none() {
            continue;
        }
        let q = format!("SELECT key, value FROM json_each_text((SELECT row_to_json(s) FROM {view} s))");
        for row in c.query(&q, &[])? {
            let k: String = row.get(0);
            let v: Option<String> = row.get(1);
            out.push((format!("{view}.{k}"), v.unwrap_or_default()));
        }
    }
    let q = "SELECT key, value FROM json_each_text((SELECT row_to_json(s) FROM pg_stat_database s WHERE datname = $1))";
    for row in c.query(q, &[&db])? {
        let k: String = row.get(0);
        let v: Option<String> = row.get(1);
        out.push((format!("pg_stat_database.{k}"), v.unwrap_or_default()));
    }
    let size: i64 = c.query_one("SELECT pg_database_size($1)", &[&db])?.get(0);
    out.push(("database_size_bytes".to_string(), size.to_string()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimization_is_the_last_o_flag() {
        assert_eq!(optimization_level("-Wall -O2 -g -fwrapv").as_deref(), Some("-O2"));
        assert_eq!(optimization_level("-Wall -O2 -Os -DMAP_HUGETLB=0x40000").as_deref(), Some("-Os"));
        assert_eq!(optimization_level("-Wall -g"), None);
        assert_eq!(
            compiler_of(
                "PostgreSQL 16.14 on x86_64-pc-linux-gnu, compiled by gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0, 64-bit"
            )
            .as_deref(),
            Some("gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0")
        );
        assert_eq!(compiler_of("PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit").as_deref(), Some("gcc (Debian 12.2.0-14) 12.2.0"));
        assert_eq!(compiler_of("PostgreSQL 16"), None);
    }

    #[test]
    fn paths_are_quoted_for_the_config_file() {
        // postgresql.conf reads backslash escapes in quoted values; the list
        // splits at commas unless the element is double-quoted.
        assert_eq!(pg_quote(r"/d/a\b's"), r"'/d/a\\b''s'");
        assert_eq!(pg_quote(&pg_list_element(r#"/d/a "q", $x"#)), r#"'"/d/a ""q"", $x"'"#);
        let out: Vec<String> = [
            "waiting for server to start.... stopped waiting",
            "/bin/sh: 1: cannot create /x/server.log: Directory nonexistent",
            "pg_ctl: could not start server",
            "Examine the log output.",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            pg_ctl_reason(&out).as_deref(),
            Some("/bin/sh: 1: cannot create /x/server.log: Directory nonexistent")
        );
        assert_eq!(pg_ctl_reason(&out[2..]).as_deref(), Some("Examine the log output."));
    }

    #[test]
    fn picks_the_bad_setting() {
        let log: Vec<String> = [
            "2026-11-22 00:10:00.000 UTC [42] LOG:  unrecognized configuration parameter \"nonsense_option\" in file \"/d/postgresql.conf\" line 816",
            "2026-11-22 00:10:00.000 UTC [42] FATAL:  configuration file \"/d/postgresql.conf\" contains errors",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            meaningful_line(&log).unwrap(),
            "unrecognized configuration parameter \"nonsense_option\" in file \"/d/postgresql.conf\" line 816"
        );
        assert_eq!(meaningful_line(&["all good".to_string()]), None);
    }
}
