// UI-side handle on the decoder worker. Each capture opened gets a new generation;
// opening another capture while one loads terminates the worker (the read loop stops
// at once and its memory is released; a fresh worker starts on demand), and answers
// of an older generation are dropped. The worker's versions are checked when it says
// hello: a worker from another build (a stale cache) is refused.
import type { ConnectionData, ConnectionSummary, Report } from '../model/types';
import { VIEW_SCHEMA_VERSION, type BdpAnswer, type BdpQuestion, type PartialTable, type TablePage, type TableQuery, type ViewAt } from './generated/view';
import { PROTOCOL_VERSION, STREAM_WINDOW_BYTES, type FromWorker, type LoadPhases, type Shared, type ShareSpec, type SnapshotInfo, type ToWorker } from './protocol';
import type { FromPage } from './reader.worker';
import type { ViewAnswer } from './viewAnswer';
import { sanitizeReport, sanitizeSnapshotInfo, sanitizeSummary, sanitizeTablePage } from '../security/sanitizeReport';
import { StaleAnswer, type ViewAtQuery, type ViewQuery, type ViewSource } from './viewSource';
import { clearMarks, mark } from './marks';

/** `partial`: the connection table so far (view/partial.rs), on some of the updates. */
export interface Progress { bytesRead: number; totalBytes: number; packets: number; elapsedMs: number; partial?: PartialTable; decodedShare?: number }
/** `report.connections` may hold only some of `connectionCount` (protocol.ts); `summary` fetches any. */
export interface Opened { report: Report; connectionCount: number; elapsedMs: number; generation: number; snapshot?: SnapshotInfo }
/** A streamed capture (openStream): `stopped` says why its download ended before its
 *  body did (a cap, a network failure; the chunks' error message), else null. */
export interface OpenedStream extends Opened { stopped: string | null }

/** The streamed capture being sent to the worker: bytes sent, bytes its decoder took. */
interface Flow { generation: number; sent: number; taken: number; wake: (() => void) | null }

export class CancelledError extends Error {
  constructor() { super('Cancelled'); }
}

type Pending = { generation: number; resolve: (value: never) => void; reject: (error: Error) => void };

/** Worker-side time of the last view answers (the benchmark reads them). */
export const viewTimings: number[] = [];
/** The phases of the last capture loaded (the benchmark reads them). */
export const loadPhases: { last: LoadPhases | null } = { last: null };

/**
 * The capture reader of `decoder` (reader.worker.ts: it reads the file's slices while
 * the decoder decodes), started here and connected to it by a MessageChannel. Not made
 * inside the decoder worker: Firefox ESR sometimes never returned from a nested
 * `new Worker()`, and the decoder worker hung with it (chunks.ts useReader). Where no
 * reader starts, the decoder reads the slices itself.
 */
function startReader(decoder: Worker): Worker | null {
  if (typeof MessageChannel !== 'function') return null;
  try {
    const reader = new Worker(new URL('./reader.worker.ts', import.meta.url), { type: 'module' });
    const { port1, port2 } = new MessageChannel();
    reader.onerror = (event) => {
      event.preventDefault();
      decoder.postMessage({ type: 'readerFailed', generation: null, message: event.message || 'the capture reader did not start' } satisfies ToWorker);
    };
    reader.postMessage({ type: 'port', port: port2 } satisfies FromPage, [port2]);
    decoder.postMessage({ type: 'reader', generation: null, port: port1 } satisfies ToWorker, [port1]);
    return reader;
  } catch {
    return null;
  }
}

/** Progressive display while loading (issue 41): on unless the page's address says
 *  `?progressive=off` (the benchmark measures the load with it off). */
export function progressiveDisplay(): boolean {
  return typeof location === 'undefined' || new URLSearchParams(location.search).get('progressive') !== 'off';
}

export class DecoderClient {
  private worker: Worker | null = null;
  /** The decoder worker's capture reader (startReader). */
  private reader: Worker | null = null;
  private generation = 0;
  private opening: (Pending & { onProgress: (p: Progress) => void }) | null = null;
  private requests = new Map<number, Pending>();
  private nextRequestId = 1;
  private flow: Flow | null = null;
  /** The load under way has had its first partial table / its first view answer with
   *  bars (the page's marks of the first chart's path, marks.ts, stop there). */
  private firstPartial = false;
  private firstBars = false;

