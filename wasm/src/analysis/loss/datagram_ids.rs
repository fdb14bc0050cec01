//! Datagrams a sender sent that never reached the capture point, told by the IPv4
//! Identification (docs/ANALYSIS.md `direction.unseenDatagrams`).
//!
//! RFC 791 §3.1 leaves the Identification to the sender; RFC 6864 §4.1 lets it be
//! anything on an atomic datagram (DF set, not fragmented). Linux gives each connected
//! socket its own counter and adds the number of segments each datagram carries
//! (`ip_select_ident_segs`: one per segment, so a TSO frame of n segments advances it
//! by n, and GRO merges only segments whose Identifications follow each other): a
//! capture of such a sender sees 1, 2, 3, … per connection, every datagram counted —
//! data, pure ACKs and re-sends alike. Where the capture point is past a loss (at the
//! receiver), the step over a datagram lost before it shows as a skipped number: the
//! capture sees 41, 43, and 42 was sent. Windows numbers from one counter for the
//! whole host, macOS and the BSDs at random, some stacks write 0: their steps are not
//! 1 per segment, and then nothing is told (`PER_CONNECTION_SHARE`).
//!
//! Seen on our recordings at the client (`public/examples`): every loss before the
//! capture a skip of exactly the datagrams lost (rx-cubic-loss 24 = the emulator's 24
//! drops, rx-outage-in-recovery 725 of its 726 frames of any kind).

use crate::analysis::rows::columns::flag_bits::UNSEEN_BEFORE;
use crate::analysis::loss::retrans_kinds::TIMER_FLOOR_NS;

mod source_ids;
pub(crate) use source_ids::{SourceIds, SourceLast};

/// Steps compared before the sender's numbering is trusted at all.
const MIN_STEPS: u32 = 16;
/// Share of steps that must be exactly one per segment, or a skip over datagrams whose
/// data the capture shows missing (the segment after the skip is the first beyond a
/// hole in the sequence: `on_datagram`'s `hole`). Reordering steps back; a host-wide
/// counter or random numbers miss most — and their steps fall where the capture shows
/// no loss. Counting a skip at a hole as in step keeps the numbering told on a path
/// that loses one datagram in ten or more (rx-heavy-loss.pcap, a Linux download at
/// 10 % loss captured at the client: 49 of its 453 steps skip, 89.2 % exact, once
/// "nothing told"; 53 unseen now, of the emulator's 54 drops).
const PER_CONNECTION_SHARE: f64 = 0.9;
/// How far behind the number due a datagram overtaken on the way may still come: the
/// numbers each skip passed over are remembered this far back (one bit each, 128 B), and
/// one that comes later is taken off the unseen. A forwarder that spreads a flow over
/// several queues or links reorders by more than a few: a router namespace forwarding on
/// two CPUs delivered runs of 70 datagrams interleaved, once read as 96,327 unseen where
/// the server re-sent 1,822 segments. Which numbering the sender uses is decided over the
/// whole direction (`per_connection`), not by the size of one step.
const REORDER_WINDOW: u16 = 1024;
/// Any step forward up to half the number space is a skip (a long outage skips
/// hundreds: the sender's re-sends and probes all lost).
const MAX_SKIP: u16 = 0x7fff;
/// A 0 more than this far ahead of the number due is outside the numbering (see
/// `on_datagram`).
const ZERO_SLACK: u16 = 64;
/// Skips kept per direction (12 B each): a documented cap, 768 KiB at most. A
/// receiver-side capture of a Linux sender at 1 % loss reaches it near 6.5 million
/// packets; later skips are counted but not marked on their rows.
pub const MAX_MARKED_SKIPS: usize = 1 << 16;
/// Segment size assumed without the handshake: a 1500-byte MTU without options, so a
/// GRO or TSO frame of n segments of 1448 (with timestamps) still counts n up to ~120.
const DEFAULT_SEGMENT: u32 = 1460;
/// A payload at least this large (RFC 9293's default send MSS) is taken as a full
/// segment when it is the largest single one seen.
const MIN_SEGMENT: u32 = 536;
/// The initial TTL of the stacks that number per connection (Linux; RFC 1700's
/// recommended 64): a datagram seen with more came from another stack.
const MAX_INITIAL_TTL: u8 = 64;

