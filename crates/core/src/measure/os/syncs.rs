//! Counting sync calls: fsync, fdatasync, msync and sync_file_range, made
//! anywhere in the process. The counters are here; the interposed functions
//! that bump them are in the binary's crate (src/sync_interpose.rs), whose
//! build script exports them.
//!
//! # How it works: symbol interposition
//!
//! The binary defines its own `fsync`, `fdatasync`, `msync` and
//! `sync_file_range` (`#[no_mangle] extern "C"`, src/sync_interpose.rs). Each one
//! bumps a global counter (a relaxed atomic add, no lock) and then calls the
//! real glibc function, found once with `dlsym(RTLD_NEXT, name)` and cached.
//!
//! * Code linked statically into the executable (Rust, including std's
//!   `File::sync_all`/`sync_data`; SQLite bundled by rusqlite; LMDB built by
//!   heed's sys crate; `libc::fsync` called from Rust) has its reference to
//!   `fsync` resolved by the static linker to the definition in the same
//!   executable, i.e. to ours, before libc.so is even considered.
//! * Shared libraries (Debian's librocksdb.so) call `fsync` through their PLT,
//!   which the dynamic loader resolves by searching the global lookup scope
//!   in order: the executable first, then its DT_NEEDED libraries (libc.so
//!   among them). An executable's symbol is only visible to that search if it
//!   is in the executable's dynamic symbol table; rustc does not export
//!   symbols from executables, so build.rs passes
//!   `-Wl,--export-dynamic-symbol=fsync` (and the others) to the linker.
//!   Check with `nm -D target/debug/rumbench | grep sync` (the four should be
//!   listed with type `T`).
//! * `dlsym(RTLD_NEXT, ..)` called from the executable searches the objects
//!   *after* the executable, so it returns glibc's function, never ours
//!   (no recursion).
//!
//! Not counted: syncs glibc makes internally without going through its PLT
//! (none of the four is used that way by anything we run), `syncfs`/`sync`,
//! writes made durable by `O_SYNC`/`O_DSYNC` opens or `RWF_DSYNC` flags, and
//! syncs issued by other processes (a server engine: count those on its side).
//! Raw `syscall(SYS_fsync, ..)` also bypasses the wrappers.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// Bumped by the interposed functions (a relaxed add each), read by [`sync_calls`].
pub static FSYNC_CALLS: AtomicU64 = AtomicU64::new(0);
pub static FDATASYNC_CALLS: AtomicU64 = AtomicU64::new(0);
pub static MSYNC_CALLS: AtomicU64 = AtomicU64::new(0);
pub static SYNC_FILE_RANGE_CALLS: AtomicU64 = AtomicU64::new(0);

/// Counts of sync calls made by this process since it started (or, for a
/// value returned by [`SyncCounts::since`], during an interval).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SyncCounts {
    pub fsync: u64,
    pub fdatasync: u64,
    pub msync: u64,
    pub sync_file_range: u64,
}

impl SyncCounts {
    /// All four kinds together: the numerator of `syncs_per_commit`.
    pub fn total(&self) -> u64 {
        self.fsync + self.fdatasync + self.msync + self.sync_file_range
    }

    /// Calls made between `earlier` and `self`.
    pub fn since(&self, earlier: &SyncCounts) -> SyncCounts {
        SyncCounts {
            fsync: self.fsync.saturating_sub(earlier.fsync),
            fdatasync: self.fdatasync.saturating_sub(earlier.fdatasync),
            msync: self.msync.saturating_sub(earlier.msync),
            sync_file_range: self.sync_file_range.saturating_sub(earlier.sync_file_range),
        }
    }
}

/// Snapshot of the process-wide sync call counters.
pub fn sync_calls() -> SyncCounts {
    SyncCounts {
        fsync: FSYNC_CALLS.load(Ordering::Relaxed),
        fdatasync: FDATASYNC_CALLS.load(Ordering::Relaxed),
        msync: MSYNC_CALLS.load(Ordering::Relaxed),
        sync_file_range: SYNC_FILE_RANGE_CALLS.load(Ordering::Relaxed),
    }
}
