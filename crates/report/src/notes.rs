//! The short texts beside the figures, shared by every format: a step's
//! notes, how its operations ended, its parameters, the device line and
//! the environment's lines.

use serde_json::Value;

use super::fmt::num;
use crate::result::{Outcomes, Status, StepResult};

/// The observations shown beside a step's figures: status, keys not found,
/// the background writer's rate (shared by every format).
pub fn step_notes(s: &StepResult) -> Vec<String> {
    let mut notes = Vec::new();
    if s.status != Status::Completed {
        notes.push(format!("{:?}", s.status).to_lowercase());
        // Why, as the insert benchmark's table says it (the whole text is in result.json).
        if let Some(e) = &s.error {
            notes.push(e.clone());
        }
    }
    if s.timed_out {
        notes.push("TIMED OUT".into());
    }
    if let Some(r) = &s.reads {
        let total = r.found + r.not_found;
        if r.not_found > 0 && total > 0 {
            let pct = 100.0 * r.not_found as f64 / total as f64;
            notes.push(if pct < 1.0 { format!("{pct:.2}% not found") } else { format!("{pct:.0}% not found") });
        }
    }
    if let Some(w) = &s.writer {
        let target = w.target_ops_s.map(|t| format!("/{}", num(t))).unwrap_or_default();
        notes.push(format!(
            "writer {}{} ops/s{}",
            num(w.achieved_ops_s),
            target,
            if w.missed_target { " MISSED" } else { "" }
        ));
    }
    if s.mixes_op_types() && s.step_latency().is_none() {
        notes.push(MIXED_LATENCY_NOTE.into());
    }
    notes
}

/// Said on a mixed step's row, whose latency cells stay empty.
pub const MIXED_LATENCY_NOTE: &str = "latency per operation type below";

/// How operations ended other than ok: "3 not found", "1 conflict", "2 errors"
/// (empty when all were ok; shared by every format).
pub fn outcome_notes(o: &Outcomes) -> Vec<String> {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut notes = Vec::new();
    if o.not_found > 0 {
        notes.push(format!("{} not found", o.not_found));
    }
    if o.conflict > 0 {
        notes.push(plural(o.conflict, "conflict", "conflicts"));
    }
    if o.error > 0 {
        notes.push(plural(o.error, "error", "errors"));
    }
    notes
}

/// How an operation type's operations ended, in a few words: "all ok",
/// "12 not found; 1 error", or "-" when the result did not count outcomes.
pub fn outcomes_text(o: Option<&Outcomes>) -> String {
    match o {
        None => "-".into(),
        Some(o) => {
            let notes = outcome_notes(o);
            if notes.is_empty() {
                "all ok".into()
            } else {
                notes.join("; ")
            }
        }
    }
}

/// A step's parameters as "name=value", strings unquoted.
pub fn parameter_texts(s: &StepResult) -> Vec<String> {
    s.parameters
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().map(String::from).unwrap_or_else(|| v.to_string())))
        .collect()
}

/// The device a run's ceilings used, in a line.
pub fn device_line(d: &crate::measure::device_baseline::DeviceContext) -> String {
    let key = d.device_key.as_deref().unwrap_or("unknown device");
    match (&d.baseline, &d.missing) {
        (Some(b), _) => format!(
            "{key}; fio baseline measured {} ({}): {:.0} random 4 KB reads/s at depth 1, {:.0} MB/s sequential writes, {:.0} write+fdatasync/s",
            b.measured_at,
            d.source.as_deref().unwrap_or("stored"),
            b.fio.read_iops(4096, 1).unwrap_or(0.0),
            b.fio.seq_write_mb_s,
            b.fio.fdatasync_per_s
        ),
        (None, why) => format!("{key}; no fio baseline: {}", why.as_deref().unwrap_or("not recorded")),
    }
}

/// The environment as (key, value) lines.
pub fn environment_lines(system: &Value) -> Vec<(String, String)> {
    crate::sysinfo_text::lines(system)
}