/// One direction's Identification steps (kept in `Side`, made at its first data).
#[derive(Debug, Default)]
pub(crate) struct DatagramIds {
    /// The Identification the next datagram should carry.
    expected: Option<u16>,
    steps: u32,
    /// Steps exactly one per segment, skips at a hole, and datagrams that came late into
    /// a skip (`PER_CONNECTION_SHARE`).
    in_step: u32,
    unseen: u64,
    /// Skips with the capture's own evidence of a loss behind them (`explained`), and
    /// without; and the numbers the latter passed over that have not come
    /// (`DatagramIds::told`).
    explained_skips: u32,
    unexplained_skips: u32,
    unexplained: u64,
    /// The skips marked on rows, in capture order.
    skips: Vec<Skip>,
    /// Bit n % 1024: number n was skipped and has not come (for the `REORDER_WINDOW`
    /// numbers before `expected`; older bits are cleared as the numbering passes them).
    /// Boxed and made at the first skip: most directions never skip, and 128 B inline
    /// were a quarter of this struct in each of 100,000 short connections (issue 43);
    /// none stands for all bits clear.
    missing: Option<Box<[u64; REORDER_WINDOW as usize / 64]>>,
    /// Bits set in `missing`: none, nothing to clear.
    missing_bits: u32,
    /// A skip seen on a datagram without data (a pure ACK): its first number and count,
    /// to mark on the next data segment instead — the one a stall can end with.
    carried: Option<(u16, u16)>,
    /// Largest payload of a datagram no larger than the handshake's segment size: the
    /// segment size actually sent (a path MTU or an MSS clamp may make it smaller, and a
    /// GRO frame of such segments would otherwise count too few).
    largest_single: u32,
    /// Datagrams lost before the first one numbered (`lost_before_first`).
    before_first: u16,
    /// Highest TTL seen: above 64, not an initial TTL of 64 (Linux, the BSDs, macOS),
    /// so not Linux's per-connection numbering (Windows starts at 128 and numbers
    /// from counters shared with other connections).
    max_ttl: u8,
    /// The ACK number and capture time of the direction's last datagram
    /// (`resends_unseen`).
    last_ack: Option<u32>,
    last_t_ns: i64,
    /// The direction's last datagram carried at least one full segment (`resends_unseen`).
    last_full: bool,
}

/// What the analyzer knows of one datagram for `DatagramIds::resends_unseen`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arrival {
    pub id: u16,
    /// Its raw ACK number (None without the ACK flag).
    pub ack: Option<u32>,
    pub t_ns: i64,
    pub payload: u32,
    /// How far beyond the end of the highest byte the capture saw of this side its data
    /// starts (0: right there; None: below it, or nothing seen yet).
    pub gap: Option<i64>,
    /// No hole in this side's sequence was open (every byte below it was captured).
    pub nothing_missing: bool,
    /// The path round trip so far (track/conn.rs `round_trip`).
    pub round_trip_ns: Option<i64>,
    /// The sender's segment size from the handshake (handshake.rs `send_mss`).
    pub segment: Option<u32>,
    /// The peer sent something this side had to answer since its last datagram
    /// (track/conn.rs `Side::prompted`).
    pub prompted: bool,
    /// The same source address's datagram before this one (`SourceIds`).
    pub source_last: SourceLast,
}

/// A skip marked on a row: the row after it, the numbers it passed over [first, first
/// + count), and how many of them have not come (12 B).
#[derive(Debug, Clone, Copy)]
struct Skip {
    row: u32,
    first: u16,
    count: u16,
    missing: u16,
    /// The capture shows a loss behind it (`DatagramIds::told`); only such skips are
    /// counted and marked.
    explained: bool,
}

/// What one datagram's number says about it, where the numbering has been one per
/// segment so far (`DatagramIds::on_datagram`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdStep {
    /// Nothing: no numbering yet, not one per segment so far, or outside it.
    Unknown,
    /// A number at or past the one due: a datagram sent after every one seen before —
    /// a re-send, never an original that was overtaken on the way.
    Fresh,
    /// A number a skip passed over (within `REORDER_WINDOW`): an earlier datagram,
    /// overtaken on the way.
    Overtaken,
}

