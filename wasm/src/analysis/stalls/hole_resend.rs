//! A gap ended by a flight that re-sends a hole the receiver had left open
//! (docs/ANALYSIS.md "Stall causes", `retransmission-timeout`, rule 2e; issue 39 review
//! AB class C-LOST-FLIGHT-AS-IDLE).
//!
//! Rule 5 of gaps.rs calls a gap the application's when the sender's next segment fit in
//! what it had had in flight and no ACK released it: nothing held the sender, so it had
//! nothing to send. That holds for new data only. When the receiver's cumulative ACK
//! stayed below what the sender had sent through the gap, a hole was open (data beyond
//! it had arrived: the receiver's SACK blocks, RFC 2018, or its duplicate ACKs said so),
//! and the sender HAD something to send: the hole's re-send (RFC 6675 §5, RFC 5681 §3.2).
//! Where the flight that ends the gap carries that re-send — first, as rule 2 reads it,
//! or right behind new data, in the same flight: captured before any ACK seen after the
//! gap could have reached the sender (half a sender lag) — and it came long after the
//! receiver's last feedback (`timer_driven`: a round trip and a half and more), what
//! ended the wait was the sender's timer (RFC 6298 §5, or RFC 8985's probe), not its
//! application's next write. Its first transmission, or an earlier re-send, was lost
//! before the receiver (the sender's IPv4 Identification often skips it). The same for
//! a gap rule 5 calls a wait on ACKs: the ACKs had said what was missing, and the sender
//! repaired it only on its timer (with fewer than three duplicate ACKs, RFC 5681 §3.2
//! gives it nothing else). ctfs write-ups-2015 strangeauthen sample_traffic.pcap
//! connection 36 (frames 1125 → 1189, 265 ms): a server pacing a segment every 12 ms
//! lost every other one (22797, 25373, 27949), two duplicate ACKs SACKed the rest, then
//! its last 1005 B of new data and, 12 ms behind, the three holes, one per 12 ms —
//! once read as idle time of its application.
//! Prachi-Sharnagat NetworkTrafficAnalysis tcp.pcapng connection 32 (a Windows client
//! downloading over TLS, captured at the client, 66 ms path): frames 2474 → 2479, 310 ms
//! with the client's ACK at 540593 and its SACK of 542053–543513 throughout; then new
//! data 543513 and, 232 µs later, the hole 540593 re-sent (an RTO by the counters), once
//! read "no ACK released it — it sent when its application had data".

use crate::analysis::format::{format_bytes, format_duration, format_timestamp};
use crate::analysis::loss::timer_driven::timer_driven;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::reordered;

/// Segments of the flight that ends a gap looked at, at most.
const FLIGHT_ROWS: usize = 64;

/// Re-labels `dir`'s `application-idle` and `ack-wait` stalls whose ending flight re-sent unacknowledged
/// data long after the receiver's last feedback (see the module doc). `lag_s`: the sender
/// lag (0 at the sender); `path_rtt_s`: the path RTT, if known.
pub fn reclassify(stalls: &mut [Stall], p: &PacketColumns, dir: u8, lag_s: f64, path_rtt_s: Option<f64>) {
    // Waits the capture shows with nothing lost: an idle application, or ACKs (rule 5).
    let waiting = |c: StallCause| matches!(c, StallCause::ApplicationIdle | StallCause::AckWait);
    if !stalls.iter().any(|s| waiting(s.cause)) {
        return;
    }
    let lag_s = lag_s.max(0.0);
    let mut running = Running { p, dir, next: 0, high: f64::NEG_INFINITY, acked: f64::NEG_INFINITY };
    for s in stalls.iter_mut().filter(|s| waiting(s.cause)) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        // A request of the peer in the gap: turn-taking, judged by the earlier rules.
        if p.peer_payload_in(i..j, dir) {
            continue;
        }
        // What was sent by the gap's start and acknowledged by its end: a hole open
        // throughout, or nothing to re-send.
        let sent = running.through(i).0;
        let ack = running.through(j.saturating_sub(1)).1;
        if !(ack < sent) {
            continue;
        }
        let Some(k) = hole_resend_in_flight(p, dir, j, (sent, ack), lag_s) else { continue };
        // The receiver's last feedback as the sender heard it: a re-send sooner than a
        // timer could fire after it was clocked by it (fast recovery: the gap was a wait
        // on those ACKs, and the earlier rules keep it).
        let last = (i + 1..k).rev().find(|&r| p.dir[r] != dir && p.t[r] + lag_s <= p.t[k]);
        let quiet_ns = last.map(|r| ((p.t[k] - p.t[r] - lag_s) * 1e9) as i64);
        let rtt_ns = path_rtt_s.map(|r| (r * 1e9) as i64);
        if !timer_driven(quiet_ns, rtt_ns, (lag_s * 1e9) as i64, true) {
            continue;
        }
        s.cause = StallCause::RetransmissionTimeout;
        let behind = match p.t[k] - p.t[j] {
            _ if k == j => String::new(),
            dt if dt < 1e-6 => ", in the flight that ended the gap, behind new data".to_string(),
            dt => format!(", {} after new data that began its flight", format_duration(dt)),
        };
        s.ended_by = format!(
            "a re-send at {} of {} the receiver had not acknowledged{behind}: its ACK stayed {} below what was \
             sent through the gap, so the sender had data to re-send and re-sent it only when its timer fired \
             (a retransmission timeout or a tail-loss probe), not when its application had data or an ACK came",
            format_timestamp(p.t[k]),
            format_bytes(f64::from(p.len[k])),
            format_bytes(sent - ack)
        );
    }
}

