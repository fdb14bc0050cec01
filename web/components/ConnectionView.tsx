// Everything about the selected connection: its numbers per direction, the charts
// on one time axis, the diagnosis and the bandwidth-delay calculator.
import { memo, useCallback, useMemo } from 'react';
import type { ConnectionData, ConnectionSummary, DirectionSummary, Report } from '../model/types';
import { linkRange, type ViewState } from '../state/url';
import type { ViewSource } from '../worker/viewSource';
import { BdpCalculator, type BdpCalculate } from './BdpCalculator';
import { ConnectionCharts } from './ConnectionCharts';
import { DiagnosisPanel } from './DiagnosisPanel';
import { HandshakePanel } from './HandshakePanel';
import { ScrollRegion } from './ScrollRegion';
import { SharePanel, type SharePanelProps } from './SharePanel';
import { ErrorBoundary } from './ErrorBoundary';
import { formatBytes, formatMs, formatRate } from '../model/format.mjs';
import { activeMeanBps, endingOf, mptcpOf, processLabel, rttStats, stallCount } from '../model/types';

interface Props {
  /** File name of the capture (or of the snapshot's capture). */
  name: string;
  summary: ConnectionSummary;
  report: Report;
  view: ViewState;
  onView: (update: (v: ViewState) => ViewState) => void;
  /** The engine that answers the charts' questions about this capture. */
  source: ViewSource;
  /** Per-packet columns for the packet CSV (a capture only). */
  loadData?: () => Promise<ConnectionData>;
  /** The capture's bytes again, for Save for Wireshark (a capture, not a link). */
  capture?: () => Promise<Blob>;
  /** Makes a share link of the view (an opened capture). */
  share?: SharePanelProps['makeSnapshot'];
  /** The snapshot of the shared link being shown. */
  openedSnapshot?: string;
  /** Every shown chart has drawn its first answer. */
  onChartsReady?: () => void;
  /** The bandwidth-delay calculator's engine (analysis/rates/bdp.rs). */
  calculateBdp: BdpCalculate;
}

function scaleText(d: DirectionSummary): string {
  if (d.windowScaleUnknown) return d.windowScaleLowerBound !== null ? `unknown (≥ ${d.windowScaleLowerBound})` : 'unknown';
  return d.windowScale === null ? 'none' : `${d.windowScale} (×${2 ** d.windowScale})`;
}

const rows: [string, (d: DirectionSummary) => string][] = [
  ['Packets', (d) => d.packets.toLocaleString('en-US')],
  ['Payload', (d) => formatBytes(d.payloadBytes)],
  ["Mean rate over the connection's duration", (d) => formatRate(d.throughput.meanBps)],
  ['Mean rate while active', (d) => { const a = activeMeanBps(d.throughput); return a == null || a === 0 ? '–' : formatRate(a); }],
  ['Peak rate (largest bin)', (d) => formatRate(d.throughput.peakBps)],
  ['Window scale', scaleText],
  ['Advertised window', (d) => (d.receiveWindow ? `${formatBytes(d.receiveWindow.min)} – ${formatBytes(d.receiveWindow.max)}` : '–')],
  ['Max bytes in flight', (d) => (d.maxBytesInFlight === null ? '–' : formatBytes(d.maxBytesInFlight))],
  ['RTT min / median / p95 / max', (d) => { const r = rttStats(d.rtt); return [r.minMs, r.medianMs, r.p95Ms, r.maxMs].map(formatMs).join(' / '); }],
  ['RTT samples (left out)', (d) => { const r = rttStats(d.rtt); return r.samples == null ? '–' : `${r.samples.toLocaleString('en-US')} (${(r.excludedSamples ?? 0).toLocaleString('en-US')})`; }],
  ['Retransmissions (fast, spurious)', (d) => `${d.retransmissions} (${d.fastRetransmissions}, ${d.spuriousRetransmissions})`],
  ['Timeouts / tail probes / slow start', (d) => (d.rtoEvents === undefined ? '–' : `${d.rtoEvents} / ${d.tailLossProbes ?? 0} / ${d.slowStartRetransmissions ?? 0}`)],
  // The two kinds that are no loss recovery (docs/ANALYSIS.md "Retransmission kinds"): a
  // segment sent twice back to back, and re-sends an ICMP "fragmentation needed" / "packet
  // too big" set off. Without this row the kinds above could sum below "Retransmissions".
  ['Sent twice back to back / path MTU re-sends', (d) => (d.rtoEvents === undefined ? '–' : `${d.backToBackDuplicates ?? 0} / ${d.pmtuRetransmissions ?? 0}`)],
  // The kernel's unit (TcpRetransSegs, TCPFastRetrans, TCPSlowStartRetrans): differs from
  // the frames above only where the capture holds TSO/GRO frames (docs/ANALYSIS.md).
  ['Retransmitted segments (fast, slow start)', (d) => (d.retransmittedSegments === undefined ? '–' : `${d.retransmittedSegments} (${d.fastRetransmittedSegments ?? 0}, ${d.slowStartRetransmittedSegments ?? 0})`)],
  ['Duplicate ACKs', (d) => String(d.duplicateAcks)],
  ['Zero windows / probes', (d) => `${d.zeroWindows} / ${d.zeroWindowProbes}`],
  ['Window full', (d) => String(d.windowFull)],
  ['Previous segment not captured', (d) => String(d.lostSegments)],
  // Sent but never captured, by the sender's IPv4 Identification (docs/ANALYSIS.md
  // `direction.unseenDatagrams`); '–' where the sender's numbering tells nothing.
  ['Sent, not captured (IPv4 numbering)', (d) => (d.unseenDatagrams == null ? '–' : String(d.unseenDatagrams))],
  ['Out of order', (d) => String(d.outOfOrder)],
  ['Stalls', (d) => String(stallCount(d))],
  // docs/ANALYSIS.md "ECN": CE marks on the data, echoes (ECE) and window reductions
  // (CWR); under Accurate ECN the flags are a counter, not counted.
  ['ECN: CE marks / ECE / CWR', (d) => (d.ecn ? `${d.ecn.ce} of ${d.ecn.ect0 + d.ecn.ect1 + d.ecn.ce} / ${d.ecn.ece ?? 'AccECN'} / ${d.ecn.cwr ?? 'AccECN'}` : '–')],
];

