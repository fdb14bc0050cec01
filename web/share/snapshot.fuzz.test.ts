// Mutation fuzzing of the snapshot and permalink parsers (issue 8): whatever a link or
// a .tcpscope.json file holds, decodeSnapshot / fragmentToSnapshot either return a
// snapshot or throw SnapshotError — never another exception type, never hang — and
// parseView never throws and returns a view that satisfies the schema.
//
// `npm test` runs a bounded number of mutations (fast). The long run:
//   FUZZ_RUNS=1000000 npx vitest run web/share/snapshot.fuzz.test.ts
// (FUZZ_SEED picks another deterministic sequence.) A failure prints the seed, the
// iteration and the input (base64url) to replay.
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeFixture } from '../charts/fixtures';
import type { ConnectionData, Report } from '../model/types';
import { CHART_IDS, DEFAULT_VIEW, parseView, serializeView, type ViewState } from '../state/url';
import { toBase64Url } from './base64url';
import { ByteReader, ByteWriter } from './bytes';
import { SnapshotError, decodeSnapshot, encodeSnapshot, fragmentToSnapshot, snapshotLink } from './snapshot';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? 0x7c95c09);
const LONG = RUNS > 20_000;
/** No single input may take longer than this (a hang or a pathological slowdown). */
const MAX_MS_PER_INPUT = 2000;

// ——— deterministic randomness ———
let state = SEED >>> 0 || 1;
function rnd(): number {
  // xorshift32
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state;
}
const below = (n: number) => rnd() % Math.max(1, n);
const pick = <T>(xs: readonly T[]): T => xs[below(xs.length)];

// ——— seeds: real snapshots ———
function reportFor(data: ConnectionData): Report {
  return {
    schemaVersion: 1,
    capture: { format: 'pcap', linkTypes: ['ethernet'], packets: data.packets.t.length, bytes: 1e6, duration: 1.5 },
    error: { message: 'The file ends in the middle of packet 9', packetIndex: 8, byteOffset: 4000, layer: 'capture', kind: 'truncated' },
    warnings: [{ kind: 'not-tcp', count: 1, message: '1 IP packets that are not TCP' }],
    connections: [data.summary],
  } as Report;
}

async function snapshotBytes(view: Partial<ViewState>, rounds: number): Promise<Uint8Array> {
  const data = makeFixture({ rounds });
  data.summary.stallThresholdMs ??= 40;
  return encodeSnapshot({ name: 'seed.pcap', report: reportFor(data), data, view: { ...DEFAULT_VIEW, ...view } });
}

async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const s = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** The harness's own compression: zlib directly (the same raw deflate format, faster
 * than a CompressionStream per input; only decoding goes through the code under test). */
function deflate(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(deflateRawSync(bytes, { level: 1 }));
}

/** A snapshot with `payload` (uncompressed) and a header that matches it, unless told otherwise. */
async function wrap(payload: Uint8Array, declared = payload.length, format = 1, schema = 1): Promise<Uint8Array> {
  const compressed = deflate(payload);
  const out = new Uint8Array(11 + compressed.length);
  out.set([0x54, 0x43, 0x50, 0x53, format]);
  const dv = new DataView(out.buffer);
  dv.setUint16(5, schema, true);
  dv.setUint32(7, declared, true);
  out.set(compressed, 11);
  return out;
}

/** Split a payload into its JSON summary and the column bytes after it. */
function splitPayload(payload: Uint8Array): { meta: unknown; columns: Uint8Array } {
  const r = new ByteReader(payload);
  const n = r.uvarint('len');
  const meta = JSON.parse(new TextDecoder().decode(r.bytes(n, 'json')));
  return { meta, columns: payload.subarray(payload.length - r.remaining) };
}

function joinPayload(metaText: string, columns: Uint8Array): Uint8Array {
  const w = new ByteWriter();
  const json = new TextEncoder().encode(metaText);
  w.uvarint(json.length);
  w.bytes(json);
  w.bytes(columns);
  return w.finish();
}

// ——— mutators ———
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const INTERESTING = [0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x40, 0x3f];

function mutateBytes(input: Uint8Array, protectHeader = 0): Uint8Array {
  let b: Uint8Array = Uint8Array.from(input);
  const edits = 1 + below(6);
  for (let e = 0; e < edits; e++) {
    const at = protectHeader + below(Math.max(1, b.length - protectHeader));
    switch (below(9)) {
      case 0: // flip a bit
        if (b.length) b[at] ^= 1 << below(8);
        break;
      case 1: // set an interesting byte
        if (b.length) b[at] = pick(INTERESTING);
        break;
      case 2: // random byte
        if (b.length) b[at] = below(256);
        break;
      case 3: { // truncate
        b = b.subarray(0, below(b.length + 1));
        break;
      }
      case 4: { // delete a run
        const n = 1 + below(16);
        b = concat(b.subarray(0, at), b.subarray(at + n));
        break;
      }
      case 5: { // insert random bytes
        const n = 1 + below(16);
        const ins = Uint8Array.from({ length: n }, () => below(256));
        b = concat(b.subarray(0, at), ins, b.subarray(at));
        break;
      }
      case 6: { // duplicate a run
        const n = 1 + below(64);
        b = concat(b.subarray(0, at + n), b.subarray(at, at + n), b.subarray(at + n));
        break;
      }
      case 7: { // a varint-sized field set to something huge
        const big = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        for (let i = 0; i < big.length && at + i < b.length; i++) b[at + i] = big[i];
        break;
      }
      default: { // a 32-bit little-endian number
        if (at + 4 <= b.length) new DataView(b.buffer, b.byteOffset).setUint32(at, rnd(), true);
      }
    }
  }
  return b;
}

