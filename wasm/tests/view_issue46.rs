//! Issue 46 on a generated capture with exact answers: a connection that idles a minute
//! after its handshake before it carries data (an HTTP keep-alive, a monitor capture
//! started early) opens on its data (analysis/run/opening_view.rs, `connection.dataView`),
//! and its ECN signals (CE-marked data, ECE, CWR) are drawn and counted per bin (view
//! series `ceMarks`, `ece`, `cwr` and the `ecn` markers).

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::decode::tcp_flags::{ACK, CWR, ECE, FIN, PSH};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// Data segments of the response, 10 ms apart from 60.010 s.
const SEGMENTS: i64 = 40;
/// Response segments that arrive CE-marked (RFC 3168 §5); the rest are ECT(0).
const CE: [i64; 3] = [10, 25, 26];

/// Handshake at 0 (2 ms RTT), then nothing for 60 s; a 100-byte request at 60 s and a
/// 40-segment response, each ACKed 1 ms later. The receiver echoes each CE mark with
/// ECE on its ACK (RFC 3168 §6.1.3: until the sender's CWR, which comes on the next
/// segment, §6.1.2); FINs at 60.5 s. So on the response direction: CE 3; ECE on the
/// receiver's ACKs of 10, 25 and 26 (26 was marked again after the CWR of 26 itself): 3;
/// CWR on segments 11, 26 and 27: 3.
fn capture_bytes() -> Vec<u8> {
    let mut f = Flow::new("10.46.0.1:40000", "10.46.0.2:80");
    f.handshake(0, 2_000, Opts::new().mss(1460).sack_perm(), Opts::new().mss(1460).sack_perm());
    f.data(C2S, 60_000_000, 100);
    let mut echo = false;
    for i in 0..SEGMENTS {
        let t = 60_010_000 + i * 10_000;
        let ce = CE.contains(&i);
        // The sender answers the previous ACK's ECE with CWR on its next segment.
        let cwr = echo;
        let s = f.data(S2C, t, 1448);
        s.ecn(if ce { 3 } else { 2 }, false);
        if cwr {
            s.flags(ACK | PSH | CWR);
        }
        // The receiver echoes CE until it sees CWR (a CWR segment that is itself CE
        // starts a new echo).
        echo = ce || (echo && !cwr);
        f.push(C2S, t + 1_000).flags(if echo { ACK | ECE } else { ACK });
    }
    f.push(S2C, 60_500_000).flags(FIN | ACK);
    f.push(C2S, 60_501_000).flags(FIN | ACK);
    f.push(S2C, 60_502_000);
    write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

fn capture() -> Analysis {
    analyze_bytes(&capture_bytes(), AnalysisOptions::default(), 1 << 20).analysis().expect("analysed").clone()
}

/// e2e/fixtures/idle-then-data.pcap is this capture (e2e/open-on-data.spec.ts);
/// regenerate with `UPDATE_FIXTURES=1 cargo test --test all view_issue46::`.
#[test]
fn e2e_fixture_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/fixtures/idle-then-data.pcap");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(path, capture_bytes()).expect("write the fixture");
    }
    assert!(std::fs::read(path).ok() == Some(capture_bytes()), "{path} is stale: UPDATE_FIXTURES=1 cargo test --test all view_issue46::");
}

#[test]
fn a_connection_idle_for_a_minute_opens_on_its_data() {
    let a = capture();
    assert_eq!(a.connections.len(), 1);
    let c = &a.connections[0];
    // First packet (SYN) at 0, last (the final ACK) at 60.502 s.
    assert_eq!((c.start, c.end), (0.0, 60.502));
    // Data from the request (60.000 s) to the last response segment (60.010 + 39 × 0.010
    // = 60.400 s): 0.4 s, 2 % = 8 ms each side.
    let [t0, t1] = c.data_view.expect("the data is 0.4 s of a 60.5 s connection");
    assert!((t0 - 59.992).abs() < 1e-9 && (t1 - 60.408).abs() < 1e-9, "{t0} {t1}");
    // A share link made without a range is gridded on the same view (share/build.rs).
    assert_eq!(tcpscope_core::view::request::opening_view(c), (t0, t1));
}

