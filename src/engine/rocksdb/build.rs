//! A RocksDB release's rumbench binary: built once, on demand, from this
//! very source tree against the release's librocksdb-sys, and cached.
//!
//! Layout under `$XDG_CACHE_HOME/rumbench/rocksdb/` (~/.cache when unset):
//! - `target/`: one cargo target dir for every release, so the crates they
//!   share (clap, serde, SQLite, LevelDB, ...) are compiled once;
//! - `<version>/<key>/rumbench` and `build.json`: a finished build, `key`
//!   being the source fingerprint of the tree it was built from and of the
//!   release's manifest and lockfile; written under a temporary name and
//!   renamed into place, so a build cut off half-way is never used;
//! - `<version>/build-<key>.log`: cargo's output;
//! - for RocksDB's own release builds (`rocksdb@7.6.0:release`):
//!   `release-builds/<key>/rumbench`, the one binary every release shares,
//!   built once per source (linked to a `librocksdb.so` through its rpath
//!   `$ORIGIN/lib`, the late C API functions found by name:
//!   src/engine/rocksdb/late.rs), and per release `<version>-official/<key>/`
//!   with a hard link of it, `lib` pointing at that release's unpacked
//!   library, and a build.json naming the library.
//!
//! The build is `cargo build --release --locked` of
//! rocksdb-versions/<version>/Cargo.toml with the working directory at the
//! source root (so .cargo/config.toml applies: target-cpu=native, the
//! compiler log), and for crates that do not compile RocksDB as 0.19.0's
//! does, `-march=native` and RocksDB's Linux platform macros in CXXFLAGS
//! (`Release::added_cxxflags`): every release compiled for the same CPU,
//! -O3, NDEBUG, with the same platform features, as the default build.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::versions::{Capabilities, Release};
use crate::build_support;

/// What a rumbench binary says of its own build (`rumbench internal-build-info`),
/// stored beside a cached build as build.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildInfo {
    pub rumbench_commit: String,
    /// src/build_support.rs: the same for every release built from one tree.
    pub source_hash: String,
    pub rocksdb_version: String,
    pub librocksdb_sys: String,
    pub capabilities: Capabilities,
    pub target_cpu: String,
    pub opt_level: String,
    pub profile: String,
    pub cxx: String,
    /// The compiler command of one RocksDB source as its build ran it
    /// (paths left out): the flags the library was built with.
    pub rocksdb_cxx_flags: String,
}

impl BuildInfo {
    pub fn this_binary() -> BuildInfo {
        BuildInfo {
            rumbench_commit: option_env!("RUMBENCH_GIT_COMMIT").unwrap_or("unknown").into(),
            source_hash: SOURCE_HASH.into(),
            rocksdb_version: super::versions::SOURCE_VERSION.into(),
            librocksdb_sys: super::versions::SYS_CRATE_VERSION.into(),
            capabilities: Capabilities::this_build(),
            target_cpu: crate::build_info::TARGET_CPU.into(),
            opt_level: crate::build_info::OPT_LEVEL.into(),
            profile: crate::build_info::PROFILE.into(),
            cxx: crate::build_info::CXX_COMPILER.into(),
            rocksdb_cxx_flags: crate::build_info::ROCKSDB_CXX_FLAGS.into(),
        }
    }
}

/// The RocksDB this binary runs, as a plan names it: the release it was
/// built from source ("8.10.0"), or for a build linked to RocksDB's release
/// library, that library's version as its cache entry beside the binary
/// records it ("7.6.0:release"; "unknown:release" without one).
pub fn running_release() -> String {
    if option_env!("RUMBENCH_ROCKSDB_LIB_DIR").is_none() {
        return super::versions::SOURCE_VERSION.to_string();
    }
    let version = this_binarys_build().and_then(|c| c.official).map(|o| o.version).unwrap_or_else(|| "unknown".into());
    format!("{version}:release")
}

