//! Review AD class C-TS-ECHO-IDLE-AS-RTT: the peer's idle time after our ACK of everything
//! read as a round trip. A TSecr echoes TS.Recent, the TSval of the last segment the peer
//! accepted (RFC 7323 §4.3), however long its application then waits; RFC 7323 §4.1's RTTM
//! rule times an echo only on a segment that advances SND.UNA (Linux: `tcp_clean_rtx_queue`).
//! The receiver-side method (round_trips.rs `CLOCKED`: our ACK → the peer's next data)
//! times the path only where that data answered our ACK promptly: within the stall
//! threshold of the round trip known so far (rtt.rs `answer_bound_ns`) once our ACKs had
//! covered everything the peer had sent. Synthesized with a known answer, and checked on
//! the public capture that showed it (jovair1994 `rdp.pcap`).

use crate::common;

use common::analyze_flow;
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::synth::*;

/// The client's TSval: a 1 ms clock (Linux); the server's: a 10 ms one (Windows).
fn client_ts(t_us: i64) -> u32 {
    74_497_007 + (t_us / 1_000) as u32
}
fn server_ts(t_us: i64) -> u32 {
    2_005_281 + (t_us / 10_000) as u32
}

/// An RDP session captured at the client on a 0.35 ms LAN, as jovair1994 `rdp.pcap`: the
/// handshake (SYN → SYN/ACK 348 µs, the client's ACK 36 µs later), then the user's input,
/// 85 bytes every 20 ms (10–990 ms and 1.70–2.68 s), each acknowledged by the server 130 µs
/// later: an echo that advances the client's SND.UNA, the path's round trip (RFC 7323 §4.1).
/// Between them 8 screen updates of the server (at 0.505 s, every 100 ms from 1.1 to 1.6 s,
/// and at 2.995 s), each 1448 + 1448 + 1381 bytes 4 µs apart. The client ACKs the first
/// two 60 µs after the first (the third still in flight: the server is busy after that
/// ACK) and all three 15 µs later with the same TSval (one 1 ms tick): after that the
/// server has nothing outstanding. The next update, 100 ms later, is its application's
/// (the screen changed), and echoes that TSval (TS.Recent, RFC 7323 §4.3).
fn rdp_updates() -> Flow {
    let mut f = Flow::new("192.168.43.185:59921", "192.168.43.130:3389");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new().mss(1460).wscale(5).sack_perm().ts(client_ts(0), 0));
    f.push(S2C, 348).flags(SYN | ACK).opts(Opts::new().mss(1460).wscale(8).sack_perm().ts(server_ts(348), client_ts(0)));
    f.push(C2S, 384).opts(Opts::new().ts(client_ts(384), server_ts(348)));
    // (the server's latest TSval, its TS.Recent of the client's, its next sequence number)
    let mut st = (server_ts(348), client_ts(384), 5_001u32);
    let input = |f: &mut Flow, t: i64, st: &mut (u32, u32, u32)| {
        let v = client_ts(t);
        f.data(C2S, t, 85).opts(Opts::new().ts(v, st.0));
        st.0 = server_ts(t + 130);
        f.push(S2C, t + 130).opts(Opts::new().ts(st.0, v));
        st.1 = v;
    };
    let update = |f: &mut Flow, t: i64, st: &mut (u32, u32, u32)| {
        st.0 = server_ts(t);
        for (i, len) in [1448u32, 1448, 1381].into_iter().enumerate() {
            f.data(S2C, t + 4 * i as i64, len).opts(Opts::new().ts(st.0, st.1));
        }
        let x = client_ts(t + 60);
        f.push(C2S, t + 60).ack(st.2 + 2 * 1448).opts(Opts::new().ts(x, st.0));
        st.2 += 1448 + 1448 + 1381;
        f.push(C2S, t + 75).opts(Opts::new().ts(x, st.0));
        st.1 = x;
    };
    for k in 0..50i64 {
        input(&mut f, 10_000 + 20_000 * k, &mut st);
        if k == 24 {
            update(&mut f, 505_000, &mut st);
        }
    }
    for k in 0..6i64 {
        update(&mut f, 1_100_000 + 100_000 * k, &mut st);
    }
    for k in 0..50i64 {
        input(&mut f, 1_700_000 + 20_000 * k, &mut st);
    }
    update(&mut f, 2_995_000, &mut st);
    for seg in f.segments_mut() {
        seg.ttl = if seg.src.port() == 59921 { 64 } else { 128 };
    }
    f
}

#[test]
fn an_update_after_the_ack_of_everything_is_the_servers_not_the_paths() {
    // The client's segments are timed 202 times: the SYN by the SYN/ACK's ACK and echo
    // (348 µs + the client's own 36 µs turnaround, `offsetMs`: 0.384 ms) and the 100
    // inputs by the server's ACKs and echoes (130 + 36 µs = 0.166 ms). Left out: the
    // echoes of the ACKs of the updates at 1.1–1.5 s by the next update (5), each
    // 99.94 ms after the first ACK with that TSval — past the stall threshold of the
    // 0.166 ms round trip known by then (max(10 ms, 4 × 0.166 ms) = 10 ms, rtt.rs
    // `answer_bound_ns`), after the second ACK had covered everything. (The updates at
    // 0.505 s, 1.1 s and 2.995 s echo an input's TSval, already timed by the server's
    // ACK.) Main's engine (f2f8954) trusted them (within 1 s): 207 samples, max 99.976 ms,
    // and "The RTT rose from 166 µs to 100 ms during 1.100 s–1.600 s (20 % of the transfer)".
    let c = analyze_flow(&rdp_updates());
    let client = &c.directions[0].rtt;
    assert_eq!((client.samples, client.excluded_samples), (202, 5));
    assert_eq!((client.median_ms, client.max_ms), (Some(0.166), Some(0.384)));
    assert!(c.path_rtt_ms.is_some_and(|ms| (ms - 0.166).abs() < 1e-9), "{:?} {}", c.path_rtt_ms, c.path_rtt_method);
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "delay-spike"), "{:?}", c.diagnosis.episodes);
    assert!(!c.diagnosis.text.contains("RTT rose"), "{}", c.diagnosis.text);
}

#[test]
fn jovair1994_rdp_says_no_rtt_rise() {
    // Frames 73–75 (0.228 s: the client's ACKs of 9547, then of all 10928, TSval
    // 74497227) → frame 76 (0.342782 s, the server's 37-byte update echoing it): 114.7 ms;
    // the same ~30 and ~100 ms at 0.568, 0.668, 1.63–2.29 s. No client data was
    // outstanding in any (the server's ACK field stays 2635) and the handshake is 0.35 ms:
    // the RDP server's frame cadence, not the path. Before: "The RTT rose from 127 µs to
    // 115 ms during 0.201 s–0.668 s" and "… to 100 ms during 1.594 s–2.291 s".
    let Some(c) = common::corpus_connection("jovair1994__Intro_Traffic_Analysis__rdp.pcap", 0) else { return };
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "delay-spike"), "{:?}", c.diagnosis.episodes);
    assert!(!c.diagnosis.text.contains("RTT rose"), "{}", c.diagnosis.text);
}
