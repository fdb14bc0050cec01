#!/usr/bin/env node
// tcpscope CLI: runs the same wasm module the browser runs (not a second
// implementation) over a capture file, streamed in chunks.
//
//   tcpscope analyze CAPTURE [--json] [--stall-ms N]
//   tcpscope series CAPTURE --connection N --series NAME (--csv | --json) [...]  (cli/series.mjs)
//   tcpscope share CAPTURE --connection N [...]                                  (cli/share.mjs)
//
// Exit status: 0 success, 1 the capture is damaged (partial results still printed,
// `error` set), 2 usage errors (and files that cannot be opened).
import { existsSync } from 'node:fs';
import { formatHuman } from '../cli/format.mjs';
import { loadWasm, openCapture, pushStream } from '../cli/wasm.mjs';
import { runSeries, SERIES_USAGE } from '../cli/series.mjs';
import { runShare, SHARE_USAGE } from '../cli/share.mjs';

const USAGE = `usage: tcpscope analyze CAPTURE [--json] [--stall-ms N]

  CAPTURE       a .pcap or .pcapng file (gzip-compressed is fine)
  --json        print the schema-1 JSON summary instead of the human summary
  --stall-ms N  stall threshold in ms (default: max(10 ms, 4 x min RTT))

${SERIES_USAGE}

${SHARE_USAGE}`;

function usage(message) {
  if (message) process.stderr.write(`tcpscope: ${message}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (command !== 'analyze') usage(command ? `unknown command '${command}'` : 'missing command');
  const options = { json: false, stallMs: Number.NaN, capture: null };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--json') options.json = true;
    else if (arg === '--stall-ms') {
      const value = Number(rest[++i]);
      if (!(value > 0) || !Number.isFinite(value)) usage(`--stall-ms needs a positive number of milliseconds, got '${rest[i] ?? ''}'`);
      options.stallMs = value;
    } else if (arg.startsWith('-')) usage(`unknown option '${arg}'`);
    else if (options.capture === null) options.capture = arg;
    else usage(`unexpected argument '${arg}'`);
  }
  if (options.capture === null) usage('missing CAPTURE');
  return options;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(options.capture)) usage(`cannot open '${options.capture}': no such file`);
  const loaded = await loadWasm();
  if (!loaded) {
    process.stderr.write('tcpscope: the wasm module is not built yet; run `npm run build:wasm` (or `npm start`) first\n');
    process.exit(2);
  }
  const { wasm } = loaded;
  const session = new wasm.WasmSession(options.stallMs);
  await pushStream(session, await openCapture(options.capture));
  session.finish();
  const report = JSON.parse(session.reportJson());
  session.free();
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatHuman(options.capture, report));
  process.exit(report.error ? 1 : 0);
}

const fail = (error) => {
  process.stderr.write(`tcpscope: ${error?.stack ?? error}\n`);
  process.exitCode = 2;
};
if (process.argv[2] === 'series') runSeries(process.argv.slice(3)).catch(fail);
else if (process.argv[2] === 'share') runShare(process.argv.slice(3)).catch(fail);
else main().catch((error) => {
  fail(error);
  process.exit(2);
});
