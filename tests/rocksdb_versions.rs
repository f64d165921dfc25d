//! RocksDB versions (`-e rocksdb@8.10`): bad requests refused at plan time,
//! and the build-and-exec path of a version run for real.
//!
//! Building an old RocksDB takes 15-20 minutes on 2 cores, too long for CI.
//! CI runs the version path with RocksDB 11.8.1 built as if it were another
//! version (RUMBENCH_ROCKSDB_BUILD_BUILTIN): the same generated manifest,
//! lockfile, cargo build into the cache, checks of the build, and the
//! config process exec'd from the cache, with librocksdb-sys 0.19.0 reused
//! from the main build (RUMBENCH_ROCKSDB_TARGET_DIR), so only rumbench's own
//! crate is compiled (scripts/test.sh builds it before the tests, about 3
//! minutes). A real older version is run by
//! `an_older_version_runs_with_its_provenance` when its build is cached
//! (RUMBENCH_TEST_ROCKSDB_VERSION=8.10 makes it required); see docs/rocksdb-versions.md.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::cli::{self, Isolation};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

fn refused(args: &[&str]) -> String {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let out = cli::rumbench_run()
        .args(args)
        .arg("--output-dir")
        .arg(&out_dir)
        .cache_in(&t.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert!(!out_dir.exists(), "{args:?}: nothing written before the run starts");
    // A version without a source here is looked up among rocksdbjni's
    // (the version list in the cache's Maven repository): nothing else.
    assert!(!t.path().join("cache/rumbench/rocksdb").exists(), "{args:?}: nothing built or fetched for a refused plan");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn an_unknown_version_is_refused_with_the_versions_that_exist() {
    for args in [
        vec!["-e", "rocksdb@8.11:source", "-s", "fillseq"],
        vec!["-e", "rocksdb", "--sweep", "rocksdb.version=8.10,7.3:source", "-s", "fillseq"],
        vec!["-e", "rocksdb@latest", "-s", "fillseq"],
        // No such release on Maven Central (7.6.0 and 7.7.3 are).
        vec!["-e", "rocksdb@7.6.1", "-s", "fillseq"],
    ] {
        let err = refused(&args);
        assert!(
            err.contains("unknown RocksDB version")
                && err.contains("6.28.2, 7.4.4, 7.9.2, 8.1.1, 8.6.7, 8.8.1, 8.9.1, 8.10.0, 9.9.3, 10.4.2, 11.8.1"),
            "{err}"
        );
    }
    let err = refused(&["-e", "rocksdb@8.5:source", "-s", "fillseq"]);
    assert!(err.contains("bundles RocksDB 8.6.7"), "{err}");
    let err = refused(&["-e", "rocksdb@7.6.1:release", "-s", "fillseq"]);
    assert!(err.contains("rocksdbjni has release builds of 6.28.2, 6.29.4.1, 6.29.5, 7.0.3"), "{err}");
    let err = refused(&["-e", "rocksdb@6.22:release", "-s", "fillseq"]);
    assert!(err.contains("older than 6.28.2, the oldest RocksDB whose C API rumbench binds"), "{err}");
    let err = refused(&["-e", "lmdb@0.9", "-s", "fillseq"]);
    assert!(err.contains("only these take a version: postgres@16, mariadb-innodb@10.2, rocksdb@VERSION"), "{err}");
}

#[test]
fn what_a_version_lacks_is_refused_before_anything_is_built() {
    let err = refused(&["-e", "rocksdb@6.28", "-o", "cache_type=hyper_clock", "-s", "fillseq"]);
    assert!(err.contains("needs RocksDB 8.8.1 or later; this config runs RocksDB 6.28.2"), "{err}");
    let err = refused(&["-e", "rocksdb@7.4", "-o", "compaction_pri=round_robin", "-s", "fillseq"]);
    assert!(err.contains("compaction_pri=round_robin needs RocksDB 7.9.2"), "{err}");
    let err = refused(&["-e", "rocksdb@6.28", "-s", "fillseq,multireadrandom"]);
    assert!(err.contains("multireadrandom needs RocksDB 7.4.4"), "{err}");
    // transactions=auto becomes pessimistic for a contention step.
    let err = refused(&["-e", "rocksdb@6.28", "-s", "hotrow", "--threads", "2"]);
    assert!(err.contains("transactions=pessimistic needs RocksDB 7.4.4"), "{err}");
}

#[test]
fn rocksdb_versions_lists_every_version_and_what_it_lacks() {
    let t = tempfile::tempdir().unwrap();
    let out = cli::rumbench().arg("rocksdb-versions").cache_in(t.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("11.8.1") && l.contains("built in")), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("6.28.2") && l.contains("not built") && l.contains("no WaitForCompact")),
        "{text}"
    );
    assert!(text.contains(&t.path().join("rumbench/rocksdb").display().to_string()), "{text}");
}

