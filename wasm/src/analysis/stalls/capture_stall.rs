//! A silence the capture made (docs/ANALYSIS.md "Stall", "the capture's own stall";
//! review X class C-CAPTURE-STALL-AS-NETWORK).
//!
//! A sender re-sends a segment only after a timer (RFC 6298 (2.4): an RTO of at least
//! 1 s, 200 ms on Linux; a tail-loss probe at least 10 ms on Linux, RFC 8985 §7.2) or
//! after its peer reported the loss (three duplicate ACKs, RFC 5681 §3.2, or SACK, which
//! rides on pure ACKs). So a re-send stamped less than [`RESEND_FLOOR_S`] after its
//! original, with no pure ACK of the peer at or below the original's sequence number
//! between them, was not sent then: both were held somewhere and written together.
//! Where that happens in a group of packets of both hosts, each within [`GROUP_S`] of
//! the next, after a silence of both longer than the stall threshold, and the other
//! host sent a packet stamped after the original that acknowledges none of it (so it
//! had not received it: not an answer to a burst the path compressed), the capture (or
//! the mirror port feeding it) stalled and flushed its buffer: the silence before the
//! group is the capture's, and what either host did in it is not shown.
//!
//! Each direction's stall that ends in such a group is re-labelled `unknown` (a cause
//! the capture does not show) and its `ended_by` says why; the diagnosis names the
//! silence whatever its share ([`sentence`]). melsec (review X): a 16-ms poll loop fell
//! silent 955 ms, then the server's answer (frame 22544), the client's timer re-send of
//! its request (22545) and the server's re-send of its answer (22546, new IP ID) were
//! stamped within 15 µs — once a 955-ms `retransmission-timeout` of the client and a
//! 963-ms `application-idle` of the server, neither named in the text.

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::rows::columns::{flag_bits, PacketColumns};
use crate::analysis::stalls::cause::{Stall, StallCause};

/// No sender's timer re-sends sooner than this after the original (module doc: Linux's
/// floor for a tail-loss probe is 10 ms; a tenth of it leaves room for clock error).
pub const RESEND_FLOOR_S: f64 = 0.001;
/// Packets of a flushed group are stamped at most this far apart, one after another.
pub const GROUP_S: f64 = 0.001;
/// Rows looked at either side of a stall's closing packet (a busy capture's group may
/// run on; a flush's re-send is near its front).
pub const GROUP_MAX: usize = 256;
/// How a capture stall's `ended_by` begins ([`is_capture_stall`] finds them by it).
pub const OWN: &str = "the capture's own stall";

/// Whether stall `s` was re-labelled here.
pub fn is_capture_stall(s: &Stall) -> bool {
    s.ended_by.starts_with(OWN)
}

/// Re-labels direction `dir`'s stalls that end in a flushed group (module doc).
pub fn reclassify(stalls: &mut [Stall], cols: &PacketColumns, dir: u8, threshold_s: f64) {
    for s in stalls.iter_mut().filter(|s| !is_capture_stall(s)) {
        if let Some(words) = flushed(cols, dir, s, threshold_s) {
            s.cause = StallCause::Unknown;
            s.ended_by = words;
        }
    }
}

