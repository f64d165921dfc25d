//! Servers a config process left running when it died without stopping
//! them (killed, crashed): found by their data dir and stopped, before the
//! data dir is cleared or the next config starts.

use std::path::Path;

/// Main processes of servers under `dir`: a postgres or mariadbd whose
/// command line names `dir` (mariadbd's `--defaults-file`) or whose working
/// directory is in it (the postmaster runs in its data dir, and gets it from
/// PGDATA, not `-D`), and whose parent is not such a server (a backend goes
/// with its postmaster).
fn server_processes_under(dir: &Path) -> Vec<(u32, String)> {
    let needle = dir.to_string_lossy().to_string();
    let absolute = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let comm_of =
        |pid: &str| std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string();
    let parent_of = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)).unwrap_or("0").to_string()
    };
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else { return out };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let comm = comm_of(&pid.to_string());
        if comm != "postgres" && comm != "mariadbd" {
            continue;
        }
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let named = String::from_utf8_lossy(&cmdline).replace('\0', " ").contains(&needle);
        let inside = std::fs::read_link(e.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&absolute));
        if (named || inside) && comm_of(&parent_of(pid)) != comm && super::process_alive(pid) {
            out.push((pid, comm));
        }
    }
    out
}

/// Stop database servers left running under `dir` by a config process that
/// died without stopping them (killed or crashed): every postgres or
/// mariadbd main process under `dir` (see `server_processes_under`). When the process died
/// abnormally (`crashed`), look again a little later too, for a server that
/// was still starting. Returns what it did, one line each.
pub fn stop_leftover_servers(engine: &str, dir: &Path, crashed: bool) -> Vec<String> {
    if super::kind_of(engine).is_none() {
        return Vec::new();
    }
    let mut done = Vec::new();
    for attempt in 0..if crashed { 2 } else { 1 } {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_secs(2));
        }
        for (pid, comm) in server_processes_under(dir) {
            // postgres: SIGQUIT is an immediate shutdown (the postmaster takes
            // its children with it); mariadbd: SIGTERM is a normal shutdown.
            let first = if comm == "postgres" { libc::SIGQUIT } else { libc::SIGTERM };
            // SAFETY: signals to a server process of this run (its command line names our data dir).
            unsafe { libc::kill(pid as i32, first) };
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
            while super::process_alive(pid) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            if super::process_alive(pid) {
                // SAFETY: as above.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            }
            done.push(format!("stopped {comm} (pid {pid}) that the config process left running in {}", dir.display()));
        }
    }
    done
}
