//! include/rumbench_engine.h in Rust: the structs and constants of the
//! plugin ABI, laid out as C lays them out (a test compiles the header and
//! compares every size and offset).

use std::ffi::{c_char, c_void};

pub const ABI_VERSION: u32 = 1;
pub const ENTRY: &[u8] = b"rumbench_engine_api\0";

pub const RB_OK: i32 = 0;
pub const RB_NOT_FOUND: i32 = 1;
pub const RB_CONFLICT: i32 = 2;
pub const RB_ERROR: i32 = 3;

pub const CAP_WRITE_BATCH: u64 = 1 << 0;
pub const CAP_MULTI_GET: u64 = 1 << 1;
pub const CAP_REVERSE_SCAN: u64 = 1 << 2;
pub const CAP_TRANSACTIONS: u64 = 1 << 3;
pub const CAP_FLUSH: u64 = 1 << 4;
pub const CAP_WAIT_IDLE: u64 = 1 << 5;
pub const CAP_READ_ONLY: u64 = 1 << 6;

/// Each capability bit with the name `rumbench engines` and results show.
pub const CAPABILITIES: &[(u64, &str)] = &[
    (CAP_WRITE_BATCH, "write_batch"),
    (CAP_MULTI_GET, "multi_get"),
    (CAP_REVERSE_SCAN, "reverse_scan"),
    (CAP_TRANSACTIONS, "transactions"),
    (CAP_FLUSH, "flush"),
    (CAP_WAIT_IDLE, "wait_idle"),
    (CAP_READ_ONLY, "read_only"),
];

pub const ERROR_TEXT: usize = 512;

#[repr(C)]
pub struct RbError {
    pub text: [c_char; ERROR_TEXT],
}

#[repr(C)]
pub struct RbPair {
    pub name: *const c_char,
    pub value: *const c_char,
}

pub type EmitFn = unsafe extern "C" fn(ctx: *mut c_void, name: *const c_char, value: *const c_char);

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

pub const RB_PUT: u32 = 0;
pub const RB_DELETE: u32 = 1;

#[repr(C)]
pub struct RbBatchOp {
    pub kind: u32,
    pub key: *const u8,
    pub key_len: usize,
    pub value: *const u8,
    pub value_len: usize,
}

/// Opaque: the plugin's engine and session.
#[repr(C)]
pub struct RbEngine {
    _private: [u8; 0],
}
#[repr(C)]
pub struct RbSession {
    _private: [u8; 0],
}

type E = *mut RbEngine;
type S = *mut RbSession;
type Err = *mut RbError;

#[repr(C)]
pub struct RbEngineApi {
    pub abi_version: u32,
    pub struct_size: u32,
    pub capabilities: u64,
    pub name: *const c_char,
    pub version: *const c_char,
    pub build: *const c_char,
    pub check_options: Option<unsafe extern "C" fn(*const RbPair, usize, Err) -> i32>,
    pub open: Option<unsafe extern "C" fn(*const RbOpenArgs, *const RbPair, usize, *mut E, Err) -> i32>,
    pub close: Option<unsafe extern "C" fn(E)>,
    pub effective_options: Option<unsafe extern "C" fn(E, EmitFn, *mut c_void)>,
    pub stats: Option<unsafe extern "C" fn(E, EmitFn, *mut c_void)>,
    pub syncs_writes: Option<unsafe extern "C" fn(E) -> i32>,
    pub sync: Option<unsafe extern "C" fn(E, Err) -> i32>,
    pub flush: Option<unsafe extern "C" fn(E, Err) -> i32>,
    pub wait_idle: Option<unsafe extern "C" fn(E, u64, *mut i32, Err) -> i32>,
    pub session_open: Option<unsafe extern "C" fn(E, *mut S, Err) -> i32>,
    pub session_close: Option<unsafe extern "C" fn(S)>,
    pub put: Option<unsafe extern "C" fn(S, *const u8, usize, *const u8, usize, Err) -> i32>,
    pub del: Option<unsafe extern "C" fn(S, *const u8, usize, Err) -> i32>,
    pub get: Option<unsafe extern "C" fn(S, *const u8, usize, *mut *const u8, *mut usize, Err) -> i32>,
    pub write_batch: Option<unsafe extern "C" fn(S, *const RbBatchOp, usize, Err) -> i32>,
    pub multi_get: Option<unsafe extern "C" fn(S, *const u8, usize, usize, *mut usize, Err) -> i32>,
    pub scan_seek: Option<unsafe extern "C" fn(S, *const u8, usize, i32, Err) -> i32>,
    pub scan_next: Option<unsafe extern "C" fn(S, *mut *const u8, *mut usize, *mut *const u8, *mut usize, Err) -> i32>,
    pub scan_end: Option<unsafe extern "C" fn(S)>,
    pub txn_begin: Option<unsafe extern "C" fn(S, Err) -> i32>,
    pub txn_get_for_update: Option<unsafe extern "C" fn(S, *const u8, usize, *mut *const u8, *mut usize, Err) -> i32>,
    pub txn_put: Option<unsafe extern "C" fn(S, *const u8, usize, *const u8, usize, Err) -> i32>,
    pub txn_commit: Option<unsafe extern "C" fn(S, Err) -> i32>,
    pub txn_rollback: Option<unsafe extern "C" fn(S)>,
}

