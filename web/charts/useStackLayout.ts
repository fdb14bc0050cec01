// What a stack of charts on one time axis needs from React, shared by the connection
// stack (components/ConnectionCharts.tsx) and the compare view (compare/CompareView.tsx):
// the width it is drawn at, and range changes from pointer gestures at most once per frame.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { TimeRange } from './timeRange';
import { inThisFrame } from './useD3';

/**
 * The container's width in px (at least 320), or `fixed` when given. Measured before
 * the first paint, so the charts' first questions and drawing are at the real width:
 * waiting for the ResizeObserver's first report drew (and could report ready, and be
 * exported) at the 900 px placeholder, then asked and drew everything again.
 */
export function useContainerWidth(fixed?: number) {
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(fixed ?? 900);
  useLayoutEffect(() => {
    if (fixed != null) { setWidth(fixed); return; }
    const el = ref.current;
    if (!el) return;
    const fit = (w: number) => { if (w > 0) setWidth(Math.max(320, Math.floor(w))); }; // 0: not laid out (jsdom)
    fit(el.getBoundingClientRect().width);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(([entry]) => fit(entry.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, [fixed]);
  return [ref, width] as const;
}

/** `setRange` for pointer gestures, which fire faster than the screen refreshes: at most one range per frame. */
export function useGestureRange(setRange: (r: TimeRange) => void): (r: TimeRange) => void {
  const pending = useRef<TimeRange | null>(null);
  const frameRequest = useRef(0);
  const setRangeRef = useRef(setRange);
  setRangeRef.current = setRange;
  useEffect(() => () => cancelAnimationFrame(frameRequest.current), []);
  return useCallback((r: TimeRange) => {
    pending.current = r;
    if (frameRequest.current || typeof requestAnimationFrame === 'undefined') {
      if (!frameRequest.current) setRangeRef.current(r);
      return;
    }
    frameRequest.current = requestAnimationFrame(() => {
      frameRequest.current = 0;
      const r = pending.current;
      // Rendered and drawn in this frame (useD3.ts inThisFrame), not in a task after it.
      if (r) inThisFrame(() => flushSync(() => setRangeRef.current(r)));
    });
  }, []);
}
