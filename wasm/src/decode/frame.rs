//! What the file formats (pcap.rs, pcapng.rs) hand to the capture driver
//! (capture.rs): a framed packet and the position used in error messages. Kept apart
//! so that data flows one way: formats → frame ← capture, with no cycle.

use crate::error::{DecodeError, ErrorKind, Layer};

/// Where the decoder is in the file, for error messages.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// 0-based index of the next packet.
    pub packet: u64,
    /// Offset in the file of the unit being read.
    pub offset: u64,
}

impl Ctx {
    /// An error inside the packet about to be read.
    pub fn err(&self, kind: ErrorKind, message: String) -> DecodeError {
        DecodeError::new(Layer::Capture, kind, Some(self.packet), Some(self.offset), message)
    }
    /// An error in a pcapng block, which belongs to a packet only if it is a packet block.
    pub fn block_err(&self, packet: bool, kind: ErrorKind, message: String) -> DecodeError {
        DecodeError::new(Layer::Capture, kind, packet.then_some(self.packet), Some(self.offset), message)
    }
}

/// A framed packet, before link-layer decoding.
#[derive(Clone, Copy, Debug)]
pub struct RawPacket<'a> {
    pub link_type: u32,
    pub data: &'a [u8],
    pub orig_len: u32,
    /// None for pcapng Simple Packet Blocks, which carry no timestamp.
    pub ts_ns: Option<i64>,
    /// The record's timestamp fields hold a time the format cannot mean: a pcap
    /// sub-second field of a whole second or more, or a pcapng time outside the
    /// i64-nanosecond range (years 1678–2262). `ts_ns` is then the value as read
    /// (carried / clamped) and the decoder warns (`WarningKind::ImpossibleTimestamp`).
    pub ts_impossible: bool,
    /// pcapng EPB option "Darwin process information block index" (0x8001): the
    /// position of the packet's process among the section's DPIBs.
    pub dpib: Option<u32>,
}

