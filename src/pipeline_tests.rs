//! Tests of the whole pipeline in one process: a plan built as the command
//! line builds it, run by the runner, written by the reports. They sit above
//! every module they use, so no module imports another for a test.

use crate::planner::{PlanInputs, SettingsArgs};
use crate::runner::{run_in_process, RunOptions};

/// A real assertion-enabled build: scripts/test.sh runs this test once
/// more with RUMBENCH_LEVELDB_BUILD_TYPE=Debug, which makes leveldb-sys
/// build LevelDB without NDEBUG. That run must be warned about in the
/// run's warnings, result.json, summary.txt, summary.md and report.html; the
/// Release build of every other run must not be.
#[test]
fn an_engine_built_with_assertions_is_warned_about_in_the_run_and_the_report() {
    let on_purpose = std::env::var("RUMBENCH_LEVELDB_BUILD_TYPE").is_ok_and(|t| t == "Debug");
    let dir = tempfile::tempdir().unwrap();
    let flags = SettingsArgs { steps: Some(vec!["fillseq".into()]), num: Some(2000), ..Default::default() };
    let plan =
        crate::planner::build(&PlanInputs { engines: vec!["leveldb".into()], flags, ..Default::default() }).unwrap();
    let out = dir.path().join("out");
    let opts = RunOptions {
        output_dir: out.clone(),
        db_dir: Some(dir.path().join("db")),
        keep_db: false,
        use_existing_db: false,
        replace_output: false,
        command_line: vec!["rumbench".into()],
        progress: crate::driver::progress::ProgressMode::Off,
        device: Default::default(),
        schedule: None,
        profile_dir: None,
    };
    let run = run_in_process(&plan, &opts).unwrap();
    let ndebug = run.configs[0].provenance.iter().find(|(k, _)| k == "build.ndebug").map(|(_, v)| v.as_str());
    assert_eq!(ndebug, Some(if on_purpose { "false" } else { "true" }), "{:?}", run.configs[0].provenance);
    let warning = "leveldb was built with assertions on";
    let loaded = [crate::report::LoadedRun { label: "run".into(), dir: out.clone(), run: run.clone() }];
    crate::report::write_html(&loaded, None, None, &out.join("report.html")).unwrap();
    let warned = [
        ("the run", run.run_warnings().iter().any(|w| w.contains(warning))),
        ("result.json", std::fs::read_to_string(out.join("result.json")).unwrap().contains(warning)),
        ("summary.txt", std::fs::read_to_string(out.join("summary.txt")).unwrap().contains(warning)),
        ("summary.md", std::fs::read_to_string(out.join("summary.md")).unwrap().contains(warning)),
        ("report.html", std::fs::read_to_string(out.join("report.html")).unwrap().contains(warning)),
    ];
    for (place, w) in warned {
        assert_eq!(w, on_purpose, "assertion warning in {place}: {w}, LevelDB built with assertions: {on_purpose}");
    }
}
