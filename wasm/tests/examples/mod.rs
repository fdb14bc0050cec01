//! The public/examples captures (index.json), analysed with the default options:
//! the view tests check their answers on every one.

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::session::analyze_bytes;

pub fn analysed() -> Vec<(String, Analysis)> {
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
            (name, session.analysis().expect("analysed").clone())
        })
        .collect()
}
