//! RocksDB's own release builds: the native library of the Java binding,
//! Maven Central's `org.rocksdb:rocksdbjni`, which exports RocksDB's C API
//! (779 `rocksdb_*` functions in 7.6.0) beside the JNI ones.
//!
//! `rocksdb@7.6.0` (a version no librocksdb-sys crate bundles) or
//! `rocksdb@8.10:release` runs that library: fetched once with `mvn` into
//! the cache (the `linux64` classifier jar where the release has one, else
//! the jar of every platform), its sha1 checked against the repository's,
//! `librocksdbjni-linux64.so` unpacked as `lib/librocksdb.so` under
//! `$XDG_CACHE_HOME/rumbench/rocksdb/official/<version>/`. One rumbench
//! binary runs every release's library (src/engine/rocksdb/build.rs):
//! built once per rumbench source against the newest source release's C API
//! header and linked to a `librocksdb.so` it finds beside itself; the C API
//! functions newer than 6.28.2 it looks up by name (src/engine/rocksdb/late.rs).
//! So nothing of RocksDB is compiled, and a release costs a download.
//! docs/rocksdb-versions.md says why it is linked rather than loaded
//! function by function.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::maven;

pub const GROUP: &str = "org.rocksdb";
pub const ARTIFACT: &str = "rocksdbjni";
/// The library for this platform inside the jar.
const LIBRARY_IN_JAR: &str = "librocksdbjni-linux64.so";
/// What a complete cache entry holds (written last).
const RECORD: &str = "library.json";

/// A release library in the cache, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Library {
    /// RocksDB's version, as rocksdbjni's.
    pub version: String,
    /// The Maven coordinates of the jar it came from.
    pub artifact: String,
    /// The jar's sha1, as the repository gives it (and checked).
    pub jar_sha1: String,
    /// The unpacked library (`.../lib/librocksdb.so`).
    pub path: PathBuf,
    /// Its compilers, from its `.comment` section ("GCC: (GNU) 7.3.1 ...").
    pub compilers: Vec<String>,
    /// `rocksdb_build_date` as the library records it.
    pub build_date: Option<String>,
    /// How many `rocksdb_*` functions it exports.
    pub c_api_functions: usize,
}

impl Library {
    /// "RocksDB 7.6.0, official release build (rocksdbjni 7.6.0, sha1 ...)".
    pub fn describe(&self) -> String {
        let classifier = if self.artifact.ends_with(":linux64") { " linux64" } else { "" };
        format!(
            "RocksDB {}, official release build ({ARTIFACT} {}{classifier}, sha1 {})",
            self.version, self.version, self.jar_sha1
        )
    }

    /// The newest compiler its sections name (RocksDB's own code; older
    /// entries are of the build image's runtime objects).
    pub fn compiler(&self) -> String {
        self.compilers.last().cloned().unwrap_or_else(|| "not recorded in the library".into())
    }

    pub fn lib_dir(&self) -> PathBuf {
        self.path.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

/// RocksDB's releases on Maven Central, as rocksdbjni lists them.
pub fn versions() -> Result<Vec<String>> {
    maven::versions(GROUP, ARTIFACT)
}

/// The library of `version`, from the cache directory of release libraries
/// `root` (rocksdb_build's `official/`) or fetched into it now.
pub fn ensure(root: &Path, version: &str) -> Result<Library> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        bail!("RocksDB's release builds are run on Linux x86_64 only (their {LIBRARY_IN_JAR})");
    }
    let dir = root.join(version);
    if let Some(lib) = cached(&dir) {
        return Ok(lib);
    }
    fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let lock_path = root.join(format!(".{version}.lock"));
    let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path)?;
    // SAFETY: flock on a descriptor we own; released when `lock` is closed.
    unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
    if let Some(lib) = cached(&dir) {
        return Ok(lib);
    }
    let _ = fs::remove_dir_all(&dir); // an entry without its record was cut off: never trusted
    let t0 = std::time::Instant::now();
    errln!("fetching RocksDB {version}'s release build ({GROUP}:{ARTIFACT}) with mvn into {} ...", root.display());
    let jar = fetch_jar(version)?;
    let tmp = tempfile::Builder::new().prefix(&format!(".partial-{version}-")).tempdir_in(root)?;
    let lib_dir = tmp.path().join("lib");
    fs::create_dir(&lib_dir)?;
    unzip_one(&jar.0.path, LIBRARY_IN_JAR, &lib_dir)?;
    let unpacked = lib_dir.join("librocksdb.so");
    fs::rename(lib_dir.join(LIBRARY_IN_JAR), &unpacked)?;
    let bytes = fs::read(&unpacked)?;
    let exports = exported_functions(&unpacked)?;
    if !exports.contains("rocksdb_open") {
        bail!("{} of {} exports no rocksdb_open: not RocksDB's C API", LIBRARY_IN_JAR, jar.1);
    }
    let lib = Library {
        version: version.to_string(),
        artifact: jar.1,
        jar_sha1: jar.0.sha1,
        path: dir.join("lib/librocksdb.so"),
        compilers: compilers(&unpacked),
        build_date: recorded(&bytes, b"rocksdb_build_date:"),
        c_api_functions: exports.len(),
    };
    fs::write(tmp.path().join(RECORD), serde_json::to_vec_pretty(&lib)?)?;
    let partial = tmp.keep();
    fs::rename(&partial, &dir).with_context(|| format!("cannot move {} to {}", partial.display(), dir.display()))?;
    errln!("fetched RocksDB {version}'s release build in {:.1} s: {}", t0.elapsed().as_secs_f64(), lib.path.display());
    Ok(lib)
}

