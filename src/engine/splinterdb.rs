//! SplinterDB (VMware's size-tiered B^epsilon-tree / "STB^epsilon-tree" key-value
//! store) at upstream commit d2173e0e, built from the vendored source by
//! vendor/splinterdb-sys (upstream's release build, clang, -march=native) and
//! used through its public C API (splinterdb.h) and a safe wrapper there.
//!
//! One database in one file, `<data dir>/splinterdb.db`, of `disk_size` bytes
//! fixed at creation (sparse: only what is written takes space). Keys compare
//! bytewise (SplinterDB's default_data_config). Every client thread is
//! registered with the library on its first call (automatic) and holds one
//! lookup result buffer; each scan makes its own iterator from its start key
//! (SplinterDB has no seek) and frees it.
//!
//! What SplinterDB lacks, refused at plan time by [`check_plan`] with the
//! reason: write batches (--batch-size above 1, the insert benchmark's rows),
//! multi-key transactions (randomtransaction), updates through merge callbacks
//! (its default data config has none). Done another way, each step noting how
//! ([`Engine::step_notes`]): flush (no call flushes the memtable: queued
//! background work runs and dirty cache pages are written back),
//! waitforcompaction (the queued tasks run on the caller's thread until the
//! task system is quiescent), hot-row updates (a get and a put under a per-key
//! lock rumbench holds). It calls no fsync, fdatasync or msync and replays no
//! log: every write step is ND, and the crash test measures what a kill and a
//! power cut leave (docs/splinterdb.md).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use anyhow::{bail, Context, Result};
use splinterdb_sys as sys;

use super::{BatchOp, Engine, EngineOptions, EngineSpec, OpenArgs, OptKind, OptionSpec, Session, TxnEnd, TxnOps};
use crate::plan::steps::StepKind;

/// The database file in the data dir.
pub const DB_FILE: &str = "splinterdb.db";
/// Threads SplinterDB registers at once (MAX_THREADS, platform_threads.h).
const MAX_THREADS: u64 = 64;
/// `disk_size=0`: sized from the run, this many times its live data (twice
/// what it needs, which counts the live data twice), plus [`DISK_FLOOR`].
pub const DISK_MARGIN: u64 = 4;
pub const DISK_FLOOR: u64 = 1 << 30;
/// The least cache, in memtables (memtable_capacity), rumbench runs SplinterDB
/// with. Its memtables are B-trees whose pages live in the cache, and a full
/// one is incorporated while the next fills: measured here (one thread, 3-6M
/// inserts), caches of 1.33, 1.5 and 1.83 memtables stalled inserts for ever,
/// 2 and 2.33 completed; 3 leaves a memtable of margin (docs/splinterdb.md).
pub const CACHE_MIN_MEMTABLES: u64 = 3;
/// Bytes a tuple takes on disk beyond its key and value (an estimate for the
/// disk check, from the space the fills of docs/splinterdb.md used).
const TUPLE_OVERHEAD: u64 = 16;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "cache_size", default: "1G", kind: OptKind::Size, help: "the page cache (clockcache) capacity; the library has no default: 1G is splinter_test's; at least 3 x memtable_capacity (below, inserts stall for ever)" },
    OptionSpec { name: "disk_size", default: "0", kind: OptKind::Size, help: "the database file's size, fixed at creation; 0 = sized from the run: twice what it needs (its live data twice over, and every byte its steps write) plus 1G, at most 90% of the free space (sparse: only what is written takes space); a run that cannot fit is refused" },
    OptionSpec { name: "memtable_capacity", default: "24M", kind: OptKind::Size, help: "bytes of one memtable (SplinterDB's default 24M; 4 are kept)" },
    OptionSpec { name: "fanout", default: "8", kind: OptKind::Int { min: 2, max: 64 }, help: "trunk fanout (SplinterDB's default 8)" },
    OptionSpec { name: "num_memtable_bg_threads", default: "0", kind: OptKind::Int { min: 0, max: 32 }, help: "background threads for memtable work (default 0: client threads do it)" },
    OptionSpec { name: "num_normal_bg_threads", default: "0", kind: OptKind::Int { min: 0, max: 32 }, help: "background threads for compactions and filters (default 0: client threads do them)" },
    OptionSpec { name: "queue_scale_percent", default: "0", kind: OptKind::Int { min: 0, max: 1_000_000 }, help: "when client threads run queued background tasks (0, the library's: whenever one waits)" },
    OptionSpec { name: "direct_io", default: "false", kind: OptKind::Bool, help: "open the file with O_DIRECT (io_flags): reads and writes bypass the OS page cache" },
    OptionSpec { name: "page_size", default: "4K", kind: OptKind::Size, help: "page size: 4K only (its Linux I/O layer takes IO_DEFAULT_PAGE_SIZE alone: laio_config_valid_page_size)" },
    OptionSpec { name: "extent_size", default: "128K", kind: OptKind::Size, help: "extent size: 128K only, 32 pages (its Linux I/O layer takes IO_DEFAULT_EXTENT_SIZE alone: laio_config_valid_extent_size)" },
    OptionSpec { name: "io_async_queue_depth", default: "256", kind: OptKind::Int { min: 1, max: 65_536 }, help: "libaio queue depth" },
    OptionSpec { name: "filter_hash_size", default: "26", kind: OptKind::Int { min: 8, max: 32 }, help: "routing filter fingerprint bits (default 26)" },
    OptionSpec { name: "filter_log_index_size", default: "9", kind: OptKind::Int { min: 1, max: 16 }, help: "log2 of routing filter index buckets (default 9; splinter_test uses 8)" },
    OptionSpec { name: "use_log", default: "false", kind: OptKind::Bool, help: "write SplinterDB's shard log on every insert (default false); it is never replayed: opening makes a new one" },
    OptionSpec { name: "use_stats", default: "false", kind: OptKind::Bool, help: "SplinterDB's statistics (default false); needed for the cache's IO counter, the engine write-amp (it times every insert)" },
];

/// io-bound mode: direct IO and a cache well below the data (6 memtables of 4M).
const IO_BOUND: &[(&str, &str)] = &[("direct_io", "true"), ("cache_size", "24M"), ("memtable_capacity", "4M")];

