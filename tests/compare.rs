//! compare's classification on synthetic results with known differences and
//! known noise, and its exit code for CI.

mod common;

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use common::*;
use rumbench::result::RunResult;
use rumbench::report::compare::{self, BandSource, Comparison, Group, Options, Verdict};

fn one(name: &str, run: RunResult) -> Group {
    Group { label: name.into(), runs: vec![(format!("/r/{name}"), run)] }
}

fn single(step: StepSpec) -> RunResult {
    run("2025-03-01T10:00:00+00:00", vec![config("rocksdb", "rocksdb", "7.8.3", &[step])])
}

fn line<'a>(c: &'a Comparison, step: &str, metric: &str) -> &'a compare::Line {
    let mi = rumbench::report::summary::metric_index(metric).unwrap();
    c.pairs[0].lines.iter().find(|l| l.step == step && l.metric == mi).unwrap_or_else(|| panic!("no {step} {metric}"))
}

fn cmp(a: RunResult, b: RunResult) -> Comparison {
    compare::compare(&[one("a", a), one("b", b)], &Options::default()).unwrap()
}

/// Rates around `mean` with a known coefficient of variation: alternating +-cv.
fn wobbly(mean: f64, cv: f64, n: usize) -> Vec<u64> {
    (0..n).map(|i| (mean * if i % 2 == 0 { 1.0 + cv } else { 1.0 - cv }) as u64).collect()
}

#[test]
fn steady_runs_classify_by_the_fixed_threshold() {
    let base = || StepSpec::steady("readrandom", "get", 100_000, 10);
    // +20%: improvement; -20%: regression; +3%: noise.
    let c = cmp(single(base()), single(StepSpec::steady("readrandom", "get", 120_000, 10)));
    let l = line(&c, "readrandom", "ops_s");
    assert_eq!(l.verdict, Verdict::Improvement);
    assert_eq!(l.source, BandSource::Threshold);
    assert!((l.band - 0.05).abs() < 1e-12);
    assert!((l.ratio.unwrap() - 1.2).abs() < 1e-9);
    assert_eq!(line(&cmp(single(base()), single(StepSpec::steady("readrandom", "get", 80_000, 10))), "readrandom", "ops_s").verdict, Verdict::Regression);
    assert_eq!(line(&cmp(single(base()), single(StepSpec::steady("readrandom", "get", 103_000, 10))), "readrandom", "ops_s").verdict, Verdict::Noise);
    // Unchanged metrics are noise; lower-is-better metrics invert.
    let c = cmp(single(base()), single(base().p50(8.0).cpu(3.0)));
    assert_eq!(line(&c, "readrandom", "p50_us").verdict, Verdict::Regression);
    assert_eq!(line(&c, "readrandom", "cpu_us_op").verdict, Verdict::Improvement);
    assert_eq!(line(&c, "readrandom", "space_amp").verdict, Verdict::Noise);
}

#[test]
fn per_second_variation_widens_the_band() {
    // Per-second rates vary +-20% (CV ~0.21 with 10 alternating seconds): band = 2 x CV ~ 42%.
    let noisy = StepSpec::new("readrandom", "get", wobbly(100_000.0, 0.2, 10));
    let cv = rumbench::report::summary::cv(&wobbly(100_000.0, 0.2, 10).iter().map(|&x| x as f64).collect::<Vec<_>>(), 3).unwrap();
    let c = cmp(single(noisy), single(StepSpec::steady("readrandom", "get", 85_000, 10)));
    let l = line(&c, "readrandom", "ops_s");
    assert_eq!(l.source, BandSource::Intervals);
    assert!((l.band - 2.0 * cv).abs() < 1e-9, "{} vs {}", l.band, 2.0 * cv);
    assert_eq!(l.verdict, Verdict::Noise, "-15% is inside a {:.0}% band", l.band * 100.0);
    // A change well beyond the band is still a regression.
    let c = cmp(single(StepSpec::new("readrandom", "get", wobbly(100_000.0, 0.2, 10))), single(StepSpec::steady("readrandom", "get", 40_000, 10)));
    assert_eq!(line(&c, "readrandom", "ops_s").verdict, Verdict::Regression);
    // Per-second p99 variation widens the p99 band, not p50's.
    let spiky = StepSpec::steady("readrandom", "get", 100_000, 10).p99(vec![10.0, 30.0, 10.0, 30.0, 10.0, 30.0, 10.0, 30.0, 10.0, 30.0]);
    let c = cmp(single(spiky), single(StepSpec::steady("readrandom", "get", 100_000, 10).p99(vec![36.0; 10]).p50(6.0)));
    assert_eq!(line(&c, "readrandom", "p99_us").verdict, Verdict::Noise, "36 vs 30 inside the p99 band");
    assert_eq!(line(&c, "readrandom", "p99_us").source, BandSource::Intervals);
    assert_eq!(line(&c, "readrandom", "p50_us").verdict, Verdict::Regression, "p50 5 -> 6 with the 5% threshold");
}

#[test]
fn the_partial_last_second_and_short_steps_do_not_count() {
    // Two full seconds only: too few for a CV, the threshold applies.
    let mut short = StepSpec::new("readrandom", "get", vec![50_000, 150_000]).build();
    short.wall_s = Some(2.0);
    let mut a = single(StepSpec::steady("readrandom", "get", 100_000, 2));
    a.configs[0].steps[0] = short;
    let c = cmp(a, single(StepSpec::steady("readrandom", "get", 90_000, 2)));
    assert_eq!(line(&c, "readrandom", "ops_s").source, BandSource::Threshold);
    // A steady step whose last second is partial (a tiny count) stays steady.
    let mut s = StepSpec::new("readrandom", "get", vec![100_000, 100_000, 100_000, 100_000, 3_000]).build();
    s.wall_s = Some(4.03);
    let mut a = single(StepSpec::steady("readrandom", "get", 1, 1));
    a.configs[0].steps[0] = s;
    let c = cmp(a, single(StepSpec::steady("readrandom", "get", 90_000, 5)));
    assert_eq!(line(&c, "readrandom", "ops_s").source, BandSource::Threshold, "the partial second would add a huge CV");
}

