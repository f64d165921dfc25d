//! RocksDB 11.8.1 through its C API (`ffi.rs`), built from
//! librocksdb-sys's bundled source as a release build (NDEBUG, -O3, for this
//! machine's CPU); bench/ builds db_bench from the very same source and
//! flags, so the two clients compare like with like. The same code builds
//! with older librocksdb-sys versions (capabilities: build.rs).
//!
//! Option defaults are db_bench's (of this RocksDB), so `rumbench run --engine
//! rocksdb` and `db_bench` with default flags open RocksDB the same way: the
//! same OPTIONS file and block cache (tests/dbbench_defaults.rs checks it
//! against the real db_bench).
//!
//! Everything of RocksDB's is in this folder: `ffi.rs` the C API's
//! bindings, `late.rs` the functions newer than 6.28.2 (found by name in
//! the binary every release build shares), `common.rs` what the plain and
//! the transactional database share, `txn.rs` transactions, `versions.rs`
//! the releases rumbench runs and what each lacks, `build.rs` their builds
//! (a cache of programs, one per release), `official.rs` RocksDB's own
//! release libraries (rocksdbjni's jars).

pub mod build;
mod common;
mod ffi;
mod late;
pub mod official;
#[cfg(rocksdb_has_txn)]
mod txn;
pub mod versions;

use anyhow::{bail, Context, Result};

pub use self::common::parse_options_file;
use self::common::{scan_with, wait_for_compact, Common};
use self::ffi::{
    BlockBasedOptions, Cache, CompactionStyle, Compression, Db, Options, ReadOptions, WriteBatch, WriteOptions,
};

