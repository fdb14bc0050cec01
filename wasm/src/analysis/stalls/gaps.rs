//! Stalls: gaps in a direction's data transfer, each with a cause (DESIGN.md "Stall").
//!
//! A stall of direction `dir` is a gap longer than the threshold between two
//! consecutive *payload-carrying* segments of `dir` (issue 3). Because a gap is only
//! measured between two data segments, a stall always ends with more data, so "while
//! the transfer has not ended" holds by construction (the idle time after the last
//! data segment, before FIN, is never a stall).
//!
//! Zero-window probes and keep-alives are not "payload-carrying" here even when they
//! carry one byte: they send no new data (Wireshark's rules) and counting them would
//! chop one zero-window stall into a row of probe-interval gaps.
//!
//! The cause is decided from the sender's state at the last data segment before the
//! gap and from what the peer said during the gap, reconstructed in ONE linear pass
//! over the interleaved packet columns (the peer's latest window and cumulative ACK
//! are carried along as we go). Order of the tests, first match wins:
//! 1. `zero-window`: the peer's latest window at the start of the gap, or any window
//!    it advertised during the gap, was 0 (or the sender sent zero-window probes).
//! 2. `retransmission-timeout`: the first data segment after the gap starts below the
//!    highest sequence number sent so far (it re-sends data that was in flight: the
//!    retransmission timer fired — or Linux's tail-loss probe, which is also a timer)
//!    and something was unacknowledged when the gap began.
//!    Not when that segment is a fast retransmission sent on the peer's ACKs
//!    (`resends::ack_clocked`: the duplicate ACKs or SACKs, RFC 5681 §3.2, RFC 6675): the gap was the wait
//!    for those ACKs, and the later rules judge it as any other wait (`ack-wait`, or
//!    `window-limited` with the window full, as the sender's own SndLim states count it).
//!    Also `retransmission-timeout` when the gap began right after a retransmission
//!    (not a fast one) with data unacknowledged (the sender was waiting on loss
//!    recovery), and when
//!    everything was acknowledged and the peer's
//!    next request during the gap was a retransmission: the request was lost and the
//!    peer's timer re-sent it (request/response through an outage) — where that timer
//!    took the largest part of the gap, not the peer's turn before it first sent the
//!    request (then `application-idle`) nor the sender's answer after (the later rules).
//! 3. `application-idle`: the peer's cumulative ACK reached the highest sequence sent
//!    (nothing in flight) at the start of or during the gap, and the sender stayed
//!    silent while free to send for at least half of the gap, or for a path round trip
//!    after that ACK and the peer's last message in the gap (at least [`IDLE_MIN_S`]; a
//!    sender with data answers that ACK at once: an application that paused while its
//!    last write drained). "Free" starts at the
//!    ACK of everything: before it the data was still on its way (a slow path draining
//!    the last write; Nagle's algorithm holding a small segment while any data is
//!    unacknowledged, RFC 1122 §4.2.3.4), and an application is idle only while the
//!    sender has nothing outstanding (issue 39). This keeps a delayed ACK
//!    (ACK after 40 ms, sender answers at once: waiting on the peer) apart from an
//!    application pause that began while the last burst was still draining through
//!    the bottleneck (ACKs keep coming, the sender doesn't react: it has nothing to send).
//! 4. `window-limited`: in flight at the last data segment before the gap had reached
//!    the peer's advertised window, within [`window_tolerance`], or Wireshark flagged
//!    it "window full".
//!    Then turn-taking: everything was acknowledged and the peer sent payload during
//!    the gap (request/response, interactive sessions), in this order:
//!    - `unknown` when the request carried the peer's first ACK of the data > 0.5 s
//!      after it and the capture holds no pure ACK of the peer at all (RFC 9293
//!      §3.8.6.3: a peer holding data that long ACKs it alone, so the path was that
//!      long or the capture lacks the ACK, and it cannot tell which);
//!    - `ack-wait` ("a request/response round trip") if the peer's request came in the
//!      first half of the gap after the peer had everything, else `application-idle`
//!      (the peer's application sat on it). The peer had everything when its ACK says
//!      so, except when that first ACK rode on its request later than path RTT +
//!      0.5 s after the data: a peer holding the data that long MUST have ACKed it
//!      alone (§3.8.6.3), this capture, which holds the peer's pure ACKs, lacks that
//!      one, and the measured path does not explain the delay (unless its queue grew
//!      0.5 s above the minimum): the peer had the data by path RTT + 0.5 s at the
//!      latest, and the half-gap test counts from there. Where that first ACK rode on
//!      the peer's request and the path's round trip is known (`round_trip_bound_s`:
//!      the path RTT, or one tick where every round trip was shorter than one), the
//!      peer had the data one round trip after it was sent: a receiver holds its ACK
//!      for data to ride on (RFC 1122 §4.2.3.2), so the ACK says only that it had the
//!      data by then, as where the capture holds no pure ACK at all.
//! 5. `application-idle` when nothing held the sender (`gap::not_held`: in flight plus
//!    the new segment at most a full segment and what it had in flight before, and no
//!    ACK released it; or the last ACK in the gap came half the gap and a round trip
//!    before the new data, which then fit in what the sender had had in flight: an
//!    ACK releases held data at once, RFC 5681 §3); or one segment in flight, no ACK or
//!    window change in the gap, and new data within 200 ms, before any probe timer (RFC
//!    8985 §7.2: 2·SRTT + 200 ms with one segment in flight);
//!    `unknown` when no ACK of the peer's came in the gap and the capture holds none of
//!    its pure ACKs (filtered to payload: an ACK sent alone would not be in it either,
//!    and nothing shows the sender held);
//!    else `ack-wait`: data in flight below the window, no loss: waiting on ACKs (the
//!    congestion window, delayed ACKs, or the path).
//! 6. `unknown`: the capture holds none of the peer's ACKs, so none of this can be told;
//!    or a gap still open when the capture ends with data unacknowledged and nothing
//!    re-sent (no timer is seen to fire: the sender gave up, was reset, or the capture
//!    ended first).
//! 7. An `ack-wait` from rules 4–5 is `unknown` where the capture missed packets of the
//!    connection in the gap (a segment after a hole never captured, an ACK of data the
//!    capture never saw: classify.rs `capture_missed_in`): what ended the wait may be
//!    among them.

