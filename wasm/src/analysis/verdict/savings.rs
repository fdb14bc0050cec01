//! What would have made the transfer faster, and by how much (issue 39 item 4): for each
//! limit whose cost the capture can price, the seconds its removal would have saved,
//! everything else as it was. The headline names the largest saving (diagnosis.rs
//! `headline`), and its sentence quotes it ("would have taken about X instead of Y").
//!
//! Each saving is a removal, at the rates the flow had (Zhang et al.'s T-RAT asks which
//! factor limited the rate; this asks what the factor cost, as RFC 4898's SndLim
//! timers would let a sender's stack answer):
//! - `application`: the time the sender had nothing outstanding and nothing to send
//!   (the share, idle stalls included) — gone if the data had always been ready — but
//!   only the sender's own waits: where the peer sent data in a pause, the pause until
//!   the peer's last message was the wait for it — the peer's time to send it and the
//!   path's to bring it (`TimeShares::peer_time`) — and only the rest, that message →
//!   the sender's data, was
//!   the sender's (issue 39 review P class C-SAVING-NOT-THE-SENDERS: an RDP user's input
//!   cadence and a browser's 424 ms before its next GET once counted as the server's).
//!   With a part of the peer's left out the saving is a lower bound of what the
//!   applications (both ends) cost (`at_least`): the headline does not yield on it;
//! - `zero-window`: the zero-window stalls — gone if the receiving application had read
//!   in time (RFC 9293 §3.8.6.2.2: a zero window is a full receive buffer);
//! - `stalls`: each wait on ACKs or of unknown cause, less the one round trip any
//!   ACK takes (a delayed ACK's hold, a path that held the data: the part beyond the
//!   round trip is what was lost);
//! - `loss`, at least: each timer stall less one round trip (the timer in place of a
//!   fast retransmission, RFC 6298 vs RFC 5681 §3.2), plus the rest of the recovery
//!   time times the rate the loss cost (diagnosis/recovery.rs `loss_cost`: the delivered rate's
//!   shortfall once started, at least the re-sent share). Only a lower bound: a
//!   loss-based sender (Reno, CUBIC) also runs below its link after recovery, on the
//!   congestion window the loss cut (Mathis et al. 1997), and what it would have run at
//!   needs the link's rate — so a loss headline never yields to another limit on this
//!   number, and its sentence does not quote it (a CUBIC flow at 7 of 50 Mbit/s held
//!   by 2.5 % loss is not "1.4 s instead of 1.5 s" without it).
//!
//! The receive window and the path have no saving here: what a larger window or a
//! faster link would give depends on a link rate the capture shows only where a queue
//! filled (diagnosis.rs `link_rate`), so none is claimed.

use crate::analysis::verdict::diagnosis_shares::{Bursts, TimeShares};
use crate::analysis::stalls::cause::Stall;
// The shape of one saving is the report's (report.rs), under its path before the rooms.
pub use crate::analysis::report::Saving;

/// The round trip a wait is priced against ([`savings`]), s: the path RTT, else, at a
/// receiver-side capture that never measured the far part, that part as the receiver's
/// ACKs and the data each released put it (stalls/far_estimate.rs, the data sender's
/// lag: the same estimate sets the stall threshold, so the stalls and their price read
/// one round trip); NaN when neither is known. FTPS data behind a lossy capture, 341 ms
/// estimated: "about 32 s instead of 92 s" had taken no round trip off its 6 waits.
pub fn round_trip_s(conn: &crate::analysis::report::ConnectionSummary) -> f64 {
    match conn.path_rtt_ms {
        Some(ms) => ms / 1000.0,
        None if conn.sender_lag_ms > 0.0 => conn.sender_lag_ms / 1000.0,
        None => f64::NAN,
    }
}