#[test]
fn repeats_set_the_band_and_are_averaged() {
    let rep = |rate: u64| single(StepSpec::steady("readrandom", "get", rate, 10));
    // Base repeated: 90k, 100k, 110k (CV 0.1, band 20%); new 88k: -12% is noise.
    let base = Group { label: "a".into(), runs: vec![("1".into(), rep(90_000)), ("2".into(), rep(100_000)), ("3".into(), rep(110_000))] };
    let c = compare::compare(&[base, one("b", rep(88_000))], &Options::default()).unwrap();
    let l = line(&c, "readrandom", "ops_s");
    assert_eq!(l.source, BandSource::Repeats);
    assert!((l.band - 0.2).abs() < 1e-9, "{}", l.band);
    assert_eq!(l.base, Some(100_000.0));
    assert_eq!(l.verdict, Verdict::Noise);
    // Without the repeats the same -12% is a regression.
    assert_eq!(line(&cmp(rep(100_000), rep(88_000)), "readrandom", "ops_s").verdict, Verdict::Regression);
    // k and the threshold are options.
    let opts = Options { threshold: 0.15, k: 2.0, metrics: Some(vec!["ops_s".into()]) };
    let c = compare::compare(&[one("a", rep(100_000)), one("b", rep(88_000))], &opts).unwrap();
    assert_eq!(c.pairs[0].lines.len(), 1);
    assert_eq!(c.pairs[0].lines[0].verdict, Verdict::Noise);
}

#[test]
fn configs_pair_by_name_or_alone_and_syncs_have_no_direction() {
    let a = run(
        "2025-03-01T10:00:00+00:00",
        vec![
            config("rocksdb", "rocksdb", "7.8.3", &[StepSpec::steady("fillrandom", "put", 100_000, 5).durable(false)]),
            config("lmdb", "lmdb", "0.9", &[StepSpec::steady("fillrandom", "put", 200_000, 5)]),
        ],
    );
    let b = run(
        "2025-03-01T10:00:00+00:00",
        vec![
            config("lmdb", "lmdb", "0.9", &[StepSpec::steady("fillrandom", "put", 200_000, 5)]),
            config("rocksdb", "rocksdb", "7.8.3", &[StepSpec::steady("fillrandom", "put", 100_000, 5).durable(true)]),
        ],
    );
    let c = cmp(a.clone(), b);
    assert_eq!(c.pairs.len(), 2);
    assert_eq!(c.pairs[0].base, "a/rocksdb");
    assert_eq!(c.pairs[0].new, "b/rocksdb");
    let mi = rumbench::report::summary::metric_index("syncs_per_commit").unwrap();
    let l = c.pairs[0].lines.iter().find(|l| l.metric == mi).unwrap();
    assert_eq!(l.verdict, Verdict::Changed, "0 -> 1 sync per commit is a change, not a regression");
    // One run with two configs: its configs against its first.
    let c = compare::compare(&[one("a", a)], &Options::default()).unwrap();
    assert_eq!((c.pairs[0].base.as_str(), c.pairs[0].new.as_str()), ("rocksdb", "lmdb"));
    assert_eq!(line(&c, "fillrandom", "ops_s").verdict, Verdict::Improvement);
    // Differently named single configs are paired.
    let c = cmp(single(StepSpec::steady("readrandom", "get", 100_000, 5)), run("x", vec![config("rocks-new", "rocksdb", "8.0", &[StepSpec::steady("readrandom", "get", 50_000, 5)])]));
    assert_eq!(c.pairs[0].new, "b/rocks-new");
    assert_eq!(c.count(Verdict::Regression), 2, "ops/s and MB/s");
    // Unknown metrics are refused.
    let bad = Options { metrics: Some(vec!["opss".into()]), ..Default::default() };
    assert!(compare::compare(&[one("a", single(StepSpec::steady("r", "get", 1, 3)))], &bad).is_err());
}

#[test]
fn fail_on_regression_sets_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
    save(&single(StepSpec::steady("readrandom", "get", 100_000, 10)), &a);
    save(&single(StepSpec::steady("readrandom", "get", 70_000, 10)), &b);
    save(&single(StepSpec::steady("readrandom", "get", 101_000, 10)), &c);
    let bin = || Command::cargo_bin("rumbench").unwrap();
    let out = bin().arg("compare").arg(&a).arg(&b).arg("--fail-on-regression").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("REGRESSION") && text.contains("noise: a change is noise when |ratio - 1| <= max(5%, 2 x CV_intervals"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("regressions beyond noise"));
    // Without the flag the same comparison succeeds; a noise-only one passes with it.
    assert_eq!(bin().arg("compare").arg(&a).arg(&b).output().unwrap().status.code(), Some(0));
    let out = bin().arg("compare").arg(&a).arg(&c).arg("--fail-on-regression").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // Repeats as DIR1,DIR2 and a threshold in percent.
    let out = bin().arg("compare").arg(format!("{},{}", a.display(), c.display())).arg(&b).args(["--threshold", "40%", "--fail-on-regression"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("max(40%"));
    // Bad input: exit 2, one line.
    let out = bin().arg("compare").arg(dir.path().join("nope")).arg(&a).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run directory or history id"));
}
