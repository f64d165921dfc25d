//! The benchmark steps, named as in db_bench.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::sysbench::{Micro, MICROS};

/// A step's kind; in results, its name (the STEPS table's, or a sysbench
/// microbenchmark's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    Fill,
    FillSeq,
    FillRandom,
    FillUniqueRandom,
    Overwrite,
    ReadRandom,
    MultiReadRandom,
    ReadSeq,
    FwdRange,
    RevRange,
    ReadWhileWriting,
    FwdRangeWhileWriting,
    DeleteRandom,
    /// db_bench's mixgraph: gets, puts and seeks by the FAST'20 models.
    MixGraph,
    /// A trace's calls replayed (--replay FILE).
    Replay,
    Flush,
    WaitForCompaction,
    Settle,
    // The insert benchmark (src/ibench).
    LoadI0,
    CreateIndexes,
    LoadI1,
    LoadI2,
    Qr100,
    Qp100,
    Qr500,
    Qp500,
    Qr1000,
    Qp1000,
    // YCSB's core workloads (src/workload/ycsb).
    YcsbLoad,
    YcsbA,
    YcsbB,
    YcsbC,
    YcsbD,
    YcsbE,
    YcsbF,
    // Contention (src/workload/contention).
    HotRow,
    RandomTransaction,
    /// A sysbench microbenchmark (src/workload/sysbench).
    Sysbench(Micro),
}

/// (kind, name, what it does)
pub const STEPS: &[(StepKind, &str, &str)] = &[
    (StepKind::FillSeq, "fillseq", "insert keys in ascending order"),
    (StepKind::FillRandom, "fillrandom", "insert random keys, with replacement (about 37% of keys stay missing)"),
    (StepKind::FillUniqueRandom, "filluniquerandom", "insert each key once, in random order"),
    (StepKind::Fill, "fill", "insert keys in the order of --key-order (seq, random, unique, hash)"),
    (StepKind::Overwrite, "overwrite", "update existing keys, random order"),
    (StepKind::ReadRandom, "readrandom", "point get of keys drawn from --distribution"),
    (StepKind::MultiReadRandom, "multireadrandom", "batched point gets (--multiget-batch keys per call)"),
    (StepKind::ReadSeq, "readseq", "full forward scan, every thread reads the whole database"),
    (StepKind::FwdRange, "fwdrange", "seek to a random key, then --range-len next() calls"),
    (StepKind::RevRange, "revrange", "seek to a random key, then --range-len prev() calls"),
    (StepKind::ReadWhileWriting, "readwhilewriting", "readrandom by --threads clients plus one background writer at --writer-rate"),
    (StepKind::FwdRangeWhileWriting, "fwdrangewhilewriting", "fwdrange plus one background writer at --writer-rate"),
    (StepKind::DeleteRandom, "deleterandom", "delete random keys (with replacement)"),
    (
        StepKind::MixGraph,
        "mixgraph",
        "db_bench's mixgraph: gets, puts and seeks by the FAST'20 models of keys, value sizes, scan lengths and a sine arrival rate (--mixgraph)",
    ),
    (
        StepKind::Replay,
        "replay",
        "replay the calls of a trace (--replay FILE: rumbench's --trace or RocksDB's own), at the recorded timing, scaled (--replay-speed) or as fast as possible",
    ),
    (StepKind::Flush, "flush", "flush memtables and buffers"),
    (StepKind::WaitForCompaction, "waitforcompaction", "wait until the engine has no pending background work (bounded by --compaction-timeout)"),
    (StepKind::Settle, "settle", "flush, then wait until the engine has no pending background work: what the steps before it left, written and measured (bounded by --compaction-timeout)"),
    (StepKind::LoadI0, "l.i0", "insert benchmark: load --rows rows per client, no secondary indexes, 100 rows per commit"),
    (StepKind::CreateIndexes, "l.x", "insert benchmark: create the 3 secondary indexes"),
    (StepKind::LoadI1, "l.i1", "insert benchmark: insert --insert-rows rows per client, 50 per commit, with index maintenance (and tail deletes)"),
    (StepKind::LoadI2, "l.i2", "insert benchmark: like l.i1 with 5 rows per commit, then settle (vacuum/checkpoint, flush, compaction)"),
    (StepKind::Qr100, "qr100", "insert benchmark: range queries on a secondary index, writers at 100 rows/s per client"),
    (StepKind::Qp100, "qp100", "insert benchmark: point queries of 10 ids, writers at 100 rows/s per client"),
    (StepKind::Qr500, "qr500", "insert benchmark: range queries, writers at 500 rows/s per client"),
    (StepKind::Qp500, "qp500", "insert benchmark: point queries, writers at 500 rows/s per client"),
    (StepKind::Qr1000, "qr1000", "insert benchmark: range queries, writers at 1000 rows/s per client"),
    (StepKind::Qp1000, "qp1000", "insert benchmark: point queries, writers at 1000 rows/s per client"),
    (StepKind::YcsbLoad, "ycsb-load", "YCSB: insert --records records (10 fields of 100 bytes, keys user<hash>)"),
    (StepKind::YcsbA, "ycsb-a", "YCSB workload A: 50% read, 50% update, zipfian"),
    (StepKind::YcsbB, "ycsb-b", "YCSB workload B: 95% read, 5% update, zipfian"),
    (StepKind::YcsbC, "ycsb-c", "YCSB workload C: 100% read, zipfian"),
    (StepKind::YcsbD, "ycsb-d", "YCSB workload D: 95% read, 5% insert, latest"),
    (StepKind::YcsbE, "ycsb-e", "YCSB workload E: 95% scan (1..100 records), 5% insert, zipfian"),
    (StepKind::YcsbF, "ycsb-f", "YCSB workload F: 50% read, 50% read-modify-write, zipfian"),
    (
        StepKind::HotRow,
        "hotrow",
        "all clients update row 1 of --hot-tables tables (client i: table i mod T), autocommit; a grid of tables x clients (--threads)",
    ),
    (
        StepKind::RandomTransaction,
        "randomtransaction",
        "db_bench's: transactions that add one increment to a random key of each of --transaction-sets sets; the sets' sums are checked after",
    ),
];

