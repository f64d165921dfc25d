//! The insert benchmark (workloads.md, "The insert benchmark"): inserts with
//! secondary-index maintenance, and queries while writes go on.
//!
//! Steps: `l.i0` (load, no secondary index, 100 rows per commit), `l.x`
//! (create the three secondary indexes), `l.i1` (50 rows per commit, index
//! maintenance, optional deletes from the tail), `l.i2` (5 rows per commit,
//! then settle), and `qr100 qp100 qr500 qp500 qr1000 qp1000` (a query client
//! per client runs closed loop while a writer per client inserts, and deletes,
//! at 100/500/1000 rows/s, paced smoothly and measured from intended start).
//!
//! The layers:
//!
//! * [`table`]: the table-level interface ([`table::Table`], one
//!   [`table::TableSession`] per client thread). One implementation per
//!   backend: [`postgres`], [`mariadb`] (InnoDB or MyRocks), [`kv`] (any
//!   key-value engine of `crate::engine`: a primary key space plus one key
//!   space per secondary index, maintained with blind writes in one batch).
//! * [`exec`]: the client threads of a step; it times every call (tables
//!   contain no timing code) with the runner's per-thread `Recorder`s and
//!   `Pacer`.
//! * [`run`]: one engine config: starts the server (or opens the engine),
//!   runs the steps with the runner's `Probes`, stops the server on success,
//!   error, Ctrl-C and panic.
//!
//! Rows are a pure function of (seed, table, id) ([`RowGen`]), so the same
//! seed gives the same rows on every engine, and a key-value table can delete
//! a row's index entries without reading it first.

use std::ops::Range;

use anyhow::{bail, Result};

use crate::datagen::rng::{mix64, stream_seed};
use crate::plan::steps::StepKind;
use crate::plan::RunPlan;

pub mod exec;
pub mod kv;
pub mod mariadb;
pub mod mongodb;
pub mod postgres;
pub mod server_internals;
pub mod table;

/// Rows per commit of l.i0, l.i1, l.i2.
pub const LI0_ROWS_PER_COMMIT: usize = 100;
pub const LI1_ROWS_PER_COMMIT: usize = 50;
pub const LI2_ROWS_PER_COMMIT: usize = 5;
/// Rows per commit of the q steps' background writers (one commit every
/// 10 ms per client at 1000 rows/s, every 100 ms at 100 rows/s).
pub const WRITER_ROWS_PER_COMMIT: usize = 10;
/// Logical bytes of an average row (id, dateandtime, four ints, 15 bytes of data).
pub const ROW_LOGICAL_BYTES: u64 = 8 + 8 + 4 * 4 + 15;
/// dateandtime of row id 0: 2024-01-01T00:00:00Z in microseconds; each id adds 1 ms.
const DATEANDTIME_BASE_US: i64 = 1_704_067_200 * 1_000_000;
/// Most tables (clients) a run may have.
pub const MAX_TABLES: usize = 1024;

/// Rows per commit of an insert step.
pub fn rows_per_commit(kind: StepKind) -> Option<usize> {
    match kind {
        StepKind::LoadI0 => Some(LI0_ROWS_PER_COMMIT),
        StepKind::LoadI1 => Some(LI1_ROWS_PER_COMMIT),
        StepKind::LoadI2 => Some(LI2_ROWS_PER_COMMIT),
        _ => None,
    }
}

/// A q step: (range queries?, writer rows/s per client).
pub fn query_step(kind: StepKind) -> Option<(bool, f64)> {
    match kind {
        StepKind::Qr100 => Some((true, 100.0)),
        StepKind::Qp100 => Some((false, 100.0)),
        StepKind::Qr500 => Some((true, 500.0)),
        StepKind::Qp500 => Some((false, 500.0)),
        StepKind::Qr1000 => Some((true, 1000.0)),
        StepKind::Qp1000 => Some((false, 1000.0)),
        _ => None,
    }
}

/// One row of a table `piN`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub id: u64,
    /// Microseconds since the epoch (a BIGINT, increasing with id).
    pub dateandtime: i64,
    pub cashregisterid: i32,
    pub productid: i32,
    pub customerid: i32,
    pub price: i32,
    /// 10 to 20 bytes: half random letters, half padding.
    pub data: String,
}

impl Row {
    /// The row's values of `index`'s columns, in index order.
    pub fn index_key(&self, index: Index) -> (i64, i64, i64) {
        match index {
            Index::MarketSegment => (self.productid as i64, self.customerid as i64, self.price as i64),
            Index::RegisterSegment => (self.cashregisterid as i64, self.customerid as i64, self.price as i64),
            Index::Pdc => (self.price as i64, self.dateandtime, self.customerid as i64),
        }
    }

    /// Logical bytes of this row (its column values).
    pub fn logical_bytes(&self) -> u64 {
        8 + 8 + 4 * 4 + self.data.len() as u64
    }
}

