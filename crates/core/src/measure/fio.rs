//! The device's own capability, measured with fio: random reads (4 KB and
//! 16 KB, O_DIRECT, queue depths 1 to 32), sequential write bandwidth,
//! random 4 KB writes, and a small write followed by fdatasync (the commit
//! path of a durable engine). A step's ceilings (measure::ceiling) are
//! computed from these. Debian's fio (scripts/setup.sh installs it); fio
//! missing or failing is an error that says so, never a figure of 0.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// Queue depths of the random-read jobs.
pub const QUEUE_DEPTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Block sizes of the random-read jobs, in bytes.
pub const READ_BLOCK_SIZES: [u64; 2] = [4096, 16384];

/// What to measure and where.
#[derive(Debug, Clone)]
pub struct FioPlan {
    /// A directory on the filesystem to measure (the test file goes there).
    pub dir: PathBuf,
    /// Size of the test file: large enough that no cache of the device answers.
    pub file_bytes: u64,
    /// Seconds per job.
    pub runtime_s: u64,
}

/// One random-read point: block size and queue depth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadPoint {
    pub block_bytes: u64,
    pub queue_depth: u32,
    pub iops: f64,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
}

/// What fio measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FioBaseline {
    pub fio_version: String,
    pub file_bytes: u64,
    pub runtime_s: u64,
    pub random_reads: Vec<ReadPoint>,
    /// Sequential 1 MB writes, O_DIRECT, queue depth 4: MB/s (10^6 bytes).
    pub seq_write_mb_s: f64,
    /// Random 4 KB writes, O_DIRECT, queue depth 4.
    pub random_write_4k_iops: f64,
    /// 4 KB appends through the page cache, each followed by fdatasync: per second.
    pub fdatasync_per_s: f64,
    pub fdatasync_p50_us: Option<f64>,
    pub fdatasync_p99_us: Option<f64>,
}

impl FioBaseline {
    /// Random-read IOPS at `block_bytes` (the measured size at or above it,
    /// else the largest) and `concurrency` (the largest depth not above it):
    /// what `concurrency` synchronous readers can get.
    pub fn read_iops(&self, block_bytes: u64, concurrency: u32) -> Option<f64> {
        let sizes: Vec<u64> = {
            let mut s: Vec<u64> = self.random_reads.iter().map(|p| p.block_bytes).collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let size = sizes.iter().copied().find(|&s| s >= block_bytes).or_else(|| sizes.last().copied())?;
        self.random_reads
            .iter()
            .filter(|p| p.block_bytes == size && p.queue_depth <= concurrency.max(1))
            .max_by_key(|p| p.queue_depth)
            .map(|p| p.iops)
    }
}

fn job_name_read(bs: u64, qd: u32) -> String {
    format!("randread-{}k-qd{qd}", bs / 1024)
}

/// The fio job file: every job after the previous one (stonewall), one file.
pub fn job_file(plan: &FioPlan, file: &Path) -> String {
    let mut j = format!(
        "[global]\nfilename={}\nsize={}\ntime_based=1\nruntime={}\nramp_time=1\ngroup_reporting=1\nrandrepeat=0\n\n",
        file.display(),
        plan.file_bytes,
        plan.runtime_s
    );
    for bs in READ_BLOCK_SIZES {
        for qd in QUEUE_DEPTHS {
            j.push_str(&format!(
                "[{}]\nstonewall\nrw=randread\nbs={bs}\ndirect=1\nioengine=libaio\niodepth={qd}\n\n",
                job_name_read(bs, qd)
            ));
        }
    }
    j.push_str("[seqwrite-1m]\nstonewall\nrw=write\nbs=1m\ndirect=1\nioengine=libaio\niodepth=4\n\n");
    j.push_str("[randwrite-4k]\nstonewall\nrw=randwrite\nbs=4k\ndirect=1\nioengine=libaio\niodepth=4\n\n");
    j.push_str("[fdatasync-4k]\nstonewall\nrw=write\nbs=4k\ndirect=0\nioengine=sync\nfdatasync=1\n");
    j
}

fn percentile_us(lat: &serde_json::Value, p: &str) -> Option<f64> {
    lat.get("percentile")?.get(p)?.as_f64().map(|ns| ns / 1000.0)
}

/// fio's JSON output (`--output-format=json`) of [`job_file`]'s jobs.
pub fn parse(json: &str, file_bytes: u64, runtime_s: u64) -> Result<FioBaseline> {
    let v: serde_json::Value = serde_json::from_str(json).context("fio's output is not JSON")?;
    let jobs = v["jobs"].as_array().context("fio's output has no jobs")?;
    let job = |name: &str| -> Result<&serde_json::Value> {
        let j =
            jobs.iter().find(|j| j["jobname"] == name).with_context(|| format!("fio's output has no job {name}"))?;
        if j["error"].as_i64().unwrap_or(0) != 0 {
            bail!("fio job {name} failed with error {}", j["error"]);
        }
        Ok(j)
    };
    let positive = |name: &str, x: Option<f64>| -> Result<f64> {
        match x {
            Some(x) if x > 0.0 => Ok(x),
            _ => bail!("fio job {name} measured nothing"),
        }
    };
    let mut random_reads = Vec::new();
    for bs in READ_BLOCK_SIZES {
        for qd in QUEUE_DEPTHS {
            let name = job_name_read(bs, qd);
            let r = &job(&name)?["read"];
            random_reads.push(ReadPoint {
                block_bytes: bs,
                queue_depth: qd,
                iops: positive(&name, r["iops"].as_f64())?,
                p50_us: percentile_us(&r["clat_ns"], "50.000000"),
                p99_us: percentile_us(&r["clat_ns"], "99.000000"),
            });
        }
    }
    let seq = &job("seqwrite-1m")?["write"];
    let rand = &job("randwrite-4k")?["write"];
    let sync = job("fdatasync-4k")?;
    Ok(FioBaseline {
        fio_version: v["fio version"].as_str().unwrap_or("fio").to_string(),
        file_bytes,
        runtime_s,
        random_reads,
        seq_write_mb_s: positive("seqwrite-1m", seq["bw_bytes"].as_f64())? / 1e6,
        random_write_4k_iops: positive("randwrite-4k", rand["iops"].as_f64())?,
        // Each write is followed by its fdatasync: the write rate is the sync rate.
        fdatasync_per_s: positive("fdatasync-4k", sync["write"]["iops"].as_f64())?,
        fdatasync_p50_us: percentile_us(&sync["sync"]["lat_ns"], "50.000000"),
        fdatasync_p99_us: percentile_us(&sync["sync"]["lat_ns"], "99.000000"),
    })
}

/// The test and job files of a `rumbench device` run by process `pid`.
fn own_files(dir: &Path, pid: u32) -> [PathBuf; 2] {
    [dir.join(format!("rumbench-device-{pid}.fio")), dir.join(format!("rumbench-device-{pid}.job"))]
}

/// Test and job files that a `rumbench device` killed outright (SIGKILL,
/// a power loss) left in `dir`: rumbench's by name, of a process that is
/// gone. Removed; returns what was.
fn remove_stale_files(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix("rumbench-device-")
            .and_then(|r| r.strip_suffix(".fio").or_else(|| r.strip_suffix(".job")))
        else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let alive = Path::new(&format!("/proc/{pid}")).exists();
        if !alive && name.ends_with(".job") {
            // Its fio workers outlive a rumbench killed outright: they still load the disk.
            kill_running(&e.path());
        }
        if !alive && e.file_type().is_ok_and(|t| t.is_file()) && std::fs::remove_file(e.path()).is_ok() {
            removed.push(e.path());
        }
    }
    removed
}

