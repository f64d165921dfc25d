//! A step's recording (`--trace FILE`) and a replay's source and fidelity
//! (the `replay` step).

use serde::{Deserialize, Serialize};

use crate::measure::LatencySummary;

/// What a step recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceRecording {
    pub path: String,
    pub calls: u64,
    /// The file's size.
    pub bytes: u64,
    /// The wrapping sum of the calls' digests (hex), as the clients made them.
    pub checksum: String,
    /// The last call's intended start, seconds after the step's start.
    pub span_s: f64,
}

/// Where a trace's file was cut short.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceCut {
    pub at_byte: u64,
    /// The calls the cut record held (None: its header was cut too).
    pub calls: Option<u64>,
}

/// What a replay replayed, and how faithfully.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The trace: its path, sha256, format, calls and their span.
    pub source: String,
    pub sha256: String,
    /// "rumbench 1" or "RocksDB trace 0.2 (RocksDB 11.8)".
    pub format: String,
    pub calls: u64,
    pub span_s: f64,
    pub recorded_threads: u32,
    /// The replay's threads, and how calls were dealt to them: "recorded"
    /// (each recorded thread's on one) or "by start" (in the order of
    /// their intended starts, round robin).
    pub threads: u32,
    pub mapping: String,
    /// The factor on the recorded rate (None: as fast as possible).
    pub speed: Option<f64>,
    /// Calls made (fewer than `calls` when the step was cut short).
    pub replayed: u64,
    /// The recording's checksum (hex): its trailer's, or the sum over the
    /// calls the file holds (a RocksDB trace, a recording cut short); and
    /// the sum over the calls made.
    pub recorded_checksum: String,
    pub replayed_checksum: String,
    /// Every call of the recording was made, once, with its keys and sizes:
    /// false when calls were skipped, cut off or of an unknown kind, or
    /// when the recording did not end (its calls cannot be told).
    pub same_calls: bool,
    /// The recording ended: its trailer (rumbench) or end record (RocksDB)
    /// is there, and the file does not end inside a record.
    pub complete_recording: bool,
    /// The file ends inside a record (its writer was killed): where, and
    /// how many calls were lost there when the file says. Every whole
    /// record before it was replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<TraceCut>,
    /// What the trace holds that a replay cannot do, counted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// At a recorded timing: how late each call started against its
    /// schedule (a wait ends at the moment, never before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_lateness: Option<LatencySummary>,
}
