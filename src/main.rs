//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.

use rumbench::{cli, config, driver, engine, measure, report, result, runner, settings};

use std::path::PathBuf;
use std::process::ExitCode;

use rumbench::{errln, out, outln};

use anyhow::{bail, Result};
use clap::Parser;

use cli::{ChangesArgs, Cli, Command, CompareArgs, ExportArgs, ExportFormat, HistoryAction, HistoryArgs, MergeArgs, ReportArgs, RunArgs};
use config::{PlanInputs, SuiteFile};
use rumbench::settings::RunPlan;
use result::Status;

/// Exit codes: 0 success, 1 a run that failed, 2 bad input, 128 + signal
/// when a signal stopped the run (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}

fn cmd_engines(name: Option<&str>) -> Result<()> {
    let specs: Vec<&engine::EngineSpec> = match name {
        Some(n) => vec![rumbench::backend::find(n)?],
        None => rumbench::backend::registry(),
    };
    for spec in specs {
        outln!("{} - {}", spec.name, spec.description);
        if spec.options.is_empty() {
            outln!("    (no options)");
        }
        let w = spec.options.iter().map(|o| o.name.len()).max().unwrap_or(0);
        for o in spec.options {
            outln!("    {:w$}  default {:<10} {} [{}]", o.name, o.default, o.help, engine::describe_kind(o.kind));
        }
        for (preset, opts) in spec.presets {
            let list: Vec<String> = opts.iter().map(|(k, v)| format!("{k}={v}")).collect();
            outln!("    preset {}:{preset} (config {}-{preset}): {}", spec.name, spec.name, list.join(" "));
        }
        for (k, v) in (spec.build_info)() {
            outln!("    {k}: {v}");
        }
        outln!();
    }
    if name.is_none() {
        for l in engine::left_out() {
            outln!("{} - {}: not in this build; make a build with it: {}", l.name, l.description, l.how_to_build);
            outln!();
        }
    }
    Ok(())
}

fn cmd_sysinfo(data_dir: &std::path::Path, json: bool) -> Result<()> {
    use measure::os::sysinfo::{warnings, SystemInfo};
    let info = SystemInfo::capture(Some(data_dir));
    let value = serde_json::to_value(&info)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        report::sysinfo_text::print(&value);
    }
    for w in warnings(&info) {
        outln!("warning: {w}");
    }
    Ok(())
}

/// `rumbench device`: the storage's own capability, measured with fio.
struct DeviceArgs {
    dir: PathBuf,
    size: String,
    runtime: u64,
    json: bool,
    remeasure: bool,
    history: Option<PathBuf>,
    no_history: bool,
}

