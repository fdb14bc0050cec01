//! Deterministic capture-file writer for tests (no dependencies, no I/O).
//!
//! Script TCP segments, turn them into frames, write a pcap or pcapng file, feed it to
//! the decoder or the analysis, and assert on known answers:
//!
//! ```
//! use tcpscope_core::synth::*;
//! use tcpscope_core::decode::tcp_flags::*;
//! let mut flow = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
//! flow.handshake(0, 2_800, Opts::new().mss(1460).wscale(7).sack_perm().ts(1, 0), Opts::new().mss(1460).wscale(9));
//! flow.data(C2S, 10_000, 1448);                    // seq/ack filled in from the flow
//! flow.push(S2C, 12_800).window(1024);             // a pure ACK of everything so far
//! flow.push(C2S, 300_000).seq(1001).payload(1448); // explicit seq: a retransmission
//! flow.push(C2S, 400_000).flags(FIN | ACK);
//! let bytes = write_pcap(&flow.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
//! # assert!(bytes.len() > 24);
//! ```
//!
//! Times given to `Flow` are microseconds from the capture start; the capture starts at
//! `Flow::EPOCH_NS` (2021-01-01) unless `Flow::start_ns` changes it. Sequence numbers: the
//! client's ISN is 1000 and the server's 5000 (change with `Flow::isn`); a SYN or FIN
//! counts one. Everything panics on misuse (bad address literal, > 40 option bytes):
//! this module is for tests only and never sees untrusted input.

mod file;
mod ip;
mod links;

pub use crate::decode::TcpOptions;
pub use file::{write_pcap, write_pcap_header, write_pcap_record, write_pcapng, BlockKind, Endian, Interface, Link, Section, TsResolution, Tunnel};
pub use links::RadioFields;

use crate::decode::tcp_flags::{ACK, FIN, SYN};
use std::net::SocketAddr;

/// One frame to write: a network-layer packet (from the IP header on, or any payload
/// for a non-IP `ethertype`) plus capture metadata. The link header is added by the writer.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub ts_ns: i64,
    /// Ethertype of `net` (0x0800 IPv4, 0x86DD IPv6, 0x0806 ARP, ...).
    pub ethertype: u16,
    pub net: Vec<u8>,
    /// Cut the written frame (link header included) to this many bytes, as a snaplen
    /// would; the original length stays the full length.
    pub snaplen: Option<u32>,
    /// pcapng only: index of the interface in the `Section`.
    pub interface: u32,
    /// pcapng only: which block carries the frame.
    pub block: BlockKind,
    /// PKTAP links: the process in the header, (pid, command name).
    pub process: Option<(u32, String)>,
    /// pcapng only: the EPB's Darwin process option (index of the section's DPIB).
    pub dpib: Option<u32>,
    /// Radiotap links: the radio fields to write (none: an 8-byte empty header).
    pub radio: Option<RadioFields>,
}

impl Frame {
    pub fn new(ts_ns: i64, ethertype: u16, net: Vec<u8>) -> Frame {
        Frame { ts_ns, ethertype, net, snaplen: None, interface: 0, block: BlockKind::Enhanced, process: None, dpib: None, radio: None }
    }
    /// An ARP request (not IP; the decoder reports `not-ip`).
    pub fn arp(ts_ns: i64) -> Frame {
        let mut b = vec![0, 1, 8, 0, 6, 4, 0, 1];
        b.extend_from_slice(&[0u8; 20]);
        Frame::new(ts_ns, 0x0806, b)
    }
    /// A small IPv4 UDP datagram (the decoder reports `not-tcp`).
    pub fn udp(ts_ns: i64) -> Frame {
        let udp = [0x13, 0x88, 0x00, 0x35, 0x00, 0x08, 0x00, 0x00];
        let mut b = ip::ipv4_header(20 + 8, 17, [192, 0, 2, 1], [192, 0, 2, 2], None);
        b.extend_from_slice(&udp);
        Frame::new(ts_ns, 0x0800, b)
    }
    pub fn snaplen(mut self, n: u32) -> Frame {
        self.snaplen = Some(n);
        self
    }
    pub fn interface(mut self, i: u32) -> Frame {
        self.interface = i;
        self
    }
    pub fn block(mut self, b: BlockKind) -> Frame {
        self.block = b;
        self
    }
    pub fn process(mut self, pid: u32, name: &str) -> Frame {
        self.process = Some((pid, name.into()));
        self
    }
    pub fn dpib(mut self, index: u32) -> Frame {
        self.dpib = Some(index);
        self
    }
    pub fn radio(mut self, r: RadioFields) -> Frame {
        self.radio = Some(r);
        self
    }
}

/// TCP options builder (a thin wrapper so options chain nicely).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opts(pub TcpOptions);

