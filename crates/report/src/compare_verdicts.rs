//! What a comparison says: the options it judges by (the threshold, the
//! metrics), each pair of configs with its lines, the role each figure
//! plays (`role`) and the verdict on it (`judge`: its interval against the
//! threshold), and the texts of a fraction and an interval.

use super::summary::{self, Better, METRICS};
use super::verdict::{self, Interval, Position};
use crate::measure::usl::UslFit;

pub const DEFAULT_THRESHOLD: f64 = 0.05;

#[derive(Debug, Clone)]
pub struct Options {
    /// The practical threshold: smaller changes do not matter.
    pub threshold: f64,
    /// Only these metric keys (None: all).
    pub metrics: Option<Vec<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options { threshold: DEFAULT_THRESHOLD, metrics: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval lies beyond the threshold, the bad way.
    Regression,
    /// The whole interval lies beyond the threshold, the good way.
    Improvement,
    /// The whole interval lies within +-threshold.
    Same,
    /// The interval crosses a threshold: with the repeats (per side) that
    /// would likely settle it, None when even 100 would not.
    Inconclusive(Option<usize>),
    /// Beyond the threshold on a metric without a direction.
    Changed,
    /// Fewer than two repeats on a side (or two rounds in common): a ratio, no interval.
    OneRun,
    /// The step's control moved: no verdict on this machine's figures.
    /// `established`: the control's own interval lies beyond the threshold
    /// (rumbench's cost per operation changed between the sides, not only
    /// its point estimate on a noisy machine).
    Withheld { established: bool },
    /// The control itself moved beyond the threshold (`established` as above).
    ControlMoved { established: bool },
    /// Measured on one side only.
    Missing,
    /// Shown with its ratio, never judged (`Role::Reported`).
    NotJudged,
}

impl Verdict {
    pub fn text(self) -> String {
        match self {
            Verdict::Regression => "REGRESSION".into(),
            Verdict::Improvement => "improvement".into(),
            Verdict::Same => "same".into(),
            Verdict::Inconclusive(Some(n)) => format!("inconclusive (~{n} repeats)"),
            Verdict::Inconclusive(None) => format!("inconclusive (>{} repeats)", verdict::MAX_REPEATS_ESTIMATE),
            Verdict::Changed => "changed".into(),
            Verdict::OneRun => "no verdict (1 run)".into(),
            Verdict::Withheld { established: false } => "withheld (noisy machine)".into(),
            Verdict::Withheld { established: true } => "withheld (client cost changed)".into(),
            Verdict::ControlMoved { established: false } => "MOVED: noisy machine".into(),
            // Its whole interval beyond the threshold: not noise, rumbench's own work per operation changed.
            Verdict::ControlMoved { established: true } => "MOVED: client cost changed".into(),
            Verdict::Missing => "n/a".into(),
            Verdict::NotJudged => "not judged".into(),
        }
    }

    /// Whether the verdict says the engine changed.
    pub fn is_change(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Improvement | Verdict::Changed)
    }
}

/// What a metric's line is for in a comparison (module docs; docs/report.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Did it get slower or costlier: throughput, and the CPU per operation
    /// that is the engine's cost. One small family per pair (Bonferroni).
    Primary,
    /// Every other judged figure: false-discovery rate (Benjamini-Hochberg).
    Secondary,
    /// Its ratio only: another figure again, or one operation.
    Reported,
    /// The step's control (rumbench's own CPU per operation), judged alone at 95%.
    Control,
}

/// The role of metric `key` in a comparison whose engine cost is `cost`.
pub fn role(key: &str, cost: &str) -> Role {
    match key {
        // The rate found under --slo answers the same question for its step.
        "ops_s" | "slo_ops_s" => Role::Primary,
        k if k == cost => Role::Primary,
        // ops/s times the entry size; ops/s over a ceiling; one operation.
        "mb_s" | "limit_pct" | "max_us" => Role::Reported,
        _ => Role::Secondary,
    }
}

