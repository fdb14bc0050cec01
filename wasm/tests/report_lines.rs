//! The CLI's `--ndjson` (issue 16) prints `Report::header_json` and then one
//! `Report::connection_json` per connection instead of the whole `to_json`: the pieces
//! must say exactly what the whole says, so a pipeline sees the same numbers.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::report::Report;
use tcpscope_core::session::analyze_bytes;

#[test]
fn header_and_connection_lines_reassemble_the_report() {
    for name in ["rwnd-limited.pcap", "stalls.pcap", "pcapng-zero-window.pcapng"] {
        let path = format!("{}/../public/examples/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let session = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
        let report = session.report();
        let whole: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();

        let mut header: serde_json::Value = serde_json::from_str(&report.header_json()).unwrap();
        let count = header["connectionCount"].as_u64().unwrap() as usize;
        assert_eq!(count, whole["connections"].as_array().unwrap().len(), "{name}: connectionCount");
        let lines: Vec<serde_json::Value> = (0..count)
            .map(|i| serde_json::from_str(&Report::connection_json(report.connections, i).unwrap()).unwrap())
            .collect();
        assert!(Report::connection_json(report.connections, count).is_none(), "{name}: nothing past the end");

        let object = header.as_object_mut().unwrap();
        object.remove("connectionCount");
        object.insert("connections".into(), serde_json::Value::Array(lines));
        assert_eq!(header, whole, "{name}: header + lines = the report");
    }
}
