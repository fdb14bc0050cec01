//! Issue 39, review AH class C-LOSS-HEADLINE-WITHOUT-RATE-DROP (verdict/diagnosis/
//! loss_slowed.rs): time with a hole open is not time lost to loss. Without a standing
//! queue, recovery that delivered more than 0.7 × (CUBIC's β, RFC 9438 §4.6) both the rate
//! outside it and the rate in the 2 RTTs before the first loss moves out of the loss
//! share. Corpus captures: return early without `TCPSCOPE_CORPUS`.

use crate::common;

#[test]
fn sack_recovery_that_kept_the_rate_is_not_the_headline() {
    // vijay8098 conn 0: Google → a Jio phone over IPv6, RTT 312 ms, receiver side. tshark
    // io,stat (0.5 s, the server's bytes): 9.1–15.5 kB per bin before the first hole at
    // 3.28 s, 16.8–20.7 kB while holes were open (3.5–6.5 s): the rate rose in recovery.
    let Some(c) = common::corpus_connection("vijay8098__wireshark__wireshark.pcapng", 0) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "path", "{}", d.text);
    assert!(!d.text.contains("Loss limited"), "{}", d.text);
    // 184 kbit/s delivered in recovery, 188 outside, 250 in the 624 ms (2 RTTs) before 3.278 s.
    assert!(d.text.contains("yet delivery did not clearly slow: its receiver reported 184 kbit/s delivered meanwhile, against 188 kbit/s outside recovery and 250 kbit/s in the 624 ms before the first loss at 3.278 s"), "{}", d.text);
    assert!(d.text.contains("The loss was repaired without slowing the flow (SACK recovery"), "{}", d.text);
    // The window 599 × 2^6 is a lower bound (scale unseen): said so.
    assert!(d.text.contains("838 kbit/s or more that its window of at least 32 KiB would allow (the window scale is unseen)"), "{}", d.text);
    // The saving follows: the re-sent bytes' share, not the 45 % with a hole open (1.2 s before).
    let loss = d.savings.iter().find(|s| s.limit == "loss").map_or(0.0, |s| s.seconds);
    assert!(loss < 0.3, "{:?}", d.savings);
}

#[test]
fn loss_that_cut_the_rate_keeps_its_headline() {
    // Three flows whose rate the loss did cut (tshark io,stat), each still "Loss limited":
    // - jianfenw example.pcap #0: 406 kB per 0.5 s at 1.0–1.5 s, 54 re-sends at 1.5–2.0 s,
    //   34 kB in 2.0–2.5 s (a halved window and its slow regrowth, again at 3.5 and 5.5 s);
    // - asyncrat 30a385ed #14: slow start 2.9, 5.7, 11.4, 17.3 kB per 166 ms round trip,
    //   the loss at 120.80 s, then 5.7–9.9 kB: a head still growing is no control;
    // - lyc0930 DNS_1 #16: retransmission timeouts in 9 of its 19 seconds (tshark
    //   tcp.analysis.rto), the rate halving after them: a timer stall is never cleared.
    for (name, id) in [
        ("jianfenw__tcp-trace-compression__example.pcap", 0),
        ("corelight__zeek-asyncrat-detector__testing_Traces_30a385ed-171e-4f15-ac3f-08c96be7bfd1.pcap", 14),
        ("lyc0930__Wireshark-Labs__2-HTTP&DNS_DNS_1.pcapng", 16),
    ] {
        let Some(c) = common::corpus_connection(name, id) else { return };
        let d = &c.diagnosis;
        assert_eq!(d.limit, "loss", "{name} #{id}: {}", d.text);
        assert!(d.text.starts_with("Loss limited this flow"), "{name} #{id}: {}", d.text);
        assert!(!d.text.contains("repaired without slowing"), "{name} #{id}: {}", d.text);
    }
}
