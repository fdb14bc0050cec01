//! The loss headline's subject where the data direction re-sent nothing and the loss was
//! its peer's (issue 39 review R class C-LOSS-SPAN-FROM-LAST-DATA): a request/response
//! exchange whose requests went unacknowledged and were re-sent by the requester's
//! timer (stall rule 2c, stalls/gaps.rs) puts the waits in the data direction's loss
//! share, but "the sender spent N % of the time recovering from loss" said of the data
//! direction names a side that lost nothing. A loss sentence names the direction whose
//! data was re-sent, and its story starts at the first lost send: the first
//! transmission of the first segment later re-sent (RFC 6298 §5.1 arms the timer
//! then), not the last data before the stall — a loss before the first answer is told
//! too, though it falls before the data direction's first byte.

use super::*;
use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::stalls::needless;

/// Loss episodes of the peer listed by their times; more are counted.
const LISTED: usize = 3;

/// One loss of the peer: re-sends whose originals went out before the first of them
/// (one flight lost, one timer).
struct PeerLoss {
    /// First transmission of the earliest original re-sent, and the first re-send.
    first_sent: f64,
    resent_at: f64,
    /// The first re-send's kind bits (retrans_kinds.rs).
    kind: u32,
}

/// The peer's re-sends (not needless) in time order, grouped into losses: a re-send
/// whose original went out before the current loss's first re-send is of that loss.
/// `d`: the data direction; the peer is the other.
fn peer_losses(p: &PacketColumns, d: u8) -> Vec<PeerLoss> {
    let peer = 1 - d;
    let mut out: Vec<PeerLoss> = Vec::new();
    for j in 0..p.t.len() {
        if p.dir[j] != peer || p.len[j] == 0 || p.flags[j] & fb::ANY_RETRANSMISSION == 0 || needless(p.flags[j]) {
            continue;
        }
        // The original: the first segment of the peer carrying the re-send's first byte.
        let seq = p.seq[j];
        let first = (0..j).find(|&k| p.dir[k] == peer && p.len[k] > 0 && p.seq[k] <= seq && seq < p.seq[k] + f64::from(p.len[k]));
        let Some(k) = first else { continue };
        match out.last_mut() {
            Some(l) if p.t[k] < l.resent_at => l.first_sent = l.first_sent.min(p.t[k]),
            _ => out.push(PeerLoss { first_sent: p.t[k], resent_at: p.t[j], kind: p.flags[j] }),
        }
    }
    out
}

/// "Loss limited this flow, though 74.121.139.112:80 re-sent none of its 6 data
/// segments: 172.16.133.54:64540's data went unacknowledged and was re-sent (4 of its 8
/// data segments) — first sent at 0.039 s and re-sent by its retransmission timer 300 ms
/// later (0.340 s), first sent at 1.254 s and …; from its first data (0.431 s) on,
/// 74.121.139.112:80 waited for it 55 % of the time". None where the data direction
/// re-sent anything itself (seen or proved by SACK) or the peer re-sent nothing.
pub(super) fn peer_loss_opening(f: &Facts) -> Option<String> {
    let d = f.conn.data_direction.min(1);
    let sender = &f.conn.directions[d as usize];
    let peer = &f.conn.directions[1 - d as usize];
    if retransmissions(f) > 0 || sender.unseen_resends > 0 || sender.unseen_datagrams.unwrap_or(0) > 0 {
        return None;
    }
    let p = f.rows.packets;
    let losses = peer_losses(p, d);
    if losses.is_empty() {
        return None;
    }
    let listed: Vec<String> = losses
        .iter()
        .take(LISTED)
        .map(|l| {
            let by = if l.kind & fb::KIND_RTO != 0 {
                " by its retransmission timer"
            } else if l.kind & fb::KIND_TLP != 0 {
                " by its loss probe"
            } else {
                ""
            };
            format!("first sent at {} and re-sent{by} {} later ({})", format_timestamp(l.first_sent), format_duration(l.resent_at - l.first_sent), format_timestamp(l.resent_at))
        })
        .collect();
    let more = if losses.len() > LISTED { format!(", and {} more", losses.len() - LISTED) } else { String::new() };
    let peer_segments = (0..p.t.len()).filter(|&i| p.dir[i] != d && p.len[i] > 0).count();
    let resent = (0..p.t.len()).filter(|&i| p.dir[i] != d && p.len[i] > 0 && p.flags[i] & fb::ANY_RETRANSMISSION != 0 && !needless(p.flags[i])).count();
    // The loss share is of the data direction's time, from its first data on: a loss
    // before it (the first request's) delayed the start, outside that time.
    let first_data = (0..p.t.len()).find(|&i| p.dir[i] == d && p.len[i] > 0).map(|i| p.t[i]);
    let from = match first_data {
        Some(t0) if losses[0].first_sent < t0 => format!("from its first data ({}) on, ", format_timestamp(t0)),
        _ => String::new(),
    };
    Some(format!(
        "Loss limited this flow, though {} re-sent none of its {} data segments: {}'s data went unacknowledged \
         and was re-sent ({resent} of its {peer_segments} data segments) — {}{more}; {from}{} waited for it {} of the time",
        sender.from,
        f.sh.data_segments,
        peer.from,
        listed.join(", "),
        sender.from,
        format_percent(f.shares.loss)
    ))
}
