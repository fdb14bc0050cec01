//! Unit tests of the analyzer with hand-built segments (analysis/track/testseg.rs).
//! Handshake: A (ISN 1000) → B (ISN 5000); after it A's next seq is 1001 and B's
//! 5001; the handshake RTT (SYN → first pure ACK) is 20 ms.

use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::track::testseg::{handshake, run, Seg};
use crate::analysis::report::Analysis;
use crate::decode::tcp_flags::{ACK, FIN, PSH, RST, SYN};

/// Wireshark's analysis flags of a row (the retransmission kinds and capture loss
/// are tested in retrans_kinds_tests.rs and capture_loss_tests.rs).
fn flags(a: &Analysis, row: usize) -> u32 {
    a.columns(0).packets.flags[row] & !0xff & !fb::ANY_KIND & !fb::CAPTURE_LOSS
}

fn with_handshake(rest: Vec<Seg>) -> Analysis {
    let mut v = handshake(Some(7), Some(7));
    v.extend(rest);
    run(v)
}

#[test]
fn bytes_in_flight_is_high_seq_minus_peer_ack() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.030).seq(1001).ack(5001).len(1000),
        Seg::a_to_b(0.031).seq(2001).ack(5001).len(1000),
        Seg::a_to_b(0.032).seq(3001).ack(5001).len(1000),
        Seg::b_to_a(0.040).seq(5001).ack(2001),
        Seg::a_to_b(0.041).seq(4001).ack(5001).len(1000),
    ]);
    let f = &a.columns(0).packets.in_flight;
    // B's SYN/ACK acked rel 1, so: 1001-1 = 1000, 2000, 3000; pure ACK: NaN;
    // after B acks rel 1001 the next segment ends at rel 4001: 4001-1001 = 3000.
    assert_eq!(&f[3..6], &[1000.0, 2000.0, 3000.0]);
    assert!(f[6].is_nan());
    assert_eq!(f[7], 3000.0);
    assert_eq!(a.connections[0].directions[0].max_bytes_in_flight, Some(3000));
    assert_eq!(a.connections[0].directions[1].max_bytes_in_flight, None);
}

#[test]
fn relative_seq_and_ack_columns() {
    let a = with_handshake(vec![Seg::a_to_b(0.030).seq(1001).ack(5001).len(100)]);
    let p = &a.columns(0).packets;
    // SYN is 0, SYN/ACK is 0 in B's space and acks A's rel 1, data starts at rel 1.
    assert_eq!(&p.seq[..], &[0.0, 0.0, 1.0, 1.0]);
    assert!(p.ack[0].is_nan()); // SYN without ACK flag
    assert_eq!(&p.ack[1..], &[1.0, 1.0, 1.0]);
    assert_eq!(&p.frame[..], &[1, 2, 3, 4]);
}

#[test]
fn sequence_numbers_unwrap_across_zero() {
    // A's ISN is 2^32 - 10: its 1000-byte segment wraps through 0.
    let isn = u32::MAX - 9;
    let a = run(vec![
        Seg::a_to_b(0.0).seq(isn).flags(SYN).wscale(0),
        Seg::b_to_a(0.01).seq(7).ack(isn.wrapping_add(1)).flags(SYN | ACK).wscale(0),
        Seg::a_to_b(0.02).seq(isn.wrapping_add(1)).ack(8).len(1000),
        Seg::a_to_b(0.03).seq(isn.wrapping_add(1001)).ack(8).len(1000),
        Seg::b_to_a(0.04).seq(8).ack(isn.wrapping_add(2001)),
    ]);
    let p = &a.columns(0).packets;
    assert_eq!(p.seq[3], 1001.0); // raw 990 after the wrap, still rel 1001
    assert_eq!(p.ack[4], 2001.0);
    assert_eq!(p.in_flight[3], 2000.0);
    assert_eq!(flags(&a, 3), 0); // no spurious "lost segment" at the wrap
}

#[test]
fn window_scaled_only_when_both_offer_and_never_on_syn() {
    let a = with_handshake(vec![Seg::b_to_a(0.03).seq(5001).ack(1001).win(100)]);
    let p = &a.columns(0).packets;
    // SYN 64240 and SYN/ACK 65160 unscaled; A's ACK 502 << 7 = 64256; B's 100 << 7.
    assert_eq!(&p.win[..], &[64240.0, 65160.0, 64256.0, 12800.0]);
    let d = &a.connections[0].directions;
    assert_eq!((d[0].window_scale, d[0].window_scale_unknown), (Some(7), false));
    // receiveWindow excludes the SYN: only 64256 for A, only 12800 for B.
    assert_eq!(d[0].receive_window.map(|m| (m.min, m.max)), Some((64256, 64256)));
    assert_eq!(d[1].receive_window.map(|m| (m.min, m.max)), Some((12800, 12800)));

    // Only A offered: RFC 7323 §2.2 → nobody scales; windows stay raw.
    let mut v = handshake(Some(7), None);
    v.push(Seg::b_to_a(0.03).seq(5001).ack(1001).win(100));
    let b = run(v);
    assert_eq!(&b.columns(0).packets.win[2..], &[502.0, 100.0]);
    assert_eq!(b.connections[0].directions[0].window_scale, None);
    assert!(!b.connections[0].directions[0].window_scale_unknown);
}

