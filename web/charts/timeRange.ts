// Pure arithmetic on the shared time range [t0, t1] (seconds since the first packet
// of the file): zoom about an anchor, pan, clamp to the connection's extent. Used by
// the mouse/touch interactions of every chart and by the keyboard handler of the stack.

export type TimeRange = [number, number];

/** Narrowest range a user can zoom to: 1 µs, the resolution of pcap timestamps. */
export const MIN_SPAN = 1e-6;

/** The full extent of a connection with a small margin, never empty. */
export function fullRange(start: number, end: number): TimeRange {
  const span = end - start;
  if (!(span > 0)) return [start - 0.0005, start + 0.0005];
  const pad = span * 0.01;
  return [start - pad, end + pad];
}

/**
 * The range the charts open on: the engine's data view (`summary.dataView`: the data
 * segments' span with a margin, when the connection idled for a good part of its time;
 * wasm analysis/run/opening_view.rs) kept inside `full`, else `full`. Computed in Rust:
 * this only applies it.
 */
export function openingRange(dataView: readonly [number, number] | null | undefined, full: TimeRange): TimeRange {
  return dataView && dataView.every(Number.isFinite) ? clampRange([dataView[0], dataView[1]], full) : full;
}

/**
 * The range the charts draw: the asked one kept inside `full`, or `opening` when none
 * is asked (openingRange; the whole connection by default). A share link is gridded on
 * it too, so the receiver asks for exactly the link's columns.
 */
export function shownRange(asked: TimeRange | null, full: TimeRange, opening: TimeRange = full): TimeRange {
  return asked ? clampRange(asked, full) : opening;
}

/** Keep `r` inside `full`, at least MIN_SPAN wide, preserving its width where possible. */
export function clampRange(r: TimeRange, full: TimeRange): TimeRange {
  const fullSpan = full[1] - full[0];
  let span = Math.min(Math.max(r[1] - r[0], MIN_SPAN), fullSpan);
  if (!Number.isFinite(span)) span = fullSpan;
  let t0 = Number.isFinite(r[0]) ? r[0] : full[0];
  if (t0 < full[0]) t0 = full[0];
  if (t0 + span > full[1]) t0 = full[1] - span;
  return [t0, t0 + span];
}

/** Zoom by `factor` (> 1 zooms in) keeping time `anchor` at the same screen position. */
export function zoomRange(r: TimeRange, factor: number, anchor: number, full: TimeRange): TimeRange {
  const f = factor > 0 ? factor : 1;
  const t0 = anchor - (anchor - r[0]) / f;
  const t1 = anchor + (r[1] - anchor) / f;
  if (t1 - t0 < MIN_SPAN) {
    const mid = Math.min(Math.max(anchor, r[0]), r[1]);
    return clampRange([mid - MIN_SPAN / 2, mid + MIN_SPAN / 2], full);
  }
  return clampRange([t0, t1], full);
}

/**
 * Zoom per 100 px of Ctrl/⌘ + wheel: 1.5×, the same step as the + and − keys, so one
 * mouse-wheel notch (100–120 px in Chromium and Firefox) is one key press. d3-zoom's
 * default (2^(0.02 × px)) zoomed 4× per notch and 16× per 200 px notch, overshooting
 * the region being aimed at; Wireshark and Perfetto step by well under 2×.
 */
const WHEEL_ZOOM_PER_100PX = 1.5;
/** One event zooms at most by this many pixels' worth (2.25×): a fast spin, a
 *  high-resolution wheel's large deltas or a page-mode event stays a moderate step. */
const WHEEL_MAX_PX = 200;
/** Pixels per line (deltaMode 1, Firefox's mouse wheel: 3 lines a notch) and per page (2). */
const WHEEL_LINE_PX = 100 / 3;
const WHEEL_PAGE_PX = 800;

/**
 * The zoom factor (> 1 zooms in) of one Ctrl/⌘ + wheel event: proportional in
 * log scale to its vertical delta (wheel up zooms in), so a trackpad's pinch (many small
 * ctrlKey deltas) zooms smoothly and a notch by a fixed step.
 */
export function wheelZoomFactor(deltaY: number, deltaMode: number): number {
  const px = deltaY * (deltaMode === 1 ? WHEEL_LINE_PX : deltaMode === 2 ? WHEEL_PAGE_PX : 1);
  if (!Number.isFinite(px)) return 1;
  const clamped = Math.min(WHEEL_MAX_PX, Math.max(-WHEEL_MAX_PX, -px));
  return WHEEL_ZOOM_PER_100PX ** (clamped / 100);
}

/** Shift by a fraction of the current span (positive = later). */
export function panRange(r: TimeRange, fraction: number, full: TimeRange): TimeRange {
  const d = (r[1] - r[0]) * fraction;
  return clampRange([r[0] + d, r[1] + d], full);
}

export function sameRange(a: TimeRange | null | undefined, b: TimeRange | null | undefined, eps = 1e-12): boolean {
  if (!a || !b) return a === b;
  return Math.abs(a[0] - b[0]) <= eps && Math.abs(a[1] - b[1]) <= eps;
}

/**
 * The range a key asks for on a chart stack (the stack's and the compare view's
 * keyboard): ←/→ pan a tenth (a half with Shift), +/= zoom in, −/_ zoom out, 0 the
 * whole connection (null; the stack draws it as `full`, the compare view resets).
 * Undefined: the key is not a range key.
 */
export function rangeForKey(key: string, shift: boolean, r: TimeRange, full: TimeRange): TimeRange | null | undefined {
  const mid = (r[0] + r[1]) / 2;
  if (key === 'ArrowLeft') return panRange(r, shift ? -0.5 : -0.1, full);
  if (key === 'ArrowRight') return panRange(r, shift ? 0.5 : 0.1, full);
  if (key === '+' || key === '=') return zoomRange(r, 1.5, mid, full);
  if (key === '-' || key === '_') return zoomRange(r, 1 / 1.5, mid, full);
  if (key === '0') return null;
  return undefined;
}

/** Keys typed into a form control, or with a modifier, are not the stack's. */
export function isStackKey(e: { target: EventTarget | null; ctrlKey: boolean; metaKey: boolean; altKey: boolean }): boolean {
  const tag = (e.target as HTMLElement | null)?.tagName;
  return !(tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey);
}
