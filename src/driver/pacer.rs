//! Smooth pacing for rate-limited work (background writers).
//!
//! Operation i is intended to start at i / rate seconds after the step
//! started. The pacer sleeps until that moment if it is ahead; if it is
//! behind (the engine stalled), it starts at once and the latency is still
//! measured from the intended start, so queueing behind a stall is counted
//! (no coordinated omission).

use std::time::{Duration, Instant};

/// How far ahead of schedule an operation may start instead of sleeping.
pub const SLEEP_THRESHOLD: Duration = Duration::from_millis(1);
/// The longest sleep between checks that the wait is still wanted, so that
/// a stop request ends a slow writer's wait promptly.
pub const WAIT_SLICE: Duration = Duration::from_millis(100);

#[derive(Debug, Clone)]
pub struct Pacer {
    interval_ns: f64,
    next: u64,
}

impl Pacer {
    pub fn new(ops_per_s: f64) -> Self {
        assert!(ops_per_s > 0.0);
        Pacer { interval_ns: 1e9 / ops_per_s, next: 0 }
    }

    /// Intended start of operation `i`, in ns since the step started.
    #[inline]
    pub fn intended_ns(&self, i: u64) -> u64 {
        (i as f64 * self.interval_ns) as u64
    }

    /// The next operation's intended start; advances the schedule.
    pub fn next_intended(&mut self) -> u64 {
        let t = self.intended_ns(self.next);
        self.next += 1;
        t
    }

    /// Sleep until `intended_ns` (relative to `start`) if it is more than
    /// `SLEEP_THRESHOLD` away. Closer than that, the operation starts at once
    /// (slightly early): one sleep per operation at tens of thousands of ops/s
    /// would cost the writer most of a CPU in wake-ups, taken from the readers
    /// it runs beside. The rate over any millisecond stays on schedule.
    /// A long wait sleeps in slices of at most `WAIT_SLICE` and ends early,
    /// returning false, as soon as `keep_waiting` says so (a stop, the step's end).
    pub fn wait_until(start: Instant, intended_ns: u64, keep_waiting: impl Fn() -> bool) -> bool {
        let target = start.checked_add(Duration::from_nanos(intended_ns));
        loop {
            let now = Instant::now();
            let left = target.map_or(WAIT_SLICE, |t| t.saturating_duration_since(now));
            if left <= SLEEP_THRESHOLD {
                return true;
            }
            std::thread::sleep(left.min(WAIT_SLICE));
            if !keep_waiting() {
                return false;
            }
        }
    }
}

/// Ask the kernel for precise sleeps in this thread (the default 50 us timer
/// slack would make a writer at tens of thousands of ops/s bursty).
/// A sleep here overshoots by tens of microseconds (timer slack 1 ns):
/// `wait_exactly` wakes this long before the moment, and spins the rest.
pub const SPIN_NS: u64 = 60_000;

/// Wait until `intended_ns` after `start`, to within a clock read: sleep
/// until shortly before it, then spin on `timer` (the clock the call's
/// start is read on). For a replay, whose every call is meant to start at
/// its recorded moment; `Pacer::wait_until` lets a call start up to
/// SLEEP_THRESHOLD early, which a steady rate's spacing absorbs. False when
/// `keep_waiting` said stop.
pub fn wait_exactly(start: Instant, timer: &super::Timer, intended_ns: u64, keep_waiting: impl Fn() -> bool) -> bool {
    loop {
        let now = timer.now_ns();
        if now >= intended_ns {
            return true;
        }
        let left = intended_ns - now;
        if left > SPIN_NS {
            let wake = start + Duration::from_nanos(intended_ns - SPIN_NS);
            let nap = wake.saturating_duration_since(Instant::now()).min(WAIT_SLICE);
            std::thread::sleep(nap);
            if !keep_waiting() {
                return false;
            }
        } else {
            std::hint::spin_loop();
        }
    }
}

pub fn set_precise_timer_slack() {
    // SAFETY: prctl with PR_SET_TIMERSLACK takes a plain integer argument.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Whether an achieved rate missed its target by more than 5%.
pub fn missed_rate(target_ops_s: f64, achieved_ops_s: f64) -> bool {
    achieved_ops_s < 0.95 * target_ops_s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_evenly_spaced_and_absolute() {
        let mut p = Pacer::new(1000.0);
        let ts: Vec<u64> = (0..4).map(|_| p.next_intended()).collect();
        assert_eq!(ts, vec![0, 1_000_000, 2_000_000, 3_000_000]);
        // Far into the schedule there is no drift from rounding.
        assert_eq!(p.intended_ns(1_000_000), 1_000_000_000_000);
        let p = Pacer::new(3.0);
        assert_eq!(p.intended_ns(3), 1_000_000_000);
    }

    #[test]
    fn waits_only_when_ahead() {
        set_precise_timer_slack();
        let start = Instant::now();
        assert!(Pacer::wait_until(start, 20_000_000, || true));
        assert!(start.elapsed() >= Duration::from_millis(20));
        let before = Instant::now();
        Pacer::wait_until(start, 0, || true); // behind schedule: no sleep
        assert!(before.elapsed() < Duration::from_millis(5));
        // Less than the threshold ahead: no sleep either.
        let before = Instant::now();
        Pacer::wait_until(start, start.elapsed().as_nanos() as u64 + 500_000, || true);
        assert!(before.elapsed() < Duration::from_micros(400));
        // A long wait is given up within a slice once it is no longer wanted.
        let before = Instant::now();
        assert!(!Pacer::wait_until(start, u64::MAX, || before.elapsed() < Duration::from_millis(150)));
        assert!((150..400).contains(&before.elapsed().as_millis()), "{:?}", before.elapsed());
    }

    #[test]
    fn miss_threshold_is_five_percent() {
        assert!(!missed_rate(1000.0, 951.0));
        assert!(!missed_rate(1000.0, 950.0));
        assert!(missed_rate(1000.0, 949.0));
    }
}
