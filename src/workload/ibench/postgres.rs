//! The insert benchmark's tables on PostgreSQL: one connection per client
//! thread, prepared statements (cached per table and batch size), multi-row
//! INSERT ... VALUES with the tail DELETE in the same statement (a
//! data-modifying WITH, so one round trip and one commit). Client threads
//! talk to the server through [`crate::server::pgwire`] (a lean blocking client);
//! setup and statistics queries use the `postgres` crate.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};

use super::table::{ServerSyncs, Table, TableSession};
use super::{table_name, Index, Row};
use crate::backend::servers::Transport;
use crate::server::pgwire::{CancelKey, Columns, Params, PgConn, INT4, INT8, INT8_ARRAY, VARCHAR};
use crate::server::{Endpoint, RunningServer};

const COLUMNS: &str = "id, dateandtime, cashregisterid, productid, customerid, price, data";

fn index_name(table: u32, index: Index) -> String {
    format!("{}_{}", table_name(table), index.name())
}

/// The tables of one PostgreSQL server.
pub struct PgTable {
    endpoint: Endpoint,
    /// Cancel keys of the connections made (the latest ones), for Ctrl-C.
    cancel: Mutex<Vec<CancelKey>>,
    version: String,
    options: Vec<(String, String)>,
    provenance: Vec<(String, String)>,
}

impl PgTable {
    /// The tables in the server `endpoint` reaches: one rumbench started
    /// (`server`), or one the user runs (`endpoint.remote`).
    pub fn new(endpoint: Endpoint, server: Option<&RunningServer>, transport: Transport) -> Result<PgTable> {
        let mut c = endpoint.connect_postgres()?;
        let mut options = super::connection_options(&endpoint, server, transport);
        // Every setting that is not at its built-in default, as the server
        // shows it (current_setting: "512MB", never pg_settings' count of 8kB pages).
        let rows = c.query(
            "SELECT name, current_setting(name), source FROM pg_settings WHERE source NOT IN ('default', 'override') ORDER BY name",
            &[],
        )?;
        for r in rows {
            let (name, value, source): (String, String, String) = (r.get(0), r.get(1), r.get(2));
            options.push((format!("pg_settings.{name}"), format!("{value} ({source})")));
        }
        // How the server was built: assertions, and pg_config's configure
        // line and compiler flags.
        let version: String = match server {
            Some(s) => s.version().to_string(),
            None => c.query_one("SELECT version()", &[])?.get(0),
        };
        let mut provenance = vec![("version".to_string(), version.clone())];
        let assertions: String =
            c.query_one("SELECT setting FROM pg_settings WHERE name = 'debug_assertions'", &[])?.get(0);
        provenance.push(("build.assertions".into(), assertions));
        // pg_config is readable by superusers and pg_read_all_settings only:
        // asked only when this role may, so the server logs no permission error.
        let may_read_pg_config: bool = c
            .query_one("SELECT has_table_privilege('pg_catalog.pg_config', 'SELECT')", &[])
            .map(|r| r.get(0))
            .unwrap_or(false);
        let built = match may_read_pg_config {
            true => c
                .query(
                    "SELECT name, setting FROM pg_config WHERE name IN ('VERSION', 'CONFIGURE', 'CC', 'CFLAGS')",
                    &[],
                )
                .unwrap_or_default(),
            false => {
                provenance.push((
                    "build.pg_config".into(),
                    "not readable by this role (the pg_config view needs a superuser or pg_read_all_settings)".into(),
                ));
                Vec::new()
            }
        };
        for r in built {
            let (name, setting): (String, String) = (r.get(0), r.get(1));
            provenance.push((format!("build.pg_config.{}", name.to_ascii_lowercase()), setting));
        }
        Ok(PgTable { endpoint, cancel: Mutex::new(Vec::new()), version, options, provenance })
    }
}

impl PgTable {
    /// A connection whose running statement Ctrl-C can cancel.
    fn connect_cancellable(&self) -> Result<PgConn> {
        let c = self.endpoint.connect_pgwire()?;
        let mut keys = self.cancel.lock().unwrap_or_else(|e| e.into_inner());
        if keys.len() >= 256 {
            keys.drain(..128);
        }
        keys.push(c.cancel_key());
        Ok(c)
    }
}

