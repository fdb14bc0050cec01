//! Link sizes (ignored: a table for the closing note): per example, the largest
//! connection's whole stack at the page's plot width (1064 px), as format 2 wrote it
//! (deflate only) and as format 3 writes it (range-coded streams), at full detail,
//! and what `build` makes within the 8 KB budget.
//!   cargo test --release --test all share_sizes:: -- --ignored --nocapture
use tcpscope_core::share::{build, ShareSpec};
use tcpscope_core::view::ViewEngine;
use crate::examples;

#[test]
#[ignore]
fn link_sizes_per_example() {
    for (name, a, report) in examples::analysed_with_reports() {
        let id = a.connections.iter().max_by_key(|c| c.packets).unwrap().id;
        let spec = ShareSpec { connection: id, columns: 1064, name: name.clone(), view: format!("c={id}"), ..Default::default() };
        let full = build(&a, &report, &mut ViewEngine::new(), &ShareSpec { max_link_chars: 1 << 30, ..spec.clone() }).unwrap();
        let fit = build(&a, &report, &mut ViewEngine::new(), &spec).unwrap();
        println!("{name:26} full {:>6} B | in budget {:>5} B ({} chars) at {} px, {} levels", full.bytes.len(), fit.bytes.len(), fit.bytes.len().div_ceil(3) * 4, fit.columns, fit.levels);
    }
}

#[test]
#[ignore]
fn inflight_positions() {
    use tcpscope_core::share::SnapshotSession;
    use tcpscope_core::view::{Series, ViewData, ViewRequest};
    for (name, a, report) in examples::analysed_with_reports() {
        if !["reqresp-blackhole.pcap", "loss-1pct.pcap"].contains(&name.as_str()) {
            continue;
        }
        let id = a.connections.iter().max_by_key(|c| c.packets).unwrap().id;
        let spec = ShareSpec { connection: id, columns: 1064, max_link_chars: 8100, name: name.clone(), view: format!("c={id}"), ..Default::default() };
        let mut engine = ViewEngine::new();
        let built = build(&a, &report, &mut engine, &spec).unwrap();
        let mut s = SnapshotSession::open(&built.bytes).unwrap();
        let g = s.grid().unwrap();
        let req = ViewRequest { generation: 1, connection: id, series: Series::Inflight, t0: g.t0, t1: g.t1, columns: g.columns, bin_seconds: None, stall_threshold_ms: None, direction: None };
        let (ViewData::Points(l), ViewData::Points(r)) = (engine.query(&a, &req).data, s.query(&req).data) else { panic!() };
        let px = (g.t1 - g.t0) / g.columns as f64;
        let worst = l.t_first.iter().zip(&r.t_first).map(|(a, b)| ((a - b) / px).abs()).fold(0.0, f64::max);
        let (lo, hi) = l.max.iter().fold((0f64, 0f64), |(a, b), &v| (a, b.max(v)));
        let vworst = l.min.iter().zip(&r.min).chain(l.max.iter().zip(&r.max)).map(|(a, b)| (a - b).abs() / (hi - lo) * 170.0).fold(0.0, f64::max);
        for k in 0..l.column.len() {
            let (a, b) = (l.max[k] - l.min[k], r.max[k] - r.min[k]);
            if (a - b).abs() > (hi - lo) / 50.0 || l.count[k].min(2) != r.count[k].min(2) {
                println!("  column {}: live {}..{} ({}) link {}..{} ({})", l.column[k], l.min[k], l.max[k], l.count[k], r.min[k], r.max[k], r.count[k]);
            }
        }
        println!("{name}: {} B levels {} cols {} same columns {} worst tFirst {worst:.3} px worst value {vworst:.3} px; markers {:?}/{:?}", built.bytes.len(), built.levels, built.columns, l.column == r.column, l.markers.as_ref().map(|m| m.t.len()), r.markers.as_ref().map(|m| m.t.len()));
    }
}
