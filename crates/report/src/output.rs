//! Writing a file the user named (`export -o PATH`, `report -o PATH`) as a
//! program writing to a path would, never replacing what is not a plain
//! file of the user's:
//!
//! - a new path, or an existing regular file with one name: written to a
//!   temporary file beside it and renamed over it (a reader never sees half
//!   a report; a failed write leaves the old file as it was), keeping the
//!   old file's permission bits;
//! - a regular file with other names (hard links): rewritten in place, so
//!   every name sees the new text;
//! - a symlink: its target, by the same rules (the link stays a link);
//! - a character device or a FIFO (/dev/stdout, /dev/null, a pipe):
//!   opened and written, never replaced;
//! - refused before anything is done: a directory, a socket, a block
//!   device, a file without write permission (mode 0444), and a file a
//!   rumbench run wrote into its own directory (result.json, summary.txt,
//!   ...: the run would no longer be the run).

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// Whether a run writes a file of this name into its own directory (its
/// formats, its report, and rumbench's hidden marker and task files).
fn is_run_file(name: &str) -> bool {
    name == "report.html" || name.starts_with(".rumbench") || super::exporters().iter().any(|e| e.file_name() == name)
}

/// Whether `dir` is a rumbench run's directory: its result.json is a rumbench result.
fn is_run_dir(dir: &Path) -> bool {
    let path = dir.join("result.json");
    path.is_file() && crate::result::load(&path).is_ok()
}

/// What `path` is, once its symlinks are followed.
enum Target {
    /// Nothing there yet (a dangling link's target counts): create it.
    New(PathBuf),
    /// A regular file with this one name: replace it atomically.
    File(PathBuf, std::fs::Permissions),
    /// A regular file with other names: rewrite it in place.
    Linked(PathBuf),
    /// A character device or FIFO: open and write.
    Stream(PathBuf),
}

/// `path` resolved and judged: an error names why it is not written.
/// `allowed`: run files this command may rewrite in a run dir (`report`
/// regenerates a run's report.html).
fn target(path: &Path, allowed: &[&str]) -> Result<Target> {
    let resolved = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(p) => p,
            // A dangling link: what it points at is created through it, as a shell's `>` would.
            Err(_) => return Ok(Target::Linked(path.to_path_buf())),
        },
        _ => path.to_path_buf(),
    };
    let name = resolved.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let dir = resolved.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let shown = if resolved == path {
        path.display().to_string()
    } else {
        format!("{} (-> {})", path.display(), resolved.display())
    };
    if is_run_file(&name) && !allowed.contains(&name.as_str()) && is_run_dir(dir) {
        bail!("{shown} is a file of the rumbench run in {}: not overwritten (choose another path)", dir.display());
    }
    let meta = match std::fs::metadata(&resolved) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !dir.is_dir() {
                bail!("cannot write {shown}: {} is not a directory", dir.display());
            }
            return Ok(Target::New(resolved));
        }
        Err(e) => return Err(e).with_context(|| format!("cannot write {shown}")),
    };
    let t = meta.file_type();
    if t.is_dir() {
        bail!("{shown} is a directory: give a file name");
    }
    if t.is_socket() || t.is_block_device() {
        bail!("{shown} is a {}: not written", if t.is_socket() { "socket" } else { "block device" });
    }
    if t.is_char_device() || t.is_fifo() {
        return Ok(Target::Stream(resolved));
    }
    if meta.permissions().mode() & 0o222 == 0 {
        bail!(
            "{shown} is read-only (mode {:o}): not overwritten (make it writable, or choose another path)",
            meta.permissions().mode() & 0o7777
        );
    }
    if meta.nlink() > 1 {
        return Ok(Target::Linked(resolved));
    }
    Ok(Target::File(resolved, meta.permissions()))
}

/// Refuse, before any work, a path [`write_user_file`] would not write.
pub fn check_user_file(path: &Path, allowed: &[&str]) -> Result<()> {
    target(path, allowed).map(drop)
}

