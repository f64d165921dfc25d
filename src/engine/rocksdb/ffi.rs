//! RocksDB's C API (librocksdb-sys's bindings of rocksdb/c.h) behind safe
//! types: the only FFI of the rocksdb engine.
//!
//! The C API, not the rust-rocksdb crate, so that one engine source builds
//! with every librocksdb-sys from 0.6.3 (RocksDB 6.28.2) to 0.19.0 (11.8.1):
//! every function used here has the same parameter types in all of them,
//! and what came later is behind a `rocksdb_has_*` cfg set by build.rs from
//! the bundled c.h (docs/design/rocksdb-versions-research.md, section 3).
//!
//! Every handle is owned by one Rust value and freed by its Drop. What is
//! taken from a DB (iterators, pinned values, transactions) carries the DB's
//! lifetime, so it is gone before the DB closes; the engine keeps the
//! options and cache a DB was opened with until after it closes. Errors are
//! RocksDB's status text (`char** errptr`).

use std::ffi::{c_char, c_void, CStr, CString};
use std::marker::PhantomData;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::{self, NonNull};

use librocksdb_sys as ffi;

#[allow(
    unused_imports,
    reason = "a source build calls the header's functions directly: `late` is used by release builds only"
)]
use super::late;
use super::versions::{Capabilities, Release};
#[cfg(test)]
use super::versions::{SOURCE_VERSION, SYS_CRATE_VERSION};

/// What this process's RocksDB can do: what its header has in a source
/// build (constant); in the binary every release build shares, what its
/// release has (src/engine/rocksdb/late.rs).
#[inline]
pub fn caps() -> Capabilities {
    if cfg!(rocksdb_any_release) {
        Release::this_process().caps
    } else {
        Capabilities::this_build()
    }
}

/// A failed RocksDB call: its status as text ("Operation timed out: ...").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

/// The status codes the engine acts on; all others are `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    TimedOut,
    Busy,
    TryAgain,
    Expired,
    Other,
}

impl Error {
    /// The status code, from the text Status::ToString starts with (its
    /// code's name, then ':'), as rust-rocksdb parses it; the same text in
    /// every RocksDB version here.
    pub fn kind(&self) -> ErrorKind {
        match self.0.split(':').next().unwrap_or("") {
            "Operation timed out" => ErrorKind::TimedOut,
            "Resource busy" => ErrorKind::Busy,
            "Operation failed. Try again." => ErrorKind::TryAgain,
            "Operation expired" => ErrorKind::Expired,
            _ => ErrorKind::Other,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Take a string RocksDB allocated (an error or a property) and free it.
///
/// # Safety
/// `s` is a NUL-terminated string from RocksDB's malloc, not used afterwards.
unsafe fn take_string(s: *mut c_char) -> String {
    // SAFETY: as the caller promises.
    unsafe {
        let text = CStr::from_ptr(s).to_string_lossy().into_owned();
        ffi::rocksdb_free(s as *mut c_void);
        text
    }
}

/// Run `call` with a C `char** errptr`: RocksDB sets it on failure only.
#[inline]
fn try_call<T>(call: impl FnOnce(*mut *mut c_char) -> T) -> Result<T, Error> {
    let mut err: *mut c_char = ptr::null_mut();
    let out = call(&mut err);
    if err.is_null() {
        Ok(out)
    } else {
        // SAFETY: a set errptr is a string RocksDB allocated for us.
        Err(Error(unsafe { take_string(err) }))
    }
}

/// A handle from a `*_create`: null only when RocksDB could not allocate.
fn created<T>(h: *mut T, what: &str) -> NonNull<T> {
    NonNull::new(h).unwrap_or_else(|| panic!("RocksDB returned no {what}"))
}

fn c_string(s: &str, what: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error(format!("{what} contains a NUL byte: {s:?}")))
}

#[inline]
fn ptr_len(bytes: &[u8]) -> (*const c_char, usize) {
    (bytes.as_ptr() as *const c_char, bytes.len())
}

/// Test builds log each close and free, so tests can check their order.
#[cfg(test)]
pub mod drop_log {
    use std::cell::RefCell;
    thread_local!(static LOG: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) });
    pub fn push(what: &'static str) {
        LOG.with(|l| l.borrow_mut().push(what));
    }
    pub fn take() -> Vec<&'static str> {
        LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
    }
}

macro_rules! logged_drop {
    ($what:expr) => {
        #[cfg(test)]
        drop_log::push($what);
    };
}

