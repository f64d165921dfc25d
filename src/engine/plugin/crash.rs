//! Which call a plugin crashed in. Each call into a plugin marks its thread
//! with the call's name; a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
//! SIGABRT) on a marked thread writes "the plugin crashed in put (signal
//! 11)" to a file in the data dir before the process dies as it would have.
//! The parent reads it back as the config's crash cause (`crash_cause`).

use std::cell::Cell;
use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Mutex;

/// The note a crash leaves in the plugin's data dir.
pub const CRASH_NOTE: &str = "plugin-crash.txt";

/// The calls a thread can be in, by index (0: none).
pub const CALLS: &[&str] = &[
    "",
    "open",
    "close",
    "put",
    "delete",
    "get",
    "write_batch",
    "multi_get",
    "scan_seek",
    "scan_next",
    "scan_end",
    "txn_begin",
    "txn_get_for_update",
    "txn_put",
    "txn_commit",
    "txn_rollback",
    "session_open",
    "session_close",
    "flush",
    "sync",
    "wait_idle",
    "stats",
    "effective_options",
    "syncs_writes",
    "check_options",
];

/// The call index of `name` (a compile-time constant where it is used).
pub const fn call(name: &str) -> u8 {
    let mut i = 1;
    while i < CALLS.len() {
        if str_eq(CALLS[i], name) {
            return i as u8;
        }
        i += 1;
    }
    panic!("not a plugin call");
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

thread_local! {
    // Const-initialised and without a destructor: reading it is one TLS
    // load, safe in a signal handler.
    static IN_CALL: Cell<u8> = const { Cell::new(0) };
}

/// Every thread's call as a watcher sees it (`in_flight`): the call's index
/// in the top byte, a count of the thread's calls below (so that a watcher
/// that sees the same value twice knows the same call has not returned).
/// One slot per thread that ever called the plugin, leaked: a few per step.
static SLOTS: Mutex<Vec<&'static AtomicU32>> = Mutex::new(Vec::new());

thread_local! {
    static SLOT: Cell<Option<&'static AtomicU32>> = const { Cell::new(None) };
}

fn call_slot() -> &'static AtomicU32 {
    SLOT.with(|s| match s.get() {
        Some(slot) => slot,
        None => {
            let slot: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
            SLOTS.lock().unwrap_or_else(|e| e.into_inner()).push(slot);
            s.set(Some(slot));
            slot
        }
    })
}

/// Marks the thread as inside a plugin call until dropped.
pub struct InCall(u8);

impl InCall {
    #[inline]
    pub fn enter(call: u8) -> InCall {
        let before = IN_CALL.with(|c| c.replace(call));
        let slot = call_slot();
        let count = slot.load(Ordering::Relaxed).wrapping_add(1) & 0x00FF_FFFF;
        slot.store((call as u32) << 24 | count, Ordering::Relaxed);
        InCall(before)
    }
}

impl Drop for InCall {
    #[inline]
    fn drop(&mut self) {
        IN_CALL.with(|c| c.set(self.0));
        let slot = call_slot();
        let count = slot.load(Ordering::Relaxed) & 0x00FF_FFFF;
        slot.store((self.0 as u32) << 24 | count, Ordering::Relaxed);
    }
}

/// The calls threads are in now: (the call's name, a value that stays the
/// same for as long as that call has not returned), one per thread in a call.
pub fn in_flight() -> Vec<(&'static str, u32)> {
    let slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
    slots
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s.load(Ordering::Relaxed)))
        .filter(|&(_, v)| v >> 24 != 0)
        .filter_map(|(i, v)| CALLS.get((v >> 24) as usize).map(|name| (*name, v ^ (i as u32).rotate_left(7))))
        .collect()
}

/// The note's path (a leaked C string), set by each open.
static NOTE_PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Where a crash of the plugin just opened in `dir` is noted, and the
/// note's fatal-signal hook (`sys::note_fatal_signals`, once per process).
pub fn watch(dir: &Path) {
    if let Ok(path) = CString::new(dir.join(CRASH_NOTE).into_os_string().into_encoded_bytes()) {
        // One path per open engine; the few a process opens are leaked.
        NOTE_PATH.store(path.into_raw(), Ordering::SeqCst);
    }
    crate::sys::note_fatal_signals(note_crash);
}

/// Write the note when the thread is in a plugin call (`sys` then lets the
/// process die as it would have without us).
fn note_crash(sig: libc::c_int) {
    let call = IN_CALL.with(|c| c.get()) as usize;
    let path = NOTE_PATH.load(Ordering::SeqCst);
    if call != 0 && call < CALLS.len() && !path.is_null() {
        // Only async-signal-safe calls: open, write, close, on a stack buffer.
        let mut buf = [0u8; 96];
        let mut n = 0;
        for part in [b"the plugin crashed in ".as_slice(), CALLS[call].as_bytes(), b" (signal ".as_slice()] {
            buf[n..n + part.len()].copy_from_slice(part);
            n += part.len();
        }
        n += crate::sys::write_decimal(&mut buf[n..], sig as u64);
        buf[n] = b')';
        n += 1;
        // SAFETY: path is a valid C string (leaked, never freed); buf holds n bytes.
        unsafe {
            let fd = libc::open(path, libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC, 0o644);
            if fd >= 0 {
                libc::write(fd, buf.as_ptr().cast(), n);
                libc::close(fd);
            }
        }
    }
}

/// What a crash left in data dir `dir`: "the plugin crashed in put (signal 11)".
pub fn cause(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join(CRASH_NOTE)).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_found_by_name() {
        assert_eq!(CALLS[call("put") as usize], "put");
        assert_eq!(CALLS[call("check_options") as usize], "check_options");
    }

    #[test]
    fn a_call_marks_its_thread_until_it_returns() {
        assert_eq!(IN_CALL.with(|c| c.get()), 0);
        {
            let _put = InCall::enter(call("put"));
            assert_eq!(IN_CALL.with(|c| c.get()), call("put"));
            {
                let _inner = InCall::enter(call("stats"));
                assert_eq!(IN_CALL.with(|c| c.get()), call("stats"));
            }
            assert_eq!(IN_CALL.with(|c| c.get()), call("put"));
        }
        assert_eq!(IN_CALL.with(|c| c.get()), 0);
    }
}
