//! The lazy filesystem's state: what programs see (live) and what a power
//! cut would leave (durable), kept apart.
//!
//! Durable state lives in a backing directory: `data/<ino>` holds each
//! file's durable bytes (its length is the durable size) and `durable.json`
//! the durable namespace (every directory's durable entries and every
//! reachable inode's kind, mode and owner). Live state is in memory: the
//! namespace as programs see it and, per file, the pages written since its
//! last fsync. A power cut is dropping the live state and loading the
//! durable one again (`LazyState::load`). Loading and making durable are in
//! durability.rs; this file is the live namespace and data.
//!
//! What makes a change durable (docs/crash-test.md, "The lazy filesystem"):
//! - file data and size: fsync or fdatasync of that file (or a write through
//!   a descriptor opened with O_SYNC / O_DSYNC);
//! - a directory's entries (create, link, unlink, rename, mkdir, rmdir,
//!   symlink into or out of it): fsync of that directory, strictly as POSIX
//!   says (ext4 and xfs also persist a new file's entry when the file is
//!   fsynced; this filesystem does not, so an engine that relies on it is
//!   caught);
//! - mode and owner: fsync of the inode or of a directory that holds it.
//!
//! Nothing else is: close, flush, rename, sync_file_range (Linux's FUSE does
//! not forward it) and syncfs (not forwarded either) leave data volatile.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

mod durability;

use durability::Durable;

pub type Ino = u64;
pub const ROOT: Ino = 1;
const PAGE: u64 = 4096;
const NAME_MAX: usize = 255;

/// An errno, returned to the program as is.
pub type Errno = i32;
pub type FsResult<T> = Result<T, Errno>;

fn io_errno(e: io::Error) -> Errno {
    e.raw_os_error().unwrap_or(libc::EIO)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    File,
    Dir,
    Symlink,
}

/// What an inode is, durably or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub kind: Kind,
    /// Permission bits (07777).
    pub perm: u32,
    pub uid: u32,
    pub gid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// Attributes as `stat` shows them.
#[derive(Clone, Debug)]
pub struct Attr {
    pub ino: Ino,
    pub kind: Kind,
    pub perm: u32,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    pub mtime: SystemTime,
    pub ctime: SystemTime,
    pub atime: SystemTime,
}

/// Counters of one mount (since the last load).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub file_syncs: u64,
    pub dir_syncs: u64,
    pub bytes_written: u64,
    pub bytes_made_durable: u64,
    /// Bytes of file data held unsynced when the power was cut (set by
    /// `LazyMount::power_cut`): 0 means the cut could not lose any data.
    pub unsynced_bytes_dropped: u64,
}

impl Stats {
    /// The counters between `before` and `self` (snapshots of one mount);
    /// `unsynced_bytes_dropped` is `self`'s: it is not a counter.
    pub fn since(&self, before: &Stats) -> Stats {
        Stats {
            file_syncs: self.file_syncs.saturating_sub(before.file_syncs),
            dir_syncs: self.dir_syncs.saturating_sub(before.dir_syncs),
            bytes_written: self.bytes_written.saturating_sub(before.bytes_written),
            bytes_made_durable: self.bytes_made_durable.saturating_sub(before.bytes_made_durable),
            unsynced_bytes_dropped: self.unsynced_bytes_dropped,
        }
    }
}

struct Node {
    meta: Meta,
    nlink: u32,
    /// Directories: the parent (for ".."); the root is its own.
    parent: Ino,
    entries: BTreeMap<String, Ino>,
    /// Files: the live size, the durable size (the backing file's), the
    /// offset from which durable bytes no longer show (a truncate since the
    /// last sync), and the pages written since it.
    len: u64,
    durable_len: u64,
    zero_from: u64,
    dirty: HashMap<u64, Box<[u8]>>,
    backing: Option<File>,
    open: u32,
    meta_changed: bool,
    atime: SystemTime,
    mtime: SystemTime,
    ctime: SystemTime,
}

impl Node {
    fn new(meta: Meta, now: SystemTime) -> Node {
        Node {
            nlink: if meta.kind == Kind::Dir { 2 } else { 1 },
            meta,
            parent: ROOT,
            entries: BTreeMap::new(),
            len: 0,
            durable_len: 0,
            zero_from: u64::MAX,
            dirty: HashMap::new(),
            backing: None,
            open: 0,
            meta_changed: false,
            atime: now,
            mtime: now,
            ctime: now,
        }
    }
}

