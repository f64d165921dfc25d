//! A concurrency sweep's outcome per step: throughput at each thread count,
//! the efficiency X(N) / (N X(1)), and the Universal Scalability Law fitted
//! to the points (or why there is no fit).

use serde::{Deserialize, Serialize};

use super::{ConfigResult, Status, StepResult};
use crate::measure::usl::{self, UslFit};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalingPoint {
    pub threads: usize,
    pub ops_s: f64,
    /// X(N) / (N X(1)); None without a one-thread point or fit.
    pub efficiency: Option<f64>,
    /// More runnable threads than the machine has cores at this point: the
    /// clients plus what the engine runs beside them (`Machine`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub oversubscribed: bool,
}

/// A fit below this R^2 is called poor and shows no peak.
pub const POOR_FIT_R2: f64 = 0.9;
/// An efficiency above this is superlinear: suspect unless repeats confirm it.
pub const SUPERLINEAR: f64 = 1.05;

/// What competes with the clients for the machine's cores.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Machine {
    /// Cores this process may run on.
    pub cores: usize,
    /// Threads (or processes) the engine keeps busy beside the clients, and
    /// what they are ("2 background jobs (max_background_jobs)").
    pub background: usize,
    /// Engine processes or threads per client (a server's backend per
    /// connection, on this machine).
    pub per_client: usize,
    pub what: String,
}