/// A C handle this wrapper owns, freed by `$destroy` when dropped (RocksDB
/// copies what it needs from options, caches and batches it is given);
/// `logged`: the entry of the test builds' drop log.
macro_rules! owned_handle {
    ($(#[$attr:meta])* $vis:vis struct $name:ident($c:ty), $destroy:path $(, logged $log:literal)?) => {
        $(#[$attr])*
        $vis struct $name(NonNull<$c>);

        $(#[$attr])*
        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: we own the handle, and drop frees it once.
                unsafe { $destroy(self.0.as_ptr()) }
                $(logged_drop!($log);)?
            }
        }
    };
}

/// Turn RocksDB's per-thread perf counters off on the calling thread
/// (PerfLevel::kDisable, perf_level.h).
pub fn disable_perf_stats_on_this_thread() {
    // SAFETY: sets a thread-local level; any value of the enum is valid.
    unsafe { ffi::rocksdb_set_perf_level(1) }
}

owned_handle!(
    /// DB and column family options (`rocksdb_options_t`).
    pub struct Options(ffi::rocksdb_options_t), ffi::rocksdb_options_destroy, logged "options freed"
);

// SAFETY: setters need &mut; through & only the statistics object (itself
// thread-safe) is read.
unsafe impl Send for Options {}
// SAFETY: as for Send, above.
unsafe impl Sync for Options {}

/// `fn name(&mut self, v: T)` for a C setter `rocksdb_options_set_*(opts, v)`.
macro_rules! setters {
    ($($name:ident($t:ty) => $c:ident;)*) => {
        $(
            pub fn $name(&mut self, v: $t) {
                // SAFETY: a valid options handle; the setter copies the value.
                unsafe { ffi::$c(self.0.as_ptr(), v as _) }
            }
        )*
    };
}

impl Options {
    pub fn new() -> Options {
        // SAFETY: returns a new handle we own.
        Options(created(unsafe { ffi::rocksdb_options_create() }, "options"))
    }

    setters! {
        create_if_missing(bool) => rocksdb_options_set_create_if_missing;
        set_compaction_style(CompactionStyle) => rocksdb_options_set_compaction_style;
        set_write_buffer_size(usize) => rocksdb_options_set_write_buffer_size;
        set_max_write_buffer_number(i32) => rocksdb_options_set_max_write_buffer_number;
        set_max_background_jobs(i32) => rocksdb_options_set_max_background_jobs;
        set_max_subcompactions(u32) => rocksdb_options_set_max_subcompactions;
        set_level_zero_file_num_compaction_trigger(i32) => rocksdb_options_set_level0_file_num_compaction_trigger;
        set_level_zero_slowdown_writes_trigger(i32) => rocksdb_options_set_level0_slowdown_writes_trigger;
        set_level_zero_stop_writes_trigger(i32) => rocksdb_options_set_level0_stop_writes_trigger;
        set_target_file_size_base(u64) => rocksdb_options_set_target_file_size_base;
        set_max_bytes_for_level_base(u64) => rocksdb_options_set_max_bytes_for_level_base;
        set_num_levels(i32) => rocksdb_options_set_num_levels;
        set_level_compaction_dynamic_level_bytes(bool) => rocksdb_options_set_level_compaction_dynamic_level_bytes;
        set_compression_type(Compression) => rocksdb_options_set_compression;
        set_enable_blob_files(bool) => rocksdb_options_set_enable_blob_files;
        set_min_blob_size(u64) => rocksdb_options_set_min_blob_size;
        set_blob_file_size(u64) => rocksdb_options_set_blob_file_size;
        set_blob_compression_type(Compression) => rocksdb_options_set_blob_compression_type;
        set_enable_blob_gc(bool) => rocksdb_options_set_enable_blob_gc;
        set_use_direct_reads(bool) => rocksdb_options_set_use_direct_reads;
        set_use_direct_io_for_flush_and_compaction(bool) => rocksdb_options_set_use_direct_io_for_flush_and_compaction;
        set_max_open_files(i32) => rocksdb_options_set_max_open_files;
        set_bytes_per_sync(u64) => rocksdb_options_set_bytes_per_sync;
        set_enable_pipelined_write(bool) => rocksdb_options_set_enable_pipelined_write;
        set_disable_auto_compactions(bool) => rocksdb_options_set_disable_auto_compactions;
    }

    pub fn enable_statistics(&mut self) {
        // SAFETY: a valid options handle.
        unsafe { ffi::rocksdb_options_enable_statistics(self.0.as_ptr()) }
    }

    /// The statistics dump ("NAME COUNT : n" lines); None when statistics are off.
    pub fn statistics(&self) -> Option<String> {
        // SAFETY: reads the shared statistics object; the result is ours to free.
        unsafe {
            let text = ffi::rocksdb_options_statistics_get_string(self.0.as_ptr());
            (!text.is_null()).then(|| take_string(text))
        }
    }

    /// Use this block-based table configuration (RocksDB copies it, block
    /// cache reference included: `table` may be dropped afterwards).
    pub fn set_block_based_table_factory(&mut self, table: &BlockBasedOptions) {
        // SAFETY: both handles valid; the options copy the table options.
        unsafe { ffi::rocksdb_options_set_block_based_table_factory(self.0.as_ptr(), table.0.as_ptr()) }
    }

    /// A copy of these options with `text` ("name=value;...", RocksDB's
    /// options-string syntax) applied.
    pub fn with_options_string(&self, text: &str) -> Result<Options, Error> {
        let text = c_string(text, "options string")?;
        let new = Options::new();
        // SAFETY: valid handles and a NUL-terminated string; `new` is written only.
        try_call(|err| unsafe {
            ffi::rocksdb_get_options_from_string(self.0.as_ptr(), text.as_ptr(), new.0.as_ptr(), err)
        })?;
        Ok(new)
    }
}

/// rocksdb_*_compaction of c.h.
#[derive(Clone, Copy)]
#[repr(i32)]
pub enum CompactionStyle {
    Level = ffi::rocksdb_level_compaction as i32,
    Universal = ffi::rocksdb_universal_compaction as i32,
}

/// rocksdb_*_compression of c.h.
#[derive(Clone, Copy)]
#[repr(i32)]
pub enum Compression {
    None = ffi::rocksdb_no_compression as i32,
    Snappy = ffi::rocksdb_snappy_compression as i32,
    Zlib = ffi::rocksdb_zlib_compression as i32,
    Bz2 = ffi::rocksdb_bz2_compression as i32,
    Lz4 = ffi::rocksdb_lz4_compression as i32,
    Zstd = ffi::rocksdb_zstd_compression as i32,
}

owned_handle!(
    /// A block cache (`rocksdb_cache_t`: one reference to a shared cache).
    pub struct Cache(ffi::rocksdb_cache_t), ffi::rocksdb_cache_destroy, logged "cache freed"
);

// SAFETY: RocksDB caches are thread-safe; the handle is only passed on.
unsafe impl Send for Cache {}
// SAFETY: as for Send, above.
unsafe impl Sync for Cache {}

impl Cache {
    /// An LRUCache with RocksDB's defaults (high-priority pool 0.5).
    pub fn lru(capacity: usize) -> Cache {
        // SAFETY: returns a new handle we own.
        Cache(created(unsafe { ffi::rocksdb_cache_create_lru(capacity) }, "LRU cache"))
    }

    /// A HyperClockCache whose table RocksDB sizes itself (estimated entry
    /// charge 0: AutoHyperClockCache, from 8.8.1 on).
    #[cfg(rocksdb_has_hyper_clock)]
    pub fn hyper_clock(capacity: usize) -> Cache {
        // SAFETY: returns a new handle we own.
        Cache(created(unsafe { late::rocksdb_cache_create_hyper_clock(capacity, 0) }, "HyperClockCache"))
    }
}

owned_handle!(
    /// Block-based table options.
    pub struct BlockBasedOptions(ffi::rocksdb_block_based_table_options_t), ffi::rocksdb_block_based_options_destroy
);

impl BlockBasedOptions {
    pub fn new() -> BlockBasedOptions {
        // SAFETY: returns a new handle we own.
        BlockBasedOptions(created(unsafe { ffi::rocksdb_block_based_options_create() }, "block-based table options"))
    }

    pub fn set_block_cache(&mut self, cache: &Cache) {
        // SAFETY: valid handles; the options take their own cache reference.
        unsafe { ffi::rocksdb_block_based_options_set_block_cache(self.0.as_ptr(), cache.0.as_ptr()) }
    }

    pub fn set_block_size(&mut self, bytes: usize) {
        // SAFETY: a valid handle.
        unsafe { ffi::rocksdb_block_based_options_set_block_size(self.0.as_ptr(), bytes) }
    }

    pub fn set_cache_index_and_filter_blocks(&mut self, v: bool) {
        // SAFETY: a valid handle.
        unsafe { ffi::rocksdb_block_based_options_set_cache_index_and_filter_blocks(self.0.as_ptr(), v as _) }
    }

    /// A full (not block-based) bloom filter of `bits_per_key`.
    pub fn set_bloom_filter(&mut self, bits_per_key: f64) {
        // SAFETY: the options take ownership of the new filter policy.
        unsafe {
            let policy = ffi::rocksdb_filterpolicy_create_bloom_full(bits_per_key);
            ffi::rocksdb_block_based_options_set_filter_policy(self.0.as_ptr(), policy);
        }
    }
}

owned_handle!(
    /// Read options as created (RocksDB's defaults).
    pub struct ReadOptions(ffi::rocksdb_readoptions_t), ffi::rocksdb_readoptions_destroy
);

impl ReadOptions {
    pub fn new() -> ReadOptions {
        // SAFETY: returns a new handle we own.
        ReadOptions(created(unsafe { ffi::rocksdb_readoptions_create() }, "read options"))
    }

    /// Reads that may only use the block cache (kBlockCacheTier): a way to
    /// make RocksDB return an error status, for tests.
    #[cfg(test)]
    pub fn block_cache_only(&mut self) {
        // SAFETY: a valid handle; 1 is ReadTier::kBlockCacheTier.
        unsafe { ffi::rocksdb_readoptions_set_read_tier(self.0.as_ptr(), 1) }
    }
}

owned_handle!(
    /// Write options: sync and write-ahead log on or off.
    pub struct WriteOptions(ffi::rocksdb_writeoptions_t), ffi::rocksdb_writeoptions_destroy
);

impl WriteOptions {
    pub fn new(sync: bool, wal: bool) -> WriteOptions {
        // SAFETY: create returns a handle we own; the setters take it.
        unsafe {
            let h = created(ffi::rocksdb_writeoptions_create(), "write options");
            ffi::rocksdb_writeoptions_set_sync(h.as_ptr(), sync as _);
            ffi::rocksdb_writeoptions_disable_WAL(h.as_ptr(), (!wal) as _);
            WriteOptions(h)
        }
    }
}

owned_handle!(
    /// A WriteBatch, kept and reused (`clear`) across writes.
    pub struct WriteBatch(ffi::rocksdb_writebatch_t), ffi::rocksdb_writebatch_destroy
);

impl WriteBatch {
    pub fn new() -> WriteBatch {
        // SAFETY: returns a new handle we own.
        WriteBatch(created(unsafe { ffi::rocksdb_writebatch_create() }, "write batch"))
    }

    #[inline]
    pub fn clear(&mut self) {
        // SAFETY: a valid handle.
        unsafe { ffi::rocksdb_writebatch_clear(self.0.as_ptr()) }
    }

    #[inline]
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        let ((k, kl), (v, vl)) = (ptr_len(key), ptr_len(value));
        // SAFETY: the batch copies key and value before returning.
        unsafe { ffi::rocksdb_writebatch_put(self.0.as_ptr(), k, kl, v, vl) }
    }

    #[inline]
    pub fn delete(&mut self, key: &[u8]) {
        let (k, kl) = ptr_len(key);
        // SAFETY: the batch copies the key before returning.
        unsafe { ffi::rocksdb_writebatch_delete(self.0.as_ptr(), k, kl) }
    }
}

