//! The RocksDB releases rumbench can run, what each can do, and the cargo
//! manifest each is built with.
//!
//! Each release is the RocksDB source bundled in one librocksdb-sys crate
//! version. One binary cannot link two of them (each declares `links =
//! "rocksdb"`, and cargo refuses two in one dependency graph, rust-lang/cargo#5969),
//! so a release other than the one rumbench is built with is a build of the
//! same rumbench source against another librocksdb-sys: its manifest is
//! rocksdb-versions/<version>/Cargo.toml (generated from Cargo.toml by
//! [`manifest`], with its own Cargo.lock seeded from the main one), built
//! on demand into a cache (src/engine/rocksdb/build.rs), and the config
//! process of `rocksdb@<version>` is that binary. docs/rocksdb-versions.md
//! says how and why.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// RocksDB's version in the bundled source (rocksdb/version.h), and the
/// librocksdb-sys crate that bundles it; both read by build.rs.
pub const SOURCE_VERSION: &str = env!("RUMBENCH_ROCKSDB_SOURCE_VERSION");
pub const SYS_CRATE_VERSION: &str = env!("RUMBENCH_LIBROCKSDB_SYS_VERSION");

/// What a RocksDB release's C API can do that 6.28.2's cannot (build.rs
/// finds these out from the bundled c.h and version.h for the running binary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// rocksdb_batched_multi_get_cf (multireadrandom).
    pub multiget: bool,
    /// TransactionDB / OptimisticTransactionDB with pinned reads (transactions=...).
    pub txn: bool,
    /// compaction_pri=kRoundRobin.
    pub round_robin: bool,
    /// A HyperClockCache RocksDB sizes itself (estimated_entry_charge 0).
    pub hyper_clock: bool,
    /// rocksdb_transactiondb_get_base_db (WaitForCompact on a TransactionDB).
    pub txndb_base_db: bool,
    /// DB::WaitForCompact through the C API (waitforcompaction, settling).
    pub wait_for_compact: bool,
    /// rocksdb_get_into_buffer: a point read that allocates nothing.
    #[serde(default)]
    pub get_into_buffer: bool,
}

impl Capabilities {
    /// The RocksDB this binary is built with.
    pub const fn this_build() -> Capabilities {
        Capabilities {
            multiget: cfg!(rocksdb_has_multiget),
            txn: cfg!(rocksdb_has_txn),
            round_robin: cfg!(rocksdb_has_round_robin),
            hyper_clock: cfg!(rocksdb_has_hyper_clock),
            txndb_base_db: cfg!(rocksdb_has_txndb_base_db),
            wait_for_compact: cfg!(rocksdb_has_wait_for_compact),
            get_into_buffer: cfg!(rocksdb_has_get_into_buffer),
        }
    }

    const fn since(
        multiget: bool,
        txn: bool,
        round_robin: bool,
        hyper_clock: bool,
        txndb_base_db: bool,
        wait_for_compact: bool,
        get_into_buffer: bool,
    ) -> Capabilities {
        Capabilities { multiget, txn, round_robin, hyper_clock, txndb_base_db, wait_for_compact, get_into_buffer }
    }
}

/// One RocksDB release as librocksdb-sys bundles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// RocksDB's version (rocksdb/include/rocksdb/version.h of the crate).
    pub version: &'static str,
    /// The librocksdb-sys crate version that bundles it.
    pub crate_version: &'static str,
    /// The crate's cargo features: the compression libraries of the default
    /// build (snappy, lz4, zstd), and what each crate version needs to build
    /// them statically with bindgen loading libclang at build time.
    pub features: &'static [&'static str],
    /// The C++ standard the crate compiles RocksDB with (the source's own requirement).
    pub cxx_std: &'static str,
    /// Whether the crate's build compiles RocksDB as 0.19.0's does: the
    /// Rust target CPU as -march, and the platform macros RocksDB's own
    /// build defines on Linux. The older crates do neither; rumbench adds
    /// them ([`Release::added_cxxflags`]), so every release is built alike.
    pub passes_target_cpu: bool,
    pub caps: Capabilities,
    /// Compiled here from that source, or RocksDB's own release binary.
    pub origin: Origin,
}

/// Where a release's RocksDB comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Compiled here from the source librocksdb-sys bundles.
    Source,
    /// RocksDB's own release build (rocksdbjni's native library,
    /// src/engine/rocksdb/official.rs), run by the one binary every release
    /// shares (bound through the newest header, src/engine/rocksdb/late.rs),
    /// with the capabilities of the source release `caps_of` (the newest
    /// not newer than it).
    Official { caps_of: &'static str },
}