/// The secondary indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    /// (productid, customerid, price)
    MarketSegment,
    /// (cashregisterid, customerid, price)
    RegisterSegment,
    /// (price, dateandtime, customerid)
    Pdc,
}

impl Index {
    pub const ALL: [Index; 3] = [Index::MarketSegment, Index::RegisterSegment, Index::Pdc];

    pub fn name(self) -> &'static str {
        match self {
            Index::MarketSegment => "marketsegment",
            Index::RegisterSegment => "registersegment",
            Index::Pdc => "pdc",
        }
    }

    pub fn columns(self) -> [&'static str; 3] {
        match self {
            Index::MarketSegment => ["productid", "customerid", "price"],
            Index::RegisterSegment => ["cashregisterid", "customerid", "price"],
            Index::Pdc => ["price", "dateandtime", "customerid"],
        }
    }

    /// Values of the leading column: [0, domain).
    pub fn leading_domain(self) -> u64 {
        match self {
            Index::MarketSegment => PRODUCTS,
            Index::RegisterSegment => CASH_REGISTERS,
            Index::Pdc => PRICES,
        }
    }

    /// 0, 1, 2.
    pub fn number(self) -> usize {
        self as usize
    }
}

const CASH_REGISTERS: u64 = 1000;
const PRODUCTS: u64 = 10_000;
const CUSTOMERS: u64 = 100_000;
const PRICES: u64 = 500;

/// The number of this process's first table: a shard's tables follow the
/// shards' before it (shard I of a plan of T tables uses pi{I*T+1} ..
/// pi{I*T+T}), so that shards on one server never share a table. Set once
/// per process from the plan (`use_shard_tables`); 0 for a run that is not sharded.
static TABLE_BASE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Name this process's tables as shard `shard` of a plan of `tables` tables.
pub fn use_shard_tables(shard: crate::plan::shard::Shard, tables: u32) {
    TABLE_BASE.store(shard.index * tables, std::sync::atomic::Ordering::Relaxed);
}

/// Table name of this process's table number `t` (0-based): pi1, pi2, ...
/// (a shard's: after the tables of the shards before it).
pub fn table_name(t: u32) -> String {
    format!("pi{}", TABLE_BASE.load(std::sync::atomic::Ordering::Relaxed) + t + 1)
}

/// Every table rumbench may create in a server: `tables` of the insert
/// benchmark's and YCSB's. Statistics cover these only (a target database
/// holds the user's tables too).
pub(crate) fn own_table_names(tables: u32) -> Vec<String> {
    let mut names: Vec<String> = (0..tables).map(table_name).collect();
    names.push(crate::workload::ycsb::TABLE.to_string());
    names
}

/// How the benchmark reached its server, for the recorded options: the
/// settings rumbench applied to a server it started and how clients
/// connect, or the URL (without password) of a target.
pub(crate) fn connection_options(
    endpoint: &crate::server::Endpoint,
    server: Option<&crate::server::RunningServer>,
    transport: crate::backend::servers::Transport,
) -> Vec<(String, String)> {
    match server {
        Some(s) => {
            let mut options: Vec<(String, String)> =
                s.managed_settings().into_iter().map(|(k, v)| (format!("managed.{k}"), v)).collect();
            options.push(("client.connect".into(), format!("{transport:?}").to_lowercase()));
            options
        }
        None => vec![("target".into(), endpoint.url())],
    }
}

/// Makes rows: a pure function of (seed, table, id).
#[derive(Debug, Clone, Copy)]
pub struct RowGen {
    seed: u64,
}

impl RowGen {
    pub fn new(run_seed: u64) -> RowGen {
        RowGen { seed: stream_seed(run_seed, &[0x1be7c4]) }
    }

    /// Fill `out` with row `id` of table `table` (reusing its data buffer).
    /// A SplitMix64 stream seeded from (seed, table, id): one mix per value.
    pub fn fill(&self, table: u32, id: u64, out: &mut Row) {
        let mut x = self.seed ^ mix64(((table as u64) << 48) ^ id);
        let mut next = move || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            mix64(x)
        };
        // Uniform in [0, n) by multiply-shift (Lemire).
        let below = |v: u64, n: u64| ((v as u128 * n as u128) >> 64) as u64;
        out.id = id;
        out.dateandtime = DATEANDTIME_BASE_US + id as i64 * 1000;
        out.cashregisterid = below(next(), CASH_REGISTERS) as i32;
        out.productid = below(next(), PRODUCTS) as i32;
        out.customerid = below(next(), CUSTOMERS) as i32;
        out.price = below(next(), PRICES) as i32;
        let len = 10 + below(next(), 11) as usize;
        // Half random letters (successive base-26 digits of one random
        // value), half padding.
        let mut buf = [b'.'; 20];
        let mut v = next();
        for b in buf.iter_mut().take(len / 2) {
            let t = v as u128 * 26;
            *b = b'a' + (t >> 64) as u8;
            v = t as u64;
        }
        out.data.clear();
        // SAFETY: buf holds ASCII letters and '.' only.
        unsafe { out.data.as_mut_vec().extend_from_slice(&buf[..len]) };
    }

    pub fn row(&self, table: u32, id: u64) -> Row {
        let mut r = Row::default();
        self.fill(table, id, &mut r);
        r
    }

    /// Rows `ids` of `table` into `out` (resized, buffers reused).
    pub fn fill_range(&self, table: u32, ids: Range<u64>, out: &mut Vec<Row>) {
        let n = (ids.end - ids.start) as usize;
        out.resize_with(n, Row::default);
        for (row, id) in out.iter_mut().zip(ids) {
            self.fill(table, id, row);
        }
    }
}

