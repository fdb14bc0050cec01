//! The analysis timeline: the order and the time packets are analysed in, which is
//! time order, never going back (docs/ANALYSIS.md "Time order"; issue 18 item 4,
//! issue 39 item 1).
//!
//! A capture's order is not time order: pcapng files from several interfaces are
//! written interface by interface in blocks (dumpcap hands each interface's buffer to
//! the file as it fills, so a frame can follow one stamped hundreds of ms after it),
//! multi-queue capture and merged files interleave loosely, NTP steps the clock back,
//! a corrupted stamp lands anywhere. Wireshark plots by timestamp; analysed in file
//! order the same packets make fake stalls (the early packets moved forward leave a
//! hole), a wrong peak and wrong RTTs. Three stages, in this order:
//! 1. **A lone outlier** — a packet more than [`OUTLIER_JUMP_NS`] later than every one
//!    before it (or the first packet of the file) with the next packet again more than
//!    that much earlier — is one bad timestamp (a flipped high bit is 68 years late):
//!    it takes the latest time before it (the first packet: the next one's), so one bad
//!    stamp cannot stretch or empty everything after it. Decided one packet late.
//!    Such a jump that the next packet follows (two captures joined, a clock set
//!    forward) is kept as stamped, as Wireshark does, and reported ([`ForwardJump`],
//!    the `time-jumped-forward` warning): the capture's span includes it.
//! 2. **Sorting within a window**: packets are held and released in order of (time,
//!    place in the file) once they are more than [`REORDER_WINDOW_NS`] older than the
//!    newest stamp seen, or, to bound memory, when [`REORDER_MAX_PACKETS`] are held
//!    (the oldest goes). So a packet up to that much out of order is analysed
//!    where its stamp puts it, as a stable sort by time would (ties keep file order),
//!    and frame numbers stay the file's.
//! 3. **Beyond the window, not analysed**: a packet older than the newest stamp by
//!    more than the window, or older than a packet already released (the cap forced
//!    it out), cannot be analysed at its own time any more, and no other time is
//!    its: it is left out and counted ([`Timeline::unplaced`]; the session reports
//!    them as the `time-order-clamped` warning, a name kept for the schema). Analysed
//!    at "the latest time seen" (up to session 30) such packets became evidence of
//!    what never happened: markofu/pcaps `ftp-crack.pcap`, the capture appended to
//!    itself, had its second copy squeezed to 44.6 s, and a login that was reset at
//!    7.03 s read "window closed from 6.571 s to 44.603 s" (review N, C-CLAMP).
//!
//! **Repeats.** Before any of that, a packet that steps back in time (earlier than the
//! newest stamp) and is identical — content and timestamp, [`Stamped::identity`] — to
//! one that came before the newest stamp's packet in the file (or is that packet, the
//! file having stepped back since) is the file holding that
//! packet twice (a capture appended to itself, `cat a.pcap` bodies, mergecap of a file
//! with itself): one packet, wherever in the file its copy lies; counted
//! ([`Timeline::repeated`], with the `duplicate-frames` warning) and not analysed
//! again. Two identical packets of one stretch of the file (a coarse clock's duplicate
//! ACKs inside one interface's block of a pcapng) are not repeats: the first came after
//! the newest stamp's packet. Identities are remembered in a table of
//! [`SEEN_SLOTS`] (2 MiB) in buckets of 8, each forgetting its oldest (a file of up to
//! ~50,000 packets appended to itself loses none); one the table forgot leaves the copy to the window rule
//! (not analysed either, counted as out of order).
//!
//! So analysis times are non-decreasing, every packet analysed is analysed at its own
//! stamp (lone outliers of stage 1 aside: their stamp is no time), and every duration,
//! gap and stall is ≥ 0.
//! The decoder counts each step back in the file as `time-went-backwards`.
//!
//! Memory: at most `REORDER_MAX_PACKETS` packets held (the session's are `Decoded`,
//! 192 bytes (MPTCP options are one boxed pointer; 16 of them the Ethernet addresses' hashes, `FrameId::macs`),
//! 208 with their key: 13 MiB; the queue's and the heap's buffers each
//! grow to at most that), plus one for stage 1. Time: a packet in order is appended to
//! and taken from a queue (constant time); only a packet earlier than the one before
//! it goes through a heap (logarithmic in the packets held).

