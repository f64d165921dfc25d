//! Block device IO counters from /proc/diskstats, and the per-step IO
//! figures derived from them.
//!
//! Field layout (Documentation/admin-guide/iostats.rst): 14 fields before
//! Linux 4.18, 18 with the discard fields (4.18+), 20 with the flush fields
//! (5.5+). Parsing is procfs's `DiskStat::from_line`, which leaves the later
//! fields `None` on older kernels. Sectors are always 512 bytes, whatever the
//! device's logical block size.

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use serde::Serialize;

/// Bytes per /proc/diskstats sector, on every device.
pub const SECTOR_BYTES: u64 = 512;

/// Counters of one block device, or the sum over several (see `devices`).
///
/// Discards (TRIM) are kept in their own fields and never added to writes.
/// `None` means the kernel does not report that field (not zero).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiskCounters {
    /// Device names (as in /proc/diskstats) these counters are summed over.
    pub devices: Vec<String>,
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub read_ms: u64,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub write_ms: u64,
    /// Milliseconds the device had IO in flight (summed over devices when
    /// several, so it can exceed wall time).
    pub io_ticks_ms: u64,
    /// Weighted milliseconds spent doing IO (queue time).
    pub time_in_queue_ms: u64,
    /// Discard requests completed (Linux 4.18+).
    pub discards: Option<u64>,
    pub discards_merged: Option<u64>,
    pub sectors_discarded: Option<u64>,
    pub discard_ms: Option<u64>,
    /// Flush requests completed (Linux 5.5+).
    pub flushes: Option<u64>,
    pub flush_ms: Option<u64>,
}

fn opt_add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a? + b?)
}

fn opt_sub(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a?.saturating_sub(b?))
}

impl DiskCounters {
    /// Parses one /proc/diskstats line (14, 18 or 20 counter fields).
    pub fn parse_line(line: &str) -> Result<DiskCounters> {
        let d = procfs::DiskStat::from_line(line).map_err(|e| anyhow!("bad /proc/diskstats line {line:?}: {e}"))?;
        Ok(DiskCounters {
            devices: vec![d.name],
            reads: d.reads,
            reads_merged: d.merged,
            sectors_read: d.sectors_read,
            read_ms: d.time_reading,
            writes: d.writes,
            writes_merged: d.writes_merged,
            sectors_written: d.sectors_written,
            write_ms: d.time_writing,
            io_ticks_ms: d.time_in_progress,
            time_in_queue_ms: d.weighted_time_in_progress,
            discards: d.discards,
            discards_merged: d.discards_merged,
            sectors_discarded: d.sectors_discarded,
            discard_ms: d.time_discarding,
            flushes: d.flushes,
            flush_ms: d.time_flushing,
        })
    }

    /// Parses a whole /proc/diskstats text.
    pub fn parse_all(text: &str) -> Result<Vec<DiskCounters>> {
        text.lines().filter(|l| !l.trim().is_empty()).map(DiskCounters::parse_line).collect()
    }

    /// Reads `<proc_root>/diskstats` and sums the named devices. Every name
    /// must be present. Names are as in /proc/diskstats (sysfs writes `/` in
    /// a name as `!`; both spellings are accepted).
    pub fn read(proc_root: &Path, devices: &[String]) -> Result<DiskCounters> {
        if devices.is_empty() {
            return Err(anyhow!("no block device to read counters for"));
        }
        let path = proc_root.join("diskstats");
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let all = DiskCounters::parse_all(&text)?;
        let mut sum: Option<DiskCounters> = None;
        for want in devices {
            let want_proc = want.replace('!', "/");
            let one = all
                .iter()
                .find(|c| c.devices[0] == want_proc)
                .ok_or_else(|| anyhow!("device {want} not in {}", path.display()))?;
            sum = Some(match sum {
                None => one.clone(),
                Some(s) => s.plus(one),
            });
        }
        Ok(sum.expect("devices is not empty"))
    }

