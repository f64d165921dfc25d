//! `rumbench crashtest`: durability proven by crashing. For each config and
//! each crash: a writer process commits unique keys to the engine, whose
//! data dir is on the lazy filesystem (src/lazyfs), and logs every
//! acknowledged commit outside it; at a seeded random moment it is killed
//! with SIGKILL and the filesystem loses everything not made durable (a
//! power cut); a checker process opens what survived (the recovery, timed)
//! and reads every record back, which is held against the ack logs.
//! docs/crash-test.md says what counts as durable and what the figures mean.

pub mod child;
pub mod records;
mod server;

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::datagen::rng::Rng;
use crate::lazyfs::{LazyMount, Semantics};
use crate::plan::EngineConfig;
use crate::result::crashtest::{CrashConfig, CrashRecord, CrashTest, CrashTotals};
use crate::result::{RunResult, Status};
use crate::runner::dirs::{self, DataDir};
use child::{CheckReport, ChildTask};
use records::{Found, Writer};

/// What `rumbench crashtest` was asked for.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Options {
    pub crashes: u32,
    pub threads: usize,
    pub value_size: usize,
    /// The kill comes uniformly at random in [min, max] ms after the engine opened.
    pub kill_after_ms: (u64, u64),
    pub seed: u64,
    /// Parent of each config's work dir (backing store, mount point, ack logs).
    pub work_root: PathBuf,
    pub keep: bool,
    /// What makes a name durable on the lazy filesystem.
    pub semantics: Semantics,
}

/// The largest value a writer commits: a few per client thread in memory,
/// and a commit the lazy filesystem holds until it is synced.
const MAX_VALUE_SIZE: usize = 64 << 20;

/// How long a recovery may take before it counts as a hang.
const RECOVERY_TIMEOUT: Duration = Duration::from_secs(600);
/// How long the writer may take to open the engine.
const OPEN_TIMEOUT: Duration = Duration::from_secs(120);

/// Refuse, before anything starts, a config the crash test cannot run.
pub fn check_config(c: &EngineConfig) -> Result<()> {
    let spec = crate::backend::find(&c.engine)?;
    if c.is_target() {
        bail!("config {}: the crash test kills the server and cuts the power under it, so it runs only servers rumbench starts (leave out target)", c.name);
    }
    if !spec.stores_data {
        bail!("config {}: {} stores nothing, so it has nothing to lose in a crash", c.name, c.engine);
    }
    if c.engine_version.is_some() {
        bail!(
            "config {}: the crash test runs the RocksDB built into rumbench, not another version (leave out @VERSION)",
            c.name
        );
    }
    Ok(())
}

pub fn check_options(o: &Options) -> Result<()> {
    if o.crashes == 0 {
        bail!("--crashes must be at least 1");
    }
    if o.threads == 0 || o.threads > 999 {
        bail!("--threads must be from 1 to 999");
    }
    if o.value_size < records::MIN_VALUE_SIZE {
        bail!("--value-size must be at least {} (the value holds its key)", records::MIN_VALUE_SIZE);
    }
    if o.value_size > MAX_VALUE_SIZE {
        bail!(
            "--value-size must be at most {} MiB (every client thread holds its value in memory)",
            MAX_VALUE_SIZE >> 20
        );
    }
    if o.kill_after_ms.0 > o.kill_after_ms.1 {
        bail!("--kill-after: the first bound is above the second");
    }
    Ok(())
}

