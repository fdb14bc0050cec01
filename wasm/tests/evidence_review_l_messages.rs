//! Issue 39, "Evidence before every claim", review L class C-MSG: an exchange whose
//! bytes moved in a few bulk bursts between small requests read "Each burst between
//! the pauses was a message (median 228 B, under two full segments)". Now the text says
//! where the bytes went; interactive sessions (SSH keystrokes, RDP) keep the message
//! reading, and the pauses stay unavoidable in both. Checked on the public captures that
//! showed them (`TCPSCOPE_CORPUS`; absent, they pass).

use crate::common;



#[test]
fn bulk_copies_between_small_requests_say_where_the_bytes_went() {
    // tshark: smb.pcap frames 27–109 (7.0489–7.0600 s, the Create request and one SMB2
    // write of ~741 KB); ssh-scp-1050.pcap frames 155–404 (~300 KB at 15.98 s) and
    // 425–1000 (~744 KB at 46.77 s) in 1460-B segments µs apart; the SMB 445 upload's
    // 1.6 MB write in 63 KB TSO frames 72–~290 (3.1742–3.22 s); Jupiter.pcap's 769 KB in
    // frames 102–~150 at 0.447 s.
    // smb.pcap's segments are 1,448 B (its frames 2,896, 4,344 and 5,792 B: GRO/TSO
    // frames of 2–4; both SYNs 1460 with timestamps): 740 KB / 1,448 = 511, not the
    // 521 of the 1,420-byte unit the peer's MSS less 40 gave (docs/ANALYSIS.md "Full
    // segment"). Jupiter.pcap's are 1,460 B (no timestamps): 769 KB / 1,460 = 527, not
    // 542. smb.pcap's burst is the write itself, frames 30–106 (7.0572–7.0591 s): the
    // Create request and its answer before it (27, 28) and the Close after it (109) are
    // messages (chunk_turns.rs `main_chunk`; it had read "from 7.049 s to 7.060 s").
    for (name, id, said) in [
        ("star12234__smb_reassemble__smb.pcap", 0, "Over 99 % of the bytes moved in 1 burst of at least 10 full segments (723 KiB, 511 segments of 1.4 KiB, from 7.057 s to 7.059 s)"),
        ("FoxIO-LLC__ja4__pcap_ssh-scp-1050.pcap", 0, "99 % of the bytes moved in 2 bursts of at least 10 full segments (the largest 696 KiB"),
        ("realjimmy__sample-captures__community-shares_others_微软 SMB 445 上传抓包 v2.pcap", 1, "(1.5 MiB, 1095 segments of 1.4 KiB, from 3.174 s to 3.218 s)"),
        ("ctfs__write-ups-2014__nuit-du-hack-ctf-qualifications_data-extraction_Jupiter.pcap", 1, "98 % of the bytes moved in 15 bursts of at least 10 full segments (the largest 751 KiB, 527 segments of 1.4 KiB, from 0.447 s to 0.464 s)"),
    ] {
        let Some(c) = common::corpus_connection(name, id) else { return };
        let t = &c.diagnosis.text;
        assert!(t.contains(said), "{name}: {t}");
        assert!(!t.contains("was a message") && !t.contains("Had the application"), "{name}: {t}");
        // Session 33 (answer_waits.rs): where the sender, the accepting end, sat on
        // messages it had acknowledged, that time is said as its own. Jupiter.pcap's
        // handler (192.168.130.105:4444, the SYN/ACK's sender, frame 100) acknowledged the
        // victim's 202-byte output (frame 1087 at 149.678 s, ACK frame 1088) and sent its
        // next command only at 209.784 s (frame 1110): its operator's 60 s.
        let own = t.contains("itself took");
        assert_eq!(own, name.contains("Jupiter"), "{name}: {t}");
        assert!(!t.contains("would have taken about") || own, "{name}: {t}");
    }
}

#[test]
fn gso_frames_are_no_full_segments_in_the_words() {
    // baseline_browse.pcapng connection 13: no handshake, GSO frames up to 10,293 B
    // (tshark: 6,369–6,378-byte frames); 6.4 KiB is 4.5 segments of 1,460 B.
    let Some(c) = common::corpus_connection("ansgit1__02-wireshark-labs__lab-01-baseline-browse_baseline_browse.pcapng", 13) else { return };
    let t = &c.diagnosis.text;
    assert!(t.contains("(median 6.4 KiB, 4.5 full segments of 1.4 KiB, under two of the largest frames its host handed the network)"), "{t}");
    assert!(!t.contains("under two full segments"), "{t}");
}

#[test]
fn interactive_sessions_keep_the_message_reading() {
    // Keystrokes (FoxIO ssh.pcapng 0), an RDP session (zeek rdp-to-ssl 1, realjimmy
    // RDP TPKT 0): no bulk holds most bytes; no counterfactual either way.
    for (name, id) in [
        ("FoxIO-LLC__ja4__pcap_ssh.pcapng", 0),
        ("zeek__zeek__testing_btest_Traces_rdp_rdp-to-ssl.pcap", 1),
        ("realjimmy__sample-captures__community-shares_others_RDP-远程桌面-TPKT.pcap", 0),
    ] {
        let Some(c) = common::corpus_connection(name, id) else { return };
        let t = &c.diagnosis.text;
        assert!(t.contains("Each burst between the pauses was a message"), "{name}: {t}");
        assert!(!t.contains("would have taken about"), "{name}: {t}");
    }
}
