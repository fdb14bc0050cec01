//! Tests of duplicates.rs (moved out of it to keep the production file short).

use super::*;
use crate::analysis::track::testseg::Seg;

fn data(t_ms: f64, ip_id: u16) -> TcpSegment {
    let mut s = Seg::a_to_b(t_ms / 1000.0).seq(1001).ack(1).len(1448).build();
    s.frame_id.ip_id = Some(ip_id);
    s
}

#[test]
fn acks_that_differ_only_in_their_mptcp_option_are_not_copies() {
    // A pure ACK, then the same ACK carrying ADD_ADDR, then one carrying
    // REMOVE_ADDR, 50 µs apart (within COPY_WINDOW_NO_ID_NS), no IP ID (IPv6): three
    // segments the sender built, as Linux sends them.
    let ack = |t_ms: f64, m: Option<crate::decode::mptcp::Mptcp>| {
        let mut s = Seg::a_to_b(t_ms / 1000.0).seq(1001).ack(1).build();
        s.mptcp = m.map(Box::new);
        s
    };
    let add = crate::decode::mptcp::Mptcp {
        add_addr: Some(crate::decode::mptcp::AddAddr { address_id: 1, addr: "10.0.0.9".parse().unwrap(), port: None, echo: false }),
        ..Default::default()
    };
    let remove = crate::decode::mptcp::Mptcp { remove_addr: 1, ..Default::default() };
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&ack(0.0, None)));
    assert!(!f.is_copy(&ack(0.05, Some(add.clone()))));
    // The ADD_ADDR ACK seen again 10 µs later, option and all: a capture copy.
    assert!(f.is_copy(&ack(0.06, Some(add))));
    assert!(!f.is_copy(&ack(0.1, Some(remove))));
    assert_eq!(f.duplicates, 1);
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
    assert_eq!((f.duplicates, f.wifi_retries), (2, 0));
}

#[test]
fn a_changing_ip_id_seen_again_is_a_copy_from_another_capture_point() {
    // The sender gave its datagrams IDs 7 then 9: its stack draws a new one per
    // datagram, so ID 9 again 3.1 ms and 150 ms later (a second tap a one-way
    // delay away) is the same datagram, not a retransmission.
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&data(0.0, 7)));
    assert!(!f.is_copy(&data(200.0, 9)));
    assert!(f.is_copy(&data(203.1, 9)));
    assert!(f.is_copy(&data(350.0, 9)));
    // 200 ms after the original is the end of the window: 200.1 ms later, kept.
    assert!(!f.is_copy(&data(400.1, 9)));
    // The first datagrams of a direction prove nothing yet: ID 5 of another
    // sender again 3 ms later is a retransmission (short window).
    let first = |t_ms: f64| {
        let mut s = Seg::b_to_a(t_ms / 1000.0).seq(1).ack(1001).len(100).build();
        s.frame_id.ip_id = Some(5);
        s
    };
    assert!(!f.is_copy(&first(0.0)));
    assert!(!f.is_copy(&first(3.0)));
    assert_eq!(f.duplicates, 2);
}

#[test]
fn a_stack_that_keeps_the_id_in_a_resend_loses_the_long_window() {
    // nDPI alexa-app.pcapng: random IDs per datagram, but an RTO resend 448 ms
    // later carries the original's ID. 448 ms is past the window: a retransmission.
    // From then on the direction's ID tells nothing: the same segment again 40 ms
    // later (a probe) is a retransmission too.
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&data(0.0, 0xc23a)));
    let mut next = data(10.0, 0xc8dc);
    next.seq = 2449;
    assert!(!f.is_copy(&next));
    assert!(f.is_copy(&data(40.0, 0xc23a)), "a copy 40 ms later, before any resend");
    assert!(!f.is_copy(&data(448.0, 0xc23a)));
    assert!(!f.is_copy(&data(488.0, 0xc23a)));
    assert_eq!(f.duplicates, 1);
}

