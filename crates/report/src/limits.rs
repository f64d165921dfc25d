//! The limits view: per step, each config's ceilings (read, write, sync,
//! cpu) beside the rate they bound, and per run and config the roofline's
//! points (each step's rate) and lines (each step's ceilings). Neutral
//! tables; the formats (table.rs, html.rs) render them.

use super::summary::{StepTable, Summary};
use crate::measure::ceiling::{Ceilings, Resource};

/// The resources in column order.
pub const RESOURCES: [Resource; 4] = [Resource::Read, Resource::Write, Resource::Sync, Resource::Cpu];

/// One config in one step.
#[derive(Debug, Clone)]
pub struct LimitRow {
    pub label: String,
    /// Every operation of the step per second (the background writer's included).
    pub ops_s: f64,
    /// Per resource of `RESOURCES`: the ceiling in ops/s and how it was computed.
    pub ceilings: Vec<Option<(f64, String)>>,
    /// "read 83%", or None when nothing bounds the step.
    pub bound: Option<String>,
    pub unknown: Vec<String>,
}

fn row(label: &str, c: &Ceilings) -> LimitRow {
    LimitRow {
        label: label.to_string(),
        ops_s: c.ops_s,
        ceilings: RESOURCES
            .iter()
            .map(|r| c.ceilings.iter().find(|x| x.resource == *r).map(|x| (x.ops_s, x.basis.clone())))
            .collect(),
        bound: c.short(),
        unknown: c.unknown.clone(),
    }
}

/// The limits of one step, one row per config that has ceilings.
pub fn step_rows(step: &StepTable) -> Vec<LimitRow> {
    step.rows.iter().filter_map(|r| r.ceilings.as_ref().map(|c| row(&r.label, c))).collect()
}

/// One roofline chart: a config of a run, its steps in order.
#[derive(Debug, Clone)]
pub struct Roofline {
    pub title: String,
    pub steps: Vec<String>,
    /// (step index, rate) per step that has ceilings.
    pub rates: Vec<(usize, f64)>,
    /// Per resource of `RESOURCES`: (step index, ceiling) where it bounds the step's
    /// resource at all, left out when beyond `OFF_CHART` times the fastest rate.
    pub lines: Vec<Vec<(usize, f64)>>,
    /// Ceilings left off the chart (too high to matter).
    pub off_chart: usize,
}

/// A ceiling above this many times the chart's fastest rate is left off:
/// it does not bound anything there, and would squash the rest.
pub const OFF_CHART: f64 = 1000.0;

/// One roofline per run and config with ceilings (the steps of the summary, in order).
pub fn rooflines(s: &Summary) -> Vec<Roofline> {
    let mut out = Vec::new();
    for (ri, run) in s.runs.iter().enumerate() {
        let mut labels: Vec<&str> = Vec::new();
        for st in &s.steps {
            for r in st.rows.iter().filter(|r| r.run == ri && r.ceilings.is_some()) {
                if !labels.contains(&r.label.as_str()) {
                    labels.push(&r.label);
                }
            }
        }
        for label in labels {
            let mut chart = Roofline {
                title: if s.runs.len() > 1 { format!("{} ({})", label, run.label) } else { label.to_string() },
                steps: Vec::new(),
                rates: Vec::new(),
                lines: vec![Vec::new(); RESOURCES.len()],
                off_chart: 0,
            };
            let mut all: Vec<(usize, &Ceilings)> = Vec::new();
            for st in &s.steps {
                if let Some(c) =
                    st.rows.iter().find(|r| r.run == ri && r.label == label).and_then(|r| r.ceilings.as_ref())
                {
                    chart.steps.push(st.key.clone());
                    all.push((chart.steps.len() - 1, c));
                }
            }
            let fastest = all.iter().map(|(_, c)| c.ops_s).fold(0.0, f64::max);
            for (i, c) in all {
                if c.ops_s > 0.0 {
                    chart.rates.push((i, c.ops_s));
                }
                for (ri, res) in RESOURCES.iter().enumerate() {
                    if let Some(x) = c.ceilings.iter().find(|x| x.resource == *res) {
                        if fastest > 0.0 && x.ops_s > fastest * OFF_CHART {
                            chart.off_chart += 1;
                        } else {
                            chart.lines[ri].push((i, x.ops_s));
                        }
                    }
                }
            }
            out.push(chart);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::ceiling::Ceiling;
    use crate::result::fixtures;
    use crate::summary::NamedRun;

    #[test]
    fn rows_and_rooflines_carry_each_ceiling_and_leave_the_irrelevant_off_the_chart() {
        let mut run = fixtures::realistic_run();
        let ceiling = |resource, ops_s| Ceiling { resource, ops_s, basis: "b".into() };
        let step = &mut run.configs[0].steps[0];
        step.ceilings = Some(Ceilings {
            ops_s: 1000.0,
            ceilings: vec![ceiling(Resource::Read, 5e9), ceiling(Resource::Cpu, 2000.0)],
            bound: Some(Resource::Cpu),
            pct_of_limit: Some(50.0),
            unknown: vec!["sync: none".into()],
            warnings: vec![],
            notes: vec![],
        });
        let name = step.name.clone();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let st = s.steps.iter().find(|t| t.key == name).unwrap();
        let rows = step_rows(st);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].bound.as_deref(), Some("cpu 50%"));
        assert_eq!(rows[0].ceilings[0].as_ref().map(|c| c.0), Some(5e9));
        assert_eq!(rows[0].ceilings[1], None);
        let charts = rooflines(&s);
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].rates, vec![(0, 1000.0)]);
        assert_eq!(charts[0].lines[3], vec![(0, 2000.0)]);
        assert!(charts[0].lines[0].is_empty());
        assert_eq!(charts[0].off_chart, 1);
    }
}
