//! Whether a compared setting could have acted in a step. Two configs that
//! differ in compression, block size, bloom filter or cache size compare
//! that setting only where it had something to do: compression and block
//! size shape the engine's table files, so they act when the engine flushes
//! or compacts, or when a read reaches a table file; a bloom filter is built
//! with the tables and serves point reads that reach them; a cache matters
//! only when the step reads and its data does not fit in the smaller one.
//! A step where the setting could not have acted gets one short note beside
//! its ratios ("compression never acted: nothing was flushed or compacted in
//! this step"), and where a figure needed to decide was not recorded the
//! note says it cannot tell (docs/report.md, "Settings that never acted").
//!
//! Every decision is made from what result.json recorded: the engine's
//! flush and compaction counters and its table files (RocksDB: the
//! `write_amp.*` counters and `rocksdb.total-sst-files-size`; LevelDB: its
//! files per level), the engine's write-amplification over the step, the
//! step's kind (what it reads), and the data's size (bytes on disk, logical
//! live bytes).

use crate::plan::steps::StepKind;
use crate::result::StepResult;

/// What a step's clients read, from its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Nothing: loads, overwrites, deletes, flush, wait for compaction.
    Nothing,
    /// Point reads (gets; a mix of gets and scans counts as point reads:
    /// YCSB's, mixgraph's).
    Point,
    /// Range scans only.
    Range,
    /// A step whose kind rumbench cannot name from its result.
    Unknown,
}

impl Reads {
    /// The reads of a step of `kind`.
    pub fn of_kind(kind: StepKind) -> Reads {
        use StepKind::*;
        match kind {
            Fill | FillSeq | FillRandom | FillUniqueRandom | Overwrite | DeleteRandom | Flush | WaitForCompaction
            | Settle | YcsbLoad | LoadI0 => Reads::Nothing,
            ReadRandom | MultiReadRandom | ReadWhileWriting | MixGraph | YcsbA | YcsbB | YcsbC | YcsbD | YcsbF
            | Qp100 | Qp500 | Qp1000 | HotRow | RandomTransaction | LoadI1 | LoadI2 => Reads::Point,
            ReadSeq | FwdRange | RevRange | FwdRangeWhileWriting | YcsbE | Qr100 | Qr500 | Qr1000 => Reads::Range,
            // A replay reads what its trace holds; sysbench's SQL reads as the server plans it.
            CreateIndexes | Replay | Sysbench(_) => Reads::Unknown,
        }
    }
}

/// What one run of a config recorded about one step, as far as the
/// settings' rules need it. `None`: not recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFacts {
    pub reads: Reads,
    /// The step's clients or its background writer wrote.
    pub writes: bool,
    /// The engine flushed or compacted something into its files (or wrote
    /// its data files: the engine's write-amplification) during the step.
    pub flushed: Option<bool>,
    /// The engine had table files (SSTs) at the step's end.
    pub tables: Option<bool>,
    /// The data's size at the step's end: the larger of its bytes on disk
    /// and its logical live bytes (a cache holds blocks uncompressed).
    pub data_bytes: Option<u64>,
}

impl Default for StepFacts {
    fn default() -> Self {
        StepFacts { reads: Reads::Unknown, writes: false, flushed: None, tables: None, data_bytes: None }
    }
}

fn stat_u64(s: &StepResult, key: &str) -> Option<u64> {
    s.engine_stat(key).and_then(|v| v.trim().parse().ok())
}

/// The engine's table files at a step's end: RocksDB's SST bytes, LevelDB's
/// file count over its levels.
fn table_measure(s: &StepResult, engine: &str) -> Option<u64> {
    match family(engine) {
        Family::RocksDb => stat_u64(s, "rocksdb.total-sst-files-size"),
        Family::LevelDb => {
            let files: Vec<u64> =
                (0..7).filter_map(|l| stat_u64(s, &format!("leveldb.num-files-at-level{l}"))).collect();
            (!files.is_empty()).then(|| files.iter().sum())
        }
        Family::Other => None,
    }
}

impl StepFacts {
    /// The facts of step `s` of a config of `engine`, `prev` the step the
    /// same config ran before it (the engine's counters are cumulative).
    pub fn of(s: &StepResult, prev: Option<&StepResult>, engine: &str) -> StepFacts {
        let m = &s.metrics;
        let data_bytes = match (m.db_size_bytes, m.logical_live_bytes) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let tables_now = table_measure(s, engine);
        StepFacts {
            reads: s.step_kind().map(Reads::of_kind).unwrap_or(Reads::Unknown),
            writes: m.logical_bytes_written > 0 || s.writer.as_ref().is_some_and(|w| w.ops > 0),
            flushed: flushed(s, prev, engine, tables_now),
            tables: tables_now.map(|t| t > 0),
            data_bytes,
        }
    }
}

