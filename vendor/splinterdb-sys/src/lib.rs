//! SplinterDB (github.com/vmware/splinterdb, commit d2173e0e), built from the
//! vendored upstream source by build.rs, and the part of its C API rumbench
//! uses: hand-written declarations of `include/splinterdb/splinterdb.h` (no
//! binding crate exists) and of four functions the library exports outside its
//! public headers, wrapped in a safe API ([`Db`], [`Lookup`], [`Db::scan`]).
//!
//! The layouts of `splinterdb_config`, `data_config`, `slice` and the opaque
//! lookup/notification buffers follow the headers of the vendored commit;
//! `tests::layouts_match_the_headers` checks the sizes against the header text.

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// How this library was built (build.rs): for each result's provenance.
pub mod build {
    /// Upstream's release CFLAGS as its Makefile recorded them, with `-march=native` first.
    pub const CFLAGS: &str = env!("SPLINTERDB_SYS_CFLAGS");
    pub const LDFLAGS: &str = env!("SPLINTERDB_SYS_LDFLAGS");
    pub const COMPILER: &str = env!("SPLINTERDB_SYS_COMPILER");
    pub const COMMIT: &str = env!("SPLINTERDB_SYS_COMMIT");
    /// Upstream's BUILD_MODE: release.
    pub const MODE: &str = env!("SPLINTERDB_SYS_BUILD_MODE");
    /// The make command, less BUILD_ROOT (bench/splinterdb_build.sh runs it for driver_test).
    pub const MAKE: &str = env!("SPLINTERDB_SYS_MAKE");
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct slice {
    pub length: u64,
    pub data: *const c_void,
}

impl slice {
    fn of(bytes: &[u8]) -> slice {
        slice { length: bytes.len() as u64, data: bytes.as_ptr().cast() }
    }
    const NULL: slice = slice { length: 0, data: std::ptr::null() };
    /// # Safety
    /// The slice must point at `length` readable bytes for the lifetime used.
    unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.length == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.data.cast(), self.length as usize)
        }
    }
}

/// `data_config` (data.h): six callbacks, filled by `default_data_config_init`.
#[repr(C)]
pub struct data_config {
    callbacks: [*const c_void; 6],
}

/// `splinterdb_config` (splinterdb.h), field for field.
#[repr(C)]
pub struct splinterdb_config {
    pub filename: *const c_char,
    pub cache_size: u64,
    pub disk_size: u64,
    pub data_cfg: *mut data_config,
    pub heap_handle: *mut c_void,
    pub heap_id: *mut c_void,
    pub shmem_size: u64,
    pub use_shmem: bool,
    pub page_size: u64,
    pub extent_size: u64,
    pub io_flags: c_int,
    pub io_perms: u32,
    pub io_async_queue_depth: u64,
    pub cache_use_stats: bool,
    pub cache_logfile: *const c_char,
    pub num_memtable_bg_threads: u64,
    pub num_normal_bg_threads: u64,
    pub btree_rough_count_height: u64,
    pub filter_hash_size: u64,
    pub filter_log_index_size: u64,
    pub use_log: bool,
    pub memtable_capacity: u64,
    pub fanout: u64,
    pub use_stats: u64,
    pub reclaim_threshold: u64,
    pub queue_scale_percent: u64,
    pub prefetch_budget: u64,
}

pub enum splinterdb {}
pub enum splinterdb_iterator {}

/// SPLINTERDB_LOOKUP_BUFSIZE: 20 pointers, 8-aligned.
#[repr(C, align(8))]
pub struct splinterdb_lookup_result([u8; 20 * 8]);
/// SPLINTERDB_NOTIFICATION_BUFSIZE: 32 pointers, 8-aligned.
#[repr(C, align(8))]
pub struct splinterdb_notification([u8; 32 * 8]);

/// `enum comparison` of splinterdb.h.
pub const LESS_THAN_OR_EQUAL: c_int = 1;
pub const GREATER_THAN_OR_EQUAL: c_int = 3;
pub const SPLINTERDB_LOOKUP_VALUE: u64 = 0;

