//! Where a connection's transfer began after a head of small messages (docs/ANALYSIS.md
//! `diagnosis.transferStart`): the report's shape, defined in this room (as
//! receiver_silent.rs's `PeerSilent`) so that report.rs reads it from a room before it;
//! the rule that finds it is verdict/diagnosis_shares/transfer_head.rs.

/// The head cut: where the bulk phase began, and what came before it (docs/ANALYSIS.md
/// `diagnosis.transferStart`, the mirror of `diagnosis.transferEnd`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TransferStart {
    /// Capture time of the bulk phase's first data segment, s (the clock of
    /// `stalls[].start`): every share, saving and stall the text sums starts here.
    pub at: f64,
    /// Its frame number.
    pub frame: u32,
    /// The head: from the connection's first data segment (either side), s.
    pub head_seconds: f64,
    /// The messages of the head: the sender's (its bursts between idle pauses) and the
    /// peer's (runs of its data segments), and the payload bytes of both.
    pub own_messages: u32,
    pub peer_messages: u32,
    pub head_bytes: f64,
    /// The bulk phase's share of the direction's new payload bytes.
    pub bulk_share: f64,
}
