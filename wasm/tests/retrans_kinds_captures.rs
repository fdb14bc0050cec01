//! Issue 17 item 4: the kind of every retransmission (analysis/loss/retrans_kinds.rs) on
//! real Linux TCP recorded through linkemu, against the kernels' own counters (nstat
//! deltas of each namespace, wasm/tests/examples-truth/NAME.json `key_counters`; pv_a
//! is the data sender 10.77.0.1, pv_b the receiver). The rules come from the RFCs
//! (see the module and docs/ANALYSIS.md "Retransmission kinds"); each test states how
//! close each count is to the kernel's and why any difference is inherent.
use tcpscope_core::analysis::{AnalysisOptions, DirectionSummary};
use tcpscope_core::session::analyze_bytes;

/// [retransmissions, rto, tail loss probes, fast, slow start, spurious] of the data
/// direction of every connection, summed.
fn kinds(file: &str) -> [u64; 6] {
    let path = format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let mut sum = [0u64; 6];
    for c in &s.analysis().unwrap().connections {
        let d: &DirectionSummary = &c.directions[c.data_direction as usize];
        let k = [d.retransmissions, d.rto_events, d.tail_loss_probes, d.fast_retransmissions, d.slow_start_retransmissions, d.spurious_retransmissions];
        // Every retransmission has exactly one kind.
        assert_eq!(k[0], k[1] + k[2] + k[3] + k[4], "{file}: kinds add up");
        for i in 0..6 {
            sum[i] += k[i];
        }
    }
    sum
}

/// The kernel counter `name` (without "TcpExt"/"Tcp") of namespace `ns`.
fn kernel(name: &str, ns: &str, counter: &str) -> u64 {
    let path = format!("{}/tests/examples-truth/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let k = &v["key_counters"][ns];
    k[format!("TcpExtTCP{counter}")].as_u64().or_else(|| k[format!("Tcp{counter}")].as_u64()).unwrap_or_else(|| panic!("{name} {ns} {counter}"))
}

#[test]
fn sack_recovery_under_random_loss_is_all_fast_as_the_kernel_counts() {
    // CUBIC and BBR with 2 % loss, captured at the sender: every retransmission
    // follows an ACK with new SACK information within microseconds: recovery. The
    // kernel agrees exactly (TCPFastRetrans), no timeouts. Wireshark's narrow rule
    // finds 4 and 10 "fast retransmissions" here (conformance.rs compares that label).
    assert_eq!(kinds("cubic-loss.pcap"), [28, 0, 0, 28, 0, 0]);
    assert_eq!((kernel("cubic-loss", "pv_a", "FastRetrans"), kernel("cubic-loss", "pv_a", "Timeouts")), (28, 0));
    assert_eq!(kinds("bbr-loss.pcap"), [223, 0, 0, 223, 0, 0]);
    assert_eq!((kernel("bbr-loss", "pv_a", "FastRetrans"), kernel("bbr-loss", "pv_a", "Timeouts")), (223, 0));
    // Bufferbloat (two bulk flows through a 500 KB queue): 6 + 4 = 10, kernel 10.
    assert_eq!(kinds("bufferbloat.pcap"), [10, 0, 0, 10, 0, 0]);
    assert_eq!(kernel("bufferbloat", "pv_a", "FastRetrans"), 10);
}

#[test]
fn outages_give_timeouts_with_backoff_slow_start_and_recovery_exactly_as_the_kernel() {
    // Bursts through outages, captured at the sender. Kernel: 38 retransmitted segments
    // = 5 timeouts (TCPTimeouts) + 21 fast (TCPFastRetrans) + 11 slow start
    // (TCPSlowStartRetrans) + 1 more: the one probe of TCPLossProbes' 4 that re-sent a
    // segment (the other 3 sent new data: not retransmissions, invisible as probes).
    // Ours: the same 5 / 21 / 11 / 1. Two of the 21 fast ones come 104 ms after the
    // last feedback, 4 µs apart: a timer, but a burst — RACK's reordering timer in
    // recovery, not a timeout (which re-sends one segment, RFC 6298 §5.4).
    // Spurious 3: the probe at 12.59 s (Eifel: the first ACK covering it echoes the
    // original's TSval; the kernel undid that episode by timestamps, TCPLossUndo 1),
    // the timeout at 12.94 s and the last timeout of the 4-long chain at 26.63 s
    // (D-SACKs: the kernel counted TCPDSACKRecv 2).
    assert_eq!(kinds("bursts-outage.pcap"), [38, 5, 1, 21, 11, 3]);
    let k = |c| kernel("bursts-outage", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("FastRetrans"), k("SlowStartRetrans")), (38, 5, 21, 11));
    assert_eq!((k("LossProbes"), k("DSACKRecv"), k("LossUndo")), (4, 2, 1));
}

