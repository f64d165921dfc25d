//! Trace recording (`--trace FILE`) and replay (`--replay FILE`, the
//! `replay` step): where a recording goes, and how a trace is replayed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where a step's recording goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceTarget {
    /// The file as given.
    pub path: PathBuf,
    /// More than one step (or config) records: each into a file of its own,
    /// named after the given one (`t.rtrace` -> `t.rocksdb.2-readrandom.rtrace`).
    pub per_step: bool,
}

impl TraceTarget {
    /// The file step `index` (from 0, `step` its name) of `config` records into.
    pub fn file(&self, config: &str, index: usize, step: &str) -> PathBuf {
        if !self.per_step {
            return self.path.clone();
        }
        let stem = self.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        // A config's name may hold characters a file name should not.
        let safe = |s: &str| -> String {
            s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.@".contains(c) { c } else { '_' }).collect()
        };
        let name = format!("{stem}.{}.{}-{}", safe(config), index + 1, safe(step));
        let name = match self.path.extension() {
            Some(ext) => format!("{name}.{}", ext.to_string_lossy()),
            None => name,
        };
        self.path.with_file_name(name)
    }
}

/// How the `replay` step replays its trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayPlan {
    pub path: PathBuf,
    /// `--replay-speed`: 1 at the recorded timing, 2 twice as fast, 0.5 half;
    /// None as fast as the engine goes (each thread's calls back to back).
    pub speed: Option<f64>,
    /// `--threads` given: the calls dealt to this many threads in the order
    /// of their intended starts (None: each recorded thread's calls on a
    /// thread of their own).
    pub threads: Option<usize>,
}

impl ReplayPlan {
    /// `--replay-speed` as given: "max", or a factor ("2", "2x", "0.5").
    pub fn parse_speed(text: &str) -> Result<Option<f64>, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("max") {
            return Ok(None);
        }
        let v: f64 = t.strip_suffix(['x', 'X']).unwrap_or(t).trim().parse().map_err(|_| {
            format!("--replay-speed takes max or a factor of the recorded rate (0.5, 1, 2x), got '{t}'")
        })?;
        if !(0.001..=1000.0).contains(&v) {
            return Err(format!("--replay-speed must be between 0.001 and 1000 times the recorded rate, got {v}"));
        }
        Ok(Some(v))
    }

    /// The speed as said in results and notes.
    pub fn speed_text(&self) -> String {
        match self.speed {
            None => "as fast as possible".into(),
            Some(1.0) => "at the recorded timing".into(),
            Some(s) => format!("at {s}x the recorded rate"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_of_several_records_into_a_file_named_after_it() {
        let t = TraceTarget { path: "/tmp/x/t.rtrace".into(), per_step: false };
        assert_eq!(t.file("rocksdb", 0, "fillseq"), PathBuf::from("/tmp/x/t.rtrace"));
        let t = TraceTarget { per_step: true, ..t };
        assert_eq!(t.file("rocksdb", 1, "readrandom"), PathBuf::from("/tmp/x/t.rocksdb.2-readrandom.rtrace"));
        assert_eq!(t.file("a/b c", 0, "readrandom@t4"), PathBuf::from("/tmp/x/t.a_b_c.1-readrandom@t4.rtrace"));
        let t = TraceTarget { path: "t".into(), per_step: true };
        assert_eq!(t.file("lmdb", 0, "fillseq"), PathBuf::from("t.lmdb.1-fillseq"));
    }

    #[test]
    fn speeds_parse() {
        assert_eq!(ReplayPlan::parse_speed("max"), Ok(None));
        assert_eq!(ReplayPlan::parse_speed("2x"), Ok(Some(2.0)));
        assert_eq!(ReplayPlan::parse_speed(" 0.5 "), Ok(Some(0.5)));
        assert!(ReplayPlan::parse_speed("fast").unwrap_err().contains("max or a factor"));
        assert!(ReplayPlan::parse_speed("0").unwrap_err().contains("between"));
    }
}
