//! Debian's `perf` as the sampler: checked before a run, started beside a
//! config process, its recording cut at the end of each step and read back
//! with `perf script` then. Samples carry CLOCK_MONOTONIC timestamps (`-k
//! monotonic`), the clock the driver notes each step's window in, so the
//! file that holds a step is cut to its window (see `fold`).

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// Overrides where perf is found (tests point it at nothing to see the refusal).
pub const PERF_ENV: &str = "RUMBENCH_PERF";

/// How stacks are unwound: DWARF call frame information (.eh_frame), since
/// neither RocksDB's C++ nor rumbench's Rust keep frame pointers (see
/// docs/profiles.md for what frame pointers gave and what DWARF costs).
pub const CALL_GRAPH: &str = "dwarf,8192";

/// The perf program: $RUMBENCH_PERF, or `perf` on the PATH.
pub fn perf_program() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(PERF_ENV) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("--profile: the profiler {} (${PERF_ENV}) does not exist; install Debian's linux-perf (scripts/setup.sh does) or point ${PERF_ENV} at perf", p.display());
        }
        return Ok(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("perf"))
        .find(|p| p.is_file())
        .ok_or_else(|| anyhow::anyhow!("--profile: perf is not installed (not on the PATH); install it: apt-get install linux-perf (scripts/setup.sh does), or set ${PERF_ENV}"))
}

/// Forces a scope (`per-thread` or `per-cpu`) instead of the one this
/// user may use: to measure what the other costs (bench/profile_overhead.sh).
pub const SCOPE_ENV: &str = "RUMBENCH_PROFILE_SCOPE";

/// What perf's events are attached to (in result.json: its [`Scope::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// One event per CPU (`perf record -a`), samples of the config's process
    /// tree kept: nothing happens at a thread's context switch. Chosen for
    /// root or at kernel.perf_event_paranoid <= 0 (a non-root user with
    /// CAP_PERFMON is not told apart, and gets per thread at paranoid 1).
    PerCpu,
    /// Events on the config process's threads, inherited by the threads and
    /// processes it starts (`perf record -p`): the kernel switches them out
    /// and in at every context switch of those threads, which costs a client
    /// that sleeps on a socket for every statement (docs/profiles.md).
    PerThread,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::PerCpu => "per-cpu",
            Scope::PerThread => "per-thread",
        }
    }
}

/// The scope this user may sample with: per CPU when allowed (root, or
/// perf_event_paranoid <= 0), else per thread; $RUMBENCH_PROFILE_SCOPE
/// forces one. Refused (the fix named) when this user may do neither.
pub fn scope() -> Result<Scope> {
    let paranoid_path = Path::new("/proc/sys/kernel/perf_event_paranoid");
    let paranoid = match std::fs::read_to_string(paranoid_path) {
        Ok(s) => s.trim().parse::<i32>().unwrap_or(2),
        Err(_) => bail!(
            "--profile: this kernel has no perf events ({} is missing); use a kernel built with CONFIG_PERF_EVENTS",
            paranoid_path.display()
        ),
    };
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root && paranoid > 1 {
        bail!(
            "--profile: kernel.perf_event_paranoid is {paranoid}, which lets a user sample neither the kernel nor other processes; \
             run as root, or: sysctl kernel.perf_event_paranoid=0 (at 1 perf samples per thread, which costs switch-heavy clients CPU)"
        );
    }
    let allowed = if root || paranoid <= 0 { Scope::PerCpu } else { Scope::PerThread };
    match std::env::var(SCOPE_ENV).ok().as_deref() {
        None | Some("") => Ok(allowed),
        Some("per-thread") => Ok(Scope::PerThread),
        Some("per-cpu") if allowed == Scope::PerCpu => Ok(Scope::PerCpu),
        Some("per-cpu") => {
            bail!("--profile: ${SCOPE_ENV}=per-cpu needs root or kernel.perf_event_paranoid <= 0 (it is {paranoid})")
        }
        Some(other) => bail!("--profile: ${SCOPE_ENV} is {other:?}; it may be per-cpu or per-thread"),
    }
}

