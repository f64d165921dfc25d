//! Running a plan: every engine config in turn, every step in order, results
//! written after each step.

pub mod exec;
pub mod pacer;
pub mod progress;
pub mod steps;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::config::{EngineConfig, RunPlan, StepPlan};
use crate::engine::{self, Engine, EngineOptions, OpenArgs};
use crate::output::{self, ConfigResult, RunResult, Status, StepResult};
use crate::workload::{KeyOrder, KeySpace};
use steps::StepKind;

pub struct RunOptions {
    pub output_dir: PathBuf,
    /// Parent of the engines' data dirs; default: <output_dir>/db.
    pub db_dir: Option<PathBuf>,
    /// Keep the data dirs after the run (they are removed by default).
    pub keep_db: bool,
    /// Open existing data instead of starting from an empty directory.
    pub use_existing_db: bool,
    pub command_line: Vec<String>,
}

fn now_text() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

/// Create the output directory and check that it takes files.
fn prepare_output_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let probe = dir.join(".rumbench-write-test");
    std::fs::write(&probe, b"").with_context(|| format!("output directory {} is not writable", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

fn new_step_result(plan: &StepPlan) -> StepResult {
    StepResult {
        name: plan.kind.to_string(),
        status: Status::Running,
        error: None,
        settings: plan.settings.clone(),
        started_at: now_text(),
        wall_s: 0.0,
        ops: 0,
        ops_s: 0.0,
        mb_s: 0.0,
        ops_by_type: Vec::new(),
        reads: None,
        writer: None,
        engine_write_amp: None,
        engine_write_amp_cumulative: None,
        engine_stats: Vec::new(),
        notes: Vec::new(),
    }
}

/// Whether the database holds no key at all (a step that reads would measure nothing).
fn database_is_empty(engine: &dyn Engine, key_size: usize) -> Result<bool> {
    let mut session = engine.session()?;
    let first = vec![0u8; key_size];
    Ok(session.scan(&first, false, 1, &mut |_, _| false)? == 0)
}

fn run_step(engine: &dyn Engine, config: &EngineConfig, plan: &StepPlan, index: usize, keyspace: KeySpace) -> StepResult {
    let mut result = new_step_result(plan);
    if plan.kind.needs_data() {
        match database_is_empty(engine, plan.settings.key_size) {
            Ok(false) => {}
            Ok(true) => {
                result.status = Status::Failed;
                result.error = Some(format!(
                    "step {} needs data but the {} database is empty: run a fill step before it (e.g. --steps fillseq,{})",
                    plan.kind, config.name, plan.kind
                ));
                return result;
            }
            Err(e) => {
                result.status = Status::Failed;
                result.error = Some(format!("{e:#}"));
                return result;
            }
        }
    }
    let before = engine.write_amp_counters();
    let mut result = match plan.kind {
        StepKind::Flush | StepKind::WaitForCompaction => exec::run_engine_step(engine, plan, result),
        _ => exec::run_client_step(engine, plan, index, keyspace, result),
    };
    if let Some(after) = engine.write_amp_counters() {
        result.engine_write_amp = after.amp_since(before);
        result.engine_write_amp_cumulative = after.amp_since(None);
        if plan.kind.writes() && result.engine_write_amp.is_none() && after.resolution_bytes > 1 {
            result.notes.push(
                "engine write-amp not shown: the engine's counters are too coarse for this little ingest (rocksdb: set statistics=true for exact counters)".into(),
            );
        }
    }
    result.engine_stats = engine.stats();
    result
}

fn print_step_line(config: &str, s: &StepResult) {
    let lat = s.main_op().map(|o| o.latency.clone()).unwrap_or_default();
    match s.status {
        Status::Completed | Status::Interrupted => eprintln!(
            "  {config} {}: {} ops/s over {:.1} s, p50 {} us, p99 {} us, max {} us{}",
            s.name,
            output::table::num(s.ops_s),
            s.wall_s,
            output::table::num(lat.p50_us),
            output::table::num(lat.p99_us),
            output::table::num(lat.max_us),
            if s.status == Status::Interrupted { " (interrupted)" } else { "" }
        ),
        _ => eprintln!("  {config} {}: {}", s.name, s.error.as_deref().unwrap_or("failed")),
    }
}

/// Run the plan. Results are written to `opts.output_dir` after every step.
/// Returns the result; its status says whether everything completed.
pub fn run(plan: &RunPlan, opts: &RunOptions) -> Result<RunResult> {
    prepare_output_dir(&opts.output_dir)?;
    let db_root = opts.db_dir.clone().unwrap_or_else(|| opts.output_dir.join("db"));
    let mut run = RunResult {
        schema: output::SCHEMA.into(),
        rumbench_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: option_env!("RUMBENCH_GIT_COMMIT").map(String::from),
        command_line: opts.command_line.clone(),
        started_at: now_text(),
        finished_at: None,
        status: Status::Running,
        error: None,
        suite: plan.suite.clone(),
        settings: plan.settings.clone(),
        configs: Vec::new(),
    };
    output::write_all(&run, &opts.output_dir)?;
    let keyspace = KeySpace { n: plan.settings.num, hashed: plan.settings.key_order == KeyOrder::Hash };

    'configs: for config in &plan.configs {
        let spec = engine::find(&config.engine)?;
        let dir = db_root.join(&config.name);
        let mut cres = ConfigResult {
            name: config.name.clone(),
            engine: config.engine.clone(),
            engine_version: None,
            options: config.options.clone(),
            effective_options: Vec::new(),
            db_dir: dir.clone(),
            status: Status::Running,
            error: None,
            steps: Vec::new(),
            engine_stats: Vec::new(),
        };
        eprintln!("{} ({}):", config.name, config.engine);
        let opened = (|| -> Result<Box<dyn Engine>> {
            if !opts.use_existing_db && dir.exists() {
                std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear data dir {}", dir.display()))?;
            }
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create data dir {}", dir.display()))?;
            let args = OpenArgs {
                dir: dir.clone(),
                options: EngineOptions(config.options.clone()),
                key_size: plan.settings.key_size,
                value_size: plan.settings.value_size,
                num_keys: plan.settings.num,
                threads: plan.steps.iter().map(|s| s.settings.threads).max().unwrap_or(1) + 1,
            };
            (spec.open)(&args).with_context(|| format!("cannot open {} in {}", config.engine, dir.display()))
        })();
        let engine = match opened {
            Ok(e) => e,
            Err(e) => {
                cres.status = Status::Failed;
                cres.error = Some(format!("{e:#}"));
                run.status = Status::Failed;
                run.error = cres.error.clone();
                run.configs.push(cres);
                break 'configs;
            }
        };
        cres.engine_version = Some(engine.version());
        cres.effective_options = engine.effective_options();
        run.configs.push(cres);
        let ci = run.configs.len() - 1;

        for (i, step) in plan.steps.iter().enumerate() {
            if exec::stop_requested() {
                break;
            }
            let result = run_step(engine.as_ref(), config, step, i, keyspace);
            print_step_line(&config.name, &result);
            let status = result.status;
            let error = result.error.clone();
            run.configs[ci].steps.push(result);
            output::write_all(&run, &opts.output_dir)?;
            if status != Status::Completed {
                run.configs[ci].status = status;
                run.configs[ci].error = error.clone();
                run.status = status;
                run.error = error.map(|e| format!("{} {}: {e}", config.name, step.kind));
                break;
            }
        }
        run.configs[ci].engine_stats = engine.stats();
        if run.configs[ci].status == Status::Running {
            run.configs[ci].status = Status::Completed;
        }
        drop(engine);
        if !opts.keep_db {
            let _ = std::fs::remove_dir_all(&dir);
        }
        output::write_all(&run, &opts.output_dir)?;
        if run.status != Status::Running || exec::stop_requested() {
            break;
        }
    }
    if !opts.keep_db {
        // Remove the db root if we created it and it is now empty.
        let _ = std::fs::remove_dir(&db_root);
    }
    if exec::stop_requested() && run.status == Status::Running {
        run.status = Status::Interrupted;
        run.error = Some("interrupted by Ctrl-C".into());
    }
    if run.status == Status::Running {
        run.status = Status::Completed;
    }
    run.finished_at = Some(now_text());
    output::write_all(&run, &opts.output_dir)?;
    Ok(run)
}

/// Refuse plans that cannot work before anything runs.
pub fn check_plan(plan: &RunPlan) -> Result<()> {
    if plan.configs.is_empty() {
        bail!("no engine configs");
    }
    Ok(())
}
