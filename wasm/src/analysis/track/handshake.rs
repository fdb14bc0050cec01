//! What each side offered in the three-way handshake (docs/ANALYSIS.md
//! "Handshake"): MSS (RFC 9293 §3.7.1), window scale (RFC 7323 §2), SACK-permitted
//! (RFC 2018 §2), timestamps (RFC 7323 §3), ECN (RFC 3168 §6.1.1: an "ECN-setup SYN"
//! carries ECE and CWR, an "ECN-setup SYN-ACK" ECE without CWR) and TCP Fast Open
//! (RFC 7413 §4.1.1, option 34 or the experimental 254/0xF989).
//!
//! Kept compactly per connection (4 bytes per offer) while packets arrive; turned
//! into the report's `handshake` at the end.

use crate::decode::tcp_flags::{ACK, CWR, ECE, SYN};
use crate::decode::TcpSegment;
use super::syn_stack::SynStack;
use serde::Serialize;

const SACK: u8 = 1;
const TIMESTAMPS: u8 = 2;
const ECN: u8 = 4;
const TFO: u8 = 8;
const HAS_MSS: u8 = 16;
const HAS_SCALE: u8 = 32;
/// The offer was captured; the direction that sent it is 1 (else 0).
const PRESENT: u8 = 64;
const DIR1: u8 = 128;

/// One SYN's options, packed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offer {
    mss: u16,
    scale: u8,
    bits: u8,
    /// Accurate ECN setup (RFC 9768 §3.1.1): a SYN with AE, CWR and ECE set; a
    /// SYN/ACK answering one with AE or CWR set (classic ECN answers ECE alone).
    accecn: bool,
    /// Sent over IPv6: its peer's default send MSS is 1220, not 536 (`send_mss`).
    ipv6: bool,
    /// An MPTCP option (MP_CAPABLE or MP_JOIN, RFC 8684 §3.1, §3.2).
    mptcp: bool,
    /// The stack a SYN's (or SYN/ACK's) option order and initial TTL identify
    /// (syn_stack.rs `of`, `of_syn_ack`).
    stack: SynStack,
}

impl Offer {
    fn of(seg: &TcpSegment, dir: u8) -> Offer {
        let o = &seg.options;
        let ecn_setup = if seg.flags & ACK == 0 { ECE | CWR } else { ECE };
        let mut bits = PRESENT | if dir == 1 { DIR1 } else { 0 };
        for (on, bit) in [
            (o.sack_permitted, SACK),
            (o.timestamp.is_some(), TIMESTAMPS),
            (seg.flags & (ECE | CWR) == ecn_setup, ECN),
            (o.tfo, TFO),
            (o.mss.is_some(), HAS_MSS),
            (o.window_scale.is_some(), HAS_SCALE),
        ] {
            if on {
                bits |= bit;
            }
        }
        let ae = seg.ecn & 4 != 0;
        let accecn = if seg.flags & ACK == 0 { ae && seg.flags & (ECE | CWR) == ECE | CWR } else { ae || seg.flags & CWR != 0 };
        let stack = if seg.flags & ACK == 0 { super::syn_stack::of(o.syn_layout, seg.frame_id.ip_ttl) } else { SynStack::Unknown };
        Offer { mss: o.mss.unwrap_or(0), scale: o.window_scale.unwrap_or(0), bits, accecn, ipv6: seg.src.is_ipv6(), mptcp: o.mptcp, stack }
    }

    /// The options it carried that a SYN/ACK may answer (syn_stack.rs `Offered`).
    fn offered(self) -> super::syn_stack::Offered {
        super::syn_stack::Offered { sack: self.bits & SACK != 0, timestamps: self.bits & TIMESTAMPS != 0, scale: self.bits & HAS_SCALE != 0 }
    }

    fn present(self) -> bool {
        self.bits & PRESENT != 0
    }

    fn dir(self) -> u8 {
        (self.bits & DIR1 != 0) as u8
    }

    fn report(self, names: &[String; 2]) -> Option<SynOptions> {
        let has = |b: u8| self.bits & b != 0;
        self.present().then(|| SynOptions {
            from: names[self.dir() as usize].clone(),
            mss: has(HAS_MSS).then_some(self.mss),
            window_scale: has(HAS_SCALE).then_some(self.scale),
            sack_permitted: has(SACK),
            timestamps: has(TIMESTAMPS),
            ecn: has(ECN),
            accecn: self.accecn,
            tfo: has(TFO),
            mptcp: self.mptcp,
            stack: self.stack.name(),
        })
    }
}

