//! An outage whose re-sends the receiver had already (every one needless): what the
//! capture shows of the receiver's ACKs decides what the outage says
//! (docs/ANALYSIS.md "Episodes", outage). "Its ACKs were lost or held on the way back"
//! needs the ACKs to be missing; a receiver that acknowledged each re-send at the
//! capture point (RFC 9293 §3.10.7.4: a duplicate is answered with an ACK at once) sent
//! them, and the sender went on re-sending: they were lost beyond this capture point,
//! or the sender did not accept them — and where a second sender wrote into the
//! stream (two_senders.rs) the ACK acknowledges bytes this sender never sent, which it
//! drops (the same section).

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::track::two_senders::thousands;

/// Slack on top of two path round trips for an ACK to count as the answer to a re-send:
/// wherever the capture is, the receiver's answer to a segment passes it within one
/// round trip of the segment (at the receiver at once, at the sender one RTT later).
const ANSWER_SLACK_S: f64 = 0.010;

/// For each timeout re-send in (a, b): the receiver's first packet after it within two
/// path RTTs + [`ANSWER_SLACK_S`] whose ACK covers the re-sent bytes. Some((count,
/// longest wait, first re-send's row, its ACK's row)) when every re-send has one.
fn acked_at_once(conn: &ConnectionSummary, stalls: &[Stall], packets: &PacketColumns, a: f64, b: f64) -> Option<(u32, f64, usize, usize)> {
    let d = conn.data_direction.min(1);
    let bound = 2.0 * conn.path_rtt_ms.unwrap_or(0.0) / 1000.0 + ANSWER_SLACK_S;
    let (mut n, mut longest, mut first) = (0u32, 0.0f64, None);
    for s in stalls.iter().filter(|s| s.cause.is_timer() && s.start >= a && s.start < b) {
        let (_, j) = packets.rows_of(s.frame_before, s.frame_after, s.start, s.duration)?;
        let end = packets.seq[j] + f64::from(packets.len[j]);
        let k = (j + 1..packets.t.len()).take_while(|&k| packets.t[k] <= packets.t[j] + bound).find(|&k| packets.dir[k] != d && packets.ack[k] >= end)?;
        n += 1;
        longest = longest.max(packets.t[k] - packets.t[j]);
        first.get_or_insert((j, k));
    }
    first.map(|(fj, fk)| (n, longest, fj, fk))
}

/// The receiver's first packet before row `j` (a re-send of direction `d`) whose ACK
/// already covered the re-sent bytes, if any: the receiver had them since then. Read back
/// from the re-send through the receiver's packets while their ACK covers the bytes.
fn acked_before(packets: &PacketColumns, d: u8, j: usize) -> Option<usize> {
    let end = packets.seq[j] + f64::from(packets.len[j]);
    (0..j).rev().filter(|&i| packets.dir[i] != d).take_while(|&i| packets.ack[i] >= end).last()
}

/// The outage's sentence when every re-send in it was needless; None: the capture does
/// not show the ACKs, and "lost or held on the way back" stands.
pub(super) fn words(conn: &ConnectionSummary, stalls: &[Stall], packets: &PacketColumns, a: f64, b: f64, timers: &str) -> Option<String> {
    let (n, longest, j, k) = acked_at_once(conn, stalls, packets, a, b)?;
    let (fj, fk) = (packets.frame[j], packets.frame[k]);
    let span = format!("{} during {}–{}", format_duration(b - a), format_timestamp(a), format_timestamp(b));
    let each = if n == 1 { "the re-send".to_string() } else { format!("each of the {n} re-sends") };
    let first = if n == 1 { "" } else { "first: " };
    let seen = format!("{each} was acknowledged at this capture point within {} ({first}frame {fj} → {fk})", format_duration(longest));
    let d = conn.data_direction.min(1);
    let refused = conn.two_senders.as_deref().filter(|t| t.direction == d).and_then(|t| t.other.as_ref()?.refused_acks);
    // One re-send, acknowledged at once, ended the outage: nothing shows an ACK lost or
    // refused, nor that the receiver had the bytes (review W, HTTP_1.pcapng #46: a re-send
    // that filled the hole the receiver's SACK showed read "yet it re-sent again").
    if n == 1 && refused.is_none() {
        // The receiver's cumulative ACK covered the whole copy before it was captured: the
        // copy was needless and the wait was on that ACK's way back (review AJ
        // C-DSACK-ACK-TOLD-AS-ACKNOWLEDGED, kannaammulu25 udp.pcapng #6: frame 105
        // acknowledged 8877 at 0.942 s, the timer re-sent 7609–8877 at 1.646 s and frame
        // 165 reported the copy as a duplicate). Only of this re-send: other holes may still
        // be open (rx-outage-in-recovery.pcap frame 2077, review AK). A copy that merged
        // segments the receiver partly lacked was needed though its D-SACK covers a part
        // (review AK: edalakaveri tcp.pcapng #13 frame 1043): the words of an ACK then stand.
        return Some(match acked_before(packets, d, j) {
            Some(p) => format!(
                "The sender waited {span} before it re-sent: {timers}; the receiver had acknowledged those bytes {} earlier (frame {}) and acknowledged the copy again as a duplicate (frame {fj} → {fk}): that ACK had not reached the sender in time — lost, held on the way back or still under way — so this re-send repaired nothing.",
                format_duration(packets.t[j] - packets.t[p]),
                packets.frame[p]
            ),
            None => format!("The sender waited {span} before it re-sent: {timers}; {seen}, and the transfer went on."),
        });
    }
    Some(match refused {
        Some([own, ack]) => format!(
            "The sender re-sent data the receiver already had for {span}: {timers}; {seen}, but with ACK {}, beyond the {} this sender reached (relative): the receiver acknowledged another sender's bytes (see the two-senders warning), and a TCP drops an ACK of bytes it never sent (RFC 9293 §3.10.7.4), so it re-sent again.",
            thousands(ack),
            thousands(own)
        ),
        None => format!(
            "The sender re-sent data the receiver already had for {span}: {timers}; {seen}, yet it re-sent again: those ACKs were lost beyond this capture point or the sender did not accept them."
        ),
    })
}
