//! Hostile snapshots (issue 15, item 3): a link is text anyone can edit. Each row
//! of the table is a crafted snapshot and the words its message must contain; none
//! may panic, none may open as if it were fine. Then random damage to a real link:
//! every outcome is a message or a session whose answers are well-formed.

use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;
use tcpscope_core::share::bytes::{deflate, inflate, Writer};
use tcpscope_core::share::answer_bytes::Detail;
use tcpscope_core::share::answers::LEVELS;
use tcpscope_core::share::format::{self, Parsed};
use tcpscope_core::share::{build, ShareSpec, SnapshotSession};
use tcpscope_core::view::{Series, ViewEngine, ViewRequest};

fn example_link() -> Vec<u8> {
    let bytes = std::fs::read(format!("{}/../public/examples/rwnd-limited.pcap", env!("CARGO_MANIFEST_DIR"))).expect("example");
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
    let spec = ShareSpec { connection: 1, view: "c=1".into(), name: "rwnd-limited.pcap".into(), ..Default::default() };
    build(s.analysis().expect("analysed"), &s.report().to_json(), &mut ViewEngine::new(), &spec).expect("builds").bytes
}

/// The example's link as format 2 wrote it (deflate only): what links made before
/// format 3 hold, and the payload the crafted rows below edit.
fn example_link_v2() -> Vec<u8> {
    let Parsed::Answers(snap) = format::parse(&example_link()).expect("parses") else { panic!("answers") };
    let summary = snap.meta.summary().clone();
    let meta = tcpscope_core::share::meta::to_value(&snap.meta.name, &snap.meta.view, &snap.meta.report, &summary);
    format::encode_v2(&meta, &snap.grid, &snap.series, Detail { levels: LEVELS, ends: true, times: true })
}

/// Header + raw deflate of a payload, as format.rs writes it.
fn pack(format: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = b"TCPS".to_vec();
    out.push(format);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&deflate(payload));
    out
}

fn payload_of(link: &[u8]) -> Vec<u8> {
    inflate(&link[11..], 1 << 26, 0).expect("inflates")
}

/// The example's meta JSON, changed by `edit`, followed by `rest`.
fn with_meta(link: &[u8], edit: impl Fn(&mut serde_json::Value)) -> Vec<u8> {
    let payload = payload_of(link);
    let mut r = tcpscope_core::share::bytes::Reader::new(&payload);
    let text = r.str(1 << 22, "meta").expect("meta");
    let mut meta: serde_json::Value = serde_json::from_str(text).expect("json");
    edit(&mut meta);
    let mut w = Writer::default();
    w.str(&meta.to_string());
    w.buf.extend_from_slice(&payload[r.pos..]);
    pack(2, &w.buf)
}

/// The example's meta followed by a hand-made grid and series.
fn with_body(link: &[u8], body: impl Fn(&mut Writer)) -> Vec<u8> {
    let payload = payload_of(link);
    let mut r = tcpscope_core::share::bytes::Reader::new(&payload);
    let text = r.str(1 << 22, "meta").expect("meta");
    let mut w = Writer::default();
    w.str(text);
    body(&mut w);
    pack(2, &w.buf)
}

fn grid(w: &mut Writer, t0: f64, t1: f64, columns: u64) {
    w.f64(t0);
    w.f64(t1);
    w.uvarint(columns);
}

/// One point series (inflight, code 3) with `n` columns claimed.
fn points(w: &mut Writer, n: u64) {
    w.uvarint(1);
    w.byte(3); // inflight
    w.byte(0); // direction
    w.uvarint(0); // notes
    w.byte(1); // points
    w.f64(0.0);
    w.f64(1.0);
    w.uvarint(n);
    for _ in 0..n.min(100) {
        w.uvarint(0);
    }
}

