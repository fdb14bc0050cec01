//! Runs the whole pipeline once on a small synthetic transfer, so that the engine's
//! long loops are optimised code before the user's capture arrives (the worker calls
//! it when it starts, bindings.rs `warmUpStep`; everything it makes is thrown away).
//!
//! Why: V8 compiles a wasm module with its baseline compiler (Liftoff) and compiles a
//! function again with its optimising compiler (TurboFan) only after it has run for a
//! while ("dynamic tiering", https://v8.dev/blog/wasm-dynamic-tiering), and a call that
//! is already running keeps its baseline code: V8 has no on-stack replacement for
//! wasm. `Session::finish` and the view's `prepare` each make ONE call that loops over
//! every packet of the capture, so on a page's first capture they ran wholly as
//! baseline code. Measured in Node 22 on 2.5 M packets (`.bench/bulk-snap96.pcap`),
//! the same load twice in one process: finish 605 → 346 ms and prepare 304 → 186 ms
//! the second time (bench/README.md, session 10). After this warm-up the first
//! capture gets the second numbers.
//!
//! What runs: pcap framing, Ethernet/IPv4/TCP decoding with options, the per-packet
//! analysis (RTT from ACKs and timestamps, SACK, duplicate ACKs, fast
//! retransmissions), `finish` (columns, stalls, shares, diagnosis) and the view's
//! prepare and full-range queries of every series the charts ask for. Each loop
//! must run long enough to use up V8's tiering budget: a few thousand packets.

use crate::analysis::AnalysisOptions;
use crate::decode::tcp_flags::{ACK, FIN, PSH};
use crate::session::Session;
use crate::synth::{write_pcap, Dir, Endian, Flow, Link, Opts, TsResolution};
use crate::view::request::{Series, ViewRequest, DEFAULT_COLUMNS};
use crate::view::ViewEngine;

/// Data segments of the synthetic download (and half as many ACKs): enough for every
/// per-packet loop to be optimised, little enough to take a few tens of ms.
const DATA_SEGMENTS: u32 = 6_000;
const MSS: u32 = 1448;
const RTT_US: i64 = 2_000;
/// One data segment every 12 µs (≈ 1 Gbit/s): ~170 segments in flight.
const GAP_US: i64 = 12;
/// Every LOSS_EVERY-th segment is lost (at LOSS_EVERY / 2): duplicate ACKs with SACK
/// blocks, then a fast retransmission.
const LOSS_EVERY: u32 = 1_000;
/// Frames are cut after their headers, as `tcpdump -s 96` writes them: the payload
/// bytes are never read, and the file stays small.
const SNAPLEN: u32 = 96;
/// The views' generation: any number works (the engine here is thrown away).
const GENERATION: u32 = 1;

/// The series the page asks for when it shows a connection (charts and events strip).
const ASKED: [Series; 11] = [
    Series::Throughput,
    Series::Goodput,
    Series::Inflight,
    Series::Rwnd,
    Series::WindowLimited,
    Series::Rtt,
    Series::Sequence,
    Series::Stalls,
    Series::Retransmissions,
    Series::DuplicateAcks,
    Series::ZeroWindows,
];

/// Runs the pipeline on [`capture`] (see the module doc), all stages at once.
pub fn run() {
    let mut warm = WarmUp::default();
    while warm.step() {}
}

/// The warm-up in stages, each one call of a few tens of ms (the worker's
/// `warmUpStep`): a capture dropped while the page starts waits for one stage, not the
/// whole warm-up, and the stages left run between the pieces of its load, after its
/// first partial chart (the progressive view, issue 41; web/worker/decoder.worker.ts).
/// The stages: decoding and the per-packet analysis; `finish`; the view's `prepare`;
/// the full-range queries of every series the charts ask for.
#[derive(Default)]
pub struct WarmUp {
    stage: u8,
    session: Option<Session>,
    views: Option<ViewEngine>,
}

impl WarmUp {
    /// Runs the next stage; false once every stage has run (then it does nothing).
    pub fn step(&mut self) -> bool {
        match self.stage {
            0 => {
                let mut session = Session::new(AnalysisOptions::default());
                for chunk in capture().chunks(1 << 20) {
                    session.push(chunk);
                }
                self.session = Some(session);
            }
            1 => {
                if let Some(s) = self.session.as_mut() {
                    s.finish();
                }
            }
            2 => {
                let mut views = ViewEngine::new();
                if let Some(conn) = self.session.as_ref().and_then(|s| s.analysis()).and_then(|a| a.connections.first().map(|c| (a, c.id))) {
                    views.prepare(conn.0, GENERATION, conn.1);
                }
                self.views = Some(views);
            }
            3 => {
                if let (Some(a), Some(views)) = (self.session.as_ref().and_then(|s| s.analysis()), self.views.as_mut()) {
                    if let Some(conn) = a.connections.first() {
                        for series in ASKED {
                            let req = ViewRequest {
                                generation: GENERATION,
                                connection: conn.id,
                                series,
                                t0: conn.start,
                                t1: conn.end,
                                columns: DEFAULT_COLUMNS,
                                bin_seconds: None,
                                stall_threshold_ms: None,
                                direction: None,
                            };
                            views.query(a, &req);
                        }
                    }
                }
                // Everything it made is thrown away.
                (self.session, self.views) = (None, None);
            }
            _ => return false,
        }
        self.stage += 1;
        self.stage < STAGES
    }
}

