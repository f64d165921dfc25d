//! `rumbench conform`: an engine (a plugin above all) checked against the
//! contract every engine keeps (rumbench::engine::conformance::RULES), each
//! rule on a fresh database, every broken rule reported with what broke.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use rumbench::cli::ConformArgs;
use rumbench::engine::{self, conformance, plugin, EngineOptions, OpenArgs};
use rumbench::planner::PlanInputs;
use rumbench::{errln, outln};

use super::EXIT_FAILED;

pub fn run(a: ConformArgs) -> Result<ExitCode> {
    // The planner resolves the engine as `run` does: presets, a plugin's
    // library, options validated (a plugin's by itself), all before anything opens.
    let plan = rumbench::planner::build(&PlanInputs {
        engines: vec![a.engine.clone()],
        options: a.options.clone(),
        ..Default::default()
    })?;
    let config = plan.configs.first().context("no engine")?;
    if rumbench::backend::is_server(&config.engine) {
        bail!("conform checks an engine in this process; {} is a database server", config.engine);
    }
    let spec = engine::find(&config.engine)?;
    if !spec.stores_data {
        bail!(
            "engine {} stores nothing, so the contract (what is written is read back) does not apply to it",
            spec.name
        );
    }
    let options = EngineOptions(config.options.clone());
    let mut broken = 0;
    let mut skipped = 0;
    if config.engine == plugin::NAME {
        let p = plugin::Plugin::of(&options)?;
        outln!("plugin {} {} ({}), {}", p.name, p.version, p.build, p.path.display());
        outln!("  sha256 {}, capabilities: {}", p.sha256, plugin::abi::capability_names(p.caps));
        // A plugin must refuse what it does not know: a misspelt option is a mistake, not a default.
        let mut bogus = options.clone();
        bogus.0.insert("rumbench_conform_no_such_option".into(), "1".into());
        match p.check_options(&bogus) {
            Ok(()) => {
                broken += 1;
                outln!("BROKEN  unknown_options_are_refused: check_options accepted an option named rumbench_conform_no_such_option");
            }
            Err(e) => outln!("ok      unknown_options_are_refused ({e:#})"),
        }
    }
    let parent = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    let root = tempfile::Builder::new()
        .prefix("rumbench-conform-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot make a directory in {}", parent.display()))?;
    let open = |dir: &std::path::Path, create: bool| {
        (spec.open)(&OpenArgs {
            dir: dir.to_path_buf(),
            options: options.clone(),
            key_size: conformance::KEY_SIZE,
            value_size: 100,
            num_keys: 1000,
            threads: 3,
            space_needed: Some(64 << 20),
            create,
            read_only: false,
        })
    };
    let outcomes = conformance::check(root.path(), &open, &mut |name| {
        // Before the rule runs: an engine that crashes the process is seen to crash in it.
        errln!("checking {name}");
    });
    for (name, outcome) in outcomes {
        match outcome {
            Ok(conformance::Verdict::Kept) => outln!("ok      {name}"),
            Ok(conformance::Verdict::Skipped(why)) => {
                skipped += 1;
                outln!("skipped {name}: {why}");
            }
            Err(what) => {
                broken += 1;
                outln!("BROKEN  {name}: {what}");
            }
        }
    }
    let rules = conformance::RULES.len() + usize::from(config.engine == plugin::NAME);
    outln!("{}: {} of {rules} rules kept, {skipped} skipped, {broken} broken", config.name, rules - skipped - broken);
    Ok(if broken == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_FAILED) })
}