/// Features of librocksdb-sys 0.6.3: its `static` feature is not weak
/// (it would pull in zlib and bzip2 builds); lz4 is bundled.
const FEATURES_0_6: &[&str] = &["snappy", "lz4", "zstd"];
/// 0.8.x to 0.16.0: bindgen's `runtime` is wired in by the crate.
const FEATURES_0_8: &[&str] = &["static", "snappy", "lz4", "zstd"];
/// 0.17.1 on: bindgen's runtime loading is a feature.
const FEATURES_0_17: &[&str] = &["static", "snappy", "lz4", "zstd", "bindgen-runtime"];

/// Every release rumbench can build, oldest first. The capabilities are
/// those build.rs finds in each crate's c.h and version.h
/// (docs/design/rocksdb-versions-research.md, section 3); a built release
/// reports its own, and the build is refused when they differ from these.
pub const RELEASES: &[Release] = &[
    Release {
        version: "6.28.2",
        crate_version: "0.6.3+6.28.2",
        features: FEATURES_0_6,
        cxx_std: "c++11",
        passes_target_cpu: false,
        caps: Capabilities::since(false, false, false, false, false, false, false),
        origin: Origin::Source,
    },
    Release {
        version: "7.4.4",
        crate_version: "0.8.3+7.4.4",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, false, false, false, false, false),
        origin: Origin::Source,
    },
    Release {
        version: "7.9.2",
        crate_version: "0.10.0+7.9.2",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, false, false, false, false),
        origin: Origin::Source,
    },
    Release {
        version: "8.1.1",
        crate_version: "0.11.0+8.1.1",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, false, false, false, false),
        origin: Origin::Source,
    },
    // librocksdb-sys 0.12.0 is labelled 8.5.3 but bundles 8.6.7's source (its version.h): 8.5.3 is not offered.
    Release {
        version: "8.6.7",
        crate_version: "0.13.0+8.6.7",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, false, true, false, false),
        origin: Origin::Source,
    },
    Release {
        version: "8.8.1",
        crate_version: "0.14.0+8.8.1",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, true, true, true, false),
        origin: Origin::Source,
    },
    Release {
        version: "8.9.1",
        crate_version: "0.15.0+8.9.1",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, true, true, true, false),
        origin: Origin::Source,
    },
    Release {
        version: "8.10.0",
        crate_version: "0.16.0+8.10.0",
        features: FEATURES_0_8,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, true, true, true, false),
        origin: Origin::Source,
    },
    Release {
        version: "9.9.3",
        crate_version: "0.17.1+9.9.3",
        features: FEATURES_0_17,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, true, true, true, false),
        origin: Origin::Source,
    },
    Release {
        version: "10.4.2",
        crate_version: "0.17.3+10.4.2",
        features: FEATURES_0_17,
        cxx_std: "c++17",
        passes_target_cpu: false,
        caps: Capabilities::since(true, true, true, true, true, true, false),
        origin: Origin::Source,
    },
    Release {
        version: "11.8.1",
        crate_version: "0.19.0+11.8.1",
        features: FEATURES_0_17,
        cxx_std: "c++20",
        passes_target_cpu: true,
        caps: Capabilities::since(true, true, true, true, true, true, true),
        origin: Origin::Source,
    },
];

