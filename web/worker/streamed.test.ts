// A streamed capture in the worker (issue 45 item 6): the chunks the page posts come out
// as the decoder's CaptureChunks in order, gzip told by its first two bytes even when
// they arrive in two chunks, and every chunk handed on is reported as taken.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { StreamInbox, streamedChunks } from './streamed';

/** An inbox holding `pieces`, ended; its taken bytes counted. */
function inboxOf(pieces: Uint8Array[]) {
  const taken: number[] = [];
  const inbox = new StreamInbox((n) => taken.push(n));
  for (const p of pieces) inbox.push(p);
  inbox.end();
  return { inbox, taken };
}
const join = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => Array.from(p)));

describe('streamedChunks', () => {
  it('plain bytes pass through in order, bytes read counted, every chunk taken', async () => {
    const pieces = [Uint8Array.of(0xd4), Uint8Array.of(0xc3, 0xb2), new Uint8Array(0), Uint8Array.of(0xa1, 2, 0)];
    const { inbox, taken } = inboxOf(pieces);
    const reads: number[] = [];
    const out = [];
    for await (const chunk of streamedChunks(inbox.pieces(), (n) => reads.push(n))) out.push(chunk);
    expect(join(out.map((c) => c.bytes))).toEqual(join(pieces));
    expect(out.every((c) => c.compressedBytes === null)).toBe(true);
    expect(reads).toEqual([1, 3, 6]);
    expect(taken).toEqual([1, 2, 0, 3]);
  });

  it('gzip split at any byte, its magic across two chunks: inflated, with the compressed count for the caps', async () => {
    // Random bytes barely compress: the compressed stream spans several 64 KiB pieces.
    const plain = new Uint8Array(randomBytes(300_000));
    const gz = new Uint8Array(gzipSync(plain));
    const pieces = [gz.subarray(0, 1), gz.subarray(1, 1000), gz.subarray(1000, 200_000), gz.subarray(200_000)].map((p) => p.slice());
    const { inbox } = inboxOf(pieces);
    const out = [];
    for await (const chunk of streamedChunks(inbox.pieces(), () => {})) out.push(chunk);
    expect(Buffer.from(join(out.map((c) => c.bytes))).equals(Buffer.from(plain))).toBe(true);
    expect(out.at(-1)!.compressedBytes).toBe(gz.length);
    // (How far ahead of its output the inflater reads is the platform's: only the order is ours.)
    const counts = out.map((c) => c.compressedBytes!);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
  });

  it('an empty download is no chunk at all', async () => {
    const { inbox } = inboxOf([]);
    const out = [];
    for await (const chunk of streamedChunks(inbox.pieces(), () => {})) out.push(chunk);
    expect(out).toEqual([]);
  });
});