#[test]
fn hostile_snapshots_get_a_clear_message() {
    let link = example_link_v2();
    let table: Vec<(&str, Vec<u8>, &str)> = vec![
        ("far-future end", with_meta(&link, |m| m["summary"]["end"] = 1e12.into()), "summary.end is 1e12"),
        ("end before start", with_meta(&link, |m| m["summary"]["end"] = (-5.0).into()), "summary.end"),
        ("NaN as text", with_meta(&link, |m| m["summary"]["start"] = "NaN".into()), "summary.start should be a number"),
        ("negative stall width", with_meta(&link, |m| m["summary"]["directions"][0]["stalls"] = serde_json::json!([{"start": 0.5, "duration": -1, "cause": "ack-wait", "frameBefore": 1, "frameAfter": 2, "endedBy": ""}])), "duration is -1"),
        ("share above 1", with_meta(&link, |m| m["summary"]["diagnosis"]["shares"]["loss"] = 7.into()), "shares.loss is 7"),
        ("missing summary", with_meta(&link, |m| m["summary"] = serde_json::Value::Null), "field summary should be an object"),
        ("stall count below the list", with_meta(&link, |m| {
            m["summary"]["directions"][1]["stalls"] = serde_json::json!([{"start": 0.5, "duration": 1, "cause": "ack-wait", "frameBefore": 1, "frameAfter": 2, "endedBy": ""}]);
            m["summary"]["directions"][1]["stallCount"] = 0.into();
        }), "field summary.directions[1].stallCount is 0, fewer than the 1 stalls listed"),
        ("stall count not whole", with_meta(&link, |m| m["summary"]["directions"][1]["stallCount"] = (-3.5).into()), "field summary.directions[1].stallCount should be a whole number"),
        ("10^9 stalls counted", with_meta(&link, |m| m["summary"]["directions"][0]["stallCount"] = 1_000_000_000u64.into()), "stallCount should be a whole number ≤ 100000"),
        ("unknown cause", with_meta(&link, |m| m["summary"]["directions"][1]["stalls"] = serde_json::json!([{"start": 0.5, "duration": 1, "cause": "gremlins", "frameBefore": 1, "frameAfter": 2, "endedBy": ""}])), "cause should be one of"),
        ("NaN view start", with_body(&link, |w| grid(w, f64::NAN, 1.0, 100)), "the view's start is NaN"),
        ("infinite view end", with_body(&link, |w| grid(w, 0.0, f64::INFINITY, 100)), "the view's end is inf"),
        ("far-future view", with_body(&link, |w| grid(w, 0.0, 1e12, 100)), "the view's end is 1e12"),
        ("negative view width", with_body(&link, |w| grid(w, 2.0, 1.0, 100)), "the view ends (1 s) before it starts (2 s)"),
        ("no columns", with_body(&link, |w| grid(w, 0.0, 1.0, 0)), "no pixel columns"),
        ("10^6 columns", with_body(&link, |w| grid(w, 0.0, 1.0, 1_000_000)), "the column count is 1000000"),
        ("10^6 points", with_body(&link, |w| {
            grid(w, 0.0, 1.0, 1600);
            points(w, 1_000_000);
        }), "the column count is 1000000"),
        ("points past the view", with_body(&link, |w| {
            grid(w, 0.0, 1.0, 10);
            points(w, 10);
            w.buf.truncate(w.buf.len() - 1);
            w.uvarint(5);
        }), "past the view's 10"),
        ("unknown series", with_body(&link, |w| {
            grid(w, 0.0, 1.0, 10);
            w.uvarint(1);
            w.byte(99);
        }), "unknown series 99"),
        ("cut short", link[..link.len() / 2].to_vec(), "corrupt or cut short"),
        ("zip bomb", pack(2, &vec![0u8; 1 << 20]).into_iter().enumerate().map(|(i, b)| if (7..11).contains(&i) { [0, 0, 1, 0][i - 7] } else { b }).collect(), "more than the 65536 bytes"),
        ("newer format", { let mut l = link.clone(); l[4] = 9; l }, "newer tcpscope (snapshot format 9)"),
        ("not a snapshot", b"GIF89a.....".to_vec(), "not a tcpscope snapshot"),
        ("trailing bytes", with_body(&link, |w| {
            let payload = payload_of(&link);
            let mut r = tcpscope_core::share::bytes::Reader::new(&payload);
            r.str(1 << 22, "meta").expect("meta");
            w.buf.extend_from_slice(&payload[r.pos..]);
            w.byte(0);
        }), "1 unexpected bytes"),
    ];
    for (name, bytes, words) in table {
        match SnapshotSession::open(&bytes) {
            Ok(_) => panic!("{name}: opened"),
            Err(e) => assert!(e.message.contains(words), "{name}: {:?} lacks {words:?}", e.message),
        }
    }
}

#[test]
fn damaged_links_never_panic() {
    let link = example_link_v2();
    let payload = payload_of(&link);
    let mut next = xorshift();
    for round in 0..600 {
        let mut p = payload.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() as usize) % p.len();
            p[i] = next() as u8;
        }
        if round % 3 == 0 {
            p.truncate((next() as usize) % p.len());
        }
        opens_well_formed_or_refuses(&pack(2, &p));
    }
}

