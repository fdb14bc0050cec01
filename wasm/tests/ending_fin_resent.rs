//! Issue 39, review W (qi #13): a FIN counts as a completed close only when its sender
//! took the peer's ACK of it (RFC 9293 §3.6: a FIN takes one sequence number and is
//! acknowledged like data). A TCP drops an ACK on a segment outside its receive window,
//! or one acknowledging bytes it never sent (§3.10.7.4), and its timer then re-sends
//! the FIN (§3.10.8): a FIN re-sent twice or more after the capture held the peer's ACK
//! of it was not taken, and the ending does not say "Closed by a FIN each way"
//! (ending/fin_resent.rs).

use crate::common;

use tcpscope_core::analysis::track::ending::FinResent;
use tcpscope_core::decode::tcp_flags::{ACK, FIN};
use tcpscope_core::synth::*;

/// A capture at the client (ISNs 1000/5000, 10 ms RTT): a 100-B request (frame 4), the
/// server's ACK, 500 B of answer and the client's ACK; the client's FIN (frame 8, 50 ms,
/// relative sequence 101), the server's ACK of it (frame 9, ack 102), the server's FIN
/// (frame 10, 61 ms) and the client's ACK; then the client re-sends its FIN (sequence 101
/// again) at each of `resends` (µs), each answered by the server's ACK 10 ms later.
fn flow(resends: &[i64]) -> Flow {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 100);
    f.push(S2C, 30_000);
    f.data(S2C, 31_000, 500);
    f.push(C2S, 41_000);
    f.push(C2S, 50_000).flags(ACK | FIN);
    f.push(S2C, 60_000);
    f.push(S2C, 61_000).flags(ACK | FIN);
    f.push(C2S, 71_000);
    for &t in resends {
        f.push(C2S, t).flags(ACK | FIN).seq(1101);
        f.push(S2C, t + 10_000);
    }
    f
}

#[test]
fn a_fin_re_sent_after_its_ack_is_no_completed_close() {
    // Frames 12, 14, 16 re-send the FIN at 0.25, 0.65 and 1.45 s, each after the
    // server's ACK 102 (frame 9, one past the FIN's 101) had passed the capture: 3.
    let c = common::analyze_flow(&flow(&[250_000, 650_000, 1_450_000]));
    let e = &c.ending;
    assert_eq!(e.kind, "fin-both");
    assert_eq!(e.fin_resent_after_ack, [Some(FinResent { count: 3, last_at: 1.45, last_frame: 16, taken_later: false }), None]);
    assert_eq!(e.fins_unacknowledged, [0, 0], "the ACK is in the capture");
    assert!(e.abnormal);
    assert!(e.text.contains("A FIN each way, but one close not completed: 10.0.0.1:40000 sent its FIN first at 0.050 s, 10.0.0.2:80 11 ms later (RFC 9293 §3.6)."), "{}", e.text);
    assert!(
        e.text.contains(
            "10.0.0.1:40000 re-sent its FIN 3 times after 10.0.0.2:80's ACK of it had passed the capture, the last at 1.450 s: 10.0.0.1:40000 did not take the ACK, or it was lost beyond this capture point each time (RFC 9293 §3.10.7.4)."
        ),
        "{}",
        e.text
    );
    assert!(!e.text.contains("Closed by a FIN each way"), "{}", e.text);
}

#[test]
fn one_re_send_may_have_crossed_the_ack() {
    // One re-send (frame 12 at 0.25 s) after the ACK: it may have left before the ACK
    // arrived, or that one ACK was lost; the close is told as before.
    let c = common::analyze_flow(&flow(&[250_000]));
    let e = &c.ending;
    assert_eq!(e.fin_resent_after_ack, [Some(FinResent { count: 1, last_at: 0.25, last_frame: 12, taken_later: false }), None]);
    assert!(e.text.starts_with("Closed by a FIN each way: 10.0.0.1:40000 closed first at 0.050 s"), "{}", e.text);
    assert!(!e.abnormal);
}

#[test]
fn a_fin_whose_ack_was_taken_later_completed() {
    // zeek ssh.pcap #19's shape: the client's FIN (frame 6, relative 46), the server's
    // FIN+ACK 47 (frame 7), then two client re-sends 1 ms apart still acknowledging only
    // 1 (frames 8, 10: it had not yet taken the server's segment), each ACKed again; then
    // the client's ACK 2 (frame 12) of the server's FIN: it took a segment of the
    // server's, and with it the ACK of its FIN. 2 re-sends, taken later: told as closed.
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:8118");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 10_000, 45);
    f.push(S2C, 10_020);
    f.push(C2S, 10_400).flags(ACK | FIN);
    f.push(S2C, 10_555).flags(ACK | FIN);
    for t in [11_490, 11_840] {
        f.push(C2S, t).flags(ACK | FIN).seq(1046).ack(5001);
        f.push(S2C, t + 12).seq(5002);
    }
    f.push(C2S, 11_860);
    let e = common::analyze_flow(&f).ending;
    assert_eq!(e.fin_resent_after_ack[0].map(|r| (r.count, r.last_frame, r.taken_later)), Some((2, 10, true)));
    assert!(e.text.starts_with("Closed by a FIN each way: 10.0.0.1:40000 closed first at 0.010 s"), "{}", e.text);
    assert!(!e.abnormal);
}

