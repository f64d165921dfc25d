//! A write step shorter than the engine's flush and compaction cycle: the
//! engine took the clients' bytes and wrote nothing of its own, so the step
//! measured its memtable only. And a step whose engine write-amp is not
//! shown because the engine's counters are too coarse for its ingest.

use super::Step;
use crate::result::{Status, StepResult};

pub(super) fn judge(step: &Step<'_>, result: &mut StepResult) {
    let Some((before, after)) = step.engine_counters else { return };
    let ingested = after.ingest_bytes.saturating_sub(before.map_or(0, |b| b.ingest_bytes));
    let written = after.written_bytes.saturating_sub(before.map_or(0, |b| b.written_bytes));
    let wrote = step.logical_bytes_written > 0;
    if wrote && result.engine_write_amp.is_none() && after.resolution_bytes > 1 {
        result.notes.push(
            "engine write-amp not shown: the engine's counters are too coarse for this little ingest (rocksdb: set statistics=true for exact counters)".into(),
        );
    }
    if ingested > 0 && written == 0 && result.status == Status::Completed {
        result.warnings.push(format!(
            "the step ({:.1} s) was shorter than the engine's flush/compaction cycle: nothing was flushed, so it measured the memtable only; run longer or use a smaller write buffer",
            result.wall_s.unwrap_or(0.0)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::plan;
    use super::*;
    use crate::engine::WriteAmpCounters;
    use crate::plan::steps::StepKind;

    fn judged(before: u64, after: WriteAmpCounters, logical: u64) -> StepResult {
        let p = plan(StepKind::FillRandom);
        let mut r = StepResult::new(&p);
        r.status = Status::Completed;
        r.wall_s = Some(2.0);
        let before = WriteAmpCounters { ingest_bytes: before, written_bytes: 0, ..after };
        r.engine_write_amp = after.amp_since(Some(before));
        let step = Step {
            plan: &p,
            writes: "ops",
            engine_counters: Some((Some(before), after)),
            logical_bytes_written: logical,
        };
        judge(&step, &mut r);
        r
    }

    #[test]
    fn nothing_flushed_is_the_memtable_only_and_coarse_counters_say_so() {
        let c = |ingest, written, resolution| WriteAmpCounters {
            ingest_bytes: ingest,
            written_bytes: written,
            resolution_bytes: resolution,
        };
        let r = judged(0, c(64 << 20, 0, 1), 64 << 20);
        assert!(r.warnings.iter().any(|w| w.contains("measured the memtable only")), "{:?}", r.warnings);
        // Flushed: no warning; exact counters: no note.
        let r = judged(0, c(64 << 20, 70 << 20, 1), 64 << 20);
        assert!(r.warnings.is_empty() && r.notes.is_empty(), "{:?} {:?}", r.warnings, r.notes);
        // Counters of 10 MB steps and 1 MB ingested: no ratio, said why.
        let r = judged(0, c(1 << 20, 10 << 20, 10 << 20), 1 << 20);
        assert!(r.notes.iter().any(|n| n.contains("too coarse")), "{:?}", r.notes);
    }
}
