//! `rumbench report RUN...`: one self-contained HTML report.

use std::process::ExitCode;

use anyhow::Result;
use rumbench::cli::ReportArgs;
use rumbench::{errln, outln, report};

use super::{one_line, EXIT_FAILED};

pub fn run(a: ReportArgs) -> Result<ExitCode> {
    let runs = report::load_runs(&a.runs, a.history.as_deref())?;
    let out = match a.output {
        Some(p) => p,
        None if runs.len() == 1 => runs[0].dir.join("report.html"),
        None => std::path::PathBuf::from("report.html"),
    };
    // A run's own report.html is the report's to rewrite; its other files are not.
    const REPORT_MAY_REWRITE: &[&str] = &["report.html"];
    report::output::check_user_file(&out, REPORT_MAY_REWRITE)?;
    let text = report::render_html(&runs, a.base.as_deref(), a.title)?;
    if let Err(e) = report::output::write_user_file(&out, text.as_bytes(), REPORT_MAY_REWRITE) {
        errln!("rumbench: error: {}", one_line(&e));
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    outln!("report: {}", out.display());
    Ok(ExitCode::SUCCESS)
}
