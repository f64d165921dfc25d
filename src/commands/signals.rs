//! How the main process and its config processes stop: the signal
//! handlers (SIGINT, SIGTERM, SIGHUP; a config process also SIGUSR2, its
//! parent's death) and a lost output stream.

use rumbench::{driver, errln, runner};

/// SIGINT, SIGTERM and SIGHUP (Ctrl-C, `timeout`/systemd, a closed
/// terminal) all stop the run the same way: the running step winds down and
/// is marked interrupted, servers are stopped, every result is written, and
/// the exit code is 128 + the signal. The same signal again within a second
/// is a duplicate (`timeout` sends two); later, it means "exit now": the
/// config process stops its servers and exits at once, and the main process
/// records what that left (it is never stuck itself, so it does not exit early).
/// `announce`: say what happens (the parent does; its config processes stay quiet).
pub fn install(announce: bool) {
    use driver::stop::StopRequest;
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR2};
    debug_assert_eq!(SIGUSR2, runner::PARENT_DIED_SIGNAL);
    // Only a config process is told of its parent's death.
    let handled: &[i32] = if announce { &[SIGINT, SIGTERM, SIGHUP] } else { &[SIGINT, SIGTERM, SIGHUP, SIGUSR2] };
    if announce {
        // A hung-up terminal stops the run at once, in a background process group too.
        rumbench::console::watch_terminal();
    }
    let mut signals = match signal_hook::iterator::Signals::new(handled) {
        Ok(s) => s,
        Err(e) => {
            errln!("warning: cannot handle signals: {e}");
            return;
        }
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if sig == runner::PARENT_DIED_SIGNAL {
                // A config process whose main process died. The kernel sends
                // this once per thread of the dead parent, so it never
                // escalates: the process stops after its current operations,
                // and a watch ends it (and its servers) if it has not ended
                // in time (stuck in an engine's call, an open).
                runner::mark_orphaned();
                driver::stop::request_stop(SIGTERM);
                orphan_watch();
                continue;
            }
            if sig == SIGHUP {
                rumbench::console::detach_terminal();
            }
            let request = driver::stop::request_stop(sig);
            if request != StopRequest::Repeat {
                runner::forward_signal(sig);
            }
            match (request, announce) {
                (StopRequest::Repeat, _) => {}
                (StopRequest::First, true) => {
                    let again = if sig == SIGINT { "Ctrl-C" } else { "the signal" };
                    errln!(
                        "\nrumbench: {}: stopping after the current operations ({again} again to exit at once)",
                        driver::stop::signal_name(sig)
                    );
                }
                (StopRequest::First, false) => {}
                (StopRequest::Again, true) => {
                    errln!("\nrumbench: {} again: stopping the config process at once", driver::stop::signal_name(sig))
                }
                (StopRequest::Again, false) => {
                    // The user does not want to wait for the step to wind down.
                    errln!(
                        "rumbench: config process: {} again, stopping its servers and exiting now",
                        driver::stop::signal_name(sig)
                    );
                    // exit() runs no destructors: end the database servers this
                    // process started, at once (a frozen one would never shut down).
                    rumbench::server::kill_all_servers();
                    std::process::exit(runner::CHILD_STOPPED_AT_ONCE as i32);
                }
            }
        }
    });
}

/// How long a config process whose main process died may take to end by
/// itself (its step marked, its server stopped, its results written)
/// before it ends itself and its servers at once: every process rumbench
/// started is gone within seconds of its main process.
const ORPHAN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Start, once, the watch that ends an orphaned config process after [`ORPHAN_GRACE`].
fn orphan_watch() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::thread::spawn(|| {
            std::thread::sleep(ORPHAN_GRACE);
            errln!(
                "rumbench: config process: its main process died and it did not end within {} s: ending it and its servers now",
                ORPHAN_GRACE.as_secs()
            );
            rumbench::server::kill_all_servers();
            runner::record_orphaned_end();
            std::process::exit(runner::CHILD_STOPPED_AT_ONCE as i32);
        });
    });
}

/// Standard output or error went away (a closed pipe, a hung-up terminal):
/// stop as on a closed terminal, in the config process too.
pub fn output_lost(sig: i32) {
    if driver::stop::request_stop(sig) == driver::stop::StopRequest::First {
        runner::forward_signal(libc::SIGHUP);
    }
}