/// The CPU features behind 7.x's HAVE_AVX2 / HAVE_BMI / HAVE_LZCNT (what
/// its crate tests in the target's features; -march=native gives them here).
fn cpu_has_avx2_bmi_lzcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("lzcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Release {
    /// The release this binary is built with.
    pub fn built_in() -> &'static Release {
        find_exact(SOURCE_VERSION).expect("the built-in RocksDB is in RELEASES")
    }

    pub fn is_built_in(&self) -> bool {
        self.version == SOURCE_VERSION && self.origin == Origin::Source
    }

    pub fn is_official(&self) -> bool {
        matches!(self.origin, Origin::Official { .. })
    }

    /// The source release whose manifest and C API header this one is
    /// built with: for a release build, the newest (every release build
    /// shares one binary, bound through it).
    pub fn header_version(&self) -> &'static str {
        match self.origin {
            Origin::Official { .. } => newest().version,
            Origin::Source => self.version,
        }
    }

    /// The version, with `suffix` after it for a release build.
    fn version_then(&self, suffix: &str) -> String {
        match self.origin {
            Origin::Official { .. } => format!("{}{suffix}", self.version),
            Origin::Source => self.version.to_string(),
        }
    }

    /// Its directory in the cache of builds: "8.10.0", "7.6.0-official".
    pub fn cache_name(&self) -> String {
        self.version_then("-official")
    }

    /// What a plan records and resolves again ("8.10.0", "7.6.0:release").
    pub fn request(&self) -> String {
        self.version_then(":release")
    }

    /// In a config's default name: "8.10.0", "7.6.0-release".
    pub fn config_slug(&self) -> String {
        self.version_then("-release")
    }

    /// "RocksDB 8.10.0" or "RocksDB 7.6.0 (official release build)".
    pub fn label(&self) -> String {
        match self.origin {
            Origin::Official { .. } => format!("RocksDB {} (official release build)", self.version),
            Origin::Source => format!("RocksDB {}", self.version),
        }
    }

    /// What rumbench adds to the crate's own C++ flags (CXXFLAGS), so that
    /// this release is compiled as 11.8.1's crate compiles it: for this CPU
    /// (the older crates add only -msse4.2 and the like), and with the
    /// platform macros RocksDB's own build (build_detect_platform) defines
    /// on Linux and 0.19.0's crate defines, which the older crates leave
    /// out: fallocate and sync_file_range (file preallocation and range
    /// syncs), sched_getcpu (core-local counters), 128-bit integers and
    /// aligned new (hashing, cache-aligned allocation), getauxval. Also
    /// 6.28's thread-local support, which its own build detects, and
    /// `-include cstdint`, as 0.19.0 adds (newer compilers need it for the older sources).
    /// For 6.28 on a CPU with AVX2, BMI and LZCNT, also the HAVE_AVX2 /
    /// HAVE_BMI / HAVE_LZCNT macros its source reads (the bloom filter's
    /// AVX2 probe) where 8.x on tests the compiler's own `__AVX2__`; the 7.x
    /// crates define them themselves, 0.6.3 does not.
    pub fn added_cxxflags(&self) -> Option<String> {
        if self.passes_target_cpu || self.is_official() {
            return None;
        }
        let mut flags = String::from(
            "-march=native -include cstdint -DHAVE_ALIGNED_NEW -DHAVE_UINT128_EXTENSION -DROCKSDB_SCHED_GETCPU_PRESENT \
             -DROCKSDB_AUXV_GETAUXVAL_PRESENT -DROCKSDB_FALLOCATE_PRESENT -DROCKSDB_RANGESYNC_PRESENT -DROCKSDB_SUPPORT_THREAD_LOCAL",
        );
        if self.crate_version.starts_with("0.6.") && cpu_has_avx2_bmi_lzcnt() {
            flags.push_str(" -DHAVE_AVX2=1 -DHAVE_BMI=1 -DHAVE_LZCNT=1");
        }
        Some(flags)
    }

    /// "8.10.0" -> "8_10_0": in package and binary names.
    pub fn slug(&self) -> String {
        self.header_version().replace('.', "_")
    }

    /// The crate version without its "+RocksDB" build metadata ("0.16.0").
    pub fn crate_semver(&self) -> &'static str {
        self.crate_version.split('+').next().unwrap_or(self.crate_version)
    }

    /// The cargo package (and binary) name of this release's build.
    pub fn package_name(&self) -> String {
        format!("rumbench-rocksdb-{}", self.slug())
    }

    /// Where this release's manifest and lockfile live, relative to the source root.
    pub fn manifest_dir(&self) -> String {
        format!("rocksdb-versions/{}", self.header_version())
    }

    /// What this release lacks against the newest, one line each (printed
    /// before a run and kept in its results).
    pub fn lacks(&self) -> Vec<String> {
        let c = self.caps;
        let mut out = Vec::new();
        if !c.wait_for_compact {
            out.push(
                "no WaitForCompact in its C API (8.8.1 on): waitforcompaction and sweep settling poll the compaction-pending \
                 properties every 100 ms instead, bounded by --compaction-timeout (with universal compaction that can wait out the timeout)"
                    .to_string(),
            );
        }
        if !c.hyper_clock {
            out.push("no self-sizing HyperClockCache (8.8.1 on): the block cache is an LRUCache (cache_type=lru); cache_type=hyper_clock is refused".into());
        }
        if !c.round_robin {
            out.push("no compaction_pri=round_robin (7.9.2 on)".into());
        }
        if !c.multiget {
            out.push("no batched MultiGet in its C API (7.4.4 on): multireadrandom is refused".into());
        }
        if !c.get_into_buffer {
            out.push("no rocksdb_get_into_buffer in its C API (11.8.1 on): a point read goes through rocksdb_get_pinned, which allocates a PinnableSlice per get".into());
        }
        if !c.txn {
            out.push("no pinned transactional reads in its C API (7.4.4 on): transactions=pessimistic/optimistic and the steps that need them are refused".into());
        }
        out
    }

    /// Options whose value this release cannot honour: the error, naming the release.
    pub fn check_options(&self, options: &crate::engine::EngineOptions) -> Result<()> {
        let too_old = |what: &str, since: &str| -> Result<()> {
            bail!("rocksdb.{what} needs RocksDB {since} or later; this config runs RocksDB {}", self.version)
        };
        let c = self.caps;
        if !c.hyper_clock && options.str("cache_type") == "hyper_clock" {
            too_old("cache_type=hyper_clock (a HyperClockCache RocksDB sizes itself)", "8.8.1")?;
        }
        if !c.round_robin && options.str("compaction_pri") == "round_robin" {
            too_old("compaction_pri=round_robin", "7.9.2")?;
        }
        if !c.txn && matches!(options.str("transactions"), "pessimistic" | "optimistic") {
            too_old(&format!("transactions={}", options.str("transactions")), "7.4.4")?;
        }
        Ok(())
    }

    /// Defaults that differ from the built-in release's because this one
    /// cannot do the default (applied under the user's options).
    pub fn default_overrides(&self) -> Vec<(String, String)> {
        if self.caps.hyper_clock {
            Vec::new()
        } else {
            vec![("cache_type".into(), "lru".into())]
        }
    }
}

