//! Headline limits on simulated and hand-built flows (direction 0 sends data).
use super::*;
use crate::analysis::stalls::testkit::{summary, Cols, Sim, MSS};
use crate::analysis::stalls::{default_threshold_s, find_stalls};
use crate::analysis::stalls::cause::Stall;
use crate::analysis::stalls::cause::StallCause;

const M: f64 = MSS as f64;
const KIB: f64 = 1024.0;

/// Stalls at DESIGN.md's default threshold (from the RTT columns), then the diagnosis.
fn diag(c: &Cols) -> (Diagnosis, Vec<Stall>) {
    let min_ms = c.c.rtt.rtt_ms.iter().copied().fold(f64::INFINITY, f64::min);
    let min_ms = if min_ms.is_finite() { Some(min_ms) } else { None };
    let stalls = find_stalls(&c.c.packets, 0, default_threshold_s(min_ms, 0.0));
    let d = diagnose(&with_columns(summary(stalls.clone(), None), c), &c.c, 0.0);
    let s = d.shares;
    let total = s.receive_window + s.loss + s.application + s.stalled + s.other;
    assert!(total == 0.0 || (total - 1.0).abs() < 1e-9, "shares sum to 1: {s:?}");
    (d, stalls)
}

/// What summary.rs fills in from the columns: the path RTT (a sender-side
/// simulation: the data's ACK samples are the whole round trip), the median, and
/// the mean while sending.
fn with_columns(mut s: ConnectionSummary, c: &Cols) -> ConnectionSummary {
    let mut v: Vec<f64> = c.c.rtt.rtt_ms.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    if s.path_rtt_ms.is_none() {
        s.path_rtt_ms = v.first().copied();
        s.directions[0].rtt.median_ms = v.get(v.len() / 2).copied();
        // The simulation's ACKs are prompt (every second segment): each times the path.
        s.directions[0].rtt.path_median_ms = s.directions[0].rtt.median_ms;
        s.directions[0].rtt.path_samples = v.len() as u64;
    }
    let stalls = s.directions[0].stalls.clone();
    s.directions[0].throughput.active_mean_bps = crate::analysis::stalls::active_time::active_mean_bps(&c.c.packets, 0, &stalls, None, 0.0);
    s
}

#[test]
fn wifi_story_receive_window() {
    // DESIGN.md's 802.11ac story: 64 KiB window, 2.8 ms RTT, a 533 Mbit/s link. 45
    // segments (65,160 B) fit the window; the flow is ACK-clocked at ≈ 65,160 B per
    // (2.8 ms + 21.7 µs serialization) = 186 Mbit/s, i.e. ≥ 50 % of the 187 Mbit/s cap
    // → receive-window, not path. Every interval starts at a segment that filled the
    // window, except the initial burst: window-limited ≈ 100 % of the time. (The base
    // RTT given to the simulator leaves room for one segment's serialization, so that
    // the minimum RTT measured is exactly 2.8 ms.)
    let mut c = Cols::new(64.0 * KIB);
    Sim::new(64.0 * KIB, 0.0028 - M * 8.0 / 533e6, 533e6).run(&mut c, 0.1, 1.0, 1.1);
    let (d, stalls) = diag(&c);
    assert!(stalls.is_empty());
    assert_eq!(d.limit, "receive-window");
    assert!(d.shares.receive_window > 0.99, "{:?}", d.shares);
    assert_eq!(
        d.text,
        "The receiver never advertised more than 64 KiB. With a path RTT of 2.8 ms that \
         caps throughput at 187 Mbit/s; the flow averaged 186 Mbit/s while active and was window-limited \
         100 % of the time. Raise the receiver's buffer (its auto-tuning limit or socket buffer) \
         to at least 256 KiB (enough for 749 Mbit/s at this RTT)."
    );
}

