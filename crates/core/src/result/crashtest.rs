//! What a crash test found (`rumbench crashtest`): per config, every crash
//! with what was acknowledged, lost and found, and the verdict. Kept in
//! result.json beside (instead of) benchmark configs; the report renders
//! the durability matrix from it.

use serde::{Deserialize, Serialize};

use super::Status;

/// Said wherever a crash test's figures are shown.
pub const NOT_A_BENCHMARK: &str =
    "correctness test on a FUSE filesystem: its write rates are not a benchmark of the engines";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CrashTest {
    /// Crashes asked for per config.
    pub crashes: u32,
    /// Client threads writing in each crash.
    pub threads: usize,
    pub value_size: usize,
    /// The kill comes at a uniformly random moment in this window after the
    /// engine opened (milliseconds), drawn from `seed`.
    pub kill_after_ms: (u64, u64),
    pub seed: u64,
    /// What makes a name durable: "posix" or "journaled" (as ext4, XFS).
    pub fs_semantics: String,
    /// How the lazy filesystem decides what survives (docs/crash-test.md).
    pub filesystem: String,
    pub configs: Vec<CrashConfig>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CrashConfig {
    pub name: String,
    pub engine: String,
    /// Every option, defaults filled in (as for a benchmark config).
    pub options: std::collections::BTreeMap<String, String>,
    /// Servers: the config lines applied (suite `server_config`, then
    /// `-o config=`); None for an in-process engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_config: Option<Vec<String>>,
    /// What the engine says about itself once open: version, effective
    /// options, build (from the first recovery's open).
    #[serde(default)]
    pub provenance: Vec<(String, String)>,
    #[serde(default)]
    pub effective_options: Vec<(String, String)>,
    pub status: Status,
    pub error: Option<String>,
    pub crash_records: Vec<CrashRecord>,
    pub totals: CrashTotals,
}

/// One crash: write, kill, power cut, recover, check.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CrashRecord {
    /// 1-based.
    pub crash: u32,
    /// When the writer was killed, after the engine had opened.
    pub killed_after_s: f64,
    /// Commits the engine acknowledged in this crash's writing.
    pub acknowledged: u64,
    /// Acknowledged commits (of this or any earlier crash) missing after
    /// this crash that were there before it.
    pub lost: u64,
    /// Records present whose value is not the one written (torn, corrupted).
    pub wrong_values: u64,
    /// Records present that no client ever wrote (beyond the one commit
    /// each thread had in flight when it was killed), or keys rumbench never uses.
    pub never_written: u64,
    /// In-flight commits (written, not yet acknowledged) that survived: allowed.
    pub in_flight_present: u64,
    /// Whether the engine opened after the power cut (false: unrecoverable).
    pub recovered: bool,
    /// Time to open the engine over what survived (its recovery).
    pub recovery_s: Option<f64>,
    /// The lazy filesystem during the writing: fsync/fdatasync/msync calls
    /// on files, fsyncs of directories, bytes written, bytes made durable,
    /// and bytes the power cut threw away.
    pub file_syncs: u64,
    pub dir_syncs: u64,
    pub bytes_written: u64,
    pub bytes_made_durable: u64,
    pub unsynced_bytes_dropped: u64,
    /// Examples of wrong or never-written keys (at most a few).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CrashTotals {
    pub crashes: u32,
    pub acknowledged: u64,
    pub lost: u64,
    pub wrong_values: u64,
    pub never_written: u64,
    pub unrecoverable: bool,
    /// File syncs the filesystem saw per acknowledged commit.
    pub syncs_per_commit: Option<f64>,
    /// Whether that is at least one sync per commit per writer thread (group
    /// commit lets one sync cover one commit of each thread): the rule
    /// behind the benchmarks' ND mark, applied to what the filesystem saw.
    pub synced_per_commit: Option<bool>,
    /// Power cuts that threw away data the filesystem held unsynced.
    pub cuts_dropping_data: u32,
    pub recovery_s_median: Option<f64>,
    pub recovery_s_max: Option<f64>,
    /// "durable as run: 0 of 120,000 acknowledged commits lost in 20 crashes",
    /// "not durable: lost 3,412 of 118,000 ...", "unrecoverable ...".
    pub verdict: String,
    /// Where the verdict and the sync count disagree (see `crashtest::contradiction`).
    pub contradiction: Option<String>,
}
