//! Compact per-connection storage of the chart rows, materialized into the public
//! [`ConnectionColumns`] (the contract with JavaScript) only on demand.
//!
//! Why: the public layout is five f64 columns plus four narrow ones, 61 bytes per
//! packet, and growing `Vec`s by doubling can waste as much again. Issue 7 asks for
//! ≤ 40 bytes per packet retained. Consecutive rows of a connection differ little
//! (the next sequence number is one MSS on, the ACK field repeats, timestamps are
//! microseconds apart), so each row is stored as LEB128 varints of its differences
//! from the previous row of the same direction: typically 12–16 bytes per packet.
//!
//! Exactness: every value is stored as an exact integer (time as i64 ns since the
//! first packet of the file, sequence numbers as unwrapped i64), and materializing
//! applies the same `as f64` conversions the analyzer used to apply when it pushed
//! f64 columns directly, so the output is bit-for-bit what it was (tested in
//! `store_tests.rs`).
//!
//! Growth: bytes go into chunks that double up to 64 KiB and are fixed-size after
//! that, so no more than one chunk of slack per log (and small connections are
//! shrunk to fit at the end of the capture): store_log.rs.

use crate::analysis::rows::columns::{ConnectionColumns, PacketColumns, RttColumns, RttSource, SackColumns, SackSource};
use crate::analysis::rows::store_log::ByteLog;

/// The RTT kind bits a row keeps (push_rtt): timestamp, excluded, clocked, delayable,
/// answered (round_trips.rs).
const STORED_KIND_BITS: u64 = 0b11_0111;

/// One packet row, in exact integers (the analyzer's values before `as f64`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacketRow {
    /// ns since the first packet of the file.
    pub t_ns: i64,
    pub dir: u8,
    pub frame: u32,
    pub seq: i64,
    pub len: u32,
    pub wire_len: u32,
    pub ack: Option<i64>,
    /// None on RST.
    pub win: Option<u64>,
    pub in_flight: Option<u64>,
    pub flags: u32,
}

/// Previous values the deltas refer to; the encoder and decoder keep identical copies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Prev {
    t_ns: i64,
    frame: u32,
    seq: [i64; 2],
    ack: [i64; 2],
    win: [i64; 2],
    in_flight: [i64; 2],
    rtt_t: i64,
}

/// The SACK blocks' rows, with the previous values their deltas refer to: boxed at the
/// first block, since most connections carry none (issue 43: 8 B in every `Conn`
/// instead of 52).
#[derive(Clone, Debug, Default, PartialEq)]
struct SackLog {
    log: ByteLog,
    rows: u32,
    t: i64,
    left: [i64; 2],
}

/// Everything the charts need about one connection, compactly (see module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConnStore {
    packets: ByteLog,
    rtt: ByteLog,
    sack: Option<Box<SackLog>>,
    rows: u32,
    rtt_rows: u32,
    /// Flag bits decided after the row was written (retransmission kinds, known
    /// only at the end of the connection: retrans_kinds.rs), as (row, bits) sorted
    /// by row; OR-ed into `flags` when rows are read.
    /// An entry with no bits marks a CE-marked data segment ([`ConnStore::mark_ce_rows`]).
    late_flags: Vec<(u32, u32)>,
}

/// A store being filled: the store plus the previous values its deltas refer to
/// (which a finished store no longer needs to carry).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ConnWriter {
    store: ConnStore,
    prev: Prev,
}

fn delta_opt(v: Option<i64>, prev: &mut i64) -> Option<i64> {
    v.map(|v| {
        let d = v.wrapping_sub(*prev);
        *prev = v;
        d
    })
}

