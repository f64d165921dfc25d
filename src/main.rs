//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.

use rumbench::{cli, config, engine, measure, output, report, runner};

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use cli::{Cli, Command, CompareArgs, ExportArgs, ExportFormat, HistoryAction, HistoryArgs, ReportArgs, RunArgs};
use config::{PlanInputs, RunPlan, SuiteFile};
use output::Status;

/// Exit codes: 0 success, 1 a run that failed, 2 bad input, 130 interrupted.
const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INTERRUPTED: u8 = 130;

fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

fn cmd_engines(name: Option<&str>) -> Result<()> {
    let specs: Vec<&engine::EngineSpec> = match name {
        Some(n) => vec![engine::find(n)?],
        None => engine::registry().iter().collect(),
    };
    for spec in specs {
        println!("{} - {}", spec.name, spec.description);
        if spec.options.is_empty() {
            println!("    (no options)");
        }
        let w = spec.options.iter().map(|o| o.name.len()).max().unwrap_or(0);
        for o in spec.options {
            println!("    {:w$}  default {:<10} {} [{}]", o.name, o.default, o.help, engine::describe_kind(o.kind));
        }
        println!();
    }
    Ok(())
}

fn cmd_sysinfo(data_dir: &std::path::Path, json: bool) -> Result<()> {
    use measure::os::sysinfo::{warnings, SystemInfo};
    let info = SystemInfo::capture(Some(data_dir));
    let value = serde_json::to_value(&info)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        output::sysinfo_text::print(&value);
    }
    for w in warnings(&info) {
        println!("warning: {w}");
    }
    Ok(())
}

fn cmd_steps() {
    for (_, name, what) in runner::steps::STEPS {
        println!("{name:22} {what}");
    }
}

fn cmd_run(args: RunArgs) -> Result<ExitCode> {
    let suite = args.config.as_deref().map(SuiteFile::load).transpose()?;
    let plan = RunPlan::build(&PlanInputs { suite, engines: args.engine.clone(), options: args.options.clone(), flags: args.settings.clone() })?;
    runner::check_plan(&plan)?;
    runner::progress::set_mode(args.progress);
    let output_dir = args.output_dir.clone().unwrap_or_else(config::default_output_dir);
    let opts = runner::RunOptions {
        output_dir: output_dir.clone(),
        db_dir: args.db_dir.clone(),
        keep_db: args.keep_db,
        use_existing_db: args.use_existing_db,
        command_line: std::env::args().collect(),
        progress: args.progress,
    };
    install_ctrlc_handler(true);
    let run = runner::run(&plan, &opts)?;
    for w in &run.warnings {
        eprintln!("warning: {w}");
    }
    println!();
    print!("{}", output::table::render_summary(&run));
    println!();
    if !args.no_history {
        // The history is an index over result directories: failing to record only warns.
        match record_history(args.history.as_deref(), &output_dir, &run) {
            Ok((id, path)) => println!("history: run #{id} in {}", path.display()),
            Err(e) => eprintln!("warning: not recorded in the history: {}", one_line(&e)),
        }
    }
    println!("results: {}", output_dir.display());
    let report_path = output_dir.join("report.html");
    let loaded = [report::LoadedRun { label: report::summary::run_labels(&[output_dir.display().to_string()]).remove(0), dir: output_dir.clone(), run: run.clone() }];
    match report::write_html(&loaded, None, None, &report_path) {
        Ok(()) => println!("report: {}", report_path.display()),
        Err(e) => eprintln!("warning: cannot write the HTML report: {}", one_line(&e)),
    }
    match run.status {
        Status::Completed => Ok(ExitCode::SUCCESS),
        Status::Interrupted => {
            eprintln!("rumbench: interrupted; results measured so far are in {}", output_dir.display());
            Ok(ExitCode::from(EXIT_INTERRUPTED))
        }
        _ => {
            eprintln!("rumbench: error: {}", run.error.as_deref().unwrap_or("run failed"));
            Ok(ExitCode::from(EXIT_FAILED))
        }
    }
}

fn record_history(explicit: Option<&std::path::Path>, dir: &std::path::Path, run: &output::RunResult) -> Result<(i64, std::path::PathBuf)> {
    let path = report::history::resolve_path(explicit)?;
    let mut h = report::history::History::open(&path)?;
    Ok((h.record(dir, run)?, path))
}

