//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.
//!
//! docs/architecture.md is the map: the layers and which way they depend,
//! each folder's job, the life of one run, and where to add an engine, a
//! server, a workload, a step, a metric, a report view or an output format
//! (a test, `architecture_tests`, keeps its layer list and src/ the same).

#[macro_use]
pub mod console;
pub mod backend;
pub mod build_info;
pub mod build_support;
pub mod cli;
pub mod crashtest;
pub mod datagen;
pub mod driver;
pub mod engine;
pub mod lazyfs;
pub mod measure;
pub mod plan;
pub mod planner;
pub mod report;
pub mod result;
pub mod runner;
pub mod server;
pub mod workload;

#[cfg(test)]
mod architecture_tests;
#[cfg(test)]
mod pipeline_tests;