#[test]
fn wifi_uplink_touching_the_window_is_path_limited() {
    // The Wi-Fi uplink story: a 3 MiB window, 2 ms base RTT, a 600 Mbit/s radio link.
    // The sender fills the window, the bottleneck queue grows, the RTT grows to
    // ≈ 2 ms + 3 MiB / 600 Mbit/s ≈ 44 ms, and in flight sits at the window most of the
    // time. But 3 MiB / 2 ms = 12.6 Gbit/s ≫ the 600 Mbit/s measured: the window only
    // looked full because of the queue. Path, not receive-window.
    let mut c = Cols::new(3.0 * KIB * KIB);
    Sim::new(3.0 * KIB * KIB, 0.002, 600e6).run(&mut c, 0.1, 1.0, 1.1);
    let (d, _) = diag(&c);
    assert!(d.shares.receive_window > 0.5, "{:?}", d.shares);
    assert_eq!(d.limit, "path", "{}", d.text);
    // 3 MiB × 8 / 2.02 ms (2 ms + serialization) = 12.4 Gbit/s → "12 Gbit/s"; the rate
    // is the link's 600 Mbit/s (minus the start-up), the RTT the queue's ≈ 42 ms.
    assert_eq!(
        d.text,
        "Bytes in flight reached the receiver's 3 MiB window 100 % of the time, but the \
         window was not the limit: at a path RTT of 2 ms it allows 12 Gbit/s, and the \
         flow averaged 624 Mbit/s while active. The median RTT grew to 42 ms (minimum 2 ms): packets \
         queued at the bottleneck. The path (link capacity or congestion) limited this \
         flow; a larger window would only lengthen the queue."
    );
}

#[test]
fn bigger_window_same_rate_is_path_limited() {
    // Same link with a 6 MiB window, where the sender's congestion window (4 MiB here)
    // keeps in flight below the window: never window-limited, no loss, never idle →
    // "other" (cwnd/path) dominates → path.
    let mut c = Cols::new(6.0 * KIB * KIB);
    let mut sim = Sim::new(6.0 * KIB * KIB, 0.002, 600e6);
    sim.cwnd = 4.0 * KIB * KIB;
    sim.run(&mut c, 0.1, 1.0, 1.1);
    let (d, _) = diag(&c);
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(d.shares.other > 0.99, "{:?}", d.shares);
    assert!(d.text.starts_with("Neither the receive window (0 % of the time)"), "{}", d.text);
}

#[test]
fn loss_limited_in_recovery() {
    // 64 KiB window at 2.8 ms, one segment in 15 lost: every loss keeps the sender in
    // recovery (3 duplicate ACKs, fast retransmission, ACK jump past "recover") for about
    // two round trips, and losses come every third of a window, so recovery covers
    // most of the time → loss share is the largest.
    let mut c = Cols::new(64.0 * KIB);
    let mut sim = Sim::new(64.0 * KIB, 0.0028, 533e6);
    sim.lose = (0..400).map(|k| 100 + 15 * k).collect();
    sim.run(&mut c, 0.1, 1.0, 0.3);
    let (d, _) = diag(&c);
    assert_eq!(d.limit, "loss", "{:?} {}", d.shares, d.text);
    assert!(d.shares.loss > 0.5, "{:?}", d.shares);
    assert!(d.text.starts_with("Loss limited this flow: "), "{}", d.text);
}

