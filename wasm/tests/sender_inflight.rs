//! The data sender's bytes in flight estimated at a receiver-side capture
//! (analysis/timing/sender_flight.rs, view series `senderInflight`; docs/ANALYSIS.md "The
//! sender's bytes in flight at a receiver-side capture"), checked against truth we did
//! not make: the same transfer captured at the sender (twin recordings), and a flow
//! synthesized with known delays whose sender state is known at every send.

use crate::common;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use common::{decode_chunked, tcp};
use tcpscope_core::analysis::sender_flight::{sender_in_flight, SenderFlight};
use tcpscope_core::analysis::{AnalysisOptions, Vantage};
use tcpscope_core::decode::tcp_flags::{ACK, PSH};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;
use tcpscope_core::view::ViewEngine;

fn read(file: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"))).expect("example capture")
}

/// Each data frame's IPv4 Identification, by frame number.
fn ids_by_frame(bytes: &[u8]) -> HashMap<u32, u16> {
    let (out, _, err) = decode_chunked(bytes, bytes.len());
    assert!(err.is_none(), "{err:?}");
    tcp(&out).into_iter().filter(|s| s.payload_len > 0).filter_map(|s| Some((s.packet_index as u32 + 1, s.frame_id.ip_id?))).collect()
}

/// Per data segment of connection 0's data direction: (IPv4 ID, relative seq) and the
/// analyzer's bytes in flight there (the capture point's value), in row order.
fn data_rows(bytes: &[u8], vantage: Vantage) -> (Vec<(Option<(u16, i64)>, Option<f64>)>, SenderFlight) {
    let ids = ids_by_frame(bytes);
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("finished");
    let c = &a.connections[0];
    assert_eq!(c.vantage, vantage);
    let mut rows = Vec::new();
    a.stores[0].for_each_packet(|r| {
        if r.dir == c.data_direction && r.len > 0 {
            rows.push((ids.get(&r.frame).map(|&id| (id, r.seq)), r.in_flight.map(|f| f as f64)));
        }
    });
    let est = sender_in_flight(&a.stores[0], c.data_direction, c.sender_lag_ms / 1e3);
    (rows, est)
}

/// Agreement with the sender's own bytes in flight, datagram by datagram: Linux numbers
/// each socket's datagrams (IPv4 ID), so a segment at the receiver is the same one at the
/// sender, where its in-flight value is the truth. Returns (segments compared, estimate
/// within 10 %, truth within the point's bound, capture-point value within 10 %).
fn agreement(receiver: &str, sender: &str) -> (usize, usize, usize, usize, Option<f64>) {
    let (sent, _) = data_rows(&read(sender), Vantage::Sender);
    let truth: HashMap<(u16, i64), f64> = sent.into_iter().filter_map(|(k, f)| Some((k?, f?))).collect();
    let (rows, est) = data_rows(&read(receiver), Vantage::Receiver);
    assert_eq!(rows.len(), est.v.len(), "one estimate per data segment");
    let (mut n, mut close, mut bounded, mut local) = (0, 0, 0, 0);
    for (i, (key, here)) in rows.iter().enumerate() {
        let Some(&f) = key.and_then(|k| truth.get(&k)) else { continue };
        n += 1;
        close += usize::from((est.v[i] - f).abs() <= 0.1 * f);
        bounded += usize::from(est.bound[i].is_some_and(|b| (est.v[i] - f).abs() <= b));
        local += usize::from(here.is_some_and(|h| (h - f).abs() <= 0.1 * f));
    }
    (n, close, bounded, local, est.label_bound())
}

#[test]
fn bulk_download_at_the_receiver_agrees_with_the_senders_capture() {
    // rx-bulk-twin: CUBIC download, 20 ms path, 50 Mbit/s, a 250 kB queue (40 ms at the
    // rate) that the flow fills, so the far part of the round trip runs 20–75 ms.
    let (n, close, bounded, local, label) = agreement("rx-bulk-twin.pcap", "rx-bulk-twin-server.pcap");
    // Every one of the client's 7,605 data segments (12 of them re-sends) is matched at
    // the server by its IPv4 ID and sequence number.
    assert_eq!(n, 7605);
    // Within 10 % at 97 % of the segments (issue 46 asks ≥ 90 %). The misses are
    // segments sent just before or after a hole was filled: the cumulative ACK jumped by
    // up to 380 kB inside one tick of the receiver's timestamp clock, and which of that
    // tick's ACKs the sender had heard no echo can tell (their bound says so).
    assert_eq!(close, 7387);
    assert!(close * 10 >= n * 9);
    // The point's bound holds at 99.5 % (7,567): it is hard under RFC 7323 §4.3 and a
    // path that keeps ACKs in order; the 38 exceptions fall in 0.94–1.06 s, the round
    // trips after the first SACK recovery (0.84–0.88 s), a few kB outside.
    assert_eq!(bounded, 7567);
    // What the chart's label states: nine points in ten are good to ± 28,960 B, 20
    // segments, against 250–520 kB in flight at the sender.
    assert_eq!(label, Some(28960.0));
    // The capture point's own bytes in flight are what the receiver has not acknowledged
    // yet, a few kB: within 10 % of the sender's at 144 segments (2 %), only while a
    // hole held the receiver's cumulative ACK (0.84, 1.37 and 1.79 s) — why the
    // estimate exists.
    assert_eq!(local, 144);
}

