//! Reliability, round four (issue 52): no setting that can take the machine
//! down, engines that fail with their cause named and their step kept,
//! records true to an existing database, settings obeyed in the documented
//! order, and the messages of the round. Each test runs the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use super::common::cli::{self, load, refused, run_ok, text};
use super::common::fs::Tmpfs;

/// `rumbench run --progress off --no-history ARGS` into `out`.
fn run(args: &[&str], out: &Path) -> Output {
    cli::rumbench_run().args(args).arg("--output-dir").arg(out).output().unwrap()
}

/// Refused before anything starts: exit 2, one error line containing every
/// one of `expected`, nothing written to `out`.
fn assert_refused(o: &Output, expected: &[&str], out: &Path) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("rumbench: error:")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    for e in expected {
        assert!(lines[0].contains(e), "{e:?} not in: {}", lines[0]);
    }
    assert!(!out.exists(), "nothing is written before a refusal");
}

fn effective<'a>(config: &'a Value, name: &str) -> Option<&'a str> {
    config["effective_options"].as_array()?.iter().find(|p| p[0] == name).and_then(|p| p[1].as_str())
}

#[test]
fn sizes_the_machine_does_not_have_are_refused_before_anything_starts() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let db = t.path().join("db");
    let db_arg = db.to_str().unwrap();
    // A SplinterDB file larger than the free space (its 2 GiB of lookup table fits in memory).
    let o = run(&["-e", "splinterdb", "-o", "disk_size=2T", "-s", "fillseq", "-n", "1000", "--db-dir", db_arg], &out);
    assert_refused(&o, &["splinterdb.disk_size=2T", "of disk", "free (statvfs of"], &out);
    // The case of the issue: a 100T SplinterDB file (it took 24 GB of memory
    // before the OOM killer came): its cache's lookup table, 4 bytes a page, is 100 GiB.
    let o = run(&["-e", "splinterdb", "-o", "disk_size=100T", "-s", "fillseq", "-n", "1000", "--db-dir", db_arg], &out);
    assert_refused(
        &o,
        &[
            "splinterdb.disk_size=100T's lookup table and reference counts",
            "of memory",
            "available (MemAvailable in /proc/meminfo",
        ],
        &out,
    );
    // The same with a relative --db-dir whose parents do not exist yet: checked on the filesystem it will be on.
    for disk in ["2T", "100T"] {
        let o = cli::rumbench()
            .current_dir(t.path())
            .args(["run", "--progress", "off", "--no-history", "-e", "splinterdb", "-o", &format!("disk_size={disk}")])
            .args(["-s", "fillseq,readrandom", "-n", "20000", "-d", "o-SPopt", "--db-dir", "spo/db"])
            .output()
            .unwrap();
        assert_refused(&o, &[&format!("splinterdb.disk_size={disk}")], &t.path().join("o-SPopt"));
        assert!(!t.path().join("spo").exists(), "no data dir made");
    }
    // Caches against memory, every engine's.
    for (engine, option) in [
        ("rocksdb", "block_cache_size=100T"),
        ("rocksdb", "write_buffer_size=60T"),
        ("leveldb", "block_cache_size=100T"),
        ("lmdb", "write_map=true"),
        ("sqlite", "cache_size=100T"),
        ("splinterdb", "cache_size=100T"),
    ] {
        let mut args = vec!["-e", engine, "-o", option, "-s", "fillseq", "-n", "1000", "--db-dir", db_arg];
        if engine == "lmdb" {
            args.extend(["-o", "map_size=100T"]);
        }
        let o = run(&args, &out);
        let name = option.split('=').next().unwrap();
        let what = if engine == "lmdb" { "of disk" } else { "of memory" };
        assert_refused(&o, &[name, what], &out);
    }
    // Each fits, their sum does not: SQLite's cache is per connection.
    let o = run(
        &["-e", "sqlite", "-o", "cache_size=4G", "-t", "16", "-s", "fillseq", "-n", "1000", "--db-dir", db_arg],
        &out,
    );
    assert_refused(&o, &["sqlite.cache_size=4G per connection x 17 connections"], &out);
    assert!(!db.exists(), "no data dir made");
}