extern "C" {
    pub fn splinterdb_get_version() -> *const c_char;
    pub fn default_data_config_init(out: *mut data_config);
    pub fn splinterdb_create(cfg: *const splinterdb_config, kvs: *mut *mut splinterdb) -> c_int;
    pub fn splinterdb_open(cfg: *const splinterdb_config, kvs: *mut *mut splinterdb) -> c_int;
    pub fn splinterdb_close(kvs: *mut *mut splinterdb);
    pub fn splinterdb_lookup_result_init(kvs: *const splinterdb, result: *mut splinterdb_lookup_result, flags: u64, buffer_len: u64, buffer: *mut c_char);
    pub fn splinterdb_lookup_result_deinit(result: *mut splinterdb_lookup_result);
    pub fn splinterdb_lookup_found(result: *const splinterdb_lookup_result) -> bool;
    pub fn splinterdb_lookup_result_value(result: *const splinterdb_lookup_result, value: *mut slice) -> c_int;
    pub fn splinterdb_lookup(kvs: *mut splinterdb, key: slice, result: *mut splinterdb_lookup_result) -> c_int;
    pub fn splinterdb_insert(kvs: *mut splinterdb, key: slice, value: slice, old: *mut splinterdb_lookup_result) -> c_int;
    pub fn splinterdb_delete(kvs: *mut splinterdb, key: slice, old: *mut splinterdb_lookup_result) -> c_int;
    pub fn splinterdb_iterator_init(kvs: *mut splinterdb, iter: *mut *mut splinterdb_iterator, start_type: c_int, start_key: slice) -> c_int;
    pub fn splinterdb_iterator_deinit(iter: *mut splinterdb_iterator);
    pub fn splinterdb_iterator_valid(iter: *mut splinterdb_iterator) -> bool;
    pub fn splinterdb_iterator_can_next(iter: *mut splinterdb_iterator) -> bool;
    pub fn splinterdb_iterator_can_prev(iter: *mut splinterdb_iterator) -> bool;
    pub fn splinterdb_iterator_next(iter: *mut splinterdb_iterator);
    pub fn splinterdb_iterator_prev(iter: *mut splinterdb_iterator);
    pub fn splinterdb_iterator_get_current(iter: *mut splinterdb_iterator, key: *mut slice, value: *mut slice);
    pub fn splinterdb_iterator_status(iter: *const splinterdb_iterator) -> c_int;
    pub fn splinterdb_notification_init_blocking(n: *mut splinterdb_notification);
    pub fn splinterdb_notification_deinit(n: *mut splinterdb_notification);
    pub fn splinterdb_optimize(kvs: *mut splinterdb, min_key: slice, max_key: slice, full_leaf_compactions: bool, n: *mut splinterdb_notification) -> c_int;

    // Exported by the library, declared only in its private headers:
    // src/splinterdb_tests_private.h ("testing hooks")...
    fn splinterdb_cache_flush(kvs: *mut splinterdb);
    fn splinterdb_get_cache_handle(kvs: *const splinterdb) -> *const c_void;
    fn splinterdb_get_trunk_handle(kvs: *const splinterdb) -> *const c_void;
    fn splinterdb_get_task_system_handle(kvs: *const splinterdb) -> *const c_void;
    fn splinterdb_get_allocator_handle(kvs: *const splinterdb) -> *const c_void;
    // ... src/rc_allocator.c: extents allocated now (counted whatever use_stats), and the file's capacity in bytes.
    fn rc_allocator_in_use(al: *mut c_void) -> u64;
    fn rc_allocator_get_capacity(al: *mut c_void) -> u64;
    fn rc_allocator_extent_size(al: *mut c_void) -> u64;
    // ... src/clockcache.h: pages read and written by the cache (counted with use_stats only).
    fn clockcache_io_stats(cc: *mut c_void, read_bytes: *mut u64, write_bytes: *mut u64);
    // ... src/core.h: runs every queued background task on the calling thread.
    fn core_perform_tasks(spl: *mut c_void);
    // ... src/task.h: no task waiting or running.
    fn task_system_is_quiescent(ts: *mut c_void) -> i32;

    // libxxhash (SplinterDB's platform_checksum64 and splinter_test's key hash).
    fn XXH64(input: *const c_void, length: usize, seed: u64) -> u64;

    // include/splinterdb/public_platform.h and src/platform_linux/platform_log.h.
    fn platform_set_log_streams(info: *mut libc::FILE, error: *mut libc::FILE);
    fn platform_get_stdout_stream() -> *mut libc::FILE;
    // glibc.
    fn fopencookie(cookie: *mut c_void, mode: *const c_char, io: CookieIo) -> *mut libc::FILE;
}