/// The smallest segment size a sender uses, whatever MSS the peer announced (Linux's
/// `tcp_min_snd_mss` default, against peers that announce a tiny MSS).
const MIN_SEND_MSS: u32 = 48;

/// RFC 9293 §3.7.1: the send MSS a TCP assumes when the peer's SYN carried no MSS
/// option (or a bogus 0, which stacks ignore): 536 over IPv4; over IPv6 the minimum
/// link MTU of 1280 (RFC 8200 §5) less the 40-byte IPv6 and 20-byte TCP headers
/// (Linux's `mss_clamp` defaults: `TCP_MSS_DEFAULT`, `IPV6_MIN_MTU` − headers).
const DEFAULT_SEND_MSS_IPV4: u32 = 536;
const DEFAULT_SEND_MSS_IPV6: u32 = 1220;

/// The SYN and SYN/ACK offers of one connection (16 bytes, `per_connection_state_is_small`: it is per connection).
#[derive(Clone, Copy, Debug, Default)]
pub struct HandshakeOffers {
    syn: Offer,
    syn_ack: Offer,
}

impl HandshakeOffers {
    /// A segment of direction `dir`. The last SYN before the SYN/ACK counts (a SYN
    /// re-sent after a timeout may carry fewer options, and it is the one answered);
    /// the first SYN/ACK.
    pub fn on_segment(&mut self, seg: &TcpSegment, dir: u8) {
        if seg.flags & SYN == 0 || self.syn_ack.present() {
            return;
        }
        if seg.flags & ACK == 0 {
            self.syn = Offer::of(seg, dir);
        } else if !self.syn.present() || self.syn.dir() != dir {
            let mut offer = Offer::of(seg, dir);
            // Its layout answers the SYN's offer (syn_stack.rs `of_syn_ack`).
            let offered = self.syn.present().then(|| self.syn.offered());
            offer.stack = super::syn_stack::of_syn_ack(seg.options.syn_layout, seg.frame_id.ip_ttl, offered, offer.offered());
            self.syn_ack = offer;
        }
    }

    /// The MSS option that direction `dir` announced in its SYN or SYN/ACK, if captured:
    /// the largest segment the other side may send it (RFC 9293 §3.7.1).
    pub fn mss_announced_by(&self, dir: u8) -> Option<u16> {
        [self.syn, self.syn_ack].into_iter().find(|o| o.present() && o.dir() == dir && o.bits & HAS_MSS != 0).map(|o| o.mss)
    }

    /// The largest payload one segment of direction `dir` carries (SMSS, RFC 9293
    /// §3.7.1: Eff.snd.MSS is bounded by the MSS the *peer* announced, less the TCP
    /// options every segment carries; RFC 6691: the option is the receiver's, each
    /// direction has its own): the MSS option of the other end's SYN (or SYN/ACK) —
    /// RFC 9293's default of 536, 1220 over IPv6, when that SYN carried none — less 12
    /// bytes when both SYNs offered timestamps (RFC 7323 §3: 10 bytes of option, padded
    /// to 12), and never below Linux's floor of 48 (`tcp_min_snd_mss`). Not the smaller
    /// of the two options: an end announcing 1400 may still be sent 1460-byte segments
    /// and send them itself when its peer announced 1460 (a 1460-byte frame is one
    /// segment, not two). None when the other end's SYN is not in the capture. A frame
    /// with more payload is several segments (TSO at the sender, GRO at the receiver:
    /// `retransmittedSegments`); one with no more is one, whatever the options say.
    pub fn send_mss(&self, dir: u8) -> Option<u32> {
        let peer = [self.syn, self.syn_ack].into_iter().find(|o| o.present() && o.dir() == 1 - (dir & 1))?;
        let announced = (peer.bits & HAS_MSS != 0 && peer.mss > 0).then_some(u32::from(peer.mss));
        let mss = announced.unwrap_or(if peer.ipv6 { DEFAULT_SEND_MSS_IPV6 } else { DEFAULT_SEND_MSS_IPV4 });
        let timestamps = self.syn.present() && self.syn_ack.present() && self.syn.bits & self.syn_ack.bits & TIMESTAMPS != 0;
        Some(mss.saturating_sub(if timestamps { 12 } else { 0 }).max(MIN_SEND_MSS))
    }

    /// Whether the SYN (or SYN/ACK) direction `dir` sent is in the capture: its initial
    /// sequence number is known.
    pub fn syn_seen_from(&self, dir: u8) -> bool {
        [self.syn, self.syn_ack].into_iter().any(|o| o.present() && o.dir() == dir & 1)
    }

