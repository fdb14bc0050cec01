// Mouse, touch and wheel interactions on a chart's time axis, shared by every chart:
//   drag (or one-finger touch) pans, pinch or Ctrl/⌘ + wheel zooms about the pointer,
//   a horizontal wheel/trackpad swipe pans, Shift + drag brushes a range to zoom into,
//   double-click shows the whole connection, and hovering shows a tooltip with the
//   nearest point (the chart's `pick`) plus a crosshair mirrored on the other charts.
// A plain vertical wheel is left to the page, so a stack of charts still scrolls.
// Nothing here owns the range: every gesture calls `onRangeChange` and the next render
// (with the new range from props) re-synchronises d3-zoom's stored transform.

import * as d3 from 'd3';
import type { Frame, ChartView } from './frame';
import { clampRange, MIN_SPAN, panRange, wheelZoomFactor, zoomRange, type TimeRange } from './timeRange';

/** What a chart shows at the pointer: position in plot pixels and lines of text. */
export interface Tip { x: number; y: number; lines: string[] }
/** The tip at the pointer; charts ask the engine for the exact value (view/at.rs), so it may come later. */
export type Pick = (t: number, px: number, py: number) => Tip | null | Promise<Tip | null>;

/** Hover time shared between the charts of a stack, so each can draw the crosshair. */
export interface HoverBus {
  emit(t: number | null, source: Element): void;
  subscribe(el: Element, fn: (t: number | null) => void): void;
}

export function createHoverBus(): HoverBus {
  const listeners = new Map<Element, (t: number | null) => void>();
  return {
    emit(t, source) {
      for (const [el, fn] of listeners) if (el !== source) fn(t);
    },
    subscribe(el, fn) {
      for (const key of listeners.keys()) if (!key.isConnected && key !== el) listeners.delete(key);
      listeners.set(el, fn);
    },
  };
}

export interface InteractionOptions {
  view: ChartView;
  onRangeChange?: (r: TimeRange) => void;
  pick?: Pick;
  hover?: HoverBus;
  /** Height of the time-axis area that reacts (default: the frame's plot height). */
  height?: number;
}

interface State extends InteractionOptions { frame: Frame }
const states = new WeakMap<SVGGElement, State>();

function zoomTransformFor(view: ChartView, width: number): d3.ZoomTransform {
  const fullSpan = view.full[1] - view.full[0];
  const k = fullSpan / Math.max(MIN_SPAN, view.range[1] - view.range[0]);
  const x0 = ((view.range[0] - view.full[0]) / fullSpan) * width;
  return new d3.ZoomTransform(k, -k * x0, 0);
}

/** Attach (once) and update the time-axis interactions of a frame. */
export function bindTimeInteractions(f: Frame, opts: InteractionOptions): void {
  const el = f.interact.node()!;
  const fresh = !states.has(el);
  const st: State = { ...opts, frame: f };
  states.set(el, st);
  const w = f.innerWidth;
  const h = opts.height ?? f.innerHeight;

  if (fresh) setUp(el);
  const brush = brushes.get(el)!;
  // (Re)applying the brush rebuilds its overlay and handles: only when its extent changes,
  // not on every pan/zoom frame.
  const extent = `${w},${h}`;
  if (brushExtents.get(el) !== extent) {
    brushExtents.set(el, extent);
    brush.extent([[0, 0], [w, h]]);
    f.interact.select<SVGGElement>('g.tcps-brush').call(brush)
      .call((g) => g.select('.overlay').attr('cursor', null));
  }
  // Keep d3-zoom's idea of the current transform in step with the range from props.
  (el as unknown as { __zoom: d3.ZoomTransform }).__zoom = zoomTransformFor(opts.view, w);
}

/** Latest pointer move per chart: an answer for an older position is not shown. */
const tipTokens = new WeakMap<SVGGElement, number>();
/** The token while a drag is under way (the tip is hidden once, not on every move). */
const DRAGGING = -1;
const brushes = new WeakMap<SVGGElement, d3.BrushBehavior<unknown>>();
const brushExtents = new WeakMap<SVGGElement, string>();

