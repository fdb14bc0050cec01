// `tcpscope share`: the page's Share link, made from the shell (issue 15). The wasm
// share module (wasm/src/share) asks the view engine the shared view's questions and
// packs the answers into a link of at most 8 KB; the link opens in the page without
// the capture. `openViewSource` also lets `tcpscope series` read such a link.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { escapeUnsafe } from './outsideText.mjs';
import { loadWasm, openCapture, pushStream } from './wasm.mjs';
import { fail } from './errors.mjs';
import { ask } from '../web/worker/ask.mjs';

export const SHARE_USAGE = `usage: tcpscope share CAPTURE --connection N [--from S] [--to S] [--columns W]
                      [--charts LIST] [--pipe] [--base URL]

  --charts LIST comma-separated: throughput,inflight,stalls,sequence,rtt,events (default: all)
  --pipe        the SACK-adjusted pipe on the in-flight chart too (the page's #pipe=1)
  --columns W   the link's pixel columns (default 1600; lowered until the link fits 8 KB)
  --base URL    the page address (default https://tcpscope.example/index.html)`;

export class ShareUsageError extends Error {}

export function parseShareArgs(args) {
  const o = { capture: null, connection: null, from: null, to: null, columns: 1600, charts: [], pipe: false, base: 'https://tcpscope.example/index.html' };
  const number = (name, value) => {
    const v = Number(value);
    if (value === undefined || value === '' || !Number.isFinite(v)) throw new ShareUsageError(`${name} needs a number, got '${value ?? ''}'`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--connection') o.connection = number(a, args[++i]);
    else if (a === '--from') o.from = number(a, args[++i]);
    else if (a === '--to') o.to = number(a, args[++i]);
    else if (a === '--columns') o.columns = number(a, args[++i]);
    else if (a === '--charts') o.charts = (args[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--pipe') o.pipe = true;
    else if (a === '--base') o.base = args[++i] ?? o.base;
    else if (a.startsWith('-')) throw new ShareUsageError(`unknown option '${a}'`);
    else if (o.capture === null) o.capture = a;
    else throw new ShareUsageError(`unexpected argument '${a}'`);
  }
  if (o.capture === null) throw new ShareUsageError('missing CAPTURE');
  if (o.connection === null || !Number.isInteger(o.connection) || o.connection < 0) throw new ShareUsageError('missing --connection N');
  return o;
}

/** The page's view fragment for these options (web/state/url.ts serializeView's keys). */
function viewFragment(o) {
  const parts = [`c=${o.connection}`];
  if (o.from !== null && o.to !== null) parts.push(`t=${o.from},${o.to}`);
  if (o.charts.length) parts.push(`charts=${o.charts.join(',')}`);
  if (o.pipe) parts.push('pipe=1');
  return parts.join('&');
}

/** Runs `tcpscope share ARGS`: prints the link; exit 0, 1 (a capture damaged or unreadable), 2 (usage). */
export async function runShare(args, out = process.stdout, err = process.stderr) {
  let o;
  try {
    o = parseShareArgs(args);
  } catch (e) {
    if (!(e instanceof ShareUsageError)) throw e;
    fail(err, e.message, 'share', 2);
    return;
  }
  const problem = inputProblem(o.capture);
  if (problem) {
    fail(err, problem.message, 'share', problem.exitCode);
    return;
  }
  const loaded = await loadWasm();
  if (!loaded || typeof loaded.wasm.WasmSession?.prototype?.ask !== 'function') {
    fail(err, 'the wasm module is not built (or predates `share`); run `npm run build:wasm` first', 'share', 1);
    return;
  }
  const { wasm } = loaded;
  const session = new wasm.WasmSession(Number.NaN);
  try {
    await pushStream(session, await openCapture(o.capture));
    session.finish();
    const report = ask(session, { ask: 'report' });
    const view = viewFragment(o);
    const name = o.capture.split('/').pop();
    const spec = { connection: o.connection, t0: o.from, t1: o.to, charts: o.charts, series: o.pipe ? ['pipe'] : [], columns: o.columns, name, view, generation: 1 };
    const made = ask(session, { ask: 'share', spec });
    if (made.error) {
      fail(err, made.error, 'share', 2);
      return;
    }
    const link = `${o.base}#${view}&snap=${made.snapshot}`;
    err.write(`tcpscope: link of ${link.length} bytes, shared at ${made.columns} px\n`);
    out.write(`${link}\n`);
    process.exitCode = report.error ? 1 : 0;
  } catch (e) {
    // A read error (EACCES, a damaged gzip stream) or the engine's refusal: one line, no stack.
    fail(err, `cannot share '${escapeUnsafe(o.capture)}': ${e?.message ?? String(e)}`, 'share', 1);
  } finally {
    session.free();
  }
}

/** Why `path` cannot be read as a capture (`{ message, exitCode }`: a one-line refusal, 1
 *  for a file that cannot be opened, 2 for a directory where one capture is wanted), or
 *  null: checked before any work, so a folder or a missing file never reaches the decoder
 *  (issue 45, item 3; issue 42, item 3). */
export function inputProblem(path) {
  if (path === '-') return null;
  let info;
  try {
    info = statSync(path);
  } catch (e) {
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : escapeUnsafe(e.message);
    return { message: `cannot open '${escapeUnsafe(path)}': ${why}`, exitCode: 1 };
  }
  if (info.isDirectory()) return { message: `cannot open '${escapeUnsafe(path)}': it is a directory (give one capture file)`, exitCode: 2 };
  return null;
}

/** Longest file read as a link's text (a link is at most a few KB; a 1 MB file is not one). */
const MAX_LINK_FILE_BYTES = 1 << 20;
/** .tcpscope.json files as the page writes them (web/share/snapshot.ts). */
const SNAPSHOT_FILE = /\.tcpscope\.json$/i;
/** A link as text: an address with a fragment, or a bare fragment, naming snap=. */
const LINK_TEXT = /^(?:[a-z][a-z0-9+.-]*:\/\/[^\s#]*#|#)[^\s]*$/i;

/** The first bytes of a capture (pcap in either byte order and nanosecond form, pcapng's
 *  Section Header Block, gzip: RFC 1952 §2.3.1). */
export function isCaptureMagic(head) {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  if (head.length < 4) return false;
  const magic = head.readUInt32BE(0);
  return [0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1, 0x0a0d0d0a].includes(magic);
}

/**
 * What `arg` is (issue 45, item 4): told apart by what it is, never by searching a file's
 * payload for `snap=` (a capture of an HTTP request carrying a tcpscope link is a capture).
 *  - 'link': an address or fragment on the command line (…#…snap=…);
 *  - 'snapshot-file': a .tcpscope.json file, or a file of snapshot bytes ("TCPS");
 *  - 'link-file': a small file whose whole text is one such link (a saved link);
 *  - 'capture': anything else ('-', a file starting with a capture's magic number, or a
 *    file the decoder will name as not a capture).
 * An existing file is always read as a file, whatever its name holds.
 */
export function sourceKind(arg) {
  if (arg === '-') return 'capture';
  if (!existsSync(arg)) return LINK_TEXT.test(arg) && /[#&]snap=/.test(arg) ? 'link' : 'capture';
  if (SNAPSHOT_FILE.test(arg)) return 'snapshot-file';
  let head;
  try {
    head = readHead(arg, 8);
  } catch {
    return 'capture';
  }
  if (isCaptureMagic(head)) return 'capture';
  if (head.subarray(0, 4).toString('latin1') === 'TCPS') return 'snapshot-file';
  const text = linkText(arg);
  return text !== null ? 'link-file' : 'capture';
}

/** True when `arg` is a share link or a file holding one (see sourceKind). */
export function isSnapshotSource(arg) {
  return sourceKind(arg) !== 'capture';
}

function readHead(path, n) {
  const fd = openSync(path, 'r');
  try {
    // A FIFO or a device is not a link file: never block on it.
    if (!fstatSync(fd).isFile()) return Buffer.from([0]);
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

/** The link a small text file holds as its whole content, or null. */
export function linkText(path) {
  if (statSync(path).size > MAX_LINK_FILE_BYTES) return null;
  const text = readFileSync(path, 'utf8').trim();
  return LINK_TEXT.test(text) && /[#&]snap=/.test(text) ? text : null;
}

/** A share link (text, or a file with the link or the raw snapshot) as a wasm view source. */
export function openSnapshot(wasm, arg) {
  const kind = sourceKind(arg);
  if (kind === 'link') return wasm.WasmSnapshot.fromLink(arg);
  if (kind === 'link-file') return wasm.WasmSnapshot.fromLink(linkText(arg));
  const bytes = readFileSync(arg);
  if (bytes.subarray(0, 4).toString('latin1') === 'TCPS') return new wasm.WasmSnapshot(bytes);
  return new wasm.WasmSnapshot(snapshotFileBytes(bytes));
}

/** The snapshot bytes of a .tcpscope.json file ({"tcpscope":"snapshot","data":base64url}),
 *  as the page reads it (web/share/snapshot.ts readSnapshotFile). */
function snapshotFileBytes(bytes) {
  if (bytes.length > 64 * 1024 * 1024) throw new Error('This file is too large to be a tcpscope snapshot.');
  let file;
  try {
    file = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error('This file is not a tcpscope snapshot (it is not JSON).');
  }
  if (typeof file !== 'object' || file === null || file.tcpscope !== 'snapshot' || typeof file.data !== 'string' || !/^[A-Za-z0-9_-]*$/.test(file.data)) {
    throw new Error('This file is not a tcpscope snapshot.');
  }
  return Buffer.from(file.data, 'base64url');
}
