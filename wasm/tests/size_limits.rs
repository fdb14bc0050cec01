//! Files small enough to read in one sitting (issue 40): no production file in src/ over
//! 500 lines, no function in src/analysis/ over 120 lines.
//!
//! What counts, and the limits of this plain-text scan:
//! - A production file is a `.rs` file under src/ that is not test-only (`*_tests.rs`,
//!   a test kit, `testseg.rs`). Its length is its lines before the first inline test
//!   module (`#[cfg(test)]` followed by `mod tests {` or `pub(crate) mod tests {`): an
//!   inline test module at the end of a file is tests, not production code.
//! - A function is a line whose code starts with `fn ` (after `pub`, `pub(crate)`,
//!   `pub(super)`, `const`, `unsafe`) and runs to the line where its braces balance.
//!   Braces are counted on the line's code before any `//`; a brace inside a string
//!   or char literal (`'{'`, `"{"`) would be counted too, so such a function could be
//!   measured wrong (none in analysis/'s production code today; a mismeasured one shows
//!   as absurdly long or short).
//!   Functions in test code (test files, inline test modules) are not measured.
//! - What must stay over a limit is listed in `ALLOWED_OVER` / `ALLOWED_LONG_FNS` with
//!   its reason; an entry no longer needed fails the test, so the lists only shrink.

use std::fs;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 500;
const MAX_FN_LINES: usize = 120;

/// Files (path under src/) allowed over `MAX_FILE_LINES`, each with why.
const ALLOWED_OVER: &[(&str, &str)] = &[];

/// Functions (`file under src/`, `name`) allowed over `MAX_FN_LINES`, each with why.
const ALLOWED_LONG_FNS: &[(&str, &str, &str)] = &[];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn is_test_file(name: &str) -> bool {
    name.ends_with("_tests.rs") || name.contains("testkit") || name == "testseg.rs"
}

fn production_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            production_files(&path, out);
        } else if name.ends_with(".rs") && !is_test_file(&name) {
            out.push(path);
        }
    }
}

/// The file's lines before its inline test module, if it has one.
fn production_part(src: &str) -> Vec<&str> {
    let lines: Vec<&str> = src.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|next| matches!(next.trim(), "mod tests {" | "pub(crate) mod tests {"))
        })
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// `(name, first line (1-based), length in lines)` of each function in `lines`.
fn functions(lines: &[&str]) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let mut code = line.trim_start();
        for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "unsafe "] {
            code = code.strip_prefix(prefix).unwrap_or(code);
        }
        let Some(rest) = code.strip_prefix("fn ") else { continue };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let mut depth = 0i64;
        let mut opened = false;
        for (i, l) in lines.iter().enumerate().skip(start) {
            let code = l.split("//").next().unwrap_or("");
            if !opened && depth == 0 && i > start && code.trim_end().ends_with(';') && !code.contains('{') {
                break; // a declaration without a body (in a trait)
            }
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth <= 0 {
                found.push((name.clone(), start + 1, i - start + 1));
                break;
            }
            if !opened && code.trim_end().ends_with(';') {
                break;
            }
        }
    }
    found
}

fn relative(path: &Path) -> String {
    path.strip_prefix(src_dir()).unwrap().to_str().unwrap().to_string()
}

#[test]
fn no_production_file_is_over_500_lines() {
    let mut files = Vec::new();
    production_files(&src_dir(), &mut files);
    let mut over = Vec::new();
    for path in &files {
        let src = fs::read_to_string(path).unwrap();
        let lines = production_part(&src).len();
        let name = relative(path);
        let allowed = ALLOWED_OVER.iter().any(|(f, _)| *f == name);
        if lines > MAX_FILE_LINES && !allowed {
            over.push(format!("{name}: {lines} lines"));
        }
        if allowed && lines <= MAX_FILE_LINES {
            over.push(format!("{name} is listed in ALLOWED_OVER but has {lines} lines: take it off the list"));
        }
    }
    over.sort();
    assert!(over.is_empty(), "production files over {MAX_FILE_LINES} lines (split them by concept):\n{}", over.join("\n"));
}

#[test]
fn no_analysis_function_is_over_120_lines() {
    let mut files = Vec::new();
    production_files(&src_dir().join("analysis"), &mut files);
    let mut over = Vec::new();
    for path in &files {
        let src = fs::read_to_string(path).unwrap();
        let file = relative(path);
        for (name, line, length) in functions(&production_part(&src)) {
            let allowed = ALLOWED_LONG_FNS.iter().any(|(f, n, _)| *f == file && *n == name);
            if length > MAX_FN_LINES && !allowed {
                over.push(format!("{file}:{line} fn {name}: {length} lines"));
            }
            if allowed && length <= MAX_FN_LINES {
                over.push(format!("{file} fn {name} is listed in ALLOWED_LONG_FNS but has {length} lines: take it off the list"));
            }
        }
    }
    over.sort();
    assert!(over.is_empty(), "functions in analysis/ over {MAX_FN_LINES} lines (name their steps):\n{}", over.join("\n"));
}

#[test]
fn the_scan_measures_what_it_should() {
    let src = "/// doc\npub(crate) fn one(x: u8) -> u8 {\n    if x > 0 { 1 } else { 0 } // }\n}\ntrait T {\n    fn decl(&self);\n    fn body(&self) {\n    }\n}\n#[cfg(test)]\nmod tests {\n    fn hidden() {}\n}\n";
    let lines = production_part(src);
    assert_eq!(lines.len(), 9, "the inline test module is not production");
    let found = functions(&lines);
    assert_eq!(found, [("one".to_string(), 2, 3), ("body".to_string(), 7, 2)]);
}