/// Write `bytes` to the user's `path` (see the module).
pub fn write_user_file(path: &Path, bytes: &[u8], allowed: &[&str]) -> Result<()> {
    let write_open = |p: &Path, create: bool| -> Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(create)
            .truncate(create)
            .custom_flags(libc::O_NOCTTY)
            .open(p)
            .with_context(|| format!("cannot write {}", p.display()))?;
        f.write_all(bytes).and_then(|_| f.flush()).with_context(|| format!("cannot write {}", p.display()))
    };
    match target(path, allowed)? {
        Target::Stream(p) => write_open(&p, false),
        Target::Linked(p) => write_open(&p, true),
        Target::New(p) => replace_atomically(&p, bytes, None),
        Target::File(p, perms) => replace_atomically(&p, bytes, Some(perms)),
    }
}

/// Write a temporary file beside `path` and rename it over `path`.
fn replace_atomically(path: &Path, bytes: &[u8], perms: Option<std::fs::Permissions>) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(
            ".{}.",
            path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "out".into())
        ))
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.write_all(bytes).and_then(|_| tmp.flush()).with_context(|| format!("cannot write {}", path.display()))?;
    // A new file gets the permissions a program's plain create would (0666 less the umask).
    let mode = perms.unwrap_or_else(|| std::fs::Permissions::from_mode(0o666 & !umask()));
    tmp.as_file().set_permissions(mode).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn umask() -> u32 {
    // SAFETY: umask has no preconditions; it is set back at once.
    unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn a_new_file_and_a_plain_file_are_written_and_replaced() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("out.md");
        write_user_file(&p, b"one", &[]).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_user_file(&p, b"two", &[]).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600, "the old file's mode is kept");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn a_symlink_writes_its_target_and_stays_a_link() {
        let t = tempfile::tempdir().unwrap();
        let (target, link) = (t.path().join("target.md"), t.path().join("link.md"));
        std::fs::write(&target, b"old").unwrap();
        symlink(&target, &link).unwrap();
        write_user_file(&link, b"new", &[]).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A dangling link: its target is created.
        let (gone, dangling) = (t.path().join("gone.md"), t.path().join("dangling.md"));
        symlink(&gone, &dangling).unwrap();
        write_user_file(&dangling, b"made", &[]).unwrap();
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&gone).unwrap(), b"made");
    }

    #[test]
    fn a_hard_link_is_rewritten_in_place_so_both_names_see_it() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        std::fs::write(&a, b"old").unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        write_user_file(&b, b"new", &[]).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&a).unwrap().nlink(), 2);
    }

    #[test]
    fn a_fifo_is_written_through_not_replaced() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("pipe");
        mkfifo(&p);
        let reader = {
            let p = p.clone();
            std::thread::spawn(move || std::fs::read(&p).unwrap())
        };
        write_user_file(&p, b"through the pipe", &[]).unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo(), "still a FIFO");
    }

    #[test]
    fn a_device_is_written_not_replaced_and_its_errors_are_errors() {
        // /dev/full: every write fails with ENOSPC.
        let e = write_user_file(Path::new("/dev/full"), b"x", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("No space left"), "{e:#}");
        assert!(std::fs::symlink_metadata("/dev/full").unwrap().file_type().is_char_device());
        write_user_file(Path::new("/dev/null"), b"x", &[]).unwrap();
        assert!(std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn read_only_files_directories_and_a_runs_own_files_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let ro = t.path().join("ro.md");
        std::fs::write(&ro, b"keep").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(check_user_file(&ro, &[]).unwrap_err().to_string().contains("read-only"));
        assert!(write_user_file(&ro, b"x", &[]).is_err());
        assert_eq!(std::fs::read(&ro).unwrap(), b"keep");
        assert!(check_user_file(t.path(), &[]).unwrap_err().to_string().contains("is a directory"));
        let run = t.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::write(run.join("result.json"), serde_json::to_vec(&crate::result::fixtures::run(Vec::new())).unwrap())
            .unwrap();
        for name in ["result.json", "summary.txt", "report.html"] {
            let e = check_user_file(&run.join(name), &[]).unwrap_err().to_string();
            assert!(e.contains("is a file of the rumbench run"), "{e}");
        }
        check_user_file(&run.join("report.html"), &["report.html"]).unwrap();
        check_user_file(&run.join("notes.md"), &[]).unwrap();
        // Through a link into the run: the link's target is what counts.
        let link = t.path().join("sneaky.json");
        symlink(run.join("result.json"), &link).unwrap();
        assert!(check_user_file(&link, &[]).is_err());
        assert!(check_user_file(&t.path().join("nodir/out.md"), &[])
            .unwrap_err()
            .to_string()
            .contains("not a directory"));
    }
}
