//! The one-pass build of a connection's per-packet series (view/packet_series.rs)
//! equals the series built one at a time (view/sources.rs), bit for bit, on every
//! public/examples capture and on a capture whose clock steps back; and a bulk
//! transfer's series share their time arrays.

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use tcpscope_core::view::packet_series::{build, EVENT_SERIES, POINT_SERIES, RATE_SERIES};
use tcpscope_core::view::{sources, Series};

use crate::examples;

fn examples() -> Vec<(String, Analysis)> {
    let mut out = examples::analysed();
    out.push(("clock steps back".into(), stepping_back()));
    out
}

/// Data and ACKs whose timestamps go back 5 ms in the middle (a clock step).
fn stepping_back() -> Analysis {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 1000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 2000;
    for i in 0..200 {
        if i == 100 {
            t -= 5000;
        }
        f.data(C2S, t, 1448);
        if i % 2 == 1 {
            f.push(S2C, t + 50).window(1000 + i);
        }
        t += 100;
    }
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16).analysis().expect("analysed").clone()
}

#[test]
fn one_pass_equals_one_series_at_a_time() {
    let mut compared = 0;
    for (name, a) in examples() {
        for (store, c) in a.stores.iter().zip(&a.connections) {
            for dir in 0..2u8 {
                let all = build(store, dir, [store.packet_count(); 2]);
                let offset = &tcpscope_core::analysis::round_trips::RoundTripRule::of(c, a.capture.timestamp_resolution_s());
                for s in POINT_SERIES {
                    let one = sources::points(store, s, dir, offset);
                    let built = all.point(s).expect("built");
                    assert!(built.t == one.t && built.v == one.v, "{name} #{} dir {dir} {s:?}", c.id);
                    assert_eq!(built.min_max(0, built.len()), one.min_max(0, one.len()), "{name} {s:?}");
                    compared += one.len();
                }
                for s in RATE_SERIES.into_iter().chain(EVENT_SERIES) {
                    assert_eq!(all.rate(s), Some(&sources::cumulative(store, s, dir)), "{name} #{} dir {dir} {s:?}", c.id);
                }
                assert_eq!(all.sequence_markers, sources::markers(store, Series::Sequence, dir, offset), "{name} #{}", c.id);
            }
        }
    }
    assert!(compared > 10_000, "{compared} points compared");
}

#[test]
fn a_bulk_transfer_keeps_each_sides_times_once() {
    let (_, a) = examples().into_iter().find(|e| e.0 == "stalls.pcap").expect("stalls.pcap");
    let (store, c) = (&a.stores[0], &a.connections[0]);
    let all = build(store, c.data_direction, [store.packet_count(); 2]);
    let separate: usize = POINT_SERIES.iter().map(|&s| all.point(s).expect("built").bytes()).sum::<usize>() + RATE_SERIES.iter().chain(&EVENT_SERIES).map(|&s| all.rate(s).expect("built").bytes()).sum::<usize>();
    // stalls.pcap: one bulk transfer. The four sender series and rwnd, ack, window
    // edge point into their side's times; goodput has times of its own (its ACKs
    // are not consecutive: duplicate ACKs during the stalls advance nothing).
    let mut side = [0usize; 2];
    store.for_each_packet(|r| side[usize::from(r.dir != c.data_direction)] += 1);
    assert!(side[0] > 7000 && side[1] > 4000, "{side:?}");
    for s in POINT_SERIES {
        let peer = matches!(s, Series::Rwnd | Series::Ack | Series::WindowEdge);
        assert_eq!(all.point(s).expect("built").t.base_bytes(), 8 * side[usize::from(peer)], "{s:?}");
    }
    for s in [Series::Throughput, Series::Wire] {
        assert_eq!(all.rate(s).expect("built").t.base_bytes(), 8 * side[0], "{s:?}");
    }
    assert_eq!(separate + 24 * all.sequence_markers.t.capacity() - all.bytes(), 3 * 8 * side[0] + 2 * 8 * side[1], "each side's times counted once");
}
