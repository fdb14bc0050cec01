//! Issue 8's malformed corpus, built in code with `synth`: every broken file gives one
//! clear error (message, packet index, byte offset) and keeps, analyses and reports
//! everything decoded before the damage; every hostile shape (wrapping sequence
//! numbers, no handshake, 64 KiB packets, time going backwards, far-future times, a
//! port scan) finishes without a panic, with bounded results and the limits reported.
//!
//! The 1-million-connection scan is `#[ignore]`d (run it in release):
//! cargo test --release --test all hostile_corpus:: -- --ignored --nocapture

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::*;
use tcpscope_core::error::{ErrorKind, Layer};
use tcpscope_core::report::Report;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::synth::*;

// ——— helpers ———

/// The whole pipeline over `bytes`, in chunks of 1, 7 and 4096 bytes and whole; the
/// JSON reports must agree (the browser reads files in slices of any size).
fn analyze(bytes: &[u8]) -> Session {
    let whole = analyze_bytes(bytes, AnalysisOptions::default(), bytes.len().max(1));
    let json = whole.report().to_json();
    let sizes: &[usize] = if bytes.len() < 200_000 { &[1, 7, 4096] } else { &[4096] };
    for &n in sizes {
        let s = analyze_bytes(bytes, AnalysisOptions::default(), n);
        assert_eq!(s.report().to_json(), json, "chunks of {n} give another report");
    }
    whole
}

/// A complete connection: handshake, 8 data segments and their ACKs, FIN/FIN — 21 TCP
/// packets (the ARP request at index 3 makes 22 records).
fn connection() -> Vec<Frame> {
    let mut f = Flow::new("10.1.0.1:40000", "10.1.0.2:443");
    f.handshake(0, 20_000, Opts::new().mss(1460).wscale(7).sack_perm(), Opts::new().mss(1460).wscale(7).sack_perm());
    for i in 0..8 {
        f.data(S2C, 30_000 + i * 1_000, 1448);
        f.push(C2S, 50_000 + i * 1_000);
    }
    f.push(C2S, 100_000).flags(FIN | ACK);
    f.push(S2C, 120_000).flags(FIN | ACK);
    let mut frames = f.frames();
    frames.insert(3, Frame::arp(Flow::EPOCH_NS + 25_000_000));
    frames
}

fn pcap_file() -> Vec<u8> {
    write_pcap(&connection(), &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

/// Byte offset of each record of `pcap_file()` (and the file's length at the end).
fn record_offsets() -> Vec<usize> {
    let mut at = 24;
    let mut v = vec![at];
    for fr in connection() {
        at += write_pcap_record(&fr, &Link::Ethernet, Endian::Little, TsResolution::Micro).len();
        v.push(at);
    }
    v
}

fn pcapng_file() -> Vec<u8> {
    write_pcapng(&[Section::new(Endian::Little, vec![Interface::new(Link::Ethernet)], connection())])
}

/// What survives of the file: (capture packets, connections, packets of the first connection).
fn partial(r: &Report) -> (u64, usize, u64) {
    (r.capture.packets, r.connections.len(), r.connections.first().map_or(0, |c| c.packets))
}

/// The error as the report (and so the page) has it.
fn error_of(r: &Report) -> (ErrorKind, Option<u64>, Option<u64>, String) {
    let e = r.error.as_ref().expect("the report names an error");
    assert_eq!(e.layer, Layer::Capture);
    (e.kind, e.packet_index, e.byte_offset, e.message.clone())
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for p in parts {
        assert!(message.contains(p), "message {message:?} lacks {p:?}");
    }
}

// ——— broken files ———

#[test]
fn intact_files_are_the_baseline() {
    for bytes in [pcap_file(), pcapng_file()] {
        let s = analyze(&bytes);
        let r = s.report();
        assert!(r.error.is_none());
        assert_eq!(partial(&r), (22, 1, 21));
        assert!(r.connections[0].handshake_seen);
        assert_eq!(r.connections[0].directions[1].payload_bytes, 8 * 1448);
    }
}

#[test]
fn truncated_mid_packet() {
    let bytes = pcap_file();
    let off = record_offsets();
    // Cut 30 bytes into record 10 (0-based): records 0..=9 survive (one is the ARP).
    let s = analyze(&bytes[..off[10] + 30]);
    let r = s.report();
    let (kind, index, offset, msg) = error_of(&r);
    assert_eq!((kind, index, offset), (ErrorKind::Truncated, Some(10), Some(off[10] as u64)));
    assert_mentions(&msg, &["ends in the middle of packet 11", &format!("starting at byte {}", off[10]), "30 of", "the 10 packets before it were read"]);
    assert_eq!(partial(&r), (10, 1, 9));
    // ... and they are analysed: the handshake and the data before the cut are there.
    assert!(r.connections[0].handshake_seen);
    assert!(r.connections[0].directions[1].payload_bytes >= 1448);
    let json = r.to_json();
    assert!(json.contains("\"packetIndex\":10") && json.contains(&format!("\"byteOffset\":{}", off[10])), "{json}");
    // The chart columns exist for what was kept.
    let cols = s.analysis().unwrap().columns(0);
    assert_eq!(cols.packets.t.len(), 9);

    // Cut inside a record header (5 of its 16 bytes).
    let s = analyze(&bytes[..off[4] + 5]);
    let (kind, index, offset, _) = error_of(&s.report());
    assert_eq!((kind, index, offset, s.report().capture.packets), (ErrorKind::Truncated, Some(4), Some(off[4] as u64), 4));
    // Cut inside the file header.
    let s = analyze(&bytes[..17]);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::Truncated, None, Some(0)));
    assert_mentions(&msg, &["only 17 bytes long"]);
    assert_eq!(partial(&s.report()), (0, 0, 0));
}

