//! A plugin's code run where it may die: rumbench's main process plans the
//! run, and a plugin that crashes in its library's constructors, its entry
//! or its `check_options` must not take the main process with it (nor leave
//! the user a bare "Segmentation fault"). In the main process, a plugin is
//! first loaded, and its options checked, by a probe: `rumbench
//! internal-plugin-probe LIBRARY [NAME=VALUE...]`, a process of its own
//! that says before each part what runs next, then its verdict. A probe
//! that dies is a one-line refusal naming the part it died in and its
//! signal; one that does not answer in `ANSWER_WITHIN` is killed and named.
//! Config processes, crash-test processes and the probe itself call the
//! plugin directly.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::{EngineOptions, Plugin};

/// The longest a probe may take to load a plugin and check its options.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
/// The prefix of a probe's lines about itself (a plugin may print too).
const STAGE: &str = "rumbench-plugin-probe stage: ";
const VERDICT_OK: &str = "rumbench-plugin-probe ok";
const VERDICT_ERROR: &str = "rumbench-plugin-probe error: ";

/// Whether a plugin's code may run in this process (unit tests call plugins
/// in their own process: their binary has no probe subcommand).
static CODE_RUNS_HERE: AtomicBool = AtomicBool::new(cfg!(test));

/// This process may die of a plugin: a config process, a crash test's, a probe.
pub fn let_code_run_here() {
    CODE_RUNS_HERE.store(true, Ordering::Relaxed);
}

pub fn code_runs_here() -> bool {
    CODE_RUNS_HERE.load(Ordering::Relaxed)
}

/// Load the plugin at `path` in a probe process, and with `options` check
/// them there too; once per library and options in this process.
pub fn run(path: &Path, options: Option<&EngineOptions>) -> Result<()> {
    static PASSED: OnceLock<Mutex<std::collections::BTreeSet<String>>> = OnceLock::new();
    let own: Vec<String> = options
        .map(|o| o.0.iter().filter(|(k, _)| k.as_str() != super::LIBRARY).map(|(k, v)| format!("{k}={v}")).collect())
        .unwrap_or_default();
    let key = format!("{}\0{}\0{}", path.display(), options.is_some(), own.join("\0"));
    if PASSED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).contains(&key) {
        return Ok(());
    }
    let exe = std::env::current_exe().context("finding rumbench's own executable")?;
    let mut cmd = Command::new(exe);
    cmd.arg("internal-plugin-probe").arg(path);
    if options.is_some() {
        cmd.arg("--check").args(&own);
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    {
        use std::os::unix::process::CommandExt;
        // Its own process group (a terminal's Ctrl-C is ours to handle).
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().context("cannot start a process to load the plugin in")?;
    let out = child.stdout.take().expect("piped");
    let lines = std::thread::spawn(move || {
        BufReader::new(out).lines().map_while(std::result::Result::ok).take(10_000).collect::<Vec<String>>()
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if started.elapsed() > ANSWER_WITHIN || crate::driver::stop::stop_requested() {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let lines = lines.join().unwrap_or_default();
    let stage = lines.iter().rev().find_map(|l| l.strip_prefix(STAGE)).unwrap_or("starting").to_string();
    let name = path.display();
    let Some(status) = status else {
        if crate::driver::stop::stop_requested() {
            bail!("interrupted while plugin {name} was loaded, in {stage}");
        }
        bail!(
            "plugin {name} did not answer within {} s while rumbench planned the run: it hung in {stage}",
            ANSWER_WITHIN.as_secs()
        );
    };
    if let Some(e) = lines.iter().find_map(|l| l.strip_prefix(VERDICT_ERROR)) {
        bail!("{}", super::printable(e));
    }
    if status.success() && lines.iter().any(|l| l == VERDICT_OK) {
        PASSED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(key);
        return Ok(());
    }
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(sig) => bail!(
            "plugin {name} crashed while rumbench planned the run, in {stage} ({}): nothing was started",
            crate::driver::stop::signal_name(sig)
        ),
        None => bail!(
            "plugin {name} ended the process that loaded it (exit code {}) in {stage}: nothing was started",
            status.code().unwrap_or(-1)
        ),
    }
}

/// `rumbench internal-plugin-probe LIBRARY [--check NAME=VALUE...]`: load
/// the plugin (and check the options), saying before each part what runs.
pub fn probe_main(path: &Path, check: Option<&[String]>) -> ExitCode {
    let_code_run_here();
    let say = |line: &str| {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // Each line flushed before the plugin's code runs: it may never return.
        let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    };
    let verdict = (|| -> Result<()> {
        let plugin = Plugin::load_uncached(path, &|stage| say(&format!("{STAGE}{stage}")))?;
        if let Some(pairs) = check {
            let mut o = EngineOptions::default();
            o.0.insert(super::LIBRARY.into(), path.display().to_string());
            for p in pairs {
                let (k, v) = p.split_once('=').with_context(|| format!("{p}: not NAME=VALUE"))?;
                o.0.insert(k.into(), v.into());
            }
            say(&format!("{STAGE}check_options"));
            plugin.check_options(&o)?;
        }
        Ok(())
    })();
    match verdict {
        Ok(()) => {
            say(VERDICT_OK);
            ExitCode::SUCCESS
        }
        Err(e) => {
            say(&format!("{VERDICT_ERROR}{}", format!("{e:#}").replace('\n', " ")));
            ExitCode::from(2)
        }
    }
}
