//! The workloads: what each step's clients do. One file (or folder) per
//! workload; each runs its clients on the one driver (`crate::driver`).
//!
//! * [`dbbench`]: db_bench-style key-value steps (fillseq, readrandom, ...).
//! * [`ibench`]: the insert benchmark (l.i0, l.x, l.i1, l.i2, qr*, qp*).
//! * [`ycsb`]: YCSB's core workloads (ycsb-load, ycsb-a .. ycsb-f).
//! * [`mixgraph`]: db_bench's mixgraph (gets, puts and seeks by the FAST'20 models).
//! * [`replay`]: a trace's calls made again (rumbench's `--trace`, or RocksDB's).

pub mod contention;
pub mod dbbench;
pub mod ibench;
pub mod mixgraph;
pub mod replay;
pub mod sql;
pub mod sysbench;
pub mod trace;
pub mod ycsb;