#[test]
fn delay_spikes_fire_spurious_timeouts() {
    // +400 ms delay spikes: the timer fires while the ACKs are only late. Kernel: 2
    // timeouts, 2 retransmitted segments, 2 D-SACKs received (and TCPLossUndo 2) →
    // ours 2 timeouts, both spurious (the first ACK covering each echoes the original's
    // TSval — Eifel — before the D-SACK arrives). The kernel's 2 loss probes sent new data (RetransSegs = Timeouts = 2):
    // not retransmissions, so not ours to count.
    assert_eq!(kinds("delay-spikes.pcap"), [2, 2, 0, 0, 0, 2]);
    let k = |c| kernel("delay-spikes", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("LossProbes"), k("DSACKRecv")), (2, 2, 2, 2));
}

#[test]
fn blackholes_give_a_probe_then_a_timeout_each() {
    // Four 0.4 s blackholes in a request/response exchange, captured at the server:
    // each time the server's response tail is probed (TLP) and then re-sent by a
    // timeout: 4 + 4, as the server's kernel (TCPLossProbes 4, TCPTimeouts 4,
    // RetransSegs 8). All 8 are spurious by Eifel: the first ACK after each blackhole
    // echoes the original's TSval; the kernel undid each episode (TCPLossUndo 4: it
    // counts episodes, we count segments, two per episode).
    assert_eq!(kinds("reqresp-blackhole.pcap"), [8, 4, 4, 0, 0, 8]);
    let k = |c| kernel("reqresp-blackhole", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("LossProbes"), k("LossUndo")), (8, 4, 4, 4));
    // The client's kernel also retransmitted 8 requests (pv_b RetransSegs 8), but the
    // blackhole dropped them before they reached the server-side capture: the copy
    // that got through is the first the capture saw, not a retransmission. Inherent.
    assert_eq!(kernel("reqresp-blackhole", "pv_b", "RetransSegs"), 8);
}

#[test]
fn at_the_receiver_a_probe_is_judged_one_path_rtt_later() {
    // Captured at the receiver (sender lag 20.3 ms). The one retransmission passes the
    // capture 6 ms *before* the receiver's ACK of those bytes could have reached the
    // sender: by the last feedback the sender had heard it was timer-driven, the tail →
    // a tail loss probe (kernel TCPLossProbes 1, RetransSegs 1); the receiver
    // had the bytes (it had acknowledged them, and sent a D-SACK: TCPDSACKRecv 1) →
    // spurious.
    assert_eq!(kinds("rx-zero-window-dead.pcap"), [1, 0, 1, 0, 0, 1]);
    let k = |c| kernel("rx-zero-window-dead", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("LossProbes"), k("DSACKRecv")), (1, 1, 1));
}