/// The main build's target dir, whose librocksdb-sys a build of 11.8.1 reuses.
fn main_target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// `rumbench run ARGS` with the test cache's builds, its database and output
/// under `dir`: (the output, the output dir).
fn run_in_test_cache(args: &[&str], dir: &Path) -> (Output, PathBuf) {
    let out_dir = dir.join("out");
    let out = cli::rumbench_run()
        .args(args)
        .arg("--db-dir")
        .arg(dir.join("db"))
        .arg("--output-dir")
        .arg(&out_dir)
        .cache_in(&test_cache())
        .env("RUMBENCH_ROCKSDB_TARGET_DIR", main_target_dir())
        .output()
        .unwrap();
    (out, out_dir)
}

/// The cache scripts/test.sh fills before the tests (a test-only location).
fn test_cache() -> PathBuf {
    main_target_dir().join("test-cache")
}

#[test]
fn a_version_runs_in_its_own_cached_build_with_its_provenance() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let run = |out_dir: &Path| {
        cli::rumbench_run()
            .args(["-e", "rocksdb@11.8", "-s", "fillseq,readrandom", "-n", "20000", "--db-dir"])
            .arg(t.path().join("db"))
            .arg("--output-dir")
            .arg(out_dir)
            // Shared with scripts/test.sh, which builds 11.8 into it before
            // the tests (3 minutes): the test runs that build.
            .cache_in(&test_cache())
            .env("RUMBENCH_ROCKSDB_BUILD_BUILTIN", "1")
            .env("RUMBENCH_ROCKSDB_TARGET_DIR", main_target_dir())
            .output()
            .unwrap()
    };
    let out = run(&out_dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(&out_dir);
    let c = &v["configs"][0];
    assert_eq!(c["name"], "rocksdb-11.8.1");
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    let prov: Vec<(String, String)> = serde_json::from_value(c["provenance"].clone()).unwrap();
    let get = |k: &str| {
        prov.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no {k} in {prov:?}"))
    };
    // It ran in the cached build (whose build.json sits beside it), not in this binary.
    assert!(get("build.version_build").starts_with("cached build of rumbench-rocksdb-11_8_1"), "{prov:?}");
    assert_eq!(get("build.rocksdb_source"), "11.8.1");
    assert!(get("build.library").contains("librocksdb-sys 0.19.0+11.8.1"));
    assert!(get("build.ndebug").starts_with("true (checked"), "{prov:?}");
    let flags = get("build.rocksdb_cxx_flags");
    assert!(flags.contains("-O3") && flags.contains("-DNDEBUG") && flags.contains("-march=native"), "{flags}");
    assert!(c["engine_version"].as_str().unwrap_or_default().contains("11.8.1"), "{}", c["engine_version"]);
    for s in c["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "completed", "{}", s["name"]);
        assert!(s["ops"].as_u64().unwrap() > 0);
    }
    // Again: from the cache, nothing built.
    let out = run(&t.path().join("out2"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("building RocksDB"), "{}", stderr(&out));
}

/// An older RocksDB for real, when its build is in the user's cache
/// (`rumbench rocksdb-versions --build 8.10`): required with RUMBENCH_TEST_ROCKSDB_VERSION.
#[test]
fn an_older_version_runs_with_its_provenance() {
    let wanted = std::env::var("RUMBENCH_TEST_ROCKSDB_VERSION").ok();
    let version = wanted.clone().unwrap_or_else(|| "8.10".into());
    // The user's cache, not one of the test's: an older version takes 15-20
    // minutes to build, so only one the user built is run.
    let listed = cli::rumbench().users_cache().arg("rocksdb-versions").output().unwrap();
    let text = String::from_utf8_lossy(&listed.stdout).to_string();
    let full = text
        .lines()
        .find(|l| l.starts_with(&format!("{version}.")))
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_string);
    let cached = text.lines().any(|l| l.starts_with(&format!("{version}.")) && l.contains("cached"));
    if !cached {
        assert!(wanted.is_none(), "RocksDB {version} is not built: rumbench rocksdb-versions --build {version}");
        eprintln!("skipped: RocksDB {version} is not in the cache (rumbench rocksdb-versions --build {version})");
        return;
    }
    let full = full.unwrap();
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let out = cli::rumbench_run()
        .users_cache()
        .args([
            "-e",
            &format!("rocksdb@{version}"),
            "-e",
            "rocksdb",
            "-s",
            "fillseq,readrandom,waitforcompaction",
            "-n",
            "20000",
            "--db-dir",
        ])
        .arg(t.path().join("db"))
        .arg("--output-dir")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(&out_dir);
    let c = &v["configs"][0];
    assert_eq!(c["name"], format!("rocksdb-{full}"));
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert!(c["engine_version"].as_str().unwrap().contains(&full), "{}", c["engine_version"]);
    let prov: Vec<(String, String)> = serde_json::from_value(c["provenance"].clone()).unwrap();
    assert!(prov.iter().any(|(k, v)| k == "build.rocksdb_source" && *v == full), "{prov:?}");
    assert!(prov.iter().any(|(k, v)| k == "build.ndebug" && v.starts_with("true (checked")), "{prov:?}");
    let options: Vec<(String, String)> = serde_json::from_value(c["effective_options"].clone()).unwrap();
    assert!(
        options.iter().any(|(k, v)| k == "Version.rocksdb_version" && *v == full),
        "the OPTIONS file RocksDB wrote says {full}"
    );
    assert_eq!(v["configs"][1]["name"], "rocksdb", "the built-in beside it");
}

