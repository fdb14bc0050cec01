//! Regressions found while attacking the decoder for issue 8 (fuzzing and review).
//! Each test is the minimal hostile input, built in code, and what must hold.

use std::time::Instant;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

/// A 2 MB pcapng file of 65 535 Interface Description Blocks, each with another
/// link type. Each IDB added its link-type name with a linear `contains` over the
/// names seen so far: quadratic, 33 s in a release build (the worker looks hung).
/// Now constant time per interface (decode/capture.rs `add_link_type`).
#[test]
fn many_interfaces_with_distinct_link_types_decode_in_linear_time() {
    let mut interfaces: Vec<Interface> = (0..65_535u32).map(|i| Interface::new(Link::Other(i))).collect();
    interfaces[1] = Interface::new(Link::Ethernet); // link type 1, with real Ethernet headers
    let mut frames = Vec::new();
    let mut f = Flow::new("10.9.0.1:1000", "10.9.0.2:80");
    f.data(C2S, 0, 10);
    for (i, mut fr) in f.frames().into_iter().enumerate() {
        fr.interface = 1 + i as u32; // link type 1: Ethernet
        frames.push(fr);
    }
    let bytes = write_pcapng(&[Section::new(Endian::Little, interfaces, frames)]);
    assert!(bytes.len() > 2_000_000);
    let t = Instant::now();
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16);
    let elapsed = t.elapsed();
    let r = s.report();
    assert!(r.error.is_none());
    assert_eq!((r.capture.packets, r.connections.len()), (1, 1));
    // Every distinct name once, in order of first appearance (some numbers share a name).
    assert_eq!(r.capture.link_types[0], "null");
    assert_eq!(r.capture.link_types[1], "ethernet");
    let mut names = r.capture.link_types.clone();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), r.capture.link_types.len());
    assert!(r.capture.link_types.len() > 65_000);
    // Quadratic took minutes in a debug build; linear takes well under a second.
    assert!(elapsed.as_secs_f64() < 5.0, "{elapsed:?}");
}

/// Found by `cargo fuzz run decode_analyze` (10 M executions on 804a6b7, crash at
/// 15,926): a capture whose stamps make a connection's turns (capture → host →
/// capture) near i64::MAX ns overflowed `captured_at_host`'s `mine * 10` (analyzer.rs;
/// a panic in wasm kills the worker). Any bytes must analyse without a panic, and this
/// test runs with overflow checks (debug profile).
#[test]
fn hostile_turns_do_not_overflow_the_vantage_test() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fuzz-turn-overflow.pcap")).expect("fixture");
    let mut session = tcpscope_core::session::Session::new(AnalysisOptions::default());
    session.push(&bytes);
    session.finish();
    assert!(session.report().to_json().starts_with("{\"schemaVersion\":"));
}