pub const SPEC: EngineSpec = EngineSpec {
    name: "splinterdb",
    profile_symbols: &[("splinterdb_", "libsplinterdb")],
    sizes_not_claimed: &["memtable_capacity", "page_size", "extent_size"],
    check_plan,
    plan_claims,
    space_needed: |plan| run_space_needed(plan).ok(),
    versions: None,
    description: "SplinterDB d2173e0e (VMware, STBe-tree): built from source (vendor/splinterdb-sys), release, -march=native; no WAL replay, no fsync",
    options: OPTIONS,
    io_bound_options: IO_BOUND,
    presets: &[],
    stores_data: true,
    existing_database: Some(|dir| {
        let f = dir.join(DB_FILE);
        match std::fs::metadata(&f) {
            Ok(m) if m.len() >= 4096 => Ok(()),
            Ok(_) => bail!("its {DB_FILE} is shorter than a SplinterDB superblock"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("no {DB_FILE} in it"),
            Err(e) => bail!("cannot read its {DB_FILE}: {e}"),
        }
    }),
    open,
    check,
    build_info,
    transactions,
    max_sessions,
    claims,
    crash_cause,
    size_limits,
};

/// Hot-row updates: SplinterDB has no transactions; rumbench serializes a
/// read-modify-write of one key (see `SplinterSession::transaction`).
fn transactions(_: &EngineOptions) -> Option<&'static str> {
    Some("none in SplinterDB: a read-modify-write is a get and a put of one key under a per-key lock rumbench holds; multi-key transactions are refused")
}

/// SplinterDB registers at most 64 threads, its background threads among them.
fn max_sessions(o: &EngineOptions) -> Option<(u64, &'static str)> {
    let bg = o.u64("num_memtable_bg_threads") + o.u64("num_normal_bg_threads");
    Some((MAX_THREADS - 1 - bg, "num_normal_bg_threads"))
}

fn check(o: &EngineOptions) -> Result<()> {
    // The vendored Linux I/O layer (platform_linux/laio.c) refuses every
    // other size at create, though SplinterDB's own limits allow 8K pages
    // and other extents: refused here, before anything starts.
    let page = o.u64("page_size");
    if page != 4096 {
        bail!("splinterdb.page_size={page}: this SplinterDB takes 4096 only (its Linux I/O layer: laio_config_valid_page_size)");
    }
    let extent = o.u64("extent_size");
    if extent != 128 << 10 {
        bail!("splinterdb.extent_size={extent}: this SplinterDB takes 131072 (128K, 32 pages) only (its Linux I/O layer: laio_config_valid_extent_size)");
    }
    let (cache, memtable) = (o.u64("cache_size"), o.u64("memtable_capacity"));
    if memtable < 1 << 20 {
        bail!("splinterdb.memtable_capacity={memtable}: at least 1M");
    }
    if cache < CACHE_MIN_MEMTABLES * memtable {
        bail!(
            "splinterdb.cache_size={} is below {CACHE_MIN_MEMTABLES} x memtable_capacity ({}): SplinterDB's memtables live in its cache, and with less than 2 memtables' room its inserts stall for ever (raise cache_size or lower memtable_capacity)",
            super::human_size(cache),
            super::human_size(CACHE_MIN_MEMTABLES * memtable)
        );
    }
    let disk = o.u64("disk_size");
    if disk != 0 && disk < 64 * extent {
        bail!(
            "splinterdb.disk_size={}: at least 64 extents ({})",
            super::human_size(disk),
            super::human_size(64 * extent)
        );
    }
    Ok(())
}

/// The bytes of live data a run leaves at most (its key space, YCSB's
/// records and inserts, the hot rows), for sizing and checking the disk.
pub fn run_data_bytes(plan: &crate::plan::RunPlan) -> u64 {
    let s = &plan.settings;
    let mut bytes = 0u64;
    let kv = plan.steps.iter().any(|p| !p.kind.is_ycsb() && !p.kind.is_contention() && !p.kind.is_ibench());
    if kv {
        bytes = bytes.max(s.num.saturating_mul((s.key_size + s.value_size) as u64 + TUPLE_OVERHEAD));
    }
    if plan.steps.iter().any(|p| p.kind.is_ycsb()) {
        let y = &s.ycsb;
        let record = (y.field_count * y.field_length) as u64 + 24 + TUPLE_OVERHEAD;
        // Inserts of D and E: 5% of their operations (all of a count; for a duration, as many as the records).
        let inserts: u64 = plan
            .steps
            .iter()
            .filter(|p| matches!(p.kind, StepKind::YcsbD | StepKind::YcsbE))
            .map(|p| p.settings.ops.unwrap_or(y.records) / 20 + 1)
            .sum();
        bytes = bytes.max(y.records.saturating_add(inserts).saturating_mul(record));
    }
    if plan.steps.iter().any(|p| p.kind.is_contention()) {
        let c = &s.contention;
        let tables = c.hot_tables.iter().copied().max().unwrap_or(c.tables) as u64;
        bytes = bytes.max(tables.saturating_mul(c.hot_rows).saturating_mul(15 + 100 + TUPLE_OVERHEAD));
    }
    bytes
}

/// The file a run needs: its live data twice over (a compaction writes its
/// output before it frees its input), and at least every byte its steps
/// write, with each tuple's overhead (space is reclaimed only as compactions
/// catch up: 10M overwrites of 10,000 keys filled a file sized from the
/// keys and crashed SplinterDB). Err(why) when a step's writes are not known
/// before it runs (it writes for a duration).
pub fn run_space_needed(plan: &crate::plan::RunPlan) -> std::result::Result<u64, String> {
    let live = run_data_bytes(plan).saturating_mul(2);
    let written = crate::plan::run_write_bytes(plan)?;
    // Tuple overhead: 16 bytes on entries of 24 bytes and more (at most 2/3 on top).
    Ok(live.max(written.saturating_add(written / 3 * 2)))
}

/// The disk size for a run that needs `need` bytes when the user gives none:
/// twice the need (the need already counts the live data twice) plus
/// [`DISK_FLOOR`], whole extents. The file is sparse: only what SplinterDB
/// writes takes space.
pub fn auto_disk_size(need: u64, extent: u64) -> u64 {
    need.saturating_mul(DISK_MARGIN / 2).saturating_add(DISK_FLOOR).div_ceil(extent).saturating_mul(extent)
}

/// `disk_size=0` at open: [`auto_disk_size`] of what the run needs, at most
/// 90% of the free space (the file is sparse, but a file larger than the
/// free space fails on the filesystem's ENOSPC instead of SplinterDB's own
/// check) but never below the need (a plan that needs more than that was
/// refused before it started); when the need is not known (a step writes
/// for a duration), 90% of the free space, at most 1 TiB.
fn open_disk_size(args: &OpenArgs, extent: u64) -> (u64, String) {
    chosen_disk_size(args.space_needed, crate::measure::os::capacity::free_space(&args.dir), extent)
}