impl Release {
    /// The release this process runs: the built-in one, or in the binary
    /// every release build shares, the release whose library it was started
    /// beside (its build.json; "unknown" without one, with no capability).
    /// Here, not in versions.rs, because it reads this binary's cache entry.
    pub fn this_process() -> &'static Release {
        if !cfg!(rocksdb_any_release) {
            return Release::built_in();
        }
        static THIS: std::sync::OnceLock<&'static Release> = std::sync::OnceLock::new();
        THIS.get_or_init(|| {
            use super::versions::{is_version_text, official_release, version_key, RELEASES, UNKNOWN_RELEASE};
            let version = this_binarys_build().and_then(|b| b.official).map(|l| l.version);
            match version {
                Some(v) if is_version_text(&v) && version_key(&v) >= version_key(RELEASES[0].version) => {
                    official_release(&v)
                }
                _ => &UNKNOWN_RELEASE,
            }
        })
    }
}

/// The cache entry beside this binary (build.json), when it is a cached
/// build of a RocksDB version (rocksdb@8.10, rocksdb@7.6.0:release).
pub fn this_binarys_build() -> Option<CachedBuild> {
    let exe = std::env::current_exe().ok()?;
    serde_json::from_slice(&fs::read(exe.with_file_name("build.json")).ok()?).ok()
}

/// The fingerprint of the source this binary was compiled from.
pub use crate::build_info::SOURCE_HASH;
/// The tree this binary was compiled from (where a release is built from).
pub const SOURCE_ROOT: &str = env!("RUMBENCH_SOURCE_ROOT");

/// A finished, cached build of a release, with how it was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedBuild {
    pub info: BuildInfo,
    /// The release's manifest (rocksdb-versions/<version>/Cargo.toml).
    pub manifest: String,
    /// What rumbench added to the crate's own flags (CXXFLAGS).
    pub added_cxxflags: Option<String>,
    pub built_at: String,
    pub build_seconds: f64,
    /// RocksDB's release library the build is linked to (`rocksdb@7.6.0:release`).
    #[serde(default)]
    pub official: Option<super::official::Library>,
}

/// The cache directory of release builds.
pub fn cache_root() -> Result<PathBuf> {
    Ok(crate::cache::root()?.join("rocksdb"))
}

/// The shared cargo target dir (RUMBENCH_ROCKSDB_TARGET_DIR overrides it:
/// the tests point it at the main build's, whose librocksdb-sys 0.19.0 a
/// build of 11.8.1 then reuses).
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("RUMBENCH_ROCKSDB_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// Where the binary of the release builds is built: the source tree's own
/// target dir when it has a release build (the one that made this binary:
/// its crates are compiled already, and this build's librocksdb-sys, with
/// other features, is a unit of its own that compiles no RocksDB), else
/// the cache's. RUMBENCH_ROCKSDB_TARGET_DIR overrides both.
fn release_builds_target_dir(root: &Path, source: &Path) -> PathBuf {
    let own = source.join("target");
    if std::env::var_os("RUMBENCH_ROCKSDB_TARGET_DIR").is_none_or(|v| v.is_empty())
        && own.join("release/.fingerprint").is_dir()
    {
        return own;
    }
    target_dir(root)
}

/// The cache key of `release` built from the tree at `source`: the source
/// fingerprint, and the release's manifest and lockfile.
fn cache_key(source: &Path, release: &Release) -> Result<String> {
    let mut h = build_support::Fnv::default();
    h.field(SOURCE_HASH.as_bytes());
    if release.is_official() {
        h.field(b"official release build");
        h.field(release.version.as_bytes());
    }
    for f in ["Cargo.toml", "Cargo.lock"] {
        let p = source.join(release.manifest_dir()).join(f);
        h.field(&fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?);
    }
    Ok(format!("{:016x}", h.finish()))
}

/// The source tree builds are made from: the one this binary was built
/// from, unchanged since (else the release would run other code than this binary).
fn source_tree() -> Result<PathBuf> {
    let root = PathBuf::from(SOURCE_ROOT);
    if !root.join("src/lib.rs").is_file() {
        bail!(
            "the rumbench source this binary was built from ({}) is gone: a RocksDB version is built from it",
            root.display()
        );
    }
    let now = build_support::of_tree(&root).with_context(|| format!("cannot read the source in {}", root.display()))?;
    if now != SOURCE_HASH {
        bail!(
            "the source in {} changed since this rumbench was built (fingerprint {now}, the binary's {SOURCE_HASH}): \
             run `cargo build --release` first, so the RocksDB version runs the same code",
            root.display()
        );
    }
    Ok(root)
}

/// The cached binary of `release` for this source, if it was built.
pub fn cached(release: &Release) -> Result<Option<PathBuf>> {
    let source = PathBuf::from(SOURCE_ROOT);
    let dir = cache_root()?.join(release.cache_name()).join(cache_key(&source, release)?);
    let bin = dir.join("rumbench");
    // A release build's entry runs the library its `lib` points at: gone, it is no entry.
    let lib_there = !release.is_official() || dir.join("lib/librocksdb.so").is_file();
    Ok((bin.is_file() && dir.join("build.json").is_file() && lib_there).then_some(bin))
}

/// How long a build likely takes here: the last build's time on this
/// machine when there was one, else about 17 minutes on 2 cores (RocksDB
/// 11.8.1 here), scaled by the cores.
fn estimate(root: &Path) -> Duration {
    let last = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|version| fs::read_dir(version.path()).into_iter().flatten().flatten())
        .filter_map(|entry| fs::read(entry.path().join("build.json")).ok())
        .filter_map(|bytes| serde_json::from_slice::<CachedBuild>(&bytes).ok())
        .filter(|b| b.build_seconds > 300.0)
        .map(|b| b.build_seconds)
        .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))));
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2) as f64;
    Duration::from_secs_f64(last.unwrap_or(17.0 * 60.0 * 2.0 / cores.max(1.0)))
}