/// The names of the capabilities in `bits`, "none" for none.
pub fn capability_names(bits: u64) -> String {
    let names: Vec<&str> = CAPABILITIES.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(",")
    }
}

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// Every struct's size and every field's offset as the C compiler lays
    /// out include/rumbench_engine.h, against this module's.
    #[test]
    fn the_structs_are_laid_out_as_the_header_lays_them_out() {
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
            ("rb_engine_api", "build", offset_of!(RbEngineApi, build)),
            ("rb_engine_api", "check_options", offset_of!(RbEngineApi, check_options)),
            ("rb_engine_api", "open", offset_of!(RbEngineApi, open)),
            ("rb_engine_api", "syncs_writes", offset_of!(RbEngineApi, syncs_writes)),
            ("rb_engine_api", "wait_idle", offset_of!(RbEngineApi, wait_idle)),
            ("rb_engine_api", "session_open", offset_of!(RbEngineApi, session_open)),
            ("rb_engine_api", "put", offset_of!(RbEngineApi, put)),
            ("rb_engine_api", "del", offset_of!(RbEngineApi, del)),
            ("rb_engine_api", "get", offset_of!(RbEngineApi, get)),
            ("rb_engine_api", "write_batch", offset_of!(RbEngineApi, write_batch)),
            ("rb_engine_api", "multi_get", offset_of!(RbEngineApi, multi_get)),
            ("rb_engine_api", "scan_seek", offset_of!(RbEngineApi, scan_seek)),
            ("rb_engine_api", "scan_end", offset_of!(RbEngineApi, scan_end)),
            ("rb_engine_api", "txn_begin", offset_of!(RbEngineApi, txn_begin)),
            ("rb_engine_api", "txn_commit", offset_of!(RbEngineApi, txn_commit)),
            ("rb_engine_api", "txn_rollback", offset_of!(RbEngineApi, txn_rollback)),
        ];
        let sizes: &[(&str, usize)] = &[
            ("rb_error", size_of::<RbError>()),
            ("rb_pair", size_of::<RbPair>()),
            ("rb_open_args", size_of::<RbOpenArgs>()),
            ("rb_batch_op", size_of::<RbBatchOp>()),
            ("rb_engine_api", size_of::<RbEngineApi>()),
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
            "printf(\"%u %d %d %d %d\\n\", RB_ENGINE_ABI_VERSION, RB_OK, RB_NOT_FOUND, RB_CONFLICT, RB_ERROR);\n\
             printf(\"%llu\\n\", (unsigned long long)(RB_CAP_WRITE_BATCH|RB_CAP_MULTI_GET|RB_CAP_REVERSE_SCAN|RB_CAP_TRANSACTIONS|RB_CAP_FLUSH|RB_CAP_WAIT_IDLE|RB_CAP_READ_ONLY));\n\
             printf(\"%d %d %d\\n\", RB_ERROR_TEXT, RB_PUT, RB_DELETE);\n\
             puts(RB_ENGINE_ENTRY);\nreturn 0; }\n",
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("layout.c"), c).unwrap();
        let include = concat!(env!("CARGO_MANIFEST_DIR"), "/include");
        let exe = dir.path().join("layout");
        let built = std::process::Command::new("cc")
            .args(["-std=c11", "-Wall", "-Werror", "-I", include, "-o"])
            .arg(&exe)
            .arg(dir.path().join("layout.c"))
            .status()
            .unwrap();
        assert!(built.success());
        let out = String::from_utf8(std::process::Command::new(&exe).output().unwrap().stdout).unwrap();
        let mut lines = out.lines();
        for (ty, field, offset) in fields {
            assert_eq!(lines.next().unwrap(), offset.to_string(), "offset of {ty}.{field}");
        }
        for (ty, size) in sizes {
            assert_eq!(lines.next().unwrap(), size.to_string(), "size of {ty}");
        }
        assert_eq!(lines.next().unwrap(), format!("{ABI_VERSION} {RB_OK} {RB_NOT_FOUND} {RB_CONFLICT} {RB_ERROR}"));
        let all = CAPABILITIES.iter().fold(0, |a, (b, _)| a | b);
        assert_eq!(lines.next().unwrap(), all.to_string());
        assert_eq!(lines.next().unwrap(), format!("{ERROR_TEXT} {RB_PUT} {RB_DELETE}"));
        assert_eq!(lines.next().unwrap().as_bytes(), &ENTRY[..ENTRY.len() - 1]);
    }
}