/// A value read in place (`rocksdb_pinnableslice_t`): no copy; it pins a
/// block of the DB it came from until dropped.
pub struct PinnableSlice<'db>(NonNull<ffi::rocksdb_pinnableslice_t>, PhantomData<&'db ()>);

impl PinnableSlice<'_> {
    /// # Safety
    /// `h` is null or a pinnable slice we own, valid while 'db lasts.
    unsafe fn from_c<'db>(h: *mut ffi::rocksdb_pinnableslice_t) -> Option<PinnableSlice<'db>> {
        NonNull::new(h).map(|h| PinnableSlice(h, PhantomData))
    }
}

impl std::ops::Deref for PinnableSlice<'_> {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        let mut len = 0;
        // SAFETY: the value stays valid and unchanged while the slice lives.
        unsafe {
            let p = ffi::rocksdb_pinnableslice_value(self.0.as_ptr(), &mut len);
            if len == 0 {
                return &[];
            }
            std::slice::from_raw_parts(p as *const u8, len)
        }
    }
}

impl Drop for PinnableSlice<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the handle; this releases the pinned block.
        unsafe { ffi::rocksdb_pinnableslice_destroy(self.0.as_ptr()) }
    }
}

/// An iterator over a DB; the read options it was made with outlive it.
pub struct DbIterator<'a>(NonNull<ffi::rocksdb_iterator_t>, PhantomData<&'a ()>);

impl<'a> DbIterator<'a> {
    /// # Safety
    /// `h` is an iterator we own, over a DB and read options that live for 'a.
    unsafe fn from_c(h: *mut ffi::rocksdb_iterator_t) -> DbIterator<'a> {
        DbIterator(created(h, "iterator"), PhantomData)
    }

    pub fn seek(&mut self, key: &[u8]) {
        let (k, kl) = ptr_len(key);
        // SAFETY: a valid iterator; the key is read during the call only.
        unsafe { ffi::rocksdb_iter_seek(self.0.as_ptr(), k, kl) }
    }

    pub fn seek_for_prev(&mut self, key: &[u8]) {
        let (k, kl) = ptr_len(key);
        // SAFETY: a valid iterator; the key is read during the call only.
        unsafe { ffi::rocksdb_iter_seek_for_prev(self.0.as_ptr(), k, kl) }
    }

    pub fn valid(&self) -> bool {
        // SAFETY: a valid iterator.
        unsafe { ffi::rocksdb_iter_valid(self.0.as_ptr()) != 0 }
    }

    /// The entry the iterator is at, key and value, with one Valid() for
    /// both; None when it is not positioned. Moving on from it is
    /// `step_from`, which needs no Valid() of its own.
    #[inline]
    pub fn entry(&self) -> Option<Entry<'_>> {
        // SAFETY: positioned (checked), so key() and value() are slices
        // RocksDB keeps until the next move, which needs &mut self.
        self.valid().then(|| unsafe {
            Entry {
                key: slice(|len| ffi::rocksdb_iter_key(self.0.as_ptr(), len)),
                value: slice(|len| ffi::rocksdb_iter_value(self.0.as_ptr(), len)),
                iterator: self.0.as_ptr(),
            }
        })
    }

    /// Move on from `entry` (this iterator's, just read): forward, or back
    /// with `reverse`. The entry proves it positioned, so no Valid() is asked.
    #[inline]
    pub fn step_from(&mut self, entry: Positioned, reverse: bool) {
        assert!(std::ptr::eq(entry.0, self.0.as_ptr()), "an entry of another iterator");
        // SAFETY: a valid iterator, positioned (it gave the entry `entry` came from).
        unsafe {
            match reverse {
                true => ffi::rocksdb_iter_prev(self.0.as_ptr()),
                false => ffi::rocksdb_iter_next(self.0.as_ptr()),
            }
        }
    }

    /// Ok unless the iterator stopped on an error (I/O, corruption, incomplete).
    pub fn status(&self) -> Result<(), Error> {
        // SAFETY: a valid iterator.
        try_call(|err| unsafe { ffi::rocksdb_iter_get_error(self.0.as_ptr(), err) })
    }
}

