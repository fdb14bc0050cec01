//! Save for Wireshark (slice.rs): a connection sliced out of an example is that
//! connection alone, analysed the same; the output does not depend on chunking; the
//! slicer holds one unit at most; pcapng's interface descriptions and comments survive.
//! (The tshark comparison is cli/slice.test.mjs.)

use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary};
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::slice::{slice_bytes, slice_many_bytes, SliceRequest, Slicer};

fn example(file: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../public/examples/{}", env!("CARGO_MANIFEST_DIR"), file)).expect(file)
}

fn summaries(bytes: &[u8]) -> Vec<ConnectionSummary> {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 16);
    assert!(s.error().is_none(), "{:?}", s.error());
    s.analysis().unwrap().connections.clone()
}

fn whole(connection: u32) -> SliceRequest {
    SliceRequest { connection, from_s: None, to_s: None }
}

/// The per-direction counts a slice must keep (times are relative to the first packet
/// of the file, which the slice changes, so they are not compared).
fn counts(c: &ConnectionSummary) -> Vec<(String, u64, u64, u64, u64, u64, Option<u64>)> {
    c.directions
        .iter()
        .map(|d| (d.from.clone(), d.packets, d.payload_bytes, d.retransmissions, d.duplicate_acks, d.zero_windows, d.receive_window.as_ref().map(|w| w.max as u64)))
        .collect()
}

#[test]
fn every_connection_of_a_multi_connection_example_slices_to_itself() {
    // Examples with several connections (a reused port pair included in sll2-any) and
    // one pcapng; each connection's slice analyses to the same counts as in the file.
    for file in ["sll2-any.pcap", "mptcp-two-paths.pcap", "pcapng-zero-window.pcapng", "loss-1pct.pcap", "nanosecond.pcap"] {
        let bytes = example(file);
        let all = summaries(&bytes);
        assert!(!all.is_empty(), "{file}");
        for c in &all {
            let (out, stats) = slice_bytes(&bytes, whole(c.id), 4096).unwrap();
            assert_eq!(stats.packets_kept, c.packets, "{file} #{}: the slice holds exactly the connection's packets", c.id);
            let sliced = summaries(&out);
            assert_eq!(sliced.len(), 1, "{file} #{}: one connection in the slice", c.id);
            assert_eq!(counts(&sliced[0]), counts(c), "{file} #{}", c.id);
            assert_eq!(sliced[0].endpoints, c.endpoints);
            assert_eq!(sliced[0].diagnosis.limit, c.diagnosis.limit, "{file} #{}", c.id);
        }
    }
}

#[test]
fn the_output_does_not_depend_on_chunking() {
    let bytes = example("pcapng-zero-window.pcapng");
    let (reference, _) = slice_bytes(&bytes, whole(0), bytes.len()).unwrap();
    for n in [1, 7, 4096] {
        assert_eq!(slice_bytes(&bytes, whole(0), n).unwrap().0, reference, "chunks of {n}");
    }
}

#[test]
fn a_time_range_keeps_the_packets_inside_it() {
    let bytes = example("stalls.pcap");
    let c = &summaries(&bytes)[0];
    let (from, to) = (c.start + 0.5, c.start + 1.0);
    let (out, stats) = slice_bytes(&bytes, SliceRequest { connection: c.id, from_s: Some(from), to_s: Some(to) }, 65536).unwrap();
    assert!(stats.packets_kept > 0 && stats.packets_kept < c.packets, "{stats:?} of {}", c.packets);
    // Every kept packet's time is in the range: read back with the decoder.
    let mut times = Vec::new();
    let mut d = tcpscope_core::decode::CaptureDecoder::new();
    d.push(&out, &mut |p| if let tcpscope_core::decode::Decoded::Tcp(s) = p { times.push(s.ts_ns) }).unwrap();
    let mut all = Vec::new();
    let mut w = tcpscope_core::decode::CaptureDecoder::new();
    w.push(&bytes, &mut |p| if let tcpscope_core::decode::Decoded::Tcp(s) = p { all.push(s.ts_ns) }).unwrap();
    let t0 = w.info().first_ts_ns.unwrap();
    let inside: Vec<i64> = all.into_iter().filter(|&t| { let s = (t - t0) as f64 / 1e9; s >= from && s <= to }).collect();
    // stalls.pcap holds one connection: the range's packets are exactly its packets there.
    assert_eq!(times, inside);
}

#[test]
fn memory_is_one_unit_whatever_the_file_size() {
    // ~16 MB of capture pushed in 64 KiB chunks: the slicer never holds more than one
    // record (the largest record of these examples is under 70 KB with TSO).
    let one = example("tso-loss.pcap");
    let mut slicer = Slicer::new(whole(0));
    let mut written = 0usize;
    let mut pushed = 0usize;
    let mut out = Vec::new();
    while pushed < 16 << 20 {
        // Only the first copy's header is a header: later copies are pushed without it,
        // so the input stays one valid pcap file growing record by record.
        let body = if pushed == 0 { &one[..] } else { &one[24..] };
        for chunk in body.chunks(64 << 10) {
            slicer.push(chunk, &mut out).unwrap();
            written += out.len();
            out.clear(); // the caller writes each chunk's output away
            pushed += chunk.len();
        }
    }
    slicer.finish().unwrap();
    assert!(slicer.peak_buffer() <= 128 << 10, "held {} bytes", slicer.peak_buffer());
    assert!(written > 1 << 20, "the connection's packets were written ({written} bytes)");
}

