//! The reporting side: everything people read after a run, rendered from
//! result.json through one computed summary (`summary`): the HTML report
//! (`html`, charts in `svg`), run comparison with regression detection
//! (`compare`), the local results history (`history`), and the files a run
//! writes into its directory (one exporter per format: `json`, `csv`,
//! `table`, `markdown`, `tsv`).
//!
//! All files are rewritten after every step (atomically: temp file + rename),
//! so a failure or Ctrl-C later in the run loses nothing already measured.

// The core layers under the names the code uses (`crate::result`, ...).
#[macro_use]
extern crate rumbench_core;
pub(crate) use rumbench_core::{datagen, measure, plan, result};
mod build_notes;
pub mod changes;
pub mod compare;
mod compare_sides;
pub mod compare_text;
mod compare_verdicts;
pub mod concurrency;
pub mod config_sweep;
pub mod csv;
pub mod durability;
pub mod engine_comparison;
pub mod exercised;
pub mod flame;
pub mod fmt;
pub mod history;
mod history_db;
mod history_store;
pub mod hlog;
pub mod hotrow;
pub mod html;
mod html_charts;
mod html_views;
pub mod json;
pub mod limits;
pub mod markdown;
mod metrics;
mod notes;
pub mod output;
pub mod profile_changes;
pub mod profiles;
mod rank;
pub mod relative;
mod rocksdb_stalls;
pub mod scaling;
pub mod sequential;
pub mod shards;
pub mod slo;
pub mod stalls;
pub mod stats;
pub mod summary;
pub mod svg;
pub mod sweep_tables;
pub mod sysinfo_text;
pub mod table;
mod text_table;
mod text_views;
pub mod tsv;
pub mod verdict;
pub mod versions;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::result::RunResult;
use summary::{Base, NamedRun, Summary};

/// A run loaded for reporting, with the label it is shown under.
pub struct LoadedRun {
    pub label: String,
    pub dir: PathBuf,
    pub run: RunResult,
}

/// `#12` or `12` (when no such path exists) is run 12 of the history.
fn history_id(arg: &str) -> Option<i64> {
    let digits = arg.strip_prefix('#').unwrap_or(arg);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if !arg.starts_with('#') && Path::new(arg).exists() {
        return None;
    }
    digits.parse().ok()
}

/// The run directory an argument names: a directory, its result.json, or a history id.
pub fn resolve(arg: &str, history: Option<&Path>) -> Result<PathBuf> {
    if let Some(id) = history_id(arg) {
        let path = history::resolve_path(history)?;
        let h = history::History::open_read_only(&path)?;
        let dir = h.dir_of(id)?;
        if crate::result::file_in(&dir).is_none() {
            bail!("run #{id} was in {} but its result.json is gone (rebuild the history with `rumbench history rebuild DIR`)", dir.display());
        }
        return Ok(dir);
    }
    let p = PathBuf::from(arg);
    if p.is_file() {
        return Ok(p.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(".")));
    }
    if crate::result::file_in(&p).is_some() {
        return Ok(p);
    }
    if p.is_dir() {
        bail!("{} has no result.json (not a rumbench run directory)", p.display());
    }
    bail!("no run directory or history id '{arg}'");
}

pub fn load_one(arg: &str, history: Option<&Path>) -> Result<(PathBuf, RunResult)> {
    let dir = resolve(arg, history)?;
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let run = crate::result::load_dir(&dir)?;
    Ok((dir, run))
}

/// Load runs and label them by directory name (made unique).
pub fn load_runs(args: &[String], history: Option<&Path>) -> Result<Vec<LoadedRun>> {
    let mut loaded = Vec::new();
    for a in args {
        loaded.push(load_one(a, history)?);
    }
    let labels = summary::run_labels(
        &loaded
            .iter()
            .map(|(d, _)| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()).to_string_lossy().to_string())
            .collect::<Vec<_>>(),
    );
    Ok(loaded.into_iter().zip(labels).map(|((dir, run), label)| LoadedRun { label, dir, run }).collect())
}

pub fn named(runs: &[LoadedRun]) -> Vec<NamedRun<'_>> {
    runs.iter()
        .map(|r| {
            let dir = std::fs::canonicalize(&r.dir).unwrap_or_else(|_| r.dir.clone());
            NamedRun { label: r.label.clone(), dir: dir.display().to_string(), run: &r.run }
        })
        .collect()
}

pub fn summarize(runs: &[LoadedRun]) -> Summary {
    Summary::build(&named(runs))
}

