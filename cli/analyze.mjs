// `tcpscope analyze`: one capture → a human summary, `--json` (the schema-1 report) or
// `--ndjson` (a header line, then one line per connection); several captures or a
// directory → NDJSON rows carrying each capture's name (docs/FLEET.md queries them).
//
// Nothing is built as one big string: the wasm session hands out the header and one
// connection at a time (WasmSession.headerJson / connectionJson), written with
// backpressure, so a capture of a million connections streams into `jq` or DuckDB.
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatHuman } from './format.mjs';
import { loadWasm, openCapture, pushStream } from './wasm.mjs';
import { BatchedWriter } from './output.mjs';
import { escapeUnsafe, jsonSafe } from './outsideText.mjs';

export const ANALYZE_USAGE = `usage: tcpscope analyze CAPTURE... [--json | --ndjson] [--stall-ms N]

  CAPTURE       a .pcap or .pcapng file (gzip-compressed is fine), a pipe or FIFO,
                '-' for standard input, or a directory (its captures, recursively:
                regular files only, symbolic links to folders not followed)
  --json        print the schema-1 JSON report instead of the human summary
  --ndjson      one JSON line with the capture's info ("record":"capture"), then one
                line per connection ("record":"connection"); each carries "file".
                The default for several captures or a directory
  --stall-ms N  stall threshold in ms (default: max(10 ms, 4 x min RTT))`;

export class UsageError extends Error {}
/** A capture that cannot be read: one line on stderr, never a stack trace. */
export class InputError extends Error {}

/** Names a directory walk takes as captures, and hidden files and folders it skips (.git). */
const CAPTURE_NAME = /\.(pcap|pcapng|cap|dmp)(\.gz)?$/i;
const HIDDEN = /(^|[\\/])\./;

