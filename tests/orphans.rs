//! What a killed run left running is ended by the next run (issue 69,
//! item 2). A module of its own: the stand-in it leaves would be ended by
//! any run of a module whose tests run beside it.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::cli;
use crate::common::procs::{assert_nothing_left_running, processes_mentioning};

/// A config process whose run was killed and that did not end itself
/// (stuck where its parent-death signal could not reach it) is ended by the
/// next run, which says so. The stand-in: a program that only sleeps, run
/// as `internal-run-config TASK 0` with init as its parent.
#[test]
fn the_next_run_ends_a_config_process_a_killed_run_left() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("stuck.c");
    std::fs::write(&src, "#include <unistd.h>\nint main(void) { for (;;) sleep(60); }\n").unwrap();
    let exe = t.path().join("stuck");
    assert!(Command::new("cc").arg("-o").arg(&exe).arg(&src).status().unwrap().success());
    let task = t.path().join("task-of-a-killed-run.json");
    // setsid -f: forked, so its parent is init, as a killed run's would be.
    let ok =
        Command::new("setsid").arg("-f").arg(&exe).arg("internal-run-config").arg(&task).arg("0").status().unwrap();
    assert!(ok.success());
    let find = || processes_mentioning(&task);
    let started = Instant::now();
    while find().is_empty() && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let stuck = find();
    assert_eq!(stuck.len(), 1, "the stand-in runs: {stuck:?}");
    let out_dir = t.path().join("out");
    let o = cli::rumbench_run()
        .args(["-e", "null", "-s", "fillseq", "-n", "100", "--output-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("ended a config process of a run that was killed") && err.contains(&task.display().to_string()),
        "{err}"
    );
    assert_nothing_left_running(&task, 5);
}
