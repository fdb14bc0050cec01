//! Debugging aid (ignored by default): prints the per-packet columns of one
//! connection, to diff against tshark's
//! `-T fields -e frame.number -e tcp.seq -e tcp.ack -e tcp.analysis.bytes_in_flight ...`.
//!
//! TCPSCOPE_DUMP=path/to/capture.pcap TCPSCOPE_STREAM=3 cargo test --test all analysis_dump:: -- --ignored --nocapture

use tcpscope_core::analysis::columns::flag_bits as fb;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::analyze_bytes;

const NAMES: &[(u32, &str)] = &[
    (fb::RETRANSMISSION, "retrans"),
    (fb::FAST_RETRANSMISSION, "fast"),
    (fb::SPURIOUS_RETRANSMISSION, "spurious"),
    (fb::DUPLICATE_ACK, "dupack"),
    (fb::ZERO_WINDOW, "zerowin"),
    (fb::ZERO_WINDOW_PROBE, "zwp"),
    (fb::ZERO_WINDOW_PROBE_ACK, "zwp-ack"),
    (fb::WINDOW_FULL, "winfull"),
    (fb::WINDOW_UPDATE, "winupd"),
    (fb::KEEP_ALIVE, "keepalive"),
    (fb::KEEP_ALIVE_ACK, "ka-ack"),
    (fb::LOST_SEGMENT, "lost"),
    (fb::ACK_LOST_SEGMENT, "ack-lost"),
    (fb::OUT_OF_ORDER, "ooo"),
    (fb::KIND_RTO, "rto"),
    (fb::KIND_TLP, "tlp"),
    (fb::KIND_FAST, "k-fast"),
    (fb::KIND_SLOW_START, "k-slow-start"),
    (fb::KIND_SPURIOUS, "k-spurious"),
    (fb::CAPTURE_LOSS, "capture-loss"),
    (fb::UNSEEN_BEFORE, "unseen-before"),
    (fb::HELD_ON_PATH, "held-on-path"),
];

#[test]
#[ignore]
fn dump_connection() {
    let Some(path) = std::env::var_os("TCPSCOPE_DUMP") else { return };
    let stream: usize = std::env::var("TCPSCOPE_STREAM").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let bytes = std::fs::read(path).unwrap();
    let s = analyze_bytes(&bytes, AnalysisOptions::default(), 1 << 16);
    let a = s.analysis().unwrap();
    let Some(cols) = a.stores.get(stream).map(|s| s.columns()) else {
        println!("{} connections", a.stores.len());
        return;
    };
    let p = &cols.packets;
    println!("frame\tdir\tt\tseq\tack\tlen\twin\tin_flight\tflags");
    for i in 0..p.t.len() {
        let names: Vec<&str> = NAMES.iter().filter(|n| p.flags[i] & n.0 != 0).map(|n| n.1).collect();
        println!(
            "{}\t{}\t{:.6}\t{}\t{}\t{}\t{}\t{}\t{}",
            p.frame[i], p.dir[i], p.t[i], p.seq[i], p.ack[i], p.len[i], p.win[i], p.in_flight[i], names.join(",")
        );
    }
    // TCPSCOPE_RTT=1: the RTT samples instead of the summary (kind bits: round_trips.rs).
    if std::env::var_os("TCPSCOPE_RTT").is_some() {
        let r = &cols.rtt;
        println!("rtt_t\tdir\tms\tkind");
        for i in 0..r.t.len() {
            println!("{:.6}\t{}\t{:.3}\t{}", r.t[i], r.dir[i], r.rtt_ms[i], r.kind[i]);
        }
        return;
    }
    println!("{}", serde_json::to_string_pretty(&a.connections[stream]).unwrap());
}