#[test]
fn keys_and_values_an_engine_cannot_take_are_refused_with_its_limit() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    // 64 MiB aborted SplinterDB on an assertion in btree.c.
    let o = run(&["-e", "splinterdb", "-s", "fillseq", "-n", "2", "--value-size", "67108864"], &out);
    assert_refused(&o, &["--value-size 67108864", "values of at most 33554432 bytes", "extent_size"], &out);
    let o = run(&["-e", "splinterdb", "-s", "fillseq", "-n", "2", "--key-size", "1000"], &out);
    assert_refused(&o, &["--key-size 1000", "keys of at most 512 bytes", "page_size"], &out);
    let o = run(&["-e", "lmdb", "-s", "fillseq", "-n", "2", "--key-size", "600"], &out);
    assert_refused(&o, &["keys of at most 511 bytes", "MDB_MAXKEYSIZE"], &out);
    // YCSB's records are SplinterDB's values too.
    let o = run(
        &["-e", "splinterdb", "-s", "ycsb-load", "--records", "2", "--field-count", "10", "--field-length", "4000000"],
        &out,
    );
    assert_refused(&o, &["--field-count x --field-length 40000000"], &out);
}

/// SplinterDB's file is sized for what the steps write (--ops well above
/// -n filled a file sized from -n, and SplinterDB died of SIGSEGV), and a
/// disk_size too small for them is refused with the figure.
#[test]
fn splinterdbs_file_is_sized_for_what_the_steps_write() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let o =
        run(&["-e", "splinterdb", "-o", "disk_size=64M", "-s", "fillrandom", "-n", "1000", "--ops", "2000000"], &out);
    assert_refused(&o, &["splinterdb.disk_size=64M cannot hold", "every byte its steps write"], &out);
    let v = load(&run_ok_dir(
        &["-e", "splinterdb", "-s", "fillrandom", "-n", "1000", "--ops", "200000"],
        &t.path().join("ok"),
    ));
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{c}");
    let disk: u64 = effective(c, "disk_size").unwrap().parse().unwrap();
    // 200,000 puts of 116 bytes with their overhead, twice over, and the floor.
    assert!(disk > 2 * 200_000 * 116 + (1 << 30), "{disk}");
    assert!(effective(c, "disk_size.how").unwrap().contains("what the run keeps and writes"), "{c}");
}

fn run_ok_dir(args: &[&str], out: &Path) -> PathBuf {
    run_ok(args, out);
    out.to_path_buf()
}