use super::{BatchOp, Engine, EngineOptions, EngineSpec, OpenArgs, OptKind, OptionSpec, Session, WriteAmpCounters};

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "compaction_style", default: "leveled", kind: OptKind::Choice(&["leveled", "universal"]), help: "LSM shape" },
    OptionSpec { name: "block_cache_size", default: "32M", kind: OptKind::Size, help: "block cache capacity (db_bench --cache_size, 32M)" },
    OptionSpec {
        name: "cache_type",
        // db_bench's default since 11.x; before 8.8.1 RocksDB cannot size a HyperClockCache itself.
        default: if cfg!(rocksdb_has_hyper_clock) { "hyper_clock" } else { "lru" },
        kind: OptKind::Choice(&["lru", "hyper_clock"]),
        help: "block cache: HyperClockCache with its table sized by RocksDB (db_bench's default, --cache_type=hyper_clock_cache) or LRUCache \
               (RocksDB's LRU defaults: high-priority pool 0.5, where db_bench --cache_type=lru_cache uses 0)",
    },
    OptionSpec { name: "write_buffer_size", default: "64M", kind: OptKind::Size, help: "memtable size" },
    OptionSpec { name: "max_write_buffer_number", default: "2", kind: OptKind::Int { min: 2, max: 1000 }, help: "memtables before writes stall" },
    OptionSpec { name: "max_background_jobs", default: "2", kind: OptKind::Int { min: 1, max: 1024 }, help: "flush + compaction threads" },
    OptionSpec { name: "max_subcompactions", default: "1", kind: OptKind::Int { min: 1, max: 1024 }, help: "threads per compaction job" },
    OptionSpec { name: "level0_file_num_compaction_trigger", default: "4", kind: OptKind::Int { min: 1, max: i32::MAX as i64 }, help: "L0 files that trigger compaction" },
    OptionSpec { name: "level0_slowdown_writes_trigger", default: "20", kind: OptKind::Int { min: 1, max: i32::MAX as i64 }, help: "L0 files that slow writes" },
    OptionSpec { name: "level0_stop_writes_trigger", default: "36", kind: OptKind::Int { min: 1, max: i32::MAX as i64 }, help: "L0 files that stop writes" },
    OptionSpec { name: "target_file_size_base", default: "64M", kind: OptKind::Size, help: "SST file size at L1" },
    OptionSpec { name: "max_bytes_for_level_base", default: "256M", kind: OptKind::Size, help: "L1 size (leveled)" },
    OptionSpec { name: "num_levels", default: "7", kind: OptKind::Int { min: 1, max: 100 }, help: "LSM levels" },
    OptionSpec {
        name: "level_compaction_dynamic_level_bytes",
        // db_bench's default; RocksDB's own has been true since 8.4.
        default: "false",
        kind: OptKind::Bool,
        help: "size leveled levels from the last one up (RocksDB's default since 8.4; db_bench's is false)",
    },
    OptionSpec {
        name: "compaction_pri",
        default: "min_overlapping_ratio",
        kind: OptKind::Choice(&["by_compensated_size", "oldest_largest_seq_first", "oldest_smallest_seq_first", "min_overlapping_ratio", "round_robin"]),
        help: "which file leveled compaction picks first",
    },
    OptionSpec {
        name: "transactions",
        default: "auto",
        kind: OptKind::Choice(&["auto", "none", "pessimistic", "optimistic"]),
        help: "open as a plain DB, a TransactionDB (pessimistic: GetForUpdate locks) or an OptimisticTransactionDB (conflicts found at commit), \
               as db_bench's --transaction_db / --optimistic_transaction_db; auto: pessimistic when the run has steps that need transactions",
    },
    OptionSpec {
        name: "lock_timeout_ms",
        default: "1000",
        kind: OptKind::Int { min: 0, max: i32::MAX as i64 },
        help: "TransactionDB: how long a transaction waits for a row lock before it fails with a conflict (RocksDB's default, 1000)",
    },
    OptionSpec { name: "enable_blob_files", default: "false", kind: OptKind::Bool, help: "BlobDB: values of at least min_blob_size go to blob files" },
    OptionSpec { name: "min_blob_size", default: "0", kind: OptKind::Size, help: "smallest value stored in a blob file" },
    OptionSpec { name: "blob_file_size", default: "256M", kind: OptKind::Size, help: "blob file size" },
    OptionSpec {
        name: "blob_compression_type",
        default: "none",
        kind: OptKind::Choice(&["none", "snappy", "lz4", "zstd"]),
        help: "blob file compression",
    },
    OptionSpec { name: "enable_blob_garbage_collection", default: "false", kind: OptKind::Bool, help: "rewrite blobs of old blob files during compaction" },
    OptionSpec {
        name: "compression",
        default: "snappy",
        kind: OptKind::Choice(&["none", "snappy", "lz4", "zstd", "zlib", "bz2"]),
        help: "block compression, all levels",
    },
    OptionSpec { name: "bloom_bits", default: "0", kind: OptKind::Int { min: 0, max: 100 }, help: "bloom filter bits per key, 0 = no filter" },
    OptionSpec { name: "block_size", default: "4096", kind: OptKind::Size, help: "data block size" },
    OptionSpec { name: "cache_index_and_filter_blocks", default: "false", kind: OptKind::Bool, help: "charge index/filter blocks to the block cache" },
    OptionSpec { name: "wal", default: "true", kind: OptKind::Bool, help: "write-ahead log on/off" },
    OptionSpec { name: "sync", default: "false", kind: OptKind::Bool, help: "fsync the WAL on every write" },
    OptionSpec { name: "use_direct_reads", default: "false", kind: OptKind::Bool, help: "O_DIRECT for user reads" },
    OptionSpec {
        name: "use_direct_io_for_flush_and_compaction",
        default: "false",
        kind: OptKind::Bool,
        help: "O_DIRECT for background IO",
    },
    OptionSpec { name: "max_open_files", default: "-1", kind: OptKind::Int { min: -1, max: i32::MAX as i64 }, help: "table cache size, -1 = keep all open" },
    OptionSpec { name: "bytes_per_sync", default: "0", kind: OptKind::Size, help: "incremental sync of SST files, 0 = off" },
    OptionSpec {
        name: "enable_pipelined_write",
        default: "true",
        kind: OptKind::Bool,
        help: "pipelined WAL/memtable writes (db_bench's default)",
    },
    OptionSpec { name: "disable_auto_compactions", default: "false", kind: OptKind::Bool, help: "no automatic compactions" },
    OptionSpec {
        name: "statistics",
        default: "false",
        kind: OptKind::Bool,
        help: "RocksDB statistics (exact write-amp counters; costs some CPU)",
    },
];

/// db_bench's settings where they differ from RocksDB's own defaults, for what
/// rumbench has no option for (db_bench_tool.cc: flag defaults applied in
/// InitializeOptionsFromFlags, and InitializeOptionsGeneral). Applied through
/// RocksDB's options-string parser: the C API has no setter for some of them.
const DB_BENCH_FIXED: &[(&str, &str)] = &[
    ("delayed_write_rate", "8388608"), // --delayed_write_rate (RocksDB: 16M)
    ("hard_pending_compaction_bytes_limit", "137438953472"), // --hard_pending_compaction_bytes_limit, 128G (RocksDB: 256G)
    ("table_cache_numshardbits", "4"),                       // --table_cache_numshardbits (RocksDB: 6)
    ("dump_malloc_stats", "true"),                           // --dump_malloc_stats
    ("create_missing_column_families", "true"),              // always set by db_bench
    // --fifo_compaction_max_table_files_size_mb=0, --fifo_compaction_allow_compaction=true
    ("compaction_options_fifo", "{max_table_files_size=0;allow_compaction=true}"),
    // --index_shortening_mode=2, --pin_top_level_index_and_filter=false.
    // Given as the table factory's options, RocksDB clones the factory set
    // below (block cache included) and changes only these.
    (
        "block_based_table_factory",
        "{index_shortening=kShortenSeparatorsAndSuccessor;pin_top_level_index_and_filter=false}",
    ),
];

