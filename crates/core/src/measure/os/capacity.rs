//! What the machine has for a run to take, read before anything starts:
//! the memory a process may still use, and a filesystem's free space.

use std::path::Path;

/// Memory this machine can still give a run, and where the figure comes
/// from: /proc/meminfo's MemAvailable, or the cgroup's memory.max less its
/// memory.current when that is lower (a container's limit). None when
/// neither can be read.
pub fn memory_available() -> Option<(u64, String)> {
    memory_available_in(Path::new("/proc/meminfo"), Path::new("/sys/fs/cgroup"), Path::new("/proc/self/cgroup"))
}

fn memory_available_in(meminfo: &Path, cgroup_root: &Path, self_cgroup: &Path) -> Option<(u64, String)> {
    let text = std::fs::read_to_string(meminfo).ok();
    let field = |name: &str| {
        text.as_deref()?
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    let host = field("MemAvailable").map(|b| {
        let total = field("MemTotal").map(|t| format!("; MemTotal {}", human_size(t))).unwrap_or_default();
        (b, format!("MemAvailable in /proc/meminfo{total}"))
    });
    let cgroup = cgroup_memory_left(cgroup_root, self_cgroup);
    match (host, cgroup) {
        (Some(h), Some(c)) if c.0 < h.0 => Some(c),
        (Some(h), _) => Some(h),
        (None, c) => c,
    }
}

/// cgroup v2: this process's group's memory.max less memory.current, when it has a limit.
fn cgroup_memory_left(root: &Path, self_cgroup: &Path) -> Option<(u64, String)> {
    let rel =
        std::fs::read_to_string(self_cgroup).ok()?.lines().find_map(|l| l.strip_prefix("0::").map(str::to_string))?;
    let dir = root.join(rel.trim_start_matches('/'));
    let max: u64 = std::fs::read_to_string(dir.join("memory.max")).ok()?.trim().parse().ok()?;
    let current: u64 = std::fs::read_to_string(dir.join("memory.current")).ok()?.trim().parse().ok()?;
    Some((
        max.saturating_sub(current),
        format!("the cgroup's memory.max {} less its memory.current ({})", human_size(max), dir.display()),
    ))
}

/// Bytes in decimal megabytes, one decimal: "14.1 MB".
pub fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// A size as a user writes it: 64M, 1.5G, 4096.
pub fn human_size(b: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "T"), (1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (unit, suffix) in UNITS {
        if b >= unit {
            return match b % unit {
                0 => format!("{}{suffix}", b / unit),
                _ => format!("{:.1}{suffix}", b as f64 / unit as f64),
            };
        }
    }
    b.to_string()
}

/// Free bytes (to an unprivileged writer) of the filesystem holding `path`,
/// or its nearest existing parent when it does not exist yet.
pub fn free_space(path: &Path) -> Option<u64> {
    let existing = existing_ancestor(path)?;
    super::device::FsSpace::of(&existing).ok().map(|s| s.avail_bytes)
}

/// `path` itself, or the nearest of its parents that exists: the directory
/// whose filesystem a path about to be created will be on. A relative path
/// is made absolute first ("db/x" whose "db" does not exist yet is on the
/// working directory's filesystem; its own ancestors end in "", which
/// exists for no one).
pub fn existing_ancestor(path: &Path) -> Option<std::path::PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    absolute.ancestors().find(|d| d.exists()).map(Path::to_path_buf)
}

/// A resource of the machine an engine option or a server setting takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// Memory (RAM): caches, memtables, buffers the engine may fill.
    Memory,
    /// Space on the data directory's filesystem: a file sized at creation.
    Disk,
}

/// What an option (or a product of options, or a server's setting) takes of one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub resource: Resource,
    pub bytes: u64,
    /// The options that set it, as a user writes them ("rocksdb.block_cache_size=30G";
    /// "sqlite.cache_size=64M x 9 connections").
    pub what: String,
}

impl Claim {
    pub fn memory(bytes: u64, what: String) -> Claim {
        Claim { resource: Resource::Memory, bytes, what }
    }
    pub fn disk(bytes: u64, what: String) -> Claim {
        Claim { resource: Resource::Disk, bytes, what }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_is_the_hosts_or_the_cgroups_whichever_is_less() {
        let t = tempfile::tempdir().unwrap();
        let meminfo = t.path().join("meminfo");
        std::fs::write(&meminfo, "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n")
            .unwrap();
        let (host, why) = memory_available_in(&meminfo, t.path(), &t.path().join("none")).unwrap();
        assert_eq!(host, 20_000_000 * 1024);
        assert!(why.starts_with("MemAvailable in /proc/meminfo"), "{why}");
        let group = t.path().join("g");
        std::fs::create_dir_all(&group).unwrap();
        std::fs::write(t.path().join("self"), "0::/g\n").unwrap();
        std::fs::write(group.join("memory.max"), "4294967296\n").unwrap();
        std::fs::write(group.join("memory.current"), "1073741824\n").unwrap();
        let (left, why) = memory_available_in(&meminfo, t.path(), &t.path().join("self")).unwrap();
        assert_eq!(left, 3 << 30);
        assert!(why.contains("memory.max 4G"), "{why}");
        // No limit ("max"): the host's.
        std::fs::write(group.join("memory.max"), "max\n").unwrap();
        assert_eq!(memory_available_in(&meminfo, t.path(), &t.path().join("self")).unwrap().0, host);
        // This machine's own figure is there.
        assert!(memory_available().is_some_and(|(b, _)| b > 0));
    }
}
