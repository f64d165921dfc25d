//! The device baseline of a data dir: found in the history (measured in the
//! last week on the same device, filesystem and kernel), or measured with
//! fio and stored there; `rumbench device` and `rumbench run` share this.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::measure::device_baseline::{key_of, DeviceContext, StoredBaseline};
use crate::measure::fio::{self, FioPlan};
use crate::report::history::{self, History};

/// fio's test file and seconds per job unless told otherwise: about a
/// minute, on a file no device cache holds.
pub const DEFAULT_FILE_BYTES: u64 = 4 << 30;
pub const DEFAULT_RUNTIME_S: u64 = 3;

/// Where baselines are read and stored: the history database, or none.
#[derive(Debug, Clone)]
pub struct Store {
    /// None: `--history` unset and no default path.
    pub path: Option<PathBuf>,
    /// Store new measurements (false with --no-history).
    pub write: bool,
}

impl Store {
    pub fn new(explicit: Option<&Path>, write: bool) -> Store {
        Store { path: history::resolve_path(explicit).ok(), write }
    }

    /// The latest baseline stored for `key` (a history that does not
    /// exist yet has none).
    pub fn latest(&self, key: &str) -> Result<Option<StoredBaseline>> {
        match &self.path {
            Some(p) if p.exists() => History::open_read_only(p)?.latest_device_baseline(key),
            _ => Ok(None),
        }
    }

    /// Store `b`; Ok(None) when not storing, else the history's path.
    pub fn store(&self, b: &StoredBaseline) -> Result<Option<PathBuf>> {
        match (&self.path, self.write) {
            (Some(p), true) => {
                History::open(p)?.store_device_baseline(b)?;
                Ok(Some(p.clone()))
            }
            _ => Ok(None),
        }
    }
}

/// Measure the device under `dir` (or its nearest existing ancestor) now.
fn measure(dir: &Path, file_bytes: u64, runtime_s: u64) -> Result<StoredBaseline> {
    let (key, _) = key_of(dir)?;
    let existing = dir.ancestors().find(|a| a.is_dir()).unwrap_or(Path::new("."));
    let stop = crate::driver::stop::stop_requested;
    let fio =
        fio::measure(&FioPlan { dir: existing.to_path_buf(), file_bytes, runtime_s }, &stop).map_err(
            |e| match stop() {
                true => e.context(crate::driver::stop::interrupted_text()),
                false => e,
            },
        )?;
    Ok(StoredBaseline { device_key: key, measured_at: crate::report::now_text(), dir: existing.to_path_buf(), fio })
}

/// `measure`, then store the baseline in `store`: it, and what became of it
/// ("stored in PATH", "not stored (--no-history)", or "not stored" with a warning).
pub fn measure_and_store(
    dir: &Path,
    file_bytes: u64,
    runtime_s: u64,
    store: &Store,
) -> Result<(StoredBaseline, String)> {
    let b = measure(dir, file_bytes, runtime_s)?;
    let stored = match store.store(&b) {
        Ok(Some(p)) => format!("stored in {}", p.display()),
        Ok(None) => "not stored (--no-history)".to_string(),
        Err(e) => {
            crate::errln!("warning: the device baseline was not stored: {}", format!("{e:#}").replace('\n', " "));
            "not stored".to_string()
        }
    };
    Ok((b, stored))
}

/// What a run's ceilings use for the data dirs under `db_root`: a stored
/// baseline of under a week, else (with `measure_if_missing`) one measured
/// now and stored, else none and why. Errors only when measuring fails.
pub fn for_run(db_root: &Path, store: &Store, measure_if_missing: bool) -> Result<DeviceContext> {
    let (key, dev) = match key_of(db_root) {
        Ok(k) => k,
        Err(e) => return Ok(DeviceContext::without(None, format!("the data dir's device is unknown: {e:#}"))),
    };
    if let Some(why) = &dev.io_not_meaningful {
        return Ok(DeviceContext::without(Some(key), format!("{why}: no device to measure")));
    }
    // A dir that exists now and after the run (the data dirs are removed at its end).
    let measurable = db_root.ancestors().find(|a| a.is_dir()).unwrap_or(Path::new("."));
    let how_to =
        format!("measure it with `rumbench device --dir {}`, or run with --device-baseline", measurable.display());
    let stored = match store.latest(&key) {
        Ok(s) => s,
        Err(e) if !measure_if_missing => {
            return Ok(DeviceContext::without(
                Some(key),
                format!("the history's device baselines are unreadable: {e:#}"),
            ))
        }
        Err(_) => None,
    };
    let now = chrono::Local::now().fixed_offset();
    let why = match &stored {
        Some(b) if b.is_fresh(now) => {
            return Ok(DeviceContext {
                device_key: Some(key),
                baseline: stored,
                source: Some("history".into()),
                missing: None,
            });
        }
        Some(b) => format!(
            "the device baseline of this data dir's device is {} days old (measured {}; older than a week): {how_to}",
            b.age_days(now).map(|d| format!("{d:.0}")).unwrap_or_else(|| "?".into()),
            b.measured_at
        ),
        None => format!("no device baseline of this data dir's device: {how_to}"),
    };
    if !measure_if_missing {
        return Ok(DeviceContext::without(Some(key), why));
    }
    crate::errln!(
        "measuring the data dir's device with fio first (--device-baseline): {} MB test file, {DEFAULT_RUNTIME_S} s per job, about a minute ...",
        DEFAULT_FILE_BYTES >> 20
    );
    let (b, stored) = measure_and_store(db_root, DEFAULT_FILE_BYTES, DEFAULT_RUNTIME_S, store)?;
    crate::errln!("device baseline {stored}");
    Ok(DeviceContext {
        device_key: Some(key),
        baseline: Some(b),
        source: Some("measured before the run".into()),
        missing: None,
    })
}

/// What a config of a server the user runs (`target`) gets instead.
pub fn for_target() -> DeviceContext {
    DeviceContext::without(None, "a server rumbench did not start (--target): its device is unknown")
}
