//! The same frame captured twice is one packet (issue 13, "Duplicate frames").
//!
//! Where copies come from: `tcpdump -i any` on a host that forwards or bridges sees a
//! packet on the way in and again on the way out (another link header, IPv4 TTL − 1
//! and so a new header checksum, microseconds later); port mirrors and capture
//! set-ups that tap two points do the same, a router's two interfaces, a SPAN of
//! ingress and egress across a WAN hop, two taps merged with mergecap, milliseconds
//! later; in 802.11 monitor mode the radio sends an unacknowledged MPDU again with the
//! Retry bit set and the same sequence number (IEEE 802.11-2020 §10.3.2.14). Wireshark
//! has no such rule (its "duplicate frame" removal is editcap -d, by MD5 of the whole
//! frame, which TTL and checksum defeat), so tshark calls these copies retransmissions
//! and duplicate ACKs.
//!
//! Rule: a segment is a copy of an earlier one when everything the sender put in it
//! is identical — addresses, ports, sequence and acknowledgment numbers, flags, raw
//! window, payload length, TCP timestamps, SACK blocks, MPTCP options and the IPv4 Identification
//! (and, on 802.11, the MAC sequence number) — and it comes within a window that
//! depends on what tells copies from resends. TTL, checksums and link headers are
//! deliberately not compared.
//!
//! Why the IPv4 Identification decides: a real retransmission — by timer (RFC 9293
//! §3.8.1, RFC 6298), after duplicate ACKs (RFC 5681 §3.2, RFC 6675) or by RACK/TLP
//! (RFC 8985) — is a new IP datagram, and most stacks that fill the Identification in
//! draw a new value for every datagram they send: Linux takes it from the socket's
//! counter, advanced by every segment sent (include/net/ip.h `ip_select_ident_segs`,
//! `inet_id += segs`, random start at connect), and builds the header again for a
//! retransmission (`tcp_retransmit_skb` → `tcp_transmit_skb` → `ip_queue_xmit`);
//! Windows increments a counter per datagram; OpenBSD draws a random one. The
//! Identification exists to tell datagrams of one source apart while they may live
//! (RFC 791 §3.1; RFC 6864 §4 keeps that duty only for datagrams that may be
//! fragmented). Three exceptions bound what it tells:
//! - RFC 6864 §4 lets a sender put any value, the same one every time, in an atomic
//!   datagram (DF set, not a fragment): FreeBSD and macOS put 0 there by default
//!   (FreeBSD `ip_fillid` with `net.inet.ip.rfc6864=1`; xnu `ip_output` with
//!   `rfc6864 = 1`), Linux does for its SYN/ACKs and for RSTs sent without a socket
//!   (every IPv4 recording in public/examples has a SYN/ACK with ID 0), and some
//!   embedded stacks and middleboxes write one constant value. So an Identification
//!   counts only when it is non-zero and this direction of the connection has been
//!   seen to change it from one new datagram to the next, and the value itself has
//!   not been seen again on other content. That demotion is of the one value, not of
//!   the direction: a constant value stays repeated on every datagram, while one
//!   datagram altered on the way (a normaliser between two capture points trimming a
//!   resend to its unacknowledged byte, same ID, TTL − 1) says nothing about the
//!   sender's next datagram, which carries a new ID and is copied intact. (Demoting the
//!   direction made every later two-point copy of an EtherNet/IP poll stream, 0.2–36 ms
//!   apart, a retransmission, a tail loss probe or a timeout.)
//! - Some stacks draw a new value per datagram but keep it in a retransmission: the
//!   servers behind 52.94.232.134 in nDPI's `tests/pcap/alexa-app.pcapng` (TTL 255 at
//!   the source, random IDs) resend data 448 ms–1 s later with the original's ID. So
//!   the window ends below the floor of every common retransmission timer (Linux
//!   `TCP_RTO_MIN` 200 ms, Windows 300 ms, RFC 6298 §2.4 1 s), and once a direction
//!   sends an identical datagram with the same ID again after the window (such a
//!   resend), its Identification tells nothing more. What stays unseen: such a
//!   stack's fast retransmit or tail-loss probe within 200 ms of the original, before
//!   it ever resent by timer, is taken for a copy.
//! - A counter comes round after 65,536 datagrams; the same value on a resend within
//!   200 ms needs 327,680 datagrams a second from that counter and then the exact same
//!   count, and, with timestamps (RFC 7323 §5.4: a clock that ticks at least every
//!   second, Linux every ms), a clock that has not ticked.
//!
//! So the window is:
//! - [`WIFI_RETRY_WINDOW_NS`] for an 802.11 frame with the Retry bit (the radio's retry);
//! - [`COPY_WINDOW_TWO_POINTS_NS`] when the Identification tells the datagram (above):
//!   copies from two capture points a few ms to a one-way delay apart (arkime's
//!   `tests/pcap/wireshark-retrans.pcap`: the same Identification again 2–51 ms later;
//!   nDPI's `psiphon3.pcap` 1–12 ms, `capwap_data.pcapng` 9 ms, TTL − 1). Keep-alives
//!   and zero-window probes resend the same byte (RFC 9293 §3.8.4, §3.8.6.1) but as new
//!   datagrams, seconds apart. The same window holds for a SYN or SYN/ACK whatever its
//!   Identification (Linux's SYN/ACK has 0, IPv6 none) when it is the first of its
//!   direction and, for a SYN/ACK, the peer has sent no SYN since: it is its
//!   direction's first datagram, so at a second capture point its copy always comes
//!   before the next one, and the handshake is resent only by the connection's first
//!   retransmission timer, 1 s (RFC 6298 §2.1), or in answer to a SYN sent again
//!   (nDPI's `tls_port_80.pcapng`: the timer's SYN/ACK and the answer 5 ms apart, both
//!   ID 0, are the direction's 2nd and 3rd and stay retransmissions);
//! - [`COPY_WINDOW_NS`] for a non-zero Identification not yet known to change (a
//!   direction's first datagrams): a capture set-up on one host (-i any: 2–200 µs);
//!   but [`COPY_WINDOW_TWO_POINTS_NS`] there too when the copy is "further along": its
//!   TTL lower than the original's (it crossed a router between the two sightings, as on
//!   a tap on both sides of one; a re-send from its source, captured at the same point,
//!   would carry the same TTL) and the peer sent nothing in between (so a re-send could
//!   only be a timer's), the value neither repeated on other content nor kept in a
//!   resend (gopacket `cip.pcap` frames 3/4: the PLC's first answer, ID 0x88e9, TTL 128
//!   then 127, 12.3 ms apart, was a tail loss probe);
//! - [`COPY_WINDOW_NO_ID_NS`] otherwise (IPv6, ID 0, an ID repeated or kept in a
//!   resend): below any retransmission timer. (A receiver's duplicate ACKs 1 ms apart
//!   from a stack with a constant ID are identical: not copies.)
//!
//! On 802.11 the MAC sequence number is part of what is compared only where there is
//! no non-zero IPv4 Identification: it numbers a frame on one hop, so the same
//! datagram heard on two hops (a station to the AP, the AP on to another station) or
//! relayed carries two numbers, while its Identification, sequence and acknowledgment
//! numbers and flags stay those its sender wrote. Seen twice within the window, that is
//! one datagram, not a re-send (a FIN heard again 110 µs later is no tail loss probe).
//! Without an Identification (IPv6, ID 0) the MAC number is the only thing that tells
//! a station's two identical frames apart (duplicate ACKs microseconds apart), so it
//! stays.
//!
//! Without a telling Identification, a segment whose SACK option the snaplen cut off
//! is never a copy: the blocks are the only thing that tells a receiver's back-to-back
//! ACKs during loss recovery apart (same ACK, window and TSval within a millisecond;
//! RFC 2018 §4 puts the newly arrived block first), and the capture lost them (IPv6 at
//! snaplen 96: 24 real ACKs of rx-ipv6-loss.pcap, 30–200 µs apart, were taken for copies).
//!
//! RSTs are never merged: a host answers every segment that reaches a closed socket
//! with a RST built from that segment (RFC 9293 §3.10.7.1), without a socket and so
//! with IPv4 Identification 0, so a burst of them is identical by construction.
//!
//! On Ethernet, a frame logged on its way into a forwarding host and again on its way
//! out (the first addressed to that host, the second sent from it to a third, TTL the
//! same or one less) is a copy within 1 s whatever its Identification: forwarded.rs.
//!
//! A segmentation-offload super-frame followed by its pieces (the same bytes under
//! IDs id, id + 1, …) is left to offload_pieces.rs, asked about every segment not
//! merged here.
//!
//! Memory is constant: a table of recent fingerprints in 8-way buckets, each
//! forgetting its oldest (an original is forgotten only when 8 newer frames fall in
//! its bucket before the copy comes: with 4,096 buckets and 2,000 frames in between,
//! 1 in 10⁷; 30 ms later in a 4,000-frame/s capture a direct-mapped table of 4,096
//! forgot 6 %), and a direct-mapped one of what each direction's datagrams showed; a
//! collision only forgets an original or a direction's evidence (both err towards
//! "not a copy").

