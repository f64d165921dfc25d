//! `rumbench replay FILE`: a run of the replay step on FILE (with --steps,
//! the steps given, one of them replay), every run flag as `rumbench run`'s.

use std::process::ExitCode;

use anyhow::{bail, Result};

use rumbench::cli::ReplayArgs;

pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let mut run = a.run;
    if run.settings.replay.is_some() {
        bail!("the trace is given once: rumbench replay FILE, without --replay");
    }
    run.settings.replay = Some(a.file);
    // The replay step alone, unless --steps or a suite's steps say otherwise.
    let suite_steps = match &run.config {
        Some(path) => {
            let suite = rumbench::planner::SuiteFile::load(path)?;
            suite.settings.steps.is_some() || !suite.steps.is_empty()
        }
        None => false,
    };
    if run.settings.steps.is_none() && !suite_steps {
        run.settings.steps = Some(vec!["replay".into()]);
    }
    super::run::run(run)
}
