// Two vantage points (issue 44), data-chart="twin-sequence": the data direction's
// time-sequence graph (Stevens/tcptrace, as web/charts/SequenceChart.tsx draws one
// capture's) as ONE of the two captures saw it, on the merged view's axis (seconds since
// the sender-side capture's first packet, on its clock; the receiver side's times moved by
// the offset and drift), so that two instances, one per capture, line up in time with
// each other and with the one-way delay charts. Each datagram's fate between the two
// points is marked where this capture saw it, and, for a datagram seen at the other
// capture only, where it was due here: a segment lost between is a cross where it left
// on the sender side and a dashed ring where it never arrived on the receiver side.
// Every number is the engine's (wasm/src/twin/sequence.rs: `sequence` bins and ACK
// points; `events` with `capture`, `ack`, `due`); this file only places and formats them.
// One instance per capture; React owns the <svg>, D3 draws.
import * as d3 from 'd3';
import type { TwinEvent, TwinPair, TwinSequenceSide } from '../worker/generated/view';
import { beginFrame, byteTicks, drawEmpty, drawTimeAxis, drawYAxis, type ChartView, type FrameSpec } from '../charts/frame';
import { formatBytes, formatCount, formatDuration } from '../charts/units';
import { useD3 } from '../charts/common';
import { isolated } from '../security/outsideText';
import { TWIN_AXIS_LABEL } from './OneWayDelayChart';

export type TwinCapture = 'sender-side' | 'receiver-side';

/** The event kinds (twin/report.rs `TwinEvent::kind`), in legend order, with words for
 * a mark where this capture saw the datagram and for one where it was due and is absent. */
export const MARK_KINDS = [
  { kind: 'lost-between', here: 'lost between: seen leaving', absent: 'lost between: never arrived' },
  { kind: 'reordered', here: 'reordered on the way', absent: '' },
  { kind: 'duplicated', here: 'duplicated on the way', absent: '' },
  { kind: 'not-seen-at-sender-side', here: 'not captured at the sender side', absent: 'not captured here (it arrived)' },
  { kind: 'not-seen-at-receiver-side', here: 'not captured at the receiver side', absent: 'not captured here (acknowledged)' },
  { kind: 'undecided', here: 'missing at the other side, fate unknown', absent: 'not seen here, fate unknown' },
] as const;

export interface TwinSequenceModel {
  capture: TwinCapture;
  pair: TwinPair;
  /** The capture's file name. */
  name: string;
}

/** One mark on this capture's chart. */
export interface TwinMark {
  kind: string;
  direction: number;
  /** Merged view seconds and relative sequence number (an ACK's: what it acknowledges). */
  t: number;
  y: number;
  /** Seen at the other capture only: drawn where it was due here. */
  absent: boolean;
}

/** The events as marks on `capture`'s chart: where it saw them, or, seen at the other
 * capture only, where they were due (`due`). A return-direction datagram sits at its ACK. */
