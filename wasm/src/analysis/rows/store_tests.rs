//! The compact store must give back exactly what was pushed (store.rs), and the
//! materialized public columns must be what the analyzer used to push as f64.

use super::*;
use crate::analysis::capture::options::AnalysisOptions;
use crate::decode::tcp_flags::{ACK, FIN, PSH, RST};
use crate::session::analyze_bytes;
use crate::synth::*;

/// Deterministic pseudo-random numbers (SplitMix64), no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Rows with ordinary values and every awkward one: time going backwards, jumps of
/// 2^40, negative sequence numbers, wire_len below len, missing values, max frame.
fn rows(n: usize) -> Vec<PacketRow> {
    let mut r = Rng(7);
    let mut t = 0i64;
    let mut seq = [0i64; 2];
    (0..n)
        .map(|i| {
            let wild = r.pick(10) == 0;
            t += if wild { r.next() as i64 >> 20 } else { r.pick(2_000_000) as i64 };
            let d = r.pick(2) as usize;
            seq[d] += if wild { -(r.pick(1 << 40) as i64) } else { 1448 };
            PacketRow {
                t_ns: t,
                dir: d as u8,
                frame: if wild { u32::MAX - r.pick(3) as u32 } else { i as u32 + 1 },
                seq: seq[d],
                len: if wild { r.next() as u32 } else { 1448 },
                wire_len: if wild { r.next() as u32 } else { 1514 },
                ack: (r.pick(5) != 0).then(|| if wild { r.next() as i64 } else { seq[1 - d] }),
                win: (r.pick(7) != 0).then(|| r.pick(1 << 31)),
                in_flight: (r.pick(3) != 0).then(|| if wild { r.next() >> 1 } else { r.pick(1 << 22) }),
                flags: r.next() as u32 & 0x003f_ffff,
            }
        })
        .collect()
}

#[test]
fn packet_rows_round_trip_exactly() {
    let input = rows(50_000);
    let mut w = ConnWriter::default();
    for r in &input {
        w.push_packet(r);
    }
    let store = w.finish();
    let mut out = Vec::new();
    store.for_each_packet(|r| out.push(*r));
    assert_eq!(out, input);
    // Materialized columns: the f64 conversions the analyzer used to apply.
    let c = store.packet_columns(true);
    for (i, r) in input.iter().enumerate() {
        assert_eq!(c.t[i].to_bits(), (r.t_ns as f64 / 1e9).to_bits());
        assert_eq!(c.seq[i], r.seq as f64);
        assert_eq!(c.ack[i].to_bits(), r.ack.map_or(f64::NAN, |a| a as f64).to_bits());
        assert_eq!(c.win[i].to_bits(), r.win.map_or(f64::NAN, |a| a as f64).to_bits());
        assert_eq!(c.in_flight[i].to_bits(), r.in_flight.map_or(f64::NAN, |a| a as f64).to_bits());
        assert_eq!((c.dir[i], c.frame[i], c.len[i], c.wire_len[i], c.flags[i]), (r.dir, r.frame, r.len, r.wire_len, r.flags));
    }
    assert!(store.packet_columns(false).wire_len.is_empty());
    // Ordinary rows are small: the whole point (wild ones are 1 in 10 here).
    assert!(store.allocated() < input.len() * 30, "{} B for {} rows", store.allocated(), input.len());
}

#[test]
fn rtt_and_sack_rows_round_trip() {
    let mut w = ConnWriter::default();
    let mut r = Rng(3);
    let (mut rtts, mut sacks) = (Vec::new(), Vec::new());
    for i in 0..5_000i64 {
        let t = i * 1_000_000 - (r.pick(3) as i64) * 5_000_000;
        // Kinds 0–7: timestamp, excluded and clocked bits (store.rs `push_rtt`).
        let rtt = (t, r.pick(2) as u8, r.pick(1 << 36) as i64, r.pick(8) as u8);
        w.push_rtt(rtt.0, rtt.1, rtt.2, rtt.3);
        rtts.push(rtt);
        let l = r.next() as i64 >> 10;
        let sack = (t, r.pick(2) as u8, l, l + r.pick(1 << 20) as i64 - 1000);
        w.push_sack(sack.0, sack.1, sack.2, sack.3);
        sacks.push(sack);
    }
    let s = w.finish();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    s.for_each_rtt(|t, d, ns, k| a.push((t, d, ns, k)));
    s.for_each_sack(|t, d, l, rr| b.push((t, d, l, rr)));
    assert_eq!((a, b), (rtts.clone(), sacks));
    let c = s.rtt_columns();
    assert_eq!(c.rtt_ms[10], rtts[10].2 as f64 / 1e6);
    assert_eq!(c.t[10], rtts[10].0 as f64 / 1e9);
}

