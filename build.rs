//! Build script for rumbench.
//!
//! 1. Exports the sync wrappers of `src/sync_interpose.rs` (fsync, fdatasync,
//!    msync, sync_file_range) in the executable's dynamic symbol table, so
//!    that dynamically linked C/C++ libraries (Debian's librocksdb.so) bind to
//!    them instead of glibc's. Without this, only code linked statically into
//!    the binary (Rust, bundled SQLite, LMDB) would be counted. `--export-dynamic-symbol`
//!    needs GNU ld >= 2.35 or lld (Debian 12 ships ld 2.40).
//!    The flag is passed to every linked target (the binary and the test
//!    harnesses), so tests see the same interposition the binary does.
//! 2. Passes on how leveldb-sys built LevelDB (compiler and C++ flags, from
//!    its DEP_LEVELDB_* report) as RUMBENCH_LEVELDB_*, for the leveldb
//!    engine's effective options.
//! 3. With the cargo feature `wiredtiger`: builds WiredTiger 11.3.1 once with
//!    scripts/build-wiredtiger.sh (a Release static library in a cache dir),
//!    generates bindings to its wiredtiger.h with bindgen ($OUT_DIR/wiredtiger.rs),
//!    links libwiredtiger.a with snappy, lz4 and zstd, and passes the build's
//!    BUILD_INFO on as RUMBENCH_WT_BUILD_INFO. Set RUMBENCH_WIREDTIGER_PREFIX to
//!    use a WiredTiger built elsewhere (lib/libwiredtiger.a, include/wiredtiger.h).
//! 4. Records the git commit the binary was built from (RUMBENCH_GIT_COMMIT,
//!    with "-dirty" when the work tree had uncommitted changes at build time),
//!    or nothing when git or the repository is unavailable (then "unknown").
//! 5. Records how the binary (and the C/C++ built into it) was compiled: the
//!    target CPU from RUSTFLAGS (librocksdb-sys passes it to the C++ as
//!    -march), the optimisation level, and the C++ compiler's version
//!    (src/build_info.rs).
//! 6. Reads the RocksDB source librocksdb-sys bundles (its manifest dir comes
//!    as DEP_ROCKSDB_CARGO_MANIFEST_DIR): the version (RUMBENCH_ROCKSDB_SOURCE_VERSION,
//!    RUMBENCH_LIBROCKSDB_SYS_VERSION) and which C API capabilities it has, as
//!    `rocksdb_has_*` cfgs, so src/engine/rocksdb/ffi.rs compiles against
//!    every librocksdb-sys from 0.6.3 (RocksDB 6.28.2) on.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "src/build_support.rs"]
#[allow(dead_code, reason = "what only the binary uses")]
mod build_support;

/// Must match the `#[no_mangle]` wrappers in src/sync_interpose.rs.
const SYNC_SYMBOLS: &[&str] = &["fsync", "fdatasync", "msync", "sync_file_range"];

fn main() {
    // The source root: this package's dir, or the tree a RocksDB version's
    // manifest (rocksdb-versions/<version>/Cargo.toml) lives in; a release
    // build's manifest is in the cache, and names the tree it builds.
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-env-changed=RUMBENCH_BUILD_SOURCE_ROOT");
    let root = match std::env::var_os("RUMBENCH_BUILD_SOURCE_ROOT").filter(|r| !r.is_empty()) {
        Some(r) => PathBuf::from(r),
        None => build_support::root_of(&manifest_dir).expect("build.rs and src/lib.rs above the manifest"),
    };
    // Sources too, so the "-dirty" mark and the source hash follow edits (the crate recompiles then anyway).
    for entry in build_support::HASHED {
        println!("cargo:rerun-if-changed={}", root.join(entry).display());
    }
    source_fingerprint(&root);
    for sym in SYNC_SYMBOLS {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol={sym}");
    }
    leveldb_provenance();
    rocksdb_release_library();
    if std::env::var_os("CARGO_FEATURE_WIREDTIGER").is_some() {
        #[cfg(feature = "wiredtiger")]
        wiredtiger();
    }
    git_commit();
    build_info();
    rocksdb_capabilities();
}

