//! Review AB (issue 39), classes 1 and 2: a capture whose clock is broken names no
//! limit (C-BROKEN-CLOCK-HEADLINE, capture/broken_clock.rs), and a payload-only
//! capture reads no missing ACK as evidence (C-PAYLOAD-ONLY-ACK-ASSUMED-MISSING,
//! verdict/payload_only.rs). docs/ANALYSIS.md "A broken capture clock" and "A
//! payload-only capture".

use crate::common;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::analysis::StallCause;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::synth::*;

/// A bulk transfer: handshake at 0 (1 ms RTT), then a 1448-byte segment and its ACK
/// every 100 µs from 2 ms on, 100 segments: 3 + 200 = 203 packets (the FIN-less end).
fn bulk() -> Flow {
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    for i in 0..100 {
        f.data(S2C, 2_000 + i * 100, 1448);
        f.push(C2S, 2_050 + i * 100);
    }
    f
}

fn analyze(bytes: &[u8]) -> Session {
    analyze_bytes(bytes, AnalysisOptions::default(), 4096)
}

/// `frames` as a microsecond pcap whose records `bad` have their timestamp written as
/// (seconds − 1, microseconds + 1,000,000): the same instant once carried (as libpcap
/// and tcpscope carry it), but a sub-second field no writer of a valid file produces
/// (draft-ietf-opsawg-pcap §5: below 10^6), the `impossible-timestamp` warning.
fn with_impossible_fields(frames: &[Frame], bad: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut bytes = write_pcap(frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let mut off = 24;
    let mut k = 0;
    while off + 16 <= bytes.len() {
        let word = |b: &[u8], o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let (sec, usec, caplen) = (word(&bytes, off), word(&bytes, off + 4), word(&bytes, off + 8) as usize);
        if bad(k) {
            bytes[off..off + 4].copy_from_slice(&(sec - 1).to_le_bytes());
            bytes[off + 4..off + 8].copy_from_slice(&(usec + 1_000_000).to_le_bytes());
        }
        off += 16 + caplen;
        k += 1;
    }
    bytes
}

#[test]
fn a_connection_with_a_tenth_of_its_packets_left_out_by_the_clock_names_no_limit() {
    // 20 of the 100 data segments (every fifth, frames 4, 9, …) stamped 50 s early: each
    // is more than 2 s before a packet already read, so it is left out
    // (`time-order-clamped` 20), and the receiver's ACKs of its bytes would read as 20
    // holes the capture dropped. 20 of the connection's 203 packets (9.9 %, above
    // 5 %) have no usable time: no limit, no capture-loss warning.
    let mut frames = bulk().frames();
    let data: Vec<usize> = (0..frames.len()).filter(|&i| i >= 3 && (i - 3) % 2 == 0).collect();
    for &i in data.iter().step_by(5) {
        frames[i].ts_ns -= 50_000_000_000;
    }
    let s = analyze(&write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let r = s.report();
    assert_eq!(r.warnings.iter().find(|w| w.kind == "time-order-clamped").map(|w| w.count), Some(20));
    assert!(r.warnings.iter().all(|w| w.kind != "capture-loss"), "{:?}", r.warnings.iter().map(|w| &w.message).collect::<Vec<_>>());
    let c = &r.connections[0];
    assert_eq!(c.packets, 183);
    assert_eq!(c.diagnosis.limit, "clock-broken");
    assert!(
        c.diagnosis.text.starts_with("This capture's clock is broken: 20 of this connection's 203 packets have no usable time (20 stamped more than 2 s before a packet already read, so left out)."),
        "{}",
        c.diagnosis.text
    );
    assert!(c.diagnosis.episodes.is_empty() && c.diagnosis.savings.is_empty());
}

#[test]
fn impossible_sub_second_fields_count_even_when_carried_to_a_plausible_time() {
    // Every tenth packet (21 of 203) written with a sub-second field of 10^6 µs or more:
    // carried, each lands at its own instant, and the analysis is that of the clean
    // file; yet 21 of 203 (10.3 %) stamps are no time a capture tool wrote, so what
    // they were meant to say is unknown.
    let bytes = with_impossible_fields(&bulk().frames(), |k| k % 10 == 0);
    let r = analyze(&bytes);
    let r = r.report();
    assert_eq!(r.warnings.iter().find(|w| w.kind == "impossible-timestamp").map(|w| w.count), Some(21));
    let c = &r.connections[0];
    assert_eq!(c.diagnosis.limit, "clock-broken");
    assert!(c.diagnosis.text.contains("21 of this connection's 203 packets have no usable time (21 analysed at a timestamp whose field cannot be a time)"), "{}", c.diagnosis.text);
}

#[test]
fn two_stray_stamps_leave_the_diagnosis_alone() {
    // 2 of 203 packets (1 %) left out: below the share; the limit is judged as before.
    let mut frames = bulk().frames();
    frames[23].ts_ns -= 50_000_000_000;
    frames[103].ts_ns -= 50_000_000_000;
    let s = analyze(&write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let r = s.report();
    assert_eq!(r.warnings.iter().find(|w| w.kind == "time-order-clamped").map(|w| w.count), Some(2));
    assert_ne!(r.connections[0].diagnosis.limit, "clock-broken");
}

#[test]
fn corpus_ipfs_connection_4_names_no_limit_from_the_packets_its_clock_kept() {
    // ACE857 Packet-Capture-IPFS-Ethereum capture.pcap: 637 of the file's 1,000 records
    // have a sub-second field ≥ 10^6 µs; 78 of connection 4's 129 frames (a 224 KB TLS
    // download from 172.217.160.132:443). Carried, they run up to seconds ahead, and the
    // 51 with valid fields and 41 others fall more than 2 s behind: 92 left out, 37
    // analysed, all 37 at impossible stamps. It read "The sending application limited
    // this flow … Other stalls: 288 ms retransmission timeout" and counted 8 holes
    // (34 KiB) of capture loss; in file order every ACK follows its data and neither
    // side's TSval steps back (review AB).
    let Some(cs) = common::corpus_connections("ACE857__Packet-Capture-IPFS-Ethereum__capture.pcap") else { return };
    let c = cs.iter().find(|c| c.id == 4).expect("connection 4");
    assert_eq!(c.diagnosis.limit, "clock-broken");
    assert!(
        c.diagnosis.text.starts_with("This capture's clock is broken: 129 of this connection's 129 packets have no usable time (92 stamped more than 2 s before a packet already read, so left out; 37 analysed at a timestamp whose field cannot be a time)."),
        "{}",
        c.diagnosis.text
    );
    assert!(!c.diagnosis.text.contains("retransmission timeout") && !c.diagnosis.text.contains("application"), "{}", c.diagnosis.text);
    let bytes = common::corpus("ACE857__Packet-Capture-IPFS-Ethereum__capture.pcap").expect("read above");
    let r = analyze(&bytes);
    let r = r.report();
    // Every connection of the file lost more than 5 % of its packets to the clock: the
    // capture-loss warning ("13 holes … 49 KiB") counted the packets left out.
    assert!(r.connections.iter().all(|c| c.diagnosis.limit == "clock-broken"));
    assert!(r.warnings.iter().all(|w| w.kind != "capture-loss"), "{:?}", r.warnings.iter().map(|w| &w.message).collect::<Vec<_>>());
}

/// A payload-only capture at the client (no handshake, FIN or pure ACK: a filter on
/// `tcp.len > 0`), 2 ms path: three request/answer turns (a 300-B request, a 40 × 1448
/// B answer 2 ms later, one segment every 100 µs), then the server silent 120 s, then
/// 46 B of new data and, 5 s later, a 31-B alert: 3 × 41 + 2 = 125 segments, every
/// ACK riding on data.
fn payload_only_keepalive() -> Flow {
    let mut f = Flow::new("192.168.1.12:53368", "59.103.81.96:443");
    let mut t = 0i64;
    for _ in 0..3 {
        f.data(C2S, t, 300);
        for k in 0..40 {
            f.data(S2C, t + 2_000 + 100 * k, 1448);
        }
        t += 500_000;
    }
    let last = t - 500_000 + 2_000 + 3_900;
    f.data(S2C, last + 120_000_000, 46);
    f.data(S2C, last + 125_000_000, 31);
    f
}

#[test]
fn a_payload_only_silence_past_any_timer_is_idle_and_no_ack_is_assumed_missing() {
    // The server's last answer ended at 1.0059 s; it sent nothing for 120 s and then new
    // data (its next byte: no re-send). Had any of its 57,920-B answer been
    // unacknowledged, its retransmission timer (≥ 1 s by RFC 6298, 200 ms on Linux)
    // would have re-sent the oldest byte first (§5.4): it was acknowledged, by pure
    // ACKs the filter removed. Both silences (120 s and 5 s) are the server's idle time,
    // and nothing is "not yet acknowledged" at the end: the client's ACKs are not in the
    // capture, and no later client segment acknowledged less.
    let c = common::analyze_flow(&payload_only_keepalive());
    let server = c.directions.iter().position(|d| d.from.ends_with(":443")).unwrap();
    let long: Vec<_> = c.directions[server].stalls.iter().filter(|s| s.duration > 1.0).collect();
    assert_eq!(long.len(), 2, "{:?}", c.directions[server].stalls);
    assert!(long.iter().all(|s| s.cause == StallCause::ApplicationIdle), "{long:?}");
    assert!(long[0].ended_by.starts_with("new data after 2 min with no re-send") || long[0].ended_by.starts_with("new data after 120 s with no re-send"), "{}", long[0].ended_by);
    assert_ne!(c.diagnosis.limit, "stalls", "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("unknown cause") && !c.diagnosis.text.contains("waiting on the peer or the path"), "{}", c.diagnosis.text);
    assert_eq!(c.ending.unacknowledged_bytes, [None, None]);
    assert!(!c.ending.text.contains("not yet acknowledged"), "{}", c.ending.text);
}

#[test]
fn a_payload_only_peer_that_acknowledges_less_later_keeps_the_unacknowledged_bytes() {
    // The same, but the client sends a 100-B message 10 s after the server's alert
    // (136.0059 s, past the stall threshold) whose ACK covers the answers (5,000 + 173,760, the server's
    // sequence starting at 5,000 in synth.rs) and not the 46 + 31 B sent after the
    // silence: the capture shows those 77 B not acknowledged 10 s after they were
    // sent (RFC 9293 §3.4), so they are told; the client's own 100 B, with nothing after
    // them, are not.
    let mut f = payload_only_keepalive();
    f.data(C2S, 136_005_900, 100).ack(5_000 + 3 * 40 * 1448);
    let c = common::analyze_flow(&f);
    let server = c.directions.iter().position(|d| d.from.ends_with(":443")).unwrap();
    assert_eq!(c.ending.unacknowledged_bytes[server], Some(77), "{}", c.ending.text);
    assert_eq!(c.ending.unacknowledged_bytes[1 - server], None, "{}", c.ending.text);
}

#[test]
fn corpus_usman_44_idles_120_s_and_leaves_nothing_unacknowledged() {
    // 13usmanali https_protocol.pcapng, payload-only (941 segments, all with data).
    // Connection 44: a request 790 (338.127 s), a 57 KB answer 791–803 in 9.2 ms, then
    // nothing until 926 (458.135 s, 46 B) and the encrypted alert 931 (463.136 s). The
    // server's IP ID is its own counter, 0xe2c5 (803) → 0xe2c6 (926): nothing sent in
    // 120 s, no re-send. It read "stalled 3 times for 125 s … unknown cause" and "56
    // KiB … not yet acknowledged".
    let Some(c) = common::corpus_connection("13usmanali__Computer-Networks-assignment-1__https protocol.pcapng", 44) else { return };
    let d = c.data_direction as usize;
    assert!(c.directions[d].stalls.iter().all(|s| s.cause == StallCause::ApplicationIdle), "{:?}", c.directions[d].stalls);
    assert_eq!(c.diagnosis.limit, "application");
    assert!(c.diagnosis.text.contains("the connection then idled 120 s"), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("unknown cause"), "{}", c.diagnosis.text);
    assert!(!c.ending.text.contains("not yet acknowledged"), "{}", c.ending.text);
    // Connection 19: its 188 B (339–342) could only be acknowledged by pure ACKs.
    let c = common::corpus_connection("13usmanali__Computer-Networks-assignment-1__https protocol.pcapng", 19).expect("read above");
    assert!(!c.ending.text.contains("not yet acknowledged"), "{}", c.ending.text);
    assert_eq!(c.diagnosis.limit, "application");
}
