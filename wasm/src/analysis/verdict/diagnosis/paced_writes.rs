//! The sender's application pacing its writes with data in flight, in gaps shorter than
//! the stall threshold (issue 39 review X, class C-SUBTHRESHOLD-TIME-AS-PATH;
//! docs/ANALYSIS.md "diagnosis.text", *Paced writes below the stall threshold*).
//!
//! The share pass gives every interval with data outstanding below the receiver's
//! window and no loss to the congestion window or the path (`other`, RFC 4898's
//! SndLimTimeCwnd). An interactive sender (an RDP encoder writing a screen update every
//! 15 ms on a 42-ms path) keeps data in flight all the time, so its application's own
//! pauses fall there, each far below the stall threshold. A gap between two consecutive
//! segments of new data, from row `i` to row `k`, is the application's when:
//! - the segment at `i` carries PSH: the end of the data of a write (RFC 9293 §3.9.1;
//!   BSD and Linux push the last segment of each send call);
//! - the gap is at least `max(1 ms, a clock tick, RTT / 8)` — longer than a segment's
//!   spacing at the bottleneck — and shorter than the path RTT: no round of the ACK
//!   clock, since a window-limited sender waits a round trip for the ACKs of its flight;
//! - its window had room for a full segment more when `i` left: the bytes in flight
//!   then, as the sender knew them (the peer's ACKs replayed one capture → sender →
//!   capture lag late, timing/sender_view.rs), plus a full segment, were no more than
//!   the most it had in flight before, and than the receiver's window. A congestion
//!   window never shrinks below what the sender had in flight without a loss or an idle
//!   restart (RFC 5681 §3.1, §4.1), so that most is reset at every re-send and every
//!   stall;
//! - no ACK of the segment at `i` reached the sender before `k` left, give or take the
//!   slack of a release (stalls/nagle_shape.rs `slack`): nothing released `k` — Nagle's
//!   algorithm holding `k` for that ACK is nagle_holds.rs's, not this;
//! - the gap is none of the direction's stalls and overlaps no loss recovery.
//!
//! Each such gap is the application's time: a sender with data queued and room in both
//! windows sends at once. The sum is a lower bound (gaps of non-PSH writes and those
//! shorter than the floor are left to the path).

use crate::analysis::rows::columns::PacketColumns;
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::is_data_segment;
use crate::analysis::stalls::nagle_shape::slack;

const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
const PSH: u32 = crate::decode::tcp_flags::PSH as u32;

/// Gaps a total needs before it is said: one or two are no pace.
pub const MIN_GAPS: usize = 3;

/// The application's paced gaps ([`paced`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PacedWrites {
    pub count: usize,
    /// Their time, s.
    pub seconds: f64,
    /// The median gap, s.
    pub median_gap: f64,
    /// The median bytes in flight at the write before a gap, and the median most the
    /// sender had carried before it.
    pub median_in_flight: f64,
    pub median_peak: f64,
}

/// What a gap is judged against.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Path RTT, s.
    pub rtt: f64,
    /// Capture → sender → capture, s (0 at the sender).
    pub to_sender: f64,
    /// The capture clock's tick, s (NaN: unknown).
    pub tick: f64,
    /// A full segment's payload, bytes.
    pub full: f64,
    /// The transfer's end (capture time).
    pub until: f64,
}

