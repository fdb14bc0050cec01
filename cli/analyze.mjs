// `tcpscope analyze`: one capture → a human summary, `--json` (the schema-1 report) or
// `--ndjson` (a header line, then one compact line per connection; `--ndjson=full` for
// the whole connection object); several captures or a directory → NDJSON rows carrying
// each capture's name, analysed by a pool of worker threads (cli/pool.mjs;
// docs/FLEET.md queries the rows). The rows themselves are written by cli/rows.mjs.
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWasm, openCapture, pushStream } from './wasm.mjs';
import { BatchedWriter } from './output.mjs';
import { escapeUnsafe, jsonSafe } from './outsideText.mjs';
import { isReadError, reason, writeCapture } from './rows.mjs';
import { analyzeInPool, defaultJobs } from './pool.mjs';
import { analyzeSharded } from './shards.mjs';
import { InputError, UsageError } from './errors.mjs';
import { runTwin } from './twin.mjs';
import { runVantageByInterface } from './vantage.mjs';

export const ANALYZE_USAGE = `usage: tcpscope analyze CAPTURE... [--json | --ndjson[=full]] [--jobs N] [--stall-ms N]
       tcpscope analyze CAPTURE [--json | --ndjson[=full]] --shards N [--stall-ms N]
       tcpscope analyze CLIENT.pcap --other-end SERVER.pcap [--json] [--stall-ms N]
       tcpscope analyze MERGED.pcapng --vantage-by-interface [--json] [--stall-ms N]

  CAPTURE        a .pcap or .pcapng file (gzip-compressed is fine), a pipe or FIFO,
                 '-' for standard input, or a directory (its captures, recursively:
                 regular files only, symbolic links to folders not followed)
  --json         print the schema-1 JSON report instead of the human summary
  --ndjson       one JSON line with the capture's info ("record":"capture"), then one
                 compact line per connection ("record":"connection"); each carries
                 "file". The default for several captures or a directory
  --ndjson=full  the same, with the whole connection object of --json on each line
  --jobs N       captures analysed at once, one worker thread each (default: the
                 number of CPUs Node may use); one capture uses one thread
  --shards N     one capture file's connections analysed by N threads (default 1):
                 each reads the whole file and analyses the connections whose
                 addresses and ports hash to it; the output is the same as with one
                 thread. A capture where something measured across connections
                 differs by shard (docs/FLEET.md "One capture on several cores") is
                 analysed in one thread, with a note on stderr. A single connection
                 gains nothing
  --stall-ms N   stall threshold in ms (default: max(10 ms, 4 x min RTT))
  --other-end OTHER
                 the same transfer captured at its other end: the two captures are
                 merged (docs/ANALYSIS.md "Two vantage points": how they matched, the
                 clock offset, what was lost or reordered between the two points, the
                 one-way delays, where each stall happened); --json prints the merge's
                 report. Either capture may be given first. Each is kept in memory for
                 the merge, up to 256 MiB
  --vantage-by-interface
                 one pcapng holding both ends: two of its interfaces carry the same
                 TCP segments (\`mergecap -I none -w MERGED.pcapng CLIENT.pcap
                 SERVER.pcap\`; mergecap's default joins identical interfaces into
                 one, which cannot be split), or a host captured two interfaces of one
                 path. Its packets are split by interface and merged as --other-end
                 merges two files; the file is read twice, so not from a pipe`;

/** Read size of the one-capture path: 4 MiB, as a fleet's workers read (cli/analyze-worker.mjs),
 * not the page's 16 MiB (cli/wasm.mjs CHUNK_BYTES): Node keeps each read's buffer until a
 * garbage collection, and 16 MiB reads held ~70 MB of them at 100 k connections (peak RSS
 * 722 → 648 MB, docs/FLEET.md "Memory"); the engine still gets ≥ 1 MiB per push. */
const READ_BYTES = 4 << 20;

/** Names a directory walk takes as captures, and hidden files and folders it skips (.git). */
const CAPTURE_NAME = /\.(pcap|pcapng|cap|dmp)(\.gz)?$/i;
const HIDDEN = /(^|[\\/])\./;