use crate::decode::Decoded;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// A forward jump this large followed by a return is one bad timestamp, not a
/// pause: no real capture pauses an hour and then resumes before the pause began.
pub const OUTLIER_JUMP_NS: i64 = 3_600 * 1_000_000_000;

/// Packets up to this much earlier than the newest stamp seen are sorted into time
/// order: twice the longest buffer timeout capture tools flush interfaces by (dumpcap
/// and libpcap wait up to 1 s for a buffer to fill before handing it over).
pub const REORDER_WINDOW_NS: i64 = 2_000_000_000;

/// At most this many packets are held for sorting, the one arriving included (see the
/// module doc, Memory): at 125,000 packets/s (1 Gbit/s of full segments and their
/// ACKs) that is 0.5 s. A power of two: the queue's buffer then never outgrows it.
pub const REORDER_MAX_PACKETS: usize = 65_536;

/// Slots of the table of identities seen (module doc, Repeats; repeat_table.rs).
pub use super::repeat_table::SEEN_SLOTS;

/// Something with a capture timestamp, ns.
pub trait Stamped {
    fn stamp(&self) -> i64;
    /// A hash of everything the packet is, its timestamp included (module doc,
    /// Repeats); None when the packet cannot be told from another (non-TCP packets,
    /// which the analysis uses for times only).
    fn identity(&self) -> Option<u64> {
        None
    }
    /// Its frame number (1-based place in the file, Wireshark's `frame.number`), if known.
    fn frame_number(&self) -> Option<u64> {
        None
    }
    /// Its 4-tuple and whether its timestamp field could not be a time, for the
    /// per-connection count of packets without a usable time (broken_clock.rs).
    fn flow(&self) -> Option<(super::broken_clock::Flow, bool)> {
        None
    }
    fn impossible_stamp(&self) -> bool {
        false
    }
}

impl Stamped for Decoded {
    #[inline]
    fn stamp(&self) -> i64 {
        match self {
            Decoded::Tcp(s) => s.ts_ns,
            Decoded::Other { ts_ns, .. } => *ts_ns,
        }
    }
    fn identity(&self) -> Option<u64> {
        match self {
            Decoded::Tcp(s) => Some(super::duplicates::exact_identity(s)),
            Decoded::Other { .. } => None,
        }
    }
    fn frame_number(&self) -> Option<u64> {
        let index = match self {
            Decoded::Tcp(s) => s.packet_index,
            Decoded::Other { packet_index, .. } => *packet_index,
        };
        Some(index.saturating_add(1))
    }
    fn flow(&self) -> Option<(super::broken_clock::Flow, bool)> {
        match self {
            Decoded::Tcp(s) => Some((super::broken_clock::flow((s.src, s.src_port), (s.dst, s.dst_port)), s.meta.bits.ts_impossible())),
            Decoded::Other { .. } => None,
        }
    }
    #[inline]
    fn impossible_stamp(&self) -> bool {
        matches!(self, Decoded::Tcp(s) if s.meta.bits.ts_impossible())
    }
}

/// A forward jump of the clock by more than [`OUTLIER_JUMP_NS`] that the packets after
/// it follow (no return, so no lone outlier): two captures joined (mergecap -a, cat of
/// pcap bodies), or the clock set while capturing. Analysed as stamped, as Wireshark
/// does, so the capture's span includes it; only reported (`time-jumped-forward`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForwardJump {
    /// The frame that jumped (None for items without a frame number).
    pub frame: Option<u64>,
    /// How far past every stamp before it, ns.
    pub jump_ns: i64,
}

impl Stamped for i64 {
    fn stamp(&self) -> i64 {
        *self
    }
}