/// An iterator's entry: its key and value, borrowed until it moves.
pub struct Entry<'i> {
    pub key: &'i [u8],
    pub value: &'i [u8],
    iterator: *const ffi::rocksdb_iterator_t,
}

impl Entry<'_> {
    /// The proof its iterator was positioned, kept past the entry's borrow
    /// for `DbIterator::step_from`.
    pub fn positioned(&self) -> Positioned {
        Positioned(self.iterator)
    }
}

/// See `Entry::positioned`: which iterator was positioned.
pub struct Positioned(*const ffi::rocksdb_iterator_t);

/// # Safety
/// `get` returns a pointer to `len` bytes that live as long as the borrow.
unsafe fn slice<'s>(get: impl FnOnce(*mut usize) -> *const c_char) -> &'s [u8] {
    let mut len = 0;
    let p = get(&mut len);
    if len == 0 {
        return &[];
    }
    // SAFETY: as the caller promises.
    unsafe { std::slice::from_raw_parts(p as *const u8, len) }
}

impl Drop for DbIterator<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the handle.
        unsafe { ffi::rocksdb_iter_destroy(self.0.as_ptr()) }
    }
}

/// The calls on a `rocksdb_t`: a plain DB's, or the base DB of a
/// transactional one (then reads and writes skip the transaction layer, as
/// rust-rocksdb's OptimisticTransactionDB did). Owned by one of the DB types.
pub struct DbHandle(NonNull<ffi::rocksdb_t>);

// SAFETY: a RocksDB DB is safe for concurrent use from many threads (db.h).
unsafe impl Send for DbHandle {}
// SAFETY: as for Send, above.
unsafe impl Sync for DbHandle {}

impl DbHandle {
    /// A property's value (`rocksdb.stats`, ...); None for an unknown one.
    pub fn property(&self, name: &str) -> Option<String> {
        let name = CString::new(name).ok()?;
        // SAFETY: valid handle and name; the result is ours to free.
        unsafe {
            let v = ffi::rocksdb_property_value(self.0.as_ptr(), name.as_ptr());
            (!v.is_null()).then(|| take_string(v))
        }
    }

    /// Flush the memtables and wait for it.
    pub fn flush(&self) -> Result<(), Error> {
        let opts = FlushOptions::new();
        // SAFETY: valid handles.
        try_call(|err| unsafe { ffi::rocksdb_flush(self.0.as_ptr(), opts.0.as_ptr(), err) })
    }

    /// DB::WaitForCompact: until no flush or compaction is pending or
    /// running (flushing first when `flush`); Err of kind TimedOut after `timeout`.
    #[cfg(rocksdb_has_wait_for_compact)]
    pub fn wait_for_compact(&self, flush: bool, timeout: std::time::Duration) -> Result<(), Error> {
        // SAFETY: create returns a handle we own and destroy after the call.
        unsafe {
            let opts = created(late::rocksdb_wait_for_compact_options_create(), "wait-for-compact options").as_ptr();
            late::rocksdb_wait_for_compact_options_set_flush(opts, flush as _);
            late::rocksdb_wait_for_compact_options_set_timeout(opts, timeout.as_micros().max(1) as u64);
            let result = try_call(|err| late::rocksdb_wait_for_compact(self.0.as_ptr(), opts, err));
            late::rocksdb_wait_for_compact_options_destroy(opts);
            result
        }
    }

    /// The value of `key`, in place; None when absent.
    #[inline]
    pub fn get_pinned(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<PinnableSlice<'_>>, Error> {
        let (k, kl) = ptr_len(key);
        // SAFETY: valid handles; the key is read during the call only; the
        // slice we get is ours and lives no longer than the DB (its lifetime).
        try_call(|err| unsafe {
            PinnableSlice::from_c(ffi::rocksdb_get_pinned(self.0.as_ptr(), opts.0.as_ptr(), k, kl, err))
        })
    }

    /// Whether `key` exists: DB::Get into a PinnableSlice on RocksDB's stack
    /// (rocksdb_get_into_buffer with no buffer: nothing copied, nothing
    /// allocated), as db_bench's readrandom reads; before the C API had it,
    /// through get_pinned.
    #[inline]
    pub fn get_found(&self, opts: &ReadOptions, key: &[u8]) -> Result<bool, Error> {
        #[cfg(rocksdb_has_get_into_buffer)]
        if caps().get_into_buffer {
            let (k, kl) = ptr_len(key);
            let (mut len, mut found) = (0usize, 0u8);
            // A real address for the 0-byte copy of an empty value (memcpy
            // wants one even for 0 bytes).
            let mut none = [0 as c_char; 1];
            // SAFETY: valid handles; the key is read during the call only; a
            // buffer of 0 bytes gets at most a 0-byte copy (only *vallen and
            // *found are written).
            try_call(|err| unsafe {
                late::rocksdb_get_into_buffer(
                    self.0.as_ptr(),
                    opts.0.as_ptr(),
                    k,
                    kl,
                    none.as_mut_ptr(),
                    0,
                    &mut len,
                    &mut found,
                    err,
                )
            })?;
            return Ok(found != 0);
        }
        Ok(self.get_pinned(opts, key)?.is_some())
    }

    pub fn put(&self, opts: &WriteOptions, key: &[u8], value: &[u8]) -> Result<(), Error> {
        let ((k, kl), (v, vl)) = (ptr_len(key), ptr_len(value));
        // SAFETY: valid handles; key and value are copied during the call.
        try_call(|err| unsafe { ffi::rocksdb_put(self.0.as_ptr(), opts.0.as_ptr(), k, kl, v, vl, err) })
    }

