//! YCSB on MariaDB (InnoDB or MyRocks), as YCSB's JDBC binding runs it:
//! table usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0.. TEXT) in the
//! server's default engine, server-side prepared statements, one connection
//! per client thread, scans ORDER BY the key.

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use mysql::{Statement, Value};

use super::{Store, StoreSession, TABLE};
use crate::server::endpoint::MysqlConn;
use crate::server::Endpoint;

pub struct MyStore {
    endpoint: Endpoint,
    field_count: usize,
}

impl MyStore {
    pub fn new(endpoint: Endpoint, field_count: usize) -> MyStore {
        MyStore { endpoint, field_count }
    }

    fn connect(&self) -> Result<MysqlConn> {
        self.endpoint.connect_mysql()
    }
}

impl Store for MyStore {
    fn create(&self) -> Result<()> {
        let mut c = self.connect()?;
        let fields: Vec<String> = (0..self.field_count).map(|i| format!("FIELD{i} TEXT")).collect();
        // On a server the user runs, the plan's check made sure no such
        // table exists: a name clash fails here rather than drop theirs.
        if !self.endpoint.remote {
            c.query_drop(format!("DROP TABLE IF EXISTS {TABLE}"))?;
        }
        c.query_drop(format!("CREATE TABLE {TABLE} (YCSB_KEY VARCHAR(255) PRIMARY KEY, {})", fields.join(", ")))
            .context("creating the YCSB table")
    }

    fn columns(&self) -> Result<Option<Vec<String>>> {
        let mut c = self.connect()?;
        let sql = "SELECT column_name FROM information_schema.COLUMNS WHERE table_schema = DATABASE() AND LOWER(table_name) = LOWER(?) ORDER BY ordinal_position";
        Ok(Some(c.exec(sql, (TABLE,))?))
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
        let fields: Vec<String> = (0..n).map(|i| format!("FIELD{i}")).collect();
        let marks = vec!["?"; n + 1].join(", ");
        let insert = c.prep(format!("INSERT INTO {TABLE} (YCSB_KEY, {}) VALUES ({marks})", fields.join(", ")))?;
        let read = c.prep(format!("SELECT * FROM {TABLE} WHERE YCSB_KEY = ?"))?;
        let scan = c.prep(format!("SELECT * FROM {TABLE} WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"))?;
        let update_one = (0..n)
            .map(|i| c.prep(format!("UPDATE {TABLE} SET FIELD{i} = ? WHERE YCSB_KEY = ?")))
            .collect::<Result<Vec<_>, _>>()?;
        let sets: Vec<String> = fields.iter().map(|f| format!("{f} = ?")).collect();
        let update_all = c.prep(format!("UPDATE {TABLE} SET {} WHERE YCSB_KEY = ?", sets.join(", ")))?;
        Ok(Box::new(MySession { c, field_count: n, insert, read, scan, update_one, update_all, params: Vec::new() }))
    }
}

struct MySession {
    c: MysqlConn,
    field_count: usize,
    insert: Statement,
    read: Statement,
    scan: Statement,
    update_one: Vec<Statement>,
    update_all: Statement,
    params: Vec<Value>,
}

impl StoreSession for MySession {
    fn insert(&mut self, key: &[u8], record: &[u8]) -> Result<()> {
        let len = record.len() / self.field_count;
        self.params.clear();
        self.params.push(Value::Bytes(key.to_vec()));
        self.params.extend((0..self.field_count).map(|i| Value::Bytes(record[i * len..(i + 1) * len].to_vec())));
        self.c.exec_drop(&self.insert, std::mem::take(&mut self.params))?;
        Ok(())
    }

    fn read(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let row: Option<mysql::Row> = self.c.exec_first(&self.read, (key,))?;
        Ok(std::hint::black_box(row).is_some())
    }

    fn update(&mut self, key: &[u8], fields: &[(usize, &[u8])]) -> Result<bool> {
        if fields.len() == 1 {
            let (i, v) = fields[0];
            self.c.exec_drop(&self.update_one[i], (v, key))?;
        } else {
            let mut params: Vec<Value> = fields.iter().map(|(_, v)| Value::Bytes(v.to_vec())).collect();
            params.push(Value::Bytes(key.to_vec()));
            self.c.exec_drop(&self.update_all, params)?;
        }
        // Rows matched, not changed: the server is connected with CLIENT_FOUND_ROWS off,
        // so an update that writes the same bytes counts 0; random values make that unlikely.
        Ok(self.c.affected_rows() > 0)
    }

    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
        let rows: Vec<mysql::Row> = self.c.exec(&self.scan, (start, count as u64))?;
        Ok(std::hint::black_box(rows).len())
    }
}
