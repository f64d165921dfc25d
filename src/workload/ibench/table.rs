//! The table-level interface of the insert benchmark.
//!
//! A [`Table`] is the database the steps run against (a server, or a
//! key-value engine with the table layer of `kv.rs`); every client thread
//! has its own [`TableSession`] (one connection). Tables are numbered from 0
//! and named pi1, pi2, ... Implementations contain no timing code: the
//! runner (`exec.rs`) times every call.

use std::ops::Range;
use std::time::Duration;

use anyhow::Result;

use super::{Index, Row};
use crate::engine::InternalsProbe;

/// The database of one engine config.
pub trait Table: Send + Sync {
    /// Server or library version.
    fn version(&self) -> String;
    /// Options as the engine reports them (name, value).
    fn effective_options(&self) -> Vec<(String, String)>;
    /// How the engine or server was built (see `Engine::provenance`).
    fn provenance(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Create tables 0..`tables`, empty, with the primary key only.
    fn create_tables(&self, tables: u32) -> Result<()>;
    /// A session (connection) for one client thread.
    fn session(&self) -> Result<Box<dyn TableSession + '_>>;
    /// Bring the database to a settled state after the inserts (postgres:
    /// vacuum and checkpoint; InnoDB: flush dirty pages; MyRocks, RocksDB:
    /// flush and wait for compaction), within `timeout`, giving up early when
    /// `stop()` turns true. Returns what it did, one line each.
    fn settle(&self, tables: u32, timeout: Duration, stop: &dyn Fn() -> bool) -> Result<Vec<String>>;
    /// Statistics that explain a result (server statistics, table and index
    /// sizes, engine statistics), as name/value pairs.
    fn stats(&self, tables: u32) -> Vec<(String, String)>;
    /// A server's own cumulative count of its log syncs (None: not a server,
    /// or it keeps no such count).
    fn server_syncs(&self) -> Option<Result<ServerSyncs>> {
        None
    }
    /// Why a write the server acknowledged may not be durable as configured
    /// (MongoDB's write concern without j); None when it asks for durable ones.
    fn not_durable_reason(&self) -> Option<String> {
        None
    }
    /// What the server says rumbench's own tables take on its storage, in
    /// bytes, and where that figure comes from (None: no such figure; a
    /// server rumbench started is measured on its data dir instead).
    fn server_storage_bytes(&self, _tables: u32) -> Option<Result<(u64, String)>> {
        None
    }
    /// The key-value engine under a key-value table (None on a server).
    fn kv_engine(&self) -> Option<&dyn crate::engine::Engine> {
        None
    }
    /// What reads the backend's own counters each second while a step runs
    /// (`--internals`): the key-value engine's, or the server's statistics
    /// over a connection of the probe's own; Err(why) when there are none.
    fn internals_probe(&self) -> std::result::Result<InternalsProbe<'_>, String> {
        match self.kv_engine() {
            Some(engine) => Ok(Box::new(move || engine.internals())),
            None => Err("rumbench samples no counters of this server while it runs".into()),
        }
    }
    /// Cancel the statements running on this table's sessions, so that a
    /// long call (an index build, a vacuum) returns soon after Ctrl-C.
    /// Called from another thread; the cancelled calls return errors.
    fn cancel_running(&self) {}
}

/// One client thread's connection.
pub trait TableSession {
    /// Insert `rows` into `table` and delete the rows with ids in `delete`
    /// (the tail), in one commit. Returns the rows deleted (for key-value
    /// tables, whose deletes are blind: the length of the range).
    fn insert_rows(&mut self, table: u32, rows: &[Row], delete: Option<Range<u64>>) -> Result<u64>;
    /// Create the three secondary indexes of `table`.
    fn create_secondary_indexes(&mut self, table: u32) -> Result<()>;
    /// Up to `limit` rows of `table` in the order of `index`, from the first
    /// whose leading index column is >= `start`, read through the index
    /// (then the primary key where the index does not cover the row). `out`
    /// is cleared first.
    fn range_query(&mut self, table: u32, index: Index, start: i32, limit: usize, out: &mut Vec<Row>) -> Result<()>;
    /// The rows of `table` with these ids (in any order; missing ids are
    /// left out). `out` is cleared first.
    fn point_query(&mut self, table: u32, ids: &[u64], out: &mut Vec<Row>) -> Result<()>;
    /// Rows in `table`.
    fn row_count(&mut self, table: u32) -> Result<u64>;
}

/// A server's count of the sync calls it made to its log since it started.
pub struct ServerSyncs {
    pub count: u64,
    /// Where the count comes from (e.g. `pg_stat_wal.wal_sync`).
    pub counter: String,
    /// The counter also counts other syncs (data files): then it can show
    /// that commits were not synced, but not that they were.
    pub includes_data_files: bool,
}
