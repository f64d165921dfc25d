//! CPU, IO and memory of a process or a process tree (/proc/PID/stat, io,
//! status), and busy CPU of the whole host (/proc/stat, /proc/uptime). Parsing is procfs's.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use anyhow::{anyhow, Context, Result};
use procfs::{FromBufRead, FromBufReadSI, FromRead};
use serde::Serialize;

use super::Roots;

fn ticks_to_us(ticks: u64, tps: u64) -> u64 {
    ticks.saturating_mul(1_000_000) / tps.max(1)
}

fn open(path: &Path) -> Result<File> {
    File::open(path).with_context(|| format!("opening {}", path.display()))
}

/// CPU, IO and memory of one process, or summed over a process tree.
///
/// Counters (CPU, IO) are cumulative since process start; use
/// [`ProcessCounters::since`] for a step's share. Memory fields are gauges.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProcessCounters {
    /// The processes summed (one for a single process).
    pub pids: Vec<i32>,
    /// User CPU of all threads, microseconds (10 ms resolution: USER_HZ ticks).
    pub cpu_user_us: u64,
    /// System CPU of all threads, microseconds.
    pub cpu_sys_us: u64,
    /// User+system CPU of children that exited and were waited for
    /// (cutime+cstime). For a server whose workers come and go (PostgreSQL
    /// backends), add this to `cpu_us()` so exited workers' CPU is not lost.
    pub reaped_children_cpu_us: u64,
    /// /proc/PID/io: bytes passed to read-like syscalls (page cache hits included).
    pub rchar: u64,
    /// /proc/PID/io: bytes passed to write-like syscalls.
    pub wchar: u64,
    pub syscr: u64,
    pub syscw: u64,
    /// /proc/PID/io: bytes this process caused to be fetched from storage.
    pub read_bytes: u64,
    /// /proc/PID/io: bytes this process caused to be sent to storage (at
    /// page dirtying time, so before writeback).
    pub write_bytes: u64,
    pub cancelled_write_bytes: u64,
    /// VmRSS (summed over the tree: shared pages count once per process).
    pub rss_bytes: u64,
    /// VmHWM: the kernel's peak RSS (summed over the tree, an upper bound).
    pub rss_hwm_bytes: u64,
    /// VmSize.
    pub vm_size_bytes: u64,
    /// VmPeak.
    pub vm_peak_bytes: u64,
    pub threads: u64,
    /// Context switches (voluntary + involuntary) of the threads alive at
    /// the read, from each `task/<tid>/status` (a thread that exited takes
    /// its count with it); None where no thread's status could be read.
    pub ctx_switches: Option<u64>,
    /// The threads (every process's) read for `ctx_switches`, sorted.
    #[serde(skip)]
    pub task_ids: Vec<i32>,
    /// In a [`ProcessCounters::since`]: the threads of the earlier read that
    /// were gone by this one (a server's connection thread, or its backend
    /// process, ended with its client's session): their switches went with
    /// them, so `ctx_switches` is then None, not a count missing theirs.
    #[serde(skip)]
    pub tasks_ended: u64,
    /// CPU of the threads alive at the read (each `task/<tid>/stat`),
    /// microseconds: the process's own CPU less this is what its ended
    /// threads used.
    #[serde(skip)]
    pub live_tasks_cpu_us: u64,
    /// In a [`ProcessCounters::since`]: CPU used between the reads by
    /// threads or processes gone by the later one, those that came and went
    /// between the reads included (a connection opened and closed within a
    /// step), microseconds; from ticks, so within a few ticks a thread.
    #[serde(skip)]
    pub ended_cpu_us: u64,
}

impl ProcessCounters {
    /// User + system CPU of the process(es) themselves, microseconds.
    pub fn cpu_us(&self) -> u64 {
        self.cpu_user_us + self.cpu_sys_us
    }

    /// This process.
    pub fn current() -> Result<ProcessCounters> {
        ProcessCounters::read_at(&Roots::live(), std::process::id() as i32)
    }

    /// Process `pid` on this system.
    pub fn of(pid: i32) -> Result<ProcessCounters> {
        ProcessCounters::read_at(&Roots::live(), pid)
    }

    /// `pid` and all its descendants on this system, summed.
    pub fn tree(pid: i32) -> Result<ProcessCounters> {
        ProcessCounters::tree_at(&Roots::live(), pid)
    }

