//! How a run repeats its configs: a fixed number of interleaved rounds
//! (`--repeat 5`), rounds until every verdict is decided (`--repeat
//! auto[:MAX]`), and duets (`--duet`): the configs of a pair run at the
//! same time, each on its own half of the CPUs.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use super::EngineConfig;

/// The most rounds `--repeat auto` runs when no MAX is given.
pub const DEFAULT_AUTO_MAX: u32 = 20;
/// The first round after which `--repeat auto` looks at the verdicts: an
/// interval needs two pairs, and at two its t quantile (12.7 at 95%) decides
/// nothing a third round would not.
pub const FIRST_LOOK: u32 = 3;

/// `--repeat N` or `--repeat auto[:MAX]`, as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RepeatSpec {
    Fixed(u32),
    /// Rounds until every primary verdict of every pair is decided, at most `max`.
    Auto {
        max: u32,
    },
}

impl RepeatSpec {
    /// "5", "auto" or "auto:30".
    pub fn parse(text: &str) -> Result<RepeatSpec> {
        let t = text.trim();
        let bad = || anyhow::anyhow!("invalid --repeat {text:?}: give a number of rounds (5) or auto[:MAX] (auto:20)");
        if let Some(rest) = t.strip_prefix("auto") {
            let max = match rest.strip_prefix(':') {
                Some(m) => m.parse::<u32>().map_err(|_| bad())?,
                None if rest.is_empty() => DEFAULT_AUTO_MAX,
                None => return Err(bad()),
            };
            if max < FIRST_LOOK {
                bail!("--repeat auto:{max}: give at least {FIRST_LOOK} rounds (its first look at the verdicts is after round {FIRST_LOOK})");
            }
            return Ok(RepeatSpec::Auto { max });
        }
        t.parse::<u32>().map(RepeatSpec::Fixed).map_err(|_| bad())
    }

    /// The rounds planned: all of them, or the most an adaptive run may take.
    pub fn rounds(self) -> u32 {
        match self {
            RepeatSpec::Fixed(n) => n,
            RepeatSpec::Auto { max } => max,
        }
    }
}

/// Where a duet's two sides run (`--duet[=PLACEMENT]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Each side on its own half of the CPUs, the halves swapped every round.
    #[default]
    Split,
    /// Both sides on the same half of the CPUs, which the kernel's
    /// scheduler divides between them: a process competing for the CPU
    /// takes the other half, and whatever it leaves hits both sides alike.
    Shared,
}

impl Placement {
    pub fn parse(text: &str) -> Result<Placement> {
        match text.trim() {
            "split" => Ok(Placement::Split),
            "shared" => Ok(Placement::Shared),
            _ => bail!("invalid duet placement {text:?}: split (each side its own half of the CPUs) or shared (both on one half)"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Placement::Split => "split",
            Placement::Shared => "shared",
        }
    }
}

/// `--repeat auto`: the stopping rule's design, recorded in the plan and in
/// the result (compare widens every interval of such a run for it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Adaptive {
    /// The most rounds.
    pub max_rounds: u32,
    /// The first round after which the verdicts are looked at.
    pub first_look: u32,
    /// The threshold the verdicts are decided at (compare's --threshold).
    pub threshold: f64,
}

/// A config's turn in a duet: which round it belongs to, which half of the
/// CPUs it runs on, and the config it runs beside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuetSlot {
    /// The round (1..): with more than two configs a round holds one duet
    /// of the base beside each other config, each with a `repeat` of its own.
    pub round: u32,
    /// 0: the first half of the CPUs; 1: the second. Split: the base takes
    /// the first half in odd rounds and the second in even ones; shared:
    /// both sides the first.
    pub half: u8,
    /// The instance name of the config it runs beside.
    pub partner: String,
}

