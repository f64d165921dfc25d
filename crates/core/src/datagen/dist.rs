//! Access distributions for reads, updates and deletes: which existing key
//! index an operation touches.

use std::fmt;
use std::str::FromStr;

use super::rng::{mix64, Rng};

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Distribution {
    Uniform,
    /// Scrambled zipfian (YCSB's default uses theta 0.99): popular keys are
    /// spread over the key space by a hash.
    Zipfian {
        theta: f64,
    },
    /// Zipfian over recency: the highest key indexes are the most popular.
    Latest {
        theta: f64,
    },
    /// Exponential over recency, as YCSB's (95% of accesses in the newest 85.7%).
    Exponential {
        percentile: f64,
        fraction: f64,
    },
    /// Point operations touch only the first `point` keys, range operations
    /// only the first `range` keys.
    Hotset {
        point: u64,
        range: u64,
    },
}

impl Distribution {
    pub const SYNTAX: &'static str = "uniform, zipfian[:THETA], latest[:THETA], exponential[:PERCENTILE], hotset:P.R";
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Distribution::Uniform => write!(f, "uniform"),
            Distribution::Zipfian { theta } => write!(f, "zipfian:{theta}"),
            Distribution::Latest { theta } => write!(f, "latest:{theta}"),
            Distribution::Exponential { percentile, .. } => write!(f, "exponential:{percentile}"),
            Distribution::Hotset { point, range } => write!(f, "hotset:{point}.{range}"),
        }
    }
}

impl From<Distribution> for String {
    fn from(d: Distribution) -> String {
        d.to_string()
    }
}

impl TryFrom<String> for Distribution {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl FromStr for Distribution {
    type Err = String;
    /// Accepts "name", "name:ARG" and "name(ARG)".
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid distribution '{s}' (valid: {})", Self::SYNTAX);
        let s2 = s.trim();
        let (name, arg) = if let Some((n, rest)) = s2.split_once('(') {
            (n, Some(rest.strip_suffix(')').ok_or_else(bad)?))
        } else if let Some((n, a)) = s2.split_once(':') {
            (n, Some(a))
        } else {
            (s2, None)
        };
        let float = |default: f64| -> Result<f64, String> {
            match arg {
                None => Ok(default),
                Some(a) => a.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0).ok_or_else(bad),
            }
        };
        match name {
            "uniform" if arg.is_none() => Ok(Distribution::Uniform),
            "zipfian" => {
                let theta = float(0.99)?;
                if theta >= 1.0 {
                    return Err(format!("zipfian theta must be in (0, 1), got {theta}"));
                }
                Ok(Distribution::Zipfian { theta })
            }
            "latest" => {
                let theta = float(0.99)?;
                if theta >= 1.0 {
                    return Err(format!("latest theta must be in (0, 1), got {theta}"));
                }
                Ok(Distribution::Latest { theta })
            }
            "exponential" => {
                let percentile = float(95.0)?;
                if percentile >= 100.0 {
                    return Err(bad());
                }
                Ok(Distribution::Exponential { percentile, fraction: 0.857_142_857_1 })
            }
            "hotset" => {
                let (p, r) = arg.and_then(|a| a.split_once('.')).ok_or_else(bad)?;
                let point = p.parse::<u64>().ok().filter(|&v| v > 0).ok_or_else(bad)?;
                let range = r.parse::<u64>().ok().filter(|&v| v > 0).ok_or_else(bad)?;
                Ok(Distribution::Hotset { point, range })
            }
            _ => Err(bad()),
        }
    }
}

/// Zipfian generator of Gray et al. ("Quickly generating billion-record
/// synthetic databases"), as YCSB implements it: values in [0, n), 0 most popular.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
}

fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

impl Zipf {
    /// Computing zeta(n) is O(n): build once per step, before timing, and clone.
    pub fn new(n: u64, theta: f64) -> Self {
        let zetan = zeta(n, theta);
        let zeta2 = zeta(2, theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Zipf { n, theta, alpha, zetan, eta }
    }

    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.unit();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1.min(self.n - 1);
        }
        ((self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64).min(self.n - 1)
    }
}

/// Per-thread sampler of key indexes in [0, n) for one distribution.
#[derive(Clone, Debug)]
pub struct Sampler {
    n: u64,
    kind: SamplerKind,
}

#[derive(Clone, Debug)]
enum SamplerKind {
    Uniform,
    Zipfian(Zipf),
    Latest(Zipf),
    Exponential { gamma: f64 },
    Hotset { point: u64, range: u64 },
}

