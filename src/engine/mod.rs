//! The storage-engine interface: one trait for an open database, one for a
//! per-thread session on it, and a registry of engines by name.
//!
//! Engines contain no timing code: the runner times every call around them.
//! An engine reports its version, every option it was opened with, and its
//! internal statistics as name/value pairs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};

pub mod conformance;
pub mod fjall;
pub mod leveldb;
pub mod lmdb;
pub mod null;
pub mod plugin;
pub mod redb;
pub mod rocksdb;
pub mod splinterdb;
pub mod sqlite;
mod sqlite_wal;
pub mod testlog;
/// GPL: only in builds with the cargo feature `wiredtiger`.
#[cfg(feature = "wiredtiger")]
pub mod wiredtiger;

/// The type of an engine option's value, used to validate user input and to
/// list valid values in error messages.
#[derive(Debug, Clone, Copy)]
pub enum OptKind {
    Bool,
    /// An integer in `min..=max`: the range the engine takes (negative
    /// values only where the engine gives them a meaning). Every bound fits
    /// a C int, as most engines take one.
    Int {
        min: i64,
        max: i64,
    },
    /// A byte size: plain bytes or with a K/M/G/T suffix (powers of 1024).
    Size,
    Float,
    Choice(&'static [&'static str]),
    Text,
}

/// One option an engine accepts, with its default (as text) and a one-line help.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub name: &'static str,
    pub default: &'static str,
    pub kind: OptKind,
    pub help: &'static str,
}

/// The name of an `OptionSpec` that stands for options of any other name,
/// taken as text and validated by the engine's `check` (a plugin's own).
pub const ANY_OPTION: &str = "*";

/// Validated engine options: every declared option is present (defaults filled
/// in), values are in canonical form (bools are "true"/"false", sizes in bytes).
#[derive(Debug, Clone, Default)]
pub struct EngineOptions(pub BTreeMap<String, String>);

impl EngineOptions {
    pub fn str(&self, name: &str) -> &str {
        self.0.get(name).map(String::as_str).unwrap_or_else(|| panic!("option {name} not declared"))
    }
    pub fn bool(&self, name: &str) -> bool {
        self.str(name) == "true"
    }
    pub fn u64(&self, name: &str) -> u64 {
        self.str(name).parse().unwrap_or_else(|_| panic!("option {name} is not an integer"))
    }
    pub fn i64(&self, name: &str) -> i64 {
        self.str(name).parse().unwrap_or_else(|_| panic!("option {name} is not an integer"))
    }
    pub fn i32(&self, name: &str) -> i32 {
        self.i64(name).clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }
    pub fn f64(&self, name: &str) -> f64 {
        self.str(name).parse().unwrap_or_else(|_| panic!("option {name} is not a number"))
    }
}

/// What an engine is opened with.
#[derive(Debug, Clone)]
pub struct OpenArgs {
    /// Private directory for this engine's files; created by the caller.
    pub dir: PathBuf,
    pub options: EngineOptions,
    pub key_size: usize,
    pub value_size: usize,
    /// Number of keys in the key space (the null engine pretends they exist).
    pub num_keys: u64,
    /// Client threads that will open sessions (some engines size pools by it).
    pub threads: usize,
    /// The space the run needs at most (what it keeps and writes), for an
    /// engine whose file is sized at creation (SplinterDB); None when not
    /// known before the steps run (a step writes for a duration).
    pub space_needed: Option<u64>,
    /// Create the database when it is missing (false with --use-existing-db:
    /// an engine opening the user's directory must not add a database to it).
    pub create: bool,
    /// Open the existing database without writing to it, where the engine
    /// can (--use-existing-db with steps that only read); see `Engine::read_only`.
    pub read_only: bool,
}

