//! The efficiency metrics of a step (docs/metrics.md), computed in one place:
//! storage IO, write- and space-amplification, CPU per operation, memory and
//! sync calls. A snapshot is taken before the step and another after it; the
//! difference, with the step's operation counts, gives every figure.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::os::device::{sync_filesystem, DataDirDevice};
use super::os::diskstats::{DiskCounters, IoFigures};
use super::os::process::{HostCpu, ProcessCounters};
use super::os::sampler::{SampleTargets, Sampler};
use super::os::space::allocated_bytes;
use super::os::syncs::{sync_calls, SyncCounts};
use super::os::Roots;

/// A metric that could not be measured, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Missing {
    /// The figure's name in result.json (a field of [`StepMetrics`]).
    #[serde(deserialize_with = "current_name")]
    pub metric: String,
    pub reason: String,
}

/// Figures renamed since, by their names in older results: one figure, one name.
const RENAMED: &[(&str, &str)] = &[("engine_cpu_us_op", "srv_cpu_us_op")];

fn current_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = String::deserialize(d)?;
    Ok(RENAMED.iter().find(|(old, _)| *old == name).map_or(name, |(_, new)| new.to_string()))
}

/// Storage IO of the data dir's device(s) over the step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IoMetrics {
    pub devices: Vec<String>,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// TRIM, never counted as writes; None when the kernel has no discard fields.
    pub bytes_discarded: Option<u64>,
    pub read_requests: u64,
    pub write_requests: u64,
    pub rpq: Option<f64>,
    pub rkbpq: Option<f64>,
    pub wkbpi: Option<f64>,
    pub reads_per_s: Option<f64>,
    pub writes_per_s: Option<f64>,
    pub read_mb_s: Option<f64>,
    pub write_mb_s: Option<f64>,
    pub discard_mb_s: Option<f64>,
}

/// Sync calls over the step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncMetrics {
    pub fsync: u64,
    pub fdatasync: u64,
    pub msync: u64,
    pub sync_file_range: u64,
    /// Commits: write calls (single puts/deletes or write batches), writer included.
    pub commits: u64,
    pub syncs_per_commit: Option<f64>,
    /// False when there were fewer syncs than commits / concurrent writers:
    /// then some acknowledged commits were not on storage yet.
    pub durable_as_run: Option<bool>,
    /// Server engines: the log syncs the server itself counted (the libc
    /// counts above are rumbench's own process, which does not sync), and
    /// the counter they come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_syncs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_counter: Option<String>,
    /// Not durable by how the writes were asked for, whatever the syncs (a
    /// MongoDB write concern without j): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_durable_reason: Option<String>,
}

impl SyncMetrics {
    /// Sync calls counted in this process over `commits` commits made by
    /// `writer_threads` concurrent writers.
    pub fn from_calls(calls: &SyncCounts, commits: u64, writer_threads: u64) -> SyncMetrics {
        let mut m = SyncMetrics {
            fsync: calls.fsync,
            fdatasync: calls.fdatasync,
            msync: calls.msync,
            sync_file_range: calls.sync_file_range,
            commits,
            ..SyncMetrics::default()
        };
        m.judge(calls.total(), writer_threads);
        m
    }

    /// Log syncs a server reported (`counter` names where they come from).
    /// A counter that `includes_data_files` syncs is an upper bound on the
    /// log's: it can prove commits were not synced, never that they were.
    pub fn from_server(
        syncs: u64,
        counter: String,
        includes_data_files: bool,
        commits: u64,
        writer_threads: u64,
    ) -> SyncMetrics {
        let mut m =
            SyncMetrics { commits, server_syncs: Some(syncs), server_counter: Some(counter), ..SyncMetrics::default() };
        m.judge(syncs, writer_threads);
        if includes_data_files && m.durable_as_run == Some(true) {
            m.durable_as_run = None;
        }
        m
    }

    fn judge(&mut self, syncs: u64, writer_threads: u64) {
        if self.commits == 0 {
            return;
        }
        self.syncs_per_commit = Some(syncs as f64 / self.commits as f64);
        // Group commit lets one sync cover up to one commit per concurrent writer.
        let needed = self.commits as f64 / writer_threads.max(1) as f64;
        self.durable_as_run = Some(syncs as f64 >= needed * 0.99);
    }

    /// The run's warning when the syncs show it was not durable.
    pub fn not_durable_warning(&self) -> Option<String> {
        if let Some(why) = self.durable_as_run.filter(|d| !d).and(self.not_durable_reason.as_ref()) {
            return Some(format!("not durable as run: {why}"));
        }
        (self.durable_as_run == Some(false)).then(|| {
            format!(
                "not durable as run: {} sync calls for {} commits ({:.4} per commit)",
                self.total(),
                self.commits,
                self.syncs_per_commit.unwrap_or(0.0)
            )
        })
    }

    /// Writes acknowledged without asking for durability (`why`): ND
    /// whatever the syncs counted (kept, when there are any).
    pub fn not_durable_as_asked(mut self, commits: u64, why: String) -> SyncMetrics {
        self.commits = commits;
        self.durable_as_run = Some(false);
        self.not_durable_reason = Some(why);
        self
    }

    /// All sync calls counted, whichever way.
    pub fn total(&self) -> u64 {
        self.server_syncs.unwrap_or(self.fsync + self.fdatasync + self.msync + self.sync_file_range)
    }
}

