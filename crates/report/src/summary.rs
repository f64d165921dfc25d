//! The one computed summary every report format renders (HTML, markdown,
//! TSV, compare): per step, one row per run and config, each step metric with
//! its unit and direction. Nothing here is measured; everything is derived
//! from result.json, so the formats can never disagree.
//!
//! Here: the summary's rows and tables and how they are built (repeats
//! merged into medians). Its parts have files of their own, re-exported
//! here: the metric table (`metrics`), ranks and ratios (`rank`), the texts
//! beside the figures (`notes`), RocksDB's stall counters (`rocksdb_stalls`).

use serde_json::Value;

use super::exercised::{self, StepFacts};
use super::stats::median;
use crate::measure::step_metrics::MemoryPoint;
use crate::measure::{IntervalStats, LatencySummary};
use crate::result::{Outcomes, RunResult, Status, StepResult};

// The summary's parts, each in a file of its own, under the paths the formats use.
pub use super::metrics::{fmt_ratio, fmt_value, metric_index, step_values, Better, Metric, StepFigures, METRICS};
pub use super::notes::{
    device_line, environment_lines, outcome_notes, outcomes_text, parameter_texts, step_notes, MIXED_LATENCY_NOTE,
};
pub use super::rank::{rank_values, ratio, ratio_class, Base, Rank, RatioClass, RATIO_HIGH, RATIO_LOW};
pub use super::rocksdb_stalls::{parse_rocksdb_stalls, RocksStalls};

/// A background writer's figures in a step.
#[derive(Debug, Clone)]
pub struct WriterInfo {
    pub target_ops_s: Option<f64>,
    pub achieved_ops_s: f64,
    pub missed_target: bool,
    pub op: String,
    pub latency: LatencySummary,
    pub intervals: Vec<IntervalStats>,
}

/// One operation type of a step (READ, UPDATE, ... of a YCSB step).
#[derive(Debug, Clone)]
pub struct OpTypeFigures {
    pub op: String,
    pub ops: u64,
    /// None when the step has no rate (it failed, or took no time).
    pub ops_s: Option<f64>,
    pub latency: LatencySummary,
    /// None in results from before outcomes were counted.
    pub outcomes: Option<Outcomes>,
}

/// One run and config in one step.
#[derive(Debug, Clone)]
pub struct Row {
    /// Index into `Summary::runs`.
    pub run: usize,
    pub config: String,
    pub engine: String,
    pub engine_version: Option<String>,
    /// `config`, or `run/config` when the summary holds several runs.
    pub label: String,
    /// Stable position of this run/config across steps (chart colours).
    pub series: usize,
    pub status: Status,
    pub values: Vec<Option<f64>>,
    pub not_durable: bool,
    /// Whether commits were synced (None: the step committed nothing).
    pub durable: Option<bool>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
    pub started_at: String,
    /// None when nothing was measured (see StepResult::wall_s).
    pub wall_s: Option<f64>,
    pub threads: usize,
    /// The step's parameters as "name=value" (see `StepResult::parameters`).
    pub parameters: Vec<String>,
    /// Operations of the step's clients, every type.
    pub ops: u64,
    /// Each operation type, the main one first.
    pub op_types: Vec<OpTypeFigures>,
    pub main_op: Option<String>,
    pub latency: LatencySummary,
    pub intervals: Vec<IntervalStats>,
    pub writer: Option<WriterInfo>,
    pub memory: Vec<MemoryPoint>,
    /// The engine's own counters each second (`--internals`).
    pub internals: Option<crate::result::internals::EngineInternals>,
    /// The step's ceilings (None without a measured rate, or in older results).
    pub ceilings: Option<crate::measure::ceiling::Ceilings>,
    /// Every run of this config in this step: one without `--repeat`, one
    /// per round with it. `values` are then the medians over the repeats,
    /// and the other figures (latency, per-second series, notes) are those
    /// of the repeat with the median throughput.
    pub repeats: Vec<RepeatFigures>,
}

/// One repeat of a config in a step.
#[derive(Debug, Clone)]
pub struct RepeatFigures {
    /// The round (`--repeat`); None for a run without repeats.
    pub round: Option<u32>,
    pub status: Status,
    /// Every metric, in `METRICS` order (all None when the step failed).
    pub values: Vec<Option<f64>>,
    /// Coefficient of variation of the repeat's per-second ops, p99 and max
    /// (full seconds only; None with fewer than 3).
    pub cv_ops: Option<f64>,
    pub cv_p99: Option<f64>,
    pub cv_max: Option<f64>,
    /// How long the step ran.
    pub wall_s: Option<f64>,
    /// What the run recorded that says whether a compared setting could
    /// have acted in the step (`exercised`).
    pub facts: StepFacts,
}

