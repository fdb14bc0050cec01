//! The auditor (analysis/verdict/audit.rs, issue 39 item 9) over every capture available: the
//! repo's examples, ../shared/captures when it is beside the repo (or
//! `TCPSCOPE_SHARED`), and any folder of captures written by others named in
//! `TCPSCOPE_CORPUS` (searched recursively; a file is a capture by its first bytes,
//! not its name: captures come as .trace, .dump, .dmp or with no extension). Zero
//! contradictions is the bar; the test prints how many captures and connections it
//! read, and every contradiction with its file.

use std::path::{Path, PathBuf};
use tcpscope_core::analysis::audit::audit;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;

fn captures_in(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            captures_in(&p, out);
        } else if kind.is_file() {
            if starts_like_a_capture(&p) {
                out.push(p);
            }
        }
    }
}

/// pcap's magic in either byte order, microsecond or nanosecond (a1b2c3d4 / a1b23c4d),
/// pcapng's Section Header Block type (0a0d0d0a, pcapng draft §4.1), or gzip (1f8b),
/// which the decoder inflates.
fn starts_like_a_capture(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    if f.read_exact(&mut head).is_err() {
        return false;
    }
    let magics: [[u8; 4]; 5] = [[0xa1, 0xb2, 0xc3, 0xd4], [0xa1, 0xb2, 0x3c, 0x4d], [0x0a, 0x0d, 0x0d, 0x0a], [0x1f, 0x8b, 0x08, 0x00], [0x1f, 0x8b, 0x08, 0x08]];
    let mut reversed = head;
    reversed.reverse();
    magics.iter().any(|m| *m == head || (m[0] != 0x1f && *m == reversed))
}

fn all_captures() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    captures_in(&root.join("../public/examples"), &mut files);
    let shared = std::env::var_os("TCPSCOPE_SHARED").map(PathBuf::from).unwrap_or_else(|| root.join("../../shared"));
    captures_in(&shared.join("captures"), &mut files);
    if let Some(corpus) = std::env::var_os("TCPSCOPE_CORPUS") {
        captures_in(Path::new(&corpus), &mut files);
    }
    files
}

/// What makes a text that a person reads malformed, whatever it says (review O found a
/// verbless, unfinished sentence in the ending text that no number check saw): it ends
/// with a full stop; no doubled space, space before punctuation, doubled stop or
/// unfilled `{}` placeholder; no NaN or infinity printed as a number; and each sentence
/// after a full stop begins with a capital, a digit, an opening bracket or a quote
/// (addresses such as `[2001:db8::1]:443` begin with a bracket); "e.g.", "i.e.", "etc."
/// and "vs." end no sentence.
fn malformed_sentence(text: &str) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    if !(text.ends_with('.') || text.ends_with(".)")) {
        return Some("does not end with a full stop".into());
    }
    for bad in ["  ", " .", " ,", " :", "..", ",.", ".,", "{", "}", "( ", " )"] {
        if text.contains(bad) {
            return Some(format!("contains {bad:?}"));
        }
    }
    let not_a_number = |w: &str| matches!(w.trim_matches(|c: char| !c.is_alphanumeric()), "NaN" | "inf");
    if let Some(w) = text.split_whitespace().find(|w| not_a_number(w)) {
        return Some(format!("prints {w:?} as a number"));
    }
    // Each ". " once, the abbreviation test only there (this runs on every text of the
    // corpus: a scan from the start at every character was quadratic in the text).
    for (i, _) in text.match_indices(". ") {
        let Some(next) = text[i + 2..].chars().next() else { continue };
        let abbreviation = ["e.g", "i.e", "etc", "vs"].iter().any(|a| text[..i].ends_with(a));
        if !abbreviation && !(next.is_uppercase() || next.is_ascii_digit() || "([\"“".contains(next)) {
            let before: Vec<char> = text[..i].chars().rev().take(30).collect();
            let before: String = before.into_iter().rev().collect();
            let after: String = text[i..].chars().take(20).collect();
            return Some(format!("a sentence begins in lower case: …{before}{after}"));
        }
    }
    None
}

#[test]
fn malformed_sentences_are_found() {
    assert_eq!(malformed_sentence("The flow was window-limited."), None);
    assert_eq!(malformed_sentence("Reset by [2001:db8::1]:443 at 2 s. [2001:db8::1]:443 sent 9 B."), None);
    // The review-O fragment, had it ended without its full stop, and a lower-case start.
    assert!(malformed_sentence("9 KiB of the data it had sent not acknowledged:").is_some());
    assert!(malformed_sentence("It stalled. then it went on.").is_some());
    assert_eq!(malformed_sentence("Raise the buffer (e.g. net.ipv4.tcp_rmem) to 1 MiB."), None);
    assert!(malformed_sentence("A rate of NaN bit/s.").is_some());
    assert!(malformed_sentence("A window of -inf B.").is_some());
    assert_eq!(malformed_sentence("A window inferred from bytes in flight."), None);
    assert!(malformed_sentence("It took {} s.").is_some());
}

#[test]
fn no_report_contradicts_itself_on_any_capture() {
    let files = all_captures();
    let (mut connections, mut problems) = (0usize, Vec::new());
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else { continue };
        // Captures of at most 64 MiB (a documented bound for the test's time).
        if bytes.len() > 64 << 20 {
            continue;
        }
        let session = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 20);
        let Some(a) = session.analysis() else { continue };
        connections += a.connections.len();
        problems.extend(audit(a).into_iter().map(|p| format!("{}: {p}", f.display())));
        for c in &a.connections {
            let texts = [("diagnosis", &c.diagnosis.text), ("ending", &c.ending.text)];
            let episodes = c.diagnosis.episodes.iter().map(|e| ("episode", &e.text));
            for (field, text) in texts.into_iter().chain(episodes) {
                if let Some(p) = malformed_sentence(text) {
                    problems.push(format!("{}: connection {} {field}: {p}: {text}", f.display(), c.id));
                }
            }
        }
    }
    eprintln!("audited {} captures, {connections} connections: {} contradictions", files.len(), problems.len());
    assert!(files.len() >= 40, "the examples alone are more than 40 captures");
    assert!(problems.is_empty(), "{} contradictions:\n{}", problems.len(), problems.join("\n"));
}
