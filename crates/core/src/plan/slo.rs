//! `--slo p99=2ms`: latency targets a step's throughput is searched under.

use serde::{Deserialize, Serialize};

/// One target: a percentile of the step's latency and its limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SloTarget {
    /// 50, 90, 99, 99.9 or 99.99.
    pub percentile: f64,
    pub limit_us: f64,
}

/// A probe's length when the step gives no --seconds.
pub const DEFAULT_PROBE_SECONDS: f64 = 10.0;

/// The percentiles every result keeps (LatencySummary's).
pub const PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 99.99];

impl SloTarget {
    /// "p99", "p99.9".
    pub fn name(&self) -> String {
        format!("p{}", self.percentile)
    }

    /// Parse "p99=2ms,p99.9=10ms" (limits in ns, us, ms or s).
    pub fn parse_list(text: &str) -> Result<Vec<SloTarget>, String> {
        let mut out: Vec<SloTarget> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (p, limit) =
                part.split_once('=').ok_or_else(|| format!("--slo '{part}' is not PERCENTILE=LIMIT (e.g. p99=2ms)"))?;
            let p = p.trim();
            let digits = p
                .strip_prefix('p')
                .ok_or_else(|| format!("--slo percentile '{p}' is not p50, p90, p99, p999 or p9999"))?;
            // p999 is 99.9 and p9999 99.99, as the percentiles are named everywhere else.
            let percentile = match digits {
                "999" => 99.9,
                "9999" => 99.99,
                d => d.parse::<f64>().map_err(|_| format!("--slo percentile '{p}' is not a number"))?,
            };
            if !PERCENTILES.contains(&percentile) {
                return Err(format!(
                    "--slo percentile {p}: results keep p50, p90, p99, p99.9 (p999) and p99.99 (p9999)"
                ));
            }
            let limit_us = parse_duration_us(limit.trim())
                .ok_or_else(|| format!("--slo limit '{}' is not a duration like 500us, 2ms or 1s", limit.trim()))?;
            if !(limit_us > 0.0 && limit_us <= 3.6e9) {
                return Err(format!("--slo limit {} must be above 0 and at most an hour", limit.trim()));
            }
            if out.iter().any(|t| t.percentile == percentile) {
                return Err(format!("--slo names {p} twice"));
            }
            out.push(SloTarget { percentile, limit_us });
        }
        if out.is_empty() {
            return Err("--slo names no target (e.g. p99=2ms)".into());
        }
        Ok(out)
    }

    /// Targets as `--slo` takes them ("p99=2000us,p99.9=10000us").
    pub fn list_text(targets: &[SloTarget]) -> String {
        targets.iter().map(|t| format!("{}={}us", t.name(), t.limit_us)).collect::<Vec<_>>().join(",")
    }

    /// The fewest operations a probe needs for this percentile to rest on
    /// 100 operations above it.
    pub fn min_ops(&self) -> u64 {
        // 100 / (1 - p/100), rounded: the percentiles kept make whole numbers
        // of it, which float subtraction leaves a hair above.
        (100.0 * 100.0 / (100.0 - self.percentile)).round() as u64
    }
}

/// "2ms" -> 2000.0 (microseconds).
fn parse_duration_us(text: &str) -> Option<f64> {
    let (num, scale) = if let Some(n) = text.strip_suffix("ns") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1e3)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1e6)
    } else {
        return None;
    };
    num.trim().parse::<f64>().ok().filter(|x| x.is_finite()).map(|x| x * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_with_their_units() {
        let t = SloTarget::parse_list("p99=2ms, p999=10ms,p50=300us").unwrap();
        assert_eq!(
            t,
            vec![
                SloTarget { percentile: 99.0, limit_us: 2000.0 },
                SloTarget { percentile: 99.9, limit_us: 10_000.0 },
                SloTarget { percentile: 50.0, limit_us: 300.0 },
            ]
        );
        assert_eq!(t[1].name(), "p99.9");
        assert_eq!(SloTarget::parse_list("p99.99=1s").unwrap()[0].limit_us, 1e6);
        assert_eq!(t[0].min_ops(), 10_000);
        assert_eq!(t[1].min_ops(), 100_000);
        for bad in ["", "p99", "p98=1ms", "99=1ms", "p99=2", "p99=-1ms", "p99=1ms,p99=2ms", "p99=2h"] {
            assert!(SloTarget::parse_list(bad).is_err(), "{bad}");
        }
    }
}
