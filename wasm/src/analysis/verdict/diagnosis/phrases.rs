//! The pieces the diagnosis's sentences are made of (diagnosis.rs): counts and percents
//! of retransmissions, the rate and RTT phrases, the queue, ECN and capture-loss notes,
//! and the tests that decide which of them a sentence says.

use super::*;
use crate::analysis::format::plural;

/// Headline of a flow with much loss that loss did not slow down (issue 13: "a BBR
/// flow at 90.6 of 100 Mbit/s with 2 % random loss" is not "limited by loss").
pub(super) fn path_despite_loss_text(f: &Facts) -> String {
    // A transfer shorter than 7 rate bins has no sustained best to quote (NaN):
    // say nothing rather than "its best of –" (rx-ipv6-loss.pcap, 0.5 s).
    let DeliveredRates { best_bps: best, steady_mean_bps: steady } = f.delivered();
    let mut best = if best.is_finite() { format!(", steadily near its best of {}", format_rate(best)) } else { String::new() };
    // A mean dragged down by the start-up ramp (slow start, BBR's startup) is not
    // "near its best": say what it ran at once started (delivered.rs).
    if steady.is_finite() && steady > STEADY_ABOVE_MEAN * f.rate {
        best = format!(", {} once its start-up was over{best}", format_rate(steady));
    }
    // Neither where the capture ends inside start-up (start_up_growth.rs).
    if let Some(g) = super::start_up_growth::still_growing(f) {
        best = super::start_up_growth::phrase(&g);
    }
    // The comparison is with the losses re-sends repaired (`repaired_fraction`): copies of
    // data that had arrived lost nothing to back off from (saikowshik07 icmp.pcapng #11).
    let repaired = repaired_fraction(f);
    if repaired < 1.0 && !(mathis_at(f, loss_rate(f) * repaired) * BEATS_MATHIS < f.rate) {
        return path_text(f);
    }
    format!(
        "The path's capacity limited this flow, not its loss: {}{}.{}",
        rate_phrase(f).replacen("the flow averaged", "it averaged", 1),
        best,
        loss_cheap_text(f)
    )
}

/// "2.0 % of the bytes sent were retransmissions, yet …": the cost of loss for a sender that
/// did not back off: retransmitted bytes plus time in retransmission timeouts.
pub(super) fn loss_cheap_text(f: &Facts) -> String {
    let all = loss_rate(f);
    let p = all * repaired_fraction(f);
    let cost = loss_cost(f);
    // Needless copies are re-sent bytes but no loss: said apart.
    let repaired = if p < all { format!(" that repaired a loss ({} re-sent in all, the rest needless)", format_percent_fine(all)) } else { String::new() };
    format!(
        " {} of {} were retransmissions{repaired}, yet the flow ran at {}, {:.0}× what a \
         loss-based sender reaches at that loss rate and RTT ({}, Mathis et al.): the sender did \
         not back off on loss (BBR does not), so removing the loss would gain only about {}.",
        format_percent_fine(p),
        retransmitted_share_of(f),
        format_rate(f.rate),
        f.rate / mathis_at(f, p),
        format_rate(mathis_at(f, p)),
        format_percent_fine(cost)
    )
}

/// Mathis et al.'s loss-based rate (recovery.rs `mathis_rate`) at loss rate `p`.
fn mathis_at(f: &Facts, p: f64) -> f64 {
    let mss = segment_bytes(f);
    if p <= 0.0 || !(f.min_rtt > 0.0) || mss <= 0.0 {
        return f64::NAN;
    }
    mss * 8.0 / f.min_rtt * (1.5f64).sqrt() / p.sqrt()
}

/// Of the data direction's re-sent bytes, the share whose re-send may have repaired a
/// loss: not shown needless (D-SACK, Eifel, or at the sender by the ACKs' timing and
/// order, loss/needless_resends.rs). 1 where nothing was re-sent.
pub(super) fn repaired_fraction(f: &Facts) -> f64 {
    use crate::analysis::rows::columns::flag_bits as fb;
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let (mut high, mut all, mut repaired) = (f64::NAN, 0.0, 0.0);
    for i in (0..p.t.len()).filter(|&i| p.dir[i] == d && p.len[i] > 0) {
        let (seq, end) = (p.seq[i], p.seq[i] + p.len[i] as f64);
        if high.is_finite() && seq < high && p.flags[i] & (fb::ANY_RETRANSMISSION | fb::ANY_KIND) != 0 {
            let b = high.min(end) - seq;
            all += b;
            if p.flags[i] & (fb::KIND_SPURIOUS | fb::SPURIOUS_RETRANSMISSION) == 0 {
                repaired += b;
            }
        }
        high = if high.is_finite() { high.max(end) } else { end };
    }
    if all > 0.0 { repaired / all } else { 1.0 }
}

