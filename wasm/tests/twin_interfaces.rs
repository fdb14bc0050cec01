//! One pcapng whose interfaces are two vantage points (issue 44 item 1,
//! wasm/src/twin/interfaces.rs): split by interface, it merges exactly as the two files
//! it was made from.
//!
//! Fixture `fixtures/twin-forward-loss-mergecap.pcapng.gz`, made with Wireshark 4.0.17:
//!   mergecap -I none -w twin-forward-loss-mergecap.pcapng \
//!     public/examples/twin-forward-loss.pcap public/examples/twin-forward-loss-server.pcap
//!   gzip -9 -n twin-forward-loss-mergecap.pcapng
//! `-I none` keeps each input's interface (mergecap's default, `-I all`, joins two
//! identical interfaces into one: then nothing in the file says which end saw a packet;
//! `default_mergecap_output_is_refused_with_the_fix` below). Interface 0 holds the
//! client's 2,831 packets, interface 1 the server's 2,878 (`tshark -T fields -e
//! frame.interface_id`), interleaved in time order.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::twin::interfaces::{probe, InterfaceSplit, MIN_SHARED, PROBE_DECIDED};
use tcpscope_core::twin::{merge_captures, merge_interfaces, InterfaceTwin, TwinReport};

fn example(file: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"))).expect("example capture")
}

/// A gzip member (RFC 1952 §2.3: 10-byte header, optional fields by FLG, raw deflate).
fn gunzip(gz: &[u8]) -> Vec<u8> {
    assert_eq!(&gz[..3], &[0x1f, 0x8b, 8], "gzip, deflate");
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + u16::from_le_bytes([gz[at], gz[at + 1]]) as usize; // FEXTRA
    }
    for bit in [8, 16] {
        if flags & bit != 0 {
            at += gz[at..].iter().position(|&c| c == 0).expect("NUL-terminated") + 1; // FNAME, FCOMMENT
        }
    }
    if flags & 2 != 0 {
        at += 2; // FHCRC
    }
    miniz_oxide::inflate::decompress_to_vec(&gz[at..]).expect("deflate")
}

