// `tcpscope render`: one chart of one connection as a static image for places without
// iframes (newsletters, READMEs, RSS, slides), issue 15 item 5. It runs the page's own
// chart code under Node — the stack (web/components/ConnectionCharts.tsx) in jsdom,
// built into build/render/render.mjs by vite.render.config.ts — and saves it through
// the page's own SVG export (web/export/svg.ts), so fonts, colours, axes and paths are
// the page's. PNG: that SVG rasterised by resvg (npm @resvg/resvg-js), at --scale × its
// size like the page's PNG export (2 × for HiDPI screens).
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { connectionOf, EngineError, openEngine } from './engine.mjs';
import { fail } from './errors.mjs';
import { inputProblem, sourceKind } from './share.mjs';
import { escapeUnsafe } from './outsideText.mjs';
import { loadWasm } from './wasm.mjs';
import { renderTwinFigure, TwinFigureError, wantsTwin } from './twin-render.mjs';

export const RENDER_USAGE = `usage: tcpscope render CAPTURE|LINK --out FILE.svg|FILE.png [--connection N] [--chart ID]
                       [--from S] [--to S] [--view FRAGMENT] [--width PX] [--height PX]
                       [--theme light|dark] [--direction 0|1] [--bin S] [--stall-ms N] [--scale K]
       tcpscope render CLIENT.pcap --other-end SERVER.pcap [--chart oneway|twin-sequence|twin] --out FILE.svg|FILE.png

  --out         the figure; .svg (standalone, styles inlined) or .png
  --connection  connection id (default: the one the page opens, the largest)
  --chart       throughput | inflight | stalls | sequence | rtt | events | wifi (default throughput),
                or stack: every chart the view shows (--view's charts=, else all) on one time
                axis under the diagnosis headline, as the page's "Whole stack" export;
                with --other-end or a link's merged view: oneway (each direction's one-way
                delay; --direction: one), twin-sequence (each capture's time-sequence), twin (both)
  --other-end   the capture taken at the other end of the same transfer: the two are merged
                (as analyze --other-end) and the merged view drawn; --connection N picks the
                pair by CLIENT's connection id. A compare LINK that carries a merged view
                (twin-snap=) draws it unless --chart names another chart.
  --from/--to   view edges, seconds since the first packet of the file (default: the connection)
  --view        a tcpscope permalink or its fragment (#c=1&t=0.5,2&bin=100&stall=40&charts=rtt&theme=dark):
                its connection, range, bin, threshold, first chart and theme; options given here win.
                A share LINK carries its own view.
  --width PX    width of the figure (default 800); --height PX: the chart's height on the page
  --theme       light (default) | dark
  --bin S       throughput bin in seconds; --stall-ms N: stall threshold (defaults: the summary's)
  --scale K     PNG pixels per SVG pixel (default 2, as the page's PNG export)`;

export class RenderUsageError extends Error {}

const BUNDLE = new URL('../build/render/render.mjs', import.meta.url);