impl ConnWriter {
    #[inline]
    pub(crate) fn push_packet(&mut self, r: &PacketRow) {
        let d = r.dir as usize & 1;
        let p = &mut self.prev;
        let mut row = self.store.packets.row();
        row.u64(((r.flags as u64) << 1) | d as u64);
        row.i64(r.t_ns.wrapping_sub(p.t_ns));
        row.i64(r.frame as i64 - p.frame as i64);
        row.i64(r.seq.wrapping_sub(p.seq[d]));
        row.u64(r.len as u64);
        row.i64(r.wire_len as i64 - r.len as i64);
        row.opt(delta_opt(r.ack, &mut p.ack[d]));
        row.opt(delta_opt(r.win.map(|w| w as i64), &mut p.win[d]));
        row.opt(delta_opt(r.in_flight.map(|w| w as i64), &mut p.in_flight[d]));
        (p.t_ns, p.frame, p.seq[d]) = (r.t_ns, r.frame, r.seq);
        self.store.rows += 1;
    }

    /// An RTT sample completed at `t_ns` for data of direction `dir`. `kind`: bit 0
    /// timestamp (1) or ACK (0) sample, bit 1 excluded from statistics (rtt.rs), bit 2
    /// an echo by the peer's new data that acknowledges none of ours (round_trips.rs
    /// `CLOCKED`), bit 4 an ACK the receiver may have delayed (`DELAYABLE`), bit 5 one
    /// that rode on its new data (`ANSWERED`); bit 3 (`FOLLOWED`) is never stored. The
    /// head stays below 2^7: one varint byte.
    #[inline]
    pub(crate) fn push_rtt(&mut self, t_ns: i64, dir: u8, rtt_ns: i64, kind: u8) {
        let mut row = self.store.rtt.row();
        row.u64(((kind as u64 & STORED_KIND_BITS) << 1) | (dir as u64 & 1));
        row.i64(t_ns.wrapping_sub(self.prev.rtt_t));
        row.i64(rtt_ns);
        self.prev.rtt_t = t_ns;
        self.store.rtt_rows += 1;
    }

    /// A SACK block [left, right) carried by an ACK of direction `dir`.
    pub(crate) fn push_sack(&mut self, t_ns: i64, dir: u8, left: i64, right: i64) {
        let d = dir as usize & 1;
        let s = &mut **self.store.sack.get_or_insert_with(Box::default);
        let mut row = s.log.row();
        row.u64(d as u64);
        row.i64(t_ns.wrapping_sub(s.t));
        row.i64(left.wrapping_sub(s.left[d]));
        row.i64(right.wrapping_sub(left));
        (s.t, s.left[d]) = (t_ns, left);
        s.rows += 1;
    }

    /// Index the next `push_packet` row will have.
    pub(crate) fn next_row(&self) -> u32 {
        self.store.rows
    }

    /// Adds flag `bits` to row `row`, already written (see `late_flags`).
    pub(crate) fn mark(&mut self, row: u32, bits: u32) {
        self.store.late_flags.push((row, bits));
    }

    /// The logs' growth room given back while the capture is still read (a connection
    /// gone quiet, analyzer.rs `release_quiet`); rows written later grow them again.
    pub(crate) fn release_slack(&mut self) {
        self.store.packets.release_slack();
        self.store.rtt.release_slack();
        self.store.sack.iter_mut().for_each(|s| s.log.release_slack());
        self.store.late_flags.shrink_to_fit();
    }

    /// End of capture: the store without the growth slack.
    pub(crate) fn finish(self) -> ConnStore {
        let mut s = self.store;
        s.packets.shrink();
        s.rtt.shrink();
        s.sack.iter_mut().for_each(|s| s.log.shrink());
        s.add_late_flags([]);
        s
    }
}

impl ConnStore {
    /// Adds flag bits to rows already written (`(row, bits)`, any order).
    pub(crate) fn add_late_flags(&mut self, marks: impl IntoIterator<Item = (u32, u32)>) {
        self.late_flags.extend(marks);
        self.late_flags.sort_unstable_by_key(|m| m.0);
        self.late_flags.shrink_to_fit();
    }

    /// Marks rows as CE-marked data segments (ecn.rs): the IP header's ECN codepoint
    /// is not in the rows and the flag bits are all taken, so they are kept among the
    /// late flags as entries with no bits (which change no row's flags, and which no
    /// other mark makes). A connection without CE marks pays nothing, and the store
    /// (inside every connection's state while the capture is read) keeps its size.
    pub(crate) fn mark_ce_rows(&mut self, rows: impl IntoIterator<Item = u32>) {
        self.add_late_flags(rows.into_iter().map(|r| (r, 0)));
    }

