//! Relative, unwrapped sequence numbers (RFC 9293 §3.4: sequence space is modulo 2^32).
//!
//! Base, as Wireshark's `tcp_analyze_sequence_number` (packet-tcp.c): the first
//! segment a side sends sets `base_seq = seq` when it is a SYN (so the SYN is
//! relative 0 and the first data byte 1) and `base_seq = seq - 1` otherwise (so,
//! without a handshake, the first seen sequence number is relative **1**, "bug
//! 1542"). A side that has not sent anything yet gets its base from the first
//! segment of the *other* side carrying the ACK flag: `base_seq = ack - 1` ("There's
//! no guarantee that the ACK field of a SYN contains zeros; get the ISN from the
//! first segment with the ACK bit set instead").
//!
//! Unwrapping: Wireshark shows relative numbers modulo 2^32; tcpscope unwraps them
//! to 64 bits so that long transfers (> 4 GiB) keep increasing. Each value is
//! placed nearest to the highest value seen so far (a signed 32-bit difference,
//! like the SEQ_LT/SEQ_GT comparisons of RFC 9293 implementations), so anything
//! within ±2 GiB of the current edge unwraps correctly. Values before the base
//! (e.g. a retransmitted segment older than the first one captured) come out
//! negative rather than as huge wrapped numbers.

/// Sequence space of one side of a connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqSpace {
    base: u32,
    set: bool,
    /// Highest raw value seen and its unwrapped offset from `base`.
    ref_raw: u32,
    ref_off: i64,
}

impl SeqSpace {
    pub fn is_set(&self) -> bool {
        self.set
    }
    /// Wireshark's base_seq (raw), if known.
    pub fn base(&self) -> Option<u32> {
        self.set.then_some(self.base)
    }
    /// Sets the base once (later calls are ignored, as TCP_S_BASE_SEQ_SET in Wireshark).
    pub fn set_base(&mut self, base: u32) {
        if !self.set {
            self.set = true;
            self.base = base;
            self.ref_raw = base;
            self.ref_off = 0;
        }
    }
    /// Unwrapped value of `raw` relative to the base; also advances the reference
    /// when `raw` is beyond it. Call only after the base is set.
    pub fn rel(&mut self, raw: u32) -> i64 {
        let off = self.ref_off + (raw.wrapping_sub(self.ref_raw) as i32) as i64;
        if off > self.ref_off {
            self.ref_raw = raw;
            self.ref_off = off;
        }
        off
    }
}

/// Signed distance a - b in sequence space (RFC 9293 §3.4 comparisons).
#[inline]
pub fn seq_diff(a: u32, b: u32) -> i32 {
    a.wrapping_sub(b) as i32
}
/// Wireshark's GT_SEQ.
#[inline]
pub fn gt_seq(a: u32, b: u32) -> bool {
    seq_diff(a, b) > 0
}
/// Wireshark's LT_SEQ.
#[inline]
pub fn lt_seq(a: u32, b: u32) -> bool {
    seq_diff(a, b) < 0
}
/// Wireshark's LE_SEQ.
#[inline]
pub fn le_seq(a: u32, b: u32) -> bool {
    seq_diff(a, b) <= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syn_is_zero_first_byte_is_one() {
        let mut s = SeqSpace::default();
        s.set_base(1000); // SYN with ISN 1000: base = seq
        assert_eq!(s.rel(1000), 0); // the SYN itself
        assert_eq!(s.rel(1001), 1); // first data byte
    }

    #[test]
    fn without_syn_first_seen_is_one() {
        let mut s = SeqSpace::default();
        let first_seq = 777_000u32;
        s.set_base(first_seq.wrapping_sub(1)); // Wireshark: base_seq = seq - 1
        assert_eq!(s.rel(first_seq), 1);
        assert_eq!(s.rel(first_seq + 1448), 1449);
    }

    #[test]
    fn unwraps_across_2_pow_32() {
        let mut s = SeqSpace::default();
        let isn = u32::MAX - 99; // 100 sequence numbers before the wrap
        s.set_base(isn);
        assert_eq!(s.rel(isn.wrapping_add(50)), 50);
        // 0 raw is 100 past the ISN: 2^32 - (2^32 - 100) = 100.
        assert_eq!(s.rel(0), 100);
        // Keep going: 3 GiB later still increases (steps below 2 GiB each).
        let mut raw = 0u32;
        for _ in 0..3 {
            raw = raw.wrapping_add(1 << 30);
            s.rel(raw);
        }
        assert_eq!(s.rel(raw), 100 + 3 * (1i64 << 30));
        // Full wrap: another 1 GiB passes 2^32 since the ISN; value keeps growing.
        raw = raw.wrapping_add(1 << 30);
        assert_eq!(s.rel(raw), 100 + 4 * (1i64 << 30));
        // A retransmission slightly behind the edge is placed just before it.
        assert_eq!(s.rel(raw.wrapping_sub(1448)), 100 + 4 * (1i64 << 30) - 1448);
    }

    #[test]
    fn before_base_is_negative() {
        let mut s = SeqSpace::default();
        s.set_base(10);
        assert_eq!(s.rel(5), -5);
    }

    #[test]
    fn base_is_set_once() {
        let mut s = SeqSpace::default();
        s.set_base(10);
        s.set_base(99);
        assert_eq!(s.base(), Some(10));
    }

    #[test]
    fn seq_comparisons_wrap() {
        assert!(gt_seq(5, u32::MAX - 5)); // 5 is 11 after 2^32-6
        assert!(lt_seq(u32::MAX, 0));
        assert!(le_seq(7, 7));
    }
}