/// The savings of the data direction, largest first, only those above zero.
/// `stalls`: the data direction's; `path_rtt`: seconds ([`round_trip_s`]), NaN when
/// unknown (then no round trip is taken off); `loss_cost`: the share of the rate the
/// loss cost, 0..1.
pub fn savings(sh: &TimeShares, stalls: &[Stall], path_rtt: f64, loss_cost: f64) -> Vec<Saving> {
    let rtt = if path_rtt.is_finite() && path_rtt > 0.0 { path_rtt } else { 0.0 };
    let beyond_round_trip = |causes: &[usize]| -> f64 {
        stalls.iter().filter(|s| causes.contains(&s.cause.share_slot())).map(|s| (s.duration - rtt).max(0.0)).sum()
    };
    // A wait on re-sends the capture did not see (slot 6) is priced as a timer's: a
    // repair takes a round trip at best.
    let timers = beyond_round_trip(&[2, 6]);
    let recovery_rest = (sh.loss - sh.stall_by_cause[2] - sh.stall_by_cause[6]).max(0.0);
    let mut out = vec![
        Saving { limit: "application", seconds: own_waits(sh), at_least: sh.peer_time > 0.0 },
        Saving { limit: "zero-window", seconds: sh.stall_by_cause[0], at_least: false },
        Saving { limit: "stalls", seconds: beyond_round_trip(&[4, 5]), at_least: false },
        Saving { limit: "loss", seconds: timers + recovery_rest * loss_cost.clamp(0.0, 1.0), at_least: true },
    ];
    out.retain(|s| s.seconds.is_finite() && s.seconds > 0.0);
    out.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    out
}

/// The sender's own waits of the application's time: not its own rate (sender_paced.rs,
/// which no readier data removes) nor the peer's time to send its next message
/// (`TimeShares::peer_time`).
pub fn own_waits(sh: &TimeShares) -> f64 {
    sh.application - sh.sender_paced.map_or(0.0, |p| p.seconds) - sh.peer_time
}

/// Why the application's pauses are not shown avoidable ([`pauses_avoidable`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Unavoidable {
    /// The median burst between pauses was below [`MESSAGE_SEGMENTS`] full segments:
    /// its bytes, the median.
    Messages(f64),
    /// The pauses ended on a clock: its period, s.
    Clock(f64),
    /// Messages by the median, but bulk bursts ([`BULK_SEGMENTS`] full segments or
    /// more) held most of the bytes or most of the paused time: where the bytes went.
    Bulk(BulkBursts),
}

/// The bulk bursts of an exchange of messages ([`Unavoidable::Bulk`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BulkBursts {
    /// Share of all the bytes the bulk bursts carried, 0..1.
    pub share: f64,
    pub count: usize,
    /// The largest burst: its bytes, its first and last segment (sender time, s).
    pub largest: f64,
    pub from: f64,
    pub to: f64,
    /// Median of the other bursts, bytes (0 when there are none).
    pub others_median: f64,
    /// Whether at least half the pauses held the peer's data (its message).
    pub answered: bool,
    /// Every bulk burst's first and last segment, in order (chunk_turns.rs).
    pub spans: Vec<(f64, f64)>,
}

/// A burst of at least this many full segments is bulk, not a message: more than an
/// initial window (RFC 6928: 10 segments), so it cannot leave in one round trip of a
/// fresh connection — TCP's windows, not the application's writes, shaped it.
pub const BULK_SEGMENTS: f64 = 10.0;

/// RFC 9293 §3.7.1's default send MSS, bytes: the least a bulk burst's segment is.
const DEFAULT_MSS: f64 = crate::analysis::stalls::full_segment::DEFAULT_MSS as f64;

/// RFC 6928 §2's byte cap of the initial window, bytes: IW = min(10 × MSS, max(2 × MSS,
/// 14,600 B)).
pub const IW_CAP_BYTES: f64 = 14_600.0;

/// The least bytes of a bulk burst of a sender whose full segment is `segment` bytes:
/// an initial window (RFC 6928 §2: min([`BULK_SEGMENTS`] × MSS, max(2 × MSS, 14,600 B))),
/// which no fresh connection sends in less than a round trip. [`BULK_SEGMENTS`]
/// segments up to an MSS of 1,460 B; above it the byte cap rules: a 218 KiB reply on
/// loopback (32 KiB segments, IW 64 KiB) is bulk, though under 10 of its segments
/// (issue 39 review P, redis).
pub fn bulk_line(segment: f64) -> f64 {
    let s = segment.max(DEFAULT_MSS);
    (BULK_SEGMENTS * s).min((2.0 * s).max(IW_CAP_BYTES))
}

