//! Which block device(s) hold a data dir, and what they are.
//!
//! Resolution: `stat(path).st_dev` gives major:minor; `/sys/dev/block/M:m`
//! links to the device's sysfs directory. A partition (it has a `partition`
//! file) is replaced by its parent disk; a device-mapper (dm-*) or md (md*)
//! device, which has entries under `slaves/`, is replaced by its slaves,
//! recursively (dm on md on partitions works), until whole disks remain.
//!
//! **Which counters.** For a stacked device we sum the /proc/diskstats
//! counters of the underlying whole disks rather than use the dm/md device's
//! own: the metrics count bytes that reach storage (write_amp), and only the
//! physical disks show RAID mirroring/parity, dm-crypt/thin overhead, and
//! discards as the hardware sees them. The price is that IO to other
//! partitions or volumes on the same disks is counted too; `fs_device` names
//! the device the filesystem sits on, and [`DataDirDevice::fs_device_counters`]
//! reads its own counters, so a report can show both when they differ.
//! Queue attributes (model, rotational, scheduler, ...) are also the disks':
//! partitions have no `queue/` directory.
//!
//! IO figures are flagged as not meaningful (with a reason) for tmpfs, ramfs,
//! overlay and other filesystems with no block device behind them (virtiofs,
//! 9p, nfs, ...), and for zram/ram/loop devices.
//!
//! The mount is found in `/proc/self/mountinfo` as the entry with the longest
//! mount point that is a prefix of the path (the last one on ties, since
//! later mounts cover earlier ones). mountinfo is parsed here rather than by
//! procfs because procfs keeps options in a HashMap (their order is lost) and
//! leaves octal escapes (`\040`) in paths.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use serde::Serialize;

use super::diskstats::DiskCounters;
use super::{bracketed, read_trimmed, read_u64, Probe, Roots};

/// One line of /proc/PID/mountinfo.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MountEntry {
    /// `st_dev` of files on this filesystem, as "major:minor".
    pub majmin: String,
    pub mount_point: PathBuf,
    pub fs_type: String,
    /// Mount source, such as `/dev/sda1`; `none` for many virtual filesystems.
    pub source: String,
    /// Per-mount options, as the kernel lists them (`rw,noatime`).
    pub mount_options: String,
    /// Per-superblock (filesystem) options (`rw,discard,errors=remount-ro`).
    pub super_options: String,
}

/// Undoes mountinfo's octal escapes (`\040` is a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            let v = (b[i + 1] - b'0') as u32 * 64 + (b[i + 2] - b'0') as u32 * 8 + (b[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl MountEntry {
    /// Parses one mountinfo line:
    /// `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`.
    pub fn parse_line(line: &str) -> Result<MountEntry> {
        let bad = || anyhow!("bad mountinfo line {line:?}");
        let (left, right) = line.split_once(" - ").ok_or_else(bad)?;
        let l: Vec<&str> = left.split(' ').collect();
        let r: Vec<&str> = right.split(' ').collect();
        if l.len() < 6 || r.len() < 3 {
            return Err(bad());
        }
        Ok(MountEntry {
            majmin: l[2].to_string(),
            mount_point: PathBuf::from(unescape(l[4])),
            mount_options: l[5].to_string(),
            fs_type: r[0].to_string(),
            source: unescape(r[1]),
            super_options: r[2].to_string(),
        })
    }

    /// Parses a whole mountinfo text; malformed lines are skipped.
    pub fn parse_all(text: &str) -> Vec<MountEntry> {
        text.lines().filter_map(|l| MountEntry::parse_line(l).ok()).collect()
    }

    /// The mount holding `path` (absolute, normalized): the longest mount
    /// point that is a prefix of it, the last such entry on ties.
    pub fn find<'a>(entries: &'a [MountEntry], path: &Path) -> Option<&'a MountEntry> {
        let mut best: Option<&MountEntry> = None;
        for e in entries {
            if path.starts_with(&e.mount_point)
                && best.is_none_or(|b| e.mount_point.components().count() >= b.mount_point.components().count())
            {
                best = Some(e);
            }
        }
        best
    }
}

