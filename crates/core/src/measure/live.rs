//! Which key indexes are live, so space amplification can be computed against
//! the logical bytes really stored (fillrandom with replacement leaves about
//! 37% of the key space empty, so N * entry size would be wrong).
//!
//! Each client thread marks the indexes it writes in its own bitmap (a
//! plain bit set: no sharing on the hot path); after the step the runner
//! folds them into the run's set.

#[derive(Debug, Clone, Default)]
pub struct KeyBitmap {
    words: Vec<u64>,
}

impl KeyBitmap {
    pub fn with_capacity(n: u64) -> Self {
        KeyBitmap { words: vec![0; n.div_ceil(64) as usize] }
    }

    #[inline]
    pub fn set(&mut self, index: u64) {
        let w = (index / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (index % 64);
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// self |= other
    pub fn union_with(&mut self, other: &KeyBitmap) {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// self &= !other
    pub fn subtract(&mut self, other: &KeyBitmap) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_union_subtract_count() {
        let mut a = KeyBitmap::with_capacity(100);
        a.set(1);
        a.set(64);
        a.set(1);
        a.set(500); // grows
        assert_eq!(a.count(), 3);
        let mut b = KeyBitmap::default();
        b.set(2);
        b.set(64);
        a.union_with(&b);
        assert_eq!(a.count(), 4);
        a.subtract(&b);
        assert_eq!(a.count(), 2);
        assert!(!a.is_empty());
        assert!(KeyBitmap::with_capacity(10).is_empty());
    }
}
