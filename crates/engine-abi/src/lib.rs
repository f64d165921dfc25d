//! `include/rumbench_engine.h` in Rust, ABI version 1: the one binding of
//! the plugin ABI. rumbench loads plugins through it (src/engine/plugin)
//! and a plugin written in Rust implements it (plugins/rust-example).
//!
//! Every type is `#[repr(C)]` with the header's fields in the header's order
//! (`uint32_t` = `u32`, `int32_t` = `i32`, `uint64_t` = `u64`, `size_t` =
//! `usize`, `const char *` = `*const c_char`), and every function pointer is
//! an `Option` because C may leave one NULL. A test compiles the header and
//! checks every size, offset and constant against this crate's.

use std::ffi::{c_char, c_void};
use std::marker::{PhantomData, PhantomPinned};

/// `RB_ENGINE_ABI_VERSION`.
pub const RB_ENGINE_ABI_VERSION: u32 = 1;
/// `RB_ENGINE_ABI_APPENDS`: the appends to version 1 this binding has.
pub const RB_ENGINE_ABI_APPENDS: u32 = 1;
/// `RB_ENGINE_ENTRY`: the symbol rumbench looks up.
pub const RB_ENGINE_ENTRY: &str = "rumbench_engine_api";

/// `rb_status`, as the `int` C passes: a plugin returns one of the four
/// constants; rumbench reads whatever it returned (a value outside them is
/// an error, not undefined behaviour, as a Rust enum's would be).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RbStatus(pub i32);

impl RbStatus {
    pub const OK: RbStatus = RbStatus(0);
    /// get, txn_get_for_update: the key is absent; scan_next: no more entries.
    pub const NOT_FOUND: RbStatus = RbStatus(1);
    /// A transaction lost to another: rolled back, rumbench retries it.
    pub const CONFLICT: RbStatus = RbStatus(2);
    /// Anything else: the text is in the `RbError`.
    pub const ERROR: RbStatus = RbStatus(3);
    /// Appended: the engine cannot take the call now; it did nothing.
    pub const BUSY: RbStatus = RbStatus(4);
    /// Appended: the engine's storage is full; the call did nothing.
    pub const NO_SPACE: RbStatus = RbStatus(5);
    /// Appended: the engine found its data damaged.
    pub const CORRUPTION: RbStatus = RbStatus(6);
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

/// `rb_option_doc`: one option described (a NULL `name` ends a list).
#[repr(C)]
pub struct RbOptionDoc {
    pub name: *const c_char,
    pub default_value: *const c_char,
    pub help: *const c_char,
}

// SAFETY: a plugin's option docs are static, read-only strings (the header's contract).
unsafe impl Sync for RbOptionDoc {}

/// `rb_value_fn`: receives the value of key `index` of a multi-get.
pub type RbValueFn = Option<unsafe extern "C" fn(ctx: *mut c_void, index: usize, value: *const u8, value_len: usize)>;

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
    // Appends to version 1 (RB_ENGINE_ABI_APPENDS 1): read only when
    // `struct_size` covers them (`RbEngineApi::has`).
    pub option_docs: *const RbOptionDoc,
    pub session_open_thread: Option<unsafe extern "C" fn(Engine, u32, *mut Session, Err) -> RbStatus>,
    #[allow(clippy::type_complexity, reason = "the header's signature, spelled out")]
    pub multi_get_values: Option<
        unsafe extern "C" fn(Session, *const u8, usize, usize, RbValueFn, *mut c_void, *mut usize, Err) -> RbStatus,
    >,
    #[allow(clippy::type_complexity, reason = "the header's signature, spelled out")]
    pub scan_seek_bounded:
        Option<unsafe extern "C" fn(Session, *const u8, usize, i32, *const u8, usize, u64, Err) -> RbStatus>,
}

impl RbEngineApi {
    /// The size of version 1's first table, up to `txn_rollback`: the
    /// least a plugin's `struct_size` may be.
    pub const FIRST_SIZE: usize = std::mem::offset_of!(RbEngineApi, option_docs);

    /// Whether a table of `struct_size` bytes holds the field at `offset`
    /// (an append: `std::mem::offset_of!(RbEngineApi, field)`), of `len` bytes.
    pub const fn covers(struct_size: u32, offset: usize, len: usize) -> bool {
        struct_size as usize >= offset + len
    }
}