/// "28 of 1070 data segments"; where the capture's frames hold several segments each
/// (TSO at the sender, GRO at the receiver: `retransmittedSegments` > the frames, so a
/// re-sent frame carried more than the MSS its receiver announced — handshake.rs
/// `send_mss`), the kernel's count of segments first, then the frames, so that neither is
/// called the other, and the largest frame's payload as the evidence.
pub(super) fn retransmitted_count_phrase(f: &Facts, frames: u64) -> String {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    let data = data_resends(f);
    let frames = frames.min(data.frames.max(f.sh.retransmitted_segments));
    // The kernel's segment count without the re-sends that carried no data.
    let segments = sender.retransmitted_segments.saturating_sub(data.without_data);
    // (The counters are the connection's: not quoted of a transfer cut before a peer's silence, peer_silent.rs.)
    let count = if segments > frames && f.sh.peer_silent.is_none() {
        format!(
            "{} segments, re-sent in {} of {} data frames: the capture holds TSO/GRO frames of up to {} bytes, several segments each",
            segments, frames, f.sh.data_segments, f.sh.mss
        )
    } else {
        format!("{} of {} data segments", frames, f.sh.data_segments)
    };
    // Re-sends the report shows needless (D-SACK, Eifel) repaired nothing: said, so the
    // percentage is not read as that much loss.
    let shown = crate::analysis::verdict::peer_silent::needless_before(f.rows.packets, f.conn.data_direction.min(1), f.sh).map_or(sender.spurious_retransmissions, |n| n.min(sender.spurious_retransmissions));
    // Where FINs or ACKs were re-sent alone, only the data re-sends shown needless.
    let needless = match if data.without_data > 0 { shown.min(data.needless).min(frames) } else { shown } {
        0 => String::new(),
        n => format!(", {n} of them needless: the receiver already had those bytes"),
    };
    count + &needless + &unseen_datagrams_phrase(sender, frames.max(segments)) + &unseen_resends_phrase(sender)
}

/// The data sender's re-sends by whether they carried data: a FIN or a pure ACK re-sent
/// alone is a retransmission (Wireshark counts it, `retransmissions`,
/// `spuriousRetransmissions`) but no data segment, so "3 of 2 data segments" counted a
/// re-sent FIN among the data (review AH, Carperis messenger case 9 caller conn 26: one
/// 28-byte segment re-sent with its FIN, and the FIN alone before it).
struct DataResends {
    /// Re-sent frames with data, those of them shown needless, and re-sends without data.
    frames: u64,
    needless: u64,
    without_data: u64,
}

fn data_resends(f: &Facts) -> DataResends {
    use crate::analysis::rows::columns::flag_bits as fb;
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let mut out = DataResends { frames: 0, needless: 0, without_data: 0 };
    for i in (0..p.t.len()).filter(|&i| p.dir[i] == d && p.flags[i] & fb::ANY_RETRANSMISSION != 0) {
        if p.len[i] == 0 {
            out.without_data += 1;
        } else {
            out.frames += 1;
            out.needless += u64::from(crate::analysis::stalls::needless(p.flags[i]));
        }
    }
    out
}

/// "; the receiver's SACK blocks show N more segments re-sent where this capture did not
/// see them (M of them lost after …)" (`direction.unseenResends`, `lostAfterCapture`,
/// loss/reported.rs): loss the captured re-sends alone would not show.
pub(super) fn unseen_resends_phrase(sender: &crate::analysis::report::DirectionSummary) -> String {
    if sender.unseen_resends == 0 {
        return String::new();
    }
    let after = match sender.lost_after_capture {
        0 => String::new(),
        // Not more loss: of every segment the SACK blocks reported lost, those that had
        // passed this capture point, whether their re-send was seen or not (reported.rs).
        n => format!("; of all the segments they reported lost, {} had passed this capture point (lost after it)", n),
    };
    let n = sender.unseen_resends;
    format!(
        "; the receiver's SACK blocks show {n} more segment{} re-sent where this capture did not see {}{after}",
        if n == 1 { "" } else { "s" },
        if n == 1 { "it" } else { "them" }
    )
}

