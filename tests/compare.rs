//! compare's verdicts: on synthetic results with known differences and
//! known spread, its exit code for CI, and on real runs of the null engine:
//! identical configs with repeats get no verdict of change (A/A), and a
//! known slowdown is called a regression.

use crate::common;

use std::path::Path;

use common::*;
use rumbench::report::compare::{self, Comparison, Group, Options, Verdict};
use rumbench::result::RunResult;

fn group(name: &str, runs: Vec<RunResult>) -> Group {
    Group {
        label: name.into(),
        runs: runs.into_iter().enumerate().map(|(i, r)| (format!("/r/{name}{i}"), r)).collect(),
    }
}

fn single(step: StepSpec) -> RunResult {
    run("2025-03-01T10:00:00+00:00", vec![config("rocksdb", "rocksdb", "7.8.3", &[step])])
}

fn line<'a>(c: &'a Comparison, step: &str, metric: &str) -> &'a compare::Line {
    let mi = rumbench::report::summary::metric_index(metric).unwrap();
    c.pairs[0].lines.iter().find(|l| l.step == step && l.metric == mi).unwrap_or_else(|| panic!("no {step} {metric}"))
}

/// Runs of one config at these rates (separate runs: compared unpaired).
fn rates(rs: &[u64]) -> Vec<RunResult> {
    rs.iter().map(|&r| single(StepSpec::steady("readrandom", "get", r, 10))).collect()
}

/// One run of configs a and b in rounds (as `--repeat`): per round (a's rate, b's rate).
fn in_rounds(rounds: &[(u64, u64)]) -> RunResult {
    let mut configs = Vec::new();
    for (i, &(ra, rb)) in rounds.iter().enumerate() {
        for (name, rate) in [("a", ra), ("b", rb)] {
            let mut c = config(name, "rocksdb", "7.8.3", &[StepSpec::steady("readrandom", "get", rate, 10)]);
            c.repeat = Some(i as u32 + 1);
            configs.push(c);
        }
    }
    let mut r = run("2025-03-01T10:00:00+00:00", configs);
    r.rounds = rounds.iter().map(|_| vec!["a".to_string(), "b".to_string()]).collect();
    r
}

#[test]
fn one_run_per_side_gives_ratios_and_no_verdict() {
    let c =
        compare::compare(&[group("a", rates(&[100_000])), group("b", rates(&[60_000]))], &Options::default()).unwrap();
    let l = line(&c, "readrandom", "ops_s");
    assert!((l.ratio.unwrap() - 0.6).abs() < 1e-9);
    assert_eq!(l.verdict, Verdict::OneRun);
    assert!(l.interval.is_none());
    assert_eq!(c.count(Verdict::Regression) + c.count(Verdict::Improvement), 0);
    assert!(rumbench::report::compare_text::render(&c).contains("no verdicts: one run per side"));
}

#[test]
fn runs_given_as_repeats_are_compared_unpaired() {
    // 90k..110k against 60k..62k, five runs each, throughput alone: beyond doubt.
    let ops_only = Options { metrics: Some(vec!["ops_s".into()]), ..Options::default() };
    let (base5, new5) =
        (rates(&[90_000, 100_000, 110_000, 95_000, 105_000]), rates(&[60_000, 62_000, 61_000, 60_500, 61_500]));
    let c = compare::compare(&[group("a", base5.clone()), group("b", new5.clone())], &ops_only).unwrap();
    let l = line(&c, "readrandom", "ops_s");
    assert_eq!(l.base, Some(100_000.0), "the median");
    assert!(!l.interval.unwrap().paired);
    assert_eq!(l.verdict, Verdict::Regression);
    // Three runs each: an interval, but too few repeats for a change.
    let c = compare::compare(
        &[group("a", rates(&[90_000, 100_000, 110_000])), group("b", rates(&[60_000, 62_000, 61_000]))],
        &ops_only,
    )
    .unwrap();
    assert_eq!(line(&c, "readrandom", "ops_s").verdict, Verdict::Inconclusive(Some(5)));
    // Judged among every metric (wider simultaneous intervals), the family is larger.
    let c = compare::compare(&[group("a", base5), group("b", new5)], &Options::default()).unwrap();
    assert!(c.pairs[0].family > 1);
    // -12% against a spread of +-10% with three runs each: undecided, and says how many would settle it.
    let c = compare::compare(
        &[group("a", rates(&[90_000, 100_000, 110_000])), group("b", rates(&[80_000, 88_000, 96_000]))],
        &ops_only,
    )
    .unwrap();
    assert!(
        matches!(line(&c, "readrandom", "ops_s").verdict, Verdict::Inconclusive(_)),
        "{:?}",
        line(&c, "readrandom", "ops_s").verdict
    );
    // The same figures, judged on one metric alone, with a wider threshold: the same.
    let opts = Options { threshold: 0.5, metrics: Some(vec!["ops_s".into()]) };
    let c = compare::compare(
        &[group("a", rates(&[90_000, 100_000, 110_000])), group("b", rates(&[80_000, 88_000, 96_000]))],
        &opts,
    )
    .unwrap();
    assert_eq!(c.pairs[0].lines.len(), 1);
    assert_eq!(c.pairs[0].family, 1);
    assert_eq!(c.pairs[0].lines[0].verdict, Verdict::Same);
}