#[test]
fn unknown_scale_gets_lower_bound_from_in_flight() {
    // No handshake: B advertises raw 100; A keeps 3000 bytes in flight, which needs
    // at least 100 << 5 = 3200 (100 << 4 = 1600 is too small) → bound 5.
    let a = run(vec![
        Seg::b_to_a(0.0).seq(9000).ack(1001).win(100),
        Seg::a_to_b(0.01).seq(1001).ack(9000).len(1500),
        Seg::a_to_b(0.02).seq(2501).ack(9000).len(1500),
    ]);
    let d = &a.connections[0].directions;
    // Direction 0 is B (it sent the first packet).
    assert!(d[0].window_scale_unknown && d[0].window_scale.is_none());
    assert_eq!(d[0].window_scale_lower_bound, Some(5));
    assert_eq!(d[0].receive_window.map(|m| m.max), Some(100)); // raw, unscaled
    assert_eq!(a.columns(0).packets.win[0], 100.0);
}

#[test]
fn zero_window_probe_and_probe_ack() {
    let a = with_handshake(vec![
        Seg::b_to_a(0.03).seq(5001).ack(1001).win(0),  // 3: zero window
        Seg::a_to_b(0.04).seq(1001).ack(5001).len(1), // 4: 1 byte at nextseq, peer window 0
        Seg::b_to_a(0.05).seq(5001).ack(1001).win(0),  // 5: repeats the zero-window ACK
        Seg::a_to_b(0.50).seq(1001).ack(5001).len(1), // 6: next probe, nextseq not advanced
    ]);
    assert_eq!(flags(&a, 3), fb::ZERO_WINDOW);
    assert_eq!(flags(&a, 4), fb::ZERO_WINDOW_PROBE);
    // Window 0 again (zero window) and the ACK of the probe.
    assert_eq!(flags(&a, 5), fb::ZERO_WINDOW | fb::ZERO_WINDOW_PROBE_ACK);
    // The probe did not advance nextseq, so the next probe is a probe, not a retransmission.
    assert_eq!(flags(&a, 6), fb::ZERO_WINDOW_PROBE);
    let d = &a.connections[0].directions;
    assert_eq!((d[0].zero_window_probes, d[1].zero_windows, d[1].duplicate_acks), (2, 2, 0));
}

#[test]
fn lost_segment_and_ack_of_unseen_segment() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.03).seq(1001).ack(5001).len(100),
        Seg::a_to_b(0.04).seq(1201).ack(5001).len(100), // 4: 1101..1201 missing
        Seg::b_to_a(0.05).seq(5001).ack(1301),          // 5: acks past the contiguous 1101
    ]);
    assert_eq!(flags(&a, 4), fb::LOST_SEGMENT);
    // maxseqtobeacked for A stayed at 1101 (the hole): ACK 1301 is beyond it.
    assert_eq!(flags(&a, 5), fb::ACK_LOST_SEGMENT);
    assert_eq!(a.connections[0].directions[0].lost_segments, 1);
}

#[test]
fn keep_alive_and_keep_alive_ack() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.03).seq(1001).ack(5001).len(10),
        Seg::b_to_a(0.04).seq(5001).ack(1011),
        Seg::a_to_b(60.0).seq(1010).ack(5001),    // 5: one before nextseq 1011, no data
        Seg::b_to_a(60.01).seq(5001).ack(1011), // 6: same seq/ack/window as B's last
    ]);
    assert_eq!(flags(&a, 5), fb::KEEP_ALIVE);
    assert_eq!(flags(&a, 6), fb::KEEP_ALIVE_ACK); // not counted as duplicate ACK
    let d = &a.connections[0].directions;
    assert_eq!((d[0].keep_alives, d[1].duplicate_acks, d[0].retransmissions), (1, 0, 0));
}

#[test]
fn window_update() {
    let a = with_handshake(vec![
        Seg::b_to_a(0.03).seq(5001).ack(1001).win(0),
        Seg::b_to_a(0.04).seq(5001).ack(1001).win(200), // same seq/ack, new window
    ]);
    assert_eq!(flags(&a, 4), fb::WINDOW_UPDATE);
}

