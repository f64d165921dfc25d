//! intervals.csv: one row per config, step, operation type and second, and
//! per engine counter and second (role `engine`, the counter in `op`, its
//! value in `value`: `--internals`).

use std::fmt::Write;

use anyhow::Result;

use super::Exporter;
use crate::measure::step_metrics::MemoryPoint;
use crate::result::internals::EngineInternals;
use crate::result::{OpResult, RunResult};

pub struct IntervalsCsv;

pub const HEADER: &str = "config,engine,step,role,op,second,ops,ops_per_s,p99_us,max_us,rss_bytes,vsz_bytes,value";

/// The memory sample taken closest to the end of second `second` (1-based), within half a second.
fn memory_at(memory: &[MemoryPoint], second: u32) -> Option<&MemoryPoint> {
    memory
        .iter()
        .filter(|m| (m.t_s - second as f64).abs() <= 0.5)
        .min_by(|a, b| (a.t_s - second as f64).abs().total_cmp(&(b.t_s - second as f64).abs()))
}

fn rows(out: &mut String, config: &str, engine: &str, step: &str, role: &str, op: &OpResult, memory: &[MemoryPoint]) {
    for iv in &op.intervals {
        let second = iv.index + 1;
        let (rss, vsz) = match memory_at(memory, second) {
            Some(m) => (m.rss_bytes.to_string(), m.vsz_bytes.to_string()),
            None => (String::new(), String::new()),
        };
        // Each interval is one second long; the rate equals the count.
        let _ = writeln!(
            out,
            "{config},{engine},{step},{role},{},{second},{},{},{:.3},{:.3},{rss},{vsz},",
            op.op, iv.ops, iv.ops, iv.p99_us, iv.max_us
        );
    }
}

/// The engine's counters: a row per counter and sample (its second the one
/// the sample ends, 0 for the one at the step's start).
fn internal_rows(out: &mut String, config: &str, engine: &str, step: &str, internals: &EngineInternals) {
    for sample in &internals.samples {
        let second = sample.t_s.round() as u64;
        for (name, v) in internals.names.iter().zip(&sample.values) {
            if let Some(v) = v {
                let _ = writeln!(out, "{config},{engine},{step},engine,{name},{second},,,,,,,{v}");
            }
        }
    }
}

impl Exporter for IntervalsCsv {
    fn file_name(&self) -> &'static str {
        "intervals.csv"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        let mut out = String::from(HEADER);
        out.push('\n');
        for c in &run.configs {
            for s in &c.steps {
                let mem = &s.metrics.memory;
                for op in &s.ops_by_type {
                    rows(&mut out, &c.instance_name(), &c.engine, &s.name, "client", op, mem);
                }
                if let Some(w) = &s.writer {
                    rows(&mut out, &c.instance_name(), &c.engine, &s.name, "writer", &w.latency, mem);
                    if let Some(d) = &w.deletes {
                        rows(&mut out, &c.instance_name(), &c.engine, &s.name, "writer", d, mem);
                    }
                }
                if let Some(i) = &s.internals {
                    internal_rows(&mut out, &c.instance_name(), &c.engine, &s.name, i);
                }
            }
        }
        Ok(out)
    }
}
