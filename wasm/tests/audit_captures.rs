//! The auditor (analysis/verdict/audit.rs, issue 39 item 9) over every capture available: the
//! repo's examples, ../shared/captures when it is beside the repo (or
//! `TCPSCOPE_SHARED`), and any folder of captures written by others named in
//! `TCPSCOPE_CORPUS` (searched recursively: pcap, pcapng, cap, ntar). Zero
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
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
            if [".pcap", ".pcapng", ".cap", ".ntar"].iter().any(|x| name.ends_with(x)) {
                out.push(p);
            }
        }
    }
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
    }
    eprintln!("audited {} captures, {connections} connections: {} contradictions", files.len(), problems.len());
    assert!(files.len() >= 40, "the examples alone are more than 40 captures");
    assert!(problems.is_empty(), "{} contradictions:\n{}", problems.len(), problems.join("\n"));
}
