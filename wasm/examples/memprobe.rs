//! Heap of the CLI's path, natively (issue 43 item 4): `cargo run --release --example
//! memprobe -- FILE [--keep-rows] [--sizes]` reads FILE in 4 MiB chunks as `tcpscope analyze` does,
//! finishes rows-only (the CLI's `finishRowsOnly`) and writes every compact row to
//! /dev/null one at a time, printing the live heap (bytes allocated and not freed, counted
//! by this example's allocator) after the read, its high-water during `finish`, and after
//! it, each also per connection; `--sizes` lists the live allocations by size after the read and after `finish`. 64-bit sizes: wasm32's pointers and `usize` are half as
//! wide, so the wasm heap is smaller (bench/README.md "Session 36").
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Live allocations by size (bytes, up to 4 KiB; larger ones in the last slot), for
/// `--sizes`: which objects make up the read state.
const SLOTS: usize = 4097;
static BY_SIZE: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

fn slot(size: usize) -> &'static AtomicUsize {
    &BY_SIZE[size.min(SLOTS - 1)]
}

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
            slot(l.size()).fetch_add(1, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
        slot(l.size()).fetch_sub(1, Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let q = System.realloc(p, l, n);
        if !q.is_null() {
            LIVE.fetch_sub(l.size(), Relaxed);
            grew(n);
            slot(l.size()).fetch_sub(1, Relaxed);
            slot(n).fetch_add(1, Relaxed);
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.iter().find(|a| !a.starts_with("--")).expect("usage: memprobe FILE [--keep-rows]");
    let mut file = std::fs::File::open(path).expect("open");
    let mut session = tcpscope_core::session::Session::new(Default::default());
    let mut buffer = vec![0u8; 4 << 20];
    while let Ok(n @ 1..) = file.read(&mut buffer) {
        if !session.push(&buffer[..n]) {
            break;
        }
    }
    drop(buffer);
    let mb = |b: usize| b as f64 / 1e6;
    let read = LIVE.load(Relaxed);
    let sizes = args.iter().any(|a| a == "--sizes");
    if sizes {
        print_sizes("after the read");
    }
    PEAK.store(read, Relaxed);
    if args.iter().any(|a| a == "--keep-rows") {
        session.finish();
    } else {
        session.finish_rows_only();
    }
    let (finish_peak, finished) = (PEAK.load(Relaxed), LIVE.load(Relaxed));
    if sizes {
        print_sizes("after finish");
    }
    let n = session.analysis().map_or(0, |a| a.connections.len()).max(1);
    let mut out = std::io::sink();
    let mut row_bytes = 0usize;
    for c in session.analysis().map(|a| a.connections.as_slice()).unwrap_or(&[]) {
        let row = tcpscope_core::compact_row::CompactRow::of(c).to_json();
        row_bytes += row.len();
        let _ = out.write_all(row.as_bytes());
    }
    let per = |b: usize| b as f64 / n as f64;
    println!("connections {n}; compact rows {:.1} MB ({:.0} B each)", mb(row_bytes), per(row_bytes));
    println!("live after the read   {:8.1} MB {:6.0} B/conn", mb(read), per(read));
    println!("high-water in finish  {:8.1} MB {:6.0} B/conn", mb(finish_peak), per(finish_peak));
    println!("live after finish     {:8.1} MB {:6.0} B/conn", mb(finished), per(finished));
}

/// The sizes holding the most live bytes now (count × size), under `when`.
fn print_sizes(when: &str) {
    let mut live: Vec<(usize, usize)> = (0..SLOTS).map(|s| (s, BY_SIZE[s].load(Relaxed))).filter(|&(_, c)| c > 0).collect();
    live.sort_by_key(|&(s, c)| std::cmp::Reverse(s * c));
    for (s, c) in live.into_iter().take(24) {
        println!("{when}: {c:>9} live allocations of {s:>5} B = {:7.1} MB", (s * c) as f64 / 1e6);
    }
}
