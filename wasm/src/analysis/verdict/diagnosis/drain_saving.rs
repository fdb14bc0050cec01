//! The `stalls` saving of waits during which the ACK clock ran (issue 39 review V class
//! C-QUEUE-DRAIN-AS-NAGLE; docs/ANALYSIS.md "Savings"). A wait on ACKs in which the
//! receiver's cumulative ACK kept advancing ([`ticking`], the test `clocked_waits` uses)
//! was the bottleneck still delivering what had been sent: removing the wait cannot make
//! those bytes arrive faster than the path delivers. So its part of the saving is what
//! is left beyond the longer of a round trip and the time the bytes those ACKs covered
//! take at the best rate the receiver's ACKs showed delivered (delivered.rs `best_bps`);
//! none where that rate is unknown. A Windows upload capped at 8 KiB in flight over a
//! ~250 kbit/s uplink (AdvaithD wireshark-tcp `tcp-ethereal-trace-1`) once read "would
//! have taken about 647 ms instead of 5.3 s": 164 KB in 647 ms is 2 Mbit/s, eight times
//! what its ACKs ever showed.

use super::Facts;
use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::verdict::savings;

// Waits that were one round trip of the path as loaded then (review X, C-LOADED-RTT-AS-STALL).
#[path = "loaded_round.rs"]
pub(super) mod loaded_round;

/// The ACK clock during an `ack-wait` stall of direction `d` (its data): the times the
/// receiver's cumulative ACK advanced in it and the bytes it advanced by — when it
/// advanced at least `MIN_CLOCKED_ACKS` times with no ACK-free stretch of half the wait
/// (ACKs all in the wait's last instant are its end, not a clock); None otherwise.
pub(super) fn ticking(p: &PacketColumns, d: u8, s: &Stall) -> Option<(usize, f64)> {
    if s.cause != StallCause::AckWait {
        return None;
    }
    let (i, j) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration)?;
    let from = (0..=i).filter(|&r| p.dir[r] != d && p.ack[r].is_finite()).map(|r| p.ack[r]).fold(f64::NEG_INFINITY, f64::max);
    let (mut last, mut advances) = (f64::NEG_INFINITY, 0usize);
    let (mut tick_at, mut longest_silence) = (s.start, 0.0f64);
    for r in i + 1..j {
        if p.dir[r] != d && p.ack[r] > last {
            advances += usize::from(last.is_finite());
            last = p.ack[r];
            longest_silence = longest_silence.max(p.t[r] - tick_at);
            tick_at = p.t[r];
        }
    }
    longest_silence = longest_silence.max(s.start + s.duration - tick_at);
    let acked = if from.is_finite() { (last - from).max(0.0) } else { 0.0 };
    (advances + 1 >= super::MIN_CLOCKED_ACKS && longest_silence < 0.5 * s.duration).then_some((advances + 1, acked))
}

/// Lowers the `stalls` saving of `f` by what its clocked waits could not have saved
/// ([`cap_clocked`]), then prices its other waits at the round trip the path had at
/// each (loaded_round.rs).
pub(super) fn cap(f: &mut Facts) {
    cap_clocked(f);
    loaded_round::reprice(f);
}

/// Lowers the `stalls` saving of `f` by what its clocked waits could not have saved.
fn cap_clocked(f: &mut Facts) {
    let p = f.rows.packets;
    let d = f.conn.data_direction.min(1);
    let rtt = savings::round_trip_s(f.conn);
    let rtt = if rtt.is_finite() && rtt > 0.0 { rtt } else { 0.0 };
    let stalls = crate::analysis::verdict::peer_silent::stalls_within(&f.conn.directions[d as usize].stalls, f.sh);
    let mut best = f64::NAN;
    let mut cut = 0.0;
    for s in stalls.iter() {
        let Some((_, acked)) = ticking(p, d, s) else { continue };
        if best.is_nan() {
            best = f.delivered().best_bps;
        }
        let busy = if best.is_finite() && best > 0.0 { acked * 8.0 / best } else { s.duration };
        cut += (s.duration - rtt).max(0.0) - (s.duration - rtt.max(busy)).max(0.0);
    }
    if cut <= 0.0 {
        return;
    }
    for sv in f.savings.iter_mut().filter(|sv| sv.limit == "stalls") {
        sv.seconds -= cut;
    }
    f.savings.retain(|s| s.seconds.is_finite() && s.seconds > 1e-9);
    f.savings.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
}
