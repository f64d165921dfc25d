//! A plugin's sessions and transactions: the per-client calls of the C ABI
//! (get, put, delete, write batches, scans, transactions), each marked for
//! the crash note and each clearing the session's own error buffer.

use anyhow::{bail, Result};

use super::abi::*;
use super::crash::{call, InCall};
use super::{error_text, PluginEngine};
use crate::engine::{is_conflict, BatchOp, Conflict, Session, TxnEnd, TxnOps};

/// A session's error buffer, cleared before every call: on cache lines of
/// its own, so that two client threads' clears never share a line.
#[repr(C, align(64))]
struct SessionError(RbError);

impl SessionError {
    #[inline]
    fn ptr(&mut self) -> *mut RbError {
        &mut self.0
    }
}

impl std::ops::Deref for SessionError {
    type Target = RbError;
    fn deref(&self) -> &RbError {
        &self.0
    }
}

impl std::ops::DerefMut for SessionError {
    fn deref_mut(&mut self) -> &mut RbError {
        &mut self.0
    }
}

pub(super) struct PluginSession<'a> {
    engine: &'a PluginEngine,
    api: &'static RbEngineApi,
    raw: *mut RbSession,
    err: Box<SessionError>,
    /// A write batch's entries, reused: no allocation per batch once grown.
    batch: Vec<RbBatchOp>,
}

impl Drop for PluginSession<'_> {
    fn drop(&mut self) {
        let _in = InCall::enter(const { call("session_close") });
        // SAFETY: raw is this session, used by no one after this.
        unsafe { (self.api.session_close.expect("checked at load"))(self.raw) }
    }
}

impl<'a> PluginSession<'a> {
    /// A session the plugin opened (`raw`) on `engine`.
    pub(super) fn new(engine: &'a PluginEngine, raw: *mut RbSession) -> PluginSession<'a> {
        let err = Box::new(SessionError(RbError { text: [0; ERROR_TEXT] }));
        PluginSession { engine, api: engine.plugin.api, raw, err, batch: Vec::new() }
    }

    #[cold]
    fn fail(&self, rc: RbStatus, what: &str) -> anyhow::Error {
        anyhow::anyhow!(
            "{}: {what} failed in {}: {}{}",
            self.engine.plugin.name,
            self.engine.dir.display(),
            super::status_words(rc),
            error_text(&self.err)
        )
    }

    #[inline]
    fn ok(&self, rc: RbStatus, what: &str) -> Result<()> {
        match rc {
            RB_OK => Ok(()),
            _ => Err(self.fail(rc, what)),
        }
    }

    /// RB_OK: true, RB_NOT_FOUND: false.
    #[inline]
    fn found(&self, rc: RbStatus, what: &str) -> Result<bool> {
        match rc {
            RB_OK => Ok(true),
            RB_NOT_FOUND => Ok(false),
            _ => Err(self.fail(rc, what)),
        }
    }

    fn get_raw(&mut self, key: &[u8]) -> Result<Option<&[u8]>> {
        let (mut v, mut vl): (*const u8, usize) = (std::ptr::null(), 0);
        self.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("get") });
            // SAFETY: key is alive for the call; v/vl receive a value valid
            // until this session's next call (header), which the borrow of
            // self below outlives only as long as no other call is made.
            unsafe {
                (self.api.get.expect("checked at load"))(
                    self.raw,
                    key.as_ptr(),
                    key.len(),
                    &mut v,
                    &mut vl,
                    self.err.ptr(),
                )
            }
        };
        match self.found(rc, "get")? {
            // SAFETY: the plugin returned vl bytes at v (empty when null).
            true => Ok(Some(if v.is_null() { &[] } else { unsafe { std::slice::from_raw_parts(v, vl) } })),
            false => Ok(None),
        }
    }
}