/// Stages of [`WarmUp::step`].
const STAGES: u8 = 4;

thread_local! {
    /// This instance's warm-up (one per wasm instance: one per worker).
    static WARM: std::cell::RefCell<WarmUp> = std::cell::RefCell::default();
}

/// The next stage of this instance's warm-up (bindings.rs `warmUpStep`); false once
/// every stage has run, and from then on (an instance warms up once).
pub fn step() -> bool {
    WARM.with(|w| w.borrow_mut().step())
}

/// A download over a 2 ms path seen at the sender: handshake with window scaling,
/// SACK and timestamps, `DATA_SEGMENTS` segments of `MSS` bytes, an ACK of every
/// second segment, a loss every `LOSS_EVERY` segments repaired by a fast
/// retransmission, FINs. Frames in time order.
pub fn capture() -> Vec<u8> {
    let mut f = Flow::new("10.0.0.1:40000", "10.0.0.2:443");
    let opts = || Opts::new().mss(1460).wscale(7).sack_perm();
    f.handshake(0, RTT_US, opts().ts(1, 0), opts().ts(1, 1));
    // The server's first data byte: ISN 5000 (synth::Flow) + its SYN.
    let seq_of = |i: u32| 5001u32.wrapping_add(i.wrapping_mul(MSS));
    let start = RTT_US + 100;
    let sent_at = |i: u32| start + i as i64 * GAP_US;
    let tsval = |t_us: i64| (t_us / 100) as u32;
    // The segment lost in the network and when it was retransmitted.
    let (mut lost, mut retransmitted, mut dups): (Option<u32>, Option<i64>, u32) = (None, None, 0);
    let (mut next_data, mut next_acked) = (0u32, 1u32);
    while next_data < DATA_SEGMENTS || next_acked < DATA_SEGMENTS {
        let ack_at = sent_at(next_acked) + RTT_US;
        if next_data < DATA_SEGMENTS && sent_at(next_data) <= ack_at {
            let t = sent_at(next_data);
            if next_data % LOSS_EVERY == LOSS_EVERY / 2 {
                (lost, retransmitted, dups) = (Some(next_data), None, 0);
            }
            f.push(Dir::S2C, t).seq(seq_of(next_data)).payload(MSS).flags(ACK | PSH).opts(Opts::new().ts(tsval(t), tsval(t - RTT_US / 2))).snaplen(SNAPLEN);
            next_data += 1;
            continue;
        }
        // The receiver's ACK of segments up to `next_acked`: cumulative, or a duplicate
        // ACK with a SACK block while the lost segment is missing.
        let j = next_acked;
        let missing = lost.filter(|&l| l < j && retransmitted.is_none_or(|r| r > sent_at(j)));
        let opts = Opts::new().ts(tsval(ack_at), tsval(sent_at(j)));
        match missing {
            Some(l) => {
                f.push(Dir::C2S, ack_at).ack(seq_of(l)).window(4096).opts(opts.sack(&[(seq_of(l + 1), seq_of(j + 1))])).snaplen(SNAPLEN);
                dups += 1;
                if dups == 3 && retransmitted.is_none() {
                    f.push(Dir::S2C, ack_at).seq(seq_of(l)).payload(MSS).flags(ACK | PSH).opts(Opts::new().ts(tsval(ack_at), tsval(ack_at))).snaplen(SNAPLEN);
                    retransmitted = Some(ack_at);
                }
            }
            None => {
                f.push(Dir::C2S, ack_at).ack(seq_of(j + 1)).window(4096).opts(opts).snaplen(SNAPLEN);
                if lost.is_some_and(|l| l < j) {
                    lost = None;
                }
            }
        }
        next_acked += 2;
    }
    let end = sent_at(DATA_SEGMENTS) + 2 * RTT_US;
    f.push(Dir::S2C, end).seq(seq_of(DATA_SEGMENTS)).flags(FIN | ACK);
    f.push(Dir::C2S, end + RTT_US).ack(seq_of(DATA_SEGMENTS).wrapping_add(1)).flags(FIN | ACK);
    write_pcap(&f.frames(), &Link::Ethernet, Endian::Little, TsResolution::Micro)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::analyze_bytes;

    /// The synthetic transfer is what the module doc says: 6 losses (segments 500,
    /// 1500, … 5500), each repaired by one fast retransmission, and no stall (the
    /// sender never pauses longer than a retransmission's 3 duplicate ACKs).
    #[test]
    fn warm_up_capture_is_a_download_with_six_fast_retransmissions() {
        let session = analyze_bytes(&capture(), AnalysisOptions::default(), 1 << 20);
        let a = session.analysis().expect("analysed");
        assert_eq!(a.connections.len(), 1);
        let c = &a.connections[0];
        let data = &c.directions[c.data_direction as usize];
        assert_eq!(data.payload_bytes, u64::from((DATA_SEGMENTS + 6) * MSS));
        assert_eq!(data.retransmissions, 6);
        run();
    }

    /// The stages run in turn, four of them, and then nothing more.
    #[test]
    fn warm_up_runs_in_four_stages() {
        let mut warm = WarmUp::default();
        let mut steps = 1;
        while warm.step() {
            steps += 1;
        }
        assert_eq!(steps, 4);
        assert!(!warm.step());
        assert!(warm.session.is_none() && warm.views.is_none());
    }
}
