//! Builds SplinterDB's static library with upstream's own Makefile, unchanged,
//! into OUT_DIR: BUILD_MODE=release (upstream's default: `-O3 -ffast-math
//! -flto`, `platform_assert` compiled in, NDEBUG never defined) with clang, and
//! `-march=native` added (upstream's Makefile adds it only where `uname -p`
//! prints x86_64, which Debian's does not; rumbench builds every engine for
//! this machine's CPU, as RocksDB with .cargo/config.toml's target-cpu=native).
//!
//! Why clang: gcc's `-flto` objects are slim (GIMPLE only), which Rust's linker
//! (rust-lld) cannot link; clang's are LLVM bitcode, which it links (and LTOs).
//! `llvm-ar` writes the archive index of bitcode members (GNU ar cannot
//! without the LLVM plugin).
//!
//! Reports what it built with, for each result's provenance (rustc-env for the
//! crate itself, and `cargo:` metadata for dependants): the compiler, the
//! Makefile's CFLAGS and LDFLAGS as it recorded them (build-config.*), the
//! upstream commit and the make command (bench/splinterdb_build.sh builds
//! `driver_test` with the same one).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The upstream commit the vendored tree is (shared/deps/README.md).
const COMMIT: &str = "d2173e0e3b18d05ab96828a4b147fe8283a6cb3b";
/// Added to upstream's CFLAGS (through the environment, which the Makefile's `+=` appends to).
const EXTRA_CFLAGS: &str = "-march=native";

fn tool(candidates: &[&str]) -> String {
    for c in candidates {
        if Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()) {
            return c.to_string();
        }
    }
    panic!("splinterdb-sys: none of {candidates:?} found (scripts/setup.sh installs clang and llvm)");
}

fn first_line(cmd: &str) -> String {
    Command::new(cmd)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|t| t.lines().next().map(str::to_string))
        .unwrap_or_else(|| format!("{cmd} (version unknown)"))
}

/// `NAME = value` of the Makefile's build-config.<hash> file.
fn config_value(dir: &Path, name: &str) -> String {
    let file = std::fs::read_dir(dir)
        .expect("build dir")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("build-config."))
        .expect("upstream's Makefile writes build-config.<hash>");
    let text = std::fs::read_to_string(file.path()).unwrap();
    text.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(" = ")?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
        .unwrap_or_default()
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let src = manifest.join("splinterdb");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let build_root = out.join("build");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-changed=build.rs");
    for v in ["SPLINTERDB_CC", "SPLINTERDB_BUILD_MODE"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    let cc = std::env::var("SPLINTERDB_CC").unwrap_or_else(|_| tool(&["clang", "clang-14"]));
    let ar = tool(&["llvm-ar", "llvm-ar-14", "llvm-ar-15", "llvm-ar-16"]);
    // release (upstream's default) unless asked otherwise, for a test.
    let mode = std::env::var("SPLINTERDB_BUILD_MODE").unwrap_or_else(|_| "release".into());
    let jobs = std::env::var("NUM_JOBS").unwrap_or_else(|_| "2".into());
    let lib = build_root.join(&mode).join("lib/libsplinterdb.a");
    let git_version = format!("\"{}\"", &COMMIT[..8]);
    let args = [
        format!("CC={cc}"),
        format!("AR={ar}"),
        format!("BUILD_MODE={mode}"),
        format!("BUILD_ROOT={}", build_root.display()),
        format!("GIT_VERSION={git_version}"),
        "BUILD_VERBOSE=1".to_string(),
    ];
    let mut make = Command::new("make");
    make.current_dir(&src)
        .arg(format!("-j{jobs}"))
        .args(&args)
        .arg(&lib)
        // The Makefile appends its flags to the environment's CFLAGS/LDFLAGS.
        .env("CFLAGS", EXTRA_CFLAGS)
        .env_remove("LDFLAGS")
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS");
    let output = make.output().expect("splinterdb-sys: cannot run make");
    std::fs::write(out.join("make.log"), [&output.stdout[..], &output.stderr[..]].concat()).ok();
    if !output.status.success() {
        let tail: Vec<String> = String::from_utf8_lossy(&output.stderr).lines().rev().take(20).map(str::to_string).collect();
        panic!(
            "splinterdb-sys: `make` of SplinterDB failed ({}); last lines:\n{}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let build_dir = build_root.join(&mode);
    let cflags = config_value(&build_dir, "CFLAGS");
    let ldflags = config_value(&build_dir, "LDFLAGS");
    let compiler = first_line(&cc);
    println!("cargo:rustc-link-search=native={}", lib.parent().unwrap().display());
    println!("cargo:rustc-link-lib=static=splinterdb");
    // What upstream's Makefile links (LIBS): libaio (its IO), libxxhash, libm, libpthread.
    for l in ["aio", "xxhash", "m", "pthread"] {
        println!("cargo:rustc-link-lib={l}");
    }
    let make_cmd = format!("CFLAGS={EXTRA_CFLAGS} make {}", args.iter().filter(|a| !a.starts_with("BUILD_ROOT=")).cloned().collect::<Vec<_>>().join(" "));
    for (key, value) in [
        ("SPLINTERDB_SYS_CFLAGS", cflags.as_str()),
        ("SPLINTERDB_SYS_LDFLAGS", ldflags.as_str()),
        ("SPLINTERDB_SYS_COMPILER", compiler.as_str()),
        ("SPLINTERDB_SYS_COMMIT", COMMIT),
        ("SPLINTERDB_SYS_BUILD_MODE", mode.as_str()),
        ("SPLINTERDB_SYS_MAKE", make_cmd.as_str()),
        ("SPLINTERDB_SYS_BUILD_DIR", build_dir.to_str().unwrap()),
    ] {
        println!("cargo:rustc-env={key}={value}");
    }
    println!("cargo:cflags={cflags}");
    println!("cargo:compiler={compiler}");
    println!("cargo:commit={COMMIT}");
}