impl Table for PgTable {
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
        let mut c = self.endpoint.connect_postgres()?;
        for t in 0..tables {
            let name = table_name(t);
            // On a server the user runs, the plan's check made sure no such
            // table exists: a name clash fails here rather than drop theirs.
            let drop = if self.endpoint.remote { String::new() } else { format!("DROP TABLE IF EXISTS {name}; ") };
            c.batch_execute(&format!(
                "{drop}CREATE TABLE {name} (id bigint PRIMARY KEY, dateandtime bigint NOT NULL, \
                 cashregisterid integer NOT NULL, productid integer NOT NULL, customerid integer NOT NULL, \
                 price integer NOT NULL, data varchar(4000) NOT NULL)"
            ))
            .with_context(|| format!("creating table {name}"))?;
        }
        Ok(())
    }

    fn session(&self) -> Result<Box<dyn TableSession + '_>> {
        Ok(Box::new(PgSession { c: self.connect_cancellable()?, stmts: HashMap::new(), ids: Vec::new() }))
    }

    fn settle(&self, tables: u32, _timeout: Duration, _stop: &dyn Fn() -> bool) -> Result<Vec<String>> {
        let mut c = self.connect_cancellable()?;
        for t in 0..tables {
            c.simple_query(&format!("VACUUM (ANALYZE) {}", table_name(t))).context("VACUUM")?;
        }
        if self.endpoint.remote {
            return Ok(vec![format!(
                "VACUUM (ANALYZE) of {tables} table(s); no CHECKPOINT on a server rumbench did not start"
            )]);
        }
        c.simple_query("CHECKPOINT").context("CHECKPOINT")?;
        Ok(vec![format!("VACUUM (ANALYZE) of {tables} table(s), then CHECKPOINT")])
    }

    fn stats(&self, tables: u32) -> Vec<(String, String)> {
        // rumbench's own tables only (a target database holds others).
        let names = super::own_table_names(tables);
        let r = (|| -> Result<Vec<(String, String)>> {
            let mut c = self.endpoint.connect_postgres()?;
            let mut out = Vec::new();
            let q = "SELECT c.relname::text, pg_relation_size(c.oid), pg_indexes_size(c.oid), pg_total_relation_size(c.oid) \
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE c.relkind = 'r' AND c.relname = ANY($1) AND pg_table_is_visible(c.oid) ORDER BY 1";
            for r in c.query(q, &[&names])? {
                let name: String = r.get(0);
                out.push((format!("table.{name}.heap_bytes"), r.get::<_, i64>(1).to_string()));
                out.push((format!("table.{name}.indexes_bytes"), r.get::<_, i64>(2).to_string()));
                out.push((format!("table.{name}.total_bytes"), r.get::<_, i64>(3).to_string()));
            }
            let q = "SELECT indexrelname::text, pg_relation_size(indexrelid), idx_scan FROM pg_stat_user_indexes WHERE relname = ANY($1) ORDER BY 1";
            for r in c.query(q, &[&names])? {
                let name: String = r.get(0);
                out.push((format!("index.{name}.bytes"), r.get::<_, i64>(1).to_string()));
                out.push((format!("index.{name}.idx_scan"), r.get::<_, i64>(2).to_string()));
            }
            let q = "SELECT relname::text, n_live_tup, n_dead_tup, n_tup_ins, n_tup_del, n_tup_hot_upd, vacuum_count, autovacuum_count, \
                     analyze_count, autoanalyze_count FROM pg_stat_user_tables WHERE relname = ANY($1) ORDER BY 1";
            const NAMES: [&str; 9] = [
                "n_live_tup",
                "n_dead_tup",
                "n_tup_ins",
                "n_tup_del",
                "n_tup_hot_upd",
                "vacuum_count",
                "autovacuum_count",
                "analyze_count",
                "autoanalyze_count",
            ];
            for r in c.query(q, &[&names])? {
                let name: String = r.get(0);
                for (i, n) in NAMES.iter().enumerate() {
                    out.push((format!("pg_stat_user_tables.{name}.{n}"), r.get::<_, i64>(i + 1).to_string()));
                }
            }
            Ok(out)
        })();
        r.unwrap_or_else(|e| vec![("table_stats_error".into(), format!("{e:#}"))])
    }

    fn internals_probe(&self) -> std::result::Result<crate::engine::InternalsProbe<'_>, String> {
        super::server_internals::postgres(&self.endpoint)
    }

    fn server_syncs(&self) -> Option<Result<ServerSyncs>> {
        Some((|| {
            let mut c = self.endpoint.connect_postgres()?;
            let version: i32 = c.query_one("SELECT current_setting('server_version_num')::int", &[])?.get(0);
            if version < 140000 {
                anyhow::bail!(
                    "PostgreSQL {} has no pg_stat_wal (it came in 14), so its WAL syncs cannot be counted",
                    version / 10000
                );
            }
            // Backends report their WAL statistics when they exit (the
            // step's sessions close at its end) and up to a second late
            // otherwise: read until the count holds still. PostgreSQL 14's
            // statistics collector serves a reader a stats file up to 500 ms
            // old, so two reads 250 ms apart could agree on a stale count
            // (0.82 to 0.86 syncs per commit on 3-second steps,
            // bench/results/pg_sysbench_versions-20261207.md): on 14 the
            // reads are 600 ms apart. 15 on keep statistics in shared memory.
            let interval_ms = if version < 150000 { 600 } else { 250 };
            // 18 moved the WAL's syncs from pg_stat_wal to pg_stat_io.
            let (query, counter) = match version {
                v if v < 180000 => ("SELECT wal_sync FROM pg_stat_wal", "pg_stat_wal.wal_sync"),
                _ => (
                    "SELECT coalesce(sum(fsyncs), 0)::bigint FROM pg_stat_io WHERE object = 'wal'",
                    "pg_stat_io.fsyncs (object wal)",
                ),
            };
            let mut last: Option<i64> = None;
            for _ in 0..10 {
                let n: i64 = c.query_one(query, &[]).with_context(|| format!("reading {counter}"))?.get(0);
                if last == Some(n) {
                    break;
                }
                last = Some(n);
                std::thread::sleep(Duration::from_millis(interval_ms));
            }
            let count = last.unwrap_or(0).max(0) as u64;
            Ok(ServerSyncs { count, counter: counter.into(), includes_data_files: false })
        })())
    }

    fn cancel_running(&self) {
        let keys = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for k in keys {
            // Keys of closed connections are ignored by the server.
            let _ = k.cancel();
        }
    }
}