impl Sampler {
    pub fn new(dist: Distribution, n: u64) -> Self {
        assert!(n > 0);
        let kind = match dist {
            Distribution::Uniform => SamplerKind::Uniform,
            Distribution::Zipfian { theta } => SamplerKind::Zipfian(Zipf::new(n, theta)),
            Distribution::Latest { theta } => SamplerKind::Latest(Zipf::new(n, theta)),
            Distribution::Exponential { percentile, fraction } => {
                let range = (n as f64 * fraction).max(1.0);
                SamplerKind::Exponential { gamma: -(1.0 - percentile / 100.0).ln() / range }
            }
            Distribution::Hotset { point, range } => SamplerKind::Hotset { point: point.min(n), range: range.min(n) },
        };
        Sampler { n, kind }
    }

    /// A key index for a point operation.
    #[inline]
    pub fn point(&self, rng: &mut Rng) -> u64 {
        match &self.kind {
            SamplerKind::Uniform => rng.below(self.n),
            // Scramble so popular keys are not adjacent (YCSB's ScrambledZipfian uses FNV; any good hash will do).
            SamplerKind::Zipfian(z) => mix64(z.sample(rng)) % self.n,
            SamplerKind::Latest(z) => self.n - 1 - z.sample(rng),
            SamplerKind::Exponential { gamma } => loop {
                let x = (-(1.0 - rng.unit()).ln() / gamma) as u64;
                if x < self.n {
                    break self.n - 1 - x;
                }
            },
            SamplerKind::Hotset { point, .. } => rng.below(*point),
        }
    }

    /// A start key index for a range operation (differs from `point` only for hotset).
    #[inline]
    pub fn range_start(&self, rng: &mut Rng) -> u64 {
        match &self.kind {
            SamplerKind::Hotset { range, .. } => rng.below(*range),
            _ => self.point(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Distribution {
        s.parse().unwrap()
    }

    #[test]
    fn parses_all_forms() {
        assert_eq!(parse("uniform"), Distribution::Uniform);
        assert_eq!(parse("zipfian"), Distribution::Zipfian { theta: 0.99 });
        assert_eq!(parse("zipfian:0.8"), Distribution::Zipfian { theta: 0.8 });
        assert_eq!(parse("zipfian(0.8)"), Distribution::Zipfian { theta: 0.8 });
        assert_eq!(parse("hotset:64.512"), Distribution::Hotset { point: 64, range: 512 });
        assert_eq!(parse("hotset(8.64)"), Distribution::Hotset { point: 8, range: 64 });
        assert!(matches!(parse("latest"), Distribution::Latest { .. }));
        assert!(matches!(parse("exponential"), Distribution::Exponential { .. }));
        for bad in ["zipf", "zipfian:1.5", "hotset", "hotset:64", "uniform:3", "zipfian(0.5"] {
            let e = bad.parse::<Distribution>().unwrap_err();
            assert!(e.contains(bad.split([':', '(']).next().unwrap()), "{e}");
        }
        // Round trip through the display form (used in result files).
        for s in ["uniform", "zipfian:0.99", "hotset:64.512", "latest:0.5"] {
            assert_eq!(parse(s).to_string(), s);
        }
    }

    fn histogram(dist: &str, n: u64, samples: usize) -> Vec<u64> {
        let s = Sampler::new(parse(dist), n);
        let mut rng = Rng::new(3);
        let mut counts = vec![0u64; n as usize];
        for _ in 0..samples {
            let i = s.point(&mut rng);
            assert!(i < n);
            counts[i as usize] += 1;
        }
        counts
    }

    #[test]
    fn zipfian_is_skewed_and_scrambled() {
        let counts = histogram("zipfian", 1000, 200_000);
        let mut sorted = counts.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        // With theta 0.99 over 1000 items the top item gets about 13% of accesses.
        let top = sorted[0] as f64 / 200_000.0;
        assert!((0.10..0.17).contains(&top), "{top}");
        // Top 10% of keys take well over half of the accesses.
        let top10: u64 = sorted[..100].iter().sum();
        assert!(top10 as f64 / 200_000.0 > 0.6);
        // Scrambled: the most popular key is not index 0.
        let argmax = counts.iter().enumerate().max_by_key(|(_, c)| **c).unwrap().0;
        assert_ne!(argmax, 0);
    }

    #[test]
    fn latest_and_exponential_favour_high_indexes() {
        for d in ["latest", "exponential"] {
            let counts = histogram(d, 1000, 100_000);
            let high: u64 = counts[500..].iter().sum();
            assert!(high > 60_000, "{d}: {high}");
        }
    }

    #[test]
    fn hotset_limits_points_and_ranges() {
        let s = Sampler::new(parse("hotset:64.512"), 1_000_000);
        let mut rng = Rng::new(9);
        for _ in 0..10_000 {
            assert!(s.point(&mut rng) < 64);
            assert!(s.range_start(&mut rng) < 512);
        }
        let small = Sampler::new(parse("hotset:64.512"), 10);
        assert!((0..1000).all(|_| small.range_start(&mut rng) < 10));
    }
}
