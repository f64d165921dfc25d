//! Trace record and replay through the real binary: a recording replayed
//! on another engine makes the same calls (its checksum) and finds the same
//! keys; a replay at a scaled timing keeps to its schedule; a trace
//! db_bench wrote replays on any engine; and the refusals.

use serde_json::Value;

use crate::common::cli::{self, load, refused, run_ok, text};

fn step<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["configs"][0]["steps"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

fn ops_of(s: &Value, op: &str) -> u64 {
    s["ops_by_type"].as_array().unwrap().iter().find(|o| o["op"] == op).map_or(0, |o| o["ops"].as_u64().unwrap())
}

/// `rumbench replay FILE ARGS` into `dir`, which must succeed.
fn replay_ok(file: &std::path::Path, args: &[&str], dir: &std::path::Path) -> Value {
    let o = cli::rumbench()
        .arg("replay")
        .arg(file)
        .args(["--progress", "off", "--no-history"])
        .args(args)
        .arg("--output-dir")
        .arg(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "replay {args:?}: {}", text(&o));
    load(dir)
}

#[test]
fn a_recording_replayed_on_another_engine_makes_the_same_calls() {
    let t = tempfile::tempdir().unwrap();
    let trace = t.path().join("t.rtrace");
    let common = ["-n", "4000", "--seed", "7"];
    let mut args = vec!["-e", "rocksdb", "-s", "fillrandom,readrandom", "-t", "2", "--trace", trace.to_str().unwrap()];
    args.extend(common);
    run_ok(&args, &t.path().join("recorded"));
    let recorded = load(&t.path().join("recorded"));
    let fill_file = t.path().join("t.rocksdb.1-fillrandom.rtrace");
    let read_file = t.path().join("t.rocksdb.2-readrandom.rtrace");
    let rec_read = step(&recorded, "readrandom");
    assert_eq!(rec_read["trace"]["path"], read_file.to_str().unwrap());
    assert_eq!(rec_read["trace"]["calls"], 4000);

    // The fill's trace on LMDB, on its recorded two threads, as fast as it goes.
    let r = replay_ok(&fill_file, &["-e", "lmdb", "--replay-speed", "max"], &t.path().join("fill"));
    let s = step(&r, "replay");
    assert_eq!(s["status"], "completed", "{s}");
    let rp = &s["replay"];
    assert_eq!(
        (rp["calls"].as_u64(), rp["replayed"].as_u64(), rp["threads"].as_u64()),
        (Some(4000), Some(4000), Some(2))
    );
    assert_eq!(rp["mapping"], "recorded");
    assert_eq!(rp["same_calls"], true);
    assert_eq!(rp["replayed_checksum"], step(&recorded, "fillrandom")["trace"]["checksum"]);
    assert_eq!(ops_of(s, "put"), 4000);
    assert_eq!(rp["sha256"].as_str().unwrap().len(), 64);

    // The reads' trace on LMDB after the same fill (its 2 threads), dealt
    // to 3 threads: the same keys, so the same ones found.
    let suite = t.path().join("suite.toml");
    std::fs::write(
        &suite,
        "[[step]]\nname = \"fillrandom\"\nthreads = 2\n\n[[step]]\nname = \"replay\"\nthreads = 3\n",
    )
    .unwrap();
    let mut args = vec!["-e", "lmdb", "-c", suite.to_str().unwrap(), "--replay-speed", "max"];
    args.extend(common);
    let r = replay_ok(&read_file, &args, &t.path().join("read"));
    let s = step(&r, "replay");
    assert_eq!(s["replay"]["mapping"], "by start");
    assert_eq!(s["replay"]["same_calls"], true);
    assert_eq!(s["reads"], rec_read["reads"], "the keys the recording found, found again");
    assert!(s["reads"]["not_found"].as_u64().unwrap() > 0, "fillrandom leaves keys out: {}", s["reads"]);
}

#[test]
fn a_replay_keeps_to_its_scaled_schedule() {
    let t = tempfile::tempdir().unwrap();
    let trace = t.path().join("paced.rtrace");
    // 2 s of reads at 1000 a second: a span of 2 s.
    run_ok(
        &[
            "-e",
            "rocksdb",
            "-s",
            "fillseq,readrandom",
            "-n",
            "2000",
            "--seconds",
            "2",
            "--rate",
            "1000",
            "--trace",
            trace.to_str().unwrap(),
        ],
        &t.path().join("recorded"),
    );
    let file = t.path().join("paced.rocksdb.2-readrandom.rtrace");
    let r = replay_ok(
        &file,
        &["-e", "rocksdb", "--steps", "fillseq,replay", "-n", "2000", "--replay-speed", "2"],
        &t.path().join("fast"),
    );
    let s = step(&r, "replay");
    let rp = &s["replay"];
    assert_eq!(rp["same_calls"], true, "{s}");
    let span = rp["span_s"].as_f64().unwrap();
    assert!((1.9..2.0).contains(&span), "the recording's calls span its 2 s: {span}");
    // A call never starts before its moment: the last one's is span / 2 after the start.
    let wall = s["wall_s"].as_f64().unwrap();
    assert!(wall >= span / 2.0 && wall < span, "replayed at twice the rate in {wall} s, span {span} s");
    assert_eq!(rp["start_lateness"]["count"].as_u64(), rp["replayed"].as_u64());
    assert_eq!(s["parameters"]["replay_speed"], "2");
}

#[test]
fn a_trace_db_bench_wrote_replays_on_any_engine() {
    let t = tempfile::tempdir().unwrap();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocksdb_trace/mixgraph-300.trace");
    for engine in ["rocksdb", "sqlite"] {
        let r = replay_ok(&file, &["-e", engine, "--replay-speed", "max"], &t.path().join(engine));
        let s = step(&r, "replay");
        assert_eq!(s["status"], "completed", "{s}");
        assert_eq!((ops_of(s, "get"), ops_of(s, "put"), ops_of(s, "seek")), (177, 93, 30));
        let rp = &s["replay"];
        assert!(rp["format"].as_str().unwrap().starts_with("RocksDB trace 0.2 (RocksDB 11."), "{}", rp["format"]);
        assert_eq!((rp["recorded_threads"].as_u64(), rp["same_calls"].as_bool()), (Some(1), Some(true)));
        assert!(rp.get("skipped").is_none(), "mixgraph's calls are all replayable: {rp}");
    }
}

#[test]
fn what_cannot_be_recorded_or_replayed_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let existing = t.path().join("there.rtrace");
    std::fs::write(&existing, b"mine").unwrap();
    let e = existing.to_str().unwrap();
    let err = refused(&["-e", "rocksdb", "-s", "fillseq", "--trace", e]);
    assert!(err.contains("exists") && err.contains("writes over nothing"), "{err}");
    assert_eq!(std::fs::read(&existing).unwrap(), b"mine");
    let err = refused(&["-e", "rocksdb", "-s", "fillseq", "--replay", e]);
    assert!(err.contains("no step is replay"), "{err}");
    let err = refused(&["-e", "rocksdb", "-s", "replay"]);
    assert!(err.contains("--replay FILE"), "{err}");
    let err = refused(&["-e", "rocksdb", "-s", "replay", "--replay", e]);
    assert!(err.contains("neither a rumbench trace"), "{err}");
    let err = refused(&["-e", "rocksdb", "-s", "replay", "--replay", "/nonexistent/t.rtrace"]);
    assert!(err.contains("cannot read"), "{err}");
    let err = refused(&["-e", "rocksdb", "-s", "replay", "--replay", e, "--replay-speed", "fast"]);
    assert!(err.contains("max or a factor"), "{err}");
    let new = t.path().join("new.rtrace");
    let err = refused(&["-e", "rocksdb", "-s", "ycsb-load", "--trace", new.to_str().unwrap()]);
    assert!(err.contains("no step here"), "{err}");
    let err = refused(&["-e", "rocksdb", "-s", "fillseq", "--trace", "/nonexistent/dir/t.rtrace"]);
    assert!(err.contains("does not exist"), "{err}");
    let err = refused(&["-e", "rocksdb", "-s", "fillseq", "--repeat", "2", "--trace", new.to_str().unwrap()]);
    assert!(err.contains("--repeat"), "{err}");
    assert!(!new.exists());
}