impl Machine {
    /// Runnable threads at `threads` clients; the engine's background threads
    /// count only for a step that writes (a read step on a settled engine
    /// leaves them idle).
    pub fn demand(&self, threads: usize, writes: bool) -> usize {
        threads * (1 + self.per_client) + if writes { self.background } else { 0 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    /// The swept step (its results are named `<step>@t<threads>`).
    pub step: String,
    pub points: Vec<ScalingPoint>,
    pub fit: Option<UslFit>,
    /// Why there is no fit (too few points, a step that failed, ...).
    pub no_fit: Option<String>,
    /// What may make the curve mislead: superlinear points, a poor fit, a
    /// peak beyond the measured range, oversubscribed points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The cores and the engine's own threads the points were judged against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<Machine>,
}

/// A point as the warnings see it: its efficiency and, with repeats, the
/// lower and upper end of its interval paired by round.
pub struct Judged {
    pub threads: usize,
    pub efficiency: Option<f64>,
    pub interval: Option<(f64, f64)>,
    pub oversubscribed: bool,
}

/// The peak of a fit as it may be shown: None for a poor fit or none at all.
pub fn shown_peak(fit: &UslFit, max_n: f64) -> Option<(f64, f64, bool)> {
    if fit.r_squared < POOR_FIT_R2 {
        return None;
    }
    match (fit.peak_n, fit.peak_throughput) {
        (Some(n), Some(x)) => Some((n, x, n > max_n)),
        _ => None,
    }
}

/// The warnings of a sweep (one run, or repeats merged).
pub fn judge(points: &[Judged], fit: Option<&UslFit>, machine: Option<&Machine>) -> Vec<String> {
    let mut w = Vec::new();
    for p in points.iter().filter(|p| p.threads > 1) {
        let Some(e) = p.efficiency.filter(|e| *e > SUPERLINEAR) else { continue };
        match p.interval {
            // Every repeat's interval above 1: superlinear for real (caches, batching).
            Some((lo, _)) if lo > 1.0 => {}
            Some((lo, hi)) => w.push(format!(
                "efficiency {e:.2} at {} clients is superlinear, and the repeats do not confirm it (95% interval {lo:.2}..{hi:.2} reaches 1): likely an artifact, such as background work or a cache warming up during the one-client point",
                p.threads
            )),
            None => w.push(format!(
                "efficiency {e:.2} at {} clients is superlinear: likely an artifact, such as background work or a cache warming up during the one-client point; repeats (--repeat) would confirm or refute it",
                p.threads
            )),
        }
    }
    let max_n = points.iter().map(|p| p.threads).max().unwrap_or(1) as f64;
    if let Some(f) = fit {
        if f.r_squared < POOR_FIT_R2 {
            w.push(format!("the fit is poor (R^2 {:.3}, below {POOR_FIT_R2}): its parameters describe the points loosely and it shows no peak", f.r_squared));
        } else if let Some((n, _, true)) = shown_peak(f, max_n) {
            w.push(format!("the fitted peak at N = {n:.0} lies beyond the largest measured N = {max_n:.0}: extrapolated, not measured"));
        }
    }
    let over: Vec<String> = points.iter().filter(|p| p.oversubscribed).map(|p| p.threads.to_string()).collect();
    if let (Some(m), false) = (machine, over.is_empty()) {
        let counted = match (m.per_client, m.what.is_empty()) {
            (0, true) => "the clients".to_string(),
            (0, false) => format!("the clients, and in a step that writes {}", m.what),
            (_, _) => format!("the clients and {}", m.what),
        };
        w.push(format!(
            "oversubscribed at {} clients: more runnable threads ({counted}) than the {} cores, so those points measure time-sharing as much as the engine",
            over.join(", "),
            m.cores
        ));
    }
    w
}

/// Whether a swept step writes (a fill, overwrite, delete, a YCSB or
/// insert-benchmark mix with writes, or a background writer).
fn writes(step: &StepResult) -> bool {
    step.writer.is_some() || step.step_kind().is_some_and(|k| k.changes_data())
}

/// The sweeps among a config's steps, in the order they first ran.
pub fn sweeps(config: &ConfigResult, machine: Option<&Machine>) -> Vec<Scaling> {
    let mut out: Vec<Scaling> = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    for s in &config.steps {
        let Some(step) = s.sweep_of() else { continue };
        let i = match out.iter().position(|sc| sc.step == step) {
            Some(i) => i,
            None => {
                out.push(Scaling {
                    step: step.to_string(),
                    points: Vec::new(),
                    fit: None,
                    no_fit: None,
                    warnings: Vec::new(),
                    machine: machine.cloned(),
                });
                out.len() - 1
            }
        };
        match (s.status, s.ops_s) {
            (Status::Completed, Some(x)) => out[i].points.push(ScalingPoint {
                threads: s.settings.threads,
                ops_s: x,
                efficiency: None,
                oversubscribed: machine.is_some_and(|m| m.demand(s.settings.threads, writes(s)) > m.cores),
            }),
            _ => failed.push((step.to_string(), s.name.clone())),
        }
    }
    for sc in &mut out {
        // Rotated rounds run the points in another order.
        sc.points.sort_by_key(|p| p.threads);
        let xy: Vec<(f64, f64)> = sc.points.iter().map(|p| (p.threads as f64, p.ops_s)).collect();
        match usl::fit(&xy) {
            Ok(f) => sc.fit = Some(f),
            Err(why) => sc.no_fit = Some(why),
        }
        let missing: Vec<&str> = failed.iter().filter(|(st, _)| *st == sc.step).map(|(_, n)| n.as_str()).collect();
        if !missing.is_empty() {
            sc.no_fit = Some(format!(
                "{} (without {}, which did not complete)",
                sc.no_fit.take().unwrap_or_else(|| "fitted".into()),
                missing.join(", ")
            ));
        }
        for (p, e) in sc.points.iter_mut().zip(usl::efficiency(&xy, sc.fit.as_ref())) {
            p.efficiency = e;
        }
        let judged: Vec<Judged> = sc
            .points
            .iter()
            .map(|p| Judged {
                threads: p.threads,
                efficiency: p.efficiency,
                interval: None,
                oversubscribed: p.oversubscribed,
            })
            .collect();
        sc.warnings = judge(&judged, sc.fit.as_ref(), machine);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(threads: usize, efficiency: f64, interval: Option<(f64, f64)>) -> Judged {
        Judged { threads, efficiency: Some(efficiency), interval, oversubscribed: false }
    }

    fn fit(r_squared: f64, peak_n: Option<f64>) -> UslFit {
        UslFit {
            lambda: 1000.0,
            sigma: 0.1,
            kappa: 0.01,
            r_squared,
            peak_n,
            peak_throughput: peak_n.map(|n| 900.0 * n),
        }
    }

    /// The sweep: 1.22 at two clients, a fit of R^2 0.741 with a peak
    /// at N = 9 on a machine of 2 cores.
    #[test]
    fn a_superlinear_point_and_a_poor_fit_are_warned_about_and_the_peak_is_not_shown() {
        let points = [point(1, 1.0, None), point(2, 1.22, None), point(4, 0.6, None)];
        let poor = fit(0.741, Some(9.0));
        let w = judge(&points, Some(&poor), None);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("efficiency 1.22 at 2 clients is superlinear") && w[0].contains("likely an artifact"),
            "{w:?}"
        );
        assert!(w[1].starts_with("the fit is poor (R^2 0.741, below 0.9)") && w[1].contains("no peak"), "{w:?}");
        assert_eq!(shown_peak(&poor, 32.0), None);
        // A good fit's peak beyond the measured range is extrapolated.
        let good = fit(0.99, Some(9.0));
        assert_eq!(shown_peak(&good, 4.0), Some((9.0, 8100.0, true)));
        assert_eq!(shown_peak(&good, 16.0), Some((9.0, 8100.0, false)));
        let w = judge(&points[..1], Some(&good), None);
        assert_eq!(w, ["the fitted peak at N = 9 lies beyond the largest measured N = 1: extrapolated, not measured"]);
    }

    /// Repeats that all put the point above 1 confirm it; an interval reaching 1 does not.
    #[test]
    fn repeats_confirm_or_refute_a_superlinear_point() {
        let confirmed = [point(1, 1.0, None), point(2, 1.2, Some((1.1, 1.3)))];
        assert!(judge(&confirmed, None, None).is_empty());
        let unsure = [point(1, 1.0, None), point(2, 1.2, Some((0.9, 1.5)))];
        let w = judge(&unsure, None, None);
        assert!(w[0].contains("the repeats do not confirm it (95% interval 0.90..1.50"), "{w:?}");
    }

    #[test]
    fn points_beyond_the_cores_are_oversubscribed() {
        let m =
            Machine { cores: 2, background: 2, per_client: 0, what: "2 background jobs (max_background_jobs)".into() };
        assert_eq!((m.demand(1, true), m.demand(1, false)), (3, 1));
        let server = Machine { cores: 4, background: 0, per_client: 1, what: "a server process per client".into() };
        assert_eq!((server.demand(2, false), server.demand(3, false)), (4, 6));
        let points = [
            Judged { oversubscribed: true, ..point(4, 0.5, None) },
            Judged { oversubscribed: true, ..point(8, 0.3, None) },
        ];
        let w = judge(&points, None, Some(&m));
        assert_eq!(w, ["oversubscribed at 4, 8 clients: more runnable threads (the clients, and in a step that writes 2 background jobs (max_background_jobs)) than the 2 cores, so those points measure time-sharing as much as the engine"]);
    }
}