/// One memory sample: seconds since the step started, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryPoint {
    pub t_s: f64,
    pub rss_bytes: u64,
    pub vsz_bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    pub io: Option<IoMetrics>,
    /// storage bytes written / logical bytes the clients wrote.
    pub write_amp: Option<f64>,
    /// The same from /proc/self/io: write_bytes less cancelled_write_bytes,
    /// this process's writes only, immune to other processes' IO on the device.
    pub write_amp_process: Option<f64>,
    pub process_read_bytes: Option<u64>,
    /// write_bytes less cancelled_write_bytes over the step.
    pub process_write_bytes: Option<u64>,
    /// Bytes dirtied, then truncated or deleted before writeback (never written).
    #[serde(default)]
    pub process_cancelled_write_bytes: Option<u64>,
    /// Bytes the measured processes dirtied in earlier steps that the device
    /// wrote during this one: the kernel's writeback of their page cache
    /// (a flush that wrote into it, then a read step), theirs and not
    /// another process's. None when nothing was written back so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_writeback_bytes: Option<u64>,
    /// Dirty pages were written back (syncfs) before the end snapshot.
    pub dirty_pages_synced: bool,
    pub logical_bytes_written: u64,
    pub db_size_bytes: Option<u64>,
    pub live_keys: Option<u64>,
    pub logical_live_bytes: Option<u64>,
    pub space_amp: Option<f64>,
    /// rumbench's own process (for in-process engines, the engine's threads
    /// too) per operation, from its exact CPU clock (ticks of /proc when unavailable).
    pub client_cpu_us_op: Option<f64>,
    /// The threads that issued the step's operations (its clients and
    /// background writer; measure::thread_cpu) per operation: without the
    /// measurement's own threads. Against a server, rumbench's own work per
    /// operation (the control of comparisons); for an in-process engine,
    /// its foreground work too (its background threads are not in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_threads_cpu_us_op: Option<f64>,
    /// Context switches of those threads per operation (voluntary: blocked,
    /// a client waiting for a server's answer; involuntary: preempted).
    /// Against a server, how often the client slept: each sleep and wake-up
    /// is kernel work charged to it, so this tells more waits from dearer ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_threads_switches_op: Option<f64>,
    /// Server engines: CPU of the server's process tree (exited workers
    /// included) per operation. The client's share is `client_cpu_us_op`.
    /// (`engine_cpu_us_op` in results before it had the reports' name.)
    #[serde(default, skip_serializing_if = "Option::is_none", alias = "engine_cpu_us_op")]
    pub srv_cpu_us_op: Option<f64>,
    /// Server engines: context switches (voluntary + involuntary) of the
    /// server's threads per operation, from each thread's /proc status at
    /// the step's start and end (threads that exited during the step take
    /// theirs with them: a lower bound). Where `srv_cpu_us_op` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srv_switches_op: Option<f64>,
    pub host_cpu_us_op: Option<f64>,
    /// The share of the host's CPU time a hypervisor gave to other guests
    /// during the step (steal), percent: high values mean noisy figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_steal_pct: Option<f64>,
    pub rss_peak_bytes: Option<u64>,
    pub vsz_peak_bytes: Option<u64>,
    pub rss_end_bytes: Option<u64>,
    pub memory: Vec<MemoryPoint>,
    pub syncs: Option<SyncMetrics>,
    /// The device wrote far more than the measured processes (their own
    /// /proc io counters) did: its write figures are mostly other processes'.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device_writes_by_others: bool,
    /// The same for reads.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device_reads_by_others: bool,
    /// The step ran as one side of a duet: the other side used the same
    /// device at the same time, so the device's figures are both sides'
    /// and the summary shows the process figures.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device_shared: bool,
    /// Metrics that could not be measured, with the reason (never shown as 0).
    pub missing: Vec<Missing>,
}

/// IO the device may do beyond the measured processes' own before its
/// figures are called other processes': what the processes' counters never
/// see (filesystem metadata, page-cache writeback of the step before) and a
/// quiet machine's own IO.
const DEVICE_SLACK_BYTES: u64 = 8 << 20;
/// A journal commit per sync call (ext4: descriptor, metadata and commit
/// blocks), which the device writes for the processes but their counters miss.
const JOURNAL_BYTES_PER_SYNC: u64 = 16 << 10;

/// Whether a device's `device_bytes` are mostly other processes' IO: more
/// than twice what the measured processes did, and more than `allowance`
/// bytes beyond that.
fn others_dominate(device_bytes: u64, process_bytes: u64, allowance: u64) -> bool {
    device_bytes > process_bytes.saturating_mul(2).saturating_add(allowance)
}

