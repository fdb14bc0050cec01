//! The only file that knows wasm-bindgen. A thin wrapper over `session::Session`: chunks in; out, the one
//! entry point for questions (`ask`: boundary/ask.rs `Ask` as JSON, answered by answer.rs), the packed view
//! answer and the columns. Columns are materialized from the compact store (analysis/rows/store.rs) one at a
//! time and returned as `Vec`s, which wasm-bindgen copies into fresh JS typed arrays (never views of wasm
//! memory, which would be invalidated when memory grows), so the worker can transfer them.

use crate::analysis::store::secs;
use crate::analysis::{AnalysisOptions, ConnStore, ConnectionSummary};
use crate::session::Session;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct WasmSession {
    pub(crate) inner: Session,
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

    /// `finish` keeping no chart rows, for the CLI's rows (session.rs `finish_rows_only`).
    #[wasm_bindgen(js_name = finishRowsOnly)]
    pub fn finish_rows_only(&mut self) {
        self.inner.finish_rows_only()
    }

    #[wasm_bindgen(js_name = bytesConsumed)]
    pub fn bytes_consumed(&self) -> f64 {
        self.inner.bytes_consumed() as f64
    }

    pub fn packets(&self) -> f64 {
        self.inner.packets() as f64
    }

    /// The one entry point for questions (boundary/ask.rs `Ask`, as JSON): the report,
    /// its rows, the connection table, the charts' questions, a share link. The reply
    /// is the JSON `boundary::ask::REPLIES` names for the question, or `{"refused"}`.
    pub fn ask(&mut self, question: &str) -> String {
        let owner = self.serial;
        let (session, table) = (&self.inner, &mut self.table);
        with_views(owner, |views| crate::answer::answer(crate::answer::Asked { session, table, views }, question))
    }

    /// `ask` for a `view` question, its answer packed (view/packed.rs): a JSON header
    /// and two number arrays, taken once each (the worker transfers them to the page).
    #[wasm_bindgen(js_name = askPacked)]
    pub fn ask_packed(&mut self, question: &str) -> ViewPacked {
        let (inner, serial) = (&self.inner, self.serial);
        packed_view(question, |request| match inner.analysis() {
            Some(analysis) => with_views(serial, |views| views.query(analysis, &request)),
            // Still reading: the partial answer, packed the same way (view/partial.rs).
            None => match inner.running() {
                Some(r) => crate::view::partial::query(r, &request),
                None => crate::view::failed(&request, "the capture is not being read".into()),
            },
        })
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

/// Decoding alone (framing + link/IP/TCP headers, no analysis): the benchmark's baseline for the analysis.
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

/// Save for Wireshark (slice.rs): the capture's chunks in, each chunk's pcapng bytes out (returned at once
/// and not kept, so memory stays at one unit however large the capture). A decode error is thrown as its sentence for people.
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

/// Live heap bytes, so the benchmark can tell what the analysis retains from the linear memory's
/// high-water mark (wasm memory never shrinks: `memory.buffer.byteLength` counts transients freed long ago).
#[wasm_bindgen(js_name = heapBytes)]
pub fn heap_bytes() -> f64 {
    crate::heap::live_bytes() as f64
}

// ---------------------------------------------------------------- view queries (wasm/src/view, issue 14).
// One engine per worker: its cache belongs to the session it was last used with and to the request's capture
// generation, and is dropped when either changes, so an answer can never come from another capture's columns.

thread_local! {
    static VIEWS: std::cell::RefCell<(u64, crate::view::ViewEngine)> = std::cell::RefCell::new((0, crate::view::ViewEngine::new()));
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

/// `askPacked` of either kind of session: a `view` question answered by `answer` and
/// packed; any other question, or one that does not parse, refused in the header.
fn packed_view(question: &str, answer: impl FnOnce(crate::view::ViewRequest) -> crate::view::ViewResponse) -> ViewPacked {
    use crate::boundary::ask::{parse, Ask, Refused};
    use crate::view::packed::{pack, PackedResponse};
    let refused = |header: String| ViewPacked(PackedResponse { header, ..Default::default() });
    match parse(question) {
        Ok(Ask::View { request }) => ViewPacked(pack(answer(request))),
        Ok(_) => refused(Refused::json("askPacked answers view questions only")),
        Err(why) => refused(why),
    }
}

/// The worker's one engine, cleared when it is asked about another session (`owner`:
/// the session's serial).
fn with_views<T>(owner: u64, f: impl FnOnce(&mut crate::view::ViewEngine) -> T) -> T {
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
/// loops before the user's first capture (warm_up.rs), one stage per call so that a
/// capture dropped meanwhile waits for one stage only; false once every stage has run.
#[wasm_bindgen(js_name = warmUpStep)]
pub fn warm_up_step() -> bool {
    crate::warm_up::step()
}

/// Builds what the charts of `connection` will ask first (view/mod.rs `prepare`), for
/// capture `generation`; the worker calls it while the page renders the report.
#[wasm_bindgen(js_name = viewPrepare)]
pub fn view_prepare(session: &WasmSession, generation: u32, connection: u32) {
    if let Some(analysis) = session.inner.analysis() {
        with_views(session.serial, |v| v.prepare(analysis, generation, connection));
    }
}

/// The view protocol's version (`view::VIEW_SCHEMA_VERSION`), for the worker to check.
#[wasm_bindgen(js_name = viewSchemaVersion)]
pub fn view_schema_version() -> u32 {
    crate::view::VIEW_SCHEMA_VERSION
}

// ---------------------------------------------------------------- share links
// (wasm/src/share, issue 15): a link made from the live view engine's answers, and a
// link opened as a view source that answers the same requests.

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

    /// The one entry point, as `WasmSession.ask`: a link answers `report`, `view`,
    /// `link` and `bdp`, and refuses what it does not hold.
    pub fn ask(&mut self, question: &str) -> String {
        crate::answer::answer_link(&mut self.inner, question)
    }

    /// `ask` for a `view` question, packed like `WasmSession.askPacked`.
    #[wasm_bindgen(js_name = askPacked)]
    pub fn ask_packed(&mut self, question: &str) -> ViewPacked {
        packed_view(question, |request| self.inner.query(&request))
    }
}

// ---------------------------------------------------------------- two vantage points
// (wasm/src/twin, issue 44): two captures' chunks in, the merge's report out.

/// Two captures of the same connection(s), merged (twin/stream.rs `TwinStream`): each
/// capture's chunks pushed with its index, then `finish` answers the `TwinReport` as
/// JSON. Each capture's bytes are kept until the merge, at most
/// `twin::MAX_TWIN_CAPTURE_BYTES` (256 MiB) each; a larger one is refused in the report.
#[wasm_bindgen]
pub struct WasmTwin {
    inner: crate::twin::TwinStream,
}

#[wasm_bindgen]
impl WasmTwin {
    /// `stall_ms`: as `WasmSession::new`.
    #[wasm_bindgen(constructor)]
    pub fn new(stall_ms: f64) -> WasmTwin {
        let stall_threshold_ms = if stall_ms.is_finite() && stall_ms > 0.0 { Some(stall_ms) } else { None };
        WasmTwin { inner: crate::twin::TwinStream::new(AnalysisOptions { stall_threshold_ms, ..AnalysisOptions::default() }) }
    }

    /// The next chunk of capture `which` (0 or 1); false once that capture stopped.
    pub fn push(&mut self, which: u32, chunk: &[u8]) -> bool {
        self.inner.push(which as usize, chunk)
    }

    /// `push` for inflated gzip input; `compressed`: compressed bytes read so far.
    #[wasm_bindgen(js_name = pushInflated)]
    pub fn push_inflated(&mut self, which: u32, chunk: &[u8], compressed: f64) -> bool {
        self.inner.push_inflated(which as usize, chunk, compressed as u64)
    }

    /// End of both captures: the `TwinReport` as JSON (idempotent).
    pub fn finish(&mut self) -> String {
        serde_json::to_string(self.inner.finish()).unwrap_or_else(|e| crate::boundary::ask::Refused::json(&e.to_string()))
    }
}

// One pcapng whose interfaces are two vantage points (twin/interfaces.rs): is it one,
// and its two captures (merged by `WasmTwin`, or opened as files by the page).

/// Are two of the file's interfaces two vantage points? Chunks in until `push` answers
/// false (or the file ends), then `finish`: the `VantageInterfaces` as JSON.
#[wasm_bindgen]
pub struct WasmVantageProbe {
    inner: crate::twin::InterfaceProbe,
}

#[wasm_bindgen]
impl WasmVantageProbe {
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmVantageProbe {
        WasmVantageProbe { inner: crate::twin::InterfaceProbe::new() }
    }

    /// The next chunk (inflated, for gzip); false once the probe has its answer.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.inner.push(chunk)
    }

    pub fn finish(&self) -> String {
        serde_json::to_string(&self.inner.finish()).unwrap_or_else(|e| crate::boundary::ask::Refused::json(&e.to_string()))
    }
}

/// The file's packets of interface `first` and of `second` as two pcapng files
/// (twin/interfaces.rs `SplitFiles`): after each `push`, `take(0)` and `take(1)` hand
/// out what was routed to each; `finish` answers the notes as a JSON array of strings,
/// or throws why there are no two files (a side over 256 MiB).
#[wasm_bindgen]
pub struct WasmInterfaceSplit {
    inner: crate::twin::SplitFiles,
}

#[wasm_bindgen]
impl WasmInterfaceSplit {
    #[wasm_bindgen(constructor)]
    pub fn new(first: u32, second: u32) -> WasmInterfaceSplit {
        WasmInterfaceSplit { inner: crate::twin::SplitFiles::new([first, second]) }
    }

    pub fn push(&mut self, chunk: &[u8]) -> bool {
        self.inner.push(chunk)
    }

    pub fn take(&mut self, side: u32) -> Vec<u8> {
        self.inner.take(side as usize)
    }

    pub fn finish(&self) -> Result<String, JsError> {
        let notes = self.inner.finish().map_err(|m| JsError::new(&m))?;
        serde_json::to_string(&notes).map_err(|e| JsError::new(&e.to_string()))
    }
}

/// A compare link's merged view (`twin-snap=`, share/twin.rs `answer`): `{"share": …}` makes
/// one of a report, `{"open": link}` reads one back; JSON in, JSON out (`{error}` if not).
#[wasm_bindgen(js_name = twinLink)]
pub fn twin_link(question: &str) -> String {
    crate::share::twin::answer(question)
}
