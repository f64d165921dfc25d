//! The insert benchmark's tables on MariaDB, with InnoDB or MyRocks: one
//! connection per client thread, server-side prepared statements (cached per
//! table and batch size), multi-row INSERT; with tail deletes, INSERT and
//! DELETE in one explicit transaction.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, Params, Statement, Value};

use super::table::{ServerSyncs, Table, TableSession};
use super::{table_name, Index, Row};
use crate::backend::servers::Transport;
use crate::server::endpoint::MysqlConn;
use crate::server::{Endpoint, RunningServer, ServerKind};

const COLUMNS: &str = "id, dateandtime, cashregisterid, productid, customerid, price, data";

/// Server variables recorded with the result (besides those the config sets).
const RECORDED_VARIABLES: &[&str] = &[
    "version",
    "default_storage_engine",
    "log_bin",
    "sync_binlog",
    "transaction_isolation",
    "innodb_buffer_pool_size",
    "innodb_flush_log_at_trx_commit",
    "innodb_log_file_size",
    "innodb_flush_method",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_doublewrite",
    "innodb_max_dirty_pages_pct",
    "innodb_adaptive_hash_index",
    "innodb_change_buffering",
    "rocksdb_block_cache_size",
    "rocksdb_flush_log_at_trx_commit",
    "rocksdb_max_background_jobs",
    "rocksdb_default_cf_options",
    "rocksdb_block_size",
    "rocksdb_use_direct_reads",
    "rocksdb_bytes_per_sync",
    "rocksdb_wal_bytes_per_sync",
];

fn status_value(c: &mut Conn, name: &str) -> Result<Option<u64>> {
    let row: Option<(String, String)> = c.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    Ok(row.and_then(|(_, v)| v.parse().ok()))
}

/// The tables of one MariaDB server.
pub struct MyTable {
    endpoint: Endpoint,
    /// Connection ids of the sessions made (the latest ones), for Ctrl-C.
    conn_ids: Mutex<Vec<u32>>,
    kind: ServerKind,
    version: String,
    options: Vec<(String, String)>,
    provenance: Vec<(String, String)>,
}

/// How the server was built: its version (a debug build says "-debug"),
/// compile target, and for MyRocks the RocksDB it bundles, as its own LOG
/// file names it.
fn provenance(c: &mut mysql::Conn, kind: ServerKind, server: Option<&RunningServer>) -> Result<Vec<(String, String)>> {
    let row: Option<(String, String, String)> =
        c.query_first("SELECT @@version, @@version_comment, @@version_compile_machine")?;
    let (version, comment, machine) = row.unwrap_or_default();
    let mut p = vec![
        ("version".to_string(), version.clone()),
        (
            "build.assertions".into(),
            if version.contains("-debug") { "on (a -debug server)".into() } else { "off".into() },
        ),
        ("build.version_comment".into(), comment),
        ("build.machine".into(), machine),
    ];
    if kind == ServerKind::MariadbMyrocks {
        let found = match server {
            Some(server) => {
                let log = server.data_dir().join("data").join("#rocksdb").join("LOG");
                std::fs::read_to_string(&log)
                    .ok()
                    .and_then(|t| {
                        t.lines().find_map(|l| l.split_once("RocksDB version:").map(|(_, v)| v.trim().to_string()))
                    })
                    .unwrap_or_else(|| format!("unknown (no 'RocksDB version' line in {})", log.display()))
            }
            None => "unknown (the server's LOG file is on another machine)".into(),
        };
        p.push(("myrocks.rocksdb_version".into(), found));
    }
    Ok(p)
}

