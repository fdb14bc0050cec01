// The decoder worker: streams the capture into the wasm session slice by slice, so
// the UI thread never blocks and the file is never held whole in memory.
import init, { WasmSession } from 'tcpscope-wasm';
import type { Report } from '../model/types';
import { captureChunks } from './chunks';
import { connectionData, transferables } from './columns';
import type { FromWorker, ToWorker } from './protocol';

const ready = init();
let session: WasmSession | null = null;
let report: Report | null = null;

const post = (message: FromWorker, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(message, transfer);

async function open(source: Blob, stallMs: number | null) {
  await ready;
  session?.free();
  session = new WasmSession(stallMs ?? Number.NaN);
  report = null;
  const started = performance.now();
  let lastProgress = 0;
  for await (const chunk of captureChunks(source, (bytesRead) => {
    const now = performance.now();
    if (now - lastProgress > 50 || bytesRead === source.size) {
      lastProgress = now;
      post({ type: 'progress', bytesRead, totalBytes: source.size, packets: session!.packets(), elapsedMs: now - started });
    }
  })) {
    if (!session.push(chunk)) break; // fatal decode error: keep what was decoded
  }
  session.finish();
  report = JSON.parse(session.reportJson()) as Report;
  post({ type: 'report', report, elapsedMs: performance.now() - started });
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  try {
    if (message.type === 'open') {
      await open(message.source, message.stallMs);
    } else if (message.type === 'connection') {
      const summary = report?.connections.find((c) => c.id === message.id);
      if (!session || !summary) {
        post({ type: 'connection', requestId: message.requestId, data: null });
        return;
      }
      const data = connectionData(session, summary);
      post({ type: 'connection', requestId: message.requestId, data }, transferables(data));
    } else if (message.type === 'stalls') {
      const stalls = session ? JSON.parse(session.stallsJson(message.id, message.dir, message.thresholdMs)) : [];
      post({ type: 'stalls', requestId: message.requestId, stalls });
    }
  } catch (error) {
    post({ type: 'failure', message: error instanceof Error ? error.message : String(error) });
  }
};
