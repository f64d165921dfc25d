//! Where a step's CPU per operation changed between the sides of a
//! comparison, from their profiles (`--profile`): per matched config and
//! step whose profiled CPU per operation differs by more than the
//! threshold, the functions whose self CPU per operation changed most.
//! Each side pools its repeats (the runs of a group and a config's rounds);
//! a function is named as a change only when its difference is beyond what
//! either side's repeats vary by (`measure::profile::changes`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::compare::Group;
use super::summary::RunInfo;
use crate::measure::profile::{self, FunctionChange};

/// Functions listed per step.
pub const TOP: usize = 10;

/// One step of one pair of configs.
#[derive(Debug, Clone)]
pub struct StepChanges {
    pub base: String,
    pub new: String,
    /// The new side's config name (as its table column says it).
    pub new_config: String,
    pub step: String,
    /// Profiled CPU per operation, mean over each side's repeats (µs).
    pub base_us_op: f64,
    pub new_us_op: f64,
    /// Repeats profiled on each side.
    pub n_base: usize,
    pub n_new: usize,
    pub changes: Vec<FunctionChange>,
    /// Each side's folded stacks with their CPU per op (µs), mean over its
    /// repeats: the differential flame graph's input.
    pub base_stacks: Vec<(String, f64)>,
    pub new_stacks: Vec<(String, f64)>,
    /// How perf's events were attached on each side's repeats
    /// (`perf::Scope`'s names; "per-thread" for results from before it was kept).
    pub base_scopes: BTreeSet<profile::perf::Scope>,
    pub new_scopes: BTreeSet<profile::perf::Scope>,
}

impl StepChanges {
    /// Whether the functions' differences were tested against the repeats' spread.
    pub fn tested(&self) -> bool {
        self.n_base >= 2 && self.n_new >= 2
    }

    /// Why the difference may be partly the profiler's own: the sides were
    /// sampled with perf's events attached differently (per-thread events
    /// cost every context switch of a sampled thread; docs/profiles.md).
    pub fn caveat(&self) -> Option<String> {
        (self.base_scopes != self.new_scopes).then(|| {
            let names = |s: &BTreeSet<profile::perf::Scope>| s.iter().map(|s| s.name()).collect::<Vec<_>>().join(" and ");
            format!(
                "the sides were sampled differently ({} events against {}): per-thread events cost a thread CPU at every context switch, so part of a switch-heavy thread's difference may be the profiler's",
                names(&self.base_scopes),
                names(&self.new_scopes)
            )
        })
    }

    /// The HTML anchor of this explanation (a REGRESSION cell links to it).
    pub fn anchor(&self) -> String {
        let clean = |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect::<String>();
        format!("cpu-went-{}-{}-{}", clean(&self.base), clean(&self.new), clean(&self.step))
    }

    /// Whether this explains the same pair and step as `other`.
    pub fn same_pair(&self, other: &StepChanges) -> bool {
        (self.base.as_str(), self.new.as_str(), self.step.as_str())
            == (other.base.as_str(), other.new.as_str(), other.step.as_str())
    }
}

/// One repeat's profile of a step.
struct Repeat {
    /// Its functions' self CPU per op.
    functions: HashMap<String, f64>,
    /// The step's whole profiled CPU per op.
    total: f64,
    /// Its stacks' CPU per op.
    stacks: HashMap<String, f64>,
    /// perf's events per CPU or per thread.
    scope: profile::perf::Scope,
}

impl Repeat {
    fn of(folded: &profile::Folded, us_per_sample: f64, total: f64, scope: Option<profile::perf::Scope>) -> Repeat {
        Repeat {
            functions: profile::self_costs(folded, us_per_sample),
            total,
            stacks: profile::stack_costs(folded, us_per_sample),
            // Results from before the scope was kept were all sampled per thread.
            scope: scope.unwrap_or(profile::perf::Scope::PerThread),
        }
    }
}

/// A side's profiles per step name: every repeat of config `name` in the group.
fn side(g: &Group, name: &str) -> BTreeMap<String, Vec<Repeat>> {
    let mut by_step: BTreeMap<String, Vec<Repeat>> = BTreeMap::new();
    for (dir, run) in &g.runs {
        for c in run.configs.iter().filter(|c| c.name == name) {
            for s in &c.steps {
                let Some(p) = &s.profile else { continue };
                let (Ok(folded), Some(us), Some(total)) =
                    (profile::load(Path::new(dir), p), p.us_per_sample_op(), p.cpu_us_per_op())
                else {
                    continue;
                };
                by_step.entry(s.name.clone()).or_default().push(Repeat::of(&folded, us, total, p.scope));
            }
        }
    }
    by_step
}

