//! A server's files, ports and settings: the data dir, the socket dir, a
//! free port, the addresses a server listens on, the settings rumbench
//! manages and the memory they claim, log tails.

use super::*;

/// Create the data dir (must be empty if it exists).
pub(super) fn prepare_data_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        if !dir.is_dir() {
            bail!("data dir {} exists and is not a directory", dir.display());
        }
        if fs::read_dir(dir)?.next().is_some() {
            bail!("data dir {} is not empty (rumbench needs a fresh private directory)", dir.display());
        }
    } else {
        fs::create_dir_all(dir).with_context(|| format!("cannot create data dir {}", dir.display()))?;
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    Ok(())
}

/// Give o+x (search, not read) to every ancestor of `dir` that lacks it, so
/// that another OS user can reach `dir`.
pub(super) fn make_ancestors_searchable(dir: &Path) -> Result<()> {
    let abs = if dir.is_absolute() { dir.to_path_buf() } else { std::env::current_dir()?.join(dir) };
    for a in abs.ancestors().skip(1) {
        let meta = fs::metadata(a).with_context(|| format!("cannot stat {}", a.display()))?;
        let mode = meta.permissions().mode();
        if mode & 0o001 == 0 {
            fs::set_permissions(a, fs::Permissions::from_mode((mode & 0o7777) | 0o001))
                .with_context(|| format!("cannot make {} searchable for the server's OS user", a.display()))?;
        }
    }
    Ok(())
}

/// Longest Unix socket path (sun_path is 108 bytes with the NUL).
pub(super) const MAX_SOCKET_PATH: usize = 107;

