//! The report does not depend on the order of the file (issue 39 item 1;
//! docs/ANALYSIS.md "Time order"): packets are analysed in time order, as Wireshark
//! plots them, so a capture and its copy sorted by time give the same report, frame
//! numbers apart (each names its own file's frames).

use crate::common;

use common::decode_chunked;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tcpscope_core::analysis::columns::PacketColumns;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::tcp_flags::{ACK, SYN};
use tcpscope_core::decode::Decoded;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::synth::*;

fn report(bytes: &[u8]) -> Value {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    serde_json::from_str(&s.report().to_json()).expect("report JSON")
}

/// `report` with the sorted copy's frame numbers given back their place in the
/// original (`order[k]`: the original index of the copy's packet k), and without the
/// one warning the original's order alone makes (`time-went-backwards` counts steps
/// back in the file).
fn comparable(mut r: Value, order: Option<&[usize]>) -> Value {
    fn walk(v: &mut Value, order: &[usize]) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    match (k.as_str(), x.as_u64()) {
                        ("frameBefore" | "frameAfter", Some(f)) if f >= 1 => *x = Value::from(order[f as usize - 1] as u64 + 1),
                        _ => walk(x, order),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, order)),
            _ => {}
        }
    }
    if let Some(order) = order {
        walk(&mut r, order);
    }
    if let Some(Value::Array(w)) = r.get_mut("warnings") {
        w.retain(|w| w["kind"] != "time-went-backwards");
    }
    r
}

/// The first place two JSON values differ, for a readable failure.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = format!("{path}.{k}");
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, &p) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{p}: missing")),
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: keys {} vs {}", x.len(), y.len()))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(v, w, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: {} vs {} items", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

fn u32_at(b: &[u8], at: usize, big: bool) -> u32 {
    let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if big { u32::from_be_bytes(w) } else { u32::from_le_bytes(w) }
}

/// A section of a capture: its header, its other blocks, its packet records and their
/// packet indices.
type Units<'a> = (Vec<u8>, Vec<&'a [u8]>, Vec<(&'a [u8], usize)>);

/// A copy of a capture with its packets stably sorted by timestamp (the decoder's
/// times, so every format's resolution and offset count), and `order`; None where a
/// copy cannot mean the same file (a decode error, Simple Packet Blocks, whose time is
/// the packet's before them, or pcapng sections that overlap in time), with why.
fn sorted_copy(bytes: &[u8]) -> Result<(Vec<u8>, Vec<usize>), String> {
    let (packets, _, err) = decode_chunked(bytes, 1 << 20);
    if let Some(e) = err {
        return Err(format!("decode error: {}", e.message));
    }
    let ts: Vec<i64> = packets
        .iter()
        .map(|p| match p {
            Decoded::Tcp(s) => s.ts_ns,
            Decoded::Other { ts_ns, .. } => *ts_ns,
        })
        .collect();
    // Units in file order: (bytes, packet index if a packet record); one group per
    // section (pcap: one).
    let mut sections: Vec<Units<'_>> = Vec::new();
    let mut next = 0usize;
    let magic = u32::from_le_bytes(bytes[..4].try_into().unwrap());
    if magic == 0x0a0d0d0a {
        let mut at = 0;
        let mut big = false;
        while at + 12 <= bytes.len() {
            let le_type = u32_at(bytes, at, false);
            if le_type == 0x0a0d0d0a {
                big = u32_at(bytes, at + 8, false) != 0x1a2b3c4d;
            }
            let kind = u32_at(bytes, at, big);
            let len = u32_at(bytes, at + 4, big) as usize;
            let block = &bytes[at..at + len];
            match kind {
                0x0a0d0d0a => sections.push((block.to_vec(), Vec::new(), Vec::new())),
                6 | 2 => {
                    sections.last_mut().unwrap().2.push((block, next));
                    next += 1;
                }
                3 => return Err("simple packet blocks".into()),
                _ => sections.last_mut().unwrap().1.push(block),
            }
            at += len;
        }
    } else {
        let big = matches!(magic, 0xd4c3b2a1 | 0x4d3cb2a1);
        let mut s = (bytes[..24].to_vec(), Vec::new(), Vec::new());
        let mut at = 24;
        while at + 16 <= bytes.len() {
            let len = 16 + u32_at(bytes, at + 8, big) as usize;
            s.2.push((&bytes[at..at + len], next));
            next += 1;
            at += len;
        }
        sections.push(s);
    }
    if next != ts.len() {
        return Err(format!("{next} packet records, {} packets decoded", ts.len()));
    }
    let mut out = Vec::new();
    let mut order = Vec::new();
    let mut latest = i64::MIN;
    for (head, others, mut records) in sections {
        records.sort_by_key(|&(_, i)| ts[i]); // stable: ties keep file order
        if records.first().is_some_and(|&(_, i)| ts[i] < latest) {
            return Err("pcapng sections overlap in time".into());
        }
        latest = records.last().map_or(latest, |&(_, i)| ts[i]);
        out.extend_from_slice(&head);
        others.iter().for_each(|b| out.extend_from_slice(b));
        for (b, i) in records {
            out.extend_from_slice(b);
            order.push(i);
        }
    }
    Ok((out, order))
}

fn captures_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "pcap" || e == "pcapng"));
    files.sort();
    files
}

