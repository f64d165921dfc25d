//! The engine comparison of suites/splinterdb-vs-rocksdb.toml: one row per
//! config with the figures such comparisons quote, each from the step that
//! measures it: inserts/s and write-amp of the random inserts (fillrandom),
//! point and range queries/s and their storage reads per query (readrandom,
//! fwdrange), CPU per operation of each, the database's space at the end, and
//! the sync calls per commit of the inserts (ND when fewer than one).
//!
//! Shown under the summary of a run of that suite (its name starts with
//! "splinterdb-vs-"). A figure a run did not measure is "-", never 0.

use std::fmt::Write;

use crate::result::{RunResult, Status, StepResult};

pub const TITLE: &str = "engine comparison";

/// One config's row: (column, cell) pairs in column order.
pub struct Row {
    pub config: String,
    pub engine: String,
    pub cells: Vec<String>,
}

pub const COLUMNS: &[&str] = &[
    "config",
    "engine",
    "inserts/s",
    "point/s",
    "range/s",
    "w-amp debt",
    "w-amp step",
    "rpq point",
    "rpq range",
    "cpu us/op ins/pt/rng",
    "space MB",
    "syncs/commit",
];

/// Whether a run gets the comparison: a run of a "splinterdb-vs-..." suite.
pub fn applies(run: &RunResult) -> bool {
    run.suite.as_deref().is_some_and(|s| s.starts_with("splinterdb-vs-"))
}

fn step<'a>(steps: &'a [StepResult], name: &str) -> Option<&'a StepResult> {
    steps.iter().find(|s| s.name == name && s.status == Status::Completed)
}

fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.digits$}"),
        _ => "-".into(),
    }
}

/// The rows, one per config in run order.
pub fn rows(run: &RunResult) -> Vec<Row> {
    run.configs
        .iter()
        .map(|c| {
            let (ins, pt, rng) =
                (step(&c.steps, "fillrandom"), step(&c.steps, "readrandom"), step(&c.steps, "fwdrange"));
            let rpq = |s: Option<&StepResult>| s.and_then(|s| s.metrics.io.as_ref()).and_then(|io| io.rpq);
            let cpu = |s: Option<&StepResult>| num(s.and_then(|s| s.metrics.client_cpu_us_op), 2);
            // The process's own writes (/proc/self/io write_bytes, which counts libaio's) where
            // measured, else the device's.
            let wamp = ins.and_then(|s| s.metrics.write_amp_process.or(s.metrics.write_amp));
            // Through the inserts' debt: with what the flush and the compaction
            // wait after them wrote on their behalf (result::debt).
            let wamp_debt = ins.and_then(|s| s.write_debt.as_ref()).and_then(|d| d.write_amp_process.or(d.write_amp));
            let space = c.steps.iter().rev().find_map(|s| s.metrics.db_size_bytes).map(|b| b as f64 / 1e6);
            let syncs = ins.and_then(|s| s.metrics.syncs.as_ref()).map(|sm| {
                let per = num(sm.syncs_per_commit, 3);
                if sm.durable_as_run == Some(false) {
                    format!("{per} ND")
                } else {
                    per
                }
            });
            Row {
                config: c.name.clone(),
                engine: c.engine.clone(),
                cells: vec![
                    num(ins.and_then(|s| s.ops_s), 0),
                    num(pt.and_then(|s| s.ops_s), 0),
                    num(rng.and_then(|s| s.ops_s), 0),
                    num(wamp_debt, 2),
                    num(wamp, 2),
                    num(rpq(pt), 2),
                    num(rpq(rng), 2),
                    format!("{}/{}/{}", cpu(ins), cpu(pt), cpu(rng)),
                    num(space, 1),
                    syncs.unwrap_or_else(|| "-".into()),
                ],
            }
        })
        .collect()
}

/// The table as text, with what each column is from (empty when the run is not such a comparison).
pub fn text(run: &RunResult) -> String {
    if !applies(run) {
        return String::new();
    }
    let rows: Vec<Vec<String>> = rows(run).into_iter().map(|r| [vec![r.config, r.engine], r.cells].concat()).collect();
    let mut widths: Vec<usize> = COLUMNS.iter().map(|c| c.len()).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i < 2 {
                let _ = write!(s, "{c:<w$}  ");
            } else {
                let _ = write!(s, "{c:>w$}  ");
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut o = format!("{TITLE}:\n");
    o.push_str(&line(&COLUMNS.iter().map(|c| c.to_string()).collect::<Vec<_>>()));
    o.push_str(&line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>()));
    for r in &rows {
        o.push_str(&line(r));
    }
    o.push_str(
        "inserts/s and w-amp: fillrandom (w-amp: the process's storage writes, /proc/self/io write_bytes, which counts libaio's, / logical bytes; \
         w-amp debt: with the writes of the steps after it up to the next write step, the flush and the compaction wait, made on its behalf: what the inserts cost; \
         w-amp step: during the step only); \
         point/s, range/s and rpq (storage reads per query): readrandom, fwdrange; cpu: of the process per operation; \
         space: the database's size at the end; syncs/commit of the inserts, ND = not durable as run. docs/splinterdb.md says what differs between the engines.\n",
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_comparison_suite_gets_the_table_and_missing_figures_are_dashes() {
        let mut run = RunResult::starting(
            &rumbench_core::binary::Binary::UNRECORDED,
            vec![],
            None,
            Default::default(),
            None,
            vec![],
        );
        assert!(text(&run).is_empty());
        run.suite = Some("splinterdb-vs-rocksdb".into());
        assert!(applies(&run));
        let t = text(&run);
        assert!(t.starts_with("engine comparison:\nconfig"), "{t}");
        assert_eq!(num(None, 2), "-");
        assert_eq!(num(Some(f64::NAN), 2), "-");
        assert_eq!(num(Some(1.5), 1), "1.5");
    }
}
