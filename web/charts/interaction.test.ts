// @vitest-environment jsdom
// Pointer moves: the tooltip and the stack's crosshair while hovering, nothing while dragging.
import { describe, expect, it, vi } from 'vitest';
import { beginFrame, type ChartView } from './frame';
import { bindTimeInteractions, createHoverBus, followHover } from './interaction';
import { newSvg } from './testUtil';

const view: ChartView = { range: [0, 10], full: [0, 10], width: 400, height: 200 };
const move = (el: Element, buttons: number) => el.dispatchEvent(new MouseEvent('pointermove', { bubbles: true, buttons, clientX: 50, clientY: 20 }));

describe('pointer moves on a chart', () => {
  it('hovering shows the tip and moves the other charts\' crosshair in place; a drag hides both and asks nothing', () => {
    const hover = createHoverBus();
    const pick = vi.fn(() => ({ x: 50, y: 20, lines: ['50 Mbit/s'] }));
    const a = beginFrame(newSvg(), { chart: 'throughput', title: 'A', description: '', view });
    const b = beginFrame(newSvg(), { chart: 'inflight', title: 'B', description: '', view });
    bindTimeInteractions(a, { view, pick, hover });
    followHover(a, hover);
    bindTimeInteractions(b, { view, hover });
    followHover(b, hover);
    const target = a.interact.node()!;

    move(target, 0);
    expect(pick).toHaveBeenCalledTimes(1);
    expect(a.overlay.selectAll('.tcps-tooltip').size()).toBe(1);
    const crosshair = b.overlay.select('line.tcps-crosshair').node();
    expect(crosshair).not.toBeNull();
    move(target, 0);
    expect(b.overlay.select('line.tcps-crosshair').node()).toBe(crosshair); // the same element, moved

    move(target, 1); // a drag pans: no tip, no crosshair, no question to the engine
    move(target, 1);
    expect(pick).toHaveBeenCalledTimes(2);
    expect(a.overlay.node()!.childElementCount).toBe(0);
    expect(b.overlay.node()!.childElementCount).toBe(0);

    move(target, 0); // hovering again after the drag
    expect(pick).toHaveBeenCalledTimes(3);
    expect(a.overlay.selectAll('.tcps-tooltip').size()).toBe(1);
  });
});