/// Run fio per `plan`; the test file is rumbench's own (created new, removed
/// after, also when `stop` (asked every 50 ms: a signal came) ends fio early).
pub fn measure(plan: &FioPlan, stop: &dyn Fn() -> bool) -> Result<FioBaseline> {
    let fio = which_fio()?;
    for stale in remove_stale_files(&plan.dir) {
        crate::errln!("removed {}, left by an earlier rumbench device that was killed", stale.display());
    }
    let [file, job] = own_files(&plan.dir, std::process::id());
    if file.exists() {
        bail!("{} exists: not rumbench's to overwrite", file.display());
    }
    let free = crate::measure::os::device::FsSpace::of(&plan.dir).map(|s| s.avail_bytes).ok();
    if let Some(free) = free {
        if free < plan.file_bytes + plan.file_bytes / 10 {
            bail!(
                "{} has {} MB free; fio's test file needs {} MB (choose a smaller --size)",
                plan.dir.display(),
                free >> 20,
                plan.file_bytes >> 20
            );
        }
    }
    std::fs::write(&job, job_file(plan, &file)).with_context(|| format!("writing {}", job.display()))?;
    let out = run_fio(&fio, &job, stop);
    let _ = std::fs::remove_file(&job);
    let _ = std::fs::remove_file(&file);
    let (status, stdout, stderr) = out?;
    if !status.success() {
        let line = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        bail!("fio failed ({status}): {line}");
    }
    parse(&stdout, plan.file_bytes, plan.runtime_s)
}

