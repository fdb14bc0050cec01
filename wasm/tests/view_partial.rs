//! The progressive view (issue 41, view/partial.rs): partial answers served while a
//! capture is read agree with the final answers for the time they cover — same grid,
//! same bytes, same moving average where it is given — so the growing chart completes
//! without a jump. On every public/examples capture, read in slices of several sizes.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::Session;
use tcpscope_core::view::partial::{self, AFTER_THE_LOAD};
use tcpscope_core::view::response::{Bins, LoadingBin};
use tcpscope_core::view::{Series, ViewData, ViewEngine, ViewRequest};

fn examples() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/../public/examples", env!("CARGO_MANIFEST_DIR"));
    let index: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/index.json")).expect("index.json")).expect("json");
    index.as_array().expect("array").iter().map(|e| {
        let name = e["file"].as_str().expect("file").to_string();
        let bytes = std::fs::read(format!("{dir}/{name}")).expect("example");
        (name, bytes)
    }).collect()
}

fn request(connection: u32, direction: u8, t1: f64, columns: u32, bin_seconds: Option<f64>) -> ViewRequest {
    ViewRequest { generation: 1, connection, series: Series::Throughput, t0: 0.0, t1, columns, bin_seconds, stall_threshold_ms: None, direction: Some(direction) }
}

fn bins(r: &tcpscope_core::view::ViewResponse) -> Bins {
    match &r.data {
        ViewData::Bins(b) => b.clone(),
        other => panic!("not bins: {other:?} {:?}", r.error),
    }
}

/// A partial answer taken mid-read, to compare with the final one.
struct Seen {
    name: String,
    req: ViewRequest,
    bin: f64,
    bins: Bins,
}

/// Reads every example in slices of `slice` bytes; after each slice, asks the partial
/// throughput of every connection so far (both directions) over its span so far, with
/// `columns` pixel columns (1600: the running bin; 40: coarsened bins).
fn partial_answers(slice: usize, columns: u32) -> Vec<(Seen, tcpscope_core::analysis::Analysis)> {
    let mut out = Vec::new();
    for (name, bytes) in examples() {
        let mut session = Session::new(AnalysisOptions::default());
        let mut seen = Vec::new();
        for chunk in bytes.chunks(slice) {
            if !session.push(chunk) {
                break;
            }
            let run = session.running().expect("reading");
            for id in 0..run.analyzer.connection_count() as u32 {
                let c = run.analyzer.running(id as usize).expect("connection");
                for d in 0..2u8 {
                    // The view the page asks while loading: the connection so far.
                    let req = request(id, d, c.last_t.max(c.first_t + 1e-3), columns, None);
                    let r = partial::query(run, &req);
                    assert!(r.error.is_none(), "{name}: {:?}", r.error);
                    let b = bins(&r);
                    seen.push(Seen { name: name.clone(), bin: r.bin_seconds.expect("bin"), req, bins: b });
                }
            }
        }
        session.finish();
        let a = session.analysis().expect("analysed").clone();
        out.extend(seen.into_iter().map(|s| (s, a.clone())));
    }
    out
}

/// The final answer to the same question, at the partial answer's bin.
fn compare(seen: &[(Seen, tcpscope_core::analysis::Analysis)]) -> usize {
    let mut bins_compared = 0;
    for (s, a) in seen {
        let mut engine = ViewEngine::new();
        let fin = engine.query(a, &ViewRequest { bin_seconds: Some(s.bin), ..s.req.clone() });
        let f = bins(&fin);
        assert_eq!(fin.bin_seconds, Some(s.bin), "{}: same bin", s.name);
        // Same grid: the same first bin edge, bins of the same width.
        assert_eq!(f.start, s.bins.start, "{} #{}: same grid", s.name, s.req.connection);
        assert!(s.bins.bytes.len() <= f.bytes.len());
        for i in 0..s.bins.bytes.len() {
            assert_eq!(s.bins.bytes[i], f.bytes[i], "{} #{} dir {:?} bin {i}: a settled bin is final", s.name, s.req.connection, s.req.direction);
            assert_eq!(s.bins.bps[i], f.bps[i]);
            if let Some(avg) = s.bins.average_bps[i] {
                assert_eq!(Some(avg), f.average_bps[i], "{} #{} bin {i}: the average, where given, is final", s.name, s.req.connection);
            }
        }
        bins_compared += s.bins.bytes.len();
        // The bin in progress: right after the settled bins, and a floor of the final bin.
        if let Some(l) = s.bins.loading {
            let i = l.index as usize;
            assert_eq!(i, s.bins.bytes.len(), "{} #{}: the bin in progress follows the settled ones", s.name, s.req.connection);
            assert!(l.bytes > 0 && l.bytes <= f.bytes[i], "{} #{} bin {i}: {} so far, {} at the end", s.name, s.req.connection, l.bytes, f.bytes[i]);
            assert!(l.bps <= f.bps[i]);
        }
    }
    bins_compared
}

