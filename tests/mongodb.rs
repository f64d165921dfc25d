//! `--target mongodb://...`: YCSB, hot documents and the insert benchmark
//! against a MongoDB wire-protocol server the test starts on loopback:
//! FerretDB 1.24.2 (SQLite files in a temporary directory), as
//! scripts/install-ferretdb.sh --with-cli builds it (RUMBENCH_FERRETDB names
//! the embedding program; FerretDB's own command, for SCRAM, lies beside it).
//! Its speed and durability say nothing about MongoDB's: these tests check
//! the plumbing, single-thread correctness, refusals and what is recorded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use ::mongodb::bson::{doc, Document};
use serde_json::Value;

use crate::common::cli::{self, load, run_into, text};

const PASSWORD: &str = "Fe7ret-pw_93";

/// Where scripts/install-ferretdb.sh put the binaries.
fn ferretdb_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("RUMBENCH_FERRETDB") {
        return PathBuf::from(p).parent().unwrap().to_path_buf();
    }
    let cache = std::env::var_os("RUMBENCH_CACHE_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let xdg = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from);
        xdg.unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache")).join("rumbench")
    });
    cache.join("ferretdb-1.24.2")
}

fn ferretdb_program(name: &str) -> PathBuf {
    let p = ferretdb_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: run scripts/install-ferretdb.sh --with-cli (or set RUMBENCH_FERRETDB)",
        p.display()
    );
    p
}

/// A FerretDB process on 127.0.0.1, killed when dropped (also by tests/dead_server.rs).
pub(crate) struct Ferret {
    pub(crate) child: Child,
    /// mongodb://127.0.0.1:PORT (no path, no credentials).
    pub(crate) base: String,
}

impl Drop for Ferret {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Ferret {
    /// The embedding program, no authentication, on a port the OS picks:
    /// it prints "listening mongodb://127.0.0.1:PORT/" once bound.
    pub(crate) fn open(dir: &Path) -> Ferret {
        Ferret::embedded(dir, &["--listen-addr", "127.0.0.1:0"])
    }

    /// TLS only, with this certificate and key.
    fn open_tls(dir: &Path, cert: &Path, key: &Path) -> Ferret {
        let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
        Ferret::embedded(
            dir,
            &[
                "--listen-addr",
                "",
                "--listen-tls",
                "127.0.0.1:0",
                "--listen-tls-cert-file",
                cert,
                "--listen-tls-key-file",
                key,
            ],
        )
    }