fn xorshift() -> impl FnMut() -> u64 {
    let mut rng = 0x9E3779B97F4A7C15u64;
    move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    }
}

/// A message, or a session whose answers to a hostile request have finite edges.
fn opens_well_formed_or_refuses(bytes: &[u8]) {
    if let Ok(mut s) = SnapshotSession::open(bytes) {
        for series in [Series::Throughput, Series::Inflight, Series::Rwnd, Series::WindowLimited, Series::Stalls, Series::Sequence, Series::Ack, Series::WindowEdge, Series::Rtt] {
            let r = s.query(&ViewRequest { generation: 0, connection: 1, series, t0: f64::NAN, t1: 1e300, columns: 900, bin_seconds: Some(-1.0), stall_threshold_ms: Some(f64::NAN), direction: None });
            assert!(r.t0.is_finite() && r.t1.is_finite());
        }
    }
}

/// A link of the first round (format 1, per-packet columns): written by
/// web/share/snapshot.ts `encodeSnapshot` (as of issue 14) from charts/fixtures.ts
/// `makeFixture()` — 648 packets, 321 data segments of 1000 bytes in direction 0,
/// 314 RTT samples kept in the statistics, a view of 0–0.7021 s.
#[test]
fn first_round_links_still_open_and_answer_from_their_packets() {
    let bytes = std::fs::read(format!("{}/tests/fixtures/format1-snapshot.bin", env!("CARGO_MANIFEST_DIR"))).expect("fixture");
    let mut s = SnapshotSession::open(&bytes).expect("a format-1 link opens");
    assert_eq!(s.name(), "fixture.pcap");
    assert!(s.grid().is_none(), "answered from packets, not from a grid");
    let req = |series, bin: Option<f64>| ViewRequest { generation: 0, connection: 0, series, t0: 0.0, t1: 0.7021, columns: 800, bin_seconds: bin, stall_threshold_ms: None, direction: Some(0) };
    let r = s.query(&req(Series::Throughput, Some(1.0)));
    let tcpscope_core::view::ViewData::Bins(b) = &r.data else { panic!("{r:?}") };
    assert_eq!(b.bytes.iter().sum::<u64>(), 321_000, "every payload byte of direction 0");
    let r = s.query(&req(Series::Sequence, None));
    let tcpscope_core::view::ViewData::Points(p) = &r.data else { panic!("{r:?}") };
    assert_eq!(p.total, 321, "one point per data segment");
    let r = s.query(&req(Series::Rtt, None));
    let tcpscope_core::view::ViewData::Points(p) = &r.data else { panic!("{r:?}") };
    assert_eq!(p.total, 314, "the RTT samples of the statistics");
    for series in [Series::Inflight, Series::Rwnd, Series::WindowLimited, Series::Stalls, Series::Goodput, Series::Wire] {
        let r = s.query(&req(series, None));
        assert!(r.error.is_none(), "{series:?}: {:?}", r.error);
        assert!(!r.notes.iter().any(|n| n.contains("shared at")), "per-packet links have full detail");
    }
    let report: serde_json::Value = serde_json::from_str(&s.report_json()).expect("json");
    assert_eq!(report["connections"].as_array().map(Vec::len), Some(1));
}

/// Formats 3 and 4 (range-coded streams after the deflated part; 4 is 3's bytes with
/// build.rs's stall lists): cut anywhere, a false length of the deflated part, or
/// random damage to either part gives a message or a session whose answers are
/// well-formed, never a panic; the same link written as format 2 still opens, on the
/// same grid, and so do links of format 3 (those made before format 4).
#[test]
fn format_3_links_cut_or_damaged_get_a_message() {
    let link = example_link();
    assert_eq!(link[4], 4, "links are written as format 4");
    let mut v3 = link.clone();
    v3[4] = 3;
    assert_eq!(SnapshotSession::open(&v3).expect("a format-3 link opens").grid(), SnapshotSession::open(&link).expect("opens").grid());
    let v2 = SnapshotSession::open(&example_link_v2()).expect("the format-2 form opens");
    assert_eq!(v2.grid(), SnapshotSession::open(&link).expect("opens").grid());
    // Cut at every 97th byte: each a message (the header, the deflated part or the streams).
    for cut in (0..link.len() - 1).step_by(97) {
        let e = SnapshotSession::open(&link[..cut]).err().unwrap_or_else(|| panic!("cut at {cut} of {} opened", link.len()));
        assert!(e.message.contains("cut") || e.message.contains("ends in the middle") || e.message.contains("not a tcpscope snapshot"), "cut at {cut}: {}", e.message);
    }
    // A deflated part longer than the link.
    let mut long = link[..11].to_vec();
    long.extend_from_slice(&[0xff, 0xff, 0x03]);
    long.extend_from_slice(&link[13..]);
    let e = SnapshotSession::open(&long).err().expect("refused");
    assert!(e.message.contains("packed part of 65535 bytes"), "{}", e.message);
    let mut next = xorshift();
    for _ in 0..600 {
        let mut l = link.clone();
        for _ in 0..1 + next() % 4 {
            let i = 11 + (next() as usize) % (l.len() - 11);
            l[i] = next() as u8;
        }
        opens_well_formed_or_refuses(&l);
    }
}

