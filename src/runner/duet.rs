//! Duets (`--duet`): the two configs of a pair run at the same time, each
//! config process pinned to its own half of the CPUs, so that whatever else
//! the machine does hits both alike (Bulej et al., "Duet Benchmarking",
//! ICPE 2020). Each step's clients are released together: the config
//! processes meet at a barrier the main process keeps (`Coordinator`) over
//! a socket each, before every release of clients. A side whose partner has
//! already ended the step (or its config) is released alone, and its step
//! records how much of it ran beside the partner's (`StepDuet`).
//!
//! Each side writes its results into a directory of its own under the run
//! directory (`.duet-<instance>`); the main process takes each side's
//! config back from there when both have ended, as it takes a lone
//! config's from the run directory. When one side fails, is killed or is
//! stopped, the other is stopped too: a duet half-run is no duet.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::UnixStream;
use std::process::{Child, ExitStatus};
use std::sync::Mutex;
use std::time::Duration;

use super::*;
use crate::result::repeats::{DuetRun, DuetSide, StepDuet};

/// The environment variable that hands a config process its end of the barrier's socket.
const FD_ENV: &str = "RUMBENCH_DUET_FD";
/// How long after the barrier both sides' clients are released: time for
/// the main process's two answers to reach both.
const RELEASE_AFTER_S: f64 = 0.005;
/// A step that ran beside its partner for less than this share is warned about.
const LOW_OVERLAP: f64 = 0.9;

/// The CPUs this process may run on, in order.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity
    // writes at most its size, and CPU_ISSET reads within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

/// The run's halves of the CPUs for a duet's sides.
pub(crate) fn split(placement: crate::plan::repeats::Placement) -> Result<DuetRun> {
    let cpus = allowed_cpus();
    if cpus.len() < 2 {
        bail!(
            "--duet pins each side to its own CPUs, and this process may run on {} CPU{}: a duet needs two or more",
            cpus.len(),
            if cpus.len() == 1 { "" } else { "s" }
        );
    }
    let halves = [repeats_half(&cpus, 0), repeats_half(&cpus, 1)];
    Ok(DuetRun { placement, cpus, halves })
}

use crate::plan::repeats::half_of as repeats_half;

/// What is unfair about running this plan's configs as duets, as warnings
/// (nothing that makes them wrong: that is refused by the planner and `check`).
pub(crate) fn warnings(plan: &RunPlan, split: &DuetRun) -> Vec<String> {
    let mut out = Vec::new();
    if plan.settings.mode == Mode::IoBound || plan.steps.iter().any(|s| s.settings.mode == Mode::IoBound) {
        out.push("--duet with io-bound steps: both sides read from the one device of the data dirs at once, so each side's rate is its share of the device, not what it would do alone".into());
    }
    if plan.configs.iter().any(|c| c.options.get("sync").is_some_and(|v| v == "true")) {
        out.push("--duet with sync writes: both sides sync to the one device of the data dirs at once, so each side's commit rate is its share of the device".into());
    }
    // Shared, the two sides divide one half between them.
    let per_side = match split.placement {
        crate::plan::repeats::Placement::Split => split.halves[0].len(),
        crate::plan::repeats::Placement::Shared => split.halves[0].len().div_ceil(2),
    };
    // One CPU a side: whatever else runs lands on one side, and the next
    // round on the other (bench/results/duet_power-20261207-0950.md: with an
    // IO writer beside it, a split duet on 2 CPUs called a +10% cost in 0 of
    // 10 trials, a shared one in 10 of 10).
    if split.placement == crate::plan::repeats::Placement::Split && per_side < 2 {
        out.push(format!(
            "--duet split {} CPU{} into one a side: another process's work lands on one side at a time, so its ratios swing with it; --duet=shared (both sides on the same CPUs) holds under such load (docs/report.md, \"Duets\")",
            split.cpus.len(),
            if split.cpus.len() == 1 { "" } else { "s" }
        ));
    }
    if let Some(s) = plan.steps.iter().find(|s| s.settings.threads > per_side) {
        out.push(format!(
            "--duet: step {} runs {} client threads on each side's {per_side} CPU{}: each side is CPU-bound by its share, not by the engine",
            s.name(),
            s.settings.threads,
            if per_side == 1 { "" } else { "s" }
        ));
    }
    out
}

