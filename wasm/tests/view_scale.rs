//! Query time at scale (issue 14: a worker query for any (t0, t1, 1600 columns) on a
//! 10 M-packet connection ≤ 2 ms p95). Natively, release build:
//!   cargo test --release --test all view_scale:: -- --ignored --nocapture
//! The non-ignored test runs the same code on 200 k packets as a smoke test.

use std::time::Instant;
use tcpscope_core::analysis::{Analysis, AnalysisOptions, Analyzer};

use tcpscope_core::view::{packet_series, sources, Series, ViewData, ViewEngine, ViewRequest};

use crate::examples;


/// A bulk connection of `n` packets: two data segments per ACK, 1448 bytes each,
/// 12 µs apart; the ACK lags by a varying number of segments (in flight swings),
/// the window varies, and every 100 000 segments a 50 ms pause.
pub fn bulk(n: u64) -> Analysis {
    let (data, ack) = examples::templates();
    let options = AnalysisOptions { max_stored_packets: u64::MAX, ..AnalysisOptions::default() };
    let mut an = Analyzer::new(options);
    let (mut t, mut seq, mut sent) = (0i64, 1u32, 0u64);
    let mut i = 0u64;
    while i < n {
        let mut s = data.clone();
        s.packet_index = i;
        s.ts_ns = t;
        s.seq = seq;
        an.push(&s, 0);
        seq = seq.wrapping_add(1448);
        sent += 1;
        i += 1;
        t += 12_000;
        if sent % 100_000 == 0 {
            t += 50_000_000;
        }
        if sent % 2 == 0 && i < n {
            let lag = 20 + (sent / 1000 % 40) as u32; // segments still in flight
            let mut a = ack.clone();
            a.packet_index = i;
            a.ts_ns = t - 6_000;
            a.ack = seq.wrapping_sub(lag * 1448);
            a.window = 2000 + (sent / 5000 % 500) as u16;
            an.push(&a, 0);
            i += 1;
        }
    }
    an.finish()
}

fn p95(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[(times.len() * 95 / 100).min(times.len() - 1)]
}

fn measure(n: u64) {
    let t = Instant::now();
    let a = bulk(n);
    let c = &a.connections[0];
    println!("{n} packets analysed in {:?}; store {} B ({:.1} B/packet)", t.elapsed(), a.stores[0].allocated(), a.stores[0].allocated() as f64 / n as f64);
    let (store, dir) = (&a.stores[0], c.data_direction);
    let t = Instant::now();
    let all = packet_series::build(store, dir, [c.directions[dir as usize].packets as usize, c.directions[1 - dir as usize].packets as usize]);
    let one_pass = t.elapsed();
    let t = Instant::now();
    let mut separate = 0;
    for s in packet_series::POINT_SERIES {
        separate += sources::points(store, s, dir, &Default::default()).bytes();
    }
    for s in packet_series::RATE_SERIES {
        separate += sources::cumulative(store, s, dir).bytes();
    }
    println!(
        "per-packet series: one pass {one_pass:?}, {:.1} B/packet; one pass per series {:?}, {:.1} B/packet",
        all.bytes() as f64 / n as f64,
        t.elapsed(),
        separate as f64 / n as f64
    );
    drop(all);
    let mut engine = ViewEngine::new();
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    for series in [Series::Inflight, Series::Rwnd, Series::Sequence, Series::Throughput, Series::Goodput, Series::Wire, Series::Stalls, Series::WindowLimited] {
        let req = |t0: f64, t1: f64| ViewRequest { generation: 1, connection: c.id, series, t0, t1, columns: 1600, bin_seconds: None, stall_threshold_ms: None, direction: None };
        let t = Instant::now();
        let first = engine.query(&a, &req(c.start, c.end));
        let build = t.elapsed();
        assert!(first.error.is_none());
        if let ViewData::Points(p) = &first.data {
            assert_eq!(p.total, p.count.iter().map(|&c| c as u64).sum::<u64>());
        }
        let mut times = Vec::new();
        for k in 0..400 {
            // Whole view, deep zooms and everything between, anywhere.
            let span = (c.end - c.start) * 10f64.powf(-6.0 * next());
            let t0 = c.start + (c.end - c.start - span) * next();
            let (t0, t1) = if k == 0 { (c.start, c.end) } else { (t0, t0 + span) };
            let t = Instant::now();
            let r = engine.query(&a, &req(t0, t1));
            times.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(r.error.is_none());
        }
        let max = times.iter().copied().fold(0.0, f64::max);
        println!("{series:?}: first query (builds the index) {build:?}; 400 queries p95 {:.3} ms, max {max:.3} ms; cache {} MB", p95(&mut times), engine.cached_bytes() >> 20);
    }
}

#[test]
fn smoke_200k() {
    measure(200_000);
}

#[test]
#[ignore]
fn ten_million_packets() {
    measure(10_000_000);
}
