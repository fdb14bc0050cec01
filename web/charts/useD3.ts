// When a chart's D3 drawing runs. React owns the <svg>; `useD3` calls the chart's pure
// draw function into it at most once per animation frame, and only for charts on
// screen: a zoom or pan gesture changes the range of the whole stack every frame, and
// redrawing the charts scrolled out of view made every frame pay for all six (a trace
// of the 2.5 M-packet bench gesture: 12 chart draws and ~440 restyled SVG elements per
// range change, while the viewport showed one chart). So while a gesture is under way
// a chart out of view is drawn in idle time once the range has been still for
// DEFERRED_DRAW_MS, or at once when it scrolls into view, and `flushDeferredDraws`
// brings every chart up to date before something reads the drawn SVG (the export).
// Outside gestures every chart draws its answers at once, so the app's "ready" still
// means every chart is drawn.

import { useEffect, useRef } from 'react';

/** Quiet time after the last change before a chart out of view is drawn. */
export const DEFERRED_DRAW_MS = 200;
/** Charts count as on screen when any part of them is in the viewport. */
const VIEWPORT_MARGIN = '0px';

/** The draws waiting for their chart to come into view or for the range to settle. */
const deferred = new Set<() => void>();

/** Set while `inThisFrame` runs: charts on screen draw at once instead of next frame. */
let drawingFrame = false;
/** When the last gesture frame ran (performance.now()); -Infinity before any. */
let lastGestureAt = -Infinity;
const gesturing = () => performance.now() - lastGestureAt < DEFERRED_DRAW_MS;

/**
 * Run `render` (a synchronous React update, flushSync) inside an animation frame
 * callback so that the charts it changes draw in this frame: the pixels follow the
 * gesture one frame sooner, and the DOM is written before the frame's style and
 * layout, not in a task after it, where the next pointer event's hit test (d3.pointer's
 * getScreenCTM) had to lay the page out again synchronously (a forced layout on every
 * other mousemove in the bench trace).
 */
export function inThisFrame(render: () => void): void {
  lastGestureAt = performance.now();
  drawingFrame = true;
  try {
    render();
  } finally {
    drawingFrame = false;
  }
}

/** Draw every chart whose drawing waits, now (before exporting what is drawn). */
export function flushDeferredDraws(): void {
  for (const draw of [...deferred]) draw();
}

/**
 * React owns the <svg>; D3 draws into it once per animation frame after renders where
 * `deps` changed (a new range and a new answer in the same frame draw once); during a
 * gesture a chart out of view waits (see above). Returns the ref to put on the <svg>.
 */
export function useD3(draw: (svg: SVGSVGElement) => void, deps: unknown[]) {
  const ref = useRef<SVGSVGElement>(null);
  const drawRef = useRef(draw);
  drawRef.current = draw;
  const frame = useRef(0);
  const timer = useRef(0);
  const idle = useRef(0);
  // Until the observer's first report the chart counts as visible: it draws.
  const visible = useRef(true);
  const state = useRef<{ drawNow: () => void; inFrame: () => void } | null>(null);

  if (!state.current) {
    const drawNow = () => {
      if (frame.current) cancelAnimationFrame(frame.current);
      if (timer.current) clearTimeout(timer.current);
      if (idle.current) cancelIdleCallback(idle.current);
      frame.current = 0;
      timer.current = 0;
      idle.current = 0;
      deferred.delete(drawNow);
      if (ref.current) drawRef.current(ref.current);
    };
    const inFrame = () => {
      if (drawingFrame) drawNow();
      else if (!frame.current) frame.current = requestAnimationFrame(drawNow);
    };
    state.current = { drawNow, inFrame };
  }

  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      visible.current = entries[entries.length - 1].isIntersecting;
      if (visible.current && deferred.has(state.current!.drawNow)) state.current!.inFrame();
    }, { rootMargin: VIEWPORT_MARGIN });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const { drawNow, inFrame } = state.current!;
    if (typeof requestAnimationFrame === 'undefined' || !ref.current?.hasChildNodes()) {
      // First draw (or no frames, e.g. in tests): now, so the chart is never empty.
      drawNow();
      return;
    }
    if (visible.current || !gesturing()) {
      inFrame();
      return;
    }
    deferred.add(drawNow);
    clearTimeout(timer.current);
    // Then in idle time, chart by chart: the charts out of view drawing in one task
    // would make a long frame if the next gesture has begun.
    timer.current = window.setTimeout(() => {
      if (typeof requestIdleCallback === 'undefined') drawNow();
      else idle.current = requestIdleCallback(drawNow, { timeout: DEFERRED_DRAW_MS });
    }, DEFERRED_DRAW_MS);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => () => {
    cancelAnimationFrame(frame.current);
    clearTimeout(timer.current);
    if (idle.current) cancelIdleCallback(idle.current);
    deferred.delete(state.current!.drawNow);
  }, []);
  return ref;
}
