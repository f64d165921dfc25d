//! The main process's watch over a config process it waits for. A step
//! whose clients run past their time limit (--seconds) by [`OVERRUN_GRACE`]
//! is in a call that does not return (an engine's or a plugin's, stuck for
//! good); a config process that has not ended its running step
//! [`STOP_GRACE`] after a stop (Ctrl-C, SIGTERM) cannot be stopped politely,
//! and one that has not ended at all [`END_GRACE`] after it is stuck in its
//! cleanup. Either way it is killed, with its process group, and the reason
//! becomes its running step's error (the step itself is kept from its
//! checkpoint, with the operations it completed and the call it hung in).
//!
//! The clients' time is the driver's clock, as the checkpoint last told it
//! (`elapsed_s`, advanced every 100 ms while the clients run): what the
//! step does after them (writing back its dirty pages, an engine's stats)
//! is not counted against its time limit.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::checkpoint;
use crate::plan::RunPlan;

/// How far past its time limit a step's clients may run before their
/// process is ended: past the limit every client stops at its next call's
/// end, so only a call that takes this long to return keeps one running.
pub const OVERRUN_GRACE: Duration = Duration::from_secs(10);
/// How long a config process has to end its running step after a stop.
pub const STOP_GRACE: Duration = Duration::from_secs(5);
/// How long it has to end altogether after a stop (stopping a server it
/// started, writing its results).
pub const END_GRACE: Duration = Duration::from_secs(30);

/// Why the main process ended a config process.
#[derive(Debug, Clone, PartialEq)]
pub struct Kill {
    pub why: String,
    /// Ended after a stop (its run interrupted), not for overrunning (its step failed).
    pub interrupted: bool,
}

pub struct Watchdog<'a> {
    plan: &'a RunPlan,
    index: usize,
    /// Where the config process keeps its checkpoint (its output directory).
    dir: PathBuf,
    stop_seen: Option<Instant>,
}

impl<'a> Watchdog<'a> {
    pub fn new(plan: &'a RunPlan, index: usize, dir: PathBuf) -> Watchdog<'a> {
        Watchdog { plan, index, dir, stop_seen: None }
    }

    /// Whether the config process must be ended now, and why.
    pub fn check(&mut self) -> Option<Kill> {
        let seen = checkpoint::peek(&self.dir).filter(|s| s.config == self.index);
        let hung_in =
            |s: &checkpoint::Seen| s.in_call.as_ref().map(|c| format!(" (a client was in {c})")).unwrap_or_default();
        if let Some((s, step)) = seen.as_ref().and_then(|s| Some((s, self.plan.steps.get(s.step)?))) {
            let limit =
                crate::plan::planned_seconds(step.kind, &step.settings).filter(|_| step.settings.slo.is_empty());
            if let Some(limit) = limit.filter(|&l| s.elapsed_s > l + OVERRUN_GRACE.as_secs_f64()) {
                return Some(Kill {
                    why: format!(
                        "step {} did not end within its time limit ({limit} s) and {} s more: its clients ran {:.0} s{}; the config process was ended",
                        step.name(),
                        OVERRUN_GRACE.as_secs(),
                        s.elapsed_s,
                        hung_in(s)
                    ),
                    interrupted: false,
                });
            }
        }
        if !crate::driver::stop::stop_requested() {
            return None;
        }
        let since = *self.stop_seen.get_or_insert_with(Instant::now);
        let signal = crate::driver::stop::signal_name(crate::driver::stop::stop_signal().unwrap_or(libc::SIGTERM));
        match &seen {
            Some(s) if since.elapsed() > STOP_GRACE => Some(Kill {
                why: format!(
                    "its running step did not stop within {} s of the {signal}{}; the config process was ended",
                    STOP_GRACE.as_secs(),
                    hung_in(s)
                ),
                interrupted: true,
            }),
            _ if since.elapsed() > END_GRACE => Some(Kill {
                why: format!(
                    "the config process did not end within {} s of the {signal}; it was ended",
                    END_GRACE.as_secs()
                ),
                interrupted: true,
            }),
            _ => None,
        }
    }
}

/// End a config process and everything in its process group, at once.
pub fn kill(child: &std::process::Child) {
    kill_group(child.id());
}

/// End config process `pid` and everything in the process group it leads
/// (every config process is started in a group of its own), at once.
pub fn kill_group(pid: u32) {
    // SAFETY: SIGKILL to a config process the caller found to be rumbench's
    // (its own child, not yet reaped, or one of a dead run), and to its group.
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
        libc::kill(pid as i32, libc::SIGKILL);
    }
}
