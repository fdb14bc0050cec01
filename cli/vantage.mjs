// `tcpscope analyze MERGED.pcapng --vantage-by-interface [--json]` (issue 44 item 1): one
// pcapng whose interfaces are two vantage points (`mergecap -I none client.pcap
// server.pcap`, two pcapng files concatenated, a host capturing on two interfaces of one
// path) merged as `--other-end` merges two files. The engine decides and splits
// (wasm/src/twin/interfaces.rs): a probe reads the file's start for two interfaces that
// carry the same TCP segments, then the file is read again, its packet blocks routed by
// interface into the two captures of the merge. Two reads: the file must be a file, not
// a pipe. The output is cli/twin.mjs's, the two captures named by their interface.
import { stat } from 'node:fs/promises';
import { loadWasm, openCapture } from './wasm.mjs';
import { escapeUnsafe, jsonSafe, outsideText } from './outsideText.mjs';
import { isReadError, reason } from './rows.mjs';
import { InputError, UsageError, failureLines } from './errors.mjs';
import { formatTwin } from './twin.mjs';

/** The capture `name`'s two vantage points merged; sets process.exitCode: 0 merged, 1
 * not two vantage points or a refused merge (why on `err`; `--json` still prints a
 * refused merge's report). */
export async function runVantageByInterface(name, { format, stallMs }, out = process.stdout, err = process.stderr) {
  if (name === '-') throw new UsageError('--vantage-by-interface reads the file twice (to find the two interfaces, then to split them): standard input cannot be read again', 'analyze');
  const info = await stat(name).catch((error) => {
    throw new InputError(`cannot open '${escapeUnsafe(name)}': ${reason(error)}`, 'analyze');
  });
  if (!info.isFile()) throw new UsageError(`'${escapeUnsafe(name)}' is not a regular file: --vantage-by-interface reads it twice`, 'analyze');
  const loaded = await loadWasm();
  if (!loaded) throw new InputError('the wasm module is not built yet; run `npm run build:wasm` (or `npm start`) first', 'analyze');
  const { wasm } = loaded;

  const probe = new wasm.WasmVantageProbe();
  let found;
  try {
    await readCapture(name, (chunk) => probe.push(chunk.bytes));
    found = JSON.parse(probe.finish());
  } finally {
    probe.free();
  }
  if (!found.sides) {
    err.write(failureLines(`'${escapeUnsafe(name)}' is not two vantage points: ${outsideText(found.text, 400)}`, 'analyze'));
    process.exitCode = 1;
    return;
  }
  // The file again, its blocks routed by interface (WasmInterfaceSplit) into the two
  // inputs of the merge (WasmTwin), chunk by chunk: as twin/interface_split.rs
  // `InterfaceTwin` does natively, whose report this is, the split's notes included.
  const [first, second] = found.sides;
  const split = new wasm.WasmInterfaceSplit(first, second);
  const twin = new wasm.WasmTwin(stallMs);
  let report;
  try {
    await readCapture(name, (chunk) => {
      const more = split.push(chunk.bytes);
      for (const k of [0, 1]) {
        const bytes = split.take(k);
        if (bytes.length) chunk.compressedBytes != null ? twin.pushInflated(k, bytes, chunk.compressedBytes) : twin.push(k, bytes);
      }
      return more;
    });
    let notes;
    try {
      notes = JSON.parse(split.finish());
    } catch (error) {
      throw new InputError(`cannot split '${escapeUnsafe(name)}' by interface: ${escapeUnsafe(error instanceof Error ? error.message : String(error))}`, 'analyze');
    }
    report = JSON.parse(twin.finish());
    report.notes.push(...notes);
  } finally {
    split.free();
    twin.free();
  }
  const names = found.sides.map((i, k) => `${name} interface ${i}${found.names[k] ? ` (${found.names[k]})` : ''}`);
  if (format === 'json') out.write(`${jsonSafe(JSON.stringify(report, null, 2))}\n`);
  else {
    if (!report.refusal) out.write(`${formatTwin(names, report)}\n`);
    err.write(`note: ${outsideText(found.text, 400)}\n`);
  }
  if (report.refusal) err.write(failureLines(report.refusal.message, 'analyze'));
  process.exitCode = report.refusal ? 1 : 0;
}

/** Streams capture `name` (gzip inflated) into `take` until it answers false. */
async function readCapture(name, take) {
  try {
    for await (const chunk of openCapture(name)) if (!take(chunk)) break;
  } catch (error) {
    if (!isReadError(error)) throw error;
    throw new InputError(`cannot read '${escapeUnsafe(name)}': ${escapeUnsafe(reason(error))}`, 'analyze');
  }
}