/// Refuse what a duet cannot do fairly or at all, before anything starts.
pub(crate) fn check(plan: &RunPlan, opts: &RunOptions) -> Result<()> {
    split(plan.duet.unwrap_or_default())?;
    if opts.profile_dir.is_some() {
        bail!("--duet with --profile: perf records one config process at a time; profile a run without --duet");
    }
    if opts.schedule.is_some() || plan.settings.shard.is_some() {
        bail!("--duet with --shard or --start-at: a duet's sides are released by each other, not by the clock");
    }
    if opts.use_existing_db {
        bail!("--duet with --use-existing-db: the base config would open its data dir beside itself in the next duet's turn; copy the database for each config instead");
    }
    Ok(())
}

// ---------------------------------------------------------------------
// The config process's side.

struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    /// The step's position in the run order, and its releases so far.
    position: usize,
    calls: u32,
}

static CLIENT: Mutex<Option<Client>> = Mutex::new(None);

/// In a config process: join the duet whose socket the main process handed
/// over, if any. Every step's clients then wait at its barrier.
pub(crate) fn join_from_env() -> Result<()> {
    let Ok(fd) = std::env::var(FD_ENV) else { return Ok(()) };
    let fd: i32 = fd.parse().with_context(|| format!("{FD_ENV}={fd}: not a file descriptor"))?;
    // SAFETY: the main process left this descriptor open for this process
    // alone (its other copies close on exec), and nothing else here owns it.
    let stream = unsafe { <UnixStream as std::os::unix::io::FromRawFd>::from_raw_fd(fd) };
    // A read that waits gives way to a stop every 100 ms.
    stream.set_read_timeout(Some(Duration::from_millis(100)))?;
    let reader = BufReader::new(stream.try_clone()?);
    *CLIENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(Client { reader, writer: stream, position: 0, calls: 0 });
    crate::driver::set_release_gate(gate);
    Ok(())
}

/// A step at `position` of the run order begins.
pub(crate) fn begin_step(position: usize) {
    if let Some(c) = CLIENT.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        c.position = position;
        c.calls = 0;
    }
}

/// The step at `position` ended: a partner waiting for it goes alone.
pub(crate) fn end_step(position: usize) {
    if let Some(c) = CLIENT.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let _ = writeln!(c.writer, "done {position}");
    }
}

