//! Issue 13 on transformed copies of a recorded example (known answers by
//! construction): the same capture with a 10 ms clock, and with every frame captured
//! twice the way `tcpdump -i any` on a forwarding host sees it (TTL − 1, new IP
//! checksum, 150 µs later). The rules must give the original's story on both.
use tcpscope_core::analysis::{AnalysisOptions, ConnectionSummary, Vantage};
use tcpscope_core::session::analyze_bytes;

fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../public/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Records of a classic little-endian µs pcap: (ts_us, header+data bytes).
fn records(pcap: &[u8]) -> Vec<(u64, Vec<u8>)> {
    assert_eq!(&pcap[..4], &[0xd4, 0xc3, 0xb2, 0xa1], "little-endian µs pcap");
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= pcap.len() {
        let u = |o: usize| u32::from_le_bytes(pcap[at + o..at + o + 4].try_into().unwrap()) as u64;
        let (sec, usec, incl) = (u(0), u(4), u(8) as usize);
        out.push((sec * 1_000_000 + usec, pcap[at..at + 16 + incl].to_vec()));
        at += 16 + incl;
    }
    out
}

fn write(header: &[u8], recs: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = header[..24].to_vec();
    for (ts, r) in recs {
        let mut r = r.clone();
        r[0..4].copy_from_slice(&((ts / 1_000_000) as u32).to_le_bytes());
        r[4..8].copy_from_slice(&((ts % 1_000_000) as u32).to_le_bytes());
        out.extend_from_slice(&r);
    }
    out
}

fn main_conn(bytes: &[u8]) -> (ConnectionSummary, tcpscope_core::analysis::CaptureFacts) {
    let s = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    let a = s.analysis().expect("analysed");
    let payload = |c: &ConnectionSummary| c.directions[c.data_direction as usize].payload_bytes;
    (a.connections.iter().max_by_key(|c| payload(c)).unwrap().clone(), a.capture)
}

#[test]
fn ten_millisecond_clock() {
    // healthy.pcap (sender side, 10 ms path, µs clock) with every timestamp rounded
    // down to 10 ms, as old capture gear writes it.
    let orig = example("healthy.pcap");
    let recs: Vec<_> = records(&orig).into_iter().map(|(ts, r)| (ts / 10_000 * 10_000, r)).collect();
    let coarse = write(&orig, &recs);
    let (c, facts) = main_conn(&coarse);
    assert_eq!(facts.timestamp_resolution_ns, Some(10_000_000), "the clock's tick is found");
    // No RTT statistic below one tick (the old table said "0.00 ms"): the data's ACKs
    // come 10 ms after the data, i.e. 1 or 2 ticks later.
    let d = &c.directions[c.data_direction as usize];
    assert!(d.rtt.min_ms.is_some_and(|m| m >= 10.0), "{:?}", d.rtt);
    assert!(c.path_rtt_ms.is_some_and(|r| (10.0..=20.0).contains(&r)), "{:?}", c.path_rtt_ms);
    // The stall threshold is at least 3 ticks: a 10 ms "gap" is one tick of jitter.
    // The original has 0 gaps > 41 ms (README: max gap 26 ms); so must the copy.
    assert!(c.stall_threshold_ms >= 30.0, "{}", c.stall_threshold_ms);
    assert_eq!(d.stalls.len(), 0, "{:?}", d.stalls);
    assert!(d.throughput.bin_seconds >= 0.010);
    assert_eq!(c.diagnosis.limit, "path", "{}", c.diagnosis.text);
}

