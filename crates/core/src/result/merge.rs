//! Shards of one run put together (`rumbench merge`): N runs made with
//! `--shard I/N` on as many machines become one run, as if one client had
//! run N times the threads.
//!
//! * Throughput: the operations all shards did inside their common window
//!   (the latest release to the earliest end) over its length, for steps
//!   that run for a duration; for steps that run to a count (a load), every
//!   shard's operations over the union (first release to last end).
//! * Latency: each operation type's histograms added (exact within
//!   HdrHistogram's precision); percentiles are never averaged.
//! * Per-second series: aligned by the wall clock at which each shard
//!   released its clients, the seconds' histograms added.
//! * Figures of one machine (device IO, write-amp, memory) are not summed
//!   across machines: they stay in each shard's own result, and say so.
//!
//! Runs that are not shards of one plan are refused: different steps,
//! configs, settings, seeds or shard counts.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::{ConfigResult, OpResult, Outcomes, ReadCounts, RunResult, Status, StepResult, StepStart};
use crate::measure::hdr_codec;
use crate::measure::os::clock::ClockSync;
use crate::measure::step_metrics::{Missing, StepMetrics};
use crate::measure::{new_histogram, IntervalStats, LatencySummary};
use crate::plan::shard::Shard;
use crate::plan::Settings;

/// What a run made with `--shard` or `--start-at` records about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRun {
    pub shard: Shard,
    /// --start-at, seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_unix_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_gap_s: Option<f64>,
    pub host: Option<String>,
    /// Whether this machine's clock was synchronized when the run started.
    pub clock: ClockSync,
}

/// A merged run's shards, and how each step's shards lined up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeInfo {
    pub shards: Vec<MergedShard>,
    pub steps: Vec<MergedStep>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedShard {
    pub index: u32,
    /// The shard's run directory as given to `rumbench merge`.
    pub dir: String,
    pub host: Option<String>,
    pub clock: ClockSync,
    pub rumbench_version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedStep {
    pub config: String,
    pub step: String,
    /// "common" (the seconds every shard was running: steps of a duration)
    /// or "union" (first release to last end: steps that run to a count).
    pub window: String,
    pub window_s: f64,
    /// Latest release less earliest, milliseconds.
    pub start_skew_ms: f64,
    pub shards: Vec<ShardStep>,
}

/// One shard's part of a step: its row in the merged run's shard table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardStep {
    pub index: u32,
    /// Released this long after the earliest shard, milliseconds.
    pub start_offset_ms: f64,
    pub wall_s: Option<f64>,
    pub ops: u64,
    pub ops_s: Option<f64>,
    /// Operations inside the merged window (prorated within its edge seconds).
    pub ops_in_window: f64,
    pub p99_us: Option<f64>,
    pub status: Status,
}

/// The settings that must agree between shards: everything but the shard.
fn plan_settings(s: &Settings) -> Settings {
    let mut s = s.clone();
    s.shard = None;
    s
}

/// Check that `runs` are the shards 0..N-1 of one plan; returns them in shard order.
pub fn check_shards(runs: Vec<(String, RunResult)>) -> Result<Vec<(String, RunResult)>> {
    if runs.len() < 2 {
        bail!("give the run directories of at least two shards (each a `rumbench run --shard I/N`)");
    }
    let mut runs = runs;
    for (dir, r) in &runs {
        if r.merged.is_some() {
            bail!("{dir} is a merged run, not a shard");
        }
        if r.settings.shard.is_none() {
            bail!("{dir} is not a shard: it was run without --shard I/N");
        }
    }
    runs.sort_by_key(|(_, r)| r.settings.shard().index);
    let count = runs[0].1.settings.shard().count;
    let indexes: Vec<u32> = runs.iter().map(|(_, r)| r.settings.shard().index).collect();
    if runs.iter().any(|(_, r)| r.settings.shard().count != count) || indexes != (0..count).collect::<Vec<_>>() {
        let given: Vec<String> = runs.iter().map(|(d, r)| format!("{d} = {}", r.settings.shard())).collect();
        bail!("not the shards 0..{} of {count}, each once: {}", count.saturating_sub(1), given.join(", "));
    }
    let (first_dir, first) = &runs[0];
    for (dir, r) in &runs[1..] {
        let differ =
            |what: &str| anyhow::anyhow!("{dir} and {first_dir} are not shards of one plan: their {what} differ");
        if plan_settings(&r.settings) != plan_settings(&first.settings) {
            return Err(differ("settings (seed, threads, counts, ...)"));
        }
        let configs = |r: &RunResult| {
            r.configs
                .iter()
                .map(|c| (c.name.clone(), c.engine.clone(), c.options.clone(), c.repeat))
                .collect::<Vec<_>>()
        };
        if configs(r) != configs(first) {
            return Err(differ("configs (names, engines, options)"));
        }
        for (a, b) in r.configs.iter().zip(&first.configs) {
            let steps = |c: &ConfigResult| {
                c.steps.iter().map(|s| (s.name.clone(), plan_settings(&s.settings))).collect::<Vec<_>>()
            };
            if steps(a) != steps(b) {
                return Err(differ(&format!(
                    "steps of config {} (names or settings; a shard that stopped early has fewer)",
                    a.name
                )));
            }
        }
        if r.sharding.as_ref().and_then(|s| s.start_at_unix_s)
            != first.sharding.as_ref().and_then(|s| s.start_at_unix_s)
        {
            return Err(differ("--start-at"));
        }
    }
    Ok(runs)
}

