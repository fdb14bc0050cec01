//! One box answering the handshakes of several servers (review AH class
//! C-TERMINATING-PROXY-UNNAMED; docs/ANALYSIS.md "Terminating proxy").
//!
//! A transparent proxy, a TLS-inspecting firewall or a VPN app's stack accepts every
//! connection itself and opens its own to the server. Its SYN/ACKs carry the servers'
//! addresses but its own IP stack: one IPv4 Identification counter (RFC 791 §3.2; RFC
//! 6864 §4.1: a simple counter is still what many stacks use, shared by all
//! destinations), and one initial TTL, window and option set. Servers of different
//! networks never share a counter, so SYN/ACKs "from" several /8 networks whose IDs
//! follow one counter came from one box. QuicMitm `goodali.pcap` (review AH row 3): 14
//! SYN/ACKs from Alibaba 47.246.x, Facebook 31.13.80.8 and Akamai 23.58.x / 184.28.x, all
//! TTL 62, window 14600, MSS only, IDs 0xdcd7, 0xdce0, 0xdd1e … 0xde28 read as a
//! little-endian counter, rising in capture time; the page had said "23.58.163.249:443
//! itself took 72 ms … time of its application", the proxy's relay and far leg.
//!
//! The rule: SYN/ACKs with a non-zero IPv4 ID and the same TTL as captured, window and
//! options, in capture order, chained where each ID follows the last by at most
//! [`MAX_STEP`] in one byte order (a counter advances by the packets the box sent in
//! between; random IDs land within the step once in 32); a chain of at least
//! [`MIN_CHAIN`] SYN/ACKs with at least two ID values from addresses in at least two
//! /8 networks is one box. Linux's per-destination IDs, a zero ID (DF, RFC 6864) and
//! IPv6 (no ID) show nothing: no claim. Then each of those connections says so, and
//! the answering server's waits (answer_waits.rs `Said`) are said to include the
//! proxy's relay and its path to the server. Connections past [`MAX_SYN_ACKS`]
//! SYN/ACKs are not looked at (a documented cap: 16 bytes each).

use crate::analysis::report::ConnectionSummary;
use crate::analysis::verdict::relayed_waits::{self, Relayed};
use crate::decode::tcp_flags::{ACK, SYN};
use crate::decode::TcpSegment;
use std::net::IpAddr;

/// The words by which split_proxy.rs's sentence is known.
const SPLIT_PROXY_SAID: &str = "a proxy or NAT near the capture answered for";

/// SYN/ACKs kept per capture (16 bytes each: 1 MiB).
pub const MAX_SYN_ACKS: usize = 65_536;
/// Largest rise of a counter between two SYN/ACKs of one chain.
pub const MAX_STEP: u16 = 2048;
/// SYN/ACKs a chain needs.
pub const MIN_CHAIN: usize = 5;

/// One SYN/ACK's identity (16 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SynAckId {
    pub conn: u32,
    pub frame: u32,
    pub src: u32,
    pub id: u16,
    pub window: u16,
    pub ttl: u8,
}

/// The capture's SYN/ACKs that carried an IPv4 ID, in analysis (capture time) order.
#[derive(Default)]
pub struct SynAckIds(Vec<SynAckId>);

impl SynAckIds {
    /// A segment of connection `conn`.
    pub fn note(&mut self, conn: u32, seg: &TcpSegment) {
        if seg.flags & (SYN | ACK) != SYN | ACK || self.0.len() >= MAX_SYN_ACKS {
            return;
        }
        let (IpAddr::V4(src), Some(id), Some(ttl)) = (seg.src, seg.frame_id.ip_id, seg.frame_id.ip_ttl) else { return };
        if id != 0 {
            let frame = u32::try_from(seg.packet_index + 1).unwrap_or(u32::MAX);
            self.0.push(SynAckId { conn, frame, src: u32::from(src), id, window: seg.window, ttl });
        }
    }
}

/// Runs of consecutive SYN/ACKs (of one fingerprint, in capture order) that one counter
/// numbered: their indices, and whether it counts in little-endian byte order. Only
/// consecutive ones: a chain free to skip entries would find four random IDs within
/// the step among thousands of SYN/ACKs (a reflection flood); a run of four that are not
/// one counter comes once in 32⁴ ≈ 10⁶ starts (a run of four did come by chance among
/// StopDDoS `amp.TCP.reflection.SYNACK.pcap`'s 3,000 Windows reflectors at TTL 122).
fn chains(acks: &[&SynAckId]) -> Vec<(Vec<usize>, bool)> {
    let mut found = Vec::new();
    for swapped in [false, true] {
        let id = |a: &SynAckId| if swapped { a.id.swap_bytes() } else { a.id };
        let mut run: Vec<usize> = Vec::new();
        for i in 0..=acks.len() {
            let follows = i < acks.len() && run.last().is_some_and(|&j| id(acks[i]).wrapping_sub(id(acks[j])) <= MAX_STEP);
            if !follows {
                let values = run.iter().map(|&k| acks[k].id).collect::<std::collections::BTreeSet<_>>().len();
                let networks = run.iter().map(|&k| acks[k].src >> 24).collect::<std::collections::BTreeSet<_>>().len();
                if run.len() >= MIN_CHAIN && values >= 2 && networks >= 2 {
                    found.push((std::mem::take(&mut run), swapped));
                }
                run.clear();
            }
            if i < acks.len() {
                run.push(i);
            }
        }
    }
    found
}

