import { describe, expect, it } from 'vitest';
import { makeFixture } from '../charts/fixtures';
import type { ConnectionData, Report } from '../model/types';
import { DEFAULT_VIEW, type ViewState } from '../state/url';
import { ByteWriter } from './bytes';
import { toBase64Url } from './base64url';
import {
  MAX_LINK_FRAGMENT_BYTES, decodeSnapshot, encodeSnapshot, fragmentToSnapshot, readSnapshotFile,
  snapshotFileText, snapshotLink, snapshotToFragment, type Snapshot,
} from './snapshot';

function reportFor(data: ConnectionData): Report {
  return {
    schemaVersion: 1,
    capture: { format: 'pcapng', linkTypes: ['ethernet'], packets: data.packets.t.length + 5, bytes: 123456, duration: 2.5 },
    error: null,
    warnings: [{ kind: 'unknown-link-type', count: 2, message: '2 packets with a link-layer type tcpscope cannot decode' }],
    connections: [data.summary, { ...data.summary, id: 99 }],
  };
}

function snapshotOf(data: ConnectionData, view: Partial<ViewState> = {}): Snapshot {
  // Fixtures written before the field existed lack it; the validator requires it.
  data.summary.stallThresholdMs ??= 40;
  return { name: 'transfer.pcapng', report: reportFor(data), data, view: { ...DEFAULT_VIEW, ...view } };
}

/** Same values, NaN equal to NaN; times to the µs (the snapshot's resolution). */
function expectColumnsEqual(actual: ArrayLike<number>, expected: ArrayLike<number>, name: string, tolerance = 0) {
  expect(actual.length, name).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i], e = expected[i];
    if (Number.isNaN(e)) expect(a, `${name}[${i}]`).toBeNaN();
    else if (tolerance) expect(Math.abs(a - e), `${name}[${i}]`).toBeLessThanOrEqual(tolerance);
    else expect(a, `${name}[${i}]`).toBe(e);
  }
}

function expectDataEqual(actual: ConnectionData, expected: ConnectionData) {
  const timeTolerance = 0.5e-6 + 1e-12;
  for (const table of ['packets', 'sack', 'rtt'] as const) {
    const a = actual[table] as unknown as Record<string, ArrayLike<number>>;
    const e = expected[table] as unknown as Record<string, ArrayLike<number>>;
    expect(Object.keys(a).sort()).toEqual(Object.keys(e).sort());
    for (const column of Object.keys(e)) {
      expect(a[column].constructor, `${table}.${column} type`).toBe(e[column].constructor);
      const tolerance = column === 't' ? timeTolerance : column === 'rttMs' ? 1e-3 + 1e-9 : 0;
      expectColumnsEqual(a[column], e[column], `${table}.${column}`, tolerance);
    }
  }
  expect(actual.summary).toEqual(expected.summary);
  expect(actual.schemaVersion).toBe(expected.schemaVersion);
}

