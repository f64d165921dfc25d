//! The environment captured with every result and printed by `rumbench
//! sysinfo`, and the warnings derived from it.
//!
//! Nothing here is fatal: a value the machine does not expose (no cpufreq in
//! a VM, no smartctl, no permission) is a [`Probe::Unavailable`] with the reason.

use crate::binary::Binary;
use std::io::{BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use procfs::FromBufRead;
use serde::Serialize;

use super::device::DataDirDevice;
use super::{bracketed, read_trimmed, Probe, Roots};

/// Turbo / boost state of the CPU frequency driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurboState {
    pub enabled: bool,
    /// The sysfs file it was read from.
    pub source: String,
}

/// One SMART attribute of an ATA device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SmartAttribute {
    pub id: u64,
    pub name: String,
    /// Normalized value (for wear attributes usually % of life left).
    pub normalized: Option<u64>,
    pub raw: Option<u64>,
}

/// Wear-related SMART data from `smartctl -A -j`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct SmartWear {
    /// smartctl's device type (`nvme`, `sat`, ...).
    pub device_type: Option<String>,
    /// NVMe: percentage of rated endurance used (may exceed 100).
    pub percentage_used: Option<u64>,
    /// NVMe: available spare, percent.
    pub available_spare: Option<u64>,
    /// NVMe media_errors; ATA: raw value of attribute 187 (Reported_Uncorrect).
    pub media_errors: Option<u64>,
    pub power_on_hours: Option<u64>,
    /// NVMe: host bytes written (data units of 512,000 bytes).
    pub host_bytes_written: Option<u64>,
    /// ATA attribute 177 (Wear_Leveling_Count, Samsung and others).
    pub wear_leveling_count: Option<SmartAttribute>,
    /// Other ATA wear/health attributes present: 5, 173, 187, 197, 202, 231, 233, 241.
    pub ata_wear_attributes: Vec<SmartAttribute>,
}

/// SMART wear of one disk, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmartInfo {
    /// `/dev/...` path given to smartctl.
    pub device: String,
    pub wear: Probe<SmartWear>,
}

/// The environment of a run.
#[derive(Debug, Clone, Serialize)]
pub struct SystemInfo {
    pub rumbench_version: String,
    /// Commit the binary was built from ("-dirty" when the tree had changes).
    pub git_commit: Probe<String>,
    pub hostname: Probe<String>,
    /// uname release, such as `6.1.0-18-amd64`.
    pub kernel_release: Probe<String>,
    /// uname version, such as `#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1`.
    pub kernel_version: Probe<String>,
    pub cpu_model: Probe<String>,
    /// Processors listed in /proc/cpuinfo (hardware threads).
    pub logical_cpus: Probe<usize>,
    /// Distinct (physical id, core id) pairs in /proc/cpuinfo.
    pub physical_cores: Probe<usize>,
    /// CPUs online (/sys/devices/system/cpu/online).
    pub online_cpus: Probe<usize>,
    /// CPUs this process may run on (affinity and cgroup quota).
    pub usable_cpus: Probe<usize>,
    /// cpufreq scaling governor; several comma-separated if CPUs differ.
    pub governor: Probe<String>,
    pub turbo: Probe<TurboState>,
    pub clocksource: Probe<String>,
    pub mem_total_bytes: Probe<u64>,
    pub mem_available_bytes: Probe<u64>,
    pub swap_total_bytes: Probe<u64>,
    pub swap_free_bytes: Probe<u64>,
    /// /sys/kernel/mm/transparent_hugepage/enabled (selected entry).
    pub transparent_hugepages: Probe<String>,
    /// The C heap allocator in use (what librocksdb and the bundled C code
    /// call), and allocator-related environment variables that are set.
    pub allocator: String,
    /// The data dir's device; `None` when no data dir was given.
    pub data_dir: Option<Probe<DataDirDevice>>,
    /// SMART wear of each disk counted for the data dir.
    pub smart: Vec<SmartInfo>,
}

