//! Share links keep every extreme a chart draws (issue 42, item 5): whatever column
//! count the link is written at, the page that opens it asks for the sender's own
//! plot columns, and each of those columns' minimum and maximum must come back as
//! the live engine answers them (to the link's value grid).

use tcpscope_core::analysis::Analysis;
use tcpscope_core::share::coded::series_levels;
use tcpscope_core::share::{build, ShareSpec, SnapshotSession};
use tcpscope_core::view::response::Points;
use tcpscope_core::view::{Series, ViewData, ViewEngine, ViewRequest};

use crate::examples;

/// The series drawn from per-column extremes (M4 answers) on the link's charts.
const POINT_SERIES: [Series; 7] = [Series::Inflight, Series::SenderInflight, Series::Rwnd, Series::Sequence, Series::Ack, Series::WindowEdge, Series::Rtt];

/// Series on one value axis (build.rs SAME_AXIS): one value grid.
fn axis(series: Series) -> Vec<Series> {
    [vec![Series::Inflight, Series::Rwnd, Series::SenderInflight, Series::Pipe], vec![Series::Sequence, Series::Ack, Series::WindowEdge]]
        .into_iter()
        .find(|g| g.contains(&series))
        .unwrap_or(vec![series])
}

fn points(data: ViewData) -> Option<Points> {
    match data {
        ViewData::Points(p) => Some(p),
        _ => None,
    }
}

/// A link of connection `id` made on a page of `page` columns, opened as the receiver
/// opens it: (its columns, its levels, the columns whose minimum or maximum differ from
/// the live engine's at `columns` — by more than half a step of the link's value grid).
fn differing(a: &Analysis, report: &str, id: u32, page: u32, columns: impl Fn(u32) -> u32) -> (u32, u64, Vec<String>) {
    let mut engine = ViewEngine::new();
    let spec = ShareSpec { connection: id, columns: page, view: format!("c={id}"), ..Default::default() };
    let built = build(a, report, &mut engine, &spec).expect("builds");
    let mut session = SnapshotSession::open(&built.bytes).expect("opens");
    let grid = session.grid().expect("answers");
    let columns = columns(grid.columns);
    let req = |series| ViewRequest { generation: 1, connection: id, series, t0: grid.t0, t1: grid.t1, columns, bin_seconds: None, stall_threshold_ms: None, direction: None };
    let mut out = Vec::new();
    for series in POINT_SERIES {
        let shared = session.query(&req(series));
        if shared.error.is_some() {
            continue; // not held by this link (the capture point's in flight at a receiver-side capture)
        }
        let Some(live) = points(engine.query(a, &req(series)).data) else { continue };
        let shared = points(shared.data).expect("points");
        let (lo, hi) = axis(series).into_iter().filter_map(|s| points(engine.query(a, &req(s)).data)).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            p.min.iter().chain(&p.max).fold((lo, hi), |(lo, hi), &v| (lo.min(v), hi.max(v)))
        });
        // The chart's value axis starts at 0 but for the sequence graph (answer_bytes.rs from_zero).
        let lo = if matches!(series, Series::Sequence | Series::Ack | Series::WindowEdge) { lo } else { lo.min(0.0) };
        let half_step = (hi - lo) / series_levels(series, built.levels) as f64 / 2.0 + (hi - lo).abs() * 1e-12;
        if live.column != shared.column {
            let only_live: Vec<u32> = live.column.iter().filter(|c| !shared.column.contains(c)).copied().take(6).collect();
            let only_link: Vec<u32> = shared.column.iter().filter(|c| !live.column.contains(c)).copied().take(6).collect();
            out.push(format!("{series:?}: other columns ({} live, {} link; only live {only_live:?}, only link {only_link:?})", live.column.len(), shared.column.len()));
            continue;
        }
        for k in 0..live.column.len() {
            if (live.min[k] - shared.min[k]).abs() > half_step || (live.max[k] - shared.max[k]).abs() > half_step {
                out.push(format!("{series:?} column {}: live {}..{}, link {}..{}", live.column[k], live.min[k], live.max[k], shared.min[k], shared.max[k]));
            }
        }
    }
    (grid.columns, built.levels, out)
}

fn largest(a: &Analysis) -> u32 {
    a.connections.iter().max_by_key(|c| c.packets).expect("a connection").id
}