#[test]
fn a_rate_at_the_mathis_bound_is_loss_though_recovery_was_short() {
    // A sender held at 40 segments (166 Mbit/s at 2.8 ms), one segment in 1,200 lost:
    // each SACK recovery takes two round trips, under 10 % of the time, but the rate sits
    // at the loss-based bound for 0.08 % loss at 2.8 ms (Mathis et al.: ≈ 175 Mbit/s;
    // within 1.5× either way): the window that loss halves was the limit → "loss".
    // (Linux CUBIC at 0.5 % loss, 400 Mbit/s, 4.1 ms, captured at the sender: 9 % in
    // recovery, 60 Mbit/s against a bound of 55, read "path"; its receiver-side twin,
    // 15 % in recovery, "loss".)
    let at = |cwnd: f64, every: u32| {
        let mut c = Cols::new(4096.0 * KIB);
        let mut sim = Sim::new(4096.0 * KIB, 0.0028, 10e9);
        sim.cwnd = cwnd * M;
        sim.lose = (0..40).map(|k| 50 + every * k).collect();
        sim.run(&mut c, 0.1, 1.0, 1.1);
        diag(&c).0
    };
    let d = at(40.0, 1200);
    assert!(d.shares.loss < 0.1, "{:?}", d.shares);
    assert_eq!(d.limit, "loss", "{:?} {}", d.shares, d.text);
    // Far below the bound (10 segments, 41 Mbit/s, against 175): not the loss's doing.
    let d = at(10.0, 1200);
    assert_eq!(d.limit, "path", "{:?} {}", d.shares, d.text);
}

#[test]
fn on_a_path_of_microseconds_the_window_cap_is_not_quoted_as_a_rate() {
    // A 20 µs path (a host's loopback, a LAN switch; 21 µs measured) at 10 Gbit/s under a 4 MiB window:
    // 4 MiB / 20 µs is 1.7 Tbit/s, more than any link carries: the text says the window
    // was far from the limit without that number (WINDOW_CAP_QUOTED_MAX_BPS).
    let mut c = Cols::new(4.0 * KIB * KIB);
    let mut sim = Sim::new(4.0 * KIB * KIB, 0.000_02, 10e9);
    sim.cwnd = 64.0 * KIB;
    sim.run(&mut c, 0.01, 0.1, 0.11);
    let (d, _) = diag(&c);
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(d.text.contains(", far below what the 4 MiB window would allow at a 21 µs round trip (over 100 Gbit/s)."), "{}", d.text);
    assert!(d.evidence.cap_bps.is_some_and(|cap| cap > 1e12), "the evidence keeps the number: {:?}", d.evidence.cap_bps);
}

#[test]
fn loss_holding_down_the_congestion_window() {
    // A sender whose congestion window stays at 10 segments (what 1 % random loss does
    // to it) under a 1 MiB receive window, 2.8 ms RTT, fast link, 1 % of segments lost.
    // Mostly cwnd-limited ("other", 82 %), 18 % in recovery (≥ 10 %), no queue (median
    // RTT = min): the link wasn't full, so not its capacity: the cwnd was held down by
    // loss → "loss", not "path".
    let mut c = Cols::new(1024.0 * KIB);
    let mut sim = Sim::new(1024.0 * KIB, 0.0028, 10e9);
    sim.cwnd = 10.0 * M;
    sim.lose = (0..100).map(|k| 50 + 100 * k).collect();
    sim.run(&mut c, 0.1, 1.0, 1.1);
    let (d, _) = diag(&c);
    assert!(d.shares.other > 0.5, "{:?}", d.shares);
    assert_eq!(d.limit, "loss", "{:?} {}", d.shares, d.text);
    assert_eq!(
        d.text,
        "Loss limited this flow: 1.0 % of the bytes sent were retransmissions (32 of 3282 data segments), and \
         the sender spent 18 % of the time recovering from loss; the flow averaged 38 \
         Mbit/s while active, far below the 3 Gbit/s its 1 MiB window allows, with the median RTT (2.8 ms) \
         within 4 ms of its 2.8 ms minimum (no standing queue at the bottleneck). A loss-based sender (CUBIC, \
         Reno) cuts its congestion window at every loss; BBR suffers less, and with it the \
         link itself may have been the limit."
    );
    // Seen from a receiver that timed the sender's side of the round trip only once (no
    // TCP timestamps: rtt.followedSamples 0), "no standing queue" is not known: the
    // text says what the capture point can see instead.
    let min_ms = c.c.rtt.rtt_ms.iter().copied().fold(f64::INFINITY, f64::min);
    let mut rx = with_columns(summary(find_stalls(&c.c.packets, 0, default_threshold_s(Some(min_ms), 0.0)), None), &c);
    let rtt = &mut rx.directions[0].rtt;
    (rtt.offset_follows, rtt.followed_samples, rtt.samples, rtt.offset_ms) = (true, 0, 100, 2.8);
    let d = diagnose(&rx, &c.c, 0.0);
    assert_eq!(d.limit, "loss", "{}", d.text);
    assert!(
        d.text.contains(
            "with the median RTT (2.8 ms) near its 2.8 ms minimum as far as this capture point can see (the sender's side of \
             the round trip is known only by its minimum). A loss-based sender"
        ),
        "{}",
        d.text
    );
    // Without the loss the same cwnd-limited flow is path/cwnd-limited.
    let mut c = Cols::new(1024.0 * KIB);
    sim.lose.clear();
    sim.run(&mut c, 0.1, 1.0, 1.1);
    assert_eq!(diag(&c).0.limit, "path");
}