/// Whether the engine flushed or compacted during step `s` (see `StepFacts::flushed`).
fn flushed(s: &StepResult, prev: Option<&StepResult>, engine: &str, tables_now: Option<u64>) -> Option<bool> {
    if family(engine) == Family::RocksDb {
        let key = "write_amp.flush_and_compaction_bytes";
        if let Some(now) = stat_u64(s, key) {
            // The counters run from the DB's opening: a config's first step starts them.
            let before = match prev {
                Some(p) => stat_u64(p, key),
                None => Some(0),
            };
            if let Some(before) = before {
                if now > before {
                    return Some(true);
                }
                if s.engine_stat("write_amp.source").is_some_and(|src| src.starts_with("statistics")) {
                    return Some(false);
                }
            }
        }
    }
    if let Some(a) = s.engine_write_amp {
        return Some(a > 0.0);
    }
    // Tables at the step's end against the step before: none at all, or the
    // same as before, means nothing was flushed or compacted.
    match (tables_now, prev.map(|p| table_measure(p, engine))) {
        (Some(0), _) => Some(false),
        (Some(now), Some(Some(before))) => Some(now != before),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    RocksDb,
    LevelDb,
    Other,
}

fn family(engine: &str) -> Family {
    if engine.starts_with("rocksdb") {
        Family::RocksDb
    } else if engine.starts_with("leveldb") {
        Family::LevelDb
    } else {
        Family::Other
    }
}

/// What a setting's rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// The format of table files: compression, block size.
    TableFormat,
    /// A bloom filter: built with the tables, used by point reads of them.
    Bloom,
    /// A block cache: used by reads only.
    BlockCache,
    /// A page cache that writes use too (only reads-only steps are judged).
    PageCache,
    /// SQLite's page cache (reads and writes alike).
    SqliteCache,
    /// Page compression of a B-tree's data files: acts when pages are written.
    PageCompression,
}

/// The rule of `option` of `engine`, if rumbench has one.
fn rule(engine: &str, option: &str) -> Option<Rule> {
    match (family(engine), option) {
        (Family::RocksDb | Family::LevelDb, "compression" | "block_size") => Some(Rule::TableFormat),
        (Family::RocksDb | Family::LevelDb, "bloom_bits") => Some(Rule::Bloom),
        (Family::RocksDb | Family::LevelDb, "block_cache_size") => Some(Rule::BlockCache),
        _ => match (engine, option) {
            ("wiredtiger" | "splinterdb", "cache_size") => Some(Rule::PageCache),
            ("sqlite", "cache_size") => Some(Rule::SqliteCache),
            ("wiredtiger", "block_compressor") => Some(Rule::PageCompression),
            _ => None,
        },
    }
}

/// Whether a setting could have acted in a step.
#[derive(Debug, Clone, PartialEq)]
pub enum Acted {
    /// It could have (or rumbench has no rule to say otherwise).
    Could,
    /// It could not have: why, in a short phrase.
    Never(String),
    /// A figure needed to decide was not recorded: which.
    CannotTell(String),
}

/// Three-valued or: true if either is, false if both are.
fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// Over every run of both sides: true if any is, false if all are.
fn any(facts: &[&StepFacts], f: impl Fn(&StepFacts) -> Option<bool>) -> Option<bool> {
    facts.iter().map(|x| f(x)).fold(Some(false), or)
}

fn mb(bytes: u64) -> String {
    let mb = bytes as f64 / 1048576.0;
    if mb >= 10.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{mb:.1} MB")
    }
}

const NO_FLUSH: &str = "nothing was flushed or compacted in this step";
const NO_FLUSH_FIGURES: &str =
    "the engine's flush and compaction counters do not say whether it flushed (rocksdb: statistics=true counts exactly)";