/// The loss a capture that saw no re-send still proves: "the receiver's SACK blocks show
/// N segments lost and re-sent where this capture did not see the re-sends (M of them
/// lost after …)" (`direction.unseenResends`, `lostAfterCapture`, loss/reported.rs).
pub(super) fn unseen_loss_phrase(sender: &crate::analysis::report::DirectionSummary) -> String {
    let n = sender.unseen_resends;
    let after = match sender.lost_after_capture.min(n) {
        0 => String::new(),
        m => format!(" ({m} of them lost after this capture point had seen {} pass)", if m == 1 { "it" } else { "them" }),
    };
    format!(
        "the receiver's SACK blocks show {} lost and re-sent where this capture did not see the re-send{}{after}{}",
        plural(n, "segment"),
        if n == 1 { "" } else { "s" },
        unseen_datagrams_phrase(sender, 0)
    )
}

/// "; 1 datagram of the sender lost before the capture point …" past the sender
/// (sender lag > 0), where its IPv4 numbering tells (`direction.unseenDatagrams`) and
/// the count differs from the re-sent frames seen: a segment lost at the tail of a
/// flight is re-sent as what the capture takes for new data, so the count of re-sends
/// alone would say less loss (or none) than there was.
pub(super) fn unseen_datagrams_phrase(sender: &crate::analysis::report::DirectionSummary, resent_frames: u64) -> String {
    match sender.unseen_datagrams {
        Some(n) if n > 0 && n != resent_frames && sender.sender_lag_ms > 0.0 => format!(
            "; by its IPv4 numbering {n} datagram{} of the sender never reached the capture (lost on the way, \
             dropped in the sender's own queue, or by the capture itself)",
            if n == 1 { "" } else { "s" }
        ),
        _ => String::new(),
    }
}

pub(super) fn format_percent_fine(share: f64) -> String {
    if share < 0.095 { format!("{:.1} %", share * 100.0) } else { format_percent(share) }
}

/// A standing queue at the bottleneck: the median RTT grew to [`QUEUEING_RTT_RATIO`] × its
/// minimum, or the queue said so itself — at least [`CE_QUEUE_SHARE`] of the data's
/// ECN-capable segments arrived marked Congestion Experienced (RFC 3168 §5: a router
/// marks instead of dropping once its queue passes a threshold; under L4S, RFC 9331,
/// marks come before any queue a round trip would show). Issue 46: CE marks are evidence
/// of a queue, before and apart from loss.
pub(super) fn queueing(f: &Facts) -> bool {
    rtt_queueing(f) || ce_share(f.conn) >= CE_QUEUE_SHARE
}

/// The median round trip at least [`QUEUEING_RTT_RATIO`] × the path's, and at least
/// [`QUEUE_MIN_DELAY_S`] above it: below a millisecond the spread is the hosts' own
/// (scheduling, interrupt moderation, a VM's virtual NIC), not a queue one can act on
/// (a loopback connection at 5 → 8 µs once read "a queue on the path").
/// And a queue the flow built itself ([`own_queue`]): round trips that rose with its own
/// flight, outages left out (a flat few-segment flight queues nothing; review AJ).
pub(super) fn rtt_queueing(f: &Facts) -> bool {
    rtt_grew(f) && own_queue::median(f).is_some()
}

/// The median round trip at least [`QUEUEING_RTT_RATIO`] × the path's and
/// [`QUEUE_MIN_DELAY_S`] above it, whatever the cause: the headline's choice between loss
/// and a queue's overflow ([`loss_held_cwnd`]) stays on it (the loss words are judged there).
pub(super) fn rtt_grew(f: &Facts) -> bool {
    f.median_rtt.is_finite()
        && f.min_rtt > 0.0
        && f.median_rtt >= QUEUEING_RTT_RATIO * f.min_rtt
        && f.median_rtt - f.min_rtt >= QUEUE_MIN_DELAY_S.max(2.0 * f.tick)
}

/// The median round trip of the queue [`rtt_queueing`] shows, s: where samples that
/// timed an outage were left out, the median of the rest ([`own_queue`]); else the
/// connection's.
pub(super) fn queued_median(f: &Facts) -> f64 {
    own_queue::outage_median(f).unwrap_or(f.median_rtt)
}

// The evidence of a queue the flow built: round trips rising with its flight.
#[path = "own_queue.rs"]
pub(super) mod own_queue;

/// Smallest median − minimum round trip said to be a queue, s.
pub const QUEUE_MIN_DELAY_S: f64 = 0.001;