/// `rb_engine_entry_fn`: the type of `rumbench_engine_api`.
pub type RbEngineEntryFn = Option<unsafe extern "C" fn() -> *const RbEngineApi>;

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// Every struct's size, every field's offset and every constant as the C
    /// compiler lays out and defines include/rumbench_engine.h, against this
    /// crate's.
    #[test]
    fn the_binding_is_the_header() {
        let fields: &[(&str, &str, usize)] = &[
            ("rb_error", "text", offset_of!(RbError, text)),
            ("rb_pair", "value", offset_of!(RbPair, value)),
            ("rb_open_args", "dir", offset_of!(RbOpenArgs, dir)),
            ("rb_open_args", "key_size", offset_of!(RbOpenArgs, key_size)),
            ("rb_open_args", "value_size", offset_of!(RbOpenArgs, value_size)),
            ("rb_open_args", "num_keys", offset_of!(RbOpenArgs, num_keys)),
            ("rb_open_args", "threads", offset_of!(RbOpenArgs, threads)),
            ("rb_open_args", "create", offset_of!(RbOpenArgs, create)),
            ("rb_open_args", "read_only", offset_of!(RbOpenArgs, read_only)),
            ("rb_batch_op", "key", offset_of!(RbBatchOp, key)),
            ("rb_batch_op", "key_len", offset_of!(RbBatchOp, key_len)),
            ("rb_batch_op", "value", offset_of!(RbBatchOp, value)),
            ("rb_batch_op", "value_len", offset_of!(RbBatchOp, value_len)),
            ("rb_engine_api", "capabilities", offset_of!(RbEngineApi, capabilities)),
            ("rb_engine_api", "name", offset_of!(RbEngineApi, name)),
            ("rb_engine_api", "version", offset_of!(RbEngineApi, version)),
            ("rb_engine_api", "build", offset_of!(RbEngineApi, build)),
            ("rb_engine_api", "check_options", offset_of!(RbEngineApi, check_options)),
            ("rb_engine_api", "open", offset_of!(RbEngineApi, open)),
            ("rb_engine_api", "close", offset_of!(RbEngineApi, close)),
            ("rb_engine_api", "effective_options", offset_of!(RbEngineApi, effective_options)),
            ("rb_engine_api", "stats", offset_of!(RbEngineApi, stats)),
            ("rb_engine_api", "syncs_writes", offset_of!(RbEngineApi, syncs_writes)),
            ("rb_engine_api", "sync", offset_of!(RbEngineApi, sync)),
            ("rb_engine_api", "flush", offset_of!(RbEngineApi, flush)),
            ("rb_engine_api", "wait_idle", offset_of!(RbEngineApi, wait_idle)),
            ("rb_engine_api", "session_open", offset_of!(RbEngineApi, session_open)),
            ("rb_engine_api", "session_close", offset_of!(RbEngineApi, session_close)),
            ("rb_engine_api", "put", offset_of!(RbEngineApi, put)),
            ("rb_engine_api", "del", offset_of!(RbEngineApi, del)),
            ("rb_engine_api", "get", offset_of!(RbEngineApi, get)),
            ("rb_engine_api", "write_batch", offset_of!(RbEngineApi, write_batch)),
            ("rb_engine_api", "multi_get", offset_of!(RbEngineApi, multi_get)),
            ("rb_engine_api", "scan_seek", offset_of!(RbEngineApi, scan_seek)),
            ("rb_engine_api", "scan_next", offset_of!(RbEngineApi, scan_next)),
            ("rb_engine_api", "scan_end", offset_of!(RbEngineApi, scan_end)),
            ("rb_engine_api", "txn_begin", offset_of!(RbEngineApi, txn_begin)),
            ("rb_engine_api", "txn_get_for_update", offset_of!(RbEngineApi, txn_get_for_update)),
            ("rb_engine_api", "txn_put", offset_of!(RbEngineApi, txn_put)),
            ("rb_engine_api", "txn_commit", offset_of!(RbEngineApi, txn_commit)),
            ("rb_engine_api", "txn_rollback", offset_of!(RbEngineApi, txn_rollback)),
            ("rb_engine_api", "option_docs", offset_of!(RbEngineApi, option_docs)),
            ("rb_engine_api", "session_open_thread", offset_of!(RbEngineApi, session_open_thread)),
            ("rb_engine_api", "multi_get_values", offset_of!(RbEngineApi, multi_get_values)),
            ("rb_engine_api", "scan_seek_bounded", offset_of!(RbEngineApi, scan_seek_bounded)),
            ("rb_option_doc", "default_value", offset_of!(RbOptionDoc, default_value)),
            ("rb_option_doc", "help", offset_of!(RbOptionDoc, help)),
        ];
        let sizes: &[(&str, usize)] = &[
            ("rb_status", size_of::<RbStatus>()),
            ("rb_error", size_of::<RbError>()),
            ("rb_pair", size_of::<RbPair>()),
            ("rb_open_args", size_of::<RbOpenArgs>()),
            ("rb_batch_op", size_of::<RbBatchOp>()),
            ("rb_engine_api", size_of::<RbEngineApi>()),
            ("rb_emit_fn", size_of::<RbEmitFn>()),
            ("rb_engine_entry_fn", size_of::<RbEngineEntryFn>()),
            ("rb_option_doc", size_of::<RbOptionDoc>()),
            ("rb_value_fn", size_of::<RbValueFn>()),
        ];
        let mut c =
            String::from("#include <stddef.h>\n#include <stdio.h>\n#include \"rumbench_engine.h\"\nint main(void) {\n");
        for (ty, field, _) in fields {
            c.push_str(&format!("printf(\"%zu\\n\", offsetof({ty}, {field}));\n"));
        }
        for (ty, _) in sizes {
            c.push_str(&format!("printf(\"%zu\\n\", sizeof({ty}));\n"));
        }
        c.push_str(
            "printf(\"%u %u %d %d %d %d %d %d %d\\n\", RB_ENGINE_ABI_VERSION, RB_ENGINE_ABI_APPENDS, RB_OK, RB_NOT_FOUND, RB_CONFLICT, RB_ERROR, RB_BUSY, RB_NO_SPACE, RB_CORRUPTION);\n\
             printf(\"%llu %llu %llu %llu %llu %llu %llu\\n\", (unsigned long long)RB_CAP_WRITE_BATCH, (unsigned long long)RB_CAP_MULTI_GET, (unsigned long long)RB_CAP_REVERSE_SCAN, (unsigned long long)RB_CAP_TRANSACTIONS, (unsigned long long)RB_CAP_FLUSH, (unsigned long long)RB_CAP_WAIT_IDLE, (unsigned long long)RB_CAP_READ_ONLY);\n\
             printf(\"%d %d %d\\n\", RB_ERROR_TEXT, RB_PUT, RB_DELETE);\n\
             puts(RB_ENGINE_ENTRY);\nreturn 0; }\n",
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("layout.c"), c).unwrap();
        let include = concat!(env!("CARGO_MANIFEST_DIR"), "/../../include");
        let exe = dir.path().join("layout");
        let built = std::process::Command::new("cc")
            .args(["-std=c11", "-Wall", "-Werror", "-I", include, "-o"])
            .arg(&exe)
            .arg(dir.path().join("layout.c"))
            .status()
            .unwrap();
        assert!(built.success(), "cc compiles the header");
        let out = String::from_utf8(std::process::Command::new(&exe).output().unwrap().stdout).unwrap();
        let mut lines = out.lines();
        for (ty, field, offset) in fields {
            assert_eq!(lines.next().unwrap(), offset.to_string(), "offset of {ty}.{field}");
        }
        for (ty, size) in sizes {
            assert_eq!(lines.next().unwrap(), size.to_string(), "size of {ty}");
        }
        let status = [
            RbStatus::OK,
            RbStatus::NOT_FOUND,
            RbStatus::CONFLICT,
            RbStatus::ERROR,
            RbStatus::BUSY,
            RbStatus::NO_SPACE,
            RbStatus::CORRUPTION,
        ]
        .map(|s| s.0.to_string());
        assert_eq!(
            lines.next().unwrap(),
            format!("{RB_ENGINE_ABI_VERSION} {RB_ENGINE_ABI_APPENDS} {}", status.join(" "))
        );
        let caps = [
            RB_CAP_WRITE_BATCH,
            RB_CAP_MULTI_GET,
            RB_CAP_REVERSE_SCAN,
            RB_CAP_TRANSACTIONS,
            RB_CAP_FLUSH,
            RB_CAP_WAIT_IDLE,
            RB_CAP_READ_ONLY,
        ]
        .map(|c| c.to_string());
        assert_eq!(lines.next().unwrap(), caps.join(" "));
        assert_eq!(lines.next().unwrap(), format!("{RB_ERROR_TEXT} {RB_PUT} {RB_DELETE}"));
        assert_eq!(lines.next().unwrap(), RB_ENGINE_ENTRY);
    }
}
