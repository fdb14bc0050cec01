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

#[test]
fn the_unknown_link_type_warning_names_the_link_types() {
    // tcpdump's arcnet-rfc1201-arp-icmp-http.pcap (LINKTYPE_ARCNET_LINUX, 129) and Zeek's
    // nflog-http.pcap (LINKTYPE_NFLOG, 239) gave only "26 packets with a link-layer type
    // tcpscope cannot decode": the message now says which, as the capture summary's
    // linkTypes ("linktype-129") does. A pcapng with an Ethernet interface (decoded) and
    // two unsupported ones: 2 packets, both types named, Ethernet not. (NFLOG is decoded
    // since decode/nflog.rs; LINKTYPE_USER0, 147, stands in for it here.)
    use tcpscope_core::synth::*;
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    for t in [0, 100, 200] {
        f.data(C2S, t, 10);
    }
    let mut frames = f.frames();
    frames[1] = frames[1].clone().interface(1);
    frames[2] = frames[2].clone().interface(2);
    let ifaces = vec![Interface::new(Link::Ethernet), Interface::new(Link::Other(129)), Interface::new(Link::Other(147))];
    let bytes = write_pcapng(&[Section::new(Endian::Little, ifaces, frames)]);
    let session = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16);
    let report = session.report();
    let w = report.warnings.iter().find(|w| w.kind == "unknown-link-type").expect("warned");
    assert_eq!(w.count, 2);
    assert_eq!(w.message, "2 packets with a link-layer type tcpscope cannot decode (LINKTYPE 129, 147)");
}
