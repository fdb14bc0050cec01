//! Link-layer encapsulation and the pcap / pcapng writers of `synth`.

use super::links;
use super::Frame;

/// Link layer to wrap frames in (numbers from the tcpdump.org link-type list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// LINKTYPE_ETHERNET (1).
    Ethernet,
    /// Ethernet with VLAN tags, outermost first, as (TPID, VLAN id), e.g.
    /// `vec![(0x88A8, 100), (0x8100, 5)]` for 802.1ad QinQ.
    EthernetVlan(Vec<(u16, u16)>),
    /// Ethernet with tags, outermost first, each as (its Ethertype, its bytes up to the
    /// next Ethertype), e.g. Cisco MetaData `(0x8909, vec![1, 1, 0, 1, 0, 2])` (SGT 2).
    EthernetTagged(Vec<(u16, Vec<u8>)>),
    /// LINKTYPE_LINUX_SLL (113).
    LinuxSll,
    /// LINKTYPE_LINUX_SLL2 (276).
    LinuxSll2,
    /// Raw IP: 101 (LINKTYPE_RAW), or 12, 14, 228 (IPv4), 229 (IPv6).
    Raw(u32),
    /// LINKTYPE_NULL (0): 4-byte address family in the given byte order; IPv6 uses
    /// `af_inet6` (24, 28 or 30).
    Null { big_endian: bool, af_inet6: u32 },
    /// LINKTYPE_IEEE802_11_RADIOTAP (127): radiotap + QoS data frame (to-DS) + LLC/SNAP;
    /// `ht_control` sets the +HTC/Order bit and adds the 4-byte HT Control field.
    Radiotap { ht_control: bool },
    /// LINKTYPE_IEEE802_11 (105): a QoS data frame (to-DS) + LLC/SNAP, no radio header.
    Ieee80211,
    /// Apple PKTAP (258, or 149 = DLT_USER2 when `user2`) around `inner`; the header
    /// names `Frame::process`.
    Pktap { user2: bool, inner: Box<Link> },
    /// PPI (192) with an 802.11-Common field from `Frame::radio`, around `inner`
    /// (`Ieee80211` or `Ethernet`).
    Ppi { inner: Box<Link> },
    /// LINKTYPE_PPP (9); `acfc` drops the ff 03 address/control bytes, `pfc` sends a
    /// one-byte protocol (RFC 1661 §6.5-6.6).
    Ppp { acfc: bool, pfc: bool },
    /// Cisco HDLC (0x0f 0x00 + Ethertype): LINKTYPE_C_HDLC (104), or in a file marked
    /// LINKTYPE_PPP (9) when `marked_ppp` (a router's serial link captured as PPP).
    CiscoHdlc { marked_ppp: bool },
    /// An MPLS label stack under Ethernet (0x8847) or PPP (0x0281) when `over_ppp`.
    Mpls { over_ppp: bool, labels: Vec<u32> },
    /// Ethernet + PPPoE session; the IPv4 total length is raised by `excess` bytes
    /// and that many padding bytes follow the packet (PPPoE length stays true).
    Pppoe { excess: u16 },
    /// LINKTYPE_NFLOG (239): NFLOG header + TLVs as a Linux kernel logs an outgoing
    /// packet (links::nflog), the TLV headers big-endian when `big_endian`.
    Nflog { big_endian: bool },
    /// Ethernet + an outer IPv4 packet (192.0.2.1 → 192.0.2.2) + the tunnel's headers
    /// around the frame's IP packet (decode/tunnel.rs).
    Tunnel(Tunnel),
    /// Any other link-type number; the frame's bytes are written as they are.
    Other(u32),
}

/// The tunnels `Link::Tunnel` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tunnel {
    /// IP in IPv4: protocol 4 or 41 by the inner version (RFC 2003, RFC 4213).
    IpInIp,
    /// GRE (RFC 2784/2890) with a key and a sequence number, carrying the IP packet.
    Gre,
    /// ERSPAN type II in GRE: an Ethernet frame behind an 8-byte ERSPAN header.
    ErspanII,
    /// VXLAN (RFC 7348), UDP port 4789, an Ethernet frame inside.
    Vxlan,
    /// Geneve (RFC 8926), UDP port 6081, 8 bytes of options, Ethernet inside.
    Geneve,
    /// GTP-U G-PDU (3GPP TS 29.281), UDP port 2152, with a sequence number and one
    /// PDU session container extension header.
    GtpU,
}

