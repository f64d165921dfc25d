//! What the plain RocksDB (rocksdb.rs) and the transactional one
//! (txn.rs) share: the options, cache and directory of an open DB,
//! what RocksDB reports about itself (its OPTIONS file, properties and
//! statistics), its wait for compactions, and the scan of an iterator.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::ffi::{self, Cache, DbHandle, DbIterator, Options};
use crate::engine::{Internal, WriteAmpCounters};

/// What a plain and a transactional RocksDB share: options, cache, where it lives.
pub(super) struct Common {
    // Kept alive for the DB's lifetime (its engine drops the DB first); also
    // queried for statistics.
    pub db_opts: Options,
    pub _cache: Cache,
    pub dir: PathBuf,
    pub write_opts_sync: bool,
    pub write_opts_wal: bool,
    pub statistics: bool,
    /// The block cache as created (the OPTIONS file does not name its type).
    pub cache_description: String,
    /// max_background_jobs: flush and compaction threads beside the clients.
    pub background_jobs: usize,
}

impl Common {
    pub fn version(&self) -> String {
        latest_options_file(&self.dir)
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| {
                parse_options_file(&t).into_iter().find(|(k, _)| k == "Version.rocksdb_version").map(|(_, v)| v)
            })
            .unwrap_or_else(|| "unknown".into())
    }

    pub fn background_threads(&self) -> (usize, String) {
        (self.background_jobs, format!("{} background jobs (max_background_jobs)", self.background_jobs))
    }

    pub fn effective_options(&self) -> Vec<(String, String)> {
        let mut out = vec![("WriteOptions.sync".to_string(), self.write_opts_sync.to_string())];
        out.push(("WriteOptions.disableWAL".into(), (!self.write_opts_wal).to_string()));
        out.push(("BlockBasedTable.block_cache".into(), self.cache_description.clone()));
        match latest_options_file(&self.dir).and_then(|p| std::fs::read_to_string(p).ok()) {
            Some(text) => out.extend(parse_options_file(&text)),
            None => out.push(("OPTIONS".into(), "no OPTIONS file found".into())),
        }
        out
    }

    /// The DB's properties and counters; `property` reads one from the open DB.
    pub fn stats(&self, property: &dyn Fn(&str) -> Option<String>) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> =
            INT_PROPERTIES.iter().filter_map(|p| property(p).map(|v| (p.to_string(), v))).collect();
        if let Some(wa) = self.write_amp_counters(property) {
            out.push(("write_amp.ingest_bytes".into(), wa.ingest_bytes.to_string()));
            out.push(("write_amp.flush_and_compaction_bytes".into(), wa.written_bytes.to_string()));
            out.push((
                "write_amp.source".into(),
                if self.statistics { "statistics tickers (exact)" } else { "rocksdb.stats text (rounded to 0.01 GB)" }
                    .into(),
            ));
        }
        if let Some(text) = property("rocksdb.stats") {
            out.push(("rocksdb.stats".into(), text));
        }
        if let Some(text) = self.db_opts.statistics() {
            out.push(("rocksdb.options-statistics".into(), text));
        }
        out
    }

    pub fn write_amp_counters(&self, property: &dyn Fn(&str) -> Option<String>) -> Option<WriteAmpCounters> {
        if self.statistics {
            let text = self.db_opts.statistics()?;
            let flush = ticker(&text, "rocksdb.flush.write.bytes")?;
            let compact = ticker(&text, "rocksdb.compact.write.bytes")?;
            return Some(WriteAmpCounters {
                ingest_bytes: ticker(&text, "rocksdb.bytes.written")?,
                written_bytes: flush + compact,
                resolution_bytes: 1,
            });
        }
        parse_stats_write_amp(&property("rocksdb.stats")?)
    }

    /// What the engine still owes for the writes it took (see `Engine::write_debt`).
    pub fn write_debt(
        &self,
        property: &dyn Fn(&str) -> Option<String>,
    ) -> std::result::Result<Vec<(String, u64)>, String> {
        WRITE_DEBT_PROPERTIES
            .iter()
            .map(|(name, property_name)| {
                property(property_name)
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(|v| (name.to_string(), v))
                    .ok_or_else(|| format!("RocksDB did not answer {property_name}"))
            })
            .collect()
    }

    /// The counters sampled each second: INTERNAL_PROPERTIES and the
    /// cumulative stall time (its rate: stall microseconds per second).
    pub fn internals(&self, property: &dyn Fn(&str) -> Option<String>) -> std::result::Result<Vec<Internal>, String> {
        let mut out: Vec<Internal> = INTERNAL_PROPERTIES
            .iter()
            .filter_map(|(name, p)| {
                let value = property(p)?.trim().parse::<f64>().ok()?;
                Some(Internal { name, value, cumulative: false })
            })
            .collect();
        if let Some(us) = property("rocksdb.dbstats").as_deref().and_then(parse_cumulative_stall_us) {
            out.push(Internal { name: "stall_us_per_s", value: us, cumulative: true });
        }
        if out.is_empty() {
            return Err("RocksDB answered none of its counters' properties".into());
        }
        Ok(out)
    }

    /// Whether flushes or compactions are pending or running.
    pub fn background_work_pending(&self, property: &dyn Fn(&str) -> Option<String>) -> bool {
        [
            "rocksdb.compaction-pending",
            "rocksdb.mem-table-flush-pending",
            "rocksdb.num-running-compactions",
            "rocksdb.num-running-flushes",
        ]
        .iter()
        .any(|p| property(p).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0) > 0)
    }
}

