//! How far this machine's clock can be trusted: what shards started "at the
//! same moment" on several machines rely on. The kernel's NTP state
//! (adjtimex: synchronized or not, estimated and maximum error) is there
//! whatever keeps the clock (chrony, ntpd, systemd-timesyncd, a hypervisor's
//! PTP); which daemon that is, where it can be seen.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockSync {
    /// The kernel says an NTP-style discipline keeps the clock synchronized
    /// (None: it could not be asked).
    pub synchronized: Option<bool>,
    /// The kernel's estimated error of the clock, microseconds (set by the daemon).
    pub est_error_us: Option<i64>,
    /// The kernel's maximum error, microseconds.
    pub max_error_us: Option<i64>,
    /// The daemon found running (chronyd, ntpd, systemd-timesyncd), if any.
    pub daemon: Option<String>,
}

impl ClockSync {
    pub fn read() -> ClockSync {
        // SAFETY: a zeroed timex is valid plain data (modes = 0: read only).
        let mut tx: libc::timex = unsafe { std::mem::zeroed() };
        // SAFETY: adjtimex with modes = 0 only reads the kernel's state into `tx`.
        let state = unsafe { libc::adjtimex(&mut tx) };
        let (synchronized, est, max) = if state < 0 {
            (None, None, None)
        } else {
            let synced = state != libc::TIME_ERROR && tx.status & libc::STA_UNSYNC == 0;
            (Some(synced), Some(tx.esterror as i64), Some(tx.maxerror as i64))
        };
        ClockSync { synchronized, est_error_us: est, max_error_us: max, daemon: daemon() }
    }

    /// One line for a table: "synchronized (chronyd), est. error 12 us".
    pub fn describe(&self) -> String {
        let state = match self.synchronized {
            Some(true) => "synchronized",
            Some(false) => "NOT synchronized",
            None => "unknown",
        };
        let daemon = self.daemon.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
        let err = match (self.synchronized, self.est_error_us) {
            (Some(true), Some(e)) => format!(", est. error {e} us"),
            _ => String::new(),
        };
        format!("{state}{daemon}{err}")
    }
}

/// The time daemon running here, by its process name.
fn daemon() -> Option<String> {
    let known = ["chronyd", "ntpd", "systemd-timesyncd", "ptp4l", "phc2sys", "openntpd"];
    let entries = std::fs::read_dir("/proc").ok()?;
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(comm) = std::fs::read_to_string(e.path().join("comm")) {
            let comm = comm.trim();
            if known.contains(&comm) {
                return Some(comm.to_string());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_answers_and_the_line_says_what_it_said() {
        let c = ClockSync::read();
        assert!(c.synchronized.is_some(), "adjtimex answers on Linux: {c:?}");
        let unsynced = ClockSync {
            synchronized: Some(false),
            est_error_us: Some(16000000),
            max_error_us: Some(16000000),
            daemon: None,
        };
        assert_eq!(unsynced.describe(), "NOT synchronized");
        let synced = ClockSync {
            synchronized: Some(true),
            est_error_us: Some(12),
            max_error_us: Some(400),
            daemon: Some("chronyd".into()),
        };
        assert_eq!(synced.describe(), "synchronized (chronyd), est. error 12 us");
    }
}
