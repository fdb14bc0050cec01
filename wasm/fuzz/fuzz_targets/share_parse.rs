//! Share links (wasm/src/share): any bytes, raw or packed behind a valid header,
//! through the one snapshot parser; what opens must answer any view request of
//! every series without a panic, with finite view edges.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcpscope_core::share::bytes::deflate;
use tcpscope_core::share::SnapshotSession;
use tcpscope_core::view::{Series, ViewRequest};

const SERIES: [Series; 11] = [
    Series::Throughput, Series::Goodput, Series::Wire, Series::Inflight, Series::Rwnd, Series::WindowLimited,
    Series::Rtt, Series::Sequence, Series::Stalls, Series::Ack, Series::WindowEdge,
];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    // Mode bit 0: the bytes as a payload behind a valid header (so the fuzzer reaches
    // the parser past inflate), else as they are; bits 0 and 3: a format-3 link.
    let bytes = if mode & 9 == 9 {
        // Format 3: the first half deflated, the second half as the range-coded part.
        let (a, c) = rest.split_at(rest.len() / 2);
        let packed = deflate(a);
        let mut b = b"TCPS\x03".to_vec();
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&(a.len() as u32).to_le_bytes());
        let mut n = packed.len() as u64;
        while n >= 0x80 {
            b.push(n as u8 | 0x80);
            n >>= 7;
        }
        b.push(n as u8);
        b.extend_from_slice(&packed);
        b.extend_from_slice(c);
        b
    } else if mode & 1 == 1 {
        let mut b = b"TCPS".to_vec();
        b.push(1 + (mode >> 1 & 1));
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&(rest.len() as u32).to_le_bytes());
        b.extend_from_slice(&deflate(rest));
        b
    } else {
        rest.to_vec()
    };
    if let Ok(mut s) = SnapshotSession::open(&bytes) {
        let id = serde_json::from_str::<serde_json::Value>(&s.report_json()).ok().and_then(|r| r["connections"][0]["id"].as_u64()).unwrap_or(0) as u32;
        for (i, series) in SERIES.into_iter().enumerate() {
            let f = |k: usize| rest.get(i * 3 + k).copied().unwrap_or(0) as f64;
            let req = ViewRequest { generation: 0, connection: id, series, t0: f(0) - 10.0, t1: f(1) * 1e3, columns: 1 + f(2) as u32 * 40, bin_seconds: Some(f(0) / 100.0), stall_threshold_ms: Some(f(1)), direction: Some((mode >> 2) & 1) };
            let r = s.query(&req);
            assert!(r.t0.is_finite() && r.t1.is_finite());
        }
    }
});
