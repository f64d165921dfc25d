//! Sharded runs: shard I of N (`--shard I/N`) does its part of a plan so
//! that N shards, on as many machines, together do what one run with N
//! times the client threads would. Shard I's thread t acts as thread
//! I*T + t of N*T: loads and fills take the record numbers that thread
//! would (disjoint between shards), a count of operations is split the
//! same way, every random stream is seeded by that global thread number,
//! and inserts during a run take numbers no other shard takes (I mod N).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// More shards than this is a typo, not a cluster of client machines.
pub const MAX_SHARDS: u32 = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based, as a Kubernetes Indexed Job's completion index.
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The one shard of a run that is not sharded.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Thread `t` of this shard's `threads` as a thread of all shards'.
    pub fn global_thread(self, threads: usize, t: usize) -> u64 {
        self.index as u64 * threads as u64 + t as u64
    }

    /// All shards' threads together.
    pub fn global_threads(self, threads: usize) -> u64 {
        self.count as u64 * threads as u64
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("invalid --shard '{s}': give I/N, shard I (0-based) of N, e.g. 0/4 .. 3/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("invalid --shard '{s}': N must be between 1 and {MAX_SHARDS}"));
        }
        if index >= count {
            return Err(format!("invalid --shard '{s}': I counts from 0, so shard I of {count} is 0..{}", count - 1));
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_zero_based_and_refuse_the_rest() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard { index: 2, count: 4 });
        assert_eq!("0/1".parse::<Shard>().unwrap(), Shard::WHOLE);
        for bad in ["4/4", "1/0", "x/4", "3", "-1/4", "0/5000"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert!("4/4".parse::<Shard>().unwrap_err().contains("0..3"));
    }

    #[test]
    fn the_threads_of_all_shards_are_those_of_one_bigger_run() {
        // 3 shards of 2 threads: global threads 0..6, each once.
        let mut seen: Vec<u64> =
            (0..3).flat_map(|i| (0..2).map(move |t| Shard { index: i, count: 3 }.global_thread(2, t))).collect();
        seen.sort();
        assert_eq!(seen, (0..6).collect::<Vec<_>>());
        assert_eq!(Shard { index: 1, count: 3 }.global_threads(2), 6);
    }
}
