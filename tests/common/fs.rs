//! Filesystems and files the tests make or look for.

use std::path::Path;
use std::process::Command;

/// A tmpfs of `size` (as mount's `size=`) on a new temporary directory,
/// unmounted (lazily) when dropped. Mounting needs root, as the tests run.
pub struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    pub fn new(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(ok.success(), "cannot mount a tmpfs: this test needs root");
        Tmpfs(dir)
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

/// perf's recording directories (`rumbench-perf.<pid>`) in `place`.
pub fn recordings_in(place: &Path) -> Vec<String> {
    std::fs::read_dir(place)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("rumbench-perf."))
                .collect()
        })
        .unwrap_or_default()
}
