// `tcpscope share`: the page's Share link, made from the shell (issue 15). The wasm
// share module (wasm/src/share) asks the view engine the shared view's questions and
// packs the answers into a link of at most 8 KB; the link opens in the page without
// the capture. `openViewSource` also lets `tcpscope series` read such a link.
import { existsSync, readFileSync } from 'node:fs';
import { loadWasm, openCapture, pushStream } from './wasm.mjs';

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

/** Runs `tcpscope share ARGS`: prints the link; exit 0, 1 (damaged capture), 2 (usage). */
export async function runShare(args, out = process.stdout, err = process.stderr) {
  let o;
  try {
    o = parseShareArgs(args);
  } catch (e) {
    if (!(e instanceof ShareUsageError)) throw e;
    err.write(`tcpscope: ${e.message}\n${SHARE_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (!existsSync(o.capture)) {
    err.write(`tcpscope: cannot open '${o.capture}': no such file\n`);
    process.exitCode = 2;
    return;
  }
  const loaded = await loadWasm();
  if (!loaded || typeof loaded.wasm.shareSnapshot !== 'function') {
    err.write('tcpscope: the wasm module is not built (or predates `share`); run `npm run build:wasm` first\n');
    process.exitCode = 2;
    return;
  }
  const { wasm } = loaded;
  const session = new wasm.WasmSession(Number.NaN);
  try {
    await pushStream(session, await openCapture(o.capture));
    session.finish();
    const report = JSON.parse(session.reportJson());
    const view = viewFragment(o);
    const name = o.capture.split('/').pop();
    const spec = { connection: o.connection, t0: o.from, t1: o.to, charts: o.charts, series: o.pipe ? ['pipe'] : [], columns: o.columns, name, view, generation: 1 };
    const made = JSON.parse(wasm.shareSnapshot(session, JSON.stringify(spec)));
    if (made.error) {
      err.write(`tcpscope: ${made.error}\n`);
      process.exitCode = 2;
      return;
    }
    const link = `${o.base}#${view}&snap=${made.snapshot}`;
    err.write(`tcpscope: link of ${link.length} bytes, shared at ${made.columns} px\n`);
    out.write(`${link}\n`);
    process.exitCode = report.error ? 1 : 0;
  } finally {
    session.free();
  }
}

/** True when `arg` is a share link or a file holding one (or snapshot bytes). */
export function isSnapshotSource(arg) {
  if (/[#&]snap=/.test(arg)) return true;
  if (!existsSync(arg)) return false;
  const head = readFileSync(arg).subarray(0, 4096);
  return head.subarray(0, 4).toString('latin1') === 'TCPS' || /snap=/.test(head.toString('latin1'));
}

/** A share link (text, or a file with the link or the raw snapshot) as a wasm view source. */
export function openSnapshot(wasm, arg) {
  if (/[#&]snap=/.test(arg)) return wasm.WasmSnapshot.fromLink(arg);
  const bytes = readFileSync(arg);
  if (bytes.subarray(0, 4).toString('latin1') === 'TCPS') return new wasm.WasmSnapshot(bytes);
  return wasm.WasmSnapshot.fromLink(bytes.toString('utf8').trim());
}
