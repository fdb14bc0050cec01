//! Helpers shared by the integration tests.

use tcpscope_core::decode::tcp_flags::{ACK, FIN};
use tcpscope_core::decode::{CaptureDecoder, CaptureInfo, Decoded, TcpSegment};
use tcpscope_core::synth::{Flow, Opts, C2S, S2C};
use tcpscope_core::error::DecodeError;

pub type Decoding = (Vec<Decoded>, CaptureInfo, Option<DecodeError>);

/// Decode `bytes` pushed in chunks of `chunk` bytes, as the worker pushes file slices.
pub fn decode_chunked(bytes: &[u8], chunk: usize) -> Decoding {
    let mut d = CaptureDecoder::new();
    let mut out = Vec::new();
    let mut err = None;
    for c in bytes.chunks(chunk.max(1)) {
        if let Err(e) = d.push(c, &mut |p| out.push(p)) {
            err = Some(e);
            break;
        }
    }
    if err.is_none() {
        err = d.finish().err();
    }
    (out, d.info().clone(), err)
}

/// Decode in chunks of 1, 7, 4096 bytes and whole: every split must give the same result.
#[allow(dead_code)]
pub fn decode_every_split(bytes: &[u8]) -> Decoding {
    let whole = decode_chunked(bytes, bytes.len());
    for n in [1, 7, 4096] {
        assert_eq!(decode_chunked(bytes, n), whole, "chunks of {n} differ from the whole file");
    }
    whole
}

// Not every test crate that includes this module uses what follows.

/// The TCP segments among the decoded packets.
#[allow(dead_code)]
pub fn tcp(out: &[Decoded]) -> Vec<&TcpSegment> {
    out.iter().filter_map(|p| if let Decoded::Tcp(s) = p { Some(s) } else { None }).collect()
}

/// A short transfer: handshake, data segments of 1448, 1448 and 1000 bytes, an ACK, FIN.
#[allow(dead_code)]
pub fn short_transfer(client: &str, server: &str) -> Flow {
    let mut f = Flow::new(client, server);
    f.handshake(0, 20_000, Opts::new().mss(1460).wscale(6), Opts::new().mss(1460).wscale(7));
    f.data(S2C, 21_000, 1448);
    f.data(S2C, 21_100, 1448);
    f.data(S2C, 21_200, 1000);
    f.push(C2S, 41_300);
    f.push(S2C, 50_000).flags(FIN | ACK);
    f
}

/// Ports, sequence numbers and payload lengths the decoder must give back for `f`.
#[allow(dead_code)]
pub fn script(f: &Flow) -> Vec<(u16, u16, u32, u32)> {
    f.segments().iter().map(|s| (s.src.port(), s.dst.port(), s.seq, s.payload_len)).collect()
}

/// The first connection of a scripted flow, written in time order as a microsecond pcap
/// (TCPSCOPE_DUMP=DIR keeps each capture, to open in the page or tshark).
#[allow(dead_code)]
pub fn analyze_flow(f: &Flow) -> tcpscope_core::analysis::ConnectionSummary {
    use tcpscope_core::synth::{write_pcap, Endian, Link, TsResolution};
    let mut frames = f.frames();
    frames.sort_by_key(|fr| fr.ts_ns);
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    if let Some(dir) = std::env::var_os("TCPSCOPE_DUMP") {
        let name = std::thread::current().name().unwrap_or("capture").replace("::", "_");
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{name}.pcap")), &bytes);
    }
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    s.analysis().expect("analysed").connections[0].clone()
}

/// A public capture of `TCPSCOPE_CORPUS` (absent: the test says so and passes).
#[allow(dead_code)]
pub fn corpus(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("TCPSCOPE_CORPUS")?;
    let path = std::path::Path::new(&dir).join(name);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(_) => {
            eprintln!("{} not found: skipped", path.display());
            None
        }
    }
}

/// Every connection of a public capture of `TCPSCOPE_CORPUS`, analysed with the
/// defaults (absent: None, and the test passes).
#[allow(dead_code)]
pub fn corpus_connections(name: &str) -> Option<Vec<tcpscope_core::analysis::ConnectionSummary>> {
    let bytes = corpus(name)?;
    let s = tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20);
    Some(s.analysis().expect("analysed").connections.clone())
}

/// Connection `id` of a public capture of `TCPSCOPE_CORPUS` ([`corpus_connections`]).
#[allow(dead_code)]
pub fn corpus_connection(name: &str, id: u32) -> Option<tcpscope_core::analysis::ConnectionSummary> {
    Some(corpus_connections(name)?.into_iter().find(|c| c.id == id).expect("connection"))
}

/// A response of `n` × 1460 bytes from the server from `t` µs, one segment every 200 µs,
/// the client ACKing every second one 50 µs after it (a client-side capture); the time
/// of the last segment.
#[allow(dead_code)]
pub fn response(f: &mut Flow, t: i64, n: i64) -> i64 {
    for k in 0..n {
        f.data(S2C, t + 200 * k, 1460);
        if k % 2 == 1 || k == n - 1 {
            f.push(C2S, t + 200 * k + 50).window(2048);
        }
    }
    t + 200 * (n - 1)
}

/// `f` as a capture that dropped packets would cut it: the frames `keep(segment, index of
/// `server`'s data segment)` lets through, analysed (capture_gaps*.rs).
/// `TCPSCOPE_WRITE_DIR=/tmp/x` writes each as `name.pcap`.
pub fn cut_flow(name: &str, f: &Flow, server: &str, mut keep: impl FnMut(&tcpscope_core::synth::Segment, Option<usize>) -> bool) -> tcpscope_core::session::Session {
    use tcpscope_core::synth::{addr, write_pcap, Endian, Link, TsResolution};
    let mut k = 0usize;
    let mut frames = Vec::new();
    for s in f.segments() {
        let data = (s.src == addr(server) && s.payload_len > 0).then(|| {
            k += 1;
            k - 1
        });
        if keep(s, data) {
            frames.push(s.frame());
        }
    }
    let bytes = write_pcap(&frames, &Link::Ethernet, Endian::Little, TsResolution::Micro);
    if let Some(dir) = std::env::var_os("TCPSCOPE_WRITE_DIR") {
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.pcap")), &bytes).unwrap();
    }
    tcpscope_core::session::analyze_bytes(&bytes, tcpscope_core::analysis::AnalysisOptions::default(), 1 << 20)
}