impl StepKind {
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Sysbench(m) => m.name(),
            _ => STEPS.iter().find(|s| s.0 == self).expect("every step is in STEPS").1,
        }
    }

    pub fn names() -> Vec<&'static str> {
        STEPS.iter().map(|s| s.1).chain(MICROS.iter().map(|m| m.1)).collect()
    }

    /// What the step does, for `rumbench steps`.
    pub fn describe(self) -> &'static str {
        match self {
            StepKind::Sysbench(m) => MICROS.iter().find(|e| e.0 == m).map_or("", |e| e.4),
            _ => STEPS.iter().find(|s| s.0 == self).map_or("", |s| s.2),
        }
    }

    /// sysbench's microbenchmarks (run by src/workload/sysbench on a SQL server).
    pub fn is_sysbench(self) -> bool {
        matches!(self, StepKind::Sysbench(_))
    }

    /// The workloads on tables (insert benchmark, YCSB, contention, sysbench):
    /// run by runner/tables.rs, not by the db_bench-style step loop.
    pub fn on_tables(self) -> bool {
        self.is_ibench() || self.is_ycsb() || self.is_contention() || self.is_sysbench()
    }

    /// One engine-wide call, timed as a whole (flush, waitforcompaction,
    /// settle): no clients, no rate of operations.
    pub fn is_engine_call(self) -> bool {
        matches!(self, StepKind::Flush | StepKind::WaitForCompaction | StepKind::Settle)
    }

    /// Steps that read or modify existing keys and so need a loaded database.
    pub fn needs_data(self) -> bool {
        use StepKind::*;
        matches!(
            self,
            Overwrite
                | ReadRandom
                | MultiReadRandom
                | ReadSeq
                | FwdRange
                | RevRange
                | ReadWhileWriting
                | FwdRangeWhileWriting
                | DeleteRandom
                | MixGraph
        )
    }

    /// Steps that load keys into an empty database (a read step needs one before it).
    pub fn loads(self) -> bool {
        use StepKind::*;
        matches!(self, Fill | FillSeq | FillRandom | FillUniqueRandom)
    }

    /// Insert-benchmark steps (run by src/ibench on a table layer).
    pub fn is_ibench(self) -> bool {
        use StepKind::*;
        matches!(self, LoadI0 | CreateIndexes | LoadI1 | LoadI2 | Qr100 | Qp100 | Qr500 | Qp500 | Qr1000 | Qp1000)
    }

    /// YCSB steps (run by src/workload/ycsb on a key-value engine or a server).
    pub fn is_ycsb(self) -> bool {
        use StepKind::*;
        matches!(self, YcsbLoad | YcsbA | YcsbB | YcsbC | YcsbD | YcsbE | YcsbF)
    }

    /// Contention steps (src/workload/contention): they need transactions.
    pub fn is_contention(self) -> bool {
        matches!(self, StepKind::HotRow | StepKind::RandomTransaction)
    }

    /// The workload a step belongs to (steps of different workloads are not mixed in one run).
    pub fn workload(self) -> &'static str {
        if self.is_contention() {
            "contention"
        } else if self.is_sysbench() {
            "sysbench"
        } else if self.is_ibench() {
            "insert benchmark"
        } else if self.is_ycsb() {
            "YCSB"
        } else {
            "db_bench-style"
        }
    }

    /// Steps whose clients write (the *whilewriting steps' writes come from their background writer).
    pub fn writes(self) -> bool {
        use StepKind::*;
        matches!(self, Fill | FillSeq | FillRandom | FillUniqueRandom | Overwrite | DeleteRandom)
    }

    /// Whether the step changes the data at all: its clients write, or a
    /// background writer or a mix of operations does (leaving the engine
    /// background work, e.g. for a concurrency sweep's next point).
    pub fn changes_data(self) -> bool {
        use StepKind::*;
        self.writes()
            || matches!(self, ReadWhileWriting | FwdRangeWhileWriting | MixGraph | Replay)
            || self.is_ibench()
            || self.is_contention()
            || (self.is_ycsb() && self != YcsbC)
            || matches!(self, Sysbench(m) if m.writes())
    }
}

impl fmt::Display for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StepKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        STEPS
            .iter()
            .find(|st| st.1 == s)
            .map(|st| st.0)
            .or_else(|| MICROS.iter().find(|m| m.1 == s).map(|m| StepKind::Sysbench(m.0)))
            .ok_or_else(|| format!("unknown step '{s}' (valid steps: {})", Self::names().join(", ")))
    }
}

impl Serialize for StepKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for StepKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (kind, name, _) in STEPS {
            assert_eq!(name.parse::<StepKind>().unwrap(), *kind);
            assert_eq!(kind.to_string(), *name);
        }
        for m in MICROS {
            let kind = StepKind::Sysbench(m.0);
            assert_eq!(m.1.parse::<StepKind>().unwrap(), kind);
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{}\"", m.1));
        }
        assert!("readrandomx".parse::<StepKind>().unwrap_err().contains("valid steps: fillseq"));
        // In results, a step is its name, as before the names were one table.
        assert_eq!(serde_json::to_string(&StepKind::LoadI0).unwrap(), "\"l.i0\"");
        assert_eq!(serde_json::from_str::<StepKind>("\"ycsb-a\"").unwrap(), StepKind::YcsbA);
    }
}
