//! The device's figures against the measured processes' own: a device that
//! wrote or read far more than they did was busy with other processes, and
//! its figures (write-amp, reads per query) are mostly theirs.

use super::Step;
use crate::result::StepResult;

pub(super) fn judge(_: &Step<'_>, result: &mut StepResult) {
    let warnings = result.metrics.judge_device_io();
    result.warnings.extend(warnings);
}

#[cfg(test)]
mod tests {
    use super::super::tests::{plan, step};
    use super::*;
    use crate::plan::steps::StepKind;

    #[test]
    fn a_step_without_device_figures_is_not_judged() {
        let p = plan(StepKind::FillRandom);
        let mut r = StepResult::new(&p);
        judge(&step(&p), &mut r);
        assert!(r.warnings.is_empty() && !r.metrics.device_writes_by_others);
    }
}