    pub fn delete(&self, opts: &WriteOptions, key: &[u8]) -> Result<(), Error> {
        let (k, kl) = ptr_len(key);
        // SAFETY: valid handles; the key is copied during the call.
        try_call(|err| unsafe { ffi::rocksdb_delete(self.0.as_ptr(), opts.0.as_ptr(), k, kl, err) })
    }

    /// DB::Write of `batch`; the batch stays ours (to clear and reuse).
    #[inline]
    pub fn write(&self, opts: &WriteOptions, batch: &WriteBatch) -> Result<(), Error> {
        // SAFETY: valid handles; RocksDB only reads the batch.
        try_call(|err| unsafe { ffi::rocksdb_write(self.0.as_ptr(), opts.0.as_ptr(), batch.0.as_ptr(), err) })
    }

    pub fn iterator<'a>(&'a self, opts: &'a ReadOptions) -> DbIterator<'a> {
        // SAFETY: a new iterator we own, over this DB, with options that outlive it.
        unsafe { DbIterator::from_c(ffi::rocksdb_create_iterator(self.0.as_ptr(), opts.0.as_ptr())) }
    }
}

owned_handle!(
    struct FlushOptions(ffi::rocksdb_flushoptions_t), ffi::rocksdb_flushoptions_destroy
);

impl FlushOptions {
    /// RocksDB's defaults: wait for the flush.
    fn new() -> FlushOptions {
        // SAFETY: returns a new handle we own.
        FlushOptions(created(unsafe { ffi::rocksdb_flushoptions_create() }, "flush options"))
    }
}

type ColumnFamily = NonNull<ffi::rocksdb_column_family_handle_t>;

/// Free the handle of a column family; before its DB closes (RocksDB requires it).
///
/// # Safety
/// `cf` is a handle an open returned, not used afterwards.
unsafe fn destroy_column_family(cf: ColumnFamily) {
    // SAFETY: as the caller promises.
    unsafe { ffi::rocksdb_column_family_handle_destroy(cf.as_ptr()) }
}

/// Open a DB at `path` as `open(path, names, options, handles, errptr)`
/// does, with the default column family named and given `opts` too (a bare
/// open would give it RocksDB's default CF options, and multiget needs its handle).
fn open_with_default_cf<T>(
    path: &Path,
    opts: &Options,
    open: impl FnOnce(
        *const c_char,
        *const *const c_char,
        *const *const ffi::rocksdb_options_t,
        *mut *mut ffi::rocksdb_column_family_handle_t,
        *mut *mut c_char,
    ) -> *mut T,
) -> Result<(NonNull<T>, ColumnFamily), Error> {
    // RocksDB creates only the last directory level; callers may give new parents.
    std::fs::create_dir_all(path)
        .map_err(|e| Error(format!("cannot create the RocksDB directory {}: {e}", path.display())))?;
    let c_path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| Error(format!("path contains a NUL byte: {}", path.display())))?;
    let names = [c"default".as_ptr()];
    let cf_opts = [opts.0.as_ptr() as *const ffi::rocksdb_options_t];
    let mut handles = [ptr::null_mut()];
    let db = try_call(|err| open(c_path.as_ptr(), names.as_ptr(), cf_opts.as_ptr(), handles.as_mut_ptr(), err))?;
    let db = NonNull::new(db).ok_or_else(|| Error("RocksDB returned no DB and no error".into()))?;
    Ok((db, created(handles[0], "default column family handle")))
}

/// A plain DB, opened with one column family (the default).
pub struct Db {
    handle: DbHandle,
    default_cf: ColumnFamily,
}

// SAFETY: as DbHandle; column family handles are thread-safe too.
unsafe impl Send for Db {}
// SAFETY: as for Send, above.
unsafe impl Sync for Db {}

impl Db {
    pub fn open(opts: &Options, path: &Path) -> Result<Db, Error> {
        // SAFETY: the arrays hold one entry each and outlive the call.
        let (db, default_cf) = open_with_default_cf(path, opts, |p, names, cf_opts, handles, err| unsafe {
            ffi::rocksdb_open_column_families(opts.0.as_ptr(), p, 1, names, cf_opts, handles, err)
        })?;
        Ok(Db { default_cf, handle: DbHandle(db) })
    }

    /// Open an existing DB read-only (DB::OpenForReadOnly): no flush,
    /// compaction, new log or MANIFEST; its WAL is replayed in memory only.
    pub fn open_read_only(opts: &Options, path: &Path) -> Result<Db, Error> {
        if !path.is_dir() {
            return Err(Error(format!("no RocksDB directory {}", path.display())));
        }
        // SAFETY: as `open`; 0: a WAL left by a writer is read, not an error.
        let (db, default_cf) = open_with_default_cf(path, opts, |p, names, cf_opts, handles, err| unsafe {
            ffi::rocksdb_open_for_read_only_column_families(opts.0.as_ptr(), p, 1, names, cf_opts, handles, 0, err)
        })?;
        Ok(Db { default_cf, handle: DbHandle(db) })
    }

    /// MultiGet of `keys` in one call (the batched API: values pinned, not copied).
    #[cfg(rocksdb_has_multiget)]
    pub fn batched_multi_get<'k>(
        &self,
        opts: &ReadOptions,
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) -> Vec<Result<Option<PinnableSlice<'_>>, Error>> {
        let (ptrs, lens): (Vec<_>, Vec<_>) = keys.into_iter().map(ptr_len).unzip();
        let mut values = vec![ptr::null_mut(); ptrs.len()];
        let mut errors = vec![ptr::null_mut(); ptrs.len()];
        // SAFETY: every array has one entry per key and outlives the call;
        // each value or error set is ours to free (by the slice, take_string).
        unsafe {
            late::rocksdb_batched_multi_get_cf(
                self.handle.0.as_ptr(),
                opts.0.as_ptr(),
                self.default_cf.as_ptr(),
                ptrs.len(),
                ptrs.as_ptr(),
                lens.as_ptr(),
                values.as_mut_ptr(),
                errors.as_mut_ptr(),
                false,
            );
            values
                .into_iter()
                .zip(errors)
                .map(|(v, e)| if e.is_null() { Ok(PinnableSlice::from_c(v)) } else { Err(Error(take_string(e))) })
                .collect()
        }
    }
}

impl std::ops::Deref for Db {
    type Target = DbHandle;
    fn deref(&self) -> &DbHandle {
        &self.handle
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: we own both; nothing borrowed from the DB outlives it (lifetimes).
        unsafe {
            destroy_column_family(self.default_cf);
            ffi::rocksdb_close(self.handle.0.as_ptr());
        }
        logged_drop!("db closed");
    }
}

