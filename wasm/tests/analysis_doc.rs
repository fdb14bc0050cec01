//! docs/ANALYSIS.md is the home of every number the report shows (issue 14, "The house").
//! This test analyses the example captures, walks the schema-1 JSON
//! (`tcpscope analyze --json`) and fails when a key of the report has no entry in
//! docs/ANALYSIS.md.
//!
//! An entry is the key in backticks on a markdown heading line, or in bold backticks
//! (`` **`p95Ms`** ``). A key name used by one object only may be documented bare
//! (`` `p95Ms` ``) or qualified by its parent (`` `rtt.p95Ms` ``); a key name that several
//! objects use (`packets`, `start`, `bytes`, ...) must be qualified, so each gets its own
//! entry: `` `capture.packets` ``, `` `connection.packets` ``, `` `direction.packets` ``.
//! The parent of an array element is the array's key with `[]` (`` `stalls[].start` ``)
//! or without its plural s (`` `stall.start` ``).
//!
//! Print the report of every example: `cargo test --test all analysis_doc:: -- --ignored --nocapture`

use std::collections::{BTreeMap, BTreeSet};
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;

const EXAMPLES: &[&str] = &[
    "rwnd-limited.pcap",
    "healthy.pcap",
    "loss-1pct.pcap",
    "stalls.pcap",
    "zero-window.pcap",
    "pcapng-zero-window.pcapng",
    "ipv6-bulk.pcap",
    "sll2-any.pcap",
    "nanosecond.pcap",
    "mptcp-join-refused.pcap",
];

fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../public/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn report_json(bytes: &[u8]) -> serde_json::Value {
    let session = analyze_bytes(bytes, AnalysisOptions::default(), 1 << 20);
    serde_json::from_str(&session.report().to_json()).expect("report is JSON")
}

/// One leaf of the report: its key, the labels its parent object may be named by
/// (empty at the top level), and a full path for messages.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Leaf {
    key: String,
    parents: Vec<String>,
    path: String,
}

/// Walk `v`; `labels` name the object `v` is (or whose elements `v` holds).
fn walk(v: &serde_json::Value, labels: &[String], path: &str, out: &mut BTreeSet<Leaf>) {
    let serde_json::Value::Object(map) = v else { return };
    for (key, child) in map {
        let child_path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        match child {
            serde_json::Value::Object(_) => walk(child, &[key.clone()], &child_path, out),
            serde_json::Value::Array(items) if items.iter().any(|i| i.is_object()) => {
                let labels = element_labels(key);
                for item in items {
                    walk(item, &labels, &format!("{child_path}[]"), out);
                }
            }
            // Numbers, string enums, free text, booleans, nulls (an optional number
            // that is absent here) and arrays of scalars are leaves.
            _ => {
                out.insert(Leaf { key: key.clone(), parents: labels.to_vec(), path: child_path });
            }
        }
    }
}

/// `stalls` → [`stalls[]`, `stall`]; `connections` → [`connections[]`, `connection`].
fn element_labels(key: &str) -> Vec<String> {
    let mut l = vec![format!("{key}[]")];
    if let Some(singular) = key.strip_suffix('s') {
        l.push(singular.to_string());
    }
    l
}

/// Terms the document defines: backticked terms on heading lines and `**`term`**`.
fn defined_terms(doc: &str) -> BTreeSet<String> {
    let mut terms = BTreeSet::new();
    for line in doc.lines() {
        let heading = line.trim_start().starts_with('#');
        let mut rest = line;
        while let Some(i) = rest.find('`') {
            let bold = rest[..i].ends_with("**");
            let after = &rest[i + 1..];
            let Some(j) = after.find('`') else { break };
            let term = &after[..j];
            let tail = &after[j + 1..];
            if heading || (bold && tail.starts_with("**")) {
                terms.insert(term.to_string());
            }
            rest = tail;
        }
    }
    terms
}

