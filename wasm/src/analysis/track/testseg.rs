//! Test helper: hand-built `TcpSegment`s between host A (10.0.0.1:40000) and
//! host B (10.0.0.2:80). Times are in seconds; windows are raw header values.

use std::net::IpAddr;

use crate::decode::{tcp_flags, TcpOptions, TcpSegment};

pub const A: &str = "10.0.0.1";
pub const B: &str = "10.0.0.2";

pub struct Seg(TcpSegment);

impl Seg {
    fn new(src: &str, sport: u16, dst: &str, dport: u16, t: f64) -> Seg {
        let src: IpAddr = src.parse().unwrap();
        let dst: IpAddr = dst.parse().unwrap();
        Seg(TcpSegment {
            packet_index: 0,
            ts_ns: (t * 1e9).round() as i64,
            wire_len: 66,
            src,
            dst,
            src_port: sport,
            dst_port: dport,
            seq: 0,
            ack: 0,
            flags: tcp_flags::ACK,
            window: 1000,
            ecn: 0,
            payload_len: 0,
            options: TcpOptions::default(),
            tls_alert: None,
            mptcp: None,
            frame_id: Default::default(),
            meta: Default::default(),
        })
    }
    pub fn a_to_b(t: f64) -> Seg {
        Seg::new(A, 40000, B, 80, t)
    }
    pub fn b_to_a(t: f64) -> Seg {
        Seg::new(B, 80, A, 40000, t)
    }
    /// Moves the segment to another connection between the same hosts.
    pub fn ports(mut self, src: u16, dst: u16) -> Seg {
        (self.0.src_port, self.0.dst_port) = (src, dst);
        self
    }
    pub fn seq(mut self, s: u32) -> Seg {
        self.0.seq = s;
        self
    }
    pub fn ack(mut self, a: u32) -> Seg {
        self.0.ack = a;
        self
    }
    /// Replaces all flags (the default is a bare ACK).
    pub fn flags(mut self, f: u8) -> Seg {
        self.0.flags = f;
        self
    }
    pub fn win(mut self, w: u16) -> Seg {
        self.0.window = w;
        self
    }
    pub fn len(mut self, l: u32) -> Seg {
        self.0.payload_len = l;
        self.0.wire_len = 66 + l;
        self
    }
    pub fn wscale(mut self, s: u8) -> Seg {
        self.0.options.window_scale = Some(s);
        self
    }
    pub fn ts(mut self, val: u32, ecr: u32) -> Seg {
        self.0.options.timestamp = Some((val, ecr));
        self
    }
    pub fn sack(mut self, blocks: &[(u32, u32)]) -> Seg {
        for (i, b) in blocks.iter().enumerate().take(4) {
            self.0.options.sack_blocks[i] = *b;
        }
        self.0.options.sack_count = blocks.len().min(4) as u8;
        self
    }
    /// A SACK option the snaplen cut short: present, blocks unknown.
    pub fn sack_cut(mut self) -> Seg {
        self.0.options.sack_unreadable = true;
        self
    }
    pub fn mss(mut self, m: u16) -> Seg {
        self.0.options.mss = Some(m);
        self
    }
    pub fn sack_ok(mut self) -> Seg {
        self.0.options.sack_permitted = true;
        self
    }
    pub fn tfo(mut self) -> Seg {
        self.0.options.tfo = true;
        self
    }
    /// IPv4 Identification (datagram_ids.rs); None (the default) as on IPv6.
    pub fn ip_id(mut self, id: u16) -> Seg {
        self.0.frame_id.ip_id = Some(id);
        self
    }
    pub fn from_b(&self) -> bool {
        self.0.src_port == 80
    }
    pub fn build(self) -> TcpSegment {
        self.0
    }
}

/// Feeds segments (numbering packet_index in order) and returns the analysis.
pub fn run(segs: Vec<Seg>) -> crate::analysis::report::Analysis {
    run_with(segs, crate::analysis::capture::options::AnalysisOptions::default())
}

pub fn run_with(segs: Vec<Seg>, opts: crate::analysis::capture::options::AnalysisOptions) -> crate::analysis::report::Analysis {
    let mut an = crate::analysis::run::analyzer::Analyzer::new(opts);
    let mut t0 = None;
    for (i, s) in segs.into_iter().enumerate() {
        let mut seg = s.build();
        seg.packet_index = i as u64;
        let origin = *t0.get_or_insert(seg.ts_ns);
        an.push(&seg, origin);
    }
    an.finish()
}

/// A complete handshake A→B with ISNs 1000 (A) and 5000 (B), window scale options
/// as given (None = option absent), at t = 0, 0.010, 0.020 (RTT 10 ms).
pub fn handshake(a_ws: Option<u8>, b_ws: Option<u8>) -> Vec<Seg> {
    // Both SYNs announce MSS 1460, as every stack does: without the option a sender
    // must keep to 536-byte segments (RFC 9293 §3.7.1), and a 1000-byte frame would be
    // two segments merged (handshake.rs `send_mss`).
    let mut syn = Seg::a_to_b(0.0).seq(1000).flags(tcp_flags::SYN).win(64240).mss(1460);
    if let Some(s) = a_ws {
        syn = syn.wscale(s);
    }
    let mut synack = Seg::b_to_a(0.010).seq(5000).ack(1001).flags(tcp_flags::SYN | tcp_flags::ACK).win(65160).mss(1460);
    if let Some(s) = b_ws {
        synack = synack.wscale(s);
    }
    let ack = Seg::a_to_b(0.020).seq(1001).ack(5001).win(502);
    vec![syn, synack, ack]
}
