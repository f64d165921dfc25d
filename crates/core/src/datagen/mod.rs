//! Workload generation: key encoding, load orders, access distributions and
//! compressible values. Everything is seeded and independent of the engine,
//! so the same settings give the same key sequence on every engine.

pub mod dist;
pub mod keys;
pub mod mixgraph;
pub mod rng;
pub mod rocksdb_trace;
pub mod trace;
pub mod value;
pub mod ycsb;

pub use dist::{Distribution, Sampler};
pub use keys::{KeyBuf, KeyOrder, KeySpace, LoadSequence};
pub use rng::Rng;
pub use value::ValueGen;
