//! Sharded runs (`run --shard I/N --start-at T`) of the real binary, merged
//! by `rumbench merge`: against RocksDB (a data dir per shard) and against
//! one PostgreSQL that the test starts and every shard loads into.

use std::path::Path;
use std::process::{Child, Output, Stdio};

use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use rumbench::server::{RunningServer, ServerConfig, ServerKind};
use serde_json::Value;

use crate::common::cli;

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// A moment `secs` from now, as seconds since the epoch.
fn soon(secs: u64) -> String {
    (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + secs).to_string()
}

/// Shard `i` of `n` started in the background, results in `dir/s<i>`.
fn start_shard(dir: &Path, i: u32, n: u32, at: &str, args: &[&str]) -> Child {
    cli::rumbench()
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "--shard",
            &format!("{i}/{n}"),
            "--start-at",
            at,
            "--step-gap",
            "2",
        ])
        .args(args)
        .arg("-d")
        .arg(dir.join(format!("s{i}")))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_shards(dir: &Path, n: u32, args: &[&str]) {
    let at = soon(3);
    let children: Vec<Child> = (0..n).map(|i| start_shard(dir, i, n, &at, args)).collect();
    for (i, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "shard {i}: {}", text(&out));
    }
}

/// A PostgreSQL the test starts in `dir`, and the URL shards reach it by (a server they did not start).
fn postgres(dir: &Path) -> (RunningServer, String) {
    let server = RunningServer::start(&ServerConfig {
        kind: ServerKind::Postgres,
        data_dir: dir.join("pg"),
        config_lines: Vec::new(),
    })
    .unwrap();
    let url = format!("postgres://postgres@127.0.0.1:{}/rumbench", server.port());
    (server, url)
}

fn decode(b64: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
    Deserializer::new().deserialize(&mut bytes.as_slice()).unwrap()
}

