//! Two captures streamed in chunks, merged at the end: what the browser worker and the
//! CLI drive through `bindings.rs` (`WasmTwin`), with no I/O of its own.
//!
//! Each capture is analysed as it arrives by the normal pipeline (`session::Session`,
//! the same engine as one capture), and its bytes are kept: the merge walks each
//! capture twice more (twin/mod.rs `merge`: fingerprints, then the paired datagrams),
//! and a chunk stream cannot be read again. Memory is therefore bounded by
//! [`MAX_TWIN_CAPTURE_BYTES`] per capture (after gzip inflation) plus the merge's own
//! caps (twin/mod.rs); a larger capture is refused with its size, never merged in part.

use super::{merge, refused, CaptureBytes, TwinReport};
use crate::analysis::AnalysisOptions;
use crate::session::Session;

/// Bytes kept of each capture (inflated, when gzip): 256 MiB, so two captures and
/// their analyses stay well inside wasm32's 4 GiB. Beyond it the merge is refused:
/// slice the connection first (`tcpscope slice`, the page's "Save for Wireshark").
pub const MAX_TWIN_CAPTURE_BYTES: usize = 256 << 20;

/// One capture of the two: its analysis as it streams, its bytes kept for the merge.
struct Side {
    session: Session,
    bytes: Vec<u8>,
    /// Set once the capture broke the byte cap: the merge is refused with it.
    too_large: bool,
    /// Set once the analysis stopped taking chunks (a fatal decode error): later
    /// chunks are neither analysed nor kept, as for one capture.
    stopped: bool,
}

/// Two captures in, one [`TwinReport`] out (docs/ANALYSIS.md "Two vantage points").
pub struct TwinStream {
    sides: [Side; 2],
    report: Option<TwinReport>,
}

impl TwinStream {
    pub fn new(options: AnalysisOptions) -> Self {
        let side = || Side { session: Session::new(options), bytes: Vec::new(), too_large: false, stopped: false };
        TwinStream { sides: [side(), side()], report: None }
    }

    /// The next chunk of capture `which` (0 or 1); false once that capture stopped (a
    /// fatal decode error, the byte cap, an unknown `which`, or after `finish`).
    pub fn push(&mut self, which: usize, chunk: &[u8]) -> bool {
        self.take(which, chunk, |s, c| s.push(c))
    }

    /// `push` for the inflated bytes of a gzip capture (`compressed`: compressed bytes
    /// read so far; the caps of inflate.rs apply as for one capture).
    pub fn push_inflated(&mut self, which: usize, chunk: &[u8], compressed: u64) -> bool {
        self.take(which, chunk, |s, c| s.push_inflated(c, compressed))
    }

    fn take(&mut self, which: usize, chunk: &[u8], push: impl FnOnce(&mut Session, &[u8]) -> bool) -> bool {
        if self.report.is_some() {
            return false;
        }
        let Some(side) = self.sides.get_mut(which) else { return false };
        if side.too_large || side.stopped {
            return false;
        }
        if side.bytes.len() + chunk.len() > MAX_TWIN_CAPTURE_BYTES {
            side.too_large = true;
            return false;
        }
        side.bytes.extend_from_slice(chunk);
        side.stopped = !push(&mut side.session, chunk);
        !side.stopped
    }

    /// Bytes kept of capture `which` so far.
    pub fn bytes_kept(&self, which: usize) -> usize {
        self.sides.get(which).map_or(0, |s| s.bytes.len())
    }

    /// End of both inputs: the merge (idempotent; the captures' bytes are freed).
    pub fn finish(&mut self) -> &TwinReport {
        if self.report.is_none() {
            let report = self.merge_now();
            for side in &mut self.sides {
                side.bytes = Vec::new();
            }
            self.report = Some(report);
        }
        self.report.as_ref().expect("set above")
    }

    fn merge_now(&mut self) -> TwinReport {
        if let Some(k) = self.sides.iter().position(|s| s.too_large) {
            let mib = MAX_TWIN_CAPTURE_BYTES >> 20;
            return refused("too-large", format!("Capture {} is larger than {mib} MiB: the merge keeps both captures in memory and stops there. Save the connection alone first (tcpscope slice, or \"Save for Wireshark\"), then merge the two slices.", k + 1));
        }
        for side in &mut self.sides {
            side.session.finish();
        }
        let [a, b] = &self.sides;
        if a.bytes == b.bytes {
            return super::same_file();
        }
        match (a.session.analysis(), b.session.analysis()) {
            (Some(x), Some(y)) => merge([&CaptureBytes(&a.bytes), &CaptureBytes(&b.bytes)], [x, y]),
            _ => refused("unreadable", "A capture could not be analysed.".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(name: &str) -> Vec<u8> {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../public/examples/").to_owned() + name).expect("example")
    }

    /// Streamed in small chunks, interleaved, the merge is the one of the whole files
    /// (twin/mod.rs `merge_captures`): the chunking changes nothing.
    #[test]
    fn streamed_chunks_merge_like_the_whole_files() {
        let (a, b) = (example("twin-forward-loss.pcap"), example("twin-forward-loss-server.pcap"));
        let mut stream = TwinStream::new(AnalysisOptions::default());
        let (mut ca, mut cb) = (a.chunks(7919), b.chunks(4096));
        loop {
            let (x, y) = (ca.next(), cb.next());
            if x.is_none() && y.is_none() {
                break;
            }
            x.map(|c| assert!(stream.push(0, c)));
            y.map(|c| assert!(stream.push(1, c)));
        }
        let want = super::super::merge_captures(&a, &b, AnalysisOptions::default());
        assert_eq!(stream.finish(), &want);
        assert!(want.refusal.is_none() && !want.pairs.is_empty());
        assert_eq!(stream.bytes_kept(0), 0, "bytes freed after the merge");
    }

    #[test]
    fn the_same_capture_twice_is_refused() {
        let a = example("twin-forward-loss.pcap");
        let mut stream = TwinStream::new(AnalysisOptions::default());
        stream.push(0, &a);
        stream.push(1, &a);
        assert_eq!(stream.finish().refusal.as_ref().map(|r| r.kind), Some("same-capture"));
    }

    /// A capture over the cap stops taking chunks and the merge is refused with the cap.
    #[test]
    fn a_capture_over_the_cap_is_refused() {
        let mut stream = TwinStream::new(AnalysisOptions::default());
        let head = example("twin-forward-loss.pcap");
        assert!(stream.push(1, &head[..24]), "a pcap file header");
        assert!(!stream.push(1, &vec![0u8; MAX_TWIN_CAPTURE_BYTES]));
        assert!(!stream.push(2, b"x"), "only captures 0 and 1");
        let r = stream.finish().refusal.clone().expect("refused");
        assert_eq!(r.kind, "too-large");
        assert!(r.message.starts_with("Capture 2 is larger than 256 MiB"), "{}", r.message);
    }
}
