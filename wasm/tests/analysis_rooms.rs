//! The analysis is a row of rooms, each one concept, in the order of the flow (issue 40
//! item 4): a room may use the rooms before it, never one after it, so there is no
//! import circle and the folder list reads as the pipeline.
//!
//! ```text
//! format  (number words; ground floor: uses no room, every room may use it)
//! capture  the recording: time order, duplicate frames, clock tick, radio, limits, options
//! rows     what is kept of each packet: the chart columns and their compact store
//! loss     retransmission kinds, bytes the capture missed, datagrams lost before it
//! timing   RTT samples, round trips, vantage, the sender's clock and view
//! rates    payload per bin, the rate delivered, bandwidth-delay arithmetic
//! track    one connection packet by packet: it runs the loss and timing trackers
//! stalls   gaps in the data and their causes
//! report   the shapes of the report (report.rs): what the rooms above fill in
//! verdict  the shares, episodes, savings and headline read from the report
//! run      the analyzer and the end-of-capture summary that drive all of the above
//! ```
//!
//! Why this order: `track` holds, per connection, the trackers of `loss` and `timing`
//! (so it comes after them); the stall causes judge rows and the handshake (after
//! `track`); the report contains stalls, rates and each tracker's summary, and the
//! verdict reads the report (so the report's shapes come before the verdict); `run` calls
//! everyone. A room names other rooms by their path (`crate::analysis::loss::...`), not
//! by the compatibility re-exports in analysis/mod.rs, so that this test can see them.
//! Test code (`#[cfg(test)]` items, `*_tests.rs`, test kits) may use any room: tests
//! run the whole pipeline.

use std::fs;
use std::path::{Path, PathBuf};

const ORDER: &[&str] = &["format", "capture", "rows", "loss", "timing", "rates", "track", "stalls", "report", "verdict", "run"];
/// Files directly in analysis/ besides the rooms' folders.
const ROOT_FILES: &[&str] = &["mod.rs", "format.rs", "report.rs"];

fn analysis_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis")
}

fn rank(room: &str) -> usize {
    ORDER.iter().position(|r| *r == room).unwrap_or_else(|| panic!("{room} is not in ORDER"))
}

fn is_test_file(name: &str) -> bool {
    name.ends_with("_tests.rs") || name.contains("testkit") || name == "testseg.rs"
}

/// The file's production lines: comments and `#[cfg(test)]` items left out.
fn production_lines(src: &str) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if line == "#[cfg(test)]" {
            // Skip the attributes that follow, then the item: up to its `;` or to the
            // brace that closes it.
            i += 1;
            while i < lines.len() && lines[i].trim().starts_with("#[") {
                i += 1;
            }
            let mut depth = 0i32;
            while i < lines.len() {
                let code = lines[i].split("//").next().unwrap_or("");
                depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
                i += 1;
                if depth <= 0 && (code.trim_end().ends_with(';') || code.trim_end().ends_with('}')) {
                    break;
                }
            }
            continue;
        }
        if !line.starts_with("//") {
            out.push(lines[i].split(" //").next().unwrap_or("").to_string());
        }
        i += 1;
    }
    out
}

/// The rooms a line names: `crate::analysis::X`, `super::super::X` from a file in a
/// room, `super::X` from a room's mod.rs or a root file, each also inside `{...}`.
fn named(line: &str, prefixes: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for prefix in prefixes {
        let mut rest = line;
        while let Some(at) = rest.find(prefix) {
            rest = &rest[at + prefix.len()..];
            // `super::super::x` also contains `super::x`: the longer prefix is not this one.
            if *prefix == "super::" && rest.starts_with("super::") {
                rest = rest.trim_start_matches("super::");
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                found.extend(inner.split(',').map(|s| s.trim().split("::").next().unwrap_or("").to_string()).filter(|s| !s.is_empty()));
            } else {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                found.push(name);
            }
        }
    }
    found
}

struct Violation(String);

fn check_file(path: &Path, room: &str, in_room_folder: bool, is_mod: bool, out: &mut Vec<Violation>) {
    let src = fs::read_to_string(path).unwrap();
    let mut prefixes = vec!["crate::analysis::"];
    if in_room_folder && !is_mod {
        prefixes.push("super::super::");
    } else {
        prefixes.push("super::");
    }
    for line in production_lines(&src) {
        for name in named(&line, &prefixes) {
            if name == "self" || name == "*" {
                continue;
            }
            let Some(target) = ORDER.iter().find(|r| **r == name) else {
                out.push(Violation(format!(
                    "{}: names `{name}` through analysis/mod.rs; name its room (crate::analysis::ROOM::...): {}",
                    path.display(),
                    line.trim()
                )));
                continue;
            };
            if *target == room {
                continue;
            }
            if room == "format" || rank(target) > rank(room) {
                out.push(Violation(format!("{}: room `{room}` uses `{target}`, which comes after it: {}", path.display(), line.trim())));
            }
        }
    }
}

#[test]
fn each_room_uses_only_the_rooms_before_it() {
    let dir = analysis_dir();
    let mut violations = Vec::new();
    let mut rooms_seen = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            assert!(ORDER.contains(&name.as_str()), "analysis/{name}/ is a room this test does not know: add it to ORDER in its place");
            rooms_seen.push(name.clone());
            let face = path.join("mod.rs");
            let doc = fs::read_to_string(&face).unwrap_or_else(|_| panic!("analysis/{name}/ has no mod.rs"));
            assert!(doc.starts_with("//!"), "analysis/{name}/mod.rs must open with a doc comment saying the room's one job");
            for file in fs::read_dir(&path).unwrap() {
                let file = file.unwrap().path();
                let file_name = file.file_name().unwrap().to_str().unwrap();
                if file_name.ends_with(".rs") && !is_test_file(file_name) {
                    check_file(&file, &name, true, file_name == "mod.rs", &mut violations);
                }
            }
        } else if name.ends_with(".rs") {
            assert!(ROOT_FILES.contains(&name.as_str()), "analysis/{name}: a file of the analysis belongs in a room's folder");
            match name.as_str() {
                "format.rs" => check_file(&path, "format", false, false, &mut violations),
                "report.rs" => check_file(&path, "report", false, false, &mut violations),
                _ => {}
            }
        }
    }
    for room in ORDER.iter().filter(|r| !["format", "report"].contains(r)) {
        assert!(rooms_seen.iter().any(|r| r == room), "ORDER names {room}, which is not a folder of analysis/");
    }
    let text: Vec<String> = violations.into_iter().map(|v| v.0).collect();
    assert!(text.is_empty(), "{} import(s) against the flow:\n{}", text.len(), text.join("\n"));
}

#[test]
fn the_checker_sees_what_it_should() {
    let names = named("use crate::analysis::{loss::retrans_kinds, timing, Stall};", &["crate::analysis::"]);
    assert_eq!(names, ["loss", "timing", "Stall"]);
    assert_eq!(named("let x = super::super::verdict::f();", &["super::super::"]), ["verdict"]);
    assert_eq!(named("use super::super::x;", &["super::"]), Vec::<String>::new());
    let src = "use a;\n#[cfg(test)]\nmod tests {\n    use crate::analysis::run;\n}\n#[cfg(test)]\npub(crate) mod testseg;\npub mod window;\n";
    assert_eq!(production_lines(src), ["use a;", "pub mod window;"]);
}
