//! An answer the path held, told by the sender's own TCP timestamps (docs/ANALYSIS.md
//! "Answer held on the path"; issue 39 item 8, review V class C-SPURIOUS-RTO-UNTOLD).
//!
//! The first-answer wait (first_answer.rs) is measured at the capture: from the peer's
//! request to the answer's first byte there. The sender stamps each segment with its
//! TS clock when it sends it (RFC 7323 §3), so between its last packet before the
//! answer and the answer's first segment its own clock saw `ticks × tick` pass
//! (timing/peer_silences.rs: the silence's TSval advance, and the tick measured where
//! its clock and the capture's agree, ts_clock.rs). Where the capture saw more pass —
//! beyond two ticks of rounding, 1 ms of the capture's own stamping and the tick's
//! [`NOMINAL_TOLERANCE`] — the difference is time the answer spent on the way beyond
//! what the packet before it spent: the path held it (a queue, a middlebox), and the
//! sender's own part of the wait was only its clock's. Said where that hold is at least
//! one path round trip and [`MIN_HOLD_TICKS`] ticks.
//!
//! A segment held on the way holds its ACKs too: the sender's retransmission timer may
//! fire meanwhile, though nothing was lost. Where a timeout re-send (retrans_kinds.rs
//! `KIND_RTO`) of the answer's bytes came while it was held, and it was needless (the
//! receiver had the bytes: D-SACK or an ACK of them before it came, Eifel), the
//! timeout is named, with what it cost: a timeout collapses the congestion window to
//! one segment (RFC 5681 §3.1, even a spurious one: RFC 5682 only undoes it where the
//! sender detects it), so the sender restarted slow start, re-sending what it had sent
//! (go-back-N: its later needless re-sends are counted with it).
//! isp (review V, chrissanders dns_isp_hijack.pcapng connection 2): the server's
//! answer (frame 32, TSval 1425359604) left 1368 ticks of its 1-ms clock after its ACK
//! (frame 30, TSval …8236), but reached the capture 1.616 s after it: held 0.25 s. Its
//! timer re-sent the first segment (frame 41, TSval …9848) 0.6 ms after the burst
//! arrived, and four more segments (50–56) after the receiver had acknowledged them all.

use super::*;
use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::timing::ts_clock::NOMINAL_TOLERANCE;
use crate::analysis::verdict::first_byte::wait_words;

/// Fewest ticks of the sender's clock a hold must span to be read.
pub const MIN_HOLD_TICKS: f64 = 10.0;

/// " By H's TCP timestamps … held …" (module doc): the sender `d`'s silence from row `b`
/// (its last packet before the answer) to row `first` (the answer's first byte). None
/// where the timestamps do not show a hold.
pub(super) fn sentence(f: &Facts, d: u8, first: usize) -> Option<String> {
    let p = f.rows.packets;
    let b = (0..first).rev().find(|&i| p.dir[i] == d)?;
    let ts = f.conn.stall_inputs.as_ref()?.silences[usize::from(d & 1)].as_ref()?;
    let tick = ts.tick_s?;
    let (ticks, own) = ts.between(b, first)?;
    let seen = p.t[first] - p.t[b];
    let slack = own * NOMINAL_TOLERANCE + 2.0 * tick + 1e-3;
    let held = seen - own;
    let floor = f.min_rtt.max(MIN_HOLD_TICKS * tick);
    if !(held - slack >= floor) {
        return None;
    }
    let name = &f.conn.endpoints[usize::from(d & 1)];
    let mut s = format!(
        " By {name}'s TCP timestamps (its clock ticking every {}), it sent frame {} {} after frame {} ({ticks} ticks), yet the capture saw {} pass between them: the path held the answer about {} on the way, so the sender's own part of the wait was {}.",
        format_duration(tick),
        p.frame[first],
        wait_words(own),
        p.frame[b],
        wait_words(seen),
        format_duration(held),
        wait_words(own),
    );
    if let Some(t) = needless_timeout(p, d, first, held) {
        s.push_str(&t);
    }
    Some(s)
}

/// Rows after the answer's first byte looked at for its timeout re-send.
const LOOK_AHEAD: usize = 512;

/// " Its retransmission timer fired needlessly …": a needless timeout re-send of the
/// sender's within `held` s after the answer's first byte at row `first`, and the
/// needless re-sends that followed it before its next new data.
fn needless_timeout(p: &PacketColumns, d: u8, first: usize, held: f64) -> Option<String> {
    let end = (first + LOOK_AHEAD).min(p.t.len());
    let mine = |i: &usize| p.dir[*i] == d && p.len[*i] > 0;
    let needless = |i: usize| crate::analysis::stalls::needless(p.flags[i]);
    let r = (first..end).filter(mine).take_while(|&i| p.t[i] - p.t[first] <= held).find(|&i| p.flags[i] & fb::KIND_RTO != 0 && needless(i))?;
    // The re-sends after it, up to the sender's next new data (go-back-N after a timeout).
    let high = (first..r).filter(mine).map(|i| p.seq[i] + f64::from(p.len[i])).fold(f64::NEG_INFINITY, f64::max);
    let after: Vec<usize> = (r + 1..end).filter(mine).take_while(|&i| p.seq[i] < high).filter(|&i| needless(i)).collect();
    let bytes: u64 = std::iter::once(r).chain(after.iter().copied()).map(|i| u64::from(p.len[i])).sum();
    let more = match (after.first(), after.last()) {
        (Some(&a), Some(&z)) if a != z => format!(", then {} more (frames {}–{})", after.len(), p.frame[a], p.frame[z]),
        (Some(&a), _) => format!(", then 1 more (frame {})", p.frame[a]),
        _ => String::new(),
    };
    Some(format!(
        " Meanwhile no ACK could come back, and its retransmission timer fired needlessly: frame {} re-sent bytes that were only held, not lost{more}, {} in all; the timeout also restarted slow start from one segment (RFC 5681 §3.1), so what it sent next grew again from one segment a round trip.",
        p.frame[r],
        format_bytes(bytes as f64),
    ))
}
