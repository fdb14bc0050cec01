// The page side of the worker protocol: capture generations and version checks, with a
// stand-in Worker that records what is posted and lets the test answer.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError, DecoderClient, loadPhases } from './client';
import { PROTOCOL_VERSION, STREAM_WINDOW_BYTES, type FromWorker, type ToWorker } from './protocol';
import { VIEW_SCHEMA_VERSION } from './generated/view';
import { StaleAnswer } from './viewSource';
import type { Report } from '../model/types';

class FakeWorker {
  /** The decoder workers started; each one's capture reader is in `readers`. */
  static all: FakeWorker[] = [];
  static readers: FakeWorker[] = [];
  posted: ToWorker[] = [];
  /** The port of its reader (client.ts startReader), the first message. */
  readerPort: MessagePort | null = null;
  terminated = false;
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: unknown = null;
  constructor(url: URL) { (/reader\.worker/.test(String(url)) ? FakeWorker.readers : FakeWorker.all).push(this); }
  postMessage(m: ToWorker | { type: 'port' }) {
    if (m.type === 'reader') this.readerPort = m.port;
    else if (m.type !== 'port') this.posted.push(m);
  }
  terminate() { this.terminated = true; }
  answer(m: FromWorker) { this.onmessage?.({ data: m }); }
}

const report = (packets: number) => ({ schemaVersion: 1, capture: { packets }, connections: [] } as unknown as Report);
const hello = { type: 'hello', protocolVersion: PROTOCOL_VERSION, viewSchemaVersion: VIEW_SCHEMA_VERSION } as const;

/** A client whose first capture (generation 1) is open, and its worker. */
async function openedClient() {
  const client = new DecoderClient();
  const opened = client.open(new Blob([]), 'a', null, () => {});
  const w = FakeWorker.all[0];
  w.answer(hello);
  w.answer({ type: 'report', generation: 1, report: report(1), connectionCount: 0, elapsedMs: 1 });
  await opened;
  return { client, w };
}

