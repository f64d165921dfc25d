//! A merged run's shards (`rumbench merge`): each step's row per shard,
//! with when it was released relative to the first shard (the skew), its
//! own rate and operations in the merged window. A neutral table: the
//! formats render it.

use crate::result::RunResult;

pub const TITLE: &str = "Shards";

pub const HEADER: &[&str] =
    &["config", "step", "shard", "host", "start +ms", "wall s", "ops", "ops/s", "ops in window", "p99 us", "status"];

#[derive(Debug, Clone)]
pub struct ShardTable {
    /// What was merged: shards, clocks, windows.
    pub heading: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

pub fn table(run: &RunResult) -> Option<ShardTable> {
    let info = run.merged.as_ref()?;
    let num = super::fmt::num;
    let mut heading = vec![format!("Merged from {} shards (rumbench merge):", info.shards.len())];
    for s in &info.shards {
        heading.push(format!(
            "  shard {}: {} on {}, clock {}",
            s.index,
            s.dir,
            s.host.as_deref().unwrap_or("?"),
            s.clock.describe()
        ));
    }
    let mut rows = Vec::new();
    for st in &info.steps {
        heading.push(format!(
            "  {} {}: {} window {:.2} s, released within {:.1} ms",
            st.config, st.step, st.window, st.window_s, st.start_skew_ms
        ));
        for r in &st.shards {
            let host = info
                .shards
                .iter()
                .find(|s| s.index == r.index)
                .and_then(|s| s.host.clone())
                .unwrap_or_else(|| "?".into());
            rows.push(vec![
                st.config.clone(),
                st.step.clone(),
                r.index.to_string(),
                host,
                format!("{:.1}", r.start_offset_ms),
                r.wall_s.map(|w| format!("{w:.2}")).unwrap_or_else(|| "-".into()),
                r.ops.to_string(),
                r.ops_s.map(num).unwrap_or_else(|| "-".into()),
                format!("{:.0}", r.ops_in_window),
                r.p99_us.map(num).unwrap_or_else(|| "-".into()),
                format!("{:?}", r.status).to_lowercase(),
            ]);
        }
    }
    Some(ShardTable { heading, rows })
}
