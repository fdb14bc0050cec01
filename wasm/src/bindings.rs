//! The only file that knows wasm-bindgen. A thin wrapper over `session::Session`:
//! chunks in, JSON summary and columns out. Columns are materialized from the
//! compact store (analysis/rows/store.rs) one at a time and returned as `Vec`s, which
//! wasm-bindgen copies into fresh JS typed arrays (never views of wasm memory, which
//! would be invalidated when memory grows), so the worker can transfer them.

use crate::analysis::store::secs;
use crate::analysis::{AnalysisOptions, ConnStore, ConnectionSummary};
use crate::session::Session;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmSession {
    inner: Session,
    /// The connection table (table.rs), built at its first query.
    table: Option<crate::table::ConnectionTable>,
    /// Which session the view cache was built for (`with_views`): a number no other
    /// session of this instance gets, where the address was reused by the next session
    /// allocated after one was freed, which then read the freed one's cached series.
    serial: u64,
}

thread_local! {
    static NEXT_SESSION: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

#[wasm_bindgen]
impl WasmSession {
    /// `stall_ms`: stall threshold in ms, or NaN / ≤ 0 for DESIGN.md's default.
    #[wasm_bindgen(constructor)]
    pub fn new(stall_ms: f64) -> WasmSession {
        let stall_threshold_ms = if stall_ms.is_finite() && stall_ms > 0.0 { Some(stall_ms) } else { None };
        let serial = NEXT_SESSION.with(|n| n.replace(n.get() + 1));
        WasmSession { inner: Session::new(AnalysisOptions { stall_threshold_ms, ..AnalysisOptions::default() }), table: None, serial }
    }

    /// Feed the next chunk; false once a fatal error stopped decoding.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.inner.push(chunk)
    }

    /// `push` for inflated gzip input; `compressed`: compressed bytes read so far.
    #[wasm_bindgen(js_name = pushInflated)]
    pub fn push_inflated(&mut self, chunk: &[u8], compressed: f64) -> bool {
        self.inner.push_inflated(chunk, compressed as u64)
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

    /// The report without its connections, plus `connectionCount` (the CLI's
    /// `--ndjson` header line); then `connectionJson(i)` for i in 0..connectionCount.
    #[wasm_bindgen(js_name = headerJson)]
    pub fn header_json(&self) -> String {
        self.inner.report().header_json()
    }

    /// Connection at position `index` as JSON (an element of the report's
    /// `connections`); empty past the end.
    #[wasm_bindgen(js_name = connectionJson)]
    pub fn connection_json(&self, index: u32) -> String {
        let connections = self.inner.analysis().map(|a| a.connections.as_slice()).unwrap_or(&[]);
        crate::report::Report::connection_json(connections, index as usize).unwrap_or_default()
    }

    /// Connection at position `index` as the compact row of `tcpscope analyze --ndjson`
    /// (compact_row.rs; docs/FLEET.md); empty past the end.
    #[wasm_bindgen(js_name = connectionCompactJson)]
    pub fn connection_compact_json(&self, index: u32) -> String {
        let connections = self.inner.analysis().map(|a| a.connections.as_slice()).unwrap_or(&[]);
        connections.get(index as usize).map(|c| crate::compact_row::CompactRow::of(c).to_json()).unwrap_or_default()
    }

    /// While the capture is read: the connection table so far (JSON
    /// `view::partial::PartialTable`, the `count` largest connections by payload);
    /// empty once the analysis is finished (issue 41, view/partial.rs).
    #[wasm_bindgen(js_name = partialTableJson)]
    pub fn partial_table_json(&self, count: u32) -> String {
        self.inner.running().map(|r| serde_json::to_string(&crate::view::partial::table(r, count as usize)).unwrap_or_default()).unwrap_or_default()
    }

    /// One page of the connection table (JSON `table::TableQuery` → `TablePage`):
    /// sorted, filtered, at most `table::MAX_PAGE_ROWS` rows; call after `finish`.
    #[wasm_bindgen(js_name = connectionTable)]
    pub fn connection_table(&mut self, request_json: &str) -> String {
        let Some(analysis) = self.inner.analysis() else { return r#"{"error":"the capture is not analysed yet"}"#.into() };
        self.table.get_or_insert_with(|| crate::table::ConnectionTable::with_mptcp(&analysis.connections, &analysis.mptcp)).query_json(request_json)
    }

    /// A float column of connection `conn`, materialized from the compact store and
    /// copied out; empty for an unknown name. One column at a time, so the transient
    /// is 8 bytes per packet of that connection, never the whole public layout.
    #[wasm_bindgen(js_name = columnF64)]
    pub fn column_f64(&self, conn: u32, name: &str) -> Vec<f64> {
        use crate::boundary::columns::{Column as C, Element};
        let Some(s) = self.store(conn) else { return Vec::new() };
        let Some(column) = C::parse(name, Element::F64) else { return Vec::new() };
        let mut out = Vec::new();
        match column {
            C::PacketsT | C::PacketsSeq | C::PacketsAck | C::PacketsWin | C::PacketsInFlight => {
                out.reserve_exact(s.packet_count());
                s.for_each_packet(|r| {
                    out.push(match column {
                        C::PacketsT => secs(r.t_ns),
                        C::PacketsSeq => r.seq as f64,
                        C::PacketsAck => r.ack.map_or(f64::NAN, |a| a as f64),
                        C::PacketsWin => r.win.map_or(f64::NAN, |w| w as f64),
                        _ => r.in_flight.map_or(f64::NAN, |f| f as f64),
                    })
                });
            }
            C::SackT => out = s.sack_columns().t,
            C::SackLeft => out = s.sack_columns().left,
            C::SackRight => out = s.sack_columns().right,
            C::RttT => out = s.rtt_columns().t,
            C::RttRttMs => out = s.rtt_columns().rtt_ms,
            _ => {}
        }
        out
    }

    #[wasm_bindgen(js_name = columnU32)]
    pub fn column_u32(&self, conn: u32, name: &str) -> Vec<u32> {
        use crate::boundary::columns::{Column as C, Element};
        let Some(s) = self.store(conn) else { return Vec::new() };
        let Some(column) = C::parse(name, Element::U32) else { return Vec::new() };
        let mut out = Vec::with_capacity(s.packet_count());
        s.for_each_packet(|r| {
            out.push(match column {
                C::PacketsFrame => r.frame,
                C::PacketsLen => r.len,
                C::PacketsWireLen => r.wire_len,
                _ => r.flags,
            })
        });
        out
    }

    #[wasm_bindgen(js_name = columnU8)]
    pub fn column_u8(&self, conn: u32, name: &str) -> Vec<u8> {
        use crate::boundary::columns::{Column as C, Element};
        let Some(s) = self.store(conn) else { return Vec::new() };
        match C::parse(name, Element::U8) {
            Some(C::PacketsDir) => {
                let mut out = Vec::with_capacity(s.packet_count());
                s.for_each_packet(|r| out.push(r.dir));
                out
            }
            Some(C::SackDir) => s.sack_columns().dir,
            Some(C::RttDir) => s.rtt_columns().dir,
            Some(C::RttKind) => s.rtt_columns().kind,
            _ => Vec::new(),
        }
    }
}

impl WasmSession {
    fn store(&self, conn: u32) -> Option<&ConnStore> {
        self.connection(conn).map(|(_, s)| s)
    }

    fn connection(&self, conn: u32) -> Option<(&ConnectionSummary, &ConnStore)> {
        let analysis = self.inner.analysis()?;
        // Ids are positions (Analyzer::finish numbers connections in order).
        let index = match analysis.connections.get(conn as usize) {
            Some(c) if c.id == conn => conn as usize,
            _ => analysis.connections.iter().position(|c| c.id == conn)?,
        };
        Some((analysis.connections.get(index)?, analysis.stores.get(index)?))
    }
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

/// Save for Wireshark (slice.rs): the capture's chunks in, each chunk's pcapng bytes
/// out (returned at once and not kept, so memory stays at one unit however large the
/// capture). A decode error is thrown as its sentence for people.
#[wasm_bindgen]
pub struct WasmSlicer {
    slicer: crate::slice::Slicer,
}

#[wasm_bindgen]
impl WasmSlicer {
    /// `from_s`/`to_s`: seconds since the file's first packet, NaN for no bound.
    #[wasm_bindgen(constructor)]
    pub fn new(connection: u32, from_s: f64, to_s: f64) -> Result<WasmSlicer, JsError> {
        let bound = |s: f64| (!s.is_nan()).then_some(s);
        let request = crate::slice::SliceRequest { connection, from_s: bound(from_s), to_s: bound(to_s) };
        if let Some(e) = crate::slice::request_problem(&request) {
            return Err(JsError::new(&e.message));
        }
        Ok(WasmSlicer { slicer: crate::slice::Slicer::new(request) })
    }

    /// One more connection to keep, in the same pass (the compare view's pair); before
    /// the first chunk.
    pub fn also(&mut self, connection: u32, from_s: f64, to_s: f64) -> Result<(), JsError> {
        let bound = |s: f64| (!s.is_nan()).then_some(s);
        let request = crate::slice::SliceRequest { connection, from_s: bound(from_s), to_s: bound(to_s) };
        if let Some(e) = crate::slice::request_problem(&request) {
            return Err(JsError::new(&e.message));
        }
        self.slicer.add(request);
        Ok(())
    }

    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<u8>, JsError> {
        let mut out = Vec::new();
        self.slicer.push(chunk, &mut out).map_err(|e| JsError::new(&e.message))?;
        Ok(out)
    }

    /// `push` for inflated gzip input; `compressed`: compressed bytes read so far (the
    /// caps of inflate.rs apply, as for the analysis).
    #[wasm_bindgen(js_name = pushInflated)]
    pub fn push_inflated(&mut self, chunk: &[u8], compressed: f64) -> Result<Vec<u8>, JsError> {
        let mut out = Vec::new();
        self.slicer.push_inflated(chunk, compressed as u64, &mut out).map_err(|e| JsError::new(&e.message))?;
        Ok(out)
    }

    /// `{"packetsRead":…,"packetsKept":…,"bytesWritten":…,"connections":…,"inflated":…,"kept":[…]}`
    /// (`kept`: per connection asked for, in order); throws why the capture could not be
    /// read to its end (the bytes returned so far are still a whole pcapng).
    pub fn finish(&mut self) -> Result<String, JsError> {
        let s = self.slicer.finish().map_err(|e| JsError::new(&e.message))?;
        let kept: Vec<String> = self.slicer.kept().iter().map(u64::to_string).collect();
        Ok(format!(
            r#"{{"packetsRead":{},"packetsKept":{},"bytesWritten":{},"connections":{},"inflated":{},"kept":[{}]}}"#,
            s.packets_read, s.packets_kept, s.bytes_written, s.connections, s.inflated, kept.join(",")
        ))
    }

    /// The most bytes held for an incomplete unit so far (the memory bound, for tests).
    #[wasm_bindgen(js_name = peakBuffer)]
    pub fn peak_buffer(&self) -> f64 {
        self.slicer.peak_buffer() as f64
    }
}

/// Live heap bytes, so the benchmark can tell what the analysis retains from the
/// linear memory's high-water mark (wasm memory never shrinks, so
/// `memory.buffer.byteLength` also counts transients freed long ago).
#[wasm_bindgen(js_name = heapBytes)]
pub fn heap_bytes() -> f64 {
    crate::heap::live_bytes() as f64
}

// ---------------------------------------------------------------- view queries
// (wasm/src/view, issue 14). One engine per worker: its cache belongs to the session
// it was last used with and to the request's capture generation, and is dropped
// when either changes, so an answer can never come from another capture's columns.

thread_local! {
    static VIEWS: std::cell::RefCell<(u64, crate::view::ViewEngine)> = std::cell::RefCell::new((0, crate::view::ViewEngine::new()));
}

/// Answers one view request (JSON `ViewRequest`) over the session's analysis with a
/// JSON `ViewResponse`; a request that cannot be answered gets `error` set.
#[wasm_bindgen(js_name = viewQuery)]
pub fn view_query(session: &WasmSession, request_json: &str) -> String {
    if session.inner.analysis().is_none() {
        // Still reading: the partial answer (view/partial.rs).
        let r = crate::view::partial::respond(session.inner.running(), request_json);
        return serde_json::to_string(&r).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    }
    with_views(session, |v| v.query_json(session.inner.analysis(), request_json))
}

/// The same answer as `viewQuery`, packed (view/packed.rs): a JSON header and two
/// number arrays, taken once each (the worker transfers them to the page).
#[wasm_bindgen(js_name = viewQueryPacked)]
pub fn view_query_packed(session: &WasmSession, request_json: &str) -> ViewPacked {
    if session.inner.analysis().is_none() {
        // Still reading: the partial answer, packed the same way (view/partial.rs).
        return ViewPacked(crate::view::packed::pack(crate::view::partial::respond(session.inner.running(), request_json)));
    }
    let mut packed = None;
    with_views(session, |v| {
        packed = Some(v.query_packed(session.inner.analysis(), request_json));
        String::new()
    });
    ViewPacked(packed.unwrap_or_default())
}

#[wasm_bindgen]
pub struct ViewPacked(crate::view::packed::PackedResponse);

#[wasm_bindgen]
impl ViewPacked {
    pub fn header(&self) -> String {
        self.0.header.clone()
    }

    /// The f64 array (a Float64Array); empty after the first call.
    #[wasm_bindgen(js_name = takeF64s)]
    pub fn take_f64s(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.0.f64s)
    }

    /// The u32 array (a Uint32Array); empty after the first call.
    #[wasm_bindgen(js_name = takeU32s)]
    pub fn take_u32s(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.0.u32s)
    }
}

/// The worker's one engine, cleared when it is asked about another session.
fn with_views(session: &WasmSession, f: impl FnOnce(&mut crate::view::ViewEngine) -> String) -> String {
    let owner = session.serial;
    VIEWS.with(|v| {
        let mut v = v.borrow_mut();
        if v.0 != owner {
            v.1.clear();
            v.0 = owner;
        }
        f(&mut v.1)
    })
}

/// Runs the pipeline once on a small synthetic capture so that V8 optimises its long
/// loops before the user's first capture (warm_up.rs); the worker calls it at start.
#[wasm_bindgen(js_name = warmUp)]
pub fn warm_up() {
    crate::warm_up::run();
}

/// Builds what the charts of `connection` will ask first (view/mod.rs `prepare`), for
/// capture `generation`; the worker calls it while the page renders the report.
#[wasm_bindgen(js_name = viewPrepare)]
pub fn view_prepare(session: &WasmSession, generation: u32, connection: u32) {
    if let Some(analysis) = session.inner.analysis() {
        with_views(session, |v| {
            v.prepare(analysis, generation, connection);
            String::new()
        });
    }
}

/// The value under the pointer (JSON `AtRequest` → JSON `ViewAt`, view/at.rs), from
/// the same engine and cache as `viewQuery`.
#[wasm_bindgen(js_name = viewAt)]
pub fn view_at(session: &WasmSession, request_json: &str) -> String {
    with_views(session, |v| v.at_json(session.inner.analysis(), request_json))
}

/// The bandwidth-delay calculator (JSON `BdpQuestion` → JSON `BdpAnswer`,
/// analysis/rates/bdp.rs `calculate`): the page's calculator shows these numbers.
#[wasm_bindgen(js_name = bdpJson)]
pub fn bdp_json(question_json: &str) -> String {
    crate::analysis::bdp::calculate_json(question_json)
}

/// The view protocol's version (`view::VIEW_SCHEMA_VERSION`), for the worker to check.
#[wasm_bindgen(js_name = viewSchemaVersion)]
pub fn view_schema_version() -> u32 {
    crate::view::VIEW_SCHEMA_VERSION
}

// ---------------------------------------------------------------- share links
// (wasm/src/share, issue 15): a link made from the live view engine's answers, and a
// link opened as a view source that answers the same requests.

/// The share link of a view (`share::ShareSpec` as JSON) as JSON:
/// `{ snapshot: base64url, columns, bytes }` or `{ error }`.
#[wasm_bindgen(js_name = shareSnapshot)]
pub fn share_snapshot(session: &WasmSession, spec_json: &str) -> String {
    let owner = session.serial;
    let result = serde_json::from_str::<crate::share::ShareSpec>(spec_json).map_err(|e| format!("not a share request: {e}")).and_then(|spec| {
        let analysis = session.inner.analysis().ok_or("the capture is not analysed yet")?;
        VIEWS.with(|v| {
            let mut v = v.borrow_mut();
            if v.0 != owner {
                v.1.clear();
                v.0 = owner;
            }
            crate::share::build(analysis, &session.inner.report().to_json(), &mut v.1, &spec)
        })
    });
    match result {
        Ok(b) => serde_json::json!({ "snapshot": crate::share::bytes::to_base64url(&b.bytes), "columns": b.columns, "bytes": b.bytes.len() }).to_string(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// A share link's snapshot (format 1 or 2) as a view source.
#[wasm_bindgen]
pub struct WasmSnapshot {
    inner: crate::share::SnapshotSession,
}

#[wasm_bindgen]
impl WasmSnapshot {
    /// From snapshot bytes; throws the parser's sentence when they cannot be shown.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<WasmSnapshot, JsError> {
        crate::share::SnapshotSession::open(bytes).map(|inner| WasmSnapshot { inner }).map_err(|e| JsError::new(&e.message))
    }

    /// From a link or its fragment (`…#c=1&snap=…`); throws when it names no snapshot.
    #[wasm_bindgen(js_name = fromLink)]
    pub fn from_link(link: &str) -> Result<WasmSnapshot, JsError> {
        let fragment = link.split_once('#').map_or(link, |(_, f)| f);
        match crate::share::format::from_fragment(fragment) {
            Ok(Some(bytes)) => WasmSnapshot::new(&bytes),
            Ok(None) => Err(JsError::new("This link holds no snapshot (no snap= in it).")),
            Err(e) => Err(JsError::new(&e.message)),
        }
    }

    #[wasm_bindgen(js_name = reportJson)]
    pub fn report_json(&self) -> String {
        self.inner.report_json()
    }

    pub fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The sender's view as a URL fragment.
    pub fn view(&self) -> String {
        self.inner.view().to_string()
    }

    /// Pixel columns the link holds; 0 for a per-packet (first-round) link.
    pub fn columns(&self) -> u32 {
        self.inner.grid().map_or(0, |g| g.columns)
    }

    /// A view request (JSON) answered from the link (JSON `ViewResponse`).
    pub fn query(&mut self, request_json: &str) -> String {
        self.inner.query_json(request_json)
    }
}
