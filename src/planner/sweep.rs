//! Config sweeps, `--sweep [ENGINE.]KEY=V1,V2,...`: one config per value
//! (per combination of several sweeps), named after it, the base first.

use anyhow::{bail, Result};

use super::suite::ConfigEntry;

/// A config sweep, `[ENGINE.]KEY=V1,V2,...`: one config per value, the
/// first value the base the others are reported against.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigSweep {
    /// The engine whose configs it applies to; None: every config.
    pub engine: Option<String>,
    /// An engine option, or `version` (postgres: the server version).
    pub key: String,
    pub values: Vec<String>,
}

impl std::str::FromStr for ConfigSweep {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = |why: &str| {
            format!(
                "invalid sweep '{text}': {why} (expected [ENGINE.]KEY=V1,V2,..., e.g. rocksdb.max_subcompactions=1,4)"
            )
        };
        let (target, values) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (engine, key) = match target.trim().split_once('.') {
            Some((e, k)) => (Some(e.trim().to_string()), k.trim().to_string()),
            None => (None, target.trim().to_string()),
        };
        if key.is_empty() || engine.as_deref() == Some("") {
            return Err(bad("no option name"));
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(bad("an empty value"));
        }
        if values.len() < 2 {
            return Err(bad("a sweep needs at least two values (one value is an option: -o)"));
        }
        if let Some(d) = values.iter().enumerate().find_map(|(i, v)| values[..i].contains(v).then_some(v)) {
            return Err(bad(&format!("value {d} is given twice")));
        }
        Ok(ConfigSweep { engine, key, values })
    }
}

/// The most configs one run takes: each is a process of its own, a result and
/// a report section, and a stopped run records every one not run.
pub const MAX_CONFIGS: usize = 1000;

/// Each config a sweep applies to becomes one config per combination of
/// the sweeps' values, in place (the first sweep varies slowest, so the
/// base, every sweep's first value, comes first).
pub(super) fn expand_sweeps(entries: Vec<ConfigEntry>, sweeps: &[ConfigSweep]) -> Result<Vec<ConfigEntry>> {
    for (i, sw) in sweeps.iter().enumerate() {
        if let Some(e) = &sw.engine {
            crate::backend::find(e)?;
            if !entries.iter().any(|c| &c.engine == e) {
                bail!("sweep {e}.{} is for engine {e}, which is not in this run", sw.key);
            }
        }
        if sweeps[..i]
            .iter()
            .any(|p| p.key == sw.key && (p.engine.is_none() || sw.engine.is_none() || p.engine == sw.engine))
        {
            bail!("option {} is swept twice: give its values in one --sweep", sw.key);
        }
        if sw.key == "version" && !sw.engine.as_deref().is_some_and(super::versions::takes_a_version) {
            bail!(
                "sweep {}{}: only these have versions to sweep (as ENGINE.version=V1,V2): {}",
                sw.engine.as_deref().map(|e| format!("{e}.")).unwrap_or_default(),
                sw.key,
                super::versions::version_examples()
            );
        }
    }
    // Counted before anything is expanded: a typo in a sweep can ask for millions.
    let applies = |sw: &ConfigSweep, entry: &ConfigEntry| sw.engine.as_deref().is_none_or(|e| e == entry.engine);
    let count = entries.iter().fold(0u64, |total, entry| {
        let each =
            sweeps.iter().filter(|sw| applies(sw, entry)).fold(1u64, |n, sw| n.saturating_mul(sw.values.len() as u64));
        total.saturating_add(each)
    });
    if count > MAX_CONFIGS as u64 {
        if sweeps.is_empty() {
            bail!("the run has {count} configs; at most {MAX_CONFIGS} in one run: split the suite");
        }
        let factors: Vec<String> = sweeps.iter().map(|sw| sw.values.len().to_string()).collect();
        let swept = entries.iter().filter(|e| sweeps.iter().any(|sw| applies(sw, e))).count();
        let of = if swept > 1 { format!(" for each of {swept} configs") } else { String::new() };
        let unswept = entries.len() - swept;
        let plus = if unswept > 0 { format!(", plus {unswept} configs it does not apply to") } else { String::new() };
        bail!(
            "--sweep makes {count} configs ({}{of}{plus}); at most {MAX_CONFIGS} in one run: split it",
            factors.join(" x ")
        );
    }
    let mut out = Vec::new();
    for entry in entries {
        let mine: Vec<&ConfigSweep> = sweeps.iter().filter(|sw| applies(sw, &entry)).collect();
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for sw in &mine {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    sw.values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((sw.key.clone(), v.clone()));
                        c
                    })
                })
                .collect();
        }
        if mine.is_empty() {
            out.push(entry);
            continue;
        }
        for combo in combos {
            let mut c = entry.clone();
            if let Some((_, v)) = combo.iter().find(|(k, _)| k == "version") {
                if c.version.is_some() {
                    bail!(
                        "config {}: a version is given twice (by its engine or [[config]] and by --sweep)",
                        entry.name.as_deref().unwrap_or(&entry.engine)
                    );
                }
                c.version = Some(v.clone());
            }
            c.sweep = combo;
            out.push(c);
        }
    }
    Ok(out)
}

/// A swept config's name: its own name and each swept option's value
/// (`rocksdb-max_subcompactions-4`); a default name already says the version.
pub(super) fn sweep_name(name: String, entry: &ConfigEntry) -> String {
    let mut name = name;
    for (k, v) in &entry.sweep {
        if k == "version" && entry.name.is_none() {
            continue;
        }
        let v: String = v
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
            .collect();
        name = format!("{name}-{k}-{v}");
    }
    name
}
