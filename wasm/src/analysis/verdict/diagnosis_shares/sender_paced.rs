//! A sender that set its own rate while data was in flight (issue 39, review O classes
//! C-PERIODIC-INFLIGHT and C-FLAT-CAP). The share pass calls an interval `other` (the
//! congestion window or the path, RFC 4898's SndLimTimeCwnd) when data was outstanding
//! below the receiver's window and nothing was lost. Two senders fill that state with
//! time that is neither, and the capture shows it over the whole transfer:
//!
//! - **Its application's clock** (`Clock`): almost every segment was well below a full
//!   segment and the segments left at a steady rate whose send times do not follow the
//!   ACKs. A sender with data queued sends full segments (RFC 9293 §3.7.4: a segment
//!   carries what the send queue and the windows allow, up to the MSS; Linux and
//!   Windows coalesce queued writes), and one held by its congestion window sends when an
//!   ACK frees room (Jacobson's ACK clock, RFC 5681 §3): so a sender whose segments are
//!   small, come at a steady rate and do not come right after ACKs had nothing queued —
//!   each record went out as its application wrote it. Data is still always in flight
//!   (a record every 21 ms on an 82 ms path keeps four outstanding), so the
//!   application test of the share pass ("everything acknowledged, nothing to send")
//!   never fires. T-RAT (Zhang et al., SIGCOMM 2002) calls such a flow
//!   application-limited.
//! - **A fixed cap at the sender** (`Cap`): round after round the flight stopped at the
//!   same byte count, the receiver's window far above it, and each flight left in a
//!   small part of the round trip before the sender waited for ACKs. A congestion
//!   window grows each round trip without loss (RFC 5681 §3.1: by about a segment per
//!   round trip in congestion avoidance, faster in slow start), so it is not flat for
//!   many rounds; a path that holds the flow spreads each flight over the round trip
//!   (the bottleneck spaces the segments, the ACK clock keeps that spacing), so it does
//!   not leave most of the round trip empty. What stays is the sender's own limit: its
//!   send buffer or the size of the application's writes (T-RAT's "sender window
//!   limited"; RFC 4898 counts both as SndLimTimeSnd, the sender's own limit).
//!
//! Only the `other` time of the intervals that this evidence covers moves to the
//! application's share (diagnosis_shares/pass.rs keeps it apart): the intervals that a
//! small segment opened (`Clock`), or that opened with exactly the cap in flight (`Cap`).

use super::unqueued_writes::Counts;
use super::TimeShares;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::{is_data_segment, SenderFacts};
use crate::analysis::timing::sender_view::sender_view;

/// What set the sender's rate, with the numbers the text quotes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PacedKind {
    /// Its application's clock: the median segment (bytes), the median time between
    /// segments (s), segments per second over the transfer, the new data segments below
    /// half a full segment and all of them.
    Clock { record: f64, period: f64, per_second: f64, small: usize, segments: usize },
    /// A fixed cap: the bytes in flight at it, the flights that reached it, the flights
    /// of at least half of it, the median and the largest time a capped flight took to
    /// leave (s), and the median time from one capped flight to the next (s).
    /// `segment`: the sender's largest segment, of which the cap is no whole number.
    Cap { bytes: f64, segment: f64, capped: usize, flights: usize, drain_median: f64, drain_max: f64, period: f64 },
    /// Stop-and-wait ([`stop_and_wait`]): the new data segments, each sent with nothing
    /// else outstanding; their median payload (bytes); the median time from the ACK of
    /// the data before each to it, in capture time (s).
    StopAndWait { segments: usize, record: f64, after_ack: f64 },
    /// Nothing queued (write_ends.rs): its segments kept the application's write
    /// boundaries, and the intervals after a write's end held most of the `other` time.
    Writes(super::write_ends::Writes),
}

/// The sender's own rate (module comment) and the time moved to the application.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderPaced {
    pub kind: PacedKind,
    /// Largest bytes in flight at a data segment, as the sender knew it (sender time).
    pub max_in_flight: f64,
    /// The path RTT the judgement used, s.
    pub rtt: f64,
    /// Seconds moved from `other` to `application`.
    pub seconds: f64,
}