    /// Reads `<proc>/<pid>/{stat,io,status}`.
    pub fn read_at(roots: &Roots, pid: i32) -> Result<ProcessCounters> {
        let dir = roots.proc.join(pid.to_string());
        let stat = procfs::process::Stat::from_read(open(&dir.join("stat"))?)
            .map_err(|e| anyhow!("{}/stat: {e}", dir.display()))?;
        let io = procfs::process::Io::from_buf_read(BufReader::new(open(&dir.join("io"))?))
            .map_err(|e| anyhow!("{}/io: {e}", dir.display()))?;
        let status = procfs::process::Status::from_buf_read(BufReader::new(open(&dir.join("status"))?))
            .map_err(|e| anyhow!("{}/status: {e}", dir.display()))?;
        let tps = roots.ticks_per_second;
        let kib = |v: Option<u64>| v.unwrap_or(0) * 1024;
        let (ctx_switches, task_ids, live_ticks) = task_switches(&dir);
        Ok(ProcessCounters {
            pids: vec![pid],
            cpu_user_us: ticks_to_us(stat.utime, tps),
            cpu_sys_us: ticks_to_us(stat.stime, tps),
            reaped_children_cpu_us: ticks_to_us((stat.cutime.max(0) + stat.cstime.max(0)) as u64, tps),
            rchar: io.rchar,
            wchar: io.wchar,
            syscr: io.syscr,
            syscw: io.syscw,
            read_bytes: io.read_bytes,
            write_bytes: io.write_bytes,
            cancelled_write_bytes: io.cancelled_write_bytes,
            rss_bytes: kib(status.vmrss),
            rss_hwm_bytes: kib(status.vmhwm),
            vm_size_bytes: kib(status.vmsize),
            vm_peak_bytes: kib(status.vmpeak),
            threads: stat.num_threads.max(0) as u64,
            ctx_switches,
            task_ids,
            tasks_ended: 0,
            live_tasks_cpu_us: ticks_to_us(live_ticks, tps),
            ended_cpu_us: 0,
        })
    }

    /// `pid` and its descendants under `roots.proc`, summed; `pid` itself
    /// must be readable.
    ///
    /// A child reaped while the tree is read leaves the listing and moves
    /// its CPU into its parent's reaped-children time: read after the parent
    /// and before the listing, its CPU is counted nowhere (a PostgreSQL
    /// backend whose client disconnected at the end of a step once made a
    /// step's server CPU 0.45 us/op instead of 24). So the tree is read
    /// again while any reaped-children time changed during the read.
    pub fn tree_at(roots: &Roots, pid: i32) -> Result<ProcessCounters> {
        ProcessCounters::tree_with(roots, pid, || {})
    }