/// Whether a setting ruled by `rule`, whose values are `values` on the two
/// sides, could have acted in a step whose runs on both sides recorded `facts`.
fn decide(rule: Rule, values: (&str, &str), facts: &[&StepFacts]) -> Acted {
    let reads = |want: &dyn Fn(Reads) -> bool| -> Option<bool> {
        let r: Vec<Reads> = facts.iter().map(|f| f.reads).collect();
        if r.contains(&Reads::Unknown) {
            None
        } else {
            Some(r.into_iter().any(want))
        }
    };
    let tables = any(facts, |f| f.tables);
    let flushed = any(facts, |f| f.flushed);
    match rule {
        Rule::TableFormat | Rule::Bloom => {
            let read_kind = |r: Reads| if rule == Rule::Bloom { r == Reads::Point } else { r != Reads::Nothing };
            let reading = reads(&read_kind);
            // Reads that reach a table file: the step reads, and there are tables.
            let reads_tables = match reading {
                Some(false) => Some(false),
                Some(true) => tables,
                None => None,
            };
            match or(flushed, reads_tables) {
                Some(true) => Acted::Could,
                Some(false) => Acted::Never(match (reading, tables) {
                    (Some(false), _) if rule == Rule::Bloom && reads(&|r: Reads| r == Reads::Range) == Some(true) => {
                        format!("{NO_FLUSH}, and its reads were range scans (a bloom filter serves point reads)")
                    }
                    (Some(false), _) => NO_FLUSH.to_string(),
                    _ => "nothing was flushed and there are no SST files: every read was served by the memtable".into(),
                }),
                None if flushed.is_none() => Acted::CannotTell(NO_FLUSH_FIGURES.into()),
                None if reading.is_none() => Acted::CannotTell("the step's kind does not say what it reads".into()),
                None => Acted::CannotTell("the engine's table files were not recorded".into()),
            }
        }
        Rule::BlockCache | Rule::PageCache | Rule::SqliteCache => {
            if rule == Rule::BlockCache {
                match reads(&|r: Reads| r != Reads::Nothing) {
                    Some(false) => {
                        return Acted::Never("the step read nothing (writes do not use the block cache)".into())
                    }
                    None => return Acted::CannotTell("the step's kind does not say what it reads".into()),
                    Some(true) => {}
                }
            }
            if rule == Rule::PageCache && facts.iter().any(|f| f.writes) {
                // Its writes fill the cache too (dirty pages, evicted early): no claim.
                return Acted::Could;
            }
            let (Some(a), Some(b)) = (crate::plan::parse_size(values.0), crate::plan::parse_size(values.1)) else {
                return Acted::Could;
            };
            let smaller = a.min(b);
            let data: Option<u64> = facts.iter().map(|f| f.data_bytes).try_fold(0u64, |m, d| d.map(|d| m.max(d)));
            match data {
                Some(d) if d <= smaller => {
                    Acted::Never(format!("the data ({}) fits in the smaller cache ({})", mb(d), mb(smaller)))
                }
                Some(_) => Acted::Could,
                None => Acted::CannotTell("the data's size was not recorded".into()),
            }
        }
        Rule::PageCompression => {
            // Reads may decompress pages read from the files: no claim on steps that read.
            if reads(&|r: Reads| r != Reads::Nothing) != Some(false) {
                return Acted::Could;
            }
            match flushed {
                Some(false) => Acted::Never("nothing was written to the data files in this step".into()),
                Some(true) => Acted::Could,
                None => Acted::CannotTell("the engine's write counters were not recorded".into()),
            }
        }
    }
}

/// One side of a pair in one step: its engine, its options (every option,
/// defaults filled in) and the facts of each of its runs of the step.
pub struct Side<'a> {
    pub engine: &'a str,
    pub options: &'a [(String, String)],
    pub facts: Vec<&'a StepFacts>,
}