export function parseRenderArgs(args) {
  const o = {
    source: null, out: null, connection: null, chart: null, from: null, to: null, view: null, otherEnd: null,
    width: 800, height: null, theme: null, direction: null, bin: null, stallMs: null, scale: 2,
  };
  const number = (name, value, ok, what) => {
    const v = Number(value);
    if (value === undefined || value === '' || !Number.isFinite(v) || !ok(v)) throw new RenderUsageError(`${name} needs ${what}, got '${value ?? ''}'`);
    return v;
  };
  const px = (name, value, min) => number(name, value, (v) => Number.isInteger(v) && v >= min && v <= 10000, `a whole number of pixels from ${min} to 10000`);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new RenderUsageError(`${a} needs a value`);
      return args[++i];
    };
    if (a === '--out') o.out = value();
    else if (a === '--connection') o.connection = number(a, value(), (v) => Number.isInteger(v) && v >= 0, 'a whole number');
    else if (a === '--chart') o.chart = value();
    else if (a === '--from') o.from = number(a, value(), () => true, 'a number');
    else if (a === '--to') o.to = number(a, value(), () => true, 'a number');
    else if (a === '--view') o.view = value();
    else if (a === '--other-end') o.otherEnd = value();
    else if (a === '--width') o.width = px(a, value(), 200);
    else if (a === '--height') o.height = px(a, value(), 80);
    else if (a === '--theme') {
      o.theme = value();
      if (o.theme !== 'light' && o.theme !== 'dark') throw new RenderUsageError(`--theme is light or dark, got '${o.theme}'`);
    } else if (a === '--direction') o.direction = number(a, value(), (v) => v === 0 || v === 1, '0 or 1');
    else if (a === '--bin') o.bin = number(a, value(), (v) => v > 0, 'a positive number');
    else if (a === '--stall-ms') o.stallMs = number(a, value(), (v) => v > 0, 'a positive number');
    else if (a === '--scale') o.scale = number(a, value(), (v) => v > 0 && v <= 8, 'a number above 0, at most 8');
    else if (a.startsWith('-') && a !== '-') throw new RenderUsageError(`unknown option '${a}'`);
    else if (o.source === null) o.source = a;
    else throw new RenderUsageError(`unexpected argument '${a}'`);
  }
  if (o.source === null) throw new RenderUsageError('missing CAPTURE or LINK');
  if (o.out === null) throw new RenderUsageError('missing --out FILE.svg or FILE.png');
  if (!/\.(svg|png)$/i.test(o.out)) throw new RenderUsageError(`--out must end in .svg or .png, got '${o.out}'`);
  if (o.from !== null && o.to !== null && !(o.to > o.from)) throw new RenderUsageError('--to must be after --from');
  return o;
}

/** The view the figure shows: the options, then --view (or the link's own fragment), then the page's defaults. */
function figureView(o, bundle, report, err) {
  const fragment = o.view ?? (o.source.includes('#') ? o.source : null);
  const parsed = fragment === null ? null : bundle.parseViewWithRefusals(fragment.slice(fragment.indexOf('#') + 1));
  // What the page would list under "was ignored" is said here too, and the figure drawn without it.
  // A refusal quotes the link's own text: escaped (`#theme=%1b[2J` must not clear the screen).
  for (const line of parsed?.refused ?? []) err.write(`tcpscope: warning: ${escapeUnsafe(line)}\n`);
  const v = parsed?.view ?? null;
  const chart = o.chart ?? v?.charts[0] ?? 'throughput';
  if (!bundle.CHART_IDS.includes(chart) && chart !== 'stack') throw new RenderUsageError(`--chart must be one of ${bundle.CHART_IDS.join(', ')}, stack, got '${escapeUnsafe(chart)}'`);
  const id = o.connection ?? v?.conn ?? bundle.largestConnection(report.connections)?.id;
  if (id === undefined) throw new EngineError(`${escapeUnsafe(o.source)} holds no TCP connection`, 1);
  const summary = connectionOf(report, id, o.source);
  const [from, to] = [o.from ?? v?.range?.[0] ?? null, o.to ?? v?.range?.[1] ?? null];
  return {
    summary, chart,
    // A stack shows the view's charts, and the Wi-Fi chart where the page would (a Wi-Fi link).
    charts: v?.charts, wifi: report.capture.linkTypes.some((l) => l === 'ieee802-11-radiotap' || l === 'ppi'),
    range: from === null && to === null ? null : [from ?? summary.start, to ?? summary.end],
    theme: o.theme ?? (v?.theme === 'dark' ? 'dark' : 'light'),
    binMs: o.bin !== null ? o.bin * 1000 : v?.binMs ?? null,
    stallMs: o.stallMs ?? v?.stallMs ?? null,
  };
}

/** Rasterises a standalone SVG to PNG bytes at `scale` × its size (resvg, system fonts). */
export async function svgToPngBytes(svg, scale) {
  const { Resvg } = await import('@resvg/resvg-js');
  const resvg = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, font: { loadSystemFonts: true } });
  return resvg.render().asPng();
}

/**
 * Why the figure cannot be written to `out`, or null (issue 45, item 3), checked before any
 * work: its folder must exist, `out` must not be a folder, nor the input itself (a capture
 * saved under a .png name was overwritten by its own figure).
 */
