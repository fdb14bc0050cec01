//! The answering end's own time inside an exchange of messages (issue 39 reviews R and
//! S, class C-SENDER-DELAY-DENIED): "an exchange of messages paced by its source, … so
//! no readier application would shorten it" was said over an SSH server's 3.45 s
//! before its "authentication failed" (stratosphere `ssh-bruteforce` connection 5), an
//! RDP server's 1.0 s before its TLS alert (nDPI `rdp_over_tls`) and a web server's
//! 105 ms before its answer (cisco joy `firefox58` connection 11): time in which the
//! answering end had the whole request and sent nothing.
//!
//! The rule (docs/ANALYSIS.md "diagnosis.savings", *the answering end's waits*): in each
//! application pause of the data direction (`TimeShares::bursts`) in which the peer
//! sent data, the part from the peer's last payload (in the sender's time: the peer's
//! rows one capture → sender → capture round trip late, [`sender_part`]) to the
//! sender's next data is the sender's own, where the sender's ACK — a pure ACK or the answer's own
//! ACK field, before or with that data — covered every byte the peer had sent: it had
//! the whole request, nothing of its own was outstanding (an application pause), and it
//! still sent nothing. That is its application's time to answer (or a person's at it:
//! ctfs `Jupiter.pcap` connection 1, a reverse shell whose listening handler's operator
//! typed each command up to 60 s after the last output), which a readier one takes off
//! the transfer (RFC 9293 §3.10.7: a segment with nothing of ours
//! outstanding hands the turn to us). The same part of the same pauses (or less of it,
//! where the handshake shows a longer round trip to the sender than its ACKs) is
//! already the sender's in the shares (`TimeShares::peer_time` ends at that payload),
//! so the application's saving (savings.rs `own_waits`) counts it once, as the sender's.
//! Only said of the end that accepted the connection (the SYN/ACK's sender): the
//! initiator's time after the other's message is its next request — a person typing,
//! a client's next query — which no readier application removes (review I class I).

use super::*;

/// The answering end's waits ([`answer_waits`]).
pub(super) struct AnswerWaits {
    /// Their sum, sender time, s.
    pub seconds: f64,
    /// The longest: the peer's last payload row, the sender's data row, its own wait (s).
    pub longest: (usize, usize, f64),
    /// The sender's pushes ([`Pushes`]), where at least [`PUSHES_SAID`]: then none of
    /// their waits is in `seconds` or `longest`.
    pub pushes: Option<Pushes>,
}

/// Waits that were the sender's own pace, not answers (issue 39 review V class
/// C-PUSH-AS-ANSWER, nDPI `tls_with_huge_ch`: a server's 100-B record every 1.0–2.8 s,
/// each answered by the client within 20–85 ms, under the 141 ms round trip): the
/// peer's message before the wait came less than a path round trip of its own time
/// after the sender's previous message — a reply to it, which the sender's message had
/// asked for — and the sender's next came more than [`FIRST_ANSWER_RTTS`] round trips
/// of its own time after that reply. Repeated ([`PUSHES_SAID`] times or more) the
/// sender is the one that starts each exchange (a push, a heartbeat, a poll of its own):
/// its wait is its schedule, and "took N s to answer" would read the peer's reply as a
/// request.
pub(super) struct Pushes {
    pub count: usize,
    /// The sender's own waits before its pushes, in all, s.
    pub seconds: f64,
    /// Shortest and longest from one of the sender's pushes to its next, s.
    pub every: (f64, f64),
    /// Shortest and longest reply of the peer, its own time, s (the longest is said: a
    /// clock coarser than its timestamps' digits shows some as 0 s).
    pub replies: (f64, f64),
    /// The first push's row.
    pub first: usize,
}

/// Fewest pushes that make the sender the initiator ([`Pushes`]).
pub const PUSHES_SAID: usize = 3;
/// A push keeps a schedule of its own, well apart from the round trip: each push comes
/// at least this many path round trips and [`PUSH_MIN_INTERVAL_S`] after the sender's
/// previous message (issue 39 review Y W4, community-shares `FTP.pcap` connection 1: a
/// scripted client's next command ~100 µs after each reply, the server's answers 20–40 ms
/// apart on a 5-ms path, are answers, not pushes; hugech's come 0.95–2.4 s apart on 141 ms,
/// 6.7–17 round trips).
pub const PUSH_MIN_INTERVAL_RTTS: f64 = 5.0;
pub const PUSH_MIN_INTERVAL_S: f64 = 0.2;
/// And some regularity: the longest interval at most this many times the shortest
/// (hugech 2.4 s / 0.95 s = 2.6; PetitPotam connection 63 1.4 s / 1.1 s).
pub const PUSH_SPREAD: f64 = 3.0;

