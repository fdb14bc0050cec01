//! Loss, per direction: what kind each retransmission was (retrans_kinds.rs), bytes
//! the receiver acknowledged that the capture never saw (capture_loss.rs), datagrams
//! lost before the capture point, told by the IPv4 Identification (datagram_ids.rs), and
//! data the receiver's SACK blocks reported missing (reported.rs), and re-sends the
//! ACKs' timing and order show needless at their sender (needless_resends.rs).
//! Trackers the connection state (track/) feeds packet by packet; reads rows only.

pub(crate) mod back_to_back;
pub mod capture_loss;
pub(crate) mod datagram_ids;
pub mod needless_resends;
pub mod pmtu_kind;
pub mod reported;
pub mod retrans_kinds;
pub(crate) mod timer_driven;
