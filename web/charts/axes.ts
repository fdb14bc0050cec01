// An axis written in place: the same markup as d3-axis (a `path.domain`, one `g.tick`
// with its label per tick, so the CSS, the export and the tests see the same thing) but
// the tick marks are one path, and the tick groups are kept and moved rather than
// joined by value. During a zoom or pan every tick value changes on every frame, so
// d3-axis's join removed and re-created every tick (<g>, <line>, <text>) of every chart
// on screen each frame, and set every attribute of the ticks it kept: a third of the
// charts' drawing time and most of the elements restyled per frame in the bench trace.

import type { G } from './frame';

export type AxisOrient = 'bottom' | 'left';

/** Half-pixel offset d3-axis uses so 1 px lines fall on pixels (none on high-DPI screens). */
export const pixelOffset = () => (typeof window !== 'undefined' && window.devicePixelRatio > 1 ? 0 : 0.5);
const TICK_SIZE = 6;
const TICK_PADDING = 3;

/**
 * Write the axis for `values` (positions from `scale`, labels from `format`) into `g`:
 * a bottom axis along x ∈ [0, length], a left one along y ∈ [0, length], no outer ticks.
 */
export function writeAxis(
  g: G, orient: AxisOrient, scale: (v: number) => number | undefined, values: number[], format: (v: number) => string, length: number,
): void {
  const offset = pixelOffset();
  const bottom = orient === 'bottom';
  const node = g.node()!;
  let domain = node.querySelector<SVGPathElement>(':scope > path.domain');
  if (!domain) {
    // The attributes d3-axis puts on its group, so an exported chart looks the same.
    g.attr('fill', 'none').attr('font-size', 10).attr('font-family', 'sans-serif').attr('text-anchor', bottom ? 'middle' : 'end');
    domain = g.insert<SVGPathElement>('path', ':first-child').attr('class', 'domain').attr('stroke', 'currentColor').node()!;
  }
  let marks = node.querySelector<SVGPathElement>(':scope > path.tcps-tick-marks');
  if (!marks) marks = g.insert<SVGPathElement>('path', ':scope > path.domain + *').attr('class', 'tcps-tick-marks').attr('stroke', 'currentColor').node()!;
  setAttr(domain, 'd', bottom ? `M${offset},0V${offset}H${length + offset}V0` : `M0,${length + offset}H${offset}V${offset}H0`);

  const ticks = [...node.querySelectorAll<SVGGElement>(':scope > g.tick')];
  let d = '';
  let n = 0;
  for (const v of values) {
    const p = scale(v);
    if (p == null || !Number.isFinite(p)) continue;
    const at = +(p + offset).toFixed(2);
    d += bottom ? `M${at},0v${TICK_SIZE}` : `M0,${at}h${-TICK_SIZE}`;
    let tick = ticks[n];
    if (!tick) {
      tick = g.append('g').attr('class', 'tick').attr('opacity', 1).node()!;
      const text = g.select(() => tick).append('text').attr('fill', 'currentColor');
      if (bottom) text.attr('y', TICK_SIZE + TICK_PADDING).attr('dy', '0.71em');
      else text.attr('x', -(TICK_SIZE + TICK_PADDING)).attr('dy', '0.32em');
    }
    setAttr(tick, 'transform', bottom ? `translate(${at},0)` : `translate(0,${at})`);
    const text = tick.firstElementChild!;
    const label = format(v);
    if (text.textContent !== label) text.textContent = label;
    n++;
  }
  for (const extra of ticks.slice(n)) extra.remove();
  setAttr(marks, 'd', d);
}

/** Writes an attribute only when it changes: an unchanged write still invalidates style. */
function setAttr(el: Element, name: string, value: string): void {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}
