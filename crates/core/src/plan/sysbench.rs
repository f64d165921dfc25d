//! sysbench's microbenchmarks as steps: their names (as the regression
//! posts and mdcallag/mytools' bench/sysbench.lua/all_small.sh give them),
//! the Lua script and options behind each (its run.sh), and their settings
//! (sysbench's --tables, --table-size, --range-size). What each sends is
//! src/workload/sysbench's.

use serde::{Deserialize, Serialize};

/// One microbenchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Micro {
    PointQuery,
    RandomPoints,
    HotPoints,
    PointsCoveredPk,
    PointsCoveredSi,
    PointsNotcoveredPk,
    PointsNotcoveredSi,
    RangeCoveredPk,
    RangeCoveredSi,
    RangeNotcoveredPk,
    RangeNotcoveredSi,
    ReadOnly,
    ReadOnlySimple,
    ReadOnlySum,
    ReadOnlyOrder,
    ReadOnlyDistinct,
    ReadOnlyCount,
    ReadWrite,
    WriteOnly,
    Scan,
    UpdateIndex,
    UpdateNonindex,
    UpdateOne,
    UpdateInlist,
    UpdateZipf,
    Delete,
    Insert,
}

/// (micro, name, Lua script and options as run.sh gives them, all_small.sh's range, what it does)
pub const MICROS: &[(Micro, &str, &str, u64, &str)] = &[
    (Micro::PointQuery, "point-query", "oltp_point_select.lua --skip-trx", 100, "one SELECT c by primary key"),
    (
        Micro::RandomPoints,
        "random-points",
        "oltp_inlist_select.lua --random-points=RANGE --skip-trx",
        10,
        "SELECT c WHERE id IN (RANGE random ids)",
    ),
    (
        Micro::HotPoints,
        "hot-points",
        "oltp_inlist_select.lua --random-points=RANGE --hot-points --skip-trx",
        100,
        "SELECT c WHERE id IN (the same RANGE adjacent ids)",
    ),
    (
        Micro::PointsCoveredPk,
        "points-covered-pk",
        "oltp_points_covered.lua --random-points=RANGE --skip-trx",
        100,
        "SELECT id WHERE id IN (RANGE random ids): covered by the primary key",
    ),
    (
        Micro::PointsCoveredSi,
        "points-covered-si",
        "oltp_points_covered.lua --random-points=RANGE --skip-trx --on-id=false",
        100,
        "SELECT k WHERE k IN (RANGE random values): covered by the secondary index",
    ),
    (
        Micro::PointsNotcoveredPk,
        "points-notcovered-pk",
        "oltp_points_covered.lua --random-points=RANGE --skip-trx --covered=false",
        100,
        "SELECT id, c WHERE id IN (RANGE random ids)",
    ),
    (
        Micro::PointsNotcoveredSi,
        "points-notcovered-si",
        "oltp_points_covered.lua --random-points=RANGE --skip-trx --on-id=false --covered=false",
        100,
        "SELECT k, c WHERE k IN (RANGE random values): the secondary index, then the rows",
    ),
    (
        Micro::RangeCoveredPk,
        "range-covered-pk",
        "oltp_range_covered.lua --random-points=RANGE --skip-trx",
        100,
        "SELECT id WHERE id BETWEEN x AND x+RANGE",
    ),
    (
        Micro::RangeCoveredSi,
        "range-covered-si",
        "oltp_range_covered.lua --random-points=RANGE --skip-trx --on-id=false",
        100,
        "SELECT k WHERE k BETWEEN x AND x+RANGE",
    ),
    (
        Micro::RangeNotcoveredPk,
        "range-notcovered-pk",
        "oltp_range_covered.lua --random-points=RANGE --skip-trx --covered=false",
        100,
        "SELECT id, c WHERE id BETWEEN x AND x+RANGE",
    ),
    (
        Micro::RangeNotcoveredSi,
        "range-notcovered-si",
        "oltp_range_covered.lua --random-points=RANGE --skip-trx --on-id=false --covered=false",
        100,
        "SELECT k, c WHERE k BETWEEN x AND x+RANGE",
    ),
    (
        Micro::ReadOnly,
        "read-only",
        "oltp_read_only.lua --range-size=RANGE",
        10,
        "a transaction of 10 point SELECTs and 4 range SELECTs (plain, SUM, ORDER BY, DISTINCT) of RANGE rows",
    ),
    (
        Micro::ReadOnlySimple,
        "read-only-simple",
        "oltp_read_only.lua --range-size=RANGE --simple-ranges=1 --sum-ranges=0 --order-ranges=0 --distinct-ranges=0",
        1000,
        "read-only with its plain range SELECT only",
    ),
    (
        Micro::ReadOnlySum,
        "read-only-sum",
        "oltp_read_only.lua --range-size=RANGE --simple-ranges=0 --sum-ranges=1 --order-ranges=0 --distinct-ranges=0",
        1000,
        "read-only with its SELECT SUM(k) range only",
    ),
    (
        Micro::ReadOnlyOrder,
        "read-only-order",
        "oltp_read_only.lua --range-size=RANGE --simple-ranges=0 --sum-ranges=0 --order-ranges=1 --distinct-ranges=0",
        1000,
        "read-only with its ORDER BY range only",
    ),
    (
        Micro::ReadOnlyDistinct,
        "read-only-distinct",
        "oltp_read_only.lua --range-size=RANGE --simple-ranges=0 --sum-ranges=0 --order-ranges=0 --distinct-ranges=1",
        1000,
        "read-only with its DISTINCT range only",
    ),
    (
        Micro::ReadOnlyCount,
        "read-only-count",
        "oltp_read_only_count.lua --range-size=RANGE --skip-trx",
        1000,
        "SELECT count(c) WHERE id BETWEEN x AND x+RANGE-1",
    ),
    (
        Micro::ReadWrite,
        "read-write",
        "oltp_read_write.lua --range-size=RANGE",
        10,
        "read-only's transaction plus an index update, a non-index update, a delete and an insert",
    ),
    (
        Micro::WriteOnly,
        "write-only",
        "oltp_write_only.lua --range-size=RANGE",
        10000,
        "a transaction of an index update, a non-index update, a delete and an insert",
    ),
    (Micro::Scan, "scan", "oltp_scan.lua", 100, "a full scan of one table (SELECT * WHERE LENGTH(c) < 0)"),
    (
        Micro::UpdateIndex,
        "update-index",
        "oltp_update_index.lua",
        100,
        "UPDATE SET k=k+1 by primary key (the secondary index changes)",
    ),
    (Micro::UpdateNonindex, "update-nonindex", "oltp_update_non_index.lua", 100, "UPDATE SET c=? by primary key"),
    (
        Micro::UpdateOne,
        "update-one",
        "oltp_update_non_index.lua --table-size=1",
        100,
        "UPDATE SET c=? of row id=1: every client on one row",
    ),
    (Micro::UpdateInlist, "update-inlist", "oltp_inlist_update.lua", 100, "UPDATE SET c=? WHERE id IN (10 random ids)"),
    (
        Micro::UpdateZipf,
        "update-zipf",
        "oltp_update_non_index.lua --rand-type=zipfian",
        100,
        "update-nonindex with zipfian ids (sysbench's, exponent 0.8)",
    ),
    (Micro::Delete, "delete", "oltp_delete.lua", 100, "DELETE by primary key"),
    (Micro::Insert, "insert", "oltp_insert.lua", 100, "INSERT of one row (the id from AUTO_INCREMENT or SERIAL)"),
];

