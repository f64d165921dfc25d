//! SQLite's checkpoint debt while a step runs: the WAL frames not yet
//! copied into the database file, read from the wal-index (the `-shm`
//! file) as its documented format lays it out
//! (<https://www.sqlite.org/walformat.html>, "The WAL-Index Format").
//! SQLite has no call that says it without checkpointing, and the WAL file's
//! size says nothing once the log restarts from its start.
//!
//! The header comes twice (48 bytes each, written one after the other by
//! the writer), then the checkpoint information; all in the host's byte
//! order. A sample whose two copies differ was taken mid-update: retried.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// WalIndexHdr.iVersion of every SQLite 3.7.0 and later.
const WAL_INDEX_VERSION: u32 = 3_007_000;
const HEADER_BYTES: usize = 48;
/// Both header copies, then WalCkptInfo up to nBackfill.
const READ_BYTES: usize = 2 * HEADER_BYTES + 4;

/// The WAL's state as the wal-index header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalState {
    /// Bytes of a database page.
    pub page_size: u32,
    /// Frames in the WAL that are valid (mxFrame).
    pub frames: u32,
    /// Of those, the frames already checkpointed (nBackfill).
    pub checkpointed: u32,
}

impl WalState {
    /// Bytes of pages in the WAL still to be copied into the database.
    pub fn pending_bytes(&self) -> u64 {
        u64::from(self.frames.saturating_sub(self.checkpointed)) * u64::from(self.page_size)
    }
}

/// The wal-index of the database at `db`: Ok(None) when it has none (not
/// in WAL mode, or no connection has opened it yet).
pub fn read(db: &Path) -> Result<Option<WalState>, String> {
    let mut shm = db.as_os_str().to_owned();
    shm.push("-shm");
    let file = match File::open(&shm) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("opening {}: {e}", Path::new(&shm).display())),
    };
    let mut buf = [0u8; READ_BYTES];
    for _ in 0..3 {
        match file.read_exact_at(&mut buf, 0) {
            Ok(()) => {}
            // A wal-index not yet laid out.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(format!("reading {}: {e}", Path::new(&shm).display())),
        }
        if let Some(state) = parse(&buf)? {
            return Ok(Some(state));
        }
    }
    Err("the wal-index header changed under every read".into())
}

/// Ok(None): the two header copies differ (a writer is updating them).
fn parse(buf: &[u8; READ_BYTES]) -> Result<Option<WalState>, String> {
    let u32_at = |at: usize| u32::from_ne_bytes(buf[at..at + 4].try_into().expect("4 bytes"));
    if buf[..HEADER_BYTES] != buf[HEADER_BYTES..2 * HEADER_BYTES] {
        return Ok(None);
    }
    let version = u32_at(0);
    if version != WAL_INDEX_VERSION {
        return Err(format!("a wal-index of version {version}, not {WAL_INDEX_VERSION}"));
    }
    // szPage: a u16 at 14, where 1 stands for 65536.
    let page_size = match u16::from_ne_bytes([buf[14], buf[15]]) {
        1 => 65_536,
        n => u32::from(n),
    };
    Ok(Some(WalState { page_size, frames: u32_at(16), checkpointed: u32_at(2 * HEADER_BYTES) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_not_yet_checkpointed_are_the_debt() {
        let t = tempfile::tempdir().unwrap();
        let db = t.path().join("x.db");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.query_row("PRAGMA journal_mode=wal", [], |_| Ok(())).unwrap();
        c.execute_batch("PRAGMA wal_autocheckpoint=0; CREATE TABLE t(v BLOB);").unwrap();
        for _ in 0..20 {
            c.execute("INSERT INTO t VALUES (zeroblob(3000))", []).unwrap();
        }
        let before = read(&db).unwrap().expect("a wal-index");
        assert_eq!(before.page_size, 4096);
        assert!(before.frames >= 20, "{before:?}");
        assert_eq!(before.checkpointed, 0);
        assert_eq!(before.pending_bytes(), u64::from(before.frames) * 4096);
        c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).unwrap();
        let after = read(&db).unwrap().unwrap();
        assert_eq!((after.frames, after.checkpointed, after.pending_bytes()), (before.frames, before.frames, 0));
        // A database in rollback-journal mode has no wal-index.
        let other = t.path().join("y.db");
        rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE t(v)").unwrap();
        assert_eq!(read(&other).unwrap(), None);
    }

    #[test]
    fn a_header_caught_mid_update_is_not_read() {
        let mut buf = [0u8; READ_BYTES];
        buf[..4].copy_from_slice(&WAL_INDEX_VERSION.to_ne_bytes());
        buf[HEADER_BYTES..HEADER_BYTES + 4].copy_from_slice(&WAL_INDEX_VERSION.to_ne_bytes());
        buf[16] = 9;
        assert_eq!(parse(&buf).unwrap(), None);
        buf[HEADER_BYTES + 16] = 9;
        buf[14] = 1;
        buf[HEADER_BYTES + 14] = 1;
        let s = parse(&buf).unwrap().unwrap();
        assert_eq!((s.page_size, s.frames), (65_536, 9));
    }
}
