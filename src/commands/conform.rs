//! `rumbench conform`: an engine (a plugin above all) checked against the
//! contract every engine keeps (rumbench::engine::conformance::RULES), each
//! rule on a fresh database in a process of its own, every broken rule
//! reported with what broke. An engine that crashes, aborts or hangs in a
//! rule breaks that rule, named with its signal and the call it was in, and
//! the next rule runs; each verdict is printed as its rule ends; the rules'
//! databases are removed whatever happens (Ctrl-C included).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rumbench::cli::ConformArgs;
use rumbench::engine::{self, conformance, plugin, EngineOptions, OpenArgs};
use rumbench::planner::PlanInputs;
use rumbench::{errln, outln};

use super::{interrupted_exit_code, signals, EXIT_FAILED};

/// A rule process's verdict line, and the file its calls in flight are kept in.
const VERDICT: &str = "rumbench-conform-verdict ";
const IN_FLIGHT: &str = ".conform-calls-in-flight";

/// How one rule ended.
enum Outcome {
    Kept,
    Skipped(String),
    Broken(String),
}

pub fn run(a: ConformArgs) -> Result<ExitCode> {
    if let Some(index) = a.one_rule {
        return one_rule(&a, index);
    }
    if !(a.rule_seconds.is_finite() && a.rule_seconds > 0.0) {
        bail!("--rule-seconds must be a positive number of seconds, got {}", a.rule_seconds);
    }
    signals::install(true);
    // The planner resolves the engine as `run` does: presets, a plugin's
    // library, options validated (a plugin's by itself, in a probe process),
    // all before anything opens.
    let (config_name, engine, options) = resolve(&a)?;
    let mut broken = 0;
    let mut skipped = 0;
    if engine == plugin::NAME {
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
    let mut ran = 0;
    for (index, rule) in conformance::RULES.iter().enumerate() {
        if rumbench::driver::stop::stop_requested() {
            break;
        }
        errln!("checking {}", rule.name);
        match rule_in_a_process(&a, root.path(), index)? {
            Outcome::Kept => outln!("ok      {}", rule.name),
            Outcome::Skipped(why) => {
                skipped += 1;
                outln!("skipped {}: {why}", rule.name);
            }
            Outcome::Broken(what) => {
                broken += 1;
                outln!("BROKEN  {}: {what}", rule.name);
            }
        }
        ran += 1;
    }
    // What the rules left (a crashed rule's database) goes with the root.
    drop(root);
    if rumbench::driver::stop::stop_requested() {
        errln!("conform interrupted after {ran} of {} rules; their databases removed", conformance::RULES.len());
        return Ok(ExitCode::from(interrupted_exit_code()));
    }
    let rules = conformance::RULES.len() + usize::from(engine == plugin::NAME);
    outln!("{config_name}: {} of {rules} rules kept, {skipped} skipped, {broken} broken", rules - skipped - broken);
    Ok(if broken == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_FAILED) })
}

/// The config `conform` checks: its name, engine and options.
fn resolve(a: &ConformArgs) -> Result<(String, String, EngineOptions)> {
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
    Ok((config.name.clone(), config.engine.clone(), EngineOptions(config.options.clone())))
}

/// Rule `index` in a process of its own (`conform --one-rule INDEX --dir
/// ROOT`), killed when it overruns `--rule-seconds` or rumbench is stopped.
fn rule_in_a_process(a: &ConformArgs, root: &Path, index: usize) -> Result<Outcome> {
    let exe = std::env::current_exe().context("finding rumbench's own executable")?;
    let mut cmd = Command::new(exe);
    cmd.args(["conform", "-e", &a.engine]);
    for o in &a.options {
        cmd.arg("-o").arg(o);
    }
    cmd.arg("--dir").arg(root).arg("--one-rule").arg(index.to_string());
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    {
        use std::os::unix::process::CommandExt;
        // Its own process group: a terminal's Ctrl-C reaches us, and we end it.
        cmd.process_group(0);
        // SAFETY: prctl is async-signal-safe; the rule's process dies with us.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn().context("cannot start a process for a rule")?;
    let (stdout, mut stderr) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
    let out = std::thread::spawn(move || BufReader::new(stdout).lines().map_while(Result::ok).collect::<Vec<_>>());
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = (&mut stderr).take(1 << 20).read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let ended = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed().as_secs_f64() > a.rule_seconds || rumbench::driver::stop::stop_requested() {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    let dir = conformance::rule_dir(root, index);
    let calls = std::fs::read_to_string(root.join(IN_FLIGHT)).unwrap_or_default();
    let _ = std::fs::remove_file(root.join(IN_FLIGHT));
    let in_calls = match calls.trim() {
        "" => String::new(),
        c => format!(", in a call to {c}"),
    };
    let crash_note = plugin::crash::cause(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let Some(status) = ended else {
        if rumbench::driver::stop::stop_requested() {
            return Ok(Outcome::Broken("interrupted".into()));
        }
        return Ok(Outcome::Broken(format!("it did not end within {} s{in_calls}", a.rule_seconds)));
    };
    if let Some(v) = out.iter().find_map(|l| l.strip_prefix(VERDICT)) {
        return Ok(match v.split_once(": ") {
            _ if v == "kept" => Outcome::Kept,
            Some(("skipped", why)) => Outcome::Skipped(why.to_string()),
            Some((_, what)) => Outcome::Broken(plugin::printable(what)),
            None => Outcome::Broken(plugin::printable(v)),
        });
    }
    use std::os::unix::process::ExitStatusExt;
    let how = match status.signal() {
        Some(sig) => format!("the engine crashed the process ({})", rumbench::driver::stop::signal_name(sig)),
        None => format!("its process ended without a verdict (exit code {})", status.code().unwrap_or(-1)),
    };
    let last = err.lines().map(str::trim).rfind(|l| !l.is_empty() && !l.starts_with("engine contract:"));
    Ok(Outcome::Broken(match (crash_note, last) {
        (Some(note), _) => format!("{how}: {note}"),
        (None, Some(line)) => format!("{how}{in_calls}; its last words: {}", plugin::printable(line)),
        (None, None) => format!("{how}{in_calls}"),
    }))
}

/// `conform --one-rule INDEX --dir ROOT`: one rule, its verdict on stdout.
fn one_rule(a: &ConformArgs, index: usize) -> Result<ExitCode> {
    // This process may die of the engine: the conform process names it.
    plugin::probe::let_code_run_here();
    let root = a.dir.clone().context("--one-rule runs in the directory conform made (--dir)")?;
    if index >= conformance::RULES.len() {
        bail!("no rule {index}: there are {}", conformance::RULES.len());
    }
    let (_, engine, options) = resolve(a)?;
    let spec = engine::find(&engine)?;
    // The calls in flight, kept where conform reads them when this process hangs.
    let in_flight = root.join(IN_FLIGHT);
    std::thread::spawn(move || loop {
        let calls: Vec<&str> = engine::calls_in_flight().into_iter().map(|(call, _)| call).collect();
        let _ = std::fs::write(&in_flight, calls.join(", "));
        std::thread::sleep(Duration::from_millis(200));
    });
    let open = |dir: &Path, create: bool| {
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
    let line = match conformance::check_rule(&root, &open, index) {
        Ok(conformance::Verdict::Kept) => "kept".to_string(),
        Ok(conformance::Verdict::Skipped(why)) => format!("skipped: {why}"),
        Err(what) => format!("broken: {}", what.replace('\n', " ")),
    };
    outln!("{VERDICT}{line}");
    Ok(ExitCode::SUCCESS)
}
