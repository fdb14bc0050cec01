//! Wireshark's TCP analysis flags, one function per segment, as in Wireshark 4.0's
//! `tcp_analyze_sequence_number` (epan/dissectors/packet-tcp.c) and the User's
//! Guide section "TCP Analysis" (wsug "ChAdvTCPAnalysis"). The ORDER of the checks
//! and the early exits (`goto finished_fwd`) matter and are kept; all comparisons
//! are on raw 32-bit sequence numbers with wrap-aware GT/LT/LE (RFC 9293 §3.4), and
//! Wireshark's "0 means not seen yet" sentinels for nextseq/lastack/maxseqtobeacked
//! are kept so the counts agree with tshark.
//!
//! One deliberate difference (see `reclassify_out_of_order` in track/conn.rs):
//! Wireshark calls a segment below the highest sequence number "out-of-order" when
//! it comes within one initial RTT (or 3 ms) of the highest segment. On a capture
//! taken at the SENDER a quick retransmission looks exactly like that, so tshark
//! undercounts retransmissions there; tcpscope re-labels such a segment a
//! retransmission when its bytes were already captured (it fills no capture gap), or
//! when it fills a capture gap half a round trip or more after the gap opened (at a
//! receiver-side capture, the re-send of a segment lost upstream).

use crate::analysis::rows::columns::flag_bits as fb;
use crate::analysis::track::sequence::{gt_seq, le_seq, lt_seq};
use crate::decode::tcp_flags::{ACK, FIN, RST, SYN};

/// Per-direction state of Wireshark's analysis (tcp_flow_t + tcp_analyze_seq_info_t).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WsFlow {
    /// Last raw window field this side sent (G_MAXUINT32 until the first segment).
    pub window: u32,
    /// The last segment of this side was a SYN (its window is never scaled).
    pub last_was_syn: bool,
    /// Next expected sequence number (highest seq + len, + 1 for SYN/FIN); 0 = unset.
    pub nextseq: u32,
    pub nextseq_time: i64,
    /// Raw ACK field of the last segment of this side (0 = none).
    pub lastack: u32,
    pub lastack_time: i64,
    /// Highest contiguous sequence number to be acked (for "ACKed unseen segment").
    pub maxseqtobeacked: u32,
    /// Duplicate-ACK counter (-1: neutralised after "ACKed unseen segment").
    pub dupacknum: i32,
    /// Analysis flags of the last segment of this side.
    pub lastsegmentflags: u32,
}

impl Default for WsFlow {
    fn default() -> Self {
        WsFlow {
            window: u32::MAX,
            last_was_syn: false,
            nextseq: 0,
            nextseq_time: 0,
            lastack: 0,
            lastack_time: 0,
            maxseqtobeacked: 0,
            dupacknum: 0,
            lastsegmentflags: 0,
        }
    }
}

/// What the flag rules need to know about one segment.
#[derive(Clone, Copy, Debug)]
pub struct SegFacts {
    pub seq: u32,
    pub ack: u32,
    pub len: u32,
    /// TCP header flags byte.
    pub flags: u8,
    /// Raw window field.
    pub window: u32,
    pub ts_ns: i64,
}

