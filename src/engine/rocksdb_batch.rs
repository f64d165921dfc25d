//! One WriteBatch per session, cleared and written again for every put,
//! delete and batch, as db_bench does.
//!
//! rust-rocksdb's `put_opt` goes through `rocksdb_put`, whose `DB::Put`
//! builds and heap-allocates a new WriteBatch for every call, and its
//! `write_opt` takes the batch by value and destroys it. So this is the small
//! piece of FFI that keeps one batch: librocksdb-sys's C API on the DB handle
//! rust-rocksdb exposes with its `raw-ptr` feature.

use std::ffi::CStr;
use std::os::raw::c_char;
use std::ptr;

use librocksdb_sys as ffi;
use rocksdb::{AsRawPtr, DB};

/// Write options as a raw handle (sync and WAL on or off).
pub struct RawWriteOptions(*mut ffi::rocksdb_writeoptions_t);

impl RawWriteOptions {
    pub fn new(sync: bool, wal: bool) -> RawWriteOptions {
        // SAFETY: create returns a valid, owned handle; the setters take it.
        unsafe {
            let h = ffi::rocksdb_writeoptions_create();
            assert!(!h.is_null(), "rocksdb_writeoptions_create failed");
            ffi::rocksdb_writeoptions_set_sync(h, sync as u8);
            ffi::rocksdb_writeoptions_disable_WAL(h, (!wal) as i32);
            RawWriteOptions(h)
        }
    }
}

impl Drop for RawWriteOptions {
    fn drop(&mut self) {
        // SAFETY: we own the handle.
        unsafe { ffi::rocksdb_writeoptions_destroy(self.0) }
    }
}

/// A WriteBatch that is kept and reused.
pub struct ReusedBatch(*mut ffi::rocksdb_writebatch_t);

impl ReusedBatch {
    pub fn new() -> ReusedBatch {
        // SAFETY: create returns a valid, owned handle.
        let h = unsafe { ffi::rocksdb_writebatch_create() };
        assert!(!h.is_null(), "rocksdb_writebatch_create failed");
        ReusedBatch(h)
    }

    #[inline]
    pub fn clear(&mut self) {
        // SAFETY: a valid handle we own.
        unsafe { ffi::rocksdb_writebatch_clear(self.0) }
    }

    #[inline]
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        // SAFETY: the batch copies key and value before returning.
        unsafe {
            ffi::rocksdb_writebatch_put(self.0, key.as_ptr() as *const c_char, key.len(), value.as_ptr() as *const c_char, value.len())
        }
    }

    #[inline]
    pub fn delete(&mut self, key: &[u8]) {
        // SAFETY: the batch copies the key before returning.
        unsafe { ffi::rocksdb_writebatch_delete(self.0, key.as_ptr() as *const c_char, key.len()) }
    }

    /// `DB::Write` of this batch; the batch stays ours.
    #[inline]
    pub fn write(&self, db: &DB, opts: &RawWriteOptions) -> Result<(), String> {
        let mut err: *mut c_char = ptr::null_mut();
        // SAFETY: db outlives the call; batch and options are valid handles;
        // an error string is allocated by RocksDB and freed here.
        unsafe {
            ffi::rocksdb_write(db.as_raw_ptr(), opts.0, self.0, &mut err);
            if err.is_null() {
                return Ok(());
            }
            let msg = CStr::from_ptr(err).to_string_lossy().into_owned();
            ffi::rocksdb_free(err as *mut std::ffi::c_void);
            Err(msg)
        }
    }
}

impl Drop for ReusedBatch {
    fn drop(&mut self) {
        // SAFETY: we own the handle.
        unsafe { ffi::rocksdb_writebatch_destroy(self.0) }
    }
}