use crate::analysis::loss::back_to_back::back_to_back_duplicate;
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::timing::sender_view::sender_view;
use crate::analysis::stalls::cause::Stall;
use crate::decode::tcp_flags;

mod classify;
mod gap;
mod resends;
mod window_check;
use classify::{classify, classify_trailing};
use gap::{ack_may_follow, not_held, Gap, SendRoom};
pub use resends::{needless, peer_timer_resend, reordered};
pub(in crate::analysis::stalls) use resends::ack_clocked;
use window_check::WindowCheck;

// The columns' flags hold the TCP header's flags in their low 8 bits (columns.rs).
const SYN: u32 = tcp_flags::SYN as u32;
const FIN_SYN_RST: u32 = (tcp_flags::FIN | tcp_flags::SYN | tcp_flags::RST) as u32;
/// Silence after the ACK of everything that shows an idle application however short the
/// drain before it (rule 3), where the path RTT is shorter: the time a sender's stack
/// takes to answer an ACK is microseconds, its clock's jitter at the capture less.
const IDLE_MIN_S: f64 = 0.001;
/// The longest gap a re-send of bytes sent in it (rule 2d) is said to end as the
/// sender's timer: the first timeout comes 1 s after the original at most before an RTT
/// is measured (RFC 6298 §2.1), its first backoff 2 s; a longer gap held an idle sender
/// before the original was sent, at a time the capture does not show (a 20 s idle TLS
/// session ended by a re-send once read "20 s waiting on 1 tail loss probe"), s.
const UNSEEN_RESEND_MAX_S: f64 = 2.0;
/// RFC 9293 §3.8.6.3: a receiver MUST acknowledge within 0.5 s of a segment's arrival.
const MAX_ACK_DELAY_S: f64 = 0.5;

/// The path round trip the stall rules judge by, s (`path_rtt_s` of [`judge_stalls`]): the
/// path RTT (vantage.rs), or, where every round trip was shorter than one tick of the
/// connection's clock (`method` is vantage.rs `BELOW_ONE_TICK`, `tick_s` that tick), one
/// tick: two moments less than a tick apart, stamped by one clock, are at most one tick
/// apart in its timestamps. Without it such a path's round trip was unknown, and every
/// wait on the peer's next message read as one (an SMB client's 100 ms think time
/// between requests answered within one 10 ms tick, "waiting on ACKs").
/// Shared by the summary and the view so both judge a gap alike.
pub fn round_trip_bound_s(path_rtt_s: Option<f64>, method: &str, tick_s: f64) -> Option<f64> {
    path_rtt_s.or((method == crate::analysis::timing::vantage::BELOW_ONE_TICK && tick_s > 0.0).then_some(tick_s))
}

