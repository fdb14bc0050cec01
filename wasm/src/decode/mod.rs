//! Capture decoding: pcap / pcapng framing (via pcap-parser), link layers, IP, TCP.
//!
//! The decoder is push-based: `CaptureDecoder::push` takes the next chunk of the file
//! (any size, e.g. a `Blob.slice` in the browser) and calls back once per packet.
//! Parsers validate once and then read fields with cheap getters.

pub mod capture;
pub mod acked;
pub mod app_line;
pub mod checksum;
pub mod ethertype;
pub mod frame;
pub mod icmp;
pub mod ip;
pub mod link;
pub mod mptcp;
pub mod nflog;
pub mod packet;
pub mod phy_rate;
pub mod pktap;
pub mod ppi;
pub mod process;
pub mod radiotap;
pub mod syn_layout;
pub mod pcap;
pub mod pcapng;
pub mod tcp;
pub mod tls;
pub mod tunnel;
pub mod wifi;

pub use capture::CaptureDecoder;
pub use process::{Process, ProcessTable};
pub use radiotap::Radio;
pub use tls::TlsAlert;

use std::net::IpAddr;

/// TCP header flag bits, as in the header's flags byte (RFC 9293 §3.1).
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const URG: u8 = 0x20;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// The TCP options that matter to the analysis (RFC 9293, RFC 7323, RFC 2018).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    /// Window scale shift count as sent (RFC 7323 §2.3; values > 14 are clamped by receivers).
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    /// SACK blocks (left, right) in absolute sequence numbers; `sack_count` of them are valid.
    pub sack_blocks: [(u32, u32); 4],
    pub sack_count: u8,
    /// A SACK option is present but cut short (by the snaplen, or malformed): its
    /// blocks are unknown, not absent.
    pub sack_unreadable: bool,
    /// (TSval, TSecr) of the timestamps option (RFC 7323 §3).
    pub timestamp: Option<(u32, u32)>,
    /// A TCP Fast Open option (RFC 7413 §4.1.1: cookie request or cookie) is present.
    pub tfo: bool,
    /// An MPTCP option (kind 30, RFC 8684) is present: read into `TcpSegment::mptcp`.
    pub mptcp: bool,
    /// On a SYN, the order of its options where a known stack writes it (syn_layout.rs);
    /// `Other` on every other segment. One byte: it fills the struct's padding.
    pub syn_layout: syn_layout::SynLayout,
}

/// One decoded TCP segment with what the analysis needs; owned and small.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSegment {
    /// 0-based index of this packet among all packets (records) of the file.
    pub packet_index: u64,
    /// Capture timestamp, nanoseconds since the Unix epoch.
    pub ts_ns: i64,
    /// Original length of the frame on the wire (pcap `orig_len`), not the captured length.
    pub wire_len: u32,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    /// Flags byte, see [`tcp_flags`].
    pub flags: u8,
    /// Raw (unscaled) window field.
    pub window: u16,
    /// ECN: bits 0–1 the IP ECN field (RFC 3168 §5: 1 ECT(1), 2 ECT(0), 3 CE), bit 2
    /// the TCP AE flag (RFC 9768 §3.1). ECE and CWR are in `flags`.
    pub ecn: u8,
    /// TCP payload length from the IP length fields (correct even when the capture
    /// was cut by the snaplen).
    pub payload_len: u32,
    pub options: TcpOptions,
    /// The payload starts with a TLS alert record (tls.rs): the only payload bytes the
    /// decoder reads, for how the connection ended (analysis/track/ending.rs).
    pub tls_alert: Option<TlsAlert>,
    /// The MPTCP options (mptcp.rs), boxed: a segment without any pays one pointer.
    pub mptcp: Option<Box<mptcp::Mptcp>>,
    /// Identity of the frame below TCP, to recognise the same frame captured twice
    /// (analysis/capture/duplicates.rs): IPv4 Identification (RFC 791 §3.1; None for IPv6)
    /// and, on 802.11, the MAC retry bit and sequence number.
    pub frame_id: FrameId,
    /// What the capture says about the frame beyond its bytes: process, radio.
    pub meta: FrameMeta,
}

