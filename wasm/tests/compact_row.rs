//! The compact row of `tcpscope analyze --ndjson` (compact_row.rs, issue 43 item 3) on
//! every example capture: each value is the report's own field (rounded as stated in
//! docs/FLEET.md), the stall sums are the data direction's stalls, and the row stays
//! small (cli/fleet.test.mjs checks ≤ 600 bytes with `record` and `file` in front).

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::compact_row::CompactRow;
use tcpscope_core::session::analyze_bytes;

fn examples() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/../public/examples", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("public/examples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn every_value_is_the_reports_field() {
    let mut rows = 0;
    for (name, bytes) in examples() {
        let session = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
        let report: serde_json::Value = serde_json::from_str(&session.report().to_json()).unwrap();
        for (i, c) in session.analysis().expect("analysed").connections.iter().enumerate() {
            let row: serde_json::Value = serde_json::from_str(&CompactRow::of(c).to_json()).unwrap();
            let full = &report["connections"][i];
            let data = full["dataDirection"].as_u64().unwrap() as usize;
            let (d, peer) = (&full["directions"][data], &full["directions"][1 - data]);
            let near = |a: &serde_json::Value, b: f64, step: f64, what: &str| {
                assert!((a.as_f64().unwrap() - b).abs() <= step / 2.0 + 1e-12, "{name} #{i} {what}: {a} vs {b}");
            };
            assert_eq!(row["id"], full["id"], "{name}");
            assert_eq!((&row["from"], &row["to"]), (&d["from"], &d["to"]), "{name} #{i}");
            assert_eq!(row["vantage"], full["vantage"], "{name} #{i}");
            assert_eq!((&row["dataBytes"], &row["reverseBytes"]), (&d["payloadBytes"], &peer["payloadBytes"]), "{name} #{i}");
            near(&row["start"], full["start"].as_f64().unwrap(), 1e-6, "start");
            near(&row["duration"], full["end"].as_f64().unwrap() - full["start"].as_f64().unwrap(), 1e-6, "duration");
            near(&row["meanBps"], d["throughput"]["meanBps"].as_f64().unwrap(), 1.0, "meanBps");
            near(&row["activeBps"], d["throughput"]["activeMeanBps"].as_f64().unwrap(), 1.0, "activeBps");
            near(&row["peakBps"], d["throughput"]["peakBps"].as_f64().unwrap(), 1.0, "peakBps");
            match full["pathRttMs"].as_f64() {
                Some(ms) => near(&row["rttMs"], ms, 1e-3, "rttMs"),
                None => assert!(row["rttMs"].is_null()),
            }
            let r = &row["retrans"];
            for (compact, report_field) in [("total", "retransmissions"), ("rto", "rtoEvents"), ("tlp", "tailLossProbes"), ("fast", "fastRetransmissions"), ("slowStart", "slowStartRetransmissions"), ("spurious", "spuriousRetransmissions")] {
                assert_eq!(r[compact], d[report_field], "{name} #{i} {compact}");
            }
            assert_eq!(row["zeroWindows"], peer["zeroWindows"], "{name} #{i}");
            assert_eq!(row["limit"], full["diagnosis"]["limit"], "{name} #{i}");
            assert_eq!(row["process"], full["process"], "{name} #{i}");
            // The stall sums: count and seconds of the data direction's `stalls` per
            // cause; the causes' counts add up to the number of stalls.
            let stalls = d["stalls"].as_array().unwrap();
            let by_cause = row["stalls"].as_array().unwrap();
            assert_eq!(by_cause.iter().map(|t| t["count"].as_u64().unwrap()).sum::<u64>() as usize, stalls.len());
            for t in by_cause {
                let of_cause: Vec<_> = stalls.iter().filter(|s| s["cause"] == t["cause"]).collect();
                assert_eq!(t["count"].as_u64().unwrap() as usize, of_cause.len(), "{name} #{i} {}", t["cause"]);
                near(&t["seconds"], of_cause.iter().map(|s| s["duration"].as_f64().unwrap()).sum(), 1e-3, "cause seconds");
            }
            rows += 1;
        }
    }
    assert!(rows >= 50, "{rows} rows from the examples");
}

#[test]
fn the_zero_window_stall_of_a_receiver_that_stopped_reading() {
    // rx-zero-window-dead.pcap (public/examples/README.md): the receiving program stops
    // reading at 0.259 s; the sender then sits at a zero window until the capture ends
    // 24.879 s later: one stall, cause zero-window, 24.87931 s (24.879 to the ms).
    let bytes = std::fs::read(format!("{}/../public/examples/rx-zero-window-dead.pcap", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let session = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let c = &session.analysis().unwrap().connections[0];
    let row: serde_json::Value = serde_json::from_str(&CompactRow::of(c).to_json()).unwrap();
    assert_eq!(row["stalls"], serde_json::json!([{"cause": "zero-window", "count": 1, "seconds": 24.879}]));
    assert_eq!(row["limit"], "zero-window");
}
