//! Config sweeps (`--sweep rocksdb.max_subcompactions=1,4`): the configs a
//! sweep made from one engine, each against the first (the base, every
//! sweep's first value), per step: throughput, CPU per operation, the p99,
//! storage reads per query, KB written per write and write amplification.
//! As in published config studies (base vs c1..c7), ratios below 0.95 and
//! above 1.05 are highlighted, and `rumbench compare`'s verdicts are marked
//! (with repeats).

use super::compare::Options;
use super::relative::{Column, Table};
use super::summary::{ConfigInfo, Summary};

/// The metrics of the table, in its order: (key, label).
pub const METRICS: &[(&str, &str)] = &[
    ("ops_s", "ops/s"),
    ("cpu_us_op", "cpu us/op"),
    ("srv_cpu_us_op", "srv cpu us/op"),
    ("p99_us", "p99 us"),
    ("rpq", "rpq"),
    ("wkbpi", "wkbpi"),
    ("write_amp", "w-amp"),
    ("write_amp_debt", "w-amp debt"),
];

/// "max_subcompactions=4, cache_type=hyper_clock".
fn values_text(sweep: &[(String, String)]) -> String {
    sweep.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

/// The sweeps of a one-run summary: one table per engine and set of swept
/// options, its configs in run order (the base first). Empty for summaries
/// of several runs (`rumbench compare` is for those).
pub fn tables(s: &Summary, opts: &Options) -> Vec<Table> {
    if s.runs.len() != 1 {
        return Vec::new();
    }
    let key = |c: &ConfigInfo| (c.engine.clone(), c.sweep.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>());
    let mut groups: Vec<Vec<&ConfigInfo>> = Vec::new();
    // A sweep of versions alone is the version table's (report::versions).
    for c in s.runs[0].configs.iter().filter(|c| c.sweep.iter().any(|(k, _)| k != "version")) {
        match groups.iter_mut().find(|g| key(g[0]) == key(c)) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.len() >= 2)
        .enumerate()
        .map(|(i, g)| {
            // Short labels as in published config studies (base, c1, c2, ...), with a legend.
            let label = |i: usize| if i == 0 { "base".to_string() } else { format!("c{i}") };
            let columns: Vec<Column> = g
                .iter()
                .enumerate()
                .map(|(i, c)| Column { config: c.name.clone(), label: label(i), detail: Some(values_text(&c.sweep)) })
                .collect();
            let legend = g
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{} = {}: {}", label(i), c.name, values_text(&c.sweep)))
                .collect();
            let (rows, notes, unexercised) = Table::build(s, METRICS, columns.clone(), opts);
            let options: Vec<&str> = g[0].sweep.iter().map(|(k, _)| k.as_str()).collect();
            let heading = format!(
                "per step, each config against the base (every swept option's first value): its value, then {}",
                super::relative::verdict_legend(opts),
            );
            // The first table is the report's link target; ids stay unique.
            let id = if i == 0 { "config-sweep".to_string() } else { format!("config-sweep-{}", i + 1) };
            let cpu = super::relative::cpu_changes(s, &columns, opts);
            Table {
                id,
                title: format!("Config sweep: {} {}", g[0].engine, options.join(", ")),
                heading,
                metrics: METRICS,
                columns,
                rows,
                notes,
                legend,
                cpu,
                unexercised,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Verdict;
    use crate::plan::steps::StepKind;
    use crate::result::fixtures;
    use crate::summary::NamedRun;

    /// rocksdb swept over max_subcompactions 1, 4, 8 (4 is 20% faster) beside an lmdb config.
    fn swept_run() -> crate::result::RunResult {
        let mut configs = Vec::new();
        for (value, ops_s) in [("1", 100_000.0), ("4", 120_000.0), ("8", 101_000.0)] {
            let mut st =
                fixtures::step(StepKind::FillRandom, 10.0, vec![fixtures::op("put", 1_000_000, 10.0, 0, 0, 0)]);
            st.ops_s = Some(ops_s);
            let mut c = fixtures::config(&format!("rocksdb-max_subcompactions-{value}"), "rocksdb", vec![st]);
            c.sweep = vec![("max_subcompactions".into(), value.into())];
            configs.push(c);
        }
        let st = fixtures::step(StepKind::FillRandom, 10.0, vec![fixtures::op("put", 1_000_000, 10.0, 0, 0, 0)]);
        configs.push(fixtures::config("lmdb", "lmdb", vec![st]));
        fixtures::run(configs)
    }

    #[test]
    fn each_config_against_the_base_with_changes_marked() {
        let run = swept_run();
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let t = tables(&s, &Options::default());
        assert_eq!(t.len(), 1, "one sweep, lmdb is not part of it");
        let t = &t[0];
        assert_eq!(
            t.columns.iter().map(|c| c.config.as_str()).collect::<Vec<_>>(),
            ["rocksdb-max_subcompactions-1", "rocksdb-max_subcompactions-4", "rocksdb-max_subcompactions-8"]
        );
        let ops =
            t.rows.iter().find(|r| r.step == "fillrandom" && METRICS[r.metric].0 == "ops_s").expect("an ops/s row");
        assert_eq!(ops.base, Some(100_000.0));
        assert!((ops.cells[0].ratio.unwrap() - 1.2).abs() < 1e-9);
        // One run: ratios without verdicts.
        assert_eq!(ops.cells[0].verdict, Verdict::OneRun);
        assert_eq!(ops.cells[1].verdict, Verdict::OneRun);
        let text = crate::table::config_sweep_text(&s);
        assert!(
            text.starts_with("Config sweep: rocksdb max_subcompactions: per step, each config against the base"),
            "{text}"
        );
        assert!(text.contains("\n  base = rocksdb-max_subcompactions-1: max_subcompactions=1\n  c1 = rocksdb-max_subcompactions-4: max_subcompactions=4\n"), "{text}");
        let ops_line =
            text.lines().find(|l| l.contains("fillrandom") && l.contains("ops/s")).unwrap_or_else(|| panic!("{text}"));
        assert!(
            ops_line.contains("120000 1.20") && ops_line.contains("1.01") && !ops_line.contains("improvement"),
            "{text}"
        );
        let html = crate::html::config_sweep_html(&crate::sweep_tables::SweepTables::of(&s).configs);
        assert!(
            html.contains(r#"<td class="above" title="interval -: no verdict (1 run)">120000 1.20</td>"#),
            "{html}"
        );
        // Repeated: verdicts.
        let rep = fixtures::in_rounds(swept_run(), 5);
        let s2 = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &rep }]);
        let t2 = tables(&s2, &Options::default());
        let ops = t2[0].rows.iter().find(|r| r.step == "fillrandom" && METRICS[r.metric].0 == "ops_s").unwrap();
        assert_eq!((ops.cells[0].verdict, ops.cells[1].verdict), (Verdict::Improvement, Verdict::Same));
        let text2 = crate::table::config_sweep_text(&s2);
        assert!(text2.contains("120000 1.20 improvement"), "{text2}");
        assert!(
            text2.contains(
                "rocksdb-max_subcompactions-4 vs rocksdb-max_subcompactions-1, fillrandom: could detect changes of"
            ),
            "{text2}"
        );
        assert!(crate::html::config_sweep_html(&crate::sweep_tables::SweepTables::of(&s2).configs)
            .contains("fillrandom: could detect changes of"));
        assert!(crate::markdown::config_sweep_markdown(&crate::sweep_tables::SweepTables::of(&s).configs)
            .contains("## Config sweep: rocksdb max_subcompactions"));
        // Without a sweep: nothing.
        let plain = fixtures::realistic_run();
        assert_eq!(
            crate::table::config_sweep_text(&Summary::build(&[NamedRun {
                label: "r".into(),
                dir: String::new(),
                run: &plain
            }])),
            ""
        );
    }

    #[test]
    fn a_swept_setting_that_never_acted_is_noted_once_per_step() {
        // rocksdb compression none vs snappy: a fill that flushed nothing, then a flush that wrote SSTs.
        let mut configs = Vec::new();
        for value in ["none", "snappy"] {
            let mut fill =
                fixtures::step(StepKind::FillRandom, 10.0, vec![fixtures::op("put", 300_000, 10.0, 0, 0, 0)]);
            fill.metrics.logical_bytes_written = 300_000 * 116;
            fill.engine_stats = vec![
                ("write_amp.flush_and_compaction_bytes".into(), "0".into()),
                ("write_amp.source".into(), "rocksdb.stats text (rounded to 0.01 GB)".into()),
                ("rocksdb.total-sst-files-size".into(), "0".into()),
            ];
            let mut flush = fixtures::step(StepKind::Flush, 0.1, vec![fixtures::op("flush", 1, 10.0, 0, 0, 0)]);
            flush.engine_stats = vec![
                ("write_amp.flush_and_compaction_bytes".into(), "0".into()),
                ("rocksdb.total-sst-files-size".into(), "20000000".into()),
            ];
            let mut c = fixtures::config(&format!("rocksdb-compression-{value}"), "rocksdb", vec![fill, flush]);
            c.options = [("compression".to_string(), value.to_string()), ("block_size".into(), "4096".into())].into();
            c.sweep = vec![("compression".into(), value.into())];
            configs.push(c);
        }
        let run = fixtures::run(configs);
        let s = Summary::build(&[NamedRun { label: "r".into(), dir: String::new(), run: &run }]);
        let t = &tables(&s, &Options::default())[0];
        assert_eq!(t.unexercised.len(), 1, "{:?}", t.unexercised);
        let u = &t.unexercised[0];
        assert_eq!((u.step.as_str(), u.column), ("fillrandom", 1));
        assert_eq!(u.note, "compression never acted: nothing was flushed or compacted in this step");
        let text = crate::table::config_sweep_text(&s);
        assert!(
            text.contains("* fillrandom, c1 against base: compression never acted: nothing was flushed or compacted"),
            "{text}"
        );
        assert!(text.lines().any(|l| l.starts_with("fillrandom *")), "{text}");
        assert!(!text.lines().any(|l| l.starts_with("flush *")), "the flush wrote SSTs: {text}");
        let html = crate::html::config_sweep_html(&crate::sweep_tables::SweepTables::of(&s).configs);
        assert_eq!(html.matches(r#"<tr class="unexercised">"#).count(), 1, "{html}");
        // The report's own per-step table says it beside the row.
        let fill = s.steps.iter().find(|st| st.key == "fillrandom").unwrap();
        assert!(s.unexercised(fill, 1, 0).is_some_and(|n| n.starts_with("compression never acted")));
        let flush = s.steps.iter().find(|st| st.key == "flush").unwrap();
        assert_eq!(s.unexercised(flush, 1, 0), None);
    }
}