/// The binary of `release`: the built-in release needs none (None); the
/// others come from the cache or are built now, with a progress line.
pub fn ensure(release: &Release) -> Result<Option<PathBuf>> {
    if release.is_built_in() && std::env::var_os("RUMBENCH_ROCKSDB_BUILD_BUILTIN").is_none() {
        return Ok(None);
    }
    if let Some(bin) = cached(release)? {
        return Ok(Some(bin));
    }
    // A release build needs the tree unchanged only to build the binary it
    // shares with the others (release_builds_binary); placing it beside one
    // built from this binary's source does not.
    let source = if release.is_official() { PathBuf::from(SOURCE_ROOT) } else { source_tree()? };
    let root = cache_root()?;
    let vdir = root.join(release.cache_name());
    fs::create_dir_all(&vdir).with_context(|| format!("cannot create the cache directory {}", vdir.display()))?;
    // One build at a time (cargo locks its target dir anyway), also across rumbench processes.
    let lock_path = root.join(".build.lock");
    let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path)?;
    // SAFETY: flock on a descriptor we own; released when `lock` is closed.
    let try_lock =
        || unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if !try_lock() {
        errln!("waiting for another rumbench building a RocksDB version ({})", lock_path.display());
        // Polled, not a blocking flock: a stop (Ctrl-C) ends the wait at once.
        while !try_lock() {
            if crate::driver::stop::stop_requested() {
                bail!("{} while waiting for another rumbench's RocksDB build", crate::driver::stop::interrupted_text());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    if let Some(bin) = cached(release)? {
        return Ok(Some(bin));
    }
    let key = cache_key(&source, release)?;
    // A build of this release that was cut off (we hold the lock: nobody is building now).
    for e in fs::read_dir(&vdir)?.flatten() {
        if e.file_name().to_string_lossy().starts_with(".partial-") {
            let _ = fs::remove_dir_all(e.path());
        }
    }
    if release.is_official() {
        let lib = super::official::ensure(&root.join("official"), release.version)?;
        let (shared, made) = release_builds_binary(&source, &root, &lib)?;
        return Ok(Some(place_release(release, &lib, &shared, &made, &vdir, &key)?));
    }
    let built = build(release, None, &source, &root, &vdir, &key)?;
    Ok(Some(built))
}

/// Where the binary every release build shares is built, under the cache root.
const RELEASE_BUILDS_DIR: &str = "release-builds";

/// The binary every release build shares (built once per rumbench source,
/// linked to `lib` to build it), and its cache record.
fn release_builds_binary(source: &Path, root: &Path, lib: &super::official::Library) -> Result<(PathBuf, CachedBuild)> {
    let dir = root.join(RELEASE_BUILDS_DIR);
    let newest = super::versions::official_release(super::versions::newest().version);
    let mut h = build_support::Fnv::default();
    h.field(SOURCE_HASH.as_bytes());
    h.field(b"the binary every release build shares");
    h.field(super::versions::official_manifest(source)?.as_bytes());
    for f in ["Cargo.toml", "Cargo.lock"] {
        let p = source.join(newest.manifest_dir()).join(f);
        h.field(&fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?);
    }
    let key = format!("{:016x}", h.finish());
    let done = dir.join(&key);
    let record =
        |d: &Path| -> Option<CachedBuild> { serde_json::from_slice(&fs::read(d.join("build.json")).ok()?).ok() };
    if let Some(made) = record(&done).filter(|_| done.join("rumbench").is_file()) {
        return Ok((done.join("rumbench"), made));
    }
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for e in fs::read_dir(&dir)?.flatten() {
        if e.file_name().to_string_lossy().starts_with(".partial-") {
            let _ = fs::remove_dir_all(e.path());
        }
    }
    let source = source_tree()?;
    let bin = build(newest, Some(lib), &source, root, &dir, &key)?;
    let made = record(&done).with_context(|| format!("no build.json in {}", done.display()))?;
    Ok((bin, made))
}

/// `release`'s cache entry `vdir/key`: the shared binary (a hard link, or a
/// copy across file systems) with `lib` beside it as `lib/`, where its
/// rpath ($ORIGIN/lib) loads it from, and a build.json naming the library.
/// Refused when the library lacks a function the binary binds at start or
/// one the release's capabilities call; it is started once here, so a
/// library that does not load is found now.
fn place_release(
    release: &Release,
    lib: &super::official::Library,
    shared: &Path,
    made: &CachedBuild,
    vdir: &Path,
    key: &str,
) -> Result<PathBuf> {
    let t0 = Instant::now();
    let have = super::official::exported_functions(&lib.path)?;
    let mut missing = super::official::missing_functions(shared, &lib.path)?;
    missing.extend(super::late::needed_for(&release.caps).into_iter().filter(|f| !have.contains(*f)).map(String::from));
    if !missing.is_empty() {
        bail!(
            "{} lacks {} function{} of the C API that rumbench calls (through librocksdb-sys {}'s header, with RocksDB {}'s capabilities): {}",
            lib.describe(),
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            release.crate_version,
            match release.origin {
                super::versions::Origin::Official { caps_of } => caps_of,
                super::versions::Origin::Source => release.version,
            },
            missing.join(", ")
        );
    }
    for e in fs::read_dir(vdir)?.flatten() {
        if e.file_name().to_string_lossy().starts_with(".partial-") {
            let _ = fs::remove_dir_all(e.path());
        }
    }
    let partial = tempfile::Builder::new().prefix(".partial-").tempdir_in(vdir)?;
    let bin = partial.path().join("rumbench");
    if fs::hard_link(shared, &bin).is_err() {
        fs::copy(shared, &bin).with_context(|| format!("cannot copy {} into {}", shared.display(), vdir.display()))?;
    }
    std::os::unix::fs::symlink(lib.lib_dir(), partial.path().join("lib"))?;
    let info = query_build_info(&bin)?;
    check_build(release, &info)?;
    let cached = CachedBuild { official: Some(lib.clone()), ..made.clone() };
    fs::write(partial.path().join("build.json"), serde_json::to_vec_pretty(&cached)?)?;
    let dest = vdir.join(key);
    // An entry whose library was removed from under it (`cached` passed it by); we hold the build lock.
    let _ = fs::remove_dir_all(&dest);
    let partial = partial.keep();
    fs::rename(&partial, &dest).with_context(|| format!("cannot move {} to {}", partial.display(), dest.display()))?;
    errln!(
        "{}: the binary of every release build, beside its library, in {:.1} s: {}",
        release.label(),
        t0.elapsed().as_secs_f64(),
        dest.display()
    );
    prune(vdir, KEEP_BUILDS);
    Ok(dest.join("rumbench"))
}

fn cargo() -> PathBuf {
    if let Some(c) = std::env::var_os("CARGO").filter(|c| !c.is_empty()) {
        return PathBuf::from(c);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".cargo/bin/cargo");
    if home.is_file() {
        home
    } else {
        PathBuf::from("cargo")
    }
}

fn build(
    release: &Release,
    official: Option<&super::official::Library>,
    source: &Path,
    root: &Path,
    vdir: &Path,
    key: &str,
) -> Result<PathBuf> {
    let mut manifest = source.join(release.manifest_dir()).join("Cargo.toml");
    if !manifest.is_file() {
        bail!("{} is missing: scripts/rocksdb-versions.sh generates it", manifest.display());
    }
    if official.is_some() {
        // The newest release's manifest with absolute paths, in the cache (the source tree is never written).
        let dir = vdir.join("manifest");
        fs::create_dir_all(&dir)?;
        fs::write(dir.join("Cargo.toml"), super::versions::official_manifest(source)?)?;
        fs::copy(manifest.with_file_name("Cargo.lock"), dir.join("Cargo.lock"))?;
        manifest = dir.join("Cargo.toml");
    }
    let target = if official.is_some() { release_builds_target_dir(root, source) } else { target_dir(root) };
    let log_path = vdir.join(format!("build-{key}.log"));
    let log = fs::File::create(&log_path).with_context(|| format!("cannot create {}", log_path.display()))?;
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let (estimate, what) = if official.is_some() {
        (
            Duration::from_secs(240),
            "once for every release build: nothing of RocksDB is compiled, rumbench's source is bound through the newest C API header",
        )
    } else if rocksdb_compiled(&target, release) {
        // Only rumbench's crate changed since the last build of this release.
        (Duration::from_secs(120), "RocksDB's C++ is compiled already, rumbench's source changed")
    } else {
        (estimate(root), "once, then cached")
    };
    errln!(
        "building {} (librocksdb-sys {}) with rumbench's source: {what}; about {} min on {cores} cores; log: {}",
        if official.is_some() { "the binary of RocksDB's release builds".to_string() } else { release.label() },
        release.crate_version,
        (estimate.as_secs_f64() / 60.0).round().max(1.0),
        log_path.display()
    );
    let mut cmd = std::process::Command::new(cargo());
    cmd.current_dir(source)
        // JSON on stdout: it says when librocksdb-sys's build script (RocksDB's C++) is done.
        .args(["build", "--release", "--locked", "--message-format=json-render-diagnostics", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // Cargo's variables of the build that runs us (under `cargo test`) are not this build's.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if (k.starts_with("CARGO_") && k != "CARGO_HOME") || k == "RUSTFLAGS" || k.starts_with("DEP_") || k == "OUT_DIR"
        {
            cmd.env_remove(&k);
        }
    }
    cmd.env("CARGO_TARGET_DIR", &target);
    let added = release.added_cxxflags().map(|f| f.split_whitespace().collect::<Vec<_>>().join(" "));
    if let Some(flags) = &added {
        cmd.env("CXXFLAGS_x86_64_unknown_linux_gnu", flags);
    }
    // librocksdb-sys links the library in ROCKSDB_LIB_DIR (dynamically, without
    // ROCKSDB_STATIC) instead of compiling RocksDB; build.rs adds its rpath.
    cmd.env_remove("ROCKSDB_LIB_DIR").env_remove("ROCKSDB_STATIC");
    cmd.env_remove("RUMBENCH_BUILD_SOURCE_ROOT");
    if let Some(lib) = official {
        // Linked to one release's library through a directory that stays the
        // same (the build script reruns when ROCKSDB_LIB_DIR changes); each
        // release's entry then runs the binary beside its own (place_release).
        let link_dir = vdir.join("link");
        fs::create_dir_all(&link_dir)?;
        let link = link_dir.join("librocksdb.so");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib.path, &link)?;
        cmd.env("ROCKSDB_LIB_DIR", &link_dir).env("RUMBENCH_BUILD_SOURCE_ROOT", source);
    }
    // Its own process group: a stop ends cargo and every compiler it started.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let t0 = Instant::now();
    let mut child = cmd.spawn().with_context(|| {
        format!("cannot run {} (Rust's cargo is needed to build a RocksDB version)", cargo().display())
    })?;
    let progress = std::sync::Arc::new(crate::driver::progress::LongTask::start(
        &if official.is_some() { "release builds' binary".to_string() } else { format!("RocksDB {}", release.version) },
        estimate,
    ));
    // Cargo's lines go to the log; what it compiles is the progress message.
    // RocksDB's C++ is compiled by librocksdb-sys's build script, silently,
    // while cargo goes on with other crates: the long part, until cargo
    // reports that build script executed.
    let log = std::sync::Arc::new(std::sync::Mutex::new(log));
    let rocksdb_state = std::sync::Arc::new(std::sync::atomic::AtomicU8::new(0)); // 0 before, 1 compiling, 2 done
    let stdout = child.stdout.take().expect("piped");
    let json_reader = {
        let (progress, log, state) = (progress.clone(), log.clone(), rocksdb_state.clone());
        let done = if official.is_some() {
            "librocksdb-sys bound to the release library; compiling and linking rumbench"
        } else {
            "RocksDB's C++ done; compiling and linking rumbench"
        };
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
                use std::io::Write;
                if line.contains("\"reason\":\"build-script-executed\"") && line.contains("librocksdb-sys") {
                    state.store(2, std::sync::atomic::Ordering::Relaxed);
                    progress.set_message(done);
                    let _ = writeln!(log.lock().unwrap(), "(cargo) librocksdb-sys build script executed");
                }
            }
        })
    };
    let stderr = child.stderr.take().expect("piped");
    let compiling_sys = if official.is_some() {
        "librocksdb-sys: bindings of its C API header, linked to the release library"
    } else {
        "compiling RocksDB's C++ (librocksdb-sys's build script)"
    };
    let reader = {
        let (progress, log, state) = (progress.clone(), log.clone(), rocksdb_state.clone());
        std::thread::spawn(move || {
            let mut last = String::new();
            for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
                use std::io::Write;
                let _ = writeln!(log.lock().unwrap(), "{line}");
                if let Some(what) = line.trim_start().strip_prefix("Compiling ") {
                    last = what.split_whitespace().next().unwrap_or("").to_string();
                    if last == "librocksdb-sys" {
                        let _ = state.compare_exchange(
                            0,
                            1,
                            std::sync::atomic::Ordering::Relaxed,
                            std::sync::atomic::Ordering::Relaxed,
                        );
                    }
                    match state.load(std::sync::atomic::Ordering::Relaxed) {
                        0 => progress.set_message(&format!("compiling {last}")),
                        1 => progress.set_message(compiling_sys),
                        _ => {}
                    }
                }
            }
            last
        })
    };
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if crate::driver::stop::stop_requested() {
            // SAFETY: a signal to the process group we created for cargo.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
            let _ = child.wait();
            let _ = (reader.join(), json_reader.join());
            bail!(
                "the build of RocksDB {} was stopped; nothing of it is used (log: {})",
                release.version,
                log_path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let last_crate = reader.join().unwrap_or_default();
    let _ = json_reader.join();
    if let Ok(p) = std::sync::Arc::try_unwrap(progress) {
        p.finish();
    }
    if !status.success() {
        let errors: Vec<String> = fs::read_to_string(&log_path)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("error"))
            .take(3)
            .map(str::to_string)
            .collect();
        bail!(
            "the build of RocksDB {} failed ({status}, compiling {last_crate}): {} (log: {})",
            release.version,
            errors.join(" | "),
            log_path.display()
        );
    }
    // The tree was checked before cargo started; an edit while it compiled
    // would be in the binary under the fingerprint it had before.
    if build_support::of_tree(source).ok().as_deref() != Some(SOURCE_HASH) {
        bail!(
            "the source in {} changed while RocksDB {} was built: nothing of that build is used; \
             run `cargo build --release`, then the run again",
            source.display(),
            release.version
        );
    }
    let secs = t0.elapsed().as_secs_f64();
    let artifact = target.join("release").join(release.package_name());
    let partial = tempfile::Builder::new().prefix(".partial-").tempdir_in(vdir)?;
    let bin = partial.path().join("rumbench");
    fs::copy(&artifact, &bin).with_context(|| format!("cannot copy {} into the cache", artifact.display()))?;
    if let Some(lib) = official {
        // Every symbol is bound when the binary starts: it must name none of
        // the functions an older release lacks (src/engine/rocksdb/late.rs).
        let needed = super::official::needed_functions(&bin)?;
        let named: Vec<&str> =
            super::late::LATE_FUNCTIONS.iter().map(|(f, _)| *f).filter(|f| needed.contains(*f)).collect();
        if !named.is_empty() {
            bail!(
                "the binary of RocksDB's release builds binds {} when it starts, which older releases lack: \
                 call {} through src/engine/rocksdb/late.rs",
                named.join(", "),
                if named.len() == 1 { "it" } else { "them" }
            );
        }
        // Its rpath's `lib` ($ORIGIN/lib), so that it starts (build info, below).
        std::os::unix::fs::symlink(lib.lib_dir(), partial.path().join("lib"))?;
    }
    let info = query_build_info(&bin)?;
    check_build(release, &info)?;
    let cached = CachedBuild {
        manifest: fs::read_to_string(&manifest)?,
        added_cxxflags: added,
        info,
        built_at: chrono::Utc::now().to_rfc3339(),
        build_seconds: secs,
        // The shared binary runs no release of its own: each release's entry names its library.
        official: None,
    };
    fs::write(partial.path().join("build.json"), serde_json::to_vec_pretty(&cached)?)?;
    let dest = vdir.join(key);
    let partial = partial.keep();
    fs::rename(&partial, &dest).with_context(|| format!("cannot move {} to {}", partial.display(), dest.display()))?;
    errln!(
        "built {} in {:.1} min: {}",
        if official.is_some() { "the binary of RocksDB's release builds".to_string() } else { release.label() },
        secs / 60.0,
        dest.display()
    );
    prune(vdir, KEEP_BUILDS);
    Ok(dest.join("rumbench"))
}

