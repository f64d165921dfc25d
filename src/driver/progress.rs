//! Progress of a step: a bar on a terminal, plain lines every 10 s otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

pub enum StepProgress {
    Bar(ProgressBar, Option<f64>),
    Lines { name: String, total: Option<u64>, seconds: Option<f64>, last: Mutex<Instant> },
    Off,
}

static MODE: Mutex<Option<ProgressMode>> = Mutex::new(None);

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProgressMode {
    /// A bar on a terminal, plain lines otherwise.
    Auto,
    Bar,
    Lines,
    Off,
}

pub fn set_mode(mode: ProgressMode) {
    *MODE.lock().unwrap() = Some(mode);
}

fn mode() -> ProgressMode {
    let m = MODE.lock().unwrap().unwrap_or(ProgressMode::Auto);
    match m {
        ProgressMode::Auto if std::io::stderr().is_terminal() => ProgressMode::Bar,
        ProgressMode::Auto => ProgressMode::Lines,
        other => other,
    }
}

impl StepProgress {
    pub fn start(name: &str, total_ops: Option<u64>, seconds: Option<f64>) -> StepProgress {
        match mode() {
            ProgressMode::Bar => {
                let (len, template) = match (seconds, total_ops) {
                    (Some(s), _) => ((s * 10.0) as u64, "{prefix:>22} [{bar:30}] {elapsed_precise} {msg}"),
                    (None, Some(t)) => (t, "{prefix:>22} [{bar:30}] {pos}/{len} ops, eta {eta} {msg}"),
                    (None, None) => (0, "{prefix:>22} {msg}"),
                };
                let bar = ProgressBar::new(len);
                bar.set_style(ProgressStyle::with_template(template).unwrap().progress_chars("=> "));
                bar.set_prefix(name.to_string());
                StepProgress::Bar(bar, seconds)
            }
            ProgressMode::Lines => {
                errln!("  {name}: started");
                StepProgress::Lines { name: name.into(), total: total_ops, seconds, last: Mutex::new(Instant::now()) }
            }
            _ => StepProgress::Off,
        }
    }

    pub fn update(&self, done_ops: u64, elapsed: Option<Duration>) {
        let rate = |e: Duration| done_ops as f64 / e.as_secs_f64().max(1e-9);
        match self {
            StepProgress::Bar(bar, seconds) => {
                if seconds.is_some() {
                    bar.set_position(elapsed.map(|e| (e.as_secs_f64() * 10.0) as u64).unwrap_or(0));
                } else {
                    bar.set_position(done_ops);
                }
                if let Some(e) = elapsed {
                    bar.set_message(format!("{:.0} ops/s", rate(e)));
                }
            }
            StepProgress::Lines { name, total, seconds, last } => {
                let mut last = last.lock().unwrap();
                if last.elapsed() >= Duration::from_secs(10) {
                    *last = Instant::now();
                    if let Some(e) = elapsed {
                        let pct = match (total, seconds) {
                            (Some(t), _) => 100.0 * done_ops as f64 / *t as f64,
                            (None, Some(s)) => 100.0 * e.as_secs_f64() / s,
                            _ => 0.0,
                        };
                        errln!("  {name}: {pct:.0}% {done_ops} ops, {:.0} ops/s", rate(e));
                    }
                }
            }
            StepProgress::Off => {}
        }
    }

    pub fn finish(&self) {
        if let StepProgress::Bar(bar, _) = self {
            bar.finish_and_clear();
        }
    }
}

/// Called about every 100 ms while a step's clients run, with the
/// operations they completed so far and the seconds since their release:
/// the runner keeps a checkpoint of the running step on disk with it, so
/// that a process that dies mid-step (an engine that crashes) leaves what
/// the step completed.
pub type Observer = Box<dyn Fn(u64, f64) + Send>;

static OBSERVER: Mutex<Option<Observer>> = Mutex::new(None);

/// Set (or clear) the observer of running steps.
pub fn observe(f: Option<Observer>) {
    *OBSERVER.lock().unwrap_or_else(|e| e.into_inner()) = f;
}

/// Tell the observer, if there is one.
pub(crate) fn tell_observer(done_ops: u64, elapsed_s: f64) {
    if let Some(f) = &*OBSERVER.lock().unwrap_or_else(|e| e.into_inner()) {
        f(done_ops, elapsed_s);
    }
}

/// Progress of long work of an estimated duration (a build): a bar of the
/// elapsed time against the estimate on a terminal, a plain line every
/// minute otherwise. Updated by a thread of its own, since the work may
/// say nothing for many minutes.
pub struct LongTask {
    message: std::sync::Arc<Mutex<String>>,
    done: std::sync::mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LongTask {
    pub fn start(name: &str, estimate: Duration) -> LongTask {
        let message = std::sync::Arc::new(Mutex::new(String::new()));
        let (done, stop) = std::sync::mpsc::channel::<()>();
        let (name, msg) = (name.to_string(), message.clone());
        let est_s = estimate.as_secs().max(1);
        let thread = match mode() {
            ProgressMode::Off => None,
            ProgressMode::Bar => Some(std::thread::spawn(move || {
                let bar = ProgressBar::new(est_s);
                bar.set_style(
                    ProgressStyle::with_template("{prefix:>22} [{bar:30}] {elapsed_precise} of about {len}s {msg}")
                        .unwrap()
                        .progress_chars("=> "),
                );
                bar.set_prefix(name);
                let t0 = Instant::now();
                while stop
                    .recv_timeout(Duration::from_secs(1))
                    .is_err_and(|e| e == std::sync::mpsc::RecvTimeoutError::Timeout)
                {
                    bar.set_position(t0.elapsed().as_secs().min(est_s));
                    bar.set_message(msg.lock().unwrap().clone());
                }
                bar.finish_and_clear();
            })),
            ProgressMode::Lines | ProgressMode::Auto => Some(std::thread::spawn(move || {
                let t0 = Instant::now();
                while stop
                    .recv_timeout(Duration::from_secs(60))
                    .is_err_and(|e| e == std::sync::mpsc::RecvTimeoutError::Timeout)
                {
                    errln!(
                        "  {name}: {:.0} of about {:.0} min, {}",
                        t0.elapsed().as_secs_f64() / 60.0,
                        est_s as f64 / 60.0,
                        msg.lock().unwrap()
                    );
                }
            })),
        };
        LongTask { message, done, thread }
    }

    pub fn set_message(&self, m: &str) {
        *self.message.lock().unwrap() = m.to_string();
    }

    pub fn finish(mut self) {
        let _ = self.done.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