/// An engine in the registry.
pub struct EngineSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// The engine's code in a profile: symbol prefixes (a function's name,
    /// or a Rust path's first segment) and the library they are shown as,
    /// for an engine linked into rumbench's own executable
    /// (`("rocksdb::", "librocksdb")`). Its frames on a client thread are the
    /// engine's foreground CPU.
    pub profile_symbols: &'static [(&'static str, &'static str)],
    /// Its size options that take neither memory nor disk of their own (a
    /// block size): every other size option must be named by a claim.
    pub sizes_not_claimed: &'static [&'static str],
    pub options: &'static [OptionSpec],
    /// Options applied in io-bound mode (before the user's own).
    pub io_bound_options: &'static [(&'static str, &'static str)],
    /// Named configs (`-e ENGINE:PRESET`): options applied under the user's own.
    pub presets: &'static [(&'static str, &'static [(&'static str, &'static str)])],
    pub open: fn(&OpenArgs) -> Result<Box<dyn Engine>>,
    /// Whether it keeps what is written (the null engine pretends every key
    /// exists, so a read step needs no fill before it there).
    pub stores_data: bool,
    /// Whether a directory holds this engine's database, in its own format:
    /// --use-existing-db is refused at plan time when it does not (another
    /// engine's database opened by this one could be rewritten into this
    /// one's format). None: nothing to open (the null engine, servers).
    pub existing_database: Option<fn(&std::path::Path) -> Result<()>>,
    /// Refuse option combinations that contradict each other, at plan time.
    pub check: fn(&EngineOptions) -> Result<()>,
    /// How the library is built into this binary, as far as it is known
    /// without opening a database (`rumbench engines`); an open engine adds
    /// its version in `Engine::provenance`.
    pub build_info: fn() -> Vec<(String, String)>,
    /// The kind of transactions the engine runs with these options (e.g.
    /// "pessimistic: TransactionDB, GetForUpdate locks"), None without them:
    /// steps that need transactions are refused at plan time on such a config.
    pub transactions: fn(&EngineOptions) -> Option<&'static str>,
    /// The most client sessions (threads) these options let the engine
    /// serve at once, and the option that sets it; None: no such limit.
    pub max_sessions: fn(&EngineOptions) -> Option<(u64, &'static str)>,
    /// What these options make the engine take of the machine (memory its
    /// caches and buffers may fill, disk a file is sized to), for `sessions`
    /// client sessions: checked against what the machine has before anything
    /// starts (runner::resources), so that no option can make a run take
    /// memory or disk the machine does not have.
    pub claims: fn(&EngineOptions, usize) -> Vec<Claim>,
    /// Why a process running this engine died, read from what it left in its
    /// data dir ("the data file is full (N of M bytes)"); None when nothing there says.
    pub crash_cause: fn(&std::path::Path) -> Option<String>,
    /// The largest key and value these options let the engine store, each
    /// with where the limit comes from: a run whose keys or values are
    /// larger is refused before anything starts.
    pub size_limits: fn(&EngineOptions) -> SizeLimits,
    /// What a plan asks of this engine that its options alone do not say
    /// (steps it cannot run as configured), refused before anything starts.
    pub check_plan: fn(&crate::plan::EngineConfig, &crate::plan::RunPlan) -> Result<()>,
    /// What a config of the plan takes of the machine beyond `claims`, its
    /// data dir being the given one (a file sized for the run at open);
    /// Err: the data dir's filesystem cannot hold what the run needs.
    pub plan_claims: fn(&crate::plan::EngineConfig, &crate::plan::RunPlan, &std::path::Path) -> Result<Vec<Claim>>,
    /// `OpenArgs::space_needed` for a run of the plan: the space an engine
    /// whose file is sized at creation needs; None when it sizes nothing.
    pub space_needed: fn(&crate::plan::RunPlan) -> Option<u64>,
    /// Versions other than the one this program is built with
    /// (`-e rocksdb@8.10`), each a program of its own; None: only this one.
    pub versions: Option<&'static EngineVersions>,
}

/// How an engine runs in a version other than the one built into this
/// program: each version's program is built or fetched once (cached) before
/// the run, and a config of that version runs in it. The runner reaches an
/// engine's versions only through this.
pub struct EngineVersions {
    /// A config's version as asked (`8.10`, `7.6.0:release`), resolved, or
    /// refused with the versions that exist; `listed` gives the versions a
    /// registry has (asked for only when the request needs them).
    pub resolve: fn(request: &str, listed: &VersionListing) -> Result<EngineVersion>,
    /// The versions a registry has for this engine (the network: the
    /// planner's inputs give it, so tests can give another).
    pub listing: fn() -> Result<Vec<String>>,
    /// What config `c` (of `version`) asks that the version cannot do (its
    /// options as resolved, the plan's steps), refused before anything starts.
    pub check: fn(version: &str, c: &crate::plan::EngineConfig, plan: &crate::plan::RunPlan) -> Result<()>,
    /// Build or fetch `version`'s program (once, then cached); what the
    /// version lacks, a line each, to print before the run.
    pub prepare: fn(version: &str) -> Result<Vec<String>>,
    /// The program a config of `version` runs in; None: this one.
    pub program: fn(version: &str) -> Result<Option<std::path::PathBuf>>,
    /// The version this program runs: a config process refuses a config of another.
    pub running: fn() -> String,
}

/// The versions a registry lists (asked for only when a request needs them).
pub type VersionListing<'a> = dyn Fn() -> Result<Vec<String>> + 'a;

/// A version of an engine, as the planner records it.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineVersion {
    /// What a plan records and resolves again ("8.10.0", "7.6.0:release").
    pub request: String,
    /// In a config's default name ("8.10.0", "7.6.0-release").
    pub slug: String,
    /// Defaults where the version cannot do the engine's own (cache_type=lru
    /// before RocksDB 8.8.1), applied under the user's options.
    pub default_overrides: Vec<(String, String)>,
}