#[derive(Hash, PartialEq, Eq, Clone, Copy)]
enum StmtKey {
    Insert { table: u32, rows: usize, delete: bool },
    Range { table: u32, index: Index, limit: usize },
    Point { table: u32 },
    Count { table: u32 },
}

struct PgSession {
    c: PgConn,
    /// Prepared statements of this connection, by what they do.
    stmts: HashMap<StmtKey, String>,
    ids: Vec<i64>,
}

/// Parameter types of one row of an INSERT, in `COLUMNS` order.
const ROW_TYPES: [u32; 7] = [INT8, INT8, INT4, INT4, INT4, INT4, VARCHAR];

impl PgSession {
    /// Prepare the statement for `key` on first use.
    fn prepare(&mut self, key: StmtKey) -> Result<()> {
        if self.stmts.contains_key(&key) {
            return Ok(());
        }
        let (sql, types): (String, Vec<u32>) = match key {
            StmtKey::Insert { table, rows, delete } => {
                let name = table_name(table);
                let first = if delete { 3 } else { 1 };
                let values: Vec<String> = (0..rows)
                    .map(|r| {
                        let b = first + r * 7;
                        format!("(${},${},${},${},${},${},${})", b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6)
                    })
                    .collect();
                let insert = format!("INSERT INTO {name} ({COLUMNS}) VALUES {}", values.join(","));
                let row_types = ROW_TYPES.iter().copied().cycle().take(rows * 7);
                if delete {
                    (
                        format!(
                            "WITH d AS (DELETE FROM {name} WHERE id >= $1 AND id < $2 RETURNING 1), i AS ({insert}) SELECT count(*) FROM d"
                        ),
                        [INT8, INT8].into_iter().chain(row_types).collect(),
                    )
                } else {
                    (insert, row_types.collect())
                }
            }
            StmtKey::Range { table, index, limit } => {
                let cols = index.columns();
                let sql = format!(
                    "SELECT {COLUMNS} FROM {} WHERE {} >= $1 ORDER BY {} LIMIT {limit}",
                    table_name(table),
                    cols[0],
                    cols.join(", ")
                );
                (sql, vec![INT4])
            }
            StmtKey::Point { table } => {
                (format!("SELECT {COLUMNS} FROM {} WHERE id = ANY($1)", table_name(table)), vec![INT8_ARRAY])
            }
            StmtKey::Count { table } => (format!("SELECT count(*) FROM {}", table_name(table)), vec![]),
        };
        let name = format!("s{}", self.stmts.len());
        self.c
            .prepare(&name, &sql, &types)
            .with_context(|| format!("preparing {}", sql.chars().take(120).collect::<String>()))?;
        self.stmts.insert(key, name);
        Ok(())
    }

