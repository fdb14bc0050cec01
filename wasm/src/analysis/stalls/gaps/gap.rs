//! The state of one gap in a direction's data while the pass of gaps.rs walks it, and
//! what the sender's own sends show of the room it had (was it held by the window, its
//! congestion window or Nagle's algorithm when the gap began?).

use super::peer_timer_resend;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};

/// State of the gap currently open after the last data segment (a field not set where
/// it opens starts at its default: no probe, no reply, nothing re-sent).
#[derive(Default)]
pub(super) struct Gap {
    pub(super) index: usize,
    /// Highest sequence sent (end of data) at the last data segment.
    pub(super) high: f64,
    /// Something was unacknowledged at the start of the gap.
    pub(super) unacked_at_start: bool,
    pub(super) window_limited: bool,
    pub(super) zero_window: bool,
    /// Time at which the peer's cumulative ACK reached `high`.
    pub(super) all_acked_at: Option<f64>,
    /// That ACK rode on a payload segment of the peer (its next request).
    pub(super) acked_by_payload: bool,
    /// ... on the peer's first payload in the gap, which echoes (TSecr) the TSval of the
    /// sender's last data segment (`ANSWERS_PEER_DATA`): the peer had received the
    /// retransmission, and held its ACK (delayed, RFC 9293 §3.8.6.3) until its next
    /// request carried it. Without timestamps this is never known.
    pub(super) acked_by_request: bool,
    /// Time of the peer's last ACK that advanced the ACK or changed the window.
    pub(super) last_peer_update: Option<f64>,
    /// The peer's last payload-carrying segment during the gap: (time, bytes).
    pub(super) peer_reply: Option<(f64, u32)>,
    /// Zero-window probes the sender sent during the gap.
    pub(super) probes: u32,
    /// The last data segment before the gap re-sent bytes (loss recovery in progress),
    /// and not on the peer's ACKs: a fast retransmission (`resends::ack_clocked`) leaves
    /// the sender waiting on ACKs, not on a timer.
    pub(super) resent_before: bool,
    /// The peer's last packet during the gap, in the sender's time.
    pub(super) last_peer_at: Option<f64>,
    /// The peer's payload during the gap was a retransmission (its request was lost
    /// and its own timer re-sent it): (time, bytes) of the last such segment.
    pub(super) peer_resent: Option<(f64, u32)>,
    /// When the peer first sent the request its timer re-sent ([`original_sent`]), in
    /// the sender's time: set at the gap's first such re-send; None where the capture
    /// holds no earlier copy of those bytes in the rows looked back.
    pub(super) peer_request_sent: Option<f64>,
    /// The end (sequence number) of the peer's last timer re-send in the gap.
    pub(super) peer_request_end: f64,
    /// When the peer's first payload in the gap that re-sends nothing came (the sender's
    /// time): its application's turn ended there, whatever came after.
    pub(super) peer_first_new: Option<f64>,
    /// When the peer's last such payload in the gap came (the sender's time): its own
    /// transfer ran until then (peer_transfer.rs).
    pub(super) peer_last_new: Option<f64>,
    /// Payload of the last data segment before the gap, bytes.
    pub(super) last_len: f64,
    /// [`not_held`] found the sender free by its lone segment in flight.
    pub(super) lone: bool,
    /// Bytes in flight at the last data segment before the gap (with it), in the
    /// sender's time.
    pub(super) flight: f64,
    /// The most bytes in flight the sender had at any data segment since its last
    /// re-send, up to the gap ([`SendRoom`]).
    pub(super) most_in_flight: f64,
    /// Nagle's algorithm was shown off before the gap ([`SendRoom::nagle_off`]): a socket
    /// option a sender may set mid-connection (OpenSSH sets TCP_NODELAY when a session
    /// turns interactive), so only what came before counts.
    pub(super) nagle_off: bool,
    /// The last data segment before the gap was smaller than a full one.
    pub(super) small_last: bool,
    /// The sender was not held when the gap closed ([`not_held`]), set as it closes.
    pub(super) not_held: bool,
    /// ... shown by the last ACK in the gap coming long before the new data
    /// ([`acked_long_before`]), not by a quiet gap or Nagle's algorithm off.
    pub(super) freed_long_before: bool,
    /// The peer's cumulative ACK at its latest packet in the gap (NaN before any).
    pub(super) acked_to: f64,
}

