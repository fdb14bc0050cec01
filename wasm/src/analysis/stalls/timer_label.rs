//! A timer stall's label follows the counters (docs/ANALYSIS.md "Stall causes",
//! `tail-loss-probe`; issue 39 review AD/AH class C-RTO-STALL-WITHOUT-TIMEOUT).
//!
//! The stall rules call a gap `retransmission-timeout` when a re-send ended it long after
//! the receiver's last feedback (gaps/classify.rs rule 2, hole_resend.rs). The counters
//! (loss/retrans_kinds.rs, checked against the kernel's nstat) say which timer sent that
//! re-send, and the page must not say one thing in the stalls and another in the counts.
//! So, last of the stall rules, each such stall is read again by the re-send that ended
//! it — the sender's first re-send captured from the gap's last packet through the
//! flight that ended it (hole_resend.rs `resend_in_flight`):
//! 1. It answered the peer within [`ANSWER_MAX_S`] in the sender's time (the peer's
//!    packet could have reached the sender just before): the peer's packet sent it, no
//!    timer of the sender's. Where that packet was the peer's own timer re-send (its
//!    SYN/ACK or a segment re-sent by its retransmission timer, RFC 6298 §5 / RFC 9293
//!    §3.8.1) the gap was that timer's: the peer had not received this side's packets,
//!    and the label stays a retransmission timeout — the peer's, said so. Else the
//!    sender waited on that packet (`ack-wait`): the path, not a timer.
//!    Carperis WebRTC_Testbench messenger case 9 caller conn 26: the client's ACK, data
//!    and FIN (23.061 s) never reached the server, whose SYN/ACK timer re-sent at
//!    25.071 s (f1152); the client answered 35 µs later (f1154) — once "no
//!    retransmission timeout counted" beside "2 s of it waiting on retransmission
//!    timeouts".
//! 2. Counted a tail-loss probe (`KIND_TLP`): `tail-loss-probe`, the probe timer of RFC
//!    8985 §7 (about two smoothed round trips after the last send, re-sending the last
//!    segment), not a timeout; where the receiver reported it a duplicate (D-SACK, RFC
//!    2883) nothing was lost and the ACKs were late. brianlochanan android-runner
//!    test.pcapng conn 1: f1690 41 ms after f1689, D-SACKed by f1694 (tailLossProbes 1,
//!    rtoEvents 0) — once "41 ms retransmission timeout".
//! 3. Counted a fast or recovery retransmission (`KIND_FAST` without a timer kind): the
//!    receiver's ACKs sent it (RFC 5681 §3.2, RFC 6675 §5, RACK RFC 8985 §6), so the
//!    sender was waiting on ACKs (`ack-wait`). RoyhanJordy29 wireshark.pcapng conn 6:
//!    the 414 ms stall ended by frame 200 ("recovery retransmission"), once counted among
//!    "566 ms for retransmission timers" beside "no retransmission timeout counted".
//! 4. Counted a timeout (`KIND_RTO`) or a slow-start re-send after one (`KIND_SLOW_START`,
//!    counted only in a counted timeout's loss state), or no re-send in the ending
//!    flight (the other evidence of the rules: the peer's re-sent request, a datagram
//!    never captured, a re-send still unacknowledged when the gap began): unchanged.

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::rows::columns::{flag_bits as fb, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};
use crate::analysis::stalls::hole_resend::resend_in_flight;
use crate::analysis::stalls::gaps::ack_clocked;
use crate::analysis::stalls::{needless, peer_timer_resend};

/// A re-send captured this soon after the peer's packet (in the sender's time) answered
/// it: a stack answers a packet at once (tens of µs), and no timer fires within a
/// millisecond of an ACK that re-armed it (RFC 6298 §5.3; the shortest RTO, Linux's
/// 200 ms, and the probe's 2·SRTT ≥ 10 ms floor, RFC 8985 §7.2, are far above).
pub const ANSWER_MAX_S: f64 = 1e-3;