/** The formats each flag asks for. */
const FORMAT_FLAGS = { '--json': 'json', '--ndjson': 'ndjson', '--ndjson=compact': 'ndjson', '--ndjson=full': 'ndjson-full' };

export function parseAnalyzeArgs(args) {
  const options = { format: 'human', stallMs: Number.NaN, jobs: null, shards: 1, captures: [], otherEnd: null, byInterface: false };
  const usage = (message) => new UsageError(message, 'analyze');
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (FORMAT_FLAGS[arg]) {
      if (options.format !== 'human' && options.format !== FORMAT_FLAGS[arg]) throw usage(`'${arg}' asks for another format than the one before it: say --json or --ndjson[=full], once`);
      options.format = FORMAT_FLAGS[arg];
    } else if (arg.startsWith('--ndjson=')) {
      throw usage(`--ndjson is compact or full, got '${escapeUnsafe(arg.slice(9))}'`);
    } else if (arg === '--stall-ms') {
      const value = Number(args[++i]);
      if (!(value > 0) || !Number.isFinite(value)) throw usage(`--stall-ms needs a positive number of milliseconds, got '${escapeUnsafe(args[i] ?? '')}'`);
      options.stallMs = value;
    } else if (arg === '--jobs' || arg === '-j') {
      const value = Number(args[++i]);
      if (!Number.isInteger(value) || value < 1 || value > 1024) throw usage(`--jobs needs a whole number of workers from 1 to 1024, got '${escapeUnsafe(args[i] ?? '')}'`);
      options.jobs = value;
    } else if (arg === '--shards') {
      const value = Number(args[++i]);
      if (!Number.isInteger(value) || value < 1 || value > 64) throw usage(`--shards needs a whole number of threads from 1 to 64, got '${escapeUnsafe(args[i] ?? '')}'`);
      options.shards = value;
    } else if (arg === '--other-end') {
      if (options.otherEnd != null) throw usage('--other-end is given once: one capture at each end');
      if (args[i + 1] == null || args[i + 1] === '') throw usage('--other-end needs the capture taken at the other end');
      options.otherEnd = args[++i];
    } else if (arg === '--vantage-by-interface') {
      options.byInterface = true;
    } else if (arg.startsWith('-') && arg !== '-') throw usage(`unknown option '${escapeUnsafe(arg)}'`);
    else options.captures.push(arg);
  }
  if (options.captures.length === 0) throw usage('missing CAPTURE (a capture file, a directory or -)');
  if (options.shards > 1 && (options.otherEnd != null || options.byInterface)) throw usage('--shards splits one capture\'s connections; --other-end and --vantage-by-interface merge two ends');
  if (options.byInterface) {
    if (options.otherEnd != null) throw usage('--vantage-by-interface finds both ends in one file; --other-end gives the other end as a second file: say one of them');
    if (options.captures.length > 1) throw usage('--vantage-by-interface splits one capture: give one CAPTURE');
    if (options.format !== 'human' && options.format !== 'json') throw usage('--vantage-by-interface prints a summary or, with --json, the merge\'s report');
  }
  if (options.otherEnd != null) {
    if (options.captures.length > 1) throw usage('--other-end merges two captures: give one CAPTURE and the one --other-end');
    if (options.format !== 'human' && options.format !== 'json') throw usage('--other-end prints a summary or, with --json, the merge\'s report; --ndjson is for several captures');
  }
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
      throw new InputError(`cannot open '${escapeUnsafe(name)}': ${reason(error)}`, 'analyze');
    });
    if (!info.isDirectory()) {
      found.push(name);
      continue;
    }
    directory = true;
    const walked = await walkDirectory(name);
    skipped.push(...walked.skipped);
    if (walked.captures.length === 0) throw new InputError(`no capture files (.pcap, .pcapng, .cap, .gz of these) in directory '${escapeUnsafe(name)}'`, 'analyze');
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
      if (dir === root) throw new InputError(`cannot read directory '${escapeUnsafe(root)}': ${reason(error)}`, 'analyze');
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
 * (its partial result is still printed, with `error` set) or cannot be read; usage
 * errors throw UsageError (exit 2, bin/tcpscope.mjs). */