export function outProblem(out, source) {
  const folder = dirname(resolve(out));
  const info = (path) => {
    try {
      return statSync(path);
    } catch {
      return null;
    }
  };
  const dir = info(folder);
  if (!dir) return `cannot write '${escapeUnsafe(out)}': the folder '${escapeUnsafe(folder)}' does not exist`;
  if (!dir.isDirectory()) return `cannot write '${escapeUnsafe(out)}': '${escapeUnsafe(folder)}' is not a folder`;
  const target = info(out);
  if (target?.isDirectory()) return `cannot write '${escapeUnsafe(out)}': it is a folder; name the figure's file`;
  const input = source === '-' ? null : info(source);
  if (target && input && target.dev === input.dev && target.ino === input.ino) {
    return `cannot write '${escapeUnsafe(out)}': it is the input itself; name another file for the figure`;
  }
  return null;
}

/** Writes `bytes` to `out` through a temporary file in its folder, renamed at the end: a
 *  figure is either whole or absent, never half written. */
function writeWhole(out, bytes) {
  const temp = join(dirname(resolve(out)), `.${basename(out)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, bytes);
    renameSync(temp, out);
  } catch (e) {
    rmSync(temp, { force: true });
    throw new EngineError(`cannot write '${escapeUnsafe(out)}': ${escapeUnsafe(e.message)}`, 2);
  }
}

/** Runs `tcpscope render ARGS`; sets process.exitCode (0 ok, 1 damaged input or chart failure, 2 usage).
 *  The status is 1 from the start and becomes 0 only once the file is written: if the chart
 *  never settles (a stack that unmounts: Node ends with nothing pending), the exit is not 0. */
export async function runRender(args, err = process.stderr) {
  let engine = null;
  let written = false;
  process.exitCode = 1;
  const unfinished = () => {
    if (!written) err.write('tcpscope: the chart never finished drawing; no figure was written\n');
  };
  process.once('beforeExit', unfinished);
  try {
    const o = parseRenderArgs(args);
    const inputs = [o.source, ...(o.otherEnd === null ? [] : [o.otherEnd])];
    for (const input of inputs) {
      const problem = sourceKind(input) === 'capture' ? inputProblem(input) : null;
      if (problem) throw new EngineError(problem.message, problem.exitCode);
    }
    const twin = wantsTwin(o);
    const outWrong = inputs.map((input) => outProblem(o.out, input)).find(Boolean);
    if (outWrong) throw new EngineError(outWrong, 2);
    if (!existsSync(BUNDLE)) throw new EngineError('the renderer is not built; run `npm run build:render` first', 2);
    const bundle = await import(BUNDLE.href);
    let svg;
    if (twin) {
      // The merged view of two vantage points (twin-render.mjs).
      const loaded = await loadWasm();
      if (!loaded || typeof loaded.wasm.twinLink !== 'function') throw new EngineError('the wasm module is not built (or predates the merged view); run `npm run build:wasm` first', 2);
      svg = await renderTwinFigure(loaded.wasm, bundle, o, twin);
    } else {
      engine = await openEngine(o.source);
      const view = figureView(o, bundle, engine.report, err);
      try {
        svg = await bundle.renderSvg({
          ...view, others: engine.report.connections, width: o.width, height: o.height ?? undefined,
          direction: o.direction ?? undefined, session: engine.session,
        });
      } catch (e) {
        // The chart's own message (ChartMessages: "This chart cannot be drawn: …").
        throw new EngineError(escapeUnsafe(e?.message ?? String(e)), 1);
      }
    }
    let bytes;
    try {
      bytes = /\.png$/i.test(o.out) ? await svgToPngBytes(svg, o.scale) : `${svg}\n`;
    } catch (e) {
      throw new EngineError(`the figure could not be rasterised: ${escapeUnsafe(e?.message ?? String(e))}`, 1);
    }
    writeWhole(o.out, bytes);
    written = true;
    process.exitCode = engine?.report.error ? 1 : 0;
  } catch (e) {
    written = true; // said why below
    if (e instanceof RenderUsageError) fail(err, e.message, 'render', 2);
    else if (e instanceof EngineError || e instanceof TwinFigureError) fail(err, e.message, 'render', e.exitCode);
    else fail(err, `the figure could not be made: ${e?.message ?? String(e)}`, 'render', 1);
  } finally {
    process.removeListener('beforeExit', unfinished);
    engine?.session.free();
  }
}