export function parseAnalyzeArgs(args) {
  const options = { format: 'human', stallMs: Number.NaN, captures: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--json' || arg === '--ndjson') {
      if (options.format !== 'human' && options.format !== arg.slice(2)) throw new UsageError('say --json or --ndjson, not both');
      options.format = arg.slice(2);
    } else if (arg === '--stall-ms') {
      const value = Number(args[++i]);
      if (!(value > 0) || !Number.isFinite(value)) throw new UsageError(`--stall-ms needs a positive number of milliseconds, got '${args[i] ?? ''}'`);
      options.stallMs = value;
    } else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option '${arg}'`);
    else options.captures.push(arg);
  }
  if (options.captures.length === 0) throw new UsageError('missing CAPTURE');
  return options;
}

/** The captures named on the command line, directories expanded (sorted), with the
 * entries of a directory walk that were skipped (`{ file, reason }`); throws InputError
 * for a name that does not exist or a directory without captures. A name given on the
 * command line is read whatever it is (a FIFO, /dev/stdin: `analyze` reads pipes). */
export async function listCaptures(names) {
  const found = [];
  const skipped = [];
  let directory = false;
  for (const name of names) {
    if (name === '-') {
      found.push(name);
      continue;
    }
    const info = await stat(name).catch((error) => {
      throw new InputError(`cannot open '${escapeUnsafe(name)}': ${reason(error)}`);
    });
    if (!info.isDirectory()) {
      found.push(name);
      continue;
    }
    directory = true;
    const walked = await walkDirectory(name);
    skipped.push(...walked.skipped);
    if (walked.captures.length === 0) throw new InputError(`no capture files (.pcap, .pcapng, .cap, .gz of these) in directory '${escapeUnsafe(name)}'`);
    found.push(...walked.captures);
  }
  return { captures: found, skipped, fleet: directory || found.length > 1 };
}

/** Most files a directory walk looks at (a documented cap: a walk of a whole disk ends). */
export const MAX_WALK_ENTRIES = 1_000_000;

/**
 * The captures under `root` (issue 45, item 5): regular files with a capture's name, and
 * symbolic links to such files, each file once (by device and inode: two links to one
 * capture are one capture, not two rows of fleet statistics). Symbolic links to
 * directories are not followed (two links to `.` made `readdir({ recursive })` walk for
 * ever); FIFOs, sockets and devices are skipped with a reason, never opened (opening a
 * FIFO blocks until a writer comes). Hidden files and folders (.git) are skipped silently.
 */
export async function walkDirectory(root) {
  const captures = [];
  const skipped = [];
  const seen = new Set();
  let looked = 0;
  const visit = async (dir) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
      if (dir === root) throw new InputError(`cannot read directory '${escapeUnsafe(root)}': ${reason(error)}`);
      skipped.push({ file: dir, reason: `directory not readable: ${reason(error)}` });
      return [];
    });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (HIDDEN.test(entry.name)) continue;
      if (++looked > MAX_WALK_ENTRIES) {
        skipped.push({ file: dir, reason: `walk stopped after ${MAX_WALK_ENTRIES.toLocaleString('en-US')} entries` });
        return;
      }
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        await visit(path);
        continue;
      }
      if (!CAPTURE_NAME.test(entry.name)) continue;
      // Links are looked at after the walk: a file reached both by its own name and by a
      // link is listed under its own name.
      if (entry.isSymbolicLink()) links.push(path);
      else consider(path, await lstat(path).catch((error) => ({ error })), false);
    }
  };
  const consider = (path, info, link) => {
    if (info.error) {
      skipped.push({ file: path, reason: link ? `broken symbolic link (${reason(info.error)})` : reason(info.error) });
    } else if (info.isDirectory()) {
      skipped.push({ file: path, reason: 'a symbolic link to a directory, not followed' });
    } else if (!info.isFile()) {
      skipped.push({ file: path, reason: `not a regular file (${kindOf(info)}), not opened` });
    } else if (seen.has(`${info.dev}:${info.ino}`)) {
      skipped.push({ file: path, reason: 'the same file as one listed before (a link)' });
    } else {
      seen.add(`${info.dev}:${info.ino}`);
      captures.push(path);
    }
  };
  const links = [];
  await visit(root);
  for (const path of links) consider(path, await stat(path).catch((error) => ({ error })), true);
  captures.sort();
  return { captures, skipped };
}

function kindOf(info) {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a file';
}

/** Runs `tcpscope analyze ARGS`; sets process.exitCode: 0 ok, 1 a capture is damaged
 * (its partial result is still printed, with `error` set), 2 usage or unreadable input. */
export async function runAnalyze(args, out = process.stdout, err = process.stderr) {
  const options = parseAnalyzeArgs(args);
  const { captures, skipped, fleet } = await listCaptures(options.captures);
  if (fleet && options.format === 'json') throw new UsageError('--json takes one capture; several captures or a directory give --ndjson rows');
  const format = fleet ? 'ndjson' : options.format;
  const loaded = await loadWasm();
  if (!loaded) throw new InputError('the wasm module is not built yet; run `npm run build:wasm` (or `npm start`) first');
  let status = 0;
  // A skipped entry is a row of its own (record "skipped"), so a fleet query sees what was
  // left out; the human form notes it on stderr.
  for (const { file, reason: why } of skipped) {
    if (format === 'ndjson') out.write(`${jsonSafe(JSON.stringify({ record: 'skipped', file, reason: why }))}\n`);
    else err.write(`tcpscope: note: skipped '${escapeUnsafe(file)}': ${why}\n`);
  }
  for (const name of captures) {
    const session = new loaded.wasm.WasmSession(options.stallMs);
    try {
      await pushStream(session, openCapture(name));
      session.finish();
      const damaged = await print(session, name, format, out);
      status = Math.max(status, damaged ? 1 : 0);
    } catch (error) {
      if (!isReadError(error)) throw error;
      // One capture of a fleet that cannot be read does not stop the others.
      err.write(`tcpscope: cannot read '${escapeUnsafe(name)}': ${escapeUnsafe(reason(error))}\n`);
      status = 2;
    } finally {
      session.free();
    }
  }
  process.exitCode = status;
}

/** Prints one analysed capture; returns whether it was damaged. */
async function print(session, name, format, out) {
  const header = session.headerJson();
  const count = JSON.parse(header).connectionCount;
  const connection = (i) => session.connectionJson(i);
  // Every line passes the sanitizer's JSON form: the same JSON values, with DEL, C1 and
  // bidi controls as \u escapes, so a capture's fields cannot drive a terminal (issue 45).
  const writer = { add: (text) => batched.add(jsonSafe(text)), flush: () => batched.flush() };
  const batched = new BatchedWriter(out);
  if (format === 'ndjson') {
    // `record` and `file` lead each line, spliced in front of the engine's own JSON.
    const file = JSON.stringify(name);
    await writer.add(`{"record":"capture","file":${file},${header.slice(1)}\n`);
    for (let i = 0; i < count; i++) await writer.add(`{"record":"connection","file":${file},${connection(i).slice(1)}\n`);
  } else if (format === 'json') {
    // Exactly JSON.stringify(report, null, 2), one connection at a time.
    const { connectionCount: _, ...report } = JSON.parse(header);
    await writer.add(`${JSON.stringify(report, null, 2).slice(0, -2)},\n  "connections": [`);
    for (let i = 0; i < count; i++) {
      await writer.add(`${i ? ',' : ''}\n    ${JSON.stringify(JSON.parse(connection(i)), null, 2).replaceAll('\n', '\n    ')}`);
    }
    await writer.add(`${count ? '\n  ' : ''}]\n}\n`);
  } else {
    const { connectionCount: _, ...report } = JSON.parse(header);
    report.connections = Array.from({ length: count }, (_, i) => JSON.parse(connection(i)));
    await writer.add(formatHuman(name, report));
  }
  await writer.flush();
  return JSON.parse(header).error !== null;
}

const READ_ERRORS = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'EIO', 'ENXIO', 'ELOOP', 'ENAMETOOLONG', 'ENOTDIR']);
/** Errors of reading the input (fs, zlib), as opposed to bugs. */
function isReadError(error) {
  return READ_ERRORS.has(error?.code) || String(error?.code ?? '').startsWith('Z_');
}

function reason(error) {
  const words = { ENOENT: 'no such file', EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'is a directory' };
  if (words[error?.code]) return words[error.code];
  if (String(error?.code ?? '').startsWith('Z_')) return `damaged gzip data (${error.message})`;
  return error?.message ?? String(error);
}