    /// `tree_at`, calling `between` after the first read of `pid` (tests
    /// reap a child there).
    fn tree_with(roots: &Roots, pid: i32, mut between: impl FnMut()) -> Result<ProcessCounters> {
        const ATTEMPTS: usize = 5;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut sum = ProcessCounters::read_at(roots, pid)?;
            if attempt == 1 {
                between();
            }
            for p in descendants(&roots.proc, pid)? {
                // A process that exited but is not yet reaped (a zombie) may
                // have no io or status left: its CPU still counts.
                if let Some(c) =
                    ProcessCounters::read_at(roots, p).ok().or_else(|| ProcessCounters::cpu_only_at(roots, p).ok())
                {
                    sum = sum.plus(&c);
                }
            }
            let reaped_now: u64 = sum
                .pids
                .iter()
                .filter_map(|&p| ProcessCounters::cpu_only_at(roots, p).ok())
                .map(|c| c.reaped_children_cpu_us)
                .sum();
            if reaped_now == sum.reaped_children_cpu_us || attempt == ATTEMPTS {
                return Ok(sum);
            }
        }
    }

    /// Only the CPU times of `pid`, from `<proc>/<pid>/stat` (the rest 0).
    fn cpu_only_at(roots: &Roots, pid: i32) -> Result<ProcessCounters> {
        let dir = roots.proc.join(pid.to_string());
        let stat = procfs::process::Stat::from_read(open(&dir.join("stat"))?)
            .map_err(|e| anyhow!("{}/stat: {e}", dir.display()))?;
        let tps = roots.ticks_per_second;
        Ok(ProcessCounters {
            pids: vec![pid],
            cpu_user_us: ticks_to_us(stat.utime, tps),
            cpu_sys_us: ticks_to_us(stat.stime, tps),
            reaped_children_cpu_us: ticks_to_us((stat.cutime.max(0) + stat.cstime.max(0)) as u64, tps),
            rchar: 0,
            wchar: 0,
            syscr: 0,
            syscw: 0,
            read_bytes: 0,
            write_bytes: 0,
            cancelled_write_bytes: 0,
            rss_bytes: 0,
            rss_hwm_bytes: 0,
            vm_size_bytes: 0,
            vm_peak_bytes: 0,
            threads: stat.num_threads.max(0) as u64,
            ctx_switches: None,
            task_ids: Vec::new(),
            tasks_ended: 0,
            live_tasks_cpu_us: 0,
            ended_cpu_us: 0,
        })
    }

    /// Sum of two (pid lists concatenated).
    pub fn plus(&self, o: &ProcessCounters) -> ProcessCounters {
        let mut pids = self.pids.clone();
        pids.extend(&o.pids);
        ProcessCounters {
            pids,
            cpu_user_us: self.cpu_user_us + o.cpu_user_us,
            cpu_sys_us: self.cpu_sys_us + o.cpu_sys_us,
            reaped_children_cpu_us: self.reaped_children_cpu_us + o.reaped_children_cpu_us,
            rchar: self.rchar + o.rchar,
            wchar: self.wchar + o.wchar,
            syscr: self.syscr + o.syscr,
            syscw: self.syscw + o.syscw,
            read_bytes: self.read_bytes + o.read_bytes,
            write_bytes: self.write_bytes + o.write_bytes,
            cancelled_write_bytes: self.cancelled_write_bytes + o.cancelled_write_bytes,
            rss_bytes: self.rss_bytes + o.rss_bytes,
            rss_hwm_bytes: self.rss_hwm_bytes + o.rss_hwm_bytes,
            vm_size_bytes: self.vm_size_bytes + o.vm_size_bytes,
            vm_peak_bytes: self.vm_peak_bytes + o.vm_peak_bytes,
            threads: self.threads + o.threads,
            // A process whose threads could not be read adds nothing: the
            // tree's count is a lower bound, like its exited threads'.
            ctx_switches: match (self.ctx_switches, o.ctx_switches) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
            },
            task_ids: {
                let mut t = self.task_ids.clone();
                t.extend(&o.task_ids);
                t.sort_unstable();
                t
            },
            tasks_ended: self.tasks_ended + o.tasks_ended,
            live_tasks_cpu_us: self.live_tasks_cpu_us + o.live_tasks_cpu_us,
            ended_cpu_us: self.ended_cpu_us + o.ended_cpu_us,
        }
    }

    /// The counters' growth between `earlier` and `self`; memory gauges and
    /// pids are `self`'s. For a tree, a process that exited between the two
    /// reads takes its counts with it (saturating at 0).
    pub fn since(&self, earlier: &ProcessCounters) -> ProcessCounters {
        let ended = earlier.task_ids.iter().filter(|t| self.task_ids.binary_search(t).is_err()).count() as u64;
        // All CPU (live threads, ended ones, reaped children) less the live threads' growth.
        let all = |c: &ProcessCounters| (c.cpu_us() + c.reaped_children_cpu_us) as i64;
        let ended_cpu = (all(self) - all(earlier)) - (self.live_tasks_cpu_us as i64 - earlier.live_tasks_cpu_us as i64);
        ProcessCounters {
            pids: self.pids.clone(),
            cpu_user_us: self.cpu_user_us.saturating_sub(earlier.cpu_user_us),
            cpu_sys_us: self.cpu_sys_us.saturating_sub(earlier.cpu_sys_us),
            reaped_children_cpu_us: self.reaped_children_cpu_us.saturating_sub(earlier.reaped_children_cpu_us),
            rchar: self.rchar.saturating_sub(earlier.rchar),
            wchar: self.wchar.saturating_sub(earlier.wchar),
            syscr: self.syscr.saturating_sub(earlier.syscr),
            syscw: self.syscw.saturating_sub(earlier.syscw),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
            cancelled_write_bytes: self.cancelled_write_bytes.saturating_sub(earlier.cancelled_write_bytes),
            ctx_switches: match (self.ctx_switches, earlier.ctx_switches) {
                (Some(a), Some(b)) if ended == 0 => Some(a.saturating_sub(b)),
                _ => None,
            },
            tasks_ended: ended,
            ended_cpu_us: ended_cpu.max(0) as u64,
            ..self.clone()
        }
    }
}