  /** The pump of a streamed capture waits for the decoder (taken), or for its load to end. */
  private wakePump() {
    const wake = this.flow?.wake;
    if (this.flow) this.flow.wake = null;
    wake?.();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./decoder.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.receive(event.data);
    worker.onerror = (event) => this.failAll(new Error(event.message || 'The decoder worker failed to start'));
    this.worker = worker;
    this.reader = startReader(worker);
    if (this.warmEngine) worker.postMessage({ type: 'warmUp', generation: null } satisfies ToWorker);
    return worker;
  }

  /** Whether each worker this client starts runs the engine's warm-up first (`warm`). */
  private warmEngine = false;

  /** Start the worker (and so compile and instantiate the wasm module) before there is
   *  anything to decode: a page calls this once it is shown, so that a drop does not
   *  wait for the module (≈ 100 ms of a 2.5 M-packet load, bench/README.md). A worker
   *  is cheap when idle; one terminated by a cancel starts again on the next request.
   *  `engine`: the worker also runs the analysis once on a small synthetic capture
   *  (wasm/src/warm_up.rs), so that the first capture dropped runs V8's optimised code
   *  (its finish and prepare ~40 % faster); so does every worker started after it. Not
   *  for a page that opens a share link: its answers come from the link, and the
   *  warm-up (60–130 ms) would only hold them up. */
  warm({ engine }: { engine: boolean }) {
    this.warmEngine ||= engine;
    const started = this.worker !== null;
    this.ensureWorker();
    if (engine && started) this.send({ type: 'warmUp', generation: null });
  }

  private send(message: ToWorker, transfer: Transferable[] = []) {
    this.ensureWorker().postMessage(message, transfer);
  }

  private receive(message: FromWorker) {
    if (message.type === 'hello') {
      if (message.protocolVersion !== PROTOCOL_VERSION || message.viewSchemaVersion !== VIEW_SCHEMA_VERSION) {
        this.terminate();
        this.failAll(new Error(`The decoder worker speaks protocol ${message.protocolVersion} / view schema ${message.viewSchemaVersion}; ` +
          `this page expects ${PROTOCOL_VERSION} / ${VIEW_SCHEMA_VERSION}. Reload the page.`));
      }
      return;
    }
    // An answer about a capture that is no longer the current one: nobody wants it.
    if (message.generation !== null && message.generation !== this.generation) return;
    switch (message.type) {
      case 'progress':
        if (message.partial && !this.firstPartial) {
          this.firstPartial = true;
          mark('partial-received');
        }
        this.opening?.onProgress(message);
        break;
      case 'taken':
        if (this.flow?.generation === message.generation) {
          this.flow.taken += message.bytes;
          this.wakePump();
        }
        break;
      case 'report': {
        const opening = this.opening;
        this.opening = null;
        this.wakePump(); // a decoder that stopped early (a fatal error) wants no more bytes
        loadPhases.last = message.phases ?? null;
        (opening?.resolve as ((v: Opened) => void) | undefined)?.({
          // Outside text (process names, a link's fields) is sanitized here, where it enters the page.
          report: sanitizeReport(message.report), connectionCount: message.connectionCount, elapsedMs: message.elapsedMs,
          generation: message.generation, snapshot: sanitizeSnapshotInfo(message.snapshot),
        });
        break;
      }
      case 'prepared':
        mark('prepared');
        if (loadPhases.last) loadPhases.last.prepareMs = message.workerMs;
        break;
      case 'view':
        if (this.opening && !this.firstBars) {
          const a = message.answer;
          this.firstBars = a.kind === 'bins' && (a.loading != null || a.bps.some((v) => v > 0));
          mark(this.firstBars ? 'view-answered-with-bars' : 'view-answered');
        }
        if (viewTimings.push(message.workerMs) > 1000) viewTimings.splice(0, 500);
        this.settle(message.requestId, (p) => (p.resolve as (v: ViewAnswer) => void)(message.answer));
        break;
      case 'at':
        this.settle(message.requestId, (p) => (p.resolve as (v: ViewAt) => void)(message.answer));
        break;
      case 'connection':
        this.settle(message.requestId, (p) => (p.resolve as (v: ConnectionData | null) => void)(message.data));
        break;
      case 'summary':
        this.settle(message.requestId, (p) => (p.resolve as (v: ConnectionSummary | null) => void)(message.summary && sanitizeSummary(message.summary)));
        break;
      case 'table':
        this.settle(message.requestId, (p) => (p.resolve as (v: TablePage) => void)(sanitizeTablePage(message.page)));
        break;
      case 'bdp':
        this.settle(message.requestId, (p) => (p.resolve as (v: BdpAnswer) => void)(message.answer));
        break;
      case 'share':
        this.settle(message.requestId, (p) => (p.resolve as (v: Shared) => void)(message.answer));
        break;
      case 'failure':
        if (message.requestId != null) this.settle(message.requestId, (p) => p.reject(new Error(message.message)));
        else if (this.opening && message.generation === this.generation) {
          // The capture or link could not be opened (a damaged link says why).
          const opening = this.opening;
          this.opening = null;
          this.wakePump(); // a streamed capture's download ends with it
          opening.reject(new Error(message.message));
        } else this.failAll(new Error(message.message));
        break;
    }
  }

