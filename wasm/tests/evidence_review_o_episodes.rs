//! Issue 39, "Evidence before every claim", review O and the classes left open after it
//! (notes closing30 "Still open"): what the episodes say of a connection's bursts.
//! Synthetic known answers, then the public captures that showed each class
//! (`TCPSCOPE_CORPUS`; absent, those pass).

use crate::common;
use tcpscope_core::analysis::ConnectionSummary;
use tcpscope_core::synth::*;

fn analyze(f: &Flow) -> ConnectionSummary {
    common::analyze_flow(f)
}

fn episodes(c: &ConnectionSummary) -> Vec<String> {
    c.diagnosis.episodes.iter().map(|e| format!("{}: {}", e.kind, e.text)).collect()
}

/// Segments of the transfer.
const N: u32 = 800;
const MSS: u32 = 1448;

/// Captured at the client on a 100 ms path: the client asks (100 B at 0.1 s) and the
/// server sends N full segments from 0.2 s, 6 ms apart (`clumped`: 16 at a time, 0.1 ms
/// apart, every 96 ms: the same mean rate); the client ACKs every second segment as it
/// arrives. Where `lost`, that segment never reaches the capture and the server re-sends
/// it 3 ms after segment lost + 20 (the client's ACKs stay at the hole until then).
/// Then three turns: the client pauses 3 s, asks 100 B, the server answers 500 B a round
/// trip later.
fn transfer_then_turns(clumped: bool, lost: Option<u32>) -> ConnectionSummary {
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:873");
    f.handshake(0, 100_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    f.data(C2S, 100_000, 100);
    // The server's ISN is 5000: its data starts at 5001.
    let first = 5_001u32;
    let mut have = vec![false; N as usize];
    let mut t = 0;
    for k in 0..N {
        t = if clumped { 200_000 + i64::from(k / 16) * 96_000 + i64::from(k % 16) * 100 } else { 200_000 + i64::from(k) * 6_000 };
        if Some(k) != lost {
            f.data(S2C, t, MSS).seq(first + k * MSS);
            have[k as usize] = true;
        }
        if let Some(l) = lost.filter(|&l| k == l + 20) {
            f.data(S2C, t + 3_000, MSS).seq(first + l * MSS);
            have[l as usize] = true;
        }
        if k % 2 == 1 {
            let next = have.iter().position(|h| !h).map_or(first + N * MSS, |m| first + m as u32 * MSS);
            f.push(C2S, t + 50).ack(next);
        }
    }
    for _ in 0..3 {
        t += 3_000_000;
        f.data(C2S, t, 100).ack(first + N * MSS);
        t += 100_000;
        f.data(S2C, t, 500);
        f.push(C2S, t + 50);
    }
    analyze(&f)
}

#[test]
fn a_long_burst_between_turns_is_a_transfer_the_network_paced() {
    // The transfer: 800 × 1448 B = 1,158,400 B (1.1 MiB) from 0.200 s to 0.200 + 799 ×
    // 6 ms = 4.994 s, 4.794 s: 48 round trips of 100 ms, at 8 × 1,158,400 / 4.794 =
    // 1.93 Mbit/s; every gap is 6 ms, 1448 × 8 / 6 ms = 1.93 Mbit/s (100 % of the burst
    // evenly spaced). The three 3-s pauses after it are the client's: the application
    // share is large, and the server's idle time is its peer's turn. Full-sized segments
    // evenly spaced for seconds are a sender with data queued and something downstream
    // spacing it, the path's bottleneck or its congestion control: the pace of the
    // network, not of the applications. Before: no episode, and "The applications'
    // turns, not the network, set the pace."
    let c = transfer_then_turns(false, None);
    assert_eq!(c.path_rtt_ms, Some(100.0));
    let e: Vec<_> = c.diagnosis.episodes.iter().filter(|e| e.kind == "transfer").collect();
    assert_eq!(e.len(), 1, "{:?}", episodes(&c));
    assert_eq!(
        e[0].text,
        "During 0.200 s–4.994 s one burst moved 1.1 MiB in 4.8 s (48 round trips) at 1.9 Mbit/s: a transfer, not one message; \
         its segments came full-sized and evenly spaced, a median 6 ms apart (1.9 Mbit/s) for 100 % of it: the sender had data \
         waiting, and the path's bottleneck or its congestion control set that pace."
    );
    assert!(!c.diagnosis.text.contains("not the network"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains(&e[0].text), "{}", c.diagnosis.text);
}

#[test]
fn a_loss_inside_a_long_burst_is_said_with_it() {
    // Segment 100 (sent at 0.800 s) never reaches the capture; the server re-sends it at
    // 0.200 + 120 × 6 ms + 3 ms = 0.923 s. One re-send, from the hole (segment 101 at
    // 0.806 s, "previous segment not captured") to it. The episode is the loss's.
    let c = transfer_then_turns(false, Some(100));
    let e: Vec<_> = c.diagnosis.episodes.iter().filter(|e| e.kind == "loss").collect();
    assert_eq!(e.len(), 1, "{:?}", episodes(&c));
    assert!(e[0].text.ends_with("; it re-sent 1 segment during 0.806 s–0.923 s, a loss episode inside the transfer."), "{}", e[0].text);
    assert!(!c.diagnosis.text.contains("not the network"), "{}", c.diagnosis.text);
}

#[test]
fn a_long_burst_without_evidence_of_its_pace_is_left_to_the_shares() {
    // The same bytes in clumps of 16 segments 0.1 ms apart every 96 ms: the median gap is
    // 0.1 ms and the gaps within half of it hold 1.5 ms of each 96 ms, not the most of the
    // burst; what held each clump (a window) is not shown by the spacing: no episode.
    let c = transfer_then_turns(true, None);
    assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "transfer"), "{:?}", episodes(&c));
}