impl DatagramIds {
    /// One datagram of this direction. `ttl`: its IPv4 TTL; `control`: it carries SYN or
    /// RST (left out: a SYN/ACK comes from the listener, a reset may come from a
    /// middlebox or the stack, with numbers of their own); `segment`: the sender's
    /// segment size if known (handshake.rs `send_mss`); `row`: its store row (None when
    /// not stored); `hole`: its data starts beyond a hole in the sequence the capture
    /// never saw filled before it (flags.rs `LOST_SEGMENT`); `resend`: it re-sends data,
    /// as the capture's own rules see it (a retransmission) or as `resends_unseen` proves,
    /// or comes while a hole in the data is still open (a re-send of it lost again).
    /// What its number says (`IdStep`), judged by the numbering up to it.
    #[allow(clippy::too_many_arguments)]
    pub fn on_datagram(&mut self, id: u16, ttl: u8, control: bool, payload: u32, segment: Option<u32>, row: Option<u32>, hole: bool, resend: bool) -> IdStep {
        if control {
            return IdStep::Unknown;
        }
        self.max_ttl = self.max_ttl.max(ttl);
        if payload <= segment.unwrap_or(DEFAULT_SEGMENT).max(1) {
            self.largest_single = self.largest_single.max(payload);
        }
        let segments = payload.div_ceil(self.segment_size(segment)).max(1);
        // Linux sends what no full socket owns — a reset from the stack, an ACK in
        // TIME-WAIT, the SYN/ACK — with DF and Identification 0 (`ip_select_ident_segs`
        // without a connected socket): outside the numbering (tcpdump's of10_s4810.pcap:
        // a reset numbered 0 after 0xcf89 once read as 12,406 unseen datagrams). The
        // counter's own 0 comes when it is due, or a few skipped numbers later
        // (rx-cubic-loss.pcap: 0xffff lost, then 0x0000).
        // A 0 a skip passed over is the counter's own, come late (see `came_late`).
        if id == 0 && self.expected.is_some_and(|e| 0u16.wrapping_sub(e) > ZERO_SLACK) && !self.is_missing(0) {
            return IdStep::Unknown;
        }
        let Some(expected) = self.expected else {
            self.expected = Some(id.wrapping_add(segments as u16));
            for k in 1..=self.before_first {
                self.set_missing(id.wrapping_sub(k));
            }
            self.unseen += u64::from(self.before_first);
            return IdStep::Unknown;
        };
        let ahead = id.wrapping_sub(expected);
        let behind = expected.wrapping_sub(id);
        if ahead > MAX_SKIP && behind <= REORDER_WINDOW {
            // Numbers a skip passed over, come late: reordered on the way, not lost (a
            // GRO frame of n segments carries n of them). Any other number behind is a
            // step out of step (a host-wide counter: tcpdump's of10_s4810.pcap, an OpenFlow
            // switch numbering its data from one counter and its ACKs 0), and the
            // numbering goes on from the later one.
            let mut late = 0u16;
            for k in 0..segments.min(u32::from(behind)) as u16 {
                late += u16::from(self.came_late(id.wrapping_add(k)));
            }
            self.steps += 1;
            if late == 0 {
                return IdStep::Unknown;
            }
            self.in_step += 1;
            self.unseen -= u64::from(late);
            return if self.per_connection() { IdStep::Overtaken } else { IdStep::Unknown };
        }
        self.steps += 1;
        if ahead == 0 {
            self.in_step += 1;
        } else if ahead <= MAX_SKIP {
            // The capture shows the skipped datagrams' data missing: a loss, in step.
            if hole && payload > 0 {
                self.in_step += 1;
            }
            self.unseen += u64::from(ahead);
            for k in ahead.saturating_sub(REORDER_WINDOW)..ahead {
                self.set_missing(expected.wrapping_add(k));
            }
            if payload == 0 {
                // Judged by the data segment after it (`carried`); unexplained until then.
                self.note_skip(false, ahead);
                self.carried = Some((expected, ahead));
            } else {
                let explained = hole || resend;
                self.note_skip(explained, ahead);
                self.mark(row, expected, ahead, explained);
            }
        }
        // This datagram's own numbers came.
        if self.missing_bits > 0 {
            for k in 0..segments.min(u32::from(REORDER_WINDOW)) as u16 {
                self.clear_missing(id.wrapping_add(k));
            }
        }
        // A skip carried from a pure ACK goes on this data segment (see `carried`).
        if payload > 0 {
            if let Some((first, count)) = self.carried.take() {
                if ahead == 0 {
                    // The data after the pure ACK shows the loss: the skip is explained.
                    let explained = hole || resend;
                    if explained {
                        self.unexplained_skips -= 1;
                        self.unexplained -= u64::from(count);
                        self.note_skip(true, count);
                    }
                    self.mark(row, first, count, explained);
                } else {
                    // Kept unexplained, so that a number of it coming late is taken off.
                    self.mark(row, first, count, false);
                }
            }
        }
        self.expected = Some(id.wrapping_add(segments as u16));
        if ahead <= MAX_SKIP && self.per_connection() { IdStep::Fresh } else { IdStep::Unknown }
    }