function setUp(el: SVGGElement): void {
  const g = d3.select(el);
  const current = () => states.get(el)!;
  const change = (r: TimeRange) => {
    const st = current();
    st.onRangeChange?.(clampRange(r, st.view.full));
  };

  const zoom = d3.zoom<SVGGElement, unknown>()
    .filter((e: Event & { shiftKey?: boolean; button?: number }) => !e.shiftKey && !e.button && e.type !== 'wheel' && e.type !== 'dblclick')
    .extent(() => [[0, 0], [current().frame.innerWidth, current().height ?? current().frame.innerHeight]])
    .scaleExtent([1, Infinity])
    .on('zoom', (e: d3.D3ZoomEvent<SVGGElement, unknown>) => {
      if (!e.sourceEvent) return; // our own transform sync
      const st = current();
      const fullX = d3.scaleLinear().domain(st.view.full).range([0, st.frame.innerWidth]);
      const [a, b] = e.transform.rescaleX(fullX).domain();
      change([a, b]);
    });
  g.call(zoom).on('dblclick.zoom', null);
  g.on('dblclick.tcps', () => change(current().view.full));

  g.on('wheel.tcps', (e: WheelEvent) => {
    const st = current();
    const [px] = d3.pointer(e, el);
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      // Pinch gestures arrive with ctrlKey too: the same proportional factor serves both.
      const anchor = st.frame.x.invert(px);
      change(zoomRange(st.view.range, wheelZoomFactor(e.deltaY, e.deltaMode), anchor, st.view.full));
    } else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      change(panRange(st.view.range, e.deltaX / st.frame.innerWidth, st.view.full));
    }
  }, { passive: false });

  const brushG = g.append('g').attr('class', 'tcps-brush');
  const brush = d3.brushX<unknown>()
    .filter((e: MouseEvent) => e.shiftKey && !e.button)
    .on('end', (e: d3.D3BrushEvent<unknown>) => {
      if (!e.sourceEvent || !e.selection) return;
      const st = current();
      const [a, b] = (e.selection as [number, number]).map((v) => st.frame.x.invert(v));
      brushG.call(brush.move, null);
      if (b - a >= MIN_SPAN) change([a, b]);
    });
  brushes.set(el, brush);

  g.on('pointermove.tcps', (e: PointerEvent) => {
    const st = current();
    if (e.buttons) {
      // A drag pans the stack: no tooltip and no engine question per move. Writing
      // them here, just before d3-zoom's mousemove reads the pointer (getScreenCTM),
      // forced a synchronous style and layout on every move of a drag.
      if (tipTokens.get(el) !== DRAGGING) {
        tipTokens.set(el, DRAGGING);
        showTip(st.frame, null, NaN);
        st.hover?.emit(null, el);
      }
      return;
    }
    const [px, py] = d3.pointer(e, el);
    const t = st.frame.x.invert(px);
    const token = Math.max(0, tipTokens.get(el) ?? 0) + 1;
    tipTokens.set(el, token);
    const tip = st.pick?.(t, px, py) ?? null;
    if (tip instanceof Promise) {
      showTip(st.frame, null, px); // the crosshair now, the numbers when the engine answers
      // Shown only if the pointer has not moved on meanwhile.
      tip.then((r) => { if (tipTokens.get(el) === token) showTip(current().frame, r, px); }, () => undefined);
    } else {
      showTip(st.frame, tip, px);
    }
    st.hover?.emit(t, el);
  });
  g.on('pointerleave.tcps', () => {
    const st = current();
    tipTokens.set(el, Math.max(0, tipTokens.get(el) ?? 0) + 1);
    showTip(st.frame, null, NaN);
    st.hover?.emit(null, el);
  });
}

/** Subscribe this chart to the stack's hover bus (crosshair where another chart is hovered). */
export function followHover(f: Frame, bus: HoverBus | undefined): void {
  if (!bus) return;
  const el = f.interact.node()!;
  bus.subscribe(el, (t) => {
    const st = states.get(el);
    const frame = st?.frame ?? f;
    const px = t == null ? NaN : frame.x(t);
    showTip(frame, null, px);
  });
}

const CHAR_W = 6.6; // px per character at the 11px tooltip font, when getBBox is unavailable

/** Draw (or hide, with tip = null and px = NaN) the crosshair and tooltip in the overlay layer. */
export function showTip(f: Frame, tip: Tip | null, px: number): void {
  const o = f.overlay;
  const h = f.innerHeight;
  const cx = tip ? tip.x : px;
  const shown = Number.isFinite(cx) && cx >= 0 && cx <= f.innerWidth;
  // The crosshair alone (every chart of the stack gets one on every pointer move) is
  // moved in place: re-creating it restyled an element per chart per move.
  const node = o.node()!;
  if (!tip && shown && node.childElementCount === 1 && node.firstElementChild!.matches('line.tcps-crosshair')) {
    o.select(':scope > line').attr('x1', cx).attr('x2', cx).attr('y2', h);
    return;
  }
  if (node.hasChildNodes()) node.replaceChildren();
  if (!shown) return;
  o.append('line').attr('class', 'tcps-crosshair').attr('x1', cx).attr('x2', cx).attr('y1', 0).attr('y2', h);
  if (!tip) return;
  o.append('circle').attr('class', 'tcps-tip-point').attr('cx', tip.x).attr('cy', tip.y).attr('r', 4);
  const box = o.append('g').attr('class', 'tcps-tooltip');
  const rect = box.append('rect').attr('rx', 3);
  const text = box.append('text');
  tip.lines.forEach((line, i) => text.append('tspan').attr('x', 8).attr('y', 16 + i * 14).text(line));
  const width = 16 + CHAR_W * Math.max(...tip.lines.map((l) => l.length));
  const height = 8 + 14 * tip.lines.length;
  rect.attr('width', width).attr('height', height);
  // Place the box beside the point, flipped to stay inside the plot.
  const bx = tip.x + 12 + width > f.innerWidth ? tip.x - 12 - width : tip.x + 12;
  const by = Math.min(Math.max(0, tip.y - height / 2), Math.max(0, h - height));
  box.attr('transform', `translate(${bx},${by})`);
}
