//! The C API functions the engine calls that RocksDB 6.28.2's lacks (the
//! capabilities of src/engine/rocksdb/versions.rs), in one place.
//!
//! A source build names them as any other function, where its header has
//! them (the `rocksdb_has_*` cfgs of build.rs). The binary every release
//! build shares (cfg `rocksdb_any_release`, src/engine/rocksdb/build.rs)
//! starts with the library of any release from 6.28.2 on and binds every
//! symbol it names when it starts, so it never names these: each is found
//! by name in the loaded library (dlsym) at its first call, and called only
//! where the release's capabilities (`Release::this_process`, build.rs) say its
//! library has it. Their C types are the newest header's, which every
//! release since each function's first has kept (checked against the
//! bindings at compile time in a source build that has them, below).

#[cfg(rocksdb_any_release)]
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

// The C types, as bound from the header (which types exist depends on its release).
#[allow(unused_imports, reason = "which of the header's types the late functions name depends on the release")]
use librocksdb_sys::*;

/// The address of the loaded library's C function `name` (NUL-terminated).
#[cfg(rocksdb_any_release)]
#[cold]
fn resolve(name: &'static str) -> usize {
    // SAFETY: a NUL-terminated name; RTLD_DEFAULT searches the libraries loaded at start.
    let at = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr().cast()) } as usize;
    if at == 0 {
        // The parent checked the library's exports against the release's
        // capabilities before it started this process (build.rs).
        // The binary's path names the release (`<version>-official/<key>/`);
        // Release::this_process would make this module depend on build.rs,
        // which depends on it.
        let exe = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|e| format!("unknown: {e}"));
        panic!(
            "RocksDB's library beside {exe} lacks {}, which its release's capabilities promise",
            name.trim_end_matches('\0')
        );
    }
    at
}

macro_rules! late_functions {
    ($( [$cap:ident] fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        $(
            #[cfg(all(not(rocksdb_any_release), $cap))]
            pub use librocksdb_sys::$name;

            // The type written here is the binding's (a source build with the function).
            #[cfg(all(not(rocksdb_any_release), $cap))]
            const _: unsafe extern "C" fn($($ty),*) $(-> $ret)? = librocksdb_sys::$name;

            #[cfg(rocksdb_any_release)]
            #[inline]
            #[allow(clippy::too_many_arguments, reason = "the C function's own parameters")]
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                static AT: AtomicUsize = AtomicUsize::new(0);
                let mut at = AT.load(Relaxed);
                if at == 0 {
                    at = resolve(concat!(stringify!($name), "\0"));
                    AT.store(at, Relaxed);
                }
                // SAFETY: `at` is the loaded library's function of this name,
                // whose C type is the one written here (see the module's comment).
                let f = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn($($ty),*) $(-> $ret)?>(at) };
                // SAFETY: the caller's, as for the bound function.
                unsafe { f($($arg),*) }
            }
        )*

        /// Every function of this module, and the capability that needs it.
        pub const LATE_FUNCTIONS: &[(&str, &str)] = &[$((stringify!($name), stringify!($cap))),*];
    };
}

#[allow(unused_imports, reason = "used by the late functions a release build compiles in")]
use std::ffi::{c_char, c_uchar};