#[test]
fn the_first_syn_and_syn_ack_are_copies_whatever_their_id() {
    let syn = |t_ms: f64, flags: u8| {
        let s = if flags & ACK == 0 { Seg::a_to_b(t_ms / 1000.0) } else { Seg::b_to_a(t_ms / 1000.0) };
        let mut s = s.seq(0).ack(u32::from(flags & ACK != 0)).flags(flags).build();
        s.frame_id.ip_id = Some(0); // Linux's SYN/ACK; FreeBSD and macOS SYNs
        s
    };
    // Two taps 30 ms apart: each is its direction's first datagram, resent only by
    // a 1 s timer (RFC 6298 §2.1) or in answer to a SYN sent again.
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&syn(0.0, SYN)));
    assert!(f.is_copy(&syn(30.0, SYN)));
    assert!(!f.is_copy(&syn(80.0, SYN | ACK)));
    assert!(f.is_copy(&syn(110.0, SYN | ACK)));
    assert_eq!(f.duplicates, 2);
    // nDPI tls_port_80.pcapng: SYN/ACK at 126 ms; the SYN again at 1012 ms; the
    // answer at 1132 ms and the timer's SYN/ACK at 1138 ms, identical (ID 0, no
    // timestamps): 3 SYN/ACKs, none a copy.
    let mut g = DuplicateFilter::default();
    assert!(!g.is_copy(&syn(0.0, SYN)));
    assert!(!g.is_copy(&syn(126.0, SYN | ACK)));
    assert!(!g.is_copy(&syn(1012.0, SYN)));
    assert!(!g.is_copy(&syn(1132.0, SYN | ACK)));
    assert!(!g.is_copy(&syn(1137.6, SYN | ACK)));
    // A SYN/ACK answering a SYN sent again 100 ms after the first (a stack with a
    // short SYN timer) is not taken for a copy of the first either.
    let mut h = DuplicateFilter::default();
    assert!(!h.is_copy(&syn(0.0, SYN)));
    assert!(!h.is_copy(&syn(50.0, SYN | ACK)));
    let mut again = syn(100.0, SYN);
    again.frame_id.ip_id = Some(2);
    assert!(!h.is_copy(&again));
    assert!(!h.is_copy(&syn(150.0, SYN | ACK)));
    assert_eq!((g.duplicates, h.duplicates), (0, 0));
}

#[test]
fn a_constant_ip_id_tells_nothing() {
    // A stack that writes the same non-zero ID in every datagram (RFC 6864 §4
    // allows any value in an atomic datagram): its fast retransmit 30 ms later is
    // identical to the original but for the TTL and must stay a retransmission.
    let mut f = DuplicateFilter::default();
    let mut other = data(0.0, 0x4000);
    other.seq = 1;
    assert!(!f.is_copy(&other));
    assert!(!f.is_copy(&data(1.0, 0x4000)));
    assert!(!f.is_copy(&data(31.0, 0x4000)));
    // Repeated, never changed: the window of no ID at all, 200 µs. A -i any copy
    // 100 µs later is still merged; the same segment 0.5 ms later is not.
    assert!(f.is_copy(&data(31.1, 0x4000)));
    assert!(!f.is_copy(&data(31.6, 0x4000)));
    // ID 0 likewise (FreeBSD and macOS atomic datagrams): 200 µs only.
    let mut g = DuplicateFilter::default();
    for (t, id) in [(0.0, 0), (1.0, 0), (31.0, 0)] {
        let mut s = data(t, id);
        s.seq = if t == 0.0 { 1 } else { 1001 };
        assert!(!g.is_copy(&s));
    }
    assert_eq!((f.duplicates, g.duplicates), (1, 0));
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
fn one_datagram_heard_on_two_hops_is_one_whatever_its_mac_numbers() {
    // A FIN from a station, heard by the monitor on its way to the AP (MAC number
    // 700) and again 110 µs later as the AP sends it on (the AP's number 1200, no
    // Retry bit): the same IPv4 ID, seq, ack and flags — one datagram.
    let fin = |t_ms: f64, mac_seq: u16| {
        let mut s = Seg::a_to_b(t_ms / 1000.0).seq(5001).ack(1).flags(crate::decode::tcp_flags::FIN | ACK).build();
        s.frame_id.ip_id = Some(0x3a1c);
        s.frame_id.wifi = Some((false, mac_seq));
        s
    };
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&fin(0.0, 700)));
    assert!(f.is_copy(&fin(0.11, 1200)));
    // Without an Identification the MAC numbers tell two frames apart: two
    // identical pure ACKs (IPv6, no timestamps) 50 µs apart are two ACKs.
    let ack = |t_ms: f64, mac_seq: u16| {
        let mut s = Seg::b_to_a(t_ms / 1000.0).seq(1).ack(5001).build();
        s.frame_id.ip_id = None;
        s.frame_id.wifi = Some((false, mac_seq));
        s
    };
    assert!(!f.is_copy(&ack(1.0, 40)));
    assert!(!f.is_copy(&ack(1.05, 41)));
    assert_eq!(f.duplicates, 1);
}

