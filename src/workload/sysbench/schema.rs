//! The tables sysbench's prepare makes (oltp_common.lua's create_table),
//! made the same way: CREATE TABLE sbtestN (id, k, c, pad; the id an
//! AUTO_INCREMENT or SERIAL primary key), its rows in multi-row INSERTs of
//! up to 512 KB (sysbench's bulk insert), k uniform in 1..=table-size, c
//! and pad from sysbench's templates, then CREATE INDEX k_N ON sbtestN(k).
//! Tables load in parallel, one per client thread, as prepare's do.

use std::fmt::Write;

use anyhow::{Context, Result};

use super::rand::{self, C_TEMPLATE, PAD_TEMPLATE};
use super::table_name;
use crate::datagen::rng::stream_seed;
use crate::datagen::Rng;
use crate::workload::sql::{Dialect, SqlStore};

/// sysbench's BULK_PACKET_SIZE: a multi-row INSERT is sent before it would pass this.
const BULK_PACKET_SIZE: usize = 512 * 1024;

/// oltp_common.lua's CREATE TABLE for this dialect (`engine`: MySQL's
/// --mysql-storage-engine).
pub fn create_table_sql(dialect: Dialect, t: u32, engine: &str) -> String {
    let id = match dialect {
        Dialect::Mysql => "INTEGER NOT NULL AUTO_INCREMENT",
        Dialect::Postgres => "SERIAL",
    };
    let engine_def = match dialect {
        Dialect::Mysql => format!("/*! ENGINE = {engine} */"),
        Dialect::Postgres => String::new(),
    };
    // create_table_options is empty: the format's last "%s" leaves a space.
    format!(
        "CREATE TABLE sbtest{t}(\n  id {id},\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) {engine_def} "
    )
}

/// Whether table `t` is there (its rows counted), and how many rows it holds.
pub fn rows_in(store: &dyn SqlStore, t: u32) -> Result<Option<i64>> {
    let mut s = store.session()?;
    Ok(s.query_i64(&format!("SELECT COUNT(*) FROM {}", table_name(t))).ok().flatten())
}

/// Create and load tables `tables` (1-based numbers) of `size` rows, each
/// table on its own connection, `parallel` at a time.
pub fn prepare(
    store: &dyn SqlStore,
    tables: &[u32],
    size: u64,
    engine: &str,
    seed: u64,
    parallel: usize,
) -> Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..parallel.clamp(1, tables.len().max(1)))
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&t) = tables.get(i) else { return Ok(()) };
                        if crate::driver::stop::stop_requested() {
                            anyhow::bail!("{}", crate::driver::stop::interrupted_text());
                        }
                        load_table(store, t, size, engine, seed)
                            .with_context(|| format!("preparing {}", table_name(t)))?;
                    }
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a loader panicked"))))
    })
}

fn load_table(store: &dyn SqlStore, t: u32, size: u64, engine: &str, seed: u64) -> Result<()> {
    let mut s = store.session()?;
    let dialect = store.dialect();
    if !store.remote() {
        s.query(&format!("DROP TABLE IF EXISTS {}", table_name(t)))?;
    }
    s.query(&create_table_sql(dialect, t, engine))?;
    let mut rng = Rng::new(stream_seed(seed, &[t as u64, 0x5b5b]));
    let head = format!("INSERT INTO {}(k, c, pad) VALUES", table_name(t));
    let mut sql = String::with_capacity(BULK_PACKET_SIZE);
    sql.push_str(&head);
    let (mut c, mut pad, mut row) = (String::new(), String::new(), String::new());
    let mut in_batch = 0u64;
    for _ in 0..size {
        rand::string_into(&mut rng, C_TEMPLATE, &mut c);
        rand::string_into(&mut rng, PAD_TEMPLATE, &mut pad);
        row.clear();
        let _ = write!(row, "({}, '{c}', '{pad}')", rand::uniform(&mut rng, 1, size));
        if in_batch > 0 && sql.len() + row.len() + 2 > BULK_PACKET_SIZE {
            s.query(&sql)?;
            sql.truncate(head.len());
            in_batch = 0;
        }
        if in_batch > 0 {
            sql.push(',');
        }
        sql.push_str(&row);
        in_batch += 1;
        if crate::driver::stop::stop_requested() {
            anyhow::bail!("{}", crate::driver::stop::interrupted_text());
        }
    }
    if in_batch > 0 {
        s.query(&sql)?;
    }
    s.query(&format!("CREATE INDEX k_{t} ON {}(k)", table_name(t)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_table_is_sysbenchs() {
        // As MariaDB's general log shows sysbench 1.0.20's (tests/fixtures/sysbench).
        assert_eq!(
            create_table_sql(Dialect::Mysql, 1, "innodb"),
            "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */ "
        );
        assert!(create_table_sql(Dialect::Postgres, 2, "").starts_with("CREATE TABLE sbtest2(\n  id SERIAL,\n"));
    }
}