    /// Run the prepared statement for `key`, each result row to `on_row`.
    fn run(
        &mut self,
        key: StmtKey,
        params: impl FnOnce(&mut Params),
        on_row: &mut dyn FnMut(&postgres_protocol::message::backend::DataRowBody) -> Result<()>,
    ) -> Result<()> {
        self.prepare(key)?;
        self.c.execute(&self.stmts[&key], params, on_row)
    }
}

/// Decode a row selected as `COLUMNS` (binary format).
fn read_row(r: &postgres_protocol::message::backend::DataRowBody) -> Result<Row> {
    let mut c = Columns::new(r);
    Ok(Row {
        id: c.i64()? as u64,
        dateandtime: c.i64()?,
        cashregisterid: c.i32()?,
        productid: c.i32()?,
        customerid: c.i32()?,
        price: c.i32()?,
        data: c.string()?,
    })
}

impl TableSession for PgSession {
    fn insert_rows(&mut self, table: u32, rows: &[Row], delete: Option<Range<u64>>) -> Result<u64> {
        let key = StmtKey::Insert { table, rows: rows.len(), delete: delete.is_some() };
        let params = |p: &mut Params| {
            if let Some(d) = &delete {
                p.i64(d.start as i64);
                p.i64(d.end as i64);
            }
            for r in rows {
                p.i64(r.id as i64);
                p.i64(r.dateandtime);
                p.i32(r.cashregisterid);
                p.i32(r.productid);
                p.i32(r.customerid);
                p.i32(r.price);
                p.str(&r.data);
            }
        };
        let mut deleted = 0i64;
        let what = if delete.is_some() { "insert and delete" } else { "insert" };
        self.run(key, params, &mut |r| {
            deleted = Columns::new(r).i64()?;
            Ok(())
        })
        .context(what)?;
        Ok(deleted as u64)
    }

    fn create_secondary_indexes(&mut self, table: u32) -> Result<()> {
        for ix in Index::ALL {
            let sql = format!(
                "CREATE INDEX {} ON {} ({})",
                index_name(table, ix),
                table_name(table),
                ix.columns().join(", ")
            );
            self.c.simple_query(&sql).with_context(|| sql.clone())?;
        }
        Ok(())
    }

    fn range_query(&mut self, table: u32, index: Index, start: i32, limit: usize, out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        self.run(StmtKey::Range { table, index, limit }, |p| p.i32(start), &mut |r| {
            out.push(read_row(r)?);
            Ok(())
        })
        .context("range query")
    }

    fn point_query(&mut self, table: u32, ids: &[u64], out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        let mut id_params = std::mem::take(&mut self.ids);
        id_params.clear();
        id_params.extend(ids.iter().map(|&i| i as i64));
        let r = self.run(StmtKey::Point { table }, |p| p.i64_array(&id_params), &mut |r| {
            out.push(read_row(r)?);
            Ok(())
        });
        self.ids = id_params;
        r.context("point query")
    }

    fn row_count(&mut self, table: u32) -> Result<u64> {
        let mut n = 0i64;
        self.run(StmtKey::Count { table }, |_| {}, &mut |r| {
            n = Columns::new(r).i64()?;
            Ok(())
        })
        .context("count")?;
        Ok(n as u64)
    }
}