#[derive(Debug, Clone)]
pub struct Line {
    pub step: String,
    pub metric: usize,
    pub role: Role,
    /// Medians over each side's repeats.
    pub base: Option<f64>,
    pub new: Option<f64>,
    /// The interval's point estimate when there is one, else new / base.
    pub ratio: Option<f64>,
    pub interval: Option<Interval>,
    /// Repeats measured on each side.
    pub n_base: usize,
    pub n_new: usize,
    /// This line is the step's control (`CONTROL_METRIC`).
    pub control: bool,
    pub verdict: Verdict,
    /// The smallest change the line's interval could have called, as a
    /// fraction, in the direction that would be a regression (an increase
    /// for a metric without one): `verdict::Interval::detectable`.
    pub detectable: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct Pair {
    pub base: String,
    pub new: String,
    pub lines: Vec<Line>,
    pub notes: Vec<String>,
    /// Notes about one config's own runs (a step too short for its noise, a
    /// drift), each naming the config: the same in every pair it is in.
    pub run_notes: Vec<String>,
    /// Primary lines judged together (their intervals are simultaneous),
    /// and the confidence level of each of their intervals.
    pub family: usize,
    pub level: f64,
    /// Secondary lines judged, the discoveries among them at a 5%
    /// false-discovery rate, and the level of their intervals (1 - 5% x
    /// discoveries / lines, at least one discovery's worth).
    pub secondary: usize,
    pub discoveries: usize,
    pub secondary_level: f64,
    /// Concurrency sweeps of the pair's configs: the Universal Scalability
    /// Law fitted on each side (pooled over repeats), per swept step.
    pub scaling: Vec<ScalingPair>,
    /// Per step, the settings the configs differ in that could not have
    /// acted in it, or whose action rumbench cannot tell (`exercised`):
    /// (step, note), one note per step, said beside its ratios.
    pub unexercised: Vec<(String, String)>,
}

impl Pair {
    pub(crate) fn new(base: String, new: String, scaling: Vec<ScalingPair>) -> Pair {
        Pair {
            base,
            new,
            lines: Vec::new(),
            notes: Vec::new(),
            run_notes: Vec::new(),
            family: 0,
            level: 0.95,
            secondary: 0,
            discoveries: 0,
            secondary_level: 0.95,
            scaling,
            unexercised: Vec::new(),
        }
    }

    /// The note on `step` when a setting the configs differ in could not
    /// have acted in it (`exercised::note`).
    pub fn unexercised(&self, step: &str) -> Option<&str> {
        self.unexercised.iter().find(|(s, _)| s == step).map(|(_, n)| n.as_str())
    }