impl SystemInfo {
    /// Captures the running system's environment, and the data dir's device
    /// and SMART wear when `data_dir` is given. Takes up to a few seconds
    /// (smartctl); never fails.
    pub fn capture(binary: &Binary, data_dir: Option<&Path>) -> SystemInfo {
        SystemInfo::capture_at(binary, &Roots::live(), data_dir)
    }

    /// As [`SystemInfo::capture`], reading /proc and /sys under `roots`
    /// (uname, the data dir's stat and smartctl are always the live system's).
    pub fn capture_at(binary: &Binary, roots: &Roots, data_dir: Option<&Path>) -> SystemInfo {
        let cpu = roots.sys.join("devices/system/cpu");
        let (cpu_model, logical_cpus, physical_cores) = cpuinfo(&roots.proc);
        let (kernel_release, kernel_version, hostname) = uname();
        let mem = std::fs::File::open(roots.proc.join("meminfo"))
            .map_err(|e| e.to_string())
            .and_then(|f| procfs::Meminfo::from_buf_read(BufReader::new(f)).map_err(|e| e.to_string()));
        let memv = |f: fn(&procfs::Meminfo) -> Option<u64>, what: &str| match &mem {
            Ok(m) => {
                f(m).map(Probe::Value).unwrap_or_else(|| Probe::Unavailable(format!("{what} not in /proc/meminfo")))
            }
            Err(e) => Probe::Unavailable(format!("/proc/meminfo: {e}")),
        };
        let data_dir = data_dir.map(|p| Probe::from_result(DataDirDevice::resolve(p)));
        let smart = match &data_dir {
            Some(Probe::Value(d)) => {
                d.counted_devices.iter().map(|n| smart_of(&format!("/dev/{}", n.replace('!', "/")))).collect()
            }
            _ => Vec::new(),
        };
        SystemInfo {
            rumbench_version: binary.version.to_string(),
            git_commit: match binary.git_commit {
                Some(c) => Probe::Value(c.to_string()),
                None => Probe::Unavailable("not built from a git checkout (or git was missing at build time)".into()),
            },
            hostname,
            kernel_release,
            kernel_version,
            cpu_model,
            logical_cpus,
            physical_cores,
            online_cpus: read_trimmed(&cpu.join("online")).value().and_then(|s| count_cpu_list(s)).map_or_else(
                || Probe::Unavailable(format!("cannot read {}", cpu.join("online").display())),
                Probe::Value,
            ),
            usable_cpus: Probe::from_result(std::thread::available_parallelism().map(|n| n.get())),
            governor: governor(&cpu),
            turbo: turbo(&cpu),
            clocksource: read_trimmed(&roots.sys.join("devices/system/clocksource/clocksource0/current_clocksource")),
            mem_total_bytes: memv(|m| Some(m.mem_total), "MemTotal"),
            mem_available_bytes: memv(|m| m.mem_available, "MemAvailable"),
            swap_total_bytes: memv(|m| Some(m.swap_total), "SwapTotal"),
            swap_free_bytes: memv(|m| Some(m.swap_free), "SwapFree"),
            transparent_hugepages: match read_trimmed(&roots.sys.join("kernel/mm/transparent_hugepage/enabled")) {
                Probe::Value(s) => {
                    bracketed(&s).map_or_else(|| Probe::Unavailable(format!("unexpected value {s:?}")), Probe::Value)
                }
                Probe::Unavailable(r) => Probe::Unavailable(r),
            },
            allocator: allocator(&roots.proc),
            data_dir,
            smart,
        }
    }
}

