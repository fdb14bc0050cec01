//! The tooltip query (view/at.rs): the value under the pointer is the drawn value.

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use tcpscope_core::view::{AtRequest, Series, ViewData, ViewEngine, ViewRequest};

/// 400 segments of 1448 B, 100 µs apart, a 300 ms pause in the middle (a stall).
fn capture() -> Analysis {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 1000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 2000;
    for i in 0..400 {
        if i == 200 {
            t += 300_000;
        }
        f.data(C2S, t, 1448);
        if i % 2 == 1 {
            f.push(S2C, t + 50).window(1000);
        }
        t += 100;
    }
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16).analysis().expect("analysed").clone()
}

fn view(series: Series, a: &Analysis, columns: u32, bin: Option<f64>) -> ViewRequest {
    let c = &a.connections[0];
    ViewRequest { generation: 3, connection: 0, series, t0: c.start, t1: c.end, columns, bin_seconds: bin, stall_threshold_ms: None, direction: None }
}

fn at(series: Series, t: f64, bin: Option<f64>) -> AtRequest {
    AtRequest { generation: 3, connection: 0, series, t, direction: None, bin_seconds: bin, stall_threshold_ms: None }
}

#[test]
fn the_bin_under_the_pointer_is_the_drawn_bin() {
    let a = capture();
    let mut e = ViewEngine::new();
    let ViewData::Bins(b) = e.query(&a, &view(Series::Throughput, &a, 400, Some(0.001))).data else { panic!("bins") };
    let t = a.connections[0].start + 0.0105;
    let i = ((t - b.start) / 0.001).floor() as usize;
    let got = e.at(&a, &at(Series::Throughput, t, Some(0.001)));
    assert!(got.found);
    assert_eq!(got.generation, 3);
    assert_eq!(got.value, Some(b.bps[i]));
    assert_eq!(got.bytes, Some(b.bytes[i] as f64));
    assert!(got.t <= t && t < got.t_end.unwrap());
}

#[test]
fn the_nearest_point_and_the_stall_under_the_pointer() {
    let a = capture();
    let mut e = ViewEngine::new();
    let c = a.connections[0].clone();
    // Past the end: the last data segment, whose sequence number is the largest drawn.
    let got = e.at(&a, &at(Series::Sequence, c.end + 100.0, None));
    let ViewData::Points(p) = e.query(&a, &view(Series::Sequence, &a, 100, None)).data else { panic!("points") };
    assert!(got.found);
    assert_eq!(got.value, p.max.iter().copied().reduce(f64::max));
    // In the 300 ms pause: the stall the summary lists, with its cause.
    let stall = &c.directions[c.data_direction as usize].stalls[0];
    let got = e.at(&a, &at(Series::Stalls, stall.start + stall.duration / 2.0, None));
    assert!(got.found);
    assert_eq!((got.t, got.t_end), (stall.start, Some(stall.start + stall.duration)));
    assert!(got.cause.is_some());
}

#[test]
fn hostile_at_requests_get_an_answer_never_a_panic() {
    let a = capture();
    let mut e = ViewEngine::new();
    assert!(e.at_json(Some(&a), "{").contains("error"));
    assert!(e.at_json(None, r#"{"generation":1,"connection":0,"series":"rtt","t":1}"#).contains("not analysed"));
    for t in ["1e300", "-1e300", "0"] {
        let out = e.at_json(Some(&a), &format!(r#"{{"generation":1,"connection":0,"series":"rtt","t":{t},"binSeconds":1e-12}}"#));
        assert!(out.contains("\"generation\":1"), "{out}");
    }
    assert!(e.at_json(Some(&a), r#"{"generation":1,"connection":9,"series":"throughput","t":0}"#).contains("no connection 9"));
}
