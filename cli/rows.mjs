// The output of one analysed capture, shared by the one-capture path (cli/analyze.mjs)
// and the workers of a fleet (cli/analyze-worker.mjs): the human summary, the schema-1
// JSON report, or NDJSON rows (compact by default, the full connection object with
// `--ndjson=full`; docs/FLEET.md).
//
// Nothing is built as one big string: the wasm session hands out the header and one
// connection at a time (the questions `header`, `connection`, `compactRow`),
// and every number of a row comes from there: this file only splices `record` and `file`
// in front of the engine's own JSON.
import { formatHuman } from './format.mjs';
import { jsonSafe } from './outsideText.mjs';
import { askText } from '../web/worker/ask.mjs';

/** Output formats: `ndjson` is the compact row, `ndjson-full` the whole connection. */
export const FORMATS = ['human', 'json', 'ndjson', 'ndjson-full'];

/**
 * Writes the analysed `session` of capture `name` to `sink` (`add(text)`, `flush()`,
 * both possibly async: a stream with backpressure, or a worker's port); returns whether
 * the capture was damaged (`error` set in the report).
 */
export async function writeCapture(session, name, format, sink) {
  const source = {
    header: askText(session, { ask: 'header' }),
    row: (ask, index) => askText(session, { ask, index }),
  };
  return writeReport(source, name, format, sink);
}

/**
 * `writeCapture` from a `source` of the report: `header` (the header line's JSON) and
 * `row(ask, index)` giving connection `index` as `compactRow` or `connection` JSON, at
 * once or as a promise (the shards of one capture, cli/shards.mjs). Rows are asked in
 * order, each once.
 */
export async function writeReport(source, name, format, sink) {
  const { header } = source;
  const count = JSON.parse(header).connectionCount;
  // Every line passes the sanitizer's JSON form: the same JSON values, with DEL, C1 and
  // bidi controls as \u escapes, so a capture's fields cannot drive a terminal (issue 45).
  const add = (text) => sink.add(jsonSafe(text));
  if (format === 'ndjson' || format === 'ndjson-full') {
    // `record` and `file` lead each line, spliced in front of the engine's own JSON.
    const file = JSON.stringify(name);
    const ask = format === 'ndjson' ? 'compactRow' : 'connection';
    await add(`{"record":"capture","file":${file},${header.slice(1)}\n`);
    for (let i = 0; i < count; i++) await add(`{"record":"connection","file":${file},${(await source.row(ask, i)).slice(1)}\n`);
  } else if (format === 'json') {
    // Exactly JSON.stringify(report, null, 2), one connection at a time.
    const { connectionCount: _, ...report } = JSON.parse(header);
    await add(`${JSON.stringify(report, null, 2).slice(0, -2)},\n  "connections": [`);
    for (let i = 0; i < count; i++) {
      await add(`${i ? ',' : ''}\n    ${JSON.stringify(JSON.parse(await source.row('connection', i)), null, 2).replaceAll('\n', '\n    ')}`);
    }
    await add(`${count ? '\n  ' : ''}]\n}\n`);
  } else {
    const { connectionCount: _, ...report } = JSON.parse(header);
    report.connections = [];
    for (let i = 0; i < count; i++) report.connections.push(JSON.parse(await source.row('connection', i)));
    await add(formatHuman(name, report));
  }
  await sink.flush();
  return JSON.parse(header).error !== null;
}

/** The row of a capture that could not be read at all (a fleet goes on without it):
 * the capture line's shape, `capture` null, `error.kind` "unreadable" (docs/FLEET.md). */
export function unreadableRow(name, message) {
  const error = { message, packetIndex: null, byteOffset: null, layer: null, kind: 'unreadable' };
  return `${jsonSafe(JSON.stringify({ record: 'capture', file: name, schemaVersion: 1, capture: null, error, warnings: [], connectionCount: 0 }))}\n`;
}

const READ_ERRORS = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'EIO', 'ENXIO', 'ELOOP', 'ENAMETOOLONG', 'ENOTDIR']);
/** Errors of reading the input (fs, zlib), as opposed to bugs. */
export function isReadError(error) {
  return READ_ERRORS.has(error?.code) || String(error?.code ?? '').startsWith('Z_');
}

/** Why a read failed, in words. */
export function reason(error) {
  const words = { ENOENT: 'no such file', EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'is a directory' };
  if (words[error?.code]) return words[error.code];
  if (String(error?.code ?? '').startsWith('Z_')) return `damaged gzip data (${error.message})`;
  return error?.message ?? String(error);
}