/// The size `open_disk_size` gives the file, from the run's need and the free space.
fn chosen_disk_size(need: Option<u64>, free: Option<u64>, extent: u64) -> (u64, String) {
    let free = free.map(|f| (f / 10 * 9) / extent * extent);
    let floor = 64 * extent;
    match (need, free) {
        (Some(need), Some(f)) if f < auto_disk_size(need, extent) => (
            f.max(need.div_ceil(extent) * extent).max(floor),
            format!("twice what the run needs plus {} is more than 90% of the free space: 90% of the free space ({} needed)", super::human_size(DISK_FLOOR), super::human_size(need)),
        ),
        (Some(need), _) => (auto_disk_size(need, extent), format!("sized from what the run keeps and writes ({}): twice that plus {}", super::human_size(need), super::human_size(DISK_FLOOR))),
        (None, Some(f)) => ((f.min(1 << 40)).max(floor), "what the run writes is not known at open (a step writes for a duration): 90% of the data filesystem's free space, at most 1T (sparse)".into()),
        (None, None) => (1 << 40, "what the run writes and the free space are not known: 1T (sparse)".into()),
    }
}

/// Refuse at plan time what SplinterDB cannot run (config `c` of `plan`), in one line that says why.
pub fn check_plan(c: &crate::plan::EngineConfig, plan: &crate::plan::RunPlan) -> Result<()> {
    let o = EngineOptions(c.options.clone());
    for p in &plan.steps {
        let k = p.kind;
        if k.is_ibench() {
            bail!("config {}: step {k} needs write batches (a row and its index entries in one commit), which SplinterDB does not have", c.name);
        }
        if k == StepKind::RandomTransaction {
            bail!("config {}: step {k} needs multi-key transactions, which SplinterDB does not have (hotrow runs: one key per read-modify-write)", c.name);
        }
        if p.settings.batch_size > 1
            && matches!(
                k,
                StepKind::Fill
                    | StepKind::FillSeq
                    | StepKind::FillRandom
                    | StepKind::FillUniqueRandom
                    | StepKind::Overwrite
            )
        {
            bail!("config {}: step {k} with --batch-size {} needs write batches, which SplinterDB does not have (run it with --batch-size 1)", c.name, p.settings.batch_size);
        }
    }
    let disk = o.u64("disk_size");
    if disk == 0 {
        return Ok(());
    }
    let extent = o.u64("extent_size");
    let (need, what) = match run_space_needed(plan) {
        Ok(need) => (need, "what this run keeps and writes (its live data twice over while compactions rewrite it, and every byte its steps write)"),
        // A step writes for a duration: at least the live data twice over.
        Err(_) => (run_data_bytes(plan).saturating_mul(2), "this run's data twice over (compactions rewrite it)"),
    };
    if need > disk {
        bail!(
            "config {}: splinterdb.disk_size={} cannot hold {what}, about {}: SplinterDB prints \"Out of Space\" and crashes when its file fills; set disk_size={} or leave it 0 (sized from the run)",
            c.name,
            super::human_size(disk),
            super::human_size(need),
            super::human_size(auto_disk_size(need, extent))
        );
    }
    Ok(())
}

/// Memory the cache holds beside each of its pages (clockcache_init): its
/// entry (a page handle, status, type and wait queue: 48 bytes), CC_RC_WIDTH
/// (4) reference counts of 2 bytes and a pin count of 1.
const CACHE_BYTES_PER_PAGE: u64 = 48 + 4 * 2 + 1;

/// Memory SplinterDB holds for a file of `disk` bytes, whatever it stores:
/// the cache's lookup table, 4 bytes for every page of the disk
/// (clockcache_init: one uint32 per page address, every one written at
/// open), and the allocator's reference counts, 4 bytes for every extent
/// (rc_allocator_init, zeroed at open).
pub fn disk_memory(disk: u64, page: u64, extent: u64) -> u64 {
    (disk / page.max(1)).saturating_mul(4).saturating_add((disk / extent.max(1)).saturating_mul(4))
}

/// What these options take of the machine: the cache and its entries, the
/// memory a file of disk_size takes ([`disk_memory`]), and disk_size itself
/// on the data filesystem (the file is sparse, but SplinterDB crashes when
/// the filesystem under it fills). disk_size=0 is sized at open from the run
/// and the free space (checked with the plan: [`check_space`]).
fn claims(o: &EngineOptions, _sessions: usize) -> Vec<super::Claim> {
    let (cache, page) = (o.u64("cache_size"), o.u64("page_size").max(1));
    let mut out = vec![super::Claim::memory(
        cache.saturating_add((cache / page).saturating_mul(CACHE_BYTES_PER_PAGE)),
        format!(
            "{} (and {CACHE_BYTES_PER_PAGE} bytes per page of it)",
            super::option_text("splinterdb", o, "cache_size")
        ),
    )];
    let (disk, extent) = (o.u64("disk_size"), o.u64("extent_size").max(1));
    if disk > 0 {
        out.push(super::Claim::memory(
            disk_memory(disk, page, extent),
            format!(
                "splinterdb.disk_size={}'s lookup table and reference counts (4 bytes per page of {} and per extent of {}, in memory)",
                super::human_size(disk),
                super::human_size(page),
                super::human_size(extent)
            ),
        ));
        out.push(super::Claim::disk(
            disk,
            format!(
                "{} (the file SplinterDB fills until it crashes)",
                super::option_text("splinterdb", o, "disk_size")
            ),
        ));
    }
    out
}

/// What config `c` of `plan` takes beyond its options' claims: with
/// disk_size=0, the memory of the file open will size ([`disk_memory`] of
/// `chosen_disk_size`: 1 TiB, when the run's writes are not known, holds 1
/// GiB of lookup table).
/// `EngineSpec::plan_claims`: with disk_size=0, the memory of the file
/// sized at open, after [`check_space`] found the run's need fits.
pub fn plan_claims(
    c: &crate::plan::EngineConfig,
    plan: &crate::plan::RunPlan,
    data_dir: &Path,
) -> Result<Vec<super::Claim>> {
    check_space(c, plan, data_dir)?;
    Ok(disk_size_claims(c, plan, data_dir))
}

fn disk_size_claims(c: &crate::plan::EngineConfig, plan: &crate::plan::RunPlan, data_dir: &Path) -> Vec<super::Claim> {
    if c.options.get("disk_size").is_some_and(|d| d != "0") {
        return Vec::new();
    }
    let o = EngineOptions(c.options.clone());
    let (page, extent) = (o.u64("page_size").max(1), o.u64("extent_size").max(1));
    let need = run_space_needed(plan).ok();
    let (disk, _) = chosen_disk_size(need, crate::measure::os::capacity::free_space(data_dir), extent);
    vec![super::Claim::memory(
        disk_memory(disk, page, extent),
        format!(
            "splinterdb.disk_size=0, sized at open to {}: its lookup table and reference counts (4 bytes per page and per extent, in memory); give disk_size to choose",
            super::human_size(disk)
        ),
    )]
}