/// Share of the data direction's ECN-capable data segments that arrived CE-marked.
pub(super) fn ce_share(conn: &ConnectionSummary) -> f64 {
    let d = conn.data_direction.min(1) as usize;
    conn.directions[d].ecn.map_or(0.0, |e| e.ce_share())
}

/// CE-marked share of the ECN-capable data from which a queue is taken as shown.
pub const CE_QUEUE_SHARE: f64 = 0.01;

/// Retransmitted segments of the data direction: the analyzer's count (Wireshark's
/// rules) or ours (segments starting below the highest sequence sent), the larger.
pub(super) fn retransmissions(f: &Facts) -> u64 {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    // Before a peer's silence, the transfer's own (peer_silent.rs: the re-sends into it are not the transfer's).
    if f.sh.peer_silent.is_some() { f.sh.retransmitted_segments } else { sender.retransmissions.max(f.sh.retransmitted_segments) }
}

/// What [`retransmitted_percent`] divides by, in the sentence's words: the data bytes the
/// capture saw. At the sender's own host that is every byte sent; anywhere else an
/// original lost before the capture point never reached it while its re-send did, so
/// the share is of the bytes that reached the capture point (a receiver-side capture with
/// upstream loss: 762 kB re-sent in 2,596 kB received is 29 % of those, about 23 % of
/// what the sender sent — how many re-sends were lost too, this capture cannot tell).
pub(super) fn retransmitted_share_of(f: &Facts) -> &'static str {
    if f.conn.vantage == crate::analysis::timing::vantage::Vantage::Sender {
        "the bytes sent"
    } else {
        "the bytes that reached the capture point"
    }
}

/// Retransmitted payload bytes per 100 payload bytes of the data segments the capture saw
/// (docs/ANALYSIS.md "diagnosis.text"; the words: [`retransmitted_share_of`]): by bytes,
/// since a capture with TSO/GRO holds data frames of many segments beside single-segment
/// re-sends.
pub(super) fn retransmitted_percent(f: &Facts) -> f64 {
    if f.sh.data_bytes > 0.0 {
        f.sh.retransmitted_bytes * 100.0 / f.sh.data_bytes
    } else {
        retransmissions(f) as f64 * 100.0 / f.sh.data_segments.max(1) as f64
    }
}

/// The cwnd was held down by loss: see the module comment.
pub(super) fn loss_held_cwnd(f: &Facts) -> bool {
    let bound = mathis_rate(f);
    // Or little time in recovery but a rate at the loss-based bound itself: SACK
    // recovery is quick, the cost is the window it halves (Mathis et al.).
    // Not where the round trip beyond a receiver-side capture is known only by its
    // minimum: a queue there would make the bound far lower (rx-bufferbloat-nots.pcap:
    // at the bound with the 10 ms minimum, 9× above it with the 90 ms the sender saw).
    let at_the_bound = bound.is_finite() && f.rate <= AT_MATHIS * bound && f.rate * AT_MATHIS >= bound && !far_part_unseen(f.conn);
    // A loss only where a re-send shows one: re-sends all shown needless (D-SACK, Eifel)
    // repaired nothing, and the sender undid the window it gave up for them (RFC 3708,
    // RFC 4015; Linux tcp_try_undo_dsack), so no loss held its congestion window — one
    // needless fast retransmission after reordering in 201 segments put a flow "at the
    // loss-based bound" of a 0.5 % loss rate that never was (issue 39).
    let needless = f.conn.directions[f.conn.data_direction.min(1) as usize].spurious_retransmissions;
    let repaired = retransmissions(f).saturating_sub(needless);
    // The bound is a steady state of periodic loss (Mathis et al. 1997 §2: one loss per
    // 1/p packets, the window's sawtooth between them): one repaired loss cut the window
    // once and gives no loss rate to be "at" — a flow at the bound by that one loss is a
    // coincidence (review AL, DSPJ2021 baseline-with-latency-6 10.6.0.16 #203: 1 re-send in
    // 1,119 segments, 6 % of the time recovering, turns 72 %, headlined "Loss limited").
    let at_the_bound = at_the_bound && repaired >= MATHIS_MIN_LOSSES;
    repaired > 0 && (f.shares.loss >= LOSS_SHARE_MIN || at_the_bound) && !(rtt_grew(f) || ce_share(f.conn) >= CE_QUEUE_SHARE)
}

