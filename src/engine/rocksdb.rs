//! Placeholder: being written.
use anyhow::{bail, Result};
use super::{Engine, EngineSpec, OpenArgs};

pub const SPEC: EngineSpec = EngineSpec { name: "rocksdb", description: "not yet available", options: &[], open };

fn open(_args: &OpenArgs) -> Result<Box<dyn Engine>> {
    bail!("engine rocksdb is not built yet")
}