    /// The sender's segment size: the handshake's (`segment`, else `DEFAULT_SEGMENT`), or
    /// the largest single payload seen below it once one of at least `MIN_SEGMENT` was.
    fn segment_size(&self, segment: Option<u32>) -> u32 {
        let segment = segment.unwrap_or(DEFAULT_SEGMENT).max(1);
        if self.largest_single >= MIN_SEGMENT { self.largest_single.min(segment) } else { segment }
    }

    /// Keeps `row` as following the skip of `count` numbers from `first`, within
    /// `MAX_MARKED_SKIPS`.
    fn mark(&mut self, row: Option<u32>, first: u16, count: u16, explained: bool) {
        if let Some(row) = row.filter(|_| self.skips.len() < MAX_MARKED_SKIPS) {
            self.skips.push(Skip { row, first, count, missing: count, explained });
        }
    }

    /// Counts a skip of `count` numbers as explained by the capture or not (`told`).
    fn note_skip(&mut self, explained: bool, count: u16) {
        if explained {
            self.explained_skips += 1;
        } else {
            self.unexplained_skips += 1;
            self.unexplained += u64::from(count);
        }
    }

    /// Whether this datagram re-sends one the capture never saw, though its data looks new:
    /// the first transmission of a tail lost before the capture point (a receiver-side
    /// capture), re-sent by the sender's timer (a tail loss probe re-sends the last
    /// segment, RFC 8985 §7.3; a retransmission timeout the first unacknowledged one, RFC
    /// 6298 §5.4) with nothing after it that the capture saw. Call for every datagram of
    /// the direction but a SYN or RST, before `on_datagram`.
    ///
    /// Why the numbering proves it: Linux sends new data in sequence order and numbers
    /// every datagram in the order it sends it, so a datagram sent before this one that
    /// carried new data carried bytes below this one's — unless this one re-sends them.
    /// When its number skips datagrams and its data starts exactly at the end of
    /// everything captured, any skipped datagram that carried new data carried these
    /// very bytes. When it starts whole segments beyond that end (a probe re-sends the
    /// last of several lost segments, RFC 8985 §7.3), as many skipped datagrams carried
    /// those segments, and any more that carried new data carried its bytes. So with
    /// more skipped than that it is a re-send unless the others carried no new data,
    /// that is, each was one of:
    /// - a re-send of bytes below: none was due, no hole being open (a hole refilled
    ///   twice, the first re-send lost, shows as a hole that stays open);
    /// - a pure ACK, window update or zero-window probe: none was due, the peer having
    ///   sent nothing this side had to answer since its last datagram — no data, SYN or
    ///   FIN, keep-alive or zero-window probe, zero window (`prompted`) — and this one
    ///   carrying the same ACK number (an HTTP server's delayed ACK of a request, lost,
    ///   before its answer; a probe while the peer's window was closed);
    /// - a datagram of another connection, where one counter numbers all of a host's:
    ///   the host's datagram before this one was on this connection, or on another one
    ///   with a number this one did not skip (`SourceIds`; not known: not a re-send).
    ///
    /// And the skip must be one: the direction's last datagram carried at least a full
    /// segment (a receiver's GRO merges equal small segments, 5 × 100 bytes into one
    /// 500-byte frame that counts as one number where it used five, and the next
    /// datagram seems to skip four; merged full segments count right).
    ///
    /// And it must look like what a timer sends: one segment (a probe re-sends one, a
    /// timeout one with a congestion window of one, RFC 5681 §3.1; the next come an ACK
    /// later, so never merged with it by GRO), at least a path round trip and
    /// `TIMER_FLOOR_NS` after the direction's last datagram (a probe timeout is 2·SRTT
    /// after the last send, an RTO longer; retrans_kinds.rs then names which). Numbers
    /// that skip without a loss — GRO frames on a veth numbered past their segments
    /// (tcpdump at a GRO receiver: 65,160-byte frames 90 numbers apart, 50 µs after the
    /// last, the kernel counting no retransmission), another stack's counter shared with
    /// other traffic — are left alone there. Not counted: the rest of a lost
    /// tail re-sent after the first (slow start after a timeout, no skip before them —
    /// the skip cannot tell how many of its datagrams were originals of theirs and how
    /// many re-sends lost during an outage), and a segment beyond a gap that is no whole
    /// number of segments (smaller segments in it would take more numbers than its
    /// bytes say).
    ///
    /// Returns (the datagram has that shape, and the numbering is one per segment so
    /// far): the first is the evidence a skip needs (`told`), judged by the numbering as
    /// a whole at the end; both, a re-send.
    pub fn resends_unseen(&mut self, a: &Arrival) -> (bool, bool) {
        let (last_ack, last_t_ns) = (self.last_ack, self.last_t_ns);
        self.last_ack = a.ack;
        self.last_t_ns = a.t_ns;
        let segment = self.segment_size(a.segment);
        let full = a.payload > 0 && a.payload >= segment;
        let last_full = std::mem::replace(&mut self.last_full, full);
        let Some(expected) = self.expected else { return (false, false) };
        let skipped = a.id.wrapping_sub(expected);
        // Most datagrams come in step: nothing more to weigh.
        if skipped == 0 || skipped > MAX_SKIP || a.payload == 0 {
            return (false, false);
        }
        match a.source_last {
            SourceLast::Same => {}
            // Another connection of the same host took a number it skipped: one counter.
            SourceLast::Other(o) if o.wrapping_sub(expected) >= skipped => {}
            _ => return (false, false),
        }
        let shape = a.id != 0
            && a.gap.is_some_and(|g| whole_segments(g, segment).is_some_and(|n| u64::from(skipped) > n))
            && a.nothing_missing
            && !a.prompted
            && last_full
            && a.ack.is_some()
            && last_ack == a.ack
            && a.payload <= segment
            && a.round_trip_ns.is_some_and(|rtt| a.t_ns.saturating_sub(last_t_ns) >= rtt.max(TIMER_FLOOR_NS));
        (shape, shape && self.per_connection())
    }

