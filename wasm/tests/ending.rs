//! How each connection ended (analysis/track/ending.rs, docs/ANALYSIS.md "How the connection
//! ended") on synthesized captures whose every FIN, reset, alert and ACK is known.
//! Times are exact: the first packet of each file is at 0 and `Flow` times are µs.
use tcpscope_core::analysis::ending::{AlertSeen, Reset};
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use crate::common;

const CLIENT: &str = "10.0.0.1:40000";
const SERVER: &str = "10.0.0.2:443";

fn analyse_with(f: &Flow, options: AnalysisOptions) -> ConnectionSummary {
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, options, 1 << 20);
    let a = s.analysis().expect("analysed");
    assert_eq!(a.connections.len(), 1);
    a.connections[0].clone()
}

fn analyse(f: &Flow) -> ConnectionSummary {
    analyse_with(f, AnalysisOptions::default())
}

/// Handshake at 0 (10 ms round trip), a 200-byte request at 20 ms, 10 segments of
/// 1448 B from the server from 30 ms (1 ms apart), each ACKed by the client 0.5 ms later.
fn exchange() -> Flow {
    let mut f = Flow::new(CLIENT, SERVER);
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 200);
    for k in 0..10 {
        f.data(S2C, 30_000 + k * 1_000, 1448);
        f.push(C2S, 30_500 + k * 1_000);
    }
    f
}

/// The frame number (1-based) of the segment just added.
fn last_frame(f: &Flow) -> u32 {
    f.segments().len() as u32
}

#[test]
fn fin_both_ways_the_client_first() {
    let mut f = exchange();
    // The client closes at 60 ms; the server ACKs and closes 10 ms later; the client ACKs.
    f.push(C2S, 60_000).flags(FIN | ACK);
    f.push(S2C, 70_000).flags(FIN | ACK);
    f.push(C2S, 70_500);
    let e = *analyse(&f).ending;
    assert_eq!(e.kind, "fin-both");
    assert_eq!(e.words, "FIN both");
    assert_eq!((e.first_fin, e.fin_at), (Some(0), [Some(0.06), Some(0.07)]));
    assert_eq!((e.reset, e.resets, e.tls_alert), (None, [0, 0], None));
    // Every byte of both sides was ACKed (the client's 200 by the server's data, the
    // server's 14,480 by the client's ACKs).
    assert_eq!(e.unacknowledged_bytes, [Some(0), Some(0)]);
    assert!(!e.abnormal);
    assert_eq!(e.text, "Closed by a FIN each way: 10.0.0.1:40000 closed first at 0.060 s, 10.0.0.2:443 10 ms later (RFC 9293 §3.6).");
}

/// The failed transfer: the server's data stops being acknowledged, it sends an
/// (encrypted) TLS alert and then resets, twice.
#[test]
fn reset_by_the_server_after_its_tls_alert_with_data_never_acknowledged() {
    let mut f = exchange();
    // 17 more segments the client never acknowledges (it went away).
    for k in 0..17 {
        f.data(S2C, 100_000 + k * 1_000, 1448);
    }
    // A TLS 1.2 AES-GCM alert record: 5 bytes of header + 26 (nonce, alert, tag) = 31.
    f.data(S2C, 3_208_000, 31).payload_bytes(&[0x15, 0x03, 0x03, 0x00, 0x1a]);
    let alert_frame = last_frame(&f);
    f.push(S2C, 3_210_000).flags(RST | ACK);
    let reset_frame = last_frame(&f);
    f.push(S2C, 3_211_000).flags(RST | ACK);
    let c = analyse(&f);
    let e = &*c.ending;
    assert_eq!(e.kind, "reset");
    assert_eq!(e.words, "reset by server");
    // The server's (direction 1) first reset; its latest payload before it was its own
    // (the alert).
    assert_eq!(e.reset, Some(Reset { by: 1, at: 3.21, frame: reset_frame, after: "own-data", data_at: Some(3.208) }));
    assert_eq!(e.resets, [0, 2]);
    assert_eq!(e.tls_alert, Some(AlertSeen { by: 1, at: 3.208, frame: alert_frame, level: None, description: None, name: None }));
    // Never acknowledged: 17 × 1448 = 24,616 bytes of data and the 31-byte alert.
    assert_eq!(e.unacknowledged_bytes, [Some(0), Some(24_647)]);
    assert!(e.abnormal);
    let text = "The connection was reset by 10.0.0.2:443 at 3.210 s, 2 ms after its TLS alert (encrypted), \
                with 24 KiB (24,647 bytes) it had sent never acknowledged.";
    assert_eq!(e.text, text);
    // The diagnosis says it.
    assert!(c.diagnosis.text.ends_with(text), "{}", c.diagnosis.text);
}