/// (model, logical cpus, physical cores) from `<proc>/cpuinfo`.
fn cpuinfo(proc: &Path) -> (Probe<String>, Probe<usize>, Probe<usize>) {
    let path = proc.join("cpuinfo");
    let info = match std::fs::File::open(&path) {
        Ok(f) => procfs::CpuInfo::from_buf_read(BufReader::new(f)),
        Err(e) => {
            let r = format!("{}: {e}", path.display());
            return (Probe::Unavailable(r.clone()), Probe::Unavailable(r.clone()), Probe::Unavailable(r));
        }
    };
    let info = match info {
        Ok(i) => i,
        Err(e) => {
            let r = format!("{}: {e}", path.display());
            return (Probe::Unavailable(r.clone()), Probe::Unavailable(r.clone()), Probe::Unavailable(r));
        }
    };
    let n = info.num_cores();
    let model = info
        .model_name(0)
        // ARM kernels have no "model name"; some list "Hardware" or "CPU part".
        .or_else(|| info.get_field(0, "Hardware"))
        .map(|s| Probe::Value(s.trim().to_string()))
        .unwrap_or_else(|| Probe::Unavailable("no model name in /proc/cpuinfo".into()));
    let mut cores = std::collections::BTreeSet::new();
    for i in 0..n {
        if let (Some(p), Some(c)) = (info.get_field(i, "physical id"), info.get_field(i, "core id")) {
            cores.insert((p.to_string(), c.to_string()));
        }
    }
    let physical = if cores.is_empty() {
        Probe::Unavailable("no physical id/core id in /proc/cpuinfo".into())
    } else {
        Probe::Value(cores.len())
    };
    let logical = if n > 0 { Probe::Value(n) } else { Probe::Unavailable("no processor in /proc/cpuinfo".into()) };
    (model, logical, physical)
}

/// Number of CPUs in a list such as `0-3,8,10-11`.
fn count_cpu_list(s: &str) -> Option<usize> {
    let mut n = 0;
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => n += b.parse::<usize>().ok()?.checked_sub(a.parse::<usize>().ok()?)? + 1,
            None => {
                part.parse::<usize>().ok()?;
                n += 1
            }
        }
    }
    Some(n)
}

fn governor(cpu: &Path) -> Probe<String> {
    let mut govs = std::collections::BTreeSet::new();
    if let Ok(rd) = std::fs::read_dir(cpu) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.strip_prefix("cpu").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) {
                if let Probe::Value(g) = read_trimmed(&e.path().join("cpufreq/scaling_governor")) {
                    govs.insert(g);
                }
            }
        }
    }
    if govs.is_empty() {
        Probe::Unavailable("no cpufreq scaling_governor (no cpufreq driver: a VM, or the driver is not loaded)".into())
    } else {
        Probe::Value(govs.into_iter().collect::<Vec<_>>().join(","))
    }
}

fn turbo(cpu: &Path) -> Probe<TurboState> {
    let no_turbo = cpu.join("intel_pstate/no_turbo");
    if let Probe::Value(v) = read_trimmed(&no_turbo) {
        return Probe::Value(TurboState { enabled: v == "0", source: no_turbo.display().to_string() });
    }
    let boost = cpu.join("cpufreq/boost");
    if let Probe::Value(v) = read_trimmed(&boost) {
        return Probe::Value(TurboState { enabled: v == "1", source: boost.display().to_string() });
    }
    Probe::Unavailable("unknown: neither intel_pstate/no_turbo nor cpufreq/boost exists (usual in VMs)".into())
}

/// The running kernel's release ("6.1.0-26-amd64").
pub fn kernel_release() -> Probe<String> {
    uname().0
}

fn uname() -> (Probe<String>, Probe<String>, Probe<String>) {
    // SAFETY: utsname is plain data (byte arrays); zeroed is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: u is a valid out pointer.
    if unsafe { libc::uname(&mut u) } != 0 {
        let r = format!("uname: {}", std::io::Error::last_os_error());
        return (Probe::Unavailable(r.clone()), Probe::Unavailable(r.clone()), Probe::Unavailable(r));
    }
    let s = |f: &[libc::c_char]| {
        // SAFETY: uname NUL-terminates each field.
        Probe::Value(unsafe { std::ffi::CStr::from_ptr(f.as_ptr()) }.to_string_lossy().into_owned())
    };
    (s(&u.release), s(&u.version), s(&u.nodename))
}