    /// Number `n`'s word in `missing` and its bit there.
    fn slot(n: u16) -> (usize, u64) {
        (usize::from(n >> 6) % (REORDER_WINDOW as usize / 64), 1 << (n & 63))
    }

    fn set_missing(&mut self, n: u16) {
        let (w, bit) = Self::slot(n);
        let missing = self.missing.get_or_insert_with(|| Box::new([0; REORDER_WINDOW as usize / 64]));
        if missing[w] & bit == 0 {
            missing[w] |= bit;
            self.missing_bits += 1;
        }
    }

    /// Forgets number `n` as missing; whether it was.
    fn clear_missing(&mut self, n: u16) -> bool {
        let (w, bit) = Self::slot(n);
        let Some(missing) = self.missing.as_mut() else {
            return false;
        };
        let was = missing[w] & bit != 0;
        if was {
            missing[w] &= !bit;
            self.missing_bits -= 1;
        }
        was
    }

    /// Number `n`, skipped, came after all: off the missing, and off the mark of the
    /// skip that passed over it, if that one was marked (a skip carried from a pure ACK
    /// and then dropped, or past `MAX_MARKED_SKIPS`, has bits but no mark). Looked for
    /// among the last 64 marks: a bound per late datagram.
    fn came_late(&mut self, n: u16) -> bool {
        if !self.clear_missing(n) {
            return false;
        }
        if let Some(skip) = self.skips.iter_mut().rev().take(64).find(|s| n.wrapping_sub(s.first) < s.count) {
            skip.missing = skip.missing.saturating_sub(1);
            if !skip.explained {
                self.unexplained = self.unexplained.saturating_sub(1);
            }
        }
        true
    }