/// The driver's gate: tell the main process these clients are ready and
/// wait for its answer, the moment to release them at. A stop, or a main
/// process gone, releases them at once.
fn gate() -> Option<f64> {
    let mut guard = CLIENT.lock().unwrap_or_else(|e| e.into_inner());
    let c = guard.as_mut()?;
    let key = format!("ready {} {}", c.position, c.calls);
    c.calls += 1;
    writeln!(c.writer, "{key}").ok()?;
    let mut line = String::new();
    loop {
        match c.reader.read_line(&mut line) {
            Ok(0) => return None,
            Ok(_) if line.ends_with('\n') => break,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                if crate::driver::stop::stop_requested() {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
    line.trim().strip_prefix("go ")?.split_whitespace().next()?.parse().ok()
}

// ---------------------------------------------------------------------
// The main process's side.

/// A barrier key: the step's position in the run order and which release
/// of clients within it (an SLO search releases one per probe).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    position: usize,
    call: u32,
}

/// The barrier of one duet: which side waits for what, and what each has done.
#[derive(Debug, Default)]
struct Coordinator {
    waiting: [Option<Key>; 2],
    /// The last step position each side ended.
    done: [Option<usize>; 2],
    ended: [bool; 2],
    /// Per side, the step positions whose clients were released alone.
    alone: [Vec<usize>; 2],
}

/// A side to release: together with the other, or alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Release {
    side: usize,
    alone: bool,
}

impl Coordinator {
    fn ready(&mut self, side: usize, key: Key) -> Vec<Release> {
        self.waiting[side] = Some(key);
        self.settle()
    }

    fn done(&mut self, side: usize, position: usize) -> Vec<Release> {
        self.done[side] = Some(position);
        self.settle()
    }

    fn ended(&mut self, side: usize) -> Vec<Release> {
        self.ended[side] = true;
        self.waiting[side] = None;
        self.settle()
    }

    /// Release both sides when they wait for the same key; a side alone
    /// when its partner will never ask for its key (it ended, ended that
    /// step, or waits for a later one).
    fn settle(&mut self) -> Vec<Release> {
        if let [Some(a), Some(b)] = self.waiting {
            if a == b {
                self.waiting = [None, None];
                return vec![Release { side: 0, alone: false }, Release { side: 1, alone: false }];
            }
        }
        let mut out = Vec::new();
        for side in 0..2 {
            let Some(key) = self.waiting[side] else { continue };
            let other = 1 - side;
            let never = self.ended[other]
                || self.done[other].is_some_and(|d| d >= key.position)
                || self.waiting[other].is_some_and(|k| k > key);
            if never {
                self.waiting[side] = None;
                if !self.alone[side].contains(&key.position) {
                    self.alone[side].push(key.position);
                }
                out.push(Release { side, alone: true });
            }
        }
        out
    }
}

enum Event {
    Line(usize, String),
    Closed(usize),
}

/// How a duet's two config processes ended.
pub(crate) struct PairEnd {
    /// Each side's exit status, or why it could not be run.
    pub status: [Result<ExitStatus, String>; 2],
    /// A side the main process stopped because its partner ended early.
    pub stopped_for_partner: [bool; 2],
    /// Per side, the step positions released alone.
    pub alone: [Vec<usize>; 2],
    /// A side the main process ended (`watchdog`), and why.
    pub killed: [Option<super::watchdog::Kill>; 2],
}

/// Run a duet: start both config processes (`cmds`, each pinned to `cpus`),
/// keep their barrier until both end, stopping one when the other ends
/// without completing, and ending one its watchdog says must end.
pub(crate) fn run_pair(
    cmds: [std::process::Command; 2],
    cpus: [Vec<usize>; 2],
    mut watches: [Option<super::watchdog::Watchdog>; 2],
) -> PairEnd {
    let mut end = PairEnd {
        status: [Err("not started".into()), Err("not started".into())],
        stopped_for_partner: [false, false],
        alone: [Vec::new(), Vec::new()],
        killed: [None, None],
    };
    let (tx, rx) = std::sync::mpsc::channel::<Event>();
    let mut children: [Option<Child>; 2] = [None, None];
    let mut writers: [Option<UnixStream>; 2] = [None, None];
    for (side, (mut cmd, cpus)) in cmds.into_iter().zip(cpus).enumerate() {
        let started = (|| -> Result<(Child, UnixStream)> {
            let (ours, theirs) = UnixStream::pair().context("cannot make the duet's socket")?;
            let fd = theirs.as_raw_fd();
            cmd.env(FD_ENV, fd.to_string());
            let child = spawn_config_process(cmd, Some(fd), &cpus)?;
            drop(theirs);
            Ok((child, ours))
        })();
        match started {
            Ok((child, ours)) => {
                CHILD_PIDS[side].store(child.id() as i32, std::sync::atomic::Ordering::SeqCst);
                let reader = ours.try_clone().map(BufReader::new);
                let tx = tx.clone();
                std::thread::spawn(move || {
                    if let Ok(reader) = reader {
                        for line in reader.lines().map_while(|l| l.ok()) {
                            if tx.send(Event::Line(side, line)).is_err() {
                                return;
                            }
                        }
                    }
                    let _ = tx.send(Event::Closed(side));
                });
                children[side] = Some(child);
                writers[side] = Some(ours);
            }
            Err(e) => end.status[side] = Err(format!("{e:#}")),
        }
    }
    drop(tx);
    if let Some(sig) = crate::driver::stop::stop_signal() {
        forward_signal(sig);
    }
    let mut barrier = Coordinator::default();
    for (side, child) in children.iter().enumerate() {
        if child.is_none() {
            barrier.ended(side);
        }
    }
    let answer = |writers: &mut [Option<UnixStream>; 2], releases: Vec<Release>| {
        let at = crate::driver::unix_now() + RELEASE_AFTER_S;
        for r in releases {
            if let Some(w) = writers[r.side].as_mut() {
                let when = if r.alone { crate::driver::unix_now() } else { at };
                let _ = writeln!(w, "go {when:.6}{}", if r.alone { " alone" } else { "" });
            }
        }
    };
    // A stop a side's end asks of the other: once.
    let mut stop_sent = [false, false];
    while children.iter().any(Option::is_some) {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Event::Line(side, line)) => {
                let mut words = line.split_whitespace();
                let releases = match (words.next(), words.next().and_then(|p| p.parse().ok())) {
                    (Some("ready"), Some(position)) => {
                        let call = words.next().and_then(|c| c.parse().ok()).unwrap_or(0);
                        barrier.ready(side, Key { position, call })
                    }
                    (Some("done"), Some(position)) => barrier.done(side, position),
                    _ => Vec::new(),
                };
                answer(&mut writers, releases);
            }
            Ok(Event::Closed(side)) => {
                let releases = barrier.ended(side);
                answer(&mut writers, releases);
            }
            Err(_) => {}
        }
        for side in 0..2 {
            let Some(child) = children[side].as_mut() else { continue };
            if let Some(kill) =
                watches[side].as_mut().filter(|_| end.killed[side].is_none()).and_then(super::watchdog::Watchdog::check)
            {
                super::watchdog::kill(child);
                end.killed[side] = Some(kill);
            }
            let Ok(Some(status)) = child.try_wait() else { continue };
            children[side] = None;
            CHILD_PIDS[side].store(0, std::sync::atomic::Ordering::SeqCst);
            let releases = barrier.ended(side);
            answer(&mut writers, releases);
            let other = 1 - side;
            // Ended without completing its config: the partner stops too.
            if status.code() != Some(0) && !stop_sent[other] {
                if let Some(o) = children[other].as_ref() {
                    stop_sent[other] = true;
                    end.stopped_for_partner[other] = true;
                    // SAFETY: signalling a child of ours, which has not been reaped.
                    unsafe { libc::kill(o.id() as i32, libc::SIGTERM) };
                }
            }
            end.status[side] = Ok(status);
        }
    }
    end.alone = barrier.alone;
    end
}

