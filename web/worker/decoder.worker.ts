// The decoder worker: streams the capture into the wasm session slice by slice (the
// UI thread never blocks, the file is never held whole), then answers view queries
// from the Rust view engine — or, for a share link, from the answers the link holds
// (wasm/src/share, the same query code). It refuses to run with a wasm module whose view schema is
// not the one its TypeScript types were generated for.
import init, { WasmSession, WasmSnapshot, viewPrepare, viewSchemaVersion, warmUpStep } from 'tcpscope-wasm';
import { ask } from './ask.mjs';
import type { ConnectionSummary, Report } from '../model/types';
import { captureChunks, readerFailed, useReader, type CaptureChunk } from './chunks';
import { StreamInbox, streamedChunks } from './streamed';
import { connectionData, transferables } from './columns';
import { VIEW_SCHEMA_VERSION, type TablePage, type TableQuery } from './generated/view';
import { PARTIAL_INTERVAL_MS, PARTIAL_ROWS, PROTOCOL_VERSION, REPORT_CONNECTIONS_CAP, REPORT_TOP_CONNECTIONS, type FromWorker, type LoadPhases, type ToWorker } from './protocol';
import { unpackAnswer } from './viewAnswer';
import { clearMarks, mark as markStep, measure } from './marks';

const post = (message: FromWorker, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(message, transfer);

// The first steps of the worker's life and of each load are marked (marks.ts): a trace
// of the first chart's path shows them beside V8's compiles (bench/progressive.mjs --trace).
markStep('worker-start');
const initStarted = performance.now();
const ready = init().then(() => {
  measure('wasm-init', initStarted);
  const wasmVersion = viewSchemaVersion();
  if (wasmVersion !== VIEW_SCHEMA_VERSION) {
    throw new Error(`the wasm module speaks view schema ${wasmVersion}, this page expects ${VIEW_SCHEMA_VERSION}: reload the page`);
  }
  post({ type: 'hello', protocolVersion: PROTOCOL_VERSION, viewSchemaVersion: wasmVersion });
});

/** The capture being read or last read (or the share link opened); a newer `open` replaces it. */
let current: { generation: number; session: WasmSession | WasmSnapshot; report: Report | null } | null = null;

/** The load under way: its phases (the first chart's path is marked by the view answers). */
let loading: { phases: LoadPhases; started: number } | null = null;

/** The streamed capture being received (openStream): its chunks go to its inbox. */
let streaming: { generation: number; inbox: StreamInbox } | null = null;

/** Bytes pushed at a time while loading with progressive display (see `open`): ≈ 15 ms
 *  of decoding on an idle core (bench/README.md: ≈ 3.5 ns/byte). */
const PUSH_PIECE_BYTES = 4 << 20;
/** The page's partial queries wait at most about this long for a turn of the worker. */
const YIELD_EVERY_MS = 50;
/** Until the page has its first partial answer with bars (at most EAGER_MS after the first
 *  table that lists a connection), the worker pushes smaller pieces and takes a turn after
 *  each: the first table goes out as soon as the analysis lists a connection, and the
 *  first chart's question is answered one small piece later instead of up to 50 ms +
 *  4 MiB later. (Counted from the listing, not from the start of the load: a load whose
 *  first table came 1 s in — 10^5 short connections on a busy machine — pushed a 4 MiB
 *  piece, ≈ 230 ms there, before answering the page's first question; bench/README.md.) */
const EAGER_PIECE_BYTES = 1 << 20;
const EAGER_MS = 1000;
/** Eager pieces while nothing is listed yet, at most this long into the load. */
const EAGER_IDLE_MS = 3000;

/** The engine's warm-up (wasm/src/warm_up.rs), asked for when the page starts and run one
 *  stage per turn of the event loop, only while no capture is being read: a capture dropped
 *  meanwhile waits for one stage (tens of ms), not the whole warm-up (≈ 0.1–0.4 s on a busy
 *  2-core machine, which the first partial chart used to wait for). The stages left run
 *  between the pieces of the load once the page has its first partial answer (or
 *  WARM_FALLBACK_MS after the first table that lists a connection, or into a load that
 *  lists none), so the load's `finish` still runs optimised code. Not counted from the
 *  start of the load: a stage (≈ 0.3 s on a busy 2-core machine) then ran between the
 *  first table and the answer to the page's first question about it. */
let warmWanted = false;
/** Loads under way (an `open` counts from its message, before anything awaits). */
let reading = 0;
let warmLoop = false;
/** A partial view answer with bars was posted for the load under way (the first chart
 *  can be drawn): until then the worker stays eager, and sends the table with every
 *  piece (an answer without bars is asked again when the table moves). */
let partialAnswered = false;
/** After the first listing (or into a load with none), the warm-up's stages left run even
 *  if the page has no answer with bars yet. */
const WARM_FALLBACK_MS = 1000;

/** When each warm-up stage ran (the load's phases carry it: bench/progressive.mjs). */
const warmSteps: [number, number][] = [];
function timedWarmStep(): boolean {
  const t = performance.now();
  const more = warmUpStep();
  measure('warm-step', t);
  warmSteps.push([performance.timeOrigin + t, performance.now() - t]);
  return more;
}

async function warmWhileIdle() {
  if (warmLoop) return;
  warmLoop = true;
  try {
    await ready;
    while (warmWanted && reading === 0) {
      warmWanted = timedWarmStep();
      if (warmWanted) await nextTurn();
    }
  } finally {
    warmLoop = false;
  }
}

/** One turn of the event loop (a macrotask: queued messages are handled first). */
const turn = new MessageChannel();
let turnWaiters: (() => void)[] = [];
turn.port1.onmessage = () => {
  const waiters = turnWaiters;
  turnWaiters = [];
  for (const w of waiters) w();
};
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    turnWaiters.push(resolve);
    turn.port2.postMessage(null);
  });
}

