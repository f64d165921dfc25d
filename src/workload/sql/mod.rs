//! The SQL capability: a server that parses, plans and runs the statements a
//! workload sends, as it sends them (PostgreSQL, MariaDB; any of them by
//! URL). A workload written against [`SqlStore`] runs on every SQL server:
//! sysbench's microbenchmarks are (src/workload/sysbench). Statements are
//! written with `?` placeholders, as sysbench writes them; PostgreSQL's
//! binding numbers them `$1`, `$2`, ... as sysbench's pgsql driver does.

pub mod mariadb;
pub mod postgres;

use anyhow::Result;

/// Which SQL a server speaks where the servers differ (sysbench's scripts
/// branch on the driver's name in the same places).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Mysql,
}

/// A parameter's SQL type, as sysbench binds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// sysbench.sql.type.INT: a 4-byte integer.
    Int,
    /// sysbench.sql.type.CHAR of this length.
    Char(u32),
}

/// A parameter's value.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(i32),
    Str(&'a str),
}

/// A statement prepared on one session (its index there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stmt(pub usize);

/// A SQL server as a workload sees it.
pub trait SqlStore: Send + Sync {
    fn dialect(&self) -> Dialect;
    /// One client's connection.
    fn session(&self) -> Result<Box<dyn SqlSession + '_>>;
    /// Where it is, for messages.
    fn place(&self) -> String;
    /// A server rumbench did not start (the user's): its tables are not ours to drop.
    fn remote(&self) -> bool;
}

/// One client's connection.
pub trait SqlSession {
    /// Prepare `sql` on the server (placeholders `?`) with these parameter types.
    fn prepare(&mut self, sql: &str, types: &[ParamType]) -> Result<Stmt>;
    /// Execute a prepared statement; its result rows are read to the end.
    /// Returns the rows it returned, or for a write the rows it affected.
    fn execute(&mut self, stmt: Stmt, params: &[Param<'_>]) -> Result<u64>;
    /// Send `sql` as text, not prepared (DDL, and what sysbench sends so);
    /// rows read to the end. Returns the rows returned or affected.
    fn query(&mut self, sql: &str) -> Result<u64>;
    /// A one-row, one-column integer result of `sql` sent as text (a count).
    fn query_i64(&mut self, sql: &str) -> Result<Option<i64>>;
}

/// `sql` with its `?` placeholders numbered `$1`, `$2`, ... (sysbench's pgsql
/// driver's conversion: every `?`, wherever it stands).
pub fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for ch in sql.chars() {
        if ch == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_as_sysbenchs_pgsql_driver_numbers_them() {
        assert_eq!(numbered_placeholders("SELECT c FROM sbtest1 WHERE id=?"), "SELECT c FROM sbtest1 WHERE id=$1");
        assert_eq!(
            numbered_placeholders("UPDATE t set c=? WHERE id IN (?, ?)"),
            "UPDATE t set c=$1 WHERE id IN ($2, $3)"
        );
        assert_eq!(numbered_placeholders("BEGIN"), "BEGIN");
    }
}
