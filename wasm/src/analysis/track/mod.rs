//! Per-packet connection state: one connection's state and the steps each packet takes
//! through it (conn.rs, `Conn::push`), its per-direction totals (totals.rs), the
//! 4-tuple table (connections.rs), relative sequence
//! numbers (sequence.rs), Wireshark's analysis flags (flags.rs), window scaling
//! (window.rs), the handshake's options (handshake.rs), ECN (ecn.rs), MPTCP subflows
//! (mptcp.rs) and how the connection ended (ending.rs). It runs the loss/ and timing/
//! trackers on every packet and writes the rows/, so it comes after those rooms.

pub(crate) mod conn;
pub mod connections;
pub mod ecn;
pub mod ending;
pub mod flags;
pub mod handshake;
pub mod icmp;
pub(crate) mod incarnation;
pub mod mptcp;
mod padding;
pub mod sequence;
pub mod syn_stack;
#[cfg(test)]
pub(crate) mod testseg;
pub(crate) mod totals;
pub mod two_senders;
pub mod window;
