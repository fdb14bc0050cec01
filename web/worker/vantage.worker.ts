// One pcapng whose interfaces are two vantage points (issue 44 item 1): the wasm module
// (wasm/src/twin/interfaces.rs through bindings.rs) answers, in a worker of its own so the
// decoder keeps answering the open capture's charts, whether two of the file's interfaces
// carry the same TCP segments (`probe`: it reads the file's start, at most 64 MiB, and
// stops once it has seen 1,000 segments on both), and splits the file's packets by
// interface into two pcapng files (`split`): each packet is copied once, into its side,
// and each side stops at 256 MiB (the most the merge takes of one capture). Read in slices
// (chunks.ts, gzip inflated); the bytes never leave the machine.
import init, { WasmInterfaceSplit, WasmVantageProbe } from 'tcpscope-wasm';
import { captureChunks } from './chunks';
import type { VantageInterfaces } from './generated/view';

export type VantageAsk = { kind: 'probe'; capture: Blob } | { kind: 'split'; capture: Blob; sides: [number, number] };
export type VantageAnswer =
  | { ok: true; kind: 'probe'; found: VantageInterfaces }
  | { ok: true; kind: 'split'; sides: [Blob, Blob]; notes: string[] }
  | { ok: false; message: string };

async function probe(capture: Blob): Promise<VantageInterfaces> {
  const p = new WasmVantageProbe();
  try {
    for await (const chunk of captureChunks(capture, () => {})) if (!p.push(chunk.bytes)) break;
    return JSON.parse(p.finish()) as VantageInterfaces;
  } finally {
    p.free();
  }
}

async function split(capture: Blob, [first, second]: [number, number]): Promise<{ sides: [Blob, Blob]; notes: string[] }> {
  const s = new WasmInterfaceSplit(first, second);
  const parts: [Uint8Array[], Uint8Array[]] = [[], []];
  try {
    for await (const chunk of captureChunks(capture, () => {})) {
      const more = s.push(chunk.bytes);
      parts[0].push(s.take(0));
      parts[1].push(s.take(1));
      if (!more) break;
    }
    const notes = JSON.parse(s.finish()) as string[];
    return { sides: [new Blob(parts[0] as BlobPart[]), new Blob(parts[1] as BlobPart[])], notes };
  } finally {
    s.free();
  }
}

self.onmessage = async (event: MessageEvent<VantageAsk>) => {
  const post = (answer: VantageAnswer) => (self as unknown as Worker).postMessage(answer);
  try {
    await init();
    const ask = event.data;
    if (ask.kind === 'probe') post({ ok: true, kind: 'probe', found: await probe(ask.capture) });
    else post({ ok: true, kind: 'split', ...(await split(ask.capture, ask.sides)) });
  } catch (error) {
    post({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
};