/// DESIGN.md default: the larger of 10 ms and 4 × the connection's path RTT
/// (vantage.rs; never the local ACK delay of a receiver-side capture), and never
/// below 3 ticks of the capture clock: with a 10 ms clock a gap measured as 10 or
/// 20 ms may be one tick of jitter (issue 13: 247 "stalls" at a 10 ms threshold).
pub fn default_threshold_s(path_rtt_ms: Option<f64>, tick_s: f64) -> f64 {
    (path_rtt_ms.unwrap_or(0.0) * 4.0 / 1000.0).max(0.010).max(3.0 * tick_s)
}

/// The reader's own threshold (`--stall-ms`), s, but never below 1.5 ticks of the
/// connection's clock: a gap of one tick (give or take the rounding of a tick that is
/// no whole number of the file's units: 16.666 or 16.667 ms) is the clock, not a stall.
pub fn chosen_threshold_s(ms: f64, tick_s: f64) -> f64 {
    (ms / 1000.0).max(1.5 * tick_s)
}

/// True for a segment of `dir` that carries payload which counts as data (not a
/// zero-window probe or keep-alive). Shared with the diagnosis so both walk the same
/// segments.
pub fn is_data_segment(cols: &PacketColumns, i: usize, dir: u8) -> bool {
    cols.dir[i] == dir
        && cols.len[i] > 0
        && cols.flags[i] & (flag_bits::ZERO_WINDOW_PROBE | flag_bits::KEEP_ALIVE) == 0
}

/// Largest payload of a data segment of `dir`: our estimate of the MSS.
pub fn mss_estimate(cols: &PacketColumns, dir: u8) -> f64 {
    // The maximum in integers: `f64::max` is a call to `fmax` in wasm (its NaN rule is
    // not the wasm instruction's), and this runs over every packet several times.
    let mut largest = 0u32;
    for i in 0..cols.t.len() {
        if is_data_segment(cols, i, dir) && cols.len[i] > largest {
            largest = cols.len[i];
        }
    }
    f64::from(largest)
}

/// How far below the advertised window bytes in flight may stay and still count as
/// "window-limited": one MSS. A sender does not send a segment that does not fit the
/// usable window (sender-side silly-window avoidance, RFC 9293 §3.8.6.2.1), so a
/// window-limited sender sits anywhere in [window − MSS, window]. Capped at a quarter
/// of the window so that super-segments (TSO/GRO captures, 64 KiB "segments") don't
/// make every small window look full.
pub fn window_tolerance(mss: f64, window: f64) -> f64 {
    mss.min(window / 4.0)
}

/// The tolerance when the sender's state is reconstructed from another vantage point
/// (sender_view.rs): the lag is the smallest capture → sender → capture time, and the
/// path's jitter around it shifts the reconstructed bytes in flight by rate × jitter,
/// so one tenth of the window more is allowed.
pub fn window_tolerance_lagged(mss: f64, window: f64, lagged: bool) -> f64 {
    if lagged { window_tolerance(mss, window).max(window / 10.0) } else { window_tolerance(mss, window) }
}

/// True when the peer's windows in the columns are evidently too small: bytes in
/// flight exceeded the peer's latest advertised window by more than one MSS at some
/// data segment. That happens when the handshake was not captured and the window
/// scale is unknown (DESIGN.md "Advertised receive window": windows are then shown
/// raw). A sender never has more in flight than the window allows (RFC 9293
/// §3.8.6.2.1), so such windows can't be used to call anything window-limited; zero
/// windows stay recognisable (0 scaled is 0). One linear pass.
pub fn windows_understated(cols: &PacketColumns, dir: u8) -> bool {
    windows_understated_lagged(cols, dir, 0.0)
}

/// [`windows_understated`] in the sender's time (sender_view.rs).
pub fn windows_understated_lagged(cols: &PacketColumns, dir: u8, lag_s: f64) -> bool {
    understated_with_mss(cols, dir, lag_s, mss_estimate(cols, dir), false)
}

