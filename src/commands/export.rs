//! `rumbench export RUN... --format F`: markdown, TSV, per-second CSV or
//! an HdrHistogram interval log, to standard output or a file.

use std::process::ExitCode;

use anyhow::Result;
use rumbench::cli::{ExportArgs, ExportFormat};
use rumbench::{errln, out, report};

use super::{one_line, EXIT_FAILED};

pub fn run(a: ExportArgs) -> Result<ExitCode> {
    use report::Exporter;
    if let Some(p) = &a.output {
        report::output::check_user_file(p, &[])?;
    }
    let runs = report::load_runs(&a.runs, a.history.as_deref())?;
    let text = match a.format {
        ExportFormat::Markdown => {
            let s = report::summarize(&runs);
            let base = report::parse_base(a.base.as_deref(), &runs, &s)?;
            report::markdown::render(&s, &base)
        }
        ExportFormat::Tsv => report::tsv::render(&report::summarize(&runs)),
        ExportFormat::HdrLog if runs.len() == 1 => report::hlog::render(&runs[0].run)?,
        ExportFormat::HdrLog => anyhow::bail!("--format hdr-log takes one run (an interval log is one timeline)"),
        ExportFormat::Csv if runs.len() == 1 => report::csv::IntervalsCsv.render(&runs[0].run)?,
        ExportFormat::Csv => {
            let mut out = format!("run,{}\n", report::csv::HEADER);
            for r in &runs {
                for line in report::csv::IntervalsCsv.render(&r.run)?.lines().skip(1) {
                    out.push_str(&format!("{},{line}\n", r.label));
                }
            }
            out
        }
    };
    match a.output {
        Some(p) => {
            // Past the checks: a write that fails (a full disk, /dev/full) is not bad input.
            if let Err(e) = report::output::write_user_file(&p, text.as_bytes(), &[]) {
                errln!("rumbench: error: {}", one_line(&e));
                return Ok(ExitCode::from(EXIT_FAILED));
            }
            errln!("wrote {}", p.display());
        }
        None => out!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
