//! Each engine's memory claims against what its process holds (issue 69:
//! claims within 20% of measured peaks). Two runs apart only in one size
//! option; the difference in their measured peak RSS is compared with the
//! difference in the claims (docs/settings.md, "Memory claims against
//! measured peaks").
//!
//! Every run here has one malloc arena (`MALLOC_ARENA_MAX=1`): when a full
//! cache turns over, the blocks one thread evicts stay resident in its arena
//! while another thread's arena refills the cache, up to twice the cache
//! under glibc's malloc and jemalloc alike. CI measured 1.91 of RocksDB's
//! block cache claim that way with one reader thread; docs/settings.md has
//! the figures. The claim is the cache's content; the turnover's headroom is
//! documented, not claimed.

use std::path::Path;

use serde_json::Value;

use super::common::cli::{self, load};

/// 1.5M keys of 16 + 100 bytes: about 180 MB of data, more than either
/// cache size the tests compare.
const KEYS: u64 = 1_500_000;
const MIB: f64 = 1048576.0;

/// `rumbench run` with one malloc arena, which must succeed.
fn run_one_arena(args: &[&str], out: &Path) -> Value {
    let o = cli::rumbench_run().args(args).arg("--output-dir").arg(out).env("MALLOC_ARENA_MAX", "1").output().unwrap();
    assert!(o.status.success(), "rumbench {args:?}:\n{}", String::from_utf8_lossy(&o.stderr));
    load(out)
}

fn suite(dir: &Path, name: &str, steps: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("[settings]\nnum = {KEYS}\n{steps}")).unwrap();
    path.to_str().unwrap().to_string()
}

/// The highest peak RSS of a run's steps.
fn peak_rss(result: &Value) -> u64 {
    let steps = result["configs"][0]["steps"].as_array().unwrap();
    let peak = |s: &Value| s["metrics"]["rss_peak_bytes"].as_u64().unwrap_or_else(|| panic!("no RSS measured: {s}"));
    steps.iter().map(peak).max().unwrap()
}

/// A step's engine statistic, as a number.
fn engine_stat(step: &Value, name: &str) -> u64 {
    let stats = step["engine_stats"].as_array().unwrap_or_else(|| panic!("no engine stats: {step}"));
    let pair = stats.iter().find(|p| p[0] == name).unwrap_or_else(|| panic!("no {name}: {step}"));
    pair[1].as_str().unwrap().parse().unwrap()
}

/// A cache's claim: one run loads a database larger than either cache
/// (kept, in batches of 1,000 keys, with `load_options`), then two runs apart
/// only in `option` (8M and 136M) read every key once (`readseq`) and at
/// random for a second, each in a process of its own (one that has just
/// written keeps its freed memtables resident, which would hide the small
/// cache). Their peak RSS differs by the claims' difference (128 MiB),
/// within 20%. Returns the two read runs' results.
fn cache_claim_holds(engine: &str, option: &str, load_options: &[&str]) -> [Value; 2] {
    let t = tempfile::tempdir().unwrap();
    let db = t.path().join("db");
    let db = db.to_str().unwrap();
    let loads = suite(
        t.path(),
        "load.toml",
        &format!("[[step]]\nname = \"fillseq\"\nops = {KEYS}\nbatch_size = 1000\n[[step]]\nname = \"flush\"\n"),
    );
    let mut args = vec!["-c", &loads, "-e", engine, "--keep-db", "--db-dir", db];
    for o in load_options {
        args.extend(["-o", o]);
    }
    run_one_arena(&args, &t.path().join("load"));
    let reads =
        suite(t.path(), "reads.toml", "[[step]]\nname = \"readseq\"\n[[step]]\nname = \"readrandom\"\nseconds = 1\n");
    let read = |size: &str| {
        let setting = format!("{option}={size}");
        run_one_arena(
            &["-c", &reads, "-e", engine, "-o", &setting, "--use-existing-db", "--db-dir", db],
            &t.path().join(size),
        )
    };
    let (small, large) = (read("8M"), read("136M"));
    claims_difference_is_held(&format!("{engine}.{option} 8M -> 136M"), peak_rss(&small), peak_rss(&large), 128 << 20);
    [small, large]
}

/// Two runs' peak RSS differ by the claims' difference, within 20%.
fn claims_difference_is_held(what: &str, small: u64, large: u64, claimed: u64) {
    let measured = large as f64 - small as f64;
    let ratio = measured / claimed as f64;
    eprintln!("{what}: {ratio:.2} of the claims' difference");
    assert!(
        (0.8..=1.2).contains(&ratio),
        "{what}: peak RSS {:.0} -> {:.0} MiB, {:.0} MiB more, {ratio:.2} of the claims' difference ({:.0} MiB)",
        small as f64 / MIB,
        large as f64 / MIB,
        measured / MIB,
        claimed as f64 / MIB
    );
}

#[test]
fn rocksdbs_block_cache_claim_is_what_the_process_holds() {
    for run in cache_claim_holds("rocksdb", "block_cache_size", &[]) {
        // The cache itself stays at its claim; what RSS holds beyond it is the allocator's.
        for s in run["configs"][0]["steps"].as_array().unwrap() {
            let (usage, capacity) =
                (engine_stat(s, "rocksdb.block-cache-usage"), engine_stat(s, "rocksdb.block-cache-capacity"));
            assert!(usage <= capacity, "{}: block cache usage {usage} over its capacity {capacity}", s["name"]);
        }
    }
}

