//! `rumbench merge SHARD... -d OUT`: the shards of one run as one run.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use rumbench::cli::MergeArgs;
use rumbench::{errln, outln, report, runner};

use super::EXIT_FAILED;

/// `rumbench merge`: the shards' results as one run, in a directory of its own.
pub fn run(a: MergeArgs) -> Result<ExitCode> {
    let mut runs = Vec::new();
    for dir in &a.dirs {
        let file = if dir.is_dir() { dir.join("result.json") } else { dir.clone() };
        runs.push((dir.display().to_string(), rumbench::result::load(&file)?));
    }
    // The merge goes beside its inputs, never over one (or over a dir holding one).
    if let Ok(out) = std::fs::canonicalize(&a.output_dir) {
        for dir in &a.dirs {
            let input = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            let input_dir =
                if input.is_dir() { input.clone() } else { input.parent().map(PathBuf::from).unwrap_or_default() };
            if input_dir.starts_with(&out) {
                bail!(
                    "--output-dir {} holds the shard {} that is merged: the merge goes into a directory of its own",
                    a.output_dir.display(),
                    dir.display()
                );
            }
        }
    }
    // --replace-output replaces an earlier merge, not a run of another kind.
    let earlier = a.output_dir.join("result.json");
    if a.replace_output && earlier.is_file() {
        match rumbench::result::load(&earlier) {
            Ok(r) if r.merged.is_some() => {}
            Ok(_) => bail!(
                "--output-dir {} holds a run that is not a merge: --replace-output replaces only an earlier merge",
                a.output_dir.display()
            ),
            Err(_) => {}
        }
    }
    let shards = rumbench::result::merge::check_shards(runs)?;
    runner::dirs::check_output_dir(&a.output_dir, a.replace_output)?;
    let command_line = std::env::args().collect();
    let mut merged = rumbench::result::merge::merge(&shards, command_line)?;
    let _lock = runner::dirs::prepare_output_dir(&a.output_dir, a.replace_output)?;
    rumbench::result::merge::merge_profiles(&shards, &mut merged, &a.output_dir)?;
    report::write_all(&merged, &a.output_dir)?;
    let report_path = report::write_run_html(&a.output_dir, &merged)?;
    for w in merged.all_warnings() {
        errln!("warning: {w}");
    }
    outln!(
        "{}",
        report::table::render_summary_in(&merged, report::table::Columns::Compact, &a.output_dir)
            .trim_end_matches('\n')
    );
    let shards_table = report::table::shards_text(&merged);
    if !shards_table.is_empty() {
        outln!();
        outln!("{}", shards_table.trim_end_matches('\n'));
    }
    outln!();
    outln!("results: {}", a.output_dir.display());
    outln!("report: {}", report_path.display());
    Ok(if merged.status == rumbench::result::Status::Completed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    })
}
