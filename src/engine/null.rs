//! The null engine: stores nothing and answers at once, so a run against it
//! measures the client's own cost per operation.
//!
//! It behaves as if every key id in [0, num_keys) were present (encoded as the
//! workload encodes keys), so read and scan steps do the same client work they
//! do against a real engine.

use anyhow::Result;

use super::{BatchOp, Engine, EngineSpec, OpenArgs, OptKind, OptionSpec, Session};

pub const SPEC: EngineSpec = EngineSpec {
    name: "null",
    profile_symbols: &[],
    sizes_not_claimed: &[],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: None,
    description: "does nothing, as fast as possible: measures the client's own overhead",
    options: &[
        OptionSpec {
            name: "spin_ns",
            default: "0",
            kind: OptKind::Int { min: 0, max: 10_000_000 },
            help: "for tests and calibration: burn this many nanoseconds of CPU in every call, a known engine cost (1000 vs 1100: a 10% costlier engine); \
                   converted to iterations of a fixed loop by a calibration measured once per machine and build and stored, so every process burns exactly the same",
        },
        OptionSpec {
            name: "spin_iterations",
            default: "0",
            kind: OptKind::Int { min: 0, max: 100_000_000 },
            help: "the same cost given directly as iterations of the loop per call (instead of spin_ns)",
        },
    ],
    io_bound_options: &[],
    open,
    presets: &[],
    stores_data: false,
    existing_database: None,
    check,
    build_info: super::no_build_info,
    transactions: super::no_transactions,
    max_sessions: super::any_sessions,
    claims: super::no_claims,
    crash_cause: super::no_crash_cause,
    size_limits: super::no_size_limits,
};

fn option(o: &super::EngineOptions, name: &str) -> Result<u64> {
    Ok(o.0.get(name).map(|v| v.parse()).transpose()?.unwrap_or(0))
}

fn check(o: &super::EngineOptions) -> Result<()> {
    if option(o, "spin_ns")? > 0 && option(o, "spin_iterations")? > 0 {
        anyhow::bail!("null: give spin_ns or spin_iterations, not both (one cost, two ways)");
    }
    Ok(())
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    let (spin_ns, given) = (option(&args.options, "spin_ns")?, option(&args.options, "spin_iterations")?);
    let (spin_iterations, calibration) = match (spin_ns, given) {
        (0, n) => (n, None),
        (ns, _) => {
            let c = calibration()?;
            (c.iterations(ns), Some(c))
        }
    };
    Ok(Box::new(NullEngine {
        num_keys: args.num_keys,
        key_size: args.key_size,
        value: vec![b'x'; args.value_size],
        spin_ns,
        spin_iterations,
        calibration,
    }))
}

pub struct NullEngine {
    num_keys: u64,
    key_size: usize,
    value: Vec<u8>,
    /// `spin_ns`: the engine's pretend work per call.
    spin_ns: u64,
    /// `burn` iterations that take spin_ns of CPU (zero: none).
    spin_iterations: u64,
    /// How spin_ns became iterations (None: given as iterations, or none).
    calibration: Option<Calibration>,
}

impl NullEngine {
    /// Burn the CPU of one call's pretend work (nothing by default): a
    /// fixed count of iterations, calibrated when the engine opens.
    #[inline]
    fn work(&self) {
        if self.spin_iterations > 0 {
            burn(self.spin_iterations);
        }
    }
}

/// `n` iterations of dependent arithmetic the compiler cannot remove.
#[inline(never)]
fn burn(n: u64) {
    let mut x = 0u64;
    for i in 0..n {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    std::hint::black_box(x);
}

/// How fast `burn` runs on this machine, in this build: measured once and
/// stored, so that every process (each config, each repeat) turns a
/// spin_ns into the same number of iterations. A calibration per process
/// (20 ms of its own CPU at open) varied by 4% between processes, which
/// made a "10% costlier" engine 5 to 7% costlier: not a known cost.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Calibration {
    /// Iterations of `burn` per microsecond of thread CPU (the fastest of
    /// the trials: the least disturbed by the rest of the machine).
    pub iterations_per_us: f64,
    pub cpu_model: String,
    /// The rumbench source it was measured with (another build may compile the loop otherwise).
    pub source_hash: String,
    pub measured_at: String,
    /// Where it is stored.
    #[serde(skip)]
    pub path: std::path::PathBuf,
}