#[test]
fn rounds_of_one_run_are_paired() {
    // The machine drifts +-30% between rounds; b is 10% faster within every round.
    let drift = [1.0, 1.3, 0.7, 1.1, 0.9];
    let rounds: Vec<(u64, u64)> = drift
        .iter()
        .enumerate()
        .map(|(i, &k)| ((100_000.0 * k) as u64, (110_000.0 * k * (1.0 + 0.002 * i as f64)) as u64))
        .collect();
    let c = compare::compare(&[group("r", vec![in_rounds(&rounds)])], &Options::default()).unwrap();
    let l = line(&c, "readrandom", "ops_s");
    let i = l.interval.unwrap();
    assert!(i.paired, "{i:?}");
    assert_eq!(l.verdict, Verdict::Improvement, "{i:?}");
    // The same values as separate runs: the drift swamps the difference.
    let (a, b): (Vec<u64>, Vec<u64>) = rounds.iter().copied().unzip();
    let c = compare::compare(&[group("a", rates(&a)), group("b", rates(&b))], &Options::default()).unwrap();
    assert!(matches!(line(&c, "readrandom", "ops_s").verdict, Verdict::Inconclusive(_)));
}

#[test]
fn syncs_have_no_direction_and_configs_pair_by_name() {
    let mk = |durable: bool| {
        run(
            "2025-03-01T10:00:00+00:00",
            vec![
                config("lmdb", "lmdb", "0.9", &[StepSpec::steady("fillrandom", "put", 200_000, 5)]),
                config(
                    "rocksdb",
                    "rocksdb",
                    "7.8.3",
                    &[StepSpec::steady("fillrandom", "put", 100_000, 5).durable(durable)],
                ),
            ],
        )
    };
    let c = compare::compare(&[group("a", vec![mk(false); 5]), group("b", vec![mk(true); 5])], &Options::default())
        .unwrap();
    assert_eq!(c.pairs.len(), 2);
    let p = c.pairs.iter().find(|p| p.base == "a/rocksdb").unwrap();
    assert_eq!(p.new, "b/rocksdb");
    let mi = rumbench::report::summary::metric_index("syncs_per_commit").unwrap();
    assert_eq!(
        p.lines.iter().find(|l| l.metric == mi).unwrap().verdict,
        Verdict::Changed,
        "0 -> 1 sync per commit is a change, not a regression"
    );
    // Unknown metrics are refused.
    let bad = Options { metrics: Some(vec!["opss".into()]), ..Default::default() };
    assert!(compare::compare(&[group("a", rates(&[1]))], &bad).is_err());
}