#[test]
fn request_response_at_the_receiver_agrees_with_the_senders_capture() {
    // rx-rr-twin: 100 answers of 30 kB over a 10 ms path with 3 % loss: short flights
    // (1–21 segments), where one segment is more than 10 %.
    let (n, close, bounded, local, label) = agreement("rx-rr-twin.pcap", "rx-rr-twin-server.pcap");
    assert_eq!(n, 2100);
    // 92 %: the misses are mostly flights of 2–4 segments read one segment off.
    assert_eq!(close, 1933);
    assert!(close * 10 >= n * 9);
    assert_eq!(bounded, 2099);
    assert_eq!(label, Some(5792.0));
    assert!(local < close / 2, "{local}");
}

#[test]
fn the_view_serves_the_estimate_only_at_a_receiver_side_capture() {
    let ask = |file: &str| {
        let s = analyze_bytes(&read(file), AnalysisOptions::default(), 1 << 20);
        let a = s.analysis().expect("finished");
        let c = &a.connections[0];
        let req = format!(r#"{{"generation":1,"connection":0,"series":"senderInflight","t0":{},"t1":{},"columns":800}}"#, c.start, c.end);
        let r: serde_json::Value = serde_json::from_str(&ViewEngine::new().query_json(Some(a), &req)).unwrap();
        r
    };
    let rx = ask("rx-bulk-twin.pcap");
    assert_eq!(rx["kind"], "points");
    assert_eq!(rx["errorBound"], 28960.0);
    // All 7,605 data segments, one point each.
    assert_eq!(rx["total"], 7605);
    let tx = ask("rx-bulk-twin-server.pcap");
    assert_eq!(tx["kind"], "none");
    assert!(tx["notes"][0].as_str().unwrap().contains("only at a receiver-side capture"), "{tx}");
    assert!(tx["errorBound"].is_null());
}

const MSS: u32 = 1448;
const MS: i64 = 1_000_000;

/// The forward (sender → receiver) one-way delay at sender time s, ns: 10 ms of path
/// plus a queue that builds to 30 ms between 0.3 s and 0.6 s and drains by 0.9 s
/// (slowly enough that the path stays first-in first-out).
fn forward_delay(s: i64) -> i64 {
    let x = s as f64 / 1e9;
    let queue = if x < 0.3 { 0.0 } else if x < 0.6 { (x - 0.3) / 0.3 } else if x < 0.9 { (0.9 - x) / 0.3 } else { 0.0 };
    10 * MS + (queue * 30.0 * MS as f64) as i64
}
/// The return (receiver → sender) one-way delay, ns.
const BACK: i64 = 8 * MS;

/// The sender: it keeps `window(t)` segments in flight, clocked by the ACKs it hears.
struct Sender {
    una: u32,
    nxt: u32,
    sent: u32,
    /// TS.Recent: the TSval of the latest ACK heard (RFC 7323 §4.3).
    ts_recent: u32,
    /// Pending arrivals and ACKs: (time ns, order, 0 = data reaches the receiver (seq,
    /// TSval, TSecr), 1 = ACK reaches the sender (ack, TSval, -)).
    events: BinaryHeap<Reverse<(i64, u64, u8, u32, u32, u32)>>,
    order: u64,
    /// (arrival at the receiver, the sender's bytes in flight when it sent the segment).
    truth: Vec<(i64, f64)>,
    /// When the bottleneck finishes sending what it holds, ns.
    link_free: i64,
}

const SEGMENTS: u32 = 4000;
const BOTTLENECK: i64 = MS / 2;
const ISN: u32 = 5001; // the server's first data byte (ISN 5000 + SYN)

fn window(t: i64) -> u32 {
    if t < 400 * MS { 30 } else { 60 }
}
/// Both hosts' timestamp clocks tick in ms (RFC 7323 §5.4), from different origins.
fn tsval(t: i64, origin: u32) -> u32 {
    (t / MS) as u32 + origin
}

impl Sender {
    fn push(&mut self, t: i64, kind: u8, a: u32, b: u32, c: u32) {
        self.order += 1;
        self.events.push(Reverse((t, self.order, kind, a, b, c)));
    }
    /// Sends at time s what the window allows, 2 µs apart.
    fn send(&mut self, s: i64) {
        let mut t = s;
        while self.sent < SEGMENTS && (self.nxt - self.una) / MSS < window(s) {
            self.nxt += MSS;
            self.sent += 1;
            // A 23 Mbit/s bottleneck (0.5 ms a segment, first-in first-out) at the
            // sender's end of the path: its queue adds to the delay once the window
            // exceeds the path's 36 segments.
            self.link_free = self.link_free.max(t) + BOTTLENECK;
            let arrive = self.link_free + forward_delay(t);
            self.truth.push((arrive, (self.nxt - self.una) as f64));
            self.push(arrive, 0, self.nxt - MSS, tsval(t, 100), self.ts_recent);
            t += 2_000;
        }
    }
}

/// A receiver-side capture of [`Sender`] with the delays above (the receiver ACKs each
/// segment as it arrives), and per data segment in capture order the sender's bytes in
/// flight when it sent it.
fn synthesized(timestamps: bool) -> (Vec<u8>, Vec<f64>) {
    let mut f = Flow::new("10.0.0.2:40000", "10.0.0.1:5201");
    let ts = |o: Opts, val: u32, ecr: u32| if timestamps { o.ts(val, ecr) } else { o };
    f.handshake(0, 18_000, ts(Opts::new().mss(1460).wscale(7).sack_perm(), 7, 0), ts(Opts::new().mss(1460).wscale(7).sack_perm(), 100, 7));
    let mut snd = Sender { una: ISN, nxt: ISN, sent: 0, ts_recent: 7, events: BinaryHeap::new(), order: 0, truth: Vec::new(), link_free: 0 };
    // The client's ACK of the handshake (at 18 ms) reaches the server 8 ms later.
    snd.ts_recent = tsval(18 * MS, 7);
    snd.send(18 * MS + BACK);
    let mut rcv = ISN;
    while let Some(Reverse((t, _, kind, a, b, c))) = snd.events.pop() {
        if kind == 0 {
            let (us, stamp) = (t / 1000, tsval(t, 7));
            f.push(S2C, us).seq(a).ack(1001).payload(MSS).flags(ACK | PSH).window(4096).opts(ts(Opts::new(), b, c));
            rcv = rcv.max(a + MSS);
            f.push(C2S, us).seq(1001).ack(rcv).flags(ACK).window(4096).opts(ts(Opts::new(), stamp, b));
            snd.push(t + BACK, 1, rcv, stamp, 0);
        } else {
            snd.una = snd.una.max(a);
            snd.ts_recent = snd.ts_recent.max(b);
            snd.send(t);
        }
    }
    let mut frames = f.frames();
    frames.sort_by_key(|fr| fr.ts_ns);
    snd.truth.sort_by_key(|x| x.0);
    (write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Nano), snd.truth.into_iter().map(|x| x.1).collect())
}

