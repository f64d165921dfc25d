//! `rumbench steps`: every step and what it does.

use rumbench::{outln, plan};

/// Print every step, one line each; sysbench's with the Lua script and
/// options each stands for.
pub fn run() {
    for (_, name, what) in plan::steps::STEPS {
        outln!("{name:22} {what}");
    }
    outln!("sysbench's microbenchmarks (on a SQL server; NAME_range=N sets the range):");
    for (_, name, lua, range, what) in plan::sysbench::MICROS {
        outln!("{name:22} {what} (sysbench {lua}, range {range})");
    }
}
