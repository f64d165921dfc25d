//! A step's ceilings: the fastest it could go, given what it asked of the
//! machine per operation and what the machine can do (the roofline model,
//! applied to storage). Each resource the step used gives one ceiling in
//! operations per second; the lowest is the bound, and the step's rate is
//! said as a percentage of it.
//!
//! - read: the device's random-read IOPS at the step's concurrency and read
//!   size, divided by the storage reads per operation;
//! - write: the device's sequential write bandwidth divided by the bytes
//!   written per operation (sequential: the optimistic case, as an LSM
//!   writes; a B-tree's random page writes do worse);
//! - sync: the device's rate of small writes each followed by fdatasync,
//!   divided by the syncs per operation (group commit lowers these);
//! - cpu: the cores divided by the CPU seconds per operation.

use serde::{Deserialize, Serialize};

use super::fio::FioBaseline;

/// What a step asked of the machine, per operation, from its own measurements.
#[derive(Debug, Clone, Default)]
pub struct StepDemand {
    /// The step's throughput.
    pub ops_s: f64,
    /// Client threads (the concurrency of its reads).
    pub threads: u32,
    /// Storage reads per operation (rpq); None: not measured.
    pub reads_per_op: Option<f64>,
    /// Bytes per storage read; None: 4 KB assumed.
    pub bytes_per_read: Option<f64>,
    pub write_bytes_per_op: Option<f64>,
    pub syncs_per_op: Option<f64>,
    /// CPU seconds per operation (client and, for servers, the server).
    pub cpu_s_per_op: Option<f64>,
    /// Why `cpu_s_per_op` was not measured, when known.
    pub cpu_unmeasured: Option<String>,
    /// Cores the step could use.
    pub cores: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resource {
    Read,
    Write,
    Sync,
    Cpu,
}

impl Resource {
    pub fn name(self) -> &'static str {
        match self {
            Resource::Read => "read",
            Resource::Write => "write",
            Resource::Sync => "sync",
            Resource::Cpu => "cpu",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    pub resource: Resource,
    pub ops_s: f64,
    /// How it was computed, in a line.
    pub basis: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    /// The rate compared with the ceilings: every operation of the step per second.
    #[serde(default)]
    pub ops_s: f64,
    pub ceilings: Vec<Ceiling>,
    /// The lowest ceiling.
    pub bound: Option<Resource>,
    /// The step's rate as a percentage of the bound.
    pub pct_of_limit: Option<f64>,
    /// Ceilings that could not be computed, with why.
    pub unknown: Vec<String>,
    /// A rate above a ceiling: a measurement error somewhere.
    pub warnings: Vec<String>,
    /// A step under GOAL_PCT of its bound: what else its time went to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A step this close to its bound is at the machine's limit; below it, the
/// step says where the rest of its time went.
pub const GOAL_PCT: f64 = 80.0;

/// How far above a ceiling a rate may be before it is called an error:
/// fio's own figures vary by a few percent from run to run.
const ABOVE_TOLERANCE: f64 = 1.10;

/// A per-operation figure in a basis line: tiny ones are not "0.00".
fn small(v: f64) -> String {
    if v < 0.01 {
        format!("{v:.1e}")
    } else {
        format!("{v:.3}")
    }
}

/// The ceilings of one step; `device` None: the device ceilings are unknown
/// (`why`), the CPU ceiling still holds.
pub fn ceilings(d: &StepDemand, device: Option<&FioBaseline>, why_no_device: &str) -> Ceilings {
    let mut c = Ceilings { ops_s: d.ops_s, ..Default::default() };
    match device {
        Some(dev) => {
            if let Some(rpo) = d.reads_per_op.filter(|&r| r > 0.0) {
                let bytes = d.bytes_per_read.filter(|&b| b > 0.0).unwrap_or(4096.0);
                match dev.read_iops(bytes.round() as u64, d.threads) {
                    Some(iops) => c.ceilings.push(Ceiling {
                        resource: Resource::Read,
                        ops_s: iops / rpo,
                        basis: format!(
                            "{iops:.0} random reads/s of {:.0} KB at depth {} / {} reads per op",
                            bytes / 1024.0,
                            d.threads.max(1),
                            small(rpo)
                        ),
                    }),
                    None => c.unknown.push("read: the device baseline has no random reads".into()),
                }
            }
            if let Some(wpo) = d.write_bytes_per_op.filter(|&w| w > 0.0) {
                c.ceilings.push(Ceiling {
                    resource: Resource::Write,
                    ops_s: dev.seq_write_mb_s * 1e6 / wpo,
                    basis: format!(
                        "{:.0} MB/s sequential writes / {} KB written per op",
                        dev.seq_write_mb_s,
                        small(wpo / 1024.0)
                    ),
                });
            }
            if let Some(spo) = d.syncs_per_op.filter(|&s| s > 0.0) {
                c.ceilings.push(Ceiling {
                    resource: Resource::Sync,
                    ops_s: dev.fdatasync_per_s / spo,
                    basis: format!("{:.0} write+fdatasync/s / {} syncs per op", dev.fdatasync_per_s, small(spo)),
                });
            }
        }
        None => c.unknown.push(format!("read, write and sync: {why_no_device}")),
    }
    match d.cpu_s_per_op.filter(|&s| s > 0.0) {
        Some(cpu) if d.cores > 0.0 => c.ceilings.push(Ceiling {
            resource: Resource::Cpu,
            ops_s: d.cores / cpu,
            basis: format!("{} cores / {:.1} us CPU per op", d.cores, cpu * 1e6),
        }),
        _ => c.unknown.push(match &d.cpu_unmeasured {
            Some(why) => format!("cpu: CPU per operation not measured ({why})"),
            None => "cpu: CPU per operation not measured".into(),
        }),
    }
    if let Some(low) = c.ceilings.iter().min_by(|a, b| a.ops_s.total_cmp(&b.ops_s)) {
        c.bound = Some(low.resource);
        if d.ops_s > 0.0 {
            c.pct_of_limit = Some(d.ops_s / low.ops_s * 100.0);
        }
    }
    if let (Some(bound), Some(pct)) = (c.bound, c.pct_of_limit) {
        if pct < GOAL_PCT {
            c.notes.push(below_goal(d, device, bound, pct));
        }
    }
    for ceil in &c.ceilings {
        if d.ops_s > ceil.ops_s * ABOVE_TOLERANCE {
            c.warnings.push(format!(
                "{:.0} ops/s is above the {} ceiling of {:.0} ({}): a figure behind it is wrong (reads answered by the page cache counted as storage reads?)",
                d.ops_s,
                ceil.resource.name(),
                ceil.ops_s,
                ceil.basis
            ));
        }
    }
    c
}

/// Why a step came to `pct`% of its `bound` and not near it: each client
/// thread's time per operation against the bound resource's share of it.
fn below_goal(d: &StepDemand, device: Option<&FioBaseline>, bound: Resource, pct: f64) -> String {
    let threads = d.threads.max(1) as f64;
    // Each client thread spends threads / ops_s per operation.
    let per_op_us = threads / d.ops_s * 1e6;
    let cpu = d.cpu_s_per_op.map(|s| format!(" (CPU {:.1} us per op, all threads)", s * 1e6)).unwrap_or_default();
    let head = format!("{} {pct:.0}%, under the {GOAL_PCT:.0}% that means the machine's limit", bound.name());
    let device_share = |what: &str, us: f64| {
        format!(
            "{head}: each client thread took {per_op_us:.1} us per operation, of which the device's {what} {us:.1} us; the other {:.1} us were the operation's own work and waits{cpu}, which a thread does not overlap with its own IO: more threads overlap them",
            (per_op_us - us).max(0.0)
        )
    };
    match (bound, device) {
        (Resource::Read, Some(dev)) => {
            let bytes = d.bytes_per_read.filter(|&b| b > 0.0).unwrap_or(4096.0);
            let iops = dev.read_iops(bytes.round() as u64, d.threads).unwrap_or(f64::NAN);
            // At depth `threads` each read takes threads / iops.
            device_share("reads", d.reads_per_op.unwrap_or(0.0) * threads / iops * 1e6)
        }
        (Resource::Sync, Some(dev)) => device_share("syncs", d.syncs_per_op.unwrap_or(0.0) / dev.fdatasync_per_s * 1e6),
        (Resource::Cpu, _) if threads < d.cores => format!(
            "{head}: {threads:.0} client thread(s) on {} cores can use at most {:.0}% of the cores this ceiling counts: more threads use the rest",
            d.cores,
            threads / d.cores * 100.0
        ),
        _ => format!("{head}: the {} is not what holds the step; its time goes to waits the ceilings do not see (locks, queues, round trips){cpu}", bound.name()),
    }
}

impl Ceilings {
    /// "read 83%", or None when nothing bounds the step.
    pub fn short(&self) -> Option<String> {
        Some(format!("{} {:.0}%", self.bound?.name(), self.pct_of_limit?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::fio::ReadPoint;

    fn device() -> FioBaseline {
        let p = |bs, qd, iops| ReadPoint { block_bytes: bs, queue_depth: qd, iops, p50_us: None, p99_us: None };
        FioBaseline {
            fio_version: "fio-3.33".into(),
            file_bytes: 1 << 30,
            runtime_s: 3,
            random_reads: vec![p(4096, 1, 10_000.0), p(4096, 4, 40_000.0), p(16384, 1, 8_000.0), p(16384, 4, 30_000.0)],
            seq_write_mb_s: 500.0,
            random_write_4k_iops: 20_000.0,
            fdatasync_per_s: 2_000.0,
            fdatasync_p50_us: None,
            fdatasync_p99_us: None,
        }
    }

    #[test]
    fn an_io_bound_point_query_is_bound_by_reads() {
        // 4 threads, 1.25 reads per query of 4 KB: 40,000 / 1.25 = 32,000/s;
        // 10 us of CPU on 2 cores: 200,000/s.
        let d = StepDemand {
            ops_s: 28_800.0,
            threads: 4,
            reads_per_op: Some(1.25),
            bytes_per_read: Some(4096.0),
            cpu_s_per_op: Some(10e-6),
            cores: 2.0,
            ..Default::default()
        };
        let c = ceilings(&d, Some(&device()), "");
        assert_eq!(c.ceilings.len(), 2);
        assert_eq!(c.ceilings[0].ops_s, 32_000.0);
        assert!((c.ceilings[1].ops_s - 200_000.0).abs() < 1e-6);
        assert_eq!(c.bound, Some(Resource::Read));
        assert_eq!(c.short().as_deref(), Some("read 90%"));
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn a_durable_insert_is_bound_by_syncs_and_its_bytes() {
        // 0.5 syncs per insert (group commit): 2,000 / 0.5 = 4,000/s; 1 KB per
        // insert: 500e6 / 1024 = 488,281/s; 16 KB reads at depth 2 take depth 1: 8,000 / 0.1.
        let d = StepDemand {
            ops_s: 3_880.0,
            threads: 2,
            reads_per_op: Some(0.1),
            bytes_per_read: Some(16384.0),
            write_bytes_per_op: Some(1024.0),
            syncs_per_op: Some(0.5),
            cpu_s_per_op: Some(50e-6),
            cores: 2.0,
            ..Default::default()
        };
        let c = ceilings(&d, Some(&device()), "");
        let by = |r| c.ceilings.iter().find(|x| x.resource == r).unwrap().ops_s;
        assert_eq!(by(Resource::Sync), 4_000.0);
        assert!((by(Resource::Write) - 488_281.25).abs() < 0.01);
        assert_eq!(by(Resource::Read), 80_000.0);
        assert_eq!(by(Resource::Cpu), 40_000.0);
        assert_eq!(c.short().as_deref(), Some("sync 97%"));
    }

    #[test]
    fn a_step_under_the_goal_says_where_its_time_went() {
        // One thread, one read of 4 KB per query: the device at depth 1 reads
        // in 1/10,000 s = 100 us; the step took 1/7,000 s = 142.9 us per query.
        let d = StepDemand {
            ops_s: 7_000.0,
            threads: 1,
            reads_per_op: Some(1.0),
            bytes_per_read: Some(4096.0),
            cpu_s_per_op: Some(30e-6),
            cores: 2.0,
            ..Default::default()
        };
        let c = ceilings(&d, Some(&device()), "");
        assert_eq!(c.bound, Some(Resource::Read));
        assert_eq!(c.notes.len(), 1, "{c:?}");
        let n = &c.notes[0];
        assert!(n.starts_with("read 70%, under the 80%"), "{n}");
        assert!(n.contains("142.9 us per operation, of which the device's reads 100.0 us; the other 42.9 us"), "{n}");
        // At the goal: nothing to explain.
        let at = StepDemand { ops_s: 9_000.0, ..d.clone() };
        assert!(ceilings(&at, Some(&device()), "").notes.is_empty());
        // CPU-bound with fewer threads than cores: the threads are the limit.
        let cpu =
            StepDemand { ops_s: 100_000.0, threads: 1, cpu_s_per_op: Some(10e-6), cores: 2.0, ..Default::default() };
        let c = ceilings(&cpu, None, "no baseline");
        assert!(c.notes[0].contains("1 client thread(s) on 2 cores can use at most 50%"), "{:?}", c.notes);
    }

    #[test]
    fn a_rate_above_a_ceiling_is_warned_about() {
        // Page-cache hits counted as storage reads: 2 reads per query at depth 1 allow 5,000/s.
        let d = StepDemand { ops_s: 50_000.0, threads: 1, reads_per_op: Some(2.0), cores: 2.0, ..Default::default() };
        let c = ceilings(&d, Some(&device()), "");
        assert_eq!(c.ceilings[0].ops_s, 5_000.0);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("above the read ceiling"));
        assert_eq!(c.unknown, vec!["cpu: CPU per operation not measured"]);
    }

    #[test]
    fn without_a_device_baseline_only_the_cpu_ceiling_is_known_and_why_the_rest_is_not() {
        let d = StepDemand {
            ops_s: 1_000.0,
            threads: 1,
            reads_per_op: Some(1.0),
            cpu_s_per_op: Some(1e-3),
            cores: 2.0,
            ..Default::default()
        };
        let c = ceilings(&d, None, "a server rumbench did not start (--target): its device is unknown");
        assert_eq!(c.ceilings.len(), 1);
        assert_eq!(c.short().as_deref(), Some("cpu 50%"));
        assert!(c.unknown[0].contains("--target"));
        let none = ceilings(&StepDemand::default(), None, "no device baseline");
        assert_eq!((none.bound, none.pct_of_limit, none.short()), (None, None, None));
    }
}
