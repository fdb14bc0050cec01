//! The answering end's waits behind a split proxy (issue 39 review Z class 4,
//! C-SPLIT-PROXY-RTT, docs/ANALYSIS.md "Split proxy"): where a proxy or NAT near the
//! capture answered the SYN itself (split_proxy.rs), the server's ACKs are the proxy's
//! and every answer still crosses the path beyond it, one far round trip after the
//! request left the proxy. The application saving (savings.rs `own_waits`: each pause's
//! part from the client's message to the server's next data) then counts that round
//! trip as the server's: Anatolij777 `openvpn.pcap` connection 16 (VMware NAT, SYN →
//! SYN/ACK 164 ms, ACKs in 77 µs) read "Had 185.199.109.154:443 had every answer ready at
//! once (its own waits, 736 ms …)", though its ServerHello came 148.5 ms after the
//! ClientHello (frames 798 → 812) and its ticket 142 ms after the Finished (936 → 958):
//! each about one far round trip, which no readier server removes.
//!
//! The rule: with a split proxy detected and the data sent by the end that accepted the
//! connection (the far side: the initiator's own waits are near the capture), each
//! pause in which the peer sent data gives its part from the peer's last payload (the
//! sender's time, as the shares place it: `connection.senderLagMs` later) to the
//! sender's next data; of it, up to one far round trip (the SYN → SYN/ACK, the proxy's
//! own connection out) is the far path's, and only the rest the server's. A pause in
//! which the peer sent nothing is the proxy with nothing yet to relay: the far side's
//! pace — its path's or the server's, which the capture cannot split (openvpn.pcap: the
//! 146 ms between the ticket 958 and the record 976, and the 1–6 ms gaps between the
//! download's segment pairs as the far path delivered them). The application saving
//! keeps only the answer waits' rest; the far part is said as what fewer round trips
//! or a shorter far path would save, never a readier server (no number of "would have
//! taken": the far path's length is not the capture's to change).

use super::*;
use crate::analysis::verdict::split_proxy;

/// The far path's part of the answering end's waits ([`far_leg`]).
pub(super) struct FarLeg {
    /// The far round trip: the handshake's SYN → SYN/ACK at the capture, s.
    pub rtt: f64,
    /// Of the sender's own waits, the far path's part, in all, s.
    pub seconds: f64,
    /// Pauses whose wait held some of it.
    pub waits: usize,
    /// The rest of those waits, beyond one far round trip each: the server's, s.
    pub server: f64,
}

/// The far path's part of the sender's own waits (module comment); None without a split
/// proxy, where the initiator sent the data, or where pauses past those kept went uncounted.
pub(super) fn far_leg(f: &Facts) -> Option<FarLeg> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let sp = split_proxy::detect(f.conn, p, f.rows.rtt)?;
    if sp.initiator == d {
        return None;
    }
    let lag = (f.conn.sender_lag_ms / 1000.0).max(0.0);
    let b = &f.sh.bursts;
    let mut leg = FarLeg { rtt: sp.handshake_s, seconds: 0.0, waits: 0, server: 0.0 };
    // Pauses past those kept: their waits are unknown, nothing is said.
    if b.pauses as usize != b.starts.len() {
        return None;
    }
    // A forward cursor over the rows (the pauses come in order): the peer's last
    // payload so far, in the sender's time.
    let (mut i, mut last) = (0usize, f64::NEG_INFINITY);
    for ((&s, &pause), &spoke) in b.starts.iter().zip(&b.pause_s).zip(&b.peer_spoke) {
        while i < p.t.len() && p.t[i] + lag <= s {
            if p.dir[i] != d && p.len[i] > 0 {
                last = last.max(p.t[i] + lag);
            }
            i += 1;
        }
        // The peer's last payload in the pause.
        if !spoke || !(last >= s - pause) {
            continue;
        }
        let far = (s - last).clamp(0.0, leg.rtt);
        leg.server += (s - last - leg.rtt).max(0.0);
        if far > 0.0 {
            leg.seconds += far;
            leg.waits += 1;
        }
    }
    Some(leg)
}

/// Takes the far path's part ([`far_leg`]) out of the application saving of `f`.
pub(crate) fn cap(f: &mut Facts) {
    let Some(leg) = far_leg(f) else { return };
    for s in f.savings.iter_mut().filter(|s| s.limit == "application") {
        s.seconds = s.seconds.min(leg.server);
    }
    f.savings.retain(|s| s.seconds.is_finite() && s.seconds > 0.0);
    f.savings.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
}

/// " Of 185.199.109.154:443's own waits (736 ms), 318 ms, in 5 waits after
/// 192.168.17.140:49868's messages, were the path beyond the proxy: up to one far round
/// trip (164 ms, the handshake's SYN → SYN/ACK) each, which fewer round trips or a shorter
/// far path would save, not a readier server; the other 418 ms were pauses with no
/// message of 192.168.17.140:49868's pending, in which the proxy had nothing yet to
/// relay: the far side's pace (its path or the server), which this capture cannot
/// split." Empty where nothing of the waits was taken out ([`cap`]).
pub(super) fn sentence(f: &Facts) -> String {
    let Some(leg) = far_leg(f) else { return String::new() };
    let before = crate::analysis::verdict::savings::own_waits(f.sh);
    let gaps = before - leg.server - leg.seconds;
    if !(before - leg.server > 0.0) || format_duration(before) == format_duration(leg.server) {
        return String::new();
    }
    let d = f.conn.data_direction.min(1) as usize;
    let (sender, peer) = (&f.conn.directions[d].from, &f.conn.directions[1 - d].from);
    let far = (leg.seconds > 0.0).then(|| {
        format!(
            "in {} after {peer}'s messages, were the path beyond the proxy: up to one far round trip ({}, the handshake's \
             SYN → SYN/ACK) each, which fewer round trips or a shorter far path would save, not a readier server",
            crate::analysis::format::plural(leg.waits as u64, "wait"),
            format_duration(leg.rtt),
        )
    });
    let silent = (gaps > 0.0 && format_duration(gaps) != format_duration(0.0)).then(|| {
        format!(
            "were pauses with no message of {peer}'s pending, in which the proxy had nothing yet to relay: the far side's pace \
             (its path or the server), which this capture cannot split"
        )
    });
    let all = format_duration(before);
    // "all" only where nothing was left the server's (to the digits said).
    let none_left = format_duration(leg.server) == format_duration(0.0);
    match (far, silent) {
        (Some(a), Some(b)) => format!(" Of {sender}'s own waits ({all}), {}, {a}; the other {} {b}.", format_duration(leg.seconds), format_duration(gaps)),
        (Some(a), None) if none_left => format!(" Of {sender}'s own waits, all {all}, {a}."),
        (None, Some(b)) if none_left => format!(" Of {sender}'s own waits, all {all} {b}."),
        (Some(a), None) => format!(" Of {sender}'s own waits ({all}), {}, {a}.", format_duration(leg.seconds)),
        (None, Some(b)) => format!(" Of {sender}'s own waits ({all}), {} {b}.", format_duration(gaps)),
        (None, None) => String::new(),
    }
}