const WEIRD_VALUES: unknown[] = [
  null, true, -1, 0, 1e308, -1e308, 2 ** 53 + 1, 1.5, '', 'x'.repeat(5000), '<img src=x onerror=alert(1)>',
  [], [1, 2], {}, { __proto__: { polluted: 1 } }, 'NaN', '__proto__', '\u0000', '\ud800',
];

/** Replace, delete or retype one value somewhere in a JSON tree. */
function mutateJson(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 6 || below(5) === 0) {
    return below(3) === 0 ? undefined : pick(WEIRD_VALUES);
  }
  if (Array.isArray(value)) {
    const copy = [...value];
    if (copy.length === 0 || below(6) === 0) copy.push(pick(WEIRD_VALUES));
    else {
      const i = below(copy.length);
      const v = mutateJson(copy[i], depth + 1);
      if (v === undefined) copy.splice(i, 1);
      else copy[i] = v;
    }
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0 || below(8) === 0) copy[pick(['extra', '__proto__', 'constructor', 'toString'])] = pick(WEIRD_VALUES);
  else {
    const k = pick(keys);
    const v = mutateJson(copy[k], depth + 1);
    if (v === undefined) delete copy[k];
    else copy[k] = v;
  }
  return copy;
}

const FRAGMENT_PIECES = [
  '&', '=', '#', '%', '%00', '%zz', '+', ',', 'c=', 't=', 'bin=', 'stall=', 'charts=', 'theme=', 'url=', 'ex=', 'snap=',
  'javascript:alert(1)', 'https://example.com/a.pcap', 'data:text/html,<script>', '1e9', '-0', 'NaN', 'Infinity',
  '0.5,2', '2,1', '1,1,1', '999999999999', 'throughput,rtt', '../../etc/passwd', '\u2028', '😀', '=' .repeat(3),
];

function mutateFragment(input: string): string {
  let s = input;
  const edits = 1 + below(5);
  for (let e = 0; e < edits; e++) {
    const at = below(s.length + 1);
    switch (below(5)) {
      case 0:
        s = s.slice(0, at) + pick(FRAGMENT_PIECES) + s.slice(at);
        break;
      case 1:
        s = s.slice(0, at) + s.slice(at + 1 + below(8));
        break;
      case 2:
        s = s.slice(0, at) + String.fromCharCode(below(0x80) || 0x10000 - 1) + s.slice(at + 1);
        break;
      case 3:
        s = s.slice(0, at);
        break;
      default:
        s = s.slice(0, at) + s.slice(at, at + 1 + below(40)).repeat(1 + below(4)) + s.slice(at);
    }
  }
  return s;
}

// ——— properties ———
type Outcome = 'decoded' | 'rejected';

async function decodeChecked(bytes: Uint8Array): Promise<Outcome> {
  try {
    const snap = await decodeSnapshot(bytes);
    // What the app reads from a decoded snapshot is well-formed.
    check(typeof snap.name === 'string', 'name');
    check(snap.report.connections.length === 1, 'one connection');
    check(snap.data.packets.t.length === snap.data.packets.seq.length, 'packet columns of one length');
    checkView(snap.view);
    check(snap.view.source === null, 'no source');
    return 'decoded';
  } catch (error) {
    if (error instanceof SnapshotError) return 'rejected';
    throw error;
  }
}

/** A plain assertion (vitest's expect is too slow for a million inputs). */
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`property violated: ${what}`);
}

