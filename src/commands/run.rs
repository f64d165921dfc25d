//! `rumbench run`: the benchmark. Its phases, in order (see `run`): the
//! plan (flags and suite files), the checks that change nothing (bad
//! input: exit 2), the output directory claimed, what the plan needs
//! prepared (server versions fetched, RocksDB versions built, the device
//! baseline, servers' settings), the run itself (runner::run), and the
//! results recorded and printed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use rumbench::cli::RunArgs;
use rumbench::plan::RunPlan;
use rumbench::planner::{PlanInputs, SuiteFile};
use rumbench::result::{RunResult, Status};
use rumbench::runner::{self, RunOptions};
use rumbench::{driver, errln, measure, outln, report};

use super::{interrupted_exit_code, one_line, signals, EXIT_FAILED};

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let mut plan = make_plan(&args)?;
    // Without --output-dir: results/<time> (a new name, claimed once the checks pass).
    let default_base = args.output_dir.is_none().then(runner::dirs::default_output_dir);
    let mut opts = check_before_anything(&args, &mut plan, default_base.as_deref())?;
    let output = OutputDir::claim(&mut opts, default_base.as_deref())?;
    if let Some(stopped) = prepare(&args, &mut plan, &mut opts, &output)? {
        return Ok(stopped);
    }
    errln!("steps, as each will run:");
    runner::describe_steps(&plan).iter().for_each(|l| errln!("{l}"));
    if let (Some(ops), Some(secs)) = (args.settings.ops, args.settings.seconds) {
        errln!("note: --ops {ops} is not used: --seconds {secs} is given too, and a step runs for a duration then (as db_bench's --duration over --num)");
    }
    let run = match runner::run(&plan, &opts) {
        Ok(run) => run,
        // Past the checks above, a failure to run is not bad input.
        Err(e) => {
            errln!("rumbench: error: {}", one_line(&e));
            return Ok(ExitCode::from(EXIT_FAILED));
        }
    };
    Ok(record_and_print(&args, &run, &output.path))
}

/// The plan from the flags and the suite file.
fn make_plan(args: &RunArgs) -> Result<RunPlan> {
    let suite = args.config.as_deref().map(SuiteFile::load).transpose()?;
    rumbench::planner::build(&PlanInputs {
        suite,
        engines: args.engine.clone(),
        targets: args.target.clone(),
        options: args.options.clone(),
        sweeps: args.sweeps.clone(),
        flags: args.settings.clone(),
        repeat: args.repeat,
        duet: args.duet,
        threshold: args.threshold,
        // The one question the planner asks outside: which PostgreSQL versions npm has.
        postgres_versions: rumbench::server::pg_versions::available,
        // And which versions an engine's registry has (RocksDB's release builds on Maven Central: rocksdb@7.6.0).
        engine_version_listing: rumbench::engine::version_listing,
        // And which MariaDB builds Maven Central has (mariadb-innodb@10.2).
        mariadb_versions: rumbench::server::mariadb_versions::available,
    })
}

/// Everything that can be known before a step runs, nothing created or
/// changed: an error is bad input (exit 2). The run's options, with the
/// output directory it would use.
fn check_before_anything(args: &RunArgs, plan: &mut RunPlan, default_base: Option<&Path>) -> Result<RunOptions> {
    let schedule = runner::check_sharding(plan, args.shard, args.start_at, args.step_gap)?;
    runner::check_plan(plan)?;
    driver::progress::set_mode(args.progress);
    let mut opts = RunOptions {
        output_dir: match (&args.output_dir, default_base) {
            (Some(dir), _) => dir.clone(),
            (None, Some(base)) => runner::dirs::free_name(base),
            (None, None) => unreachable!("a default base without --output-dir"),
        },
        db_dir: args.db_dir.clone(),
        keep_db: args.keep_db,
        use_existing_db: args.use_existing_db,
        replace_output: args.replace_output,
        // Recorded in the results: never a target's password.
        command_line: std::env::args().map(|a| rumbench::server::endpoint::redact_in(&a)).collect(),
        progress: args.progress,
        device: Default::default(),
        schedule,
        profile_dir: None,
    };
    opts.profile_dir = runner::profiling::check(plan, &opts)?;
    // A --history that is not rumbench's is bad input, refused before anything runs.
    if !args.no_history {
        if let Ok(path) = report::history::resolve_path(args.history.as_deref()) {
            report::history::check_recordable(&path)?;
        }
    }
    if args.device_baseline {
        if plan.configs.iter().all(|c| c.is_target()) {
            bail!("--device-baseline: every config is a server rumbench did not start (--target): its device cannot be measured from here");
        }
        anyhow::Context::context(measure::fio::which_fio(), "--device-baseline")?;
    }
    runner::preflight(plan, &opts)?;
    Ok(opts)
}

/// The run's output directory. Without --output-dir: results/<time>, or
/// <time>-2, ... when another run started in the same second, claimed
/// atomically once the checks passed; released again (it is still empty)
/// when the run does not start.
struct OutputDir {
    path: PathBuf,
    claimed: bool,
}