#[test]
fn window_full() {
    // B advertises 10 << 7 = 1280 bytes at ack 1001; A's segment ends at 1001 + 1280.
    let a = with_handshake(vec![
        Seg::b_to_a(0.03).seq(5001).ack(1001).win(10),
        Seg::a_to_b(0.04).seq(1001).ack(5001).len(1280),
    ]);
    assert_eq!(flags(&a, 4), fb::WINDOW_FULL);
    assert_eq!(a.connections[0].directions[0].window_full, 1);
}

#[test]
fn duplicate_acks_and_fast_retransmission() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.030).seq(1001).ack(5001).len(1000),
        Seg::a_to_b(0.031).seq(2001).ack(5001).len(1000), // 4: lost on the way (seen here)
        Seg::a_to_b(0.032).seq(3001).ack(5001).len(1000),
        Seg::b_to_a(0.050).seq(5001).ack(2001), // 6: new ACK
        Seg::b_to_a(0.051).seq(5001).ack(2001), // 7: dup #1
        Seg::b_to_a(0.052).seq(5001).ack(2001), // 8: dup #2
        Seg::a_to_b(0.053).seq(2001).ack(5001).len(1000), // 9: 1 ms after the last dup
    ]);
    assert_eq!(flags(&a, 6), 0);
    assert_eq!(flags(&a, 7), fb::DUPLICATE_ACK);
    assert_eq!(flags(&a, 8), fb::DUPLICATE_ACK);
    // >= 2 dup ACKs for seq 2001 within 20 ms: fast retransmission.
    assert_eq!(flags(&a, 9), fb::FAST_RETRANSMISSION);
    let d = &a.connections[0].directions;
    // retransmissions counts fast ones too (tshark sets tcp.analysis.retransmission on them).
    // (The report's fastRetransmissions is the kernel-like kind, judged in the sender's
    // time: retrans_kinds_tests.rs.)
    assert_eq!((d[1].duplicate_acks, d[0].retransmissions), (2, 1));
}

#[test]
fn retransmission_after_timeout_and_spurious() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.03).seq(1001).ack(5001).len(100),
        Seg::a_to_b(0.33).seq(1001).ack(5001).len(100), // 4: 300 ms later, same bytes
        Seg::b_to_a(0.34).seq(5001).ack(1101),
        Seg::a_to_b(0.64).seq(1001).ack(5001).len(100), // 6: already acknowledged
    ]);
    assert_eq!(flags(&a, 4), fb::RETRANSMISSION);
    assert_eq!(flags(&a, 6), fb::SPURIOUS_RETRANSMISSION);
    let d = &a.connections[0].directions;
    // 2 retransmissions in all (like tshark's tcp.analysis.retransmission), 1 of them spurious.
    assert_eq!((d[0].retransmissions, d[0].spurious_retransmissions), (2, 1));
}

#[test]
fn out_of_order_fills_a_capture_gap() {
    // Receiver-side view: 2001..3001 overtakes 1001..2001 (arrives 1 ms earlier,
    // within the 20 ms handshake RTT).
    let a = with_handshake(vec![
        Seg::a_to_b(0.030).seq(2001).ack(5001).len(1000), // 3: previous not captured
        Seg::a_to_b(0.031).seq(1001).ack(5001).len(1000), // 4: fills the hole
    ]);
    assert_eq!(flags(&a, 3), fb::LOST_SEGMENT);
    assert_eq!(flags(&a, 4), fb::OUT_OF_ORDER);
    assert_eq!(a.connections[0].directions[0].out_of_order, 1);
}

#[test]
fn the_senders_datagram_numbering_tells_a_quick_re_send_from_an_overtaken_original() {
    // Receiver-side view of a Linux sender (one IPv4 Identification per segment): 20
    // segments numbered 1..20, the 21st (number 21) missing, 22 beyond the hole, then
    // the hole's bytes 1 ms later — within half the 20 ms handshake RTT, where the
    // round-trip rule alone says "out-of-order".
    let segs = |fill_id: u16| {
        let mut v: Vec<Seg> = (0..20u16).map(|k| Seg::a_to_b(0.030 + 0.0001 * f64::from(k)).seq(1001 + 1000 * u32::from(k)).ack(5001).len(1000).ip_id(1 + k)).collect();
        v.push(Seg::a_to_b(0.033).seq(22_001).ack(5001).len(1000).ip_id(22)); // 23: after the hole
        v.push(Seg::a_to_b(0.034).seq(21_001).ack(5001).len(1000).ip_id(fill_id)); // 24: fills it
        with_handshake(v)
    };
    // Numbered 23, after every number seen: sent after them, a re-send (its original,
    // 21, never reached the capture).
    let a = segs(23);
    assert_eq!(flags(&a, 24), fb::RETRANSMISSION);
    assert_eq!((a.connections[0].directions[0].out_of_order, a.connections[0].directions[0].unseen_datagrams), (0, Some(1)));
    // Numbered 21, the number the skip passed over: the original itself, overtaken.
    let a = segs(21);
    assert_eq!(flags(&a, 24), fb::OUT_OF_ORDER);
    assert_eq!((a.connections[0].directions[0].out_of_order, a.connections[0].directions[0].unseen_datagrams), (1, Some(0)));
}