/// The versions `engine`'s registry has ([`EngineVersions::listing`]); none
/// for an engine without versions.
pub fn version_listing(engine: &str) -> Result<Vec<String>> {
    match find(engine)?.versions {
        Some(v) => (v.listing)(),
        None => Ok(Vec::new()),
    }
}

/// `EngineSpec::check_plan` of an engine that runs every step its traits allow.
pub fn no_plan_checks(_: &crate::plan::EngineConfig, _: &crate::plan::RunPlan) -> Result<()> {
    Ok(())
}

/// `EngineSpec::plan_claims` of an engine whose claims follow from its options alone.
pub fn no_plan_claims(
    _: &crate::plan::EngineConfig,
    _: &crate::plan::RunPlan,
    _: &std::path::Path,
) -> Result<Vec<Claim>> {
    Ok(Vec::new())
}

/// `EngineSpec::space_needed` of an engine whose files grow as they need.
pub fn no_space_needed(_: &crate::plan::RunPlan) -> Option<u64> {
    None
}

/// The largest key and value an engine takes (None: none below rumbench's own).
#[derive(Debug, Clone, Copy, Default)]
pub struct SizeLimits {
    pub max_key: Option<(usize, &'static str)>,
    pub max_value: Option<(usize, &'static str)>,
}

/// `EngineSpec::size_limits` of an engine that takes any key and value rumbench makes.
pub fn no_size_limits(_: &EngineOptions) -> SizeLimits {
    SizeLimits::default()
}

// What an option takes of the machine: below engines, since servers claim
// memory for their settings too.
pub use crate::measure::os::capacity::{Claim, Resource};

/// `EngineSpec::claims` of an engine whose options take nothing worth checking.
pub fn no_claims(_: &EngineOptions, _: usize) -> Vec<Claim> {
    Vec::new()
}

/// This process may die of an engine's code (a plugin's): a config process,
/// a crash test's. Elsewhere (the main process) a plugin is loaded and its
/// options checked in a probe process first (`plugin::probe`).
/// The engine name that takes a library (`-e plugin:PATH`).
pub const LIBRARY_ENGINE: &str = plugin::NAME;

/// A plugin library's own options (name, default, help) as it describes
/// them (`rumbench engines plugin:PATH`); None when it describes none.
pub fn library_options(path: &std::path::Path) -> Result<Option<Vec<(String, String, String)>>> {
    Ok(plugin::Plugin::load(path)?.option_docs())
}

pub fn let_engine_code_run_here() {
    plugin::probe::let_code_run_here();
}

/// `rumbench internal-plugin-probe`: see `plugin::probe`.
pub fn library_probe_main(library: &std::path::Path, check: Option<&[String]>) -> std::process::ExitCode {
    plugin::probe::probe_main(library, check)
}

/// What a crash of the engine left in data dir `dir` (`EngineSpec::crash_cause`),
/// taken: its note is removed, so that the next crash's cause is its own.
pub fn take_crash_cause(spec: &EngineSpec, dir: &std::path::Path) -> Option<String> {
    let cause = (spec.crash_cause)(dir)?;
    let _ = std::fs::remove_file(dir.join(plugin::crash::CRASH_NOTE));
    Some(cause)
}

/// `EngineSpec::crash_cause` of an engine that leaves nothing that tells.
pub fn no_crash_cause(_: &std::path::Path) -> Option<String> {
    None
}

pub use crate::measure::os::capacity::human_size;

/// `name=value` of a size option of `spec`, as the user would write it.
pub fn option_text(engine: &str, o: &EngineOptions, name: &str) -> String {
    format!("{engine}.{name}={}", human_size(o.u64(name)))
}

/// `EngineSpec::max_sessions` of an engine that serves any number of sessions.
pub fn any_sessions(_: &EngineOptions) -> Option<(u64, &'static str)> {
    None
}

/// Refuse options that cannot serve `sessions` client threads at once.
pub fn check_sessions(spec: &EngineSpec, options: &EngineOptions, sessions: usize) -> Result<()> {
    match (spec.max_sessions)(options) {
        Some((most, option)) if sessions as u64 > most => bail!(
            "{}: {option} {} serves at most {most} client threads at once, and this run opens {sessions} (set -o {}.{option}={} or more, or run fewer --threads)",
            spec.name,
            options.str(option),
            spec.name,
            options.str(option).parse::<u64>().map(|v| v - most + sessions as u64).unwrap_or(sessions as u64 + 1)
        ),
        _ => Ok(()),
    }
}

/// The data dir's file `name` begins with `magic`, as a file of `format`
/// does. The error says what is wrong, in a phrase ("no CURRENT in it").
pub fn file_starts_with(dir: &std::path::Path, name: &str, magic: &[u8], format: &str) -> Result<()> {
    use std::io::Read;
    let mut head = vec![0u8; magic.len()];
    let read = std::fs::File::open(dir.join(name)).and_then(|mut f| f.read_exact(&mut head));
    match read {
        Ok(()) if head == magic => Ok(()),
        Ok(()) => bail!("its {name} is not {format}"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("no {name} in it"),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => bail!("its {name} is not {format}"),
        Err(e) => bail!("cannot read its {name}: {e}"),
    }
}

/// Whether `dir` holds a file RocksDB writes and LevelDB never does (IDENTITY,
/// OPTIONS-NNNNNN): their MANIFESTs otherwise look alike to each other.
pub fn has_rocksdb_files(dir: &std::path::Path) -> bool {
    dir.join("IDENTITY").is_file()
        || std::fs::read_dir(dir)
            .is_ok_and(|it| it.flatten().any(|e| e.file_name().to_string_lossy().starts_with("OPTIONS-")))
}

/// `EngineSpec::transactions` of an engine without transactions.
pub fn no_transactions(_: &EngineOptions) -> Option<&'static str> {
    None
}

/// `EngineSpec::build_info` of an engine with nothing to say before it is opened.
pub fn no_build_info() -> Vec<(String, String)> {
    Vec::new()
}

/// `EngineSpec::check` of an engine whose options cannot contradict each other.
pub fn no_contradictions(_: &EngineOptions) -> Result<()> {
    Ok(())
}

/// An open database. Shared by all client threads of a step.
pub trait Engine: Send + Sync {
    /// Engine library version, e.g. "7.8.3".
    fn version(&self) -> String;
    /// Whether it was opened read-only (asked with `OpenArgs::read_only`,
    /// and the engine has a read-only open): nothing it does writes the database.
    fn read_only(&self) -> bool {
        false
    }
    /// Every option the engine was opened with, including ones derived from
    /// the user's options (name, value), as the engine sees them.
    fn effective_options(&self) -> Vec<(String, String)>;
    /// What only the open engine knows about how it was built (name, value);
    /// the spec's `build_info` says the rest. See [`provenance`].
    fn provenance(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// A session for one client thread.
    fn session(&self) -> Result<Box<dyn Session + '_>>;
    /// A session for client thread `thread` (0 to threads - 1; a background
    /// writer after them): an engine that keeps state per thread is told
    /// which (a plugin's session_open_thread); the others open a session.
    fn session_for(&self, thread: usize) -> Result<Box<dyn Session + '_>> {
        let _ = thread;
        self.session()
    }
    /// Flush memtables / buffers so that reads see a settled structure.
    fn flush(&self) -> Result<()> {
        Ok(())
    }
    /// Wait, at most `timeout`, until background work (flushes, compactions)
    /// is done, with the engine's own wait: Some(true) done, Some(false) the
    /// timeout came first; None when the engine has no such wait (the caller
    /// polls `background_work_pending` instead).
    fn wait_for_background_work(&self, _timeout: std::time::Duration) -> Result<Option<bool>> {
        Ok(None)
    }
    /// Whether background work (flushes, compactions) is pending or running.
    /// None when the engine has no background work.
    fn background_work_pending(&self) -> Result<Option<bool>> {
        Ok(None)
    }
    /// Threads the engine may keep busy beside the clients (flush and
    /// compaction), and what they are: a concurrency sweep counts them
    /// against the cores (`result::scaling::Machine`).
    fn background_threads(&self) -> (usize, String) {
        (0, String::new())
    }
    /// Internal statistics as name/value pairs (RocksDB: rocksdb.stats etc.).
    fn stats(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// The engine's own counters behind its write-amplification figure, where
    /// it has one (RocksDB: bytes ingested, and flush + compaction bytes written).
    fn write_amp_counters(&self) -> Option<WriteAmpCounters> {
        None
    }
    /// Whether `Session::scan` runs in reverse (a plugin may not: RevRange is
    /// refused at plan time).
    fn reverse_scans(&self) -> bool {
        true
    }
    /// Whether `Session::write_batch` applies a batch atomically (false:
    /// SplinterDB; steps that need batches are refused at plan time, and
    /// untimed loads write entry by entry).
    fn write_batches(&self) -> bool {
        true
    }
    /// The work the engine still owes for the writes it accepted, when a
    /// step ends (name, value): what later steps (a flush, a compaction
    /// wait, a settle) will write on the step's behalf. RocksDB: memtable
    /// bytes, pending compaction bytes, L0 files. Ok(empty): it owes nothing
    /// (it writes in place at commit); Err: why it cannot say.
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        Err("the engine does not say what work it still owes".into())
    }
    /// The engine's own counters now, sampled once a second while a step
    /// runs (`--internals`): Err(why) when it exposes none rumbench reads.
    /// Called from a thread of its own beside the clients: it must not wait
    /// on their calls.
    fn internals(&self) -> std::result::Result<Vec<Internal>, String> {
        Err("rumbench samples no counters of this engine while it runs".into())
    }
    /// Bytes in use of a store of fixed size and its capacity (SplinterDB's
    /// file), sampled while a step runs so that a crash of a full store is
    /// named; None for an engine whose files grow as they need.
    fn space(&self) -> Option<(u64, u64)> {
        None
    }
    /// Notes for a step's result: how this engine ran step `step` when it did
    /// it another way, or why its writes are not durable (when the step
    /// changes data: `StepKind::changes_data`).
    fn step_notes(&self, _step: crate::plan::steps::StepKind) -> Vec<String> {
        Vec::new()
    }
}

/// The file in a data dir where an engine keeps its error messages, so that
/// a config process the library crashed leaves its last words (SplinterDB).
pub const ENGINE_ERRORS_LOG: &str = "engine-errors.log";

/// The engine calls threads of this process are in now: (the call, a value
/// that stays the same while that call has not returned). Calls into a
/// plugin are marked (plugin::crash); an in-process engine's are not.
pub fn calls_in_flight() -> Vec<(&'static str, u32)> {
    plugin::crash::in_flight()
}

/// The last lines (at most 3) an engine logged as errors in data dir `dir`.
pub fn last_words(dir: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(ENGINE_ERRORS_LOG)).ok()?;
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    (!lines.is_empty()).then(|| lines[lines.len().saturating_sub(3)..].join(" | "))
}

/// What ran, for a result: the version, how the library is built into this
/// binary (`spec.build_info`), and what the open engine or server adds
/// (`runtime`; its own "version" entry gives way to `version`).
pub fn provenance(spec: &EngineSpec, version: String, runtime: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut p = vec![("version".to_string(), version)];
    p.extend((spec.build_info)());
    p.extend(runtime.into_iter().filter(|(k, _)| k != "version"));
    p
}

/// The warning for an engine whose library was built with assertions (or as
/// a debug build): its figures are slower than what users run. Reads the
/// provenance entries `build.ndebug` ("false...") and `build.assertions` ("on").
pub fn assertion_warning(engine: &str, provenance: &[(String, String)]) -> Option<String> {
    let on = provenance.iter().any(|(k, v)| {
        (k == "build.ndebug" && v.starts_with("false"))
            || (k == "build.assertions" && (v == "on" || v.starts_with("on ") || v == "true"))
    });
    on.then(|| format!("{engine} was built with assertions on: a debug build runs slower than the release builds users run, so its figures mislead"))
}

/// Cumulative counters since the engine was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteAmpCounters {
    /// Logical bytes the engine accepted from clients.
    pub ingest_bytes: u64,
    /// Bytes the engine wrote for flushes and compactions.
    pub written_bytes: u64,
    /// How finely the engine reports these counters (bytes); 1 when exact.
    pub resolution_bytes: u64,
}

