//! CPU of the threads that issue a step's operations (its clients and
//! background writer), apart from the process's other threads (the memory
//! sampler, progress, the main thread): rumbench's own work per operation
//! against a server, which must not change between server versions (the
//! control of `rumbench compare`), undisturbed by what the measurement
//! itself costs (the sampler reads a server's process tree every second,
//! and that tree is larger on some versions).
//!
//! Each such thread adds its CPU clock's growth over its run once, at its
//! end (not on the hot path); a step's share is the counter's growth
//! between the step's start and end snapshots. A config process runs one
//! step at a time.

use std::sync::atomic::{AtomicU64, Ordering};

static WORKLOAD_THREADS_CPU_NS: AtomicU64 = AtomicU64::new(0);
static WORKLOAD_THREADS_SWITCHES: AtomicU64 = AtomicU64::new(0);

/// The calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), ns.
pub fn this_thread_ns() -> Option<u64> {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// This process's CPU clock (CLOCK_PROCESS_CPUTIME_ID: every thread, exited ones included), ns.
pub fn this_process_ns() -> Option<u64> {
    clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we own.
    let ok = unsafe { libc::clock_gettime(clock, &mut ts) } == 0;
    ok.then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The calling thread's context switches so far, voluntary (it blocked:
/// a client waiting for a server's answer) and involuntary (preempted):
/// getrusage(RUSAGE_THREAD).
pub fn this_thread_switches() -> Option<u64> {
    // SAFETY: an all-zero rusage is valid; getrusage fills the one we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) } == 0;
    ok.then(|| (u.ru_nvcsw + u.ru_nivcsw) as u64)
}

/// Add a workload thread's context switches over its work.
pub fn add_workload_thread_switches(n: u64) {
    WORKLOAD_THREADS_SWITCHES.fetch_add(n, Ordering::Relaxed);
}

/// The workload threads' context switches so far (a counter: use differences).
pub fn workload_threads_switches() -> u64 {
    WORKLOAD_THREADS_SWITCHES.load(Ordering::Relaxed)
}

/// Add a workload thread's CPU (its clock's growth over its work).
pub fn add_workload_thread(ns: u64) {
    WORKLOAD_THREADS_CPU_NS.fetch_add(ns, Ordering::Relaxed);
}

/// The workload threads' CPU so far, ns (a counter: use differences).
pub fn workload_threads_ns() -> u64 {
    WORKLOAD_THREADS_CPU_NS.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_counts_its_own_cpu_and_adds_it() {
        let before = workload_threads_ns();
        let spent = std::thread::spawn(|| {
            let t0 = this_thread_ns().unwrap();
            let start = std::time::Instant::now();
            let mut x = 0u64;
            while start.elapsed() < std::time::Duration::from_millis(20) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            let ns = this_thread_ns().unwrap() - t0;
            add_workload_thread(ns);
            ns
        })
        .join()
        .unwrap();
        assert!(spent > 1_000_000, "{spent} ns");
        // Other tests may add theirs meanwhile: at least this thread's.
        assert!(workload_threads_ns() - before >= spent);
    }

    #[test]
    fn a_thread_that_blocks_counts_its_switches() {
        let before = workload_threads_switches();
        let switched = std::thread::spawn(|| {
            let s0 = this_thread_switches().unwrap();
            for _ in 0..20 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let n = this_thread_switches().unwrap() - s0;
            add_workload_thread_switches(n);
            n
        })
        .join()
        .unwrap();
        // Every sleep blocks the thread once: at least 20 voluntary switches.
        assert!((20..200).contains(&switched), "{switched} switches");
        assert!(workload_threads_switches() - before >= switched);
    }
}