/// Issue 39 class SK: bytes the receiver SACKed reached it (RFC 2018 §3), so an ending
/// with data outstanding tells them apart from bytes never acknowledged at all. After
/// the exchange the server sends 6 more segments; the first is lost, the client
/// acknowledges the other 5 only by SACK (its cumulative ACK stays at the hole), and
/// the server resets.
#[test]
fn a_reset_with_sacked_data_splits_what_never_arrived_from_what_did() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.handshake(0, 10_000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    f.data(C2S, 20_000, 200);
    for k in 0..10 {
        f.data(S2C, 30_000 + k * 1_000, 1448);
        f.push(C2S, 30_500 + k * 1_000);
    }
    // The server's ISN is 5000: its 10 segments end at 5001 + 14,480 = 19,481.
    let hole = 19_481u32;
    for k in 0..6u32 {
        f.data(S2C, 50_000 + i64::from(k) * 1_000, 1448);
    }
    // Segments 2–6 arrive: each duplicate ACK SACKs them (the cumulative ACK stays at
    // the lost first one, RFC 2018 §4).
    for k in 1..6u32 {
        let sacked = (hole + 1448, hole + (k + 1) * 1448);
        f.push(C2S, 50_500 + i64::from(k) * 1_000).ack(hole).opts(Opts::new().sack(&[sacked]));
    }
    f.push(S2C, 80_000).flags(RST | ACK);
    let e = *analyse(&f).ending;
    assert_eq!(e.kind, "reset");
    // Outstanding: 6 × 1448 = 8,688 bytes; SACKed: the last 5, 7,240 bytes; never
    // acknowledged at all: the lost first segment, 1,448 bytes. The reset at 80 ms came
    // 25 ms after the server's last segment (55 ms): `reset.dataAt`.
    assert_eq!(e.unacknowledged_bytes, [Some(0), Some(8_688)]);
    assert_eq!(e.sacked_bytes, [Some(0), Some(7_240)]);
    assert!(e.abnormal);
    assert_eq!(
        e.text,
        "The connection was reset by 10.0.0.2:443 at 0.080 s, 25 ms after its own data, with 8.5 KiB (8,688 bytes) it had sent \
         not acknowledged: 1.4 KiB (1,448 bytes) never acknowledged at all, 7.1 KiB (7,240 bytes) selectively acknowledged \
         (SACK, RFC 2018: they reached 10.0.0.1:40000) but not cumulatively."
    );
    // Without SACK blocks the same ending says only "never acknowledged".
    assert!(!analyse(&exchange()).ending.text.contains("SACK"));
}

