//! Test helpers (compiled in tests only): build `ConnectionColumns` by hand, and a tiny
//! ACK-clocked sender/bottleneck simulator for whole flows with known limits.
//! Direction 0 sends data; direction 1 is the receiver that ACKs and advertises rwnd.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::analysis::rows::columns::{flag_bits, ConnectionColumns};
use crate::analysis::{
    ConnectionSummary, DirectionSummary, RttSummary, Stall,
    ThroughputSummary,
};

pub const ACK: u32 = 0x10;
pub const PSH: u32 = 0x08;
pub const MSS: u32 = 1448;

pub struct Cols {
    pub c: ConnectionColumns,
    frame: u32,
    /// Highest sequence sent per direction; cumulative ACK last *received* per direction.
    high: [f64; 2],
    acked: [f64; 2],
}

impl Cols {
    /// A connection whose receiver (dir 1) has ACKed the handshake (ack 1) with `win`.
    pub fn new(win: f64) -> Self {
        let mut s = Cols { c: ConnectionColumns::default(), frame: 0, high: [1.0; 2], acked: [1.0; 2] };
        s.ack(0.0, 1, 1.0, win);
        s
    }

    /// No packets at all from the receiver (a one-sided capture).
    pub fn bare() -> Self {
        Cols { c: ConnectionColumns::default(), frame: 0, high: [1.0; 2], acked: [1.0; 2] }
    }

    #[allow(clippy::too_many_arguments)] // one argument per column
    fn row(&mut self, t: f64, dir: u8, seq: f64, len: u32, ack: f64, win: f64, fl: f64, flags: u32) -> usize {
        let p = &mut self.c.packets;
        self.frame += 1;
        p.t.push(t);
        p.dir.push(dir);
        p.frame.push(self.frame);
        p.seq.push(seq);
        p.len.push(len);
        p.wire_len.push(len + 66);
        p.ack.push(ack);
        p.win.push(win);
        p.in_flight.push(fl);
        p.flags.push(flags);
        p.t.len() - 1
    }

    /// A data segment; in flight and the RETRANSMISSION flag as the analyzer would set them.
    pub fn data(&mut self, t: f64, dir: u8, seq: f64, len: u32) -> usize {
        let d = dir as usize;
        let mut flags = ACK | PSH;
        if seq < self.high[d] {
            flags |= flag_bits::RETRANSMISSION;
        }
        self.high[d] = self.high[d].max(seq + len as f64);
        let fl = self.high[d] - self.acked[d];
        self.row(t, dir, seq, len, 1.0, 1_000_000.0, fl, flags)
    }

    /// A pure ACK from `dir` acknowledging `ack` with window `win`.
    pub fn ack(&mut self, t: f64, dir: u8, ack: f64, win: f64) -> usize {
        let other = 1 - dir as usize;
        self.acked[other] = self.acked[other].max(ack);
        let flags = if win == 0.0 { ACK | flag_bits::ZERO_WINDOW } else { ACK };
        self.row(t, dir, 1.0, 0, ack, win, f64::NAN, flags)
    }

    pub fn flag(&mut self, row: usize, bits: u32) {
        self.c.packets.flags[row] |= bits;
    }

    pub fn rtt(&mut self, t: f64, dir: u8, ms: f64) {
        let r = &mut self.c.rtt;
        r.t.push(t);
        r.dir.push(dir);
        r.rtt_ms.push(ms);
        r.kind.push(0);
    }

    /// `n` back-to-back MSS segments from dir 0 starting at `seq`, `gap` s apart.
    pub fn burst(&mut self, t: f64, seq: f64, n: u32, gap: f64) -> f64 {
        for k in 0..n {
            self.data(t + k as f64 * gap, 0, seq + (k * MSS) as f64, MSS);
        }
        seq + (n * MSS) as f64
    }
}

/// How the peer (dir 1) of [`turn_taking`] answers a response: a pure ACK that long
/// after the response reached it (None: its ACK rides on the request), then its next
/// request that long after the response reached it.
pub type PeerTurn = (Option<f64>, f64);

