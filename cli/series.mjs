// `tcpscope series`: asks the wasm view engine (wasm/src/view) the very question a
// chart asks — (connection, series, t0, t1, pixel columns) — and prints its answer,
// as JSON (exactly the engine's ViewResponse) or CSV (its rows), so what a chart
// draws can be checked from the shell and plotted elsewhere (issue 14, item 6).
//
// CSV: a header row; the first two columns are each row's interval start and end in
// seconds since the first packet of the file (equal for a point); rates in bit/s in
// columns named *bps*, byte counts in columns named *bytes*. Clamps and notes from
// the engine go to stderr.
import { write } from './output.mjs';
import { escapeUnsafe, jsonSafe } from './outsideText.mjs';
import { connectionOf, EngineError, openEngine } from './engine.mjs';
import { ask } from '../web/worker/ask.mjs';
import { fail } from './errors.mjs';
import { CLI_SERIES, EVENT_SERIES, POINT_UNIT } from './vocabulary.generated.mjs';

export const SERIES_USAGE = `usage: tcpscope series CAPTURE|LINK --connection N --series NAME (--csv | --json)
                       [--direction 0|1] [--from S] [--to S] [--columns W] [--bin S] [--stall-ms N]

  NAME          throughput | goodput | wire | inflight | pipe | rwnd | ack | window-edge |
                window-limited | rtt | sequence | stalls | retransmissions | duplicate-acks |
                zero-windows | wifi
  --direction   sending direction (default: the connection's data direction)
  --from/--to   view edges, seconds since the first packet of the file (default: the connection)
  --columns W   pixel columns (default 1600): at most 4 bins or intervals per column
  --bin S       throughput bin in seconds (default: the summary's, 0.1)
  --stall-ms N  stall threshold in ms (default: the summary's)`;

/** CLI series names → the engine's `Series` (camelCase), and the series counted per bin
 *  (one per flagged packet), not bytes: the one vocabulary (wasm/src/boundary/charts.rs). */
const SERIES = CLI_SERIES;
const EVENTS = new Set(EVENT_SERIES);

export class UsageError extends Error {}

export function parseSeriesArgs(args) {
  const o = { capture: null, connection: null, series: null, format: null, direction: null, from: null, to: null, columns: 1600, bin: null, stallMs: null };
  const number = (name, value, ok) => {
    const v = Number(value);
    if (value === undefined || value === '' || !Number.isFinite(v) || !ok(v)) throw new UsageError(`${name} needs ${ok.what}, got '${value ?? ''}'`);
    return v;
  };
  const any = Object.assign(() => true, { what: 'a number' });
  const positive = Object.assign((v) => v > 0, { what: 'a positive number' });
  const count = Object.assign((v) => Number.isInteger(v) && v >= 0, { what: 'a whole number' });
  const dir = Object.assign((v) => v === 0 || v === 1, { what: '0 or 1' });
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--csv' || a === '--json') o.format = a.slice(2);
    else if (a === '--series') {
      o.series = SERIES[args[++i]];
      if (!o.series) throw new UsageError(`--series must be one of ${Object.keys(SERIES).join(', ')}, got '${args[i] ?? ''}'`);
    } else if (a === '--connection') o.connection = number(a, args[++i], count);
    else if (a === '--direction') o.direction = number(a, args[++i], dir);
    else if (a === '--from') o.from = number(a, args[++i], any);
    else if (a === '--to') o.to = number(a, args[++i], any);
    else if (a === '--columns') o.columns = number(a, args[++i], count);
    else if (a === '--bin') o.bin = number(a, args[++i], positive);
    else if (a === '--stall-ms') o.stallMs = number(a, args[++i], positive);
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else if (o.capture === null) o.capture = a;
    else throw new UsageError(`unexpected argument '${a}'`);
  }
  if (o.capture === null) throw new UsageError('missing CAPTURE');
  if (o.connection === null) throw new UsageError('missing --connection N');
  if (o.series === null) throw new UsageError('missing --series NAME');
  if (o.format === null) throw new UsageError('say --csv or --json');
  return o;
}