/// Share of the active time from which the answering end's waits are said: below it,
/// "no readier application would shorten it" is true to within a tenth.
pub const ANSWER_SHARE_SAID: f64 = 0.1;

/// The handshake's SYN → SYN/ACK over this many times the ACKs' lag (and more than
/// [`PROXY_ACKS_MIN_S`] longer) shows the ACKs sent by a proxy near the capture, not
/// the sender ([`answer_waits`]).
pub const PROXY_ACKS: f64 = 4.0;
pub const PROXY_ACKS_MIN_S: f64 = 0.001;

/// The handshake's part is named where it exceeds the ACKs' by this factor.
const HANDSHAKE_NAMED: f64 = 1.5;

/// The data sender's waits after messages of the peer it had received in full (module
/// comment); None where the sender opened the connection, the handshake is missing, or
/// there is none.
pub(super) fn answer_waits(f: &Facts) -> Option<AnswerWaits> {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    let sender = &f.conn.directions[d as usize].from;
    // A subflow of an MPTCP connection (RFC 8684) carries only part of the exchange:
    // the answer may have gone on another subflow (ntopng `mptcp-v0.pcap` connection 1,
    // 4.4 s "waiting" while the server answered on its sibling). The SYN's option says
    // so; `conn.mptcp` is filled in only after every connection's diagnosis.
    let subflow = [&f.conn.handshake.syn, &f.conn.handshake.syn_ack].iter().any(|o| o.as_ref().is_some_and(|o| o.mptcp));
    if !f.conn.handshake.syn.as_ref().is_some_and(|s| &s.from != sender) || subflow {
        return None;
    }
    // The pause's messages as the shares place them (the ACKs' lag); the wait is then
    // taken less the whole round trip to the sender ([`sender_part`]).
    let (lag, part) = ((f.conn.sender_lag_ms / 1000.0).max(0.0), sender_part(f));
    // ACKs far quicker than the SYN/ACK are a proxy's beside the capture (a VPN app's
    // TCP stack: nDPI/nfstream `webex.pcap`, ACKs in 0.3 ms, SYN/ACKs in 9 ms), no
    // evidence that the sender had anything: nothing is said.
    if part > PROXY_ACKS * lag && part - lag > PROXY_ACKS_MIN_S.max(f.tick) {
        return None;
    }
    let b = &f.sh.bursts;
    let n = p.t.len();
    // Forward cursors: the sender's data row ending each pause, and the peer's highest
    // byte sent up to a row (its prefix, as the pauses come in order).
    let (mut j, mut high_row, mut peer_high) = (0usize, 0usize, f64::NEG_INFINITY);
    // The round trip between the capture point and the peer: the path's less the
    // sender's part (a peer's reply comes that much after the sender's message).
    let peer_part = (f.min_rtt - part).max(0.0);
    // Each wait: the peer's row, the sender's, its own time, and (sender's previous
    // data row, the peer's reply row) where it was a push.
    let mut waits: Vec<(usize, usize, f64, Option<(usize, usize)>)> = Vec::new();
    for (&s, &pause) in b.starts.iter().zip(&b.pause_s) {
        let t0 = s - pause;
        while j < n && !(p.t[j] >= s && crate::analysis::stalls::is_data_segment(p, j, d)) {
            j += 1;
        }
        if j >= n {
            break;
        }
        // The peer's last payload in the pause, in the sender's time.
        let Some(r) = (0..j).rev().take_while(|&i| p.t[i] + lag >= t0).find(|&i| p.dir[i] != d && p.len[i] > 0 && p.t[i] + lag <= s) else { continue };
        // A keep-alive's byte (RFC 1122 §4.2.3.6) is no message to answer; and data
        // after the peer's FIN or reset answers the close, not the message: the peer had
        // nothing more to say, the sender was waiting for a request that never came
        // (zeek `tls13draft16-chrome55` connection 0: the server's 24-byte alert 5 ms
        // after the client's FIN, 69 ms after its Finished).
        const FIN_RST: u32 = (crate::decode::tcp_flags::FIN | crate::decode::tcp_flags::RST) as u32;
        let closed = (r + 1..j).any(|i| p.dir[i] != d && p.flags[i] & FIN_RST != 0 && p.t[i] + lag <= s);
        if closed || p.flags[r] & (crate::analysis::rows::columns::flag_bits::KEEP_ALIVE | FIN_RST) != 0 {
            continue;
        }
        while high_row <= r {
            if p.dir[high_row] != d && p.len[high_row] > 0 {
                peer_high = peer_high.max(p.seq[high_row] + f64::from(p.len[high_row]));
            }
            high_row += 1;
        }
        // The sender had it all: an ACK of its, after that payload and up to its data.
        if !(r + 1..=j).any(|i| p.dir[i] == d && p.ack[i] >= peer_high) {
            continue;
        }
        let own = (s - p.t[r] - part).max(0.0);
        // The peer's message a quick reply to the sender's previous one ([`Pushes`]).
        let q = (0..r).rev().find(|&i| p.dir[i] == d && p.len[i] > 0);
        let reply = q.and_then(|q| (q + 1..=r).find(|&i| p.dir[i] != d && p.len[i] > 0).map(|m| (q, m)));
        let floor = (PUSH_MIN_INTERVAL_RTTS * f.min_rtt).max(PUSH_MIN_INTERVAL_S);
        let quick = |q: usize| {
            f.min_rtt > 0.0 && p.t[r] - p.t[q] - peer_part < f.min_rtt && own > super::first_answer::FIRST_ANSWER_RTTS * f.min_rtt && p.t[j] - p.t[q] >= floor
        };
        let push = reply.filter(|&(q, _)| quick(q));
        waits.push((r, j, own, push));
    }
    let every: Vec<f64> = waits.iter().filter_map(|w| w.3.map(|(q, _)| p.t[w.1] - p.t[q])).collect();
    let steady = every.iter().copied().fold(0.0f64, f64::max) <= PUSH_SPREAD * every.iter().copied().fold(f64::INFINITY, f64::min);
    let pushed = every.len() >= PUSHES_SAID && steady;
    let mut out: Option<AnswerWaits> = None;
    for &(r, j, own, push) in &waits {
        if pushed && push.is_some() {
            continue;
        }
        let w = out.get_or_insert(AnswerWaits { seconds: 0.0, longest: (r, j, own), pushes: None });
        w.seconds += own;
        if own > w.longest.2 {
            w.longest = (r, j, own);
        }
    }
    let out = out.filter(|w| w.seconds > 0.0);
    if !pushed {
        return out;
    }
    // (the sender's push before the reply, the reply, the sender's next push)
    let rows: Vec<(usize, usize, usize)> = waits.iter().filter_map(|w| w.3.map(|(q, m)| (q, m, w.1))).collect();
    let span = |v: &mut dyn Iterator<Item = f64>| v.fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let pushes = Pushes {
        count: rows.len(),
        seconds: waits.iter().filter(|w| w.3.is_some()).map(|w| w.2).sum(),
        every: span(&mut rows.iter().map(|&(q, _, j)| p.t[j] - p.t[q])),
        replies: span(&mut rows.iter().map(|&(q, m, _)| (p.t[m] - p.t[q] - peer_part).max(0.0))),
        first: rows[0].0,
    };
    Some(match out {
        Some(w) => AnswerWaits { pushes: Some(pushes), ..w },
        None => AnswerWaits { seconds: 0.0, longest: (0, 0, 0.0), pushes: Some(pushes) },
    })
}

