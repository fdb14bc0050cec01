//! The packed view answer (view/packed.rs, what the worker reads) carries exactly
//! the JSON answer (what the CLI prints): unpacked by the layout packed.rs documents,
//! it equals `query_json`'s answer for bins, points with and without markers,
//! intervals and errors.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::view::response::{Bins, Markers, Points};
use tcpscope_core::view::{ViewData, ViewEngine, ViewResponse};

fn unpack(p: &tcpscope_core::view::packed::PackedResponse) -> ViewResponse {
    let mut r: ViewResponse = serde_json::from_str(&p.header).expect("header");
    let (f, u) = (&p.f64s, &p.u32s);
    match &mut r.data {
        ViewData::Bins(b) => {
            let n = u[0] as usize;
            *b = Bins {
                bytes: f[..n].iter().map(|&x| x as u64).collect(),
                bps: f[n..2 * n].to_vec(),
                average_bps: f[2 * n..3 * n].iter().map(|&x| (!x.is_nan()).then_some(x)).collect(),
                ..b.clone()
            };
        }
        ViewData::Intervals(_) | ViewData::Wifi(_) | ViewData::None => {}
        ViewData::Points(p) => {
            let (n, m) = (u[0] as usize, u[1] as usize);
            let us = |k: usize, len: usize, base: usize| u[2 + base + k * len..2 + base + (k + 1) * len].to_vec();
            let fs = |k: usize, len: usize, base: usize| f[base + k * len..base + (k + 1) * len].to_vec();
            *p = Points {
                column: us(0, n, 0),
                count: us(1, n, 0),
                t_first: fs(0, n, 0),
                first: fs(1, n, 0),
                t_last: fs(2, n, 0),
                last: fs(3, n, 0),
                min: fs(4, n, 0),
                max: fs(5, n, 0),
                markers: p.markers.as_ref().map(|_| Markers { flags: us(0, m, 2 * n), frame: us(1, m, 2 * n), count: us(2, m, 2 * n), t: fs(0, m, 6 * n), v: fs(1, m, 6 * n) }),
                ..p.clone()
            };
        }
        _ => assert!(p.f64s.is_empty() && p.u32s.is_empty()),
    }
    r
}

#[test]
fn packed_answers_are_the_json_answers() {
    let bytes = std::fs::read(format!("{}/../public/examples/cubic-loss.pcap", env!("CARGO_MANIFEST_DIR"))).expect("example");
    let a = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20).analysis().expect("analysed").clone();
    let c = &a.connections[0];
    let mut engine = ViewEngine::new();
    let mut kinds = Vec::new();
    for series in ["throughput", "goodput", "wire", "inflight", "rwnd", "rtt", "sequence", "ack", "windowEdge", "stalls", "windowLimited", "nope"] {
        for (t0, t1) in [(c.start, c.end), (c.start, c.start + (c.end - c.start) / 7.0)] {
            let req = format!(r#"{{"generation":1,"connection":{},"series":"{series}","t0":{t0},"t1":{t1},"columns":1600}}"#, c.id);
            let text = engine.query_json(Some(&a), &req);
            let json: ViewResponse = serde_json::from_str(&text).expect("json");
            let packed = engine.query_packed(Some(&a), &req);
            let mut unpacked = unpack(&packed);
            // The header's text is the JSON answer's without the arrays (the scalars are
            // the same serialisation); its parse here may round a float's last bit
            // (serde_json's parser, not JavaScript's), so the arrays, bit for bit, are
            // compared with the engine's own answer and the rest with the JSON answer.
            match serde_json::from_str::<tcpscope_core::view::ViewRequest>(&req) {
                // Intervals and refusals are all header.
                _ if matches!(json.data, ViewData::Intervals(_) | ViewData::Wifi(_) | ViewData::None) => assert_eq!(packed.header, text, "{series}"),
                Ok(r) => {
                    let direct = engine.query(&a, &r);
                    match (&mut unpacked.data, &direct.data) {
                        (ViewData::Points(u), ViewData::Points(d)) => (u.before, u.after) = (d.before, d.after),
                        (ViewData::Bins(u), ViewData::Bins(d)) => u.start = d.start,
                        _ => {}
                    }
                    assert_eq!(unpacked.data, direct.data, "{series}");
                }
                Err(e) => panic!("{e}"),
            }
            unpacked.data = json.data.clone();
            assert_eq!(unpacked, json, "{series}");
            kinds.push(match &json.data {
                ViewData::Points(p) if p.markers.as_ref().is_some_and(|m| !m.t.is_empty()) => "markers",
                ViewData::Points(_) => "points",
                ViewData::Bins(_) => "bins",
                ViewData::Intervals(_) => "intervals",
                ViewData::Wifi(_) => "wifi",
                ViewData::None => "none",
            });
        }
    }
    // cubic-loss.pcap has retransmissions (sequence markers) and the last request is refused.
    for k in ["markers", "points", "bins", "intervals", "none"] {
        assert!(kinds.contains(&k), "{k} not exercised: {kinds:?}");
    }
}
