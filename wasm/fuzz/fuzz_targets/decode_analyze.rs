//! Any bytes → the whole pipeline (decode, analyse, JSON report), fed in chunks whose
//! sizes come from the input. Properties: no panic (a panic in wasm kills the
//! worker), the report is JSON, and the decoder's packets and error do not depend on
//! how the file was chunked (checked against one whole-file decode).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::CaptureDecoder;
use tcpscope_core::session::Session;

/// Chunk sizes from the input itself (FNV-1a of the bytes seeds a xorshift), so that
/// seeds stay plain capture files and every mutation also changes the chunking.
fn chunk_sizes(data: &[u8]) -> impl FnMut() -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data.iter().take(4096).chain(data.iter().rev().take(64)) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut s = h | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // mostly small chunks (record and block boundaries), sometimes large ones
        match s % 4 {
            0 => 1 + (s >> 8) as usize % 8,
            1 => 1 + (s >> 8) as usize % 64,
            2 => 1 + (s >> 8) as usize % 4096,
            _ => 1 + (s >> 8) as usize % 65536,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // A stall threshold from the input too, sometimes (None is the default path).
    let options = match data.last() {
        Some(&b) if b & 0x80 != 0 => AnalysisOptions { stall_threshold_ms: Some(f64::from(b & 0x7f) * 7.5), ..AnalysisOptions::default() },
        _ => AnalysisOptions::default(),
    };
    let mut next = chunk_sizes(data);
    let mut session = Session::new(options);
    let mut rest = data;
    while !rest.is_empty() {
        let n = next().min(rest.len());
        if !session.push(&rest[..n]) {
            break;
        }
        rest = &rest[n..];
    }
    session.finish();
    let json = session.report().to_json();
    assert!(json.starts_with("{\"schemaVersion\":") && json.ends_with('}'), "{json}");

    // The same file in one piece: the decoder must reach the same packets and the
    // same error (message, packet index, byte offset) whatever the chunking.
    let mut d = CaptureDecoder::new();
    let mut n = 0u64;
    let mut err = d.push(data, &mut |_| n += 1).err();
    if err.is_none() {
        err = d.finish().err();
    }
    assert_eq!(err.as_ref(), session.error(), "the error depends on the chunk sizes");
    assert_eq!((n, d.info().packets), (session.packets(), session.packets()), "packet count depends on the chunk sizes");
    assert_eq!(d.info().bytes_consumed, session.bytes_consumed());
});