#[test]
fn application_pauses_between_writes() {
    // Every 50 ms the application writes 3 segments, ACKed after 2.8 ms: 20 writes in
    // ~1 s, 19 application-idle stalls of ≈ 50 ms (threshold 11.2 ms). Stalled time is
    // all application idle → application.
    let mut c = Cols::new(64.0 * KIB);
    let mut seq = 1.0;
    for k in 0..20 {
        let t = 0.1 + 0.05 * k as f64;
        seq = c.burst(t, seq, 3, 0.00002);
        c.ack(t + 0.0028, 1, seq, 64.0 * KIB);
        c.rtt(t + 0.0028, 0, 2.8);
    }
    let (d, stalls) = diag(&c);
    assert_eq!(stalls.len(), 19);
    assert!(stalls.iter().all(|s| s.cause == StallCause::ApplicationIdle));
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.contains("idle gaps totalling 949 ms"), "{}", d.text);
}

#[test]
fn application_short_pauses_below_threshold() {
    // Writes every 8 ms (< the 11.2 ms threshold: no stalls), each ACKed 2.8 ms after
    // it was sent: nothing in flight for the other 5.2 ms of each 8 → 65 % application;
    // the 2.8 ms the data was on its way are the path's (issue 39: "application" only
    // when the sender had nothing outstanding).
    let mut c = Cols::new(64.0 * KIB);
    let mut seq = 1.0;
    for k in 0..100 {
        let t = 0.1 + 0.008 * k as f64;
        seq = c.burst(t, seq, 2, 0.00002);
        c.ack(t + 0.0028, 1, seq, 64.0 * KIB);
        c.rtt(t + 0.0028, 0, 2.8);
    }
    let (d, stalls) = diag(&c);
    assert!(stalls.is_empty());
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!((d.shares.application - 0.65).abs() < 0.005, "{:?}", d.shares);
}

#[test]
fn zero_window_receiver() {
    // 5 rounds: 45 segments fill the 64 KiB window, the receiver ACKs them with window
    // 0 and reopens 200 ms later: 5 zero-window stalls of ≈ 200 ms ≈ 99 % of the time.
    let mut c = Cols::new(64.0 * KIB);
    let mut seq = 1.0;
    for k in 0..5 {
        let t = 0.1 + 0.21 * k as f64;
        seq = c.burst(t, seq, 45, 0.00002);
        c.ack(t + 0.003, 1, seq, 0.0);
        c.rtt(t + 0.003, 0, 2.8);
        c.ack(t + 0.203, 1, seq, 64.0 * KIB);
    }
    let (d, stalls) = diag(&c);
    assert_eq!(stalls.len(), 4);
    assert!(stalls.iter().all(|s| s.cause == StallCause::ZeroWindow));
    assert_eq!(d.limit, "zero-window", "{}", d.text);
    // 4 stalls × (210 ms − 0.88 ms of burst) = 836 ms of the 0.841 s active time.
    assert_eq!(
        d.text,
        "The receiver's window fell to zero: the sender was stalled for 836 ms (99 % of the \
         transfer) until the receiving application read its data and the window reopened. \
         The receiving application (or its buffer) is too slow; the flow averaged 3.1 Mbit/s while active."
    );
}

