// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { clampRange, fullRange, isStackKey, MIN_SPAN, openingRange, panRange, rangeForKey, sameRange, shownRange, wheelZoomFactor, zoomRange } from './timeRange';
import * as d3 from 'd3';
import { beginFrame, byteTicks, drawTimeAxis, drawYAxis, wholeTicks } from './frame';
import { formatBitrate, formatBytes } from './units';
import { CANVAS_MIN_MARKS, drawDots } from './canvasLayer';
import { newSvg } from './testUtil';

describe('time range arithmetic', () => {
  const full: [number, number] = [0, 10];
  it('opens on the engine\'s data view, kept inside the whole view; an asked range wins', () => {
    expect(openingRange([6, 8], full)).toEqual([6, 8]);
    expect(openingRange(null, full)).toEqual(full);
    expect(openingRange(undefined, full)).toEqual(full);
    // A hostile link's value: kept inside, never NaN.
    expect(openingRange([Number.NaN, 8], full)).toEqual(full);
    expect(openingRange([-5, 3], full)).toEqual([0, 8]);
    expect(shownRange(null, full, [6, 8])).toEqual([6, 8]);
    expect(shownRange([1, 2], full, [6, 8])).toEqual([1, 2]);
  });
  it('maps the stack keys to ranges: pan a tenth (half with Shift), zoom by 1.5 about the middle, 0 resets', () => {
    const r: [number, number] = [2, 6];
    expect(rangeForKey('ArrowRight', false, r, full)).toEqual(panRange(r, 0.1, full));
    expect(rangeForKey('ArrowLeft', true, r, full)).toEqual(panRange(r, -0.5, full));
    expect(rangeForKey('=', false, r, full)).toEqual(zoomRange(r, 1.5, 4, full));
    expect(rangeForKey('_', false, r, full)).toEqual(zoomRange(r, 1 / 1.5, 4, full));
    expect(rangeForKey('0', false, r, full)).toBeNull();
    expect(rangeForKey('x', false, r, full)).toBeUndefined();
    const input = document.createElement('input');
    expect(isStackKey({ target: input, ctrlKey: false, metaKey: false, altKey: false })).toBe(false);
    expect(isStackKey({ target: document.body, ctrlKey: true, metaKey: false, altKey: false })).toBe(false);
    expect(isStackKey({ target: document.body, ctrlKey: false, metaKey: false, altKey: false })).toBe(true);
  });
  it('pads the full range by 1 % and never returns an empty one', () => {
    expect(fullRange(0, 10)).toEqual([-0.1, 10.1]);
    const [a, b] = fullRange(5, 5);
    expect(b - a).toBeGreaterThan(0);
  });
  it('zooms about an anchor, keeping it in place', () => {
    expect(zoomRange([0, 10], 2, 5, full)).toEqual([2.5, 7.5]);
    expect(zoomRange([0, 10], 2, 0, full)).toEqual([0, 5]);
    expect(zoomRange([2, 4], 0.5, 3, full)).toEqual([1, 5]);
    const [a, b] = zoomRange([1, 1 + 2e-6], 100, 1, full);
    expect(b - a).toBeCloseTo(MIN_SPAN, 12);
  });
  it('Ctrl + wheel zooms 1.5× per 100 px (a notch = a + key press), in proportion, at most 2.25× an event', () => {
    expect(wheelZoomFactor(-100, 0)).toBeCloseTo(1.5, 12); // wheel up: in
    expect(wheelZoomFactor(100, 0)).toBeCloseTo(1 / 1.5, 12); // wheel down: out
    expect(wheelZoomFactor(-120, 0)).toBeCloseTo(1.5 ** 1.2, 12);
    expect(wheelZoomFactor(-10, 0)).toBeCloseTo(1.5 ** 0.1, 12); // a pinch's small steps
    expect(wheelZoomFactor(-200, 0)).toBeCloseTo(2.25, 12); // was 16×
    expect(wheelZoomFactor(-2000, 0)).toBeCloseTo(2.25, 12); // clamped per event
    expect(wheelZoomFactor(2000, 0)).toBeCloseTo(1 / 2.25, 12);
    expect(wheelZoomFactor(-3, 1)).toBeCloseTo(1.5, 12); // Firefox: 3 lines a notch
    expect(wheelZoomFactor(-1, 2)).toBeCloseTo(2.25, 12); // a page: clamped
    expect(wheelZoomFactor(0, 0)).toBe(1);
    expect(wheelZoomFactor(Number.NaN, 0)).toBe(1);
    // Three notches in from 2.2 s end near 0.65 s (d3-zoom's default gave 35 ms).
    let r: [number, number] = [0, 2.2];
    for (let i = 0; i < 3; i++) r = zoomRange(r, wheelZoomFactor(-100, 0), 1.1, [0, 2.2]);
    expect(r[1] - r[0]).toBeCloseTo(2.2 / 3.375, 9);
  });
  it('pans by a fraction of the span and clamps to the full range', () => {
    expect(panRange([2, 4], 0.5, full)).toEqual([3, 5]);
    expect(panRange([8, 10], 0.5, full)).toEqual([8, 10]);
    expect(clampRange([-3, 1], full)).toEqual([0, 4]);
    expect(clampRange([-30, 100], full)).toEqual([0, 10]);
    expect(sameRange([1, 2], [1, 2])).toBe(true);
    expect(sameRange(null, null)).toBe(true);
    expect(sameRange([1, 2], null)).toBe(false);
  });
  it('byte ticks step by powers of two', () => {
    expect(byteTicks(0, 65536, 4)).toEqual([0, 16384, 32768, 49152, 65536]);
  });
  it('byte and bit axes tick whole units only, however small the domain (a one-segment connection)', () => {
    expect(byteTicks(0, 1, 4)).toEqual([0, 1]); // in flight, nothing ever in flight: was 0, 0.25 … 1
    expect(byteTicks(0.96, 2.04, 5)).toEqual([1, 2]); // sequence of one byte: was 1, 1.25 … 2
    expect(byteTicks(0, 3.2, 8)).toEqual([0, 1, 2, 3]);
    const y = d3.scaleLinear().domain([0, 1]).range([160, 0]).nice(); // throughput of no data
    expect(wholeTicks(y, 4)).toEqual([0, 1]);
    expect(wholeTicks(d3.scaleLinear().domain([0, 5e6]), 5)).toEqual(d3.scaleLinear().domain([0, 5e6]).ticks(5));
    const svg = newSvg();
    const f = beginFrame(svg, { chart: 'throughput', title: 't', description: 'd', view: { range: [0, 1], full: [0, 1], width: 400, height: 200 } });
    drawYAxis(f, y, formatBitrate, 'bit/s', wholeTicks(y, 4));
    expect([...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent)).toEqual([formatBitrate(0), formatBitrate(1)]);
    drawYAxis(f, d3.scaleLinear().domain([0.96, 2.04]).range([160, 0]), formatBytes, 'bytes', byteTicks(0.96, 2.04, 5));
    expect([...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent)).toEqual([formatBytes(1), formatBytes(2)]);
  });
  it('the time axis labels no time before the capture\'s first packet (the padding around a one-instant connection)', () => {
    const svg = newSvg();
    const f = beginFrame(svg, { chart: 'rtt', title: 't', description: 'd', view: { range: fullRange(0, 0), full: fullRange(0, 0), width: 400, height: 200 } });
    drawTimeAxis(f);
    const ticks = [...svg.querySelectorAll('.tcps-axis-x .tick text')].map((t) => t.textContent!);
    expect(Number(ticks[0])).toBe(0);
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.some((t) => /[−-]/.test(t))).toBe(false);
  });
});