#[test]
fn an_original_overtaken_by_a_run_is_out_of_order_however_late() {
    // A forwarder on two queues: after 20 segments in order (numbers 1..20), number 22
    // and the next 70 overtake number 21 (bytes 21,001..22,001), which comes 80 ms later —
    // past Wireshark's out-of-order window (the 20 ms handshake RTT): "retransmission" by
    // the clock. Its number is the one the skip passed over: the original, out-of-order;
    // nothing unseen.
    let mut v: Vec<Seg> = (0..20u16).map(|k| Seg::a_to_b(0.030 + 0.0001 * f64::from(k)).seq(1001 + 1000 * u32::from(k)).ack(5001).len(1000).ip_id(1 + k)).collect();
    for k in 0..70u16 {
        v.push(Seg::a_to_b(0.033 + 0.001 * f64::from(k)).seq(22_001 + 1000 * u32::from(k)).ack(5001).len(1000).ip_id(22 + k));
    }
    v.push(Seg::a_to_b(0.113).seq(21_001).ack(5001).len(1000).ip_id(21)); // row 93
    let a = with_handshake(v);
    assert_eq!(flags(&a, 93), fb::OUT_OF_ORDER);
    let d = &a.connections[0].directions[0];
    assert_eq!((d.retransmissions, d.out_of_order, d.unseen_datagrams), (0, 1, Some(0)));
}

#[test]
fn quick_resend_of_captured_bytes_is_a_retransmission() {
    // Sender-side view: 1001..2001 was captured, then sent again 1 ms after the
    // highest segment. Wireshark says out-of-order (within the first RTT); the
    // bytes were already seen, so tcpscope counts a retransmission.
    let a = with_handshake(vec![
        Seg::a_to_b(0.030).seq(1001).ack(5001).len(1000),
        Seg::a_to_b(0.031).seq(2001).ack(5001).len(1000),
        Seg::a_to_b(0.032).seq(1001).ack(5001).len(1000),
    ]);
    assert_eq!(flags(&a, 5), fb::RETRANSMISSION);
    assert_eq!(a.connections[0].directions[0].out_of_order, 0);
}

#[test]
fn syn_fin_rst_are_not_flagged_as_window_or_dupack() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.03).seq(1001).ack(5001).flags(FIN | ACK),
        Seg::b_to_a(0.04).seq(5001).ack(1002).flags(RST | ACK).win(0),
    ]);
    // A RST with window 0 is not a zero window; its window is not a receive window.
    assert_eq!(flags(&a, 4), 0);
    assert!(a.columns(0).packets.win[4].is_nan());
    assert_eq!(a.connections[0].directions[1].zero_windows, 0);
    assert_eq!(a.columns(0).packets.flags[3] & 0xff, (FIN | ACK) as u32);
}

#[test]
fn port_reuse_starts_new_connection_and_syn_retransmission_does_not() {
    let mut v = handshake(Some(7), Some(7));
    v.push(Seg::a_to_b(1.0).seq(1001).ack(5001).flags(FIN | ACK));
    v.push(Seg::a_to_b(2.0).seq(90_000).flags(SYN)); // new ISN: new connection
    v.push(Seg::a_to_b(3.0).seq(90_000).flags(SYN)); // same ISN: retransmitted SYN
    v.push(Seg::b_to_a(3.01).seq(1).ack(90_001).flags(SYN | ACK));
    let a = run(v);
    assert_eq!(a.connections.len(), 2);
    assert_eq!((a.connections[0].id, a.connections[1].id), (0, 1));
    assert_eq!((a.connections[0].packets, a.connections[1].packets), (4, 3));
    // The second SYN of the new connection is a retransmission (Wireshark).
    assert_eq!(a.columns(1).packets.flags[1] & fb::RETRANSMISSION, fb::RETRANSMISSION);
    assert_eq!(a.connections[1].endpoints[0], "10.0.0.1:40000");
}

