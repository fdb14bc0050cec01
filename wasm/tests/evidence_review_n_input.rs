//! Review N's classes about the capture itself (session 30): a capture filtered to
//! payload says nothing about ACKs (C-NOACKS), and a clock that fills its ticks with
//! microseconds gives no round trip below its tick (C-RTT-ARTEFACT). The file held
//! twice (C-CLAMP) is in time_order.rs, the padding inside the IP length (C-PHANTOM) in
//! link_padding.rs.

use crate::common;

use serde_json::Value;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;

fn report(bytes: &[u8]) -> Value {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    serde_json::from_str(&s.report().to_json()).expect("report JSON")
}

#[test]
fn corpus_a_payload_only_capture_claims_nothing_that_rests_on_acks() {
    // nfstream tests/pcaps/bitcoin.pcap holds only data segments (the `payload-only`
    // warning: 637 of 637). Connection 2 read "192.168.1.142:55348 stopped answering for
    // 24 s during 609.729 s–633.865 s: the sender's timer re-sent 1 time … not one
    // acknowledged (a stopped host or stack …)" twice; frame 218 comes 183 µs after
    // 216 and the client's pure ACKs are simply not in the file (tshark: no segment
    // with tcp.len 0). Now no stall of it is a timeout or a wait on ACKs, and no outage
    // is told: the capture cannot tell them.
    let Some(bytes) = common::corpus("nfstream__nfstream__tests_pcaps_bitcoin.pcap") else { return };
    let r = report(&bytes);
    assert!(r["warnings"].as_array().unwrap().iter().any(|w| w["kind"] == "payload-only"));
    let c = &r["connections"][2];
    let text = c["diagnosis"]["text"].as_str().unwrap();
    for claim in ["stopped answering", " acknowledged", "retransmission timeout", "No answer came back", "wait on ACKs"] {
        assert!(!text.contains(claim), "{claim}: {text}");
    }
    // Session 32 (C-BLIND-CAPTURE): the capture holds 124 KiB of the 659 KiB the server
    // sent (conv,tcp: 134 kB from 74.89.181.229), so no limit is named. In 1 hole
    // (session 35, capture_loss.rs `Missed`): the two holes before frames 129 and 141
    // are filled by frames 148/149 and 157 (reordering), so the captured data is one run,
    // bytes 1–126,993, and the missing bytes one run, 126,993–674,715 (the client's ACK
    // at frame 636); "3 holes" counted the two filled ones.
    assert!(text.starts_with("The capture holds only 124 KiB of the 659 KiB 74.89.181.229:8333 sent (81.2 % never captured, in 1 hole"), "{text}");
    for d in 0..2 {
        for s in c["directions"][d]["stalls"].as_array().unwrap() {
            assert!(s["cause"] != "retransmission-timeout" && s["cause"] != "ack-wait", "{s}");
        }
    }
}

#[test]
fn corpus_a_clock_filling_its_ticks_gives_no_round_trip_below_them() {
    // kholia/my-pcaps VNC/03-vnc-pass1234-3.8.pcap: every step between frames is 0–3 µs
    // or 158 µs and more (201 steps: 22 of 0, 106 of 1–3 µs, the smallest above 158 µs;
    // tshark frame.time_delta), the SYN/SYN-ACK/ACK at .896466/.467/.468. Before: a
    // 1 µs clock and "With a path RTT of 2 µs that caps throughput at 262 Gbit/s". Now
    // the tick is 0.158 ms (capture/clock.rs rule 3), connection 3's round trip is
    // below it, and no cap is computed from it.
    let Some(bytes) = common::corpus("kholia__my-pcaps__VNC_03-vnc-pass1234-3.8.pcap") else { return };
    let r = report(&bytes);
    assert_eq!(r["capture"]["timestampResolutionMs"], 0.158);
    let c = &r["connections"][3];
    assert_eq!(c["pathRttMs"], Value::Null);
    let text = c["diagnosis"]["text"].as_str().unwrap();
    assert!(!text.contains("Gbit/s") && !text.contains("2 µs"), "{text}");
    assert!(text.contains("below the capture clock's 158 µs tick"), "{text}");
}
