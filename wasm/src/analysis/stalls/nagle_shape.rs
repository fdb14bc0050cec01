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
    (released_small || lone) && !released_full(p, dir, end, full)
}

/// Whether the segment at row `end` is the sender's and full: Nagle's algorithm sends a
/// full segment at once whatever is unacknowledged (RFC 896), so it held no such one
/// (review Y: nfs_bad_stalls' 1,448-B segments after a lone small write). Only where the
/// sender sent that size at least twice: without an MSS option (a capture begun
/// mid-stream) `full` is the largest payload, which one lone segment may be (a 447-B
/// message on loopback in sctpfist).
///
/// And never below [`FULL_MIN`]: where no MSS option was captured, `full` is the largest
/// payload, which in an exchange of short messages is a message (a 60-B MQTT publish in
/// nDPI coap_mqtt #3, each held by Nagle behind a 4-B one until the peer's 40-ms delayed
/// ACK) — no MSS is that small.
pub fn released_full(p: &PacketColumns, dir: u8, end: usize, full: u32) -> bool {
    let full = full.max(FULL_MIN);
    let is_full = |r: usize| p.dir[r] == dir && p.len[r] >= full;
    end < p.t.len() && is_full(end) && (0..p.t.len()).filter(|&r| is_full(r)).take(2).count() == 2
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

/// Whether the capture disproves Nagle's algorithm at direction `dir`'s sender (issue 39
/// review Y): a segment of new data smaller than `full` (no SYN, no FIN: RFC 896 and
/// Linux exempt the last) left the sender while an earlier small segment of new data of
/// its own was still unacknowledged there. Both Nagle's classic rule (RFC 896; RFC 9293
/// §3.7.4) and Minshall's (Linux) hold such a segment until that ACK arrives. An ACK
/// passing the capture at t reaches the sender, and what it released passes the
/// capture, `to_sender` (capture → sender → capture; 0 at the sender) later: a segment
/// passing before t + `to_sender` − `slack` left before that ACK reached the sender.
/// One such segment disproves Nagle for the whole direction. "Small" leaves out segments
/// within the TCP option space (40 B) of `full`: the MSS counts data only, and a sender
/// puts less data in a segment that carries options (RFC 6691; RFC 9293 §3.7.1) — Linux
/// sends 1,448-B segments at an MSS of 1,460 with timestamps, each a full one, back to
/// back (merge of review Y's rule: every bulk transfer with timestamps read as Nagle off).
///
/// Where the handshake is not in the capture, a size near `full` counts as full only
/// where the sender sent it at least twice, as in [`released_full`]: without an MSS
/// option `full` is the largest payload, which one lone segment may be (petit conn 10: a 791-B segment and a 31-B one left together, 822 B in
/// two segments — a sender whose MSS were 791 B would have cut there, one with a larger
/// MSS sent the 31 B while 791 small bytes were unacknowledged; nothing in the capture
/// says which, so Nagle's algorithm, the claim, is not shown). With the handshake, the
/// MSS options set `full` (snabb `v6.pcap`: one 1,208-B segment at an MSS of 1,220 with
/// timestamps is full).
pub fn nagle_disproved(p: &PacketColumns, dir: u8, full: u32, to_sender: f64, slack: f64) -> bool {
    let full = full.max(FULL_MIN);
    let near_full = |r: usize| p.dir[r] == dir && p.flags[r] & SYN == 0 && p.len[r] + OPTION_SPACE >= full;
    // With the handshake captured, `full` is its MSS options' (or RFC 9293's default).
    let handshake = (0..p.t.len()).any(|r| p.flags[r] & SYN != 0);
    let full_proven = handshake || (0..p.t.len()).filter(|&r| near_full(r)).take(2).count() == 2;
    const FIN: u32 = crate::decode::tcp_flags::FIN as u32;
    let (mut high, mut small_end, mut acked) = (f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut a = 0; // the next row whose ACK may have reached the sender
    for k in (0..p.t.len()).filter(|&k| p.dir[k] == dir && p.len[k] > 0 && p.flags[k] & SYN == 0) {
        while a < p.t.len() && p.t[a] + to_sender - slack <= p.t[k] {
            if is_ack(p, dir, a) {
                acked = acked.max(p.ack[a]);
            }
            a += 1;
        }
        let (end, new) = (p.seq[k] + f64::from(p.len[k]), p.seq[k] >= high);
        high = high.max(end);
        if !new || (full_proven && p.len[k] + OPTION_SPACE >= full) || p.flags[k] & FIN != 0 {
            continue;
        }
        if small_end > acked && small_end <= p.seq[k] {
            return true;
        }
        small_end = end;
    }
    false
}

/// The smallest full segment: the MSS a sender uses when the peer sent no MSS option.
use crate::analysis::stalls::full_segment::DEFAULT_MSS as FULL_MIN;

/// The most a segment's TCP options take of its MSS (RFC 9293 §3.1: data offset ≤ 15 words).
const OPTION_SPACE: u32 = 40;

/// The give of a release timed against `to_sender` (s): the larger of a millisecond,
/// the capture clock's `tick` (NaN: unknown) and a quarter of that round trip (the
/// jitter of a queue on the way).
pub fn slack(to_sender: f64, tick: f64) -> f64 {
    [1e-3, tick, to_sender / 4.0].into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max)
}

/// A packet of the peer's carrying an ACK (no SYN).
fn is_ack(p: &PacketColumns, dir: u8, r: usize) -> bool {
    p.dir[r] != dir && p.flags[r] & SYN == 0 && p.ack[r].is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stalls::testkit::Cols;

    /// Review Y's HoneyNet_0110 conn 4, seen at the receiver with the sender 114 ms away
    /// (capture → sender → capture): a 1,024-byte segment (full: 1,460) at 12.000 s,
    /// ACKed at 12.106 s, the next 1,024 bytes at 12.183 s — 77 ms after that ACK, sooner
    /// than 114 ms less a quarter of it (85.5 ms): it left before the ACK reached the
    /// sender, while the first was unacknowledged. Nagle's algorithm is disproved.
    #[test]
    fn a_small_segment_sent_before_the_ack_of_the_one_before_disproves_nagle() {
        let mut c = Cols::new(65535.0);
        c.data(12.000, 0, 1.0, 1024);
        c.ack(12.106, 1, 1025.0, 65535.0);
        c.data(12.183, 0, 1025.0, 1024);
        assert!(nagle_disproved(&c.c.packets, 0, 1460, 0.114, slack(0.114, f64::NAN)));
        // 90 ms after the ACK (≥ 85.5 ms): it may have been released by it.
        let mut c = Cols::new(65535.0);
        c.data(12.000, 0, 1.0, 1024);
        c.ack(12.106, 1, 1025.0, 65535.0);
        c.data(12.196, 0, 1025.0, 1024);
        assert!(!nagle_disproved(&c.c.packets, 0, 1460, 0.114, slack(0.114, f64::NAN)));
        // Full segments and one small tail, back to back: Nagle (Minshall's too) sends a
        // full segment at once, and the tail is the only small one unacknowledged.
        let mut c = Cols::new(65535.0);
        c.data(1.000, 0, 1.0, 1460);
        c.data(1.000, 0, 1461.0, 1460);
        c.data(1.000, 0, 2921.0, 300);
        assert!(!nagle_disproved(&c.c.packets, 0, 1460, 0.114, slack(0.114, f64::NAN)));
    }

    /// petit conn 10 (PetitPotam UnPatchedDCOpenFileRaw, begun mid-stream, no MSS
    /// option): a lone 39-B write ACKed 41 ms later, then 791 B and 31 B together, 9.5 ms
    /// away. 791 B is the sender's largest payload, sent once: not shown full, so the
    /// 31 B left while 791 small bytes were unacknowledged — Nagle is disproved.
    #[test]
    fn a_lone_largest_segment_is_not_shown_full() {
        let mut c = Cols::new(1153.0);
        c.data(34.881177, 0, 1.0, 39);
        c.ack(34.922072, 1, 40.0, 1153.0);
        c.data(34.936922, 0, 40.0, 791);
        c.data(34.936922, 0, 831.0, 31);
        assert!(nagle_disproved(&c.c.packets, 0, 791, 0.0095, slack(0.0095, f64::NAN)));
        // The sender cut at 791 B twice: a full size, sent at once whatever is
        // unacknowledged (RFC 896); the 31-B tail is the only small one — not disproved.
        let mut c = Cols::new(1153.0);
        c.data(34.881177, 0, 1.0, 39);
        c.ack(34.922072, 1, 40.0, 1153.0);
        c.data(34.936922, 0, 40.0, 791);
        c.data(34.936922, 0, 831.0, 791);
        c.data(34.936922, 0, 1622.0, 31);
        assert!(!nagle_disproved(&c.c.packets, 0, 791, 0.0095, slack(0.0095, f64::NAN)));
    }

    /// Review Y's nfs_bad_stalls conn 2: a lone small write, the peer's ACK of it held,
    /// then a full 1,448-byte segment. Nagle never holds a full segment (RFC 896), so
    /// that gap is not Nagle's, lone write or not; a small segment after it may be.
    #[test]
    fn a_full_segment_after_a_lone_small_write_was_not_held_by_nagle() {
        // The sender's 1,448-B segments (twice: a size it cuts at, not one lone largest
        // payload standing in for a full segment where no MSS option was seen).
        let mut c = Cols::new(65535.0);
        let i = c.data(1.000, 0, 1.0, 100);
        c.ack(1.040, 1, 101.0, 65535.0);
        let full_row = c.data(1.041, 0, 101.0, 1448);
        c.data(1.042, 0, 1549.0, 1448);
        c.ack(1.100, 1, 2997.0, 65535.0);
        let j = c.data(2.000, 0, 2997.0, 100);
        let k = c.data(2.041, 0, 3097.0, 200);
        let p = &c.c.packets;
        assert!(!held_by_nagle(p, 0, i, full_row, 1448));
        assert!(held_by_nagle(p, 0, j, k, 1448));
        // One 1,448-B segment alone, the largest payload taken for a full one: not
        // known full, the lone write's rule stands.
        let mut c = Cols::new(65535.0);
        let i = c.data(1.000, 0, 1.0, 100);
        c.ack(1.040, 1, 101.0, 65535.0);
        let one = c.data(1.041, 0, 101.0, 1448);
        assert!(held_by_nagle(&c.c.packets, 0, i, one, 1448));
    }
}