/// New data segments a clock needs before it is judged (and a cap's flights, below).
pub const CLOCK_MIN_SEGMENTS: usize = 64;
/// Round trips of active time a judgement needs: a steady state, not a start.
pub const MIN_ROUND_TRIPS: f64 = 20.0;
/// Share of the new data segments below half a full segment for a clock.
pub const SMALL_SHARE: f64 = 0.9;
/// Share of the rate bins within ±[`STEADY_BAND`] of their median for a steady rate.
pub const STEADY_BINS: f64 = 0.8;
pub const STEADY_BAND: f64 = 0.25;
/// Median time from the latest ACK to a segment, in median periods, from which the
/// sends do not follow the ACKs (an ACK-clocked sender sends at the ACK: about 0).
pub const ACK_INDEPENDENT: f64 = 0.25;
/// Flights at exactly the cap for a cap to be told from a window.
pub const CAP_MIN_FLIGHTS: usize = 8;
/// Share of the flights of at least half the cap that reached it.
pub const CAP_SHARE: f64 = 0.6;
/// A capped flight left within this share of the round trip (median).
pub const CAP_DRAIN: f64 = 0.25;
/// Loss recovery a cap allows, share of the active time: a loss-based sender's window
/// under steady loss sits flat at the loss's bound (Mathis et al. 1997), which a capture
/// cannot tell from a buffer; without loss no congestion window stays flat.
pub const CAP_LOSS_MAX: f64 = 0.01;
/// A cap of fewer full segments is a message, not a buffer (own cadence handles one).
pub const CAP_MIN_SEGMENTS: f64 = 4.0;
/// Share of the active time the sender's own rate must hold to be named.
pub const MIN_SHARE: f64 = 0.2;
/// Kept values (flights, gaps, delays) at most: the first so many show a steady state.
const KEEP: usize = 1 << 16;