impl WriteAmpCounters {
    /// written / ingested between two snapshots. None when nothing was
    /// ingested, or when the ingest is too small for the counters' resolution
    /// to give the ratio within about 2%.
    pub fn amp_since(&self, before: Option<WriteAmpCounters>) -> Option<f64> {
        let (b_ingest, b_written) = before.map(|b| (b.ingest_bytes, b.written_bytes)).unwrap_or((0, 0));
        let ingest = self.ingest_bytes.saturating_sub(b_ingest);
        (ingest > 0 && ingest >= 50 * self.resolution_bytes)
            .then(|| self.written_bytes.saturating_sub(b_written) as f64 / ingest as f64)
    }
}

/// One of an engine's own counters (`Engine::internals`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Internal {
    pub name: &'static str,
    pub value: f64,
    /// A running total (stall microseconds so far): the sampler keeps its
    /// rate over each second, under `name` (which ends in `_per_s`).
    pub cumulative: bool,
}

/// One counter a backend names in its own terms: rumbench's name, whether it
/// is a running total (shown as its rate, the name ending in `_per_s`), and
/// the backend's own name for it (a status variable, a statistic's
/// description, an SQL expression).
pub type Counter = (&'static str, bool, &'static str);

/// The `counters` among a backend's (own name, value) pairs, matched
/// without regard to case (as MariaDB treats status names), values parsed
/// as numbers; one missing or unparsable is left out.
pub fn internals_by_source(counters: &[Counter], found: &[(String, String)]) -> Vec<Internal> {
    counters
        .iter()
        .filter_map(|&(name, cumulative, source)| {
            let (_, v) = found.iter().find(|(n, _)| n.eq_ignore_ascii_case(source))?;
            Some(Internal { name, value: v.trim().parse().ok()?, cumulative })
        })
        .collect()
}