/// Request/response over a path of round trip `rtt` (s): the peer (dir 1) sends a
/// request of 300 B, dir 0 answers each with one response of `MSS` bytes 0.2 ms after
/// the request reaches it, the peer answers each response as `turns` says; one more
/// response ends the connection. Every packet takes `rtt / 2` from one host to the
/// other; the capture is taken at dir 0 (`at_sender`) or at the peer. Returns the
/// columns (window 64 KiB; the handshake's ACK at 0 s is a pure ACK of the peer).
pub fn turn_taking(rtt: f64, at_sender: bool, turns: &[PeerTurn]) -> Cols {
    const REQ: u32 = 300;
    const SERVER_S: f64 = 0.0002;
    let win = 65536.0;
    // Capture time of a packet that leaves the peer (`from_peer`) or dir 0 at `t`.
    let seen = |t: f64, from_peer: bool| if at_sender == from_peer { t + rtt / 2.0 } else { t };
    let mut c = Cols::new(win);
    let request = |c: &mut Cols, t: f64, k: usize, ack: f64| {
        let r = c.data(seen(t, true), 1, 1.0 + (k as u32 * REQ) as f64, REQ);
        c.c.packets.ack[r] = ack;
        c.c.packets.win[r] = win;
    };
    // The peer's clock: it sends request k at `t`; dir 0 answers at t + rtt/2 + 0.2 ms.
    let mut t = 0.050;
    request(&mut c, t, 0, 1.0);
    for k in 0..=turns.len() {
        let sent = t + rtt / 2.0 + SERVER_S;
        c.data(seen(sent, false), 0, 1.0 + (k as u32 * MSS) as f64, MSS);
        let Some(&(ack_after, request_after)) = turns.get(k) else { break };
        let (arrived, acked) = (sent + rtt / 2.0, 1.0 + ((k as u32 + 1) * MSS) as f64);
        if let Some(a) = ack_after {
            c.ack(seen(arrived + a, true), 1, acked, win);
        }
        t = arrived + request_after;
        request(&mut c, t, k + 1, acked);
    }
    c
}

/// A sender (dir 0) limited by the receiver's window `window`, sending at `nic_bps`
/// into a bottleneck of `link_bps` with base RTT `rtt`; the receiver ACKs every
/// segment (duplicate ACKs for holes) with window `window`. Segments numbered in
/// `lose` are dropped once; three duplicate ACKs trigger a fast retransmission.
pub struct Sim {
    pub window: f64,
    pub rtt: f64,
    pub link_bps: f64,
    pub nic_bps: f64,
    /// The sender's congestion window (bytes), infinite unless set.
    pub cwnd: f64,
    pub lose: BTreeSet<u32>,
}

impl Sim {
    pub fn new(window: f64, rtt: f64, link_bps: f64) -> Self {
        Sim { window, rtt, link_bps, nic_bps: 10e9, cwnd: f64::INFINITY, lose: BTreeSet::new() }
    }

    /// Run from `t0` sending new data until `t_end` (ACKs drain after). Returns
    /// (time of last event, next sequence number).
    pub fn run(&self, c: &mut Cols, t0: f64, seq0: f64, t_end: f64) -> (f64, f64) {
        let mss = MSS as f64;
        let (mut t, mut nxt, mut una, mut link_free) = (t0, seq0, seq0, t0);
        let mut count = 0u32;
        // (arrival at receiver + return path = ACK time at sender, seq, sent at, retransmitted)
        let mut pending: VecDeque<(f64, f64, f64, bool)> = VecDeque::new();
        let mut received: BTreeMap<u64, f64> = BTreeMap::new();
        let (mut rcv_next, mut dupacks, mut recover) = (seq0, 0, f64::NAN);
        loop {
            let can_send = t < t_end && nxt + mss - una <= self.window.min(self.cwnd);
            let next_ack = pending.front().map_or(f64::INFINITY, |p| p.0);
            if !can_send && next_ack.is_infinite() {
                return (t, nxt);
            }
            if !can_send || next_ack <= t {
                let (at, seq, sent, retr) = pending.pop_front().unwrap();
                t = t.max(at);
                received.insert(seq as u64, seq + mss);
                let before = rcv_next;
                while let Some(&end) = received.get(&(rcv_next as u64)) {
                    rcv_next = end;
                }
                let row = c.ack(at, 1, rcv_next, self.window);
                let retransmit;
                if rcv_next == before {
                    c.flag(row, flag_bits::DUPLICATE_ACK);
                    dupacks += 1;
                    // Fast retransmit on the third duplicate ACK (RFC 5681 §3.2).
                    retransmit = dupacks == 3 && recover.is_nan();
                    if retransmit {
                        recover = nxt;
                    }
                } else {
                    dupacks = 0;
                    if !retr {
                        c.rtt(at, 0, (at - sent) * 1e3);
                    }
                    // NewReno partial ACK: resend the next hole at once (RFC 6582 §3.2).
                    retransmit = recover.is_finite() && rcv_next < recover;
                }
                una = una.max(rcv_next);
                if una >= recover {
                    recover = f64::NAN;
                }
                if retransmit {
                    let dep = t.max(link_free) + mss * 8.0 / self.link_bps;
                    link_free = dep;
                    let r = c.data(t, 0, una, MSS);
                    c.flag(r, flag_bits::FAST_RETRANSMISSION);
                    pending.push_back((dep + self.rtt, una, t, true));
                }
                continue;
            }
            c.data(t, 0, nxt, MSS);
            if !self.lose.contains(&count) {
                // (a lost segment is dropped before the bottleneck)
                let dep = t.max(link_free) + mss * 8.0 / self.link_bps;
                link_free = dep;
                pending.push_back((dep + self.rtt, nxt, t, false));
            }
            count += 1;
            nxt += mss;
            t += mss * 8.0 / self.nic_bps;
        }
    }
}

