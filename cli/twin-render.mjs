// `tcpscope render` of the merged view of two vantage points (issue 44, item 5): the
// one-way delay charts of one pair, drawn by the page's own chart code (the render
// bundle's renderTwinSvg, web/render/renderTwin.tsx) from
//  - two captures merged here: `render CLIENT.pcap --other-end SERVER.pcap --chart oneway`
//    (the engine's merge through bindings.rs `WasmTwin`, as `analyze --other-end`), or
//  - a compare link that carries the merged view (`twin-snap=`, read by bindings.rs
//    `twinLink`): `render LINK` draws it unless --chart names another chart.
// Nothing is computed here: the pair is the engine's, the figure the page's.
import { basename } from 'node:path';
import { escapeUnsafe } from './outsideText.mjs';
import { InputError } from './errors.mjs';
import { linkText, sourceKind } from './share.mjs';
import { pushCapture } from './twin.mjs';

/** The merged view's chart ids (web/render/renderTwin.tsx): `oneway`, each direction's
 *  one-way delay (`--direction` picks one); `twin-sequence`, each capture's time-sequence
 *  (the page's `sequence` is one connection's); `twin`, both. */
export const TWIN_CHARTS = ['oneway', 'twin-sequence', 'twin'];

/** Why the options cannot draw a merged view, in words. */
export class TwinFigureError extends Error {
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** The text of a link `source` names (on the command line or in a small file), when it
 *  carries a merged view; null otherwise. */
export function twinLinkOf(source) {
  const kind = sourceKind(source);
  const text = kind === 'link' ? source : kind === 'link-file' ? linkText(source) : null;
  return text !== null && /[#&]twin-snap=/.test(text) ? text : null;
}

/** Whether the options ask for the merged view: --other-end, a merged-view chart, or a
 *  link holding one with no other chart named. Usage errors say what is missing. */
export function wantsTwin(o) {
  const link = o.otherEnd === null ? twinLinkOf(o.source) : null;
  if (o.otherEnd !== null) {
    if (sourceKind(o.source) !== 'capture') throw new TwinFigureError('--other-end merges two captures; a link carries its merged view already', 2);
    if (o.chart !== null && !TWIN_CHARTS.includes(o.chart)) throw new TwinFigureError(`with --other-end, --chart is ${TWIN_CHARTS.join(', ')} (the merged view's charts), got '${escapeUnsafe(o.chart)}'`, 2);
    return { kind: 'merge' };
  }
  if (TWIN_CHARTS.includes(o.chart)) {
    if (link === null) throw new TwinFigureError(`--chart ${o.chart} draws the merged view of two captures: give --other-end SERVER.pcap, or a compare link that carries one (twin-snap=)`, 2);
    return { kind: 'link', text: link };
  }
  return link !== null && o.chart === null ? { kind: 'link', text: link } : null;
}

/** The two inputs' names, for the charts' descriptions: the files merged, or (a link
 *  holds no file name for the merged view) their order. */
function namesOf(o, twin) {
  return twin.kind === 'merge' ? [o.source, o.otherEnd].map((n) => basename(n)) : ['the first capture', 'the second capture'];
}

/** The merged report: the two captures merged, or the link's merged view read back. */
async function twinReport(wasm, o, twin) {
  if (twin.kind === 'link') {
    const answer = JSON.parse(wasm.twinLink(JSON.stringify({ open: twin.text })));
    if (answer.error) throw new TwinFigureError(escapeUnsafe(answer.error), 1);
    return answer.report;
  }
  const merge = new wasm.WasmTwin(o.stallMs ?? Number.NaN);
  try {
    for (const [which, name] of [o.source, o.otherEnd].entries()) await pushCapture(merge, which, name);
    return JSON.parse(merge.finish());
  } catch (e) {
    // A capture that cannot be read (twin.mjs says which, and why).
    if (e instanceof InputError) throw new TwinFigureError(e.message, 1);
    throw e;
  } finally {
    merge.free();
  }
}

/** The pair to draw: the one whose capture-1 side is connection `--connection` (the first
 *  input's id, as `analyze` numbers it), else the first merged. */
function pairOf(report, connection) {
  if (report.refusal) throw new TwinFigureError(`the two captures were not merged: ${escapeUnsafe(report.refusal.message)}`, 1);
  if (connection === null) return report.pairs.find((p) => !p.refused) ?? report.pairs[0];
  const pair = report.pairs.find((p) => [p.senderSide, p.receiverSide].some((s) => s.input === 0 && s.connection === connection));
  if (!pair) {
    const ids = report.pairs.map((p) => [p.senderSide, p.receiverSide].find((s) => s.input === 0).connection);
    throw new TwinFigureError(`connection ${connection} of the first capture was not found at the other end (found at both: ${ids.join(', ') || 'none'})`, 2);
  }
  return pair;
}

/** The standalone SVG of the merged view `twin` (wantsTwin's answer) asks for. */
export async function renderTwinFigure(wasm, bundle, o, twin) {
  const report = await twinReport(wasm, o, twin);
  const pair = pairOf(report, o.connection);
  try {
    return await bundle.renderTwinSvg({
      pair, chart: o.chart ?? 'oneway', names: namesOf(o, twin), width: o.width, height: o.height ?? undefined,
      theme: o.theme ?? 'light', direction: o.direction ?? undefined,
    });
  } catch (e) {
    throw new TwinFigureError(escapeUnsafe(e?.message ?? String(e)), 1);
  }
}
