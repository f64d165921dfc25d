//! The hot-row grid as the original posts show it: per config, updates/s
//! with rows = tables and columns = clients, the p99 of each cell beside it.
//! In the terminal summary, summary.md and the HTML report.

use super::fmt::{fmt_axis, Unit};

use crate::result::{RunResult, Status};

/// One config's grid.
#[derive(Debug, Clone)]
pub struct Grid {
    pub config: String,
    pub tables: Vec<u64>,
    pub clients: Vec<u64>,
    /// (tables, clients) -> (updates/s, p99 us, the cell's status)
    pub cells: Vec<(u64, u64, f64, f64, Status)>,
}

impl Grid {
    pub fn cell(&self, t: u64, c: u64) -> Option<(f64, f64, Status)> {
        self.cells.iter().find(|x| x.0 == t && x.1 == c).map(|x| (x.2, x.3, x.4))
    }
}

/// The grids of a run's hotrow steps (none when it has none).
pub fn grids(run: &RunResult) -> Vec<Grid> {
    let mut out = Vec::new();
    for c in &run.configs {
        let mut g = Grid { config: c.name.clone(), tables: Vec::new(), clients: Vec::new(), cells: Vec::new() };
        for s in c.steps.iter().filter(|s| s.step_kind() == Some(crate::plan::steps::StepKind::HotRow)) {
            let (Some(t), Some(n)) = (
                s.parameters.get("tables").and_then(|v| v.as_u64()),
                s.parameters.get("threads").and_then(|v| v.as_u64()),
            ) else {
                continue;
            };
            let p99 = s.main_op().map(|o| o.latency.p99_us).unwrap_or(f64::NAN);
            g.cells.push((t, n, s.ops_s.unwrap_or(f64::NAN), p99, s.status));
            if !g.tables.contains(&t) {
                g.tables.push(t);
            }
            if !g.clients.contains(&n) {
                g.clients.push(n);
            }
        }
        if !g.cells.is_empty() {
            g.tables.sort_unstable();
            g.clients.sort_unstable();
            out.push(g);
        }
    }
    out
}

pub fn value(cell: Option<(f64, f64, Status)>) -> (String, String) {
    match cell {
        None => ("".into(), "".into()),
        Some((x, p99, Status::Completed)) => (fmt_axis(x, Unit::Count), format!("{p99:.0}")),
        // A cell that did not complete says how it ended (failed, interrupted), without figures.
        Some((_, _, status)) => (format!("{status:?}").to_lowercase(), "".into()),
    }
}

pub const TITLE: &str = "hot-row updates/s (rows: tables, columns: clients; p99 us in brackets)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_has_tables_as_rows_clients_as_columns_and_skips_cells() {
        let g = Grid {
            config: "pg".into(),
            tables: vec![1, 2],
            clients: vec![1, 2],
            cells: vec![
                (1, 1, 8400.0, 120.0, Status::Completed),
                (1, 2, 30000.0, 200.0, Status::Completed),
                (2, 2, 21000.0, 300.0, Status::Failed),
                (2, 1, 0.0, 0.0, Status::Interrupted),
            ],
        };
        assert_eq!(value(g.cell(1, 2)).0, fmt_axis(30000.0, Unit::Count));
        assert_eq!(value(g.cell(2, 2)).0, "failed");
        assert_eq!(value(g.cell(2, 1)), ("interrupted".to_string(), String::new()));
        assert_eq!(value(g.cell(3, 1)).0, "");
    }
}
