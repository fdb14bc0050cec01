//! Caps on gzip-compressed input (issue 16 item 7). The platform inflates the bytes
//! (DecompressionStream in the worker, zlib in the CLI) and hands them over chunk by
//! chunk with the count of compressed bytes read so far; `Session::push_inflated`
//! stops the input once either cap is exceeded, keeping everything decoded before.
//!
//! A gzip bomb (RFC 1952 allows ~1032:1 for runs of zeros) would otherwise feed the
//! decoder gigabytes of empty records from a few megabytes of file. Captures compress
//! far less: packet headers carry counters and timestamps (≈ 30 bytes of entropy per
//! packet), so even a snaplen-96 capture of a transfer of zeros stays below ~40:1.

/// Largest inflated capture accepted (bytes): the wasm32 engine's address space is
/// 4 GiB and a page should stay well below that.
pub const MAX_INFLATED_BYTES: u64 = 2 << 30;

/// Largest ratio inflated ÷ compressed accepted once `RATIO_AFTER_BYTES` are inflated.
pub const MAX_RATIO: u64 = 200;

/// The ratio is judged only past this many inflated bytes, so a small file of a
/// highly compressible capture (a header and a few packets) is never refused.
pub const RATIO_AFTER_BYTES: u64 = 64 << 20;

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

/// The one-line message when `inflated` bytes from `compressed` bytes of gzip break a
/// cap; None while within both.
pub fn inflate_limit(compressed: u64, inflated: u64) -> Option<String> {
    if inflated > MAX_INFLATED_BYTES {
        return Some(format!(
            "The gzip stream inflates beyond the {} cap for compressed captures: input stopped after {} inflated.",
            mib(MAX_INFLATED_BYTES),
            mib(inflated.min(MAX_INFLATED_BYTES))
        ));
    }
    if inflated > RATIO_AFTER_BYTES && inflated > compressed.saturating_mul(MAX_RATIO) {
        return Some(format!(
            "The gzip stream inflates more than {MAX_RATIO}:1 ({} from {} KiB compressed), which no capture does (a gzip bomb?): input stopped there.",
            mib(inflated),
            compressed.div_ceil(1024)
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_within_both_caps_passes() {
        // 1 GiB from 100 MiB: 10:1, a typical snaplen-96 capture.
        assert_eq!(inflate_limit(100 << 20, 1 << 30), None);
        // 64 MiB from 1 KiB is allowed: the ratio is judged only past 64 MiB.
        assert_eq!(inflate_limit(1024, RATIO_AFTER_BYTES), None);
    }

    #[test]
    fn zeros_hit_the_ratio_cap_and_huge_input_the_size_cap() {
        // 65 MiB of zeros gzip to ~65 KiB (1032:1 > 200:1).
        let ratio = inflate_limit(65 << 10, 65 << 20).unwrap();
        assert!(ratio.contains("more than 200:1 (65 MiB from 65 KiB compressed)"), "{ratio}");
        let size = inflate_limit(1 << 30, (2 << 30) + 1).unwrap();
        assert!(size.contains("beyond the 2048 MiB cap"), "{size}");
        assert!(!size.contains('\n') && !ratio.contains('\n'), "one line each");
    }
}

#[cfg(test)]
mod session_tests {
    use crate::analysis::AnalysisOptions;
    use crate::error::ErrorKind;
    use crate::session::Session;

    #[test]
    fn a_bomb_stops_at_the_ratio_cap_keeping_what_was_decoded() {
        // A pcap header (24 bytes, LINKTYPE_ETHERNET) then empty 16-byte records: what a
        // gzip bomb of zeros after a valid header inflates to, 1 MiB per chunk, with
        // 1 KiB of compressed input per inflated MiB (1024:1, as zlib gives for zeros).
        let mut header = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0];
        header.resize(1 << 20, 0);
        let mut session = Session::new(AnalysisOptions::default());
        let mut chunks = 0u64;
        while session.push_inflated(&header[if chunks == 0 { 0 } else { 24 }..], (chunks + 1) << 10) {
            chunks += 1;
            assert!(chunks < 1000, "the cap must stop a bomb");
        }
        // 64 chunks (64 MiB, the ratio is not judged below it); the 65th breaks 200:1.
        assert_eq!(chunks, 64);
        session.finish();
        let error = session.error().unwrap();
        assert_eq!(error.kind, ErrorKind::TooLarge);
        assert!(session.packets() > 4_000_000, "the 64 MiB before the cap were decoded: {}", session.packets());
    }
}
