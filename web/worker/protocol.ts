// Messages between the UI thread and the decoder worker. Large data (columns)
// travels as transferred ArrayBuffers; everything else is small plain objects.
import type { ConnectionData, Report } from '../model/types';

export type ToWorker =
  | { type: 'open'; source: Blob; name: string; stallMs: number | null }
  | { type: 'connection'; id: number; requestId: number }
  | { type: 'stalls'; id: number; dir: 0 | 1; thresholdMs: number; requestId: number };

export type FromWorker =
  | { type: 'progress'; bytesRead: number; totalBytes: number; packets: number; elapsedMs: number }
  | { type: 'report'; report: Report; elapsedMs: number }
  | { type: 'connection'; requestId: number; data: ConnectionData | null }
  | { type: 'stalls'; requestId: number; stalls: ConnectionData['summary']['directions'][0]['stalls'] }
  /** A failure of the worker itself (wasm failed to load, a bug); damaged captures
   *  come back as a `report` whose `error` is set. */
  | { type: 'failure'; message: string };
