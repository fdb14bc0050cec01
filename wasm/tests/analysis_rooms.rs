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

/// The rooms a line names: `crate::analysis::X`, or `super::…::X` with exactly `supers`
/// steps up (the steps from the file's module to analysis/), each also inside `{...}`.
fn named(line: &str, supers: usize) -> Vec<String> {
    let mut found = Vec::new();
    let mut take = |rest: &str| {
        if let Some(group) = rest.strip_prefix('{') {
            // Only the group's own items, not those of a nested group inside it:
            // `{timing::{rtt, vantage}, stalls}` names the rooms `timing` and `stalls`.
            let (mut depth, mut item, mut items) = (0usize, String::new(), Vec::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => items.push(std::mem::take(&mut item)),
                    _ if depth == 0 => item.push(c),
                    _ => {}
                }
            }
            items.push(item);
            found.extend(items.iter().map(|s| s.trim().split("::").next().unwrap_or("").trim().to_string()).filter(|s| !s.is_empty()));
        } else {
            found.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    };
    for (at, _) in line.match_indices("crate::analysis::") {
        take(&line[at + "crate::analysis::".len()..]);
    }
    let mut rest = line;
    while let Some(at) = rest.find("super::") {
        rest = &rest[at..];
        let mut steps = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            steps += 1;
        }
        if steps == supers {
            take(rest);
        }
    }
    found
}

#[test]
fn a_nested_use_group_names_only_its_outer_rooms() {
    // `a::{b, c}` inside the group names room `a`; `b` and `c` are a's own modules.
    let line = "use crate::analysis::{timing::{rtt, vantage::Parts}, stalls, format::format_duration};";
    assert_eq!(named(line, 0), ["timing", "stalls", "format"]);
    assert_eq!(named("use super::super::{loss::{a, b}, track};", 2), ["loss", "track"]);
}

struct Violation(String);

/// `supers`: how many `super::` lead from the file's module to analysis/.
fn check_file(path: &Path, room: &str, supers: usize, out: &mut Vec<Violation>) {
    let src = fs::read_to_string(path).unwrap();
    for line in production_lines(&src) {
        for name in named(&line, supers) {
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

/// The production files of a room's folder at `depth` (1: the room's own folder) and of
/// its subfolders (a file's child modules, `diagnosis/sentences.rs`): all the room's.
fn check_room_dir(dir: &Path, room: &str, depth: usize, out: &mut Vec<Violation>) {
    for file in fs::read_dir(dir).unwrap() {
        let file = file.unwrap().path();
        let file_name = file.file_name().unwrap().to_str().unwrap().to_string();
        if file.is_dir() {
            check_room_dir(&file, room, depth + 1, out);
        } else if file_name.ends_with(".rs") && !is_test_file(&file_name) {
            let supers = depth + usize::from(file_name != "mod.rs");
            check_file(&file, room, supers, out);
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
            check_room_dir(&path, &name, 1, &mut violations);
        } else if name.ends_with(".rs") {
            assert!(ROOT_FILES.contains(&name.as_str()), "analysis/{name}: a file of the analysis belongs in a room's folder");
            match name.as_str() {
                "format.rs" => check_file(&path, "format", 1, &mut violations),
                "report.rs" => check_file(&path, "report", 1, &mut violations),
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
    let names = named("use crate::analysis::{loss::retrans_kinds, timing, Stall};", 2);
    assert_eq!(names, ["loss", "timing", "Stall"]);
    assert_eq!(named("let x = super::super::verdict::f();", 2), ["verdict"]);
    assert_eq!(named("use super::super::x;", 1), Vec::<String>::new());
    assert_eq!(named("use super::x; use super::super::super::run::y;", 3), ["run"]);
    let src = "use a;\n#[cfg(test)]\nmod tests {\n    use crate::analysis::run;\n}\n#[cfg(test)]\npub(crate) mod testseg;\npub mod window;\n";
    assert_eq!(production_lines(src), ["use a;", "pub mod window;"]);
}