/// Interpret `--base`: one of the runs (by directory or label), else a row
/// label (`run/config`) or config name present in the runs.
pub fn parse_base(arg: Option<&str>, runs: &[LoadedRun], s: &Summary) -> Result<Base> {
    let Some(arg) = arg else { return Ok(s.default_base()) };
    if let Ok(canon) = std::fs::canonicalize(arg.trim_end_matches("/result.json")) {
        if let Some(i) = runs.iter().position(|r| std::fs::canonicalize(&r.dir).is_ok_and(|d| d == canon)) {
            return Ok(Base::Run(i));
        }
    }
    if let Some(i) = runs.iter().position(|r| r.label == arg) {
        return Ok(Base::Run(i));
    }
    let rows = s.steps.iter().flat_map(|st| st.rows.iter());
    if rows.clone().any(|r| r.label == arg || r.config == arg) {
        return Ok(Base::Row(arg.to_string()));
    }
    let mut choices: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    for r in rows {
        for c in [&r.label, &r.config] {
            if !choices.contains(c) {
                choices.push(c.clone());
            }
        }
    }
    bail!("--base '{arg}' is neither one of the runs nor a config in them (valid: {})", choices.join(", "))
}

pub fn now_text() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

/// Render the HTML report of `runs` into `out` (atomically).
/// A run directory's own report.html (that run alone); returns its path.
pub fn write_run_html(dir: &Path, run: &RunResult) -> Result<PathBuf> {
    let path = dir.join("report.html");
    let loaded = [LoadedRun {
        label: summary::run_labels(&[dir.display().to_string()]).remove(0),
        dir: dir.to_path_buf(),
        run: run.clone(),
    }];
    write_html(&loaded, None, None, &path).map(|()| path)
}

pub fn write_html(runs: &[LoadedRun], base: Option<&str>, title: Option<String>, out: &Path) -> Result<()> {
    write_atomic(out, &render_html(runs, base, title)?)
}

/// The HTML report of `runs`, `base` as `--base` names it.
pub fn render_html(runs: &[LoadedRun], base: Option<&str>, title: Option<String>) -> Result<String> {
    let s = summarize(runs);
    let base = parse_base(base, runs, &s)?;
    Ok(html::render(&s, &html::HtmlOptions { base, title, generated_at: now_text() }))
}

pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let name = path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_else(|| "out".into());
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// One output format.
pub trait Exporter {
    fn file_name(&self) -> &'static str;
    fn render(&self, run: &RunResult) -> Result<String>;
    /// Rendered in the run's directory `dir`, for views that read the
    /// run's other files (the steps' profiles).
    fn render_in(&self, run: &RunResult, _dir: &Path) -> Result<String> {
        self.render(run)
    }
}

pub fn exporters() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(json::Json),
        Box::new(csv::IntervalsCsv),
        Box::new(table::SummaryText),
        Box::new(markdown::Markdown),
        Box::new(tsv::BenchmarkTsv),
    ]
}

/// Write every format into `dir`, each atomically.
pub fn write_all(run: &RunResult, dir: &Path) -> Result<()> {
    for exp in exporters() {
        let text = exp.render_in(run, dir)?;
        let path = dir.join(exp.file_name());
        let tmp = dir.join(format!(".{}.tmp", exp.file_name()));
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The formats: the modules that render (text, HTML, SVG, files). Every
    /// other module of the crate is on the neutral side (the views that
    /// compute tables, the history's database, output files), which must
    /// not import a format, so that the two never depend on each other
    /// again. A new module is on the neutral side until it is listed here.
    const FORMATS: &[&str] = &[
        "flame",
        "table",
        "text_table",
        "text_views",
        "compare_text",
        "markdown",
        "html",
        "html_charts",
        "html_views",
        "svg",
        "scaling",
        "tsv",
        "csv",
        "json",
        "hlog",
        // The history shown as text (`rumbench history`: the listing, the
        // change points), in crate::table's tables.
        "history",
    ];

    /// Every module of the crate: a `.rs` file under src/ but the crate
    /// root, with its source.
    fn modules() -> Vec<(String, String)> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut out: Vec<(String, String)> = std::fs::read_dir(&src)
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().strip_suffix(".rs")?.to_string();
                (name != "lib").then(|| (name, std::fs::read_to_string(e.path()).unwrap()))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn views_do_not_import_formats() {
        let modules = modules();
        for f in FORMATS {
            assert!(modules.iter().any(|(m, _)| m == f), "the format {f} is not a module of the crate");
        }
        let views: Vec<&(String, String)> = modules.iter().filter(|(m, _)| !FORMATS.contains(&m.as_str())).collect();
        for (view, source) in views {
            // Tests may render what they check.
            let code = source.split("#[cfg(test)]").next().unwrap_or_default();
            for f in FORMATS {
                for path in
                    [format!("super::{f}"), format!("crate::{f}"), format!("super::{{{f}"), format!("crate::{{{f}")]
                {
                    let uses = code.matches(&format!("{path}::")).count()
                        + code.matches(&format!("{path};")).count()
                        + code.matches(&format!("{path},")).count();
                    assert_eq!(uses, 0, "the view {view} imports the format {f} ({path})");
                }
            }
        }
    }
}
