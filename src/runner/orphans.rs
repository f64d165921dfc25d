//! What a killed run left running, found and ended by the next run, which
//! says what it ended: config processes whose main process is gone (each
//! ends itself within seconds of its parent's death, `commands::signals`;
//! one that could not, stuck in a call, is ended here), and database
//! servers in a rumbench data dir that no process holds locked any more (a
//! config process killed with its main process, say by the OOM killer,
//! leaves its server running).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::dirs;

/// How long an orphaned config process is given to end by itself (its own
/// watch ends it after 3 s) before it is ended here.
const OWN_END: Duration = Duration::from_secs(5);

/// A config process of another run: its pid, and the task it runs.
struct ConfigProcess {
    pid: u32,
    task: String,
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string()
}

fn parent(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)).and_then(|p| p.parse().ok()).unwrap_or(0)
}

/// Config processes (`rumbench internal-run-config TASK I`) whose parent is
/// not a rumbench process: their main process died.
fn orphaned_config_processes() -> Vec<ConfigProcess> {
    let me = std::process::id();
    let Ok(rd) = std::fs::read_dir("/proc") else { return Vec::new() };
    rd.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter_map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let args: Vec<String> =
                cmdline.split(|&b| b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
            (args.get(1).map(String::as_str) == Some("internal-run-config")).then_some(())?;
            let p = parent(pid);
            (p <= 1 || comm(p) != comm(pid))
                .then(|| ConfigProcess { pid, task: args.get(2).cloned().unwrap_or_default() })
        })
        .collect()
}

/// The rumbench directory a path is in: its nearest ancestor (itself
/// included) that carries rumbench's marker.
fn rumbench_dir_of(path: &Path) -> Option<PathBuf> {
    path.ancestors().find(|a| a.join(dirs::MARKER).is_file()).map(Path::to_path_buf)
}

/// End what killed runs left running; one line per thing ended.
pub fn clear() -> Vec<String> {
    let mut done = Vec::new();
    let orphans = orphaned_config_processes();
    let began = Instant::now();
    for p in orphans {
        while crate::server::process_alive(p.pid) && began.elapsed() < OWN_END {
            std::thread::sleep(Duration::from_millis(100));
        }
        if crate::server::process_alive(p.pid) {
            // Its run is gone: its parent is not rumbench.
            super::watchdog::kill_group(p.pid);
            done.push(format!(
                "ended a config process of a run that was killed (pid {}, task {}): its main process was gone and it had not ended",
                p.pid, p.task
            ));
        }
    }
    for s in crate::server::server_processes() {
        // rumbench's layout: the server's own dir is `server` in a data dir it marked.
        let Some(data_dir) = s.dirs.iter().find_map(|d| rumbench_dir_of(d).filter(|r| d.starts_with(r.join("server"))))
        else {
            continue;
        };
        // A live config process holds its data dir locked while its server runs.
        if dirs::is_locked(&data_dir) || !crate::server::process_alive(s.pid) {
            continue;
        }
        crate::server::stop_server_process(s.pid, &s.comm);
        done.push(format!(
            "stopped {} (pid {}) that a killed run left running in {}",
            s.comm,
            s.pid,
            data_dir.display()
        ));
    }
    done
}
