//! RocksDB's stall counters read from its stats text (rocksdb.stats): the
//! uptime, the cumulative stall time and the stall count since the DB was
//! opened, which the metric table turns into a step's stall% and stalls.

/// RocksDB's stats text: (uptime s, cumulative stall s, stall count) since the DB was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RocksStalls {
    pub uptime_s: f64,
    pub stall_s: f64,
    pub stalls: u64,
}

/// Parse "Uptime(secs): 20.3 total", "Cumulative stall: 00:00:1.500 H:M:S"
/// and the "Stalls(count): N name, M name, ..." line of rocksdb.stats.
pub fn parse_rocksdb_stalls(text: &str) -> Option<RocksStalls> {
    let mut out = RocksStalls::default();
    let (mut up, mut st) = (false, false);
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Uptime(secs):") {
            if let Some(v) = rest.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()) {
                out.uptime_s = v;
                up = true;
            }
        } else if let Some(rest) = line.strip_prefix("Cumulative stall:") {
            let hms = rest.split_whitespace().next()?;
            let parts: Vec<f64> = hms.split(':').filter_map(|p| p.parse().ok()).collect();
            if parts.len() == 3 {
                out.stall_s = parts[0] * 3600.0 + parts[1] * 60.0 + parts[2];
                st = true;
            }
        } else if let Some(rest) = line.strip_prefix("Stalls(count):") {
            // "0 level0_slowdown, 0 level0_numfiles, ..., interval 0 total count"
            out.stalls = rest
                .split(',')
                .filter(|part| !part.contains("interval") && !part.contains("total"))
                .filter_map(|part| part.split_whitespace().next()?.parse::<u64>().ok())
                .sum();
        }
    }
    (up && st).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rocksdb_stall_lines() {
        let text = "** DB Stats **\nUptime(secs): 20.3 total, 0.0 interval\n\
Stalls(count): 2 level0_slowdown, 0 level0_slowdown_with_compaction, 1 level0_numfiles, 3 memtable_slowdown, interval 0 total count\n\
Cumulative stall: 00:01:2.500 H:M:S, 3.1 percent\nInterval stall: 00:00:0.000 H:M:S, 0.0 percent\n";
        let s = parse_rocksdb_stalls(text).unwrap();
        assert_eq!(s, RocksStalls { uptime_s: 20.3, stall_s: 62.5, stalls: 6 });
        assert!(parse_rocksdb_stalls("nothing").is_none());
    }
}
