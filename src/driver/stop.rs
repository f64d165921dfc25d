//! The run's stop flag: set by the signal handler (SIGINT, SIGTERM, SIGHUP),
//! read by every loop.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

/// The run's stop state: set by the signal handlers, read by every loop.
struct StopState {
    stop: AtomicBool,
    /// The first stop signal received (0: none).
    signal: AtomicI32,
    /// When the first stop was asked for (ms on a monotonic clock, from 1; 0: not yet).
    first_ms: AtomicU64,
}

impl StopState {
    const fn new() -> StopState {
        StopState { stop: AtomicBool::new(false), signal: AtomicI32::new(0), first_ms: AtomicU64::new(0) }
    }

    fn request(&self, signal: i32, now_ms: u64) -> StopRequest {
        let _ = self.signal.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
        let first = match self.first_ms.compare_exchange(0, now_ms, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => now_ms,
            Err(first) => first,
        };
        if !self.stop.swap(true, Ordering::SeqCst) {
            StopRequest::First
        } else if now_ms.saturating_sub(first) < REPEAT_WINDOW.as_millis() as u64 {
            StopRequest::Repeat
        } else {
            StopRequest::Again
        }
    }
}

static STATE: StopState = StopState::new();

pub fn stop_requested() -> bool {
    STATE.stop.load(Ordering::Relaxed)
}

/// A signal this soon after the first is the same request, not "again":
/// coreutils `timeout` sends SIGTERM to the process and then to its group,
/// systemd to every process of the unit while rumbench forwards its own;
/// a person who means "exit now" signals again later than this.
pub const REPEAT_WINDOW: std::time::Duration = std::time::Duration::from_secs(1);

/// How a stop request relates to earlier ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopRequest {
    /// The first: wind down.
    First,
    /// A duplicate of the first (within [`REPEAT_WINDOW`]): nothing more to do.
    Repeat,
    /// Asked again later: the user does not want to wait.
    Again,
}

/// Ask every loop to stop because of `signal`.
pub fn request_stop(signal: i32) -> StopRequest {
    // A monotonic clock: a wall-clock step must not turn a duplicate into "again".
    static BASE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let now_ms = BASE.get_or_init(std::time::Instant::now).elapsed().as_millis() as u64 + 1;
    STATE.request(signal, now_ms)
}

/// The signal that stopped the run, if one did.
pub fn stop_signal() -> Option<i32> {
    Some(STATE.signal.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// The one-line reason of an interrupted step or run: "interrupted by SIGTERM".
pub fn interrupted_text() -> String {
    match stop_signal() {
        Some(sig) => format!("interrupted by {}", signal_name(sig)),
        None => "interrupted".into(),
    }
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGPIPE => "SIGPIPE",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_within_the_window_is_not_a_second_request() {
        let state = StopState::new();
        assert_eq!(state.request(libc::SIGTERM, 10_000), StopRequest::First);
        assert_eq!(state.request(libc::SIGTERM, 10_002), StopRequest::Repeat, "timeout's second SIGTERM, to the group");
        assert_eq!(state.request(libc::SIGTERM, 10_999), StopRequest::Repeat);
        assert_eq!(state.request(libc::SIGINT, 11_500), StopRequest::Again, "a later signal means exit now");
        assert_eq!(state.signal.load(Ordering::SeqCst), libc::SIGTERM, "the first signal is the one recorded");
    }
}
