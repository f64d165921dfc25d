//! Directories rumbench creates, and the rule that it deletes nothing else.
//!
//! Every data dir and run (output) dir rumbench makes gets a marker file,
//! [`MARKER`], and every removal checks for it first: a directory without the
//! marker was not made by rumbench and is never emptied or removed. A
//! non-empty directory without the marker is refused with a one-line error.
//!
//! A data dir is also locked (`flock` on the directory itself) by the process
//! that uses it, for as long as it uses it, on every engine: a second run on
//! the same database gets a clear error instead of deleting it under the
//! first one's feet. The lock goes with the process, however it ends.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The marker file in every directory rumbench created (or adopted empty).
pub const MARKER: &str = ".rumbench-owned";

/// How a directory relates to rumbench, judged without changing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirState {
    Missing,
    Empty,
    /// Carries the marker: rumbench made it.
    Owned,
    /// Holds files and no marker: not rumbench's.
    Foreign,
}

pub fn state(dir: &Path) -> Result<DirState> {
    if !dir.exists() {
        return Ok(DirState::Missing);
    }
    if !dir.is_dir() {
        bail!("{} exists and is not a directory", dir.display());
    }
    if dir.join(MARKER).is_file() {
        return Ok(DirState::Owned);
    }
    let mut entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    Ok(if entries.next().is_none() { DirState::Empty } else { DirState::Foreign })
}

/// Whether the directory holds anything but rumbench's marker.
pub fn has_content(dir: &Path) -> bool {
    std::fs::read_dir(dir).map(|it| it.flatten().any(|e| e.file_name() != MARKER)).unwrap_or(false)
}

fn write_marker(dir: &Path, created: bool) -> Result<()> {
    let mut f = File::create(dir.join(MARKER)).with_context(|| format!("cannot write to {}", dir.display()))?;
    // `created` says whether rumbench made the directory itself (then it may
    // remove it) or found it empty (then it only empties it again).
    writeln!(f, "made by rumbench (pid {}); created={created}", std::process::id())?;
    Ok(())
}

fn created_by_us(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(MARKER)).map(|t| t.contains("created=true")).unwrap_or(false)
}

/// An exclusive lock on a directory, held until dropped (or the process ends).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    path: PathBuf,
}

/// Another process holds a directory's lock (`lock`'s error, told apart
/// from the others by its type).
#[derive(Debug)]
pub struct InUse(pub std::path::PathBuf);

impl std::fmt::Display for InUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is in use by another rumbench run", self.0.display())
    }
}

impl std::error::Error for InUse {}

/// Whether `lock`'s error says another process holds the directory.
fn in_use(e: &anyhow::Error) -> bool {
    e.downcast_ref::<InUse>().is_some()
}

/// Lock `dir`, or say that another process holds it (an [`InUse`] error).
pub fn lock(dir: &Path) -> Result<DirLock> {
    let file = File::open(dir).with_context(|| format!("cannot open {}", dir.display()))?;
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Err(InUse(dir.to_path_buf()).into());
        }
        return Err(err).with_context(|| format!("cannot lock {}", dir.display()));
    }
    Ok(DirLock { _file: file, path: dir.to_path_buf() })
}

/// How deep below a directory to look for data dirs in use (out/db/<config>
/// is two levels down; a server's own dir one more).
const SUBDIR_DEPTH: usize = 3;