impl MyTable {
    /// The tables in the server `endpoint` reaches: one rumbench started
    /// (`server`), or one the user runs (`endpoint.remote`).
    pub fn new(endpoint: Endpoint, server: Option<&RunningServer>, transport: Transport) -> Result<MyTable> {
        let mut c = endpoint.connect_mysql()?;
        let mut options = super::connection_options(&endpoint, server, transport);
        let mut names: Vec<String> = RECORDED_VARIABLES.iter().map(|s| s.to_string()).collect();
        for l in server.map(|s| s.config_lines()).unwrap_or_default() {
            let t = l.trim();
            let end = t.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(t.len());
            let n = t[..end].trim().replace('-', "_").to_ascii_lowercase();
            if !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !names.contains(&n) {
                names.push(n);
            }
        }
        let list = names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(",");
        let vars: Vec<(String, String)> = c.query(format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})"))?;
        options.extend(vars.into_iter().map(|(k, v)| (format!("variables.{k}"), v)));
        let provenance = provenance(&mut c, endpoint.kind, server)?;
        let version = match server {
            Some(s) => s.version().to_string(),
            None => provenance.first().map(|(_, v)| v.clone()).unwrap_or_default(),
        };
        Ok(MyTable { kind: endpoint.kind, endpoint, conn_ids: Mutex::new(Vec::new()), version, options, provenance })
    }

    fn engine_clause(&self) -> &'static str {
        match self.kind {
            ServerKind::MariadbMyrocks => "ROCKSDB",
            _ => "InnoDB",
        }
    }

    /// InnoDB: flush every dirty page of the buffer pool (max dirty pages
    /// pct 0 until none is left), then restore the settings.
    fn settle_innodb(&self, c: &mut Conn, timeout: Duration, stop: &dyn Fn() -> bool) -> Result<Vec<String>> {
        let t0 = Instant::now();
        let (pct, lwm): (f64, f64) = c
            .query_first("SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm")?
            .unwrap_or((90.0, 0.0));
        let start_dirty = status_value(c, "Innodb_buffer_pool_pages_dirty")?.unwrap_or(0);
        c.query_drop("SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0")?;
        c.query_drop("SET GLOBAL innodb_max_dirty_pages_pct = 0")?;
        let outcome = loop {
            let left = status_value(c, "Innodb_buffer_pool_pages_dirty")?.unwrap_or(0);
            if left == 0 {
                break format!("flushed all {start_dirty} dirty pages of the buffer pool");
            }
            if t0.elapsed() >= timeout {
                break format!(
                    "{left} dirty pages left after the {:.0} s timeout (--compaction-timeout)",
                    timeout.as_secs_f64()
                );
            }
            if stop() {
                break format!("interrupted with {left} dirty pages left");
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        c.query_drop(format!("SET GLOBAL innodb_max_dirty_pages_pct = {pct}"))?;
        c.query_drop(format!("SET GLOBAL innodb_max_dirty_pages_pct_lwm = {lwm}"))?;
        Ok(vec![outcome])
    }

    /// MyRocks: flush the memtables, then wait until no flush or compaction
    /// is pending and compaction has written nothing for a second.
    fn settle_myrocks(&self, c: &mut Conn, timeout: Duration, stop: &dyn Fn() -> bool) -> Result<Vec<String>> {
        let t0 = Instant::now();
        c.query_drop("SET GLOBAL rocksdb_force_flush_memtable_now = 1")?;
        let pending_sql = "SELECT CAST(COALESCE(SUM(VALUE), 0) AS UNSIGNED) FROM information_schema.ROCKSDB_CFSTATS \
                           WHERE STAT_TYPE IN ('COMPACTION_PENDING', 'MEM_TABLE_FLUSH_PENDING', 'NUM_IMMUTABLE_MEM_TABLE')";
        let start_bytes = status_value(c, "Rocksdb_compact_write_bytes")?.unwrap_or(0);
        let mut last_bytes = start_bytes;
        let mut quiet_since = Instant::now();
        let outcome = loop {
            std::thread::sleep(Duration::from_millis(250));
            let pending: u64 = c.query_first(pending_sql)?.unwrap_or(0);
            let bytes = status_value(c, "Rocksdb_compact_write_bytes")?.unwrap_or(0);
            if bytes != last_bytes || pending > 0 {
                last_bytes = bytes;
                quiet_since = Instant::now();
            } else if quiet_since.elapsed() >= Duration::from_secs(1) {
                break format!(
                    "flushed the memtables; compaction wrote {:.1} MB until none was pending",
                    (bytes.saturating_sub(start_bytes)) as f64 / 1048576.0
                );
            }
            if t0.elapsed() >= timeout {
                break format!(
                    "compaction still busy after the {:.0} s timeout (--compaction-timeout)",
                    timeout.as_secs_f64()
                );
            }
            if stop() {
                break "interrupted while waiting for compaction".to_string();
            }
        };
        Ok(vec![outcome])
    }
}

impl Table for MyTable {
    fn version(&self) -> String {
        self.version.clone()
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        self.options.clone()
    }

    fn provenance(&self) -> Vec<(String, String)> {
        self.provenance.clone()
    }

    fn create_tables(&self, tables: u32) -> Result<()> {
        let mut c = self.endpoint.connect_mysql()?;
        for t in 0..tables {
            let name = table_name(t);
            // On a server the user runs, the plan's check made sure no such
            // table exists: a name clash fails here rather than drop theirs.
            if !self.endpoint.remote {
                c.query_drop(format!("DROP TABLE IF EXISTS {name}"))?;
            }
            c.query_drop(format!(
                "CREATE TABLE {name} (id BIGINT NOT NULL, dateandtime BIGINT NOT NULL, cashregisterid INT NOT NULL, \
                 productid INT NOT NULL, customerid INT NOT NULL, price INT NOT NULL, data VARCHAR(4000) NOT NULL, \
                 PRIMARY KEY (id)) ENGINE={}",
                self.engine_clause()
            ))
            .with_context(|| format!("creating table {name}"))?;
        }
        Ok(())
    }

    fn session(&self) -> Result<Box<dyn TableSession + '_>> {
        let c = self.endpoint.connect_mysql()?;
        let mut ids = self.conn_ids.lock().unwrap_or_else(|e| e.into_inner());
        if ids.len() >= 256 {
            ids.drain(..128);
        }
        ids.push(c.connection_id());
        drop(ids);
        Ok(Box::new(MySession { c, stmts: HashMap::new(), autocommit: true }))
    }

    fn settle(&self, _tables: u32, timeout: Duration, stop: &dyn Fn() -> bool) -> Result<Vec<String>> {
        if self.endpoint.remote {
            // Settling flushes through SET GLOBAL: not on someone else's server.
            return Ok(vec!["none: rumbench changes no global settings of a server it did not start".into()]);
        }
        let mut c = self.endpoint.connect_mysql()?;
        match self.kind {
            ServerKind::MariadbMyrocks => self.settle_myrocks(&mut c, timeout, stop),
            _ => self.settle_innodb(&mut c, timeout, stop),
        }
    }

    fn stats(&self, tables: u32) -> Vec<(String, String)> {
        // rumbench's own tables only (a target database holds others).
        let names = super::own_table_names(tables);
        let r = (|| -> Result<Vec<(String, String)>> {
            let mut c = self.endpoint.connect_mysql()?;
            let rows: Vec<(String, u64, u64, u64)> = c.query(
                "SELECT TABLE_NAME, CAST(DATA_LENGTH AS UNSIGNED), CAST(INDEX_LENGTH AS UNSIGNED), CAST(TABLE_ROWS AS UNSIGNED) \
                 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME",
            )?;
            let mut out = Vec::new();
            for (name, data, index, rows) in
                rows.into_iter().filter(|r| names.iter().any(|n| n.eq_ignore_ascii_case(&r.0)))
            {
                out.push((format!("table.{name}.data_length"), data.to_string()));
                out.push((format!("table.{name}.index_length"), index.to_string()));
                out.push((format!("table.{name}.table_rows_estimate"), rows.to_string()));
            }
            Ok(out)
        })();
        r.unwrap_or_else(|e| vec![("table_stats_error".into(), format!("{e:#}"))])
    }

    fn internals_probe(&self) -> std::result::Result<crate::engine::InternalsProbe<'_>, String> {
        super::server_internals::mariadb(&self.endpoint, self.kind)
    }

    fn server_syncs(&self) -> Option<Result<ServerSyncs>> {
        let counter = match self.kind {
            ServerKind::MariadbMyrocks => "rocksdb_wal_synced",
            // MariaDB 10.8+ has no Innodb_os_log_fsyncs: this one counts every
            // InnoDB fsync, redo log included.
            _ => "Innodb_data_fsyncs",
        };
        Some((|| {
            let mut c = self.endpoint.connect_mysql()?;
            let count = status_value(&mut c, counter)?
                .with_context(|| format!("the server has no status variable {counter}"))?;
            let includes_data_files = self.kind != ServerKind::MariadbMyrocks;
            Ok(ServerSyncs { count, counter: counter.into(), includes_data_files })
        })())
    }

    fn cancel_running(&self) {
        let ids = self.conn_ids.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Ok(mut c) = self.endpoint.connect_mysql() {
            for id in ids {
                // Ids of closed connections give "unknown thread id": ignored.
                let _ = c.query_drop(format!("KILL QUERY {id}"));
            }
        }
    }
}

