// `tcpscope analyze CLIENT.pcap --other-end SERVER.pcap [--json]` (issue 44): the same
// transfer captured at both ends, merged by the engine (wasm/src/twin, through
// bindings.rs `WasmTwin`; docs/ANALYSIS.md "Two vantage points"). `--json` prints the
// engine's TwinReport as it is; the human summary only words and formats its numbers
// (web/model/format.mjs), it computes none.
import { loadWasm, openCapture } from './wasm.mjs';
import { escapeUnsafe, jsonSafe, outsideText } from './outsideText.mjs';
import { isReadError, reason } from './rows.mjs';
import { InputError, failureLines } from './errors.mjs';
import { formatBytes, formatDuration, formatMs } from '../web/model/format.mjs';
import { MATCHED_BY_LABEL, PLACE_LABEL, PLACES } from './vocabulary.generated.mjs';

/** Merges capture `names[0]` with `names[1]` and writes the report to `out`; sets
 * process.exitCode: 0 merged, 1 refused (why on `err`; `--json` still prints the report)
 * or a capture that cannot be read (thrown as InputError). */
export async function runTwin(names, { format, stallMs }, out = process.stdout, err = process.stderr) {
  const loaded = await loadWasm();
  if (!loaded) throw new InputError('the wasm module is not built yet; run `npm run build:wasm` (or `npm start`) first', 'analyze');
  const twin = new loaded.wasm.WasmTwin(stallMs);
  let report;
  try {
    for (const [which, name] of names.entries()) await pushCapture(twin, which, name);
    report = JSON.parse(twin.finish());
  } finally {
    twin.free();
  }
  if (format === 'json') out.write(`${jsonSafe(JSON.stringify(report, null, 2))}\n`);
  else if (!report.refusal) out.write(`${formatTwin(names, report)}\n`);
  if (report.refusal) err.write(failureLines(report.refusal.message, 'analyze'));
  process.exitCode = report.refusal ? 1 : 0;
}

/** Streams capture `name` into input `which` of the merge, gzip inflated as for one capture. */
export async function pushCapture(twin, which, name) {
  try {
    for await (const chunk of openCapture(name)) {
      const more = chunk.compressedBytes != null ? twin.pushInflated(which, chunk.bytes, chunk.compressedBytes) : twin.push(which, chunk.bytes);
      if (!more) break;
    }
  } catch (error) {
    if (!isReadError(error)) throw error;
    throw new InputError(`cannot read '${escapeUnsafe(name)}': ${escapeUnsafe(reason(error))}`, 'analyze');
  }
}

/** The human summary of a merged TwinReport (`names`: the two inputs, as given). */
export function formatTwin(names, report) {
  const lines = [];
  const merged = report.pairs.filter((p) => !p.refused);
  lines.push(`${names.map(escapeUnsafe).join(' + ')}: ${merged.length} connection${merged.length === 1 ? '' : 's'} merged` +
    `${report.pairs.length > merged.length ? `, ${report.pairs.length - merged.length} not merged` : ''}`);
  for (const note of report.notes) lines.push(`note: ${outsideText(note, 400)}`);
  for (const p of report.pairs) lines.push('', ...pairLines(names, p));
  return lines.join('\n');
}

