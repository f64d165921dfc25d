//! intervals.csv: one row per config, step, operation type and second.

use std::fmt::Write;

use anyhow::Result;

use super::{Exporter, OpResult, RunResult};

pub struct IntervalsCsv;

pub const HEADER: &str = "config,engine,step,role,op,second,ops,ops_per_s,p99_us,max_us";

fn rows(out: &mut String, config: &str, engine: &str, step: &str, role: &str, op: &OpResult) {
    for iv in &op.intervals {
        // Each interval is one second long; the rate equals the count.
        let _ = writeln!(
            out,
            "{config},{engine},{step},{role},{},{},{},{},{:.3},{:.3}",
            op.op,
            iv.index + 1,
            iv.ops,
            iv.ops,
            iv.p99_us,
            iv.max_us
        );
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
                for op in &s.ops_by_type {
                    rows(&mut out, &c.name, &c.engine, &s.name, "client", op);
                }
                if let Some(w) = &s.writer {
                    rows(&mut out, &c.name, &c.engine, &s.name, "writer", &w.latency);
                }
            }
        }
        Ok(out)
    }
}
