//! Concurrency sweeps in text: per config and swept step, throughput and
//! efficiency at each thread count and the Universal Scalability Law fit.

use super::svg::{fmt_axis, Unit};
use crate::result::RunResult;

fn ops(x: f64) -> String {
    fmt_axis(x, Unit::Count)
}

/// The sweeps of a run, or "" when it has none.
pub fn render(run: &RunResult) -> String {
    let mut out = String::new();
    for c in &run.configs {
        for sc in &c.scaling {
            if out.is_empty() {
                out.push_str("concurrency sweeps, Universal Scalability Law X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)):\n");
            }
            match (&sc.fit, &sc.no_fit) {
                (Some(f), _) => {
                    let peak = match (f.peak_n, f.peak_throughput) {
                        (Some(n), Some(x)) => format!("peak at N = {n:.0} ({} ops/s)", ops(x)),
                        _ => "no peak (kappa 0)".into(),
                    };
                    out.push_str(&format!(
                        "{} {}: lambda {} ops/s, sigma {:.4}, kappa {:.6}, {peak}, R^2 {:.3}\n",
                        c.name,
                        sc.step,
                        ops(f.lambda),
                        f.sigma,
                        f.kappa,
                        f.r_squared
                    ));
                }
                (None, why) => out.push_str(&format!("{} {}: no fit: {}\n", c.name, sc.step, why.as_deref().unwrap_or("unknown"))),
            }
            if let (Some(_), Some(why)) = (&sc.fit, &sc.no_fit) {
                out.push_str(&format!("  note: {why}\n"));
            }
            let cell = |s: String| format!("{s:>9}");
            out.push_str(&format!("  {:<10}{}\n", "threads", sc.points.iter().map(|p| cell(p.threads.to_string())).collect::<String>()));
            out.push_str(&format!("  {:<10}{}\n", "ops/s", sc.points.iter().map(|p| cell(ops(p.ops_s))).collect::<String>()));
            out.push_str(&format!(
                "  {:<10}{}\n",
                "efficiency",
                sc.points.iter().map(|p| cell(p.efficiency.map_or("-".into(), |e| format!("{e:.2}")))).collect::<String>()
            ));
        }
    }
    out
}