/// Each side's steps: how much of each ran beside the partner's same step
/// (both sides' results, their steps in run order), and a warning where
/// it was little.
pub(crate) fn note_overlap(run: &mut RunResult, sides: [usize; 2], alone: &[Vec<usize>; 2]) {
    let window = |s: &StepResult| Some((s.start?.unix_s, s.start?.unix_s + s.wall_s?));
    for (k, (side, other)) in [(sides[0], sides[1]), (sides[1], sides[0])].into_iter().enumerate() {
        let (Some(a), Some(b)) = (run.configs.get(side), run.configs.get(other)) else { continue };
        let partner = b.instance_name();
        let shares: Vec<Option<f64>> = a
            .steps
            .iter()
            .enumerate()
            .map(|(position, s)| {
                let (a0, a1) = window(s)?;
                let overlap = match b.steps.get(position).and_then(window) {
                    Some((b0, b1)) => (a1.min(b1) - a0.max(b0)).max(0.0),
                    None => 0.0,
                };
                Some(if a1 > a0 { (overlap / (a1 - a0)).clamp(0.0, 1.0) } else { 1.0 })
            })
            .collect();
        let c = &mut run.configs[side];
        for (position, (s, share)) in c.steps.iter_mut().zip(shares).enumerate() {
            let Some(overlap) = share else { continue };
            let released_alone = alone[k].contains(&position);
            s.duet = Some(StepDuet { overlap: (overlap * 1000.0).round() / 1000.0, alone: released_alone });
            if overlap < LOW_OVERLAP && s.status == Status::Completed {
                s.warnings.push(format!(
                    "duet: ran beside {partner}'s same step for {:.0}% of its timed work{}: the rest ran alone, on a machine its partner no longer shared",
                    overlap * 100.0,
                    if released_alone { " (released alone: its partner had ended the step)" } else { "" }
                ));
            }
        }
    }
}

