// Path-string builders for dense marks. One <path> per series (instead of one element
// per point) keeps the DOM small; the answers they draw are per pixel column already
// (wasm/src/view), so a path never has more than a few points per column.

type Px = (i: number) => number;

const r1 = (v: number) => Math.round(v * 10) / 10;

/** Polyline through the points `idx` (ascending); NaN values break the line. */
export function linePath(idx: ArrayLike<number>, x: Px, y: Px): string {
  let d = '';
  let pen = false;
  for (let k = 0; k < idx.length; k++) {
    const px = x(idx[k]), py = y(idx[k]);
    if (!Number.isFinite(px) || !Number.isFinite(py)) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${r1(px)},${r1(py)}`;
    pen = true;
  }
  return d;
}

/**
 * Step-after line (a value holds until the next sample): the advertised window, the
 * cumulative ACK. `xEnd`, when given, extends the last value to that x.
 */
export function stepPath(idx: ArrayLike<number>, x: Px, y: Px, xEnd?: number): string {
  let d = '';
  let pen = false;
  let lastY = NaN;
  for (let k = 0; k < idx.length; k++) {
    const px = x(idx[k]), py = y(idx[k]);
    if (!Number.isFinite(px) || !Number.isFinite(py)) { pen = false; continue; }
    if (!pen) d += `M${r1(px)},${r1(py)}`;
    else d += `H${r1(px)}V${r1(py)}`;
    pen = true;
    lastY = py;
  }
  if (pen && xEnd != null && Number.isFinite(lastY)) d += `H${r1(xEnd)}`;
  return d;
}

/**
 * Dots as short horizontal strokes `size` px long: with stroke-width = size they are
 * squares. Squares (butt caps) rasterise several times faster than round caps, which
 * matters with thousands of dots on screen.
 */
export function dotsPath(idx: ArrayLike<number>, x: Px, y: Px, size = 2.5): string {
  let d = '';
  const half = size / 2;
  for (let k = 0; k < idx.length; k++) {
    const px = x(idx[k]), py = y(idx[k]);
    if (Number.isFinite(px) && Number.isFinite(py)) d += `M${r1(px - half)},${r1(py)}h${size}`;
  }
  return d;
}

/** Vertical bars from y0(i) to y1(i) at x(i) (sequence-graph segments, SACK blocks). */
export function barsPath(idx: ArrayLike<number>, x: Px, y0: Px, y1: Px): string {
  let d = '';
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k];
    const px = x(i), a = y0(i), b = y1(i);
    if (!Number.isFinite(px) || !Number.isFinite(a) || !Number.isFinite(b)) continue;
    // At least one pixel tall so a 1-byte segment is still visible at full zoom-out.
    const top = Math.min(a, b), bottom = Math.max(a, b, top + 1);
    d += `M${r1(px)},${r1(bottom)}V${r1(top)}`;
  }
  return d;
}

/** Short horizontal ticks centred at (x, y) (duplicate ACKs). */
export function ticksPath(idx: ArrayLike<number>, x: Px, y: Px, half = 3): string {
  let d = '';
  for (let k = 0; k < idx.length; k++) {
    const px = x(idx[k]), py = y(idx[k]);
    if (Number.isFinite(px) && Number.isFinite(py)) d += `M${r1(px - half)},${r1(py)}h${2 * half}`;
  }
  return d;
}

/** Number of subpaths ("M" commands) in a path string: how tests count drawn marks. */
export function countMarks(d: string | null): number {
  return d ? (d.match(/M/g) ?? []).length : 0;
}
