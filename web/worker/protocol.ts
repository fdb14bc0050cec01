// The one protocol between the page and the decoder worker (issue 14, item 3).
// Every message about a capture carries its generation: the page numbers each capture
// it opens, the worker stamps every answer with the generation it was computed for,
// and the page drops answers whose generation is not the current one. Large answers
// (view arrays, columns) travel as transferred ArrayBuffers; the rest are small objects.
// View types are generated from the Rust structs (./generated/view.ts).
import type { ConnectionData, ConnectionSummary, Report } from '../model/types';
import type { AtRequest, BdpAnswer, BdpQuestion, LinkInfo, PartialTable, ShareSpec as GeneratedShareSpec, SharedLink, TablePage, TableQuery, ViewAt, ViewRequest } from './generated/view';
import type { ViewAnswer } from './viewAnswer';

/** Bump with any change to the messages below (the view schema has its own version). */
export const PROTOCOL_VERSION = 10;

/** What a share link holds besides the report (wasm/src/boundary/ask.rs `LinkInfo`). */
export type SnapshotInfo = LinkInfo;

/** A made share link (the `share` question): the snapshot as base64url, or why not. */
export type Shared = SharedLink;

/** What to share (wasm/src/share/build.rs `ShareSpec`): the page's side; the client
 *  stamps the capture's generation (the view cache the link's answers come from). */
export type ShareSpec = Omit<GeneratedShareSpec, 'generation'>;

/** Captures with more connections than this send the page only the largest
 *  REPORT_TOP_CONNECTIONS (the throughput overlays' candidates) and the rest on demand:
 *  10^6 connection summaries would cost the page gigabytes (issue 16 item 2). */
/** Bytes of a streamed capture the page may have sent that the decoder has not taken
 *  yet: the download waits beyond it, so a fast server never fills the worker's memory
 *  faster than the decoder reads (at most this much is queued, plus one network chunk). */
export const STREAM_WINDOW_BYTES = 8 * 1024 * 1024;

export const REPORT_CONNECTIONS_CAP = 10_000;

/** The progressive view (issue 41): the partial table travels at most this often, so
 *  the page can redraw at least twice a second (its chart asks again when the table's
 *  settled time and length estimate move: 250 ms gave 1.4 redraws/s on 10^5 short
 *  connections at load 9, 150 ms 2.2 at load 12); rows it lists at most. */
export const PARTIAL_INTERVAL_MS = 150;
export const PARTIAL_ROWS = 20;
export const REPORT_TOP_CONNECTIONS = 64;

export type ToWorker =
  /** `progressive`: send the partial table while loading (default on; the benchmark
   *  turns it off to measure what it costs). */
  | { type: 'open'; generation: number; source: Blob; stallMs: number | null; progressive?: boolean; postedAt?: number }
  /** A capture the page receives as it arrives (#url=, fetchCapture.ts streamCapture):
   *  its bytes follow as `chunk`s, then `streamEnd`. `totalBytes`: the announced size, 0
   *  when unknown. The worker says `taken` for each chunk it has handed to the decoder;
   *  the page keeps at most STREAM_WINDOW_BYTES sent and not taken (memory bound). */
  | { type: 'openStream'; generation: number; totalBytes: number; stallMs: number | null; progressive?: boolean }
  // (`postedAt` of `open`: performance.timeOrigin + now() when the page sent it, for the
  // load's `openWaitMs`.)
  | { type: 'chunk'; generation: number; bytes: Uint8Array }
  /** No more bytes: the body ended, or the page stopped it (cap, network failure); the
   *  worker analyses what it has. */
  | { type: 'streamEnd'; generation: number }
  /** A share link's snapshot bytes: answered from what the link holds (wasm/src/share). */
  | { type: 'openSnapshot'; generation: number; bytes: Uint8Array }
  | { type: 'share'; generation: number; requestId: number; spec: GeneratedShareSpec }
  | { type: 'view'; generation: number; requestId: number; request: ViewRequest }
  /** The connection the page is about to chart: the worker builds what its charts ask
   *  first while the page renders the report (wasm `viewPrepare`). No answer. */
  | { type: 'prepare'; generation: number; connection: number }
  | { type: 'at'; generation: number; requestId: number; request: AtRequest }
  /** One page of the connection table (wasm/src/table.rs): sorted, filtered, paged. */
  | { type: 'table'; generation: number; requestId: number; query: TableQuery }
  /** One connection's summary, for a report that carries only some (`connectionCount`). */
  | { type: 'summary'; generation: number; requestId: number; id: number }
  /** Per-packet columns of one connection: only for the packet CSV export. */
  | { type: 'connection'; generation: number; requestId: number; id: number }
  /** The bandwidth-delay calculator (analysis/rates/bdp.rs): about no capture. */
  | { type: 'bdp'; generation: null; requestId: number; question: BdpQuestion }
  /** The capture reader (reader.worker.ts) the page started for this worker, reached
   *  through `port` (client.ts startReader); sent before anything else. */
  | { type: 'reader'; generation: null; port: MessagePort }
  /** That reader's script did not load: the worker reads the slices itself. */
  | { type: 'readerFailed'; generation: null; message: string }
  /** Run the engine once on a small synthetic capture before any real one (wasm
   *  `warmUp`, wasm/src/warm_up.rs: V8 then runs the first capture's long loops as
   *  optimised code). No answer. */
  | { type: 'warmUp'; generation: null };