/// io-bound mode: O_DIRECT reads (no page cache), a small block cache, and
/// bloom filters with index and filter blocks held outside the cache, so a
/// point query costs about one storage read (the data block).
const IO_BOUND: &[(&str, &str)] = &[
    ("use_direct_reads", "true"),
    ("use_direct_io_for_flush_and_compaction", "true"),
    ("block_cache_size", "8M"),
    ("bloom_bits", "10"),
    ("cache_index_and_filter_blocks", "false"),
];

/// Named configs: `-e rocksdb:blob` runs a config "rocksdb-blob" with these options under the user's.
pub const PRESETS: &[(&str, &[(&str, &str)])] = &[
    ("leveled", &[("compaction_style", "leveled")]),
    ("universal", &[("compaction_style", "universal")]),
    ("blob", &[("enable_blob_files", "true"), ("min_blob_size", "0"), ("enable_blob_garbage_collection", "true")]),
    ("pessimistic", &[("transactions", "pessimistic")]),
    ("optimistic", &[("transactions", "optimistic")]),
];

/// RocksDB in other releases (`rocksdb@8.10`, `rocksdb@7.6.0:release`): each
/// built from this source or linked to RocksDB's own release library, once,
/// into the cache (rocksdb_build), and run as a program of its own.
const VERSIONS: super::EngineVersions = super::EngineVersions {
    resolve: |request, listed| {
        let r = self::versions::resolve_with(request, listed)?;
        Ok(super::EngineVersion {
            request: r.request(),
            slug: r.config_slug(),
            default_overrides: r.default_overrides(),
        })
    },
    listing: self::official::versions,
    check: check_release,
    prepare: |v| {
        let release = self::versions::resolve(v)?;
        self::build::ensure(release)?;
        Ok(release.lacks().into_iter().map(|l| format!("{}: {l}", release.label())).collect())
    },
    program: |v| self::build::ensure(self::versions::resolve(v)?),
    running: self::build::running_release,
};

/// A `rocksdb@<version>` config asks only for what that release can do
/// (options as resolved, transactions=auto included, and its steps).
fn check_release(v: &str, c: &crate::plan::EngineConfig, plan: &crate::plan::RunPlan) -> Result<()> {
    let release = self::versions::resolve(v)?;
    release.check_options(&EngineOptions(c.options.clone())).with_context(|| format!("config {}", c.name))?;
    let multiget = crate::plan::steps::StepKind::MultiReadRandom;
    if let Some(s) = plan.steps.iter().find(|s| s.kind == multiget && !release.caps.multiget) {
        bail!("config {}: step {} needs RocksDB 7.4.4 or later (batched MultiGet in its C API); this config runs RocksDB {v}", c.name, s.kind);
    }
    Ok(())
}

pub const SPEC: EngineSpec = EngineSpec {
    name: "rocksdb",
    profile_symbols: &[("rocksdb::", "librocksdb"), ("rocksdb_", "librocksdb")],
    sizes_not_claimed: &["target_file_size_base", "max_bytes_for_level_base", "min_blob_size", "blob_file_size", "block_size", "bytes_per_sync"],
    check_plan: super::no_plan_checks,
    plan_claims: super::no_plan_claims,
    space_needed: super::no_space_needed,
    versions: Some(&VERSIONS),
    description: concat!(
        "RocksDB ",
        env!("RUMBENCH_ROCKSDB_SOURCE_VERSION"),
        " LSM (leveled, universal, BlobDB), a release build from librocksdb-sys's bundled source; \
                  option defaults are db_bench's (the same OPTIONS file and block cache, db_bench's fixed settings included); \
                  RocksDB 6.28 to 10.4 as rocksdb@8.10 (rumbench rocksdb-versions)"
    ),
    options: OPTIONS,
    io_bound_options: IO_BOUND,
    presets: PRESETS,
    stores_data: true,
    existing_database: Some(|dir| {
        super::file_starts_with(dir, "CURRENT", b"MANIFEST-", "a CURRENT file")?;
        if !super::has_rocksdb_files(dir) {
            bail!("its CURRENT has neither IDENTITY nor an OPTIONS file beside it, as a LevelDB database does; opened by RocksDB it would be rewritten so that LevelDB could not open it");
        }
        Ok(())
    }),
    open,
    check,
    build_info: build_provenance,
    transactions: transactions_kind,
    max_sessions: super::any_sessions,
    claims,
    crash_cause: super::no_crash_cause,
    // Keys and values are length-prefixed by 32-bit varints (WriteBatch, blocks): far above rumbench's 64 MiB.
    size_limits: super::no_size_limits,
};