#[test]
fn leveldbs_block_cache_claim_is_what_the_process_holds() {
    cache_claim_holds("leveldb", "block_cache_size", &[]);
}

/// SQLite's page cache is per connection: one client thread, one connection.
#[test]
fn sqlites_page_cache_claim_is_what_the_process_holds() {
    cache_claim_holds("sqlite", "cache_size", &[]);
}

/// Loaded with durability=none: 1.5M commits synced one by one take 6 minutes.
#[test]
fn redbs_page_cache_claim_is_what_the_process_holds() {
    cache_claim_holds("redb", "cache_size", &["durability=none"]);
}

#[test]
fn fjalls_block_cache_claim_is_what_the_process_holds() {
    cache_claim_holds("fjall", "cache_size", &[]);
}

/// SplinterDB's disk_size memory claim (4 bytes a page and 4 an extent of
/// the file, allocated and zeroed at open: clockcache.c's lookup table, the
/// allocator's reference counts): 1G against 9G of file (issue 69: 1T once
/// took 1.1 GB where 32 MB was claimed). The same keys in both (a count),
/// then a second of reads for the RSS samples; run as before it moved here,
/// with the default malloc arenas (nothing turns over).
#[test]
fn splinterdbs_disk_size_claim_is_what_the_process_holds() {
    let t = tempfile::tempdir().unwrap();
    let suite = suite(
        t.path(),
        "suite.toml",
        "[[step]]\nname = \"fillseq\"\nops = 1000\n[[step]]\nname = \"readrandom\"\nseconds = 1\n",
    );
    let peak = |disk: &str| {
        let setting = format!("disk_size={disk}");
        let dir = t.path().join(disk);
        cli::run_ok(&["-c", &suite, "-n", "1000", "-e", "splinterdb", "-o", &setting], &dir);
        let r = load(&dir);
        let steps = r["configs"][0]["steps"].as_array().unwrap();
        let s = steps.iter().find(|s| s["name"] == "readrandom").expect("a readrandom step");
        s["metrics"]["rss_peak_bytes"].as_u64().unwrap_or_else(|| panic!("no RSS measured: {s}"))
    };
    let claimed = |gib: u64| (gib << 30) / 4096 * 4 + (gib << 30) / (128 << 10) * 4;
    claims_difference_is_held("splinterdb.disk_size 1G -> 9G", peak("1G"), peak("9G"), claimed(9) - claimed(1));
}

/// Memtable claims are bounds: the active memtable and those sealed and
/// waiting for a flush that writers stall behind. A writer that a flush keeps
/// up with holds fewer, so the test is that the measured difference is at
/// least 60% of one memtable's difference (the memtable is really held; RSS
/// is sampled once a second, and a memtable fills in about two, so a peak can
/// be missed by up to half a memtable) and at most 120% of the claims'
/// difference (never more than claimed). Two
/// `fillrandom` runs apart only in the memtable size (8M and 72M), with a
/// small cache in both. Measured here: RocksDB 0.94 of one memtable (0.47 of
/// its claim of two), LevelDB 0.80 (0.40 of two), fjall 2.3 of one (0.46 of
/// its claim of five).
fn memtable_claim_bounds(engine: &str, option: &str, held: u64, other_options: &[&str]) {
    let t = tempfile::tempdir().unwrap();
    let writes = suite(t.path(), "writes.toml", &format!("[[step]]\nname = \"fillrandom\"\nops = {KEYS}\n"));
    let write = |size: &str| {
        let setting = format!("{option}={size}");
        let db = t.path().join(format!("db-{size}"));
        let mut args = vec!["-c", &writes, "-e", engine, "-o", &setting, "--db-dir", db.to_str().unwrap()];
        for o in other_options {
            args.extend(["-o", o]);
        }
        peak_rss(&run_one_arena(&args, &t.path().join(size)))
    };
    let (small, large) = (write("8M"), write("72M"));
    let measured = large as f64 - small as f64;
    let one = (64u64 << 20) as f64;
    let (of_one, of_claim) = (measured / one, measured / (one * held as f64));
    eprintln!("{engine}.{option}: {of_one:.2} of one memtable's difference, {of_claim:.2} of the claims'");
    assert!(
        of_one >= 0.6 && of_claim <= 1.2,
        "{engine}.{option} 8M -> 72M: peak RSS {:.0} -> {:.0} MiB, {:.0} MiB more: {of_one:.2} of one memtable's difference, {of_claim:.2} of the claims' ({held} memtables)",
        small as f64 / MIB,
        large as f64 / MIB,
        measured / MIB
    );
}

#[test]
fn rocksdbs_memtables_stay_within_their_claim() {
    memtable_claim_bounds("rocksdb", "write_buffer_size", 2, &["block_cache_size=8M"]);
}

#[test]
fn leveldbs_memtables_stay_within_their_claim() {
    memtable_claim_bounds("leveldb", "write_buffer_size", 2, &["block_cache_size=8M"]);
}

#[test]
fn fjalls_memtables_stay_within_their_claim() {
    memtable_claim_bounds("fjall", "max_memtable_size", 5, &["cache_size=8M"]);
}
