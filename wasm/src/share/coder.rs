//! The entropy stage of format-3 links: an adaptive binary range coder (the one of
//! LZMA: 11-bit probabilities, carry propagation through a cached byte) over integer
//! streams. Deflate codes bytes with Huffman codes of at least one bit per symbol and
//! finds repeats; the residuals of a link (column gaps that are mostly 0, extents,
//! value steps) are small numbers of skewed, drifting distribution, which an adaptive
//! binary coder codes in a fraction of a bit each.
//!
//! An integer v is coded as n = v + 1 in Elias-gamma form: its bit length k (unary,
//! each "longer than i" an adaptive bit), then its k bits below the top one, the top
//! three on a binary tree of adaptive bits, the rest each with its own adaptive bit.
//! Every stream has its own models, chosen again by the bit length of the stream's
//! previous value (a burst of large steps predicts more of them).
//!
//! The decoder is total: any byte string decodes to some integers; reading past the
//! end gives zeros and is reported as a cut-short link by [`Decoder::finish`] or as
//! soon as it runs more than a few bytes past the end.

use super::bytes::error;
use crate::error::{DecodeError, ErrorKind};

const PROB_BITS: u32 = 11;
const PROB_ONE: u16 = 1 << PROB_BITS;
/// Adaptation speed: each bit moves its probability 1/16 of the way (small links
/// need fast learning more than precise long-run estimates).
const MOVE_BITS: u32 = 4;
const TOP: u32 = 1 << 24;
/// Longest bit length of n = v + 1 (v < 2^64).
const MAX_K: usize = 64;
/// Mantissa bits coded on a tree (the rest each with its own probability).
const TREE_BITS: usize = 3;
/// Contexts by the bit length of the previous value: 0, 1, 2+ (measured on the
/// examples: 3 buckets code the densest links 0.3 % shorter than 4, 6 longer).
const BUCKETS: usize = 3;
/// Bytes the decoder may read past the end before it calls the link cut short (the
/// encoder's flush writes 4 bytes the decoder needs not read).
const SLACK: usize = 4;

#[derive(Clone)]
struct Model {
    longer: [u16; MAX_K + 1],
    tree: [[u16; 1 << TREE_BITS]; MAX_K + 1],
    low: [[u16; MAX_K]; MAX_K + 1],
}

impl Default for Model {
    fn default() -> Model {
        let half = PROB_ONE / 2;
        Model { longer: [half; MAX_K + 1], tree: [[half; 1 << TREE_BITS]; MAX_K + 1], low: [[half; MAX_K]; MAX_K + 1] }
    }
}

/// The models of every stream, made when first used.
#[derive(Default)]
struct Models {
    models: Vec<Option<Box<Model>>>,
    previous_k: Vec<usize>,
}

impl Models {
    fn get(&mut self, stream: u16) -> &mut Model {
        let s = stream as usize;
        if self.previous_k.len() <= s {
            self.previous_k.resize(s + 1, 0);
            self.models.resize(BUCKETS * (s + 1), None);
        }
        let slot = s * BUCKETS + self.previous_k[s].min(BUCKETS - 1);
        self.models[slot].get_or_insert_with(Box::default)
    }
}

fn bit_length(n: u128) -> usize {
    (128 - n.leading_zeros()) as usize
}

/// The range coder's state (LZMA's: `low` holds a carry in bit 32, a run of 0xFF
/// bytes waits in `cache_size` until the carry is known).
#[derive(Default)]
struct RangeEncoder {
    low: u64,
    range: u32,
    cache: u8,
    cache_size: u64,
    out: Vec<u8>,
}