impl Gap {
    /// The peer's packet `i`, at `t` in the sender's time, during the gap: `changed` its
    /// ACK advanced or its window changed; `peer_ack`, `peer_win` the peer's latest.
    pub(super) fn on_peer(&mut self, cols: &PacketColumns, i: usize, t: f64, changed: bool, peer_ack: f64, peer_win: f64) {
        self.last_peer_at = Some(t);
        self.acked_to = peer_ack;
        if changed {
            self.last_peer_update = Some(t);
        }
        let first_reply = self.peer_reply.is_none();
        if cols.len[i] > 0 {
            if cols.flags[i] & flag_bits::ANY_RETRANSMISSION == 0 {
                self.peer_first_new.get_or_insert(t);
                self.peer_last_new = Some(t);
            }
            self.peer_reply = Some((t, cols.len[i]));
            if peer_timer_resend(cols.flags[i]) {
                if self.peer_resent.is_none() {
                    // The sender's time of a peer row is its capture time + the lag.
                    self.peer_request_sent = original_sent(cols, i).map(|k| cols.t[k] + (t - cols.t[i]));
                }
                self.peer_resent = Some((t, cols.len[i]));
                self.peer_request_end = cols.seq[i] + f64::from(cols.len[i]);
            }
        }
        if peer_win == 0.0 {
            self.zero_window = true;
        }
        if self.all_acked_at.is_none() && peer_ack >= self.high {
            self.all_acked_at = Some(t);
            self.acked_by_payload = cols.len[i] > 0;
            self.acked_by_request = cols.len[i] > 0 && first_reply && cols.flags[i] & flag_bits::ANSWERS_PEER_DATA != 0;
        }
    }
}

/// Rows looked back from a peer's re-send for its first transmission.
const ORIGINAL_LOOK_BACK: usize = 256;

/// The row of the first captured transmission of the bytes re-sent at row `i`: the
/// earliest data segment of the same sender, no re-send itself, whose bytes hold the
/// re-send's first byte, among the [`ORIGINAL_LOOK_BACK`] rows before it.
fn original_sent(cols: &PacketColumns, i: usize) -> Option<usize> {
    let (dir, seq) = (cols.dir[i], cols.seq[i]);
    (i.saturating_sub(ORIGINAL_LOOK_BACK)..i).find(|&k| {
        cols.dir[k] == dir
            && cols.len[k] > 0
            && cols.flags[k] & flag_bits::ANY_RETRANSMISSION == 0
            && cols.seq[k] <= seq
            && seq < cols.seq[k] + f64::from(cols.len[k])
    })
}

/// What the sender's own sends show of its room, carried along its data segments in
/// its time: the most it had in flight since its last re-send, and whether it runs
/// without Nagle's algorithm.
#[derive(Default)]
pub(super) struct SendRoom {
    most_in_flight: f64,
    /// End of the last segment smaller than a full one the sender sent.
    small_end: f64,
    /// The sender sent a segment smaller than a full one while an earlier small one of
    /// its own was unacknowledged: Nagle's algorithm is off (RFC 896 holds a small
    /// segment while any data is unacknowledged; Linux's, after Minshall, while a
    /// small one is), TCP_NODELAY.
    pub(super) nagle_off: bool,
}