    /// Sum of two devices' counters (device lists concatenated). A field one
    /// of them lacks is `None` in the sum.
    pub fn plus(&self, o: &DiskCounters) -> DiskCounters {
        let mut devices = self.devices.clone();
        devices.extend(o.devices.iter().cloned());
        DiskCounters {
            devices,
            reads: self.reads + o.reads,
            reads_merged: self.reads_merged + o.reads_merged,
            sectors_read: self.sectors_read + o.sectors_read,
            read_ms: self.read_ms + o.read_ms,
            writes: self.writes + o.writes,
            writes_merged: self.writes_merged + o.writes_merged,
            sectors_written: self.sectors_written + o.sectors_written,
            write_ms: self.write_ms + o.write_ms,
            io_ticks_ms: self.io_ticks_ms + o.io_ticks_ms,
            time_in_queue_ms: self.time_in_queue_ms + o.time_in_queue_ms,
            discards: opt_add(self.discards, o.discards),
            discards_merged: opt_add(self.discards_merged, o.discards_merged),
            sectors_discarded: opt_add(self.sectors_discarded, o.sectors_discarded),
            discard_ms: opt_add(self.discard_ms, o.discard_ms),
            flushes: opt_add(self.flushes, o.flushes),
            flush_ms: opt_add(self.flush_ms, o.flush_ms),
        }
    }

    /// What happened between `earlier` and `self` (counters subtracted,
    /// saturating at 0 should a counter have been reset).
    pub fn since(&self, earlier: &DiskCounters) -> DiskCounters {
        DiskCounters {
            devices: self.devices.clone(),
            reads: self.reads.saturating_sub(earlier.reads),
            reads_merged: self.reads_merged.saturating_sub(earlier.reads_merged),
            sectors_read: self.sectors_read.saturating_sub(earlier.sectors_read),
            read_ms: self.read_ms.saturating_sub(earlier.read_ms),
            writes: self.writes.saturating_sub(earlier.writes),
            writes_merged: self.writes_merged.saturating_sub(earlier.writes_merged),
            sectors_written: self.sectors_written.saturating_sub(earlier.sectors_written),
            write_ms: self.write_ms.saturating_sub(earlier.write_ms),
            io_ticks_ms: self.io_ticks_ms.saturating_sub(earlier.io_ticks_ms),
            time_in_queue_ms: self.time_in_queue_ms.saturating_sub(earlier.time_in_queue_ms),
            discards: opt_sub(self.discards, earlier.discards),
            discards_merged: opt_sub(self.discards_merged, earlier.discards_merged),
            sectors_discarded: opt_sub(self.sectors_discarded, earlier.sectors_discarded),
            discard_ms: opt_sub(self.discard_ms, earlier.discard_ms),
            flushes: opt_sub(self.flushes, earlier.flushes),
            flush_ms: opt_sub(self.flush_ms, earlier.flush_ms),
        }
    }

    pub fn bytes_read(&self) -> u64 {
        self.sectors_read * SECTOR_BYTES
    }

    /// Bytes written, discards excluded.
    pub fn bytes_written(&self) -> u64 {
        self.sectors_written * SECTOR_BYTES
    }

    /// Bytes discarded (TRIM), `None` when the kernel has no discard fields.
    pub fn bytes_discarded(&self) -> Option<u64> {
        self.sectors_discarded.map(|s| s * SECTOR_BYTES)
    }
}

/// Per-step storage IO figures from a [`DiskCounters`] delta.
///
/// KB = 1024 bytes, MB = 1024*1024 bytes (as iostat). A per-operation figure
/// is `None` when its operation count is 0; rates are `None` for a zero-length step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IoFigures {
    pub seconds: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub bytes_discarded: Option<u64>,
    /// Read requests completed per second.
    pub reads_per_s: Option<f64>,
    /// Write requests completed per second (discards and flushes excluded).
    pub writes_per_s: Option<f64>,
    pub read_mb_s: Option<f64>,
    pub write_mb_s: Option<f64>,
    pub discard_mb_s: Option<f64>,
    /// `rpq`: storage read requests per query.
    pub rpq: Option<f64>,
    /// `rkbpq`: KB read from storage per query.
    pub rkbpq: Option<f64>,
    /// `wkbpi`: KB written to storage per insert (or write op).
    pub wkbpi: Option<f64>,
}