#[test]
fn mixed_stalls() {
    // The Thunderbolt story: fast bursts, then seconds of nothing. Three stalls:
    // RTO (0.5 s), window-limited (0.4 s), ack-wait (0.3 s). Each stall's time goes to
    // its cause's share (DESIGN.md): the RTO and the recovery around it make loss the
    // largest share → "loss", and the text lists the other stalls.
    let mut c = Cols::new(10.0 * M);
    let mut seq = c.burst(0.1, 1.0, 10, 0.00001); // fills the 10-MSS window
    c.ack(0.1003, 1, seq - 5.0 * M, 10.0 * M); // the last 5 lost
    c.rtt(0.1003, 0, 0.2);
    c.data(0.6, 0, seq - 5.0 * M, MSS); // RTO
    c.ack(0.6003, 1, seq, 10.0 * M);
    seq = c.burst(0.6004, seq, 10, 0.00001); // fills the window again
    c.ack(1.0, 1, seq, 10.0 * M); // the receiver answers late
    seq = c.burst(1.0001, seq, 3, 0.00001);
    c.ack(1.3, 1, seq - M, 10.0 * M); // late partial ACK
    c.burst(1.3001, seq, 7, 0.00001);
    let (d, stalls) = diag(&c);
    let causes: Vec<_> = stalls.iter().map(|s| s.cause).collect();
    use crate::analysis::stalls::cause::StallCause::*;
    assert_eq!(causes, vec![RetransmissionTimeout, WindowLimited, AckWait]);
    assert_eq!(d.limit, "loss", "{}", d.text);
    assert!(d.text.contains("500 ms of it waiting on retransmission timeouts"), "{}", d.text);
    assert!(d.text.contains("Other stalls: 400 ms window-limited, 300 ms waiting on ACKs."), "{}", d.text);
    let s = d.shares;
    assert!((s.receive_window + s.loss + s.application + s.stalled + s.other - 1.0).abs() < 1e-9);
}

#[test]
fn too_short() {
    // 5 segments: fewer than the 10 of an initial window → too short to judge.
    let mut c = Cols::new(64.0 * KIB);
    let seq = c.burst(0.1, 1.0, 5, 0.0001);
    c.ack(0.103, 1, seq, 64.0 * KIB);
    c.rtt(0.103, 0, 2.8);
    let (d, _) = diag(&c);
    assert_eq!(d.limit, "too-short");
    assert_eq!(
        d.text,
        "Too short to judge: 5 data segments (7.1 KiB) in 400 µs with a path RTT of \
         2.8 ms. A flow needs at least 10 data segments over 4 round trips to leave slow \
         start before any limit shows."
    );
    // 40 segments, but in 2 round trips (5.6 ms < 4 × 2.8 ms): still too short.
    let mut c = Cols::new(64.0 * KIB);
    let seq = c.burst(0.1, 1.0, 20, 0.00001);
    c.ack(0.1028, 1, seq, 64.0 * KIB);
    c.rtt(0.1028, 0, 2.8);
    c.burst(0.1029, seq, 20, 0.00001);
    assert_eq!(diag(&c).0.limit, "too-short");
}

