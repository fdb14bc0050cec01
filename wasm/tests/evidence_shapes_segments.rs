//! Issue 39, "Evidence before every claim", review H classes A and B: what one frame and
//! one byte count for at the capture point.
//!
//! A. A sender's segment size (SMSS) is bounded by the MSS its *receiver* announced
//!    (RFC 9293 §3.7.1, RFC 6691), not by the smaller of the two handshake options: with
//!    a client announcing 1460 and a server 1400, the server's 1460-byte frames are one
//!    segment each, and nothing in the capture shows TSO or GRO (handshake.rs `send_mss`).
//! B. At a capture that is not the sender's own, an original lost before the capture
//!    point never reached it while its re-send did: the retransmitted share is of the
//!    bytes that reached the capture point, and the sentence says so (diagnosis/phrases.rs
//!    `retransmitted_share_of`).
//!
//! Each shape is synthesized (tests/common) and checked on the public capture that showed
//! it (`TCPSCOPE_CORPUS`; absent, that test says so and passes).

use crate::common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, Vantage};
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// The server's frames: 1460 bytes, the MSS the client announced.
const FRAME: u32 = 1460;
/// The server's first data byte: the Flow's server ISN 5000, + 1 for the SYN.
const S0: u32 = 5001;
const PER_ROUND: u32 = 20;
const ROUND_US: i64 = 20_000;
const SLOT_US: i64 = 50;
/// The client answers a segment this long after it arrives.
const ACK_AFTER_US: i64 = 10;

/// A download captured on the client's host (its packets leave with TTL 64, the server's
/// arrive with 50: vantage.rs `local_by_ttl`), 20 ms path, no timestamps, SACK. The client's
/// SYN announces `client_mss`, the server's SYN/ACK `server_mss`. The server sends
/// `rounds` rounds of 20 frames of 1460 bytes, 50 µs apart; in each of `lost_rounds`
/// (no two consecutive) the round's segment 4 is lost before the capture point. The
/// client ACKs every second in-order segment, and at once — with SACK blocks, most
/// recent first (RFC 2018 §4) — each segment above a hole and the one that fills it;
/// the server re-sends the hole's segment on the third duplicate ACK (RFC 5681 §3.2),
/// and the re-send reaches the capture one round trip after that ACK left it.
fn lossy_download(client_mss: u16, server_mss: u16, rounds: u32, lost_rounds: &[u32]) -> Flow {
    assert!(lost_rounds.windows(2).all(|w| w[1] > w[0] + 1), "one hole at a time");
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(client_mss).sack_perm());
    f.push(S2C, 20_000).flags(SYN | ACK).opts(Opts::new().mss(server_mss).sack_perm()).ttl(50);
    f.push(C2S, 20_000);
    f.data(C2S, 20_100, 300);
    let start = 40_000;
    let seq = |r: u32, k: u32| S0 + (r * PER_ROUND + k) * FRAME;
    // (arrival time at the capture, sequence number), earliest first.
    let mut arrivals: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
    for r in 0..rounds {
        for k in (0..PER_ROUND).filter(|&k| !(k == 4 && lost_rounds.contains(&r))) {
            arrivals.push(Reverse((start + i64::from(r) * ROUND_US + i64::from(k) * SLOT_US, seq(r, k))));
        }
    }
    // The client's receive state: everything below `cum`, and one block above the hole.
    let (mut cum, mut block): (u32, Option<(u32, u32)>) = (S0, None);
    let (mut unacked, mut dup_acks) = (0, 0);
    while let Some(Reverse((t, s))) = arrivals.pop() {
        f.data(S2C, t, FRAME).seq(s).flags(ACK).ttl(50);
        let at = t + ACK_AFTER_US;
        if s == cum {
            cum += FRAME;
            let filled = block.take_if(|b| b.0 == cum).map(|b| cum = b.1).is_some();
            unacked += 1;
            if filled || unacked == 2 {
                f.push(C2S, at).ack(cum);
                (unacked, dup_acks) = (0, 0);
            }
        } else {
            // Above the hole: a duplicate ACK at once, with the block received above it.
            let b = (block.map_or(s, |b| b.0), s + FRAME);
            block = Some(b);
            f.push(C2S, at).ack(cum).opts(Opts::new().sack(&[b]));
            dup_acks += 1;
            if dup_acks == 3 {
                // 5 µs off the 50 µs grid, so no two frames share a timestamp.
                arrivals.push(Reverse((at + ROUND_US + 5, cum)));
            }
        }
    }
    f
}