impl Row {
    pub fn get(&self, key: &str) -> Option<f64> {
        metric_index(key).and_then(|i| self.values[i])
    }

    /// The cell of metric `mi`: its value, and for "% of limit" the bound's
    /// name before it ("read 83%"; over repeats, the median and the bound of the median repeat).
    pub fn cell_text(&self, mi: usize) -> String {
        match self.values[mi] {
            None => "-".into(),
            Some(v) if METRICS[mi].key == "limit_pct" => match self.ceilings.as_ref().and_then(|c| c.bound) {
                Some(b) => format!("{} {v:.0}%", b.name()),
                None => format!("{v:.0}%"),
            },
            Some(v) => fmt_value(v),
        }
    }

    /// Whether the row is the median of several repeats.
    pub fn repeated(&self) -> bool {
        self.repeats.len() > 1
    }

    /// The smallest and largest value of metric `mi` over the repeats that
    /// measured it (None without two such repeats).
    pub fn spread(&self, mi: usize) -> Option<(f64, f64)> {
        let v: Vec<f64> = self.repeats.iter().filter_map(|r| r.values[mi]).collect();
        (v.len() >= 2).then(|| (v.iter().cloned().fold(f64::MAX, f64::min), v.iter().cloned().fold(f64::MIN, f64::max)))
    }
}

/// One row per (run, config) of a step: the repeats of a config (rows of
/// the same run and config) become one row whose values are the medians
/// and whose other figures are the median-throughput repeat's.
fn merge_repeats(rows: Vec<Row>) -> Vec<Row> {
    let mut groups: Vec<Vec<Row>> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|g| g[0].run == r.run && g[0].config == r.config) {
            Some(g) => g.push(r),
            None => groups.push(vec![r]),
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            if g.len() == 1 {
                return g.pop().expect("one row");
            }
            let repeats: Vec<RepeatFigures> = g.iter().flat_map(|r| r.repeats.iter().cloned()).collect();
            let values: Vec<Option<f64>> = (0..METRICS.len())
                .map(|mi| median(&repeats.iter().filter_map(|r| r.values[mi]).collect::<Vec<_>>()))
                .collect();
            // The repeat whose throughput is the median (the lower middle one for an even count).
            let ops = metric_index("ops_s").expect("ops_s");
            let mut order: Vec<usize> = (0..g.len()).filter(|&i| g[i].values[ops].is_some()).collect();
            order.sort_by(|&a, &b| g[a].values[ops].unwrap_or(0.0).total_cmp(&g[b].values[ops].unwrap_or(0.0)));
            let pick = order.get(order.len().saturating_sub(1) / 2).copied().unwrap_or(0);
            let failed: Vec<String> = repeats
                .iter()
                .filter(|r| r.status != Status::Completed)
                .map(|r| {
                    format!(
                        "round {} {}",
                        r.round.map(|x| x.to_string()).unwrap_or_else(|| "?".into()),
                        format!("{:?}", r.status).to_lowercase()
                    )
                })
                .collect();
            let mut row = g.swap_remove(pick);
            let measured = repeats.iter().filter(|r| r.values[ops].is_some()).count();
            row.notes.insert(0, format!("median of {measured} repeats"));
            if !failed.is_empty() {
                row.notes.push(failed.join(", "));
            }
            // Another repeat's warnings stay visible, with their round.
            for other in &g {
                for w in &other.warnings {
                    let round =
                        other.repeats.first().and_then(|r| r.round).map(|x| format!("round {x}: ")).unwrap_or_default();
                    row.warnings.push(format!("{round}{w}"));
                }
            }
            if row.status != Status::Completed && repeats.iter().any(|r| r.status == Status::Completed) {
                row.status = Status::Completed;
            }
            row.values = values;
            row.repeats = repeats;
            row
        })
        .collect()
}

/// One step (by name; a step repeated within a config gets `name#2`, ...).
#[derive(Debug, Clone)]
pub struct StepTable {
    pub key: String,
    pub name: String,
    pub rows: Vec<Row>,
}

