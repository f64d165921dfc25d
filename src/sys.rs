//! The raw system calls more than one module makes, each wrapped once with
//! its safety argument (a leaf): the parent's death, and a note written on
//! a fatal signal.

/// This process's parent as it was when watched. A process whose parent
/// dies is given another (init, or a subreaper): a different parent id
/// says the one that started it is gone.
pub struct ParentWatch(libc::pid_t);

impl ParentWatch {
    pub fn now() -> ParentWatch {
        // SAFETY: getppid has no preconditions and cannot fail.
        ParentWatch(unsafe { libc::getppid() })
    }

    /// The parent watched has died since.
    pub fn died(&self) -> bool {
        // SAFETY: as in `now`.
        unsafe { libc::getppid() != self.0 }
    }
}

/// The signals of a process that crashed: a bad access, an illegal
/// instruction, an arithmetic fault, an abort.
const FATAL: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT];

/// What runs on a fatal signal, in the order given (each a `fn(signal)` as
/// an address; 0: a free slot): a plugin's crash note, a step's count.
static ON_FATAL: [std::sync::atomic::AtomicUsize; 4] = [const { std::sync::atomic::AtomicUsize::new(0) }; 4];
/// The actions the handler replaced, put back when it has run.
// SAFETY: sigaction is plain data; all zeroes is SIG_DFL with no flags.
static mut PREVIOUS: [libc::sigaction; 5] = unsafe { std::mem::zeroed() };

/// Run `note` when this process gets a fatal signal (after the notes given
/// before it; a note given twice runs once), then let the process die as
/// it would have (the action before ours put back: a handler of an
/// engine's, Rust's stack-overflow check, or the default). `note` runs in
/// a signal handler: only async-signal-safe calls (atomic loads, write).
pub fn note_fatal_signals(note: fn(libc::c_int)) {
    use std::sync::atomic::Ordering::SeqCst;
    let added = ON_FATAL.iter().any(|slot| match slot.compare_exchange(0, note as usize, SeqCst, SeqCst) {
        Ok(_) => true,
        Err(there) => there == note as usize,
    });
    assert!(added, "more fatal-signal notes than ON_FATAL has slots");
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        for (i, sig) in FATAL.into_iter().enumerate() {
            // SAFETY: a plain sigaction install; the previous action is kept
            // for the handler, written before the handler can run for `sig`.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fatal as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &action, &mut old) == 0 {
                    PREVIOUS[i] = old;
                }
            }
        }
    });
}

extern "C" fn on_fatal(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    for slot in &ON_FATAL {
        let note = slot.load(std::sync::atomic::Ordering::SeqCst);
        if note != 0 {
            // SAFETY: set from a `fn(c_int)` by note_fatal_signals.
            let note: fn(libc::c_int) = unsafe { std::mem::transmute::<usize, fn(libc::c_int)>(note) };
            note(sig);
        }
    }
    let i = FATAL.iter().position(|&s| s == sig).unwrap_or(0);
    // SAFETY: the action saved at install is put back (SIG_DFL at worst),
    // and a handler there (an engine library's own, Rust's stack-overflow
    // check) is called now: abort() raises again under SIG_DFL, not under
    // it, so it would not run otherwise. On return the fault happens again
    // (or abort raises again) and the process dies as it would have.
    unsafe {
        let previous = std::ptr::addr_of!(PREVIOUS[i]);
        if libc::sigaction(sig, previous, std::ptr::null_mut()) != 0 {
            libc::signal(sig, libc::SIG_DFL);
            return;
        }
        let handler = (*previous).sa_sigaction;
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            return;
        }
        if (*previous).sa_flags & libc::SA_SIGINFO != 0 {
            let f = std::mem::transmute::<usize, extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)>(
                handler,
            );
            f(sig, info, ctx);
        } else {
            let f = std::mem::transmute::<usize, extern "C" fn(libc::c_int)>(handler);
            f(sig);
        }
    }
}

/// `v` in decimal at the start of `out` (at least 20 bytes); the bytes
/// written. Allocates nothing: a signal handler may call it.
pub fn write_decimal(out: &mut [u8], mut v: u64) -> usize {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for (o, d) in out.iter_mut().zip(digits[..n].iter().rev()) {
        *o = *d;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_living_parent_has_not_died() {
        let w = ParentWatch::now();
        assert!(!w.died());
        assert!(ParentWatch(-1).died());
    }

    #[test]
    fn decimals_are_written_without_allocating() {
        let mut b = [0u8; 20];
        for v in [0, 7, 10, 999, u64::MAX] {
            let n = write_decimal(&mut b, v);
            assert_eq!(std::str::from_utf8(&b[..n]).unwrap(), v.to_string());
        }
    }
}