/// The mount point's owner: this process's user (a server's data dir is
/// handed to the server's own user when it is created).
fn owner() -> (u32, u32) {
    // SAFETY: plain getters.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// A child process (writer or checker) that dies with us and is killed when dropped.
struct ChildProc {
    child: Child,
    /// Its standard error's last lines, read through a pipe: a file for them
    /// would sit on the filesystem under test, which may be the full one.
    stderr_tail: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<String>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

/// How many of a child's last lines of standard error are kept.
const STDERR_LINES: usize = 3;

impl ChildProc {
    fn spawn(role: &str, task_path: &Path, stdout: Stdio) -> Result<ChildProc> {
        use std::os::unix::process::CommandExt;
        let exe = std::env::current_exe().context("finding rumbench's own executable")?;
        let mut cmd = Command::new(exe);
        cmd.arg("internal-crash-child").arg(role).arg(task_path);
        cmd.stdin(Stdio::null()).stdout(stdout).stderr(Stdio::piped());
        // Its own process group (a terminal's Ctrl-C is ours to handle), and
        // killed if we die: a writer must never outlive the mount.
        cmd.process_group(0);
        // SAFETY: prctl is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = cmd.spawn().with_context(|| format!("starting the crash test's {role}"))?;
        let stderr = child.stderr.take().expect("piped");
        let tail = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::new()));
        let lines = tail.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(std::result::Result::ok) {
                if line.trim().is_empty() {
                    continue;
                }
                let mut l = lines.lock().unwrap_or_else(|e| e.into_inner());
                if l.len() == STDERR_LINES {
                    l.pop_front();
                }
                l.push_back(line);
            }
        });
        Ok(ChildProc { child, stderr_tail: tail, stderr_reader: Some(reader) })
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The child's last words, for an error message (once it has exited).
    fn stderr_tail(&mut self) -> String {
        // The pipe closes when the child (and anything it started) is gone.
        if let Some(r) = self.stderr_reader.take() {
            let _ = r.join();
        }
        let lines = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if lines.is_empty() {
            "no message".into()
        } else {
            lines.iter().cloned().collect::<Vec<_>>().join(" | ")
        }
    }

    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for ChildProc {
    fn drop(&mut self) {
        self.kill();
    }
}

fn interrupted() -> Result<()> {
    if crate::driver::stop::stop_requested() {
        bail!("{}", crate::driver::stop::interrupted_text());
    }
    Ok(())
}

/// Sleep `d`, waking early for a stop request or the child's exit.
fn sleep_watching(d: Duration, child: &mut ChildProc) -> Result<Option<std::process::ExitStatus>> {
    let until = Instant::now() + d;
    while Instant::now() < until {
        interrupted()?;
        if let Some(st) = child.exited() {
            return Ok(Some(st));
        }
        std::thread::sleep((until - Instant::now()).min(Duration::from_millis(20)));
    }
    Ok(None)
}

fn fsync_dir(p: &Path) -> Result<()> {
    std::fs::File::open(p)?.sync_all().with_context(|| format!("fsync of {}", p.display()))
}

/// One config's crash test, start to end; what it found so far even when it
/// stops early (the error says why). `on_crash` sees the result after each
/// crash (to write it: a crash test killed outright keeps the crashes done).
pub fn run_config(
    config: &EngineConfig,
    o: &Options,
    index: usize,
    on_crash: &mut dyn FnMut(&CrashConfig),
) -> CrashConfig {
    let mut result = CrashConfig {
        name: config.name.clone(),
        engine: config.engine.clone(),
        options: config.options.clone(),
        server_config: crate::backend::is_server(&config.engine).then(|| config.applied_server_config()),
        provenance: Vec::new(),
        effective_options: Vec::new(),
        status: Status::Running,
        error: None,
        crash_records: Vec::new(),
        totals: CrashTotals::default(),
    };
    // A work dir of an earlier crash test that was killed outright may hold
    // its dead mount ("Transport endpoint is not connected"): released first.
    let work_dir = o.work_root.join(&config.name);
    let release = |d: &Path| {
        if let Some(note) = crate::lazyfs::release_stale_mount(&d.join("mnt")) {
            errln!("{}: {note}", config.name);
        }
    };
    let outcome = DataDir::fresh_with(&work_dir, release).and_then(|work| {
        let r = crash_loop(config, o, index, &work.path, &mut result, on_crash);
        if o.keep {
            // Kept for a look: the backing store holds what survived the last power cut.
            drop(work);
        } else {
            work.remove();
        }
        r
    });
    result.status = match &outcome {
        Ok(()) => Status::Completed,
        Err(_) if crate::driver::stop::stop_requested() => Status::Interrupted,
        Err(_) => Status::Failed,
    };
    if let Err(e) = outcome {
        result.error = Some(format!("{e:#}").replace('\n', " "));
    }
    result.totals = totals(&result.crash_records, o.threads);
    if result.status == Status::Completed && result.totals.acknowledged == 0 {
        // Nothing to lose, nothing proven: not a pass.
        result.status = Status::Failed;
        result.error = Some(format!(
            "no commit was acknowledged in {} crashes: the writer was killed before it committed (give a later --kill-after)",
            result.totals.crashes
        ));
    }
    result
}

