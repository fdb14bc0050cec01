// Interval answers (stalls, window-limited spans; wasm/src/view/intervals.rs) as
// rectangles: each listed interval at its true extent (at least 1 px wide), and when
// the engine listed only some (`more` > 0), its per-column coverage as a band so the
// unlisted ones still show.
import type { Interval } from '../worker/generated/view';
import type { ViewAnswer } from '../worker/viewAnswer';
import type { Frame } from './frame';

export type IntervalAnswer = Extract<ViewAnswer, { kind: 'intervals' }>;
export const intervalsOf = (a: ViewAnswer | null | undefined): IntervalAnswer | null => (a && a.kind === 'intervals' ? a : null);

/**
 * `title` given: one <rect> per interval with its tooltip (stalls: few, each named).
 * Without: all listed intervals as one <path> (window-limited spans: many, shading).
 */
export function drawIntervals(
  f: Frame, cls: string, iv: IntervalAnswer, top: number, height: number,
  title?: (i: Interval) => string, rectClass?: (i: Interval) => string, minWidth = 1,
): void {
  const g = f.plot.append('g').attr('class', cls).attr('data-count', iv.intervals.length + iv.more)
    .attr('data-total-seconds', iv.totalSeconds);
  if (iv.activeSeconds != null) g.attr('data-active-seconds', iv.activeSeconds);
  if (title) {
    const rects = g.selectAll('rect.tcps-interval').data(iv.intervals).join('rect')
      .attr('class', (i) => `tcps-interval${rectClass ? ` ${rectClass(i)}` : ''}`)
      .attr('x', (i) => f.x(i.start)).attr('width', (i) => Math.max(minWidth, f.x(i.end) - f.x(i.start)))
      .attr('y', top).attr('height', height);
    rects.append('title').text(title);
  } else {
    let d = '';
    for (const i of iv.intervals) {
      const x0 = f.x(i.start), x1 = Math.max(x0 + minWidth, f.x(i.end));
      d += `M${x0.toFixed(1)},${top}H${x1.toFixed(1)}V${top + height}H${x0.toFixed(1)}Z`;
    }
    g.append('path').attr('class', 'tcps-interval-spans').attr('d', d);
  }
  const coverage = g.append('path').attr('class', 'tcps-coverage');
  if (iv.coverage && iv.more > 0) {
    // Coverage per pixel column of the answer's own view [t0, t1] (the drawn range may have moved since).
    const cover = iv.coverage;
    const { t0, t1 } = iv;
    const w = (t1 - t0) / cover.length;
    let d = '';
    for (let c = 0; c < cover.length; c++) {
      if (!(cover[c] > 0)) continue;
      const x0 = f.x(t0 + c * w), x1 = f.x(t0 + (c + 1) * w);
      const h = Math.max(1, cover[c] * height);
      d += `M${x0.toFixed(1)},${(top + height - h).toFixed(1)}H${Math.max(x1, x0 + 1).toFixed(1)}V${(top + height).toFixed(1)}H${x0.toFixed(1)}Z`;
    }
    coverage.attr('d', d).append('title').text(`${iv.more} more not listed: shaded by the share of each pixel column they cover`);
  }
}