/// What makes a name (create, link, rename, unlink) durable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// Only what POSIX promises: an fsync of the directory that holds it.
    #[default]
    Posix,
    /// As ext4 and XFS with their metadata journal: any fsync or fdatasync
    /// commits the journal, and with it every earlier namespace change in
    /// every directory (file data still needs its own file's sync).
    Journaled,
}

impl Semantics {
    pub fn name(self) -> &'static str {
        match self {
            Semantics::Posix => "posix",
            Semantics::Journaled => "journaled",
        }
    }
}

pub struct LazyState {
    root_dir: PathBuf,
    nodes: HashMap<Ino, Node>,
    durable: Durable,
    next_ino: Ino,
    stats: Stats,
    semantics: Semantics,
    /// A name changed since the namespace was last made durable whole (journaled).
    names_changed: bool,
}

fn data_path(root_dir: &Path, ino: Ino) -> PathBuf {
    root_dir.join("data").join(ino.to_string())
}

impl LazyState {
    pub fn with_semantics(mut self, semantics: Semantics) -> LazyState {
        self.semantics = semantics;
        self
    }

    pub fn stats(&self) -> Stats {
        self.stats.clone()
    }

    fn node(&self, ino: Ino) -> FsResult<&Node> {
        self.nodes.get(&ino).ok_or(libc::ENOENT)
    }

    fn node_mut(&mut self, ino: Ino) -> FsResult<&mut Node> {
        self.nodes.get_mut(&ino).ok_or(libc::ENOENT)
    }

    fn dir(&self, ino: Ino) -> FsResult<&Node> {
        let n = self.node(ino)?;
        if n.meta.kind != Kind::Dir {
            return Err(libc::ENOTDIR);
        }
        Ok(n)
    }

    pub fn attr(&self, ino: Ino) -> FsResult<Attr> {
        let n = self.node(ino)?;
        let size = match n.meta.kind {
            Kind::File => n.len,
            Kind::Dir => 4096,
            Kind::Symlink => n.meta.target.as_ref().map_or(0, |t| t.len() as u64),
        };
        Ok(Attr {
            ino,
            kind: n.meta.kind,
            perm: n.meta.perm,
            nlink: n.nlink,
            uid: n.meta.uid,
            gid: n.meta.gid,
            size,
            mtime: n.mtime,
            ctime: n.ctime,
            atime: n.atime,
        })
    }

    pub fn lookup(&self, parent: Ino, name: &str) -> FsResult<Ino> {
        self.dir(parent)?.entries.get(name).copied().ok_or(libc::ENOENT)
    }

