//! Integration tests: the real binary against real engines on small data.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::cli;

fn run_ok(args: &[&str], dir: &Path) -> Value {
    let out = cli::rumbench_run().args(args).arg("--output-dir").arg(dir).output().unwrap();
    assert!(out.status.success(), "rumbench {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    load(dir)
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn step<'a>(v: &'a Value, config: usize, name: &str) -> &'a Value {
    v["configs"][config]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// The last line of stderr that carries the error.
fn error_line(o: &Output) -> String {
    stderr(o).lines().rfind(|l| l.starts_with("rumbench: error:")).unwrap_or_default().to_string()
}

const ALL_STEPS: &str = "fillseq,fillrandom,filluniquerandom,overwrite,readrandom,multireadrandom,readseq,fwdrange,revrange,deleterandom,mixgraph,flush,waitforcompaction";

/// The engines of the registry this test runs: every one but those that
/// need more than their defaults (a plugin's library: tests/plugins.rs) or
/// that leave out steps (SplinterDB has no atomic batches: tests/splinterdb.rs).
fn engines_with_every_step() -> Vec<&'static str> {
    rumbench::engine::engine_names().into_iter().filter(|e| !["plugin", "splinterdb"].contains(e)).collect()
}

#[test]
fn every_engine_runs_every_step_and_writes_results() {
    let engines = engines_with_every_step();
    // A new engine joins by its registry line; these are there.
    for known in ["rocksdb", "lmdb", "sqlite", "null", "fjall", "redb"] {
        assert!(engines.contains(&known), "{known} is not in {engines:?}");
    }
    for engine in engines {
        let dir = tempfile::tempdir().unwrap();
        let v = run_ok(&["-e", engine, "-s", ALL_STEPS, "-n", "3000", "-t", "2"], dir.path());
        assert_eq!(v["schema"], "rumbench.result/1");
        assert_eq!(v["status"], "completed");
        let c = &v["configs"][0];
        assert_eq!(c["engine"], engine);
        assert!(c["engine_version"].as_str().is_some_and(|s| !s.is_empty()));
        let steps = c["steps"].as_array().unwrap();
        assert_eq!(steps.len(), ALL_STEPS.split(',').count());
        for s in steps {
            assert_eq!(s["status"], "completed", "{engine} {}", s["name"]);
            if s["name"] == "waitforcompaction" && s["ops"] == 0 {
                // Nothing to wait for: no operation, no rate (not 1 / the time of one check).
                assert_eq!(s["ops"], 0, "{engine}");
                assert!(s["ops_s"].is_null(), "{engine}: {}", s["ops_s"]);
                assert!(s["notes"].to_string().contains("no background work to wait for"), "{engine}");
                continue;
            }
            assert!(s["ops"].as_u64().unwrap() > 0, "{engine} {}", s["name"]);
            let lat = &s["ops_by_type"][0]["latency"];
            assert!(lat["p50_us"].as_f64().unwrap() > 0.0);
            assert!(lat["max_us"].as_f64().unwrap() >= lat["p99_us"].as_f64().unwrap());
            assert!(!s["ops_by_type"][0]["intervals"].as_array().unwrap().is_empty());
        }
        // 3000 ops split over 2 threads.
        assert_eq!(step(&v, 0, "fillseq")["ops"], 3000);
        let csv = std::fs::read_to_string(dir.path().join("intervals.csv")).unwrap();
        assert!(csv
            .starts_with("config,engine,step,role,op,second,ops,ops_per_s,p99_us,max_us,rss_bytes,vsz_bytes,value\n"));
        assert!(csv.contains(&format!("{engine},{engine},readrandom,client,get,1,")));
        let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
        assert!(summary.contains("fwdrange"));
        // The data dir is removed after the run unless --keep-db.
        assert!(!dir.path().join("db").exists());
    }
}

#[test]
fn same_seed_gives_the_same_keys_on_every_engine() {
    // After fillrandom (with replacement) the set of keys present depends only on the
    // key stream; readseq counts them and readrandom's found count depends on both streams.
    let outcome = |engine: &str, seed: &str| -> (u64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let v =
            run_ok(&["-e", engine, "-s", "fillrandom,readrandom,readseq", "-n", "20000", "--seed", seed], dir.path());
        (step(&v, 0, "readseq")["ops"].as_u64().unwrap(), step(&v, 0, "readrandom")["reads"]["found"].as_u64().unwrap())
    };
    let reference = outcome("rocksdb", "7");
    // About 63% of the key space is present after N random inserts.
    assert!((12_000..13_500).contains(&reference.0), "{reference:?}");
    for engine in ["lmdb", "sqlite"] {
        assert_eq!(outcome(engine, "7"), reference, "{engine}");
    }
    assert_ne!(outcome("rocksdb", "8"), reference);
}

