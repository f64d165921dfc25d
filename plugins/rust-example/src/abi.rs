//! Hand-written bindings of `include/rumbench_engine.h`, ABI version 1.
//!
//! Every type is `#[repr(C)]` with the header's fields in the header's order
//! (`uint32_t` = `u32`, `int32_t` = `i32`, `uint64_t` = `u64`, `size_t` =
//! `usize`, `const char *` = `*const c_char`), and every function pointer is
//! an `Option` because C may leave one NULL. Copy this file as it is: the test
//! at the end checks the sizes and offsets against the header's layout.

use std::ffi::{c_char, c_void};
use std::marker::{PhantomData, PhantomPinned};

/// `RB_ENGINE_ABI_VERSION`.
pub const RB_ENGINE_ABI_VERSION: u32 = 1;
/// `RB_ENGINE_ENTRY`: the symbol rumbench looks up.
pub const RB_ENGINE_ENTRY: &str = "rumbench_engine_api";

/// `rb_status`. A plugin only returns these four values; a host reading a
/// status from C should take it as an `i32` (any other value in this enum
/// would be undefined behaviour).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RbStatus {
    Ok = 0,
    /// get, txn_get_for_update: the key is absent; scan_next: no more entries.
    NotFound = 1,
    /// A transaction lost to another: rolled back, rumbench retries it.
    Conflict = 2,
    /// Anything else: the text is in the `RbError`.
    Error = 3,
}

/// `RB_ERROR_TEXT`.
pub const RB_ERROR_TEXT: usize = 512;

/// `rb_error`: a buffer rumbench owns, for a one-line NUL-terminated text.
#[repr(C)]
pub struct RbError {
    pub text: [c_char; RB_ERROR_TEXT],
}

pub const RB_CAP_WRITE_BATCH: u64 = 1 << 0;
pub const RB_CAP_MULTI_GET: u64 = 1 << 1;
pub const RB_CAP_REVERSE_SCAN: u64 = 1 << 2;
pub const RB_CAP_TRANSACTIONS: u64 = 1 << 3;
pub const RB_CAP_FLUSH: u64 = 1 << 4;
pub const RB_CAP_WAIT_IDLE: u64 = 1 << 5;
pub const RB_CAP_READ_ONLY: u64 = 1 << 6;

/// `rb_pair`: one name=value pair.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RbPair {
    pub name: *const c_char,
    pub value: *const c_char,
}

/// `rb_emit_fn`: receives name=value pairs; `ctx` is rumbench's.
pub type RbEmitFn = Option<unsafe extern "C" fn(ctx: *mut c_void, name: *const c_char, value: *const c_char)>;

/// `rb_open_args`: what rumbench knows when it opens the engine.
#[repr(C)]
pub struct RbOpenArgs {
    pub struct_size: u32,
    pub dir: *const c_char,
    pub key_size: u32,
    pub value_size: u32,
    pub num_keys: u64,
    pub threads: u32,
    pub create: i32,
    pub read_only: i32,
}

/// `rb_batch_kind` (the `kind` field of `rb_batch_op` is a `uint32_t`).
pub const RB_PUT: u32 = 0;
pub const RB_DELETE: u32 = 1;

/// `rb_batch_op`.
#[repr(C)]
pub struct RbBatchOp {
    pub kind: u32,
    pub key: *const u8,
    pub key_len: usize,
    /// RB_PUT only.
    pub value: *const u8,
    pub value_len: usize,
}