/// The figure a summary shows of a device figure and the measured
/// processes' own: the device's, unless other processes' IO dominated it.
pub fn headline_figure(device_by_others: bool, device: Option<f64>, process: Option<f64>) -> Option<f64> {
    if device_by_others {
        process
    } else {
        device
    }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

impl StepMetrics {
    /// Judge the device's figures against the processes' own (when both
    /// were measured; after the syncs are final, a server's included) and
    /// return the step's warnings for the figures that are other processes'.
    pub fn judge_device_io(&mut self) -> Vec<String> {
        let Some(io) = &self.io else { return Vec::new() };
        if self.device_shared {
            // Known to be both sides' of a duet: not a surprise to warn about.
            self.device_writes_by_others = true;
            self.device_reads_by_others = true;
            return Vec::new();
        }
        let syncs = self.syncs.as_ref().map(SyncMetrics::total).unwrap_or(0);
        if let Some(written) = self.process_write_bytes {
            let allowance = DEVICE_SLACK_BYTES.saturating_add(syncs.saturating_mul(JOURNAL_BYTES_PER_SYNC));
            let own = written.saturating_add(self.process_writeback_bytes.unwrap_or(0));
            self.device_writes_by_others = others_dominate(io.bytes_written, own, allowance);
        }
        if let Some(read) = self.process_read_bytes {
            self.device_reads_by_others = others_dominate(io.bytes_read, read, DEVICE_SLACK_BYTES);
        }
        self.device_io_warnings()
    }

    /// What the step's warnings say when the device's figures are other processes'.
    fn device_io_warnings(&self) -> Vec<String> {
        let Some(io) = &self.io else { return Vec::new() };
        let two = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
        let mut out = Vec::new();
        if self.device_writes_by_others {
            out.push(format!(
                "other processes wrote to the data dir's device: it wrote {:.1} MB during the step, the measured processes {:.1} MB{} \
                 (w-amp {} device, {} process); the summary shows the process figures",
                mb(io.bytes_written),
                mb(self.process_write_bytes.unwrap_or(0)),
                self.process_writeback_bytes.map(|b| format!(" and {:.1} MB they had dirtied before it, written back during it", mb(b))).unwrap_or_default(),
                two(self.write_amp),
                two(self.write_amp_process),
            ));
        }
        if self.device_reads_by_others {
            out.push(format!(
                "other processes read from the data dir's device: it read {:.1} MB during the step, the measured processes {:.1} MB \
                 (rpq {} device); the summary shows no rpq",
                mb(io.bytes_read),
                mb(self.process_read_bytes.unwrap_or(0)),
                two(io.rpq),
            ));
        }
        out
    }

    /// The write-amplification the summary shows: the device's, or the
    /// processes' own when the device's is mostly other processes' writes.
    pub fn headline_write_amp(&self) -> Option<f64> {
        headline_figure(self.device_writes_by_others, self.write_amp, self.write_amp_process)
    }

    /// KB written per write the summary shows: the device's, or the
    /// processes' own bytes per write when the device's are other processes'.
    pub fn headline_wkbpi(&self) -> Option<f64> {
        let io = self.io.as_ref()?;
        if !self.device_writes_by_others {
            return io.wkbpi;
        }
        // wkbpi is bytes_written / 1024 / writes: the same writes over the processes' bytes.
        let process = self.process_write_bytes? as f64;
        io.wkbpi.filter(|_| io.bytes_written > 0).map(|w| w * process / io.bytes_written as f64)
    }

    /// Storage reads per query the summary shows: none when the device's
    /// reads are mostly other processes' (the processes' counters have bytes, not requests).
    pub fn headline_rpq(&self) -> Option<f64> {
        self.io.as_ref().and_then(|io| io.rpq).filter(|_| !self.device_reads_by_others)
    }
}

/// What a step did, as the runner counted it.
#[derive(Debug, Clone, Default)]
pub struct StepWork {
    /// All operations, clients and background writer.
    pub ops: u64,
    /// Read operations (gets, multiget keys, seeks, scanned entries).
    pub queries: u64,
    /// Write operations (puts, deletes), writer included.
    pub writes: u64,
    /// Commits: write calls (a batch is one).
    pub commits: u64,
    /// Key + value bytes written by clients and the writer.
    pub logical_bytes_written: u64,
    /// Threads that wrote concurrently (for the group-commit bound).
    pub writer_threads: u64,
    pub live_keys: Option<u64>,
    pub entry_bytes: u64,
    pub wall_s: f64,
}

/// How the device's writes of a step are attributed: first to the bytes the
/// measured processes dirtied during it (`own`), then to those they dirtied
/// before it and the device had not yet written (`pending`: the kernel
/// writes dirty pages back when it chooses, often in a later step). Returns
/// the bytes of `pending` written during the step, and what stays pending.
pub fn attribute_writeback(device: u64, own: u64, pending: u64) -> (u64, u64) {
    let available = own.saturating_add(pending);
    let attributed = device.min(available);
    (attributed.saturating_sub(own), available - attributed)
}

/// Measures the storage under one data dir; resolved once per engine config.
pub struct Probes {
    data_dir: PathBuf,
    device: Result<DataDirDevice, String>,
    /// A server engine's main process: its process tree is measured for
    /// engine CPU, process IO and memory.
    server_pid: Option<i32>,
    /// A server on another machine (or not rumbench's): why its CPU,
    /// memory, storage IO and space cannot be measured here.
    remote: Option<String>,
    /// "null keeps nothing": an engine with no data of its own, for which
    /// durability and storage figures do not apply.
    keeps_nothing: Option<String>,
    /// One side of a duet: why the host's CPU and the device's IO are not
    /// this side's alone.
    shared: Option<String>,
    /// Bytes the measured processes dirtied in earlier steps that the
    /// device has not written yet (see [`attribute_writeback`]).
    unwritten: std::sync::atomic::AtomicU64,
}

impl Probes {
    pub fn new(data_dir: &Path) -> Probes {
        let device = match DataDirDevice::resolve(data_dir) {
            Ok(d) => match &d.io_not_meaningful {
                Some(why) => Err(why.clone()),
                None if d.counted_devices.is_empty() => Err("no block device found under the data dir".into()),
                None => Ok(d),
            },
            Err(e) => Err(format!("cannot resolve the data dir's device: {e:#}")),
        };
        Probes {
            data_dir: data_dir.to_path_buf(),
            device,
            server_pid: None,
            remote: None,
            keeps_nothing: None,
            shared: None,
            unwritten: Default::default(),
        }
    }

    /// One side of a duet (`why`: beside what): the host's CPU and the
    /// data dir's device are both sides', so neither is this side's figure.
    pub fn shared(self, why: String) -> Probes {
        Probes { shared: Some(why), ..self }
    }

    /// For an engine that keeps nothing (null): syncs per commit are not a
    /// figure there ("not durable" would be noise on every write step), and
    /// the device's IO is other processes', so it is not read at all.
    pub fn keeps_nothing(self, engine: &str) -> Probes {
        let what = format!("{engine} keeps nothing");
        Probes {
            device: Err(format!("{what}: its device's IO is other processes'")),
            keeps_nothing: Some(what),
            ..self
        }
    }

    /// Probes for a server rumbench did not start: only the client is
    /// measured; the server's figures are missing for reason `why`.
    pub fn remote(data_dir: &Path, why: String) -> Probes {
        Probes {
            data_dir: data_dir.to_path_buf(),
            device: Err(why.clone()),
            server_pid: None,
            remote: Some(why),
            keeps_nothing: None,
            shared: None,
            unwritten: Default::default(),
        }
    }

    /// Probes for a server engine whose main process is `pid`: CPU, process
    /// IO and memory of its process tree are measured beside the client's.
    pub fn with_server(data_dir: &Path, pid: u32) -> Probes {
        Probes { server_pid: Some(pid as i32), ..Probes::new(data_dir) }
    }

    pub fn begin(&self) -> StepProbe {
        let sampler = match self.server_pid {
            Some(pid) => Sampler::start_with(
                SampleTargets { pids: vec![pid], include_descendants: true },
                std::time::Duration::from_secs(1),
                Roots::live(),
            ),
            None => Sampler::start(),
        };
        StepProbe {
            disk: self.device.as_ref().ok().map(|d| d.counters().map_err(|e| format!("{e:#}"))),
            process: ProcessCounters::current().map_err(|e| format!("{e:#}")),
            process_cpu_ns: process_cpu_ns(),
            workload_threads_ns: super::thread_cpu::workload_threads_ns(),
            workload_threads_switches: super::thread_cpu::workload_threads_switches(),
            server: self.server_pid.map(|p| ProcessCounters::tree(p).map_err(|e| format!("{e:#}"))),
            host: HostCpu::read().map_err(|e| format!("{e:#}")),
            syncs: sync_calls(),
            sampler,
        }
    }
}

/// CPU of a process tree including its exited, reaped children (workers
/// that came and went), microseconds.
fn tree_cpu_us(c: &ProcessCounters) -> u64 {
    c.cpu_us() + c.reaped_children_cpu_us
}

/// Snapshots taken when a step began.
pub struct StepProbe {
    disk: Option<Result<DiskCounters, String>>,
    process: Result<ProcessCounters, String>,
    /// This process's CPU clock (all threads, exited ones included), ns:
    /// exact, where /proc counts in 10 ms ticks (one tick was 2-4% of
    /// the client's CPU in a 400,000-row insert-benchmark step).
    process_cpu_ns: Option<u64>,
    /// The step's client and writer threads' CPU so far (measure::thread_cpu).
    workload_threads_ns: u64,
    /// Their context switches so far.
    workload_threads_switches: u64,
    /// The server's process tree, for server engines.
    server: Option<Result<ProcessCounters, String>>,
    host: Result<HostCpu, String>,
    syncs: SyncCounts,
    sampler: Sampler,
}

/// Ticks of CPU a figure needs: a count of k ticks is off by up to one, so
/// fewer than 5 would be more than 20% off (a 50-operation step that
/// happened to be charged one tick read as 200 us per operation).
const MIN_CPU_TICKS: u64 = 5;

/// /proc counts CPU time in clock ticks (10 ms at USER_HZ 100): a step
/// shorter than one tick, or one charged fewer than [`MIN_CPU_TICKS`], has
/// no CPU figure, not 0. Returns why, when it has none.
fn below_cpu_resolution(cpu_us: u64, wall_s: f64) -> Option<String> {
    let tick_us = 1_000_000 / procfs::ticks_per_second().max(1);
    (cpu_us < MIN_CPU_TICKS * tick_us || wall_s * 1e6 < tick_us as f64).then(|| {
        format!(
            "below resolution: /proc counts CPU in {} ms ticks, a figure needs {MIN_CPU_TICKS} of them, and the step took {:.1} ms ({} ms of CPU counted)",
            tick_us / 1000,
            wall_s * 1e3,
            cpu_us / 1000
        )
    })
}

/// The least CPU a figure from the exact clock needs: below it, a step's
/// fixed costs (starting its threads and probes, a few ms) would be a
/// large part of the figure. The same floor as the ticks' (MIN_CPU_TICKS of 10 ms).
const MIN_EXACT_CPU_US: u64 = 50_000;

fn below_exact_cpu_floor(cpu_us: u64) -> Option<String> {
    (cpu_us < MIN_EXACT_CPU_US).then(|| {
        format!(
            "below resolution: the step used {:.1} ms of CPU, under the {} ms a figure needs (the step's fixed costs, its threads and probes, would weigh in it)",
            cpu_us as f64 / 1e3,
            MIN_EXACT_CPU_US / 1000
        )
    })
}

/// More CPU than every core could give over the step's timed work: most of
/// it is the step's fixed costs (a step of a few milliseconds), not its operations.
fn beyond_the_timed_work(cpu_us: u64, wall_s: f64) -> Option<String> {
    let cores = std::thread::available_parallelism().map(|n| n.get() as f64).unwrap_or(1.0);
    let possible_us = cores * wall_s * 1e6;
    (wall_s > 0.0 && cpu_us as f64 > possible_us * 1.25).then(|| {
        format!(
            "below resolution: {:.1} ms of CPU against {:.1} ms of timed work on {cores} cores: the step's fixed costs (its threads and probes) dominate",
            cpu_us as f64 / 1e3,
            wall_s * 1e3
        )
    })
}

use super::thread_cpu::this_process_ns as process_cpu_ns;

/// Why a server's context switches over a step are not known, when they are
/// not: a thread or process of it that ended during the step took its count
/// with it (a PostgreSQL backend, or a MariaDB 10.1 connection thread, ends
/// with its client's session). Seen two ways: a thread of the first read
/// gone by the second (`ended`), or CPU the live threads did not use
/// (`ended_cpu_us`: one that came and went between the reads), beyond the
/// ticks' rounding (50 ms, and a quarter of the step's server CPU).
fn switches_lost(ended: u64, ended_cpu_us: u64, server_cpu_us: u64) -> Option<String> {
    if ended > 0 {
        return Some(format!(
            "{ended} of the server's threads or processes ended during the step (a connection's, when its client's session closed) and took their context switches with them"
        ));
    }
    (ended_cpu_us > 50_000 && ended_cpu_us * 4 > server_cpu_us).then(|| {
        format!(
            "threads or processes of the server that ended during the step (a connection's, when its client's session closed) used {:.0} ms of its {:.0} ms of CPU and took their context switches with them",
            ended_cpu_us as f64 / 1e3,
            server_cpu_us as f64 / 1e3
        )
    })
}

/// Why a server's own write counter (`write_bytes` of /proc/PID/io, its
/// processes summed) is not the bytes it wrote, when it is not: the kernel
/// counts a page-cache folio's whole size each time a write dirties a clean
/// one, and with large folios (ext4 and xfs on Linux 6.x) a commit's 8 KB
/// WAL write into a 256 KB folio its last sync cleaned counts 256 KB
/// (PostgreSQL 14 to 18 here: 2.4 to 10 GB counted in 3-second steps whose
/// device wrote 0.2 GB). A server writes its files with write calls, so
/// the bytes it passed to them (`wchar`, its socket replies included) bound
/// what it can have dirtied; far beyond them, the counter is folios, not
/// bytes. (rumbench's own process is not judged so: an engine in it may
/// write through a memory map, which no write call counts.)
fn server_write_bytes_overstated(write_bytes: u64, wchar: u64) -> Option<String> {
    const SLACK: u64 = 1 << 20;
    (write_bytes > wchar.saturating_mul(2).saturating_add(SLACK)).then(|| {
        format!(
            "the server's processes dirtied {:.1} MB of page cache by their counters, against {:.1} MB passed to write calls: \
             the kernel counts a whole page-cache folio each time a small write dirties a clean one (large folios), \
             so their write counter is not bytes written; the device's figures stand (none where the device is shared)",
            mb(write_bytes),
            mb(wchar)
        )
    })
}

fn per(x: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| x / n as f64)
}

