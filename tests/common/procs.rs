//! The processes a test looks for: whatever mentions a path on its
//! command line or runs in it.

use std::path::Path;
use std::time::{Duration, Instant};

/// Live processes whose command line mentions `path`, or that run in it (zombies excluded).
pub fn processes_mentioning(path: &Path) -> Vec<(i32, String)> {
    let needle = path.to_string_lossy().to_string();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        if pid == std::process::id() as i32 {
            continue;
        }
        let cmd =
            String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).unwrap_or_default()).replace('\0', " ");
        let state = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let zombie = state.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z'));
        // A postmaster names its data dir nowhere on its command line (PGDATA): it runs in it.
        let cwd = std::fs::read_link(e.path().join("cwd")).is_ok_and(|c| c.starts_with(path));
        if (cmd.contains(&needle) || cwd) && !zombie {
            out.push((pid, cmd));
        }
    }
    out
}

/// Wait (up to `secs`) until no process mentions `path`; fail naming them otherwise.
pub fn assert_nothing_left_running(path: &Path, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = processes_mentioning(path);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "still running after the run: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
