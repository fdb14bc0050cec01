//! Issue 39, "Evidence before every claim", review AL class
//! C-SUBMSS-WRITES-TOLD-AS-CWND-OR-PATH: an interactive sender (SSH session output) writes
//! small pieces, each sent at once with PSH and acknowledged within a round trip, its
//! flight far below every window. The share pass booked the time from each write to its
//! ACK `other` ("the congestion window or the path"); a sender with data queued sends
//! full segments (RFC 9293 §3.7.4, §3.8.6.2.1), so after each write it had nothing more
//! to send: its application's time (RFC 4898 SndLimTransSnd). write_ends.rs's timing
//! guard cannot speak when every segment, whole ones too, is PSH-ed;
//! diagnosis_shares/unqueued_writes.rs reads the absence of a backlog from no loss,
//! flights far below both windows and the initial window, a flight that drains, and
//! Nagle off (docs/ANALYSIS.md "The sender's writes"). Each condition's own test is in that
//! module (its unit tests: a look-alike per condition).

use crate::common;
#[test]
fn ssh_session_output_is_the_applications_pace() {
    // Si-ren ssh.pcap conn 2 (review AL row 11): 1,055 data segments in 10.687–10.892 s,
    // median 388 B, every one PSH-ed, each acknowledged within 0.05–0.2 ms; the flight
    // never above 11,524 B (below 10 full segments) of a 124,480-B smallest window; no
    // loss; 307 of the 695 small segments left behind an unacknowledged small one (Nagle
    // off). Before: "The congestion window or the path took the largest share of the time
    // (58 %); the application 42 %".
    let Some(c) = common::corpus_connection("Si-ren__Deep-Packet-Inspection__ssh.pcap", 2) else { return };
    let d = &c.diagnosis;
    assert_eq!(d.limit, "application", "{}", d.text);
    assert!(d.text.starts_with("The sender had nothing queued (55 % of the time): 1041 of its 1055 segments ended a write"), "{}", d.text);
    assert!(d.shares.application > 0.95, "{:?}", d.shares);
}

#[test]
fn look_alikes_are_not_told_as_writes() {
    // A tiny window the flight fills (cisco mercury tls_sgt.pcap: flight 330 B = the
    // smallest window), a lossy VoIP stream (nDPI wa_voice.pcap: 8 re-sent segments)
    // and a bulk SSH fetch (corelight hassh zeek_test_pcaps #24, full segments): none is
    // told "nothing queued".
    for (name, id) in [
        ("cisco__mercury__unit_tests_pcaps_tls_sgt.pcap", None),
        ("ntop__nDPI__tests_cfgs_default_pcap_wa_voice.pcap", None),
        ("corelight__hassh__testing_Traces_ssh_zeek_test_pcaps.pcap", Some(24)),
    ] {
        let Some(conns) = common::corpus_connections(name) else { return };
        for c in conns.iter().filter(|c| id.is_none_or(|i| c.id == i)) {
            assert!(!c.diagnosis.text.contains("had nothing queued"), "{name} #{}: {}", c.id, c.diagnosis.text);
        }
    }
}