/** Where an opened capture's load time went, in the worker (ms): waiting for the
 * reader's slices, decoding + per-packet analysis (`WasmSession.push`), the
 * end-of-capture analysis (`finish`) and assembling the report. */
export interface LoadPhases {
  readWaitMs: number; pushMs: number; finishMs: number; reportMs: number;
  /** Of readWaitMs: from the open to the first slice in hand (start-up latency). */
  firstSliceMs?: number;
  /** Of the load: building the partial tables sent with the progress (issue 41). */
  partialMs?: number;
  /** Of the load with progressive display: the worker's turns between pushed pieces
   *  (the page's partial queries answered meanwhile). */
  turnsMs?: number;
  /** Of the load with progressive display: the engine's warm-up stages left when the
   *  capture was dropped, run between pieces (decoder.worker.ts `warmWanted`). */
  warmMs?: number;
  /** After the report: building the shown connection's first chart answers (`prepare`). */
  prepareMs?: number;
  /** The first chart's path (issue 41), ms from the open: the first partial table that
   *  lists a connection posted, the first partial view answered, the first one with a
   *  bar (a settled bin or the bin in progress); `openWaitMs`: from the page's `open` message to the worker starting
   *  the load (a warm-up stage or wasm start-up in the way). */
  firstListedMs?: number;
  firstViewMs?: number;
  firstBarsMs?: number;
  openWaitMs?: number;
  /** performance.timeOrigin + now() when the load started (the times above count from it). */
  startedAt?: number;
  /** The worker's time split when the first table listing a connection went out. */
  atListed?: { readWaitMs: number; pushMs: number; turnsMs: number; bytes: number };
  /** Bytes decoded when the first answer with a bar (firstBarsMs) and the first with a
   *  settled bin went out (the bin in progress can come first: wasm view/partial.rs). */
  barsBytes?: number;
  settledBarsBytes?: number;
  /** The warm-up's stages run so far in this worker: [start (timeOrigin + now, ms), ms]. */
  warmSteps?: [number, number][];
}

export type FromWorker =
  /** First message of a worker: the versions it speaks, after checking the wasm module's. */
  | { type: 'hello'; protocolVersion: number; viewSchemaVersion: number }
  /** `partial`: the connection table so far (wasm view/partial.rs), at most every
   *  PARTIAL_INTERVAL_MS while the capture loads and only when progressive display is
   *  on; while it loads, `view` requests of the generation are answered from the same
   *  running state (throughput only; other series say they come after the load).
   *  `decodedShare` (with `partial`): the share of the capture decoded when the table was
   *  made (bytes decoded ÷ file size; for gzip input, compressed bytes read ÷ size). */
  | { type: 'progress'; generation: number; bytesRead: number; totalBytes: number; packets: number; elapsedMs: number; partial?: PartialTable; decodedShare?: number }
  /** The decoder took `bytes` more of a streamed capture (openStream): the page may send more. */
  | { type: 'taken'; generation: number; bytes: number }
  /** `report.connections` holds every connection up to REPORT_CONNECTIONS_CAP, else the
   *  largest ones by payload; `connectionCount` says how many there are. */
  | { type: 'report'; generation: number; report: Report; connectionCount: number; elapsedMs: number; snapshot?: SnapshotInfo; phases?: LoadPhases }
  | { type: 'share'; generation: number; requestId: number; answer: Shared }
  | { type: 'summary'; generation: number; requestId: number; summary: ConnectionSummary | null }
  | { type: 'view'; generation: number; requestId: number; answer: ViewAnswer; workerMs: number }
  /** `prepare` is done (its time joins the load's phases). */
  | { type: 'prepared'; generation: number; workerMs: number }
  | { type: 'at'; generation: number; requestId: number; answer: ViewAt }
  | { type: 'connection'; generation: number; requestId: number; data: ConnectionData | null }
  | { type: 'table'; generation: number; requestId: number; page: TablePage }
  | { type: 'bdp'; generation: null; requestId: number; answer: BdpAnswer }
  /** A failure of the worker itself (wasm failed to load, schema mismatch, a bug);
   *  damaged captures come back as a `report` whose `error` is set. */
  | { type: 'failure'; generation: number | null; requestId?: number; message: string };