fn direction(stalls: Vec<Stall>, rtt: Option<(f64, f64)>) -> DirectionSummary {
    DirectionSummary {
        missed: Default::default(),
        from: "a".into(),
        to: "b".into(),
        packets: 0,
        payload_bytes: 0,
        bytes: 0,
        window_scale: None,
        window_scale_unknown: false,
        window_scale_lower_bound: None,
        receive_window: None,
        max_bytes_in_flight: None,
        retransmissions: 0,
        rto_events: 0,
        rto_chains: Vec::new(),
        tail_loss_probes: 0,
        fast_retransmissions: 0,
        slow_start_retransmissions: 0,
        pmtu_retransmissions: 0,
        back_to_back_duplicates: 0,
        spurious_retransmissions: 0,
        retransmitted_segments: 0,
        fast_retransmitted_segments: 0,
        slow_start_retransmitted_segments: 0,
        duplicate_acks: 0,
        zero_windows: 0,
        zero_window_probes: 0,
        window_full: 0,
        keep_alives: 0,
        lost_segments: 0,
        unseen_datagrams: None,
        lost_after_capture: 0,
        unseen_resends: 0,
        out_of_order: 0,
        throughput: ThroughputSummary { mean_bps: 0.0, active_mean_bps: 0.0, peak_bps: 0.0, bin_seconds: 0.1 },
        rtt: RttSummary { min_ms: rtt.map(|r| r.0), median_ms: rtt.map(|r| r.1), ..Default::default() },
        sender_lag_ms: 0.0,
        stall_seconds: 0.0,
        stalls,
        ecn: None,
        upstream_queue: None,
    }
}

/// A summary of a connection whose data direction is 0, with `stalls` on it, and RTT
/// (min, median) in ms when given (else `diagnose` reads the RTT columns).
pub fn summary(stalls: Vec<Stall>, rtt_ms: Option<(f64, f64)>) -> ConnectionSummary {
    ConnectionSummary {
        stall_threshold_ms: 10.0,
        clock_tick_ms: None,
        flight_rtt_ms: [None; 2],
        id: 0,
        endpoints: ["a".into(), "b".into()],
        handshake_seen: true,
        any_syn: true,
        capture_loss: Default::default(),
        handshake: crate::analysis::track::handshake::HandshakeOffers::default().report(&["a".into(), "b".into()]),
        packets: 0,
        start: 0.0,
        end: 0.0,
        data_direction: 0,
        vantage: crate::analysis::timing::vantage::Vantage::Sender,
        path_rtt_ms: rtt_ms.map(|r| r.0),
        path_rtt_method: String::new(),
        sender_lag_ms: 0.0,
        base_rtt_ms: None,
        ttl: [None; 2],
        data_view: None,
        directions: Box::new([direction(stalls, rtt_ms), direction(Vec::new(), None)]),
        diagnosis: Box::default(),
        ending: Box::default(),
        process: None,
        process_index: None,
        stall_inputs: None,
        mptcp: None,
        icmp: None,
        two_senders: None,
    }
}