use crate::decode::tcp_flags::{ACK, RST, SYN};
use crate::decode::TcpSegment;

/// Copies from one capture set-up arrive within microseconds (-i any: 2–200 µs).
pub const COPY_WINDOW_NS: i64 = 2_000_000;
/// A telling Identification (module doc): copies from two capture points, below the
/// lowest retransmission timer floor (Linux `TCP_RTO_MIN`).
pub const COPY_WINDOW_TWO_POINTS_NS: i64 = 200_000_000;
/// Without an IP Identification to tell copies from resends: 200 µs.
pub const COPY_WINDOW_NO_ID_NS: i64 = 200_000;
/// 802.11 MAC retries follow within the MAC's retry limit (tens of ms).
pub const WIFI_RETRY_WINDOW_NS: i64 = 500_000_000;
/// Buckets of the fingerprint table, each holding the last WAYS new frames whose
/// fingerprint falls in it (32,768 frames, 544 KiB).
const BUCKETS: usize = 4096;
const WAYS: usize = 8;
const DIRECTIONS: usize = 4096;

/// Keys apart from times, so the per-packet scan is one vector compare of 8 keys.
#[derive(Clone, Copy, Default)]
struct Bucket {
    keys: [u64; WAYS],
    t_ns: [i64; WAYS],
    /// The frame's IPv4 TTL + 1 (0: none).
    ttl: [u16; WAYS],
    /// The frame's MAC addresses (`FrameId::macs`, forwarded.rs).
    macs: [[u32; 2]; WAYS],
    /// The way the next new frame overwrites: the bucket's oldest.
    next: u8,
}