impl Calibration {
    /// Iterations that burn `ns` nanoseconds: proportional to `ns` exactly
    /// (1100 ns is 1.1 times 1000 ns's iterations, to the rounding of one).
    pub fn iterations(&self, ns: u64) -> u64 {
        (self.iterations_per_us * ns as f64 / 1000.0).round().max(1.0) as u64
    }

    /// Measure: `trials` timings of `burn` by the thread's own CPU clock (so
    /// that preemption does not count), each at least 100 ms; the fastest.
    fn measure(trials: u32) -> f64 {
        let mut best = 0.0f64;
        for _ in 0..trials {
            let (mut iterations, start) = (0u64, thread_cpu_time());
            while thread_cpu_time().saturating_sub(start) < std::time::Duration::from_millis(100) {
                burn(1_000_000);
                iterations += 1_000_000;
            }
            let spent_us = thread_cpu_time().saturating_sub(start).as_nanos().max(1) as f64 / 1000.0;
            best = best.max(iterations as f64 / spent_us);
        }
        best
    }
}

/// The machine's calibration of `burn`: stored in the cache dir
/// ($XDG_CACHE_HOME/rumbench/null-spin.json, a file per CPU model and
/// build), measured (half a second) the first time under a lock, so that
/// processes started together wait for one measurement.
pub fn calibration() -> Result<Calibration> {
    let dir = crate::cache::root()?;
    calibration_in(&dir)
}

/// The calibration stored in `dir`, measured and stored there first when missing.
fn calibration_in(dir: &std::path::Path) -> Result<Calibration> {
    use std::os::fd::AsRawFd;
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let source_hash = crate::build_info::SOURCE_HASH.to_string();
    std::fs::create_dir_all(dir)?;
    let path = dir.join("null-spin.json");
    let lock =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".null-spin.lock"))?;
    // SAFETY: flock on a descriptor we own; released when `lock` is closed.
    unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) };
    let stored: Vec<Calibration> =
        std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    if let Some(c) = stored.iter().find(|c| c.cpu_model == cpu_model && c.source_hash == source_hash) {
        return Ok(Calibration { path, ..c.clone() });
    }
    let c = Calibration {
        iterations_per_us: Calibration::measure(5),
        cpu_model,
        source_hash,
        measured_at: crate::result::now_text(),
        path: path.clone(),
    };
    // What every later process reads: the value as the file gives it back
    // (serde_json's parse may differ from the measured f64 in its last bit).
    let c = Calibration { path: path.clone(), ..serde_json::from_slice(&serde_json::to_vec(&c)?)? };
    let mut all: Vec<Calibration> = stored.into_iter().filter(|s| s.cpu_model != c.cpu_model).collect();
    all.push(c.clone());
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&all)?)?;
    std::fs::rename(&tmp, &path)?;
    Ok(c)
}

/// CPU time of the calling thread.
fn thread_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Engine for NullEngine {
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }
    fn effective_options(&self) -> Vec<(String, String)> {
        let mut o = vec![
            ("spin_ns".into(), self.spin_ns.to_string()),
            ("spin_iterations".into(), self.spin_iterations.to_string()),
        ];
        if let Some(c) = &self.calibration {
            o.push((
                "spin_calibration".into(),
                format!(
                    "{:.1} iterations per us of thread CPU, measured {} on {} (stored in {})",
                    c.iterations_per_us,
                    c.measured_at,
                    c.cpu_model,
                    c.path.display()
                ),
            ));
        }
        o
    }
    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(NullSession { engine: self, key: vec![b'0'; self.key_size.max(8)] }))
    }
}

struct NullSession<'a> {
    engine: &'a NullEngine,
    key: Vec<u8>,
}

