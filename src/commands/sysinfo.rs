//! `rumbench sysinfo`: the environment a run records, and what may mislead.

use anyhow::Result;
use rumbench::{measure, outln, report};

pub fn run(data_dir: &std::path::Path, json: bool) -> Result<()> {
    use measure::os::sysinfo::{warnings, SystemInfo};
    let info = SystemInfo::capture(&rumbench::build_info::THIS, Some(data_dir));
    let value = serde_json::to_value(&info)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        report::sysinfo_text::print(&value);
    }
    for w in warnings(&info) {
        outln!("warning: {w}");
    }
    Ok(())
}
