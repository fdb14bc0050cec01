// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { connectionData, makeFixture } from './fixtures';
import { drawSequence, sequenceModel } from './SequenceChart';
import { fullView, hoverAt, newSvg, num } from './testUtil';
import { countMarks } from './paths';
import { FLAG } from '../model/types';

describe('time-sequence chart', () => {
  it('draws segments, retransmissions, ACK and window lines, SACK blocks and duplicate ACK ticks', () => {
    const data = makeFixture();
    const svg = newSvg();
    drawSequence(svg, sequenceModel(data, 0), fullView(data, 900, 300));
    // 40 rounds × 8 segments, one retransmission (the lost segment of round 20).
    expect(num(svg, 'path.tcps-segments:not(.tcps-retransmissions)', 'data-count')).toBe(320);
    expect(countMarks(svg.querySelector('path.tcps-segments:not(.tcps-retransmissions)')!.getAttribute('d'))).toBe(320);
    expect(num(svg, 'path.tcps-retransmissions', 'data-count')).toBe(1);
    // Five segments after the hole: five duplicate ACKs, each with a SACK block.
    expect(num(svg, 'path.tcps-sack', 'data-count')).toBe(5);
    expect(num(svg, 'path.tcps-dup-ack', 'data-count')).toBe(5);
    expect(svg.querySelector('path.tcps-seq-ack')!.getAttribute('d')).toMatch(/^M.*H.*V/);
    expect(svg.querySelector('path.tcps-seq-window')!.getAttribute('d')).toMatch(/^M.*H.*V/);
    const ticks = [...svg.querySelectorAll('.tcps-axis-y .tick text')].map((t) => t.textContent);
    expect(ticks.some((t) => /KiB$/.test(t!))).toBe(true);
  });

  it('places a segment bar from seq to seq + len', () => {
    const data = connectionData({
      rows: [
        { t: 0, dir: 0, seq: 0, len: 1000 },
        { t: 1, dir: 1, ack: 1000, win: 1000 },
        { t: 2, dir: 0, seq: 0, len: 1000, flags: FLAG.ACK | FLAG.RETRANSMISSION },
      ],
    });
    const svg = newSvg();
    const view = { range: [0, 2] as [number, number], full: [0, 2] as [number, number], width: 500, height: 300 };
    const m = sequenceModel(data, 0);
    drawSequence(svg, m, view);
    // y domain: [0, 2000 + 4 %] of the 2000-byte extent (ACK 1000 + window 1000); never below 0.
    const d = svg.querySelector('path.tcps-segments:not(.tcps-retransmissions)')!.getAttribute('d')!;
    const [, x, y0, y1] = d.match(/^M([\d.]+),([\d.]+)V([\d.]+)$/)!.map(Number);
    const h = 300 - 26 - 34;
    const yOf = (v: number) => h - (v / 2080) * h;
    expect(x).toBe(0);
    expect(y0).toBeCloseTo(yOf(0), 0);
    expect(y1).toBeCloseTo(yOf(1000), 0);
    expect(num(svg, 'path.tcps-retransmissions', 'data-count')).toBe(1);
    expect(hoverAt(svg, 404, y1)).toContain('retransmission: seq 0–1000 (1000 B)');
  });
});
