// Path strings from the engine's M4 answers (wasm/src/view/m4.rs: per non-empty pixel
// column the first, last, minimum and maximum point). Drawing the four per column
// covers the same pixels as drawing every point: nothing here decides a value.
import type { PackedPoints } from '../worker/viewAnswer';

type Scale = (v: number) => number;
const r1 = (v: number) => Math.round(v * 10) / 10;

/** A line through every point: per column first → min/max → last. */
export function m4LinePath(p: PackedPoints, x: Scale, y: Scale): string {
  let d = '';
  for (let k = 0; k < p.column.length; k++) {
    d += `${k ? 'L' : 'M'}${r1(x(p.tFirst[k]))},${r1(y(p.first[k]))}`;
    if (p.count[k] > 1) d += `V${r1(y(p.min[k]))}V${r1(y(p.max[k]))}L${r1(x(p.tLast[k]))},${r1(y(p.last[k]))}`;
  }
  return d;
}

/**
 * A step line (a value holds until the next point: windows, ACKs): from the point
 * before the view, through each column, to the first point after it or `xEnd`.
 */
export function m4StepPath(p: PackedPoints, x: Scale, y: Scale, xEnd?: number): string {
  let d = '';
  let pen = false;
  const to = (t: number, v: number) => {
    d += pen ? `H${r1(x(t))}V${r1(y(v))}` : `M${r1(x(t))},${r1(y(v))}`;
    pen = true;
  };
  if (p.before) to(p.before[0], p.before[1]);
  for (let k = 0; k < p.column.length; k++) {
    to(p.tFirst[k], p.first[k]);
    if (p.count[k] > 1) d += `V${r1(y(p.min[k]))}V${r1(y(p.max[k]))}H${r1(x(p.tLast[k]))}V${r1(y(p.last[k]))}`;
  }
  if (p.after) to(p.after[0], p.after[1]);
  else if (pen && xEnd != null && Number.isFinite(xEnd)) d += `H${r1(xEnd)}`;
  return d;
}

/**
 * Each column's points as one mark: a bar from its minimum to its maximum (at least
 * `size` px tall, so a single point is a square dot) at the column's first point.
 */
export function m4BarsPath(p: PackedPoints, x: Scale, y: Scale, size = 2.5): string {
  let d = '';
  const half = size / 2;
  for (let k = 0; k < p.column.length; k++) {
    const px = x(p.tFirst[k]);
    const a = y(p.min[k]), b = y(p.max[k]);
    const top = Math.min(a, b) - half, bottom = Math.max(a, b, top + 2 * half) + half;
    d += `M${r1(px)},${r1(bottom)}V${r1(top)}`;
  }
  return d;
}

/** Largest value of the answer (for the y scale); 0 when empty. */
export function m4Max(p: PackedPoints | null | undefined): number {
  let m = 0;
  if (!p) return m;
  for (let k = 0; k < p.max.length; k++) if (p.max[k] > m) m = p.max[k];
  if (p.before && p.before[1] > m) m = p.before[1];
  return m;
}

/** Smallest and largest value of the answers, [Infinity, -Infinity] when all are empty. */
export function m4Extent(list: (PackedPoints | null | undefined)[]): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (const p of list) {
    if (!p) continue;
    for (let k = 0; k < p.min.length; k++) { if (p.min[k] < lo) lo = p.min[k]; if (p.max[k] > hi) hi = p.max[k]; }
  }
  return [lo, hi];
}