describe('canvas layer for dense dots', () => {
  it('moves dots to the canvas above the threshold and keeps them in the svg below it', () => {
    const svg = newSvg();
    const f = beginFrame(svg, { chart: 'rtt', title: 't', description: 'd', view: { range: [0, 1], full: [0, 1], width: 400, height: 200 } });
    let rects = 0;
    const ctx = { fillRect: () => { rects++; }, fillStyle: '' } as unknown as CanvasRenderingContext2D;
    const many = Uint32Array.from({ length: CANVAS_MIN_MARKS }, (_, i) => i);
    drawDots(f, 'dense', many, (i) => i % 300, () => 50, ctx);
    const dense = svg.querySelector('path.dense')!;
    expect(dense.getAttribute('data-canvas')).toBe('true');
    expect(dense.getAttribute('d')).toBeNull();
    expect(rects).toBe(CANVAS_MIN_MARKS);
    drawDots(f, 'sparse', many.subarray(0, 10), (i) => i, () => 50, ctx);
    expect(svg.querySelector('path.sparse')!.getAttribute('d')!.match(/M/g)!.length).toBe(10);
    drawDots(f, 'nocanvas', many, (i) => i % 300, () => 50, null);
    expect(svg.querySelector('path.nocanvas')!.getAttribute('data-points')).toBe(String(CANVAS_MIN_MARKS));
  });
});
