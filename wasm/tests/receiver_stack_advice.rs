//! Review AB (issue 39), task E: the receive-window advice names the receiver's own
//! knob only where its SYN identifies its stack — option order and initial TTL, as p0f
//! reads them (track/syn_stack.rs, decode/syn_layout.rs) — and the mechanism every
//! stack has otherwise (diagnosis/buffer_knob.rs). docs/ANALYSIS.md "Whose stack sent
//! the SYN" and "Receive-window advice".

use crate::common;
use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::synth::*;

/// A download captured at the server (10.0.0.1), its receiver the client (10.0.0.2)
/// offering `syn` (and `raw_options`) at TTL `ttl`: the handshake (10 ms round trip),
/// then 40 round trips in which the server fills the client's 256 KiB window (2048 << 7,
/// 181 segments of 1448 B) and each second segment's ACK comes back 10 ms after it.
/// Only the client's SYN differs between the cases, so every number but the knob is
/// the same.
fn download(syn: Opts, raw_options: &[u8], ttl: u8) -> ConnectionSummary {
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:443");
    f.push(C2S, 0).flags(SYN).ack(0).opts(syn).extra_options(raw_options).ttl(ttl);
    f.push(S2C, 50).flags(SYN | ACK).opts(Opts::new().mss(1460).wscale(2));
    f.push(C2S, 10_050).window(2048);
    f.data(C2S, 10_100, 300).window(2048);
    let per_flight = 256 * 1024 / 1448;
    let mut t = 10_200;
    for _ in 0..40 {
        let mut ends = Vec::new();
        for k in 0..per_flight {
            let s = f.data(S2C, t + i64::from(k) * 20, 1448);
            ends.push(s.seq.wrapping_add(1448));
        }
        for k in (1..per_flight).step_by(2) {
            f.push(C2S, t + i64::from(k) * 20 + 10_000).ack(ends[k as usize]).window(2048);
        }
        t += 10_040;
    }
    common::analyze_flow(&f)
}

/// The advice's sentence, from "Raise" to its full stop.
fn advice(c: &ConnectionSummary) -> &str {
    let text = &c.diagnosis.text;
    let at = text.find("Raise the receiver's buffer").unwrap_or_else(|| panic!("no advice: {text}"));
    let end = text[at..].find(". ").map_or(text.len(), |e| at + e + 1);
    &text[at..end]
}

