//! The process-global registry of the servers rumbench started: every one
//! from the moment its process exists, so that a signal, a panic or a
//! failed start stops it (`stop_all_servers`, `install_panic_hook`).

use super::*;

#[derive(Clone, Debug)]
pub(super) enum StopHow {
    /// `pg_ctl stop` (as `run_as` if set), then signals to the postmaster.
    PgCtl { bin_dir: PathBuf, run_as: Option<String> },
    /// SIGTERM, then SIGKILL to the process tree.
    Signal,
}

#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) id: u64,
    pub(super) kind: ServerKind,
    /// None while postgres is starting (pg_ctl -w has not returned yet).
    pub(super) pid: Option<u32>,
    pub(super) data_dir: PathBuf,
    pub(super) how: StopHow,
    /// postgres: pg_ctl start still running (the pid file may not exist yet).
    pub(super) starting: bool,
    pub(super) stopping: bool,
}

pub(super) static RUNNING: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
pub(super) static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// Set by stop_all_servers(): no server may start afterwards.
pub(super) static STOPPING_ALL: AtomicBool = AtomicBool::new(false);

pub(super) fn check_not_stopping_all() -> Result<()> {
    if STOPPING_ALL.load(Ordering::SeqCst) {
        bail!("not starting a server: stop_all_servers() was called (interrupted)");
    }
    Ok(())
}

pub(super) fn registry() -> MutexGuard<'static, Vec<Entry>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn registry_add(kind: ServerKind, pid: Option<u32>, data_dir: &Path, how: StopHow) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let starting = pid.is_none();
    registry().push(Entry { id, kind, pid, data_dir: data_dir.to_path_buf(), how, starting, stopping: false });
    id
}

/// The start command has returned; `pid` is the server's if it runs.
pub(super) fn registry_start_done(id: u64, pid: Option<u32>) {
    if let Some(e) = registry().iter_mut().find(|e| e.id == id) {
        e.pid = pid;
        e.starting = false;
    }
}

pub(super) fn registry_is_starting(id: u64) -> bool {
    registry().iter().any(|e| e.id == id && e.starting)
}

pub(super) fn registry_remove(id: u64) {
    registry().retain(|e| e.id != id);
}

pub(super) enum Claim {
    /// The caller stops it.
    Mine,
    /// stop_all_servers() is stopping (or has stopped) it.
    Elsewhere,
}

pub(super) fn registry_claim(id: u64) -> Claim {
    let mut reg = registry();
    match reg.iter_mut().find(|e| e.id == id) {
        Some(e) if !e.stopping => {
            e.stopping = true;
            Claim::Mine
        }
        _ => Claim::Elsewhere,
    }
}

/// Servers started by this process and not yet stopped: (kind, pid, data dir).
/// The pid is None while a postgres server is still starting.
pub fn running_servers() -> Vec<(ServerKind, Option<u32>, PathBuf)> {
    registry().iter().map(|e| (e.kind, e.pid, e.data_dir.clone())).collect()
}

/// End every server this process started, at once: SIGKILL to each one's
/// process tree (a stopped process, SIGSTOPped, ends by SIGKILL too), for a
/// process that must end now (a second Ctrl-C, a main process gone) and
/// cannot wait for a shutdown that a frozen server would never make. No
/// server may start afterwards. The data dirs are left as a crash leaves
/// them; rumbench removes its own.
pub fn kill_all_servers() {
    STOPPING_ALL.store(true, Ordering::SeqCst);
    let entries: Vec<Entry> = registry().clone();
    for e in &entries {
        if let Some(pid) = e.pid.or_else(|| postgres::read_postmaster_pid(&e.data_dir)) {
            kill_tree(pid, libc::SIGKILL);
        }
    }
    for e in &entries {
        if let Some(pid) = e.pid.or_else(|| postgres::read_postmaster_pid(&e.data_dir)) {
            wait_gone(pid, Duration::from_secs(2));
        }
        registry_remove(e.id);
    }
}

