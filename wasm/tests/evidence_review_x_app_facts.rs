//! Application facts (docs/ANALYSIS.md "Application facts"; verdict/app_facts): an FTP
//! control connection's transfers (review X C-CONTROL-CHANNEL-UNTOLD, zeek
//! ftp/cwd-navigation.pcap) and an SMTP client that did not use the PIPELINING the
//! server offered (review X "smtp", CESNET ipfixprobe smtp.pcap).

use crate::common;
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::{ACK, PSH, SYN};
use tcpscope_core::synth::{write_pcap, Endian, Frame, Link, Segment, TsResolution};

/// A scripted connection seen at the client: each message is acknowledged by the next
/// one of the other side (or by a pure ACK 1 ms later when `ack` is set).
struct Script {
    client: &'static str,
    server: &'static str,
    seq: [u32; 2],
    frames: Vec<Frame>,
}

impl Script {
    fn open(client: &'static str, server: &'static str, t_ms: f64, rtt_ms: f64) -> Script {
        let mut s = Script { client, server, seq: [1000, 5000], frames: Vec::new() };
        let ns = |ms: f64| (ms * 1e6) as i64;
        s.frames.push(Segment::new(client, server).at_ns(ns(t_ms)).seq(999).flags(SYN).frame());
        s.frames.push(Segment::new(server, client).at_ns(ns(t_ms + rtt_ms)).seq(4999).ack(1000).flags(SYN | ACK).frame());
        s.frames.push(Segment::new(client, server).at_ns(ns(t_ms + rtt_ms + 0.1)).seq(1000).ack(5000).frame());
        s
    }

    /// `from_server`'s message `bytes` at `t_ms`.
    fn say(&mut self, t_ms: f64, from_server: bool, bytes: &[u8]) -> &mut Self {
        let (src, dst, d) = if from_server { (self.server, self.client, 1) } else { (self.client, self.server, 0) };
        let seg = Segment::new(src, dst).at_ns((t_ms * 1e6) as i64).seq(self.seq[d]).ack(self.seq[1 - d]).flags(ACK | PSH).payload_bytes(bytes).frame();
        self.frames.push(seg);
        self.seq[d] += bytes.len() as u32;
        self
    }

    /// A pure ACK of everything the other side sent, at `t_ms`.
    fn ack(&mut self, t_ms: f64, from_server: bool) -> &mut Self {
        let (src, dst, d) = if from_server { (self.server, self.client, 1) } else { (self.client, self.server, 0) };
        self.frames.push(Segment::new(src, dst).at_ns((t_ms * 1e6) as i64).seq(self.seq[d]).ack(self.seq[1 - d]).frame());
        self
    }
}

