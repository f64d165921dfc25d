//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.

use rumbench::{cli, config, engine, measure, output, runner};

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use cli::{Cli, Command, RunArgs};
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
    println!("\nresults: {}", output_dir.display());
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