late_functions! {
    [rocksdb_has_multiget] fn rocksdb_batched_multi_get_cf(
        db: *mut rocksdb_t,
        options: *const rocksdb_readoptions_t,
        column_family: *mut rocksdb_column_family_handle_t,
        num_keys: usize,
        keys_list: *const *const c_char,
        keys_list_sizes: *const usize,
        values: *mut *mut rocksdb_pinnableslice_t,
        errs: *mut *mut c_char,
        sorted_input: bool,
    );
    [rocksdb_has_hyper_clock] fn rocksdb_cache_create_hyper_clock(capacity: usize, estimated_entry_charge: usize) -> *mut rocksdb_cache_t;
    [rocksdb_has_txn] fn rocksdb_transaction_get_pinned_for_update(
        txn: *mut rocksdb_transaction_t,
        options: *const rocksdb_readoptions_t,
        key: *const c_char,
        klen: usize,
        exclusive: c_uchar,
        errptr: *mut *mut c_char,
    ) -> *mut rocksdb_pinnableslice_t;
    [rocksdb_has_txn] fn rocksdb_transactiondb_flush(
        txn_db: *mut rocksdb_transactiondb_t,
        options: *const rocksdb_flushoptions_t,
        errptr: *mut *mut c_char,
    );
    [rocksdb_has_txn] fn rocksdb_transactiondb_get_pinned(
        txn_db: *mut rocksdb_transactiondb_t,
        options: *const rocksdb_readoptions_t,
        key: *const c_char,
        klen: usize,
        errptr: *mut *mut c_char,
    ) -> *mut rocksdb_pinnableslice_t;
    [rocksdb_has_txndb_base_db] fn rocksdb_transactiondb_get_base_db(txn_db: *mut rocksdb_transactiondb_t) -> *mut rocksdb_t;
    [rocksdb_has_txndb_base_db] fn rocksdb_transactiondb_close_base_db(base_db: *mut rocksdb_t);
    [rocksdb_has_wait_for_compact] fn rocksdb_wait_for_compact(
        db: *mut rocksdb_t,
        options: *mut rocksdb_wait_for_compact_options_t,
        errptr: *mut *mut c_char,
    );
    [rocksdb_has_wait_for_compact] fn rocksdb_wait_for_compact_options_create() -> *mut rocksdb_wait_for_compact_options_t;
    [rocksdb_has_wait_for_compact] fn rocksdb_wait_for_compact_options_destroy(opt: *mut rocksdb_wait_for_compact_options_t);
    [rocksdb_has_wait_for_compact] fn rocksdb_wait_for_compact_options_set_flush(opt: *mut rocksdb_wait_for_compact_options_t, v: c_uchar);
    [rocksdb_has_wait_for_compact] fn rocksdb_wait_for_compact_options_set_timeout(opt: *mut rocksdb_wait_for_compact_options_t, microseconds: u64);
    [rocksdb_has_get_into_buffer] fn rocksdb_get_into_buffer(
        db: *mut rocksdb_t,
        options: *const rocksdb_readoptions_t,
        key: *const c_char,
        keylen: usize,
        buffer: *mut c_char,
        buffer_size: usize,
        vallen: *mut usize,
        found: *mut c_uchar,
        errptr: *mut *mut c_char,
    ) -> c_uchar;
}

/// The functions a release's library must export for `caps` (its
/// capabilities): checked before a release build's process starts.
pub fn needed_for(caps: &super::versions::Capabilities) -> Vec<&'static str> {
    LATE_FUNCTIONS
        .iter()
        .filter(|(_, cap)| match *cap {
            "rocksdb_has_multiget" => caps.multiget,
            "rocksdb_has_hyper_clock" => caps.hyper_clock,
            "rocksdb_has_txn" => caps.txn,
            "rocksdb_has_txndb_base_db" => caps.txndb_base_db,
            "rocksdb_has_wait_for_compact" => caps.wait_for_compact,
            "rocksdb_has_get_into_buffer" => caps.get_into_buffer,
            other => unreachable!("a capability of LATE_FUNCTIONS without a field: {other}"),
        })
        .map(|(name, _)| *name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::versions::{Capabilities, RELEASES};
    use super::*;

    #[test]
    fn the_oldest_release_needs_no_late_function_and_the_newest_all() {
        assert!(needed_for(&RELEASES[0].caps).is_empty());
        assert_eq!(needed_for(&Capabilities::this_build()).len(), LATE_FUNCTIONS.len());
        let v7 = needed_for(&RELEASES[1].caps);
        assert!(v7.contains(&"rocksdb_batched_multi_get_cf") && !v7.contains(&"rocksdb_wait_for_compact"), "{v7:?}");
    }

    /// Every function build.rs tests a capability by is one of these, so the
    /// shared release binary names none of them.
    #[test]
    fn every_capability_function_of_build_rs_is_late() {
        let build_rs = include_str!("../../../build.rs");
        let table = build_rs.split("const ROCKSDB_C_CAPABILITIES").nth(1).unwrap().split("];").next().unwrap();
        let named: Vec<&str> = table
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|s| s.starts_with("rocksdb_") && !s.starts_with("rocksdb_has_"))
            .collect();
        assert!(named.len() >= 8, "{named:?}");
        for f in named {
            assert!(LATE_FUNCTIONS.iter().any(|(n, _)| *n == f), "{f} is tested by build.rs but not in LATE_FUNCTIONS");
        }
    }
}
