//! The Universal Scalability Law (Gunther): throughput at concurrency N,
//!
//!   X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)),
//!
//! lambda the single-client rate, sigma contention (serialisation), kappa
//! coherency (crosstalk). Fitted to measured points by non-linear least
//! squares: Levenberg-Marquardt with the analytic Jacobian, sigma and kappa
//! kept non-negative, from several starting points (the surface has flat
//! valleys when kappa is near 0). Three parameters and a handful of points
//! need no linear-algebra crate: the normal equations are 3x3.

use serde::{Deserialize, Serialize};

/// Fewer points than this give no fit (three parameters, and a fit through
/// barely more points than parameters says nothing).
pub const MIN_POINTS: usize = 6;

/// A fitted law and how well it fits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UslFit {
    pub lambda: f64,
    pub sigma: f64,
    pub kappa: f64,
    /// 1 - residual sum of squares / total sum of squares.
    pub r_squared: f64,
    /// Where throughput peaks (sqrt((1 - sigma) / kappa)); None when kappa
    /// is 0 (throughput then rises towards lambda / sigma for ever).
    pub peak_n: Option<f64>,
    pub peak_throughput: Option<f64>,
}

impl UslFit {
    pub fn throughput(&self, n: f64) -> f64 {
        usl(self.lambda, self.sigma, self.kappa, n)
    }
}

fn usl(lambda: f64, sigma: f64, kappa: f64, n: f64) -> f64 {
    lambda * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))
}

/// Efficiency of each point: X(N) / (N X(1)), with X(1) the measured
/// one-client throughput, or the fit's lambda when N = 1 was not measured.
pub fn efficiency(points: &[(f64, f64)], fit: Option<&UslFit>) -> Vec<Option<f64>> {
    let x1 = points.iter().find(|(n, _)| *n == 1.0).map(|p| p.1).or(fit.map(|f| f.lambda));
    points.iter().map(|&(n, x)| x1.filter(|x1| *x1 > 0.0 && n > 0.0).map(|x1| x / (n * x1))).collect()
}

/// Fit the law to (N, throughput) points; Err says why there is no fit.
pub fn fit(points: &[(f64, f64)]) -> Result<UslFit, String> {
    let mut distinct: Vec<f64> = points.iter().map(|p| p.0).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < MIN_POINTS {
        return Err(format!(
            "{} concurrency levels measured; a fit of three parameters needs at least {MIN_POINTS}",
            distinct.len()
        ));
    }
    if points.iter().any(|&(n, x)| !(n >= 1.0 && x.is_finite() && x >= 0.0)) {
        return Err("a point has N below 1 or a throughput that is not a number".into());
    }
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let sst: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    if mean <= 0.0 {
        return Err("every throughput is 0".into());
    }
    // lambda starts from the best per-client rate at the lowest N.
    let low = points.iter().min_by(|a, b| a.0.total_cmp(&b.0)).map(|p| p.1 / p.0).unwrap_or(mean);
    let mut best: Option<([f64; 3], f64)> = None;
    for sigma0 in [0.0, 0.02, 0.1, 0.3, 0.7] {
        for kappa0 in [0.0, 1e-4, 1e-3, 1e-2, 0.05] {
            let (p, sse) = levenberg_marquardt(points, [low, sigma0, kappa0]);
            if sse.is_finite() && best.is_none_or(|(_, b)| sse < b) {
                best = Some((p, sse));
            }
        }
    }
    let ([lambda, sigma, kappa], sse) = best.ok_or("the fit did not converge")?;
    let r_squared = if sst > 0.0 { 1.0 - sse / sst } else { 1.0 };
    let peak_n = (kappa > 1e-12 && sigma < 1.0).then(|| ((1.0 - sigma) / kappa).sqrt());
    let peak_throughput = peak_n.map(|n| usl(lambda, sigma, kappa, n));
    Ok(UslFit { lambda, sigma, kappa, r_squared, peak_n, peak_throughput })
}

fn sse(points: &[(f64, f64)], p: [f64; 3]) -> f64 {
    points.iter().map(|&(n, x)| (x - usl(p[0], p[1], p[2], n)).powi(2)).sum()
}

