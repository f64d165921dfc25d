//! A finished step's ceilings (measure::ceiling) from its own figures: what
//! it asked of the machine per operation (storage reads and their size,
//! bytes written, syncs, CPU) and the device baseline of the run.
//!
//! Per operation means per operation of the step, its background writer's
//! included: the ceilings and the rate they are compared with count the same
//! operations, so the percentage is the share of the device (or the CPU) used.

use crate::measure::ceiling::{ceilings, Ceilings, StepDemand};
use crate::measure::device_baseline::DeviceContext;
use crate::result::{Status, StepResult};

/// The ceilings of `s`, None for a step without a measured rate.
pub(crate) fn step_ceilings(s: &StepResult, device: &DeviceContext, server: bool, cores: f64) -> Option<Ceilings> {
    if !matches!(s.status, Status::Completed | Status::Interrupted) {
        return None;
    }
    let wall_s = s.wall_s.filter(|&w| w > 0.0 && s.ops_s.is_some())?;
    let ops = s.ops + s.writer.as_ref().map(|w| w.ops).unwrap_or(0);
    if ops == 0 {
        return None;
    }
    let per_op = |v: f64| v / ops as f64;
    let m = &s.metrics;
    let missing = |metric: &str| m.missing.iter().find(|x| x.metric == metric).map(|x| x.reason.clone());
    let mut unknown = Vec::new();
    let mut d = StepDemand { ops_s: ops as f64 / wall_s, threads: step_threads(s), cores, ..Default::default() };
    match &m.io {
        Some(io) => {
            if m.device_reads_by_others {
                unknown.push("read: other processes read from the data dir's device during the step".into());
            } else {
                d.reads_per_op = Some(per_op(io.read_requests as f64));
                d.bytes_per_read = (io.read_requests > 0).then(|| io.bytes_read as f64 / io.read_requests as f64);
            }
            d.write_bytes_per_op = match (m.device_writes_by_others, m.process_write_bytes) {
                (false, _) => Some(per_op(io.bytes_written as f64)),
                // The measured processes' own bytes, as the summary's w-amp.
                (true, Some(own)) => Some(per_op(own as f64)),
                (true, None) => {
                    unknown.push("write: other processes wrote to the data dir's device during the step".into());
                    None
                }
            };
        }
        None => unknown.push(format!(
            "read and write: storage IO not measured ({})",
            missing("io").unwrap_or_else(|| "no reason recorded".into())
        )),
    }
    match &m.syncs {
        // Durable commits: sync_file_range only starts writeback.
        Some(y) => d.syncs_per_op = Some(per_op(y.server_syncs.unwrap_or(y.fsync + y.fdatasync + y.msync) as f64)),
        None => {
            if let Some(why) = missing("syncs") {
                unknown.push(format!("sync: {why}"));
            }
        }
    }
    let client = m.client_cpu_us_op;
    d.cpu_s_per_op = match (server, client, m.srv_cpu_us_op) {
        (false, Some(c), _) => Some(c / 1e6),
        (true, Some(c), Some(e)) => Some((c + e) / 1e6),
        (true, Some(c), None) => {
            unknown.push(format!(
                "cpu: the server's CPU was not measured ({}): the cpu ceiling is the client's only",
                missing("srv_cpu_us_op").unwrap_or_else(|| "no reason recorded".into())
            ));
            Some(c / 1e6)
        }
        (_, None, _) => {
            d.cpu_unmeasured = missing("client_cpu_us_op");
            None
        }
    };
    let mut c = ceilings(&d, device.baseline.as_ref().map(|b| &b.fio), device.why_missing());
    c.unknown.extend(unknown);
    Some(c)
}

