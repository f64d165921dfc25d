//! The interposed `fsync`, `fdatasync`, `msync` and `sync_file_range`
//! (how it works: rumbench_core's measure/os/syncs.rs, where the counters
//! are). They live in this crate, the one linked first into the binary, so
//! that the static linker resolves the bundled C libraries' references to
//! them; build.rs exports them for shared libraries.

use std::ffi::{c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::measure::os::syncs::{FDATASYNC_CALLS, FSYNC_CALLS, MSYNC_CALLS, SYNC_FILE_RANGE_CALLS};

static REAL_FSYNC: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
static REAL_FDATASYNC: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
static REAL_MSYNC: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
static REAL_SYNC_FILE_RANGE: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// The next definition of `name` after this executable (glibc's), cached in
/// `slot`. Null when there is none.
fn real(slot: &AtomicPtr<c_void>, name: &CStr) -> *mut c_void {
    let p = slot.load(Ordering::Relaxed);
    if !p.is_null() {
        return p;
    }
    // SAFETY: dlsym with a valid NUL-terminated name; RTLD_NEXT is a valid handle.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    // Racing threads store the same pointer.
    slot.store(p, Ordering::Relaxed);
    p
}

fn no_real_function() -> c_int {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = libc::ENOSYS };
    -1
}

/// Interposed `fsync(2)`: counts the call, then calls glibc's.
#[no_mangle]
pub extern "C" fn fsync(fd: c_int) -> c_int {
    FSYNC_CALLS.fetch_add(1, Ordering::Relaxed);
    let f = real(&REAL_FSYNC, c"fsync");
    if f.is_null() {
        return no_real_function();
    }
    // SAFETY: f is glibc's fsync, which has this signature.
    let f: extern "C" fn(c_int) -> c_int = unsafe { std::mem::transmute(f) };
    f(fd)
}

/// Interposed `fdatasync(2)`: counts the call, then calls glibc's.
#[no_mangle]
pub extern "C" fn fdatasync(fd: c_int) -> c_int {
    FDATASYNC_CALLS.fetch_add(1, Ordering::Relaxed);
    let f = real(&REAL_FDATASYNC, c"fdatasync");
    if f.is_null() {
        return no_real_function();
    }
    // SAFETY: f is glibc's fdatasync, which has this signature.
    let f: extern "C" fn(c_int) -> c_int = unsafe { std::mem::transmute(f) };
    f(fd)
}

/// Interposed `msync(2)`: counts the call, then calls glibc's.
///
/// # Safety
/// Same contract as msync(2): `addr`/`len` must describe a mapping of the caller's.
#[no_mangle]
pub unsafe extern "C" fn msync(addr: *mut c_void, len: libc::size_t, flags: c_int) -> c_int {
    MSYNC_CALLS.fetch_add(1, Ordering::Relaxed);
    let f = real(&REAL_MSYNC, c"msync");
    if f.is_null() {
        return no_real_function();
    }
    // SAFETY: f is glibc's msync, which has this signature.
    let f: unsafe extern "C" fn(*mut c_void, libc::size_t, c_int) -> c_int = unsafe { std::mem::transmute(f) };
    // SAFETY: the caller's own arguments, passed on unchanged.
    unsafe { f(addr, len, flags) }
}

/// Interposed `sync_file_range(2)`: counts the call, then calls glibc's.
#[no_mangle]
pub extern "C" fn sync_file_range(fd: c_int, offset: libc::off64_t, nbytes: libc::off64_t, flags: c_uint) -> c_int {
    SYNC_FILE_RANGE_CALLS.fetch_add(1, Ordering::Relaxed);
    let f = real(&REAL_SYNC_FILE_RANGE, c"sync_file_range");
    if f.is_null() {
        return no_real_function();
    }
    // SAFETY: f is glibc's sync_file_range, which has this signature.
    let f: extern "C" fn(c_int, libc::off64_t, libc::off64_t, c_uint) -> c_int = unsafe { std::mem::transmute(f) };
    f(fd, offset, nbytes, flags)
}