impl Session for PluginSession<'_> {
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        if !self.engine.plugin.has(CAP_TRANSACTIONS) {
            return None;
        }
        Some((|| {
            self.err.text[0] = 0;
            let rc = {
                let _in = InCall::enter(const { call("txn_begin") });
                // SAFETY: the session is ours; err is ours.
                unsafe { (self.api.txn_begin.expect("checked at load"))(self.raw, self.err.ptr()) }
            };
            self.ok(rc, "txn_begin")?;
            let outcome = body(&mut PluginTxn { s: self });
            let rollback = |s: &mut Self| {
                let _in = InCall::enter(const { call("txn_rollback") });
                // SAFETY: a transaction is open on this session.
                unsafe { (s.api.txn_rollback.expect("checked at load"))(s.raw) }
            };
            match outcome {
                Err(e) if is_conflict(&e) => {
                    rollback(self);
                    return Ok(TxnEnd::Conflict);
                }
                Err(e) => {
                    rollback(self);
                    return Err(e);
                }
                Ok(()) => {}
            }
            self.err.text[0] = 0;
            let rc = {
                let _in = InCall::enter(const { call("txn_commit") });
                // SAFETY: a transaction is open on this session.
                unsafe { (self.api.txn_commit.expect("checked at load"))(self.raw, self.err.ptr()) }
            };
            match rc {
                RB_OK => Ok(TxnEnd::Committed),
                RB_CONFLICT => Ok(TxnEnd::Conflict),
                _ => Err(self.fail(rc, "txn_commit")),
            }
        })())
    }

    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("put") });
            // SAFETY: key and value are alive for the call.
            unsafe {
                (self.api.put.expect("checked at load"))(
                    self.raw,
                    key.as_ptr(),
                    key.len(),
                    value.as_ptr(),
                    value.len(),
                    self.err.ptr(),
                )
            }
        };
        self.ok(rc, "put")
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("delete") });
            // SAFETY: key is alive for the call.
            unsafe { (self.api.del.expect("checked at load"))(self.raw, key.as_ptr(), key.len(), self.err.ptr()) }
        };
        self.ok(rc, "delete")
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        if !self.engine.plugin.has(CAP_WRITE_BATCH) {
            bail!("plugin {} has no write batches (RB_CAP_WRITE_BATCH)", self.engine.plugin.name);
        }
        self.batch.clear();
        self.batch.extend(ops.iter().map(|op| match *op {
            BatchOp::Put(k, v) => {
                RbBatchOp { kind: RB_PUT, key: k.as_ptr(), key_len: k.len(), value: v.as_ptr(), value_len: v.len() }
            }
            BatchOp::Delete(k) => {
                RbBatchOp { kind: RB_DELETE, key: k.as_ptr(), key_len: k.len(), value: std::ptr::null(), value_len: 0 }
            }
        }));
        self.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("write_batch") });
            // SAFETY: batch points into `ops`, alive for the call.
            unsafe {
                (self.api.write_batch.expect("checked at load"))(
                    self.raw,
                    self.batch.as_ptr(),
                    self.batch.len(),
                    self.err.ptr(),
                )
            }
        };
        self.ok(rc, "write_batch")
    }

    #[inline]
    fn get(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.get_raw(key)?.is_some())
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match self.get_raw(key)? {
            Some(v) => {
                out.extend_from_slice(v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        if !self.engine.plugin.has(CAP_MULTI_GET) || key_size == 0 {
            let mut found = 0;
            for key in keys.chunks_exact(key_size.max(1)) {
                found += self.get(key)? as usize;
            }
            return Ok(found);
        }
        let mut found = 0usize;
        self.err.text[0] = 0;
        if let Some(with_values) = self.api.multi_get_values {
            // The values handed back, as a native engine's multi-get reads
            // them: their bytes counted, so the plugin's work is the same.
            unsafe extern "C" fn take(ctx: *mut std::ffi::c_void, _index: usize, _value: *const u8, len: usize) {
                // SAFETY: ctx is `bytes` below, alive for the call.
                unsafe { *ctx.cast::<usize>() += len };
            }
            let mut bytes = 0usize;
            let rc = {
                let _in = InCall::enter(const { call("multi_get") });
                // SAFETY: keys is alive for the call; found and bytes are ours.
                unsafe {
                    with_values(
                        self.raw,
                        keys.as_ptr(),
                        key_size,
                        keys.len() / key_size,
                        Some(take),
                        (&mut bytes as *mut usize).cast(),
                        &mut found,
                        self.err.ptr(),
                    )
                }
            };
            self.ok(rc, "multi_get_values")?;
            return Ok(found);
        }
        let rc = {
            let _in = InCall::enter(const { call("multi_get") });
            // SAFETY: keys is alive for the call; found is ours.
            unsafe {
                (self.api.multi_get.expect("checked at load"))(
                    self.raw,
                    keys.as_ptr(),
                    key_size,
                    keys.len() / key_size,
                    &mut found,
                    self.err.ptr(),
                )
            }
        };
        self.ok(rc, "multi_get")?;
        Ok(found)
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        if max_entries == 0 {
            return Ok(0);
        }
        if reverse && !self.engine.plugin.has(CAP_REVERSE_SCAN) {
            bail!("plugin {} has no reverse scans (RB_CAP_REVERSE_SCAN)", self.engine.plugin.name);
        }
        self.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("scan_seek") });
            match self.api.scan_seek_bounded {
                // Told the scan's length, the plugin reads no further ahead.
                // SAFETY: start is alive for the call; no end key.
                Some(bounded) => unsafe {
                    bounded(
                        self.raw,
                        start.as_ptr(),
                        start.len(),
                        reverse as i32,
                        std::ptr::null(),
                        0,
                        u64::try_from(max_entries).unwrap_or(0),
                        self.err.ptr(),
                    )
                },
                // SAFETY: start is alive for the call.
                None => unsafe {
                    (self.api.scan_seek.expect("checked at load"))(
                        self.raw,
                        start.as_ptr(),
                        start.len(),
                        reverse as i32,
                        self.err.ptr(),
                    )
                },
            }
        };
        let mut visited = 0;
        let outcome = self.ok(rc, "scan_seek").and_then(|()| loop {
            let (mut k, mut kl, mut v, mut vl): (*const u8, usize, *const u8, usize) =
                (std::ptr::null(), 0, std::ptr::null(), 0);
            self.err.text[0] = 0;
            let rc = {
                let _in = InCall::enter(const { call("scan_next") });
                // SAFETY: a cursor is open on this session; the out pointers are ours.
                unsafe {
                    (self.api.scan_next.expect("checked at load"))(
                        self.raw,
                        &mut k,
                        &mut kl,
                        &mut v,
                        &mut vl,
                        self.err.ptr(),
                    )
                }
            };
            if !self.found(rc, "scan_next")? {
                break Ok(visited);
            }
            // SAFETY: the entry's bytes, valid until the session's next call.
            let (key, value) = unsafe {
                (
                    if k.is_null() { &[][..] } else { std::slice::from_raw_parts(k, kl) },
                    if v.is_null() { &[][..] } else { std::slice::from_raw_parts(v, vl) },
                )
            };
            visited += 1;
            if !visit(key, value) || visited >= max_entries {
                break Ok(visited);
            }
        });
        // Always, after a seek (header), whatever happened.
        let _in = InCall::enter(const { call("scan_end") });
        // SAFETY: the session's cursor, released once.
        unsafe { (self.api.scan_end.expect("checked at load"))(self.raw) };
        outcome
    }
}