/// The page draws at most 1064 columns (web/styles.css: main is 1200 px wide, less the
/// plot's margins) and the CLI makes links at 1600 (view/request.rs DEFAULT_COLUMNS):
/// every example's link at either keeps the page's columns, and the page asking for
/// them gets every column's minimum and maximum back as the live engine answers them.
#[test]
fn every_example_link_keeps_the_extremes_of_the_page_columns() {
    let mut failures = Vec::new();
    for (name, a, report) in examples::analysed_with_reports() {
        for page in [1064, 1600] {
            let (columns, levels, diff) = differing(&a, &report, largest(&a), page, |_| page);
            if columns != page || !diff.is_empty() {
                failures.push(format!("{name} on a {page}-column page: link at {columns} px, {levels} levels, {} differ: {:?}", diff.len(), &diff[..diff.len().min(3)]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fall of the in-flight line during recovery, as the page draws it at its 1064
/// columns over the whole connection (neither capture opens on a data view: its data
/// fill the connection). loss-1pct.pcap: column 96 (0.20 s, the first loss) holds
/// 390,960 B in flight (270 segments of 1448 B, the window just before the loss) and
/// 170,864 B (118 segments, once recovery has shrunk it). rx-rr-loss.pcap, captured at
/// the receiver: the in-flight chart draws the sender's estimate, whose column 28
/// falls from 20,272 B (14 segments) to 1448 B (one segment). The link keeps both ends
/// of each fall at the same column, to its value grid.
#[test]
fn the_fall_of_in_flight_during_recovery_is_kept() {
    let cases = [("loss-1pct.pcap", Series::Inflight, 96u32, 170_864.0, 390_960.0), ("rx-rr-loss.pcap", Series::SenderInflight, 28, 1448.0, 20_272.0)];
    for (name, a, report) in examples::analysed_with_reports() {
        let Some(&(_, series, column, low, high)) = cases.iter().find(|c| c.0 == name) else { continue };
        let id = largest(&a);
        let mut engine = ViewEngine::new();
        let spec = ShareSpec { connection: id, columns: 1064, view: format!("c={id}"), ..Default::default() };
        let built = build(&a, &report, &mut engine, &spec).expect("builds");
        let mut session = SnapshotSession::open(&built.bytes).expect("opens");
        let g = session.grid().expect("answers");
        assert_eq!(g.columns, 1064, "{name}: the link keeps the page's columns");
        let req = ViewRequest { generation: 1, connection: id, series, t0: g.t0, t1: g.t1, columns: 1064, bin_seconds: None, stall_threshold_ms: None, direction: None };
        let live = points(engine.query(&a, &req).data).expect("points");
        let k = (0..live.column.len()).max_by(|&i, &j| (live.max[i] - live.min[i]).total_cmp(&(live.max[j] - live.min[j]))).expect("columns");
        assert_eq!((live.column[k], live.min[k], live.max[k]), (column, low, high), "{name}: the deepest fall");
        let shared = points(session.query(&req).data).expect("points");
        let at = shared.column.iter().position(|&c| c == column).expect("the link has the column");
        // The grid spans the chart's axis: the in-flight lines and the receive window.
        let top = axis(series).into_iter().filter_map(|s| points(engine.query(&a, &ViewRequest { series: s, ..req.clone() }).data)).flat_map(|p| p.max).fold(0f64, f64::max);
        let half_step = top / series_levels(series, built.levels) as f64 / 2.0;
        assert!((shared.min[at] - low).abs() <= half_step && (shared.max[at] - high).abs() <= half_step, "{name}: link {}..{}", shared.min[at], shared.max[at]);
    }
}

/// Whatever column count a link is lowered to (a page of 2400 columns: more than the
/// budget holds even at one value step per pixel), it answers those columns with the
/// live engine's extremes: lowering merges whole columns, it never drops a fall.
#[test]
fn a_lowered_link_keeps_the_extremes_of_its_own_columns() {
    for (name, a, report) in examples::analysed_with_reports() {
        if !["loss-1pct.pcap", "rx-rr-loss.pcap", "rwnd-limited.pcap"].contains(&name.as_str()) {
            continue;
        }
        let (columns, levels, diff) = differing(&a, &report, largest(&a), 2400, |link| link);
        assert!(diff.is_empty(), "{name}: link at {columns} px, {levels} levels: {diff:?}");
    }
}

/// A table for the closing note: per example, the columns and levels of the link on
/// pages of 1064, 1600 and 2400 columns, and how many series differ at the page's.
///   cargo test --test all share_extremes:: -- --ignored --nocapture
#[test]
#[ignore]
fn table_of_page_widths() {
    for (name, a, report) in examples::analysed_with_reports() {
        let mut line = format!("{name:28}");
        for page in [1064, 1600, 2400] {
            let (columns, levels, diff) = differing(&a, &report, largest(&a), page, |_| page);
            line += &format!(" | {page}: {columns} px {levels:>4} lv {} off", diff.len());
        }
        println!("{line}");
    }
}
