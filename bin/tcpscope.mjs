#!/usr/bin/env node
// tcpscope CLI: runs the same wasm module the browser runs (not a second
// implementation) over capture files, streamed in chunks.
//
//   tcpscope analyze CAPTURE... [--json | --ndjson] [--stall-ms N]              (cli/analyze.mjs)
//   tcpscope series CAPTURE --connection N --series NAME (--csv | --json) [...]  (cli/series.mjs)
//   tcpscope share CAPTURE --connection N [...]                                  (cli/share.mjs)
//   tcpscope render CAPTURE|LINK --out FIG.svg|FIG.png [--chart ID] [...]         (cli/render.mjs)
//
// Exit status: 0 success, 1 the capture is damaged (partial results still printed,
// `error` set), 2 usage errors and inputs that cannot be read. Always through
// process.exitCode, so output queued for a pipe is delivered before the process ends.
import { ANALYZE_USAGE, InputError, runAnalyze, UsageError } from '../cli/analyze.mjs';
import { exitQuietlyOnBrokenPipe } from '../cli/output.mjs';
import { runSeries, SERIES_USAGE } from '../cli/series.mjs';
import { runShare, SHARE_USAGE } from '../cli/share.mjs';
import { RENDER_USAGE, runRender } from '../cli/render.mjs';
import { escapeUnsafe } from '../cli/outsideText.mjs';

const USAGE = `${ANALYZE_USAGE}\n\n${SERIES_USAGE}\n\n${SHARE_USAGE}\n\n${RENDER_USAGE}`;

exitQuietlyOnBrokenPipe();
const [command, ...args] = process.argv.slice(2);
let run;
if (command === '--help' || command === '-h') run = Promise.resolve(process.stdout.write(`${USAGE}\n`));
else if (command === 'series') run = runSeries(args);
else if (command === 'share') run = runShare(args);
else if (command === 'render') run = runRender(args);
else if (command === 'analyze') run = runAnalyze(args);
else if (command === 'slice') run = import('../cli/slice.mjs').then((m) => m.runSlice(args)); // Save for Wireshark (issue 42, item 6)
else run = Promise.reject(new UsageError(command ? `unknown command '${command}'` : 'missing command'));

// Every message passes the sanitizer (cli/outsideText.mjs): it may quote a file name or a
// link. No stack trace reaches a user (issue 45, item 3); TCPSCOPE_DEBUG=1 shows it.
run.catch((error) => {
  const message = escapeUnsafe(error?.message ?? String(error));
  if (error instanceof UsageError) process.stderr.write(`tcpscope: ${message}\n${USAGE}\n`);
  else if (error instanceof InputError) process.stderr.write(`tcpscope: ${message}\n`);
  else process.stderr.write(`tcpscope: ${process.env.TCPSCOPE_DEBUG ? escapeUnsafe(error?.stack ?? '') : `internal error: ${message}`}\n`);
  process.exitCode = 2;
});
