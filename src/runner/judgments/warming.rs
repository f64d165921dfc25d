//! A read-only step whose rate climbed from its start to its end measured a
//! cache while it warmed: its average depends on its length. Not readseq:
//! it reads each key once, and is what users warm a cache with.

use super::Step;
use crate::plan::steps::StepKind;
use crate::report::fmt::thousands;
use crate::result::{Status, StepResult};

pub(super) fn judge(step: &Step<'_>, result: &mut StepResult) {
    let kind = step.plan.kind;
    let repeats_reads = !kind.changes_data() && !kind.is_engine_call() && kind != StepKind::ReadSeq;
    if !repeats_reads || result.status != Status::Completed {
        return;
    }
    let Some((o, wall_s)) = result.main_op().zip(result.wall_s) else { return };
    let Some((first, last)) = crate::measure::rising_rate(&o.intervals, wall_s) else { return };
    result.warnings.push(format!(
        "still warming: the rate climbed through the step ({} ops/s over its first third, {} over its last), so its average depends on its length; warm the cache first (a readseq step) or run longer",
        thousands(first.round() as u64),
        thousands(last.round() as u64)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::IntervalStats;
    use crate::result::OpResult;

    fn step(kind: StepKind, rates: &[u64]) -> StepResult {
        let mut r = StepResult::new(&crate::plan::test_step(kind, 1, false));
        r.status = Status::Completed;
        r.wall_s = Some(rates.len() as f64);
        r.ops = rates.iter().sum();
        let intervals = rates
            .iter()
            .enumerate()
            .map(|(i, &ops)| IntervalStats { index: i as u32, ops, p99_us: 1.0, max_us: 1.0, histogram: None })
            .collect();
        r.ops_by_type = vec![OpResult {
            op: "get".into(),
            ops: r.ops,
            latency: Default::default(),
            intervals,
            outcomes: None,
            histogram: None,
        }];
        r
    }

    fn warning(kind: StepKind, mut r: StepResult) -> Option<String> {
        let plan = crate::plan::test_step(kind, 1, false);
        judge(&super::super::tests::step(&plan), &mut r);
        r.warnings.pop()
    }

    #[test]
    fn a_read_step_whose_rate_climbs_is_said_to_be_still_warming() {
        let climbing: Vec<u64> = (0..30).map(|i| 130_000 + i * 6_000).collect();
        let w = warning(StepKind::ReadRandom, step(StepKind::ReadRandom, &climbing)).expect("warned");
        assert!(w.starts_with("still warming") && w.contains("157,000 ops/s") && w.contains("277,000"), "{w}");
        assert!(warning(StepKind::YcsbC, step(StepKind::YcsbC, &climbing)).is_some());
        assert!(warning(StepKind::ReadRandom, step(StepKind::ReadRandom, &[170_000; 30])).is_none());
        // Writes, the scan users warm with, and a failed step: not judged.
        for kind in [StepKind::FillRandom, StepKind::ReadWhileWriting, StepKind::ReadSeq, StepKind::WaitForCompaction] {
            assert!(warning(kind, step(kind, &climbing)).is_none(), "{kind}");
        }
        let mut failed = step(StepKind::ReadRandom, &climbing);
        failed.status = Status::Failed;
        assert!(warning(StepKind::ReadRandom, failed).is_none());
    }
}
