//! The CPU profiles of runs' steps (`--profile`), as neutral tables: per
//! step and config, its CPU per operation by role, the top functions by
//! CPU per operation (self and total) in each role, the roll-up by library,
//! and its folded stacks for a flame graph.

use std::path::Path;

use crate::measure::profile::{self, Folded, FunctionCost, Role};
use crate::result::RunResult;

/// Functions listed per role.
pub const TOP_FUNCTIONS: usize = 12;

/// One step's profile in one config of one run.
#[derive(Debug, Clone)]
pub struct ProfileView {
    pub run: String,
    /// The config's name, with its round (`a.r2`) when repeated.
    pub config: String,
    /// The config's name alone: the rounds of one config share it.
    pub config_name: String,
    pub step: String,
    pub hz: u32,
    pub samples: u64,
    pub ops: u64,
    pub unwinding: String,
    /// perf's events per CPU or per thread (None: a result from before it was kept).
    pub scope: Option<profile::perf::Scope>,
    /// The step's sampled CPU per operation (µs).
    pub cpu_us_op: Option<f64>,
    /// Why the profile says little or nothing (too few samples, its file unreadable).
    pub warning: Option<String>,
    /// CPU per operation by role, in `Role::ALL`'s order (roles with no sample left out).
    pub roles: Vec<(Role, f64)>,
    /// The top functions of each role by self CPU per operation.
    pub functions: Vec<FunctionCost>,
    /// (role, library, self CPU per op), most first.
    pub libraries: Vec<(Role, String, f64)>,
    pub folded: Folded,
    /// µs per operation of one sample.
    pub us_per_sample: f64,
}

/// The profiles of every profiled step of a run (labelled `label`, in
/// directory `dir`), in config and step order.
pub fn build(label: &str, dir: &Path, run: &RunResult) -> Vec<ProfileView> {
    let mut out = Vec::new();
    {
        for c in &run.configs {
            for s in &c.steps {
                let Some(p) = &s.profile else { continue };
                let (folded, mut warning) = match profile::load(dir, p) {
                    Ok(f) => (f, p.too_few_samples()),
                    Err(e) => (Folded::default(), Some(format!("{e:#}"))),
                };
                let us = p.us_per_sample_op().unwrap_or(0.0);
                if p.ops == 0 {
                    warning.get_or_insert_with(|| "the step completed no operation: no CPU per operation".into());
                }
                let by_role = folded.by_role();
                let roles = Role::ALL
                    .into_iter()
                    .filter_map(|role| by_role.get(&role).map(|n| (role, *n as f64 * us)))
                    .collect();
                let all = profile::function_costs(&folded, us);
                let functions = Role::ALL
                    .into_iter()
                    .flat_map(|role| {
                        all.iter().filter(move |f| f.role == role && f.self_us_op > 0.0).take(TOP_FUNCTIONS).cloned()
                    })
                    .collect();
                out.push(ProfileView {
                    run: label.to_string(),
                    config: crate::plan::instance_name(&c.name, c.repeat),
                    config_name: c.name.clone(),
                    step: s.name.clone(),
                    hz: p.hz,
                    samples: p.samples,
                    ops: p.ops,
                    unwinding: p.unwinding.clone(),
                    scope: p.scope,
                    cpu_us_op: p.cpu_us_per_op(),
                    warning,
                    roles,
                    functions,
                    libraries: profile::library_costs(&folded, us),
                    folded,
                    us_per_sample: us,
                });
            }
        }
    }
    out
}
