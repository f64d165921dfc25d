//! result.json: the complete, versioned result.

use anyhow::Result;

use super::Exporter;
use crate::result::RunResult;

pub struct Json;

impl Exporter for Json {
    fn file_name(&self) -> &'static str {
        "result.json"
    }
    fn render(&self, run: &RunResult) -> Result<String> {
        Ok(serde_json::to_string_pretty(run)? + "\n")
    }
}
