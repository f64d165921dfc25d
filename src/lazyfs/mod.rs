//! A lazy filesystem for the crash test: FUSE, passthrough to a backing
//! directory, holding every change in memory until the program makes it
//! durable, so that a simulated power cut loses exactly what a real one may
//! (state.rs says what counts as durable; docs/crash-test.md).
//!
//! `LazyMount::mount` mounts it (in a thread of this process),
//! `power_cut` unmounts it, throws away everything not made durable and
//! mounts what survived again. The programs using it must be stopped first
//! (killed: that is the crash).

mod state;

use state::{Attr, Ino, LazyState, Meta};
pub use state::{Kind, Semantics, Stats};

use anyhow::{bail, Context, Result};
use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    MountOption, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow, WriteFlags,
};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// What survives a power cut here, in a line (docs/crash-test.md has it whole).
pub fn describe(semantics: Semantics) -> String {
    let names = match semantics {
        Semantics::Posix => "a name (create, rename, unlink) after an fsync of its directory (a file's own fsync does not make its name durable)",
        Semantics::Journaled => "every name (create, rename, unlink) at the next fsync or fdatasync of any file or directory, as a metadata journal (ext4, XFS) commits",
    };
    format!(
        "rumbench lazy filesystem (FUSE), {} semantics: file data and size survive after fsync, fdatasync, msync or an O_SYNC/O_DSYNC write; {names}; sync_file_range and syncfs make nothing durable",
        semantics.name()
    )
}

/// How long the kernel may cache names and attributes: only this
/// filesystem changes them, and a power cut remounts (dropping the caches).
const TTL: Duration = Duration::from_secs(1);

struct LazyFs {
    state: Arc<Mutex<LazyState>>,
    /// Open file handles: the inode and the open flags (O_SYNC / O_DSYNC).
    handles: Mutex<HashMap<u64, (Ino, i32)>>,
    next_fh: AtomicU64,
}

fn errno(e: i32) -> Errno {
    Errno::from_i32(e)
}

fn file_type(kind: Kind) -> FileType {
    match kind {
        Kind::File => FileType::RegularFile,
        Kind::Dir => FileType::Directory,
        Kind::Symlink => FileType::Symlink,
    }
}