    /// The CE-marked data segments' rows (capture order), ascending.
    pub fn ce_rows(&self) -> impl Iterator<Item = u32> + '_ {
        self.late_flags.iter().filter(|m| m.1 == 0).map(|m| m.0)
    }

    pub fn packet_count(&self) -> usize {
        self.rows as usize
    }

    /// Heap bytes held by this store (for the memory accounting in tests/bench).
    pub fn allocated(&self) -> usize {
        self.packets.allocated() + self.rtt.allocated() + self.sack.as_ref().map_or(0, |s| s.log.allocated() + std::mem::size_of::<SackLog>()) + self.late_flags.capacity() * 8
    }

    /// Calls `f` for every packet row in capture order.
    pub fn for_each_packet(&self, mut f: impl FnMut(&PacketRow)) {
        let mut p = Prev::default();
        let mut rd = self.packets.reader();
        let (mut row_index, mut late) = (0u32, self.late_flags.iter().peekable());
        while rd.at_row_start() {
            let mut extra = 0;
            while let Some(&&(r, bits)) = late.peek().filter(|m| m.0 <= row_index) {
                extra |= if r == row_index { bits } else { 0 };
                late.next();
            }
            row_index += 1;
            let head = rd.u64();
            let d = (head & 1) as usize;
            p.t_ns = p.t_ns.wrapping_add(rd.i64());
            p.frame = (p.frame as i64 + rd.i64()) as u32;
            p.seq[d] = p.seq[d].wrapping_add(rd.i64());
            let len = rd.u64() as u32;
            let wire_len = (len as i64 + rd.i64()) as u32;
            let ack = rd.opt().map(|x| {
                p.ack[d] = p.ack[d].wrapping_add(x);
                p.ack[d]
            });
            let win = rd.opt().map(|x| {
                p.win[d] = p.win[d].wrapping_add(x);
                p.win[d] as u64
            });
            let in_flight = rd.opt().map(|x| {
                p.in_flight[d] = p.in_flight[d].wrapping_add(x);
                p.in_flight[d] as u64
            });
            let row = PacketRow {
                t_ns: p.t_ns,
                dir: d as u8,
                frame: p.frame,
                seq: p.seq[d],
                len,
                wire_len,
                ack,
                win,
                in_flight,
                flags: (head >> 1) as u32 | extra,
            };
            f(&row);
        }
    }

    /// Calls `f(t_ns, dir, rtt_ns, kind)` for every RTT sample.
    pub fn for_each_rtt(&self, mut f: impl FnMut(i64, u8, i64, u8)) {
        let mut t = 0i64;
        let mut rd = self.rtt.reader();
        while rd.at_row_start() {
            let head = rd.u64();
            t = t.wrapping_add(rd.i64());
            let rtt = rd.i64();
            f(t, (head & 1) as u8, rtt, ((head >> 1) & STORED_KIND_BITS) as u8);
        }
    }

    /// Calls `f(t_ns, dir, left, right)` for every SACK block.
    pub fn for_each_sack(&self, mut f: impl FnMut(i64, u8, i64, i64)) {
        let (mut t, mut left) = (0i64, [0i64; 2]);
        let Some(s) = &self.sack else { return };
        let mut rd = s.log.reader();
        while rd.at_row_start() {
            let d = (rd.u64() & 1) as usize;
            t = t.wrapping_add(rd.i64());
            left[d] = left[d].wrapping_add(rd.i64());
            let right = left[d].wrapping_add(rd.i64());
            f(t, d as u8, left[d], right);
        }
    }

    /// The public packet columns. `with_wire_len: false` leaves `wire_len` empty
    /// (stalls and the diagnosis never read it: 4 bytes/packet less at finish).
    pub fn packet_columns(&self, with_wire_len: bool) -> PacketColumns {
        let mut c = PacketColumns::default();
        self.fill_packet_columns(&mut c, with_wire_len);
        c
    }

    /// [`ConnStore::packet_columns`] into `c`, reusing its vectors (whatever they
    /// held is replaced).
    pub fn fill_packet_columns(&self, c: &mut PacketColumns, with_wire_len: bool) {
        let n = self.packet_count();
        // Sized once and filled by index: cheaper than nine `Vec::push`es per row
        // (this runs at finish for every connection, over millions of rows).
        sized(&mut c.t, n);
        sized(&mut c.dir, n);
        sized(&mut c.frame, n);
        sized(&mut c.seq, n);
        sized(&mut c.len, n);
        sized(&mut c.wire_len, if with_wire_len { n } else { 0 });
        sized(&mut c.ack, n);
        sized(&mut c.win, n);
        sized(&mut c.in_flight, n);
        sized(&mut c.flags, n);
        let mut i = 0;
        self.for_each_packet(|r| {
            if i >= n {
                return; // cannot happen (rows counts every pushed row); keeps it panic-free
            }
            c.t[i] = secs(r.t_ns);
            c.dir[i] = r.dir;
            c.frame[i] = r.frame;
            c.seq[i] = r.seq as f64;
            c.len[i] = r.len;
            if with_wire_len {
                c.wire_len[i] = r.wire_len;
            }
            c.ack[i] = r.ack.map_or(f64::NAN, |a| a as f64);
            c.win[i] = r.win.map_or(f64::NAN, |w| w as f64);
            c.in_flight[i] = r.in_flight.map_or(f64::NAN, |f| f as f64);
            c.flags[i] = r.flags;
            i += 1;
        });
    }

    pub fn rtt_columns(&self) -> RttColumns {
        let n = self.rtt_rows as usize;
        let mut c = RttColumns { t: Vec::with_capacity(n), dir: Vec::with_capacity(n), rtt_ms: Vec::with_capacity(n), kind: Vec::with_capacity(n) };
        self.for_each_rtt_ms(&mut |t, dir, rtt_ms, kind| {
            c.t.push(t);
            c.dir.push(dir);
            c.rtt_ms.push(rtt_ms);
            c.kind.push(kind);
        });
        c
    }

    pub fn sack_columns(&self) -> SackColumns {
        let n = self.sack.as_ref().map_or(0, |s| s.rows as usize);
        let mut c = SackColumns { t: Vec::with_capacity(n), dir: Vec::with_capacity(n), left: Vec::with_capacity(n), right: Vec::with_capacity(n) };
        self.for_each_sack(|t, dir, l, r| {
            c.t.push(secs(t));
            c.dir.push(dir);
            c.left.push(l as f64);
            c.right.push(r as f64);
        });
        c
    }

    /// The whole public layout (tests, native tools; the wasm bindings materialize
    /// one column at a time instead).
    pub fn columns(&self) -> ConnectionColumns {
        ConnectionColumns { packets: self.packet_columns(true), sack: self.sack_columns(), rtt: self.rtt_columns() }
    }
}

/// The SACK columns' blocks without building them (the diagnosis at finish).
impl SackSource for ConnStore {
    fn for_each_sack_block(&self, f: &mut dyn FnMut(f64, u8, f64, f64)) {
        self.for_each_sack(|t, dir, left, right| f(secs(t), dir, left as f64, right as f64));
    }
}

/// The RTT columns' values without building them (the diagnosis at finish).
impl RttSource for ConnStore {
    fn for_each_rtt_ms(&self, f: &mut dyn FnMut(f64, u8, f64, u8)) {
        self.for_each_rtt(|t, dir, rtt_ns, kind| f(secs(t), dir, rtt_ns as f64 / 1e6, kind));
    }
}

/// `v` holding `n` zeroed values: a fresh zeroed allocation when it must grow (no
/// copy of the old contents), else cleared and refilled in place.
fn sized<T: Copy + Default>(v: &mut Vec<T>, n: usize) {
    if v.capacity() < n {
        *v = vec![T::default(); n];
    } else {
        v.clear();
        v.resize(n, T::default());
    }
}

/// Seconds since the first packet of the file, as the columns have always held them.
#[inline]
pub fn secs(t_ns: i64) -> f64 {
    t_ns as f64 / 1e9
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