/// A recording killed mid-write (its file cut inside a chunk) replays every
/// whole call before the cut and counts the calls lost there; a RocksDB
/// trace without its end record, or with records of a type nobody knows,
/// says so instead of claiming the same calls.
#[test]
fn a_trace_cut_short_or_unended_replays_what_it_holds_and_says_so() {
    let t = tempfile::tempdir().unwrap();
    let trace = t.path().join("t.rtrace");
    // About 21 bytes a call: 40,000 calls are several 256 KiB chunks.
    run_ok(
        &["-e", "null", "-s", "readrandom", "-n", "40000", "--trace", trace.to_str().unwrap()],
        &t.path().join("recorded"),
    );
    let data = std::fs::read(&trace).unwrap();
    let cut = t.path().join("cut.rtrace");
    std::fs::write(&cut, &data[..data.len() * 2 / 3]).unwrap();
    let r = replay_ok(&cut, &["-e", "null", "--replay-speed", "max"], &t.path().join("cut"));
    let s = step(&r, "replay");
    assert_eq!(s["status"], "completed", "{s}");
    let rp = &s["replay"];
    let (replayed, lost) = (rp["replayed"].as_u64().unwrap(), rp["cut"]["calls"].as_u64().unwrap());
    assert!(replayed > 10_000 && lost > 0 && replayed + lost < 40_000, "{rp}");
    assert_eq!((rp["complete_recording"].as_bool(), rp["same_calls"].as_bool()), (Some(false), Some(false)));
    let warnings = s["warnings"].to_string();
    assert!(warnings.contains("cut short at byte") && warnings.contains("cut off there"), "{warnings}");

    let fixture = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocksdb_trace/mixgraph-300.trace"),
    )
    .unwrap();
    // Its last 13 bytes are its end record.
    assert_eq!(fixture[fixture.len() - 5], 2, "the fixture ends with RocksDB's end record");
    let body = &fixture[..fixture.len() - 13];
    let unended = t.path().join("unended.trace");
    std::fs::write(&unended, body).unwrap();
    let r = replay_ok(&unended, &["-e", "null", "--replay-speed", "max"], &t.path().join("unended"));
    let s = step(&r, "replay");
    let rp = &s["replay"];
    assert_eq!(rp["replayed"], 300);
    assert_eq!((rp["complete_recording"].as_bool(), rp["same_calls"].as_bool()), (Some(false), Some(false)));
    assert!(s["notes"].to_string().contains("no end record"), "{s}");
    // A record of type 99 among them, then the end record.
    let mut odd = body.to_vec();
    odd.extend_from_slice(&1u64.to_le_bytes());
    odd.push(99);
    odd.extend_from_slice(&2u32.to_le_bytes());
    odd.extend_from_slice(b"??");
    odd.extend_from_slice(&fixture[fixture.len() - 13..]);
    let unknown = t.path().join("unknown.trace");
    std::fs::write(&unknown, &odd).unwrap();
    let r = replay_ok(&unknown, &["-e", "null", "--replay-speed", "max"], &t.path().join("unknown"));
    let rp = &step(&r, "replay")["replay"];
    assert_eq!((rp["complete_recording"].as_bool(), rp["same_calls"].as_bool()), (Some(true), Some(false)));
    assert!(rp["skipped"].to_string().contains("type this reader does not know (99)"), "{rp}");
}