  private settle(requestId: number, fn: (p: Pending) => void) {
    const pending = this.requests.get(requestId);
    this.requests.delete(requestId);
    if (pending) fn(pending);
  }

  private failAll(error: Error) {
    this.opening?.reject(error);
    this.opening = null;
    this.wakePump();
    for (const pending of this.requests.values()) pending.reject(error);
    this.requests.clear();
  }

  private terminate() {
    this.wakePump();
    this.worker?.terminate();
    this.reader?.terminate();
    this.worker = null;
    this.reader = null;
  }

  /**
   * Decode a capture; resolves with the summary once the whole file is read. A load
   * still running is cancelled (its promise rejects with CancelledError) and every
   * answer of the previous capture is dropped.
   */
  open(source: Blob, _name: string, stallMs: number | null, onProgress: (p: Progress) => void, progressive = progressiveDisplay()): Promise<Opened> {
    if (this.opening) this.terminate();
    this.failAll(new CancelledError());
    const generation = ++this.generation;
    this.firstPartial = this.firstBars = false;
    clearMarks();
    mark('open-posted');
    return new Promise<Opened>((resolve, reject) => {
      this.opening = { generation, resolve: resolve as (v: never) => void, reject, onProgress };
      this.send({ type: 'open', generation, source, stallMs, progressive, postedAt: performance.timeOrigin + performance.now() });
    });
  }

  /**
   * Decode a capture as it arrives (#url=): `chunks` (fetchCapture.ts streamCapture) are
   * posted to the worker as they come, at most STREAM_WINDOW_BYTES ahead of its decoder,
   * so neither the page nor the worker ever holds the whole body. When `chunks` throws
   * (a cap, a network failure) what arrived is analysed and the message returned as
   * `stopped`. A cancel or another capture stops reading `chunks`, which ends the request.
   */
  openStream(chunks: AsyncGenerator<Uint8Array>, totalBytes: number, onProgress: (p: Progress) => void): Promise<OpenedStream> {
    if (this.opening) this.terminate();
    this.failAll(new CancelledError());
    const generation = ++this.generation;
    const opened = new Promise<Opened>((resolve, reject) => {
      this.opening = { generation, resolve: resolve as (v: never) => void, reject, onProgress };
      this.send({ type: 'openStream', generation, totalBytes, stallMs: null, progressive: progressiveDisplay() });
    });
    const flow: Flow = (this.flow = { generation, sent: 0, taken: 0, wake: null });
    const stopped = this.pump(chunks, flow);
    return Promise.all([opened, stopped]).then(([o, s]) => ({ ...o, stopped: s }));
  }

  private async pump(chunks: AsyncGenerator<Uint8Array>, flow: Flow): Promise<string | null> {
    // Still the load the worker decodes, and its decoder still wants bytes.
    const live = () => this.flow === flow && this.generation === flow.generation && this.opening?.generation === flow.generation;
    let stopped: string | null = null;
    try {
      for (;;) {
        while (live() && flow.sent - flow.taken >= STREAM_WINDOW_BYTES) await new Promise<void>((resolve) => (flow.wake = resolve));
        if (!live()) return null;
        const next = await chunks.next();
        if (next.done || !live()) break;
        // Transferred, not copied (a view into a larger buffer is copied first).
        const bytes = next.value.byteOffset === 0 && next.value.byteLength === next.value.buffer.byteLength ? next.value : next.value.slice();
        flow.sent += bytes.byteLength;
        this.send({ type: 'chunk', generation: flow.generation, bytes }, [bytes.buffer]);
      }
    } catch (error) {
      if (!live()) return null;
      stopped = error instanceof Error ? error.message : String(error);
    } finally {
      // Leaving early (the decoder stopped, a cancel, another capture) ends the request.
      void chunks.return(undefined);
    }
    if (live()) this.send({ type: 'streamEnd', generation: flow.generation });
    return stopped;
  }