/// Refuse plans the insert benchmark cannot run, before anything runs.
pub fn check_plan(plan: &RunPlan) -> Result<()> {
    let ib: Vec<_> = plan.steps.iter().filter(|s| s.kind.is_ibench()).collect();
    // What each step needs before it (the tables start empty, every run).
    let (mut loaded, mut indexed) = (false, false);
    for s in &ib {
        if let Some(why) = precheck(s.kind, loaded, indexed) {
            bail!("{why}");
        }
        loaded |= s.kind == StepKind::LoadI0;
        indexed |= s.kind == StepKind::CreateIndexes;
    }
    if let Some(first) = ib.first() {
        for s in &ib {
            if s.settings.threads != first.settings.threads
                || s.settings.ibench.one_table != first.settings.ibench.one_table
            {
                bail!(
                    "insert-benchmark steps must all have the same --threads and --one-table (the tables are made by the first step): {} has {} threads, {} has {}",
                    first.kind,
                    first.settings.threads,
                    s.kind,
                    s.settings.threads
                );
            }
            if s.settings.seconds.is_some() {
                bail!(
                    "{}: --seconds does not apply to insert-benchmark steps (load steps insert --rows / --insert-rows rows; query steps run --query-seconds)",
                    s.kind
                );
            }
            if s.settings.threads > MAX_TABLES {
                bail!("the insert benchmark supports at most {MAX_TABLES} clients");
            }
        }
    }
    Ok(())
}

/// Why a step cannot run after the steps before it, if it cannot.
fn precheck(kind: StepKind, loaded: bool, indexed: bool) -> Option<String> {
    if kind != StepKind::LoadI0 && !loaded {
        // The example: l.i0, then l.x (which the queries need), then the step.
        let example = match kind {
            StepKind::CreateIndexes => format!("l.i0,{kind}"),
            _ => format!("l.i0,l.x,{kind}"),
        };
        return Some(format!("step {kind} needs the tables loaded: run l.i0 before it (e.g. --steps {example})"));
    }
    if kind == StepKind::CreateIndexes && indexed {
        return Some("the secondary indexes already exist (l.x ran before)".into());
    }
    if query_step(kind).is_some_and(|(range, _)| range) && !indexed {
        return Some(format!("step {kind} queries the secondary indexes: run l.x before it"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_before_the_load_is_told_an_order_that_runs() {
        assert_eq!(
            precheck(StepKind::CreateIndexes, false, false).unwrap(),
            "step l.x needs the tables loaded: run l.i0 before it (e.g. --steps l.i0,l.x)"
        );
        assert_eq!(
            precheck(StepKind::LoadI1, false, false).unwrap(),
            "step l.i1 needs the tables loaded: run l.i0 before it (e.g. --steps l.i0,l.x,l.i1)"
        );
        assert_eq!(precheck(StepKind::LoadI0, false, false), None);
    }

    #[test]
    fn rows_are_a_function_of_seed_table_and_id() {
        let g = RowGen::new(42);
        let a = g.row(0, 7);
        assert_eq!(a, g.row(0, 7));
        assert_ne!(a, g.row(1, 7));
        assert_ne!(a, RowGen::new(43).row(0, 7));
        assert_eq!(a.id, 7);
        for id in 1..2000 {
            let r = g.row(3, id);
            assert!((10..=20).contains(&r.data.len()), "{r:?}");
            assert!((0..1000).contains(&r.cashregisterid));
            assert!((0..10_000).contains(&r.productid));
            assert!((0..100_000).contains(&r.customerid));
            assert!((0..500).contains(&r.price));
            assert!(r.data.ends_with('.') && r.data.is_ascii());
        }
        assert!(g.row(0, 2).dateandtime > g.row(0, 1).dateandtime);
        let mut v = Vec::new();
        g.fill_range(2, 10..15, &mut v);
        assert_eq!(v.iter().map(|r| r.id).collect::<Vec<_>>(), vec![10, 11, 12, 13, 14]);
        assert_eq!(v[3], g.row(2, 13));
    }
}