/// Stop every server this process started and has not stopped yet (graceful
/// with a short timeout, then SIGKILL of the process tree), in parallel, and
/// wait for servers that are being stopped elsewhere. Safe to call from a
/// Ctrl-C handler thread or a panic hook, and more than once. Afterwards
/// [`RunningServer::start`] refuses to start servers (a start in progress
/// is stopped too). The main binary must call it from its signal handler
/// before exiting.
pub fn stop_all_servers() {
    STOPPING_ALL.store(true, Ordering::SeqCst);
    let (mine, others): (Vec<Entry>, Vec<Entry>) = {
        let mut reg = registry();
        let others = reg.iter().filter(|e| e.stopping).cloned().collect();
        let mine = reg
            .iter_mut()
            .filter(|e| !e.stopping)
            .map(|e| {
                e.stopping = true;
                e.clone()
            })
            .collect();
        (mine, others)
    };
    let handles: Vec<_> = mine
        .into_iter()
        .map(|e| {
            thread::spawn(move || {
                emergency_stop(&e, Duration::from_secs(15));
                registry_remove(e.id);
            })
        })
        .collect();
    for h in handles {
        let _ = h.join();
    }
    for e in others {
        let pid = e.pid.or_else(|| postgres::read_postmaster_pid(&e.data_dir));
        if let Some(pid) = pid {
            wait_gone(pid, STOP_TIMEOUT + Duration::from_secs(10));
        }
    }
}

/// Install a panic hook that calls [`stop_all_servers`] and then the
/// previous hook. Note: any panic in any thread then stops every server.
pub fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        stop_all_servers();
        prev(info);
    }));
}

/// Stop a registered server without its RunningServer: graceful with
/// `timeout`, then SIGKILL of the process tree.
pub(super) fn emergency_stop(e: &Entry, timeout: Duration) {
    match &e.how {
        StopHow::PgCtl { bin_dir, run_as } => {
            // Still starting (pg_ctl -w start running): wait until the
            // postmaster has written its pid file (so that there is something
            // to stop) or pg_ctl has given up.
            let deadline = Instant::now() + Duration::from_secs(20);
            while registry_is_starting(e.id)
                && postgres::read_postmaster_pid(&e.data_dir).is_none()
                && Instant::now() < deadline
            {
                thread::sleep(Duration::from_millis(50));
            }
            let secs = timeout.as_secs().max(1).to_string();
            let mut cmd = as_user(run_as.as_deref(), &bin_dir.join("pg_ctl"));
            cmd.arg("-D").arg(&e.data_dir).args(["-m", "fast", "-w", "-t", &secs, "stop"]);
            let _ = run_cmd(cmd, timeout + Duration::from_secs(5));
            if let Some(pid) = e.pid.or_else(|| postgres::read_postmaster_pid(&e.data_dir)) {
                if !wait_gone(pid, Duration::from_secs(3)) {
                    kill_tree(pid, libc::SIGKILL);
                    wait_gone(pid, Duration::from_secs(5));
                }
            }
        }
        StopHow::Signal => {
            if let Some(pid) = e.pid {
                signal(pid, libc::SIGTERM);
                if !wait_gone(pid, timeout) {
                    kill_tree(pid, libc::SIGKILL);
                    wait_gone(pid, Duration::from_secs(5));
                }
            }
        }
    }
}

/// Stops a server whose start failed half-way (dropped without `disarm`),
/// and reaps its child process if it is ours.
pub(super) struct StartGuard {
    pub(super) id: Option<u64>,
    pub(super) child: Option<Child>,
}

impl StartGuard {
    pub(super) fn new(id: u64, child: Option<Child>) -> Self {
        StartGuard { id: Some(id), child }
    }
    pub(super) fn disarm(mut self) -> (u64, Option<Child>) {
        (self.id.take().expect("guard armed"), self.child.take())
    }
}

impl Drop for StartGuard {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        if let Claim::Mine = registry_claim(id) {
            let entry = registry().iter().find(|e| e.id == id).cloned();
            if let Some(e) = entry {
                emergency_stop(&e, Duration::from_secs(10));
            }
            registry_remove(id);
        }
        if let Some(c) = self.child.as_mut() {
            if wait_child(c, Duration::from_secs(10)).is_none() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

/// Removes a directory on drop unless taken.
pub(super) struct DirGuard(pub(super) Option<PathBuf>);

impl DirGuard {
    pub(super) fn take(mut self) -> Option<PathBuf> {
        self.0.take()
    }
}

impl Drop for DirGuard {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = fs::remove_dir_all(d);
        }
    }
}

pub(super) fn absolute(p: &Path) -> Result<PathBuf> {
    Ok(if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir()?.join(p) })
}
