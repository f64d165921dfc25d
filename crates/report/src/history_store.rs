//! What the history holds: runs recorded (and found again under
//! directories by `rebuild`), listed by a filter, the series of their
//! figures read from result.json, and device baselines. Opening the
//! database is `history_db`'s; showing what is read, `history`'s.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rusqlite::{params, OptionalExtension};

use super::history_db::History;
use crate::measure::device_baseline::StoredBaseline;
use crate::result::{self as json, RunResult, Status};

fn status_text(s: Status) -> &'static str {
    match s {
        Status::Running => "running",
        Status::Completed => "completed",
        Status::Interrupted => "interrupted",
        Status::Failed => "failed",
        Status::NotRun => "not run",
    }
}

/// A run directory's canonical form (the history's key).
pub fn canonical_dir(dir: &Path) -> Result<PathBuf> {
    let dir = if dir.file_name().is_some_and(|f| f == "result.json") { dir.parent().unwrap_or(dir) } else { dir };
    std::fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))
}

/// One run as listed.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: i64,
    pub dir: String,
    pub started_at: String,
    pub status: String,
    pub rumbench_version: String,
    /// (config, engine, engine version)
    pub configs: Vec<(String, String, Option<String>)>,
    pub steps: Vec<String>,
    /// (config, ops/s) of the step asked for with --step.
    pub step_rates: Vec<(String, Option<f64>)>,
    pub dir_exists: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub engine: Option<String>,
    /// Prefix of the engine version or of the rumbench version.
    pub version: Option<String>,
    pub step: Option<String>,
    pub config: Option<String>,
    /// Dates: YYYY-MM-DD, optionally with THH:MM[:SS]; `until` includes that day.
    pub since: Option<String>,
    pub until: Option<String>,
}

/// Accept YYYY-MM-DD[THH:MM[:SS]] (a space also separates the time).
pub fn check_date(s: &str) -> Result<String> {
    let s = s.trim().replacen(' ', "T", 1);
    let ok = chrono::NaiveDate::parse_from_str(&s, "%Y-%m-%d").is_ok()
        || chrono::NaiveDateTime::parse_from_str(&s, "%Y-%m-%dT%H:%M").is_ok()
        || chrono::NaiveDateTime::parse_from_str(&s, "%Y-%m-%dT%H:%M:%S").is_ok();
    if !ok {
        bail!("invalid date '{s}' (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS])");
    }
    Ok(s)
}