fn understated_with_mss(cols: &PacketColumns, dir: u8, lag_s: f64, mss: f64, scale_known: bool) -> bool {
    let mut check = WindowCheck::new(mss, lag_s, scale_known, super::acks_unseen(cols));
    for_each_in_sender_time(cols, dir, lag_s, |t, peer_win, flight| match flight {
        Some(flight) => check.on_data(t, flight, peer_win),
        None => check.on_window(t, peer_win),
    });
    check.understated()
}

/// What the stall and share passes of one sending direction both judge by, found
/// once: each is a pass over every row, and the end of the capture asked for them
/// again in each pass (the MSS 4 times, the windows twice, for the data direction);
/// [`judge_stalls_and_facts`] finds the windows test inside the stall pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderFacts {
    pub dir: u8,
    /// The sender lag the facts were judged in (sender_view.rs).
    pub lag_s: f64,
    /// [`mss_estimate`].
    pub mss: f64,
    /// [`windows_understated_lagged`] at `lag_s`.
    pub windows_understated: bool,
}

impl SenderFacts {
    /// `scale_known`: the receiver's window scale is known (its handshake was
    /// captured, or it used none): bytes in flight a little above its window (a window
    /// shrunk by the receiver, RFC 9293 §3.8.6.2.2, or the capture point's timing) then
    /// do not make the windows understated; only twice the window does (`exceeds_window`).
    pub fn of(cols: &PacketColumns, dir: u8, lag_s: f64, scale_known: bool) -> SenderFacts {
        let mss = mss_estimate(cols, dir);
        SenderFacts { dir, lag_s, mss, windows_understated: understated_with_mss(cols, dir, lag_s, mss, scale_known) }
    }

    /// Facts of `dir` judged at exactly `lag_s` (the diagnosis gets its lag back from
    /// milliseconds, which need not give the same bits).
    pub fn fits(&self, dir: u8, lag_s: f64) -> bool {
        self.dir == dir && self.lag_s.to_bits() == lag_s.to_bits()
    }
}

/// Lower bound on the peer's unknown window scale (DESIGN.md "Advertised receive
/// window": infer it where bytes in flight exceed the raw window), from bytes in
/// flight as the sender had them (sender_view.rs): a sender never has more in flight
/// than the window allows (RFC 9293 §3.8.6.2.1), so raw << scale ≥ in flight. At a
/// receiver-side capture the capture point's own bytes in flight are ~0 and say
/// nothing; the reconstruction carries the path's jitter, so a fifth of it (at least
/// one MSS) is given away before rounding up to a power of two. `cols.win` holds the
/// raw windows when the scale is unknown. None when no window ever fell short.
/// `mss`: [`mss_estimate`] of `dir`.
pub fn scale_lower_bound_lagged(cols: &PacketColumns, dir: u8, lag_s: f64, mss: f64) -> Option<u8> {
    let mss = mss.max(1.0);
    let mut best: Option<u8> = None;
    for_each_in_sender_time(cols, dir, lag_s, |_, raw, flight| {
        let Some(flight) = flight else { return };
        let need = flight - (0.2 * flight).max(mss);
        if raw > 0.0 && need > raw {
            let s = (1u8..=14).find(|&s| raw * f64::from(1u32 << s) >= need).unwrap_or(14);
            best = Some(best.map_or(s, |b| b.max(s)));
        }
    });
    best
}

/// Calls `f(sender time, peer's latest window, Some(bytes in flight))` at every data
/// segment of `dir` and `f(sender time, window, None)` at every window of the peer, in
/// the sender's time (sender_view.rs), skipping segments before any window.
fn for_each_in_sender_time(cols: &PacketColumns, dir: u8, lag_s: f64, mut f: impl FnMut(f64, f64, Option<f64>)) {
    let (mut win, mut peer_ack, mut high) = (f64::NAN, f64::NAN, f64::NEG_INFINITY);
    for (i, t) in sender_view(cols, dir, lag_s) {
        if cols.dir[i] != dir {
            if cols.win[i].is_finite() && cols.flags[i] & SYN == 0 {
                win = cols.win[i];
                f(t, win, None);
            }
            if cols.ack[i].is_finite() && (peer_ack.is_nan() || cols.ack[i] > peer_ack) {
                peer_ack = cols.ack[i];
            }
        } else if is_data_segment(cols, i, dir) {
            high = high.max(cols.seq[i] + cols.len[i] as f64);
            if win.is_finite() {
                f(t, win, Some(in_flight_at(cols, i, high, peer_ack, lag_s > 0.0)));
            }
        }
    }
}

