//! The loss rules of the headline (diagnosis.rs `headline`): what a loss cost, whether
//! it mattered, whether the capture shows one at all, and recovery that kept the
//! bottleneck busy (issue 39 review I class D).

use super::*;
// The control without a queue: the flow before its first loss.
#[path = "loss_slowed.rs"]
mod loss_slowed;
pub(super) use loss_slowed::{sentence as no_cut_sentence, BeforeLoss};

/// Re-books the loss-recovery time of `sh` that cost nothing (see
/// [`recovery_at_full_rate`]) to the congestion window or the path: recovery that
/// delivered at the flow's rate cost only its re-sent bytes, and the rest of its time is
/// what it would have been without the loss. The finding, or None.
pub(super) fn rebook_recovery(sh: &mut TimeShares, delivered: &OnceCell<DeliveredRates>, rows: Rows, d: u8, rtts: (f64, f64, bool), lag_s: f64) -> Option<RecoveryAtFullRate> {
    let r = recovery_at_full_rate(sh, delivered, rows, d, rtts, lag_s)?;
    sh.loss -= r.rebooked;
    sh.other += r.rebooked;
    Some(r)
}

/// The rate a loss-based sender (Reno/CUBIC in its TCP-friendly region) reaches at
/// loss rate p: MSS/RTT × √(3/2) / √p (Mathis, Semke, Mahdavi & Ott, "The
/// macroscopic behavior of the TCP congestion avoidance algorithm", CCR 1997), bit/s.
pub(super) fn mathis_rate(f: &Facts) -> f64 {
    let p = loss_rate(f);
    let mss = segment_bytes(f);
    if p <= 0.0 || !(f.min_rtt > 0.0) || mss <= 0.0 {
        return f64::NAN;
    }
    mss * 8.0 / f.min_rtt * (1.5f64).sqrt() / p.sqrt()
}

/// A sender that beat the loss-based bound this many times did not back off on loss.
pub const BEATS_MATHIS: f64 = 3.0;

/// Loss is headlined only if removing it would matter (issue 13): a sender held down
/// by loss runs near the Mathis rate; one that runs far above it (BBR paces at the
/// bottleneck rate and barely reacts to random loss) lost only the retransmitted
/// bytes and the timeouts, which `loss_cheap_text` quantifies. RTO stalls always
/// matter (nothing moved).
pub(super) fn loss_matters(f: &Facts) -> bool {
    let bound = mathis_rate(f);
    let rto = f.sh.stall_by_cause[2];
    let beat_the_bound = bound.is_finite() && f.rate > BEATS_MATHIS * bound;
    // Recovery pinned the window (the hole holds snd_una, RFC 6675): time lost to loss.
    let blocked = f.sh.loss_window_blocked >= 0.5 * f.sh.loss;
    // Recovery delivered no less than the flow before any loss (loss_slowed.rs): a rate
    // at the Mathis bound is then the flow's own, not a window loss cut.
    if f.recovery_at_full_rate.is_some_and(|r| r.before.is_some()) {
        return false;
    }
    !beat_the_bound || blocked || loss_cost(f) >= LOSS_COST_MATTERS || rto >= 0.5 * f.sh.loss
}


/// Loss is headlined when it cost at least this share of the rate.
pub const LOSS_COST_MATTERS: f64 = 0.1;

/// What loss cost a sender that did not back off: how far the rate its receiver's
/// ACKs report delivered stayed below its sustained best once the start-up ramp was
/// over (delivered.rs: the steady mean against the p90, over bins of at least 100 ms
/// or 4 path RTTs), and never less than the retransmitted share. A sender at the
/// link's rate throughout (BBR pacing through random loss) loses only what it sent
/// twice; the ramp before it first reached its best is slow start or BBR's startup,
/// not loss (a BBR download of 2 s over an 80 ms path: 15 Mbit/s on average, 19 once
/// started, on a 20 Mbit/s link).
pub(super) fn loss_cost(f: &Facts) -> f64 {
    let DeliveredRates { best_bps: best, steady_mean_bps: steady } = f.delivered();
    let shortfall = if best.is_finite() && best > 0.0 && steady.is_finite() { (1.0 - steady / best).max(0.0) } else { 0.0 };
    shortfall.max(loss_rate(f))
}

