//! `rumbench compare RUN...`: each run against the first, a verdict per
//! step and metric.

use std::process::ExitCode;

use anyhow::{bail, Result};
use rumbench::cli::CompareArgs;
use rumbench::{errln, out, outln, report};

use super::EXIT_FAILED;

pub fn run(a: CompareArgs) -> Result<ExitCode> {
    use report::compare::{self, Group, Verdict};
    if let Some(path) = &a.html {
        report::output::check_user_file(path, &[])?;
    }
    let mut groups = Vec::new();
    for arg in &a.runs {
        let members: Vec<String> = arg.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        if members.is_empty() {
            bail!("compare: {arg:?} names no run (give run directories, result.json files or history ids; DIR1,DIR2 groups repeats)");
        }
        let mut runs = Vec::new();
        for m in &members {
            let (dir, run) = report::load_one(m, a.history.as_deref())?;
            runs.push((dir.display().to_string(), run));
        }
        groups.push((runs, members));
    }
    let labels = report::summary::run_labels(&groups.iter().map(|(r, _)| r[0].0.clone()).collect::<Vec<_>>());
    let groups: Vec<Group> = groups
        .into_iter()
        .zip(labels)
        .map(|((runs, members), label)| Group {
            label: if members.len() > 1 { format!("{label}(x{})", members.len()) } else { label },
            runs,
        })
        .collect();
    let opts = compare::Options { threshold: a.threshold, metrics: (!a.metrics.is_empty()).then(|| a.metrics.clone()) };
    let c = compare::compare(&groups, &opts)?;
    for g in &groups {
        outln!("{}: {}", g.label, g.runs.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(", "));
    }
    out!("{}", report::compare_text::render(&c));
    let cpu = report::profile_changes::build(&groups, a.threshold);
    // A REGRESSION of CPU per operation points at its explanation.
    for p in &c.pairs {
        for l in p.lines.iter().filter(|l| {
            l.verdict == Verdict::Regression && report::relative::is_cpu_metric(report::summary::METRICS[l.metric].key)
        }) {
            if cpu.iter().any(|s| s.new == p.new && s.step == l.step) {
                outln!(
                    "{}'s REGRESSION in {} {}: where the CPU went, below",
                    p.new,
                    l.step,
                    report::summary::METRICS[l.metric].key
                );
            }
        }
    }
    out!("{}", report::table::render_profile_changes(&cpu));
    if let Some(path) = &a.html {
        let page =
            report::html::profile_changes_page(&groups.iter().map(|g| g.label.as_str()).collect::<Vec<_>>(), &cpu);
        if let Err(e) = report::output::write_user_file(path, page.as_bytes(), &[]) {
            errln!("rumbench: error: {}", super::one_line(&e));
            return Ok(ExitCode::from(EXIT_FAILED));
        }
        outln!("where the CPU went, as HTML: {}", path.display());
    }
    let regressions = c.count(Verdict::Regression);
    if a.fail_on_regression && regressions > 0 {
        errln!(
            "rumbench: {regressions} regression{} (confidence interval wholly beyond the threshold)",
            if regressions == 1 { "" } else { "s" }
        );
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    Ok(ExitCode::SUCCESS)
}