/// The data direction `dir`'s gaps that its application paced (module comment), None
/// below [`MIN_GAPS`]. `loss_spans`: the share pass's recovery intervals (sender time,
/// which is capture time for the sender's own rows).
pub fn paced(p: &PacketColumns, dir: u8, stalls: &[Stall], loss_spans: &[(f64, f64)], s: Setting) -> Option<PacedWrites> {
    if !(s.rtt > 0.0 && s.full > 0.0) {
        return None;
    }
    let floor = [1e-3, s.tick, s.rtt / 8.0].into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max);
    let give = slack(s.to_sender, s.tick);
    let (mut acked, mut rwnd, mut a) = (f64::NEG_INFINITY, f64::INFINITY, 0);
    let (mut high, mut peak) = (f64::NEG_INFINITY, 0.0f64);
    // The previous new-data row, its bytes in flight, and the most before it.
    let mut prev: Option<(usize, f64, f64)> = None;
    let mut gaps: Vec<(f64, f64, f64)> = Vec::new();
    for k in (0..p.t.len()).filter(|&k| is_data_segment(p, k, dir) && p.flags[k] & SYN == 0) {
        if p.t[k] > s.until {
            break;
        }
        while a < p.t.len() && p.t[a] + s.to_sender <= p.t[k] {
            if p.dir[a] != dir && p.flags[a] & SYN == 0 && p.ack[a].is_finite() {
                acked = acked.max(p.ack[a]);
                rwnd = if p.win[a].is_finite() { p.win[a] } else { rwnd };
            }
            a += 1;
        }
        let end = p.seq[k] + f64::from(p.len[k]);
        let stalled = stalls.iter().any(|st| st.start < p.t[k] && st.start + st.duration > p.t[k] - s.rtt);
        if p.seq[k] < high || stalled {
            // A re-send (a loss: the window shrank) or an idle restart: nothing proven.
            (peak, prev) = (0.0, None);
            high = high.max(end);
            continue;
        }
        high = end;
        if !acked.is_finite() {
            continue; // no ACK has reached the sender yet: its bytes in flight unknown
        }
        let in_flight = (high - acked).max(0.0);
        if let Some((i, fl, most)) = prev {
            if writes_gap(p, dir, (i, k), fl, most, rwnd, loss_spans, (floor, give, s)) {
                gaps.push((p.t[k] - p.t[i], fl, most));
            }
        }
        prev = Some((k, in_flight, peak));
        peak = peak.max(in_flight);
    }
    if gaps.len() < MIN_GAPS {
        return None;
    }
    let med = |f: fn(&(f64, f64, f64)) -> f64| {
        let mut v: Vec<f64> = gaps.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Some(PacedWrites {
        count: gaps.len(),
        seconds: gaps.iter().map(|g| g.0).sum(),
        median_gap: med(|g| g.0),
        median_in_flight: med(|g| g.1),
        median_peak: med(|g| g.2),
    })
}