/** Reads `chunks` (a dropped file's slices, or a download's chunks as they arrive) into a
 * new session; `totalBytes`: the capture's size, 0 when unknown (a download that did not
 * say). */
async function open(generation: number, chunks: (onRead: (bytesRead: number) => void) => AsyncIterable<CaptureChunk>, totalBytes: number, stallMs: number | null, progressive = true, postedAt?: number) {
  const arrivedNow = performance.now();
  const arrived = performance.timeOrigin + arrivedNow;
  clearMarks();
  markStep('open-received');
  // The read starts before the engine is ready: a capture dropped as the page starts
  // then has its first slice at hand when the wasm module is (the module's download
  // and compile took 0.15–0.35 s after the page's idle on a busy 2-core machine,
  // bench/README.md), not one read after it. `mine` and `session` exist from then on.
  let mine: { generation: number; session: WasmSession | WasmSnapshot; report: Report | null } | null = null;
  let session: WasmSession | null = null;
  let started = performance.now();
  let lastProgress = 0;
  let read = 0;
  const source = chunks((bytesRead) => {
    const now = performance.now();
    read = bytesRead;
    if (mine && current === mine && session && (now - lastProgress > 50 || bytesRead === totalBytes)) {
      lastProgress = now;
      post({ type: 'progress', generation, bytesRead, totalBytes, packets: session.packets(), elapsedMs: now - started });
    }
  })[Symbol.asyncIterator]();
  const first = source.next();
  first.catch(() => {}); // (its failure is met where it is awaited, below)
  /** The chunks, the first of them the one asked for above; the reader is let go when
   *  the loop below ends or leaves early. */
  const pieces = async function* () {
    try {
      for (let next = await first; !next.done; next = await source.next()) yield next.value;
    } finally {
      await source.return?.(undefined);
    }
  };
  try {
    await ready;
  } catch (error) {
    await source.return?.(undefined);
    throw error;
  }
  // Without the progressive display nothing is drawn before the end: the warm-up left
  // runs first, whole, as it did before the stages.
  if (!progressive) while (warmWanted) warmWanted = timedWarmStep();
  partialAnswered = false;
  current?.session.free();
  session = new WasmSession(stallMs ?? Number.NaN);
  mine = { generation, session, report: null };
  current = mine;
  started = performance.now();
  measure('open-waited', arrivedNow);
  // Where the load's time goes (bench/browser.mjs prints it): waiting for the reader,
  // decoding + per-packet analysis, the end-of-capture analysis, the report.
  const phases: LoadPhases = { readWaitMs: 0, pushMs: 0, finishMs: 0, reportMs: 0 };
  if (postedAt != null) phases.openWaitMs = arrived - postedAt;
  phases.startedAt = performance.timeOrigin + started;
  loading = { phases, started };
  let mark = performance.now();
  const lap = (phase: 'readWaitMs' | 'pushMs' | 'finishMs' | 'reportMs' | 'warmMs') => {
    const now = performance.now();
    phases[phase] = (phases[phase] ?? 0) + now - mark;
    mark = now;
  };
  /** Compressed bytes read when the piece last pushed was inflated; null for plain input. */
  let compressedAt: number | null = null;
  let lastPartial = -Infinity;
  let listed = false;
  /** When the first table listing a connection was posted (performance.now()). */
  let listedAt: number | null = null;
  /** Ms since the first listing, or since the start of the load while nothing is listed. */
  const sinceListed = () => performance.now() - (listedAt ?? started);
  let lastTurn = performance.now();
  /** The table so far (view/partial.rs) with a progress message, at most every
   *  PARTIAL_INTERVAL_MS (one pass over the connections: ≈ 1 ms at 10^5 of them), and
   *  with every piece until the page has a partial answer with bars (at most EAGER_MS):
   *  the first chart waits for nothing else. Nothing before it lists a connection. */
  const postPartial = () => {
    const now = performance.now();
    if (listed && (partialAnswered || sinceListed() >= EAGER_MS) && now - lastPartial < PARTIAL_INTERVAL_MS) return;
    lastPartial = now;
    const partial = ask(session, { ask: 'partialTable', count: PARTIAL_ROWS }) ?? undefined;
    listed ||= (partial?.rows.length ?? 0) > 0;
    if (listed && phases.firstListedMs == null) {
      markStep('first-listed');
      listedAt = performance.now();
      phases.firstListedMs = performance.now() - started;
      phases.atListed = { readWaitMs: phases.readWaitMs, pushMs: phases.pushMs + performance.now() - mark, turnsMs: phases.turnsMs ?? 0, bytes: session.bytesConsumed() };
    }
    phases.partialMs = (phases.partialMs ?? 0) + performance.now() - now;
    // The share of the file decoded, for the page's estimate of the capture's length
    // (PartialThroughputChart loadingRange): bytes read run up to a slice ahead of it.
    const decoded = compressedAt ?? session.bytesConsumed();
    const decodedShare = totalBytes > 0 ? Math.min(1, decoded / totalBytes) : undefined;
    // A table that lists nothing yet is not sent: the page would render the same empty
    // state again (before the timeline releases its first packet: ≈ 25 MB of 10^5 short
    // connections, one 1 MiB piece at a time), on the cores the first chart needs.
    if (partial && listed) post({ type: 'progress', generation, bytesRead: read, totalBytes, packets: session.packets(), elapsedMs: now - started, partial, decodedShare });
  };
  for await (const chunk of pieces()) {
    // Another capture was opened while this one was read: stop reading (its session is freed).
    if (current !== mine) return;
    if (phases.firstSliceMs == null) markStep('first-slice');
    phases.firstSliceMs ??= performance.now() - started;
    lap('readWaitMs');
    // A fatal decode error, or gzip input past a cap (inflate.rs): keep what was decoded.
    // With progressive display a slice goes in PUSH_PIECE_BYTES at a time (EAGER_PIECE_BYTES
    // until the first partial answer), and between
    // two pieces the worker answers the page's partial view queries (a macrotask turn),
    // so a redraw waits for at most one piece, not a whole 16 MiB slice.
    let more = true;
    for (let at = 0, step = 0; more && at < chunk.bytes.length; at += step) {
      // (A load that lists nothing for long — no TCP in it — stops being eager after EAGER_IDLE_MS.)
      const eager = progressive && !partialAnswered && (listedAt == null ? performance.now() - started < EAGER_IDLE_MS : sinceListed() < EAGER_MS);
      step = !progressive ? chunk.bytes.length : eager ? EAGER_PIECE_BYTES : PUSH_PIECE_BYTES;
      const piece = at === 0 && step >= chunk.bytes.length ? chunk.bytes : chunk.bytes.subarray(at, Math.min(chunk.bytes.length, at + step));
      compressedAt = chunk.compressedBytes;
      const pushed = performance.now();
      more = chunk.compressedBytes === null ? session.push(piece) : session.pushInflated(piece, chunk.compressedBytes);
      // (The pushes of the eager start: the first chart waits for them.)
      if (eager) measure('push', pushed);
      // (A turn at most every YIELD_EVERY_MS, but eagerly: gzip input comes in many small pieces.)
      if (!progressive || (!eager && performance.now() - lastTurn < YIELD_EVERY_MS)) continue;
      postPartial();
      lap('pushMs');
      // A stage of the warm-up left, once the first partial chart has its answer.
      if (warmWanted && (partialAnswered || sinceListed() > WARM_FALLBACK_MS)) {
        warmWanted = timedWarmStep();
        lap('warmMs');
      }
      await nextTurn();
      lastTurn = performance.now();
      if (current !== mine) return;
      // The turn: the page's partial queries answered, other messages handled.
      phases.turnsMs = (phases.turnsMs ?? 0) + lastTurn - mark;
      mark = lastTurn;
    }
    lap('pushMs');
    if (!more) break;
  }
  if (current !== mine) return;
  lap('readWaitMs');
  // (The last byte pushed; then the end-of-capture steps: a trace of the whole load,
  // bench/progressive.mjs --trace-ready, splits the time after the read with them.)
  markStep('pushed-all');
  // A download of unannounced size (or one that ended early): everything there is was read.
  if (read !== totalBytes) post({ type: 'progress', generation, bytesRead: read, totalBytes: read, packets: session.packets(), elapsedMs: performance.now() - started });
  // The reader of this load stays for the next one (chunks.ts).
  const finishing = performance.now();
  session.finish();
  measure('finish', finishing);
  lap('finishMs');
  const reporting = performance.now();
  const { report, connectionCount } = reportOf(session);
  mine.report = report;
  measure('report', reporting);
  lap('reportMs');
  phases.warmSteps = warmSteps.slice();
  post({ type: 'report', generation, report, connectionCount, elapsedMs: performance.now() - started, phases });
}