/// The context switches of every thread of the process at `dir`
/// (`task/*/status`: voluntary_ctxt_switches + nonvoluntary_ctxt_switches),
/// the threads read, sorted, and their CPU (utime + stime of each
/// `task/<tid>/stat`), in ticks.
fn task_switches(dir: &Path) -> (Option<u64>, Vec<i32>, u64) {
    let mut total = None;
    let mut ids = Vec::new();
    let mut ticks = 0u64;
    let Ok(tasks) = std::fs::read_dir(dir.join("task")) else { return (None, ids, 0) };
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("status")) else { continue };
        // Fields after the command's closing parenthesis: state is the
        // first, utime the 12th and stime the 13th.
        if let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) {
            if let Some((_, rest)) = stat.rsplit_once(')') {
                let mut f = rest.split_whitespace().skip(11);
                let (u, s) =
                    (f.next().and_then(|v| v.parse::<u64>().ok()), f.next().and_then(|v| v.parse::<u64>().ok()));
                ticks += u.unwrap_or(0) + s.unwrap_or(0);
            }
        }
        if let Some(id) = task.file_name().to_str().and_then(|n| n.parse().ok()) {
            ids.push(id);
        }
        let mut n = 0u64;
        for line in text.lines() {
            if let Some(v) = line
                .strip_prefix("voluntary_ctxt_switches:")
                .or_else(|| line.strip_prefix("nonvoluntary_ctxt_switches:"))
            {
                n += v.trim().parse::<u64>().unwrap_or(0);
            }
        }
        total = Some(total.unwrap_or(0) + n);
    }
    ids.sort_unstable();
    (total, ids, ticks)
}

/// All descendants of `pid` (children, grandchildren, ...). Sorted.
///
/// Walks `<proc_root>/<pid>/task/<tid>/children` (Linux's
/// CONFIG_PROC_CHILDREN), so the cost grows with the tree rather than with
/// the number of processes on the host: the sampler does this every second
/// on rumbench's own CPU. Where those files are missing (other kernels,
/// fixture trees) it reads the ppid of every `<proc_root>/<n>/stat`.
pub fn descendants(proc_root: &Path, pid: i32) -> Result<Vec<i32>> {
    let has_children_files = proc_root.join(format!("{pid}/task/{pid}/children")).exists();
    let mut out = if has_children_files {
        descendants_by_children_files(proc_root, pid)
    } else {
        descendants_by_ppid_scan(proc_root, pid)?
    };
    out.sort_unstable();
    Ok(out)
}

fn descendants_by_children_files(proc_root: &Path, pid: i32) -> Vec<i32> {
    walk_tree(pid, |p| {
        // A child hangs off the thread that forked it: read every thread's list.
        // Processes and threads that exit meanwhile are skipped.
        let mut kids = Vec::new();
        let Ok(tasks) = std::fs::read_dir(proc_root.join(format!("{p}/task"))) else { return kids };
        for task in tasks.flatten() {
            if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                kids.extend(list.split_ascii_whitespace().filter_map(|c| c.parse::<i32>().ok()));
            }
        }
        kids
    })
}

fn descendants_by_ppid_scan(proc_root: &Path, pid: i32) -> Result<Vec<i32>> {
    let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    let rd = std::fs::read_dir(proc_root).with_context(|| format!("listing {}", proc_root.display()))?;
    for e in rd.flatten() {
        let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        // A process may exit between the listing and the read.
        let Ok(f) = File::open(e.path().join("stat")) else { continue };
        let Ok(stat) = procfs::process::Stat::from_read(f) else { continue };
        children.entry(stat.ppid).or_default().push(p);
    }
    Ok(walk_tree(pid, |p| children.get(&p).cloned().unwrap_or_default()))
}

/// Breadth-first from `pid` through `children_of`; each descendant once, `pid` never.
fn walk_tree(pid: i32, mut children_of: impl FnMut(i32) -> Vec<i32>) -> Vec<i32> {
    let mut out = Vec::new();
    let mut queue = VecDeque::from([pid]);
    while let Some(p) = queue.pop_front() {
        for c in children_of(p) {
            if c != pid && !out.contains(&c) {
                out.push(c);
                queue.push_back(c);
            }
        }
    }
    out
}

