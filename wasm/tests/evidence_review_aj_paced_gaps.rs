//! Issue 39, review AJ class C-PACED-GAPS-AS-STALLS (stalls/even_pace.rs,
//! verdict/diagnosis/wait_words.rs `stalls_saving_or_unknown`): with the round trip
//! neither measured nor estimated, the stall threshold is 4 × the flow's even delivery
//! pace (at most 200 ms), and no "would have taken … instead of …" rests on a round trip
//! the capture never measured. Corpus captures: return early without `TCPSCOPE_CORPUS`.

use crate::common;
use tcpscope_core::analysis::StallCause;

#[test]
fn an_evenly_paced_lossy_download_is_not_158_stalls() {
    // edalakaveri conn 1: a TLS download captured at a Windows client, no handshake, no
    // timestamps; 210 full segments (1460 B) arrive 14–19 ms apart (tshark: 209 spacings,
    // median 18.9 ms, 96 of the 158 not below 9.4 ms within 2× of it), each ACKed within
    // 0.2 ms. Threshold 4 × 18.894 ms = 75.576 ms (once 10 ms: 158 stalls, "would have
    // taken about 103 ms instead of 6.6 s"). The 16 gaps left are 79–235 ms, each a loss
    // hole or a pause beyond four spacings (frames 1576 → 1626, 235 ms: the client then
    // SACKs 268641 while its ACK stays at 262801).
    let Some(c) = common::corpus_connection("edalakaveri__csa0711-COMPUTER-NETWORKS1__tcp.pcapng", 1) else { return };
    assert_eq!(c.path_rtt_ms, None);
    assert!((c.stall_threshold_ms - 75.576).abs() < 1e-6, "{}", c.stall_threshold_ms);
    assert!(c.path_rtt_method.contains("the data arrives evenly, about 19 ms apart (the median of 209 spacings; 96 of the 158"), "{}", c.path_rtt_method);
    let st = &c.directions[c.data_direction as usize].stalls;
    assert_eq!(st.len(), 16, "{st:?}");
    assert!(st.iter().any(|s| s.frame_before == 1576 && s.frame_after == 1626), "{st:?}");
    assert!(!c.diagnosis.text.contains("would have taken"), "{}", c.diagnosis.text);
}

#[test]
fn timer_waits_and_idle_stay_stalls_under_a_paced_threshold() {
    // tarun1894 http conn 7: an HTTP download to a Windows client (receive window 13–14 raw,
    // scale unseen), no handshake; data 34 ms apart (the client's ACK f131 → the data f139
    // 32 ms: one far round trip, near the pace). Threshold 136.5 ms (4 × 34.1 ms): the
    // 14–90 ms gaps of delayed ACKs and the small window are no longer stalls, while the
    // 874 ms retransmission timeout (frames 305 → 481) and the 3.9 s and 2.0 s idle
    // pauses (559 → 1524, 1698 → 2420) stay.
    let Some(c) = common::corpus_connection("tarun1894__CSA0731-ComputerNetworks__http.pcapng", 7) else { return };
    let st = &c.directions[c.data_direction as usize].stalls;
    let has = |b: u32, a: u32, cause: StallCause| st.iter().any(|s| s.frame_before == b && s.frame_after == a && s.cause == cause);
    // The timer wait stays a stall; its label follows the counters (stalls/timer_label.rs):
    // they count frame 481 a tail-loss probe, so the stall is `tail-loss-probe` — with the
    // round trip unmeasured no probe-timer bound can overrule them (an 874 ms probe after
    // a ~34 ms pace is the counters' open question, not this rule's).
    assert!(st.iter().any(|s| s.frame_before == 305 && s.frame_after == 481 && s.cause.is_timer()), "{st:?}");
    assert!(has(559, 1524, StallCause::ApplicationIdle), "{st:?}");
    assert!(has(1698, 2420, StallCause::ApplicationIdle), "{st:?}");
    assert!(st.iter().all(|s| s.duration > c.stall_threshold_ms / 1000.0), "{st:?}");
    assert!((130.0..140.0).contains(&c.stall_threshold_ms), "{}", c.stall_threshold_ms);
}
