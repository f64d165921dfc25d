//! `rumbench steps`: every step and what it does.

use rumbench::{outln, plan};

/// Print every step, one line each.
pub fn run() {
    for (_, name, what) in plan::steps::STEPS {
        outln!("{name:22} {what}");
    }
}
