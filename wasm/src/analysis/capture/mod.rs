//! The capture as a recording, before any connection: the order and time packets are
//! analysed in (timeline.rs) and the table that tells a packet the file holds twice
//! (repeat_table.rs), frames captured twice (duplicates.rs), a segmentation-offload super-frame logged with its
//! pieces (offload_pieces.rs) or on both sides of a
//! sequence-rewriting box (rewritten_copies.rs), the clock's tick
//! (clock.rs), the 802.11 radio beside TCP (radio.rs), the stated limits that bound
//! memory (limits.rs), the facts the report tells about the file (facts.rs), the host the capture was taken on
//! by its own frames' checksums (capture_host.rs) and the analysis' options (options.rs). First room of the flow: it uses no other room.

pub mod broken_clock;
pub mod capture_host;
pub mod clock;
pub mod duplicates;
pub mod facts;
pub mod forwarded;
pub mod limits;
pub mod offload_pieces;
pub mod options;
pub mod radio;
pub mod repeat_table;
pub mod rewritten_copies;
pub mod timeline;
