//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.
//!
//! docs/architecture.md is the map: the layers and which way they depend,
//! each folder's job, the life of one run, and where to add an engine, a
//! server, a workload, a step, a metric, a report view or an output format
//! (a test, `architecture_tests`, keeps its layer list and src/ the same).

// The layers below this crate, under the names the code uses
// (`crate::result`, `crate::report`, ...): crates/core and crates/report.
#[macro_use]
extern crate rumbench_core;
pub use rumbench_core::{binary, console, datagen, measure, plan, result};
pub use rumbench_core::{errln, out, outln};
pub use rumbench_report as report;

pub mod backend;
pub mod build_info;
pub mod build_support;
pub mod cache;
pub mod cli;
pub mod crashtest;
pub mod driver;
pub mod engine;
pub mod lazyfs;
pub mod maven;
pub mod planner;
pub mod runner;
pub mod server;
pub mod sync_interpose;
pub mod sys;
pub mod workload;

#[cfg(test)]
mod architecture_tests;
#[cfg(test)]
mod pipeline_tests;
