//! Write debt: what a step that writes leaves for later steps to write on
//! its behalf (a memtable not yet flushed, compactions pending, a cache
//! not yet written back), and its write-amplification "through its debt":
//! its own bytes written plus those of the steps after it that write
//! nothing of their own (flush, waitforcompaction, settle, reads), up to
//! the next step that writes, over the logical bytes its clients wrote.
//! An engine that flushes in the step looks expensive beside one that
//! defers the same work to the flush step; counted through the debt, the
//! two pay for what their inserts cost.

use serde::{Deserialize, Serialize};

use super::{Status, StepResult};
use crate::measure::os::capacity::megabytes as mb;

/// The steps whose one purpose is to pay an earlier step's debt: after a
/// completed one (not timed out) nothing is owed.
pub const SETTLING_STEPS: &[&str] = &["waitforcompaction", "settle"];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WriteDebt {
    /// What the engine said it still owed when the step ended (name,
    /// value; empty: it owes nothing, writing in place at commit). None
    /// when it cannot say, with `owed_unknown` saying why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owed_at_end: Option<Vec<(String, u64)>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owed_unknown: Option<String>,
    /// The steps after this one whose writes are counted as its debt
    /// paid, in order (up to the next step that writes).
    pub paid_by: Vec<String>,
    /// Whether one of them settled the engine (a completed
    /// waitforcompaction or settle): the debt was paid in full. Else
    /// what it still owed after them is not counted (`unsettled` says so).
    pub settled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsettled: Option<String>,
    /// Bytes the data dir's device wrote during those steps (None: a step
    /// among them has no device figure).
    pub paid_device_bytes: Option<u64>,
    /// Bytes the measured processes wrote during them (/proc io).
    pub paid_process_bytes: Option<u64>,
    /// (the step's device bytes + paid_device_bytes) / its logical bytes.
    pub write_amp: Option<f64>,
    /// The same from the processes' own counters.
    pub write_amp_process: Option<f64>,
    /// Other processes' writes dominated the device's figures in the step
    /// or a step that paid: the headline is the processes' figure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub device_writes_by_others: bool,
}

impl WriteDebt {
    /// What the engine owed when the step ended, from `Engine::write_debt`.
    pub fn owed(answer: Result<Vec<(String, u64)>, String>) -> WriteDebt {
        match answer {
            Ok(owed) => WriteDebt { owed_at_end: Some(owed), ..Default::default() },
            Err(why) => WriteDebt { owed_unknown: Some(why), ..Default::default() },
        }
    }

    /// The w-amp through the debt the summary shows: the device's, or the
    /// processes' own when other processes' writes dominate the device's.
    pub fn headline_write_amp(&self) -> Option<f64> {
        crate::measure::step_metrics::headline_figure(
            self.device_writes_by_others,
            self.write_amp,
            self.write_amp_process,
        )
    }

    /// One line for a step's notes: what was owed and who paid it.
    pub fn describe(&self) -> String {
        let owed = match (&self.owed_at_end, &self.owed_unknown) {
            (Some(o), _) if o.is_empty() => "it owed nothing when it ended (the engine writes in place)".to_string(),
            (Some(o), _) => format!(
                "it owed {} when it ended",
                o.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
            ),
            (None, Some(why)) => format!("what it owed when it ended is unknown ({why})"),
            (None, None) => "what it owed when it ended was not asked".to_string(),
        };
        let paid = if self.paid_by.is_empty() {
            "no step after it paid for it".to_string()
        } else {
            format!(
                "{} wrote {} on its behalf",
                self.paid_by.join(", "),
                self.paid_device_bytes
                    .or(self.paid_process_bytes)
                    .map(mb)
                    .unwrap_or_else(|| "an unknown amount".into())
            )
        };
        let amp = self.headline_write_amp().map(|a| format!("; w-amp through its debt {a:.2}")).unwrap_or_default();
        let unsettled = self.unsettled.as_ref().map(|u| format!(" ({u})")).unwrap_or_default();
        format!("{NOTE_PREFIX}{owed}; {paid}{amp}{unsettled}")
    }
}

/// Whether a step wrote data of its own (its clients' logical bytes).
fn writes(step: &StepResult) -> bool {
    step.metrics.logical_bytes_written > 0
}

