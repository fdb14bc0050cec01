// The CLI tests' in-process runner: `tcpscope analyze|series|share ARGS` run by the
// command's own function (runAnalyze, runSeries, runShare, the ones bin/tcpscope.mjs
// calls) in the test's process, with stdout and stderr collected. For tests that check
// what a command prints for many captures, connections or series (issue 42 item 1): a
// child process per case costs a Node start, the module graph and a wasm compile
// (~0.3 s idle, seconds on a loaded 2-core machine) before the engine does ~10 ms of
// work. Each command still has tests through a real child process of bin/tcpscope.mjs
// (exit status, the dispatch, usage errors, pipes); cli.test.mjs checks that both give
// the same report. Not part of the npm package (package.json "files": cli/*.mjs only).
import { Writable } from 'node:stream';
import { runAnalyze } from '../analyze.mjs';
import { runSeries } from '../series.mjs';
import { runShare } from '../share.mjs';
import { failureLines, InputError, UsageError } from '../errors.mjs';
import { loadWasm } from '../wasm.mjs';

const COMMANDS = { analyze: runAnalyze, series: runSeries, share: runShare };

/**
 * One wasm instance serves every run here, where bin/tcpscope.mjs has one per process.
 * Its view cache (wasm/src/bindings.rs `with_views`) is kept while queries come from
 * the same session *address* and capture generation; a session freed by one run and
 * the next run's session can share an address, and every CLI request says generation
 * 1, so the next capture's `series` was answered from the previous capture's cache
 * (found by these tests: wifi-retry.pcap's window-limited intervals after bbr-loss.pcap's
 * run). Before each run one query from a session that is never freed takes the cache
 * over (and clears it), so no later session can be mistaken for its owner.
 */
let keeper = null;
async function forgetViews() {
  const { wasm } = await loadWasm();
  if (!keeper) {
    keeper = new wasm.WasmSession(Number.NaN);
    const header = Buffer.alloc(24); // an empty pcap: magic, version 2.4, snaplen, Ethernet
    header.writeUInt32LE(0xa1b2c3d4, 0);
    header.writeUInt16LE(2, 4);
    header.writeUInt16LE(4, 6);
    header.writeUInt32LE(65535, 16);
    header.writeUInt32LE(1, 20);
    keeper.push(header);
    keeper.finish();
  }
  wasm.viewQuery(keeper, JSON.stringify({ generation: 0, connection: 0, series: 'throughput', t0: 0, t1: 1, columns: 1 }));
}

/** A stream that keeps what is written to it as text. */
class Collected extends Writable {
  constructor() {
    // One buffer for the whole output: write() never asks the command to wait for 'drain'.
    super({ decodeStrings: false, highWaterMark: 1 << 30 });
    this.text = '';
  }

  _write(chunk, _encoding, done) {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

/**
 * `{ code, stdout, stderr }` of `tcpscope COMMAND ...args`, as spawnSync gives them for
 * bin/tcpscope.mjs: `code` is the exit status the command sets (process.exitCode, put
 * back afterwards), and a UsageError or InputError it throws becomes bin/tcpscope.mjs's
 * two lines and status 2 or 1. Anything else thrown is a test failure.
 */
export async function runInProcess(command, ...args) {
  const run = COMMANDS[command];
  if (!run) throw new Error(`runInProcess: no command '${command}' (${Object.keys(COMMANDS).join(', ')})`);
  await forgetViews();
  const out = new Collected();
  const err = new Collected();
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await run(args, out, err);
    return { code: process.exitCode ?? 0, stdout: out.text, stderr: err.text };
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof InputError)) throw error;
    err.write(failureLines(error.message, error.command));
    return { code: error instanceof UsageError ? 2 : 1, stdout: out.text, stderr: err.text };
  } finally {
    process.exitCode = before;
  }
}