    fn embedded(dir: &Path, listen: &[&str]) -> Ferret {
        let mut child = Command::new(ferretdb_program("rumbench-ferretdb"))
            .args(listen)
            .args(["--log-level", "error", "--sqlite-dir"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening ").unwrap_or_else(|| panic!("FerretDB said {line:?}"));
        // "mongodb://127.0.0.1:PORT/" or, for TLS, ".../?tls=true": the scheme and address.
        let base = url.split("/?").next().unwrap().trim_end_matches('/').to_string();
        Ferret { child, base }
    }

    /// FerretDB's own command with SCRAM authentication and user `bench`
    /// (PASSWORD) in admin; it cannot report a port it picked, so a free one is taken first.
    fn with_scram(dir: &Path) -> Ferret {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let child = Command::new(ferretdb_program("ferretdb"))
            .arg("--handler=sqlite")
            .arg(format!("--sqlite-url=file:{}/", dir.join("data").display()))
            .arg(format!("--listen-addr=127.0.0.1:{port}"))
            .args(["--debug-addr=-", "--telemetry=disable", "--log-level=error", "--test-enable-new-auth"])
            .arg(format!("--state-dir={}", dir.display()))
            .args(["--setup-database=admin", "--setup-username=bench"])
            .arg(format!("--setup-password={PASSWORD}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let f = Ferret { child, base: format!("mongodb://127.0.0.1:{port}") };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "FerretDB did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        f
    }

    pub(crate) fn client(&self, credentials: &str) -> ::mongodb::sync::Client {
        ::mongodb::sync::Client::with_uri_str(format!(
            "mongodb://{credentials}{}/?serverSelectionTimeoutMS=5000",
            self.base.trim_start_matches("mongodb://")
        ))
        .unwrap()
    }
}

fn rumbench(history: Option<&Path>) -> Command {
    let mut c = cli::rumbench();
    c.args(["run", "--progress", "off"]);
    match history {
        Some(h) => c.arg("--history").arg(h),
        None => c.arg("--no-history"),
    };
    c.env_remove("RUMBENCH_TARGET_PASSWORD");
    c
}

fn step<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["configs"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

fn stat<'a>(config: &'a Value, name: &str) -> &'a str {
    let stats = config["engine_stats"].as_array().unwrap_or_else(|| panic!("engine_stats: {}", config["engine_stats"]));
    stats.iter().find(|p| p[0] == name).and_then(|p| p[1].as_str()).unwrap_or_else(|| panic!("no {name} in {stats:?}"))
}

/// Refused in one line with exit 2, before anything was written.
fn assert_refused(out: &Output, dir: &Path, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", text(out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    assert_eq!(err.trim().lines().count(), 1, "not one line: {err}");
    assert!(!dir.join("result.json").exists());
}

/// A port that answers every connection with `reply` (None: says nothing).
fn fake_server(reply: Option<&'static [u8]>) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in l.incoming().flatten() {
            let mut s = s;
            if let Some(r) = reply {
                let _ = s.write_all(r);
                let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
                let _ = s.read(&mut [0u8; 256]);
            } else {
                held.push(s);
            }
        }
    });
    port
}

#[test]
fn bad_targets_and_steps_are_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = |args: &[&str]| run_into(rumbench(None).args(args), &tmp.path().join("out"));
    let closed = "mongodb://127.0.0.1:1/bench";
    assert_refused(&out(&["-e", "mongodb", "-s", "ycsb-load"]), tmp.path(), "rumbench does not start MongoDB");
    assert_refused(&out(&["--target", "mongodb://h/bench?w=majority", "-s", "ycsb-load"]), tmp.path(), "-o w=");
    assert_refused(
        &out(&["--target", "mongodb+srv://u:topsecret@c.example/bench", "-s", "ycsb-load"]),
        tmp.path(),
        "list the hosts",
    );
    assert!(!text(&out(&["--target", "mongodb+srv://u:topsecret@c.example/bench"])).contains("topsecret"));
    assert_refused(&out(&["--target", "mongodb://127.0.0.1:1", "-s", "ycsb-load"]), tmp.path(), "name the database");
    assert_refused(&out(&["--target", closed, "-s", "fillseq"]), tmp.path(), "key-value access");
    assert_refused(&out(&["--target", closed, "-s", "randomtransaction"]), tmp.path(), "needs transactions");
    assert_refused(&out(&["--target", closed, "-o", "w=0", "-s", "ycsb-load"]), tmp.path(), "unacknowledged");
    // A port that speaks another protocol, or nothing: named, within the URL's time-out.
    let http = fake_server(Some(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"));
    let url = format!("mongodb://127.0.0.1:{http}/bench?serverSelectionTimeoutMS=1500");
    assert_refused(
        &out(&["--target", &url, "-s", "ycsb-load"]),
        tmp.path(),
        "not a MongoDB server: it sent 'HTTP/1.1 400 Bad Request'",
    );
    let silent = fake_server(None);
    let url = format!("mongodb://127.0.0.1:{silent}/bench?serverSelectionTimeoutMS=1500&connectTimeoutMS=1000");
    assert_refused(&out(&["--target", &url, "-s", "ycsb-load"]), tmp.path(), "no MongoDB answer within");
    let url = "mongodb://127.0.0.1:1/bench?serverSelectionTimeoutMS=1000";
    assert_refused(&out(&["--target", url, "-s", "ycsb-load"]), tmp.path(), "Connection refused");
}

/// Every file under `dir` (recursively), as bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

fn collections(client: &::mongodb::sync::Client, db: &str) -> Vec<String> {
    let mut names = client.database(db).list_collection_names().run().unwrap();
    names.sort();
    names
}

#[test]
fn ycsb_with_scram_the_write_concern_and_the_servers_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let ferret = Ferret::with_scram(&tmp.path().join("ferret"));
    let admin = ferret.client(&format!("bench:{PASSWORD}@"));
    admin.database("bench").collection::<Document>("keepme").insert_one(doc! {"_id": 7}).run().unwrap();
    admin.database("clash").collection::<Document>("usertable").insert_one(doc! {"_id": "theirs"}).run().unwrap();
    let host = ferret.base.trim_start_matches("mongodb://").to_string();
    let url =
        |pw: &str, db: &str| format!("mongodb://bench:{pw}@{host}/{db}?authSource=admin&serverSelectionTimeoutMS=5000");

    // A wrong password, a database that holds a collection rumbench would create: refused, nothing written.
    let out = run_into(
        rumbench(None).args(["--target", &url("nope-Pw", "bench"), "-s", "ycsb-load", "--records", "10"]),
        &tmp.path().join("wrong"),
    );
    assert_refused(&out, &tmp.path().join("wrong"), "Authentication failed");
    assert!(!text(&out).contains("nope-Pw"), "{}", text(&out));
    let out = run_into(
        rumbench(None).args(["--target", &url(PASSWORD, "clash"), "-s", "ycsb-load", "--records", "10"]),
        &tmp.path().join("clash"),
    );
    assert_refused(&out, &tmp.path().join("clash"), "already holds collection(s) usertable");

    // YCSB's load and A-F, one client: every operation finds its record.
    let run_dir = tmp.path().join("ycsb");
    let history = tmp.path().join("history.sqlite");
    let steps = "ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f";
    let out = run_into(
        rumbench(Some(&history)).args([
            "--target",
            &url(PASSWORD, "bench"),
            "-s",
            steps,
            "--records",
            "300",
            "--ops",
            "150",
            "-t",
            "1",
            "--max-scan-length",
            "10",
        ]),
        &run_dir,
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out)
            .contains(&format!("creates collection(s) usertable in mongodb://bench@{host}/bench?authSource=admin")),
        "{}",
        text(&out)
    );
    let v = load(&run_dir);
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert_eq!(c["engine"], "mongodb");
    assert_eq!(
        c["options"]["target"],
        format!("mongodb://bench@{host}/bench?authSource=admin&serverSelectionTimeoutMS=5000")
    );
    // The server as what it is: FerretDB reports itself in buildInfo.
    assert_eq!(c["engine_version"], "FerretDB v1.24.2 (MongoDB wire protocol; reports version 7.0.42)");
    for s in c["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "completed", "{}: {}", s["name"], s["error"]);
        for op in s["ops_by_type"].as_array().unwrap() {
            assert_eq!(op["outcomes"]["not_found"].as_u64().unwrap_or(0), 0, "{}: {op}", s["name"]);
        }
    }
    assert_eq!(step(&v, "ycsb-load")["ops"], 300);
    assert_eq!(step(&v, "ycsb-e")["ops"], 150);
    assert!(step(&v, "ycsb-e")["ops_by_type"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["op"] == "SCAN" && o["ops"].as_u64().unwrap() > 100));
    // Writes with the default write concern (j: false) are ND, with the reason; reads are not judged.
    let syncs = &step(&v, "ycsb-load")["metrics"]["syncs"];
    assert_eq!(syncs["durable_as_run"], false, "{syncs}");
    assert!(syncs["not_durable_reason"].as_str().unwrap().contains("{w: 1, j: false, wtimeout: 0}"), "{syncs}");
    assert!(step(&v, "ycsb-c")["metrics"]["syncs"].is_null());
    // The server's own figures: what FerretDB does not report is missing with the reason, never 0.
    assert_eq!(stat(c, "serverStatus.opcounters.insert"), "missing: FerretDB's serverStatus has no opcounters");
    assert_eq!(stat(c, "serverStatus.cache.bytes_read_into"), "missing: FerretDB's serverStatus has no wiredTiger");
    assert!(stat(c, "dbStats.dataSize").parse::<u64>().unwrap() > 0);
    let load_step = step(&v, "ycsb-load");
    let usertable =
        load_step["engine_stats"].as_array().unwrap().iter().find(|p| p[0] == "collStats.usertable.count").unwrap();
    assert_eq!(usertable[1], "300");
    // Space amplification from the server's own sizes (collStats), not from a data dir this machine cannot see.
    let m = &load_step["metrics"];
    assert!(m["space_amp"].as_f64().unwrap() > 0.0 && m["db_size_bytes"].as_u64().unwrap() > 0, "{m}");
    assert!(
        load_step["notes"].to_string().contains("collStats storageSize + totalIndexSize of usertable"),
        "{}",
        load_step["notes"]
    );
    // Only rumbench's collection was made and dropped; the password is in no file.
    assert!(
        c["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("created and dropped collection(s) usertable")),
        "{}",
        c["notes"]
    );
    assert_eq!(collections(&admin, "bench"), ["keepme"]);
    for (path, bytes) in files(&run_dir).into_iter().chain([(history.clone(), std::fs::read(&history).unwrap())]) {
        assert!(
            !bytes.windows(PASSWORD.len()).any(|w| w == PASSWORD.as_bytes()),
            "{} holds the password",
            path.display()
        );
    }

    // Journaled acknowledgements: not ND; FerretDB counts no journal syncs, so durability is not judged either.
    let jdir = tmp.path().join("journaled");
    let out = run_into(
        rumbench(None).args([
            "--target",
            &url(PASSWORD, "bench"),
            "-o",
            "j=true",
            "-s",
            "ycsb-load",
            "--records",
            "50",
            "--keep-db",
        ]),
        &jdir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&jdir);
    assert!(v["configs"][0]["effective_options"].to_string().contains("{w: 1, j: true, wtimeout: 0}"));
    let s = step(&v, "ycsb-load");
    assert!(
        s["metrics"]["syncs"].is_null() || s["metrics"]["syncs"]["durable_as_run"].is_null(),
        "{}",
        s["metrics"]["syncs"]
    );
    let why = s["metrics"]["missing"].as_array().unwrap().iter().find(|m| m["metric"] == "syncs").unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(why.contains("wiredTiger"), "{why}");

    // The run steps on records loaded before (kept above): counted, kept.
    let edir = tmp.path().join("existing");
    let out = run_into(
        rumbench(None).args(["--target", &url(PASSWORD, "bench"), "-s", "ycsb-c,ycsb-d", "--ops", "60"]),
        &edir,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&edir);
    assert!(
        v["configs"][0]["notes"].to_string().contains("YCSB's records loaded before the run: 50"),
        "{}",
        v["configs"][0]["notes"]
    );
    assert_eq!(collections(&admin, "bench"), ["keepme", "usertable"]);
}

#[test]
fn hot_documents_are_counted_and_the_insert_benchmark_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let ferret = Ferret::open(&tmp.path().join("ferret"));
    let url = format!("{}/bench", ferret.base);
    let hot = |threads: &str, ops: &str, dir: &str| {
        let d = tmp.path().join(dir);
        let out = run_into(
            rumbench(None).args([
                "--target",
                &url,
                "-s",
                "hotrow",
                "--hot-rows",
                "20",
                "--hot-tables",
                "1",
                "-t",
                threads,
                "--ops",
                ops,
            ]),
            &d,
        );
        (out, d)
    };
    // One client: the counter goes up by exactly the increments acknowledged.
    let (out, d) = hot("1", "200", "hot1");
    assert!(out.status.success(), "{}", text(&out));
    let s = &load(&d)["configs"][0]["steps"][0];
    assert_eq!(s["status"], "completed", "{}", s["error"]);
    assert!(s["notes"].to_string().contains("went up by exactly the 200 acknowledged updates"), "{}", s["notes"]);
    // Four clients on one document: FerretDB 1.x loses concurrent $inc updates, and the check says so.
    let (out, d) = hot("4", "800", "hot4");
    assert!(!out.status.success(), "{}", text(&out));
    let s = &load(&d)["configs"][0]["steps"][0];
    assert_eq!(s["status"], "failed");
    let e = s["error"].as_str().unwrap();
    assert!(e.contains("but 800 updates were acknowledged") && e.contains("acknowledged updates lost"), "{e}");