/// Everything `--profile` needs, checked before anything runs: perf
/// installed and working for this kernel, the kernel's perf events, and
/// a perf_event_paranoid this user may sample under (kernel stacks too).
/// One sampled run of `true`, in the scope a run will use, proves them together.
pub fn check_available(hz: u32) -> Result<()> {
    let perf = perf_program()?;
    let scope = scope()?;
    let dir = tempfile::tempdir().context("--profile: a temporary directory for the profiler's trial")?;
    let out = Command::new(&perf)
        .args(["record", "-q", "-e", "cpu-clock", "-F", &hz.to_string(), "-k", "monotonic", "--call-graph", CALL_GRAPH])
        // Every option a recording uses (an older perf lacks some).
        .args(["--no-buildid", "--no-buildid-cache", "--no-bpf-event", "--max-size=64M"])
        .args(if scope == Scope::PerCpu { &["-a", "--switch-output=signal"][..] } else { &[] })
        .arg("-o")
        .arg(dir.path().join("trial.data"))
        .args(["--", "true"])
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("--profile: cannot run {}", perf.display()))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no message");
        bail!("--profile: {} cannot sample on this machine: {first}; install the linux-perf matching this kernel (scripts/setup.sh) and check kernel.perf_event_paranoid", perf.display());
    }
    Ok(())
}

/// The monotonic clock in nanoseconds (perf's `-k monotonic` timestamps).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// What a recording costs its filesystem per sample, at most: perf's
/// copy of the user stack (`CALL_GRAPH`'s 8 KiB, reserved whole in every
/// sample that has one), the user registers, the kernel's call chain and
/// the sample's header. Measured: 8.1 KB a sample (14.1 MB for 1,743
/// samples; docs/profiles.md).
pub const SAMPLE_BYTES: u64 = 9 * 1024;

/// What a recording file holds besides its samples: the processes perf
/// describes at its start (their maps and names; per CPU, every process of
/// the machine, again in every file it switches to) and the task events.
pub const FIXED_BYTES: u64 = 8 << 20;

/// The bytes a recording of `secs` seconds may take at `hz` on `cpus`
/// CPUs: at most one sample per CPU every 1/hz s (cpu-clock counts a CPU's
/// time, and no more threads run at once than there are CPUs).
pub fn recording_bytes(hz: u32, cpus: usize, secs: f64) -> u64 {
    (hz as f64 * cpus as f64 * secs.max(0.0) * SAMPLE_BYTES as f64).ceil() as u64 + FIXED_BYTES
}

/// The CPUs online (what perf samples per CPU).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    }
}

/// The file perf records into, in the recording's directory; per CPU, the
/// files it switches out are this name and a timestamp (`perf.data.2026...`).
pub const DATA_FILE: &str = "perf.data";

/// A perf recording of one process and everything it starts afterwards
/// (a server's whole process tree, when the config process starts it):
/// per CPU, where the tree is told apart afterwards by perf's fork and exit
/// records, or per thread, where threads and child processes inherit the
/// events. Its files live in a directory of their own (`dir`), never in
/// the results.
///
/// Cut as each step ends: per CPU, perf switches to a new file on SIGUSR2
/// (`--switch-output=signal`, about 0.1 s here: perf writes the old file's
/// header and describes every process again at the top of the new one) and
/// samples on; per thread, perf is stopped (its file ends) and a new one is
/// started on the tree before the next step (0.2 s to start and stop):
/// a per-thread perf that switched files would describe only the threads it
/// was started on in the new file, so the client threads and server
/// processes made since would lose their names and symbols there.
pub struct Recording {
    child: Child,
    dir: PathBuf,
    ctl: std::fs::File,
    ack: BufReader<std::fs::File>,
    enabled: bool,
    pub hz: u32,
    pub scope: Scope,
}