    /// Per step, the smallest change each primary line could have called:
    /// ("readrandom", "8% in ops/s, 4% in cpu/op").
    pub fn detectable(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for l in self.lines.iter().filter(|l| l.role == Role::Primary) {
            let Some(d) = l.detectable else { continue };
            let part = format!("{} in {}", percent(d), METRICS[l.metric].title());
            match out.iter_mut().find(|(s, _)| *s == l.step) {
                Some((_, text)) => text.push_str(&format!(", {part}")),
                None => out.push((l.step.clone(), part)),
            }
        }
        out
    }
}

/// A fraction as a percentage for a reader: "8%", "0.8%", ">1000%".
pub fn percent(f: f64) -> String {
    match f * 100.0 {
        p if p >= 1000.0 => ">1000%".into(),
        p if p >= 10.0 => format!("{p:.0}%"),
        p => format!("{p:.1}%"),
    }
}

/// One swept step's fit on both sides (Err: why that side has no fit).
#[derive(Debug, Clone)]
pub struct ScalingPair {
    pub step: String,
    pub base: Result<UslFit, String>,
    pub new: Result<UslFit, String>,
}

/// The verdict on a metric of direction `better` from its interval. A
/// change needs `verdict::MIN_REPEATS_FOR_CHANGE` repeats (or pairs): with
/// fewer, an interval beyond the threshold is inconclusive.
pub fn judge(better: Better, interval: Option<&Interval>, threshold: f64) -> Verdict {
    let Some(i) = interval else { return Verdict::OneRun };
    let position = verdict::position(i, threshold);
    if matches!(position, Position::Above | Position::Below) && i.n < verdict::MIN_REPEATS_FOR_CHANGE {
        return Verdict::Inconclusive(Some(verdict::MIN_REPEATS_FOR_CHANGE));
    }
    match (position, better) {
        (Position::Within, _) => Verdict::Same,
        (Position::Across, _) => {
            Verdict::Inconclusive(verdict::repeats_needed(i, threshold).map(|n| n.max(verdict::MIN_REPEATS_FOR_CHANGE)))
        }
        (_, Better::Neither) => Verdict::Changed,
        (Position::Above, Better::Higher) | (Position::Below, Better::Lower) => Verdict::Improvement,
        (Position::Above, Better::Lower) | (Position::Below, Better::Higher) => Verdict::Regression,
    }
}

/// An interval as "[0.97, 1.04]" ("-" without one). Bounds past a
/// hundredfold either way say only that ("[<0.01, >100]"): with two
/// repeats a t interval at a Bonferroni level runs to 1e-95 and 1e+95,
/// digits that say nothing but "more repeats" and stretch the table.
pub fn interval_text(i: Option<&Interval>) -> String {
    let bound = |r: f64| match r {
        r if r < 0.01 => "<0.01".to_string(),
        r if r > 100.0 => ">100".to_string(),
        r => summary::fmt_ratio(r),
    };
    match i {
        Some(i) => format!("[{}, {}]", bound(i.lo), bound(i.hi)),
        None => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_states_follow_the_interval() {
        let i =
            |lo: f64, hi: f64| verdict::paired(&[(1.0, lo), (1.0, hi)], 0.0).map(|x| Interval { lo, hi, n: 5, ..x });
        assert_eq!(judge(Better::Higher, i(1.10, 1.20).as_ref(), 0.05), Verdict::Improvement);
        assert_eq!(judge(Better::Higher, i(0.80, 0.90).as_ref(), 0.05), Verdict::Regression);
        assert_eq!(judge(Better::Lower, i(1.10, 1.20).as_ref(), 0.05), Verdict::Regression);
        assert_eq!(judge(Better::Lower, i(0.80, 0.90).as_ref(), 0.05), Verdict::Improvement);
        assert_eq!(judge(Better::Higher, i(0.97, 1.04).as_ref(), 0.05), Verdict::Same);
        assert!(matches!(judge(Better::Higher, i(1.02, 1.30).as_ref(), 0.05), Verdict::Inconclusive(_)));
        assert_eq!(judge(Better::Neither, i(1.5, 2.0).as_ref(), 0.05), Verdict::Changed);
        assert_eq!(judge(Better::Higher, None, 0.05), Verdict::OneRun);
        // Beyond the threshold with 4 repeats: not yet a change.
        let four = i(1.10, 1.20).map(|x| Interval { n: 4, ..x });
        assert_eq!(judge(Better::Higher, four.as_ref(), 0.05), Verdict::Inconclusive(Some(5)));
    }

    #[test]
    fn an_interval_past_a_hundredfold_says_only_that() {
        let i = |lo: f64, hi: f64| verdict::paired(&[(1.0, 0.9), (1.0, 1.1)], 0.0).map(|x| Interval { lo, hi, ..x });
        assert_eq!(interval_text(i(0.97, 1.04).as_ref()), "[0.97, 1.04]");
        assert_eq!(interval_text(i(0.02, 45.5).as_ref()), "[0.02, 45.50]");
        assert_eq!(interval_text(i(1.2e-8, 120036972.0).as_ref()), "[<0.01, >100]");
        assert_eq!(interval_text(None), "-");
    }
}
