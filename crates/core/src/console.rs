//! Writing to the user's terminal or pipe without ever dying of it.
//!
//! `println!` panics when stdout is gone: a pipe whose reader quit
//! (`rumbench run ... | head`: EPIPE) or a terminal that hung up (EIO). A
//! panic there would leave a run half-dead (status "running", its data dir,
//! its servers). Every line rumbench prints goes through [`outln!`] /
//! [`errln!`] instead: a stream that fails that way is sent to /dev/null
//! from then on, and the run is told once (as if SIGPIPE or SIGHUP had come),
//! so it stops as it does on a closed terminal: results written, processes
//! stopped, a non-zero exit.
//!
//! Any other failed write (a full disk under `> out.md`, /dev/full) is kept
//! as [`write_failure`]: the stream is sent to /dev/null from then on (the
//! output is cut short either way) and main exits non-zero with the cause.

use std::io::Write;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// What the program does when its output goes away (set once by main):
/// called with SIGPIPE for a closed pipe, SIGHUP for a hung-up terminal.
static ON_LOST: OnceLock<fn(i32)> = OnceLock::new();
/// The first stream loss seen: 0 none, else the signal it stands for.
static LOST: AtomicI32 = AtomicI32::new(0);
/// The first write that failed for another reason: the stream and the error.
static WRITE_FAILED: OnceLock<String> = OnceLock::new();

/// Register what to do when stdout or stderr goes away.
pub fn on_lost(handler: fn(i32)) {
    let _ = ON_LOST.set(handler);
}

/// The signal a lost stream stands for (SIGPIPE or SIGHUP), if one was lost.
pub fn lost() -> Option<i32> {
    Some(LOST.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// A write to standard output or error that failed other than by the
/// reader going away ("standard output: No space left on device").
pub fn write_failure() -> Option<&'static str> {
    WRITE_FAILED.get().map(String::as_str)
}

/// Whether `e` means the reader is gone for good (not a passing error).
pub fn is_gone(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe || e.raw_os_error() == Some(libc::EIO)
}

/// Point `fd` at /dev/null, so later writes to it succeed silently.
pub fn detach(fd: i32) {
    // SAFETY: plain descriptor calls on our own standard streams.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
        if null >= 0 {
            libc::dup2(null, fd);
            libc::close(null);
        }
    }
}

/// After a hang-up, detach every standard stream that is (or was) a
/// terminal: on a hung-up terminal isatty fails with EIO, so that counts too.
pub fn detach_terminal() {
    for fd in [1, 2] {
        // SAFETY: isatty on our own descriptors.
        let tty = unsafe { libc::isatty(fd) } == 1 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EIO);
        if tty {
            detach(fd);
        }
    }
}

/// Watch the terminal that standard output or error is on, if either is
/// one, and treat its hang-up as a lost stream at once: a run in a
/// background process group gets no SIGHUP from the kernel (only the
/// foreground group does), and without a write in between it would learn
/// of the hang-up only at its next line, after its running step.
pub fn watch_terminal() {
    // SAFETY: isatty on our own descriptors.
    let ttys: Vec<i32> = [1, 2].into_iter().filter(|&fd| unsafe { libc::isatty(fd) } == 1).collect();
    if ttys.is_empty() {
        return;
    }
    std::thread::spawn(move || {
        let mut fds: Vec<libc::pollfd> = ttys.iter().map(|&fd| libc::pollfd { fd, events: 0, revents: 0 }).collect();
        loop {
            // SAFETY: polling descriptors we own; events 0: only hang-ups and errors are reported.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            if n > 0 && fds.iter().any(|p| p.revents & (libc::POLLHUP | libc::POLLERR) != 0) {
                let hung_up = std::io::Error::from_raw_os_error(libc::EIO);
                for &fd in &ttys {
                    gone(fd, &hung_up);
                }
            }
            // Hung up (or a descriptor that cannot be polled): nothing more to watch.
            return;
        }
    });
}

fn gone(fd: i32, e: &std::io::Error) {
    detach(fd);
    let sig = if e.kind() == std::io::ErrorKind::BrokenPipe { libc::SIGPIPE } else { libc::SIGHUP };
    if LOST.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
        if let Some(handler) = ON_LOST.get() {
            handler(sig);
        }
    }
}

fn write_to(fd: i32, args: std::fmt::Arguments, newline: bool) {
    let r = if fd == 1 {
        let mut s = std::io::stdout().lock();
        s.write_fmt(args).and_then(|_| if newline { s.write_all(b"\n") } else { Ok(()) }).and_then(|_| s.flush())
    } else {
        // One write per line: the lines of two processes at once (a duet's
        // sides) do not cut into each other.
        let mut line = args.to_string();
        if newline {
            line.push('\n');
        }
        std::io::stderr().lock().write_all(line.as_bytes())
    };
    if let Err(e) = r {
        if is_gone(&e) {
            gone(fd, &e);
        } else {
            let _ =
                WRITE_FAILED.set(format!("cannot write to standard {}: {e}", if fd == 1 { "output" } else { "error" }));
            detach(fd);
        }
    }
}

#[doc(hidden)]
pub fn write_out(args: std::fmt::Arguments, newline: bool) {
    write_to(1, args, newline)
}

#[doc(hidden)]
pub fn write_err(args: std::fmt::Arguments, newline: bool) {
    write_to(2, args, newline)
}

/// `println!` that never panics (see the module).
#[macro_export]
macro_rules! outln {
    () => { $crate::console::write_out(format_args!(""), true) };
    ($($t:tt)*) => { $crate::console::write_out(format_args!($($t)*), true) };
}

/// `print!` that never panics.
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::console::write_out(format_args!($($t)*), false) };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    () => { $crate::console::write_err(format_args!(""), true) };
    ($($t:tt)*) => { $crate::console::write_err(format_args!($($t)*), true) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_and_a_hung_up_terminal_are_gone_other_errors_are_not() {
        assert!(is_gone(&std::io::Error::from(std::io::ErrorKind::BrokenPipe)));
        assert!(is_gone(&std::io::Error::from_raw_os_error(libc::EIO)));
        assert!(!is_gone(&std::io::Error::from_raw_os_error(libc::ENOSPC)));
    }
}
