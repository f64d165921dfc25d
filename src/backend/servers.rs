//! The database servers as entries of the backend registry, so that
//! `rumbench engines` lists them with their options and configs name them
//! like any engine. They offer tables, not key-value access: opening one as
//! a key-value engine is an error (plans asking for it are refused first).

use anyhow::{bail, Result};

use crate::engine::{Engine, EngineSpec, OpenArgs, OptKind, OptionSpec};

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "config",
        default: "",
        kind: OptKind::Text,
        help: "server config lines, ';'-separated (suite files: server_config = [\"...\", ...] on the [[config]]); recorded in the result",
    },
    OptionSpec {
        name: "connect",
        default: "unix",
        kind: OptKind::Choice(&["unix", "tcp"]),
        help: "how clients connect: the server's Unix socket, or TCP to 127.0.0.1 (costs both sides more CPU per round trip)",
    },
    OptionSpec {
        name: "target",
        default: "",
        kind: OptKind::Text,
        help: "a server you already run, instead of one rumbench starts: postgres://user[:password]@host[:port]/database or mysql://...; \
               the password may come from PGPASSWORD / MYSQL_PWD instead; rumbench creates and drops only its own tables there (also --target URL)",
    },
];

/// How the benchmark's clients connect to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The server's Unix socket in its private directory.
    Unix,
    /// TCP to 127.0.0.1:port.
    Tcp,
}

impl Transport {
    /// From a server engine's `connect` option.
    pub fn from_options(options: &std::collections::BTreeMap<String, String>) -> Transport {
        match options.get("connect").map(String::as_str) {
            Some("tcp") => Transport::Tcp,
            _ => Transport::Unix,
        }
    }
}

fn not_a_kv_engine(_: &OpenArgs) -> Result<Box<dyn Engine>> {
    bail!("database servers offer tables, not key-value access")
}

/// A server's entry: its name and description; the rest is every server's.
const fn server(name: &'static str, description: &'static str) -> EngineSpec {
    EngineSpec {
        name,
        description,
        // A server's CPU is its own processes' (the profile's server role).
        profile_symbols: &[],
        sizes_not_claimed: &[],
        check_plan: crate::engine::no_plan_checks,
        plan_claims: crate::engine::no_plan_claims,
        space_needed: crate::engine::no_space_needed,
        versions: None,
        options: OPTIONS,
        io_bound_options: &[],
        open: not_a_kv_engine,
        presets: &[],
        stores_data: true,
        // The tables start empty: --use-existing-db is refused for servers.
        existing_database: None,
        check: crate::engine::no_contradictions,
        build_info: crate::engine::no_build_info,
        transactions: |_| Some("multi-statement transactions, SELECT ... FOR UPDATE"),
        max_sessions: crate::engine::any_sessions,
        // A server's memory settings are config lines, checked with the server's (server::memory_claims).
        claims: crate::engine::no_claims,
        crash_cause: crate::engine::no_crash_cause,
        size_limits: crate::engine::no_size_limits,
    }
}

pub const POSTGRES: EngineSpec = server(
    "postgres",
    "PostgreSQL server (Debian's; postgres@16, postgres@13.23 or version = \"16\" in a [[config]]: that version from the npm registry, fetched once), started by rumbench on 127.0.0.1 in a private data dir; tables: the insert benchmark and YCSB",
);

pub const MARIADB_INNODB: EngineSpec = server(
    "mariadb-innodb",
    "MariaDB server with InnoDB, started by rumbench on 127.0.0.1 in a private data dir; tables: the insert benchmark and YCSB",
);

pub const MARIADB_MYROCKS: EngineSpec = server(
    "mariadb-myrocks",
    "MariaDB server with MyRocks (ROCKSDB as the default engine), started by rumbench on 127.0.0.1; tables: the insert benchmark and YCSB",
);

const MONGODB_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "target",
        default: "",
        kind: OptKind::Text,
        help: "the MongoDB server you run: mongodb://user[:password]@host[:port][,host...]/database[?options] (TLS, authSource, replicaSet as the driver reads them); \
               rumbench creates and drops only its own collections there (also --target URL)",
    },
    OptionSpec {
        name: "w",
        default: "1",
        kind: OptKind::Text,
        help: "write concern w: how many members acknowledge a write (1, 2, ...), majority, or a tag set's name; recorded",
    },
    OptionSpec {
        name: "j",
        default: "false",
        kind: OptKind::Choice(&["false", "true"]),
        help: "write concern j: acknowledge a write once it is in the journal on disk; without it write steps are ND",
    },
    OptionSpec {
        name: "wtimeout_ms",
        default: "0",
        kind: OptKind::Text,
        help: "write concern wtimeout: how long w may wait for members, in ms (0: no limit)",
    },
];

fn check_write_concern(options: &crate::engine::EngineOptions) -> Result<()> {
    crate::server::mongodb::WriteConcernSetting::from_options(&options.0).map(drop)
}

/// MongoDB by URL only: a server the user runs, never one rumbench starts.
pub const MONGODB: EngineSpec = EngineSpec {
    options: MONGODB_OPTIONS,
    check: check_write_concern,
    // A document's $inc needs none; multi-document transactions (replica sets only) are not used.
    transactions: |_| None,
    ..server(
        "mongodb",
        "a MongoDB server you run, by URL only (--target mongodb://...), through the official driver; documents: YCSB, hotrow, the insert benchmark",
    )
};

pub const SERVERS: &[EngineSpec] = &[POSTGRES, MARIADB_INNODB, MARIADB_MYROCKS, MONGODB];