/** How many other connections are offered as throughput overlays (bufferbloat tests run 8+ flows). */
const MAX_OVERLAYS = 12;

/** The largest other connections (by payload), offered as throughput overlays. */
function overlayCandidates(report: Report, selectedId: number): ConnectionSummary[] {
  const payload = (c: ConnectionSummary) => c.directions[0].payloadBytes + c.directions[1].payloadBytes;
  return report.connections
    .filter((c) => c.id !== selectedId && payload(c) > 0)
    .sort((a, b) => payload(b) - payload(a))
    .slice(0, MAX_OVERLAYS);
}

/** The per-direction numbers; memoised, as they do not change while a gesture re-renders the view. */
const DirectionStats = memo(function DirectionStats({ summary }: { summary: ConnectionSummary }) {
  // Its own sideways scroll on a narrow screen: two address:port headers and the
  // RTT row are wider than a phone, and must not widen the page.
  return (
    <ScrollRegion label="Per direction" tall>
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
    </ScrollRegion>
  );
});

/** How the connection ended: the table's words and the sentence, both from the report
 *  (wasm analysis/track/ending.rs); nothing when the report does not say (a share link). */
export function ConnectionEnding({ summary }: { summary: ConnectionSummary }) {
  const e = endingOf(summary);
  if (!e) return null;
  return (
    <p className={`connection-ending${e.abnormal ? ' abnormal' : ''}`} data-testid="connection-ending" data-kind={e.kind}>
      <strong>Ended: {e.words}.</strong> {e.text}
    </p>
  );
}

export function ConnectionView({ name, summary, report, view, onView, source, loadData, capture, share, openedSnapshot, onChartsReady, calculateBdp }: Props) {
  const others = useMemo(() => overlayCandidates(report, summary.id), [report, summary.id]);
  const dataDir = summary.directions[summary.dataDirection];
  const onSelectStall = useCallback((start: number, duration: number) =>
    onView((v) => ({ ...v, range: [start - duration * 0.25, start + duration * 1.25] })), [onView]);
  return (
    <section className="connection" data-testid="connection" data-connection={summary.id}>
      <h2>
        Connection {summary.id}: <bdi>{summary.endpoints[0]}</bdi> ⇄ <bdi>{summary.endpoints[1]}</bdi>
        {summary.process ? <span className="process" data-testid="connection-process"> · <bdi>{processLabel(summary.process)}</bdi></span> : null}
      </h2>
      <ConnectionEnding summary={summary} />
      <ErrorBoundary what="diagnosis" resetKey={summary}>
        <DiagnosisPanel
          summary={summary}
          stalls={dataDir.stalls}
          onSelectStall={onSelectStall}
          mptcp={mptcpOf(report, summary)}
        />
      </ErrorBoundary>
      {/* Each chart has its own boundary inside; this one catches the toolbar and the stack. */}
      <ErrorBoundary what="chart stack" resetKey={summary} onError={onChartsReady}>
        <ConnectionCharts
          summary={summary}
          source={source}
          others={others}
          timeRange={view.range}
          onTimeRangeChange={(range) => onView((v) => ({ ...v, range: linkRange(range) }))}
          binMs={view.binMs}
          onBinMsChange={(binMs) => onView((v) => ({ ...v, binMs }))}
          stallMs={view.stallMs}
          onStallMsChange={(stallMs) => onView((v) => ({ ...v, stallMs }))}
          charts={view.charts}
          onChartsChange={(charts) => onView((v) => ({ ...v, charts }))}
          pipe={view.pipe}
          onPipeChange={(pipe) => onView((v) => ({ ...v, pipe }))}
          theme={view.theme}
          onReady={onChartsReady}
          wifi={report.capture.linkTypes.some((l) => l === 'ieee802-11-radiotap' || l === 'ppi')}
        />
      </ErrorBoundary>
      <ErrorBoundary what="share panel" resetKey={summary}>
        <SharePanel name={name} report={report} summary={summary} view={view} makeSnapshot={share} openedSnapshot={openedSnapshot} loadData={loadData} capture={capture} />
      </ErrorBoundary>
      <h3>Per direction</h3>
      <ErrorBoundary what="table" resetKey={summary}>
        <DirectionStats summary={summary} />
        <HandshakePanel handshake={summary.handshake} />
      </ErrorBoundary>
      <ErrorBoundary what="bandwidth-delay calculator" resetKey={summary}>
        {/* Keyed by connection: the inputs start again from the new connection's evidence. */}
        <BdpCalculator key={summary.id} summary={summary} calculate={calculateBdp} />
      </ErrorBoundary>
    </section>
  );
}
