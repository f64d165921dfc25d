//! Which database servers rumbench knows, by name: a plain list that the
//! plan, the server backend and the reports all read.

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

/// Which server (and, for MariaDB, which default storage engine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerKind {
    Postgres,
    MariadbInnodb,
    MariadbMyrocks,
    /// A MongoDB server (or one speaking its wire protocol) the user runs:
    /// reached by URL only, never started by rumbench.
    Mongodb,
}

impl ServerKind {
    pub const ALL: [ServerKind; 4] =
        [ServerKind::Postgres, ServerKind::MariadbInnodb, ServerKind::MariadbMyrocks, ServerKind::Mongodb];

    /// "postgres", "mariadb-innodb", "mariadb-myrocks", "mongodb".
    pub fn name(self) -> &'static str {
        match self {
            ServerKind::Postgres => "postgres",
            ServerKind::MariadbInnodb => "mariadb-innodb",
            ServerKind::MariadbMyrocks => "mariadb-myrocks",
            ServerKind::Mongodb => "mongodb",
        }
    }

    /// The product, for messages: "PostgreSQL", "MariaDB", "MongoDB".
    pub fn product(self) -> &'static str {
        match self {
            ServerKind::Postgres => "PostgreSQL",
            ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks => "MariaDB",
            ServerKind::Mongodb => "MongoDB",
        }
    }

    /// Whether rumbench can start this server itself (MongoDB: by URL only).
    pub fn can_start(self) -> bool {
        self != ServerKind::Mongodb
    }

    pub fn is_mariadb(self) -> bool {
        matches!(self, ServerKind::MariadbInnodb | ServerKind::MariadbMyrocks)
    }
}

impl fmt::Display for ServerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ServerKind {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        ServerKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            anyhow!("unknown server kind {s:?} (valid: postgres, mariadb-innodb, mariadb-myrocks, mongodb)")
        })
    }
}