fn cached(dir: &Path) -> Option<Library> {
    let lib: Library = serde_json::from_slice(&fs::read(dir.join(RECORD)).ok()?).ok()?;
    lib.path.is_file().then_some(lib)
}

/// The jar with this platform's library: the `linux64` classifier jar where
/// the release has one, else the jar of every platform. (The file, its coordinates.)
fn fetch_jar(version: &str) -> Result<(maven::Fetched, String)> {
    let mut last = None;
    for classifier in [Some("linux64"), None] {
        let a = maven::Artifact { group: GROUP, artifact: ARTIFACT, version, packaging: "jar", classifier };
        match maven::fetch(&a, maven::FETCH_TIMEOUT) {
            Ok(f) => return Ok((f, a.coordinates())),
            Err(maven::FetchError::NotFound(why)) => last = Some(why),
            Err(e) => return Err(anyhow!(e)),
        }
    }
    bail!("{}", last.unwrap_or_else(|| format!("rocksdbjni {version} is not in the Maven repository")))
}

/// Unpack one member of a zip (a jar) with unzip (scripts/setup.sh installs it).
fn unzip_one(zip: &Path, member: &str, into: &Path) -> Result<()> {
    let out = Command::new("unzip")
        .args(["-q", "-o"])
        .arg(zip)
        .arg(member)
        .arg("-d")
        .arg(into)
        .stdin(Stdio::null())
        .output()
        .context("cannot run unzip (apt-get install unzip; scripts/setup.sh installs it)")?;
    if !out.status.success() || !into.join(member).is_file() {
        bail!(
            "{} holds no {member} (unzip: {})",
            zip.display(),
            String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").trim()
        );
    }
    Ok(())
}

/// The `rocksdb_*` functions a shared library exports (`nm -D --defined-only`).
pub fn exported_functions(lib: &Path) -> Result<BTreeSet<String>> {
    Ok(nm(lib, "--defined-only")?
        .into_iter()
        .filter(|(kind, _)| kind == "T" || kind == "W" || kind == "i")
        .map(|(_, name)| name)
        .filter(|n| n.starts_with("rocksdb_"))
        .collect())
}

/// The `rocksdb_*` functions a binary needs from its shared libraries (`nm -D --undefined-only`).
pub fn needed_functions(bin: &Path) -> Result<BTreeSet<String>> {
    // "U": bound at load; a weak reference ("w", RocksDB's own test hooks) may stay unbound.
    Ok(nm(bin, "--undefined-only")?
        .into_iter()
        .filter(|(kind, _)| kind == "U")
        .map(|(_, name)| name)
        .filter(|n| n.starts_with("rocksdb_"))
        .collect())
}

/// `nm -D <which>`: (kind, name without its @version) per symbol.
fn nm(file: &Path, which: &str) -> Result<Vec<(String, String)>> {
    let out = Command::new("nm")
        .args(["-D", which])
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .context("cannot run nm (binutils, from build-essential)")?;
    if !out.status.success() {
        bail!("nm -D {} failed: {}", file.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace().rev();
            let name = parts.next()?;
            let kind = parts.next()?;
            Some((kind.to_string(), name.split('@').next().unwrap_or(name).to_string()))
        })
        .collect())
}

/// The functions `bin` needs that `lib` does not export: a build that
/// would not start (every symbol is bound at load), named before it runs.
pub fn missing_functions(bin: &Path, lib: &Path) -> Result<Vec<String>> {
    let have = exported_functions(lib)?;
    Ok(needed_functions(bin)?.into_iter().filter(|f| !have.contains(f)).collect())
}