/// Whether `dir` (or its nearest existing ancestor) is on a FUSE
/// filesystem: one may not hold sockets (the crash test's lazy one does not).
pub(super) fn on_fuse(dir: &Path) -> bool {
    const FUSE_SUPER_MAGIC: i64 = 0x6573_5546;
    let Some(existing) = crate::measure::os::capacity::existing_ancestor(dir) else { return false };
    let Ok(path) = std::ffi::CString::new(existing.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: statfs into a zeroed struct of the right type.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and out pointer.
    unsafe { libc::statfs(path.as_ptr(), &mut st) == 0 && st.f_type as i64 == FUSE_SUPER_MAGIC }
}

/// The directory for a socket named `name`: `data_dir` when the path fits in
/// sun_path and the data dir is not on FUSE, else a fresh private directory
/// under /tmp (returned as second value, to be removed on stop).
pub(super) fn socket_dir(data_dir: &Path, name: &str) -> Result<(PathBuf, Option<PathBuf>)> {
    let abs = if data_dir.is_absolute() { data_dir.to_path_buf() } else { std::env::current_dir()?.join(data_dir) };
    if abs.join(name).as_os_str().len() + 5 <= MAX_SOCKET_PATH && !on_fuse(&abs) {
        return Ok((abs, None));
    }
    remove_stale_socket_dirs(Path::new("/tmp"));
    // Named after this process, so that a later run can tell one whose owner is gone.
    let template = std::ffi::CString::new(format!("/tmp/{SOCKET_DIR_PREFIX}{}-XXXXXX", std::process::id()))?;
    let mut bytes = template.into_bytes_with_nul();
    // SAFETY: bytes is a NUL-terminated writable template.
    let p = unsafe { libc::mkdtemp(bytes.as_mut_ptr() as *mut libc::c_char) };
    if p.is_null() {
        bail!("cannot create a socket directory under /tmp: {}", std::io::Error::last_os_error());
    }
    bytes.pop();
    let dir = PathBuf::from(String::from_utf8(bytes)?);
    Ok((dir.clone(), Some(dir)))
}

/// Private socket directories under /tmp: this, the owner's pid, '-', a random suffix.
pub(super) const SOCKET_DIR_PREFIX: &str = "rumbench-sock-";

/// Socket directories whose rumbench process is gone (killed outright, its
/// server stopped since): removed. A directory of a live process, or of a
/// name that is not rumbench's, is left alone. Returns how many went.
pub(super) fn remove_stale_socket_dirs(tmp: &Path) -> usize {
    let Ok(entries) = fs::read_dir(tmp) else { return 0 };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix(SOCKET_DIR_PREFIX)
            .and_then(|r| r.split_once('-'))
            .and_then(|(p, _)| p.parse::<u32>().ok())
        else {
            continue;
        };
        let owner_alive = Path::new(&format!("/proc/{pid}")).exists();
        if !owner_alive && e.file_type().is_ok_and(|t| t.is_dir()) && fs::remove_dir_all(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

pub(super) static PORTS_HANDED_OUT: Mutex<Option<HashSet<u16>>> = Mutex::new(None);

/// A free TCP port on 127.0.0.1 (bind port 0, read it, close), never one
/// already handed out by this process.
pub(super) fn pick_free_port() -> Result<u16> {
    for _ in 0..50 {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("cannot bind 127.0.0.1:0")?;
        let port = l.local_addr()?.port();
        drop(l);
        let mut used = PORTS_HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
        if used.get_or_insert_with(HashSet::new).insert(port) {
            return Ok(port);
        }
    }
    bail!("no free TCP port found on 127.0.0.1")
}

/// Addresses ("127.0.0.1", "0.0.0.0", "::", ...) with a TCP listener on
/// `port`, from /proc/net/tcp and /proc/net/tcp6.
pub fn tcp_listen_addresses(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    for (file, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        let Ok(text) = fs::read_to_string(file) else { continue };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 4 || f[3] != "0A" {
                continue;
            }
            let Some((addr, p)) = f[1].split_once(':') else { continue };
            if u16::from_str_radix(p, 16).ok() != Some(port) {
                continue;
            }
            out.push(decode_proc_addr(addr, v6));
        }
    }
    out
}

pub(super) fn decode_proc_addr(hex: &str, v6: bool) -> String {
    let bytes: Vec<u8> =
        (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect();
    if !v6 && bytes.len() == 4 {
        // One little-endian u32.
        return std::net::Ipv4Addr::new(bytes[3], bytes[2], bytes[1], bytes[0]).to_string();
    }
    if v6 && bytes.len() == 16 {
        // Four little-endian u32 words.
        let mut b = [0u8; 16];
        for w in 0..4 {
            for i in 0..4 {
                b[4 * w + i] = bytes[4 * w + 3 - i];
            }
        }
        return std::net::Ipv6Addr::from(b).to_string();
    }
    hex.to_string()
}

/// Error unless every listener on `port` is on 127.0.0.1.
pub(super) fn check_loopback_only(kind: ServerKind, port: u16) -> Result<()> {
    let addrs = tcp_listen_addresses(port);
    if addrs.is_empty() {
        bail!("{kind}: nothing listens on 127.0.0.1:{port}");
    }
    if let Some(bad) = addrs.iter().find(|a| a.as_str() != "127.0.0.1") {
        bail!("{kind} listens on {bad}:{port}, not only on 127.0.0.1");
    }
    Ok(())
}

/// The setting name of a config line, normalized (lowercase, '-' -> '_',
/// MariaDB's loose_ prefix removed); None for blanks, comments, sections.
pub(super) fn setting_name(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with(';') || t.starts_with('[') || t.starts_with('!') {
        return None;
    }
    let end = t.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(t.len());
    let mut name = t[..end].to_ascii_lowercase().replace('-', "_");
    if let Some(s) = name.strip_prefix("loose_") {
        name = s.to_string();
    }
    Some(name)
}

/// The value of a config line (after '=' or whitespace), trimmed, unquoted.
pub(super) fn setting_value(line: &str) -> Option<String> {
    let t = line.trim();
    let end = t.find(|c: char| c == '=' || c.is_whitespace())?;
    let v = t[end..].trim_start().trim_start_matches('=').trim();
    let v = v.split(" #").next().unwrap_or(v).trim();
    Some(v.trim_matches(|c| c == '\'' || c == '"').to_string())
}

pub(super) const PG_MANAGED: &[&str] =
    &["listen_addresses", "port", "unix_socket_directories", "data_directory", "hba_file"];
pub(super) const MARIADB_MANAGED: &[&str] = &[
    "bind_address",
    "port",
    "socket",
    "datadir",
    "pid_file",
    "log_error",
    "user",
    "skip_networking",
    "networking",
    "skip_grant_tables",
];

pub(super) fn check_config_lines(kind: ServerKind, lines: &[String]) -> Result<()> {
    let managed = if kind == ServerKind::Postgres { PG_MANAGED } else { MARIADB_MANAGED };
    for l in lines {
        if l.contains('\n') || l.contains('\r') {
            bail!("{kind} config line {l:?} contains a line break: give one setting per line");
        }
        if let Some(name) = setting_name(l) {
            if managed.contains(&name.as_str()) {
                bail!(
                    "{kind} config line {l:?} sets {name}, which rumbench manages (loopback only, private port, socket and data dir)"
                );
            }
        }
    }
    Ok(())
}

/// The memory a started server's config lines ask for, in the settings
/// that size its buffers (PostgreSQL's shared_buffers and wal_buffers;
/// MariaDB's InnoDB buffer pool and log buffer, MyISAM's key buffer,
/// MyRocks' block cache and write buffers): checked against what the machine
/// has before anything starts. The server's defaults for the rest are small.
pub fn memory_claims(kind: ServerKind, lines: &[String]) -> Vec<crate::measure::os::capacity::Claim> {
    const PG: &[&str] = &["shared_buffers", "wal_buffers"];
    const MARIADB: &[&str] = &[
        "innodb_buffer_pool_size",
        "innodb_log_buffer_size",
        "key_buffer_size",
        "rocksdb_block_cache_size",
        "rocksdb_db_write_buffer_size",
    ];
    let names = if kind == ServerKind::Postgres { PG } else { MARIADB };
    let mut out = Vec::new();
    for l in lines {
        let (Some(name), Some(value)) = (setting_name(l), setting_value(l)) else { continue };
        if !names.contains(&name.as_str()) {
            continue;
        }
        let bytes = match kind {
            ServerKind::Postgres => pg_memory_bytes(&value),
            _ => crate::plan::parse_size(&value),
        };
        if let Some(b) = bytes {
            out.push(crate::measure::os::capacity::Claim::memory(b, format!("{kind} config {name} = {value}")));
        }
    }
    out
}

/// A PostgreSQL memory setting in bytes: a number of 8 kB blocks, or with a
/// unit (B, kB, MB, GB, TB: powers of 1024, as postgresql.conf reads them).
pub(super) fn pg_memory_bytes(value: &str) -> Option<u64> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (n, unit) = (v[..split].parse::<u64>().ok()?, v[split..].trim());
    let scale: u64 = match unit {
        "" => 8 << 10,
        "B" => 1,
        "kB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// The last `n` lines of a file (empty if it cannot be read).
pub(super) fn file_tail(path: &Path, n: usize) -> Vec<String> {
    let Ok(bytes) = fs::read(path) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

pub(super) fn tail_of(lines: &[String], n: usize) -> Vec<String> {
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// The last non-blank line.
pub(super) fn last_nonblank(lines: &[String]) -> Option<String> {
    lines.iter().rev().find(|l| !l.trim().is_empty()).map(|l| l.trim().to_string())
}