/** The report, assembled from the header and one connection at a time: never one JSON
 * string of the whole report (10^6 connections would make it ~500 MB). Past
 * REPORT_CONNECTIONS_CAP connections only the largest are included (protocol.ts). */
function reportOf(session: WasmSession): { report: Report; connectionCount: number } {
  const { connectionCount, ...header } = ask(session, { ask: 'header' });
  const ids = connectionCount <= REPORT_CONNECTIONS_CAP
    ? Array.from({ length: connectionCount }, (_, i) => i)
    : tablePage(session, { sort: 'bytes', descending: true, text: '', limit: '', offset: 0, count: REPORT_TOP_CONNECTIONS }).rows.map((r) => r.id);
  return { report: { ...header, connections: ids.map((id) => summaryOf(session, id)!) }, connectionCount };
}

/** Connection `id` (its position in the analysis) as a summary; null past the end. */
function summaryOf(session: WasmSession, id: number): ConnectionSummary | null {
  return ask(session, { ask: 'connection', index: id });
}

function tablePage(session: WasmSession, query: TableQuery): TablePage {
  return ask(session, { ask: 'table', query });
}

/** A share link's snapshot; its parser's sentence (a damaged or hostile link) becomes a failure. */
async function openSnapshot(generation: number, bytes: Uint8Array) {
  await ready;
  current?.session.free();
  current = null;
  const started = performance.now();
  const snapshot = new WasmSnapshot(bytes);
  const report: Report = ask(snapshot, { ask: 'report' });
  current = { generation, session: snapshot, report };
  const info = ask(snapshot, { ask: 'link' });
  post({ type: 'report', generation, report, connectionCount: report.connections.length, elapsedMs: performance.now() - started, snapshot: info });
}