/// Each shard's texts (warnings, notes), tagged "shard I: ", each once.
fn tagged<'a, I: IntoIterator<Item = &'a str>>(per_shard: impl IntoIterator<Item = I>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, texts) in per_shard.into_iter().enumerate() {
        for t in texts {
            let t = format!("shard {i}: {t}");
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The worst of the shards' statuses: one that failed makes the merge failed.
fn worst(statuses: impl IntoIterator<Item = Status>) -> Status {
    let rank = |s: Status| match s {
        Status::Completed => 0,
        Status::Running => 1,
        Status::Interrupted => 2,
        Status::NotRun => 3,
        Status::Failed => 4,
    };
    statuses.into_iter().max_by_key(|&s| rank(s)).unwrap_or(Status::Completed)
}

/// Merge checked shards (in shard order) into one run.
pub fn merge(shards: &[(String, RunResult)], command_line: Vec<String>) -> Result<RunResult> {
    let first = &shards[0].1;
    let n = shards.len();
    let mut run = first.clone();
    run.command_line = command_line;
    run.started_at = shards.iter().map(|(_, r)| r.started_at.clone()).min().unwrap_or_default();
    run.finished_at = shards.iter().map(|(_, r)| r.finished_at.clone()).max().flatten();
    run.status = worst(shards.iter().map(|(_, r)| r.status));
    run.error =
        shards.iter().find_map(|(_, r)| r.error.as_ref().map(|e| format!("shard {}: {e}", r.settings.shard().index)));
    run.settings = merged_settings(&first.settings);
    run.device = None;
    run.sharding = None;
    run.warnings = tagged(shards.iter().map(|(_, r)| r.run_warnings()));
    run.warnings.push(format!(
        "merged from {n} shards: the environment shown is shard 0's; each shard's device, memory and write-amp figures are in its own result"
    ));
    for (_, r) in shards {
        if r.sharding.as_ref().is_none_or(|s| s.clock.synchronized != Some(true)) {
            run.warnings.push(format!(
                "shard {}: its clock was not known to be synchronized: its per-second series may be misaligned by the clocks' offset",
                r.settings.shard().index
            ));
        }
    }
    let mut info = MergeInfo {
        shards: shards
            .iter()
            .map(|(dir, r)| MergedShard {
                index: r.settings.shard().index,
                dir: dir.clone(),
                host: r.sharding.as_ref().and_then(|s| s.host.clone()),
                clock: r.sharding.as_ref().map(|s| s.clock.clone()).unwrap_or_default(),
                rumbench_version: r.rumbench_version.clone(),
            })
            .collect(),
        steps: Vec::new(),
    };
    for (ci, config) in run.configs.iter_mut().enumerate() {
        let parts: Vec<&ConfigResult> = shards.iter().map(|(_, r)| &r.configs[ci]).collect();
        config.status = worst(parts.iter().map(|c| c.status));
        config.error = parts.iter().enumerate().find_map(|(i, c)| c.error.as_ref().map(|e| format!("shard {i}: {e}")));
        config.engine_stats = Vec::new();
        config.scaling = Vec::new();
        config.notes = tagged(parts.iter().map(|c| c.notes.iter().map(String::as_str)));
        for si in 0..config.steps.len() {
            let steps: Vec<&StepResult> = parts.iter().map(|c| &c.steps[si]).collect();
            let (step, row) = merge_step(&steps).with_context(|| {
                let dirs: Vec<&str> = shards.iter().map(|(d, _)| d.as_str()).collect();
                format!("config {} (shards {})", config.name, dirs.join(", "))
            })?;
            info.steps.push(MergedStep { config: config.name.clone(), step: step.name.clone(), ..row });
            config.steps[si] = step;
        }
    }
    run.merged = Some(info);
    Ok(run)
}

/// The shards' profiles of each step (`--profile`), summed into the merged
/// run's directory `out_dir`: samples of different processes at one rate
/// add up, as do their operations, so a frame's CPU per operation is the
/// whole run's. A step that not every shard profiled at the same rate
/// keeps no profile and says why. `shards`: as given to [`merge`] (a
/// shard's directory or its result.json).
pub fn merge_profiles(shards: &[(String, RunResult)], run: &mut RunResult, out_dir: &std::path::Path) -> Result<()> {
    use crate::measure::profile::{self, Folded, StepProfile};
    let dir_of = |d: &str| {
        let p = std::path::Path::new(d);
        if p.is_dir() {
            p.to_path_buf()
        } else {
            p.parent().map(|p| p.to_path_buf()).unwrap_or_default()
        }
    };
    for (ci, config) in run.configs.iter_mut().enumerate() {
        for (si, step) in config.steps.iter_mut().enumerate() {
            let parts: Vec<Option<&StepProfile>> =
                shards.iter().map(|(_, r)| r.configs[ci].steps[si].profile.as_ref()).collect();
            let Some(first) = parts.iter().flatten().next() else { continue };
            if parts.iter().any(|p| p.is_none_or(|p| p.hz != first.hz)) {
                step.notes.push("not profiled: the shards' profiles are not all there at one rate, and a part of a step's CPU would say nothing of the whole".into());
                continue;
            }
            let mut stacks = std::collections::HashMap::new();
            for ((dir, _), p) in shards.iter().zip(parts.iter().flatten()) {
                let folded = profile::load(&dir_of(dir), p)
                    .with_context(|| format!("the profile of {} in shard {dir}", step.name))?;
                for (stack, n) in folded.stacks {
                    *stacks.entry(stack).or_insert(0) += n;
                }
            }
            let folded = Folded::from_map(stacks);
            folded.write_gz(&out_dir.join(&first.file))?;
            step.profile = Some(StepProfile {
                file: first.file.clone(),
                hz: first.hz,
                samples: folded.samples(),
                ops: parts.iter().flatten().map(|p| p.ops).sum(),
                unwinding: first.unwinding.clone(),
                scope: first.scope,
                by_role: folded.by_role(),
            });
        }
    }
    Ok(())
}

/// One run with N times a shard's threads: what the merged run stands for.
fn merged_settings(s: &Settings) -> Settings {
    let mut m = plan_settings(s);
    m.threads = s.global_threads() as usize;
    m
}

/// Whether a step runs for a duration (its shards' common window is the
/// measure) rather than to a count of operations or to its end.
fn runs_for_duration(s: &StepResult) -> bool {
    s.step_kind().is_some_and(|k| crate::plan::planned_seconds(k, &s.settings).is_some())
}

/// Operations of `iv` (shard released at `start`, ran `wall_s`) inside [lo, hi):
/// whole seconds exactly, the edge seconds prorated.
fn ops_within(intervals: &[IntervalStats], start: f64, wall_s: f64, lo: f64, hi: f64) -> f64 {
    intervals
        .iter()
        .map(|iv| {
            let a = start + iv.index as f64;
            let b = (a + 1.0).min(start + wall_s);
            if b <= a {
                return if a >= lo && a < hi { iv.ops as f64 } else { 0.0 };
            }
            let overlap = (b.min(hi) - a.max(lo)).max(0.0);
            iv.ops as f64 * overlap / (b - a)
        })
        .sum()
}

fn merge_step(steps: &[&StepResult]) -> Result<(StepResult, MergedStep)> {
    let first = steps[0];
    let mut m = first.clone();
    m.settings = merged_settings(&first.settings);
    // A step named by its threads (a hotrow cell, a concurrency sweep's point) is named by all shards'.
    if let Some(base) = first.sweep_of() {
        m.name = format!("{base}@t{}", m.settings.threads);
    }
    if let Some(t) = m.parameters.get_mut("threads") {
        *t = serde_json::json!(m.settings.threads);
    }
    m.status = worst(steps.iter().map(|s| s.status));
    m.error = steps.iter().enumerate().find_map(|(i, s)| s.error.as_ref().map(|e| format!("shard {i}: {e}")));
    m.ops = steps.iter().map(|s| s.ops).sum();
    m.engine_stats = Vec::new();
    m.ceilings = None;
    m.writer = None;
    m.ibench = None;
    m.engine_write_amp = None;
    m.engine_write_amp_cumulative = None;
    // The shards' profiles are summed by `merge_profiles`, which reads their files.
    m.profile = None;
    m.timed_out = steps.iter().any(|s| s.timed_out);
    m.warnings = tagged(steps.iter().map(|s| s.warnings.iter().map(String::as_str)));
    m.notes = tagged(steps.iter().map(|s| s.notes.iter().map(String::as_str)));
    if steps.iter().any(|s| s.writer.is_some()) {
        m.notes.push("each shard's background writer is in its own result (not merged)".into());
    }
    m.reads = steps.iter().filter_map(|s| s.reads.as_ref()).fold(None, |acc: Option<ReadCounts>, r| {
        let mut a = acc.unwrap_or(ReadCounts { found: 0, not_found: 0 });
        a.found += r.found;
        a.not_found += r.not_found;
        Some(a)
    });
    m.metrics = merged_metrics(steps);

    let starts: Vec<Option<f64>> = steps.iter().map(|s| s.start.map(|st| st.unix_s)).collect();
    let measured = steps.iter().all(|s| s.wall_s.is_some()) && starts.iter().all(Option::is_some);
    let mut row = MergedStep {
        config: String::new(),
        step: String::new(),
        window: "-".into(),
        window_s: 0.0,
        start_skew_ms: 0.0,
        shards: Vec::new(),
    };
    if !measured {
        // A shard measured nothing (failed, stopped, or a step without clients): no rate to merge.
        m.ops_s = None;
        m.mb_s = None;
        m.rates = None;
        m.wall_s = steps.iter().filter_map(|s| s.wall_s).reduce(f64::max);
        m.ops_by_type = merge_ops(steps, &[0.0; 0])?;
        row.shards = steps.iter().enumerate().map(|(i, s)| shard_row(i, s, 0.0, 0.0)).collect();
        return Ok((m, row));
    }
    let starts: Vec<f64> = starts.into_iter().map(Option::unwrap).collect();
    let ends: Vec<f64> = steps.iter().zip(&starts).map(|(s, st)| st + s.wall_s.unwrap_or(0.0)).collect();
    let origin = starts.iter().copied().fold(f64::INFINITY, f64::min);
    let latest_start = starts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (common_lo, common_hi) = (latest_start, ends.iter().copied().fold(f64::INFINITY, f64::min));
    let (union_lo, union_hi) = (origin, ends.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    let use_common = runs_for_duration(first) && common_hi - common_lo >= 1.0;
    let (lo, hi) = if use_common { (common_lo, common_hi) } else { (union_lo, union_hi) };
    let window_s = (hi - lo).max(1e-9);
    row.window = if use_common { "common".into() } else { "union".into() };
    if runs_for_duration(first) && !use_common {
        m.warnings.push(format!(
            "the shards ran together for {:.2} s only (less than a second): the rate is over the union of their steps",
            (common_hi - common_lo).max(0.0)
        ));
    }
    row.window_s = window_s;
    row.start_skew_ms = (latest_start - origin) * 1000.0;
    let main_op = first.main_op().map(|o| o.op.clone());
    let mut in_window = 0.0;
    for (i, s) in steps.iter().enumerate() {
        let ops = match &main_op {
            Some(name) => s
                .ops_by_type
                .iter()
                .filter(|o| &o.op == name || first.mixes_op_types())
                .map(|o| ops_within(&o.intervals, starts[i], s.wall_s.unwrap(), lo, hi))
                .sum(),
            None => 0.0,
        };
        // A step of several types counts every type's operations (its ops do).
        let ops = if use_common { ops } else { s.ops as f64 };
        in_window += ops;
        row.shards.push(shard_row(i, s, (starts[i] - origin) * 1000.0, ops));
    }
    m.wall_s = Some(window_s);
    m.ops_s = Some(in_window / window_s);
    // The bytes of the operations in the window, at the step's bytes per operation.
    let total_mb: Option<f64> = steps.iter().map(|s| Some(s.mb_s? * s.wall_s?)).sum();
    m.mb_s = total_mb.map(|mb| mb * (in_window / m.ops.max(1) as f64) / window_s);
    let offsets: Vec<f64> = starts.iter().map(|st| st - origin).collect();
    m.ops_by_type = merge_ops(steps, &offsets)?;
    m.start = Some(StepStart { unix_s: origin, scheduled_unix_s: first.start.and_then(|s| s.scheduled_unix_s) });
    m.rates = m.main_op().and_then(|o| crate::measure::rate_percentiles(&o.intervals, union_hi - union_lo));
    m.notes.push(format!(
        "merged from {} shards: ops/s over their {} window of {window_s:.2} s ({}), shards released within {:.1} ms of each other; latency from the added histograms",
        steps.len(),
        row.window,
        if use_common { "the operations inside it, prorated within its edge seconds" } else { "every shard's operations, first release to last end" },
        row.start_skew_ms
    ));
    Ok((m, row))
}

/// Shard `i`'s row (the shards are in shard order).
fn shard_row(i: usize, s: &StepResult, offset_ms: f64, in_window: f64) -> ShardStep {
    ShardStep {
        index: i as u32,
        start_offset_ms: offset_ms,
        wall_s: s.wall_s,
        ops: s.ops,
        ops_s: s.ops_s,
        ops_in_window: in_window,
        p99_us: s.step_latency().map(|l| l.p99_us),
        status: s.status,
    }
}

/// Each operation type's histograms added, and its seconds aligned by the
/// shards' release moments (`offsets`, seconds after the earliest; empty:
/// no series).
fn merge_ops(steps: &[&StepResult], offsets: &[f64]) -> Result<Vec<OpResult>> {
    let mut names: Vec<String> = Vec::new();
    for s in steps {
        for o in &s.ops_by_type {
            if !names.contains(&o.op) {
                names.push(o.op.clone());
            }
        }
    }
    let mut out = Vec::new();
    for name in names {
        let mut total = new_histogram();
        let mut ops = 0;
        let mut outcomes: Option<Outcomes> = None;
        let mut seconds: BTreeMap<u32, (u64, Option<hdrhistogram::Histogram<u64>>)> = BTreeMap::new();
        for (i, s) in steps.iter().enumerate() {
            let Some(o) = s.ops_by_type.iter().find(|o| o.op == name) else { continue };
            ops += o.ops;
            if let Some(oc) = &o.outcomes {
                outcomes.get_or_insert_with(Outcomes::default).add(oc);
            }
            let whose = |what: &str| format!("shard {i}, step {}, {name} ({what})", s.name);
            match &o.histogram {
                Some(h) => total.add(hdr_codec::decode(h).with_context(|| whose("its histogram"))?).map_err(|_| anyhow::anyhow!("{}: outside the histogram's bounds", whose("its histogram")))?,
                None if o.latency.count > 0 => bail!(
                    "shard {i}'s {} {name} has no histogram (a result from before histograms were kept): its percentiles cannot be merged",
                    s.name
                ),
                None => {}
            }
            let Some(&offset) = offsets.get(i) else { continue };
            let shift = offset.round() as u32;
            for iv in &o.intervals {
                let e = seconds.entry(iv.index + shift).or_insert((0, None));
                e.0 += iv.ops;
                if let Some(h) = &iv.histogram {
                    let second = || whose(&format!("second {}", iv.index + 1));
                    e.1.get_or_insert_with(new_histogram)
                        .add(hdr_codec::decode(h).with_context(second)?)
                        .map_err(|_| anyhow::anyhow!("{}: outside the histogram's bounds", second()))?;
                }
            }
        }
        let last = seconds.keys().next_back().map(|&k| k + 1).unwrap_or(0);
        let intervals = (0..last)
            .map(|k| {
                let (n, h) = seconds.remove(&k).unwrap_or((0, None));
                let mut iv = h.as_ref().map(IntervalStats::of).unwrap_or_default();
                iv.index = k;
                iv.ops = n;
                iv
            })
            .collect();
        out.push(OpResult {
            op: name,
            ops,
            latency: LatencySummary::from_histogram(&total),
            intervals,
            outcomes,
            histogram: (!total.is_empty()).then(|| hdr_codec::encode(&total)),
        });
    }
    Ok(out)
}

/// Figures that add up across machines (CPU per operation, weighted by each
/// shard's operations); the rest are one machine's and stay in the shards.
fn merged_metrics(steps: &[&StepResult]) -> StepMetrics {
    let weighted = |f: &dyn Fn(&StepMetrics) -> Option<f64>| -> Option<f64> {
        let ops: u64 = steps.iter().map(|s| s.ops).sum();
        let sum: Option<f64> = steps.iter().map(|s| f(&s.metrics).map(|v| v * s.ops as f64)).sum();
        sum.filter(|_| ops > 0).map(|x| x / ops as f64)
    };
    // Every metric is named here with its rule (a struct literal without
    // `..`): a metric added to StepMetrics does not compile until it has one.
    // A machine's own figures (its device, memory, syncs, space) are each
    // shard's, and stay in each shard's result.
    let per_machine =
        format!("merged from {} shards on their own machines: each shard's result has its own", steps.len());
    StepMetrics {
        io: None,
        write_amp: None,
        write_amp_process: None,
        process_read_bytes: None,
        process_write_bytes: None,
        process_cancelled_write_bytes: None,
        process_writeback_bytes: None,
        dirty_pages_synced: false,
        logical_bytes_written: steps.iter().map(|s| s.metrics.logical_bytes_written).sum(),
        db_size_bytes: None,
        live_keys: None,
        logical_live_bytes: None,
        space_amp: None,
        client_cpu_us_op: weighted(&|m| m.client_cpu_us_op),
        client_threads_cpu_us_op: weighted(&|m| m.client_threads_cpu_us_op),
        client_threads_switches_op: weighted(&|m| m.client_threads_switches_op),
        srv_cpu_us_op: weighted(&|m| m.srv_cpu_us_op),
        srv_switches_op: weighted(&|m| m.srv_switches_op),
        host_cpu_us_op: None,
        host_steal_pct: None,
        rss_peak_bytes: None,
        vsz_peak_bytes: None,
        rss_end_bytes: None,
        memory: Vec::new(),
        syncs: None,
        device_writes_by_others: false,
        device_reads_by_others: false,
        device_shared: false,
        missing: vec![Missing {
            metric: "io, write_amp, space_amp, host cpu, memory, syncs".into(),
            reason: per_machine,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Recorder;
    use crate::plan::steps::StepKind;
    use crate::result::fixtures;

    const MS: u64 = 1_000_000;

    /// A shard's readrandom: `lat` latencies (ns), one call every `gap_ms`, released at `start`.
    fn shard_step(index: u32, start: f64, lat: &[u64], gap_ms: u64) -> StepResult {
        let mut rec = Recorder::new(None);
        for (k, &l) in lat.iter().enumerate() {
            rec.record(k as u64 * gap_ms * MS + 1, l);
        }
        let wall_ns = lat.len() as u64 * gap_ms * MS;
        let merged = crate::measure::merge(vec![rec.finish()], wall_ns.div_ceil(1_000_000_000) as u32);
        let mut s =
            fixtures::step(StepKind::ReadRandom, wall_ns as f64 / 1e9, vec![OpResult::measured("get", &merged, None)]);
        s.settings.seconds = Some(wall_ns as f64 / 1e9);
        s.settings.ops = None;
        s.settings.shard = Some(Shard { index, count: 2 });
        s.start = Some(StepStart { unix_s: start, scheduled_unix_s: Some(1_800_000_000.0) });
        s
    }

    fn shard_run(index: u32, step: StepResult) -> (String, RunResult) {
        let mut c = fixtures::config("rocksdb", "rocksdb", vec![step]);
        c.options.insert("sync".into(), "false".into());
        let mut run = fixtures::run(vec![c]);
        run.settings.shard = Some(Shard { index, count: 2 });
        run.sharding = Some(ShardRun {
            shard: Shard { index, count: 2 },
            start_at_unix_s: Some(1_800_000_000.0),
            step_gap_s: Some(10.0),
            host: Some(format!("h{index}")),
            clock: ClockSync {
                synchronized: Some(true),
                est_error_us: Some(10),
                max_error_us: Some(100),
                daemon: None,
            },
        });
        (format!("shard-{index}"), run)
    }

    #[test]
    fn percentiles_are_those_of_all_operations_and_the_rate_is_over_the_common_window() {
        let t0 = 1_800_000_000.0;
        // Shard 0: 4000 calls of 10 us, one per ms (4 s); shard 1 released 2 ms later: 4000 of 1000 us.
        let a: Vec<u64> = vec![10_000; 4000];
        let b: Vec<u64> = vec![1_000_000; 4000];
        let runs =
            check_shards(vec![shard_run(1, shard_step(1, t0 + 0.002, &b, 1)), shard_run(0, shard_step(0, t0, &a, 1))])
                .unwrap();
        let merged = merge(&runs, vec!["rumbench".into(), "merge".into()]).unwrap();
        let s = &merged.configs[0].steps[0];
        assert_eq!(s.ops, 8000);
        // Half the calls are 10 us, half 1 ms: the median is the fast ones', p99 the slow ones'.
        let lat = &s.ops_by_type[0].latency;
        assert_eq!(lat.count, 8000);
        assert!((lat.p50_us - 10.0).abs() < 0.1 && (lat.p99_us - 1000.0).abs() < 1.0, "{lat:?}");
        // Common window: 3.998 s; each shard made 1000 calls/s in it.
        let info = merged.merged.as_ref().unwrap();
        assert_eq!(info.steps[0].window, "common");
        assert!((info.steps[0].window_s - 3.998).abs() < 1e-5, "{:?}", info.steps[0]);
        assert!((s.ops_s.unwrap() - 2000.0).abs() < 2.0, "{:?}", s.ops_s);
        assert!((info.steps[0].start_skew_ms - 2.0).abs() < 1e-3);
        assert_eq!(merged.settings.threads, 2);
        assert_eq!(merged.settings.shard, None);
        // Seconds aligned: 4 of them, 2000 calls each, the second's p99 the slow shard's.
        let iv = &s.ops_by_type[0].intervals;
        assert_eq!(iv.iter().map(|i| i.ops).collect::<Vec<_>>(), vec![2000; 4]);
        assert!((iv[0].p99_us - 1000.0).abs() < 1.0);
    }

    #[test]
    fn runs_that_are_not_shards_of_one_plan_are_refused() {
        let t0 = 1_800_000_000.0;
        let step = |i| shard_step(i, t0, &[10_000; 10], 1);
        assert!(check_shards(vec![shard_run(0, step(0))]).unwrap_err().to_string().contains("at least two"));
        // Two shard 0s.
        let e = check_shards(vec![shard_run(0, step(0)), shard_run(0, step(0))]).unwrap_err().to_string();
        assert!(e.contains("0..1 of 2"), "{e}");
        // Another seed.
        let (d, mut other) = shard_run(1, step(1));
        other.settings.seed = 7;
        let e = check_shards(vec![shard_run(0, step(0)), (d, other)]).unwrap_err().to_string();
        assert!(e.contains("settings"), "{e}");
        // Another option.
        let (d, mut other) = shard_run(1, step(1));
        other.configs[0].options.insert("sync".into(), "true".into());
        assert!(check_shards(vec![shard_run(0, step(0)), (d, other)]).unwrap_err().to_string().contains("configs"));
        // Another step.
        let (d, mut other) = shard_run(1, step(1));
        other.configs[0].steps[0].name = "fwdrange".into();
        assert!(check_shards(vec![shard_run(0, step(0)), (d, other)]).unwrap_err().to_string().contains("steps"));
        // Not a shard at all.
        let (d, mut other) = shard_run(1, step(1));
        other.settings.shard = None;
        assert!(check_shards(vec![shard_run(0, step(0)), (d, other)]).unwrap_err().to_string().contains("not a shard"));
    }

    #[test]
    fn a_result_without_histograms_is_not_merged_by_averaging() {
        let t0 = 1_800_000_000.0;
        let (d, mut old) = shard_run(1, shard_step(1, t0, &[10_000; 10], 1));
        old.configs[0].steps[0].ops_by_type[0].histogram = None;
        let runs = check_shards(vec![shard_run(0, shard_step(0, t0, &[10_000; 10], 1)), (d, old)]).unwrap();
        let e = format!("{:#}", merge(&runs, vec![]).unwrap_err());
        assert!(e.contains("no histogram") && e.starts_with("config rocksdb"), "{e}");
    }
}