/// The note for a pair of configs in one step: each setting they differ in
/// that could not have acted ("compression never acted: nothing was flushed
/// or compacted in this step"), or whose action rumbench cannot tell; None
/// when every setting they differ in could have acted, when the engines
/// differ, or when a side has no runs of the step.
pub fn note(a: &Side, b: &Side) -> Option<String> {
    if a.engine != b.engine || a.facts.is_empty() || b.facts.is_empty() {
        return None;
    }
    let value = |s: &Side, k: &str| s.options.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut keys: Vec<&str> = a.options.iter().chain(b.options).map(|(k, _)| k.as_str()).collect();
    keys.sort();
    keys.dedup();
    let facts: Vec<&StepFacts> = a.facts.iter().chain(&b.facts).copied().collect();
    let mut parts = Vec::new();
    for k in keys {
        let (Some(va), Some(vb)) = (value(a, k), value(b, k)) else { continue };
        if va == vb {
            continue;
        }
        let Some(r) = rule(a.engine, k) else { continue };
        match decide(r, (&va, &vb), &facts) {
            Acted::Could => {}
            Acted::Never(why) => parts.push(format!("{k} never acted: {why}")),
            Acted::CannotTell(why) => parts.push(format!("{k}: cannot tell whether it acted: {why}")),
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(reads: Reads, flushed: Option<bool>, tables: Option<bool>, data_mb: Option<u64>) -> StepFacts {
        StepFacts { reads, writes: reads == Reads::Nothing, flushed, tables, data_bytes: data_mb.map(|m| m << 20) }
    }

    fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn pair(engine: &str, a: &[(&str, &str)], b: &[(&str, &str)], f: &StepFacts) -> Option<String> {
        let (oa, ob) = (opts(a), opts(b));
        note(&Side { engine, options: &oa, facts: vec![f] }, &Side { engine, options: &ob, facts: vec![f] })
    }

    #[test]
    fn compression_and_block_size_act_only_on_table_files() {
        let none = [("compression", "none"), ("block_size", "4096")];
        let snappy = [("compression", "snappy"), ("block_size", "4096")];
        // A fill that stayed in the memtable.
        let fill = facts(Reads::Nothing, Some(false), Some(false), Some(30));
        assert_eq!(
            pair("rocksdb", &none, &snappy, &fill).as_deref(),
            Some("compression never acted: nothing was flushed or compacted in this step")
        );
        // A fill that flushed: compression acted, no note.
        assert_eq!(pair("rocksdb", &none, &snappy, &facts(Reads::Nothing, Some(true), Some(true), Some(30))), None);
        // Reads with no tables: every read came from the memtable.
        let read = facts(Reads::Point, Some(false), Some(false), Some(30));
        assert!(pair("rocksdb", &none, &snappy, &read).unwrap().contains("every read was served by the memtable"));
        // Reads of tables: it acted.
        assert_eq!(pair("rocksdb", &none, &snappy, &facts(Reads::Point, Some(false), Some(true), Some(30))), None);
        // Block size, LevelDB alike.
        let b4 = [("block_size", "4K")];
        let b16 = [("block_size", "16K")];
        assert!(pair("leveldb", &b4, &b16, &fill).unwrap().starts_with("block_size never acted"));
        // Flushes not recorded: cannot tell.
        let unknown = facts(Reads::Nothing, None, Some(true), Some(30));
        assert!(pair("rocksdb", &none, &snappy, &unknown).unwrap().starts_with("compression: cannot tell"));
        // Configs alike in it, or other engines: nothing.
        assert_eq!(pair("rocksdb", &none, &none, &fill), None);
        assert_eq!(pair("lmdb", &none, &snappy, &fill), None);
    }

    #[test]
    fn either_side_acting_is_enough() {
        let (oa, ob) = (opts(&[("compression", "none")]), opts(&[("compression", "snappy")]));
        let still = facts(Reads::Nothing, Some(false), Some(false), Some(30));
        let flushed = facts(Reads::Nothing, Some(true), Some(true), Some(30));
        let a = Side { engine: "rocksdb", options: &oa, facts: vec![&still] };
        let b = Side { engine: "rocksdb", options: &ob, facts: vec![&still, &flushed] };
        assert_eq!(note(&a, &b), None, "one repeat of one side flushed");
        let b = Side { engine: "rocksdb", options: &ob, facts: vec![&still] };
        assert!(note(&a, &b).is_some());
        let l = Side { engine: "leveldb", options: &ob, facts: vec![&still] };
        assert_eq!(note(&a, &l), None, "different engines compare more than a setting");
    }

    #[test]
    fn a_bloom_filter_acts_on_flushes_and_point_reads_of_tables() {
        let (a, b) = ([("bloom_bits", "0")], [("bloom_bits", "10")]);
        assert!(pair("rocksdb", &a, &b, &facts(Reads::Range, Some(false), Some(true), Some(30)))
            .unwrap()
            .contains("range scans"));
        assert_eq!(pair("rocksdb", &a, &b, &facts(Reads::Point, Some(false), Some(true), Some(30))), None);
        assert!(pair("rocksdb", &a, &b, &facts(Reads::Point, Some(false), Some(false), Some(30)))
            .unwrap()
            .starts_with("bloom_bits never acted"));
        assert!(pair("rocksdb", &a, &b, &facts(Reads::Point, Some(false), None, Some(30)))
            .unwrap()
            .contains("cannot tell"));
        // A flush builds the filters.
        assert_eq!(pair("rocksdb", &a, &b, &facts(Reads::Nothing, Some(true), Some(true), Some(30))), None);
    }

    #[test]
    fn a_cache_acts_when_the_step_reads_more_than_the_smaller_one_holds() {
        let (a, b) = ([("block_cache_size", "32M")], [("block_cache_size", "1G")]);
        assert_eq!(
            pair("rocksdb", &a, &b, &facts(Reads::Point, Some(false), Some(true), Some(20))).as_deref(),
            Some("block_cache_size never acted: the data (20 MB) fits in the smaller cache (32 MB)")
        );
        assert_eq!(pair("rocksdb", &a, &b, &facts(Reads::Point, Some(false), Some(true), Some(200))), None);
        assert!(pair("rocksdb", &a, &b, &facts(Reads::Nothing, Some(true), Some(true), Some(200)))
            .unwrap()
            .contains("the step read nothing"));
        assert!(pair("rocksdb", &a, &b, &facts(Reads::Point, Some(false), Some(true), None))
            .unwrap()
            .contains("cannot tell whether it acted: the data's size was not recorded"));
        // WiredTiger's cache takes writes too: only steps that only read are judged.
        let (wa, wb) = ([("cache_size", "100M")], [("cache_size", "1G")]);
        assert!(pair("wiredtiger", &wa, &wb, &facts(Reads::Point, None, None, Some(20))).is_some());
        assert_eq!(pair("wiredtiger", &wa, &wb, &facts(Reads::Nothing, None, None, Some(20))), None);
        assert!(pair("sqlite", &wa, &wb, &facts(Reads::Nothing, None, None, Some(20))).is_some());
    }

    #[test]
    fn wiredtiger_compression_acts_when_pages_are_written() {
        let (a, b) = ([("block_compressor", "none")], [("block_compressor", "snappy")]);
        assert!(pair("wiredtiger", &a, &b, &facts(Reads::Nothing, Some(false), None, Some(20)))
            .unwrap()
            .contains("nothing was written to the data files"));
        assert_eq!(pair("wiredtiger", &a, &b, &facts(Reads::Point, Some(false), None, Some(20))), None);
    }

    #[test]
    fn facts_come_from_the_engine_counters_and_tables() {
        use crate::result::fixtures;
        let mut st = fixtures::step(StepKind::FillRandom, 1.0, vec![fixtures::op("put", 1000, 10.0, 0, 0, 0)]);
        st.metrics.logical_bytes_written = 1000;
        let with = |s: &StepResult, stats: &[(&str, &str)]| {
            let mut s = s.clone();
            s.engine_stats = stats.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            s
        };
        // Coarse counters, no SSTs: nothing flushed.
        let none = with(
            &st,
            &[
                ("write_amp.flush_and_compaction_bytes", "0"),
                ("write_amp.source", "rocksdb.stats text (rounded to 0.01 GB)"),
                ("rocksdb.total-sst-files-size", "0"),
            ],
        );
        let f = StepFacts::of(&none, None, "rocksdb");
        assert_eq!((f.reads, f.writes, f.flushed, f.tables), (Reads::Nothing, true, Some(false), Some(false)));
        // Coarse counters, SSTs and no step before: cannot tell.
        let some = with(
            &st,
            &[
                ("write_amp.flush_and_compaction_bytes", "0"),
                ("write_amp.source", "rocksdb.stats text (rounded to 0.01 GB)"),
                ("rocksdb.total-sst-files-size", "5000"),
            ],
        );
        assert_eq!(StepFacts::of(&some, None, "rocksdb").flushed, None);
        // The same SSTs as the step before: nothing flushed; more: flushed.
        assert_eq!(StepFacts::of(&some, Some(&some), "rocksdb").flushed, Some(false));
        assert_eq!(StepFacts::of(&some, Some(&none), "rocksdb").flushed, Some(true));
        // Exact counters.
        let exact = with(
            &st,
            &[("write_amp.flush_and_compaction_bytes", "0"), ("write_amp.source", "statistics tickers (exact)")],
        );
        assert_eq!(StepFacts::of(&exact, None, "rocksdb").flushed, Some(false));
        let wrote = with(&st, &[("write_amp.flush_and_compaction_bytes", "4096")]);
        assert_eq!(StepFacts::of(&wrote, Some(&exact), "rocksdb").flushed, Some(true));
        // LevelDB: its files per level.
        let l0 = with(&st, &[("leveldb.num-files-at-level0", "0"), ("leveldb.num-files-at-level1", "0")]);
        let f = StepFacts::of(&l0, None, "leveldb");
        assert_eq!((f.flushed, f.tables), (Some(false), Some(false)));
        assert_eq!(Reads::of_kind(StepKind::ReadRandom), Reads::Point);
        assert_eq!(Reads::of_kind(StepKind::FwdRange), Reads::Range);
    }
}
