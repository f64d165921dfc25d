//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.
//!
//! This file parses the command line, hands the command to its file in
//! src/commands/, and turns what comes back into the exit code.

mod commands;

use std::process::ExitCode;

use clap::Parser;
use rumbench::cli::Cli;
use rumbench::errln;

use commands::{EXIT_FAILED, EXIT_USAGE};

fn main() -> ExitCode {
    rumbench::console::on_lost(commands::output_lost);
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to stdout with success; usage errors are one line.
            if !e.use_stderr() {
                // Help or version that could not be written (standard output
                // on a full disk, /dev/full) is not a success.
                let written = e.print().and_then(|()| std::io::Write::flush(&mut std::io::stdout()));
                if let Err(why) = written {
                    errln!("rumbench: error: cannot write to standard output: {why}");
                    return ExitCode::from(EXIT_FAILED);
                }
                return ExitCode::SUCCESS;
            }
            errln!("rumbench: error: {} (see rumbench --help)", usage_error_line(&e.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (outcome, own_outcome) = commands::dispatch(cli.command);
    let code = match outcome {
        Ok(code) => code,
        Err(e) => {
            errln!("rumbench: error: {}", commands::one_line(&e));
            ExitCode::from(EXIT_USAGE)
        }
    };
    // A config or crash-test child's exit code is its own outcome, which
    // the main process reads; the stream it lost is the main process's to report.
    if own_outcome {
        return code;
    }
    // Output cut short (`rumbench engines | head`): 128 + SIGPIPE, as for any
    // writer whose reader went away; a run already says how it ended.
    if let Some(sig) = rumbench::console::lost().filter(|_| code == ExitCode::SUCCESS) {
        return ExitCode::from(128 + sig as u8);
    }
    // Output that could not be written (a full disk): not a success. Said on
    // standard error, which may be the stream that failed.
    match rumbench::console::write_failure() {
        Some(why) => {
            let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("rumbench: error: {why}\n").as_bytes());
            if code == ExitCode::SUCCESS {
                ExitCode::from(EXIT_FAILED)
            } else {
                code
            }
        }
        None => code,
    }
}

/// Clap's error in one line: its first paragraph, whose later lines name
/// what it is about ("the following required arguments were not provided:
/// --start-at <TIME>"), without the usage and help lines after it.
fn usage_error_line(text: &str) -> String {
    let paragraph: Vec<&str> =
        text.lines().skip_while(|l| l.trim().is_empty()).take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    let line = paragraph.join(" ");
    let line = line.trim_start_matches("error: ");
    if line.is_empty() {
        "invalid arguments".into()
    } else {
        line.to_string()
    }
}