/// A held packet: ordered by (time, place in the file).
struct Held<T> {
    t: i64,
    arrival: u64,
    item: T,
}

impl<T> Held<T> {
    fn key(&self) -> (i64, u64) {
        (self.t, self.arrival)
    }
}

impl<T> PartialEq for Held<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<T> Eq for Held<T> {}
impl<T> PartialOrd for Held<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Held<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// Packets in, packets out in analysis order with their analysis time (module doc).
pub struct Timeline<T> {
    window_ns: i64,
    max_held: usize,
    /// Stage 1: a packet that jumped more than an hour past every time before it, and
    /// its stamp: the next packet tells whether it is an outlier.
    pending: Option<(T, i64)>,
    /// Latest stage-1 time so far.
    before: Option<i64>,
    /// Stage 2: packets held, those that came in time order in a queue (each at or
    /// after the one before it), the others in a heap.
    in_order: VecDeque<Held<T>>,
    out_of_order: BinaryHeap<Reverse<Held<T>>>,
    arrivals: u64,
    newest: Option<i64>,
    /// Stage 3: analysis time of the last released packet.
    latest: Option<i64>,
    /// Newest stamp's packet's place in the file (module doc, Repeats).
    newest_arrival: u64,
    /// A packet earlier than the newest stamp came since the newest stamp's packet.
    stepped_back: bool,
    /// Identities and places in the file of packets held (repeat_table.rs).
    seen: super::repeat_table::RepeatTable,
    outliers: u64,
    unplaced: u64,
    repeated: u64,
    /// Forward jumps kept as stamped, and the largest of them.
    jumps: u64,
    largest_jump: Option<ForwardJump>,
    /// Per 4-tuple, packets left out and analysed at impossible stamps (broken_clock.rs).
    untimed: super::broken_clock::Untimed,
}

impl<T: Stamped> Default for Timeline<T> {
    fn default() -> Self {
        Self::with_window(REORDER_WINDOW_NS, REORDER_MAX_PACKETS)
    }
}

impl<T: Stamped> Timeline<T> {
    /// A timeline sorting within `window_ns` and `max_held` packets (tests use small ones).
    pub fn with_window(window_ns: i64, max_held: usize) -> Self {
        Timeline {
            window_ns: window_ns.max(0),
            max_held: max_held.max(1),
            pending: None,
            before: None,
            in_order: VecDeque::new(),
            out_of_order: BinaryHeap::new(),
            arrivals: 0,
            newest: None,
            latest: None,
            newest_arrival: 0,
            stepped_back: false,
            seen: Default::default(),
            outliers: 0,
            unplaced: 0,
            repeated: 0,
            jumps: 0,
            largest_jump: None,
            untimed: Default::default(),
        }
    }

    /// The next packet of the file; `out` gets every packet this releases, in
    /// analysis order, with its analysis time. Only a packet that jumped an hour past
    /// every time before it waits for the next one (stage 1); the others go straight
    /// to the hold (a `Decoded` is 176 bytes: each move costs, bench/README.md).
    #[inline]
    pub fn push(&mut self, item: T, out: &mut impl FnMut(&mut T, i64)) {
        let ts = item.stamp();
        if let Some((held, stamp)) = self.pending.take() {
            let outlier = ts < stamp.saturating_sub(OUTLIER_JUMP_NS);
            let t = match (outlier, self.before) {
                (true, Some(before)) => before,
                (true, None) => ts, // a bad first stamp: the next packet's time
                (false, _) => stamp,
            };
            self.outliers += u64::from(outlier);
            if !outlier {
                self.note_jump(&held, stamp);
            }
            self.hold(held, t, out);
        }
        if self.before.is_none_or(|b| ts > b.saturating_add(OUTLIER_JUMP_NS)) {
            self.pending = Some((item, ts));
        } else {
            self.hold(item, ts, out);
        }
    }