#[test]
fn the_knob_is_the_receivers_own_only_where_its_syn_says_whose_it_is() {
    // Linux's SYN (MSS, SACK-permitted, TS, NOP, wscale 7: the synthesizer writes
    // Linux's order) at TTL 64: Linux, its tcp_rmem. Recommended: 4 × the 256 KiB
    // window = 1 MiB (bdp.rs recommended_window): 8,388,608 bit / 10.05 ms = 835 Mbit/s,
    // at the path RTT of 10.05 ms (both parts of the handshake: the SYN/ACK 50 µs after
    // the SYN, the client's ACK 10 ms after it).
    let linux = download(Opts::new().mss(1460).sack_perm().ts(1, 0).wscale(7), &[], 64);
    assert_eq!(linux.diagnosis.limit, "receive-window", "{}", linux.diagnosis.text);
    assert_eq!(linux.handshake.syn.as_ref().unwrap().stack, Some("linux"));
    assert_eq!(linux.handshake.syn_ack.as_ref().unwrap().stack, None);
    assert_eq!(advice(&linux), "Raise the receiver's buffer (Linux by its SYN: net.ipv4.tcp_rmem) to at least 1 MiB (enough for 835 Mbit/s at this RTT).");
    // The same options from an initial TTL of 128 (TTL 120: 8 routers): Linux's order
    // from Windows' TTL is no stack's default, so no stack is named.
    let disagree = download(Opts::new().mss(1460).sack_perm().ts(1, 0).wscale(7), &[], 120);
    assert_eq!(disagree.handshake.syn.as_ref().unwrap().stack, None);
    let neutral = "Raise the receiver's buffer (its auto-tuning limit or socket buffer) to at least 1 MiB (enough for 835 Mbit/s at this RTT).";
    assert_eq!(advice(&disagree), neutral);
    // Windows 10's SYN (MSS, NOP, wscale 7, NOP, NOP, SACK-permitted) arriving with
    // TTL 115 (128 less 13 routers, as the NDT client of jianfenw/tcp-trace-compression
    // arrived): Windows, its auto-tuning — never Linux's tcp_rmem.
    let windows = download(Opts::new(), &[2, 4, 5, 0xb4, 1, 3, 3, 7, 1, 1, 4, 2], 115);
    assert_eq!(windows.handshake.syn.as_ref().unwrap().stack, Some("windows"));
    assert_eq!(advice(&windows), "Raise the receiver's buffer (Windows by its SYN: its auto-tuning level (netsh interface tcp) or socket buffer) to at least 1 MiB (enough for 835 Mbit/s at this RTT).");
    // macOS's SYN (… NOP, NOP, TS, SACK-permitted, EOL) at TTL 64.
    let apple = download(Opts::new(), &[2, 4, 5, 0xb4, 1, 3, 3, 7, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 4, 2, 0, 0], 64);
    assert_eq!(apple.handshake.syn.as_ref().unwrap().stack, Some("apple"));
    assert_eq!(advice(&apple), "Raise the receiver's buffer (macOS or iOS by its SYN: on macOS net.inet.tcp.autorcvbufmax) to at least 1 MiB (enough for 835 Mbit/s at this RTT).");
    // FreeBSD's order (MSS, NOP, wscale, SACK-permitted, TS) at TTL 64 is none of the
    // three: the mechanism, not a knob.
    let other = download(Opts::new(), &[2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0], 64);
    assert_eq!(other.handshake.syn.as_ref().unwrap().stack, None);
    assert_eq!(advice(&other), neutral);
}

/// An upload captured at the client (10.0.0.2), its receiver the server (10.0.0.1),
/// which sent only a SYN/ACK (`syn_ack` raw options, TTL `ttl`) answering the client's
/// SYN (`syn`): the same 40 flights of 181 segments into a 256 KiB window (2048 << 7),
/// every second one ACKed 10 ms later.
fn upload(syn: &[u8], syn_ack: &[u8], ttl: u8) -> ConnectionSummary {
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:5201");
    f.push(C2S, 0).flags(SYN).ack(0).opts(Opts::new()).extra_options(syn);
    f.push(S2C, 10_000).flags(SYN | ACK).opts(Opts::new()).extra_options(syn_ack).ttl(ttl);
    f.push(C2S, 10_050);
    let per_flight = 256 * 1024 / 1448;
    let mut t = 10_100;
    for _ in 0..40 {
        let mut ends = Vec::new();
        for k in 0..per_flight {
            let s = f.data(C2S, t + i64::from(k) * 20, 1448);
            ends.push(s.seq.wrapping_add(1448));
        }
        for k in (1..per_flight).step_by(2) {
            f.push(S2C, t + i64::from(k) * 20 + 10_000).ack(ends[k as usize]).window(2048);
        }
        t += 10_040;
    }
    common::analyze_flow(&f)
}