#[test]
fn fail_on_regression_acts_on_regression_verdicts_only() {
    let dir = tempfile::tempdir().unwrap();
    let save_all = |name: &str, rs: &[u64]| -> String {
        rates(rs)
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let d = dir.path().join(format!("{name}{i}"));
                save(r, &d);
                d.display().to_string()
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let (a, b, c) = (
        save_all("a", &[100_000, 101_000, 99_000, 100_200, 99_800]),
        save_all("b", &[70_000, 70_500, 69_500, 70_200, 69_800]),
        save_all("c", &[100_500, 99_500, 100_000, 100_100, 99_900]),
    );
    let bin = cli::rumbench;
    let out = bin().args(["compare", &a, &b, "--fail-on-regression"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("REGRESSION") && text.contains("simultaneous over the pair"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("confidence interval wholly beyond the threshold"));
    // Without the flag the same comparison succeeds; an unchanged one passes with it.
    assert_eq!(bin().args(["compare", &a, &b]).output().unwrap().status.code(), Some(0));
    let out = bin().args(["compare", &a, &c, "--fail-on-regression"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // One run per side: no verdict, so never a failure, however large the drop.
    let (a1, b1) = (a.split(',').next().unwrap(), b.split(',').next().unwrap());
    let out = bin().args(["compare", a1, b1, "--fail-on-regression"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0.700"));
    // A wide threshold in percent: -30% is within it.
    let out = bin().args(["compare", &a, &b, "--threshold", "40%", "--fail-on-regression"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("beyond +-40%"));
    // Bad input: exit 2, one line.
    let out = bin().arg("compare").arg(dir.path().join("nope")).arg(a1).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run directory or history id"));
}

/// A suite of null-engine configs, one per `spin_ns`, each run `repeat`
/// times in rounds (a short fillseq, then readrandom for a second); the
/// run's directory.
/// One null-engine run at a time: two at once on a 2-core machine widen each
/// other's intervals (the CPU figures are what these tests judge).
static ONE_RUN_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn null_run(dir: &Path, spins: &[u64], repeat: u32) -> std::path::PathBuf {
    let _alone = ONE_RUN_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut suite = String::from("[settings]\nnum = 20000\nseconds = 1\nsteps = [\"fillseq\", \"readrandom\"]\n");
    for (i, s) in spins.iter().enumerate() {
        suite.push_str(&format!("[[config]]\nname = \"n{i}\"\nengine = \"null\"\noptions = {{ spin_ns = {s} }}\n"));
    }
    let file = dir.join("suite.toml");
    std::fs::write(&file, suite).unwrap();
    let out_dir = dir.join("run");
    let out = cli::rumbench()
        .args(["run", "--no-history", "--progress", "off", "--repeat", &repeat.to_string(), "-c"])
        .arg(&file)
        .arg("-d")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out_dir
}

fn compare_dir(dir: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let out = cli::rumbench().arg("compare").arg(dir).args(extra).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn identical_configs_with_repeats_get_no_verdict_of_change() {
    let tmp = tempfile::tempdir().unwrap();
    // Five rounds: enough for a change verdict, so the assertion below can fail.
    let dir = null_run(tmp.path(), &[2000, 2000, 2000], 5);
    let result: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("result.json")).unwrap()).unwrap();
    // Rounds rotate: n0 n1 n2, n1 n2 n0, ...
    assert_eq!(result["rounds"][1], serde_json::json!(["n1", "n2", "n0"]));
    assert_eq!(result["configs"].as_array().unwrap().len(), 15);
    let summary = std::fs::read_to_string(dir.join("summary.txt")).unwrap();
    assert!(summary.contains("n0.r5") && summary.contains("ops/s range"), "{summary}");
    let (code, text) = compare_dir(&dir, &["--fail-on-regression"]);
    assert_eq!(code, Some(0), "{text}");
    let run = rumbench::result::load(&dir.join("result.json")).unwrap();
    let c = compare::compare(
        &[Group { label: "aa".into(), runs: vec![(dir.display().to_string(), run)] }],
        &Options::default(),
    )
    .unwrap();
    let changes: Vec<String> = c
        .pairs
        .iter()
        .flat_map(|p| {
            p.lines
                .iter()
                .filter(|l| l.verdict.is_change())
                .map(move |l| format!("{} -> {} {} {}", p.base, p.new, l.step, l.metric))
        })
        .collect();
    assert!(changes.is_empty(), "A/A verdicts: {changes:?}\n{text}");
    assert!(c.pairs.iter().all(|p| p.lines.iter().any(|l| l.interval.is_some_and(|i| i.paired))), "{text}");
}

#[test]
fn a_known_cpu_slowdown_is_called_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    // 50% more CPU per call in the engine. (20% is detected on a quiet machine,
    // bench/README.md "Verdict calibration"; under a parallel test suite on 2
    // cores the rounds' ratios spread by +-20%, and its interval reached 0.97.)
    let dir = null_run(tmp.path(), &[2000, 3000], 5);
    let (code, text) = compare_dir(&dir, &["--metrics", "cpu_us_op,ops_s", "--fail-on-regression"]);
    assert_eq!(code, Some(1), "{text}");
    let cpu =
        text.lines().find(|l| l.starts_with("readrandom") && l.contains("cpu/op")).unwrap_or_else(|| panic!("{text}"));
    assert!(cpu.contains("REGRESSION"), "{text}");
}

/// A RocksDB compression sweep on a fill that stays in the memtable never
/// compared compression: compare, the sweep table and the HTML report say
/// so beside the ratios. A sweep whose fill flushes carries no such note.
#[test]
fn a_setting_that_never_acted_is_said_beside_its_ratios() {
    let sweep = |extra: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["-e", "rocksdb", "-s", "fillrandom,readrandom", "-n", "30000", "--seconds", "0.5"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--sweep", "rocksdb.compression=none,snappy"]);
        let out = cli::run_ok(&args, dir.path());
        (dir, String::from_utf8_lossy(&out.stdout).into_owned())
    };
    const NEVER: &str = "compression never acted: nothing was flushed or compacted in this step";
    // 30000 entries of 116 bytes stay in the 64M memtable: nothing is flushed, there are no SST files.
    let (dir, run_text) = sweep(&[]);
    let (code, text) = compare_dir(dir.path(), &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(&format!("* fillrandom: {NEVER}")), "{text}");
    assert!(
        text.contains("* readrandom: compression never acted: nothing was flushed and there are no SST files"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("fillrandom *") && l.contains("ops/s")),
        "the step's rows are marked: {text}"
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    for (what, t) in [("run output", &run_text), ("summary.txt", &summary)] {
        assert!(t.contains(&format!("* fillrandom, c1 against base: {NEVER}")), "{what}: {t}");
    }
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains(&format!("\\* fillrandom, c1 against base: {NEVER}")), "{md}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains(r#"<tr class="unexercised">"#) && html.contains(NEVER), "the sweep table's note");
    assert!(
        html.contains(r#"<th class="l" title="a setting the config differs from the base in"#),
        "the step table's note column"
    );
    // A 256K memtable: the fill flushes, compression acted.
    let (dir, _) = sweep(&["-o", "write_buffer_size=256K", "-o", "statistics=true"]);
    let (code, text) = compare_dir(dir.path(), &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("never acted") && !text.contains("cannot tell"), "{text}");
    let summary = std::fs::read_to_string(dir.path().join("summary.txt")).unwrap();
    assert!(!summary.contains("never acted"), "{summary}");
}
