//! View queries against brute force, and hostile requests (issue 14, "Bounded
//! everywhere"): no panic, sizes bounded by the columns, a sentence per clamp.

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use tcpscope_core::view::pyramid::PointColumn;
use tcpscope_core::view::response::{Bins, Intervals, Points};
use tcpscope_core::view::{m4, ViewData, ViewEngine, ViewResponse};

/// xorshift: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn f(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn m4_equals_a_scan_of_every_point() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for n in [0usize, 1, 2, 15, 16, 17, 255, 256, 257, 5000] {
        let mut t: Vec<f64> = (0..n).map(|_| rng.f() * 10.0).collect();
        t.sort_by(f64::total_cmp);
        let v: Vec<f64> = (0..n).map(|_| (rng.next() % 1000) as f64).collect();
        let col = PointColumn::new(t.clone(), v.clone());
        for _ in 0..20 {
            let (a, b) = (rng.f() * 11.0 - 0.5, rng.f() * 11.0 - 0.5);
            let (t0, t1) = (a.min(b), a.max(b));
            let columns = 1 + (rng.next() % 300) as u32;
            let p = m4::query(&col, t0, t1, columns);
            let inside: Vec<usize> = (0..n).filter(|&i| t[i] >= t0 && t[i] <= t1).collect();
            assert_eq!(p.total as usize, inside.len());
            assert_eq!(p.count.iter().map(|&c| c as usize).sum::<usize>(), inside.len());
            // Each listed column against a scan of its points (column = where t falls).
            let mut k = 0;
            for (j, &c) in p.column.iter().enumerate() {
                let rows: Vec<usize> = inside[k..k + p.count[j] as usize].to_vec();
                k += rows.len();
                let w = (t1 - t0) / columns as f64;
                for &i in &rows {
                    let col_of = if w > 0.0 { (((t[i] - t0) / w).floor() as i64).clamp(0, columns as i64 - 1) } else { columns as i64 - 1 };
                    assert!((col_of - c as i64).abs() <= 1, "point at {} in column {c}, expected ~{col_of}", t[i]);
                }
                assert_eq!((p.t_first[j], p.first[j]), (t[rows[0]], v[rows[0]]));
                assert_eq!((p.t_last[j], p.last[j]), (t[*rows.last().unwrap()], v[*rows.last().unwrap()]));
                assert_eq!(p.min[j], rows.iter().map(|&i| v[i]).fold(f64::INFINITY, f64::min));
                assert_eq!(p.max[j], rows.iter().map(|&i| v[i]).fold(f64::NEG_INFINITY, f64::max));
            }
            assert!(p.column.len() <= columns as usize);
        }
    }
}

#[test]
fn a_clock_that_steps_back_is_sorted_and_nan_values_dropped() {
    let col = PointColumn::new(vec![3.0, 1.0, 2.0, 2.0], vec![30.0, 10.0, f64::NAN, 20.0]);
    assert_eq!(col.t[..], [1.0, 2.0, 3.0]);
    assert_eq!(col.v, vec![10.0, 20.0, 30.0]);
    assert_eq!(col.min_max(0, 3), (10.0, 30.0));
}

/// A bulk flow: handshake, then `n` 1448-byte segments every 100 µs, an ACK every
/// second segment, a 300 ms pause in the middle, and one packet a year late.
fn capture(n: u32) -> Analysis {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 1000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    let mut t = 2000;
    for i in 0..n {
        if i == n / 2 {
            t += 300_000;
        }
        f.data(C2S, t, 1448);
        if i % 2 == 1 {
            f.push(S2C, t + 50).window(1000);
        }
        t += 100;
    }
    f.data(C2S, 365 * 86_400 * 1_000_000, 1448); // one year late
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16).analysis().expect("analysed").clone()
}

