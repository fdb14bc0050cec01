//! Issue 39, review V class C-CAPTURE-COPY-AS-RETRANSMISSION: one datagram logged twice
//! in a way the duplicate filter did not see, read as a retransmission.
//!
//! - Segmentation offload (offload_pieces.rs): a Windows capture logs each LSO
//!   super-frame and then the MSS-sized pieces the NIC cut it into, IPv4 IDs id, id+1,
//!   … (corelight PetitPotam `UnPatchedDCOpenFileRaw.pcapng` connection 41: frame 797,
//!   8,221 B, ID 0x9e40, then 799–804, IDs 0x9e40–0x9e45, 0.29 ms later). Before: 43
//!   "fast retransmissions", loss share 3 %, a "loss 18 ms" saving, 122,611 B sent; the
//!   server sent no duplicate ACK and no SACK.
//! - A tap on both sides of a router (duplicates.rs, "further along"): each datagram at
//!   TTL 128 and again at TTL 127, same ID. A direction's first datagram, its ID not yet
//!   seen to change, was a copy only within 2 ms (gopacket `cip.pcap`: frames 3/4, ID
//!   0x88e9, 12.3 ms apart): the first stall read "retransmission-timeout … tail loss
//!   probe of 80 bytes at 0.022 s".

use crate::common;

use tcpscope_core::analysis::stalls::cause::StallCause;
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::decode::tcp_flags::{ACK, PSH};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

const PETIT: &str = "corelight__PetitPotam__testing_Traces_UnPatchedDCOpenFileRaw.pcapng";
const CIP: &str = "gopacket__gopacket__layers_testdata_cip.pcap";

/// The connections and the duplicate-frame count of `f`'s segments, written in time order.
fn analyze(f: &Flow) -> (Vec<ConnectionSummary>, u64, Vec<String>) {
    let mut segments = f.segments().to_vec();
    segments.sort_by_key(|s| s.ts_ns);
    let frames: Vec<Frame> = segments.iter().map(Segment::frame).collect();
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    (a.connections.clone(), a.capture.duplicate_frames, a.warnings.iter().map(|w| w.message.clone()).collect())
}

/// An upload captured on a Windows sender whose capture driver logs each LSO
/// super-frame and then its pieces: a 200-B request, then one 8,640-B super-frame
/// (ID 0x9e40) at 40 ms and its six 1,440-B pieces (IDs 0x9e40–0x9e45) 0.3 ms later;
/// the receiver, 16 ms away, ACKs every second piece.
fn lso_upload() -> Flow {
    let mut f = Flow::new("192.168.0.85:57207", "51.105.71.136:443");
    f.handshake(0, 16_000, Opts::new().mss(1440), Opts::new().mss(1440));
    let ids = [0x9e39, 0x27d6, 0x9e3a];
    for (s, id) in f.segments_mut().iter_mut().zip(ids) {
        s.ip_id = id;
    }
    f.data(C2S, 17_000, 200).ip_id(0x9e3b).ttl(128);
    f.push(S2C, 33_000).ip_id(0x27d7);
    let base = f.data(C2S, 40_000, 8640).ip_id(0x9e40).ttl(128).seq;
    for k in 0..6u32 {
        let flags = if k == 5 { ACK | PSH } else { ACK };
        f.push(C2S, 40_300).seq(base + 1440 * k).payload(1440).flags(flags).ip_id(0x9e40 + k as u16).ttl(128);
    }
    for k in 1..=3u32 {
        f.push(S2C, 56_200 + 100 * i64::from(k)).ack(base + 2880 * k).ip_id(0x27d7 + k as u16);
    }
    f
}

#[test]
fn the_pieces_of_a_logged_lso_super_frame_are_not_retransmissions() {
    let (conns, duplicates, warnings) = analyze(&lso_upload());
    let up = &conns[0].directions[0];
    // (Before, main 493943a: 0 duplicate frames, 6 "fast retransmissions", 17,480 B.)
    // The six pieces are the super-frame's bytes again: left out, so nothing was
    // re-sent (the receiver sent no duplicate ACK: a fast retransmission could not
    // exist), and the bytes sent are 200 + 8,640 once, not 200 + 2 × 8,640.
    assert_eq!(duplicates, 6);
    assert_eq!((up.retransmissions, up.fast_retransmissions, up.payload_bytes), (0, 0, 8_840));
    assert!(warnings.iter().any(|w| w.contains("6 of them the pieces a network card cut")), "{warnings:?}");
}

