//! The same datagram captured at two points a one-way delay apart (a router's two
//! interfaces, ingress and egress SPAN across a WAN hop, two taps merged with
//! mergecap) is one packet; a real resend 30 ms later stays a retransmission
//! (analysis/capture/duplicates.rs, the changing-Identification window).
use tcpscope_core::analysis::{AnalysisOptions, CaptureFacts, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::{ACK, FIN};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// How the sender's stack fills the IPv4 Identification.
#[derive(Clone, Copy)]
enum Ids {
    /// A counter per direction from these starts, +1 per datagram (Linux's socket counter).
    Counter(u16, u16),
    /// The same value in every datagram (RFC 6864 §4 allows it in atomic datagrams).
    Constant(u16),
    /// A counter, but the resend keeps the original's ID (nDPI alexa-app.pcapng).
    KeptInResend(u16, u16),
}

/// Handshake, 8 segments of 1448 bytes 1 ms apart at 200 ms, the 3rd lost after the
/// capture points and resent by fast retransmit after its ACK and 3 duplicates (no SACK, no
/// timestamps: the resend is the original byte for byte but for the Identification),
/// the ACK of everything, FIN both ways. `rtt_ms`: the path's round trip.
fn transfer(rtt_ms: i64, resend_after_ms: i64, ids: Ids) -> Vec<Segment> {
    let rtt = rtt_ms * 1000;
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, rtt, Opts::new().mss(1460), Opts::new().mss(1460));
    for k in 0..8 {
        f.data(C2S, 200_000 + k * 1000, 1448);
    }
    let lost = 1001 + 2 * 1448;
    for k in 2..6 {
        f.push(S2C, 200_000 + rtt + k * 1000).ack(lost);
    }
    f.data(C2S, 200_000 + 2000 + resend_after_ms * 1000, 1448).seq(lost);
    f.push(S2C, 200_000 + 2000 + resend_after_ms * 1000 + rtt);
    f.push(C2S, 900_000).flags(FIN | ACK);
    f.push(S2C, 900_000 + rtt).flags(FIN | ACK);
    f.push(C2S, 900_000 + rtt);
    let mut next = match ids {
        Ids::Counter(c, s) | Ids::KeptInResend(c, s) => [c, s],
        Ids::Constant(v) => [v, v],
    };
    let mut segs = f.segments().to_vec();
    segs.sort_by_key(|s| s.ts_ns);
    let mut lost_id = None;
    for s in &mut segs {
        let d = usize::from(s.src.port() != 40000);
        s.ip_id = next[d];
        if !matches!(ids, Ids::Constant(_)) {
            next[d] = next[d].wrapping_add(1);
        }
        if s.seq == lost && s.payload_len > 0 {
            match (ids, lost_id) {
                (Ids::KeptInResend(..), Some(id)) => s.ip_id = id,
                _ => lost_id = Some(s.ip_id),
            }
        }
    }
    segs
}

/// Every datagram seen again `delay_ms` later with TTL − 1 (the second capture point).
fn two_taps(segs: &[Segment], delay_ms: i64) -> Vec<Segment> {
    let mut out = segs.to_vec();
    for s in segs {
        let mut copy = s.clone();
        copy.ts_ns += delay_ms * 1_000_000;
        copy.ttl -= 1;
        out.push(copy);
    }
    out.sort_by_key(|s| s.ts_ns);
    out
}

fn analyze(segs: &[Segment]) -> (ConnectionSummary, CaptureFacts) {
    let frames: Vec<Frame> = segs.iter().map(Segment::frame).collect();
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    assert_eq!(a.connections.len(), 1);
    (a.connections[0].clone(), a.capture)
}

/// (packets, retransmissions, duplicate ACKs) of the client's data, then of the server's ACKs.
fn counts(c: &ConnectionSummary) -> [(u64, u64, u64); 2] {
    [0, 1].map(|d| {
        let x = &c.directions[d];
        (x.packets, x.retransmissions, x.duplicate_acks)
    })
}

#[test]
fn copies_30_ms_later_with_ttl_minus_1_are_one_packet() {
    // 80 ms path, taps 30 ms apart, a Linux-like counter per direction. One tap alone:
    // 13 client datagrams (SYN, ACK, 8 data, the fast retransmit, FIN, last ACK) and 7
    // server ones (SYN/ACK, the ACK of the lost byte and 3 duplicates, the ACK, FIN+ACK); both taps together
    // must tell the same story: every second copy is merged, the one resend stays.
    let one = transfer(80, 90, Ids::Counter(0x1234, 0xbeef));
    let (a, fa) = analyze(&one);
    assert_eq!(counts(&a), [(13, 1, 0), (7, 0, 3)]);
    assert_eq!(fa.duplicate_frames, 0);
    let (b, fb) = analyze(&two_taps(&one, 30));
    assert_eq!(counts(&b), counts(&a));
    // All 20 copies, the SYN's and SYN/ACK's included (each its direction's first
    // datagram, merged because only a 1 s timer resends a handshake segment).
    assert_eq!(fb.duplicate_frames, 20);
    let kinds = |c: &ConnectionSummary| (c.directions[0].fast_retransmissions, c.directions[0].rto_events);
    assert_eq!((kinds(&a), kinds(&b)), ((1, 0), (1, 0)));
}

#[test]
fn resends_30_ms_later_stay_retransmissions() {
    // One capture point, 10 ms path: the fast retransmit comes 30 ms after the
    // original, identical but for the Identification (a new one from the counter)
    // and, on a stack with a constant ID (1, or 0 as FreeBSD and macOS write in atomic
    // datagrams), identical in every field: all three are 1 retransmission, never a copy.
    for ids in [Ids::Counter(0x1234, 0xbeef), Ids::Constant(1), Ids::Constant(0)] {
        let (c, facts) = analyze(&transfer(10, 30, ids));
        assert_eq!(counts(&c), [(13, 1, 0), (7, 0, 3)]);
        assert_eq!(facts.duplicate_frames, 0);
    }
    // A stack that keeps the ID in a resend, resending by timer 450 ms later (alexa-app:
    // 448 ms–1 s): past the 200 ms window, a retransmission.
    let (c, facts) = analyze(&transfer(10, 450, Ids::KeptInResend(0x1234, 0xbeef)));
    assert_eq!((counts(&c), facts.duplicate_frames), ([(13, 1, 0), (7, 0, 3)], 0));
}