/// What a crash happens to: an in-process engine in a writer process of its
/// own, or a database server rumbench starts (server.rs).
trait Subject {
    /// Write from `task.threads` clients, each commit acknowledged in its
    /// ack log, and crash (SIGKILL) `after` the engine opened. Returns once
    /// every process that used the mount is gone.
    fn write_and_crash(&mut self, task: &ChildTask, after: Duration) -> Result<()>;
    /// After the power cut: open what survived (the recovery, timed) and read
    /// every record back. `Ok(Err(why))`: it did not recover (a finding).
    fn recover(&mut self, task: &ChildTask) -> Result<std::result::Result<CheckReport, String>>;
}

/// An in-process engine: writer and checker are child processes of ours.
struct EngineSubject {
    task_path: PathBuf,
}

impl EngineSubject {
    fn write_task(&self, task: &ChildTask) -> Result<()> {
        std::fs::write(&self.task_path, serde_json::to_vec_pretty(task)?)
            .with_context(|| format!("writing {}", self.task_path.display()))
    }
}

impl Subject for EngineSubject {
    fn write_and_crash(&mut self, task: &ChildTask, after: Duration) -> Result<()> {
        self.write_task(task)?;
        kill_writer(&self.task_path, after).map_err(|e| match engine_cause(task) {
            Some(cause) => e.context(cause),
            None => e,
        })
    }

    fn recover(&mut self, task: &ChildTask) -> Result<std::result::Result<CheckReport, String>> {
        self.write_task(task)?;
        Ok(recover(&self.task_path, &task.report)?.map_err(|why| match engine_cause(task) {
            Some(cause) => format!("{cause}: {why}"),
            None => why,
        }))
    }
}

/// What the engine left in its data dir about a crash of its own (a
/// plugin's: the call it crashed in), taken once (the next crash's note is
/// the next one's).
fn engine_cause(task: &ChildTask) -> Option<String> {
    crate::engine::take_crash_cause(crate::backend::find(&task.config.engine).ok()?, &task.db_dir)
}

fn crash_loop(
    config: &EngineConfig,
    o: &Options,
    index: usize,
    work: &Path,
    result: &mut CrashConfig,
    on_crash: &mut dyn FnMut(&CrashConfig),
) -> Result<()> {
    let backing = work.join("backing");
    let acks = work.join("acks");
    std::fs::create_dir_all(&acks)?;
    let mut mount = LazyMount::mount(&backing, &work.join("mnt"), owner(), o.semantics)?;
    let db_dir = mount.path().join("db");
    // The harness's own directory is durable before the engine starts.
    std::fs::create_dir(&db_dir).with_context(|| format!("creating {}", db_dir.display()))?;
    fsync_dir(mount.path())?;
    let mut subject: Box<dyn Subject> = if crate::backend::is_server(&config.engine) {
        Box::new(server::ServerSubject::set_up(config, o, &db_dir, &mut mount)?)
    } else {
        Box::new(EngineSubject { task_path: work.join("task.json") })
    };
    let mut rng = Rng::new(crate::datagen::rng::stream_seed(o.seed, &[index as u64]));
    let mut acked: BTreeMap<Writer, u64> = BTreeMap::new();
    let mut lost_before: HashSet<(Writer, u64)> = HashSet::new();
    for crash in 1..=o.crashes {
        interrupted()?;
        let task = ChildTask {
            config: config.clone(),
            db_dir: db_dir.clone(),
            ack_dir: acks.clone(),
            report: work.join(format!("check-{crash}.json")),
            crash,
            threads: o.threads,
            value_size: o.value_size,
        };
        let before = mount.stats();
        let (window_lo, window_hi) = o.kill_after_ms;
        let kill_after = Duration::from_millis(window_lo + rng.below(window_hi - window_lo + 1));
        subject.write_and_crash(&task, kill_after)?;
        let cut = mount.power_cut()?.since(&before);
        for t in 0..o.threads as u32 {
            acked.insert((crash, t), records::read_acks(&records::ack_path(&acks, (crash, t)))?);
        }
        let mut rec = CrashRecord {
            crash,
            killed_after_s: kill_after.as_secs_f64(),
            acknowledged: (0..o.threads as u32).map(|t| acked[&(crash, t)]).sum(),
            file_syncs: cut.file_syncs,
            dir_syncs: cut.dir_syncs,
            bytes_written: cut.bytes_written,
            bytes_made_durable: cut.bytes_made_durable,
            unsynced_bytes_dropped: cut.unsynced_bytes_dropped,
            ..Default::default()
        };
        let report = match subject.recover(&task)? {
            Ok(r) => r,
            Err(why) => {
                result.crash_records.push(rec);
                outln!("{} crash {crash}/{}: did not recover: {why}", config.name, o.crashes);
                bail!("unrecoverable after crash {crash}: {why}");
            }
        };
        if result.provenance.is_empty() {
            result.provenance = report.provenance.clone();
            result.effective_options = report.effective_options.clone();
        }
        rec.recovered = true;
        rec.recovery_s = Some(report.open_s);
        judge(&report.found, &acked, &mut lost_before, &mut rec);
        outln!(
            "{} crash {crash}/{}: killed after {:.2} s, {} commits acknowledged, {} lost, recovery {:.3} s{}",
            config.name,
            o.crashes,
            rec.killed_after_s,
            rec.acknowledged,
            rec.lost,
            report.open_s,
            if rec.wrong_values + rec.never_written > 0 {
                format!(", {} wrong values, {} never written", rec.wrong_values, rec.never_written)
            } else {
                String::new()
            }
        );
        result.crash_records.push(rec);
        result.totals = totals(&result.crash_records, o.threads);
        on_crash(result);
    }
    // A server stops before its filesystem goes.
    drop(subject);
    drop(mount);
    Ok(())
}