/// Lock every directory below `dir` (to [`SUBDIR_DEPTH`]), or name the first
/// one another process holds: `dir`, the `what`, must not be cleared then.
fn lock_subdirs(dir: &Path, what: &str) -> Result<Vec<DirLock>> {
    let mut locks = Vec::new();
    let mut level = vec![dir.to_path_buf()];
    for _ in 0..SUBDIR_DEPTH {
        let mut next = Vec::new();
        for d in &level {
            let Ok(entries) = std::fs::read_dir(d) else { continue };
            for e in entries.flatten() {
                // Not following symlinks: a link out of the directory is removed, not its target.
                if !e.file_type().is_ok_and(|t| t.is_dir()) {
                    continue;
                }
                let sub = e.path();
                match lock(&sub) {
                    Ok(l) => locks.push(l),
                    Err(err) if in_use(&err) => {
                        bail!("{what} {} holds {}, which another rumbench run is using", dir.display(), sub.display())
                    }
                    // Unreadable: clearing will say what is wrong.
                    Err(_) => {}
                }
                next.push(sub);
            }
        }
        level = next;
    }
    Ok(locks)
}

/// A directory rumbench makes for a while and removes again (perf's
/// recordings): created (never taken over), locked for as long as the
/// returned lock lives, marked as rumbench's with `about` in the marker
/// (`key=value` lines: whose it is, read back by `marker_field`).
pub fn make_owned(dir: &Path, about: &str) -> Result<DirLock> {
    std::fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock = lock(dir)?;
    write_marker(dir, true)?;
    let mut f = std::fs::OpenOptions::new().append(true).open(dir.join(MARKER))?;
    f.write_all(about.as_bytes())?;
    Ok(lock)
}

/// A `key=value` line of a directory's marker (see `make_owned`).
pub fn marker_field(dir: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix('=').map(str::to_string))
}

/// Whether another process holds the lock on `dir` (false when it is free or missing).
pub fn is_locked(dir: &Path) -> bool {
    dir.is_dir() && lock(dir).is_err_and(|e| in_use(&e))
}

/// The refusal for a directory with someone else's files in it.
pub fn foreign_error(dir: &Path, what: &str, hint: &str) -> anyhow::Error {
    anyhow::anyhow!("{what} {} is not empty and was not created by rumbench (no {MARKER} in it); {hint}", dir.display())
}

/// A data dir in use: locked, and marked as rumbench's unless it holds the
/// user's own database (--use-existing-db).
#[derive(Debug)]
pub struct DataDir {
    pub path: PathBuf,
    lock: Option<DirLock>,
    owned: bool,
}

impl DataDir {
    /// Make `dir` ready for a fresh database: create it, or take over an empty
    /// one, or empty one that an earlier rumbench run made (and left, with
    /// --keep-db or by crashing). Anything else is refused.
    pub fn fresh(dir: &Path) -> Result<DataDir> {
        DataDir::fresh_with(dir, |_| {})
    }

    /// As `fresh`, with `before_clearing` run on an earlier run's dir once it
    /// is locked (no live rumbench uses it) and before its files go: a server
    /// a killed run left running there is stopped first.
    pub fn fresh_with(dir: &Path, before_clearing: impl FnOnce(&Path)) -> Result<DataDir> {
        match state(dir)? {
            DirState::Missing => {
                if let Some(parent) = dir.parent() {
                    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
                }
                std::fs::create_dir(dir).with_context(|| format!("cannot create data dir {}", dir.display()))?;
                let lock = lock(dir)?;
                write_marker(dir, true)?;
                Ok(DataDir { path: dir.to_path_buf(), lock: Some(lock), owned: true })
            }
            DirState::Empty => {
                let lock = lock(dir)?;
                write_marker(dir, false)?;
                Ok(DataDir { path: dir.to_path_buf(), lock: Some(lock), owned: true })
            }
            DirState::Owned => {
                let lock = lock(dir)?;
                before_clearing(dir);
                if let Some(k) = clear_contents(dir)?.first() {
                    bail!("data dir {} holds another run's {}: choose another --db-dir", dir.display(), k.display());
                }
                Ok(DataDir { path: dir.to_path_buf(), lock: Some(lock), owned: true })
            }
            DirState::Foreign => Err(foreign_error(
                dir,
                "data dir",
                "move it away, choose another --db-dir, or open it as it is with --use-existing-db",
            )),
        }
    }

