//! rumbench: one fast client that runs the same storage-engine benchmarks
//! against many engines and reports honest measurements.
//!
//! The binary (src/main.rs) is a thin command line over these modules:
//! `engine` (one trait, one file per engine), `workload` (keys, values,
//! distributions), `runner` (steps, threads, pacing), `measure` (histograms,
//! OS probes, environment), `output` (one summary, one file per format),
//! `server` (database servers rumbench starts and stops), `ibench` (the
//! insert benchmark, on a table layer over servers and key-value engines),
//! `report` (HTML report, compare, history; rendered from result.json).

#[macro_use]
pub mod console;
pub mod backend;
pub mod build_info;
pub mod cli;
pub mod planner;
pub mod crashtest;
pub mod datagen;
pub mod driver;
pub mod engine;
pub mod lazyfs;
pub mod measure;
pub mod report;
pub mod result;
pub mod runner;
pub mod server;
pub mod plan;
pub mod build_support;
pub mod workload;

#[cfg(test)]
mod pipeline_tests;
