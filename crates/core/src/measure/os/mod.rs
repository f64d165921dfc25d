//! The OS measurement layer: what the operating system can tell us about a
//! step's cost, and about the machine it ran on.
//!
//! * [`diskstats`]: storage IO counters of block devices (/proc/diskstats) and
//!   the per-step figures derived from them (rpq, rkbpq, wkbpi, rates).
//! * [`capacity`]: the memory and disk space a run may still take.
//! * [`clock`]: whether the clock is synchronized (the kernel's NTP state), for shards.
//! * [`device`]: which block device(s) actually hold a data dir, through
//!   partitions, device-mapper and md; mount, queue attributes, fullness.
//! * [`process`]: CPU, IO and memory of a process or process tree
//!   (/proc/PID/{stat,io,status}) and of the whole host (/proc/stat, /proc/uptime).
//! * [`space`]: allocated bytes under a directory (`db_size`).
//! * [`sampler`]: 1-second RSS/VSZ series with peaks.
//! * [`syncs`]: fsync/fdatasync/msync/sync_file_range calls, counted by
//!   interposing the libc functions.
//! * [`sysinfo`]: the environment captured with every result, and the
//!   warnings derived from it.
//!
//! Everything exposed is plain data (`Serialize + Clone + Debug`). A value
//! the OS could not give is a [`Probe::Unavailable`] with the reason, never 0.
//! Readers of /proc and /sys take a [`Roots`] so tests can point them at the
//! fixture trees under `tests/fixtures/`.

pub mod capacity;
pub mod clock;
pub mod device;
pub mod diskstats;
pub mod process;
pub mod sampler;
pub mod space;
pub mod syncs;
pub mod sysinfo;

use std::path::{Path, PathBuf};

use serde::Serialize;

/// Where procfs and sysfs are, and the kernel constants needed to read them.
/// [`Roots::live`] is this machine; tests use fixture directories.
#[derive(Debug, Clone, Serialize)]
pub struct Roots {
    /// Normally `/proc`.
    pub proc: PathBuf,
    /// Normally `/sys`.
    pub sys: PathBuf,
    /// USER_HZ, the unit of CPU times in /proc (100 on every Linux build we know of).
    pub ticks_per_second: u64,
    /// Page size, the unit of /proc/PID/statm.
    pub page_size: u64,
}

impl Roots {
    /// The running system: `/proc`, `/sys` and its real tick rate and page size.
    pub fn live() -> Roots {
        Roots {
            proc: PathBuf::from("/proc"),
            sys: PathBuf::from("/sys"),
            ticks_per_second: procfs::ticks_per_second(),
            page_size: procfs::page_size(),
        }
    }

    /// Fixture trees `<base>/proc` and `<base>/sys`, with USER_HZ 100 and 4 KiB pages.
    pub fn fixture(base: &Path) -> Roots {
        Roots { proc: base.join("proc"), sys: base.join("sys"), ticks_per_second: 100, page_size: 4096 }
    }
}

/// A value read from the OS, or the reason it could not be read.
///
/// Serialized as `{"value": ...}` or `{"unavailable": "reason"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Probe<T> {
    Value(T),
    Unavailable(String),
}

impl<T> Probe<T> {
    /// The value, if there is one.
    pub fn value(&self) -> Option<&T> {
        match self {
            Probe::Value(v) => Some(v),
            Probe::Unavailable(_) => None,
        }
    }

    /// Why there is no value, if there is none.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Probe::Value(_) => None,
            Probe::Unavailable(r) => Some(r),
        }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Probe<U> {
        match self {
            Probe::Value(v) => Probe::Value(f(v)),
            Probe::Unavailable(r) => Probe::Unavailable(r),
        }
    }

    /// `Value` from `Ok`, `Unavailable` with the error's text from `Err`.
    pub fn from_result<E: std::fmt::Display>(r: Result<T, E>) -> Probe<T> {
        match r {
            Ok(v) => Probe::Value(v),
            Err(e) => Probe::Unavailable(e.to_string()),
        }
    }
}

/// Reads a small text file (sysfs attribute), trimmed; the error names the path.
pub(crate) fn read_trimmed(path: &Path) -> Probe<String> {
    match std::fs::read_to_string(path) {
        Ok(s) => Probe::Value(s.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Probe::Unavailable(format!("{} not present", path.display()))
        }
        Err(e) => Probe::Unavailable(format!("{}: {e}", path.display())),
    }
}

/// Reads a sysfs attribute holding one unsigned number.
pub(crate) fn read_u64(path: &Path) -> Probe<u64> {
    match read_trimmed(path) {
        Probe::Value(s) => match s.parse() {
            Ok(v) => Probe::Value(v),
            Err(_) => Probe::Unavailable(format!("{}: not a number: {s:?}", path.display())),
        },
        Probe::Unavailable(r) => Probe::Unavailable(r),
    }
}

/// The selected entry of a sysfs choice list such as `none [mq-deadline] kyber`
/// (a lone word without brackets is taken as selected).
pub(crate) fn bracketed(s: &str) -> Option<String> {
    if let (Some(a), Some(b)) = (s.find('['), s.find(']')) {
        if a < b {
            return Some(s[a + 1..b].to_string());
        }
    }
    let mut words = s.split_whitespace();
    match (words.next(), words.next()) {
        (Some(w), None) => Some(w.to_string()),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_choice() {
        assert_eq!(bracketed("none [mq-deadline] kyber bfq").as_deref(), Some("mq-deadline"));
        assert_eq!(bracketed("[none] mq-deadline").as_deref(), Some("none"));
        assert_eq!(bracketed("none").as_deref(), Some("none"));
        assert_eq!(bracketed("always madvise never"), None);
        assert_eq!(bracketed("always [madvise] never").as_deref(), Some("madvise"));
    }

    #[test]
    fn probe_serializes_value_or_reason() {
        let v: Probe<u64> = Probe::Value(3);
        let u: Probe<u64> = Probe::Unavailable("no".into());
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"value":3}"#);
        assert_eq!(serde_json::to_string(&u).unwrap(), r#"{"unavailable":"no"}"#);
    }
}
