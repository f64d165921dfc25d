//! Values built to compress to a given ratio, as db_bench's RandomGenerator:
//! a 1 MiB buffer of 100-byte pieces, each `ratio * 100` random printable bytes
//! repeated to fill the piece; values are consecutive slices of it.

use super::rng::Rng;

const BUFFER: usize = 1 << 20;
const PIECE: usize = 100;

#[derive(Clone, Debug)]
pub struct ValueGen {
    data: Vec<u8>,
    pos: usize,
    size: usize,
}

impl ValueGen {
    pub fn new(size: usize, compression_ratio: f64, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let total = BUFFER.max(size);
        let mut data = Vec::with_capacity(total + PIECE);
        let raw_len = ((PIECE as f64 * compression_ratio).round() as usize).clamp(1, PIECE);
        while data.len() < total {
            let start = data.len();
            for _ in 0..raw_len {
                data.push(b' ' + rng.below(95) as u8);
            }
            while data.len() < start + PIECE {
                let j = start + (data.len() - start) % raw_len;
                data.push(data[j]);
            }
        }
        ValueGen { data, pos: 0, size }
    }

    #[inline]
    #[allow(
        clippy::should_implement_trait,
        reason = "each value borrows the generator: a lending next, not Iterator's"
    )]
    pub fn next(&mut self) -> &[u8] {
        if self.pos + self.size > self.data.len() {
            self.pos = 0;
        }
        let v = &self.data[self.pos..self.pos + self.size];
        self.pos += self.size;
        v
    }

    /// A value of `len` bytes (at most the size the generator was made
    /// with): for workloads whose value sizes vary (mixgraph).
    #[inline]
    pub fn next_sized(&mut self, len: usize) -> &[u8] {
        let len = len.min(self.size);
        if self.pos + len > self.data.len() {
            self.pos = 0;
        }
        let v = &self.data[self.pos..self.pos + len];
        self.pos += len;
        v
    }

    pub fn size(&self) -> usize {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_have_the_size_and_repeat_as_asked() {
        let mut g = ValueGen::new(100, 0.5, 1);
        for _ in 0..20_000 {
            assert_eq!(g.next().len(), 100);
        }
        let mut g = ValueGen::new(100, 0.5, 1);
        let v = g.next().to_vec();
        // The piece is 50 random bytes repeated twice.
        assert_eq!(&v[..50], &v[50..]);
        assert!(v.iter().all(|b| (b' '..=b'~').contains(b)));
        let mut big = ValueGen::new(3 << 20, 1.0, 2);
        assert_eq!(big.next().len(), 3 << 20);
    }

    #[test]
    fn same_seed_same_values() {
        let mut a = ValueGen::new(64, 0.5, 7);
        let mut b = ValueGen::new(64, 0.5, 7);
        assert_eq!(a.next(), b.next());
    }
}
