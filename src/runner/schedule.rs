//! `--start-at`: when each step's clients are released, by the wall clock,
//! so that shards on several machines run their steps together without
//! talking to each other. Every shard computes the same moments from the
//! same inputs: the first step at --start-at; after a step with a duration,
//! its planned end plus --step-gap; after a step without one (a load, a
//! flush), the first multiple of --step-gap after --start-at that is not
//! past its end. A shard that is late for a moment starts at once and
//! says so (its step then overlaps the others' less: the merge shows it).

use serde::{Deserialize, Serialize};

use crate::driver::unix_now;
use crate::plan::StepPlan;
use crate::result::StepResult;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StartSchedule {
    /// --start-at, seconds since the epoch.
    pub start_at_unix_s: f64,
    /// --step-gap, seconds.
    pub gap_s: f64,
}

/// A late release beyond this is warned about (a clock read and a thread
/// wake-up take well under it).
const LATE_S: f64 = 0.05;

/// The moments of one config's steps, in running order.
pub struct Schedule {
    plan: StartSchedule,
    next_unix_s: f64,
}

impl Schedule {
    pub fn new(plan: StartSchedule) -> Schedule {
        Schedule { plan, next_unix_s: plan.start_at_unix_s }
    }

    /// Run `step` at its moment; stamp its result with when its clients
    /// were released; compute the next step's moment from this one's end.
    pub fn run(this: &mut Option<Schedule>, step: &StepPlan, f: impl FnOnce() -> StepResult) -> StepResult {
        let next = this.as_ref().map(|s| s.next_unix_s);
        if let Some(at) = next.filter(|&at| at - unix_now() > 1.0) {
            let when = chrono::DateTime::from_timestamp_micros((at * 1e6) as i64)
                .map(|t| t.with_timezone(&chrono::Local).format("%H:%M:%S%.3f").to_string())
                .unwrap_or_default();
            errln!("  {}: clients released at {when} (--start-at), in {:.1} s", step.name(), at - unix_now());
        }
        crate::driver::release_next_at(next);
        // The driver stamps the result with when it released the clients.
        let mut result = f();
        crate::driver::release_next_at(None);
        if let Some(s) = this {
            if let Some(late) =
                result.start.and_then(|st| Some(st.unix_s - st.scheduled_unix_s?)).filter(|&l| l > LATE_S)
            {
                result.warnings.push(format!(
                    "released {late:.2} s after its moment by --start-at: the step before overran its slot (raise --step-gap); shards that were on time ran without this one for that long"
                ));
            }
            s.next_unix_s = s.after(step, result.start.map(|st| st.unix_s), unix_now());
        }
        result
    }

    /// The moment after `step`, released at `released` (None: it released
    /// no clients), which ended at `ended`.
    fn after(&self, step: &StepPlan, released: Option<f64>, ended: f64) -> f64 {
        let gap = self.plan.gap_s;
        let grid = |t: f64| self.plan.start_at_unix_s + ((t - self.plan.start_at_unix_s) / gap).ceil().max(0.0) * gap;
        match crate::plan::planned_seconds(step.kind, &step.settings) {
            // Planned from the planned moment, not from when this shard got there.
            Some(secs) if released.is_some() => {
                let planned = self.next_unix_s + secs + gap;
                if ended <= planned {
                    planned
                } else {
                    grid(ended)
                }
            }
            _ => grid(ended),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::steps::StepKind;
    use crate::plan::Settings;

    fn step(kind: StepKind, seconds: Option<f64>) -> StepPlan {
        let settings =
            Settings { seconds, ops: if seconds.is_some() { None } else { Some(1000) }, ..Settings::default() };
        StepPlan { kind, settings, sweep: false }
    }

    #[test]
    fn every_shard_computes_the_same_moments() {
        let t0 = 1_800_000_000.0;
        let s = Schedule::new(StartSchedule { start_at_unix_s: t0, gap_s: 10.0 });
        // A timed step: its planned end plus the gap, however late this shard ended within it.
        let timed = step(StepKind::YcsbA, Some(30.0));
        assert_eq!(s.after(&timed, Some(t0 + 0.001), t0 + 30.4), t0 + 40.0);
        assert_eq!(s.after(&timed, Some(t0 + 0.001), t0 + 39.0), t0 + 40.0);
        // Overran its slot: the grid after its end.
        assert_eq!(s.after(&timed, Some(t0), t0 + 43.0), t0 + 50.0);
        // A load has no planned end: the grid after its end (shards whose loads end in one slot agree).
        let load = step(StepKind::YcsbLoad, None);
        assert_eq!(s.after(&load, Some(t0), t0 + 12.3), t0 + 20.0);
        assert_eq!(s.after(&load, Some(t0), t0 + 19.9), t0 + 20.0);
        let mut later = Schedule::new(StartSchedule { start_at_unix_s: t0, gap_s: 10.0 });
        later.next_unix_s = t0 + 20.0;
        assert_eq!(later.after(&timed, Some(t0 + 20.0), t0 + 50.2), t0 + 60.0);
    }
}
