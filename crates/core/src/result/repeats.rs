//! How a run's repeats ran: rounds until decided (`--repeat auto`) and
//! duets (`--duet`), as recorded in result.json.

use serde::{Deserialize, Serialize};

/// `--repeat auto`: the stopping rule's design and where it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveRepeats {
    /// The design: the first round looked at, the most rounds, the
    /// threshold decided at. Compare widens every interval for these looks
    /// (docs/report.md, "Adaptive repeats").
    pub design: crate::plan::repeats::Adaptive,
    /// Rounds run.
    pub rounds: u32,
    /// Every primary verdict of every pair was decided when it stopped.
    pub decided: bool,
    /// What was still undecided when it stopped ("b readrandom ops/s").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<String>,
}

/// `--duet`: where the run placed the two sides of each duet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuetRun {
    /// Each side on its own half (split), or both on the first (shared).
    #[serde(default)]
    pub placement: crate::plan::repeats::Placement,
    /// The CPUs the run could use (its affinity when it started).
    pub cpus: Vec<usize>,
    /// Each half: split, a duet's base takes the first in odd rounds, the
    /// second in even ones; shared, both sides take the first.
    pub halves: [Vec<usize>; 2],
}

/// One config's side of a duet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuetSide {
    /// The round of its duet.
    pub round: u32,
    /// The instance (config and repeat) it ran beside.
    pub partner: String,
    /// The CPUs its process (and any server it started) was pinned to.
    pub cpus: Vec<usize>,
}

/// A step of a duet: how much of it ran beside its partner's same step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepDuet {
    /// The share of this step's timed work during which the partner's
    /// clients ran the same step (1: all of it).
    pub overlap: f64,
    /// The partner had already ended the step (or its config) when this
    /// one's clients were released: they were released alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alone: bool,
}
