//! Issue 39, review T classes C-CLOSE-NOTIFY-EXTENDS-TRANSFER and
//! C-IDLE-BEFORE-CLOSE-UNTOLD: a side's closing message — its last data, at most 64 B,
//! standing alone, with or within the stall threshold of its own FIN or reset (a TLS
//! close_notify, RFC 8446 §6.1) — ends the connection, not the transfer
//! (track/ending/closing_message.rs). The idle pause before it is the connection
//! staying open (diagnosis_shares/closing_end.rs; the ending's `afterData` runs to it),
//! not the peer's next turn.

use crate::common;

use tcpscope_core::decode::tcp_flags::{ACK, FIN, PSH};
use tcpscope_core::synth::*;

const STUFF: &str = "p4-team__ctf__2016-04-15-plaid-ctf_misc_the_stuff_the_stuff.pcapng";
const SURF: &str = "cisco__mercury__unit_tests_pcaps_surfshark.pcap";

/// stuff's shape on a 2 ms path (stall threshold 10 ms): a 200-B request at 3 ms
/// answered by 100 × 1,460 B (the last at 24.8 ms, frame 153); after 300 ms a 100-B
/// request answered by 5 × 1,460 B (the last at 325.6 ms); after 400 ms a 100-B request
/// answered by 1,200 B at 725.6 ms (frame 165), ACKed 50 µs later. Then 4.766 s of
/// nothing, the client's 31-B close_notify (frame 167) and its FIN 8 µs later, the
/// server's ACK, and 23 ms after the close_notify the server's own 31-B alert with its
/// FIN (frame 170), ACKed.
fn keep_alive_then_close() -> Flow {
    let mut f = Flow::new("192.168.120.138:44652", "216.115.96.176:443");
    f.handshake(0, 2_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    f.data(C2S, 3_000, 200);
    let t = common::response(&mut f, 5_000, 100);
    f.data(C2S, t + 298_000, 100);
    let t = common::response(&mut f, t + 300_000, 5);
    f.data(C2S, t + 398_000, 100);
    let t = t + 400_000;
    f.data(S2C, t, 1200);
    f.push(C2S, t + 50);
    f.data(C2S, t + 4_766_000, 31);
    f.push(C2S, t + 4_766_008).flags(ACK | FIN);
    f.push(S2C, t + 4_768_008);
    f.data(S2C, t + 4_789_000, 31).flags(ACK | PSH | FIN);
    f.push(C2S, t + 4_789_050);
    f
}

#[test]
fn a_close_notify_after_an_idle_keep_alive_ends_the_connection_not_the_transfer() {
    let c = common::analyze_flow(&keep_alive_then_close());
    // transfer_end.rs's own rule finds no end: after the first pause 8,531 B follow (over
    // two full segments), the 7,300-B burst before the second is under ten times the
    // 1,231 B after it, and the 1,200-B answer before the last is no burst of two full
    // segments. The closing message does: the server's last other data is frame 165 at
    // 0.7256 s, 146,000 + 7,300 + 1,200 = 154,500 B; its pause to its own alert, 0.7256 →
    // 5.5146 s = 4.789 s; after it only the two 31-B closing messages.
    let te = c.diagnosis.transfer_end.expect("a transfer end");
    assert_eq!((te.frame, te.bytes, te.tail_bytes), (165, 154_500.0, 31.0), "{te:?}");
    assert!((te.at - 0.7256).abs() < 1e-9 && (te.idle_seconds - 4.789).abs() < 1e-9, "{te:?}");
    let t = &c.diagnosis.text;
    // Before: the 4.789 s was "the wait for …'s next message" and the transfer "8 s".
    assert!(t.contains("The transfer ended at 0.726 s (frame 165, 151 KiB sent)"), "{t}");
    // The ending tells the open time from frame 165 to the client's FIN (5.491608 s):
    // 4.766 s, longer than the 0.7226 s from the first data (3 ms) to frame 165.
    let a = c.ending.after_data.expect("after data");
    assert_eq!((a.last_data_frame, a.closing_frame, a.closing_bytes), (165, Some(167), Some(31)));
    assert!((a.seconds - 4.766008).abs() < 1e-9, "{a:?}");
    assert!(c.ending.text.contains("stayed open 4.8 s more, longer than the 723 ms its data took both ways, until a closing message of 31 B (frame 167"), "{}", c.ending.text);
    // A 31-B message 20 ms before the client's FIN, over the 10 ms threshold: a message
    // of its own, no close; the shares run to the end as before.
    let mut f = keep_alive_then_close();
    let n = f.segments().len();
    f.segments_mut()[n - 5].at_ns(5_491_600_000 - 20_000_000);
    let c = common::analyze_flow(&f);
    assert!(c.diagnosis.transfer_end.is_none(), "{:?}", c.diagnosis.transfer_end);
}

#[test]
fn the_public_keep_alive_close_is_told_as_the_connections() {
    // stuff connection 52 (192.168.120.138:44652 ↔ 216.115.96.176:443). tshark: the last
    // answer ends at frame 3723 (81.799111 s, seq 916673 + 485); the client's 31-B
    // close_notify 4968 (86.565357, content type 21) and FIN 4969 (+8 µs); the server's
    // 31-B alert with FIN 5103 (86.588197). The server's gap 3723 → 5103 is 4.789 s; its
    // gaps over 10 ms total 7.785 s, so 3.0 s remain; the exchange 78.546 → 81.799 s.
    // Before: "the other 7.3 s was the wait for … next message … about 7.3 s instead of 8 s".
    let Some(c) = common::corpus_connection(STUFF, 52) else { return };
    let te = c.diagnosis.transfer_end.expect("a transfer end");
    assert_eq!((te.frame, te.tail_bytes), (3723, 31.0));
    let t = &c.diagnosis.text;
    // A VMware-style NAT answered the SYN (15 ms against ACKs in 309 µs): of the server's
    // 659 ms of own waits, one far round trip of each of 20 answer waits (272 ms) and the
    // NAT's relay gaps (364 ms) are the far side's, 23 ms the server's (review Z class 4,
    // answer_far_leg.rs); before: "about 2.6 s instead of 3.2 s".
    assert!(t.contains("(idle gaps totalling 3 s)") && t.contains("the transfer would have been only 23 ms shorter"), "{t}");
    assert!(t.contains("Of 216.115.96.176:443's own waits (659 ms), 272 ms, in 20 waits after"), "{t}");
    assert!(!t.contains("instead of 8 s"), "{t}");
    assert!(t.contains("After its last data (frame 3723 at 81.799 s) the connection stayed open 4.8 s more"), "{t}");
}

#[test]
fn the_public_300_s_before_the_close_is_told() {
    // surf connection 40 (10.0.2.16:44532 ↔ 172.64.146.182:443). tshark: the last data
    // 3296 (26.448531 s, 31 B from the server), then only the client's 24-B close_notify
    // 4400 at 326.453836 and its FIN 4402 0.5 ms later: 300.005794 s from the last data to
    // the FIN. Before: the close_notify counted as the last data and nothing said the 300 s.
    let Some(c) = common::corpus_connection(SURF, 40) else { return };
    let a = c.ending.after_data.expect("after data");
    assert_eq!((a.last_data_frame, a.closing_frame, a.closing_bytes), (3296, Some(4400), Some(24)));
    assert!((a.seconds - 300.005794).abs() < 1e-6, "{a:?}");
}