/// One flight: segments less than half a round trip apart.
#[derive(Clone, Copy)]
struct Flight {
    start: f64,
    end: f64,
    peak: f64,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Judges the data direction `facts.dir` up to `stop` (the transfer's end, sender
/// time), the path RTT `rtt` (s) and a full segment's payload `full`. None when neither
/// rule holds.
pub fn judge(cols: &PacketColumns, facts: &SenderFacts, full: f64, rtt: f64, sh: &TimeShares) -> Option<SenderPaced> {
    if !(rtt > 0.0) || !(sh.active >= MIN_ROUND_TRIPS * rtt) || !(full > 0.0) {
        return None;
    }
    let stop = sh.transfer_end.as_ref().map_or(f64::INFINITY, |e| e.at);
    let start = sh.starts_at().unwrap_or(f64::NEG_INFINITY);
    let dir = facts.dir;
    let (mut high, mut peer_ack, mut last_ack_t) = (f64::NEG_INFINITY, f64::NAN, f64::NAN);
    let (mut n, mut small, mut max_flight, mut first_t, mut last_t) = (0usize, 0usize, 0.0f64, f64::NAN, f64::NAN);
    let mut max_len = 0.0f64;
    // Small segments sent behind an unacknowledged small one (unqueued_writes.rs: Nagle off).
    let (mut behind, mut prev_small) = (0usize, false);
    let (mut sizes, mut gaps, mut delays, mut flights) = (Vec::new(), Vec::new(), Vec::new(), Vec::<Flight>::new());
    let mut times = Vec::new();
    for (i, t) in sender_view(cols, dir, facts.lag_s) {
        if t > stop {
            break;
        }
        if cols.dir[i] != dir {
            let a = cols.ack[i];
            if a.is_finite() && (peer_ack.is_nan() || a > peer_ack) {
                peer_ack = a;
                last_ack_t = t;
            }
            continue;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let (seq, len) = (cols.seq[i], f64::from(cols.len[i]));
        // The head of messages before the transfer (transfer_head.rs) is no part of its pace.
        if t < start {
            high = high.max(seq + len);
            continue;
        }
        if seq + len <= high || cols.flags[i] & flag_bits::RETRANSMISSION != 0 {
            continue; // a re-send: no new data, no part of the source's pace
        }
        high = high.max(seq + len);
        // As the share pass counts it (pass.rs `open_interval`).
        let flight = match cols.in_flight[i] {
            v if v.is_finite() && !(facts.lag_s > 0.0) => v,
            _ if peer_ack.is_finite() => (high - peer_ack).max(0.0),
            _ => len,
        };
        max_flight = max_flight.max(flight);
        max_len = max_len.max(len);
        n += 1;
        small += usize::from(len < 0.5 * full);
        // Data before it was outstanding, so the previous segment was (cumulative ACKs).
        behind += usize::from(len < 0.5 * full && prev_small && flight > len);
        prev_small = len < 0.5 * full;
        if sizes.len() < KEEP {
            sizes.push(len);
            times.push(t);
            if last_t.is_finite() {
                gaps.push(t - last_t);
            }
            if last_ack_t.is_finite() {
                delays.push(t - last_ack_t);
            }
        }
        let kept = flights.len();
        match flights.last_mut() {
            Some(f) if t - f.end < 0.5 * rtt => {
                f.end = t;
                f.peak = f.peak.max(flight);
            }
            _ if kept < KEEP => flights.push(Flight { start: t, end: t, peak: flight }),
            _ => {}
        }
        if first_t.is_nan() {
            first_t = t;
        }
        last_t = t;
    }
    let span = last_t - first_t;
    let counts = Counts { segments: n, small, small_behind_small: behind, max_flight };
    if n < CLOCK_MIN_SEGMENTS || !(span > 0.0) {
        return None;
    }
    let paced = |kind, seconds| SenderPaced { kind, max_in_flight: max_flight, rtt, seconds };
    let (alone, mut after_acks) = alone_segments(cols, dir, facts.lag_s, stop);
    if alone == n && stop_and_wait(max_len, rtt, &mut delays, sh) {
        let kind = PacedKind::StopAndWait { segments: n, record: median(&mut sizes), after_ack: median(&mut after_acks) };
        return Some(paced(kind, sh.other));
    }
    let small_share = small as f64 / n as f64;
    if small_share >= SMALL_SHARE {
        let period = median(&mut gaps.clone());
        let per_second = n as f64 / span;
        let bytes_per_rtt = sh.new_bytes / span * rtt;
        let steady = steady_rate(&times, period);
        let independent = median(&mut delays) >= ACK_INDEPENDENT * period;
        // Faster than one per round trip: data in flight when each left (a slower source
        // finds everything acknowledged, which the share pass already calls its own).
        if steady && independent && period > 0.0 && period < rtt && max_flight <= 2.0 * bytes_per_rtt + full {
            let kind = PacedKind::Clock { record: median(&mut sizes), period, per_second, small, segments: n };
            return Some(paced(kind, sh.other_small.min(sh.other)));
        }
        // Not a steady clock: an interactive writer's small writes may still be it.
        return unqueued(cols, dir, full, (start, stop), sh, counts).map(|w| paced(PacedKind::Writes(w), sh.other_written.min(sh.other)));
    }
    // The pass kept the `other` time at its largest flight: the cap's, where they agree.
    // A cap first: a send buffer that held the flight also ends it on a write's tail.
    let (top, seconds) = sh.other_at_max;
    if let Some(cap) = cap_of(&flights, full, facts.mss, rtt, sh).filter(|c| top == cap_bytes(c)) {
        return Some(paced(cap, seconds.min(sh.other)));
    }
    let timed = super::write_ends::judge(cols, dir, full, (start, stop)).filter(|_| sh.other_written >= super::write_ends::MOST_OF_OTHER * sh.other);
    let w = timed.or_else(|| unqueued(cols, dir, full, (start, stop), sh, counts))?;
    Some(paced(PacedKind::Writes(w), sh.other_written.min(sh.other)))
}

/// Small writes sent as written with data in flight (unqueued_writes.rs).
fn unqueued(cols: &PacketColumns, dir: u8, full: f64, span: (f64, f64), sh: &TimeShares, c: Counts) -> Option<super::write_ends::Writes> {
    super::unqueued_writes::judge(super::write_ends::judge_untimed(cols, dir, full, span), &c, full, sh)
}

fn cap_bytes(k: &PacedKind) -> f64 {
    match *k {
        PacedKind::Cap { bytes, .. } => bytes,
        PacedKind::Clock { .. } | PacedKind::StopAndWait { .. } | PacedKind::Writes(_) => f64::NAN,
    }
}

/// The new data segments of `dir` up to `stop` that left with nothing else outstanding:
/// in capture order, the peer's cumulative ACK had covered all the data before it, and
/// the segment came at least half the capture → sender → capture time (`lag_s`) after
/// that ACK, so the sender could have had the ACK before it sent (at a receiver-side
/// capture a segment sent before the ACK reached the sender arrives right after it).
/// Capture order, not the sender view: that view replays the ACKs a whole `lag_s`
/// later, and an estimate of it above the sender's real turnaround (a generated capture
/// answering each ACK in 0.23 ms, its lag read as 0.275 ms) would put every segment
/// before the ACK it followed.
/// Also the times from that ACK to each such segment (the first [`KEEP`]), s.
fn alone_segments(cols: &PacketColumns, dir: u8, lag_s: f64, stop: f64) -> (usize, Vec<f64>) {
    let lag = if lag_s > 0.0 { lag_s } else { 0.0 };
    let (mut high, mut acked, mut acked_t, mut alone) = (f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NAN, 0usize);
    let mut after = Vec::new();
    for i in 0..cols.t.len() {
        let t = cols.t[i];
        if cols.dir[i] != dir {
            if cols.ack[i].is_finite() && cols.ack[i] > acked {
                (acked, acked_t) = (cols.ack[i], t);
            }
            continue;
        }
        if t > stop {
            break;
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let end = cols.seq[i] + f64::from(cols.len[i]);
        if end <= high || cols.flags[i] & flag_bits::RETRANSMISSION != 0 {
            continue;
        }
        let followed = acked >= high && t - acked_t >= 0.5 * lag;
        if followed && after.len() < KEEP {
            after.push(t - acked_t);
        }
        alone += usize::from(high == f64::NEG_INFINITY || followed);
        high = end;
    }
    (alone, after)
}

/// Stop-and-wait (issue 39 review T class C-STOP-AND-WAIT-AS-PATH), given that every new
/// data segment of at least [`CLOCK_MIN_SEGMENTS`] over at least [`MIN_ROUND_TRIPS`]
/// round trips left with nothing else outstanding: the receiver's window (trusted) had
/// room for two of the largest (`max_len`), loss recovery took at most [`CAP_LOSS_MAX`]
/// of the time, and the sends followed the ACKs (median `delays`, ACK → next segment,
/// within a round trip: a sender slower than that finds everything acknowledged, which
/// the share pass already calls its application's). No congestion window stays at one
/// segment without loss: slow start begins at 1–10 segments and doubles each round trip
/// (RFC 5681 §3.1, RFC 3390, RFC 6928), congestion avoidance adds one a round trip;
/// 64 segments in a row alone are 64 round trips. The sender itself sent one segment per
/// acknowledgement: its application waiting for each, or its stack sending so.
fn stop_and_wait(max_len: f64, rtt: f64, delays: &mut [f64], sh: &TimeShares) -> bool {
    let room = sh.windows_trusted && sh.min_window >= 2.0 * max_len;
    room && max_len > 0.0 && sh.loss <= CAP_LOSS_MAX * sh.active && median(delays) <= rtt
}

/// The segments came at a steady rate: in bins of ten periods (at least a second),
/// [`STEADY_BINS`] of the whole bins held within ±[`STEADY_BAND`] of their median count
/// (at least eight whole bins).
fn steady_rate(times: &[f64], period: f64) -> bool {
    let (Some(&t0), Some(&t1)) = (times.first(), times.last()) else { return false };
    let bin = (10.0 * period).max(1.0);
    let whole = ((t1 - t0) / bin).floor() as usize;
    if whole < 8 || whole > KEEP {
        return false;
    }
    let mut counts = vec![0.0f64; whole];
    for &t in times {
        let k = ((t - t0) / bin) as usize;
        if k < whole {
            counts[k] += 1.0;
        }
    }
    let m = median(&mut counts.clone());
    let within = counts.iter().filter(|&&c| (c - m).abs() <= STEADY_BAND * m).count();
    m > 0.0 && within as f64 >= STEADY_BINS * whole as f64
}

/// The cap (module comment): the largest flight, no whole number of the sender's largest
/// segment `segment`, reached exactly by at least
/// [`CAP_MIN_FLIGHTS`] flights and [`CAP_SHARE`] of those of at least half of it, below
/// the receiver's smallest window by a full segment, the capped flights leaving within
/// [`CAP_DRAIN`] of the round trip (median), loss recovery at most [`CAP_LOSS_MAX`] of
/// the time.
fn cap_of(flights: &[Flight], full: f64, segment: f64, rtt: f64, sh: &TimeShares) -> Option<PacedKind> {
    let bytes = flights.iter().map(|f| f.peak).fold(0.0, f64::max);
    if bytes < CAP_MIN_SEGMENTS * full || !sh.windows_trusted || !(sh.min_window - full >= bytes) {
        return None;
    }
    // A count of bytes, not of segments: a congestion window counts segments (RFC 5681
    // §3.1, Linux's snd_cwnd) and a sender with data queued fills it with full ones, so
    // a flat window of whole segments may be a clamped one; a cap that ends its flights
    // on a partial segment is a byte budget — a buffer or a write.
    if !(segment > 0.0) || bytes % segment == 0.0 {
        return None;
    }
    let at_cap: Vec<&Flight> = flights.iter().filter(|f| f.peak == bytes).collect();
    let big = flights.iter().filter(|f| f.peak >= 0.5 * bytes).count();
    if at_cap.len() < CAP_MIN_FLIGHTS || (at_cap.len() as f64) < CAP_SHARE * big as f64 {
        return None;
    }
    let mut drains: Vec<f64> = at_cap.iter().map(|f| f.end - f.start).collect();
    let drain_max = drains.iter().copied().fold(0.0, f64::max);
    let drain_median = median(&mut drains);
    if !(drain_median <= CAP_DRAIN * rtt) || sh.loss > CAP_LOSS_MAX * sh.active {
        return None;
    }
    // From each capped flight to the next flight: the cycle the cap repeats on.
    let mut periods: Vec<f64> = flights.windows(2).filter(|w| w[0].peak == bytes).map(|w| w[1].start - w[0].start).collect();
    let period = median(&mut periods);
    Some(PacedKind::Cap { bytes, segment, capped: at_cap.len(), flights: big, drain_median, drain_max, period })
}

/// Moves the time [`judge`] found the sender's own from `other` to `application`; the
/// judgement goes to `sh.sender_paced`.
/// `median_rtt`: the data's median round trip, against the path's `rtt` ([`queued`]).
pub fn rebook(sh: &mut TimeShares, cols: &PacketColumns, facts: &SenderFacts, full: f64, rtt: f64, median_rtt: f64) {
    let Some(p) = judge(cols, facts, full, rtt, sh) else { return };
    // A cap or write boundaries under a standing queue: the path set the pace ([`queued`]).
    if matches!(p.kind, PacedKind::Cap { .. } | PacedKind::Writes(_)) && queued(rtt, median_rtt) {
        return;
    }
    // Named only where it is most of the application's time and a share worth naming:
    // else the application's own words (everything acknowledged) stay true.
    if !(p.seconds >= MIN_SHARE * sh.active && p.seconds >= sh.application) {
        return;
    }
    sh.other -= p.seconds;
    sh.application += p.seconds;
    sh.sender_paced = Some(p);
}

/// The median round trip stood at least [`QUEUED_RTT_RATIO`] × the path's and 1 ms above
/// it: a queue at the bottleneck held the data in flight (review AF C-PHASE-MIX, wenjie01
/// "lab final 7-13" #65: a 738-kB upload whose RTT grew 149 → 346 ms while the sender kept
/// 50–128 KiB in flight, refilled write by write as ACKs freed its buffer). Data in flight
/// beyond what the link carries in a round trip waits in that queue, so the link, not the
/// cap nor the next write, set the rate: a sender that wrote more or capped higher would
/// only have lengthened the queue (RFC 6817 §2's standing-queue signal; RFC 3168 §5 for
/// its marks). A sender whose own clock paces it (`Clock`, `StopAndWait`) keeps its
/// flight below a round trip's worth, and a queue there is others' traffic.
pub fn queued(rtt: f64, median_rtt: f64) -> bool {
    rtt > 0.0 && median_rtt >= QUEUED_RTT_RATIO * rtt && median_rtt - rtt >= 0.001
}

/// diagnosis.rs `QUEUEING_RTT_RATIO`, the ratio "a queue on the path" is said from.
pub const QUEUED_RTT_RATIO: f64 = 1.5;
