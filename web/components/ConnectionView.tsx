// Everything about the selected connection: its numbers per direction, the charts
// on one time axis, the diagnosis and the bandwidth-delay calculator.
import { useEffect, useState } from 'react';
import type { ConnectionData, DirectionSummary, Report } from '../model/types';
import type { ViewState } from '../state/url';
import type { DecoderClient } from '../worker/client';
import { BdpCalculator } from './BdpCalculator';
import { ConnectionCharts } from './ConnectionCharts';
import { DiagnosisPanel } from './DiagnosisPanel';
import { SharePanel } from './SharePanel';
import { ErrorBoundary } from './ErrorBoundary';
import { formatBytesSI, formatMs, formatRate } from '../model/format';
import { activeMeanBps, processLabel, rttStats } from '../model/types';

interface Props {
  /** File name of the capture (or of the snapshot's capture). */
  name: string;
  data: ConnectionData;
  report: Report;
  view: ViewState;
  onView: (update: (v: ViewState) => ViewState) => void;
  client: DecoderClient;
}

function scaleText(d: DirectionSummary): string {
  if (d.windowScaleUnknown) return d.windowScaleLowerBound !== null ? `unknown (≥ ${d.windowScaleLowerBound})` : 'unknown';
  return d.windowScale === null ? 'none' : `${d.windowScale} (×${2 ** d.windowScale})`;
}

const rows: [string, (d: DirectionSummary) => string][] = [
  ['Packets', (d) => d.packets.toLocaleString('en-US')],
  ['Payload', (d) => formatBytesSI(d.payloadBytes)],
  ["Mean rate over the connection's duration", (d) => formatRate(d.throughput.meanBps)],
  ['Mean rate while active', (d) => { const a = activeMeanBps(d.throughput); return a == null ? '–' : formatRate(a); }],
  ['Peak rate (largest bin)', (d) => formatRate(d.throughput.peakBps)],
  ['Window scale', scaleText],
  ['Advertised window', (d) => (d.receiveWindow ? `${formatBytesSI(d.receiveWindow.min)} – ${formatBytesSI(d.receiveWindow.max)}` : '–')],
  ['Max bytes in flight', (d) => (d.maxBytesInFlight === null ? '–' : formatBytesSI(d.maxBytesInFlight))],
  ['RTT min / median / p95 / max', (d) => { const r = rttStats(d.rtt); return [r.minMs, r.medianMs, r.p95Ms, r.maxMs].map(formatMs).join(' / '); }],
  ['RTT samples (left out)', (d) => { const r = rttStats(d.rtt); return r.samples == null ? '–' : `${r.samples.toLocaleString('en-US')} (${(r.excludedSamples ?? 0).toLocaleString('en-US')})`; }],
  ['Retransmissions (fast, spurious)', (d) => `${d.retransmissions} (${d.fastRetransmissions}, ${d.spuriousRetransmissions})`],
  ['Duplicate ACKs', (d) => String(d.duplicateAcks)],
  ['Zero windows / probes', (d) => `${d.zeroWindows} / ${d.zeroWindowProbes}`],
  ['Window full', (d) => String(d.windowFull)],
  ['Previous segment not captured', (d) => String(d.lostSegments)],
  ['Out of order', (d) => String(d.outOfOrder)],
  ['Stalls', (d) => String(d.stalls.length)],
];

/** How many other connections are offered as throughput overlays (bufferbloat tests run 8+ flows). */
const MAX_OVERLAYS = 12;

/**
 * The stalls at the user's threshold, classified by the decoder (the worker still holds
 * the session), replacing the ones found at the default threshold.
 */