/// Reads a backend's counters now, once a second from the sampler's thread
/// (`--internals`): an engine's `internals`, or a server's statistics over a
/// connection of its own.
pub type InternalsProbe<'a> = Box<dyn FnMut() -> std::result::Result<Vec<Internal>, String> + Send + 'a>;

/// One entry of a write batch: a put (with value) or a delete.
#[derive(Debug, Clone, Copy)]
pub enum BatchOp<'a> {
    Put(&'a [u8], &'a [u8]),
    Delete(&'a [u8]),
}

/// The operations inside one transaction (see [`Session::transaction`]).
pub trait TxnOps {
    /// Read `key` for update into `out` (false: absent, `out` empty): the key
    /// is locked until the end of the transaction where the engine locks, or
    /// validated at commit where it is optimistic.
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool>;
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
}

/// How a transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnEnd {
    Committed,
    /// A lock wait timed out, a deadlock was broken, validation failed at
    /// commit or the database was busy: rolled back, to be retried.
    Conflict,
}

/// An error that is a transaction conflict (returned by [`TxnOps`] methods;
/// `Session::transaction` turns it into [`TxnEnd::Conflict`]).
#[derive(Debug)]
pub struct Conflict(pub String);

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "transaction conflict: {}", self.0)
    }
}