#[test]
fn on_an_upload_the_servers_syn_ack_names_its_stack_where_its_layout_is_unambiguous() {
    // Linux's SYN (MSS, SACK-permitted, TS, NOP, wscale 7) answered by Linux's SYN/ACK,
    // the same layout with wscale 7, at TTL 64 (rwnd-limited.pcap connection 1's shape).
    let linux_syn = [2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7];
    let linux = upload(&linux_syn, &[2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 9, 0, 0, 0, 1, 1, 3, 3, 7], 64);
    assert_eq!(linux.diagnosis.limit, "receive-window", "{}", linux.diagnosis.text);
    assert_eq!(linux.handshake.syn_ack.as_ref().unwrap().stack, Some("linux"));
    assert!(advice(&linux).starts_with("Raise the receiver's buffer (Linux by its SYN/ACK: net.ipv4.tcp_rmem) to at least"), "{}", advice(&linux));
    // Windows answering timestamps (MSS, NOP, wscale 7, SACK-permitted, TS: jovair1994
    // rdp.pcap frame 2's layout) at TTL 120: Windows.
    let windows = upload(&linux_syn, &[2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 9, 0, 0, 0, 1], 120);
    assert_eq!(windows.handshake.syn_ack.as_ref().unwrap().stack, Some("windows"));
    assert!(advice(&windows).starts_with("Raise the receiver's buffer (Windows by its SYN/ACK: its auto-tuning level"), "{}", advice(&windows));
    // The same bytes at TTL 64 are FreeBSD's: no knob named.
    let freebsd = upload(&linux_syn, &[2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 9, 0, 0, 0, 1], 64);
    assert_eq!(freebsd.handshake.syn_ack.as_ref().unwrap().stack, None);
    assert!(advice(&freebsd).starts_with("Raise the receiver's buffer (its auto-tuning limit or socket buffer)"), "{}", advice(&freebsd));
    // A Windows client's SYN (no timestamps) answered with MSS, NOP, NOP, SACK-permitted,
    // NOP, wscale: Linux without timestamps, or OpenBSD leaving out the timestamps it
    // was not offered (RFC 7323 §3.2) — ambiguous, no knob named.
    let windows_syn = [2, 4, 5, 0xb4, 1, 3, 3, 8, 1, 1, 4, 2];
    let either = upload(&windows_syn, &[2, 4, 5, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7], 64);
    assert_eq!(either.handshake.syn_ack.as_ref().unwrap().stack, None);
    assert!(advice(&either).starts_with("Raise the receiver's buffer (its auto-tuning limit or socket buffer)"), "{}", advice(&either));
}

#[test]
fn rwnd_limited_example_upload_reads_the_servers_syn_ack() {
    // public/examples/rwnd-limited.pcap connection 1: 10.77.0.1 uploads to the iperf3
    // server 10.77.0.2, whose SYN/ACK (frame 13: MSS, SACK-permitted, TS, NOP, wscale 7,
    // TTL 64) is Linux's; before session 39 the advice named no knob.
    let path = format!("{}/../public/examples/rwnd-limited.pcap", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    let c = s.analysis().expect("analysed").connections.iter().find(|c| c.id == 1).expect("connection 1").clone();
    assert_eq!(c.handshake.syn_ack.as_ref().unwrap().stack, Some("linux"));
    assert!(advice(&c).starts_with("Raise the receiver's buffer (Linux by its SYN/ACK: net.ipv4.tcp_rmem)"), "{}", advice(&c));
}

#[test]
fn the_ndt_download_whose_receiver_sent_no_captured_syn_is_told_no_linux_knob() {
    // jianfenw/tcp-trace-compression's NDT test (179.186.129.78, server → client): no
    // SYN in the capture, the client's ACKs at TTL 115 with no timestamps (Windows-like,
    // but only a SYN's options identify a stack). Before: "(e.g. net.ipv4.tcp_rmem)".
    let Some(c) = common::corpus_connection("jianfenw__tcp-trace-compression__20170101T00:10:21.175906000Z_179.186.129.78.s2c_ndttrace.pcap", 0) else { return };
    assert_eq!(c.diagnosis.limit, "receive-window", "{}", c.diagnosis.text);
    assert!(c.handshake.syn.is_none());
    assert_eq!(advice(&c), "Raise the receiver's buffer (its auto-tuning limit or socket buffer) to at least 1 MiB (enough for 27 Mbit/s at this RTT).");
}