/// The public capture that showed class SK: pymptcpanalyzer's `server_2.pcap`
/// (review L's srv2), an iperf3 subflow (10.0.0.1:35031 → 11.0.0.2:5201) reset after
/// the server's FIN. tshark: the data ends at 1304129 (frame 2062), the server's last
/// cumulative ACK is 1130905 (frames 2070–2078), and its SACK blocks over the
/// connection cover 1133761–1156609, 1159465–1182313, 1185169–1226581 and
/// 1229437–1304129 above it: 161,800 bytes that reached the server, 4 holes of 2,856
/// bytes (11,424) that never did. Before: "with 169 KiB (173,224 bytes) it had sent
/// never acknowledged".
#[test]
fn sacked_bytes_at_a_reset_on_pymptcpanalyzer_server_2() {
    let Some(bytes) = crate::common::corpus("teto__pymptcpanalyzer__examples_server_2.pcap") else { return };
    let a = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 30).analysis().cloned().expect("analysed");
    let c = a.connections.iter().find(|c| c.endpoints[0] == "10.0.0.1:35031").expect("port 35031");
    let e = &c.ending;
    assert_eq!(e.kind, "reset");
    assert_eq!((e.unacknowledged_bytes[0], e.sacked_bytes[0]), (Some(173_224), Some(161_800)));
    assert!(e.text.contains("11 KiB (11,424 bytes) never acknowledged at all, 158 KiB (161,800 bytes) selectively acknowledged"), "{}", e.text);
    assert!(!e.text.contains("it had sent never acknowledged"), "{}", e.text);
}

#[test]
fn half_closed_by_the_client() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 200);
    // The client is done sending (shutdown(SHUT_WR)); the server ACKs the FIN with its
    // data and keeps sending; the capture ends before the server closes.
    f.push(C2S, 21_000).flags(FIN | ACK);
    for k in 0..5 {
        f.data(S2C, 30_000 + k * 1_000, 1448);
        f.push(C2S, 30_500 + k * 1_000);
    }
    let e = *analyse(&f).ending;
    assert_eq!((e.kind, e.words), ("fin-one-way", "FIN by client only"));
    assert_eq!((e.first_fin, e.fin_at), (Some(0), [Some(0.021), None]));
    assert_eq!(e.unacknowledged_bytes, [Some(0), Some(0)]);
    // RFC 9293 §3.6: a half-closed connection may go on carrying data the other way.
    assert!(!e.abnormal);
    assert_eq!(
        e.text,
        "Half-closed: 10.0.0.1:40000 sent a FIN at 0.021 s; 10.0.0.2:443 sent none before the capture ended (RFC 9293 §3.6: it may still send)."
    );
}

#[test]
fn still_open_at_the_end_of_the_capture() {
    let mut f = exchange();
    // One more segment whose ACK the capture did not see before it stopped.
    f.data(S2C, 50_000, 1448);
    let c = analyse(&f);
    let e = &*c.ending;
    assert_eq!((e.kind, e.words), ("open", "open"));
    assert_eq!((e.fin_at, e.reset), ([None, None], None));
    assert_eq!(e.unacknowledged_bytes, [Some(0), Some(1448)]);
    // In flight when the capture stopped, not a failure: not in the diagnosis.
    assert!(!e.abnormal);
    assert_eq!(
        e.text,
        "Still open when the capture ended: no FIN or reset in it. 1.4 KiB (1,448 bytes) of the data 10.0.0.2:443 sent were not yet acknowledged when the capture ended."
    );
    assert!(!c.diagnosis.text.contains("Still open"));
}

#[test]
fn a_reset_after_the_peers_fin_is_an_ordinary_close() {
    let mut f = exchange();
    // The server closes; the client ACKs its data and FIN and aborts instead of
    // sending its own FIN (an abortive close, SO_LINGER 0).
    f.push(S2C, 50_000).flags(FIN | ACK);
    f.push(C2S, 50_500);
    f.push(C2S, 60_000).flags(RST | ACK);
    let c = analyse(&f);
    let e = &*c.ending;
    assert_eq!((e.kind, e.words), ("reset", "reset by client"));
    assert_eq!(e.reset, Some(Reset { by: 0, at: 0.06, frame: last_frame(&f), after: "fin", data_at: None }));
    assert_eq!((e.first_fin, e.fin_at), (Some(1), [None, Some(0.05)]));
    assert_eq!(e.unacknowledged_bytes, [Some(0), Some(0)]);
    // Nothing was lost by it: not abnormal, not in the diagnosis.
    assert!(!e.abnormal);
    assert_eq!(e.text, "The connection was reset by 10.0.0.1:40000 at 0.060 s, after the FIN of 10.0.0.2:443.");
    assert!(!c.diagnosis.text.contains("reset"), "{}", c.diagnosis.text);
}