/// fio on `job`: its exit status, standard output and error. fio runs in a
/// process group of its own (a terminal's Ctrl-C is rumbench's to handle)
/// and dies with rumbench; `stop` kills it and is an error.
fn run_fio(fio: &Path, job: &Path, stop: &dyn Fn() -> bool) -> Result<(std::process::ExitStatus, String, String)> {
    use std::io::{Read, Seek};
    use std::os::unix::process::CommandExt;
    // Its output in anonymous files: read once it is done, never a pipe that fills.
    let (mut out, mut err) = (tempfile::tempfile()?, tempfile::tempfile()?);
    let mut cmd = Command::new(fio);
    cmd.arg("--output-format=json")
        .arg(job)
        .stdin(std::process::Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(err.try_clone()?);
    cmd.process_group(0);
    // SAFETY: prctl is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().with_context(|| format!("running {}", fio.display()))?;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if stop() {
            let group = -(child.id() as i32);
            // SAFETY: signals to the process group of a child we started.
            // Stopped first, so that it forks no worker while they are killed.
            unsafe { libc::kill(group, libc::SIGSTOP) };
            kill_running(job);
            // SAFETY: as above, the process group of a child we started.
            unsafe { libc::kill(group, libc::SIGKILL) };
            let _ = child.wait();
            // Gone once the kernel has ended their IO.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while !running(job).is_empty() && std::time::Instant::now() < deadline {
                kill_running(job);
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            bail!("fio stopped, its test file removed");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    out.rewind()?;
    out.read_to_string(&mut stdout)?;
    err.rewind()?;
    err.read_to_string(&mut stderr)?;
    Ok((status, stdout, stderr))
}

/// Live processes running fio on `job`: fio and its workers, which call
/// setsid (they leave fio's process group and outlive a fio that is killed:
/// PR_SET_PDEATHSIG is not inherited), all with fio's command line. Zombies
/// (no command line) are not counted.
fn running(job: &Path) -> Vec<i32> {
    let needle = job.as_os_str().as_encoded_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                c.split(|b| *b == 0).any(|arg| arg == needle)
                    && c.split(|b| *b == 0).next().is_some_and(|a| a.ends_with(b"fio"))
            })
        })
        .collect()
}

/// SIGKILL to every process running fio on `job`.
fn kill_running(job: &Path) {
    for pid in running(job) {
        // SAFETY: a signal to a fio process running rumbench's own job file.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

pub fn which_fio() -> Result<PathBuf> {
    for dir in std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default() {
        let p = dir.join("fio");
        if p.is_file() {
            return Ok(p);
        }
    }
    bail!("fio is not installed (Debian's package fio; scripts/setup.sh installs it)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_fio_output_is_read() {
        let json = include_str!("../../../../tests/fixtures/fio-3.33-device.json");
        let b = parse(json, 1 << 28, 2).unwrap();
        assert_eq!(b.fio_version, "fio-3.33");
        assert_eq!(b.random_reads.len(), 12);
        let qd1 = &b.random_reads[0];
        assert_eq!((qd1.block_bytes, qd1.queue_depth), (4096, 1));
        assert!(qd1.iops > 0.0 && qd1.p50_us.unwrap() > 0.0 && qd1.p99_us.unwrap() >= qd1.p50_us.unwrap());
        assert!(b.seq_write_mb_s > 0.0 && b.random_write_4k_iops > 0.0 && b.fdatasync_per_s > 0.0);
    }

    #[test]
    fn a_failed_or_empty_job_is_an_error_not_a_zero() {
        let json = include_str!("../../../../tests/fixtures/fio-3.33-device.json");
        let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
        v["jobs"][3]["read"]["iops"] = 0.0.into();
        assert!(parse(&v.to_string(), 1, 1).unwrap_err().to_string().contains("measured nothing"));
        v["jobs"][3]["error"] = 5.into();
        assert!(parse(&v.to_string(), 1, 1).unwrap_err().to_string().contains("failed with error 5"));
        assert!(parse("{}", 1, 1).is_err());
    }

    #[test]
    fn read_iops_takes_the_block_size_at_or_above_and_the_depth_at_or_below() {
        let point = |bs, qd, iops| ReadPoint { block_bytes: bs, queue_depth: qd, iops, p50_us: None, p99_us: None };
        let b = FioBaseline {
            fio_version: "fio".into(),
            file_bytes: 0,
            runtime_s: 0,
            random_reads: vec![point(4096, 1, 10.0), point(4096, 4, 30.0), point(16384, 1, 8.0), point(16384, 4, 20.0)],
            seq_write_mb_s: 1.0,
            random_write_4k_iops: 1.0,
            fdatasync_per_s: 1.0,
            fdatasync_p50_us: None,
            fdatasync_p99_us: None,
        };
        assert_eq!(b.read_iops(4096, 1), Some(10.0));
        assert_eq!(b.read_iops(4096, 3), Some(10.0));
        assert_eq!(b.read_iops(4096, 8), Some(30.0));
        assert_eq!(b.read_iops(8192, 4), Some(20.0));
        assert_eq!(b.read_iops(65536, 4), Some(20.0), "above every size: the largest measured");
        assert_eq!(b.read_iops(4096, 0), Some(10.0));
    }
}
