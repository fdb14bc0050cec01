// Snapshots: one connection's summary and chart columns, compressed into bytes that
// travel inside a link (#…&snap=<base64url>) or a .tcpscope.json file — sharing with
// no server, and without the capture itself (DESIGN.md, Architecture: permalinks).
//
// Layout: an 11-byte header, uncompressed so that a newer or foreign snapshot can be
// recognised before any work:
//   "TCPS" | format version (u8) | data schema version (u16 LE) | payload length (u32 LE)
// then the payload, deflate-raw compressed (the platform's CompressionStream):
//   uvarint length + UTF-8 JSON { name, view, report (without connections), summary }
//   packet and SACK columns (columns.ts), RTT samples (rttColumns.ts).

import { SCHEMA_VERSION, type ConnectionData, type Report } from '../model/types';
import { parseView, serializeView, type ViewState } from '../state/url';
import { fromBase64Url, toBase64Url } from './base64url';
import { ByteReader, ByteWriter, SnapshotFormatError } from './bytes';
import { readPackets, readSack, writePackets, writeSack } from './columns';
import { readRttByReference, writeRtt } from './rttColumns';
import { validateMeta, type SnapshotMeta } from './validate';
import { downloadBlob, fileStem } from '../export/download';

export const SNAPSHOT_MAGIC = 'TCPS';
export const SNAPSHOT_FORMAT = 1;
const HEADER_BYTES = 11;
/** Cap on the decompressed payload (and on snapshot files), against zip bombs. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;
/** Longest fragment we offer as a link; beyond it, the file. */
export const MAX_LINK_FRAGMENT_BYTES = 16 * 1024;

export interface Snapshot {
  name: string;
  /** The capture-level report, `connections` reduced to this one connection. */
  report: Report;
  data: ConnectionData;
  view: ViewState;
}

/** A snapshot that cannot be read; `message` is meant for the user as is. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotError';
  }
}

const damaged = (why: string) => new SnapshotError(`This snapshot is damaged and cannot be shown (${why}).`);

async function transform(bytes: Uint8Array, stream: CompressionStream | DecompressionStream, cap: number): Promise<Uint8Array> {
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      throw damaged(`it unpacks to more than the ${cap} bytes it announced`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** The view as stored: where the data came from is irrelevant once it is in the snapshot. */
const storedView = (view: ViewState) => serializeView({ ...view, source: null });

export async function encodeSnapshot({ name, report, data, view }: Snapshot): Promise<Uint8Array> {
  const { connections: _omitted, ...head } = report;
  const meta: SnapshotMeta = { name: name.slice(0, 300), view: storedView(view), report: head, summary: data.summary };
  const w = new ByteWriter();
  const json = new TextEncoder().encode(JSON.stringify(meta));
  w.uvarint(json.length);
  w.bytes(json);
  const packets = writePackets(w, data.packets, view.range);
  writeSack(w, data.sack, view.range);
  writeRtt(w, data.rtt, packets, view.range);
  const payload = w.finish();
  const compressed = await transform(payload, new CompressionStream('deflate-raw'), Infinity);

  const out = new Uint8Array(HEADER_BYTES + compressed.length);
  const header = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = SNAPSHOT_MAGIC.charCodeAt(i);
  header.setUint8(4, SNAPSHOT_FORMAT);
  header.setUint16(5, data.schemaVersion, true);
  header.setUint32(7, payload.length, true);
  out.set(compressed, HEADER_BYTES);
  return out;
}