#[test]
fn rtt_from_acks_and_timestamps() {
    let a = run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).ts(100, 0),
        Seg::b_to_a(0.010).seq(5000).ack(1001).flags(SYN | ACK).ts(900, 100),
        Seg::a_to_b(0.020).seq(1001).ack(5001).ts(102, 900).len(500).flags(ACK | PSH),
        Seg::b_to_a(0.032).seq(5001).ack(1501).ts(905, 102),
    ]);
    let r = &a.columns(0).rtt;
    // SYN→SYN/ACK 10 ms (ACK, dir 0) and TSval 100 echoed 10 ms later (ts, dir 0);
    // SYN/ACK→ACK 10 ms for B (both kinds); data 20 ms → 32 ms = 12 ms for A. Each
    // is one part of the round trip; the columns add the other part (10 ms each
    // way here: `RttSummary::offset_ms`) so they show full round trips.
    // A's 500 bytes are less than two full-sized segments (536 B at least, no MSS
    // option) with nothing sent behind them: B may have delayed that ACK (kind bit 16,
    // round_trips.rs `DELAYABLE`). The ACKs of the SYNs are each side's first.
    let rows: Vec<(u8, f64, u8)> = (0..r.t.len()).map(|i| (r.dir[i], (r.rtt_ms[i] * 1e3).round() / 1e3, r.kind[i])).collect();
    assert_eq!(rows, vec![(0, 20.0, 0), (0, 20.0, 1), (1, 20.0, 0), (1, 20.0, 1), (0, 22.0, 16), (0, 22.0, 17)]);
    let c = &a.connections[0];
    let s = &c.directions[0].rtt;
    // A's samples 10, 10, 12, 12 measure capture point → B → capture point; the
    // other part (→ A → back) is 10 ms (SYN/ACK → ACK). As full round trips: 20, 20,
    // 22, 22 → min 20, median 21; the capture sat in the middle of a 20 ms path.
    let near = |v: Option<f64>, x: f64| v.is_some_and(|v| (v - x).abs() < 1e-9);
    assert!(near(s.min_ms, 20.0) && near(s.median_ms, 21.0) && near(s.max_ms, 22.0), "{s:?}");
    assert_eq!((s.samples, s.excluded_samples), (4, 0));
    assert!(near(c.path_rtt_ms, 20.0), "{:?}", c.path_rtt_ms);
    assert_eq!(c.vantage, crate::analysis::timing::vantage::Vantage::Middle);
}

#[test]
fn sack_blocks_are_relative_to_the_data_sender() {
    let a = with_handshake(vec![Seg::b_to_a(0.05).seq(5001).ack(2001).sack(&[(3001, 4001), (5001, 6001)])]);
    let s = &a.columns(0).sack;
    // A's ISN 1000: 3001 → 2001, 4001 → 3001, ...; carried by B (dir 1).
    assert_eq!(&s.left[..], &[2001.0, 4001.0]);
    assert_eq!(&s.right[..], &[3001.0, 5001.0]);
    assert_eq!(&s.dir[..], &[1, 1]);
}

#[test]
fn summary_fields() {
    let a = with_handshake(vec![
        Seg::a_to_b(0.05).seq(1001).ack(5001).len(1000),
        Seg::b_to_a(0.06).seq(5001).ack(2001).len(10),
    ]);
    let c = &a.connections[0];
    assert_eq!(c.endpoints, ["10.0.0.1:40000".to_string(), "10.0.0.2:80".to_string()]);
    assert!(c.handshake_seen);
    assert_eq!((c.packets, c.start, c.end, c.data_direction), (5, 0.0, 0.06, 0));
    let d0 = &c.directions[0];
    assert_eq!((d0.packets, d0.payload_bytes, d0.bytes), (3, 1000, 3 * 66 + 1000));
    // mean over the connection: 8000 bits / 0.06 s. The connection lasts 60 ms, so
    // the default bin is 2 ms (the 1-2-5 step below 60 ms / 20): peak 1000 B / 2 ms.
    assert!((d0.throughput.mean_bps - 8000.0 / 0.06).abs() < 1e-6);
    assert_eq!((d0.throughput.bin_seconds, d0.throughput.peak_bps), (0.002, 4_000_000.0));
    assert_eq!((d0.from.as_str(), d0.to.as_str()), ("10.0.0.1:40000", "10.0.0.2:80"));
}

// The next four scenarios were also written as pcaps and checked with tshark 4.0.17.

#[test]
fn ack_of_unseen_segment_is_reported_once_per_hole() {
    // No handshake. A sends 1001..1101; B acks 1201 and 1301 (bytes never captured),
    // A sends 1301..1401 (1101..1301 not captured), B acks 1501.
    let a = run(vec![
        Seg::a_to_b(0.00).seq(1001).ack(9000).len(100),
        Seg::b_to_a(0.01).seq(9000).ack(1201),
        Seg::b_to_a(0.02).seq(9000).ack(1301),
        Seg::a_to_b(0.03).seq(1301).ack(9000).len(100),
        Seg::b_to_a(0.04).seq(9000).ack(1501),
    ]);
    // tshark: frame 2 flagged, frame 3 not (same unseen data), frame 4 "previous
    // segment not captured", frame 5 flagged again (beyond the new hole).
    assert_eq!(flags(&a, 1), fb::ACK_LOST_SEGMENT);
    assert_eq!(flags(&a, 2), 0);
    assert_eq!(flags(&a, 3), fb::LOST_SEGMENT);
    assert_eq!(flags(&a, 4), fb::ACK_LOST_SEGMENT);
    // After the capture gap the last ACK seen (1301) is stale: no in-flight value
    // for frame 4 (tshark shows none either).
    assert!(a.columns(0).packets.in_flight[3].is_nan());
    assert_eq!(a.columns(0).packets.in_flight[0], 100.0);
}

