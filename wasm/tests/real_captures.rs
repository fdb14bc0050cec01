//! Issue 13 item 8: captures that look like what people bring — recorded at the
//! receiver, through outages, delay spikes, loss with CUBIC and BBR, bufferbloat — and
//! transformed copies (10 ms clock, `-i any` duplicates, 802.11 retries, no
//! handshake). public/examples/README.md says how each was made; the kernels' own
//! counters (nstat) are in wasm/tests/examples-truth/NAME.json. Each test asserts the
//! headline, the vantage point, the path RTT and the stalls, with the reasoning.
use std::collections::BTreeMap;
use tcpscope_core::analysis::{Analysis, AnalysisOptions, ConnectionSummary, StallCause, Vantage};
use tcpscope_core::session::{analyze_bytes, Session};

fn open(file: &str) -> Session {
    let path = format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20)
}

/// A classic pcap (RFC draft-ietf-opsawg-pcap: 24-byte file header, 16-byte record
/// headers, little-endian) without its `n`th record (1-based, Wireshark's frame number).
fn without_record(pcap: &[u8], n: usize) -> Vec<u8> {
    let mut out = pcap[..24].to_vec();
    let mut at = 24;
    for k in 1.. {
        if at + 16 > pcap.len() {
            break;
        }
        let len = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        if k != n {
            out.extend_from_slice(&pcap[at..at + 16 + len]);
        }
        at += 16 + len;
    }
    out
}

/// The connection that carried the most data.
fn main_conn(a: &Analysis) -> &ConnectionSummary {
    a.connections.iter().max_by_key(|c| c.directions[c.data_direction as usize].payload_bytes).expect("a connection")
}

/// Path RTT rounded to µs, in ms.
fn path_ms(c: &ConnectionSummary) -> f64 {
    (c.path_rtt_ms.expect("a path RTT") * 1000.0).round() / 1000.0
}

fn causes(c: &ConnectionSummary) -> BTreeMap<StallCause, usize> {
    let mut m = BTreeMap::new();
    for s in &c.directions[c.data_direction as usize].stalls {
        *m.entry(s.cause).or_insert(0) += 1;
    }
    m
}

fn data(c: &ConnectionSummary) -> &tcpscope_core::analysis::DirectionSummary {
    &c.directions[c.data_direction as usize]
}

