//! result.json: the complete, versioned result.

use anyhow::Result;

use super::{Exporter, RunResult};

pub struct Json;

impl Exporter for Json {
    fn file_name(&self) -> &'static str {
        "result.json"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        Ok(serde_json::to_string_pretty(run)? + "\n")
    }
}

/// Read a result.json back (used by tests and later by report/compare).
pub fn load(path: &std::path::Path) -> Result<RunResult> {
    use anyhow::Context;
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a rumbench result", path.display()))
}
