//! Artifacts from a Maven repository, fetched with the Maven client the
//! machine has (`mvn dependency:get`), into rumbench's cache.
//!
//! * [`versions`]: an artifact's versions, from the repository's
//!   maven-metadata.xml, which `mvn dependency:get` of the artifact's
//!   `LATEST` pom stores in the local repository (a few KB; no jar).
//! * [`fetch`]: one artifact file, its sha1 checked against the `.sha1` the
//!   repository serves beside it (Maven stores it in the local repository).
//!
//! The local repository is the cache's (`$XDG_CACHE_HOME/rumbench/maven`),
//! not `~/.m2`: what rumbench fetched is where it can be found, checked and
//! removed, and a user's own repository is never written. Maven's settings
//! (mirrors, proxies: `~/.m2/settings.xml`) apply as they do to any `mvn`:
//! no network path of rumbench's own. Every call has a timeout and ends on a
//! stop (Ctrl-C), so no network never hangs a run.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};

/// How long the metadata (a pom and the version list) may take.
pub const METADATA_TIMEOUT: Duration = Duration::from_secs(120);
/// How long one artifact (a jar of up to about 100 MB) may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(900);
/// How long a version list read from the repository is reused.
const METADATA_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// One artifact: `group:artifact:version[:packaging[:classifier]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact<'a> {
    pub group: &'a str,
    pub artifact: &'a str,
    pub version: &'a str,
    pub packaging: &'a str,
    pub classifier: Option<&'a str>,
}

impl Artifact<'_> {
    /// What `mvn -Dartifact=` takes.
    pub fn coordinates(&self) -> String {
        let mut s = format!("{}:{}:{}:{}", self.group, self.artifact, self.version, self.packaging);
        if let Some(c) = self.classifier {
            s.push(':');
            s.push_str(c);
        }
        s
    }

    /// The file's name in the repository's layout.
    pub fn file_name(&self) -> String {
        match self.classifier {
            Some(c) => format!("{}-{}-{c}.{}", self.artifact, self.version, self.packaging),
            None => format!("{}-{}.{}", self.artifact, self.version, self.packaging),
        }
    }

    /// Its directory in the repository's layout: `org/rocksdb/rocksdbjni/7.6.0`.
    fn dir(&self, repo: &Path) -> PathBuf {
        artifact_dir(repo, self.group, self.artifact).join(self.version)
    }
}

fn artifact_dir(repo: &Path, group: &str, artifact: &str) -> PathBuf {
    group.split('.').fold(repo.to_path_buf(), |p, part| p.join(part)).join(artifact)
}

/// A fetched artifact file and the sha1 the repository gave for it.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub path: PathBuf,
    pub sha1: String,
}

/// The local repository rumbench's fetches go to.
pub fn local_repository() -> Result<PathBuf> {
    Ok(crate::cache::root()?.join("maven"))
}