impl Micro {
    fn entry(self) -> &'static (Micro, &'static str, &'static str, u64, &'static str) {
        MICROS.iter().find(|m| m.0 == self).expect("every micro is in MICROS")
    }

    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// The Lua script and options behind it (run.sh's), RANGE its range.
    pub fn lua(self) -> &'static str {
        self.entry().2
    }

    /// The range all_small.sh runs it at when none is given.
    pub fn default_range(self) -> u64 {
        self.entry().3
    }

    /// Whether the range is part of what it does (--range-size or --random-points).
    pub fn uses_range(self) -> bool {
        self.lua().contains("RANGE")
    }

    /// Whether its events change the tables.
    pub fn writes(self) -> bool {
        use Micro::*;
        matches!(
            self,
            ReadWrite
                | WriteOnly
                | UpdateIndex
                | UpdateNonindex
                | UpdateOne
                | UpdateInlist
                | UpdateZipf
                | Delete
                | Insert
        )
    }
}

/// The sysbench steps' settings: sysbench's options of the same names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SysbenchSettings {
    /// --tables: sbtest1..sbtestN.
    pub tables: u32,
    /// --table-size: rows per table, as prepare loads them.
    pub table_size: u64,
    /// --range-size (and --random-points, which run.sh sets to the same
    /// value): the step's, or its microbenchmark's all_small.sh range.
    pub range_size: Option<u64>,
}

impl Default for SysbenchSettings {
    /// sysbench's own defaults.
    fn default() -> Self {
        SysbenchSettings { tables: 1, table_size: 10_000, range_size: None }
    }
}

impl SysbenchSettings {
    /// The range a step of `micro` runs at.
    pub fn range(&self, micro: Micro) -> u64 {
        self.range_size.unwrap_or(micro.default_range())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_micro_is_listed_once_with_a_distinct_name() {
        for (i, m) in MICROS.iter().enumerate() {
            assert!(MICROS[..i].iter().all(|p| p.0 != m.0 && p.1 != m.1), "{} twice", m.1);
        }
        assert_eq!(MICROS.len(), 27);
        assert!(Micro::ReadOnly.uses_range() && !Micro::Scan.uses_range());
    }
}