fn find_exact(version: &str) -> Option<&'static Release> {
    RELEASES.iter().find(|r| r.version == version)
}

/// The versions as a list for messages: "6.28.2, 7.4.4, ...".
pub fn version_list() -> String {
    RELEASES.iter().map(|r| r.version).collect::<Vec<_>>().join(", ")
}

/// The release a config asks for: exact ("8.10.0") or by major.minor
/// ("8.10", "6.28"), with `:source` (compiled here) or `:release`
/// (RocksDB's own release build, from Maven Central's rocksdbjni) after it.
/// Without either, a version with a source here is compiled and any other
/// comes from its release jar. Anything else is refused with the versions
/// that exist.
pub fn resolve(request: &str) -> Result<&'static Release> {
    resolve_with(request, &|| super::official::versions())
}

/// [`resolve`] with the list of official releases from `official_versions`
/// (asked only when a request needs it).
pub fn resolve_with(request: &str, official_versions: &dyn Fn() -> Result<Vec<String>>) -> Result<&'static Release> {
    let req = request.trim();
    match req.rsplit_once(':') {
        Some((v, "source")) => resolve_source(v.trim()),
        Some((v, "release")) => resolve_official(v.trim(), official_versions),
        Some((_, other)) => bail!(
            "rocksdb@{req}: {other:?} is neither \"source\" (compiled here) nor \"release\" (RocksDB's own release build)"
        ),
        None => match resolve_source(req) {
            Ok(r) => Ok(r),
            Err(_) if is_version_text(req) && version_key(req) >= version_key(RELEASES[0].version) => {
                resolve_official(req, official_versions)
            }
            Err(e) => Err(e),
        },
    }
}

/// "7.6.0", "7.6", "10.10.1.1": numbers and dots.
pub(super) fn is_version_text(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    (2..=4).contains(&parts.len()) && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A version as numbers, for ordering ("10.10.1.1" after "10.10.1").
pub fn version_key(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// RocksDB's own release build of `req` (exact, or the newest of a
/// major.minor), with the capabilities of the newest source release not newer.
fn resolve_official(req: &str, official_versions: &dyn Fn() -> Result<Vec<String>>) -> Result<&'static Release> {
    if !is_version_text(req) {
        bail!("unknown RocksDB version {req:?}: a release build is asked for as rocksdb@7.6.0:release or rocksdb@7.6:release");
    }
    let oldest = RELEASES[0].version;
    if version_key(req) < version_key(oldest) {
        bail!(
            "RocksDB {req} is older than {oldest}, the oldest RocksDB whose C API rumbench binds (versions: {})",
            version_list()
        );
    }
    let list = official_versions().with_context(|| {
        format!(
            "RocksDB {req} is looked up among the release builds of Maven Central's org.rocksdb:rocksdbjni (source builds: {})",
            version_list()
        )
    })?;
    let prefix = format!("{req}.");
    let found = list.iter().filter(|v| *v == req || (req.matches('.').count() == 1 && v.starts_with(&prefix)));
    let Some(version) = found.max_by_key(|v| version_key(v)) else {
        let usable: Vec<&String> = list.iter().filter(|v| version_key(v) >= version_key(oldest)).collect();
        bail!(
            "unknown RocksDB version {req:?}: rocksdbjni has release builds of {} ({} in all from {oldest} on); source builds: {}",
            usable.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", "),
            usable.len(),
            version_list()
        );
    };
    if version_key(version) < version_key(oldest) {
        bail!("RocksDB {version} is older than {oldest}, the oldest RocksDB whose C API rumbench binds");
    }
    Ok(official_release(version))
}

/// The newest source release: the header every release build is bound through.
pub fn newest() -> &'static Release {
    RELEASES.last().expect("RELEASES is not empty")
}

/// A release build's library whose version is not recorded: no capability
/// beyond 6.28.2's (what every library rumbench runs has).
pub(super) static UNKNOWN_RELEASE: Release = Release {
    version: "unknown",
    caps: RELEASES[0].caps,
    origin: Origin::Official { caps_of: "6.28.2" },
    ..RELEASES[RELEASES.len() - 1]
};