/// N rounds of duets: in each, the first config (the base) beside each
/// other config in turn. Every duet has a `repeat` number of its own (so
/// its two configs pair by it, as a round pairs them), and each config its
/// `DuetSlot`; split, the halves alternate between rounds.
pub fn duet_rounds(configs: &[EngineConfig], rounds: u32, placement: Placement) -> Vec<EngineConfig> {
    let Some((base, others)) = configs.split_first() else { return Vec::new() };
    let mut out = Vec::with_capacity(2 * others.len() * rounds as usize);
    let mut duet = 0u32;
    for r in 1..=rounds {
        for other in others {
            duet += 1;
            let base_half = if r % 2 == 1 || placement == Placement::Shared { 0 } else { 1 };
            let other_half = if placement == Placement::Shared { 0 } else { 1 - base_half };
            let (mut a, mut b) = (base.clone(), other.clone());
            a.repeat = Some(duet);
            b.repeat = Some(duet);
            a.duet = Some(DuetSlot { round: r, half: base_half, partner: b.instance_name() });
            b.duet = Some(DuetSlot { round: r, half: other_half, partner: a.instance_name() });
            out.push(a);
            out.push(b);
        }
    }
    out
}

/// The round a config's run belongs to: its duet's round, or its repeat.
pub fn round_of(config: &EngineConfig) -> Option<u32> {
    config.duet.as_ref().map(|d| d.round).or(config.repeat)
}

/// The CPUs of one half of `cpus` (the process's allowed CPUs, in order):
/// the first `len / 2`, or the next `len / 2` (an odd one left over runs neither).
pub fn half_of(cpus: &[usize], half: u8) -> Vec<usize> {
    let n = cpus.len() / 2;
    let start = if half == 0 { 0 } else { n };
    cpus[start..start + n].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(name: &str) -> EngineConfig {
        crate::plan::test_config(name, "null")
    }

    #[test]
    fn repeat_specs_parse_and_refuse() {
        assert_eq!(RepeatSpec::parse("5").unwrap(), RepeatSpec::Fixed(5));
        assert_eq!(RepeatSpec::parse("auto").unwrap(), RepeatSpec::Auto { max: DEFAULT_AUTO_MAX });
        assert_eq!(RepeatSpec::parse("auto:30").unwrap(), RepeatSpec::Auto { max: 30 });
        assert_eq!(RepeatSpec::parse("auto:30").unwrap().rounds(), 30);
        for bad in ["", "x", "auto:", "auto:x", "autox", "-1", "auto:2"] {
            assert!(RepeatSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn duets_pair_the_base_with_each_other_config_and_alternate_the_halves() {
        let plan = duet_rounds(&[config("a"), config("b"), config("c")], 2, Placement::Split);
        let names: Vec<String> = plan.iter().map(|c| c.instance_name()).collect();
        assert_eq!(names, ["a.r1", "b.r1", "a.r2", "c.r2", "a.r3", "b.r3", "a.r4", "c.r4"]);
        let slots: Vec<(u32, u8, &str)> =
            plan.iter().map(|c| c.duet.as_ref().map(|d| (d.round, d.half, d.partner.as_str())).unwrap()).collect();
        assert_eq!(
            slots,
            [
                (1, 0, "b.r1"),
                (1, 1, "a.r1"),
                (1, 0, "c.r2"),
                (1, 1, "a.r2"),
                (2, 1, "b.r3"),
                (2, 0, "a.r3"),
                (2, 1, "c.r4"),
                (2, 0, "a.r4"),
            ]
        );
        assert_eq!(round_of(&plan[4]), Some(2));
        assert!(duet_rounds(&[], 3, Placement::Split).is_empty());
        // Shared: both sides on the first half, every round.
        let shared = duet_rounds(&[config("a"), config("b")], 2, Placement::Shared);
        assert!(shared.iter().all(|c| c.duet.as_ref().unwrap().half == 0));
        assert_eq!(Placement::parse("shared").unwrap(), Placement::Shared);
        assert!(Placement::parse("both").is_err());
    }

    #[test]
    fn halves_split_the_cpus_evenly() {
        assert_eq!(half_of(&[0, 1], 0), [0]);
        assert_eq!(half_of(&[0, 1], 1), [1]);
        assert_eq!(half_of(&[0, 1, 2, 3, 4], 1), [2, 3]);
        assert_eq!(half_of(&[4, 6, 8, 10], 0), [4, 6]);
        assert!(half_of(&[3], 0).is_empty());
    }
}