#[repr(C)]
struct CookieIo {
    read: *const c_void,
    write: unsafe extern "C" fn(cookie: *mut c_void, buf: *const c_char, size: usize) -> isize,
    seek: *const c_void,
    close: *const c_void,
}

/// Writes what SplinterDB logs as an error to standard error and to the file
/// whose descriptor is the cookie.
unsafe extern "C" fn tee_write(cookie: *mut c_void, buf: *const c_char, size: usize) -> isize {
    libc::write(2, buf.cast(), size);
    libc::write(cookie as usize as c_int, buf.cast(), size);
    size as isize
}

/// Send SplinterDB's error messages (platform_error_log: "Out of Space", a
/// failed platform_assert before its abort) to standard error as before and
/// also append them to `path`, unbuffered, so that a process it crashes
/// leaves its last words there. Process-wide, as SplinterDB's log streams are.
pub fn tee_errors_to(path: &Path) -> Result<(), Error> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|_| Error("splinterdb: path contains a NUL byte".into()))?;
    // SAFETY: plain libc calls; the FILE lives for the rest of the process (SplinterDB keeps it).
    unsafe {
        let fd = libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND | libc::O_CLOEXEC, 0o644);
        if fd < 0 {
            return Err(Error(format!("splinterdb: cannot open {}: {}", path.display(), std::io::Error::last_os_error())));
        }
        let io = CookieIo { read: std::ptr::null(), write: tee_write, seek: std::ptr::null(), close: std::ptr::null() };
        let f = fopencookie(fd as usize as *mut c_void, c"w".as_ptr(), io);
        if f.is_null() {
            libc::close(fd);
            return Err(Error("splinterdb: fopencookie failed".into()));
        }
        libc::setvbuf(f, std::ptr::null_mut(), libc::_IONBF, 0);
        platform_set_log_streams(platform_get_stdout_stream(), f);
    }
    Ok(())
}

/// XXH64 of `bytes` with `seed`, by the libxxhash SplinterDB links.
pub fn xxh64(bytes: &[u8], seed: u64) -> u64 {
    // SAFETY: reads `bytes` only.
    unsafe { XXH64(bytes.as_ptr().cast(), bytes.len(), seed) }
}

/// The library's version string ("splinterdb_build_version d2173e0e").
pub fn version() -> String {
    // SAFETY: a static NUL-terminated string.
    unsafe { CStr::from_ptr(splinterdb_get_version()) }.to_string_lossy().into_owned()
}

/// Page size SplinterDB's cache IO counter assumes (clockcache_io_stats: pages x 4 KiB).
pub const IO_STATS_PAGE_BYTES: u64 = 4096;

/// The configuration rumbench sets; every other field is left 0 (SplinterDB's default).
#[derive(Debug, Clone)]
pub struct Config {
    pub cache_size: u64,
    pub disk_size: u64,
    pub page_size: u64,
    pub extent_size: u64,
    pub direct_io: bool,
    pub io_async_queue_depth: u64,
    pub num_memtable_bg_threads: u64,
    pub num_normal_bg_threads: u64,
    pub filter_hash_size: u64,
    pub filter_log_index_size: u64,
    pub use_log: bool,
    pub memtable_capacity: u64,
    pub fanout: u64,
    pub use_stats: bool,
    pub queue_scale_percent: u64,
}

/// An open SplinterDB: thread-safe (every public call registers its thread on first use).
pub struct Db {
    kvs: *mut splinterdb,
    /// Referenced by the open database: freed after close.
    _data_cfg: Box<data_config>,
    _filename: CString,
}

// SAFETY: SplinterDB's public API is thread-safe; the handle is only closed in Drop.
unsafe impl Send for Db {}
unsafe impl Sync for Db {}

#[derive(Debug)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn check(what: &str, rc: c_int) -> Result<(), Error> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error(format!("splinterdb: {what} failed: {} (error {rc})", std::io::Error::from_raw_os_error(rc))))
    }
}