impl StepTable {
    /// Metrics that have a value in at least one row (the columns worth showing).
    pub fn present_metrics(&self) -> Vec<usize> {
        (0..METRICS.len()).filter(|&i| self.rows.iter().any(|r| r.values[i].is_some())).collect()
    }
    pub fn has_writer(&self) -> bool {
        self.rows.iter().any(|r| r.writer.is_some())
    }
    /// Whether a row ran more than one operation type (a mixed step: its
    /// figures per type are worth a table of their own).
    pub fn is_mixed(&self) -> bool {
        self.rows.iter().any(|r| r.op_types.len() > 1)
    }
}

#[derive(Debug, Clone)]
pub struct ConfigInfo {
    pub name: String,
    pub engine: String,
    pub engine_version: Option<String>,
    pub allocator_in_use: Option<String>,
    pub options: Vec<(String, String)>,
    pub provenance: Vec<(String, String)>,
    pub status: Status,
    pub error: Option<String>,
    /// A config sweep's options and values (`--sweep`); empty outside one.
    pub sweep: Vec<(String, String)>,
    /// Runs of the config (`--repeat`; 1 without).
    pub repeats: usize,
}

/// One entry per config of a run, its repeats folded in: the status is
/// the first repeat's that did not complete (else completed), the error
/// names its round.
fn config_infos(run: &RunResult) -> Vec<ConfigInfo> {
    let mut out: Vec<ConfigInfo> = Vec::new();
    for c in &run.configs {
        let error = c.error.as_ref().map(|e| match c.repeat {
            Some(r) => format!("round {r}: {e}"),
            None => e.clone(),
        });
        if let Some(info) = out.iter_mut().find(|i| i.name == c.name) {
            info.repeats += 1;
            if info.status == Status::Completed && c.status != Status::Completed {
                info.status = c.status;
                info.error = error;
            }
            continue;
        }
        out.push(ConfigInfo {
            name: c.name.clone(),
            engine: c.engine.clone(),
            engine_version: c.engine_version.clone(),
            allocator_in_use: c.allocator_in_use.clone(),
            options: c.options.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            provenance: c.provenance.clone(),
            status: c.status,
            error,
            sweep: c.sweep.clone(),
            repeats: 1,
        });
    }
    out
}

#[derive(Debug, Clone)]
pub struct RunInfo {
    pub label: String,
    pub dir: String,
    pub status: Status,
    pub error: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub rumbench_version: String,
    pub git_commit: Option<String>,
    pub suite: Option<String>,
    pub command_line: String,
    pub settings: Value,
    pub system: Option<Value>,
    pub warnings: Vec<String>,
    pub configs: Vec<ConfigInfo>,
    /// The hot-row grids (hotrow steps), per config.
    pub hot_grids: Vec<super::hotrow::Grid>,
    /// The SLO searches (`--slo`), per config and step.
    pub slo: Vec<super::slo::Row>,
    /// Seconds whose slowest operation stalled, with the engine's counters then.
    pub stalls: Vec<super::stalls::Row>,
    /// Concurrency sweeps, per config and swept step (repeats merged).
    pub scaling: Vec<super::concurrency::Sweep>,
    /// A crash test's durability matrix.
    pub durability: Option<super::durability::Matrix>,
    /// A merged run's shards (`rumbench merge`).
    pub shards: Option<super::shards::ShardTable>,
    /// The data dir's device and its fio baseline (or why there is none), in a line.
    pub device: Option<String>,
    /// `--profile`: the steps' CPU profiles, per config and step.
    pub profiles: Vec<super::profiles::ProfileView>,
    /// `--repeat auto`: the stopping rule's design, which widens the intervals.
    pub adaptive: Option<crate::plan::repeats::Adaptive>,
    /// `--duet`: each pair of configs ran at the same time, placed so.
    pub duet: Option<crate::plan::repeats::Placement>,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub runs: Vec<RunInfo>,
    pub steps: Vec<StepTable>,
    /// Row labels in series order (for chart legends).
    pub series: Vec<String>,
}

/// Input to the summary: a run with the label and directory it is known by.
pub struct NamedRun<'a> {
    pub label: String,
    pub dir: String,
    pub run: &'a RunResult,
}

