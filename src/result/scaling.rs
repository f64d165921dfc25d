//! A concurrency sweep's outcome per step: throughput at each thread count,
//! the efficiency X(N) / (N X(1)), and the Universal Scalability Law fitted
//! to the points (or why there is no fit).

use serde::{Deserialize, Serialize};

use super::{ConfigResult, Status};
use crate::measure::usl::{self, UslFit};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalingPoint {
    pub threads: usize,
    pub ops_s: f64,
    /// X(N) / (N X(1)); None without a one-thread point or fit.
    pub efficiency: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    /// The swept step (its results are named `<step>@t<threads>`).
    pub step: String,
    pub points: Vec<ScalingPoint>,
    pub fit: Option<UslFit>,
    /// Why there is no fit (too few points, a step that failed, ...).
    pub no_fit: Option<String>,
}

/// The sweeps among a config's steps, in the order they first ran.
pub fn sweeps(config: &ConfigResult) -> Vec<Scaling> {
    let mut out: Vec<Scaling> = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    for s in &config.steps {
        let Some((step, _)) = s.name.split_once("@t") else { continue };
        let i = match out.iter().position(|sc| sc.step == step) {
            Some(i) => i,
            None => {
                out.push(Scaling { step: step.to_string(), points: Vec::new(), fit: None, no_fit: None });
                out.len() - 1
            }
        };
        match (s.status, s.ops_s) {
            (Status::Completed, Some(x)) => out[i].points.push(ScalingPoint { threads: s.settings.threads, ops_s: x, efficiency: None }),
            _ => failed.push((step.to_string(), s.name.clone())),
        }
    }
    for sc in &mut out {
        let xy: Vec<(f64, f64)> = sc.points.iter().map(|p| (p.threads as f64, p.ops_s)).collect();
        match usl::fit(&xy) {
            Ok(f) => sc.fit = Some(f),
            Err(why) => sc.no_fit = Some(why),
        }
        let missing: Vec<&str> = failed.iter().filter(|(st, _)| *st == sc.step).map(|(_, n)| n.as_str()).collect();
        if !missing.is_empty() {
            sc.no_fit = Some(format!("{} (without {}, which did not complete)", sc.no_fit.take().unwrap_or_else(|| "fitted".into()), missing.join(", ")));
        }
        for (p, e) in sc.points.iter_mut().zip(usl::efficiency(&xy, sc.fit.as_ref())) {
            p.efficiency = e;
        }
    }
    out
}