impl Link {
    pub fn dlt(&self) -> u32 {
        match self {
            Link::Ethernet | Link::EthernetVlan(_) | Link::EthernetTagged(_) => 1,
            Link::LinuxSll => 113,
            Link::LinuxSll2 => 276,
            Link::Raw(n) | Link::Other(n) => *n,
            Link::Null { .. } => 0,
            Link::Radiotap { .. } => 127,
            Link::Ieee80211 => 105,
            Link::Pktap { user2, .. } => if *user2 { 149 } else { 258 },
            Link::Ppi { .. } => 192,
            Link::Ppp { .. } | Link::Mpls { over_ppp: true, .. } | Link::CiscoHdlc { marked_ppp: true } => 9,
            Link::CiscoHdlc { marked_ppp: false } => 104,
            Link::Mpls { .. } | Link::Pppoe { .. } | Link::Tunnel(_) => 1,
            Link::Nflog { .. } => 239,
        }
    }

    /// The complete frame: link header + `f.net`.
    pub fn encapsulate(&self, f: &Frame) -> Vec<u8> {
        let et = f.ethertype.to_be_bytes();
        let mut b = Vec::with_capacity(f.net.len() + 48);
        match self {
            Link::Ethernet | Link::EthernetVlan(_) | Link::EthernetTagged(_) => {
                b.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1]);
                if let Link::EthernetVlan(tags) = self {
                    for (tpid, vid) in tags {
                        b.extend_from_slice(&tpid.to_be_bytes());
                        b.extend_from_slice(&(vid & 0x0fff).to_be_bytes());
                    }
                }
                if let Link::EthernetTagged(tags) = self {
                    for (ethertype, tag) in tags {
                        b.extend_from_slice(&ethertype.to_be_bytes());
                        b.extend_from_slice(tag);
                    }
                }
                b.extend_from_slice(&et);
            }
            Link::LinuxSll => {
                // packet type 0 (to us), ARPHRD_ETHER, address length 6, address + 2 pad, protocol.
                b.extend_from_slice(&[0, 0, 0, 1, 0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0]);
                b.extend_from_slice(&et);
            }
            Link::LinuxSll2 => {
                b.extend_from_slice(&et);
                b.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0]);
            }
            Link::Raw(_) | Link::Other(_) => {}
            Link::Null { big_endian, af_inet6 } => {
                let af: u32 = match f.ethertype {
                    0x0800 => 2,
                    0x86DD => *af_inet6,
                    _ => 0,
                };
                b.extend_from_slice(&if *big_endian { af.to_be_bytes() } else { af.to_le_bytes() });
            }
            Link::Radiotap { ht_control } => {
                links::radiotap(&mut b, f);
                links::qos_data(&mut b, f, *ht_control);
            }
            Link::Ieee80211 => links::qos_data(&mut b, f, false),
            Link::Nflog { big_endian } => {
                links::nflog(&mut b, f, *big_endian);
                return b;
            }
            Link::Pktap { inner, .. } => {
                links::pktap(&mut b, f, inner.dlt());
                b.extend_from_slice(&inner.encapsulate(f));
                return b;
            }
            Link::Ppi { inner } => {
                links::ppi(&mut b, f, inner.dlt());
                b.extend_from_slice(&inner.encapsulate(f));
                return b;
            }
            Link::Ppp { acfc, pfc } => links::ppp(&mut b, f.ethertype, *acfc, *pfc),
            Link::CiscoHdlc { .. } => {
                b.extend_from_slice(&[0x0f, 0x00]);
                b.extend_from_slice(&et);
            }
            Link::Mpls { over_ppp, labels } => {
                if *over_ppp {
                    links::ppp(&mut b, 0x8847, false, false);
                } else {
                    b.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0x47]);
                }
                links::mpls(&mut b, labels);
            }
            Link::Tunnel(t) => {
                links::tunnel(&mut b, t, f);
                return b;
            }
            Link::Pppoe { excess } => {
                b.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0x64]);
                links::pppoe(&mut b, 2 + f.net.len());
                links::ppp(&mut b, f.ethertype, true, false);
                let mut net = f.net.clone();
                if f.ethertype == 0x0800 && net.len() >= 4 {
                    let claimed = u16::from_be_bytes([net[2], net[3]]) + excess;
                    net[2..4].copy_from_slice(&claimed.to_be_bytes());
                }
                b.extend_from_slice(&net);
                b.resize(b.len() + usize::from(*excess), 0);
                return b;
            }
        }
        b.extend_from_slice(&f.net);
        b
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// pcap timestamp resolution (selects the magic number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsResolution {
    Micro,
    Nano,
}