impl SendRoom {
    /// A data segment of `len` bytes ending at `end`, `flight` in flight with it,
    /// `resent` re-sending bytes, `peer_ack` the peer's latest ACK, `mss` a full
    /// segment's payload. The most in flight since the last re-send, with it.
    pub(super) fn on_data(&mut self, end: f64, len: f64, flight: f64, resent: bool, peer_ack: f64, mss: f64) -> f64 {
        if resent {
            // A loss shrinks the congestion window (RFC 5681 §3.1, §3.2): what the
            // sender had in flight before says nothing of its room after.
            self.most_in_flight = 0.0;
        } else if len < mss {
            if self.small_end > 0.0 && peer_ack.is_finite() && peer_ack < self.small_end {
                self.nagle_off = true;
            }
            self.small_end = end;
        }
        if flight.is_finite() {
            self.most_in_flight = self.most_in_flight.max(flight);
        }
        self.most_in_flight
    }
}

/// Whether the sender was shown free to send when a gap that began with data in flight
/// (and not at the peer's window, rule 4) closed with `len` new bytes: no window held
/// it and no ACK released them, so no ACK is what it waited on (`ack-wait` needs that
/// evidence), and the gap was its own schedule — its application.
/// Room: bytes in flight at the gap's start plus the new segment are at most one full
/// segment (`full`; a congestion window counted in bytes is never below one, RFC 5681
/// §3.1's loss window, so a tail loss probe, which sends new data on a timer only with
/// the congestion window full, RFC 8985 §7.3, is not this) and no more than the sender
/// already had in flight since its last re-send (a window counted in segments held that
/// many: a congestion window shrinks only on a loss, RFC 5681 §3.1).
/// Released by nothing: no ACK advanced and no window changed during the gap (an ACK
/// clocks out held data, RFC 5681 §3; Nagle's algorithm releases a small segment on an
/// ACK, RFC 896), or the sender is seen sending small segments behind unacknowledged
/// small ones before the gap, so Nagle's algorithm holds nothing (`SendRoom::nagle_off`),
/// or the last ACK came long before the new data ([`acked_long_before`]).
/// `t1`: when the new data was sent (the sender's time); `path_rtt_s`: the path RTT.
/// Sets `not_held` and `freed_long_before` of the gap as it closes. `ack_may_follow`: a
/// packet of the peer's that the sender's time places just after the new data may have
/// reached the sender before it ([`ack_may_follow`]).
pub(super) fn not_held(g: &mut Gap, len: f64, full: f64, (t0, t1): (f64, f64), path_rtt_s: Option<f64>, ack_may_follow: bool) {
    (g.not_held, g.freed_long_before, g.lone) = (false, false, false);
    if !g.unacked_at_start || g.window_limited {
        return;
    }
    let after = g.flight + len;
    if after <= full && after <= g.most_in_flight && (g.last_peer_update.is_none() || g.nagle_off) {
        g.not_held = true;
        return;
    }
    // One segment in flight (everything before the gap's last segment acknowledged), no
    // ACK advanced and no window changed during the gap, and the new data sent sooner
    // than any timer of the sender's could have sent it: with one segment in flight the
    // probe timeout is 2·SRTT + the peer's worst-case delayed ACK, 200 ms (RFC 8985
    // §7.2; Linux adds its 200 ms minimum RTO likewise), and a timeout re-sends old data.
    // Only an ACK or a window update releases what a congestion window, the receive
    // window or Nagle's algorithm holds (RFC 5681 §3, RFC 896), and none came: the
    // sender sent when its application wrote — the peer holding its ACK of a lone
    // segment (delayed ACK, RFC 1122 §4.2.3.2) ended nothing.
    if g.last_peer_update.is_none() && g.flight <= g.last_len && t1 - t0 < LONE_SEGMENT_PTO_MIN_S && !ack_may_follow {
        (g.not_held, g.lone) = (true, true);
        return;
    }
    // After that ACK the new segment fit in what the sender had had in flight (its
    // congestion window held that much, and an ACK that released nothing shrinks none).
    let after_ack = if g.acked_to.is_finite() { (g.high - g.acked_to).max(0.0) + len } else { f64::INFINITY };
    g.freed_long_before = !ack_may_follow && after_ack <= g.most_in_flight && acked_long_before(g, t1, t0, path_rtt_s);
    g.not_held = g.freed_long_before;
}

