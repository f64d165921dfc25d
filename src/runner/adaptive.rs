//! `--repeat auto[:MAX]`: after each round from the design's first look,
//! the run so far is compared as `rumbench compare` would compare it (its
//! intervals widened for the looks: report's `sequential`), and the rounds
//! stop once every primary verdict of every pair is decided (REGRESSION,
//! improvement or same) or the most rounds have run.

use super::*;
use crate::plan::repeats::round_of;
use crate::report::compare::{self, Group, Role, Verdict};
use crate::result::repeats::AdaptiveRepeats;

/// Where an adaptive run is: the rounds it has judged.
pub(crate) struct Rounds {
    design: Option<crate::plan::repeats::Adaptive>,
}

/// What a look found: the primary lines still undecided, and the most
/// rounds any of them would likely need (None: more than can be said).
pub(crate) struct Look {
    pub decided: usize,
    pub undecided: Vec<String>,
    pub rounds_needed: Option<u32>,
}

impl Rounds {
    pub(crate) fn new(plan: &RunPlan) -> Rounds {
        Rounds { design: plan.adaptive }
    }

    /// After the turn that ran configs up to `next` (exclusive): when that
    /// ended a round, look at the verdicts. True: stop, every verdict is
    /// decided (the run records where it stopped either way).
    pub(crate) fn after(&mut self, plan: &RunPlan, next: usize, opts: &RunOptions, run: &mut RunResult) -> bool {
        let Some(design) = self.design else { return false };
        let Some(round) = plan.configs.get(next.wrapping_sub(1)).and_then(round_of) else { return false };
        let last = next >= plan.configs.len();
        let round_ended = last || plan.configs.get(next).and_then(round_of) != Some(round);
        if !round_ended || crate::driver::stop::stop_requested() {
            return false;
        }
        let record = |run: &mut RunResult, decided: bool, undecided: Vec<String>| {
            run.adaptive = Some(AdaptiveRepeats { design, rounds: round, decided, undecided });
        };
        if round < design.first_look {
            record(run, false, vec![format!("not looked at before round {}", design.first_look)]);
            return false;
        }
        let look = match look(run, opts, design) {
            Ok(l) => l,
            Err(e) => {
                errln!("rumbench: --repeat auto: cannot compare the rounds so far: {e:#}");
                record(run, false, vec![format!("not compared: {e:#}")]);
                return false;
            }
        };
        let decided = look.undecided.is_empty();
        let total = look.decided + look.undecided.len();
        if decided {
            errln!("--repeat auto: after round {round}: all {total} primary verdicts decided; stopping");
        } else if last || round >= design.max_rounds {
            errln!(
                "--repeat auto: after round {round} (the most): {} of {total} primary verdicts undecided: {}",
                look.undecided.len(),
                look.undecided.join("; ")
            );
        } else {
            let left = match look.rounds_needed {
                Some(n) if n > round => {
                    format!("about {} more round{}", n - round, if n - round == 1 { "" } else { "s" })
                }
                Some(_) => "perhaps the next round".into(),
                None => format!("more than the {} rounds left", design.max_rounds - round),
            };
            errln!(
                "--repeat auto: after round {round}: {} of {total} decided; undecided: {}; {left}",
                look.decided,
                look.undecided.join("; ")
            );
        }
        record(run, decided, look.undecided);
        if decided {
            // The rounds that ran, and no more.
            let runs = run.configs.iter().filter_map(|c| c.repeat).max().unwrap_or(0) as usize;
            run.rounds.truncate(runs);
        }
        decided
    }
}

/// The run so far compared as `rumbench compare RUN` compares it, its
/// intervals widened for the design's looks.
fn look(run: &RunResult, opts: &RunOptions, design: crate::plan::repeats::Adaptive) -> Result<Look> {
    let mut so_far = run.clone();
    so_far.adaptive = Some(AdaptiveRepeats { design, rounds: 0, decided: false, undecided: Vec::new() });
    let groups = [Group { label: "run".into(), runs: vec![(opts.output_dir.display().to_string(), so_far)] }];
    let c = compare::compare(&groups, &compare::Options { threshold: design.threshold, metrics: None })?;
    Ok(judged(&c))
}

/// The primary lines of a comparison: decided, or undecided with what they still need.
fn judged(c: &compare::Comparison) -> Look {
    let mut look = Look { decided: 0, undecided: Vec::new(), rounds_needed: Some(0) };
    for pair in &c.pairs {
        for l in pair.lines.iter().filter(|l| l.role == Role::Primary) {
            match l.verdict {
                Verdict::Regression | Verdict::Improvement | Verdict::Same => look.decided += 1,
                // Measured on one side only: no round decides it.
                Verdict::Missing => {}
                v => {
                    let metric = crate::report::summary::METRICS[l.metric].title();
                    look.undecided.push(format!("{} {} {metric} ({})", pair.new, l.step, v.text()));
                    look.rounds_needed = match (look.rounds_needed, v) {
                        (Some(n), Verdict::Inconclusive(Some(need))) => Some(n.max(need as u32)),
                        _ => None,
                    };
                }
            }
        }
    }
    look
}