/// `rumbench device`: the stored baseline of the device under --dir when one
/// is under a week old, else (or with --remeasure) one measured now and stored.
fn cmd_device(a: DeviceArgs) -> Result<ExitCode> {
    use rumbench::measure::device_baseline::{key_of, StoredBaseline};
    use rumbench::runner::device::{self, Store};
    let file_bytes = rumbench::settings::parse_size(&a.size).filter(|&b| b >= 1 << 20).ok_or_else(|| anyhow::anyhow!("--size {}: expected a size of at least 1M, such as 4G", a.size))?;
    if !a.dir.is_dir() {
        anyhow::bail!("--dir {}: not a directory", a.dir.display());
    }
    let store = Store::new(a.history.as_deref(), !a.no_history);
    if let Some(p) = store.path.as_ref().filter(|_| store.write) {
        report::history::check_recordable(p)?;
    }
    let (key, dev) = key_of(&a.dir)?;
    let now = chrono::Local::now().fixed_offset();
    let stored = match (a.remeasure || a.no_history, store.latest(&key)) {
        (true, _) => None,
        (false, Ok(s)) => s.filter(|b| b.is_fresh(now)),
        (false, Err(e)) => {
            errln!("warning: the history's device baselines are unreadable: {}", one_line(&e));
            None
        }
    };
    let (baseline, source): (StoredBaseline, String) = match stored {
        Some(b) => {
            let age = b.age_days(now).map(|d| format!("{:.1} days ago", d)).unwrap_or_default();
            (b, format!("stored {age}; --remeasure measures again"))
        }
        None => {
            errln!(
                "measuring {} with fio: {} MB test file, {} s per job, {} jobs ...",
                a.dir.display(),
                file_bytes >> 20,
                a.runtime,
                measure::fio::QUEUE_DEPTHS.len() * measure::fio::READ_BLOCK_SIZES.len() + 3
            );
            // A stop (Ctrl-C, SIGTERM, a closed terminal) ends fio and removes its files.
            install_signal_handlers(true);
            match device::measure_and_store(&a.dir, file_bytes, a.runtime, &store) {
                Ok((b, stored)) => (b, format!("measured now, {stored}")),
                Err(e) => {
                    errln!("rumbench: error: {}", one_line(&e));
                    let stopped = driver::stop::stop_requested();
                    return Ok(ExitCode::from(if stopped { interrupted_exit_code() } else { EXIT_FAILED }));
                }
            }
        }
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&serde_json::json!({ "device": dev, "source": source, "baseline": baseline }))?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{}: {}", a.dir.display(), baseline.device_key);
    if let Some(why) = &dev.io_not_meaningful {
        outln!("warning: {why}: these figures are not a device's");
    }
    let f = &baseline.fio;
    outln!("{} ({} MB file, {} s per job), measured {} in {} ({source})", f.fio_version, f.file_bytes >> 20, f.runtime_s, baseline.measured_at, baseline.dir.display());
    outln!();
    let us = |v: Option<f64>| v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into());
    outln!("random reads, O_DIRECT   IOPS     p50 us    p99 us");
    for p in &f.random_reads {
        outln!("  {:>2} KB, depth {:>2}  {:>10.0}  {:>8}  {:>8}", p.block_bytes / 1024, p.queue_depth, p.iops, us(p.p50_us), us(p.p99_us));
    }
    outln!();
    outln!("sequential writes, 1 MB, O_DIRECT, depth 4: {:.0} MB/s", f.seq_write_mb_s);
    outln!("random writes, 4 KB, O_DIRECT, depth 4: {:.0} IOPS", f.random_write_4k_iops);
    outln!("4 KB write + fdatasync: {:.0}/s (fdatasync p50 {} us, p99 {} us)", f.fdatasync_per_s, us(f.fdatasync_p50_us), us(f.fdatasync_p99_us));
    Ok(ExitCode::SUCCESS)
}

/// `rumbench rocksdb-versions`: each version, its crate, whether it is
/// built for this source, and what it lacks; `--build` builds now.
fn cmd_rocksdb_versions(build: &[String]) -> Result<ExitCode> {
    use rumbench::engine::{rocksdb_build, rocksdb_versions};
    let releases: Vec<&rocksdb_versions::Release> = build.iter().map(|v| rocksdb_versions::resolve(v)).collect::<Result<_>>()?;
    if !releases.is_empty() {
        install_signal_handlers(true);
        for r in releases {
            if let Err(e) = rocksdb_build::ensure(r) {
                errln!("rumbench: error: {}", one_line(&e));
                return Ok(ExitCode::from(if driver::stop::stop_requested() { interrupted_exit_code() } else { EXIT_FAILED }));
            }
        }
    }
    outln!("{:8}  {:15}  {:10}  {}", "version", "librocksdb-sys", "build", "lacks");
    for r in rocksdb_versions::RELEASES {
        let state = if r.is_built_in() {
            "built in".to_string()
        } else {
            match rocksdb_build::cached(r) {
                Ok(Some(_)) => "cached".into(),
                Ok(None) => "not built".into(),
                Err(e) => format!("? ({})", one_line(&e)),
            }
        };
        let lacks = r.lacks().iter().map(|l| l.split(':').next().unwrap_or(l).to_string()).collect::<Vec<_>>().join("; ");
        outln!("{:8}  {:15}  {:10}  {}", r.version, r.crate_version, state, if lacks.is_empty() { "-".into() } else { lacks });
    }
    outln!("cache: {}", rocksdb_build::cache_root().map(|p| p.display().to_string()).unwrap_or_else(|e| one_line(&e)));
    Ok(ExitCode::SUCCESS)
}

