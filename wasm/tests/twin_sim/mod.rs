//! A deterministic two-point recording for the twin tests: a server sends `segments`
//! data segments to a client over a path with known one-way delays, the hosts behave as
//! TCP does (cumulative ACKs with SACK, fast retransmit after three duplicate ACKs, a
//! 200 ms retransmission timer, TCP timestamps, a per-host IPv4 Identification counter),
//! and every datagram is written into the capture next to the host that sends or
//! receives it: `client_side` at the client, `server_side` at the server. What the path
//! and the hosts did (which datagrams were lost where, pauses) is chosen by the test,
//! so every number the merge finds has a known answer.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashSet};

use tcpscope_core::decode::tcp_flags::{ACK, FIN, PSH, SYN};
use tcpscope_core::synth::{write_pcap, Endian, Link, Opts, Segment, TsResolution};

pub const MSS: u32 = 1448;
const MS: i64 = 1_000_000;
const US: i64 = 1_000;
const EPOCH: i64 = 1_700_000_000 * 1_000_000_000;

#[derive(Clone)]
pub struct Config {
    pub segments: u32,
    /// Segments the server keeps in flight at most (its congestion window).
    pub window: u32,
    /// The server's sends leave this far apart, µs (its link's serialisation).
    pub pace_us: i64,
    pub fwd_us: i64,
    pub rev_us: i64,
    /// (from, to, extra) µs: datagrams the server sends in [from, to) take `extra` more.
    pub fwd_extra: Vec<(i64, i64, i64)>,
    /// (from, to) µs: datagrams the server sends in [from, to) are held on the way until
    /// `to` (an outage of the path that keeps them in order).
    pub fwd_outage: Option<(i64, i64)>,
    /// Server datagrams (0-based, in sending order) lost between the two points.
    pub drop_fwd: Vec<u32>,
    /// Client datagrams lost between the two points.
    pub drop_rev: Vec<u32>,
    /// Server datagrams its own capture misses (sent all the same).
    pub unseen_at_server: Vec<u32>,
    /// Server datagrams the client's capture misses (delivered all the same).
    pub unseen_at_client: Vec<u32>,
    /// Server datagrams the path delivers twice (the copy 1 ms later).
    pub copied: Vec<u32>,
    /// (server datagram, µs): held that much longer on the way (overtaken: reordered).
    pub late: Vec<(u32, i64)>,
    /// The server sends no new data in [from, to) µs (its application paused).
    pub sender_pause: Option<(i64, i64)>,
    /// The client sends no ACK in [from, to) µs; the ACK due then leaves at `to`.
    pub ack_hold: Option<(i64, i64)>,
    /// ISNs of the client and the server.
    pub isn: [u32; 2],
    pub client: &'static str,
    pub server: &'static str,
    /// The client as the server side sees it (a NAT between the points).
    pub client_at_server: Option<&'static str>,
    /// First IPv4 Identification of the client and of the server.
    pub ip_id: [u16; 2],
    /// TCP timestamps on (RFC 7323).
    pub timestamps: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            segments: 2000,
            window: 20,
            pace_us: 100,
            fwd_us: 10_000,
            rev_us: 8_000,
            fwd_extra: Vec::new(),
            fwd_outage: None,
            drop_fwd: Vec::new(),
            drop_rev: Vec::new(),
            unseen_at_server: Vec::new(),
            unseen_at_client: Vec::new(),
            copied: Vec::new(),
            late: Vec::new(),
            sender_pause: None,
            ack_hold: None,
            isn: [0x1000_0000, 0x7000_0000],
            client: "10.0.0.1:40000",
            server: "10.0.0.2:443",
            client_at_server: None,
            ip_id: [0x1111, 0x5555],
            timestamps: true,
        }
    }
}

/// The two captures as segments (time order, each capture on the true clock), and what
/// happened: datagrams lost between the points each way `[server→client, client→server]`.
pub struct Twin {
    pub client_side: Vec<Segment>,
    pub server_side: Vec<Segment>,
    pub lost: [u64; 2],
    pub sent: [u64; 2],
}

#[derive(Clone)]
struct Pkt {
    from_server: bool,
    seq: u32,
    ack: u32,
    flags: u8,
    len: u32,
    tsval: u32,
    tsecr: u32,
    sack: Vec<(u32, u32)>,
    ip_id: u16,
    number: u32,
}