describe('DecoderClient', () => {
  const saved = globalThis.Worker;
  beforeEach(() => { FakeWorker.all = []; FakeWorker.readers = []; (globalThis as { Worker: unknown }).Worker = FakeWorker; });
  afterEach(() => { (globalThis as { Worker: unknown }).Worker = saved; });

  it('opening a capture while one loads cancels it: the old worker is terminated, its answers never arrive', async () => {
    const client = new DecoderClient();
    const first = client.open(new Blob([]), 'large', null, () => {});
    const w1 = FakeWorker.all[0];
    w1.answer(hello);
    const second = client.open(new Blob([]), 'small', null, () => {});
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    expect(w1.terminated).toBe(true);
    expect(FakeWorker.readers[0].terminated, 'its reader too').toBe(true);
    const w2 = FakeWorker.all[1];
    // Each decoder worker has a reader of its own, started by the page (not nested in the worker).
    expect([FakeWorker.readers.length, w1.readerPort !== null, w2.readerPort !== null]).toEqual([2, true, true]);
    const open = w2.posted[0] as Extract<ToWorker, { type: 'open' }>;
    expect(open.generation).toBe(2);
    w2.answer(hello);
    w2.answer({ type: 'report', generation: 1, report: report(999), connectionCount: 0, elapsedMs: 1 }); // stale: dropped
    w2.answer({ type: 'report', generation: 2, report: report(7), connectionCount: 0, elapsedMs: 1 });
    expect((await second).report.capture.packets).toBe(7);
  });

  it('partial answers while loading (issue 41): asked of the loading generation, never shown for another', async () => {
    const client = new DecoderClient();
    const seen: unknown[] = [];
    client.open(new Blob([]), 'large', null, (p) => seen.push(p.partial)).catch(() => undefined);
    const w1 = FakeWorker.all[0];
    w1.answer(hello);
    expect((w1.posted[0] as Extract<ToWorker, { type: 'open' }>).progressive).toBe(true);
    const partial = { connections: 1, settledT: 1, decodedT: 1, rows: [] };
    w1.answer({ type: 'progress', generation: 1, bytesRead: 1, totalBytes: 10, packets: 1, elapsedMs: 1, partial });
    expect(seen).toEqual([partial]);
    // The loading capture's view source asks its generation before the report.
    const loading = client.viewSource();
    const asked = loading.query({ connection: 0, series: 'throughput', t0: 0, t1: 1, columns: 10 });
    expect((w1.posted[1] as Extract<ToWorker, { type: 'view' }>).generation).toBe(1);
    // Another capture opened meanwhile: the old worker goes, its pending partial answer is
    // cancelled, its source refused, and a late progress of generation 1 is dropped.
    const second = client.open(new Blob([]), 'small', null, (p) => seen.push(p.partial));
    await expect(asked).rejects.toBeInstanceOf(CancelledError);
    await expect(loading.query({ connection: 0, series: 'throughput', t0: 0, t1: 1, columns: 10 })).rejects.toBeInstanceOf(StaleAnswer);
    const w2 = FakeWorker.all[1];
    w2.answer(hello);
    w2.answer({ type: 'progress', generation: 1, bytesRead: 5, totalBytes: 10, packets: 1, elapsedMs: 1, partial: { ...partial, connections: 99 } });
    expect(seen).toEqual([partial]);
    w2.answer({ type: 'report', generation: 2, report: report(7), connectionCount: 0, elapsedMs: 1 });
    await second;
  });

  it('every view request carries the generation; a source of a replaced capture is refused', async () => {
    const { client, w } = await openedClient();
    const source = client.viewSource();
    const asked = source.query({ connection: 0, series: 'rtt', t0: 0, t1: 1, columns: 10 });
    const view = w.posted[1] as Extract<ToWorker, { type: 'view' }>;
    expect([view.generation, view.request.generation]).toEqual([1, 1]);
    client.open(new Blob([]), 'b', null, () => {}).catch(() => undefined);
    await expect(asked).rejects.toBeInstanceOf(CancelledError);
    await expect(source.query({ connection: 0, series: 'rtt', t0: 0, t1: 1, columns: 10 })).rejects.toBeInstanceOf(StaleAnswer);
  });

  it('table pages carry the generation; a stale page is dropped, a table of a replaced capture refused', async () => {
    const { client, w } = await openedClient();
    const table = client.tableSource();
    const query = { sort: 'bytes', descending: true, text: ':443', limit: '', offset: 0, count: 50 } as const;
    const asked = table(query);
    const sent = w.posted[1] as Extract<ToWorker, { type: 'table' }>;
    expect([sent.type, sent.generation, sent.query]).toEqual(['table', 1, query]);
    const page = { total: 3, matched: 1, offset: 0, rows: [] };
    w.answer({ type: 'table', generation: 0, requestId: sent.requestId, page: { ...page, total: 99 } }); // stale: dropped
    w.answer({ type: 'table', generation: 1, requestId: sent.requestId, page });
    expect(await asked).toEqual(page);
    client.open(new Blob([]), 'b', null, () => {}).catch(() => undefined);
    await expect(table(query)).rejects.toBeInstanceOf(StaleAnswer);
  });

  it('prepare names the connection for the current capture; its time joins the load phases, a stale one is dropped', async () => {
    const client = new DecoderClient();
    const opened = client.open(new Blob([]), 'a', null, () => {});
    const w = FakeWorker.all[0];
    w.answer(hello);
    const phases = { readWaitMs: 1, pushMs: 2, finishMs: 3, reportMs: 4 };
    w.answer({ type: 'report', generation: 1, report: report(1), connectionCount: 0, elapsedMs: 1, phases });
    await opened;
    client.prepare(5);
    expect(w.posted[1]).toEqual({ type: 'prepare', generation: 1, connection: 5 });
    w.answer({ type: 'prepared', generation: 0, workerMs: 99 }); // another capture's: dropped
    expect(loadPhases.last?.prepareMs).toBeUndefined();
    w.answer({ type: 'prepared', generation: 1, workerMs: 12 });
    expect(loadPhases.last).toEqual({ ...phases, prepareMs: 12 });
  });

  it('refuses a worker that speaks another protocol or view schema', async () => {
    const client = new DecoderClient();
    const opened = client.open(new Blob([]), 'a', null, () => {});
    FakeWorker.all[0].answer({ type: 'hello', protocolVersion: PROTOCOL_VERSION, viewSchemaVersion: VIEW_SCHEMA_VERSION + 1 });
    await expect(opened).rejects.toThrow(/view schema .* this page expects .* Reload the page/);
    expect(FakeWorker.all[0].terminated).toBe(true);
  });

  it('warm-up: a page that will analyse captures warms every worker it starts (the replacement after a cancel too); a share-link page does not', async () => {
    const client = new DecoderClient();
    client.warm({ engine: true });
    const w1 = FakeWorker.all[0];
    expect(w1.posted.map((m) => m.type)).toEqual(['warmUp']);
    const first = client.open(new Blob([]), 'large', null, () => {});
    client.open(new Blob([]), 'small', null, () => {}).catch(() => {});
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    // The worker that replaces the cancelled one warms up before it opens the capture.
    expect(FakeWorker.all[1].posted.map((m) => m.type)).toEqual(['warmUp', 'open']);

    const linkPage = new DecoderClient();
    linkPage.warm({ engine: false });
    expect(FakeWorker.all[2].posted).toEqual([]);
  });
  describe('a capture streamed as it arrives (#url=, issue 45 item 6)', () => {
    const MiB = 1024 * 1024;
    /** An endless download of 1 MiB chunks; `state.closed` once the client let go of it. */
    function endless(failAfter = Infinity) {
      const state = { pulled: 0, closed: false };
      const chunks = (async function* () {
        try {
          for (;;) {
            if (state.pulled >= failAfter) throw new Error('Could not fetch x: the network failed after 3 MiB had arrived.');
            state.pulled++;
            yield new Uint8Array(MiB);
          }
        } finally {
          state.closed = true;
        }
      })();
      return { state, chunks };
    }
    const settle = () => new Promise((r) => setTimeout(r, 0));
    const sentBytes = (w: FakeWorker) => w.posted.flatMap((m) => (m.type === 'chunk' ? [m.bytes.byteLength] : [])).reduce((a, b) => a + b, 0);

    it('sends at most STREAM_WINDOW_BYTES ahead of the decoder, more as it takes them', async () => {
      const client = new DecoderClient();
      const { state, chunks } = endless();
      void client.openStream(chunks, 0, () => {}).catch(() => {});
      const w = FakeWorker.all[0];
      w.answer(hello);
      for (let i = 0; i < 20; i++) await settle();
      expect(w.posted[0]).toEqual({ type: 'openStream', generation: 1, totalBytes: 0, stallMs: null, progressive: true });
      expect(sentBytes(w)).toBe(STREAM_WINDOW_BYTES);
      w.answer({ type: 'taken', generation: 1, bytes: 2 * MiB });
      for (let i = 0; i < 20; i++) await settle();
      expect(sentBytes(w)).toBe(STREAM_WINDOW_BYTES + 2 * MiB);
      expect(state.closed).toBe(false);
      client.cancel();
      for (let i = 0; i < 20; i++) await settle();
      expect(state.closed, 'a cancel lets go of the download (its request ends)').toBe(true);
    });

    it('a download that fails midway: the end is sent, what arrived is analysed, the message comes back as `stopped`', async () => {
      const client = new DecoderClient();
      const { chunks } = endless(3);
      const opened = client.openStream(chunks, 0, () => {});
      const w = FakeWorker.all[0];
      w.answer(hello);
      for (let i = 0; i < 20; i++) await settle();
      expect(w.posted.map((m) => m.type)).toEqual(['openStream', 'chunk', 'chunk', 'chunk', 'streamEnd']);
      w.answer({ type: 'report', generation: 1, report: report(30), connectionCount: 0, elapsedMs: 1 });
      expect((await opened).stopped).toBe('Could not fetch x: the network failed after 3 MiB had arrived.');
    });

    it('a decoder that stops early (a fatal error) ends the download', async () => {
      const client = new DecoderClient();
      const { state, chunks } = endless();
      const opened = client.openStream(chunks, 0, () => {});
      const w = FakeWorker.all[0];
      w.answer(hello);
      for (let i = 0; i < 20; i++) await settle();
      w.answer({ type: 'report', generation: 1, report: report(0), connectionCount: 0, elapsedMs: 1 });
      expect((await opened).stopped).toBeNull();
      for (let i = 0; i < 20; i++) await settle();
      expect(state.closed).toBe(true);
      expect(w.posted.some((m) => m.type === 'streamEnd')).toBe(false);
    });
  });
});
