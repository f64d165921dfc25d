//! The SQL capability on MariaDB (and MySQL), through the mysql crate:
//! server-side prepared statements (COM_STMT_PREPARE and _EXECUTE, as
//! sysbench's mysql driver uses them by default), text statements with
//! COM_QUERY, every result row read.

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use mysql::{Statement, Value};

use super::{Dialect, Param, ParamType, SqlSession, SqlStore, Stmt};
use crate::server::endpoint::MysqlConn;
use crate::server::Endpoint;

pub struct MySql {
    endpoint: Endpoint,
}

impl MySql {
    pub fn new(endpoint: Endpoint) -> MySql {
        MySql { endpoint }
    }
}

impl SqlStore for MySql {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }

    fn session(&self) -> Result<Box<dyn SqlSession + '_>> {
        Ok(Box::new(MySession { c: self.endpoint.connect_mysql()?, stmts: Vec::new(), params: Vec::new() }))
    }

    fn place(&self) -> String {
        self.endpoint.url()
    }

    fn remote(&self) -> bool {
        self.endpoint.remote
    }
}

struct MySession {
    c: MysqlConn,
    stmts: Vec<Statement>,
    /// The parameters' values, kept between calls (their buffers reused).
    params: Vec<Value>,
}

/// Rows of a result read to the end: returned, or for a write affected.
fn drain<P: mysql::prelude::Protocol>(mut result: mysql::QueryResult<'_, '_, '_, P>) -> Result<u64> {
    let mut rows = 0u64;
    while let Some(set) = result.iter() {
        for row in set {
            std::hint::black_box(row?);
            rows += 1;
        }
    }
    Ok(if rows > 0 { rows } else { result.affected_rows() })
}

impl SqlSession for MySession {
    fn prepare(&mut self, sql: &str, _types: &[ParamType]) -> Result<Stmt> {
        let s = self.c.prep(sql).with_context(|| format!("preparing {}", sql.trim()))?;
        self.stmts.push(s);
        Ok(Stmt(self.stmts.len() - 1))
    }

    fn execute(&mut self, stmt: Stmt, params: &[Param<'_>]) -> Result<u64> {
        let mut values = std::mem::take(&mut self.params);
        values.clear();
        values.extend(params.iter().map(|p| match *p {
            Param::Int(i) => Value::Int(i as i64),
            Param::Str(s) => Value::Bytes(s.as_bytes().to_vec()),
        }));
        let params = if values.is_empty() { mysql::Params::Empty } else { mysql::Params::Positional(values) };
        let result = self.c.exec_iter(&self.stmts[stmt.0], params)?;
        drain(result)
    }

    fn query(&mut self, sql: &str) -> Result<u64> {
        let result = self.c.query_iter(sql)?;
        drain(result)
    }

    fn query_i64(&mut self, sql: &str) -> Result<Option<i64>> {
        Ok(self.c.query_first(sql)?)
    }
}