/// A new wrapper of an open TransactionDB's base DB (freed by its Drop),
/// where the C API can give it.
#[cfg(rocksdb_has_txn)]
fn base_of(raw: NonNull<ffi::rocksdb_transactiondb_t>) -> Option<DbHandle> {
    #[cfg(rocksdb_has_txndb_base_db)]
    if caps().txndb_base_db {
        // SAFETY: a valid open TransactionDB; the wrapper is ours to close.
        return Some(DbHandle(created(unsafe { late::rocksdb_transactiondb_get_base_db(raw.as_ptr()) }, "base DB")));
    }
    let _ = raw;
    None
}

/// A pessimistic TransactionDB (row locks taken by GetForUpdate).
#[cfg(rocksdb_has_txn)]
pub struct TransactionDb {
    raw: NonNull<ffi::rocksdb_transactiondb_t>,
    default_cf: ColumnFamily,
    /// Its base DB, for the calls TransactionDB has no C function of its own
    /// for (None where the C API cannot give it: before 8.5.3).
    base: Option<DbHandle>,
}

// SAFETY: as DbHandle: RocksDB's TransactionDB is thread-safe.
#[cfg(rocksdb_has_txn)]
unsafe impl Send for TransactionDb {}
// SAFETY: as for Send, above.
#[cfg(rocksdb_has_txn)]
unsafe impl Sync for TransactionDb {}

#[cfg(rocksdb_has_txn)]
impl TransactionDb {
    /// Open with RocksDB's TransactionDBOptions but the lock timeout.
    pub fn open(opts: &Options, path: &Path, lock_timeout_ms: i64) -> Result<TransactionDb, Error> {
        // SAFETY: create returns a handle we own; open only reads it and the arrays
        // (one entry each, outliving the call); we destroy it after.
        let (raw, default_cf) = unsafe {
            let txn_opts = created(ffi::rocksdb_transactiondb_options_create(), "TransactionDB options").as_ptr();
            ffi::rocksdb_transactiondb_options_set_transaction_lock_timeout(txn_opts, lock_timeout_ms);
            let opened = open_with_default_cf(path, opts, |p, names, cf_opts, handles, err| {
                ffi::rocksdb_transactiondb_open_column_families(
                    opts.0.as_ptr(),
                    txn_opts,
                    p,
                    1,
                    names,
                    cf_opts,
                    handles,
                    err,
                )
            });
            ffi::rocksdb_transactiondb_options_destroy(txn_opts);
            opened?
        };
        Ok(TransactionDb { raw, default_cf, base: base_of(raw) })
    }

    /// The base DB (None before RocksDB 8.5.3, whose C API cannot give it).
    pub fn base(&self) -> Option<&DbHandle> {
        self.base.as_ref()
    }

    pub fn property(&self, name: &str) -> Option<String> {
        let name = CString::new(name).ok()?;
        // SAFETY: valid handle and name; the result is ours to free.
        unsafe {
            let v = ffi::rocksdb_transactiondb_property_value(self.raw.as_ptr(), name.as_ptr());
            (!v.is_null()).then(|| take_string(v))
        }
    }

    pub fn flush(&self) -> Result<(), Error> {
        let opts = FlushOptions::new();
        // SAFETY: valid handles.
        try_call(|err| unsafe { late::rocksdb_transactiondb_flush(self.raw.as_ptr(), opts.0.as_ptr(), err) })
    }

    pub fn begin(&self, write_opts: &WriteOptions, txn_opts: &TransactionOptions) -> Transaction<'_> {
        // SAFETY: a new transaction we own, on this DB (its lifetime).
        unsafe {
            Transaction::from_c(ffi::rocksdb_transaction_begin(
                self.raw.as_ptr(),
                write_opts.0.as_ptr(),
                txn_opts.0.as_ptr(),
                ptr::null_mut(),
            ))
        }
    }

    #[inline]
    pub fn get_pinned(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<PinnableSlice<'_>>, Error> {
        let (k, kl) = ptr_len(key);
        // SAFETY: as DbHandle::get_pinned.
        try_call(|err| unsafe {
            PinnableSlice::from_c(late::rocksdb_transactiondb_get_pinned(
                self.raw.as_ptr(),
                opts.0.as_ptr(),
                k,
                kl,
                err,
            ))
        })
    }

    pub fn put(&self, opts: &WriteOptions, key: &[u8], value: &[u8]) -> Result<(), Error> {
        let ((k, kl), (v, vl)) = (ptr_len(key), ptr_len(value));
        // SAFETY: valid handles; key and value are copied during the call.
        try_call(|err| unsafe { ffi::rocksdb_transactiondb_put(self.raw.as_ptr(), opts.0.as_ptr(), k, kl, v, vl, err) })
    }

    pub fn delete(&self, opts: &WriteOptions, key: &[u8]) -> Result<(), Error> {
        let (k, kl) = ptr_len(key);
        // SAFETY: valid handles; the key is copied during the call.
        try_call(|err| unsafe { ffi::rocksdb_transactiondb_delete(self.raw.as_ptr(), opts.0.as_ptr(), k, kl, err) })
    }

    pub fn write(&self, opts: &WriteOptions, batch: &WriteBatch) -> Result<(), Error> {
        // SAFETY: valid handles; RocksDB only reads the batch.
        try_call(|err| unsafe {
            ffi::rocksdb_transactiondb_write(self.raw.as_ptr(), opts.0.as_ptr(), batch.0.as_ptr(), err)
        })
    }

    pub fn iterator<'a>(&'a self, opts: &'a ReadOptions) -> DbIterator<'a> {
        // SAFETY: as DbHandle::iterator.
        unsafe { DbIterator::from_c(ffi::rocksdb_transactiondb_create_iterator(self.raw.as_ptr(), opts.0.as_ptr())) }
    }
}

#[cfg(rocksdb_has_txn)]
impl Drop for TransactionDb {
    fn drop(&mut self) {
        // SAFETY: we own all three; nothing borrowed from the DB outlives it.
        unsafe {
            destroy_column_family(self.default_cf);
            #[cfg(rocksdb_has_txndb_base_db)]
            if let Some(base) = &self.base {
                late::rocksdb_transactiondb_close_base_db(base.0.as_ptr());
            }
            ffi::rocksdb_transactiondb_close(self.raw.as_ptr());
        }
        logged_drop!("db closed");
    }
}

/// An OptimisticTransactionDB (no locks: conflicts found at commit). Reads
/// and single writes go through its base DB, as rust-rocksdb's did.
#[cfg(rocksdb_has_txn)]
pub struct OptimisticTransactionDb {
    raw: NonNull<ffi::rocksdb_optimistictransactiondb_t>,
    default_cf: ColumnFamily,
    base: DbHandle,
}