/// Re-labels `dir`'s `retransmission-timeout` stalls by the counted kind of the re-send
/// that ended each (module doc). `lag_s`: the sender lag (0 at the sender); `path_rtt_s`:
/// the path round trip the stall rules used (gaps.rs `round_trip_bound_s`).
pub fn relabel(stalls: &mut [Stall], p: &PacketColumns, dir: u8, lag_s: f64, path_rtt_s: Option<f64>) {
    let lag_s = lag_s.max(0.0);
    for s in stalls.iter_mut().filter(|s| s.cause == StallCause::RetransmissionTimeout) {
        let Some((i, j)) = p.rows_of(s.frame_before, s.frame_after, s.start, s.duration) else { continue };
        if probe_ack_wait(p, dir, i, s) {
            // Rule 2b's wait for the ACK of the re-send the gap began with, where that
            // re-send was a counted tail-loss probe: the probe's round trip, no timeout
            // (synthetic download_with_one_loss frames 35 → 37, rr-loss.pcap).
            s.cause = StallCause::TailLossProbe;
            s.ended_by = format!("{}; the wait for the ACK of the tail-loss probe the gap began with (frame {}, RFC 8985 §7), not a retransmission timeout", s.ended_by, p.frame[i]);
            continue;
        }
        let Some(k) = first_resend(p, dir, (i, j), lag_s) else { continue };
        // A re-send answering the peer's packet ended a wait inside loss recovery (a hole was
        // open: the re-send repairs it): loss's time, not `ack-wait`, which is data in flight
        // with no loss (DESIGN.md; review AM, chapter09 Rox_vs_OpenFlow #11/#32: the go-back-N
        // after a timeout read "waiting on ACKs … would have taken 1.9 s"). No captured-
        // recovery cause exists yet (`loss-recovery` is for re-sends this capture did not see,
        // reported_loss.rs): the counted kind below decides, as for any other re-send.
        if let Some(r) = answered(p, dir, (i, k), lag_s).filter(|&r| peer_timer(p.flags[r])) {
            let since = format_duration((p.t[k] - p.t[r]).max(0.0));
            let what = peer_what(p, r);
            // The peer's timer: a retransmission timeout still, the peer's (module doc 1).
            s.ended_by = format!(
                "the peer's retransmission timer: its {what} re-sent at {} (frame {}) — it had not received this side's packets — answered by this side's re-send {since} later (frame {}), no timer of this side's",
                format_timestamp(p.t[r]),
                p.frame[r],
                p.frame[k]
            );
            continue;
        }
        let f = p.flags[k];
        let timer = f & (fb::KIND_RTO | fb::KIND_SLOW_START) != 0;
        if f & fb::KIND_TLP != 0 && !timer && s.duration > probe_wait_max_s(path_rtt_s) {
            // Counted a probe, but after a longer silence than a probe timer waits: both said.
            s.ended_by = format!(
                "{}; counted as a tail-loss probe, but sent {} after the gap began, longer than a probe timer waits (RFC 8985 §7.2: two round trips and a delayed ACK's 200 ms): a timeout's wait",
                s.ended_by,
                format_duration(s.duration)
            );
        } else if f & fb::KIND_TLP != 0 && !timer {
            s.cause = StallCause::TailLossProbe;
            // Needless by the receiver's D-SACK or its ACK's timestamp echo (RFC 2883, RFC
            // 3522): the probed bytes had arrived; their ACKs were late or lost (reqresp-
            // blackhole.pcap frame 1108 echoes the original's TSval, not the probe's).
            let dup = if needless(f) { "; the receiver already had those bytes (its D-SACK or its ACK's timestamp echo says so, RFC 2883, RFC 3522): the data had arrived, its ACKs came late or were lost" } else { "" };
            // No "two round trips" here: with one segment out the probe waits a delayed
            // ACK's 200 ms more (RFC 8985 §7.2; Wireshark x11-xtest.pcap frame 238, 202 ms
            // on a LAN), and a share link stores these words (share_links.rs rr-loss).
            let probe = format!(
                "tail-loss probe of {} bytes at {} (frame {}): the probe timer (RFC 8985 §7), not a retransmission timeout{dup}",
                p.len[k],
                format_timestamp(p.t[k]),
                p.frame[k]
            );
            // Rule 2's words name the kind already; the other rules' say what else the capture showed.
            s.ended_by = if s.ended_by.starts_with("tail loss probe") { probe } else { format!("{}; counted as a {probe}", s.ended_by) };
        } else if f & fb::KIND_FAST != 0 && !timer {
            // The counters' kind and the time since the receiver's last packet agree
            // (the one shared test, loss/timer_driven.rs): the ACKs sent it.
            // The receiver's last packet that could have reached the sender before it sent
            // this (one sender lag before its capture): a later one crossed it (zeek
            // tcp/reassembly.pcap frame 114, 8 ms after an ACK over a 30 ms lag, the slow
            // start of a 3.2 s timeout).
            let last_peer = (k.saturating_sub(LOOK_BACK)..k).rev().find(|&r| p.dir[r] != dir && p.t[r] + lag_s <= p.t[k] + LAG_SLACK_S);
            let since = last_peer.map_or(f64::INFINITY, |r| p.t[k] - p.t[r]);
            // Fast recovery's wait is loss's time, not `ack-wait` (data in flight with no
            // loss, DESIGN.md; see the answered case above, review AM): no captured-
            // recovery cause exists yet, so an ACK-clocked one keeps its label and words.
            if !ack_clocked(f, since, path_rtt_s, lag_s) && since.is_finite() && !s.ended_by.contains("counted as recovery") {
                // Counted recovery, but sent longer after the receiver's last packet than
                // ACKs clock a re-send: both facts said (zeek tcp/reassembly.pcap frame
                // 35, 1.6 s after the last duplicate ACK of a 30 ms path).
                s.ended_by = format!(
                    "{}; counted as recovery, but sent {} after the receiver's last packet, longer than ACKs take to clock a re-send: a timer's wait that no timeout counter counts",
                    s.ended_by,
                    format_duration(since)
                );
            }
        }
    }
}

