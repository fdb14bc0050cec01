//! A compare link's merged view (`twin-snap=`, share/twin.rs) on every twin recording of
//! public/examples: it fits its half of the link, opens as the same panel, and a hostile
//! one is refused with a sentence, never a panic.

use serde_json::{json, Value};
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::share::bytes::{deflate, from_base64url, to_base64url, Writer};
use tcpscope_core::share::packed::Packer;
use tcpscope_core::share::twin::{self, MAX_TWIN_CHARS, WORDS};
use tcpscope_core::twin::{merge_captures, TwinPair, TwinReport};

fn read(file: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../public/examples/{file}", env!("CARGO_MANIFEST_DIR"))).expect("example capture")
}

fn merged(name: &str) -> TwinReport {
    merge_captures(&read(&format!("{name}.pcap")), &read(&format!("{name}-server.pcap")), AnalysisOptions::default())
}

/// The compare view's plot on a 1280 px window is about 900 px wide: the columns asked.
const COLUMNS: u32 = 900;

/// Each twin recording: the first pair's link part (characters, the columns its series
/// were cut to, the cap of its other lists).
const SIZES: [(&str, usize, u32, Option<u32>); 10] = [
    // Bulk transfers of 2 to 10 s: two time-sequence series of up to 1000 bins and two
    // one-way delay series of up to 2000 go down to 159 or 66 columns (¾ at each try from
    // 900); the panel's numbers and words take about 680 bytes deflated; the ACK lines are
    // M4-cut to the columns; the datagrams of note stay whole, but twin-ack-loss's 237,
    // capped at 128 (a note says so). The stalls counted once (`distinctStalls`) add 4
    // characters to a pair without stalls (the empty list's key).
    ("rx-bulk-twin", 3766, 66, None),
    // 210 stalls with a sentence each (63 KB of text), 106 once counted: 16 rows of each
    // list (424 characters more than the rows alone), and 20 columns. (`peerWaitFrames`
    // is left out where none: no host's late answer held the peer's next message here.)
    ("rx-rr-twin", 3610, 20, Some(16)),
    ("twin-ack-loss", 3699, 64, Some(128)),
    ("twin-forward-loss", 3732, 66, None),
    ("twin-nat", 3955, 66, None),
    ("twin-receiver-pause", 3775, 159, None),
    ("twin-reorder", 4014, 66, None),
    // Request/response connections of well under a second: everything at 900 columns.
    ("twin-rr-loss", 2450, 900, None),
    ("twin-sender-pause", 3760, 159, None),
    ("twin-uplink-queue", 3695, 159, None),
];

fn opened(shared: &twin::Shared) -> TwinReport {
    twin::open(&from_base64url(&shared.snapshot).expect("base64url")).expect("opens")
}

/// What the panel shows (TwinPanel.tsx) of a pair, every number exact: every value but
/// the lists of rows a link may cut (series, stalls, events), compared apart.
fn panel(p: &TwinPair) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|_, x| !x.as_array().is_some_and(|a| a.iter().any(Value::is_object)));
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(p).unwrap();
    let directions = v["directions"].take();
    strip(&mut v);
    // The two directions' numbers (a list of two, never cut), without their series.
    v["directions"] = directions;
    v["directions"].as_array_mut().unwrap().iter_mut().for_each(strip);
    v
}