fn analyse(mut frames: Vec<Frame>) -> Vec<ConnectionSummary> {
    frames.sort_by_key(|f| f.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = tcpscope_core::session::analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections.clone()
}

/// An FTP session of two RETRs over an 80-ms path, the server answering at once: each
/// reply 80 ms after its command; the files take 1.0 s and 0.5 s between "150" and
/// "226". Frames: 1–3 handshake, 4 "220", 5 USER, 6 "331", 7 PASS, 8 "230", 9 PASV,
/// 10 "227 … (10,0,0,2,195,80)" (port 195·256 + 80 = 50000), 11 RETR, 12 "150",
/// 13 the client's ACK, 14 "226" at 1.484 s (1.000 s after 12), 15 ACK, 16 PASV,
/// 17 "227 … 195,81" (50001), 18 RETR, 19 "150", 20 ACK, 21 "226" (0.500 s after 19),
/// 22 QUIT, 23 "221".
fn ftp() -> Script {
    let mut s = Script::open("10.0.0.1:40000", "10.0.0.2:21", 0.0, 80.0);
    s.say(160.0, true, b"220 ready\r\n").say(161.0, false, b"USER anonymous\r\n").say(241.0, true, b"331 send password\r\n");
    s.say(242.0, false, b"PASS x@y\r\n").say(322.0, true, b"230 logged in\r\n").say(323.0, false, b"PASV\r\n");
    s.say(403.0, true, b"227 Entering Passive Mode (10,0,0,2,195,80).\r\n").say(404.0, false, b"RETR a.gz\r\n");
    s.say(484.0, true, b"150 Opening BINARY mode data connection for a.gz\r\n").ack(485.0, false);
    s.say(1484.0, true, b"226 Transfer complete\r\n").ack(1485.0, false).say(1486.0, false, b"PASV\r\n");
    s.say(1566.0, true, b"227 Entering Passive Mode (10,0,0,2,195,81).\r\n").say(1567.0, false, b"RETR b.gz\r\n");
    s.say(1647.0, true, b"150 Opening BINARY mode data connection for b.gz\r\n").ack(1648.0, false);
    s.say(2147.0, true, b"226 Transfer complete\r\n").say(2148.0, false, b"QUIT\r\n").say(2228.0, true, b"221 bye\r\n");
    s
}

#[test]
fn ftp_transfers_on_data_connections_absent_from_the_capture() {
    let conns = analyse(ftp().frames);
    assert_eq!(conns.len(), 1);
    let text = &conns[0].diagnosis.text;
    // 2 transfers: 1.000 s (frame 12 at 0.484 s → frame 14 at 1.484 s) + 0.500 s.
    assert!(
        text.contains("The payload shows an FTP control connection (RFC 959): 2 file transfers ran between the server's preliminary reply (150, \"opening data connection\") and its completion (226), 1.5 s in all (the longest 1 s, frame 12 → frame 14), time of the transfers, not of the application; their bytes went over data connections that are not in this capture (the replies and commands named data ports 50000, 50001), so what limited the files' transfer cannot be read here."),
        "{text}"
    );
}

#[test]
fn ftp_data_connection_in_the_capture_is_named() {
    let mut s = ftp();
    // The first file's data connection: the client to the announced port 50000.
    let mut d = Script::open("10.0.0.1:45000", "10.0.0.2:50000", 410.0, 80.0);
    d.say(490.0, true, &[b'x'; 1000]).ack(491.0, false);
    s.frames.extend(d.frames);
    let conns = analyse(s.frames);
    assert_eq!(conns.len(), 2);
    let text = &conns[0].diagnosis.text;
    // Two data ports named (one per file), only the first one's connection captured: the
    // sentence names it and says the other is absent (review AC W4: it had sent both
    // transfers to the one present).
    assert!(text.contains("of the 2 data ports the replies and commands named, 1 had its connection in this capture (connection 1, whose own report says what limited it) and 1 did not, so what limited those transfers cannot be read here."), "{text}");
}

#[test]
fn no_ftp_sentence_without_reply_codes_proving_it() {
    // Port 21 alone proves nothing: the same exchange without reply codes.
    let mut s = Script::open("10.0.0.1:40000", "10.0.0.2:21", 0.0, 80.0);
    for i in 0..6 {
        let t = 160.0 + 160.0 * f64::from(i);
        s.say(t, true, b"hello there\r\n").say(t + 1.0, false, b"RETR a.gz\r\n");
    }
    let conns = analyse(s.frames);
    assert!(!conns[0].diagnosis.text.contains("FTP"), "{}", conns[0].diagnosis.text);
}

/// An SMTP session over a 100-ms path: the server offers PIPELINING (frame 6), the
/// client sends MAIL (7), RCPT (9) and DATA (11) each after the previous reply, 100.5 ms
/// later (the server's 0.5 ms to answer): 2 commands (RCPT, DATA) waited for a reply a
/// group would not have needed, 201 ms in all; the saving is 2 × the 100-ms path RTT (the
/// server's own time remains).
fn smtp(grouped: bool) -> Vec<ConnectionSummary> {
    let mut s = Script::open("10.0.0.1:40001", "10.0.0.3:25", 0.0, 100.0);
    s.say(200.0, true, b"220 mx ESMTP\r\n").say(201.0, false, b"EHLO me\r\n");
    s.say(301.0, true, b"250-mx Hello me\r\n250-SIZE 1000000\r\n250-PIPELINING\r\n250 HELP\r\n");
    let t = if grouped {
        s.say(302.0, false, b"MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\n").say(402.0, true, b"250 OK\r\n250 Accepted\r\n354 go on\r\n");
        403.0
    } else {
        s.say(302.0, false, b"MAIL FROM:<a@b>\r\n").say(402.5, true, b"250 OK\r\n").say(403.5, false, b"RCPT TO:<c@d>\r\n");
        s.say(504.0, true, b"250 Accepted\r\n").say(505.0, false, b"DATA\r\n").say(605.5, true, b"354 go on\r\n");
        606.5
    };
    s.say(t, false, &[b'm'; 1000]).say(t + 0.1, false, b"\r\n.\r\n").say(t + 100.2, true, b"250 OK id=1\r\n");
    s.say(t + 101.0, false, b"QUIT\r\n").say(t + 201.0, true, b"221 bye\r\n").ack(t + 202.0, false);
    analyse(s.frames)
}

#[test]
fn smtp_pipelining_offered_and_unused_names_the_saving() {
    let conns = smtp(false);
    let text = &conns[0].diagnosis.text;
    assert!(
        text.contains("The server offered PIPELINING in its EHLO reply (frame 6; RFC 2920), yet the client sent its next RCPT or DATA only after the previous command's reply, 2 times (201 ms in all, the first frame 7 → frame 8): sent as one group with MAIL, they would have saved about 2 round trips, ≈ 200 ms at the path RTT of 100 ms."),
        "{text}"
    );
}

#[test]
fn smtp_client_that_grouped_its_commands_gets_no_saving() {
    let conns = smtp(true);
    assert!(!conns[0].diagnosis.text.contains("PIPELINING"), "{}", conns[0].diagnosis.text);
}

/// zeek `ftp/cwd-navigation.pcap`: one control connection, no data connection in the
/// capture (tshark -z conv,tcp: one conversation). Its first transfer: "150 Opening
/// BINARY mode data connection for 720962-99999-2015.gz" frame 41 at 0.936 s → "226
/// Transfer complete" frame 43 at 1.224 s; PASV reply 38 names port 243·256 + 251 = 62459.
#[test]
fn corpus_ftp_control_channel() {
    let Some(c) = common::corpus_connection("zeek__zeek__testing_btest_Traces_ftp_cwd-navigation.pcap", 0) else { return };
    let text = &c.diagnosis.text;
    assert!(text.contains("The payload shows an FTP control connection (RFC 959): "), "{text}");
    assert!(text.contains("their bytes went over data connections that are not in this capture (the replies and commands named data ports 62459, "), "{text}");
}

/// CESNET ipfixprobe `smtp.pcap` (review X "smtp"): PIPELINING offered in frame 9; MAIL
/// 16 → 250 17 (342 ms), RCPT 18 → 250 19 (362 ms), DATA 20: two waits a group would
/// have removed. The sentence is said where turns took the largest share.
#[test]
fn corpus_smtp_pipelining() {
    let Some(c) = common::corpus_connection("CESNET__ipfixprobe__tests_functional_inputs_smtp.pcap", 0) else { return };
    let s = &c.diagnosis.shares;
    let turns_lead = [s.receive_window, s.loss, s.application, s.other].iter().all(|&x| s.turns >= x);
    let text = &c.diagnosis.text;
    assert_eq!(text.contains("The server offered PIPELINING in its EHLO reply (frame 9; RFC 2920), yet the client sent its next RCPT or DATA only after the previous command's reply, 2 times (705 ms in all, the first frame 16 → frame 17)"), turns_lead, "{text}");
}

/// arkime `smtp-rcpt-553.pcap`: MAIL (frame 9, 0.371 s) → 250 (10, 0.410 s), RCPT (12):
/// one wait of 39 ms, shorter than the 72-ms path RTT (the reply came sooner than a
/// round trip), so the saving is the wait itself, never the round trip.
#[test]
fn corpus_smtp_saving_at_most_the_waits() {
    let Some(c) = common::corpus_connection("arkime__arkime__tests_pcap_smtp-rcpt-553.pcap", 0) else { return };
    let text = &c.diagnosis.text;
    if text.contains("PIPELINING") {
        assert!(text.contains("1 time (39 ms in all, the first frame 9 → frame 10): sent as one group with MAIL, they would have saved about 1 round trip, ≈ 39 ms, the waits themselves."), "{text}");
    }
}

/// A client's tunnel through an explicit proxy (RFC 9110 §9.3.6) over a 20-ms path: frames
/// 1–3 handshake (SYN/ACK 20 ms after the SYN), 4 "CONNECT example.com:443" at 21 ms, 5 the
/// proxy's "HTTP/1.1 200" at 121 ms — 100 ms, of which 80 ms beyond the round trip were
/// the proxy's own connection to the far host — then the tunnel: 6 the client's request,
/// 7 an "HTTP/1.1 200 OK" of the far server (tunnelled cleartext HTTP: not the proxy's).
/// `refused`: the proxy first answers 407 (frame 5) and the client asks again (frame 6,
/// answered 200 in frame 7, 100 ms later).
fn proxy(refused: bool) -> Vec<ConnectionSummary> {
    let mut s = Script::open("10.0.0.1:40000", "10.0.0.9:3128", 0.0, 20.0);
    let connect = b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";
    let mut t = 21.0;
    if refused {
        s.say(t, false, connect).say(t + 21.0, true, b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n");
        t += 22.0;
    }
    s.say(t, false, connect).say(t + 100.0, true, b"HTTP/1.1 200 Connection established\r\n\r\n");
    s.say(t + 101.0, false, b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").say(t + 201.0, true, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
    s.ack(t + 202.0, false);
    analyse(s.frames)
}

#[test]
fn proxy_tunnel_names_the_proxy_and_its_far_connection() {
    let conns = proxy(false);
    let text = &conns[0].diagnosis.text;
    // 121 − 21 = 100 ms from the CONNECT to the 200; the path RTT is the handshake's 20 ms,
    // so 80 ms were the proxy's own (its connection to example.com).
    assert!(
        text.contains("The payload shows a tunnel through an HTTP proxy (RFC 9110 §9.3.6): the client asked 10.0.0.9:3128 to CONNECT to port 443 (frame 4) and the proxy answered 200 100 ms later (frame 5), 80 ms beyond the path's 20 ms round trip: at least that long was the proxy's own, its connection to the far host (a name lookup where it needed one, then the far path's SYN → SYN/ACK at least). The round trips measured on this connection end at the proxy, not at the far server, and every answer through the tunnel also crossed the proxy's path to the server and back."),
        "{text}"
    );
}

#[test]
fn proxy_tunnel_after_a_refused_connect_names_the_answered_one() {
    let conns = proxy(true);
    let text = &conns[0].diagnosis.text;
    // The 407 (frame 5) refused the first CONNECT (frame 4); the second (frame 6, at
    // 43 ms) had its 200 in frame 7, 100 ms later.
    assert!(text.contains("the client asked 10.0.0.9:3128 to CONNECT to port 443 (frame 6) and the proxy answered 200 100 ms later (frame 7), 80 ms beyond"), "{text}");
    assert_eq!(text.matches("tunnel through an HTTP proxy").count(), 1, "{text}");
}

#[test]
fn no_tunnel_without_a_connect_answered_2xx() {
    // Plain HTTP: status lines without a CONNECT prove no proxy.
    let mut s = Script::open("10.0.0.1:40000", "10.0.0.9:80", 0.0, 20.0);
    s.say(21.0, false, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").say(141.0, true, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").ack(142.0, false);
    assert!(!analyse(s.frames)[0].diagnosis.text.contains("proxy"));
    // A CONNECT refused (407) and not asked again: no tunnel.
    let mut s = Script::open("10.0.0.1:40000", "10.0.0.9:3128", 0.0, 20.0);
    s.say(21.0, false, b"CONNECT a:443 HTTP/1.1\r\n\r\n").say(42.0, true, b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n").ack(43.0, false);
    assert!(!analyse(s.frames)[0].diagnosis.text.contains("tunnel"));
}

/// Corpus captures of explicit proxies whose CONNECT and 2xx Wireshark dissects
/// (`tshark -Y 'http.request.method==CONNECT || http.response.code'`): (name, sentence part).
const PROXY_CAPTURES: [(&str, &str); 4] = [
    // PCAPdroid's test capture (review AB "droid"): CONNECT frame 4 at 10.573 ms, 200 frame 6
    // at 46.470 ms: 36 ms; the path RTT 8.2 ms (the SYN/ACK came 10.2 ms after the SYN).
    (
        "emanuele-f__PCAPdroid__app_src_main_jni_tests_pcap_http_proxy.pcap",
        "the client asked 85.25.246.38:8080 to CONNECT to port 443 (frame 4) and the proxy answered 200 36 ms later (frame 6), 28 ms beyond the path's 8.2 ms round trip",
    ),
    // A corporate proxy: CONNECT frame 4 at 2.8 ms, 200 frame 6 at 59.2 ms (56 ms) on a 2.6 ms path.
    ("OISF__suricata-verify__tests_bug-2430_backwards.pcap", "the client asked 10.123.173.114:8080 to CONNECT to port 443 (frame 4) and the proxy answered 200 56 ms later (frame 6), 54 ms beyond the path's 2.6 ms round trip"),
    // A proxy on [::1]: 200 at 120.9 ms, 121 ms after the CONNECT at 0.35 ms.
    ("realjimmy__sample-captures__zeek-samples_http_connect-with-header.trace", "the client asked [::1]:80 to CONNECT to port 443 (frame 5) and the proxy answered 200 121 ms later (frame 7), 121 ms beyond"),
    // The 200 (frame 5) came 13.6 ms after the CONNECT, within the 14 ms the SYN/ACK took:
    // nothing beyond the round trip is named.
    ("OISF__suricata-verify__tests_bug-2769_issue_no_icmp.pcap", "the client asked 3.235.60.34:8080 to CONNECT to port 443 (frame 4) and the proxy answered 200 14 ms later (frame 5). The round trips"),
];

#[test]
fn proxy_tunnels_of_the_corpus() {
    for (name, part) in PROXY_CAPTURES {
        let Some(conns) = common::corpus_connections(name) else { continue };
        let text = &conns[0].diagnosis.text;
        assert!(text.contains(part), "{name}: {text}");
    }
    // PCAPdroid's download came through the tunnel: the proxy's answer waits (611 ms, the
    // longest frame 209 → 211) are the far server's and the far path's, not the proxy's
    // application's (answer_waits.rs's words rewritten, its numbers kept).
    if let Some(conns) = common::corpus_connections(PROXY_CAPTURES[0].0) {
        let text = &conns[0].diagnosis.text;
        assert!(text.contains("85.25.246.38:8080 took 611 ms of the pauses to answer messages of 194.247.5.7:57556 it had received in full and acknowledged (the longest 63 ms: frame 209 at 1.476 s → frame 211 at 1.549 s, less the 10 ms round trip between the capture point and 85.25.246.38:8080): answers relayed through the proxy's tunnel, so time of the far server and of the proxy's path to it and back, not of the proxy's own application."), "{text}");
        assert!(!text.contains("time of its application"), "{text}");
    }
    // The proxy's answer is not in this capture (CONNECT in frame 4, nothing after): no tunnel said.
    if let Some(conns) = common::corpus_connections("OISF__suricata-verify__tests_bug-2512_sample_10.62.112.41_62227.pcap") {
        assert!(conns.iter().all(|c| !c.diagnosis.text.contains("tunnel through")));
    }
}

/// nDPI `http_connect.pcap`, captured on the proxy itself (review AE W1): the client's
/// CONNECT (frame 4), the proxy's own SYN → SYN/ACK to the server (frames 8 → 9), its
/// 200 (frame 11), the ClientHello relayed out (frame 12 → 14) and the server's answer
/// relayed back (frame 16 → 24). The relay chain names the far leg's frames; the proxy
/// tunnel's generic rewrite must not replace that, nor say the far connection is unseen.
#[test]
fn a_proxy_whose_far_leg_is_captured_keeps_the_relay_chains_frames() {
    let Some(c) = common::corpus_connection("ntop__nDPI__tests_cfgs_default_pcap_http_connect.pcap", 0) else { return };
    let text = &c.diagnosis.text;
    assert!(text.contains("passed it on over connection 1 (192.168.1.146:35968 → 151.101.2.132:443, frame 12 → frame 14, 76 µs)"), "{text}");
    assert!(text.contains("(frame 16 at 0.031 s → frame 24 at 0.032 s), so the 16 ms wait was the far leg's (connection 1)"), "{text}");
    assert!(!text.contains("answers relayed through the proxy's tunnel"), "{text}");
    assert!(!text.contains("does not show"), "{text}");
}