/// Capture metadata of a frame (see `TcpSegment::meta`), and what its checksum showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameMeta {
    /// Index into the decoder's process table (`CaptureDecoder::processes`): from the
    /// PKTAP header, or the EPB's Darwin process-information option.
    pub process: Option<u32>,
    /// Radiotap / PPI radio facts, on 802.11 captures that carry them.
    pub radio: Option<Radio>,
    /// What the TCP checksum showed (checksum.rs): a `Bad` one may be a corrupted
    /// frame, which the session leaves out of the analysis (session.rs).
    pub checksum: checksum::Checksum,
    /// Padding evidence (analysis/track/padding.rs): on an IPv4 datagram of at most
    /// 46 bytes (Ethernet's minimum payload, the only size link padding fills) whose
    /// payload of at most 6 bytes was captured, how many bytes at its end are zero.
    pub zero_tail: u8,
    /// A hash (FNV-1a folded to 8 bits, never 0) of the payload's first
    /// `packet::HEAD_BYTES` bytes, where the frame holds that many and they are not all
    /// zero; 0 otherwise. Two segments whose hashes differ carry different bytes for the
    /// same sequence numbers (analysis/track/two_senders.rs); equal hashes may hide a
    /// difference (1 in 255), never invent one. One byte: it fills the struct's padding,
    /// so a held packet stays at 208 bytes (capture/timeline.rs, Memory).
    pub head: u8,
    /// The payload's first line where it is an FTP or SMTP command or reply
    /// (app_line.rs; 0 otherwise): the application facts of analysis/app_facts.
    pub app: app_line::AppLine,
    /// Yes/no facts of the frame, one bit each in one byte (`FrameBits`): two bools
    /// would push a held packet past 208 bytes (capture/timeline.rs, Memory).
    pub bits: FrameBits,
}

/// One bit per yes/no fact of a frame (`FrameMeta::bits`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameBits(u8);

impl FrameBits {
    /// The payload's first byte was captured and is not zero.
    const LEAD_NONZERO: u8 = 1;
    /// The record's timestamp field could not be a time (`RawPacket::ts_impossible`):
    /// counted per connection (analysis/capture/broken_clock.rs).
    const TS_IMPOSSIBLE: u8 = 2;

    pub fn new(lead_nonzero: bool, ts_impossible: bool) -> Self {
        FrameBits(if lead_nonzero { Self::LEAD_NONZERO } else { 0 } | if ts_impossible { Self::TS_IMPOSSIBLE } else { 0 })
    }
    pub fn lead_nonzero(self) -> bool {
        self.0 & Self::LEAD_NONZERO != 0
    }
    pub fn ts_impossible(self) -> bool {
        self.0 & Self::TS_IMPOSSIBLE != 0
    }
    pub fn set_ts_impossible(&mut self, yes: bool) {
        self.0 = (self.0 & !Self::TS_IMPOSSIBLE) | if yes { Self::TS_IMPOSSIBLE } else { 0 };
    }
}

/// What identifies a frame apart from its TCP header (see `TcpSegment::frame_id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameId {
    /// IPv4 Identification field; None for IPv6 (which has none outside fragments).
    pub ip_id: Option<u16>,
    /// IPv4 Time to Live as captured (the sender's initial TTL less the hops so far):
    /// not part of the identity (a router's `-i any` capture sees it twice, one less
    /// the second time), but it tells whose numbering `ip_id` follows
    /// (analysis/loss/datagram_ids.rs). None for IPv6.
    pub ip_ttl: Option<u8>,
    /// 802.11 frames only: (Retry flag set, 12-bit sequence number), IEEE 802.11-2020
    /// §9.2.4.1.1 (Frame Control "Retry") and §9.2.4.4 (Sequence Control).
    pub wifi: Option<(bool, u16)>,
    /// Ethernet frames only: the destination and source MAC addresses, each hashed to
    /// a non-zero 32-bit value (`[dst, src]`; `[0, 0]` on other links): what shows a
    /// capturing host that forwards a datagram logging it on its way in and again on
    /// its way out (analysis/capture/forwarded.rs).
    pub macs: [u32; 2],
}

/// What the decoder hands out for every packet of the file.
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    Tcp(TcpSegment),
    /// Any other packet (ARP, UDP, ICMP, unknown link type, ...); counted, not analysed.
    Other { packet_index: u64, ts_ns: i64, wire_len: u32 },
}