#[cfg(test)]
mod tests {
    use crate::measure::os::syncs::sync_calls;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    // The counters are process-wide and tests run in parallel threads, so
    // every assertion is "went up by at least", never "equals".

    #[test]
    fn libc_fsync_from_rust_is_counted_and_works() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"hello").unwrap();
        let before = sync_calls();
        // SAFETY: valid open fd.
        let rc = unsafe { libc::fsync(f.as_raw_fd()) };
        assert_eq!(rc, 0);
        // SAFETY: valid open fd.
        let rc = unsafe { libc::fdatasync(f.as_raw_fd()) };
        assert_eq!(rc, 0);
        // SAFETY: valid open fd.
        let rc = unsafe { libc::sync_file_range(f.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
        assert_eq!(rc, 0);
        let d = sync_calls().since(&before);
        assert!(d.fsync >= 1, "{d:?}");
        assert!(d.fdatasync >= 1, "{d:?}");
        assert!(d.sync_file_range >= 1, "{d:?}");
    }

    #[test]
    fn errors_pass_through() {
        // SAFETY: an invalid fd is fine for fsync; it must fail with EBADF from glibc.
        let rc = unsafe { libc::fsync(-1) };
        assert_eq!(rc, -1);
        assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(libc::EBADF));
    }

    #[test]
    fn std_sync_all_and_msync_are_counted() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[0u8; 4096]).unwrap();
        let before = sync_calls();
        f.sync_all().unwrap();
        f.sync_data().unwrap();
        // SAFETY: map 4096 bytes of a 4096-byte file, msync it, unmap.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            *(p as *mut u8) = 1;
            assert_eq!(libc::msync(p, 4096, libc::MS_SYNC), 0);
            libc::munmap(p, 4096);
        }
        let d = sync_calls().since(&before);
        assert!(d.fsync >= 1 && d.fdatasync >= 1 && d.msync >= 1, "{d:?}");
    }

    #[test]
    fn sqlite_synchronous_full_commit_syncs() {
        // Bundled SQLite is compiled into the binary: its fsync/fdatasync
        // references resolve to our wrappers at static link time.
        let dir = tempfile::tempdir().unwrap();
        let conn = rusqlite::Connection::open(dir.path().join("t.db")).unwrap();
        conn.execute_batch("PRAGMA synchronous=FULL; CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);").unwrap();
        let before = sync_calls();
        for i in 0..3 {
            conn.execute("INSERT INTO t VALUES (?1, 'x')", [i]).unwrap();
        }
        let d = sync_calls().since(&before);
        eprintln!("sqlite, 3 commits: {d:?}");
        // Rollback journal: at least the journal and the database file per commit.
        assert!(d.total() >= 3, "{d:?}");
    }

    #[test]
    fn rocksdb_shared_library_syncs_are_counted() {
        // librocksdb.so is a shared library: this only counts when the test
        // binary exports our wrappers dynamically (build.rs).
        let dir = tempfile::tempdir().unwrap();
        let engine =
            crate::engine::conformance::open_with(&crate::engine::rocksdb::SPEC, dir.path(), &[("sync", "true")])
                .unwrap();
        let mut session = engine.session().unwrap();
        let before = sync_calls();
        for i in 0..3u32 {
            session.put(&i.to_be_bytes(), b"v").unwrap();
        }
        let d = sync_calls().since(&before);
        eprintln!("rocksdb, 3 synced puts: {d:?}");
        assert!(d.total() >= 3, "{d:?}");
    }

    #[test]
    fn lmdb_syncs_are_counted() {
        // LMDB is compiled into the binary by heed's sys crate.
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: a fresh directory opened once by this test only.
        let env = unsafe { heed::EnvOpenOptions::new().map_size(1 << 20).open(dir.path()) }.unwrap();
        let before = sync_calls();
        for _ in 0..3 {
            // mdb_env_sync(env, force=1): what a durable commit ends with.
            env.force_sync().unwrap();
        }
        let d = sync_calls().since(&before);
        eprintln!("lmdb, 3 env syncs: {d:?}");
        assert!(d.total() >= 3, "{d:?}");
    }
}