/// A rule-2b stall (gaps/classify.rs: the gap began with a re-send still unacknowledged
/// and ended with new data after it, "new data after the retransmitted data …") whose
/// first row `i` is `dir`'s re-send counted a tail-loss probe and no timer kind.
fn probe_ack_wait(p: &PacketColumns, dir: u8, i: usize, s: &Stall) -> bool {
    let f = p.flags[i];
    s.ended_by.starts_with("new data after the retransmitted data")
        && p.dir[i] == dir
        && f & fb::KIND_TLP != 0
        && f & (fb::KIND_RTO | fb::KIND_SLOW_START) == 0
}

/// The longest silence a tail-loss probe ends: its timer waits two smoothed round trips,
/// plus the worst delayed ACK (200 ms) with one segment in flight, or 1 s without a round
/// trip (RFC 8985 §7.2), and never past the retransmission timer; four path round trips
/// and 250 ms allow for a smoothed RTT above the path's. elad361 CCMeasure
/// `25_Pecent.pcapng` frames 14 → 15: a re-send 4.6 s after the last send on loopback,
/// counted a probe, was the backed-off timer's.
pub fn probe_wait_max_s(path_rtt_s: Option<f64>) -> f64 {
    path_rtt_s.map_or(1.25, |r| 4.0 * r + 0.25)
}

/// Rows looked back for the receiver's last packet before a re-send.
const LOOK_BACK: usize = 4096;

/// The sender's first re-send from a gap's first row `i` on (through its last, `j`): one
/// of its segments, or a FIN re-sent alone (no data, no gap of its own), or else the
/// first of the flight that ended the gap (hole_resend.rs).
/// Only a re-send in the gap's second half ended its silence: a FIN (or reset) re-sent at
/// its start, 30 s before a timeout re-send of data, did not (nfstream
/// `reasm_crash_anon.pcapng` frames 34 → 35).
pub fn first_resend(p: &PacketColumns, dir: u8, (i, j): (usize, usize), lag_s: f64) -> Option<usize> {
    let half = 0.5 * (p.t[i] + p.t[j]);
    let resend = |r: usize| p.dir[r] == dir && p.flags[r] & fb::ANY_RETRANSMISSION != 0 && (p.len[r] > 0 || p.flags[r] & (FIN | RST) == FIN) && p.t[r] >= half;
    (i + 1..=j).find(|&r| resend(r)).or_else(|| resend_in_flight(p, dir, j, lag_s.max(0.0)))
}

/// The peer's packet that re-send row `k` answered (rule 1): the peer's last packet
/// after the gap began (row `i`), and `k` captured within [`ANSWER_MAX_S`] of the
/// sender's having it — one sender lag after it passed the capture point (the packet's
/// way on to the sender and the answer's back), less [`LAG_SLACK_S`] for the lag's own
/// error. A re-send sooner than that left before the packet reached the sender: at a
/// receiver-side capture, 54 ms after the client's delayed ACK over a 62 ms lag, a
/// server's probe crossed that ACK (elh313 compnet `nat.pcap` frames 12 → 13: D-SACKed,
/// a tail-loss probe, not an answer).
pub fn answered(p: &PacketColumns, dir: u8, (i, k): (usize, usize), lag_s: f64) -> Option<usize> {
    let r = (i + 1..k).rev().find(|&r| p.dir[r] != dir)?;
    let since = p.t[k] - p.t[r] - lag_s.max(0.0);
    (since >= -LAG_SLACK_S && since < ANSWER_MAX_S).then_some(r)
}

/// How much sooner than one sender lag after the peer's packet an answer may be captured:
/// the lag is one estimate (timing/vantage.rs), off by tens of µs on a LAN (Carperis
/// messenger case 9: a 40 µs lag, the answer 35 µs after the SYN/ACK).
pub const LAG_SLACK_S: f64 = 100e-6;

/// A packet of the peer its retransmission timer re-sent: a SYN/ACK re-sent (only a
/// timer re-sends a SYN, RFC 9293 §3.8.1, RFC 6298 §5.7) or a segment counted a timeout
/// or probe (stalls/gaps/resends.rs `peer_timer_resend`).
pub fn peer_timer(flags: u32) -> bool {
    (flags & SYN != 0 && flags & fb::ANY_RETRANSMISSION != 0) || peer_timer_resend(flags)
}

/// A peer's packet in words.
fn peer_what(p: &PacketColumns, r: usize) -> &'static str {
    if p.flags[r] & SYN != 0 {
        "SYN/ACK"
    } else if p.len[r] > 0 {
        "segment"
    } else {
        "packet"
    }
}

/// The TCP header's FIN and SYN bits in `flags` (rows/columns.rs: the low 8 bits).
const FIN: u32 = 0x01;
const SYN: u32 = 0x02;
const RST: u32 = 0x04;