fn ask(engine: &mut ViewEngine, a: &Analysis, json: &str) -> ViewResponse {
    let out = engine.query_json(Some(a), json);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn bins_equal_a_scan_and_sit_on_the_file_grid() {
    let a = capture(2000);
    let mut engine = ViewEngine::new();
    let r = ask(&mut engine, &a, r#"{"generation":1,"connection":0,"series":"throughput","t0":0.0503,"t1":0.4,"columns":800,"binSeconds":0.01}"#);
    let ViewData::Bins(Bins { start, bytes, bps, .. }) = &r.data else { panic!("{r:?}") };
    assert_eq!(*start, 5.0 * 0.01, "bins start on a multiple of the bin from t = 0");
    let mut scan = vec![0u64; bytes.len()];
    a.stores[0].for_each_packet(|p| {
        let k = (p.t_ns as f64 / 1e9 / 0.01).floor() as i64 - 5;
        if p.dir == 0 && (0..scan.len() as i64).contains(&k) {
            scan[k as usize] += p.len as u64;
        }
    });
    assert_eq!(bytes, &scan);
    assert_eq!(bps[0], bytes[0] as f64 * 8.0 / 0.01);
}

#[test]
fn a_year_late_packet_and_a_1_us_bin_allocate_by_columns() {
    let a = capture(200);
    let c = &a.connections[0];
    assert!(c.end > 3e7, "the late packet is in: end {}", c.end);
    let mut engine = ViewEngine::new();
    let json = format!(r#"{{"generation":1,"connection":0,"series":"throughput","t0":0,"t1":{},"columns":1600,"binSeconds":0.000001}}"#, c.end);
    let r = ask(&mut engine, &a, &json);
    let ViewData::Bins(Bins { bytes, .. }) = &r.data else { panic!() };
    assert!(bytes.len() <= 4 * 1600, "{} bins", bytes.len());
    assert!(r.clamped.iter().any(|m| m.contains("bin raised from 1 µs") && m.contains("at most 4 bins per pixel column")), "{:?}", r.clamped);
    assert_eq!(bytes.iter().sum::<u64>(), c.directions[0].payload_bytes);
}

#[test]
fn hostile_requests_are_clamped_never_refused() {
    let a = capture(200);
    let mut engine = ViewEngine::new();
    let cases = [
        (r#""t0":-1e300,"t1":1e300,"columns":4000000000"#, "columns lowered"),
        (r#""t0":5,"t1":1,"columns":100"#, "swapped"),
        (r#""t0":0,"t1":1e12,"columns":0"#, "limited to"),
        (r#""t0":0,"t1":1,"columns":100,"binSeconds":-3"#, "not a positive duration"),
        (r#""t0":0,"t1":1,"columns":100,"stallThresholdMs":0.0000001"#, "stall threshold raised"),
        (r#""t0":0,"t1":1,"columns":100,"direction":7"#, "direction 7"),
    ];
    for series in ["throughput", "goodput", "wire", "inflight", "rwnd", "windowLimited", "rtt", "sequence", "stalls", "wifi"] {
        for (fields, expect) in cases {
            let r = ask(&mut engine, &a, &format!(r#"{{"generation":1,"connection":0,"series":"{series}",{fields}}}"#));
            assert!(r.error.is_none(), "{series} {fields}: {:?}", r.error);
            let rate = matches!(series, "throughput" | "goodput" | "wire" | "wifi");
            let applies = (rate || !expect.contains("positive duration")) && (series == "stalls" || !expect.contains("stall"));
            if applies {
                assert!(r.clamped.iter().any(|m| m.contains(expect)), "{series} {fields}: {:?}", r.clamped);
            }
            assert!(r.t0 <= r.t1 && r.t0.is_finite() && r.t1.is_finite());
            let cols = r.columns as usize;
            assert!(cols <= 8192);
            match &r.data {
                ViewData::Bins(b) => assert!(b.bytes.len() <= 4 * cols),
                ViewData::Points(p) => assert!(p.column.len() <= cols),
                ViewData::Intervals(i) => assert!(i.intervals.len() <= 4 * cols),
                ViewData::Wifi(w) => assert!(w.frames.len() <= 4 * cols),
                ViewData::None => panic!("{series}: no data"),
            }
        }
    }
    // Not a request at all, an unknown connection, no analysis yet: an error, no panic.
    for (json, analysis) in [("{", Some(&a)), (r#"{"generation":1,"connection":9,"series":"rtt","t0":0,"t1":1,"columns":10}"#, Some(&a)), (r#"{"generation":1,"connection":0,"series":"rtt","t0":0,"t1":1,"columns":10}"#, None)] {
        let r: ViewResponse = serde_json::from_str(&engine.query_json(analysis, json)).expect("a response");
        assert!(r.error.is_some(), "{json}");
    }
}

#[test]
fn tiny_stall_threshold_is_raised_until_stalls_are_bounded() {
    // 200 000 data segments 100 µs apart: a 10 µs threshold would make each gap a stall.
    let a = capture(200_000);
    let mut engine = ViewEngine::new();
    let r = ask(&mut engine, &a, r#"{"generation":1,"connection":0,"series":"stalls","t0":0,"t1":100,"columns":1600,"stallThresholdMs":0.01}"#);
    // The gaps are 100 µs ± float noise: the threshold lands at or just above them.
    assert!(r.stall_threshold_ms.unwrap() >= 0.1 - 1e-9, "{:?}", r.stall_threshold_ms);
    assert!(r.clamped.iter().any(|m| m.contains("at most 100000 stalls")), "{:?}", r.clamped);
    let ViewData::Intervals(Intervals { intervals, more, .. }) = &r.data else { panic!() };
    assert!(intervals.len() as u64 + more <= 100_000);
    // Around the 300 ms pause (after 100 000 segments, t ≈ 10.002 s).
    let r = ask(&mut engine, &a, r#"{"generation":1,"connection":0,"series":"stalls","t0":9.99,"t1":10.4,"columns":1600,"stallThresholdMs":0.01}"#);
    let ViewData::Intervals(Intervals { intervals, .. }) = &r.data else { panic!() };
    assert!(intervals.iter().any(|i| i.end - i.start > 0.29), "the 300 ms pause is a stall");
}

#[test]
fn many_intervals_in_view_are_capped_with_coverage() {
    let a = capture(2000);
    let mut engine = ViewEngine::new();
    // 0.05 ms: every 100 µs gap between data segments is a stall.
    let r = ask(&mut engine, &a, r#"{"generation":1,"connection":0,"series":"stalls","t0":0,"t1":1,"columns":10,"stallThresholdMs":0.05}"#);
    let ViewData::Intervals(Intervals { intervals, more, coverage, .. }) = &r.data else { panic!() };
    assert_eq!(intervals.len(), 40);
    assert!(*more > 1000, "{more}");
    let coverage = coverage.as_ref().expect("coverage when capped");
    assert_eq!(coverage.len(), 10);
    assert!(coverage.iter().all(|&c| (0.0..=1.0).contains(&c)));
}

#[test]
fn points_series_answer_per_column_and_carry_edges() {
    let a = capture(2000);
    let mut engine = ViewEngine::new();
    for series in ["inflight", "rwnd", "rtt", "sequence"] {
        let r = ask(&mut engine, &a, &format!(r#"{{"generation":1,"connection":0,"series":"{series}","t0":0.05,"t1":0.1,"columns":50}}"#));
        let ViewData::Points(Points { column, total, before, after, markers, .. }) = &r.data else { panic!("{series}") };
        assert!(*total > 0 && column.len() <= 50, "{series}: {total}");
        assert!(before.is_some() && after.is_some(), "{series}");
        assert_eq!(markers.is_some(), series == "sequence" || series == "rtt");
    }
    // A new generation drops what the last one cached.
    let held = engine.cached_bytes();
    assert!(held > 0);
    ask(&mut engine, &a, r#"{"generation":2,"connection":0,"series":"rtt","t0":0,"t1":1,"columns":10}"#);
    assert!(engine.cached_bytes() < held);
}

#[test]
fn prepared_charts_answer_from_the_cache_exactly_as_unprepared() {
    // `prepare` builds the per-packet set and the RTT columns before the page asks
    // (the worker does it while the page renders the report): afterwards the answers
    // are the ones a fresh engine gives, and asking adds nothing to the cache.
    let a = capture(2000);
    let requests = ["throughput", "inflight", "rwnd", "sequence", "ack", "windowEdge", "rtt"]
        .map(|s| format!(r#"{{"generation":3,"connection":0,"series":"{s}","t0":0,"t1":0.5,"columns":400}}"#));
    let mut prepared = ViewEngine::new();
    prepared.prepare(&a, 3, 0);
    let built = prepared.cached_bytes();
    assert!(built > 0, "prepare built nothing");
    for json in &requests {
        let cold = ask(&mut ViewEngine::new(), &a, json);
        assert_eq!(ask(&mut prepared, &a, json), cold, "{json}");
    }
    assert_eq!(prepared.cached_bytes(), built, "a prepared series was built again");
    // A connection that does not exist prepares nothing (and does not panic).
    let mut other = ViewEngine::new();
    other.prepare(&a, 3, 99);
    assert_eq!(other.cached_bytes(), 0);
}
