//! The Wi-Fi strip's series (issue 17 item 3) on a generated radiotap capture with
//! exact answers: per 100 ms bin, the data direction's mean PHY rate and the share of
//! its frames sent with the 802.11 Retry bit (MAC retries count: they are airtime,
//! though the TCP analysis drops them as copies).

use tcpscope_core::analysis::{Analysis, AnalysisOptions};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use tcpscope_core::view::{ViewData, ViewEngine};

/// Handshake at 0; 10 server data segments every 20 ms from 100 ms: the first five at
/// VHT 80 MHz MCS 9 2 SS short GI (866.667 Mbit/s), the last five at HT MCS 7 20 MHz
/// long GI (65 Mbit/s); segments 1 and 6 are each sent twice (the radio's MAC retry,
/// Retry bit set, same sequence number). The client's frames go at 6 Mbit/s.
fn wifi_bytes() -> Vec<u8> {
    let mut f = Flow::new("192.168.1.20:50000", "192.168.1.1:80");
    f.handshake(0, 2_000, Opts::new().mss(1460), Opts::new().mss(1460));
    for i in 0..10 {
        f.data(S2C, 100_000 + i * 20_000, 1448);
    }
    let vht = RadioFields { vht: Some((0x0044, 0x04, 4, 0x92)), ..Default::default() };
    let ht = RadioFields { mcs: Some((0x07, 0x00, 7)), ..Default::default() };
    let legacy = RadioFields { rate: Some(12), ..Default::default() };
    let mut frames = Vec::new();
    for (n, (s, fr)) in f.segments().iter().zip(f.frames()).enumerate() {
        let data = s.payload_len > 0;
        let i = n.saturating_sub(3); // data segment index
        let radio = if !data { legacy.clone() } else if i < 5 { vht.clone() } else { ht.clone() };
        let radio = RadioFields { seq: n as u16, ..radio };
        frames.push(fr.clone().radio(radio.clone()));
        if data && (i == 1 || i == 6) {
            let mut again = fr.radio(RadioFields { retry: true, ..radio });
            again.ts_ns += 300_000; // 0.3 ms later
            frames.push(again);
        }
    }
    write_pcap(&frames, &Link::Radiotap { ht_control: false }, Endian::Little, TsResolution::Micro)
}

fn wifi_capture() -> Analysis {
    let session = analyze_bytes(&wifi_bytes(), AnalysisOptions::default(), 1 << 20);
    session.analysis().expect("analysed").clone()
}

/// e2e/fixtures/wifi-radiotap.pcap is this capture (the Playwright test of the strip);
/// regenerate with `UPDATE_FIXTURES=1 cargo test --test all view_wifi::`.
#[test]
fn e2e_fixture_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/fixtures/wifi-radiotap.pcap");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(path, wifi_bytes()).expect("write the fixture");
    }
    assert!(std::fs::read(path).ok() == Some(wifi_bytes()), "{path} is stale: UPDATE_FIXTURES=1 cargo test --test all view_wifi::");
}

#[test]
fn phy_rate_and_retry_share_per_bin() {
    let a = wifi_capture();
    assert_eq!(a.connections.len(), 1);
    // The two MAC retries are copies to TCP (capture.wifiRetries), not retransmissions.
    assert_eq!(a.capture.wifi_retries, 2);
    let mut engine = ViewEngine::new();
    let req = r#"{"generation":1,"connection":0,"series":"wifi","t0":0,"t1":0.29,"columns":300,"binSeconds":0.1}"#;
    let r: tcpscope_core::view::ViewResponse = serde_json::from_str(&engine.query_json(Some(&a), req)).unwrap();
    assert_eq!((r.error, r.direction, r.bin_seconds), (None, 1, Some(0.1)));
    let ViewData::Wifi(w) = r.data else { panic!("not a wifi answer") };
    // Bin 0 holds the SYN/ACK only (6 Mbit/s); bin 1: 5 VHT data frames + 1 retry
    // (1/6 retried); bin 2: 5 HT frames + 1 retry.
    assert_eq!(w.frames, vec![1, 6, 6]);
    assert_eq!(w.retry_share, vec![Some(0.0), Some(1.0 / 6.0), Some(1.0 / 6.0)]);
    let rates: Vec<Option<f64>> = w.phy_rate_mbps.iter().map(|r| r.map(|x| (x * 1000.0).round() / 1000.0)).collect();
    assert_eq!(rates, vec![Some(6.0), Some(866.667), Some(65.0)]);
    // The client's direction: handshake ACK at 2 ms (bin 0) only, 6 Mbit/s.
    let req0 = r#"{"generation":1,"connection":0,"series":"wifi","t0":0,"t1":0.29,"columns":300,"binSeconds":0.1,"direction":0}"#;
    let r0: tcpscope_core::view::ViewResponse = serde_json::from_str(&engine.query_json(Some(&a), req0)).unwrap();
    let ViewData::Wifi(w0) = r0.data else { panic!() };
    assert_eq!((w0.frames, w0.phy_rate_mbps), (vec![2, 0, 0], vec![Some(6.0), None, None]));
}

#[test]
fn a_capture_without_radio_headers_answers_empty_bins_with_a_note() {
    let mut f = Flow::new("10.0.0.1:1", "10.0.0.2:2");
    f.data(C2S, 0, 100);
    let s = analyze_bytes(&write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro), AnalysisOptions::default(), 1 << 20);
    let mut engine = ViewEngine::new();
    let r: tcpscope_core::view::ViewResponse = serde_json::from_str(&engine.query_json(s.analysis(), r#"{"generation":1,"connection":0,"series":"wifi","t0":0,"t1":0.05,"columns":10,"binSeconds":0.1}"#)).unwrap();
    assert!(r.notes.iter().any(|n| n.contains("no 802.11 radio header")));
    let ViewData::Wifi(w) = r.data else { panic!() };
    assert_eq!((w.frames, w.phy_rate_mbps, w.retry_share), (vec![0], vec![None], vec![None]));
}