/// End to end on a synth capture with nanosecond timestamps: the columns hold the
/// exact times, frame numbers, lengths and relative sequence numbers of the frames.
#[test]
fn materialized_columns_of_a_synth_capture() {
    let mut flow = Flow::new("10.0.0.1:40000", "10.0.0.2:80");
    flow.handshake(0, 2_800, Opts::new().mss(1460).wscale(7).sack_perm().ts(1, 0), Opts::new().mss(1460).wscale(9).ts(9, 1));
    for k in 0..200 {
        flow.data(C2S, 10_000 + k * 37, 1448);
        if k % 2 == 1 {
            flow.push(S2C, 12_800 + k * 37).window(1024);
        }
    }
    flow.push(S2C, 30_000).opts(Opts::new().sack(&[(1000 + 1 + 1448 * 3, 1000 + 1 + 1448 * 5)]));
    flow.push(C2S, 31_000).seq(1001).payload(1448).flags(PSH | ACK); // retransmission
    flow.push(C2S, 40_000).flags(FIN | ACK);
    flow.push(S2C, 40_001).flags(RST);
    let mut frames = flow.frames();
    for (i, f) in frames.iter_mut().enumerate() {
        f.ts_ns += i as i64 * 7; // nanosecond detail that µs would lose
    }
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Nano);
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 4096);
    let a = s.analysis().unwrap();
    assert_eq!(a.connections.len(), 1);
    let c = a.columns(0);
    let p = &c.packets;
    assert_eq!(p.t.len(), frames.len());
    // The script's ACKs are written before data stamped earlier: packets are analysed
    // in time order (analysis/capture/timeline.rs: a stable sort by stamp within 2 s), each at
    // its own stamp and with its frame number in the file.
    let mut order: Vec<usize> = (0..frames.len()).collect();
    order.sort_by_key(|&i| frames[i].ts_ns);
    let t0 = frames[order[0]].ts_ns;
    for (row, &i) in order.iter().enumerate() {
        let f = &frames[i];
        assert_eq!(p.t[row].to_bits(), ((f.ts_ns - t0) as f64 / 1e9).to_bits(), "row {row}");
        assert_eq!(p.frame[row], i as u32 + 1);
        assert_eq!(p.wire_len[row], 14 + f.net.len() as u32);
    }
    assert_eq!(p.seq[3], 1.0); // first data byte after the SYN
    assert_eq!(p.seq[p.seq.len() - 3], 1.0); // the retransmission
    assert!(p.win[p.win.len() - 1].is_nan()); // RST
    let server_ack = p.frame.iter().position(|&f| f == 6).expect("frame 6 analysed");
    assert_eq!(p.win[server_ack], 1024.0 * 512.0); // the server's ACK, scaled by its shift 9
    assert!(!c.rtt.t.is_empty() && c.sack.left.len() == 1);
    assert_eq!(c.sack.right[0] - c.sack.left[0], 2.0 * 1448.0);
    // Summary totals (streamed from the compact rows) agree with the columns.
    let d0 = &a.connections[0].directions[0];
    let n0 = p.dir.iter().filter(|&&d| d == 0).count() as u64;
    assert_eq!(d0.packets, n0);
    assert_eq!(d0.bytes, (0..p.t.len()).filter(|&i| p.dir[i] == 0).map(|i| p.wire_len[i] as u64).sum::<u64>());
    assert_eq!(d0.retransmissions, 1);
    // Unknown index: empty columns, no panic.
    assert!(a.columns(99).packets.t.is_empty());
}

