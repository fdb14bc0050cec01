//! A relay on the capturing host (review X class C-SPLIT-PROXY-RTT, local form; docs/
//! ANALYSIS.md "Relay chains"): a SOCKS proxy, an HTTP CONNECT proxy, a shadowsocks
//! client, any process that takes a message on one connection and passes it on over
//! another. Its answer on the first connection waits for the far one's, so "X itself
//! took 33 ms of the pauses to answer …: time of its application" (answer_waits.rs) is
//! the far leg's time, not the relay's. nDPI `tls_heur__shadowsocks-tcp.pcapng`: the
//! browser's ClientHello reached ss-local :1080 as frame 18 (0.055807 s) and went on to
//! ss-server :1234 as frame 19 (155 µs later, connection 1, opened by the same host);
//! the answer on connection 1, frame 28 (0.088533 s), was passed back as frame 34
//! (199 µs later): the 33 ms were the far leg's.
//!
//! The rule: the answer-waits sentence's longest wait (request row R, answer row J) on
//! connection A is a relay's when another connection B, opened by a host with the
//! answering end's address (it sent B's SYN: a relay connects out; a server answering
//! many clients is the responder on each, never matched), carries that host's first
//! data after R (the relayed request, q) and, after q, B's peer's first data (a) at
//! most [`RELAY_S`] before J. Then the wait was spent on B, and the sentence says so.
//! Not where B is A seen again: the same two port numbers (a NAT between two capture
//! interfaces), or q and a of the same sizes as R and J (the same packets, a port
//! rewritten too); a relay re-frames what it passes on (shadowsocks: 517 → 636 B).
//! Only where the rows are kept (the page's analysis; not the summaries-only mode).

use crate::analysis::format::{format_duration, format_timestamp};
use crate::analysis::report::ConnectionSummary;
use crate::analysis::track::connections::split_endpoint;
use crate::analysis::rows::store::{secs, ConnStore, PacketRow};
use crate::decode::tcp_flags::{ACK, SYN};

/// The relay answered at most this long after the far leg's answer arrived, s.
pub const RELAY_S: f64 = 0.001;

/// The address of an endpoint "1.2.3.4:80" or "[::1]:80".
fn address(endpoint: &str) -> &str {
    split_endpoint(endpoint).0
}

/// The answer-waits sentence's span in the diagnosis text and its longest wait's frames
/// (R, J), from the typed fact the diagnosis left (report.rs `Said::answer_waits`), where
/// the text still holds it.
pub(crate) fn answer_sentence(d: &crate::analysis::report::Diagnosis) -> Option<(usize, usize, u32, u32)> {
    let (sentence, r, j, _) = d.said.answer_waits.as_ref()?;
    let start = d.text.find(sentence.as_str())?;
    Some((start, start + sentence.len(), *r, *j))
}

/// (time s, frame, direction, payload bytes) of `store`'s rows matching `keep`, in capture order.
fn rows(store: &ConnStore, mut keep: impl FnMut(&PacketRow) -> bool) -> Vec<(f64, u32, u8, u32)> {
    let mut out = Vec::new();
    store.for_each_packet(|r| {
        if keep(r) {
            out.push((secs(r.t_ns), r.frame, r.dir, r.len));
        }
    });
    out
}

/// The port numbers of an endpoint pair, in order.
fn ports(endpoints: &[String; 2]) -> [String; 2] {
    let port = |e: &String| split_endpoint(e).1.to_string();
    let mut p = [port(&endpoints[0]), port(&endpoints[1])];
    p.sort();
    p
}

/// The direction of `c` that sent its SYN (not the SYN/ACK), if seen.
fn initiator(store: &ConnStore) -> Option<u8> {
    let mut d = None;
    store.for_each_packet(|r| {
        if d.is_none() && r.flags & u32::from(SYN | ACK) == u32::from(SYN) {
            d = Some(r.dir);
        }
    });
    d
}

/// The relay leg of A's longest answer wait: (B's position, q's and a's (time, frame)).
/// `lens`: the payload bytes of A's request and answer rows.
fn far_leg(conns: &[ConnectionSummary], stores: &[ConnStore], a: usize, (tr, tj): (f64, f64), lens: (u32, u32), host: &str) -> Option<(usize, (f64, u32), (f64, u32))> {
    for (b, cb) in conns.iter().enumerate() {
        // The same two port numbers: the same connection again, its addresses rewritten
        // by a NAT between two capture interfaces (ctfs TheGreatEscape connections 68
        // and 69, each packet seen again 0.3 ms later with the same IP ID), not a relay.
        if b == a || cb.start > tr || cb.end < tr || ports(&cb.endpoints) == ports(&conns[a].endpoints) {
            continue;
        }
        let Some(ib) = initiator(&stores[b]) else { continue };
        if address(&cb.endpoints[ib as usize]) != host {
            continue;
        }
        let data = rows(&stores[b], |r| r.len > 0 && secs(r.t_ns) > tr && secs(r.t_ns) <= tj);
        let Some(&(tq, fq, _, lq)) = data.iter().find(|r| r.2 == ib) else { continue };
        let Some(&(ta, fa, _, la)) = data.iter().find(|r| r.2 != ib && r.0 > tq) else { continue };
        // Both segments the same sizes as A's: the same packets seen again (a NAT that
        // also rewrote a port), not a relay, which re-frames what it passes on.
        if tj - ta <= RELAY_S && (lq, la) != lens {
            return Some((b, (tq, fq), (ta, fa)));
        }
    }
    None
}

/// Rewrites each connection's answer-waits sentence whose longest wait was a relay's
/// (module comment). `stores`: the rows, same order as `conns` (empty: nothing done).
pub fn attach(conns: &mut [ConnectionSummary], stores: &[ConnStore]) {
    if stores.len() != conns.len() {
        return;
    }
    for a in 0..conns.len() {
        let c = &conns[a];
        let d = c.data_direction.min(1) as usize;
        let (sender, peer) = (c.directions[d].from.clone(), c.directions[1 - d].from.clone());
        let Some((start, end, fr, fj)) = answer_sentence(&c.diagnosis) else { continue };
        let own = rows(&stores[a], |r| r.frame == fr || r.frame == fj);
        let (Some(&(tr, _, _, lr)), Some(&(tj, _, _, lj))) = (own.iter().find(|r| r.1 == fr), own.iter().find(|r| r.1 == fj)) else { continue };
        let Some((b, (tq, fq), (ta, fa))) = far_leg(conns, stores, a, (tr, tj), (lr, lj), address(&sender)) else { continue };
        let cb = &conns[b];
        let s = format!(
            "{sender} relayed {peer}'s message: it passed it on over connection {} ({} → {}, frame {fj0} → frame {fq}, {}) and \
             answered {} after that connection's answer arrived (frame {fa} at {} → frame {fj} at {}), so the {} wait was the far \
             leg's (connection {}), not its application's.",
            cb.id,
            cb.endpoints[0],
            cb.endpoints[1],
            format_duration(tq - tr),
            format_duration(tj - ta),
            format_timestamp(ta),
            format_timestamp(tj),
            format_duration(tj - tr),
            cb.id,
            fj0 = fr,
        );
        conns[a].diagnosis.text.replace_range(start..end, &s);
        conns[a].diagnosis.said.answer_waits = None; // said otherwise now
    }
}