/// Whole-host CPU time, summed over all CPUs, in microseconds: the
/// aggregate `cpu` line of /proc/stat and the clock of /proc/uptime.
///
/// The host's busy time is not /proc/stat's user + system + ...: those are
/// counted by the scheduler tick, and a tickless kernel ticks only while a
/// CPU stays busy, so short bursts between idle periods go largely
/// uncounted. A client and a server trading one request at a time are
/// exactly that: in an 8-second ycsb-c on PostgreSQL here the ticks counted
/// 5.2 CPU-seconds where the processes used 7.0 and the CPUs were idle for
/// all but 8.2. Idle and iowait time are kept exactly (from idle entry and
/// exit), so busy is the CPUs' time less idle, iowait and steal
/// ([`HostCpu::since`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostCpu {
    /// /proc/uptime: CLOCK_BOOTTIME, 10 ms resolution.
    pub uptime_us: u64,
    /// user + nice + system + irq + softirq as the tick counted them (guest
    /// time is already inside user/nice): an undercount, see above.
    pub ticked_busy_us: u64,
    pub idle_us: u64,
    pub iowait_us: u64,
    /// Time a hypervisor ran something else while this host's CPUs had work.
    pub steal_us: u64,
    /// Number of per-CPU lines (online CPUs).
    pub cpus: usize,
}

/// What the host's CPUs did between two readings, microseconds summed over CPUs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostCpuUse {
    /// Wall-clock time between the readings (one CPU's).
    pub wall_us: u64,
    /// Neither idle, waiting for IO nor stolen: cpus x wall less idle,
    /// iowait and steal. The numerator of `host_cpu_us_op`. The tick's count when the
    /// number of CPUs changed in between.
    pub busy_us: u64,
    /// The tick's count of the same (an undercount on tickless kernels).
    pub ticked_busy_us: u64,
    pub idle_us: u64,
    pub iowait_us: u64,
    pub steal_us: u64,
    pub cpus: usize,
}

impl HostCpuUse {
    /// The share of the CPUs' time a hypervisor gave to others, percent.
    pub fn steal_pct(&self) -> Option<f64> {
        let capacity = self.wall_us * self.cpus as u64;
        (capacity > 0).then(|| 100.0 * self.steal_us as f64 / capacity as f64)
    }
}

impl HostCpu {
    /// This system's /proc/stat and /proc/uptime.
    pub fn read() -> Result<HostCpu> {
        HostCpu::read_at(&Roots::live())
    }