// SAFETY: as DbHandle: RocksDB's OptimisticTransactionDB is thread-safe.
#[cfg(rocksdb_has_txn)]
unsafe impl Send for OptimisticTransactionDb {}
// SAFETY: as for Send, above.
#[cfg(rocksdb_has_txn)]
unsafe impl Sync for OptimisticTransactionDb {}

#[cfg(rocksdb_has_txn)]
impl OptimisticTransactionDb {
    pub fn open(opts: &Options, path: &Path) -> Result<OptimisticTransactionDb, Error> {
        // SAFETY: the arrays hold one entry each and outlive the call.
        let (raw, default_cf) = open_with_default_cf(path, opts, |p, names, cf_opts, handles, err| unsafe {
            ffi::rocksdb_optimistictransactiondb_open_column_families(
                opts.0.as_ptr(),
                p,
                1,
                names,
                cf_opts,
                handles,
                err,
            )
        })?;
        // SAFETY: a new wrapper of the open DB's base DB, freed in Drop.
        let base =
            DbHandle(created(unsafe { ffi::rocksdb_optimistictransactiondb_get_base_db(raw.as_ptr()) }, "base DB"));
        Ok(OptimisticTransactionDb { raw, default_cf, base })
    }

    pub fn begin(&self, write_opts: &WriteOptions, txn_opts: &OptimisticTransactionOptions) -> Transaction<'_> {
        // SAFETY: a new transaction we own, on this DB (its lifetime).
        unsafe {
            Transaction::from_c(ffi::rocksdb_optimistictransaction_begin(
                self.raw.as_ptr(),
                write_opts.0.as_ptr(),
                txn_opts.0.as_ptr(),
                ptr::null_mut(),
            ))
        }
    }

    /// DB::Write through the OptimisticTransactionDB (conflict checks of
    /// open transactions see it).
    pub fn write(&self, opts: &WriteOptions, batch: &WriteBatch) -> Result<(), Error> {
        // SAFETY: valid handles; RocksDB only reads the batch.
        try_call(|err| unsafe {
            ffi::rocksdb_optimistictransactiondb_write(self.raw.as_ptr(), opts.0.as_ptr(), batch.0.as_ptr(), err)
        })
    }
}

#[cfg(rocksdb_has_txn)]
impl std::ops::Deref for OptimisticTransactionDb {
    type Target = DbHandle;
    fn deref(&self) -> &DbHandle {
        &self.base
    }
}

#[cfg(rocksdb_has_txn)]
impl Drop for OptimisticTransactionDb {
    fn drop(&mut self) {
        // SAFETY: we own all three; nothing borrowed from the DB outlives it.
        unsafe {
            destroy_column_family(self.default_cf);
            ffi::rocksdb_optimistictransactiondb_close_base_db(self.base.0.as_ptr());
            ffi::rocksdb_optimistictransactiondb_close(self.raw.as_ptr());
        }
        logged_drop!("db closed");
    }
}

owned_handle!(
    /// TransactionOptions as created (RocksDB's defaults).
    #[cfg(rocksdb_has_txn)]
    pub struct TransactionOptions(ffi::rocksdb_transaction_options_t), ffi::rocksdb_transaction_options_destroy
);

#[cfg(rocksdb_has_txn)]
impl TransactionOptions {
    pub fn new() -> TransactionOptions {
        // SAFETY: returns a new handle we own.
        TransactionOptions(created(unsafe { ffi::rocksdb_transaction_options_create() }, "transaction options"))
    }
}

owned_handle!(
    /// OptimisticTransactionOptions as created (RocksDB's defaults).
    #[cfg(rocksdb_has_txn)]
    pub struct OptimisticTransactionOptions(ffi::rocksdb_optimistictransaction_options_t), ffi::rocksdb_optimistictransaction_options_destroy
);

#[cfg(rocksdb_has_txn)]
impl OptimisticTransactionOptions {
    pub fn new() -> OptimisticTransactionOptions {
        // SAFETY: returns a new handle we own.
        OptimisticTransactionOptions(created(
            unsafe { ffi::rocksdb_optimistictransaction_options_create() },
            "optimistic transaction options",
        ))
    }
}

/// An open transaction of either kind of transactional DB; rolled back
/// (by RocksDB) when dropped without a commit.
#[cfg(rocksdb_has_txn)]
pub struct Transaction<'db>(NonNull<ffi::rocksdb_transaction_t>, PhantomData<&'db ()>);

#[cfg(rocksdb_has_txn)]
impl<'db> Transaction<'db> {
    /// # Safety
    /// `h` is a transaction we own, on a DB that lives for 'db.
    unsafe fn from_c(h: *mut ffi::rocksdb_transaction_t) -> Transaction<'db> {
        Transaction(created(h, "transaction"), PhantomData)
    }

    /// GetForUpdate, the value in place: locks `key` (pessimistic) or
    /// records it for the commit's conflict check (optimistic).
    pub fn get_pinned_for_update(
        &self,
        opts: &ReadOptions,
        key: &[u8],
        exclusive: bool,
    ) -> Result<Option<PinnableSlice<'_>>, Error> {
        let (k, kl) = ptr_len(key);
        // SAFETY: valid handles; the key is read during the call only; the
        // slice is ours and lives no longer than the transaction.
        try_call(|err| unsafe {
            PinnableSlice::from_c(late::rocksdb_transaction_get_pinned_for_update(
                self.0.as_ptr(),
                opts.0.as_ptr(),
                k,
                kl,
                exclusive as _,
                err,
            ))
        })
    }

    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<(), Error> {
        let ((k, kl), (v, vl)) = (ptr_len(key), ptr_len(value));
        // SAFETY: a valid transaction; key and value are copied during the call.
        try_call(|err| unsafe { ffi::rocksdb_transaction_put(self.0.as_ptr(), k, kl, v, vl, err) })
    }

    pub fn commit(&self) -> Result<(), Error> {
        // SAFETY: a valid transaction.
        try_call(|err| unsafe { ffi::rocksdb_transaction_commit(self.0.as_ptr(), err) })
    }

    pub fn rollback(&self) -> Result<(), Error> {
        // SAFETY: a valid transaction.
        try_call(|err| unsafe { ffi::rocksdb_transaction_rollback(self.0.as_ptr(), err) })
    }
}