#[test]
fn ctrl_c_while_waiting_for_another_runs_build_stops_at_once() {
    use std::os::fd::AsRawFd;
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("cache/rumbench/rocksdb");
    std::fs::create_dir_all(&root).unwrap();
    // Another rumbench building a version holds this lock.
    let lock =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(root.join(".build.lock")).unwrap();
    // SAFETY: flock on a descriptor we own, held until this test ends.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let mut child = cli::rumbench()
        .args(["rocksdb-versions", "--build", "8.10"])
        .cache_in(&t.path().join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("waiting for another rumbench building") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut err, &mut line).unwrap() > 0, "no wait announced");
    }
    // SAFETY: a signal to the process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let asked = std::time::Instant::now();
    let status = child.wait().unwrap();
    assert!(asked.elapsed() < std::time::Duration::from_secs(3), "the wait ended at once: {:?}", asked.elapsed());
    assert_eq!(status.code(), Some(130));
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(
        rest.contains("interrupted by SIGINT while waiting for another rumbench's RocksDB build")
            && !rest.contains("building RocksDB"),
        "{rest}"
    );
}

/// RocksDB 11.8.1's own release build (rocksdbjni 11.8.1's library),
/// linked through the C API header of the 11.8.1 rumbench compiles, beside
/// that source build: scripts/test.sh fetches and links it before the tests
/// (`rumbench rocksdb-versions --build 11.8.1:release`, about 3 minutes:
/// only rumbench's crate is compiled), and sets RUMBENCH_REQUIRE_ROCKSDB_RELEASE.
#[test]
fn an_official_release_build_runs_its_own_library_with_its_provenance() {
    let t = tempfile::tempdir().unwrap();
    let listed = cli::rumbench().arg("rocksdb-versions").cache_in(&test_cache()).output().unwrap();
    let text = String::from_utf8_lossy(&listed.stdout).to_string();
    if !text.lines().any(|l| l.starts_with("11.8.1:release") && l.contains("cached")) {
        assert!(std::env::var_os("RUMBENCH_REQUIRE_ROCKSDB_RELEASE").is_none(), "11.8.1:release is not built: {text}");
        eprintln!("skipped: 11.8.1's release build is not in the test cache (rumbench rocksdb-versions --build 11.8.1:release)");
        return;
    }
    let (out, out_dir) = run_in_test_cache(
        &["-e", "rocksdb@11.8.1:release", "-e", "rocksdb", "-s", "fillrandom,readrandom,flush", "-n", "20000"],
        t.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = load(&out_dir);
    let c = &v["configs"][0];
    assert_eq!(c["name"], "rocksdb-11.8.1-release");
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert_eq!(c["engine_version"], "11.8.1", "the OPTIONS file the library wrote says which RocksDB ran");
    let prov: Vec<(String, String)> = serde_json::from_value(c["provenance"].clone()).unwrap();
    let get = |k: &str| {
        prov.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no {k} in {prov:?}"))
    };
    assert_eq!(get("build.origin"), "official release build");
    let library = get("build.library");
    assert!(
        // The jar's classifier follows its version where it has one (linux64).
        library.starts_with("RocksDB 11.8.1, official release build (rocksdbjni 11.8.1")
            && library.contains(", sha1 ")
            && library.contains("linked dynamically"),
        "{library}"
    );
    assert!(get("build.compiler").starts_with("GCC"), "its .comment section: {prov:?}");
    assert!(get("build.target_cpu").starts_with("portable"), "{prov:?}");
    assert!(get("build.ndebug").starts_with("unknown (not checked"), "{prov:?}");
    assert!(!prov.iter().any(|(k, _)| k == "build.rocksdb_cxx_flags"), "nothing of RocksDB compiled: {prov:?}");
    for s in c["steps"].as_array().unwrap() {
        assert_eq!(s["status"], "completed", "{}", s["name"]);
    }
    // The source build beside it says it is one.
    let src: Vec<(String, String)> = serde_json::from_value(v["configs"][1]["provenance"].clone()).unwrap();
    assert!(src.iter().any(|(k, v)| k == "build.origin" && v == "source build"), "{src:?}");
    // The process that ran it had RocksDB's library mapped, not its own: the
    // cached binary needs the library's functions (it links no RocksDB).
    let bin = std::fs::read_dir(test_cache().join("rumbench/rocksdb/11.8.1-official"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("rumbench"))
        .find(|p| p.is_file())
        .expect("the cached release build");
    let needed = std::process::Command::new("nm").args(["-D", "--undefined-only"]).arg(&bin).output().unwrap();
    let needed = String::from_utf8_lossy(&needed.stdout);
    assert!(needed.lines().filter(|l| l.contains(" rocksdb_")).count() > 50, "{needed}");
}

/// The inodes of the cached binaries of a release build's entries.
fn release_binaries(version: &str) -> Vec<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::read_dir(test_cache().join(format!("rumbench/rocksdb/{version}-official")))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::metadata(e.path().join("rumbench")).ok())
        .map(|m| m.ino())
        .collect()
}