impl RangeEncoder {
    fn shift_low(&mut self) {
        if (self.low as u32) < 0xFF00_0000 || (self.low >> 32) != 0 {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            loop {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
                self.cache_size -= 1;
                if self.cache_size == 0 {
                    break;
                }
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.cache_size += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    fn bit(&mut self, prob: &mut u16, bit: bool) {
        let bound = (self.range >> PROB_BITS) * *prob as u32;
        if bit {
            self.low += bound as u64;
            self.range -= bound;
            *prob -= *prob >> MOVE_BITS;
        } else {
            self.range = bound;
            *prob += (PROB_ONE - *prob) >> MOVE_BITS;
        }
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }
}

pub struct Encoder {
    rc: RangeEncoder,
    models: Models,
}

impl Default for Encoder {
    fn default() -> Encoder {
        Encoder { rc: RangeEncoder { range: u32::MAX, cache_size: 1, ..Default::default() }, models: Models::default() }
    }
}

impl Encoder {
    /// Codes v on `stream`.
    pub fn put(&mut self, stream: u16, v: u64) {
        let n = v as u128 + 1;
        let k = bit_length(n) - 1; // 0..=64
        let model = self.models.get(stream);
        for i in 0..MAX_K {
            let longer = k > i;
            self.rc.bit(&mut model.longer[i], longer);
            if !longer {
                break;
            }
        }
        let mut node = 1usize;
        for j in (0..k).rev() {
            let b = (n >> j) & 1 == 1;
            if k - 1 - j < TREE_BITS {
                self.rc.bit(&mut model.tree[k][node], b);
                node = node << 1 | b as usize;
            } else {
                self.rc.bit(&mut model.low[k][j], b);
            }
        }
        self.models.previous_k[stream as usize] = k;
    }

    /// Zigzag (0, −1, 1, −2 … → 0, 1, 2, 3 …), then [`Encoder::put`].
    pub fn put_signed(&mut self, stream: u16, v: i64) {
        self.put(stream, ((v << 1) ^ (v >> 63)) as u64);
    }

    pub fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.rc.shift_low();
        }
        self.rc.out
    }
}

struct RangeDecoder<'a> {
    data: &'a [u8],
    pos: usize,
    code: u32,
    range: u32,
}

impl RangeDecoder<'_> {
    fn next_byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn bit(&mut self, prob: &mut u16) -> bool {
        let bound = (self.range >> PROB_BITS) * *prob as u32;
        let bit = if self.code < bound {
            self.range = bound;
            *prob += (PROB_ONE - *prob) >> MOVE_BITS;
            false
        } else {
            self.code -= bound;
            self.range -= bound;
            *prob -= *prob >> MOVE_BITS;
            true
        };
        while self.range < TOP {
            self.range <<= 8;
            self.code = self.code << 8 | self.next_byte() as u32;
        }
        bit
    }
}

pub struct Decoder<'a> {
    rc: RangeDecoder<'a>,
    models: Models,
}