#[test]
fn at_the_receiver_every_refill_of_a_hole_is_a_fast_retransmission() {
    // cubic-loss recorded again at the receiver. The sender's kernel: 24 retransmitted
    // segments, all TCPFastRetrans, no timeout. At this vantage every lost original is a
    // hole and its retransmission fills it one path RTT (10.3 ms) or more after the
    // hole opened: the sender re-sends only after the receiver's ACKs of the data beyond
    // it reach it. Wireshark's rules call 15 of them "out-of-order" (within its
    // handshake RTT — 39.9 ms here, a slow SYN/ACK — of the highest segment); a hole
    // filled half a round trip or more after it opened is a retransmission
    // (analyzer.rs reclassify_out_of_order): all 24, judged one sender lag later, fast.
    assert_eq!(kinds("rx-cubic-loss.pcap"), [24, 0, 0, 24, 0, 0]);
    let k = |c| kernel("rx-cubic-loss", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("FastRetrans"), k("Timeouts")), (24, 24, 0));
}

#[test]
fn ipv6_at_the_receiver_with_sack_options_cut_by_the_snaplen() {
    // 3 % loss over IPv6 (BBR), captured at the receiver with snaplen 96, which keeps
    // 10 bytes of each SACK option (scripts/fixtures/record.sh rx-ipv6-loss). The
    // sender's kernel: 81 retransmitted segments, all TCPFastRetrans, no timeout, 3 of
    // them lost again (TCPLostRetransmit: the emulator drops at random, retransmissions
    // too) → 78 reached the capture. Ours: 78, all fast. Wireshark calls 50 of the
    // refills out-of-order (tshark: 28 retransmissions); and with the SACK blocks
    // unreadable the receiver's ACKs (same ACK, a growing window: no Wireshark duplicate
    // ACK) would count as no feedback, and 14 recovery re-sends read as 7 timeouts + 7
    // slow start. An ACK with a cut SACK option is feedback (RFC 2018 §4: its first block
    // is the segment that triggered it).
    assert_eq!(kinds("rx-ipv6-loss.pcap"), [78, 0, 0, 78, 0, 0]);
    let k = |c| kernel("rx-ipv6-loss", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("FastRetrans"), k("LostRetransmit"), k("Timeouts")), (81, 81, 3, 0));
}

#[test]
fn an_outage_that_lost_only_acks_is_undone_and_its_holes_are_recovery() {
    // A 0.35 s blackhole in a CUBIC upload, captured at the sender (record.sh
    // outage-acks-lost). The data sent just before it had arrived; its ACKs were lost.
    // Kernel: 12 retransmitted segments = 2 timeouts (one backoff chain) + 10 fast, no
    // slow start; its one loss probe sent new data (not a retransmission). The head the
    // timeouts re-sent is D-SACKed (TCPDSACKRecv 1) and the first ACK covering it echoes
    // the original's TSval: both re-sends spurious, the kernel undid the episode
    // (TCPLossUndo 1) and filled the remaining holes in recovery. Before the undo rule we
    // read those 10 as slow-start retransmissions (loss state until SND.NXT at the
    // timeout was acknowledged).
    assert_eq!(kinds("outage-acks-lost.pcap"), [12, 2, 0, 10, 0, 2]);
    let k = |c| kernel("outage-acks-lost", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("FastRetrans"), k("SlowStartRetrans")), (12, 2, 10, 0));
    assert_eq!((k("LossProbes"), k("DSACKRecv"), k("LossUndo")), (1, 1, 1));
}

#[test]
fn request_response_tail_losses_are_probes_and_rack_recovery_not_timeouts() {
    // 120 answers of 30 KB over a 3 % lossy link (CUBIC), captured at the server
    // (record.sh rr-loss). Kernel: 91 retransmitted segments = 3 timeouts + 82 fast + 6
    // probes that re-sent the tail (TCPLossProbes 7, one of them new data;
    // TCPLossProbeRecovery 6: every probe repaired a real loss, no D-SACK). Ours: the
    // same 3 / 82 / 6, and no probe spurious. Before: 3 holes below SACKed data re-sent
    // by RACK's reordering timer 10-12 ms after the last SACK (path RTT 10.2 ms) read as
    // timeouts (6 timeouts, 79 fast), and 3 probes were called spurious because the ACK
    // they triggered also covered the segment before them, whose TSval it echoed (the
    // receiver had delayed that ACK).
    assert_eq!(kinds("rr-loss.pcap"), [91, 3, 6, 82, 0, 0]);
    let k = |c| kernel("rr-loss", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("FastRetrans"), k("SlowStartRetrans")), (91, 3, 82, 0));
    assert_eq!((k("LossProbes"), k("LossProbeRecovery"), k("DSACKRecv")), (7, 6, 0));
}

