//! Time along the path: RTT samples (rtt.rs), the full round trip each makes
//! (round_trips.rs), where the capture was taken and the path RTT (vantage.rs; by the capture host's
//! own checksums: at_capture_host.rs), and the
//! data sender's view of the connection (its clock: sender_clock.rs; its order of
//! events: sender_view.rs; its bytes in flight: sender_flight.rs; the far part of the
//! round trip its echoes bound: far_bounds.rs). Trackers the
//! connection state (track/) feeds, and the clocks the stall causes are judged by.

pub(crate) mod at_capture_host;
pub(crate) mod far_bounds;
pub mod round_trips;
pub mod rtt;
pub mod peer_silences;
pub(crate) mod sender_clock;
pub(crate) mod ts_clock;
pub mod ts_clock_check;
pub mod sender_flight;
pub mod sender_view;
pub mod vantage;
