//! A link's fragment as text (issue 45): any string through the fragment reader
//! (`share::format::from_fragment`: keys percent-decoded as URLSearchParams does, two
//! `snap=` refused, base64url) and, where it names a snapshot, the one snapshot parser.
//! Never a panic; a fragment naming `snap=` twice is always refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcpscope_core::share::format::from_fragment;
use tcpscope_core::share::SnapshotSession;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match from_fragment(&text) {
        Ok(Some(bytes)) => {
            let _ = SnapshotSession::open(&bytes);
        }
        Ok(None) => assert!(!text.trim_start_matches('#').split('&').any(|p| p.starts_with("snap="))),
        Err(e) => assert!(!e.message.is_empty()),
    }
});