#[test]
fn settled_bins_are_the_final_bins_at_the_running_bin() {
    // 64 KiB slices: several partial answers per example; the examples' connections
    // last ≥ 2 s (then the summary's bin is the running 100 ms) or less (the final
    // chart may pick a finer default; asked at the partial's bin it still agrees).
    for slice in [64 << 10, 300_001] {
        let seen = partial_answers(slice, 1600);
        let n = compare(&seen);
        assert!(n > 1000, "compared {n} bins");
    }
}

#[test]
fn the_bin_in_progress_is_a_floor_of_the_final_bin() {
    // At 1600 columns (the running bin) and at 40 (coarse bins built from several
    // running bins, the one in progress summed from them), on every example.
    for (slice, columns) in [(64 << 10, 1600), (128 << 10, 40)] {
        let seen = partial_answers(slice, columns);
        let open = seen.iter().filter(|(s, _)| s.bins.loading.is_some()).count();
        // (100 of them at 64 KiB slices and 1600 columns on the examples of 2026-11.)
        assert!(open > 0, "slice {slice}, {columns} columns: no answer with a bin in progress");
        compare(&seen);
    }
}

#[test]
fn the_bin_in_progress_holds_the_bytes_analysed_so_far() {
    use tcpscope_core::synth::*;
    // One connection: 1000 B at 0, 30 and 50 ms and 500 B at 120 ms (client → server),
    // then the server's pure ACKs at 2.110, 2.112, 2.130 and 2.140 s. The timeline holds
    // packets until they are 2 s older than the newest stamp (and decides a lone outlier
    // one packet late, so the newest packet waits too: analysis/capture/timeline.rs).
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    for (t_us, len) in [(0, 1000), (30_000, 1000), (50_000, 1000), (120_000, 500)] {
        f.data(C2S, t_us, len);
    }
    for t_us in [2_110_000, 2_112_000, 2_130_000, 2_140_000] {
        f.push(S2C, t_us);
    }
    let frames = f.frames();
    let record = |n: usize| write_pcap(&frames[..n], &Link::Ethernet, Endian::Little, TsResolution::Micro).len();
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let mut session = Session::new(AnalysisOptions::default());
    let ask = |session: &Session| {
        let run = session.running().expect("reading");
        bins(&partial::query(run, &request(0, 0, 0.3, 1600, None)))
    };
    // Six packets in: the ACK at 2.110 s is the newest placed, so the packets up to
    // 110 ms are analysed (0, 30, 50 ms): bin [0, 100 ms) is still open, with 3000 B
    // so far = 240,000 bit/s over its 100 ms, counted up to 50 ms.
    session.push(&bytes[..record(6)]);
    let b = ask(&session);
    assert!(b.bytes.is_empty(), "nothing settled: {b:?}");
    assert_eq!(b.loading, Some(LoadingBin { index: 0, bytes: 3000, bps: 240_000.0, settled_to: 0.05 }));
    // Eight in: up to 130 ms analysed (the 500 B at 120 ms): bin 0 is settled with its
    // 3000 B and bin 1 is in progress with 500 B (40,000 bit/s), counted up to 120 ms.
    session.push(&bytes[record(6)..]);
    let b = ask(&session);
    assert_eq!(b.bytes, vec![3000]);
    assert_eq!(b.loading, Some(LoadingBin { index: 1, bytes: 500, bps: 40_000.0, settled_to: 0.12 }));
    // The finished chart: the same two bins, and no bin in progress in a final answer.
    session.finish();
    let mut engine = ViewEngine::new();
    let fin = bins(&engine.query(session.analysis().expect("analysed"), &request(0, 0, 0.3, 1600, Some(0.1))));
    assert_eq!(&fin.bytes[..2], &[3000, 500]);
    assert_eq!(fin.loading, None);
}

#[test]
fn coarsened_bins_agree_too() {
    // 40 columns: at most 160 bins, so long connections get 200 ms, 500 ms, 1 s bins
    // built from whole 100 ms running bins.
    let seen = partial_answers(128 << 10, 40);
    assert!(seen.iter().any(|(s, _)| s.bin > 0.1 + 1e-9), "some bins were coarsened");
    compare(&seen);
}

/// An example whose largest connection has run for more than 3 s of settled time after
/// three quarters of its bytes (the timeline holds the last 2 s back, analysis/capture/timeline.rs):
/// its name, its bytes and that connection's id.
fn long_example() -> (String, Vec<u8>, u32) {
    examples()
        .into_iter()
        .find_map(|(name, bytes)| {
            let mut session = Session::new(AnalysisOptions::default());
            session.push(&bytes[..bytes.len() * 3 / 4]);
            let t = partial::table(session.running()?, 1);
            let row = t.rows.first()?;
            (row.end - row.start > 3.0).then(|| (name.clone(), bytes.clone(), row.id))
        })
        .expect("an example longer than 3 s")
}