#[test]
fn no_ip_id_uses_the_short_window() {
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&data(0.0, 0)));
    assert!(f.is_copy(&data(0.1, 0)));
    assert!(!f.is_copy(&data(1.0, 0)));
}

#[test]
fn one_datagram_altered_on_the_way_demotes_its_id_only() {
    // Router copies of every datagram, 0.3 ms later (a capture at two points). One
    // resend (ID 3) reaches the second point trimmed by a normaliser to its last byte,
    // same ID: other content under one ID. Only ID 3 loses the long window; the
    // sender's next datagrams (IDs 4, 5) carry new IDs and their copies, 0.3 and 30 ms
    // later, stay copies (before: every later copy of the direction was a resend).
    let mut f = DuplicateFilter::default();
    let at = |t_ms: f64, id: u16, seq: u32, len: u32| {
        let mut s = data(t_ms, id);
        s.seq = seq;
        s.payload_len = len;
        s
    };
    assert!(!f.is_copy(&at(0.0, 1, 1001, 80)));
    assert!(f.is_copy(&at(0.3, 1, 1001, 80)));
    assert!(!f.is_copy(&at(30.0, 2, 1081, 80)));
    assert!(f.is_copy(&at(30.3, 2, 1081, 80)));
    assert!(!f.is_copy(&at(330.0, 3, 1081, 80)));
    assert!(!f.is_copy(&at(330.3, 3, 1160, 1)), "other content: a new datagram");
    // The demoted ID itself: the trimmed datagram seen again 1 ms later is a
    // retransmission for all the ID tells (200 µs window).
    assert!(!f.is_copy(&at(331.3, 3, 1160, 1)));
    assert!(!f.is_copy(&at(360.0, 4, 1161, 80)));
    assert!(f.is_copy(&at(360.3, 4, 1161, 80)));
    assert!(!f.is_copy(&at(390.0, 5, 1241, 80)));
    assert!(f.is_copy(&at(420.0, 5, 1241, 80)), "30 ms later: the 200 ms window holds");
    assert_eq!(f.duplicates, 4);
}

#[test]
fn a_first_datagram_seen_again_one_router_on_is_a_copy() {
    // The shape of cip (gopacket cip.pcap, frames 1–5): a tap on both sides of a
    // router. A's request (ID 0x9af6) at TTL 128, then 0.36 ms later at TTL 127; B's
    // reply (ID 0x88e9, its direction's first datagram: its IDs not yet seen to change)
    // at 9.772 ms, TTL 128, and again at 22.070 ms, TTL 127 — 12.3 ms on, beyond the
    // 2-ms window of an unproven ID. A lower TTL says the datagram crossed a router
    // between the two sightings, and A sent nothing in between that a re-send could
    // answer: a copy, not a tail loss probe.
    let at = |s: Seg, id: u16, ttl: u8| {
        let mut s = s.build();
        (s.frame_id.ip_id, s.frame_id.ip_ttl) = (Some(id), Some(ttl));
        s
    };
    let req = |t_ms: f64, ttl: u8| at(Seg::a_to_b(t_ms / 1e3).seq(1).ack(1).len(58), 0x9af6, ttl);
    let reply = |t_ms: f64, id: u16, ttl: u8| at(Seg::b_to_a(t_ms / 1e3).seq(1).ack(59).len(80), id, ttl);
    let mut f = DuplicateFilter::default();
    assert!(!f.is_copy(&req(0.0, 128)));
    assert!(f.is_copy(&req(0.356, 127)));
    assert!(!f.is_copy(&reply(9.772, 0x88e9, 128)));
    assert!(f.is_copy(&reply(22.070, 0x88e9, 127)));
    // The same TTL 12.3 ms later: no router between, and a stack that keeps the ID in
    // its resends cannot be told from a copy: kept.
    let mut h = DuplicateFilter::default();
    assert!(!h.is_copy(&reply(9.772, 0x88e9, 128)));
    assert!(!h.is_copy(&reply(22.070, 0x88e9, 128)));
    // A segment from A in between (something a re-send could answer): kept too.
    let mut g = DuplicateFilter::default();
    assert!(!g.is_copy(&reply(9.772, 0x88e9, 128)));
    assert!(!g.is_copy(&at(Seg::a_to_b(0.015).seq(1).ack(81), 0x9af7, 128)));
    assert!(!g.is_copy(&reply(22.070, 0x88e9, 127)));
    assert_eq!((f.duplicates, g.duplicates, h.duplicates), (2, 0, 0));
}
