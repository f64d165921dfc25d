//! Throughput under latency targets (`--slo`): per config and step, the
//! highest rate that met every target, the interval the search left it in,
//! the closed loop's rate beside it, and each probe (offered rate, achieved
//! rate, each target's percentile) for the chart of the percentile against
//! the offered rate.

use crate::plan::slo::SloTarget;
use crate::result::slo::SloProbe;
use crate::result::RunResult;

pub const TITLE: &str = "throughput under latency targets (--slo)";

pub const COLUMNS: &[&str] = &["config", "step", "targets", "rate found", "interval", "closed loop", "probes", "note"];

/// One step's search.
#[derive(Debug, Clone)]
pub struct Row {
    pub config: String,
    pub step: String,
    pub targets: Vec<SloTarget>,
    pub rate: Option<f64>,
    pub met: Option<f64>,
    pub missed: Option<f64>,
    pub capacity: Option<f64>,
    pub probes: Vec<SloProbe>,
    pub no_rate: Option<String>,
}

/// The searches of a run, in config and step order (none without --slo).
pub fn rows(run: &RunResult) -> Vec<Row> {
    let mut out = Vec::new();
    for c in &run.configs {
        for s in &c.steps {
            let Some(search) = &s.slo else { continue };
            out.push(Row {
                config: c.instance_name(),
                step: s.name.clone(),
                targets: search.targets.clone(),
                rate: search.rate_ops_s,
                met: search.met_ops_s,
                missed: search.missed_ops_s,
                capacity: search.capacity_ops_s,
                probes: search.probes.clone(),
                no_rate: search.no_rate.clone(),
            });
        }
    }
    out
}

fn rate(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.0}"))
}

impl Row {
    /// The row's cells, in COLUMNS' order.
    pub fn cells(&self) -> Vec<String> {
        let targets = self.targets.iter().map(|t| format!("{} <= {} us", t.name(), t.limit_us)).collect::<Vec<_>>();
        let interval = match (self.met, self.missed) {
            (Some(lo), Some(hi)) => format!("[{lo:.0}, {hi:.0}]"),
            (Some(lo), None) => format!("[{lo:.0}, -]"),
            _ => "-".into(),
        };
        let note = match (&self.no_rate, self.missed) {
            (Some(why), _) => why.clone(),
            (None, None) if self.rate.is_some() => "met at the closed loop's rate: the targets do not bind".into(),
            _ => String::new(),
        };
        vec![
            self.config.clone(),
            self.step.clone(),
            targets.join(", "),
            rate(self.rate),
            interval,
            rate(self.capacity),
            self.probes.len().to_string(),
            note,
        ]
    }

    /// Each probe's (offered rate, the first target's percentile), offered
    /// rates only (the closed loop has none): the chart's points.
    pub fn curve(&self) -> Vec<(f64, f64)> {
        let mut pts: Vec<(f64, f64)> = self
            .probes
            .iter()
            .filter_map(|p| Some((p.offered_ops_s?, *p.percentiles_us.first()?)))
            .filter(|(_, v)| v.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    }
}

/// Under the table: what its figures mean.
pub const FOOTER: &str = "rate found: the highest offered rate (ops/s, open loop, latency from each operation's intended start) at which every percentile stayed under its limit and the clients kept up; interval: that rate and the lowest that missed; closed loop: the rate as fast as the clients go. Every probe is in result.json (slo.probes).";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_say_the_rate_its_interval_and_why_there_is_none() {
        let probe = |o: Option<f64>, p: f64| SloProbe {
            offered_ops_s: o,
            achieved_ops_s: o.unwrap_or(9000.0),
            ops: 100,
            seconds: 1.0,
            percentiles_us: vec![p],
            met: p <= 2000.0,
        };
        let row = Row {
            config: "rocksdb".into(),
            step: "readrandom".into(),
            targets: vec![SloTarget { percentile: 99.0, limit_us: 2000.0 }],
            rate: Some(7000.0),
            met: Some(7000.0),
            missed: Some(7400.0),
            capacity: Some(9000.0),
            probes: vec![
                probe(None, 9000.0),
                probe(Some(900.0), 100.0),
                probe(Some(9000.0), 50_000.0),
                probe(Some(7000.0), 1500.0),
            ],
            no_rate: None,
        };
        let c = row.cells();
        assert_eq!(c[2], "p99 <= 2000 us");
        assert_eq!((c[3].as_str(), c[4].as_str(), c[5].as_str(), c[6].as_str()), ("7000", "[7000, 7400]", "9000", "4"));
        assert_eq!(row.curve(), vec![(900.0, 100.0), (7000.0, 1500.0), (9000.0, 50_000.0)]);
        let none = Row { rate: None, met: None, missed: None, no_rate: Some("missed even unloaded".into()), ..row };
        assert_eq!(none.cells()[3], "-");
        assert_eq!(none.cells()[7], "missed even unloaded");
    }
}
