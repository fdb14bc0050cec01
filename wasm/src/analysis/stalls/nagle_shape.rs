//! What Nagle's algorithm and a delayed ACK leave in a capture, beyond a small segment
//! and a late ACK (delayed_ack.rs `reclassify`, docs/ANALYSIS.md stall rule 5b; issue 39
//! review V class C-QUEUE-DRAIN-AS-NAGLE).
//!
//! - Nagle (RFC 896; RFC 1122 §4.2.3.4) holds only a segment *smaller* than a full one
//!   while data is unacknowledged; a full segment leaves at once. So the segment the ACK
//!   released must be small ([`held_by_nagle`]) — or the small segment before the gap
//!   was the sender's only unacknowledged data (a lone write whose ACK the receiver held,
//!   the classic header-then-body case), where what waited was that ACK.
//! - A delayed ACK (RFC 1122 §4.2.3.2) is the receiver holding its ACK of a segment it
//!   already has. Behind a slow bottleneck the small segment reaches the receiver only
//!   after the segments queued before it: the receiver's ACKs of those, one per segment
//!   at the bottleneck's pace, are the ACK clock, and a prompt ACK of the small segment
//!   is due one more step of that clock later ([`ack_due`]), not a round trip after it
//!   left. A Windows sender capped at 8,192 B in flight over a ~250 kbit/s uplink
//!   (AdvaithD wireshark-tcp `tcp-ethereal-trace-1`): each flight ends with an 892-B
//!   segment, ACKed 31 ms after the ACK before it (44–51 ms per 1,460 B), and the next
//!   flight begins with a full segment — 19 stalls once read "Nagle's algorithm waiting
//!   for the peer's delayed ACK … set TCP_NODELAY".

use crate::analysis::rows::columns::PacketColumns;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;

/// Whether Nagle's algorithm can have held what ended the gap: the segment at row `end`
/// (the gap's end) is smaller than `full`, or the small segment at row `i` was all the
/// sender had unacknowledged when it left, as far as the capture shows (no byte of the
/// sender's captured before it lay above the peer's highest ACK before it — none at the
/// start of a capture that began mid-stream).
pub fn held_by_nagle(p: &PacketColumns, dir: u8, i: usize, end: usize, full: u32) -> bool {
    let released_small = end < p.t.len() && p.dir[end] == dir && p.len[end] > 0 && p.len[end] < full;
    let acked = (0..i).filter(|&r| is_ack(p, dir, r)).map(|r| p.ack[r]).fold(f64::NEG_INFINITY, f64::max);
    let sent = (0..i).filter(|&r| p.dir[r] == dir && p.len[r] > 0).map(|r| p.seq[r] + f64::from(p.len[r])).fold(f64::NEG_INFINITY, f64::max);
    let lone = sent <= acked.max(p.seq[i]);
    released_small || lone
}

/// When a prompt ACK of the segment at row `i` would have passed the capture point:
/// a round trip to the receiver (`to_receiver_s`) after it left, or — where the
/// receiver's cumulative ACK advanced after that moment, still acknowledging data sent
/// before it (the segment queued behind them) — the last such ACK before row `j` (the
/// first ACK covering it) plus the time the bytes still unacknowledged then, up to the
/// segment's end, take at the rate that ACK and the advancing one before it show
/// delivered (both after the segment left: the same queue draining).
pub fn ack_due(p: &PacketColumns, dir: u8, i: usize, j: usize, to_receiver_s: f64) -> f64 {
    let prompt = p.t[i] + to_receiver_s.max(0.0);
    let end = p.seq[i] + f64::from(p.len[i]);
    let mut last: Option<usize> = None;
    let mut before_last: Option<usize> = None;
    let mut high = f64::NEG_INFINITY;
    for r in (0..j).filter(|&r| is_ack(p, dir, r)) {
        if p.ack[r] > high {
            high = p.ack[r];
            if r > i {
                before_last = last.filter(|&l| l > i);
                last = Some(r);
            } else {
                last = Some(r);
            }
        }
    }
    let Some(a1) = last.filter(|&r| r > i && p.t[r] > prompt) else { return prompt };
    let Some(a0) = before_last else { return prompt.max(p.t[a1]) };
    let (bytes, secs) = (p.ack[a1] - p.ack[a0], p.t[a1] - p.t[a0]);
    if !(bytes > 0.0 && secs > 0.0) {
        return prompt.max(p.t[a1]);
    }
    prompt.max(p.t[a1] + (end - p.ack[a1]).max(0.0) * secs / bytes)
}

/// A packet of the peer's carrying an ACK (no SYN).
fn is_ack(p: &PacketColumns, dir: u8, r: usize) -> bool {
    p.dir[r] != dir && p.flags[r] & SYN == 0 && p.ack[r].is_finite()
}