/// Bytes in flight at data segment `i`: the analyzer's column (DESIGN.md definition),
/// or our own highest-sent minus peer-ACK when the column is NaN.
/// With a lag (not a sender-side capture) the column, computed at the capture point,
/// is not what the sender had in flight: always our own, from the lagged ACK.
fn in_flight_at(cols: &PacketColumns, i: usize, high: f64, peer_ack: f64, lagged: bool) -> f64 {
    let v = cols.in_flight[i];
    if v.is_finite() && !lagged {
        v
    } else if peer_ack.is_finite() {
        (high - peer_ack).max(0.0)
    } else {
        f64::NAN
    }
}


/// Gaps longer than `threshold_s` between consecutive payload-carrying segments of
/// direction `dir`, each with a cause. One linear pass.
pub fn find_stalls(cols: &PacketColumns, dir: u8, threshold_s: f64) -> Vec<Stall> {
    find_stalls_lagged(cols, dir, threshold_s, 0.0, None)
}

/// [`find_stalls`] judged in the sender's time: the peer's packets take effect
/// `lag_s` after the capture saw them (sender_view.rs; `ConnectionSummary::sender_lag_ms`).
/// `path_rtt_s`: the connection's path RTT (vantage.rs; `ConnectionSummary::path_rtt_ms`),
/// the longest a prompt ACK takes to reach the sender in its time (data → receiver →
/// sender, whatever the vantage), for turn-taking's late piggybacked ACK; None: unknown.
pub fn find_stalls_lagged(cols: &PacketColumns, dir: u8, threshold_s: f64, lag_s: f64, path_rtt_s: Option<f64>) -> Vec<Stall> {
    let mss = mss_estimate(cols, dir);
    find_stalls_finding_facts(cols, dir, lag_s, (mss, mss), threshold_s, path_rtt_s, false).0
}

