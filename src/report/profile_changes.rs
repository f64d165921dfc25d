//! Where a step's CPU per operation changed between the sides of a
//! comparison, from their profiles (`--profile`): per matched config and
//! step whose profiled CPU per operation differs by more than the
//! threshold, the functions whose self CPU per operation changed most.
//! Each side pools its repeats (the runs of a group and a config's rounds);
//! a function is named as a change only when its difference is beyond what
//! either side's repeats vary by (`measure::profile::changes`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::measure::profile::{self, FunctionChange};
use super::compare::Group;

/// Functions listed per step.
pub const TOP: usize = 10;

/// One step of one pair of configs.
pub struct StepChanges {
    pub base: String,
    pub new: String,
    pub step: String,
    /// Profiled CPU per operation, mean over each side's repeats (µs).
    pub base_us_op: f64,
    pub new_us_op: f64,
    /// Repeats profiled on each side.
    pub n_base: usize,
    pub n_new: usize,
    pub changes: Vec<FunctionChange>,
}

impl StepChanges {
    /// Whether the functions' differences were tested against the repeats' spread.
    pub fn tested(&self) -> bool {
        self.n_base >= 2 && self.n_new >= 2
    }
}

/// One repeat's profile of a step: its functions' self CPU per op and the whole.
type Repeat = (HashMap<String, f64>, f64);

/// A side's profiles per step name: every repeat of config `name` in the group.
fn side(g: &Group, name: &str) -> BTreeMap<String, Vec<Repeat>> {
    let mut by_step: BTreeMap<String, Vec<Repeat>> = BTreeMap::new();
    for (dir, run) in &g.runs {
        for c in run.configs.iter().filter(|c| c.name == name) {
            for s in &c.steps {
                let Some(p) = &s.profile else { continue };
                let (Ok(folded), Some(us), Some(total)) = (profile::load(Path::new(dir), p), p.us_per_sample_op(), p.cpu_us_per_op()) else { continue };
                by_step.entry(s.name.clone()).or_default().push((profile::self_costs(&folded, us), total));
            }
        }
    }
    by_step
}

fn config_names(g: &Group) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, run) in &g.runs {
        for c in &run.configs {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    names
}

/// The configs compared, as `compare` matches them: each later group's
/// against the first's by name (a lone config on each side whatever its
/// name); one group: its first config against each other.
fn matched(groups: &[Group]) -> Vec<(usize, String, usize, String)> {
    let mut out = Vec::new();
    let base = config_names(&groups[0]);
    if groups.len() == 1 {
        for n in base.iter().skip(1) {
            out.push((0, base[0].clone(), 0, n.clone()));
        }
        return out;
    }
    for (gi, g) in groups.iter().enumerate().skip(1) {
        let names = config_names(g);
        if names.len() == 1 && base.len() == 1 {
            out.push((0, base[0].clone(), gi, names[0].clone()));
            continue;
        }
        for n in names.iter().filter(|n| base.contains(n)) {
            out.push((0, n.clone(), gi, n.clone()));
        }
    }
    out
}

/// Every profiled step, of every matched pair, whose CPU per op moved by
/// more than `threshold` (a fraction) between the sides.
pub fn build(groups: &[Group], threshold: f64) -> Vec<StepChanges> {
    let mut out = Vec::new();
    if groups.is_empty() {
        return out;
    }
    let label = |gi: usize, name: &str| if groups.len() == 1 { name.to_string() } else { format!("{}/{name}", groups[gi].label) };
    for (ga, a, gb, b) in matched(groups) {
        let (sa, sb) = (side(&groups[ga], &a), side(&groups[gb], &b));
        for (step, ra) in &sa {
            let Some(rb) = sb.get(step) else { continue };
            let mean = |r: &[Repeat]| r.iter().map(|x| x.1).sum::<f64>() / r.len() as f64;
            let (ma, mb) = (mean(ra), mean(rb));
            if ma <= 0.0 || (mb / ma - 1.0).abs() <= threshold {
                continue;
            }
            let costs = |r: &[Repeat]| r.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
            out.push(StepChanges {
                base: label(ga, &a),
                new: label(gb, &b),
                step: step.clone(),
                base_us_op: ma,
                new_us_op: mb,
                n_base: ra.len(),
                n_new: rb.len(),
                changes: profile::changes(&costs(ra), &costs(rb), TOP),
            });
        }
    }
    out
}