/// RocksDB's counters sampled each second (`Engine::internals`): rumbench's
/// name, RocksDB's integer property.
const INTERNAL_PROPERTIES: &[(&str, &str)] = &[
    ("pending_compaction_bytes", "rocksdb.estimate-pending-compaction-bytes"),
    ("l0_files", "rocksdb.num-files-at-level0"),
    ("memtable_bytes", "rocksdb.cur-size-all-mem-tables"),
    ("immutable_memtables", "rocksdb.num-immutable-mem-table"),
    ("running_flushes", "rocksdb.num-running-flushes"),
    ("running_compactions", "rocksdb.num-running-compactions"),
    // Bytes/s writes are slowed to (0: not slowed), and whether they are stopped.
    ("delayed_write_rate", "rocksdb.actual-delayed-write-rate"),
    ("write_stopped", "rocksdb.is-write-stopped"),
];

/// "Cumulative stall: 00:00:1.234 H:M:S, 0.3 percent" of rocksdb.dbstats:
/// the time writes have stalled since the DB opened, in microseconds.
pub fn parse_cumulative_stall_us(dbstats: &str) -> Option<f64> {
    let line = dbstats.lines().find(|l| l.trim_start().starts_with("Cumulative stall:"))?;
    let hms = line.split(':').skip(1).collect::<Vec<_>>().join(":");
    let hms = hms.split_whitespace().next()?;
    let mut parts = hms.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    let seconds = h.parse::<f64>().ok()? * 3600.0 + m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?;
    Some(seconds * 1e6)
}

/// The figures of RocksDB's write debt: rumbench's name, RocksDB's property.
const WRITE_DEBT_PROPERTIES: &[(&str, &str)] = &[
    // Bytes in the memtables (active and immutable): the flushes still to come.
    ("memtable_bytes", "rocksdb.cur-size-all-mem-tables"),
    // RocksDB's estimate of the bytes compaction must rewrite to bring every
    // level within its target size.
    ("pending_compaction_bytes", "rocksdb.estimate-pending-compaction-bytes"),
    ("l0_files", "rocksdb.num-files-at-level0"),
    ("running_flushes", "rocksdb.num-running-flushes"),
    ("running_compactions", "rocksdb.num-running-compactions"),
];

/// The newest OPTIONS-NNNNNN file RocksDB wrote: every option in force, as RocksDB sees it.
pub(super) fn latest_options_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let n: u64 = name.strip_prefix("OPTIONS-")?.parse().ok()?;
            Some((n, e.path()))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, p)| p)
}

/// Parse an OPTIONS file into ("Section.name", value) pairs.
pub fn parse_options_file(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            // [CFOptions "default"] -> CFOptions; [TableOptions/BlockBasedTable "default"] -> TableOptions/BlockBasedTable
            section = s.split_whitespace().next().unwrap_or("").to_string();
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            out.push((format!("{section}.{}", k.trim()), v.trim().to_string()));
        }
    }
    out
}

/// Parse the "Cumulative writes ... ingest: X GB" and "Cumulative compaction:
/// X GB write" lines of rocksdb.stats. RocksDB counts flushes as compaction
/// output of level 0, so the compaction figure already includes them.
pub fn parse_stats_write_amp(stats: &str) -> Option<WriteAmpCounters> {
    const GB: f64 = (1u64 << 30) as f64;
    let after = |line: &str, key: &str| -> Option<f64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    let mut ingest = None;
    let mut written = None;
    for line in stats.lines() {
        if line.starts_with("Cumulative writes:") {
            ingest = after(line, "ingest:");
        } else if line.starts_with("Cumulative compaction:") {
            written = after(line, "Cumulative compaction:");
        }
    }
    Some(WriteAmpCounters {
        ingest_bytes: (ingest? * GB) as u64,
        written_bytes: (written? * GB) as u64,
        resolution_bytes: (0.01 * GB) as u64,
    })
}

/// Read a ticker ("rocksdb.bytes.written COUNT : 123") from the statistics dump.
pub fn ticker(stats: &str, name: &str) -> Option<u64> {
    stats.lines().find_map(|l| {
        let rest = l.strip_prefix(name)?.trim_start();
        rest.strip_prefix("COUNT :")?.trim().parse().ok()
    })
}

