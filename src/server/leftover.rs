//! Servers a config process left running when it died without stopping
//! them (killed, crashed): found by their data dir and stopped, before the
//! data dir is cleared or the next config starts.

use std::path::Path;

/// Main processes of servers under `dir`: a postgres, mariadbd or mysqld (a
/// MariaDB version before 10.5) whose
/// command line names a path in `dir` (mariadbd's `--defaults-file`) or
/// whose working directory is in it (the postmaster runs in its data dir,
/// and gets it from PGDATA, not `-D`), and whose parent is not such a server
/// (a backend goes with its postmaster).
fn server_processes_under(dir: &Path) -> Vec<(u32, String)> {
    let absolute = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    server_processes()
        .into_iter()
        .filter(|p| p.dirs.iter().any(|d| d.starts_with(dir) || d.starts_with(&absolute)))
        .filter(|p| super::process_alive(p.pid))
        .map(|p| (p.pid, p.comm))
        .collect()
}

/// A database server's main process (no parent of its own kind) anywhere
/// on the machine, with the directories its command line and working
/// directory name (its data dir is among them): what the next run looks
/// through for servers a killed run left.
pub struct ServerProcess {
    pub pid: u32,
    pub comm: String,
    pub dirs: Vec<std::path::PathBuf>,
}

pub fn server_processes() -> Vec<ServerProcess> {
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
        if !["postgres", "mariadbd", "mysqld"].contains(&comm.as_str()) || comm_of(&parent_of(pid)) == comm {
            continue;
        }
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let mut dirs: Vec<std::path::PathBuf> = String::from_utf8_lossy(&cmdline)
            .split('\0')
            .filter_map(|a| a.split_once('=').map(|(_, v)| v).or(Some(a)))
            .filter(|a| a.starts_with('/'))
            .map(std::path::PathBuf::from)
            .collect();
        dirs.extend(std::fs::read_link(e.path().join("cwd")));
        out.push(ServerProcess { pid, comm, dirs });
    }
    out
}

/// Stop a server's main process (postgres: SIGQUIT, an immediate shutdown
/// that takes its children; mariadbd: SIGTERM), SIGKILL after 15 s.
pub fn stop_server_process(pid: u32, comm: &str) {
    let first = if comm == "postgres" { libc::SIGQUIT } else { libc::SIGTERM };
    // SAFETY: signals to a server process the caller found to be rumbench's.
    unsafe { libc::kill(pid as i32, first) };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while super::process_alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if super::process_alive(pid) {
        // SAFETY: as above.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
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
            // Its command line or working directory is in our data dir.
            stop_server_process(pid, &comm);
            done.push(format!("stopped {comm} (pid {pid}) that the config process left running in {}", dir.display()));
        }
    }
    done
}