#[test]
fn emerge_the_rsync_file_is_diagnosed_not_called_the_applications() {
    // realjimmy EmergeSync.cap, connection 1 (rsync :873, captured at the client, payload
    // only). tshark: the server's answer to the client's request at 4.61 s (frame 28)
    // runs from 4.794 s to 20.374 s (frame 2350), 3.1 MiB; its segments are 1448 B and a
    // median 5.95 ms apart (frames 712–731 at 10.0 s: 5.4–6.6 ms) = 1.95 Mbit/s, 86 % of
    // the burst's time in gaps within half of that; frames 234–309 hold 17 holes
    // ("previous segment not captured", the first at 6.860 s) and 40 re-sends to 7.695 s
    // (frame 351). After it the client took 4.3–5.9 s for each of its next requests.
    // Before: "The applications' turns, not the network, set the pace", and no word of
    // the 16-s file transfer.
    let Some(c) = common::corpus_connection("realjimmy__sample-captures__wireshark-samples_files_general-unsorted_EmergeSync.cap", 1) else { return };
    let t = &c.diagnosis.text;
    assert!(!t.contains("not the network"), "{t}");
    assert!(t.contains("During 4.794 s–20.374 s one burst moved 3.1 MiB in 16 s (122 round trips) at 1.7 Mbit/s"), "{t}");
    assert!(t.contains("a median 6 ms apart (1.9 Mbit/s) for 86 % of it"), "{t}");
    assert!(t.contains("it re-sent 40 segments during 6.860 s–7.695 s"), "{t}");
}

#[test]
fn a_few_segments_re_sent_by_their_timer_are_no_transfer() {
    // cisco mercury dns_packet.capture2.pcap connection 5: 1 byte re-sent 3 times by the
    // sender's timer over 134 s (an outage, said as one), and connection 126: 5.5 KiB,
    // under 10 full segments, re-sent over 7.9 s. Neither is a transfer of many windows:
    // a first version read "one burst moved 1 B in 134 s (601 round trips) at 0.1 bit/s:
    // a transfer". Both headlines are loss, too: the network's share is the larger, and
    // the headline diagnoses it already.
    let Some(conns) = common::corpus_connections("cisco__mercury__unit_tests_pcaps_dns_packet.capture2.pcap") else { return };
    for c in conns.iter().filter(|c| [5, 126].contains(&c.id)) {
        assert!(c.diagnosis.episodes.iter().all(|e| !e.text.contains("a transfer, not one message")), "{}: {:?}", c.id, episodes(c));
    }
}

