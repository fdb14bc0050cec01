//! STUB (owned by the decode work): push-based pcap/pcapng framing.
use super::{CaptureInfo, Decoded};
use crate::error::DecodeError;

#[derive(Default)]
pub struct CaptureDecoder {
    info: CaptureInfo,
}

impl CaptureDecoder {
    pub fn new() -> Self {
        Self::default()
    }
    /// Feed the next chunk of the file; `on_packet` is called once per packet.
    /// After a fatal error every later call returns the same error and decodes nothing.
    pub fn push(&mut self, chunk: &[u8], on_packet: &mut dyn FnMut(Decoded)) -> Result<(), DecodeError> {
        let _ = (chunk, on_packet);
        Ok(())
    }
    /// End of input: bytes left over in the middle of a record become a `Truncated` error.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        Ok(())
    }
    pub fn info(&self) -> &CaptureInfo {
        &self.info
    }
}