fn key_id(key: &[u8]) -> u64 {
    // Most keys have 8 bytes or more: one load, no variable-length copy.
    if let Some(first) = key.first_chunk::<8>() {
        return u64::from_be_bytes(*first);
    }
    let mut id = [0u8; 8];
    let n = key.len().min(8);
    id[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(id)
}

impl Session for NullSession<'_> {
    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.engine.work();
        std::hint::black_box((key, value));
        Ok(())
    }
    #[inline]
    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.engine.work();
        std::hint::black_box(key);
        Ok(())
    }
    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        self.engine.work();
        std::hint::black_box(ops);
        Ok(())
    }
    #[inline]
    fn get(&mut self, key: &[u8]) -> Result<bool> {
        self.engine.work();
        Ok(key_id(std::hint::black_box(key)) < self.engine.num_keys)
    }
    /// A value of the engine's value size for every key it pretends to
    /// hold. The buffer is filled with the engine's value when its length
    /// differs; a buffer already that long is left as the caller left it.
    /// Null keeps no bytes to return, and copying a kilobyte per call (a YCSB
    /// record) is an engine's work that would be charged to the client.
    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        let found = self.get(key)?;
        if !found {
            out.clear();
        } else if out.len() != self.engine.value.len() {
            out.clear();
            out.extend_from_slice(&self.engine.value);
        }
        Ok(found)
    }
    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        self.engine.work();
        let n = self.engine.num_keys;
        if n == 0 {
            return Ok(0);
        }
        let mut id = key_id(start);
        if reverse {
            id = id.min(n - 1);
        } else if id >= n {
            return Ok(0);
        }
        let mut visited = 0;
        while visited < max_entries {
            self.key[..8].copy_from_slice(&id.to_be_bytes());
            visited += 1;
            if !visit(&self.key, &self.engine.value) {
                break;
            }
            if reverse {
                if id == 0 {
                    break;
                }
                id -= 1;
            } else {
                id += 1;
                if id >= n {
                    break;
                }
            }
        }
        Ok(visited)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::conformance;

    #[test]
    fn a_known_cost_is_the_same_in_every_process_and_exactly_proportional() {
        let cache = tempfile::tempdir().unwrap();
        // Measured once, stored: every later open (every process) reads the same.
        let first = calibration_in(cache.path()).unwrap();
        let again = calibration_in(cache.path()).unwrap();
        assert_eq!(first, again);
        assert!(first.iterations_per_us > 1.0, "{first:?}");
        let (a, b) = (first.iterations(1000), first.iterations(1100));
        assert!(
            (b as f64 / a as f64 - 1.1).abs() < 2.0 / a as f64,
            "1100 ns is 1.1 times 1000 ns's iterations: {a} {b}"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = conformance::open_with(&SPEC, dir.path(), &[("spin_iterations", "5000")]).unwrap();
        assert!(e.effective_options().contains(&("spin_iterations".to_string(), "5000".to_string())), "given directly");
        let both = crate::engine::resolve_options(
            &SPEC,
            &[("spin_ns".into(), "1".into()), ("spin_iterations".into(), "1".into())],
        )
        .unwrap();
        assert!((SPEC.check)(&both).unwrap_err().to_string().contains("not both"));
    }

    #[test]
    fn values_have_the_value_size_without_a_copy_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let e = conformance::open_with(&SPEC, dir.path(), &[]).unwrap();
        let mut s = e.session().unwrap();
        let key = conformance::key(3);
        let mut out = Vec::new();
        assert!(s.get_value(&key, &mut out).unwrap());
        assert_eq!(out, vec![b'x'; 100], "the first fill is the engine's value");
        out[0] = b'y';
        assert!(s.get_value(&key, &mut out).unwrap());
        assert_eq!((out.len(), out[0]), (100, b'y'), "a buffer of the right size is left as it was");
        out.truncate(10);
        assert!(s.get_value(&key, &mut out).unwrap());
        assert_eq!(out, vec![b'x'; 100]);
        assert!(!s.get_value(&conformance::key(5000), &mut out).unwrap(), "beyond num_keys nothing is found");
        assert!(out.is_empty());
    }
}
