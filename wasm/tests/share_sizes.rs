//! Link sizes (ignored: a table for the closing note): per example, the largest
//! connection's whole stack at the page's plot width (1064 px), as format 2 wrote it
//! (deflate only) and as format 3 writes it (range-coded streams), at full detail,
//! and what `build` makes within the 8 KB budget.
//!   cargo test --release --test share_sizes -- --ignored --nocapture
use tcpscope_core::share::{build, ShareSpec};
use tcpscope_core::view::ViewEngine;
mod examples;

#[test]
#[ignore]
fn link_sizes_per_example() {
    for (name, a, report) in examples::analysed_with_reports() {
        let id = a.connections.iter().max_by_key(|c| c.packets).unwrap().id;
        let spec = ShareSpec { connection: id, columns: 1064, name: name.clone(), view: format!("c={id}"), ..Default::default() };
        let full = build(&a, &report, &mut ViewEngine::new(), &ShareSpec { max_link_chars: 1 << 30, ..spec.clone() }).unwrap();
        let fit = build(&a, &report, &mut ViewEngine::new(), &spec).unwrap();
        println!("{name:26} full {:>6} B | in budget {:>5} B ({} chars) at {} px, {} levels", full.bytes.len(), fit.bytes.len(), fit.bytes.len().div_ceil(3) * 4, fit.columns, fit.levels);
    }
}