/// What one direction of a connection showed in its new datagrams (not copies).
#[derive(Clone, Copy, Default)]
struct Direction {
    key: u64,
    /// The last non-zero IPv4 Identification (0: none yet).
    last_id: u16,
    /// A new datagram's ID differed from the one before.
    changes: bool,
    /// The last ID a new datagram carried again on other content (0: none): that ID
    /// tells nothing more, the others still do (module doc).
    repeated_id: u16,
    /// An identical datagram, ID included, came again after the window: a resend.
    keeps_id: bool,
    /// New datagrams with SYN, and the time of the last.
    syns: u8,
    syn_t_ns: i64,
    /// The time of the last new segment (0: none).
    last_ns: i64,
}

impl Direction {
    /// The Identification `id` tells which datagram a segment is (module doc).
    fn id_tells(&self, id: u16) -> bool {
        self.changes && self.repeated_id != id && !self.keeps_id
    }
}

pub struct DuplicateFilter {
    buckets: Box<[Bucket]>,
    /// Direct-mapped by the hash of addresses and ports.
    directions: Box<[Direction]>,
    /// Frames recognised as copies (all kinds).
    pub duplicates: u64,
    /// Of those, 802.11 MAC-layer retries.
    pub wifi_retries: u64,
    /// Pieces of segmentation-offload super-frames (offload_pieces.rs), counted in
    /// `duplicates` too.
    pub offload: super::offload_pieces::OffloadPieces,
    /// Copies logged on the way into a forwarding host and out again (forwarded.rs),
    /// counted in `duplicates` too.
    pub forwarded: super::forwarded::Forwarded,
}

