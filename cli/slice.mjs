// `tcpscope slice`: Save for Wireshark (issue 42, item 6). The packets of one connection
// (or of a time range of it), or of several (`--connection` again: the compare view's
// pair of one capture, in one pass), copied out of a capture into a pcapng file, with their
// original bytes and timestamps; a pcapng's interface descriptions and comments are
// kept. The selection is the wasm module's (wasm/src/slice.rs: the report's connection
// numbering, Wireshark's port-reuse rule); this file only streams: the capture is read
// in chunks (cli/wasm.mjs openCapture, gzip too, under the inflate caps the analysis
// applies: wasm/src/inflate.rs), each chunk's pcapng bytes are written
// before the next chunk is read, so memory stays at one chunk and one record whatever
// the capture's size. The file is written under a temporary name and renamed at the
// end: it is whole or absent.
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import { loadWasm, openCapture } from './wasm.mjs';
import { inputProblem } from './share.mjs';
import { outProblem } from './render.mjs';
import { escapeUnsafe } from './outsideText.mjs';
import { failureLines } from './errors.mjs';

export const SLICE_USAGE = `usage: tcpscope slice CAPTURE --connection N [--connection M …] [--from S] [--to S] --out FILE.pcapng

  Save for Wireshark: the packets of connection N (the id tcpscope analyze and the page
  show), optionally only those from --from to --to (seconds since the first packet of
  the file, as the charts' time axis), with their original bytes and timestamps, as a
  pcapng file. A pcapng capture keeps its interface descriptions and comments.
  --connection again adds another connection of the same capture (a compare pair),
  all in one pass; each must have packets in the range. A gzip capture is read as it
  inflates, under the same caps as analyze (2 GiB inflated, 200:1).`;