/// A run on a filesystem that fills: the cause named, the step kept with
/// what it completed, the next config run, nothing left.
#[test]
fn splinterdb_on_a_full_filesystem_says_so_and_keeps_its_step() {
    let fs = Tmpfs::new("400m");
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let db = fs.path().join("db");
    // For a duration: its writes are not known, so the file takes 90% of the free space.
    let child = cli::rumbench()
        // A small cache, so that SplinterDB writes its pages back to the file early.
        .args([
            "run",
            "--progress",
            "off",
            "--no-history",
            "-e",
            "splinterdb,lmdb",
            "-o",
            "splinterdb.cache_size=64M",
            "-o",
            "splinterdb.memtable_capacity=4M",
        ])
        .args(["-s", "fillrandom", "-n", "10000000", "--seconds", "60", "--db-dir"])
        .arg(&db)
        .arg("--output-dir")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once it writes, fill the filesystem under it.
    let file = db.join("splinterdb").join("splinterdb.db");
    let began = std::time::Instant::now();
    while !file.exists() && began.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=1M"])
        .arg(format!("of={}", fs.path().join("filler").display()))
        .stderr(Stdio::null())
        .status();
    let o = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(fs.path().join("filler"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v = load(&out);
    let c = &v["configs"][0];
    assert_eq!(c["status"], "failed", "{c}");
    let err = c["error"].as_str().unwrap();
    assert!(err.starts_with("the data filesystem is full"), "{err}");
    // The step it died in, with what it completed.
    let s = &c["steps"][0];
    assert_eq!(s["name"], "fillrandom", "{c}");
    assert_eq!(s["status"], "failed", "{s}");
    assert!(s["ops"].as_u64().unwrap() > 0, "{s}");
    assert!(s["ops_s"].is_null(), "{s}");
    // The next config ran (and failed on the full filesystem or ran: either way it is recorded).
    assert_eq!(v["configs"][1]["name"], "lmdb");
    let left: Vec<_> = std::fs::read_dir(fs.path()).unwrap().flatten().map(|e| e.path()).collect();
    assert!(left.iter().all(|p| !p.starts_with(&db) || !p.join("splinterdb").exists()), "{left:?}");
}

/// SplinterDB opens an existing file with the geometry it was created with:
/// that is what is recorded; a geometry its I/O layer cannot create (8K
/// pages: they failed at create once) is refused before anything starts.
#[test]
fn an_existing_splinterdb_records_its_files_geometry() {
    let t = tempfile::tempdir().unwrap();
    let db = t.path().join("db");
    let db_arg = db.to_str().unwrap();
    run_ok(&["-e", "splinterdb", "-s", "fillseq", "-n", "2000", "--keep-db", "--db-dir", db_arg], &t.path().join("a"));
    let reopen = |extra: &[&str]| {
        let mut args =
            vec!["-e", "splinterdb", "-s", "readrandom", "-n", "2000", "--use-existing-db", "--db-dir", db_arg];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_string).collect::<Vec<String>>()
    };
    let refused_args = reopen(&["-o", "page_size=8K"]);
    let e = refused(&refused_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("splinterdb.page_size=8192: this SplinterDB takes 4096 only"), "{e}");
    let args = reopen(&[]);
    let v = load(&run_ok_dir(&args.iter().map(String::as_str).collect::<Vec<_>>(), &t.path().join("b")));
    let c = &v["configs"][0];
    assert_eq!(effective(c, "page_size"), Some("4096"), "{c}");
    assert_eq!(effective(c, "extent_size"), Some("131072"), "{c}");
    assert!(effective(c, "disk_size").unwrap().parse::<u64>().is_ok(), "the file's own size: {c}");
}

/// A step's own setting over the suite's [settings], a flag over both; the
/// plan's printout says what each step will do.
#[test]
fn a_steps_length_follows_the_documented_precedence() {
    let t = tempfile::tempdir().unwrap();
    let suite = t.path().join("s.toml");
    std::fs::write(&suite, "[settings]\nseconds = 0.3\nnum = 5000\n[[config]]\nengine = \"null\"\n[[step]]\nname = \"fillseq\"\nops = 3000\n[[step]]\nname = \"readrandom\"\n").unwrap();
    let s = suite.to_str().unwrap();
    let o = run_ok(&["-c", s], &t.path().join("a"));
    let err = text(&o);
    assert!(err.contains("fillseq: 3,000 ops, 1 thread") && err.contains("readrandom: 0.3 s, 1 thread"), "{err}");
    let v = load(&t.path().join("a"));
    let steps = v["configs"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[0]["ops"], 3000, "the step's own ops over the suite's seconds");
    assert!(steps[1]["ops"].as_u64().unwrap() > 0);
    run_ok(&["-c", s, "--ops", "500"], &t.path().join("b"));
    let v = load(&t.path().join("b"));
    for step in v["configs"][0]["steps"].as_array().unwrap() {
        assert_eq!(step["ops"], 500, "a flag over both: {}", step["name"]);
    }
}

#[test]
fn the_rounds_messages() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    // --use-existing-db on a server the user runs: the option is for local engines.
    let o = run(&["--target", "postgres://rumbench@127.0.0.1:1/x", "-s", "ycsb-a", "--use-existing-db"], &out);
    assert_refused(&o, &["--use-existing-db is for engines whose data is in a local directory", "--target"], &out);
    // history rebuild into a link to nothing: said to be one.
    let link = t.path().join("h.sqlite");
    std::os::unix::fs::symlink(t.path().join("gone/h.sqlite"), &link).unwrap();
    let o = cli::rumbench().args(["history", "rebuild"]).arg(t.path()).arg("--history").arg(&link).output().unwrap();
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is a symbolic link to") && !err.contains("history rebuild"), "{err}");
    // --help and --version that cannot be written are not a success.
    for flag in ["--help", "--version"] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = cli::rumbench().arg(flag).stdout(full).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{flag}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write to standard output"), "{flag}");
    }
}