#[test]
fn every_recording_fits_its_half_of_a_link_and_opens_as_the_same_panel() {
    for (name, chars, columns, cap) in SIZES {
        let report = merged(name);
        assert!(report.refusal.is_none(), "{name}");
        for (k, pair) in report.pairs.iter().enumerate() {
            let shared = twin::share(&report, k, COLUMNS, 0).unwrap_or_else(|e| panic!("{name} pair {k}: {e}"));
            assert!(shared.snapshot.len() <= MAX_TWIN_CHARS, "{name} pair {k}: {}", shared.snapshot.len());
            if k == 0 {
                assert_eq!((name, shared.snapshot.len(), shared.columns, shared.cap), (name, chars, columns, cap));
            }
            let back = opened(&shared);
            assert_eq!(back.pairs.len(), 1);
            let got = &back.pairs[0];
            assert_eq!(panel(got), panel(pair), "{name} pair {k}: the panel's numbers, exact");
            // A list comes back whole (every stall where the sender's page placed it), or
            // a note says how many of how many the link holds.
            let said = |what: &str, n: usize, of: usize| back.notes.contains(&format!("This link holds {n} of the pair's {of} {what}, spread evenly over time; the counts above are the whole pair's."));
            if got.stalls.len() == pair.stalls.len() {
                assert_eq!(got.stalls, pair.stalls, "{name} pair {k}");
            } else {
                assert!(said("stalls", got.stalls.len(), pair.stalls.len()), "{name} pair {k}: {:?}", back.notes);
            }
            assert!(got.events.len() == pair.events.len() || said("events", got.events.len(), pair.events.len()), "{name} pair {k}: {:?}", back.notes);
            for (d, e) in got.directions.iter().zip(&pair.directions) {
                let bins = e.delay_series.len().min(shared.columns as usize);
                assert!(d.delay_series.len() <= bins && !d.delay_series.is_empty() == !e.delay_series.is_empty(), "{name}");
                // The merged bins still hold the extremes of the delays.
                let least = |s: &[tcpscope_core::twin::DelayBin]| s.iter().map(|b| b.min_ms).fold(f64::MAX, f64::min);
                let greatest = |s: &[tcpscope_core::twin::DelayBin]| s.iter().map(|b| b.max_ms).fold(0.0, f64::max);
                if !e.delay_series.is_empty() {
                    assert!(least(&d.delay_series) <= least(&e.delay_series) && greatest(&d.delay_series) >= greatest(&e.delay_series), "{name}");
                    assert!((least(&d.delay_series) - least(&e.delay_series)).abs() < 0.01, "{name}: to the quantum");
                }
            }
        }
    }
}

/// A request/response pair's link holds everything: each of its stalls with its place,
/// and (one of 12 connections) says which it is.
#[test]
fn a_small_pair_is_carried_whole() {
    let report = merged("twin-rr-loss");
    assert_eq!(report.pairs.len(), 12);
    let shared = twin::share(&report, 0, COLUMNS, 0).unwrap();
    let back = opened(&shared);
    let (got, sent) = (&back.pairs[0], &report.pairs[0]);
    assert_eq!(got.stalls, sent.stalls);
    assert_eq!(got.stalls.len(), 4);
    // Bins are 1 ms wide over under a second: fewer than 900, kept (times to the quantum).
    assert_eq!(got.directions[0].delay_series.len(), sent.directions[0].delay_series.len());
    assert_eq!(back.notes, ["This link holds connection 1 of the 12 found in both captures (10.77.0.1:9239 → 10.77.0.2:33872)."]);
}

