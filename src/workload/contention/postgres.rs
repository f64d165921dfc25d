//! The contention steps on PostgreSQL: hot tables hot1.. (id BIGINT PRIMARY
//! KEY, counter BIGINT, pad CHAR(92)) updated with `UPDATE hotN SET counter
//! = counter + 1 WHERE id = 1` (autocommit, prepared); randomtransaction as
//! BEGIN, per set SELECT ... FOR UPDATE and UPDATE, COMMIT (READ COMMITTED).
//! Serialization failures, deadlocks and lock timeouts are conflicts.

use anyhow::{Context, Result};

use super::{hot_table, Session, Store, SETS_TABLE};
use crate::engine::TxnEnd;
use crate::server::pgwire::{Columns, PgConn, INT4, INT8};
use crate::server::Endpoint;

pub struct PgStore {
    endpoint: Endpoint,
    /// Hot tables the sessions prepare their UPDATE for.
    tables: u32,
    /// Whether the sessions prepare randomtransaction's statements.
    sets: bool,
}

impl PgStore {
    pub fn new(endpoint: Endpoint, tables: u32, sets: bool) -> PgStore {
        PgStore { endpoint, tables, sets }
    }
}

/// SQLSTATEs a retry may cure: serialization_failure, deadlock_detected, lock_not_available.
fn is_conflict(e: &anyhow::Error) -> bool {
    let text = format!("{e:#}");
    ["SQLSTATE 40001", "SQLSTATE 40P01", "SQLSTATE 55P03"].iter().any(|c| text.contains(c))
}

impl Store for PgStore {
    fn create_hot(&self, tables: u32, rows: u64) -> Result<()> {
        let mut c = self.endpoint.connect_pgwire()?;
        for t in 0..tables {
            let name = hot_table(t);
            if !self.endpoint.remote {
                c.simple_query(&format!("DROP TABLE IF EXISTS {name}"))?;
            }
            c.simple_query(&format!(
                "CREATE TABLE {name} (id BIGINT PRIMARY KEY, counter BIGINT NOT NULL, pad CHAR(92) NOT NULL)"
            ))
            .with_context(|| format!("creating {name}"))?;
            c.simple_query(&format!("INSERT INTO {name} SELECT g, 0, 'x' FROM generate_series(1, {rows}) g"))
                .with_context(|| format!("loading {name}"))?;
            c.simple_query(&format!("VACUUM ANALYZE {name}"))?;
        }
        Ok(())
    }

    fn create_sets(&self, sets: u32, keys: u64) -> Result<()> {
        let mut c = self.endpoint.connect_pgwire()?;
        if !self.endpoint.remote {
            c.simple_query(&format!("DROP TABLE IF EXISTS {SETS_TABLE}"))?;
        }
        c.simple_query(&format!(
            "CREATE TABLE {SETS_TABLE} (s INT NOT NULL, k BIGINT NOT NULL, v BIGINT NOT NULL, PRIMARY KEY (s, k))"
        ))?;
        c.simple_query(&format!(
            "INSERT INTO {SETS_TABLE} SELECT s, k, 0 FROM generate_series(0, {}) s, generate_series(0, {}) k",
            sets.saturating_sub(1),
            keys.saturating_sub(1)
        ))
        .context("loading the sets")?;
        c.simple_query(&format!("VACUUM ANALYZE {SETS_TABLE}"))
    }

    fn shared(&self) -> bool {
        self.endpoint.remote
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        let mut c = self.endpoint.connect_pgwire()?;
        for t in 0..self.tables {
            let name = hot_table(t);
            c.prepare(&format!("upd{t}"), &format!("UPDATE {name} SET counter = counter + 1 WHERE id = 1"), &[])?;
            c.prepare(&format!("get{t}"), &format!("SELECT counter FROM {name} WHERE id = 1"), &[])?;
        }
        if self.sets {
            c.prepare(
                "lock",
                &format!("SELECT v FROM {SETS_TABLE} WHERE s = $1 AND k = $2 FOR UPDATE"),
                &[INT4, INT8],
            )?;
            c.prepare("set", &format!("UPDATE {SETS_TABLE} SET v = $3 WHERE s = $1 AND k = $2"), &[INT4, INT8, INT8])?;
            c.prepare(
                "sum",
                &format!("SELECT COALESCE(SUM(v), 0)::BIGINT FROM {SETS_TABLE} WHERE s = $1 AND k < $2"),
                &[INT4, INT8],
            )?;
        }
        Ok(Box::new(PgSession { c, names: (0..self.tables).map(|t| (format!("upd{t}"), format!("get{t}"))).collect() }))
    }
}

struct PgSession {
    c: PgConn,
    names: Vec<(String, String)>,
}

impl PgSession {
    fn transfer_in_txn(&mut self, keys: &[u64], increment: i64) -> Result<()> {
        self.c.simple_query("BEGIN")?;
        for (set, &k) in keys.iter().enumerate() {
            let mut old = None;
            self.c.execute(
                "lock",
                |p| {
                    p.i32(set as i32);
                    p.i64(k as i64);
                },
                &mut |r| {
                    old = Some(Columns::new(r).i64()?);
                    Ok(())
                },
            )?;
            let old = old.with_context(|| format!("set {set} has no key {k}"))?;
            self.c.execute(
                "set",
                |p| {
                    p.i32(set as i32);
                    p.i64(k as i64);
                    p.i64(old + increment);
                },
                &mut |_| Ok(()),
            )?;
        }
        self.c.simple_query("COMMIT")
    }
}

impl Session for PgSession {
    fn hot_update(&mut self, table: u32) -> Result<TxnEnd> {
        match self.c.execute(&self.names[table as usize].0, |_| {}, &mut |_| Ok(())) {
            Ok(()) => Ok(TxnEnd::Committed),
            Err(e) if is_conflict(&e) => Ok(TxnEnd::Conflict),
            Err(e) => Err(e),
        }
    }

    fn hot_counter(&mut self, table: u32) -> Result<i64> {
        let mut v = None;
        self.c.execute(&self.names[table as usize].1, |_| {}, &mut |r| {
            v = Some(Columns::new(r).i64()?);
            Ok(())
        })?;
        v.with_context(|| format!("{} has no row 1", hot_table(table)))
    }

    fn transfer(&mut self, keys: &[u64], increment: i64) -> Result<TxnEnd> {
        match self.transfer_in_txn(keys, increment) {
            Ok(()) => Ok(TxnEnd::Committed),
            Err(e) => {
                // Ends the failed transaction (a no-op outside one).
                self.c.simple_query("ROLLBACK")?;
                if is_conflict(&e) {
                    Ok(TxnEnd::Conflict)
                } else {
                    Err(e)
                }
            }
        }
    }

    fn set_sum(&mut self, set: u32, keys: u64) -> Result<i64> {
        let mut v = 0;
        self.c.execute(
            "sum",
            |p| {
                p.i32(set as i32);
                p.i64(keys as i64);
            },
            &mut |r| {
                v = Columns::new(r).i64()?;
                Ok(())
            },
        )?;
        Ok(v)
    }
}