enum Ev {
    Arrive(Pkt),
    Timer,
    Wake,
    Held,
}

struct State {
    cfg: Config,
    now: i64,
    heap: BinaryHeap<Reverse<(i64, u64)>>,
    events: Vec<Option<Ev>>,
    twin: Twin,
    // Server.
    una: u32,
    nxt: u32,
    end: u32,
    free_at: i64,
    sacked: HashSet<u32>,
    resent: HashSet<u32>,
    dupacks: u32,
    progress_at: i64,
    fin_sent: bool,
    numbers: [u32; 2],
    ids: [u16; 2],
    ts_recent: [u32; 2],
    // Client.
    rcv_nxt: u32,
    ooo: BTreeMap<u32, u32>,
    request_sent: bool,
    started: bool,
}

impl State {
    fn at(&mut self, t: i64, ev: Ev) {
        self.events.push(Some(ev));
        self.heap.push(Reverse((t, self.events.len() as u64 - 1)));
    }
    fn tsval(&self, server: bool) -> u32 {
        (self.now / MS) as u32 + if server { 900_000 } else { 100 }
    }

    /// Sends a datagram now: captured here, delivered (and captured there) unless lost.
    fn send(&mut self, from_server: bool, seq: u32, ack: u32, flags: u8, len: u32, sack: Vec<(u32, u32)>) {
        let h = usize::from(from_server);
        let number = self.numbers[h];
        self.numbers[h] += 1;
        let ip_id = self.ids[h];
        self.ids[h] = self.ids[h].wrapping_add(1);
        let p = Pkt { from_server, seq, ack, flags, len, tsval: self.tsval(from_server), tsecr: self.ts_recent[h], sack, ip_id, number };
        self.twin.sent[1 - h] += 1;
        if !(from_server && self.cfg.unseen_at_server.contains(&number)) {
            self.capture(&p, from_server, self.now);
        }
        let lost = if from_server { self.cfg.drop_fwd.contains(&number) } else { self.cfg.drop_rev.contains(&number) };
        if lost {
            self.twin.lost[1 - h] += 1;
            return;
        }
        let delay = if from_server {
            let extra: i64 = self.cfg.fwd_extra.iter().filter(|e| self.now >= e.0 * US && self.now < e.1 * US).map(|e| e.2).sum();
            let late: i64 = self.cfg.late.iter().filter(|l| l.0 == number).map(|l| l.1).sum();
            let held = late * US + self.cfg.fwd_outage.filter(|o| self.now >= o.0 * US && self.now < o.1 * US).map_or(0, |o| o.1 * US - self.now);
            (self.cfg.fwd_us + extra) * US + held
        } else {
            self.cfg.rev_us * US
        };
        if from_server && self.cfg.copied.contains(&number) {
            self.at(self.now + delay + MS, Ev::Arrive(p.clone()));
        }
        self.at(self.now + delay, Ev::Arrive(p));
    }

    fn capture(&mut self, p: &Pkt, at_server: bool, t: i64) {
        let client = if at_server { self.cfg.client_at_server.unwrap_or(self.cfg.client) } else { self.cfg.client };
        let (src, dst) = if p.from_server { (self.cfg.server, client) } else { (client, self.cfg.server) };
        let mut s = Segment::new(src, dst);
        s.at_ns(EPOCH + t).seq(p.seq).ack(p.ack).flags(p.flags).payload(p.len).ip_id(p.ip_id).window(65535);
        let mut o = if self.cfg.timestamps { Opts::new().ts(p.tsval, p.tsecr) } else { Opts::new() };
        if p.flags & SYN != 0 {
            o = o.mss(1460).wscale(7).sack_perm();
        }
        if !p.sack.is_empty() {
            o = o.sack(&p.sack[..p.sack.len().min(3)]);
        }
        s.opts(o);
        if at_server { &mut self.twin.server_side } else { &mut self.twin.client_side }.push(s);
    }

    fn paused(&self) -> Option<i64> {
        self.cfg.sender_pause.filter(|p| self.now >= p.0 * US && self.now < p.1 * US).map(|p| p.1 * US)
    }