export async function runAnalyze(args, out = process.stdout, err = process.stderr) {
  const options = parseAnalyzeArgs(args);
  if (options.otherEnd != null) return runOtherEnd(options, out, err);
  if (options.byInterface) return runVantageByInterface(options.captures[0], options, out, err);
  const { captures, skipped, fleet } = await listCaptures(options.captures);
  if (fleet && options.format === 'json') throw new UsageError('--json takes one capture; several captures or a directory give --ndjson rows', 'analyze');
  if (fleet && options.format === 'human') options.format = 'ndjson';
  if (fleet && options.shards > 1) throw new UsageError('--shards splits one capture; several captures or a directory are shared out with --jobs', 'analyze');
  const loaded = await loadWasm();
  if (!loaded) throw new InputError('the wasm module is not built yet; run `npm run build:wasm` (or `npm start`) first', 'analyze');
  // A skipped entry is a row of its own (record "skipped"), so a fleet query sees what was
  // left out.
  for (const { file, reason: why } of skipped) out.write(`${jsonSafe(JSON.stringify({ record: 'skipped', file, reason: why }))}\n`);
  if (fleet) {
    process.exitCode = await analyzeInPool(captures, { jobs: options.jobs ?? defaultJobs(), stallMs: options.stallMs, format: options.format }, out, err);
    return;
  }
  const [name] = captures;
  if (options.shards > 1 && await analyzedInShards(loaded.wasm, name, options, out, err)) return;
  const session = new loaded.wasm.WasmSession(options.stallMs);
  try {
    await pushStream(session, openCapture(name, READ_BYTES));
    // Rows only: the charts' packet rows are dropped as each connection is summarised.
    session.finishRowsOnly();
    const damaged = await writeCapture(session, name, options.format, new BatchedWriter(out));
    process.exitCode = damaged ? 1 : 0;
  } catch (error) {
    if (!isReadError(error)) throw error;
    throw new InputError(`cannot read '${escapeUnsafe(name)}': ${escapeUnsafe(reason(error))}`, 'analyze');
  } finally {
    session.free();
  }
}

/** `analyze CAPTURE --shards N` (cli/shards.mjs): true when written; false when the
 * capture is to be analysed in one session (not a regular file, which N threads cannot
 * each read, or a capture the shards cannot merge exactly: a note on stderr). */
async function analyzedInShards(wasm, name, options, out, err) {
  const info = name === '-' ? null : await stat(name).catch(() => null);
  if (!info?.isFile()) {
    err.write(`tcpscope: --shards ${options.shards}: '${escapeUnsafe(name)}' is not a regular file that each thread can read; analysed in one thread\n`);
    return false;
  }
  const result = await analyzeSharded(wasm, name, options, new BatchedWriter(out));
  if (result.unreadable) throw new InputError(`cannot read '${escapeUnsafe(name)}': ${escapeUnsafe(result.unreadable)}`, 'analyze');
  if (result.refused) {
    err.write(`tcpscope: --shards ${options.shards}: analysed in one thread, as the shards would not give the same report (${escapeUnsafe(result.refused)})\n`);
    return false;
  }
  process.exitCode = result.damaged ? 1 : 0;
  return true;
}

/** `analyze CAPTURE --other-end OTHER`: the two captures merged (cli/twin.mjs). */
async function runOtherEnd(options, out, err) {
  const names = [options.captures[0], options.otherEnd];
  for (const name of names) {
    if (name === '-') throw new UsageError('--other-end reads two files: standard input cannot be one of them', 'analyze');
    const info = await stat(name).catch((error) => {
      throw new InputError(`cannot open '${escapeUnsafe(name)}': ${reason(error)}`, 'analyze');
    });
    if (info.isDirectory()) throw new UsageError(`'${escapeUnsafe(name)}' is a directory: --other-end merges two capture files`, 'analyze');
  }
  await runTwin(names, options, out, err);
}