/// Write (or with `check`, compare) every RocksDB version's manifest.
fn cmd_rocksdb_manifests(root: Option<PathBuf>, check: bool) -> Result<ExitCode> {
    use rumbench::engine::rocksdb_versions;
    let root = root.unwrap_or_else(|| PathBuf::from(rumbench::engine::rocksdb_build::SOURCE_ROOT));
    let stale = rocksdb_versions::stale_manifests(&root)?;
    if check {
        if !stale.is_empty() {
            bail!("out of date (run scripts/rocksdb-versions.sh): {}", stale.iter().map(|(p, _)| p.display().to_string()).collect::<Vec<_>>().join(", "));
        }
    } else {
        for (path, text) in stale {
            std::fs::create_dir_all(path.parent().expect("a dir"))?;
            std::fs::write(&path, text)?;
            outln!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_crashtest(a: rumbench::cli::CrashtestArgs) -> Result<ExitCode> {
    use rumbench::crashtest;
    let suite = a.config.as_deref().map(SuiteFile::load).transpose()?;
    let plan = RunPlan::build(&PlanInputs {
        suite,
        engines: a.engine.clone(),
        targets: Vec::new(),
        options: a.options.clone(),
        sweeps: a.sweeps.clone(),
        flags: Default::default(),
        repeat: None,
    })?;
    for c in &plan.configs {
        crashtest::check_config(c)?;
    }
    let default_base = a.output_dir.is_none().then(config::default_output_dir);
    let output_dir = match (&a.output_dir, &default_base) {
        (Some(dir), _) => dir.clone(),
        (None, Some(base)) => runner::dirs::free_name(base),
        (None, None) => unreachable!(),
    };
    let seed = a.seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
    let opts = crashtest::Options {
        crashes: a.crashes,
        threads: a.threads,
        value_size: a.value_size,
        kill_after_ms: a.kill_after,
        seed,
        work_root: a.db_dir.clone().unwrap_or_else(|| output_dir.join("db")),
        keep: a.keep_db,
        semantics: match a.fs_semantics {
            rumbench::cli::FsSemantics::Posix => rumbench::lazyfs::Semantics::Posix,
            rumbench::cli::FsSemantics::Journaled => rumbench::lazyfs::Semantics::Journaled,
        },
    };
    crashtest::check_options(&opts)?;
    runner::dirs::check_output_dir(&output_dir, a.replace_output)?;
    if let Some(db_dir) = &a.db_dir {
        runner::dirs::check_apart(&output_dir, db_dir)?;
    }
    crashtest::preflight(&plan.configs, &opts)?;
    let output_dir = match &default_base {
        Some(base) => runner::dirs::claim_new_dir(base)?,
        None => output_dir,
    };
    install_signal_handlers(true);
    errln!("crash test: {} (seed {seed})", rumbench::result::crashtest::NOT_A_BENCHMARK);
    let command_line = std::env::args().collect();
    let run = match crashtest::execute(&plan.configs, &opts, &output_dir, a.replace_output, command_line) {
        Ok(r) => r,
        Err(e) => {
            errln!("rumbench: error: {}", one_line(&e));
            return Ok(ExitCode::from(if driver::stop::stop_requested() { interrupted_exit_code() } else { EXIT_FAILED }));
        }
    };
    let report_written = report::write_run_html(&output_dir, &run);
    outln!();
    outln!("{}", report::table::durability_text(&run).trim_end_matches('\n'));
    outln!();
    outln!("results: {}", output_dir.display());
    match report_written {
        Ok(path) => outln!("report: {}", path.display()),
        Err(e) => errln!("warning: cannot write the HTML report: {}", one_line(&e)),
    }
    let lossy = run.crashtest.iter().flat_map(|t| &t.configs).filter(|c| c.totals.lost + c.totals.wrong_values + c.totals.never_written > 0).count();
    match run.status {
        Status::Interrupted => {
            errln!("rumbench: {}; results measured so far are in {}", run.error.as_deref().unwrap_or("interrupted"), output_dir.display());
            Ok(ExitCode::from(interrupted_exit_code()))
        }
        Status::Failed => {
            errln!("rumbench: error: {}", run.error.as_deref().unwrap_or("crash test failed"));
            Ok(ExitCode::from(EXIT_FAILED))
        }
        _ if a.fail_on_loss && lossy > 0 => {
            errln!("rumbench: {lossy} config{} lost acknowledged commits or gave wrong records back", if lossy == 1 { "" } else { "s" });
            Ok(ExitCode::from(EXIT_FAILED))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn cmd_steps() {
    for (_, name, what) in settings::steps::STEPS {
        outln!("{name:22} {what}");
    }
}

fn cmd_run(args: RunArgs) -> Result<ExitCode> {
    let suite = args.config.as_deref().map(SuiteFile::load).transpose()?;
    let plan = RunPlan::build(&PlanInputs {
        suite,
        engines: args.engine.clone(),
        targets: args.target.clone(),
        options: args.options.clone(),
        sweeps: args.sweeps.clone(),
        flags: args.settings.clone(),
        repeat: args.repeat,
    })?;
    let mut plan = plan;
    let schedule = runner::check_sharding(&mut plan, args.shard, args.start_at, args.step_gap)?;
    runner::check_plan(&plan)?;
    driver::progress::set_mode(args.progress);
    // Without --output-dir: results/<time>, or <time>-2, ... when another run
    // started in the same second (claimed atomically once the checks pass).
    let default_base = args.output_dir.is_none().then(config::default_output_dir);
    let output_dir = match (&args.output_dir, &default_base) {
        (Some(dir), _) => dir.clone(),
        (None, Some(base)) => runner::dirs::free_name(base),
        (None, None) => unreachable!(),
    };
    let mut opts = runner::RunOptions {
        output_dir,
        db_dir: args.db_dir.clone(),
        keep_db: args.keep_db,
        use_existing_db: args.use_existing_db,
        replace_output: args.replace_output,
        // Recorded in the results: never a target's password.
        command_line: std::env::args().map(|a| rumbench::server::endpoint::redact_in(&a)).collect(),
        progress: args.progress,
        device: Default::default(),
        schedule,
    };
    // A --history that is not rumbench's is bad input, refused before anything runs.
    if !args.no_history {
        if let Ok(path) = report::history::resolve_path(args.history.as_deref()) {
            report::history::check_recordable(&path)?;
        }
    }
    if args.device_baseline {
        if plan.configs.iter().all(|c| c.is_target()) {
            bail!("--device-baseline: every config is a server rumbench did not start (--target): its device cannot be measured from here");
        }
        anyhow::Context::context(measure::fio::which_fio(), "--device-baseline")?;
    }
    // Everything that can be known before a step runs: exit 2, nothing written.
    runner::preflight(&plan, &opts)?;
    if let Some(base) = &default_base {
        opts.output_dir = runner::dirs::claim_new_dir(base)?;
    }
    let output_dir = opts.output_dir.clone();
    // Claimed but not used yet: an error before the run leaves nothing behind.
    let unclaim = || {
        if default_base.is_some() {
            let _ = std::fs::remove_dir(&output_dir);
        }
    };
    // PostgreSQL versions: fetched once (cached); a failed fetch is not bad input.
    if let Err(e) = config::fetch_server_versions(&plan) {
        unclaim();
        errln!("rumbench: error: {}", one_line(&e));
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    install_signal_handlers(true);
    // RocksDB versions: built once from this source (cached); a failed build is not bad input.
    match config::build_engine_versions(&plan) {
        Ok(notes) => notes.iter().for_each(|n| errln!("note: {n}")),
        Err(e) => {
            unclaim();
            errln!("rumbench: error: {}", one_line(&e));
            return Ok(ExitCode::from(if driver::stop::stop_requested() { interrupted_exit_code() } else { EXIT_FAILED }));
        }
    }
    // The device baseline the steps' ceilings use (measured first with --device-baseline).
    if plan.configs.iter().all(|c| c.is_target()) {
        opts.device = runner::device::for_target();
    } else {
        let store = runner::device::Store::new(args.history.as_deref(), !args.no_history);
        match runner::device::for_run(&opts.db_root(), &store, args.device_baseline) {
            Ok(ctx) => {
                if let Some(why) = &ctx.missing {
                    errln!("note: the steps' read, write and sync ceilings are unknown: {why}");
                }
                opts.device = ctx;
            }
            Err(e) => {
                unclaim();
                errln!("rumbench: error: --device-baseline: {}", one_line(&e));
                return Ok(ExitCode::from(if driver::stop::stop_requested() { interrupted_exit_code() } else { EXIT_FAILED }));
            }
        }
    }

    let server_warnings = config::check_server_settings(&mut plan).inspect_err(|_| unclaim())?;
    for line in server_warnings {
        errln!("warning: {line}");
    }
    let run = match runner::run(&plan, &opts) {
        Ok(run) => run,
        // Past the checks above, a failure to run is not bad input.
        Err(e) => {
            errln!("rumbench: error: {}", one_line(&e));
            return Ok(ExitCode::from(EXIT_FAILED));
        }
    };
    // Files first, so that a terminal that went away (SIGHUP) loses nothing.
    let report_written = report::write_run_html(&output_dir, &run);
    let history = (!args.no_history).then(|| record_history(args.history.as_deref(), &output_dir, &run));
    // Step warnings were printed under their steps as they ran; what is
    // left to say is the run's own (environment, build, servers).
    for w in run.run_warnings() {
        errln!("warning: {w}");
    }
    match run.step_warnings().count() {
        0 => {}
        1 => errln!("1 step warning was printed above with its step; report.html lists every warning"),
        n => errln!("{n} step warnings were printed above with their steps; report.html lists every warning"),
    }
    let columns = if args.all_columns { report::table::Columns::All } else { report::table::Columns::Compact };
    outln!();
    outln!("{}", report::table::render_summary(&run, columns).trim_end_matches('\n'));
    outln!();
    let grids = report::table::hotrow_text(&run);
    if !grids.is_empty() {
        outln!("{grids}");
    }
    let sweeps = report::scaling::render(&run);
    if !sweeps.is_empty() {
        outln!("{sweeps}");
    }
    match history {
        // The history is an index over result directories: failing to record only warns.
        Some(Ok((id, path))) => outln!("history: run #{id} in {}", path.display()),
        Some(Err(e)) => errln!("warning: not recorded in the history: {}", one_line(&e)),
        None => {}
    }
    outln!("results: {}", output_dir.display());
    match report_written {
        Ok(path) => outln!("report: {}", path.display()),
        Err(e) => errln!("warning: cannot write the HTML report: {}", one_line(&e)),
    }
    match run.status {
        Status::Completed => Ok(ExitCode::SUCCESS),
        Status::Interrupted => {
            errln!("rumbench: {}; results measured so far are in {}", run.error.as_deref().unwrap_or("interrupted"), output_dir.display());
            Ok(ExitCode::from(interrupted_exit_code()))
        }
        _ => {
            errln!("rumbench: error: {}", run.error.as_deref().unwrap_or("run failed"));
            Ok(ExitCode::from(EXIT_FAILED))
        }
    }
}

/// 128 + the signal that stopped the run, as shells report it (130 for SIGINT).
fn interrupted_exit_code() -> u8 {
    128u8.saturating_add(driver::stop::stop_signal().unwrap_or(libc::SIGINT) as u8)
}

fn record_history(explicit: Option<&std::path::Path>, dir: &std::path::Path, run: &result::RunResult) -> Result<(i64, std::path::PathBuf)> {
    let path = report::history::resolve_path(explicit)?;
    let mut h = report::history::History::open(&path)?;
    Ok((h.record(dir, run)?, path))
}

fn cmd_report(a: ReportArgs) -> Result<ExitCode> {
    let runs = report::load_runs(&a.runs, a.history.as_deref())?;
    let out = match a.output {
        Some(p) => p,
        None if runs.len() == 1 => runs[0].dir.join("report.html"),
        None => std::path::PathBuf::from("report.html"),
    };
    // A run's own report.html is the report's to rewrite; its other files are not.
    const REPORT_MAY_REWRITE: &[&str] = &["report.html"];
    report::output::check_user_file(&out, REPORT_MAY_REWRITE)?;
    let text = report::render_html(&runs, a.base.as_deref(), a.title)?;
    if let Err(e) = report::output::write_user_file(&out, text.as_bytes(), REPORT_MAY_REWRITE) {
        errln!("rumbench: error: {}", one_line(&e));
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    outln!("report: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn cmd_compare(a: CompareArgs) -> Result<ExitCode> {
    use report::compare::{self, Group, Verdict};
    let mut groups = Vec::new();
    for arg in &a.runs {
        let members: Vec<String> = arg.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        if members.is_empty() {
            bail!("compare: {arg:?} names no run (give run directories, result.json files or history ids; DIR1,DIR2 groups repeats)");
        }
        let mut runs = Vec::new();
        for m in &members {
            let (dir, run) = report::load_one(m, a.history.as_deref())?;
            runs.push((dir.display().to_string(), run));
        }
        groups.push((runs, members));
    }
    let labels = report::summary::run_labels(&groups.iter().map(|(r, _)| r[0].0.clone()).collect::<Vec<_>>());
    let groups: Vec<Group> = groups
        .into_iter()
        .zip(labels)
        .map(|((runs, members), label)| Group { label: if members.len() > 1 { format!("{label}(x{})", members.len()) } else { label }, runs })
        .collect();
    let opts = compare::Options { threshold: a.threshold, metrics: (!a.metrics.is_empty()).then(|| a.metrics.clone()) };
    let c = compare::compare(&groups, &opts)?;
    for g in &groups {
        outln!("{}: {}", g.label, g.runs.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(", "));
    }
    out!("{}", report::compare_text::render(&c));
    let regressions = c.count(Verdict::Regression);
    if a.fail_on_regression && regressions > 0 {
        errln!("rumbench: {regressions} regression{} (confidence interval wholly beyond the threshold)", if regressions == 1 { "" } else { "s" });
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_history(a: HistoryArgs) -> Result<ExitCode> {
    use report::history::{self, Filter, History};
    let path = history::resolve_path(a.history.as_deref())?;
    match a.action {
        Some(HistoryAction::Rebuild { dirs }) => {
            let mut h = History::open(&path)?;
            let r = h.rebuild(&dirs)?;
            for s in &r.skipped {
                errln!("warning: skipped {s}");
            }
            outln!("history: {} runs indexed, {} entries removed, {} runs in {}", r.recorded, r.removed, h.count()?, path.display());
        }
        Some(HistoryAction::Changes(c)) => return cmd_history_changes(&History::open_read_only(&path)?, c),
        None => {
            let h = History::open_read_only(&path)?;
            let f = Filter { engine: a.engine, version: a.version, step: a.step.clone(), config: a.config, since: a.since, until: a.until };
            let entries = h.list(&f)?;
            if entries.is_empty() {
                outln!("no runs match (history: {})", path.display());
            } else {
                out!("{}", history::render_list(&entries, a.step.as_deref()));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_history_changes(h: &report::history::History, a: ChangesArgs) -> Result<ExitCode> {
    use report::summary::METRICS;
    let mut metrics: Vec<&'static str> = Vec::new();
    for m in &a.metric {
        match METRICS.iter().find(|x| x.key == m.trim()) {
            Some(x) => metrics.push(x.key),
            None => bail!("unknown metric '{m}' (one of: {})", METRICS.iter().map(|x| x.key).collect::<Vec<_>>().join(", ")),
        }
    }
    let f = report::history::Filter { engine: a.engine, step: a.step, config: a.config, since: a.since, until: a.until, version: None };
    let (series, skipped) = h.series(&f, &metrics)?;
    for s in &skipped {
        errln!("warning: skipped run {s}");
    }
    let o = report::changes::Options { min_change: a.min_change, significance: a.significance, ..Default::default() };
    let (text, _) = report::history::render_changes(&series, &o);
    out!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `rumbench merge`: the shards' results as one run, in a directory of its own.
fn cmd_merge(a: MergeArgs) -> Result<ExitCode> {
    let mut runs = Vec::new();
    for dir in &a.dirs {
        let file = if dir.is_dir() { dir.join("result.json") } else { dir.clone() };
        runs.push((dir.display().to_string(), rumbench::result::load(&file)?));
    }
    // The merge goes beside its inputs, never over one (or over a dir holding one).
    if let Ok(out) = std::fs::canonicalize(&a.output_dir) {
        for dir in &a.dirs {
            let input = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            let input_dir = if input.is_dir() { input.clone() } else { input.parent().map(PathBuf::from).unwrap_or_default() };
            if input_dir.starts_with(&out) {
                bail!("--output-dir {} holds the shard {} that is merged: the merge goes into a directory of its own", a.output_dir.display(), dir.display());
            }
        }
    }
    // --replace-output replaces an earlier merge, not a run of another kind.
    let earlier = a.output_dir.join("result.json");
    if a.replace_output && earlier.is_file() {
        match rumbench::result::load(&earlier) {
            Ok(r) if r.merged.is_some() => {}
            Ok(_) => bail!("--output-dir {} holds a run that is not a merge: --replace-output replaces only an earlier merge", a.output_dir.display()),
            Err(_) => {}
        }
    }
    let shards = rumbench::result::merge::check_shards(runs)?;
    runner::dirs::check_output_dir(&a.output_dir, a.replace_output)?;
    let command_line = std::env::args().collect();
    let merged = rumbench::result::merge::merge(&shards, command_line)?;
    let _lock = runner::dirs::prepare_output_dir(&a.output_dir, a.replace_output)?;
    report::write_all(&merged, &a.output_dir)?;
    let report_path = report::write_run_html(&a.output_dir, &merged)?;
    for w in merged.all_warnings() {
        errln!("warning: {w}");
    }
    outln!("{}", report::table::render_summary(&merged, report::table::Columns::Compact).trim_end_matches('\n'));
    let shards_table = report::table::shards_text(&merged);
    if !shards_table.is_empty() {
        outln!();
        outln!("{}", shards_table.trim_end_matches('\n'));
    }
    outln!();
    outln!("results: {}", a.output_dir.display());
    outln!("report: {}", report_path.display());
    Ok(if merged.status == rumbench::result::Status::Completed { ExitCode::SUCCESS } else { ExitCode::from(EXIT_FAILED) })
}

fn cmd_export(a: ExportArgs) -> Result<ExitCode> {
    use report::Exporter;
    if let Some(p) = &a.output {
        report::output::check_user_file(p, &[])?;
    }
    let runs = report::load_runs(&a.runs, a.history.as_deref())?;
    let text = match a.format {
        ExportFormat::Markdown => {
            let s = report::summarize(&runs);
            let base = report::parse_base(a.base.as_deref(), &runs, &s)?;
            report::markdown::render(&s, &base)
        }
        ExportFormat::Tsv => report::tsv::render(&report::summarize(&runs)),
        ExportFormat::HdrLog if runs.len() == 1 => report::hlog::render(&runs[0].run)?,
        ExportFormat::HdrLog => anyhow::bail!("--format hdr-log takes one run (an interval log is one timeline)"),
        ExportFormat::Csv if runs.len() == 1 => report::csv::IntervalsCsv.render(&runs[0].run)?,
        ExportFormat::Csv => {
            let mut out = format!("run,{}\n", report::csv::HEADER);
            for r in &runs {
                for line in report::csv::IntervalsCsv.render(&r.run)?.lines().skip(1) {
                    out.push_str(&format!("{},{line}\n", r.label));
                }
            }
            out
        }
    };
    match a.output {
        Some(p) => {
            // Past the checks: a write that fails (a full disk, /dev/full) is not bad input.
            if let Err(e) = report::output::write_user_file(&p, text.as_bytes(), &[]) {
                errln!("rumbench: error: {}", one_line(&e));
                return Ok(ExitCode::from(EXIT_FAILED));
            }
            errln!("wrote {}", p.display());
        }
        None => out!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// SIGINT, SIGTERM and SIGHUP (Ctrl-C, `timeout`/systemd, a closed
/// terminal) all stop the run the same way: the running step winds down and
/// is marked interrupted, servers are stopped, every result is written, and
/// the exit code is 128 + the signal. The same signal again within a second
/// is a duplicate (`timeout` sends two); later, it means "exit now": the
/// config process stops its servers and exits at once, and the main process
/// records what that left (it is never stuck itself, so it does not exit early).
/// `announce`: say what happens (the parent does; its config processes stay quiet).
fn install_signal_handlers(announce: bool) {
    use driver::stop::StopRequest;
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR2};
    debug_assert_eq!(SIGUSR2, runner::PARENT_DIED_SIGNAL);
    // Only a config process is told of its parent's death.
    let handled: &[i32] = if announce { &[SIGINT, SIGTERM, SIGHUP] } else { &[SIGINT, SIGTERM, SIGHUP, SIGUSR2] };
    if announce {
        // A hung-up terminal stops the run at once, in a background process group too.
        rumbench::console::watch_terminal();
    }
    let mut signals = match signal_hook::iterator::Signals::new(handled) {
        Ok(s) => s,
        Err(e) => {
            errln!("warning: cannot handle signals: {e}");
            return;
        }
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if sig == runner::PARENT_DIED_SIGNAL {
                // A config process whose main process died. The kernel sends
                // this once per thread of the dead parent, so it never escalates.
                driver::stop::request_stop(SIGTERM);
                continue;
            }
            if sig == SIGHUP {
                rumbench::console::detach_terminal();
            }
            let request = driver::stop::request_stop(sig);
            if request != StopRequest::Repeat {
                runner::forward_signal(sig);
            }
            match (request, announce) {
                (StopRequest::Repeat, _) => {}
                (StopRequest::First, true) => {
                    let again = if sig == SIGINT { "Ctrl-C" } else { "the signal" };
                    errln!("\nrumbench: {}: stopping after the current operations ({again} again to exit at once)", driver::stop::signal_name(sig));
                }
                (StopRequest::First, false) => {}
                (StopRequest::Again, true) => errln!("\nrumbench: {} again: stopping the config process at once", driver::stop::signal_name(sig)),
                (StopRequest::Again, false) => {
                    // The user does not want to wait for the step to wind down.
                    errln!("rumbench: config process: {} again, stopping its servers and exiting now", driver::stop::signal_name(sig));
                    // exit() runs no destructors: stop the database servers this process started.
                    rumbench::server::stop_all_servers();
                    std::process::exit(runner::CHILD_STOPPED_AT_ONCE as i32);
                }
            }
        }
    });
}

/// Standard output or error went away (a closed pipe, a hung-up terminal):
/// stop as on a closed terminal, in the config process too.
fn output_lost(sig: i32) {
    if driver::stop::request_stop(sig) == driver::stop::StopRequest::First {
        runner::forward_signal(libc::SIGHUP);
    }
}

fn main() -> ExitCode {
    rumbench::console::on_lost(output_lost);
    let (code, own_outcome) = run_command();
    // A config or crash-test child's exit code is its own outcome, which
    // the main process reads; the stream it lost is the main process's to report.
    if own_outcome {
        return code;
    }
    // Output cut short (`rumbench engines | head`): 128 + SIGPIPE, as for any
    // writer whose reader went away; a run already says how it ended.
    if let Some(sig) = rumbench::console::lost().filter(|_| code == ExitCode::SUCCESS) {
        return ExitCode::from(128 + sig as u8);
    }
    // Output that could not be written (a full disk): not a success. Said on
    // standard error, which may be the stream that failed.
    match rumbench::console::write_failure() {
        Some(why) => {
            let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("rumbench: error: {why}\n").as_bytes());
            if code == ExitCode::SUCCESS {
                ExitCode::from(EXIT_FAILED)
            } else {
                code
            }
        }
        None => code,
    }
}

/// Clap's error in one line: its first paragraph, whose later lines name
/// what it is about ("the following required arguments were not provided:
/// --start-at <TIME>"), without the usage and help lines after it.
fn usage_error_line(text: &str) -> String {
    let paragraph: Vec<&str> = text.lines().skip_while(|l| l.trim().is_empty()).take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    let line = paragraph.join(" ");
    let line = line.trim_start_matches("error: ");
    if line.is_empty() {
        "invalid arguments".into()
    } else {
        line.to_string()
    }
}

/// The command's exit code, and whether it is a child's outcome that a lost
/// or failed output stream must not change.
fn run_command() -> (ExitCode, bool) {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to stdout with success; usage errors are one line.
            if !e.use_stderr() {
                let _ = e.print();
                return (ExitCode::SUCCESS, false);
            }
            errln!("rumbench: error: {} (see rumbench --help)", usage_error_line(&e.to_string()));
            return (ExitCode::from(EXIT_USAGE), false);
        }
    };
    let outcome = match cli.command {
        Command::Engines { name } => cmd_engines(name.as_deref()).map(|_| ExitCode::SUCCESS),
        Command::Steps => {
            cmd_steps();
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(args) => cmd_run(args),
        Command::Report(a) => cmd_report(a),
        Command::Merge(a) => cmd_merge(a),
        Command::Compare(a) => cmd_compare(a),
        Command::History(a) => cmd_history(a),
        Command::Export(a) => cmd_export(a),
        Command::Device { dir, size, runtime, json, remeasure, history, no_history } => {
            cmd_device(DeviceArgs { dir, size, runtime, json, remeasure, history, no_history })
        }
        Command::Sysinfo { data_dir, json } => cmd_sysinfo(&data_dir, json).map(|_| ExitCode::SUCCESS),
        Command::RocksdbVersions { build } => cmd_rocksdb_versions(&build),
        Command::InternalBuildInfo => serde_json::to_string_pretty(&rumbench::engine::rocksdb_build::BuildInfo::this_binary())
            .map(|j| {
                outln!("{j}");
                ExitCode::SUCCESS
            })
            .map_err(Into::into),
        Command::InternalRocksdbManifests { root, check } => cmd_rocksdb_manifests(root, check),
        Command::Crashtest(a) => cmd_crashtest(a),
        Command::InternalCrashChild { role, task } => return (rumbench::crashtest::child::main(&role, &task), true),
        Command::InternalRunConfig { task, index } => {
            install_signal_handlers(false);
            return (runner::run_config_child(&task, index), true);
        }
        Command::InternalCrashConfig { task, index } => {
            install_signal_handlers(false);
            return (rumbench::crashtest::run_config_process(&task, index), true);
        }
    };
    match outcome {
        Ok(code) => (code, false),
        Err(e) => {
            errln!("rumbench: error: {}", one_line(&e));
            (ExitCode::from(EXIT_USAGE), false)
        }
    }
}
