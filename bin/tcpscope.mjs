#!/usr/bin/env node
// tcpscope CLI: runs the same wasm module the browser runs (not a second
// implementation) over capture files, streamed in chunks.
//
//   tcpscope analyze CAPTURE... [--json | --ndjson[=full]] [--jobs N] [--stall-ms N] (cli/analyze.mjs)
//   tcpscope series CAPTURE --connection N --series NAME (--csv | --json) [...]  (cli/series.mjs)
//   tcpscope share CAPTURE --connection N [...]                                  (cli/share.mjs)
//   tcpscope render CAPTURE|LINK --out FIG.svg|FIG.png [--chart ID] [...]         (cli/render.mjs)
//   tcpscope help [COMMAND], tcpscope COMMAND --help                             the usage
//
// Exit status: 0 success, 1 a capture is damaged (partial results still printed,
// `error` set) or cannot be read, 2 usage errors. A failure is one line saying what and
// where, then `try: tcpscope help COMMAND` (cli/errors.mjs). Always through
// process.exitCode, so output queued for a pipe is delivered before the process ends.
import { ANALYZE_USAGE, runAnalyze } from '../cli/analyze.mjs';
import { failureLines, InputError, UsageError } from '../cli/errors.mjs';
import { exitQuietlyOnBrokenPipe } from '../cli/output.mjs';
import { runSeries, SERIES_USAGE } from '../cli/series.mjs';
import { runShare, SHARE_USAGE } from '../cli/share.mjs';
import { RENDER_USAGE, runRender } from '../cli/render.mjs';
import { SLICE_USAGE } from '../cli/slice.mjs';
import { escapeUnsafe } from '../cli/outsideText.mjs';

/** Each command's usage, for `tcpscope help COMMAND` and `COMMAND --help`. */
const USAGES = { analyze: ANALYZE_USAGE, series: SERIES_USAGE, share: SHARE_USAGE, render: RENDER_USAGE, slice: SLICE_USAGE };
const COMMANDS = Object.keys(USAGES).join(', ');

/** `tcpscope help [COMMAND]`: that command's usage, or every command's. */
function help(topic) {
  if (topic === undefined) return `tcpscope: why was this TCP transfer slow? (commands: ${COMMANDS})\n\n${Object.values(USAGES).join('\n\n')}\n`;
  if (!USAGES[topic]) throw new UsageError(`no command '${topic}' to help with (commands: ${COMMANDS})`);
  return `${USAGES[topic]}\n`;
}

exitQuietlyOnBrokenPipe();
const [command, ...args] = process.argv.slice(2);
const asksHelp = args.includes('--help') || args.includes('-h');
let run;
if (command === 'help') run = Promise.resolve().then(() => process.stdout.write(help(args[0])));
else if (command === '--help' || command === '-h') run = Promise.resolve().then(() => process.stdout.write(help()));
else if (USAGES[command] && asksHelp) run = Promise.resolve().then(() => process.stdout.write(help(command)));
else if (command === 'series') run = runSeries(args);
else if (command === 'share') run = runShare(args);
else if (command === 'render') run = runRender(args);
else if (command === 'analyze') run = runAnalyze(args);
else if (command === 'slice') run = import('../cli/slice.mjs').then((m) => m.runSlice(args)); // Save for Wireshark (issue 42, item 6)
else run = Promise.reject(new UsageError(command ? `unknown command '${command}' (commands: ${COMMANDS})` : `missing command (commands: ${COMMANDS})`));

// Every message passes the sanitizer (cli/outsideText.mjs, in failureLines): it may quote
// a file name or a link. No stack trace reaches a user (issue 45, item 3); TCPSCOPE_DEBUG=1
// shows it for an internal error.
run.catch((error) => {
  if (error instanceof UsageError || error instanceof InputError) {
    process.stderr.write(failureLines(error.message, error.command));
    process.exitCode = error instanceof UsageError ? 2 : 1;
    return;
  }
  const message = escapeUnsafe(error?.message ?? String(error));
  process.stderr.write(`tcpscope: ${process.env.TCPSCOPE_DEBUG ? escapeUnsafe(error?.stack ?? '') : `internal error: ${message}`}\n`);
  process.exitCode = 2;
});
