//! Long bursts (the `transfer` episode, or `loss` where it re-sent): a burst between
//! the application's pauses that lasted many round trips is a transfer, not a message,
//! and what paced it is the network's business, not the application's (issue 39
//! review O, class C-BURST-UNEXPLAINED).
//!
//! The application headline explains the pauses between bursts. Where one burst also
//! took a large part of the time, the headline alone ("the applications' turns, not the
//! network, set the pace") leaves that burst unexplained and clears the network of it
//! without evidence. A burst is diagnosed here when:
//! - it lasted at least [`TRANSFER_ROUND_TRIPS`] path RTTs (less the sender's own
//!   pauses inside it): a message the network delivers in a flight or two lasts about
//!   one round trip; one that lasts many went through many windows;
//! - it moved at least an initial window of new data (savings.rs `bulk_line`, RFC 6928:
//!   10 full segments up to 14,600 B, at least two above; as savings.rs calls a burst
//!   bulk): a message of a
//!   few segments that its timer re-sent lasts many round trips too (an `outage`);
//! - it took at least [`TRANSFER_SHARE`] of the active time, and the application's
//!   pauses took as much, they and the turns more than any other share: where the
//!   network's share is larger, the headline already diagnoses the burst (a flow of
//!   request/response turns with a loss headline once read its reply as "a transfer");
//! - no slow-burst episode covers it already, and the application's pauses inside it
//!   (as the shares count them, in the sender's time) took at most [`TRANSFER_SHARE`]
//!   of it: a source on a clock, each of whose gaps is its own pause, is no transfer
//!   (a live stream's 61-ms records, a 2.5-ms clock once read "a transfer");
//! - and the capture shows what paced it: re-sends in it (loss, RFC 5681 §3.2: the
//!   sender halves its rate on each loss event), or its segments came full-sized and
//!   evenly spaced for most of its time ([`EVEN_TIME`], each gap within [`EVEN_SPACING`]
//!   of the median gap). Full-sized segments mean the sender had more data queued than
//!   one segment (a sending application that wrote at a steady pace would send its
//!   writes' sizes); evenly spaced means something downstream of that queue spaced
//!   them: the bottleneck link (packets leave a bottleneck one transmission time apart,
//!   Jacobson 1988's ACK clock, Keshav 1991's packet pair) or the sender's congestion
//!   control pacing to it. Either way the network's pace, not the application's. A
//!   segment is full-sized from the full segment size to [`ONE_SEGMENT`] times it: a
//!   larger frame is several segments handed over at once (TSO/GRO), spaced by its host.
//!
//! Without that evidence nothing is said: a burst limited by the receiver's window or
//! sent in clumps is left to the headline's shares.

use super::slow_bursts::Burst;
use crate::analysis::format::{format_bytes, format_duration, format_percent, format_rate, format_timestamp, plural};
use crate::analysis::report::{ConnectionSummary, Episode};
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::delayed_ack::full_segment;
use crate::analysis::stalls::{is_data_segment, mss_estimate, needless};
use crate::analysis::verdict::diagnosis_shares::TimeShares;

/// A burst lasting at least this many path RTTs is a transfer.
pub const TRANSFER_ROUND_TRIPS: f64 = 4.0;
/// Least share of the active time the burst, and the pauses, each took.
pub const TRANSFER_SHARE: f64 = 0.25;
/// A gap is even when within this fraction of the median gap.
pub const EVEN_SPACING: f64 = 0.5;
/// Least share of the burst's time in even gaps for "evenly spaced".
pub const EVEN_TIME: f64 = 0.75;
/// Least share of the burst's segments at the full segment size.
pub const FULL_SHARE: f64 = 0.9;
/// A segment larger than this many full segments is a frame of several (TSO/GRO).
pub const ONE_SEGMENT: f64 = 1.1;
/// A median gap of fewer ticks of the capture clock is the clock, not a pace.
pub const MIN_GAP_TICKS: f64 = 10.0;

/// How the burst's segments were spaced: the median gap (s), the rate it implies (bit/s)
/// and the share of the burst's time in even gaps.
struct Pace {
    gap: f64,
    bps: f64,
    even: f64,
}

/// The loss in a burst: re-sends that repaired something, the span from its first hole
/// or re-send to its last re-send.
struct Loss {
    resends: u32,
    from: f64,
    to: f64,
}