#[test]
fn damaged_record_length() {
    let off = record_offsets();
    let mut bytes = pcap_file();
    let at = off[6] + 8; // caplen of record 6
    bytes[at..at + 4].copy_from_slice(&70_000_000u32.to_le_bytes());
    let s = analyze(&bytes);
    let r = s.report();
    let (kind, index, offset, msg) = error_of(&r);
    assert_eq!((kind, index, offset), (ErrorKind::BadLength, Some(6), Some(at as u64)));
    assert_mentions(&msg, &["Packet 7 claims 70000000 captured bytes", &format!("at byte {at}"), "snapshot length 262144", "damaged after packet 6"]);
    assert_eq!(partial(&r), (6, 1, 5));
    // A caplen smaller than the headers is not a framing error: the record is short,
    // the packet inside it is counted and warned about, and decoding goes on.
    let mut bytes = pcap_file();
    let at = off[6] + 8;
    bytes[at..at + 4].copy_from_slice(&10u32.to_le_bytes());
    let s = analyze(&bytes);
    assert!(s.report().error.is_some(), "the rest of the file is now misaligned");
    assert!(s.report().capture.packets >= 7);
}

#[test]
fn huge_caplen_claims() {
    let frames = connection();
    let rec = |f: &Frame| write_pcap_record(f, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    // A header that claims a 4 GiB snapshot length does not lift the hard limit.
    let mut bytes = write_pcap_header(1, Endian::Little, TsResolution::Micro, u32::MAX);
    bytes.extend(rec(&frames[0]));
    let at = bytes.len();
    let mut r1 = rec(&frames[1]);
    r1[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    bytes.extend(r1);
    let s = analyze(&bytes);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::BadLength, Some(1), Some(at as u64 + 8)));
    assert_mentions(&msg, &["Packet 2 claims 4294967295 captured bytes", "more than the 16777216-byte maximum", "damaged after packet 1"]);
    assert_eq!(partial(&s.report()), (1, 1, 1));
    // Just under the hard limit and the file ends: a truncation, found at the end,
    // with no 16 MiB allocation up front (the decoder buffers what it has).
    let mut bytes = write_pcap_header(1, Endian::Little, TsResolution::Micro, u32::MAX);
    bytes.extend(rec(&frames[0]));
    let at = bytes.len();
    let mut r1 = rec(&frames[1]);
    r1[8..12].copy_from_slice(&(16_000_000u32).to_le_bytes());
    bytes.extend(r1);
    let s = analyze(&bytes);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::Truncated, Some(1), Some(at as u64)));
    assert_mentions(&msg, &["ends in the middle of packet 2", "of 16000016 bytes"]);
    assert_eq!(partial(&s.report()), (1, 1, 1));
}

