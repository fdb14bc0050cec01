//! Issue 17 item 7: the SACK-adjusted pipe (`Series::Pipe`) beside SND.NXT − SND.UNA
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
    let (pipe, inflight) = (points(store, Series::Pipe, 0, 0.0), points(store, Series::Inflight, 0, 0.0));
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
