//! PMTU re-sends, a retransmission kind of their own (docs/ANALYSIS.md
//! `direction.pmtuRetransmissions`; review X, class C-PMTU-RESEND-AS-FAST, smtp).
//!
//! A router that cannot forward a segment at its size drops it and says so: ICMP
//! "fragmentation needed" (type 3 code 4, RFC 1191 §4) or ICMPv6 "packet too big" (RFC
//! 8201 §4), quoting the segment and naming the next hop's MTU. The sender lowers its
//! segment size and re-sends the dropped bytes at once, "without waiting for the
//! retransmission timer" (RFC 1191 §6.4), the rest as its window allows. Such a re-send
//! was found by the router's message: neither a timeout (RFC 6298), a probe (RFC 8985),
//! a fast retransmission (RFC 5681 §3.2, no hole was reported) nor a timeout's go-back-N.
//!
//! The rule, per direction. A message is evidence when its quoted sequence number falls
//! on a data segment the capture saw that side send at or before the message (RFC 5927
//! §4.1's own check): that segment, [lo, hi), is the one dropped. A re-send is a PMTU
//! re-send when
//! - it left after such a message and starts inside the segment the message quoted;
//! - it is smaller than that segment, and no larger than the message's MTU allows
//!   (payload + the smallest IP and TCP headers, 40 B over IPv4, 60 B over IPv6);
//! - no earlier PMTU re-send carried its first byte (the first re-send of those bytes
//!   after the message: a later one is a loss of the smaller segment, its own kind);
//! - and the sender is shown to have acted on a message: one such re-send left within the
//!   sender lag (capture → sender → capture) plus [`REACTION_SLACK_NS`] of the latest
//!   message before it. A sender that ignored the message re-sends only when a timer
//!   fires (RFC 1191 §6.4's "black hole" case), and then a smaller re-send is the timer's.
//!
//! CESNET ipfixprobe `smtp.pcap` conn 0: frames 22–25 (1,460 B at 151, 1611, 3071, 4531)
//! were dropped by the PPPoE router 192.168.1.1 (ICMP 26, 28–30, MTU 1492); re-sends of
//! 1,452 B: 27 (55 µs after 26), 32/33 after ACK 31, 35/36 after ACK 34 — 5 PMTU re-sends,
//! where the counters said 1 timeout and 4 slow-start re-sends.

use crate::analysis::rows::store::ConnStore;
use crate::decode::icmp::IcmpQuote;
use std::net::IpAddr;

/// How long after a message, beyond the sender lag, a re-send shows the sender acting on
/// it: a host answers an ICMP in microseconds (smtp: 55 µs); a retransmission timer
/// fires no sooner than 200 ms (Linux's TCP_RTO_MIN; RFC 6298 §2.4: 1 s).
pub const REACTION_SLACK_NS: i64 = 10_000_000;

/// One "fragmentation needed" / "packet too big" message about a segment the capture
/// saw its side send before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TooBig {
    /// ns since the file's first packet.
    pub t_ns: i64,
    /// The dropped segment's bytes (relative sequence numbers).
    pub lo: i64,
    pub hi: i64,
    /// The largest payload the reported MTU lets through (None: no MTU reported).
    pub max_payload: Option<i64>,
}

/// Each direction's too-big messages that name a segment it sent (module comment).
/// `quotes`: (s since the file's first packet, quote), as `summarize` gets them; `rel`:
/// a direction's raw sequence number made relative (track/sequence.rs `SeqSpace::rel`).
pub fn too_big(quotes: &[(f64, IcmpQuote)], endpoints: &[(IpAddr, u16); 2], rel: impl Fn(usize, u32) -> i64, store: &ConnStore) -> [Vec<TooBig>; 2] {
    let mut out: [Vec<TooBig>; 2] = Default::default();
    let mut wanted: Vec<(usize, i64, i64, Option<i64>)> = Vec::new();
    for (t, q) in quotes.iter().filter(|(_, q)| q.kind.too_big()) {
        let d = usize::from(endpoints[0] != (q.src, q.src_port));
        let headers = if q.src.is_ipv4() { 40 } else { 60 };
        let max_payload = q.mtu.map(|m| i64::from(m) - headers);
        wanted.push((d, (t * 1e9).round() as i64, rel(d, q.seq), max_payload));
    }
    if wanted.is_empty() {
        return out;
    }
    // The segment each message quoted: the last data row over its byte before it.
    let mut found: Vec<Option<(i64, i64)>> = vec![None; wanted.len()];
    store.for_each_packet(|r| {
        for (i, &(d, t, seq, _)) in wanted.iter().enumerate() {
            if r.dir as usize == d && r.len > 0 && r.t_ns <= t && r.seq <= seq && seq < r.seq + i64::from(r.len) {
                found[i] = Some((r.seq, r.seq + i64::from(r.len)));
            }
        }
    });
    for (&(d, t_ns, _, max_payload), f) in wanted.iter().zip(found) {
        if let Some((lo, hi)) = f {
            out[d].push(TooBig { t_ns, lo, hi, max_payload });
        }
    }
    out
}