/// RocksDB's own release build of `version` (at least the oldest source
/// release): bound through the newest header, with the capabilities of the
/// newest source release not newer than it. Made once per version and process.
pub fn official_release(version: &str) -> &'static Release {
    static MADE: std::sync::Mutex<Vec<&'static Release>> = std::sync::Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = made.iter().find(|r| r.version == version) {
        return r;
    }
    let caps_of =
        RELEASES.iter().rev().find(|r| version_key(r.version) <= version_key(version)).unwrap_or(&RELEASES[0]);
    // Leaked once per version and process: a release lives as long as the plan.
    let r: &'static Release = Box::leak(Box::new(Release {
        version: Box::leak(version.to_string().into_boxed_str()),
        origin: Origin::Official { caps_of: caps_of.version },
        caps: caps_of.caps,
        ..*newest()
    }));
    made.push(r);
    r
}

fn resolve_source(req: &str) -> Result<&'static Release> {
    if let Some(r) = find_exact(req) {
        return Ok(r);
    }
    let parts: Vec<&str> = req.split('.').collect();
    let numeric = !parts.is_empty() && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if numeric && parts.len() == 2 {
        let prefix = format!("{req}.");
        if let Some(r) = RELEASES.iter().find(|r| r.version.starts_with(&prefix)) {
            return Ok(r);
        }
    }
    if req == "8.5" || req == "8.5.3" {
        bail!("RocksDB {req} is not available: librocksdb-sys 0.12.0, labelled 8.5.3, bundles RocksDB 8.6.7's source (use rocksdb@8.6); versions: {}", version_list());
    }
    bail!(
        "unknown RocksDB version {req:?}: rumbench builds {} from source, and runs any release from {} on as rocksdb@VERSION:release",
        version_list(),
        RELEASES[0].version
    )
}

/// The cargo manifest of `release`'s build, generated from the main
/// Cargo.toml (`main`): the same package, dependencies and profiles, with
/// librocksdb-sys pinned to the release's crate, the paths pointing back
/// into the tree (the manifest lives two levels down), no dev-dependencies
/// or tests, and a workspace of its own.
pub fn manifest(release: &Release, main: &str) -> Result<String> {
    use toml::{Table, Value};
    let mut doc: Table = main.parse()?;
    let up = |p: &str| format!("../../{p}");
    let str_list = |xs: &[&str]| Value::Array(xs.iter().map(|x| Value::String(x.to_string())).collect());

    let package = doc
        .get_mut("package")
        .and_then(Value::as_table_mut)
        .ok_or_else(|| anyhow::anyhow!("Cargo.toml has no [package]"))?;
    package.insert("name".into(), Value::String(release.package_name()));
    package.insert("build".into(), Value::String(up("build.rs")));
    for auto in ["autobins", "autoexamples", "autotests", "autobenches"] {
        package.insert(auto.into(), Value::Boolean(false));
    }
    package.insert("publish".into(), Value::Boolean(false));

    let mut lib = Table::new();
    lib.insert("name".into(), Value::String("rumbench".into()));
    lib.insert("path".into(), Value::String(up("src/lib.rs")));
    doc.insert("lib".into(), Value::Table(lib));
    let mut bin = Table::new();
    bin.insert("name".into(), Value::String(release.package_name()));
    bin.insert("path".into(), Value::String(up("src/main.rs")));
    doc.insert("bin".into(), Value::Array(vec![Value::Table(bin)]));

    let deps = doc
        .get_mut("dependencies")
        .and_then(Value::as_table_mut)
        .ok_or_else(|| anyhow::anyhow!("Cargo.toml has no [dependencies]"))?;
    if !deps.contains_key("librocksdb-sys") {
        bail!("Cargo.toml does not depend on librocksdb-sys");
    }
    let mut sys = Table::new();
    sys.insert("version".into(), Value::String(format!("={}", release.crate_semver())));
    sys.insert("default-features".into(), Value::Boolean(false));
    sys.insert("features".into(), str_list(release.features));
    deps.insert("librocksdb-sys".into(), Value::Table(sys));
    // A path dependency's path, from two levels down.
    let rebase = |dep: &mut Value| {
        if let Some(path) = dep.get_mut("path") {
            if let Some(p) = path.as_str() {
                *path = Value::String(up(p));
            }
        }
    };
    // The workspace's other crates (crates/core, crates/report).
    deps.iter_mut().for_each(|(_, dep)| rebase(dep));
    doc.remove("dev-dependencies");
    // The tests, benches and examples are the main package's (their paths are relative to it).
    for targets in ["test", "bench", "example"] {
        doc.remove(targets);
    }

    if let Some(patches) = doc.get_mut("patch").and_then(Value::as_table_mut) {
        for (_, registry) in patches.iter_mut() {
            registry.as_table_mut().into_iter().flatten().for_each(|(_, dep)| rebase(dep));
        }
    }
    // A manifest of its own: no workspace, and so none of its lints (they
    // change warnings only, never the binary).
    doc.insert("workspace".into(), Value::Table(Table::new()));
    doc.remove("lints");
    let header = format!(
        "# RocksDB {} (librocksdb-sys {}): rumbench's own source built against this release.\n\
         # Generated from ../../Cargo.toml by `scripts/rocksdb-versions.sh`: do not edit.\n\n",
        release.version, release.crate_version
    );
    Ok(header + &toml::to_string(&doc)?)
}