fn mergecap_file() -> Vec<u8> {
    gunzip(&std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/twin-forward-loss-mergecap.pcapng.gz")).expect("fixture"))
}

fn two_files() -> TwinReport {
    merge_captures(&example("twin-forward-loss.pcap"), &example("twin-forward-loss-server.pcap"), AnalysisOptions::default())
}

/// The probe finds interfaces 0 and 1 carrying the same segments, and stops reading
/// once it has seen `PROBE_DECIDED` of them: the forward path dropped 47 of the server's
/// datagrams, so nearly every segment is on both; 1,000 are found in the file's first
/// ~2,100 packets, well before its 5,709.
#[test]
fn the_probe_finds_two_vantage_points_and_stops_early() {
    let file = mergecap_file();
    let found = probe(&file);
    assert_eq!(found.sides, Some([0, 1]));
    assert_eq!(found.interfaces, 2);
    assert_eq!(found.shared, PROBE_DECIDED);
    assert!(!found.complete && found.bytes_read < file.len() as u64, "{found:?}");
    assert!(found.text.starts_with("interface 0 and interface 1 carry the same TCP segments (1000 or more seen on both)"), "{}", found.text);
}

/// The merged file, split by interface, gives the two-file merge's report exactly: the
/// split hands each side the section header, both interface descriptions and that
/// interface's packet blocks in file order, so each side decodes to the same segments,
/// with the same packet numbers, as the pcap it came from. The numbers below are the
/// two-file merge's (wasm/tests/twin_merge.rs): 47 lost between on the forward path =
/// the emulator's own drop count (wasm/tests/examples-truth/twin-forward-loss.json), none
/// on the return path; the same clock offset to the ns and the same placed stalls.
#[test]
fn split_by_interface_merges_as_the_two_files() {
    let want = two_files();
    let got = merge_interfaces(&mergecap_file(), AnalysisOptions::default()).expect("two vantage points");
    assert_eq!(got, want);
    let p = &got.pairs[0];
    assert_eq!(got.pairs.len(), 1);
    assert_eq!([p.directions[0].lost_between, p.directions[1].lost_between], [47, 0]);
    assert_eq!((p.sender_side.input, p.sender_side.connection, p.receiver_side.input), (1, 0, 0), "the server (interface 1) sent the data");
    let c = p.clock.as_ref().expect("clock");
    let w = want.pairs[0].clock.as_ref().unwrap();
    assert_eq!((c.offset_ms, c.uncertainty_ms), (w.offset_ms, w.uncertainty_ms));
    assert_eq!(p.stalls.iter().map(|s| s.place).collect::<Vec<_>>(), want.pairs[0].stalls.iter().map(|s| s.place).collect::<Vec<_>>());
}

/// Streamed in chunks of any size (blocks cut anywhere, even inside a header), the
/// merge is the same: the splitter buffers one partial block and no more.
#[test]
fn any_chunking_splits_alike() {
    let file = mergecap_file();
    let want = two_files();
    for size in [1usize, 7, 4096, 65_536] {
        let mut twin = InterfaceTwin::new([0, 1], AnalysisOptions::default());
        for chunk in file.chunks(size) {
            assert!(twin.push(chunk));
        }
        assert_eq!(twin.finish(), want, "chunks of {size}");
    }
}

/// Each side is a valid pcapng: both start with the file's non-packet blocks (its section
/// header and two interface descriptions, all before the first packet), then only their
/// own packets: 2,831 + 2,878 packets, as capinfos counts per interface, none left out.
#[test]
fn each_side_gets_the_headers_and_its_own_packets() {
    let file = mergecap_file();
    let mut split = InterfaceSplit::new([0, 1]);
    let mut sides: [Vec<u8>; 2] = Default::default();
    assert!(split.push(&file, &mut |k, b| sides[k].extend_from_slice(b)));
    assert!(split.notes().is_empty(), "{:?}", split.notes());
    let headers = sides[0].len() + sides[1].len() - file.len(); // the blocks both got
    assert!(headers > 0 && sides[0][..headers] == file[..headers] && sides[1][..headers] == file[..headers]);
    for (k, want) in [(0, 2831u64), (1, 2878)] {
        let session = tcpscope_core::session::analyze_bytes(&sides[k], AnalysisOptions::default(), 1 << 20);
        assert_eq!(session.report().capture.packets, want, "side {k}");
    }
}

/// mergecap's default (`-I all`) writes the two captures under one interface: the probe
/// refuses it and names the fix. Made here from the fixture as mergecap makes it from two
/// identical interfaces: the second IDB left out, every packet block on interface 0.
#[test]
fn default_mergecap_output_is_refused_with_the_fix() {
    let file = mergecap_file();
    let (mut one, mut at, mut idbs) = (Vec::new(), 0, 0);
    while at + 12 <= file.len() {
        let kind = u32::from_le_bytes(file[at..at + 4].try_into().unwrap());
        let len = u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap()) as usize;
        let mut block = file[at..at + len].to_vec();
        idbs += usize::from(kind == 1);
        if kind == 6 {
            block[8..12].copy_from_slice(&0u32.to_le_bytes());
        }
        if !(kind == 1 && idbs == 2) {
            one.extend_from_slice(&block);
        }
        at += len;
    }
    let found = probe(&one);
    assert_eq!((found.sides, found.interfaces, found.complete), (None, 1, true));
    assert!(found.text.contains("mergecap joins identical interfaces into one unless it is given -I none"), "{}", found.text);
    assert_eq!(merge_interfaces(&one, AnalysisOptions::default()).expect_err("refused"), found);
    // The same file with both IDBs kept, but every packet on interface 0: one vantage point.
    let mut all_on_0 = file.clone();
    let mut at = 0;
    while at + 12 <= all_on_0.len() {
        let len = u32::from_le_bytes(all_on_0[at + 4..at + 8].try_into().unwrap()) as usize;
        if all_on_0[at] == 6 {
            all_on_0[at + 8..at + 12].copy_from_slice(&0u32.to_le_bytes());
        }
        at += len;
    }
    let on_0 = probe(&all_on_0);
    assert_eq!(on_0.sides, None);
    assert!(on_0.text.starts_with("Its 2 interfaces: every TCP segment was captured on one of them"), "{}", on_0.text);
}