/// The round trip between the capture point and the data sender, s: the larger of the
/// part its ACKs show (`connection.senderLagMs`, as the shares read the peer's rows) and
/// the handshake's SYN → SYN/ACK (vantage.rs: the part towards the server, which the
/// sender is here). A proxy that terminates TCP near the capture acknowledges data at
/// once but connects to the server only on the SYN (a VirtualBox or VMware NAT, an
/// Android VPN app): every answer then comes a far round trip after the message, which
/// the ACKs never show (suricata-verify `tls-cert-noissuer`: SYN/ACK after 190 ms, ACKs
/// after 0.5 ms, each answer 190 ms after its message — the path's, not the server's).
fn sender_part(f: &Facts) -> f64 {
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1));
    const SYN: u32 = crate::decode::tcp_flags::SYN as u32;
    const ACK: u32 = crate::decode::tcp_flags::ACK as u32;
    let lag = (f.conn.sender_lag_ms / 1000.0).max(0.0);
    let Some(k) = (0..p.t.len()).find(|&i| p.dir[i] == d && p.flags[i] & (SYN | ACK) == SYN | ACK) else { return lag };
    let syn = (0..k).rev().find(|&i| p.dir[i] != d && p.flags[i] & (SYN | ACK) == SYN);
    syn.map_or(lag, |i| lag.max(p.t[k] - p.t[i]))
}

/// "147.32.80.37:902 itself took 3.45 s of the pauses to answer messages of
/// 147.32.80.40:59522 it had received in full and acknowledged (the longest 3.45 s:
/// frame 106 at 0.217 s → frame 117 at 3.664 s): time of its application (or of a
/// person at it), which a readier one would take off of the 3.5 s the transfer took."
/// None where the waits are under [`ANSWER_SHARE_SAID`] of the
/// active time or the longest under the first answer's floor (first_answer.rs: four
/// path RTTs, 10 ms).
pub(super) fn answer_waits_sentence(f: &Facts) -> Option<String> {
    answer_waits_said(f).map(|s| s.0)
}