impl StepProbe {
    /// Snapshot again and compute the step's metrics. For steps that wrote,
    /// dirty pages are written back first so buffered writes are counted.
    pub fn end(self, probes: &Probes, work: &StepWork) -> StepMetrics {
        let mut m = StepMetrics {
            logical_bytes_written: work.logical_bytes_written,
            device_shared: probes.shared.is_some(),
            ..Default::default()
        };
        let mut missing = |metric: &str, reason: String| m.missing.push(Missing { metric: metric.into(), reason });
        let syncs = sync_calls().since(&self.syncs);
        // The processes' CPU before the syncfs below: writing back the
        // page cache is the measurement's doing, and the CPU it takes (a
        // server's dirty pages included) would be charged to the client.
        let process_end = ProcessCounters::current();
        let process_cpu_end = process_cpu_ns();
        let workload_threads_end = super::thread_cpu::workload_threads_ns();
        let workload_switches_end = super::thread_cpu::workload_threads_switches();
        let server_end = probes.server_pid.map(ProcessCounters::tree);
        // A remote server's dirty pages are not in this machine's page cache.
        // Synced also when the processes dirtied pages without writing data of
        // the clients' (a flush, a settle, a compaction during a read step):
        // what they write on an earlier step's behalf counts in this step.
        let dirtied = |b: &Result<ProcessCounters, String>, a: &anyhow::Result<ProcessCounters>| match (b, a) {
            (Ok(b), Ok(a)) => a.write_bytes > b.write_bytes,
            _ => false,
        };
        let server_dirtied = match (&self.server, &server_end) {
            (Some(b), Some(a)) => dirtied(b, a),
            _ => false,
        };
        let wrote = work.logical_bytes_written > 0 || dirtied(&self.process, &process_end) || server_dirtied;
        if wrote && probes.remote.is_none() {
            match sync_filesystem(&probes.data_dir) {
                Ok(()) => m.dirty_pages_synced = true,
                Err(e) => missing(
                    "dirty_pages_synced",
                    format!("syncfs failed: {e}: writes still in the page cache are not counted"),
                ),
            }
        }
        let host_end = HostCpu::read();
        let series = self.sampler.stop();

        // Storage IO.
        match (&probes.device, self.disk) {
            (Err(why), _) => missing("io", why.clone()),
            (Ok(dev), Some(Ok(before))) => match dev.counters() {
                Ok(after) => {
                    let d = after.since(&before);
                    let f = IoFigures::from_delta(&d, work.wall_s, work.queries, work.writes);
                    m.io = Some(IoMetrics {
                        devices: d.devices.clone(),
                        bytes_read: f.bytes_read,
                        bytes_written: f.bytes_written,
                        bytes_discarded: f.bytes_discarded,
                        read_requests: d.reads,
                        write_requests: d.writes,
                        rpq: f.rpq,
                        rkbpq: f.rkbpq,
                        wkbpi: f.wkbpi,
                        reads_per_s: f.reads_per_s,
                        writes_per_s: f.writes_per_s,
                        read_mb_s: f.read_mb_s,
                        write_mb_s: f.write_mb_s,
                        discard_mb_s: f.discard_mb_s,
                    });
                    m.write_amp = per(f.bytes_written as f64, work.logical_bytes_written);
                }
                Err(e) => missing("io", format!("cannot read /proc/diskstats: {e:#}")),
            },
            (Ok(_), Some(Err(e))) => missing("io", format!("cannot read /proc/diskstats: {e}")),
            (Ok(_), None) => missing("io", "no disk counters".into()),
        }
        if work.logical_bytes_written == 0 {
            missing("write_amp", "the step wrote nothing".into());
        } else if let Some(what) = &probes.keeps_nothing {
            missing("write_amp", format!("{what}: no bytes of its own reach storage"));
        } else if let Some(why) = &probes.remote {
            missing("write_amp", why.clone());
        }

        // CPU and per-process IO.
        match (&self.process, &process_end) {
            (Ok(b), Ok(a)) => {
                let d = a.since(b);
                match (self.process_cpu_ns, process_cpu_end) {
                    (Some(b), Some(a)) if a >= b => match below_exact_cpu_floor((a - b) / 1000)
                        .or_else(|| beyond_the_timed_work((a - b) / 1000, work.wall_s))
                    {
                        None => m.client_cpu_us_op = per((a - b) as f64 / 1e3, work.ops),
                        Some(why) => missing("client_cpu_us_op", why),
                    },
                    _ => match below_cpu_resolution(d.cpu_us(), work.wall_s) {
                        None => m.client_cpu_us_op = per(d.cpu_us() as f64, work.ops),
                        Some(why) => missing("client_cpu_us_op", why),
                    },
                }
                // The engine's IO, when it runs in this process; a remote
                // server's is not this process's.
                if probes.remote.is_none() {
                    m.process_read_bytes = Some(d.read_bytes);
                    // Bytes dirtied and then truncated or deleted before
                    // writeback (short-lived WAL files) never reach storage.
                    let written = d.write_bytes.saturating_sub(d.cancelled_write_bytes);
                    m.process_write_bytes = Some(written);
                    m.process_cancelled_write_bytes = Some(d.cancelled_write_bytes);
                    m.write_amp_process = per(written as f64, work.logical_bytes_written);
                }
            }
            (Err(e), _) => missing("client_cpu_us_op", e.clone()),
            (_, Err(e)) => missing("client_cpu_us_op", format!("{e:#}")),
        }
        // The threads that issued the operations (no measurement threads).
        let threads_us = workload_threads_end.saturating_sub(self.workload_threads_ns) / 1000;
        match below_exact_cpu_floor(threads_us).or_else(|| beyond_the_timed_work(threads_us, work.wall_s)) {
            None => m.client_threads_cpu_us_op = per(threads_us as f64, work.ops),
            Some(why) => missing("client_threads_cpu_us_op", why),
        }
        // Counted where the same threads' CPU was (a step that runs no
        // clients has neither: absent for client_threads_cpu_us_op's reason, never 0).
        if m.client_threads_cpu_us_op.is_some() {
            m.client_threads_switches_op =
                per(workload_switches_end.saturating_sub(self.workload_threads_switches) as f64, work.ops);
        }
        // A server's tree: its CPU is the engine's; its IO is the engine's
        // process IO (the client does none).
        match (&self.server, &server_end) {
            (None, _) | (_, None) => {}
            (Some(Ok(b)), Some(Ok(a))) => {
                let cpu = tree_cpu_us(a).saturating_sub(tree_cpu_us(b));
                match below_cpu_resolution(cpu, work.wall_s) {
                    None => m.srv_cpu_us_op = per(cpu as f64, work.ops),
                    Some(why) => missing("srv_cpu_us_op", why),
                }
                let d = a.since(b);
                if m.srv_cpu_us_op.is_some() {
                    if let Some(why) = switches_lost(d.tasks_ended, d.ended_cpu_us, cpu) {
                        missing("srv_switches_op", why);
                    } else {
                        m.srv_switches_op = d.ctx_switches.and_then(|n| per(n as f64, work.ops));
                    }
                }
                m.process_read_bytes = Some(d.read_bytes);
                // Bytes dirtied and then truncated or deleted before
                // writeback (short-lived WAL files) never reach storage.
                let written = d.write_bytes.saturating_sub(d.cancelled_write_bytes);
                m.process_cancelled_write_bytes = Some(d.cancelled_write_bytes);
                match server_write_bytes_overstated(written, d.wchar) {
                    None => {
                        m.process_write_bytes = Some(written);
                        m.write_amp_process = per(written as f64, work.logical_bytes_written);
                    }
                    Some(why) => {
                        // Not rumbench's own either (set above): the engine's IO is the server's.
                        m.process_write_bytes = None;
                        m.write_amp_process = None;
                        missing("process_write_bytes", why);
                    }
                }
            }
            (Some(Err(e)), _) => missing("srv_cpu_us_op", e.clone()),
            (_, Some(Err(e))) => missing("srv_cpu_us_op", format!("server process tree: {e:#}")),
        }
        // The device's writes of pages the processes dirtied in earlier
        // steps are theirs (the kernel writes back when it chooses).
        if let (Some(io), Some(own)) = (&m.io, m.process_write_bytes) {
            use std::sync::atomic::Ordering::Relaxed;
            let (written_back, left) = attribute_writeback(io.bytes_written, own, probes.unwritten.load(Relaxed));
            probes.unwritten.store(left, Relaxed);
            m.process_writeback_bytes = (written_back > 0).then_some(written_back);
        }
        if let Some(why) = &probes.remote {
            missing("srv_cpu_us_op", why.clone());
            missing("process_io", why.clone());
        }
        match (&self.host, &host_end) {
            // This host runs only the client: its CPU is not the server's.
            _ if probes.remote.is_some() => missing("host_cpu_us_op", probes.remote.clone().unwrap_or_default()),
            _ if probes.shared.is_some() => missing(
                "host_cpu_us_op",
                format!("{}: the host's CPU is both sides'", probes.shared.clone().unwrap_or_default()),
            ),
            (Ok(b), Ok(a)) => {
                let used = a.since(b);
                m.host_steal_pct = used.steal_pct();
                match below_cpu_resolution(used.busy_us, work.wall_s) {
                    None => m.host_cpu_us_op = per(used.busy_us as f64, work.ops),
                    Some(why) => missing("host_cpu_us_op", why),
                }
            }
            (Err(e), _) => missing("host_cpu_us_op", e.clone()),
            (_, Err(e)) => missing("host_cpu_us_op", format!("{e:#}")),
        }

        // Space.
        match allocated_bytes(&probes.data_dir) {
            _ if probes.remote.is_some() => missing("db_size", probes.remote.clone().unwrap_or_default()),
            // Its directory holds no data: 0 bytes over the keys "written" is not a space-amp of 0.
            _ if probes.keeps_nothing.is_some() => {
                let what = probes.keeps_nothing.clone().unwrap_or_default();
                missing("db_size", what.clone());
                missing("space_amp", what);
            }
            Ok(bytes) => {
                m.db_size_bytes = Some(bytes);
                if let Some(live) = work.live_keys {
                    let logical = live * work.entry_bytes;
                    m.live_keys = Some(live);
                    m.logical_live_bytes = Some(logical);
                    m.space_amp = per(bytes as f64, logical);
                }
            }
            Err(e) => missing("db_size", format!("cannot walk {}: {e}", probes.data_dir.display())),
        }
        if work.live_keys.is_none() && probes.keeps_nothing.is_none() {
            missing("space_amp", "the live key count is unknown (the database was not loaded in this run)".into());
        }

        // Memory.
        if let Some(why) = &probes.remote {
            missing("rss_peak", why.clone());
        } else if series.samples.is_empty() {
            missing("rss_peak", "no memory sample could be taken".into());
        } else {
            m.rss_peak_bytes = Some(series.rss_peak_bytes);
            m.vsz_peak_bytes = Some(series.vsz_peak_bytes);
            m.rss_end_bytes = Some(series.rss_end_bytes);
            m.memory = series
                .samples
                .iter()
                .map(|s| MemoryPoint { t_s: s.t_seconds, rss_bytes: s.rss_bytes, vsz_bytes: s.vsz_bytes })
                .collect();
        }

        // Durability.
        if let (true, Some(what)) = (work.commits > 0, &probes.keeps_nothing) {
            missing("syncs", format!("{what}: durability does not apply"));
        } else if work.commits > 0 {
            m.syncs = Some(SyncMetrics::from_calls(&syncs, work.commits, work.writer_threads));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result from before the server's CPU had one name loads under it,
    /// the figure and the reason it was missing alike.
    #[test]
    fn the_old_name_of_the_servers_cpu_loads_as_the_new() {
        let mut json = serde_json::to_value(StepMetrics::default()).unwrap();
        json["engine_cpu_us_op"] = serde_json::json!(12.5);
        json["missing"] = serde_json::json!([
            {"metric": "engine_cpu_us_op", "reason": "r"},
            {"metric": "rss_peak", "reason": "s"}
        ]);
        let old: StepMetrics = serde_json::from_value(json).unwrap();
        assert_eq!(old.srv_cpu_us_op, Some(12.5));
        assert_eq!(old.missing.iter().map(|m| m.metric.as_str()).collect::<Vec<_>>(), ["srv_cpu_us_op", "rss_peak"]);
        let written = serde_json::to_value(&old).unwrap();
        assert!(written.get("engine_cpu_us_op").is_none() && written["srv_cpu_us_op"] == 12.5, "{written}");
    }

    /// Pages a flush dirtied and the kernel wrote back during the read step
    /// after it are the engine's writes, not another process's.
    #[test]
    fn writeback_of_earlier_steps_is_the_processes_own() {
        // A flush dirties 300 MB; the device writes 10 MB of it then.
        let (back, pending) = attribute_writeback(10 << 20, 300 << 20, 0);
        assert_eq!((back, pending), (0, 290 << 20));
        // The read step after it: the device writes the other 290 MB.
        let (back, pending) = attribute_writeback(290 << 20, 0, pending);
        assert_eq!((back, pending), (290 << 20, 0));
        let mut m = StepMetrics {
            io: Some(IoMetrics { bytes_written: 290 << 20, ..Default::default() }),
            process_write_bytes: Some(0),
            process_writeback_bytes: Some(back),
            ..Default::default()
        };
        assert!(m.judge_device_io().is_empty(), "its own writeback is no other process's");
        // Beyond what was pending: another process's.
        let (back, pending) = attribute_writeback(500 << 20, 0, 0);
        assert_eq!((back, pending), (0, 0));
        let mut m = StepMetrics {
            io: Some(IoMetrics { bytes_written: 500 << 20, ..Default::default() }),
            process_write_bytes: Some(0),
            ..Default::default()
        };
        assert!(m.judge_device_io()[0].starts_with("other processes wrote to the data dir's device: it wrote 500.0 MB"));
    }

    #[test]
    fn cpu_beyond_what_the_cores_give_in_the_timed_work_is_not_a_per_operation_figure() {
        let cores = std::thread::available_parallelism().unwrap().get() as f64;
        // 50 ms of CPU over 1.2 ms of operations: the fixed costs.
        assert!(beyond_the_timed_work(50_000, 0.0012).unwrap().contains("fixed costs"));
        // Every core busy over the whole step is possible.
        assert_eq!(beyond_the_timed_work((cores * 1e6) as u64, 1.0), None);
    }

    #[test]
    fn cpu_below_one_tick_is_not_a_figure() {
        let why = below_cpu_resolution(0, 0.004).unwrap();
        assert!(why.starts_with("below resolution") && why.contains("4.0 ms"), "{why}");
        assert!(below_cpu_resolution(0, 2.0).is_some(), "no tick counted in 2 s");
        assert!(below_cpu_resolution(20_000, 0.005).is_some(), "a 5 ms step cannot be timed by 10 ms ticks");
        assert!(below_cpu_resolution(20_000, 0.5).is_some(), "two ticks are too few for a figure within 20%");
        assert!(below_cpu_resolution(50_000, 0.5).is_none());
        // The exact clock has no ticks, but the same floor: a step's own fixed costs.
        assert!(below_exact_cpu_floor(5_900).unwrap().contains("5.9 ms of CPU"));
        assert!(below_exact_cpu_floor(50_000).is_none());
    }

    #[test]
    fn the_process_cpu_clock_counts_this_process_exactly() {
        let before = process_cpu_ns().expect("CLOCK_PROCESS_CPUTIME_ID");
        let t0 = std::time::Instant::now();
        let mut x = 0u64;
        while t0.elapsed() < std::time::Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let used = process_cpu_ns().unwrap() - before;
        // Busy for 30 ms of wall time (a loaded machine may give it less of a CPU).
        assert!(used > 1_000_000, "{used} ns");
    }

    #[test]
    fn one_sync_per_commit_per_writer_is_durable() {
        let calls = SyncCounts { fdatasync: 50, ..SyncCounts::default() };
        // 100 commits by 2 writers: group commit may cover two per sync.
        let m = SyncMetrics::from_calls(&calls, 100, 2);
        assert_eq!((m.syncs_per_commit, m.durable_as_run), (Some(0.5), Some(true)));
        let m = SyncMetrics::from_calls(&calls, 100, 1);
        assert_eq!(m.durable_as_run, Some(false));
        assert_eq!(SyncMetrics::from_calls(&calls, 0, 1).durable_as_run, None);
    }

    /// A write step's metrics: the device wrote `device_mb`, the processes `process_mb`, 100 MB logical.
    fn write_step(device_mb: u64, process_mb: u64, syncs: u64) -> StepMetrics {
        let logical = 100u64 << 20;
        StepMetrics {
            io: Some(IoMetrics {
                bytes_written: device_mb << 20,
                wkbpi: Some((device_mb << 20) as f64 / 1024.0 / 1000.0),
                rpq: Some(0.5),
                ..Default::default()
            }),
            write_amp: Some((device_mb << 20) as f64 / logical as f64),
            write_amp_process: Some((process_mb << 20) as f64 / logical as f64),
            process_write_bytes: Some(process_mb << 20),
            process_read_bytes: Some(0),
            logical_bytes_written: logical,
            syncs: Some(SyncMetrics { fdatasync: syncs, commits: syncs.max(1), ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn a_device_that_wrote_far_more_than_the_processes_is_other_processes() {
        // The A/A run of issue 24: device w-amp 18.82 against 0.70 for the process.
        let mut m = write_step(1882, 70, 0);
        let warnings = m.judge_device_io();
        assert!(m.device_writes_by_others && !m.device_reads_by_others);
        assert_eq!(
            warnings,
            ["other processes wrote to the data dir's device: it wrote 1882.0 MB during the step, the measured processes 70.0 MB \
              (w-amp 18.82 device, 0.70 process); the summary shows the process figures"]
        );
        assert_eq!(m.headline_write_amp(), m.write_amp_process);
        let wkbpi = m.headline_wkbpi().unwrap();
        assert!((wkbpi - 70.0 * 1024.0 / 1000.0).abs() < 1e-9, "the processes' KB per write: {wkbpi}");
        assert_eq!(m.headline_rpq(), Some(0.5), "reads were not polluted");
    }

    #[test]
    fn filesystem_overhead_is_not_other_processes() {
        // Journal and metadata: up to twice the processes' bytes, plus a few MB.
        for (device, process) in [(200, 100), (300, 150), (12, 2), (0, 0), (50, 60)] {
            let mut m = write_step(device, process, 0);
            assert!(m.judge_device_io().is_empty(), "{device} MB against {process} MB");
            assert_eq!(m.headline_write_amp(), m.write_amp);
            assert_eq!(m.headline_wkbpi(), m.io.as_ref().unwrap().wkbpi);
        }
        assert!(!write_step(200, 100, 0).device_writes_by_others);
        // A journal commit per sync: 10000 syncs of one 4 KB page each write far more than 2x.
        let mut synced = write_step(200, 40, 10_000);
        assert!(synced.judge_device_io().is_empty());
        let mut unsynced = write_step(200, 40, 0);
        assert_eq!(unsynced.judge_device_io().len(), 1);
    }

    #[test]
    fn a_servers_write_counter_far_beyond_its_write_calls_is_not_bytes() {
        // PostgreSQL 14.23, update-nonindex for 5 s (2026-12-07): 5.3 GB
        // counted by a backend that passed 188 MB to write calls.
        let why = server_write_bytes_overstated(5_320_359_936, 188_383_232).expect("overstated");
        assert!(
            why.starts_with(
                "the server's processes dirtied 5073.9 MB of page cache by their counters, against 179.7 MB"
            ),
            "{why}"
        );
        // PostgreSQL 12.22's: fewer bytes counted than written.
        assert_eq!(server_write_bytes_overstated(99_274_752, 150_000_000), None);
        // Up to twice the write calls and a MB: partial pages, metadata.
        assert_eq!(server_write_bytes_overstated(2 * 100_000 + (1 << 20), 100_000), None);
        assert!(server_write_bytes_overstated(2 * 100_000 + (1 << 20) + 1, 100_000).is_some());
        // Without process bytes a shared device gives no KB per write, never the device's both sides'.
        let mut duet = write_step(200, 70, 0);
        duet.device_shared = true;
        duet.process_write_bytes = None;
        duet.write_amp_process = None;
        assert!(duet.judge_device_io().is_empty());
        assert_eq!((duet.headline_wkbpi(), duet.headline_write_amp()), (None, None));
    }

    #[test]
    fn a_servers_switches_are_unknown_when_a_thread_that_worked_ended() {
        assert!(switches_lost(1, 0, 1_000_000).unwrap().starts_with("1 of the server's threads"));
        // A connection that came and went between the reads did most of the work.
        let why = switches_lost(0, 2_400_000, 3_000_000).unwrap();
        assert!(why.contains("used 2400 ms of its 3000 ms of CPU"), "{why}");
        // Ticks' rounding across many threads: not a thread that ended.
        assert_eq!(switches_lost(0, 40_000, 3_000_000), None);
        assert_eq!(switches_lost(0, 200_000, 3_000_000), None);
    }

    #[test]
    fn reads_by_others_leave_no_rpq() {
        let mut m = write_step(10, 10, 0);
        m.io.as_mut().unwrap().bytes_read = 500 << 20;
        m.process_read_bytes = Some(20 << 20);
        let warnings = m.judge_device_io();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("other processes read from the data dir's device: it read 500.0 MB during the step, the measured processes 20.0 MB (rpq 0.50 device)"), "{warnings:?}");
        assert_eq!(m.headline_rpq(), None);
        assert_eq!(m.headline_write_amp(), m.write_amp);
        // Without process counters (a remote server) nothing is judged.
        let mut remote = write_step(1882, 70, 0);
        remote.process_write_bytes = None;
        remote.process_read_bytes = None;
        assert!(remote.judge_device_io().is_empty());
    }

    #[test]
    fn a_counter_with_data_file_syncs_only_proves_not_durable() {
        let log_only = SyncMetrics::from_server(100, "wal".into(), false, 100, 1);
        assert_eq!((log_only.durable_as_run, log_only.total()), (Some(true), 100));
        let all = SyncMetrics::from_server(100, "all".into(), true, 100, 1);
        assert_eq!(all.durable_as_run, None);
        let few = SyncMetrics::from_server(3, "all".into(), true, 100, 1);
        assert_eq!(few.durable_as_run, Some(false));
        assert_eq!(
            few.not_durable_warning().unwrap(),
            "not durable as run: 3 sync calls for 100 commits (0.0300 per commit)"
        );
        assert_eq!(all.not_durable_warning(), None);
    }
}
