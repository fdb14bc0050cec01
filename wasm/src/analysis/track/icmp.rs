//! `connection.icmp`: the ICMP errors quoting a connection's packets, as the report
//! writes them (the rule that fills them is analysis/verdict/icmp_errors.rs).

use crate::decode::icmp::IcmpKind;
use serde::Serialize;

/// Messages a connection lists (its `count` counts all).
pub const MAX_LISTED: usize = 32;

/// `connection.icmp`: the ICMP errors that quote this connection's packets.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IcmpErrors {
    /// Every such message in the capture.
    pub count: u64,
    /// The first [`MAX_LISTED`], in capture order.
    pub messages: Vec<IcmpMessage>,
}

/// One ICMP error quoting a packet of the connection.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct IcmpMessage {
    /// Frame number of the ICMP message (1-based).
    pub frame: u64,
    /// Time, s since the file's first packet.
    pub t: f64,
    pub kind: IcmpKind,
    /// Who sent it (the ICMP packet's source address).
    pub reporter: String,
    /// Whose packet it quotes: 0 `endpoints[0]`'s, 1 the other's.
    #[cfg_attr(test, ts(type = "0 | 1"))]
    pub direction: u8,
    /// The MTU it reports (fragmentation needed, packet too big), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub mtu: Option<u32>,
    /// The quoted packet's IP length, bytes: what the reporter was handed.
    pub quoted_len: u32,
    /// The quoted sequence number, relative in that direction's space (as `seq` in the rows).
    pub quoted_seq: f64,
    /// The capture saw that side send the quoted byte before the message.
    pub seen: bool,
    /// The capture shows the quoted byte sent again after the message.
    pub resent: bool,
}

