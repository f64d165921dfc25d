//! `rss_peak`, `vsz_peak`, `rss_end`: a background thread samples the RSS and
//! VSZ of a set of processes once a second and once more at stop.
//!
//! The measured threads never touch the sampler: it reads /proc on its own
//! thread, and the only lock is on its own target list, taken by the sampler
//! thread once per sample and by [`Sampler::set_targets`].

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use procfs::FromRead;
use serde::Serialize;

use super::process::descendants;
use super::Roots;

/// One sample: memory summed over the sampled processes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MemSample {
    /// Seconds since the sampler started.
    pub t_seconds: f64,
    pub rss_bytes: u64,
    pub vsz_bytes: u64,
    /// Processes that could be read for this sample.
    pub processes: u32,
}

/// The series a [`Sampler`] collected, with its peaks and last values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemorySeries {
    pub samples: Vec<MemSample>,
    /// Highest sampled RSS (sampling can miss a spike shorter than a second;
    /// for one process, `ProcessCounters::rss_hwm_bytes` is the kernel's exact peak).
    pub rss_peak_bytes: u64,
    pub vsz_peak_bytes: u64,
    /// The sample taken at stop.
    pub rss_end_bytes: u64,
    pub vsz_end_bytes: u64,
}

impl MemorySeries {
    fn from_samples(samples: Vec<MemSample>) -> MemorySeries {
        let last = samples.last().copied();
        MemorySeries {
            rss_peak_bytes: samples.iter().map(|s| s.rss_bytes).max().unwrap_or(0),
            vsz_peak_bytes: samples.iter().map(|s| s.vsz_bytes).max().unwrap_or(0),
            rss_end_bytes: last.map(|s| s.rss_bytes).unwrap_or(0),
            vsz_end_bytes: last.map(|s| s.vsz_bytes).unwrap_or(0),
            samples,
        }
    }
}

/// Which processes to sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleTargets {
    pub pids: Vec<i32>,
    /// Also every descendant of those pids (a server's process tree).
    pub include_descendants: bool,
}

impl SampleTargets {
    /// This process only.
    pub fn current_process() -> SampleTargets {
        SampleTargets { pids: vec![std::process::id() as i32], include_descendants: false }
    }
}

/// A running 1-second RSS/VSZ sampler. Start it at the beginning of a step,
/// stop it at the end to get the series.
pub struct Sampler {
    targets: Arc<Mutex<SampleTargets>>,
    stop_tx: mpsc::Sender<()>,
    handle: JoinHandle<Vec<MemSample>>,
}

impl Sampler {
    /// Samples this process every second.
    pub fn start() -> Sampler {
        Sampler::start_with(SampleTargets::current_process(), Duration::from_secs(1), Roots::live())
    }

    /// Samples `targets` every `interval` (a first sample is taken at once)
    /// from `roots.proc`.
    pub fn start_with(targets: SampleTargets, interval: Duration, roots: Roots) -> Sampler {
        let targets = Arc::new(Mutex::new(targets));
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let t = Arc::clone(&targets);
        let handle = std::thread::Builder::new()
            .name("rumbench-mem-sampler".into())
            .spawn(move || {
                let start = Instant::now();
                let mut samples = Vec::new();
                let mut next = start;
                loop {
                    let current = t.lock().map(|g| g.clone()).unwrap_or_else(|p| p.into_inner().clone());
                    samples.push(sample(&roots, &current, start));
                    // Fixed schedule (start + k*interval), so the series does not drift.
                    next += interval;
                    let wait = next.saturating_duration_since(Instant::now());
                    match stop_rx.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => continue,
                        // Stop requested (or the Sampler was dropped): a last sample, then done.
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                            let current = t.lock().map(|g| g.clone()).unwrap_or_else(|p| p.into_inner().clone());
                            samples.push(sample(&roots, &current, start));
                            return samples;
                        }
                    }
                }
            })
            .expect("spawning the memory sampler thread");
        Sampler { targets, stop_tx, handle }
    }

    /// Changes the sampled processes from the next sample on (for example
    /// to a server's pid once it has started).
    pub fn set_targets(&self, targets: SampleTargets) {
        match self.targets.lock() {
            Ok(mut g) => *g = targets,
            Err(p) => *p.into_inner() = targets,
        }
    }

    /// Takes a last sample, stops the thread and returns the series.
    pub fn stop(self) -> MemorySeries {
        let _ = self.stop_tx.send(());
        let samples = self.handle.join().unwrap_or_default();
        MemorySeries::from_samples(samples)
    }
}

