//! Issue 39, "Evidence before every claim", review L class C-PATHSLOW: a burst slowed
//! only by the sender's own pauses (everything sent acknowledged, or less than one
//! segment outstanding, before it sent again) read "the path slowed down".
//! Checked on the public captures that showed them (`TCPSCOPE_CORPUS`; absent, they pass).

use crate::common;

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::session::analyze_bytes;

fn corpus_connections(name: &str) -> Option<Vec<ConnectionSummary>> {
    let bytes = common::corpus(name)?;
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    Some(s.analysis().expect("analysed").connections.clone())
}

#[test]
fn a_proxy_sending_late_is_not_a_path_that_slowed() {
    // Connection 4 (client :48998 ← proxy :8080, captured at the client). tshark: frame
    // 127 (4.452044 s) ends at 36409, ACKed by frame 128 at +56 µs; the next data, frame
    // 129, arrives at 4.476942 s (+24.8 ms) with TSval 2121964890 against 2121964865 on
    // frame 127: the proxy's own clock moved the same 25 ms, it sent late. Frame 73 (38 B,
    // 4.301198 s) to 74 (4.310762 s): 38 B outstanding, no ACK between, TSval +9 ms.
    let Some(conns) = corpus_connections("Kunalgarg2100__Wireshark-Lab__Part4_q4.pcapng") else { return };
    let c = conns.iter().find(|c| c.id == 4).expect("connection 4");
    assert!(!c.diagnosis.text.contains("the path slowed down"), "{}", c.diagnosis.text);
}