/// Captured at the sender (an LDAP client), the SYN's round trip 1 ms: six bursts, 300 ms
/// of application pause apart, each of 3 flights of 4 full segments 1.8 ms apart (the
/// client's link: 1460 B in 1.8 ms). The receiver ACKs the first two segments of each
/// flight at once, 3.8 ms after the second left (1.8 ms of transmission each way and the
/// path: a full-sized segment's round trip), and the last two 3.8 ms after the last; in
/// burst 4 it holds that last ACK `held_us` (its delayed-ACK timer), and where
/// `partial_us` is set its ACK of the first two comes that late too.
fn ldap_flights(held_us: i64, partial_us: i64) -> ConnectionSummary {
    let mut f = Flow::new("10.9.0.1:40000", "10.9.0.2:389");
    f.handshake(0, 1_000, Opts::new().mss(1460), Opts::new().mss(1460));
    let mut t = 10_000;
    let mut next = 1_001u32;
    for burst in 0..6 {
        for _ in 0..3 {
            for k in 0..4 {
                f.data(C2S, t + k * 1_800, 1460);
            }
            let partial = if burst == 3 { partial_us } else { 3_800 };
            f.push(S2C, t + 1_800 + partial).ack(next + 2 * 1460);
            next += 4 * 1460;
            let wait = if burst == 3 { held_us } else { 3_800 };
            f.push(S2C, t + 5_400 + wait).ack(next);
            t += 5_400 + wait + 100;
        }
        t += 300_000;
    }
    analyze(&f)
}

#[test]
fn full_segments_round_trips_are_compared_with_their_own_not_the_syns() {
    // Burst 4's last ACKs held 40 ms: it took 3 × 5.4 + 2 × 40.1 = 96.4 ms against the
    // others' 3 × 5.4 + 2 × 3.9 = 24 ms, at a quarter of their rate: a slow burst. Its
    // prompt ACKs of two segments take 3.8 ms, 3.8× the SYN's 1 ms, but every other burst's
    // do too: the full segments' own smallest round trip is 3.8 ms, and none in burst 4
    // reached twice that (the 40-ms ACKs acknowledge the whole flight: a receiver's
    // timer may hold those, RFC 1122 §4.2.3.2). Against the SYN (before) it read "a
    // burst took 96 ms instead of 24 ms: no retransmissions: the path slowed down".
    let c = ldap_flights(40_000, 3_800);
    assert_eq!(c.path_rtt_ms, Some(1.0));
    assert!(!c.diagnosis.text.contains("the path slowed down"), "{}", c.diagnosis.text);
    // Burst 4's ACKs of two segments as the flight arrives taking 40 ms too: sent before
    // the flight was in, not held for a timer; 40 ms ≥ 2 × 3.8 ms: the path did slow.
    let c = ldap_flights(40_000, 40_000);
    assert!(c.diagnosis.text.contains("no retransmissions: the path slowed down"), "{}", c.diagnosis.text);
}

#[test]
fn ldap_flights_at_the_links_pace_are_no_path_that_slowed() {
    // protos c06-ldapv3-app-r1, captured at the LDAP client: connection 228 (tcp.stream
    // 228). The SYN/ACK comes 0.97 ms after the SYN (frames 3861–3862); the client's
    // 1460-B segments leave 1.82 ms apart; the server ACKs most flights whole 10–100 ms
    // after their last segment (frames 3898, 3913, 3941, 3957, 3985, 4007, 4033) and a
    // pair at once three times: frame 4012 (3.85 ms after frame 4009), 4037 (3.98 ms
    // after 4034), 4040 (3.77 ms after 4036). Those three are the data's own round trip;
    // against the SYN's they read "During 10.621 s–10.773 s a burst took 152 ms instead
    // of 5.5 ms: no retransmissions: the path slowed down", and so on 11 more
    // connections of the capture (889, 955, 1974, 2211, 4137, 4255, 4592, 4693, 4892,
    // 5156, 6126).
    let Some(conns) = common::corpus_connections("realjimmy__sample-captures__wireshark-samples_files_protos-test-suite-traffic_c06-ldapv3-app-r1.pcap") else { return };
    let slowed: Vec<u32> = conns.iter().filter(|c| c.diagnosis.text.contains("the path slowed down")).map(|c| c.id).collect();
    assert_eq!(slowed, Vec::<u32>::new());
}

