//! docs/ANALYSIS.md points into the code: "`analysis/stalls/gaps.rs` `classify`" says
//! where a rule lives (issue 40: "a test checks that every function docs/ANALYSIS.md
//! names exists"). A pointer to a file that moved, or to a function that was renamed,
//! sends the reader nowhere; this test fails on each such pointer.
//!
//! - every `*.rs` path in backticks must name a file of the repository (a path is
//!   matched by its end: `view/sources.rs`, `wasm/src/view/sources.rs` and
//!   `sources.rs` all name wasm/src/view/sources.rs);
//! - a path followed by a name in backticks (`` `x.rs` `Type::method` `` or
//!   `` `x.rs` `function` ``) must name an item of that file: `fn`, `struct`, `enum`,
//!   `trait`, `const`, `static`, `type` or `mod` of the last segment, and the type of
//!   `Type::method` too (defined or given an `impl` there) (where a bare name matches several files, one of them).

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if !["node_modules", "target", ".git", "dist", "pkg"].contains(&name.as_str()) {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// Files whose path ends with `named` (at a `/` boundary).
fn files_named<'a>(all: &'a [PathBuf], root: &Path, named: &str) -> Vec<&'a PathBuf> {
    all.iter()
        .filter(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            rel == named || rel.ends_with(&format!("/{named}"))
        })
        .collect()
}

fn defines(src: &str, name: &str) -> bool {
    ["fn", "struct", "enum", "trait", "const", "static", "type", "mod", "impl", "for"].iter().any(|kw| {
        let pat = format!("{kw} {name}");
        src.match_indices(&pat).any(|(i, _)| {
            let after = src[i + pat.len()..].chars().next();
            let before = src[..i].chars().last();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_') && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// (line, path, Some(item)) for each `` `x.rs` `` in the text, with the name in
/// backticks right after it when there is one.
fn pointers(doc: &str) -> Vec<(usize, String, Option<String>)> {
    let mut out = Vec::new();
    for (n, line) in doc.lines().enumerate() {
        let spans: Vec<(usize, usize)> = {
            let ticks: Vec<usize> = line.match_indices('`').map(|(i, _)| i).collect();
            ticks.chunks_exact(2).map(|c| (c[0] + 1, c[1])).collect()
        };
        for (k, &(a, b)) in spans.iter().enumerate() {
            let code = &line[a..b];
            if !code.ends_with(".rs") || code.contains(' ') {
                continue;
            }
            let item = spans.get(k + 1).filter(|&&(a2, _)| line[b + 1..a2 - 1].trim().is_empty()).map(|&(a2, b2)| line[a2..b2].to_string());
            let item = item.filter(|i| i.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':') && !i.is_empty());
            out.push((n + 1, code.to_string(), item));
        }
    }
    out
}

#[test]
fn every_file_and_function_analysis_md_names_exists() {
    let root = repo();
    let doc = fs::read_to_string(root.join("docs/ANALYSIS.md")).unwrap();
    let mut all = Vec::new();
    rust_files(&root, &mut all);
    let mut wrong = Vec::new();
    for (line, path, item) in pointers(&doc) {
        let found = files_named(&all, &root, &path);
        if found.is_empty() {
            wrong.push(format!("line {line}: `{path}` is no file of the repository"));
            continue;
        }
        if let Some(item) = item {
            // A bare name may match several files (`session.rs`): one of them must define it.
            let sources: Vec<String> = found.iter().map(|f| fs::read_to_string(f).unwrap()).collect();
            if let Some(missing) = item.split("::").find(|part| !sources.iter().any(|src| defines(src, part))) {
                let names: Vec<String> = found.iter().map(|f| f.strip_prefix(&root).unwrap().display().to_string()).collect();
                wrong.push(format!("line {line}: `{path}` `{item}`: {} defines no `{missing}`", names.join(" or ")));
            }
        }
    }
    assert!(wrong.is_empty(), "{} pointer(s) in docs/ANALYSIS.md lead nowhere:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn the_reader_finds_pointers_and_their_items() {
    let p = pointers("see `analysis/track/conn.rs` `Conn::push`, `x.rs` and `y.rs` (`z`).");
    assert_eq!(p, [(1, "analysis/track/conn.rs".into(), Some("Conn::push".into())), (1, "x.rs".into(), None), (1, "y.rs".into(), None)]);
    assert!(defines("pub(crate) fn push(&mut self)", "push"));
    assert!(!defines("fn push_all()", "push"));
}