function checkView(v: ViewState): void {
  check(v.conn === null || (Number.isInteger(v.conn) && v.conn >= 0 && v.conn <= 1e9), `conn ${v.conn}`);
  if (v.range !== null) {
    check(v.range.length === 2 && Number.isFinite(v.range[0]) && Number.isFinite(v.range[1]) && v.range[1] > v.range[0], `range ${v.range}`);
  }
  check(v.binMs === null || (Number.isFinite(v.binMs) && v.binMs > 0), `binMs ${v.binMs}`);
  check(v.stallMs === null || (Number.isFinite(v.stallMs) && v.stallMs > 0), `stallMs ${v.stallMs}`);
  check(Array.isArray(v.charts) && v.charts.every((c) => (CHART_IDS as readonly string[]).includes(c)), `charts ${v.charts}`);
  check(['auto', 'light', 'dark'].includes(v.theme), `theme ${v.theme}`);
  const s = v.source;
  if (s?.kind === 'url') check(/^https?:\/\//.test(s.url), `url ${s.url}`);
  else if (s?.kind === 'example') check(/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/.test(s.file), `example ${s.file}`);
  else check(s === null, `source ${JSON.stringify(s)}`);
  // Serialising and parsing again is stable (a link made from a tampered link is clean).
  const once = serializeView(v);
  check(serializeView(parseView(once)) === once, `round trip of ${once}`);
}

async function timed<T>(what: () => Promise<T> | T, describeInput: () => string): Promise<T> {
  const t0 = performance.now();
  const out = await what();
  const ms = performance.now() - t0;
  if (ms > MAX_MS_PER_INPUT) throw new Error(`input took ${ms.toFixed(0)} ms: ${describeInput()}`);
  return out;
}

describe(`snapshot/permalink fuzz (${RUNS} mutations, seed ${SEED})`, () => {
  it('every input decodes or throws SnapshotError; parseView never throws', { timeout: LONG ? 24 * 3600_000 : 120_000 }, async () => {
    const seeds = [
      await snapshotBytes({}, 4),
      await snapshotBytes({ conn: 3, range: [0.01, 0.2], binMs: 5, stallMs: 12, charts: ['rtt', 'sequence'], theme: 'dark' }, 8),
    ];
    const payloads = await Promise.all(seeds.map((s) => inflate(s.subarray(11))));
    const parts = payloads.map(splitPayload);
    const fragments = [
      snapshotLink('', { ...DEFAULT_VIEW, conn: 2, range: [0.5, 2], stallMs: 30 }, seeds[0]).slice(1),
      serializeView({ ...DEFAULT_VIEW, conn: 1, binMs: 20, charts: ['throughput'], theme: 'light', source: { kind: 'url', url: 'https://example.com/x.pcap' } }),
      serializeView({ ...DEFAULT_VIEW, source: { kind: 'example', file: 'stalls.pcap' } }),
    ];
    for (const s of seeds) expect(await decodeChecked(s)).toBe('decoded');

    const counts = { decoded: 0, rejected: 0, fragments: 0, views: 0 };
    const msByCase = [0, 0, 0, 0, 0];
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) {
      const seedState = state;
      let input: Uint8Array | string = new Uint8Array();
      const show = () => `seed ${SEED}, iteration ${i}, state ${seedState}: ${typeof input === 'string' ? JSON.stringify(input) : toBase64Url(input)}`;
      const t0 = performance.now();
      try {
        const k = below(seeds.length);
        switch (i % 5) {
          case 0: { // the compressed bytes as they travel (header included)
            input = mutateBytes(seeds[k]);
            counts[await timed(() => decodeChecked(input as Uint8Array), show)]++;
            break;
          }
          case 1: { // the payload behind a valid header and valid compression
            const payload = mutateBytes(payloads[k]);
            const declared = below(8) === 0 ? rnd() : payload.length;
            input = await wrap(payload, declared, below(16) === 0 ? below(4) : 1, below(16) === 0 ? below(3) : 1);
            counts[await timed(() => decodeChecked(input as Uint8Array), show)]++;
            break;
          }
          case 2: { // the JSON summary (schema validation), columns intact or mutated
            let text = JSON.stringify(mutateJson(parts[k].meta));
            if (text === undefined) text = 'null';
            if (below(6) === 0) text = text.slice(0, below(text.length + 1));
            const columns = below(4) === 0 ? mutateBytes(parts[k].columns) : parts[k].columns;
            input = await wrap(joinPayload(text, columns));
            counts[await timed(() => decodeChecked(input as Uint8Array), show)]++;
            break;
          }
          default: { // a fragment: fragmentToSnapshot, parseView, and decode what it names
            const fragment = mutateFragment(pick(fragments));
            input = fragment;
            const view = parseView(fragment);
            checkView(view);
            counts.views++;
            let bytes: Uint8Array | null = null;
            try {
              bytes = fragmentToSnapshot(fragment);
            } catch (error) {
              if (!(error instanceof SnapshotError)) throw error;
            }
            counts.fragments++;
            if (bytes) counts[await timed(() => decodeChecked(bytes!), show)]++;
          }
        }
      } catch (error) {
        throw new Error(`${(error as Error)?.name}: ${(error as Error)?.message}\n  input: ${show()}`, { cause: error });
      }
      msByCase[i % 5] += performance.now() - t0;
      if (LONG && i > 0 && i % 100_000 === 0) {
        console.info(`${i} inputs in ${((performance.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(counts)}`);
      }
    }
    const secs = (performance.now() - started) / 1000;
    console.info(`snapshot fuzz: ${RUNS} inputs in ${secs.toFixed(1)} s (${(RUNS / secs).toFixed(0)}/s), 0 crashes: ${JSON.stringify(counts)}; ms per case: ${msByCase.map((m) => m.toFixed(0)).join(' ')}`);
    // The mutators reach both outcomes and the deep parsers, not just the signature check.
    expect(counts.decoded).toBeGreaterThan(0);
    expect(counts.rejected).toBeGreaterThan(0);
  });
});