/// A damaged trace, a trace header that is not one, and a `--trace` file
/// rumbench cannot write are refused before anything starts (before the
/// fill a replay follows), not at the step.
#[test]
fn a_damaged_trace_or_an_unwritable_recording_is_refused_before_anything_starts() {
    let t = tempfile::tempdir().unwrap();
    let trace = t.path().join("t.rtrace");
    run_ok(&["-e", "null", "-s", "readrandom", "-n", "100", "--trace", trace.to_str().unwrap()], &t.path().join("r"));
    let data = std::fs::read(&trace).unwrap();
    let header_end = 14 + u32::from_le_bytes(data[10..14].try_into().unwrap()) as usize;
    // A chunk claiming thread 0x7FFFFFFF: refused, not a 48 GB allocation.
    let mut bad = data[..header_end].to_vec();
    for w in [0x7FFF_FFFFu32, 1, 0] {
        bad.extend_from_slice(&w.to_le_bytes());
    }
    let damaged = t.path().join("damaged.rtrace");
    std::fs::write(&damaged, &bad).unwrap();
    let d = damaged.to_str().unwrap();
    let err = refused(&["-e", "null", "-s", "fillseq,replay", "--replay", d]);
    assert!(err.contains("claims thread 2147483647") && err.contains("damaged"), "{err}");
    // A header that is not JSON.
    let mut bad = data[..10].to_vec();
    bad.extend_from_slice(&3u32.to_le_bytes());
    bad.extend_from_slice(b"{x}");
    std::fs::write(&damaged, &bad).unwrap();
    let err = refused(&["-e", "null", "-s", "fillseq,replay", "--replay", d]);
    assert!(err.contains("header is not readable"), "{err}");
    // A directory no file can be made in (root writes anywhere else).
    let err = refused(&["-e", "null", "-s", "fillseq", "--trace", "/proc/t.rtrace"]);
    assert!(err.contains("cannot write /proc/t.rtrace"), "{err}");
    assert!(!std::path::Path::new("/proc/t.rtrace").exists());
}