const csvField = (v) => {
  if (v === null || v === undefined) return '';
  // Strings from a link or a capture (a stall's `endedBy`) pass the sanitizer: no control
  // character reaches the file (issue 45, item 1).
  const s = escapeUnsafe(String(v));
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
const csvLine = (fields) => `${fields.map(csvField).join(',')}\n`;

/** Value unit of each point series, for the CSV column names. */
const UNIT = POINT_UNIT;

/** The rows of a view answer, header first. */
export function* csvRows(r) {
  if (r.kind === 'bins' && EVENTS.has(r.series)) {
    // Event series: the engine's `bytes` holds the count of flagged packets per bin.
    yield ['start_s', 'end_s', 'events'];
    const k0 = Math.round(r.start / r.binSeconds);
    for (let i = 0; i < r.bytes.length; i++) yield [(k0 + i) * r.binSeconds, (k0 + i + 1) * r.binSeconds, r.bytes[i]];
  } else if (r.kind === 'bins') {
    yield ['start_s', 'end_s', 'bytes', 'bps', 'average_bps'];
    // Bin k covers [k·bin, (k+1)·bin): the engine's grid, computed the same way.
    const k0 = Math.round(r.start / r.binSeconds);
    for (let i = 0; i < r.bytes.length; i++) {
      yield [(k0 + i) * r.binSeconds, (k0 + i + 1) * r.binSeconds, r.bytes[i], r.bps[i], r.averageBps[i]];
    }
  } else if (r.kind === 'wifi') {
    // The Wi-Fi strip (view/wifi.rs): 802.11 frames, mean PHY rate and Retry share per bin.
    yield ['start_s', 'end_s', 'frames', 'phy_rate_mbps', 'retry_share'];
    const k0 = Math.round(r.start / r.binSeconds);
    for (let i = 0; i < r.frames.length; i++) {
      yield [(k0 + i) * r.binSeconds, (k0 + i + 1) * r.binSeconds, r.frames[i], r.phyRateMbps[i], r.retryShare[i]];
    }
  } else if (r.kind === 'points') {
    const u = UNIT[r.series];
    yield ['start_s', 'end_s', 'kind', 'count', `first_${u}`, `min_${u}`, `max_${u}`, `last_${u}`, 'frame', 'flags'];
    if (r.before) yield [r.before[0], r.before[0], 'before', 1, r.before[1], r.before[1], r.before[1], r.before[1]];
    for (let i = 0; i < r.column.length; i++) {
      yield [r.tFirst[i], r.tLast[i], 'column', r.count[i], r.first[i], r.min[i], r.max[i], r.last[i]];
    }
    if (r.after) yield [r.after[0], r.after[0], 'after', 1, r.after[1], r.after[1], r.after[1], r.after[1]];
    const m = r.markers;
    for (let i = 0; m && i < m.t.length; i++) {
      yield [m.t[i], m.t[i], 'marker', m.count[i], m.v[i], m.v[i], m.v[i], m.v[i], m.frame[i], m.flags[i]];
    }
  } else if (r.kind === 'intervals') {
    yield ['start_s', 'end_s', 'duration_s', 'cause', 'frame_before', 'frame_after', 'ended_by'];
    for (const i of r.intervals) yield [i.start, i.end, i.end - i.start, i.cause, i.frameBefore, i.frameAfter, i.endedBy];
  }
}

/** Runs `tcpscope series ARGS`; sets process.exitCode (0 ok, 1 damaged capture or no answer, 2 usage). */
export async function runSeries(args, out = process.stdout, err = process.stderr) {
  let o;
  try {
    o = parseSeriesArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    fail(err, e.message, 'series', 2);
    return;
  }
  let engine;
  try {
    engine = await openEngine(o.capture);
  } catch (e) {
    if (!(e instanceof EngineError)) throw e;
    fail(err, e.message, 'series', e.exitCode);
    return;
  }
  const { session, report } = engine;
  try {
    let conn;
    try {
      conn = connectionOf(report, o.connection, o.capture);
    } catch (e) {
      fail(err, e.message, 'series', e.exitCode);
      return;
    }
    const request = {
      generation: 1, connection: o.connection, series: o.series,
      t0: o.from ?? conn.start, t1: o.to ?? conn.end, columns: o.columns,
      binSeconds: o.bin, stallThresholdMs: o.stallMs, direction: o.direction,
    };
    const r = ask(engine.session, { ask: 'view', request });
    // Notes may come from a link (text anyone can edit): escaped, never raw on a terminal.
    for (const c of r.clamped ?? []) err.write(`tcpscope: clamped: ${escapeUnsafe(c)}\n`);
    for (const n of r.notes ?? []) err.write(`tcpscope: note: ${escapeUnsafe(n)}\n`);
    if (r.more > 0) err.write(`tcpscope: ${r.more} more intervals in view not listed (at most 4 per column; raise --columns or narrow --from/--to)\n`);
    if (r.error) err.write(`tcpscope: ${escapeUnsafe(r.error)}\n`);
    if (o.format === 'json') {
      await write(out, `${jsonSafe(JSON.stringify(r, null, 2))}\n`);
    } else {
      let batch = '';
      for (const row of csvRows(r)) {
        batch += csvLine(row);
        if (batch.length > 1 << 16) {
          await write(out, batch);
          batch = '';
        }
      }
      await write(out, batch);
    }
    process.exitCode = report.error || r.error ? 1 : 0;
  } finally {
    session.free();
  }
}
