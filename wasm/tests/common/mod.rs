//! Helpers shared by the integration tests.

use tcpscope_core::decode::{CaptureDecoder, CaptureInfo, Decoded};
use tcpscope_core::error::DecodeError;

pub type Decoding = (Vec<Decoded>, CaptureInfo, Option<DecodeError>);

/// Decode `bytes` pushed in chunks of `chunk` bytes, as the worker pushes file slices.
pub fn decode_chunked(bytes: &[u8], chunk: usize) -> Decoding {
    let mut d = CaptureDecoder::new();
    let mut out = Vec::new();
    let mut err = None;
    for c in bytes.chunks(chunk.max(1)) {
        if let Err(e) = d.push(c, &mut |p| out.push(p)) {
            err = Some(e);
            break;
        }
    }
    if err.is_none() {
        err = d.finish().err();
    }
    (out, d.info().clone(), err)
}

/// Decode in chunks of 1, 7, 4096 bytes and whole: every split must give the same result.
pub fn decode_every_split(bytes: &[u8]) -> Decoding {
    let whole = decode_chunked(bytes, bytes.len());
    for n in [1, 7, 4096] {
        assert_eq!(decode_chunked(bytes, n), whole, "chunks of {n} differ from the whole file");
    }
    whole
}
