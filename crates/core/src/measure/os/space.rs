//! `db_size`: bytes allocated on disk under a data dir.

use std::collections::HashSet;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Allocated bytes (st_blocks * 512, not apparent size) of `dir` and
/// everything under it, directories included, as `du -s --block-size=1`.
///
/// Symlinks under `dir` are not followed (their own blocks count); `dir`
/// itself is, as `du -H`: a data dir that is a symlink to another disk is
/// that disk's data, not the link's 0 blocks. A file with several
/// hard links (RocksDB checkpoints, backups) counts once. Files and
/// directories that vanish during the walk (engines delete files
/// concurrently) are skipped; other errors (permission) are returned.
pub fn allocated_bytes(dir: &Path) -> std::io::Result<u64> {
    allocated_bytes_listing(dir, |_| {})
}

/// `allocated_bytes`, calling `listed` with each directory once its
/// entries are listed, before the directories under it are walked (what
/// an engine deletes then, the walk finds gone).
fn allocated_bytes_listing(dir: &Path, mut listed: impl FnMut(&Path)) -> std::io::Result<u64> {
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    let mut first = true;
    while let Some(d) = stack.pop() {
        let md = match if first { std::fs::metadata(&d) } else { std::fs::symlink_metadata(&d) } {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound && !first => continue,
            Err(e) => return Err(e),
        };
        first = false;
        total += md.blocks() * 512;
        if !md.is_dir() {
            continue;
        }
        let rd = match std::fs::read_dir(&d) {
            Ok(rd) => rd,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for entry in rd {
            let entry = match entry {
                Ok(e) => e,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            let md = match entry.metadata() {
                // DirEntry::metadata does not follow symlinks.
                Ok(m) => m,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            if md.is_dir() {
                stack.push(entry.path());
            } else if md.nlink() <= 1 || seen.insert((md.dev(), md.ino())) {
                total += md.blocks() * 512;
            }
        }
        listed(&d);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn counts_allocated_not_apparent_and_hard_links_once() {
        let dir = tempfile::tempdir().unwrap();
        let base = allocated_bytes(dir.path()).unwrap();
        // 1 MiB of real data.
        let mut f = std::fs::File::create(dir.path().join("data")).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        // A sparse 1 GiB file allocates (almost) nothing.
        let sparse = std::fs::File::create(dir.path().join("sparse")).unwrap();
        sparse.set_len(1 << 30).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::hard_link(dir.path().join("data"), dir.path().join("sub/link")).unwrap();
        std::os::unix::fs::symlink("/usr", dir.path().join("sub/usr")).unwrap();
        let n = allocated_bytes(dir.path()).unwrap() - base;
        assert!(n >= 1 << 20, "{n}");
        // Not 2 MiB (hard link once), not 1 GiB (sparse), not /usr (symlink).
        assert!(n < (1 << 20) + (1 << 18), "{n}");
    }

    #[test]
    fn a_data_dir_that_is_a_symlink_is_measured_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let mut f = std::fs::File::create(real.join("data")).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        let through_link = allocated_bytes(&dir.path().join("link")).unwrap();
        assert!(through_link >= 1 << 20, "{through_link}");
        assert_eq!(through_link, allocated_bytes(&real).unwrap());
    }

    #[test]
    fn missing_dir_is_an_error() {
        assert!(allocated_bytes(Path::new("/nonexistent/rumbench")).is_err());
    }

    #[test]
    fn directories_deleted_during_the_walk_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            let d = dir.path().join(format!("d{i}"));
            std::fs::create_dir_all(d.join("sub")).unwrap();
            std::fs::write(d.join("sub/f"), vec![7u8; 64 << 10]).unwrap();
        }
        let with_them = allocated_bytes(dir.path()).unwrap();
        // Once the top directory is listed, an engine deletes what is under it:
        // every directory the walk then visits is gone.
        let mut deleted = 0;
        let n = allocated_bytes_listing(dir.path(), |d| {
            if d == dir.path() {
                for i in 0..20 {
                    std::fs::remove_dir_all(dir.path().join(format!("d{i}"))).unwrap();
                    deleted += 1;
                }
            }
        })
        .unwrap();
        assert_eq!(deleted, 20, "the walk listed the top directory");
        // What remains counted is the top directory's own blocks, as a walk of it now finds.
        assert_eq!(n, allocated_bytes(dir.path()).unwrap());
        assert!(n < with_them, "{n} of {with_them}");
    }
}
