//! The recording decorator (`--trace FILE`): a session whose every call is
//! appended to its thread's trace, with the call's intended start (from the
//! driver's thread), before it goes to the engine. The workloads wrap their
//! sessions in it; the engines and the workloads' loops do not change.

use anyhow::Result;

use crate::datagen::trace::{CallKind, ThreadTrace, TraceFile};
use crate::driver::{Thread, Timer};
use crate::engine::{BatchOp, Session, TxnEnd, TxnOps};

/// A session that records each call before making it.
pub struct TracedSession<'a> {
    inner: &'a mut dyn Session,
    trace: ThreadTrace<'a>,
    thread: &'a Thread<'a>,
    timer: Timer,
}

impl<'a> TracedSession<'a> {
    /// Record the calls made through `inner` as thread `thread_no` of `file`.
    pub fn new(t: &'a Thread<'a>, file: &'a TraceFile, thread_no: u32, inner: &'a mut dyn Session) -> Self {
        TracedSession { inner, trace: file.thread(thread_no), thread: t, timer: t.timer() }
    }

    /// The call's intended start: a paced loop's schedule, a closed loop's now.
    #[inline]
    fn at(&self) -> u64 {
        self.thread.intended_ns().unwrap_or_else(|| self.timer.now_ns())
    }
}

/// `session` itself, or `slot` holding it wrapped when `file` records.
pub fn traced<'a: 's, 's>(
    t: &'a Thread<'a>,
    file: Option<&'a TraceFile>,
    thread_no: u32,
    session: &'a mut dyn Session,
    slot: &'s mut Option<TracedSession<'a>>,
) -> &'s mut dyn Session {
    match file {
        Some(f) => slot.insert(TracedSession::new(t, f, thread_no, session)),
        None => session,
    }
}

impl Session for TracedSession<'_> {
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        // The recorded steps make no transactions (the plan refuses --trace on contention steps).
        self.inner.transaction(body)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let at = self.at();
        self.trace.point(at, CallKind::Put, key, value.len() as u32);
        self.inner.put(key, value)
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        let at = self.at();
        self.trace.point(at, CallKind::Delete, key, 0);
        self.inner.delete(key)
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        let at = self.at();
        self.trace.batch(
            at,
            ops.iter().map(|op| match *op {
                BatchOp::Put(k, v) => (false, k, v.len() as u32),
                BatchOp::Delete(k) => (true, k, 0),
            }),
        );
        self.inner.write_batch(ops)
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        let at = self.at();
        self.trace.point(at, CallKind::Get, key, 0);
        self.inner.get(key)
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        let at = self.at();
        self.trace.point(at, CallKind::Get, key, 0);
        self.inner.get_value(key, out)
    }

    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        let at = self.at();
        self.trace.multi_get(at, keys, key_size);
        self.inner.multi_get(keys, key_size)
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        let at = self.at();
        self.trace.seek(at, start, reverse, max_entries.min(u32::MAX as usize) as u32);
        self.inner.scan(start, reverse, max_entries, visit)
    }
}