impl History {
    /// Record a run (or update it when its directory is already known: the
    /// id stays). Returns the id.
    pub fn record(&mut self, dir: &Path, run: &RunResult) -> Result<i64> {
        let dir = canonical_dir(dir)?;
        let dir_text = dir.to_string_lossy().to_string();
        let hostname = run
            .system
            .as_ref()
            .and_then(|s| s.get("hostname"))
            .and_then(|h| h.get("value").or(Some(h)))
            .and_then(|v| v.as_str())
            .map(String::from);
        let tx = self.conn.transaction()?;
        let existing: Option<i64> =
            tx.query_row("SELECT id FROM runs WHERE dir = ?1", [&dir_text], |r| r.get(0)).optional()?;
        let now = chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false);
        let command_line = serde_json::to_string(&run.command_line)?;
        let status = status_text(run.status);
        let id = match existing {
            Some(id) => {
                tx.execute(
                    "UPDATE runs SET started_at=?2, finished_at=?3, status=?4, rumbench_version=?5, git_commit=?6, suite=?7, \
                     hostname=?8, command_line=?9, recorded_at=?10 WHERE id=?1",
                    params![id, run.started_at, run.finished_at, status, run.rumbench_version, run.git_commit, run.suite, hostname, command_line, now],
                )?;
                tx.execute("DELETE FROM run_configs WHERE run_id = ?1", [id])?;
                tx.execute("DELETE FROM run_steps WHERE run_id = ?1", [id])?;
                id
            }
            None => {
                tx.execute(
                    "INSERT INTO runs (dir, started_at, finished_at, status, rumbench_version, git_commit, suite, hostname, command_line, recorded_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![dir_text, run.started_at, run.finished_at, status, run.rumbench_version, run.git_commit, run.suite, hostname, command_line, now],
                )?;
                tx.last_insert_rowid()
            }
        };
        for (ci, c) in run.configs.iter().enumerate() {
            tx.execute(
                "INSERT INTO run_configs (run_id, seq, name, engine, engine_version, options, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id, ci as i64, c.name, c.engine, c.engine_version, serde_json::to_string(&c.options)?, status_text(c.status)],
            )?;
            for (si, s) in c.steps.iter().enumerate() {
                let p99 = s.main_op().filter(|o| o.latency.count > 0).map(|o| o.latency.p99_us);
                tx.execute(
                    "INSERT INTO run_steps (run_id, config_seq, seq, step, status, ops_s, p99_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![id, ci as i64, si as i64, s.name, status_text(s.status), s.ops_s, p99],
                )?;
            }
        }
        tx.commit()?;
        Ok(id)
    }

    /// Store a measured device baseline (every measurement is kept).
    pub fn store_device_baseline(&mut self, b: &StoredBaseline) -> Result<()> {
        self.conn.execute(
            "INSERT INTO device_baselines (device_key, measured_at, dir, rumbench_version, fio) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![b.device_key, b.measured_at, b.dir.to_string_lossy(), env!("CARGO_PKG_VERSION"), serde_json::to_string(&b.fio)?],
        )?;
        Ok(())
    }

    /// The latest baseline measured on `device_key` (None in a history
    /// from before the device table).
    pub fn latest_device_baseline(&self, device_key: &str) -> Result<Option<StoredBaseline>> {
        let has_table: bool = self.conn.query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'device_baselines'",
            [],
            |r| r.get(0),
        )?;
        if !has_table {
            return Ok(None);
        }
        let row: Option<(String, String, String)> = self
            .conn
            .query_row(
                "SELECT measured_at, dir, fio FROM device_baselines WHERE device_key = ?1 ORDER BY measured_at DESC, id DESC LIMIT 1",
                [device_key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((measured_at, dir, fio)) = row else { return Ok(None) };
        let fio = serde_json::from_str(&fio)
            .with_context(|| format!("the device baseline of {device_key} in {} is unreadable", self.path.display()))?;
        Ok(Some(StoredBaseline { device_key: device_key.to_string(), measured_at, dir: PathBuf::from(dir), fio }))
    }

    /// The directory of run `id`.
    pub fn dir_of(&self, id: i64) -> Result<PathBuf> {
        let dir: Option<String> =
            self.conn.query_row("SELECT dir FROM runs WHERE id = ?1", [id], |r| r.get(0)).optional()?;
        match dir {
            Some(d) => Ok(PathBuf::from(d)),
            None => bail!("no run #{id} in the history {}", self.path.display()),
        }
    }

    /// Runs matching the filter, oldest first.
    pub fn list(&self, f: &Filter) -> Result<Vec<Entry>> {
        let mut sql =
            String::from("SELECT r.id, r.dir, r.started_at, r.status, r.rumbench_version FROM runs r WHERE 1=1");
        let mut args: Vec<String> = Vec::new();
        fn arg(sql: &mut String, args: &mut Vec<String>, clause: &str, v: String) {
            args.push(v);
            sql.push_str(&clause.replace('?', &format!("?{}", args.len())));
        }
        if let Some(e) = &f.engine {
            arg(
                &mut sql,
                &mut args,
                " AND EXISTS (SELECT 1 FROM run_configs c WHERE c.run_id = r.id AND c.engine = ?)",
                e.clone(),
            );
        }
        if let Some(c) = &f.config {
            arg(
                &mut sql,
                &mut args,
                " AND EXISTS (SELECT 1 FROM run_configs c WHERE c.run_id = r.id AND c.name = ?)",
                c.clone(),
            );
        }
        if let Some(v) = &f.version {
            let pat = format!("{}%", v.replace('%', "\\%").replace('_', "\\_"));
            args.push(pat);
            let n = args.len();
            sql.push_str(&format!(
                " AND (r.rumbench_version LIKE ?{n} ESCAPE '\\' OR EXISTS (SELECT 1 FROM run_configs c WHERE c.run_id = r.id AND c.engine_version LIKE ?{n} ESCAPE '\\'))"
            ));
        }
        if let Some(s) = &f.step {
            arg(
                &mut sql,
                &mut args,
                " AND EXISTS (SELECT 1 FROM run_steps s WHERE s.run_id = r.id AND s.step = ?)",
                s.clone(),
            );
        }
        if let Some(d) = &f.since {
            arg(&mut sql, &mut args, " AND r.started_at >= ?", check_date(d)?);
        }
        if let Some(d) = &f.until {
            let d = check_date(d)?;
            args.push(d);
            let n = args.len();
            sql.push_str(&format!(" AND substr(r.started_at, 1, length(?{n})) <= ?{n}"));
        }
        sql.push_str(" ORDER BY r.started_at, r.id");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| {
            Ok(Entry {
                id: r.get(0)?,
                dir: r.get(1)?,
                started_at: r.get(2)?,
                status: r.get(3)?,
                rumbench_version: r.get(4)?,
                configs: Vec::new(),
                steps: Vec::new(),
                step_rates: Vec::new(),
                dir_exists: false,
            })
        })?;
        let mut out: Vec<Entry> = rows.collect::<rusqlite::Result<_>>()?;
        for e in &mut out {
            let mut c = self
                .conn
                .prepare("SELECT name, engine, engine_version FROM run_configs WHERE run_id = ?1 ORDER BY seq")?;
            e.configs =
                c.query_map([e.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<_>>()?;
            let mut s = self.conn.prepare("SELECT step FROM run_steps WHERE run_id = ?1 AND config_seq = (SELECT MIN(config_seq) FROM run_steps WHERE run_id = ?1) ORDER BY seq")?;
            e.steps = s.query_map([e.id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            if let Some(step) = &f.step {
                let mut q = self.conn.prepare(
                    "SELECT c.name, s.ops_s FROM run_steps s JOIN run_configs c ON c.run_id = s.run_id AND c.seq = s.config_seq \
                     WHERE s.run_id = ?1 AND s.step = ?2 ORDER BY s.config_seq, s.seq",
                )?;
                e.step_rates = q
                    .query_map(params![e.id, step], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
            }
            e.dir_exists = Path::new(&e.dir).join("result.json").is_file();
        }
        Ok(out)
    }

    /// Index every result.json under `roots` (searched recursively); runs
    /// already known keep their ids; entries whose directory no longer has a
    /// result.json are removed. Returns (recorded, removed, skipped files).
    pub fn rebuild(&mut self, roots: &[PathBuf]) -> Result<RebuildReport> {
        let mut found = Vec::new();
        for root in roots {
            if !root.exists() {
                bail!("{} does not exist", root.display());
            }
            find_results(root, 0, &mut found);
        }
        found.sort();
        found.dedup();
        // Oldest first, so new ids follow the order the runs were made.
        let mut runs: Vec<(PathBuf, RunResult)> = Vec::new();
        let mut report = RebuildReport::default();
        for path in found {
            match json::load(&path) {
                Ok(r) => runs.push((path.parent().unwrap_or(Path::new(".")).to_path_buf(), r)),
                Err(e) => report.skipped.push(format!("{}: {e:#}", path.display())),
            }
        }
        runs.sort_by(|a, b| a.1.started_at.cmp(&b.1.started_at).then(a.0.cmp(&b.0)));
        for (dir, run) in &runs {
            self.record(dir, run)?;
            report.recorded += 1;
        }
        let gone: Vec<(i64, String)> = {
            let mut stmt = self.conn.prepare("SELECT id, dir FROM runs")?;
            let all: Vec<(i64, String)> =
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
            all.into_iter().filter(|(_, d)| !Path::new(d).join("result.json").is_file()).collect()
        };
        for (id, _) in &gone {
            self.conn.execute("DELETE FROM runs WHERE id = ?1", [id])?;
        }
        report.removed = gone.len();
        Ok(report)
    }

    pub fn count(&self) -> Result<i64> {
        Ok(self.conn.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))?)
    }
}

/// The runs of one series, oldest first: one machine (host name and CPU
/// model), engine, config, step and step settings, so that a change in it is
/// never a change of machine or settings.
#[derive(Debug, Clone)]
pub struct Series {
    pub machine: String,
    pub engine: String,
    pub config: String,
    pub step: String,
    /// The step's settings ("threads=1 num=1000000 ..."), as the step recorded them.
    pub settings: String,
    /// The summary metric's key (ops_s, p99_us, ...).
    pub metric: &'static str,
    pub points: Vec<Point>,
}

/// One run's figure in a series, with what may explain a change.
#[derive(Debug, Clone)]
pub struct Point {
    pub id: i64,
    pub started_at: String,
    pub dir: String,
    pub value: f64,
    /// (what, value): rumbench's version, commit and build, the engine's
    /// version and build, the config's options, the machine's details.
    pub context: Vec<(String, String)>,
}

/// The machine's details whose change is worth naming (the host name and
/// CPU model separate series instead).
const MACHINE_DETAILS: &[&str] = &[
    "kernel_release",
    "logical_cpus",
    "online_cpus",
    "mem_total_bytes",
    "swap_total_bytes",
    "clocksource",
    "governor",
    "turbo",
    "transparent_hugepages",
];

fn system_text(run: &RunResult, key: &str) -> Option<String> {
    let v = run.system.as_ref()?.get(key)?;
    let v = v.get("value").unwrap_or(v);
    match v {
        serde_json::Value::Object(_) => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn machine_of(run: &RunResult) -> String {
    let host = system_text(run, "hostname").unwrap_or_else(|| "unknown host".into());
    let cpu = system_text(run, "cpu_model").unwrap_or_else(|| "unknown CPU".into());
    format!("{host} ({cpu})")
}

fn context_of(run: &RunResult, c: &json::ConfigResult) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![("rumbench version".into(), run.rumbench_version.clone())];
    let mut add = |what: String, value: Option<&String>| {
        if let Some(v) = value {
            out.push((what, v.clone()));
        }
    };
    add("rumbench commit".into(), run.git_commit.as_ref());
    run.build.iter().for_each(|(k, v)| add(format!("rumbench build {k}"), Some(v)));
    add("engine version".into(), c.engine_version.as_ref());
    c.provenance.iter().filter(|(k, _)| k != "version").for_each(|(k, v)| add(format!("engine {k}"), Some(v)));
    add("allocator".into(), c.allocator_in_use.as_ref());
    c.options.iter().for_each(|(k, v)| add(format!("option {k}"), Some(v)));
    for key in MACHINE_DETAILS {
        add(format!("machine {key}"), system_text(run, key).as_ref());
    }
    out
}

impl History {
    /// The series of each of `metrics` (summary metric keys) over the runs
    /// matching `f`: every completed step with a figure, read from the runs'
    /// result.json. Also returns the runs that could not be read, with why.
    pub fn series(&self, f: &Filter, metrics: &[&'static str]) -> Result<(Vec<Series>, Vec<String>)> {
        use crate::summary::{metric_index, parameter_texts, step_values};
        let mut out: Vec<Series> = Vec::new();
        let mut skipped = Vec::new();
        for e in self.list(f)? {
            let run = match json::load(&Path::new(&e.dir).join("result.json")) {
                Ok(r) => r,
                Err(err) => {
                    skipped.push(format!("#{}: {err:#}", e.id));
                    continue;
                }
            };
            let machine = machine_of(&run);
            for c in &run.configs {
                if f.engine.as_ref().is_some_and(|x| x != &c.engine) || f.config.as_ref().is_some_and(|x| x != &c.name)
                {
                    continue;
                }
                let context = context_of(&run, c);
                for (si, s) in c.steps.iter().enumerate() {
                    if s.status != Status::Completed || f.step.as_ref().is_some_and(|x| x != &s.name) {
                        continue;
                    }
                    let values = step_values(s, si.checked_sub(1).map(|p| &c.steps[p]));
                    let settings = parameter_texts(s).join(" ");
                    for &metric in metrics {
                        let Some(value) = metric_index(metric).and_then(|i| values[i]).filter(|v| v.is_finite()) else {
                            continue;
                        };
                        let point = Point {
                            id: e.id,
                            started_at: e.started_at.clone(),
                            dir: e.dir.clone(),
                            value,
                            context: context.clone(),
                        };
                        let same = |x: &&mut Series| {
                            x.metric == metric
                                && x.machine == machine
                                && x.engine == c.engine
                                && x.config == c.name
                                && x.step == s.name
                                && x.settings == settings
                        };
                        match out.iter_mut().find(same) {
                            Some(series) => series.points.push(point),
                            None => out.push(Series {
                                machine: machine.clone(),
                                engine: c.engine.clone(),
                                config: c.name.clone(),
                                step: s.name.clone(),
                                settings: settings.clone(),
                                metric,
                                points: vec![point],
                            }),
                        }
                    }
                }
            }
        }
        // A run's repeats (--repeat) are one point of its series: their median.
        for series in &mut out {
            let mut merged: Vec<Point> = Vec::new();
            let mut values: Vec<Vec<f64>> = Vec::new();
            for p in series.points.drain(..) {
                match merged.iter().position(|m| m.id == p.id) {
                    Some(i) => values[i].push(p.value),
                    None => {
                        values.push(vec![p.value]);
                        merged.push(p);
                    }
                }
            }
            for (m, v) in merged.iter_mut().zip(&values) {
                m.value = crate::stats::median(v).unwrap_or(m.value);
            }
            series.points = merged;
        }
        Ok((out, skipped))
    }
}

#[derive(Debug, Default)]
pub struct RebuildReport {
    pub recorded: usize,
    pub removed: usize,
    pub skipped: Vec<String>,
}

/// result.json files under `dir` (not inside engines' data dirs: a run's `db`).
fn find_results(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        if dir.file_name().is_some_and(|f| f == "result.json") {
            out.push(dir.to_path_buf());
        }
        return;
    }
    let candidate = dir.join("result.json");
    let is_run = candidate.is_file();
    if is_run {
        out.push(candidate);
    }
    if depth >= 6 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut subdirs: Vec<PathBuf> =
        rd.filter_map(|e| e.ok()).filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()).collect();
    subdirs.sort();
    for sub in subdirs {
        if sub.file_name().is_some_and(|f| f == "db") && is_run {
            continue;
        }
        find_results(&sub, depth + 1, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history_db::tests::pragma;
    use crate::history_db::{SCHEMA, SCHEMA_VERSION};
    use rusqlite::Connection;

    #[test]
    fn device_baselines_are_stored_and_the_latest_of_a_device_found_also_in_an_older_history() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("old.sqlite");
        Connection::open(&path).unwrap().execute_batch(SCHEMA).unwrap();
        assert_eq!(
            History::open_read_only(&path).unwrap().latest_device_baseline("k").unwrap(),
            None,
            "no table yet: none"
        );
        let mut h = History::open(&path).unwrap();
        let fio: crate::measure::fio::FioBaseline =
            crate::measure::fio::parse(include_str!("../../../tests/fixtures/fio-3.33-device.json"), 1 << 28, 2)
                .unwrap();
        let b = |key: &str, at: &str| StoredBaseline {
            device_key: key.into(),
            measured_at: at.into(),
            dir: "/d".into(),
            fio: fio.clone(),
        };
        h.store_device_baseline(&b("k", "2026-11-20T10:00:00+01:00")).unwrap();
        h.store_device_baseline(&b("k", "2026-11-24T10:00:00+01:00")).unwrap();
        h.store_device_baseline(&b("other", "2026-11-25T10:00:00+01:00")).unwrap();
        drop(h);
        let h = History::open_read_only(&path).unwrap();
        assert_eq!(h.latest_device_baseline("k").unwrap(), Some(b("k", "2026-11-24T10:00:00+01:00")));
        assert_eq!(h.latest_device_baseline("none").unwrap(), None);
        assert_eq!(pragma(&path, "user_version"), SCHEMA_VERSION, "an added table: the schema version stays");
    }
}