/** The session of `generation` while it is still being read (its view answers are
 *  partial: wasm view/partial.rs), or once read; null when it is not the current capture. */
function loadingOrLoaded(generation: number): WasmSession | WasmSnapshot | null {
  return current && current.generation === generation ? current.session : null;
}

/** The session of `generation`, or null when it is not the current capture (stale request). */
function sessionFor(generation: number): WasmSession | WasmSnapshot | null {
  return current && current.generation === generation && current.report ? current.session : null;
}

/** The calculator is about no capture: a session of its own answers it, made at its
 *  first question (the capture's session may be freed or not opened yet). */
let spare: WasmSession | null = null;
const calculator = () => (spare ??= new WasmSession(Number.NaN));

/** A link answers the view; it has no per-point lookup: tooltips show nothing there. */
const NOT_FOUND = { found: false, t: 0, tEnd: null, value: null, bytes: null, cause: null, frameBefore: null, frameAfter: null, error: 'not in a share link' };

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  try {
    switch (message.type) {
      case 'reader':
        useReader(message.port);
        break;
      case 'readerFailed':
        readerFailed(message.message);
        break;
      case 'warmUp':
        // A small synthetic capture through the whole pipeline before any real one:
        // V8 then runs the first capture's long loops (finish, prepare) as optimised
        // code, not its baseline compiler's (wasm/src/warm_up.rs), a stage at a time.
        warmWanted = true;
        await warmWhileIdle();
        break;
      case 'open':
        reading++;
        try {
          await open(message.generation, (onRead) => captureChunks(message.source, onRead), message.source.size, message.stallMs, message.progressive ?? true, message.postedAt);
        } finally {
          reading--;
        }
        void warmWhileIdle();
        break;
      case 'openStream': {
        const { generation } = message;
        const inbox = new StreamInbox((bytes) => post({ type: 'taken', generation, bytes }));
        streaming = { generation, inbox };
        reading++;
        try {
          await open(generation, (onRead) => streamedChunks(inbox.pieces(), onRead), message.totalBytes, message.stallMs, message.progressive ?? true);
        } finally {
          reading--;
        }
        void warmWhileIdle();
        break;
      }
      case 'chunk':
        if (streaming?.generation === message.generation) streaming.inbox.push(message.bytes);
        break;
      case 'streamEnd':
        if (streaming?.generation !== message.generation) break;
        streaming.inbox.end();
        streaming = null;
        break;
      case 'openSnapshot':
        await openSnapshot(message.generation, message.bytes);
        break;
      case 'share': {
        const session = sessionFor(message.generation);
        if (!(session instanceof WasmSession)) {
          post({ type: 'share', generation: message.generation, requestId: message.requestId, answer: { error: 'only an opened capture makes new links' } });
          return;
        }
        const answer = ask(session, { ask: 'share', spec: message.spec });
        post({ type: 'share', generation: message.generation, requestId: message.requestId, answer });
        break;
      }
      case 'view': {
        // While the capture loads its own generation is answered from the running
        // state (the progressive view, issue 41); another generation's never.
        const session = loadingOrLoaded(message.generation);
        if (!session) return; // the page has moved on: nobody waits for this answer
        const started = performance.now();
        // A capture's session and a share link's answer alike (wasm askPacked).
        const packed = session.askPacked(JSON.stringify({ ask: 'view', request: message.request }));
        const { answer, transfer } = unpackAnswer(packed.header(), packed.takeF64s(), packed.takeU32s());
        packed.free();
        // A bar to draw: a settled bin, or the bin in progress with bytes so far (wasm
        // view/partial.rs LoadingBin): either ends the eager start.
        // (Empty bins are no bar: the bin before a connection that starts at the file's
        // first packet is settled at once, and used to end the eager start.)
        const settledBar = answer.kind === 'bins' && answer.bps.some((v) => v > 0);
        const bars = settledBar || (answer.kind === 'bins' && answer.loading != null);
        post({ type: 'view', generation: message.generation, requestId: message.requestId, answer, workerMs: performance.now() - started }, transfer);
        if (!current?.report) {
          if (!partialAnswered) measure(bars ? 'view-with-bars' : 'view', started);
          partialAnswered ||= bars;
          if (loading) {
            const since = performance.now() - loading.started;
            loading.phases.firstViewMs ??= since;
            if (bars) loading.phases.firstBarsMs ??= since;
            if (bars && session instanceof WasmSession) loading.phases.barsBytes ??= session.bytesConsumed();
            if (settledBar && session instanceof WasmSession) loading.phases.settledBarsBytes ??= session.bytesConsumed();
          }
        }
        break;
      }
      case 'prepare': {
        // A share link's answers are all at hand already.
        const session = sessionFor(message.generation);
        if (!(session instanceof WasmSession)) return;
        const started = performance.now();
        viewPrepare(session, message.generation, message.connection);
        measure('prepare', started);
        post({ type: 'prepared', generation: message.generation, workerMs: performance.now() - started });
        break;
      }
      case 'at': {
        const session = sessionFor(message.generation);
        if (!session) return;
        const answer = session instanceof WasmSnapshot ? { ...NOT_FOUND, generation: message.generation } : ask(session, { ask: 'at', request: message.request });
        post({ type: 'at', generation: message.generation, requestId: message.requestId, answer });
        break;
      }
      case 'bdp':
        await ready;
        post({ type: 'bdp', generation: null, requestId: message.requestId, answer: ask(calculator(), { ask: 'bdp', question: message.question }) });
        break;
      case 'table': {
        const session = sessionFor(message.generation);
        if (!session) return;
        // A share link's one connection is listed by the page itself (summaryTable).
        if (!(session instanceof WasmSession)) throw new Error('a share link has no connection table');
        post({ type: 'table', generation: message.generation, requestId: message.requestId, page: tablePage(session, message.query) });
        break;
      }
      case 'summary': {
        const session = sessionFor(message.generation);
        if (!session) return;
        const summary = session instanceof WasmSession
          ? summaryOf(session, message.id)
          : current?.report?.connections.find((c) => c.id === message.id) ?? null;
        post({ type: 'summary', generation: message.generation, requestId: message.requestId, summary });
        break;
      }
      case 'connection': {
        const session = sessionFor(message.generation);
        const summary = session instanceof WasmSession ? summaryOf(session, message.id) : null;
        if (!(session instanceof WasmSession) || !summary) {
          post({ type: 'connection', generation: message.generation, requestId: message.requestId, data: null });
          return;
        }
        const data = connectionData(session, summary);
        post({ type: 'connection', generation: message.generation, requestId: message.requestId, data }, transferables(data));
        break;
      }
    }
  } catch (error) {
    const requestId = 'requestId' in message ? message.requestId : undefined;
    post({ type: 'failure', generation: message.generation, requestId, message: error instanceof Error ? error.message : String(error) });
  }
};