    /// Number `n` is one a skip passed over that has not come, within the window.
    fn is_missing(&self, n: u16) -> bool {
        let behind = self.expected.map_or(u16::MAX, |e| e.wrapping_sub(n));
        let (w, bit) = Self::slot(n);
        (1..=REORDER_WINDOW).contains(&behind) && self.missing.as_ref().is_some_and(|m| m[w] & bit != 0)
    }

    /// The direction's first data seen starts `bytes` beyond its first byte: the
    /// datagrams before it, which no skip can show (the numbering starts at the first
    /// one seen, and Linux's SYN/ACK carries 0, outside it), are counted by the segments
    /// those bytes fill (`segment`: the handshake's, else `DEFAULT_SEGMENT`), and their
    /// numbers, just below the first one seen, are remembered as missing: one that comes
    /// later was overtaken, not lost (`came_late`). Counted only if the numbering is
    /// told (`finish`), as every skip. Call before the first `on_datagram`.
    pub fn lost_before_first(&mut self, bytes: u64, segment: Option<u32>) {
        let segment = u64::from(segment.unwrap_or(DEFAULT_SEGMENT).max(1));
        self.before_first = bytes.div_ceil(segment).min(u64::from(REORDER_WINDOW)) as u16;
    }

    /// Whether the sender numbers its datagrams one per segment for this connection.
    /// `id` is exactly the number due after the direction's last datagram: its sender
    /// sent no datagram in between (`late_sighting.rs`).
    pub fn is_due(&self, id: u16) -> bool {
        self.expected == Some(id)
    }

    fn per_connection(&self) -> bool {
        self.steps >= MIN_STEPS && self.max_ttl <= MAX_INITIAL_TTL && f64::from(self.in_step) >= PER_CONNECTION_SHARE * f64::from(self.steps)
    }

    /// End of capture: the number of datagrams sent but not captured (None when the
    /// numbering says nothing), and the rows to mark `UNSEEN_BEFORE`.
    pub fn finish(self) -> (Option<u64>, Vec<(u32, u32)>) {
        if !self.told() {
            return (None, Vec::new());
        }
        let marks = self.skips.into_iter().filter(|s| s.missing > 0 && s.explained).map(|s| (s.row, UNSEEN_BEFORE)).collect();
        (Some(self.unseen.saturating_sub(self.unexplained)), marks)
    }

    /// Whether the numbering is shown to be this connection's own send counter, so that
    /// its skips count datagrams sent and not captured (docs/ANALYSIS.md
    /// `direction.unseenDatagrams`, DESIGN.md "Diagnosis principles" 1–2). One per
    /// segment most of the time is not enough: a counter the host shares with other
    /// traffic steps by one through every burst of this connection and skips only where
    /// it paused and the other traffic took numbers. So a skip counts only where the
    /// capture independently shows a loss behind it: the data after it starts beyond a
    /// hole in the sequence (`LOST_SEGMENT`), re-sends data (a retransmission, or
    /// `resends_unseen`), or comes while a hole the receiver has not acknowledged is open
    /// (the skipped datagram may be a re-send of it, lost again). A skip without such evidence (a lost pure ACK; another flow's
    /// numbers) is never counted as a datagram lost; where such skips outnumber the
    /// explained ones, the numbering is not shown to be the connection's own, and
    /// nothing is told.
    fn told(&self) -> bool {
        self.per_connection() && self.unexplained_skips <= self.explained_skips
    }
}

/// The number of `segment`-byte segments `bytes` make, if they make whole ones.
fn whole_segments(bytes: i64, segment: u32) -> Option<u64> {
    let segment = i64::from(segment.max(1));
    (bytes % segment == 0).then(|| (bytes / segment) as u64)
}

#[cfg(test)]
#[path = "datagram_ids_tests.rs"]
mod tests;