/// The record of one side of a duet.
pub(crate) fn side_record(config: &EngineConfig, split: &DuetRun) -> Option<DuetSide> {
    let slot = config.duet.as_ref()?;
    Some(DuetSide {
        round: slot.round,
        partner: slot.partner.clone(),
        cpus: split.halves[slot.half as usize & 1].clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(position: usize, call: u32) -> Key {
        Key { position, call }
    }

    const BOTH: [Release; 2] = [Release { side: 0, alone: false }, Release { side: 1, alone: false }];

    #[test]
    fn both_sides_are_released_together_at_the_same_key() {
        let mut c = Coordinator::default();
        assert!(c.ready(0, key(0, 0)).is_empty(), "the first waits for the second");
        assert_eq!(c.ready(1, key(0, 0)), BOTH);
        // The next step: whichever comes first waits again.
        assert!(c.ready(1, key(1, 0)).is_empty());
        assert_eq!(c.ready(0, key(1, 0)), BOTH);
        // An SLO search's second probe of the step.
        assert!(c.ready(0, key(1, 1)).is_empty());
        assert_eq!(c.ready(1, key(1, 1)), BOTH);
        assert!(c.alone.iter().all(Vec::is_empty));
    }

    #[test]
    fn a_side_whose_partner_will_not_come_goes_alone() {
        // The partner ended the step without asking for this release (a probe more here).
        let mut c = Coordinator::default();
        c.ready(0, key(2, 0));
        c.ready(1, key(2, 0));
        assert!(c.ready(0, key(2, 1)).is_empty());
        assert_eq!(c.done(1, 2), [Release { side: 0, alone: true }]);
        // The partner waits for a later key: this one's key is behind it.
        let mut c = Coordinator::default();
        c.ready(1, key(4, 0));
        assert_eq!(c.ready(0, key(3, 0)), [Release { side: 0, alone: true }]);
        // The partner's process ended: every later step goes alone.
        let mut c = Coordinator::default();
        c.ready(0, key(0, 0));
        assert_eq!(c.ended(1), [Release { side: 0, alone: true }]);
        assert_eq!(c.ready(0, key(1, 0)), [Release { side: 0, alone: true }]);
        assert_eq!(c.alone[0], [0, 1]);
        assert!(c.alone[1].is_empty());
    }

    #[test]
    fn both_sides_are_stopped_when_one_fails() {
        // Two real processes: a "config" that fails at once, one that would run for a minute.
        let sh = |script: &str| {
            let mut c = std::process::Command::new("sh");
            c.arg("-c").arg(script);
            c
        };
        let began = std::time::Instant::now();
        let end = run_pair([sh("exit 1"), sh("sleep 60")], [vec![], vec![]], [None, None]);
        assert!(began.elapsed() < Duration::from_secs(10), "the partner was stopped");
        assert_eq!(end.status[0].as_ref().unwrap().code(), Some(1));
        let other = end.status[1].as_ref().unwrap();
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(other), Some(libc::SIGTERM));
        assert_eq!(end.stopped_for_partner, [false, true]);
        // A side that completes leaves its partner to finish.
        let end = run_pair([sh("exit 0"), sh("sleep 0.3; exit 0")], [vec![], vec![]], [None, None]);
        assert_eq!(end.stopped_for_partner, [false, false]);
        assert!(end.status.iter().all(|s| s.as_ref().unwrap().success()));
    }

    #[test]
    fn each_side_runs_on_its_cpus_and_meets_the_other_at_the_barrier() {
        let cpus = allowed_cpus();
        if cpus.len() < 2 {
            eprintln!("one CPU: nothing to pin apart");
            return;
        }
        let split = split(crate::plan::repeats::Placement::Split).unwrap();
        let t = tempfile::tempdir().unwrap();
        // Each side writes the CPUs it may run on (from /proc), then passes
        // the barrier once through its socket: ready, then the answer.
        let side = |n: usize| {
            // bash: dash takes no descriptor numbers past 9 in a redirection.
            let mut c = std::process::Command::new("bash");
            c.arg("-c").arg(format!(
                "grep Cpus_allowed_list /proc/self/status | cut -f2 > {dir}/{n}; echo 'ready 0 0' >&$RUMBENCH_DUET_FD; head -1 <&$RUMBENCH_DUET_FD | grep -q '^go ' || exit 9",
                dir = t.path().display()
            ));
            c
        };
        let end = run_pair([side(0), side(1)], split.halves.clone(), [None, None]);
        for s in &end.status {
            assert!(s.as_ref().unwrap().success(), "{s:?}");
        }
        assert!(end.alone.iter().all(Vec::is_empty), "released together");
        for (n, half) in split.halves.iter().enumerate() {
            let seen = std::fs::read_to_string(t.path().join(n.to_string())).unwrap();
            let list: Vec<usize> = seen
                .trim()
                .split(',')
                .flat_map(|r| match r.split_once('-') {
                    Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect::<Vec<usize>>(),
                    None => vec![r.parse().unwrap()],
                })
                .collect();
            assert_eq!(&list, half, "side {n}");
        }
    }

    #[test]
    fn overlap_is_the_share_of_a_step_beside_the_partner() {
        use crate::result::fixtures;
        let step = |start: f64, wall: f64| {
            let op = fixtures::op("get", 1000, 1.0, 0, 0, 0);
            let mut s = fixtures::step(crate::plan::steps::StepKind::ReadRandom, wall, vec![op]);
            s.start = Some(crate::result::StepStart { unix_s: start, scheduled_unix_s: None });
            s.wall_s = Some(wall);
            s
        };
        let mut run = fixtures::run(vec![
            fixtures::config("a", "null", vec![step(100.0, 4.0), step(110.0, 10.0)]),
            fixtures::config("b", "null", vec![step(100.0, 4.0), step(110.0, 2.0)]),
        ]);
        note_overlap(&mut run, [0, 1], &[vec![], vec![]]);
        let a = &run.configs[0].steps;
        assert_eq!(a[0].duet.unwrap().overlap, 1.0);
        assert!((a[1].duet.unwrap().overlap - 0.2).abs() < 1e-9);
        assert!(a[1].warnings.iter().any(|w| w.contains("for 20% of its timed work")), "{:?}", a[1].warnings);
        assert_eq!(run.configs[1].steps[1].duet.unwrap().overlap, 1.0);
    }
}
