//! Placeholder: being written.
use anyhow::{bail, Result};
use super::{Engine, EngineSpec, OpenArgs};

pub const SPEC: EngineSpec = EngineSpec { name: "lmdb", description: "not yet available", options: &[], open };

fn open(_args: &OpenArgs) -> Result<Box<dyn Engine>> {
    bail!("engine lmdb is not built yet")
}