/// The block cache and the memtables (write_buffer_size, up to
/// max_write_buffer_number of them before writes stall).
fn claims(o: &EngineOptions, _sessions: usize) -> Vec<super::Claim> {
    let memtables = o.u64("write_buffer_size").saturating_mul(o.u64("max_write_buffer_number"));
    vec![
        super::Claim::memory(o.u64("block_cache_size"), super::option_text("rocksdb", o, "block_cache_size")),
        super::Claim::memory(
            memtables,
            format!(
                "rocksdb.write_buffer_size={} x max_write_buffer_number={}",
                super::human_size(o.u64("write_buffer_size")),
                o.u64("max_write_buffer_number")
            ),
        ),
    ]
}

#[cfg(rocksdb_has_txn)]
use self::txn::kind as transactions_kind;
#[cfg(not(rocksdb_has_txn))]
use super::no_transactions as transactions_kind;

/// Option combinations that cannot mean what they say.
fn check(o: &EngineOptions) -> Result<()> {
    if !o.bool("wal") && o.bool("sync") {
        bail!("sync=true syncs the write-ahead log, but wal=false turns it off: drop one of them");
    }
    let open_files = o.i64("max_open_files");
    if (0..20).contains(&open_files) {
        bail!("rocksdb.max_open_files={open_files}: RocksDB would silently raise it to 20; give -1 (keep all open) or 20 and more");
    }
    // What this RocksDB cannot do (build.rs finds out from its source; a release build's from its version).
    self::versions::Release::this_process().check_options(o)?;
    if o.i64("level0_stop_writes_trigger") < o.i64("level0_slowdown_writes_trigger") {
        bail!(
            "level0_stop_writes_trigger ({}) is below level0_slowdown_writes_trigger ({}): writes would stop before they slow down",
            o.i64("level0_stop_writes_trigger"),
            o.i64("level0_slowdown_writes_trigger")
        );
    }
    Ok(())
}

pub struct RocksEngine {
    // Before `common`: the DB closes before its options and cache are freed.
    db: Db,
    common: Common,
    /// Opened with DB::OpenForReadOnly.
    read_only: bool,
}

/// The compaction_pri value in RocksDB's options-string syntax: the C API
/// has a setter only from 9.9.3, the options string has it in every version.
fn compaction_pri(name: &str) -> &'static str {
    match name {
        "by_compensated_size" => "kByCompensatedSize",
        "oldest_largest_seq_first" => "kOldestLargestSeqFirst",
        "oldest_smallest_seq_first" => "kOldestSmallestSeqFirst",
        "round_robin" => "kRoundRobin",
        _ => "kMinOverlappingRatio",
    }
}