    /// The user's existing database: locked, never marked, never removed.
    pub fn existing(dir: &Path) -> Result<DataDir> {
        check_existing(dir)?;
        let lock = lock(dir)?;
        Ok(DataDir { path: dir.to_path_buf(), lock: Some(lock), owned: false })
    }

    /// Open `dir` as the plan says: fresh, or the user's existing database.
    pub fn open(dir: &Path, use_existing: bool) -> Result<DataDir> {
        if use_existing {
            DataDir::existing(dir)
        } else {
            DataDir::fresh(dir)
        }
    }

    /// Remove the database (only ours; the user's existing one stays).
    pub fn remove(mut self) {
        let lock = self.lock.take();
        if self.owned {
            remove_owned(&self.path);
        }
        drop(lock);
    }
}

/// Check that --use-existing-db has something to open.
pub fn check_existing(dir: &Path) -> Result<()> {
    match state(dir)? {
        DirState::Missing => bail!("--use-existing-db: {} does not exist", dir.display()),
        DirState::Empty => bail!("--use-existing-db: {} is empty", dir.display()),
        DirState::Owned if !has_content(dir) => bail!("--use-existing-db: {} holds no database", dir.display()),
        _ => Ok(()),
    }
}

/// Remove everything in `dir` except the marker (the dir must be ours), and
/// except what another run put there: a directory inside it that holds
/// another run's results (rumbench's marker and a result.json) or that
/// another process holds locked (a live run's data or output dir) stays,
/// with the directories above it. A run's own data dirs inside its output
/// dir (out/db/<config>) are marked too, and go. Returns what was kept,
/// when anything was.
fn clear_contents(dir: &Path) -> Result<Vec<PathBuf>> {
    clear_contents_holding(dir, &[])
}

/// `clear_contents`, where `held` are locks this process holds itself inside `dir`.
fn clear_contents_holding(dir: &Path, held: &[DirLock]) -> Result<Vec<PathBuf>> {
    let mut kept = Vec::new();
    clear_below(dir, held, &mut kept)?;
    Ok(kept)
}

fn clear_below(dir: &Path, held: &[DirLock], kept: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let e = e?;
        if e.file_name() == MARKER {
            continue;
        }
        let p = e.path();
        // Not following symlinks: a link out of the directory is removed, not its target.
        if !e.file_type()?.is_dir() {
            std::fs::remove_file(&p).with_context(|| format!("cannot clear {}", p.display()))?;
            continue;
        }
        let ours = held.iter().any(|l| l.path == p);
        if (p.join(MARKER).is_file() && p.join("result.json").is_file()) || (!ours && is_locked(&p)) {
            kept.push(p);
            continue;
        }
        let before = kept.len();
        clear_below(&p, held, kept)?;
        if kept.len() == before {
            std::fs::remove_dir(&p).with_context(|| format!("cannot clear {}", p.display()))?;
        }
    }
    Ok(())
}

/// Another run's live directory (its lock says so) that `path`, resolved,
/// lies inside, if any: an output or data dir there would be removed with it.
pub fn inside_live_run(path: &Path) -> Option<PathBuf> {
    let resolved = resolved(path);
    resolved.ancestors().skip(1).find(|a| a.join(MARKER).is_file() && is_locked(a)).map(Path::to_path_buf)
}

/// Refuse `path` (the `what`: "output directory", "--db-dir") inside another
/// run's live directory.
pub fn check_not_inside_live_run(path: &Path, what: &str) -> Result<()> {
    match inside_live_run(path) {
        Some(live) => bail!(
            "{what} {} is inside {}, which another rumbench run is using (its lock says so): that run removes it when it ends, and this run's files with it; choose a directory outside it",
            path.display(),
            live.display()
        ),
        None => Ok(()),
    }
}