#[test]
fn zeek_ssh_19_the_client_took_the_ack_after_its_re_sends() {
    // tshark: 908 FIN (seq 77), 909 server FIN+ACK 78, 910 and 912 FIN again with ack 1
    // (IP IDs 0xfeb2, 0x7756: real re-sends), 914 ACK 2 (seq 78).
    let Some(c) = common::corpus_connection("zeek__zeek__testing_btest_Traces_ssh_ssh.pcap", 19) else { return };
    let e = &c.ending;
    assert_eq!(e.fin_resent_after_ack[0].map(|r| (r.count, r.last_frame, r.taken_later)), Some((2, 912, true)));
    assert!(e.text.starts_with("Closed by a FIN each way"), "{}", e.text);
}

/// The injection of tests/evidence_review_t_two_senders.rs, with the client's close: a
/// capture at the client (server TTL 127, 100 ms RTT), a 340-B GET, the injector's 1,400 B
/// and FIN (TTL 63, frames 6, 8); the client's FIN (frame 10, 0.1132 s, relative 341); the
/// server's ACK of it in its own numbering (seq relative 1, ack 342); the server's own
/// 485 B + FIN at 0.2 s (relative FIN 486), re-sent every second 5 times, each ACKed by
/// the client with 1,402 (the injected stream's end); the client re-sends its FIN 0.3 s
/// after the server's first two, each answered by the server's ACK (seq 487, ack 342).
fn injected() -> Flow {
    use crate::evidence_review_t_two_senders::{injected_with, REAL};
    injected_with(REAL, |f, at| match at {
        None => {
            f.push(C2S, 113_200).flags(ACK | FIN);
            f.push(S2C, 114_000).seq(5001).ack(1342);
        }
        Some((k, t)) if k < 2 => {
            f.push(C2S, t + 300_000).flags(ACK | FIN).seq(1341);
            f.push(S2C, t + 300_800).seq(5487).ack(1342);
        }
        Some(_) => {}
    })
}

#[test]
fn a_second_sender_explains_both_refused_fins() {
    let c = common::analyze_flow(&injected());
    let o = c.two_senders.as_deref().and_then(|t| t.other.as_ref()).expect("told apart by TTL");
    assert_eq!(o.refused_acks, Some([487, 1402]));
    let e = &c.ending;
    // The client's FIN (341) re-sent at 0.5 and 1.5 s after the server's ACK 342 (frame
    // 11): 2. The server's own FIN (486; the injector's at 1401 is no close of it) re-sent
    // at 1.2 … 5.2 s after the client's ACK 1,402: 5 (its first, at 0.2 s, is no re-send).
    assert_eq!(e.fin_resent_after_ack.map(|r| r.map(|r| (r.count, r.last_at))), [Some((2, 1.5)), Some((5, 5.2))]);
    assert!(e.text.starts_with("A FIN each way, but neither close completed: 10.0.0.5:48650 sent its FIN first at 0.113 s, 192.150.187.43:80 87 ms later"), "{}", e.text);
    // The server's segments (sequence ≤ 487) lie below the 1,402 the client acknowledged.
    assert!(e.text.contains("10.0.0.5:48650 re-sent its FIN 2 times after 192.150.187.43:80's ACK of it had passed the capture, the last at 1.500 s: 192.150.187.43:80's own segments carry sequence numbers up to 487 (relative), below the 1,402 10.0.0.5:48650 acknowledged of the second sender's bytes"), "{}", e.text);
    // The client's ACK 1,402 lies beyond anything the server sent (487).
    assert!(e.text.contains("192.150.187.43:80 re-sent its FIN 5 times after 10.0.0.5:48650's ACK of it had passed the capture, the last at 5.200 s: 10.0.0.5:48650's ACK 1,402 acknowledges the second sender's bytes, beyond the 487 192.150.187.43:80's own sender reached"), "{}", e.text);
    assert!(e.abnormal);
}

const QI: &str = "fox-it__quantuminsert__presentations_brocon2015_pcaps_bro.org-harlemshake-inject.pcap";

#[test]
fn qi_13_neither_fin_completed() {
    // tshark: the client's FIN (seq 341) in 33 and re-sent in 163, 372, 722, 970, 1392,
    // 1615, 2092 (39.149371 s): 7 re-sends, each after the server's ACK 342 (34, 164, …,
    // seq 1 then 487, below the client's 6,356). The server's own FIN (486) first in 55,
    // then 445 re-sends to 2229 (46.092563 s), each after the client's ACK 6,356.
    let Some(c) = common::corpus_connection(QI, 13) else { return };
    let e = &c.ending;
    assert_eq!(
        e.fin_resent_after_ack,
        [Some(FinResent { count: 7, last_at: 39.149371, last_frame: 2092, taken_later: false }), Some(FinResent { count: 445, last_at: 46.092563, last_frame: 2229, taken_later: false })]
    );
    assert!(e.text.starts_with("A FIN each way, but neither close completed: 10.0.0.5:48650 sent its FIN first at 0.449 s, 192.150.187.43:80 114 ms later"), "{}", e.text);
    assert!(e.text.contains("up to 487 (relative), below the 6,356 10.0.0.5:48650 acknowledged"), "{}", e.text);
    assert!(e.text.contains("10.0.0.5:48650's ACK 6,356 acknowledges the second sender's bytes, beyond the 487"), "{}", e.text);
    assert!(e.abnormal);
}