#[test]
fn short_flow_dominated_by_rto_backoff_is_loss() {
    // Like chrissanders' tcp_retransmissions capture: one segment, never ACKed, resent
    // after 0.2, 0.4, 0.8, 1.6 s (exponential backoff, RFC 6298 §5.5). Only 5 data
    // segments, but stalls fill 100 % of the active time, so the stalls are the story,
    // not "too short"; RTO stalls are loss's share (DESIGN.md).
    let mut c = Cols::new(64.0 * KIB);
    let mut t = 0.1;
    c.data(t, 0, 1.0, 648);
    for backoff in [0.2, 0.4, 0.8, 1.6] {
        t += backoff;
        c.data(t, 0, 1.0, 648);
    }
    let (d, stalls) = diag(&c);
    assert_eq!(stalls.len(), 4);
    assert!(stalls.iter().all(|s| s.cause == StallCause::RetransmissionTimeout));
    assert_eq!(d.limit, "loss");
    assert!(d.text.starts_with("Loss limited this flow: 80.0 % of the bytes sent were retransmissions (4 of 5 data segments)"), "{}", d.text);
    assert!(d.text.contains("3 s of it waiting on retransmission timeouts"), "{}", d.text);
    assert_eq!(d.episodes.len(), 1, "one outage: {:?}", d.episodes);
    assert_eq!(d.episodes[0].kind, "outage");
}

#[test]
fn unknown_window_scale_cannot_be_window_limited() {
    // The 802.11ac flow again, but the handshake is missing: the receiver's windows are
    // raw (64 KiB >> 7 = 512 B) while 64 KiB are in flight. Window limits can't be
    // judged; the time is "other" and the text says why.
    let mut c = Cols::new(64.0 * KIB);
    Sim::new(64.0 * KIB, 0.0028 - M * 8.0 / 533e6, 533e6).run(&mut c, 0.1, 1.0, 1.1);
    let p = &mut c.c.packets;
    for i in 0..p.t.len() {
        if p.dir[i] == 1 {
            p.win[i] /= 128.0;
        }
    }
    let (d, _) = diag(&c);
    assert_eq!(d.shares.receive_window, 0.0);
    assert_eq!(d.limit, "path");
    assert!(d.text.ends_with("so receive-window limits cannot be judged.)"), "{}", d.text);
}

#[test]
fn one_direction_data_at_one_instant_has_no_rate() {
    use crate::analysis::track::testseg::{run, Seg};
    // One 80,000-byte frame (a BIG TCP / GRO frame, as tcpdump's bigtcp-ipv6.pcap) and
    // nothing back: the connection is 0 s long, so no rate can be told. It read "the
    // capture only shows 78 KiB of data sent at 0 bit/s while active".
    let a = run(vec![Seg::a_to_b(0.0).seq(1001).ack(5001).len(80_000)]);
    let d = &a.connections[0].diagnosis;
    assert_eq!(d.limit, "one-direction");
    assert!(d.text.contains("the capture only shows 78 KiB of data sent at one instant, too brief for a rate."), "{}", d.text);
}