/// Repaired losses (re-sends not shown needless) before a rate can be at the Mathis bound:
/// with one, the sawtooth the bound models never repeated (`loss_held_cwnd`).
pub const MATHIS_MIN_LOSSES: u64 = 2;

/// A rate this close to the Mathis bound (within this factor either way) is that
/// bound's; far below it, something else held the flow down.
pub const AT_MATHIS: f64 = 1.5;

pub(super) fn rate_phrase(f: &Facts) -> String {
    // No rate while active (docs/ANALYSIS.md `throughput.activeMeanBps`: no burst held two
    // data segments): what the flow did instead, over the whole connection.
    let sent = &f.conn.directions[f.conn.data_direction.min(1) as usize];
    if !f.rate.is_finite() && sent.payload_bytes > 0 {
        return format!(
            "the flow sent {} in {}, each burst a lone segment, too little together for a rate while active",
            crate::analysis::format::format_bytes(sent.payload_bytes as f64),
            format_duration(f.conn.end - f.conn.start)
        );
    }
    format!("the flow averaged {} while active", format_rate(f.rate))
}

pub(super) fn rtt_phrase(f: &Facts) -> String {
    if f.min_rtt.is_finite() && crate::analysis::timing::vantage::is_within_a_tick(&f.conn.path_rtt_method) {
        // Every round trip read as about one tick: a bound, not a measurement (vantage.rs).
        format!("a path RTT of one tick of the capture clock ({}) or less", format_duration(f.tick))
    } else if f.min_rtt.is_finite() {
        format!("a path RTT of {}", format_duration(f.min_rtt))
    } else if f.tick > 0.001 || (f.tick > 0.0 && f.conn.path_rtt_method == crate::analysis::timing::vantage::BELOW_ONE_TICK) {
        // A fine tick too (a clock filling its 0.16 ms ticks with µs, clock.rs rule 3).
        format!("an unknown RTT (every round trip was below the capture clock's {} tick)", format_duration(f.tick))
    } else {
        "an unknown RTT (no round trip could be measured)".to_string()
    }
}

/// The congestion the network signalled by ECN instead of drops (RFC 3168 §5–6), which
/// no loss or retransmission count shows: CE marks on the data (seen where the capture
/// is past the marking router, e.g. at the receiver), the receiver's echoes (ECE, on
/// its ACKs until the sender answers) and the sender's window reductions (CWR). None
/// when there was none. Under Accurate ECN only the CE marks are quoted (ecn.rs).
pub(super) fn ecn_text(conn: &ConnectionSummary) -> Option<String> {
    let d = conn.data_direction.min(1) as usize;
    let data = conn.directions[d].ecn?;
    let echoes = conn.directions[1 - d].ecn.and_then(|e| e.ece).unwrap_or(0);
    if data.ce == 0 && echoes == 0 {
        return None;
    }
    let parts = ecn_parts(conn);
    Some(format!(
        "The network signalled congestion by ECN instead of dropping packets: {}. Loss and retransmission counts do not show this congestion (RFC 3168).",
        parts.join("; ")
    ))
}

/// "52 of 168 ECN-capable data segments arrived marked Congestion Experienced (31 %)",
/// "the receiver echoed congestion on 131 ACKs (ECE)", "the sender reduced its window 46
/// times (CWR)": each count that is not 0 (ecn_text, and ecn_words.rs's headline).
pub(super) fn ecn_parts(conn: &ConnectionSummary) -> Vec<String> {
    let d = conn.data_direction.min(1) as usize;
    let Some(data) = conn.directions[d].ecn else { return Vec::new() };
    let echoes = conn.directions[1 - d].ecn.and_then(|e| e.ece).unwrap_or(0);
    let reductions = data.cwr.unwrap_or(0);
    let mut parts = Vec::new();
    if data.ce > 0 {
        parts.push(format!(
            "{} of {} ECN-capable data segments arrived marked Congestion Experienced ({})",
            data.ce,
            data.capable(),
            format_percent_fine(data.ce_share())
        ));
    }
    if echoes > 0 {
        parts.push(format!("the receiver echoed congestion on {echoes} ACK{} (ECE)", if echoes == 1 { "" } else { "s" }));
    }
    if reductions > 0 {
        parts.push(format!("the sender reduced its window {reductions} time{} (CWR)", if reductions == 1 { "" } else { "s" }));
    }
    parts
}