/** Rewrite a valid snapshot's header or compressed payload. */
async function withPayload(payload: Uint8Array, format = 1, schema = 1, declared = payload.length): Promise<Uint8Array> {
  const reader = new Blob([payload as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const compressed = new Uint8Array(await new Response(reader).arrayBuffer());
  const out = new Uint8Array(11 + compressed.length);
  out.set([0x54, 0x43, 0x50, 0x53, format]);
  new DataView(out.buffer).setUint16(5, schema, true);
  new DataView(out.buffer).setUint32(7, declared, true);
  out.set(compressed, 11);
  return out;
}

async function rawPayload(bytes: Uint8Array): Promise<Uint8Array> {
  const reader = new Blob([bytes.subarray(11) as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(reader).arrayBuffer());
}

describe('snapshot round trip', () => {
  it('keeps every column, the summary, the report and the view', async () => {
    const data = makeFixture();
    const view: Partial<ViewState> = { conn: 0, binMs: 20, stallMs: 15, charts: ['throughput', 'inflight'], theme: 'dark' };
    const back = await decodeSnapshot(await encodeSnapshot(snapshotOf(data, view)));
    expectDataEqual(back.data, data);
    expect(back.name).toBe('transfer.pcapng');
    expect(back.report.connections).toEqual([data.summary]);
    expect(back.report.capture).toEqual(reportFor(data).capture);
    expect(back.report.warnings).toEqual(reportFor(data).warnings);
    expect(back.view).toEqual({ ...DEFAULT_VIEW, ...view, source: null });
    expect(back.data.packets.inFlight.some(Number.isNaN)).toBe(true);
    expect(back.data.sack.t.length).toBeGreaterThan(0);
  });

  it('keeps unscaled windows, huge sequence numbers and non-integer values exactly', async () => {
    const data = makeFixture({ windowScaleUnknown: true, rounds: 5 });
    data.packets.seq[3] = 2 ** 40 + 7; // past 4 GiB: 32-bit arithmetic would wrap
    data.packets.win[4] = 1234.5; // forces the raw float64 encoding of that column
    data.packets.ack[5] = Infinity;
    // An RTT sample that matches no packet time is stored explicitly.
    data.rtt.t[0] += 0.000321;
    data.rtt.rttMs[1] = 0.5;
    const back = await decodeSnapshot(await encodeSnapshot(snapshotOf(data)));
    expectDataEqual(back.data, data);
  });

  it('restricts rows to the zoomed range plus, per series, the nearest row on each side', async () => {
    const data = makeFixture();
    const { t, dir, len, frame } = data.packets;
    const range: [number, number] = [t[100], t[200]];
    const back = await decodeSnapshot(await encodeSnapshot(snapshotOf(data, { range })));
    // Expected: every row inside, and for each series (direction × has payload) the
    // last row before and the first row after the range.
    const expected = new Set<number>();
    for (let i = 0; i < t.length; i++) if (t[i] >= range[0] && t[i] <= range[1]) expected.add(frame[i]);
    for (const d of [0, 1]) {
      for (const payload of [false, true]) {
        const series = [...t.keys()].filter((i) => dir[i] === d && len[i] > 0 === payload);
        const before = series.filter((i) => t[i] < range[0]).pop();
        const after = series.find((i) => t[i] > range[1]);
        if (before !== undefined) expected.add(frame[before]);
        if (after !== undefined) expected.add(frame[after]);
      }
    }
    expect([...back.data.packets.frame]).toEqual([...expected].sort((a, b) => a - b));
    expect(back.data.packets.t.length).toBeGreaterThan(101);
    expect(back.data.packets.t.length).toBeLessThanOrEqual(109);
    expect(back.view.range![0]).toBeCloseTo(range[0], 6);
    expect(back.view.range![1]).toBeCloseTo(range[1], 6);
  });

  it('puts a ~3000-packet connection in a link under 16 KB', async () => {
    const data = makeFixture({ rounds: 190 });
    expect(data.packets.t.length).toBeGreaterThan(2900);
    const fragment = snapshotToFragment(await encodeSnapshot(snapshotOf(data)));
    console.info(`snapshot of ${data.packets.t.length} packets: ${fragment.length} bytes of fragment`);
    expect(fragment.length).toBeLessThan(MAX_LINK_FRAGMENT_BYTES);
  });

  it('puts a ~3000-packet connection with real-world timing jitter in a link under 16 KB', async () => {
    // Real captures are less regular than the simulation: every timestamp moves by up
    // to ±40 µs and every window by a few bytes (receive-buffer autotuning).
    const data = makeFixture({ rounds: 190 });
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const p = data.packets;
    for (let i = 1; i < p.t.length; i++) p.t[i] = Math.max(p.t[i - 1], p.t[i] + (random() - 0.5) * 80e-6);
    for (let i = 0; i < p.win.length; i++) if (p.dir[i] === 1 && p.win[i] > 0) p.win[i] += Math.floor(random() * 8) * 128;
    const fragment = snapshotToFragment(await encodeSnapshot(snapshotOf(data)));
    console.info(`jittered snapshot of ${p.t.length} packets: ${fragment.length} bytes of fragment`);
    expect(fragment.length).toBeLessThan(MAX_LINK_FRAGMENT_BYTES);
  });

  it('travels through a link fragment and a snapshot file', async () => {
    const data = makeFixture({ rounds: 5 });
    const bytes = await encodeSnapshot(snapshotOf(data, { conn: 0, source: { kind: 'example', file: 'x.pcap' } }));
    const link = snapshotLink('https://example.org/tcpscope/', { ...DEFAULT_VIEW, conn: 0, source: { kind: 'example', file: 'x.pcap' } }, bytes);
    expect(link).toMatch(/^https:\/\/example\.org\/tcpscope\/#c=0&snap=[A-Za-z0-9_-]+$/);
    expect(fragmentToSnapshot(new URL(link).hash)).toEqual(bytes);
    expect(fragmentToSnapshot('#c=1')).toBeNull();
    const file = new Blob([snapshotFileText(bytes)]);
    expect(JSON.parse(await file.text())).toMatchObject({ tcpscope: 'snapshot', version: 1 });
    expect(await readSnapshotFile(file)).toEqual(bytes);
  });
});

describe('tampered snapshots are rejected with a readable message', () => {
  const valid = encodeSnapshot(snapshotOf(makeFixture({ rounds: 5 })));

  it('wrong signature', async () => {
    await expect(decodeSnapshot(fragmentToSnapshot('#snap=AAAA')!)).rejects.toThrow('This is not a tcpscope snapshot');
    const bytes = (await valid).slice();
    bytes[0] = 0x58;
    await expect(decodeSnapshot(bytes)).rejects.toThrow('signature is wrong');
  });

  it('newer format and newer schema', async () => {
    const bytes = (await valid).slice();
    bytes[4] = 2;
    await expect(decodeSnapshot(bytes)).rejects.toThrow(
      'This link was made by a newer tcpscope (snapshot format 2); this page reads format 1',
    );
    const schema = (await valid).slice();
    schema[5] = 7;
    await expect(decodeSnapshot(schema)).rejects.toThrow('newer tcpscope (data schema 7)');
  });

  it('truncated and garbled data', async () => {
    const bytes = await valid;
    await expect(decodeSnapshot(bytes.subarray(0, 8))).rejects.toThrow('cut short');
    await expect(decodeSnapshot(bytes.subarray(0, bytes.length - 20))).rejects.toThrow('damaged');
    const garbled = bytes.slice();
    for (let i = 20; i < garbled.length; i += 7) garbled[i] ^= 0x5a;
    await expect(decodeSnapshot(garbled)).rejects.toThrow('damaged');
    expect(() => fragmentToSnapshot('#snap=ab*cd')).toThrow('characters that do not belong');
  });

  it('absurd sizes', async () => {
    const bytes = (await valid).slice();
    new DataView(bytes.buffer).setUint32(7, 0xfffffff0, true);
    await expect(decodeSnapshot(bytes)).rejects.toThrow('more than the 64 MB limit');
    // A small declared size with a payload that unpacks to more: stopped at the cap.
    const bomb = await withPayload(new Uint8Array(5_000_000), 1, 1, 1000);
    await expect(decodeSnapshot(bomb)).rejects.toThrow('unpacks to more than the 1000 bytes');
    // A column claiming more values than the payload holds is refused before allocating.
    const w = new ByteWriter();
    const json = new TextEncoder().encode(JSON.stringify(await metaOf(await valid)));
    w.uvarint(json.length);
    w.bytes(json);
    w.uvarint(2 ** 40);
    await expect(decodeSnapshot(await withPayload(w.finish()))).rejects.toThrow('claims 1099511627776 values');
  });

  it('column lengths that disagree', async () => {
    const data = makeFixture({ rounds: 5 });
    data.packets.seq = data.packets.seq.slice(1);
    await expect(decodeSnapshot(await encodeSnapshot(snapshotOf(data)))).rejects.toThrow(
      /column packets\.seq has \d+ values but its table has \d+ rows/,
    );
  });

  it('trailing bytes after the columns', async () => {
    const payload = await rawPayload(await valid);
    const longer = new Uint8Array(payload.length + 3);
    longer.set(payload);
    await expect(decodeSnapshot(await withPayload(longer))).rejects.toThrow('3 unexpected bytes');
  });

  it('a summary field of the wrong type', async () => {
    const meta = await metaOf(await valid);
    const cases: [(m: any) => void, string][] = [
      [(m) => (m.summary.directions[1].stalls = [{ start: 1, duration: 'x' }]), 'summary.directions[1].stalls[0].duration should be a number'],
      [(m) => (m.summary.diagnosis.text = { html: '<img src=x onerror=alert(1)>' }), 'summary.diagnosis.text should be a string'],
      [(m) => (m.summary.dataDirection = 2), 'summary.dataDirection should be one of 0, 1'],
      [(m) => (m.report.capture.linkTypes = 'ethernet'), 'report.capture.linkTypes should be a list'],
      [(m) => delete m.summary.endpoints, 'summary.endpoints should be a list of 2'],
      [(m) => (m.name = 5), 'snapshot.name should be a string'],
    ];
    for (const [mutate, message] of cases) {
      const m = structuredClone(meta);
      mutate(m);
      await expect(decodeSnapshot(await withMeta(await valid, m))).rejects.toThrow(message);
    }
    const notJson = await withMeta(await valid, null, new TextEncoder().encode('{"name":'));
    await expect(decodeSnapshot(notJson)).rejects.toThrow('the summary is not valid JSON');
  });

  it('a snapshot file that is not one', async () => {
    await expect(readSnapshotFile(new Blob(['<html>']))).rejects.toThrow('it is not JSON');
    await expect(readSnapshotFile(new Blob(['{"tcpscope":"other"}']))).rejects.toThrow('not a tcpscope snapshot');
    await expect(readSnapshotFile(new Blob(['{"tcpscope":"snapshot","version":3,"data":""}']))).rejects.toThrow('snapshot format 3');
    await expect(readSnapshotFile(new Blob(['{"tcpscope":"snapshot","version":1,"data":"%%"}']))).rejects.toThrow('not base64url');
    expect(toBase64Url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
  });
});

/** The JSON part of a valid snapshot, and a copy of the snapshot with it replaced. */
async function metaOf(bytes: Uint8Array): Promise<any> {
  const payload = await rawPayload(bytes);
  let length = 0, shift = 1, i = 0;
  for (;;) {
    const b = payload[i++];
    length += (b & 0x7f) * shift;
    if (b < 0x80) break;
    shift *= 128;
  }
  return JSON.parse(new TextDecoder().decode(payload.subarray(i, i + length)));
}

async function withMeta(bytes: Uint8Array, meta: unknown, raw?: Uint8Array): Promise<Uint8Array> {
  const payload = await rawPayload(bytes);
  let length = 0, shift = 1, i = 0;
  for (;;) {
    const b = payload[i++];
    length += (b & 0x7f) * shift;
    if (b < 0x80) break;
    shift *= 128;
  }
  const w = new ByteWriter();
  const json = raw ?? new TextEncoder().encode(JSON.stringify(meta));
  w.uvarint(json.length);
  w.bytes(json);
  w.bytes(payload.subarray(i + length));
  return withPayload(w.finish());
}
