//! "The path went silent …": a path outage told as one, not as loss (docs/ANALYSIS.md
//! "A silence the ACKs show was no loss"). At a capture taken at the data's sender, the
//! receiver sent nothing for a while with data outstanding; the sender's timer re-sent
//! (RFC 6298 §5.4, RFC 8985 §7) — and when the receiver's ACKs came back they covered,
//! within one round trip of the first, everything that had been outstanding when the
//! silence began, with every re-send since shown needless (D-SACK, Eifel,
//! loss/needless_resends.rs by the ACKs' timing and order). Nothing was lost: the path
//! held the data and the ACKs (a radio outage, a handover, a stalled queue) and the time
//! went to waiting for it. saikowshik07 arp.pcapng: silent 3.005 → 4.503 s with 64 KiB
//! out, a probe and a timeout, then ACKs of everything in 10 ms and 44 go-back-N copies
//! "acknowledged" within 0.4 ms of leaving at a 372 ms round trip; smtp.pcapng: silent
//! 0.939 → 3.693 s, one timer copy, the ACKs resuming segment by segment for the
//! originals.

use crate::analysis::format::{format_bytes, format_duration, format_percent, format_timestamp, plural};
use crate::analysis::rows::columns::{flag_bits as fb, PacketColumns, RttSource};
use crate::analysis::timing::vantage::Vantage;

/// One silence of the receiver's that the ACKs after it show was no loss.
#[derive(Debug, PartialEq)]
pub(crate) struct Outage {
    /// The receiver's last packet before it and its first after it, s.
    pub from: f64,
    pub to: f64,
    /// Bytes outstanding when it began.
    pub outstanding: f64,
    /// The sender's re-sends from its start until the ACKs covered that data.
    pub resends: u64,
}

/// The receiver's silences at the sender's capture that ended with ACKs of everything
/// outstanding at their start, with a timer re-send in them and every re-send needless
/// (module comment); `rtt`: the path RTT, s.
pub(crate) fn outages(p: &PacketColumns, d: u8, rtt: f64) -> Vec<Outage> {
    let mut out = Vec::new();
    if !(rtt > 0.0) {
        return out;
    }
    // `high_heard`: the highest byte sent when the receiver's last packet came (what the silence leaves outstanding).
    let (mut high, mut una, mut last_peer, mut high_heard) = (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    // An open candidate: (its Outage, the byte to be covered, timer re-send seen, all needless so far, ACKs resumed at).
    let mut open: Option<(Outage, f64, bool, bool)> = None;
    for i in 0..p.t.len() {
        let t = p.t[i];
        if p.dir[i] == d {
            if p.len[i] > 0 {
                let (seq, end) = (p.seq[i], p.seq[i] + p.len[i] as f64);
                let resent = high.is_finite() && seq < high && p.flags[i] & (fb::ANY_RETRANSMISSION | fb::ANY_KIND) != 0;
                if resent {
                    if let Some(o) = open.as_mut() {
                        o.0.resends += 1;
                        o.2 |= p.flags[i] & (fb::KIND_RTO | fb::KIND_TLP) != 0;
                        o.3 &= p.flags[i] & (fb::KIND_SPURIOUS | fb::SPURIOUS_RETRANSMISSION) != 0;
                    } else if last_peer.is_finite() && una.is_finite() && high_heard > una {
                        // The first re-send since the receiver's last packet opens a candidate.
                        let o = Outage { from: last_peer, to: f64::NAN, outstanding: high_heard - una, resends: 1 };
                        open = Some((o, high_heard, p.flags[i] & (fb::KIND_RTO | fb::KIND_TLP) != 0, p.flags[i] & (fb::KIND_SPURIOUS | fb::SPURIOUS_RETRANSMISSION) != 0));
                    }
                }
                if !high.is_finite() || end > high {
                    high = end;
                }
            }
            continue;
        }
        // The receiver's packet: the silence (if one is open) ends at the first.
        if let Some(o) = open.as_mut() {
            if o.0.to.is_nan() {
                o.0.to = t;
            }
        }
        last_peer = t;
        high_heard = high;
        if p.ack[i].is_finite() && !(una >= p.ack[i]) {
            una = p.ack[i];
        }
        let Some((o, target, timer, needless)) = open.take() else { continue };
        if una >= target {
            // Covered within a round trip of the ACKs' return, a silence of more than two round trips (a timer's wait).
            if timer && needless && t - o.to <= rtt && o.to - o.from > 2.0 * rtt {
                out.push(o);
            }
        } else if t - o.to <= rtt {
            open = Some((o, target, timer, needless));
        }
    }
    out
}

/// The sentence for a sender-side capture's outages (module comment), of the active time
/// `active`; None where there is none.
/// Only a silence longer than twice the round trip measured last before it: the flow's own
/// queue cannot do that, as its flight at most doubles from one round trip to the next
/// (slow start, RFC 5681 §3.1), and so at most does the time to drain it (saikowshik07
/// icmp.pcapng #11: 2.7 s without ACKs after a 2.27 s round trip is the next round of a
/// growing queue, not an outage; arp.pcapng #0: 1.5 s after 394 ms is one).
pub(super) fn sentence(p: &PacketColumns, rtts: &dyn RttSource, vantage: Vantage, d: u8, rtt_ms: Option<f64>, active: f64) -> Option<String> {
    if vantage != Vantage::Sender {
        return None;
    }
    let mut samples: Vec<(f64, f64)> = Vec::new();
    rtts.for_each_rtt_ms(&mut |t, dir, ms, _| if dir == d && ms.is_finite() { samples.push((t, ms / 1000.0)) });
    samples.sort_by(|a, b| a.0.total_cmp(&b.0));
    let last_before = |t: f64| samples[..samples.partition_point(|s| s.0 <= t)].last().map(|s| s.1);
    let found: Vec<Outage> = outages(p, d, rtt_ms? / 1000.0).into_iter().filter(|o| last_before(o.from).is_some_and(|r| o.to - o.from > 2.0 * r)).collect();
    let longest = found.iter().max_by(|a, b| (a.to - a.from).total_cmp(&(b.to - b.from)))?;
    let total: f64 = found.iter().map(|o| o.to - o.from).sum();
    let more = if found.len() > 1 { format!(" ({} such silences, {} in all)", found.len(), format_duration(total)) } else { String::new() };
    let share = if active > 0.0 { format!(", {} of the active time", format_percent((total / active).min(1.0))) } else { String::new() };
    Some(format!(
        " The path went silent for {} at {}{more}: no ACK came back while {} were outstanding and the sender's timer re-sent; \
         when the ACKs resumed at {} they covered everything sent before the silence, and none of the {} since repaired a loss \
         (the receiver's ACKs show each needless). A path outage, not loss, took that time{share}.",
        format_duration(longest.to - longest.from),
        format_timestamp(longest.from),
        format_bytes(longest.outstanding),
        format_timestamp(longest.to),
        plural(longest.resends, "re-send"),
    ))
}
