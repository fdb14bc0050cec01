//! Issue 17 item 7: the events strip's series (below), and the SACK-adjusted pipe (`Series::Pipe`) beside SND.NXT − SND.UNA
//! (`Series::Inflight`), on loss-1pct.pcap connection 1 (sender side, 1 % loss, SACK).
//! tshark's tcp.analysis.bytes_in_flight subtracts the bytes SACKed by the peer's last
//! ACK: the pipe must equal it at every data segment. Checked against tshark itself
//! when it is installed (`tshark -r loss-1pct.pcap -Y "tcp.analysis.bytes_in_flight &&
//! tcp.stream==1" -T fields -e tcp.analysis.bytes_in_flight`: 8,302 values, all equal),
//! and by fixed numbers otherwise.
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::view::request::Series;
use tcpscope_core::view::sources::points;

#[test]
fn pipe_is_in_flight_less_the_last_acks_sack_blocks_as_tshark() {
    let path = format!("{}/../public/examples/loss-1pct.pcap", env!("CARGO_MANIFEST_DIR"));
    let s = analyze_bytes(&std::fs::read(&path).unwrap(), AnalysisOptions::default(), 1 << 20);
    let store = &s.analysis().unwrap().stores[1];
    let (pipe, inflight) = (points(store, Series::Pipe, 0, &Default::default()), points(store, Series::Inflight, 0, &Default::default()));
    // One value per data segment with a bytes-in-flight value, at the same times.
    assert_eq!((pipe.t.len(), inflight.t.len()), (8302, 8302));
    assert_eq!(pipe.t, inflight.t);
    // Never above SND.NXT − SND.UNA; below it wherever the receiver had SACKed data
    // above a hole (the 1 % losses): 3,885 of the 8,302.
    assert!(pipe.v.iter().zip(&inflight.v).all(|(p, f)| p <= f));
    let below = pipe.v.iter().zip(&inflight.v).filter(|(p, f)| p < f).count();
    assert_eq!(below, 3885);
    let tshark = std::process::Command::new("tshark")
        .args(["-r", &path, "-Y", "tcp.analysis.bytes_in_flight && tcp.stream==1", "-T", "fields", "-e", "tcp.analysis.bytes_in_flight"])
        .output();
    if let Some(out) = tshark.ok().filter(|o| o.status.success()) {
        let theirs: Vec<f64> = String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect();
        assert_eq!(theirs, pipe.v, "tshark's bytes in flight");
    }
}

/// Events per bin summed over the whole connection, for `series`.
fn events(file: &str, series: &str) -> (u64, usize, tcpscope_core::analysis::ConnectionSummary) {
    use tcpscope_core::view::{ViewData, ViewEngine, ViewResponse};
    let path = format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let s = analyze_bytes(&std::fs::read(&path).unwrap(), AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().unwrap();
    let c = a.connections.iter().max_by_key(|c| c.packets).unwrap().clone();
    let json = format!(r#"{{"generation":1,"connection":{},"series":"{series}","t0":{},"t1":{},"columns":800,"binSeconds":0.1}}"#, c.id, c.start, c.end + 0.1);
    let r: ViewResponse = serde_json::from_str(&ViewEngine::new().query_json(Some(a), &json)).unwrap();
    match r.data {
        ViewData::Bins(b) => (b.bytes.iter().sum(), b.bytes.iter().filter(|&&n| n > 0).count(), c),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_events_strip_bins_the_reports_counts() {
    // bursts-outage.pcap: the data sender's 38 retransmissions (of every kind) and
    // the receiver's duplicate ACKs, binned by 100 ms over the whole connection, sum
    // to the report's counts; no zero window.
    let (retx, _, c) = events("bursts-outage.pcap", "retransmissions");
    let d = c.data_direction as usize;
    assert_eq!(retx, 38);
    assert_eq!(retx, c.directions[d].retransmissions);
    let (dups, _, c) = events("bursts-outage.pcap", "duplicateAcks");
    assert_eq!(dups, c.directions[1 - d].duplicate_acks);
    assert_eq!(events("bursts-outage.pcap", "zeroWindows").0, 0);
    // zero-window.pcap: the receiver's zero-window advertisements, as the report.
    let (zw, bins, c) = events("zero-window.pcap", "zeroWindows");
    assert_eq!(zw, c.directions[1 - c.data_direction as usize].zero_windows);
    assert!(zw > 0 && bins > 0);
}

/// The tooltips of the in-flight chart's pipe line and of the events strip ask `at`
/// (view/at.rs): the answer is the drawn value — the pipe point nearest the pointer,
/// the events of the bin under it.
#[test]
fn the_tooltip_reads_the_pipe_point_and_the_events_bin() {
    use tcpscope_core::view::{AtRequest, ViewData, ViewEngine, ViewRequest};
    let path = format!("{}/../public/examples/loss-1pct.pcap", env!("CARGO_MANIFEST_DIR"));
    let s = analyze_bytes(&std::fs::read(&path).unwrap(), AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().unwrap();
    let (pipe, inflight) = (points(&a.stores[1], Series::Pipe, 0, &Default::default()), points(&a.stores[1], Series::Inflight, 0, &Default::default()));
    // A segment sent while the receiver had SACKed data above a hole: there the pipe
    // is below SND.NXT − SND.UNA, so the tooltip's value tells them apart.
    let k = (0..pipe.t.len()).find(|&k| pipe.v[k] < inflight.v[k]).unwrap();
    let ask = |series, t, bin| AtRequest { generation: 1, connection: 1, series, t, direction: Some(0), bin_seconds: bin, stall_threshold_ms: None };
    let mut e = ViewEngine::new();
    let got = e.at(a, &ask(Series::Pipe, pipe.t[k], None));
    assert!(got.found);
    assert_eq!((got.t, got.value), (pipe.t[k], Some(pipe.v[k])));
    // The bin of the first retransmission holds as many as the strip draws there.
    let c = &a.connections[1];
    let view = ViewRequest { generation: 1, connection: 1, series: Series::Retransmissions, t0: c.start, t1: c.end, columns: 800, bin_seconds: Some(0.1), stall_threshold_ms: None, direction: Some(0) };
    let ViewData::Bins(b) = e.query(a, &view).data else { panic!("bins") };
    let i = b.bytes.iter().position(|&n| n > 0).unwrap();
    let got = e.at(a, &ask(Series::Retransmissions, b.start + (i as f64 + 0.5) * 0.1, Some(0.1)));
    assert!(got.found);
    assert_eq!(got.bytes, Some(b.bytes[i] as f64));
    assert!((got.t - (b.start + i as f64 * 0.1)).abs() < 1e-9);
}