/// Each operation type of a step with its rate over the step's wall time.
pub fn op_type_figures(s: &StepResult) -> Vec<OpTypeFigures> {
    let wall_s = s.wall_s.filter(|&w| s.ops_s.is_some() && w > 0.0);
    s.ops_by_type
        .iter()
        .map(|o| OpTypeFigures {
            op: o.op.clone(),
            ops: o.ops,
            ops_s: wall_s.map(|w| o.ops as f64 / w),
            latency: o.latency.clone(),
            outcomes: o.outcomes,
        })
        .collect()
}

/// Label runs by their directory name, made unique when two share one.
pub fn run_labels(dirs: &[String]) -> Vec<String> {
    let base: Vec<String> = dirs
        .iter()
        .map(|d| {
            let p = std::path::Path::new(d);
            let p = if p.file_name().is_some_and(|f| f == "result.json") { p.parent().unwrap_or(p) } else { p };
            p.file_name()
                .map(|f| f.to_string_lossy().to_string())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| d.clone())
        })
        .collect();
    base.iter()
        .enumerate()
        .map(|(i, b)| if base.iter().filter(|x| *x == b).count() > 1 { format!("{}:{b}", i + 1) } else { b.clone() })
        .collect()
}

impl Summary {
    pub fn build(runs: &[NamedRun]) -> Summary {
        let multi = runs.len() > 1;
        let mut steps: Vec<StepTable> = Vec::new();
        let mut series: Vec<String> = Vec::new();
        let mut infos = Vec::new();
        for (ri, nr) in runs.iter().enumerate() {
            let run = nr.run;
            infos.push(RunInfo {
                label: nr.label.clone(),
                dir: nr.dir.clone(),
                status: run.status,
                error: run.error.clone(),
                started_at: run.started_at.clone(),
                finished_at: run.finished_at.clone(),
                rumbench_version: run.rumbench_version.clone(),
                git_commit: run.git_commit.clone(),
                suite: run.suite.clone(),
                command_line: run.command_line.join(" "),
                settings: serde_json::to_value(&run.settings).unwrap_or(Value::Null),
                system: run.system.clone(),
                warnings: run.all_warnings(),
                hot_grids: super::hotrow::grids(run),
                slo: super::slo::rows(run),
                stalls: super::stalls::rows(run),
                durability: super::durability::matrix(run),
                shards: super::shards::table(run),
                device: run.device.as_ref().map(device_line),
                scaling: super::concurrency::sweeps(run),
                configs: config_infos(run),
                profiles: super::profiles::build(&nr.label, std::path::Path::new(&nr.dir), run),
                adaptive: run.adaptive.as_ref().map(|a| a.design),
                duet: run.duet.as_ref().map(|d| d.placement),
            });
            for c in &run.configs {
                let label = if multi { format!("{}/{}", nr.label, c.name) } else { c.name.clone() };
                // The repeats of a config share its series.
                let series_index = match series.iter().position(|s| *s == label) {
                    Some(i) => i,
                    None => {
                        series.push(label.clone());
                        series.len() - 1
                    }
                };
                let mut seen: Vec<&str> = Vec::new();
                for (si, s) in c.steps.iter().enumerate() {
                    let n = seen.iter().filter(|x| **x == s.name).count();
                    seen.push(&s.name);
                    let key = if n == 0 { s.name.clone() } else { format!("{}#{}", s.name, n + 1) };
                    let prev = si.checked_sub(1).map(|p| &c.steps[p]);
                    let main = s.main_op();
                    let row = Row {
                        run: ri,
                        config: c.name.clone(),
                        engine: c.engine.clone(),
                        engine_version: c.engine_version.clone(),
                        label: label.clone(),
                        series: series_index,
                        status: s.status,
                        values: step_values(s, prev),
                        not_durable: s.metrics.syncs.as_ref().is_some_and(|y| y.durable_as_run == Some(false)),
                        durable: s.metrics.syncs.as_ref().and_then(|y| y.durable_as_run),
                        notes: step_notes(s),
                        warnings: s.warnings.clone(),
                        started_at: s.started_at.clone(),
                        wall_s: s.wall_s,
                        threads: s.settings.threads,
                        parameters: parameter_texts(s),
                        ops: s.ops,
                        op_types: op_type_figures(s),
                        main_op: main.map(|o| o.op.clone()),
                        latency: main.map(|o| o.latency.clone()).unwrap_or_default(),
                        intervals: main.map(|o| o.intervals.clone()).unwrap_or_default(),
                        writer: s.writer.as_ref().map(|w| WriterInfo {
                            target_ops_s: w.target_ops_s,
                            achieved_ops_s: w.achieved_ops_s,
                            missed_target: w.missed_target,
                            op: w.latency.op.clone(),
                            latency: w.latency.latency.clone(),
                            intervals: w.latency.intervals.clone(),
                        }),
                        memory: s.metrics.memory.clone(),
                        internals: s.internals.clone(),
                        ceilings: s.ceilings.clone(),
                        repeats: Vec::new(),
                    };
                    let mut row = row;
                    row.repeats.push(repeat_figures(&row, c.repeat, StepFacts::of(s, prev, &c.engine)));
                    match steps.iter_mut().find(|t| t.key == key) {
                        Some(t) => t.rows.push(row),
                        None => steps.push(StepTable { key, name: s.name.clone(), rows: vec![row] }),
                    }
                }
            }
        }
        for st in &mut steps {
            st.rows = merge_repeats(std::mem::take(&mut st.rows));
        }
        Summary { runs: infos, steps, series }
    }