/// A burst below this many full segments is a message, not a transfer held up.
pub const MESSAGE_SEGMENTS: f64 = 2.0;
/// Pauses a cadence needs before it is called a clock.
pub const CLOCK_MIN_PAUSES: usize = 8;
/// Share of the spacings between pause ends within [`CLOCK_TOLERANCE`] of their median
/// for a clock.
pub const CLOCK_SHARE: f64 = 0.75;
/// A spacing within this fraction of the median (or two clock ticks) is on the clock.
pub const CLOCK_TOLERANCE: f64 = 0.1;

/// "Had the application always had data ready, the transfer would have taken X" is said
/// only where the pauses are shown avoidable, i.e. neither of (docs/ANALYSIS.md
/// "diagnosis.text", the application's saving):
/// - messages: the median burst between pauses (payload bytes sent from one pause's end
///   to the next pause) was below [`MESSAGE_SEGMENTS`] full segments (`full_segment`,
///   the MSS its peer announced) and at least half of the pauses held the peer's data,
///   or below half a segment (pauses shorter than a round trip joined into the bursts
///   around them). Then the
///   flow is an exchange of messages — keystrokes and their echoes, a poll and its
///   answer — whose pace is its
///   source's (a person typing, a poll cycle), not a transfer held up waiting for data
///   that existed; removing the pauses would remove the conversation, not speed it up.
/// - a clock: at least [`CLOCK_MIN_PAUSES`] pauses, and [`CLOCK_SHARE`] of the spacings
///   between consecutive pause ends within [`CLOCK_TOLERANCE`] of their median (or two
///   capture clock ticks, `tick`): a fixed-period source (a 50 Hz measurement stream,
///   a 30 ms poll, frames at a frame rate) sends on its clock by design, so the pauses
///   are its period, not a delay.
///
/// Ok(()) when the pauses are avoidable as far as the capture shows (bulk bursts at
/// irregular times: a disk, a computation, a producer that fell behind).
pub fn pauses_avoidable(b: &Bursts, (full_segment, real_segment): (f64, f64), tick: f64, min_pause_s: f64, span: (f64, f64)) -> Result<(), Unavoidable> {
    // Bursts joined across pauses shorter than `min_pause_s` (a round trip): the
    // microseconds between a segment's ACK and the next segment of a transfer whose
    // every segment is acknowledged before the next leaves (a receiver-side capture)
    // are no pause of its source; splitting there once made each segment of a 2 MB
    // download its own "message".
    let (mut starts, mut open, mut answers) = (Vec::new(), 0.0, 0usize);
    // Each joined burst: (bytes, first segment, last segment, the pause before it).
    let (mut joined, mut from, mut before) = (Vec::new(), span.0, 0.0);
    for (((&bytes, &start), &pause), &spoke) in b.bytes.iter().zip(&b.starts).zip(&b.pause_s).zip(&b.peer_spoke) {
        open += bytes;
        if pause >= min_pause_s {
            joined.push((open, from, start - pause, before));
            (from, before) = (start, pause);
            starts.push(start);
            answers += usize::from(spoke);
            open = 0.0;
        }
    }
    joined.push((open + b.last_bytes, from, span.1, before));
    if starts.is_empty() {
        return Ok(());
    }
    let mut sizes: Vec<f64> = joined.iter().map(|j| j.0).collect();
    sizes.sort_by(f64::total_cmp);
    let median = sizes[sizes.len() / 2];
    // Every pause counted (none past MAX_BURSTS).
    let whole = b.pauses as usize == b.bytes.len();
    // Bulk answers to the peer's messages: most pauses held the peer's data and bulk
    // bursts held the bytes (a shell's command outputs, a server's responses on one
    // connection). Each pause was the peer's turn, whatever the median burst: no readier
    // application would shorten it (issue 39, review M: asyncrat, Jupiter).
    if full_segment > 0.0 && whole && 2 * answers >= starts.len() {
        if let Some(bulk) = bulk_bursts(&joined, real_segment, true).filter(|k| 2.0 * k.share >= 1.0) {
            return Err(Unavoidable::Bulk(bulk));
        }
    }
    // Messages answer messages: most pauses held the peer's data (a keystroke's echo,
    // a poll's answer). Small bursts after pauses in which the peer sent nothing but
    // ACKs are a producer writing in small pieces (a 942 kB upload written 1.4 kB at a
    // time), whose pauses a readier application would remove; a source that sends on
    // its own clock is the rule below.
    // Bursts under half a segment are messages whoever spoke: a producer of bulk data
    // writes buffers (a file's chunks, a stdio buffer of 4–8 KiB), an event source
    // each event as it happens (a screen update, a reading).
    if full_segment > 0.0 && median < MESSAGE_SEGMENTS * full_segment && (2 * answers >= starts.len() || median < 0.5 * full_segment) {
        return Err(match bulk_bursts(&joined, real_segment, 2 * answers >= starts.len()) {
            Some(bulk) if whole => Unavoidable::Bulk(bulk),
            _ => Unavoidable::Messages(median),
        });
    }
    if starts.len() > CLOCK_MIN_PAUSES {
        let mut spacings: Vec<f64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        spacings.sort_by(f64::total_cmp);
        let period = spacings[spacings.len() / 2];
        let slack = (CLOCK_TOLERANCE * period).max(2.0 * tick.max(0.0));
        let on_clock = spacings.iter().filter(|&&s| (s - period).abs() <= slack).count();
        if period > 0.0 && on_clock as f64 >= CLOCK_SHARE * spacings.len() as f64 {
            return Err(Unavoidable::Clock(period));
        }
    }
    Ok(())
}