/// Remove `dir` if, and only if, it carries rumbench's marker: the whole dir
/// when rumbench created it, its contents when it was found empty. Returns
/// whether anything was removed.
///
/// The marker goes last, and only once everything else has: a removal that
/// fails half-way (a dead mount, a file in use) leaves a dir the next run
/// still knows as its own and clears, not one it must refuse as foreign.
pub fn remove_owned(dir: &Path) -> bool {
    if !dir.join(MARKER).is_file() {
        return false;
    }
    let created = created_by_us(dir);
    match clear_contents(dir) {
        Ok(kept) if kept.is_empty() => {}
        // Another run's directory inside it stays, and so does this one (with its marker).
        Ok(kept) => {
            let kept: Vec<String> = kept.iter().map(|k| k.display().to_string()).collect();
            errln!("rumbench: kept {}: it holds another run's {}", dir.display(), kept.join(", "));
            return false;
        }
        Err(_) => return false,
    }
    if std::fs::remove_file(dir.join(MARKER)).is_err() {
        return false;
    }
    !created || std::fs::remove_dir(dir).is_ok()
}

/// The run (output) directory: created and marked, or taken over empty; an
/// existing one with files is refused unless `replace` is given and the
/// directory is an earlier rumbench run's (it carries the marker).
pub fn prepare_output_dir(dir: &Path, replace: bool) -> Result<DirLock> {
    check_output_dir(dir, replace)?;
    match state(dir)? {
        DirState::Missing => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create output directory {}", parent.display()))?;
            }
            // create_dir, not create_dir_all: of two runs given the same new
            // directory at the same moment, exactly one creates it.
            match std::fs::create_dir(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    bail!("output directory {} was created by another process as this run started: choose another --output-dir", dir.display())
                }
                Err(e) => return Err(e).with_context(|| format!("cannot create output directory {}", dir.display())),
            }
            let held = lock(dir)?;
            write_marker(dir, true).with_context(|| format!("output directory {} is not writable", dir.display()))?;
            return Ok(held);
        }
        DirState::Empty => {
            write_marker(dir, false).with_context(|| format!("output directory {} is not writable", dir.display()))?;
        }
        DirState::Owned => {
            let lock = lock(dir).with_context(|| format!("cannot replace output directory {}", dir.display()))?;
            // Held while clearing: no run can start using a data dir in there meanwhile.
            let inner = lock_subdirs(dir, "output directory")?;
            let kept = clear_contents_holding(dir, &inner)?;
            if let Some(k) = kept.first() {
                bail!(
                    "cannot replace output directory {}: it holds another run's {} (kept)",
                    dir.display(),
                    k.display()
                );
            }
            return Ok(lock);
        }
        DirState::Foreign => unreachable!("refused by check_output_dir"),
    }
    lock(dir)
}

/// Where results go: `--output-dir`, or results/<timestamp> under the current directory.
pub fn default_output_dir() -> PathBuf {
    PathBuf::from("results").join(chrono::Local::now().format("%Y%m%d-%H%M%S").to_string())
}

/// `base`, or `base-2`, `base-3`, ... : the first name nothing is at yet.
pub fn free_name(base: &Path) -> PathBuf {
    (1..).map(|i| numbered(base, i)).find(|p| !p.exists() && p.symlink_metadata().is_err()).expect("an unused name")
}

fn numbered(base: &Path, i: u32) -> PathBuf {
    match i {
        1 => base.to_path_buf(),
        _ => {
            let mut name = base.as_os_str().to_owned();
            name.push(format!("-{i}"));
            PathBuf::from(name)
        }
    }
}

/// Create a new, empty directory named `base` or `base-N`: atomically, so two
/// runs started in the same second each get their own.
pub fn claim_new_dir(base: &Path) -> Result<PathBuf> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create output directory {}", parent.display()))?;
    }
    for i in 1..10_000 {
        let dir = numbered(base, i);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create output directory {}", dir.display())),
        }
    }
    bail!("cannot find an unused output directory name beside {}: give one with --output-dir", base.display())
}

