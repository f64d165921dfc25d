//! YCSB on PostgreSQL, as YCSB's JDBC binding runs it: table usertable
//! (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0.. TEXT), prepared statements,
//! one connection per client thread (through the lean client in
//! `crate::server::pgwire`), scans ORDER BY the key.

use anyhow::{Context, Result};

use super::{Store, StoreSession, TABLE};
use crate::server::pgwire::{PgConn, INT8, TEXT, VARCHAR};
use crate::server::Endpoint;

pub struct PgStore {
    endpoint: Endpoint,
    field_count: usize,
}

impl PgStore {
    pub fn new(endpoint: Endpoint, field_count: usize) -> PgStore {
        PgStore { endpoint, field_count }
    }

    fn connect(&self) -> Result<PgConn> {
        self.endpoint.connect_pgwire()
    }
}

fn field_list(n: usize) -> String {
    (0..n).map(|i| format!("FIELD{i}")).collect::<Vec<_>>().join(", ")
}

impl Store for PgStore {
    fn create(&self) -> Result<()> {
        let mut c = self.connect()?;
        let fields: Vec<String> = (0..self.field_count).map(|i| format!("FIELD{i} TEXT")).collect();
        // On a server the user runs, the plan's check made sure no such
        // table exists: a name clash fails here rather than drop theirs.
        if !self.endpoint.remote {
            c.simple_query(&format!("DROP TABLE IF EXISTS {TABLE}"))?;
        }
        c.simple_query(&format!("CREATE TABLE {TABLE} (YCSB_KEY VARCHAR(255) PRIMARY KEY, {})", fields.join(", ")))
            .context("creating the YCSB table")
    }

    fn columns(&self) -> Result<Option<Vec<String>>> {
        let mut c = self.endpoint.connect_postgres()?;
        let sql = "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position";
        Ok(Some(c.query(sql, &[&TABLE])?.iter().map(|r| r.get(0)).collect()))
    }

    fn place(&self) -> String {
        self.endpoint.url()
    }

    fn shared(&self) -> bool {
        self.endpoint.remote
    }

    fn session(&self) -> Result<Box<dyn StoreSession + '_>> {
        let mut c = self.connect()?;
        let n = self.field_count;
        let values: Vec<String> = (1..=n + 1).map(|i| format!("${i}")).collect();
        let mut types = vec![VARCHAR];
        types.extend(std::iter::repeat_n(TEXT, n));
        c.prepare(
            "ins",
            &format!("INSERT INTO {TABLE} (YCSB_KEY, {}) VALUES ({})", field_list(n), values.join(", ")),
            &types,
        )?;
        c.prepare("read", &format!("SELECT * FROM {TABLE} WHERE YCSB_KEY = $1"), &[VARCHAR])?;
        c.prepare(
            "scan",
            &format!("SELECT * FROM {TABLE} WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2"),
            &[VARCHAR, INT8],
        )?;
        for i in 0..n {
            c.prepare(
                &format!("upd{i}"),
                &format!("UPDATE {TABLE} SET FIELD{i} = $1 WHERE YCSB_KEY = $2"),
                &[TEXT, VARCHAR],
            )?;
        }
        let sets: Vec<String> = (0..n).map(|i| format!("FIELD{i} = ${}", i + 1)).collect();
        let mut types = vec![TEXT; n];
        types.push(VARCHAR);
        c.prepare("upd_all", &format!("UPDATE {TABLE} SET {} WHERE YCSB_KEY = ${}", sets.join(", "), n + 1), &types)?;
        let names = (0..n).map(|i| format!("upd{i}")).collect();
        Ok(Box::new(PgSession { c, field_count: n, update_names: names }))
    }
}

struct PgSession {
    c: PgConn,
    field_count: usize,
    update_names: Vec<String>,
}

/// The generated keys and fields are ASCII.
fn text(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).context("YCSB keys and fields are text")
}

impl StoreSession for PgSession {
    fn insert(&mut self, key: &[u8], record: &[u8]) -> Result<()> {
        let key = text(key)?;
        let record = text(record)?;
        let len = record.len() / self.field_count;
        self.c.execute(
            "ins",
            |p| {
                p.str(key);
                for i in 0..self.field_count {
                    p.str(&record[i * len..(i + 1) * len]);
                }
            },
            &mut |_| Ok(()),
        )
    }

    fn read(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let key = text(key)?;
        let mut rows = 0;
        self.c.execute("read", |p| p.str(key), &mut |r| {
            rows += 1;
            std::hint::black_box(r.buffer());
            Ok(())
        })?;
        Ok(rows > 0)
    }

    fn update(&mut self, key: &[u8], fields: &[(usize, &[u8])]) -> Result<bool> {
        let key = text(key)?;
        if fields.len() == 1 {
            let (i, v) = fields[0];
            let v = text(v)?;
            self.c.execute(
                &self.update_names[i],
                |p| {
                    p.str(v);
                    p.str(key);
                },
                &mut |_| Ok(()),
            )?;
        } else {
            let vs: Vec<&str> = fields.iter().map(|(_, v)| text(v)).collect::<Result<_>>()?;
            self.c.execute(
                "upd_all",
                |p| {
                    for v in &vs {
                        p.str(v);
                    }
                    p.str(key);
                },
                &mut |_| Ok(()),
            )?;
        }
        Ok(self.c.affected_rows() > 0)
    }

    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
        let start = text(start)?;
        let mut rows = 0;
        self.c.execute(
            "scan",
            |p| {
                p.str(start);
                p.i64(count as i64);
            },
            &mut |r| {
                rows += 1;
                std::hint::black_box(r.buffer());
                Ok(())
            },
        )?;
        Ok(rows)
    }
}