    pub fn multi_run(&self) -> bool {
        self.runs.len() > 1
    }
}

/// Rank every cell of a step per metric: the best value is rank 0; a cell is
/// Top when its rank / (n - 1) <= 0.25, Bottom when >= 0.75 (equal values
/// share the better rank). No Bottom when the worst is within 80% of the
/// best (worst/best >= 0.8 for higher-is-better, best/worst >= 0.8 for
/// lower-is-better), nothing at all when all values are equal or fewer than
/// two rows have a value. `ranks[row][metric]`.
pub fn rank_step(step: &StepTable) -> Vec<Vec<Option<Rank>>> {
    let mut out = vec![vec![None; METRICS.len()]; step.rows.len()];
    for (mi, metric) in METRICS.iter().enumerate() {
        if metric.better == Better::Neither {
            continue;
        }
        let vals: Vec<(usize, f64)> =
            step.rows.iter().enumerate().filter_map(|(ri, r)| r.values[mi].map(|v| (ri, v))).collect();
        for (ri, r) in rank_values(&vals.iter().map(|x| x.1).collect::<Vec<_>>(), metric.better).into_iter().enumerate()
        {
            out[vals[ri].0][mi] = r;
        }
    }
    out
}

impl Summary {
    /// Index of the base row for each row of a step (None: no counterpart).
    pub fn base_rows(&self, step: &StepTable, base: &Base) -> Vec<Option<usize>> {
        match base {
            Base::Row(name) => {
                let b = step
                    .rows
                    .iter()
                    .position(|r| &r.label == name)
                    .or_else(|| step.rows.iter().position(|r| &r.config == name));
                vec![b; step.rows.len()]
            }
            Base::Run(run) => {
                step.rows.iter().map(|r| step.rows.iter().position(|b| b.run == *run && b.config == r.config)).collect()
            }
        }
    }

    /// The note on row `ri` of `step` against row `bi` (its base) when a
    /// setting their configs differ in could not have acted in the step
    /// (`exercised::note`); None when every one could have.
    pub fn unexercised(&self, step: &StepTable, ri: usize, bi: usize) -> Option<String> {
        fn side<'a>(s: &'a Summary, r: &'a Row) -> Option<exercised::Side<'a>> {
            let config = s.runs.get(r.run)?.configs.iter().find(|c| c.name == r.config)?;
            Some(exercised::Side {
                engine: &r.engine,
                options: &config.options,
                facts: r.repeats.iter().map(|x| &x.facts).collect(),
            })
        }
        exercised::note(&side(self, step.rows.get(bi)?)?, &side(self, step.rows.get(ri)?)?)
    }

    /// The default base: the first config of the first run.
    pub fn default_base(&self) -> Base {
        let first = self.runs.first().and_then(|r| r.configs.first());
        match first {
            Some(c) if self.multi_run() => Base::Row(format!("{}/{}", self.runs[0].label, c.name)),
            Some(c) => Base::Row(c.name.clone()),
            None => Base::Run(0),
        }
    }

    /// Describe a base for headings.
    pub fn describe_base(&self, base: &Base) -> String {
        match base {
            Base::Row(n) => n.clone(),
            Base::Run(i) => format!("run {} (same config)", self.runs.get(*i).map(|r| r.label.as_str()).unwrap_or("?")),
        }
    }
}