impl<'a> Decoder<'a> {
    pub fn new(data: &'a [u8]) -> Decoder<'a> {
        let mut rc = RangeDecoder { data, pos: 0, code: 0, range: u32::MAX };
        for _ in 0..5 {
            rc.code = rc.code << 8 | rc.next_byte() as u32;
        }
        Decoder { rc, models: Models::default() }
    }

    fn cut_short(&self, what: &str) -> DecodeError {
        error(ErrorKind::Truncated, self.rc.data.len(), format!("the data ends in the middle of {what}"))
    }

    /// The next value of `stream`; `what` names it for the message.
    pub fn get(&mut self, stream: u16, what: &str) -> Result<u64, DecodeError> {
        let model = self.models.get(stream);
        let mut k = 0;
        while k < MAX_K && self.rc.bit(&mut model.longer[k]) {
            k += 1;
        }
        let mut n: u128 = 1;
        let mut node = 1usize;
        for j in (0..k).rev() {
            let b = if k - 1 - j < TREE_BITS {
                let b = self.rc.bit(&mut model.tree[k][node]);
                node = node << 1 | b as usize;
                b
            } else {
                self.rc.bit(&mut model.low[k][j])
            };
            n = n << 1 | b as u128;
        }
        self.models.previous_k[stream as usize] = k;
        if self.rc.pos > self.rc.data.len() + SLACK {
            return Err(self.cut_short(what));
        }
        u64::try_from(n - 1).map_err(|_| error(ErrorKind::BadHeader, self.rc.pos, format!("{what} is larger than 2^64")))
    }

    /// A value of `stream` that must be ≤ `max` (counts, indices).
    pub fn count(&mut self, stream: u16, max: u64, what: &str) -> Result<u64, DecodeError> {
        let v = self.get(stream, what)?;
        if v > max {
            return Err(error(ErrorKind::BadHeader, self.rc.pos, format!("{what} is {v}, more than the {max} a snapshot may hold")));
        }
        Ok(v)
    }

    pub fn get_signed(&mut self, stream: u16, what: &str) -> Result<i64, DecodeError> {
        let z = self.get(stream, what)?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    /// After the last value: the decoder reads exactly the bytes the encoder wrote
    /// (its 5 first bytes answer the encoder's 5 flushed ones), so a coded part that
    /// was cut, or has bytes added, is noticed here even where its values looked fine.
    pub fn finish(&self) -> Result<(), DecodeError> {
        let (pos, len) = (self.rc.pos, self.rc.data.len());
        if pos > len {
            return Err(self.cut_short("the coded values"));
        }
        if pos < len {
            return Err(error(ErrorKind::BadHeader, pos, format!("{} unexpected bytes follow the coded values", len - pos)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(values: &[(u16, u64)]) -> usize {
        let mut e = Encoder::default();
        for &(s, v) in values {
            e.put(s, v);
        }
        let bytes = e.finish();
        let mut d = Decoder::new(&bytes);
        for &(s, v) in values {
            assert_eq!(d.get(s, "v").unwrap(), v);
        }
        d.finish().unwrap();
        // One byte more or less is noticed.
        let mut longer = bytes.clone();
        longer.push(0);
        let mut d = Decoder::new(&longer);
        values.iter().for_each(|&(s, _)| drop(d.get(s, "v")));
        assert!(d.finish().unwrap_err().message.contains("1 unexpected bytes"));
        let mut d = Decoder::new(&bytes[..bytes.len() - 1]);
        let cut = values.iter().find_map(|&(s, _)| d.get(s, "v").err()).or_else(|| d.finish().err());
        assert!(cut.expect("cut noticed").message.contains("ends in the middle"));
        bytes.len()
    }

    #[test]
    fn values_round_trip_at_every_bit_length() {
        let mut values = vec![(0u16, 0u64), (0, u64::MAX), (1, u64::MAX - 1), (2, 1 << 63), (0, 1)];
        for k in 0..64 {
            values.push(((k % 5) as u16, 1u64 << k));
            values.push(((k % 3) as u16, (1u64 << k) - 1));
        }
        round_trip(&values);
        let mut e = Encoder::default();
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -1000] {
            e.put_signed(7, v);
        }
        let bytes = e.finish();
        let mut d = Decoder::new(&bytes);
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -1000] {
            assert_eq!(d.get_signed(7, "v").unwrap(), v);
        }
    }

    /// Known sizes (exact: the coder is deterministic). 1000 zeros cost 7 bytes (the
    /// 5 flushed ones and a few hundredths of a bit each once learnt; deflate needs 11
    /// plus its block header); 1000 values uniform in 0..8 cost 410 bytes, 3.3 bits
    /// each against the entropy's 3 (the bit-length prefix costs its share); 1000
    /// small steps of a noisy line (mostly 0..3, skewed to 0) cost 355.
    #[test]
    fn sizes_of_known_series() {
        assert_eq!(round_trip(&[(0, 0); 1000]), 7);
        let mut rng = 0x2545F4914F6CDD1Du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let uniform: Vec<(u16, u64)> = (0..1000).map(|_| (1, next() % 8)).collect();
        assert_eq!(round_trip(&uniform), 410);
        let steps: Vec<(u16, u64)> = (0..1000).map(|_| (2, next() % 8 / (1 + next() % 3))).collect();
        assert_eq!(round_trip(&steps), 355);
    }

    #[test]
    fn hostile_input_never_panics_and_ends() {
        // Truncated: a clear error once past the end.
        let mut e = Encoder::default();
        for i in 0..500 {
            e.put(0, i * 977);
        }
        let bytes = e.finish();
        let mut d = Decoder::new(&bytes[..bytes.len() / 2]);
        let err = (0..500).find_map(|_| d.get(0, "a value").err()).expect("cut short is noticed");
        assert!(err.message.contains("ends in the middle of a value"), "{}", err.message);
        // Any bytes decode to values or an error, never a panic.
        for seed in 0..200u64 {
            let junk: Vec<u8> = (0..64).map(|i| (seed.wrapping_mul(0x9E37_79B9) >> (i % 7)) as u8 ^ i as u8).collect();
            let mut d = Decoder::new(&junk);
            for s in 0..50 {
                if d.get(s % 4, "v").is_err() {
                    break;
                }
            }
        }
        // All ones: every "longer" bit is 1 → 64-bit lengths, still total.
        let ones = vec![0xFFu8; 64];
        let mut d = Decoder::new(&ones);
        let _ = d.get(0, "v");
        // Empty input: cut short.
        assert!(Decoder::new(&[]).finish().unwrap_err().message.contains("ends in the middle"));
        let mut d = Decoder::new(&[]);
        let err = (0..100).find_map(|_| d.get(0, "a value").err());
        assert!(err.is_none_or(|e| e.message.contains("ends in the middle")));
    }
}
