//! `rumbench crashtest`: durability proven by crashing each config (its
//! work in src/crashtest/); this is its command: the plan, the checks
//! before anything starts, and the durability matrix printed at the end.

use std::process::ExitCode;

use anyhow::Result;
use rumbench::planner::{PlanInputs, SuiteFile};
use rumbench::result::Status;
use rumbench::{errln, outln, report, runner};

use super::{interrupted_exit_code, one_line, signals, EXIT_FAILED};

pub fn run(a: rumbench::cli::CrashtestArgs) -> Result<ExitCode> {
    use rumbench::crashtest;
    let suite = a.config.as_deref().map(SuiteFile::load).transpose()?;
    let plan = rumbench::planner::build(&PlanInputs {
        suite,
        engines: a.engine.clone(),
        targets: Vec::new(),
        options: a.options.clone(),
        sweeps: a.sweeps.clone(),
        flags: Default::default(),
        postgres_versions: rumbench::server::pg_versions::available,
        ..Default::default()
    })?;
    for c in &plan.configs {
        crashtest::check_config(c)?;
    }
    let default_base = a.output_dir.is_none().then(runner::dirs::default_output_dir);
    let output_dir = match (&a.output_dir, &default_base) {
        (Some(dir), _) => dir.clone(),
        (None, Some(base)) => runner::dirs::free_name(base),
        (None, None) => unreachable!(),
    };
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    });
    let opts = crashtest::Options {
        crashes: a.crashes,
        threads: a.threads,
        value_size: a.value_size,
        kill_after_ms: a.kill_after,
        seed,
        work_root: a.db_dir.clone().unwrap_or_else(|| output_dir.join("db")),
        keep: a.keep_db,
        semantics: match a.fs_semantics {
            rumbench::cli::FsSemantics::Posix => rumbench::lazyfs::Semantics::Posix,
            rumbench::cli::FsSemantics::Journaled => rumbench::lazyfs::Semantics::Journaled,
        },
    };
    crashtest::check_options(&opts)?;
    runner::dirs::check_output_dir(&output_dir, a.replace_output)?;
    if let Some(db_dir) = &a.db_dir {
        runner::dirs::check_apart(&output_dir, db_dir)?;
    }
    crashtest::preflight(&plan.configs, &opts)?;
    let output_dir = match &default_base {
        Some(base) => runner::dirs::claim_new_dir(base)?,
        None => output_dir,
    };
    signals::install(true);
    errln!("crash test: {} (seed {seed})", rumbench::result::crashtest::NOT_A_BENCHMARK);
    let command_line = std::env::args().collect();
    let run = match crashtest::execute(&plan.configs, &opts, &output_dir, a.replace_output, command_line) {
        Ok(r) => r,
        Err(e) => {
            errln!("rumbench: error: {}", one_line(&e));
            return Ok(ExitCode::from(if rumbench::driver::stop::stop_requested() {
                interrupted_exit_code()
            } else {
                EXIT_FAILED
            }));
        }
    };
    let report_written = report::write_run_html(&output_dir, &run);
    outln!();
    outln!("{}", report::table::durability_text(&run).trim_end_matches('\n'));
    outln!();
    outln!("results: {}", output_dir.display());
    match report_written {
        Ok(path) => outln!("report: {}", path.display()),
        Err(e) => errln!("warning: cannot write the HTML report: {}", one_line(&e)),
    }
    let lossy = run
        .crashtest
        .iter()
        .flat_map(|t| &t.configs)
        .filter(|c| c.totals.lost + c.totals.wrong_values + c.totals.never_written > 0)
        .count();
    match run.status {
        Status::Interrupted => {
            errln!(
                "rumbench: {}; results measured so far are in {}",
                run.error.as_deref().unwrap_or("interrupted"),
                output_dir.display()
            );
            Ok(ExitCode::from(interrupted_exit_code()))
        }
        Status::Failed => {
            errln!("rumbench: error: {}", run.error.as_deref().unwrap_or("crash test failed"));
            Ok(ExitCode::from(EXIT_FAILED))
        }
        _ if a.fail_on_loss && lossy > 0 => {
            errln!(
                "rumbench: {lossy} config{} lost acknowledged commits or gave wrong records back",
                if lossy == 1 { "" } else { "s" }
            );
            Ok(ExitCode::from(EXIT_FAILED))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}