#[test]
fn one_direction_captured_is_said_not_guessed() {
    use crate::analysis::track::testseg::{run, Seg};
    use crate::decode::tcp_flags::SYN;
    // A's SYN, then 80 data segments of 1000 B, 1 ms apart, each acknowledging B's
    // SYN/ACK — which the capture, like everything else B sent, does not hold (a tap
    // on one direction). 80 kB is more than any sender sends before its first ACK
    // (initial window ≈ 14.6 kB, RFC 6928), so B's ACKs existed. Without them nothing
    // a limit is judged by exists: the headline says so instead of naming one
    // (before: `path`, "the receive window 0 % of the time", all 80 kB "in flight").
    let mut v = vec![Seg::a_to_b(0.0).seq(1000).flags(SYN).win(64240).wscale(7)];
    for k in 0..80u32 {
        v.push(Seg::a_to_b(0.020 + f64::from(k) * 0.001).seq(1001 + k * 1000).ack(5001).len(1000));
    }
    let a = run(v);
    let d = &a.connections[0].diagnosis;
    assert_eq!(d.limit, "one-direction");
    // 80 × 1000 B = 78 KiB in the 79 ms from the first to the last segment (+ the
    // last one's own share) ≈ 8 Mbit/s.
    assert_eq!(
        d.text,
        "Only one direction of this connection is in the capture: 81 packets from 10.0.0.1:40000 to 10.0.0.2:80, \
         none back (asymmetric routing, a tap or mirror port on one direction, or a capture filter on one address). \
         Without 10.0.0.2:80's ACKs and windows, the receive window, bytes in flight, the round trip and which \
         segments were lost cannot be judged; the capture only shows 78 KiB of data sent at 8 Mbit/s while active. \
         Capture where both directions pass to see the limit."
    );
    assert!(d.episodes.is_empty());
    // A client's requests only, each acknowledging more of B's replies (its ACK number
    // advances): B answered, unseen.
    let b = run(vec![
        Seg::a_to_b(0.0).seq(1001).ack(5001).len(100),
        Seg::a_to_b(0.1).seq(1101).ack(7001).len(100),
        Seg::a_to_b(0.2).seq(1201).ack(9001).len(100),
    ]);
    assert_eq!(b.connections[0].diagnosis.limit, "one-direction");
    // The same 1000 B sent 6 times with backoff, the ACK number never moving, nothing
    // back: a dead or unreachable peer and a one-way tap look the same from here, so
    // the capture cannot tell which (issue 39: this read "Loss limited this flow: 1
    // tail loss probe and 4 retransmission timeouts"); the text names both.
    let c = run([0.0, 0.2, 0.6, 1.4, 3.0, 6.2].iter().map(|&t| Seg::a_to_b(t).seq(1001).ack(5001).len(1000)).collect());
    assert_eq!(c.connections[0].diagnosis.limit, "one-direction");
    assert!(c.connections[0].diagnosis.text.contains("none back, and 10.0.0.1:40000 re-sent its data 5 times as if nothing arrived: 10.0.0.2:80 was down or unreachable, or its packets took another path"), "{}", c.connections[0].diagnosis.text);
    // Three SYNs and nothing else: B may never have answered (a host that is down). No
    // data, so not one direction: the connection never got past its SYNs.
    let e = run(vec![Seg::a_to_b(0.0).seq(1000).flags(SYN), Seg::a_to_b(1.0).seq(1000).flags(SYN), Seg::a_to_b(3.0).seq(1000).flags(SYN)]);
    assert_eq!(e.connections[0].diagnosis.limit, "not-established");
}

#[test]
fn the_retransmitted_share_is_by_bytes_so_tso_frames_do_not_inflate_it() {
    // A host capture with TSO: 20 data frames of 45 segments (65,160 B) each, then the
    // one segment lost from the 10th re-sent alone (1,448 B) — 1 of 21 frames (4.8 %),
    // but 1,448 of 1,304,648 payload bytes: 0.11 % (the share the headline quotes).
    let mut c = Cols::new(4.0 * 1024.0 * KIB);
    let big = 45 * MSS;
    let mut t = 0.1;
    for k in 0..20 {
        // Sequence numbers from 1, as after a handshake (the kit's first byte).
        c.data(t, 0, 1.0 + k as f64 * big as f64, big);
        c.ack(t + 0.0005, 1, 1.0 + (k + 1) as f64 * big as f64, 4.0 * 1024.0 * KIB);
        t += 0.001;
    }
    c.data(t, 0, 1.0 + 9.0 * big as f64 + 3.0 * M, MSS);
    let sh = crate::analysis::verdict::diagnosis_shares::time_shares(&c.c.packets, 0, &[]);
    assert_eq!((sh.data_segments, sh.retransmitted_segments), (21, 1));
    assert_eq!((sh.data_bytes, sh.retransmitted_bytes), (20.0 * big as f64 + M, M));
    let f = sh.retransmitted_bytes * 100.0 / sh.data_bytes;
    assert!((f - 0.111).abs() < 0.001, "{f}");
}