#[test]
fn every_capture_and_its_copy_sorted_by_time_give_the_same_report() {
    // The examples, and the shared captures (written by others) where they exist. A
    // file already in time order is its own sorted copy: it passes trivially, and is
    // counted apart. Equal reports (connections, counts, stalls, the diagnosis' every
    // sentence) say that nothing in the analysis depends on the file's order beyond
    // the time order the analysis restores.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("TCPSCOPE_SHARED").map(PathBuf::from).unwrap_or_else(|| root.join("../../shared"));
    let mut files = captures_in(&root.join("../public/examples"));
    files.extend(captures_in(&shared.join("captures")));
    let (mut compared, mut reordered, mut skipped) = (0, 0, Vec::new());
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let (copy, order) = match sorted_copy(&bytes) {
            Ok(c) => c,
            Err(why) => {
                skipped.push(format!("{}: {why}", path.display()));
                continue;
            }
        };
        compared += 1;
        if order.iter().enumerate().all(|(k, &i)| k == i) {
            continue;
        }
        reordered += 1;
        let original = comparable(report(&bytes), None);
        let sorted = comparable(report(&copy), Some(&order));
        assert!(
            original["warnings"].as_array().unwrap().iter().all(|w| w["kind"] != "time-order-clamped"),
            "{}: steps back beyond the reordering window",
            path.display()
        );
        if let Some(d) = first_difference(&original, &sorted, "") {
            panic!("{}: the report depends on the file's order: {d}", path.display());
        }
    }
    eprintln!("{compared} captures compared, {reordered} of them out of time order; skipped: {skipped:?}");
    assert!(compared >= 40, "the examples alone are 48 captures");
}

/// A two-interface pcapng as dumpcap writes one: each interface's packets reach the
/// file in blocks, one interface's buffer and then the other's every `flush_us`, so a
/// block starts up to `flush_us` earlier than the packet written before it.
fn written_in_blocks(frames: &[Frame], flush_us: i64) -> Vec<Frame> {
    let start = frames.iter().map(|f| f.ts_ns).min().unwrap();
    let mut blocks: Vec<(i64, u32, usize)> =
        frames.iter().enumerate().map(|(i, f)| ((f.ts_ns - start) / (flush_us * 1_000), f.interface, i)).collect();
    blocks.sort(); // by flush period, then interface, then time within it
    blocks.into_iter().map(|(_, _, i)| frames[i].clone()).collect()
}

/// A 4 MB download over a 20 ms path at 11.6 Mbit/s: the handshake, then 1448-byte
/// segments every ms, each second one acknowledged a path RTT later; after segment
/// 1,399 (acknowledged) the server's application pauses 300 ms, then writes one
/// 500-byte message, which the client acknowledges only by its 200 ms delayed-ACK
/// timer, and the server sends the rest (full segments) only after that ACK. Interface 0 sees the
/// client's packets, interface 1 the server's (a capture on both ports of a bridge).
/// The two stalls are found by frame numbers (columns.rs `row_of`; delayed_ack.rs,
/// sender_clock.rs, throughput.rs's bursts, the episodes), which in the block file do
/// not increase with the rows.
fn download() -> Vec<Frame> {
    let mut f = Flow::new("10.39.0.1:40000", "10.39.0.2:443");
    // The client's ACK 50 µs after the SYN/ACK (`Flow::handshake` stamps both alike):
    // packets of the two interfaces with the very same stamp are in the file's order,
    // in a sort as in Wireshark, so the two files would differ there by construction.
    let opts = Opts::new().mss(1460).wscale(7).sack_perm();
    f.push(C2S, 0).flags(SYN).ack(0).opts(opts);
    f.push(S2C, 20_000).flags(SYN | ACK).opts(opts);
    f.push(C2S, 20_050);
    let mut t = 30_000;
    for i in 0..2_800 {
        if i == 1_400 {
            // 300 ms pause after the ACK of segment 1,399; the 500-byte message; its
            // ACK 20 ms + 200 ms later; the next segment 20.1 ms after that ACK: the
            // capture is at the client, 20 ms from the server, so a segment Nagle's
            // algorithm let go as the ACK reached the server comes back a round trip
            // after it (issue 39, review H: one 100 µs after the ACK had left the server
            // before the ACK got there, and nothing released it).
            t += 300_000;
            f.data(S2C, t, 500);
            f.push(C2S, t + 220_000);
            t += 240_100;
        }
        f.data(S2C, t, 1448);
        if i % 2 == 1 {
            // The ACK of everything scripted so far (up to segment i), 20 ms after i.
            f.push(C2S, t + 20_000);
        }
        t += 1_000;
    }
    let mut frames = f.frames();
    for (fr, s) in frames.iter_mut().zip(f.segments()) {
        fr.interface = u32::from(s.src.port() == 443);
    }
    frames.sort_by_key(|fr| fr.ts_ns);
    frames
}

