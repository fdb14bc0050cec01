//! The capture as a recording, before any connection: the order and time packets are
//! analysed in (timeline.rs), frames captured twice (duplicates.rs), the clock's tick
//! (clock.rs), the 802.11 radio beside TCP (radio.rs), and the stated limits that bound
//! memory (limits.rs). First room of the flow: it uses no other room.

pub mod clock;
pub mod duplicates;
pub mod limits;
pub mod radio;
pub mod timeline;