fn compression(name: &str) -> Compression {
    match name {
        "none" => Compression::None,
        "lz4" => Compression::Lz4,
        "zstd" => Compression::Zstd,
        "zlib" => Compression::Zlib,
        "bz2" => Compression::Bz2,
        _ => Compression::Snappy,
    }
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    let o: &EngineOptions = &args.options;
    let mut opts = Options::new();
    opts.create_if_missing(args.create);
    opts.set_compaction_style(match o.str("compaction_style") {
        "universal" => CompactionStyle::Universal,
        _ => CompactionStyle::Level,
    });
    opts.set_write_buffer_size(o.u64("write_buffer_size") as usize);
    opts.set_max_write_buffer_number(o.i32("max_write_buffer_number"));
    opts.set_max_background_jobs(o.i32("max_background_jobs"));
    opts.set_max_subcompactions(o.u64("max_subcompactions") as u32);
    opts.set_level_zero_file_num_compaction_trigger(o.i32("level0_file_num_compaction_trigger"));
    opts.set_level_zero_slowdown_writes_trigger(o.i32("level0_slowdown_writes_trigger"));
    opts.set_level_zero_stop_writes_trigger(o.i32("level0_stop_writes_trigger"));
    opts.set_target_file_size_base(o.u64("target_file_size_base"));
    opts.set_max_bytes_for_level_base(o.u64("max_bytes_for_level_base"));
    opts.set_num_levels(o.i32("num_levels"));
    opts.set_level_compaction_dynamic_level_bytes(o.bool("level_compaction_dynamic_level_bytes"));
    opts.set_compression_type(compression(o.str("compression")));
    opts.set_enable_blob_files(o.bool("enable_blob_files"));
    opts.set_min_blob_size(o.u64("min_blob_size"));
    opts.set_blob_file_size(o.u64("blob_file_size"));
    opts.set_blob_compression_type(compression(o.str("blob_compression_type")));
    opts.set_enable_blob_gc(o.bool("enable_blob_garbage_collection"));
    opts.set_use_direct_reads(o.bool("use_direct_reads"));
    opts.set_use_direct_io_for_flush_and_compaction(o.bool("use_direct_io_for_flush_and_compaction"));
    opts.set_max_open_files(o.i32("max_open_files"));
    opts.set_bytes_per_sync(o.u64("bytes_per_sync"));
    opts.set_enable_pipelined_write(o.bool("enable_pipelined_write"));
    opts.set_disable_auto_compactions(o.bool("disable_auto_compactions"));
    if o.bool("statistics") {
        opts.enable_statistics();
    }
    let capacity = o.u64("block_cache_size");
    let (cache, cache_description) = match o.str("cache_type") {
        // Estimated entry charge 0: RocksDB sizes its table (AutoHyperClockCache), as db_bench does by default.
        #[cfg(rocksdb_has_hyper_clock)]
        "hyper_clock" if ffi::caps().hyper_clock => (
            Cache::hyper_clock(capacity as usize),
            format!("HyperClockCache(capacity={capacity}, estimated_entry_charge=0: auto)"),
        ),
        // Refused at plan time for a release without it; never an LRU cache in its place.
        "hyper_clock" => bail!(
            "rocksdb.cache_type=hyper_clock needs RocksDB 8.8.1 or later; this config runs {}",
            self::versions::Release::this_process().label()
        ),
        _ => (Cache::lru(capacity as usize), format!("LRUCache(capacity={capacity})")),
    };
    let mut table = BlockBasedOptions::new();
    table.set_block_cache(&cache);
    table.set_block_size(o.u64("block_size") as usize);
    table.set_cache_index_and_filter_blocks(o.bool("cache_index_and_filter_blocks"));
    let bloom = o.i64("bloom_bits");
    if bloom > 0 {
        table.set_bloom_filter(bloom as f64);
    }
    opts.set_block_based_table_factory(&table);
    // A copy of `opts` with db_bench's fixed settings and compaction_pri.
    let mut settings: Vec<String> = DB_BENCH_FIXED.iter().map(|(k, v)| format!("{k}={v}")).collect();
    settings.push(format!("compaction_pri={}", compaction_pri(o.str("compaction_pri"))));
    let opts = opts.with_options_string(&settings.join(";")).context("rocksdb: db_bench's fixed settings")?;
    let common = Common {
        db_opts: opts,
        _cache: cache,
        dir: args.dir.clone(),
        write_opts_sync: o.bool("sync"),
        write_opts_wal: o.bool("wal"),
        statistics: o.bool("statistics"),
        cache_description,
        background_jobs: o.u64("max_background_jobs") as usize,
    };
    #[cfg(rocksdb_has_txn)]
    if o.str("transactions") == "pessimistic" || o.str("transactions") == "optimistic" {
        return self::txn::open(o.str("transactions"), common, o.i64("lock_timeout_ms"));
    }
    if args.read_only {
        // The user's database, read by steps that only read: RocksDB writes nothing of it.
        let db = Db::open_read_only(&common.db_opts, &args.dir)
            .with_context(|| format!("rocksdb cannot open {} read-only", args.dir.display()))?;
        return Ok(Box::new(RocksEngine { db, common, read_only: true }));
    }
    let db =
        Db::open(&common.db_opts, &args.dir).with_context(|| format!("rocksdb cannot open {}", args.dir.display()))?;
    Ok(Box::new(RocksEngine { db, common, read_only: false }))
}

/// How this RocksDB was built, for every result (see build.rs): its name
/// for the version table (`build.product`), then the build.
pub fn build_provenance() -> Vec<(String, String)> {
    let mut out = vec![("build.product".to_string(), "RocksDB".to_string())];
    out.extend(build_only_provenance());
    out
}

fn build_only_provenance() -> Vec<(String, String)> {
    // A RocksDB version's build (rocksdb@8.10): how and when it was made (the cache entry beside this binary).
    let cached = self::build::this_binarys_build();
    if let Some(dir) = option_env!("RUMBENCH_ROCKSDB_LIB_DIR") {
        return official_provenance(dir, cached.as_ref());
    }
    let flags = crate::build_info::ROCKSDB_CXX_FLAGS;
    let ndebug = if flags.is_empty() {
        "true (librocksdb-sys defines NDEBUG; its compile commands were not logged to check)".to_string()
    } else if crate::build_support::flags_are_release(flags) {
        "true (checked: RocksDB's compile command defines NDEBUG and optimises)".to_string()
    } else {
        format!("false (RocksDB's compile command: {flags})")
    };
    let mut out = vec![
        (
            "build.library".into(),
            format!("bundled source of librocksdb-sys {}, linked statically", versions::SYS_CRATE_VERSION),
        ),
        ("build.origin".into(), "source build".into()),
        ("build.rocksdb_source".into(), versions::SOURCE_VERSION.into()),
        ("build.ndebug".into(), ndebug),
        ("build.opt_level".into(), crate::build_info::OPT_LEVEL.into()),
        ("build.target_cpu".into(), crate::build_info::TARGET_CPU.into()),
        ("build.compiler".into(), crate::build_info::CXX_COMPILER.into()),
    ];
    if !flags.is_empty() {
        out.push(("build.rocksdb_cxx_flags".into(), flags.into()));
    }
    // A RocksDB version's build (rocksdb@8.10): what it lacks, and how and when it was made (the cache entry beside this binary).
    let release = self::versions::Release::built_in();
    out.extend(release.lacks().into_iter().map(|l| ("rocksdb.lacks".to_string(), l)));
    out.push(("build.rumbench_source".into(), self::build::SOURCE_HASH.into()));
    if let Some(cached) = cached {
        out.push((
            "build.version_build".into(),
            format!(
                "cached build of {} made {} in {:.1} min",
                release.package_name(),
                cached.built_at,
                cached.build_seconds / 60.0
            ),
        ));
        if let Some(added) = cached.added_cxxflags {
            out.push((
                "build.added_cxxflags".into(),
                format!(
                    "{added} (what 0.19.0's crate passes and this one does not: the target CPU, Linux platform macros)"
                ),
            ));
        }
    }
    out
}