impl Db {
    fn create_or_open(path: &Path, cfg: &Config, create: bool) -> Result<Db, Error> {
        let filename = CString::new(path.as_os_str().as_bytes()).map_err(|_| Error("splinterdb: path contains a NUL byte".into()))?;
        let mut data_cfg = Box::new(data_config { callbacks: [std::ptr::null(); 6] });
        // SAFETY: fills the struct.
        unsafe { default_data_config_init(&mut *data_cfg) };
        let mut flags = libc::O_RDWR | libc::O_CREAT;
        if cfg.direct_io {
            flags |= libc::O_DIRECT;
        }
        let c = splinterdb_config {
            filename: filename.as_ptr(),
            cache_size: cfg.cache_size,
            disk_size: if create { cfg.disk_size } else { 0 },
            data_cfg: &mut *data_cfg,
            heap_handle: std::ptr::null_mut(),
            heap_id: std::ptr::null_mut(),
            shmem_size: 0,
            use_shmem: false,
            page_size: if create { cfg.page_size } else { 0 },
            extent_size: if create { cfg.extent_size } else { 0 },
            io_flags: flags,
            io_perms: 0o600,
            io_async_queue_depth: cfg.io_async_queue_depth,
            cache_use_stats: false,
            cache_logfile: std::ptr::null(),
            num_memtable_bg_threads: cfg.num_memtable_bg_threads,
            num_normal_bg_threads: cfg.num_normal_bg_threads,
            btree_rough_count_height: 0,
            filter_hash_size: cfg.filter_hash_size,
            filter_log_index_size: cfg.filter_log_index_size,
            use_log: cfg.use_log,
            memtable_capacity: cfg.memtable_capacity,
            fanout: cfg.fanout,
            use_stats: cfg.use_stats as u64,
            reclaim_threshold: 0,
            queue_scale_percent: cfg.queue_scale_percent,
            prefetch_budget: 0,
        };
        let mut kvs: *mut splinterdb = std::ptr::null_mut();
        // SAFETY: the config and what it points at live through the call; the
        // data config lives as long as the database (kept in Db).
        let rc = unsafe { if create { splinterdb_create(&c, &mut kvs) } else { splinterdb_open(&c, &mut kvs) } };
        check(if create { "splinterdb_create" } else { "splinterdb_open" }, rc)?;
        Ok(Db { kvs, _data_cfg: data_cfg, _filename: filename })
    }

    /// A new database in file `path` (SplinterDB erases what the file held).
    pub fn create(path: &Path, cfg: &Config) -> Result<Db, Error> {
        Self::create_or_open(path, cfg, true)
    }

    /// The database in file `path`; disk, page and extent sizes come from its superblock.
    pub fn open(path: &Path, cfg: &Config) -> Result<Db, Error> {
        Self::create_or_open(path, cfg, false)
    }

    pub fn insert(&self, key: &[u8], value: &[u8]) -> Result<(), Error> {
        // SAFETY: the library copies key and value into its memtable.
        check("insert", unsafe { splinterdb_insert(self.kvs, slice::of(key), slice::of(value), std::ptr::null_mut()) })
    }

    pub fn delete(&self, key: &[u8]) -> Result<(), Error> {
        // SAFETY: as insert.
        check("delete", unsafe { splinterdb_delete(self.kvs, slice::of(key), std::ptr::null_mut()) })
    }