/// [`find_stalls_lagged`] with `mss` = [`mss_estimate`] known, and the direction's
/// [`SenderFacts`]: the windows test is made at every data segment of this pass (the
/// same values as [`windows_understated_lagged`]'s own pass), so the gaps are
/// classified once the pass is over and the windows are known to be trustworthy.
/// `scale_known`: see [`SenderFacts::of`].
/// `full`: a full segment's payload (`delayed_ack::full_segment`), what Nagle's
/// algorithm calls small below. The third part: for each stall, whether its sender was
/// shown free to send (`gap::not_held`).
fn find_stalls_finding_facts(cols: &PacketColumns, dir: u8, lag_s: f64, (mss, full): (f64, f64), threshold_s: f64, path_rtt_s: Option<f64>, scale_known: bool) -> (Vec<Stall>, SenderFacts, Vec<bool>) {
    let n = cols.t.len();
    let lagged = lag_s > 0.0;
    let mut check = WindowCheck::new(mss, lag_s, scale_known, super::acks_unseen(cols));
    // Gaps over the threshold, with what `classify` needs of the moment they closed.
    let mut closed: Vec<(Gap, usize, f64, bool)> = Vec::new();
    let mut out = Vec::new();
    let mut high = f64::NEG_INFINITY; // highest sequence sent by `dir` (end of data)
    let mut peer_ack = f64::NAN; // peer's highest cumulative ACK
    let mut peer_win = f64::NAN; // peer's latest advertised window
    let mut gap: Option<Gap> = None;
    let (mut last_peer_t, mut last_new_t) = (f64::NEG_INFINITY, f64::NEG_INFINITY); // the peer's last packet, in the sender's time; when `dir` last sent past `high`
    let mut room = SendRoom::default();
    let mut free = Vec::new();
    // Does the capture hold any pure ACK of the peer (no payload, no SYN/FIN/RST; the
    // handshake's third packet counts)? A capture filtered to payload (Zeek/PcapPlusPlus
    // samples, "len > 0" filters) holds none, and then a peer's request that carries
    // its first ACK of the sender's data does not tell when the peer had that data.
    let peer_pure_acks = (0..n).any(|i| cols.dir[i] != dir && cols.len[i] == 0 && cols.flags[i] & FIN_SYN_RST == 0);

    for (i, t) in sender_view(cols, dir, lag_s) {
        if cols.dir[i] != dir {
            // The peer: carry its window and cumulative ACK along.
            let mut changed = false;
            let a = cols.ack[i];
            if a.is_finite() && (peer_ack.is_nan() || a > peer_ack) {
                peer_ack = a;
                changed = true;
            }
            let w = cols.win[i];
            if w.is_finite() && cols.flags[i] & SYN == 0 {
                if w != peer_win {
                    changed = true;
                }
                peer_win = w;
                check.on_window(t, w);
            }
            last_peer_t = t;
            if let Some(g) = gap.as_mut() {
                g.on_peer(cols, i, t, changed, peer_ack, peer_win);
            }
            continue;
        }
        if cols.flags[i] & flag_bits::ZERO_WINDOW_PROBE != 0 {
            if let Some(g) = gap.as_mut() {
                g.zero_window = true;
                g.probes += 1;
            }
        }
        if !is_data_segment(cols, i, dir) {
            continue;
        }
        let (seq, len) = (cols.seq[i], cols.len[i] as f64);
        if let Some(g) = gap.take() {
            let t0 = cols.t[g.index];
            if t - t0 > threshold_s {
                let resent = seq < g.high && !reordered(cols.flags[i]) && cols.flags[i] & flag_bits::ANY_RETRANSMISSION != 0;
                closed.push((g, i, peer_win, resent));
            }
        }
        let resent_here = seq < high && !reordered(cols.flags[i]) && cols.flags[i] & flag_bits::ANY_RETRANSMISSION != 0;
        (last_new_t, high) = (if seq + len > high { t } else { last_new_t }, high.max(seq + len));
        let flight = in_flight_at(cols, i, high, peer_ack, lagged);
        let most_in_flight = room.on_data(seq + len, len, flight, resent_here, peer_ack, full);
        if peer_win.is_finite() {
            check.on_data(t, flight, peer_win);
        }
        // Before the windows are known to be trustworthy (see `closed` below).
        let window_limited = cols.flags[i] & flag_bits::WINDOW_FULL != 0
            || (peer_win.is_finite() && flight.is_finite() && flight >= peer_win - window_tolerance_lagged(mss, peer_win, lagged));
        gap = Some(Gap {
            last_len: len,
            resent_before: resent_here && !back_to_back_duplicate(seq + len == high, ((t - last_new_t) * 1e9) as i64, last_peer_t >= last_new_t, false) && !ack_clocked(cols.flags[i], t - last_peer_t, path_rtt_s, lag_s), // a copy sent twice back to back (loss/back_to_back.rs) left no loss for rule 2b
            last_peer_at: None,
            index: i,
            high,
            unacked_at_start: peer_ack.is_nan() || peer_ack < high,
            window_limited,
            zero_window: peer_win == 0.0,
            all_acked_at: if peer_ack >= high { Some(t) } else { None },
            acked_by_payload: false,
            acked_by_request: false,
            last_peer_update: None,
            peer_reply: None,
            flight,
            most_in_flight,
            small_last: len < full,
            nagle_off: room.nagle_off,
            not_held: false,
            freed_long_before: false,
            acked_to: peer_ack,
            ..Gap::default()
        });
    }
    let understated = check.understated();
    for (mut g, j, peer_win, resent) in closed {
        g.window_limited &= !understated;
        let (t0, may_follow) = (cols.t[g.index], ack_may_follow(cols, j, lag_s));
        not_held(&mut g, f64::from(cols.len[j]), full, (t0, cols.t[j]), path_rtt_s, may_follow);
        g.not_held &= !resent;
        out.push(classify(cols, &g, j, peer_win, resent, peer_pure_acks, (path_rtt_s, lag_s)));
        // Free by its own sends (rule 5a's first test), not by an ACK's timing: an echo
        // showing that ACK had not reached the sender (held_on_path.rs) outweighs the
        // sender lag's guess of when it did.
        free.push(g.not_held && !g.freed_long_before);
    }
    // The transfer did not end, it stopped: a window that never reopened, or data
    // that was never acknowledged, up to the connection's last packet. A dead zero
    // window is the textbook receive-window story (issue 13), whatever its length.
    if let (Some(g), Some(&t_end)) = (gap, cols.t.last()) {
        let t0 = cols.t[g.index];
        let closed = (g.index..n).any(|i| cols.dir[i] == dir && cols.flags[i] & 0x01 != 0);
        let stuck = stuck_at_end(closed, peer_win, peer_ack, g.high);
        if stuck && t_end - t0 > threshold_s {
            out.push(classify_trailing(cols, &g, n - 1, peer_win));
        }
    }
    free.resize(out.len(), false);
    (out, SenderFacts { dir, lag_s, mss, windows_understated: understated }, free)
}

