//! What build.rs and the binary share (`#[path]` in build.rs, so std only).
//!
//! A fingerprint of rumbench's source: every file the binary is compiled
//! from (Cargo.toml, Cargo.lock, build.rs, src/, crates/, vendor/), hashed by path
//! and content. build.rs records it in the binary (RUMBENCH_SOURCE_HASH);
//! a RocksDB version build (src/engine/rocksdb/build.rs) is made from the
//! same source tree and must carry the same fingerprint, so its workload,
//! timing and measurement code is the very code of the binary that runs it.
//!
//! And the flags RocksDB was compiled with, from the compiler commands its
//! build logged (.cargo/config.toml sets CC_ENABLE_DEBUG_OUTPUT).

use std::path::{Path, PathBuf};

/// What is hashed, relative to the source root.
pub const HASHED: &[&str] = &["Cargo.toml", "Cargo.lock", "build.rs", "src", "crates", "vendor"];

/// FNV-1a, 64 bits: stable across Rust versions and builds (std's hashers are not promised to be).
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// A field: its length first, so ("ab", "c") and ("a", "bc") differ.
    pub fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Every regular file under `root`'s [`HASHED`] entries, sorted, relative to `root`.
pub fn files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in HASHED {
        walk(root, Path::new(entry), &mut out)?;
    }
    out.sort();
    Ok(out)
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let path = root.join(rel);
    let meta = std::fs::symlink_metadata(&path)?;
    if meta.is_dir() {
        for e in std::fs::read_dir(&path)? {
            let name = e?.file_name();
            walk(root, &rel.join(name), out)?;
        }
    } else if meta.is_file() {
        out.push(rel.to_path_buf());
    }
    Ok(())
}

/// The fingerprint of the source tree at `root`, as 16 hex digits.
pub fn of_tree(root: &Path) -> std::io::Result<String> {
    let mut h = Fnv::default();
    for rel in files(root)? {
        h.field(rel.to_string_lossy().as_bytes());
        h.field(&std::fs::read(root.join(&rel))?);
    }
    Ok(format!("{:016x}", h.finish()))
}

/// The source root for a package at `manifest_dir`: the directory itself
/// when it holds src/lib.rs, else the nearest parent that does (a RocksDB
/// version's manifest lives in rocksdb-versions/<version>/ of the tree).
pub fn root_of(manifest_dir: &Path) -> Option<PathBuf> {
    manifest_dir
        .ancestors()
        .find(|d| d.join("src/lib.rs").is_file() && d.join("build.rs").is_file())
        .map(Path::to_path_buf)
}

/// The compiler and its flags from a cc log line, without include paths,
/// input and output: `running: ... "c++" "-O3" ... "-o" "x.o" "-c" "y.cc"`.
pub fn flags_of_command(line: &str) -> String {
    let cmd = line.split_once("running: ").map(|(_, c)| c).unwrap_or(line);
    let words: Vec<&str> = cmd.split('"').enumerate().filter(|(i, _)| i % 2 == 1).map(|(_, w)| w).collect();
    let mut out: Vec<&str> = Vec::new();
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        match w {
            "-o" | "-c" | "-I" => skip = true,
            _ if w.starts_with("-I") => {}
            // Variables set before the compiler (env FOO=bar "c++" ...).
            _ if out.is_empty() && w.contains('=') => {}
            _ => out.push(w),
        }
    }
    out.join(" ")
}

/// The flags of RocksDB's db/db_impl/db_impl.cc compile in a librocksdb-sys
/// build script's log (its `output` file), if it logged its commands.
pub fn rocksdb_flags_in_log(log: &str) -> Option<String> {
    log.lines().find(|l| l.contains("running: ") && l.contains("db/db_impl/db_impl.cc")).map(flags_of_command)
}

/// Whether RocksDB's compile flags say a release build: NDEBUG defined and optimised.
pub fn flags_are_release(flags: &str) -> bool {
    let words: Vec<&str> = flags.split_whitespace().collect();
    let ndebug = words.iter().any(|w| *w == "-DNDEBUG" || w.starts_with("-DNDEBUG="));
    let opt = words.iter().rev().find(|w| w.starts_with("-O")).is_some_and(|o| *o != "-O0");
    ndebug && opt
}