impl std::error::Error for Conflict {}

/// Whether an error is (or wraps) a transaction conflict.
pub fn is_conflict(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<Conflict>().is_some())
}

/// A client thread's handle. All calls are synchronous; the runner times them.
pub trait Session {
    /// Run `body` as one transaction and commit it: None when the engine
    /// (as configured) has no transactions. A conflict rolls back and ends
    /// `TxnEnd::Conflict`; any other error rolls back and is returned.
    fn transaction(&mut self, _body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        None
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
    fn delete(&mut self, key: &[u8]) -> Result<()>;
    /// Apply the operations atomically (one commit / write batch).
    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()>;
    /// Point read; returns whether the key was found. The value is read (and
    /// may be copied into an internal buffer) but not returned.
    fn get(&mut self, key: &[u8]) -> Result<bool>;
    /// Point read that returns the value: `out` is cleared and receives it;
    /// false when the key is absent. The default positions an iterator with
    /// `scan`; engines with a cheaper point read override it.
    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let mut found = false;
        self.scan(key, false, 1, &mut |k, v| {
            if k == key {
                found = true;
                out.extend_from_slice(v);
            }
            false
        })?;
        Ok(found)
    }
    /// Batched point reads of `keys.len() / key_size` keys laid out back to
    /// back; returns how many were found.
    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        let mut found = 0;
        for key in keys.chunks_exact(key_size) {
            found += self.get(key)? as usize;
        }
        Ok(found)
    }
    /// Position at the first key >= `start` (or, when `reverse`, the last key
    /// <= `start`) and visit entries in that direction until `visit` returns
    /// false or `max_entries` were visited. Returns the number visited.
    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize>;
}

/// `Session::scan` over an engine's iterator of entries: `visit` each (its
/// key and value as `kv` gives them) until it returns false or
/// `max_entries` were visited; the number visited.
pub fn visit_entries<T>(
    entries: impl Iterator<Item = Result<T>>,
    max_entries: usize,
    kv: impl for<'a> Fn(&'a T) -> (&'a [u8], &'a [u8]),
    visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
) -> Result<usize> {
    let mut visited = 0;
    if max_entries == 0 {
        return Ok(0);
    }
    for entry in entries {
        let entry = entry?;
        let (k, v) = kv(&entry);
        visited += 1;
        if !visit(k, v) || visited >= max_entries {
            break;
        }
    }
    Ok(visited)
}

/// All engines, by name (with RUMBENCH_TEST_ENGINES=1, the test-only ones too).
pub fn registry() -> &'static [EngineSpec] {
    // The test-only engines last, so that the others are a prefix.
    static ENGINES: &[EngineSpec] = &[
        rocksdb::SPEC,
        leveldb::SPEC,
        lmdb::SPEC,
        sqlite::SPEC,
        splinterdb::SPEC,
        fjall::SPEC,
        redb::SPEC,
        null::SPEC,
        plugin::SPEC,
        #[cfg(feature = "wiredtiger")]
        wiredtiger::SPEC,
        testlog::SPEC,
    ];
    const TEST_ONLY: usize = 1;
    static TEST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *TEST.get_or_init(|| std::env::var_os(TEST_ENGINES_ENV).is_some_and(|v| v == "1")) {
        ENGINES
    } else {
        &ENGINES[..ENGINES.len() - TEST_ONLY]
    }
}

/// Set to 1 to register the test-only engines (`testlog`), for the crash test's tests.
pub const TEST_ENGINES_ENV: &str = "RUMBENCH_TEST_ENGINES";

/// Every engine's profile symbols (`EngineSpec::profile_symbols`), for the profile's folding.
pub fn profile_symbols() -> Vec<(&'static str, &'static str)> {
    registry().iter().flat_map(|e| e.profile_symbols.iter().copied()).collect()
}

