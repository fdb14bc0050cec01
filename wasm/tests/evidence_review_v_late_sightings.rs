//! Issue 39, which segments are re-sends (session 36, helper C):
//! - C-LATE-SIGHTING-AS-RETRANSMISSION (review V "cip", closing35.md): a segment the
//!   capture first saw after the receiver had acknowledged it, numbered with the IPv4
//!   Identification due right after its sender's last captured datagram, is the original
//!   seen late, not a re-send (track/conn/late_sighting.rs).
//! - qi 13 (review W, W3): the real server's first transmission after an injected answer
//!   at the same sequence numbers is its writer's first sending, not a re-send
//!   (two_senders.rs `Senders::note`, now called before the retransmission kind).
//! - mercury #146 (h35b): the tracker's first ACK at or below the lowest byte the side
//!   was seen to send is no advance, so no feedback that could clock a re-send
//!   (retrans_kinds.rs `sent_low`).

use crate::common;

use tcpscope_core::analysis::stalls::cause::StallCause;
use tcpscope_core::synth::*;

/// A poll on a tap across a router (cip's shape, one sighting per datagram): the HMI's
/// 58-B request every 30 ms, the PLC's 80-B answer (acknowledging it) 10 ms later. The
/// fourth request (at 100 ms) is captured 25 ms after it was sent, 15 ms after the
/// answer that acknowledged it, carrying the Identification `skip` numbers past the one
/// due (0: the next one; 1: one datagram of the HMI's went uncaptured in between).
fn poll(skip: u16) -> Flow {
    let mut f = Flow::new("10.200.1.18:2430", "10.50.1.54:44818");
    f.handshake(0, 400, Opts::new().mss(1460), Opts::new().mss(1460));
    for (s, id) in f.segments_mut().iter_mut().zip([0x9af0, 0x88e0, 0x9af1]) {
        s.ip_id = id;
        s.ttl = 128;
    }
    let (mut hmi, mut plc) = (0x9af2u16, 0x88e1u16);
    for i in 0..6i64 {
        let t = 10_000 + 30_000 * i;
        let id = if i == 3 { hmi + skip } else { hmi };
        let request = f.segments().len();
        f.data(C2S, t, 58).ip_id(id).ttl(128);
        f.data(S2C, t + 10_000, 80).ip_id(plc).ttl(128);
        if i == 3 {
            f.segments_mut()[request].ts_ns += 25_000_000;
        }
        (hmi, plc) = (id + 1, plc + 1);
    }
    f
}

#[test]
fn a_request_seen_after_its_ack_with_the_number_due_is_the_original() {
    // The fourth request's ID 0x9af5 follows the third's 0x9af4: the HMI sent nothing
    // between, so this datagram is the one that first carried those 58 bytes; the
    // PLC's ACK before it is no evidence of a re-send. Before (main eccb89f): 1
    // retransmission (Wireshark: "ACKed segment that wasn't captured" on the answer, then
    // "spurious retransmission"), 58 B delivered unseen.
    let c = common::analyze_flow(&poll(0));
    let hmi = &c.directions[0];
    assert_eq!((hmi.retransmissions, hmi.spurious_retransmissions, hmi.payload_bytes), (0, 0, 6 * 58));
    assert_eq!((c.capture_loss.unseen_bytes, c.capture_loss.holes, c.capture_loss.late_sightings), (0, 0, 1));
    // Control: ID 0x9af6 — one datagram of the HMI's (0x9af5) went uncaptured, the
    // original of these bytes, so this one is a re-send of it (spurious: the PLC had it).
    let c = common::analyze_flow(&poll(1));
    let hmi = &c.directions[0];
    assert_eq!((hmi.retransmissions, hmi.spurious_retransmissions, c.capture_loss.late_sightings), (1, 1, 0));
}

const CIP: &str = "gopacket__gopacket__layers_testdata_cip.pcap";

#[test]
fn cip_counts_its_late_sightings_once() {
    // cip connection 0 (tshark: frame 1607, the PLC's ACK 22679 at 12.2098 s, then 1611,
    // the HMI's 22621 + 58 at 12.2644 s with ID 0x9c8c right after 1606's 0x9c8b; 1613,
    // 22679 with 0x9c8d; 1617, the PLC's 31361 with 0x8a71 after 1609's 0x8a70, 9.3 ms
    // after the HMI's ACK 31441). Before (main eccb89f): 27 + 35 retransmissions, 90
    // holes (176 segments) delivered unseen; 12 of the 58 late sightings had been held as
    // originals already (within a round trip of their ACK, loss.rs `hold_late_copy`). Left:
    // the 3 true re-sends (18899, 18904, 18982: new IDs) and 13 first sightings past a
    // hole (e.g. 1606, ID 0x9c8b after 1600's 0x9c88), whose skipped numbers may hold
    // the original as well as the hole's bytes: undecided, still counted.
    let Some(c) = common::corpus_connection(CIP, 0) else { return };
    let r: Vec<u64> = c.directions.iter().map(|d| d.retransmissions).collect();
    assert_eq!(r, [9, 7]);
    assert_eq!((c.capture_loss.holes, c.capture_loss.unseen_segments, c.capture_loss.late_sightings), (75, 126, 58));
}