fn cmd_report(a: ReportArgs) -> Result<ExitCode> {
    let runs = report::load_runs(&a.runs, a.history.as_deref())?;
    let out = match a.output {
        Some(p) => p,
        None if runs.len() == 1 => runs[0].dir.join("report.html"),
        None => std::path::PathBuf::from("report.html"),
    };
    report::write_html(&runs, a.base.as_deref(), a.title, &out)?;
    println!("report: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn cmd_compare(a: CompareArgs) -> Result<ExitCode> {
    use report::compare::{self, Group, Verdict};
    let mut groups = Vec::new();
    for arg in &a.runs {
        let members: Vec<String> = arg.split(',').filter(|s| !s.is_empty()).map(String::from).collect();
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
        .map(|((runs, members), label)| Group { label: if members.len() > 1 { format!("{label}(x{})", members.len()) } else { label }, runs })
        .collect();
    let opts = compare::Options { threshold: a.threshold, k: a.k, metrics: (!a.metrics.is_empty()).then(|| a.metrics.clone()) };
    let c = compare::compare(&groups, &opts)?;
    for g in &groups {
        println!("{}: {}", g.label, g.runs.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(", "));
    }
    print!("{}", compare::render_text(&c));
    let regressions = c.count(Verdict::Regression);
    if a.fail_on_regression && regressions > 0 {
        eprintln!("rumbench: {regressions} regression{} beyond noise", if regressions == 1 { "" } else { "s" });
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_history(a: HistoryArgs) -> Result<ExitCode> {
    use report::history::{self, Filter, History};
    let path = history::resolve_path(a.history.as_deref())?;
    match a.action {
        Some(HistoryAction::Rebuild { dirs }) => {
            let mut h = History::open(&path)?;
            let r = h.rebuild(&dirs)?;
            for s in &r.skipped {
                eprintln!("warning: skipped {s}");
            }
            println!("history: {} runs indexed, {} entries removed, {} runs in {}", r.recorded, r.removed, h.count()?, path.display());
        }
        None => {
            let h = History::open_existing(&path)?;
            let f = Filter { engine: a.engine, version: a.version, step: a.step.clone(), config: a.config, since: a.since, until: a.until };
            let entries = h.list(&f)?;
            if entries.is_empty() {
                println!("no runs match (history: {})", path.display());
            } else {
                print!("{}", history::render_list(&entries, a.step.as_deref()));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_export(a: ExportArgs) -> Result<ExitCode> {
    use output::Exporter;
    let runs = report::load_runs(&a.runs, a.history.as_deref())?;
    let text = match a.format {
        ExportFormat::Markdown => {
            let s = report::summarize(&runs);
            let base = report::parse_base(a.base.as_deref(), &runs, &s)?;
            output::markdown::render(&s, &base)
        }
        ExportFormat::Tsv => output::tsv::render(&report::summarize(&runs)),
        ExportFormat::Csv if runs.len() == 1 => output::csv::IntervalsCsv.render(&runs[0].run)?,
        ExportFormat::Csv => {
            let mut out = format!("run,{}\n", output::csv::HEADER);
            for r in &runs {
                for line in output::csv::IntervalsCsv.render(&r.run)?.lines().skip(1) {
                    out.push_str(&format!("{},{line}\n", r.label));
                }
            }
            out
        }
    };
    match a.output {
        Some(p) => {
            report::write_atomic(&p, &text)?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `announce`: say what happens (the parent does; its config processes stay quiet).
fn install_ctrlc_handler(announce: bool) {
    let _ = ctrlc::set_handler(move || {
        runner::forward_interrupt();
        if runner::exec::STOP.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // Second Ctrl-C: the user does not want to wait for the step to wind down.
            if announce {
                eprintln!("\nrumbench: interrupted again, exiting now");
            }
            // exit() runs no destructors: stop the database servers this process started.
            rumbench::server::stop_all_servers();
            std::process::exit(EXIT_INTERRUPTED as i32);
        }
        if announce {
            eprintln!("\nrumbench: stopping after the current operations (Ctrl-C again to exit at once)");
        }
    });
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to stdout with success; usage errors are one line.
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid arguments");
            let first = first.trim_start_matches("error: ");
            eprintln!("rumbench: error: {first} (see rumbench --help)");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let outcome = match cli.command {
        Command::Engines { name } => cmd_engines(name.as_deref()).map(|_| ExitCode::SUCCESS),
        Command::Steps => {
            cmd_steps();
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(args) => cmd_run(args),
        Command::Report(a) => cmd_report(a),
        Command::Compare(a) => cmd_compare(a),
        Command::History(a) => cmd_history(a),
        Command::Export(a) => cmd_export(a),
        Command::Sysinfo { data_dir, json } => cmd_sysinfo(&data_dir, json).map(|_| ExitCode::SUCCESS),
        Command::InternalRunConfig { task, index } => {
            install_ctrlc_handler(false);
            return runner::run_config_child(&task, index);
        }
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("rumbench: error: {}", one_line(&e));
            ExitCode::from(EXIT_USAGE)
        }
    }
}
