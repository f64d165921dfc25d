//! How this binary was built (recorded by build.rs): every result carries it,
//! so a figure can always be traced to the build that produced it.

use rumbench_core::binary::Binary;

/// The target CPU the Rust code and the bundled C/C++ (RocksDB) were compiled for.
pub const TARGET_CPU: &str = env!("RUMBENCH_TARGET_CPU");
/// Cargo's optimisation level of the build ("3" for release).
pub const OPT_LEVEL: &str = env!("RUMBENCH_OPT_LEVEL");
/// "release" or "debug".
pub const PROFILE: &str = env!("RUMBENCH_PROFILE");
/// The C/C++ compiler's version line.
pub const CXX_COMPILER: &str = env!("RUMBENCH_CXX");
/// The compiler command of RocksDB's db/db_impl/db_impl.cc as librocksdb-sys's
/// build ran it, paths left out ("" when its build did not log commands).
pub const ROCKSDB_CXX_FLAGS: &str = env!("RUMBENCH_ROCKSDB_CXX_FLAGS");

/// The fingerprint of the source this binary was built from (build.rs:
/// `build_support`'s hash of Cargo.toml, Cargo.lock, src/, crates/, ...).
pub const SOURCE_HASH: &str = env!("RUMBENCH_SOURCE_HASH");

/// This binary, as the results record it.
pub const THIS: Binary = Binary {
    version: env!("CARGO_PKG_VERSION"),
    git_commit: option_env!("RUMBENCH_GIT_COMMIT"),
    profile: PROFILE,
    opt_level: OPT_LEVEL,
    target_cpu: TARGET_CPU,
    cxx: CXX_COMPILER,
};

/// Whether this is an optimised build; a debug build's figures mean little.
pub fn optimised() -> bool {
    THIS.optimised()
}
