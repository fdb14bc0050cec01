//! Which knob the receive-window advice names (docs/ANALYSIS.md "Receive-window
//! advice"): the receiver's own stack's, where its SYN — or, where the receiver is the
//! server, its SYN/ACK — identifies the stack (track/syn_stack.rs: the option order and
//! initial TTL, as p0f reads them); else the mechanism every stack has. A Windows
//! receiver of an NDT test (no SYN captured, its ACKs at TTL 115 without timestamps)
//! was told to raise Linux's net.ipv4.tcp_rmem (review AB).

use super::*;

/// The parenthesis of "Raise the receiver's buffer (…) to at least …".
pub(super) fn buffer_knob(f: &Facts) -> &'static str {
    let receiver = &f.conn.endpoints[1 - f.conn.data_direction.min(1) as usize];
    let hs = &f.conn.handshake;
    let by = |o: Option<&crate::analysis::track::handshake::SynOptions>| o.filter(|s| &s.from == receiver).and_then(|s| s.stack);
    match (by(hs.syn.as_ref()), by(hs.syn_ack.as_ref())) {
        // The third value of tcp_rmem caps its receive-buffer auto-tuning (tcp(7)).
        (Some("linux"), _) => "Linux by its SYN: net.ipv4.tcp_rmem",
        (_, Some("linux")) => "Linux by its SYN/ACK: net.ipv4.tcp_rmem",
        // Windows sizes the window by its auto-tuning level unless the application
        // set SO_RCVBUF ("Receive Window Auto-Tuning", netsh interface tcp).
        (Some("windows"), _) => "Windows by its SYN: its auto-tuning level (netsh interface tcp) or socket buffer",
        (_, Some("windows")) => "Windows by its SYN/ACK: its auto-tuning level (netsh interface tcp) or socket buffer",
        // XNU's auto-tuning cap (sysctl net.inet.tcp.autorcvbufmax); iOS has no knob.
        (Some("apple"), _) => "macOS or iOS by its SYN: on macOS net.inet.tcp.autorcvbufmax",
        (_, Some("apple")) => "macOS or iOS by its SYN/ACK: on macOS net.inet.tcp.autorcvbufmax",
        _ => "its auto-tuning limit or socket buffer",
    }
}
