// @vitest-environment jsdom
// The in-place axis: d3-axis's markup, tick elements kept and moved from draw to draw.
import { describe, expect, it } from 'vitest';
import * as d3 from 'd3';
import { writeAxis } from './axes';
import type { G } from './frame';

const newGroup = (): G => d3.select(document.createElementNS('http://www.w3.org/2000/svg', 'g')) as unknown as G;
const labels = (g: G) => [...g.node()!.querySelectorAll('.tick text')].map((t) => t.textContent);

describe('writeAxis', () => {
  it('writes a tick and label per value and moves the same elements when the values change (a pan)', () => {
    const g = newGroup();
    const x = d3.scaleLinear().domain([0, 10]).range([0, 100]);
    writeAxis(g, 'bottom', x, [0, 5, 10], String, 100);
    expect(labels(g)).toEqual(['0', '5', '10']);
    // One path of marks (M…v6 per tick) and d3-axis's domain with no outer ticks.
    expect(g.select('path.tcps-tick-marks').attr('d')).toBe('M0.5,0v6M50.5,0v6M100.5,0v6');
    expect(g.select('path.domain').attr('d')).toBe('M0.5,0V0.5H100.5V0');
    const before = [...g.node()!.querySelectorAll('g.tick')];

    x.domain([2, 12]);
    writeAxis(g, 'bottom', x, [4, 8], String, 100);
    expect(labels(g)).toEqual(['4', '8']);
    const after = [...g.node()!.querySelectorAll('g.tick')];
    expect(after).toEqual(before.slice(0, 2)); // the same elements, the third removed
    expect(after.map((t) => t.getAttribute('transform'))).toEqual(['translate(20.5,0)', 'translate(60.5,0)']);
  });

  it('a left axis puts its labels before the ticks, formatted', () => {
    const g = newGroup();
    const y = d3.scaleLinear().domain([0, 100]).range([50, 0]);
    writeAxis(g, 'left', y, [0, 100], (v) => `${v} ms`, 50);
    expect(labels(g)).toEqual(['0 ms', '100 ms']);
    expect(g.select('path.tcps-tick-marks').attr('d')).toBe('M0,50.5h-6M0,0.5h-6');
    expect(g.select('.tick text').attr('x')).toBe('-9');
  });
});