#[test]
fn spurious_is_checked_before_out_of_order() {
    // No handshake (3 ms out-of-order threshold). 1001..2001 is re-sent 1 ms after
    // B acknowledged 3001: already acked → spurious, not out-of-order.
    let a = run(vec![
        Seg::a_to_b(0.0).seq(1001).ack(9000).len(1000),
        Seg::a_to_b(0.0005).seq(2001).ack(9000).len(1000),
        Seg::b_to_a(0.001).seq(9000).ack(3001),
        Seg::a_to_b(0.0015).seq(1001).ack(9000).len(1000),
    ]);
    assert_eq!(flags(&a, 3), fb::SPURIOUS_RETRANSMISSION);
    assert_eq!(a.connections[0].directions[0].retransmissions, 1);
}

#[test]
fn window_full_against_the_unscaled_syn_window() {
    // B's SYN/ACK advertises 2000 (never scaled, RFC 7323 §2.2); A's first 2000
    // bytes reach exactly ack 1001 + 2000: window full (not 2000 << 7).
    let a = run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN).wscale(7),
        Seg::b_to_a(0.01).seq(5000).ack(1001).flags(SYN | ACK).win(2000).wscale(7),
        Seg::a_to_b(0.02).seq(1001).ack(5001).len(2000),
    ]);
    assert_eq!(flags(&a, 2), fb::WINDOW_FULL);
    assert_eq!(a.columns(0).packets.in_flight[2], 2000.0);
}

#[test]
fn no_handshake_bytes_in_flight_counts_from_first_seen_byte() {
    // B's ACK comes first (so A's base is ack-1 = 1000), then A sends 5001.., 6001..
    // and re-sends 1001..; B's ACK says 1001.. is outstanding, so DESIGN.md's
    // SND.NXT - SND.UNA is 6001 - 1001 = 5000, then 7001 - 1001 = 6000 twice.
    // tshark 4.0 shows 1000, 2000, 6000: it counts only segments it captured.
    let a = run(vec![
        Seg::b_to_a(0.0).seq(9000).ack(1001).win(100),
        Seg::a_to_b(0.01).seq(5001).ack(9000).len(1000),
        Seg::b_to_a(0.011).seq(9000).ack(1001).win(100),
        Seg::a_to_b(0.02).seq(6001).ack(9000).len(1000),
        Seg::a_to_b(0.03).seq(1001).ack(9000).len(1000),
    ]);
    let p = &a.columns(0).packets;
    assert_eq!(p.seq[1], 4001.0); // relative to B's first ACK
    assert_eq!((p.in_flight[1], p.in_flight[3], p.in_flight[4]), (5000.0, 6000.0, 6000.0));
    assert_eq!(flags(&a, 2), fb::DUPLICATE_ACK);
    assert_eq!(flags(&a, 4), fb::RETRANSMISSION);
}

