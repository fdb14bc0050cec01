//! Shared by the view and share tests: the public/examples captures (index.json),
//! analysed with the default options, and one decoded segment per direction to clone
//! into large synthetic connections.
#![allow(dead_code)] // each test file uses what it needs

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::decode::{CaptureDecoder, Decoded, TcpSegment};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// Every example: (file name, analysis, the report's JSON).
pub fn analysed_with_reports() -> Vec<(String, Analysis, String)> {
    let dir = format!("{}/../public/examples", env!("CARGO_MANIFEST_DIR"));
    let index: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/index.json")).expect("index.json")).expect("json");
    index
        .as_array()
        .expect("array")
        .iter()
        .map(|e| {
            let name = e["file"].as_str().expect("file").to_string();
            let bytes = std::fs::read(format!("{dir}/{name}")).expect("example");
            let session = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
            (name, session.analysis().expect("analysed").clone(), session.report().to_json())
        })
        .collect()
}

pub fn analysed() -> Vec<(String, Analysis)> {
    analysed_with_reports().into_iter().map(|(name, a, _)| (name, a)).collect()
}

/// One decoded segment per direction, as templates: cloning them keeps whatever
/// fields the decoder fills in, so a test does not depend on TcpSegment's layout.
pub fn templates() -> (TcpSegment, TcpSegment) {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.data(C2S, 0, 1448);
    f.push(S2C, 10);
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let mut segs = Vec::new();
    let mut d = CaptureDecoder::new();
    d.push(&bytes, &mut |p| {
        if let Decoded::Tcp(s) = p {
            segs.push(s)
        }
    })
    .expect("decodes");
    (segs[0].clone(), segs[1].clone())
}