#[test]
fn a_syn_answered_by_a_reset_was_refused() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460));
    f.push(S2C, 10_000).flags(RST | ACK).seq(0);
    let e = *analyse(&f).ending;
    assert_eq!((e.kind, e.words), ("refused", "refused"));
    assert_eq!(e.reset.map(|r| (r.by, r.after)), Some((1, "syn")));
    assert!(e.abnormal);
    assert_eq!(e.text, "10.0.0.2:443 refused the connection: it answered the SYN with a reset at 0.010 s (RFC 9293 §3.10.7.1).");
}

#[test]
fn an_unanswered_syn() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.push(C2S, 0).flags(SYN).ack(0);
    f.push(C2S, 1_000_000).flags(SYN).ack(0).seq(1000); // the same SYN, re-sent by its timer
    let e = *analyse(&f).ending;
    assert_eq!((e.kind, e.words, e.abnormal), ("unanswered", "no answer", false));
    // The client's peer sent nothing: whether its bytes were acknowledged cannot be told.
    assert_eq!(e.unacknowledged_bytes, [None, Some(0)]);
}

/// Issue 39 review R class C-NO-ANSWER-ONE-DIRECTION: a capture of the client's direction
/// only. The client's SYN at 0, its ACK at 10 ms (ack = the server's ISN + 1: it got the
/// SYN/ACK, which the capture lost), then 3 requests of 100 B at 20, 30, 40 ms; nothing
/// of the server's is in the capture. A client sends an ACK-flagged segment only after
/// the peer's SYN reached it (RFC 9293 §3.10.7.3: in SYN-SENT it sends nothing but
/// SYNs), so the server answered: "No answer" would be false. The ending is open (no
/// FIN or reset), the first ACK at 0.010 s.
#[test]
fn a_client_that_acknowledged_its_unseen_peer_got_an_answer() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..3 {
        f.data(C2S, 20_000 + k * 10_000, 100);
    }
    let client = addr(CLIENT);
    let frames: Vec<Frame> = f.segments().iter().filter(|s| s.src == client).map(Segment::frame).collect();
    assert_eq!(frames.len(), 5, "SYN, ACK, 3 requests");
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let e = &*s.analysis().unwrap().connections[0].ending;
    assert_eq!((e.kind, e.words), ("open", "open"));
    assert_eq!(
        e.text,
        "Still open when the capture ended: no FIN or reset in it. None of 10.0.0.2:443's packets is in this capture, though 10.0.0.1:40000 acknowledged its SYN (its first ACK at 0.010 s): the capture holds one direction only."
    );
}

/// The same rule on public captures of one direction (review R): pmacct's YANG telemetry
/// stream (the client's pure ACK, frame 2 at 0.000913 s, has ack = 1 after a SYN/ACK the
/// capture lacks; 2.3 MiB follow) and its BMP trace (a SYN carrying 407 B at 10.6 s, then
/// an ACK field climbing to 924,705 from 10.7 s). tshark shows no packet of either peer.
#[test]
fn one_direction_captures_that_acknowledged_the_peer_are_not_unanswered() {
    let cases = [
        ("pmacct__pmacct__tests_801-YANG-telemetry-IPv6-CISCO-tcp-json_traffic-00.pcap", 0, "0.001 s"),
        ("pmacct__pmacct__tests_208-BMP-mem-leak-test_bmp-multi-sources-stats.pcap", 2, "10.700 s"),
    ];
    for (name, id, first_ack) in cases {
        let Some(c) = common::corpus_connection(name, id) else { return };
        assert_eq!(c.ending.kind, "open", "{name}");
        assert!(!c.ending.text.contains("No answer"), "{}", c.ending.text);
        assert!(c.ending.text.contains(&format!("(its first ACK at {first_ack}): the capture holds one direction only.")), "{}", c.ending.text);
    }
}

