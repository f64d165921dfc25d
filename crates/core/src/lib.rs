//! rumbench's core: the layers every other crate stands on, with no native
//! code, so they build and test without a C or C++ compiler.
//!
//! docs/architecture.md is the map (the layers, which way they depend).
//! Here, from the top down: `result` (result.json and the exact merge of
//! shards), `plan` (the typed plan) and `measure` (recorders, histograms,
//! OS probes), then the leaves `datagen`, `console` and `binary`.

#[macro_use]
pub mod console;
pub mod binary;
pub mod datagen;
pub mod measure;
pub mod plan;
pub mod result;