impl Opts {
    pub fn new() -> Opts {
        Opts::default()
    }
    pub fn mss(mut self, v: u16) -> Opts {
        self.0.mss = Some(v);
        self
    }
    pub fn wscale(mut self, v: u8) -> Opts {
        self.0.window_scale = Some(v);
        self
    }
    pub fn sack_perm(mut self) -> Opts {
        self.0.sack_permitted = true;
        self
    }
    pub fn ts(mut self, val: u32, ecr: u32) -> Opts {
        self.0.timestamp = Some((val, ecr));
        self
    }
    /// Up to 4 SACK blocks (3 with timestamps, to fit in 40 bytes).
    pub fn sack(mut self, blocks: &[(u32, u32)]) -> Opts {
        for (i, b) in blocks.iter().take(4).enumerate() {
            self.0.sack_blocks[i] = *b;
        }
        self.0.sack_count = blocks.len().min(4) as u8;
        self
    }
}

/// A TCP segment to write. Setters chain on `&mut`.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    pub ts_ns: i64,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub payload_len: u32,
    pub options: TcpOptions,
    /// Write 0 in the IP length field, as TSO (IPv4) / BIG TCP (IPv6) captures do.
    pub ip_len_zero: bool,
    /// IPv6 extension headers before TCP, by next-header value (0, 43, 44 atomic, 60).
    pub ipv6_ext: Vec<u8>,
    /// IPv4 fragment fields: (offset in 8-byte units, more-fragments flag).
    pub ipv4_fragment: Option<(u16, bool)>,
    /// Frame snaplen (see `Frame::snaplen`).
    pub snaplen: Option<u32>,
    /// IPv4 Identification (1 unless set: a stack that writes one constant value).
    pub ip_id: u16,
    /// IPv4 TTL (64 unless set; IPv6 frames keep hop limit 64).
    pub ttl: u8,
    /// As `TcpSegment::ecn`: bits 0–1 the IP ECN field, bit 2 the TCP AE flag.
    pub ecn: u8,
    /// The payload's first bytes (the rest keeps the deterministic pattern), e.g. a
    /// TLS record header (decode/tls.rs).
    pub payload_start: Vec<u8>,
    /// Option bytes written after the `options` (e.g. MPTCP's kind 30), before the padding.
    pub extra_options: Vec<u8>,
}

/// Parse "a.b.c.d:port" or "[v6]:port"; panics on a bad literal (tests only).
pub fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap_or_else(|_| panic!("synth: bad socket address literal {s:?}"))
}

impl Segment {
    /// A segment with ACK set, window 65535, no payload, at time 0.
    pub fn new(src: &str, dst: &str) -> Segment {
        Segment {
            ts_ns: 0,
            src: addr(src),
            dst: addr(dst),
            seq: 0,
            ack: 0,
            flags: ACK,
            window: 65535,
            payload_len: 0,
            options: TcpOptions::default(),
            ip_len_zero: false,
            ipv6_ext: Vec::new(),
            ipv4_fragment: None,
            snaplen: None,
            ip_id: 1,
            ttl: 64,
            ecn: 0,
            payload_start: Vec::new(),
            extra_options: Vec::new(),
        }
    }
    pub fn at_ns(&mut self, t: i64) -> &mut Self {
        self.ts_ns = t;
        self
    }
    pub fn seq(&mut self, v: u32) -> &mut Self {
        self.seq = v;
        self
    }
    pub fn ack(&mut self, v: u32) -> &mut Self {
        self.ack = v;
        self
    }
    pub fn flags(&mut self, v: u8) -> &mut Self {
        self.flags = v;
        self
    }
    pub fn window(&mut self, v: u16) -> &mut Self {
        self.window = v;
        self
    }
    pub fn payload(&mut self, len: u32) -> &mut Self {
        self.payload_len = len;
        self
    }
    pub fn opts(&mut self, o: Opts) -> &mut Self {
        self.options = o.0;
        self
    }
    pub fn ip_len_zero(&mut self) -> &mut Self {
        self.ip_len_zero = true;
        self
    }
    pub fn ipv6_ext(&mut self, next_headers: &[u8]) -> &mut Self {
        self.ipv6_ext = next_headers.to_vec();
        self
    }
    pub fn fragment(&mut self, offset_units: u16, more: bool) -> &mut Self {
        self.ipv4_fragment = Some((offset_units, more));
        self
    }
    pub fn snaplen(&mut self, n: u32) -> &mut Self {
        self.snaplen = Some(n);
        self
    }
    pub fn ip_id(&mut self, v: u16) -> &mut Self {
        self.ip_id = v;
        self
    }
    pub fn ttl(&mut self, v: u8) -> &mut Self {
        self.ttl = v;
        self
    }
    /// The IP ECN codepoint (0–3, RFC 3168 §5) and the TCP AE flag (RFC 9768).
    pub fn ecn(&mut self, codepoint: u8, ae: bool) -> &mut Self {
        self.ecn = (codepoint & 3) | (u8::from(ae) << 2);
        self
    }
    /// Payload starting with `bytes` (the payload grows to hold them).
    pub fn payload_bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.payload_start = bytes.to_vec();
        self.payload_len = self.payload_len.max(bytes.len() as u32);
        self
    }
    /// Option bytes (whole TLVs) to write after the others.
    pub fn extra_options(&mut self, bytes: &[u8]) -> &mut Self {
        self.extra_options = bytes.to_vec();
        self
    }
    /// Sequence space used: payload + 1 for SYN + 1 for FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload_len + u32::from(self.flags & SYN != 0) + u32::from(self.flags & FIN != 0)
    }
    /// The IP packet (with TCP header, options and zero-filled payload) as a frame.
    pub fn frame(&self) -> Frame {
        let (ethertype, net) = ip::segment_packet(self);
        Frame { snaplen: self.snaplen, ..Frame::new(self.ts_ns, ethertype, net) }
    }
}