/// The option set of a connection's SYN/ACK, as the report holds it.
fn options(c: &ConnectionSummary) -> Option<(Option<u16>, Option<u8>, bool, bool)> {
    let s = c.handshake.syn_ack.as_ref()?;
    Some((s.mss, s.window_scale, s.sack_permitted, s.timestamps))
}

/// Says, on each connection one box answered for several networks, that a proxy
/// terminated it (module comment).
pub fn attach(conns: &mut [ConnectionSummary], ids: &SynAckIds) {
    let mut groups: std::collections::BTreeMap<_, Vec<&SynAckId>> = Default::default();
    for a in ids.0.iter().filter(|a| (a.conn as usize) < conns.len()) {
        if let Some(o) = options(&conns[a.conn as usize]) {
            groups.entry((a.ttl, a.window, o)).or_default().push(a);
        }
    }
    let mut done = std::collections::BTreeSet::new();
    for acks in groups.values() {
        for (chain, swapped) in chains(acks) {
            let members: Vec<&SynAckId> = chain.iter().map(|&i| acks[i]).collect();
            let mut servers: Vec<u32> = members.iter().map(|a| a.src).collect();
            servers.sort_unstable();
            servers.dedup();
            let (first, last) = (members[0], members[members.len() - 1]);
            let box_words = format!(
                "IPv4 IDs of one counter ({order}: 0x{:04x} at frame {} → 0x{:04x} at frame {}, each within {MAX_STEP} of the last), \
                 TTL {}, window {} and the same options",
                first.id,
                first.frame,
                last.id,
                last.frame,
                first.ttl,
                first.window,
                order = if swapped { "counting in little-endian byte order" } else { "counting up" },
            );
            for a in &members {
                if done.insert(a.conn) {
                    say(&mut conns[a.conn as usize], a, &servers, &box_words);
                }
            }
        }
    }
}

fn say(c: &mut ConnectionSummary, a: &SynAckId, servers: &[u32], box_words: &str) {
    let Some(server) = c.handshake.syn_ack.as_ref().map(|s| s.from.clone()) else { return };
    if c.diagnosis.text.contains(SPLIT_PROXY_SAID) {
        return; // split_proxy.rs said it from the timing already
    }
    let others = servers.iter().filter(|&&s| s != a.src).count();
    c.diagnosis.text += &format!(
        " Its SYN/ACK (frame {}) and those of {} came from one box: {box_words}. A proxy or NAT between the capture \
         and the servers (a hypervisor's NAT, a transparent proxy, a VPN app's own stack) accepted these connections itself: the round trips measured here end at it, and {server}'s \
         waits include the proxy's relay and its path to the server and back, which this capture cannot split.",
        a.frame,
        if others == 1 { "1 other address".to_string() } else { format!("{others} other addresses") },
    );
    // The server's waits were relayed by the proxy (relayed_waits.rs, as for a tunnel).
    relayed_waits::rewrite(c, &Relayed {
        answerer: &server,
        answer_close: "answers through the proxy that accepted this connection (below), so time of the proxy's relay, its path to the server and back and the server's own, not of an application alone.",
        who: &format!("{server} and the proxy in front of it"),
        how: "relayed through the proxy with its path to the server and back",
    });
}


#[cfg(test)]
mod tests {
    use super::*;

    fn ack(src: u32, id: u16) -> SynAckId {
        SynAckId { conn: 0, frame: 0, src, id, window: 14600, ttl: 62 }
    }

    #[test]
    fn one_counter_across_networks_is_one_box() {
        // goodali.pcap's IDs as captured (0xd7dc …: a little-endian counter), from 47/8, 31/8, 23/8.
        let a = [ack(47 << 24, 0xd7dc), ack(31 << 24, 0xe0dc), ack(47 << 24 | 1, 0x1edd), ack(23 << 24, 0x5ddd), ack(23 << 24, 0x5ddd)];
        let refs: Vec<&SynAckId> = a.iter().collect();
        let found = chains(&refs);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0], (vec![0, 1, 2, 3, 4], true));
    }

    #[test]
    fn random_ids_one_network_or_one_value_are_not() {
        // Random IDs (Linux per destination): no chain of 4.
        let r = [ack(47 << 24, 0x1234), ack(31 << 24, 0x9a00), ack(23 << 24, 0x4400), ack(184 << 24, 0xf001)];
        assert!(chains(&r.iter().collect::<Vec<_>>()).is_empty());
        // One counter broken by another box's SYN/ACK between: runs of 2 and 3, no claim.
        let b = [ack(1 << 24, 10), ack(2 << 24, 20), ack(9 << 24, 0x8000), ack(3 << 24, 30), ack(4 << 24, 40), ack(5 << 24, 50)];
        assert!(chains(&b.iter().collect::<Vec<_>>()).is_empty());
        // One counter, one /8: a server with several addresses, not a proxy.
        let s = [ack(10 << 24, 1), ack(10 << 24 | 5, 2), ack(10 << 24 | 9, 3), ack(10 << 24 | 7, 4)];
        assert!(chains(&s.iter().collect::<Vec<_>>()).is_empty());
        // One fixed value: no counter seen.
        let f = [ack(1 << 24, 7), ack(2 << 24, 7), ack(3 << 24, 7), ack(4 << 24, 7)];
        assert!(chains(&f.iter().collect::<Vec<_>>()).is_empty());
    }
}