/// Fill in every write step's debt account from the steps after it: called
/// each time a step is recorded, so a step's account grows as the steps
/// that pay for it run. Steps whose `write_debt` is None get one when they
/// wrote (what they owed then unknown: "not asked").
pub fn settle_accounts(steps: &mut [StepResult]) {
    for i in 0..steps.len() {
        if !writes(&steps[i]) || steps[i].status != Status::Completed {
            continue;
        }
        let payers: Vec<&StepResult> = steps[i + 1..].iter().take_while(|s| !writes(s)).collect();
        let sum = |f: &dyn Fn(&StepResult) -> Option<u64>| -> Option<u64> {
            payers.iter().try_fold(0u64, |acc, s| f(s).map(|b| acc + b))
        };
        let paid_device = sum(&|s| s.metrics.io.as_ref().map(|io| io.bytes_written));
        let paid_process = sum(&|s| s.metrics.process_write_bytes);
        let settled = payers
            .iter()
            .any(|s| SETTLING_STEPS.contains(&s.name.as_str()) && s.status == Status::Completed && !s.timed_out);
        let others =
            steps[i].metrics.device_writes_by_others || payers.iter().any(|s| s.metrics.device_writes_by_others);
        let paid_by: Vec<String> = payers.iter().map(|s| s.name.clone()).collect();
        let step = &mut steps[i];
        let logical = step.metrics.logical_bytes_written as f64;
        let own_device = step.metrics.io.as_ref().map(|io| io.bytes_written);
        let own_process = step.metrics.process_write_bytes;
        let debt = step.write_debt.get_or_insert_with(WriteDebt::default);
        debt.paid_by = paid_by;
        debt.settled = settled;
        let owes_nothing = matches!(debt.owed_at_end.as_deref(), Some([]));
        debt.unsettled = (!settled && !owes_nothing).then(|| {
            "no waitforcompaction or settle step followed it: what it still owed after them is not counted".to_string()
        });
        debt.paid_device_bytes = paid_device;
        debt.paid_process_bytes = paid_process;
        debt.write_amp = own_device.zip(paid_device).map(|(o, p)| (o + p) as f64 / logical);
        debt.write_amp_process = own_process.zip(paid_process).map(|(o, p)| (o + p) as f64 / logical);
        debt.device_writes_by_others = others;
        // The account said in the step's notes, updated as it grows.
        let line = debt.describe();
        step.notes.retain(|n| !n.starts_with(NOTE_PREFIX));
        step.notes.push(line);
    }
}

/// How the account's note begins (`WriteDebt::describe`).
const NOTE_PREFIX: &str = "write debt: ";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::step_metrics::IoMetrics;

    fn step(name: &str, logical: u64, device: u64, process: u64) -> StepResult {
        use crate::plan::{steps::StepKind, Settings, StepPlan};
        let mut s =
            StepResult::new(&StepPlan { kind: StepKind::ReadRandom, settings: Settings::default(), sweep: false });
        s.name = name.into();
        s.status = Status::Completed;
        s.metrics.logical_bytes_written = logical;
        s.metrics.io = Some(IoMetrics { bytes_written: device, ..Default::default() });
        s.metrics.process_write_bytes = Some(process);
        s
    }

    /// A fill that stays in the memtable, then flush: the debt paid is
    /// what the flush wrote, and the w-amp through it counts both.
    #[test]
    fn the_flush_after_a_fill_pays_its_debt() {
        let mut steps = vec![step("fillrandom", 100, 10, 12), step("flush", 0, 90, 88), step("readrandom", 0, 0, 0)];
        steps[0].write_debt = Some(WriteDebt::owed(Ok(vec![("memtable_bytes".into(), 120)])));
        settle_accounts(&mut steps);
        let d = steps[0].write_debt.as_ref().unwrap();
        assert_eq!(d.paid_by, vec!["flush", "readrandom"]);
        assert_eq!((d.paid_device_bytes, d.paid_process_bytes), (Some(90), Some(88)));
        assert_eq!(d.write_amp, Some(1.0));
        assert_eq!(d.write_amp_process, Some(1.0));
        assert!(!d.settled && d.unsettled.is_some(), "a flush does not wait for compactions");
        assert!(d.describe().contains("memtable_bytes 120") && d.describe().contains("w-amp through its debt 1.00"));
        assert!(steps[1].write_debt.is_none() && steps[2].write_debt.is_none(), "steps that write nothing owe nothing");
        // The note says it once, updated as the account grows.
        settle_accounts(&mut steps);
        assert_eq!(steps[0].notes.iter().filter(|n| n.starts_with(NOTE_PREFIX)).count(), 1);
    }

    /// The account stops at the next step that writes, and a completed
    /// waitforcompaction settles it.
    #[test]
    fn payers_stop_at_the_next_write_and_a_wait_settles() {
        let mut steps = vec![
            step("fillseq", 100, 50, 50),
            step("waitforcompaction", 0, 25, 25),
            step("overwrite", 100, 100, 100),
            step("flush", 0, 20, 20),
        ];
        settle_accounts(&mut steps);
        let first = steps[0].write_debt.as_ref().unwrap();
        assert_eq!(first.paid_by, vec!["waitforcompaction"]);
        assert!(first.settled && first.unsettled.is_none());
        assert_eq!(first.write_amp, Some(0.75));
        let second = steps[2].write_debt.as_ref().unwrap();
        assert_eq!(second.paid_by, vec!["flush"]);
        assert_eq!(second.write_amp, Some(1.2));
        // A timed-out wait settles nothing.
        steps[1].timed_out = true;
        settle_accounts(&mut steps);
        assert!(!steps[0].write_debt.as_ref().unwrap().settled);
    }

    /// A missing device figure in a paying step leaves the device's
    /// through-debt figure unknown, never smaller.
    #[test]
    fn a_payer_without_a_figure_leaves_the_figure_unknown() {
        let mut steps = vec![step("fillseq", 100, 50, 50), step("flush", 0, 25, 25)];
        steps[1].metrics.io = None;
        settle_accounts(&mut steps);
        let d = steps[0].write_debt.as_ref().unwrap();
        assert_eq!(d.write_amp, None);
        assert_eq!(d.write_amp_process, Some(0.75));
        // An engine that owes nothing is not "unsettled" for want of a wait.
        steps[0].write_debt = Some(WriteDebt::owed(Ok(Vec::new())));
        settle_accounts(&mut steps);
        assert!(steps[0].write_debt.as_ref().unwrap().unsettled.is_none());
    }
}