/// RocksDB 7.6.0's own release build, which no librocksdb-sys bundles, run
/// by the same binary as 11.8.1's (a hard link: nothing was built for it)
/// beside its own library, with 7.6.0's capabilities: no WaitForCompact in
/// its C API (the step polls), no rocksdb_get_into_buffer (point reads
/// through get_pinned), batched MultiGet yes. scripts/test.sh fetches it
/// (`rumbench rocksdb-versions --build 7.6.0:release`: a 57 MB jar, seconds).
#[test]
fn every_release_build_shares_one_binary_and_runs_its_own_library() {
    let shared: Vec<u64> = release_binaries("7.6.0");
    if shared.is_empty() {
        assert!(
            std::env::var_os("RUMBENCH_REQUIRE_ROCKSDB_RELEASE").is_none(),
            "7.6.0:release is not in the test cache"
        );
        eprintln!(
            "skipped: 7.6.0's release build is not in the test cache (rumbench rocksdb-versions --build 7.6.0:release)"
        );
        return;
    }
    assert!(
        release_binaries("11.8.1").iter().any(|i| shared.contains(i)),
        "7.6.0's and 11.8.1's entries hold one binary (hard links)"
    );
    let t = tempfile::tempdir().unwrap();
    let (out, out_dir) = run_in_test_cache(
        &["-e", "rocksdb@7.6.0:release", "-s", "fillrandom,readrandom,multireadrandom,waitforcompaction", "-n", "5000"],
        t.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("building"), "nothing built: {}", stderr(&out));
    let v = load(&out_dir);
    let c = &v["configs"][0];
    assert_eq!(c["status"], "completed", "{}", c["error"]);
    assert_eq!(c["engine_version"], "7.6.0", "the OPTIONS file 7.6.0's library wrote");
    let prov: Vec<(String, String)> = serde_json::from_value(c["provenance"].clone()).unwrap();
    let lacks: Vec<&str> = prov.iter().filter(|(k, _)| k == "rocksdb.lacks").map(|(_, v)| v.as_str()).collect();
    assert!(lacks.iter().any(|l| l.contains("WaitForCompact")), "{lacks:?}");
    assert!(lacks.iter().any(|l| l.contains("rocksdb_get_into_buffer")), "{lacks:?}");
    assert!(!lacks.iter().any(|l| l.contains("MultiGet")), "7.6.0 has it: {lacks:?}");
    let steps = c["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["status"] == "completed"), "{steps:?}");
    let wait = steps.iter().find(|s| s["name"] == "waitforcompaction").unwrap();
    assert!(wait["notes"].to_string().contains("polling"), "no WaitForCompact in 7.6.0: {}", wait["notes"]);
    // What 7.6.0 cannot do is refused before anything runs.
    let err = refused_in_cache(&["-e", "rocksdb@7.6.0:release", "-o", "cache_type=hyper_clock", "-s", "fillseq"]);
    assert!(err.contains("needs RocksDB 8.8.1") && err.contains("7.6.0"), "{err}");
}

/// [`refused`] with the test cache (a release build's version list is there).
fn refused_in_cache(args: &[&str]) -> String {
    let t = tempfile::tempdir().unwrap();
    let out = cli::rumbench_run()
        .args(args)
        .arg("--output-dir")
        .arg(t.path().join("out"))
        .cache_in(&test_cache())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    stderr(&out)
}