impl OutputDir {
    fn claim(opts: &mut RunOptions, default_base: Option<&Path>) -> Result<OutputDir> {
        let Some(base) = default_base else { return Ok(OutputDir { path: opts.output_dir.clone(), claimed: false }) };
        opts.output_dir = runner::dirs::claim_new_dir(base)?;
        Ok(OutputDir { path: opts.output_dir.clone(), claimed: true })
    }

    /// An error before the run: the claimed directory goes.
    fn release(&self) {
        if self.claimed {
            let _ = std::fs::remove_dir(&self.path);
        }
    }
}

/// What the plan needs before its first step: PostgreSQL versions fetched
/// and RocksDB versions built (each once, then cached), the device baseline
/// of the data dir, the servers' settings checked against their versions.
/// Some(exit code) when one of them failed or a signal stopped it (not
/// bad input); an error for settings no version of the run knows (bad input).
fn prepare(args: &RunArgs, plan: &mut RunPlan, opts: &mut RunOptions, output: &OutputDir) -> Result<Option<ExitCode>> {
    let failed = |e: anyhow::Error, what: &str| {
        output.release();
        errln!("rumbench: error: {what}{}", one_line(&e));
        Some(ExitCode::from(if driver::stop::stop_requested() { interrupted_exit_code() } else { EXIT_FAILED }))
    };
    if let Err(e) = runner::prepare::fetch_server_versions(plan) {
        return Ok(failed(e, ""));
    }
    signals::install(true);
    match runner::prepare::build_engine_versions(plan) {
        Ok(notes) => notes.iter().for_each(|n| errln!("note: {n}")),
        Err(e) => return Ok(failed(e, "")),
    }
    // The device baseline the steps' ceilings use (measured first with --device-baseline).
    if plan.configs.iter().all(|c| c.is_target()) {
        opts.device = runner::device::for_target();
    } else {
        let store = runner::device::Store::new(args.history.as_deref(), !args.no_history);
        match runner::device::for_run(&opts.db_root(), &store, args.device_baseline) {
            Ok(ctx) => {
                if let Some(why) = &ctx.missing {
                    errln!("note: the steps' read, write and sync ceilings are unknown: {why}");
                }
                opts.device = ctx;
            }
            Err(e) => return Ok(failed(e, "--device-baseline: ")),
        }
    }
    let server_warnings = runner::prepare::check_server_settings(plan).inspect_err(|_| output.release())?;
    for line in server_warnings {
        errln!("warning: {line}");
    }
    Ok(None)
}

/// After the run: the report and the history entry written (files first, so
/// that a terminal that went away loses nothing), then the run's own
/// warnings, the summary table, and how the run ended as the exit code.
fn record_and_print(args: &RunArgs, run: &RunResult, output_dir: &Path) -> ExitCode {
    let report_written = report::write_run_html(output_dir, run);
    let history = (!args.no_history).then(|| record_history(args.history.as_deref(), output_dir, run));
    // Step warnings were printed under their steps as they ran; what is
    // left to say is the run's own (environment, build, servers).
    for w in run.run_warnings() {
        errln!("warning: {w}");
    }
    match run.step_warnings().count() {
        0 => {}
        1 => errln!("1 step warning was printed above with its step; report.html lists every warning"),
        n => errln!("{n} step warnings were printed above with their steps; report.html lists every warning"),
    }
    let columns = if args.all_columns { report::table::Columns::All } else { report::table::Columns::Compact };
    outln!();
    outln!("{}", report::table::render_summary_in(run, columns, output_dir).trim_end_matches('\n'));
    outln!();
    let grids = report::table::hotrow_text(run);
    if !grids.is_empty() {
        outln!("{grids}");
    }
    let sweeps = report::scaling::render(run);
    if !sweeps.is_empty() {
        outln!("{sweeps}");
    }
    match history {
        // The history is an index over result directories: failing to record only warns.
        Some(Ok((id, path))) => outln!("history: run #{id} in {}", path.display()),
        Some(Err(e)) => errln!("warning: not recorded in the history: {}", one_line(&e)),
        None => {}
    }
    outln!("results: {}", output_dir.display());
    match report_written {
        Ok(path) => outln!("report: {}", path.display()),
        Err(e) => errln!("warning: cannot write the HTML report: {}", one_line(&e)),
    }
    match run.status {
        Status::Completed => ExitCode::SUCCESS,
        Status::Interrupted => {
            errln!(
                "rumbench: {}; results measured so far are in {}",
                run.error.as_deref().unwrap_or("interrupted"),
                output_dir.display()
            );
            ExitCode::from(interrupted_exit_code())
        }
        _ => {
            errln!("rumbench: error: {}", run.error.as_deref().unwrap_or("run failed"));
            ExitCode::from(EXIT_FAILED)
        }
    }
}

fn record_history(explicit: Option<&Path>, dir: &Path, run: &RunResult) -> Result<(i64, PathBuf)> {
    let path = report::history::resolve_path(explicit)?;
    let mut h = report::history::History::open(&path)?;
    Ok((h.record(dir, run)?, path))
}
