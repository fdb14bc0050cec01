//! Segments of another incarnation of a 4-tuple (RFC 9293 §3.6.1: a connection's port
//! pair may be used again once the old one is closed, TIME-WAIT guarding the reuse) that
//! arrive while a new one is opening, set aside instead of being read into its sequence
//! spaces (docs/ANALYSIS.md "Another incarnation's segments", warning `other-incarnation`).
//!
//! The exchange RFC 9293 describes: a host still holding the old connection (a half-open
//! one, §3.5.1, or one in TIME-WAIT) answers the new SYN with an ACK in the OLD
//! connection's numbers; the SYN's sender, in SYN-SENT, finds that ACK unacceptable
//! ("SEG.ACK =< ISS or SEG.ACK > SND.NXT") and answers it with a reset
//! <SEQ=SEG.ACK><CTL=RST> (§3.10.7.3), then re-sends its SYN (suricata-verify
//! `tls-subjectaltname` connection 7, frames 152–157: SYN, the server's ACK 2,094,168,063
//! past the ISN, the client's reset at that number, the SYN again 3 s later). Read into
//! the new connection, that ACK said "2 GiB delivered, never captured", the server's old
//! sequence number a 370 MB hole before its SYN/ACK, and the reset a retransmission.
//!
//! The rule, while the SYN's sender has sent nothing but its SYN and no SYN/ACK has come:
//! a segment of its peer (no SYN) acknowledging a number more than the largest window
//! away from ISS + 1, or a segment of its own (no SYN) numbered that far from ISS + 1,
//! belongs to another incarnation. "The largest window": what the SYN's sender could
//! offer (65,535 shifted by the scale its SYN announced; RFC 7323 §2.3): a peer that
//! really had the new connection (a SYN/ACK the capture missed) can have been sent no
//! more than that, so only a number far outside it is set aside; an acknowledgement
//! just past ISS + 1 (data the capture missed) stays in the connection.

use super::conn::Conn;
use super::sequence::seq_diff;
use super::window::NOT_USED;
use crate::decode::tcp_flags::{ACK, SYN};
use crate::decode::TcpSegment;

/// True when `seg` belongs to another incarnation of `conn`'s 4-tuple (module comment).
pub(crate) fn foreign(conn: &Conn, seg: &TcpSegment) -> bool {
    let hs = &conn.handshake;
    if seg.flags & SYN != 0 || hs.syn.is_none() || hs.syn_ack.is_some() {
        return false;
    }
    let client = usize::from(hs.client_dir);
    let side = &conn.sides[client];
    let Some(iss) = side.seq.base() else { return false };
    if side.sent_high.is_some() {
        return false;
    }
    // The scale its SYN announced; none announced: no scaling (RFC 7323 §2.2).
    let state = side.scale.state;
    let shift = u8::try_from(state).unwrap_or(if state == NOT_USED { 0 } else { 14 });
    let largest = i64::from(u16::MAX) << shift.min(14);
    let far = |n: u32| i64::from(seq_diff(n, iss.wrapping_add(1))).abs() > largest;
    if conn.dir_of(seg) == client {
        far(seg.seq)
    } else {
        seg.flags & ACK != 0 && far(seg.ack)
    }
}

/// The set-aside segments of a capture: how many, on how many connections, and the
/// first few frames (the `other-incarnation` warning).
#[derive(Default)]
pub(crate) struct SetAside {
    segments: u64,
    conns: u64,
    last_conn: Option<u32>,
    frames: Vec<u64>,
}

/// Frames named in the warning at most.
const FRAMES_SAID: usize = 6;

impl SetAside {
    pub fn note(&mut self, conn: u32, frame: u64) {
        self.segments += 1;
        if self.last_conn != Some(conn) {
            self.conns += 1;
            self.last_conn = Some(conn);
        }
        if self.frames.len() < FRAMES_SAID {
            self.frames.push(frame);
        }
    }

    pub fn warning(&self) -> Option<crate::analysis::capture::limits::AnalysisWarning> {
        (self.segments > 0).then(|| {
            let frames: Vec<String> = self.frames.iter().map(u64::to_string).collect();
            let more = if self.segments as usize > self.frames.len() { ", …" } else { "" };
            let s = |n: u64| if n == 1 { "" } else { "s" };
            crate::analysis::capture::limits::AnalysisWarning {
                kind: "other-incarnation",
                count: self.segments,
                message: format!(
                    "Not analysed: {} TCP segment{} (frame{} {}{more}) on {} connection{} belong to an earlier use of the same address and port pair, \
                     not to the connection being opened: sent while its SYN was unanswered, they carry sequence or acknowledgement numbers \
                     more than a window away from its SYN's (an ACK from the old connection's state and the reset it draws, RFC 9293 §3.10.7.3). \
                     They are left out of that connection: not counted in its packets, nor read as its data, acknowledgements or resets.",
                    self.segments,
                    s(self.segments),
                    s(self.frames.len() as u64),
                    frames.join(", "),
                    self.conns,
                    s(self.conns),
                ),
            }
        })
    }
}