/// Review T's injection scene, built by evidence_review_t_two_senders.rs: the
/// injector's 1,400 B (TTL 63) at sequence 1, then the real server's 485 B + FIN (TTL 127)
/// with "HTTP/1.1 301" sent 6 times.
fn injected() -> Flow {
    crate::evidence_review_t_two_senders::injected(crate::evidence_review_t_two_senders::REAL)
}

#[test]
fn a_second_senders_first_sending_is_no_re_send() {
    // The server's first 485 B carry "HTTP/1.1 301" where the injector's carried "HTTP/1.1
    // 200": nobody had sent these bytes, so only its 5 copies after it are re-sends (before:
    // 6). The two-senders finding is unchanged: 6 segments differ from the injector's.
    let c = common::analyze_flow(&injected());
    assert_eq!(c.directions[1].retransmissions, 5);
    assert_eq!(c.two_senders.as_deref().map(|t| t.segments), Some(6));
}

const QI: &str = "fox-it__quantuminsert__presentations_brocon2015_pcaps_bro.org-harlemshake-inject.pcap";

#[test]
fn qi_13_counts_the_real_servers_first_answer_and_fin_as_originals() {
    // tshark: 447 "retransmissions" of 192.150.187.43:80 — frame 53 (the real server's
    // first 485 B, TTL 127, "301" where the injector's 21 had "200") and 55 (its first FIN,
    // at 486, where its TTL had sent nothing) among them; the 445 from frame 105 on each
    // re-send 53's bytes and FIN. Before (main eccb89f): 447.
    let Some(c) = common::corpus_connection(QI, 13) else { return };
    assert_eq!(c.directions[1].retransmissions, 445);
    assert_eq!(c.two_senders.as_deref().map(|t| t.segments), Some(446));
}

/// mercury #146's shape, no handshake captured: the client's 4 B at 0 (seq 1), the
/// server's 4 B crossing it at 225 ms with ACK 1 (nothing of the client's), the client's
/// ACK of them at 450 ms, its re-send of the 4 B at 1.171 s, and the server's D-SACK of it.
fn crossing() -> Flow {
    let mut f = Flow::new("192.168.1.101:56526", "67.252.131.62:23754");
    f.data(C2S, 0, 4);
    let ack_before = f.segments()[0].seq;
    f.data(S2C, 225_609, 4).ack(ack_before);
    f.push(C2S, 449_581);
    f.data(C2S, 1_171_247, 4).seq(ack_before);
    f.push(S2C, 1_515_544).opts(Opts::new().sack(&[(ack_before, ack_before + 4)]));
    f
}

#[test]
fn a_first_ack_of_nothing_sent_does_not_clock_a_re_send() {
    // ACK 1 acknowledges nothing the client was seen to send: no feedback came after its
    // 4 B, so its re-send 1.17 s later is its timer's (a probe: SACK in use), not a fast
    // retransmission, and the stall is not "waiting on ACKs" (before: fast 1, ack-wait).
    let c = common::analyze_flow(&crossing());
    let client = &c.directions[0];
    assert_eq!((client.retransmissions, client.fast_retransmissions, client.tail_loss_probes + client.rto_events), (1, 0, 1));
    assert!(client.stalls.iter().all(|s| s.cause != StallCause::AckWait), "{:?}", client.stalls);
}

const MERCURY: &str = "cisco__mercury__unit_tests_pcaps_http_request.capture2.pcap";

#[test]
fn mercury_146_re_send_is_the_timers() {
    // tshark: 3950 (seq 1, 4 B) at 308432472.603, 3958 the server's 4 B with ACK 1 at
    // .829, 3974 the client's ACK 5, 4012 the re-send at 473.774 (1.171 s), 4034 D-SACK
    // 1–5. Before (main eccb89f): fast 1 and "1.2 s waiting on ACKs".
    let Some(c) = common::corpus_connection(MERCURY, 146) else { return };
    let client = &c.directions[0];
    assert_eq!((client.retransmissions, client.fast_retransmissions, client.tail_loss_probes), (1, 0, 1));
    assert!(!c.diagnosis.text.contains("waiting on ACKs"), "{}", c.diagnosis.text);
}