/// Start the writer, wait until it has opened the engine, let it write for
/// `after`, then kill it with SIGKILL.
fn kill_writer(task_path: &Path, after: Duration) -> Result<()> {
    let mut writer = ChildProc::spawn("writer", task_path, Stdio::piped())?;
    let stdout = writer.child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let ready = loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break false,
                Ok(_) if line.trim() == child::READY => break true,
                Ok(_) => {}
            }
        };
        let _ = tx.send(ready);
        // Keep reading so that the writer never blocks on a full pipe.
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let started = Instant::now();
    loop {
        interrupted()?;
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(true) => break,
            Ok(false) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                let _ = writer.child.wait();
                bail!("the writer stopped before it started writing: {}", writer.stderr_tail());
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if started.elapsed() > OPEN_TIMEOUT => {
                bail!("the writer did not open the engine within {} s", OPEN_TIMEOUT.as_secs());
            }
            Err(_) => {}
        }
    }
    if let Some(st) = sleep_watching(after, &mut writer)? {
        bail!("the writer stopped before the kill ({st}): {}", writer.stderr_tail());
    }
    writer.kill();
    Ok(())
}

/// Run the checker over what survived: its report, or why the engine did
/// not open or read back (the inner error: a finding, not the harness's).
fn recover(task_path: &Path, report_path: &Path) -> Result<std::result::Result<CheckReport, String>> {
    let mut checker = ChildProc::spawn("check", task_path, Stdio::null())?;
    let started = Instant::now();
    let status = loop {
        interrupted()?;
        if let Some(st) = checker.exited() {
            break st;
        }
        if started.elapsed() > RECOVERY_TIMEOUT {
            return Ok(Err(format!("the engine did not open and read back within {} s", RECOVERY_TIMEOUT.as_secs())));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if !status.success() {
        return Ok(Err(format!("{} ({status})", checker.stderr_tail())));
    }
    let text = std::fs::read_to_string(report_path).with_context(|| format!("reading {}", report_path.display()))?;
    Ok(Ok(serde_json::from_str(&text).with_context(|| format!("parsing {}", report_path.display()))?))
}

/// Hold what the recovery found against every ack so far.
fn judge(
    found: &Found,
    acked: &BTreeMap<Writer, u64>,
    lost_before: &mut HashSet<(Writer, u64)>,
    rec: &mut CrashRecord,
) {
    for (&writer, &n) in acked {
        for (start, end) in found.missing(writer, n) {
            rec.lost += (start..end).filter(|&seq| lost_before.insert((writer, seq))).count() as u64;
        }
        // The commit each thread had in flight at the kill may or may not be there.
        rec.in_flight_present += found.has(writer, n) as u64;
        rec.never_written += found.count_from(writer, n + 1);
    }
    for w in found.writers() {
        if !acked.contains_key(&w) {
            rec.never_written += found.count_from(w, 0);
        }
    }
    rec.wrong_values = found.wrong_values;
    rec.never_written += found.foreign_keys;
    rec.examples = found.examples.clone();
}

use crate::report::fmt::thousands;

/// Totals, verdict and contradiction of one config's crashes.
pub fn totals(records: &[CrashRecord], threads: usize) -> CrashTotals {
    let mut t = CrashTotals { crashes: records.len() as u32, ..Default::default() };
    let mut recoveries = Vec::new();
    let mut syncs = 0;
    for r in records {
        t.acknowledged += r.acknowledged;
        t.lost += r.lost;
        t.wrong_values += r.wrong_values;
        t.never_written += r.never_written;
        t.unrecoverable |= !r.recovered;
        t.cuts_dropping_data += (r.unsynced_bytes_dropped > 0) as u32;
        syncs += r.file_syncs;
        recoveries.extend(r.recovery_s);
    }
    t.recovery_s_median = crate::report::stats::median(&recoveries);
    t.recovery_s_max = recoveries.iter().copied().reduce(f64::max);
    if t.acknowledged > 0 {
        t.syncs_per_commit = Some(syncs as f64 / t.acknowledged as f64);
        let needed = t.acknowledged as f64 / threads.max(1) as f64;
        t.synced_per_commit = Some(syncs as f64 >= needed * 0.99);
    }
    let (acked, crashes) = (thousands(t.acknowledged), t.crashes);
    let plural = if crashes == 1 { "crash" } else { "crashes" };
    t.verdict = if t.crashes == 0 {
        "not tested: no crash was completed".to_string()
    } else if t.acknowledged == 0 && !t.unrecoverable {
        format!("not tested: no commit was acknowledged in {crashes} {plural}, so none could be lost")
    } else if t.unrecoverable {
        format!("unrecoverable: the engine did not open after crash {crashes} (lost {} of {acked} acknowledged commits before it)", thousands(t.lost))
    } else if t.lost == 0 && t.wrong_values == 0 && t.never_written == 0 {
        format!("durable as run: 0 of {acked} acknowledged commits lost in {crashes} {plural}")
    } else {
        let mut v =
            format!("not durable: lost {} of {acked} acknowledged commits in {crashes} {plural}", thousands(t.lost));
        if t.wrong_values > 0 {
            v.push_str(&format!("; {} records with a wrong value", thousands(t.wrong_values)));
        }
        if t.never_written > 0 {
            v.push_str(&format!("; {} records never written", thousands(t.never_written)));
        }
        v
    };
    t.contradiction = contradiction(&t);
    t
}

/// Where what the engine lost and how often it synced disagree.
fn contradiction(t: &CrashTotals) -> Option<String> {
    let spc = t.syncs_per_commit?;
    match t.synced_per_commit? {
        true if t.lost > 0 => Some(format!(
            "synced {spc:.2} times per commit (not ND) yet lost {} acknowledged commits: syncs alone do not show durability (a new file's directory entry, the wrong file or a rename not made durable)",
            thousands(t.lost)
        )),
        false if t.lost == 0 && !t.unrecoverable && t.crashes > 0 => {
            let k = t.crashes as f64;
            let window = if t.cuts_dropping_data == 0 {
                "no power cut found unsynced data to throw away, so the crashes missed the window".to_string()
            } else {
                format!("{} of {} power cuts threw away unsynced data, none of it acknowledged commits", t.cuts_dropping_data, t.crashes)
            };
            // The rule of three: no event in k trials bounds its chance below 3/k (95%).
            let bound = if k >= 3.0 { format!("no loss in {} crashes rules out a loss chance per crash above {:.0}% (95%)", t.crashes, 300.0 / k) } else { format!("{} crashes bound nothing", t.crashes) };
            Some(format!("ND ({spc:.3} syncs per commit) yet lost nothing: {window}; {bound}; ruling out 1% takes 300 crashes"))
        }
        _ => None,
    }
}

/// What the main process hands a crash test's config process.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct ConfigTask {
    configs: Vec<EngineConfig>,
    options: Options,
    output_dir: PathBuf,
}

const TASK_FILE: &str = ".rumbench-crashtest-task.json";

fn new_config_result(c: &EngineConfig, status: Status, why: &str) -> CrashConfig {
    CrashConfig {
        name: c.name.clone(),
        engine: c.engine.clone(),
        options: c.options.clone(),
        server_config: crate::backend::is_server(&c.engine).then(|| c.applied_server_config()),
        provenance: Vec::new(),
        effective_options: Vec::new(),
        status,
        error: Some(why.to_string()),
        crash_records: Vec::new(),
        totals: totals(&[], 1),
    }
}

/// Config `i`'s slot in the run's results: replaced, or added.
fn put_config(run: &mut RunResult, i: usize, c: CrashConfig) {
    let configs = &mut run.crashtest.as_mut().expect("a crash test's result").configs;
    match configs.get_mut(i) {
        Some(slot) => *slot = c,
        None => configs.push(c),
    }
}

/// Every config, one after the other, each in a process of its own that
/// holds the lazy filesystem (and a server's processes) and writes the
/// results after each crash: a stop, a failure, or this process killed
/// outright (the config process then stops as on SIGTERM, unmounts and
/// records it) leaves every crash measured so far on disk.
pub fn execute(
    configs: &[EngineConfig],
    o: &Options,
    output_dir: &Path,
    replace: bool,
    command_line: Vec<String>,
) -> Result<RunResult> {
    let _lock = dirs::prepare_output_dir(output_dir, replace)?;
    if !o.work_root.exists() {
        std::fs::create_dir_all(&o.work_root).with_context(|| format!("cannot create {}", o.work_root.display()))?;
        let _ = std::fs::write(o.work_root.join(dirs::MARKER), "made by rumbench; created=true\n");
    }
    let system = crate::measure::os::sysinfo::SystemInfo::capture(&crate::build_info::THIS, None);
    let mut run = RunResult::starting(
        &crate::build_info::THIS,
        command_line,
        None,
        Default::default(),
        serde_json::to_value(&system).ok(),
        vec![format!("crash test: {}", crate::result::crashtest::NOT_A_BENCHMARK)],
    );
    run.crashtest = Some(CrashTest {
        crashes: o.crashes,
        threads: o.threads,
        value_size: o.value_size,
        kill_after_ms: o.kill_after_ms,
        seed: o.seed,
        fs_semantics: o.semantics.name().into(),
        filesystem: crate::lazyfs::describe(o.semantics),
        configs: Vec::new(),
    });
    crate::report::write_all(&run, output_dir)?;
    let task_path = output_dir.join(TASK_FILE);
    std::fs::write(
        &task_path,
        serde_json::to_vec(&ConfigTask {
            configs: configs.to_vec(),
            options: o.clone(),
            output_dir: output_dir.to_path_buf(),
        })?,
    )?;
    let exe = std::env::current_exe().context("finding rumbench's own executable")?;
    for (i, c) in configs.iter().enumerate() {
        if crate::driver::stop::stop_requested() {
            break;
        }
        let mut cmd = Command::new(&exe);
        cmd.arg("internal-crash-config").arg(&task_path).arg(i.to_string());
        let status = crate::runner::run_config_process(cmd);
        // The config process wrote the results after each crash: take them back.
        match crate::result::load(&output_dir.join("result.json")) {
            Ok(written) => run = written,
            Err(e) => errln!("{}: cannot read back its results: {e:#}", c.name),
        }
        let ended = match &status {
            Ok(st) => st.code().is_some_and(|code| code == 0 || code == 1 || code == 130),
            Err(_) => false,
        };
        let recorded =
            run.crashtest.as_ref().and_then(|t| t.configs.get(i)).is_some_and(|r| r.status != Status::Running);
        if !ended || !recorded {
            // Killed (the out-of-memory killer), crashed, or never started:
            // what it left (a dead mount, a server) is cleared from here.
            let why = match &status {
                Ok(st) => format!("the crash test's config process ended without recording its end ({st})"),
                Err(e) => format!("cannot run the crash test's config process: {e:#}"),
            };
            let mut r = run
                .crashtest
                .as_ref()
                .and_then(|t| t.configs.get(i))
                .cloned()
                .unwrap_or_else(|| new_config_result(c, Status::Failed, &why));
            r.status = if crate::driver::stop::stop_requested() { Status::Interrupted } else { Status::Failed };
            r.error = Some(why);
            r.totals = totals(&r.crash_records, o.threads);
            put_config(&mut run, i, r);
            let work = o.work_root.join(&c.name);
            if let Some(note) = crate::lazyfs::release_stale_mount(&work.join("mnt")) {
                errln!("{}: {note}", c.name);
            }
            for note in crate::server::stop_leftover_servers(&c.engine, &work, true) {
                errln!("{}: {note}", c.name);
            }
            if !o.keep {
                dirs::remove_owned(&work);
            }
        }
        if let Some(r) = run.crashtest.as_ref().and_then(|t| t.configs.get(i)) {
            if let Some(e) = &r.error {
                errln!("{}: {e}", c.name);
            }
            outln!("{}: {}", c.name, r.totals.verdict);
        }
        crate::report::write_all(&run, output_dir)?;
    }
    let _ = std::fs::remove_file(&task_path);
    finish(&mut run, configs, o, output_dir, None)?;
    Ok(run)
}

/// The end of a crash test, whoever ends it (the main process, or a config
/// process whose main process died): configs not run, the work root, the status.
fn finish(
    run: &mut RunResult,
    configs: &[EngineConfig],
    o: &Options,
    output_dir: &Path,
    why: Option<&str>,
) -> Result<()> {
    let done = run.crashtest.as_ref().map(|t| t.configs.len()).unwrap_or(0);
    for (i, c) in configs.iter().enumerate().skip(done) {
        let not_run = format!("not run: the crash test was {}", crate::driver::stop::interrupted_text());
        put_config(run, i, new_config_result(c, Status::NotRun, why.unwrap_or(&not_run)));
    }
    if !o.keep && !dirs::has_content(&o.work_root) {
        // Only when rumbench made it (it carries the marker).
        dirs::remove_owned(&o.work_root);
    }
    let failed: Vec<String> = run
        .crashtest
        .iter()
        .flat_map(|t| &t.configs)
        .filter(|c| c.status == Status::Failed)
        .map(|c| format!("{}: {}", c.name, c.error.as_deref().unwrap_or("failed")))
        .collect();
    (run.status, run.error) = if crate::driver::stop::stop_requested() {
        (Status::Interrupted, Some(why.map(String::from).unwrap_or_else(crate::driver::stop::interrupted_text)))
    } else if !failed.is_empty() {
        (Status::Failed, Some(failed.join("; ")))
    } else {
        (Status::Completed, None)
    };
    run.finished_at = Some(crate::result::now_text());
    crate::report::write_all(run, output_dir)
}

/// `rumbench internal-crash-config TASK INDEX`: config `index` of the
/// crash test, its results written after each crash. Exit code: 0
/// completed, 1 failed, 130 interrupted.
pub fn run_config_process(task_path: &Path, index: usize) -> std::process::ExitCode {
    let parent = crate::sys::ParentWatch::now();
    let outcome = (|| -> Result<Status> {
        let task: ConfigTask = serde_json::from_slice(&std::fs::read(task_path)?)?;
        let config = task.configs.get(index).with_context(|| format!("no config {index} in the task"))?;
        let results = task.output_dir.join("result.json");
        let mut run = crate::result::load(&results)?;
        let mut write = |r: &CrashConfig| {
            put_config(&mut run, index, r.clone());
            if let Err(e) = crate::report::write_all(&run, &task.output_dir) {
                errln!("{}: cannot write the results: {e:#}", config.name);
            }
        };
        write(&new_config_result(config, Status::Running, "running"));
        let r = run_config(config, &task.options, index, &mut write);
        let status = r.status;
        write(&r);
        if parent.died() {
            // The main process died (PR_SET_PDEATHSIG stopped us): nobody else ends the crash test.
            crate::driver::stop::request_stop(libc::SIGTERM);
            let mut run = crate::result::load(&results)?;
            finish(
                &mut run,
                &task.configs,
                &task.options,
                &task.output_dir,
                Some("interrupted: the main rumbench process died"),
            )?;
            let _ = std::fs::remove_file(task_path);
        }
        Ok(status)
    })();
    match outcome {
        Ok(Status::Completed) | Ok(Status::Running) => std::process::ExitCode::SUCCESS,
        Ok(Status::Interrupted) => std::process::ExitCode::from(130),
        Ok(_) => std::process::ExitCode::from(1),
        Err(e) => {
            errln!("rumbench: error: {}", format!("{e:#}").replace('\n', " "));
            std::process::ExitCode::from(1)
        }
    }
}

/// Refuse, before anything starts, a work dir that holds someone else's files.
pub fn preflight(configs: &[EngineConfig], o: &Options) -> Result<()> {
    crate::lazyfs::check_available()?;
    for c in configs {
        if let Some(kind) = crate::server::kind_of(&c.engine) {
            crate::server::check_installed(kind)?;
        }
        let dir = o.work_root.join(&c.name);
        if dirs::state(&dir)? == dirs::DirState::Foreign {
            return Err(dirs::foreign_error(&dir, "crash test work dir", "move it away or choose another --db-dir"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(acked: u64, lost: u64, syncs: u64, dropped: u64) -> CrashRecord {
        CrashRecord {
            crash: 1,
            acknowledged: acked,
            lost,
            file_syncs: syncs,
            unsynced_bytes_dropped: dropped,
            recovered: true,
            recovery_s: Some(0.1),
            ..Default::default()
        }
    }

    #[test]
    fn losses_are_judged_against_every_ack_and_counted_once() {
        let (mut k, mut v, mut s) = (Vec::new(), Vec::new(), Vec::new());
        let mut found = Found::default();
        // Writer (1,0) acked 0..5; 0, 1, 3 survive, and 5 (in flight); 7 was never written.
        for seq in [0, 1, 3, 5, 7] {
            records::key(1, 0, seq, &mut k);
            records::value(&k, 40, &mut v);
            found.add(&k, &v, &mut s, 40);
        }
        let acked = BTreeMap::from([((1, 0), 5), ((1, 1), 2)]);
        let mut lost_before = HashSet::new();
        let mut rec = CrashRecord::default();
        judge(&found, &acked, &mut lost_before, &mut rec);
        // Lost: (1,0) 2 and 4, (1,1) 0 and 1.
        assert_eq!((rec.lost, rec.in_flight_present, rec.never_written), (4, 1, 1));
        let mut again = CrashRecord::default();
        judge(&found, &acked, &mut lost_before, &mut again);
        assert_eq!(again.lost, 0, "a loss is counted in the crash that lost it");
    }

    #[test]
    fn verdicts_and_contradictions() {
        let durable = totals(&[record(1000, 0, 1000, 0), record(1000, 0, 1000, 0)], 1);
        assert_eq!(durable.verdict, "durable as run: 0 of 2,000 acknowledged commits lost in 2 crashes");
        assert_eq!(durable.contradiction, None);
        let lying = totals(&[record(1000, 300, 1000, 0)], 1);
        assert_eq!(lying.verdict, "not durable: lost 300 of 1,000 acknowledged commits in 1 crash");
        assert!(lying.contradiction.unwrap().contains("not ND) yet lost 300"));
        let nd_lossy = totals(&[record(1000, 900, 0, 4096)], 1);
        assert_eq!(nd_lossy.contradiction, None, "ND and lost: as the mark says");
        let nd_lucky = totals(&[record(1000, 0, 2, 0), record(1000, 0, 2, 0)], 2);
        let c = nd_lucky.contradiction.unwrap();
        assert!(c.contains("missed the window") && c.contains("2 crashes bound nothing"), "{c}");
        // Two threads: one sync covers a commit of each (group commit).
        assert_eq!(totals(&[record(1000, 0, 500, 0)], 2).synced_per_commit, Some(true));
        let mut broken = record(10, 0, 10, 0);
        broken.recovered = false;
        broken.recovery_s = None;
        assert!(totals(&[broken], 1).verdict.starts_with("unrecoverable"));
        assert_eq!(
            totals(&[], 2).verdict,
            "not tested: no crash was completed",
            "a config that stopped before its first crash claims nothing"
        );
        let nothing = totals(&[record(0, 0, 0, 0), record(0, 0, 0, 0)], 1);
        assert_eq!(
            nothing.verdict, "not tested: no commit was acknowledged in 2 crashes, so none could be lost",
            "0 of 0 proves nothing"
        );
        assert_eq!(nothing.contradiction, None);
    }
}