/// Builds of one version kept in the cache (each ~100 MB): older ones are of
/// source that has changed since, used again only if it changes back.
const KEEP_BUILDS: usize = 3;

/// Remove all but the `keep` newest finished builds in a version's directory (and their logs).
fn prune(vdir: &Path, keep: usize) {
    let mut builds: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(vdir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("build.json").is_file())
        .filter_map(|e| Some((e.path().join("build.json").metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    builds.sort();
    let old = builds.len().saturating_sub(keep);
    for (_, dir) in builds.into_iter().take(old) {
        let key = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::remove_file(vdir.join(format!("build-{key}.log")));
    }
}

/// Whether `target` holds a finished librocksdb-sys build of `release`
/// (its build script's log names the crate, and the library is there).
fn rocksdb_compiled(target: &Path, release: &Release) -> bool {
    let crate_dir = format!("librocksdb-sys-{}", release.crate_version);
    fs::read_dir(target.join("release/build")).into_iter().flatten().flatten().any(|e| {
        e.file_name().to_string_lossy().starts_with("librocksdb-sys-")
            && e.path().join("out/librocksdb.a").is_file()
            && fs::read_to_string(e.path().join("output")).is_ok_and(|o| o.contains(&crate_dir))
    })
}

/// Run `bin internal-build-info`.
pub fn query_build_info(bin: &Path) -> Result<BuildInfo> {
    let out = std::process::Command::new(bin)
        .arg("internal-build-info")
        .output()
        .with_context(|| format!("cannot run {}", bin.display()))?;
    if !out.status.success() {
        bail!("{} internal-build-info failed: {}", bin.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    serde_json::from_slice(&out.stdout)
        .with_context(|| format!("{} internal-build-info printed no build info", bin.display()))
}

/// A build is used only when it is the release asked for, with the
/// capabilities the table promises, from this very source, optimised.
pub fn check_build(release: &Release, info: &BuildInfo) -> Result<()> {
    if info.rocksdb_version != release.header_version() {
        bail!(
            "the build for RocksDB {} has RocksDB {} (librocksdb-sys {})",
            release.version,
            info.rocksdb_version,
            info.librocksdb_sys
        );
    }
    // A release build's binary is the one every release shares: it has the
    // newest header's capabilities, and uses its release's (late.rs).
    let expected = if release.is_official() { super::versions::newest().caps } else { release.caps };
    if info.capabilities != expected {
        bail!(
            "RocksDB {}'s build has capabilities {:?}, where rumbench's table says {:?}: the table is wrong",
            release.version,
            info.capabilities,
            expected
        );
    }
    if info.source_hash != SOURCE_HASH {
        bail!(
            "the build for RocksDB {} is of other source (fingerprint {}, this binary's {SOURCE_HASH})",
            release.version,
            info.source_hash
        );
    }
    let this = BuildInfo::this_binary();
    if info.target_cpu != this.target_cpu || info.cxx != this.cxx {
        bail!(
            "the build for RocksDB {} was compiled for {} with {}, this binary for {} with {}: a version must be built as the default build is",
            release.version,
            info.target_cpu,
            info.cxx,
            this.target_cpu,
            this.cxx
        );
    }
    if info.profile != "release" || info.opt_level == "0" {
        bail!(
            "the build for RocksDB {} is not optimised (profile {}, opt-level {})",
            release.version,
            info.profile,
            info.opt_level
        );
    }
    // A release library was not compiled here: no compile command to read
    // (its provenance says what is known of its build).
    if !release.is_official() && !build_support::flags_are_release(&info.rocksdb_cxx_flags) {
        bail!(
            "RocksDB {} was not compiled as a release build (NDEBUG, optimised): {:?}",
            release.version,
            info.rocksdb_cxx_flags
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_from_the_cc_log_line() {
        // As cc logs it (CC_ENABLE_DEBUG_OUTPUT), in target/release/build/librocksdb-sys-*/output.
        let line = r#"running: "c++" "-O3" "-ffunction-sections" "-fPIC" "-march=native" "-I" "rocksdb/include/" "-Irocksdb/" "-DNDEBUG=1" "-std=c++20" "-o" "/x/out/a.o" "-c" "rocksdb/db/db_impl/db_impl.cc""#;
        let flags = build_support::flags_of_command(line);
        assert_eq!(flags, "c++ -O3 -ffunction-sections -fPIC -march=native -DNDEBUG=1 -std=c++20");
        assert!(build_support::flags_are_release(&flags));
        assert!(!build_support::flags_are_release("c++ -O0 -DNDEBUG=1"));
        assert!(!build_support::flags_are_release("c++ -O3"));
    }

    #[test]
    fn old_builds_are_pruned_to_the_newest() {
        let t = tempfile::tempdir().unwrap();
        for (i, key) in ["a", "b", "c", "d"].iter().enumerate() {
            let d = t.path().join(key);
            fs::create_dir(&d).unwrap();
            fs::write(d.join("build.json"), "{}").unwrap();
            fs::write(t.path().join(format!("build-{key}.log")), "").unwrap();
            let when = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + i as u64);
            fs::File::options().write(true).open(d.join("build.json")).unwrap().set_modified(when).unwrap();
        }
        fs::create_dir(t.path().join(".partial-x")).unwrap();
        prune(t.path(), 2);
        let mut left: Vec<String> =
            fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, [".partial-x", "build-c.log", "build-d.log", "c", "d"]);
    }

    #[test]
    fn a_build_is_checked_against_the_release() {
        let release = Release::built_in();
        // As a release build reports itself (tests may run unoptimised).
        let this = || BuildInfo {
            profile: "release".into(),
            opt_level: "3".into(),
            rocksdb_cxx_flags: "c++ -O3 -DNDEBUG=1".into(),
            ..BuildInfo::this_binary()
        };
        let mut info = this();
        check_build(release, &info).unwrap();
        info.source_hash = "0".into();
        assert!(check_build(release, &info).unwrap_err().to_string().contains("other source"));
        let mut info = this();
        info.capabilities.multiget = false;
        assert!(check_build(release, &info).unwrap_err().to_string().contains("the table is wrong"));
        let mut info = this();
        info.target_cpu = "x86-64".into();
        assert!(check_build(release, &info).unwrap_err().to_string().contains("compiled for x86-64"));
        let old = super::super::versions::resolve("8.10").unwrap();
        assert!(check_build(old, &this()).unwrap_err().to_string().contains("has RocksDB 11.8.1"));
    }
}
