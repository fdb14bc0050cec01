import { describe, expect, it } from 'vitest';
import { connectionData, makeFixture } from '../charts/fixtures';
import {
  defaultStallSeconds, interPacketGaps, logHistogram, receiveWindow, rttSeries, sequenceSeries,
  typicalSegmentSize, windowLimitedSpans, zeroWindowRows,
} from './connectionSeries';
import { FLAG } from './types';

describe('receive window and window-limited spans', () => {
  // rwnd 3000, segments of 1000: limited when inFlight + 1000 > 3000, i.e. inFlight ≥ 2001.
  const data = connectionData({
    rows: [
      { t: 0.0, dir: 1, ack: 1, win: 3000 },
      { t: 0.1, dir: 0, seq: 1, len: 1000, inFlight: 1000 },
      { t: 0.2, dir: 0, seq: 1001, len: 1000, inFlight: 2000 },
      { t: 0.3, dir: 0, seq: 2001, len: 1000, inFlight: 3000 },   // limited from here
      { t: 0.4, dir: 1, ack: 3001, win: 3000 },
      { t: 0.5, dir: 0, seq: 3001, len: 1000, inFlight: 1000 },   // … to here
      { t: 0.6, dir: 1, ack: 4001, win: 0, flags: FLAG.ACK | FLAG.ZERO_WINDOW },
      { t: 0.7, dir: 0, seq: 4001, len: 1, inFlight: 1, flags: FLAG.ACK | FLAG.ZERO_WINDOW_PROBE }, // limited: zero window
    ],
  });

  it('finds spans where in flight reached the window, and the zero window', () => {
    expect(typicalSegmentSize(data.packets, 0)).toBe(1000);
    expect(windowLimitedSpans(data, 0)).toEqual([[0.3, 0.5], [0.7, 0.7]]);
    expect(Array.from(zeroWindowRows(data.packets, 0).t)).toEqual([0.6]);
  });

  it('scales the raw window by the inferred lower bound when the scale is unknown', () => {
    const unknown = connectionData({
      rows: [{ t: 0, dir: 1, ack: 1, win: 500 }, { t: 1, dir: 0, seq: 1, len: 100, inFlight: 100 }],
      directions: [{}, { windowScaleUnknown: true, windowScaleLowerBound: 3, windowScale: null }],
    });
    const w = receiveWindow(unknown, 0);
    expect(w.multiplier).toBe(8);
    expect(Array.from(w.win)).toEqual([4000]);
    const noBound = connectionData({
      rows: [{ t: 0, dir: 1, ack: 1, win: 50 }, { t: 1, dir: 0, seq: 1, len: 100, inFlight: 100 }],
      directions: [{}, { windowScaleUnknown: true, windowScaleLowerBound: null, windowScale: null }],
    });
    expect(windowLimitedSpans(noBound, 0)).toEqual([]);
  });
});

describe('sequence, RTT, gaps', () => {
  const data = makeFixture();

  it('splits segments, retransmissions, ACKs, duplicate ACKs and SACK blocks', () => {
    const s = sequenceSeries(data, 0);
    expect(s.segments.rows.length).toBe(320);
    expect(s.retransmissions.rows.length).toBe(1);
    expect(s.duplicateAcks.rows.length).toBe(5);
    expect(s.sack.t.length).toBe(5);
    // Window edge = ACK + window of the same packet.
    const k = s.acks.rows.length - 2;
    expect(s.acks.edge[k]).toBe(s.acks.ack[k] + data.packets.win[s.acks.rows[k]]);
  });

  it('selects the RTT samples of the data direction with the summary minimum', () => {
    const r = rttSeries(data, 0);
    expect(r.t.length).toBe(data.rtt.t.length);
    expect(r.minMs).toBe(10);
  });

  it('computes gaps and the default stall threshold (max of 10 ms and 4 × min RTT)', () => {
    const g = interPacketGaps(data.packets, 0);
    expect(g.gap.length).toBe(data.summary.directions[0].packets - 1);
    expect(Math.max(...g.gap)).toBeCloseTo(0.2, 9); // the retransmission timeout
    expect(defaultStallSeconds(data, 0)).toBeCloseTo(0.04, 12);
    expect(defaultStallSeconds({ ...data, summary: { ...data.summary, stallThresholdMs: 41 } }, 0)).toBeCloseTo(0.041, 12);
  });

  it('bins a log histogram with 5 bins per decade; zero gaps land in the first bin', () => {
    const bins = logHistogram([0, 0.0015, 0.002, 0.05, 0.9], 5);
    expect(bins[0].x0).toBeCloseTo(0.001, 12);
    expect(bins[bins.length - 1].x1).toBeCloseTo(1, 12);
    expect(bins.length).toBe(15);
    expect(bins.map((b) => b.count)).toEqual([2, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
    expect(logHistogram([])).toEqual([]);
  });
});