/// A side's profiles per step name from a run's report: every round of
/// config `name` (of step `only` alone, when given).
fn side_of_run(run: &RunInfo, name: &str, only: Option<&str>) -> BTreeMap<String, Vec<Repeat>> {
    let mut by_step: BTreeMap<String, Vec<Repeat>> = BTreeMap::new();
    for v in run.profiles.iter().filter(|v| {
        v.config_name == name && only.is_none_or(|s| v.step == s) && v.ops > 0 && !v.folded.stacks.is_empty()
    }) {
        let Some(total) = v.cpu_us_op else { continue };
        by_step.entry(v.step.clone()).or_default().push(Repeat::of(&v.folded, v.us_per_sample, total, v.scope));
    }
    by_step
}

/// Each step both sides profiled whose CPU per op moved by more than `threshold`.
fn step_changes(
    base: (&str, &str),
    new: (&str, &str),
    sa: &BTreeMap<String, Vec<Repeat>>,
    sb: &BTreeMap<String, Vec<Repeat>>,
    threshold: f64,
    out: &mut Vec<StepChanges>,
) {
    for (step, ra) in sa {
        let Some(rb) = sb.get(step) else { continue };
        let mean = |r: &[Repeat]| r.iter().map(|x| x.total).sum::<f64>() / r.len() as f64;
        let (ma, mb) = (mean(ra), mean(rb));
        if ma <= 0.0 || (mb / ma - 1.0).abs() <= threshold {
            continue;
        }
        let functions = |r: &[Repeat]| r.iter().map(|x| x.functions.clone()).collect::<Vec<_>>();
        out.push(StepChanges {
            base: base.0.to_string(),
            new: new.0.to_string(),
            new_config: new.1.to_string(),
            step: step.clone(),
            base_us_op: ma,
            new_us_op: mb,
            n_base: ra.len(),
            n_new: rb.len(),
            changes: profile::changes(&functions(ra), &functions(rb), TOP),
            base_stacks: pooled_stacks(ra),
            new_stacks: pooled_stacks(rb),
            base_scopes: ra.iter().map(|r| r.scope).collect(),
            new_scopes: rb.iter().map(|r| r.scope).collect(),
        });
    }
}

/// Every stack's CPU per op, mean over the repeats (absent from one: 0 there), most first.
fn pooled_stacks(repeats: &[Repeat]) -> Vec<(String, f64)> {
    let mut sum: HashMap<&str, f64> = HashMap::new();
    for r in repeats {
        for (k, v) in &r.stacks {
            *sum.entry(k.as_str()).or_default() += v;
        }
    }
    let mut v: Vec<(String, f64)> = sum.into_iter().map(|(k, s)| (k.to_string(), s / repeats.len() as f64)).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// Within one run (a version or config sweep's table): each config of
/// `others` against `base`, their rounds pooled.
pub fn for_run(run: &RunInfo, base: &str, others: &[String], threshold: f64) -> Vec<StepChanges> {
    let mut out = Vec::new();
    let sa = side_of_run(run, base, None);
    if sa.is_empty() {
        return out;
    }
    for o in others {
        step_changes((base, base), (o, o), &sa, &side_of_run(run, o, None), threshold, &mut out);
    }
    out
}

/// A step's relative table (`summary::Base`): each row whose profiled CPU
/// per op moved against its base row's, in one run or across several (a
/// row's side pools the rounds of its config in its run).
pub fn for_step(
    s: &super::summary::Summary,
    step: &super::summary::StepTable,
    base: &super::summary::Base,
    threshold: f64,
) -> Vec<StepChanges> {
    let mut out = Vec::new();
    let bases = s.base_rows(step, base);
    let sides: Vec<BTreeMap<String, Vec<Repeat>>> =
        step.rows.iter().map(|row| side_of_run(&s.runs[row.run], &row.config, Some(&step.name))).collect();
    for (ri, b) in bases.iter().enumerate() {
        let Some(b) = *b else { continue };
        if b == ri {
            continue;
        }
        let (rb, rn) = (&step.rows[b], &step.rows[ri]);
        step_changes((&rb.label, &rb.config), (&rn.label, &rn.label), &sides[b], &sides[ri], threshold, &mut out);
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
    let label = |gi: usize, name: &str| {
        if groups.len() == 1 {
            name.to_string()
        } else {
            format!("{}/{name}", groups[gi].label)
        }
    };
    for (ga, a, gb, b) in super::compare::matched_configs(groups) {
        let (sa, sb) = (side(&groups[ga], &a), side(&groups[gb], &b));
        step_changes((&label(ga, &a), &a), (&label(gb, &b), &b), &sa, &sb, threshold, &mut out);
    }
    out
}