/// A fatal alert in the clear (the server rejects the ClientHello), then an orderly
/// close: the alert alone makes the ending worth a sentence.
#[test]
fn a_plaintext_fatal_alert_before_fins() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 300).payload_bytes(&[0x16, 0x03, 0x01]);
    f.data(S2C, 30_000, 7).payload_bytes(&[0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 40]);
    f.push(S2C, 30_100).flags(FIN | ACK);
    f.push(C2S, 31_000).flags(FIN | ACK);
    f.push(S2C, 31_500);
    let e = *analyse(&f).ending;
    assert_eq!(e.kind, "fin-both");
    assert_eq!(e.tls_alert.map(|a| (a.by, a.level, a.description, a.name)), Some((1, Some(2), Some(40), Some("handshake_failure"))));
    assert!(e.abnormal);
    assert_eq!(
        e.text,
        "Closed by a FIN each way: 10.0.0.2:443 closed first at 0.030 s, 10.0.0.1:40000 900 µs later (RFC 9293 §3.6). \
         10.0.0.2:443 sent TLS alert (fatal handshake_failure) at 0.030 s."
    );
}

/// Issue 39 review AD class C-TLS-CLOSE-NOTIFY: an encrypted alert (a 31-B TLS 1.2
/// AES-GCM record) that was the client's last data, its FIN 0.6 ms later, both FINs
/// ACKed, then a reset from the client (elh313 compnet `http4.pcapng` connection 18's
/// shape): RFC 8446 §6.1, close_notify then the close, so "probably close_notify". The
/// alert before a reset without a FIN (the test above) stays "TLS alert (encrypted)".
#[test]
fn an_encrypted_alert_followed_by_its_senders_fin_is_probably_close_notify() {
    let mut f = exchange();
    f.data(C2S, 50_000, 31).payload_bytes(&[0x15, 0x03, 0x03, 0x00, 0x1a]);
    f.push(C2S, 50_600).flags(FIN | ACK);
    f.push(S2C, 51_000).flags(FIN | ACK);
    f.push(C2S, 51_500);
    f.push(C2S, 350_000).flags(RST);
    let e = *analyse(&f).ending;
    assert_eq!(e.tls_alert.map(|a| (a.by, a.level, a.at)), Some((0, None, 0.05)));
    assert!(!e.abnormal);
    // 350 ms − 50 ms: the reset 300 ms after the alert.
    assert_eq!(
        e.text,
        "The connection was reset by 10.0.0.1:40000 at 0.350 s, after both FINs, 300 ms after its encrypted TLS alert \
         (probably close_notify: followed by its FIN)."
    );
}

/// An alert followed by more data from the same side was not its last word: not reported.
#[test]
fn an_alert_followed_by_data_is_not_the_ending() {
    let mut f = exchange();
    f.data(S2C, 45_000, 7).payload_bytes(&[0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x00]);
    f.data(S2C, 46_000, 100);
    f.push(C2S, 47_000);
    assert_eq!(analyse(&f).ending.tls_alert, None);
}

/// The ending comes from the analyzer's state, not the stored rows: a connection past
/// the stored-rows budget (limits.rs) still says how it ended.
#[test]
fn known_beyond_the_stored_rows_budget() {
    let mut f = exchange();
    f.push(C2S, 60_000).flags(FIN | ACK);
    f.push(S2C, 70_000).flags(RST | ACK);
    let c = analyse_with(&f, AnalysisOptions { max_stored_packets: 5, ..Default::default() });
    assert_eq!((c.ending.kind, c.ending.reset.map(|r| (r.by, r.at, r.after))), ("reset", Some((1, 0.07, "fin"))));
}

