//! Per-connection chart data as columns (one Vec per series), the layout that crosses
//! into JavaScript as typed arrays (schema version [`crate::SCHEMA_VERSION`]).
//!
//! Times are seconds relative to the first packet of the *file* (like Wireshark's
//! `frame.time_relative`). Sequence numbers are relative and unwrapped to f64 as
//! in Wireshark (the SYN is 0, the first data byte 1; without a handshake the first
//! seen sequence number is 1, Wireshark's base_seq = seq - 1; a side that has not
//! sent yet takes its base from the peer's first ACK, ack - 1; see
//! `analysis::sequence`). `NaN` marks "no value".

/// Analysis flag bits stored above the 8 TCP header flag bits in `flags`.
pub mod flag_bits {
    /// Wireshark `tcp.analysis.retransmission`.
    pub const RETRANSMISSION: u32 = 1 << 8;
    pub const FAST_RETRANSMISSION: u32 = 1 << 9;
    pub const SPURIOUS_RETRANSMISSION: u32 = 1 << 10;
    pub const DUPLICATE_ACK: u32 = 1 << 11;
    pub const ZERO_WINDOW: u32 = 1 << 12;
    pub const ZERO_WINDOW_PROBE: u32 = 1 << 13;
    pub const WINDOW_FULL: u32 = 1 << 14;
    pub const KEEP_ALIVE: u32 = 1 << 15;
    /// `tcp.analysis.lost_segment` ("previous segment not captured").
    pub const LOST_SEGMENT: u32 = 1 << 16;
    pub const OUT_OF_ORDER: u32 = 1 << 17;
    pub const WINDOW_UPDATE: u32 = 1 << 18;
    pub const ZERO_WINDOW_PROBE_ACK: u32 = 1 << 19;
    pub const KEEP_ALIVE_ACK: u32 = 1 << 20;
    pub const ACK_LOST_SEGMENT: u32 = 1 << 21;
    /// Kind of a retransmission (retrans_kinds.rs, docs/ANALYSIS.md "Retransmission
    /// kinds"), set on the segments carrying one of `ANY_RETRANSMISSION`: a timeout,
    /// a tail loss probe, fast / SACK recovery, slow start after a timeout; and,
    /// besides one of those, needless (D-SACK or Eifel evidence).
    pub const KIND_RTO: u32 = 1 << 22;
    pub const KIND_TLP: u32 = 1 << 23;
    pub const KIND_FAST: u32 = 1 << 24;
    pub const KIND_SLOW_START: u32 = 1 << 25;
    pub const KIND_SPURIOUS: u32 = 1 << 26;
    /// Set on a segment flagged LOST_SEGMENT when the hole before it was later
    /// acknowledged by the receiver without ever being captured: the capture dropped
    /// it, the network did not (capture_loss.rs).
    pub const CAPTURE_LOSS: u32 = 1 << 27;
    /// Set on a segment whose sender's IPv4 Identification skipped datagrams just
    /// before it: sent, never captured, so lost before the capture point
    /// (datagram_ids.rs; only where the sender numbers one per segment).
    pub const UNSEEN_BEFORE: u32 = 1 << 28;
    /// Set on a data segment after a gap that its sender's TCP timestamps say the
    /// sender did not make: its TSval moved less than half the gap, so the path held
    /// it (sender_clock.rs).
    pub const HELD_ON_PATH: u32 = 1 << 29;
    /// Set on a data segment whose TCP timestamp echo (TSecr) is older than the peer's
    /// ACK of everything the sender had sent: the sender had not received that ACK when
    /// it sent this segment — the path held it on the way back, or the segment waited
    /// in a queue before the capture point (sender_clock.rs).
    pub const ACK_HELD_ON_PATH: u32 = 1 << 30;
    /// Set on a payload segment whose TCP timestamp echo (TSecr) is at or past the TSval
    /// of the peer's latest data segment captured before it: its sender had received
    /// that segment when it sent this one (RFC 7323 §4.3: TSecr is TS.Recent, taken
    /// from each in-order segment received). stalls/gaps.rs: a request that answers a
    /// retransmission, against one re-sent from before it (sender_clock.rs).
    pub const ANSWERS_PEER_DATA: u32 = 1 << 31;
    pub const ANY_KIND: u32 = KIND_RTO | KIND_TLP | KIND_FAST | KIND_SLOW_START | KIND_SPURIOUS;
    /// Any of the three retransmission labels (fast and spurious ones are also
    /// retransmissions: tshark sets `tcp.analysis.retransmission` on them too).
    pub const ANY_RETRANSMISSION: u32 = RETRANSMISSION | FAST_RETRANSMISSION | SPURIOUS_RETRANSMISSION;
}

/// How far from a stall's times its packets' rows are looked for (`PacketColumns::row_of`).
pub const ROW_TIME_SLACK_S: f64 = 1e-6;

