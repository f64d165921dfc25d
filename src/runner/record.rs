//! A step's result recorded: its ceilings, warnings and printed line, the
//! run's files rewritten, and the config's status when its steps are done.

use super::*;

pub(crate) fn print_step_line(config: &str, s: &StepResult) {
    use crate::report::table::num;
    let percentiles = |l: &crate::measure::LatencySummary| {
        format!("p50 {} us, p99 {} us, max {} us", num(l.p50_us), num(l.p99_us), num(l.max_us))
    };
    // A mixed step's latency is each type's: no one type's stands for the step.
    let latency = match (s.step_latency(), s.ops_by_type.as_slice()) {
        (Some(l), _) => percentiles(l),
        // Nothing was timed (a wait with nothing to wait for): no latency, not zeros.
        (None, []) => "no operation timed".to_string(),
        (None, types) => types
            .iter()
            .map(|o| {
                if o.latency.count > 0 {
                    format!("{} {}", o.op, percentiles(&o.latency))
                } else {
                    format!("{} none", o.op)
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    match s.status {
        Status::Interrupted if s.ops_s.is_none() => errln!(
            "  {config} {}: {}, before any operation completed",
            s.name,
            s.error.as_deref().unwrap_or("interrupted")
        ),
        Status::Completed | Status::Interrupted => errln!(
            "  {config} {}: {} ops/s over {:.1} s, {latency}{}",
            s.name,
            s.ops_s.map(num).unwrap_or_else(|| "-".into()),
            s.wall_s.unwrap_or(0.0),
            if s.status == Status::Interrupted { " (interrupted)" } else { "" }
        ),
        _ => errln!("  {config} {}: {}", s.name, s.error.as_deref().unwrap_or("failed")),
    }
    for w in &s.warnings {
        errln!("    warning: {w}");
    }
}

/// Print a finished step, append it to config `ci` of `run` and write every
/// output. Returns whether the config's next step should run (false once a
/// step did not complete; the config then carries its status and error).
///
/// A failed step keeps what its clients completed (the operations of each
/// type, their per-second series), but no rate and no space-amp: a step
/// cut short by a failure has no rate of the engine's, and its database's
/// size is not that of the keys it holds. When the data filesystem is full,
/// its error says so (engines often report only EIO).
pub(crate) fn record_step(
    run: &mut RunResult,
    ci: usize,
    config: &EngineConfig,
    kind: StepKind,
    mut result: StepResult,
    opts: &RunOptions,
    data_dir: &Path,
) -> Result<bool> {
    if result.status == Status::Failed {
        if let Some(full) = full_filesystem_note(data_dir, "data", opts) {
            let e = result.error.take().unwrap_or_else(|| "failed".into());
            result.error = Some(format!("{e} ({full})"));
        }
        if result.ops > 0 {
            result.notes.push(format!(
                "failed after {} operations: they are kept, but no rate is reported for a failed step",
                result.ops
            ));
            result.metrics.missing.push(crate::measure::step_metrics::Missing {
                metric: "ops_s".into(),
                reason: format!("the step failed after {} operations: a step cut short has no rate", result.ops),
            });
        }
        result.ops_s = None;
        result.mb_s = None;
        result.rates = None;
        result.writer = None;
        if result.metrics.space_amp.take().is_some() {
            result.metrics.missing.push(crate::measure::step_metrics::Missing {
                metric: "space_amp".into(),
                reason: "the step failed: the database's size and the keys it holds are not of one moment".into(),
            });
        }
    }
    // Stopped or failed before any operation completed: nothing was measured.
    if result.status != Status::Completed && result.ops == 0 {
        result.ops_s = None;
        result.mb_s = None;
        result.rates = None;
        result.wall_s = None;
        result.metrics.missing.push(crate::measure::step_metrics::Missing {
            metric: "ops_s".into(),
            reason: format!(
                "no operation completed before the step {}",
                if result.status == Status::Failed { "failed" } else { "was interrupted" }
            ),
        });
    }
    let server = config.engine.parse::<crate::plan::server_kind::ServerKind>().is_ok();
    let target = config.is_target().then(device::for_target);
    // A flush, a wait for compaction or a settle is one call: no rate of operations to bound.
    if !kind.is_engine_call() {
        result.ceilings =
            ceilings::step_ceilings(&result, target.as_ref().unwrap_or(&opts.device), server, cores() as f64);
    }
    if let Some(c) = &result.ceilings {
        result.warnings.extend(c.warnings.iter().cloned());
        result.notes.extend(c.notes.iter().cloned());
    }
    profiling::note_step(run.configs[ci].steps.len(), &mut result);
    let config_name = config.name.as_str();
    print_step_line(config_name, &result);
    let status = result.status;
    let error = result.error.clone();
    run.configs[ci].steps.push(result);
    // Its write debt, and what this step paid of the steps' before it.
    crate::result::debt::settle_accounts(&mut run.configs[ci].steps);
    let mut written = crate::report::write_all(run, &opts.output_dir);
    // The step's profile, cut from perf's recording now that the step is on
    // disk, and written with it (a kill after this keeps it).
    let (profiled, warnings) = profiling::cut(run, ci, opts);
    for w in &warnings {
        errln!("    warning: {w}");
    }
    if profiled && written.is_ok() {
        written = crate::report::write_all(run, &opts.output_dir);
    }
    // A results filesystem that is full must not stop the cleanup (the
    // server, the data dir) nor the configs after this one: the config fails
    // here, and the main process writes again once its data dir is gone.
    if let Err(e) = written {
        let full =
            full_filesystem_note(&opts.output_dir, "results", opts).map(|f| format!(" ({f})")).unwrap_or_default();
        let msg = format!("cannot write the results: {}{full}", format!("{e:#}").replace('\n', " "));
        errln!("  {config_name}: {msg}");
        run.configs[ci].status = Status::Failed;
        run.configs[ci].error = Some(msg);
        return Ok(false);
    }
    if status != Status::Completed {
        run.configs[ci].status = status;
        run.configs[ci].error = error.map(|e| format!("step {kind}: {e}"));
        return Ok(false);
    }
    Ok(true)
}

/// A config whose steps all ran is completed; one a signal stopped before
/// its last step is interrupted (a failed step has set its status already).
/// Its concurrency sweeps are judged against `machine`.
pub(crate) fn settle_config_status(run: &mut RunResult, ci: usize, planned_steps: usize, machine: Machine) {
    let c = &mut run.configs[ci];
    if c.status == Status::Running {
        if c.steps.len() >= planned_steps || !crate::driver::stop::stop_requested() {
            c.status = Status::Completed;
        } else {
            c.status = Status::Interrupted;
            c.error = Some(format!("not every step ran: {}", crate::driver::stop::interrupted_text()));
        }
    }
    c.scaling = crate::result::scaling::sweeps(c, Some(&machine));
}