/// The provenance of a build linked to RocksDB's own release library in
/// `lib_dir` (`rocksdb@7.6.0:release`): what the library is and where it
/// came from, as its cache entry records it, and what it says of its own
/// build. Nothing of it was compiled here: its flags are RocksDB's release
/// build's (portable, `DEBUG_LEVEL=0`), not checked the way a source build's are.
fn official_provenance(lib_dir: &str, cached: Option<&self::build::CachedBuild>) -> Vec<(String, String)> {
    let release = self::versions::Release::this_process();
    let mut out = Vec::new();
    let Some(lib) = cached.and_then(|c| c.official.as_ref()) else {
        out.push((
            "build.library".into(),
            format!("a RocksDB shared library from {lib_dir}, linked dynamically; where it came from is not recorded (no build.json beside this binary)"),
        ));
        out.push(("build.origin".into(), "shared library of unknown origin".into()));
        return out;
    };
    out.push((
        "build.library".into(),
        format!(
            "{}: {}, linked dynamically, through librocksdb-sys {}'s C API header (RocksDB {}); its C API functions newer than 6.28.2 looked up by name where {} has them",
            lib.describe(),
            lib.path.display(),
            versions::SYS_CRATE_VERSION,
            versions::SOURCE_VERSION,
            match release.origin {
                self::versions::Origin::Official { caps_of } => format!("RocksDB {caps_of}"),
                self::versions::Origin::Source => release.label(),
            }
        ),
    ));
    out.push(("build.origin".into(), "official release build".into()));
    out.push(("build.rocksdb_source".into(), lib.version.clone()));
    out.push(("build.rocksdb_header".into(), versions::SOURCE_VERSION.into()));
    out.push((
        "build.ndebug".into(),
        "unknown (not checked: RocksDB's release jars are built with DEBUG_LEVEL=0, which defines NDEBUG, but the library keeps no compile command)".into(),
    ));
    out.push(("build.target_cpu".into(), "portable (RocksDB's release build, PORTABLE=1)".into()));
    out.push(("build.compiler".into(), lib.compiler()));
    if let Some(date) = &lib.build_date {
        out.push(("build.rocksdb_build_date".into(), date.clone()));
    }
    out.extend(release.lacks().into_iter().map(|l| ("rocksdb.lacks".to_string(), l)));
    out.push(("build.rumbench_source".into(), self::build::SOURCE_HASH.into()));
    if let Some(c) = cached {
        out.push((
            "build.version_build".into(),
            format!(
                "rumbench's binary for every release build, run beside {}, made {} in {:.1} min (nothing of RocksDB compiled)",
                lib.describe(),
                c.built_at,
                c.build_seconds / 60.0
            ),
        ));
    }
    out
}

impl RocksEngine {
    fn property(&self, name: &str) -> Option<String> {
        self.db.property(name)
    }
}

impl Engine for RocksEngine {
    fn version(&self) -> String {
        self.common.version()
    }

    fn read_only(&self) -> bool {
        self.read_only
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        if self.read_only {
            // A read-only open writes no OPTIONS file: the one there is the writer's, not this open's.
            let mut out: Vec<(String, String)> = self.common.effective_options();
            out.retain(|(k, _)| k.starts_with("WriteOptions.") || k == "BlockBasedTable.block_cache");
            out.push(("OPTIONS".into(), "opened read-only (DB::OpenForReadOnly), which writes no OPTIONS file: the options in force are rumbench's as given; the OPTIONS file in the directory is its writer's".into()));
            out.push(("transactions".into(), "none (plain DB, read-only)".into()));
            return out;
        }
        let mut out = self.common.effective_options();
        out.push(("transactions".into(), "none (plain DB)".into()));
        out
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        // Sessions are opened on the thread that uses them. RocksDB's per-thread
        // perf counters are on by default; db_bench turns them off, and so do we
        // (they cost about 14% more CPU per put in a profile).
        ffi::disable_perf_stats_on_this_thread();
        Ok(Box::new(RocksSession {
            db: &self.db,
            read_opts: ReadOptions::new(),
            write_opts: WriteOptions::new(self.common.write_opts_sync, self.common.write_opts_wal),
            batch: WriteBatch::new(),
        }))
    }

