//! A datagram logged on its way into a forwarding host and again on its way out is
//! one datagram, whatever its IPv4 Identification (docs/ANALYSIS.md "Duplicate
//! frames", "forwarded").
//!
//! What shows it: on Ethernet, a host that bridges or routes receives a frame
//! addressed to its own MAC and sends it on from that MAC to the next hop. A capture
//! on that host (the bridge interface, `-i any`, a capture of both ports) logs both
//! frames: the first with the capturing host's MAC as destination, the second with it
//! as source and another host's as destination, the IP and TCP headers identical but
//! for the TTL (a bridge leaves it, a router takes one off: RFC 1812 §5.3.1), a few
//! µs to tens of ms apart (the forwarder's own delay). A re-send can't take that
//! shape: its sender sends it again from its own MAC, so its first sighting has the
//! sender's MAC as source, as the original's did. This evidence stands where the
//! Identification tells nothing: a sender that writes 0 in every atomic datagram
//! (RFC 6864 §4: FreeBSD, macOS, iOS), or IPv6.
//!
//! Evidence: jungvely97 photobee_file `pcapng_animalpicture.pcapng` (review Z class
//! C-CAPTURE-COPY-AS-RETRANSMISSION), connection 16, an iPhone (IP ID 0, DF) uploading
//! 1.6 MB through 88:36:6c:f3:98:80: frame 677 8c:8e:f2:ce:c8:76 → 88:36:6c:f3:98:80
//! and 678 88:36:6c:f3:98:80 → ac:3f:a4:96:29:bf 1.7 ms later, TTL 64 both, TCP
//! checksum 0xd79c both; the receiver's ACKs show the same pairs with the same non-zero
//! ID (693/697, ID 0x0312, 7.9 ms). Without this rule the 1,086 data copies passed as
//! "fast" re-sends (51.4 % of the bytes, 11 Mbit/s for a 5.3 Mbit/s upload).

use crate::decode::TcpSegment;

/// How long after the first frame its forwarded copy may come: RFC 6298 §2.4's
/// minimum retransmission timeout, 1 s. The addresses already tell the copy from a
/// re-send (a re-send's own first frame comes from its sender again); the bound only
/// limits what a capture that dropped a re-send's first frame could pass off as a copy.
/// A bridge's hold is longer than the duplicate filter's 200 ms at times (photo
/// connection 1: SYN 138 from the phone at 24.859 s, its forwarded copy 139 at
/// 25.088 s, 228 ms on).
pub const FORWARD_WINDOW_NS: i64 = 1_000_000_000;

/// `seg` is the frame with MACs `orig_macs` (`FrameId::macs`, [dst, src]) and TTL + 1
/// `orig_ttl` (0: none) sent on by the host it was addressed to: the original's
/// destination is the copy's source, the copy goes to a third host, and the TTL is
/// the same or one less.
pub fn sent_on(orig_macs: [u32; 2], orig_ttl: u16, seg: &TcpSegment) -> bool {
    let [orig_dst, orig_src] = orig_macs;
    let [dst, src] = seg.frame_id.macs;
    if orig_dst == 0 || dst == 0 || src != orig_dst || orig_src == orig_dst || dst == orig_src || dst == src {
        return false;
    }
    match (orig_ttl, seg.frame_id.ip_ttl) {
        (0, None) => true,
        (t, Some(now)) if t > 0 => u16::from(now) + 1 == t || u16::from(now) + 2 == t,
        _ => false,
    }
}

/// The copies [`sent_on`] found, and the forwarder's delay (the second sighting after
/// the first): for the `duplicate-frames` warning (facts.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forwarded {
    pub copies: u64,
    pub min_ns: i64,
    pub max_ns: i64,
}

impl Forwarded {
    pub fn add(&mut self, after_ns: i64) {
        if self.copies == 0 {
            (self.min_ns, self.max_ns) = (after_ns, after_ns);
        } else {
            self.min_ns = self.min_ns.min(after_ns);
            self.max_ns = self.max_ns.max(after_ns);
        }
        self.copies += 1;
    }
}

/// The `duplicate-frames` warning's clause for them (empty when none): how many, and
/// the forwarder's delay, from the shortest to the longest.
pub fn phrase(f: &Forwarded) -> String {
    if f.copies == 0 {
        return String::new();
    }
    let ms = |ns: i64| crate::analysis::format::format_duration(ns as f64 / 1e9);
    let delay = if f.min_ns == f.max_ns { ms(f.max_ns) } else { format!("{} to {}", ms(f.min_ns), ms(f.max_ns)) };
    format!(
        " ({} of them logged by a host that forwards them, once on the way in and again on the way out, {delay} later: the Ethernet addresses show it, the first frame addressed to that host, the second sent from it to the next hop, the IP and TCP headers the same; Wireshark marks these copies as retransmissions)",
        f.copies
    )
}
