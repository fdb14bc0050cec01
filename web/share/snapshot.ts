// Share links and snapshot files: the page's side of wasm/src/share. A snapshot is made
// and read in Rust (the worker: the question `share`, `WasmSnapshot`; the same code as the
// CLI's `tcpscope share`) and holds the view engine's answers for the shared view, at
// the link's pixel columns, plus the connection's summary. Here it only travels: as
// base64url in a link's fragment (#…&snap=…, never sent to a server) or inside a
// .tcpscope.json file, whose wrapper is read here; the bytes inside are parsed by the
// one validating parser in Rust.

import { serializeView, type ViewState } from '../state/url';
import { fromBase64Url, toBase64Url } from './base64url';
import { downloadBlob, fileStem } from '../export/download';

/** Longest link the Share button makes (issue 15: 8 KB, page address included). */
export const MAX_LINK_BYTES = 8192;
/** Snapshot files hold the same bytes; anything larger is not one of ours. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** A link or file that cannot be read; `message` is meant for the user as is. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotError';
  }
}

const damaged = (why: string) => new SnapshotError(`This snapshot is damaged and cannot be shown (${why}).`);

/** The view as stored in a link: where the data came from is irrelevant once it is in the snapshot. */
export const storedView = (view: ViewState) => serializeView({ ...view, source: null });

/**
 * The snapshot bytes named by a fragment (`#c=1&snap=…`, `snap=…`), or null when it
 * names none. Throws SnapshotError when the value is not base64url.
 */
export function fragmentToSnapshot(fragment: string): Uint8Array | null {
  const values = new URLSearchParams(fragment.replace(/^#/, '')).getAll('snap');
  // `#sn%61p=A&snap=B` names two: refused here as by the CLI (wasm/src/share/format.rs
  // from_fragment), never read as A by one and B by the other (issue 45, item 13).
  if (values.length > 1) throw damaged('the link names two snapshots (snap= twice)');
  return values.length === 0 ? null : snapshotFromBase64Url(values[0]);
}

/** A link's snapshot value (`snap=`, `compare-snap=`) as bytes; throws, saying why, when it cannot be one. */
export function snapshotFromBase64Url(value: string): Uint8Array {
  if (value.length > (MAX_FILE_BYTES / 3) * 4) throw damaged('the link is far too long');
  const bytes = fromBase64Url(value);
  if (!bytes) throw damaged('the link contains characters that do not belong to a snapshot');
  return bytes;
}

/** The shareable link: the page address, the view's permalink and `snap=` (base64url). */
export function snapshotLink(base: string, view: ViewState, snapshot: string): string {
  const state = storedView(view);
  return `${base}#${state ? `${state}&` : ''}snap=${snapshot}`;
}

// ——— Snapshot files (.tcpscope.json) ———

export const SNAPSHOT_FILE_SUFFIX = '.tcpscope.json';

/**
 * The file's wrapper names the format of the bytes it holds (their header's fifth byte,
 * wasm/src/share/format.rs) for people who open it; the reader trusts only the bytes.
 */
export function snapshotFileText(snapshot: string): string {
  // Eight base64url characters are the first six bytes: no need to decode the rest.
  const version = fromBase64Url(snapshot.slice(0, 8))?.[4] ?? null;
  return JSON.stringify({ tcpscope: 'snapshot', version, data: snapshot });
}

export function snapshotFileName(name: string): string {
  return `${fileStem(name)}${SNAPSHOT_FILE_SUFFIX}`;
}

export function isSnapshotFileName(name: string): boolean {
  return name.toLowerCase().endsWith(SNAPSHOT_FILE_SUFFIX);
}

/** The snapshot bytes inside a .tcpscope.json file; throws SnapshotError with a readable message. */
export async function readSnapshotFile(blob: Blob): Promise<Uint8Array> {
  if (blob.size > MAX_FILE_BYTES) throw new SnapshotError('This file is too large to be a tcpscope snapshot.');
  let file: unknown;
  try {
    file = JSON.parse(await blob.text());
  } catch {
    throw new SnapshotError('This file is not a tcpscope snapshot (it is not JSON).');
  }
  const f = file as { tcpscope?: unknown; data?: unknown } | null;
  if (typeof f !== 'object' || f === null || f.tcpscope !== 'snapshot') {
    throw new SnapshotError('This file is not a tcpscope snapshot.');
  }
  const bytes = typeof f.data === 'string' ? fromBase64Url(f.data) : null;
  if (!bytes) throw damaged('its data field is not base64url');
  return bytes;
}

export function downloadSnapshot(snapshot: string, name: string): void {
  downloadBlob(new Blob([snapshotFileText(snapshot)], { type: 'application/json' }), snapshotFileName(name));
}

export { toBase64Url };