/// `path_rtt`: s (0 or NaN: unknown, and nothing is said); `taken`: episodes already
/// found (a slow-burst run covering the burst says it).
pub(super) fn long_bursts(conn: &ConnectionSummary, p: &PacketColumns, bursts: &[Burst], sh: &TimeShares, (path_rtt, tick): (f64, f64), taken: &[Episode]) -> Vec<Episode> {
    let pauses = sh.application + sh.turn_time;
    let largest_other = [sh.loss, sh.receive_window, sh.stalled, sh.other].into_iter().fold(0.0, f64::max);
    if !(path_rtt > 0.0 && sh.active > 0.0) || sh.application < TRANSFER_SHARE * sh.active || pauses < largest_other {
        return Vec::new();
    }
    // A stop-and-wait sender (sender_paced.rs) set its bursts' pace: one segment per round trip.
    if sh.sender_paced.is_some_and(|p| matches!(p.kind, crate::analysis::verdict::diagnosis_shares::sender_paced::PacedKind::StopAndWait { .. })) {
        return Vec::new();
    }
    let d = conn.data_direction.min(1);
    let full = f64::from(full_segment(&conn.handshake, &conn.directions[d as usize].from, p, d, mss_estimate(p, d) as u32));
    let mut out = Vec::new();
    for b in bursts {
        if b.took() < TRANSFER_ROUND_TRIPS * path_rtt || b.end - b.start < TRANSFER_SHARE * sh.active || !(b.bytes >= crate::analysis::verdict::savings::bulk_line(full)) {
            continue;
        }
        if taken.iter().any(|e| e.start < b.end && e.end > b.start && matches!(e.kind, "loss" | "delay-spike")) {
            continue;
        }
        // The sender's application paused inside it, as the shares count its time (a
        // source on a clock whose every gap is its own): not one transfer.
        if !(app_paused_within(sh, b.start, b.end) <= TRANSFER_SHARE * (b.end - b.start)) {
            continue;
        }
        let (pace, loss) = inside(p, d, b, (full, tick));
        if pace.is_none() && loss.is_none() {
            continue;
        }
        out.push(episode(b, path_rtt, pace, loss));
    }
    out
}

/// Seconds of the application's pauses (the shares' `bursts`: intervals counted as the
/// application's, in the sender's time) that ended within (a, b]; infinite where the
/// pauses kept stop before b (more than `MAX_BURSTS`): unknown.
fn app_paused_within(sh: &TimeShares, a: f64, b: f64) -> f64 {
    let p = &sh.bursts;
    if p.pauses > p.starts.len() as u64 && p.starts.last().is_none_or(|&t| t <= b) {
        return f64::INFINITY;
    }
    p.starts.iter().zip(&p.pause_s).filter(|&(&t, _)| t > a && t <= b).map(|(_, &s)| s).sum()
}

/// The pace (where even) and the loss (where any) of one burst's data segments.
fn inside(p: &PacketColumns, d: u8, b: &Burst, (full, tick): (f64, f64)) -> (Option<Pace>, Option<Loss>) {
    let from = p.t.partition_point(|&t| t < b.start);
    let to = p.t.partition_point(|&t| t <= b.end);
    let rows: Vec<usize> = (from..to).filter(|&i| is_data_segment(p, i, d)).collect();
    let mut loss: Option<Loss> = None;
    for &i in &rows {
        let resend = p.flags[i] & flag_bits::ANY_RETRANSMISSION != 0 && !needless(p.flags[i]);
        if resend || p.flags[i] & flag_bits::LOST_SEGMENT != 0 {
            let l = loss.get_or_insert(Loss { resends: 0, from: p.t[i], to: p.t[i] });
            if resend {
                l.resends += 1;
                l.to = p.t[i];
            }
        }
    }
    let loss = loss.filter(|l| l.resends > 0);
    // Full-sized: one segment, not a frame of several (TSO/GRO at a host capture, whose
    // spacing is the host's hand-off, not the path's).
    let full_share = rows.iter().filter(|&&i| f64::from(p.len[i]) >= full && f64::from(p.len[i]) <= ONE_SEGMENT * full).count() as f64 / rows.len().max(1) as f64;
    let mut gaps: Vec<f64> = rows.windows(2).map(|w| p.t[w[1]] - p.t[w[0]]).collect();
    if gaps.is_empty() || !(full > 0.0) || full_share < FULL_SHARE {
        return (None, loss);
    }
    let even_time = {
        let mut sorted = gaps.clone();
        sorted.sort_by(f64::total_cmp);
        let gap = sorted[sorted.len() / 2];
        gaps.retain(|g| (g - gap).abs() <= EVEN_SPACING * gap);
        (gap, gaps.iter().sum::<f64>() / (b.end - b.start))
    };
    let (gap, even) = even_time;
    let pace = (gap >= MIN_GAP_TICKS * tick && gap > 0.0 && even >= EVEN_TIME).then(|| Pace { gap, bps: 8.0 * full / gap, even });
    (pace, loss)
}

fn episode(b: &Burst, path_rtt: f64, pace: Option<Pace>, loss: Option<Loss>) -> Episode {
    let span = b.end - b.start;
    let mut text = format!(
        "During {}–{} one burst moved {} in {} ({:.0} round trips) at {}: a transfer, not one message",
        format_timestamp(b.start),
        format_timestamp(b.end),
        format_bytes(b.bytes),
        format_duration(span),
        b.took() / path_rtt,
        format_rate(8.0 * b.bytes / span)
    );
    if let Some(p) = &pace {
        text += &format!(
            "; its segments came full-sized and evenly spaced, a median {} apart ({}) for {} of it: \
             the sender had data waiting, and the path's bottleneck or its congestion control set that pace",
            format_duration(p.gap),
            format_rate(p.bps),
            format_percent(p.even)
        );
    }
    if let Some(l) = &loss {
        text += &format!(
            "; it re-sent {} during {}–{}, a loss episode inside the transfer",
            plural(u64::from(l.resends), "segment"),
            format_timestamp(l.from),
            format_timestamp(l.to)
        );
    }
    Episode { start: b.start, end: b.end, kind: if loss.is_some() { "loss" } else { "transfer" }, text: text + "." }
}
