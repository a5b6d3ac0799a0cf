//! Fast hashing for the engine's own tables and for its verdict cache.
//!
//! The standard library's SipHash resists hash flooding, which the engine's inputs
//! (its own candidates and the sites it found) cannot mount. In WebAssembly it was
//! the engine's largest single cost: every candidate's full text went through it for
//! the verdict cache. These hashes take a word of input at a time instead.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// 2^64 divided by the golden ratio, odd: a multiplier that spreads every input bit.
const K1: u64 = 0x9e37_79b9_7f4a_7c15;
/// A second odd multiplier with no relation to the first, for the second lane.
const K2: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// A multiplicative hasher, one 64-bit word at a time, finished with an avalanche
/// step so that nearby keys (small integers, similar strings) land far apart.
#[derive(Clone, Copy, Default)]
pub struct FastHasher {
    state: u64,
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.state = (self.state.rotate_left(5) ^ word).wrapping_mul(K1);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for word in words(bytes) {
            self.add(word);
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_u128(&mut self, n: u128) {
        self.add(n as u64);
        self.add((n >> 64) as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        avalanche(self.state)
    }
}

/// A 128-bit fingerprint of `text`: two lanes that mix each word differently, so a
/// pair of texts that collides in one lane still differs in the other.
pub fn fingerprint(text: &str) -> u128 {
    let bytes = text.as_bytes();
    let len = bytes.len() as u64;
    let mut a = FastHasher { state: len };
    let mut b = len.wrapping_mul(K2);
    for word in words(bytes) {
        a.add(word);
        b = (b ^ word).wrapping_mul(K2);
        b ^= b >> 29;
    }
    (u128::from(a.finish()) << 64) | u128::from(avalanche(b ^ len))
}

/// `bytes` as little-endian 64-bit words, the last one padded with zeros.
fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let chunks = bytes.chunks_exact(8);
    let rest = chunks.remainder();
    let last = (!rest.is_empty()).then(|| {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        u64::from_le_bytes(word)
    });
    chunks
        .map(|chunk| {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .chain(last)
}

/// Every output bit depends on every input bit (the 64-bit finalizer of MurmurHash3).
fn avalanche(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn fingerprints_tell_apart_texts_that_differ_in_one_byte_or_in_length() {
        let base = "def f(x):\n    return x + 1\nprint(f(2))\n";
        let mut seen = FastSet::default();
        assert!(seen.insert(fingerprint(base)));
        for i in 0..base.len() {
            let mut bytes = base.as_bytes().to_vec();
            bytes[i] ^= 1;
            let text = String::from_utf8(bytes).unwrap_or_default();
            assert!(seen.insert(fingerprint(&text)), "byte {i}");
        }
        // Trailing zero bytes pad the last word: the length still tells them apart.
        assert!(seen.insert(fingerprint(&format!("{base}\0"))));
        assert!(seen.insert(fingerprint(&format!("{base}\0\0"))));
        assert_eq!(fingerprint(base), fingerprint(&String::from(base)));
    }

    #[test]
    fn small_integer_keys_spread_over_the_table() {
        let build = BuildHasherDefault::<FastHasher>::default();
        let low_bits: FastSet<u64> = (0u64..1024).map(|n| build.hash_one(n) & 0x3ff).collect();
        // Uniform hashing fills about 1 - 1/e of 1024 buckets with 1024 keys.
        assert!(low_bits.len() > 600, "{} of 1024 buckets", low_bits.len());
    }
}