/// The sender's highest byte end and the receiver's cumulative ACK through a row, read
/// forward once: the stalls come in time order, so each row asked for is at or past the
/// last one (a row behind it starts the reading over). No per-row copy: a bulk
/// connection's rows are millions.
struct Running<'a> {
    p: &'a PacketColumns,
    dir: u8,
    /// The first row not read yet.
    next: usize,
    high: f64,
    acked: f64,
}

impl Running<'_> {
    /// (highest byte end sent, highest cumulative ACK) over rows 0..=`row`.
    fn through(&mut self, row: usize) -> (f64, f64) {
        if row + 1 < self.next {
            (self.next, self.high, self.acked) = (0, f64::NEG_INFINITY, f64::NEG_INFINITY);
        }
        let p = self.p;
        while self.next <= row && self.next < p.t.len() {
            let r = self.next;
            if p.dir[r] == self.dir && p.len[r] > 0 {
                self.high = self.high.max(p.seq[r] + f64::from(p.len[r]));
            } else if p.dir[r] != self.dir && p.ack[r].is_finite() {
                self.acked = self.acked.max(p.ack[r]);
            }
            self.next += 1;
        }
        (self.high, self.acked)
    }
}

/// The first re-send, of any bytes, that the capture saw in the flight starting at row `j`
/// (as [`hole_resend_in_flight`] bounds it): where a gap's timer re-sent data, that row is
/// the re-send, seen (verdict/diagnosis_episodes/timers.rs counts only the others unseen).
pub fn resend_in_flight(p: &PacketColumns, dir: u8, j: usize, lag_s: f64) -> Option<usize> {
    hole_resend_in_flight(p, dir, j, (f64::INFINITY, f64::NEG_INFINITY), lag_s.max(0.0))
}

/// The first segment of the flight starting at row `j` (`dir`'s segments captured before
/// any later ACK could have reached the sender and clocked them: within half a sender
/// lag of `j`, or, at the sender, before the capture's next packet of the peer) that
/// re-sends bytes in [ack, sent): the hole.
fn hole_resend_in_flight(p: &PacketColumns, dir: u8, j: usize, (sent, ack): (f64, f64), lag_s: f64) -> Option<usize> {
    let end = (j + FLIGHT_ROWS).min(p.t.len());
    for k in j..end {
        if p.dir[k] != dir {
            if lag_s == 0.0 {
                return None;
            }
            continue;
        }
        if p.t[k] - p.t[j] > 0.5 * lag_s {
            return None;
        }
        let f = p.flags[k];
        let resend = p.len[k] > 0 && f & flag_bits::ANY_RETRANSMISSION != 0 && !reordered(f) && f & flag_bits::SPURIOUS_RETRANSMISSION == 0;
        if resend && p.seq[k] < sent && p.seq[k] + f64::from(p.len[k]) > ack {
            return Some(k);
        }
    }
    None
}