/// An EtherNet/IP-like poll on a tap across a router: the HMI's 58-B request every
/// 30 ms, the PLC's 80-B answer 10 ms later, each seen at TTL 128 and again at TTL 127
/// 0.3 ms later, except the PLC's first answer, whose copy comes 12.3 ms later (cip
/// frames 3/4), at TTL `first_copy_ttl`.
fn router_poll(first_copy_ttl: u8) -> Flow {
    let mut f = Flow::new("10.200.1.18:2430", "10.50.1.54:44818");
    let (mut hmi, mut plc) = (0x9af6u16, 0x88e9u16);
    for i in 0..5i64 {
        let t = 30_000 * i;
        let req = f.data(C2S, t, 58).ip_id(hmi).ttl(128).clone();
        f.push(C2S, t + 356).seq(req.seq).payload(58).flags(ACK | PSH).ip_id(hmi).ttl(127);
        let ans = f.data(S2C, t + 9_772, 80).ip_id(plc).ttl(128).clone();
        let (late, ttl) = if i == 0 { (12_298, first_copy_ttl) } else { (300, 127) };
        f.push(S2C, t + 9_772 + late).seq(ans.seq).ack(ans.ack).payload(80).flags(ACK | PSH).ip_id(plc).ttl(ttl);
        (hmi, plc) = (hmi + 1, plc + 1);
    }
    f
}

#[test]
fn a_first_answer_seen_again_one_router_on_is_no_tail_loss_probe() {
    // 5 polls, every datagram twice: 10 copies, no retransmission, 5 × 80 B answered,
    // and no timeout stall (before, main 493943a: 9 copies, 1 retransmission — counted
    // "fast" although the HMI sent no duplicate ACK — and 480 B; in cip the same copy
    // made the first stall a "retransmission-timeout" ended by a "tail loss probe").
    let (conns, duplicates, _) = analyze(&router_poll(127));
    let plc = &conns[0].directions[1];
    assert_eq!(duplicates, 10);
    assert_eq!((plc.retransmissions, plc.tail_loss_probes, plc.rto_events, plc.payload_bytes), (0, 0, 0, 400));
    assert!(plc.stalls.iter().all(|s| s.cause != StallCause::RetransmissionTimeout));
    // At the same TTL nothing says a router lay between the two sightings, and a stack
    // that keeps the ID in its resends (duplicates.rs) could have sent it again: the
    // 12.3-ms copy stays a re-send, the rest are copies.
    let (conns, duplicates, _) = analyze(&router_poll(128));
    assert_eq!((duplicates, conns[0].directions[1].retransmissions), (9, 1));
}

#[test]
fn petit_and_cip_count_each_datagram_once() {
    // petit connection 41 (tshark: client data 1–62462, its FIN at 62462; no duplicate
    // ACK or SACK from 51.105.71.136): 43 LSO pieces left out besides the 17 frames
    // logged twice outright (SYN 776/777, ClientHello 782/783, …).
    if let Some(c) = common::corpus_connection(PETIT, 41) {
        let up = &c.directions[0];
        assert_eq!((up.retransmissions, up.fast_retransmissions, up.payload_bytes), (0, 0, 62_461));
        assert_eq!(c.diagnosis.shares.loss, 0.0);
    }
    if let Some(bytes) = common::corpus(PETIT) {
        let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
        assert_eq!(s.analysis().expect("analysed").capture.duplicate_frames, 60);
    }
    // cip connection 0: frame 4 (ID 0x88e9, TTL 127, 12.3 ms after frame 3) is a copy;
    // the PLC's first stall is the application's. Its 7 retransmissions left are not
    // copies: the true re-send 18899 (new ID) and first sightings past a hole. (Segments
    // the capture first saw after the peer had acknowledged them with the ID due — 1617
    // — are late sightings since session 36: evidence_review_v_late_sightings.rs; 35 before.)
    if let Some(c) = common::corpus_connection(CIP, 0) {
        let plc = &c.directions[1];
        assert_eq!(plc.retransmissions, 7);
        assert_ne!(plc.stalls[0].cause, StallCause::RetransmissionTimeout);
    }
}
