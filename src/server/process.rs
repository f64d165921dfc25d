//! Processes: whether one lives, its descendants, signals, waiting, the
//! commands a server's start runs (as the server's user) and where its
//! programs are installed.

use super::*;

/// Whether `pid` exists and is not a zombie.
pub fn process_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks for existence.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    if r != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
        return false;
    }
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => proc_stat_fields(&s).map(|(state, _)| state != 'Z' && state != 'X').unwrap_or(false),
        Err(_) => false,
    }
}

/// (state, ppid) from /proc/PID/stat text.
pub(super) fn proc_stat_fields(stat: &str) -> Option<(char, u32)> {
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut it = rest.split_whitespace();
    let state = it.next()?.chars().next()?;
    let ppid = it.next()?.parse().ok()?;
    Some((state, ppid))
}

/// All descendants of `pid` (children, grandchildren, ...); none if /proc cannot be read.
pub(super) fn descendants(pid: u32) -> Vec<u32> {
    crate::measure::os::process::descendants(Path::new("/proc"), pid as i32)
        .unwrap_or_default()
        .into_iter()
        .map(|p| p as u32)
        .collect()
}

pub(super) fn signal(pid: u32, sig: libc::c_int) {
    if pid > 1 {
        // SAFETY: plain kill(2) on a pid we started.
        unsafe {
            libc::kill(pid as libc::pid_t, sig);
        }
    }
}

/// Send `sig` to `pid` and all its descendants.
pub(super) fn kill_tree(pid: u32, sig: libc::c_int) {
    let kids = descendants(pid);
    signal(pid, sig);
    for k in kids {
        signal(k, sig);
    }
}

/// Make this process the reaper of the orphans among its descendants
/// (PR_SET_CHILD_SUBREAPER), once, before it starts a server. A server
/// that daemonizes (postgres under pg_ctl) is then reparented here, not to
/// init: when it is killed, [`wait_reaped`] reaps it at once, where some
/// inits (a container's) take a second or more, which a frozen server's
/// kill and the crash test's restart on the same data dir would wait for.
pub(super) fn adopt_orphans() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag and
        // changes only how this process's orphaned descendants are reparented.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong) };
    });
}

