//! What rumbench says about a step once it has run: each judgment a file
//! of its own, named for what it warns about, run in order over the step's
//! result by both pipelines (db_bench-style configs, runner/child.rs, and
//! the table workloads', runner/tables.rs). A judgment reads the step's
//! figures and adds a warning or a note; it measures nothing. Adding one is
//! adding a file and a line in `JUDGMENTS`.

mod device_io;
mod memtable_only;
mod not_durable;
mod not_io_bound;
mod warming;
mod writer_missed;

use crate::engine::WriteAmpCounters;
use crate::plan::StepPlan;
use crate::result::StepResult;

/// What a judgment knows of the step beyond its result.
pub struct Step<'a> {
    pub plan: &'a StepPlan,
    /// What the step's background writers write ("ops" of a key-value
    /// writer, "rows" of the insert benchmark's), for their warning.
    pub writes: &'static str,
    /// The engine's flush and compaction counters before and after the step,
    /// where the engine keeps them.
    pub engine_counters: Option<(Option<WriteAmpCounters>, WriteAmpCounters)>,
    /// The bytes of keys and values the step's clients wrote.
    pub logical_bytes_written: u64,
}

/// A judgment: the step, its result to add to.
type Judgment = fn(&Step<'_>, &mut StepResult);

/// Every judgment, in the order their words appear in a step's warnings.
const JUDGMENTS: &[Judgment] = &[
    warming::judge,
    memtable_only::judge,
    not_durable::judge,
    device_io::judge,
    writer_missed::judge,
    not_io_bound::judge,
];

/// Judge `result`, the step `step` ran.
pub fn judge(step: &Step<'_>, result: &mut StepResult) {
    for j in JUDGMENTS {
        j(step, result);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::plan::steps::StepKind;

    /// A step of `kind` for a judgment's test.
    pub(crate) fn step(plan: &StepPlan) -> Step<'_> {
        Step { plan, writes: "ops", engine_counters: None, logical_bytes_written: 0 }
    }

    pub(crate) fn plan(kind: StepKind) -> StepPlan {
        crate::plan::test_step(kind, 1, false)
    }

    #[test]
    fn a_plain_step_is_judged_silently() {
        let p = plan(StepKind::ReadRandom);
        let mut r = StepResult::new(&p);
        judge(&step(&p), &mut r);
        assert!(r.warnings.is_empty() && r.notes.is_empty(), "{:?} {:?}", r.warnings, r.notes);
    }
}
