//! The device baseline a run's ceilings are computed from: which device,
//! filesystem and kernel a data dir is on (the key a measured baseline is
//! stored under in the history), how old a stored one may be before it is
//! measured again, and what a run records about it (result.json's `device`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::fio::FioBaseline;
use super::os::device::DataDirDevice;

/// A stored baseline older than this is not used: firmware, fill level,
/// mount options and neighbours change what a device does.
pub const MAX_AGE_DAYS: f64 = 7.0;

/// A baseline as stored and reused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredBaseline {
    pub device_key: String,
    /// RFC 3339.
    pub measured_at: String,
    /// The directory fio's test file was in.
    pub dir: PathBuf,
    pub fio: FioBaseline,
}

impl StoredBaseline {
    /// Days since it was measured (None when `measured_at` does not parse).
    pub fn age_days(&self, now: chrono::DateTime<chrono::FixedOffset>) -> Option<f64> {
        let at = chrono::DateTime::parse_from_rfc3339(&self.measured_at).ok()?;
        Some((now - at).num_seconds() as f64 / 86_400.0)
    }

    pub fn is_fresh(&self, now: chrono::DateTime<chrono::FixedOffset>) -> bool {
        self.age_days(now).is_some_and(|d| (0.0..MAX_AGE_DAYS).contains(&d))
    }
}

/// What a run knew about its data dir's device: the baseline its ceilings
/// use, or why there is none. Recorded in result.json.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceContext {
    /// The device, filesystem and kernel of the data dir (None: not resolved).
    pub device_key: Option<String>,
    pub baseline: Option<StoredBaseline>,
    /// Where the baseline came from: "history" or "measured before the run".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why there is no baseline (the device ceilings are then unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

impl DeviceContext {
    pub fn without(device_key: Option<String>, why: impl Into<String>) -> DeviceContext {
        DeviceContext { device_key, baseline: None, source: None, missing: Some(why.into()) }
    }

    /// Why the device ceilings are unknown ("" when there is a baseline).
    pub fn why_missing(&self) -> &str {
        self.missing.as_deref().unwrap_or(if self.baseline.is_some() { "" } else { "no device baseline" })
    }
}

/// The running kernel's release ("6.1.0-26-amd64").
pub fn kernel_release() -> String {
    super::os::sysinfo::kernel_release().value().cloned().unwrap_or_else(|| "unknown kernel".into())
}

/// The key a baseline is stored under: the disks (name, model, size), the
/// filesystem (type, source, mount point) and the kernel. A data dir on
/// another disk, a reformatted filesystem or a new kernel gets its own.
pub fn device_key(dev: &DataDirDevice, kernel: &str) -> String {
    let disks: Vec<String> = dev
        .disks
        .iter()
        .map(|d| {
            let mut s = d.name.clone();
            if let Some(m) = d.model.value().filter(|m| !m.is_empty()) {
                s.push_str(&format!(" {m}"));
            }
            if let Some(b) = d.size_bytes.value() {
                s.push_str(&format!(" {:.0}G", *b as f64 / 1e9));
            }
            s
        })
        .collect();
    let disks = if disks.is_empty() { format!("st_dev {}", dev.st_dev) } else { disks.join(" + ") };
    let fs = match &dev.mount {
        Some(m) => format!("{} {} at {}", m.fs_type, m.source, m.mount_point.display()),
        None => "unknown filesystem".into(),
    };
    format!("{disks}; {fs}; linux {kernel}")
}

/// The key of the directory `dir` (or of its nearest existing ancestor:
/// a data dir a run is about to create is on its parent's filesystem).
pub fn key_of(dir: &Path) -> anyhow::Result<(String, DataDirDevice)> {
    let existing = super::os::capacity::existing_ancestor(dir).unwrap_or_else(|| "/".into());
    let dev = DataDirDevice::resolve(&existing)?;
    Ok((device_key(&dev, &kernel_release()), dev))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(at: &str) -> StoredBaseline {
        StoredBaseline {
            device_key: "k".into(),
            measured_at: at.into(),
            dir: "/x".into(),
            fio: FioBaseline {
                fio_version: "fio-3.33".into(),
                file_bytes: 1,
                runtime_s: 1,
                random_reads: vec![],
                seq_write_mb_s: 1.0,
                random_write_4k_iops: 1.0,
                fdatasync_per_s: 1.0,
                fdatasync_p50_us: None,
                fdatasync_p99_us: None,
            },
        }
    }

    #[test]
    fn a_baseline_is_fresh_for_a_week() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-25T12:00:00+01:00").unwrap();
        assert!(stored("2026-11-25T11:00:00+01:00").is_fresh(now));
        assert!(stored("2026-11-18T13:00:00+01:00").is_fresh(now), "6 days 23 hours");
        assert!(!stored("2026-11-18T11:00:00+01:00").is_fresh(now), "7 days 1 hour");
        assert!(!stored("2026-11-26T11:00:00+01:00").is_fresh(now), "measured in the future: the clock moved");
        assert!(!stored("yesterday").is_fresh(now));
        assert_eq!(stored("2026-11-24T12:00:00+01:00").age_days(now), Some(1.0));
    }

    #[test]
    fn the_key_names_disks_filesystem_and_kernel() {
        let dev = DataDirDevice::resolve(Path::new("/")).unwrap();
        let key = device_key(&dev, "6.1.0-test");
        assert!(key.ends_with("; linux 6.1.0-test"), "{key}");
        if let Some(m) = &dev.mount {
            assert!(key.contains(&format!("{} {} at /", m.fs_type, m.source)), "{key}");
        }
        let (beneath, _) = key_of(Path::new("/no/such/dir/yet")).unwrap();
        assert_eq!(beneath, device_key(&dev, &kernel_release()), "a dir not made yet is its ancestor's");
    }
}
