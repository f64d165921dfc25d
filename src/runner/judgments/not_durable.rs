//! Writes acknowledged without the sync calls their durability needs:
//! "not durable as run", with why (fewer syncs than commits, or writes
//! that never asked for the journal).

use super::Step;
use crate::measure::step_metrics::SyncMetrics;
use crate::result::StepResult;

pub(super) fn judge(_: &Step<'_>, result: &mut StepResult) {
    if let Some(w) = result.metrics.syncs.as_ref().and_then(SyncMetrics::not_durable_warning) {
        result.warnings.push(w);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{plan, step};
    use super::*;
    use crate::plan::steps::StepKind;

    #[test]
    fn writes_not_asked_to_be_durable_are_said_so() {
        let p = plan(StepKind::FillRandom);
        let mut r = StepResult::new(&p);
        r.metrics.syncs = Some(SyncMetrics::default().not_durable_as_asked(100, "sync=false".into()));
        judge(&step(&p), &mut r);
        assert_eq!(r.warnings, ["not durable as run: sync=false"]);
        let mut r = StepResult::new(&p);
        judge(&step(&p), &mut r);
        assert!(r.warnings.is_empty());
    }
}