/// RUMBENCH_SOURCE_ROOT and RUMBENCH_SOURCE_HASH (src/build_support.rs): a
/// RocksDB version built later from this tree must carry the same hash.
fn source_fingerprint(root: &Path) {
    let hash =
        build_support::of_tree(root).unwrap_or_else(|e| panic!("cannot hash the source under {}: {e}", root.display()));
    println!("cargo:rustc-env=RUMBENCH_SOURCE_ROOT={}", root.display());
    println!("cargo:rustc-env=RUMBENCH_SOURCE_HASH={hash}");
}

/// C API capabilities RocksDB gained after 6.28.2, as (cfg, functions that
/// must all be declared in c.h). See docs/design/rocksdb-versions-research.md section 3.
const ROCKSDB_C_CAPABILITIES: &[(&str, &[&str])] = &[
    ("rocksdb_has_multiget", &["rocksdb_batched_multi_get_cf"]),
    (
        "rocksdb_has_txn",
        &[
            "rocksdb_transaction_get_pinned_for_update",
            "rocksdb_transactiondb_get_pinned",
            "rocksdb_transactiondb_flush",
        ],
    ),
    ("rocksdb_has_hyper_clock", &["rocksdb_cache_create_hyper_clock"]),
    ("rocksdb_has_txndb_base_db", &["rocksdb_transactiondb_get_base_db"]),
    ("rocksdb_has_wait_for_compact", &["rocksdb_wait_for_compact", "rocksdb_wait_for_compact_options_set_timeout"]),
    // A point read into a PinnableSlice on the stack, as db_bench's: no
    // allocation per get (rocksdb_get_pinned news and deletes one).
    ("rocksdb_has_get_into_buffer", &["rocksdb_get_into_buffer"]),
];
/// Not a C function: the compaction_pri enum value (advanced_options.h).
const ROCKSDB_ROUND_ROBIN: &str = "rocksdb_has_round_robin";
/// HyperClockCache sizes its table itself (estimated_entry_charge 0) only from
/// 8.8.1 (AutoHyperClockCache); before, 0 means a wrong or placeholder size.
const HYPER_CLOCK_AUTO_SINCE: (u32, u32, u32) = (8, 8, 1);