/// The operations of an open transaction on a plugin's session.
struct PluginTxn<'s, 'e> {
    s: &'s mut PluginSession<'e>,
}

impl TxnOps for PluginTxn<'_, '_> {
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let s = &mut *self.s;
        let (mut v, mut vl): (*const u8, usize) = (std::ptr::null(), 0);
        s.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("txn_get_for_update") });
            // SAFETY: a transaction is open; key is alive for the call.
            unsafe {
                (s.api.txn_get_for_update.expect("checked at load"))(
                    s.raw,
                    key.as_ptr(),
                    key.len(),
                    &mut v,
                    &mut vl,
                    s.err.ptr(),
                )
            }
        };
        if rc == RB_CONFLICT {
            return Err(Conflict(error_text(&s.err)).into());
        }
        if s.found(rc, "txn_get_for_update")? {
            if !v.is_null() {
                // SAFETY: the plugin returned vl bytes at v.
                out.extend_from_slice(unsafe { std::slice::from_raw_parts(v, vl) });
            }
            return Ok(true);
        }
        Ok(false)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let s = &mut *self.s;
        s.err.text[0] = 0;
        let rc = {
            let _in = InCall::enter(const { call("txn_put") });
            // SAFETY: a transaction is open; key and value are alive for the call.
            unsafe {
                (s.api.txn_put.expect("checked at load"))(
                    s.raw,
                    key.as_ptr(),
                    key.len(),
                    value.as_ptr(),
                    value.len(),
                    s.err.ptr(),
                )
            }
        };
        match rc {
            RB_CONFLICT => Err(Conflict(error_text(&s.err)).into()),
            rc => s.ok(rc, "txn_put"),
        }
    }
}