#[test]
fn pcapng_block_length_that_lies() {
    let good = pcapng_file();
    // Block offsets: SHB 28, IDB 32, then one EPB per frame.
    let mut at = vec![28 + 32];
    for fr in connection() {
        let one = write_pcapng(&[Section::new(Endian::Little, vec![Interface::new(Link::Ethernet)], vec![fr])]);
        at.push(at.last().unwrap() + one.len() - 60);
    }
    assert_eq!(*at.last().unwrap(), good.len());
    let put = |b: &mut Vec<u8>, i: usize, v: u32| b[i..i + 4].copy_from_slice(&v.to_le_bytes());

    // Leading length far too large.
    let mut b = good.clone();
    put(&mut b, at[8] + 4, 0x4000_0000);
    let s = analyze(&b);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::BadLength, Some(8), Some(at[8] as u64)));
    assert_mentions(&msg, &[&format!("block at byte {} (packet 9) claims a length of 1073741824 bytes", at[8]), "damaged after packet 8"]);
    assert_eq!(partial(&s.report()), (8, 1, 7));

    // Trailing length that disagrees with the leading one.
    let mut b = good.clone();
    let end = at[9] - 4;
    put(&mut b, end, 1234);
    let s = analyze(&b);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::BadLength, Some(8), Some(at[8] as u64)));
    assert_mentions(&msg, &["ends with length 1234", "damaged after packet 8"]);
    assert_eq!(partial(&s.report()), (8, 1, 7));

    // A leading length shorter than the block (the next "block" starts mid-packet).
    let mut b = good.clone();
    put(&mut b, at[8] + 4, 16);
    let s = analyze(&b);
    let (kind, index, offset, _) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::BadLength, Some(8), Some(at[8] as u64)));
    assert_eq!(partial(&s.report()), (8, 1, 7));

    // Cut inside a block.
    let s = analyze(&good[..at[12] + 50]);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::Truncated, Some(12), Some(at[12] as u64)));
    assert_mentions(&msg, &["ends in the middle of packet 13", "the 12 packets before it were read"]);
    assert_eq!(partial(&s.report()), (12, 1, 11));
}

#[test]
fn wrong_magic() {
    let mut b = pcap_file();
    b[..4].copy_from_slice(&[0xa1, 0xb2, 0xc3, 0xd5]);
    let s = analyze(&b);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::BadMagic, None, Some(0)));
    assert_mentions(&msg, &["Not a capture file: it starts with a1 b2 c3 d5", "expected a pcap magic number"]);
    assert_eq!(partial(&s.report()), (0, 0, 0));
    assert_eq!(s.report().capture.format, None);
    // A pcapng section header whose byte-order magic is wrong.
    let mut b = pcapng_file();
    b[8..12].copy_from_slice(b"XXXX");
    let (kind, index, offset, msg) = error_of(&analyze(&b).report());
    assert_eq!((kind, index, offset), (ErrorKind::BadMagic, Some(0), Some(0)));
    assert_mentions(&msg, &["byte-order magic 58585858"]);
}

#[test]
fn zero_length_file() {
    let s = analyze(&[]);
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::Truncated, Some(0), Some(0)));
    assert_mentions(&msg, &["The file is empty (0 bytes)"]);
    assert_eq!(partial(&s.report()), (0, 0, 0));
}

#[test]
fn non_capture_files() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0";
    let html = b"<!DOCTYPE html>\n<html><head><title>Capture</title></head><body>404</body></html>\n";
    let zip = b"PK\x03\x04\x14\0\0\0\x08\0";
    for (bytes, hint, start) in [
        (&png[..], "(this looks like a PNG image)", "89 50 4e 47"),
        (&html[..], "(this looks like a text file, e.g. HTML or a text export)", "3c 21 44 4f"),
        (&zip[..], "(this looks like a zip archive: extract the capture first)", "50 4b 03 04"),
    ] {
        let s = analyze(bytes);
        let (kind, index, offset, msg) = error_of(&s.report());
        assert_eq!((kind, index, offset), (ErrorKind::BadMagic, None, Some(0)));
        assert_mentions(&msg, &[&format!("Not a capture file: it starts with {start}"), hint]);
        assert_eq!(partial(&s.report()), (0, 0, 0));
    }
}

