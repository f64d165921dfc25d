//! The run's stop flag: set by the signal handler (SIGINT, SIGTERM, SIGHUP),
//! read by every loop.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the signal handler (SIGINT, SIGTERM, SIGHUP): every loop checks it and stops.
pub static STOP: AtomicBool = AtomicBool::new(false);
/// The first stop signal received (0: none).
static STOP_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Ask every loop to stop because of `signal`. Returns whether a stop had
/// already been asked for (a second signal).
pub fn request_stop(signal: i32) -> bool {
    let _ = STOP_SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    STOP.swap(true, Ordering::SeqCst)
}

/// The signal that stopped the run, if one did.
pub fn stop_signal() -> Option<i32> {
    Some(STOP_SIGNAL.load(Ordering::SeqCst)).filter(|&s| s != 0)
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
        _ => "a signal",
    }
}