/// [`answer_waits_sentence`] with what the rules run after the diagnosis say again
/// (report.rs `Said::answer_waits`): the longest wait's frames, and the words from the
/// waits' sum to the close of the longest's parenthesis (app_facts/proxy.rs keeps them).
pub(super) fn answer_waits_said(f: &Facts) -> Option<(String, u32, u32, String)> {
    let w = answer_waits(f)?;
    if !(w.seconds > 0.0) {
        return None;
    }
    let floor = (super::first_answer::FIRST_ANSWER_RTTS * f.min_rtt).max(super::first_answer::FIRST_ANSWER_MIN_S);
    let active = f.sh.active;
    if !(w.seconds >= ANSWER_SHARE_SAID * active && w.longest.2 >= floor.max(f.tick)) {
        return None;
    }
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1) as usize);
    let (sender, peer) = (&f.conn.directions[d].from, &f.conn.directions[1 - d].from);
    let (r, j, longest) = w.longest;
    let (lag, part) = (f.conn.sender_lag_ms / 1000.0, sender_part(f));
    // At a capture away from the sender the frames' times hold its round trip's part.
    // Only a part that changes the number said ("less the 20 µs …" of 265 ms does not),
    // and the handshake named where it, not the ACKs, set the part.
    let less = if format_duration(p.t[j] - p.t[r]) == format_duration(longest) {
        String::new()
    } else if part > HANDSHAKE_NAMED * lag {
        format!(", less the {} its handshake's SYN → SYN/ACK took, the round trip between the capture point and {sender}", format_duration(part))
    } else {
        format!(", less the {} round trip between the capture point and {sender}", format_duration(part))
    };
    // Not "the transfer would have taken about X instead of Y": that sentence is the
    // application saving's (the auditor holds it to `savings[]`), of which these waits
    // are a part.
    let then = format!(" of the {} the transfer took", format_duration(active));
    let words = format!(
        "{} of the pauses to answer messages of {peer} it had received in full and acknowledged (the longest {}: frame {} at {} → \
         frame {} at {}{less}",
        format_duration(w.seconds),
        format_duration(longest),
        p.frame[r],
        format_timestamp(p.t[r]),
        p.frame[j],
        format_timestamp(p.t[j]),
    );
    let sentence = format!("{sender} itself took {words}): time of its application (or of a person at it), which a readier one would take off{then}.");
    Some((sentence, p.frame[r], p.frame[j], words))
}

/// " 208.253.217.142:443 started 6 of the exchanges itself, from frame 299 at 11.530 s
/// on: …" where the sender's waits were pushes ([`Pushes`]), else empty.
pub(super) fn push_sentence(f: &Facts) -> String {
    let Some(x) = answer_waits(f).and_then(|w| w.pushes) else { return String::new() };
    // Said where the waits would be ([`answer_waits_sentence`]): at least
    // [`ANSWER_SHARE_SAID`] of the active time (a telnet server's two 1.3-s login
    // steps in a 20-s session are no schedule worth a sentence).
    if x.seconds < ANSWER_SHARE_SAID * f.sh.active {
        return String::new();
    }
    let (p, d) = (f.rows.packets, f.conn.data_direction.min(1) as usize);
    let (sender, peer) = (&f.conn.directions[d].from, &f.conn.directions[1 - d].from);
    let range = |(a, b): (f64, f64)| if format_duration(a) == format_duration(b) { format_duration(b) } else { format!("{}–{}", format_duration(a), format_duration(b)) };
    format!(
        " {sender} started {} of the exchanges itself, from frame {} at {} on: it sent a message every {} of its own, and {peer} \
         replied to each within {} of receiving it, under the {} round trip (a reply, not a request), so those pauses were \
         {sender}'s own schedule (a push or a heartbeat), not time it took to answer.",
        x.count,
        p.frame[x.first],
        format_timestamp(p.t[x.first]),
        range(x.every),
        format_duration(x.replies.1),
        format_duration(f.min_rtt),
    )
}

/// [`answer_waits_sentence`] after [`push_sentence`], for a paragraph that says both.
pub(super) fn pushes_and_answer_waits(f: &Facts) -> Option<String> {
    let pushes = push_sentence(f);
    match answer_waits_sentence(f) {
        Some(a) if pushes.is_empty() => Some(a),
        Some(a) => Some(format!("{} {a}", pushes.trim_start())),
        None if pushes.is_empty() => None,
        None => Some(pushes.trim_start().to_string()),
    }
}