impl IoFigures {
    /// `delta`: the step's counters (`end.since(&start)`); `queries`: read
    /// operations of the step; `writes`: inserts / write operations.
    pub fn from_delta(delta: &DiskCounters, seconds: f64, queries: u64, writes: u64) -> IoFigures {
        const KB: f64 = 1024.0;
        const MB: f64 = 1024.0 * 1024.0;
        let rate = |x: f64| (seconds > 0.0).then(|| x / seconds);
        let per = |x: f64, n: u64| (n > 0).then(|| x / n as f64);
        let bytes_discarded = delta.bytes_discarded();
        IoFigures {
            seconds,
            bytes_read: delta.bytes_read(),
            bytes_written: delta.bytes_written(),
            bytes_discarded,
            reads_per_s: rate(delta.reads as f64),
            writes_per_s: rate(delta.writes as f64),
            read_mb_s: rate(delta.bytes_read() as f64 / MB),
            write_mb_s: rate(delta.bytes_written() as f64 / MB),
            discard_mb_s: bytes_discarded.and_then(|b| rate(b as f64 / MB)),
            rpq: per(delta.reads as f64, queries),
            rkbpq: per(delta.bytes_read() as f64 / KB, queries),
            wkbpi: per(delta.bytes_written() as f64 / KB, writes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::os::fixtures;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(fixtures().join("proc").join(name)).unwrap()
    }

    #[test]
    fn parses_14_field_kernel_without_discards() {
        let all = DiskCounters::parse_all(&fixture("diskstats-14-fields")).unwrap();
        let sda = all.iter().find(|c| c.devices == ["sda"]).unwrap();
        assert_eq!(sda.reads, 95_103);
        assert_eq!(sda.sectors_read, 4_416_598);
        assert_eq!(sda.writes, 1_280_644);
        assert_eq!(sda.sectors_written, 41_389_920);
        assert_eq!(sda.io_ticks_ms, 1_114_636);
        assert_eq!(sda.discards, None);
        assert_eq!(sda.sectors_discarded, None);
        assert_eq!(sda.flushes, None);
        assert_eq!(sda.bytes_discarded(), None);
    }

    #[test]
    fn parses_18_field_kernel_with_discards() {
        let all = DiskCounters::parse_all(&fixture("diskstats-18-fields")).unwrap();
        let nvme = all.iter().find(|c| c.devices == ["nvme0n1"]).unwrap();
        assert_eq!(nvme.writes, 2_004_117);
        assert_eq!(nvme.sectors_written, 98_151_488);
        assert_eq!(nvme.discards, Some(1_208));
        assert_eq!(nvme.sectors_discarded, Some(409_620_480));
        assert_eq!(nvme.flushes, None);
        // TRIM is not a write.
        assert_eq!(nvme.bytes_written(), 98_151_488 * 512);
        assert_eq!(nvme.bytes_discarded(), Some(409_620_480 * 512));
    }

    #[test]
    fn parses_20_field_kernel_with_flushes_and_partitions() {
        let all = DiskCounters::parse_all(&fixture("diskstats")).unwrap();
        let part = all.iter().find(|c| c.devices == ["nvme0n1p2"]).unwrap();
        assert_eq!(part.sectors_written, 97_312_400);
        assert_eq!(part.flushes, Some(0)); // partitions report the flush fields as 0
        let disk = all.iter().find(|c| c.devices == ["nvme0n1"]).unwrap();
        assert_eq!(disk.flushes, Some(301_522));
        assert_eq!(disk.flush_ms, Some(88_140));
        assert_eq!(disk.discards, Some(3_111));
        let dm = all.iter().find(|c| c.devices == ["dm-0"]).unwrap();
        assert_eq!(dm.writes, 5_310_051);
    }

    #[test]
    fn read_sums_named_devices_and_fails_on_missing() {
        let proc = fixtures().join("proc");
        let s = DiskCounters::read(&proc, &["sdb".into(), "sdc".into()]).unwrap();
        let all = DiskCounters::parse_all(&fixture("diskstats")).unwrap();
        let b = all.iter().find(|c| c.devices == ["sdb"]).unwrap();
        let c = all.iter().find(|c| c.devices == ["sdc"]).unwrap();
        assert_eq!(s.devices, ["sdb", "sdc"]);
        assert_eq!(s.sectors_written, b.sectors_written + c.sectors_written);
        assert_eq!(s.discards, Some(b.discards.unwrap() + c.discards.unwrap()));
        assert!(DiskCounters::read(&proc, &["sdz".into()]).is_err());
    }

    #[test]
    fn sum_with_a_device_lacking_discards_has_none() {
        let old = DiskCounters::parse_line("8 0 sda 1 0 8 0 2 0 16 0 0 0 0").unwrap();
        let new = DiskCounters::parse_line("8 16 sdb 1 0 8 0 2 0 16 0 0 0 0 5 0 80 1").unwrap();
        assert_eq!(old.plus(&new).discards, None);
        assert_eq!(new.plus(&new).discards, Some(10));
    }

    #[test]
    fn delta_and_figures() {
        let a = DiskCounters::parse_line("259 0 nvme0n1 100 0 800 5 200 0 1600 7 0 10 12 1 0 2048 0 4 1").unwrap();
        let b = DiskCounters::parse_line("259 0 nvme0n1 300 0 2400 9 600 0 9792 15 0 30 40 3 0 6144 0 9 2").unwrap();
        let d = b.since(&a);
        assert_eq!((d.reads, d.sectors_read, d.writes, d.sectors_written), (200, 1600, 400, 8192));
        assert_eq!((d.discards, d.sectors_discarded, d.flushes), (Some(2), Some(4096), Some(5)));
        let f = IoFigures::from_delta(&d, 2.0, 100, 1000);
        assert_eq!(f.rpq, Some(2.0));
        assert_eq!(f.rkbpq, Some(1600.0 * 512.0 / 1024.0 / 100.0));
        assert_eq!(f.wkbpi, Some(8192.0 * 512.0 / 1024.0 / 1000.0));
        assert_eq!(f.reads_per_s, Some(100.0));
        assert_eq!(f.writes_per_s, Some(200.0));
        assert_eq!(f.write_mb_s, Some(8192.0 * 512.0 / 1048576.0 / 2.0));
        assert_eq!(f.discard_mb_s, Some(4096.0 * 512.0 / 1048576.0 / 2.0));
        let none = IoFigures::from_delta(&d, 0.0, 0, 0);
        assert_eq!((none.rpq, none.wkbpi, none.reads_per_s), (None, None, None));
    }

    #[test]
    fn live_diskstats_parse() {
        // This kernel's lines, each to its own device and counters, with the
        // discard and flush fields exactly when the kernel gives them.
        let text = std::fs::read_to_string("/proc/diskstats").unwrap();
        let lines: Vec<Vec<&str>> =
            text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|f| !f.is_empty()).collect();
        let all = DiskCounters::parse_all(&text).unwrap();
        assert_eq!(all.len(), lines.len());
        for (c, f) in all.iter().zip(&lines) {
            let n = |i: usize| f[i].parse::<u64>().unwrap();
            assert_eq!(c.devices, [f[2]]);
            assert_eq!((c.reads, c.sectors_read, c.writes, c.sectors_written), (n(3), n(5), n(7), n(9)), "{f:?}");
            assert_eq!((c.io_ticks_ms, c.time_in_queue_ms), (n(12), n(13)), "{f:?}");
            assert_eq!(c.sectors_discarded, (f.len() >= 18).then(|| n(16)), "{f:?}");
            assert_eq!(c.flushes, (f.len() >= 20).then(|| n(18)), "{f:?}");
        }
    }
}