/// The compilers a library's `.comment` section names ("GCC: (GNU) 7.3.1 ..."), oldest first as stored.
fn compilers(lib: &Path) -> Vec<String> {
    let Ok(out) = Command::new("readelf").args(["-p", ".comment"]).arg(lib).stdin(Stdio::null()).output() else {
        return Vec::new();
    };
    let mut seen = Vec::new();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some((_, text)) = l.split_once(']') {
            let t = text.trim().to_string();
            if (t.starts_with("GCC") || t.contains("clang")) && !seen.contains(&t) {
                seen.push(t);
            }
        }
    }
    seen
}

/// The text after `key` up to the next NUL, as a library records its build facts.
fn recorded(bytes: &[u8], key: &[u8]) -> Option<String> {
    let at = bytes.windows(key.len()).position(|w| w == key)? + key.len();
    let end = bytes[at..].iter().position(|&b| b == 0)? + at;
    let text = String::from_utf8_lossy(&bytes[at..end]).trim().to_string();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_facts_are_read_up_to_their_nul() {
        let bytes = b"xx\0rocksdb_build_git_sha:\0rocksdb_build_date:2022-09-21 08:34:09\0yy";
        assert_eq!(recorded(bytes, b"rocksdb_build_date:").as_deref(), Some("2022-09-21 08:34:09"));
        assert_eq!(recorded(bytes, b"rocksdb_build_git_sha:"), None, "empty is not recorded");
        assert_eq!(recorded(bytes, b"nothing:"), None);
    }

    #[test]
    fn a_library_says_what_it_is_and_where_it_came_from() {
        let lib = Library {
            version: "7.6.0".into(),
            artifact: "org.rocksdb:rocksdbjni:7.6.0:jar".into(),
            jar_sha1: "ab".into(),
            path: "/c/official/7.6.0/lib/librocksdb.so".into(),
            compilers: vec!["GCC: (GNU) 4.4.7".into(), "GCC: (GNU) 7.3.1 20180303 (Red Hat 7.3.1-5)".into()],
            build_date: None,
            c_api_functions: 779,
        };
        assert_eq!(lib.describe(), "RocksDB 7.6.0, official release build (rocksdbjni 7.6.0, sha1 ab)");
        assert_eq!(lib.compiler(), "GCC: (GNU) 7.3.1 20180303 (Red Hat 7.3.1-5)");
        assert_eq!(lib.lib_dir(), Path::new("/c/official/7.6.0/lib"));
    }

    /// A binary linked to a library with rocksdb_open and rocksdb_close, and
    /// an older library with rocksdb_open only: the build is refused naming
    /// rocksdb_close (gcc makes both, as build-essential gives it).
    #[test]
    fn a_function_the_binary_needs_and_the_library_lacks_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let gcc = |args: &[&str]| {
            let out = Command::new("gcc").args(args).current_dir(d).output().expect("gcc (build-essential)");
            assert!(out.status.success(), "gcc {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        fs::write(
            d.join("full.c"),
            "void *rocksdb_open(void) { return 0; }\nvoid rocksdb_close(void *d) { (void)d; }\n",
        )
        .unwrap();
        fs::write(d.join("old.c"), "void *rocksdb_open(void) { return 0; }\n").unwrap();
        fs::write(
            d.join("main.c"),
            "void *rocksdb_open(void); void rocksdb_close(void *);\nint main(void) { rocksdb_close(rocksdb_open()); return 0; }\n",
        )
        .unwrap();
        gcc(&["-shared", "-fPIC", "-o", "librocksdb.so", "full.c"]);
        gcc(&["-shared", "-fPIC", "-o", "libold.so", "old.c"]);
        gcc(&["-o", "bin", "main.c", "-L.", "-lrocksdb"]);
        assert_eq!(
            needed_functions(&d.join("bin")).unwrap().into_iter().collect::<Vec<_>>(),
            ["rocksdb_close", "rocksdb_open"]
        );
        assert!(missing_functions(&d.join("bin"), &d.join("librocksdb.so")).unwrap().is_empty());
        assert_eq!(missing_functions(&d.join("bin"), &d.join("libold.so")).unwrap(), ["rocksdb_close"]);
    }

    #[test]
    fn this_binarys_needs_are_read_from_its_dynamic_symbols() {
        // The test binary links RocksDB statically: it needs no rocksdb_* from a shared library.
        let me = std::env::current_exe().unwrap();
        assert!(needed_functions(&me).unwrap().is_empty());
        // libc exports no rocksdb_* function.
        let libc = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.is_file());
        if let Some(libc) = libc {
            assert!(exported_functions(libc).unwrap().is_empty());
            assert!(!nm(libc, "--defined-only").unwrap().is_empty(), "nm read libc's symbols");
        }
    }
}