/// The least probe timeout with one segment in flight, s: RFC 8985 §7.2's 2·SRTT +
/// WCDelAckT, the receiver's worst-case delayed ACK (200 ms), SRTT left at 0.
const LONE_SEGMENT_PTO_MIN_S: f64 = 0.2;

/// Whether a packet of the peer's captured before the new data at row `j` (time `t1`) may
/// have reached the sender before it though the sender's time (sender_view.rs: capture
/// time + `lag_s`) places it after: captured between a sender lag and half of one before
/// it. A sender lag is the path's jitter apart from the lag of any one packet, and half
/// of it is the margin the timer rules allow (unseen_timeout.rs `clocked`). One step
/// back per row of the last sender lag.
pub(super) fn ack_may_follow(cols: &PacketColumns, j: usize, lag_s: f64) -> bool {
    if !(lag_s > 0.0) {
        return false;
    }
    let (t1, dir) = (cols.t[j], cols.dir[j]);
    (0..j).rev().take_while(|&k| cols.t[k] >= t1 - lag_s).any(|k| cols.dir[k] != dir && t1 - cols.t[k] >= 0.5 * lag_s)
}

/// The peer's last ACK or window change in the gap came at least half the gap and at
/// least a path round trip (at least `IDLE_MIN_S`) before the new data at `t1`: what
/// an ACK releases leaves at once (a congestion window clocks data out on each ACK's
/// arrival, RFC 5681 §3; Nagle's algorithm sends the held segment when the ACK comes,
/// RFC 896), within the sender's own reaction time, so data sent that much later was
/// not waiting on that ACK, and no later one came. A 50 Hz stream of one small segment
/// per period once read "new data after an ACK" for an ACK of the previous period that
/// reached the sender 20 ms before the next period's segment.
fn acked_long_before(g: &Gap, t1: f64, t0: f64, path_rtt_s: Option<f64>) -> bool {
    g.last_peer_update.is_some_and(|tu| {
        let since = t1 - tu;
        since >= 0.5 * (t1 - t0) && since >= path_rtt_s.unwrap_or(0.0).max(super::IDLE_MIN_S)
    })
}

/// What ended a gap [`not_held`] judged the application's, in words.
pub(super) fn not_held_words(g: &Gap, len: u32, t1: f64) -> String {
    let flight = crate::analysis::format::format_bytes(g.flight);
    if g.freed_long_before {
        let since = g.last_peer_update.map_or(0.0, |tu| t1 - tu);
        let unacked = crate::analysis::format::format_bytes((g.high - g.acked_to).max(0.0));
        return format!(
            "new data ({len} bytes) sent with {unacked} unacknowledged, no more than the sender had had in flight before, {} after the last ACK in the gap (an ACK releases held data at once): no ACK released it — it sent when its application had data",
            crate::analysis::format::format_duration(since)
        );
    }
    if g.lone {
        return format!(
            "new data ({len} bytes) with only the {}-byte segment before the gap unacknowledged and no ACK or window update during the gap: no ACK released it (what a window or Nagle's algorithm holds leaves on one), and no timer of the sender's fires this soon with one segment in flight (RFC 8985 §7.2: 2·SRTT + 200 ms) — it sent when its application wrote; the peer holding its ACK of a lone segment (delayed ACK, RFC 1122 §4.2.3.2) ended nothing",
            g.last_len
        );
    }
    if g.last_peer_update.is_none() {
        format!(
            "new data ({len} bytes) sent with {flight} unacknowledged and no ACK during the gap: at most one full segment in flight, as much as the sender had had before, so no window held it — it sent when its application had data"
        )
    } else {
        format!(
            "new data ({len} bytes) sent with {flight} unacknowledged: at most one full segment in flight, as much as the sender had had before, and it sends small segments without waiting on ACKs, so the ACK before it did not release it — it sent when its application had data"
        )
    }
}
