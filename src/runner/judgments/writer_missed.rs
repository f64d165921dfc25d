//! A background writer (readwhilewriting's, the insert benchmark's during
//! its queries) that did not reach its rate: the reads ran beside less
//! writing than asked for.

use super::Step;
use crate::result::StepResult;

pub(super) fn judge(step: &Step<'_>, result: &mut StepResult) {
    let Some(w) = result.writer.as_ref().filter(|w| w.missed_target) else { return };
    let text = match step.writes {
        "rows" => "background writers missed their rate",
        _ => "background writer missed its rate",
    };
    let target = w.target_ops_s.unwrap_or(0.0);
    let achieved = w.achieved_ops_s;
    result.warnings.push(format!("{text}: {achieved:.0} of {target:.0} {}/s", step.writes));
}

#[cfg(test)]
mod tests {
    use super::super::tests::plan;
    use super::*;
    use crate::plan::steps::StepKind;

    #[test]
    fn a_writer_below_its_rate_is_named_in_its_unit() {
        let p = plan(StepKind::ReadWhileWriting);
        let mut r = StepResult::new(&p);
        r.writer = Some(crate::result::WriterResult {
            missed_target: true,
            achieved_ops_s: 800.0,
            target_ops_s: Some(1000.0),
            ops: 8000,
            latency: crate::result::OpResult {
                op: "put".into(),
                ops: 8000,
                latency: Default::default(),
                intervals: Vec::new(),
                outcomes: None,
                histogram: None,
            },
            service_time: Default::default(),
            deletes: None,
        });
        let mut rows = r.clone();
        judge(&Step { plan: &p, writes: "ops", engine_counters: None, logical_bytes_written: 0 }, &mut r);
        assert_eq!(r.warnings, ["background writer missed its rate: 800 of 1000 ops/s"]);
        judge(&Step { plan: &p, writes: "rows", engine_counters: None, logical_bytes_written: 0 }, &mut rows);
        assert_eq!(rows.warnings, ["background writers missed their rate: 800 of 1000 rows/s"]);
    }
}