    fn server_send(&mut self) {
        while self.started && self.nxt.wrapping_sub(self.una) < self.cfg.window * MSS && self.nxt != self.end {
            if let Some(until) = self.paused() {
                self.at(until, Ev::Wake);
                return;
            }
            if self.free_at > self.now {
                self.at(self.free_at, Ev::Wake);
                return;
            }
            let seq = self.nxt;
            self.nxt = seq.wrapping_add(MSS);
            self.free_at = self.now + self.cfg.pace_us * US;
            self.send(true, seq, self.rcv_ack_of_request(), ACK | PSH, MSS, Vec::new());
            self.at(self.now + 200 * MS, Ev::Timer);
        }
        if self.started && self.una == self.end && !self.fin_sent {
            self.fin_sent = true;
            self.send(true, self.end, self.rcv_ack_of_request(), FIN | ACK, 0, Vec::new());
        }
    }
    fn rcv_ack_of_request(&self) -> u32 {
        self.cfg.isn[0].wrapping_add(101)
    }

    fn resend(&mut self, seq: u32) {
        self.resent.insert(seq);
        self.send(true, seq, self.rcv_ack_of_request(), ACK, MSS, Vec::new());
        self.at(self.now + 200 * MS, Ev::Timer);
    }

    fn server_got(&mut self, p: Pkt) {
        self.ts_recent[1] = p.tsval;
        if p.flags & SYN != 0 {
            self.send(true, self.cfg.isn[1], p.seq.wrapping_add(1), SYN | ACK, 0, Vec::new());
            return;
        }
        if p.len > 0 {
            // The request: the answer starts.
            self.started = true;
            self.progress_at = self.now;
        }
        if p.flags & FIN != 0 {
            self.send(true, self.end.wrapping_add(1), p.seq.wrapping_add(1), ACK, 0, Vec::new());
            return;
        }
        if !self.started {
            return;
        }
        for &(l, r) in &p.sack {
            let mut s = l;
            while s != r {
                self.sacked.insert(s);
                s = s.wrapping_add(MSS);
            }
        }
        let ack = if p.ack.wrapping_sub(self.end) as i32 > 0 { self.end } else { p.ack };
        if (ack.wrapping_sub(self.una) as i32) > 0 {
            self.una = ack;
            self.dupacks = 0;
            self.progress_at = self.now;
        } else if !p.sack.is_empty() {
            self.dupacks += 1;
            if self.dupacks >= 3 {
                let high = p.sack.iter().map(|b| b.1).max_by_key(|&r| r.wrapping_sub(self.una)).unwrap_or(self.una);
                let mut s = self.una;
                while (high.wrapping_sub(s) as i32) > 0 {
                    if !self.sacked.contains(&s) && !self.resent.contains(&s) {
                        self.resend(s);
                        break;
                    }
                    s = s.wrapping_add(MSS);
                }
            }
        }
        self.server_send();
    }

    fn timer(&mut self) {
        if self.started && self.una != self.nxt && self.now - self.progress_at >= 200 * MS {
            self.progress_at = self.now;
            self.resend(self.una);
        }
    }

    fn client_ack(&mut self, flags: u8) {
        if let Some((from, to)) = self.cfg.ack_hold {
            if self.now >= from * US && self.now < to * US {
                self.at(to * US, Ev::Held);
                return;
            }
        }
        let sack: Vec<(u32, u32)> = self.ooo.iter().rev().map(|(&l, &r)| (l, r)).collect();
        let seq = self.cfg.isn[0].wrapping_add(101);
        self.send(false, seq, self.rcv_nxt, flags, 0, sack);
    }

    fn client_got(&mut self, p: Pkt) {
        if p.flags & SYN != 0 {
            self.ts_recent[0] = p.tsval;
            self.rcv_nxt = p.seq.wrapping_add(1);
            self.send(false, self.cfg.isn[0].wrapping_add(1), self.rcv_nxt, ACK, 0, Vec::new());
            self.send(false, self.cfg.isn[0].wrapping_add(1), self.rcv_nxt, ACK | PSH, 100, Vec::new());
            self.request_sent = true;
            return;
        }
        if p.seq == self.rcv_nxt {
            self.ts_recent[0] = p.tsval;
        }
        let end = p.seq.wrapping_add(p.len + u32::from(p.flags & FIN != 0));
        if p.seq == self.rcv_nxt {
            self.rcv_nxt = end;
            while let Some((&l, &r)) = self.ooo.iter().next() {
                if (l.wrapping_sub(self.rcv_nxt) as i32) > 0 {
                    break;
                }
                self.ooo.remove(&l);
                if (r.wrapping_sub(self.rcv_nxt) as i32) > 0 {
                    self.rcv_nxt = r;
                }
            }
        } else if (p.seq.wrapping_sub(self.rcv_nxt) as i32) > 0 {
            self.ooo.insert(p.seq, end);
        }
        if p.flags & FIN != 0 && p.seq == self.end_seen() {
            self.client_ack(ACK | FIN);
        } else if p.len > 0 || p.flags & FIN != 0 {
            self.client_ack(ACK);
        }
    }
    fn end_seen(&self) -> u32 {
        self.rcv_nxt.wrapping_sub(1)
    }
}