    fn check_name(name: &str) -> FsResult<()> {
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            return Err(libc::EINVAL);
        }
        if name.len() > NAME_MAX {
            return Err(libc::ENAMETOOLONG);
        }
        Ok(())
    }

    fn touch_dir(&mut self, dir: Ino) {
        self.names_changed = true;
        let now = SystemTime::now();
        if let Some(d) = self.nodes.get_mut(&dir) {
            d.mtime = now;
            d.ctime = now;
        }
    }

    /// A new file, directory or symbolic link named `name` in `parent`.
    pub fn create(&mut self, parent: Ino, name: &str, meta: Meta) -> FsResult<Ino> {
        Self::check_name(name)?;
        if self.dir(parent)?.entries.contains_key(name) {
            return Err(libc::EEXIST);
        }
        let ino = self.next_ino;
        self.next_ino += 1;
        let kind = meta.kind;
        let mut node = Node::new(meta, SystemTime::now());
        node.parent = parent;
        if kind == Kind::File {
            // Created empty at once: it is durable only once a directory fsync names it.
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(data_path(&self.root_dir, ino))
                .map_err(io_errno)?;
            node.backing = Some(file);
        }
        self.nodes.insert(ino, node);
        let p = self.node_mut(parent)?;
        p.entries.insert(name.to_string(), ino);
        if kind == Kind::Dir {
            p.nlink += 1;
        }
        self.touch_dir(parent);
        Ok(ino)
    }

    pub fn link(&mut self, ino: Ino, new_parent: Ino, new_name: &str) -> FsResult<()> {
        Self::check_name(new_name)?;
        if self.node(ino)?.meta.kind == Kind::Dir {
            return Err(libc::EPERM);
        }
        if self.dir(new_parent)?.entries.contains_key(new_name) {
            return Err(libc::EEXIST);
        }
        self.node_mut(new_parent)?.entries.insert(new_name.to_string(), ino);
        let n = self.node_mut(ino)?;
        n.nlink += 1;
        n.ctime = SystemTime::now();
        self.touch_dir(new_parent);
        Ok(())
    }

    /// One link of `ino` went away; its live data goes with the last one
    /// when no program holds it open.
    fn drop_link(&mut self, ino: Ino) {
        let Some(n) = self.nodes.get_mut(&ino) else { return };
        n.nlink = n.nlink.saturating_sub(1);
        if n.meta.kind == Kind::Dir {
            n.nlink = 0;
        }
        n.ctime = SystemTime::now();
        self.forget_if_dead(ino);
    }

    fn forget_if_dead(&mut self, ino: Ino) {
        let dead = self.nodes.get(&ino).is_some_and(|n| n.nlink == 0 && n.open == 0);
        if !dead {
            return;
        }
        let n = self.nodes.remove(&ino).unwrap();
        // A file still durably linked keeps its durable bytes for a power cut.
        if n.meta.kind == Kind::File && !self.durable.inodes.contains_key(&ino) {
            let _ = fs::remove_file(data_path(&self.root_dir, ino));
        }
    }

    pub fn unlink(&mut self, parent: Ino, name: &str) -> FsResult<()> {
        let ino = self.lookup(parent, name)?;
        if self.node(ino)?.meta.kind == Kind::Dir {
            return Err(libc::EISDIR);
        }
        self.node_mut(parent)?.entries.remove(name);
        self.touch_dir(parent);
        self.drop_link(ino);
        Ok(())
    }

    pub fn rmdir(&mut self, parent: Ino, name: &str) -> FsResult<()> {
        let ino = self.lookup(parent, name)?;
        let n = self.node(ino)?;
        if n.meta.kind != Kind::Dir {
            return Err(libc::ENOTDIR);
        }
        if !n.entries.is_empty() {
            return Err(libc::ENOTEMPTY);
        }
        let p = self.node_mut(parent)?;
        p.entries.remove(name);
        p.nlink -= 1;
        self.touch_dir(parent);
        self.drop_link(ino);
        Ok(())
    }

    fn is_ancestor(&self, maybe_ancestor: Ino, mut dir: Ino) -> bool {
        loop {
            if dir == maybe_ancestor {
                return true;
            }
            match self.nodes.get(&dir) {
                Some(n) if dir != ROOT => dir = n.parent,
                _ => return false,
            }
        }
    }

    /// rename(2), with RENAME_NOREPLACE when `no_replace`.
    pub fn rename(
        &mut self,
        parent: Ino,
        name: &str,
        new_parent: Ino,
        new_name: &str,
        no_replace: bool,
    ) -> FsResult<()> {
        Self::check_name(new_name)?;
        let ino = self.lookup(parent, name)?;
        self.dir(new_parent)?;
        let is_dir = self.node(ino)?.meta.kind == Kind::Dir;
        if is_dir && self.is_ancestor(ino, new_parent) {
            return Err(libc::EINVAL);
        }
        let existing = self.dir(new_parent)?.entries.get(new_name).copied();
        if let Some(old) = existing {
            if old == ino {
                return Ok(());
            }
            if no_replace {
                return Err(libc::EEXIST);
            }
            let old_node = self.node(old)?;
            match (is_dir, old_node.meta.kind == Kind::Dir) {
                (false, true) => return Err(libc::EISDIR),
                (true, false) => return Err(libc::ENOTDIR),
                (true, true) if !old_node.entries.is_empty() => return Err(libc::ENOTEMPTY),
                _ => {}
            }
            self.node_mut(new_parent)?.entries.remove(new_name);
            if is_dir {
                self.node_mut(new_parent)?.nlink -= 1;
            }
            self.drop_link(old);
        }
        self.node_mut(parent)?.entries.remove(name);
        self.node_mut(new_parent)?.entries.insert(new_name.to_string(), ino);
        if is_dir {
            self.node_mut(parent)?.nlink -= 1;
            self.node_mut(new_parent)?.nlink += 1;
            self.node_mut(ino)?.parent = new_parent;
        }
        self.node_mut(ino)?.ctime = SystemTime::now();
        self.touch_dir(parent);
        self.touch_dir(new_parent);
        Ok(())
    }

    pub fn readlink(&self, ino: Ino) -> FsResult<String> {
        let n = self.node(ino)?;
        n.meta.target.clone().ok_or(libc::EINVAL)
    }

    /// A directory's entries, "." and ".." first.
    pub fn readdir(&self, ino: Ino) -> FsResult<Vec<(Ino, Kind, String)>> {
        let d = self.dir(ino)?;
        let mut out = vec![(ino, Kind::Dir, ".".to_string()), (d.parent, Kind::Dir, "..".to_string())];
        for (name, &child) in &d.entries {
            let kind = self.nodes.get(&child).map_or(Kind::File, |n| n.meta.kind);
            out.push((child, kind, name.clone()));
        }
        Ok(out)
    }

    pub fn open(&mut self, ino: Ino) -> FsResult<()> {
        self.node_mut(ino)?.open += 1;
        Ok(())
    }

    pub fn release(&mut self, ino: Ino) {
        if let Some(n) = self.nodes.get_mut(&ino) {
            n.open = n.open.saturating_sub(1);
        }
        self.forget_if_dead(ino);
    }

    pub fn set_meta(&mut self, ino: Ino, perm: Option<u32>, uid: Option<u32>, gid: Option<u32>) -> FsResult<()> {
        let n = self.node_mut(ino)?;
        if let Some(p) = perm {
            n.meta.perm = p & 0o7777;
        }
        if let Some(u) = uid {
            n.meta.uid = u;
        }
        if let Some(g) = gid {
            n.meta.gid = g;
        }
        n.meta_changed = true;
        n.ctime = SystemTime::now();
        Ok(())
    }

    pub fn set_times(&mut self, ino: Ino, atime: Option<SystemTime>, mtime: Option<SystemTime>) -> FsResult<()> {
        let n = self.node_mut(ino)?;
        if let Some(a) = atime {
            n.atime = a;
        }
        if let Some(m) = mtime {
            n.mtime = m;
        }
        Ok(())
    }

    fn file_mut(&mut self, ino: Ino) -> FsResult<&mut Node> {
        let n = self.node_mut(ino)?;
        match n.meta.kind {
            Kind::File => Ok(n),
            Kind::Dir => Err(libc::EISDIR),
            Kind::Symlink => Err(libc::EINVAL),
        }
    }

    /// The current bytes of one page, from memory or from the durable file.
    fn load_page(n: &Node, page: u64, out: &mut [u8]) -> io::Result<()> {
        if let Some(p) = n.dirty.get(&page) {
            out.copy_from_slice(p);
            return Ok(());
        }
        out.fill(0);
        let start = page * PAGE;
        let durable_end = n.durable_len.min(n.zero_from);
        if start < durable_end {
            let want = ((durable_end - start).min(PAGE)) as usize;
            let file = n.backing.as_ref().expect("a file has its backing file");
            let mut done = 0;
            while done < want {
                let got = file.read_at(&mut out[done..want], start + done as u64)?;
                if got == 0 {
                    break;
                }
                done += got;
            }
        }
        Ok(())
    }

    pub fn read(&mut self, ino: Ino, offset: u64, size: u32) -> FsResult<Vec<u8>> {
        let n = self.file_mut(ino)?;
        n.atime = SystemTime::now();
        let end = n.len.min(offset.saturating_add(size as u64));
        if offset >= end {
            return Ok(Vec::new());
        }
        let mut out = vec![0u8; (end - offset) as usize];
        let mut page_buf = vec![0u8; PAGE as usize];
        let mut pos = offset;
        while pos < end {
            let page = pos / PAGE;
            let in_page = (pos % PAGE) as usize;
            let take = ((PAGE - pos % PAGE).min(end - pos)) as usize;
            Self::load_page(n, page, &mut page_buf).map_err(io_errno)?;
            let at = (pos - offset) as usize;
            out[at..at + take].copy_from_slice(&page_buf[in_page..in_page + take]);
            pos += take as u64;
        }
        Ok(out)
    }

    pub fn write(&mut self, ino: Ino, offset: u64, data: &[u8]) -> FsResult<u32> {
        let n = self.file_mut(ino)?;
        let end = offset.checked_add(data.len() as u64).ok_or(libc::EFBIG)?;
        let mut pos = offset;
        while pos < end {
            let page = pos / PAGE;
            let in_page = (pos % PAGE) as usize;
            let take = ((PAGE - pos % PAGE).min(end - pos)) as usize;
            if !n.dirty.contains_key(&page) {
                let mut buf = vec![0u8; PAGE as usize].into_boxed_slice();
                if take < PAGE as usize {
                    Self::load_page(n, page, &mut buf).map_err(io_errno)?;
                }
                n.dirty.insert(page, buf);
            }
            let at = (pos - offset) as usize;
            n.dirty.get_mut(&page).unwrap()[in_page..in_page + take].copy_from_slice(&data[at..at + take]);
            pos += take as u64;
        }
        n.len = n.len.max(end);
        let now = SystemTime::now();
        n.mtime = now;
        n.ctime = now;
        self.stats.bytes_written += data.len() as u64;
        Ok(data.len() as u32)
    }

    pub fn truncate(&mut self, ino: Ino, size: u64) -> FsResult<()> {
        let n = self.file_mut(ino)?;
        if size < n.len {
            n.zero_from = n.zero_from.min(size);
            n.dirty.retain(|&page, _| page * PAGE < size);
            let tail = size % PAGE;
            if tail != 0 {
                let page = size / PAGE;
                if let Some(p) = n.dirty.get_mut(&page) {
                    p[tail as usize..].fill(0);
                } else {
                    // The page's durable bytes before `size` still show; after it, zeros.
                    let mut buf = vec![0u8; PAGE as usize].into_boxed_slice();
                    Self::load_page(n, page, &mut buf).map_err(io_errno)?;
                    buf[tail as usize..].fill(0);
                    n.dirty.insert(page, buf);
                }
            }
        }
        n.len = size;
        let now = SystemTime::now();
        n.mtime = now;
        n.ctime = now;
        Ok(())
    }

    /// fallocate(2): plain (may extend), KEEP_SIZE, PUNCH_HOLE (with
    /// KEEP_SIZE) and ZERO_RANGE; other modes are not supported.
    pub fn fallocate(&mut self, ino: Ino, offset: u64, length: u64, mode: i32) -> FsResult<()> {
        let end = offset.checked_add(length).ok_or(libc::EFBIG)?;
        let keep_size = mode & libc::FALLOC_FL_KEEP_SIZE != 0;
        let len = self.file_mut(ino)?.len;
        match mode & !libc::FALLOC_FL_KEEP_SIZE {
            0 => {}
            m if m == libc::FALLOC_FL_PUNCH_HOLE && keep_size => self.zero_range(ino, offset, end.min(len))?,
            m if m == libc::FALLOC_FL_ZERO_RANGE => {
                self.zero_range(ino, offset, if keep_size { end.min(len) } else { end })?
            }
            _ => return Err(libc::EOPNOTSUPP),
        }
        let n = self.file_mut(ino)?;
        if !keep_size && end > n.len {
            n.len = end;
        }
        Ok(())
    }

    fn zero_range(&mut self, ino: Ino, from: u64, to: u64) -> FsResult<()> {
        let zeros = vec![0u8; PAGE as usize];
        let mut pos = from;
        while pos < to {
            let take = (PAGE - pos % PAGE).min(to - pos);
            self.write(ino, pos, &zeros[..take as usize])?;
            pos += take;
        }
        Ok(())
    }

    /// File data written and not yet made durable, in bytes.
    pub fn unsynced_bytes(&self) -> u64 {
        self.nodes
            .values()
            .map(|n| n.dirty.keys().map(|&p| n.len.saturating_sub(p * PAGE).min(PAGE)).sum::<u64>())
            .sum()
    }

    /// Used space in bytes, live: for statfs.
    pub fn live_bytes(&self) -> u64 {
        self.nodes.values().map(|n| n.len).sum()
    }

    pub fn backing_dir(&self) -> &Path {
        &self.root_dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_meta() -> Meta {
        Meta { kind: Kind::File, perm: 0o644, uid: 0, gid: 0, target: None }
    }

    fn dir_meta() -> Meta {
        Meta { kind: Kind::Dir, perm: 0o755, uid: 0, gid: 0, target: None }
    }

    /// A new empty filesystem in a temporary backing directory.
    fn fresh() -> (tempfile::TempDir, LazyState) {
        let t = tempfile::tempdir().unwrap();
        let s = LazyState::load(t.path(), (0, 0)).unwrap();
        (t, s)
    }

    fn power_cut(s: LazyState) -> LazyState {
        let dir = s.backing_dir().to_path_buf();
        drop(s);
        LazyState::load(&dir, (0, 0)).unwrap()
    }

    fn contents(s: &mut LazyState, name: &str) -> Option<Vec<u8>> {
        let ino = s.lookup(ROOT, name).ok()?;
        let len = s.attr(ino).unwrap().size;
        Some(s.read(ino, 0, len as u32).unwrap())
    }

    #[test]
    fn an_unsynced_write_is_gone_and_a_synced_one_stays() {
        let (_t, mut s) = fresh();
        let f = s.create(ROOT, "log", file_meta()).unwrap();
        s.fsync(ROOT).unwrap();
        s.write(f, 0, b"first").unwrap();
        s.fsync(f).unwrap();
        s.write(f, 5, b" second").unwrap();
        assert_eq!(contents(&mut s, "log").unwrap(), b"first second");
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "log").unwrap(), b"first");
    }

    #[test]
    fn a_new_file_needs_its_directory_synced() {
        let (t, mut s) = fresh();
        let f = s.create(ROOT, "new", file_meta()).unwrap();
        s.write(f, 0, b"data").unwrap();
        s.fsync(f).unwrap();
        let mut s = power_cut(s);
        assert!(contents(&mut s, "new").is_none(), "the file's entry was never made durable");
        // Its data file is gone too.
        assert_eq!(fs::read_dir(t.path().join("data")).unwrap().count(), 0);
        let f = s.create(ROOT, "new", file_meta()).unwrap();
        s.write(f, 0, b"data").unwrap();
        s.fsync(f).unwrap();
        s.fsync(ROOT).unwrap();
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "new").unwrap(), b"data");
    }

    #[test]
    fn journaled_any_sync_makes_every_earlier_name_durable_but_not_other_data() {
        let (_t, s) = fresh();
        let mut s = s.with_semantics(Semantics::Journaled);
        let sub = s.create(ROOT, "sub", Meta { kind: Kind::Dir, perm: 0o755, uid: 0, gid: 0, target: None }).unwrap();
        let a = s.create(sub, "a", file_meta()).unwrap();
        s.write(a, 0, b"unsynced").unwrap();
        let b = s.create(ROOT, "b", file_meta()).unwrap();
        s.write(b, 0, b"synced").unwrap();
        // One file's fdatasync commits the journal: both names, b's data only.
        s.fsync(b).unwrap();
        let after_sync = s.create(ROOT, "late", file_meta()).unwrap();
        s.write(after_sync, 0, b"x").unwrap();
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "b").unwrap(), b"synced");
        let sub = s.lookup(ROOT, "sub").expect("a new directory, named by the commit");
        let a = s.lookup(sub, "a").expect("a name in it, too");
        assert_eq!(s.attr(a).unwrap().size, 0, "its data was never synced");
        assert!(contents(&mut s, "late").is_none(), "created after the last sync");
    }

    #[test]
    fn sync_all_makes_every_name_and_byte_durable_without_counting_them() {
        let (_t, mut s) = fresh();
        let sub = s.create(ROOT, "sub", Meta { kind: Kind::Dir, perm: 0o755, uid: 0, gid: 0, target: None }).unwrap();
        let a = s.create(sub, "a", file_meta()).unwrap();
        s.write(a, 0, b"never synced by its program").unwrap();
        let before = s.stats();
        s.sync_all().unwrap();
        assert_eq!(s.stats(), before, "the harness's syncs are not the program's");
        let mut s = power_cut(s);
        let sub = s.lookup(ROOT, "sub").unwrap();
        let a = s.lookup(sub, "a").unwrap();
        assert_eq!(s.read(a, 0, 100).unwrap(), b"never synced by its program");
    }

    #[test]
    fn a_synced_directory_entry_without_synced_data_is_an_empty_file() {
        let (_t, mut s) = fresh();
        let f = s.create(ROOT, "f", file_meta()).unwrap();
        s.write(f, 0, b"data").unwrap();
        s.fsync(ROOT).unwrap();
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "f").unwrap(), b"");
    }

    #[test]
    fn rename_is_durable_only_with_its_directories() {
        let (t, mut s) = fresh();
        let old = s.create(ROOT, "CURRENT", file_meta()).unwrap();
        s.write(old, 0, b"v1").unwrap();
        s.fsync(old).unwrap();
        s.fsync(ROOT).unwrap();
        let tmp = s.create(ROOT, "CURRENT.tmp", file_meta()).unwrap();
        s.write(tmp, 0, b"v2").unwrap();
        s.fsync(tmp).unwrap();
        s.rename(ROOT, "CURRENT.tmp", ROOT, "CURRENT", false).unwrap();
        assert_eq!(contents(&mut s, "CURRENT").unwrap(), b"v2");
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "CURRENT").unwrap(), b"v1", "the rename was not made durable");
        assert!(contents(&mut s, "CURRENT.tmp").is_none());
        let tmp = s.create(ROOT, "CURRENT.tmp", file_meta()).unwrap();
        s.write(tmp, 0, b"v2").unwrap();
        s.fsync(tmp).unwrap();
        s.rename(ROOT, "CURRENT.tmp", ROOT, "CURRENT", false).unwrap();
        s.fsync(ROOT).unwrap();
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "CURRENT").unwrap(), b"v2");
        assert!(contents(&mut s, "CURRENT.tmp").is_none());
        // The replaced file's durable bytes were deleted with the sync that unlinked it.
        assert_eq!(fs::read_dir(t.path().join("data")).unwrap().count(), 1);
    }

    #[test]
    fn truncate_is_durable_only_when_synced_and_old_bytes_never_come_back() {
        let (_t, mut s) = fresh();
        let f = s.create(ROOT, "f", file_meta()).unwrap();
        s.fsync(ROOT).unwrap();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8 + 1).collect();
        s.write(f, 0, &data).unwrap();
        s.fsync(f).unwrap();
        s.truncate(f, 5000).unwrap();
        s.truncate(f, 9000).unwrap();
        let now = contents(&mut s, "f").unwrap();
        assert_eq!(&now[..5000], &data[..5000]);
        assert!(now[5000..].iter().all(|&b| b == 0), "bytes after a truncate read as zeros when it grows again");
        let mut s = power_cut(s);
        assert_eq!(contents(&mut s, "f").unwrap(), data, "the truncate was never synced");
        let f = s.lookup(ROOT, "f").unwrap();
        s.truncate(f, 5000).unwrap();
        s.truncate(f, 9000).unwrap();
        s.fsync(f).unwrap();
        let mut s = power_cut(s);
        let after = contents(&mut s, "f").unwrap();
        assert_eq!(after.len(), 9000);
        assert_eq!(&after[..5000], &data[..5000]);
        assert!(after[5000..].iter().all(|&b| b == 0));
    }

    #[test]
    fn directories_unlink_and_links_follow_the_same_rule() {
        let (_t, mut s) = fresh();
        let d = s.create(ROOT, "d", dir_meta()).unwrap();
        let f = s.create(d, "f", file_meta()).unwrap();
        s.write(f, 0, b"x").unwrap();
        s.fsync(f).unwrap();
        s.fsync(ROOT).unwrap();
        // d is durable but empty: its own entries were never synced.
        let mut s = power_cut(s);
        let d = s.lookup(ROOT, "d").unwrap();
        assert_eq!(s.lookup(d, "f"), Err(libc::ENOENT));
        assert_eq!(s.attr(ROOT).unwrap().nlink, 3);
        let f = s.create(d, "f", file_meta()).unwrap();
        s.write(f, 0, b"x").unwrap();
        s.fsync(f).unwrap();
        s.fsync(d).unwrap();
        s.link(f, ROOT, "hard").unwrap();
        s.fsync(ROOT).unwrap();
        s.unlink(d, "f").unwrap();
        // The unlink is not durable until d is synced.
        let mut s = power_cut(s);
        let d = s.lookup(ROOT, "d").unwrap();
        let f = s.lookup(d, "f").unwrap();
        assert_eq!(s.lookup(ROOT, "hard").unwrap(), f);
        assert_eq!(s.attr(f).unwrap().nlink, 2);
        s.unlink(d, "f").unwrap();
        s.fsync(d).unwrap();
        let mut s = power_cut(s);
        let d = s.lookup(ROOT, "d").unwrap();
        assert_eq!(s.lookup(d, "f"), Err(libc::ENOENT));
        assert_eq!(contents(&mut s, "hard").unwrap(), b"x");
        assert_eq!(s.rmdir(ROOT, "hard"), Err(libc::ENOTDIR));
        s.rmdir(ROOT, "d").unwrap();
        s.fsync(ROOT).unwrap();
        let s = power_cut(s);
        assert_eq!(s.lookup(ROOT, "d"), Err(libc::ENOENT));
    }

    #[test]
    fn a_directory_synced_before_its_parent_keeps_its_entries() {
        let (_t, mut s) = fresh();
        let e = s.create(ROOT, "e", dir_meta()).unwrap();
        s.create(e, "y", file_meta()).unwrap();
        s.fsync(e).unwrap();
        s.fsync(ROOT).unwrap();
        // Child first, then parent: the order a careful engine uses.
        let d = s.create(ROOT, "d", dir_meta()).unwrap();
        let f = s.create(d, "f", file_meta()).unwrap();
        s.write(f, 0, b"kept").unwrap();
        s.fsync(f).unwrap();
        s.fsync(d).unwrap();
        // A sync elsewhere that unlinks something for good, before the parent's sync.
        s.unlink(e, "y").unwrap();
        s.fsync(e).unwrap();
        s.fsync(ROOT).unwrap();
        let mut s = power_cut(s);
        let d = s.lookup(ROOT, "d").unwrap();
        let f = s.lookup(d, "f").expect("d's entries were synced before its parent's");
        assert_eq!(s.read(f, 0, 100).unwrap(), b"kept");
        let e = s.lookup(ROOT, "e").unwrap();
        assert_eq!(s.lookup(e, "y"), Err(libc::ENOENT));
    }

    #[test]
    fn writes_across_pages_and_holes_read_back_exactly() {
        let (_t, mut s) = fresh();
        let f = s.create(ROOT, "f", file_meta()).unwrap();
        s.fsync(ROOT).unwrap();
        s.write(f, 4090, &[7u8; 20]).unwrap();
        s.write(f, 20_000, b"end").unwrap();
        let all = contents(&mut s, "f").unwrap();
        assert_eq!(all.len(), 20_003);
        assert!(all[..4090].iter().all(|&b| b == 0));
        assert_eq!(&all[4090..4110], &[7u8; 20]);
        assert!(all[4110..20_000].iter().all(|&b| b == 0));
        s.fsync(f).unwrap();
        s.write(f, 4095, &[9u8; 2]).unwrap();
        let mut s = power_cut(s);
        let all = contents(&mut s, "f").unwrap();
        assert_eq!(&all[4090..4110], &[7u8; 20]);
        assert_eq!(&all[20_000..], b"end");
        assert_eq!(s.stats(), Stats::default());
    }

    #[test]
    fn fallocate_extends_or_zeroes_and_refuses_what_it_does_not_model() {
        let (_t, mut s) = fresh();
        let f = s.create(ROOT, "f", file_meta()).unwrap();
        s.write(f, 0, &[1u8; 8192]).unwrap();
        s.fallocate(f, 0, 1 << 20, libc::FALLOC_FL_KEEP_SIZE).unwrap();
        assert_eq!(s.attr(f).unwrap().size, 8192);
        s.fallocate(f, 0, 16384, 0).unwrap();
        assert_eq!(s.attr(f).unwrap().size, 16384);
        s.fallocate(f, 100, 200, libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE).unwrap();
        let all = s.read(f, 0, 16384).unwrap();
        assert!(all[100..300].iter().all(|&b| b == 0) && all[99] == 1 && all[300] == 1);
        assert_eq!(s.attr(f).unwrap().size, 16384);
        assert_eq!(s.fallocate(f, 0, 10, libc::FALLOC_FL_COLLAPSE_RANGE), Err(libc::EOPNOTSUPP));
    }

    #[test]
    fn names_and_rename_errors_are_those_of_posix() {
        let (_t, mut s) = fresh();
        let d = s.create(ROOT, "d", dir_meta()).unwrap();
        s.create(d, "inner", dir_meta()).unwrap();
        s.create(ROOT, "f", file_meta()).unwrap();
        assert_eq!(s.create(ROOT, "f", file_meta()), Err(libc::EEXIST));
        assert_eq!(s.create(ROOT, "a/b", file_meta()), Err(libc::EINVAL));
        assert_eq!(s.rename(ROOT, "d", d, "x", false), Err(libc::EINVAL));
        assert_eq!(s.rename(ROOT, "f", ROOT, "d", false), Err(libc::EISDIR));
        assert_eq!(s.rename(ROOT, "d", ROOT, "f", false), Err(libc::ENOTDIR));
        assert_eq!(s.rename(ROOT, "f", ROOT, "d", true), Err(libc::EEXIST));
        assert_eq!(s.rmdir(ROOT, "d"), Err(libc::ENOTEMPTY));
        s.rename(ROOT, "f", d, "g", false).unwrap();
        assert_eq!(s.lookup(ROOT, "f"), Err(libc::ENOENT));
        assert!(s.lookup(d, "g").is_ok());
    }
}