/// The estimate at each data segment of the synthesized flow, and how many are within
/// 10 % of the truth.
fn synthesized_agreement(timestamps: bool) -> (SenderFlight, Vec<f64>, usize) {
    let (bytes, truth) = synthesized(timestamps);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("finished");
    let c = &a.connections[0];
    assert_eq!((c.vantage, c.data_direction), (Vantage::Receiver, 1));
    let est = sender_in_flight(&a.stores[0], 1, c.sender_lag_ms / 1e3);
    assert_eq!(est.v.len(), truth.len());
    let close = (0..truth.len()).filter(|&i| (est.v[i] - truth[i]).abs() <= 0.1 * truth[i]).count();
    (est, truth, close)
}

#[test]
fn a_synthesized_receiver_side_flow_with_known_delays() {
    // 4,000 segments, a window of 30 then 60 segments through a 0.5 ms/segment
    // bottleneck on an 18 ms path, plus 0–30 ms of extra delay: the far part of the
    // round trip runs from 18 to about 60 ms.
    let (est, truth, close) = synthesized_agreement(true);
    for i in 0..truth.len() {
        // The bound is hard here: the path is first-in first-out and the sender's
        // echoes follow RFC 7323 §4.3 exactly.
        let b = est.bound[i].expect("every segment after the first echo has a bound");
        assert!((est.v[i] - truth[i]).abs() <= b, "segment {i} at {}: estimate {} truth {} bound {b}", est.t[i], est.v[i], truth[i]);
    }
    // Every segment within 10 %, and nine in ten within one segment: where the flow is
    // paced by its bottleneck the ACKs leave at the pace the data arrives, so the
    // sender's ACKs are read at the pace it heard them.
    assert_eq!(close, 4000);
    assert_eq!(est.label_bound(), Some(1448.0));
    // Without timestamps the shift is the far part's minimum, the handshake's 18 ms,
    // while the queue made it up to 60 ms: the sender is taken to have heard ACKs it had
    // not, and the estimate is low wherever the queue held data — no bound is claimed.
    let (est, truth, close) = synthesized_agreement(false);
    assert_eq!(est.label_bound(), None);
    // Right only until 0.3 s, while nothing delayed the data (window 30 < the path's 36
    // segments: no queue): 485 segments.
    assert!(est.v.iter().zip(&truth).all(|(e, t)| e <= t), "never above the truth");
    assert_eq!(close, 485);
}