/// Runs the transfer.
pub fn run(cfg: Config) -> Twin {
    let isn = cfg.isn;
    let end = isn[1].wrapping_add(1).wrapping_add(cfg.segments * MSS);
    let mut s = State {
        ids: cfg.ip_id,
        cfg,
        now: 0,
        heap: BinaryHeap::new(),
        events: Vec::new(),
        twin: Twin { client_side: Vec::new(), server_side: Vec::new(), lost: [0; 2], sent: [0; 2] },
        una: isn[1].wrapping_add(1),
        nxt: isn[1].wrapping_add(1),
        end,
        free_at: 0,
        sacked: HashSet::new(),
        resent: HashSet::new(),
        dupacks: 0,
        progress_at: 0,
        fin_sent: false,
        numbers: [0; 2],
        ts_recent: [0; 2],
        rcv_nxt: 0,
        ooo: BTreeMap::new(),
        request_sent: false,
        started: false,
    };
    s.send(false, isn[0], 0, SYN, 0, Vec::new());
    while let Some(Reverse((t, i))) = s.heap.pop() {
        s.now = t;
        match s.events[i as usize].take() {
            Some(Ev::Arrive(p)) => {
                let at_server = !p.from_server;
                if !(p.from_server && s.cfg.unseen_at_client.contains(&p.number)) {
                    s.capture(&p, at_server, t);
                }
                if at_server { s.server_got(p) } else { s.client_got(p) }
            }
            Some(Ev::Timer) => s.timer(),
            Some(Ev::Wake) => s.server_send(),
            Some(Ev::Held) => s.client_ack(ACK),
            None => {}
        }
    }
    let _ = s.request_sent;
    for list in [&mut s.twin.client_side, &mut s.twin.server_side] {
        list.sort_by_key(|x| x.ts_ns);
    }
    s.twin
}

/// The server side's clock: `offset_ns` ahead at the first packet, gaining `ppm`.
pub fn skew(segs: &mut [Segment], offset_ns: i64, ppm: f64) {
    let t0 = segs.first().map_or(0, |s| s.ts_ns);
    for s in segs {
        s.ts_ns += offset_ns + ((s.ts_ns - t0) as f64 * ppm * 1e-6).round() as i64;
    }
}

/// A nanosecond pcap of the segments.
pub fn pcap(segs: &[Segment]) -> Vec<u8> {
    let frames: Vec<_> = segs.iter().map(Segment::frame).collect();
    write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Nano)
}

/// The server's capture of a TSO/GSO sender: runs of up to `pieces` of its data
/// segments sent at the same instant (contiguous, same TSval, consecutive
/// Identifications) shown as the one large datagram the stack handed the NIC, as a
/// capture on the sending host sees it (Linux `tcp_gso_segment` cuts it on the wire,
/// each piece keeping the TSval and taking the next Identification).
pub fn tso(segs: &mut Vec<Segment>, server_port: u16, pieces: usize) {
    let mut out: Vec<Segment> = Vec::with_capacity(segs.len());
    let (mut open, mut run): (Option<usize>, usize) = (None, 0);
    for s in segs.drain(..) {
        if s.src.port() != server_port || s.payload_len != MSS {
            out.push(s);
            continue;
        }
        let joins = |last: &Segment| {
            last.ts_ns == s.ts_ns
                && last.seq.wrapping_add(last.payload_len) == s.seq
                && last.options.timestamp == s.options.timestamp
                && last.ip_id.wrapping_add((last.payload_len / MSS) as u16) == s.ip_id
        };
        match open {
            Some(k) if run < pieces && joins(&out[k]) => {
                out[k].payload_len += s.payload_len;
                out[k].flags |= s.flags;
                run += 1;
            }
            _ => {
                open = Some(out.len());
                run = 1;
                out.push(s);
            }
        }
    }
    *segs = out;
}
