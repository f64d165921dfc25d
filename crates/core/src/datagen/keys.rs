//! Keys: u64 ids encoded big-endian (byte order = numeric order) and padded to
//! `key_size` bytes with '0', as db_bench does; load orders for fill steps.
//! Key order `hash` is SplinterDB's splinter_test's instead: the first 8 bytes
//! are XXH64 of the index (its 8 little-endian bytes, seed 42) stored
//! little-endian, the rest zero (tests/functional/test.h, `test_key`, TEST_RANDOM).

use std::fmt;
use std::str::FromStr;

use super::rng::{mix64, stream_seed, Rng};

/// A reusable key buffer: encoding an id never allocates.
#[derive(Clone, Debug)]
pub struct KeyBuf {
    buf: Vec<u8>,
}

impl KeyBuf {
    /// `key_size` must be at least 8 (checked when settings are validated).
    pub fn new(key_size: usize) -> Self {
        assert!(key_size >= 8, "key_size must be >= 8");
        KeyBuf { buf: vec![b'0'; key_size] }
    }

    #[inline]
    pub fn encode(&mut self, id: u64) -> &[u8] {
        self.buf[..8].copy_from_slice(&id.to_be_bytes());
        &self.buf
    }

    /// Encode into a caller-provided slice of exactly key_size bytes.
    #[inline]
    pub fn encode_into(id: u64, out: &mut [u8]) {
        out[..8].copy_from_slice(&id.to_be_bytes());
        out[8..].fill(b'0');
    }

    pub fn decode(key: &[u8]) -> u64 {
        let mut id = [0u8; 8];
        id.copy_from_slice(&key[..8]);
        u64::from_be_bytes(id)
    }
}

/// The key space of a run: `n` key indexes, mapped to ids either as they are
/// or through hash(i) (for runs loaded with key order `hash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpace {
    pub n: u64,
    pub hashed: bool,
}

impl KeySpace {
    /// The id whose big-endian bytes are the key's first 8: the index, or
    /// splinter_test's XXH64(index, 42) stored little-endian.
    #[inline]
    pub fn id(&self, index: u64) -> u64 {
        if self.hashed {
            xxh64_u64(index, SPLINTER_TEST_SEED).swap_bytes()
        } else {
            index
        }
    }

    /// The bytes after the first 8: '0' as db_bench's, zero in `hash` order as splinter_test's.
    #[inline]
    pub fn pad(&self) -> u8 {
        if self.hashed {
            0
        } else {
            b'0'
        }
    }

    /// A key buffer padded as this key space's keys are.
    pub fn keybuf(&self, key_size: usize) -> KeyBuf {
        let mut kb = KeyBuf::new(key_size);
        kb.buf[8..].fill(self.pad());
        kb
    }

    /// Encode key `index` of this space into `out` (key_size bytes).
    #[inline]
    pub fn encode_into(&self, index: u64, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.id(index).to_be_bytes());
        out[8..].fill(self.pad());
    }
}

/// The seed of splinter_test's key hash (`platform_checksum64(&idx, sizeof(idx), 42)`).
pub const SPLINTER_TEST_SEED: u64 = 42;

/// XXH64 of the 8 little-endian bytes of `x` (xxHash's XXH64 for an 8-byte
/// input: one lane, then the avalanche), as libxxhash computes it.
#[inline]
pub fn xxh64_u64(x: u64, seed: u64) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    const P4: u64 = 0x85EB_CA77_C2B2_AE63;
    const P5: u64 = 0x27D4_EB2F_1656_67C5;
    let mut h = seed.wrapping_add(P5).wrapping_add(8);
    let k = x.wrapping_mul(P2).rotate_left(31).wrapping_mul(P1);
    h ^= k;
    h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// Order in which a fill step inserts keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyOrder {
    /// 0, 1, 2, ... (fillseq).
    Seq,
    /// Uniform with replacement (fillrandom): about 37% of N keys stay missing after N inserts.
    Random,
    /// Each of the N keys once, in a seeded random permutation (filluniquerandom).
    Unique,
    /// hash(i) for i in 0..N, exactly as SplinterDB's splinter_test: XXH64(i, 42)
    /// little-endian, zero-padded (see `KeySpace::id`).
    Hash,
}

impl KeyOrder {
    pub const NAMES: &'static [&'static str] = &["seq", "random", "unique", "hash"];
}

impl FromStr for KeyOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "seq" => Ok(KeyOrder::Seq),
            "random" => Ok(KeyOrder::Random),
            "unique" => Ok(KeyOrder::Unique),
            "hash" => Ok(KeyOrder::Hash),
            _ => Err(format!("unknown key order '{s}' (valid: {})", Self::NAMES.join(", "))),
        }
    }
}

impl fmt::Display for KeyOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::NAMES[*self as usize])
    }
}

