//! Native build of the same pipeline, for the benchmark (`npm run bench`):
//! `cargo run --release --example analyze -- FILE [--decode-only]` streams FILE
//! through a Session in 16 MiB chunks, as the browser worker does, and prints one
//! JSON line. `--decode-only` runs the decoder alone (the baseline the analysis is
//! compared against, as bench/run-wasm.mjs does for wasm); `--json` prints the report; `--rows-only` finishes as the CLI does;
//! `--frame-only` is bare pcap-parser framing (its streaming reader, every block
//! parsed, nothing decoded): the floor issue 16 measures the analysis against.
use std::io::Read;
use std::time::Instant;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::decode::CaptureDecoder;
use tcpscope_core::session::Session;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: analyze FILE [--decode-only | --json]");
        std::process::exit(2);
    };
    let decode_only = args.iter().any(|a| a == "--decode-only");
    if args.iter().any(|a| a == "--frame-only") {
        frame_only(path);
        return;
    }
    let started = Instant::now();
    let mut file = std::fs::File::open(path).unwrap_or_else(|e| {
        eprintln!("analyze: {path}: {e}");
        std::process::exit(2);
    });
    if decode_only {
        let mut decoder = CaptureDecoder::new();
        for_each_chunk(&mut file, |chunk| decoder.push(chunk, &mut |_| {}).is_ok());
        let ok = decoder.finish().is_ok();
        println!(
            "{{\"packets\":{},\"seconds\":{:.3},\"error\":{}}}",
            decoder.info().packets,
            started.elapsed().as_secs_f64(),
            !ok
        );
        return;
    }
    let mut session = Session::new(AnalysisOptions::default());
    for_each_chunk(&mut file, |chunk| session.push(chunk));
    let pushed = started.elapsed().as_secs_f64();
    // --rows-only: the CLI's finish (no chart rows kept, session.rs `finish_rows_only`).
    if args.iter().any(|a| a == "--rows-only") {
        session.finish_rows_only();
    } else {
        session.finish();
    }
    let finished = started.elapsed().as_secs_f64();
    // --prepare: also build the largest connection's first chart columns, as the
    // worker does while the page renders (view/mod.rs `prepare`).
    let mut prepare_seconds = 0.0;
    if args.iter().any(|a| a == "--prepare") {
        if let Some(analysis) = session.analysis() {
            let largest = analysis.connections.iter().max_by_key(|c| c.directions.iter().map(|d| d.bytes).sum::<u64>());
            if let Some(c) = largest {
                let t = Instant::now();
                tcpscope_core::view::ViewEngine::new().prepare(analysis, 1, c.id);
                prepare_seconds = t.elapsed().as_secs_f64();
            }
        }
    }
    if args.iter().any(|a| a == "--json") {
        println!("{}", session.report().to_json());
        return;
    }
    let connections = session.analysis().map_or(0, |a| a.connections.len());
    println!(
        "{{\"packets\":{},\"connections\":{},\"seconds\":{:.3},\"pushSeconds\":{:.3},\"finishSeconds\":{:.3},\"prepareSeconds\":{:.3},\"error\":{}}}",
        session.packets(),
        connections,
        started.elapsed().as_secs_f64(),
        pushed,
        finished - pushed,
        prepare_seconds,
        session.error().is_some()
    );
    // The process ends here: let the OS reclaim the analysis rather than free 10^5
    // summaries one by one (the wasm under Node never frees it either; issue 16).
    std::mem::forget(session);
}

/// Hands the file to `push` in 16 MiB reads of one reused buffer (as the worker's
/// chunks; no copy per chunk, as the framing floor makes none) until it returns false.
fn for_each_chunk(file: &mut std::fs::File, mut push: impl FnMut(&[u8]) -> bool) {
    let mut buffer = vec![0u8; 16 << 20];
    while let Ok(n @ 1..) = file.read(&mut buffer) {
        if !push(&buffer[..n]) {
            break;
        }
    }
}

/// pcap-parser's own streaming reader over the file (16 MiB buffer), counting the
/// packet records (pcap records, pcapng EPB/SPB), as its documentation's example loop.
fn frame_only(path: &str) {
    use pcap_parser::{create_reader, PcapBlockOwned, PcapError};
    let started = Instant::now();
    let file = std::fs::File::open(path).unwrap_or_else(|e| {
        eprintln!("analyze: {path}: {e}");
        std::process::exit(2);
    });
    let mut reader = create_reader(16 << 20, file).unwrap_or_else(|e| {
        eprintln!("analyze: {path}: {e:?}");
        std::process::exit(2);
    });
    let (mut packets, mut error) = (0u64, false);
    loop {
        match reader.next() {
            Ok((offset, block)) => {
                use pcap_parser::pcapng::Block;
                if matches!(block, PcapBlockOwned::Legacy(_) | PcapBlockOwned::NG(Block::EnhancedPacket(_) | Block::SimplePacket(_))) {
                    packets += 1;
                }
                reader.consume(offset);
            }
            Err(PcapError::Eof) => break,
            Err(PcapError::Incomplete(_)) => {
                if reader.refill().is_err() {
                    error = true;
                    break;
                }
            }
            Err(_) => {
                error = true;
                break;
            }
        }
    }
    println!("{{\"packets\":{packets},\"seconds\":{:.3},\"error\":{error}}}", started.elapsed().as_secs_f64());
}
