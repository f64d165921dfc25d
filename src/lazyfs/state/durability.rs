//! What makes the lazy filesystem's state durable, and the state a mount
//! starts from: the durable namespace (durable.json) and each file's durable
//! bytes (data/<ino>), saved by fsync and loaded again after a power cut.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::{data_path, io_errno, FsResult, Ino, Kind, LazyState, Meta, Node, Semantics, Stats, PAGE, ROOT};

const DURABLE_FILE: &str = "durable.json";

/// The durable namespace, as durable.json holds it: every directory's
/// durable entries and every reachable inode's kind, mode and owner.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Durable {
    next_ino: Ino,
    pub(super) inodes: BTreeMap<Ino, Meta>,
    dirs: BTreeMap<Ino, BTreeMap<String, Ino>>,
}

impl Durable {
    /// The inodes the durable namespace reaches from the root: what a power cut keeps.
    fn reachable(&self) -> HashSet<Ino> {
        let mut reachable = HashSet::from([ROOT]);
        let mut stack = vec![ROOT];
        while let Some(dir) = stack.pop() {
            for &child in self.dirs.get(&dir).into_iter().flat_map(|e| e.values()) {
                if reachable.insert(child) && self.inodes.get(&child).map(|m| m.kind) == Some(Kind::Dir) {
                    stack.push(child);
                }
            }
        }
        reachable
    }
}