/// Runs Wireshark's rules for a segment sent by `fwd`; updates both flows and
/// returns the `flag_bits` set on it.
/// `rev_shift`: the window scale of the peer when known (`None` = unknown, as
/// Wireshark's win_scale == -1, which disables "window full"); `first_rtt_ns`: the
/// handshake RTT used as out-of-order threshold (Wireshark's ts_first_rtt).
pub fn analyze(fwd: &mut WsFlow, rev: &mut WsFlow, s: &SegFacts, rev_shift: Option<u8>, first_rtt_ns: Option<i64>) -> u32 {
    let mut f = 0u32;
    let (seq, ack, seglen, flags, window) = (s.seq, s.ack, s.len, s.flags, s.window);
    let no_sfr = flags & (SYN | FIN | RST) == 0;

    'fwd: {
        // ZERO WINDOW PROBE: 1 byte at exactly the next expected seq while the peer's
        // window is 0.
        if seglen == 1 && seq == fwd.nextseq && rev.window == 0 {
            f |= fb::ZERO_WINDOW_PROBE;
            break 'fwd;
        }
        // ZERO WINDOW: window 0 and none of SYN/FIN/RST.
        if window == 0 && no_sfr {
            f |= fb::ZERO_WINDOW;
        }
        // LOST PACKET ("previous segment not captured"): beyond the last seen nextseq;
        // only once something was seen; RST never.
        if fwd.nextseq != 0 && gt_seq(seq, fwd.nextseq) && flags & RST == 0 {
            f |= fb::LOST_SEGMENT;
        }
        // KEEP ALIVE: 0 or 1 byte starting one byte before the next expected seq.
        if (seglen == 0 || seglen == 1) && seq == fwd.nextseq.wrapping_sub(1) && no_sfr {
            f |= fb::KEEP_ALIVE;
        }
        // WINDOW UPDATE: no data, same seq/ack as before, new non-zero window.
        if seglen == 0 && window != 0 && window != fwd.window && seq == fwd.nextseq && ack == fwd.lastack && no_sfr {
            f |= fb::WINDOW_UPDATE;
        }
        // WINDOW FULL: data reaching exactly the right edge of the peer's window
        // (lastack + window << scale; the peer's SYN window is never scaled).
        if let Some(shift) = rev_shift {
            let sh = if rev.last_was_syn { 0 } else { shift as u32 };
            let edge = rev.lastack.wrapping_add(rev.window.checked_shl(sh).unwrap_or(0));
            if seglen > 0 && seq.wrapping_add(seglen) == edge && no_sfr {
                f |= fb::WINDOW_FULL;
            }
        }
        let same_ack_no_data = seglen == 0 && window == fwd.window && seq == fwd.nextseq && ack == fwd.lastack && no_sfr;
        // KEEP ALIVE ACK: repeats the previous ACK right after a keep-alive of the peer.
        if same_ack_no_data && window != 0 && rev.lastsegmentflags & fb::KEEP_ALIVE != 0 {
            f |= fb::KEEP_ALIVE_ACK;
            break 'fwd;
        }
        // ZERO WINDOW PROBE ACK: repeats the previous (zero-window) ACK right after a
        // zero window probe of the peer.
        if same_ack_no_data && window == 0 && rev.lastsegmentflags & fb::ZERO_WINDOW_PROBE != 0 {
            f |= fb::ZERO_WINDOW_PROBE_ACK;
            break 'fwd;
        }
        // DUPLICATE ACK: no data, same window/seq/ack as the previous segment.
        if same_ack_no_data && window != 0 {
            fwd.dupacknum = if fwd.dupacknum == -1 { 1 } else { fwd.dupacknum + 1 };
            f |= fb::DUPLICATE_ACK;
        }
    }
    // finished_fwd: a new ACK number resets the duplicate-ACK counter.
    if ack != fwd.lastack {
        fwd.dupacknum = 0;
    }
    // ACKED LOST PACKET ("ACKed segment that wasn't captured"): the ACK is beyond
    // the highest contiguous byte seen from the peer. When the peer's stream has a
    // known hole (maxseqtobeacked below nextseq) the mark is raised and the bound
    // moves up to nextseq; otherwise it is raised once and then suppressed (the
    // peer's dupacknum = -1) until that side sends a new ACK number. This is the
    // behaviour of tshark 4.0.17, checked on crafted captures and on
    // of13_ericsson.pcapng (the 4.2+ source tests `maxseqtobeacked > nextseq`).
    if rev.maxseqtobeacked != 0 && gt_seq(ack, rev.maxseqtobeacked) && flags & ACK != 0 {
        if lt_seq(rev.maxseqtobeacked, rev.nextseq) {
            rev.maxseqtobeacked = rev.nextseq;
            f |= fb::ACK_LOST_SEGMENT;
        } else {
            if rev.dupacknum == 0 {
                f |= fb::ACK_LOST_SEGMENT;
            }
            rev.dupacknum = -1;
        }
    }
    // RETRANSMISSION / FAST RETRANSMISSION / OUT-OF-ORDER / SPURIOUS: segments with
    // data (or SYN/FIN) that do not advance the sequence number.
    if (seglen > 0 || flags & (SYN | FIN) != 0) && f & fb::KEEP_ALIVE == 0 {
        f |= retransmission_type(fwd, rev, s, first_rtt_ns);
    }
    // finished_checking_retransmission_type: remember the highest nextseq
    // (zero window probes do not advance it) and 'max seq to be acked'.
    let mut nextseq = seq.wrapping_add(seglen);
    if flags & (SYN | FIN) != 0 {
        nextseq = nextseq.wrapping_add(1);
    }
    let zwp = f & fb::ZERO_WINDOW_PROBE != 0;
    if (gt_seq(nextseq, fwd.nextseq) || fwd.nextseq == 0) && !zwp {
        fwd.nextseq = nextseq;
        fwd.nextseq_time = s.ts_ns;
    }
    if (seq == fwd.maxseqtobeacked || fwd.maxseqtobeacked == 0) && !zwp {
        fwd.maxseqtobeacked = fwd.nextseq;
    }
    fwd.window = window;
    fwd.last_was_syn = flags & SYN != 0;
    fwd.lastack = ack;
    fwd.lastack_time = s.ts_ns;
    fwd.lastsegmentflags = f;
    f
}

fn retransmission_type(fwd: &WsFlow, rev: &WsFlow, s: &SegFacts, first_rtt_ns: Option<i64>) -> u32 {
    let (seq, seglen, flags) = (s.seq, s.len, s.flags);
    let mut seq_not_advanced = fwd.nextseq != 0 && lt_seq(seq, fwd.nextseq);
    // "not considered a retransmission/out-of-order if the segment length is larger
    // than one and the sequence number is one less than the previous nextseq (the
    // previous segment is possibly a zero window probe)".
    if seglen > 1 && fwd.nextseq.wrapping_sub(1) == seq {
        seq_not_advanced = false;
    }
    // SPURIOUS: every byte of it was already acknowledged by the peer.
    if seglen > 0 && rev.lastack != 0 && le_seq(seq.wrapping_add(seglen), rev.lastack) {
        return fb::SPURIOUS_RETRANSMISSION;
    }
    // FAST RETRANSMISSION: >= 2 duplicate ACKs from the peer for this seq, within
    // 20 ms of the last of them.
    let since_ack = s.ts_ns - rev.lastack_time;
    if seq_not_advanced && rev.dupacknum >= 2 && rev.lastack == seq && since_ack < 20_000_000 {
        return fb::FAST_RETRANSMISSION;
    }
    // OUT-OF-ORDER: within the initial RTT (3 ms if unknown) of the segment with
    // the highest sequence number, and not ending exactly at nextseq.
    let since_high = s.ts_ns - fwd.nextseq_time;
    let ooo_thres = first_rtt_ns.filter(|&r| r > 0).unwrap_or(3_000_000);
    let end = seq.wrapping_add(seglen).wrapping_add(if flags & (SYN | FIN) != 0 { 1 } else { 0 });
    if seq_not_advanced && since_high < ooo_thres && fwd.nextseq != end {
        return fb::OUT_OF_ORDER;
    }
    if seq_not_advanced {
        return fb::RETRANSMISSION;
    }
    0
}