#[test]
fn per_connection_state_is_small() {
    // State kept per connection besides the column data; keeps 1M connections
    // (e.g. a port scan) at about 1 KiB each plus their columns (issue 13 added the
    // handshake's times and the recovery points the path RTT needs: ~90 B).
    let conn = std::mem::size_of::<crate::analysis::track::conn::Conn>();
    let side = std::mem::size_of::<crate::analysis::track::conn::Side>();
    println!("Conn {conn} B, Side {side} B");
    // The boxes made per side that sends data, and at the first FIN or reset (issue 43:
    // 100,000 short connections make all of them; bench/README.md "Session 37").
    use crate::analysis::{loss, timing, track};
    use std::mem::size_of as sz;
    let (closing, kinds, ids, clock, senders) = (
        sz::<track::ending::Closing>(),
        sz::<loss::retrans_kinds::RetransKinds>(),
        sz::<loss::datagram_ids::DatagramIds>(),
        sz::<timing::sender_clock::SenderClock>(),
        sz::<track::two_senders::Senders>(),
    );
    println!("boxed: Closing {closing} B, RetransKinds {kinds} B, DatagramIds {ids} B, SenderClock {clock} B, Senders {senders} B");
    // Closing's counts are u32 (640 B with u64s), its TLS alerts and resets and FINs that
    // ended nothing are boxed at the first of them (ending/unusual.rs, 592 B inline); RetransKinds keeps its optional times
    // and edges in 8 B each (opt_ns.rs; 296 B before); DatagramIds boxes its missing
    // bitmap at the first skip (224 B with it inline).
    // +8 B (session 41): the TSval of the segment that last advanced SND.NXT, which a
    // back-to-back copy must repeat (loss/back_to_back.rs `SenderClockApart`).
    // Session 42: the reset that ended the connection and the FIN re-sends after the ACK
    // are boxed at the first of them (ending/reset_end.rs, fin_resent.rs): 392 -> 224 B.
    assert!(closing <= 224 && kinds <= 256 && ids <= 104, "Closing {closing}, RetransKinds {kinds}, DatagramIds {ids}");
    // The SYN and SYN/ACK offers: 8 B each since session 38 added whose stack sent the SYN
    // (track/syn_stack.rs, in a byte the offer's padding had).
    assert_eq!(sz::<track::handshake::HandshakeOffers>(), 16, "HandshakeOffers");
    // +16 B: one pointer per side to the retransmission-kind tracker, allocated only
    // for a side that sends data (retrans_kinds.rs).
    // +16 B: the ECN counts' pointer (ecn.rs, allocated only for a connection that
    // shows ECN) and the handshake offers' Accurate-ECN flags.
    // +16 B: one pointer per side to the peer's data arrival gaps (rtt.rs
    // `ArrivalGaps`, made at the peer's first data segment with timestamps; on the
    // heap at most 64 gaps of 16 B, `MAX_GAPS`, usually a few).
    // +16 B: one pointer per side to its IPv4 Identification steps (datagram_ids.rs,
    // made at the side's first data over IPv4; on the heap ~40 B and at most
    // `MAX_MARKED_SKIPS` skips of 12 B).
    // +16 B: one pointer per side to its TSvals' gaps (sender_clock.rs, made at the
    // side's first data with a timestamp; on the heap ~40 B and at most `MAX_GAPS`
    // gaps of 16 B).
    // +32 B: each side's newest TSval sent and when (rtt.rs `TsRtt::last_sent`), so a
    // TSval repeated after its echo does not start a second clock.
    // +8 B: the pointer to the connection's FINs, resets and TLS alerts (ending.rs,
    // made at the first of them; ~100 B on the heap).
    // +16 B: each side's TTL range (vantage.rs `local_by_ttl`: 3 B, padded).
    // +16 B: one pointer per side to what the peer's SACK blocks reported missing
    // (loss/reported.rs, made at the first block above the cumulative ACK; on the heap at
    // most 64 ranges of each kind and 256 recovery spans).
    // +40 B: the tick of the clock that stamped the connection's own packets (clock.rs
    // `ClockTicks`: a capture can merge clocks of different ticks).
    // +16 B: the pointer to the connection's link-padding state (track/padding.rs, made
    // at its first zero tail) and the clock's fill counters (clock.rs rule 3).
    // +8 B: the pointer to the connection's segment heads (track/two_senders.rs, made at
    // its first data segment; on the heap at most 128 heads of 24 B per direction).
    // −48 B (session 42): the SACK blocks' log and its deltas' previous values are boxed
    // at the first block (rows/store.rs `SackLog`).
    assert!(conn <= 1304, "Conn is {conn} bytes");
    // Not in `Conn`: the TCP-timestamp clock check (timing/ts_clock_check.rs), boxed in a
    // side table at a connection's first timestamped segment: per host its last segment,
    // first segment, the unechoed TSvals' queue head and the two shortest-gap pairs (144 B),
    // 288 B; on the heap the queue (about a round trip of the host's TSvals, 16 B each) and,
    // once a capture gap of 100 ms came, 8 pairs of 24 B.
    let ts = sz::<timing::ts_clock_check::TsClockCheck>();
    println!("TsClockCheck {ts} B");
    assert!(ts <= 288, "TsClockCheck is {ts} bytes");
}

#[test]
fn a_syn_retried_after_a_reset_is_a_timeout_but_not_needless() {
    // A port that refuses: SYN, RST/ACK acknowledging it (RFC 9293 §3.10.7.3: a RST in
    // SYN-SENT is accepted only when it acknowledges the SYN), and the client's stack
    // tries the same SYN again (Windows retries a refused SYN twice, ~0.5 s apart).
    let a = run(vec![
        Seg::a_to_b(0.0).seq(1000).flags(SYN),
        Seg::b_to_a(0.010).seq(0).ack(1001).flags(RST | ACK),
        Seg::a_to_b(0.5).seq(1000).flags(SYN),
        Seg::b_to_a(0.510).seq(0).ack(1001).flags(RST | ACK),
        Seg::a_to_b(1.0).seq(1000).flags(SYN),
        Seg::b_to_a(1.010).seq(0).ack(1001).flags(RST | ACK),
    ]);
    let d = &a.connections[0].directions[0];
    // Two re-sent SYNs (Wireshark: retransmissions; a SYN is re-sent only by its
    // timer, RFC 6298 §5.7) — but not needless: the RST's ACK acknowledges the SYN
    // only to refuse it, so nothing had "arrived" (before: 2 spurious timeouts).
    assert_eq!((d.retransmissions, d.rto_events, d.spurious_retransmissions), (2, 2, 0));
}