/// disk_size=0 on a data filesystem whose free space cannot hold what the
/// run needs: refused before anything starts, with the figures.
pub fn check_space(c: &crate::plan::EngineConfig, plan: &crate::plan::RunPlan, data_dir: &Path) -> Result<()> {
    if c.options.get("disk_size").is_some_and(|d| d != "0") {
        return Ok(());
    }
    let (Ok(need), Some(free)) = (run_space_needed(plan), crate::measure::os::capacity::free_space(data_dir)) else {
        return Ok(());
    };
    if need > free / 10 * 9 {
        bail!(
            "config {}: this run needs about {} for SplinterDB's file (its live data twice over and every byte its steps write), and the data filesystem of {} has {} free (90% of it is the most rumbench gives the file): free space, or run fewer --ops or a smaller --num",
            c.name,
            super::human_size(need),
            data_dir.display(),
            super::human_size(free)
        );
    }
    Ok(())
}

/// The geometry a SplinterDB file was created with (disk_size, page_size,
/// extent_size: rc_allocator's meta page, the first bytes of the file, which
/// splinterdb_open uses instead of the config's).
pub fn file_geometry(path: &Path) -> Option<(u64, u64, u64)> {
    use std::io::Read;
    let mut head = [0u8; 24];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).ok()?;
    let word = |i: usize| u64::from_le_bytes(head[i * 8..i * 8 + 8].try_into().unwrap());
    let g = (word(0), word(1), word(2));
    (g.0 > 0 && g.1 > 0 && g.2 > 0).then_some(g)
}

/// Why a process running SplinterDB died, from its data dir: its own
/// "Out of Space" (the file is full), with the file's figures.
fn crash_cause(dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let log = std::fs::read_to_string(dir.join(super::ENGINE_ERRORS_LOG)).ok()?;
    if !log.contains("Out of Space") {
        return None;
    }
    let path = dir.join(DB_FILE);
    let allocated = std::fs::metadata(&path).map(|m| m.blocks() * 512).ok();
    Some(match (allocated, file_geometry(&path)) {
        (Some(n), Some((m, _, _))) => {
            format!("the data file is full ({n} of {m} bytes written; SplinterDB: \"Out of Space\")")
        }
        _ => "the data file is full (SplinterDB: \"Out of Space\")".into(),
    })
}

/// Why values have a limit: a large value is a blob whose extents' addresses
/// (8 bytes each) are kept in one entry of a B-tree page; at 4K pages and
/// 128K extents a 64 MiB value aborted SplinterDB on an assertion in btree.c
/// and 32 MiB was stored and read back (the unit test
/// `values_up_to_the_limit_are_stored`). Half a page of addresses is the limit.
const MAX_VALUE_WHY: &str = "page_size / 16 x extent_size: a value's extent addresses must fit in a B-tree page; 64 MiB at 4K pages aborted SplinterDB in btree.c";

fn max_value_size(page: u64, extent: u64) -> usize {
    (page / 16).saturating_mul(extent).min(usize::MAX as u64) as usize
}

/// Keys longer than an eighth of a page (MAX_INLINE_KEY_SIZE, btree.h) are
/// refused by SplinterDB's B-trees.
fn size_limits(o: &EngineOptions) -> super::SizeLimits {
    let page = o.u64("page_size") as usize;
    super::SizeLimits {
        max_key: Some((page / 8, "an eighth of page_size (SplinterDB's MAX_INLINE_KEY_SIZE, btree.h)")),
        max_value: Some((max_value_size(page as u64, o.u64("extent_size")), MAX_VALUE_WHY)),
    }
}

/// Build provenance (vendor/splinterdb-sys's build script).
fn build_info() -> Vec<(String, String)> {
    vec![
        ("build.library".into(), format!("SplinterDB {} built from vendored source (vendor/splinterdb-sys) by upstream's Makefile, linked statically", &sys::build::COMMIT[..8])),
        ("build.commit".into(), sys::build::COMMIT.into()),
        ("build.mode".into(), format!("{} (upstream's BUILD_MODE)", sys::build::MODE)),
        ("build.cflags".into(), sys::build::CFLAGS.into()),
        ("build.ldflags".into(), sys::build::LDFLAGS.into()),
        ("build.compiler".into(), sys::build::COMPILER.into()),
        ("build.target_cpu".into(), if sys::build::CFLAGS.split_whitespace().any(|f| f == "-march=native") { format!("native (-march=native; {})", crate::build_info::TARGET_CPU) } else { "generic".into() }),
        // Upstream's release build: what SplinterDB ships and users run.
        (
            "build.platform_assert".into(),
            "on: upstream's release build keeps SplinterDB's platform_assert checks (they are not debug checks; debug_assert is off without SPLINTER_DEBUG)".into(),
        ),
        ("build.ndebug_macro".into(), "not defined: upstream's release build never defines NDEBUG (only libc assert() would read it)".into()),
        ("build.splinter_debug".into(), if sys::build::CFLAGS.contains("-DSPLINTER_DEBUG") { "on" } else { "off" }.into()),
    ]
}

fn open(args: &OpenArgs) -> Result<Box<dyn Engine>> {
    Ok(Box::new(SplinterEngine::open(args)?))
}

/// Stripes of the per-key locks of hot-row read-modify-writes.
const LOCK_STRIPES: usize = 1024;

pub struct SplinterEngine {
    db: sys::Db,
    path: PathBuf,
    applied: Vec<(String, String)>,
    use_stats: bool,
    page_size: u64,
    /// Key and value bytes of ended sessions' writes.
    ingested: AtomicU64,
    locks: Vec<Mutex<()>>,
}