/// The C allocator in use: a preloaded/linked jemalloc, tcmalloc or mimalloc
/// shows in the process's maps; otherwise glibc malloc. Rust's global
/// allocator is the system one (rumbench sets no #[global_allocator]).
pub fn allocator(proc: &Path) -> String {
    let maps = std::fs::read_to_string(proc.join("self/maps")).unwrap_or_default();
    let lib = ["libjemalloc", "libtcmalloc", "libmimalloc"].iter().find_map(|l| {
        maps.lines().find(|m| m.contains(l)).and_then(|m| m.split_whitespace().nth(5)).map(str::to_string)
    });
    let mut s = match lib {
        Some(path) => format!("{path} (loaded into the process)"),
        None => {
            // SAFETY: returns a static NUL-terminated string.
            let v = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) }.to_string_lossy().into_owned();
            format!("glibc malloc {v}")
        }
    };
    for var in ["LD_PRELOAD", "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "MALLOC_CONF"] {
        if let Ok(v) = std::env::var(var) {
            s.push_str(&format!("; {var}={v}"));
        }
    }
    s
}

extern "C" {
    fn gnu_get_libc_version() -> *const libc::c_char;
}

/// Runs `smartctl -A -j <device>` (15 s limit) and extracts wear attributes.
pub fn smart_of(device: &str) -> SmartInfo {
    let wear = match run_with_timeout(Command::new("smartctl").args(["-A", "-j", device]), Duration::from_secs(15)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Probe::Unavailable("smartctl not installed".into()),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Probe::Unavailable(format!("not permitted to run smartctl: {e}"))
        }
        Err(e) => Probe::Unavailable(format!("smartctl: {e}")),
        Ok((status, out)) => parse_smartctl_json(&out, status),
    };
    SmartInfo { device: device.to_string(), wear }
}

fn run_with_timeout(cmd: &mut Command, limit: Duration) -> std::io::Result<(Option<i32>, String)> {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, format!("no answer within {limit:?}")));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok((status, reader.join().unwrap_or_default()))
}