#[test]
fn receiver_side_download_is_window_limited_at_the_path_rtt() {
    // Captured at the client (pv_b) of a 40 ms, 100 Mbit/s path; the client's buffer
    // is capped at 256 KiB → a 172,672 B window (×128). The data's ACKs leave the client
    // 3 µs after the data arrives (the local part); the path's 40 ms is the handshake
    // and the client's TSvals echoed by the server (Jiang & Dovrolis' halves): the
    // smallest echo, 40.207 ms, is below the handshake's 40.414 (2 × 20 ms of link
    // plus the server's turnaround): 3 µs + 40.207 ms = 40.21 ms (tshark initial_rtt
    // 40.7 ms). Judged in the sender's time (40.2 ms later), bytes in flight sit at the window: 172,672 B /
    // 40.4 ms caps the flow at 34 Mbit/s, it ran at 30 — receive-window, not the
    // "application idle" a receiver-side capture suggests when read naively.
    let s = open("rx-bulk.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!(path_ms(c), 40.21);
    assert!((c.sender_lag_ms - 40.207).abs() < 0.001, "{}", c.sender_lag_ms);
    assert_eq!(c.diagnosis.limit, "receive-window", "{}", c.diagnosis.text);
    assert!(c.diagnosis.shares.receive_window > 0.8, "{:?}", c.diagnosis.shares);
    assert_eq!(c.diagnosis.evidence.window_bytes, Some(172_672.0));
    assert_eq!(c.diagnosis.evidence.verdict, "window");
    assert!(c.diagnosis.text.starts_with("The receiver never advertised more than 169 KiB. With a path RTT of 40 ms that caps throughput at 34 Mbit/s"), "{}", c.diagnosis.text);
    // The stall threshold follows the path: 4 × 40.21 ms (not 10 ms from a µs RTT).
    assert!((c.stall_threshold_ms - 160.84).abs() < 0.001);
    assert!(data(c).stalls.is_empty());
    assert_eq!(data(c).retransmissions, 0, "nstat: TcpRetransSegs 0");
    // RTT statistics are round trips, not 3 µs: each sample adds the far part as last
    // measured (round_trips.rs), so the smallest is 40.212 ms, 2 µs above the path's
    // 40.21: when the local part was smallest (3 µs), the far part was not. (40.211
    // until the far part's echoes that a newer ACK had not yet reached were trusted,
    // rtt.rs `sent_before_answer`: 27 more far-part samples follow, 2,495 of 2,508.)
    assert!((data(c).rtt.min_ms.unwrap() - 40.212).abs() < 0.0005, "{:?}", data(c).rtt);
}

#[test]
fn a_download_behind_a_queue_reads_the_senders_round_trips_at_the_client() {
    // One CUBIC download through a 120 ms queue (20 Mbit/s, 300,000 B), captured at the
    // client, with a twin capture at the server in the same run (not kept; its numbers
    // are in wasm/tests/examples-truth/rx-bufferbloat.json). The client ACKs within µs,
    // so the data's own samples are its ACK delay: + the path's 10.256 ms minimum as a
    // constant they read median 10.26 ms, a flat line while the sender waited behind the
    // queue. Each sample adds the far part as last measured instead (round_trips.rs):
    // median 87.81 ms where tshark's ack_rtt at the sender says 89.12 (tcpscope there
    // 88.42), p95 122.34 against 123.53 (122.93), max 130.21 against 130.24. (88.68
    // until session 17, when each of the sender's TSvals still timed a second sample
    // after its echo, 480 more, one per ACK already timed by the ACK itself: rtt.rs.)
    let s = open("rx-bufferbloat.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!(path_ms(c), 10.258);
    let rtt = &data(c).rtt;
    assert!(rtt.offset_follows);
    let near = |v: Option<f64>, want: f64, tol: f64| v.is_some_and(|v| (v - want).abs() <= tol);
    assert!(near(rtt.median_ms, 89.12, 1.5) && near(rtt.p95_ms, 123.53, 2.0) && near(rtt.max_ms, 130.24, 0.5), "{rtt:?}");
    // The headline's queue is that median (the one the panel and the chart show).
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.ends_with("The median RTT grew to 88 ms (minimum 10 ms): packets queued at the bottleneck."), "{}", c.diagnosis.text);
    // Kernel: TcpRetransSegs 12, all fast (one SACK recovery after the queue overflowed).
    assert_eq!((data(c).retransmissions, data(c).fast_retransmissions), (12, 12));
}

#[test]
fn without_timestamps_a_client_side_capture_says_the_queue_beyond_it_is_unseen() {
    // The same download as rx-bufferbloat.pcap (120 ms queue), but the client offers no
    // TCP timestamps (pv_b net.ipv4.tcp_timestamps=0, as Windows clients default to).
    // The twin capture at the sender, same run, says the data waited a median 83.57 ms
    // (tshark ack_rtt; wasm/tests/examples-truth/rx-bufferbloat-nots.json). At the client
    // nothing times the far part again after its first measure (the ACK of the client's
    // 64-byte request, 10.239 ms): every round trip is the client's µs ACK delay + that
    // minimum, so the statistics read ≈ 10.25 ms, and "no queue" would be a guess.
    let s = open("rx-bufferbloat-nots.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!(path_ms(c), 10.242);
    let rtt = &data(c).rtt;
    // The data direction follows the far part, but not one sample of it served.
    assert!(rtt.offset_follows && rtt.samples == 2763 && rtt.followed_samples == 0, "{rtt:?}");
    assert!(rtt.median_ms.is_some_and(|m| m < 10.3), "{rtt:?}");
    // So the diagnosis says what this capture point cannot see, in place of a queue phrase.
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.ends_with(
            "This capture is at the receiver and no TCP timestamps were negotiated, so the round trip \
             beyond it is known only by its minimum (10 ms): a queue on the sender's side would not \
             show in these RTTs."
        ),
        "{}",
        c.diagnosis.text
    );
    // Kernel (pv_a): TcpRetransSegs 11 = TCPFastRetrans 11.
    assert_eq!((data(c).retransmissions, data(c).fast_retransmissions), (11, 11));
    // rx-bufferbloat.pcap, with timestamps: all but the 13 round trips before the
    // server's first clocked echo added a measured far part (the queue shows).
    let ts = open("rx-bufferbloat.pcap");
    let rtt = &data(main_conn(ts.analysis().unwrap())).rtt;
    assert_eq!((rtt.samples, rtt.followed_samples), (5004, 4991), "{rtt:?}");
}

#[test]
fn a_tso_capture_counts_retransmitted_segments_as_the_kernel_does() {
    // A server's capture on a host with TSO (a veth pair, no emulator): data frames of up
    // to 45 segments, 2 % of them dropped at the client. The kernel of the sender counted
    // TcpRetransSegs 1254 = TCPFastRetrans 1242 + TCPSlowStartRetrans 11 + the timeout's
    // own re-send (TCPTimeouts 1) (wasm/tests/examples-truth/tso-loss.json); the capture
    // holds them as 77 frames (tshark: 29 retransmissions + 48 out-of-order). Each frame
    // is ⌈payload / 1448⌉ segments: the handshake's MSS 1460 less 12 bytes of timestamps.
    let s = open("tso-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    let d = data(c);
    assert_eq!(d.retransmissions, 77);
    assert_eq!((d.retransmitted_segments, d.fast_retransmitted_segments, d.slow_start_retransmitted_segments), (1254, 1242, 11));
    // A veth: each part of the round trip reads 1 µs on the µs clock (the receiver's
    // ACK 1 µs after the data, the sender's next data 1 µs after an ACK), so the path
    // RTT is 2 µs at the sender. (Until session 17 a TSval sent again after its echo
    // timed a second, 0 µs "round trip" and the path read "below one tick"; rtt.rs.)
    // Either is enough to tell the 207 ms timeout from a fast retransmission.
    assert_eq!((c.vantage, c.path_rtt_ms), (Vantage::Sender, Some(0.002)), "{}", c.path_rtt_method);
    assert_eq!(d.rto_events, 1);
    assert!((d.rto_chains[0].intervals_ms[0] - 207.414).abs() < 0.001, "{:?}", d.rto_chains);
    // The headline calls the segments segments and the frames frames, and names its
    // evidence of TSO: a frame of 65,160 bytes (45 segments of the SMSS 1448, the
    // receiver's MSS 1460 less 12 for timestamps).
    assert_eq!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.starts_with(
            "Loss limited this flow: 1.8 % of the bytes sent were retransmissions (1254 segments, re-sent in 77 of \
             2949 data frames: the capture holds TSO/GRO frames of up to 65160 bytes, several segments each), and the sender spent"
        ),
        "{}",
        c.diagnosis.text
    );
}

#[test]
fn a_timeout_for_a_segment_lost_before_the_client_is_not_an_idle_server() {
    // A download without SACK at 5 % loss, captured at the client. The server's kernel
    // counted 27 retransmissions and one timeout (wasm/tests/examples-truth/
    // rx-nosack-timeout.json): segment 211409 was lost before the capture point, the
    // client's ACK (frame 284) said it had everything, and 228 ms later the timer
    // re-sent it — new data to the capture. The server then sent it alone and the next
    // two only on its ACK, 10 ms later: a congestion window of one segment, so the
    // server was waiting on its timer, not idle (unseen_timeout.rs).
    let s = open("rx-nosack-timeout.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Receiver);
    let st = &data(c).stalls;
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!((st[0].cause, st[0].frame_before, st[0].frame_after), (StallCause::RetransmissionTimeout, 283, 285), "{}", st[0].ended_by);
    assert!((st[0].duration - 0.228131).abs() < 1e-6, "{:?}", st[0]);
    // The kernel's 27: tshark's 23 + 3 late hole fills + frame 285, whose data looks new
    // but whose number skipped the original's (datagram_ids.rs `resends_unseen`): the
    // timeout's re-send, no probe (the connection has no SACK, so Linux sends none).
    let d = data(c);
    assert_eq!((d.retransmissions, d.rto_events, d.tail_loss_probes), (27, 1, 0));
    assert_eq!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("228 ms of it waiting on retransmission timeouts"), "{}", c.diagnosis.text);
}

#[test]
fn a_tail_loss_before_the_client_is_a_timeout_by_the_senders_datagram_numbering() {
    // A 3 MB download whose last segment (with FIN) the emulator dropped past the
    // server, captured at the client (wasm/tests/examples-truth/rx-tail-loss.json: the
    // server's kernel counted TcpRetransSegs 1, TCPLossProbes 1). The client's ACK
    // (frame 3227) acknowledged everything captured; 242 ms later frame 3228 brought the
    // last 1192 bytes and FIN as if new. Linux numbers each socket's datagrams (IPv4
    // Identification + 1 per segment): 3226 carried 0xb4c2, 3228 0xb4c4, so 0xb4c3 was
    // sent and never captured — the original, re-sent by the probe timer. Read before as
    // "application idle" with a headline blaming the application.
    let s = open("rx-tail-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Receiver);
    let d = data(c);
    assert_eq!(d.unseen_datagrams, Some(1));
    // The capture never saw the original, so its re-send looks new, but its number says
    // the original was sent: one retransmission, the kernel's one probe (one segment,
    // 242 ms after the last datagram on a 10 ms path, the highest data sent).
    assert_eq!((d.retransmissions, d.tail_loss_probes, d.rto_events), (1, 1, 0));
    assert_eq!(d.stalls.len(), 1, "{:?}", d.stalls);
    let st = &d.stalls[0];
    // The kernel's one probe, counted so: the probe timer's stall, not a timeout (RFC 8985
    // §7, stalls/timer_label.rs; TCPLossProbes 1, no TCPTimeouts).
    assert_eq!((st.cause, st.frame_before, st.frame_after), (StallCause::TailLossProbe, 3226, 3228), "{}", st.ended_by);
    assert!((st.duration - 0.24185).abs() < 1e-6, "{st:?}");
    assert!(st.ended_by.contains("IPv4 Identification skipped"), "{}", st.ended_by);
    // 242 ms of 0.54 s active is loss's 47 %; slow start through a queue (median RTT 19
    // ms over a 10 ms path) has the larger 53 %: the path headline, naming what loss cost.
    assert!(c.diagnosis.text.starts_with("Loss cost 47 % of the time (242 ms of it waiting on 1 tail loss probe)"), "{}", c.diagnosis.text);
    assert!((c.diagnosis.shares.application - 0.0).abs() < 1e-9, "{:?}", c.diagnosis.shares);
}

#[test]
fn a_gap_the_senders_clock_did_not_see_is_the_paths_not_an_idle_sender() {
    // rx-cubic-loss.pcap, captured at the client: two gaps of 80 and 59 ms (0.611 s,
    // frames 942 -> 944; 1.270 s, 1507 -> 1509) after which the client had ACKed
    // everything. The server's TSvals moved 6 and 9 ms (1 ms clock) across them and its
    // IPv4 numbers ran on without a skip (0x86 -> 0x87, 0x1dd -> 0x1de): it sent the next
    // segment within a few ms and nothing was lost; the emulator had held them (its
    // process descheduled on this 2-core machine; the kernel counted no timeout). Read
    // before as "application idle", which blamed the server's application.
    let s = open("rx-cubic-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    let st = &data(c).stalls;
    let got: Vec<_> = st.iter().map(|s| (s.frame_before, s.frame_after, s.cause)).collect();
    assert_eq!(got, [(942, 944, StallCause::AckWait), (1507, 1509, StallCause::AckWait)], "{st:?}");
    assert!(st[0].ended_by.contains("held on the path"), "{}", st[0].ended_by);
    assert!(c.diagnosis.text.contains("Other stalls: 138 ms waiting on ACKs"), "{}", c.diagnosis.text);
}

#[test]
fn lost_answer_tails_seen_from_the_client_are_the_servers_timer() {
    // 80 requests, 30000-byte answers, 3 % loss, captured at the client
    // (wasm/tests/examples-truth/rx-rr-loss.json: TcpRetransSegs 64, TCPTimeouts 1,
    // TCPLossProbes 2). The server writes each answer with one sendall the moment the
    // request is in, so no gap inside an answer is its application's; the 3 stalls are
    // inside answers and end with a segment after a skipped datagram number: a re-send
    // of a lost tail by the timer (the kernel's 1 timeout + 2 probes). Before the
    // numbering the last two read application idle.
    let s = open("rx-rr-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    let d = data(c);
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!(d.unseen_datagrams, Some(64), "the kernel's 64 re-sent segments were all lost before the client");
    let got: Vec<_> = d.stalls.iter().map(|s| (s.frame_after, s.cause)).collect();
    // As the kernel counts them: 209 the timeout (TCPTimeouts 1), 440 and 1058 the two
    // probes (TCPLossProbes 2), each stall labelled by its counted kind (timer_label.rs).
    let want = vec![(209, StallCause::RetransmissionTimeout), (440, StallCause::TailLossProbe), (1058, StallCause::TailLossProbe)];
    assert_eq!(got, want, "{:?}", d.stalls);
    // Their re-sends count too: 58 seen of the kernel's 64 (6 re-sends lost before the
    // client), its 1 timeout and 2 probes — the probes' data looked new (before: 56, 0
    // probes); the timeout re-sent a segment whose hole the capture had seen.
    assert_eq!((d.retransmissions, d.rto_events, d.tail_loss_probes), (58, 1, 2));
    assert_eq!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
}

#[test]
fn datagrams_lost_before_the_capture_are_the_emulators_drops() {
    // Receiver-side recordings of a Linux sender: the datagrams its IPv4 numbering
    // skipped are exactly the A->B frames the emulator dropped (pvdelay's own counters
    // in each truth file's events): random loss, queue overflow, or both.
    for (file, dropped) in [("rx-cubic-loss.pcap", 24), ("rx-bufferbloat.pcap", 12), ("rx-bufferbloat-nots.pcap", 11), ("rx-nosack-timeout.pcap", 27)] {
        let s = open(file);
        let c = main_conn(s.analysis().unwrap());
        assert_eq!(data(c).unseen_datagrams, Some(dropped), "{file}");
    }
    // Through two blackholes: 726 A->B frames dropped of every kind (the namespaces'
    // IPv6 neighbour and listener messages among them), 725 of them the server's.
    let s = open("rx-outage-in-recovery.pcap");
    assert_eq!(data(main_conn(s.analysis().unwrap())).unseen_datagrams, Some(725));
    // The same download with the server's first data segment (frame 6, 1448 B) cut
    // out, as if lost before the capture: no number can show it (the numbering starts
    // at the first datagram seen), but the first data seen starts 1448 bytes beyond the
    // first byte the handshake set: one more unseen.
    let path = format!("{}/../public/examples/rx-cubic-loss.pcap", env!("CARGO_MANIFEST_DIR"));
    let cut = without_record(&std::fs::read(path).unwrap(), 6);
    let s = analyze_bytes(&cut, AnalysisOptions::default(), 1 << 20);
    assert_eq!(data(main_conn(s.analysis().unwrap())).unseen_datagrams, Some(25));
    // At the sender nothing of its own is unseen; IPv6 has no Identification.
    let s = open("cubic-loss.pcap");
    assert_eq!(data(main_conn(s.analysis().unwrap())).unseen_datagrams, Some(0));
    let s = open("rx-ipv6-loss.pcap");
    assert_eq!(data(main_conn(s.analysis().unwrap())).unseen_datagrams, None);
}

#[test]
fn at_ten_percent_loss_the_senders_numbering_still_tells_losses_re_sends_and_its_probe_timer() {
    // A Linux download through a link that drops one data frame in ten, captured at the
    // client (wasm/tests/examples-truth/rx-heavy-loss.json: pvdelay dropped 54 A->B
    // frames; the server's kernel: TcpRetransSegs 53, TCPFastRetrans 53, TCPLossProbes 5).
    let s = open("rx-heavy-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    let d = data(c);
    // 49 of the numbering's 453 steps skip (89 % exact): each at a hole in the sequence,
    // so the numbering is still one per segment. 53 datagrams unseen = the 54 drops less
    // one that is not among the server's numbered datagrams (the emulator drops frames
    // of any kind: rx-outage-in-recovery's 726 include the namespaces' IPv6 messages):
    // 52 skips, plus the first data segment, lost
    // before the first number the count starts from, whose 1448 bytes the first data
    // seen (frame 6) starts beyond.
    assert_eq!(d.unseen_datagrams, Some(53));
    // 48 re-sends seen = tshark's 44 + the 4 it calls out-of-order: each carries a number
    // after every one seen before it, so a re-send, however soon it filled its hole (frame
    // 152: 4.5 ms, under half the 10.2 ms path). The kernel's other 5 are its probes'
    // re-sends of lost tails, which the capture takes for new data.
    assert_eq!((d.retransmissions, d.out_of_order), (48, 0));
    // 3 stalls: at 1.383 s new data beyond a hole came 1.3 ms after the client's delayed
    // ACK, 10 ms of sender lag: sent before that ACK reached the server, by its probe
    // timer; at 1.449 s (5.2 ms after the ACK) and at 1.883 s (no hole: clocked by the
    // delayed ACK, 10.4 ms) the server waited on ACKs.
    let causes: Vec<(u32, StallCause)> = d.stalls.iter().map(|s| (s.frame_after, s.cause)).collect();
    assert_eq!(causes, vec![(547, StallCause::RetransmissionTimeout), (555, StallCause::AckWait), (652, StallCause::AckWait)]);
}

#[test]
fn after_a_spurious_timeout_the_server_waited_on_acks_it_had_not_yet_received() {
    // delay-spikes captured at the client (wasm/tests/examples-truth/rx-delay-spikes.json:
    // two +400 ms spikes, the server's 2 timeouts both undone). Each spike makes three
    // stalls: the data held on the path (TSvals 2 ms apart over 401 ms), the spurious
    // timeout, then 114-120 ms in which the capture shows everything acknowledged — but the
    // data that ends them echoes a client TSval older than the client's ACK of everything
    // (frame 1429: TSecr ...739 < frame 1426's TSval ...848): the server had not received
    // that ACK and was waiting on it, not idle.
    let s = open("rx-delay-spikes.pcap");
    let d = data(main_conn(s.analysis().unwrap()));
    let causes: Vec<(u32, StallCause)> = d.stalls.iter().map(|s| (s.frame_after, s.cause)).collect();
    use StallCause::{AckWait, RetransmissionTimeout};
    assert_eq!(causes, vec![(1375, AckWait), (1427, RetransmissionTimeout), (1429, AckWait), (2937, AckWait), (2995, RetransmissionTimeout), (2997, AckWait)]);
    assert!(d.stalls[2].ended_by.contains("had not yet received that ACK"), "{}", d.stalls[2].ended_by);
    assert_eq!((d.retransmissions, d.rto_events, d.spurious_retransmissions), (2, 2, 2));
}

#[test]
fn without_sack_a_timeout_is_not_hidden_by_the_duplicate_acks_after_it() {
    // NewReno (the client's tcp_sack=0), 8 % loss, 20 ms path, captured at the sender.
    // The kernel: TcpRetransSegs 47 = 6 timeouts + TCPFastRetrans 33 + TCPSlowStartRetrans
    // 8 (wasm/tests/examples-truth/newreno-loss.json). Counting every duplicate ACK as
    // feedback read one timeout, re-sent just after a duplicate ACK that only let new
    // data out, as fast, and its slow-start re-sends with it: 5 / 42 / 0.
    let s = open("newreno-loss.pcap");
    let d = data(main_conn(s.analysis().unwrap()));
    assert_eq!(d.retransmissions, 47);
    // 6 / 33 / 8, the kernel's exactly. (6 / 34 / 7 until session 17: an ACK covering a
    // timeout's re-send and data never re-sent was taken for F-RTO's evidence, which
    // Linux takes only with SACK — retrans_kinds.rs `note_original_acked`.)
    assert_eq!((d.rto_events, d.fast_retransmissions, d.slow_start_retransmissions), (6, 33, 8));
}

#[test]
fn a_dead_zero_window_is_one_long_zero_window_stall() {
    // The client stops reading after 0.25 s and never reads again; the server probes
    // the closed window 6 times (nstat TcpExtTCPWinProbe 6) until the client's RST at
    // 25.139 s. One zero-window stall from the last data (0.259 s) to the end:
    // 24.879 s — "too short to judge" before issue 13, and no stalls at all.
    let s = open("rx-zero-window-dead.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!(path_ms(c), 20.305);
    let st = &data(c).stalls;
    assert_eq!(st.len(), 1, "{st:?}");
    assert_eq!(st[0].cause, StallCause::ZeroWindow);
    assert!((st[0].start - 0.259).abs() < 0.001 && (st[0].duration - 24.879).abs() < 0.001, "{:?}", st[0]);
    assert!(st[0].ended_by.starts_with("not ended: the window was still closed when the capture ended"), "{}", st[0].ended_by);
    assert_eq!(c.diagnosis.limit, "zero-window", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("never reopened") && c.diagnosis.text.contains("25 s"), "{}", c.diagnosis.text);
    // The probes' answers time the persist interval, not a round trip: the path RTT
    // stays 20 ms (the old "minimum RTT of 3.4 s").
    assert!(data(c).rtt.max_ms.unwrap() < 100.0, "{:?}", data(c).rtt);
}

#[test]
fn bursts_through_an_outage_are_named_with_their_span_and_cost() {
    // 75 kB every 2 s; 11.9–23.9 s the link is flaky (+100 ms, 6 ms blackouts); an
    // RTO backoff keeps the flow stalled until 26.6 s. nstat: 38 retransmissions, 5 RTOs.
    let s = open("bursts-outage.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!((c.vantage, path_ms(c)), (Vantage::Sender, 10.344));
    assert_eq!(data(c).retransmissions, 38, "the kernel's TcpRetransSegs");
    // The idle time between bursts is the application's (16 gaps of ~2 s) ...
    assert_eq!(c.diagnosis.limit, "application", "{}", c.diagnosis.text);
    let m = causes(c);
    assert_eq!(m.get(&StallCause::ApplicationIdle), Some(&16));
    // 6 timer stalls: the analysis's 5 timeouts and 1 probe (kernel: TCPTimeouts 5,
    // TCPLossProbes 4). 7 more gaps of ~110 ms (the extra 100 ms delay) each ended by a
    // re-send 25–40 µs after a SACK (frames 672, 691, 819, 942, 944, 947, 953): fast
    // retransmissions on the ACKs, waits on ACKs, not timeouts (issue 39 item 8).
    assert_eq!(m.get(&StallCause::RetransmissionTimeout), Some(&6));
    // ... but the period in which bursts crawled is named, with its cost.
    let loss = c.diagnosis.episodes.iter().find(|e| e.kind == "loss").expect("a slow-burst period");
    assert!((loss.start - 12.011).abs() < 0.001, "{loss:?}");
    assert!(loss.text.contains("bursts took") && loss.text.contains("retransmissions per burst"), "{}", loss.text);
    assert!(c.diagnosis.text.contains(&loss.text), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("Mostly the application, not the network"), "{}", c.diagnosis.text);
}

#[test]
fn request_response_through_blackholes_is_round_trips_and_timeouts() {
    // 150 request/response exchanges, four 0.4 s blackholes. nstat (server): 4 RTOs +
    // 4 tail-loss probes = 8 retransmissions. Each blackhole: the server's TLP, its
    // RTO, then a wait for the ACK of the retransmitted data that the client sends
    // with its next request — 3 retransmission-timeout stalls per blackhole, 12 in all.
    // The time between exchanges is round trips (the client has no think time), not
    // an idle application.
    let s = open("reqresp-blackhole.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!((c.vantage, path_ms(c)), (Vantage::Sender, 10.371));
    assert_eq!(data(c).retransmissions, 8);
    // Per blackhole the probe's stall is `tail-loss-probe` (RFC 8985 §7; the probes were
    // needless: frame 1108 echoes the original's TSval), the timeout's and the wait for its
    // ACK stay `retransmission-timeout`: 4 + 8, as nstat counts 4 probes and 4 RTOs.
    assert_eq!(causes(c), BTreeMap::from([(StallCause::RetransmissionTimeout, 8), (StallCause::TailLossProbe, 4)]));
    assert_eq!(c.diagnosis.shares.application, 0.0, "{:?}", c.diagnosis.shares);
    // Round trips per exchange: the turns limit (review I class T), once `path`.
    assert_eq!(c.diagnosis.limit, "turns", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("145 times the sender, with everything acknowledged, sent more only on the peer's next message"), "{}", c.diagnosis.text);
    assert_eq!(c.diagnosis.episodes.iter().filter(|e| e.kind == "outage").count(), 4);
    // The timers named as the kernel counts them (pv_a TCPTimeouts 4, TCPLossProbes 4),
    // in the headline and per outage (each ended by a probe, then a timeout; the third
    // stall, the wait for the client's re-sent request, is neither).
    // Each kind with its own stalls' time; the 4 stalls neither ended (the wait for the
    // client's re-sent request among them) are the rest (path_words.rs `by_kind`, review AB).
    assert!(c.diagnosis.text.contains("(1.8 s of it waiting on timers: 221 ms on 4 tail loss probes, 900 ms on 4 retransmission timeouts, 694 ms on 4 other timer waits)"), "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.episodes.iter().filter(|e| e.kind == "outage").all(|e| e.text.ends_with(": 1 tail loss probe and 1 retransmission timeout.")),
        "{:?}",
        c.diagnosis.episodes
    );
}

#[test]
fn short_replies_at_five_percent_loss_wait_on_probes_and_a_timeout_as_the_kernel_counts_them() {
    // 100 replies of 5,000 B (four segments) on a 50 ms path, 5 % loss, captured at the
    // server. The kernel (wasm/tests/examples-truth/rr-tail-loss.json): TcpRetransSegs
    // 24 = TCPFastRetrans 18 + TCPTimeouts 1 + TCPLossProbes 5.
    let s = open("rr-tail-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(c.vantage, Vantage::Sender);
    let d = data(c);
    assert_eq!((d.retransmissions, d.fast_retransmissions, d.rto_events, d.tail_loss_probes), (24, 18, 1, 5));
    // 6 timer stalls, one per probe and one for the timeout (the gaps after each, until
    // the client's next request carried its ACK of the probe, are turns: rule 2b).
    // Labelled as counted (timer_label.rs): 5 `tail-loss-probe`, 1 `retransmission-timeout`.
    assert_eq!(causes(c).get(&StallCause::RetransmissionTimeout), Some(&1), "{:?}", causes(c));
    assert_eq!(causes(c).get(&StallCause::TailLossProbe), Some(&5), "{:?}", causes(c));
    assert_eq!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("2.1 s of it waiting on 5 tail loss probes and 1 retransmission timeout;"), "{}", c.diagnosis.text);
    // Request/response turns took half the time: a loss costs the reply round trips or a
    // timer, and the congestion-window advice would mislead.
    assert!(c.diagnosis.text.contains("Each loss cost the reply extra round trips, not bandwidth"), "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.contains("Request/response turns (79) took 50 % of the time"), "{}", c.diagnosis.text);
    assert!(!c.diagnosis.text.contains("BBR suffers less"), "{}", c.diagnosis.text);
}

#[test]
fn delay_spikes_are_named_with_the_timeouts_they_fired() {
    // +400 ms for 0.5 s at 1.07 s and 3.08 s; spurious RTOs fire at 1.37 s and 3.42 s.
    let s = open("delay-spikes.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!((c.vantage, path_ms(c)), (Vantage::Sender, 10.388));
    let spikes: Vec<_> = c.diagnosis.episodes.iter().filter(|e| e.kind == "delay-spike" && e.text.contains("retransmission timeout followed")).collect();
    assert_eq!(spikes.len(), 2, "{:?}", c.diagnosis.episodes);
    assert!(spikes[0].text.starts_with("The RTT rose from 10 ms to 4"), "{}", spikes[0].text);
    assert!((spikes[0].start - 1.071).abs() < 0.001 && (spikes[1].start - 3.079).abs() < 0.001);
}

#[test]
fn loss_is_headlined_only_where_it_cost_rate() {
    // Same 100 Mbit/s link with 2 % random loss. CUBIC halves its window at every loss
    // and crawls at 8.8 Mbit/s: loss. BBR paces at the link's rate through it (93
    // Mbit/s while active — from its first data segment to the ACK of its last byte,
    // 94.1 over the data segments alone —, 10× the Mathis bound): the path, with the
    // loss's small cost said.
    let s = open("cubic-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(data(c).retransmissions, 28, "kernel: TcpRetransSegs 28");
    assert_eq!(c.diagnosis.limit, "loss", "{}", c.diagnosis.text);
    let s = open("bbr-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!(data(c).retransmissions, 223, "kernel: TcpRetransSegs 223");
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(c.diagnosis.text.starts_with("The path's capacity limited this flow, not its loss: it averaged 93 Mbit/s"), "{}", c.diagnosis.text);
    // Its best is what the receiver's ACKs report delivered (delivered.rs): 96 Mbit/s
    // on the 100 Mbit/s link, where the data segments' own best bins at this sender
    // read 103.
    assert!(c.diagnosis.text.contains("steadily near its best of 96 Mbit/s"), "{}", c.diagnosis.text);
    assert_eq!(c.diagnosis.evidence.verdict, "link");
}

#[test]
fn bbr_overflowing_a_shallow_queue_is_the_path_at_the_sender_too() {
    // 100 Mbit/s, 20 ms, a 30 KB queue, no random loss, captured at the sender: the
    // queue dropped 1090 segments (emulator), the kernel re-sent 1090, all fast
    // (TcpRetransSegs = TCPFastRetrans 1090), and BBR kept pacing at the link's rate.
    let s = open("bbr-shallow-queue.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!((data(c).retransmissions, data(c).fast_retransmissions, data(c).rto_events), (1090, 1090, 0));
    assert_eq!(c.vantage, Vantage::Sender);
    // Recovery took 33 % of the time, but the flow ran at 96 Mbit/s, its delivered best
    // 95 (the data segments' p90 bins here read 134: the sender offered more than the
    // link carried), so the loss cost only the 8.5 % sent twice: the path, as the
    // receiver-side capture of the same link says. The best is what the receiver held
    // (cumulative ACK + SACKed bytes, delivered.rs); the highest SACK right edge read 97,
    // above what a 100 Mbit/s Ethernet link carries of 1,448-B payloads in 1,514-B frames
    // (95.6 Mbit/s): its blocks jumped the holes the queue made.
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.starts_with("The path's capacity limited this flow, not its loss: it averaged 96 Mbit/s while active, steadily near its best of 95 Mbit/s. 8.5 % of the bytes sent were retransmissions"),
        "{}",
        c.diagnosis.text
    );
}

#[test]
fn latency_under_load_is_measured_against_the_paths_base() {
    // Two bulk flows fill a 120 ms queue; a small request flow starts under load and
    // never sees the empty path. Its own minimum is 82 ms; the base of the path
    // between these hosts, seen by the first bulk flow's handshake, is 10.3 ms.
    let s = open("bufferbloat.pcap");
    let a = s.analysis().unwrap();
    assert_eq!(a.connections.len(), 3);
    let small = a.connections.iter().min_by_key(|c| c.directions[c.data_direction as usize].payload_bytes).unwrap();
    assert_eq!(small.base_rtt_ms.map(|b| (b * 1000.0).round() / 1000.0), Some(10.282));
    assert!(path_ms(small) > 80.0);
    assert!(small.diagnosis.text.contains("Latency under load: the RTT rose from 10 ms"), "{}", small.diagnosis.text);
    assert!(small.diagnosis.episodes.iter().any(|e| e.kind == "latency"));
}

#[test]
fn transformed_copies_tell_the_originals_story() {
    // 10 ms clock (healthy.pcap's first 3,000 packets rounded down): the tick is
    // found, the path is 10 ms (1 tick), the threshold 40 ms, no "stalls" of one tick.
    let s = open("coarse-clock-10ms.pcap");
    let a = s.analysis().unwrap();
    assert_eq!(a.capture.timestamp_resolution_ns, Some(10_000_000));
    let c = main_conn(a);
    assert_eq!((c.vantage, path_ms(c), c.stall_threshold_ms), (Vantage::Sender, 10.0, 40.0));
    assert!(data(c).stalls.is_empty());
    assert!(data(c).rtt.min_ms.unwrap() >= 10.0, "no RTT below one tick");
    // -i any copies (1,400 second + 280 third copies, TTL − 1, SLL2 on interface 1):
    // counted once; 2 real retransmissions and one 0.458 s outage, as in the original.
    let s = open("any-duplicates.pcapng");
    let a = s.analysis().unwrap();
    assert_eq!(a.capture.duplicate_frames, 1680);
    let c = main_conn(a);
    assert_eq!(data(c).retransmissions, 2);
    assert_eq!(data(c).duplicate_acks + c.directions[1 - c.data_direction as usize].duplicate_acks, 0);
    // The probe's stall (frame 2432, counted a probe, needless) is `tail-loss-probe`; the
    // timeout's and the wait for its ACK stay timeouts (timer_label.rs).
    assert_eq!(causes(c), BTreeMap::from([(StallCause::RetransmissionTimeout, 2), (StallCause::TailLossProbe, 1)]));
    // 802.11 MAC retries (Retry bit, same sequence number, 2–8 ms later): 8 copies,
    // no TCP retransmission, the receiver-side story of rx-bulk.
    let s = open("wifi-retry.pcap");
    let a = s.analysis().unwrap();
    assert_eq!((a.capture.duplicate_frames, a.capture.wifi_retries), (8, 8));
    let c = main_conn(a);
    assert_eq!(data(c).retransmissions, 0);
    assert_eq!((c.vantage, c.diagnosis.limit.as_str()), (Vantage::Receiver, "receive-window"));
    // No handshake: the scale is unknown; the sender-time bytes in flight bound it
    // from below at ×128 (raw 1,349 × 128 = 172,672 B, the true window), the same
    // headline as with the handshake, the window marked inferred.
    let s = open("no-handshake.pcap");
    let c = main_conn(s.analysis().unwrap());
    let rcv = &c.directions[1 - c.data_direction as usize];
    assert!(rcv.window_scale_unknown);
    assert_eq!(rcv.window_scale_lower_bound, Some(7));
    assert_eq!(c.diagnosis.limit, "receive-window", "{}", c.diagnosis.text);
    assert_eq!((c.diagnosis.evidence.window_bytes, c.diagnosis.evidence.window_inferred), (Some(172_672.0), true));
    assert_eq!(path_ms(c), 40.21);
}

#[test]
fn the_rate_while_active_is_timed_to_the_ack_of_each_burst() {
    // nagle-delack.pcap, captured at the client: 60 answers of 2,000 B (1,448 + 552 B,
    // 24 µs apart on arrival), each after an application pause. Timed over the data
    // segments alone, each answer's 552 B after its first segment took 24 µs: "the flow
    // averaged 284 Mbit/s while active" against a 320 kbit/s peak bin (session 12's
    // review). Timed from its first segment to the client's ACK of its last byte in the
    // server's time (the ACK's capture time + the 10.278 ms sender lag), each answer
    // takes ≈ 10.35 ms: 120,000 B × 8 in 0.621 s = 1.545 Mbit/s.
    let s = open("nagle-delack.pcap");
    let c = main_conn(s.analysis().unwrap());
    assert_eq!((data(c).throughput.active_mean_bps / 1e3).round(), 1545.0);
    assert_eq!(c.diagnosis.evidence.rate_bps, Some(data(c).throughput.active_mean_bps));
    assert!(c.diagnosis.text.contains("the flow averaged 1.5 Mbit/s while active"), "{}", c.diagnosis.text);
    // nanosecond.pcap, captured at the sender of a 100 Mbit/s link: 24 bursts of about
    // 250 kB (23 application pauses) leave in ≈ 20 ms into the link's queue — 201 Mbit/s
    // over the data segments alone, twice the link — and each is acknowledged ≈ 36 ms
    // after its first segment: 6,250,000 B × 8 in 0.859 s = 58.2 Mbit/s, below the link's
    // 100, the rate the diagnosis quotes and the calculator starts from.
    let s = open("nanosecond.pcap");
    let c = main_conn(s.analysis().unwrap());
    let rate = data(c).throughput.active_mean_bps;
    assert_eq!((rate / 1e5).round(), 582.0);
    assert!(rate < 100e6);
    assert!(c.diagnosis.text.contains("the flow averaged 58 Mbit/s while active"), "{}", c.diagnosis.text);
}

#[test]
fn an_ack_that_only_came_once_a_hole_was_filled_times_no_round_trip() {
    // outage-in-recovery.pcap (sender side, 80 ms path): segments sent at 0.585 s were
    // SACKed by the receiver, but the cumulative ACK reached them only at 5.612 s, once
    // the hole before them was repaired: tshark's ack_rtt says 5.027 s. They were sent
    // once (Karn's rule keeps them); the receiver's SACK said it had them long before.
    // Left out, the largest round trip is the path plus the queue: 100.2 ms.
    let s = open("outage-in-recovery.pcap");
    let c = main_conn(s.analysis().unwrap());
    let rtt = &data(c).rtt;
    assert_eq!(rtt.max_ms.map(|m| m.round()), Some(100.0), "{rtt:?}");
    // bufferbloat.pcap: a 20 Mbit/s link whose queue holds 300,000 B = 120 ms, on a
    // 10 ms path: no round trip can exceed 130 ms plus a delayed ACK (40 ms). Timing the
    // SACKed segments gave 238 and 247 ms "delay spikes" on the two bulk flows.
    let s = open("bufferbloat.pcap");
    let a = s.analysis().unwrap();
    for c in &a.connections[..2] {
        assert!(data(c).rtt.max_ms.unwrap() < 130.0 + 41.0, "{:?}", data(c).rtt);
        assert!(c.diagnosis.episodes.iter().all(|e| e.kind != "delay-spike"), "{:?}", c.diagnosis.episodes);
    }
}

#[test]
fn the_timers_quoted_with_the_stall_time_are_those_that_ended_the_stalls() {
    // rr-loss.pcap: the sender re-sent by 6 tail loss probes and 3 timeouts in all (the
    // kernel's TCPLossProbeRecovery 6, TCPTimeouts 3), but only 6 gaps reached the
    // stall threshold: 3 ended by a probe, 3 by a timeout (the other 3 probes ended no
    // stall, so none of the 1.4 s is theirs). Before, the sentence paired the stalls'
    // 1.4 s with all 6 probes.
    let s = open("rr-loss.pcap");
    let c = main_conn(s.analysis().unwrap());
    let d = data(c);
    assert_eq!((d.tail_loss_probes, d.rto_events), (6, 3));
    // Each stall labelled by the re-send that ended it (timer_label.rs): 3 and 3.
    assert_eq!(causes(c).get(&StallCause::RetransmissionTimeout), Some(&3));
    assert_eq!(causes(c).get(&StallCause::TailLossProbe), Some(&3));
    assert!(c.diagnosis.text.contains("1.4 s of it waiting on 3 tail loss probes and 3 retransmission timeouts;"), "{}", c.diagnosis.text);
}

#[test]
fn bbr_ramping_up_over_a_long_path_is_not_held_by_its_loss() {
    // 20 Mbit/s, 80 ms, 1 % random loss, BBR, captured at the client: 29 drops, the
    // kernel's TcpRetransSegs 29 (all fast). Delivered per 320 ms bin (4 path RTTs):
    // the startup ramp, then about 19 Mbit/s (the link) to the end. 15 Mbit/s while active is the
    // ramp's doing; once started the flow ran at its best: the path, not the loss.
    let s = open("rx-bbr-long-path.pcap");
    let c = main_conn(s.analysis().unwrap());
    let d = data(c);
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!((d.retransmissions, d.fast_retransmissions, d.unseen_datagrams), (29, 29, Some(29)));
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
    assert!(
        c.diagnosis.text.starts_with("The path's capacity limited this flow, not its loss: it averaged 15 Mbit/s while active, 18 Mbit/s once its start-up was over, steadily near its best of 19 Mbit/s."),
        "{}",
        c.diagnosis.text
    );
}

#[test]
fn without_sack_the_go_back_n_after_a_timeout_is_slow_start_at_the_receiver_too() {
    // 30 Mbit/s, 50 ms, 2 % loss, the client's tcp_sack=0, captured at the client. The
    // kernel: 95 re-sent = 8 fast + 83 slow start + 4 timeouts. After each timeout the
    // first re-send fills the hole and the client's cumulative ACK jumps past all it
    // held; the burst of re-sends right behind it was sent before that ACK reached the
    // server, a sender lag later: the timeout's loss state, slow start. 89 captured = 4
    // timeouts + 79 slow start + 6 fast (before, judged by the ACK as the capture saw
    // it: 47 fast, 38 slow start).
    let s = open("rx-nosack-gobackn.pcap");
    let c = main_conn(s.analysis().unwrap());
    let d = data(c);
    assert_eq!(c.vantage, Vantage::Receiver);
    assert_eq!((d.retransmissions, d.rto_events, d.slow_start_retransmissions, d.fast_retransmissions), (89, 4, 79, 6));
    assert_eq!(d.unseen_datagrams, Some(19), "the emulator's 19 drops");
}

#[test]
fn a_bulk_flow_that_started_under_load_rises_from_its_own_small_flight_rounds() {
    // bufferbloat.pcap's second bulk flow: its slow-start rounds (≤ 4,380 B in flight)
    // already saw the first flow's queue, median 29 ms; with more in flight 102 ms: 3.5×,
    // so the control (review AH C-LATENCY-UNDER-LOAD-UNFOUNDED) holds, and the rise is
    // said from the path's base, netem's 10 ms (the recording's unloaded path).
    let s = open("bufferbloat.pcap");
    let a = s.analysis().unwrap();
    let c = &a.connections[1];
    assert!(c.diagnosis.text.contains("Latency under load: the RTT rose from 10 ms (the path's base, the smallest round trip of the connections between these hosts at the same hop counts) to 102 ms (median, 10×)."), "{}", c.diagnosis.text);
}