/// Issue 45, item 8: every field of the summary the page reads is checked by the one
/// parser. Each row sets one field to what an attacker would write; the link must be
/// refused with a message naming the field (on main before issue 45 each of these
/// opened, and the page drew 0 charts, a broken table or empty charts).
#[test]
fn every_summary_field_the_page_reads_is_checked() {
    use serde_json::json;
    let link = example_link_v2();
    fn s(m: &mut serde_json::Value) -> &mut serde_json::Value {
        &mut m["summary"]
    }
    let table: Vec<(&str, Vec<u8>, &str)> = vec![
        ("fractional id", with_meta(&link, |m| s(m)["id"] = 1.5.into()), "summary.id should be a whole connection number"),
        ("process as an object", with_meta(&link, |m| s(m)["process"] = json!({"name": {"x": 1}, "pid": 1})), "summary.process.name should be a string"),
        ("process pid negative", with_meta(&link, |m| s(m)["process"] = json!({"name": "Safari", "pid": -1})), "summary.process.pid should be a whole number"),
        ("60,000-character process name", with_meta(&link, |m| s(m)["process"] = json!({"name": "A".repeat(60_000), "pid": 1})), "summary.process.name should be a string of at most 1000 bytes"),
        ("60,000-character endpoint", with_meta(&link, |m| s(m)["endpoints"][0] = "A".repeat(60_000).into()), "summary.endpoints[0] should be a string of at most"),
        ("unknown vantage", with_meta(&link, |m| s(m)["vantage"] = "satellite".into()), "summary.vantage should be one of"),
        ("path RTT as text", with_meta(&link, |m| s(m)["pathRttMs"] = "fast".into()), "summary.pathRttMs should be a number"),
        ("negative path RTT", with_meta(&link, |m| s(m)["pathRttMs"] = (-3).into()), "summary.pathRttMs is -3"),
        ("base RTT as a list", with_meta(&link, |m| s(m)["baseRttMs"] = json!([1])), "summary.baseRttMs should be a number"),
        ("method as a number", with_meta(&link, |m| s(m)["pathRttMethod"] = 7.into()), "summary.pathRttMethod should be a string"),
        ("capture loss negative", with_meta(&link, |m| s(m)["captureLoss"] = json!({"unseenSegments": -1, "unseenBytes": 0})), "summary.captureLoss.unseenSegments"),
        ("handshake syn as text", with_meta(&link, |m| s(m)["handshake"] = json!({"syn": "x", "synAck": null, "windowScaling": "absent"})), "summary.handshake.syn should be an object"),
        ("handshake scaling unknown", with_meta(&link, |m| s(m)["handshake"] = json!({"syn": null, "synAck": null, "windowScaling": "maybe"})), "summary.handshake.windowScaling should be one of"),
        ("episodes not a list", with_meta(&link, |m| s(m)["diagnosis"]["episodes"] = json!({"0": 1})), "summary.diagnosis.episodes should be a list"),
        ("episode of unknown kind", with_meta(&link, |m| s(m)["diagnosis"]["episodes"] = json!([{"start": 0, "end": 1, "kind": "aliens", "text": ""}])), "summary.diagnosis.episodes[0].kind"),
        ("episode backwards", with_meta(&link, |m| s(m)["diagnosis"]["episodes"] = json!([{"start": 2, "end": 1, "kind": "loss", "text": ""}])), "episodes[0].end is before"),
        ("evidence verdict unknown", with_meta(&link, |m| s(m)["diagnosis"]["evidence"]["verdict"] = "trust me".into()), "summary.diagnosis.evidence.verdict"),
        ("evidence rate as text", with_meta(&link, |m| s(m)["diagnosis"]["evidence"]["rateBps"] = "1e9".into()), "summary.diagnosis.evidence.rateBps should be a number"),
        ("ECN counts as text", with_meta(&link, |m| s(m)["directions"][0]["ecn"] = json!({"ect0": "a", "ect1": 0, "ce": 0})), "summary.directions[0].ecn.ect0"),
        ("RTT samples fractional", with_meta(&link, |m| s(m)["directions"][0]["rtt"]["samples"] = 2.5.into()), "summary.directions[0].rtt.samples"),
        ("RTT p95 negative", with_meta(&link, |m| s(m)["directions"][1]["rtt"]["p95Ms"] = (-1).into()), "summary.directions[1].rtt.p95Ms"),
        ("RTO events as text", with_meta(&link, |m| s(m)["directions"][0]["rtoEvents"] = "many".into()), "summary.directions[0].rtoEvents"),
        ("RTO chain intervals as text", with_meta(&link, |m| s(m)["directions"][0]["rtoChains"] = json!([{"start": 0, "timeouts": 2, "intervalsMs": "x"}])), "summary.directions[0].rtoChains[0].intervalsMs"),
        ("unseen datagrams negative", with_meta(&link, |m| s(m)["directions"][0]["unseenDatagrams"] = (-4).into()), "summary.directions[0].unseenDatagrams"),
        ("active mean as text", with_meta(&link, |m| s(m)["directions"][0]["throughput"]["activeMeanBps"] = "x".into()), "summary.directions[0].throughput.activeMeanBps"),
        ("capture duplicates fractional", with_meta(&link, |m| m["report"]["capture"]["duplicateFrames"] = 0.5.into()), "report.capture.duplicateFrames"),
    ];
    for (name, bytes, words) in table {
        match SnapshotSession::open(&bytes) {
            Ok(_) => panic!("{name}: opened"),
            Err(e) => assert!(e.message.contains(words), "{name}: {:?} lacks {words:?}", e.message),
        }
    }
    // Fields a writer added later may be absent from older links: those still open.
    let older = with_meta(&link, |m| {
        let o = m["summary"].as_object_mut().unwrap();
        for k in ["process", "vantage", "pathRttMs", "baseRttMs", "captureLoss", "handshake"] {
            o.remove(k);
        }
    });
    SnapshotSession::open(&older).expect("a link without the later fields opens");
}

