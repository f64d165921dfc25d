//! The durability matrix of a crash test (`rumbench crashtest`): one row
//! per config with what it acknowledged, lost and gave back wrong, its syncs
//! per commit, its recovery time and the verdict; contradictions between
//! the verdict and the sync count below. A neutral table: the formats
//! (text, HTML, markdown) render it.

use crate::result::crashtest::{CrashTest, NOT_A_BENCHMARK};
use crate::result::RunResult;

pub const TITLE: &str = "Durability matrix (crash test)";

pub const HEADER: &[&str] = &[
    "config",
    "settings",
    "crashes",
    "acked",
    "lost",
    "wrong",
    "never written",
    "syncs/commit",
    "recovery p50 s",
    "recovery max s",
    "verdict",
];

#[derive(Debug, Clone)]
pub struct Matrix {
    /// What the test was, in words: crashes, threads, kill window, seed, filesystem.
    pub heading: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Contradictions and errors, each "config: text".
    pub notes: Vec<String>,
}

/// The options that differ between the configs (all of them for one config
/// would be a wall of defaults: then its durability options only).
fn settings_text(test: &CrashTest, i: usize) -> String {
    let c = &test.configs[i];
    if let Some(lines) = &c.server_config {
        // A server's settings are its config lines (its options say how to reach it).
        return if lines.is_empty() { "server defaults".into() } else { lines.join("; ") };
    }
    let differing: Vec<String> = c
        .options
        .iter()
        .filter(|(k, v)| test.configs.iter().any(|o| o.engine == c.engine && o.options.get(*k) != Some(v)))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !differing.is_empty() {
        return differing.join(" ");
    }
    let durability = ["sync", "wal", "sync_mode", "synchronous", "journal_mode", "transaction_sync"];
    c.options
        .iter()
        .filter(|(k, _)| durability.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}")).unwrap_or_else(|| "-".into())
}

pub fn matrix(run: &RunResult) -> Option<Matrix> {
    let test = run.crashtest.as_ref()?;
    let heading = vec![
        format!(
            "{} crashes per config, {} writer threads, {}-byte values, each kill {}-{} ms after the engine opened (seed {}).",
            test.crashes, test.threads, test.value_size, test.kill_after_ms.0, test.kill_after_ms.1, test.seed
        ),
        format!("Filesystem: {}.", test.filesystem),
        format!("A {NOT_A_BENCHMARK}."),
    ];
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for (i, c) in test.configs.iter().enumerate() {
        let t = &c.totals;
        rows.push(vec![
            c.name.clone(),
            settings_text(test, i),
            t.crashes.to_string(),
            t.acknowledged.to_string(),
            t.lost.to_string(),
            t.wrong_values.to_string(),
            t.never_written.to_string(),
            opt(t.syncs_per_commit, 3),
            opt(t.recovery_s_median, 3),
            opt(t.recovery_s_max, 3),
            t.verdict.clone(),
        ]);
        if let Some(x) = &t.contradiction {
            notes.push(format!("{}: CONTRADICTION: {x}", c.name));
        }
        if let Some(e) = &c.error {
            notes.push(format!("{}: {}: {e}", c.name, status_word(c.status)));
        }
    }
    Some(Matrix { heading, rows, notes })
}

fn status_word(s: crate::result::Status) -> &'static str {
    match s {
        crate::result::Status::Interrupted => "interrupted",
        crate::result::Status::NotRun => "not run",
        _ => "stopped",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::crashtest::{CrashConfig, CrashTotals};

    fn config(name: &str, sync: &str, totals: CrashTotals) -> CrashConfig {
        CrashConfig {
            name: name.into(),
            engine: "rocksdb".into(),
            options: [("sync".to_string(), sync.to_string()), ("wal".to_string(), "true".to_string())].into(),
            server_config: None,
            provenance: vec![],
            effective_options: vec![],
            status: crate::result::Status::Completed,
            error: None,
            crash_records: vec![],
            totals,
        }
    }

    #[test]
    fn the_matrix_shows_differing_settings_and_contradictions() {
        let mut run = crate::result::fixtures::run(vec![]);
        let lying = CrashTotals {
            crashes: 2,
            acknowledged: 10,
            lost: 3,
            contradiction: Some("synced yet lost".into()),
            verdict: "not durable".into(),
            ..Default::default()
        };
        run.crashtest = Some(CrashTest {
            crashes: 2,
            threads: 1,
            value_size: 100,
            kill_after_ms: (1, 2),
            seed: 7,
            fs_semantics: "posix".into(),
            filesystem: "lazy".into(),
            configs: vec![
                config("a", "true", CrashTotals { verdict: "durable as run".into(), ..Default::default() }),
                config("b", "false", lying),
            ],
        });
        let m = matrix(&run).unwrap();
        assert_eq!(m.rows[0][1], "sync=true", "only what differs");
        assert_eq!(m.rows[1][4], "3");
        assert_eq!(m.notes, vec!["b: CONTRADICTION: synced yet lost"]);
        let mut pg = config("pg", "", CrashTotals::default());
        pg.server_config = Some(vec!["fsync = off".into(), "full_page_writes = off".into()]);
        run.crashtest.as_mut().unwrap().configs.push(pg);
        assert_eq!(matrix(&run).unwrap().rows[2][1], "fsync = off; full_page_writes = off", "a server's config lines");
        assert!(matrix(&crate::result::fixtures::run(vec![])).is_none());
    }
}
