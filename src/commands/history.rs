//! `rumbench history`: the runs recorded in the local history, its rebuild
//! from result directories, and where figures shifted (`history changes`).

use std::process::ExitCode;

use anyhow::{bail, Result};
use rumbench::cli::{ChangesArgs, HistoryAction, HistoryArgs};
use rumbench::{errln, out, outln, report};

pub fn run(a: HistoryArgs) -> Result<ExitCode> {
    use report::history::{self, Filter, History};
    let path = history::resolve_path(a.history.as_deref())?;
    match a.action {
        Some(HistoryAction::Rebuild { dirs }) => {
            let mut h = History::open(&path)?;
            let r = h.rebuild(&dirs)?;
            for s in &r.skipped {
                errln!("warning: skipped {s}");
            }
            outln!(
                "history: {} runs indexed, {} entries removed, {} runs in {}",
                r.recorded,
                r.removed,
                h.count()?,
                path.display()
            );
        }
        Some(HistoryAction::Changes(c)) => return changes(&History::open_read_only(&path)?, c),
        None => {
            let h = History::open_read_only(&path)?;
            let f = Filter {
                engine: a.engine,
                version: a.version,
                step: a.step.clone(),
                config: a.config,
                since: a.since,
                until: a.until,
            };
            let entries = h.list(&f)?;
            if entries.is_empty() {
                outln!("no runs match (history: {})", path.display());
            } else {
                out!("{}", history::render_list(&entries, a.step.as_deref()));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn changes(h: &report::history::History, a: ChangesArgs) -> Result<ExitCode> {
    use report::summary::METRICS;
    let mut metrics: Vec<&'static str> = Vec::new();
    for m in &a.metric {
        match METRICS.iter().find(|x| x.key == m.trim()) {
            Some(x) => metrics.push(x.key),
            None => {
                bail!("unknown metric '{m}' (one of: {})", METRICS.iter().map(|x| x.key).collect::<Vec<_>>().join(", "))
            }
        }
    }
    let f = report::history::Filter {
        engine: a.engine,
        step: a.step,
        config: a.config,
        since: a.since,
        until: a.until,
        version: None,
    };
    let (series, skipped) = h.series(&f, &metrics)?;
    for s in &skipped {
        errln!("warning: skipped run {s}");
    }
    let o = report::changes::Options { min_change: a.min_change, significance: a.significance, ..Default::default() };
    let (text, _) = report::history::render_changes(&series, &o);
    out!("{text}");
    Ok(ExitCode::SUCCESS)
}