impl Default for DuplicateFilter {
    fn default() -> Self {
        DuplicateFilter {
            buckets: vec![Bucket::default(); BUCKETS].into_boxed_slice(),
            directions: vec![Direction::default(); DIRECTIONS].into_boxed_slice(),
            duplicates: 0,
            wifi_retries: 0,
            offload: Default::default(),
            forwarded: Default::default(),
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

/// The hash of one direction (source, destination, ports), never 0 (an empty entry);
/// the first rounds of the segment's fingerprint.
fn direction_hash(src: std::net::IpAddr, dst: std::net::IpAddr, src_port: u16, dst_port: u16) -> (u64, u64) {
    let (src_lo, src_hi) = addr_words(src);
    let (dst_lo, dst_hi) = addr_words(dst);
    let mut h = 0u64;
    for word in [src_lo, src_hi, dst_lo, dst_hi, (src_port as u64) << 16 | dst_port as u64] {
        h = mix(h, word);
    }
    (h, (h ^ h >> 29) | 1)
}

/// Everything the sender put in the segment (module doc), deterministic (the same
/// capture always gives the same answer), and the hash of its direction on the way;
/// 0 is never returned (it marks an empty slot).
fn fingerprint(s: &TcpSegment) -> (u64, u64) {
    let (mut h, direction) = direction_hash(s.src, s.dst, s.src_port, s.dst_port);
    let (ts_val, ts_ecr) = s.options.timestamp.map_or((u64::MAX, u64::MAX), |(v, e)| (v as u64, e as u64));
    let ip_id = s.frame_id.ip_id.map_or(1 << 17, |id| id as u64);
    // The 802.11 sequence number names a frame on one hop: the station that sends it
    // numbers it (IEEE 802.11-2020 §10.3.2.14.2), so an AP relaying a station's
    // datagram to another, or a monitor hearing both hops, shows one datagram under
    // two numbers. A non-zero IPv4 Identification names the datagram itself: where
    // there is one, the MAC number is left out, so such a copy is one (module doc).
    let wifi_seq = match s.frame_id.ip_id {
        Some(id) if id != 0 => 1 << 18,
        _ => s.frame_id.wifi.map_or(1 << 17, |w| w.1 as u64),
    };
    for word in [
        (s.flags as u64) << 16 | s.window as u64,
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
    // MPTCP options are the sender's too: Linux sends ADD_ADDR, REMOVE_ADDR and MP_PRIO
    // on pure ACKs otherwise identical to the one before (RFC 8684 §3.4, §3.3.8), and
    // a DSS's data ACK or mapping can be all that tells two ACKs apart. A copy carries
    // the very same option, so its content goes in.
    if let Some(m) = s.mptcp.as_deref() {
        use std::hash::{Hash, Hasher};
        let mut hasher = crate::fxhash::FxHasher::default();
        m.hash(&mut hasher);
        h = mix(h, hasher.finish());
    }
    // Fold the well-mixed high bits down: the slot index is taken from bits 20 and up.
    (direction, (h ^ h >> 29) | 1)
}

/// Everything the segment is, its timestamp, TTL and frame length included: the same
/// packet written twice in one file (timeline.rs, Repeats). Never 0.
pub fn exact_identity(s: &TcpSegment) -> u64 {
    let (_, key) = fingerprint(s);
    let frame = u64::from(s.wire_len) << 16 | s.frame_id.ip_ttl.map_or(1 << 8, u64::from) | u64::from(s.flags & RST) << 10;
    mix(mix(key, s.ts_ns as u64), frame) | 1
}

impl DuplicateFilter {
    /// The identical datagram `seg`, its original of TTL + 1 `ttl` at `t_ns`, seen
    /// further along the path (module doc, "further along"): a lower TTL, the same
    /// non-zero Identification not known to be constant or kept in resends, within
    /// [`COPY_WINDOW_TWO_POINTS_NS`], and nothing from the peer in between.
    fn further_along(&self, seg: &TcpSegment, seen: &Direction, ttl: u16, t_ns: i64) -> bool {
        let (Some(id), Some(now)) = (seg.frame_id.ip_id.filter(|&id| id != 0), seg.frame_id.ip_ttl) else { return false };
        if u16::from(now) + 1 >= ttl || seen.repeated_id == id || seen.keeps_id || seg.ts_ns - t_ns > COPY_WINDOW_TWO_POINTS_NS {
            return false;
        }
        self.direction(direction_hash(seg.dst, seg.src, seg.dst_port, seg.src_port).1).last_ns <= t_ns
    }

    fn direction(&self, key: u64) -> Direction {
        let d = self.directions[(key >> 20) as usize % DIRECTIONS];
        if d.key == key {
            d
        } else {
            Direction { key, ..Direction::default() }
        }
    }

    /// True when `seg` is a copy of a recent frame (and counts it); false for a new
    /// frame, which is remembered.
    pub fn is_copy(&mut self, seg: &TcpSegment) -> bool {
        if seg.flags & RST != 0 {
            return false;
        }
        let (direction, key) = fingerprint(seg);
        let wifi_retry = seg.frame_id.wifi.is_some_and(|(retry, _)| retry);
        let id = seg.frame_id.ip_id.filter(|&id| id != 0);
        let seen = self.direction(direction);
        let handshake = seg.flags & SYN != 0;
        // The copy of its direction's first SYN, no SYN from the peer since (an
        // identical SYN/ACK then may answer it).
        let first_handshake = handshake
            && seen.syns == 1
            && (seg.flags & ACK == 0 || {
                let peer = self.direction(direction_hash(seg.dst, seg.src, seg.dst_port, seg.src_port).1);
                peer.syns > 0 && peer.syn_t_ns <= seen.syn_t_ns
            });
        let window = match id {
            _ if wifi_retry => WIFI_RETRY_WINDOW_NS,
            _ if first_handshake => COPY_WINDOW_TWO_POINTS_NS,
            Some(id) if seen.id_tells(id) => COPY_WINDOW_TWO_POINTS_NS,
            Some(_) if !seen.changes && seen.repeated_id == 0 && !seen.keeps_id => COPY_WINDOW_NS,
            _ => COPY_WINDOW_NO_ID_NS,
        };
        // (A forwarder's copy is told by its MAC addresses, not by its SACK blocks.)
        let unreadable = seg.options.sack_unreadable && window == COPY_WINDOW_NO_ID_NS;
        if unreadable && seg.frame_id.macs[0] == 0 {
            return false;
        }
        // Read in place, not copied (216 bytes per packet: issues 41, 43).
        let bucket = &self.buckets[(key >> 20) as usize % BUCKETS];
        // Any key match at all is rare; only then look at the times. The original's
        // time is kept: the 3rd and 4th copies compare with it too.
        // An identical datagram (ID included) seen before at all, and later than any copy.
        let (mut again, mut resent) = (false, false);
        if bucket.keys.contains(&key) {
            // A forwarder's copy (forwarded.rs) of whichever identical frame it sent on,
            // the latest: its delay is the forwarder's.
            let forwarded = (0..WAYS)
                .filter(|&i| bucket.keys[i] == key && super::forwarded::sent_on(bucket.macs[i], bucket.ttl[i], seg))
                .map(|i| seg.ts_ns.wrapping_sub(bucket.t_ns[i]))
                .filter(|after| (0..=super::forwarded::FORWARD_WINDOW_NS).contains(after))
                .min();
            if let Some(after) = forwarded {
                self.forwarded.add(after);
                self.duplicates += 1;
                return true;
            }
            for i in 0..WAYS {
                if bucket.keys[i] == key {
                    let after = seg.ts_ns.wrapping_sub(bucket.t_ns[i]);
                    if (!unreadable && (0..=window).contains(&after)) || (!unreadable && after >= 0 && self.further_along(seg, &seen, bucket.ttl[i], bucket.t_ns[i])) {
                        self.duplicates += 1;
                        if wifi_retry {
                            self.wifi_retries += 1;
                        }
                        return true;
                    }
                    again = true;
                    resent |= after > COPY_WINDOW_TWO_POINTS_NS;
                }
            }
        }
        if self.offload.is_piece(direction, seg) {
            self.duplicates += 1;
            return true;
        }
        let bucket = &mut self.buckets[(key >> 20) as usize % BUCKETS];
        let way = bucket.next as usize % WAYS;
        bucket.keys[way] = key;
        bucket.t_ns[way] = seg.ts_ns;
        bucket.ttl[way] = seg.frame_id.ip_ttl.map_or(0, |t| u16::from(t) + 1);
        bucket.macs[way] = seg.frame_id.macs;
        bucket.next = ((way + 1) % WAYS) as u8;
        // A new datagram: what it shows of its direction. (Copies carry old values and
        // say nothing about the sender's next datagram.)
        {
            let mut d = seen;
            d.last_ns = seg.ts_ns;
            if let Some(id) = id {
                // The same ID on other content is a constant ID, or one datagram
                // altered on the way (a normaliser trimming a resend's acknowledged
                // bytes): that ID tells nothing more, the sender's next ones still
                // do. On the same content it is a copy the window missed, or a resend
                // (`resent`).
                if d.last_id != 0 {
                    d.changes |= d.last_id != id;
                    if d.last_id == id && !again {
                        d.repeated_id = id;
                    }
                }
                d.last_id = id;
                d.keeps_id |= resent;
            }
            if handshake {
                d.syns = d.syns.saturating_add(1);
                d.syn_t_ns = seg.ts_ns;
            }
            self.directions[(direction >> 20) as usize % DIRECTIONS] = d;
        }
        false
    }
}

#[cfg(test)]
#[path = "duplicates_tests.rs"]
mod tests;
