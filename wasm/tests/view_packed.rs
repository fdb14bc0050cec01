//! The packed view answer (view/packed.rs, what the worker reads) carries exactly
//! the JSON answer (what the CLI prints): unpacked by the one layout (`LAYOUTS`, which
//! the worker reads from the generated `PACKED_LAYOUT`), it equals `query_json`'s
//! answer for bins, points with and without markers, intervals and errors.

use serde_json::{Map, Value};
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::view::packed::{Element, Length, PackedResponse, LAYOUTS};
use tcpscope_core::view::{ViewData, ViewEngine, ViewResponse};

/// A JSON number as the JSON answer writes it: integral values as integers (u64
/// fields), NaN as null (`averageBps` where no bin is within reach).
fn number(x: f64) -> Value {
    match x {
        x if x.is_nan() => Value::Null,
        x if x.fract() == 0.0 && (0.0..9.007_199_254_740_992e15).contains(&x) => Value::from(x as u64),
        x => Value::from(x),
    }
}

/// Reads a packed answer by the layout alone: the header's arrays are filled in from
/// the two number arrays, path by path.
fn unpack(p: &PackedResponse) -> ViewResponse {
    let mut header: Map<String, Value> = serde_json::from_str(&p.header).expect("header");
    let kind = header.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(layout) = LAYOUTS.iter().find(|l| l.kind == kind) else {
        assert!(p.f64s.is_empty() && p.u32s.is_empty(), "{kind}: arrays without a layout");
        return serde_json::from_value(Value::Object(header)).expect("answer");
    };
    let (mut f, mut u) = (0, layout.lengths.len());
    let mut lengths = [0usize; 2];
    for (i, l) in layout.lengths.iter().enumerate() {
        lengths[*l as usize] = p.u32s[i] as usize;
    }
    for a in layout.arrays {
        let len = lengths[match a.length { Length::N => 0, Length::M => 1 }];
        let values: Vec<Value> = match a.element {
            Element::F64 => p.f64s[f..f + len].iter().map(|&x| number(x)).collect(),
            Element::U32 => p.u32s[u..u + len].iter().map(|&x| Value::from(x)).collect(),
        };
        match a.element {
            Element::F64 => f += len,
            Element::U32 => u += len,
        }
        match a.path.split_once('.') {
            Some((object, field)) => {
                if let Some(Value::Object(o)) = header.get_mut(object) {
                    o.insert(field.to_string(), Value::Array(values));
                }
            }
            None => {
                header.insert(a.path.to_string(), Value::Array(values));
            }
        }
    }
    assert_eq!((f, u), (p.f64s.len(), p.u32s.len()), "{kind}: the layout reads every number");
    serde_json::from_value(Value::Object(header)).expect("answer")
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