struct W {
    b: Vec<u8>,
    big: bool,
}
impl W {
    fn u16(&mut self, v: u16) {
        self.b.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    fn u32(&mut self, v: u32) {
        self.b.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    fn i64(&mut self, v: i64) {
        self.b.extend_from_slice(&if self.big { v.to_be_bytes() } else { v.to_le_bytes() });
    }
    fn bytes_padded(&mut self, d: &[u8]) {
        self.b.extend_from_slice(d);
        while !self.b.len().is_multiple_of(4) {
            self.b.push(0);
        }
    }
}

/// The 24-byte pcap file header (snaplen as given).
pub fn write_pcap_header(dlt: u32, endian: Endian, res: TsResolution, snaplen: u32) -> Vec<u8> {
    let mut w = W { b: Vec::new(), big: endian == Endian::Big };
    w.u32(if res == TsResolution::Nano { 0xa1b2_3c4d } else { 0xa1b2_c3d4 });
    w.u16(2);
    w.u16(4);
    w.u32(0);
    w.u32(0);
    w.u32(snaplen);
    w.u32(dlt);
    w.b
}

/// One pcap record: 16-byte header + the captured bytes of `frame` on `link`.
pub fn write_pcap_record(f: &Frame, link: &Link, endian: Endian, res: TsResolution) -> Vec<u8> {
    let full = link.encapsulate(f);
    let cap = f.snaplen.map_or(full.len(), |s| full.len().min(s as usize));
    let mut w = W { b: Vec::with_capacity(16 + cap), big: endian == Endian::Big };
    let (sec, ns) = (f.ts_ns.div_euclid(1_000_000_000), f.ts_ns.rem_euclid(1_000_000_000));
    w.u32(sec as u32);
    w.u32(if res == TsResolution::Nano { ns as u32 } else { (ns / 1000) as u32 });
    w.u32(cap as u32);
    w.u32(full.len() as u32);
    w.b.extend_from_slice(&full[..cap]);
    w.b
}

/// A whole pcap file (snaplen 262144).
pub fn write_pcap(frames: &[Frame], link: &Link, endian: Endian, res: TsResolution) -> Vec<u8> {
    let mut out = write_pcap_header(link.dlt(), endian, res, 262_144);
    for f in frames {
        out.extend_from_slice(&write_pcap_record(f, link, endian, res));
    }
    out
}

/// Which pcapng block carries a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// Enhanced Packet Block (type 6).
    Enhanced,
    /// Simple Packet Block (type 3): interface 0, no timestamp.
    Simple,
    /// Obsolete Packet Block (type 2).
    ObsoletePacket,
}

/// A pcapng interface (IDB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    pub link: Link,
    /// Raw if_tsresol byte: n = 10^-n s; 0x80 | n = 2^-n s. 6 (µs) is the default.
    pub tsresol: u8,
    pub snaplen: u32,
    /// if_tsoffset in seconds (written only when non-zero).
    pub tsoffset: i64,
}

impl Interface {
    pub fn new(link: Link) -> Interface {
        Interface { link, tsresol: 6, snaplen: 262_144, tsoffset: 0 }
    }
    pub fn tsresol(mut self, r: u8) -> Interface {
        self.tsresol = r;
        self
    }
}

/// A pcapng section: its byte order, interfaces and frames (each frame names its
/// interface and block kind). `unknown_blocks` writes an unknown block (type 0x101)
/// before every frame, which readers must skip.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub endian: Endian,
    pub interfaces: Vec<Interface>,
    pub frames: Vec<Frame>,
    pub unknown_blocks: bool,
    /// Darwin Process Information Blocks (type 0x80000001: pid, name option 2), written
    /// after the interfaces; `Frame::dpib` indexes them.
    pub processes: Vec<(u32, String)>,
}