  /**
   * Open a share link's snapshot: the page's view source then answers from what the
   * link holds. Rejects with the parser's sentence when the link cannot be shown.
   */
  openSnapshot(bytes: Uint8Array): Promise<Opened> {
    if (this.opening) this.terminate();
    this.failAll(new CancelledError());
    const generation = ++this.generation;
    return new Promise<Opened>((resolve, reject) => {
      this.opening = { generation, resolve: resolve as (v: never) => void, reject, onProgress: () => {} };
      this.send({ type: 'openSnapshot', generation, bytes });
    });
  }

  /** A share link of the current capture's view (wasm/src/share/build.rs). */
  share(spec: ShareSpec): Promise<Shared> {
    const generation = this.generation;
    return this.request((requestId) => ({ type: 'share', generation, requestId, spec: { ...spec, generation } }), generation);
  }

  private request<T>(build: (requestId: number) => ToWorker, generation: number): Promise<T> {
    if (generation !== this.generation) return Promise.reject(new StaleAnswer());
    const requestId = this.nextRequestId++;
    return new Promise<T>((resolve, reject) => {
      this.requests.set(requestId, { generation, resolve: resolve as (v: never) => void, reject });
      this.send(build(requestId));
    });
  }

  /** The current capture's view engine; its answers are refused once another capture is opened. */
  viewSource(): ViewSource {
    const generation = this.generation;
    return {
      query: (request: ViewQuery) => {
        if (this.opening && !this.firstBars) mark('view-asked');
        return this.request<ViewAnswer>((requestId) => ({ type: 'view', generation, requestId, request: { ...request, generation } }), generation);
      },
      at: (request: ViewAtQuery) =>
        this.request<ViewAt>((requestId) => ({ type: 'at', generation, requestId, request: { ...request, generation } }), generation)
          .then((a) => (a.found ? a : null)),
    };
  }

  /** Tell the worker which connection the page is about to chart, so that it builds
   *  what those charts ask first while the page renders (their queries then wait less).
   *  Only a hint: nothing waits for it, and a capture opened meanwhile ignores it. */
  prepare(connection: number) {
    this.send({ type: 'prepare', generation: this.generation, connection });
  }

  /** The current capture's connection table (wasm/src/table.rs): one page per query;
   *  the answer of a capture replaced meanwhile is refused (StaleAnswer). */
  tableSource(): (query: TableQuery) => Promise<TablePage> {
    const generation = this.generation;
    return (query) => this.request<TablePage>((requestId) => ({ type: 'table', generation, requestId, query }), generation);
  }

  /** One connection's summary of the current capture, by id (null when there is none). */
  summary(id: number): Promise<ConnectionSummary | null> {
    const generation = this.generation;
    return this.request((requestId) => ({ type: 'summary', generation, requestId, id }), generation);
  }

  /** Per-packet columns of a connection, for the packet CSV export only. */
  connection(id: number): Promise<ConnectionData | null> {
    const generation = this.generation;
    return this.request((requestId) => ({ type: 'connection', generation, requestId, id }), generation);
  }

  /** The bandwidth-delay calculator's numbers (analysis/rates/bdp.rs), for any capture or none. */
  bdp(question: BdpQuestion): Promise<BdpAnswer> {
    const requestId = this.nextRequestId++;
    return new Promise<BdpAnswer>((resolve, reject) => {
      this.requests.set(requestId, { generation: this.generation, resolve: resolve as (v: never) => void, reject });
      this.send({ type: 'bdp', generation: null, requestId, question });
    });
  }

  /** Stop decoding now: the worker is terminated and its memory released. */
  cancel() {
    this.terminate();
    this.generation++;
    this.failAll(new CancelledError());
  }
}
