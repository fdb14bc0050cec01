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
//! And without one, a segment whose SACK option the snaplen cut off is never a copy:
//! the blocks are the only thing that tells a receiver's back-to-back ACKs during
//! loss recovery apart (same ACK, window and TSval within a millisecond; RFC 2018 §4
//! puts the newly arrived block first), and the capture lost them (IPv6 at snaplen 96:
//! 24 real ACKs of rx-ipv6-loss.pcap, 30–200 µs apart, were taken for copies).
//!
//! RSTs are never merged: a host answers every segment that reaches a closed socket
//! with a RST built from that segment (RFC 9293 §3.10.7.1), without a socket and so
//! with IPv4 Identification 0, so a burst of them is identical by construction.
//!
//! Memory is constant: a direct-mapped table of recent fingerprints (a copy is
//! normally a few frames after its original); a collision only forgets an original.

use crate::decode::TcpSegment;

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
    /// The last RECENT fingerprints and their times: a copy within a few frames must
    /// not be lost to a collision in `slots` (1 in 4096 per frame in between). Keys
    /// apart from times, so the per-packet scan is one vector compare of 32 keys.
    recent_keys: [u64; RECENT],
    recent_t_ns: [i64; RECENT],
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
            recent_keys: [0; RECENT],
            recent_t_ns: [0; RECENT],
            next: 0,
            duplicates: 0,
            wifi_retries: 0,
        }
    }
}

/// Mixes one 64-bit word into the fingerprint (multiply-rotate, as FxHash): a few
/// cycles per word. Word-wise, not byte-wise: this runs for every packet, and the
/// byte-at-a-time FNV-1a it replaces was ~15 % of the native analysis (perf, issue 16).
#[inline]
fn mix(h: u64, word: u64) -> u64 {
    (h.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// An address as two words, with its family (IPv4 ≠ IPv4-mapped IPv6).
#[inline]
fn addr_words(a: std::net::IpAddr) -> (u64, u64) {
    match a {
        std::net::IpAddr::V4(v4) => (u32::from(v4) as u64, 4),
        std::net::IpAddr::V6(v6) => {
            let bits = u128::from(v6);
            (bits as u64, (bits >> 64) as u64 ^ 6 << 60)
        }
    }
}

/// Everything the sender put in the segment (module doc), deterministic (the same
/// capture always gives the same answer); 0 is never returned (it marks an empty slot).
fn fingerprint(s: &TcpSegment) -> u64 {
    let (src_lo, src_hi) = addr_words(s.src);
    let (dst_lo, dst_hi) = addr_words(s.dst);
    let (ts_val, ts_ecr) = s.options.timestamp.map_or((u64::MAX, u64::MAX), |(v, e)| (v as u64, e as u64));
    let ip_id = s.frame_id.ip_id.map_or(1 << 17, |id| id as u64);
    let wifi_seq = s.frame_id.wifi.map_or(1 << 17, |w| w.1 as u64);
    let mut h = 0u64;
    for word in [
        src_lo,
        src_hi,
        dst_lo,
        dst_hi,
        (s.src_port as u64) << 48 | (s.dst_port as u64) << 32 | (s.flags as u64) << 16 | s.window as u64,
        (s.seq as u64) << 32 | s.ack as u64,
        s.payload_len as u64 | ip_id << 32,
        ts_val << 32 | ts_ecr,
        wifi_seq | (s.options.sack_count.min(4) as u64) << 20,
    ] {
        h = mix(h, word);
    }
    for &(left, right) in &s.options.sack_blocks[..s.options.sack_count.min(4) as usize] {
        h = mix(h, (left as u64) << 32 | right as u64);
    }
    // Fold the well-mixed high bits down: the slot index is taken from bits 20 and up.
    (h ^ h >> 29) | 1
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
        let has_id = seg.frame_id.ip_id.is_some_and(|id| id != 0);
        if seg.options.sack_unreadable && !has_id && !wifi_retry {
            return false;
        }
        let window = if wifi_retry {
            WIFI_RETRY_WINDOW_NS
        } else if has_id {
            COPY_WINDOW_NS
        } else {
            COPY_WINDOW_NO_ID_NS
        };
        let within = |s: &Slot| s.key == key && (0..=window).contains(&seg.ts_ns.wrapping_sub(s.t_ns));
        let index = (key >> 20) as usize % SLOTS;
        let recent_match = || {
            // Any key match at all is rare; only then look at the times.
            self.recent_keys.iter().any(|&k| k == key)
                && (0..RECENT).any(|i| within(&Slot { key: self.recent_keys[i], t_ns: self.recent_t_ns[i] }))
        };
        // Keep the original's time: the 3rd and 4th copies compare with it too.
        if within(&self.slots[index]) || recent_match() {
            self.duplicates += 1;
            if wifi_retry {
                self.wifi_retries += 1;
            }
            return true;
        }
        self.slots[index] = Slot { key, t_ns: seg.ts_ns };
        self.recent_keys[self.next] = key;
        self.recent_t_ns[self.next] = seg.ts_ns;
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
    fn acks_with_a_cut_sack_option_and_no_ip_id_are_never_copies() {
        // IPv6 at snaplen 96: a receiver's ACKs 50 µs apart during recovery, identical
        // but for the SACK blocks the capture cut off: two ACKs, not one and a copy.
        let ack = |t_ms: f64| {
            let mut s = Seg::b_to_a(t_ms / 1000.0).seq(1).ack(1001).ts(7, 9).sack_cut().build();
            s.frame_id.ip_id = None;
            s
        };
        let mut f = DuplicateFilter::default();
        assert!(!f.is_copy(&ack(0.0)));
        assert!(!f.is_copy(&ack(0.05)));
        // With an IPv4 Identification the ID decides, as for any segment.
        let mut g = DuplicateFilter::default();
        let mut a = ack(0.0);
        a.frame_id.ip_id = Some(42);
        let mut b = ack(0.05);
        b.frame_id.ip_id = Some(42);
        assert!(!g.is_copy(&a));
        assert!(g.is_copy(&b));
        assert_eq!((f.duplicates, g.duplicates), (0, 1));
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