/// The manifest of the binary every release build shares: the newest
/// source release's (rocksdb-versions/<newest>/Cargo.toml, as committed), with the paths
/// made absolute (it is written into the cache) and librocksdb-sys without
/// its `snappy` feature. Without snappy the crate links no compression
/// library of its own (the release library carries its own), and the
/// feature set differs from the source build's, so cargo keeps the two
/// librocksdb-sys builds apart in a shared target dir: the source build's
/// compiled RocksDB is not replaced by a link to the release library.
pub fn official_manifest(source_root: &std::path::Path) -> Result<String> {
    use toml::Value;
    let release = official_release(newest().version);
    let committed = source_root.join(release.manifest_dir()).join("Cargo.toml");
    let text = std::fs::read_to_string(&committed)
        .with_context(|| format!("cannot read {} (scripts/rocksdb-versions.sh generates it)", committed.display()))?;
    let mut doc: toml::Table = text.parse()?;
    fn absolute(v: &mut Value, root: &std::path::Path) {
        match v {
            Value::String(s) if s.starts_with("../../") => {
                *s = root.join(&s["../../".len()..]).to_string_lossy().into_owned();
            }
            Value::Table(t) => t.iter_mut().for_each(|(_, v)| absolute(v, root)),
            Value::Array(a) => a.iter_mut().for_each(|v| absolute(v, root)),
            _ => {}
        }
    }
    doc.iter_mut().for_each(|(_, v)| absolute(v, source_root));
    let sys = doc
        .get_mut("dependencies")
        .and_then(|d| d.get_mut("librocksdb-sys"))
        .and_then(Value::as_table_mut)
        .ok_or_else(|| anyhow::anyhow!("{} has no librocksdb-sys dependency", committed.display()))?;
    let features: Vec<Value> =
        release.features.iter().filter(|f| **f != "snappy").map(|f| Value::String(f.to_string())).collect();
    sys.insert("features".into(), Value::Array(features));
    let header = format!(
        "# RocksDB's official release builds, bound through librocksdb-sys {}'s C API header (RocksDB {});\n\
         # each runs the library beside it. Made by rumbench from {}: do not edit.\n\n",
        release.crate_version,
        release.header_version(),
        committed.display()
    );
    Ok(header + &toml::to_string(&doc)?)
}

