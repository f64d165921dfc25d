//! The benchmark steps, named as in db_bench.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
    Flush,
    WaitForCompaction,
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
    (StepKind::Flush, "flush", "flush memtables and buffers"),
    (StepKind::WaitForCompaction, "waitforcompaction", "wait until the engine has no pending background work (bounded by --compaction-timeout)"),
];

impl StepKind {
    pub fn name(self) -> &'static str {
        STEPS.iter().find(|s| s.0 == self).unwrap().1
    }

    pub fn names() -> Vec<&'static str> {
        STEPS.iter().map(|s| s.1).collect()
    }

    /// Steps that read or modify existing keys and so need a loaded database.
    pub fn needs_data(self) -> bool {
        use StepKind::*;
        matches!(
            self,
            Overwrite | ReadRandom | MultiReadRandom | ReadSeq | FwdRange | RevRange | ReadWhileWriting | FwdRangeWhileWriting | DeleteRandom
        )
    }

    /// Steps whose clients write (the *whilewriting steps' writes come from their background writer).
    pub fn writes(self) -> bool {
        use StepKind::*;
        matches!(self, Fill | FillSeq | FillRandom | FillUniqueRandom | Overwrite | DeleteRandom)
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
            .ok_or_else(|| format!("unknown step '{s}' (valid steps: {})", Self::names().join(", ")))
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
        assert!("readrandomx".parse::<StepKind>().unwrap_err().contains("valid steps: fillseq"));
    }
}
