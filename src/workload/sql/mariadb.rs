//! The SQL capability on MariaDB (and MySQL), through the mysql crate:
//! server-side prepared statements (COM_STMT_PREPARE and _EXECUTE, as
//! sysbench's mysql driver uses them by default), text statements with
//! COM_QUERY, every result row read. A statement the server cannot prepare
//! (error 1295: BEGIN before MariaDB 10.3) is sent as text with its values
//! written in, as sysbench's driver then emulates it.

use anyhow::Result;
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
        Ok(Box::new(MySession { c: self.endpoint.connect_mysql()?, stmts: Vec::new() }))
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
    stmts: Vec<Prepared>,
}

/// A statement the server prepared, or one sent as text (the server refused
/// to prepare it: ER_UNSUPPORTED_PS).
enum Prepared {
    Server(Statement),
    Emulated(String),
}

/// ER_UNSUPPORTED_PS: "This command is not supported in the prepared statement protocol yet".
const UNSUPPORTED_PS: u16 = 1295;

/// `sql` with each `?` replaced by its value as sysbench's db_print_value
/// writes it: a number as it is, a string in single quotes.
fn with_values(sql: &str, params: &[Param<'_>]) -> String {
    let mut out = String::with_capacity(sql.len() + 16 * params.len());
    let mut values = params.iter();
    for ch in sql.chars() {
        match (ch, ch == '?') {
            (_, true) => match values.next() {
                Some(Param::Int(i)) => out.push_str(&i.to_string()),
                Some(Param::Str(s)) => {
                    out.push('\'');
                    out.push_str(&s.replace('\'', "''"));
                    out.push('\'');
                }
                None => out.push('?'),
            },
            (c, false) => out.push(c),
        }
    }
    out
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
        let prepared = match self.c.prep(sql) {
            Ok(s) => Prepared::Server(s),
            Err(mysql::Error::MySqlError(e)) if e.code == UNSUPPORTED_PS => Prepared::Emulated(sql.to_string()),
            Err(e) => return Err(anyhow::Error::new(e).context(format!("preparing {}", sql.trim()))),
        };
        self.stmts.push(prepared);
        Ok(Stmt(self.stmts.len() - 1))
    }

    fn execute(&mut self, stmt: Stmt, params: &[Param<'_>]) -> Result<u64> {
        let statement = match &self.stmts[stmt.0] {
            Prepared::Server(s) => s,
            Prepared::Emulated(sql) => {
                let text = with_values(sql, params);
                return drain(self.c.query_iter(text)?);
            }
        };
        let values: Vec<Value> = params
            .iter()
            .map(|p| match *p {
                Param::Int(i) => Value::Int(i as i64),
                Param::Str(s) => Value::Bytes(s.as_bytes().to_vec()),
            })
            .collect();
        let params = if values.is_empty() { mysql::Params::Empty } else { mysql::Params::Positional(values) };
        let result = self.c.exec_iter(statement, params)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_emulated_statement_has_its_values_written_in() {
        assert_eq!(with_values("BEGIN", &[]), "BEGIN");
        assert_eq!(
            with_values("UPDATE t SET c=? WHERE id=?", &[Param::Str("1-2'x"), Param::Int(-5)]),
            "UPDATE t SET c='1-2''x' WHERE id=-5"
        );
    }
}