/// A loss the capture shows: a retransmission, a datagram of the sender its IPv4
/// numbering says never reached the capture, a re-send the receiver's SACK blocks
/// prove, or a retransmission-timeout stall (the auditor's rule 4, audit.rs).
pub(super) fn loss_shown(f: &Facts) -> bool {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    retransmissions(f) > 0 || sender.unseen_datagrams.unwrap_or(0) > 0 || sender.unseen_resends > 0 || f.sh.stall_by_cause[2] > 0.0
}

/// Loss recovery that delivered at the flow's sustained best (see [`recovery_at_full_rate`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct RecoveryAtFullRate {
    /// Seconds of the loss-recovery intervals (not the timer stalls).
    pub(super) seconds: f64,
    /// Their delivered rate, the rate outside recovery, and the flow's sustained best
    /// (delivered.rs), bit/s.
    pub(super) rate_bps: f64,
    pub(super) outside_bps: f64,
    pub(super) best_bps: f64,
    /// Seconds moved from the loss share to the congestion window / path's.
    pub(super) rebooked: f64,
    /// Without a standing queue: the flow before its first loss, which delivered no
    /// more than recovery did (loss_slowed.rs).
    pub(super) before: Option<BeforeLoss>,
}

/// Time in loss recovery is time lost to loss only where recovery delivered less than
/// the flow did without it. SACK recovery with proportional rate reduction sends one
/// segment per segment delivered (RFC 6675, RFC 6937): behind a bottleneck whose queue
/// never drained (a shaper) the link keeps running at its rate while the holes are
/// repaired, and what the loss cost is only the bytes sent twice. So where the
/// receiver reported data delivered during the recovery intervals (the highest byte
/// its cumulative ACK or a SACK block's right edge names, RFC 2018 §3, as delivered.rs
/// counts it: the cumulative ACK alone stands still on the hole) at no less than
/// [`RECOVERY_AT_OUTSIDE`] of its rate outside recovery (the `other` intervals:
/// `TimeShares::other_delivered`) and of [`RECOVERY_OF_BEST`] of the flow's sustained
/// best (delivered.rs `best_bps`), the recovery time counts as loss only in the
/// re-sent bytes' share; the rest is booked with the congestion window or the path.
/// Only behind a standing queue (median RTT at least [`STANDING_QUEUE_RATIO`] × the path
/// RTT and [`QUEUE_MIN_DELAY_S`] above it): a sender that kept the bottleneck's buffer
/// full (a loss-based sender overflowing it, or a model-based one pacing at its rate
/// through random loss), whose queue kept the link busy through the repair, whatever
/// dropped the segments. Without one (a loss-based sender on a path with room),
/// recovery's cost is the congestion window it cuts, spent after it in `other` time
/// (see the module comment), and the recovery time stays the loss's measure. A standing
/// queue upstream of the capture by the sender's TCP timestamps (`upstream`, timing/ts_clock.rs)
/// is one as well: a receiver-side capture's RTT never shows a queue before it. Only where recovery took
/// at least [`LOSS_SHARE_MIN`] of the time and the flow spent
/// at least as long outside it as a tenth of that (a rate to compare with), without the
/// timer stalls, which delivered nothing.
pub(super) fn recovery_at_full_rate(sh: &TimeShares, delivered: &OnceCell<DeliveredRates>, rows: Rows, d: u8, (min_rtt, median_rtt, upstream): (f64, f64, bool), lag_s: f64) -> Option<RecoveryAtFullRate> {
    let seconds = sh.loss - sh.stall_by_cause[2] - sh.stall_by_cause[6];
    let outside = sh.other;
    // A standing queue at the bottleneck: it stayed full, so it had data to send
    // while the holes were repaired.
    let standing_queue = upstream || (median_rtt >= STANDING_QUEUE_RATIO * min_rtt && median_rtt - min_rtt >= QUEUE_MIN_DELAY_S);
    if !(sh.active > 0.0 && seconds >= LOSS_SHARE_MIN * sh.active && outside >= 0.1 * seconds && sh.other_delivered > 0.0 && sh.data_bytes > 0.0 && !sh.loss_spans_cut) {
        return None;
    }
    let outside_bps = sh.other_delivered * 8.0 / outside;
    let rate_bps = delivered_within(&sh.loss_spans, rows, d, lag_s) * 8.0 / seconds;
    // No queue: the flow before its first loss is the control, and only where no timer
    // stall stopped it (a timeout resets the window to one segment, RFC 5681 §3.1).
    // Nor where request/response turns and the sender's own pauses together took a
    // quarter of the time: a loss in a short reply costs it round trips, not a rate, and
    // the rates outside recovery and before the first loss average those pauses in: any
    // recovery inside a burst beats them (review AK: public/examples twin-rr-loss.pcap #6,
    // 24 % turns + 34 % application, read "delivery did not clearly slow" at 3.4 Mbit/s
    // against 968 kbit/s outside recovery, where each loss cost its answer a round trip).
    let paused = sh.turn_time + sh.application >= 0.25 * sh.active;
    let before = (!standing_queue && !paused && sh.stall_by_cause[2] + sh.stall_by_cause[6] <= 0.0)
        .then(|| loss_slowed::before_first_loss(&sh.loss_spans, rows, d, min_rtt, |s| delivered_within(s, rows, d, lag_s)))
        .flatten();
    let best_bps = delivered.get_or_init(|| delivered::delivered_rates(rows.packets, rows.sacks, d, min_rtt)).best_bps;
    let cleared = match before {
        _ if standing_queue => best_bps.is_finite() && rate_bps >= RECOVERY_AT_OUTSIDE * outside_bps && rate_bps >= RECOVERY_OF_BEST * best_bps,
        Some(b) => loss_slowed::not_slowed(rate_bps, outside_bps, b.rate_bps),
        None => false,
    };
    if !cleared {
        return None;
    }
    let resent = (sh.retransmitted_bytes / sh.data_bytes).clamp(0.0, 1.0);
    // Without a queue, recovery after the last new data was sent held the transfer's end
    // until the repairs came: that wait stays the loss's (loss_slowed.rs `tail`).
    let before = before.map(|b| BeforeLoss { tail: loss_slowed::tail(&sh.loss_spans, rows, d), ..b });
    let kept = before.map_or(0.0, |b| b.tail.min(seconds));
    Some(RecoveryAtFullRate { seconds, rate_bps, outside_bps, best_bps, rebooked: (seconds - kept) * (1.0 - resent), before })
}