fn file_attr(a: &Attr) -> FileAttr {
    FileAttr {
        ino: INodeNo(a.ino),
        size: a.size,
        blocks: a.size.div_ceil(512),
        atime: a.atime,
        mtime: a.mtime,
        ctime: a.ctime,
        crtime: a.ctime,
        kind: file_type(a.kind),
        perm: a.perm as u16,
        nlink: a.nlink,
        uid: a.uid,
        gid: a.gid,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

fn time(t: TimeOrNow) -> SystemTime {
    match t {
        TimeOrNow::SpecificTime(t) => t,
        TimeOrNow::Now => SystemTime::now(),
    }
}

/// Names are UTF-8 here (the durable namespace is JSON); the engines' are ASCII.
fn name_str(name: &OsStr) -> Result<&str, Errno> {
    name.to_str().ok_or(Errno::EINVAL)
}

impl LazyFs {
    fn state(&self) -> MutexGuard<'_, LazyState> {
        // A panic while holding the lock leaves nothing half-done that matters:
        // the filesystem is thrown away at the next power cut.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn new_handle(&self, ino: Ino, flags: i32) -> FileHandle {
        let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
        self.handles.lock().unwrap().insert(fh, (ino, flags));
        FileHandle(fh)
    }

    fn reply_new_entry(&self, made: Result<Ino, i32>, reply: ReplyEntry) {
        let s = self.state();
        match made.and_then(|ino| s.attr(ino)) {
            Ok(a) => reply.entry(&TTL, &file_attr(&a), Generation(0)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn create_node(&self, parent: INodeNo, name: &OsStr, meta: Meta) -> Result<Ino, i32> {
        let name = name_str(name).map_err(|e| e.code())?;
        self.state().create(parent.0, name, meta)
    }
}

/// The reply of an operation that returns nothing.
fn reply_empty(done: Result<(), i32>, reply: ReplyEmpty) {
    match done {
        Ok(()) => reply.ok(),
        Err(e) => reply.error(errno(e)),
    }
}

fn new_meta(req: &Request, kind: Kind, mode: u32, umask: u32) -> Meta {
    Meta { kind, perm: mode & !umask & 0o7777, uid: req.uid(), gid: req.gid(), target: None }
}

impl Filesystem for LazyFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let found = name_str(name).map_err(|e| e.code()).and_then(|n| self.state().lookup(parent.0, n));
        self.reply_new_entry(found, reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.state().attr(ino.0) {
            Ok(a) => reply.attr(&TTL, &file_attr(&a)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let mut s = self.state();
        let done = (|| {
            if mode.is_some() || uid.is_some() || gid.is_some() {
                s.set_meta(ino.0, mode, uid, gid)?;
            }
            if let Some(size) = size {
                s.truncate(ino.0, size)?;
            }
            if atime.is_some() || mtime.is_some() {
                s.set_times(ino.0, atime.map(time), mtime.map(time))?;
            }
            s.attr(ino.0)
        })();
        match done {
            Ok(a) => reply.attr(&TTL, &file_attr(&a)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match self.state().readlink(ino.0) {
            Ok(t) => reply.data(t.as_bytes()),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn mknod(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        _rdev: u32,
        reply: ReplyEntry,
    ) {
        if mode & libc::S_IFMT != libc::S_IFREG && mode & libc::S_IFMT != 0 {
            // Devices, fifos and sockets: no engine keeps them in its data dir.
            reply.error(Errno::EPERM);
            return;
        }
        let made = self.create_node(parent, name, new_meta(req, Kind::File, mode, umask));
        self.reply_new_entry(made, reply);
    }

    fn mkdir(&self, req: &Request, parent: INodeNo, name: &OsStr, mode: u32, umask: u32, reply: ReplyEntry) {
        let made = self.create_node(parent, name, new_meta(req, Kind::Dir, mode, umask));
        self.reply_new_entry(made, reply);
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        reply_empty(name_str(name).map_err(|e| e.code()).and_then(|n| self.state().unlink(parent.0, n)), reply)
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        reply_empty(name_str(name).map_err(|e| e.code()).and_then(|n| self.state().rmdir(parent.0, n)), reply)
    }

    fn symlink(&self, req: &Request, parent: INodeNo, link_name: &OsStr, target: &Path, reply: ReplyEntry) {
        let Some(target) = target.to_str() else {
            reply.error(Errno::EINVAL);
            return;
        };
        let meta =
            Meta { kind: Kind::Symlink, perm: 0o777, uid: req.uid(), gid: req.gid(), target: Some(target.to_string()) };
        let made = self.create_node(parent, link_name, meta);
        self.reply_new_entry(made, reply);
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        if flags.contains(RenameFlags::RENAME_EXCHANGE) {
            reply.error(Errno::EINVAL);
            return;
        }
        let no_replace = flags.contains(RenameFlags::RENAME_NOREPLACE);
        let done = match (name_str(name), name_str(newname)) {
            (Ok(a), Ok(b)) => self.state().rename(parent.0, a, newparent.0, b, no_replace),
            _ => Err(libc::EINVAL),
        };
        reply_empty(done, reply)
    }

    fn link(&self, _req: &Request, ino: INodeNo, newparent: INodeNo, newname: &OsStr, reply: ReplyEntry) {
        let made = name_str(newname)
            .map_err(|e| e.code())
            .and_then(|n| self.state().link(ino.0, newparent.0, n))
            .map(|()| ino.0);
        self.reply_new_entry(made, reply);
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        let mut s = self.state();
        let opened = (|| {
            if s.attr(ino.0)?.kind == Kind::Dir {
                return Err(libc::EISDIR);
            }
            if flags.0 & libc::O_TRUNC != 0 {
                s.truncate(ino.0, 0)?;
            }
            s.open(ino.0)
        })();
        drop(s);
        match opened {
            Ok(()) => reply.opened(self.new_handle(ino.0, flags.0), FopenFlags::empty()),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn create(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let made = self.create_node(parent, name, new_meta(req, Kind::File, mode, umask));
        let opened = {
            let mut s = self.state();
            made.and_then(|ino| s.open(ino).and_then(|()| s.attr(ino)))
        };
        match opened {
            Ok(a) => {
                let fh = self.new_handle(a.ino, flags);
                reply.created(&TTL, &file_attr(&a), Generation(0), fh, FopenFlags::empty());
            }
            Err(e) => reply.error(errno(e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match self.state().read(ino.0, offset, size) {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let open_flags = self.handles.lock().unwrap().get(&fh.0).map_or(flags.0, |h| h.1 | flags.0);
        let mut s = self.state();
        // O_SYNC and O_DSYNC (O_SYNC includes O_DSYNC's bit): each write is durable when it returns.
        let sync = open_flags & libc::O_DSYNC != 0;
        match s.write(ino.0, offset, data).and_then(|n| if sync { s.fsync(ino.0).map(|()| n) } else { Ok(n) }) {
            Ok(n) => reply.written(n),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn flush(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _lock: LockOwner, reply: ReplyEmpty) {
        // close(2): makes nothing durable.
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.handles.lock().unwrap().remove(&fh.0);
        self.state().release(ino.0);
        reply.ok();
    }

    fn fsync(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        reply_empty(self.state().fsync(ino.0), reply)
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match self.state().attr(ino.0) {
            Ok(a) if a.kind == Kind::Dir => reply.opened(FileHandle(0), FopenFlags::empty()),
            Ok(_) => reply.error(Errno::ENOTDIR),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn readdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, offset: u64, mut reply: ReplyDirectory) {
        match self.state().readdir(ino.0) {
            Ok(entries) => {
                for (i, (child, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
                    if reply.add(INodeNo(child), (i + 1) as u64, file_type(kind), name) {
                        break;
                    }
                }
                reply.ok();
            }
            Err(e) => reply.error(errno(e)),
        }
    }

    fn fsyncdir(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, _datasync: bool, reply: ReplyEmpty) {
        reply_empty(self.state().fsync(ino.0), reply)
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let s = self.state();
        // SAFETY: statvfs is plain data; zeroed is a valid value.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        let path = std::ffi::CString::new(s.backing_dir().as_os_str().as_encoded_bytes()).unwrap_or_default();
        // The backing filesystem's free space, less what the live state holds in memory.
        // SAFETY: a valid C string and out pointer.
        if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
            reply.error(Errno::EIO);
            return;
        }
        let bsize = st.f_frsize.max(1);
        let held = s.live_bytes() / bsize;
        reply.statfs(
            st.f_blocks,
            st.f_bfree.saturating_sub(held),
            st.f_bavail.saturating_sub(held),
            st.f_files,
            st.f_ffree,
            st.f_bsize as u32,
            255,
            bsize as u32,
        );
    }

    fn access(&self, _req: &Request, ino: INodeNo, _mask: AccessFlags, reply: ReplyEmpty) {
        // The kernel checks permissions (default_permissions); this only says the inode exists.
        match self.state().attr(ino.0) {
            Ok(_) => reply.ok(),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        reply_empty(self.state().fallocate(ino.0, offset, length, mode), reply)
    }
}

/// A mounted lazy filesystem. Dropping it unmounts it (what was not made
/// durable is lost then too, as in a power cut).
pub struct LazyMount {
    mountpoint: PathBuf,
    backing: PathBuf,
    owner: (u32, u32),
    session: Option<fuser::BackgroundSession>,
    state: Arc<Mutex<LazyState>>,
    power_cuts: u64,
    semantics: Semantics,
}

/// The filesystem name the lazy filesystem mounts under (mountinfo's source).
const FS_NAME: &str = "rumbench-lazyfs";

/// A mount of the lazy filesystem at `mountpoint` whose serving process is
/// gone (a crash test killed outright): every access fails with "Transport
/// endpoint is not connected". Detached, so the directory can be used or
/// removed again; only rumbench's own filesystem is ever unmounted.
/// Returns what was done, None when there was nothing to do.
pub fn release_stale_mount(mountpoint: &Path) -> Option<String> {
    let dead = matches!(std::fs::metadata(mountpoint), Err(e) if e.raw_os_error() == Some(libc::ENOTCONN));
    if !dead {
        return None;
    }
    let target = std::fs::canonicalize(mountpoint.parent()?).ok()?.join(mountpoint.file_name()?);
    let ours = std::fs::read_to_string("/proc/self/mountinfo").ok()?.lines().any(|l| {
        // "id parent major:minor root mountpoint options ... - fstype source superoptions"
        let f: Vec<&str> = l.split(' ').collect();
        let source = l.split(" - ").nth(1).and_then(|rest| rest.split(' ').nth(1));
        f.get(4).is_some_and(|m| Path::new(&unescape_mountinfo(m)) == target) && source == Some(FS_NAME)
    });
    if !ours {
        return Some(format!(
            "{} is a dead mount that is not rumbench's lazy filesystem: left alone",
            mountpoint.display()
        ));
    }
    let path = std::ffi::CString::new(target.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: unmounting a path we checked is our own dead FUSE mount.
    if unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) } == 0 {
        return Some(format!("released {}, the dead mount of a crash test that was killed", mountpoint.display()));
    }
    // Not root: fusermount3 unmounts what this user mounted.
    let ok =
        std::process::Command::new("fusermount3").arg("-u").arg("-z").arg(&target).status().is_ok_and(|s| s.success());
    Some(match ok {
        true => format!("released {}, the dead mount of a crash test that was killed", mountpoint.display()),
        false => format!(
            "cannot release the dead mount {}: unmount it (fusermount3 -u -z {})",
            mountpoint.display(),
            target.display()
        ),
    })
}

/// mountinfo writes space, tab, newline and backslash in octal (\040).
fn unescape_mountinfo(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let code: String = chars.by_ref().take(3).collect();
            if let Ok(n) = u8::from_str_radix(&code, 8) {
                out.push(n as char);
                continue;
            }
            out.push(c);
            out.push_str(&code);
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether this machine can mount a FUSE filesystem at all: a clear reason when not.
pub fn check_available() -> Result<()> {
    if !Path::new("/dev/fuse").exists() {
        bail!("the crash test needs FUSE and this machine has no /dev/fuse (a container without it: run with --device /dev/fuse --cap-add SYS_ADMIN)");
    }
    Ok(())
}

impl LazyMount {
    /// Mount the durable state in `backing` (a new empty filesystem whose
    /// root belongs to `owner` when it holds none) at `mountpoint`.
    pub fn mount(backing: &Path, mountpoint: &Path, owner: (u32, u32), semantics: Semantics) -> Result<LazyMount> {
        check_available()?;
        std::fs::create_dir_all(mountpoint).with_context(|| format!("creating {}", mountpoint.display()))?;
        let state = LazyState::load(backing, owner)
            .with_context(|| format!("loading {}", backing.display()))?
            .with_semantics(semantics);
        let state = Arc::new(Mutex::new(state));
        let mut m = LazyMount {
            mountpoint: mountpoint.to_path_buf(),
            backing: backing.to_path_buf(),
            owner,
            session: None,
            state,
            power_cuts: 0,
            semantics,
        };
        m.start()?;
        Ok(m)
    }

    fn start(&mut self) -> Result<()> {
        let fs = LazyFs { state: self.state.clone(), handles: Mutex::new(HashMap::new()), next_fh: AtomicU64::new(1) };
        let mut config = fuser::Config::default();
        config.mount_options = vec![
            MountOption::FSName(FS_NAME.into()),
            MountOption::Subtype("rumbench-lazyfs".into()),
            MountOption::DefaultPermissions,
            MountOption::RW,
        ];
        // allow_other: servers run as their own user (postgres, mysql).
        config.acl = fuser::SessionACL::All;
        let session = fuser::spawn_mount(fs, &self.mountpoint, &config).with_context(|| {
            format!("mounting the lazy filesystem at {} (FUSE: is /dev/fuse usable here, and are we root or is fuse3 installed?)", self.mountpoint.display())
        })?;
        self.session = Some(session);
        Ok(())
    }

    fn unmount(&mut self) -> Result<()> {
        let Some(session) = self.session.take() else { return Ok(()) };
        if let Err(e) = session.umount_and_join() {
            // Busy (a process still inside): detach it; it is gone for everyone new.
            // The session may also end with an error after the unmount went
            // through (ECONNABORTED): then there is nothing left to detach (EINVAL).
            let path = std::ffi::CString::new(self.mountpoint.as_os_str().as_encoded_bytes())?;
            // SAFETY: a valid C string; detaching our own mount.
            if unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) } != 0
                && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
            {
                bail!("unmounting {}: {e}", self.mountpoint.display());
            }
        }
        Ok(())
    }

    /// The power cut: unmount, throw away everything not made durable, and
    /// mount what survived. Every program using the mount must be dead.
    pub fn power_cut(&mut self) -> Result<Stats> {
        self.unmount()?;
        // After the unmount: the kernel has handed over what it still held (mapped pages).
        let before = {
            let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            Stats { unsynced_bytes_dropped: s.unsynced_bytes(), ..s.stats() }
        };
        let fresh = LazyState::load(&self.backing, self.owner)
            .with_context(|| format!("loading {} after a power cut", self.backing.display()))?
            .with_semantics(self.semantics);
        *self.state.lock().unwrap_or_else(|e| e.into_inner()) = fresh;
        self.power_cuts += 1;
        self.start()?;
        Ok(before)
    }

    /// Make everything on the filesystem durable (the harness's setup, not
    /// the tested program's: a server initialized and cleanly stopped
    /// before the first crash). Every program using the mount must be gone:
    /// it is unmounted for it, so that the kernel hands over what it holds.
    pub fn make_all_durable(&mut self) -> Result<()> {
        self.unmount()?;
        self.state.lock().unwrap_or_else(|e| e.into_inner()).sync_all().map_err(|e| {
            anyhow::anyhow!("making {} durable: {}", self.mountpoint.display(), std::io::Error::from_raw_os_error(e))
        })?;
        self.start()
    }

    /// Counters since the last mount or power cut.
    pub fn stats(&self) -> Stats {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stats()
    }

    pub fn path(&self) -> &Path {
        &self.mountpoint
    }

    pub fn power_cuts(&self) -> u64 {
        self.power_cuts
    }
}

impl Drop for LazyMount {
    fn drop(&mut self) {
        let _ = self.unmount();
    }
}

#[cfg(test)]
mod tests {
    //! Through the kernel, with std::fs: the same rules as state.rs's tests.
    use super::*;
    use std::fs::{self, File, OpenOptions};
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;

    fn mounted() -> (tempfile::TempDir, LazyMount) {
        let t = tempfile::tempdir().unwrap();
        let m = LazyMount::mount(&t.path().join("backing"), &t.path().join("mnt"), (0, 0), Semantics::Posix)
            .expect("FUSE must work on this machine (scripts/setup.sh installs fuse3)");
        (t, m)
    }

    fn sync_dir(p: &Path) {
        File::open(p).unwrap().sync_all().unwrap();
    }

    #[test]
    fn through_the_kernel_only_synced_data_and_names_survive_a_power_cut() {
        let (_t, mut m) = mounted();
        let root = m.path().to_path_buf();
        let mut f = File::create(root.join("log")).unwrap();
        f.write_all(b"synced").unwrap();
        f.sync_data().unwrap();
        f.write_all(b" lost").unwrap();
        drop(f);
        sync_dir(&root);
        fs::write(root.join("unsynced-name"), b"x").unwrap();
        let mut g = File::create(root.join("synced-file-unsynced-name")).unwrap();
        g.write_all(b"y").unwrap();
        g.sync_all().unwrap();
        drop(g);
        assert_eq!(fs::read(root.join("log")).unwrap(), b"synced lost");
        let stats = m.power_cut().unwrap();
        assert!(stats.file_syncs >= 2 && stats.dir_syncs >= 1, "{stats:?}");
        assert_eq!(fs::read(root.join("log")).unwrap(), b"synced");
        assert!(!root.join("unsynced-name").exists());
        assert!(!root.join("synced-file-unsynced-name").exists(), "a file's fsync does not make its name durable here");
    }

    #[test]
    fn o_dsync_writes_and_renames_with_a_synced_directory_survive() {
        let (_t, mut m) = mounted();
        let root = m.path().to_path_buf();
        fs::create_dir(root.join("db")).unwrap();
        sync_dir(&root);
        let db = root.join("db");
        let mut f =
            OpenOptions::new().create(true).write(true).custom_flags(libc::O_DSYNC).open(db.join("wal")).unwrap();
        f.write_all(b"commit-1").unwrap();
        drop(f);
        fs::write(db.join("CURRENT.tmp"), b"MANIFEST-2").unwrap();
        File::open(db.join("CURRENT.tmp")).unwrap().sync_all().unwrap();
        fs::rename(db.join("CURRENT.tmp"), db.join("CURRENT")).unwrap();
        sync_dir(&db);
        m.power_cut().unwrap();
        assert_eq!(fs::read(db.join("wal")).unwrap(), b"commit-1");
        assert_eq!(fs::read(db.join("CURRENT")).unwrap(), b"MANIFEST-2");
        assert!(!db.join("CURRENT.tmp").exists());
        // Truncation through the kernel, then a power cut without a sync.
        OpenOptions::new().write(true).open(db.join("wal")).unwrap().set_len(3).unwrap();
        assert_eq!(fs::read(db.join("wal")).unwrap(), b"com");
        m.power_cut().unwrap();
        assert_eq!(fs::read(db.join("wal")).unwrap(), b"commit-1");
    }

    #[test]
    fn shared_mmap_writes_are_durable_after_msync() {
        let (_t, mut m) = mounted();
        let root = m.path().to_path_buf();
        let path = root.join("map");
        let f = OpenOptions::new().create(true).truncate(true).read(true).write(true).open(&path).unwrap();
        f.set_len(8192).unwrap();
        f.sync_all().unwrap();
        sync_dir(&root);
        // SAFETY: a shared map of 8192 bytes of a file that long, written within it and unmapped.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                8192,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                std::os::fd::AsRawFd::as_raw_fd(&f),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED, "{}", std::io::Error::last_os_error());
            let bytes = std::slice::from_raw_parts_mut(p as *mut u8, 8192);
            bytes[..5].copy_from_slice(b"mmap!");
            assert_eq!(libc::msync(p, 8192, libc::MS_SYNC), 0);
            bytes[4096..4101].copy_from_slice(b"later");
            libc::munmap(p, 8192);
        }
        drop(f);
        m.power_cut().unwrap();
        let after = fs::read(&path).unwrap();
        assert_eq!(&after[..5], b"mmap!");
        assert_eq!(&after[4096..4101], &[0u8; 5], "written through the map after the msync, never synced");
    }
}
