//! Stalls: gaps in a direction's data transfer longer than the threshold, and the
//! cause of each (cause.rs names them, gaps.rs finds them), refined by what the capture
//! point cannot see directly: the path holding data or ACKs (held_on_path.rs), a
//! delayed ACK meeting Nagle (delayed_ack.rs), a timeout whose retransmission was never
//! captured (unseen_timeout.rs), a receiver that stopped answering (receiver_silent.rs),
//! loss recovery whose re-sends the capture did not see (reported_loss.rs), a
//! window below one segment that held a silly-window-avoiding sender (small_window.rs),
//! application time whose far part was never measured (far_part.rs), and the threshold
//! read from ACK → new-data pairs where nothing measured that part (far_estimate.rs), or
//! else from the flow's own even delivery pace (even_pace.rs). What is not a
//! pause is active time (active_time.rs: the rate while sending).

pub mod acked_resend;
pub mod active_time;
pub mod capture_stall;
pub mod cause;
pub mod delayed_ack;
pub mod even_pace;
pub mod far_estimate;
pub mod far_part;
pub mod full_segment;
pub mod held_ack_probe;
pub mod held_on_path;
pub mod hole_resend;
pub mod later_rules;
pub mod nagle_shape;
pub mod payload_only;
pub mod receiver_hold;
pub mod receiver_silent;
pub mod transfer_start;
pub mod reported_loss;
pub mod request_turn;
pub mod small_window;
pub mod timer_label;
mod acks_unseen;
mod gaps;
pub mod unseen_timeout;

// The room's face is gaps.rs's API: `stalls::find`, `stalls::is_data_segment`, ...
pub use acks_unseen::acks_unseen;
pub use gaps::*;
