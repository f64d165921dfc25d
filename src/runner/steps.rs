//! The one step loop every kind of config runs (an engine's db_bench-style
//! steps, and the table workloads on a server or an engine): the steps in
//! their run order, each kept on disk while it runs, recorded as it ends.

use anyhow::Result;

use crate::engine::Engine;
use crate::plan::{RunPlan, StepPlan};
use crate::result::{RunResult, StepResult};

use super::*;

/// Runs config `index`'s steps (its result is `run.configs[ci]`) in their
/// run order until one ends the config or a stop is asked: `run_step(step,
/// i)` runs the `i`-th step of the plan; `engine` is the engine the steps
/// run in, when they run in one (what a flush or a settle waits on, what
/// the checkpoint asks for the space it has used); their data dir is the
/// config's (`RunOptions::data_dir`).
pub(crate) fn run_steps(
    plan: &RunPlan,
    opts: &RunOptions,
    index: usize,
    ci: usize,
    run: &mut RunResult,
    engine: Option<&dyn Engine>,
    mut run_step: impl FnMut(&StepPlan, usize) -> StepResult,
) -> Result<()> {
    let config = &plan.configs[index];
    let data_dir = opts.data_dir(config);
    let order = crate::plan::run_order(&plan.steps, config.repeat);
    let mut prev: Option<&StepPlan> = None;
    let mut schedule = opts.schedule.map(schedule::Schedule::new);
    for (position, &i) in order.iter().enumerate() {
        let step = &plan.steps[i];
        if crate::driver::stop::stop_requested() {
            break;
        }
        duet::begin_step(position);
        let settled = settle_point(step, prev, engine);
        profiling::before_step(step);
        // (i: the step's seeds stay its own whatever the order.)
        let (mut result, _checkpoint) =
            checkpoint::keep(&opts.output_dir, index, i, run.configs[ci].steps.len(), engine, || {
                schedule::Schedule::run(&mut schedule, step, || run_step(step, i))
            });
        duet::end_step(position);
        note_sweep_order(&mut result, plan, &order, i, config.repeat);
        if let Some(s) = settled {
            s.record(&mut result);
        }
        note_write_debt(&mut result, engine);
        prev = Some(step);
        if !record_step(run, ci, config, step.kind, result, opts, &data_dir)? {
            break;
        }
    }
    Ok(())
}

/// How a sweep's point was settled before it ran, for its notes.
pub(crate) enum Settled {
    Note(String),
    Warning(String),
}

impl Settled {
    pub(crate) fn record(self, result: &mut StepResult) {
        match self {
            Settled::Note(n) => result.notes.insert(0, n),
            Settled::Warning(w) => result.warnings.insert(0, w),
        }
    }
}

/// A step that wrote: what the engine still owes for it as it ends
/// (`engine`: None for a server, which is not asked yet).
pub(crate) fn note_write_debt(result: &mut StepResult, engine: Option<&dyn Engine>) {
    if result.metrics.logical_bytes_written == 0 {
        return;
    }
    // An interrupted step's engine is as alive as a completed one's: what it
    // owes for the writes it took is asked the same way.
    let owed = match (result.status, engine) {
        (Status::Completed | Status::Interrupted, Some(e)) => e.write_debt(),
        (Status::Completed | Status::Interrupted, None) => {
            Err("a server's dirty buffers and checkpoint age are not read".to_string())
        }
        (_, _) => Err("the step failed: an engine that failed is not asked what it owes".to_string()),
    };
    result.write_debt = Some(crate::result::debt::WriteDebt::owed(owed));
}