/// `p` as an absolute path with its existing part's symlinks resolved (the
/// rest, not created yet, as given).
fn resolved(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut missing = Vec::new();
    let mut base = abs.as_path();
    loop {
        if let Ok(c) = std::fs::canonicalize(base) {
            return missing.iter().rev().fold(c, |acc: PathBuf, part| acc.join(part));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                base = parent;
            }
            _ => return abs,
        }
    }
}

/// The run's output directory and its data root (--db-dir) apart: neither
/// inside the other, but for the default layout (the data root is
/// <output-dir>/db), so that clearing or replacing one never reaches the other.
pub fn check_apart(output_dir: &Path, db_dir: &Path) -> Result<()> {
    let (out, db) = (resolved(output_dir), resolved(db_dir));
    if db == out.join("db") {
        return Ok(());
    }
    if out.starts_with(&db) {
        bail!(
            "--output-dir {} is inside --db-dir {}: the results would sit among the engines' data dirs; give two separate directories",
            output_dir.display(),
            db_dir.display()
        );
    }
    if db.starts_with(&out) {
        bail!(
            "--db-dir {} is inside --output-dir {}: give two separate directories, or leave out --db-dir (the data then goes to {})",
            db_dir.display(),
            output_dir.display(),
            output_dir.join("db").display()
        );
    }
    Ok(())
}

/// What `prepare_output_dir` would refuse, without changing anything.
pub fn check_output_dir(dir: &Path, replace: bool) -> Result<()> {
    match state(dir).with_context(|| format!("cannot create output directory {}", dir.display()))? {
        DirState::Missing => check_creatable(dir).with_context(|| format!("cannot create output directory {}", dir.display())),
        DirState::Empty => Ok(()),
        DirState::Owned if !has_content(dir) => Ok(()),
        DirState::Owned if replace => {
            if is_locked(dir) {
                bail!("output directory {} is in use by another rumbench run", dir.display());
            }
            // A data dir inside it (an earlier run's kept database) may be
            // another run's --use-existing-db.
            lock_subdirs(dir, "output directory").map(drop)
        }
        DirState::Owned => bail!(
            "output directory {} already holds a run: choose another --output-dir, or pass --replace-output to replace it",
            dir.display()
        ),
        DirState::Foreign => Err(foreign_error(dir, "output directory", "choose another --output-dir")),
    }
}