#[test]
fn the_summary_bin_is_the_running_bin_once_the_connection_is_long_enough() {
    // Once 2 s of a connection are settled its final bin is the running 100 ms
    // (throughput.rs auto_bin: the span only grows), so the growing chart's grid is the
    // finished chart's with no bin given at all, and its fullest settled bin is at most
    // the summary's peak.
    let (name, bytes, id) = long_example();
    let mut session = Session::new(AnalysisOptions::default());
    let (mut partial_peak, mut answered) = (0.0f64, 0);
    for chunk in bytes.chunks(64 << 10) {
        session.push(chunk);
        let run = session.running().expect("reading");
        let Some(c) = run.analyzer.running(id as usize) else { continue };
        if c.last_t - c.first_t < 2.0 {
            continue;
        }
        let r = partial::query(run, &request(id, 0, c.last_t, 800, None));
        assert!(!r.notes.iter().any(|n| n.contains("finer bin")), "{name}: {:?}", r.notes);
        let dir = r.direction;
        let r = partial::query(run, &request(id, dir, c.last_t, 800, None));
        assert_eq!(r.bin_seconds, Some(0.1), "{name}");
        partial_peak = bins(&r).bps.iter().copied().fold(partial_peak, f64::max);
        answered += 1;
    }
    assert!(answered > 0, "{name}");
    session.finish();
    let a = session.analysis().expect("analysed");
    let c = &a.connections[id as usize];
    let d = &c.directions[c.data_direction as usize].throughput;
    assert_eq!(d.bin_seconds, 0.1, "{name}");
    assert!(partial_peak > 0.0 && partial_peak <= d.peak_bps, "{name}: {partial_peak} vs {}", d.peak_bps);
}

#[test]
fn other_series_wait_for_the_end_and_bad_requests_are_answered() {
    let (_, bytes, id) = long_example();
    let mut session = Session::new(AnalysisOptions::default());
    session.push(&bytes[..bytes.len() * 3 / 4]);
    let run = session.running().expect("reading");
    for series in [Series::Inflight, Series::Rtt, Series::Stalls, Series::Goodput] {
        let r = partial::query(run, &ViewRequest { series, ..request(id, 0, 1.0, 800, None) });
        assert_eq!(r.error.as_deref(), Some(AFTER_THE_LOAD));
    }
    assert!(partial::query(run, &request(99_999, 0, 1.0, 800, None)).error.is_some());
    // Untrusted numbers are clamped as in the final path, never a panic.
    let r = partial::query(run, &ViewRequest { t0: f64::NAN, t1: -1e300, columns: u32::MAX, bin_seconds: Some(-1.0), ..request(id, 0, 1.0, 800, None) });
    assert!(r.error.is_none() && !r.clamped.is_empty());
    // A bin that is no whole multiple of the running bin is raised to one, and says so.
    let r = partial::query(run, &request(id, 0, 1.0, 800, Some(0.25)));
    assert_eq!(r.bin_seconds, Some(0.1 * 3.0));
    assert!(r.clamped.iter().any(|s| s.contains("whole multiples")));
    assert!(partial::respond(Some(run), "not json").error.is_some());
    // After the end the running state is gone: the final analysis answers.
    session.finish();
    assert!(session.running().is_none());
}

#[test]
fn the_partial_table_lists_the_largest_connections_so_far_with_their_final_ids() {
    for (name, bytes) in examples() {
        let mut session = Session::new(AnalysisOptions::default());
        session.push(&bytes[..bytes.len() * 2 / 3]);
        let t = partial::table(session.running().expect("reading"), 5);
        let rows: Vec<_> = t.rows.clone();
        assert!(rows.len() <= 5 && rows.len() <= t.connections as usize, "{name}");
        let total = |r: &partial::PartialRow| r.payload_bytes[0] + r.payload_bytes[1];
        assert!(rows.windows(2).all(|w| total(&w[0]) >= total(&w[1])), "{name}: largest first");
        // The decoder's position in capture time (the page's length estimate: decoded_t ÷
        // share decoded) is at or after the analysis's, and moves forward.
        let ahead = |t: &partial::PartialTable| match (t.settled_t, t.decoded_t) {
            (Some(s), Some(d)) => assert!(d >= s, "{name}: decoded {d} before settled {s}"),
            (s, d) => assert_eq!(s.is_some(), d.is_some(), "{name}"),
        };
        ahead(&t);
        session.push(&bytes[bytes.len() * 2 / 3..]);
        let whole = partial::table(session.running().expect("reading"), 5);
        ahead(&whole);
        assert!(whole.decoded_t >= t.decoded_t, "{name}");
        session.finish();
        let a = session.analysis().expect("analysed");
        for r in &rows {
            // Same id, same endpoints, and bytes so far never above the final bytes.
            let c = &a.connections[r.id as usize];
            assert_eq!(c.id, r.id);
            assert_eq!([c.endpoints[0].clone(), c.endpoints[1].clone()], r.endpoints, "{name} #{}", r.id);
            assert!(r.payload_bytes[0] <= c.directions[0].payload_bytes && r.payload_bytes[1] <= c.directions[1].payload_bytes);
        }
    }
}