fn query(a: &Analysis, series: &str, t0: f64, t1: f64, extra: &str) -> tcpscope_core::view::ViewResponse {
    let mut engine = tcpscope_core::view::ViewEngine::new();
    let req = format!(r#"{{"generation":1,"connection":0,"series":"{series}","t0":{t0},"t1":{t1},"columns":1000{extra}}}"#);
    serde_json::from_str(&engine.query_json(Some(a), &req)).unwrap()
}

/// Every CE mark, ECE and CWR the report counts is counted per bin on the events strip
/// and marked on the time-sequence chart. tshark agrees on the fixture:
/// `ip.dsfield.ecn == 3` → 3 frames (60.110, 60.260, 60.270 s, all from 10.46.0.2, the
/// data direction), `tcp.flags.ece == 1` → 3, `tcp.flags.cwr == 1` → 3.
#[test]
fn every_ce_mark_ece_and_cwr_is_counted_per_bin_and_marked() {
    use tcpscope_core::view::ViewData;
    let a = capture();
    let c = &a.connections[0];
    assert_eq!(c.data_direction, 1, "the server sends the response");
    let sender = c.directions[1].ecn.expect("ECN seen");
    let receiver = c.directions[0].ecn.expect("ECN seen");
    // The report (analysis/track/ecn.rs): CE and CWR are the sender's, ECE the receiver's.
    assert_eq!((sender.ect0, sender.ce, sender.cwr, receiver.ece), (37, 3, Some(3), Some(3)));
    // Per 100 ms bin (the grid of the summary): CE at 60.110 (bin 601), 60.260 and 60.270
    // (bin 602); ECE on the ACKs 1 ms later, same bins; CWR on segments 11 (60.120, bin
    // 601), 26 (60.270) and 27 (60.280, bin 602).
    for (series, want) in [("ceMarks", vec![1, 2]), ("ece", vec![1, 2]), ("cwr", vec![1, 2])] {
        let r = query(&a, series, 60.1, 60.2999, r#","binSeconds":0.1"#);
        assert_eq!(r.error, None, "{series}");
        let ViewData::Bins(b) = r.data else { panic!("{series}: not bins") };
        assert!((b.start - 60.1).abs() < 1e-9, "{series}: bins from {}", b.start);
        assert_eq!(b.bytes, want, "{series}");
        // Over the whole connection the bins add up to the report's count.
        let r = query(&a, series, 0.0, 61.0, r#","binSeconds":0.1"#);
        let ViewData::Bins(b) = r.data else { panic!("{series}: not bins") };
        assert_eq!(b.bytes.iter().sum::<u64>(), 3, "{series}");
    }
    // The markers: at 1 column per 10 µs every signal has its own column (9 in all).
    let r = query(&a, "ecn", 60.0, 60.4, "");
    let ViewData::Points(p) = r.data else { panic!("ecn: not points") };
    let m = p.markers.expect("markers");
    let count = |bit: u32| m.flags.iter().zip(&m.count).filter(|(f, _)| *f & bit != 0).map(|(_, n)| n).sum::<u32>();
    // Segment 26 is CE-marked and says CWR: one marker with both bits.
    assert_eq!((count(1), count(2), count(4)), (3, 3, 3), "{m:?}");
    assert_eq!(m.frame.len(), 8, "{m:?}");
    // CE marks at the segments' sequence numbers: 1 + 10 × 1448, 1 + 25 × 1448, 1 + 26 × 1448.
    let ce: Vec<f64> = m.v.iter().zip(&m.flags).filter(|(_, f)| *f & 1 != 0).map(|(v, _)| *v).collect();
    assert_eq!(ce, vec![14481.0, 36201.0, 37649.0]);
}

/// A share link of an ECN connection (share/build.rs `ecn_series`) holds the ECN series
/// and answers them as the live engine does; it is gridded on the data view.
#[test]
fn a_share_link_keeps_the_ecn_series_and_the_data_view() {
    use tcpscope_core::share::{build, ShareSpec, SnapshotSession};
    use tcpscope_core::view::{Series, ViewData, ViewEngine, ViewRequest};
    let session = analyze_bytes(&capture_bytes(), AnalysisOptions::default(), 1 << 20);
    let a = session.analysis().expect("analysed").clone();
    let report = session.report().to_json();
    let mut engine = ViewEngine::new();
    let spec = ShareSpec { connection: 0, name: "idle-then-data.pcap".into(), view: "c=0".into(), ..Default::default() };
    let built = build(&a, &report, &mut engine, &spec).expect("builds");
    let mut shared = SnapshotSession::open(&built.bytes).expect("opens");
    let grid = shared.grid().expect("answers");
    assert_eq!((grid.t0, grid.t1), tcpscope_core::view::request::opening_view(&a.connections[0]));
    for series in [Series::CeMarks, Series::Ece, Series::Cwr, Series::Ecn] {
        let req = ViewRequest { generation: 1, connection: 0, series, t0: grid.t0, t1: grid.t1, columns: grid.columns, bin_seconds: None, stall_threshold_ms: None, direction: None };
        let got = shared.query(&req);
        assert_eq!(got.error, None, "{series:?}");
        let live = engine.query(&a, &req);
        match (live.data, got.data) {
            (ViewData::Bins(l), ViewData::Bins(s)) => assert_eq!((l.bytes.iter().sum::<u64>(), s.bytes.iter().sum::<u64>()), (3, 3), "{series:?}"),
            (ViewData::Points(l), ViewData::Points(s)) => {
                let (l, s) = (l.markers.expect("live markers"), s.markers.expect("shared markers"));
                assert_eq!((l.count.iter().sum::<u32>(), s.count.iter().sum::<u32>()), (8, 8), "{series:?}");
            }
            other => panic!("{series:?}: {other:?}"),
        }
    }
}