    /// `<proc>/stat` and `<proc>/uptime`.
    pub fn read_at(roots: &Roots) -> Result<HostCpu> {
        let path = roots.proc.join("stat");
        let info = procfs::ExplicitSystemInfo {
            boot_time_secs: 0,
            ticks_per_second: roots.ticks_per_second,
            page_size: roots.page_size,
            is_little_endian: cfg!(target_endian = "little"),
        };
        let ks = procfs::KernelStats::from_buf_read(BufReader::new(open(&path)?), &info)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let uptime_path = roots.proc.join("uptime");
        let uptime =
            std::fs::read_to_string(&uptime_path).with_context(|| format!("reading {}", uptime_path.display()))?;
        let uptime_s: f64 = uptime
            .split_whitespace()
            .next()
            .and_then(|v| v.parse().ok())
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| anyhow!("{}: no uptime in {uptime:?}", uptime_path.display()))?;
        let t = &ks.total;
        let tps = roots.ticks_per_second;
        let ticked_busy = t.user + t.nice + t.system + t.irq.unwrap_or(0) + t.softirq.unwrap_or(0);
        Ok(HostCpu {
            uptime_us: (uptime_s * 1e6).round() as u64,
            ticked_busy_us: ticks_to_us(ticked_busy, tps),
            idle_us: ticks_to_us(t.idle, tps),
            iowait_us: ticks_to_us(t.iowait.unwrap_or(0), tps),
            steal_us: ticks_to_us(t.steal.unwrap_or(0), tps),
            cpus: ks.cpu_time.len(),
        })
    }

    /// What the CPUs did between `earlier` and `self`.
    pub fn since(&self, earlier: &HostCpu) -> HostCpuUse {
        let wall_us = self.uptime_us.saturating_sub(earlier.uptime_us);
        let idle_us = self.idle_us.saturating_sub(earlier.idle_us);
        let iowait_us = self.iowait_us.saturating_sub(earlier.iowait_us);
        let steal_us = self.steal_us.saturating_sub(earlier.steal_us);
        let ticked_busy_us = self.ticked_busy_us.saturating_sub(earlier.ticked_busy_us);
        let busy_us = if self.cpus == earlier.cpus {
            (wall_us * self.cpus as u64).saturating_sub(idle_us + iowait_us + steal_us)
        } else {
            ticked_busy_us
        };
        HostCpuUse { wall_us, busy_us, ticked_busy_us, idle_us, iowait_us, steal_us, cpus: self.cpus }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::os::fixtures;

    fn roots() -> Roots {
        Roots::fixture(&fixtures())
    }

    #[test]
    fn one_process_from_samples() {
        let c = ProcessCounters::read_at(&roots(), 100).unwrap();
        assert_eq!(c.pids, [100]);
        assert_eq!(c.cpu_user_us, 12_500_000);
        assert_eq!(c.cpu_sys_us, 4_300_000);
        assert_eq!(c.cpu_us(), 16_800_000);
        assert_eq!(c.reaped_children_cpu_us, 111_000_000);
        assert_eq!((c.rchar, c.wchar, c.syscr, c.syscw), (5_120_300, 80_221_900, 1_203, 8_800));
        assert_eq!((c.read_bytes, c.write_bytes, c.cancelled_write_bytes), (4_096_000, 75_452_416, 12_288));
        assert_eq!(c.rss_bytes, 30_052 * 1024);
        assert_eq!(c.rss_hwm_bytes, 31_200 * 1024);
        assert_eq!(c.vm_size_bytes, 221_348 * 1024);
        assert_eq!(c.vm_peak_bytes, 221_500 * 1024);
    }

    #[test]
    fn comm_with_spaces_and_parens() {
        let c = ProcessCounters::read_at(&roots(), 102).unwrap();
        assert_eq!(c.cpu_user_us, 70_000_000);
        assert_eq!(c.read_bytes, 88_080_384);
    }

    #[test]
    fn tree_finds_descendants_and_sums() {
        let r = roots();
        assert_eq!(descendants(&r.proc, 100).unwrap(), [101, 102, 103]);
        assert_eq!(descendants(&r.proc, 101).unwrap(), [102]);
        assert!(descendants(&r.proc, 200).unwrap().is_empty());
        let t = ProcessCounters::tree_at(&r, 100).unwrap();
        assert_eq!(t.pids, [100, 101, 102, 103]);
        assert_eq!(t.cpu_user_us, (1250 + 310 + 7000 + 20) * 10_000);
        assert_eq!(t.write_bytes, 75_452_416 + 519_950_336 + 33_554_432);
        assert_eq!(t.rss_bytes, (30_052 + 140_200 + 150_100 + 12_000) * 1024);
        assert_eq!(t.threads, 4);
        // The fixture holds no task/<tid>/status: not measured, not 0.
        assert_eq!(t.ctx_switches, None);
    }

    #[test]
    fn the_switches_of_every_live_thread_are_counted() {
        // The other tests' threads come and go in this process: a read
        // between which one of them ended has no count (the test below);
        // tried again until none did.
        for _ in 0..50 {
            let before = ProcessCounters::current().unwrap();
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            let (slept_tx, slept_rx) = std::sync::mpsc::channel::<()>();
            // A thread that blocks 50 times (each a voluntary switch), then waits, alive, for the read.
            let t = std::thread::spawn(move || {
                for _ in 0..50 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                slept_tx.send(()).unwrap();
                done_rx.recv().unwrap();
            });
            slept_rx.recv().unwrap();
            let after = ProcessCounters::current().unwrap();
            done_tx.send(()).unwrap();
            t.join().unwrap();
            let d = after.since(&before);
            if d.tasks_ended > 0 {
                continue;
            }
            let grew = d.ctx_switches.expect("this process's threads are readable");
            assert!(grew >= 50, "{grew}");
            return;
        }
        panic!("another thread of this process ended between every pair of reads");
    }

    #[test]
    fn an_ended_thread_is_told_from_the_live_ones_by_its_id() {
        let read = |ids: &[i32], switches: u64| ProcessCounters {
            ctx_switches: Some(switches),
            task_ids: ids.to_vec(),
            ..ProcessCounters::default()
        };
        // 12 was there and is gone: its switches since are unknown, and so is the total.
        let d = read(&[10, 11, 13], 500).since(&read(&[10, 11, 12], 400));
        assert_eq!((d.ctx_switches, d.tasks_ended), (None, 1));
        // 13 is new: all of its switches are the interval's.
        let d = read(&[10, 11, 12, 13], 500).since(&read(&[10, 11, 12], 400));
        assert_eq!((d.ctx_switches, d.tasks_ended), (Some(100), 0));
        // The same threads, but 300 ms of CPU the live ones did not use: a
        // thread came and went between the reads.
        let mut later = read(&[10, 11, 12], 500);
        later.cpu_user_us = 900_000;
        later.live_tasks_cpu_us = 600_000;
        let mut first = read(&[10, 11, 12], 400);
        first.cpu_user_us = 100_000;
        first.live_tasks_cpu_us = 100_000;
        assert_eq!(later.since(&first).ended_cpu_us, 300_000);
        // A tree: the processes' threads together.
        let tree = read(&[10], 5).plus(&read(&[7, 8], 6));
        assert_eq!((tree.task_ids, tree.ctx_switches), (vec![7, 8, 10], Some(11)));
    }

    #[test]
    fn a_thread_that_ended_between_the_reads_leaves_the_switches_unknown() {
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            started_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            for _ in 0..20 {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        });
        started_rx.recv().unwrap();
        let before = ProcessCounters::current().unwrap();
        go_tx.send(()).unwrap();
        t.join().unwrap();
        let after = ProcessCounters::current().unwrap();
        let d = after.since(&before);
        // Its 20 sleeps went with it (and other tests' threads may have ended too).
        assert!(d.ctx_switches.is_none() && d.tasks_ended >= 1, "{:?} {}", d.ctx_switches, d.tasks_ended);
    }

    /// A copy of the fixture /proc to change under a reader.
    fn scratch_proc() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        let status =
            std::process::Command::new("cp").arg("-a").arg(fixtures().join("proc")).arg(dir.path()).status().unwrap();
        assert!(status.success());
        let roots = Roots::fixture(dir.path());
        (dir, roots)
    }

    /// Replace field `index` (1-based, as in proc(5)) of a stat file.
    fn set_stat_field(roots: &Roots, pid: i32, index: usize, value: u64) {
        let path = roots.proc.join(format!("{pid}/stat"));
        let text = std::fs::read_to_string(&path).unwrap();
        let close = text.rfind(')').unwrap();
        let mut rest: Vec<String> = text[close + 2..].split_whitespace().map(String::from).collect();
        // Fields after the comm start at index 3.
        rest[index - 3] = value.to_string();
        std::fs::write(&path, format!("{} {}\n", &text[..=close], rest.join(" "))).unwrap();
    }

    /// The parent is read, then its child exits and is reaped (the child's
    /// CPU moves into the parent's cutime): the first read counted it
    /// nowhere, so the tree is read again and the child's CPU is there.
    #[test]
    fn a_child_reaped_during_the_read_is_not_lost() {
        let (_dir, r) = scratch_proc();
        let before = tree_cpu(&ProcessCounters::tree_at(&r, 100).unwrap());
        let child = ProcessCounters::tree_at(&r, 103).unwrap();
        let parent = ProcessCounters::read_at(&r, 100).unwrap();
        let reaped = || {
            // The child's own CPU (20 + 5 ticks in the fixture, plus its reaped children) joins cutime.
            let ticks = (parent.reaped_children_cpu_us + child.cpu_us() + child.reaped_children_cpu_us) / 10_000;
            set_stat_field(&r, 100, 16, ticks);
            set_stat_field(&r, 100, 17, 0);
            std::fs::remove_dir_all(r.proc.join("103")).unwrap();
        };
        let after = ProcessCounters::tree_with(&r, 100, reaped).unwrap();
        assert!(!after.pids.contains(&103));
        assert_eq!(tree_cpu(&after), before, "the reaped child's CPU is in the parent's cutime, counted once");
    }

    fn tree_cpu(c: &ProcessCounters) -> u64 {
        c.cpu_us() + c.reaped_children_cpu_us
    }

    /// A zombie has its stat but no io or status: its CPU still counts.
    #[test]
    fn a_zombie_child_counts_its_cpu() {
        let (_dir, r) = scratch_proc();
        let whole = ProcessCounters::tree_at(&r, 100).unwrap();
        std::fs::remove_file(r.proc.join("103/io")).unwrap();
        std::fs::remove_file(r.proc.join("103/status")).unwrap();
        let t = ProcessCounters::tree_at(&r, 100).unwrap();
        assert_eq!(t.pids, [100, 101, 102, 103]);
        assert_eq!(t.cpu_us(), whole.cpu_us());
    }

    #[test]
    fn since_subtracts_counters_keeps_gauges() {
        let a = ProcessCounters::read_at(&roots(), 103).unwrap();
        let b = ProcessCounters::read_at(&roots(), 100).unwrap();
        let d = b.since(&a);
        assert_eq!(d.cpu_user_us, (1250 - 20) * 10_000);
        assert_eq!(d.rss_bytes, b.rss_bytes);
        // A counter that went backwards (exited process) saturates.
        assert_eq!(a.since(&b).write_bytes, 0);
    }

    #[test]
    fn host_cpu_from_sample() {
        let h = HostCpu::read_at(&roots()).unwrap();
        // user + nice + system + irq (0) + softirq
        let ticked = 84_420_311u64 + 10_312 + 12_003_401 + 301_223;
        assert_eq!(h.ticked_busy_us, ticked * 10_000);
        assert_eq!(h.idle_us, 903_442_187 * 10_000);
        assert_eq!(h.iowait_us, 1_212_034 * 10_000);
        assert_eq!(h.steal_us, 44_021 * 10_000);
        assert_eq!(h.uptime_us, 5_007_200_120_000);
        assert_eq!(h.cpus, 2);
    }

    fn host(uptime_s: u64, ticked_s: u64, idle_s: u64, iowait_s: u64, steal_s: u64, cpus: usize) -> HostCpu {
        let us = |s: u64| s * 1_000_000;
        HostCpu {
            uptime_us: us(uptime_s),
            ticked_busy_us: us(ticked_s),
            idle_us: us(idle_s),
            iowait_us: us(iowait_s),
            steal_us: us(steal_s),
            cpus,
        }
    }

    #[test]
    fn busy_is_the_cpus_time_less_idle_iowait_and_steal_not_the_ticks() {
        // 8 s on 2 CPUs: 7 s idle, 1 s iowait, 2 s stolen; the tick saw 5 s busy.
        let d = host(108, 105, 57, 11, 2, 2).since(&host(100, 100, 50, 10, 0, 2));
        assert_eq!(d.wall_us, 8_000_000);
        assert_eq!(d.busy_us, (16 - 7 - 1 - 2) * 1_000_000);
        assert_eq!(d.ticked_busy_us, 5_000_000);
        assert_eq!(d.steal_pct(), Some(12.5));
        // A CPU came online in between: cpus x wall means nothing, the tick's count stands.
        let d = host(108, 105, 57, 11, 2, 3).since(&host(100, 100, 50, 10, 0, 2));
        assert_eq!(d.busy_us, 5_000_000);
        // Counters cannot make busy negative.
        assert_eq!(host(101, 100, 60, 10, 0, 2).since(&host(100, 100, 50, 10, 0, 2)).busy_us, 0);
    }

    #[test]
    fn live_self_and_host() {
        let c = ProcessCounters::current().unwrap();
        assert!(c.rss_bytes > 0 && c.vm_size_bytes >= c.rss_bytes && c.rss_hwm_bytes >= c.rss_bytes);
        assert!(c.threads >= 1);
        let t = ProcessCounters::tree(std::process::id() as i32).unwrap();
        assert_eq!(t.pids[0], std::process::id() as i32);
        let h = HostCpu::read().unwrap();
        assert!(h.uptime_us > 0 && h.cpus >= 1);
    }

    #[test]
    fn live_tree_sees_children_and_grandchildren_both_ways() {
        // sh forks a sleep: a child and a grandchild of this (multi-threaded) process.
        let mut child = std::process::Command::new("sh").args(["-c", "sleep 5 & wait"]).spawn().unwrap();
        let (me, sh) = (std::process::id() as i32, child.id() as i32);
        let proc_root = Path::new("/proc");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        let mut under_sh = descendants(proc_root, sh).unwrap();
        while under_sh.is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
            under_sh = descendants(proc_root, sh).unwrap();
        }
        let under_sh_by_scan = descendants_by_ppid_scan(proc_root, sh).unwrap();
        let under_me = descendants(proc_root, me).unwrap();
        child.kill().ok();
        child.wait().ok();
        assert!(proc_root.join(format!("{me}/task/{me}/children")).exists(), "this kernel has no children files");
        assert_eq!(under_sh.len(), 1, "the sleep under sh: {under_sh:?}");
        assert_eq!(under_sh, under_sh_by_scan);
        assert!(under_me.contains(&sh) && under_me.contains(&under_sh[0]), "{under_me:?}");
    }
}