/// A seeded bijection over [0, n) (a Feistel network over the next even power
/// of two, with cycle walking), so unique random order needs no stored permutation.
#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    half_mask: u64,
    round_keys: [u64; 4],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Self {
        assert!(n > 0);
        let bits = 64 - (n - 1).leading_zeros().min(63);
        let half_bits = bits.div_ceil(2).max(1);
        let mut round_keys = [0; 4];
        for (i, k) in round_keys.iter_mut().enumerate() {
            *k = stream_seed(seed, &[0x0fe1_57e1, i as u64]);
        }
        Permutation { n, half_bits, half_mask: (1u64 << half_bits) - 1, round_keys }
    }

    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let (mut left, mut right) = (x >> self.half_bits, x & self.half_mask);
        for &k in &self.round_keys {
            let next = left ^ (mix64(right ^ k) & self.half_mask);
            left = right;
            right = next;
        }
        (left << self.half_bits) | right
    }

    /// The image of `i` (i < n).
    #[inline]
    pub fn apply(&self, i: u64) -> u64 {
        let mut x = self.feistel(i);
        while x >= self.n {
            x = self.feistel(x);
        }
        x
    }
}

/// The key indexes a fill thread inserts: op number g (global, interleaved
/// across threads as g = k * threads + thread) maps to a key index.
#[derive(Clone, Debug)]
pub struct LoadSequence {
    order: KeyOrder,
    n: u64,
    rng: Rng,
    perm: Option<Permutation>,
}

impl LoadSequence {
    /// `seed` is the step's seed (shared by all threads: the permutation must
    /// be the same for all), `thread_seed` the thread's own stream.
    pub fn new(order: KeyOrder, n: u64, seed: u64, thread_seed: u64) -> Self {
        let perm = (order == KeyOrder::Unique).then(|| Permutation::new(n, seed));
        LoadSequence { order, n, rng: Rng::new(thread_seed), perm }
    }

    #[inline]
    pub fn index(&mut self, g: u64) -> u64 {
        match self.order {
            KeyOrder::Seq | KeyOrder::Hash => g,
            KeyOrder::Random => self.rng.below(self.n),
            KeyOrder::Unique => self.perm.as_ref().unwrap().apply(g % self.n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_encode_big_endian_and_sort_numerically() {
        let mut kb = KeyBuf::new(16);
        let a = kb.encode(255).to_vec();
        let b = kb.encode(256).to_vec();
        assert_eq!(a.len(), 16);
        assert!(a < b);
        assert_eq!(&a[..8], &255u64.to_be_bytes());
        assert_eq!(&a[8..], b"00000000");
        assert_eq!(KeyBuf::decode(&b), 256);
        let mut out = [0u8; 12];
        KeyBuf::encode_into(7, &mut out);
        assert_eq!(KeyBuf::decode(&out), 7);
    }

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 3, 10, 1000, 4097] {
            let p = Permutation::new(n, 42);
            let seen: HashSet<u64> = (0..n).map(|i| p.apply(i)).collect();
            assert_eq!(seen.len() as u64, n);
            assert!(seen.iter().all(|&x| x < n));
        }
        // Not the identity, and seed-dependent.
        let p1 = Permutation::new(1000, 1);
        let p2 = Permutation::new(1000, 2);
        assert!((0..1000).any(|i| p1.apply(i) != i));
        assert!((0..1000).any(|i| p1.apply(i) != p2.apply(i)));
    }

    #[test]
    fn random_order_leaves_about_37_percent_missing() {
        let n = 100_000;
        let mut seq = LoadSequence::new(KeyOrder::Random, n, 1, 2);
        let seen: HashSet<u64> = (0..n).map(|g| seq.index(g)).collect();
        let missing = 1.0 - seen.len() as f64 / n as f64;
        assert!((0.36..0.38).contains(&missing), "{missing}");
    }

    #[test]
    fn orders_are_deterministic() {
        for order in [KeyOrder::Seq, KeyOrder::Random, KeyOrder::Unique, KeyOrder::Hash] {
            let mut a = LoadSequence::new(order, 1000, 5, 6);
            let mut b = LoadSequence::new(order, 1000, 5, 6);
            let va: Vec<u64> = (0..100).map(|g| a.index(g)).collect();
            let vb: Vec<u64> = (0..100).map(|g| b.index(g)).collect();
            assert_eq!(va, vb, "{order}");
        }
        let ks = KeySpace { n: 10, hashed: true };
        assert_ne!(ks.id(1), 1);
        let mut k = [0xffu8; 24];
        ks.encode_into(0, &mut k);
        assert_eq!(&k[..8], &xxh64_u64(0, 42).to_le_bytes());
        assert_eq!(&k[8..], &[0u8; 16]);
        assert_eq!(ks.keybuf(24).encode(ks.id(0)), &k[..]);
        assert_eq!(ks.id(1), KeySpace { n: 99, hashed: true }.id(1));
        assert_eq!("hash".parse::<KeyOrder>().unwrap(), KeyOrder::Hash);
        assert!("zig".parse::<KeyOrder>().unwrap_err().contains("seq, random, unique, hash"));
    }
}