fn rocksdb_capabilities() {
    for cfg in ROCKSDB_C_CAPABILITIES.iter().map(|(c, _)| *c).chain([ROCKSDB_ROUND_ROBIN]) {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    println!("cargo:rerun-if-env-changed=DEP_ROCKSDB_CARGO_MANIFEST_DIR");
    let dir = PathBuf::from(
        std::env::var("DEP_ROCKSDB_CARGO_MANIFEST_DIR").expect("librocksdb-sys reports cargo_manifest_dir"),
    );
    let read = |rel: &str| {
        std::fs::read_to_string(dir.join(rel))
            .unwrap_or_else(|e| panic!("cannot read {rel} of librocksdb-sys in {}: {e}", dir.display()))
    };
    let c_h = read("rocksdb/include/rocksdb/c.h");
    let (major, minor, patch) = rocksdb_version(&read("rocksdb/include/rocksdb/version.h"));
    for (cfg, functions) in ROCKSDB_C_CAPABILITIES {
        let mut has = functions.iter().all(|f| declares_function(&c_h, f));
        if *cfg == "rocksdb_has_hyper_clock" {
            has &= (major, minor, patch) >= HYPER_CLOCK_AUTO_SINCE;
        }
        if has {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
    if read("rocksdb/include/rocksdb/advanced_options.h").contains("kRoundRobin") {
        println!("cargo:rustc-cfg={ROCKSDB_ROUND_ROBIN}");
    }
    println!("cargo:rustc-env=RUMBENCH_ROCKSDB_SOURCE_VERSION={major}.{minor}.{patch}");
    let sys_version = read("Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"').map(str::to_string))
        .expect("librocksdb-sys's Cargo.toml has a version");
    println!("cargo:rustc-env=RUMBENCH_LIBROCKSDB_SYS_VERSION={sys_version}");
    // How the library was compiled: its build script's log (DEP_ROCKSDB_OUT_DIR/../output),
    // where the cc crate logged each compiler command (CC_ENABLE_DEBUG_OUTPUT).
    println!("cargo:rerun-if-env-changed=DEP_ROCKSDB_OUT_DIR");
    let flags = std::env::var("DEP_ROCKSDB_OUT_DIR")
        .ok()
        .and_then(|out| std::fs::read_to_string(Path::new(&out).parent()?.join("output")).ok())
        .and_then(|log| build_support::rocksdb_flags_in_log(&log))
        .unwrap_or_default();
    println!("cargo:rustc-env=RUMBENCH_ROCKSDB_CXX_FLAGS={flags}");
}

/// Whether `header` declares the C function `name` (its name, then "(").
fn declares_function(header: &str, name: &str) -> bool {
    header.match_indices(name).any(|(at, _)| {
        let before = header[..at].chars().next_back();
        let after = header[at + name.len()..].trim_start();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') && after.starts_with('(')
    })
}

/// ROCKSDB_MAJOR, _MINOR and _PATCH of rocksdb/version.h.
fn rocksdb_version(version_h: &str) -> (u32, u32, u32) {
    let field = |name: &str| -> u32 {
        version_h
            .lines()
            .find_map(|l| l.trim().strip_prefix("#define ")?.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("rocksdb/version.h has no {name}"))
    };
    (field("ROCKSDB_MAJOR"), field("ROCKSDB_MINOR"), field("ROCKSDB_PATCH"))
}

fn build_info() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let parts: Vec<&str> = flags.split('\x1f').collect();
    let mut target_cpu = None;
    for (i, p) in parts.iter().enumerate() {
        let value = if let Some(v) = p.strip_prefix("-Ctarget-cpu=") {
            Some(v)
        } else if *p == "-C" {
            parts.get(i + 1).and_then(|n| n.strip_prefix("target-cpu="))
        } else {
            None
        };
        if let Some(v) = value {
            target_cpu = Some(v.to_string());
        }
    }
    let cpu = match target_cpu {
        Some(c) if c == "native" => format!("native ({})", host_cpu_name()),
        Some(c) => c,
        None => "generic x86-64 (no target-cpu: hardware CRC32C and newer instructions unused)".into(),
    };
    println!("cargo:rustc-env=RUMBENCH_TARGET_CPU={cpu}");
    println!("cargo:rustc-env=RUMBENCH_OPT_LEVEL={}", std::env::var("OPT_LEVEL").unwrap_or_else(|_| "unknown".into()));
    println!("cargo:rustc-env=RUMBENCH_PROFILE={}", std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let version = Command::new(&cxx)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|t| t.lines().next().map(str::to_string))
        .unwrap_or_else(|| format!("{cxx} (version unknown)"));
    println!("cargo:rustc-env=RUMBENCH_CXX={version}");
}

/// The CPU model, for "native": what the code was tuned for.
fn host_cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "this machine's CPU".into())
}

#[cfg(feature = "wiredtiger")]
fn wiredtiger() {
    println!("cargo:rerun-if-changed=scripts/build-wiredtiger.sh");
    println!("cargo:rerun-if-env-changed=RUMBENCH_WIREDTIGER_PREFIX");
    let prefix = match std::env::var("RUMBENCH_WIREDTIGER_PREFIX") {
        Ok(p) if !p.is_empty() => PathBuf::from(p),
        _ => {
            let out = Command::new("bash")
                .arg("scripts/build-wiredtiger.sh")
                .stderr(std::process::Stdio::inherit())
                .output()
                .expect("cannot run scripts/build-wiredtiger.sh");
            if !out.status.success() {
                panic!("scripts/build-wiredtiger.sh failed ({}); see its output above", out.status);
            }
            let stdout = String::from_utf8_lossy(&out.stdout);
            PathBuf::from(stdout.lines().last().expect("build-wiredtiger.sh printed no prefix").trim())
        }
    };
    let lib = prefix.join("lib");
    let include = prefix.join("include");
    assert!(lib.join("libwiredtiger.a").exists(), "no libwiredtiger.a in {}", lib.display());
    println!("cargo:rerun-if-changed={}", lib.join("libwiredtiger.a").display());
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=static=wiredtiger");
    for l in ["snappy", "lz4", "zstd", "pthread", "dl", "m"] {
        println!("cargo:rustc-link-lib={l}");
    }
    let info = std::fs::read_to_string(prefix.join("BUILD_INFO")).unwrap_or_default();
    // One line: fields separated by ';' (rustc-env values cannot hold newlines).
    println!("cargo:rustc-env=RUMBENCH_WT_BUILD_INFO={}", info.trim().replace('\n', ";"));
    let header = include.join("wiredtiger.h");
    let bindings = bindgen::Builder::default()
        .header(header.display().to_string())
        .allowlist_function("wiredtiger_open")
        .allowlist_function("wiredtiger_version")
        .allowlist_function("wiredtiger_strerror")
        .allowlist_type("WT_CONNECTION")
        .allowlist_type("WT_SESSION")
        .allowlist_type("WT_CURSOR")
        .allowlist_type("WT_ITEM")
        .allowlist_var(
            "WT_ROLLBACK|WT_NOTFOUND|WT_DUPLICATE_KEY|WT_PANIC|WT_CACHE_FULL|WT_PREPARE_CONFLICT|WT_RUN_RECOVERY",
        )
        .layout_tests(false)
        .generate()
        .expect("bindgen failed on wiredtiger.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("wiredtiger.rs");
    bindings.write_to_file(&out).expect("cannot write wiredtiger bindings");
}

fn leveldb_provenance() {
    for (dep, ours) in [
        ("DEP_LEVELDB_CXX_FLAGS", "RUMBENCH_LEVELDB_CXX_FLAGS"),
        ("DEP_LEVELDB_COMPILER", "RUMBENCH_LEVELDB_COMPILER"),
        ("DEP_LEVELDB_BUILD_TYPE", "RUMBENCH_LEVELDB_BUILT_AS"),
    ] {
        println!("cargo:rerun-if-env-changed={dep}");
        let v = std::env::var(dep).unwrap_or_else(|_| "unknown".into());
        println!("cargo:rustc-env={ours}={v}");
    }
}

fn git(args: &[&str]) -> Option<String> {
    // --no-optional-locks: `git status` would otherwise refresh and rewrite
    // .git/index, which made every build stale for the next one.
    let out = Command::new("git").arg("--no-optional-locks").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn git_commit() {
    // Rebuild when HEAD moves: HEAD itself, the branch ref it points to and
    // packed refs. Not on the index: staging changes nothing the binary
    // records, and edits of its sources rerun this script anyway (HASHED).
    // Only paths that exist: cargo reruns the script every time for one that
    // does not (a clone without packed-refs rebuilt the crate on every cargo call).
    let watch = |path: &Path| {
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    };
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        watch(&PathBuf::from(git_dir).join("HEAD"));
        if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
            let common = PathBuf::from(common);
            watch(&common.join("packed-refs"));
            if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
                let loose = common.join(head_ref);
                // A branch only in packed-refs gets a loose ref at its next
                // commit: then watch the folder it will appear in.
                watch(if loose.exists() { &loose } else { loose.parent().unwrap_or(&common) });
            }
        }
    }
    let Some(commit) = git(&["rev-parse", "HEAD"]) else { return };
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=RUMBENCH_GIT_COMMIT={commit}{suffix}");
}

/// A build against RocksDB's own release library (src/engine/rocksdb/official.rs)
/// links it dynamically from ROCKSDB_LIB_DIR (librocksdb-sys's own switch),
/// and knows it was linked so (RUMBENCH_ROCKSDB_LIB_DIR, cfg rocksdb_any_release).
fn rocksdb_release_library() {
    println!("cargo::rustc-check-cfg=cfg(rocksdb_any_release)");
    println!("cargo:rerun-if-env-changed=ROCKSDB_LIB_DIR");
    if std::env::var_os("ROCKSDB_LIB_DIR").is_some_and(|d| !d.is_empty()) {
        // The binary every release build shares (src/engine/rocksdb/build.rs):
        // it loads the librocksdb.so in the `lib` beside it (each release's
        // cache entry links its own library there), and finds the C API
        // functions newer than 6.28.2 by name (src/engine/rocksdb/late.rs).
        println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN/lib");
        println!("cargo:rustc-env=RUMBENCH_ROCKSDB_LIB_DIR=$ORIGIN/lib");
        println!("cargo:rustc-cfg=rocksdb_any_release");
    }
}