/// Stuck at the capture's end: a zero window, or data never acknowledged. Not once it
/// `closed` (its FIN, after its last byte, RFC 9293 §3.6): a window of 0 then holds
/// nothing, a socket closing (review O: ftpc's and hack's last ACKs after both FINs).
fn stuck_at_end(closed: bool, peer_win: f64, peer_ack: f64, high: f64) -> bool {
    !closed && (peer_win == 0.0 || (peer_ack.is_finite() && peer_ack < high))
}

/// The stalls of direction `dir` at `threshold_s`, each with its cause: the one
/// judgement behind the summary's list and the view's answer at any other threshold
/// (DESIGN.md "Stall"), so the two cannot disagree on a gap. `full_segment`:
/// `delayed_ack::full_segment` of this sender.
#[allow(clippy::too_many_arguments)]
pub fn judge_stalls(cols: &PacketColumns, dir: u8, threshold_s: f64, lag_s: f64, path_rtt_s: Option<f64>, full_segment: u32, numbered: bool, scale_known: bool) -> Vec<Stall> {
    judge_stalls_and_facts(cols, dir, threshold_s, lag_s, path_rtt_s, full_segment, numbered, mss_estimate(cols, dir), scale_known).0
}

/// [`judge_stalls`] with `mss` = [`mss_estimate`] of `dir` already known, and the
/// direction's facts from the same pass, for the share pass (summary.rs).
#[allow(clippy::too_many_arguments)]
pub fn judge_stalls_and_facts(cols: &PacketColumns, dir: u8, threshold_s: f64, lag_s: f64, path_rtt_s: Option<f64>, full_segment: u32, numbered: bool, mss: f64, scale_known: bool) -> (Vec<Stall>, SenderFacts) {
    let (mut stalls, facts, free) = find_stalls_finding_facts(cols, dir, lag_s, (mss, f64::from(full_segment)), threshold_s, path_rtt_s, scale_known);
    // Silence behind a window below one segment reads as application idle (rule 3c).
    crate::analysis::stalls::small_window::reclassify(&mut stalls, cols, dir, mss.min(f64::from(full_segment) + 40.0), scale_known, lag_s, path_rtt_s);
    // The receiver's delayed ACK is timed from the receiver: capture → receiver → capture is the path RTT less the sender lag.
    let to_receiver_s = path_rtt_s.map_or(0.0, |r| r - lag_s);
    let window = (scale_known && !facts.windows_understated).then(|| mss.min(f64::from(full_segment) + 40.0));
    crate::analysis::stalls::delayed_ack::reclassify(&mut stalls, cols, dir, full_segment, (to_receiver_s, lag_s), window);
    // A gap the path made reads as application idle too: the sender's clock tells.
    super::held_on_path::reclassify(&mut stalls, cols, lag_s, &free);
    crate::analysis::stalls::unseen_timeout::reclassify(&mut stalls, cols, dir, lag_s, path_rtt_s, full_segment, numbered); // a timeout whose lost segment never reached the capture reads as application idle
    crate::analysis::stalls::acked_resend::reclassify(&mut stalls, cols, dir); // so does a timer re-sending what the peer had acknowledged
    crate::analysis::stalls::hole_resend::reclassify(&mut stalls, cols, dir, lag_s, path_rtt_s); // and a timer re-sending a hole behind new data
    crate::analysis::stalls::request_turn::split(&mut stalls, cols, dir, threshold_s); // the peer's pause before its lost request
    (stalls, facts)
}

#[cfg(test)]
#[path = "stall_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "stall_testkit.rs"]
pub(crate) mod testkit;