/// The bulk bursts of `joined` ((bytes, first segment, last segment, pause before),
/// in order), where they held most of the bytes or most of the paused time (the pause
/// before each burst is the wait for it): at least [`bulk_line`] bytes (an initial window)
/// sent with no pause of a round trip between them. None where messages
/// held both: then "each burst was a message" is what the bytes and the pauses show.
fn bulk_bursts(joined: &[(f64, f64, f64, f64)], full_segment: f64, answered: bool) -> Option<BulkBursts> {
    // A full segment is at least the default MSS (536 B, RFC 9293 §3.7.1): a poll's
    // 24-byte answers are no segments of a bulk transfer, however many.
    let is_bulk = |j: &(f64, f64, f64, f64)| j.0 >= bulk_line(full_segment);
    let total: f64 = joined.iter().map(|j| j.0).sum();
    let paused: f64 = joined.iter().map(|j| j.3).sum();
    let bulk: Vec<&(f64, f64, f64, f64)> = joined.iter().filter(|j| is_bulk(j)).collect();
    let bulk_bytes: f64 = bulk.iter().map(|j| j.0).sum();
    let bulk_paused: f64 = bulk.iter().map(|j| j.3).sum();
    if bulk.is_empty() || !(2.0 * bulk_bytes >= total || 2.0 * bulk_paused > paused) {
        return None;
    }
    let largest = bulk.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0))?;
    let mut others: Vec<f64> = joined.iter().filter(|j| !is_bulk(j)).map(|j| j.0).collect();
    others.sort_by(f64::total_cmp);
    Some(BulkBursts {
        share: bulk_bytes / total,
        count: bulk.len(),
        largest: largest.0,
        from: largest.1,
        to: largest.2,
        others_median: others.get(others.len() / 2).copied().unwrap_or(0.0),
        answered,
        spans: bulk.iter().map(|j| (j.1, j.2)).collect(),
    })
}

/// The saving of `limit`, 0 when it has none.
pub fn saving_of(savings: &[Saving], limit: &str) -> f64 {
    savings.iter().find(|s| s.limit == limit).map_or(0.0, |s| s.seconds)
}

