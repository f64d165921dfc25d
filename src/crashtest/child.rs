//! The crash test's child processes: the writer (killed mid-write) and the
//! checker (opens what survived and reads it all back). Each opens the
//! engine on the lazy filesystem in a process of its own, so that the kill
//! is a real one and a recovery that aborts takes only the checker down.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::records::{self, AckLog, Found, KEY_LEN};
use crate::engine::{self, Engine, EngineOptions, OpenArgs};
use crate::plan::EngineConfig;

/// What the parent hands a child (as a JSON file).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildTask {
    pub config: EngineConfig,
    /// The engine's data dir, on the lazy filesystem.
    pub db_dir: PathBuf,
    /// Where the writer's ack logs go (outside the lazy filesystem).
    pub ack_dir: PathBuf,
    /// Where the checker writes its `CheckReport`.
    pub report: PathBuf,
    pub crash: u32,
    pub threads: usize,
    pub value_size: usize,
}

/// What the checker found, for the parent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckReport {
    pub open_s: f64,
    pub provenance: Vec<(String, String)>,
    pub effective_options: Vec<(String, String)>,
    pub found: Found,
}

/// The line the writer prints once the engine is open and the clients start.
pub const READY: &str = "crashtest-writer-ready";

fn open(task: &ChildTask) -> Result<(&'static engine::EngineSpec, Box<dyn Engine>)> {
    let spec = engine::find(&task.config.engine)?;
    let args = OpenArgs {
        dir: task.db_dir.clone(),
        options: EngineOptions(task.config.options.clone()),
        key_size: KEY_LEN,
        value_size: task.value_size,
        num_keys: 1 << 20,
        threads: task.threads,
        // Written until the crash: not known in advance.
        space_needed: None,
        create: true,
        read_only: false,
    };
    let e = (spec.open)(&args).with_context(|| format!("opening {} in {}", spec.name, task.db_dir.display()))?;
    Ok((spec, e))
}

fn load(path: &std::path::Path) -> Result<ChildTask> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// `rumbench internal-crash-child writer|check TASK`.
pub fn main(role: &str, task_path: &std::path::Path) -> ExitCode {
    let outcome = load(task_path).and_then(|task| match role {
        "writer" => write_until_killed(&task),
        "check" => check(&task),
        _ => anyhow::bail!("unknown role {role}"),
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // errln!, not eprintln!: a standard error that cannot be written must not panic.
            crate::errln!("{}", format!("{e:#}").replace('\n', " "));
            ExitCode::from(1)
        }
    }
}

/// Commit unique keys from `threads` clients, one put per commit, each
/// acknowledged in the ack log once the engine returned, until killed.
fn write_until_killed(task: &ChildTask) -> Result<()> {
    let (_, engine) = open(task)?;
    let engine = &*engine;
    let (failed_tx, failed_rx) = std::sync::mpsc::channel::<String>();
    std::thread::scope(|s| {
        for thread in 0..task.threads as u32 {
            let failed = failed_tx.clone();
            s.spawn(move || {
                if let Err(e) = client(engine, task, thread) {
                    let _ = failed.send(format!("client {thread}: {e:#}"));
                }
            });
        }
        crate::outln!("{READY}");
        drop(failed_tx);
        // The clients run until the kill; one that fails ends the writer.
        if let Ok(e) = failed_rx.recv() {
            crate::errln!("{}", e.replace('\n', " "));
            std::process::exit(1);
        }
    });
    Ok(())
}

fn client(engine: &dyn Engine, task: &ChildTask, thread: u32) -> Result<()> {
    let mut session = engine.session()?;
    let mut log = AckLog::create(&records::ack_path(&task.ack_dir, (task.crash, thread)))?;
    let (mut key, mut value) = (Vec::with_capacity(KEY_LEN), Vec::with_capacity(task.value_size));
    for seq in 0.. {
        records::key(task.crash, thread, seq, &mut key);
        records::value(&key, task.value_size, &mut value);
        session.put(&key, &value)?;
        log.ack(seq)?;
    }
    Ok(())
}

/// Open what survived (timed: the engine's recovery) and read every entry back.
fn check(task: &ChildTask) -> Result<()> {
    let started = Instant::now();
    let (spec, engine) = open(task)?;
    let open_s = started.elapsed().as_secs_f64();
    let mut found = Found::default();
    {
        let mut session = engine.session()?;
        let mut start: Vec<u8> = Vec::new();
        let mut expected = Vec::new();
        // In chunks, each from just past the last key seen.
        loop {
            let mut last: Option<Vec<u8>> = None;
            let n = session.scan(&start, false, 10_000, &mut |k, v| {
                found.add(k, v, &mut expected, task.value_size);
                last = Some(k.to_vec());
                true
            })?;
            match last {
                Some(mut k) if n == 10_000 => {
                    k.push(0);
                    start = k;
                }
                _ => break,
            }
        }
    }
    let report = CheckReport {
        open_s,
        provenance: engine::provenance(spec, engine.version(), engine.provenance()),
        effective_options: engine.effective_options(),
        found,
    };
    drop(engine);
    let tmp = task.report.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec(&report)?).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &task.report).with_context(|| format!("writing {}", task.report.display()))?;
    Ok(())
}