/// RSS and VSZ from /proc/PID/statm (cheaper than status), summed.
fn sample(roots: &Roots, targets: &SampleTargets, start: Instant) -> MemSample {
    let mut pids = targets.pids.clone();
    if targets.include_descendants {
        for &p in &targets.pids {
            pids.extend(descendants(&roots.proc, p).unwrap_or_default());
        }
        pids.sort_unstable();
        pids.dedup();
    }
    let t_seconds = start.elapsed().as_secs_f64();
    let (mut rss, mut vsz, mut n) = (0u64, 0u64, 0u32);
    for p in pids {
        let Ok(f) = std::fs::File::open(roots.proc.join(p.to_string()).join("statm")) else { continue };
        let Ok(m) = procfs::process::StatM::from_read(f) else { continue };
        rss += m.resident * roots.page_size;
        vsz += m.size * roots.page_size;
        n += 1;
    }
    MemSample { t_seconds, rss_bytes: rss, vsz_bytes: vsz, processes: n }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::os::fixtures;

    #[test]
    fn samples_a_fixture_tree() {
        let roots = Roots::fixture(&fixtures());
        let s = sample(&roots, &SampleTargets { pids: vec![100], include_descendants: true }, Instant::now());
        assert_eq!(s.processes, 4);
        // statm resident pages: rss_kb / 4 per process.
        assert_eq!(s.rss_bytes, (30_052 / 4 + 140_200 / 4 + 150_100 / 4 + 12_000 / 4) * 4096);
        let one = sample(&roots, &SampleTargets { pids: vec![100, 999], include_descendants: false }, Instant::now());
        assert_eq!(one.processes, 1);
    }

    #[test]
    fn series_peaks_and_end() {
        let s = |t, r, v| MemSample { t_seconds: t, rss_bytes: r, vsz_bytes: v, processes: 1 };
        let m = MemorySeries::from_samples(vec![s(0.0, 10, 100), s(1.0, 30, 90), s(1.5, 20, 120)]);
        assert_eq!((m.rss_peak_bytes, m.vsz_peak_bytes, m.rss_end_bytes, m.vsz_end_bytes), (30, 120, 20, 120));
    }

    #[test]
    fn live_sampler_collects_and_sees_growth() {
        let sampler = Sampler::start_with(SampleTargets::current_process(), Duration::from_millis(50), Roots::live());
        std::thread::sleep(Duration::from_millis(120));
        // Touch 192 MiB so RSS grows. Other tests run in parallel in this
        // process and allocate/free too, so compare with absolute sizes, not
        // with the first sample.
        let v = std::hint::black_box(vec![1u8; 192 << 20]);
        std::thread::sleep(Duration::from_millis(120));
        let m = sampler.stop();
        drop(v);
        assert!(m.samples.len() >= 3, "{m:?}");
        assert!(m.samples.windows(2).all(|w| w[0].t_seconds <= w[1].t_seconds));
        assert!(m.rss_peak_bytes >= 192 << 20, "{m:?}");
        assert!(m.samples.iter().any(|s| s.rss_bytes < m.rss_peak_bytes), "{m:?}");
        assert!(m.vsz_peak_bytes >= m.rss_peak_bytes);
    }

    #[test]
    fn live_default_sampler_stops_promptly() {
        let t = Instant::now();
        let sampler = Sampler::start();
        let m = sampler.stop();
        assert!(t.elapsed() < Duration::from_millis(900));
        assert!(!m.samples.is_empty() && m.rss_end_bytes > 0);
    }
}