#[test]
fn several_engines_and_threads_with_a_suite_file() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        r#"
name = "small"
[settings]
num = 2000
threads = 2
[[config]]
name = "rocks-universal"
engine = "rocksdb"
options = { compaction_style = "universal", write_buffer_size = "1M", statistics = true }
[[config]]
name = "lite"
engine = "sqlite"
options = { synchronous = "off" }
[[step]]
name = "fillrandom"
[[step]]
name = "fwdrange"
range_len = 5
seconds = 1
"#,
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let v = run_ok(&["--config", suite.to_str().unwrap()], &out_dir);
    assert_eq!(v["suite"], "small");
    assert_eq!(v["configs"][0]["name"], "rocks-universal");
    assert_eq!(v["configs"][0]["options"]["compaction_style"], "universal");
    let eff = v["configs"][0]["effective_options"].as_array().unwrap();
    assert!(eff.iter().any(|p| p[0] == "CFOptions.compaction_style" && p[1] == "kCompactionStyleUniversal"), "{eff:?}");
    assert_eq!(v["configs"][1]["name"], "lite");
    let fwd = step(&v, 1, "fwdrange");
    assert_eq!(fwd["settings"]["range_len"], 5);
    assert_eq!(fwd["settings"]["threads"], 2);
    let wall = fwd["wall_s"].as_f64().unwrap();
    assert!((1.0..2.0).contains(&wall), "{wall}");
}

#[test]
fn background_writer_is_paced_and_reported_separately() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_ok(
        &["-e", "rocksdb", "-s", "fillseq,readwhilewriting", "-n", "5000", "--writer-rate", "2000", "--seconds", "2"],
        dir.path(),
    );
    let s = step(&v, 0, "readwhilewriting");
    let w = &s["writer"];
    assert_eq!(w["target_ops_s"], 2000.0);
    let achieved = w["achieved_ops_s"].as_f64().unwrap();
    assert!((1900.0..2100.0).contains(&achieved), "{achieved}");
    assert_eq!(w["missed_target"], false);
    assert_eq!(w["latency"]["op"], "put");
    assert!(w["service_time"]["count"].as_u64().unwrap() > 3000);
    // The readers' ops are the step's ops; the writer's are separate.
    assert_eq!(s["ops_by_type"][0]["op"], "get");
    let csv = std::fs::read_to_string(dir.path().join("intervals.csv")).unwrap();
    assert!(csv.contains("rocksdb,rocksdb,readwhilewriting,writer,put,1,"));
    // An engine that cannot keep up is flagged: lmdb with synced commits at 200k writes/s.
    let dir = tempfile::tempdir().unwrap();
    let v = run_ok(
        &[
            "-e",
            "lmdb",
            "-o",
            "sync_mode=sync",
            "-s",
            "fillseq,readwhilewriting",
            "-n",
            "2000",
            "--writer-rate",
            "200000",
            "--seconds",
            "1",
        ],
        dir.path(),
    );
    let s = step(&v, 0, "readwhilewriting");
    assert_eq!(s["writer"]["missed_target"], true);
    assert!(s["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("missed its target")));
}

#[test]
fn fillrandom_leaves_keys_missing_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_ok(&["-e", "rocksdb", "-s", "fillrandom,readrandom", "-n", "20000"], dir.path());
    let r = &step(&v, 0, "readrandom")["reads"];
    let (found, missing) = (r["found"].as_u64().unwrap(), r["not_found"].as_u64().unwrap());
    assert_eq!(found + missing, 20000);
    let pct = missing as f64 / 200.0;
    assert!((34.0..40.0).contains(&pct), "{pct}");
    let note = step(&v, 0, "readrandom")["notes"][0].as_str().unwrap().to_string();
    assert!(
        note.contains("fillrandom inserts with replacement, so 6") && note.contains("% of the key space exists"),
        "{note}"
    );
}

