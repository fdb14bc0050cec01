//! Issue 39, review P classes C-SEGMENT-UNIT and C-IDLE-TAIL-UNSAID.
//!
//! C-SEGMENT-UNIT: "full segments" were counted in the peer's MSS option less 40 bytes,
//! whatever the sender could send. RFC 9293 §3.7.1: the effective send MSS is the smaller
//! of the peer's option and the sender's own interface limit, which its own MSS option
//! announces; the sender's segments show the option bytes below it
//! (analysis/stalls/full_segment.rs, docs/ANALYSIS.md "Full segment"). p4-team ctf
//! `greatescape1.pcap` connection 3: an AWS client announcing a jumbo 8,961, a Google
//! server announcing 1,430 and sending 1,418-byte segments: "16 segments of 8.7 KiB" for a
//! burst of 98 segments of 1,418 B.
//!
//! C-IDLE-TAIL-UNSAID: the time after the data was dropped unsaid (zeek
//! `smb3_multichannel.pcap`: 1.8 s of data, then 161 s of keep-alives and a reset) or not
//! split off because small exchanges came before the tail's long idle (nDPI
//! `443-firefox.pcap`: pauses of 0.44, 1.23 and 4.05 s after a page had loaded). Rules:
//! the tail after a transfer's end is idling when its longest idle pause takes half of it (diagnosis_shares/
//! transfer_end.rs `connection_idled`); a connection that outlived its last data by more
//! than the data took says so, keep-alives (RFC 1122 §4.2.3.6) and all, and a reset says
//! its distance from the data (track/ending/after_data.rs, `ending.afterData`).

use crate::common;

use tcpscope_core::decode::tcp_flags::{ACK, RST};
use tcpscope_core::synth::*;

const GESC: &str = "p4-team__ctf__2017-01-21-insomnihack_the_great_escape1_greatescape.pcap";
const SMBMC: &str = "zeek__zeek__testing_btest_Traces_smb_smb3_multichannel.pcap";
const FFX: &str = "ntop__nDPI__tests_cfgs_default_pcap_443-firefox.pcap";

/// gesc's shape: five 100-byte requests a second apart, each answered by 115 B 2 ms
/// later; at 5 s a request answered by 138,964 B (98 × 1,418) in 95 frames 100 µs apart:
/// 1,418-byte segments with three GRO pairs of 2,836 B, the client ACKing every second
/// frame 50 µs after it; then five more small exchanges.
fn jumbo_client() -> Flow {
    let mut f = Flow::new("172.31.36.141:53186", "216.58.211.163:443");
    f.handshake(0, 2_000, Opts::new().mss(8961).sack_perm(), Opts::new().mss(1430).sack_perm());
    let small = |f: &mut Flow, t: i64| {
        f.data(C2S, t, 100);
        f.data(S2C, t + 2_000, 115);
        f.push(C2S, t + 2_050);
    };
    for k in 0..5 {
        small(&mut f, 1_000_000 * k + 10_000);
    }
    f.data(C2S, 5_000_000, 200);
    for k in 0..95 {
        let len = if [20, 40, 60].contains(&k) { 2836 } else { 1418 };
        f.data(S2C, 5_002_000 + 100 * k, len);
        if k % 2 == 1 || k == 94 {
            f.push(C2S, 5_002_000 + 100 * k + 50);
        }
    }
    for k in 0..5 {
        small(&mut f, 1_000_000 * k + 6_000_000);
    }
    f
}

#[test]
fn full_segments_are_the_senders_own() {
    // The server's bound: the smaller option, 1,430 (its own); its segments cut within 40
    // bytes below it are 1,418 B (the frame before each next one, no ACK between: 46 of
    // them): the full segment. 138,964 B / 1,418 = 98 segments. Before: 8,961 − 40 =
    // 8,921 B, "16 segments of 8.7 KiB" (138,964 / 8,921 = 15.6).
    let c = common::analyze_flow(&jumbo_client());
    let t = &c.diagnosis.text;
    assert!(t.contains("98 segments of 1.4 KiB"), "{t}");
    assert!(!t.contains("8.7 KiB"), "{t}");
}