/// Captured at the data's sender, 10 ms path: the peer asks (100 B at 20 ms), the sender
/// answers with 20 full segments from 30 ms, 0.1 ms apart (the last at 31.9 ms), all
/// ACKed at 41.9 ms. The peer sends 39 B at once (45.9 ms, which the sender only ACKs),
/// then its next request, 110 B, 7 s later (7.0459 s); the sender ACKs it and answers
/// (500 B) 0.9101 s after it, at 7.956 s.
fn a_turn_inside_an_idle_gap() -> ConnectionSummary {
    let mut f = Flow::new("10.9.0.1:443", "10.9.0.2:49213");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(S2C, 20_000, 100);
    for k in 0..20 {
        f.data(C2S, 30_000 + k * 100, 1448);
    }
    f.push(S2C, 41_900);
    f.data(S2C, 45_900, 39);
    f.push(C2S, 55_900);
    f.data(S2C, 7_045_900, 110);
    f.push(C2S, 7_046_000);
    f.data(C2S, 7_956_000, 500);
    f.push(S2C, 7_966_000);
    analyze(&f)
}

#[test]
fn the_peers_turn_inside_an_idle_gap_is_named() {
    // The sender's gap 31.9 ms → 7.956 s: everything acknowledged at 41.9 ms, the peer's
    // last message 7.0459 s, 7.004 s after that ("7 s"), the sender's answer 0.9101 s
    // after it ("910 ms"): the peer's turn, then the sender's. The peer's first message
    // (39 B, 4 ms after the ACK) ended nothing. Before: "new data after all was
    // acknowledged", the whole 7.9 s read as the sender's own silence.
    let c = a_turn_inside_an_idle_gap();
    let d = c.data_direction as usize;
    let s: Vec<_> = c.directions[d].stalls.iter().filter(|s| s.duration > 1.0).collect();
    assert_eq!(s.len(), 1, "{:?}", c.directions[d].stalls);
    assert_eq!(
        s[0].ended_by,
        "new data 910 ms after the peer's next message of 110 bytes at 7.046 s, which came 7 s after all was acknowledged: the peer's turn, then the sender's answer"
    );
}

#[test]
fn asyncrat_the_clients_turn_inside_the_servers_idle_gap_is_named() {
    // corelight zeek-asyncrat-detector 30a385ed…pcap, connection 6 (Google TLS,
    // captured at the client 192.168.100.20). tshark: the server's response ends at
    // frame 407 (13.035941 s), the client ACKs it all (frame 408, 13.037 s) and sends 39 B
    // at once (frame 409, 13.040 s), which the server only ACKs (frame 410); the client's
    // next request, 110 B, is frame 459 at 20.187830 s, ACKed at 20.194 (frame 461), and
    // the server answers at 21.082389 s (frame 465). In the server's time (5.8 ms later
    // than the capture's for the client's packets) the request came 7.2 s after everything
    // was acknowledged and the answer 889 ms after it. Before: one 8.05-s idle stall
    // "new data after all was acknowledged".
    let Some(c) = common::corpus_connection("corelight__zeek-asyncrat-detector__testing_Traces_30a385ed-171e-4f15-ac3f-08c96be7bfd1.pcap", 6) else { return };
    let s = c.directions[1].stalls.iter().find(|s| s.frame_before == 407).expect("the stall after frame 407");
    assert_eq!(s.frame_after, 465);
    assert_eq!(
        s.ended_by,
        "new data 889 ms after the peer's next message of 110 bytes at 20.194 s, which came 7.2 s after all was acknowledged: the peer's turn, then the sender's answer"
    );
}