#[test]
fn limits_are_reported() {
    let mut bytes = Vec::new();
    let mut frames = Vec::new();
    for k in 0..5u16 {
        let mut flow = Flow::new(&format!("10.0.0.1:{}", 40000 + k), "10.0.0.2:80");
        flow.start_ns(Flow::EPOCH_NS + k as i64 * 1_000_000);
        flow.handshake(0, 100, Opts::new(), Opts::new());
        flow.data(C2S, 200, 100);
        frames.extend(flow.frames());
    }
    bytes.extend(write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let options = AnalysisOptions { max_connections: 3, max_stored_packets: 10, ..AnalysisOptions::default() };
    let s = analyze_bytes(&bytes, options, 1 << 16);
    let a = s.analysis().unwrap();
    assert_eq!(a.connections.len(), 3);
    let stored: usize = a.stores.iter().map(|s| s.packet_count()).sum();
    assert_eq!(stored, 10);
    let kinds: Vec<(&str, u64)> = a.warnings.iter().map(|w| (w.kind, w.count)).collect();
    assert_eq!(kinds, vec![("connection-limit", 8), ("packet-limit", 2)]);
    let json = s.report().to_json();
    assert!(json.contains("\"kind\":\"connection-limit\",\"count\":8"), "{json}");
    assert_eq!(s.packets(), 20); // every packet still counted in the capture totals
}

/// A connection gone quiet gives back its logs' growth room (run/quiet.rs), possibly
/// more than once, and may then get more rows: the rows read back are those written,
/// and the capacity only shrinks at the release (issue 43).
#[test]
fn released_slack_keeps_every_row() {
    let input = rows(3_000);
    let (mut w, mut plain) = (ConnWriter::default(), ConnWriter::default());
    for (i, r) in input.iter().enumerate() {
        w.push_packet(r);
        plain.push_packet(r);
        w.push_rtt(r.t_ns, r.dir, i as i64 * 1_000, (i % 8) as u8);
        plain.push_rtt(r.t_ns, r.dir, i as i64 * 1_000, (i % 8) as u8);
        if i % 7 == 0 {
            w.push_sack(r.t_ns, r.dir, r.seq, r.seq + 1448);
            plain.push_sack(r.t_ns, r.dir, r.seq, r.seq + 1448);
        }
        // Released at row 1 (tiny logs), then now and then (the last chunk of a long log).
        if i == 1 || i % 997 == 0 {
            let before = w.store.allocated();
            w.release_slack();
            assert!(w.store.allocated() <= before);
        }
    }
    // The same rows (a released chunk that grows again may end elsewhere than the
    // unreleased one's: rows never straddle chunks, so only the boundaries differ).
    let (a, b) = (w.finish(), plain.finish());
    let read = |s: &ConnStore| {
        let (mut p, mut r, mut k) = (Vec::new(), Vec::new(), Vec::new());
        s.for_each_packet(|x| p.push(*x));
        s.for_each_rtt(|t, d, ns, kind| r.push((t, d, ns, kind)));
        s.for_each_sack(|t, d, l, rr| k.push((t, d, l, rr)));
        (p, r, k, s.packet_count())
    };
    assert_eq!(read(&a), read(&b));
    assert_eq!(read(&a).0, input);
    // A short connection: its packet log is shrunk to its rows (13 + 11 B of varints
    // in the first, 32-B chunk).
    let mut small = ConnWriter::default();
    let row = PacketRow { t_ns: 1_000, dir: 0, frame: 1, seq: 0, len: 100, wire_len: 154, ack: Some(1), win: Some(65_535), in_flight: Some(100), flags: 0x18 };
    small.push_packet(&row);
    small.push_packet(&PacketRow { t_ns: 2_000, frame: 2, seq: 100, ..row });
    let held = small.store.packets.allocated();
    small.release_slack();
    assert!(small.store.packets.allocated() < held, "{} -> {}", held, small.store.packets.allocated());
}
