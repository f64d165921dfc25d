//! The SQL capability on PostgreSQL, through the lean client
//! (`crate::server::pgwire`): statements prepared by name with the types
//! sysbench's pgsql driver gives them (INT as int4, CHAR(n) as bpchar),
//! executed with the extended protocol, every result row read.

use anyhow::{Context, Result};

use super::{Dialect, Param, ParamType, SqlSession, SqlStore, Stmt};
use crate::server::pgwire::{Columns, PgConn, INT4};
use crate::server::Endpoint;

/// bpchar, the type of CHAR(n) (sysbench's pgsql driver binds CHAR so).
const BPCHAR: postgres_protocol::Oid = 1042;

pub struct PgSql {
    endpoint: Endpoint,
}

impl PgSql {
    pub fn new(endpoint: Endpoint) -> PgSql {
        PgSql { endpoint }
    }
}

impl SqlStore for PgSql {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn session(&self) -> Result<Box<dyn SqlSession + '_>> {
        Ok(Box::new(PgSession { c: self.endpoint.connect_pgwire()?, names: Vec::new() }))
    }

    fn place(&self) -> String {
        self.endpoint.url()
    }

    fn remote(&self) -> bool {
        self.endpoint.remote
    }
}

struct PgSession {
    c: PgConn,
    /// The prepared statements' names, by index.
    names: Vec<String>,
}

impl SqlSession for PgSession {
    fn prepare(&mut self, sql: &str, types: &[ParamType]) -> Result<Stmt> {
        let name = format!("sb{}", self.names.len());
        let oids: Vec<_> = types
            .iter()
            .map(|t| match t {
                ParamType::Int => INT4,
                ParamType::Char(_) => BPCHAR,
            })
            .collect();
        self.c
            .prepare(&name, &super::numbered_placeholders(sql), &oids)
            .with_context(|| format!("preparing {}", sql.trim()))?;
        self.names.push(name);
        Ok(Stmt(self.names.len() - 1))
    }

    fn execute(&mut self, stmt: Stmt, params: &[Param<'_>]) -> Result<u64> {
        let mut rows = 0u64;
        self.c.execute(
            &self.names[stmt.0],
            |p| {
                for v in params {
                    match *v {
                        Param::Int(i) => p.i32(i),
                        Param::Str(s) => p.str(s),
                    }
                }
            },
            &mut |row| {
                rows += 1;
                std::hint::black_box(row);
                Ok(())
            },
        )?;
        Ok(if rows > 0 { rows } else { self.c.affected_rows() })
    }

    fn query(&mut self, sql: &str) -> Result<u64> {
        self.c.simple_query(sql)?;
        Ok(self.c.affected_rows())
    }

    fn query_i64(&mut self, sql: &str) -> Result<Option<i64>> {
        // Text, not binary: the simple protocol's rows; parsed from their text.
        let mut value = None;
        self.c.simple_query_rows(sql, &mut |row| {
            value = Columns::new(row).string()?.parse().ok();
            Ok(())
        })?;
        Ok(value)
    }
}