/// A fill cut short by --seconds says so (a warning of its own), and the
/// reads after it name that fill as the cause of their misses.
#[test]
fn a_fill_stopped_by_its_time_limit_is_named_by_the_reads_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_ok(&["-e", "rocksdb", "-s", "fillseq,readrandom", "-n", "20000000", "--seconds", "0.3"], dir.path());
    let fill = step(&v, 0, "fillseq");
    let warning = fill["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .find(|w| w.contains("stopped at its time limit"));
    let warning = warning.unwrap_or_else(|| panic!("no time-limit warning: {fill}"));
    assert!(
        warning.starts_with("fillseq stopped at its time limit (--seconds 0.3) after ")
            && warning.contains("of 20,000,000 keys"),
        "{warning}"
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    let listed = summary.split("\nwarnings:\n").nth(1).unwrap_or_default();
    assert!(listed.contains("fillseq: fillseq stopped at its time limit"), "in the run's warnings: {summary}");
    let note = step(&v, 0, "readrandom")["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .find(|n| n.contains("found no key"))
        .expect("a not-found note");
    assert!(note.contains("fillseq stopped at its time limit") && note.contains("% of the key space exists"), "{note}");
    assert!(!note.contains("fillrandom"), "{note}");
}

#[test]
fn bad_input_gets_one_line_and_exit_code_2() {
    // Every backend of the registry, in its order (an engine added is listed by its registry line).
    let unknown = format!("unknown engine 'mongo' (valid engines: {})", rumbench::backend::names().join(", "));
    assert!(unknown.contains("rocksdb, leveldb, lmdb") && unknown.ends_with("mongodb)"), "{unknown}");
    let cases: &[(&[&str], &str)] = &[
        (&["-e", "mongo"], &unknown),
        (&["-e", "null", "-s", "fillseq,readrandm"], "unknown step 'readrandm' (valid steps: fillseq,"),
        (
            &["-e", "rocksdb", "-o", "cache=1G"],
            "unknown option 'cache' for engine rocksdb (valid options: compaction_style,",
        ),
        (
            &["-e", "rocksdb", "-o", "compaction_style=fifo"],
            "invalid value 'fifo' for rocksdb.compaction_style (expected leveled|universal)",
        ),
        (&["-e", "null", "--distribution", "pareto"], "invalid distribution 'pareto'"),
        (&["-e", "null", "--threads", "0"], "--threads must be between 1 and 1024"),
        (&["-e", "null", "--bogus"], "unexpected argument '--bogus'"),
        (&["-e", "null", "--num", "ten"], "invalid value 'ten' for '--num <NUM>'"),
        (&["--config", "/nonexistent/suite.toml"], "cannot read suite file /nonexistent/suite.toml"),
    ];
    for (args, expected) in cases {
        let out = cli::rumbench_run().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let line = error_line(&out);
        assert!(line.contains(expected), "{args:?}: {line}");
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn output_and_data_dirs_inside_each_other_are_refused_before_anything_starts() {
    let t = tempfile::tempdir().unwrap();
    let (outer, inner) = (t.path().join("outer"), t.path().join("outer/inner"));
    for (out_dir, db_dir, expected) in [(&inner, &outer, "--output-dir"), (&outer, &inner, "--db-dir")] {
        let o = cli::rumbench_run()
            .args(["-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"])
            .arg(out_dir)
            .arg("--db-dir")
            .arg(db_dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let line = error_line(&o);
        assert!(
            line.contains(expected) && line.contains("is inside") && line.contains("two separate directories"),
            "{line}"
        );
        assert!(!outer.exists(), "nothing is created");
    }
    // The default layout, given explicitly, is fine.
    let o = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"])
        .arg(&outer)
        .arg("--db-dir")
        .arg(outer.join("db"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_target_host_too_long_for_a_config_name_gets_a_shortened_name() {
    // Nothing listens on it: the refusal must be about reaching it, not about the name.
    let host = format!("{}.invalid", "a".repeat(120));
    let o = cli::rumbench_run()
        .args(["-s", "ycsb-load", "--records", "10", "--target"])
        .arg(format!("postgres://u@{host}:5432/db"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let line = error_line(&o);
    assert!(!line.contains("use letters, digits"), "{line}");
    // A config name that is too long is said to be too long.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), format!("[[config]]\nengine = \"null\"\nname = \"{}\"", "n".repeat(101)))
        .unwrap();
    let o = cli::rumbench_run().arg("--config").arg(dir.path().join("s.toml")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(error_line(&o).contains("is 101 characters long: at most 100"), "{}", stderr(&o));
}

/// A device node of the kind /dev/null is (character 1,3), made with mknod
/// in `dir`: writing it must not replace it.
fn mknod_null(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mknod with a NUL-terminated path (the tests run as root, as CI does).
    let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(r, 0, "mknod: {} (this test needs root)", std::io::Error::last_os_error());
}

#[test]
fn export_and_report_write_to_what_a_path_names_and_never_replace_it() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    let t = tempfile::tempdir().unwrap();
    let run = t.path().join("run");
    run_ok(&["-e", "null", "-s", "fillseq", "-n", "1000"], &run);
    let export = |to: &Path, format: &str| {
        cli::rumbench().arg("export").arg(&run).args(["-f", format, "-o"]).arg(to).output().unwrap()
    };
    let report = |to: &Path| cli::rumbench().arg("report").arg(&run).arg("-o").arg(to).output().unwrap();

    // A device node: written through, still a device (as root, rename would have replaced it).
    let dev = t.path().join("null-device");
    mknod_null(&dev);
    for o in [export(&dev, "hdr-log"), report(&dev)] {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    assert!(std::fs::symlink_metadata(&dev).unwrap().file_type().is_char_device(), "the device node is still one");
    // /dev/full: the write fails, the exit says so, the device stays.
    let o = export(Path::new("/dev/full"), "markdown");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("No space left on device"), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata("/dev/full").unwrap().file_type().is_char_device());

    // A FIFO: what is written comes out of the pipe.
    let fifo = t.path().join("pipe");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = export(&fifo, "markdown");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(reader.join().unwrap().contains("rumbench results"), "the markdown went through the pipe");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());

    // A symlink: its target is written, the link stays a link.
    let (target, link) = (t.path().join("target.md"), t.path().join("link.md"));
    std::fs::write(&target, "old").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(export(&link, "markdown").status.code(), Some(0));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&target).unwrap().contains("rumbench results"));

    // One name of a hard link: both names see the new text.
    let (a, b) = (t.path().join("a.tsv"), t.path().join("b.tsv"));
    std::fs::write(&a, "old").unwrap();
    std::fs::hard_link(&a, &b).unwrap();
    assert_eq!(export(&b, "tsv").status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
    assert_eq!(std::fs::metadata(&a).unwrap().nlink(), 2);

    // A read-only file: refused before anything, left as it was.
    let ro = t.path().join("ro.md");
    std::fs::write(&ro, "keep").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    for o in [export(&ro, "markdown"), report(&ro)] {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(error_line(&o).contains("is read-only"), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "keep");

    // The run's own files: refused; the run is still a run.
    for name in ["result.json", "summary.txt", "intervals.csv"] {
        for o in [export(&run.join(name), "markdown"), report(&run.join(name))] {
            assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
            assert!(error_line(&o).contains("is a file of the rumbench run"), "{}", stderr(&o));
        }
    }
    assert_eq!(load(&run)["schema"], "rumbench.result/1");
    // report's default: the run's own report.html, rewritten.
    let o = cli::rumbench().arg("report").arg(&run).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // A plain file is replaced (and says so in --help).
    let plain = t.path().join("plain.md");
    std::fs::write(&plain, "old").unwrap();
    assert_eq!(export(&plain, "markdown").status.code(), Some(0));
    assert!(std::fs::read_to_string(&plain).unwrap().contains("rumbench results"));
    let help = cli::rumbench().args(["export", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("An existing file is replaced"));
}

#[test]
fn a_failed_write_to_standard_output_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    let run = t.path().join("run");
    run_ok(&["-e", "null", "-s", "fillseq", "-n", "1000"], &run);
    let full = || std::process::Stdio::from(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
    for args in [
        vec!["export".to_string(), run.display().to_string(), "-f".into(), "markdown".into()],
        vec!["compare".into(), run.display().to_string(), run.display().to_string()],
        vec!["engines".into()],
    ] {
        let o = cli::rumbench().args(&args).stdout(full()).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write to standard output: No space left on device"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // A run whose summary cannot be written: its files are there, the exit is not 0.
    let o = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "1000", "--output-dir"])
        .arg(t.path().join("run2"))
        .stdout(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(load(&t.path().join("run2"))["status"], "completed");
}

#[test]
fn unwritable_output_dir_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = cli::rumbench_run().args(["-e", "null", "--output-dir"]).arg(file.join("sub")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(error_line(&out).contains("cannot create output directory"), "{}", stderr(&out));
}

#[test]
fn a_read_step_on_an_empty_database_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "flush,readrandom,fillseq", "-n", "1000", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line = error_line(&out);
    assert!(line.contains("step readrandom reads existing keys, but no fill step runs before it"), "{line}");
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(!out_dir.exists(), "nothing is written for a plan that cannot run");
}

#[test]
fn a_database_with_no_keys_fails_its_read_step_and_keeps_earlier_results() {
    // An existing database that holds files but no key: only a run can tell.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let first = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "flush", "-n", "200", "--keep-db", "--db-dir"])
        .arg(&db)
        .arg("--output-dir")
        .arg(dir.path().join("first"))
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let out_dir = dir.path().join("out");
    let out = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "flush,readrandom", "-n", "200", "--use-existing-db", "--db-dir"])
        .arg(&db)
        .arg("--output-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let line = error_line(&out);
    assert!(line.contains("readrandom needs data but the rocksdb database is empty"), "{line}");
    let v = load(&out_dir);
    assert_eq!(v["status"], "failed");
    assert_eq!(step(&v, 0, "flush")["status"], "completed");
    let rr = step(&v, 0, "readrandom");
    assert_eq!(rr["status"], "failed");
    assert!(rr["ops_s"].is_null(), "a failed step has no rate: {}", rr["ops_s"]);
    assert!(db.join("rocksdb/CURRENT").exists(), "an existing database is never removed");
}

#[test]
fn ctrl_c_stops_the_run_and_keeps_what_was_measured() {
    let dir = tempfile::tempdir().unwrap();
    let child = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "fillseq,readrandom,fwdrange", "-n", "2000", "--seconds", "3", "--output-dir"])
        .arg(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(4500));
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let v = load(dir.path());
    assert_eq!(v["status"], "interrupted");
    assert_eq!(step(&v, 0, "fillseq")["status"], "completed");
    let rr = step(&v, 0, "readrandom");
    assert_eq!(rr["status"], "interrupted");
    assert!(rr["ops"].as_u64().unwrap() > 0);
    assert!(rr["wall_s"].as_f64().unwrap() < 2.5);
    assert_eq!(v["configs"][0]["steps"].as_array().unwrap().len(), 2);
}

#[test]
fn engines_and_help_describe_everything() {
    let out = cli::rumbench().arg("engines").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["rocksdb", "lmdb", "sqlite", "null", "block_cache_size", "default 8M", "sync_mode", "journal_mode"] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    let out = cli::rumbench().args(["run", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--engine",
        "--steps",
        "--num",
        "--seconds",
        "--threads",
        "--key-size",
        "--value-size",
        "--compression-ratio",
        "--key-order",
        "--distribution",
        "--seed",
        "--range-len",
        "--writer-rate",
        "--output-dir",
        "--option",
        "--config",
    ] {
        assert!(text.contains(flag), "{flag} missing from run --help");
    }
    let out = cli::rumbench().arg("steps").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("readwhilewriting"));
}

#[test]
fn a_full_disk_fails_the_run_with_the_cause_and_keeps_results() {
    // A 4 MB tmpfs as the data filesystem (the tests run as root, as CI does).
    let mnt = tempfile::tempdir().unwrap();
    let ok = Command::new("mount").args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"]).arg(mnt.path()).status().unwrap();
    assert!(ok.success(), "cannot mount a tmpfs: this test needs root");
    let dir = tempfile::tempdir().unwrap();
    // A first step that fits (about 1 MB), then one that cannot (about 23 MB).
    let suite = dir.path().join("full.toml");
    std::fs::write(
        &suite,
        "[settings]\nnum = 200000\n[[config]]\nengine = \"rocksdb\"\n\
         [[step]]\nname = \"fillseq\"\nops = 10000\n[[step]]\nname = \"fillrandom\"\n",
    )
    .unwrap();
    let out = cli::rumbench_run()
        .arg("--config")
        .arg(&suite)
        .arg("--db-dir")
        .arg(mnt.path().join("db"))
        .arg("--output-dir")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(mnt.path()).status();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let line = error_line(&out);
    assert!(line.contains("full") || line.contains("No space left"), "{line}");
    let v = load(&dir.path().join("out"));
    assert_eq!(v["status"], "failed");
    assert_eq!(step(&v, 0, "fillseq")["status"], "completed", "the step before the failure is kept");
    // What the failed step's clients completed before the disk filled is kept, not "ops: 0".
    let failed = step(&v, 0, "fillrandom");
    assert_eq!(failed["status"], "failed");
    let ops = failed["ops"].as_u64().unwrap();
    assert!(ops > 0, "{failed}");
    assert_eq!(failed["ops_by_type"][0]["ops"], ops, "the operations by type are kept");
    assert!(!failed["ops_by_type"][0]["intervals"].as_array().unwrap().is_empty(), "and their seconds");
    assert!(failed["ops_s"].is_null(), "no rate for a step cut short");
    let missing = failed["metrics"]["missing"].to_string();
    assert!(missing.contains("the step failed after") && missing.contains("space_amp"), "{missing}");
    assert!(failed["metrics"]["space_amp"].is_null());
}

#[test]
fn a_step_with_nothing_to_do_prints_no_latency() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::rumbench_run()
        .args(["-e", "lmdb", "-s", "fillseq,waitforcompaction", "-n", "1000", "--output-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let line = stderr(&out).lines().find(|l| l.contains("lmdb waitforcompaction")).unwrap_or_default().to_string();
    assert!(line.contains("no operation timed") && !line.contains("p50 0 us"), "{line}");
}

#[test]
fn waitforcompaction_returns_with_universal_compaction_and_marks_a_timeout() {
    // Universal compaction keeps "compaction-pending" at 1 when it has nothing
    // to pick (RocksDB issue 9275): polling it ran to the timeout every time.
    let dir = tempfile::tempdir().unwrap();
    let v = run_ok(
        &[
            "-e",
            "rocksdb",
            "-o",
            "compaction_style=universal",
            "-o",
            "write_buffer_size=1M",
            "-s",
            "fillrandom,waitforcompaction",
            "-n",
            "100000",
            "--compaction-timeout",
            "60",
        ],
        dir.path(),
    );
    let w = step(&v, 0, "waitforcompaction");
    assert_eq!(w["status"], "completed");
    assert!(w["wall_s"].as_f64().unwrap() < 30.0, "waited {} s", w["wall_s"]);
    assert!(w.get("timed_out").is_none_or(|t| t == false));

    // A timeout too short for the compactions it has to wait for is marked
    // and warned about. The wait's own flush starts a compaction of all of
    // L0 and L1 (trigger 1), far longer than 1 ms. (A lone flush is no test:
    // RocksDB flushes before it looks at the deadline, and with nothing left
    // after it the wait ends done, however long the flush took.)
    let dir = tempfile::tempdir().unwrap();
    let out = cli::rumbench_run()
        .args([
            "-e",
            "rocksdb",
            "-o",
            "write_buffer_size=1M",
            "-o",
            "level0_file_num_compaction_trigger=1",
            "-s",
            "fillrandom,waitforcompaction",
            "-n",
            "300000",
            "--compaction-timeout",
            "0.001",
            "--output-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(dir.path());
    let w = step(&v, 0, "waitforcompaction");
    assert_eq!(w["timed_out"], true, "{w}");
    assert!(w["warnings"][0].as_str().unwrap().contains("waitforcompaction timed out"), "{w}");
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(summary.lines().any(|l| l.contains("waitforcompaction") && l.contains("TIMED OUT")), "{summary}");
}

#[test]
fn results_say_exactly_what_ran() {
    let dir = tempfile::tempdir().unwrap();
    let v = run_ok(&["-e", "rocksdb:blob", "-s", "fillseq", "-n", "2000", "-o", "cache_type=hyper_clock"], dir.path());
    let c = &v["configs"][0];
    assert_eq!(c["name"], "rocksdb-blob", "a preset is a named config");
    assert_eq!(c["engine_version"], "11.8.1");
    let prov: Vec<(String, String)> = serde_json::from_value(c["provenance"].clone()).unwrap();
    let get = |k: &str| {
        prov.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no {k} in {prov:?}"))
    };
    assert!(get("build.ndebug").starts_with("true"));
    assert!(get("build.target_cpu").starts_with("native"), "{}", get("build.target_cpu"));
    assert_eq!(get("version"), "11.8.1");
    let eff: Vec<(String, String)> = serde_json::from_value(c["effective_options"].clone()).unwrap();
    let opt = |k: &str| eff.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_default();
    assert_eq!(opt("CFOptions.enable_blob_files"), "true");
    assert!(opt("BlockBasedTable.block_cache").starts_with("HyperClockCache"), "{eff:?}");
    let build: Vec<(String, String)> = serde_json::from_value(v["build"].clone()).unwrap();
    assert!(build.iter().any(|(k, val)| k == "profile" && val == "release"), "{build:?}");
    assert!(
        !v["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("assertions")),
        "a release build is not warned about"
    );
    let out = cli::rumbench().args(["engines", "rocksdb"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("preset rocksdb:blob") && text.contains("build.ndebug: true"), "{text}");
}

/// Wait at most `limit` for `child`; kill it when it takes longer. Its output and how long it took.
fn wait_at_most(child: std::process::Child, limit: std::time::Duration) -> (Output, std::time::Duration) {
    let began = std::time::Instant::now();
    let mut child = child;
    while child.try_wait().unwrap().is_none() && began.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    (child.wait_with_output().unwrap(), began.elapsed())
}

#[test]
fn bad_values_are_refused_at_plan_time_with_one_line() {
    let rww: &[&str] = &["-e", "null", "-s", "fillseq,readwhilewriting"];
    // (arguments, a suite file or "", what the error says)
    let cases: &[(&[&str], &str, &str)] = &[
        (&["-e", "rocksdb", "-o", "max_subcompactions=-1"], "", "invalid value '-1' for rocksdb.max_subcompactions (expected an integer from 1 to 1024)"),
        (&["-e", "rocksdb", "-o", "num_levels=-3"], "", "invalid value '-3' for rocksdb.num_levels (expected an integer from 1 to 100)"),
        (&["-e", "sqlite", "-o", "page_size=-1"], "", "invalid value '-1' for sqlite.page_size (expected an integer from 512 to 65536)"),
        (&["-e", "sqlite", "-o", "page_size=1000"], "", "sqlite.page_size=1000 is not a power of two"),
        (&["-e", "sqlite", "-o", "busy_timeout_ms=-1"], "", "invalid value '-1' for sqlite.busy_timeout_ms (expected an integer from 0 to 2147483647)"),
        (&["-e", "lmdb", "-o", "max_readers=-1"], "", "invalid value '-1' for lmdb.max_readers (expected an integer from 1 to 100000)"),
        (&["-e", "rocksdb", "-o", "write_buffer_size=1e30"], "", "invalid value '1e30' for rocksdb.write_buffer_size"),
        (&["-e", "null", "--num", "100000000000000"], "", "--num must be at most 17179869184 (a bit per key is kept in memory), got 100000000000000"),
        (&["-e", "null", "--value-size", "100000000000"], "", "--value-size must be at most 67108864 (64 MiB)"),
        (&["-e", "null", "--key-size", "100000000000"], "", "--key-size must be at most 65536"),
        (&["-e", "null", "--batch-size", "100000000000"], "", "--batch-size must be at most 1000000"),
        (&["-e", "null", "--batch-size", "100000", "--value-size", "100000"], "", "--batch-size 100000 of 100016-byte entries is 10001600000 bytes per batch; at most 1073741824"),
        (&["-e", "null", "--multiget-batch", "100000000000"], "", "--multiget-batch must be at most 1000000"),
        (&["-e", "null", "--range-len", "100000000000"], "", "--range-len must be at most 1000000"),
        (&["-e", "null", "--compaction-timeout", "inf"], "", "--compaction-timeout must be at most 604800 (a week), got inf"),
        (&["-e", "null", "--compaction-timeout", "nan"], "", "--compaction-timeout must be between 0.001 and 604800, got NaN"),
        (&["-e", "null", "--seconds=-1"], "", "--seconds must be at least 0.001, got -1"),
        (&["-e", "null", "--seconds", "inf"], "", "--seconds must be at most 604800 (a week), got inf"),
        (&["-e", "null", "--query-seconds", "1e300"], "", "--query-seconds must be at most 604800"),
        (&["-e", "null", "--field-length", "1000000000"], "", "--field-length must be at most 67108864"),
        (&["-e", "null", "--writer-rate", "inf"], "", "invalid writer rate 'inf'"),
        (&[rww, &["--writer-rate", "0.01"]].concat(), "", "step readwhilewriting: --writer-rate 0.01 is 0.010 writes/s of 116-byte entries; at least 1 write/s"),
        (&[rww, &["--writer-rate", "1e-300"]].concat(), "", "step readwhilewriting: --writer-rate 1e-300 is 0.000 writes/s"),
        (&[rww, &["--writer-rate", "1KB", "--value-size", "65536"]].concat(), "", "--writer-rate 1KB is 0.016 writes/s of 65552-byte entries"),
        // A suite file's values go through the same checks.
        (&[], "[settings]\ncompaction_timeout = inf\n[[config]]\nengine = \"null\"", "--compaction-timeout must be at most 604800 (a week), got inf"),
        (&[], "[settings]\nvalue_size = 100000000000\n[[config]]\nengine = \"null\"", "--value-size must be at most 67108864 (64 MiB)"),
        (&[], "[[config]]\nengine = \"rocksdb\"\noptions = { num_levels = -3 }", "invalid value '-3' for rocksdb.num_levels"),
        (&[], "[[config]]\nengine = \"null\"\n[[step]]\nname = \"fillseq\"\n[[step]]\nname = \"readwhilewriting\"\nwriter_rate = \"0.5\"", "--writer-rate 0.5 is 0.500 writes/s"),
        // LMDB's reader table against hot rows' grid (up to 64 clients): refused with the cause, not "cannot open".
        (&["-e", "lmdb", "-s", "hotrow"], "", "lmdb: max_readers 126 serves at most 125 client threads at once, and this run opens 129 (set -o lmdb.max_readers=130 or more"),
        // An order that runs is suggested, not "l.i0,l.x,l.x".
        (&["-e", "lmdb", "-s", "l.x"], "", "step l.x needs the tables loaded: run l.i0 before it (e.g. --steps l.i0,l.x)"),
        // Clap's required arguments are named.
        (&["-e", "null", "--step-gap", "5"], "", "the following required arguments were not provided: --start-at <TIME>"),
    ];
    for (args, suite, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("out");
        let mut cmd = cli::rumbench_run();
        cmd.args(*args).arg("--output-dir").arg(&out_dir);
        if !suite.is_empty() {
            std::fs::write(dir.path().join("suite.toml"), suite).unwrap();
            cmd.arg("--config").arg(dir.path().join("suite.toml"));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} {suite:?}: {}", stderr(&out));
        assert!(error_line(&out).contains(expected), "{args:?} {suite:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?} {suite:?}: {}", stderr(&out));
        assert!(!out_dir.exists(), "{args:?} {suite:?}: nothing is written for a plan that cannot run");
    }
}

#[test]
fn a_big_sweep_is_refused_at_once_with_its_count() {
    let dir = tempfile::tempdir().unwrap();
    let values = |n: usize| (1..=n).map(|v| v.to_string()).collect::<Vec<_>>().join(",");
    let child = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "fillseq", "-n", "100"])
        .arg("--sweep")
        .arg(format!("max_subcompactions={}", values(50)))
        .arg("--sweep")
        .arg(format!("max_background_jobs={}", values(50)))
        .arg("--sweep")
        .arg(format!("level0_file_num_compaction_trigger={}", values(50)))
        .arg("--output-dir")
        .arg(dir.path().join("out"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (out, took) = wait_at_most(child, std::time::Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let line = error_line(&out);
    assert!(line.contains("--sweep makes 125000 configs (50 x 50 x 50); at most 1000 in one run: split it"), "{line}");
    assert!(took < std::time::Duration::from_secs(5), "refused after {took:?}");
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_stopped_sweep_records_the_configs_left_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let ten = "1,2,3,4,5,6,7,8,9,10";
    let child = cli::rumbench_run()
        .args(["-e", "rocksdb", "-s", "fillseq", "-n", "100"])
        .args(["--sweep", &format!("rocksdb.max_subcompactions={ten}")])
        .args([
            "--sweep",
            &format!("rocksdb.max_background_jobs={ten}"),
            "--sweep",
            &format!("rocksdb.bloom_bits={ten}"),
        ])
        .arg("--output-dir")
        .arg(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let (out, took) = wait_at_most(child, std::time::Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
    assert!(took < std::time::Duration::from_secs(10), "stopped after {took:?}");
    let v = load(dir.path());
    let configs = v["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 1000, "every config is recorded");
    let not_run = configs.iter().filter(|c| c["status"] == "not_run").count();
    assert!(not_run > 900, "{not_run} of 1000 not run");
}

#[test]
fn a_server_that_is_not_installed_is_refused_before_anything_is_written() {
    // RUMBENCH_SERVER_BIN_DIR: where the server programs are looked for; an
    // empty directory stands for a machine without the server packages.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("no-servers");
    std::fs::create_dir(&empty).unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        "[settings]\nsteps = [\"ycsb-load\"]\nrecords = 100\n[[config]]\nengine = \"mariadb-myrocks\"\n",
    )
    .unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-e", "mariadb-innodb", "-s", "l.i0", "--rows", "1000"], "mariadb-install-db"),
        (&["-e", "postgres", "-s", "ycsb-load", "--records", "100"], "initdb"),
        (&["-c", suite.to_str().unwrap()], "mariadb-install-db"),
        (
            &[
                "-e",
                "mariadb-innodb",
                "--sweep",
                "mariadb-innodb.connect=unix,tcp",
                "-s",
                "ycsb-load",
                "--records",
                "100",
            ],
            "mariadb-install-db",
        ),
    ];
    for (args, program) in cases {
        // The default output directory (results/<time> under the working directory) must not appear.
        let out = cli::rumbench_run()
            .env("RUMBENCH_SERVER_BIN_DIR", &empty)
            .current_dir(dir.path())
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?}: {}", stderr(&out));
        let line = error_line(&out);
        assert!(
            line.contains(&format!("{program} is not installed")) && line.contains("scripts/install-servers.sh"),
            "{args:?}: {line}"
        );
        assert!(!dir.path().join("results").exists(), "{args:?}: a results directory was created");
    }
    // A server the user runs needs nothing installed here: the refusal is about reaching it.
    let out = cli::rumbench_run()
        .env("RUMBENCH_SERVER_BIN_DIR", &empty)
        .current_dir(dir.path())
        .args(["--target", "postgres://bench@127.0.0.1:1/db", "-s", "ycsb-load", "--records", "100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stderr(&out).contains("install-servers"), "{}", stderr(&out));
}

#[cfg(not(feature = "wiredtiger"))]
#[test]
fn an_engine_left_out_of_this_build_says_how_to_build_it() {
    let build = "cargo build --release --locked --features wiredtiger";
    for args in [&["-e", "wiredtiger"][..], &["-e", "rocksdb", "-o", "wiredtiger.cache_size=1G"]] {
        let out = cli::rumbench_run().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?}: {}", stderr(&out));
        let line = error_line(&out);
        assert!(
            line.contains("engine 'wiredtiger' is not in this build")
                && line.contains(build)
                && line.contains("scripts/build-wiredtiger.sh"),
            "{line}"
        );
    }
    // `rumbench engines` lists it the same way.
    let out = cli::rumbench().arg("engines").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let entry =
        text.lines().find(|l| l.starts_with("wiredtiger ")).unwrap_or_else(|| panic!("no wiredtiger entry:\n{text}"));
    assert!(entry.contains("not in this build") && entry.contains(build), "{entry}");
    let out = cli::rumbench().args(["engines", "wiredtiger"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(build), "{}", String::from_utf8_lossy(&out.stderr));
}