impl Recording {
    /// Start sampling `pids` (per CPU: the first, the tree's root, and what
    /// it starts; per thread: each of them and what they start) into `dir`,
    /// and return once perf samples. perf stops by itself once a file of its
    /// reaches `max_bytes`.
    pub fn start(pids: &[u32], hz: u32, dir: &Path, max_bytes: u64) -> Result<Recording> {
        let perf = perf_program()?;
        let scope = scope()?;
        let (ctl, ack) = (dir.join(".perf-ctl.fifo"), dir.join(".perf-ack.fifo"));
        for f in [&ctl, &ack] {
            let _ = std::fs::remove_file(f);
            let c = std::ffi::CString::new(f.as_os_str().as_encoded_bytes()).expect("a path without NUL");
            // SAFETY: a valid C string.
            if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
                bail!("cannot make the profiler's control fifo {}: {}", f.display(), std::io::Error::last_os_error());
            }
        }
        let mut command = Command::new(&perf);
        command
            .args([
                "record",
                "-q",
                "-e",
                "cpu-clock",
                "-F",
                &hz.to_string(),
                "-k",
                "monotonic",
                "--call-graph",
                CALL_GRAPH,
                "-D",
                "-1",
            ])
            // The build ids are not needed: the files are read at once, on this
            // machine. Without BPF events perf has no side-band thread, whose
            // poll made it take 0.45 s to stop (5 ms without); what is lost is
            // the names of BPF programs in kernel stacks.
            .args(["--no-buildid", "--no-buildid-cache", "--no-bpf-event"])
            .arg(format!("--max-size={}K", (max_bytes / 1024).max(1)))
            .arg(format!("--control=fifo:{},{}", ctl.display(), ack.display()));
        match scope {
            Scope::PerCpu => command.args(["-a", "--switch-output=signal"]),
            Scope::PerThread => command.arg("-p").arg(pids.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
        };
        command.arg("-o").arg(dir.join(DATA_FILE)).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        // A perf sampling every CPU does not end with the process it was
        // started for: told to stop (SIGINT, it writes its file) when the
        // thread that started it dies, the config process killed included.
        // SAFETY: getpid has no preconditions.
        let starter = unsafe { libc::getpid() };
        // SAFETY: prctl and getppid are async-signal-safe; nothing else runs in the child.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT as libc::c_ulong) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // Died before the prctl took: nobody would stop this perf.
                if libc::getppid() != starter {
                    return Err(std::io::Error::other("the config process ended before perf started"));
                }
                Ok(())
            })
        };
        let mut child = command.spawn().with_context(|| format!("cannot start {}", perf.display()))?;
        // Enabled once perf has attached: its ack says events are on. The
        // fifos open only when perf opened its ends; a perf that died
        // before that is seen by polling it. Both stay open: a step whose
        // recording would not fit is not sampled (`set_enabled`).
        let ready = (|| -> Result<(std::fs::File, BufReader<std::fs::File>)> {
            let began = Instant::now();
            let ctl_file = loop {
                match std::fs::OpenOptions::new().write(true).custom_flags_nonblock().open(&ctl) {
                    Ok(f) => break f,
                    Err(_) if began.elapsed() < Duration::from_secs(20) => {
                        if let Some(status) = child.try_wait()? {
                            bail!("perf record ended at once ({status}): {}", first_words(&mut child));
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    Err(e) => bail!("perf record did not open its control fifo: {e}"),
                }
            };
            let ack_file = BufReader::new(std::fs::File::open(&ack)?);
            Ok((ctl_file, ack_file))
        })();
        let _ = std::fs::remove_file(&ctl);
        let _ = std::fs::remove_file(&ack);
        let (ctl, ack) = match ready {
            Ok(pair) => pair,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        let mut recording = Recording { child, dir: dir.to_path_buf(), ctl, ack, enabled: false, hz, scope };
        if let Err(e) = recording.set_enabled(true) {
            let _ = recording.child.kill();
            let _ = recording.child.wait();
            return Err(e);
        }
        Ok(recording)
    }

    /// perf's own process id.
    pub fn profiler_pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether perf keeps sampling across a cut (per CPU) or is stopped by
    /// it (per thread).
    pub fn switches(&self) -> bool {
        self.scope == Scope::PerCpu
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Turn sampling on or off (perf's control fifo, acknowledged).
    pub fn set_enabled(&mut self, on: bool) -> Result<()> {
        if on == self.enabled {
            return Ok(());
        }
        if let Some(why) = self.ended() {
            bail!("{why}");
        }
        self.ctl.write_all(if on { b"enable\n" } else { b"disable\n" }).context("perf's control fifo")?;
        let mut line = String::new();
        self.ack.read_line(&mut line).context("perf's acknowledgement")?;
        if line.is_empty() {
            bail!("perf ended before it acknowledged");
        }
        self.enabled = on;
        Ok(())
    }

    /// Why perf ended by itself (a file of its reached its limit, its
    /// filesystem filled, it failed), if it did.
    pub fn ended(&mut self) -> Option<String> {
        let status = self.child.try_wait().ok()??;
        Some(format!("perf record ended ({status}): {}", first_words(&mut self.child)))
    }

    /// Per CPU: switch perf to a new file and return the finished one,
    /// which holds every sample up to now. perf writes the finished file's
    /// header and renames it before it opens the next, so the renamed file
    /// is whole once it appears.
    pub fn switch(&mut self) -> Result<PathBuf> {
        debug_assert!(self.switches());
        if let Some(why) = self.ended() {
            bail!("{why}");
        }
        // SAFETY: signalling the perf we started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGUSR2) };
        let began = Instant::now();
        loop {
            if let Some(done) = switched_files(&self.dir).into_iter().next() {
                return Ok(done);
            }
            if let Some(why) = self.ended() {
                bail!("{why}");
            }
            if began.elapsed() > Duration::from_secs(120) {
                bail!("perf record did not switch files within 120 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stop sampling (perf ends on SIGINT and writes its file); the file
    /// with the samples since the last switch.
    pub fn stop(mut self) -> Result<PathBuf> {
        let ended_before = self.ended();
        if ended_before.is_none() {
            // SAFETY: signalling the perf we started.
            unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        }
        let status = self.child.wait().context("waiting for perf record")?;
        if let Some(why) = ended_before {
            bail!("{why}");
        }
        let data = switched_files(&self.dir).into_iter().next().unwrap_or_else(|| self.dir.join(DATA_FILE));
        if !data.is_file() {
            bail!("perf record wrote no data ({status}): {}", first_words(&mut self.child));
        }
        Ok(data)
    }
}

/// The files perf switched out in `dir` (`perf.data.<timestamp>`), oldest first.
pub fn switched_files(dir: &Path) -> Vec<PathBuf> {
    let prefix = format!("{DATA_FILE}.");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_prefix(&prefix))
                        .is_some_and(|ts| !ts.is_empty() && ts.bytes().all(|b| b.is_ascii_digit()))
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// perf's first line of complaint on its stderr (it prints little with -q).
fn first_words(child: &mut Child) -> String {
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let line =
        err.lines().map(|l| l.trim().trim_start_matches('[').trim_end_matches(']').trim()).find(|l| !l.is_empty());
    line.unwrap_or("no message").to_string()
}

/// Open a fifo's write end without blocking (fails while no reader has it open).
trait NonBlocking {
    fn custom_flags_nonblock(&mut self) -> &mut Self;
}

impl NonBlocking for std::fs::OpenOptions {
    fn custom_flags_nonblock(&mut self) -> &mut Self {
        std::os::unix::fs::OpenOptionsExt::custom_flags(self, libc::O_NONBLOCK)
    }
}

/// One sample as `perf script` prints it: who ran, when, and its stack
/// (leaf first) as (symbol, object file).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Sample {
    pub comm: String,
    pub pid: u32,
    pub tid: u32,
    pub time_ns: u64,
    pub frames: Vec<(String, String)>,
}

/// Run `perf script` on `data` and hand each sample to `each`.
/// `--no-inline`: resolving inlined frames took perf 74 s for 1,700
/// samples here, against 0.6 s without (the functions stay; their inlined
/// callees fold into them).
/// `--show-task-events`: the fork and exit records, in time order with the
/// samples, tell the process tree (`tree`: the config process's, carried
/// from one file of a recording to the next) from the rest of the machine;
/// only its samples are handed on, less those of `profiler` (perf itself,
/// the config process's child).
pub fn read_samples(data: &Path, tree: &mut ProcessTree, profiler: u32, mut each: impl FnMut(Sample)) -> Result<()> {
    let perf = perf_program()?;
    let mut child = Command::new(&perf)
        .args(["script", "--no-inline", "--ns", "--show-task-events", "-F", "comm,pid,tid,time,ip,sym,dso", "-i"])
        .arg(data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {} script", perf.display()))?;
    let reader = BufReader::new(child.stdout.take().expect("piped"));
    samples_of_tree(reader, tree, profiler, &mut each)?;
    let status = child.wait()?;
    if !status.success() {
        bail!("perf script failed ({status}) on {}", data.display());
    }
    Ok(())
}

/// Follow the process tree through `data`'s fork and exit records alone,
/// for a file whose samples are not wanted (a step that is not profiled):
/// without the samples' fields, perf neither unwinds nor symbolises.
pub fn read_task_events(data: &Path, tree: &mut ProcessTree) -> Result<()> {
    let perf = perf_program()?;
    let mut child = Command::new(&perf)
        .args(["script", "--show-task-events", "-F", "comm,pid,tid,time", "-i"])
        .arg(data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {} script", perf.display()))?;
    let reader = BufReader::new(child.stdout.take().expect("piped"));
    samples_of_tree(reader, tree, 0, &mut |_| {})?;
    let status = child.wait()?;
    if !status.success() {
        bail!("perf script failed ({status}) on {}", data.display());
    }
    Ok(())
}

/// The samples of `tree`'s processes in `perf script --show-task-events`
/// output, less those of `profiler` (perf, forked by the root before it recorded).
fn samples_of_tree(
    reader: impl BufRead,
    tree: &mut ProcessTree,
    profiler: u32,
    each: &mut impl FnMut(Sample),
) -> Result<()> {
    parse_script(reader, &mut |line| match line {
        Line::Sample(s) => {
            if tree.holds(s.pid) && s.pid != profiler {
                each(s)
            }
        }
        Line::Fork { parent, child } => tree.fork(parent, child),
        Line::Exit { pid } => tree.exit(pid),
    })
}

/// The processes of one tree: its root and every process forked from one
/// of them, from its fork to its exit (a pid used again afterwards by
/// another process is not in it).
#[derive(Debug, Clone)]
pub struct ProcessTree {
    pids: HashSet<u32>,
}

impl ProcessTree {
    pub fn new(root: u32) -> ProcessTree {
        ProcessTree { pids: HashSet::from([root]) }
    }

    /// Add processes known to be in the tree (its descendants as /proc
    /// lists them when a recording starts: perf's fork records of a
    /// process it was not sampling yet are not in its files).
    pub fn extend(&mut self, pids: impl IntoIterator<Item = u32>) {
        self.pids.extend(pids);
    }

    /// The processes in the tree now, the root first, less those that ended
    /// (by /proc: perf's exit records of a process it did not sample are not in its files).
    pub fn alive(&self, root: u32) -> Vec<u32> {
        let mut pids: Vec<u32> =
            self.pids.iter().copied().filter(|p| *p != root && Path::new(&format!("/proc/{p}")).exists()).collect();
        pids.sort_unstable();
        pids.insert(0, root);
        pids
    }

    fn holds(&self, pid: u32) -> bool {
        self.pids.contains(&pid)
    }

    fn fork(&mut self, parent: u32, child: u32) {
        if self.pids.contains(&parent) {
            self.pids.insert(child);
        }
    }

    fn exit(&mut self, pid: u32) {
        self.pids.remove(&pid);
    }
}

/// A record of `perf script --show-task-events` output.
#[derive(Debug, PartialEq)]
pub enum Line {
    Sample(Sample),
    /// A new process (not a thread: its pid differs from its parent's).
    Fork {
        parent: u32,
        child: u32,
    },
    /// A process ended (its main thread's exit).
    Exit {
        pid: u32,
    },
}

/// Parse `perf script --show-task-events -F comm,pid,tid,time,ip,sym,dso` output.
pub fn parse_script(reader: impl BufRead, each: &mut impl FnMut(Line)) -> Result<()> {
    let mut current: Option<Sample> = None;
    for line in reader.lines() {
        let line = line?;
        if line.trim().is_empty() {
            if let Some(s) = current.take() {
                each(Line::Sample(s));
            }
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            if let (Some(s), Some(frame)) = (current.as_mut(), parse_frame(&line)) {
                s.frames.push(frame);
            }
            continue;
        }
        if let Some(s) = current.take() {
            each(Line::Sample(s));
        }
        if let Some(task) = parse_task_event(&line) {
            if let Some(task) = task {
                each(task);
            }
            continue;
        }
        current = parse_header(&line);
    }
    if let Some(s) = current.take() {
        each(Line::Sample(s));
    }
    Ok(())
}

/// "perf 12729/12729 70913.7: PERF_RECORD_FORK(12732:12732):(10962:10962)"
/// (child pid:tid, then parent's), "... PERF_RECORD_EXIT(12730:12730):(...)".
/// Some(None): a task event of no interest (a thread's fork or exit, COMM).
fn parse_task_event(line: &str) -> Option<Option<Line>> {
    let at = line.find("PERF_RECORD_")?;
    let event = &line[at + "PERF_RECORD_".len()..];
    let ids = |text: &str| -> Option<(u32, u32)> {
        let inner = text.strip_prefix('(')?.split_once(')')?.0;
        let (pid, tid) = inner.split_once(':')?;
        Some((pid.trim().parse().ok()?, tid.trim().parse().ok()?))
    };
    let parsed = if let Some(rest) = event.strip_prefix("FORK") {
        let (child, _) = ids(rest)?;
        let (parent, _) = ids(rest.split_once("):")?.1)?;
        (child != parent).then_some(Line::Fork { parent, child })
    } else if let Some(rest) = event.strip_prefix("EXIT") {
        let (pid, tid) = ids(rest)?;
        (pid == tid).then_some(Line::Exit { pid })
    } else {
        None
    };
    Some(parsed)
}

/// "rumbench  6735/6740 31929.714270123: " (a comm may hold spaces).
fn parse_header(line: &str) -> Option<Sample> {
    let line = line.trim_end().trim_end_matches(':');
    let (rest, time) = line.rsplit_once(char::is_whitespace)?;
    let (comm, ids) = rest.trim_end().rsplit_once(char::is_whitespace)?;
    let (pid, tid) = ids.split_once('/')?;
    let (secs, frac) = time.split_once('.')?;
    let frac_ns: u64 = format!("{frac:0<9}")[..9].parse().ok()?;
    Some(Sample {
        comm: comm.trim().to_string(),
        pid: pid.parse().ok()?,
        tid: tid.parse().ok()?,
        time_ns: secs.parse::<u64>().ok()? * 1_000_000_000 + frac_ns,
        frames: Vec::new(),
    })
}

/// "\t  de1c23 rocksdb::DBImpl::GetImpl (/path/rumbench)" -> (symbol, object).
fn parse_frame(line: &str) -> Option<(String, String)> {
    let line = line.trim();
    let (_ip, rest) = line.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    let (sym, dso) = match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') => (&rest[..i], &rest[i + 2..rest.len() - 1]),
        _ => (rest, "[unknown]"),
    };
    Some((sym.trim().to_string(), dso.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_output_parses_into_samples() {
        let text = "rumbench  6735/6740 31929.714270123: \n\
            \tffffffff816b8d50 vfs_write ([kernel.kallsyms])\n\
            \t           f838f __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\
            \t         117e4b2 rocksdb::PosixWritableFile::Append (/work/target/release/rumbench)\n\
            \n\
            rb-client-0 7/8 1.5: \n\
            \t  1234 <rumbench::engine::null::NullSession as rumbench::engine::Session>::get (/x/rumbench)\n\
            \t  1235 [unknown] ([unknown])\n";
        let mut got = Vec::new();
        parse_script(text.as_bytes(), &mut |l| match l {
            Line::Sample(s) => got.push(s),
            other => panic!("{other:?}"),
        })
        .unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].comm.as_str(), got[0].pid, got[0].tid, got[0].time_ns),
            ("rumbench", 6735, 6740, 31_929_714_270_123)
        );
        assert_eq!(got[0].frames[1], ("__GI___libc_write".into(), "/usr/lib/x86_64-linux-gnu/libc.so.6".into()));
        assert_eq!(got[1].time_ns, 1_500_000_000);
        assert_eq!(got[1].frames[0].0, "<rumbench::engine::null::NullSession as rumbench::engine::Session>::get");
        assert_eq!(got[1].frames[1], ("[unknown]".into(), "[unknown]".into()));
    }

    #[test]
    fn a_process_tree_is_told_from_the_machine_by_its_forks_and_exits() {
        // perf script --show-task-events of a per-CPU recording: the config
        // process 100 (thread 101; perf, 150, its child), its server 200 forked by it and a backend
        // 300 forked by that; 400 is another process of the machine, and 300's
        // pid is used again by another one after the backend exited.
        let sample =
            |comm: &str, pid: u32, tid: u32, t: &str| format!("{comm} {pid}/{tid} {t}: \n\t  1234 work (/bin/x)\n\n");
        let text = [
            "rumbench 100/100 0.000000: PERF_RECORD_FORK(100:101):(100:100)\n".to_string(),
            // perf itself, the config process's child from before the recording.
            "rumbench 100/100 0.000000: PERF_RECORD_FORK(150:150):(100:100)\n".into(),
            sample("perf", 150, 150, "0.9"),
            sample("rb-client-0", 100, 101, "1.0"),
            sample("swapper", 0, 0, "1.1"),
            "rumbench 100/100 1.2: PERF_RECORD_FORK(200:200):(100:100)\n".into(),
            "postgres 200/200 1.3: PERF_RECORD_FORK(300:300):(200:200)\n".into(),
            "postgres 200/200 1.3: PERF_RECORD_FORK(200:201):(200:200)\n".into(),
            sample("postgres", 300, 300, "1.4"),
            sample("postgres", 200, 201, "1.45"),
            sample("bash", 400, 400, "1.5"),
            "postgres 300/300 1.6: PERF_RECORD_EXIT(300:300):(200:200)\n".into(),
            "bash 400/400 1.7: PERF_RECORD_FORK(300:300):(400:400)\n".into(),
            sample("cat", 300, 300, "1.8"),
            "rumbench 100/100 1.9: PERF_RECORD_COMM: rb-client-1:100/102\n".into(),
            sample("rumbench", 100, 100, "2.0"),
        ]
        .concat();
        let mut kept = Vec::new();
        samples_of_tree(text.as_bytes(), &mut ProcessTree::new(100), 150, &mut |s| {
            kept.push((s.comm, s.pid, s.tid, s.frames.len()))
        })
        .unwrap();
        assert_eq!(
            kept,
            vec![
                ("rb-client-0".to_string(), 100, 101, 1),
                ("postgres".to_string(), 300, 300, 1),
                ("postgres".to_string(), 200, 201, 1),
                ("rumbench".to_string(), 100, 100, 1),
            ]
        );
    }

    #[test]
    fn the_tree_carries_from_one_file_of_a_recording_to_the_next() {
        // perf switched files between the server's fork (in the first) and
        // its samples (in the second, which describes processes without
        // saying who forked them): the tree carried over keeps them.
        let sample = |comm: &str, pid: u32, t: &str| format!("{comm} {pid}/{pid} {t}: \n\t  1234 work (/bin/x)\n\n");
        let first =
            ["rumbench 100/100 1.0: PERF_RECORD_FORK(200:200):(100:100)\n".to_string(), sample("postgres", 200, "1.1")]
                .concat();
        let second = [
            sample("postgres", 200, "2.0"),
            "postgres 200/200 2.1: PERF_RECORD_EXIT(200:200):(100:100)\n".into(),
            sample("bash", 200, "2.2"),
        ]
        .concat();
        let mut tree = ProcessTree::new(100);
        let mut kept = Vec::new();
        samples_of_tree(first.as_bytes(), &mut tree, 0, &mut |s| kept.push(s.time_ns)).unwrap();
        samples_of_tree(second.as_bytes(), &mut tree, 0, &mut |s| kept.push(s.time_ns)).unwrap();
        assert_eq!(
            kept,
            vec![1_100_000_000, 2_000_000_000],
            "the server's samples in both files, not those of the pid's next owner"
        );
        // A process that was running before its recording started is added from /proc.
        let mut late = ProcessTree::new(100);
        late.extend([300]);
        let mut n = 0;
        samples_of_tree(sample("mariadbd", 300, "3.0").as_bytes(), &mut late, 0, &mut |_| n += 1).unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn switched_files_are_perfs_timestamped_ones_and_a_recording_is_sized_by_its_rate() {
        let dir = tempfile::tempdir().unwrap();
        for f in
            ["perf.data", "perf.data.2026112723090373", "perf.data.2026112723090243", "perf.data.old", ".perf-ctl.fifo"]
        {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let names: Vec<String> =
            switched_files(dir.path()).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["perf.data.2026112723090243", "perf.data.2026112723090373"], "oldest first, nothing else");
        // 99 Hz on 2 CPUs for 60 s: 11,880 samples of at most 9 KiB, and what perf writes besides.
        assert_eq!(recording_bytes(99, 2, 60.0), 11_880 * 9 * 1024 + FIXED_BYTES);
        assert_eq!(recording_bytes(99, 2, 0.0), FIXED_BYTES);
    }
}