pub fn engine_names() -> Vec<&'static str> {
    registry().iter().map(|e| e.name).collect()
}

/// An engine that this build was made without (a cargo feature), and how
/// to make a build with it.
pub struct LeftOut {
    pub name: &'static str,
    pub description: &'static str,
    pub how_to_build: &'static str,
}

/// The engines the README lists that are not in this build. GPL engines are
/// cargo features, off by default, so that a default build stays Apache-2.0 only.
pub fn left_out() -> &'static [LeftOut] {
    &[
        #[cfg(not(feature = "wiredtiger"))]
        LeftOut {
            name: "wiredtiger",
            description: "WiredTiger 11.3.1 row-store B-tree (GPL: a cargo feature, off by default)",
            how_to_build: "cargo build --release --locked --features wiredtiger (its build script runs scripts/build-wiredtiger.sh, \
                           which builds WiredTiger once from the PyPI sdist: python3-pip and cmake, from scripts/setup.sh)",
        },
    ]
}

/// The error for an engine name that is not in `valid`: an engine this
/// build leaves out says how to build it in; any other name lists the valid ones.
pub fn unknown_engine(name: &str, valid: &[&str]) -> anyhow::Error {
    match left_out().iter().find(|l| l.name == name) {
        Some(l) => anyhow::anyhow!("engine '{name}' is not in this build; make a build with it: {}", l.how_to_build),
        None => anyhow::anyhow!("unknown engine '{}' (valid engines: {})", name, valid.join(", ")),
    }
}

/// Look an engine up by name; the error names the valid choices.
pub fn find(name: &str) -> Result<&'static EngineSpec> {
    registry().iter().find(|e| e.name == name).ok_or_else(|| unknown_engine(name, &engine_names()))
}

pub use crate::plan::parse_size;

fn canonical_value(spec: &OptionSpec, value: &str) -> Option<String> {
    match spec.kind {
        OptKind::Bool => match value.to_ascii_lowercase().as_str() {
            "true" | "on" | "1" | "yes" => Some("true".into()),
            "false" | "off" | "0" | "no" => Some("false".into()),
            _ => None,
        },
        OptKind::Int { min, max } => {
            value.parse::<i64>().ok().filter(|v| (min..=max).contains(v)).map(|v| v.to_string())
        }
        OptKind::Size => parse_size(value).map(|v| v.to_string()),
        OptKind::Float => value.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| v.to_string()),
        OptKind::Choice(choices) => choices.iter().find(|c| c.eq_ignore_ascii_case(value)).map(|c| c.to_string()),
        OptKind::Text => Some(value.to_string()),
    }
}

/// Describes the values an option accepts, for help and error messages.
pub fn describe_kind(kind: OptKind) -> String {
    match kind {
        OptKind::Bool => "true|false".into(),
        OptKind::Int { min, max } => format!("an integer from {min} to {max}"),
        OptKind::Size => "size, e.g. 64M".into(),
        OptKind::Float => "number".into(),
        OptKind::Choice(c) => c.join("|"),
        OptKind::Text => "text".into(),
    }
}