/// The words for the capture's stall that stall `s` of direction `dir` ends in.
fn flushed(cols: &PacketColumns, dir: u8, s: &Stall, threshold_s: f64) -> Option<String> {
    let n = cols.t.len();
    let end = s.start + s.duration;
    // The stall's closing packet, then the group around it.
    let j = (cols.t.partition_point(|&t| t < end - 1e-9)..n).find(|&i| cols.dir[i] == dir)?;
    let mut g = j;
    while g > 0 && cols.t[g] - cols.t[g - 1] <= GROUP_S && j - g < GROUP_MAX {
        g -= 1;
    }
    let mut h = j;
    while h + 1 < n && cols.t[h + 1] - cols.t[h] <= GROUP_S && h - j < GROUP_MAX {
        h += 1;
    }
    // A silence of both hosts before the group, inside the stall.
    let silence = if g > 0 { cols.t[g] - cols.t[g - 1] } else { 0.0 };
    if g == 0 || silence <= threshold_s || cols.t[g - 1] < s.start - 1e-9 || !(g..=h).any(|i| cols.dir[i] != cols.dir[j]) {
        return None;
    }
    let (o, r) = (g..=h).find_map(|r| too_soon(cols, g, r).map(|o| (o, r)))?;
    // The other host's packet after the original that acknowledges none of it: sent
    // before the original reached that host, yet stamped with it. (A host answering
    // each arriving packet at once is a capture beside it seeing a burst the path
    // compressed — nfstream 1kxun.pcap connection 28: ACKs 1206–1210 of each answer.)
    // Any of the group's data of the original's sender before it counts: a host
    // ACKing the group's first segment at once is answering too (p4-team nuitduhack
    // invest.pcapng #21: frame 1234 ACKs 1228, and 1232 re-sends 1230 74 TSval ticks
    // after it, stamped 128 µs apart).
    let first = |k: usize| (g..k).filter(|&i| cols.dir[i] == cols.dir[o] && cols.len[i] > 0).map(|i| cols.seq[i]).fold(f64::INFINITY, f64::min);
    let covers = |k: usize| cols.ack[k].is_finite() && cols.ack[k] > first(k);
    if !(o + 1..=h).any(|k| cols.dir[k] != cols.dir[o] && !covers(k)) {
        return None;
    }
    Some(format!(
        "{OWN}: nothing was captured from {} for {}, then frames {}–{} of both hosts were stamped within {}, among them frame {}, \
         a re-send of frame {} only {} after it — no sender re-sends that soon without its peer's duplicate ACKs (RFC 6298 (2.4), \
         RFC 5681 §3.2), so the capture (or the mirror port feeding it) held these packets and wrote them at once: what either \
         host did in that time the capture does not show",
        format_timestamp(cols.t[g - 1]),
        format_duration(silence),
        cols.frame[g],
        cols.frame[h],
        format_duration(cols.t[h] - cols.t[g]),
        cols.frame[r],
        cols.frame[o],
        format_duration(cols.t[r] - cols.t[o]),
    ))
}

/// Row `r`'s original (a row from `g` on), where `r` is a re-send stamped too soon after
/// it with no pure ACK of the peer at or below its sequence number between (module doc).
fn too_soon(cols: &PacketColumns, g: usize, r: usize) -> Option<usize> {
    if cols.len[r] == 0 || cols.flags[r] & flag_bits::ANY_RETRANSMISSION == 0 {
        return None;
    }
    let d = cols.dir[r];
    let o = (g..r).find(|&i| cols.dir[i] == d && cols.len[i] > 0 && cols.seq[i] == cols.seq[r])?;
    let told = (o + 1..r).any(|i| cols.dir[i] != d && cols.len[i] == 0 && cols.ack[i] <= cols.seq[o]);
    (cols.t[r] - cols.t[o] < RESEND_FLOOR_S && !told).then_some(o)
}

/// The diagnosis's sentence naming each capture stall of either direction, once.
pub fn sentence(directions: [&[Stall]; 2]) -> Option<String> {
    let mut said: Vec<&str> = Vec::new();
    for s in directions.iter().flat_map(|d| d.iter()).filter(|s| is_capture_stall(s)) {
        if !said.contains(&s.ended_by.as_str()) {
            said.push(&s.ended_by);
        }
    }
    (!said.is_empty()).then(|| {
        let parts: Vec<String> = said.iter().map(|w| format!("The capture stalled: {}.", w[OWN.len()..].trim_start_matches(": "))).collect();
        let (that, its) = if said.len() == 1 { ("That silence is", "its") } else { ("Those silences are", "their") };
        format!("{} {that} neither host's: {its} stalls are counted as of a cause the capture does not show.", parts.join(" "))
    })
}

#[cfg(test)]
#[path = "capture_stall_tests.rs"]
mod tests;
