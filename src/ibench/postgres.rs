//! The insert benchmark's tables on PostgreSQL: one connection per client
//! thread, prepared statements (cached per table and batch size), multi-row
//! INSERT ... VALUES with the tail DELETE in the same statement (a
//! data-modifying WITH, so one round trip and one commit).

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use postgres::types::ToSql;
use postgres::{CancelToken, Client, NoTls, Statement};

use super::table::{Table, TableSession};
use super::servers::Transport;
use super::{table_name, Index, Row};
use crate::server::{RunningServer, DB_NAME};

const COLUMNS: &str = "id, dateandtime, cashregisterid, productid, customerid, price, data";

/// Where and how to connect.
#[derive(Clone)]
struct Target {
    port: u16,
    /// The directory of the server's Unix socket, when connecting through it.
    socket_dir: Option<PathBuf>,
}

fn connect(t: &Target) -> Result<Client> {
    let mut cfg = postgres::Config::new();
    match &t.socket_dir {
        Some(dir) => cfg.host_path(dir),
        None => cfg.host("127.0.0.1"),
    };
    cfg.port(t.port).user("postgres").dbname(DB_NAME).connect_timeout(Duration::from_secs(10)).connect(NoTls).with_context(|| {
        let how = t.socket_dir.as_ref().map(|d| format!("socket in {}", d.display())).unwrap_or_else(|| "127.0.0.1".into());
        format!("cannot connect to postgres at {how}:{}/{DB_NAME}", t.port)
    })
}

fn index_name(table: u32, index: Index) -> String {
    format!("{}_{}", table_name(table), index.name())
}

/// The tables of one PostgreSQL server.
pub struct PgTable {
    target: Target,
    /// Cancel tokens of the connections made (the latest ones), for Ctrl-C.
    cancel: Mutex<Vec<CancelToken>>,
    version: String,
    options: Vec<(String, String)>,
}

impl PgTable {
    pub fn new(server: &RunningServer, transport: Transport) -> Result<PgTable> {
        let target = Target {
            port: server.port(),
            socket_dir: match transport {
                Transport::Unix => server.socket_path().parent().map(|p| p.to_path_buf()),
                Transport::Tcp => None,
            },
        };
        let mut c = connect(&target)?;
        let mut options: Vec<(String, String)> =
            server.managed_settings().into_iter().map(|(k, v)| (format!("managed.{k}"), v)).collect();
        options.push(("client.connect".into(), format!("{transport:?}").to_lowercase()));
        // Every setting that is not at its built-in default, as the server sees it.
        let rows = c.query(
            "SELECT name, setting, COALESCE(unit, ''), source FROM pg_settings WHERE source NOT IN ('default', 'override') ORDER BY name",
            &[],
        )?;
        for r in rows {
            let (name, setting, unit, source): (String, String, String, String) = (r.get(0), r.get(1), r.get(2), r.get(3));
            options.push((format!("pg_settings.{name}"), format!("{setting}{unit} ({source})")));
        }
        Ok(PgTable { target, cancel: Mutex::new(Vec::new()), version: server.version().to_string(), options })
    }
}