/// The page shares the report it holds as JSON (bindings.rs `twinLink`, `answer`): read
/// back, it makes the same part as the engine's own report, on every recording; what it
/// cannot answer it says.
#[test]
fn the_report_as_json_shares_the_same() {
    for (name, ..) in SIZES {
        let report = merged(name);
        let json = serde_json::to_string(&report).unwrap();
        let answered: Value = serde_json::from_str(&twin::answer(&format!(r#"{{"share":{{"report":{json},"pair":0,"columns":{COLUMNS},"maxChars":0}}}}"#))).unwrap();
        let direct = twin::share(&report, 0, COLUMNS, 0).unwrap();
        assert_eq!(answered, serde_json::to_value(&direct).unwrap(), "{name}");
    }
    let ask = |q: &str| serde_json::from_str::<Value>(&twin::answer(q)).unwrap()["error"].as_str().unwrap().to_string();
    assert!(ask(r#"{"share":{"report":{},"pair":0,"columns":900,"maxChars":0}}"#).starts_with("The merged view could not be read back to share it (missing field `pairs`"));
    assert_eq!(ask(r#"{"share":{"report":{"pairs":[],"notes":[]},"pair":0,"columns":900,"maxChars":0}}"#), "The merge found 0 connections; there is no connection 1 to share.");
    assert_eq!(ask(r##"{"open":"https://x.example/#compare=0,0&snap=AAAA"}"##), "This link holds no merged view (no twin-snap= in it).");
    assert!(ask(r##"{"open":"#twin-snap=AAAA"}"##).contains("is not one tcpscope made"));
    assert!(ask(r#"{"ask":"report"}"#).starts_with("not a question about a link's merged view: unknown variant `ask`"));
}

/// The word list holds every key of today's pairs (each would otherwise be written out).
#[test]
fn the_word_list_holds_every_key() {
    let mut missing = std::collections::BTreeSet::new();
    fn keys(v: &Value, missing: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                if !WORDS.contains(&k.as_str()) {
                    missing.insert(k.clone());
                }
                keys(x, missing);
            }),
            Value::Array(a) => a.iter().for_each(|x| keys(x, missing)),
            _ => {}
        }
    }
    for name in ["rx-rr-twin", "twin-forward-loss", "twin-nat"] {
        keys(&serde_json::to_value(&merged(name).pairs).unwrap(), &mut missing);
    }
    assert!(missing.is_empty(), "append these keys to share/twin.rs WORDS: {missing:?}");
}

/// Header + deflate of a packed value, as share/twin.rs writes them.
fn container(format: u8, schema: u16, value: &Value) -> Vec<u8> {
    let mut w = Writer::default();
    Packer::new(WORDS).write(&mut w, value);
    let mut out = b"TCPT".to_vec();
    out.push(format);
    out.extend_from_slice(&schema.to_le_bytes());
    out.extend_from_slice(&(w.buf.len() as u32).to_le_bytes());
    out.extend_from_slice(&deflate(&w.buf));
    out
}

fn refusal(bytes: &[u8]) -> String {
    twin::open(bytes).expect_err("refused").message
}

/// A link is text anyone can edit: each crafted part below is refused with the words
/// shown; cut at every length and flipped at every byte, a real one never panics.
#[test]
fn a_hostile_merged_view_is_refused_with_a_sentence() {
    let report = merged("twin-rr-loss");
    let bytes = from_base64url(&twin::share(&report, 0, COLUMNS, 0).unwrap().snapshot).unwrap();
    let good: Value = json!({"pair": serde_json::to_value(&report.pairs[0]).unwrap(), "index": 0, "found": 12, "notes": [], "cut": []});
    assert!(twin::open(&container(1, 1, &good)).is_ok(), "the crafted container is the real one");
    let edited = |f: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        f(&mut v);
        refusal(&container(1, 1, &v))
    };
    let rows: Vec<(String, &str)> = vec![
        (refusal(b"TCPS\x04\x01\x00"), "not one tcpscope made"),
        (refusal(&bytes[..9]), "cut short"),
        (refusal(&container(2, 1, &good)), "format 2, and this page reads format 1: a newer tcpscope made it"),
        (refusal(&container(0, 1, &good)), "no tcpscope writes that format"),
        (refusal(&container(1, 7, &good)), "schema 7; this page reads schema 1"),
        (refusal(&[&bytes[..11], &[0xff; 40][..]].concat()), "corrupt or cut short"),
        (edited(&|v| v["pair"]["queued"] = json!("sideways")), "unknown variant `sideways`"),
        (edited(&|v| v["pair"]["stalls"][0]["place"] = json!("moon")), "unknown variant `moon`"),
        (edited(&|v| v["pair"]["directions"][0]["sent"] = json!(-3)), "invalid value: integer `-3`"),
        (edited(&|v| v["pair"]["clock"]["offsetMs"] = json!("soon")), "invalid type: string"),
        (edited(&|v| { v["pair"].as_object_mut().unwrap().remove("directions"); }), "missing field `directions`"),
        (edited(&|v| v["pair"]["stalls"][0]["direction"] = json!(7)), "a direction other than forward and return"),
        (edited(&|v| v["index"] = json!(12)), "it is connection 13 of 12"),
        (edited(&|v| *v = json!([1, 2, 3])), "its data is not a merged pair"),
    ];
    for (message, words) in &rows {
        assert!(message.contains(words), "{message:?} should say {words:?}");
        assert!(message.starts_with("This link's merged view"), "{message}");
    }
    for cut in 0..bytes.len() {
        assert!(twin::open(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x5a;
        let _ = twin::open(&bad);
    }
    // A payload claiming 5 MB, and one that inflates past what it claims.
    let mut big = container(1, 1, &good);
    big[7..11].copy_from_slice(&(5u32 << 20).to_le_bytes());
    assert!(refusal(&big).contains("more than the 1048576 a merged view may unpack to"));
    let mut short = container(1, 1, &good);
    short[7..11].copy_from_slice(&100u32.to_le_bytes());
    assert!(refusal(&short).contains("more than the 100 bytes it announced"));
}

/// The part is read from a compare link's fragment as the page reads keys; a link without
/// one has none, a link naming two or holding other characters is refused.
#[test]
fn the_part_is_read_from_a_link() {
    let report = merged("twin-rr-loss");
    let part = twin::share(&report, 0, COLUMNS, 0).unwrap().snapshot;
    let link = format!("https://x.example/#compare=0,0&compare-snap=AAAA&twin-snap={part}&snap=BBBB");
    let back = twin::from_fragment(link.split_once('#').unwrap().1).unwrap().expect("a part");
    assert_eq!(back.pairs[0].stalls, report.pairs[0].stalls);
    assert!(twin::from_fragment("compare=0,0&snap=AAAA").unwrap().is_none());
    let two = twin::from_fragment(&format!("twin-snap={part}&twin%2Dsnap={part}")).unwrap_err().message;
    assert_eq!(two, "This link's merged view is damaged and cannot be shown (the link names two merged views (twin-snap= twice)).");
    let odd = twin::from_fragment("twin-snap=ab+c").unwrap_err().message;
    assert!(odd.contains("characters that do not belong to a merged view"), "{odd}");
    assert!(twin::from_fragment(&format!("twin-snap={}", to_base64url(b"TCPT"))).unwrap_err().message.contains("cut short"));
}


/// When the two snapshots of a compare link leave less room (their floor: rx-rr-twin's
/// sides are request/response connections whose summaries list many stalls; measured on
/// the page, 1446 characters were left), the merged view goes down to a row of each long
/// list of events and 8 columns, and says so; below its floor (1526 characters for
/// twin-ack-loss, 1892 for rx-rr-twin) it is refused with its size, and the page shares
/// the compare view without it, saying so (compareShare.ts).
#[test]
fn a_smaller_room_gives_a_coarser_merged_view() {
    let report = merged("twin-ack-loss");
    let shared = twin::share(&report, 0, COLUMNS, 1600).unwrap();
    assert_eq!((shared.snapshot.len(), shared.columns, shared.cap), (1526, 8, Some(1)));
    let back = opened(&shared);
    assert_eq!(back.pairs[0].events.len(), 1);
    assert_eq!(back.notes, ["This link holds 1 of the pair's 237 events, spread evenly over time; the counts above are the whole pair's."]);
    assert_eq!(panel(&back.pairs[0]), panel(&report.pairs[0]));
    // rx-rr-twin's floor (a stall's sentence, its request/response series) is above that room.
    let e = twin::share(&merged("rx-rr-twin"), 0, COLUMNS, 1446).unwrap_err();
    assert_eq!(e, "The merged view does not fit a link: even cut to 8 columns and a row a list it takes 1892 characters, more than the 1446 it may.");
}
