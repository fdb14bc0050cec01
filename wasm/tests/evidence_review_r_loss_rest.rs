//! Review R (issue 39), the rest of its loss classes: the loss sentence's subject where
//! the data direction re-sent nothing (C-LOSS-SPAN-FROM-LAST-DATA, suricata-verify
//! filestore-5408), timeouts where the path RTT is unknown (packetlife gmail.pcapng.cap),
//! and the zero-window count the unjudged-window caveat quotes (Zeek 206_example_b).
//! Each number checked with tshark.
use crate::common;

/// Rule: a loss sentence names the direction whose data was re-sent, and its story
/// starts at the first lost send (the first transmission of a segment later re-sent).
/// A client-side capture: handshake (10 ms round trip); the client's 200-byte request
/// first sent at 20 ms, lost beyond the capture point, re-sent by its timer at 320 ms;
/// the server's answer, 3 × 1448 B at 330–332 ms, ACKed at 333 ms; the next request
/// first sent at 433 ms, lost, re-sent at 1.433 s, answered (1448 B) at 1.444 s. The
/// server re-sent nothing: the losses are the client's, both told (the first fell
/// before the server's first byte, outside the server's time), each from its first send.
#[test]
fn the_loss_sentence_names_the_side_whose_data_was_resent() {
    use tcpscope_core::analysis::AnalysisOptions;
    use tcpscope_core::session::analyze_bytes;
    use tcpscope_core::synth::*;
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    f.handshake(0, 10_000, Opts::new().mss(1460), Opts::new().mss(1460));
    f.data(C2S, 20_000, 200);
    let first = f.segments().last().unwrap().seq;
    f.data(C2S, 320_000, 200).seq(first);
    for k in 0..3 {
        f.data(S2C, 330_000 + k * 1_000, 1448);
    }
    f.push(C2S, 333_000);
    f.data(C2S, 433_000, 200);
    let second = f.segments().last().unwrap().seq;
    f.data(C2S, 1_433_000, 200).seq(second);
    f.data(S2C, 1_444_000, 1448);
    f.push(C2S, 1_445_000);
    let bytes = write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let c = &s.analysis().unwrap().connections[0];
    let t = &c.diagnosis.text;
    assert_eq!((c.directions[0].retransmissions, c.directions[0].rto_events, c.directions[1].retransmissions), (2, 2, 0), "{t}");
    assert!(
        t.starts_with(
            "Loss limited this flow, though 10.0.0.2:80 re-sent none of its 4 data segments: 10.0.0.1:40000's data went \
             unacknowledged and was re-sent (2 of its 4 data segments) — first sent at 0.020 s and re-sent by its \
             retransmission timer 300 ms later (0.320 s), first sent at 0.433 s and re-sent by its retransmission timer \
             1 s later (1.433 s); from its first data (0.330 s) on, 10.0.0.2:80 waited for it "
        ),
        "{t}"
    );
    assert!(!t.contains("the sender spent"), "{t}");
}

/// suricata-verify filestore-5408 connection 0 (172.16.133.54:64540 ↔ 74.121.139.112:80,
/// captured at the client). tshark: the client's GET (frames 5–6, 1460 + 145 B) first
/// sent at 0.0392 s, re-sent at 0.3396 s (10, 300.4 ms later, the timer's) and 0.3882 s
/// (12); the server's first data 14 at 0.4314 s; the next GET (18–19) first sent at
/// 1.2539 s, re-sent at 2.1487 s (29, 894.8 ms later) and 2.2296 s (31). The server's 6
/// data segments (14–16, 33–35) were never re-sent. Before: "0.0 % … (0 of 6 data
/// segments), and the sender spent 55 % of the time recovering from loss", the first
/// loss untold.
#[test]
fn fs5408_the_requests_were_lost_not_the_answers() {
    let Some(c) = common::corpus_connection("OISF__suricata-verify__tests_filestore-5408_input.pcap", 0) else { return };
    let t = &c.diagnosis.text;
    assert!(
        t.starts_with(
            "Loss limited this flow, though 74.121.139.112:80 re-sent none of its 6 data segments: \
             172.16.133.54:64540's data went unacknowledged and was re-sent (4 of its 8 data segments) — first sent \
             at 0.039 s and re-sent by its retransmission timer 300 ms later (0.340 s), first sent at 1.254 s and \
             re-sent by its retransmission timer 895 ms later (2.149 s); from its first data (0.431 s) on, \
             74.121.139.112:80 waited for it 55 % of the time, 1 s of it waiting on retransmission timeouts;"
        ),
        "{t}"
    );
}

/// gmail.pcapng.cap connection 3 (93.184.221.133:80 → 192.168.1.101:56668, captured at
/// the receiver mid-stream, no timestamps: path RTT unknown). tshark: the last SACK (56,
/// 2.9381 s, ack 11201, SACK 12601–15401), then only the receiver's keep-alive (307,
/// 13.010 s) and its answer (317); the re-send of 11201 at 21.6292 s (535) is 18.7 s
/// later: a timer's. Before: 6 fast retransmissions and no timeout.
#[test]
fn gmail_a_resend_after_18_s_of_quiet_is_a_timeout() {
    let Some(c) = common::corpus_connection("epiecs__packetlife-backup__pcaps_gmail.pcapng.cap", 3) else { return };
    let d = &c.directions[0];
    assert_eq!((d.retransmissions, d.rto_events, d.fast_retransmissions), (6, 1, 5));
    assert_eq!(d.rto_chains[0].start, 21.629196);
}

/// Zeek 206_example_b connection 0: the caveat's zero-window count is the report's
/// counter (Wireshark's tcp.analysis.zero_window: `tshark -Y tcp.analysis.zero_window`
/// gives 57; the RST with window 0 is not one: Wireshark skips SYN, FIN and RST segments,
/// and a reset ends the connection, so its window field closes nothing). Both read 57 here; the rule makes them one number.
#[test]
fn b206_the_zero_window_sentence_quotes_the_counter() {
    let Some(c) = common::corpus_connection("zeek__zeek__testing_btest_Traces_http_206_example_b.pcap", 0) else { return };
    assert_eq!(c.directions[0].zero_windows, 57);
    assert!(c.diagnosis.text.contains(": 57 zero-window advertisements (0.375–0.436 s, 1.349–1.363 s)."), "{}", c.diagnosis.text);
}