function pairLines(names, p) {
  const side = (s) => `${escapeUnsafe(names[s.input])} #${s.connection}`;
  const lines = [`${p.senderSide.endpoints.join(' -> ')}  (data sender's side: ${side(p.senderSide)}; receiver's side: ${side(p.receiverSide)})`];
  lines.push(`    matched by ${MATCHED_BY_LABEL[p.matchedBy]}${p.rewritten ? `; the receiver's side saw ${p.receiverSide.endpoints.join(' -> ')}` : ''}`);
  if (p.refused) return [...lines, `    not merged: ${p.refused}`];
  const c = p.clock;
  if (c) {
    const driftBound = Math.abs(c.driftPpm ?? 0) + (c.driftUncertaintyPpm ?? 0);
    const drift = c.driftPpm == null
      ? 'drift not measured (capture too short or datagrams not spread across it)'
      : Math.abs(c.driftPpm) <= (c.driftUncertaintyPpm ?? 0)
        ? `no measurable drift (< ${driftBound.toFixed(1)} ppm)`
        : `drift ${c.driftPpm.toFixed(1)} ± ${c.driftUncertaintyPpm?.toFixed(1) ?? '–'} ppm`;
    lines.push(`    clock: offset ${formatMs(c.offsetMs)} ± ${formatMs(c.uncertaintyMs)}, ${drift}${c.inconsistent ? ' (inconsistent: delays not trustworthy)' : ''}`);
  }
  for (const [k, d] of p.directions.entries()) {
    lines.push(`    ${k === 0 ? 'forward' : 'return '} ${d.from} -> ${d.to}: sent ${d.sent}, delivered ${d.delivered}, lost between ${d.lostBetween}, ` +
      `reordered ${d.reordered}, duplicated ${d.duplicated}, not seen at sender side ${d.notSeenAtSenderSide}` +
      (d.delay ? `; one-way delay p50 ${formatMs(d.delay.medianMs)}, p95 ${formatMs(d.delay.p95Ms)}` : '; no one-way delay'));
  }
  lines.push(`    queued: ${p.queued === 'too-few-samples' ? 'too few samples to tell' : p.queued}`);
  const s = p.rttSplit;
  if (s) {
    const unc = formatMs(s.pathUncertaintyMs);
    lines.push(`    RTT split: sender host ${formatMs(s.senderHostMs)} + forward path ${formatMs(s.forwardPathMs)} ± ${unc} + receiver host ${formatMs(s.receiverHostMs)}` +
      ` + return path ${formatMs(s.returnPathMs)} ± ${unc} (each path to the clock's uncertainty; their sum is exact)`);
  }
  const f = p.inFlight;
  if (f) {
    const b = (x) => (x == null ? '–' : formatBytes(x));
    lines.push(`    sent, not yet acknowledged (data sender's capture): median ${b(f.senderMedianBytes)}, max ${b(f.senderMaxBytes)}; ` +
      `receiver-side estimate median ${b(f.receiverEstimateMedianBytes)}, within 10 % at ${f.withinTenPercent} of ${f.compared}`);
  }
  // The stalls counted once (docs/ANALYSIS.md `twin.distinctStalls`: a gap both captures
  // listed is one; a host's late answer and the peer's wait for it are one) are the
  // engine's list; this line only tallies it by place, and lists the first few with where
  // each was placed. A place names the stalled direction's hosts; the summary names them
  // by the data's (the header's sides), so a return stall's sender is the data receiver.
  const gaps = p.distinctStalls;
  const dataPlace = (g) => (g.direction === 0 ? g.place : { 'sender-host': 'receiver-host', 'receiver-host': 'sender-host' }[g.place] ?? g.place);
  const tally = PLACES.map((place) => `${gaps.filter((g) => dataPlace(g) === place).length} ${PLACE_LABEL[place]}`);
  const both = gaps.filter((g) => g.frames.every((f) => f != null)).length;
  const waits = gaps.filter((g) => g.peerWaitFrames != null).length;
  const waitWords = waits ? `; ${waits} a host's late answer and the peer's wait for it, each counted once` : '';
  const [senderMs, receiverMs] = p.stallThresholdMs;
  lines.push(`    stalls: ${gaps.length}${gaps.length ? ` (${tally.join(', ')}, by the data's sender and receiver); ${both} seen by both captures, each counted once${waitWords} (${p.stalls.length} rows in the two captures' reports)`
    : ` (no gap reached the stall threshold: sender side ${formatMs(senderMs)}, receiver side ${formatMs(receiverMs)}; --stall-ms N places shorter ones)`}`);
  for (const g of gaps.slice(0, SHOWN_STALLS)) {
    const seenBy = g.frames.every((f) => f != null) ? 'seen by both captures' : `listed by the ${g.frames[0] ? 'sender' : 'receiver'}-side capture only`;
    const wait = g.peerWaitFrames != null ? '; the peer waited on it too: one stall' : '';
    lines.push(`      ${g.direction === 0 ? 'forward' : 'return'} ${formatDuration(g.duration)} at ${g.at.toFixed(3)} s: ${PLACE_LABEL[dataPlace(g)]} (${seenBy}${g.placesAgree ? '' : '; its two rows were placed differently'}${wait})`);
  }
  if (gaps.length > SHOWN_STALLS) lines.push(`      ... ${gaps.length - SHOWN_STALLS} more (--json lists every one)`);
  return lines;
}

/** Stalls listed one per gap after the count. */
const SHOWN_STALLS = 5;