#[test]
fn the_json_field_names() {
    let mut f = exchange();
    f.push(S2C, 60_000).flags(RST | ACK);
    let v = serde_json::to_value(analyse(&f)).unwrap();
    let e = &v["ending"];
    assert_eq!(e["kind"], "reset");
    assert_eq!(e["reset"]["after"], "own-data");
    assert_eq!(e["finAt"], serde_json::json!([null, null]));
    assert_eq!(e["unacknowledgedBytes"], serde_json::json!([0, 0]));
    assert_eq!(e["sackedBytes"], serde_json::json!([0, 0]));
    for key in ["words", "text", "abnormal", "firstFin", "resets", "tlsAlert"] {
        assert!(e.get(key).is_some(), "ending.{key}");
    }
}

/// Issue 39 review class NA: a connection whose SYNs went unanswered was "Too short to
/// judge: 0 data segments (0 B) in 0 s". The client re-sent its SYN at 1 s and 3 s (its
/// timer backing off, RFC 6298 §5.5): three SYNs over 3 s, nothing back. Every packet
/// of the client is a SYN, so it never saw a SYN/ACK either (a client in SYN-SENT
/// sends nothing else, RFC 9293 §3.10.7.3).
#[test]
fn syns_that_went_unanswered_were_never_established() {
    let mut f = Flow::new(CLIENT, SERVER);
    for t in [0, 1_000_000, 3_000_000] {
        // The same ISN each time: a re-send, not a new connection.
        f.push(C2S, t).flags(SYN).ack(0).seq(1000).opts(Opts::new().mss(1460));
    }
    let c = analyse(&f);
    let e = &*c.ending;
    assert_eq!((e.kind, e.words, e.abnormal), ("unanswered", "no answer", false));
    let n = e.not_established.expect("never established");
    assert_eq!((n.syns, n.first_syn_at, n.last_syn_at), (3, Some(0.0), Some(3.0)));
    assert_eq!(e.text, "No answer: 10.0.0.1:40000 sent 3 SYNs over 3 s (0.000 s to 3.000 s) and the capture holds nothing from 10.0.0.2:443.");
    assert_eq!(c.diagnosis.limit, "not-established");
    assert_eq!(
        c.diagnosis.text,
        "The connection was never established: 10.0.0.1:40000 sent 3 SYNs over 3 s (0.000 s to 3.000 s) and none was \
         answered: no SYN/ACK and no reset from 10.0.0.2:443 in the capture. The re-sends show that 10.0.0.1:40000 got \
         no answer either (its retransmission timer fired 2 times, RFC 9293 §3.8.1, RFC 6298 §5): 10.0.0.2:443 was down \
         or unreachable, or something on the way dropped the SYNs or their answers. No data moved, so there was no \
         transfer to judge."
    );
    // One SYN: no re-send to show the client got nothing; the text says only what the
    // capture holds.
    let mut one = Flow::new(CLIENT, SERVER);
    one.push(C2S, 0).flags(SYN).ack(0);
    let c = analyse(&one);
    assert_eq!(c.diagnosis.limit, "not-established");
    assert!(c.diagnosis.text.starts_with("The connection was never established: 10.0.0.1:40000 sent a SYN at 0.000 s; the capture holds no answer from 10.0.0.2:443 (no SYN/ACK, no reset) and no re-send of it."), "{}", c.diagnosis.text);
}