/// Validate user options against an engine's declared options and fill in
/// defaults. Unknown names and bad values give an error naming the valid ones.
pub fn resolve_options(spec: &EngineSpec, user: &[(String, String)]) -> Result<EngineOptions> {
    let mut out = BTreeMap::new();
    for opt in spec.options.iter().filter(|o| o.name != ANY_OPTION) {
        let canon = canonical_value(opt, opt.default).expect("engine option default must be valid");
        out.insert(opt.name.to_string(), canon);
    }
    let any = spec.options.iter().find(|o| o.name == ANY_OPTION);
    for (name, value) in user {
        let Some(opt) = spec.options.iter().find(|o| o.name == name && o.name != ANY_OPTION).or(any) else {
            let names: Vec<_> = spec.options.iter().map(|o| o.name).collect();
            bail!(
                "unknown option '{}' for engine {} (valid options: {})",
                name,
                spec.name,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            );
        };
        let Some(canon) = canonical_value(opt, value) else {
            bail!("invalid value '{}' for {}.{} (expected {})", value, spec.name, name, describe_kind(opt.kind));
        };
        out.insert(name.clone(), canon);
    }
    Ok(EngineOptions(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assertion_build_is_warned_about() {
        let p = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        // Debian's librocksdb 7.8.3 (NDEBUG not defined), a PostgreSQL built
        // with --enable-cassert, a MariaDB -debug server.
        for prov in [
            p("build.ndebug", "false (assertions compiled in)"),
            p("build.assertions", "on"),
            p("build.assertions", "on (a -debug server)"),
        ] {
            let w = assertion_warning("x", &prov).unwrap_or_else(|| panic!("no warning for {prov:?}"));
            assert!(w.contains("built with assertions on"), "{w}");
        }
        for prov in [
            p("build.ndebug", "true (librocksdb-sys defines NDEBUG: assertions off)"),
            p("build.assertions", "off"),
            vec![],
        ] {
            assert_eq!(assertion_warning("x", &prov), None, "{prov:?}");
        }
        // The RocksDB built into this binary is a release build.
        assert_eq!(assertion_warning("rocksdb", &rocksdb::build_provenance()), None);
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("64MB"), Some(64 << 20));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size("1.5K"), Some(1536));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("-1"), None);
        // Beyond u64: refused, not saturated to 16 EiB.
        assert_eq!(parse_size("1e30"), None);
        assert_eq!(parse_size("20000000T"), None);
        assert_eq!(parse_size("inf"), None);
    }

    #[test]
    fn integer_options_are_refused_outside_their_engine_range() {
        // (engine, option, value, what the error says): the values of the fault battery.
        let refused = [
            ("rocksdb", "max_subcompactions", "-1", "from 1 to 1024"),
            ("rocksdb", "num_levels", "-3", "from 1 to 100"),
            ("rocksdb", "num_levels", "1000", "from 1 to 100"),
            ("rocksdb", "max_open_files", "-2", "from -1 to 2147483647"),
            ("rocksdb", "level0_stop_writes_trigger", "4294967296", "from 1 to 2147483647"),
            ("sqlite", "page_size", "-1", "from 512 to 65536"),
            ("sqlite", "busy_timeout_ms", "-1", "from 0 to 2147483647"),
            ("lmdb", "max_readers", "-1", "from 1 to 100000"),
            ("lmdb", "max_readers", "0", "from 1 to 100000"),
            ("leveldb", "bloom_bits", "-5", "from 0 to 1000"),
        ];
        for (engine, option, value, range) in refused {
            let err = resolve_options(find(engine).unwrap(), &[(option.into(), value.into())]).unwrap_err().to_string();
            let want = format!("invalid value '{value}' for {engine}.{option} (expected an integer {range})");
            assert_eq!(err, want);
        }
        // Every declared range: its bounds are taken, one past them is not, and
        // each fits the C int most engines take (no silent clamping).
        for spec in registry() {
            for opt in spec.options {
                let OptKind::Int { min, max } = opt.kind else { continue };
                assert!(i32::MIN as i64 <= min && min <= max && max <= i32::MAX as i64, "{}.{}", spec.name, opt.name);
                for (value, ok) in [(min, true), (max, true), (min - 1, false), (max + 1, false)] {
                    let got = resolve_options(spec, &[(opt.name.into(), value.to_string())]);
                    assert_eq!(got.is_ok(), ok, "{}.{}={value}", spec.name, opt.name);
                }
            }
        }
    }

    #[test]
    fn checks_refuse_what_a_range_cannot_say() {
        let check = |engine: &str, option: &str, value: &str| {
            let spec = find(engine).unwrap();
            (spec.check)(&resolve_options(spec, &[(option.into(), value.into())]).unwrap()).map_err(|e| e.to_string())
        };
        assert!(check("sqlite", "page_size", "1000").unwrap_err().contains("not a power of two"));
        check("sqlite", "page_size", "8192").unwrap();
        assert!(check("rocksdb", "max_open_files", "5").unwrap_err().contains("silently raise it to 20"));
        check("rocksdb", "max_open_files", "-1").unwrap();
        check("rocksdb", "max_open_files", "20").unwrap();
        // A size beyond i64 is refused, not a panic.
        assert!(check("leveldb", "write_buffer_size", "10000000T").unwrap_err().contains("outside LevelDB's range"));
    }

    #[test]
    fn unknown_engine_lists_valid_ones() {
        let err = find("mongo").err().unwrap().to_string();
        assert!(err.contains("unknown engine 'mongo'"), "{err}");
        assert!(err.contains("rocksdb") && err.contains("null"), "{err}");
    }

    #[test]
    fn options_are_validated_and_defaulted() {
        let spec = find("rocksdb").unwrap();
        let opts =
            resolve_options(spec, &[("sync".into(), "on".into()), ("block_cache_size".into(), "1G".into())]).unwrap();
        assert_eq!(opts.str("sync"), "true");
        assert_eq!(opts.u64("block_cache_size"), 1 << 30);
        assert_eq!(opts.str("compaction_style"), "leveled");
        let err = resolve_options(spec, &[("nope".into(), "1".into())]).err().unwrap().to_string();
        assert!(err.contains("valid options:") && err.contains("write_buffer_size"), "{err}");
        let err = resolve_options(spec, &[("compaction_style".into(), "tiered".into())]).err().unwrap().to_string();
        assert!(err.contains("leveled|universal"), "{err}");
    }
}
