//! The engine's own counters sampled once a second while a step runs
//! (`--internals`), on a thread of their own beside the clients: the
//! clients never wait on it, and it asks the engine nothing that waits on
//! them.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::engine::Internal;
use crate::result::internals::{EngineInternals, InternalSample};

/// Run `body` while sampling a backend's counters with `probe` every second
/// (an engine's `internals`, a server's statistics): what `body` returned,
/// and the samples (Err: why there are none).
pub fn sample_during<R>(
    mut probe: impl FnMut() -> Result<Vec<Internal>, String> + Send,
    body: impl FnOnce() -> R,
) -> (R, Result<EngineInternals, String>) {
    let asked = Instant::now();
    let first = match probe() {
        Ok(v) => v,
        Err(why) => return (body(), Err(why)),
    };
    let start = Instant::now();
    let mut series = Series::new(&first);
    series.done.sampling_us = (start - asked).as_secs_f64() * 1e6;
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let sampler = std::thread::Builder::new()
            .name("rumbench-internals".into())
            .spawn_scoped(scope, move || {
                let mut next = start;
                loop {
                    // The next whole second after now: a sample that took
                    // longer than a second (a server that was slow to
                    // answer) skips the seconds it missed, not bunches them.
                    next += Duration::from_secs(1);
                    let now = Instant::now();
                    if next < now {
                        next += Duration::from_secs((now - next).as_secs() + 1);
                    }
                    let last = match stopped.recv_timeout(next.saturating_duration_since(Instant::now())) {
                        Err(RecvTimeoutError::Timeout) => false,
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                    };
                    let asked = Instant::now();
                    let values = probe();
                    series.done.sampling_us += asked.elapsed().as_secs_f64() * 1e6;
                    if let Ok(values) = values {
                        series.add(start.elapsed().as_secs_f64(), &values);
                    }
                    if last {
                        return series.done;
                    }
                }
            })
            .expect("spawning the internals sampler");
        let r = body();
        let _ = stop.send(());
        let done = sampler.join().map_err(|_| "the internals sampler panicked".to_string());
        (r, done)
    })
}

/// Samples as they come: each counter's column, and the running totals'
/// last values, to give their rates.
struct Series {
    done: EngineInternals,
    /// Per column: Some(last value, when) for a running total.
    totals: Vec<Option<(f64, f64)>>,
}

impl Series {
    /// The series whose names are those of `first`, sampled at 0 (a running
    /// total has no rate yet there).
    fn new(first: &[Internal]) -> Series {
        let done = EngineInternals {
            names: first.iter().map(|i| i.name.to_string()).collect(),
            samples: vec![InternalSample {
                t_s: 0.0,
                values: first.iter().map(|i| (!i.cumulative).then_some(i.value)).collect(),
            }],
            sampling_us: 0.0,
        };
        let totals = first.iter().map(|i| i.cumulative.then_some((i.value, 0.0))).collect();
        Series { done, totals }
    }

    fn add(&mut self, t_s: f64, values: &[Internal]) {
        let mut row = vec![None; self.done.names.len()];
        for v in values {
            let Some(col) = self.done.names.iter().position(|n| n == v.name) else { continue };
            row[col] = match &mut self.totals[col] {
                Some((last, at)) => {
                    let dt = t_s - *at;
                    let rate = (dt > 0.0).then(|| (v.value - *last).max(0.0) / dt);
                    (*last, *at) = (v.value, t_s);
                    rate
                }
                None => Some(v.value),
            };
        }
        self.done.samples.push(InternalSample { t_s, values: row });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(name: &'static str, value: f64, cumulative: bool) -> Internal {
        Internal { name, value, cumulative }
    }

    #[test]
    fn a_running_total_becomes_its_rate_and_a_gauge_stays() {
        let mut s = Series::new(&[int("l0_files", 2.0, false), int("stall_us_per_s", 1000.0, true)]);
        s.add(1.0, &[int("l0_files", 5.0, false), int("stall_us_per_s", 251_000.0, true)]);
        // A counter missing from a sample is None there.
        s.add(2.0, &[int("stall_us_per_s", 251_000.0, true)]);
        s.add(2.5, &[int("l0_files", 1.0, false), int("stall_us_per_s", 351_000.0, true)]);
        let v: Vec<_> = s.done.samples.iter().map(|x| (x.t_s, x.values.clone())).collect();
        assert_eq!(
            v,
            vec![
                (0.0, vec![Some(2.0), None]),
                (1.0, vec![Some(5.0), Some(250_000.0)]),
                (2.0, vec![None, Some(0.0)]),
                (2.5, vec![Some(1.0), Some(200_000.0)]),
            ]
        );
    }
}