#[derive(Hash, PartialEq, Eq, Clone, Copy)]
enum StmtKey {
    Insert { table: u32, rows: usize },
    Delete { table: u32 },
    Range { table: u32, index: Index, limit: usize },
    Point { table: u32, ids: usize },
    Count { table: u32 },
}

struct MySession {
    c: MysqlConn,
    stmts: HashMap<StmtKey, Statement>,
    autocommit: bool,
}

type RowTuple = (u64, i64, i32, i32, i32, i32, String);

fn to_row(t: RowTuple) -> Row {
    Row { id: t.0, dateandtime: t.1, cashregisterid: t.2, productid: t.3, customerid: t.4, price: t.5, data: t.6 }
}

impl MySession {
    fn stmt(&mut self, key: StmtKey) -> Result<Statement> {
        if let Some(s) = self.stmts.get(&key) {
            return Ok(s.clone());
        }
        let sql = match key {
            StmtKey::Insert { table, rows } => {
                let values = vec!["(?,?,?,?,?,?,?)"; rows].join(",");
                format!("INSERT INTO {} ({COLUMNS}) VALUES {values}", table_name(table))
            }
            StmtKey::Delete { table } => format!("DELETE FROM {} WHERE id >= ? AND id < ?", table_name(table)),
            StmtKey::Range { table, index, limit } => {
                let cols = index.columns();
                format!(
                    "SELECT {COLUMNS} FROM {} FORCE INDEX ({}) WHERE {} >= ? ORDER BY {} LIMIT {limit}",
                    table_name(table),
                    index.name(),
                    cols[0],
                    cols.join(", ")
                )
            }
            StmtKey::Point { table, ids } => {
                format!("SELECT {COLUMNS} FROM {} WHERE id IN ({})", table_name(table), vec!["?"; ids].join(","))
            }
            StmtKey::Count { table } => format!("SELECT COUNT(*) FROM {}", table_name(table)),
        };
        let s =
            self.c.prep(&sql).with_context(|| format!("preparing {}", sql.chars().take(120).collect::<String>()))?;
        self.stmts.insert(key, s.clone());
        Ok(s)
    }

