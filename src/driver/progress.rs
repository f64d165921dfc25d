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