/// The PMTU re-sends among one direction's re-sends, decided in time order.
#[derive(Debug, Default)]
pub struct Claims<'a> {
    messages: &'a [TooBig],
    /// Bytes already re-sent as PMTU re-sends, [seq, end).
    claimed: Vec<(i64, i64)>,
}

impl<'a> Claims<'a> {
    pub fn new(messages: &'a [TooBig]) -> Claims<'a> {
        Claims { messages, claimed: Vec::new() }
    }

    /// The message a re-send of [seq, end) at `t_ns` answers, by the byte and size rules
    /// (the first three of the module comment), or None.
    fn answered(&self, t_ns: i64, seq: i64, end: i64) -> Option<&TooBig> {
        let len = end - seq;
        if len <= 0 || self.claimed.iter().any(|&(lo, hi)| lo <= seq && seq < hi) {
            return None;
        }
        self.messages
            .iter()
            .filter(|m| m.t_ns < t_ns && m.lo <= seq && seq < m.hi && len < m.hi - m.lo && m.max_payload.map_or(true, |p| len <= p))
            .max_by_key(|m| m.t_ns)
    }

    /// Whether the sender acted on a message (the fourth rule): one re-send of `resends`
    /// ((t_ns, seq, end), time order) fits the byte and size rules and left within
    /// `lag_ns` + [`REACTION_SLACK_NS`] of its message.
    pub fn acted(&self, resends: impl Iterator<Item = (i64, i64, i64)>, lag_ns: i64) -> bool {
        let bound = lag_ns.max(0) + REACTION_SLACK_NS;
        !self.messages.is_empty() && resends.into_iter().any(|(t, s, e)| self.answered(t, s, e).is_some_and(|m| t - m.t_ns <= bound))
    }

    /// Whether the re-send of [seq, end) at `t_ns` is a PMTU re-send (call in time order,
    /// once [`Claims::acted`] holds); it then claims its bytes.
    pub fn claim(&mut self, t_ns: i64, seq: i64, end: i64) -> bool {
        let yes = self.answered(t_ns, seq, end).is_some();
        if yes {
            self.claimed.push((seq, end));
        }
        yes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// smtp's shape: four 1,460-B segments quoted (MTU 1492 → 1,452 B of payload), re-sent
    /// at 1,452 B; the last re-send starts at 5959 inside the fourth (4531..5991).
    fn smtp() -> Vec<TooBig> {
        [151, 1611, 3071, 4531].iter().enumerate().map(|(i, &lo)| TooBig { t_ns: 3203 * MS + i as i64 * MS / 2, lo, hi: lo + 1460, max_payload: Some(1452) }).collect()
    }

    #[test]
    fn smtps_five_re_sends_are_pmtu_re_sends() {
        let m = smtp();
        let resends = [(3203 * MS + 55_000, 151, 1603), (3612 * MS, 1603, 3055), (3612 * MS, 3055, 4507), (3977 * MS, 4507, 5959), (3977 * MS, 5959, 7411)];
        let mut c = Claims::new(&m);
        assert!(c.acted(resends.iter().copied(), 0));
        assert_eq!(resends.iter().filter(|&&(t, s, e)| c.claim(t, s, e)).count(), 5);
        // The same bytes again: a loss of the smaller segment, not a PMTU re-send.
        assert!(!c.claim(4500 * MS, 151, 1603));
    }

    #[test]
    fn a_full_size_or_early_re_send_is_none() {
        let m = smtp();
        let c = Claims::new(&m);
        // As large as the dropped segment (the sender did not lower its size).
        assert!(c.answered(3300 * MS, 151, 1611).is_none());
        // Larger than the MTU allows (1,460 > 1,452), though smaller than a 1,500-B quote.
        let big = [TooBig { t_ns: 0, lo: 0, hi: 1480, max_payload: Some(1452) }];
        assert!(Claims::new(&big).answered(MS, 0, 1460).is_none());
        // Before the message.
        assert!(c.answered(3000 * MS, 151, 1603).is_none());
    }

    #[test]
    fn a_sender_that_ignored_the_message_re_sends_by_its_timer() {
        // The first smaller re-send 300 ms after the message (a timer's, black-hole
        // detection): no reaction shown, no PMTU re-send.
        let m = smtp();
        let c = Claims::new(&m);
        assert!(!c.acted([(3503 * MS, 151, 1603)].into_iter(), 0));
        // The same with a 400 ms sender lag (a capture far from the sender): the message
        // passed the capture on its way to the sender, the re-send came back one lag later.
        assert!(c.acted([(3503 * MS, 151, 1603)].into_iter(), 400 * MS));
    }
}