fn all_leaves() -> BTreeSet<Leaf> {
    let mut leaves = BTreeSet::new();
    for name in EXAMPLES {
        walk(&report_json(&example(name)), &[], "", &mut leaves);
    }
    // Every example decodes cleanly: a capture cut short carries the `error` object,
    // one with two records swapped carries a `warnings` entry.
    for bytes in [truncated(), time_went_backwards()] {
        walk(&report_json(&bytes), &[], "", &mut leaves);
    }
    leaves
}

fn truncated() -> Vec<u8> {
    let bytes = example("healthy.pcap");
    bytes[..bytes.len() - 50].to_vec()
}

/// rwnd-limited.pcap with its first two records swapped: a `time-went-backwards` warning.
fn time_went_backwards() -> Vec<u8> {
    let b = example("rwnd-limited.pcap");
    assert_eq!(&b[..4], &[0xd4, 0xc3, 0xb2, 0xa1], "a little-endian µs pcap");
    let record = |at: usize| {
        let incl = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        at..at + 16 + incl
    };
    let (r1, r2) = (record(24), record(record(24).end));
    [&b[..24], &b[r2.clone()], &b[r1], &b[r2.end..]].concat()
}

#[test]
fn every_report_key_has_an_entry_in_analysis_md() {
    let doc_path = format!("{}/../docs/ANALYSIS.md", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_else(|e| panic!("{doc_path}: {e}"));
    let terms = defined_terms(&doc);
    let leaves = all_leaves();

    // Key names shared by several objects must be qualified.
    let mut parents_of: BTreeMap<&str, BTreeSet<&[String]>> = BTreeMap::new();
    for l in &leaves {
        parents_of.entry(&l.key).or_default().insert(&l.parents);
    }
    let mut missing = BTreeSet::new();
    for l in &leaves {
        let qualified: Vec<String> = l.parents.iter().map(|p| format!("{p}.{}", l.key)).collect();
        let bare_ok = parents_of[l.key.as_str()].len() == 1 || l.parents.is_empty();
        let found = qualified.iter().any(|q| terms.contains(q)) || (bare_ok && terms.contains(&l.key));
        if !found {
            // Suggest the readable form: `connection.packets` rather than `connections[].packets`.
            let want = qualified.last().cloned().unwrap_or_else(|| l.key.clone());
            missing.insert(format!("{} (document it as **`{want}`**)", l.path));
        }
    }
    assert!(
        missing.is_empty(),
        "{} report key(s) have no entry in docs/ANALYSIS.md:\n  {}",
        missing.len(),
        missing.into_iter().collect::<Vec<_>>().join("\n  ")
    );
    // The walk must have found the schema's main objects, or it proves nothing.
    for p in [
        "capture.duplicateFrames",
        "connections[].directions[].rtt.p95Ms",
        "connections[].diagnosis.evidence.capBps",
        "connections[].directions[].stalls[].cause",
        "connections[].diagnosis.episodes[].kind",
        "error.kind",
        "warnings[].kind",
        "mptcp[].subflows[].status",
        "mptcp[].directions[].redundantBytes",
    ] {
        assert!(leaves.iter().any(|l| l.path == p), "walk did not reach {p}");
    }
}

#[test]
fn the_term_finder_reads_headings_and_bold_code() {
    let t = defined_terms("## `rtt.p95Ms` and `rtt.maxMs`\nplain `notMe` and **`meToo`**, **`me.three`**: x\n");
    let want: BTreeSet<String> = ["rtt.p95Ms", "rtt.maxMs", "meToo", "me.three"].iter().map(|s| s.to_string()).collect();
    assert_eq!(t, want);
}

/// Prints each example's report (the worked examples in docs/ANALYSIS.md come from it).
#[test]
#[ignore]
fn print_example_reports() {
    for name in EXAMPLES {
        let v = report_json(&example(name));
        println!("===== {name}\n{}", serde_json::to_string_pretty(&v).unwrap());
    }
    println!("----- healthy.pcap cut short: error {}", report_json(&truncated())["error"]);
    println!("----- rwnd-limited.pcap, records 1 and 2 swapped: warnings {}", report_json(&time_went_backwards())["warnings"]);
}