#[test]
fn an_outage_in_sack_recovery_undone_by_f_rto_leaves_its_holes_to_recovery() {
    // A CUBIC upload at 80 ms RTT, deep in SACK recovery after its slow start overshot
    // the queue, then a 1 s outage (record.sh outage-in-recovery, captured at the
    // sender). Three backoff timeouts re-send the head (one chain, 334 → 604 → 1216 ms);
    // the first ACK after them SACKs data sent before the outage and never re-sent, so
    // F-RTO (RFC 5682 §3 step 3.b) calls the timeout spurious: the kernel's
    // TCPSpuriousRTOs 1 and TCPLossUndo 1. The holes left over from the recovery are
    // then filled in recovery again: 1089 = 3 timeouts + 1086 fast. Kernel: 1089 = 4
    // timeouts + 1078 fast + 7 slow start. The fourth timeout is one the capture cannot
    // tell from recovery: at 5.528 s the head 1408905 is re-sent 2.5 s after the
    // cumulative ACK last advanced, while SACKs kept arriving and the sender kept
    // re-sending other holes (the retransmission timer is re-armed only by an ACK that
    // advances SND.UNA), so its quiet time is microseconds; it and the 7 re-sends after
    // it in loss state read as recovery (TCPSackRecoveryFail 2: the chain's first
    // timeout and that one came during recovery). Before the F-RTO rule:
    // [1089, 3, 0, 163, 923, 7].
    assert_eq!(kinds("outage-in-recovery.pcap"), [1089, 3, 0, 1086, 0, 7]);
    let k = |c| kernel("outage-in-recovery", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("FastRetrans"), k("SlowStartRetrans")), (1089, 4, 1078, 7));
    assert_eq!((k("SpuriousRTOs"), k("LossUndo"), k("SackRecoveryFail")), (1, 1, 2));
}

#[test]
fn at_the_receiver_an_outage_in_recovery_is_recovery_after_one_timeout_each() {
    // The same scenario captured at the RECEIVER (record.sh rx-outage-in-recovery): two
    // outages, each ended by the sender's timer. Kernel: 868 retransmitted segments = 3
    // timeouts + 865 fast, 0 slow start, 128 lost again before the capture point
    // (TCPLostRetransmit: 740 reach the file), 143 D-SACKs received, 2 undos. Ours: 732
    // = 2 timeouts (the visible last of each chain) + 730 fast, 143 spurious (= the
    // kernel's D-SACKs: the receiver had acknowledged those bytes before they came
    // again, its ACKs having died in the outage). Before: [732, 5, 0, 219, 508, 143]:
    // after each outage the sender re-sent a few segments back to back, and the
    // receiver's ACK of each was captured a few µs before the next arrived — an ACK the
    // sender could not have heard yet (it needs one sender lag, 80 ms, to get there and
    // back), which split the burst into lone "timeouts" whose loss state made 508
    // re-sends slow start (`heard_between`).
    assert_eq!(kinds("rx-outage-in-recovery.pcap"), [732, 2, 0, 730, 0, 143]);
    let k = |c| kernel("rx-outage-in-recovery", "pv_a", c);
    assert_eq!((k("RetransSegs"), k("Timeouts"), k("FastRetrans"), k("LostRetransmit")), (868, 3, 865, 128));
    assert_eq!((k("DSACKRecv"), k("LossUndo")), (143, 2));
}
