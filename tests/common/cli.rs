//! Running the real binary in a test: the one builder of its command
//! (`rumbench()`), which keeps it off the user's history and cache; `rumbench
//! run` without progress or history, into a directory of the test's, and its
//! result read back.
//!
//! Every test starts rumbench through `rumbench()` (or a helper here built
//! on it): a test that ran the bare binary would record its runs in the
//! developer's own history and read or fill the developer's cache (a null
//! engine calibration, RocksDB builds, PostgreSQL downloads), so that what
//! it found there, not what it did, decided its outcome.
//! A test of the root crate (`architecture_tests`) checks that no test
//! file builds the command itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

/// The directory under which each command gets its own history and cache:
/// `$TMPDIR/rumbench-tests.<pid>`, made on first use and removed when the
/// test process exits.
static ROOT: OnceLock<PathBuf> = OnceLock::new();

/// Removes the isolation directory as the test process exits (that of one
/// killed before it could is removed by the next test process to start).
extern "C" fn remove_root() {
    if let Some(root) = ROOT.get() {
        let _ = std::fs::remove_dir_all(root);
    }
}

fn isolation_root() -> &'static Path {
    ROOT.get_or_init(|| {
        const PREFIX: &str = "rumbench-tests.";
        let tmp = std::env::temp_dir();
        // Those of test processes that were killed and could not remove theirs.
        for e in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.strip_prefix(PREFIX).and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|p| p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let root = tmp.join(format!("{PREFIX}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        // SAFETY: registers a function without arguments that only removes files.
        unsafe { libc::atexit(remove_root) };
        root
    })
}

/// Makes `cmd` (rumbench, or a shell that runs it) use a history and a
/// cache of its own, new and empty: `XDG_DATA_HOME` (the default history,
/// `$XDG_DATA_HOME/rumbench/history.sqlite`, and the device measurements
/// in it) and `XDG_CACHE_HOME` (`$XDG_CACHE_HOME/rumbench`: RocksDB
/// builds, PostgreSQL binaries, the null engine's calibration) under a
/// directory of this command's. A `.env` given after it wins: a test that
/// names its history or cache keeps its own.
pub fn isolate(cmd: &mut Command) -> &mut Command {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let home = isolation_root().join(NEXT.fetch_add(1, Ordering::Relaxed).to_string());
    cmd.env("XDG_DATA_HOME", home.join("data")).env("XDG_CACHE_HOME", home.join("cache"))
}

/// The rumbench binary under test, isolated from the user's history and
/// cache (`isolate`). The only place a test makes this command.
pub fn rumbench() -> Command {
    let mut c = Command::cargo_bin("rumbench").unwrap();
    isolate(&mut c);
    c
}

/// The path of the rumbench binary under test, for a shell that runs it
/// (its command made with `isolate`) or the files built beside it.
pub fn exe() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rumbench")
}

/// `rumbench run --progress off --no-history`, isolated as `rumbench()`.
pub fn rumbench_run() -> Command {
    let mut c = rumbench();
    c.args(["run", "--progress", "off", "--no-history"]);
    c
}

/// Where a test wants rumbench's history or cache other than the new,
/// empty ones each command gets: opt-in, for the few tests that need it.
pub trait Isolation {
    /// The default history under `xdg_data_home` (as `XDG_DATA_HOME`), a
    /// directory of the test's where it can see what was created.
    fn data_in(&mut self, xdg_data_home: &Path) -> &mut Self;
    /// The cache at `xdg_cache_home` (as `XDG_CACHE_HOME`): one the test
    /// looks into, or one shared between tests and runs of the suite
    /// because what is in it is expensive (a RocksDB version built for 3
    /// to 20 minutes, PostgreSQL downloaded from the npm registry).
    fn cache_in(&mut self, xdg_cache_home: &Path) -> &mut Self;
    /// The user's own cache (`$XDG_CACHE_HOME`, else ~/.cache), for a test
    /// of what the user built there and nobody else can have (an older
    /// RocksDB built by `rumbench rocksdb-versions --build`).
    fn users_cache(&mut self) -> &mut Self;
}

impl Isolation for Command {
    fn data_in(&mut self, xdg_data_home: &Path) -> &mut Self {
        self.env("XDG_DATA_HOME", xdg_data_home)
    }

    fn cache_in(&mut self, xdg_cache_home: &Path) -> &mut Self {
        self.env("XDG_CACHE_HOME", xdg_cache_home)
    }

    fn users_cache(&mut self) -> &mut Self {
        match std::env::var_os("XDG_CACHE_HOME") {
            Some(x) => self.env("XDG_CACHE_HOME", x),
            None => self.env_remove("XDG_CACHE_HOME"),
        }
    }
}

/// `rumbench run --progress off --no-history ARGS --output-dir DIR`, which
/// must succeed (its stderr otherwise in the failure).
pub fn run_ok(args: &[&str], dir: &Path) -> Output {
    let out = rumbench_run().args(args).arg("--output-dir").arg(dir).output().unwrap();
    assert!(out.status.success(), "rumbench {args:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// `rumbench run --progress off --no-history ARGS` refused before anything
/// starts: exit code 2, one line on stderr, no output directory written.
/// Returns stderr, for what the line says.
pub fn refused(args: &[&str]) -> String {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let o = rumbench_run().args(args).arg("--output-dir").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
    assert!(!out.exists(), "{args:?}: nothing written");
    err
}

/// A run directory's result.json.
pub fn load(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap()
}

/// Runs `cmd` with its results written to `out_dir`, whatever its outcome.
pub fn run_into(cmd: &mut Command, out_dir: &Path) -> Output {
    cmd.arg("--output-dir").arg(out_dir).output().unwrap()
}

/// A finished command's stdout and stderr together, for assertions and messages.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}