fn step<'a>(run: &'a Value, name: &str) -> &'a Value {
    run["configs"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// The merged step's operations and percentiles are those of every shard's
/// operations together (the test adds the shards' histograms itself), and
/// its seconds hold every shard's operations.
fn check_exact(shards: &[Value], merged: &Value, name: &str) {
    let m = step(merged, name);
    let ops: u64 = shards.iter().map(|s| step(s, name)["ops"].as_u64().unwrap()).sum();
    assert_eq!(m["ops"].as_u64().unwrap(), ops, "{name}");
    for (k, mop) in m["ops_by_type"].as_array().unwrap().iter().enumerate() {
        let mut all: Option<Histogram<u64>> = None;
        let mut seconds = 0u64;
        for s in shards {
            let op = &step(s, name)["ops_by_type"][k];
            assert_eq!(op["op"], mop["op"]);
            let h = decode(op["histogram"].as_str().unwrap());
            match &mut all {
                Some(a) => a.add(&h).unwrap(),
                None => all = Some(h),
            }
            seconds += op["intervals"].as_array().unwrap().iter().map(|i| i["ops"].as_u64().unwrap()).sum::<u64>();
        }
        let all = all.unwrap();
        let lat = &mop["latency"];
        assert_eq!(lat["count"].as_u64().unwrap(), all.len(), "{name}");
        for (field, q) in [("p50_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999)] {
            let want = all.value_at_quantile(q) as f64 / 1000.0;
            assert!((lat[field].as_f64().unwrap() - want).abs() < 1e-9, "{name} {field}: {} vs {want}", lat[field]);
        }
        assert_eq!(lat["max_us"].as_f64().unwrap(), all.max() as f64 / 1000.0);
        let merged_seconds: u64 = mop["intervals"].as_array().unwrap().iter().map(|i| i["ops"].as_u64().unwrap()).sum();
        assert_eq!(merged_seconds, seconds, "{name}: the merged seconds hold every shard's operations");
    }
}

#[test]
fn rocksdb_shards_merge_exactly_and_export_an_interval_log() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Three shards of two threads: the fill's 30,000 keys split between them, reads for 2 s each.
    run_shards(dir, 3, &["-e", "rocksdb", "-s", "fillseq,readrandom", "--num", "30000", "--threads", "2"]);
    let shards: Vec<Value> = (0..3).map(|i| load(&dir.join(format!("s{i}")))).collect();
    for (i, s) in shards.iter().enumerate() {
        assert_eq!(s["settings"]["shard"]["index"], i);
        let start = &step(s, "fillseq")["start"];
        // Released at the moment given (a thread wake-up later).
        let late = start["unix_s"].as_f64().unwrap() - start["scheduled_unix_s"].as_f64().unwrap();
        assert!((0.0..0.5).contains(&late), "shard {i} released {late} s after its moment");
        assert!(s["sharding"]["clock"]["synchronized"].is_boolean(), "{}", s["sharding"]);
    }
    // The fill's keys are disjoint between shards: 30,000 puts in all, 10,000 each.
    for s in &shards {
        assert_eq!(step(s, "fillseq")["ops"], 10_000);
    }
    let out = cli::rumbench()
        .args(["merge", "-d"])
        .arg(dir.join("m"))
        .arg(dir.join("s2"))
        .arg(dir.join("s0"))
        .arg(dir.join("s1"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Shards"), "{}", text(&out));
    let merged = load(&dir.join("m"));
    assert_eq!(merged["settings"]["threads"], 6, "the merge is one run with all shards' threads");
    assert_eq!(step(&merged, "fillseq")["ops"], 30_000);
    check_exact(&shards, &merged, "fillseq");
    check_exact(&shards, &merged, "readrandom");
    assert_eq!(merged["merged"]["shards"].as_array().unwrap().len(), 3);
    assert!(std::fs::read_to_string(dir.join("m/summary.txt")).unwrap().contains("Shards"));
    assert!(dir.join("m/report.html").exists());

    // The interval log: every second of every step, read back by the crate's reader.
    let out = cli::rumbench()
        .args(["export", "-f", "hdr-log", "-o"])
        .arg(dir.join("m.hlog"))
        .arg(dir.join("m"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let log = std::fs::read(dir.join("m.hlog")).unwrap();
    let mut by_tag: std::collections::BTreeMap<String, u64> = Default::default();
    for e in IntervalLogIterator::new(&log) {
        if let LogEntry::Interval(h) = e.unwrap() {
            *by_tag.entry(h.tag().unwrap().as_str().to_string()).or_default() += decode(h.encoded_histogram()).len();
        }
    }
    let calls = |name: &str| step(&merged, name)["ops_by_type"][0]["latency"]["count"].as_u64().unwrap();
    assert_eq!(by_tag.get("rocksdb/fillseq/put"), Some(&calls("fillseq")), "{by_tag:?}");
    assert_eq!(by_tag.get("rocksdb/readrandom/get"), Some(&calls("readrandom")), "{by_tag:?}");

    // Shards that do not belong together are refused before anything is written.
    let refused = |dirs: &[&str], why: &str| {
        let mut c = cli::rumbench();
        c.args(["merge", "-d"]).arg(dir.join("refused"));
        for d in dirs {
            c.arg(dir.join(d));
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(why), "{}", text(&out));
        assert!(!dir.join("refused").exists());
    };
    refused(&["s0", "s1"], "not the shards 0..");
    refused(&["s0", "s1", "s1"], "each once");
    refused(&["m", "s1"], "merged run");
    // A shard 2 of another plan (another seed).
    let out = cli::rumbench()
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "--shard",
            "2/3",
            "--seed",
            "7",
            "-e",
            "rocksdb",
            "-s",
            "fillseq,readrandom",
            "--num",
            "30000",
            "--threads",
            "2",
            "-d",
        ])
        .arg(dir.join("other"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    refused(&["s0", "s1", "other"], "not shards of one plan");

    // A merge never replaces one of its inputs (or a directory holding one),
    // and --replace-output replaces only an earlier merge.
    for (output, why) in [("s0", "holds the shard"), (".", "holds the shard"), ("other", "is not a merge")] {
        let before = std::fs::read(dir.join("s0/result.json")).unwrap();
        let out = cli::rumbench()
            .args(["merge", "--replace-output", "-d"])
            .arg(dir.join(output))
            .arg(dir.join("s0"))
            .arg(dir.join("s1"))
            .arg(dir.join("s2"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{output}: {}", text(&out));
        assert!(text(&out).contains(why), "{output}: {}", text(&out));
        assert_eq!(std::fs::read(dir.join("s0/result.json")).unwrap(), before, "shard 0's run is untouched");
    }
    let out = cli::rumbench()
        .args(["merge", "--replace-output", "-d"])
        .arg(dir.join("m"))
        .arg(dir.join("s0"))
        .arg(dir.join("s1"))
        .arg(dir.join("s2"))
        .output()
        .unwrap();
    assert!(out.status.success(), "an earlier merge is replaced: {}", text(&out));

    // A shard whose histogram is corrupt: the file, config and step are named, in words.
    let mut s1 = load(&dir.join("s1"));
    let h = s1["configs"][0]["steps"][1]["ops_by_type"][0]["histogram"].as_str().unwrap().to_string();
    s1["configs"][0]["steps"][1]["ops_by_type"][0]["histogram"] = Value::String(h[..h.len() / 2].to_string());
    std::fs::write(dir.join("s1/result.json"), serde_json::to_vec(&s1).unwrap()).unwrap();
    let out = cli::rumbench()
        .args(["merge", "-d"])
        .arg(dir.join("m2"))
        .arg(dir.join("s0"))
        .arg(dir.join("s1"))
        .arg(dir.join("s2"))
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let t = text(&out);
    assert!(t.contains("config rocksdb") && t.contains("readrandom") && t.contains("corrupt histogram"), "{t}");
    assert!(!t.contains("IoError") && !t.contains("Custom {"), "{t}");
}

#[test]
fn a_shard_stopped_while_waiting_for_shard_0_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, url) = postgres(tmp.path());
    // Shard 1 of 2 alone: it waits for shard 0 to create the table.
    let child = start_shard(tmp.path(), 1, 2, &soon(2), &["--target", &url, "-s", "ycsb-load", "--records", "1000"]);
    std::thread::sleep(std::time::Duration::from_secs(5));
    // SAFETY: a signal to the process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", text(&out));
    let r = load(&tmp.path().join("s1"));
    let step = &r["configs"][0]["steps"][0];
    assert_eq!(step["status"], "interrupted", "{step}");
    let err = step["error"].as_str().unwrap();
    assert!(
        err.contains("interrupted by SIGTERM") && err.contains("of waiting for shard 0 to create table usertable"),
        "{err}"
    );
    assert!(!err.contains("within 120 s"), "{err}");
    server.stop().unwrap();
}

#[test]
fn ycsb_shards_load_one_postgres_without_colliding() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (server, url) = postgres(dir);
    // Two shards load 3,000 records together, then run YCSB D (5% inserts) for 2 s each.
    run_shards(
        dir,
        2,
        &["--target", &url, "-s", "ycsb-load,ycsb-d", "--records", "3000", "--seconds", "2", "--threads", "2"],
    );
    let shards: Vec<Value> = (0..2).map(|i| load(&dir.join(format!("s{i}")))).collect();
    let mut inserts = 0;
    for s in &shards {
        assert_eq!(step(s, "ycsb-load")["ops"], 1500, "each shard loads its half");
        let d = step(s, "ycsb-d");
        for op in d["ops_by_type"].as_array().unwrap() {
            assert_eq!(op["outcomes"]["error"], 0, "{op}");
            if op["op"] == "INSERT" {
                inserts += op["ops"].as_u64().unwrap();
            }
        }
        let notes = s["configs"][0]["notes"].to_string();
        assert!(notes.contains("kept table(s) usertable") && notes.contains("for the other shards"), "{notes}");
    }
    assert!(inserts > 0);
    // Every record once: the load's and each shard's inserts (apart, by shard).
    let mut c = server.connect_postgres().unwrap();
    let rows: i64 = c.query_one("SELECT count(*) FROM usertable", &[]).unwrap().get(0);
    assert_eq!(rows as u64, 3000 + inserts);
    let out = cli::rumbench()
        .args(["merge", "-d"])
        .arg(dir.join("m"))
        .arg(dir.join("s0"))
        .arg(dir.join("s1"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let merged = load(&dir.join("m"));
    assert_eq!(step(&merged, "ycsb-load")["ops"], 3000);
    check_exact(&shards, &merged, "ycsb-load");
    check_exact(&shards, &merged, "ycsb-d");
    let info = &merged["merged"]["steps"];
    let d = info.as_array().unwrap().iter().find(|s| s["step"] == "ycsb-d").unwrap();
    assert_eq!(d["window"], "common", "{d}");
    // Released within a fraction of a second of each other.
    assert!(d["start_skew_ms"].as_f64().unwrap() < 500.0, "{d}");
    c.batch_execute("DROP TABLE usertable").unwrap();
}

#[test]
fn hotrow_shards_update_the_same_rows_of_one_postgres() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (server, url) = postgres(dir);
    // Two shards of two clients on one hot row: the contention of four clients.
    run_shards(
        dir,
        2,
        &[
            "--target",
            &url,
            "-s",
            "hotrow",
            "--hot-tables",
            "1",
            "--hot-rows",
            "1000",
            "--threads",
            "2",
            "--seconds",
            "2",
        ],
    );
    let shards: Vec<Value> = (0..2).map(|i| load(&dir.join(format!("s{i}")))).collect();
    let updates: u64 = shards.iter().map(|s| step(s, "hotrow@T1@t2")["ops"].as_u64().unwrap()).sum();
    for s in &shards {
        let notes = step(s, "hotrow@T1@t2")["notes"].to_string();
        assert!(notes.contains("the other shards' are in it"), "{notes}");
    }
    // Shard 0 loaded the table once; every shard's updates went to its row 1.
    let mut c = server.connect_postgres().unwrap();
    let counter: i64 = c.query_one("SELECT counter FROM hot1 WHERE id = 1", &[]).unwrap().get(0);
    assert_eq!(counter as u64, updates);
    let out = cli::rumbench()
        .args(["merge", "-d"])
        .arg(dir.join("m"))
        .arg(dir.join("s0"))
        .arg(dir.join("s1"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let merged = load(&dir.join("m"));
    assert_eq!(step(&merged, "hotrow@T1@t4")["ops"].as_u64().unwrap(), updates, "named by all shards' clients");
    c.batch_execute("DROP TABLE hot1").unwrap();
}

#[test]
fn insert_benchmark_shards_use_tables_of_their_own() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (server, url) = postgres(dir);
    // Two shards of two clients: shard 0 has pi1, pi2; shard 1 pi3, pi4.
    run_shards(
        dir,
        2,
        &["--target", &url, "-s", "l.i0,l.x,l.i1", "--rows", "2000", "--insert-rows", "500", "--threads", "2"],
    );
    let shards: Vec<Value> = (0..2).map(|i| load(&dir.join(format!("s{i}")))).collect();
    for (i, s) in shards.iter().enumerate() {
        let notes = s["configs"][0]["notes"].to_string();
        let mine = if i == 0 { "pi1, pi2" } else { "pi3, pi4" };
        assert!(notes.contains(&format!("created and dropped table(s) {mine}")), "shard {i}: {notes}");
        // 2,000 rows per client (the insert benchmark's --rows is per table).
        assert_eq!(step(s, "l.i0")["ops"], 4000, "shard {i}");
    }
    let mut c = server.connect_postgres().unwrap();
    let left: i64 = c.query_one("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pi%'", &[]).unwrap().get(0);
    assert_eq!(left, 0, "each shard dropped its own tables");
    let out = cli::rumbench()
        .args(["merge", "-d"])
        .arg(dir.join("m"))
        .arg(dir.join("s0"))
        .arg(dir.join("s1"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let merged = load(&dir.join("m"));
    assert_eq!(step(&merged, "l.i0")["ops"], 8000);
    check_exact(&shards, &merged, "l.i1");
}

#[test]
fn bad_shard_and_schedule_flags_are_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let later = soon(60);
    let kv = ["-e", "rocksdb", "-s", "fillseq", "--num", "100"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        ([&kv[..], &["--shard", "4/4"]].concat(), "0..3"),
        ([&kv[..], &["--shard", "1"]].concat(), "I/N"),
        ([&kv[..], &["--start-at", "1000"]].concat(), "in the past"),
        ([&kv[..], &["--start-at", "tomorrow"]].concat(), "RFC 3339"),
        (vec!["-e", "rocksdb", "-s", "randomtransaction", "--shard", "0/2"], "cannot be sharded yet"),
        (vec!["-e", "rocksdb,lmdb", "-s", "fillseq", "--start-at", &later], "one config"),
    ];
    for (i, (args, why)) in cases.iter().enumerate() {
        let out_dir = tmp.path().join(format!("r{i}"));
        let out = cli::rumbench_run().args(args).arg("-d").arg(&out_dir).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(why), "{args:?}: {}", text(&out));
        assert_eq!(text(&out).trim().lines().count(), 1, "{args:?}: one line: {}", text(&out));
        assert!(!out_dir.exists(), "{args:?}");
    }
}