    // ycsb-load in unordered batches (--batch-size), two clients: every record there.
    let d = tmp.path().join("batches");
    let out = run_into(
        rumbench(None).args([
            "--target",
            &url,
            "-s",
            "ycsb-load,ycsb-c",
            "--records",
            "500",
            "--batch-size",
            "64",
            "-t",
            "2",
            "--ops",
            "100",
        ]),
        &d,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&d);
    assert_eq!(step(&v, "ycsb-load")["ops"], 500);
    assert_eq!(
        step(&v, "ycsb-load")["engine_stats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p[0] == "collStats.usertable.count")
            .unwrap()[1],
        "500"
    );
    let reads = &step(&v, "ycsb-c")["ops_by_type"][0];
    assert_eq!(
        (reads["ops"].as_u64(), reads["outcomes"]["not_found"].as_u64().unwrap_or(0)),
        (Some(100), 0),
        "{reads}"
    );

    // The insert benchmark: its collections, indexes by name, queries with hints, one client.
    let d = tmp.path().join("ibench");
    let out = run_into(
        rumbench(None).args([
            "--target",
            &url,
            "-s",
            "l.i0,l.x,l.i1,l.i2,qr100,qp100",
            "--rows",
            "1000",
            "--insert-rows",
            "200",
            "--query-seconds",
            "1",
            "-t",
            "1",
        ]),
        &d,
    );
    assert!(out.status.success(), "{}", text(&out));
    let v = load(&d);
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    for s in c["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "completed", "{}: {}", s["name"], s["error"]);
        assert!(
            s["warnings"].as_array().unwrap().iter().all(|w| !w.as_str().unwrap().contains("rows expected")),
            "{}: {}",
            s["name"],
            s["warnings"]
        );
    }
    assert!(step(&v, "qr100")["ops"].as_u64().unwrap() > 0 && step(&v, "qp100")["ops"].as_u64().unwrap() > 0);
    let client = ferret.client("");
    assert_eq!(collections(&client, "bench"), Vec::<String>::new(), "rumbench's collections are dropped");
}

#[test]
fn tls_as_the_url_asks() {
    let tmp = tempfile::tempdir().unwrap();
    let (cert, key) = (tmp.path().join("leaf.crt"), tmp.path().join("leaf.key"));
    // A self-signed leaf (not a CA certificate: rustls refuses those as a server's).
    let made = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=127.0.0.1"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-addext", "basicConstraints=critical,CA:FALSE"])
        .args([
            "-addext",
            "keyUsage=digitalSignature,keyEncipherment",
            "-addext",
            "extendedKeyUsage=serverAuth",
            "-keyout",
        ])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(made.status.success(), "openssl: {}", String::from_utf8_lossy(&made.stderr));
    let ferret = Ferret::open_tls(&tmp.path().join("ferret"), &cert, &key);
    let url = format!("{}/bench?tls=true&tlsCAFile={}", ferret.base, cert.display());
    let d = tmp.path().join("tls");
    let out = run_into(
        rumbench(None).args(["--target", &url, "-s", "ycsb-load,ycsb-c", "--records", "100", "--ops", "50"]),
        &d,
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(load(&d)["configs"][0]["status"], "completed");
    // The same port without TLS: refused in one line before anything runs.
    let plain = format!("{}/bench?serverSelectionTimeoutMS=1500", ferret.base);
    let out = run_into(
        rumbench(None).args(["--target", &plain, "-s", "ycsb-load", "--records", "10"]),
        &tmp.path().join("plain"),
    );
    assert_refused(&out, &tmp.path().join("plain"), &format!("cannot connect to {}/bench", ferret.base));
}
