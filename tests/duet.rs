//! Duets (`--duet`) and adaptive repeats (`--repeat auto`): the real binary
//! on the null engine, whose cost per call is a known count of iterations.

use std::io::Write;

use serde_json::Value;

use crate::common::cli::{self, load, refused, run_ok, text};

/// A suite of null configs, each (name, spin iterations per call), one readrandom step of `seconds`.
fn suite(dir: &std::path::Path, configs: &[(&str, u64)], seconds: f64) -> std::path::PathBuf {
    let path = dir.join("suite.toml");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "[settings]\nnum = 100000\nseconds = {seconds}\nsteps = [\"readrandom\"]").unwrap();
    for (name, spin) in configs {
        writeln!(f, "[[config]]\nname = \"{name}\"\nengine = \"null\"\noptions = {{ spin_iterations = {spin} }}")
            .unwrap();
    }
    path
}

fn configs(r: &Value) -> &Vec<Value> {
    r["configs"].as_array().unwrap()
}

#[test]
fn duets_that_cannot_be_fair_or_cannot_run_are_refused() {
    let e = refused(&["-e", "null", "--duet"]);
    assert!(e.contains("--duet runs two configs at the same time"), "{e}");
    let e = refused(&["-e", "null", "--target", "postgres://u@127.0.0.1:1/db", "--duet"]);
    assert!(e.contains("both sides of a duet would share it"), "{e}");
    let t = tempfile::tempdir().unwrap();
    let two = suite(t.path(), &[("a", 0), ("b", 0)], 1.0);
    let e = refused(&["-c", two.to_str().unwrap(), "--duet", "--profile"]);
    assert!(e.contains("--profile"), "{e}");
    let e = refused(&["-e", "null", "--repeat", "auto"]);
    assert!(e.contains("give two or more configs"), "{e}");
    let e = refused(&["-e", "null", "--repeat", "auto:2"]);
    assert!(e.contains("at least 3 rounds"), "{e}");
    let e = refused(&["-e", "null", "--repeat", "5", "--threshold", "3%"]);
    assert!(e.contains("give it with --repeat auto"), "{e}");
}

#[test]
fn a_duet_runs_both_sides_at_once_each_on_its_own_cpus() {
    let t = tempfile::tempdir().unwrap();
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let suite = suite(t.path(), &[("base", 200), ("plus", 400), ("third", 200)], 1.0);
    let out = t.path().join("run");
    if cpus < 2 {
        let e = refused(&["-c", suite.to_str().unwrap(), "--duet"]);
        assert!(e.contains("a duet needs two or more"), "{e}");
        return;
    }
    let o = run_ok(&["-c", suite.to_str().unwrap(), "--duet", "--repeat", "2"], &out);
    let r = load(&out);
    // Two rounds of the base beside each other config: four duets.
    let names: Vec<String> = configs(&r)
        .iter()
        .map(|c| format!("{}.r{}", c["name"].as_str().unwrap(), c["repeat"].as_u64().unwrap()))
        .collect();
    assert_eq!(names, ["base.r1", "plus.r1", "base.r2", "third.r2", "base.r3", "plus.r3", "base.r4", "third.r4"]);
    let halves = &r["duet"]["halves"];
    for (i, c) in configs(&r).iter().enumerate() {
        let d = &c["duet"];
        assert_eq!(c["status"], "completed", "{c}");
        // The base takes the first half in odd rounds.
        let round = d["round"].as_u64().unwrap();
        let base = i % 2 == 0;
        let half = if base == (round % 2 == 1) { 0 } else { 1 };
        assert_eq!(d["cpus"], halves[half], "{}: {d}", names[i]);
        assert_eq!(d["partner"].as_str().unwrap(), names[i ^ 1]);
        let step = &c["steps"][0];
        assert!(step["duet"]["overlap"].as_f64().unwrap() > 0.9, "{step}");
        // The host's CPU is both sides': no side's figure.
        assert!(step["metrics"]["host_cpu_us_op"].is_null());
        let missing = step["metrics"]["missing"].as_array().unwrap();
        assert!(missing
            .iter()
            .any(|m| m["metric"] == "host_cpu_us_op" && m["reason"].as_str().unwrap().contains("both sides'")));
    }
    // Both sides' clients were released at the same moment.
    let started = |i: usize| configs(&r)[i]["steps"][0]["start"]["unix_s"].as_f64().unwrap();
    assert!((started(0) - started(1)).abs() < 0.05, "{} {}", started(0), started(1));
    // No side's own directory is left, and the side's lines made it to the terminal whole.
    assert!(!std::fs::read_dir(&out).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with(".duet")));
    let err = text(&o);
    assert!(err.contains("base (null, duet round 1 of 2, beside plus.r1, CPU"), "{err}");
    // One CPU a side (this machine's halves): what else runs lands on one side at a time.
    let one_a_side = halves[0].as_array().unwrap().len() < 2;
    assert_eq!(err.contains("into one a side"), one_a_side, "{err}");
    // compare pairs each config with the base's run beside it.
    let c = cli::rumbench().arg("compare").arg(&out).output().unwrap();
    let report = text(&c);
    assert!(report.contains("note: duets:"), "{report}");
    assert!(report.contains("base -> plus") && report.contains("base -> third"), "{report}");
}

#[test]
fn adaptive_repeats_stop_when_decided_and_at_their_most() {
    let t = tempfile::tempdir().unwrap();
    // Twice the cost: decided as soon as a change may be called (5 rounds).
    let suite_path = suite(t.path(), &[("base", 200), ("double", 400)], 0.5);
    let out = t.path().join("decided");
    let o = run_ok(&["-c", suite_path.to_str().unwrap(), "--repeat", "auto:9"], &out);
    let r = load(&out);
    let a = &r["adaptive"];
    assert_eq!(a["decided"], true, "{a}\n{}", text(&o));
    let rounds = a["rounds"].as_u64().unwrap();
    assert!((5..9).contains(&rounds), "{a}");
    assert_eq!(configs(&r).len() as u64, 2 * rounds, "no round after the deciding one");
    assert_eq!(r["rounds"].as_array().unwrap().len() as u64, rounds);
    assert_eq!(a["design"]["max_rounds"], 9);
    let err = text(&o);
    assert!(err.contains(&format!("--repeat auto: after round {rounds}: all 2 primary verdicts decided")), "{err}");
    assert!(err.contains("--repeat auto: after round 3: 0 of 2 decided"), "{err}");
    // At most 3 rounds: a change needs 5, so nothing is decided and it stops at 3.
    let out = t.path().join("most");
    let o = run_ok(&["-c", suite_path.to_str().unwrap(), "--repeat", "auto:3"], &out);
    let r = load(&out);
    assert_eq!(r["adaptive"]["decided"], false);
    assert_eq!(r["adaptive"]["rounds"], 3);
    assert_eq!(configs(&r).len(), 6);
    assert!(r["adaptive"]["undecided"].as_array().unwrap().len() == 2, "{}", r["adaptive"]);
    assert!(text(&o).contains("after round 3 (the most): 2 of 2 primary verdicts undecided"), "{}", text(&o));
}
