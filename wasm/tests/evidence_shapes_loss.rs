//! Issue 39, "Evidence before every claim", the loss claims: shapes from real captures by
//! others where re-sends or numbering gaps were told as loss that the capture itself
//! contradicts. Each test asserts the right story and the absence of the false sentence,
//! and says why the answer is right (DESIGN.md "Diagnosis principles").

use crate::common;

use tcpscope_core::analysis::{ConnectionSummary, StallCause, Vantage};
use tcpscope_core::decode::tcp_flags::{ACK, RST};
use tcpscope_core::synth::*;

/// The scripted flow's connection (tests/common: written in time order, TCPSCOPE_DUMP keeps it).
fn analyze(f: &Flow) -> ConnectionSummary {
    common::analyze_flow(f)
}

const MSS: u32 = 1448;
/// The server's first data byte: the Flow's server ISN 5000, + 1 for the SYN.
const S0: u32 = 5001;
const ROUND_US: i64 = 20_000;
const SLOT_US: i64 = 50;
const PER_ROUND: u32 = 20;

/// A download captured at the client (10.0.0.2), 20 ms path: 20 full segments a round
/// trip, 50 µs apart, the client ACKing every second one 10 µs after it arrives.
/// `reordered`: rounds in which the network delivered segment 4 after segment 7; the
/// client then sends a duplicate ACK (with a SACK block) for each of segments 5–7, the
/// sender re-sends segment 4 on the third one, a round trip later, and the client
/// answers that duplicate with a D-SACK (RFC 2883 §4). `silent_from`: the round from
/// which the client answers nothing, while the server's timer re-sends (200 ms,
/// doubling, RFC 6298 §5.5) and the server resets 10 s later.
fn download(rounds: u32, reordered: &[u32], silent_from: Option<u32>) -> Flow {
    // The client's packets leave with Linux's initial TTL 64, the server's arrive with
    // 50: the capture is on the client's host (vantage.rs `local_by_ttl`).
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:443");
    f.push(C2S, 0).flags(tcpscope_core::decode::tcp_flags::SYN).ack(0).opts(Opts::new().mss(1460).sack_perm());
    f.push(S2C, 20_000).flags(tcpscope_core::decode::tcp_flags::SYN | ACK).opts(Opts::new().mss(1460).sack_perm()).ttl(50);
    f.push(C2S, 20_000);
    f.data(C2S, 20_100, 300);
    let start = 40_000;
    let seq = |r: u32, k: u32| S0 + (r * PER_ROUND + k) * MSS;
    let mut last_t = start;
    for r in 0..rounds {
        let t = start + i64::from(r) * ROUND_US;
        let silent = silent_from.is_some_and(|s| r >= s);
        let late = reordered.contains(&r);
        // Arrival order: 0..3, 5, 6, 7, 4, 8.. when reordered.
        let order: Vec<u32> = if late { [0, 1, 2, 3, 5, 6, 7, 4].into_iter().chain(8..PER_ROUND).collect() } else { (0..PER_ROUND).collect() };
        let mut cum = seq(r, 0); // the client's cumulative ACK within this round
        let mut sacked: Option<(u32, u32)> = None;
        for (slot, &k) in order.iter().enumerate() {
            let at = t + slot as i64 * SLOT_US;
            f.data(S2C, at, MSS).seq(seq(r, k)).flags(ACK).ttl(50);
            last_t = at;
            if silent {
                continue;
            }
            if seq(r, k) == cum {
                cum = seq(r, k) + MSS;
                if let Some((_, right)) = sacked.take() {
                    cum = right; // the hole filled: everything SACKed is now in order
                }
                if slot % 2 == 1 || late && k == 4 {
                    f.push(C2S, at + 10).ack(cum);
                }
            } else {
                // Out of order: a duplicate ACK at once, with the block received above it.
                let right = seq(r, k) + MSS;
                let block = (sacked.map_or(seq(r, k), |b| b.0), right);
                sacked = Some(block);
                f.push(C2S, at + 10).ack(cum).opts(Opts::new().sack(&[block]));
            }
        }
        if late {
            // The fast retransmit of segment 4, a round trip after the third duplicate
            // ACK (sent at slot 6), arrives while the next round's slot 7 goes by; the
            // client has everything to the next round's segment 7 by then.
            let at = t + ROUND_US + 6 * SLOT_US + 10 + 5;
            f.data(S2C, at, MSS).seq(seq(r, 4)).flags(ACK).ttl(50);
            let cum_next = seq(r + 1, 7);
            f.push(C2S, at + 10).ack(cum_next).opts(Opts::new().sack(&[(seq(r, 4), seq(r, 4) + MSS)]));
        }
    }
    if let Some(s) = silent_from {
        // The timer re-sends the first unacknowledged segment, doubling each time.
        let mut at = last_t;
        let mut rto = 200_000;
        for _ in 0..5 {
            at += rto;
            f.data(S2C, at, MSS).seq(seq(s, 0)).flags(ACK).ttl(50);
            rto *= 2;
        }
        f.push(S2C, at + 10_000_000).seq(seq(rounds, 0)).flags(RST | ACK).ttl(50);
    }
    f
}

