//! The byte layer of snapshots: LEB128 varints (unsigned and zigzag), little-endian
//! f64, raw deflate (RFC 1951, what the browser's `CompressionStream('deflate-raw')`
//! writes, so links made by the first-round TypeScript writer inflate here too) and
//! base64url (RFC 4648 §5, unpadded). The reader never reads past its slice: every
//! shortfall is a `DecodeError` (layer `snapshot`) with the payload offset.

use crate::error::{DecodeError, ErrorKind, Layer};

pub fn error(kind: ErrorKind, offset: usize, message: impl Into<String>) -> DecodeError {
    DecodeError::new(Layer::Snapshot, kind, None, Some(offset as u64), message)
}

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    pub fn uvarint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    /// Zigzag (0, −1, 1, −2 … → 0, 1, 2, 3 …) then LEB128.
    pub fn svarint(&mut self, v: i64) {
        self.uvarint(((v << 1) ^ (v >> 63)) as u64);
    }

    pub fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn str(&mut self, s: &str) {
        self.uvarint(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }
}

/// Bounds-checked reader; `what` names the field for the error message.
pub struct Reader<'a> {
    buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn fail(&self, message: impl Into<String>) -> DecodeError {
        error(ErrorKind::BadHeader, self.pos, message)
    }

    fn short(&self, what: &str) -> DecodeError {
        error(ErrorKind::Truncated, self.pos, format!("the data ends in the middle of {what}"))
    }

    pub fn byte(&mut self, what: &str) -> Result<u8, DecodeError> {
        let b = *self.buf.get(self.pos).ok_or_else(|| self.short(what))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.short(what));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub fn uvarint(&mut self, what: &str) -> Result<u64, DecodeError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte(what)?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.fail(format!("{what} is not a number (its varint runs past 64 bits)")))
    }

    /// An unsigned varint that must be ≤ `max` (counts, lengths, indices).
    pub fn count(&mut self, max: u64, what: &str) -> Result<u64, DecodeError> {
        let v = self.uvarint(what)?;
        if v > max {
            return Err(self.fail(format!("{what} is {v}, more than the {max} a snapshot may hold")));
        }
        Ok(v)
    }

    pub fn svarint(&mut self, what: &str) -> Result<i64, DecodeError> {
        let z = self.uvarint(what)?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    pub fn f64(&mut self, what: &str) -> Result<f64, DecodeError> {
        let b = self.bytes(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// A finite f64 within ±`limit`.
    pub fn finite(&mut self, limit: f64, what: &str) -> Result<f64, DecodeError> {
        let v = self.f64(what)?;
        if !v.is_finite() || v.abs() > limit {
            return Err(self.fail(format!("{what} is {}, outside ±{limit:e}", crate::view::request::fmt_t(v))));
        }
        Ok(v)
    }

    pub fn str(&mut self, max: usize, what: &str) -> Result<&'a str, DecodeError> {
        let n = self.count(max as u64, what)? as usize;
        let b = self.bytes(n, what)?;
        std::str::from_utf8(b).map_err(|_| self.fail(format!("{what} is not UTF-8 text")))
    }
}

/// Raw deflate, best compression (links are small; the time is negligible).
pub fn deflate(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(data, 10)
}

/// Raw inflate of at most `limit` bytes (against zip bombs).
pub fn inflate(data: &[u8], limit: usize, offset: usize) -> Result<Vec<u8>, DecodeError> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(data, limit).map_err(|e| {
        let why = match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!("it unpacks to more than the {limit} bytes it announced"),
            _ => "the compressed data is corrupt or cut short".to_string(),
        };
        error(ErrorKind::Malformed, offset, why)
    })
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn to_base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |a, (i, &b)| a | (b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// None when `text` is not unpadded base64url (trailing '=' tolerated).
pub fn from_base64url(text: &str) -> Option<Vec<u8>> {
    let clean = text.trim_end_matches('=').as_bytes();
    if clean.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in clean {
        let d = ALPHABET.iter().position(|&a| a == c)? as u32;
        acc = (acc << 6 | d) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_base64_round_trip() {
        let mut w = Writer::default();
        for v in [0i64, -1, 1, 63, -64, 1 << 40, i64::MIN, i64::MAX] {
            w.svarint(v);
        }
        w.uvarint(u64::MAX);
        let mut r = Reader::new(&w.buf);
        for v in [0i64, -1, 1, 63, -64, 1 << 40, i64::MIN, i64::MAX] {
            assert_eq!(r.svarint("v").unwrap(), v);
        }
        assert_eq!(r.uvarint("v").unwrap(), u64::MAX);
        assert!(r.byte("end").is_err());
        for n in 0..7 {
            let data: Vec<u8> = (0..n).map(|i| (i * 97 + 13) as u8).collect();
            assert_eq!(from_base64url(&to_base64url(&data)).unwrap(), data);
        }
        assert_eq!(to_base64url(b"\xfb\xff"), "-_8");
        assert!(from_base64url("ab+c").is_none());
        assert!(from_base64url("abcde").is_none());
    }

    #[test]
    fn inflate_is_bounded() {
        let big = vec![0u8; 100_000];
        let packed = deflate(&big);
        assert!(packed.len() < 200);
        assert_eq!(inflate(&packed, 100_000, 0).unwrap(), big);
        assert!(inflate(&packed, 99_999, 0).unwrap_err().message.contains("more than"));
        assert!(inflate(&packed[..packed.len() / 2], 100_000, 0).is_err());
    }
}