    /// A reusable lookup result for one thread.
    pub fn lookup_buffer(&self) -> Lookup<'_> {
        let mut result = Box::new(splinterdb_lookup_result([0; 160]));
        // SAFETY: initialises the boxed (never moved) buffer; the library allocates the value space.
        unsafe { splinterdb_lookup_result_init(self.kvs, &mut *result, SPLINTERDB_LOOKUP_VALUE, 0, std::ptr::null_mut()) };
        Lookup { db: self, result }
    }

    /// Visit entries from the first key >= `start` (or, `reverse`, the last
    /// key <= `start`) until `visit` returns false or `max` were visited: one
    /// iterator, made for this scan (SplinterDB has no seek) and freed after.
    pub fn scan(&self, start: &[u8], reverse: bool, max: usize, visit: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<usize, Error> {
        if max == 0 || (reverse && start.is_empty()) {
            return Ok(0);
        }
        // An empty start key forward is the first key (NULL_SLICE: the minimum).
        let key = if start.is_empty() { slice::NULL } else { slice::of(start) };
        let mut it: *mut splinterdb_iterator = std::ptr::null_mut();
        let cmp = if reverse { LESS_THAN_OR_EQUAL } else { GREATER_THAN_OR_EQUAL };
        // SAFETY: the iterator is used on this thread only and freed before returning;
        // key and value slices are read before the iterator moves.
        unsafe {
            check("iterator_init", splinterdb_iterator_init(self.kvs, &mut it, cmp, key))?;
            let mut n = 0;
            while splinterdb_iterator_valid(it) {
                let (mut k, mut v) = (slice::NULL, slice::NULL);
                splinterdb_iterator_get_current(it, &mut k, &mut v);
                if splinterdb_iterator_status(it) != 0 {
                    break;
                }
                n += 1;
                if !visit(k.bytes(), v.bytes()) || n == max {
                    break;
                }
                if reverse {
                    if !splinterdb_iterator_can_prev(it) {
                        break;
                    }
                    splinterdb_iterator_prev(it);
                } else {
                    // splinterdb.h's own loop: a valid iterator can always
                    // move on (to the end, where it is no longer valid).
                    splinterdb_iterator_next(it);
                }
            }
            let rc = splinterdb_iterator_status(it);
            splinterdb_iterator_deinit(it);
            check("iterator", rc)?;
            Ok(n)
        }
    }

    /// Bytes read and written by SplinterDB's cache since open: pages x 4 KiB
    /// (clockcache_io_stats), zero unless opened with `use_stats`.
    pub fn cache_io_bytes(&self) -> (u64, u64) {
        let (mut read, mut written) = (0u64, 0u64);
        // SAFETY: the cache handle is the database's clockcache (splinterdb.c:
        // `clockcache cache_handle`, whose first member is its `cache`); the
        // function only sums per-thread counters.
        unsafe { clockcache_io_stats(splinterdb_get_cache_handle(self.kvs) as *mut c_void, &mut read, &mut written) };
        (read, written)
    }

    /// Bytes of the database file in use (allocated extents) and its
    /// capacity (disk_size): how full the fixed-size file is.
    pub fn space(&self) -> (u64, u64) {
        // SAFETY: the database's rc_allocator (splinterdb.c: `rc_allocator
        // allocator_handle`); the functions read its counters and config.
        unsafe {
            let al = splinterdb_get_allocator_handle(self.kvs) as *mut c_void;
            (rc_allocator_in_use(al).saturating_mul(rc_allocator_extent_size(al)), rc_allocator_get_capacity(al))
        }
    }

    /// Run every queued background task (compactions, memtable
    /// incorporations) on this thread, then write back the cache's dirty pages.
    pub fn perform_tasks(&self) {
        // SAFETY: core_perform_tasks takes the database's core handle; thread registration is automatic.
        unsafe { core_perform_tasks(splinterdb_get_trunk_handle(self.kvs) as *mut c_void) }
    }

    /// No background task waiting or running.
    pub fn quiescent(&self) -> bool {
        // SAFETY: the task system of the open database; the call locks its groups.
        unsafe { task_system_is_quiescent(splinterdb_get_task_system_handle(self.kvs) as *mut c_void) != 0 }
    }

    /// Write back every dirty page of the cache (and wait for the IO).
    pub fn cache_flush(&self) {
        // SAFETY: the open database; no iterator of ours is live (each scan frees its own).
        unsafe { splinterdb_cache_flush(self.kvs) }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: lookups and scans borrow the Db, so none is alive; close flushes and frees.
        unsafe { splinterdb_close(&mut self.kvs) }
    }
}

/// A lookup result buffer, for one thread's point reads.
pub struct Lookup<'a> {
    db: &'a Db,
    result: Box<splinterdb_lookup_result>,
}

impl Lookup<'_> {
    /// Look `key` up; `with` gets the value when found.
    pub fn get(&mut self, key: &[u8], with: impl FnOnce(&[u8])) -> Result<bool, Error> {
        // SAFETY: the result was initialised for this database; the value
        // slice points into it and is used before the next lookup.
        unsafe {
            check("lookup", splinterdb_lookup(self.db.kvs, slice::of(key), &mut *self.result))?;
            if !splinterdb_lookup_found(&*self.result) {
                return Ok(false);
            }
            let mut v = slice::NULL;
            check("lookup_result_value", splinterdb_lookup_result_value(&*self.result, &mut v))?;
            with(v.bytes());
            Ok(true)
        }
    }
}

