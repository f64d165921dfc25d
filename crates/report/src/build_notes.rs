//! Build notes: what configs of one engine were built differently in
//! (optimisation, compiler, assertions, configure flags, where the binaries
//! came from), for the version tables (versions.rs) and for `rumbench
//! compare`'s verdicts (compare.rs), both of which read it.

use super::summary::ConfigInfo;

/// RocksDB builds: what must not differ between versions beyond their source.
pub const ROCKSDB_BUILD_KEYS: &[(&str, &str)] = &[
    ("build.origin", "origin (RocksDB's own release binary or compiled here)"),
    ("build.ndebug", "NDEBUG (assertions off)"),
    ("build.opt_level", "optimisation"),
    ("build.target_cpu", "target CPU"),
    ("build.compiler", "compiler"),
    ("build.rocksdb_cxx_flags", "compile flags (the C++ standard aside)"),
    ("build.rumbench_source", "rumbench source"),
];

/// Provenance entries whose difference between versions is worth a flag.
pub const BUILD_KEYS: &[(&str, &str)] = &[
    ("build.assertions", "assertions"),
    ("build.optimization", "optimisation"),
    ("build.compiler", "compiler"),
    ("build.pg_config.configure", "configure flags (prefix aside)"),
    ("server.binaries", "binaries"),
];

/// A config's provenance entry `key`.
pub fn prov<'a>(c: &'a ConfigInfo, key: &str) -> Option<&'a str> {
    c.provenance.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// A configure line without its --prefix (the install path says nothing about the build).
fn configure_sans_prefix(v: &str) -> String {
    v.split_whitespace().filter(|t| !t.trim_matches('\'').starts_with("--prefix=")).collect::<Vec<_>>().join(" ")
}

/// What a build note compares: the binaries' origin by its kind (npm or Debian), not its path.
fn build_value(key: &str, v: &str) -> String {
    match key {
        "build.pg_config.configure" => configure_sans_prefix(v),
        "server.binaries" => v.split(" (").next().unwrap_or(v).split('@').next().unwrap_or(v).to_string(),
        // Each RocksDB source asks for its own C++ standard, and warnings
        // change no code; the rest must match, in any order. Beside
        // -march=native, instruction-set flags (-msse4.2, -mavx2, ...) add
        // nothing; HAVE_SSE42 / HAVE_PCLMUL and ROCKSDB_SUPPORT_THREAD_LOCAL
        // are what 6.x sources read where newer ones test the compiler's own
        // macros (__SSE4_2__) or need nothing.
        "build.rocksdb_cxx_flags" => {
            let march = v.split_whitespace().any(|w| w == "-march=native");
            let implied = |w: &str| march && w.starts_with("-m") && !w.starts_with("-march=") && w != "-m64";
            let old_macro = |w: &str| {
                w.starts_with("-DHAVE_SSE42") || w.starts_with("-DHAVE_PCLMUL") || w == "-DROCKSDB_SUPPORT_THREAD_LOCAL"
            };
            let mut words: Vec<&str> = v
                .split_whitespace()
                .filter(|w| !w.starts_with("-std=") && !w.starts_with("-W") && !implied(w) && !old_macro(w))
                .collect();
            words.sort_unstable();
            words.dedup();
            words.join(" ")
        }
        "build.ndebug" => v.split_whitespace().next().unwrap_or(v).to_string(),
        _ => v.to_string(),
    }
}

/// What two configs of one engine were built differently in (the keys a
/// version sweep notes), for `rumbench compare`: a pair of RocksDB's release
/// binary and a source build, or of two compilers, says so beside its verdicts.
pub fn build_differences(a: &ConfigInfo, b: &ConfigInfo) -> Vec<String> {
    if a.engine != b.engine {
        return Vec::new();
    }
    // Every build key either side records (a key neither records is no difference).
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for (k, what) in ROCKSDB_BUILD_KEYS.iter().chain(BUILD_KEYS) {
        if (prov(a, k).is_some() || prov(b, k).is_some()) && !keys.iter().any(|(seen, _)| seen == k) {
            keys.push((k, what));
        }
    }
    build_notes(&[a, b], &keys)
}

/// "built differently, <what>: ..." for every key whose value differs between configs.
pub fn build_notes(configs: &[&ConfigInfo], keys: &[(&str, &str)]) -> Vec<String> {
    let mut notes = Vec::new();
    for (key, what) in keys {
        let vals: Vec<(String, String)> = configs
            .iter()
            .map(|c| (c.name.clone(), prov(c, key).map(|v| build_value(key, v)).unwrap_or_else(|| "unknown".into())))
            .collect();
        let mut distinct: Vec<&str> = vals.iter().map(|(_, v)| v.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() <= 1 {
            continue;
        }
        if *key == "build.rocksdb_cxx_flags" {
            notes.push(flag_difference(what, &vals));
            continue;
        }
        let each: Vec<String> = vals.iter().map(|(n, v)| format!("{n} {v}")).collect();
        notes.push(format!("built differently, {what}: {}", each.join("; ")));
    }
    notes
}

/// Compile flags that differ: per config, only the flags not all share.
/// HAVE_AVX2 / HAVE_BMI / HAVE_LZCNT are what 6.x and 7.x sources read for
/// the bloom filter's AVX2 probe, where 8.x on reads the compiler's
/// `__AVX2__` (-march=native): said so when they are the only difference.
fn flag_difference(what: &str, vals: &[(String, String)]) -> String {
    use std::collections::BTreeSet;
    let sets: Vec<BTreeSet<&str>> = vals.iter().map(|(_, v)| v.split_whitespace().collect()).collect();
    let common: BTreeSet<&str> =
        sets.iter().skip(1).fold(sets[0].clone(), |acc, s| acc.intersection(s).copied().collect());
    let mut only_avx_macros = true;
    let each: Vec<String> = vals
        .iter()
        .zip(&sets)
        .map(|((name, _), set)| {
            let own: Vec<&str> = set.difference(&common).copied().collect();
            only_avx_macros &= own
                .iter()
                .all(|w| w.starts_with("-DHAVE_AVX2") || w.starts_with("-DHAVE_BMI") || w.starts_with("-DHAVE_LZCNT"));
            format!("{name} {}", if own.is_empty() { "nothing more".to_string() } else { own.join(" ") })
        })
        .collect();
    let why = if only_avx_macros {
        " (HAVE_AVX2, HAVE_BMI, HAVE_LZCNT: read by 6.x and 7.x sources; 8.x on reads the compiler's __AVX2__, which -march=native sets)"
    } else {
        ""
    };
    format!("built differently, {what}, beyond the flags all share: {}{why}", each.join("; "))
}