    fn flush(&self) -> Result<()> {
        self.db.flush().context("rocksdb flush")
    }

    fn wait_for_background_work(&self, timeout: std::time::Duration) -> Result<Option<bool>> {
        wait_for_compact(&self.db, timeout)
    }

    fn background_work_pending(&self) -> Result<Option<bool>> {
        Ok(Some(self.common.background_work_pending(&|p| self.property(p))))
    }

    fn background_threads(&self) -> (usize, String) {
        self.common.background_threads()
    }

    fn stats(&self) -> Vec<(String, String)> {
        self.common.stats(&|p| self.property(p))
    }

    fn write_amp_counters(&self) -> Option<WriteAmpCounters> {
        self.common.write_amp_counters(&|p| self.property(p))
    }

    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        self.common.write_debt(&|p| self.property(p))
    }

    fn internals(&self) -> std::result::Result<Vec<super::Internal>, String> {
        self.common.internals(&|p| self.property(p))
    }
}

struct RocksSession<'a> {
    db: &'a Db,
    read_opts: ReadOptions,
    write_opts: WriteOptions,
    /// One batch per session, cleared and reused for every put, delete and
    /// batch, as db_bench does: `rocksdb_put` (DB::Put) would build and
    /// heap-allocate a new WriteBatch for every call.
    batch: WriteBatch,
}

impl RocksSession<'_> {
    #[inline]
    fn write_reused_batch(&mut self, fill: impl FnOnce(&mut WriteBatch)) -> Result<()> {
        self.batch.clear();
        fill(&mut self.batch);
        Ok(self.db.write(&self.write_opts, &self.batch)?)
    }
}

