//! The integration tests: the real binary against real engines and servers
//! on small data. Every file in tests/ is a module of this one test binary
//! (a binary per file meant a full thin-LTO link each). servers_stop_all.rs
//! stops every server of its process: its test is ignored in a plain
//! `cargo test` and run alone by scripts/test.sh.
//!
//! The files were written to run in a process of their own, one file at a
//! time (some measure, some load the disk or the CPU): scripts/test.sh runs
//! the modules one after another (`cargo test --release --test integration
//! -- MODULE::`), as cargo ran the binaries before.

mod common;

mod cli;
mod compare;
mod contention;
mod crashtest;
mod dbbench_defaults;
mod dead_server;
mod debt;
mod deploy;
mod device;
mod duet;
mod history;
mod ibench;
mod internals;
mod limits;
mod mariadb_versions;
mod memory_claims;
mod metrics;
mod mixgraph;
mod mongodb;
mod orphans;
mod pg_versions;
mod pgwire;
mod plugins;
mod profile;
mod replay;
mod report_browser;
mod report_render;
mod rocksdb_versions;
mod run_output;
mod safety;
mod servers;
mod servers_stop_all;
mod shards;
mod slo;
mod splinterdb;
mod sweep;
mod sysbench;
mod target;
mod ycsb;