/// Wait until `pid` is gone (or a zombie); true if it is.
pub(super) fn wait_gone(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if !process_alive(pid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Wait until `pid` no longer exists, not even as a zombie (reaping it when
/// it is our own child); true if so.
pub(super) fn wait_reaped(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        // SAFETY: signal 0 only checks for existence; waitpid with WNOHANG on
        // a child of ours that is a zombie.
        unsafe {
            if libc::kill(pid as libc::pid_t, 0) != 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
            {
                return true;
            }
            let ours = fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| proc_stat_fields(&s))
                .is_some_and(|(state, ppid)| state == 'Z' && ppid == std::process::id());
            if ours {
                libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Wait for a child to exit; its status if it did.
pub(super) fn wait_child(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Some(st),
            Ok(None) => {}
            Err(_) => return None,
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Output of a finished helper command (stdout and stderr interleaved).
pub(super) struct CmdOutput {
    pub(super) status: ExitStatus,
    pub(super) text: String,
}

impl CmdOutput {
    pub(super) fn lines(&self) -> Vec<String> {
        self.text.lines().map(str::to_string).collect()
    }
}

/// Run a helper command with a timeout, capturing stdout and stderr. The
/// command is killed at the timeout. Output that daemons spawned by it keep
/// writing is not waited for beyond 2 s.
pub(super) fn run_cmd(mut cmd: Command, timeout: Duration) -> Result<CmdOutput> {
    let desc = format!("{cmd:?}");
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().with_context(|| format!("cannot run {desc}"))?;
    let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
    let mut readers = Vec::new();
    let out: Option<Box<dyn Read + Send>> = child.stdout.take().map(|s| Box::new(s) as _);
    let err: Option<Box<dyn Read + Send>> = child.stderr.take().map(|s| Box::new(s) as _);
    for mut r in [out, err].into_iter().flatten() {
        let buf = Arc::clone(&buf);
        readers.push(thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = r.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]);
            }
        }));
    }
    let status = match wait_child(&mut child, timeout) {
        Some(st) => st,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            let text = String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
            bail!("{desc} timed out after {} s; output: {}", timeout.as_secs(), one_line(&text));
        }
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    for h in readers {
        while !h.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
        if h.is_finished() {
            let _ = h.join();
        }
    }
    let text = String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    Ok(CmdOutput { status, text })
}

/// `program`, run as OS user `user` via runuser when one is given.
pub(super) fn as_user(user: Option<&str>, program: &Path) -> Command {
    let mut cmd = match user {
        Some(u) => {
            let mut c = Command::new(find_program("runuser", &["/usr/sbin", "/sbin", "/usr/bin", "/bin"]));
            c.args(["-u", u, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    };
    // The caller's cwd may not be readable by `user`.
    cmd.current_dir("/");
    cmd
}

/// `name` from PATH, else from the first of `dirs` that has it, else `name`.
pub(super) fn find_program(name: &str, dirs: &[&str]) -> PathBuf {
    locate_program(name, dirs).unwrap_or_else(|| PathBuf::from(name))
}

/// `name` from PATH, else from the first of `dirs` that has it.
pub(super) fn locate_program(name: &str, dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).chain(dirs.iter().map(PathBuf::from)).map(|d| d.join(name)).find(|p| p.is_file())
}

/// When set, the directory that holds the programs of the servers rumbench
/// starts (initdb, pg_ctl, postgres; mariadb-install-db, mariadbd,
/// mariadb-admin), looked for there only, instead of Debian's places: a
/// server built from source, or (in the tests) an empty directory standing
/// for a machine without the server packages.
pub const SERVER_BIN_DIR_ENV: &str = "RUMBENCH_SERVER_BIN_DIR";

pub(super) fn server_bin_dir() -> Option<PathBuf> {
    std::env::var_os(SERVER_BIN_DIR_ENV).filter(|d| !d.is_empty()).map(PathBuf::from)
}

/// A server's program: from [`SERVER_BIN_DIR_ENV`] when set, else from PATH
/// or `dirs`; Err says where it was looked for.
pub(super) fn locate_server_program(name: &str, dirs: &[&str]) -> std::result::Result<PathBuf, String> {
    match server_bin_dir() {
        Some(d) => Some(d.join(name))
            .filter(|p| p.is_file())
            .ok_or_else(|| format!("not in {SERVER_BIN_DIR_ENV}={}", d.display())),
        None => locate_program(name, dirs).ok_or_else(|| format!("not in PATH, {}", dirs.join(", "))),
    }
}

/// The error for a server program that is missing, with where it was
/// looked for and how to install it.
pub(super) fn not_installed(program: &str, looked: &str) -> anyhow::Error {
    anyhow!("{program} is not installed ({looked}): install the servers with scripts/install-servers.sh (as root)")
}

/// Before anything starts: every program a `kind` server needs is here
/// (Debian's packages, or [`SERVER_BIN_DIR_ENV`]); the error names the first
/// one missing and the command that installs them.
pub fn check_installed(kind: ServerKind) -> Result<()> {
    match kind {
        ServerKind::Postgres => postgres::find_bin_dir().map(|_| ()),
        ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks => mariadb::check_installed(kind),
        ServerKind::Mongodb => bail!("{}", mongodb::BY_URL_ONLY),
    }
}

pub(super) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// (uid, gid) of an OS user.
pub(super) fn lookup_user(name: &str) -> Result<(u32, u32)> {
    let cname = std::ffi::CString::new(name)?;
    // SAFETY: passwd is plain data (pointers and ids); zeroed is a valid value.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16384];
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: all pointers are valid for the duration of the call.
    let rc = unsafe { libc::getpwnam_r(cname.as_ptr(), &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() {
        bail!("OS user {name:?} does not exist (is the server package installed? see scripts/install-servers.sh)");
    }
    Ok((pwd.pw_uid, pwd.pw_gid))
}