/// Bytes the peer reported delivered (delivered.rs `for_each_delivery`: what its
/// cumulative ACK and SACK blocks report held, RFC 2018 §3) while the sender's time
/// (the peer's packets `lag_s` later, sender_view.rs) was inside one of `spans`
/// (sorted, disjoint).
fn delivered_within(spans: &[(f64, f64)], rows: Rows, d: u8, lag_s: f64) -> f64 {
    let lag = if lag_s.is_finite() && lag_s > 0.0 { lag_s } else { 0.0 };
    let (mut span, mut total) = (0usize, 0.0);
    delivered::for_each_delivery(rows.packets, rows.sacks, d, &mut |t, bytes| {
        let at = t + lag;
        while span < spans.len() && spans[span].1 < at {
            span += 1;
        }
        if span < spans.len() && spans[span].0 <= at {
            total += bytes;
        }
    });
    total
}

/// Recovery delivering at this share of the rate outside it cost nothing but its re-sends.
pub const RECOVERY_AT_OUTSIDE: f64 = 0.9;
/// … and at least this share of the flow's sustained best.
pub const RECOVERY_OF_BEST: f64 = 0.75;
/// Median RTT / path RTT from which a queue is taken as standing for
/// [`recovery_at_full_rate`]: a tenth more than the path, every round trip.
pub const STANDING_QUEUE_RATIO: f64 = 1.1;

/// "The sender was in loss recovery 88 % of the time, yet its receiver reported
/// 1.5 Mbit/s delivered meanwhile, as much as outside recovery (…)".
pub(super) fn recovery_at_full_rate_sentence(f: &Facts, r: &RecoveryAtFullRate) -> String {
    if let Some(before) = &r.before {
        return no_cut_sentence(f, r, before);
    }
    format!(
        "The sender was in loss recovery {} of the time, yet its receiver reported {} delivered meanwhile, \
         no less than outside recovery ({}; its sustained best {}): recovery kept the bottleneck busy, so \
         the loss cost only the re-sent bytes ({} of the time), not the rate.",
        format_percent(r.seconds / f.sh.active),
        format_rate(r.rate_bps),
        format_rate(r.outside_bps),
        format_rate(r.best_bps),
        format_percent(f.shares.loss)
    )
}