/// The manifests under `root` that differ from what [`manifest`] makes of
/// `root`'s Cargo.toml: (path, the text it should have).
pub fn stale_manifests(root: &std::path::Path) -> Result<Vec<(std::path::PathBuf, String)>> {
    let main = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let mut out = Vec::new();
    for r in RELEASES {
        let text = manifest(r, &main)?;
        let path = root.join(r.manifest_dir()).join("Cargo.toml");
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            out.push((path, text));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_resolve_exactly_or_by_major_minor() {
        assert_eq!(resolve("8.10").unwrap().version, "8.10.0");
        assert_eq!(resolve("8.10.0").unwrap().crate_version, "0.16.0+8.10.0");
        assert_eq!(resolve("6.28").unwrap().version, "6.28.2");
        assert_eq!(resolve("11.8").unwrap().version, "11.8.1");
        assert_eq!(resolve(" 9.9 ").unwrap().version, "9.9.3");
    }

    /// rocksdbjni's versions as Maven Central lists some of them (no network in unit tests).
    fn jni_versions() -> Result<Vec<String>> {
        Ok(["6.22.1", "6.28.2", "7.6.0", "7.7.3", "8.10.0", "8.10.2", "10.10.1", "10.10.1.1", "11.8.1"]
            .map(String::from)
            .to_vec())
    }

    #[test]
    fn a_version_without_a_source_is_rocksdbs_release_build() {
        let r = resolve_with("7.6.0", &jni_versions).unwrap();
        assert_eq!((r.version, r.origin), ("7.6.0", Origin::Official { caps_of: "7.4.4" }));
        assert_eq!(r.caps, RELEASES[1].caps, "7.4.4's capabilities");
        assert_eq!(r.crate_version, newest().crate_version, "bound through the newest header");
        assert_eq!(r.manifest_dir(), "rocksdb-versions/11.8.1");
        assert_eq!(r.cache_name(), "7.6.0-official");
        assert!(r.is_official() && !r.is_built_in() && r.added_cxxflags().is_none());
        assert!(std::ptr::eq(r, resolve_with("7.6.0:release", &jni_versions).unwrap()), "made once");
        // A major.minor is its newest; a four-part version is exact.
        assert_eq!(resolve_with("8.10:release", &jni_versions).unwrap().version, "8.10.2");
        let r = resolve_with("10.10.1.1", &jni_versions).unwrap();
        assert_eq!((r.version, r.origin), ("10.10.1.1", Origin::Official { caps_of: "10.4.2" }));
        // The built-in version's release build, beside the built-in source build.
        let r = resolve_with("11.8.1:release", &jni_versions).unwrap();
        assert_eq!(r.header_version(), "11.8.1");
        assert!(!r.is_built_in());
        // With a source here, the source unless the release is asked for.
        assert_eq!(resolve_with("8.10", &jni_versions).unwrap().origin, Origin::Source);
        assert_eq!(resolve_with("7.4.4:source", &jni_versions).unwrap().origin, Origin::Source);
        let no_network = || -> Result<Vec<String>> { bail!("no network") };
        assert_eq!(resolve_with("9.9", &no_network).unwrap().version, "9.9.3", "a source build needs no list");
    }

    #[test]
    fn a_release_build_that_does_not_exist_or_cannot_run_is_refused() {
        let e = resolve_with("7.6.1", &jni_versions).unwrap_err().to_string();
        assert!(
            e.contains("rocksdbjni has release builds of 6.28.2, 7.6.0") && e.contains("source builds: 6.28.2, 7.4.4"),
            "{e}"
        );
        let e = resolve_with("6.22.1:release", &jni_versions).unwrap_err().to_string();
        assert!(e.contains("older than 6.28.2, the oldest RocksDB whose C API rumbench binds"), "{e}");
        let e = resolve_with("7.6.0:debug", &jni_versions).unwrap_err().to_string();
        assert!(e.contains("neither \"source\"") && e.contains("nor \"release\""), "{e}");
        assert!(resolve_with("7.6.0:source", &jni_versions)
            .unwrap_err()
            .to_string()
            .contains("unknown RocksDB version"));
        let no_network = || -> Result<Vec<String>> { bail!("mvn did not answer") };
        let e = format!("{:#}", resolve_with("7.6.0", &no_network).unwrap_err());
        assert!(
            e.contains("looked up among the release builds of Maven Central's org.rocksdb:rocksdbjni")
                && e.contains("mvn did not answer"),
            "{e}"
        );
    }

    #[test]
    fn a_release_builds_manifest_is_its_headers_with_absolute_paths_and_no_snappy() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = official_manifest(root).unwrap();
        assert!(!text.contains("\"../../"), "{text}");
        let doc: toml::Table = text.parse().unwrap();
        let bin = &doc["bin"].as_array().unwrap()[0];
        assert_eq!(bin["path"].as_str().unwrap(), root.join("src/main.rs").to_str().unwrap());
        assert_eq!(bin["name"].as_str().unwrap(), "rumbench-rocksdb-11_8_1", "the header's package: its lockfile fits");
        let sys = &doc["dependencies"]["librocksdb-sys"];
        assert_eq!(sys["version"].as_str(), Some("=0.19.0"));
        let features: Vec<&str> = sys["features"].as_array().unwrap().iter().filter_map(|f| f.as_str()).collect();
        assert_eq!(features, ["static", "lz4", "zstd", "bindgen-runtime"]);
    }

    #[test]
    fn an_unknown_version_is_refused_with_the_list() {
        for bad in ["8.11", "8", "6.28.1", "latest", "", "8.10.x", "99.1"] {
            let e = resolve_with(bad, &jni_versions).unwrap_err().to_string();
            assert!(e.contains("6.28.2, 7.4.4, 7.9.2") && e.contains("11.8.1"), "{bad}: {e}");
        }
        assert!(resolve_with("8.5:source", &jni_versions).unwrap_err().to_string().contains("bundles RocksDB 8.6.7"));
    }

    #[test]
    fn the_built_in_release_is_this_build() {
        let r = Release::built_in();
        assert!(r.is_built_in());
        assert_eq!(r.crate_version, SYS_CRATE_VERSION);
        assert_eq!(r.caps, Capabilities::this_build(), "the table says what build.rs found in this build's RocksDB");
        assert!(r.lacks().is_empty());
        assert!(RELEASES.windows(2).all(|w| version_key(w[0].version) < version_key(w[1].version)), "oldest first");
    }

    #[test]
    fn older_releases_get_the_flags_their_crates_leave_out() {
        assert_eq!(resolve("11.8").unwrap().added_cxxflags(), None, "0.19.0 passes the target CPU itself");
        let v9 = resolve("9.9").unwrap().added_cxxflags().unwrap();
        assert!(v9.starts_with("-march=native ") && v9.contains("-DROCKSDB_FALLOCATE_PRESENT"), "{v9}");
        assert!(!v9.contains("HAVE_AVX2"), "9.9's source reads __AVX2__: {v9}");
        let v6 = resolve("6.28").unwrap().added_cxxflags().unwrap();
        assert_eq!(v6.contains("-DHAVE_AVX2=1 -DHAVE_BMI=1 -DHAVE_LZCNT=1"), cpu_has_avx2_bmi_lzcnt(), "{v6}");
    }

    #[test]
    fn an_old_release_says_what_it_lacks_and_refuses_it() {
        let old = resolve("6.28").unwrap();
        let lacks = old.lacks().join("\n");
        for what in ["WaitForCompact", "HyperClockCache", "round_robin", "MultiGet", "transactional"] {
            assert!(lacks.contains(what), "{what}: {lacks}");
        }
        assert_eq!(old.default_overrides(), vec![("cache_type".to_string(), "lru".to_string())]);
        let spec = &super::super::SPEC;
        let opts = |kv: &[(&str, &str)]| {
            crate::engine::resolve_options(
                spec,
                &kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>(),
            )
            .unwrap()
        };
        let e = old.check_options(&opts(&[("cache_type", "hyper_clock")])).unwrap_err().to_string();
        assert!(e.contains("needs RocksDB 8.8.1") && e.contains("runs RocksDB 6.28.2"), "{e}");
        assert!(old
            .check_options(&opts(&[("cache_type", "lru"), ("compaction_pri", "round_robin")]))
            .unwrap_err()
            .to_string()
            .contains("7.9.2"));
        assert!(old.check_options(&opts(&[("cache_type", "lru"), ("transactions", "optimistic")])).is_err());
        assert!(old.check_options(&opts(&[("cache_type", "lru")])).is_ok());
        let newer = resolve("8.10").unwrap();
        assert!(newer.check_options(&opts(&[("compaction_pri", "round_robin")])).is_ok());
        assert_eq!(newer.lacks().len(), 1, "only rocksdb_get_into_buffer");
        assert!(newer.lacks()[0].contains("rocksdb_get_into_buffer"));
    }

    #[test]
    fn every_release_has_its_manifest_and_lockfile_up_to_date() {
        let root = std::path::Path::new(env!("RUMBENCH_SOURCE_ROOT"));
        let stale: Vec<String> =
            stale_manifests(root).unwrap().into_iter().map(|(p, _)| p.display().to_string()).collect();
        assert!(stale.is_empty(), "run scripts/rocksdb-versions.sh: {stale:?}");
        for r in RELEASES {
            let lock = std::fs::read_to_string(root.join(r.manifest_dir()).join("Cargo.lock")).unwrap_or_default();
            let pinned = format!("name = \"librocksdb-sys\"\nversion = \"{}\"", r.crate_version);
            assert!(
                lock.contains(&pinned),
                "{}/Cargo.lock does not lock librocksdb-sys {}",
                r.manifest_dir(),
                r.crate_version
            );
            // The workspace's crates too: a build with --locked refuses a lock without them.
            for krate in ["rumbench-core", "rumbench-report"] {
                assert!(
                    lock.contains(&format!("name = \"{krate}\"")),
                    "{}/Cargo.lock does not lock {krate}: run scripts/rocksdb-versions.sh",
                    r.manifest_dir()
                );
            }
        }
    }

    #[test]
    fn the_manifest_pins_the_release_and_points_into_the_tree() {
        let main = std::fs::read_to_string(concat!(env!("RUMBENCH_SOURCE_ROOT"), "/Cargo.toml")).unwrap();
        let text = manifest(resolve("8.10").unwrap(), &main).unwrap();
        let doc: toml::Table = text.parse().unwrap();
        assert_eq!(doc["package"]["name"].as_str(), Some("rumbench-rocksdb-8_10_0"));
        assert_eq!(doc["package"]["build"].as_str(), Some("../../build.rs"));
        assert_eq!(doc["lib"]["path"].as_str(), Some("../../src/lib.rs"));
        assert_eq!(doc["bin"][0]["name"].as_str(), Some("rumbench-rocksdb-8_10_0"));
        let sys = &doc["dependencies"]["librocksdb-sys"];
        assert_eq!(sys["version"].as_str(), Some("=0.16.0"));
        assert_eq!(sys["default-features"].as_bool(), Some(false));
        assert!(doc.get("dev-dependencies").is_none());
        assert_eq!(doc["patch"]["crates-io"]["leveldb-sys"]["path"].as_str(), Some("../../vendor/leveldb-sys"));
        // Everything else as in the main manifest: the same dependencies and profiles.
        let main_doc: toml::Table = main.parse().unwrap();
        assert_eq!(doc["profile"], main_doc["profile"]);
        for (name, dep) in main_doc["dependencies"].as_table().unwrap() {
            if name != "librocksdb-sys" && dep.get("path").is_none() {
                assert_eq!(&doc["dependencies"][name], dep, "{name}");
            }
        }
        // The workspace's crates, from where the manifest lives; a workspace of its own.
        assert_eq!(doc["dependencies"]["rumbench-core"]["path"].as_str(), Some("../../crates/core"));
        assert_eq!(doc["dependencies"]["rumbench-report"]["path"].as_str(), Some("../../crates/report"));
        assert_eq!(doc["workspace"], toml::Value::Table(toml::Table::new()));
    }
}
