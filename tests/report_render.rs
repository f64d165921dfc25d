//! Snapshot tests of the text renderers (summary table, markdown, TSV,
//! compare) and structural checks of the HTML report, on synthetic results.

use crate::common;

use common::*;
use rumbench::report::compare::{self, Group};
use rumbench::report::html::{self, HtmlOptions};
use rumbench::report::summary::{Base, NamedRun, Summary};
use rumbench::report::{self as output, Exporter};

fn two_runs() -> (rumbench::result::RunResult, rumbench::result::RunResult) {
    (sample_run("2025-03-01T10:00:00+00:00", 1.0), sample_run("2025-03-02T10:00:00+00:00", 0.8))
}

fn summary_of(runs: &[(&str, &rumbench::result::RunResult)]) -> Summary {
    let named: Vec<NamedRun> =
        runs.iter().map(|(l, r)| NamedRun { label: l.to_string(), dir: format!("/results/{l}"), run: r }).collect();
    Summary::build(&named)
}

#[test]
fn text_summary_snapshot() {
    let (a, _) = two_runs();
    assert_snapshot("summary.txt", &output::table::SummaryText.render(&a).unwrap());
}

#[test]
fn markdown_snapshot_one_run_and_two() {
    let (a, b) = two_runs();
    assert_snapshot("summary.md", &output::markdown::Markdown.render(&a).unwrap());
    let s = summary_of(&[("a", &a), ("b", &b)]);
    assert_snapshot("compare-ab.md", &output::markdown::render(&s, &Base::Run(0)));
}

#[test]
fn tsv_snapshot_has_benchmark_sh_columns() {
    let (a, _) = two_runs();
    let tsv = output::tsv::BenchmarkTsv.render(&a).unwrap();
    let header: Vec<&str> = tsv.lines().next().unwrap().split('\t').collect();
    assert_eq!(&header[..28], output::tsv::BENCHMARK_SH_COLUMNS);
    assert_eq!(&header[..6], &["ops_sec", "mb_sec", "lsm_sz", "blob_sz", "c_wgb", "w_amp"]);
    for line in tsv.lines() {
        assert_eq!(line.split('\t').count(), header.len(), "{line}");
    }
    // 3 configs x 3 steps.
    assert_eq!(tsv.lines().count(), 1 + 9);
    let row: Vec<&str> = tsv.lines().nth(1).unwrap().split('\t').collect();
    let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("test"), "fillrandom");
    assert_eq!(col("job_id"), "rocksdb");
    assert_eq!(col("version"), "7.8.3");
    assert_eq!(col("lsm_sz"), "100MB");
    assert_eq!(col("w_amp"), "3.20");
    assert_eq!(col("u_cpu"), "");
    assert_eq!(col("date"), "2025-03-01T10:00:00");
    assert_snapshot("report.tsv", &tsv);
}

#[test]
fn compare_text_snapshot() {
    let (a, b) = two_runs();
    let groups = vec![
        Group { label: "a".into(), runs: vec![("/results/a".into(), a)] },
        Group { label: "b".into(), runs: vec![("/results/b".into(), b)] },
    ];
    let c = compare::compare(&groups, &compare::Options::default()).unwrap();
    assert_snapshot("compare.txt", &rumbench::report::compare_text::render(&c));
}

#[test]
fn html_report_has_every_view() {
    let (a, b) = two_runs();
    let s = summary_of(&[("a", &a), ("b", &b)]);
    let page = html::render(&s, &HtmlOptions { base: Base::Run(0), title: None, generated_at: "now".into() });
    // Self-contained: nothing fetched from anywhere.
    for needle in ["http://", "https://", "<link", "src=", "@import"] {
        let hits: Vec<_> = page.match_indices(needle).filter(|(i, _)| !page[..*i].ends_with("xmlns=\"")).collect();
        assert!(hits.is_empty(), "external reference {needle} in the report");
    }
    assert!(page.starts_with("<!DOCTYPE html>"));
    // Per step: summary and relative tables, writer table where there is a writer, charts.
    for step in ["fillrandom", "readrandom", "readwhilewriting"] {
        assert!(page.contains(&format!("id=\"step-{step}\"")), "{step}");
        assert!(page.contains(&format!("{step}: throughput per second")));
        assert!(page.contains(&format!("{step}: max response time per second")));
        assert!(page.contains(&format!("{step}: response time percentiles")));
    }
    assert_eq!(page.matches("<table class=\"summary\">").count(), 3);
    assert_eq!(page.matches("<table class=\"relative\">").count(), 3);
    assert_eq!(page.matches("<table class=\"writer\">").count(), 1);
    assert!(page.contains("<tr class=\"missed\">"), "sqlite's writer missed its target");
    assert!(page.contains(">MISSED<"));
    assert!(page.matches("<svg class=\"chart\"").count() >= 3 * 4);
    // Rank colours and ratio colours are used; run b is 0.8x run a: below 0.95.
    assert!(page.contains("<td class=\"top\">") && page.contains("<td class=\"bottom\">"));
    assert!(page.contains("<td class=\"below\""));
    // Environment, warnings and a legend line for every column.
    assert!(page.contains("Synthetic CPU @ 2.0GHz") && page.contains("turbo/boost is on"));
    for m in rumbench::report::summary::METRICS {
        assert!(page.contains(m.help), "legend misses {}", m.key);
    }
}

#[test]
fn stall_is_visible_in_the_throughput_and_max_series() {
    let (a, _) = two_runs();
    let s = summary_of(&[("a", &a)]);
    let fill = s.steps.iter().find(|t| t.key == "fillrandom").unwrap();
    let rocks = fill.rows.iter().find(|r| r.config == "rocksdb").unwrap();
    let min = rocks.intervals.iter().map(|i| i.ops).min().unwrap();
    let max_us = rocks.intervals.iter().map(|i| i.max_us).fold(0.0, f64::max);
    assert_eq!(min, 2000);
    assert_eq!(max_us, 950_000.0);
    let page =
        html::render(&s, &HtmlOptions { base: s.default_base(), title: Some("t".into()), generated_at: "now".into() });
    // The max-per-second chart's y axis reaches the stall (1 s decade).
    assert!(page.contains(">1s</text>"), "log axis should reach 1 s");
}

#[test]
fn base_by_config_name_and_by_run() {
    let (a, b) = two_runs();
    let s = summary_of(&[("a", &a), ("b", &b)]);
    let step = &s.steps[0];
    let by_name = s.base_rows(step, &Base::Row("lmdb".into()));
    let lmdb = step.rows.iter().position(|r| r.label == "a/lmdb").unwrap();
    assert!(by_name.iter().all(|b| *b == Some(lmdb)));
    let by_run = s.base_rows(step, &Base::Run(0));
    for (i, r) in step.rows.iter().enumerate() {
        let b = &step.rows[by_run[i].unwrap()];
        assert_eq!((b.label.split('/').next().unwrap(), b.config.as_str()), ("a", r.config.as_str()));
    }
    assert_eq!(s.default_base(), Base::Row("a/rocksdb".into()));
}
