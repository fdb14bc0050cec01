//! The same frame captured twice is one packet (issue 13, "Duplicate frames").
//!
//! Where copies come from: `tcpdump -i any` on a host that forwards or bridges sees a
//! packet on the way in and again on the way out (another link header, IPv4 TTL − 1
//! and so a new header checksum, microseconds later); port mirrors and capture
//! set-ups that tap two points do the same; in 802.11 monitor mode the radio sends an
//! unacknowledged MPDU again with the Retry bit set and the same sequence number
//! (IEEE 802.11-2020 §10.3.2.14). Wireshark has no such rule (its "duplicate frame"
//! removal is editcap -d, by MD5 of the whole frame, which TTL and checksum defeat),
//! so tshark calls these copies retransmissions and duplicate ACKs.
//!
//! Rule: a segment is a copy of an earlier one when everything the sender put in it
//! is identical — addresses, ports, sequence and acknowledgment numbers, flags, raw
//! window, payload length, TCP timestamps, SACK blocks and the IPv4 Identification
//! (and, on 802.11, the MAC sequence number) — and it comes within
//! [`COPY_WINDOW_NS`] of it (or [`WIFI_RETRY_WINDOW_NS`] for an 802.11 frame with the
//! Retry bit). TTL, checksums and link headers are deliberately not compared.
//! A real TCP retransmission differs: it carries a new IPv4 Identification (Linux,
//! Windows and macOS draw a new one per packet sent) and usually a new TSval, and it
//! cannot come sooner than a retransmission timer or a round of duplicate ACKs.
//! Without an Identification (IPv6, or IPv4 ID 0 from stacks that set DF) the
//! window shrinks to [`COPY_WINDOW_NO_ID_NS`], below any retransmission timer.
//!
//! RSTs are never merged: a host answers every segment that reaches a closed socket
//! with a RST built from that segment (RFC 9293 §3.10.7.1), without a socket and so
//! with IPv4 Identification 0, so a burst of them is identical by construction.
//!
//! Memory is constant: a direct-mapped table of recent fingerprints (a copy is
//! normally a few frames after its original); a collision only forgets an original.

use crate::decode::TcpSegment;
use std::hash::{Hash, Hasher};

/// Copies from one capture set-up arrive within microseconds (-i any: 2–200 µs).
pub const COPY_WINDOW_NS: i64 = 2_000_000;
/// Without an IP Identification to tell copies from resends: 200 µs.
pub const COPY_WINDOW_NO_ID_NS: i64 = 200_000;
/// 802.11 MAC retries follow within the MAC's retry limit (tens of ms).
pub const WIFI_RETRY_WINDOW_NS: i64 = 500_000_000;
const SLOTS: usize = 4096;
const RECENT: usize = 32;

#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    t_ns: i64,
}

pub struct DuplicateFilter {
    slots: Box<[Slot]>,
    /// The last RECENT fingerprints, checked first: a copy within a few frames must
    /// not be lost to a collision in `slots` (1 in 4096 per frame in between).
    recent: [Slot; RECENT],
    next: usize,
    /// Frames recognised as copies (all kinds).
    pub duplicates: u64,
    /// Of those, 802.11 MAC-layer retries.
    pub wifi_retries: u64,
}

impl Default for DuplicateFilter {
    fn default() -> Self {
        DuplicateFilter {
            slots: vec![Slot::default(); SLOTS].into_boxed_slice(),
            recent: [Slot::default(); RECENT],
            next: 0,
            duplicates: 0,
            wifi_retries: 0,
        }
    }
}

/// FNV-1a: small, deterministic (the same capture always gives the same answer).
struct Fnv(u64);
impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

fn fingerprint(s: &TcpSegment) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    (s.src, s.dst, s.src_port, s.dst_port, s.seq, s.ack, s.flags, s.window).hash(&mut h);
    (s.payload_len, s.options.timestamp, s.frame_id.ip_id, s.frame_id.wifi.map(|w| w.1)).hash(&mut h);
    s.options.sack_blocks[..s.options.sack_count.min(4) as usize].hash(&mut h);
    h.finish() | 1 // 0 marks an empty slot
}

impl DuplicateFilter {
    /// True when `seg` is a copy of a recent frame (and counts it); false for a new
    /// frame, which is remembered.
    pub fn is_copy(&mut self, seg: &TcpSegment) -> bool {
        if seg.flags & crate::decode::tcp_flags::RST != 0 {
            return false;
        }
        let key = fingerprint(seg);
        let wifi_retry = seg.frame_id.wifi.is_some_and(|(retry, _)| retry);
        let window = if wifi_retry {
            WIFI_RETRY_WINDOW_NS
        } else if seg.frame_id.ip_id.is_some_and(|id| id != 0) {
            COPY_WINDOW_NS
        } else {
            COPY_WINDOW_NO_ID_NS
        };
        let within = |s: &Slot| s.key == key && (0..=window).contains(&seg.ts_ns.wrapping_sub(s.t_ns));
        let index = (key >> 20) as usize % SLOTS;
        // Keep the original's time: the 3rd and 4th copies compare with it too.
        if self.recent.iter().any(within) || within(&self.slots[index]) {
            self.duplicates += 1;
            if wifi_retry {
                self.wifi_retries += 1;
            }
            return true;
        }
        let slot = Slot { key, t_ns: seg.ts_ns };
        self.slots[index] = slot;
        self.recent[self.next] = slot;
        self.next = (self.next + 1) % RECENT;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testseg::Seg;

    fn data(t_ms: f64, ip_id: u16) -> TcpSegment {
        let mut s = Seg::a_to_b(t_ms / 1000.0).seq(1001).ack(1).len(1448).build();
        s.frame_id.ip_id = Some(ip_id);
        s
    }

    #[test]
    fn any_interface_copies_are_dropped_resends_are_not() {
        let mut f = DuplicateFilter::default();
        assert!(!f.is_copy(&data(0.0, 7)));
        // The forwarded copy 150 µs later (TTL and link header differ; not compared).
        assert!(f.is_copy(&data(0.15, 7)));
        assert!(f.is_copy(&data(0.19, 7)));
        // The same bytes resent 200 ms later by an RTO carry a new IP ID: kept.
        assert!(!f.is_copy(&data(200.0, 9)));
        // Same ID but 3 ms later: outside the copy window, kept.
        assert!(!f.is_copy(&data(203.1, 9)));
        assert_eq!((f.duplicates, f.wifi_retries), (2, 0));
    }

    #[test]
    fn wifi_retry_with_same_sequence_number() {
        let mut f = DuplicateFilter::default();
        let mut a = data(0.0, 5);
        a.frame_id.wifi = Some((false, 100));
        let mut retry = data(64.0, 5);
        retry.frame_id.wifi = Some((true, 100));
        assert!(!f.is_copy(&a));
        // 64 ms later with Retry set and the same MAC sequence number: a MAC retry,
        // not a 64 ms retransmission timeout.
        assert!(f.is_copy(&retry));
        // Without the Retry bit, 64 ms is far too late for a capture copy.
        let mut late = data(128.0, 5);
        late.frame_id.wifi = Some((false, 100));
        assert!(!f.is_copy(&late));
        assert_eq!((f.duplicates, f.wifi_retries), (1, 1));
    }

    #[test]
    fn no_ip_id_uses_the_short_window() {
        let mut f = DuplicateFilter::default();
        assert!(!f.is_copy(&data(0.0, 0)));
        assert!(f.is_copy(&data(0.1, 0)));
        assert!(!f.is_copy(&data(1.0, 0)));
    }
}
