//! A timestamp echo across an idle period (RFC 7323 §4.3): after a pause the peer's
//! first segment echoes TS.Recent, the TSval of the last segment it accepted, so the
//! "sample" from the first segment with that TSval times the pause. Synthesized with
//! known answers; the expert review found the shape in a public capture of a chat
//! client (a 7.2 s idle read as a 7,166 ms round trip, p95 of the other direction too).

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

const MS: i64 = 1_000;

/// Client TSval: its ms clock + 100; server TSval: its ms clock + 5000 (1 ms ticks).
fn client_ts(t_us: i64) -> u32 {
    100 + (t_us / MS) as u32
}
fn server_ts(t_us: i64) -> u32 {
    5_000 + (t_us / MS) as u32
}

/// A chat connection captured at the client, 40 ms path. Six request/response
/// exchanges (at 1..=5 s and 14 s): the client's request, the server's reply 40 ms
/// later (echoing the request's TSval and acknowledging it), the client's ACK 1 ms
/// after that. At 6 s the server pushes two segments 0.2 ms apart; the client ACKs
/// the first at 6.001 s (TSval 6101, the second segment still in flight) and the
/// second at 6.0015 s with the same TSval 6101 (same 1 ms tick), covering everything.
/// The server's application is then quiet for 7.2 s; its next push, at 13.2015 s,
/// echoes 6101: TS.Recent, from the ACK that left it idle.
fn chat() -> Flow {
    let mut f = Flow::new("10.0.0.2:50000", "10.0.0.1:5222");
    f.push(C2S, 0).flags(tcp_flags::SYN).ack(0).opts(Opts::new().mss(1460).ts(client_ts(0), 0));
    f.push(S2C, 40 * MS).flags(tcp_flags::SYN | tcp_flags::ACK).opts(Opts::new().mss(1460).ts(server_ts(40 * MS), client_ts(0)));
    f.push(C2S, 41 * MS).opts(Opts::new().ts(client_ts(41 * MS), server_ts(40 * MS)));
    let mut server_last = server_ts(40 * MS);
    let exchange = |f: &mut Flow, t: i64, server_last: &mut u32| {
        f.data(C2S, t, 200).opts(Opts::new().ts(client_ts(t), *server_last));
        f.data(S2C, t + 40 * MS, 500).opts(Opts::new().ts(server_ts(t + 40 * MS), client_ts(t)));
        *server_last = server_ts(t + 40 * MS);
        f.push(C2S, t + 41 * MS).opts(Opts::new().ts(client_ts(t + 41 * MS), *server_last));
    };
    for s in 1..=5 {
        exchange(&mut f, s * 1_000 * MS, &mut server_last);
    }
    // The server's push at 6 s: it echoes the client's ACK at 5.041 s (TSval 5141).
    let push = 6_000 * MS;
    let first_end = {
        let first = f.data(S2C, push, 300).opts(Opts::new().ts(server_ts(push), client_ts(5_041 * MS)));
        first.seq + 300
    };
    f.data(S2C, push + 200, 300).opts(Opts::new().ts(server_ts(push), client_ts(5_041 * MS)));
    let x = client_ts(push + MS);
    // The first ACK covers only the first segment: the second is still in flight.
    f.push(C2S, push + MS).ack(first_end).opts(Opts::new().ts(x, server_ts(push)));
    f.push(C2S, push + 1_500).opts(Opts::new().ts(x, server_ts(push)));
    // 7.2 s later the server writes again, echoing x.
    let late = push + 7_201_500;
    f.data(S2C, late, 100).opts(Opts::new().ts(server_ts(late), x));
    server_last = server_ts(late);
    f.push(C2S, late + MS).opts(Opts::new().ts(client_ts(late + MS), server_last));
    exchange(&mut f, 14_000 * MS, &mut server_last);
    f
}

fn analyze(f: &Flow) -> ConnectionSummary {
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections[0].clone()
}

#[test]
fn an_echo_of_an_ack_that_left_the_peer_idle_is_no_round_trip() {
    let c = analyze(&chat());
    let (client, server) = (&c.directions[0].rtt, &c.directions[1].rtt);
    // The client's segments: SYN and six requests, each timed by the server's ACK and
    // by its TSval echo, 40 ms measured + the client's own 1 ms turnaround
    // (`offsetMs`, this capture is at the client): 14 samples of 41 ms. Left out: the
    // push at 6 s echoing the ACK of 5.041 s (959 ms: the server's application was
    // quiet) and the push at 13.2015 s echoing 6101 — timed from the first ACK with
    // that TSval, 7,200.5 ms, but the second ACK with 6101 had covered everything, so
    // the server's data answered nothing of the client's: its application woke up.
    // Before the rule the second was trusted (the first ACK with 6101 left a segment
    // in flight): max 7,201.5 ms, p95 2,189.15 ms of 15 samples.
    assert_eq!((client.samples, client.excluded_samples), (14, 2));
    assert_eq!((client.p95_ms, client.max_ms), (Some(41.0), Some(41.0)));
    // The server's segments, timed by the client's ACKs 1 ms (the second push segment
    // 1.3 ms) after them, + the far part's 40 ms. Before, the 7.2 s echo was the far
    // part each later sample followed (`followedSamples` 4): p95 and max 7,201.5 ms.
    // Now no echo by the server's new data clocked out by the client remains, so the
    // far part is its 40 ms minimum throughout.
    assert_eq!((server.samples, server.excluded_samples, server.followed_samples), (19, 0, 0));
    assert_eq!((server.p95_ms, server.max_ms), (Some(41.03), Some(41.3)));
}
