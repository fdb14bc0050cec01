//! The one error type of the crate. Every malformed byte of input becomes a
//! `DecodeError` naming the layer, the packet (0-based index in the file) and the
//! byte offset in the file where the problem was found; input never causes a panic.

use serde::Serialize;
use std::fmt;

/// Which layer of the packet the problem is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// File framing: pcap global/record headers, pcapng blocks.
    Capture,
    /// Link layer: Ethernet, VLAN, SLL/SLL2, null/loopback, radiotap/802.11, NFLOG.
    Link,
    /// IPv4 / IPv6 headers and extension headers.
    Ip,
    /// TCP header and options.
    Tcp,
    /// A share link's snapshot (wasm/src/share); the offset is in its payload.
    Snapshot,
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// Not a pcap or pcapng file (unknown magic number).
    BadMagic,
    /// A format we recognise but refuse (e.g. the Kuznetzov "modified" pcap).
    Unsupported,
    /// The file ends in the middle of a header, record or block.
    Truncated,
    /// A record/block length that cannot be true (too large, too small, mismatched).
    BadLength,
    /// A header field with an impossible value (e.g. IPv4 IHL < 5, TCP data offset < 5).
    BadHeader,
    /// Anything else the framing library rejected.
    Malformed,
    /// Compressed input that inflates beyond a cap (inflate.rs): a gzip bomb.
    TooLarge,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecodeError {
    pub layer: Layer,
    pub kind: ErrorKind,
    /// 0-based index of the packet (record) the problem is in, if it is inside one.
    pub packet_index: Option<u64>,
    /// Offset in the file (bytes from its start) where the bad structure begins.
    pub byte_offset: Option<u64>,
    /// A sentence for humans: what is wrong, and where.
    pub message: String,
}

impl DecodeError {
    pub fn new(layer: Layer, kind: ErrorKind, packet_index: Option<u64>, byte_offset: Option<u64>, message: impl Into<String>) -> Self {
        DecodeError { layer, kind, packet_index, byte_offset, message: message.into() }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {}