/// A client that retries a refused port (Windows re-sends its SYN after a reset): three
/// SYNs 0.5 s apart, each answered 1 ms later by <SEQ=0><ACK=SEG.SEQ+1><CTL=RST,ACK>
/// (RFC 9293 §3.10.7.1). Before: `too-short`, "0 data segments (0 B) in 0 s".
#[test]
fn syns_each_answered_by_a_reset_were_refused_and_never_established() {
    let mut f = Flow::new(CLIENT, SERVER);
    for k in 0..3i64 {
        f.push(C2S, k * 500_000).flags(SYN).ack(0).seq(1000);
        f.push(S2C, k * 500_000 + 1_000).flags(RST | ACK).seq(0);
    }
    let c = analyse(&f);
    let e = &*c.ending;
    assert_eq!((e.kind, e.resets), ("refused", [0, 3]));
    assert_eq!(e.not_established.map(|n| (n.syns, n.first_syn_at, n.last_syn_at)), Some((3, Some(0.0), Some(1.0))));
    assert_eq!(
        e.text,
        "10.0.0.2:443 refused the connection: it answered each of the 3 SYNs 10.0.0.1:40000 sent over 1 s (0.000 s to \
         1.000 s) with a reset, the first at 0.001 s (RFC 9293 §3.10.7.1)."
    );
    assert_eq!(c.diagnosis.limit, "not-established");
    assert_eq!(
        c.diagnosis.text,
        format!("The connection was never established. {} No socket listened on port 443, or a firewall answered in its name. No data moved, so there was no transfer to judge.", e.text)
    );
}

/// A client that sent something besides SYNs (an ACK) had seen a SYN/ACK the capture
/// missed: not `not-established`.
#[test]
fn a_client_that_sent_more_than_syns_is_not_judged_never_established() {
    let mut f = Flow::new(CLIENT, SERVER);
    f.push(C2S, 0).flags(SYN).ack(0);
    f.push(C2S, 20_000).seq(1).ack(1);
    let c = analyse(&f);
    assert_eq!(c.ending.not_established, None);
    assert_ne!(c.diagnosis.limit, "not-established");
}

/// Public captures that showed class NA. chrissanders' `http_espn_fail.pcapng`: six
/// connections to 203.0.113.94:80 whose SYNs nobody answered (tshark: port 64862, frames
/// 25 … 527, 11 SYNs from 0.430071 s to 67.833132 s, nothing from port 80), and
/// `tcp_refuseconnection.pcapng` (SYN, then RST/ACK 1.3 ms later).
#[test]
fn corpus_unanswered_and_refused_syns() {
    let run = |name: &str| analyze_bytes(&crate::common::corpus(name)?, AnalysisOptions::default(), 1 << 30).analysis().cloned();
    if let Some(a) = run("chrissanders__packets__http_espn_fail.pcapng") {
        let c = a.connections.iter().find(|c| c.endpoints[0] == "172.16.16.154:64862").expect("port 64862");
        assert_eq!(c.diagnosis.limit, "not-established");
        let n = c.ending.not_established.expect("never established");
        assert_eq!((n.syns, n.first_syn_at, n.last_syn_at), (11, Some(0.430071), Some(67.833132)));
        assert!(c.diagnosis.text.contains("sent 11 SYNs over 67 s (0.430 s to 67.833 s) and none was answered"), "{}", c.diagnosis.text);
        // Before: every one of them "Too short to judge: 0 data segments (0 B) in 0 s".
        assert_eq!(a.connections.iter().filter(|c| c.diagnosis.limit == "not-established").count(), 9);
        assert!(a.connections.iter().all(|c| !c.diagnosis.text.contains("judge: 0 data segments")));
    }
    if let Some(a) = run("chrissanders__packets__tcp_refuseconnection.pcapng") {
        let c = &a.connections[0];
        assert_eq!((c.diagnosis.limit.as_str(), c.ending.kind), ("not-established", "refused"));
        assert!(c.diagnosis.text.contains("192.168.100.1:80 refused the connection: it answered the SYN with a reset at 0.001 s"), "{}", c.diagnosis.text);
    }
}
