//! The only file that knows wasm-bindgen. A thin wrapper over `session::Session`:
//! chunks in, JSON summary and columns out. Columns are returned as `Vec`s, which
//! wasm-bindgen copies into fresh JS typed arrays (never views of wasm memory, which
//! would be invalidated when memory grows), so the worker can transfer them.

use crate::analysis::{stalls, AnalysisOptions, ConnectionColumns};
use crate::session::Session;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmSession {
    inner: Session,
}

#[wasm_bindgen]
impl WasmSession {
    /// `stall_ms`: stall threshold in ms, or NaN / ≤ 0 for DESIGN.md's default.
    #[wasm_bindgen(constructor)]
    pub fn new(stall_ms: f64) -> WasmSession {
        let stall_threshold_ms = if stall_ms.is_finite() && stall_ms > 0.0 { Some(stall_ms) } else { None };
        WasmSession { inner: Session::new(AnalysisOptions { stall_threshold_ms, ..AnalysisOptions::default() }) }
    }

    /// Feed the next chunk; false once a fatal error stopped decoding.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.inner.push(chunk)
    }

    pub fn finish(&mut self) {
        self.inner.finish()
    }

    #[wasm_bindgen(js_name = bytesConsumed)]
    pub fn bytes_consumed(&self) -> f64 {
        self.inner.bytes_consumed() as f64
    }

    pub fn packets(&self) -> f64 {
        self.inner.packets() as f64
    }

    /// The schema-1 JSON summary (same as the CLI's `--json`).
    #[wasm_bindgen(js_name = reportJson)]
    pub fn report_json(&self) -> String {
        self.inner.report().to_json()
    }

    /// A float column of connection `conn`, copied out; empty for an unknown name.
    #[wasm_bindgen(js_name = columnF64)]
    pub fn column_f64(&self, conn: u32, name: &str) -> Vec<f64> {
        self.columns(conn).and_then(|c| f64_column(c, name)).map(|v| v.to_vec()).unwrap_or_default()
    }

    #[wasm_bindgen(js_name = columnU32)]
    pub fn column_u32(&self, conn: u32, name: &str) -> Vec<u32> {
        self.columns(conn)
            .and_then(|c| match name {
                "packets.frame" => Some(&c.packets.frame),
                "packets.len" => Some(&c.packets.len),
                "packets.wireLen" => Some(&c.packets.wire_len),
                "packets.flags" => Some(&c.packets.flags),
                _ => None,
            })
            .map(|v| v.to_vec())
            .unwrap_or_default()
    }

    #[wasm_bindgen(js_name = columnU8)]
    pub fn column_u8(&self, conn: u32, name: &str) -> Vec<u8> {
        self.columns(conn)
            .and_then(|c| match name {
                "packets.dir" => Some(&c.packets.dir),
                "sack.dir" => Some(&c.sack.dir),
                "rtt.dir" => Some(&c.rtt.dir),
                "rtt.kind" => Some(&c.rtt.kind),
                _ => None,
            })
            .map(|v| v.to_vec())
            .unwrap_or_default()
    }

    /// Stalls of one direction for another threshold (the UI's control), as JSON.
    #[wasm_bindgen(js_name = stallsJson)]
    pub fn stalls_json(&self, conn: u32, dir: u8, threshold_ms: f64) -> String {
        let found = self.columns(conn).map(|c| stalls::find_stalls(&c.packets, dir, threshold_ms / 1000.0)).unwrap_or_default();
        serde_json::to_string(&found).unwrap_or_else(|_| "[]".into())
    }
}

impl WasmSession {
    fn columns(&self, conn: u32) -> Option<&ConnectionColumns> {
        let analysis = self.inner.analysis()?;
        let index = analysis.connections.iter().position(|c| c.id == conn)?;
        analysis.columns.get(index)
    }
}

fn f64_column<'a>(c: &'a ConnectionColumns, name: &str) -> Option<&'a Vec<f64>> {
    Some(match name {
        "packets.t" => &c.packets.t,
        "packets.seq" => &c.packets.seq,
        "packets.ack" => &c.packets.ack,
        "packets.win" => &c.packets.win,
        "packets.inFlight" => &c.packets.in_flight,
        "sack.t" => &c.sack.t,
        "sack.left" => &c.sack.left,
        "sack.right" => &c.sack.right,
        "rtt.t" => &c.rtt.t,
        "rtt.rttMs" => &c.rtt.rtt_ms,
        _ => return None,
    })
}

/// Decoding alone (framing + link/IP/TCP headers, no analysis): the baseline the
/// benchmark compares the full analysis against.
#[wasm_bindgen]
pub struct WasmDecoder {
    decoder: crate::decode::CaptureDecoder,
}

#[wasm_bindgen]
impl WasmDecoder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmDecoder {
        WasmDecoder { decoder: crate::decode::CaptureDecoder::new() }
    }

    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.decoder.push(chunk, &mut |_| {}).is_ok()
    }

    pub fn finish(&mut self) -> bool {
        self.decoder.finish().is_ok()
    }

    pub fn packets(&self) -> f64 {
        self.decoder.info().packets as f64
    }
}

impl Default for WasmDecoder {
    fn default() -> Self {
        Self::new()
    }
}
