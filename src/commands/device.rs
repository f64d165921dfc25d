//! `rumbench device`: the storage under a directory, measured with fio
//! (or the stored baseline of under a week).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use rumbench::{errln, measure, outln, report};

use super::{interrupted_exit_code, one_line, signals, EXIT_FAILED};

/// `rumbench device`: the storage's own capability, measured with fio.
pub struct DeviceArgs {
    pub dir: PathBuf,
    pub size: String,
    pub runtime: u64,
    pub json: bool,
    pub remeasure: bool,
    pub history: Option<PathBuf>,
    pub no_history: bool,
}

/// `rumbench device`: the stored baseline of the device under --dir when one
/// is under a week old, else (or with --remeasure) one measured now and stored.
pub fn run(a: DeviceArgs) -> Result<ExitCode> {
    use rumbench::measure::device_baseline::{key_of, StoredBaseline};
    use rumbench::runner::device::{self, Store};
    let file_bytes = rumbench::plan::parse_size(&a.size)
        .filter(|&b| b >= 1 << 20)
        .ok_or_else(|| anyhow::anyhow!("--size {}: expected a size of at least 1M, such as 4G", a.size))?;
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
            signals::install(true);
            match device::measure_and_store(&a.dir, file_bytes, a.runtime, &store) {
                Ok((b, stored)) => (b, format!("measured now, {stored}")),
                Err(e) => {
                    errln!("rumbench: error: {}", one_line(&e));
                    let stopped = rumbench::driver::stop::stop_requested();
                    return Ok(ExitCode::from(if stopped { interrupted_exit_code() } else { EXIT_FAILED }));
                }
            }
        }
    };
    if a.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "device": dev, "source": source, "baseline": baseline })
            )?
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{}: {}", a.dir.display(), baseline.device_key);
    if let Some(why) = &dev.io_not_meaningful {
        outln!("warning: {why}: these figures are not a device's");
    }
    let f = &baseline.fio;
    outln!(
        "{} ({} MB file, {} s per job), measured {} in {} ({source})",
        f.fio_version,
        f.file_bytes >> 20,
        f.runtime_s,
        baseline.measured_at,
        baseline.dir.display()
    );
    outln!();
    let us = |v: Option<f64>| v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into());
    outln!("random reads, O_DIRECT   IOPS     p50 us    p99 us");
    for p in &f.random_reads {
        outln!(
            "  {:>2} KB, depth {:>2}  {:>10.0}  {:>8}  {:>8}",
            p.block_bytes / 1024,
            p.queue_depth,
            p.iops,
            us(p.p50_us),
            us(p.p99_us)
        );
    }
    outln!();
    outln!("sequential writes, 1 MB, O_DIRECT, depth 4: {:.0} MB/s", f.seq_write_mb_s);
    outln!("random writes, 4 KB, O_DIRECT, depth 4: {:.0} IOPS", f.random_write_4k_iops);
    outln!(
        "4 KB write + fdatasync: {:.0}/s (fdatasync p50 {} us, p99 {} us)",
        f.fdatasync_per_s,
        us(f.fdatasync_p50_us),
        us(f.fdatasync_p99_us)
    );
    Ok(ExitCode::SUCCESS)
}