impl Drop for Lookup<'_> {
    fn drop(&mut self) {
        // SAFETY: initialised in lookup_buffer, released once.
        unsafe { splinterdb_lookup_result_deinit(&mut *self.result) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config {
            cache_size: 256 << 20,
            disk_size: 256 << 20,
            page_size: 4096,
            extent_size: 128 << 10,
            direct_io: false,
            io_async_queue_depth: 256,
            num_memtable_bg_threads: 0,
            num_normal_bg_threads: 0,
            filter_hash_size: 26,
            filter_log_index_size: 9,
            use_log: false,
            memtable_capacity: 24 << 20,
            fanout: 8,
            use_stats: true,
            queue_scale_percent: 0,
        }
    }

    /// The sizes of the structs this crate declares, against splinterdb.h and data.h:
    /// 27 fields of splinterdb_config in 26 slots of 8 bytes (each bool padded to 8,
    /// io_flags and io_perms sharing one), 6 callbacks, the lookup and notification
    /// buffers' pointer counts.
    #[test]
    fn layouts_match_the_headers() {
        let h = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/splinterdb/include/splinterdb/splinterdb.h")).unwrap();
        assert!(h.contains("#define SPLINTERDB_LOOKUP_BUFSIZE (20 * sizeof(void *))"));
        assert!(h.contains("#define SPLINTERDB_NOTIFICATION_BUFSIZE (32 * sizeof(void *))"));
        let body = h.split("typedef struct splinterdb_config {").nth(1).unwrap().split("} splinterdb_config;").next().unwrap();
        let fields: Vec<&str> = body
            .lines()
            .map(|l| l.split("//").next().unwrap().trim())
            .filter(|l| l.ends_with(';'))
            .collect();
        assert_eq!(fields.len(), 27, "{fields:?}");
        assert_eq!(std::mem::size_of::<splinterdb_config>(), 26 * 8);
        assert_eq!(std::mem::size_of::<splinterdb_lookup_result>(), 160);
        assert_eq!(std::mem::size_of::<splinterdb_notification>(), 256);
        let d = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/splinterdb/include/splinterdb/data.h")).unwrap();
        let dc = d.split("struct data_config {").nth(1).unwrap().split("};").next().unwrap();
        assert_eq!(dc.lines().map(|l| l.split("/*").next().unwrap().trim()).filter(|l| l.ends_with(';')).count(), 6);
    }

    #[test]
    fn put_get_scan_reopen_and_count_io() {
        let dir = std::env::temp_dir().join(format!("splinterdb-sys-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("db");
        {
            let db = Db::create(&path, &config()).unwrap();
            for i in 0..1000u32 {
                db.insert(&i.to_be_bytes(), format!("v{i}").as_bytes()).unwrap();
            }
            db.delete(&7u32.to_be_bytes()).unwrap();
            let mut l = db.lookup_buffer();
            let mut got = Vec::new();
            assert!(l.get(&5u32.to_be_bytes(), |v| got = v.to_vec()).unwrap());
            assert_eq!(got, b"v5");
            assert!(!l.get(&7u32.to_be_bytes(), |_| ()).unwrap());
            drop(l);
            let mut keys = Vec::new();
            db.scan(&6u32.to_be_bytes(), false, 3, &mut |k, _| {
                keys.push(u32::from_be_bytes(k.try_into().unwrap()));
                true
            })
            .unwrap();
            assert_eq!(keys, [6, 8, 9]);
            keys.clear();
            db.scan(&8u32.to_be_bytes(), true, 3, &mut |k, _| {
                keys.push(u32::from_be_bytes(k.try_into().unwrap()));
                true
            })
            .unwrap();
            assert_eq!(keys, [8, 6, 5]);
            db.perform_tasks();
            db.cache_flush();
            assert!(db.quiescent());
            assert!(db.cache_io_bytes().1 > 0, "the flush wrote pages");
        }
        let db = Db::open(&path, &config()).unwrap();
        let mut l = db.lookup_buffer();
        assert!(l.get(&999u32.to_be_bytes(), |_| ()).unwrap());
        drop(l);
        drop(db);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(version().contains("d2173e0e"), "{}", version());
        assert_eq!(xxh64(&0u64.to_le_bytes(), 42), xxh64(&[0u8; 8], 42));
    }
}