/// Minimise the squared residuals from `start`; sigma and kappa are
/// projected onto [0, inf) after every step. Returns the parameters and
/// their residual sum of squares.
fn levenberg_marquardt(points: &[(f64, f64)], start: [f64; 3]) -> ([f64; 3], f64) {
    let mut p = start;
    let mut cost = sse(points, p);
    let mut mu = 1e-3;
    for _ in 0..500 {
        // Normal equations (J^T J) d = J^T r, J the Jacobian of the model.
        let mut jtj = [[0.0f64; 3]; 3];
        let mut jtr = [0.0f64; 3];
        for &(n, x) in points {
            let d = 1.0 + p[1] * (n - 1.0) + p[2] * n * (n - 1.0);
            let f = p[0] * n / d;
            let j = [n / d, -p[0] * n * (n - 1.0) / (d * d), -p[0] * n * n * (n - 1.0) / (d * d)];
            for a in 0..3 {
                jtr[a] += j[a] * (x - f);
                for b in 0..3 {
                    jtj[a][b] += j[a] * j[b];
                }
            }
        }
        let mut improved = false;
        while mu < 1e12 {
            let mut m = jtj;
            for (a, row) in m.iter_mut().enumerate() {
                row[a] += mu * jtj[a][a].max(1e-300);
            }
            let Some(d) = solve3(m, jtr) else {
                mu *= 10.0;
                continue;
            };
            let trial = [p[0] + d[0], (p[1] + d[1]).max(0.0), (p[2] + d[2]).max(0.0)];
            let c = sse(points, trial);
            if c.is_finite() && c < cost {
                let relative = (cost - c) / cost.max(1e-300);
                p = trial;
                cost = c;
                mu = (mu / 3.0).max(1e-12);
                improved = relative > 1e-15;
                break;
            }
            mu *= 4.0;
        }
        if !improved {
            break;
        }
    }
    (p, cost)
}

/// Solve a 3x3 system by Gaussian elimination with partial pivoting.
fn solve3(mut m: [[f64; 3]; 3], mut v: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        v.swap(col, pivot);
        for row in col + 1..3 {
            let k = m[row][col] / m[col][col];
            #[allow(clippy::needless_range_loop, reason = "two rows of one matrix, read and written by index")]
            for c in col..3 {
                m[row][c] -= k * m[col][c];
            }
            v[row] -= k * v[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let s: f64 = (row + 1..3).map(|c| m[row][c] * x[c]).sum();
        x[row] = (v[row] - s) / m[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: [f64; 7] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];

    fn points(lambda: f64, sigma: f64, kappa: f64, noise: f64, seed: u64) -> Vec<(f64, f64)> {
        // xorshift64: uniform noise in [-noise, +noise], seeded.
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut unit = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        NS.iter().map(|&n| (n, usl(lambda, sigma, kappa, n) * (1.0 + noise * (2.0 * unit() - 1.0)))).collect()
    }

    fn within(got: f64, want: f64, tolerance: f64) -> bool {
        (got - want).abs() <= tolerance * want.abs()
    }

    #[test]
    fn exact_points_give_back_their_parameters() {
        for (lambda, sigma, kappa) in
            [(8400.0, 0.05, 0.002), (1.0e6, 0.3, 0.0001), (500.0, 0.01, 0.02), (12_000.0, 0.2, 0.0)]
        {
            let f = fit(&points(lambda, sigma, kappa, 0.0, 1)).unwrap();
            assert!(within(f.lambda, lambda, 0.05), "{f:?}");
            assert!(within(f.sigma, sigma, 0.05), "{f:?}");
            if kappa > 0.0 {
                assert!(within(f.kappa, kappa, 0.05), "{f:?}");
                let peak = ((1.0 - sigma) / kappa).sqrt();
                assert!(within(f.peak_n.unwrap(), peak, 0.05), "{f:?}");
            } else {
                assert!(f.kappa < 1e-6 && f.peak_n.is_none_or(|n| n > 1000.0), "{f:?}");
            }
            assert!(f.r_squared > 0.9999, "{f:?}");
        }
    }

    #[test]
    fn noisy_points_fit_close() {
        // 3% noise on every point, several draws.
        for seed in 1..6 {
            let f = fit(&points(8400.0, 0.05, 0.002, 0.03, seed)).unwrap();
            assert!(f.r_squared > 0.95, "{f:?}");
            assert!(within(f.lambda, 8400.0, 0.10), "{f:?}");
            let peak = (0.95f64 / 0.002).sqrt();
            assert!(within(f.peak_n.unwrap(), peak, 0.25), "{f:?}");
        }
    }

    #[test]
    fn too_few_levels_give_no_fit_and_say_why() {
        let p: Vec<(f64, f64)> = points(100.0, 0.1, 0.01, 0.0, 1).into_iter().take(5).collect();
        let why = fit(&p).unwrap_err();
        assert!(why.contains("5 concurrency levels") && why.contains("at least 6"), "{why}");
        // Repeats of one level do not count twice.
        let mut p = p.clone();
        p.push(p[0]);
        assert!(fit(&p).is_err());
    }

    #[test]
    fn efficiency_is_relative_to_one_client() {
        let p = [(1.0, 100.0), (2.0, 180.0), (4.0, 300.0)];
        let e = efficiency(&p, None);
        assert_eq!(e, [Some(1.0), Some(0.9), Some(0.75)]);
        let without_one = [(2.0, 180.0)];
        assert_eq!(efficiency(&without_one, None), [None]);
    }
}