/// Per-packet problems that are not fatal: counted and reported as warnings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarningKind {
    UnknownLinkType,
    NotIp,
    NotTcp,
    /// An IPv4 or IPv6 fragment of anything but TCP (not reassembled).
    IpFragment,
    /// An IP fragment of a TCP segment (not reassembled): the segment's bytes are in the
    /// capture but not analysed, and its receiver's ACKs cover them
    /// (analysis/loss/capture_loss.rs words the acknowledged-but-unseen bytes accordingly).
    TcpFragment,
    /// Header fields were cut off by the snaplen before the TCP header was complete.
    TruncatedHeaders,
    /// A header with impossible values (checked lengths etc.) inside one packet.
    MalformedPacket,
    /// Timestamps earlier than the packet's before it in the file (the session sorts
    /// them into time order, analysis/capture/timeline.rs).
    TimeWentBackwards,
    /// Packets out of time order by more than the session sorts (analysis/capture/timeline.rs
    /// `REORDER_WINDOW_NS`, `REORDER_MAX_PACKETS`): analysed at the latest time before
    /// them. Counted by the session, not the decoder.
    TimeOrderClamped,
    /// Packets stamped more than an hour past every packet before them that the
    /// packets after follow (analysis/capture/timeline.rs `ForwardJump`: captures joined, a
    /// clock set forward): analysed as stamped. Counted by the session.
    TimeJumpedForward,
    /// Timestamp fields the format cannot mean (RawPacket::ts_impossible).
    ImpossibleTimestamp,
    /// A protected (WEP/WPA-encrypted) 802.11 data frame: its body cannot be read, so
    /// whatever TCP it holds is not analysed (IEEE 802.11-2020 §9.2.4.1.9).
    EncryptedFrame,
    /// An 802.11 frame whose radio header says it failed its frame check sequence
    /// (radiotap Flags 0x40; PPI 802.11-Common "FCS invalid" or "PHY error"): the
    /// receiving radio dropped it, so it never reached a TCP stack.
    BadFcs,
    /// A TCP segment whose checksum failed where its source's other frames pass
    /// (checksum.rs `ChecksumEvidence`): corrupted on the way, never delivered, not
    /// analysed. Counted by the session, not the decoder.
    BadTcpChecksum,
    /// A TCP segment whose checksum failed where its source's other frames pass, but
    /// whose bytes the peer acknowledged with no other frame carrying them (acked.rs):
    /// delivered intact, the capture's copy wrong (checksum offload on the capturing
    /// host, or an edited capture), analysed. Counted by the session.
    AckedBadChecksum,
    /// A TCP segment whose checksum failed where its source's other frames pass, still
    /// unacknowledged at the capture's end with no frame of its peer after it (acked.rs
    /// `Fate::Unanswered`): no acknowledgement could be captured, so whether it was
    /// delivered is not known; analysed. Counted by the session.
    UnansweredBadChecksum,
    /// An 802.11 A-MSDU subframe after a frame's first (packet.rs `decode_record`): not
    /// analysed, so the segments it holds look lost or not captured.
    AmsduSubframe,
}

impl WarningKind {
    /// Stable kebab-case name used in the JSON `warnings[].kind` (a const fn: the one
    /// vocabulary, boundary/words.rs, builds its table from it at compile time).
    pub const fn name(self) -> &'static str {
        match self {
            WarningKind::UnknownLinkType => "unknown-link-type",
            WarningKind::NotIp => "not-ip",
            WarningKind::NotTcp => "not-tcp",
            WarningKind::IpFragment => "ip-fragment",
            WarningKind::TcpFragment => "tcp-fragment",
            WarningKind::TruncatedHeaders => "truncated-headers",
            WarningKind::MalformedPacket => "malformed-packet",
            WarningKind::TimeWentBackwards => "time-went-backwards",
            WarningKind::TimeOrderClamped => "time-order-clamped",
            WarningKind::TimeJumpedForward => "time-jumped-forward",
            WarningKind::ImpossibleTimestamp => "impossible-timestamp",
            WarningKind::EncryptedFrame => "encrypted-frame",
            WarningKind::BadFcs => "bad-fcs",
            WarningKind::BadTcpChecksum => "bad-tcp-checksum",
            WarningKind::AckedBadChecksum => "acked-bad-checksum",
            WarningKind::UnansweredBadChecksum => "unanswered-bad-checksum",
            WarningKind::AmsduSubframe => "amsdu-subframe",
        }
    }
}

/// File-level facts gathered while decoding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureInfo {
    /// "pcap" or "pcapng" (None until the magic has been read).
    pub format: Option<&'static str>,
    /// Link-layer type names seen ("ethernet", "linux-sll", "linux-sll2", "raw", "null", "ieee802-11-radiotap", "ppp", "ppi", "pktap", "nflog", or "linktype-N").
    pub link_types: Vec<String>,
    pub packets: u64,
    /// Sum of original (wire) lengths.
    pub bytes: u64,
    /// Bytes of the file consumed so far (for progress and for error offsets).
    pub bytes_consumed: u64,
    pub first_ts_ns: Option<i64>,
    pub last_ts_ns: Option<i64>,
    /// Counts of per-packet warnings, in order of kind.
    pub warnings: std::collections::BTreeMap<WarningKind, u64>,
    /// Wire bytes of the `TcpFragment` frames: at least the TCP bytes they carry
    /// (headers included), the most the capture-loss warning may say they hold.
    pub tcp_fragment_bytes: u64,
    /// The largest `TimeJumpedForward` jump: (frame number, ns past every stamp
    /// before it). Set by the session, which sees time order.
    pub largest_time_jump: Option<(Option<u64>, i64)>,
    /// Interfaces the file describes: 1 for pcap, the IDBs of every section for pcapng.
    /// Each has one clock (analysis/verdict/broken_clock.rs `batched_interface`).
    pub interfaces: u32,
}