impl Section {
    pub fn new(endian: Endian, interfaces: Vec<Interface>, frames: Vec<Frame>) -> Section {
        Section { endian, interfaces, frames, unknown_blocks: false, processes: Vec::new() }
    }
    pub fn processes(mut self, p: &[(u32, &str)]) -> Section {
        self.processes = p.iter().map(|(pid, n)| (*pid, n.to_string())).collect();
        self
    }
}

fn block(out: &mut Vec<u8>, big: bool, block_type: u32, body: impl FnOnce(&mut W)) {
    let mut w = W { b: Vec::new(), big };
    w.u32(block_type);
    w.u32(0); // patched below
    body(&mut w);
    let len = w.b.len() as u32 + 4;
    w.u32(len);
    let l = if big { len.to_be_bytes() } else { len.to_le_bytes() };
    w.b[4..8].copy_from_slice(&l);
    out.extend_from_slice(&w.b);
}

/// Timestamp in if_tsresol units, split into high and low words.
fn ts_units(ts_ns: i64, iface: &Interface) -> (u32, u32) {
    let units: u128 = if iface.tsresol & 0x80 != 0 { 1u128 << (iface.tsresol & 0x7f) } else { 10u128.pow(u32::from(iface.tsresol)) };
    let ns = (ts_ns - iface.tsoffset * 1_000_000_000).max(0) as u128;
    let t = (ns * units / 1_000_000_000) as u64;
    ((t >> 32) as u32, t as u32)
}

/// A whole pcapng file.
pub fn write_pcapng(sections: &[Section]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in sections {
        let big = s.endian == Endian::Big;
        block(&mut out, big, 0x0A0D_0D0A, |w| {
            w.u32(0x1A2B_3C4D);
            w.u16(1);
            w.u16(0);
            w.i64(-1); // section length unknown
        });
        for i in &s.interfaces {
            block(&mut out, big, 1, |w| {
                w.u16(i.link.dlt() as u16);
                w.u16(0);
                w.u32(i.snaplen);
                w.u16(9); // if_tsresol
                w.u16(1);
                w.bytes_padded(&[i.tsresol]);
                if i.tsoffset != 0 {
                    w.u16(14);
                    w.u16(8);
                    w.i64(i.tsoffset);
                }
                w.u32(0); // opt_endofopt
            });
        }
        for (pid, name) in &s.processes {
            block(&mut out, big, 0x8000_0001, |w| {
                w.u32(*pid);
                w.u16(2); // process name
                w.u16(name.len() as u16);
                w.bytes_padded(name.as_bytes());
                w.u32(0); // opt_endofopt
            });
        }
        for f in &s.frames {
            if s.unknown_blocks {
                block(&mut out, big, 0x0000_0101, |w| w.bytes_padded(b"skip me"));
            }
            let iface = s.interfaces.get(f.interface as usize).expect("synth: frame names a missing interface");
            let full = iface.link.encapsulate(f);
            let cap = f.snaplen.map_or(full.len(), |n| full.len().min(n as usize));
            let (hi, lo) = ts_units(f.ts_ns, iface);
            match f.block {
                BlockKind::Enhanced => block(&mut out, big, 6, |w| {
                    w.u32(f.interface);
                    w.u32(hi);
                    w.u32(lo);
                    w.u32(cap as u32);
                    w.u32(full.len() as u32);
                    w.bytes_padded(&full[..cap]);
                    if let Some(i) = f.dpib {
                        w.u16(0x8001); // Darwin process information block index
                        w.u16(4);
                        w.u32(i);
                        w.u32(0); // opt_endofopt
                    }
                }),
                BlockKind::Simple => block(&mut out, big, 3, |w| {
                    w.u32(full.len() as u32);
                    w.bytes_padded(&full[..cap]);
                }),
                BlockKind::ObsoletePacket => block(&mut out, big, 2, |w| {
                    w.u16(f.interface as u16);
                    w.u16(0);
                    w.u32(hi);
                    w.u32(lo);
                    w.u32(cap as u32);
                    w.u32(full.len() as u32);
                    w.bytes_padded(&full[..cap]);
                }),
            }
        }
    }
    out
}