#[test]
fn full_segments_on_the_public_capture() {
    // Connection 3 (172.31.36.141:53186 ↔ 216.58.211.163:443). tshark: SYN frame 18 MSS
    // 8961, SYN/ACK frame 19 MSS 1430; the burst frames 189–345, 138,721 B, every segment
    // 1,418 B or a 2,836-B GRO pair (frames 201, 211, 217): 138,721 / 1,418 = 97.8.
    let Some(c) = common::corpus_connection(GESC, 3) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("(the largest 135 KiB, 98 segments of 1.4 KiB, from 4.738 s to 4.747 s)"), "{t}");
}


/// A 200-byte request at 3 ms and a response of 100 segments from 5 ms (the last at
/// 24.8 ms, frame 153); then for each of `later` (µs) the client's 67-byte request that
/// long after the server's last data, less 2 ms, and the server's 400-byte answer.
fn download(later: &[i64]) -> Flow {
    let mut f = Flow::new("10.0.0.1:50706", "10.0.0.2:443");
    f.handshake(0, 2_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    f.segments_mut()[2].window(2048);
    f.data(C2S, 3_000, 200).window(2048);
    let mut t = common::response(&mut f, 5_000, 100);
    for &idle in later {
        f.data(C2S, t + idle - 2_000, 67).window(2048);
        f.data(S2C, t + idle, 400);
        f.push(C2S, t + idle + 50).window(2048);
        t += idle;
    }
    f
}

#[test]
fn a_tail_idle_in_several_pauses_is_split_off() {
    // ffx's shape: after the 146,000-byte response, three small exchanges 435 ms, 1,227 ms
    // and 4,045 ms apart: 1,200 B in 5.707 s (0.8 % of 147,200 B, under two full
    // segments, a 122nd of the burst). The first pause is 435 ms, under half the 5.707 s
    // tail: before, no cut, and the 5.7 s stayed in the shares as "waiting for the peer's
    // next message". The last, 4,045 ms, is over half of it: the connection idled, and
    // the transfer ended at 24.8 ms.
    let c = common::analyze_flow(&download(&[435_000, 1_227_000, 4_045_000]));
    let te = c.diagnosis.transfer_end.expect("a transfer end");
    assert_eq!((te.frame, te.bytes, te.tail_bytes), (153, 146_000.0, 1_200.0));
    assert!((te.at - 0.0248).abs() < 1e-9 && (te.idle_seconds - 0.435).abs() < 1e-9, "{te:?}");
    assert!((te.tail_seconds - 5.707).abs() < 1e-9, "{te:?}");
    // One short pause inside exchanges that went on is no idling (review O, s7): a 12 ms
    // pause, then 40 answers 4 ms apart (4 ms is no stall at this 2 ms path's threshold):
    // idle 12 ms of a 172 ms tail.
    let mut f = download(&[12_000]);
    let mut t = 24_800 + 12_000;
    for _ in 0..40 {
        t += 4_000;
        f.data(C2S, t - 1_000, 67).window(2048);
        f.data(S2C, t, 20);
    }
    let c = common::analyze_flow(&f);
    assert!(c.diagnosis.transfer_end.is_none(), "{:?}", c.diagnosis.transfer_end);
    // Nor a conversation of like pauses: seven exchanges 2 s apart after the response
    // (a heartbeat; 2,800 B, 1.9 % of the bytes, under two full segments), the longest
    // pause 2 s of the 14 s tail.
    let c = common::analyze_flow(&download(&[2_000_000; 7]));
    assert!(c.diagnosis.transfer_end.is_none(), "{:?}", c.diagnosis.transfer_end);
}

#[test]
fn the_tail_of_the_public_browser_capture_is_split_off() {
    // Connection 0, 178.62.197.130:443 → 192.168.1.13:53096. tshark: the 389 KB answer ends
    // at frame 624 (2.586 s); then 528 B in three exchanges (2.97, 4.35, 8.40 s) until the
    // client's FIN 659 (8.4006 s) and RST 661 (8.436 s). Before: transferEnd null, "79 %
    // of it waiting for the peer's next message (idle gaps totalling 7.8 s)".
    let Some(c) = common::corpus_connection(FFX, 0) else { return };
    let te = c.diagnosis.transfer_end.expect("a transfer end");
    assert_eq!((te.frame, te.tail_bytes), (624, 528.0));
    assert!((te.at - 2.586368).abs() < 1e-6, "{te:?}");
    assert!(!c.diagnosis.text.contains("7.8 s"), "{}", c.diagnosis.text);
}

#[test]
fn the_time_a_connection_outlived_its_data_is_said() {
    // The download, then the client's keep-alives (sequence number one below its next,
    // no payload) every 30 s from 30 s, each ACKed, and the server's reset at 161 s. The
    // data ran from the request at 3 ms to the last segment at 24.8 ms (21.8 ms); the
    // connection then stayed open 160.9752 s. The client's next sequence number: ISN
    // 1000 + SYN + 200 B = 1201.
    let mut f = download(&[]);
    for k in 1..=5 {
        f.push(C2S, 30_000_000 * k).seq(1200).window(2048);
        f.push(S2C, 30_000_000 * k + 2_000);
    }
    f.push(S2C, 161_000_000).flags(RST | ACK);
    let c = common::analyze_flow(&f);
    let a = c.ending.after_data.expect("after data");
    assert_eq!((a.last_data_frame, a.keep_alives), (153, 5));
    assert!((a.last_data_at - 0.0248).abs() < 1e-9 && (a.data_seconds - 0.0218).abs() < 1e-9, "{a:?}");
    assert!((a.seconds - 160.9752).abs() < 1e-6 && a.keep_alive_every.is_some_and(|e| (e - 30.0).abs() < 1e-9), "{a:?}");
    let said = "After its last data (frame 153 at 0.025 s) the connection stayed open 161 s more, longer than the 22 ms its data \
                took both ways, kept alive by 5 TCP keep-alives about every 30 s (RFC 1122 §4.2.3.6), until the reset. The connection was \
                reset by 10.0.0.2:443 at 161.000 s, 161 s after its own data.";
    assert!(c.ending.text.starts_with(said), "{}", c.ending.text);
    assert!(c.diagnosis.text.contains(said), "{}", c.diagnosis.text);
    // Without the reset: open until the capture's last packet, the fifth keep-alive's
    // ACK at 150.002 s, 149.977 s after the data.
    let mut f = download(&[]);
    for k in 1..=5 {
        f.push(C2S, 30_000_000 * k).seq(1200).window(2048);
        f.push(S2C, 30_000_000 * k + 2_000);
    }
    let c = common::analyze_flow(&f);
    assert_eq!(
        c.ending.text,
        "After its last data (frame 153 at 0.025 s) the connection stayed open 150 s more, longer than the 22 ms its data took both ways, \
         kept alive by 5 TCP keep-alives about every 30 s (RFC 1122 §4.2.3.6), until the capture ended, with no FIN or reset in it."
    );
    // Closed 10 ms after the data instead: no longer than the 21.8 ms the data took.
    let mut f = download(&[]);
    f.push(S2C, 34_800).flags(RST | ACK);
    let c = common::analyze_flow(&f);
    assert!(c.ending.after_data.is_none(), "{:?}", c.ending.after_data);
    assert!(c.ending.text.contains("reset by 10.0.0.2:443 at 0.035 s, 10 ms after its own data."), "{}", c.ending.text);
}

#[test]
fn the_smb_connections_idle_hours_are_said() {
    // Connection 0 (172.17.0.184 ↔ 172.17.0.189:445). tshark: the last data is the server's
    // Create Response, frame 1350 at 1.823 s; keep-alives from the client at 31.8, 61.8,
    // 91.8, 121.9 and 151.9 s and one from the server at 121.9 s, each answered; the
    // server's RST frame 1433 at 163.096 s. Before: "The connection was reset by
    // 172.17.0.189:445 at 163.096 s, after its own data." and nothing of the 161 s.
    let Some(c) = common::corpus_connection(SMBMC, 0) else { return };
    let a = c.ending.after_data.expect("after data");
    assert_eq!((a.last_data_frame, a.keep_alives), (1350, 6));
    assert!(
        c.diagnosis.text.contains(
            "After its last data (frame 1350 at 1.823 s) the connection stayed open 161 s more, longer than the 1.8 s its data took both ways, \
             kept alive by 6 TCP keep-alives about every 30 s (RFC 1122 §4.2.3.6), until the reset. The connection was reset by \
             172.17.0.189:445 at 163.096 s, 161 s after its own data."
        ),
        "{}",
        c.diagnosis.text
    );
}