pub(super) const INT_PROPERTIES: &[&str] = &[
    "rocksdb.estimate-num-keys",
    "rocksdb.total-sst-files-size",
    "rocksdb.live-sst-files-size",
    "rocksdb.estimate-live-data-size",
    "rocksdb.estimate-pending-compaction-bytes",
    "rocksdb.num-running-compactions",
    "rocksdb.num-running-flushes",
    "rocksdb.compaction-pending",
    "rocksdb.mem-table-flush-pending",
    "rocksdb.cur-size-all-mem-tables",
    "rocksdb.block-cache-usage",
    "rocksdb.block-cache-capacity",
    "rocksdb.actual-delayed-write-rate",
    "rocksdb.is-write-stopped",
    "rocksdb.num-files-at-level0",
    "rocksdb.num-files-at-level1",
    "rocksdb.num-files-at-level2",
    "rocksdb.num-files-at-level3",
    "rocksdb.num-files-at-level4",
    "rocksdb.num-files-at-level5",
    "rocksdb.num-files-at-level6",
];

/// RocksDB's own wait for background work (DB::WaitForCompact, flushing
/// first), not polling compaction-pending: with universal compaction that
/// stays 1 when there is nothing it can pick (RocksDB issue 9275).
/// Some(false) when `timeout` came first.
/// None before RocksDB 8.8.1 (no WaitForCompact in the C API): the caller
/// polls; the memtable is flushed first, as WaitForCompact's flush option
/// does, so both do the same work.
pub(super) fn wait_for_compact(db: &DbHandle, timeout: std::time::Duration) -> Result<Option<bool>> {
    #[cfg(rocksdb_has_wait_for_compact)]
    if ffi::caps().wait_for_compact {
        return match db.wait_for_compact(true, timeout) {
            Ok(()) => Ok(Some(true)),
            Err(e) if e.kind() == ffi::ErrorKind::TimedOut => Ok(Some(false)),
            Err(e) => Err(e).context("rocksdb wait for compaction"),
        };
    }
    let _ = timeout;
    db.flush().context("rocksdb flush before waiting for compactions")?;
    Ok(None)
}

/// Visit up to `max_entries` entries from `start` (see `Session::scan`).
pub(super) fn scan_with(
    mut it: DbIterator<'_>,
    start: &[u8],
    reverse: bool,
    max_entries: usize,
    visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
) -> Result<usize> {
    if reverse {
        it.seek_for_prev(start);
    } else {
        it.seek(start);
    }
    let mut n = 0;
    // One Valid() per entry (the C API's key, value and moves ask none).
    while n < max_entries {
        let Some(e) = it.entry() else { break };
        n += 1;
        let positioned = e.positioned();
        if !visit(e.key, e.value) || n == max_entries {
            break;
        }
        it.step_from(positioned, reverse);
    }
    it.status().context("rocksdb iterator")?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cumulative_stall_is_read_from_dbstats() {
        let dbstats = "\n** DB Stats **\nUptime(secs): 12.3 total, 1.0 interval\n\
Cumulative writes: 1000 writes, 1000 keys, 1000 commit groups, 1.0 writes per commit group, ingest: 0.00 GB, 0.10 MB/s\n\
Cumulative stall: 00:01:2.500 H:M:S, 8.3 percent\n\
Interval stall: 00:00:0.000 H:M:S, 0.0 percent\n";
        assert_eq!(parse_cumulative_stall_us(dbstats), Some(62.5e6));
        assert_eq!(parse_cumulative_stall_us("no stall line"), None);
    }

    #[test]
    fn stats_text_parses() {
        let text = "** DB Stats **\nUptime(secs): 10.0 total, 10.0 interval\nCumulative writes: 1000K writes, 1000K keys, 1000K commit groups, 1.0 writes per commit group, ingest: 0.11 GB, 11.07 MB/s\n\
Cumulative compaction: 0.25 GB write, 25.10 MB/s write, 0.14 GB read, 14.0 MB/s read, 1.2 seconds\n";
        let wa = parse_stats_write_amp(text).unwrap();
        assert_eq!(wa.ingest_bytes, (0.11 * (1u64 << 30) as f64) as u64);
        // 0.11 GB reported in steps of 0.01 GB is too coarse for a ratio within 2%.
        assert_eq!(wa.amp_since(None), None);
        let big = parse_stats_write_amp(&text.replace("ingest: 0.11 GB", "ingest: 1.10 GB")).unwrap();
        assert!((big.amp_since(None).unwrap() - 0.25 / 1.10).abs() < 1e-6);
        assert_eq!(
            ticker("rocksdb.bytes.written COUNT : 1234\nrocksdb.x COUNT : 1", "rocksdb.bytes.written"),
            Some(1234)
        );
        let opts =
            parse_options_file("[Version]\n  rocksdb_version=7.8.3\n[CFOptions \"default\"]\n  write_buffer_size=1\n");
        assert_eq!(opts[0], ("Version.rocksdb_version".into(), "7.8.3".into()));
        assert_eq!(opts[1], ("CFOptions.write_buffer_size".into(), "1".into()));
    }
}
