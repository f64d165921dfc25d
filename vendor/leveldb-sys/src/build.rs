//! Builds the bundled LevelDB 1.22 as a static library.
//!
//! rumbench's changes to leveldb-sys 2.0.9's build script (RUMBENCH.md):
//! - `HAVE_CLANG_THREAD_SAFETY=OFF`: LevelDB's CMake probe for clang's
//!   `-Wthread-safety` passes wrongly under gcc 12, which then fails every
//!   compile with "unrecognized command-line option '-Wthread-safety'".
//! - `CMAKE_BUILD_TYPE=Release` (`-O3 -DNDEBUG`), whatever the cargo
//!   profile: the cmake crate would pick Debug (assertions on) for debug
//!   builds and RelWithDebInfo (-O2) for rumbench's release profile.
//!   `RUMBENCH_LEVELDB_BUILD_TYPE=Debug` builds with assertions on purpose,
//!   for the test that an assertion-enabled engine is warned about.
//! - The `snappy` feature links Debian's libsnappy rather than building the
//!   bundled snappy 1.1.7; tcmalloc and crc32c probes are off, so the library
//!   does not change with what else happens to be installed.
//! - No NUM_JOBS override (cargo's -j is respected).
//! - Reports the compile flags it used (`cargo:cxx_flags=...`, read back from
//!   CMake's flags.make) and the compiler, as DEP_LEVELDB_* for dependents.

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

const LEVELDB_VERSION: &'static str = "1.22";
/// Directory name within `$OUT_DIR` where the static libraries should be built.
const LIBDIR: &'static str = "lib";

/// Release, or Debug when RUMBENCH_LEVELDB_BUILD_TYPE asks for it.
fn build_type() -> String {
    println!("cargo:rerun-if-env-changed=RUMBENCH_LEVELDB_BUILD_TYPE");
    match env::var("RUMBENCH_LEVELDB_BUILD_TYPE") {
        Err(_) => "Release".into(),
        Ok(t) if t == "Release" || t == "Debug" => t,
        Ok(t) => panic!("RUMBENCH_LEVELDB_BUILD_TYPE must be Release or Debug, not {:?}", t),
    }
}

fn build_leveldb(snappy: bool, build_type: &str) -> PathBuf {
    let outdir = env::var("OUT_DIR").unwrap();
    let libdir = Path::new(&outdir).join(LIBDIR);

    let mut config =
        cmake::Config::new(Path::new("deps").join(format!("leveldb-{}", LEVELDB_VERSION)));
    config
        .profile(build_type)
        .define("LEVELDB_BUILD_TESTS", "OFF")
        .define("LEVELDB_BUILD_BENCHMARKS", "OFF")
        .define("LEVELDB_INSTALL", "ON")
        .define("BUILD_SHARED_LIBS", "OFF")
        .define("HAVE_CLANG_THREAD_SAFETY", "OFF")
        .define("HAVE_CRC32C", "OFF")
        .define("HAVE_TCMALLOC", "OFF")
        .define("HAVE_SNAPPY", if snappy { "ON" } else { "OFF" })
        .define("CMAKE_INSTALL_LIBDIR", &libdir);
    let dest_prefix = config.build();

    assert_eq!(
        dest_prefix.join(LIBDIR),
        libdir,
        "CMake should build LevelDB in provided LIBDIR"
    );
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=static=leveldb");
    if snappy {
        // rumbench: Debian's shared libsnappy by its exact name. A plain
        // `-lsnappy` would find the static libsnappy.a that librocksdb-sys
        // builds (a newer snappy without the RawCompress LevelDB calls) first
        // in the link search path.
        println!("cargo:rustc-link-lib=dylib:+verbatim=libsnappy.so.1");
    }
    dest_prefix
}

/// The compile line CMake used for the library's C++ sources (flags.make).
fn report_flags(dest_prefix: &Path) {
    let flags_make = dest_prefix.join("build/CMakeFiles/leveldb.dir/flags.make");
    let text = std::fs::read_to_string(&flags_make).unwrap_or_default();
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    println!("cargo:cxx_flags={}", get("CXX_FLAGS = "));
    println!("cargo:cxx_defines={}", get("CXX_DEFINES = "));
    let cache = std::fs::read_to_string(dest_prefix.join("build/CMakeCache.txt")).unwrap_or_default();
    let compiler = cache
        .lines()
        .find_map(|l| l.strip_prefix("CMAKE_CXX_COMPILER:"))
        .and_then(|l| l.split_once('='))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "c++".into());
    let version = Command::new(&compiler)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_default();
    println!("cargo:compiler={} ({})", compiler, version);
}

fn main() {
    println!("cargo:rerun-if-changed=src/build.rs");
    // rumbench: its .cargo/config.toml turns on the cc crate's command log
    // (for RocksDB's flags); here it would only print the cmake crate's
    // compiler probes ("unrecognized command-line option '-?'") as warnings.
    // SAFETY: the build script is single-threaded at this point.
    unsafe { env::remove_var("CC_ENABLE_DEBUG_OUTPUT") };
    let snappy = env::var_os("CARGO_FEATURE_SNAPPY").is_some();
    let build_type = build_type();
    let prefix = build_leveldb(snappy, &build_type);
    report_flags(&prefix);
    println!("cargo:build_type={}", build_type);

    // Link to the standard C++ library
    let target = env::var("TARGET").unwrap();
    if target.contains("apple") || target.contains("freebsd") {
        println!("cargo:rustc-link-lib=c++");
    } else if target.contains("gnu") || target.contains("netbsd") || target.contains("openbsd") {
        println!("cargo:rustc-link-lib=stdc++");
    } else if target.contains("musl") {
        println!("cargo:rustc-link-lib=static=stdc++");
    }
}