impl Session for RocksSession<'_> {
    #[inline]
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.write_reused_batch(|b| b.put(key, value)).context("rocksdb put")
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.write_reused_batch(|b| b.delete(key)).context("rocksdb delete")
    }

    fn write_batch(&mut self, ops: &[BatchOp<'_>]) -> Result<()> {
        self.write_reused_batch(|batch| {
            for op in ops {
                match *op {
                    BatchOp::Put(k, v) => batch.put(k, v),
                    BatchOp::Delete(k) => batch.delete(k),
                }
            }
        })
        .context("rocksdb write batch")
    }

    #[inline]
    fn get(&mut self, key: &[u8]) -> Result<bool> {
        // Into a PinnableSlice on RocksDB's stack: the value not copied and
        // nothing allocated, as db_bench's readrandom reads.
        self.db.get_found(&self.read_opts, key).context("rocksdb get")
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        match self.db.get_pinned(&self.read_opts, key).context("rocksdb get")? {
            Some(v) => {
                out.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    #[cfg(rocksdb_has_multiget)]
    fn multi_get(&mut self, keys: &[u8], key_size: usize) -> Result<usize> {
        if !ffi::caps().multiget {
            bail!(
                "rocksdb multiget needs RocksDB 7.4.4 or later; this config runs {}",
                self::versions::Release::this_process().label()
            );
        }
        let results = self.db.batched_multi_get(&self.read_opts, keys.chunks_exact(key_size));
        let mut found = 0;
        for r in results {
            found += r.context("rocksdb multiget")?.is_some() as usize;
        }
        Ok(found)
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        // A new iterator per scan, as db_bench's seekrandom, so it sees the latest writes.
        scan_with(self.db.iterator(&self.read_opts), start, reverse, max_entries, visit)
    }

    /// Before 7.4.4 the C API has only a MultiGet that copies every value:
    /// not the batched read this step measures.
    #[cfg(not(rocksdb_has_multiget))]
    fn multi_get(&mut self, _keys: &[u8], _key_size: usize) -> Result<usize> {
        bail!("rocksdb multiget needs RocksDB 7.4.4 or later; this build has RocksDB {}", versions::SOURCE_VERSION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_default(dir: &std::path::Path, user: &[(&str, &str)]) -> Box<dyn Engine> {
        super::super::conformance::open_with(&SPEC, dir, user).unwrap()
    }

    #[test]
    fn put_get_scan_delete_and_report() {
        let dir = tempfile::tempdir().unwrap();
        let engine = open_default(
            dir.path(),
            &[("statistics", "true"), ("write_buffer_size", "8M"), ("compaction_style", "universal")],
        );
        let mut s = engine.session().unwrap();
        for i in 0u64..100 {
            let mut k = [b'0'; 16];
            k[..8].copy_from_slice(&i.to_be_bytes());
            s.put(&k, b"value").unwrap();
        }
        let key = |i: u64| {
            let mut k = [b'0'; 16];
            k[..8].copy_from_slice(&i.to_be_bytes());
            k
        };
        assert!(s.get(&key(5)).unwrap());
        assert!(!s.get(&key(500)).unwrap());
        let mut seen = Vec::new();
        assert_eq!(
            s.scan(&key(10), false, 3, &mut |k, _| {
                seen.push(k[7]);
                true
            })
            .unwrap(),
            3
        );
        assert_eq!(seen, vec![10, 11, 12]);
        seen.clear();
        assert_eq!(
            s.scan(&key(10), true, 3, &mut |k, _| {
                seen.push(k[7]);
                true
            })
            .unwrap(),
            3
        );
        assert_eq!(seen, vec![10, 9, 8]);
        s.delete(&key(5)).unwrap();
        assert!(!s.get(&key(5)).unwrap());
        s.write_batch(&[BatchOp::Put(&key(200), b"x"), BatchOp::Delete(&key(6))]).unwrap();
        assert!(s.get(&key(200)).unwrap() && !s.get(&key(6)).unwrap());
        let mut keys = Vec::new();
        for i in [1u64, 2, 300] {
            keys.extend_from_slice(&key(i));
        }
        assert_eq!(s.multi_get(&keys, 16).unwrap(), 2);
        drop(s);
        engine.flush().unwrap();
        assert_eq!(engine.version(), "11.8.1");
        let opts = engine.effective_options();
        // The column family really got our options (not RocksDB's defaults).
        assert!(opts.iter().any(|(k, v)| k == "CFOptions.write_buffer_size" && v == "8388608"), "{opts:?}");
        assert!(opts.iter().any(|(k, v)| k == "CFOptions.compaction_style" && v == "kCompactionStyleUniversal"));
        let stats = engine.stats();
        assert!(stats.iter().any(|(k, _)| k == "rocksdb.stats"));
        let wa = engine.write_amp_counters().unwrap();
        assert!(wa.ingest_bytes > 100 * 16 && wa.written_bytes > 0, "{wa:?}");
        // Background work after the flush winds down within moments.
        let t = std::time::Instant::now();
        while engine.background_work_pending().unwrap() != Some(false) {
            assert!(t.elapsed().as_secs() < 30, "background work never finished");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    #[test]
    fn options_off_their_defaults_reach_rocksdb() {
        let dir = tempfile::tempdir().unwrap();
        let user = [
            ("compaction_pri", "oldest_smallest_seq_first"),
            ("cache_type", "lru"),
            ("block_cache_size", "16M"),
            ("bloom_bits", "10"),
            ("compression", "zstd"),
            ("enable_blob_files", "true"),
            ("blob_compression_type", "lz4"),
            ("max_subcompactions", "3"),
            ("disable_auto_compactions", "true"),
        ];
        let engine = open_default(dir.path(), &user);
        let opts = engine.effective_options();
        let get = |k: &str| {
            opts.iter()
                .find(|(name, _)| name == k)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("no {k} in {opts:?}"))
        };
        assert_eq!(get("CFOptions.compaction_pri"), "kOldestSmallestSeqFirst");
        assert_eq!(get("CFOptions.compression"), "kZSTD");
        assert_eq!(get("CFOptions.enable_blob_files"), "true");
        assert_eq!(get("CFOptions.blob_compression_type"), "kLZ4Compression");
        assert_eq!(get("CFOptions.disable_auto_compactions"), "true");
        assert_eq!(get("DBOptions.max_subcompactions"), "3");
        assert!(get("TableOptions/BlockBasedTable.filter_policy").contains("bloomfilter"), "{opts:?}");
        assert_eq!(get("BlockBasedTable.block_cache"), "LRUCache(capacity=16777216)");
        // db_bench's fixed settings still hold next to the user's.
        assert_eq!(get("DBOptions.delayed_write_rate"), "8388608");
    }

    #[test]
    fn the_db_closes_before_its_options_and_cache_are_freed() {
        for kind in ["none", "pessimistic", "optimistic"] {
            let dir = tempfile::tempdir().unwrap();
            let engine = open_default(dir.path(), &[("transactions", kind)]);
            ffi::drop_log::take();
            drop(engine);
            let log = ffi::drop_log::take();
            assert_eq!(log.first(), Some(&"db closed"), "{kind}: {log:?}");
            assert!(log.contains(&"options freed") && log.contains(&"cache freed"), "{kind}: {log:?}");
        }
    }

    #[test]
    fn keeps_the_engine_contract() {
        super::super::conformance::run_all(|dir| open_default(dir, &[]));
    }
}