impl SplinterEngine {
    fn open(args: &OpenArgs) -> Result<Self> {
        let o = &args.options;
        check(o)?;
        let path = args.dir.join(DB_FILE);
        let extent = o.u64("extent_size");
        let (disk, disk_how) = match o.u64("disk_size") {
            0 => open_disk_size(args, extent),
            d => (d, "as given".to_string()),
        };
        let cfg = sys::Config {
            cache_size: o.u64("cache_size"),
            disk_size: disk,
            page_size: o.u64("page_size"),
            extent_size: extent,
            direct_io: o.bool("direct_io"),
            io_async_queue_depth: o.u64("io_async_queue_depth"),
            num_memtable_bg_threads: o.u64("num_memtable_bg_threads"),
            num_normal_bg_threads: o.u64("num_normal_bg_threads"),
            filter_hash_size: o.u64("filter_hash_size"),
            filter_log_index_size: o.u64("filter_log_index_size"),
            use_log: o.bool("use_log"),
            memtable_capacity: o.u64("memtable_capacity"),
            fanout: o.u64("fanout"),
            use_stats: o.bool("use_stats"),
            queue_scale_percent: o.u64("queue_scale_percent"),
        };
        // Its error messages also into the data dir: a process it crashes leaves its last words there.
        // (Not in a --use-existing-db directory, which is the user's.)
        if args.create {
            sys::tee_errors_to(&args.dir.join(super::ENGINE_ERRORS_LOG)).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        let exists = path.is_file();
        // An existing file is opened with the geometry it was created with,
        // whatever the options say (splinterdb_create_or_open reads it): what
        // is recorded, and what the page-scaled counters use, is the file's.
        let geometry = if exists { file_geometry(&path) } else { None };
        let db = if exists {
            sys::Db::open(&path, &cfg)
        } else if args.create {
            sys::Db::create(&path, &cfg)
        } else {
            bail!("splinterdb: no database in {}", args.dir.display());
        }
        .with_context(|| format!("splinterdb: cannot {} {}", if exists { "open" } else { "create" }, path.display()))?;
        let (page_size, extent_size) = geometry.map(|(_, p, e)| (p, e)).unwrap_or((cfg.page_size, cfg.extent_size));
        let mut applied: Vec<(String, String)> = vec![
            ("cache_size".into(), cfg.cache_size.to_string()),
            (
                "disk_size".into(),
                match (exists, geometry) {
                    (true, Some((d, _, _))) => d.to_string(),
                    (true, None) => "from the superblock".into(),
                    (false, _) => disk.to_string(),
                },
            ),
            (
                "disk_size.how".into(),
                if exists { "fixed when the database was created (read from its file)".into() } else { disk_how },
            ),
            ("memtable_capacity".into(), cfg.memtable_capacity.to_string()),
            ("fanout".into(), cfg.fanout.to_string()),
            ("num_memtable_bg_threads".into(), cfg.num_memtable_bg_threads.to_string()),
            ("num_normal_bg_threads".into(), cfg.num_normal_bg_threads.to_string()),
            ("queue_scale_percent".into(), cfg.queue_scale_percent.to_string()),
            ("io_flags".into(), if cfg.direct_io { "O_RDWR|O_CREAT|O_DIRECT" } else { "O_RDWR|O_CREAT" }.into()),
            ("direct_io".into(), cfg.direct_io.to_string()),
            ("page_size".into(), page_size.to_string()),
            ("extent_size".into(), extent_size.to_string()),
            ("io_async_queue_depth".into(), cfg.io_async_queue_depth.to_string()),
            ("filter_hash_size".into(), cfg.filter_hash_size.to_string()),
            ("filter_log_index_size".into(), cfg.filter_log_index_size.to_string()),
            (
                "use_log".into(),
                if cfg.use_log { "true (written on every insert, never replayed)".into() } else { "false".into() },
            ),
            ("use_stats".into(), cfg.use_stats.to_string()),
            // What rumbench leaves at SplinterDB's defaults (splinterdb_config_set_defaults).
            ("btree_rough_count_height".into(), "1".into()),
            ("reclaim_threshold".into(), "UINT64_MAX".into()),
            ("prefetch_budget".into(), "1048576".into()),
            ("data_config".into(), "default_data_config (bytewise key order, no merge callbacks)".into()),
            ("sync".into(), "none: SplinterDB calls no fsync, fdatasync or msync".into()),
            ("path".into(), path.display().to_string()),
        ];
        if let Some((_, p, e)) = geometry.filter(|&(_, p, e)| p != cfg.page_size || e != cfg.extent_size) {
            applied.push((
                "geometry.note".into(),
                format!(
                    "the existing file was created with page_size={p} and extent_size={e}: SplinterDB uses those, not the options' page_size={} and extent_size={}",
                    cfg.page_size, cfg.extent_size
                ),
            ));
        }
        applied.extend(build_info());
        Ok(SplinterEngine {
            db,
            path,
            applied,
            use_stats: cfg.use_stats,
            page_size,
            ingested: AtomicU64::new(0),
            locks: (0..LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
        })
    }

    fn stripe(key: &[u8]) -> usize {
        (sys::xxh64(key, 7) % LOCK_STRIPES as u64) as usize
    }
}

impl Engine for SplinterEngine {
    fn version(&self) -> String {
        format!("d2173e0e ({})", sys::version())
    }

    fn effective_options(&self) -> Vec<(String, String)> {
        self.applied.clone()
    }

    fn provenance(&self) -> Vec<(String, String)> {
        vec![("library_version".into(), sys::version())]
    }

    fn session(&self) -> Result<Box<dyn Session + '_>> {
        Ok(Box::new(SplinterSession { engine: self, lookup: self.db.lookup_buffer(), ingested: 0 }))
    }

    /// No call flushes SplinterDB's memtable (it is incorporated into the trunk
    /// when full): this runs the queued background tasks and writes back the
    /// cache's dirty pages, what the library offers.
    fn write_debt(&self) -> std::result::Result<Vec<(String, u64)>, String> {
        Err("SplinterDB's library does not expose its dirty cache pages or pending compactions".into())
    }

    fn flush(&self) -> Result<()> {
        self.db.perform_tasks();
        self.db.cache_flush();
        Ok(())
    }

    /// Runs the queued tasks on this thread (core_perform_tasks) until the
    /// task system is quiescent (nothing waiting or running).
    fn wait_for_background_work(&self, timeout: std::time::Duration) -> Result<Option<bool>> {
        let start = std::time::Instant::now();
        loop {
            self.db.perform_tasks();
            if self.db.quiescent() {
                return Ok(Some(true));
            }
            if start.elapsed() >= timeout {
                return Ok(Some(false));
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    fn background_work_pending(&self) -> Result<Option<bool>> {
        Ok(Some(!self.db.quiescent()))
    }

    fn background_threads(&self) -> (usize, String) {
        let n = self
            .applied
            .iter()
            .filter(|(k, _)| k.ends_with("_bg_threads"))
            .filter_map(|(_, v)| v.parse::<usize>().ok())
            .sum();
        (n, "SplinterDB's background threads (memtable and normal task groups)".into())
    }

    fn write_batches(&self) -> bool {
        false
    }

    /// The file's allocated extents and its size (rc_allocator).
    fn space(&self) -> Option<(u64, u64)> {
        Some(self.db.space())
    }

    /// What the library lets a caller read while it runs: the file's extents
    /// in use and, with use_stats, its cache's reads and writes.
    fn internals(&self) -> std::result::Result<Vec<super::Internal>, String> {
        let (in_use, _) = self.db.space();
        let mut out = vec![super::Internal { name: "file_in_use_bytes", value: in_use as f64, cumulative: false }];
        if self.use_stats {
            let (r, w) = self.db.cache_io_bytes();
            let bytes = |pages: u64| (pages / sys::IO_STATS_PAGE_BYTES * self.page_size) as f64;
            out.push(super::Internal { name: "cache_read_bytes_per_s", value: bytes(r), cumulative: true });
            out.push(super::Internal { name: "cache_write_bytes_per_s", value: bytes(w), cumulative: true });
        }
        Ok(out)
    }

    fn step_notes(&self, step: StepKind) -> Vec<String> {
        let writes = step.changes_data();
        let mut notes = Vec::new();
        if writes {
            notes.push("SplinterDB forces nothing to storage (it calls no fsync, fdatasync or msync) and replays no log at open: no write is durable before a clean close".into());
        }
        match step {
            StepKind::Flush => notes.push("flush as SplinterDB can: no call flushes its memtable; the queued background tasks ran and the cache's dirty pages were written back (splinterdb_cache_flush)".into()),
            StepKind::WaitForCompaction => notes.push("waited with what SplinterDB offers: its queued background tasks ran on this thread (core_perform_tasks) until its task system was quiescent".into()),
            StepKind::HotRow => notes.push("an update is a get and a put of one key under a per-key lock held by rumbench: SplinterDB has no transactions".into()),
            StepKind::YcsbF => notes.push("read-modify-write is a get and a put (SplinterDB has no transactions)".into()),
            _ => {}
        }
        if !self.use_stats && writes {
            notes.push(
                "engine write-amp not measured: SplinterDB counts its cache's IO only with use_stats=true".into(),
            );
        }
        notes
    }

    /// Ingest: the key and value bytes of ended sessions' writes; written:
    /// the cache's page writes (clockcache_io_stats, pages x 4 KiB, rescaled
    /// to page_size), counted only with use_stats.
    fn write_amp_counters(&self) -> Option<super::WriteAmpCounters> {
        if !self.use_stats {
            return None;
        }
        let (_, written) = self.db.cache_io_bytes();
        Some(super::WriteAmpCounters {
            ingest_bytes: self.ingested.load(Ordering::Relaxed),
            written_bytes: written / sys::IO_STATS_PAGE_BYTES * self.page_size,
            resolution_bytes: 1,
        })
    }

    fn stats(&self) -> Vec<(String, String)> {
        let (in_use, capacity) = self.db.space();
        let mut s = vec![
            ("splinterdb.quiescent".to_string(), self.db.quiescent().to_string()),
            ("splinterdb.file_in_use_bytes".to_string(), in_use.to_string()),
            ("splinterdb.file_capacity_bytes".to_string(), capacity.to_string()),
        ];
        if self.use_stats {
            let (r, w) = self.db.cache_io_bytes();
            s.push(("splinterdb.cache_read_bytes".into(), (r / sys::IO_STATS_PAGE_BYTES * self.page_size).to_string()));
            s.push((
                "splinterdb.cache_write_bytes".into(),
                (w / sys::IO_STATS_PAGE_BYTES * self.page_size).to_string(),
            ));
        }
        if let Ok(m) = std::fs::metadata(&self.path) {
            use std::os::unix::fs::MetadataExt;
            s.push(("splinterdb.file_bytes".into(), m.len().to_string()));
            s.push(("splinterdb.file_allocated_bytes".into(), (m.blocks() * 512).to_string()));
        }
        s
    }
}

struct SplinterSession<'a> {
    engine: &'a SplinterEngine,
    lookup: sys::Lookup<'a>,
    ingested: u64,
}

impl Drop for SplinterSession<'_> {
    fn drop(&mut self) {
        self.engine.ingested.fetch_add(self.ingested, Ordering::Relaxed);
    }
}

fn lib_err(e: sys::Error, path: &Path) -> anyhow::Error {
    anyhow::anyhow!("{e} ({})", path.display())
}

/// One read-modify-write: the key's stripe is locked from its read to the end.
struct LockedRmw<'s, 'a> {
    session: &'s mut SplinterSession<'a>,
    held: Vec<(usize, MutexGuard<'a, ()>)>,
    writes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl TxnOps for LockedRmw<'_, '_> {
    fn get_for_update(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        let stripe = SplinterEngine::stripe(key);
        if !self.held.iter().any(|(s, _)| *s == stripe) {
            let lock = &self.session.engine.locks[stripe];
            // The first key waits for its lock; another key in the same
            // transaction only takes a free one (no deadlock): else a conflict.
            let guard = if self.held.is_empty() {
                lock.lock().unwrap_or_else(|p| p.into_inner())
            } else {
                match lock.try_lock() {
                    Ok(g) => g,
                    Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                    Err(std::sync::TryLockError::WouldBlock) => {
                        return Err(super::Conflict("another client holds the key's lock".into()).into())
                    }
                }
            };
            self.held.push((stripe, guard));
        }
        self.session.get_value(key, out)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.writes.push((key.to_vec(), value.to_vec()));
        Ok(())
    }
}

impl Session for SplinterSession<'_> {
    /// A read-modify-write under rumbench's per-key locks: puts are applied
    /// at commit, one by one (SplinterDB has no atomic multi-key write).
    fn transaction(&mut self, body: &mut dyn FnMut(&mut dyn TxnOps) -> Result<()>) -> Option<Result<TxnEnd>> {
        let mut txn = LockedRmw { session: self, held: Vec::new(), writes: Vec::new() };
        Some(match body(&mut txn) {
            Ok(()) => {
                let writes = std::mem::take(&mut txn.writes);
                let held = std::mem::take(&mut txn.held);
                let s = txn.session;
                let r = writes.iter().try_for_each(|(k, v)| s.put(k, v));
                drop(held);
                r.map(|_| TxnEnd::Committed)
            }
            Err(e) if super::is_conflict(&e) => Ok(TxnEnd::Conflict),
            Err(e) => Err(e),
        })
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.ingested += (key.len() + value.len()) as u64;
        self.engine.db.insert(key, value).map_err(|e| lib_err(e, &self.engine.path))
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.ingested += key.len() as u64;
        self.engine.db.delete(key).map_err(|e| lib_err(e, &self.engine.path))
    }

    fn write_batch(&mut self, _ops: &[BatchOp<'_>]) -> Result<()> {
        bail!("splinterdb has no write batches (refused at plan time; this call is a bug)")
    }

    fn get(&mut self, key: &[u8]) -> Result<bool> {
        self.lookup
            .get(key, |v| {
                std::hint::black_box(v);
            })
            .map_err(|e| lib_err(e, &self.engine.path))
    }

    fn get_value(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        self.lookup.get(key, |v| out.extend_from_slice(v)).map_err(|e| lib_err(e, &self.engine.path))
    }

    fn scan(
        &mut self,
        start: &[u8],
        reverse: bool,
        max_entries: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<usize> {
        self.engine.db.scan(start, reverse, max_entries, visit).map_err(|e| lib_err(e, &self.engine.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::conformance::{self, key, load_even, opt};
    use crate::engine::resolve_options;

    /// The same XXH64 as the libxxhash SplinterDB links (datagen's keys
    /// hash with it: crates/core can not link the C to check itself).
    #[test]
    fn datagens_xxh64_is_libxxhashs() {
        use crate::datagen::keys::xxh64_u64;
        for (i, seed) in [(0u64, 42u64), (1, 42), (255, 42), (u64::MAX, 42), (123_456_789, 0), (7, 43)] {
            assert_eq!(xxh64_u64(i, seed), sys::xxh64(&i.to_le_bytes(), seed), "{i} {seed}");
        }
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = crate::datagen::rng::mix64(x);
            assert_eq!(xxh64_u64(x, 42), sys::xxh64(&x.to_le_bytes(), 42));
        }
    }

    fn open_with(dir: &Path, opts: &[(&str, &str)]) -> Result<Box<dyn Engine>> {
        // Small enough for tests: a 4M memtable in a 64M cache, a 256M (sparse) file.
        let mut all = vec![("memtable_capacity", "4M"), ("cache_size", "64M"), ("disk_size", "256M")];
        all.extend_from_slice(opts);
        conformance::open_with(&SPEC, dir, &all)
    }

    /// This process's resident memory, bytes.
    fn resident() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let kb = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches(" kB");
        kb.trim().parse::<u64>().unwrap() * 1024
    }

    /// In a process of its own (see the test below): the memory an open of
    /// a file of each disk_size takes, printed as "taken DISK BYTES".
    #[test]
    #[ignore = "run by a_files_memory_is_claimed_as_its_open_takes_it, in a process of its own"]
    fn memory_taken_by_an_open() {
        for disk in ["4G", "132G"] {
            let dir = tempfile::tempdir().unwrap();
            let before = resident();
            let e = open_with(dir.path(), &[("disk_size", disk), ("cache_size", "96M"), ("memtable_capacity", "4M")])
                .unwrap();
            println!("taken {disk} {}", resident().saturating_sub(before));
            drop(e);
        }
    }

    #[test]
    fn a_files_memory_is_claimed_as_its_open_takes_it() {
        // Another test's allocations would be counted in this process: the
        // opens run alone, in a process of the test binary of their own.
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "engine::splinterdb::tests::memory_taken_by_an_open",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
        // "taken 4G 7512064" (after the test's name, on its line).
        let taken = |disk: &str| -> u64 {
            let words: Vec<&str> = text.split_whitespace().collect();
            let at = words.windows(2).position(|w| w == ["taken", disk]).unwrap_or_else(|| panic!("{text}"));
            words[at + 2].parse().unwrap()
        };
        // What 128G more of file takes: its lookup table (4 bytes per 4K page)
        // and reference counts (4 bytes per 128K extent), written at open.
        let measured = taken("132G").saturating_sub(taken("4G")) as f64;
        let claimed = (disk_memory(132 << 30, 4096, 128 << 10) - disk_memory(4 << 30, 4096, 128 << 10)) as f64;
        assert!((measured / claimed - 1.0).abs() <= 0.2, "measured {measured}, claimed {claimed}");
        // The claim of an option set says as much.
        let o = resolve_options(&SPEC, &[("disk_size".into(), "1T".into())]).unwrap();
        let memory: u64 = claims(&o, 1).iter().filter(|c| c.what.contains("lookup table")).map(|c| c.bytes).sum();
        assert_eq!(memory, disk_memory(1 << 40, 4096, 128 << 10));
        assert!(memory > 1 << 30, "1T of file holds more than 1G of memory: {memory}");
    }

    #[test]
    fn keeps_the_engine_contract() {
        conformance::run_all_without_batches(|dir| open_with(dir, &[]).unwrap());
    }

    #[test]
    fn defaults_are_splinterdbs() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor/splinterdb-sys/splinterdb");
        let c = std::fs::read_to_string(src.join("src/splinterdb.c")).unwrap();
        let o = resolve_options(&SPEC, &[]).unwrap();
        assert!(c.contains("cfg->memtable_capacity = MiB_TO_B(24);"));
        assert_eq!(o.u64("memtable_capacity"), 24 << 20);
        assert!(c.contains("cfg->fanout = 8;"));
        assert_eq!(o.u64("fanout"), 8);
        assert!(c.contains("cfg->filter_log_index_size = 9;") && c.contains("cfg->filter_hash_size = 26;"));
        assert_eq!((o.u64("filter_log_index_size"), o.u64("filter_hash_size")), (9, 26));
        let io = std::fs::read_to_string(src.join("src/platform_linux/platform_io.h")).unwrap();
        assert!(
            io.contains("#define IO_DEFAULT_PAGE_SIZE        IO_MIN_PAGE_SIZE")
                && io.contains("#define IO_MIN_PAGE_SIZE (4096)")
        );
        assert!(
            io.contains("#define IO_DEFAULT_PAGES_PER_EXTENT 32")
                && io.contains("#define IO_DEFAULT_ASYNC_QUEUE_DEPTH (256)")
        );
        assert_eq!((o.u64("page_size"), o.u64("extent_size"), o.u64("io_async_queue_depth")), (4096, 32 * 4096, 256));
        // Left 0 in splinterdb_config: no background threads, no log, no stats, no O_DIRECT.
        assert!(
            !c.contains("cfg->num_normal_bg_threads =")
                && !c.contains("cfg->use_log =")
                && !c.contains("cfg->queue_scale_percent =")
        );
        assert_eq!(
            (o.u64("num_normal_bg_threads"), o.u64("num_memtable_bg_threads"), o.u64("queue_scale_percent")),
            (0, 0, 0)
        );
        assert!(!o.bool("use_log") && !o.bool("use_stats") && !o.bool("direct_io"));
        // splinter_test's cache (tests/config.c), since the library has no default.
        let t = std::fs::read_to_string(src.join("tests/config.c")).unwrap();
        assert!(t.contains("#define TEST_CONFIG_DEFAULT_CACHE_SIZE_GB        1"));
        assert_eq!(o.u64("cache_size"), 1 << 30);
        // The memtables the cache must hold (core.c) and the thread limit.
        assert!(std::fs::read_to_string(src.join("src/core.c")).unwrap().contains("#define CORE_NUM_MEMTABLES (4)"));
        assert!(std::fs::read_to_string(src.join("src/platform_linux/platform_threads.h"))
            .unwrap()
            .contains("#define MAX_THREADS (64)"));
    }

    #[test]
    fn a_cache_too_small_for_the_memtables_is_refused() {
        let err = |opts: &[(&str, &str)]| {
            let user: Vec<(String, String)> = opts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            check(&resolve_options(&SPEC, &user).unwrap()).err().map(|e| e.to_string())
        };
        let e = err(&[("cache_size", "32M")]).expect("32M with the default 24M memtable stalls");
        assert!(e.contains("below 3 x memtable_capacity") && e.contains("stall"), "{e}");
        assert!(err(&[("cache_size", "71M")]).unwrap().contains("below 3 x"));
        assert!(err(&[("cache_size", "72M")]).is_none());
        assert!(err(&[("cache_size", "24M"), ("memtable_capacity", "4M")]).is_none(), "io-bound mode's");
        // Its Linux I/O layer takes its default geometry only: 8K pages and 256K extents failed at create.
        assert!(err(&[("page_size", "16K")]).unwrap().contains("4096 only"));
        assert!(err(&[("page_size", "8K"), ("extent_size", "256K")]).unwrap().contains("4096 only"));
        assert!(err(&[("extent_size", "256K")]).unwrap().contains("131072 (128K, 32 pages) only"));
        assert!(err(&[("disk_size", "1M")]).unwrap().contains("at least 64 extents"));
        for (name, value) in IO_BOUND {
            assert!(OPTIONS.iter().any(|o| o.name == *name), "{name}");
            assert!(err(&[(name, value)]).is_none() || *name == "cache_size");
        }
    }

    #[test]
    fn reports_build_and_options_and_no_debug_warning() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        assert!(e.version().contains("d2173e0e"), "{}", e.version());
        assert_eq!(opt(&*e, "disk_size"), (256u64 << 20).to_string());
        assert_eq!(opt(&*e, "io_flags"), "O_RDWR|O_CREAT");
        let cflags = opt(&*e, "build.cflags");
        for f in ["-O3", "-ffast-math", "-flto", "-march=native"] {
            assert!(cflags.split_whitespace().any(|w| w == f), "{f} not in {cflags}");
        }
        assert!(!cflags.contains("NDEBUG") && !cflags.contains("SPLINTER_DEBUG"), "{cflags}");
        assert!(opt(&*e, "build.platform_assert").starts_with("on"));
        assert!(opt(&*e, "build.compiler").contains("clang"), "{}", opt(&*e, "build.compiler"));
        let prov = crate::engine::provenance(&SPEC, e.version(), e.provenance());
        assert_eq!(
            crate::engine::assertion_warning("splinterdb", &prov),
            None,
            "upstream's release build is what users run"
        );
        assert!(!e.write_batches());
        assert!(e.write_amp_counters().is_none(), "no counters without use_stats");
    }

    #[test]
    fn data_survives_a_clean_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let created = {
            let e = open_with(dir.path(), &[]).unwrap();
            load_even(&mut *e.session().unwrap());
            opt(&*e, "disk_size")
        };
        // Reopened: the file's geometry is what runs and what is recorded.
        let e = open_with(dir.path(), &[]).unwrap();
        assert_eq!(opt(&*e, "disk_size"), created);
        assert_eq!((opt(&*e, "page_size"), opt(&*e, "extent_size")), ("4096".to_string(), "131072".to_string()));
        assert_eq!(file_geometry(&dir.path().join(DB_FILE)).map(|g| (g.1, g.2)), Some((4096, 131072)));
        let mut s = e.session().unwrap();
        assert!(s.get(&key(198)).unwrap());
        assert_eq!(conformance::count(&mut *s), 100);
    }

    #[test]
    fn engine_write_amp_is_the_caches_page_writes() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[("use_stats", "true")]).unwrap();
        let value = vec![7u8; 1000];
        {
            let mut s = e.session().unwrap();
            for i in 0..20_000u64 {
                s.put(&key(i), &value).unwrap();
            }
        }
        e.flush().unwrap();
        let wa = e.write_amp_counters().expect("counters with use_stats");
        assert_eq!(wa.ingest_bytes, 20_000 * (conformance::KEY_SIZE as u64 + 1000));
        // 20 MB went through 4M memtables into branches: written at least once, page-aligned.
        assert!(wa.written_bytes >= wa.ingest_bytes && wa.written_bytes.is_multiple_of(4096), "{wa:?}");
        assert_eq!(wa.resolution_bytes, 1);
    }

    #[test]
    fn hot_row_updates_lose_nothing_under_contention() {
        let dir = tempfile::tempdir().unwrap();
        let e = open_with(dir.path(), &[]).unwrap();
        let k = key(1);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    let mut s = e.session().unwrap();
                    for _ in 0..500 {
                        let end = s
                            .transaction(&mut |t| {
                                let mut v = Vec::new();
                                let n = if t.get_for_update(&k, &mut v)? {
                                    u64::from_le_bytes(v[..8].try_into().unwrap())
                                } else {
                                    0
                                };
                                t.put(&k, &(n + 1).to_le_bytes())
                            })
                            .unwrap()
                            .unwrap();
                        assert_eq!(end, TxnEnd::Committed);
                    }
                });
            }
        });
        let mut v = Vec::new();
        assert!(e.session().unwrap().get_value(&k, &mut v).unwrap());
        assert_eq!(u64::from_le_bytes(v[..8].try_into().unwrap()), 2000);
    }

    /// The largest value the plan lets through is stored and read back whole.
    #[test]
    fn values_up_to_the_limit_are_stored() {
        let dir = tempfile::tempdir().unwrap();
        let e = conformance::open_with(
            &SPEC,
            dir.path(),
            &[("memtable_capacity", "24M"), ("cache_size", "512M"), ("disk_size", "2G")],
        )
        .unwrap();
        let limits = size_limits(&resolve_options(&SPEC, &[]).unwrap());
        let max = limits.max_value.unwrap().0;
        assert_eq!(max, 32 << 20, "4K pages and 128K extents");
        let value: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
        let mut s = e.session().unwrap();
        s.put(&key(1), &value).unwrap();
        let mut back = Vec::new();
        assert!(s.get_value(&key(1), &mut back).unwrap());
        assert!(back == value, "read back whole");
        assert_eq!(limits.max_key.unwrap().0, 512);
    }

    #[test]
    fn the_disk_is_sized_from_the_data_with_its_margin() {
        assert_eq!(auto_disk_size(0, 128 << 10), DISK_FLOOR);
        assert_eq!(auto_disk_size(1 << 30, 128 << 10), 3 << 30);
        assert_eq!(auto_disk_size(1000, 128 << 10) % (128 << 10), 0);
    }
}
