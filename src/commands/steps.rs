//! `rumbench steps`: every step and what it does.

use rumbench::{outln, settings};

/// Print every step, one line each.
pub fn run() {
    for (_, name, what) in settings::steps::STEPS {
        outln!("{name:22} {what}");
    }
}