#[test]
fn pcapng_interface_descriptions_and_comments_are_kept() {
    let bytes = example("pcapng-zero-window.pcapng");
    let (out, _) = slice_bytes(&bytes, whole(0), 4096).unwrap();
    // Every non-packet, non-statistics block of the input is in the output as it was.
    let blocks = |b: &[u8]| {
        let mut v = Vec::new();
        let mut at = 0;
        while at + 8 <= b.len() {
            let kind = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            let len = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
            v.push((kind, b[at..at + len].to_vec()));
            at += len;
        }
        v
    };
    let keep = |k: u32| !matches!(k, 2 | 3 | 5 | 6);
    let input: Vec<_> = blocks(&bytes).into_iter().filter(|(k, _)| keep(*k)).collect();
    let output: Vec<_> = blocks(&out).into_iter().filter(|(k, _)| keep(*k)).collect();
    assert!(input.iter().any(|(k, _)| *k == 1), "the example has an IDB");
    assert_eq!(output, input);
}

/// The compare view's pair (issue 42, item 6): two connections of one capture in one
/// pass, one section in the capture's order; each analyses as in the whole file, and a
/// range per connection keeps each one's own packets in its own range.
#[test]
fn a_pair_of_connections_slices_in_one_pass() {
    let bytes = example("sll2-any.pcap");
    let all = summaries(&bytes);
    // The two connections with the most packets (sll2-any holds a reused port pair too).
    let mut by_size: Vec<&ConnectionSummary> = all.iter().collect();
    by_size.sort_by_key(|c| std::cmp::Reverse(c.packets));
    let (a, b) = (by_size[0], by_size[1]);
    let (out, stats, kept) = slice_many_bytes(&bytes, vec![whole(a.id), whole(b.id)], 4096).unwrap();
    assert_eq!(kept, vec![a.packets, b.packets], "each connection's packets, all of them");
    assert_eq!(stats.packets_kept, a.packets + b.packets);
    let mut sliced = summaries(&out);
    assert_eq!(sliced.len(), 2, "two connections in the slice");
    // Numbered in order of first packet in the slice as in the file.
    sliced.sort_by(|x, y| x.start.total_cmp(&y.start));
    let mut pair = [a, b];
    pair.sort_by(|x, y| x.start.total_cmp(&y.start));
    for (s, c) in sliced.iter().zip(pair) {
        assert_eq!(counts(s), counts(c), "#{}", c.id);
        assert_eq!(s.endpoints, c.endpoints);
    }
    // Ranges of each connection's own (the compare view's range is from each one's start).
    let ranged = |c: &ConnectionSummary| SliceRequest { connection: c.id, from_s: Some(c.start), to_s: Some(c.start + (c.end - c.start) / 2.0) };
    let (_, _, kept) = slice_many_bytes(&bytes, vec![ranged(a), ranged(b)], 4096).unwrap();
    let alone = |c: &ConnectionSummary| slice_bytes(&bytes, ranged(c), 4096).unwrap().1.packets_kept;
    assert_eq!(kept, vec![alone(a), alone(b)]);
    assert!(kept[0] > 0 && kept[0] < a.packets, "{kept:?}");
}

/// A gzip capture is sliced under the caps the analysis applies (inflate.rs): 64 MiB
/// inflated from 64 KiB compressed is 1024:1, past the 200:1 no capture reaches, and
/// the slicer stops with inflate.rs's sentence instead of writing on.
#[test]
fn a_gzip_bomb_is_stopped_by_the_inflate_caps() {
    let one = example("tso-loss.pcap");
    let mut slicer = Slicer::new(whole(0));
    let mut out = Vec::new();
    let mut pushed = 0u64;
    let err = loop {
        let body = if pushed == 0 { &one[..] } else { &one[24..] };
        let mut stop = None;
        for chunk in body.chunks(1 << 20) {
            if let Err(e) = slicer.push_inflated(chunk, 64 << 10, &mut out) {
                stop = Some(e);
                break;
            }
            pushed += chunk.len() as u64;
            out.clear();
        }
        if let Some(e) = stop {
            break e;
        }
        assert!(pushed <= 65 << 20, "not stopped after {pushed} bytes");
    };
    assert!(err.message.contains("more than 200:1"), "{}", err.message);
    assert!(pushed > 60 << 20 && pushed <= 64 << 20, "stopped at the 64 MiB mark: {pushed}");
    // Within the caps (a real ratio), the same input slices on.
    let mut slicer = Slicer::new(whole(0));
    for chunk in one.chunks(1 << 16) {
        slicer.push_inflated(chunk, one.len() as u64 / 10, &mut out).unwrap();
    }
    assert_eq!(slicer.finish().unwrap().inflated, one.len() as u64);
}