/// The IPv4 header of an Ethernet frame starts at byte 14 of the record's data.
fn forwarded_copy(rec: &[u8]) -> Vec<u8> {
    let mut r = rec.to_vec();
    let ip = 16 + 14;
    r[ip + 8] -= 1; // TTL − 1
    r[ip + 10] = 0;
    r[ip + 11] = 0;
    let ihl = ((r[ip] & 0x0f) as usize) * 4;
    let mut sum: u32 = 0;
    for k in (0..ihl).step_by(2) {
        sum += u16::from_be_bytes([r[ip + k], r[ip + k + 1]]) as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let ck = !(sum as u16);
    r[ip + 10..ip + 12].copy_from_slice(&ck.to_be_bytes());
    r
}

/// Every record again `later_us` after it as a forwarded copy, in time order.
fn seen_twice(recs: &[(u64, Vec<u8>)], later_us: u64) -> Vec<(u64, Vec<u8>)> {
    let mut doubled = Vec::new();
    for (ts, r) in recs {
        doubled.push((*ts, r.clone()));
        doubled.push((ts + later_us, forwarded_copy(r)));
    }
    doubled.sort_by_key(|x| x.0);
    doubled
}

#[test]
fn any_interface_copies_are_one_packet() {
    // rwnd-limited.pcap with every TCP frame of both directions seen twice, 150 µs
    // apart, TTL − 1 and a new header checksum (a forwarding host's -i any capture).
    // Before issue 13 the copies became retransmissions, duplicate ACKs and stalls.
    let orig = example("rwnd-limited.pcap");
    let recs = records(&orig);
    let (a, _) = main_conn(&orig);
    let (b, facts) = main_conn(&write(&orig, &seen_twice(&recs, 150)));
    // Every frame but the RSTs (a closed socket's answers are identical by
    // construction, IP ID 0, and never merged) is one copy: 8731 frames, 28 RSTs.
    let rsts = 28;
    assert_eq!(facts.duplicate_frames, recs.len() as u64 - rsts, "copies found");
    let (da, db) = (&a.directions[a.data_direction as usize], &b.directions[b.data_direction as usize]);
    assert_eq!((db.packets, db.retransmissions, db.duplicate_acks), (da.packets, da.retransmissions, da.duplicate_acks));
    assert_eq!(b.directions[1 - b.data_direction as usize].duplicate_acks, 0);
    assert_eq!(db.stalls.len(), da.stalls.len());
    assert_eq!(b.diagnosis.limit, a.diagnosis.limit, "{}", b.diagnosis.text);
    assert_eq!(b.vantage, Vantage::Sender);
    assert_eq!(b.path_rtt_ms, a.path_rtt_ms);
}

#[test]
fn two_taps_30_ms_apart_are_one_packet() {
    // Real Linux recordings (a socket's IPv4 ID counter, SYN/ACK with ID 0) with every
    // frame seen again 30 ms later, TTL − 1: two capture points a one-way delay apart.
    // Every copy but the RSTs' is merged (the handshake's by the SYN rule, the rest by
    // the changing Identification), and the story is the original's. (rwnd-limited:
    // 4,170 frames/s, so 250 new frames come between a frame and its copy; the former
    // direct-mapped table of 4,096 fingerprints forgot 6 % of the originals.)
    for (name, rsts) in [("rwnd-limited.pcap", 28), ("loss-1pct.pcap", 62), ("cubic-loss.pcap", 0)] {
        let orig = example(name);
        let recs = records(&orig);
        let (a, _) = main_conn(&orig);
        let (b, facts) = main_conn(&write(&orig, &seen_twice(&recs, 30_000)));
        assert_eq!(facts.duplicate_frames, recs.len() as u64 - rsts, "{name}: copies found");
        // Packets of the data direction too (the RSTs, never merged, go the other way).
        let data = |c: &ConnectionSummary| c.directions[c.data_direction as usize].packets;
        assert_eq!(data(&b), data(&a), "{name}");
        for d in 0..2 {
            let (da, db) = (&a.directions[d], &b.directions[d]);
            // (Not the stalls: the copies run the capture 30 ms past its last frame, and
            // loss-1pct ends with data in flight, so its tail becomes a 45 ms stall.)
            let counts = |x: &tcpscope_core::analysis::DirectionSummary| (x.retransmissions, x.duplicate_acks, x.fast_retransmissions, x.rto_events);
            assert_eq!(counts(db), counts(da), "{name} direction {d}");
        }
        assert_eq!(b.diagnosis.limit, a.diagnosis.limit, "{name}: {}", b.diagnosis.text);
    }
}