/// Whether the gap from row `i` (new data, `in_flight` bytes then, `most` the most
/// before) to row `k` is the application's (module comment). `(floor, give, s)`: the
/// least gap, the release slack, the setting.
#[allow(clippy::too_many_arguments)]
fn writes_gap(p: &PacketColumns, dir: u8, (i, k): (usize, usize), in_flight: f64, most: f64, rwnd: f64, loss_spans: &[(f64, f64)], (floor, give, s): (f64, f64, Setting)) -> bool {
    let gap = p.t[k] - p.t[i];
    if p.flags[i] & PSH == 0 || gap < floor || gap >= s.rtt {
        return false;
    }
    if in_flight + s.full > most || in_flight + s.full > rwnd {
        return false; // no room proven: the window may have held it
    }
    if loss_spans.iter().any(|&(a, b)| a < p.t[k] && b > p.t[i]) {
        return false;
    }
    let end = p.seq[i] + f64::from(p.len[i]);
    // An ACK of the write reaching the sender before `k` left may have released it.
    !(i + 1..k).any(|r| p.dir[r] != dir && p.flags[r] & SYN == 0 && p.ack[r] >= end && p.t[r] + s.to_sender - give <= p.t[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stalls::testkit::{Cols, PSH as TK_PSH};

    /// An RDP-like server seen at the client, 42 ms away (capture → sender → capture):
    /// first a 12-segment flight of 1,273 B (15,276 B in flight: the most it carried),
    /// ACKed at once by the client; then a screen update every 15 ms, each a 1,273-B
    /// segment and a 379-B one with PSH (1,652 B), ACKed at once. When each update's
    /// last segment left, the ACKs of the updates before it had not yet reached the
    /// server (they pass the capture at once and need 42 ms more), so it had at most
    /// three updates in flight: 3 × 1,652 = 4,956 B, plus a full segment 6,229 B ≤
    /// 15,276 B. Each 15-ms gap (≥ 42 / 8 = 5.25 ms, < 42 ms) after a PSH with room
    /// in the window is the encoder's pace.
    fn rdp(updates: usize, psh: bool) -> Cols {
        let mut c = Cols::new(262144.0);
        let mut seq = 1.0;
        for n in 0..12 {
            c.data(1.0 + 0.0001 * n as f64, 0, seq, 1273);
            seq += 1273.0;
        }
        c.ack(1.0013, 1, seq, 262144.0);
        for u in 0..updates {
            let t = 1.2 + 0.015 * u as f64;
            let r = c.data(t, 0, seq, 1273);
            if !psh {
                c.c.packets.flags[r] &= !TK_PSH;
            }
            let r = c.data(t + 0.0001, 0, seq + 1273.0, 379);
            if !psh {
                c.c.packets.flags[r] &= !TK_PSH;
            }
            seq += 1652.0;
            c.ack(t + 0.0002, 1, seq, 262144.0);
        }
        c
    }

    const AT_CLIENT: Setting = Setting { rtt: 0.042, to_sender: 0.042, tick: f64::NAN, full: 1273.0, until: f64::INFINITY };

    #[test]
    fn writes_every_15_ms_with_room_in_the_window_are_the_applications() {
        let c = rdp(10, true);
        let w = paced(&c.c.packets, 0, &[], &[], AT_CLIENT).expect("paced");
        // 10 updates: 9 gaps between them, each 15 ms less the 0.1 ms between an
        // update's two segments (the 379-B PSH segment to the next update's first) —
        // 14.9 ms × 9 = 134.1 ms. The first flight's gaps (0.1 ms) are below the floor,
        // and the gap from its last segment to the first update (199.9 ms) is ≥ the RTT.
        assert_eq!(w.count, 9);
        assert!((w.seconds - 0.1341).abs() < 1e-9, "{w:?}");
        assert_eq!(w.median_peak, 15276.0);
        // In flight at the 3rd update on: its own 1,652 B and the two before it.
        assert_eq!(w.median_in_flight, 4956.0);
    }

    #[test]
    fn no_psh_no_room_or_a_release_by_the_ack_is_no_pace() {
        // Writes without PSH: not known to be a write's end.
        let c = rdp(10, false);
        assert_eq!(paced(&c.c.packets, 0, &[], &[], AT_CLIENT), None);
        // The same at the sender (no lag): each update's ACK reaches it 0.2 ms after the
        // update, before the next left — the next may have been released by it.
        let c = rdp(10, true);
        assert_eq!(paced(&c.c.packets, 0, &[], &[], Setting { to_sender: 0.0, ..AT_CLIENT }), None);
        // A cwnd-limited sender: 4 segments per 15 ms and never more than 4 full
        // segments in flight — no room for a fifth beyond the most it carried.
        // Each flight ACKed 0.5 ms after it, the ACK reaching the sender 14 ms later,
        // 0.5 ms before its next flight: 4 segments (5,092 B) in flight at every
        // flight's end, the most it ever carried.
        let mut c = Cols::new(262144.0);
        let mut seq = 1.0;
        for u in 0..10 {
            let t = 1.0 + 0.015 * u as f64;
            for n in 0..4 {
                c.data(t + 0.0001 * n as f64, 0, seq, 1273);
                seq += 1273.0;
            }
            c.ack(t + 0.0005, 1, seq, 262144.0);
        }
        let legs = Setting { to_sender: 0.014, rtt: 0.024, ..AT_CLIENT };
        assert_eq!(paced(&c.c.packets, 0, &[], &[], legs), None);
    }

    #[test]
    fn a_re_send_resets_what_the_window_is_known_to_hold() {
        // A re-send of the first segment just before the updates: the window after a
        // loss is not known to hold 15,276 B, and 3 updates' 4,956 B is the most since.
        let mut c = rdp(0, true);
        let seq = 1.0 + 12.0 * 1273.0;
        c.data(1.1, 0, 1.0, 1273);
        let mut s = seq;
        for u in 0..10 {
            let t = 1.2 + 0.015 * u as f64;
            c.data(t, 0, s, 1273);
            c.data(t + 0.0001, 0, s + 1273.0, 379);
            s += 1652.0;
            c.ack(t + 0.0002, 1, s, 262144.0);
        }
        assert_eq!(paced(&c.c.packets, 0, &[], &[], AT_CLIENT), None);
    }
}