/// Issue 45, item 9: a size bound for every link format. A format-1 (first-round,
/// per-packet) link packs a run of identical packets into almost nothing: 600,000
/// packets in a few KB, which unpacked to 870 MB in a tab. It is refused before any
/// column is allocated; a format-2 link claiming more than a link of answers holds is
/// refused from its header.
#[test]
fn every_link_format_has_a_size_bound() {
    let meta = {
        let payload = payload_of(&example_link_v2());
        let mut r = tcpscope_core::share::bytes::Reader::new(&payload);
        r.str(1 << 22, "meta").expect("meta").to_string()
    };
    let mut w = Writer::default();
    w.str(&meta);
    w.uvarint(600_000); // packets.t: 600,000 values …
    w.buf.extend(std::iter::repeat_n(0u8, 700_000)); // … which the data could hold.
    let bomb = pack(1, &w.buf);
    assert!(bomb.len() < 4_000, "a few KB of link: {}", bomb.len());
    let e = SnapshotSession::open(&bomb).err().expect("refused");
    assert!(e.message.contains("more than the 500000 a first-round link may hold"), "{}", e.message);

    let mut big = pack(2, &vec![0u8; 1 << 20]);
    big[7..11].copy_from_slice(&(9u32 << 20).to_le_bytes());
    let e = SnapshotSession::open(&big).err().expect("refused");
    assert!(e.message.contains("more than the 8 MB a link of view answers may unpack to"), "{}", e.message);
}

/// Issue 45, item 13: a damage message is one short line, whatever number the link holds
/// (a view ending at -1.28e-238 s was written as 240 characters of "-0.000…0128").
#[test]
fn a_damage_message_quotes_numbers_briefly() {
    let link = example_link_v2();
    let bytes = with_body(&link, |w| grid(w, 0.0, -1.28e-238, 100));
    let e = SnapshotSession::open(&bytes).err().expect("refused");
    assert!(e.message.contains("-1.28e-238"), "{}", e.message);
    assert!(e.message.len() < 200, "{} characters: {}", e.message.len(), e.message);
}