/// `rb_engine`: opaque to rumbench (the plugin's own type behind it).
#[repr(C)]
pub struct RbEngine {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `rb_session`: opaque to rumbench.
#[repr(C)]
pub struct RbSession {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

type Engine = *mut RbEngine;
type Session = *mut RbSession;
type Err = *mut RbError;

/// `rb_engine_api`: the plugin's function table. The header names the
/// arguments and says what each function must do.
#[repr(C)]
pub struct RbEngineApi {
    pub abi_version: u32,
    pub struct_size: u32,
    pub capabilities: u64,
    pub name: *const c_char,
    pub version: *const c_char,
    pub build: *const c_char,
    pub check_options: Option<unsafe extern "C" fn(*const RbPair, usize, Err) -> RbStatus>,
    pub open: Option<unsafe extern "C" fn(*const RbOpenArgs, *const RbPair, usize, *mut Engine, Err) -> RbStatus>,
    pub close: Option<unsafe extern "C" fn(Engine)>,
    pub effective_options: Option<unsafe extern "C" fn(Engine, RbEmitFn, *mut c_void)>,
    pub stats: Option<unsafe extern "C" fn(Engine, RbEmitFn, *mut c_void)>,
    pub syncs_writes: Option<unsafe extern "C" fn(Engine) -> i32>,
    pub sync: Option<unsafe extern "C" fn(Engine, Err) -> RbStatus>,
    pub flush: Option<unsafe extern "C" fn(Engine, Err) -> RbStatus>,
    pub wait_idle: Option<unsafe extern "C" fn(Engine, u64, *mut i32, Err) -> RbStatus>,
    pub session_open: Option<unsafe extern "C" fn(Engine, *mut Session, Err) -> RbStatus>,
    pub session_close: Option<unsafe extern "C" fn(Session)>,
    pub put: Option<unsafe extern "C" fn(Session, *const u8, usize, *const u8, usize, Err) -> RbStatus>,
    pub del: Option<unsafe extern "C" fn(Session, *const u8, usize, Err) -> RbStatus>,
    pub get: Option<unsafe extern "C" fn(Session, *const u8, usize, *mut *const u8, *mut usize, Err) -> RbStatus>,
    pub write_batch: Option<unsafe extern "C" fn(Session, *const RbBatchOp, usize, Err) -> RbStatus>,
    pub multi_get: Option<unsafe extern "C" fn(Session, *const u8, usize, usize, *mut usize, Err) -> RbStatus>,
    pub scan_seek: Option<unsafe extern "C" fn(Session, *const u8, usize, i32, Err) -> RbStatus>,
    pub scan_next:
        Option<unsafe extern "C" fn(Session, *mut *const u8, *mut usize, *mut *const u8, *mut usize, Err) -> RbStatus>,
    pub scan_end: Option<unsafe extern "C" fn(Session)>,
    pub txn_begin: Option<unsafe extern "C" fn(Session, Err) -> RbStatus>,
    pub txn_get_for_update:
        Option<unsafe extern "C" fn(Session, *const u8, usize, *mut *const u8, *mut usize, Err) -> RbStatus>,
    pub txn_put: Option<unsafe extern "C" fn(Session, *const u8, usize, *const u8, usize, Err) -> RbStatus>,
    pub txn_commit: Option<unsafe extern "C" fn(Session, Err) -> RbStatus>,
    pub txn_rollback: Option<unsafe extern "C" fn(Session)>,
}

/// `rb_engine_entry_fn`: the type of `rumbench_engine_api`.
pub type RbEngineEntryFn = Option<unsafe extern "C" fn() -> *const RbEngineApi>;

/// The layout a C compiler gives the header on x86_64 Linux (LP64, System V
/// ABI: pointers and `size_t` are 8 bytes and 8-aligned, `uint64_t` too, an
/// enum is an `int`), worked out by hand from the field order.
#[cfg(all(test, target_arch = "x86_64", target_pointer_width = "64"))]
mod tests {
    use std::mem::{align_of, offset_of, size_of};

    use super::*;

    #[test]
    fn the_structs_have_the_headers_x86_64_layout() {
        assert_eq!((size_of::<RbStatus>(), align_of::<RbStatus>()), (4, 4));
        assert_eq!((size_of::<RbError>(), align_of::<RbError>()), (512, 1));
        assert_eq!((size_of::<RbPair>(), align_of::<RbPair>()), (16, 8));
        // struct_size 0, 4 bytes of padding, dir 8, key_size 16, value_size 20,
        // num_keys 24, threads 32, create 36, read_only 40, padding to 48.
        assert_eq!((size_of::<RbOpenArgs>(), align_of::<RbOpenArgs>()), (48, 8));
        assert_eq!(offset_of!(RbOpenArgs, dir), 8);
        assert_eq!(offset_of!(RbOpenArgs, key_size), 16);
        assert_eq!(offset_of!(RbOpenArgs, num_keys), 24);
        assert_eq!(offset_of!(RbOpenArgs, threads), 32);
        assert_eq!(offset_of!(RbOpenArgs, read_only), 40);
        // kind 0, padding, key 8, key_len 16, value 24, value_len 32.
        assert_eq!((size_of::<RbBatchOp>(), align_of::<RbBatchOp>()), (40, 8));
        assert_eq!(offset_of!(RbBatchOp, key), 8);
        assert_eq!(offset_of!(RbBatchOp, value_len), 32);
        // 4 + 4 + 8 + 3 pointers, then 24 function pointers of 8 bytes each
        // (an Option of a fn pointer is a nullable pointer).
        assert_eq!(size_of::<RbEngineApi>(), 4 + 4 + 8 + 3 * 8 + 24 * 8);
        assert_eq!(align_of::<RbEngineApi>(), 8);
        assert_eq!(offset_of!(RbEngineApi, check_options), 40);
        assert_eq!(offset_of!(RbEngineApi, wait_idle), 40 + 8 * 8);
        assert_eq!(offset_of!(RbEngineApi, txn_rollback), 40 + 23 * 8);
        assert_eq!(size_of::<RbEmitFn>(), 8);
    }
}