    /// Whether SACK was negotiated (RFC 2018 §2: both SYNs carry SACK-permitted); None
    /// when the handshake is not in the capture.
    pub fn sack_permitted(&self) -> Option<bool> {
        self.seen().then(|| self.syn.bits & self.syn_ack.bits & SACK != 0)
    }

    /// Both the SYN and the SYN/ACK are in the capture (`connection.handshakeSeen`).
    /// Accurate ECN was negotiated: both the SYN and the SYN/ACK set it up.
    pub fn accecn(&self) -> bool {
        self.syn.present() && self.syn_ack.present() && self.syn.accecn && self.syn_ack.accecn
    }

    pub fn seen(&self) -> bool {
        self.syn.present() && self.syn_ack.present()
    }

    /// Some SYN of the connection is in the capture (Wireshark's notion of a
    /// handshake, the conformance oracle's `handshake_seen`).
    pub fn any_syn(&self) -> bool {
        self.syn.present() || self.syn_ack.present()
    }

    pub fn report(&self, names: &[String; 2]) -> Handshake {
        let window_scaling = if !self.seen() {
            "not-captured"
        } else if self.syn.bits & self.syn_ack.bits & HAS_SCALE != 0 {
            // RFC 7323 §2.2: scaling is on only when both SYNs carried the option.
            "negotiated"
        } else {
            "absent"
        };
        Handshake { syn: self.syn.report(names), syn_ack: self.syn_ack.report(names), window_scaling }
    }
}

/// Options one SYN offered (`handshake.syn`, `handshake.synAck`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SynOptions {
    /// The endpoint that sent it.
    pub from: String,
    pub mss: Option<u16>,
    /// Shift count as sent (RFC 7323 §2.3); None: no option.
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: bool,
    /// ECN-setup SYN (ECE + CWR) or SYN-ACK (ECE, no CWR), RFC 3168 §6.1.1.
    pub ecn: bool,
    /// Accurate ECN setup (RFC 9768 §3.1.1): on a SYN, AE, CWR and ECE set; on a
    /// SYN/ACK, AE or CWR set. Both: the flags count CE marks instead of echoing them.
    pub accecn: bool,
    /// TCP Fast Open option (RFC 7413).
    pub tfo: bool,
    /// An MPTCP option (MP_CAPABLE or MP_JOIN, RFC 8684): this connection is a subflow
    /// of a Multipath TCP connection, which may carry part of the exchange elsewhere.
    pub mptcp: bool,
    /// The stack its option order and initial TTL identify (syn_stack.rs; a SYN/ACK's
    /// only where unambiguous, `of_syn_ack`): "linux" | "windows" | "apple"; absent
    /// when they identify none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub stack: Option<&'static str>,
}

/// The handshake of a connection (`connection.handshake`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Handshake {
    /// The SYN that opened it (None: not captured).
    pub syn: Option<SynOptions>,
    /// The SYN/ACK that answered (None: not captured).
    pub syn_ack: Option<SynOptions>,
    /// negotiated (both SYNs carried the option) | absent (one did not) |
    /// not-captured (a SYN is missing: the scale cannot be known).
    #[cfg_attr(test, ts(type = "\"negotiated\" | \"absent\" | \"not-captured\""))]
    pub window_scaling: &'static str,
}

#[cfg(test)]
mod tests {
    use crate::analysis::track::testseg::{handshake, run, Seg};
    use super::HandshakeOffers;
    use crate::decode::tcp_flags::{ACK, CWR, ECE, SYN};

