// The CLI tests' in-process runner: `tcpscope analyze|series|share|render ARGS` run by the
// command's own function (runAnalyze, runSeries, runShare, runRender, the ones bin/tcpscope.mjs
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
import { runRender } from '../render.mjs';
import { failureLines, InputError, UsageError } from '../errors.mjs';

// render writes its figure to --out and speaks on stderr only (a child process of
// bin/tcpscope.mjs pays Node, jsdom, resvg and the wasm for each figure: ~1.7 CPU-s, where
// drawing one in process takes a fraction of that).
const COMMANDS = { analyze: runAnalyze, series: runSeries, share: runShare, render: (args, _out, err) => runRender(args, err) };

// One wasm instance serves every run here, where bin/tcpscope.mjs has one per process:
// each run's session gets its own view cache (bindings.rs keys it by a session serial;
// keyed by address, a freed session's cache once answered the next one's series:
// cli/sessions.test.mjs).

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
  const out = new Collected();
  const err = new Collected();
  const before = process.exitCode;
  // render says on 'beforeExit' when a figure was never written; in a child process that
  // is the end of it, here the run's own listener goes when the run does.
  const listening = process.listeners('beforeExit');
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
    for (const added of process.listeners('beforeExit').filter((l) => !listening.includes(l))) process.removeListener('beforeExit', added);
  }
}
