//! Whether loss slowed delivery at all where no queue shows (issue 39 review AH class
//! C-LOSS-HEADLINE-WITHOUT-RATE-DROP): time with a hole open is not time lost to loss.
//! SACK recovery keeps new data flowing while the holes are repaired (RFC 6675 §5: each
//! ACK that reports data delivered lets the sender send more), so a recovery interval
//! costs what it delivered less than the flow did without loss, not its length.
//!
//! recovery.rs `recovery_at_full_rate` compares the recovery intervals with the time
//! outside them. Without a standing queue that alone does not clear the loss: a
//! loss-based sender cuts its congestion window at every loss (RFC 5681 §3.2:
//! ssthresh = FlightSize / 2; CUBIC's β = 0.7, RFC 9438 §4.6), and the cut window is
//! spent after recovery, in the "outside" time too, so both would be slow together. The
//! control for that is the flow before any loss: where the receiver reported data
//! delivered during recovery more than [`CUT_LEAVES`] × both the rate outside recovery
//! and the rate in the last [`BEFORE_RTTS`] round trips before the first recovery opened
//! (a head no longer growing: a slow start's receiver reports a round trip late the
//! flights below the peak the loss ended, so a growing head is no control), no window
//! cut held the flow and the loss cost only what was sent twice, and the wait for the
//! last repairs after the last new data. vijay8098 `wireshark.pcapng` connection 0:
//! 150–250 kbit/s before the first hole (3.28 s), 270–330 kbit/s while holes were open,
//! "Loss limited this flow … 45 % of the time recovering" before.

use super::*;

/// Round trips before the first recovery whose delivered rate is the control.
pub const BEFORE_RTTS: f64 = 2.0;
/// Round trips of loss-free flow the first recovery must follow: a shorter head is the
/// first flights of slow start (RFC 6928's initial window, doubling per round trip),
/// too little to have reached the rate the window would give.
pub const BEFORE_MIN_RTTS: f64 = 4.0;

/// The head's last [`BEFORE_RTTS`] round trips delivering more than this × the ones
/// before them is a head still growing (slow start), no control.
pub const HEAD_GROWTH: f64 = 1.5;

/// The flow before its first loss ([`before_first_loss`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::analysis::verdict::diagnosis) struct BeforeLoss {
    /// When the first recovery opened (sender time, s).
    pub(in crate::analysis::verdict::diagnosis) at: f64,
    /// Seconds measured before it, and the rate the receiver reported delivered then, bit/s.
    pub(in crate::analysis::verdict::diagnosis) seconds: f64,
    pub(in crate::analysis::verdict::diagnosis) rate_bps: f64,
    /// Seconds of recovery after the sender's last new data ([`tail`]).
    pub(in crate::analysis::verdict::diagnosis) tail: f64,
}

/// Seconds of the recovery `spans` after the data direction `d` first sent its highest
/// byte: no new data was left to flow while the holes were repaired, so the transfer's
/// end waited on the repairs (a short download whose last segments were lost waits a
/// round trip or more for them, whatever its rate: OISF `tls-subjectaltname` #15, holes
/// at 29.234 s repaired at 29.261 s and 29.279 s after its last new data at 29.241 s).
pub(in crate::analysis::verdict::diagnosis) fn tail(spans: &[(f64, f64)], rows: Rows, d: u8) -> f64 {
    let p = rows.packets;
    let (mut high, mut at) = (f64::NEG_INFINITY, f64::NAN);
    for r in (0..p.t.len()).filter(|&r| p.dir[r] == d && p.len[r] > 0) {
        let end = p.seq[r] + f64::from(p.len[r]);
        if end > high {
            (high, at) = (end, p.t[r]);
        }
    }
    if !at.is_finite() {
        return 0.0;
    }
    spans.iter().map(|&(a, b)| (b - a.max(at)).max(0.0)).sum()
}