/// A row's own figures as one repeat of its config.
fn repeat_figures(row: &Row, round: Option<u32>, facts: StepFacts) -> RepeatFigures {
    let full = full_second_ops(&row.intervals, row.wall_s.unwrap_or(0.0));
    let series = |f: fn(&IntervalStats) -> f64| cv(&full.iter().map(|iv| f(iv)).collect::<Vec<_>>(), 3);
    RepeatFigures {
        round,
        status: row.status,
        values: row.values.clone(),
        cv_ops: series(|iv| iv.ops as f64),
        cv_p99: series(|iv| iv.p99_us),
        cv_max: series(|iv| iv.max_us),
        wall_s: row.wall_s,
        facts,
    }
}

/// The full seconds of a step (`measure::full_seconds`: the partial last
/// second is left out, it would read as a drop).
pub fn full_second_ops(intervals: &[IntervalStats], wall_s: f64) -> Vec<&IntervalStats> {
    crate::measure::full_seconds(intervals, wall_s).collect()
}

/// Coefficient of variation (sample standard deviation / mean) of at least
/// `min_n` values; None when there are fewer or the mean is 0.
pub fn cv(xs: &[f64], min_n: usize) -> Option<f64> {
    if xs.len() < min_n.max(2) {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return None;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(var.sqrt() / mean.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficient_of_variation() {
        assert!(cv(&[10.0, 10.0, 10.0], 3).unwrap().abs() < 1e-12);
        let c = cv(&[90.0, 100.0, 110.0], 3).unwrap();
        assert!((c - 0.1).abs() < 1e-9, "{c}");
        assert!(cv(&[1.0, 2.0], 3).is_none());
    }

    #[test]
    fn full_seconds_drop_the_partial_last_one() {
        let iv = |i| IntervalStats { index: i, ops: 10, p99_us: 1.0, max_us: 2.0, histogram: None };
        let ivs = vec![iv(0), iv(1), iv(2)];
        assert_eq!(full_second_ops(&ivs, 2.4).len(), 2);
        assert_eq!(full_second_ops(&ivs, 3.0).len(), 3);
        assert_eq!(full_second_ops(&ivs, 2.995).len(), 3);
    }

    #[test]
    fn operation_types_have_their_rate_over_the_steps_wall_time() {
        use crate::result::fixtures::{op, step};
        let s = step(
            crate::plan::steps::StepKind::YcsbA,
            4.0,
            vec![op("READ", 600, 2.0, 3, 0, 0), op("UPDATE", 200, 8.0, 0, 0, 0)],
        );
        let types = op_type_figures(&s);
        assert_eq!(
            types.iter().map(|t| (t.op.as_str(), t.ops, t.ops_s)).collect::<Vec<_>>(),
            [("READ", 600, Some(150.0)), ("UPDATE", 200, Some(50.0))]
        );
        assert_eq!(outcomes_text(types[0].outcomes.as_ref()), "3 not found");
        assert_eq!(outcomes_text(types[1].outcomes.as_ref()), "all ok");
        assert_eq!(outcomes_text(None), "-");
        let mut failed = s.clone();
        failed.ops_s = None;
        assert!(op_type_figures(&failed).iter().all(|t| t.ops_s.is_none()));
    }

    #[test]
    fn rows_carry_the_steps_parameters() {
        let run = crate::result::fixtures::realistic_run();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let ycsb_a = s.steps.iter().find(|t| t.key == "ycsb-a").unwrap();
        assert!(ycsb_a.is_mixed());
        assert!(
            ycsb_a.rows[0].parameters.contains(&"request_distribution=default".to_string()),
            "{:?}",
            ycsb_a.rows[0].parameters
        );
        assert!(ycsb_a.rows[0].parameters.contains(&"threads=1".to_string()));
        assert!(!s.steps.iter().find(|t| t.key == "readrandom").unwrap().is_mixed());
        // The run's warnings and every step's, once each.
        assert_eq!(s.runs[0].warnings, run.all_warnings());
    }

    #[test]
    fn labels_are_unique() {
        assert_eq!(run_labels(&["/x/a".into(), "/y/b/result.json".into()]), vec!["a", "b"]);
        assert_eq!(run_labels(&["/x/a".into(), "/y/a".into()]), vec!["1:a", "2:a"]);
    }
}