/// Why a fetch failed: the artifact does not exist, or the repository could
/// not be reached (or answered otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    NotFound(String),
    Failed(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::NotFound(s) | FetchError::Failed(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for FetchError {}

/// `mvn dependency:get` of `a` into the local repository, with a timeout:
/// its path and checked sha1. A file already there with a matching sha1 is
/// used as it is.
pub fn fetch(a: &Artifact<'_>, timeout: Duration) -> Result<Fetched, FetchError> {
    let repo = local_repository().map_err(|e| FetchError::Failed(format!("{e:#}")))?;
    let path = a.dir(&repo).join(a.file_name());
    if let Ok(f) = checked(&path) {
        return Ok(f);
    }
    mvn(&repo, a, timeout)?;
    checked(&path).map_err(|e| FetchError::Failed(format!("{}: {e:#}", a.coordinates())))
}

/// The file and the sha1 beside it, when they agree.
fn checked(path: &Path) -> Result<Fetched> {
    let sha_path = PathBuf::from(format!("{}.sha1", path.display()));
    let expected = fs::read_to_string(&sha_path)
        .with_context(|| format!("no {} from the repository to check it against", sha_path.display()))?;
    // A .sha1 may hold "<hex>  <file name>".
    let expected = expected.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let actual = sha1_of(path)?;
    if expected != actual {
        bail!("{} has sha1 {actual}, the repository says {expected}", path.display());
    }
    Ok(Fetched { path: path.to_path_buf(), sha1: actual })
}

/// sha1 with coreutils' sha1sum (the repository's checksum; nothing here
/// trusts it beyond telling a damaged or replaced download).
pub fn sha1_of(path: &Path) -> Result<String> {
    let out = Command::new("sha1sum")
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run sha1sum on {}", path.display()))?;
    if !out.status.success() {
        bail!("sha1sum {} failed: {}", path.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let hex = text.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    if hex.len() != 40 {
        bail!("sha1sum printed {text:?} for {}", path.display());
    }
    Ok(hex)
}

/// The versions of `group:artifact` in the repository, oldest first as the
/// repository lists them. Read once a day; the list kept in the local
/// repository is used when it is fresh.
pub fn versions(group: &str, artifact: &str) -> Result<Vec<String>> {
    let repo = local_repository()?;
    let dir = artifact_dir(&repo, group, artifact);
    let fresh = |p: &Path| {
        fs::metadata(p).and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age < METADATA_MAX_AGE))
    };
    let metadata_file = || -> Option<PathBuf> {
        fs::read_dir(&dir).ok()?.flatten().map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("maven-metadata") && n.ends_with(".xml"))
        })
    };
    let file = match metadata_file().filter(|p| fresh(p)) {
        Some(f) => f,
        None => {
            // Resolving LATEST reads the repository's maven-metadata.xml and
            // stores it; the pom it then fetches is a few KB.
            let latest = Artifact { group, artifact, version: "LATEST", packaging: "pom", classifier: None };
            mvn(&repo, &latest, METADATA_TIMEOUT)
                .map_err(|e| anyhow!("cannot list the versions of {group}:{artifact}: {e}"))?;
            let f = metadata_file()
                .ok_or_else(|| anyhow!("mvn left no maven-metadata*.xml of {group}:{artifact} in {}", dir.display()))?;
            // Maven keeps the file's own time; the age counted here is since this read.
            let _ =
                fs::File::options().append(true).open(&f).and_then(|h| h.set_modified(std::time::SystemTime::now()));
            f
        }
    };
    let text = fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
    let versions = metadata_versions(&text);
    if versions.is_empty() {
        bail!("{} lists no versions", file.display());
    }
    Ok(versions)
}

/// The `<version>` entries of a maven-metadata.xml.
pub fn metadata_versions(xml: &str) -> Vec<String> {
    let Some(list) = xml.split_once("<versions>").and_then(|(_, rest)| rest.split_once("</versions>")) else {
        return Vec::new();
    };
    list.0
        .split("<version>")
        .skip(1)
        .filter_map(|part| part.split_once("</version>").map(|(v, _)| v.trim().to_string()))
        .filter(|v| !v.is_empty())
        .collect()
}