#[test]
fn full_frames_to_a_peer_that_announced_more_are_one_segment_each() {
    // The client announced 1460, the server 1400; the server sends the client 1460-byte
    // frames, as RFC 9293 §3.7.1 lets it (its Eff.snd.MSS is bounded by the client's
    // option; its own 1400 bounds what the client sends it). 15 of its originals were
    // lost before the capture and re-sent: 15 retransmitted frames, and the kernel would
    // count 15 segments (TcpRetransSegs adds tcp_skb_pcount, 1 for a 1460-byte skb at an
    // MSS of 1460) — not 30, as the smaller of the two options (1400) made it, and no
    // frame larger than a segment, so no sentence about TSO or GRO.
    let lost: Vec<u32> = (0..30).step_by(2).collect();
    let c = common::analyze_flow(&lossy_download(1460, 1400, 30, &lost));
    assert_eq!(c.vantage, Vantage::Receiver);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!((sender.retransmissions, sender.retransmitted_segments, sender.fast_retransmitted_segments), (15, 15, 15));
    assert!(!c.diagnosis.text.contains("TSO/GRO"), "{}", c.diagnosis.text);
    // The same download with the options the other way round (the server announced
    // 1460, the client 1400): the server may send the client only 1400-byte segments,
    // so each 1460-byte frame is two merged by GRO on the client: 30 segments.
    let c = common::analyze_flow(&lossy_download(1400, 1460, 30, &lost));
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!((sender.retransmissions, sender.retransmitted_segments), (15, 30));
}

#[test]
fn a_receiver_side_share_is_of_the_bytes_that_reached_the_capture_point() {
    // 30 rounds of 20 frames, segment 4 of every other round lost before the capture and
    // re-sent: the capture saw 585 originals and 15 re-sends, 600 frames of 1460 bytes,
    // so 15 × 1460 / (600 × 1460) = 2.5 % of the bytes that reached it were re-sends.
    // The sender sent 615 frames (the 15 lost originals never reached this capture
    // point): 2.4 % of its bytes — a number this capture cannot give exactly, since a
    // re-send lost again would be unseen too. So the sentence names what it divides by.
    let lost: Vec<u32> = (0..30).step_by(2).collect();
    let c = common::analyze_flow(&lossy_download(1460, 1460, 30, &lost));
    assert_eq!(c.vantage, Vantage::Receiver);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!((sender.retransmissions, sender.payload_bytes), (15, 600 * u64::from(FRAME)));
    let t = &c.diagnosis.text;
    assert!(t.contains("2.5 % of the bytes that reached the capture point were retransmissions"), "{t}");
    assert!(!t.contains("of the bytes sent"), "{t}");
}

#[test]
fn a_public_capture_with_asymmetric_mss_options_counts_no_tso_frames() {
    // lyc0930/Wireshark-Labs 2-HTTP_DNS_DNS_1.pcapng connection 16, 192.168.1.103:55111 ↔
    // 104.20.0.85:443, captured at the client (it ACKs 23–60 µs after each segment):
    // SYN frame 35 announces MSS 1460 (client), SYN/ACK frame 36 MSS 1400 (server), no
    // timestamps; the server's largest frame carries 1460 bytes (tshark: max tcp.len
    // 1460). Before: "29.4 % of the bytes sent were retransmissions (1043 segments,
    // re-sent in 522 of 1787 data frames: the capture holds TSO/GRO frames of several
    // segments each)" — 522 × 2 − 1 = 1043 at an SMSS of 1400. The server's SMSS is the
    // client's 1460, and its IPv4 Identification says so too: it steps by one per
    // 1460-byte frame (1,558 of 1,786 steps; tshark), as Linux numbers one per segment.
    // With the numbering readable, the one filler the clock had called out-of-order is a
    // re-send: every one of the 523 frames below the highest sequence seen carries a
    // number above all numbers before it (sent after them, not overtaken). So 523
    // segments in 523 frames. The bytes re-sent are a share of the 2,596,424 that reached
    // the capture point; the originals lost before it never did.
    let Some(bytes) = common::corpus("lyc0930__Wireshark-Labs__2-HTTP&DNS_DNS_1.pcapng") else { return };
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let c: &ConnectionSummary = &a.connections[16];
    assert_eq!(c.directions[c.data_direction as usize].from, "104.20.0.85:443");
    assert_eq!(c.vantage, Vantage::Receiver);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!((sender.retransmissions, sender.retransmitted_segments, sender.payload_bytes), (523, 523, 2_596_424));
    // The numbering also counts the datagrams that never reached the capture: 637 (the
    // skips add to 644 numbers; at least 523 of them the lost originals of the re-sends).
    assert_eq!(sender.unseen_datagrams, Some(637));
    let t = &c.diagnosis.text;
    assert!(t.starts_with("Loss limited this flow: 29.4 % of the bytes that reached the capture point were retransmissions (523 of 1787 data segments;"), "{t}");
    assert!(!t.contains("TSO/GRO"), "{t}");
}
