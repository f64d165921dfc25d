//! Build script for rumbench.
//!
//! 1. Exports the sync wrappers of `src/measure/os/syncs.rs` (fsync, fdatasync,
//!    msync, sync_file_range) in the executable's dynamic symbol table, so
//!    that dynamically linked C/C++ libraries (Debian's librocksdb.so) bind to
//!    them instead of glibc's. Without this, only code linked statically into
//!    the binary (Rust, bundled SQLite, LMDB) would be counted. `--export-dynamic-symbol`
//!    needs GNU ld >= 2.35 or lld (Debian 12 ships ld 2.40).
//!    The flag is passed to every linked target (the binary and the test
//!    harnesses), so tests see the same interposition the binary does.
//! 2. Records the git commit the binary was built from (RUMBENCH_GIT_COMMIT,
//!    with "-dirty" when the work tree had uncommitted changes at build time),
//!    or nothing when git or the repository is unavailable (then "unknown").
//! 3. Records how the binary (and the C/C++ built into it) was compiled: the
//!    target CPU from RUSTFLAGS (librocksdb-sys passes it to the C++ as
//!    -march), the optimisation level, and the C++ compiler's version
//!    (src/build_info.rs).

use std::path::PathBuf;
use std::process::Command;

/// Must match the `#[no_mangle]` wrappers in src/measure/os/syncs.rs.
const SYNC_SYMBOLS: &[&str] = &["fsync", "fdatasync", "msync", "sync_file_range"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // Sources too, so the "-dirty" mark follows edits (the crate recompiles then anyway).
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    for sym in SYNC_SYMBOLS {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol={sym}");
    }
    git_commit();
    build_info();
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
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| "this machine's CPU".into())
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn git_commit() {
    // Rebuild when HEAD moves: HEAD itself, the branch ref it points to, packed refs and the index.
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        println!("cargo:rerun-if-changed={}", git_dir.join("HEAD").display());
        println!("cargo:rerun-if-changed={}", git_dir.join("index").display());
        if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
            println!("cargo:rerun-if-changed={}", PathBuf::from(&common).join("packed-refs").display());
            if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
                println!("cargo:rerun-if-changed={}", PathBuf::from(&common).join(head_ref).display());
            }
        }
    }
    let Some(commit) = git(&["rev-parse", "HEAD"]) else { return };
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=RUMBENCH_GIT_COMMIT={commit}{suffix}");
}