/// Other inputs get a clear answer, never a merge: a pcap (no interfaces to tell), the
/// single-interface pcapng example, and a pcapng of two unrelated captures (no segment
/// in common); a damaged block stops the split with its offset.
#[test]
fn other_files_say_why_not() {
    let pcap = probe(&example("twin-forward-loss.pcap"));
    assert_eq!(pcap.sides, None);
    assert!(pcap.text.starts_with("The file is not a pcapng"), "{}", pcap.text);
    assert!(pcap.bytes_read <= 1 << 20);
    let ng = probe(&example("pcapng-zero-window.pcapng"));
    assert_eq!((ng.sides, ng.complete), (None, true));
    assert!(ng.text.starts_with("It describes one interface"), "{}", ng.text);

    // Two pcapng files concatenated, as `cat a.pcapng b.pcapng` makes (one section each:
    // interfaces 0 and 1): the same file twice is the same segments on both ...
    let mut two = example("pcapng-zero-window.pcapng");
    two.extend_from_slice(&example("pcapng-zero-window.pcapng"));
    let same = probe(&two);
    assert_eq!(same.sides, Some([0, 1]), "one file twice is the same segments twice: {}", same.text);
    assert!(same.shared >= MIN_SHARED);
    // ... which the merge then refuses as one point given twice, never merges.
    let refused = merge_interfaces(&two, AnalysisOptions::default()).expect("split").refusal.expect("refused");
    assert_eq!(refused.kind, "same-capture", "{}", refused.message);
    // ... and a client's capture after another transfer's: nothing in common.
    let mut client = Vec::new();
    InterfaceSplit::new([0, 1]).push(&mergecap_file(), &mut |k, b| if k == 0 { client.extend_from_slice(b) });
    let unrelated = [example("pcapng-zero-window.pcapng"), client].concat();
    let u = probe(&unrelated);
    assert_eq!(u.sides, None, "{}", u.text);
    assert!(u.text.contains("carry no TCP segment in common: they are not two vantage points"), "{}", u.text);

    let mut damaged = mergecap_file();
    damaged.truncate(100_000);
    damaged[4..8].copy_from_slice(&7u32.to_le_bytes()); // the SHB's length: 7, not a multiple of 4
    let mut split = InterfaceSplit::new([0, 1]);
    assert!(!split.push(&damaged, &mut |_, _| {}));
    assert!(split.error().unwrap().message.starts_with("The pcapng block at byte 0 claims a length of 7 bytes"), "{:?}", split.error());
}

/// Damaged files never panic and never split wrongly: the fixture cut at many points and
/// with bytes overwritten (lengths, interface ids, magic) is probed and split in chunks;
/// a cut file's split says where it stopped.
#[test]
fn damaged_files_are_probed_and_split_without_panic() {
    let file = mergecap_file();
    let mut boundaries = std::collections::HashSet::new();
    let mut at = 0;
    while at < file.len() {
        boundaries.insert(at);
        at += u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap()) as usize;
    }
    for cut in (0..4000).step_by(37).chain((4000..file.len()).step_by(9973)) {
        let part = &file[..cut];
        let _ = probe(part);
        let mut twin = InterfaceTwin::new([0, 1], AnalysisOptions::default());
        for chunk in part.chunks(5000) {
            twin.push(chunk);
        }
        let r = twin.finish();
        let said = r.notes.iter().any(|n| n.contains("The file ends inside a block"));
        assert_eq!(said, !boundaries.contains(&cut), "cut at {cut}: {:?}", r.notes);
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        let mut bad = file[..20_000].to_vec();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % bad.len() as u64) as usize;
            bad[at] = (seed >> 32) as u8;
        }
        let _ = probe(&bad);
        let mut split = InterfaceSplit::new([0, 1]);
        split.push(&bad, &mut |_, b| assert!(b.len() >= 12 && b.len() % 4 == 0));
        let _ = split.notes();
    }
}
