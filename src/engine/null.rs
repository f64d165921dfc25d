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
    description: "does nothing, as fast as possible: measures the client's own overhead",
    options: &[OptionSpec {
        name: "spin_ns",
        default: "0",
        kind: OptKind::Int { min: 0, max: 10_000_000 },
        help: "for tests and calibration: burn about this many nanoseconds of CPU in every call (iterations calibrated by the thread's CPU clock at open), a known engine cost (1000 vs 1200: a 20% slower engine)",
    }],
    io_bound_options: &[],
    open,
    presets: &[],
    stores_data: false,
    existing_database: None,
    check: super::no_contradictions,
    build_info: super::no_build_info,
    transactions: super::no_transactions,
    max_sessions: super::any_sessions,
};

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    let spin_ns = args.options.0.get("spin_ns").map(|v| v.parse()).transpose()?.unwrap_or(0);
    Ok(Box::new(NullEngine {
        num_keys: args.num_keys,
        key_size: args.key_size,
        value: vec![b'x'; args.value_size],
        spin_ns,
        spin_iterations: spin_iterations(spin_ns),
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

/// Iterations of `burn` that take `ns` nanoseconds of this thread's CPU
/// (timed by its own CPU clock over at least 20 ms, so preemption does not
/// count; reading that clock per call would cost more than a short spin).
fn spin_iterations(ns: u64) -> u64 {
    if ns == 0 {
        return 0;
    }
    let (mut iterations, start) = (0u64, thread_cpu_time());
    while thread_cpu_time().saturating_sub(start) < std::time::Duration::from_millis(20) {
        burn(100_000);
        iterations += 100_000;
    }
    let spent = thread_cpu_time().saturating_sub(start).as_nanos().max(1) as f64;
    ((iterations as f64 / spent) * ns as f64).round().max(1.0) as u64
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
        vec![("spin_ns".into(), self.spin_ns.to_string()), ("spin_iterations".into(), self.spin_iterations.to_string())]
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