/// Wear data from smartctl's JSON output; `exit_status` is smartctl's exit
/// code (a bit mask: bit 1 = device open failed, bit 2 = a SMART command failed).
pub fn parse_smartctl_json(json: &str, exit_status: Option<i32>) -> Probe<SmartWear> {
    let v: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => return Probe::Unavailable(format!("smartctl gave no JSON (exit status {exit_status:?}): {e}")),
    };
    let code = v["smartctl"]["exit_status"].as_i64().or(exit_status.map(i64::from)).unwrap_or(0);
    let messages: Vec<String> = v["smartctl"]["messages"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m["string"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    if code & 0b11 != 0 {
        let text = messages.join("; ");
        let lower = text.to_lowercase();
        return Probe::Unavailable(
            if lower.contains("permission denied") || lower.contains("operation not permitted") {
                format!("not permitted: {text}")
            } else if text.is_empty() {
                format!("smartctl failed with exit status {code}")
            } else {
                format!("smartctl could not read the device: {text}")
            },
        );
    }
    let nvme = &v["nvme_smart_health_information_log"];
    let attrs: Vec<SmartAttribute> = v["ata_smart_attributes"]["table"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|a| {
                    Some(SmartAttribute {
                        id: a["id"].as_u64()?,
                        name: a["name"].as_str().unwrap_or("").to_string(),
                        normalized: a["value"].as_u64(),
                        raw: a["raw"]["value"].as_u64(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let attr = |id: u64| attrs.iter().find(|a| a.id == id).cloned();
    let wear = SmartWear {
        device_type: v["device"]["type"].as_str().map(str::to_string),
        percentage_used: nvme["percentage_used"].as_u64(),
        available_spare: nvme["available_spare"].as_u64(),
        media_errors: nvme["media_errors"].as_u64().or_else(|| attr(187).and_then(|a| a.raw)),
        power_on_hours: v["power_on_time"]["hours"].as_u64().or_else(|| nvme["power_on_hours"].as_u64()),
        host_bytes_written: nvme["data_units_written"].as_u64().map(|u| u * 512_000),
        wear_leveling_count: attr(177),
        ata_wear_attributes: attrs
            .iter()
            .filter(|a| [5, 173, 187, 197, 202, 231, 233, 241].contains(&a.id))
            .cloned()
            .collect(),
    };
    if wear == (SmartWear { device_type: wear.device_type.clone(), ..SmartWear::default() }) {
        return Probe::Unavailable(format!(
            "smartctl reported no wear attributes{}",
            if messages.is_empty() { String::new() } else { format!(": {}", messages.join("; ")) }
        ));
    }
    Probe::Value(wear)
}

/// Data filesystem below this percent full: reads may be optimistic.
pub const MOSTLY_EMPTY_PERCENT: f64 = 20.0;

/// The environment warnings a report prints for `info` (empty when none).
pub fn warnings(info: &SystemInfo) -> Vec<String> {
    let mut w = Vec::new();
    if let Probe::Value(cs) = &info.clocksource {
        if cs != "tsc" {
            w.push(format!("clocksource is {cs}, not tsc: timing calls are slower and may distort latencies"));
        }
    }
    if let Probe::Value(t) = &info.turbo {
        if t.enabled {
            w.push(format!("turbo/boost is on ({}): CPU speed varies with load and temperature", t.source));
        }
    }
    match &info.data_dir {
        Some(Probe::Value(d)) => {
            if let Some(why) = &d.io_not_meaningful {
                w.push(format!("IO figures are not meaningful: {why}"));
            }
            if let Probe::Value(s) = &d.space {
                if d.io_meaningful() && s.percent_full < MOSTLY_EMPTY_PERCENT {
                    w.push(format!(
                        "data filesystem is only {:.0}% full: an almost empty device may read faster than a full one (reads may be optimistic)",
                        s.percent_full
                    ));
                }
            }
        }
        Some(Probe::Unavailable(r)) => w.push(format!("data dir device unknown: {r}")),
        None => {}
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::os::device::FsSpace;
    use crate::measure::os::fixtures;

    fn smart_fixture(name: &str) -> String {
        std::fs::read_to_string(fixtures().join("smartctl").join(name)).unwrap()
    }

    #[test]
    fn smart_nvme() {
        let w = parse_smartctl_json(&smart_fixture("nvme.json"), Some(0));
        let w = w.value().unwrap();
        assert_eq!(w.device_type.as_deref(), Some("nvme"));
        assert_eq!(w.percentage_used, Some(3));
        assert_eq!(w.media_errors, Some(0));
        assert_eq!(w.power_on_hours, Some(4_021));
        assert_eq!(w.host_bytes_written, Some(48_117_332 * 512_000));
        assert_eq!(w.available_spare, Some(100));
    }

    #[test]
    fn smart_sata_ssd() {
        let w = parse_smartctl_json(&smart_fixture("sata.json"), Some(0));
        let w = w.value().unwrap();
        assert_eq!(w.power_on_hours, Some(17_520));
        let wl = w.wear_leveling_count.as_ref().unwrap();
        assert_eq!((wl.normalized, wl.raw), (Some(94), Some(112)));
        assert_eq!(w.media_errors, Some(0));
        assert!(w.ata_wear_attributes.iter().any(|a| a.id == 241));
        assert_eq!(w.percentage_used, None);
    }

    #[test]
    fn smart_failures_are_reasons() {
        let p = parse_smartctl_json(&smart_fixture("permission-denied.json"), Some(2));
        assert!(p.reason().unwrap().starts_with("not permitted"), "{p:?}");
        let v = parse_smartctl_json(&smart_fixture("virtio.json"), Some(1));
        assert!(v.reason().unwrap().contains("Unable to detect device type"), "{v:?}");
        assert!(parse_smartctl_json("", Some(127)).reason().is_some());
        assert!(smart_of("/dev/rumbench-no-such-device").wear.reason().is_some());
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(count_cpu_list("0-1\n"), Some(2));
        assert_eq!(count_cpu_list("0-3,8,10-11"), Some(7));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("x"), None);
    }

    fn info_with(clocksource: &str, turbo: Option<bool>, dir: Option<DataDirDevice>) -> SystemInfo {
        let mut i = SystemInfo::capture_at(&Binary::UNRECORDED, &Roots::fixture(&fixtures()), None);
        i.clocksource = Probe::Value(clocksource.to_string());
        i.turbo = match turbo {
            Some(e) => Probe::Value(TurboState { enabled: e, source: "x".into() }),
            None => Probe::Unavailable("unknown".into()),
        };
        i.data_dir = dir.map(Probe::Value);
        i
    }

    #[test]
    fn warnings_for_each_condition() {
        assert!(warnings(&info_with("tsc", Some(false), None)).is_empty());
        assert!(warnings(&info_with("tsc", None, None)).is_empty());
        let w = warnings(&info_with("hpet", Some(true), None));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("hpet") && w[1].contains("turbo"));

        let roots = Roots::fixture(&fixtures());
        let mut d = DataDirDevice::resolve_with(Path::new("/data/db"), (253, 0), &roots);
        d.space = Probe::Value(FsSpace { size_bytes: 100, used_bytes: 5, avail_bytes: 95, percent_full: 5.0 });
        let w = warnings(&info_with("tsc", None, Some(d.clone())));
        assert!(w.len() == 1 && w[0].contains("5% full"), "{w:?}");
        d.space = Probe::Value(FsSpace { size_bytes: 100, used_bytes: 50, avail_bytes: 50, percent_full: 50.0 });
        assert!(warnings(&info_with("tsc", None, Some(d))).is_empty());

        let shm = DataDirDevice::resolve_with(Path::new("/dev/shm/db"), (0, 45), &roots);
        let w = warnings(&info_with("tsc", None, Some(shm)));
        assert!(w.len() == 1 && w[0].contains("tmpfs") && w[0].contains("not meaningful"), "{w:?}");
    }

    #[test]
    fn live_capture() {
        let i = SystemInfo::capture(&Binary::UNRECORDED, Some(Path::new("/tmp")));
        assert!(i.cpu_model.value().is_some(), "{i:?}");
        assert!(i.logical_cpus.value().copied().unwrap_or(0) >= 1);
        assert!(i.mem_total_bytes.value().copied().unwrap_or(0) > 0);
        assert!(i.kernel_release.value().is_some() && i.hostname.value().is_some());
        assert!(i.clocksource.value().is_some());
        let d = i.data_dir.as_ref().unwrap();
        assert!(d.value().is_some(), "{d:?}");
        // Whatever this machine has, each device the data dir's IO is counted
        // on was asked for SMART, by its /dev path, and one without wear data
        // says why.
        let devices: Vec<String> =
            d.value().unwrap().counted_devices.iter().map(|n| format!("/dev/{}", n.replace('!', "/"))).collect();
        assert_eq!(i.smart.iter().map(|s| s.device.clone()).collect::<Vec<_>>(), devices, "{:?}", i.smart);
        for s in &i.smart {
            if let Some(why) = s.wear.reason() {
                assert!(!why.trim().is_empty(), "{}: no reason given", s.device);
            }
        }
        eprintln!("{}", serde_json::to_string_pretty(&i).unwrap());
        eprintln!("warnings: {:?}", warnings(&i));
    }
}