/// The step's concurrency: its client threads (a replay's, which follow the
/// trace unless --threads was given), and its background writer.
fn step_threads(s: &StepResult) -> u32 {
    let clients = s.replay.as_ref().map_or(s.settings.threads, |r| r.threads as usize);
    (clients + usize::from(s.writer.is_some())).max(1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::device_baseline::StoredBaseline;
    use crate::measure::step_metrics::{IoMetrics, Missing, SyncMetrics};

    fn device() -> DeviceContext {
        let fio =
            crate::measure::fio::parse(include_str!("../../tests/fixtures/fio-3.33-device.json"), 1 << 28, 2).unwrap();
        DeviceContext {
            device_key: Some("vda".into()),
            baseline: Some(StoredBaseline {
                device_key: "vda".into(),
                measured_at: "2026-11-25T10:00:00+00:00".into(),
                dir: "/d".into(),
                fio,
            }),
            source: Some("history".into()),
            missing: None,
        }
    }

    fn step(ops: u64, wall_s: f64) -> StepResult {
        use crate::result::fixtures;
        let mut s = fixtures::step(
            crate::plan::steps::StepKind::ReadRandom,
            wall_s,
            vec![fixtures::op("get", ops, 10.0, 0, 0, 0)],
        );
        s.metrics.client_cpu_us_op = None;
        s
    }

    #[test]
    fn a_replay_runs_at_the_traces_threads_not_the_runs() {
        let mut s = step(10_000, 2.0);
        s.settings.threads = 1;
        assert_eq!(step_threads(&s), 1);
        s.replay = Some(crate::result::trace::Replay { threads: 4, ..Default::default() });
        assert_eq!(step_threads(&s), 4);
    }

    #[test]
    fn a_point_query_step_is_bound_by_the_devices_reads_at_its_concurrency() {
        let dev = device();
        let fio = &dev.baseline.as_ref().unwrap().fio;
        let mut s = step(10_000, 2.0);
        s.settings.threads = 1;
        s.metrics.io = Some(IoMetrics { read_requests: 12_000, bytes_read: 12_000 * 4096, ..Default::default() });
        s.metrics.client_cpu_us_op = Some(20.0);
        let c = step_ceilings(&s, &dev, false, 2.0).unwrap();
        let read = c.ceilings.iter().find(|x| x.resource.name() == "read").unwrap();
        // 1.2 reads of 4 KB per operation at depth 1.
        assert!((read.ops_s - fio.read_iops(4096, 1).unwrap() / 1.2).abs() < 1e-6, "{read:?}");
        let cpu = c.ceilings.iter().find(|x| x.resource.name() == "cpu").unwrap();
        assert!((cpu.ops_s - 2.0 / 20e-6).abs() < 1e-6);
        assert!(c.ceilings.iter().all(|x| x.resource.name() != "write"), "wrote nothing: no write ceiling");
        assert_eq!(
            c.pct_of_limit.unwrap(),
            5_000.0 / c.ceilings.iter().map(|x| x.ops_s).fold(f64::MAX, f64::min) * 100.0
        );
    }

    #[test]
    fn without_a_baseline_the_step_keeps_its_cpu_ceiling_and_says_why_the_rest_is_unknown() {
        let mut s = step(1_000, 1.0);
        s.metrics.client_cpu_us_op = Some(500.0);
        s.metrics.missing.push(Missing { metric: "io".into(), reason: "tmpfs has no device".into() });
        s.metrics.syncs =
            Some(SyncMetrics { fdatasync: 1_000, sync_file_range: 5_000, commits: 1_000, ..Default::default() });
        let none = DeviceContext::without(Some("vda".into()), "no device baseline of vda (rumbench device)");
        let c = step_ceilings(&s, &none, false, 2.0).unwrap();
        assert_eq!(c.short().as_deref(), Some("cpu 25%"));
        assert!(c.unknown.iter().any(|u| u.contains("no device baseline of vda")), "{:?}", c.unknown);
        assert!(c.unknown.iter().any(|u| u.contains("tmpfs has no device")), "{:?}", c.unknown);
        // With the baseline: one fdatasync per op (sync_file_range is not a commit's sync).
        let dev = device();
        let c = step_ceilings(&s, &dev, false, 2.0).unwrap();
        let sync = c.ceilings.iter().find(|x| x.resource.name() == "sync").unwrap();
        assert_eq!(sync.ops_s, dev.baseline.unwrap().fio.fdatasync_per_s);
    }

    #[test]
    fn a_server_without_its_cpu_gets_the_clients_ceiling_and_says_so() {
        let mut s = step(1_000, 1.0);
        s.metrics.client_cpu_us_op = Some(100.0);
        s.metrics.missing.push(Missing {
            metric: "srv_cpu_us_op".into(),
            reason: "a server rumbench did not start (--target)".into(),
        });
        let c = step_ceilings(&s, &DeviceContext::without(None, "--target: the server's device is unknown"), true, 4.0)
            .unwrap();
        assert_eq!(c.ceilings.len(), 1);
        assert!(c.unknown.iter().any(|u| u.contains("the client's only") && u.contains("--target")), "{:?}", c.unknown);
    }

    #[test]
    fn a_step_without_a_rate_has_no_ceilings() {
        let mut s = step(0, 1.0);
        s.ops_s = None;
        assert_eq!(step_ceilings(&s, &device(), false, 2.0), None);
        let mut f = step(10, 1.0);
        f.status = Status::Failed;
        assert_eq!(step_ceilings(&f, &device(), false, 2.0), None);
    }
}
