//! A point-read step in io-bound mode whose reads seldom reached storage:
//! the data fit in a cache, so it was not the IO-bound run it was asked to be.

use super::Step;
use crate::plan::steps::StepKind;
use crate::plan::Mode;
use crate::result::StepResult;

/// Storage reads per point query below which an io-bound step was not.
const FEWEST_READS: f64 = 0.5;

pub(super) fn judge(step: &Step<'_>, result: &mut StepResult) {
    let plan = step.plan;
    let point_reads =
        matches!(plan.kind, StepKind::ReadRandom | StepKind::MultiReadRandom | StepKind::ReadWhileWriting);
    if plan.settings.mode != Mode::IoBound || !point_reads {
        return;
    }
    if let Some(rpq) = result.metrics.io.as_ref().and_then(|io| io.rpq).filter(|&r| r < FEWEST_READS) {
        result.warnings.push(format!(
            "io-bound mode, but point queries averaged {rpq:.2} storage reads each: the run was not IO-bound (the data fits in a cache)"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{plan, step};
    use super::*;

    #[test]
    fn an_io_bound_read_served_from_a_cache_is_said_so() {
        let mut p = plan(StepKind::ReadRandom);
        p.settings.mode = Mode::IoBound;
        let with_rpq = |rpq: f64| {
            let mut r = StepResult::new(&p);
            r.metrics.io = Some(crate::measure::step_metrics::IoMetrics { rpq: Some(rpq), ..Default::default() });
            r
        };
        let mut r = with_rpq(0.1);
        judge(&step(&p), &mut r);
        assert!(r.warnings[0].contains("not IO-bound"), "{:?}", r.warnings);
        let mut r = with_rpq(1.2);
        judge(&step(&p), &mut r);
        assert!(r.warnings.is_empty());
        // Cached mode: not judged.
        let cached = plan(StepKind::ReadRandom);
        let mut r = with_rpq(0.1);
        judge(&step(&cached), &mut r);
        assert!(r.warnings.is_empty());
    }
}
