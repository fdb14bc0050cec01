// UI-side handle on the decoder worker: promises for requests, a callback for
// progress, and Cancel (terminates the worker; a fresh one is started on demand).
import type { ConnectionData, Report, Stall } from '../model/types';
import type { FromWorker, ToWorker } from './protocol';

export interface Progress { bytesRead: number; totalBytes: number; packets: number; elapsedMs: number }
export interface Opened { report: Report; elapsedMs: number }

export class CancelledError extends Error {
  constructor() { super('Cancelled'); }
}

type Pending = { resolve: (value: never) => void; reject: (error: Error) => void };

export class DecoderClient {
  private worker: Worker | null = null;
  private opening: (Pending & { onProgress: (p: Progress) => void }) | null = null;
  private requests = new Map<number, Pending>();
  private nextRequestId = 1;

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./decoder.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.receive(event.data);
    worker.onerror = (event) => this.failAll(new Error(event.message || 'The decoder worker failed to start'));
    this.worker = worker;
    return worker;
  }

  private send(message: ToWorker) {
    this.ensureWorker().postMessage(message);
  }

  private receive(message: FromWorker) {
    switch (message.type) {
      case 'progress':
        this.opening?.onProgress(message);
        break;
      case 'report': {
        const opening = this.opening;
        this.opening = null;
        (opening?.resolve as ((v: Opened) => void) | undefined)?.({ report: message.report, elapsedMs: message.elapsedMs });
        break;
      }
      case 'connection':
      case 'stalls': {
        const pending = this.requests.get(message.requestId);
        this.requests.delete(message.requestId);
        (pending?.resolve as ((v: unknown) => void) | undefined)?.(message.type === 'connection' ? message.data : message.stalls);
        break;
      }
      case 'failure':
        this.failAll(new Error(message.message));
        break;
    }
  }

  private failAll(error: Error) {
    this.opening?.reject(error);
    this.opening = null;
    for (const pending of this.requests.values()) pending.reject(error);
    this.requests.clear();
  }

  /** Decode a capture; resolves with the summary once the whole file is read. */
  open(source: Blob, name: string, stallMs: number | null, onProgress: (p: Progress) => void): Promise<Opened> {
    this.opening?.reject(new CancelledError());
    return new Promise<Opened>((resolve, reject) => {
      this.opening = { resolve: resolve as (v: never) => void, reject, onProgress };
      this.send({ type: 'open', source, name, stallMs });
    });
  }

  private request<T>(build: (requestId: number) => ToWorker): Promise<T> {
    const requestId = this.nextRequestId++;
    return new Promise<T>((resolve, reject) => {
      this.requests.set(requestId, { resolve: resolve as (v: never) => void, reject });
      this.send(build(requestId));
    });
  }

  connection(id: number): Promise<ConnectionData | null> {
    return this.request((requestId) => ({ type: 'connection', id, requestId }));
  }

  stalls(id: number, dir: 0 | 1, thresholdMs: number): Promise<Stall[]> {
    return this.request((requestId) => ({ type: 'stalls', id, dir, thresholdMs, requestId }));
  }

  /** Stop decoding now: the worker is terminated and its memory released. */
  cancel() {
    this.worker?.terminate();
    this.worker = null;
    this.failAll(new CancelledError());
  }
}