/// Direction inside a `Flow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    C2S,
    S2C,
}
pub use Dir::{C2S, S2C};

/// A scripted TCP connection that fills in sequence and acknowledgment numbers.
#[derive(Clone, Debug)]
pub struct Flow {
    client: String,
    server: String,
    start_ns: i64,
    /// Next sequence number of each direction [C2S, S2C].
    next: [u32; 2],
    segments: Vec<Segment>,
    settled: usize,
}

impl Flow {
    /// 2021-01-01T00:00:00Z in ns.
    pub const EPOCH_NS: i64 = 1_609_459_200_000_000_000;

    pub fn new(client: &str, server: &str) -> Flow {
        addr(client);
        addr(server);
        Flow { client: client.into(), server: server.into(), start_ns: Self::EPOCH_NS, next: [1000, 5000], segments: Vec::new(), settled: 0 }
    }
    /// Initial sequence numbers (call before adding segments).
    pub fn isn(&mut self, client: u32, server: u32) -> &mut Self {
        self.next = [client, server];
        self
    }
    pub fn start_ns(&mut self, t: i64) -> &mut Self {
        self.start_ns = t;
        self
    }

    /// Advance the next-sequence trackers over segments added since the last call
    /// (they may have been edited through the returned `&mut Segment`).
    fn settle(&mut self) {
        for s in &self.segments[self.settled..] {
            let d = if s.src == addr(&self.client) { 0 } else { 1 };
            let end = s.seq.wrapping_add(s.seq_len());
            if (end.wrapping_sub(self.next[d]) as i32) > 0 {
                self.next[d] = end;
            }
        }
        self.settled = self.segments.len();
    }

    /// Add a segment at `t_us`: next sequence number of `dir`, ACK of everything the
    /// peer sent, flags ACK, window 65535. Edit it through the returned reference.
    pub fn push(&mut self, dir: Dir, t_us: i64) -> &mut Segment {
        self.settle();
        let (src, dst, d) = match dir {
            C2S => (&self.client, &self.server, 0),
            S2C => (&self.server, &self.client, 1),
        };
        let mut s = Segment::new(src, dst);
        s.ts_ns = self.start_ns + t_us * 1000;
        s.seq = self.next[d];
        s.ack = self.next[1 - d];
        self.segments.push(s);
        self.segments.last_mut().expect("just pushed")
    }

    /// SYN at `t_us`, SYN/ACK at `t_us + rtt_us`, and the client's ACK at the same
    /// instant, as a capture on the client sees it.
    pub fn handshake(&mut self, t_us: i64, rtt_us: i64, client: Opts, server: Opts) -> &mut Self {
        self.push(C2S, t_us).flags(SYN).ack(0).opts(client);
        self.push(S2C, t_us + rtt_us).flags(SYN | ACK).opts(server);
        self.push(C2S, t_us + rtt_us);
        self
    }

    /// A data segment of `len` bytes (flags ACK|PSH) in `dir`.
    pub fn data(&mut self, dir: Dir, t_us: i64, len: u32) -> &mut Segment {
        self.push(dir, t_us).payload(len).flags(ACK | crate::decode::tcp_flags::PSH)
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
    /// The segments, to edit after the flow is scripted (a TTL on one side's packets).
    pub fn segments_mut(&mut self) -> &mut [Segment] {
        self.settle();
        &mut self.segments
    }
    pub fn frames(&self) -> Vec<Frame> {
        self.segments.iter().map(Segment::frame).collect()
    }
}