/// Settle the engine before a concurrency sweep's point when the steps
/// before it may have left background work: before the sweep's first point
/// (after a fill or load) and after a point that changed data. `engine` is
/// None for a server, which gives rumbench nothing to wait on.
pub(crate) fn settle_point(step: &StepPlan, prev: Option<&StepPlan>, engine: Option<&dyn Engine>) -> Option<Settled> {
    let prev = prev?;
    let same_sweep = prev.sweep && prev.kind == step.kind;
    if !step.sweep || (same_sweep && !prev.kind.changes_data()) {
        return None;
    }
    let Some(engine) = engine else {
        return (!same_sweep).then(|| {
            Settled::Note(
                "not settled before this sweep: a server's background work (checkpoints, vacuum, purge) has no wait here; --repeat rotates the points' order instead"
                    .into(),
            )
        });
    };
    Some(
        match crate::workload::dbbench::settle(
            engine,
            std::time::Duration::from_secs_f64(step.settings.compaction_timeout_s),
        ) {
            Ok((note, false)) => Settled::Note(note),
            Ok((warning, true)) => Settled::Warning(warning),
            Err(e) => Settled::Warning(format!("settling before this point failed: {e:#}")),
        },
    )
}

/// On the first point of a sweep run in a rotated order: which order.
pub(crate) fn note_sweep_order(
    result: &mut StepResult,
    plan: &RunPlan,
    order: &[usize],
    i: usize,
    repeat: Option<u32>,
) {
    let step = &plan.steps[i];
    let pos = order.iter().position(|&j| j == i).unwrap_or(0);
    let starts_block = pos == 0 || !(plan.steps[order[pos - 1]].sweep && plan.steps[order[pos - 1]].kind == step.kind);
    if !step.sweep || !starts_block || order[pos] == pos {
        return;
    }
    let threads: Vec<String> = order[pos..]
        .iter()
        .map(|&j| &plan.steps[j])
        .take_while(|s| s.sweep && s.kind == step.kind)
        .map(|s| s.settings.threads.to_string())
        .collect();
    result.notes.push(format!(
        "this sweep's points ran in the order {} clients (rotated for round {})",
        threads.join(", "),
        repeat.unwrap_or(1)
    ));
}

#[cfg(test)]
mod settle_tests {
    use super::*;
    use crate::plan::test_step as plan;

    /// A server has nothing to wait on: its sweep's first point says so, once.
    #[test]
    fn a_sweep_on_a_server_says_once_that_it_was_not_settled() {
        let load = plan(StepKind::YcsbLoad, 1, false);
        let (c1, c2) = (plan(StepKind::YcsbC, 1, true), plan(StepKind::YcsbC, 2, true));
        assert!(
            matches!(settle_point(&c1, Some(&load), None), Some(Settled::Note(n)) if n.starts_with("not settled before this sweep"))
        );
        assert!(settle_point(&c2, Some(&c1), None).is_none());
        assert!(settle_point(&load, None, None).is_none());
        let (a1, a2) = (plan(StepKind::YcsbA, 1, true), plan(StepKind::YcsbA, 2, true));
        assert!(settle_point(&a2, Some(&a1), None).is_none(), "said once per sweep");
    }

    /// On an engine: before the first point, after a point that changed data, not between reads.
    #[test]
    fn an_engine_is_settled_before_the_first_point_and_after_writes() {
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::engine::conformance::open_with(&crate::engine::rocksdb::SPEC, dir.path(), &[]).unwrap();
        let fill = plan(StepKind::FillSeq, 1, false);
        let (r1, r2) = (plan(StepKind::ReadRandom, 1, true), plan(StepKind::ReadRandom, 2, true));
        let (w1, w2) = (plan(StepKind::ReadWhileWriting, 1, true), plan(StepKind::ReadWhileWriting, 2, true));
        let note = |s: Option<Settled>| match s {
            Some(Settled::Note(n)) => n,
            _ => String::new(),
        };
        assert!(note(settle_point(&r1, Some(&fill), Some(engine.as_ref())))
            .starts_with("settled before this point: flushed and waited for background work"));
        assert!(settle_point(&r2, Some(&r1), Some(engine.as_ref())).is_none());
        assert!(
            note(settle_point(&w2, Some(&w1), Some(engine.as_ref()))).starts_with("settled before this point"),
            "a background writer changed data"
        );
    }
}