#[cfg(rocksdb_has_txn)]
impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the handle; its DB is still open (lifetime).
        unsafe { ffi::rocksdb_transaction_destroy(self.0.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_new(dir: &Path) -> (Options, Db) {
        let mut opts = Options::new();
        opts.create_if_missing(true);
        let db = Db::open(&opts, dir).unwrap();
        (opts, db)
    }

    #[test]
    fn this_build_has_every_capability_of_rocksdb_11_8_1() {
        assert_eq!(SOURCE_VERSION, "11.8.1");
        assert_eq!(SYS_CRATE_VERSION, "0.19.0+11.8.1");
        let on = [
            cfg!(rocksdb_has_multiget),
            cfg!(rocksdb_has_txn),
            cfg!(rocksdb_has_round_robin),
            cfg!(rocksdb_has_hyper_clock),
            cfg!(rocksdb_has_txndb_base_db),
            cfg!(rocksdb_has_wait_for_compact),
            cfg!(rocksdb_has_get_into_buffer),
        ];
        assert_eq!(on, [true; 7]);
    }

    #[test]
    fn error_kinds_come_from_the_status_text() {
        let kind = |text: &str| Error(text.into()).kind();
        assert_eq!(kind("Operation timed out: Timeout waiting to lock key"), ErrorKind::TimedOut);
        assert_eq!(kind("Operation timed out: "), ErrorKind::TimedOut);
        assert_eq!(kind("Resource busy: Deadlock"), ErrorKind::Busy);
        assert_eq!(
            kind("Operation failed. Try again.: Transaction could not check for conflicts"),
            ErrorKind::TryAgain
        );
        assert_eq!(kind("Operation expired: "), ErrorKind::Expired);
        assert_eq!(kind("IO error: No space left on device"), ErrorKind::Other);
        // Only the code's name counts, not words in the message.
        assert_eq!(kind("Corruption: Operation timed out"), ErrorKind::Other);
    }

    #[test]
    fn a_failed_call_returns_rocksdb_s_status_text() {
        let dir = tempfile::tempdir().unwrap();
        let err =
            Db::open(&Options::new(), &dir.path().join("absent")).err().expect("no DB there and create_if_missing off");
        assert!(
            err.to_string().starts_with("Invalid argument: ") && err.to_string().contains("does not exist"),
            "{err}"
        );
        assert_eq!(err.kind(), ErrorKind::Other);
        let err = Options::new().with_options_string("no_such_option=1").err().unwrap();
        assert!(err.to_string().contains("no_such_option"), "{err}");
    }

    #[test]
    fn a_lock_wait_past_the_timeout_is_timed_out() {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = Options::new();
        opts.create_if_missing(true);
        let db = TransactionDb::open(&opts, dir.path(), 1).unwrap();
        let (wo, ro, to) = (WriteOptions::new(false, true), ReadOptions::new(), TransactionOptions::new());
        let holder = db.begin(&wo, &to);
        assert!(holder.get_pinned_for_update(&ro, b"k", true).unwrap().is_none());
        let waiter = db.begin(&wo, &to);
        let err = waiter.get_pinned_for_update(&ro, b"k", true).err().expect("the key is locked");
        assert_eq!(err.kind(), ErrorKind::TimedOut, "{err}");
        holder.put(b"k", b"v").unwrap();
        holder.commit().unwrap();
        assert_eq!(&*waiter.get_pinned_for_update(&ro, b"k", true).unwrap().unwrap(), b"v");
        waiter.rollback().unwrap();
    }

    #[test]
    fn reads_writes_and_iterators() {
        let dir = tempfile::tempdir().unwrap();
        let (_opts, db) = open_new(dir.path());
        let (wo, ro) = (WriteOptions::new(false, true), ReadOptions::new());
        let mut batch = WriteBatch::new();
        for k in [b"a", b"b", b"c"] {
            batch.put(k, b"value");
        }
        batch.put(b"empty", b"");
        db.write(&wo, &batch).unwrap();
        batch.clear();
        batch.delete(b"b");
        db.write(&wo, &batch).unwrap();
        assert_eq!(db.get_pinned(&ro, b"a").unwrap().as_deref(), Some(&b"value"[..]));
        assert_eq!(db.get_pinned(&ro, b"empty").unwrap().as_deref(), Some(&b""[..]));
        assert!(db.get_pinned(&ro, b"b").unwrap().is_none());
        let exists: Vec<bool> = [&b"a"[..], b"empty", b"b"].iter().map(|k| db.get_found(&ro, k).unwrap()).collect();
        assert_eq!(exists, [true, true, false], "found without copying, the empty value too");
        let found: Vec<bool> =
            db.batched_multi_get(&ro, [&b"a"[..], b"b", b"c"]).into_iter().map(|r| r.unwrap().is_some()).collect();
        assert_eq!(found, [true, false, true]);
        let mut it = db.iterator(&ro);
        let at = |it: &DbIterator<'_>| it.entry().map(|e| (e.key.to_vec(), e.value.to_vec()));
        it.seek(b"b");
        assert_eq!(at(&it), Some((b"c".to_vec(), b"value".to_vec())));
        let p = it.entry().unwrap().positioned();
        it.step_from(p, true);
        assert_eq!(at(&it).map(|(k, _)| k), Some(b"a".to_vec()));
        it.seek_for_prev(b"f");
        assert_eq!(at(&it).map(|(k, _)| k), Some(b"empty".to_vec()));
        let p = it.entry().unwrap().positioned();
        it.step_from(p, false);
        assert!(!it.valid() && it.entry().is_none());
        it.status().unwrap();
        assert!(db.property("rocksdb.estimate-num-keys").is_some());
        assert!(db.property("rocksdb.no-such-property").is_none());
    }

    #[test]
    fn an_iterator_that_stops_on_an_error_reports_it() {
        let dir = tempfile::tempdir().unwrap();
        let (_opts, db) = open_new(dir.path());
        db.put(&WriteOptions::new(false, true), b"k", b"v").unwrap();
        db.flush().unwrap();
        // The data block is on disk only; a read limited to the block cache
        // cannot complete.
        let mut ro = ReadOptions::new();
        ro.block_cache_only();
        let mut it = db.iterator(&ro);
        it.seek(b"k");
        assert!(!it.valid());
        let err = it.status().expect_err("an incomplete read");
        assert!(err.to_string().starts_with("Result incomplete"), "{err}");
    }

    #[test]
    fn wait_for_compact_flushes_first() {
        let dir = tempfile::tempdir().unwrap();
        let (_opts, db) = open_new(dir.path());
        db.put(&WriteOptions::new(false, true), b"k", b"v").unwrap();
        db.wait_for_compact(true, std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(db.property("rocksdb.num-files-at-level0").as_deref(), Some("1"), "flushed first");
    }
}