/// Filesystem types whose data lives in memory or elsewhere, so block device
/// counters say nothing about them.
fn fs_type_not_meaningful(fs_type: &str) -> Option<&'static str> {
    match fs_type {
        "tmpfs" | "ramfs" | "devtmpfs" | "hugetlbfs" => Some("the filesystem is in memory"),
        "overlay" | "aufs" | "fuse-overlayfs" => {
            Some("overlay filesystem (container layer): its IO cannot be attributed to one device")
        }
        _ => None,
    }
}

/// Queue and identity attributes of one whole disk from sysfs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockDeviceInfo {
    /// Kernel name (`sda`, `nvme0n1`, `vda`).
    pub name: String,
    pub model: Probe<String>,
    pub rotational: Probe<bool>,
    pub size_bytes: Probe<u64>,
    pub logical_block_size: Probe<u64>,
    pub physical_block_size: Probe<u64>,
    pub minimum_io_size: Probe<u64>,
    pub max_sectors_kb: Probe<u64>,
    /// The selected IO scheduler (the bracketed entry of queue/scheduler).
    pub scheduler: Probe<String>,
    /// 0 means the device does not support discard.
    pub discard_granularity: Probe<u64>,
}

impl BlockDeviceInfo {
    /// Reads the attributes of the disk whose sysfs directory is `dir`.
    pub fn read(dir: &Path) -> BlockDeviceInfo {
        let q = dir.join("queue");
        let model = match read_trimmed(&dir.join("device/model")) {
            Probe::Value(m) if !m.is_empty() => {
                let vendor = read_trimmed(&dir.join("device/vendor")).value().cloned().unwrap_or_default();
                // SCSI/SATA vendors are padded and often just "ATA".
                if vendor.is_empty() || vendor == "ATA" || m.starts_with(&vendor) {
                    Probe::Value(m)
                } else {
                    Probe::Value(format!("{vendor} {m}"))
                }
            }
            Probe::Value(_) => Probe::Unavailable("device/model is empty".into()),
            Probe::Unavailable(_) => Probe::Unavailable("no device/model in sysfs (virtual disk?)".into()),
        };
        let scheduler = match read_trimmed(&q.join("scheduler")) {
            Probe::Value(s) => match bracketed(&s) {
                Some(v) => Probe::Value(v),
                None => Probe::Unavailable(format!("cannot tell the selected scheduler from {s:?}")),
            },
            Probe::Unavailable(r) => Probe::Unavailable(r),
        };
        BlockDeviceInfo {
            name: file_name(dir),
            model,
            rotational: read_u64(&q.join("rotational")).map(|v| v != 0),
            size_bytes: read_u64(&dir.join("size")).map(|s| s * 512),
            logical_block_size: read_u64(&q.join("logical_block_size")),
            physical_block_size: read_u64(&q.join("physical_block_size")),
            minimum_io_size: read_u64(&q.join("minimum_io_size")),
            max_sectors_kb: read_u64(&q.join("max_sectors_kb")),
            scheduler,
            discard_granularity: read_u64(&q.join("discard_granularity")),
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Space of the filesystem holding the data dir (statvfs), as `df` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FsSpace {
    pub size_bytes: u64,
    pub used_bytes: u64,
    /// Free to unprivileged users.
    pub avail_bytes: u64,
    /// used / (used + avail) * 100, as df's Use%.
    pub percent_full: f64,
}

impl FsSpace {
    /// statvfs(path).
    pub fn of(path: &Path) -> Result<FsSpace> {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
        // SAFETY: statvfs is plain data; zeroed is a valid value.
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: valid C string and out pointer.
        if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
            return Err(std::io::Error::last_os_error()).with_context(|| format!("statvfs {}", path.display()));
        }
        let f = s.f_frsize as u64;
        let size = s.f_blocks as u64 * f;
        let used = (s.f_blocks as u64).saturating_sub(s.f_bfree as u64) * f;
        let avail = s.f_bavail as u64 * f;
        let percent_full = if used + avail > 0 { used as f64 * 100.0 / (used + avail) as f64 } else { 0.0 };
        Ok(FsSpace { size_bytes: size, used_bytes: used, avail_bytes: avail, percent_full })
    }
}

/// The storage under a data dir: mount, filesystem, and the block devices
/// whose counters measure its IO.
#[derive(Debug, Clone, Serialize)]
pub struct DataDirDevice {
    /// The data dir as given.
    pub path: PathBuf,
    /// The existing directory that was examined: `path` canonicalized, or its
    /// nearest existing ancestor when the data dir does not exist yet.
    pub examined: PathBuf,
    /// `st_dev` of `examined`, "major:minor".
    pub st_dev: String,
    pub mount: Option<MountEntry>,
    /// The block device the filesystem sits on (`sda1`, `dm-0`, `md0`).
    pub fs_device: Option<String>,
    /// Device-mapper name of `fs_device` (`vg0-data`), if it is one.
    pub dm_name: Option<String>,
    /// Whole disks whose /proc/diskstats counters are summed for the data
    /// dir's IO (`sda`; `nvme0n1`; `sdb`,`sdc` under a RAID1 md0).
    pub counted_devices: Vec<String>,
    /// Attributes of each counted disk.
    pub disks: Vec<BlockDeviceInfo>,
    /// Set when the IO figures are not meaningful for this data dir, with the reason.
    pub io_not_meaningful: Option<String>,
    pub space: Probe<FsSpace>,
    #[serde(skip)]
    proc_root: PathBuf,
}

impl DataDirDevice {
    /// Resolves the device of `path` on the running system. `path` need not
    /// exist yet: its nearest existing ancestor is examined instead.
    pub fn resolve(path: &Path) -> Result<DataDirDevice> {
        use std::os::unix::fs::MetadataExt;
        let mut existing = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir()?.join(path) };
        let canonical = loop {
            match existing.canonicalize() {
                Ok(c) => break c,
                Err(e) => match existing.parent() {
                    Some(p) => existing = p.to_path_buf(),
                    None => return Err(e).with_context(|| format!("no existing ancestor of {}", path.display())),
                },
            }
        };
        let md = std::fs::metadata(&canonical).with_context(|| format!("stat {}", canonical.display()))?;
        let dev = md.dev();
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        let mut d = DataDirDevice::resolve_with(&canonical, (major, minor), &Roots::live());
        d.path = path.to_path_buf();
        d.space = Probe::from_result(FsSpace::of(&canonical));
        Ok(d)
    }

    /// Resolution with explicit inputs, for fixtures: `examined` is an
    /// absolute normalized path, `dev` its st_dev. Reads
    /// `<proc>/self/mountinfo` and `<sys>/...`; does not stat anything, so
    /// `space` is left unavailable.
    pub fn resolve_with(examined: &Path, dev: (u32, u32), roots: &Roots) -> DataDirDevice {
        let st_dev = format!("{}:{}", dev.0, dev.1);
        let mounts = std::fs::read_to_string(roots.proc.join("self/mountinfo"))
            .map(|t| MountEntry::parse_all(&t))
            .unwrap_or_default();
        let mount = MountEntry::find(&mounts, examined).cloned();
        let mut d = DataDirDevice {
            path: examined.to_path_buf(),
            examined: examined.to_path_buf(),
            st_dev: st_dev.clone(),
            mount: mount.clone(),
            fs_device: None,
            dm_name: None,
            counted_devices: Vec::new(),
            disks: Vec::new(),
            io_not_meaningful: None,
            space: Probe::Unavailable("not measured".into()),
            proc_root: roots.proc.clone(),
        };
        let fs_type = mount.as_ref().map(|m| m.fs_type.as_str()).unwrap_or("unknown");
        if let Some(why) = fs_type_not_meaningful(fs_type) {
            d.io_not_meaningful = Some(format!("data dir is on {fs_type}: {why}"));
            return d;
        }
        // The device of st_dev; failing that (btrfs reports an anonymous
        // st_dev), the mount source when it names a block device.
        let by_dev = roots.sys.join("dev/block").join(&st_dev).canonicalize().ok();
        let dev_dir = by_dev.or_else(|| mount.as_ref().and_then(|m| device_of_source(&roots.sys, &m.source)));
        let Some(dev_dir) = dev_dir else {
            d.io_not_meaningful = Some(format!(
                "no block device behind the data dir ({fs_type}, st_dev {st_dev}, source {}): \
                 network, virtual or host-shared filesystem",
                mount.as_ref().map(|m| m.source.as_str()).unwrap_or("unknown")
            ));
            return d;
        };
        d.fs_device = Some(file_name(&dev_dir));
        d.dm_name = read_trimmed(&dev_dir.join("dm/name")).value().cloned();
        let mut leaves = Vec::new();
        collect_disks(&dev_dir, 0, &mut leaves);
        let mut seen = BTreeSet::new();
        leaves.retain(|p| seen.insert(p.clone()));
        d.counted_devices = leaves.iter().map(|p| file_name(p)).collect();
        d.disks = leaves.iter().map(|p| BlockDeviceInfo::read(p)).collect();
        let in_memory: Vec<&String> = d
            .counted_devices
            .iter()
            .filter(|n| n.starts_with("zram") || n.starts_with("ram") || n.starts_with("loop"))
            .collect();
        if !in_memory.is_empty() {
            d.io_not_meaningful = Some(format!(
                "data dir is on {}: a RAM disk (zram/ram) or a loop device, whose IO does not reach storage as counted",
                in_memory.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        d
    }

    /// The data dir's storage counters now: the sum over `counted_devices`.
    pub fn counters(&self) -> Result<DiskCounters> {
        if let Some(why) = &self.io_not_meaningful {
            if self.counted_devices.is_empty() {
                return Err(anyhow!("no storage counters: {why}"));
            }
        }
        DiskCounters::read(&self.proc_root, &self.counted_devices)
    }

    /// Counters of the device the filesystem sits on (`sda1`, `dm-0`),
    /// excluding other partitions/volumes but also RAID and dm overhead.
    pub fn fs_device_counters(&self) -> Result<DiskCounters> {
        let dev = self.fs_device.as_ref().ok_or_else(|| anyhow!("data dir has no block device"))?;
        DiskCounters::read(&self.proc_root, std::slice::from_ref(dev))
    }

    /// True when the IO figures of this data dir mean something.
    pub fn io_meaningful(&self) -> bool {
        self.io_not_meaningful.is_none()
    }
}

/// Writes back all dirty data of the filesystem holding `dir` (syncfs(2)),
/// so a step's writes still in the page cache reach the device counters
/// before the step's end snapshot. Not counted by the sync counters, which
/// count only the engine's fsync/fdatasync/msync/sync_file_range calls.
pub fn sync_filesystem(dir: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(dir)?;
    // SAFETY: valid open fd.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The sysfs directory of the block device a mount source names, if any
/// (`/dev/sda1`, `/dev/mapper/vg0-data`, `/dev/dm-0`).
fn device_of_source(sys: &Path, source: &str) -> Option<PathBuf> {
    let rel = source.strip_prefix("/dev/")?;
    let class = sys.join("class/block");
    if let Some(dm) = rel.strip_prefix("mapper/") {
        for e in std::fs::read_dir(&class).ok()?.flatten() {
            if read_trimmed(&e.path().join("dm/name")).value().map(|s| s.as_str()) == Some(dm) {
                return e.path().canonicalize().ok();
            }
        }
        return None;
    }
    let name = Path::new(rel).file_name()?.to_string_lossy().replace('/', "!");
    if let Ok(p) = class.join(&name).canonicalize() {
        return Some(p);
    }
    // A symlink such as /dev/disk/by-uuid/...: follow it on the live system.
    let target = Path::new(source).canonicalize().ok()?;
    class.join(target.file_name()?).canonicalize().ok()
}

/// Appends the whole disks under the block device at `dev_dir`.
fn collect_disks(dev_dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let disk = if dev_dir.join("partition").exists() {
        dev_dir.parent().map(Path::to_path_buf).unwrap_or_else(|| dev_dir.to_path_buf())
    } else {
        dev_dir.to_path_buf()
    };
    let mut slaves: Vec<PathBuf> = std::fs::read_dir(disk.join("slaves"))
        .map(|rd| rd.flatten().filter_map(|e| e.path().canonicalize().ok()).collect())
        .unwrap_or_default();
    slaves.sort();
    if slaves.is_empty() || depth >= 8 {
        out.push(disk);
    } else {
        for s in slaves {
            collect_disks(&s, depth + 1, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::os::fixtures;

    fn roots() -> Roots {
        Roots::fixture(&fixtures())
    }

    #[test]
    fn mountinfo_parsing_and_escapes() {
        let text = std::fs::read_to_string(fixtures().join("proc/self/mountinfo")).unwrap();
        let m = MountEntry::parse_all(&text);
        let root = m.iter().find(|e| e.mount_point == Path::new("/")).unwrap();
        assert_eq!(root.fs_type, "ext4");
        assert_eq!(root.source, "/dev/sda1");
        assert_eq!(root.mount_options, "rw,relatime");
        assert_eq!(root.super_options, "rw,errors=remount-ro");
        assert_eq!(root.majmin, "8:1");
        let spaced = m.iter().find(|e| e.fs_type == "vfat").unwrap();
        assert_eq!(spaced.mount_point, Path::new("/media/usb stick"));
        let shm = MountEntry::find(&m, Path::new("/dev/shm/bench")).unwrap();
        assert_eq!((shm.fs_type.as_str(), shm.source.as_str()), ("tmpfs", "tmpfs"));
        assert_eq!(MountEntry::find(&m, Path::new("/data/db/x")).unwrap().fs_type, "xfs");
        // A later mount over the same point wins.
        assert_eq!(MountEntry::find(&m, Path::new("/stacked/x")).unwrap().fs_type, "ext4");
        // Prefix is by component: /database is not under /data.
        assert_eq!(MountEntry::find(&m, Path::new("/database")).unwrap().mount_point, Path::new("/"));
    }

    #[test]
    fn partition_resolves_to_parent_disk() {
        let d = DataDirDevice::resolve_with(Path::new("/home/u/db"), (8, 1), &roots());
        assert_eq!(d.fs_device.as_deref(), Some("sda1"));
        assert_eq!(d.counted_devices, ["sda"]);
        assert!(d.io_meaningful());
        let m = d.mount.as_ref().unwrap();
        assert_eq!((m.fs_type.as_str(), m.super_options.as_str()), ("ext4", "rw,errors=remount-ro"));
        let sda = &d.disks[0];
        assert_eq!(sda.model.value().map(String::as_str), Some("ST4000DM004-2CV104"));
        assert_eq!(sda.rotational, Probe::Value(true));
        assert_eq!(sda.logical_block_size, Probe::Value(512));
        assert_eq!(sda.physical_block_size, Probe::Value(4096));
        assert_eq!(sda.minimum_io_size, Probe::Value(4096));
        assert_eq!(sda.max_sectors_kb, Probe::Value(1280));
        assert_eq!(sda.scheduler, Probe::Value("bfq".to_string()));
        assert_eq!(sda.discard_granularity, Probe::Value(0));
        assert_eq!(sda.size_bytes, Probe::Value(7_814_037_168 * 512));
        let c = d.counters().unwrap();
        assert_eq!(c.devices, ["sda"]);
        assert_eq!(c.sectors_written, 101_322_944);
        assert_eq!(d.fs_device_counters().unwrap().devices, ["sda1"]);
    }

    #[test]
    fn dm_resolves_through_slaves_to_nvme_disk() {
        let d = DataDirDevice::resolve_with(Path::new("/data/db"), (253, 0), &roots());
        assert_eq!(d.fs_device.as_deref(), Some("dm-0"));
        assert_eq!(d.dm_name.as_deref(), Some("vg0-data"));
        assert_eq!(d.counted_devices, ["nvme0n1"]);
        let m = d.mount.as_ref().unwrap();
        assert_eq!(m.fs_type, "xfs");
        assert_eq!(m.mount_options, "rw,noatime");
        let n = &d.disks[0];
        assert_eq!(n.model.value().map(String::as_str), Some("Samsung SSD 980 PRO 1TB"));
        assert_eq!(n.rotational, Probe::Value(false));
        assert_eq!(n.scheduler, Probe::Value("none".to_string()));
        assert_eq!(n.discard_granularity, Probe::Value(512));
        let c = d.counters().unwrap();
        assert_eq!(c.sectors_discarded, Some(1_209_620_480));
        assert_eq!(c.flushes, Some(301_522));
        assert_eq!(d.fs_device_counters().unwrap().writes, 5_310_051);
    }

    #[test]
    fn md_raid1_sums_both_disks() {
        let d = DataDirDevice::resolve_with(Path::new("/raid/db"), (9, 0), &roots());
        assert_eq!(d.fs_device.as_deref(), Some("md0"));
        assert_eq!(d.counted_devices, ["sdb", "sdc"]);
        let c = d.counters().unwrap();
        assert_eq!(c.sectors_written, 22_911_306 + 22_911_320);
        assert_eq!(d.disks.len(), 2);
    }

    #[test]
    fn in_memory_and_deviceless_filesystems_are_flagged() {
        let r = roots();
        let shm = DataDirDevice::resolve_with(Path::new("/dev/shm/db"), (0, 45), &r);
        assert!(shm.io_not_meaningful.as_deref().unwrap().contains("tmpfs"), "{shm:?}");
        assert!(shm.counters().is_err());
        let ov = DataDirDevice::resolve_with(Path::new("/var/lib/docker/overlay2/abc/merged/db"), (0, 50), &r);
        assert!(ov.io_not_meaningful.as_deref().unwrap().contains("overlay"));
        let vfs = DataDirDevice::resolve_with(Path::new("/shared/db"), (0, 60), &r);
        assert!(vfs.io_not_meaningful.as_deref().unwrap().contains("no block device"), "{vfs:?}");
        assert!(vfs.counted_devices.is_empty());
        let z = DataDirDevice::resolve_with(Path::new("/zram/db"), (251, 0), &r);
        assert_eq!(z.counted_devices, ["zram0"]);
        assert!(z.io_not_meaningful.as_deref().unwrap().contains("zram0"));
    }

    #[test]
    fn anonymous_st_dev_falls_back_to_mount_source() {
        // btrfs gives files an anonymous st_dev (0:61); the mount source names the disk.
        let d = DataDirDevice::resolve_with(Path::new("/btr/db"), (0, 61), &roots());
        assert_eq!(d.fs_device.as_deref(), Some("vda"));
        assert_eq!(d.counted_devices, ["vda"]);
        assert!(d.io_meaningful());
        assert!(d.disks[0].model.reason().unwrap().contains("virtual"));
        assert_eq!(d.disks[0].scheduler, Probe::Value("mq-deadline".to_string()));
        // /dev/mapper/NAME is found through dm/name.
        assert!(device_of_source(&roots().sys, "/dev/mapper/vg0-data").unwrap().ends_with("dm-0"));
    }

    #[test]
    fn unescape_octal() {
        assert_eq!(unescape(r"/a\040b\134c\011"), "/a b\\c\t");
        assert_eq!(unescape(r"/plain\0"), r"/plain\0");
    }

    #[test]
    fn live_resolve_tmp() {
        let d = DataDirDevice::resolve(Path::new("/tmp/rumbench-does-not-exist-yet/../nor-this/db")).unwrap();
        assert_eq!(d.examined, Path::new("/tmp").canonicalize().unwrap());
        assert!(d.mount.is_some(), "{d:?}");
        assert!(d.space.value().is_some(), "{d:?}");
        if d.io_meaningful() {
            assert!(!d.counted_devices.is_empty());
            d.counters().unwrap();
        }
        eprintln!("{}", serde_json::to_string_pretty(&d).unwrap());
    }

    #[test]
    fn live_dev_shm_is_in_memory() {
        let Ok(d) = DataDirDevice::resolve(Path::new("/dev/shm")) else { return };
        if d.mount.as_ref().is_some_and(|m| m.fs_type == "tmpfs") {
            assert!(!d.io_meaningful(), "{d:?}");
        }
    }

    #[test]
    fn live_counters_see_a_written_back_write() {
        let dir = tempfile::tempdir().unwrap();
        let d = DataDirDevice::resolve(dir.path()).unwrap();
        if !d.io_meaningful() {
            return;
        }
        let before = d.counters().unwrap();
        let mut f = std::fs::File::create(dir.path().join("f")).unwrap();
        std::io::Write::write_all(&mut f, &vec![5u8; 8 << 20]).unwrap();
        drop(f);
        sync_filesystem(dir.path()).unwrap();
        let delta = d.counters().unwrap().since(&before);
        // Other processes may write too, so at least, not exactly.
        assert!(delta.bytes_written() >= 8 << 20, "{delta:?}");
    }
}