    #[test]
    fn the_send_mss_is_the_peers_mss_less_the_timestamp_option() {
        // Direction 0 = A (SYN), 1 = B (SYN/ACK). RFC 9293 §3.7.1: A sends at most B's
        // MSS; RFC 7323 §3: 12 bytes of every segment go to the timestamp option.
        let offers = |syn: Seg, syn_ack: Seg| {
            let mut o = HandshakeOffers::default();
            o.on_segment(&syn.build(), 0);
            o.on_segment(&syn_ack.build(), 1);
            o
        };
        let syn = || Seg::a_to_b(0.0).seq(1000).flags(SYN);
        let syn_ack = || Seg::b_to_a(0.01).seq(5000).ack(1001).flags(SYN | ACK);
        let o = offers(syn().mss(1460).ts(1, 0), syn_ack().mss(1460).ts(2, 1));
        assert_eq!((o.send_mss(0), o.send_mss(1)), (Some(1448), Some(1448)));
        // Asymmetric options, no timestamps on one side: each direction is bounded by
        // the MSS its receiver announced (RFC 6691), not the smaller of the two — B,
        // which announced 1400, is sent 1400 and may send A's 1460.
        let o = offers(syn().mss(1460).ts(1, 0), syn_ack().mss(1400));
        assert_eq!((o.send_mss(0), o.send_mss(1)), (Some(1400), Some(1460)));
        // The peer's SYN without the option, or with a bogus 0 (ignored): RFC 9293's
        // default of 536 over IPv4; a tiny one is raised to Linux's floor of 48.
        assert_eq!(offers(syn().mss(1460), syn_ack()).send_mss(0), Some(536));
        assert_eq!(offers(syn().mss(1460), syn_ack().mss(0)).send_mss(0), Some(536));
        assert_eq!(offers(syn().mss(1460), syn_ack().mss(8)).send_mss(0), Some(48));
        // Over IPv6 the default is 1220 (RFC 8200 §5's 1280-byte minimum MTU less 60).
        let mut v6 = HandshakeOffers::default();
        v6.on_segment(&syn().mss(1440).build(), 0);
        let mut syn_ack_v6 = syn_ack().build();
        syn_ack_v6.src = "fd00::2".parse().unwrap();
        v6.on_segment(&syn_ack_v6, 1);
        assert_eq!((v6.send_mss(0), v6.send_mss(1)), (Some(1220), Some(1440)));
        // The peer's SYN not captured: unknown (each frame then counts one segment).
        let mut only_syn = HandshakeOffers::default();
        only_syn.on_segment(&syn().mss(1460).build(), 0);
        assert_eq!((only_syn.send_mss(0), only_syn.send_mss(1)), (None, Some(1460)));
    }

    #[test]
    fn options_of_both_sides_and_the_three_scale_states() {
        // testseg's handshake: A's SYN with wscale 7 and MSS 1460, B's SYN/ACK the
        // same, nothing else: negotiated; SACK / timestamps absent.
        let a = run(handshake(Some(7), Some(7)));
        let h = &a.connections[0].handshake;
        assert_eq!(h.window_scaling, "negotiated");
        let syn = h.syn.as_ref().unwrap();
        assert_eq!((syn.from.as_str(), syn.window_scale, syn.mss, syn.sack_permitted, syn.ecn, syn.tfo), ("10.0.0.1:40000", Some(7), Some(1460), false, false, false));
        assert!(a.connections[0].handshake_seen);
        // B does not scale: absent (RFC 7323 §2.2 needs both).
        assert_eq!(run(handshake(Some(7), None)).connections[0].handshake.window_scaling, "absent");
        // Only the SYN/ACK and the rest: not captured, and handshakeSeen false.
        let b = run(handshake(Some(7), Some(7)).into_iter().skip(1).collect());
        assert_eq!((b.connections[0].handshake.window_scaling, b.connections[0].handshake_seen), ("not-captured", false));
        assert!(b.connections[0].handshake.syn.is_none());
    }

    #[test]
    fn ecn_setup_needs_ece_and_cwr_on_the_syn_and_ece_alone_on_the_syn_ack() {
        // RFC 3168 §6.1.1. A SYN/ACK with ECE+CWR is not an ECN-setup SYN-ACK.
        let a = run(vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN | ECE | CWR).win(64240).mss(1460).sack_ok().tfo(),
            Seg::b_to_a(0.01).seq(5000).ack(1001).flags(SYN | ACK | ECE).win(65160),
        ]);
        let h = &a.connections[0].handshake;
        let (syn, syn_ack) = (h.syn.as_ref().unwrap(), h.syn_ack.as_ref().unwrap());
        assert_eq!((syn.ecn, syn.mss, syn.sack_permitted, syn.tfo), (true, Some(1460), true, true));
        assert_eq!((syn_ack.ecn, syn_ack.from.as_str()), (true, "10.0.0.2:80"));
        let b = run(vec![
            Seg::a_to_b(0.0).seq(1000).flags(SYN | ECE).win(64240),
            Seg::b_to_a(0.01).seq(5000).ack(1001).flags(SYN | ACK | ECE | CWR).win(65160),
        ]);
        let h = &b.connections[0].handshake;
        assert_eq!((h.syn.as_ref().unwrap().ecn, h.syn_ack.as_ref().unwrap().ecn), (false, false));
    }
}