/// Whether `dir` could be created: its nearest existing ancestor is a
/// directory we may write to.
fn check_creatable(dir: &Path) -> Result<()> {
    let mut p = dir;
    while let Some(parent) = p.parent() {
        let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
        if parent.exists() {
            if !parent.is_dir() {
                bail!("{} is not a directory", parent.display());
            }
            let c = std::ffi::CString::new(parent.as_os_str().as_encoded_bytes())?;
            // SAFETY: access(2) on a NUL-terminated path.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
                bail!("{} is not writable", parent.display());
            }
            return Ok(());
        }
        p = parent;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_runs_directory_inside_ours_is_never_removed_with_it() {
        let t = tempfile::tempdir().unwrap();
        // Run A's data dir, in use; run B made its output dir inside it.
        let a = t.path().join("a-db");
        let held = DataDir::fresh(&a).unwrap();
        std::fs::write(a.join("engine.sst"), "a's data").unwrap();
        assert!(inside_live_run(&a.join("b-out")).is_some(), "a's lock says it is live");
        let e = check_not_inside_live_run(&a.join("b-out/x"), "output directory").unwrap_err().to_string();
        assert!(e.contains("another rumbench run is using") && e.contains("a-db"), "{e}");
        assert!(inside_live_run(&t.path().join("elsewhere")).is_none());
        let b = a.join("deep").join("b-out");
        std::fs::create_dir_all(&b).unwrap();
        let b_lock = prepare_output_dir(&b, false).unwrap();
        std::fs::write(b.join("result.json"), "b's results").unwrap();
        // A ends and removes its data dir: B's directory stays, and the dirs above it.
        held.remove();
        assert!(b.join("result.json").is_file(), "b's results are kept");
        assert!(!a.join("engine.sst").exists(), "a's own files go");
        assert!(a.join(MARKER).is_file(), "a stays marked: the next run still knows it as rumbench's");
        // B unlocked but marked: still another run's, still kept.
        drop(b_lock);
        assert!(!remove_owned(&a));
        assert!(b.join("result.json").is_file());
    }

    #[test]
    fn a_foreign_dir_is_refused_and_left_alone() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("lmdb");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("important.txt"), "precious").unwrap();
        let e = DataDir::fresh(&d).unwrap_err().to_string();
        assert!(e.contains("was not created by rumbench"), "{e}");
        assert!(!remove_owned(&d));
        assert_eq!(std::fs::read_to_string(d.join("important.txt")).unwrap(), "precious");
    }

    #[test]
    fn created_dirs_are_removed_adopted_ones_only_emptied() {
        let t = tempfile::tempdir().unwrap();
        let made = t.path().join("made");
        let dd = DataDir::fresh(&made).unwrap();
        std::fs::write(made.join("data"), "x").unwrap();
        dd.remove();
        assert!(!made.exists());

        let found = t.path().join("found");
        std::fs::create_dir(&found).unwrap();
        let dd = DataDir::fresh(&found).unwrap();
        std::fs::write(found.join("data"), "x").unwrap();
        dd.remove();
        assert!(found.is_dir(), "a directory rumbench found empty is kept");
        assert_eq!(std::fs::read_dir(&found).unwrap().count(), 0);
    }

    /// Makes `file` impossible to remove until dropped: immutable as root
    /// (chattr +i), its directory read-only otherwise.
    struct Unremovable(PathBuf);

    impl Unremovable {
        fn new(file: &Path) -> Unremovable {
            // SAFETY: geteuid has no preconditions.
            let ok = if unsafe { libc::geteuid() } == 0 {
                std::process::Command::new("chattr").arg("+i").arg(file).status().is_ok_and(|s| s.success())
            } else {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(file.parent().unwrap(), std::fs::Permissions::from_mode(0o555)).is_ok()
            };
            assert!(ok, "cannot make {} unremovable to test a failed removal", file.display());
            Unremovable(file.to_path_buf())
        }
    }

    impl Drop for Unremovable {
        fn drop(&mut self) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(&self.0)
                .stderr(std::process::Stdio::null())
                .status();
            let _ = std::fs::set_permissions(self.0.parent().unwrap(), std::fs::Permissions::from_mode(0o755));
        }
    }

    #[test]
    fn a_removal_that_fails_half_way_keeps_the_dir_ours() {
        let t = tempfile::tempdir().unwrap();
        for (name, pre_exists) in [("made", false), ("found", true)] {
            let d = t.path().join(name);
            if pre_exists {
                std::fs::create_dir(&d).unwrap();
            }
            let dd = DataDir::fresh(&d).unwrap();
            // Many entries, so some come before the stuck one in any order.
            for i in 0..20 {
                std::fs::write(d.join(format!("sst{i}")), "x").unwrap();
            }
            std::fs::create_dir(d.join("mnt")).unwrap();
            std::fs::write(d.join("mnt/stuck"), "x").unwrap();
            let stuck = Unremovable::new(&d.join("mnt/stuck"));
            assert!(!remove_owned(&d), "{name}: the removal failed");
            drop(dd);
            assert!(d.join(MARKER).is_file(), "{name}: the marker outlives a failed removal");
            assert_eq!(state(&d).unwrap(), DirState::Owned, "{name}");
            drop(stuck);
            // The next run clears what the failed removal left.
            let next = DataDir::fresh(&d).unwrap();
            assert!(!has_content(&d), "{name}");
            next.remove();
            assert_eq!(d.exists(), pre_exists, "{name}");
        }
    }

    #[test]
    fn an_earlier_runs_dir_is_reused_but_not_while_locked() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("rocksdb");
        let first = DataDir::fresh(&d).unwrap();
        std::fs::write(d.join("000001.log"), "x").unwrap();
        // flock locks are per open file description: a second open conflicts
        // even within one process, as it does between two runs.
        let e = DataDir::fresh(&d).unwrap_err();
        assert!(in_use(&e), "told by its type, not its words: {e:#}");
        let e = e.to_string();
        assert!(e.contains("in use by another rumbench run"), "{e}");
        assert!(is_locked(&d));
        assert!(d.join("000001.log").exists());
        drop(first);
        let second = DataDir::fresh(&d).unwrap();
        assert!(!d.join("000001.log").exists(), "an unlocked earlier run's data is cleared");
        second.remove();
    }

    #[test]
    fn existing_databases_are_locked_and_never_removed() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("db");
        assert!(DataDir::existing(&d).unwrap_err().to_string().contains("does not exist"));
        std::fs::create_dir(&d).unwrap();
        assert!(DataDir::existing(&d).unwrap_err().to_string().contains("is empty"));
        std::fs::write(d.join("data.mdb"), "x").unwrap();
        let a = DataDir::existing(&d).unwrap();
        assert!(DataDir::existing(&d).unwrap_err().to_string().contains("in use"));
        a.remove();
        assert!(d.join("data.mdb").exists());
    }

    #[test]
    fn output_dirs_are_refused_unless_replaced() {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("run");
        drop(prepare_output_dir(&out, false).unwrap());
        std::fs::write(out.join("result.json"), "{}").unwrap();
        let e = check_output_dir(&out, false).unwrap_err().to_string();
        assert!(e.contains("--replace-output"), "{e}");
        let held = prepare_output_dir(&out, true).unwrap();
        assert!(!out.join("result.json").exists());
        std::fs::write(out.join("result.json"), "{}").unwrap();
        assert!(check_output_dir(&out, true).unwrap_err().to_string().contains("in use"));
        drop(held);

        let foreign = t.path().join("mine");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("notes.txt"), "x").unwrap();
        let e = check_output_dir(&foreign, true).unwrap_err().to_string();
        assert!(e.contains("was not created by rumbench"), "{e}");
    }

    #[test]
    fn an_output_dir_whose_data_dir_another_run_uses_is_not_replaced() {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("run");
        drop(prepare_output_dir(&out, false).unwrap());
        std::fs::write(out.join("result.json"), "{}").unwrap();
        let db = out.join("db").join("lmdb");
        std::fs::create_dir_all(&db).unwrap();
        std::fs::write(db.join("data.mdb"), "x").unwrap();
        let in_use = DataDir::existing(&db).unwrap();
        let e = check_output_dir(&out, true).unwrap_err().to_string();
        assert!(e.contains("which another rumbench run is using"), "{e}");
        let e = prepare_output_dir(&out, true).unwrap_err().to_string();
        assert!(e.contains(&db.display().to_string()), "{e}");
        assert!(db.join("data.mdb").exists() && out.join("result.json").exists(), "nothing removed");
        drop(in_use);
        drop(prepare_output_dir(&out, true).unwrap());
        assert!(!out.join("db").exists(), "replaced once free");
    }

    #[test]
    fn new_dirs_are_claimed_once_each() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("results/20261124-031500");
        let a = claim_new_dir(&base).unwrap();
        assert_eq!(a, base);
        assert_eq!(free_name(&base), t.path().join("results/20261124-031500-2"));
        let b = claim_new_dir(&base).unwrap();
        assert_eq!(b, t.path().join("results/20261124-031500-2"));
        let c = claim_new_dir(&base).unwrap();
        assert_eq!(c, t.path().join("results/20261124-031500-3"));
    }
}