export async function decodeSnapshot(bytes: Uint8Array): Promise<Snapshot> {
  if (bytes.length < 4 || String.fromCharCode(...bytes.subarray(0, 4)) !== SNAPSHOT_MAGIC) {
    throw new SnapshotError('This is not a tcpscope snapshot (its signature is wrong); the link may have been cut or altered.');
  }
  if (bytes.length < HEADER_BYTES) throw damaged('it is cut short');
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const format = header.getUint8(4);
  if (format > SNAPSHOT_FORMAT) {
    throw new SnapshotError(`This link was made by a newer tcpscope (snapshot format ${format}); this page reads format ${SNAPSHOT_FORMAT}.`);
  }
  if (format < 1) throw damaged(`unknown snapshot format ${format}`);
  const schema = header.getUint16(5, true);
  if (schema !== SCHEMA_VERSION) {
    throw new SnapshotError(
      schema > SCHEMA_VERSION
        ? `This link was made by a newer tcpscope (data schema ${schema}); this page reads schema ${SCHEMA_VERSION}.`
        : `This link holds data of an older schema (${schema}) that this page no longer reads.`,
    );
  }
  const length = header.getUint32(7, true);
  if (length > MAX_SNAPSHOT_BYTES) {
    throw damaged(`it claims ${(length / 2 ** 20).toFixed(0)} MB of data, more than the ${MAX_SNAPSHOT_BYTES / 2 ** 20} MB limit`);
  }

  let payload: Uint8Array;
  try {
    payload = await transform(bytes.subarray(HEADER_BYTES), new DecompressionStream('deflate-raw'), length);
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw damaged('the compressed data is corrupt or cut short');
  }
  if (payload.length !== length) throw damaged(`it holds ${payload.length} bytes of data instead of ${length}`);

  try {
    const r = new ByteReader(payload);
    const jsonLength = r.uvarint('the summary length');
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(r.bytes(jsonLength, 'the summary')));
    } catch (error) {
      if (error instanceof SnapshotFormatError) throw error;
      throw new SnapshotFormatError('the summary is not valid JSON');
    }
    const meta = validateMeta(parsed);
    const packets = readPackets(r);
    const columns = { packets, sack: readSack(r), rtt: readRttByReference(r, packets) };
    if (r.remaining !== 0) throw new SnapshotFormatError(`${r.remaining} unexpected bytes follow the columns`);
    const view = { ...parseView(meta.view), source: null };
    return {
      name: meta.name,
      report: { ...meta.report, connections: [meta.summary] },
      data: { schemaVersion: schema, summary: meta.summary, ...columns },
      view,
    };
  } catch (error) {
    if (error instanceof SnapshotFormatError) throw damaged(error.message);
    throw error;
  }
}

/** `snap=<base64url>`, to append to a view fragment with '&'. */
export function snapshotToFragment(bytes: Uint8Array): string {
  return `snap=${toBase64Url(bytes)}`;
}

/**
 * The snapshot bytes named by a fragment (`#c=1&snap=…`, `snap=…`), or null when it
 * names none. Throws SnapshotError when the value is not base64url.
 */
export function fragmentToSnapshot(fragment: string): Uint8Array | null {
  const value = new URLSearchParams(fragment.replace(/^#/, '')).get('snap');
  if (value === null) return null;
  if (value.length > (MAX_SNAPSHOT_BYTES / 3) * 4) throw damaged('the link is far too long');
  const bytes = fromBase64Url(value);
  if (!bytes) throw damaged('the link contains characters that do not belong to a snapshot');
  return bytes;
}

/** The shareable link for a view of a snapshot: the URL-state permalink plus `snap=`. */
export function snapshotLink(base: string, view: ViewState, bytes: Uint8Array): string {
  const state = storedView(view);
  return `${base}#${state ? `${state}&` : ''}${snapshotToFragment(bytes)}`;
}

// ——— Snapshot files (.tcpscope.json) ———

export const SNAPSHOT_FILE_SUFFIX = '.tcpscope.json';

export function snapshotFileText(bytes: Uint8Array): string {
  return JSON.stringify({ tcpscope: 'snapshot', version: SNAPSHOT_FORMAT, data: toBase64Url(bytes) });
}

export function snapshotFileName(name: string): string {
  return `${fileStem(name)}${SNAPSHOT_FILE_SUFFIX}`;
}

export function isSnapshotFileName(name: string): boolean {
  return name.toLowerCase().endsWith(SNAPSHOT_FILE_SUFFIX);
}

/** The snapshot bytes inside a .tcpscope.json file; throws SnapshotError with a readable message. */
export async function readSnapshotFile(blob: Blob): Promise<Uint8Array> {
  if (blob.size > MAX_SNAPSHOT_BYTES) throw new SnapshotError('This file is too large to be a tcpscope snapshot.');
  let file: unknown;
  try {
    file = JSON.parse(await blob.text());
  } catch {
    throw new SnapshotError('This file is not a tcpscope snapshot (it is not JSON).');
  }
  const f = file as { tcpscope?: unknown; version?: unknown; data?: unknown } | null;
  if (typeof f !== 'object' || f === null || f.tcpscope !== 'snapshot') {
    throw new SnapshotError('This file is not a tcpscope snapshot.');
  }
  if (typeof f.version === 'number' && f.version > SNAPSHOT_FORMAT) {
    throw new SnapshotError(`This file was made by a newer tcpscope (snapshot format ${f.version}); this page reads format ${SNAPSHOT_FORMAT}.`);
  }
  const bytes = typeof f.data === 'string' ? fromBase64Url(f.data) : null;
  if (!bytes) throw damaged('its data field is not base64url');
  return bytes;
}

export function downloadSnapshot(bytes: Uint8Array, name: string): void {
  downloadBlob(new Blob([snapshotFileText(bytes)], { type: 'application/json' }), snapshotFileName(name));
}

/** A dropped or picked .tcpscope.json file, decoded. */
export async function openSnapshotFile(blob: Blob): Promise<Snapshot> {
  return decodeSnapshot(await readSnapshotFile(blob));
}