impl PgTable {
    /// A connection whose running statement Ctrl-C can cancel.
    fn connect_cancellable(&self) -> Result<Client> {
        let c = connect(&self.target)?;
        let mut tokens = self.cancel.lock().unwrap_or_else(|e| e.into_inner());
        if tokens.len() >= 256 {
            tokens.drain(..128);
        }
        tokens.push(c.cancel_token());
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

    fn create_tables(&self, tables: u32) -> Result<()> {
        let mut c = connect(&self.target)?;
        for t in 0..tables {
            let name = table_name(t);
            c.batch_execute(&format!(
                "DROP TABLE IF EXISTS {name}; CREATE TABLE {name} (id bigint PRIMARY KEY, dateandtime bigint NOT NULL, \
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
            c.batch_execute(&format!("VACUUM (ANALYZE) {}", table_name(t))).context("VACUUM")?;
        }
        c.batch_execute("CHECKPOINT").context("CHECKPOINT")?;
        Ok(vec![format!("VACUUM (ANALYZE) of {tables} table(s), then CHECKPOINT")])
    }

    fn stats(&self, _tables: u32) -> Vec<(String, String)> {
        let r = (|| -> Result<Vec<(String, String)>> {
            let mut c = connect(&self.target)?;
            let mut out = Vec::new();
            let q = "SELECT c.relname::text, pg_relation_size(c.oid), pg_indexes_size(c.oid), pg_total_relation_size(c.oid) \
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1";
            for r in c.query(q, &[])? {
                let name: String = r.get(0);
                out.push((format!("table.{name}.heap_bytes"), r.get::<_, i64>(1).to_string()));
                out.push((format!("table.{name}.indexes_bytes"), r.get::<_, i64>(2).to_string()));
                out.push((format!("table.{name}.total_bytes"), r.get::<_, i64>(3).to_string()));
            }
            for r in c.query("SELECT indexrelname::text, pg_relation_size(indexrelid), idx_scan FROM pg_stat_user_indexes ORDER BY 1", &[])? {
                let name: String = r.get(0);
                out.push((format!("index.{name}.bytes"), r.get::<_, i64>(1).to_string()));
                out.push((format!("index.{name}.idx_scan"), r.get::<_, i64>(2).to_string()));
            }
            let q = "SELECT relname::text, n_live_tup, n_dead_tup, n_tup_ins, n_tup_del, n_tup_hot_upd, vacuum_count, autovacuum_count, \
                     analyze_count, autoanalyze_count FROM pg_stat_user_tables ORDER BY 1";
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
            for r in c.query(q, &[])? {
                let name: String = r.get(0);
                for (i, n) in NAMES.iter().enumerate() {
                    out.push((format!("pg_stat_user_tables.{name}.{n}"), r.get::<_, i64>(i + 1).to_string()));
                }
            }
            Ok(out)
        })();
        r.unwrap_or_else(|e| vec![("table_stats_error".into(), format!("{e:#}"))])
    }

    fn cancel_running(&self) {
        let tokens = self.cancel.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for t in tokens {
            // Tokens of closed connections are ignored by the server.
            let _ = t.cancel_query(NoTls);
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
    c: Client,
    stmts: HashMap<StmtKey, Statement>,
    ids: Vec<i64>,
}

impl PgSession {
    fn stmt(&mut self, key: StmtKey) -> Result<Statement> {
        if let Some(s) = self.stmts.get(&key) {
            return Ok(s.clone());
        }
        let sql = match key {
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
                if delete {
                    format!(
                        "WITH d AS (DELETE FROM {name} WHERE id >= $1 AND id < $2 RETURNING 1), i AS ({insert}) SELECT count(*) FROM d"
                    )
                } else {
                    insert
                }
            }
            StmtKey::Range { table, index, limit } => {
                let cols = index.columns();
                format!(
                    "SELECT {COLUMNS} FROM {} WHERE {} >= $1 ORDER BY {} LIMIT {limit}",
                    table_name(table),
                    cols[0],
                    cols.join(", ")
                )
            }
            StmtKey::Point { table } => format!("SELECT {COLUMNS} FROM {} WHERE id = ANY($1)", table_name(table)),
            StmtKey::Count { table } => format!("SELECT count(*) FROM {}", table_name(table)),
        };
        let s = self.c.prepare(&sql).with_context(|| format!("preparing {}", sql.chars().take(120).collect::<String>()))?;
        self.stmts.insert(key, s.clone());
        Ok(s)
    }
}

fn read_rows(rows: Vec<postgres::Row>, out: &mut Vec<Row>) {
    for r in rows {
        out.push(Row {
            id: r.get::<_, i64>(0) as u64,
            dateandtime: r.get(1),
            cashregisterid: r.get(2),
            productid: r.get(3),
            customerid: r.get(4),
            price: r.get(5),
            data: r.get(6),
        });
    }
}

impl TableSession for PgSession {
    fn insert_rows(&mut self, table: u32, rows: &[Row], delete: Option<Range<u64>>) -> Result<u64> {
        let stmt = self.stmt(StmtKey::Insert { table, rows: rows.len(), delete: delete.is_some() })?;
        self.ids.clear();
        if let Some(d) = &delete {
            self.ids.push(d.start as i64);
            self.ids.push(d.end as i64);
        }
        self.ids.extend(rows.iter().map(|r| r.id as i64));
        let first = if delete.is_some() { 2 } else { 0 };
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(first + rows.len() * 7);
        for v in &self.ids[..first] {
            params.push(v);
        }
        for (row, id) in rows.iter().zip(&self.ids[first..]) {
            params.extend_from_slice(&[
                id as &(dyn ToSql + Sync),
                &row.dateandtime,
                &row.cashregisterid,
                &row.productid,
                &row.customerid,
                &row.price,
                &row.data,
            ]);
        }
        if delete.is_some() {
            let deleted: i64 = self.c.query_one(&stmt, &params).context("insert and delete")?.get(0);
            Ok(deleted as u64)
        } else {
            self.c.execute(&stmt, &params).context("insert")?;
            Ok(0)
        }
    }

    fn create_secondary_indexes(&mut self, table: u32) -> Result<()> {
        for ix in Index::ALL {
            let sql = format!("CREATE INDEX {} ON {} ({})", index_name(table, ix), table_name(table), ix.columns().join(", "));
            self.c.batch_execute(&sql).with_context(|| sql.clone())?;
        }
        Ok(())
    }

    fn range_query(&mut self, table: u32, index: Index, start: i32, limit: usize, out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        let stmt = self.stmt(StmtKey::Range { table, index, limit })?;
        let rows = self.c.query(&stmt, &[&start]).context("range query")?;
        read_rows(rows, out);
        Ok(())
    }

    fn point_query(&mut self, table: u32, ids: &[u64], out: &mut Vec<Row>) -> Result<()> {
        out.clear();
        let stmt = self.stmt(StmtKey::Point { table })?;
        self.ids.clear();
        self.ids.extend(ids.iter().map(|&i| i as i64));
        let rows = self.c.query(&stmt, &[&self.ids]).context("point query")?;
        read_rows(rows, out);
        Ok(())
    }

    fn row_count(&mut self, table: u32) -> Result<u64> {
        let stmt = self.stmt(StmtKey::Count { table })?;
        let n: i64 = self.c.query_one(&stmt, &[]).context("count")?.get(0);
        Ok(n as u64)
    }
}