/// The delivered rate in the last [`BEFORE_RTTS`] round trips (`rtt`, s) before the first
/// recovery interval of `spans` opened, where the data direction `d` had sent data for at
/// least [`BEFORE_MIN_RTTS`] round trips by then; None otherwise (no control: the loss
/// keeps its share). `delivered_within` counts what the receiver's cumulative ACK and
/// SACK blocks report held (recovery.rs).
pub(in crate::analysis::verdict::diagnosis) fn before_first_loss(spans: &[(f64, f64)], rows: Rows, d: u8, rtt: f64, delivered_within: impl Fn(&[(f64, f64)]) -> f64) -> Option<BeforeLoss> {
    let at = spans.first()?.0;
    let p = rows.packets;
    let first = (0..p.t.len()).find(|&r| p.dir[r] == d && p.len[r] > 0).map(|r| p.t[r])?;
    if !(rtt > 0.0 && at - first >= BEFORE_MIN_RTTS * rtt) {
        return None;
    }
    let seconds = BEFORE_RTTS * rtt;
    let rate_bps = delivered_within(&[(at - seconds, at)]) * 8.0 / seconds;
    // A head still growing is slow start (the window doubles per round trip, RFC 5681
    // §3.1), and what its receiver reported in the last round trips is the flights sent
    // a round trip earlier, below the peak the loss ended: no control. asyncrat
    // `30a385ed` #14: 2.9, 5.7, 11.4, 17.3 kB per round trip up to the loss, 5.7–9.9 after.
    let earlier = delivered_within(&[(at - 2.0 * seconds, at - seconds)]) * 8.0 / seconds;
    if rate_bps > HEAD_GROWTH * earlier {
        return None;
    }
    (rate_bps > 0.0).then_some(BeforeLoss { at, seconds, rate_bps, tail: 0.0 })
}

/// A window cut leaves a loss-based sender at most this share of its rate: CUBIC's
/// multiplicative decrease (RFC 9438 §4.6, β = 0.7), the mildest of the standard ones
/// (Reno's is 0.5, RFC 5681 §3.2; a timeout's a single segment, §3.1).
pub const CUT_LEAVES: f64 = 0.7;

/// Loss did not clearly slow delivery: recovery delivered (`rate`, bit/s) more than
/// [`CUT_LEAVES`] of both loss-free references, the time outside recovery (`outside`)
/// and the round trips before the first loss (`before`): more than any window cut would
/// have left, so no cut held the flow, and the holes were repaired while new data kept
/// arriving.
pub(in crate::analysis::verdict::diagnosis) fn not_slowed(rate: f64, outside: f64, before: f64) -> bool {
    rate.is_finite() && outside.is_finite() && before.is_finite() && rate > CUT_LEAVES * outside.max(before)
}

/// The sentence where recovery was cleared by the flow before the loss (`before`): "The
/// sender had a loss to repair 45 % of the time (8 re-sent segments), yet delivery did not
/// clearly slow: …, so the loss was repaired without slowing the flow (SACK recovery …)".
pub(in crate::analysis::verdict::diagnosis) fn sentence(f: &Facts, r: &RecoveryAtFullRate, before: &BeforeLoss) -> String {
    format!(
        "The sender had a loss to repair {} of the time ({}), yet delivery did not clearly slow: its receiver \
         reported {} delivered meanwhile, against {} outside recovery and {} in the {} before the first loss \
         at {}, more than the {:.0} % of them a congestion window cut would leave (CUBIC's β, RFC 9438). The \
         loss was repaired without slowing the flow (SACK recovery sends new data while the holes are filled, \
         RFC 6675), so it cost about the re-sent bytes{} ({} of the time).",
        format_percent(r.seconds / f.sh.active),
        crate::analysis::format::plural(retransmissions(f), "re-sent segment"),
        format_rate(r.rate_bps),
        format_rate(r.outside_bps),
        format_rate(before.rate_bps),
        format_duration(before.seconds),
        format_timestamp(before.at),
        CUT_LEAVES * 100.0,
        if before.tail > 0.0 { format!(" and the {} the transfer's end waited on the last repairs", format_duration(before.tail)) } else { String::new() },
        format_percent(f.shares.loss)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_above_what_a_window_cut_leaves_is_not_slowed() {
        // vijay8098 conn 0: 184 kbit/s in recovery, 188 outside, 250 before the first loss:
        // 184 > 0.7 × 250 = 175, not slowed.
        assert!(not_slowed(184_111.0, 187_818.0, 250_086.0));
        // Reno's halving: 125 of 250 before the loss, slowed whatever the time outside.
        assert!(!not_slowed(125_000.0, 130_000.0, 250_000.0));
        // CUBIC's cut to exactly 0.7 is a cut: not cleared (strictly more is asked).
        assert!(!not_slowed(175_000.0, 175_000.0, 250_000.0));
        // Slower than outside recovery by more than a cut, though above the head: slowed.
        assert!(!not_slowed(100_000.0, 200_000.0, 90_000.0));
        // No reference measured: nothing cleared.
        assert!(!not_slowed(184_111.0, f64::NAN, 250_086.0));
    }
}
