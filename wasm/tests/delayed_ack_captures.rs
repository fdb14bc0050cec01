//! Issue 17 item 5: Nagle meets delayed ACK, recorded (public/examples/nagle-delack.pcap,
//! scripts/fixtures/record.sh nagle-delack; truth in examples-truth/nagle-delack.json).
use tcpscope_core::analysis::{AnalysisOptions, StallCause};
use tcpscope_core::session::analyze_bytes;

#[test]
fn each_split_request_waits_for_the_servers_delayed_ack() {
    let path = format!("{}/../public/examples/nagle-delack.pcap", env!("CARGO_MANIFEST_DIR"));
    let s = analyze_bytes(&std::fs::read(&path).unwrap(), AnalysisOptions::default(), 1 << 20);
    let c = &s.analysis().unwrap().connections[0];
    // The client (direction 0) writes a 40-byte header, then the body; Nagle holds the
    // body until the header is ACKed, and the server, unable to answer yet, ACKs only
    // when its delayed-ACK timer fires. 60 exchanges; the first was quick-ACKed (Linux
    // starts a connection in quick-ACK mode), the other 59 stalled: the server's kernel
    // counted exactly 59 delayed ACKs (TcpExtDelayedACKs).
    let req = &c.directions[0];
    assert_eq!(req.stalls.len(), 59);
    assert!(req.stalls.iter().all(|st| st.cause == StallCause::DelayedAck), "{:?}", req.stalls.iter().find(|st| st.cause != StallCause::DelayedAck));
    // First one: header at 0.065 s, its ACK 56.7 ms later = 10.3 ms round trip + 46 ms
    // held by the server's timer (Linux's 40 ms minimum plus scheduling).
    assert_eq!(req.stalls[0].ended_by, "the peer's delayed ACK at 0.122 s, held 46 ms after the 40-byte segment: Nagle's algorithm kept the next small segment until then");
    assert_eq!(req.retransmissions, 0);
    // The diagnosis gives the fix.
    assert!(c.diagnosis.text.ends_with("59 stalls (3.2 s in all) were Nagle's algorithm waiting for the peer's delayed ACK: write each message in one call, or set TCP_NODELAY on the sender (or TCP_QUICKACK on the receiver)."), "{}", c.diagnosis.text);
    let truth: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{}/tests/examples-truth/nagle-delack.json", env!("CARGO_MANIFEST_DIR"))).unwrap()).unwrap();
    assert_eq!(truth["key_counters"]["pv_a"]["TcpExtDelayedACKs"], 59);
}

#[test]
fn no_other_example_has_a_delayed_ack_stall() {
    // Bulk transfers send full segments, so Nagle never holds one back; the
    // request/response examples write each request in one call.
    let dir = format!("{}/../public/examples", env!("CARGO_MANIFEST_DIR"));
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if !name.contains(".pcap") || name == "nagle-delack.pcap" {
            continue;
        }
        let s = analyze_bytes(&std::fs::read(format!("{dir}/{name}")).unwrap(), AnalysisOptions::default(), 1 << 20);
        for c in &s.analysis().unwrap().connections {
            for d in c.directions.iter() {
                assert!(d.stalls.iter().all(|st| st.cause != StallCause::DelayedAck), "{name} {}", d.from);
            }
        }
    }
}
