// Reads a capture's slices for the decoder worker on a thread of its own (issue 14).
// A Blob's bytes reach an ArrayBuffer through the event loop of the thread that asked
// for them: read in the decoder worker, a slice advanced only between two pushes into
// the wasm session, so reading and decoding took turns (1.7 s of a 10 M-packet load
// spent waiting for reads the worker itself held up). Here the next slices are read
// while the decoder works, and each one is handed over without a copy (transferred).
// The decoder asks for one more slice per slice it takes: at most `ahead` wait.

// The page starts the reader beside the decoder worker and hands each one end of a
// MessageChannel (client.ts startReader; the reader's end comes in `FromPage`): the
// two then talk only through that port. `load` numbers the loads the reader serves
// (one reader for every load of its decoder worker, even after a load was
// abandoned): every message names its load, and what belongs to an earlier one is
// ignored on both sides.
import { measure } from './marks';

export type FromPage = { type: 'port'; port: MessagePort };
export type ToReader =
  | { type: 'start'; load: number; blob: Blob; firstSliceBytes: number; sliceBytes: number; ahead: number }
  | { type: 'more'; load: number };
export type FromReader =
  | { type: 'slice'; load: number; end: number; buffer: ArrayBuffer }
  | { type: 'end'; load: number }
  | { type: 'error'; load: number; message: string };

/** The decoder worker's end of the channel (FromPage). */
let decoder: MessagePort | null = null;
const post = (message: FromReader, transfer: Transferable[] = []) => decoder?.postMessage(message, transfer);

let blob: Blob | null = null;
let sliceBytes = 0;
/** The size of the next read: it starts small and doubles up to `sliceBytes`, so the
 * decoder starts on the first megabyte instead of waiting for a whole 16 MiB read
 * (≈ 30 ms), and each read still finishes before the decoder is done with the one
 * before it (reading runs at ≈ 2 ns/byte, decoding at ≈ 3.5 ns/byte; bench/README.md). */
let nextBytes = 0;
let offset = 0;
// Reads run one after the other, in order: a `more` that comes while a read is under
// way waits for it.
let queue: Promise<void> = Promise.resolve();
/** The load being read; a read queued for an earlier load does nothing. */
let load = 0;

async function readOne(id: number) {
  if (id !== load || !blob) return;
  if (offset >= blob.size) {
    post({ type: 'end', load: id });
    blob = null;
    return;
  }
  const at = offset;
  const end = (offset = Math.min(blob.size, at + nextBytes));
  nextBytes = Math.min(sliceBytes, nextBytes * 2);
  try {
    const t = performance.now();
    const buffer = await blob.slice(at, end).arrayBuffer();
    // The first reads of a load, for a trace of the first chart's path (marks.ts).
    if (at < 64 << 20) measure('read', t);
    post({ type: 'slice', load: id, end, buffer }, [buffer]);
  } catch (error) {
    // A newer load may have started while this read ran: its file stays.
    if (id === load) blob = null;
    post({ type: 'error', load: id, message: error instanceof Error ? error.message : String(error) });
  }
}

self.onmessage = (event: MessageEvent<FromPage>) => {
  decoder = event.data.port;
  decoder.onmessage = (e: MessageEvent<ToReader>) => receive(e.data);
};

function receive(m: ToReader) {
  if (m.type === 'start') {
    ({ blob, sliceBytes } = m);
    nextBytes = Math.max(1, Math.min(m.firstSliceBytes, sliceBytes));
    offset = 0;
    const id = (load = m.load);
    for (let i = 0; i < m.ahead; i++) queue = queue.then(() => readOne(id));
  } else if (m.load === load) {
    queue = queue.then(() => readOne(m.load));
  }
}