/// Where the capture itself missed much of what the receivers acknowledged
/// (capture_loss.rs), every rate and time above covers only what it holds (issue 39:
/// a capture holding 0.27 % of a 6.5 Mbit/s upload read "17 kbit/s while active").
/// Said from [`CAPTURE_LOSS_SAID`] of the acknowledged bytes on.
pub(super) fn capture_loss_text(conn: &ConnectionSummary) -> Option<String> {
    // A silence the capture made (stalls/capture_stall.rs), named whatever its share.
    let stalled = crate::analysis::stalls::capture_stall::sentence([&conn.directions[0].stalls, &conn.directions[1].stalls]);
    match (missed_text(conn), stalled) {
        (Some(m), Some(s)) => Some(format!("{m} {s}")),
        (m, s) => m.or(s),
    }
}

/// The capture's missed bytes, where they are a tenth of the data or more.
fn missed_text(conn: &ConnectionSummary) -> Option<String> {
    let loss = conn.capture_loss;
    let captured: u64 = conn.directions.iter().map(|d| d.payload_bytes).sum();
    let acknowledged = captured + loss.unseen_bytes;
    if acknowledged == 0 || (loss.unseen_bytes as f64) < CAPTURE_LOSS_SAID * acknowledged as f64 {
        return None;
    }
    // A sender never has more than a window outstanding (RFC 9293 §3.8.6.2.1), so a hole
    // larger than every window the receivers advertised is no hole of this connection's
    // data: sequence numbers rewritten by a middlebox, or two flows mixed. Not said.
    let largest_window = conn.directions.iter().filter_map(|d| d.receive_window.map(|w| w.max)).max().unwrap_or(0);
    if loss.unseen_bytes > loss.holes.max(1) * largest_window.max(1) {
        return None;
    }
    Some(format!(
        "The capture missed {} of the data ({} of what the receivers acknowledged, in {} hole{}): the rates and times here cover only the {} it holds.",
        format_bytes(loss.unseen_bytes as f64),
        format_percent_fine(loss.unseen_bytes as f64 / acknowledged as f64),
        loss.holes,
        if loss.holes == 1 { "" } else { "s" },
        format_bytes(captured as f64)
    ))
}

/// Share of the acknowledged bytes missing from the capture from which the diagnosis says so.
pub const CAPTURE_LOSS_SAID: f64 = 0.1;

/// The window the sender filled was below 3/4 of its maximum for at least half the
/// window-limited time (`TimeShares::window_shrunk`): the receiver's buffer held data
/// its application had not read — a slow reader, not a small buffer or a queue.
pub(super) fn slow_reader(sh: &TimeShares) -> bool {
    sh.receive_window > 0.0 && sh.window_shrunk >= 0.5 * sh.receive_window
}

/// Share of the bytes sent that were retransmissions (`retransmitted_percent`): by
/// bytes, so TSO/GRO frames of many segments do not inflate it.
pub(super) fn loss_rate(f: &Facts) -> f64 {
    retransmitted_percent(f) / 100.0
}

/// A full segment's payload, bytes: from the peer's MSS option when the handshake was
/// captured (delayed_ack.rs `full_segment`), else the largest data segment — which
/// at a host with TSO/GRO is a frame of many segments.
pub(super) fn segment_bytes(f: &Facts) -> f64 {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize].from;
    crate::analysis::stalls::delayed_ack::full_segment(&f.conn.handshake, sender, f.rows.packets, f.conn.data_direction.min(1), f.sh.mss as u32) as f64
}

/// A full segment's payload as "full segments" are counted in the text, bytes: the
/// handshake's (`segment_bytes`), else the largest data segment but never above
/// [`SEGMENT_WITHOUT_HANDSHAKE`]: without the SYNs a larger frame is a TSO/GSO/GRO
/// super-frame of several segments (a 6,369-byte GSO frame once made "6.4 KiB, under
/// two full segments"), not one segment.
pub(super) fn real_segment_bytes(f: &Facts) -> f64 {
    let sender = &f.conn.directions[f.conn.data_direction.min(1) as usize].from;
    let largest = (f.sh.mss as u32).min(SEGMENT_WITHOUT_HANDSHAKE);
    crate::analysis::stalls::delayed_ack::full_segment(&f.conn.handshake, sender, f.rows.packets, f.conn.data_direction.min(1), largest) as f64
}

/// The largest payload taken as one segment without the handshake: a 1500-byte
/// Ethernet MTU less 40 bytes of IPv4 and TCP headers (as loss/datagram_ids.rs
/// `DEFAULT_SEGMENT`).
pub const SEGMENT_WITHOUT_HANDSHAKE: u32 = 1460;
