//! Native build of the same pipeline, for the benchmark (`npm run bench`):
//! `cargo run --release --example analyze -- FILE` streams FILE through a Session in
//! 16 MiB chunks, as the browser worker does, and prints one JSON line.
use std::io::Read;
use std::time::Instant;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::Session;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: analyze FILE");
        std::process::exit(2);
    };
    let started = Instant::now();
    let mut file = std::fs::File::open(&path).unwrap_or_else(|e| {
        eprintln!("analyze: {path}: {e}");
        std::process::exit(2);
    });
    let mut session = Session::new(AnalysisOptions::default());
    let mut buffer = vec![0u8; 16 << 20];
    loop {
        let n = file.read(&mut buffer).unwrap_or(0);
        if n == 0 || !session.push(&buffer[..n]) {
            break;
        }
    }
    session.finish();
    let connections = session.analysis().map_or(0, |a| a.connections.len());
    println!(
        "{{\"packets\":{},\"connections\":{},\"seconds\":{:.3},\"error\":{}}}",
        session.packets(),
        connections,
        started.elapsed().as_secs_f64(),
        session.error().is_some()
    );
}