class SliceUsageError extends Error {}
class SliceError extends Error {
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

export function parseSliceArgs(args) {
  const o = { source: null, connections: [], from: null, to: null, out: null };
  const number = (name, value, ok, what) => {
    const v = Number(value);
    if (value === undefined || value === '' || !Number.isFinite(v) || !ok(v)) throw new SliceUsageError(`${name} needs ${what}, got '${escapeUnsafe(value ?? '')}'`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new SliceUsageError(`${a} needs a value`);
      return args[++i];
    };
    if (a === '--connection') {
      const id = number(a, value(), (v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32, 'a connection id (a whole number)');
      if (o.connections.includes(id)) throw new SliceUsageError(`--connection ${id} is given twice`);
      o.connections.push(id);
    }
    else if (a === '--from') o.from = number(a, value(), () => true, 'a number of seconds');
    else if (a === '--to') o.to = number(a, value(), () => true, 'a number of seconds');
    else if (a === '--out') o.out = value();
    else if (a.startsWith('-') && a !== '-') throw new SliceUsageError(`unknown option '${escapeUnsafe(a)}'`);
    else if (o.source === null) o.source = a;
    else throw new SliceUsageError(`unexpected argument '${escapeUnsafe(a)}'`);
  }
  if (o.source === null) throw new SliceUsageError('missing CAPTURE');
  if (o.connections.length === 0) throw new SliceUsageError('missing --connection N');
  if (o.out === null) throw new SliceUsageError('missing --out FILE.pcapng');
  if (o.from !== null && o.to !== null && !(o.to >= o.from)) throw new SliceUsageError('--to must not be before --from');
  return o;
}

/**
 * Streams `chunks` (an async iterable of bytes, or of openCapture's `{ bytes,
 * compressedBytes }`: inflated gzip goes through the inflate caps) through a wasm
 * slicer of `connections` (or one `connection`); `write(bytes)` receives each chunk's
 * pcapng bytes and is awaited before the next chunk is pulled. Returns the slicer's
 * stats (`kept`: packets per connection, in order) and `peakBuffer` (the most bytes it
 * held for an incomplete record). Throws the decoder's sentence for a damaged capture.
 */
export async function sliceStream(wasm, chunks, { connection, connections = [connection], from = null, to = null }, write) {
  const bound = (s) => s ?? Number.NaN;
  const slicer = new wasm.WasmSlicer(connections[0], bound(from), bound(to));
  try {
    for (const id of connections.slice(1)) slicer.also(id, bound(from), bound(to));
    for await (const chunk of chunks) {
      const out = chunk.compressedBytes != null ? slicer.pushInflated(chunk.bytes, chunk.compressedBytes) : slicer.push(chunk.bytes ?? chunk);
      if (out.length) await write(out);
    }
    const stats = JSON.parse(slicer.finish());
    return { ...stats, peakBuffer: slicer.peakBuffer() };
  } finally {
    slicer.free();
  }
}

/** Runs `tcpscope slice ARGS`; sets process.exitCode (0 written, 1 damaged or no such connection, 2 usage). */
export async function runSlice(args, err = process.stderr, stdout = process.stdout) {
  let temp = null;
  try {
    const o = parseSliceArgs(args);
    // inputProblem answers { message, exitCode } (1: the capture cannot be opened), outProblem a sentence.
    const input = inputProblem(o.source);
    if (input) throw new SliceError(input.message, input.exitCode);
    const output = outProblem(o.out, o.source);
    if (output) throw new SliceError(output, 2);
    const loaded = await loadWasm();
    if (!loaded || typeof loaded.wasm.WasmSlicer?.prototype?.also !== 'function') throw new SliceError('the wasm module is not built (or predates `slice`); run `npm run build:wasm` first', 2);
    temp = join(dirname(resolve(o.out)), `.${basename(o.out)}.${process.pid}.tmp`);
    const file = createWriteStream(temp);
    // A write error (disk full) is kept and thrown from the next write.
    let failed = null;
    file.on('error', (e) => { failed = e; });
    const write = async (bytes) => {
      if (failed) throw failed;
      if (!file.write(bytes)) await Promise.race([once(file, 'drain'), once(file, 'error')]);
    };
    let stats;
    try {
      stats = await sliceStream(loaded.wasm, openCapture(o.source), o, write);
    } catch (e) {
      file.destroy();
      if (e?.code) throw new SliceError(`cannot read '${escapeUnsafe(o.source)}': ${escapeUnsafe(e.message)}`, 1);
      throw new SliceError(`cannot slice '${escapeUnsafe(o.source)}': ${escapeUnsafe(e?.message ?? String(e))}`, 1);
    }
    file.end();
    await once(file, 'close');
    if (failed) throw new SliceError(`cannot write '${escapeUnsafe(o.out)}': ${escapeUnsafe(failed.message)}`, 2);
    // Every connection asked for must be there: a pair with one side missing is not the pair.
    const missing = o.connections.filter((_, i) => !(stats.kept?.[i] > 0));
    if (missing.length) {
      const which = stats.connections ? `connections: 0..${stats.connections - 1}` : 'it holds no TCP connection';
      const range = o.from !== null || o.to !== null ? ` between ${o.from ?? 'its start'} and ${o.to ?? 'its end'} s` : '';
      throw new SliceError(`no packet of connection ${missing.join(' or ')}${range} in '${escapeUnsafe(o.source)}' (${which}); nothing was written`, 1);
    }
    renameSync(temp, o.out);
    temp = null;
    const count = (n) => n.toLocaleString('en-US');
    const what = o.connections.length === 1
      ? `packets of connection ${o.connections[0]} (of`
      : `packets of connections ${o.connections.join(', ')} (${stats.kept.map(count).join(' + ')}; of`;
    stdout.write(`${escapeUnsafe(o.out)}: ${count(stats.packetsKept)} ${what} ${count(stats.packetsRead)} read), ${count(stats.bytesWritten)} bytes\n`);
    process.exitCode = 0;
  } catch (e) {
    // One line naming what and where, then where to read the usage (issue 42 item 3).
    if (e instanceof SliceUsageError) {
      err.write(failureLines(e.message, 'slice'));
      process.exitCode = 2;
    } else if (e instanceof SliceError) {
      err.write(failureLines(e.message, 'slice'));
      process.exitCode = e.exitCode;
    } else {
      err.write(`tcpscope: the slice could not be made: ${escapeUnsafe(e?.message ?? String(e))}\n`);
      process.exitCode = 1;
    }
  } finally {
    if (temp) rmSync(temp, { force: true });
  }
}
