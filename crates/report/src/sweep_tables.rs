//! A summary's version and config-sweep tables, built once per rendering
//! (each loads and pools the profiles it explains): their sections, and
//! which steps' CPU changes they already explain, so that a step's own
//! relative table does not repeat them.

use super::compare::Options;
use super::profile_changes::{self, StepChanges};
use super::relative::Table;
use super::summary::{Base, StepTable, Summary};

/// The version tables (`versions`) and the config-sweep tables (`config_sweep`).
pub struct SweepTables {
    pub versions: Vec<Table>,
    pub configs: Vec<Table>,
}

impl SweepTables {
    pub fn of(s: &Summary) -> SweepTables {
        let opts = Options::default();
        SweepTables {
            versions: super::versions::sweeps(s, &opts).into_iter().map(|sw| sw.table).collect(),
            configs: super::config_sweep::tables(s, &opts),
        }
    }

    /// Where the CPU went in `step` for each row of its relative table
    /// (against its base row) whose profiled CPU per op moved, except the
    /// pairs a version or config-sweep table already explains.
    pub fn step_cpu_changes(&self, s: &Summary, step: &StepTable, base: &Base) -> Vec<StepChanges> {
        let explained: Vec<&StepChanges> = self.versions.iter().chain(&self.configs).flat_map(|t| &t.cpu).collect();
        profile_changes::for_step(s, step, base, Options::default().threshold)
            .into_iter()
            .filter(|c| !explained.iter().any(|e| e.same_pair(c)))
            .collect()
    }
}