function useStallsAtThreshold(data: ConnectionData, stallMs: number | null, client: DecoderClient): ConnectionData {
  const [adjusted, setAdjusted] = useState<ConnectionData>(data);
  useEffect(() => {
    if (stallMs === null) {
      setAdjusted(data);
      return;
    }
    let current = true;
    const id = data.summary.id;
    Promise.all([client.stalls(id, 0, stallMs), client.stalls(id, 1, stallMs)])
      .then(([s0, s1]) => {
        if (!current) return;
        const [d0, d1] = data.summary.directions;
        setAdjusted({ ...data, summary: { ...data.summary, directions: [{ ...d0, stalls: s0 }, { ...d1, stalls: s1 }] } });
      })
      .catch(() => current && setAdjusted(data));
    return () => {
      current = false;
    };
  }, [data, stallMs, client]);
  return adjusted.summary.id === data.summary.id ? adjusted : data;
}

/** Columns of the largest other connections, fetched in the background for overlays. */
function useOverlayCandidates(report: Report, selectedId: number, client: DecoderClient): ConnectionData[] {
  const [others, setOthers] = useState<ConnectionData[]>([]);
  useEffect(() => {
    let current = true;
    const payload = (i: number) => report.connections[i].directions[0].payloadBytes + report.connections[i].directions[1].payloadBytes;
    const ids = report.connections
      .map((c, i) => ({ id: c.id, bytes: payload(i) }))
      .filter((c) => c.id !== selectedId && c.bytes > 0)
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, MAX_OVERLAYS)
      .map((c) => c.id);
    setOthers([]);
    Promise.all(ids.map((id) => client.connection(id)))
      .then((list) => current && setOthers(list.filter((d): d is ConnectionData => d !== null)))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [report, selectedId, client]);
  return others;
}

export function ConnectionView({ name, data: decoded, report, view, onView, client }: Props) {
  const data = useStallsAtThreshold(decoded, view.stallMs, client);
  const others = useOverlayCandidates(report, decoded.summary.id, client);
  const { summary } = data;
  const dataDir = summary.directions[summary.dataDirection];
  return (
    <section className="connection" data-testid="connection" data-connection={summary.id}>
      <h2>
        Connection {summary.id}: {summary.endpoints[0]} ⇄ {summary.endpoints[1]}
        {summary.process ? <span className="process" data-testid="connection-process"> · {processLabel(summary.process)}</span> : null}
      </h2>
      <ErrorBoundary what="diagnosis" resetKey={summary}>
        <DiagnosisPanel
          summary={summary}
          stalls={dataDir.stalls}
          onSelectStall={(start, duration) => onView((v) => ({ ...v, range: [start - duration * 0.25, start + duration * 1.25] }))}
        />
      </ErrorBoundary>
      {/* Each chart has its own boundary inside; this one catches the toolbar and the stack. */}
      <ErrorBoundary what="chart stack" resetKey={data}>
        <ConnectionCharts
          data={data}
          others={others}
          timeRange={view.range}
          onTimeRangeChange={(range) => onView((v) => ({ ...v, range }))}
          binMs={view.binMs}
          onBinMsChange={(binMs) => onView((v) => ({ ...v, binMs }))}
          stallMs={view.stallMs}
          onStallMsChange={(stallMs) => onView((v) => ({ ...v, stallMs }))}
          charts={view.charts}
          onChartsChange={(charts) => onView((v) => ({ ...v, charts }))}
          theme={view.theme}
        />
      </ErrorBoundary>
      <ErrorBoundary what="share panel" resetKey={data}>
        <SharePanel name={name} report={report} data={data} view={view} />
      </ErrorBoundary>
      <h3>Per direction</h3>
      <ErrorBoundary what="table" resetKey={summary}>
        <table className="direction-stats" data-testid="direction-stats">
          <thead>
            <tr>
              <th />
              {summary.directions.map((d, i) => (
                <th key={i} className={i === summary.dataDirection ? 'data-dir' : undefined}>
                  {d.from} → {d.to}
                  {i === summary.dataDirection ? ' (data)' : ''}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, value]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {summary.directions.map((d, i) => <td key={i} className="num">{value(d)}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </ErrorBoundary>
      <ErrorBoundary what="bandwidth-delay calculator" resetKey={summary}>
        {/* Keyed by connection: the inputs start again from the new connection's evidence. */}
        <BdpCalculator key={summary.id} summary={summary} />
      </ErrorBoundary>
    </section>
  );
}