    /// End of input: every packet still held, in analysis order.
    pub fn finish(&mut self, out: &mut impl FnMut(&mut T, i64)) {
        if let Some((held, stamp)) = self.pending.take() {
            // The file's last packet: nothing came back, so it is kept as stamped.
            self.note_jump(&held, stamp);
            self.hold(held, stamp, out);
        }
        while self.release_first(out) {}
    }

    /// Stage 1 kept a packet that jumped past every stamp before it as stamped: a
    /// jump, unless it is the file's first packet (nothing before it to jump from).
    fn note_jump(&mut self, held: &T, stamp: i64) {
        let Some(before) = self.before else { return };
        let jump = ForwardJump { frame: held.frame_number(), jump_ns: stamp.saturating_sub(before) };
        self.jumps += 1;
        if self.largest_jump.is_none_or(|j| jump.jump_ns > j.jump_ns) {
            self.largest_jump = Some(jump);
        }
    }

    /// Stage 2: hold a packet at time `t`, then release what can no longer be preceded.
    #[inline]
    fn hold(&mut self, item: T, t: i64, out: &mut impl FnMut(&mut T, i64)) {
        self.before = Some(self.before.map_or(t, |b| b.max(t)));
        let identity = item.identity();
        if let Some(newest) = self.newest {
            // Only where the file went back in time (this packet, or one since the
            // newest stamp's): identical packets in file order are the traffic's own.
            self.stepped_back |= t < newest;
            if (t < newest || self.stepped_back && t == newest) && identity.is_some_and(|id| self.seen_before_newest(id)) {
                self.repeated += 1; // the file holds it twice (module doc, Repeats)
                return;
            }
            if t < newest.saturating_sub(self.window_ns) {
                self.unplaced += 1; // beyond the window (stage 3): no time is its
                if let Some((f, _)) = item.flow() { self.untimed.left_out(f); }
                return;
            }
        }
        if item.impossible_stamp() {
            if let Some((f, _)) = item.flow() { self.untimed.impossible(f); }
        }
        let arrival = self.arrivals;
        self.arrivals += 1;
        if let Some(id) = identity {
            self.seen.remember(id, arrival);
        }
        if self.newest.is_none_or(|n| t >= n) {
            self.newest_arrival = arrival;
            self.stepped_back = false;
        }
        let newest = self.newest.map_or(t, |n| n.max(t));
        self.newest = Some(newest);
        let held = Held { t, arrival, item };
        if self.in_order.back().is_none_or(|b| t >= b.t) {
            self.in_order.push_back(held);
        } else {
            self.out_of_order.push(Reverse(held));
        }
        // A packet older than newest − window cannot be preceded by any packet still to
        // come (those are not analysed): release it.
        let due = newest.saturating_sub(self.window_ns);
        if self.out_of_order.is_empty() {
            // Everything held came in order (the usual case): the queue's front is first.
            loop {
                let over = self.in_order.len() >= self.max_held;
                let Some(first) = self.in_order.front_mut() else { break };
                if first.t >= due && !over {
                    break;
                }
                Self::release(&mut self.latest, &mut self.unplaced, first, out);
                self.in_order.pop_front();
            }
            return;
        }
        while self.first_time().is_some_and(|f| f < due) || self.held() >= self.max_held {
            self.release_first(out);
        }
    }

    /// A packet of identity `id` came earlier in the file than the newest stamp's, or
    /// was that packet and the file has stepped back in time since.
    fn seen_before_newest(&mut self, id: u64) -> bool {
        self.seen.seen_before(id, self.newest_arrival, self.stepped_back)
    }

    fn held(&self) -> usize {
        self.in_order.len() + self.out_of_order.len()
    }

    /// Time of the first packet in analysis order among those held.
    #[inline]
    fn first_time(&self) -> Option<i64> {
        match (self.in_order.front(), self.out_of_order.peek()) {
            (Some(a), Some(Reverse(b))) => Some(a.t.min(b.t)),
            (Some(a), None) => Some(a.t),
            (None, Some(Reverse(b))) => Some(b.t),
            (None, None) => None,
        }
    }

