//! The contention steps on MariaDB (InnoDB or MyRocks, the server's default
//! engine): the same tables and statements as on PostgreSQL, server-side
//! prepared; loaded from the Sequence engine (seq_1_to_N). Deadlocks (1213)
//! and lock wait timeouts (1205) are conflicts.

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use mysql::Statement;

use super::{hot_table, Session, Store, SETS_TABLE};
use crate::engine::TxnEnd;
use crate::server::endpoint::MysqlConn;
use crate::server::Endpoint;

pub struct MyStore {
    endpoint: Endpoint,
    /// Hot tables the sessions prepare their UPDATE for.
    tables: u32,
    /// Whether the sessions prepare randomtransaction's statements.
    sets: bool,
}

impl MyStore {
    pub fn new(endpoint: Endpoint, tables: u32, sets: bool) -> MyStore {
        MyStore { endpoint, tables, sets }
    }
}

fn is_conflict(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1213 || m.code == 1205)
}

impl Store for MyStore {
    fn create_hot(&self, tables: u32, rows: u64) -> Result<()> {
        let mut c = self.endpoint.connect_mysql()?;
        for t in 0..tables {
            let name = hot_table(t);
            if !self.endpoint.remote {
                c.query_drop(format!("DROP TABLE IF EXISTS {name}"))?;
            }
            c.query_drop(format!(
                "CREATE TABLE {name} (id BIGINT PRIMARY KEY, counter BIGINT NOT NULL, pad CHAR(92) NOT NULL)"
            ))
            .with_context(|| format!("creating {name}"))?;
            c.query_drop(format!("INSERT INTO {name} SELECT seq, 0, 'x' FROM seq_1_to_{rows}"))
                .with_context(|| format!("loading {name}"))?;
        }
        Ok(())
    }

    fn create_sets(&self, sets: u32, keys: u64) -> Result<()> {
        let mut c = self.endpoint.connect_mysql()?;
        if !self.endpoint.remote {
            c.query_drop(format!("DROP TABLE IF EXISTS {SETS_TABLE}"))?;
        }
        c.query_drop(format!(
            "CREATE TABLE {SETS_TABLE} (s INT NOT NULL, k BIGINT NOT NULL, v BIGINT NOT NULL, PRIMARY KEY (s, k))"
        ))?;
        c.query_drop(format!(
            "INSERT INTO {SETS_TABLE} SELECT a.seq, b.seq, 0 FROM seq_0_to_{} a, seq_0_to_{} b",
            sets.saturating_sub(1),
            keys.saturating_sub(1)
        ))
        .context("loading the sets")?;
        Ok(())
    }

    fn shared(&self) -> bool {
        self.endpoint.remote
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        let mut c = self.endpoint.connect_mysql()?;
        let mut updates = Vec::new();
        let mut gets = Vec::new();
        for t in 0..self.tables {
            let name = hot_table(t);
            updates.push(c.prep(format!("UPDATE {name} SET counter = counter + 1 WHERE id = 1"))?);
            gets.push(c.prep(format!("SELECT counter FROM {name} WHERE id = 1"))?);
        }
        let sets = if self.sets {
            Some(SetStatements {
                lock: c.prep(format!("SELECT v FROM {SETS_TABLE} WHERE s = ? AND k = ? FOR UPDATE"))?,
                set: c.prep(format!("UPDATE {SETS_TABLE} SET v = ? WHERE s = ? AND k = ?"))?,
                sum: c.prep(format!(
                    "SELECT CAST(COALESCE(SUM(v), 0) AS SIGNED) FROM {SETS_TABLE} WHERE s = ? AND k < ?"
                ))?,
            })
        } else {
            None
        };
        Ok(Box::new(MySession { c, updates, gets, sets }))
    }
}

struct MySession {
    c: MysqlConn,
    updates: Vec<Statement>,
    gets: Vec<Statement>,
    sets: Option<SetStatements>,
}

struct SetStatements {
    lock: Statement,
    set: Statement,
    sum: Statement,
}

impl MySession {
    fn transfer_in_txn(&mut self, keys: &[u64], increment: i64) -> Result<(), mysql::Error> {
        let st = self.sets.as_ref().expect("prepared for randomtransaction");
        self.c.query_drop("BEGIN")?;
        for (set, &k) in keys.iter().enumerate() {
            let old: Option<i64> = self.c.exec_first(&st.lock, (set as i32, k))?;
            let old = old.unwrap_or(0);
            self.c.exec_drop(&st.set, (old + increment, set as i32, k))?;
        }
        self.c.query_drop("COMMIT")
    }
}

impl Session for MySession {
    fn hot_update(&mut self, table: u32) -> Result<TxnEnd> {
        match self.c.exec_drop(&self.updates[table as usize], ()) {
            Ok(()) => Ok(TxnEnd::Committed),
            Err(e) if is_conflict(&e) => Ok(TxnEnd::Conflict),
            Err(e) => Err(e.into()),
        }
    }

    fn hot_counter(&mut self, table: u32) -> Result<i64> {
        let v: Option<i64> = self.c.exec_first(&self.gets[table as usize], ())?;
        v.with_context(|| format!("{} has no row 1", hot_table(table)))
    }

    fn transfer(&mut self, keys: &[u64], increment: i64) -> Result<TxnEnd> {
        match self.transfer_in_txn(keys, increment) {
            Ok(()) => Ok(TxnEnd::Committed),
            Err(e) => {
                self.c.query_drop("ROLLBACK")?;
                if is_conflict(&e) {
                    Ok(TxnEnd::Conflict)
                } else {
                    Err(e.into())
                }
            }
        }
    }

    fn set_sum(&mut self, set: u32, keys: u64) -> Result<i64> {
        let st = self.sets.as_ref().context("randomtransaction's statements were not prepared")?;
        let v: Option<i64> = self.c.exec_first(&st.sum, (set as i32, keys))?;
        Ok(v.unwrap_or(0))
    }
}