/// 30 numbered data segments of 1,000 B from `first_seq`, ids 100.. (a Linux sender's
/// per-connection numbering, datagram_ids.rs).
fn numbered_train(first_seq: u32, t0: f64) -> Vec<Seg> {
    (0..30u16).map(|k| Seg::a_to_b(t0 + 0.0001 * f64::from(k)).seq(first_seq.wrapping_add(1000 * u32::from(k))).ack(5001).len(1000).ip_id(100 + k)).collect()
}

#[test]
fn a_first_flight_lost_before_the_capture_is_counted_only_where_the_syn_says_where_it_began() {
    let unseen = |a: &Analysis| a.connections[0].directions[0].unseen_datagrams;
    // The handshake in the capture, the first 3 segments (1001..4001) lost before it:
    // the first data seen starts 3,000 bytes beyond the first byte: 3 unseen.
    assert_eq!(unseen(&with_handshake(numbered_train(4001, 0.03))), Some(3));
    // A first data segment 1 GiB beyond the first byte is no lost first flight (a SYN's
    // window, never scaled, lets at most 65,535 bytes out before the first ACK).
    assert_eq!(unseen(&with_handshake(numbered_train(1001 + (1 << 30), 0.03))), Some(0));
    // Mid-stream, without the handshake: a keep-alive (one byte below snd.nxt, no data)
    // makes the next data look one byte beyond a hole, but nothing says where the
    // stream began: nothing counted.
    let mut v = vec![Seg::a_to_b(0.0).seq(1000).ack(5001), Seg::b_to_a(0.01).seq(5001).ack(1001)];
    v.extend(numbered_train(1001, 1.0));
    assert_eq!(unseen(&run(v)), Some(0));
}

#[test]
fn a_first_data_segment_overtaken_on_the_way_is_not_lost() {
    // 2001 (id 101) arrives before 1001 (id 100): the first data seen starts one segment
    // beyond the first byte, and then the segment before it comes, with the number just
    // below: overtaken, not lost (as the same swap later in the stream reads).
    let mut v = vec![Seg::a_to_b(0.030).seq(2001).ack(5001).len(1000).ip_id(101), Seg::a_to_b(0.0301).seq(1001).ack(5001).len(1000).ip_id(100)];
    v.extend((2..30u16).map(|k| Seg::a_to_b(0.031 + 0.0001 * f64::from(k)).seq(1001 + 1000 * u32::from(k)).ack(5001).len(1000).ip_id(100 + k)));
    let a = with_handshake(v);
    assert_eq!(a.connections[0].directions[0].unseen_datagrams, Some(0));
}

#[test]
fn rows_only_finish_reports_the_same_and_keeps_no_chart_rows() {
    // The CLI's `analyze` finishes without chart rows (Analyzer::rows_only): every row it
    // writes (the report's JSON, each connection's full and compact rows) must be what a
    // finish keeping them gives. Example captures with radio headers, MPTCP, SACK and
    // large connections (kept window-limited spans), and a damaged one.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../public/examples");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng")).collect();
    names.sort();
    assert!(names.len() > 20, "{} example captures", names.len());
    let (mut with_rows, mut with_radio) = (0, 0);
    for path in names {
        let bytes = std::fs::read(&path).unwrap();
        let run = |rows_only: bool| {
            let mut s = crate::session::Session::new(crate::analysis::AnalysisOptions::default());
            for chunk in bytes.chunks(1 << 16) {
                if !s.push(chunk) {
                    break;
                }
            }
            if rows_only {
                s.finish_rows_only();
            } else {
                s.finish();
            }
            s
        };
        let (full, rows) = (run(false), run(true));
        let (a, b) = (full.analysis().unwrap(), rows.analysis().unwrap());
        assert_eq!(full.report().to_json(), rows.report().to_json(), "{}", path.display());
        assert_eq!(full.report().header_json(), rows.report().header_json(), "{}", path.display());
        for (x, y) in a.connections.iter().zip(&b.connections) {
            assert_eq!(crate::compact_row::CompactRow::of(x).to_json(), crate::compact_row::CompactRow::of(y).to_json(), "{}", path.display());
        }
        assert!(b.stores.is_empty() && b.radio.is_empty() && b.window_limited.is_empty(), "{}", path.display());
        with_rows += usize::from(a.stores.iter().any(|s| s.packet_count() > 0));
        with_radio += usize::from(a.radio.iter().any(|r| *r != Default::default()));
    }
    assert!(with_rows > 20 && with_radio > 0, "{with_rows} captures with rows, {with_radio} with radio samples");
}