    /// Stage 3: release the first held packet at max(its time, the latest released).
    /// False when nothing is held.
    fn release_first(&mut self, out: &mut impl FnMut(&mut T, i64)) -> bool {
        let from_queue = match (self.in_order.front(), self.out_of_order.peek()) {
            (Some(a), Some(Reverse(b))) => a.key() < b.key(),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return false,
        };
        if from_queue {
            // Delivered where it lies, then dropped: no move of the packet out.
            Self::release(&mut self.latest, &mut self.unplaced, self.in_order.front_mut().expect("front checked"), out);
            self.in_order.pop_front();
        } else {
            let mut held = self.out_of_order.pop().expect("peek checked").0;
            Self::release(&mut self.latest, &mut self.unplaced, &mut held, out);
        }
        true
    }

    /// Hand `held` to `out` at its time, unless a later packet was released already
    /// (the cap forced it out): then it is not analysed (stage 3).
    #[inline]
    fn release(latest: &mut Option<i64>, unplaced: &mut u64, held: &mut Held<T>, out: &mut impl FnMut(&mut T, i64)) {
        if latest.is_some_and(|l| held.t < l) {
            *unplaced += 1;
            return;
        }
        *latest = Some(held.t);
        out(&mut held.item, held.t);
    }

    /// Packets out of time order by more than the window or the cap sorts: not
    /// analysed (stage 3).
    pub fn unplaced(&self) -> u64 {
        self.unplaced
    }

    /// Per 4-tuple, packets left out and analysed at impossible stamps (broken_clock.rs).
    pub fn take_untimed(&mut self) -> super::broken_clock::Untimed {
        std::mem::take(&mut self.untimed)
    }

    /// Packets the file holds twice, not analysed again (module doc, Repeats).
    pub fn repeated(&self) -> u64 {
        self.repeated
    }

    /// Lone outliers (stage 1) given the time before them.
    pub fn outliers(&self) -> u64 {
        self.outliers
    }

    /// Forward jumps by more than [`OUTLIER_JUMP_NS`] kept as stamped (the packets
    /// after them followed on, or nothing came after), and the largest.
    pub fn forward_jumps(&self) -> (u64, Option<ForwardJump>) {
        (self.jumps, self.largest_jump)
    }

    /// Analysis time of the last released packet.
    pub fn latest(&self) -> Option<i64> {
        self.latest
    }