export function marksOn(capture: TwinCapture, events: TwinEvent[]): TwinMark[] {
  const out: TwinMark[] = [];
  for (const e of events) {
    const y = e.direction === 0 ? e.seq : e.ack;
    if (y == null) continue;
    if (e.capture === capture) out.push({ kind: e.kind, direction: e.direction, t: e.t, y, absent: false });
    else if (e.due != null) out.push({ kind: e.kind, direction: e.direction, t: e.due, y, absent: true });
  }
  return out;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** A mark's outline (4 px half-size) at (x, y): a ring where absent, else by kind. */
function shape(kind: string, absent: boolean, x: number, y: number): string {
  const [a, b, c, d] = [r1(x - 4), r1(x + 4), r1(y - 4), r1(y + 4)];
  if (absent) return `M${a},${r1(y)}a4,4 0 1,0 8,0a4,4 0 1,0 -8,0`;
  switch (kind) {
    case 'lost-between': return `M${a},${c}L${b},${d}M${a},${d}L${b},${c}`;
    case 'reordered': return `M${r1(x)},${c}L${b},${d}L${a},${d}Z`;
    case 'duplicated': return `M${a},${r1(y)}H${b}M${r1(x)},${c}V${d}`;
    case 'undecided': return `M${r1(x)},${c}L${b},${r1(y)}L${r1(x)},${d}L${a},${r1(y)}Z`;
    default: return `M${a},${c}H${b}V${d}H${a}Z`;
  }
}

const sideOf = (m: TwinSequenceModel): TwinSequenceSide | null =>
  m.pair.sequence ? (m.capture === 'sender-side' ? m.pair.sequence.senderSide : m.pair.sequence.receiverSide) : null;

/** Draws one capture's bins (a bar from the lowest to the highest sequence number of
 * each), its resends, the receiver's ACK as a step line, and the marks. */
export function drawTwinSequence(svgEl: SVGSVGElement, m: TwinSequenceModel, view: ChartView): void {
  const seq = m.pair.sequence;
  const side = sideOf(m);
  const near = m.capture === 'sender-side' ? 'sender' : 'receiver';
  const [from, to] = m.pair.senderSide.endpoints;
  const marks = marksOn(m.capture, m.pair.events);
  const tally = MARK_KINDS.flatMap(({ kind }) => [0, 1].flatMap((direction) => [false, true].map((absent) =>
    ({ kind, direction, absent, n: marks.filter((k) => k.kind === kind && k.direction === direction && k.absent === absent).length }))));
  const words = tally.filter((x) => x.n > 0).map((x) => {
    const w = MARK_KINDS.find((k) => k.kind === x.kind)!;
    return `${formatCount(x.n)} ${x.absent ? w.absent : w.here} (${x.direction === 0 ? 'data' : 'ACK'})`;
  });
  const f = beginFrame(svgEl, {
    chart: 'twin-sequence' as string as FrameSpec['chart'],
    title: `Time-sequence at the ${near} side: ${from} → ${to}`,
    description: `Sequence numbers of ${from} → ${to} as the capture near the ${near} (${isolated(m.name)}) saw them, on the merged time axis: ` +
      (side ? `${formatCount(side.datagrams)} data datagrams, ${formatCount(side.retransmitted)} of them resends, in ${formatCount(side.bins.length)} bins of ${formatDuration(seq!.binWidth)}; the receiver's cumulative ACK. ` : 'no datagram. ') +
      `Marks: ${words.length ? words.join('; ') : 'none'}.`,
    view,
  });
  // One y scale for both captures' charts, so the two read alike.
  let hi = 1;
  for (const s of seq ? [seq.senderSide, seq.receiverSide] : []) {
    for (const b of s.bins) hi = Math.max(hi, b.seqMax);
    for (const a of s.acks) hi = Math.max(hi, a.ack);
  }
  const y = d3.scaleLinear().domain([0, hi * 1.04]).range([f.innerHeight, 0]);
  drawYAxis(f, y, formatBytes, 'relative sequence number (bytes)', byteTicks(0, hi * 1.04, Math.max(2, Math.floor(f.innerHeight / 45))));
  drawTimeAxis(f, TWIN_AXIS_LABEL);
  const bins = side?.bins ?? [];
  if (!bins.length) drawEmpty(f, 'No data datagram seen at this capture');

  const width = seq?.binWidth ?? 0;
  const bars = (keep: (b: (typeof bins)[number]) => boolean) => {
    let d = '';
    for (const b of bins) {
      if (!keep(b)) continue;
      const x = r1(f.x(b.t + width / 2));
      d += `M${x},${r1(y(b.seqMin))}V${r1(Math.min(y(b.seqMax), y(b.seqMin) - 1))}`;
    }
    return d;
  };
  let ack = '';
  for (const a of side?.acks ?? []) ack += `${ack ? 'H' : 'M'}${r1(f.x(a.t))}${ack ? 'V' : ','}${r1(y(a.ack))}`;
  f.plot.append('path').attr('class', 'tcps-seq-ack').attr('data-points', side?.acks.length ?? 0).attr('d', ack);
  f.plot.append('path').attr('class', 'tcps-segments').attr('data-bins', bins.length).attr('d', bars(() => true));
  f.plot.append('path').attr('class', 'tcps-segments tcps-twin-resent').attr('data-bins', bins.filter((b) => b.retransmitted > 0).length)
    .attr('d', bars((b) => b.retransmitted > 0));

  // The marks, one path per kind, direction and presence; data-count: marks drawn.
  const g = f.plot.append('g').attr('class', 'tcps-twin-marks');
  for (const x of tally) {
    if (!x.n) continue;
    let d = '';
    for (const k of marks) if (k.kind === x.kind && k.direction === x.direction && k.absent === x.absent) d += shape(k.kind, k.absent, f.x(k.t), y(k.y));
    g.append('path').attr('class', `tcps-twin-mark tcps-twin-mark-${x.kind}${x.absent ? ' tcps-twin-mark-absent' : ''}`)
      .attr('data-kind', x.kind).attr('data-direction', x.direction).attr('data-seen', x.absent ? 'absent' : 'here')
      .attr('data-count', x.n).attr('d', d);
  }
  svgEl.dataset.state = 'ready';
}

export function TwinSequenceChart({ model, view }: { model: TwinSequenceModel; view: ChartView }) {
  const ref = useD3((svg) => drawTwinSequence(svg, model, view), [model, view]);
  return <svg ref={ref} data-capture={model.capture} />;
}

/** The legend of both sequence charts: the lines and each kind of mark. */
export function TwinSequenceLegend() {
  return (
    <ul className="tcps-legend" aria-label="Time-sequence legend, two vantage points">
      <li><span className="tcps-swatch tcps-s-segments" />data datagrams</li>
      <li><span className="tcps-swatch tcps-s-twin-resent" />resends</li>
      <li><span className="tcps-swatch tcps-s-ack" />cumulative ACK</li>
      {MARK_KINDS.map((k) => <li key={k.kind}><span className={`tcps-swatch tcps-s-twin-mark-${k.kind}`} />{k.here}</li>)}
      <li><span className="tcps-swatch tcps-s-twin-mark-absent" />dashed ring: due at this capture, never seen here (lost between: never arrived)</li>
    </ul>
  );
}