    fn set_autocommit(&mut self, on: bool) -> Result<()> {
        if self.autocommit != on {
            self.c.query_drop(if on { "SET autocommit = 1" } else { "SET autocommit = 0" })?;
            self.autocommit = on;
        }
        Ok(())
    }
}

impl TableSession for MySession {
    fn insert_rows(&mut self, table: u32, rows: &[Row], delete: Option<Range<u64>>) -> Result<u64> {
        let insert = self.stmt(StmtKey::Insert { table, rows: rows.len() })?;
        let mut values = Vec::with_capacity(rows.len() * 7);
        for r in rows {
            values.push(Value::UInt(r.id));
            values.push(Value::Int(r.dateandtime));
            values.push(Value::Int(r.cashregisterid as i64));
            values.push(Value::Int(r.productid as i64));
            values.push(Value::Int(r.customerid as i64));
            values.push(Value::Int(r.price as i64));
            values.push(Value::Bytes(r.data.as_bytes().to_vec()));
        }
        let params = Params::Positional(values);
        let Some(d) = delete else {
            self.set_autocommit(true)?;
            self.c.exec_drop(&insert, params).context("insert")?;
            return Ok(0);
        };
        let del = self.stmt(StmtKey::Delete { table })?;
        self.set_autocommit(false)?;
        let r = (|| -> Result<u64> {
            self.c.exec_drop(&insert, params).context("insert")?;
            self.c.exec_drop(&del, (d.start, d.end)).context("delete")?;
            let deleted = self.c.affected_rows();
            self.c.query_drop("COMMIT").context("commit")?;
            Ok(deleted)
        })();
        if r.is_err() {
            let _ = self.c.query_drop("ROLLBACK");
        }
        r
    }

    fn create_secondary_indexes(&mut self, table: u32) -> Result<()> {
        self.set_autocommit(true)?;
        let adds: Vec<String> =
            Index::ALL.iter().map(|ix| format!("ADD INDEX {} ({})", ix.name(), ix.columns().join(", "))).collect();
        let sql = format!("ALTER TABLE {} {}", table_name(table), adds.join(", "));
        self.c.query_drop(&sql).with_context(|| sql.clone())?;
        Ok(())
    }

    fn range_query(&mut self, table: u32, index: Index, start: i32, limit: usize, out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        self.set_autocommit(true)?;
        let stmt = self.stmt(StmtKey::Range { table, index, limit })?;
        let rows: Vec<RowTuple> = self.c.exec(&stmt, (start,)).context("range query")?;
        out.extend(rows.into_iter().map(to_row));
        Ok(())
    }

    fn point_query(&mut self, table: u32, ids: &[u64], out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        self.set_autocommit(true)?;
        let stmt = self.stmt(StmtKey::Point { table, ids: ids.len() })?;
        let params = Params::Positional(ids.iter().map(|&i| Value::UInt(i)).collect());
        let rows: Vec<RowTuple> = self.c.exec(&stmt, params).context("point query")?;
        out.extend(rows.into_iter().map(to_row));
        Ok(())
    }

    fn row_count(&mut self, table: u32) -> Result<u64> {
        self.set_autocommit(true)?;
        let stmt = self.stmt(StmtKey::Count { table })?;
        let n: Option<u64> = self.c.exec_first(&stmt, ()).context("count")?;
        Ok(n.unwrap_or(0))
    }
}