/// One row per packet of the connection, both directions interleaved in analysis
/// order: time order (analysis/capture/timeline.rs), frame numbers not necessarily increasing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketColumns {
    /// Seconds since the first packet of the file.
    pub t: Vec<f64>,
    /// 0 = direction 0 (endpoints[0] → endpoints[1]), 1 = the reverse.
    pub dir: Vec<u8>,
    /// 1-based frame number in the file (Wireshark's `frame.number`), for tooltips.
    pub frame: Vec<u32>,
    /// Relative sequence number of the segment's first byte (unwrapped).
    pub seq: Vec<f64>,
    /// TCP payload length.
    pub len: Vec<u32>,
    /// Frame length on the wire.
    pub wire_len: Vec<u32>,
    /// Relative cumulative ACK (in the peer's sequence space); NaN without the ACK flag.
    pub ack: Vec<f64>,
    /// Advertised receive window of the sender of this packet, scaled when the scale is
    /// known (RFC 7323 §2.2: never scaled on SYN segments); NaN on RST.
    pub win: Vec<f64>,
    /// Bytes in flight at this data segment (DESIGN.md definition); NaN for segments without payload.
    pub in_flight: Vec<f64>,
    /// Low 8 bits: TCP header flags (`decode::tcp_flags`); above: `flag_bits`.
    pub flags: Vec<u32>,
}

impl PacketColumns {
    /// The row of frame `frame`, analysed at `t_s`, if it is in the columns. Rows are
    /// in analysis order, which is time order (analysis/capture/timeline.rs), and that is not
    /// frame order where the file was not in time order (two interfaces written in
    /// blocks): so the row is found by its time, then by its number among the rows of
    /// that time. `ROW_TIME_SLACK_S` either side: a stall's end is its start plus a
    /// duration rounded to the ns (stalls/gaps/classify.rs `whole_ns`).
    pub fn row_of(&self, frame: u32, t_s: f64) -> Option<usize> {
        let from = self.t.partition_point(|&x| x < t_s - ROW_TIME_SLACK_S);
        (from..self.t.len()).take_while(|&i| self.t[i] <= t_s + ROW_TIME_SLACK_S).find(|&i| self.frame.get(i) == Some(&frame))
    }

    /// The rows of a stall's two packets (`Stall::frame_before` at `start_s`,
    /// `frame_after` at `start_s + duration_s`), if both are in the columns.
    pub fn rows_of(&self, before: u32, after: u32, start_s: f64, duration_s: f64) -> Option<(usize, usize)> {
        Some((self.row_of(before, start_s)?, self.row_of(after, start_s + duration_s)?))
    }

    /// Whether a row in `rows` carries payload of the side other than `dir`: the peer
    /// sent a request during a gap in `dir`'s data (turn-taking, not a wait on a timer).
    pub fn peer_payload_in(&self, rows: std::ops::Range<usize>, dir: u8) -> bool {
        rows.into_iter().any(|r| self.dir[r] != dir && self.len[r] > 0)
    }
}

/// SACK blocks (RFC 2018), one row per block, relative to the data sender's sequence space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SackColumns {
    pub t: Vec<f64>,
    /// Direction of the ACK that carried the block (the data flows the other way).
    pub dir: Vec<u8>,
    pub left: Vec<f64>,
    pub right: Vec<f64>,
}

/// RTT samples; `dir` is the direction of the *data* whose round trip was measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RttColumns {
    /// Time of the ACK (or echoing segment) that completed the sample.
    pub t: Vec<f64>,
    pub dir: Vec<u8>,
    pub rtt_ms: Vec<f64>,
    /// Bit 0: 0 = data segment → first ACK covering it (Karn's rule), 1 = TCP
    /// timestamps echo (RFC 7323 §4); the other bits are round_trips.rs's: 2 excluded
    /// from the statistics, 4 clocked, 16 an ACK the receiver may have delayed.
    pub kind: Vec<u8>,
}

/// RTT samples in order as (t s, dir, rtt ms, kind), the values of [`RttColumns`]:
/// from those columns, or read straight from the compact store (store.rs), so that
/// the end-of-capture diagnosis needs no f64 copy of them (issue 16).
pub trait RttSource {
    fn for_each_rtt_ms(&self, f: &mut dyn FnMut(f64, u8, f64, u8));
}

/// SACK blocks in order as (t s, dir of the ACK, left edge, right edge), the values
/// of [`SackColumns`]: from those columns or straight from the compact store (store.rs).
pub trait SackSource {
    /// Each SACK block: (time of its ACK, that ACK's direction, left edge, right edge).
    fn for_each_sack_block(&self, f: &mut dyn FnMut(f64, u8, f64, f64));
}

impl SackSource for SackColumns {
    fn for_each_sack_block(&self, f: &mut dyn FnMut(f64, u8, f64, f64)) {
        for i in 0..self.t.len() {
            f(self.t[i], self.dir[i], self.left[i], self.right[i]);
        }
    }
}

impl RttSource for RttColumns {
    fn for_each_rtt_ms(&self, f: &mut dyn FnMut(f64, u8, f64, u8)) {
        for i in 0..self.t.len() {
            f(self.t[i], self.dir[i], self.rtt_ms[i], self.kind[i]);
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConnectionColumns {
    pub packets: PacketColumns,
    pub sack: SackColumns,
    pub rtt: RttColumns,
}
