//! Issue 39, review T classes C-INJECTED-DATA-UNSEEN and C-ACKS-CALLED-LOST (fox-it
//! quantuminsert `bro.org-harlemshake-inject.pcap`, connection 13): an injector on the
//! path (TTL 63, IP ID 0x0001) answered the client's GET first with 6,354 bytes and a
//! FIN; the real server (TTL 127) answered 485 bytes and a FIN at the same sequence
//! numbers, and re-sent them 445 times, each ACKed by the client with ack 6356 — the
//! injected stream's end, beyond anything the server sent, so the server dropped those
//! ACKs (RFC 9293 §3.10.7.4). The report merged both senders: the injector's FIN was
//! "the close", and "its ACKs were lost or held on the way back" though each re-send
//! was ACKed 25 µs later (two_senders.rs, diagnosis_episodes/acked_resends.rs).

use crate::common;

use tcpscope_core::decode::tcp_flags::{ACK, FIN, PSH};
use tcpscope_core::synth::*;

const INJECTED: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type";
pub(crate) const REAL: &[u8] = b"HTTP/1.1 301 Moved Permanently";

/// A capture at the client: handshake (server TTL 127, 100 ms RTT), a 340-B GET, the
/// server's ACK; the injector's 1,400 B (frame 6, TTL 63) and FIN (frame 8) 12 ms
/// after the GET; the server's own 485 B + FIN at 0.2 s (frame 10) at the same
/// sequence number, re-sent every second 5 times; the client ACKs each 25 µs later with
/// the injected stream's end. `real`: the bytes the server sends (REAL, or INJECTED for
/// the control: one sender whose TTL changed).
pub(crate) fn injected(real: &[u8]) -> Flow {
    injected_with(real, |_, _| {})
}

/// [`injected`] with more packets: `more(flow, None)` runs after the client's ACK of the
/// injector's FIN (0.113 s), `more(flow, Some((k, t)))` after the client's ACK of the
/// server's k-th sending at `t` µs (tests/ending_fin_resent.rs adds the client's close).
pub(crate) fn injected_with(real: &[u8], mut more: impl FnMut(&mut Flow, Option<(i64, i64)>)) -> Flow {
    let mut f = Flow::new("10.0.0.5:48650", "192.150.187.43:80");
    f.handshake(0, 100_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 100_200, 340);
    f.push(S2C, 101_000);
    f.data(S2C, 112_000, 1400).ttl(63).payload_bytes(INJECTED);
    f.push(C2S, 112_020);
    f.push(S2C, 113_000).flags(ACK | FIN).ttl(63);
    f.push(C2S, 113_020);
    more(&mut f, None);
    for k in 0..6 {
        let t = 200_000 + 1_000_000 * k;
        f.data(S2C, t, 485).seq(5001).flags(ACK | PSH | FIN).payload_bytes(real);
        f.push(C2S, t + 25);
        more(&mut f, Some((k, t)));
    }
    for s in f.segments_mut() {
        if s.src.port() == 80 && s.ttl == 64 {
            s.ttl = 127;
        }
    }
    f
}

#[test]
fn different_bytes_at_the_same_sequence_number_are_two_senders() {
    let c = common::analyze_flow(&injected(REAL));
    let t = c.two_senders.as_deref().expect("two senders");
    // Direction 1 (the server's); the server's answer and its 5 re-sends each start at
    // relative sequence 1 with "HTTP/1.1 301" where frame 6 had "HTTP/1.1 200": 6.
    assert_eq!((t.direction, t.segments, t.frames, t.ttls), (1, 6, [6, 10], [Some(63), Some(127)]));
    let o = t.other.as_ref().expect("told apart by TTL");
    // TTL 63 ≠ the SYN/ACK's 127: frames 6 and 8 (data, FIN). The server's own highest:
    // 485 B + FIN = 487; the client acknowledged 1,402 (1,400 injected + the FIN + 1).
    assert_eq!((o.ttl, o.packets, o.frames, o.fin_frame, o.refused_acks), (63, 2, [6, 8], Some(8), Some([487, 1402])));
    // The injector's FIN (0.113 s) is no close by the server: its own FIN at 0.2 s is.
    assert_eq!(c.ending.fin_at[1], Some(0.2), "{:?}", c.ending);
}

#[test]
fn one_sender_whose_ttl_changed_is_no_second_sender() {
    // The same bytes re-sent with another TTL (a route change): no finding, and the
    // first FIN stays the close.
    let c = common::analyze_flow(&injected(INJECTED));
    assert!(c.two_senders.is_none(), "{:?}", c.two_senders);
    assert_eq!(c.ending.fin_at[1], Some(0.113));
}

const QI: &str = "fox-it__quantuminsert__presentations_brocon2015_pcaps_bro.org-harlemshake-inject.pcap";

#[test]
fn the_injected_answer_is_named_and_its_fin_is_not_the_close() {
    // tshark: frames 21–36 TTL 63 (6 packets, FIN 36 at 0.4516); 53 (TTL 127, 0.5321)
    // "HTTP/1.1 301" at seq 1 against 21's "HTTP/1.1 200"; 446 segments of 485 B with
    // TTL 127; the server's FIN first in 55 at 0.5628; client ACKs 6356.
    let Some(c) = common::corpus_connection(QI, 13) else { return };
    let t = c.two_senders.as_deref().expect("two senders");
    assert_eq!((t.direction, t.segments, t.frames, t.ttls), (1, 446, [21, 53], [Some(63), Some(127)]));
    let o = t.other.as_ref().expect("TTL 63");
    assert_eq!((o.ttl, o.packets, o.frames, o.fin_frame, o.refused_acks), (63, 6, [21, 36], Some(36), Some([487, 6356])));
    assert_eq!(c.ending.fin_at[1], Some(0.562812));
    // Each re-send is ACKed at once (105 → 106 …): not "lost or held on the way back".
    let text = &c.diagnosis.text;
    assert!(!text.contains("lost or held on the way back"), "{text}");
    // (Frame 53 is the real server's first answer, no re-send since session 36: 445.)
    assert!(text.contains("each of the 445 re-sends was acknowledged at this capture point"), "{text}");
    assert!(text.contains("ACK 6,356, beyond the 487 this sender reached"), "{text}");
}