/// A real gzip member (RFC 1952) holding `data` in stored deflate blocks (RFC 1951
/// §3.2.4): what `gzip` would write at level 0.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    let chunks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, c) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        out.extend((c.len() as u16).to_le_bytes());
        out.extend((!(c.len() as u16)).to_le_bytes());
        out.extend_from_slice(c);
    }
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    out.extend((!crc).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

#[test]
fn gzip_bytes_fed_to_the_decoder() {
    // The worker and the CLI decompress .pcap.gz before decoding; the decoder itself,
    // given gzip bytes, says so at once and names the fix.
    let s = analyze(&gzip_stored(&pcap_file()));
    let (kind, index, offset, msg) = error_of(&s.report());
    assert_eq!((kind, index, offset), (ErrorKind::BadMagic, None, Some(0)));
    assert_mentions(&msg, &["Not a capture file: it starts with 1f 8b 08 00", "(this looks like a gzip file: decompress it first)"]);
    assert_eq!(partial(&s.report()), (0, 0, 0));
}

// ——— hostile shapes ———

fn flow_report(frames: &[Frame]) -> Session {
    analyze(&write_pcap(frames, &Link::Ethernet, Endian::Little, TsResolution::Nano))
}

#[test]
fn sequence_numbers_that_wrap() {
    let mut f = Flow::new("10.2.0.1:40000", "10.2.0.2:80");
    f.isn(u32::MAX - 1, u32::MAX - 5_000); // both sides wrap within the transfer
    f.handshake(0, 10_000, Opts::new().mss(1460).wscale(7), Opts::new().mss(1460).wscale(7));
    for i in 0..20 {
        f.data(S2C, 20_000 + i * 500, 1448);
        f.data(C2S, 20_100 + i * 500, 100);
    }
    let s = flow_report(&f.frames());
    let r = s.report();
    assert!(r.error.is_none());
    let c = &r.connections[0];
    assert_eq!((r.connections.len(), c.packets), (1, 43));
    let d = &c.directions[..];
    assert_eq!((d[0].payload_bytes, d[1].payload_bytes), (2_000, 20 * 1448));
    for side in d {
        assert_eq!((side.retransmissions, side.out_of_order, side.lost_segments, side.duplicate_acks), (0, 0, 0, 0), "{side:?}");
        assert!(side.max_bytes_in_flight.unwrap_or(0) <= 2 * 1448, "in flight {:?}", side.max_bytes_in_flight);
    }
    // Relative sequence numbers keep growing across the wrap.
    let cols = s.analysis().unwrap().columns(0);
    let seqs: Vec<f64> = (0..cols.packets.t.len()).filter(|&i| cols.packets.dir[i] == 1 && cols.packets.len[i] > 0).map(|i| cols.packets.seq[i]).collect();
    assert_eq!(seqs.len(), 20);
    assert!(seqs.windows(2).all(|w| w[1] - w[0] == 1448.0), "{seqs:?}");
}

#[test]
fn connection_without_handshake() {
    let mut f = Flow::new("10.3.0.1:50000", "10.3.0.2:22");
    f.isn(3_000_000_000, 17);
    for i in 0..30 {
        f.data(C2S, i * 1_000, 1000).window(300);
        f.push(S2C, i * 1_000 + 400).window(200); // raw windows, scale unknown
    }
    let s = flow_report(&f.frames());
    let r = s.report();
    assert!(r.error.is_none());
    let c = &r.connections[0];
    assert!(!c.handshake_seen);
    assert_eq!((r.connections.len(), c.packets, c.directions[0].payload_bytes), (1, 60, 30_000));
    assert!(c.directions.iter().all(|d| d.window_scale.is_none() && d.window_scale_unknown));
    // 1000 bytes in flight against a raw window of 200: the scale must be larger.
    assert!(c.directions[1].window_scale_lower_bound.is_some() || c.directions[0].window_scale_lower_bound.is_some(), "{:?}", c.directions);
}

#[test]
fn sixty_four_kib_packets() {
    let mut f = Flow::new("10.4.0.1:40000", "10.4.0.2:80");
    f.handshake(0, 1_000, Opts::new().mss(65_495).wscale(14), Opts::new().mss(65_495).wscale(14));
    for i in 0..5 {
        f.data(S2C, 2_000 + i * 100, 65_535 - 40); // the largest IPv4 packet
    }
    for i in 0..3 {
        f.data(S2C, 3_000 + i * 100, 200_000).ip_len_zero(); // a TSO super-packet, IP length 0
    }
    f.push(C2S, 4_000);
    let frames = f.frames();
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    let s = analyze(&bytes);
    let r = s.report();
    assert!(r.error.is_none(), "{:?}", r.error.as_ref().map(|e| &e.message));
    let c = &r.connections[0];
    assert_eq!(c.packets, 4 + 5 + 3);
    assert_eq!(c.directions[1].payload_bytes, 5 * 65_495 + 3 * 200_000);
    assert_eq!(r.capture.packets, 12);
    // A record one byte above the 262144-byte snapshot length is refused, naming it.
    let mut big = write_pcap_header(1, Endian::Little, TsResolution::Micro, 262_144);
    let mut seg = Segment::new("10.4.0.1:1", "10.4.0.2:2");
    seg.payload(262_145 - 54).ip_len_zero();
    big.extend(write_pcap_record(&seg.frame(), &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let (kind, index, offset, msg) = error_of(&analyze(&big).report());
    assert_eq!((kind, index, offset), (ErrorKind::BadLength, Some(0), Some(24 + 8)));
    assert_mentions(&msg, &["Packet 1 claims 262145 captured bytes"]);
}

#[test]
fn out_of_order_timestamps() {
    let mut f = Flow::new("10.5.0.1:40000", "10.5.0.2:80");
    f.handshake(1_000_000, 10_000, Opts::new().wscale(7), Opts::new().wscale(7));
    for i in 0..40i64 {
        // every fourth packet is stamped 0.9 s earlier than its neighbours
        let t = 1_100_000 + i * 1_000 - if i % 4 == 3 { 900_000 } else { 0 };
        f.data(S2C, t, 1000);
    }
    f.push(C2S, 0); // an ACK stamped before everything else
    let s = flow_report(&f.frames());
    let r = s.report();
    assert!(r.error.is_none());
    let back = r.warnings.iter().find(|w| w.kind == "time-went-backwards").expect("time-went-backwards warning");
    assert_eq!(back.count, 11);
    let c = &r.connections[0];
    assert_eq!(c.packets, 44);
    assert!(c.start.is_finite() && c.end.is_finite() && c.end >= c.start, "{} {}", c.start, c.end);
    // Every step back is within the 2 s the analysis sorts (analysis/capture/timeline.rs), so
    // the packets are analysed in time order and none is clamped: the capture spans
    // the ACK stamped at 0 → the latest data packet at 1.138 s.
    assert!((r.capture.duration - 1.138).abs() < 1e-6, "{}", r.capture.duration);
    assert!(r.warnings.iter().all(|w| w.kind != "time-order-clamped"));
    assert!(r.to_json().len() < 200_000);
}

#[test]
fn packets_from_the_far_future() {
    // pcap: the largest timestamp it can hold (u32 seconds: 2106-02-07), after 2021.
    let mut f = Flow::new("10.6.0.1:40000", "10.6.0.2:80");
    f.handshake(0, 1_000, Opts::new().wscale(7), Opts::new().wscale(7));
    f.data(S2C, 2_000, 1000);
    let mut frames = f.frames();
    let mut late = frames[3].clone();
    late.ts_ns = i64::from(u32::MAX) * 1_000_000_000 + 999_999_000;
    frames.push(late);
    let mut after = f.clone();
    after.data(S2C, 3_000, 1000);
    frames.push(after.frames().pop().unwrap()); // and back to 2021
    for bytes in [
        write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro),
        write_pcap(&frames, &Link::Ethernet, Endian::Big, TsResolution::Nano),
    ] {
        let s = analyze(&bytes);
        let r = s.report();
        assert!(r.error.is_none());
        // The 2106 packet jumps 85 years ahead and the next one comes back: one bad
        // stamp (analysis/capture/timeline.rs rule 1), analysed at the time of the packet
        // before it (2 ms). It then is a second copy of that packet within the 2 ms
        // window, so the duplicate filter merges it: 6 packets read, 5 in the connection.
        assert_eq!(partial(&r), (6, 1, 5));
        assert_eq!(r.capture.duration, 0.003); // 0 → 3 ms, the 2106 stamp left out
        let c = &r.connections[0];
        assert_eq!((c.start, c.end), (0.0, 0.003));
        assert_eq!(r.capture.duplicate_frames, 1);
        for d in c.directions.iter() {
            assert!(d.throughput.mean_bps.is_finite() && d.throughput.peak_bps.is_finite());
        }
        assert!(r.to_json().len() < 100_000);
        assert_eq!(r.warnings.iter().find(|w| w.kind == "time-went-backwards").map(|w| w.count), Some(1));
    }
    // pcapng: 64-bit timestamps reach the year 2200 and beyond i64 nanoseconds
    // (2262), where they saturate rather than wrap.
    let year_2200_ns: i64 = 7_258_118_400 * 1_000_000_000;
    let mut frames = f.frames();
    for fr in frames.iter_mut().skip(2) {
        fr.ts_ns += year_2200_ns - Flow::EPOCH_NS;
    }
    let mut far = frames[3].clone();
    far.ts_ns = i64::MAX;
    frames.push(far);
    let ng = write_pcapng(&[Section::new(Endian::Little, vec![Interface::new(Link::Ethernet).tsresol(9)], frames)]);
    let mut ng = ng;
    // the last EPB: timestamp fields all ones (2^64 − 1 ns ≈ year 2554)
    let n = ng.len();
    let epb = n - u32::from_le_bytes(ng[n - 4..].try_into().unwrap()) as usize;
    ng[epb + 12..epb + 20].copy_from_slice(&[0xff; 8]);
    let s = analyze(&ng);
    let r = s.report();
    assert!(r.error.is_none(), "{:?}", r.error.as_ref().map(|e| &e.message));
    assert_eq!(partial(&r), (5, 1, 5));
    assert!(r.capture.duration.is_finite() && r.capture.duration > 7e9, "{}", r.capture.duration);
    let c = &r.connections[0];
    assert!(c.end.is_finite() && c.end >= c.start);
}

/// A SYN port scan: `n` SYNs from 10.x.y.z to distinct ports of one host, 70-byte records.
fn port_scan(n: u32) -> Vec<u8> {
    let mut out = write_pcap_header(1, Endian::Little, TsResolution::Micro, 262_144);
    out.reserve(n as usize * 70);
    let mut seg = Segment::new("10.0.0.1:1", "192.168.0.1:1");
    seg.flags(SYN).window(1024);
    for i in 0..n {
        seg.src = std::net::SocketAddr::new(std::net::Ipv4Addr::from(0x0a00_0000 + (i >> 16)).into(), 40_000);
        seg.dst.set_port((i & 0xffff) as u16);
        seg.at_ns(Flow::EPOCH_NS + i64::from(i) * 1_000).seq(i.wrapping_mul(2_654_435_761));
        out.extend(write_pcap_record(&seg.frame(), &Link::Ethernet, Endian::Little, TsResolution::Micro));
    }
    out
}

fn scan(n: u32, options: AnalysisOptions, limit: usize) {
    let bytes = port_scan(n);
    let t = std::time::Instant::now();
    let s = analyze_bytes(&bytes, options, 1 << 20);
    let r = s.report();
    println!("{n} SYNs ({} MB): {:?}, {} connections", bytes.len() >> 20, t.elapsed(), r.connections.len());
    assert!(r.error.is_none());
    assert_eq!(r.capture.packets, u64::from(n));
    let tracked = (n as usize).min(limit);
    assert_eq!(r.connections.len(), tracked, "connections are bounded by the limit");
    assert!(r.connections.iter().all(|c| c.packets == 1));
    let w = r.warnings.iter().find(|w| w.kind == "connection-limit");
    if n as usize > limit {
        let w = w.expect("a connection-limit warning when the limit is hit");
        assert_eq!(w.count, u64::from(n) - limit as u64);
        assert!(w.message.contains(&format!("limit of {limit} connections")), "{}", w.message);
    } else {
        assert!(w.is_none());
    }
}

#[test]
fn port_scan_of_200k_syns_hits_a_lowered_limit() {
    // The default limit (200 000) is exactly reached, not exceeded ...
    scan(200_000, AnalysisOptions::default(), 200_000);
    // ... and a lower one is hit and reported.
    scan(60_000, AnalysisOptions { max_connections: 50_000, ..AnalysisOptions::default() }, 50_000);
}

#[test]
#[ignore]
fn port_scan_of_one_million_syns() {
    scan(1_000_000, AnalysisOptions::default(), 200_000);
}