/// Run `mvn dependency:get` for `a`, with a timeout, in its own process
/// group (ended with the run on a stop). A missing artifact is
/// [`FetchError::NotFound`].
fn mvn(repo: &Path, a: &Artifact<'_>, timeout: Duration) -> Result<(), FetchError> {
    let failed = |s: String| FetchError::Failed(s);
    fs::create_dir_all(repo).map_err(|e| failed(format!("cannot create {}: {e}", repo.display())))?;
    let log = tempfile::NamedTempFile::new().map_err(|e| failed(format!("cannot create a temporary file: {e}")))?;
    let out = log.reopen().map_err(|e| failed(format!("{e}")))?;
    let err = log.reopen().map_err(|e| failed(format!("{e}")))?;
    let mut cmd = Command::new("mvn");
    cmd.args(["-B", "-ntp", "dependency:get", "-Dtransitive=false"])
        .arg(format!("-Dartifact={}", a.coordinates()))
        .arg(format!("-Dmaven.repo.local={}", repo.display()))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child =
        match cmd.spawn() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(failed(
                "mvn is not installed: rumbench fetches Maven artifacts with the Maven client (apt-get install maven)"
                    .into(),
            )),
            Err(e) => return Err(failed(format!("cannot run mvn: {e}"))),
        };
    let t0 = Instant::now();
    let kill = |child: &mut std::process::Child| {
        // SAFETY: a signal to the process group made for mvn above.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.wait();
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) => {}
            Err(e) => return Err(failed(format!("cannot wait for mvn: {e}"))),
        }
        if crate::driver::stop::stop_requested() {
            kill(&mut child);
            return Err(failed(format!(
                "{} while mvn fetched {}",
                crate::driver::stop::interrupted_text(),
                a.coordinates()
            )));
        }
        if t0.elapsed() >= timeout {
            kill(&mut child);
            return Err(failed(format!(
                "mvn did not fetch {} within {} s (is the Maven repository reachable from here?)",
                a.coordinates(),
                timeout.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if status.success() {
        return Ok(());
    }
    let mut text = String::new();
    let _ = fs::File::open(log.path()).and_then(|mut f| f.read_to_string(&mut text));
    let why = mvn_error(&text);
    if text.contains("Could not find artifact") || text.contains("could not be resolved: Could not find") {
        return Err(FetchError::NotFound(format!("{} is not in the Maven repository", a.coordinates())));
    }
    Err(failed(format!("mvn could not fetch {} ({status}): {why}", a.coordinates())))
}

/// The line of mvn's output that says what went wrong.
fn mvn_error(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("[ERROR]"))
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("->") && !l.starts_with("To see") && !l.starts_with("Re-run"))
        .unwrap_or("no [ERROR] line in its output")
        .chars()
        .take(400)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_and_file_names_follow_the_repository_layout() {
        let a = Artifact {
            group: "org.rocksdb",
            artifact: "rocksdbjni",
            version: "10.10.1.1",
            packaging: "jar",
            classifier: Some("linux64"),
        };
        assert_eq!(a.coordinates(), "org.rocksdb:rocksdbjni:10.10.1.1:jar:linux64");
        assert_eq!(a.file_name(), "rocksdbjni-10.10.1.1-linux64.jar");
        assert_eq!(a.dir(Path::new("/r")), Path::new("/r/org/rocksdb/rocksdbjni/10.10.1.1"));
    }

    #[test]
    fn metadata_lists_its_versions_in_order() {
        let xml = "<metadata><versioning><latest>7.6.0</latest><versions>\n<version>6.28.2</version>\n\
                   <version> 7.6.0 </version></versions></versioning></metadata>";
        assert_eq!(metadata_versions(xml), vec!["6.28.2", "7.6.0"]);
        assert!(metadata_versions("<metadata/>").is_empty());
    }

    #[test]
    fn a_download_that_does_not_match_its_sha1_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("x.jar");
        fs::write(&jar, b"abc").unwrap();
        fs::write(dir.path().join("x.jar.sha1"), "a9993e364706816aba3e25717850c26c9cd0d89d  x.jar\n").unwrap();
        assert_eq!(checked(&jar).unwrap().sha1, "a9993e364706816aba3e25717850c26c9cd0d89d");
        fs::write(&jar, b"abd").unwrap();
        assert!(checked(&jar).unwrap_err().to_string().contains("the repository says a9993e36"));
        fs::remove_file(dir.path().join("x.jar.sha1")).unwrap();
        assert!(checked(&jar).is_err(), "no .sha1, no trust");
    }

    #[test]
    fn mvns_error_line_is_the_first_that_says_something() {
        let out =
            "[INFO] x\n[ERROR] Failed to execute goal ... Could not find artifact org.rocksdb:rocksdbjni:jar:1.2.3\n\
                   [ERROR] -> [Help 1]\n";
        assert!(mvn_error(out).starts_with("Failed to execute goal"));
        assert_eq!(mvn_error(""), "no [ERROR] line in its output");
    }
}