/// A limit whose removal would have saved more than removing `own` — only for an
/// `own` priced in full: a lower bound (`loss`) or an unpriced limit (the receive
/// window, the path: their share of the time only bounds their price) is never beaten.
pub fn larger_than(savings: &[Saving], own: &str) -> Option<&'static str> {
    let mine = savings.iter().find(|s| s.limit == own)?;
    if mine.at_least {
        return None;
    }
    // Largest first: the first other limit decides.
    savings.iter().find(|s| s.limit != own).filter(|s| s.seconds > mine.seconds).map(|s| s.limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stalls::cause::StallCause;

    fn stall(cause: StallCause, duration: f64) -> Stall {
        Stall { start: 0.0, duration, cause, frame_before: 1, frame_after: 2, ended_by: String::new() }
    }

    #[test]
    fn each_limit_is_priced_by_its_removal() {
        // 10 s active: 2 s idle (app), 1 s of timeouts inside 3 s of recovery, one 0.5 s
        // wait on ACKs, at a 0.1 s RTT, the loss costing 20 % of the rate.
        let mut sh = TimeShares { active: 10.0, application: 2.0, loss: 3.0, stalled: 0.5, ..Default::default() };
        sh.stall_by_cause[2] = 1.0;
        sh.stall_by_cause[4] = 0.5;
        let stalls = [stall(StallCause::RetransmissionTimeout, 1.0), stall(StallCause::AckWait, 0.5)];
        let s = savings(&sh, &stalls, 0.1, 0.2);
        // application 2 s; loss: 1 − 0.1 = 0.9 s of timer + (3 − 1) × 0.2 = 0.4 s → 1.3 s;
        // stalls: 0.5 − 0.1 = 0.4 s; no zero window.
        let got: Vec<(&str, f64)> = s.iter().map(|x| (x.limit, (x.seconds * 1e9).round() / 1e9)).collect();
        assert_eq!(got, vec![("application", 2.0), ("loss", 1.3), ("stalls", 0.4)]);
        assert_eq!(saving_of(&s, "zero-window"), 0.0);
        // Removing the waits saves less than removing the pauses: the headline moves.
        assert_eq!(larger_than(&s, "stalls"), Some("application"));
        // The loss's 1.3 s is only a lower bound: it never yields.
        assert_eq!(larger_than(&s, "loss"), None);
        assert_eq!(larger_than(&s, "application"), None);
    }

    #[test]
    fn the_application_saving_is_the_senders_own_waits() {
        // 10 s active, 6 s of it the sender with nothing to send: 4 s of it until the
        // peer's next messages (the peer's), the other 2 s its own waits — the saving, a
        // lower bound of what both ends' pauses cost.
        let mut sh = TimeShares { active: 10.0, application: 6.0, peer_time: 4.0, ..Default::default() };
        let s = savings(&sh, &[], f64::NAN, 0.0);
        assert_eq!(s.len(), 1);
        assert!((s[0].seconds - 2.0).abs() < 1e-12 && s[0].at_least, "{s:?}");
        // No peer's part: the whole of it, priced in full.
        sh.peer_time = 0.0;
        let s = savings(&sh, &[], f64::NAN, 0.0);
        assert!((s[0].seconds - 6.0).abs() < 1e-12 && !s[0].at_least, "{s:?}");
    }

    /// [`pauses_avoidable`] over a span that leaves every burst lasting.
    fn pauses_avoidable_at(b: &Bursts, full_segment: f64, tick: f64, min_pause_s: f64) -> Result<(), Unavoidable> {
        pauses_avoidable(b, (full_segment, full_segment), tick, min_pause_s, (f64::NEG_INFINITY, f64::INFINITY))
    }

    fn bursts(pieces: &[(f64, f64, f64, bool)], last: f64) -> Bursts {
        let mut b = Bursts::default();
        for &(bytes, start, pause, spoke) in pieces {
            b.push_for_test(bytes, start, pause, spoke);
        }
        b.last_bytes = last;
        b
    }

    #[test]
    fn a_transfer_acked_segment_by_segment_is_no_exchange_of_messages() {
        // A receiver-side capture of a download: each 1,448-byte segment is acknowledged
        // before the next arrives 50 µs later (review K class MB), 200 segments in two
        // bursts 2 s apart, 20 ms path. The 50 µs "pauses" are the ACK clock, not the
        // source pausing: joined, the two bursts are 100 segments each, no messages.
        let mut pieces: Vec<(f64, f64, f64, bool)> = (0..199).map(|k| (1448.0, k as f64 * 1e-4, 5e-5, false)).collect();
        pieces[99].2 = 2.0;
        assert_eq!(pauses_avoidable_at(&bursts(&pieces, 1448.0), 1448.0, 0.0, 0.02), Ok(()));
        // A producer writing one segment at a time after irregular pauses of 3–9 ms in
        // which the peer sent only ACKs: a transfer in small pieces, not messages.
        let writes: Vec<(f64, f64, f64, bool)> = [3e-3, 7e-3, 4e-3, 9e-3, 5e-3].iter().scan(0.0, |t, &p| {
            *t += p;
            Some((1448.0, *t, p, false))
        }).collect();
        assert_eq!(pauses_avoidable_at(&bursts(&writes, 1448.0), 1448.0, 0.0, 1e-3), Ok(()));
        // Keystrokes (40 B, under half a segment), each pause holding the peer's echo.
        let keys: Vec<(f64, f64, f64, bool)> = (0..5).map(|k| (40.0, 0.3 * k as f64 + 0.17, 0.3, true)).collect();
        assert_eq!(pauses_avoidable_at(&bursts(&keys, 40.0), 1448.0, 0.0, 0.02), Err(Unavoidable::Messages(40.0)));
    }

    #[test]
    fn a_bulk_write_among_small_requests_says_where_the_bytes_went() {
        // An SMB copy (as star12234 smb.pcap connection 0): 5 requests of 200 B, each
        // after a 2 s pause holding the server's answer, then one 741,000-byte write
        // from 10.000 s to 10.003 s. The median burst, 200 B, is under two 1,460-byte
        // segments and every pause held the peer's data: messages by the test — but
        // 741,000 of the 742,000 bytes (99.87 %) moved in the one burst of 507.5
        // segments (≥ 10): the bulk's description, still unavoidable.
        let pieces: Vec<(f64, f64, f64, bool)> = (0..5).map(|k| (200.0, 2.0 * (k + 1) as f64, 1.9, true)).collect();
        let b = bursts(&pieces, 741_000.0);
        let got = pauses_avoidable(&b, (1460.0, 1460.0), 0.0, 0.01, (0.0, 10.003));
        let Err(Unavoidable::Bulk(bulk)) = got else { panic!("{got:?}") };
        assert_eq!((bulk.count, bulk.largest, bulk.from, bulk.to), (1, 741_000.0, 10.0, 10.003));
        assert!((bulk.share - 741_000.0 / 742_000.0).abs() < 1e-12);
        // The other bursts: 5 of 200 B; half the pauses (all 5) held the peer's data.
        assert_eq!((bulk.others_median, bulk.answered), (200.0, true));
        // The same requests with a 14,000-byte last answer (9.6 segments, under 10):
        // messages, as before (an RDP screen update of a few segments stays a message).
        let b = bursts(&pieces, 14_000.0);
        assert_eq!(pauses_avoidable(&b, (1460.0, 1460.0), 0.0, 0.01, (0.0, 10.003)), Err(Unavoidable::Messages(200.0)));
        // A 6,369-byte GSO frame as the message test's segment (no handshake), real
        // segments of 1,460: bursts of 6,400 B (4.4 segments) are messages by the frame,
        // and none is bulk.
        let reqs: Vec<(f64, f64, f64, bool)> = (0..5).map(|k| (6400.0, 5.0 * (k + 1) as f64, 4.5, true)).collect();
        let b = bursts(&reqs, 6400.0);
        assert_eq!(pauses_avoidable(&b, (6369.0, 1460.0), 0.0, 0.05, (0.0, 30.0)), Err(Unavoidable::Messages(6400.0)));
    }
}
