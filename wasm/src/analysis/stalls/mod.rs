//! Stalls: gaps in a direction's data transfer longer than the threshold, and the
//! cause of each (gaps.rs), refined by what the capture point cannot see directly: a
//! delayed ACK meeting Nagle (delayed_ack.rs), a timeout whose retransmission was never
//! captured (unseen_timeout.rs), a receiver that stopped answering (receiver_silent.rs),
//! application time whose far part was never measured (far_part.rs).

pub mod delayed_ack;
pub mod far_part;
pub mod receiver_silent;
mod gaps;
pub mod unseen_timeout;

// The room's face is gaps.rs's API: `stalls::find`, `stalls::is_data_segment`, ...
pub use gaps::*;