    /// The newest stamp seen so far, held or released (the progressive view's estimate
    /// of the capture's length: the decoder's position in capture time).
    pub fn newest(&self) -> Option<i64> {
        self.newest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;
    const MS: i64 = 1_000_000;

    /// (stamps in analysis order, analysis times, moved = outliers + not analysed).
    fn run(mut timeline: Timeline<i64>, stamps: &[i64]) -> (Vec<i64>, Vec<i64>, u64) {
        let (mut order, mut times) = (Vec::new(), Vec::new());
        let mut out = |s: &mut i64, t: i64| {
            order.push(*s);
            times.push(t);
        };
        for &s in stamps {
            timeline.push(s, &mut out);
        }
        timeline.finish(&mut out);
        (order, times, timeline.outliers() + timeline.unplaced())
    }

    fn times(stamps: &[i64]) -> (Vec<i64>, u64) {
        let (_, times, moved) = run(Timeline::default(), stamps);
        (times, moved)
    }

    #[test]
    fn the_memory_cap_holds_what_the_doc_says() {
        // 65,536 held packets of 208 bytes: 13 MiB (module doc, Memory).
        assert!(std::mem::size_of::<Held<Decoded>>() <= 208, "{}", std::mem::size_of::<Held<Decoded>>());
        assert!(REORDER_MAX_PACKETS.is_power_of_two());
    }

    #[test]
    fn in_order_stamps_are_kept() {
        assert_eq!(times(&[0, S, 2 * S, 2 * S]), (vec![0, S, 2 * S, 2 * S], 0));
    }

    #[test]
    fn steps_back_within_the_window_are_sorted_ties_keep_file_order() {
        // Two interfaces written in blocks: 10, 20, 30 ms from one, then 5, 15, 25 ms
        // from the other (a step back of 25 ms). Analysed in time order, every packet
        // at its own stamp.
        let (order, times, moved) = run(Timeline::default(), &[10 * MS, 20 * MS, 30 * MS, 5 * MS, 15 * MS, 25 * MS]);
        assert_eq!(order, vec![5 * MS, 10 * MS, 15 * MS, 20 * MS, 25 * MS, 30 * MS]);
        assert_eq!((times, moved), (order.clone(), 0));
        // Equal stamps keep the file's order: the stable sort's answer. (Items are
        // told apart by the order they come out in: stamps 7 and 7 from arrival 1, 3.)
        let mut seen = Vec::new();
        let mut t = Timeline::<(i64, u8)>::default();
        for item in [(9, 0), (7, 1), (8, 2), (7, 3)] {
            t.push(item, &mut |x: &mut (i64, u8), _| seen.push(x.1));
        }
        t.finish(&mut |x: &mut (i64, u8), _| seen.push(x.1));
        assert_eq!(seen, vec![1, 3, 2, 0]);
    }

    impl Stamped for (i64, u8) {
        fn stamp(&self) -> i64 {
            self.0
        }
    }

    #[test]
    fn a_step_back_beyond_the_window_is_not_analysed() {
        // 10 s, then a packet stamped 50 s earlier (the "50 s stall at −49.85 s" of
        // issue 18): beyond the 2 s window, its own time can no longer be kept and no
        // other time is its: left out (counted), so no gap opens and nothing is
        // analysed at a time it did not happen (review N, C-CLAMP).
        assert_eq!(times(&[0, 10 * S, -40 * S, 11 * S]), (vec![0, 10 * S, 11 * S], 1));
    }

    /// A stamp with an identity (module doc, Repeats): `.1` tells copies apart.
    impl Stamped for (i64, u64) {
        fn stamp(&self) -> i64 {
            self.0
        }
        fn identity(&self) -> Option<u64> {
            Some(self.1)
        }
    }

    fn repeats(items: &[(i64, u64)]) -> (Vec<(i64, u64)>, u64, u64) {
        let mut t = Timeline::<(i64, u64)>::default();
        let mut seen = Vec::new();
        for &item in items {
            t.push(item, &mut |x: &mut (i64, u64), at| {
                assert_eq!(at, x.0); // every packet at its own time
                seen.push(*x);
            });
        }
        t.finish(&mut |x: &mut (i64, u64), _| seen.push(*x));
        (seen, t.repeated(), t.unplaced())
    }

    #[test]
    fn a_file_appended_to_itself_is_analysed_once_at_its_own_times() {
        // Five packets over 40 s, then the same five again (same identity, same stamps):
        // the second copy steps back 40 s and 30 s (beyond the window) and 0.5 s
        // (within it), but each matches a packet that came before the newest stamp's in
        // the file: 5 repeats, none out of order, nothing analysed twice or late.
        let first = [(0, 11), (10 * S, 12), (20 * S, 13), (39 * S + 500 * MS, 14), (40 * S, 15)];
        let mut file = first.to_vec();
        file.extend(first);
        assert_eq!(repeats(&file), (first.to_vec(), 5, 0));
        // Not the same packet (another identity) 30 s back: out of order, not analysed.
        assert_eq!(repeats(&[(0, 1), (40 * S, 2), (10 * S, 9)]), (vec![(0, 1), (40 * S, 2)], 0, 1));
    }

    #[test]
    fn identical_packets_of_one_block_are_not_repeats() {
        // A pcapng written in interface blocks: 100 ms from one, then 60 ms twice from
        // the other (a coarse clock's two duplicate ACKs, identical, both stepping back
        // within the window). The first 60 ms came after the 100 ms packet in the file:
        // both are analysed, in time order.
        let (seen, repeated, unplaced) = repeats(&[(100 * MS, 1), (60 * MS, 7), (60 * MS, 7)]);
        assert_eq!((seen, repeated, unplaced), (vec![(60 * MS, 7), (60 * MS, 7), (100 * MS, 1)], 0, 0));
    }

    #[test]
    fn the_cap_releases_the_oldest_and_what_comes_later_older_is_not_analysed() {
        // At most 3 held, the arriving one included: 10, 20, 30 ms force 10 out; 5 ms
        // then comes too late for it (not analysed); 25 ms still sorts before 30 ms.
        let (order, times, moved) = run(Timeline::with_window(S, 3), &[10 * MS, 20 * MS, 30 * MS, 5 * MS, 25 * MS]);
        assert_eq!(order, vec![10 * MS, 20 * MS, 25 * MS, 30 * MS]);
        assert_eq!(times, order);
        assert_eq!(moved, 1);
    }

    #[test]
    fn packets_are_released_once_older_than_the_window() {
        // Held until a stamp more than the window newer comes: memory follows the
        // window, not the file. (The first packet waits for the second, stage 1.)
        let mut t = Timeline::<i64>::with_window(10 * MS, 1000);
        let mut released = Vec::new();
        for s in [0, 5 * MS, 9 * MS, 12 * MS] {
            t.push(s, &mut |x: &mut i64, _| released.push(*x));
        }
        assert_eq!(released, vec![0]); // 0 < 12 − 10 ms
        t.push(30 * MS, &mut |x: &mut i64, _| released.push(*x));
        assert_eq!(released, vec![0, 5 * MS, 9 * MS, 12 * MS]); // all < 20 ms
    }

    #[test]
    fn one_flipped_high_bit_moves_one_packet_not_the_rest() {
        // Bit 62 of a ns stamp set: ~146 years late. Only that packet moves (to the
        // time of the one before); the packets after keep their own times.
        let bad = (2 * S) | (1 << 62);
        assert_eq!(times(&[0, S, bad, 3 * S, 4 * S]), (vec![0, S, S, 3 * S, 4 * S], 1));
    }

    #[test]
    fn a_bad_first_stamp_takes_the_next_packets_time() {
        let bad = i64::MAX - 5;
        assert_eq!(times(&[bad, S, 2 * S]), (vec![S, S, 2 * S], 1));
    }

    #[test]
    fn a_long_real_pause_is_kept() {
        // Two hours of silence, then the transfer resumes later still: a pause, not an outlier.
        assert_eq!(times(&[0, 7_200 * S, 7_201 * S]), (vec![0, 7_200 * S, 7_201 * S], 0));
    }

    #[test]
    fn a_jump_the_next_packets_follow_is_kept_and_reported() {
        // Two captures joined: 0, 1 s, then 3 years later and on. Not a lone outlier
        // (the next packet does not come back), so analysed as stamped, and reported
        // once with the jump past the 1 s before it. A lone outlier is not a jump.
        let later = 3 * 365 * 86_400 * S;
        let mut t = Timeline::<i64>::default();
        for s in [0, S, later, later + S, later + 2 * S] {
            t.push(s, &mut |_, _| {});
        }
        t.finish(&mut |_, _| {});
        assert_eq!(t.forward_jumps(), (1, Some(ForwardJump { frame: None, jump_ns: later - S })));
        assert_eq!(t.latest(), Some(later + 2 * S));
        let mut t = Timeline::<i64>::default();
        for s in [0, S, (2 * S) | (1 << 62), 3 * S] {
            t.push(s, &mut |_, _| {});
        }
        t.finish(&mut |_, _| {});
        assert_eq!((t.forward_jumps(), t.outliers()), ((0, None), 1));
    }

    #[test]
    fn a_late_last_packet_is_kept() {
        // Nothing comes after it to say it was an outlier: the view engine's bounds
        // (view/request.rs) keep such a span drawable.
        assert_eq!(times(&[0, S, 365 * 86_400 * S]), (vec![0, S, 365 * 86_400 * S], 0));
    }
}