#[test]
fn needless_re_sends_after_reordering_are_no_loss() {
    // 3 rounds reordered: the network delivered segment 4 three segments late, the
    // sender re-sent it on the third duplicate ACK, and the receiver reported the
    // duplicate with a D-SACK. Nothing was lost: every "hole" was filled by the late
    // original (Wireshark's out-of-order) before the re-send came, and each re-send
    // arrived after the receiver had ACKed its bytes (Wireshark's spurious
    // retransmission). So 3 re-sends are counted, all needless, and loss recovery took
    // no time: the loss share is 0 and no sentence says loss limited the flow.
    let c = analyze(&download(30, &[5, 12, 20], None));
    assert_eq!(c.vantage, Vantage::Receiver);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!((sender.retransmissions, sender.spurious_retransmissions), (3, 3));
    assert_eq!(c.diagnosis.shares.loss, 0.0, "{:?}", c.diagnosis);
    assert_ne!(c.diagnosis.limit, "loss");
    assert!(!c.diagnosis.text.contains("Loss limited"), "{}", c.diagnosis.text);
}

#[test]
fn re_sends_that_reach_a_silent_receiver_are_not_loss() {
    // From round 8 the client answers nothing: round 8's 20 segments and the server's
    // 5 timeout re-sends (200, 400, 800, 1600, 3200 ms) all reach this capture, on the
    // client's host (its TTL 64 unchanged, the server's 50), and none is acknowledged; a live receiver ACKs an arriving segment
    // within 0.5 s (RFC 9293 §3.8.6.3). So the receiver stopped, not the path: the 5
    // stalls the timer ended are waits on ACKs that never came, the headline is the
    // stalls, an episode names the silent receiver, and neither "Loss limited" nor
    // "Nothing got through" is said. The 5 timeouts stay counted: the timer fired.
    let c = analyze(&download(9, &[], Some(8)));
    assert_eq!(c.vantage, Vantage::Receiver);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!(sender.retransmissions, 5);
    let waits = sender.stalls.iter().filter(|s| s.cause == StallCause::AckWait && s.ended_by.contains("reached this capture on its host")).count();
    assert_eq!(waits, 5, "{:?}", sender.stalls);
    assert!(sender.stalls.iter().all(|s| s.cause != StallCause::RetransmissionTimeout));
    // The receiver never answered again: the transfer is judged up to its silence and the
    // silence said on its own (verdict/peer_silent.rs; was the `stalls` headline), its
    // episode kept in the list.
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("10.0.0.2:40000 went silent after 0.181 s (its last packet, frame 244)"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("the re-sends reached this capture point on the peer's host and none was answered: its host or its stack stopped, not the path"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.episodes.iter().any(|e| e.text.contains("10.0.0.2:40000 stopped answering for 6.2 s")), "{:?}", c.diagnosis.episodes);
    assert!(!c.diagnosis.text.contains("Nothing got through") && !c.diagnosis.text.contains("Loss limited"), "{}", c.diagnosis.text);
}

#[test]
fn re_sends_unanswered_a_router_away_from_the_receiver_are_not_called_its_silence() {
    // The same, but the client's packets arrive with TTL 62: two routers between the
    // capture point and the client, which may have lost every re-send. So the stalls
    // stay timeouts and the episode says the capture cannot tell the last stretch's
    // loss from a receiver that stopped.
    let mut f = download(9, &[], Some(8));
    for s in f.segments_mut().iter_mut().filter(|s| s.src == addr("10.0.0.2:40000")) {
        s.ttl(62);
    }
    let c = analyze(&f);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!(sender.stalls.iter().filter(|s| s.cause == StallCause::RetransmissionTimeout).count(), 5, "{:?}", sender.stalls);
    // Said in the receiver's silence (verdict/peer_silent.rs), which never answered
    // again; the outage episode keeps its words in the list.
    assert!(c.diagnosis.text.contains("the re-sends passed this capture point on the peer's side and none was answered: the peer stopped (its host, its stack or its application) or the last stretch to it was cut"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.episodes.iter().any(|e| e.text.contains("none was acknowledged, nor anything else heard from 10.0.0.2:40000 (lost between here and the receiver, or the receiver stopped answering)")), "{:?}", c.diagnosis.episodes);
    assert!(!c.diagnosis.text.contains("stopped answering for"), "{}", c.diagnosis.text);
}

#[test]
fn numbers_skipped_at_the_senders_own_host_are_no_loss() {
    // An upload captured at the client (the data sender): its SYN/ACK → ACK turn is 0
    // and SYN → SYN/ACK 20 ms, so the capture is at the sender's host, where every
    // datagram the sender sends is captured. The client's IPv4 ID counter is the
    // host's (one for all its connections): it skips one number after each of 3
    // pauses of 300 ms, where another connection sent a datagram. Nothing of this
    // connection went unseen and nothing was re-sent: 0 unseen datagrams, 0
    // retransmissions, no timeout stall.
    let mut f = Flow::new("10.0.0.2:40001", "10.0.0.1:21");
    f.handshake(0, 20_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut id = 100u16;
    let mut t = 20_100;
    for burst in 0..4 {
        if burst > 0 {
            id = id.wrapping_add(1); // the other connection's datagram
        }
        for k in 0..10 {
            f.data(C2S, t + k * 50, MSS).ip_id(id);
            id = id.wrapping_add(1);
            if k % 2 == 1 {
                f.push(S2C, t + k * 50 + 20_000);
            }
        }
        t += 300_000;
    }
    let c = analyze(&f);
    assert_eq!(c.vantage, Vantage::Sender);
    let sender = &c.directions[c.data_direction as usize];
    assert_eq!(sender.unseen_datagrams.unwrap_or(0), 0);
    assert_eq!(sender.retransmissions, 0);
    assert!(sender.stalls.iter().all(|s| s.cause != StallCause::RetransmissionTimeout), "{:?}", sender.stalls);
}
