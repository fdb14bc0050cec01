//! Arbitrary view questions (issue 18, item 5): t0, t1, columns, bin, stall threshold,
//! series, direction and connection straight from the input — NaN, ±inf, negative,
//! subnormal, 10^300, t1 < t0 — against real analyses (example captures of a bulk
//! transfer with stalls, losses and a zero-window, and a bursty one). Properties: no
//! panic; every answer stays pixel-sized (never sized by time span, bin or threshold);
//! the tooltip query (`at`) never panics either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use tcpscope_core::analysis::AnalysisOptions;
use tcpscope_core::session::{analyze_bytes, Session};
use tcpscope_core::view::at::AtRequest;
use tcpscope_core::view::request::MAX_COLUMNS;
use tcpscope_core::view::{Series, ViewData, ViewEngine, ViewRequest};

const CAPTURES: [&[u8]; 3] = [
    include_bytes!("../../../public/examples/rx-zero-window-dead.pcap"),
    include_bytes!("../../../public/examples/cubic-loss.pcap"),
    include_bytes!("../../../public/examples/bursts-outage.pcap"),
];

/// Every series name the engine may know; unknown ones are skipped (serde refuses them).
const SERIES: [&str; 14] = [
    "throughput", "goodput", "wire", "inflight", "rwnd", "windowLimited", "rtt", "sequence", "stalls",
    "ack", "windowEdge", "wifi", "pipe", "events",
];

thread_local! {
    static SESSIONS: Vec<Session> = CAPTURES.iter().map(|c| analyze_bytes(c, AnalysisOptions::default(), 1 << 16)).collect();
    static ENGINES: RefCell<Vec<ViewEngine>> = RefCell::new(CAPTURES.iter().map(|_| ViewEngine::new()).collect());
}

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn f64(&mut self) -> f64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.byte();
        }
        f64::from_le_bytes(b)
    }
    /// A number that is sometimes sane (within the capture) and sometimes anything.
    fn time(&mut self, end: f64) -> f64 {
        match self.byte() % 4 {
            0 => f64::from(self.byte()) / 255.0 * end,
            _ => self.f64(),
        }
    }
    fn option(&mut self) -> Option<f64> {
        match self.byte() % 3 {
            0 => None,
            1 => Some(f64::from(self.byte()) * 1e-4),
            _ => Some(self.f64()),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let which = usize::from(input.byte()) % CAPTURES.len();
    let Ok(series) = serde_json::from_str::<Series>(&format!("\"{}\"", SERIES[usize::from(input.byte()) % SERIES.len()])) else {
        return;
    };
    SESSIONS.with(|sessions| {
        let analysis = sessions[which].analysis().expect("analysed");
        let connections = analysis.connections.len().max(1) as u32;
        let connection = u32::from(input.byte()) % (connections + 1); // sometimes one that does not exist
        let end = analysis.connections.iter().map(|c| c.end).fold(0.0, f64::max);
        let req = ViewRequest {
            generation: 1,
            connection,
            series,
            t0: input.time(end),
            t1: input.time(end),
            columns: match input.byte() % 3 {
                0 => u32::from(input.byte()) * 40,
                1 => input.f64() as u32,
                _ => 1600,
            },
            bin_seconds: input.option(),
            stall_threshold_ms: input.option(),
            direction: match input.byte() % 4 {
                0 => None,
                d => Some(d - 1), // 0, 1 and the impossible 2
            },
        };
        ENGINES.with(|engines| {
            let engine = &mut engines.borrow_mut()[which];
            let answer = engine.query(analysis, &req);
            let cap = 4 * MAX_COLUMNS as usize + 2;
            let size = match &answer.data {
                ViewData::Bins(b) => b.bytes.len().max(b.bps.len()),
                ViewData::Points(p) => p.column.len().max(p.markers.as_ref().map_or(0, |m| m.t.len())),
                ViewData::Intervals(i) => i.intervals.len(),
                _ => 0,
            };
            assert!(size <= cap, "{size} entries answer a {}-column question: {req:?}", req.columns);
            let at = AtRequest {
                generation: 1,
                connection: req.connection,
                series: req.series,
                t: input.time(end),
                direction: req.direction,
                bin_seconds: req.bin_seconds,
                stall_threshold_ms: req.stall_threshold_ms,
            };
            let _ = engine.at(analysis, &at);
        });
    });
});
