//! include/rumbench_engine.h, from its one binding (crates/engine-abi),
//! under the names this module's callers use, and the capabilities' names
//! `rumbench engines` and results show.

pub use rumbench_engine_abi::{
    RbBatchOp, RbEmitFn, RbEngine, RbEngineApi, RbError, RbOpenArgs, RbOptionDoc, RbPair, RbSession, RbStatus,
    RbValueFn, RB_DELETE, RB_PUT,
};

pub const ABI_VERSION: u32 = rumbench_engine_abi::RB_ENGINE_ABI_VERSION;
/// The entry's symbol, NUL-terminated for the loader.
pub const ENTRY: &[u8] = b"rumbench_engine_api\0";

pub const RB_OK: RbStatus = RbStatus::OK;
pub const RB_NOT_FOUND: RbStatus = RbStatus::NOT_FOUND;
pub const RB_CONFLICT: RbStatus = RbStatus::CONFLICT;
pub const RB_ERROR: RbStatus = RbStatus::ERROR;
pub const RB_BUSY: RbStatus = RbStatus::BUSY;
pub const RB_NO_SPACE: RbStatus = RbStatus::NO_SPACE;
pub const RB_CORRUPTION: RbStatus = RbStatus::CORRUPTION;

pub const CAP_WRITE_BATCH: u64 = rumbench_engine_abi::RB_CAP_WRITE_BATCH;
pub const CAP_MULTI_GET: u64 = rumbench_engine_abi::RB_CAP_MULTI_GET;
pub const CAP_REVERSE_SCAN: u64 = rumbench_engine_abi::RB_CAP_REVERSE_SCAN;
pub const CAP_TRANSACTIONS: u64 = rumbench_engine_abi::RB_CAP_TRANSACTIONS;
pub const CAP_FLUSH: u64 = rumbench_engine_abi::RB_CAP_FLUSH;
pub const CAP_WAIT_IDLE: u64 = rumbench_engine_abi::RB_CAP_WAIT_IDLE;
pub const CAP_READ_ONLY: u64 = rumbench_engine_abi::RB_CAP_READ_ONLY;

pub const ERROR_TEXT: usize = rumbench_engine_abi::RB_ERROR_TEXT;

/// Each capability bit with the name `rumbench engines` and results show.
pub const CAPABILITIES: &[(u64, &str)] = &[
    (CAP_WRITE_BATCH, "write_batch"),
    (CAP_MULTI_GET, "multi_get"),
    (CAP_REVERSE_SCAN, "reverse_scan"),
    (CAP_TRANSACTIONS, "transactions"),
    (CAP_FLUSH, "flush"),
    (CAP_WAIT_IDLE, "wait_idle"),
    (CAP_READ_ONLY, "read_only"),
];

/// The names of the capabilities in `bits`, "none" for none.
pub fn capability_names(bits: u64) -> String {
    let names: Vec<&str> = CAPABILITIES.iter().filter(|(b, _)| bits & b != 0).map(|(_, n)| *n).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(",")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_capability_has_a_name_and_the_entry_is_the_headers() {
        let all = super::CAPABILITIES.iter().fold(0, |a, (b, _)| a | b);
        assert_eq!(all.count_ones() as usize, super::CAPABILITIES.len());
        assert_eq!(super::capability_names(0), "none");
        assert_eq!(super::capability_names(super::CAP_FLUSH | super::CAP_MULTI_GET), "multi_get,flush");
        assert_eq!(&super::ENTRY[..super::ENTRY.len() - 1], rumbench_engine_abi::RB_ENGINE_ENTRY.as_bytes());
    }
}