impl LazyState {
    /// The state a mount starts from: the durable state in `backing` (a new
    /// empty filesystem whose root belongs to `owner` when there is none).
    /// Whatever the durable namespace does not reach is deleted.
    pub fn load(backing: &Path, owner: (u32, u32)) -> io::Result<LazyState> {
        fs::create_dir_all(backing.join("data"))?;
        let path = backing.join(DURABLE_FILE);
        let mut durable: Durable = match fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut d = Durable { next_ino: ROOT + 1, ..Durable::default() };
                d.inodes.insert(ROOT, Meta { kind: Kind::Dir, perm: 0o755, uid: owner.0, gid: owner.1, target: None });
                d.dirs.insert(ROOT, BTreeMap::new());
                d
            }
            Err(e) => return Err(e),
        };
        // What the durable namespace reaches from the root; everything else is gone.
        let reachable = durable.reachable();
        durable.inodes.retain(|ino, _| reachable.contains(ino));
        durable.dirs.retain(|ino, _| reachable.contains(ino));
        let mut max_ino = durable.next_ino.max(ROOT + 1);
        for entry in fs::read_dir(backing.join("data"))? {
            let entry = entry?;
            let ino: Option<Ino> = entry.file_name().to_str().and_then(|s| s.parse().ok());
            match ino {
                Some(ino) if durable.inodes.get(&ino).map(|m| m.kind) == Some(Kind::File) => {
                    max_ino = max_ino.max(ino + 1)
                }
                _ => fs::remove_file(entry.path())?,
            }
        }
        let now = SystemTime::now();
        let mut nodes = HashMap::new();
        for (&ino, meta) in &durable.inodes {
            let mut node = Node::new(meta.clone(), now);
            node.nlink = 0;
            if meta.kind == Kind::File {
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(data_path(backing, ino))?;
                node.durable_len = file.metadata()?.len();
                node.len = node.durable_len;
                node.backing = Some(file);
            }
            if meta.kind == Kind::Dir {
                node.entries = durable.dirs.get(&ino).cloned().unwrap_or_default();
                node.nlink = 2;
            }
            nodes.insert(ino, node);
        }
        // Link counts and parents from the durable entries.
        let links: Vec<(Ino, Ino)> =
            durable.dirs.iter().flat_map(|(&dir, e)| e.values().map(move |&c| (dir, c))).collect();
        for (dir, child) in links {
            let child_is_dir = nodes.get(&child).map(|n| n.meta.kind) == Some(Kind::Dir);
            if child_is_dir {
                nodes.get_mut(&child).unwrap().parent = dir;
                nodes.get_mut(&dir).unwrap().nlink += 1;
            } else if let Some(n) = nodes.get_mut(&child) {
                n.nlink += 1;
            }
        }
        nodes.get_mut(&ROOT).unwrap().parent = ROOT;
        durable.next_ino = max_ino;
        Ok(LazyState {
            root_dir: backing.to_path_buf(),
            nodes,
            durable,
            next_ino: max_ino,
            stats: Stats::default(),
            semantics: Semantics::Posix,
            names_changed: false,
        })
    }

    /// fsync / fdatasync of a file, or fsync of a directory.
    pub fn fsync(&mut self, ino: Ino) -> FsResult<()> {
        match self.node(ino)?.meta.kind {
            Kind::Dir => self.sync_dir(ino)?,
            Kind::File => self.sync_file(ino)?,
            Kind::Symlink => self.sync_meta(ino)?,
        }
        if self.semantics == Semantics::Journaled {
            self.commit_journal()?;
        }
        Ok(())
    }

    /// Everything becomes durable: every file's data and every name, as
    /// after a clean shutdown and `sync`. For what the harness sets up before
    /// the first crash (a server's initialized data dir); counted in no stats.
    pub fn sync_all(&mut self) -> FsResult<()> {
        let stats = self.stats.clone();
        let files: Vec<Ino> = self.nodes.iter().filter(|(_, n)| n.meta.kind == Kind::File).map(|(&i, _)| i).collect();
        for ino in files {
            self.sync_file(ino)?;
        }
        self.names_changed = true;
        self.commit_journal()?;
        self.stats = stats;
        Ok(())
    }

    /// Journaled: every directory's entries become durable, parents first
    /// (so that a new directory is named before its own entries count).
    fn commit_journal(&mut self) -> FsResult<()> {
        if !self.names_changed {
            return Ok(());
        }
        let mut order = vec![ROOT];
        let mut i = 0;
        while i < order.len() {
            let dir = order[i];
            order.extend(
                self.nodes[&dir]
                    .entries
                    .values()
                    .filter(|c| self.nodes.get(c).is_some_and(|n| n.meta.kind == Kind::Dir)),
            );
            i += 1;
        }
        for dir in order {
            self.commit_dir(dir);
        }
        self.names_changed = false;
        self.save_durable()
    }

    fn sync_file(&mut self, ino: Ino) -> FsResult<()> {
        let n = self.nodes.get_mut(&ino).ok_or(libc::ENOENT)?;
        let file = n.backing.as_ref().expect("a file has its backing file");
        if n.zero_from < n.durable_len {
            file.set_len(n.zero_from).map_err(io_errno)?;
        }
        let mut pages: Vec<u64> = n.dirty.keys().copied().filter(|&p| p * PAGE < n.len).collect();
        pages.sort_unstable();
        let mut written = 0u64;
        for page in pages {
            let start = page * PAGE;
            let take = (n.len - start).min(PAGE) as usize;
            file.write_all_at(&n.dirty[&page][..take], start).map_err(io_errno)?;
            written += take as u64;
        }
        file.set_len(n.len).map_err(io_errno)?;
        n.durable_len = n.len;
        n.zero_from = u64::MAX;
        n.dirty.clear();
        self.stats.file_syncs += 1;
        self.stats.bytes_made_durable += written;
        if n.meta_changed {
            self.sync_meta(ino)?;
        }
        Ok(())
    }

    /// An inode's mode and owner, when the durable namespace knows it.
    fn sync_meta(&mut self, ino: Ino) -> FsResult<()> {
        let n = self.nodes.get_mut(&ino).ok_or(libc::ENOENT)?;
        n.meta_changed = false;
        let meta = n.meta.clone();
        if let Some(m) = self.durable.inodes.get_mut(&ino) {
            if *m != meta {
                *m = meta;
                self.save_durable()?;
            }
        }
        Ok(())
    }

    fn sync_dir(&mut self, ino: Ino) -> FsResult<()> {
        self.dir(ino)?;
        self.commit_dir(ino);
        self.stats.dir_syncs += 1;
        self.save_durable()
    }

    /// A directory's live entries become its durable ones (saved by the caller).
    fn commit_dir(&mut self, ino: Ino) {
        let Ok((entries, meta)) = self.dir(ino).map(|d| (d.entries.clone(), d.meta.clone())) else { return };
        if let Some(n) = self.nodes.get_mut(&ino) {
            n.meta_changed = false;
        }
        if ino == ROOT || self.durable.inodes.contains_key(&ino) {
            self.durable.inodes.insert(ino, meta);
        }
        for &child in entries.values() {
            if let Some(c) = self.nodes.get(&child) {
                self.durable.inodes.insert(child, c.meta.clone());
                if c.meta.kind == Kind::Dir {
                    // A new directory's own entries are durable only once it is fsynced.
                    self.durable.dirs.entry(child).or_default();
                }
            }
        }
        let removed: Vec<Ino> = self
            .durable
            .dirs
            .get(&ino)
            .map(|old| old.values().filter(|c| !entries.values().any(|n| n == *c)).copied().collect())
            .unwrap_or_default();
        self.durable.dirs.insert(ino, entries);
        // Inodes this fsync unlinked for good.
        self.durable_gc(&removed);
    }

    /// Drop from the durable state what the durable namespace no longer
    /// reaches and no program sees either, with its backing file. What a
    /// program still sees stays: a directory synced before its parent names
    /// it durably keeps its durable entries for that parent's sync.
    fn durable_gc(&mut self, candidates: &[Ino]) {
        if candidates.is_empty() {
            return;
        }
        let reachable = self.durable.reachable();
        let gone: Vec<Ino> = self
            .durable
            .inodes
            .keys()
            .filter(|i| !reachable.contains(i) && !self.nodes.contains_key(i))
            .copied()
            .collect();
        for ino in gone {
            self.durable.inodes.remove(&ino);
            self.durable.dirs.remove(&ino);
            let _ = fs::remove_file(data_path(&self.root_dir, ino));
        }
    }

    fn save_durable(&mut self) -> FsResult<()> {
        self.durable.next_ino = self.next_ino;
        let tmp = self.root_dir.join(format!("{DURABLE_FILE}.tmp"));
        let bytes = serde_json::to_vec(&self.durable).map_err(|_| libc::EIO)?;
        let mut f = File::create(&tmp).map_err(io_errno)?;
        f.write_all(&bytes).map_err(io_errno)?;
        drop(f);
        fs::rename(&tmp, self.root_dir.join(DURABLE_FILE)).map_err(io_errno)
    }
}