#[test]
fn a_two_interface_pcapng_written_in_blocks_reads_as_the_same_packets_in_time_order() {
    // Issue 39 item 2: written in blocks of 250 ms per interface, the file steps back up
    // to 250 ms at each block (the client's ACKs of a period after all of the server's
    // data of it). In file order that made a fake ~250 ms stall, a wrong peak and RTT.
    // Analysed in time order (within the 2 s window) it is the same capture as the
    // packets written in time order: the same report, frame for frame.
    let frames = download();
    let sections = |fr: Vec<Frame>| {
        write_pcapng(&[Section::new(Endian::Little, vec![Interface::new(Link::Ethernet).tsresol(6), Interface::new(Link::Ethernet).tsresol(6)], fr)])
    };
    let in_time = sections(frames.clone());
    let blocks = written_in_blocks(&frames, 250_000);
    assert_ne!(blocks, frames, "the blocks step back");
    let in_blocks = sections(blocks.clone());
    // The block file's frame k is the time-ordered file's frame order[k].
    let order: Vec<usize> = blocks.iter().map(|b| frames.iter().position(|f| f == b).unwrap()).collect();
    let a = comparable(report(&in_time), None);
    let mut b = report(&in_blocks);
    let backwards = b["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == "time-went-backwards").map(|w| w["count"].clone());
    assert!(backwards.is_some_and(|c| c.as_u64().unwrap() > 10), "the file steps back at every block");
    b = comparable(b, Some(&order));
    if let Some(d) = first_difference(&a, &b, "") {
        panic!("the blocks change the report: {d}");
    }
    // And the report is the download's. The path RTT is the handshake's, 20 ms to the
    // server and back + 50 µs to the client and back; the peak is one segment per ms,
    // 100 or 101 (a segment stamped on a bin edge) of 1448 B in a 100 ms bin:
    // 101 × 1448 × 8 / 0.1 s. In file order (before issue 39) the same file read a
    // path RTT of 251 ms, a peak of 28.96 Mbit/s and, its stall threshold then 4 × 251
    // ms, neither of the two stalls below.
    let c = &a["connections"][0];
    assert_eq!(c["pathRttMs"], 20.05);
    assert_eq!(c["directions"][1]["throughput"]["peakBps"], 11_699_840.0);
    // Two stalls, found alike in both files though the block file's frame numbers do not
    // increase with its rows: the 300 ms pause after segment 1,399 (301 ms from it, with
    // the 1 ms step) with everything acknowledged, and the 240.1 ms after the 500-byte
    // message until the client's 200 ms delayed ACK (+ 20 ms path, + 20 ms for the ACK
    // to reach the server and the segment to come back) let the next segment go. That
    // segment is a full one (1,448 B, the sender's size), which Nagle's algorithm never
    // holds (RFC 896; nagle_shape.rs `released_full`, review Y): a wait on the ACK.
    let stalls: Vec<(&str, f64)> = c["directions"][1]["stalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["cause"].as_str().unwrap(), s["duration"].as_f64().unwrap()))
        .collect();
    assert_eq!(stalls, vec![("application-idle", 0.301), ("ack-wait", 0.2401)]);
}

#[test]
fn a_step_back_beyond_the_window_is_not_analysed_and_counted() {
    // One data packet of the blocks' download stamped 50 s early: more than the 2 s
    // the analysis sorts, so its own time can no longer be kept and no other time is
    // its: it is left out (not analysed 50 s before the capture, which would open a
    // 50 s stall, nor at the latest time seen, review N C-CLAMP) and counted, once, in
    // the `time-order-clamped` warning; the file's step back is `time-went-backwards`.
    let mut frames = download();
    let k = frames.len() / 4; // in the first run of data, before the pause
    frames[k].ts_ns -= 50_000_000_000;
    let r = report(&write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let count = |kind: &str| r["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == kind).map(|w| w["count"].as_u64().unwrap());
    assert_eq!((count("time-order-clamped"), count("time-went-backwards")), (Some(1), Some(1)));
    let c = &r["connections"][0];
    assert_eq!(c["start"], 0.0);
    // Only the download's own two stalls (the pause, the wait on the delayed ACK): none opened.
    let causes: Vec<&str> = c["directions"][1]["stalls"].as_array().unwrap().iter().map(|s| s["cause"].as_str().unwrap()).collect();
    assert_eq!(causes, vec!["application-idle", "ack-wait"]);
    assert_eq!(c["directions"][0]["stalls"].as_array().unwrap().len(), 0);
}

#[test]
fn a_capture_appended_to_itself_reads_as_the_capture_once() {
    // The download (3.4 s, 4,205 packets) written twice in one file, the second copy
    // with the same bytes and timestamps (`cat` of two pcap bodies, mergecap -a of a
    // file with itself). The copy steps back 3.4 s: analysed at "the latest time seen"
    // (before session 30) it read as a second transfer squeezed into the last
    // instant. Each copied packet matches one that came before the newest stamp's
    // packet in the file (capture/timeline.rs, Repeats): the report is the single
    // copy's, connection for connection, with every copied packet counted once as
    // `duplicate-frames` and none as out of order.
    let frames = download();
    let once = report(&write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let mut twice = frames.clone();
    twice.extend(frames.iter().cloned());
    let r = report(&write_pcap(&twice, &Link::Ethernet, Endian::Little, TsResolution::Micro));
    let warning = |r: &Value, kind: &str| r["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == kind).map(|w| w["count"].as_u64().unwrap());
    assert_eq!(frames.len(), 4_205);
    assert_eq!(warning(&r, "duplicate-frames"), Some(4_205));
    assert_eq!(warning(&r, "time-order-clamped"), None);
    let message = r["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == "duplicate-frames").unwrap()["message"].as_str().unwrap().to_string();
    assert!(message.starts_with("4205 packets the file holds twice"), "{message}");
    assert_eq!(first_difference(&once["connections"], &r["connections"], ""), None);
}

#[test]
fn corpus_a_capture_held_twice_is_not_squeezed_into_its_last_instant() {
    // markofu/pcaps ftp-crack.pcap holds its 9,865 packets twice (frame 9,866 steps
    // back to the first packet's stamp; frames 11,228–11,439 repeat 1,363–1,574, with
    // identical timestamps, tshark). Connection 109 is a 1 s FTP login: banner 6.384 s,
    // "530" at 6.571 s (frame 1,497), FINs by 6.730 s, RST 1,574 at 7.033 s. Before
    // session 30 the 9,377 copies beyond the 2 s window were analysed at 44.6 s and the
    // page read "the sender was stalled for 38 s … closed from 6.571 s to 44.603 s"
    // (review N, C-CLAMP). Now every copy is a repeat, not analysed again, and the
    // connection ends at its own RST, 7.033 s, its 17 packets once each.
    let Some(bytes) = common::corpus("markofu__pcaps__PracticalPacketAnalysis_ppa-capture-files_ftp-crack.pcap") else { return };
    let r = report(&bytes);
    let warning = |kind: &str| r["warnings"].as_array().unwrap().iter().find(|w| w["kind"] == kind).map(|w| w["count"].as_u64().unwrap());
    assert_eq!(warning("time-order-clamped"), None);
    assert!(warning("duplicate-frames").unwrap() >= 9_864);
    assert_eq!(r["capture"]["duration"], 44.602753);
    let c = &r["connections"][109];
    assert_eq!((c["packets"].as_u64(), c["end"].as_f64()), (Some(17), Some(7.032605)));
    let text = c["diagnosis"]["text"].as_str().unwrap();
    assert!(!text.contains("44.6") && !text.contains("38 s"), "{text}");
}

#[test]
fn a_row_is_found_by_its_time_where_frame_numbers_do_not_increase() {
    // Rows in time order carrying the frame numbers of a file written in blocks (two
    // interfaces interleaved): 1 4 2 5 3 6. A binary search by frame misses frame 2
    // (it looks at 5, then 4, then 1); by time, then frame, every row is found.
    let p = PacketColumns { t: vec![0.0, 0.001, 0.002, 0.003, 0.004, 0.004], frame: vec![1, 4, 2, 5, 3, 6], ..Default::default() };
    assert!(p.frame.binary_search(&2).is_err());
    for (row, &f) in p.frame.iter().enumerate() {
        assert_eq!(p.row_of(f, p.t[row]), Some(row), "frame {f}");
    }
    // A frame at another time is not taken for it: frame 2 is at 2 ms, not 4 ms.
    assert_eq!(p.row_of(2, 0.004), None);
    assert_eq!(p.rows_of(4, 3, 0.001, 0.003), Some((1, 4)));
}
